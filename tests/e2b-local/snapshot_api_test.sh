#!/usr/bin/env bash
# e2b-local's snapshots, forks and templates on the wire (curl): seeded templates in
# GET /templates and usable in create, DELETE /templates/{id} (404 again, 403 for a public
# one), GET /snapshots paging with X-Next-Token, fork count and timeout checks, a per-fork
# failure (fault fork_fail) that leaves no sandbox, snapshots surviving a restart.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

e2bl_start "$T_TMP/state" || t_abort "e2b-local did not start"
J='Content-Type: application/json'

e2bl_api_nokey POST /_e2b-local/templates -H "$J" --data-binary \
    '{"templateID":"opencode-e2b-old","alias":"old-ws","createdAt":"2025-01-01T00:00:00Z","lastSpawnedAt":"2025-01-02T00:00:00Z"}'
t_eq "seed a template" "$E2BL_STATUS" 201
e2bl_api_nokey POST /_e2b-local/templates -H "$J" --data-binary '{"templateID":"opencode-e2b-old"}'
t_eq "seeding the same id again is 409" "$E2BL_STATUS" 409
e2bl_api GET /templates
t_ok "GET /templates lists it with aliases, names and lastSpawnedAt" jtest "$E2BL_BODY" \
    'any(.[]; .templateID == "opencode-e2b-old" and .aliases == ["old-ws"] and .names == ["local/old-ws"]
        and .lastSpawnedAt == "2025-01-02T00:00:00.000Z" and .public == false)'
t_ok "built-ins are public" jtest "$E2BL_BODY" 'any(.[]; .templateID == "base" and .public)'

t_ok "create from the seeded alias" e2bl_create '{"templateID":"local/old-ws:default"}'
t_eq "the sandbox's template is the seeded id" "$(e2bl_api GET /sandboxes/$SBX_ID; e2bl_jq .templateID)" opencode-e2b-old
e2bl_api GET /templates
t_ok "create moved lastSpawnedAt and spawnCount" jtest "$E2BL_BODY" \
    'any(.[]; .templateID == "opencode-e2b-old" and .spawnCount == 2 and (.lastSpawnedAt > "2026"))'
e2bl_api DELETE /templates/base
t_eq "a public template cannot be deleted" "$E2BL_STATUS" 403
e2bl_api DELETE /templates/opencode-e2b-old
t_eq "delete a seeded template" "$E2BL_STATUS" 204
e2bl_api DELETE /templates/opencode-e2b-old
t_eq "deleting it again is 404" "$E2BL_STATUS" 404

# Snapshots: 5 of one sandbox, listed 2 a page.
e2bl_create || t_abort "create"
SRC=$SBX_ID SRC_TOKEN=$SBX_TOKEN
e2bl_run "$SRC" "$SRC_TOKEN" 'echo kept > /home/user/f'
for i in 1 2 3 4 5; do
    e2bl_api POST /sandboxes/$SRC/snapshots -H "$J" --data-binary "{\"name\":\"s$i\"}"
    [ "$E2BL_STATUS" = 201 ] || t_fail "snapshot s$i" "status $E2BL_STATUS: $E2BL_BODY"
done
e2bl_api POST /sandboxes/$SRC/snapshots -H "$J" --data-binary '{"name":"Bad Name"}'
t_eq "an invalid snapshot name is 400" "$E2BL_STATUS" 400
seen=; tok=; pages=0
while :; do
    e2bl_api GET "/snapshots?sandboxID=$SRC&limit=2${tok:+&nextToken=$tok}"
    pages=$((pages + 1))
    seen="$seen $(e2bl_jq -r '.[].snapshotID' | tr '\n' ' ')"
    tok=$(e2bl_header X-Next-Token)
    [ -n "$tok" ] && [ "$pages" -lt 10 ] || break
done
t_eq "GET /snapshots pages 2 at a time" "$pages" 3
t_eq "every snapshot once" "$(echo $seen | tr ' ' '\n' | sort | tr '\n' ' ')" \
    "local/s1:default local/s2:default local/s3:default local/s4:default local/s5:default "
e2bl_api GET "/snapshots?name=s3"
t_eq "the name filter" "$(e2bl_jq -c '[.[].snapshotID]')" '["local/s3:default"]'

# Forks.
e2bl_api POST /sandboxes/$SRC/fork -H "$J" --data-binary '{"count":0}'
t_eq "fork count 0 is 400" "$E2BL_STATUS" 400
e2bl_api POST /sandboxes/nosuchsandbox/fork -H "$J" --data-binary '{"count":1}'
t_eq "fork of an unknown sandbox is 404" "$E2BL_STATUS" 404
before=$(ls "$T_TMP/state/roots" | wc -l)
e2bl_api_nokey POST /_e2b-local/faults --data-binary '{"kind":"fork_fail","count":1}'
e2bl_api POST /sandboxes/$SRC/fork -H "$J" --data-binary '{"count":2,"timeout":60}'
t_eq "fork is 201 even when one fork fails" "$E2BL_STATUS" 201
t_ok "one error entry and one sandbox" jtest "$E2BL_BODY" \
    'length == 2 and (.[0].error.code == 500) and (.[0].sandbox == null) and (.[1].sandbox.sandboxID | length > 0)'
FORK=$(e2bl_jq -r '.[1].sandbox.sandboxID') FTOK=$(e2bl_jq -r '.[1].sandbox.envdAccessToken')
t_eq "the failed fork left no root behind" "$(ls "$T_TMP/state/roots" | wc -l)" $((before + 1))
e2bl_api GET /sandboxes/$FORK
t_ok "the fork lives 60 s" jtest "$E2BL_BODY" \
    '((.endAt | sub("\\.[0-9]+Z$"; "Z") | fromdate) - (.startedAt | sub("\\.[0-9]+Z$"; "Z") | fromdate)) | (. > 50 and . < 70)'
e2bl_run "$FORK" "$FTOK" 'cat /home/user/f'
t_eq "the fork has the parent's files" "$RUN_OUT" kept

# Restart: snapshots and seeded templates are kept.
e2bl_stop
e2bl_start "$T_TMP/state" || t_abort "restart"
e2bl_api GET /snapshots
t_eq "snapshots survive a restart" "$(e2bl_jq 'length')" 5
t_ok "create from a snapshot after the restart" e2bl_create '{"templateID":"local/s2"}'
e2bl_run "$SBX_ID" "$SBX_TOKEN" 'cat /home/user/f'
t_eq "its files" "$RUN_OUT" kept
for i in 1 2 3 4 5; do e2bl_api DELETE /templates/local/s$i:default; done
t_eq "delete by namespaced id" "$E2BL_STATUS" 204
t_eq "the snapshot files are gone" "$(ls "$T_TMP/state/templates" | wc -l)" 0
t_finish
