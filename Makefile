# e2b-tui — GNU make build. No autotools: every library comes from pkg-config.
#
#   make            e2b-tui, libe2bcore.a, libkeystore.a and the test server
#   make check      ASan+UBSan build, every test under tests/, valgrind on unit tests
#                   (JOBS=N or -jN: N test programs at a time)
#   make mutants    plants each bug of tests/mutants/ in a scratch copy and runs the tests
#                   that must catch it (M="name ..." for some); fails on a survivor
#   make demo       the dashboard against the bundled local E2B server
#   make deps       install the Debian packages the build and the tests need
#   make npm        the npm pieces (tests/npm/package-lock.json) into build/npm, by npm ci
#   make install    PREFIX (default /usr/local) and DESTDIR are honoured
#   make deb        build/e2b-tui_<version>_<arch>.deb, a lintian-clean Debian package

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
DESTDIR    ?=

CC         ?= cc
PKG_CONFIG ?= pkg-config
# WERROR=1 turns every warning into an error (CI sets it).
WERROR     ?= 0
# V=1 prints whole command lines.
V          ?= 0
ifeq ($(V),1)
Q          :=
else
Q          := @
endif

APP_PKGS   := ncursesw libcurl jansson libgit2 libsecret-1 libarchive zlib libcrypto
TEST_PKGS  := libmicrohttpd zlib
DEB_PKGS   := build-essential pkg-config libncurses-dev libcurl4-openssl-dev libjansson-dev \
              libgit2-dev libsecret-1-dev libarchive-dev libmicrohttpd-dev zlib1g-dev libssl-dev bubblewrap tmux \
              gnome-keyring dbus libsecret-tools git python3 valgrind curl procps \
              mandoc jq clang libclang-rt-dev dpkg-dev lintian man-db zsh sudo passwd
# The npm pieces the box tests, the SDK tests and the demo run (the real OpenCode server,
# the E2B SDK as referee): pinned and integrity-checked by tests/npm/package-lock.json,
# installed by `npm ci` into build/npm (never globally). The stamp is newer than the lock
# file: a second run installs nothing, a changed lock file installs again.
NPM_DIR    := build/npm
NPM_STAMP  := $(NPM_DIR)/.installed

WARN       := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
              -Wformat=2 -Wvla -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN       += -Werror
endif
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -I. -DE2B_TUI_VERSION='"$(VERSION)"'
SAN_FLAGS  := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# pkg-config is asked lazily (=, not :=) so that `make deps` works before the libraries exist.
PC_CFLAGS   = $(shell $(PKG_CONFIG) --cflags $(APP_PKGS) 2>/dev/null)
# libarchive is compiled against but not linked: core/util/archive_dl.c loads it when an up first
# needs it, so start-up does not pay for it (and for the libxml2/ICU it drags in).
LINK_PKGS  := $(filter-out libarchive,$(APP_PKGS))
PC_LIBS     = $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null)
TPC_CFLAGS  = $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS) libcurl jansson 2>/dev/null)
TPC_LIBS    = $(shell $(PKG_CONFIG) --libs $(TEST_PKGS) libcurl jansson 2>/dev/null)
KS_CFLAGS   = $(shell $(PKG_CONFIG) --cflags libsecret-1 2>/dev/null)

# Variant: build/ (release) or build/asan/ (sanitizers). Set by the caller as B=...
B          ?= build
ifeq ($(findstring asan,$(B)),asan)
VCFLAGS    := $(BASE_CFLAGS) $(SAN_FLAGS)
VLDFLAGS   := -fsanitize=address,undefined
else
VCFLAGS    := $(BASE_CFLAGS)
VLDFLAGS   :=
endif
CFLAGS     ?=
LDFLAGS    ?=

CORE_SRC   := $(wildcard core/*.c core/*/*.c)
KS_SRC     := $(wildcard keystore/*.c)
TUI_SRC    := $(wildcard tui/*.c tui/*/*.c)
LOCAL_SRC  := $(wildcard tests/e2b-local/*.c)
# Every .c under these test folders is one test program; tests/lib/*.c is linked into each.
PROG_SRC   := $(wildcard tests/unit/*.c tests/keystore/*.c tests/integration/*.c tests/tui/*.c \
                         tests/bench/*.c)
UNIT_LIB   := $(wildcard tests/lib/*.c)
# Each fuzz target (tests/fuzz/fuzz_*.c) is also linked with a file-replay main (no libFuzzer):
# make check replays the seeds and saved findings through it. The clang/libFuzzer build is
# tests/fuzz/fuzz.mk (make fuzz).
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)

CORE_OBJ   := $(CORE_SRC:%.c=$(B)/%.o)
KS_OBJ     := $(KS_SRC:%.c=$(B)/%.o)
TUI_OBJ    := $(TUI_SRC:%.c=$(B)/%.o)
LOCAL_OBJ  := $(LOCAL_SRC:%.c=$(B)/%.o)
UNIT_LOBJ  := $(UNIT_LIB:%.c=$(B)/%.o)
PROG_BIN   := $(PROG_SRC:%.c=$(B)/%)
FUZZ_BIN   := $(FUZZ_SRC:%.c=$(B)/%)

.SECONDARY:
.DELETE_ON_ERROR:
.PHONY: all variant check test mutants asan valgrind demo deps need-deps npm install uninstall clean distclean bench soak fuzz format

# A plain `make` (no -j: CI's, a newcomer's) still compiles on every core: the variant's
# sub-make gets -j<cores> unless the caller gave a -j of its own (then its jobserver rules).
BUILD_J     = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

all: need-deps
	@$(MAKE) --no-print-directory $(BUILD_J) variant B=build

asan: need-deps
	@$(MAKE) --no-print-directory $(BUILD_J) variant B=build/asan

variant: $(B)/e2b-tui $(B)/libe2bcore.a $(B)/libkeystore.a $(B)/e2b-local $(PROG_BIN) $(FUZZ_BIN)
	@if [ "$(B)" = build ]; then ln -sf $(B)/e2b-tui e2b-tui; fi

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(VCFLAGS) $(PC_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/tests/e2b-local/%.o: tests/e2b-local/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(VCFLAGS) $(TPC_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/libe2bcore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libkeystore.a: $(KS_OBJ)
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/e2b-tui: $(TUI_OBJ) $(B)/libe2bcore.a $(B)/libkeystore.a
	@echo "  LD      $@"
	$(Q)$(CC) $(VLDFLAGS) $(LDFLAGS) -o $@ $(TUI_OBJ) $(B)/libe2bcore.a $(B)/libkeystore.a $(PC_LIBS) -lpthread

$(B)/e2b-local: $(LOCAL_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(VLDFLAGS) $(LDFLAGS) -o $@ $(LOCAL_OBJ) $(TPC_LIBS) -lpthread

# -MMD: a test program that #includes a .c of tui/ or core/ (test_tui_agent.c does) or any
# header is rebuilt when that file changes (without it a mutant of tui/agent_text.c ran
# against the old test binary and survived). A program built before it had a .d file is
# rebuilt once.
$(foreach p,$(PROG_BIN),$(if $(wildcard $(p).d),,$(p))): test-program-without-deps
.PHONY: test-program-without-deps
$(B)/tests/%: tests/%.c $(UNIT_LOBJ) $(B)/libe2bcore.a $(B)/libkeystore.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(VCFLAGS) $(PC_CFLAGS) $(CFLAGS) -MMD -MP $(VLDFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_LOBJ) \
	    $(B)/libe2bcore.a $(B)/libkeystore.a $(PC_LIBS) -lpthread

$(B)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/replay_main.c tests/fuzz/fuzz_common.h \
                   $(B)/libe2bcore.a $(B)/libkeystore.a
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(VCFLAGS) $(PC_CFLAGS) $(CFLAGS) $(VLDFLAGS) $(LDFLAGS) -o $@ $< \
	    tests/fuzz/replay_main.c $(B)/libe2bcore.a $(B)/libkeystore.a $(PC_LIBS) -lpthread

# The whole suite runs against the sanitizer build; unit tests also run under valgrind.
# JOBS: how many test programs tests/run runs at a time, by default one more than the cores
# (most of a test's time is spent waiting on servers, tmux and polls); `make check -j2`
# passes its -j on (a bare -j means one per core). Each program's time is kept in
# build/test-times.txt.
MAKE_J      = $(filter -j%,$(MAKEFLAGS))
JOBS       ?= $(if $(MAKE_J),$(or $(patsubst -j%,%,$(MAKE_J)),$(shell nproc)),$(shell echo $$(($$(nproc) + 1))))

check: asan npm
	@$(MAKE) --no-print-directory $(BUILD_J) variant B=build
	@tests/run B=build/asan VALGRIND_B=build JOBS=$(JOBS) $(if $(T),T="$(T)")

# Only the tests named by T (a directory or file under tests/), no valgrind pass.
test: asan npm
	@tests/run B=build/asan JOBS=$(JOBS) $(if $(T),T="$(T)")

# Not part of check (each mutant builds and runs real tests): tests/mutants/README.md.
mutants: asan npm
	@tests/mutants/run $(if $(M),M="$(M)")

valgrind: all
	@tests/run B=build VALGRIND_B=build T=valgrind-only

demo: all npm
	@tests/demo.sh build

# Installs what is missing only when a Debian package is not installed (a fresh machine, or
# one that ran an older `make deps`): one dpkg-query, no network.
need-deps:
	@n=$$(dpkg-query -W -f='$${db:Status-Abbrev}\n' $(DEB_PKGS) 2>/dev/null | grep -c '^ii'); \
	  [ "$$n" = "$(words $(DEB_PKGS))" ] && command -v npm >/dev/null || $(MAKE) --no-print-directory deps

deps:
	@sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	echo "installing Debian packages: $(DEB_PKGS)"; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $(DEB_PKGS) && \
	{ command -v npm >/dev/null || \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends nodejs npm; }

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/vendor-completions \
	  $(DESTDIR)$(DATADIR)/doc/e2b-tui
	install -m 0755 build/e2b-tui $(DESTDIR)$(BINDIR)/e2b-tui
	install -m 0644 man/e2b-tui.1 $(DESTDIR)$(MANDIR)/man1/e2b-tui.1
	install -m 0644 share/completions/e2b-tui.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/e2b-tui
	install -m 0644 share/completions/_e2b-tui $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_e2b-tui
	install -m 0644 share/keys.conf share/e2b-tui.conf.example $(DESTDIR)$(DATADIR)/doc/e2b-tui/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/e2b-tui $(DESTDIR)$(MANDIR)/man1/e2b-tui.1 \
	  $(DESTDIR)$(DATADIR)/bash-completion/completions/e2b-tui \
	  $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_e2b-tui \
	  $(DESTDIR)$(DATADIR)/doc/e2b-tui/keys.conf $(DESTDIR)$(DATADIR)/doc/e2b-tui/e2b-tui.conf.example
	-rmdir $(DESTDIR)$(DATADIR)/doc/e2b-tui 2>/dev/null

# make deb: build/e2b-tui_<version>_<arch>.deb, the `make install` tree (PREFIX=/usr) laid out
# as Debian wants it by share/debian/mkdeb.sh (control.in, copyright, changelog, overrides).
# Its binary is built again in build/deb-obj with Debian's hardening flags (dpkg-buildflags,
# hardening=+all: fortify, stack protector, relro, bindnow); mkdeb.sh strips it. The test
# server is not in the package. Needs dpkg-dev; tests/integration/deb_test.sh runs lintian.
DEB_FLAGS   = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get
.PHONY: deb
deb: all
	@$(MAKE) --no-print-directory build/deb-obj/e2b-tui B=build/deb-obj \
	  CFLAGS="$$($(DEB_FLAGS) CPPFLAGS) $$($(DEB_FLAGS) CFLAGS)" LDFLAGS="$$($(DEB_FLAGS) LDFLAGS)"
	@rm -rf build/deb
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/build/deb/root PREFIX=/usr >/dev/null
	@install -m 0755 build/deb-obj/e2b-tui build/deb/root/usr/bin/e2b-tui
	@share/debian/mkdeb.sh build/deb $(VERSION) build

bench: all npm
	@tests/bench/run build

# Issue 15's soak (not in check): 20 agents streaming for SOAK_MINUTES (30) under churn and
# faults; the dashboard's RSS and fds must not grow (tests/soak/run says what it needs).
soak: all npm
	@tests/soak/run build

fuzz:
	@tests/fuzz/run

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

npm: $(NPM_STAMP)

$(NPM_STAMP): tests/npm/package.json tests/npm/package-lock.json | need-deps
	@echo "installing the npm pieces into $(NPM_DIR) (npm ci from tests/npm/package-lock.json)"
	$(Q)rm -rf $(NPM_DIR) && mkdir -p $(NPM_DIR) && cp tests/npm/package.json tests/npm/package-lock.json $(NPM_DIR)/ && \
	  cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error && touch .installed

# build/test-times.txt (the test runner's record of each file's time) and build/npm (the
# npm pieces: about 150 MB to download again, not a build output) are kept; distclean
# removes them too.
clean:
	@if [ -d build ]; then find build -mindepth 1 -maxdepth 1 ! -name test-times.txt ! -name npm -exec rm -rf {} +; fi
	rm -f e2b-tui

distclean: clean
	rm -rf build e2b-tui

-include $(shell find build -name '*.d' 2>/dev/null)
