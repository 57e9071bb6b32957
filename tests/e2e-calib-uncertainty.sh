#!/bin/sh
# Calibration from serving runs and prediction intervals, end to end on
# runs that dsec itself simulated from known parameters (issue #17):
#   - dsec-calib fit --serving recovers the true parameters within three
#     standard errors, from "measurements" with a deterministic +-2 % error;
#   - the standard errors shrink as runs are added;
#   - a key that moves nothing is refused with its name;
#   - dsec run --calibration takes the profile, records its path and
#     SHA-256; a profile for another GPU kind is refused;
#   - dsec run --uncertainty N gives intervals that hold the run at the
#     profile's values, in --json and in the database, the same for the
#     same seed, and is refused without uncertainty.
set -u
builddir=${top_builddir:-.}
dsec=${DSEC:-$builddir/dsec}
calib=${DSEC_CALIB:-$builddir/dsec-calib}
for t in jq sqlite3; do
    command -v $t >/dev/null 2>&1 || {
        echo "1..0 # SKIP $t is not installed"
        exit 0
    }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { # status description
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        fails=$((fails + 1))
    fi
}
echo "1..16"

# The truth: a profile the "real" system follows.
cat >"$tmp/true.yaml" <<'EOF'
format: 1
provenance: {tool: e2e-calib-uncertainty, date: 2026-12-02}
gpus:
  h100:
    gemm: {hbm_efficiency: 0.78}
    frontend: {request: 5ms}
EOF

# Runs: vllm bench-like loads of llama-3.1-8b on h100, prompt and output
# lengths and rates differing from run to run.
scenario() { # name input output rate prompts
    cat <<EOF
name: $1
seed: 7
model: llama-3.1-8b
hardware: {gpu: h100}
deploy: {tp: 1}
cluster: {replicas: 1}
metrics: {warmup_fraction: 0}
workload:
  vllm_bench:
    num_prompts: $5
    request_rate: $4
    dataset: random
    random_input_len: $2
    random_output_len: $3
    ignore_eos: true
EOF
}
sqlite3 "$tmp/base.db" "CREATE TABLE serving_runs (id INTEGER PRIMARY KEY,
 source TEXT NOT NULL, format TEXT NOT NULL, gpu TEXT NOT NULL, model TEXT,
 scenario TEXT NOT NULL, model_config TEXT);
 CREATE TABLE serving_stages (run INTEGER NOT NULL, stage INTEGER NOT NULL,
 requests INTEGER, failures INTEGER, rate REAL, output_tokens REAL,
 ttft_mean_ms REAL, ttft_p99_ms REAL, tpot_mean_ms REAL, itl_mean_ms REAL,
 e2e_mean_ms REAL, e2e_p99_ms REAL, requests_per_s REAL,
 PRIMARY KEY (run, stage));"
i=0
for spec in "a 256 64 4 60" "b 1024 128 2 40" "c 128 256 8 60" "d 2048 32 3 40"; do
    set -- $spec
    i=$((i + 1))
    scenario "$@" >"$tmp/$1.yaml"
    "$dsec" run "$tmp/$1.yaml" --no-db --json --calibration "$tmp/true.yaml" \
        >"$tmp/$1.json" 2>"$tmp/$1.err" || { cat "$tmp/$1.err"; exit 1; }
    # The measurement: the truth times 1 +- 2 % (a fixed pattern by run and
    # metric, the measurement error a fit must see through).
    jq -r --argjson i $i '.stages[0] |
        [.ttft_mean_ms * (1 + 0.02 * ((($i * 3 + 0) % 5) - 2) / 2),
         .tpot_mean_ms * (1 + 0.02 * ((($i * 3 + 1) % 5) - 2) / 2),
         .e2e_mean_ms * (1 + 0.02 * ((($i * 3 + 2) % 5) - 2) / 2),
         .requests] | @tsv' "$tmp/$1.json" >"$tmp/$1.meas"
    read -r ttft tpot e2e req <"$tmp/$1.meas"
    sqlite3 "$tmp/base.db" "INSERT INTO serving_runs VALUES ($i, 'synthetic-$1',
        'vllm-bench', 'h100', 'llama-3.1-8b', readfile('$tmp/$1.yaml'), NULL);
        INSERT INTO serving_stages (run, stage, requests, failures, rate,
        output_tokens, ttft_mean_ms, tpot_mean_ms, e2e_mean_ms)
        VALUES ($i, 0, $req, 0, $4, $3, $ttft, $tpot, $e2e);"
done

# A fit on all four runs, from the built-in start (0.85, 2 ms).
cp "$tmp/base.db" "$tmp/all.db"
"$calib" fit --serving --db "$tmp/all.db" --gpu h100 --quiet --no-loo \
    --params gemm.hbm_efficiency,frontend.request --out "$tmp/fit4.yaml" \
    --date 2026-12-02 >"$tmp/fit4.txt" 2>&1
ok $? "fit --serving on four runs"
get() { # db key column
    sqlite3 "$1" "SELECT $3 FROM fits WHERE kind = 'serving' AND param = '$2'"
}
within() { # value true se
    echo "$1 $2 $3" | awk '{d = $1 - $2; if (d < 0) d = -d; exit !(d <= 3 * $3 + 1e-12)}'
}
v=$(get "$tmp/all.db" gemm.hbm_efficiency value)
se=$(get "$tmp/all.db" gemm.hbm_efficiency stderr)
within "$v" 0.78 "$se"
ok $? "gemm.hbm_efficiency $v +- $se recovers 0.78 within 3 standard errors"
v=$(get "$tmp/all.db" frontend.request value)
se=$(get "$tmp/all.db" frontend.request stderr)
within "$v" 0.005 "$se"
ok $? "frontend.request $v s +- $se recovers 5 ms within 3 standard errors"

# The same fit on two threads: the same numbers (each run is simulated
# alone, on its own seed).
cp "$tmp/base.db" "$tmp/j2.db"
"$calib" fit --serving --db "$tmp/j2.db" --gpu h100 --quiet --no-loo -j 2 \
    --params gemm.hbm_efficiency,frontend.request >/dev/null 2>&1
[ "$(sqlite3 "$tmp/all.db" "SELECT param, value, stderr FROM fits ORDER BY param")" = \
    "$(sqlite3 "$tmp/j2.db" "SELECT param, value, stderr FROM fits ORDER BY param")" ]
ok $? "-j 2 gives the fit of one thread"

# Fewer runs, wider errors.
cp "$tmp/base.db" "$tmp/two.db"
sqlite3 "$tmp/two.db" "DELETE FROM serving_stages WHERE run > 2;
    DELETE FROM serving_runs WHERE id > 2"
"$calib" fit --serving --db "$tmp/two.db" --gpu h100 --quiet --no-loo \
    --params gemm.hbm_efficiency,frontend.request >"$tmp/fit2.txt" 2>&1
ok $? "fit --serving on two runs"
se2=$(get "$tmp/two.db" gemm.hbm_efficiency stderr)
se4=$(get "$tmp/all.db" gemm.hbm_efficiency stderr)
echo "$se2 $se4" | awk '{exit !($2 < $1)}'
ok $? "the standard error shrinks from two runs ($se2) to four ($se4)"

# Two keys that one run cannot tell apart (every prompt of run a has 256
# tokens: a fixed time per request and one per prompt token add alike).
cp "$tmp/base.db" "$tmp/bad.db"
sqlite3 "$tmp/bad.db" "DELETE FROM serving_stages WHERE run > 1;
    DELETE FROM serving_runs WHERE id > 1"
"$calib" fit --serving --db "$tmp/bad.db" --gpu h100 --quiet --no-loo \
    --params frontend.request,frontend.per_prompt_token >"$tmp/bad.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "not identifiable" "$tmp/bad.txt" &&
    grep -q "frontend.per_prompt_token" "$tmp/bad.txt"
ok $? "keys the runs cannot tell apart are refused, named (exit $rc)"

# The profile: loads, carries the errors; dsec run records it.
grep -q "std_errors:" "$tmp/fit4.yaml" && grep -q "structural:" "$tmp/fit4.yaml"
ok $? "the profile carries std_errors and the structural error"
"$dsec" run "$tmp/a.yaml" --db "$tmp/runs.db" --calibration "$tmp/fit4.yaml" \
    --quiet
sum=$(sha256sum "$tmp/fit4.yaml" | cut -d' ' -f1)
got=$(sqlite3 "$tmp/runs.db" "SELECT calibration_sha256 FROM runs")
[ "$got" = "$sum" ] && sqlite3 "$tmp/runs.db" "SELECT calibration FROM runs" |
    grep -q "fit4.yaml"
ok $? "the database records the profile's path and SHA-256"

# Another GPU kind's profile is refused.
sed 's/^  h100:/  a100:/' "$tmp/fit4.yaml" >"$tmp/a100.yaml"
"$dsec" run "$tmp/a.yaml" --no-db --calibration "$tmp/a100.yaml" \
    >"$tmp/wrong.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "the profile calibrates a100, not h100" "$tmp/wrong.out"
ok $? "a profile for another GPU kind is refused (exit $rc)"

# Prediction intervals.
"$dsec" run "$tmp/b.yaml" --no-db --json --calibration "$tmp/fit4.yaml" \
    --uncertainty 30 >"$tmp/pi.json" 2>"$tmp/pi.err"
ok $? "dsec run --uncertainty 30"
jq -e '.prediction_interval as $p | $p.n == 30 and $p.level == 0.95 and
    $p.params == 2 and
    ($p.e2e_ms_mean[0] <= .e2e_ms.mean and .e2e_ms.mean <= $p.e2e_ms_mean[1]) and
    ($p.ttft_ms_mean[0] <= .ttft_ms.mean and .ttft_ms.mean <= $p.ttft_ms_mean[1]) and
    ($p.e2e_ms_mean[1] > $p.e2e_ms_mean[0]) and $p.slo_attainment == null' \
    "$tmp/pi.json" >/dev/null
ok $? "the intervals hold the run at the profile's values"
"$dsec" run "$tmp/b.yaml" --no-db --json --calibration "$tmp/fit4.yaml" \
    --uncertainty 30 >"$tmp/pi2.json" 2>/dev/null
[ "$(jq -c .prediction_interval "$tmp/pi.json")" = \
    "$(jq -c .prediction_interval "$tmp/pi2.json")" ]
ok $? "the same scenario, seed and N give the same intervals"
"$dsec" run "$tmp/b.yaml" --db "$tmp/pi.db" --calibration "$tmp/fit4.yaml" \
    --uncertainty 5 --quiet &&
    [ "$(sqlite3 "$tmp/pi.db" "SELECT count(*) FROM prediction_intervals WHERE
        draws = 5 AND params = 2")" -eq 12 ]
ok $? "the database holds one prediction_intervals row per metric"
"$dsec" run "$tmp/b.yaml" --no-db --calibration "$tmp/fit4.yaml" \
    --uncertainty 4 >/dev/null 2>"$tmp/log.err" &&
    [ "$(grep -c '^dsec run: uncertainty: draw [1-4] of 4 done$' "$tmp/log.err")" -eq 4 ]
ok $? "off a terminal, a line per finished draw"
"$dsec" run "$tmp/b.yaml" --no-db --uncertainty 5 >"$tmp/none.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "carries no uncertainty" "$tmp/none.out"
ok $? "--uncertainty with the built-in calibration is refused (exit $rc)"
[ $fails -eq 0 ]
