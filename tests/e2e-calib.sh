#!/bin/sh
# End-to-end tests of dsec-calib (calib/, docs/calibration.md), printing
# TAP: import the recorded logs of tests/data/calib, fit, write the
# profile with its uncertainty (standard errors and correlations), then
# run dsec with it and check that the prediction moved; bad
# logs and bad options; `run` without a GPU exits 3 with the reason (the
# device tests' SKIP path). Run by `make check` (top_srcdir, top_builddir
# and DSEC set by the harness) or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-./dsec}
calib="$builddir/dsec-calib"
data="$srcdir/tests/data/calib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..14"

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
# json_num FILE KEY: the first number after "KEY":
json_num() {
    sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

# 1. Every subcommand's --help lists its options.
st=0
for c in import fit show run; do
    "$calib" $c --help >"$tmp/h" 2>&1 || st=1
    grep -q -- '--db' "$tmp/h" || st=1
done
"$calib" run --help | grep -q -- '--rdma-device' || st=1
"$calib" fit --help | grep -q -- '--chart' || st=1
"$calib" --help | grep -q 'exit status' || st=1
ok "--help of dsec-calib and of every subcommand" $st

# 2. Import every recorded log (one transaction per file).
"$calib" import --db "$tmp/c.db" --gpu h200 "$data"/*.log >"$tmp/imp" 2>&1
st=$?
show "$tmp/imp"
grep -q '^494 points into' "$tmp/imp" || st=1
ok "import nccl-tests, perftest, nvbandwidth, bandwidthTest, dsec-calib logs" $st

# 3. A malformed log: file:line: error, exit 1, nothing added.
printf '# nThread 1 nGpus 2\n#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n 8 2 float sum -1 12.0 0.00\n' \
    >"$tmp/all_reduce_perf.log"
"$calib" import --db "$tmp/c.db" "$tmp/all_reduce_perf.log" >"$tmp/o" 2>"$tmp/e"
st=$?
show "$tmp/e"
if [ $st -eq 1 ] && grep -q "all_reduce_perf.log:3: error: nccl-tests row: expected 13 columns" "$tmp/e" &&
    grep -q '^0 points into' "$tmp/o"; then st=0; else st=1; fi
ok "malformed nccl-tests row: file:line: error and exit 1" $st

# 4. Usage errors exit 2.
"$calib" import --gpu h900 x.log >/dev/null 2>"$tmp/e"
a=$?
"$calib" fit --bogus >/dev/null 2>&1
b=$?
"$calib" frobnicate >/dev/null 2>&1
c=$?
grep -q "unknown GPU kind 'h900'; valid:" "$tmp/e"
d=$?
[ $a -eq 2 ] && [ $b -eq 2 ] && [ $c -eq 2 ] && [ $d -eq 0 ]
ok "usage errors exit 2 and list the valid names" $?

# 5. Fit: every parameter with its standard error and R^2; profile written
# and loaded back by dsec's loader.
"$calib" fit --db "$tmp/c.db" --gpu h200 --out "$tmp/p.yaml" \
    --chart "$tmp/charts" >"$tmp/fit" 2>&1
st=$?
show "$tmp/fit"
grep -q 'loaded back with perf_calib_load: ok' "$tmp/fit" || st=1
grep -q 'efficiency_max .*(se ' "$tmp/fit" || st=1
grep -q 'R^2 0\.99' "$tmp/fit" || st=1
ok "fit reports parameters with standard errors and R^2, profile loads" $st

# 6. The profile carries the fits' uncertainty: per entry a fit note,
# standard errors for the fitted keys (the GEMM's four, the elementwise
# two; each link's alpha and efficiency), correlations within [-1, 1]; the
# GEMM's efficiency_max error is the report's. (check_calib_fit compares
# every error with the fits table to 1e-6.)
st=0
[ "$(grep -c '^      fit: "dsec-calib ' "$tmp/p.yaml")" -eq 4 ] || st=1
[ "$(grep -c '^        gemm\.[a-z_]*: [0-9]' "$tmp/p.yaml")" -eq 4 ] || st=1
[ "$(grep -c '^        elementwise\.[a-z_]*: [0-9]' "$tmp/p.yaml")" -eq 2 ] || st=1
[ "$(grep -c '^        alpha: [0-9.]*us$' "$tmp/p.yaml")" -eq 3 ] || st=1
[ "$(grep -c '^        efficiency: [0-9.e-]*$' "$tmp/p.yaml")" -eq 3 ] || st=1
sed -n 's/.*, r: \([-0-9.]*\)}$/\1/p' "$tmp/p.yaml" >"$tmp/r"
awk '{ n++; if ($1 < -1 || $1 > 1) bad = 1 } END { printf "# %d correlations\n", n; exit bad || n < 1 }' "$tmp/r" || st=1
se_p=$(sed -n 's/^        gemm\.efficiency_max: //p' "$tmp/p.yaml")
se_r=$(sed -n 's/^ *efficiency_max .*(se \([0-9.e-]*\)).*/\1/p' "$tmp/fit")
awk -v a="$se_p" -v b="$se_r" 'BEGIN { printf "# se(efficiency_max) %s in the profile, %s in the report\n", a, b;
    exit !(a > 0 && b > 0 && a / b < 1.005 && b / a < 1.005) }' || st=1
grep -q '^  uncertainty: 12 standard errors, [0-9]* correlations$' "$tmp/fit" || st=1
[ $st -eq 0 ] || show "$tmp/p.yaml"
ok "profile: uncertainty with standard errors and correlations of the fits" $st

# 7. A profile without the uncertainty sections (as written before them)
# still loads, and predicts the same: the errors do not move the values.
awk '/^ *uncertainty:$/ { skip = index($0, "u"); next }
    skip && (match($0, /[^ ]/) > skip) { next } { skip = 0; print }' \
    "$tmp/p.yaml" >"$tmp/p-old.yaml"
st=0
! grep -q '^ *\(uncertainty\|std_errors\|correlation\):' "$tmp/p-old.yaml" || st=1
"$dsec" step llama-3.1-8b --gpu h200 --decode-seqs 64 --context 2048 --json \
    --calibration "$tmp/p.yaml" >"$tmp/u1.json" 2>&1 || st=1
"$dsec" step llama-3.1-8b --gpu h200 --decode-seqs 64 --context 2048 --json \
    --calibration "$tmp/p-old.yaml" >"$tmp/u0.json" 2>&1 || st=1
a=$(json_num "$tmp/u1.json" total_ns)
b=$(json_num "$tmp/u0.json" total_ns)
[ -n "$a" ] && [ "$a" = "$b" ] || st=1
[ $st -eq 0 ] || show "$tmp/u0.json" "$tmp/u1.json"
ok "a profile without uncertainty loads and predicts the same" $st

# 8. The fit recovers the fixtures' generating parameters (make-fixtures.py:
# eta_max 0.78, NVLink all-reduce 370 GB/s, HBM copy 4080 GB/s) within 3 %.
em=$(sed -n 's/^ *efficiency_max: //p' "$tmp/p.yaml")
bw=$(grep -A1 'all_reduce_perf out-of-place 8 ranks 1 host' "$tmp/fit" |
    sed -n 's/.*B \([0-9.]*\) GB.*/\1/p' | head -n 1)
awk -v e="$em" -v b="$bw" 'BEGIN { printf "# eta_max %s, all-reduce busbw %s GB/s\n", e, b;
    exit !(e > 0.78 * 0.97 && e < 0.78 * 1.03 && b > 370 * 0.97 && b < 370 * 1.03) }'
ok "fit recovers the generating parameters of the fixtures" $?

# 9. Provenance from the logs, never the clock; --date overrides.
grep -q 'date: "2026-11-28"' "$tmp/p.yaml" && grep -q 'tool: dsec-calib' "$tmp/p.yaml"
st=$?
"$calib" fit --db "$tmp/c.db" --gpu h200 --out "$tmp/p2.yaml" --date 2027-01-02 >/dev/null 2>&1 || st=1
grep -q 'date: "2027-01-02"' "$tmp/p2.yaml" || st=1
ok "profile provenance: the logs' date, or --date" $st

# 10. Charts: data and gnuplot scripts always, PNG when gnuplot exists.
st=0
[ -s "$tmp/charts/gemm-bf16.dat" ] && [ -s "$tmp/charts/gemm-bf16.gp" ] || st=1
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$tmp/charts/gemm-bf16.png" ] || st=1
fi
ok "measured-vs-fitted charts" $st

# 11. dsec step moves with the profile: a prefill of 2048 tokens of
# Llama-3.1-8B on one H200 with the built-in defaults and with the fitted
# profile (eta_max 0.786 vs 0.74, so faster).
"$dsec" step llama-3.1-8b --gpu h200 --prefill-tokens 2048 --json >"$tmp/s0.json" 2>&1
a=$?
"$dsec" step llama-3.1-8b --gpu h200 --prefill-tokens 2048 --json \
    --calibration "$tmp/p.yaml" >"$tmp/s1.json" 2>&1
b=$?
t0=$(json_num "$tmp/s0.json" total_ns)
t1=$(json_num "$tmp/s1.json" total_ns)
if [ $a -eq 0 ] && [ $b -eq 0 ] && [ -n "$t0" ] && [ -n "$t1" ]; then
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "# step %.0f ns -> %.0f ns with the profile\n", a, b; exit !(b < a) }'
    st=$?
else
    show "$tmp/s0.json" "$tmp/s1.json"
    st=1
fi
ok "dsec step: the fitted profile changes the predicted step time" $st

# 12. dsec run of a small scenario with hardware.calibration: it runs, and
# the mean TPOT differs from the run on the built-in defaults.
cat >"$tmp/s.yaml" <<EOF
name: calib-e2e
seed: 1
model: llama-3.1-8b
workload:
  synthetic:
    arrival: {process: poisson, rate_per_s: 4.0}
    duration: 1min
    prompt_tokens: {dist: fixed, value: 1000}
    output_tokens: {dist: fixed, value: 100}
hardware: {gpu: h200, gpus_per_node: 8, calibration: p.yaml}
deploy: {strategy: tensor_parallel, tp: 1, weight_dtype: bf16}
cluster: {replicas: 1}
EOF
sed '/calibration:/s/, calibration: p.yaml//' "$tmp/s.yaml" >"$tmp/s0.yaml"
"$dsec" run "$tmp/s.yaml" --no-db --json >"$tmp/r1.json" 2>"$tmp/r1.err"
a=$?
"$dsec" run "$tmp/s0.yaml" --no-db --json >"$tmp/r0.json" 2>"$tmp/r0.err"
b=$?
if [ $a -eq 0 ] && [ $b -eq 0 ] && ! cmp -s "$tmp/r0.json" "$tmp/r1.json"; then
    st=0
else
    show "$tmp/r1.err" "$tmp/r0.err"
    st=1
fi
ok "dsec run with hardware.calibration runs and its results move" $st

# 13. show prints the points and fits.
"$calib" show --db "$tmp/c.db" >"$tmp/show" 2>&1
st=$?
grep -q 'all_reduce_perf' "$tmp/show" && grep -q 'efficiency_max' "$tmp/show" || st=1
ok "show lists points and fits" $st

# 14. run: without a GPU (or without CUDA compiled in) exit 3 and say so;
# with a GPU, a quick HBM sweep must produce points.
# The CUDA runtime keeps allocations until exit by design: no LSan here.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$calib" run --only hbm --quick --out "$tmp/run" >"$tmp/ro" 2>"$tmp/re"
st=$?
show "$tmp/re"
case $st in
3) grep -q -e 'no CUDA device' -e 'built without CUDA' "$tmp/re"
   st=$?
   echo "# no device here: dsec-calib run exits 3 (the device path is skipped)" ;;
0) grep -q 'points imported' "$tmp/ro"
   st=$? ;;
*) st=1 ;;
esac
ok "run exits 3 with the reason when no device is present" $st

[ $fails -eq 0 ]
