#!/bin/sh
# End-to-end tests of dsec-calib scenario (calib/scenario.c,
# docs/calibration.md "Benchmark runs as scenarios"), printing TAP: the
# hand-written inference-perf and vllm bench fixtures of
# tests/data/calib-scenario convert to their golden scenarios (the
# absolute model path written as @DATA@), the notes and errors are the
# exact strings, and the eight H100 runs of the shared calibration data
# convert (skipped when the data is absent; their scenarios are loaded by
# dsec validate only once dsec knows workload.inference_perf). Run by
# `make check` or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-./dsec}
calib="$builddir/dsec-calib"
data="$srcdir/tests/data/calib-scenario"
shared=${DSEC_SHARED:-$srcdir/../shared}
runs="$shared/calibration/vllm-h100"
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
skip() { # skip DESCRIPTION REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
show() { sed 's/^/# /' "$@"; }
abs=$(cd "$data" && pwd -P)

# The commands run in the data folder, so dsec-calib's path is absolute.
calib=$(cd "$builddir" && pwd -P)/dsec-calib
# golden RUN GOLDEN OPTIONS...: converts RUN (relative to the data folder)
# and compares with GOLDEN; stderr is left in $tmp/e.
golden() {
    run=$1
    gold=$2
    shift 2
    (cd "$data" && "$calib" scenario "$run" "$@") >"$tmp/o" 2>"$tmp/e" ||
        return 1
    sed "s|$abs|@DATA@|g" "$tmp/o" >"$tmp/g"
    diff -u "$data/$gold" "$tmp/g" | show
    cmp -s "$data/$gold" "$tmp/g"
}
# fails_with STATUS MESSAGE ARGS...: dsec-calib ARGS exits STATUS, prints
# nothing on stdout and MESSAGE (a fixed string) on stderr.
fails_with() {
    want=$1
    msg=$2
    shift 2
    (cd "$data" && "$calib" "$@") >"$tmp/o" 2>"$tmp/e"
    got=$?
    show "$tmp/e"
    [ "$got" -eq "$want" ] && [ ! -s "$tmp/o" ] && grep -qF -- "$msg" "$tmp/e"
}

# 1. --help names every option; the command list names scenario.
st=0
"$calib" scenario --help >"$tmp/h" || st=1
for o in --model-config --gpu --timeout; do
    grep -q -- "$o" "$tmp/h" || st=1
done
"$calib" --help | grep -q '^  scenario' || st=1
ok "scenario --help lists its options" $st

# 2. An inference-perf experiment folder: shared_prefix, two stages, the
# server's settings from exp-config.yaml; the profile.yaml keys that
# inference-perf ignored are notes.
st=0
golden ip-shared ip-shared.yaml --gpu h100 --model-config tiny-llama || st=1
show "$tmp/e"
grep -qF 'ip-shared/profile.yaml:1:57: note: data.shared_prefix.num_unique_system_prompts: not in results/config.yaml, so the inference-perf of the run did not know it and ignored it; not converted' "$tmp/e" || st=1
grep -qF 'ip-shared/profile.yaml:1:27: note: data.shared_prefix.enable_multi_turn_chat: not in' "$tmp/e" || st=1
ok "inference-perf experiment folder to its golden scenario" $st

# 3. A results/ folder alone: random data, Poisson load, request_timeout.
st=0
golden ip-random/results ip-random.yaml --gpu h100 \
    --model-config tiny-llama/config.json || st=1
grep -qF 'ip-random/results/config.yaml: note: no exp-config.yaml beside results/' "$tmp/e" || st=1
ok "inference-perf results/ folder (random, poisson, timeout)" $st

# 4. vllm bench serve --save-detailed: lengths from input_lens/output_lens.
st=0
golden vllm-detailed.json vllm-detailed.yaml --gpu h200 \
    --model-config tiny-llama || st=1
ok "vllm bench JSON with per-request lengths" $st

# 5. vllm bench with --metadata lengths, an unbounded rate, a concurrency
# cap, no --model-config (a note) and --timeout.
st=0
golden vllm-meta.json vllm-meta.yaml --gpu h100 --timeout 20min || st=1
grep -qF "note: no --model-config: the scenario names the model by deploy.model_path 'example/tiny-llama', which dsec must know" "$tmp/e" || st=1
ok "vllm bench JSON with --metadata lengths and rate inf" $st

# 6. Missing run, a folder that is no run.
st=0
fails_with 1 'nope: error: cannot open: No such file or directory' \
    scenario nope --gpu h100 || st=1
fails_with 1 'tiny-llama: error: expected an inference-perf experiment folder (exp-config.yaml, results/config.yaml), its results/ folder (config.yaml), or a vllm bench serve result JSON' \
    scenario tiny-llama --gpu h100 || st=1
ok "missing run and a folder that is none: exit 1" $st

# 7. Bad JSON: the syntax error's position; bad values, each named.
st=0
fails_with 1 "bad-syntax.json:2:21: error: json: object value separator ',' expected" \
    scenario bad-syntax.json --gpu h100 || st=1
fails_with 1 'bad-values.json: error: num_prompts: expected an integer, got 10.5' \
    scenario bad-values.json --gpu h100 || st=1
for m in 'bad-values.json: error: request_rate: -2 out of range (0, inf)' \
    "bad-values.json: error: dataset_name: 'sharegpt' unsupported; valid: random" \
    'bad-values.json: error: output_lens: missing; without random_output_len (--metadata) the lengths come from output_lens (--save-detailed)'; do
    grep -qF -- "$m" "$tmp/e" || st=1
done
printf '{"num_prompts": 3, "request_rate": 1, "input_lens": [10, 20, 30], "output_lens": [5, 0, 7]}\n' \
    >"$tmp/f.json"
fails_with 1 "f.json: error: model_id: missing, and no --model-config: the run names no model" \
    scenario "$tmp/f.json" --gpu h100 || st=1
grep -qF 'f.json: note: output_lens: 1 of 3 lengths are 0 (failed requests) and are left out' "$tmp/e" || st=1
(cd "$data" && "$calib" scenario "$tmp/f.json" --gpu h100 \
    --model-config tiny-llama) >"$tmp/o" 2>/dev/null || st=1
grep -q '^    random_output_len: 6 .*# mean of output_lens$' "$tmp/o" || st=1
grep -q '^    random_range_ratio: 0.5 ' "$tmp/o" || st=1
ok "bad vllm bench JSON: exit 1 with the place and the key" $st

# 8. Unsupported inference-perf settings: a data type dsec lacks, sweep
# load, a bad stage.
st=0
fails_with 1 "ip-badtype/results/config.yaml:8:9: error: data.type: 'shareGPT' unsupported; valid: random, shared_prefix, synthetic" \
    scenario ip-badtype --gpu h100 || st=1
fails_with 1 'ip-sweep/results/config.yaml:26:10: error: load.sweep: sweep load is unsupported; the stages it would choose are known only after the run' \
    scenario ip-sweep --gpu h100 || st=1
grep -qF 'ip-sweep/results/config.yaml:25:15: error: load.stages[1].duration: -1 out of range (0, inf)' "$tmp/e" || st=1
ok "unsupported data type, sweep load, bad stage: exit 1" $st

# 9. Multi-turn chat that inference-perf ran, an unknown server setting,
# a YAML syntax error.
st=0
mkdir -p "$tmp/mt/results"
sed 's/^    output_len: 64$/    output_len: 64\n    enable_multi_turn_chat: true/' \
    "$data/ip-shared/results/config.yaml" >"$tmp/mt/results/config.yaml"
printf 'model: m\ntensor_parallelism: 1\nkv_cache_dtype: fp8\n' \
    >"$tmp/mt/exp-config.yaml"
fails_with 1 'mt/results/config.yaml:18:29: error: data.shared_prefix.enable_multi_turn_chat: multi-turn chat is unsupported' \
    scenario "$tmp/mt" --gpu h100 || st=1
grep -qF 'mt/exp-config.yaml:3:1: error: kv_cache_dtype: unsupported setting; known: app, block_size, enable_prefix_caching' "$tmp/e" || st=1
printf 'model: [m\n' >"$tmp/mt/exp-config.yaml"
fails_with 1 'mt/exp-config.yaml:2:1: error:' scenario "$tmp/mt" --gpu h100 ||
    st=1
ok "multi-turn, unknown server key, YAML syntax error: exit 1" $st

# 10. A model config that does not load.
fails_with 1 'vllm-meta.json: error: --model-config: missing key' \
    scenario vllm-detailed.json --gpu h100 --model-config vllm-meta.json
ok "bad --model-config: exit 1" $?

# 11. Usage errors: exit 2.
st=0
fails_with 2 'dsec-calib scenario: --gpu: required' \
    scenario vllm-meta.json || st=1
fails_with 2 "dsec-calib scenario: --gpu: unknown GPU kind 'x100'; valid:" \
    scenario vllm-meta.json --gpu x100 || st=1
fails_with 2 "dsec-calib scenario: --timeout: expected a duration > 0 such as 300s or 10min, got '5q'" \
    scenario vllm-meta.json --gpu h100 --timeout 5q || st=1
fails_with 2 'dsec-calib scenario: no run given' scenario --gpu h100 || st=1
fails_with 2 'dsec-calib scenario: one run at a time' \
    scenario a b --gpu h100 || st=1
ok "usage errors: exit 2" $st

# 12-14. The shared H100 runs: each converts (exit 0, its tp and stages),
# and loads in dsec once the scenario language has the benchmark
# workloads.
if [ ! -f "$runs/experiments.csv" ]; then
    skip "the 8 shared H100 runs convert" "calibration data not found at $runs"
    skip "the converted runs match their configs" "calibration data not found"
    skip "the converted runs load in dsec" "calibration data not found"
else
    st=0
    st2=0
    tail -n +2 "$runs/experiments.csv" | while IFS=, read -r exp model rest; do
        cfg="$runs/models/$model"
        out="$tmp/$exp.yaml"
        "$calib" scenario "$runs/experiments/$exp" --gpu h100 \
            --model-config "$cfg" >"$out" 2>"$tmp/e" || echo "$exp" >>"$tmp/bad"
        echo "$exp" >>"$tmp/done"
        tp=$(sed -n 's/^tensor_parallelism: *//p' \
            "$runs/experiments/$exp/exp-config.yaml")
        grep -q "^deploy: {tp: $tp}" "$out" || echo "$exp tp" >>"$tmp/bad2"
        rates=$(sed -n 's/^  - rate: \([0-9.]*\)/\1/p' \
            "$runs/experiments/$exp/results/config.yaml" | sed 's/\.0$//' |
            tr '\n' ' ')
        for r in $rates; do
            grep -q "{rate: $r, " "$out" || echo "$exp rate $r" >>"$tmp/bad2"
        done
    done
    [ -f "$tmp/bad" ] && { show "$tmp/bad"; st=1; }
    [ "$(wc -l <"$tmp/done")" -eq 8 ] || st=1
    ok "the 8 shared H100 runs convert" $st
    [ -f "$tmp/bad2" ] && { show "$tmp/bad2"; st2=1; }
    ok "the converted runs match their configs (tp, stage rates)" $st2
    if "$dsec" help scenario 2>/dev/null | grep -q 'workload\.inference_perf'; then
        st=0
        for f in "$tmp"/2026*.yaml; do
            "$dsec" validate "$f" >"$tmp/v" 2>&1 || { show "$tmp/v"; st=1; }
        done
        ok "the converted runs load in dsec (dsec validate)" $st
    else
        skip "the converted runs load in dsec" \
            "dsec help scenario does not list workload.inference_perf yet"
    fi
fi

[ "$fails" -eq 0 ]
