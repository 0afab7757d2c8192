#!/usr/bin/env bash
# envd of e2b-local: files, the Filesystem service, processes and sandbox isolation.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
# A directory every box sees read-only at a mount point whose parents bwrap has to make.
mkdir -p "$T_TMP/tools" && echo tool-ok >"$T_TMP/tools/t"
e2b_local_start --ro-bind "$T_TMP/tools:/opt/e2b-local-test/deep/tools" || t_finish
el_create '{"envVars":{"FROM_CREATE":"yes","BOTH":"create"}}' || t_finish
A=$EL_ID; TA=$EL_TOKEN
el_create || t_finish
B=$EL_ID; TB=$EL_TOKEN

t_eq "the --ro-bind's parents are 0755 and user reads what is bound there" \
    "$(el_run "$A" "$TA" 'stat -c %a /opt /opt/e2b-local-test /opt/e2b-local-test/deep; cat /opt/e2b-local-test/deep/tools/t' | grep '^stdout' | tr '\n' ' ')" \
    "stdout 755 stdout 755 stdout 755 stdout tool-ok "

# --- routing and auth ------------------------------------------------------------------------
t_eq "envd /health is 204 without a token" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: 49983-$A.localhost:$E2B_LOCAL_PORT" "$E2B_LOCAL_URL/health")" 204
t_eq "envd without X-Access-Token is 401" "$(el_envd "$A" '' GET '/files?path=/etc/passwd')" 401
t_eq "envd with the other sandbox's token is 401" "$(el_envd "$A" "$TB" GET '/files?path=/etc/passwd')" 401
t_eq "envd of an unknown sandbox is 502" "$(el_envd inosuch "$TA" GET '/files?path=/etc/passwd')" 502
t_eq "the 502 body names the sandbox" "$(el_json .sandboxId)" inosuch

# --- files -----------------------------------------------------------------------------------
printf 'alpha\n' >"$T_TMP/a.txt"
printf 'beta\n' >"$T_TMP/b.txt"
code=$(el_envd "$A" "$TA" POST /files -F "file=@$T_TMP/a.txt;filename=/home/user/proj/src/a.txt" \
    -F "file=@$T_TMP/b.txt;filename=notes/b.txt")
t_eq "multipart upload answers 200" "$code" 200
t_eq "multipart upload lists both paths" "$(el_json '[.[].path]')" '["/home/user/proj/src/a.txt","/home/user/notes/b.txt"]'
el_envd "$A" "$TA" GET '/files?path=/home/user/proj/src/a.txt' >/dev/null
t_eq "file reads back" "$(cat "$EL_BODY_FILE")" alpha
el_envd "$A" "$TA" GET '/files?path=notes/b.txt' >/dev/null
t_eq "relative paths resolve from the home directory" "$(cat "$EL_BODY_FILE")" beta
# uid 1000 as root; without root the server's own uid (mapped to 1000 inside).
t_eq "uploaded files belong to user" "$(stat -c %u "$E2B_LOCAL_STATE/roots/$A/home/user/proj/src/a.txt")" \
    "$([ "$(id -u)" = 0 ] && echo 1000 || id -u)"
printf 'zipped content\n' | gzip >"$T_TMP/z.gz"
code=$(el_envd "$A" "$TA" POST '/files?path=/tmp/z.txt' -H 'Content-Type: application/octet-stream' \
    -H 'Content-Encoding: gzip' --data-binary "@$T_TMP/z.gz")
t_eq "gzip octet-stream upload answers 200" "$code" 200
el_envd "$A" "$TA" GET '/files?path=/tmp/z.txt' >/dev/null
t_eq "gzip upload is stored decompressed" "$(cat "$EL_BODY_FILE")" "zipped content"
t_eq "octet-stream without ?path= is 400" "$(el_envd "$A" "$TA" POST /files -H 'Content-Type: application/octet-stream' --data-binary x)" 400
t_eq "a missing file is 404" "$(el_envd "$A" "$TA" GET '/files?path=/nope')" 404
t_eq "reading a directory is 400" "$(el_envd "$A" "$TA" GET '/files?path=/home/user')" 400
t_eq "/usr is read-only" "$(el_envd "$A" "$TA" POST '/files?path=/usr/x' -H 'Content-Type: application/octet-stream' --data-binary x)" 400
t_eq "an empty multipart file is written" \
    "$(: >"$T_TMP/empty"; el_envd "$A" "$TA" POST /files -F "file=@$T_TMP/empty;filename=/tmp/empty.txt")" 200
t_ok "the empty file exists in the sandbox" test -f "$E2B_LOCAL_STATE/roots/$A/tmp/empty.txt"

# --- the same absolute path in two sandboxes and on the host ---------------------------------
SAME=$T_TMP/same/project/file.txt
mkdir -p "$(dirname "$SAME")" && echo host >"$SAME"
echo in-a >"$T_TMP/va"; echo in-b >"$T_TMP/vb"
el_envd "$A" "$TA" POST /files -F "file=@$T_TMP/va;filename=$SAME" >/dev/null
el_envd "$B" "$TB" POST /files -F "file=@$T_TMP/vb;filename=$SAME" >/dev/null
t_eq "sandbox A sees its own file" "$(el_run "$A" "$TA" "cat $SAME" | grep ^stdout)" "stdout in-a"
t_eq "sandbox B sees its own file" "$(el_run "$B" "$TB" "cat $SAME" | grep ^stdout)" "stdout in-b"
t_eq "the host file is untouched" "$(cat "$SAME")" host
el_run "$A" "$TA" "echo from-process > $T_TMP/same/written-inside" >/dev/null
t_ok "a process writing an absolute path does not touch the host" test ! -e "$T_TMP/same/written-inside"

# --- symlinks cannot escape -------------------------------------------------------------------
mkdir -p "$T_TMP/escape"
el_run "$A" "$TA" "mkdir -p $T_TMP/escape; ln -s $T_TMP/escape /home/user/link; ln -s ../../../../../../.. /home/user/up" >/dev/null
el_envd "$A" "$TA" POST /files -F "file=@$T_TMP/va;filename=/home/user/link/planted" >/dev/null
t_ok "a write through an absolute symlink stays in the sandbox" test ! -e "$T_TMP/escape/planted"
t_ok "... and lands inside the sandbox" test -f "$E2B_LOCAL_STATE/roots/$A$T_TMP/escape/planted"
el_envd "$A" "$TA" GET "/files?path=/home/user/up$E2B_LOCAL_STATE/secrets.json" >/dev/null
t_not_contains "a read through a .. symlink cannot reach the host" "$(cat "$EL_BODY_FILE")" secretID
t_eq "../ in a path cannot leave the sandbox root" "$(el_envd "$A" "$TA" GET "/files?path=../../../../..$SAME")" 200
t_eq "... it reads the sandbox's copy" "$(cat "$EL_BODY_FILE")" in-a

# --- filesystem.Filesystem --------------------------------------------------------------------
t_eq "MakeDir answers 200" "$(el_rpc "$A" "$TA" filesystem.Filesystem/MakeDir '{"path":"/home/user/d1/d2"}')" 200
t_eq "MakeDir returns a directory entry" "$(el_json .entry.type)" FILE_TYPE_DIRECTORY
t_eq "MakeDir of an existing directory is 409" "$(el_rpc "$A" "$TA" filesystem.Filesystem/MakeDir '{"path":"/home/user/d1"}')" 409
t_eq "... with code already_exists" "$(el_json .code)" already_exists
t_eq "Stat answers 200" "$(el_rpc "$A" "$TA" filesystem.Filesystem/Stat '{"path":"/home/user/proj/src/a.txt"}')" 200
t_eq "Stat size is an int64 string" "$(el_json .entry.size)" '6'
t_eq "Stat size is a JSON string" "$(el_json '.entry.size | type')" string
t_eq "Stat shows the owner" "$(el_json .entry.owner)" user
t_eq "Stat of a missing path is 404 not_found" "$(el_rpc "$A" "$TA" filesystem.Filesystem/Stat '{"path":"/nope"}') $(el_json .code)" "404 not_found"
t_eq "ListDir answers 200" "$(el_rpc "$A" "$TA" filesystem.Filesystem/ListDir '{"path":"/home/user/proj","depth":2}')" 200
t_eq "ListDir depth 2 recurses" "$(el_json '[.entries[].path] | sort')" '["/home/user/proj/src","/home/user/proj/src/a.txt"]'
t_eq "Move answers 200" "$(el_rpc "$A" "$TA" filesystem.Filesystem/Move '{"source":"/home/user/notes/b.txt","destination":"/home/user/moved/b2.txt"}')" 200
t_eq "Move returns the destination" "$(el_json .entry.path)" /home/user/moved/b2.txt
t_eq "Remove answers 200" "$(el_rpc "$A" "$TA" filesystem.Filesystem/Remove '{"path":"/home/user/proj"}')" 200
t_ok "Remove is recursive" test ! -e "$E2B_LOCAL_STATE/roots/$A/home/user/proj"
t_eq "Remove of a missing path is fine" "$(el_rpc "$A" "$TA" filesystem.Filesystem/Remove '{"path":"/home/user/proj"}')" 200

# --- processes ---------------------------------------------------------------------------------
out=$(el_run "$A" "$TA" 'echo out; echo err >&2; id -un; exit 7')
t_contains "Start streams a start event first" "$(echo "$out" | head -1)" "start "
t_contains "stdout arrives" "$out" "stdout out"
t_contains "stderr arrives" "$out" "stderr err"
t_contains "processes run as user by default" "$out" "stdout user"
t_contains "the end event has the exit code" "$out" '"exitCode":7'
t_eq "the stream ends with an end-of-stream message" "$(echo "$out" | tail -1)" "eos {}"
out=$(el_run "$A" "$TA" 'echo "$FROM_CREATE $BOTH $HOME $E2B_SANDBOX"' '{"process":{"envs":{"BOTH":"request"}}}')
t_contains "envVars from create and request envs reach the process" "$out" "stdout yes request /home/user true"
out=$(el_run "$A" "$TA" 'id -u' '' -H 'Authorization: Basic cm9vdDo=')
t_contains "root is available when asked" "$out" "stdout 0"
out=$(el_run "$A" "$TA" 'ls /proc | grep -c "^[0-9]"')
n=$(echo "$out" | sed -n 's/^stdout //p')
t_ok "the sandbox has its own pid namespace ($n processes)" test "${n:-99}" -lt 8
out=$(el_run "$A" "$TA" 'true' '{"process":{"cwd":"/no/such/dir"}}')
t_contains "a missing cwd is invalid_argument" "$out" '"code":"invalid_argument"'
out=$(el_run "$A" "$TA" 'sleep 20' '' -H 'Connect-Timeout-Ms: 700')
t_contains "Connect-Timeout-Ms is the process lifetime" "$out" '"status":"signal: killed"'
out=$(el_run "$A" "$TA" 'sleep 2.3; echo late' '' -H 'Keepalive-Ping-Interval: 1')
t_contains "keepalives are sent as asked" "$out" keepalive
t_contains "... and the output still arrives" "$out" "stdout late"

# A background server survives its stream being closed.
el_run "$A" "$TA" 'exec python3 -m http.server 4096 --bind 127.0.0.1' '{"tag":"web"}' -m 1 >"$T_TMP/bg.out" 2>/dev/null
t_contains "the background process started" "$(cat "$T_TMP/bg.out")" "start "
BGPID=$(sed -n 's/^start //p' "$T_TMP/bg.out")
sleep 0.3
t_eq "Process/List answers 200" "$(el_rpc "$A" "$TA" process.Process/List '{}')" 200
t_eq "the server runs after its stream closed" "$(el_json "[.processes[] | select(.tag == \"web\") | .pid]")" "[$BGPID]"
t_eq "List shows the command" "$(el_json '.processes[] | select(.tag == "web") | .config.cmd')" /bin/bash
el_rpc "$B" "$TB" process.Process/List '{}' >/dev/null
t_eq "a process in A is not visible in B" "$(el_json '[.processes[] | select(.tag == "web")] | length')" 0
out=$(el_run "$B" "$TB" 'ps -e -o comm= | grep -c python3')
t_contains "B cannot see A's processes at all" "$out" "stdout 0"

# Connect by tag, then a signal ends the process and the stream.
el_frame '{"process":{"tag":"web"}}' | curl -sS -N -X POST -H "E2b-Sandbox-Id: $A" -H "E2b-Sandbox-Port: 49983" \
    -H "X-Access-Token: $TA" -H 'Content-Type: application/connect+json' --data-binary @- \
    "$E2B_LOCAL_URL/process.Process/Connect" -m 40 >"$T_TMP/conn.raw" 2>/dev/null &
CONN=$!
sleep 0.5
t_eq "SendSignal answers 200" "$(el_rpc "$A" "$TA" process.Process/SendSignal "{\"process\":{\"pid\":$BGPID},\"signal\":\"SIGNAL_SIGTERM\"}")" 200
wait "$CONN"
out=$(el_decode <"$T_TMP/conn.raw")
t_eq "Connect starts with the same pid" "$(echo "$out" | head -1)" "start $BGPID"
t_contains "Connect sees the end of the signalled process" "$out" '"status":"signal: terminated"'
t_eq "SendSignal to an unknown pid is 404" "$(el_rpc "$A" "$TA" process.Process/SendSignal '{"process":{"pid":99999},"signal":"SIGNAL_SIGKILL"}')" 404

# stdin: SendInput, then CloseStdin ends `cat`.
el_run "$A" "$TA" 'cat; echo done' '{"stdin":true,"tag":"cat"}' -m 40 >"$T_TMP/cat.out" 2>/dev/null &
CAT=$!
for _ in $(seq 50); do grep -q '^start' "$T_TMP/cat.out" 2>/dev/null && break; sleep 0.1; done
el_rpc "$A" "$TA" process.Process/List '{}' >/dev/null
CATPID=$(el_json '.processes[] | select(.tag == "cat") | .pid')
t_eq "SendInput answers 200" "$(el_rpc "$A" "$TA" process.Process/SendInput "{\"process\":{\"pid\":$CATPID},\"input\":{\"stdin\":\"$(printf 'hello stdin\n' | base64)\"}}")" 200
t_eq "CloseStdin answers 200" "$(el_rpc "$A" "$TA" process.Process/CloseStdin "{\"process\":{\"pid\":$CATPID}}")" 200
wait "$CAT"
t_contains "stdin reached the process" "$(cat "$T_TMP/cat.out")" "stdout hello stdin"
t_contains "closing stdin ended it" "$(cat "$T_TMP/cat.out")" "stdout done"

# A paused sandbox takes no envd traffic.
el_req POST "/sandboxes/$B/pause" >/dev/null
t_eq "envd of a paused sandbox is 502" "$(el_envd "$B" "$TB" GET '/files?path=/tmp')" 502
e2b_local_stop
t_eq "server stops cleanly (exit 0, no leak)" "$?" 0
t_eq "no sandbox process is left" "$(pgrep -f "bwrap.*$E2B_LOCAL_STATE" | wc -l)" 0
t_finish
