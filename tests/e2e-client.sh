#!/bin/sh
# End-to-end tests of the benchmark client (workload.client,
# docs/workloads.md "The client") through the dsec binary, printing TAP:
# a time-out and a closed loop with hand-computed results in the text and
# JSON summaries (JSON checked with jq when it is installed), the keys in
# `dsec help scenario`, the section's two cross-field errors, and, through
# the per-request file, an inference-perf stage that waits for the one
# before it to drain and vllm_bench's max_concurrency.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
data=$srcdir/tests/data/client
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..8"

. "$srcdir/tests/tap.sh"
expect_err() { # expect_err DESCRIPTION EXPECTED-LINE CMD...: exit 1 + line
    desc=$1
    want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -eq 1 ] && grep -qxF "$want" "$tmp/err"; then
        ok "$desc" 0
    else
        echo "# exit $st; wanted line: $want"
        show "$tmp/err"
        ok "$desc" 1
    fi
}

# 1. Ten requests, two complete, eight time out (check_models_client.c
# derives the times): the text summary says so.
$dsec run --no-db "$data/timeout.yaml" >"$tmp/t.txt" 2>&1
st=$?
grep -q '^requests  *10 arrived, 2 completed, 0 dropped, 8 timed out$' \
    "$tmp/t.txt" || st=1
[ $st -ne 0 ] && show "$tmp/t.txt"
ok "dsec run: time-outs in the text summary" $st

# 2. The same through --json: timed-out requests are in no latency; the
# run ends at the last deadline, 0.9 s + 1.2 s after the first arrival.
$dsec run --no-db --json "$data/timeout.yaml" >"$tmp/t.json" 2>"$tmp/t.err"
st=$?
if [ $st -ne 0 ]; then
    show "$tmp/t.err"
    ok "dsec run --json: requests_timed_out" 1
elif command -v jq >/dev/null 2>&1; then
    jq -e '.requests_arrived == 10 and .requests_completed == 2 and
        .requests_timed_out == 8 and .requests_dropped == 0 and
        .e2e_ms.n == 2 and ((.e2e_ms.mean - 700) | fabs) < 1e-6' \
        "$tmp/t.json" >/dev/null || st=1
    [ $st -ne 0 ] && show "$tmp/t.json"
    ok "dsec run --json: requests_timed_out" $st
else
    skip "dsec run --json: requests_timed_out" "jq not installed"
fi

# 3. A closed loop of 4 users on 2 s of service: 400 requests in 200 s,
# 2 requests/s, every E2E 2 s.
$dsec run --no-db --json "$data/closed.yaml" >"$tmp/c.json" 2>"$tmp/c.err"
st=$?
if [ $st -ne 0 ]; then
    show "$tmp/c.err"
    ok "dsec run --json: closed loop throughput users / service" 1
elif command -v jq >/dev/null 2>&1; then
    jq -e '.requests_completed == 400 and .requests_timed_out == 0 and
        ((.requests_per_s - 2) | fabs) < 1e-9 and
        ((.sim_time_s - 200) | fabs) < 1e-9 and
        ((.e2e_ms.mean - 2000) | fabs) < 1e-6' \
        "$tmp/c.json" >/dev/null || st=1
    [ $st -ne 0 ] && show "$tmp/c.json"
    ok "dsec run --json: closed loop throughput users / service" $st
else
    skip "dsec run --json: closed loop throughput users / service" \
        "jq not installed"
fi

# 4. The rows are in dsec help scenario.
$dsec help scenario >"$tmp/h" 2>&1
st=$?
for k in timeout max_concurrency users think_time; do
    grep -q "workload\.client\.$k" "$tmp/h" || st=1
done
[ $st -ne 0 ] && grep -n 'client' "$tmp/h" | sed 's/^/# /'
ok "dsec help scenario lists workload.client's keys" $st

# 5-6. The cross-field errors, at the key.
expect_err "think_time without users" \
    "$data/bad-think.yaml:7:5: error: workload.client.think_time: needs users (a think time is a closed loop's; an open loop sends at the source's arrival times)" \
    $dsec validate "$data/bad-think.yaml"
expect_err "users with max_concurrency" \
    "$data/bad-users.yaml:8:5: error: workload.client.users: not with max_concurrency (a closed loop of N users already has at most N requests in flight)" \
    $dsec validate "$data/bad-users.yaml"

# 7. The bundled inference-perf scenario: 4/s and 8/s for 30 s each give
# exactly 120 and 240 requests, and stage 1's first request is sent
# stage_gap (2 s) after stage 0's last one left the engine (its finish_s
# is the client's, server.frontend.per_output_token = 30 us later).
if command -v jq >/dev/null 2>&1; then
    $dsec run --no-db "$srcdir/scenarios/inference-perf-shared-prefix.yaml" \
        --requests "$tmp/ip.jsonl" >"$tmp/ip.out" 2>&1
    st=$?
    jq -s -e '(map(select(.stage == 0)) | length) == 120 and
        (map(select(.stage == 1)) | length) == 240 and
        ((map(select(.stage == 1) | .arrival_s) | min) -
         (map(select(.stage == 0) | .finish_s) | max) - (2 - 30e-6) | fabs)
        < 1e-6' "$tmp/ip.jsonl" >/dev/null || st=1
    [ $st -ne 0 ] && show "$tmp/ip.out"
    ok "inference_perf: a stage starts stage_gap after the last one drained" $st
else
    skip "inference_perf: a stage starts stage_gap after the last one drained" \
        "jq not installed"
fi

# 8. vllm_bench max_concurrency 4 with every request due at t = 0: never
# more than 4 in flight, and the 24 requests go in waves.
if command -v jq >/dev/null 2>&1; then
    $dsec run --no-db "$data/conc.yaml" --requests "$tmp/conc.jsonl" \
        >"$tmp/conc.out" 2>&1
    st=$?
    jq -s -e 'length == 24 and
        ([.[] as $r | [.[] | select(.arrival_s <= $r.arrival_s and
            .finish_s > $r.arrival_s + 1e-4)] | length] | max) == 4 and
        (map(select(.arrival_s == 0)) | length) == 4' \
        "$tmp/conc.jsonl" >/dev/null || st=1
    [ $st -ne 0 ] && show "$tmp/conc.out"
    ok "vllm_bench max_concurrency: at most 4 requests in flight" $st
else
    skip "vllm_bench max_concurrency: at most 4 requests in flight" \
        "jq not installed"
fi

[ $fails -eq 0 ]
