#!/usr/bin/env bash
# make demo: the dashboard against the bundled local E2B-compatible server, no account needed.
# Until the server and the dashboard land, it says what exists so far.
set -u
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
echo "e2b-tui demo"
"$B/e2b-tui" --version
echo
echo "The local E2B server (tests/e2b-local) and the dashboard are still being built;"
echo "what the binary can do today:"
echo
"$B/e2b-tui" --help
