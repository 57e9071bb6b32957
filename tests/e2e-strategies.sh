#!/bin/sh
# End-to-end tests of `dsec strategies` (the parallel-layout table,
# docs/layouts.md), printing TAP. Run by `make check` (top_srcdir and DSEC
# set by the harness) or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..19"

ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
show() { # show FILE...: echo files as TAP comments
    sed 's/^/# /' "$@"
}
expect_err() { # expect_err DESCRIPTION STATUS PATTERN CMD...: exit + line
    desc=$1
    want_st=$2
    pat=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -eq "$want_st" ] && grep -qE "$pat" "$tmp/err"; then
        ok "$desc" 0
    else
        echo "# exit $st; wanted $want_st and a line matching: $pat"
        show "$tmp/err"
        ok "$desc" 1
    fi
}

$dsec strategies --help >"$tmp/h" && grep -q '^usage: dsec strategies MODEL' "$tmp/h" &&
    grep -q -- '--train' "$tmp/h" && $dsec help strategies >"$tmp/h2" &&
    cmp -s "$tmp/h" "$tmp/h2"
ok "dsec strategies --help (and dsec help strategies)" $?

# The usage line names every option of the option list.
st=0
usage=$(sed -n 1p "$tmp/h")
for o in $(sed -n 's/^  \(--[a-z-]*\).*/\1/p' "$tmp/h"); do
    case "$usage" in
    *"[$o "* | *"[$o]"* | *" $o "*) ;;
    *) echo "# usage lacks $o" && st=1 ;;
    esac
done
[ "$(sed -n 's/^  \(--[a-z-]*\).*/\1/p' "$tmp/h" | wc -l)" -ge 12 ] || st=1
[ $st -ne 0 ] && show "$tmp/h"
ok "the usage line names every option of --help" $st

# DeepSeek-V3 (fp8) on 16 H200: expert-parallel layouts fit, a replica of
# the whole model per GPU does not (671.2 GB of weights, docs/sources.md §4.2).
$dsec strategies deepseek-v3 --gpu h200 --gpus 16 >"$tmp/ds" 2>&1
st=$?
grep -q '^deepseek-v3 on 16 x h200: 2 nodes of 8' "$tmp/ds" &&
    grep -qE '^1 +dp[0-9]+ tp[0-9]+ pp[0-9]+ ep[0-9]+ .* fits ' "$tmp/ds" &&
    grep -qE '^[0-9]+ +dp16 tp1 pp1 +671\.2 .* no +weights need 671\.2 GB' "$tmp/ds" &&
    grep -qE 'dp16 tp1 pp1 ep16 .* fits +ep [0-9.]+ [GM]B ib-ndr' "$tmp/ds" || st=1
[ $st -ne 0 ] && show "$tmp/ds"
ok "deepseek-v3 on 16 h200: ep layouts fit, dp16 refused for weights" $st

# Llama-3.1-8B on one H100: 410,400 KV tokens (docs/hardware.md example).
$dsec strategies llama-3.1-8b --gpu h100 --gpus 1 >"$tmp/l8" 2>&1
st=$?
grep -qE '^1 +dp1 tp1 pp1 +16\.1 +53\.8 +72\.0 +410k +100 .* fits +none$' "$tmp/l8" || st=1
[ $st -ne 0 ] && show "$tmp/l8"
ok "llama-3.1-8b on one h100 fits with 410k kv tokens" $st

# DeepSeek-V3 in bf16 on 8 H100: nothing fits, each row says why.
$dsec strategies deepseek-v3 --gpu h100 --gpus 8 --dtype bf16 >"$tmp/bf" 2>&1
st=$?
rows=$(grep -cE '^[0-9]+ +dp' "$tmp/bf")
grep -q " $rows layouts, 0 fit" "$tmp/bf" && [ "$rows" -gt 8 ] &&
    [ "$(grep -cE '^[0-9]+ .* no +weights need' "$tmp/bf")" -eq "$rows" ] || st=1
[ $st -ne 0 ] && show "$tmp/bf"
ok "deepseek-v3 bf16 on 8 h100: every layout refused for weights" $st

# Training: ZeRO stages, recomputation and MFU columns.
$dsec strategies llama-3.1-8b --gpu h100 --gpus 16 --train >"$tmp/tr" 2>&1
st=$?
grep -q '^training: global batch 1024 x 4096 tokens' "$tmp/tr" &&
    grep -qE '^1 +dp[0-9]+ tp[0-9]+ pp[0-9]+ z[0-3] .*% +fits ' "$tmp/tr" &&
    grep -qE 'dp16 tp1 pp1 z0 .* no +weights, gradients and optimizer states need 128\.5 GB' "$tmp/tr" || st=1
[ $st -ne 0 ] && show "$tmp/tr"
ok "training table: zero stages, fits and refusals" $st

$dsec strategies llama-3.1-8b --gpu h100 --gpus 2 --json >"$tmp/j" 2>&1
st=$?
grep -q '"mode": "inference"' "$tmp/j" && grep -q '"layout": "dp1 tp2 pp1"' "$tmp/j" &&
    grep -q '"kind": "tp"' "$tmp/j" && grep -q '"link": "nvlink4"' "$tmp/j" &&
    grep -q '"kv_bytes_per_token": 65536' "$tmp/j" || st=1
[ $st -ne 0 ] && show "$tmp/j"
ok "--json: layouts with memory and traffic" $st

expect_err "unknown model lists the valid ones" 1 \
    "^dsec strategies: unknown model 'llama-9'; valid: .*deepseek-v3" \
    $dsec strategies llama-9 --gpu h100 --gpus 8
expect_err "unknown gpu lists the valid ones" 1 \
    "^dsec strategies: unknown gpu 'h20'; valid: .*h100" \
    $dsec strategies llama-3.1-8b --gpu h20 --gpus 8
expect_err "gpus not divisible by nodes" 1 \
    "^dsec strategies: 12 gpus do not split evenly over 5 nodes$" \
    $dsec strategies llama-3.1-8b --gpu h100 --gpus 12 --nodes 5
expect_err "missing --gpus is a usage error" 2 \
    "^usage: dsec strategies MODEL" \
    $dsec strategies llama-3.1-8b --gpu h100
# A Hugging Face config.json directory gives the catalog entry's table.
$dsec strategies llama-3.1-8b --gpu h100 --gpus 8 >"$tmp/c" 2>&1 &&
    $dsec strategies "$srcdir/tests/data/hf/llama-3.1-8b" --gpu h100 --gpus 8 \
        >"$tmp/hf" 2>&1 && cmp -s "$tmp/c" "$tmp/hf"
st=$?
[ $st -ne 0 ] && diff "$tmp/c" "$tmp/hf" | head -20 | show
ok "a config.json directory gives the catalog model's layouts" $st

# DeepSeek's decode deployment (docs/sources.md; docs/layouts.md "Per-GPU
# figures"): 144 H800, 32 redundant expert slots, two micro-batches. ep144
# divides 288 slots, not 256 experts: listed only with the redundant slots.
$dsec strategies deepseek-v3 --gpu h800 --gpus 144 --redundant-experts 32 \
    --micro-batches 2 >"$tmp/ep" 2>&1 &&
    $dsec strategies deepseek-v3 --gpu h800 --gpus 144 --redundant-experts 32 \
        --micro-batches 2 --json >"$tmp/ep.json" 2>&1
st=$?
grep -q '^knobs: 32 redundant expert slots with ep > 1, 2 micro-batches' "$tmp/ep" &&
    grep -q '^per gpu, layouts that fit' "$tmp/ep" &&
    grep -qE '^[0-9]+ +dp144 tp1 pp1 ep144 +2 +32 +2 +1\.000 +[0-9]+  low-latency ' "$tmp/ep" &&
    grep -qE '^[0-9]+ +dp[0-9]+ tp[0-9]+ pp[2-9][0-9]* ep[0-9]+ +[0-9]+ +32 +1\* ' "$tmp/ep" &&
    grep -q '^mb 1\*: two micro-batches need pp 1' "$tmp/ep" || st=1
# hidden + exposed = total, exposed <= total, in the JSON of ep144.
awk -v L='"dp144 tp1 pp1 ep144"' '
    /"layout": / { inl = index($0, L) > 0 }
    inl && /"(experts_per_gpu|redundant_slots|a2a_[a-z]+_ms)":/ {
        k = $1; v = $2; gsub(/[":,]/, "", k); gsub(/,/, "", v); f[k] = v
    }
    END {
        t = f["a2a_total_ms"]; h = f["a2a_hidden_ms"]; e = f["a2a_exposed_ms"]
        d = h + e - t
        if (d < 0) d = -d
        ok = f["experts_per_gpu"] == 2 && f["redundant_slots"] == 32 &&
             t > 0 && d <= 1e-9 * t && e <= t && h > 0
        if (!ok) print "# ep144: " f["experts_per_gpu"] " experts, " \
            f["redundant_slots"] " redundant, a2a " t " = " h " + " e
        exit !ok
    }' "$tmp/ep.json" || st=1
[ $st -ne 0 ] && show "$tmp/ep" | head -40
ok "deepseek-v3 on 144 h800, 32 redundant, 2 micro-batches: ep144 per gpu" $st

# MTP raises the best decode layout's tokens/s at a small batch (the step
# is memory-bound there, so verifying 2 tokens costs little more).
best() { # best FILE: tokens_per_s of the first (best) layout
    awk '/"tokens_per_s":/ { v = $2; gsub(/,/, "", v); print v; exit }' "$1"
}
$dsec strategies deepseek-v3 --gpu h800 --gpus 144 --batch 8 --json \
    >"$tmp/s0.json" 2>&1 &&
    $dsec strategies deepseek-v3 --gpu h800 --gpus 144 --batch 8 --json \
        --speculative mtp >"$tmp/s1.json" 2>&1
st=$?
t0=$(best "$tmp/s0.json")
t1=$(best "$tmp/s1.json")
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(a > 0 && b > a) }' || st=1
grep -q '"method": "mtp"' "$tmp/s1.json" &&
    grep -q '"spec_tokens_per_step": 1.85' "$tmp/s1.json" || st=1
[ $st -ne 0 ] && echo "# tokens/s without mtp $t0, with $t1"
ok "--speculative mtp raises the best layout's tokens/s at --batch 8" $st

# Bad knob values are usage errors, as dsec step's.
st=0
for bad in "--redundant-experts -1" "--redundant-experts x" \
    "--micro-batches 3" "--micro-batches 0" "--speculative eagle" \
    "--speculative mtp --spec-tokens 9" "--speculative mtp --acceptance 1.5" \
    "--spec-tokens 2" "--speculative ngram" "--train --micro-batches 2"; do
    # shellcheck disable=SC2086 # the flags split on purpose
    $dsec strategies deepseek-v3 --gpu h800 --gpus 16 $bad \
        >"$tmp/out" 2>"$tmp/err"
    e=$?
    if [ $e -ne 2 ] || ! grep -q '^usage: dsec strategies MODEL' "$tmp/err"; then
        echo "# $bad: exit $e"
        show "$tmp/err"
        st=1
    fi
done
ok "bad knob values exit 2 with the usage" $st

expect_err "mtp on a model without an mtp module is an error" 1 \
    "^dsec strategies: speculative method mtp needs a model with a multi-token-prediction module .*llama-3.1-8b has none" \
    $dsec strategies llama-3.1-8b --gpu h100 --gpus 8 --speculative mtp
expect_err "redundant experts on a dense model are an error" 1 \
    "^dsec strategies: redundant experts need a mixture-of-experts model; llama-3.1-8b is dense" \
    $dsec strategies llama-3.1-8b --gpu h100 --gpus 8 --redundant-experts 8

# A dense model's JSON gains per-gpu figures only with a knob or --ranks.
$dsec strategies llama-3.1-8b --gpu h100 --gpus 2 --json >"$tmp/d0" 2>&1 &&
    $dsec strategies llama-3.1-8b --gpu h100 --gpus 2 --json --ranks \
        >"$tmp/d1" 2>&1 && $dsec strategies llama-3.1-8b --gpu h100 --gpus 2 \
        --ranks >"$tmp/d2" 2>&1
st=$?
! grep -q '"per_gpu"' "$tmp/d0" && grep -q '"per_gpu"' "$tmp/d1" &&
    ! grep -q '"experts_per_gpu"' "$tmp/d1" &&
    grep -qE '^1 +dp[0-9]+ tp[0-9]+ pp1 +- +- +1 +1\.000 ' "$tmp/d2" || st=1
[ $st -ne 0 ] && show "$tmp/d2"
ok "--ranks adds per-gpu figures; a dense model's json has none by default" $st

# dsec help's closing line names every topic dsec help takes (--link's
# classes are 'dsec help links').
st=0
$dsec help >"$tmp/top" 2>&1 || st=1
topics=$($dsec help help | sed -n 's/^usage: dsec help \[COMMAND|\(.*\)\]$/\1/p' |
    tr '|' ' ')
[ -n "$topics" ] || st=1
for t in $topics; do
    grep -qE "(help |')$t'" "$tmp/top" || { echo "# lacks $t"; st=1; }
done
$dsec help links >/dev/null 2>&1 || st=1
[ $st -ne 0 ] && show "$tmp/top"
ok "dsec help names every topic it accepts" $st
[ "$fails" -eq 0 ]
