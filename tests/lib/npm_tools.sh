# Where the npm pieces are (the real OpenCode server, the E2B SDK): the project's own install
# in build/npm (`make npm`: npm ci from tests/npm/package-lock.json) first, a global install
# second. Plain shell, no test helpers: tests/demo.sh and the bench scripts source it too.
#
#   npm_tools_find ROOT   sets, for the versions tests/npm/package.json pins:
#     OPENCODE_BIN        the OpenCode command on this machine (attach runs it)
#     BOX_OPENCODE        the same server as an e2b-local box runs it
#     NPM_TOOLS_BIND      e2b-local's --ro-bind argument that shows it to the boxes at
#                         $NPM_TOOLS_BOX_DIR (empty: a global install in /usr, which every
#                         box sees already)
#   and returns 0; else returns 1 with NPM_TOOLS_WHY saying what is missing.
#   npm_tools_sdk ROOT    sets E2B_SDK_DIR, the prefix whose node_modules holds the E2B SDK
#                         (same order, same NPM_TOOLS_WHY)
NPM_TOOLS_BOX_DIR=/opt/e2b-tui/npm

# npm_tools_version ROOT PACKAGE: the version tests/npm/package.json pins.
npm_tools_version() {
    sed -n "s/^ *\"$2\": *\"\([^\"]*\)\".*/\1/p" "$1/tests/npm/package.json" | head -n 1
}

# npm_tools_has PREFIX PACKAGE VERSION: PREFIX/node_modules holds PACKAGE at VERSION.
npm_tools_has() {
    [ -f "$1/node_modules/$2/package.json" ] &&
        grep -q "^ *\"version\": *\"$3\"" "$1/node_modules/$2/package.json"
}

npm_tools_find() {
    local root=$1 oc_v global=
    oc_v=$(npm_tools_version "$root" opencode-ai)
    NPM_TOOLS_WHY=
    command -v npm >/dev/null && global=$(npm root -g 2>/dev/null)
    global=${global%/node_modules}
    if npm_tools_has "$root/build/npm" opencode-ai "$oc_v" && [ -x "$root/build/npm/node_modules/.bin/opencode" ]; then
        OPENCODE_BIN=$root/build/npm/node_modules/.bin/opencode
        BOX_OPENCODE=$NPM_TOOLS_BOX_DIR/node_modules/.bin/opencode
        NPM_TOOLS_BIND=$root/build/npm:$NPM_TOOLS_BOX_DIR
    elif [ -n "$global" ] && npm_tools_has "$global" opencode-ai "$oc_v" &&
        case $global in /usr/*) true ;; *) false ;; esac && command -v opencode >/dev/null; then
        OPENCODE_BIN=$(command -v opencode)
        BOX_OPENCODE=opencode
        NPM_TOOLS_BIND=
    else
        NPM_TOOLS_WHY="the OpenCode server opencode-ai@$oc_v is not in build/npm: make npm installs it (npm ci)"
        return 1
    fi
    export OPENCODE_BIN BOX_OPENCODE NPM_TOOLS_BIND
    return 0
}

npm_tools_sdk() {
    local root=$1 sdk_v global=
    sdk_v=$(npm_tools_version "$root" e2b)
    command -v npm >/dev/null && global=$(npm root -g 2>/dev/null)
    global=${global%/node_modules}
    if npm_tools_has "$root/build/npm" e2b "$sdk_v"; then
        E2B_SDK_DIR=$root/build/npm
    elif [ -n "$global" ] && npm_tools_has "$global" e2b "$sdk_v"; then
        E2B_SDK_DIR=$global
    else
        NPM_TOOLS_WHY="the E2B SDK e2b@$sdk_v is not in build/npm: make npm installs it (npm ci)"
        return 1
    fi
    export E2B_SDK_DIR
}
