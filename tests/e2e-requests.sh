#!/bin/sh
# End-to-end tests of the per-request and per-stage results
# (docs/results.md) on a small Llama-3.1-8B scenario, printing TAP:
# dsec run --requests writes CSV and JSON Lines rows, one per request,
# that agree with the summary; metrics.requests keeps the same rows in the
# database's requests table; the stages array and table; ITL counts one
# gap per streamed token after the first; bad names and values are
# refused. Run by `make check` (top_srcdir, DSEC set by the harness) or by
# hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
if ! command -v jq >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1
then
    echo "1..0 # SKIP jq or sqlite3 not installed"
    exit 0
fi
echo "1..8"

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

# scn FILE REQUESTS_KEY: 300 requests at 6/s on one replica, no warm-up.
scn() {
    cat >"$1" <<YAML
name: e2e-requests
seed: 7
model: llama-3.1-8b
workload:
  synthetic:
    arrival: {process: poisson, rate_per_s: 6}
    requests: 300
    prompt_tokens: {dist: lognormal, mean: 800, sd: 400}
    output_tokens: {dist: lognormal, mean: 120, sd: 60}
hardware: {gpu: h100}
deploy: {tp: 1}
cluster: {replicas: 1}
metrics: {interval: 10s, warmup_fraction: 0$2}
YAML
}

scn "$tmp/s.yaml" ""
$dsec run "$tmp/s.yaml" --no-db --json --requests "$tmp/r.csv" \
    >"$tmp/s.json" 2>"$tmp/err"
st=$?
arrived=$(jq .requests_arrived "$tmp/s.json")
rows=$(($(wc -l <"$tmp/r.csv") - 1))
[ $st -eq 0 ] && [ "$arrived" = 300 ] && [ "$rows" = 300 ] &&
    [ "$(head -n 1 "$tmp/r.csv")" = "id,stage,arrival_s,first_token_s,finish_s,prompt_tokens,output_tokens,cached_tokens,replica,preemptions,outcome" ] &&
    [ "$(cut -d, -f11 "$tmp/r.csv" | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' ' ')" = "300 ok 1 outcome " ]
ok "--requests x.csv: the header and one ok row per request" $? ||
    { show "$tmp/err"; head -3 "$tmp/r.csv" | show; }

$dsec run "$tmp/s.yaml" --no-db --quiet --requests "$tmp/r.jsonl" 2>"$tmp/err"
st=$?
got=$(jq -s '[length, (map(.output_tokens) | add),
    (map(select(.first_token_s >= .arrival_s and .finish_s >= .first_token_s
        and .replica == 0 and .stage == 0)) | length)] | @csv' "$tmp/r.jsonl")
want=$(jq '[300, .output_tokens, 300] | @csv' "$tmp/s.json")
[ $st -eq 0 ] && [ "$got" = "$want" ]
ok "--requests x.jsonl: rows agree with the summary's tokens, times ordered" $? ||
    { echo "# got $got want $want"; show "$tmp/err"; }

# Without preemptions every request streams output - 1 gaps after its
# first token, each one decode iteration: ITL's n is their sum.
got=$(jq -s 'if map(.preemptions) | add == 0
    then map(.output_tokens - 1) | add else -1 end' "$tmp/r.jsonl")
[ "$got" = "$(jq .itl_ms.n "$tmp/s.json")" ] &&
    jq -e '.itl_ms.p50 > 1 and .itl_ms.p50 < 100 and .itl_ms.ci95 == null' \
        "$tmp/s.json" >/dev/null
ok "itl_ms.n is the sum of output - 1 over the requests" $? ||
    echo "# gaps $got, itl_ms.n $(jq .itl_ms.n "$tmp/s.json")"

jq -e '(.stages | length) == 1 and .stages[0].stage == 0 and
    .stages[0].requests == 300 and .stages[0].completed == 300 and
    .stages[0].timeouts == 0 and .stages[0].dropped == 0 and
    (.stages[0].ttft_mean_ms - .ttft_ms.mean | fabs) < 1e-6 and
    (.stages[0].itl_mean_ms - .itl_ms.mean | fabs) < 1e-6 and
    .stages[0].span_end_s == .sim_time_s' "$tmp/s.json" >/dev/null
ok "JSON stages: one stage, the whole run without warm-up" $? ||
    jq -c '.stages' "$tmp/s.json" | show

scn "$tmp/k.yaml" ", requests: true"
$dsec run "$tmp/k.yaml" --db "$tmp/k.db" --quiet 2>"$tmp/err"
st=$?
got=$(sqlite3 "$tmp/k.db" "SELECT count(*), sum(outcome = 'ok'),
    sum(first_token_s IS NOT NULL), min(replica) FROM requests;
    SELECT count(*), sum(requests) FROM stages;
    SELECT value FROM summary WHERE metric = 'itl_ms.n';" | tr '\n' ' ')
want="300|300|300|0 1|300 $(jq .itl_ms.n "$tmp/s.json").0 "
[ $st -eq 0 ] && [ "$got" = "$want" ]
ok "metrics.requests: the requests and stages tables" $? ||
    { echo "# got '$got' want '$want'"; show "$tmp/err"; }

$dsec run "$tmp/s.yaml" --db "$tmp/s.db" --quiet 2>"$tmp/err" &&
    [ "$(sqlite3 "$tmp/s.db" "SELECT count(*) FROM requests")" = 0 ]
ok "without metrics.requests the requests table stays empty" $? ||
    show "$tmp/err"

$dsec run "$tmp/s.yaml" --no-db --requests "$tmp/r.txt" >/dev/null \
    2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -qF "dsec run: --requests: expected a file name ending in .csv, .jsonl or .ndjson" "$tmp/err" &&
    [ ! -e "$tmp/r.txt" ]
ok "--requests x.txt: a usage error, exit 2" $? || show "$tmp/err"

scn "$tmp/b.yaml" ", requests: maybe"
line=$(grep -n 'requests: maybe' "$tmp/b.yaml" | cut -d: -f1)
$dsec validate "$tmp/b.yaml" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "^$tmp/b.yaml:$line:[0-9]*: error: metrics.requests: " "$tmp/err"
ok "metrics.requests: maybe: file:line:col, exit 1" $? || show "$tmp/err"

[ $fails -eq 0 ]
