# Builds the libFuzzer targets with clang into build/fuzz/ (separate from the gcc builds).
# Used by tests/fuzz/run:  make -f tests/fuzz/fuzz.mk [FUZZ_CC=clang] [-j2]
#
# Every core/*.c and keystore/*.c is compiled with coverage instrumentation
# (-fsanitize=fuzzer-no-link) plus ASan and UBSan; each tests/fuzz/fuzz_<name>.c becomes
# build/fuzz/fuzz_<name>, linked with libFuzzer's main.

FUZZ_CC    ?= clang
PKG_CONFIG ?= pkg-config
FB         := build/fuzz
APP_PKGS   := ncursesw libcurl jansson libgit2 libsecret-1 libarchive zlib libcrypto
PC_CFLAGS  := $(shell $(PKG_CONFIG) --cflags $(APP_PKGS))
PC_LIBS    := $(shell $(PKG_CONFIG) --libs $(APP_PKGS))
SAN        := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FCFLAGS    := -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Wno-unused-parameter -I. $(SAN) \
              -DE2B_TUI_VERSION='"fuzz"' $(PC_CFLAGS)

LIB_SRC    := $(wildcard core/*.c core/*/*.c keystore/*.c)
LIB_OBJ    := $(LIB_SRC:%.c=$(FB)/%.o)
TARGET_SRC := $(wildcard tests/fuzz/fuzz_*.c)
TARGETS    := $(TARGET_SRC:tests/fuzz/%.c=$(FB)/%)

.PHONY: all
.SECONDARY:
.DELETE_ON_ERROR:
all: $(TARGETS)

$(FB)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CLANG   $@"
	@$(FUZZ_CC) $(FCFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FB)/libfuzzcore.a: $(LIB_OBJ)
	@rm -f $@ && ar rcs $@ $^

$(FB)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FB)/libfuzzcore.a
	@echo "  LD      $@"
	@$(FUZZ_CC) $(FCFLAGS) -fsanitize=fuzzer -o $@ $< $(FB)/libfuzzcore.a $(PC_LIBS) -lpthread

-include $(shell find $(FB) -name '*.d' 2>/dev/null)
