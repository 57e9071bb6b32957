#!/bin/sh
# dsec's step model for DeepSeek-V3 in DeepSeek's own deployment (issue
# #18, docs/validation.md "DeepSeek-V3 at scale"): the per-GPU prefill and
# decode rates `dsec step` predicts for the layouts of DeepSeek's inference
# system, against the figures DeepSeek published for that system. The
# layouts and the kernel figures are inputs of the model (DeepEP's tables,
# FlashMLA, DeepGEMM: docs/step-time.md); the throughputs are only compared
# against, never fitted.
#
#   tests/validate-deepseek.sh [--markdown]
#
# Sources (deepseek-ai/open-infra-index @ 56d86855,
# 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md;
# deepseek-ai/profile-data README.md): prefill EP32 over 4 nodes, decode
# EP144 over 18 nodes with 32 redundant experts, two micro-batches, H800;
# the profile runs prefill at 16K tokens per GPU per step of 4K-token
# prompts and decode at 128 requests per GPU. The published averages of a
# day of service (from the same overview, read from recall: unverified):
# 73.7k input tokens/s per H800 node in prefill, of which 56.3 % were
# prefix-cache hits; 14.8k output tokens/s per node in decode, with
# multi-token prediction (about 1.8x, DeepSeek-V3 report) and an average
# KV length of 4,989 tokens per output token.
#
# Output: TAP (the model runs and its rates are positive: no bounds, the
# gap is what the page reports) with the table as comments; --markdown
# prints the table.
set -u
builddir=${top_builddir:-.}
dsec=${DSEC:-$builddir/dsec}
markdown=0
[ "${1:-}" = --markdown ] && markdown=1
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
[ -x "$dsec" ] || { echo "1..0 # SKIP no dsec binary at $dsec"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prefill: 4 nodes, EP32 + 32 redundant (9 slots per GPU), 16K tokens per
# GPU per step as 4K-token prompts, no cached tokens (computed tokens).
"$dsec" step deepseek-v3 --gpu h800 --tp 1 --ep 32 --redundant-experts 32 \
    --dtype fp8 --prefill-tokens 524288 --prefill-seqs 128 --micro-batches 2 \
    --json >"$tmp/pf.json" 2>"$tmp/pf.err"
pf_rc=$?
# Decode: 18 nodes, EP144 + 32 (2 slots per GPU), 128 requests per GPU at
# the published mean KV length, without MTP and with it (one drafted
# token, dsec's default acceptance 0.85: the low end of the report's 85-90 %).
"$dsec" step deepseek-v3 --gpu h800 --tp 1 --ep 144 --redundant-experts 32 \
    --dtype fp8 --decode-seqs 18432 --context 4989 --micro-batches 2 \
    --json >"$tmp/dec.json" 2>"$tmp/dec.err"
dec_rc=$?
"$dsec" step deepseek-v3 --gpu h800 --tp 1 --ep 144 --redundant-experts 32 \
    --dtype fp8 --decode-seqs 18432 --context 4989 --micro-batches 2 \
    --speculative mtp --json >"$tmp/mtp.json" 2>"$tmp/mtp.err"
mtp_rc=$?
[ $mtp_rc -ne 0 ] && dec_rc=$mtp_rc && cat "$tmp/mtp.err" >>"$tmp/dec.err"

step_ms() { jq -r '.total_ns / 1e6 | . * 100 | round / 100' "$1"; }
pf_ms=$(step_ms "$tmp/pf.json")
dec_ms=$(step_ms "$tmp/dec.json")
mtp_ms=$(step_ms "$tmp/mtp.json")
tau=$(jq -r '.speculative.tokens_per_step' "$tmp/mtp.json")
rates=$(echo "$pf_ms $dec_ms $mtp_ms $tau" | awk '{
    pf_gpu = 524288 / 32 / ($1 / 1000);   # computed tokens/s per GPU
    dec_gpu = 18432 / 144 / ($2 / 1000);  # output tokens/s per GPU
    # Published, per GPU (8 per node): prefill computed = 73.7k x (1 - 0.563) / 8;
    # decode = 14.8k / 8, and without the MTP gain of ~1.8x: / 1.8.
    pub_pf = 73700 * (1 - 0.563) / 8; pub_dec = 14800 / 8; pub_dec1 = pub_dec / 1.8;
    mtp_gpu = 18432 * $4 / 144 / ($3 / 1000);
    printf "%.0f %.0f %.0f %.0f %.0f %+.0f %+.0f %.0f %+.0f %.2f", pf_gpu, dec_gpu, pub_pf, pub_dec, pub_dec1,
        100 * (pf_gpu / pub_pf - 1), 100 * (dec_gpu / pub_dec1 - 1),
        mtp_gpu, 100 * (mtp_gpu / pub_dec - 1), mtp_gpu / dec_gpu }')
set -- $rates
table="| phase | layout | dsec step | dsec per GPU | published per GPU | dsec / published - 1 |
|---|---|---|---|---|---|
| prefill | EP32 + 32 redundant, 4 nodes, 128 prompts of 4,096 tokens, 2 micro-batches | $pf_ms ms | $1 computed tokens/s | $3 (73.7k per node x 43.7 % not cached / 8) | $6 % |
| decode | EP144 + 32 redundant, 18 nodes, 128 requests per GPU at 4,989 tokens, 2 micro-batches, no MTP | $dec_ms ms | $2 output tokens/s | $5 (14.8k per node / 8, less MTP's 1.8x) | $7 % |
| decode | the same with MTP (1 drafted token, acceptance 0.85: $tau tokens a step) | $mtp_ms ms | $8 output tokens/s | $4 (14.8k per node / 8) | $9 % |
| MTP gain | decode with MTP over without, at this batch | | ${10}x | about 1.8x (DeepSeek-V3 report) | |"

# The kernel rates the two steps imply, per GPU: FLOP/s (and bytes/s) of
# an operator class, its FLOPs over its time, against the kernels'
# published peaks on H800 (DeepGEMM: up to 1,550 TFLOP/s FP8; FlashMLA:
# up to 660 TFLOP/s compute-bound, 3,000 GB/s memory-bound). These peaks
# reach dsec only through the calibration's efficiencies: compared, not
# fitted.
rate() { # rate FILE OP: "TFLOP/s GB/s" of op class OP
    jq -r --arg op "$2" '.ops[] | select(.name == $op) |
        "\(.flops / .time_ns / 1000 | round) \(.bytes / .time_ns | round)"' "$1"
}
set -- $(rate "$tmp/pf.json" moe) $(rate "$tmp/pf.json" attention) \
    $(rate "$tmp/dec.json" attention) $(rate "$tmp/dec.json" moe)
kernels="| step | operator class | dsec implies per GPU | published kernel figure (H800) | dsec / published - 1 |
|---|---|---|---|---|
| prefill | moe (FP8 grouped GEMMs) | $1 TFLOP/s | DeepGEMM up to 1,550 TFLOP/s | $(echo "$1" | awk '{printf "%+.0f", 100 * ($1 / 1550 - 1)}') % |
| prefill | attention (MLA, bf16) | $3 TFLOP/s | FlashMLA up to 660 TFLOP/s compute-bound | $(echo "$3" | awk '{printf "%+.0f", 100 * ($1 / 660 - 1)}') % |
| decode | attention (MLA decode, 128 requests a GPU) | $5 TFLOP/s, $6 GB/s | FlashMLA up to 660 TFLOP/s, 3,000 GB/s | $(echo "$5" | awk '{printf "%+.0f", 100 * ($1 / 660 - 1)}') % |
| decode | moe (2 experts a GPU) | $7 TFLOP/s, $8 GB/s | DeepGEMM up to 1,550 TFLOP/s | $(echo "$7" | awk '{printf "%+.0f", 100 * ($1 / 1550 - 1)}') % |"
set -- $rates

if [ $markdown -eq 1 ]; then
    echo "$table"
    echo
    echo "$kernels"
    exit 0
fi
echo "1..2"
echo "$table" | sed 's/^/# /'
echo "$kernels" | sed 's/^/# /'
[ $pf_rc -eq 0 ] && [ -n "$pf_ms" ] && echo "$1" | awk '{exit !($1 > 0)}'
r=$?
[ $r -eq 0 ] && echo "ok 1 - prefill layout priced ($1 tokens/s per GPU)" ||
    { echo "not ok 1 - prefill layout priced"; sed 's/^/# /' "$tmp/pf.err"; }
[ $dec_rc -eq 0 ] && [ -n "$dec_ms" ] && echo "$2" | awk '{exit !($1 > 0)}'
r2=$?
[ $r2 -eq 0 ] && echo "ok 2 - decode layout priced ($2 tokens/s per GPU)" ||
    { echo "not ok 2 - decode layout priced"; sed 's/^/# /' "$tmp/dec.err"; }
[ $r -eq 0 ] && [ $r2 -eq 0 ]
