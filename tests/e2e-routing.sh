#!/bin/sh
# End-to-end tests of cluster.routing and the per-replica series
# (docs/routing.md) on the bundled scenarios/routing-sessions.yaml cut to
# two minutes, printing TAP: bad values name file:line:col, --json
# --series-replicas prints the replica_series rows the database holds, and
# prefix-affinity finds more of the prompts' prefixes cached than
# least-outstanding on this multi-turn traffic. Run by `make check`
# (top_srcdir, DSEC set by the harness) or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..6"

ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
show() { sed 's/^/# /' "$@"; }
# member FILE NAME: the first number of member NAME in a pretty JSON file.
member() {
    sed -n "s/^ *\"$2\": \([-0-9.e+]*\),*$/\1/p" "$1" | head -n 1
}

base=$srcdir/scenarios/routing-sessions.yaml
# scn ROUTING: the bundled scenario, two minutes, with cluster.routing set.
scn() {
    sed -e "s/duration: 10min/duration: 2min/" \
        -e "s/routing: least-outstanding}/routing: $1}/" "$base" \
        >"$tmp/$1.yaml"
}

scn fastest
line=$(grep -n 'routing: fastest' "$tmp/fastest.yaml" | cut -d: -f1)
col=$(grep 'routing: fastest' "$tmp/fastest.yaml" | awk '{ print index($0, "fastest") }')
$dsec validate "$tmp/fastest.yaml" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -qxF "$tmp/fastest.yaml:$line:$col: error: cluster.routing: unknown routing 'fastest'; valid: least-kv, least-outstanding, prefix-affinity, random, round-robin" "$tmp/err"
ok "unknown routing: file:line:col, the valid names, exit 1" $? || show "$tmp/err"

scn "prefix-affinity, routing_max_imbalance: -1"
f="$tmp/prefix-affinity, routing_max_imbalance: -1.yaml"
$dsec validate "$f" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "error: cluster.routing_max_imbalance: -1 out of range \[0, inf)" "$tmp/err"
ok "negative routing_max_imbalance refused" $? || show "$tmp/err"

scn least-outstanding
scn prefix-affinity
$dsec run "$tmp/prefix-affinity.yaml" --db "$tmp/r.db" --json \
    --series-replicas >"$tmp/pa.json" 2>"$tmp/err"
st=$?
rows=$(grep -c '"generation_tokens"' "$tmp/pa.json")
dbrows=$(sqlite3 "$tmp/r.db" "SELECT count(*) FROM replica_series" 2>/dev/null)
[ $st -eq 0 ] && [ "$rows" -gt 0 ] && [ "$rows" = "$dbrows" ]
ok "--json --series-replicas prints the database's $dbrows replica_series rows" $? ||
    show "$tmp/err"

# 4 replicas x intervals of 30 s over the run.
ivs=$(sqlite3 "$tmp/r.db" "SELECT count(*) FROM timeseries")
[ "$dbrows" = "$((4 * ivs))" ] &&
    [ "$(sqlite3 "$tmp/r.db" "SELECT sum(request_success) FROM replica_series")" = \
      "$(sqlite3 "$tmp/r.db" "SELECT sum(completions) FROM timeseries")" ]
ok "one row per replica and interval; requests finished add up" $?

$dsec run "$tmp/least-outstanding.yaml" --no-db --json >"$tmp/lo.json" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] && ! grep -q replica_series "$tmp/lo.json"
ok "--json alone has no replica_series" $? || show "$tmp/err"

hpa=$(member "$tmp/pa.json" prefix_hit_rate)
hlo=$(member "$tmp/lo.json" prefix_hit_rate)
awk -v a="$hpa" -v b="$hlo" 'BEGIN { exit !(a != "" && b != "" && a > b + 0.1) }'
ok "prefix-affinity hit rate $hpa > least-outstanding $hlo + 0.1" $?

[ $fails -eq 0 ]
