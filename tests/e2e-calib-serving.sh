#!/bin/sh
# End-to-end tests of dsec-calib import of serving benchmark results
# (calib/import-serving.c, docs/calibration.md "Serving benchmark
# results"), printing TAP: the hand-written inference-perf, vllm bench and
# GuideLLM fixtures of tests/data/calib-serving import with the numbers
# computed by hand, each stored scenario runs in dsec beside its stored
# model config (the round trip dsec-calib fit makes), broken inputs exit 1
# with the exact message and add no rows, and the shared H100 runs import
# (skipped when the data is absent). Needs sqlite3 and jq. Run by `make
# check` or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-$builddir/dsec}
calib="$builddir/dsec-calib"
data="$srcdir/tests/data/calib-serving"
shared=${DSEC_SHARED:-$srcdir/../shared}
runs="$shared/calibration/vllm-h100"
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
skip() { # skip DESCRIPTION REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
show() { sed 's/^/# /' "$@"; }
if ! command -v sqlite3 >/dev/null || ! command -v jq >/dev/null; then
    while [ "$n" -lt 17 ]; do skip "serving import" "sqlite3 or jq missing"; done
    exit 0
fi
db="$tmp/s.db"
q() { sqlite3 -separator ' ' "$db" "$1"; }
# same WANT GOT: the two strings are equal (else both are shown).
same() {
    [ "$1" = "$2" ] && return 0
    printf 'want: %s\ngot:  %s\n' "$1" "$2" | show
    return 1
}
# rows: the number of rows of both serving tables, "RUNS STAGES".
rows() { q "SELECT (SELECT count(*) FROM serving_runs), (SELECT count(*) FROM serving_stages)"; }
# fails_with MESSAGE ARGS...: dsec-calib import --db $db ARGS exits 1,
# prints MESSAGE (a fixed string) on stderr and adds no rows.
fails_with() {
    msg=$1
    shift
    before=$(rows)
    "$calib" import --db "$db" "$@" >"$tmp/o" 2>"$tmp/e"
    got=$?
    show "$tmp/e"
    [ "$got" -eq 1 ] && grep -qF -- "$msg" "$tmp/e" && same "$before" "$(rows)"
}
tiny="$data/tiny-llama"

# 1. --help names the options and the formats.
st=0
"$calib" import --help >"$tmp/h" || st=1
for o in --model-config --timeout --gpu inference-perf 'vllm bench' GuideLLM; do
    grep -q -- "$o" "$tmp/h" || st=1
done
"$calib" --help | grep -q 'GuideLLM' || st=1
ok "import --help lists the options and serving formats" $st

# 2. An inference-perf experiment folder, two stages. The per-token time
# is (E2E mean - TTFT mean) / (output_len - 1): (330 - 20) / 31 = 10 ms
# and (397 - 25) / 31 = 12 ms. --gpu H100 is stored as the catalog's h100.
st=0
"$calib" import --db "$db" --gpu H100 --model-config "$tiny" \
    "$data/ip-run" >"$tmp/o" 2>"$tmp/e" || st=1
show "$tmp/e"
same "$data/ip-run: inference-perf, 2 stages, gpu h100" "$(head -1 "$tmp/o")" || st=1
same "1 inference-perf h100 example/tiny-llama $data/ip-run" \
    "$(q 'SELECT id, format, gpu, model, source FROM serving_runs')" || st=1
same "0 10 0 2.0 32.0 20.0 31.0 10.0 5.0 330.0 400.0 1.96
1 20 1 4.0 32.0 25.0 50.0 12.0 6.0 397.0 480.0 3.8" \
    "$(q "SELECT stage, requests, failures, rate, output_tokens,
          round(ttft_mean_ms, 6), round(ttft_p99_ms, 6), round(tpot_mean_ms, 6),
          round(itl_mean_ms, 6), round(e2e_mean_ms, 6), round(e2e_p99_ms, 6),
          requests_per_s FROM serving_stages WHERE run = 1 ORDER BY stage")" ||
    st=1
ok "inference-perf folder: one run, two stages, TPOT by hand" $st

# 3. The stored scenario names the model config as config.json, and the
# model_config column is that file's text.
st=0
q "SELECT scenario FROM serving_runs WHERE id = 1" >"$tmp/scn"
grep -q '^model: {hf_config: config.json} ' "$tmp/scn" || st=1
grep -q '^      stages: \[{rate: 2, duration: 5}, {rate: 4, duration: 5}\]' \
    "$tmp/scn" || st=1
q "SELECT model_config FROM serving_runs WHERE id = 1" >"$tmp/cfg"
# (sqlite3 ends the value with a newline of its own)
{ cat "$tiny/config.json"; echo; } | cmp -s - "$tmp/cfg" || st=1
ok "scenario names config.json; model_config holds the file" $st

# 4. vllm bench serve: lengths fixed by --metadata (ratio 0), so the
# output length is the configured 64.
st=0
"$calib" import --db "$db" --gpu h100 --model-config "$tiny/config.json" \
    "$data/vllm.json" >"$tmp/o" 2>"$tmp/e" || st=1
show "$tmp/e"
same "$data/vllm.json: vllm-bench, 1 stage, gpu h100" "$(head -1 "$tmp/o")" || st=1
same "vllm-bench example/tiny-llama 0 40 1 8.0 64.0 12.5 30.1 4.2 4.1 277.1 320.0 7.5" \
    "$(q "SELECT format, model, stage, requests, failures, rate, output_tokens,
          ttft_mean_ms, ttft_p99_ms, tpot_mean_ms, itl_mean_ms, e2e_mean_ms,
          e2e_p99_ms, requests_per_s FROM serving_runs JOIN serving_stages
          ON run = id WHERE id = 2")" || st=1
ok "vllm bench JSON: one run, its figures" $st

# 5. A GuideLLM report with two benchmarks: synchronous (no offered rate)
# and constant at 4/s; requests are successful + errored + incomplete,
# request_latency seconds become ms.
st=0
"$calib" import --db "$db" --gpu h100 --model-config "$tiny" \
    "$data/guidellm.json" >"$tmp/o" 2>"$tmp/e" || st=1
show "$tmp/e"
same "$data/guidellm.json#0: guidellm, 1 stage, gpu h100
$data/guidellm.json#1: guidellm, 1 stage, gpu h100
2 serving runs into $db" "$(cat "$tmp/o")" || st=1
same "$data/guidellm.json#0 21 1 NULL 16.0 15.0 20.0 3.5 3.4 67.5 80.0 14.2
$data/guidellm.json#1 40 2 4.0 16.0 18.0 40.0 4.0 3.9 78.0 120.0 3.9" \
    "$(q "SELECT source, requests, failures, ifnull(rate, 'NULL'),
          output_tokens, ttft_mean_ms, ttft_p99_ms, tpot_mean_ms, itl_mean_ms,
          e2e_mean_ms, e2e_p99_ms, requests_per_s FROM serving_runs JOIN
          serving_stages ON run = id WHERE format = 'guidellm' ORDER BY id")" ||
    st=1
grep -qF "guidellm.json: note: benchmarks[1].args.strategy.initial_burst: GuideLLM's initial burst is not modelled" "$tmp/e" || st=1
q "SELECT scenario FROM serving_runs WHERE source LIKE '%#0'" >"$tmp/g0"
grep -q '^    request_rate: inf ' "$tmp/g0" && grep -q '^    max_concurrency: 1$' "$tmp/g0" || st=1
q "SELECT scenario FROM serving_runs WHERE source LIKE '%#1'" >"$tmp/g1"
grep -q '^    request_rate: 4 ' "$tmp/g1" && grep -q '^    burstiness: 1000000 ' "$tmp/g1" || st=1
ok "GuideLLM report: two benchmarks, two runs" $st

# 6. The round trip of dsec-calib fit: each run's scenario and model
# config written into a folder as scenario.yaml and config.json run in
# dsec, sending the requests the benchmark sent.
st=0
for id in $(q "SELECT id FROM serving_runs ORDER BY id"); do
    mkdir -p "$tmp/rt/$id"
    q "SELECT scenario FROM serving_runs WHERE id = $id" >"$tmp/rt/$id/scenario.yaml"
    q "SELECT model_config FROM serving_runs WHERE id = $id" >"$tmp/rt/$id/config.json"
    if ! "$dsec" run "$tmp/rt/$id/scenario.yaml" --no-db --json \
        >"$tmp/rt/$id/out.json" 2>"$tmp/rt/$id/err"; then
        show "$tmp/rt/$id/err"
        st=1
        continue
    fi
    same "$(q "SELECT sum(requests) FROM serving_stages WHERE run = $id")" \
        "$(jq .requests_arrived "$tmp/rt/$id/out.json")" || st=1
done
[ -d "$tmp/rt/4" ] || st=1
ok "stored scenario + config.json run in dsec (requests as sent)" $st

# 7. A missing stage file: exit 1, nothing of the run stored.
fails_with "ip-missing-stage/results/stage_1_lifecycle_metrics.json: error: missing: load.stages of results/config.yaml has 2 stages, and inference-perf writes stage_N_lifecycle_metrics.json for each" \
    --gpu h100 "$data/ip-missing-stage"
ok "missing stage file: exit 1, no rows" $?

# 8. Bad JSON: the syntax error's position.
fails_with "vllm-bad.json:4:3: error: json: object value separator ',' expected" \
    --gpu h100 "$data/vllm-bad.json"
ok "bad JSON: exit 1 with line:col, no rows" $?

# 9. A missing metric in the second benchmark: neither benchmark of the
# report is stored.
st=0
fails_with "guidellm-no-ttft.json: error: benchmarks[1].metrics.time_to_first_token_ms.successful.mean: missing; expected a number" \
    --gpu h100 --model-config "$tiny" "$data/guidellm-no-ttft.json" || st=1
ok "missing metric: exit 1, no rows of the report" $st

# 10. A stage file beyond load.stages, a vllm run with no request
# completed, a negative latency, E2E below TTFT, JSON of neither tool.
st=0
mkdir -p "$tmp/extra"
cp -R "$data/ip-run/." "$tmp/extra/"
cp "$tmp/extra/results/stage_1_lifecycle_metrics.json" \
    "$tmp/extra/results/stage_2_lifecycle_metrics.json"
fails_with "extra/results/stage_2_lifecycle_metrics.json: error: a stage that results/config.yaml does not have: its load.stages has 2 stages" \
    --gpu h100 "$tmp/extra" || st=1
jq '.completed = 0' "$data/vllm.json" >"$tmp/zero.json"
fails_with "zero.json: error: completed: 0: no request succeeded, so the run has no latencies" \
    --gpu h100 "$tmp/zero.json" || st=1
jq '.benchmarks[0].metrics.request_latency.successful.mean = -0.5' \
    "$data/guidellm.json" >"$tmp/neg.json"
fails_with "neg.json: error: benchmarks[0].metrics.request_latency.successful.mean: -0.5 out of range [0, inf)" \
    --gpu h100 "$tmp/neg.json" || st=1
rm "$tmp/extra/results/stage_2_lifecycle_metrics.json"
jq '.successes.latency.time_to_first_token.mean = 1.0' \
    "$data/ip-run/results/stage_0_lifecycle_metrics.json" \
    >"$tmp/extra/results/stage_0_lifecycle_metrics.json"
fails_with "extra/results/stage_0_lifecycle_metrics.json: error: successes.latency.request_latency: mean 330 ms below the mean time to first token 1000 ms" \
    --gpu h100 "$tmp/extra/results" || st=1
echo '{"benchmark": []}' >"$tmp/other.json"
fails_with "other.json: error: unrecognised JSON; expected a vllm bench serve result" \
    --gpu h100 "$tmp/other.json" || st=1
ok "extra stage, zero completed, negative latency, E2E < TTFT, other JSON" $st

# 11. --gpu is required for serving results (exit 1, not a usage error,
# since logs on the same line need none); a good input on the same command
# line is kept.
st=0
fails_with "vllm.json: error: --gpu: required for serving benchmark results; inference-perf, vllm bench and GuideLLM do not record the GPU" \
    "$data/vllm.json" || st=1
before=$(q "SELECT count(*) FROM serving_runs")
"$calib" import --db "$db" --gpu h100 "$data/vllm.json" \
    "$data/vllm-bad.json" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] || st=1
same "$((before + 1))" "$(q "SELECT count(*) FROM serving_runs")" || st=1
grep -qxF "1 serving run into $db" "$tmp/o" || st=1
ok "--gpu required; earlier good inputs stay" $st

# 12. Without --model-config: model_config NULL, the model named by
# deploy.model_path (a note says so).
st=0
same "vllm-bench NULL" "$(q "SELECT format, ifnull(model_config, 'NULL') FROM serving_runs ORDER BY id DESC LIMIT 1")" || st=1
q "SELECT scenario FROM serving_runs ORDER BY id DESC LIMIT 1" >"$tmp/s"
grep -q '^deploy: {model_path: example/tiny-llama} ' "$tmp/s" || st=1
grep -q 'hf_config' "$tmp/s" && st=1
"$calib" import --db "$tmp/n.db" --gpu h100 "$data/ip-run/results" \
    >"$tmp/o" 2>"$tmp/e" || st=1
grep -qF "ip-run/results/config.yaml: note: no --model-config: the scenario names the model by deploy.model_path 'example/tiny-llama'" "$tmp/e" || st=1
show "$tmp/e"
ok "no --model-config: model_config NULL, deploy.model_path" $st

# 13. GuideLLM lengths with a spread: dataset lengths with lognormals,
# and the output length is the measured mean.
st=0
jq '.benchmarks[1].request_loader.data = "{\"prompt_tokens\": 128, \"prompt_tokens_stdev\": 32, \"prompt_tokens_max\": 256, \"output_tokens\": 16, \"output_tokens_stdev\": 4}" |
    .benchmarks[1].metrics.output_token_count.successful.mean = 15.5' \
    "$data/guidellm.json" >"$tmp/spread.json"
"$calib" import --db "$tmp/sp.db" --gpu h100 --model-config "$tiny" \
    "$tmp/spread.json" >"$tmp/o" 2>"$tmp/e" || st=1
show "$tmp/e"
same "16.0 15.5" "$(sqlite3 -separator ' ' "$tmp/sp.db" "SELECT group_concat(output_tokens, ' ') FROM (SELECT output_tokens FROM serving_stages ORDER BY run)")" || st=1
sqlite3 "$tmp/sp.db" "SELECT scenario FROM serving_runs WHERE id = 2" >"$tmp/s"
grep -q '^    dataset: lengths ' "$tmp/s" || st=1
grep -q '^    prompt_tokens: {dist: lognormal, mean: 128, sd: 32, max: 256} ' "$tmp/s" || st=1
grep -q '^    output_tokens: {dist: lognormal, mean: 16, sd: 4} ' "$tmp/s" || st=1
mkdir -p "$tmp/sp"
cp "$tiny/config.json" "$tmp/sp/config.json"
cp "$tmp/s" "$tmp/sp/scenario.yaml"
"$dsec" run "$tmp/sp/scenario.yaml" --no-db --json >"$tmp/sp/out.json" 2>"$tmp/e" ||
    { show "$tmp/e"; st=1; }
ok "GuideLLM spread lengths: dataset lengths, measured output mean" $st

# 14. A bad data config and strategy are named.
st=0
jq '.benchmarks[0].request_loader.data = "openai/gsm8k" |
    .benchmarks[1].args.strategy.type_ = "sweep"' \
    "$data/guidellm.json" >"$tmp/bad.json"
fails_with "bad.json: error: benchmarks[0].request_loader.data: 'openai/gsm8k' is not synthetic data (KEY=VALUE pairs such as prompt_tokens=256,output_tokens=128)" \
    --gpu h100 "$tmp/bad.json" || st=1
grep -qF "bad.json: error: benchmarks[1].args.strategy.type_: 'sweep' unsupported; valid: synchronous, concurrent, throughput, constant, poisson" "$tmp/e" || st=1
ok "GuideLLM: dataset and strategy dsec cannot honour" $st

# 15. show lists the serving runs and their stages.
st=0
"$calib" show --db "$db" >"$tmp/show" 2>&1 || st=1
grep -q '^# serving runs' "$tmp/show" && grep -q '^# serving stages' "$tmp/show" || st=1
grep -q "^1	h100	inference-perf	example/tiny-llama	2	1	$data/ip-run\$" "$tmp/show" || st=1
grep -q '^1	1	20	1	4	32	25	50	12	6	397	480	3.8$' "$tmp/show" || st=1
[ "$st" -eq 0 ] || show "$tmp/show"
ok "show lists runs and stages" $st

# 16. A bad --timeout is a usage error.
st=0
"$calib" import --db "$db" --gpu h100 --timeout 5q "$data/vllm.json" \
    >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] || st=1
grep -qF "dsec-calib import: --timeout: expected a duration > 0 such as 300s or 10min, got '5q'" "$tmp/e" || st=1
ok "bad --timeout: exit 2" $st

# 17. The shared H100 runs import: 8 runs, 12 stages; codegen's first
# stage's TPOT by hand from its stage file's means:
# (1810.3224 - 25.0366) / (247 - 1) = 7.2573 ms.
if [ ! -f "$runs/experiments.csv" ]; then
    skip "the 8 shared H100 runs import" "calibration data not found at $runs"
else
    st=0
    hdb="$tmp/h.db"
    tail -n +2 "$runs/experiments.csv" | while IFS=, read -r exp model rest; do
        "$calib" import --db "$hdb" --gpu h100 \
            --model-config "$runs/models/$model" "$runs/experiments/$exp" \
            >/dev/null 2>"$tmp/e" || { show "$tmp/e"; echo "$exp" >>"$tmp/bad"; }
    done
    [ -f "$tmp/bad" ] && st=1
    same "8 12" "$(sqlite3 -separator ' ' "$hdb" "SELECT (SELECT count(*) FROM serving_runs), (SELECT count(*) FROM serving_stages)")" || st=1
    same "7.2573" "$(sqlite3 "$hdb" "SELECT printf('%.4f', tpot_mean_ms) FROM serving_stages JOIN serving_runs ON run = id WHERE source LIKE '%codegen' AND model LIKE '%Llama-2-7b%' AND stage = 0")" || st=1
    ok "the 8 shared H100 runs import" $st
fi

[ "$fails" -eq 0 ]
