#!/usr/bin/env bash
# Start-up cost: e2b-tui must not link libarchive (and the libxml2/ICU/libstdc++ it drags
# in); core/util/archive_dl.c loads it when an up first packs a project. The box tests prove the
# loaded library works; this proves the start-up does not pay for it.
. "$(dirname "$0")/../lib/lib.sh"
needed=$(readelf -d "$E2B_TUI_BIN" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
t_ok "startup: readelf lists the binary's libraries" test -n "$needed"
for lib in libarchive libxml2 libicuuc libstdc++; do
    if printf '%s\n' "$needed" | grep -q "^$lib"; then
        t_fail "startup: $lib is not linked" "NEEDED: $(printf '%s ' $needed)"
    else
        t_pass "startup: $lib is not linked"
    fi
done
loaded=$("$E2B_TUI_BIN" --version >/dev/null 2>&1; LD_DEBUG=files "$E2B_TUI_BIN" --version 2>&1 >/dev/null | grep -c 'libarchive')
t_eq "startup: --version does not load libarchive" "$loaded" 0
t_finish
