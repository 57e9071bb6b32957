#!/bin/sh
# End-to-end tests of `dsec plan` on small Llama-3.1-8B fixtures
# (tests/data/plan/small.yaml: a static cluster, three minutes of traffic;
# elastic.yaml: an elastic one), printing TAP. Run by `make check`
# (top_srcdir, DSEC set by the harness) or by hand from the build
# directory. The chart test skips when gnuplot is absent.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..13"

ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
show() { sed 's/^/# /' "$@"; }

dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
data=$(cd "$srcdir/tests/data/plan" && pwd)
small=$data/small.yaml
gpus="--gpus h100,h200,a100"

# 1. The table, the frontier and the chosen configuration.
$dsec plan "$small" $gpus -j 2 >"$tmp/out" 2>"$tmp/err"
st=$?
chosen=$(sed -n 's/^chosen: \([^:]*\): \$.*/\1/p' "$tmp/out")
grep -q '^plan small-llama: llama-3.1-8b; slo ttft <= 1000 ms, tpot <= 25 ms for at least 99% of requests$' "$tmp/out" &&
    grep -qE '^layouts: 12 enumerated; .*; 12 searched$' "$tmp/out" &&
    grep -qE '^simulated: [0-9]+ of [0-9]+ configurations' "$tmp/out" &&
    [ -n "$chosen" ] &&
    grep -qF "  $chosen  meets the slo  <- chosen" "$tmp/out" &&
    [ "$(grep -c -- '<- chosen' "$tmp/out")" -eq 1 ] || st=1
[ $st -ne 0 ] && show "$tmp/out" "$tmp/err"
ok "the chosen configuration meets the slo and is on the frontier ($chosen)" $st

# 2. The frontier: cost rises while latency falls, line by line.
awk '/^Pareto frontier/ { want = $NF == "configuration" ? 1 : $(NF - 1); on = 1; next }
     on && /^  \$/ { c = substr($1, 2) + 0; l = $2 + 0; k++
                     if (k > 1 && (c < pc || l >= pl)) bad = 1; pc = c; pl = l; next }
     on { on = 0 }
     END { exit (bad || k != want || k < 2) }' "$tmp/out"
st=$?
[ $st -ne 0 ] && show "$tmp/out"
ok "the frontier lists its configurations by rising cost and falling latency" $st

# 3. The keys to set, and the table row of the chosen one.
grep -qx '  hardware.gpu: [a-z0-9]*' "$tmp/out" &&
    grep -qx '  deploy.tp: [0-9]*' "$tmp/out" &&
    grep -qx '  cluster.replicas: [0-9]*' "$tmp/out" &&
    grep -qE '^\*  .* yes$' "$tmp/out"
st=$?
[ $st -ne 0 ] && show "$tmp/out"
ok "the chosen configuration prints as scenario keys" $st

# 4. --save-scenario writes a scenario that dsec run meets the slo with.
$dsec plan "$small" $gpus -j 2 --quiet --save-scenario "$tmp/chosen.yaml" >/dev/null 2>"$tmp/err" &&
    $dsec run "$tmp/chosen.yaml" --no-db >"$tmp/run" 2>&1
st=$?
att=$(sed -n 's/^SLO attainment *\([0-9.]*\)%$/\1/p' "$tmp/run")
[ $st -eq 0 ] && [ -n "$att" ] && awk -v a="$att" 'BEGIN { exit !(a >= 99) }' || st=1
[ $st -ne 0 ] && show "$tmp/err" "$tmp/run"
ok "--save-scenario: dsec run of the chosen scenario meets the slo ($att%)" $st

# 5-6. --json: its keys, byte-identical on one and on two threads.
$dsec plan "$small" $gpus -j 1 --json >"$tmp/j1" 2>"$tmp/err" &&
    $dsec plan "$small" $gpus -j 2 --json >"$tmp/j2" 2>>"$tmp/err"
st=$?
for k in scenario slo workload search layouts counts configurations frontier chosen \
    batch_seqs decode_tokens_per_s min_replicas cap_replicas cost_usd tpot_ms_p99 \
    slo_attainment meets overrides; do
    grep -q "\"$k\": " "$tmp/j1" || { echo "# no key $k"; st=1; }
done
grep -q '"chosen": null' "$tmp/j1" && st=1
[ $st -ne 0 ] && show "$tmp/err"
ok "--json has the plan's keys and a chosen configuration" $st
cmp -s "$tmp/j1" "$tmp/j2"
ok "--json is byte-identical on 1 and 2 threads" $?

# 7. An unknown gpu: exit 1 and the valid names.
$dsec plan "$small" --gpus h100,h900 >"$tmp/out" 2>"$tmp/err"
st=$?
want="dsec plan: error: --gpus: unknown gpu 'h900'; valid: a100, b200, h100, h200, h800, l40s, mi300x"
if [ $st -eq 1 ] && grep -qxF "$want" "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && { echo "# exit $st; wanted: $want"; show "$tmp/err"; }
ok "unknown gpu: exit 1 with the valid names" $st

# 8. A scenario without an slo: exit 1 naming the keys to set.
$dsec plan "$data/no-slo.yaml" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q 'error: slo: dsec plan needs a service-level objective; set slo.tpot_ms' "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && show "$tmp/err"
ok "no slo: exit 1 naming slo.tpot_ms" $st

# 9. Nothing feasible: exit 1 with the reason per gpu.
$dsec plan "$small" --gpus l40s --max-gpus 1 >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q 'error: nothing to simulate' "$tmp/err" &&
    grep -q 'note: l40s (tp1, bf16 weights): needs at least .* over --max-gpus$' "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && show "$tmp/err"
ok "nothing feasible: exit 1 with each gpu's reason" $st

# 10. An elastic scenario searched over two policies.
$dsec plan "$data/elastic.yaml" --gpus h100 --policies target-latency,hpa -j 2 --json >"$tmp/e" 2>"$tmp/err"
st=$?
grep -q '"policy": "hpa"' "$tmp/e" && grep -q '"policy": "target-latency"' "$tmp/e" &&
    grep -q '"cluster.max_gpus": ' "$tmp/e" && grep -q '"elastic": true' "$tmp/e" || st=1
[ $st -ne 0 ] && show "$tmp/err"
ok "elastic: sizes by cluster.max_gpus under each --policies entry" $st

# 11. --policies on a static scenario is refused.
$dsec plan "$small" --gpus h100 --policies hpa >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q 'policies need an elastic one' "$tmp/err"; then st=0; else st=1; fi
[ $st -ne 0 ] && show "$tmp/err"
ok "--policies on a static cluster: exit 1" $st

# 12. --db records every run as a point of one sweep.
if command -v sqlite3 >/dev/null 2>&1; then
    $dsec plan "$small" --gpus h100 -j 2 --db "$tmp/p.db" --json >"$tmp/d" 2>"$tmp/err"
    st=$?
    runs=$(sqlite3 "$tmp/p.db" 'select count(*) from runs' 2>/dev/null)
    pts=$(sqlite3 "$tmp/p.db" "select count(*) from sweep_points where status = 'ok'" 2>/dev/null)
    sim=$(sed -n 's/^ *"runs": \([0-9]*\),*$/\1/p' "$tmp/d")
    [ $st -eq 0 ] && [ -n "$sim" ] && [ "$runs" = "$sim" ] && [ "$pts" = "$sim" ] || st=1
    [ $st -ne 0 ] && { echo "# runs=$runs points=$pts simulated=$sim"; show "$tmp/err"; }
    ok "--db records each run ($runs) as a sweep point" $st
else
    skip "--db records each run as a sweep point" "no sqlite3 program"
fi

# 13. --chart draws a PNG, or says why not.
$dsec plan "$small" $gpus -j 2 --quiet --chart "$tmp/plan.png" >/dev/null 2>"$tmp/err"
st=$?
if grep -q 'error: cannot draw chart: gnuplot not found' "$tmp/err"; then
    skip "--chart writes a PNG" "gnuplot not found at build time or run time"
else
    size=$(wc -c <"$tmp/plan.png" 2>/dev/null || echo 0)
    sig=$(od -An -tx1 -N8 "$tmp/plan.png" 2>/dev/null | tr -d ' \n')
    [ $st -eq 0 ] && [ "$size" -gt 10000 ] && [ "$sig" = 89504e470d0a1a0a ] || st=1
    [ $st -ne 0 ] && { echo "# exit $st, size $size, signature $sig"; show "$tmp/err"; }
    ok "--chart writes a PNG ($size bytes)" $st
fi

[ $fails -eq 0 ]
