#!/bin/sh
# End-to-end tests of `dsec train` and of a scenario's training: section
# under `dsec run` (docs/training.md), printing TAP. Run by `make check`
# (top_srcdir and DSEC set by the harness) or by hand from the build
# directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..17"

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
expect_err() { # expect_err DESCRIPTION STATUS PATTERN CMD...
    desc=$1
    want_st=$2
    pat=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -eq "$want_st" ] && grep -qE -- "$pat" "$tmp/err"; then
        ok "$desc" 0
    else
        echo "# exit $st; wanted $want_st and a line matching: $pat"
        show "$tmp/err"
        ok "$desc" 1
    fi
}

# 1. One layout: the breakdown, MFU, memory; 8 micro-batches of 1 per
# rank; the parts sum to the step (checked in the JSON below).
st=0
$dsec train llama-3.1-8b --gpu h100 --gpus 16 --layout tp=2,pp=2 \
    --global-batch 32 --seq 2048 >"$tmp/one" 2>&1 || st=1
grep -q '^layout dp4 tp2 pp2 z1, recompute' "$tmp/one" || st=1
grep -q '8 micro-batches of 1 sequence per dp rank, 1F1B' "$tmp/one" || st=1
grep -q '^  pipeline bubble' "$tmp/one" || st=1
grep -q '^bubble fraction 0.1111 = (p - 1) / (m + p - 1), p 2, m 8' \
    "$tmp/one" || st=1
grep -qE '^MFU +[0-9.]+% \(6 N_active \+ attention' "$tmp/one" || st=1
grep -qE '^memory per gpu .*: fits$' "$tmp/one" || st=1
[ $st -ne 0 ] && show "$tmp/one"
ok "one layout: breakdown, bubble 1/9, MFU, memory" $st

# 2. JSON: the parts of the step add up to it; tokens/s = batch tokens /
# step.
st=0
$dsec train llama-3.1-8b --gpu h100 --gpus 16 --layout tp=2,pp=2 \
    --global-batch 32 --seq 2048 --overlap 0.5 --json >"$tmp/j" 2>&1 || st=1
python3 - "$tmp/j" <<'PY' || st=1
import json, sys
o = json.load(open(sys.argv[1]))["step"]
b = o["breakdown"]
parts = (b["fwd_bwd_s"] + b["tp_s"] + b["ep_s"] + b["pp_s"] + b["bubble_s"]
         + b["dp_exposed_s"] + b["optimizer_s"])
assert abs(parts - o["step_s"]) < 1e-9 * o["step_s"], (parts, o["step_s"])
assert abs(o["tokens_per_s"] * o["step_s"] - 32 * 2048) < 1e-6
assert abs(b["dp_exposed_s"] - 0.5 * b["dp_s"]) < 1e-12
assert 0 < o["mfu"] < 1 and o["fits"]
PY
[ $st -ne 0 ] && show "$tmp/j"
ok "json: parts sum to the step, overlap halves dp" $st

# 3. Ranking without --layout: feasible ones, best first.
st=0
$dsec train llama-3.1-8b --gpu h100 --gpus 16 --top 3 >"$tmp/rank" 2>&1 ||
    st=1
[ "$(grep -cE '^[1-3] +dp' "$tmp/rank")" -eq 3 ] || st=1
grep -q '^best: layout ' "$tmp/rank" || st=1
[ $st -ne 0 ] && show "$tmp/rank"
ok "ranking: top 3 and the best's breakdown" $st

# 4. Interleaved schedule: v in the layout, the interleaved bubble.
st=0
$dsec train llama-3.1-8b --gpu h100 --gpus 16 --layout tp=2,pp=4 \
    --global-batch 16 --schedule interleaved --chunks 2 >"$tmp/v" 2>&1 ||
    st=1
grep -q '^layout dp2 tp2 pp4 z1 v2' "$tmp/v" || st=1
grep -q '^bubble fraction 0.1579 = (p - 1) / (v m + p - 1), p 4, m 8' \
    "$tmp/v" || st=1
[ $st -ne 0 ] && show "$tmp/v"
ok "interleaved: bubble 3/19" $st

# 5. The checkpoint sweep lands its optimum next to Young's.
st=0
$dsec train llama-3.1-8b --gpu h100 --gpus 64 --layout tp=1 \
    --global-batch 512 --simulate 200d --mtbf 2000 --checkpoint-sweep \
    --json >"$tmp/sw" 2>&1 || st=1
python3 - "$tmp/sw" <<'PY' || st=1
import json, sys
o = json.load(open(sys.argv[1]))
y = o["checkpoint_optimum"]["young_steps"]
k = o["sweep_best_k"]
assert y / 1.5 <= k <= y * 1.5, (k, y)
assert len(o["checkpoint_sweep"]) > 10
PY
[ $st -ne 0 ] && show "$tmp/sw"
ok "checkpoint sweep: simulated optimum within 1.5x of Young" $st

# 6. A simulation: steps, checkpoints, failures, time by cause.
st=0
$dsec train llama-3.1-8b --gpu h100 --gpus 64 --layout tp=1 \
    --global-batch 512 --simulate 30d --mtbf 2000 --checkpoint-every 50 \
    --seed 3 >"$tmp/sim" 2>&1 || st=1
grep -q '^simulated 720.0 h with a checkpoint every 50 steps' "$tmp/sim" ||
    st=1
grep -qE '^  [0-9]+ steps kept, [0-9]+ lost; [0-9]+ checkpoints, [1-9][0-9]* failures' \
    "$tmp/sim" || st=1
grep -qE '^  time +useful [0-9.]+% checkpoint [0-9.]+% rework' "$tmp/sim" ||
    st=1
[ $st -ne 0 ] && show "$tmp/sim"
ok "simulation: steps, failures, time by cause" $st

# 7-12. Errors: a clear message and exit 1 (input) or 2 (usage).
expect_err "bad layout key" 1 \
    "^dsec train: --layout 'tp=2,qq=2': unknown key 'qq'; valid: dp, ep, pp, tp, v$" \
    $dsec train llama-3.1-8b --gpu h100 --gpus 16 --layout tp=2,qq=2
expect_err "layout not matching the gpus" 1 \
    "^dsec train: --layout 'tp=2,pp=2,dp=2': dp 2 x tp 2 x pp 2 is not 16 gpus$" \
    $dsec train llama-3.1-8b --gpu h100 --gpus 16 --layout tp=2,pp=2,dp=2
st=0
$dsec train llama-3.1-405b --gpu h100 --gpus 8 --layout tp=8 >"$tmp/nf" \
    2>&1 && st=1
grep -q '^does not fit: weights, gradients and optimizer states need' \
    "$tmp/nf" || st=1
[ $st -ne 0 ] && show "$tmp/nf"
ok "a layout that does not fit says why and exits 1" $st
expect_err "unknown model" 1 "^dsec train: unknown model 'nope'" \
    $dsec train nope --gpu h100 --gpus 8
expect_err "bad --zero" 2 "^dsec train: --zero: expected 0, 1, 2 or 3$" \
    $dsec train llama-3.1-8b --gpu h100 --gpus 8 --zero 5
expect_err "checkpoint options need --simulate" 2 \
    "the checkpoint options need --simulate" \
    $dsec train llama-3.1-8b --gpu h100 --gpus 8 --checkpoint-sweep

# 13. A scenario's training: section under dsec run: the Training section
# and the JSON member.
st=0
$dsec run "$srcdir/tests/data/train/small.yaml" --no-db >"$tmp/run" \
    2>&1 || st=1
grep -q '^training        llama-3.1-8b on 16 x h100, pool test' "$tmp/run" ||
    st=1
grep -qE '^  elastic       pool test of 16 gpus, 8 per replica \(at least [12] replicas fit\): serving held' "$tmp/run" ||
    st=1
$dsec run "$srcdir/tests/data/train/small.yaml" --no-db --json \
    >"$tmp/runj" 2>&1 || st=1
python3 - "$tmp/runj" <<'PY' || st=1
import json, sys
o = json.load(open(sys.argv[1]))["training"]
t = o["simulation"]["time_s"]
assert abs(sum(t.values()) - o["simulation"]["duration_s"]) < 1e-3
assert o["elastic"]["pool_capacity"] == 16
assert len(o["elastic"]["series"]) > 0
PY
[ $st -ne 0 ] && show "$tmp/run" "$tmp/runj"
ok "dsec run: Training section and JSON member" $st

# 14. Scenario errors point at the key.
expect_err "scenario: bad training.layout" 1 \
    "bad.yaml:[0-9]+:[0-9]+: error: training.layout: unknown key 'xp'; valid: dp, ep, pp, tp, v" \
    $dsec validate "$srcdir/tests/data/train/bad.yaml"
expect_err "scenario: bad training.recovery" 1 \
    "bad-recovery.yaml:14:13: error: training.recovery: unknown recovery 'spares'; valid: restart, shrink, spare" \
    $dsec validate "$srcdir/tests/data/train/bad-recovery.yaml"
expect_err "scenario: bad training.in_memory_checkpoint key" 1 \
    "bad-recovery.yaml:15:26: error: training.in_memory_checkpoint.every: unknown key; did you mean 'every_steps'\\?" \
    $dsec validate "$srcdir/tests/data/train/bad-recovery.yaml"

# 15. Recovery modes: the JSON's recovery block adds up.
sed -e 's/gpu_mtbf: 2000h/gpu_mtbf: 200h\n  recovery: spare\n  spares: 1\n  repair: 2h/' \
    "$srcdir/tests/data/train/small.yaml" >"$tmp/spare.yaml"
st=0
$dsec run "$tmp/spare.yaml" --no-db --json >"$tmp/sparej" 2>&1 || st=1
python3 - "$tmp/sparej" <<'PY' || st=1
import json, sys
o = json.load(open(sys.argv[1]))["training"]["simulation"]
r = o["recovery"]
assert r["mode"] == "spare"
assert r["spares_used"] + r["shrinks"] + r["restarts"] == o["failures"]
assert 0 <= r["goodput_time"] <= 1
assert abs(sum(o["time_s"].values()) - o["duration_s"]) < 1e-3
PY
[ $st -ne 0 ] && show "$tmp/sparej"
ok "dsec run: recovery spare block" $st

[ $fails -eq 0 ]
