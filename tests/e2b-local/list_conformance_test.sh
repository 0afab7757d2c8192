#!/usr/bin/env bash
# GET /v2/sandboxes conformance (reference §1.5): pagination across 250 sandboxes with
# limit and X-Next-Token (no duplicates, none missing), order, metadata filters encoded as
# the SDK encodes them (values with =, &, + and spaces), the state filter, bad queries.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! e2bl_start "$T_TMP/state"; then t_fail "list: e2b-local starts" "no listening line"; t_finish; fi

start=$SECONDS
if ! e2bl_bulk_create 250 '{"templateID":"base","metadata":{"batch":"b250","i":"@I@"}}' >"$T_TMP/ids"; then
    t_fail "list: 250 creates succeed" "a create failed"; t_finish
fi
t_eq "list: 250 creates succeed" "$(sort -u "$T_TMP/ids" | wc -l)" 250
echo "# 250 creates took $((SECONDS - start)) s"

# walk QUERY: follows X-Next-Token; writes ids to $T_TMP/walk, page sizes to $T_TMP/pages,
# startedAt values to $T_TMP/started. Fails on a non-200 page.
walk() {
    local q=$1 tok="" n=0
    : >"$T_TMP/walk"; : >"$T_TMP/pages"; : >"$T_TMP/started"
    while :; do
        local url="/v2/sandboxes?$q"
        [ -n "$tok" ] && url="$url&nextToken=$(jq -rn --arg t "$tok" '$t|@uri')"
        e2bl_api GET "$url"
        [ "$E2BL_STATUS" = 200 ] || { echo "page status $E2BL_STATUS: $E2BL_BODY" >&2; return 1; }
        e2bl_jq '.[].sandboxID' >>"$T_TMP/walk"
        e2bl_jq '.[].startedAt' >>"$T_TMP/started"
        e2bl_jq 'length' >>"$T_TMP/pages"
        tok=$(e2bl_header X-Next-Token)
        [ -z "$tok" ] && return 0
        n=$((n + 1))
        [ "$n" -lt 50 ] || { echo "more than 50 pages" >&2; return 1; }
    done
}

batch=$(e2bl_metadata_query batch b250)
if walk "metadata=$batch&limit=100"; then
    t_eq "list: limit 100 gives pages 100, 100, 50" "$(paste -sd, "$T_TMP/pages")" "100,100,50"
    t_eq "list: no duplicates across pages" "$(sort "$T_TMP/walk" | uniq -d | head -3)" ""
    t_eq "list: none missing, none extra" "$(sort "$T_TMP/walk" | comm -3 - <(sort "$T_TMP/ids") | head -3)" ""
    if python3 -c '
import sys, datetime
v = [datetime.datetime.fromisoformat(l.strip().replace("Z", "+00:00")) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if all(a >= b for a, b in zip(v, v[1:])) else 1)' "$T_TMP/started"; then
        t_pass "list: default order is newest first"
    else t_fail "list: default order is newest first" "startedAt not non-increasing"; fi
else t_fail "list: pagination walk" "a page failed"; fi

if walk "metadata=$batch&limit=7&order=asc"; then
    t_eq "list: limit 7 asc walks all 250 in 36 pages" "$(wc -l <"$T_TMP/pages") $(sort -u "$T_TMP/walk" | wc -l) $(wc -l <"$T_TMP/walk")" "36 250 250"
    if python3 -c '
import sys, datetime
v = [datetime.datetime.fromisoformat(l.strip().replace("Z", "+00:00")) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if all(a <= b for a, b in zip(v, v[1:])) else 1)' "$T_TMP/started"; then
        t_pass "list: order=asc is oldest first"
    else t_fail "list: order=asc is oldest first" "startedAt not non-decreasing"; fi
else t_fail "list: limit 7 asc walk" "a page failed"; fi

e2bl_api GET "/v2/sandboxes?metadata=$batch&limit=500"
n=$(e2bl_jq length)
if [ "$E2BL_STATUS" = 200 ] && [ "$n" -le 100 ] && [ -n "$(e2bl_header X-Next-Token)" ]; then
    t_pass "list: limit above 100 is clamped to 100 with a next token"
elif [ "$E2BL_STATUS" = 400 ]; then
    t_fail "list: limit above 100 is clamped to 100 with a next token" "400 (the reference says the server clamps)"
else t_fail "list: limit above 100 is clamped to 100 with a next token" "status $E2BL_STATUS, $n items"; fi

e2bl_api GET "/v2/sandboxes?metadata=$batch&state=running&limit=1"
t_eq "list: X-Total-Running counts the matching running sandboxes" "$(e2bl_header X-Total-Running)" 250

e2bl_api GET "/v2/sandboxes?order=sideways"
t_eq "list: an invalid order is 400" "$E2BL_STATUS $(e2bl_jq .code)" "400 400"
e2bl_api GET "/v2/sandboxes?nextToken=not-a-token!!"
t_eq "list: an invalid nextToken is 400" "$E2BL_STATUS $(e2bl_jq .code)" "400 400"
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query x y | sed 's/%3D/%3D%3D/')"
t_eq "list: a metadata pair without exactly one = is 400" "$E2BL_STATUS $(e2bl_jq .code)" "400 400"
e2bl_api GET "/v2/sandboxes?metadata=novalue"
t_eq "list: a metadata pair without = is 400" "$E2BL_STATUS" 400

# --- metadata filters: values with =, &, +, spaces and %, and a key with a space ---
declare -A odd=( [eq]='a=b' [amp]='a&b' [plus]='a+b' [space]='a b' [mix]='k=v&x+y z%20' [pct]='100%' )
declare -A oddid
for k in "${!odd[@]}"; do
    e2bl_create "$(jq -cn --arg v "${odd[$k]}" --arg k "$k" '{templateID:"base",metadata:{odd:$v,which:$k,"my key":"my value"}}')"
    oddid[$k]=$SBX_ID
done
for k in "${!odd[@]}"; do
    e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query odd "${odd[$k]}")"
    t_eq "list: metadata filter matches exactly the value [${odd[$k]}]" \
        "$E2BL_STATUS $(e2bl_jq -c '[.[].sandboxID]')" "200 [\"${oddid[$k]}\"]"
done
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query odd "${odd[space]}")"
t_eq "list: the stored value comes back unchanged" "$(e2bl_jq -r '.[0].metadata.odd')" "a b"
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query 'my key' 'my value')"
t_eq "list: a key with a space filters" "$(e2bl_jq length)" 6
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query 'my key' 'my value' which plus)"
t_eq "list: two pairs are AND-ed" "$(e2bl_jq -c '[.[].sandboxID]')" "[\"${oddid[plus]}\"]"
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query odd a)"
t_eq "list: metadata match is exact, not a prefix" "$E2BL_STATUS $(e2bl_jq length)" "200 0"
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query batch b250 i 42)"
t_eq "list: batch and index pick one of 250" "$(e2bl_jq -r '.[0].metadata.i') $(e2bl_jq length)" "42 1"

# --- state filter ---
paused=$(sed -n '10p;20p;30p' "$T_TMP/ids")
for id in $paused; do e2bl_api POST "/sandboxes/$id/pause"; done
e2bl_api GET "/v2/sandboxes?metadata=$batch&state=paused"
t_eq "list: state=paused gives exactly the paused ones" "$(e2bl_jq -r '.[].sandboxID' | sort | paste -sd' ')" "$(printf '%s\n' $paused | sort | paste -sd' ')"
t_eq "list: paused entries say state paused" "$(e2bl_jq -r '[.[].state] | unique | join(",")')" paused
walk "metadata=$batch&state=running&limit=100"
t_eq "list: state=running excludes them" "$(wc -l <"$T_TMP/walk") $(grep -cFx -f <(printf '%s\n' $paused) "$T_TMP/walk")" "247 0"
walk "metadata=$batch&state=running,paused&limit=100"
t_eq "list: state=running,paused gives both" "$(sort -u "$T_TMP/walk" | wc -l)" 250
walk "metadata=$batch&limit=100"
t_eq "list: no state means both" "$(sort -u "$T_TMP/walk" | wc -l)" 250
e2bl_api GET "/v2/sandboxes?metadata=$batch&state=running&limit=1"
t_eq "list: X-Total-Running drops with pauses" "$(e2bl_header X-Total-Running)" 247

# --- template filter ---
e2bl_create '{"templateID":"opencode","metadata":{"batch":"b250"}}'
OC=$SBX_ID
e2bl_api GET "/v2/sandboxes?metadata=$batch&template=opencode"
t_eq "list: template filter" "$(e2bl_jq -c '[.[].sandboxID]')" "[\"$OC\"]"

start=$SECONDS
e2bl_api GET "/v2/sandboxes?limit=100"
echo "# one page of 100 from 257 took $((SECONDS - start)) s"
t_eq "list: an unfiltered page is 100 long" "$E2BL_STATUS $(e2bl_jq length)" "200 100"

if e2bl_stop; then t_pass "list: e2b-local stops on SIGTERM"; else t_fail "list: e2b-local stops on SIGTERM" "still running after 15 s"; fi
t_finish
