#!/bin/sh
# End-to-end tests of the scenario's hardware and model keys that reach
# past the catalogs: model.hf_config, hardware.gpus (inline GPUs) and
# hardware.calibration. Prints TAP. Run by `make check` (top_srcdir and
# DSEC set by the harness) or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
data="$srcdir/tests/data/e2e"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
echo "1..9"

ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
    fi
}
expect_err() { # expect_err DESCRIPTION EXPECTED-LINE CMD...: exit 1 + line
    desc=$1
    want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -eq 1 ] && grep -qF "$want" "$tmp/err"; then
        ok "$desc" 0
    else
        echo "# exit $st; wanted: $want"
        sed 's/^/# /' "$tmp/err"
        ok "$desc" 1
    fi
}

# An hf_config model on an inline GPU and a from-scratch one: both pools
# serve, each priced as defined.
$dsec run "$data/inline-gpu.yaml" --no-db >"$tmp/run" 2>&1
st=$?
grep -q 'pool main .* at \$1.50/GPU-h' "$tmp/run" &&
    grep -q 'pool lab .* at \$1.00/GPU-h' "$tmp/run" &&
    grep -q 'SLO attainment' "$tmp/run" || st=1
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/run"
ok "model.hf_config on inline GPUs runs and prices each pool" $st

# validate resolves the same keys without running.
$dsec validate "$data/inline-gpu.yaml" >"$tmp/val" 2>&1
ok "dsec validate accepts the inline-GPU scenario" $?

expect_err "a from-scratch GPU without its figures" \
    "bad-inline-gpu.yaml:13:8: error: hardware.gpus[0] (x): flops_bf16: must be > 0, got 0 (give it, or a catalog base)" \
    $dsec validate "$data/bad-inline-gpu.yaml"
expect_err "an inline GPU on an unknown base" \
    "bad-inline-gpu.yaml:14:23: error: hardware.gpus[1].base: unknown gpu 'h900'; valid:" \
    $dsec validate "$data/bad-inline-gpu.yaml"
expect_err "model.hf_config naming a missing file" \
    "bad-hf-config.yaml:3:20: error: model.hf_config:" \
    $dsec validate "$data/bad-hf-config.yaml"

# hardware.calibration: a profile whose host takes 20 ms per iteration
# (the built-in H100 figure is 126 us) lengthens every decode step, so the
# mean TPOT grows by about 20 ms.
tpot() { awk '$1 == "TPOT" { print $2; exit }' "$1"; }
$dsec run "$data/calib-run.yaml" --no-db >"$tmp/fast" 2>&1 &&
    $dsec run "$data/calib-run-slow.yaml" --no-db >"$tmp/slow" 2>&1
st=$?
fast=$(tpot "$tmp/fast")
slow=$(tpot "$tmp/slow")
echo "# TPOT mean: built-in ${fast:-?} ms, slow-host profile ${slow:-?} ms"
[ $st -eq 0 ] && awk -v f="${fast:-0}" -v s="${slow:-0}" \
    'BEGIN { d = s - f; exit !(f > 0 && d > 18 && d < 22) }' || st=1
ok "hardware.calibration replaces the built-in iteration overhead" $st

expect_err "a calibration profile with a misspelt key names its line" \
    "calib-bad.yaml:8:5: error: gpus.h100.iteration_overhed: unknown key; did you mean 'iteration_overhead'?" \
    $dsec validate "$data/calib-run-bad.yaml"
expect_err "the scenario line naming the bad profile" \
    "calib-run-bad.yaml:12:36: error: hardware.calibration: cannot use profile" \
    $dsec validate "$data/calib-run-bad.yaml"

# deploy.ep: the bundled expert-parallel variant of the seed scenario runs
# replicas of 8 GPUs (tp 1 x 8 data-parallel attention groups).
$dsec run "$srcdir/scenarios/seed-ep.yaml" --no-db >"$tmp/ep" 2>&1
st=$?
grep -q 'replicas .* 8 GPUs each' "$tmp/ep" &&
    grep -q 'SLO attainment' "$tmp/ep" || st=1
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/ep"
ok "deploy.ep runs expert-parallel replicas of 8 GPUs" $st
