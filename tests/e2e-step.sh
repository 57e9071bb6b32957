#!/bin/sh
# End-to-end tests of `dsec step` (models/perf/, docs/step-time.md),
# printing TAP. Run by `make check` (top_srcdir and DSEC set by the harness)
# or by hand from the build directory.
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
# json_num FILE KEY: the first number after "KEY":
json_num() {
    sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" | head -n 1
}

# 1. One decoding token of Llama-3.1-8B on one H100 reads every weight once:
# the step can be no faster than the weights at peak HBM bandwidth (ratio 1),
# and with the default 80 % HBM efficiency (1 / 0.8 = 1.25 on the 93 % of
# the weights a decode reads, the embedding table being only indexed), 1.6
# ms of fixed kernel time and 0.13 ms of host time on ~4.8 ms it stays
# below 1.8 times that floor.
$dsec step llama-3.1-8b --gpu h100 --decode-seqs 1 --json >"$tmp/d.json" 2>"$tmp/err"
st=$?
t=$(json_num "$tmp/d.json" total_ns)
w=$(json_num "$tmp/d.json" weight_bytes_per_gpu)
if [ $st -eq 0 ] && [ -n "$t" ] && [ -n "$w" ]; then
    awk -v t="$t" -v w="$w" 'BEGIN { r = t / (w / 3.35e12 * 1e9);
        printf "# step %.0f ns, weights %.0f B, ratio %.3f\n", t, w, r;
        exit !(r >= 1.0 && r <= 1.8) }'
    st=$?
else
    show "$tmp/err"
    st=1
fi
ok "single-token decode on h100 is bound by the weight bytes / HBM" $st

# 2. The JSON object has its keys, every operator class and a saturation.
$dsec step llama-2-70b --gpu h200 --tp 8 --dtype bf16 --saturate \
    --context 2048 --json >"$tmp/s.json" 2>"$tmp/err"
st=$?
for k in '"model": "llama-2-70b"' '"gpu": "h200"' '"tp": 8' '"pp": 1' \
    '"ep": 1' '"kv_capacity_tokens"' '"weight_bytes_per_gpu"' '"ops": \[' \
    '"name": "attn_proj"' '"name": "attention"' '"name": "mlp"' \
    '"name": "lm_head"' '"name": "elementwise"' '"name": "tp_comm"' \
    '"name": "overhead"' '"bound": "memory"' '"total_ns"' '"stage_ns"' \
    '"saturation": {' '"tokens_per_s"' '"decode_seqs"'; do
    grep -q "$k" "$tmp/s.json" || { echo "# missing $k"; st=1; }
done
[ $st -ne 0 ] && show "$tmp/s.json" "$tmp/err"
ok "dsec step --json --saturate prints every key" $st

# 3. The table lists the classes and the saturated rate.
$dsec step deepseek-v3 --gpu h200 --tp 8 --dtype fp8 --saturate \
    --context 2048 >"$tmp/t.txt" 2>"$tmp/err"
st=$?
grep -q '^moe ' "$tmp/t.txt" && grep -q '^total ' "$tmp/t.txt" &&
    grep -q 'output tokens/s per replica' "$tmp/t.txt" || st=1
[ $st -ne 0 ] && show "$tmp/t.txt" "$tmp/err"
ok "dsec step deepseek-v3 --saturate prints the table and the rate" $st

# 4-5. Unknown names exit 1 and list the valid ones.
$dsec step llama-3.1-8b --gpu h20 >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "unknown gpu 'h20'; valid: .*h100" "$tmp/err"
st2=$?
[ $st2 -ne 0 ] && show "$tmp/err"
ok "unknown gpu exits 1 with valid:" $st2
$dsec step llama-9 --gpu h100 >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "unknown model 'llama-9'; valid: .*llama-3.1-8b" "$tmp/err"
ok "unknown model exits 1 with valid:" $?

# 6-7. Usage errors exit 2.
$dsec step llama-3.1-8b --gpu h100 --tp x >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q -- "--tp: expected an integer" "$tmp/err"
ok "bad --tp is a usage error" $?
$dsec step llama-3.1-8b --gpu h100 --saturate >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q -- "--saturate needs --context" "$tmp/err"
ok "--saturate without --context is a usage error" $?

# 8. An infeasible replica says what would fit.
$dsec step deepseek-v3 --gpu h200 --tp 4 --dtype fp8 >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "needs 671.2 GB of weights.*use int4 weights" "$tmp/err"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "infeasible replica exits 1 with what would fit" $st

# 9-10. Calibration profiles: the shipped defaults change nothing; a bad
# one is refused with file:line:col.
$dsec step llama-3.1-8b --gpu h100 --decode-seqs 8 --context 100 \
    --json >"$tmp/a.json" 2>&1 &&
    $dsec step llama-3.1-8b --gpu h100 --decode-seqs 8 --context 100 --json \
        --calibration "$srcdir/models/perf/calibration-default.yaml" \
        >"$tmp/b.json" 2>&1
st=$?
[ $st -eq 0 ] &&
    [ "$(json_num "$tmp/a.json" total_ns)" = "$(json_num "$tmp/b.json" total_ns)" ] ||
    st=1
[ $st -ne 0 ] && show "$tmp/a.json" "$tmp/b.json"
ok "the shipped calibration profile is the built-in defaults" $st
printf 'format: 1\nprovenance: {tool: t, date: d}\ngpus:\n  h100: {gemm: {efficiency_max: 2}}\n' \
    >"$tmp/bad.yaml"
$dsec step llama-3.1-8b --gpu h100 --calibration "$tmp/bad.yaml" \
    >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] &&
    grep -qF "$tmp/bad.yaml:4:33: error: gpus.h100.gemm.efficiency_max: 2 out of range [0.001, 1]" "$tmp/err"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "a bad calibration profile exits 1 with file:line:col" $st

# 11. --help, and dsec help step prints the same option list.
$dsec step --help >"$tmp/h" 2>&1 && grep -q -- '--saturate' "$tmp/h" &&
    grep -q -- '--calibration FILE' "$tmp/h" &&
    $dsec help step >"$tmp/h2" 2>&1 && cmp -s "$tmp/h" "$tmp/h2"
ok "dsec step --help (and dsec help step)" $?

# 12. MODEL may be a Hugging Face config.json or its directory, as for
# dsec model show and dsec strategies: the fixture of Llama-3.1-8B gives the
# catalog entry's step time and KV capacity.
hf=$srcdir/tests/data/hf/llama-3.1-8b
flags="--gpu h100 --decode-seqs 8 --context 100 --prefill-tokens 512 --json"
st=0
$dsec step llama-3.1-8b $flags >"$tmp/c.json" 2>"$tmp/err" || st=1
$dsec step "$hf" $flags >"$tmp/hd.json" 2>>"$tmp/err" || st=1
$dsec step "$hf/config.json" $flags >"$tmp/hf.json" 2>>"$tmp/err" || st=1
want=$(json_num "$tmp/c.json" total_ns)
for f in "$tmp/hd.json" "$tmp/hf.json"; do
    [ -n "$want" ] && [ "$(json_num "$f" total_ns)" = "$want" ] &&
        [ "$(json_num "$f" kv_capacity_tokens)" = \
            "$(json_num "$tmp/c.json" kv_capacity_tokens)" ] || st=1
done
[ $st -ne 0 ] && show "$tmp/c.json" "$tmp/hd.json" "$tmp/err"
ok "a config.json or its directory gives the catalog model's step" $st

# 13. A config that cannot be read exits 1 with its file:line:col.
$dsec step "$srcdir/tests/data/hf/bad-syntax" --gpu h100 >"$tmp/out" \
    2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q "bad-syntax/config.json:4:27: error: json: " "$tmp/err"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "a malformed config.json exits 1 at its line:col" $st

# 14. --json is json-c's: numbers and booleans unquoted, one object.
st=0
grep -q '"gpu_memory_utilization": 0.9,' "$tmp/s.json" &&
    grep -q '"limited_by_kv": false,' "$tmp/s.json" &&
    grep -qE '"time_ns": [0-9]' "$tmp/s.json" &&
    grep -qE '"tokens_per_s": [0-9]' "$tmp/s.json" &&
    [ "$(head -n 1 "$tmp/s.json")" = "{" ] &&
    [ "$(tail -n 1 "$tmp/s.json")" = "}" ] || st=1
if command -v jq >/dev/null 2>&1; then
    jq -e '(.total_ns | type) == "number" and
        (.saturation.limited_by_kv | type) == "boolean" and
        (.ops | length) > 0 and (.ops[0].flops | type) == "number"' \
        "$tmp/s.json" >/dev/null || st=1
fi
[ $st -ne 0 ] && show "$tmp/s.json"
ok "--json prints numbers as numbers" $st

# 15. DeepSeek's decode layout: EP144 with 32 redundant experts on H800,
# two micro-batches. 288 slots, 2 per GPU; the low-latency kernels; the
# hidden and exposed parts add up to the all-to-all's total, and the step
# is no shorter than its all-to-all.
$dsec step deepseek-v3 --gpu h800 --tp 1 --ep 144 --redundant-experts 32 \
    --micro-batches 2 --decode-seqs 18432 --context 4096 --kv-dtype fp8 \
    --json >"$tmp/ep.json" 2>"$tmp/err"
st=$?
if [ $st -eq 0 ] && grep -q '"slots": 288,' "$tmp/ep.json" &&
    grep -q '"slots_per_gpu": 2,' "$tmp/ep.json" &&
    grep -q '"kernels": "low-latency",' "$tmp/ep.json" &&
    grep -q '"micro_batches": 2,' "$tmp/ep.json"; then
    tot=$(json_num "$tmp/ep.json" total_ns)
    a2a=$(sed -n '/"ep_alltoall"/,/}/p' "$tmp/ep.json" > "$tmp/a2a" &&
        json_num "$tmp/a2a" total_ns)
    hid=$(json_num "$tmp/a2a" hidden_ns)
    exp=$(json_num "$tmp/a2a" exposed_ns)
    awk -v t="$tot" -v a="$a2a" -v h="$hid" -v e="$exp" 'BEGIN {
        exit !(a > 0 && h + e > a - 1 && h + e < a + 1 && t >= a) }' || st=1
else
    st=1
fi
[ $st -ne 0 ] && show "$tmp/ep.json" "$tmp/err"
ok "ep 144 with 32 redundant experts: slots, kernels, hidden + exposed" $st

# 16. The text names the kernel class, the slots and the imbalance.
$dsec step deepseek-v3 --gpu h800 --tp 1 --ep 32 --redundant-experts 32 \
    --prefill-tokens 65536 >"$tmp/ep.txt" 2>"$tmp/err"
st=$?
grep -q '^experts: 288 slots (256 routed + 32 redundant), 9 per gpu; imbalance' \
    "$tmp/ep.txt" &&
    grep -q '^ep all-to-all: normal-internode kernels, 1 micro-batch;' \
        "$tmp/ep.txt" || st=1
[ $st -ne 0 ] && show "$tmp/ep.txt" "$tmp/err"
ok "ep 32 prefill: normal internode kernels in the text" $st

# 17. EP144 without redundant experts divides no slot count: exit 1, the
# message says which redundancy fits.
$dsec step deepseek-v3 --gpu h800 --tp 1 --ep 144 >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q 'dividing the 256 expert slots of deepseek-v3 (256 routed + 0 redundant); redundant_experts 32 gives 288 slots, 2 per gpu' "$tmp/err"; then
    st=0
else
    st=1
fi
[ $st -ne 0 ] && show "$tmp/err"
ok "ep 144 without redundancy is refused with the fix" $st

[ $fails -eq 0 ]
