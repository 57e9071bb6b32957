#!/bin/sh
# End-to-end tests of `dsec compare` on a small elastic scenario
# (tests/data/e2e/compare-small.yaml), printing TAP. Run by `make check`
# (top_srcdir, DSEC set by the harness) or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..15"

. "$srcdir/tests/tap.sh"

# Absolute paths, so that a command can run in a folder of its own.
dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
f=$(cd "$srcdir/tests/data/e2e" && pwd)/compare-small.yaml
mkdir "$tmp/w"
pols="--policy static:replicas=4 --policy target-latency"

(cd "$tmp/w" && $dsec compare "$f" $pols --replications 3 --no-db) >"$tmp/table" 2>"$tmp/err"
st=$?
grep -qx 'scenario compare-small, 3 replications, seeds 7..9 (common random numbers)' "$tmp/table" &&
    grep -qE '^SLO attainment \(%\) +static:replicas=4 +[0-9.]+ ± [0-9.]+$' "$tmp/table" &&
    grep -qE '^ +target-latency +[0-9.]+ ± [0-9.]+$' "$tmp/table" &&
    grep -qE '^GPU-hours +static:replicas=4 ' "$tmp/table" &&
    grep -qx 'paired differences, policy minus static:replicas=4, per replication' "$tmp/table" &&
    grep -qE '^cold starts +target-latency +[-+][0-9.]+ ± [0-9.]+( +\*)?$' "$tmp/table" || st=1
[ $st -ne 0 ] && show "$tmp/table" "$tmp/err"
ok "table: a block per metric, then paired differences" $st

[ -z "$(ls "$tmp/w")" ]
ok "--no-db writes no database" $?

$dsec compare "$f" $pols --replications 3 --no-db --json >"$tmp/j1" &&
    $dsec compare "$f" $pols --replications 3 --no-db --json >"$tmp/j2"
st=$?
grep -q '"name": "static"' "$tmp/j1" && grep -q '"name": "target-latency"' "$tmp/j1" &&
    grep -q '"diff_vs_first"' "$tmp/j1" && grep -q '"replications": 3' "$tmp/j1" || st=1
[ $st -ne 0 ] && show "$tmp/j1"
ok "--json names both policies" $st

cmp -s "$tmp/j1" "$tmp/j2"
ok "--json is byte-identical from run to run" $?

$dsec compare "$f" $pols --replications 3 --db "$tmp/c.db" >"$tmp/out" 2>"$tmp/err"
st=$?
q() { sqlite3 "$tmp/c.db" "$1" 2>/dev/null; }
runs=$(q 'select count(*) from runs')
linked=$(q 'select count(*) from comparison_runs join runs on runs.id = run_id')
ncmp=$(q 'select count(*) from comparisons')
seeds=$(q "select group_concat(seed) from (select seed from runs where policy = 'target-latency' order by seed)")
[ $st -eq 0 ] && [ "$runs" = 6 ] && [ "$linked" = 6 ] && [ "$ncmp" = 1 ] &&
    [ "$seeds" = "7,8,9" ] && grep -q '^results: .*comparison 1, runs 1..6$' "$tmp/out" || st=1
[ $st -ne 0 ] && { echo "# runs=$runs linked=$linked comparisons=$ncmp seeds=$seeds"; show "$tmp/out" "$tmp/err"; }
ok "--db stores 6 runs linked to one comparison" $st

$dsec compare "$f" $pols --replications 3 --no-db --quiet --plot "$tmp/c.png" >"$tmp/out" 2>"$tmp/err"
st=$?
if grep -q 'error: cannot draw chart: gnuplot not found' "$tmp/err"; then
    skip "--plot writes a PNG" "gnuplot not found at build time or run time"
else
    size=$(wc -c <"$tmp/c.png" 2>/dev/null || echo 0)
    sig=$(od -An -tx1 -N8 "$tmp/c.png" 2>/dev/null | tr -d ' \n')
    [ $st -eq 0 ] && [ "$size" -gt 10000 ] && [ "$sig" = 89504e470d0a1a0a ] || st=1
    [ $st -ne 0 ] && { echo "# exit $st, size $size, signature $sig"; show "$tmp/err"; }
    ok "--plot writes a PNG ($size bytes)" $st
fi

$dsec compare "$f" --policy fifo --no-db >"$tmp/out" 2>"$tmp/err"
st=$?
want="dsec compare: --policy fifo: policy.name: unknown policy 'fifo'; valid: apa, dynamo-load, dynamo-throughput, hpa, keda, kpa, llmd-saturation, predictive, ray-serve, static, target-latency"
if [ $st -eq 2 ] && grep -qxF "$want" "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && { echo "# wanted: $want"; show "$tmp/err"; }
ok "unknown policy: exit 2 and the valid names" $st

$dsec compare "$f" --policy hpa:foo=1 --no-db >"$tmp/out" 2>"$tmp/err"
st=$?
want="dsec compare: --policy hpa:foo=1: policy.params.foo: unknown parameter of policy hpa; valid: metric, target"
if [ $st -eq 2 ] && grep -q "^$want" "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && show "$tmp/err"
ok "unknown policy parameter: exit 2 and the valid keys" $st

m=$srcdir/scenarios/mm8.yaml
$dsec compare "$m" --policy hpa --no-db >"$tmp/out" 2>"$tmp/err"
st=$?
want="dsec compare: $m: not an elastic scenario: set cluster.min_gpus and cluster.max_gpus (instead of cluster.replicas) so that a policy can scale it"
if [ $st -eq 1 ] && grep -qxF "$want" "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && { echo "# wanted: $want"; show "$tmp/err"; }
ok "non-elastic scenario: exit 1 with why" $st

$dsec compare "$f" --no-db >/dev/null 2>&1
[ $? -eq 2 ]
ok "no --policy is a usage error (exit 2)" $?

# --calibration and --uncertainty: per policy, intervals of the same draws;
# their rows in the database.
cat >"$tmp/unc.yaml" <<'EOF'
format: 1
provenance: {tool: e2e-compare, date: 2026-12-02}
gpus:
  h100:
    gemm: {hbm_efficiency: 0.8}
    frontend: {request: 5ms}
    uncertainty:
      std_errors: {gemm.hbm_efficiency: 0.02, frontend.request: 1ms}
      structural: {ttft: 0.05, tpot: 0.02, e2e: 0.02}
EOF
$dsec compare "$f" $pols --replications 2 --db "$tmp/u.db" --json \
    --calibration "$tmp/unc.yaml" --uncertainty 8 >"$tmp/u.json" 2>"$tmp/err"
st=$?
if [ $st -eq 0 ] && jq -e '(.prediction_intervals | length) == 2 and
    ([.prediction_intervals[] | .n == 8 and .params == 2 and
      .cost_usd[0] <= .cost_usd[1]] | all)' "$tmp/u.json" >/dev/null; then
    st=0
else
    st=1
    show "$tmp/err"
fi
ok "--uncertainty: prediction intervals per policy in --json" $st
rows=$(sqlite3 "$tmp/u.db" "SELECT count(DISTINCT run_id) FROM prediction_intervals" 2>/dev/null)
[ "$rows" = 2 ]
ok "--uncertainty: each policy's first run holds its intervals ($rows)" $?

# -j N: the runs on N threads, the same results whatever N; -j is jobs
# (--json has no short form); off a terminal a line per finished run.
$dsec compare "$f" $pols --replications 3 --no-db --json -j 1 >"$tmp/j1" 2>"$tmp/err" &&
    $dsec compare "$f" $pols --replications 3 --no-db --json -j 3 >"$tmp/j3" 2>>"$tmp/err" &&
    cmp -s "$tmp/j1" "$tmp/j3"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "-j 1 and -j 3 print the same JSON" $st
$dsec compare "$f" $pols --replications 2 --no-db -j 2 >"$tmp/out" 2>"$tmp/err"
st=$?
lines=$(grep -c '^dsec compare: [1-4] of 4 done: policy ' "$tmp/err")
[ $st -eq 0 ] && [ "$lines" = 4 ]
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "off a terminal, a line per finished run ($lines of 4)" $st
$dsec compare "$f" $pols --no-db -j 0 >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q 'jobs: expected a number of threads' "$tmp/err" &&
    $dsec compare "$f" $pols --no-db -j >/dev/null 2>&1
[ $? -eq 2 ]
ok "-j 0 and -j without N are usage errors (exit 2)" $?

[ "$fails" -eq 0 ]
