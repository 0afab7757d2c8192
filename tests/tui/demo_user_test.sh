#!/usr/bin/env bash
# make demo as an unprivileged user: the README's walkthrough (tests/tui/demo_walk.sh) with
# tests/demo.sh run by a throwaway user (made with useradd, removed at the end), so the
# local E2B server runs without root (bubblewrap in a user namespace) and its boxes run the
# OpenCode server and the scripted model the project installed (build/npm), which that user
# may only read. Not root (a developer's make check), the demo runs as this user, which is
# already unprivileged.
. "$(dirname "$0")/common.sh"
if [ "$(id -u)" = 0 ]; then
    DEMO_USER=e2btui-demo-$$
    udir=$(mktemp -d /tmp/e2b-tui-demo-user.XXXXXX) || t_abort "no directory for the demo's user"
    t_on_exit "rm -rf '$udir'"
    useradd --no-create-home --home-dir "$udir/home" --shell /bin/sh --user-group "$DEMO_USER" ||
        t_abort "useradd could not make the throwaway user $DEMO_USER"
    t_on_exit "userdel -f '$DEMO_USER' 2>/dev/null"
    chmod 755 "$udir" && mkdir -p "$udir/home" "$udir/tmp" && chown "$DEMO_USER:" "$udir/home" "$udir/tmp" ||
        t_abort "could not give $DEMO_USER its home and temporary directory"
    DEMO_TMP=$udir/tmp DEMO_AS="runuser -u $DEMO_USER -- env HOME=$udir/home"
    # The checks read the user's project as root: git wants to be told that is fine.
    export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
else
    DEMO_USER=$(id -un) DEMO_TMP=$T_TMP/demo-tmp DEMO_AS=
    mkdir -p "$DEMO_TMP"
fi
t_ok "the demo runs unprivileged" sh -c "test \"\$(id -u $DEMO_USER)\" != 0"
. "$E2B_TUI_ROOT/tests/tui/demo_walk.sh"
if [ "$(id -u)" = 0 ]; then
    t_ok "the throwaway user is removed" userdel -f "$DEMO_USER"
    t_ok "and so is its group" sh -c "! getent group '$DEMO_USER' >/dev/null"
fi
t_finish
