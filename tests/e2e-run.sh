#!/bin/sh
# End-to-end tests of the dsec binary on bundled scenarios and fixtures,
# printing TAP. Run by `make check` (top_srcdir, top_builddir, DSEC set by
# the harness) or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..20"

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
        sed 's/^/# /' "$tmp/err"
        ok "$desc" 1
    fi
}

$dsec --version >"$tmp/v" && grep -q '^dsec ' "$tmp/v"
ok "dsec --version" $?
$dsec --help >"$tmp/h" && grep -q 'validate' "$tmp/h" &&
    $dsec help scenario >"$tmp/hs" && grep -q 'target_latency_ms' "$tmp/hs" &&
    $dsec help policies >"$tmp/hp" && grep -q '^target-latency ' "$tmp/hp" &&
    $dsec help models >"$tmp/hm" && grep -q '^deepseek-v3 ' "$tmp/hm"
ok "dsec --help, dsec help scenario, policies and models" $?

$dsec validate "$srcdir"/scenarios/*.yaml >"$tmp/val" 2>&1
st=$?
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/val"
ok "every bundled scenario validates" $st

$dsec run "$srcdir/scenarios/seed-dsec.yaml" --db "$tmp/r.db" >"$tmp/seed" 2>&1
st=$?
grep -q 'TTFT' "$tmp/seed" && grep -q 'policy target-latency' "$tmp/seed" &&
    grep -qE 'replicas +min [0-9]+, mean [0-9.]+, max [0-9]+; [1-9][0-9]* scale events' "$tmp/seed" || st=1
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/seed"
ok "dsec run seed-dsec.yaml scales with target-latency and prints a summary" $st

runs=$(sqlite3 "$tmp/r.db" 'select count(*) from runs' 2>/dev/null)
rows=$(sqlite3 "$tmp/r.db" 'select count(*) from timeseries' 2>/dev/null)
[ "$runs" = 1 ] && [ "${rows:-0}" -ge 10 ]
ok "results stored in SQLite (runs=$runs, timeseries rows=$rows)" $?

for i in 1 2; do
    $dsec run "$srcdir/scenarios/mm8.yaml" --json --no-db --seed 3 |
        grep -vE '"(wall_s|events_per_s)"' >"$tmp/j$i"
done
cmp -s "$tmp/j1" "$tmp/j2" && grep -q '"ttft_ms"' "$tmp/j1"
ok "same seed gives byte-identical JSON (wall_s aside)" $?

$dsec run "$srcdir/scenarios/mm8.yaml" --json --no-db --seed 4 |
    grep -vE '"(wall_s|events_per_s)"' >"$tmp/j3"
! cmp -s "$tmp/j1" "$tmp/j3"
ok "another seed gives other results" $?

# --set overrides a key as a sweep's set: does: the stored scenario is the
# one run, and the M/M/1 queue at rho 0.5 (service 0.5 s) waits far less
# than at rho 0.9.
$dsec run "$srcdir/scenarios/mm1.yaml" --db "$tmp/set.db" --quiet \
    --set workload.synthetic.requests=20000 \
    --set server.service.mean_s=0.5 && \
    $dsec run "$srcdir/scenarios/mm1.yaml" --db "$tmp/set.db" --quiet \
        --set workload.synthetic.requests=20000
st=$?
q1=$(sqlite3 "$tmp/set.db" "SELECT value FROM summary WHERE run_id = 1 AND metric = 'queue_ms.mean'")
q2=$(sqlite3 "$tmp/set.db" "SELECT value FROM summary WHERE run_id = 2 AND metric = 'queue_ms.mean'")
txt=$(sqlite3 "$tmp/set.db" "SELECT scenario_text FROM runs WHERE id = 1")
[ $st -eq 0 ] && awk -v a="$q1" -v b="$q2" 'BEGIN { exit !(a * 4 < b) }' &&
    printf '%s\n' "$txt" | grep -q 'mean_s: 0.5' || st=1
[ $st -ne 0 ] && echo "# queue means $q1 (rho 0.5) and $q2 (rho 0.9)"
ok "--set overrides keys; the stored scenario is the one run" $st
expect_err "a bad --set value is named by its argument" \
    "error: --set server.concurrency=many: server.concurrency: expected an integer, got 'many'" \
    $dsec run "$srcdir/scenarios/mm1.yaml" --no-db --set server.concurrency=many

# dsec validate takes sweep files too, every point checked.
$dsec validate "$srcdir/tests/data/sweep/small.yaml" >"$tmp/out" 2>&1
st=$?
[ $st -eq 0 ] && grep -q 'small.yaml: ok: sweep of 12 points' "$tmp/out" || st=1
$dsec validate "$srcdir/tests/data/sweep/bad-axis.yaml" >"$tmp/out2" 2>&1
[ $? -eq 1 ] && grep -q "bad-axis.yaml:5:3: error: hardware.gpux: unknown key" "$tmp/out2" || st=1
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/out" "$tmp/out2"
ok "dsec validate checks a sweep file's points" $st

# SQLite keeps integers signed: a seed past 2^63 - 1 would read back
# negative, so it is refused.
$dsec run "$srcdir/scenarios/mm8.yaml" --no-db --seed 9223372036854775808 \
    >"$tmp/out" 2>&1
st=$?
[ $st -ne 0 ] && grep -q "seed: expected an integer from 0 to 9223372036854775807" "$tmp/out"
ok "a seed past 2^63 - 1 is refused" $?

f=$srcdir/tests/data/e2e/bad-syntax.yaml
expect_err "corrupted YAML gives file:line:col" \
    "$f:5:15: error: did not find expected ',' or '}'" \
    $dsec run "$f" --no-db

f=$srcdir/tests/data/e2e/bad-spec-ngram.yaml
expect_err "speculative ngram without an acceptance is refused at the section" \
    "$f:12:3: error: server.speculative: missing key 'acceptance' (required by method ngram: how often a drafted token is accepted depends on the workload)" \
    $dsec run "$f" --no-db
f=$srcdir/tests/data/e2e/bad-spec-mtp.yaml
expect_err "speculative mtp on a model without an MTP module is refused at the method" \
    "$f:12:25: error: server.speculative.method: mtp needs a model with a multi-token-prediction module (num_nextn_predict_layers >= 1, as DeepSeek-V3); llama-3.1-8b has none, use ngram" \
    $dsec run "$f" --no-db

f=$srcdir/tests/data/e2e/bad-trace-row.yaml
t=$srcdir/tests/data/e2e/bad-row.csv
expect_err "corrupted trace row names the row" \
    "$t:4:31: error: row 3: GeneratedTokens: expected a non-negative integer, got 'x12'" \
    $dsec run "$f" --no-db

f=$srcdir/tests/data/e2e/infeasible.yaml
$dsec run "$f" --no-db >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "^$f:[0-9]*:[0-9]*: error: deploy: .*int4" "$tmp/err"
ok "infeasible replica refused with why and what would fit" $?
sed 's/^/# /' "$tmp/err"

f=$srcdir/tests/data/e2e/unknown-model.yaml
$dsec validate "$f" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "unknown model 'llama-9'; valid: .*deepseek-v3" "$tmp/err"
ok "unknown model lists the valid ones" $?

$dsec run >/dev/null 2>&1
[ $? -eq 2 ]
ok "usage error exits 2" $?

$dsec run "$tmp/missing.yaml" --no-db >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "missing.yaml" "$tmp/err"
ok "missing file exits 1 naming it" $?

shared=${DSEC_SHARED:-$srcdir/../shared}
trace=$shared/traces/azure-llm-2023/AzureLLMInferenceTrace_conv.csv
if [ -r "$trace" ]; then
    # The scenario resolves relative paths against its own folder.
    trace=$(cd "$(dirname "$trace")" && pwd)/$(basename "$trace")
    sed "s|path: .*|path: $trace|" "$srcdir/scenarios/azure-conv-trace.yaml" \
        >"$tmp/azure.yaml"
    $dsec run "$tmp/azure.yaml" --json --no-db >"$tmp/az.json" 2>"$tmp/err"
    st=$?
    grep -q '"requests_completed": 19366' "$tmp/az.json" || st=1
    [ $st -ne 0 ] && sed 's/^/# /' "$tmp/err" "$tmp/az.json"
    ok "Azure conversation trace: all 19,366 requests served" $st
else
    skip "Azure conversation trace" "shared traces not found at $shared"
fi
[ "$fails" -eq 0 ]
