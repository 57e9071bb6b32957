#!/bin/sh
# End-to-end tests of `dsec model`, printing TAP: catalog figures against
# docs/sources.md §4.2-4.3, a Hugging Face config.json fixture by path and by
# directory, the table's separators and the unknown-model error. Run by
# `make check` (top_srcdir and DSEC set by the harness) or by hand from the
# build directory.
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

# jget FILE [PARENT] KEY: the value of KEY in dsec's pretty JSON, inside the
# object PARENT when given (the first KEY after PARENT's line).
jget() {
    if [ $# -eq 3 ]; then
        awk -v p="\"$2\":" -v k="\"$3\":" \
            'index($0, p) { in_p = 1; next }
             in_p && index($0, k) { sub(/.*": /, ""); sub(/,$/, ""); print; exit }' "$1"
    else
        awk -v k="\"$2\":" \
            'index($0, k) == 3 { sub(/.*": /, ""); sub(/,$/, ""); print; exit }' "$1"
    fi
}

# show_json NAME: dsec model show NAME --json into $tmp/out.json.
show_json() {
    $dsec model show "$1" --json >"$tmp/out.json" 2>"$tmp/err"
}

# expect FILE WANT [PARENT] KEY: prints a diagnostic on mismatch.
expect() {
    file=$1
    want=$2
    shift 2
    got=$(jget "$file" "$@")
    if [ "$got" != "$want" ]; then
        echo "# $*: got '$got', want '$want'"
        return 1
    fi
}

# docs/sources.md §4.3 KV bytes (bf16, fp8) and §4.2 parameter counts.
show_json deepseek-v3
st=$?
expect "$tmp/out.json" 70272 kv_bytes_per_token bf16 || st=1
expect "$tmp/out.json" 35136 kv_bytes_per_token fp8 || st=1
expect "$tmp/out.json" 671026419200 params_total || st=1
expect "$tmp/out.json" 37552297472 params_active || st=1
expect "$tmp/out.json" '"MLA"' attention || st=1
ok "model show deepseek-v3 --json: kv 70,272 B/token, 671.0B / 37.6B params" $st

show_json llama-3.1-70b
st=$?
expect "$tmp/out.json" 327680 kv_bytes_per_token bf16 || st=1
expect "$tmp/out.json" 70553706496 params_total || st=1
expect "$tmp/out.json" 70553706496 params_active || st=1
# docs/sources.md §4.2: 2 bytes a parameter in bf16.
expect "$tmp/out.json" 141107412992 weight_bytes bf16 || st=1
ok "model show llama-3.1-70b --json: kv 327,680 B/token, 70.55B params" $st

show_json llama-3.1-8b
st=$?
expect "$tmp/out.json" 131072 kv_bytes_per_token bf16 || st=1
expect "$tmp/out.json" 65536 kv_bytes_per_token fp8 || st=1
expect "$tmp/out.json" 8030261248 params_total || st=1
ok "model show llama-3.1-8b --json: kv 131,072 B/token, 8.03B params" $st

show_json deepseek-v3.2
st=$?
expect "$tmp/out.json" 48068 kv_bytes_per_token fp8 || st=1
expect "$tmp/out.json" 671877944064 params_total || st=1
expect "$tmp/out.json" 2048 indexer topk || st=1
ok "model show deepseek-v3.2 --json: FP8 cache with indexer 48,068 B/token" $st

show_json qwen3-235b-a22b
st=$?
expect "$tmp/out.json" 235093634560 params_total || st=1
expect "$tmp/out.json" 22190763520 params_active || st=1
expect "$tmp/out.json" 192512 kv_bytes_per_token bf16 || st=1
expect "$tmp/out.json" 94 moe moe_layers || st=1
ok "model show qwen3-235b-a22b --json: 235.1B / 22.2B, 94 MoE layers" $st

# A config.json path and its directory give the catalog entry's figures.
show_json "$srcdir/tests/data/hf/qwen2.5-72b/config.json"
st=$?
expect "$tmp/out.json" '"qwen2.5-72b"' name || st=1
expect "$tmp/out.json" 72706203648 params_total || st=1
expect "$tmp/out.json" 327680 kv_bytes_per_token bf16 || st=1
expect "$tmp/out.json" true qkv_bias || st=1
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/err"
ok "model show PATH/config.json reads a Hugging Face config" $st

show_json "$srcdir/tests/data/hf/llama-2-70b"
st=$?
expect "$tmp/out.json" 68976648192 params_total || st=1
ok "model show DIR reads DIR/config.json" $st

$dsec model show llama-3.1-405b >"$tmp/t" 2>&1
st=$?
grep -q '^params total  *405,853,388,800$' "$tmp/t" &&
    grep -q '^kv bytes per token  *bf16 516,096, fp8 258,048$' "$tmp/t" || st=1
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/t"
ok "model show prints a table with thousands separators" $st

$dsec model >"$tmp/l" && [ "$(wc -l <"$tmp/l")" -eq 9 ] &&
    grep -q '^qwen3-32b ' "$tmp/l" && $dsec model list | cmp -s - "$tmp/l"
ok "dsec model and dsec model list list the 9 catalog entries" $?

$dsec model show llama-3.1-7b >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "^dsec model: unknown model 'llama-3.1-7b'; valid: deepseek-v3, .*qwen3-32b; did you mean 'llama-3.1-70b'?" "$tmp/err"; then
    st=0
else
    echo "# exit $st"
    sed 's/^/# /' "$tmp/err"
    st=1
fi
ok "an unknown model exits 1 with the valid names and a guess" $st

$dsec model show "$srcdir/tests/data/hf/bad-syntax" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "bad-syntax/config.json:4:27: error: json: " "$tmp/err"; then
    st=0
else
    echo "# exit $st"
    sed 's/^/# /' "$tmp/err"
    st=1
fi
ok "a malformed config exits 1 at its line:col" $st

# Architectures beyond the catalog (issue #16): exact parameter counts
# (hand-counted in tests/check_models_arch.c) and KV bytes per token.
for c in "mixtral-8x7b 46702792704 131072 gated_silu" \
    "phi-2 2779683840 327680 plain_gelu" \
    "pythia-1.4b 1414647808 196608 plain_gelu" \
    "gpt2 124439808 36864 plain_gelu"; do
    set -- $c
    show_json "$srcdir/tests/data/hf/$1"
    st=$?
    expect "$tmp/out.json" "$2" params_total || st=1
    expect "$tmp/out.json" "$3" kv_bytes_per_token bf16 || st=1
    expect "$tmp/out.json" "\"$4\"" mlp || st=1
    [ $st -ne 0 ] && sed 's/^/# /' "$tmp/err"
    ok "model show tests/data/hf/$1: $2 parameters, $3 KV bytes a token" $st
done

$dsec model show "$srcdir/tests/data/hf/bad-arch" >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] &&
    grep -q "bad-arch/config.json:2:3: error: architectures: 'FalconForCausalLM' is not supported; supported: .*PhiForCausalLM.*; dsec needs: .*an MLP kind" "$tmp/err"; then
    st=0
else
    echo "# exit $st"
    sed 's/^/# /' "$tmp/err"
    st=1
fi
ok "an unknown architecture exits 1 naming the supported ones and the needs" $st

$dsec model show >/dev/null 2>&1
[ $? -eq 2 ]
ok "model show without a name is a usage error (exit 2)" $?

[ "$fails" -eq 0 ]
