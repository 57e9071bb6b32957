#!/bin/sh
# dsec, with its built-in defaults, against real vLLM benchmark runs: each
# run's inference-perf configuration becomes a dsec scenario through
# `dsec-calib scenario`, dsec runs it, and every load stage's measured
# latencies are compared with dsec's (signed errors, dsec / measured - 1).
#
#   tests/validate-vllm.sh [--markdown] [RUNS]
#
# RUNS is a folder in the layout of the vLLM H100 runs this page was written
# for: experiments.csv (experiment, model config folder, workload, overload
# flag), experiments/EXP/{exp-config.yaml,results/} and
# models/NAME/config.json. Default: $VLLM_RUNS, else
# $top_srcdir/../shared/calibration/vllm-h100. Without it the script skips
# (TAP "1..0 # SKIP", exit 0) with the reason.
#
# Output: TAP, one test per error bound (a regression guard around what
# docs/validation.md reports, not the target), the table as comments; with
# --markdown, the table and the summary as Markdown for docs/validation.md
# (`make validate` prints that).
#
# What is compared, per stage (inference-perf's stage_N_lifecycle_metrics,
# successes only, latencies in seconds):
#   E2E       request_latency mean, p90, p99     vs dsec stages[].e2e_*_ms
#   TTFT      time_to_first_token mean, p90, p99 vs dsec stages[].ttft_*_ms
#   TPOT      (E2E mean - TTFT mean) / (output_len - 1), the per-token time
#             (inference-perf's own time_per_output_token is per streamed
#             chunk, about half of it)          vs dsec stages[].tpot_mean_ms
#   ITL       inter_token_latency p90, p99 (per chunk: about half the gaps
#             are near zero, so its p90 is near the per-token p80; read
#             these columns as indicative)      vs dsec stages[].itl_*_ms
#   req/s     successes.throughput.requests_per_sec vs dsec stages[].requests_per_s
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-$builddir/dsec}
calib=${DSEC_CALIB:-$builddir/dsec-calib}
markdown=0
if [ "${1:-}" = --markdown ]; then
    markdown=1
    shift
fi
runs=${1:-${VLLM_RUNS:-$srcdir/../shared/calibration/vllm-h100}}

skip() {
    if [ $markdown -eq 1 ]; then
        echo "validate: skipped: $1" >&2
    else
        echo "1..0 # SKIP $1"
    fi
    exit 0
}
[ -f "$runs/experiments.csv" ] ||
    skip "no benchmark runs at $runs (set VLLM_RUNS to a folder of runs)"
command -v jq >/dev/null 2>&1 || skip "jq is not installed"
[ -x "$dsec" ] || skip "no dsec binary at $dsec"
[ -x "$calib" ] || skip "no dsec-calib binary at $calib"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="$tmp/rows"
: >"$rows"
bad=0

# One line per stage into $rows, tab-separated:
# exp stage overload model tp rate  then measured/dsec pairs.
tail -n +2 "$runs/experiments.csv" | while IFS=, read -r exp mdir wl over; do
    d="$runs/experiments/$exp"
    cfg="$runs/models/$mdir/config.json"
    if ! "$calib" scenario "$d" --model-config "$cfg" --gpu h100 \
        >"$tmp/$exp.yaml" 2>"$tmp/$exp.cerr"; then
        echo "# $exp: dsec-calib scenario failed:"
        sed 's/^/#   /' "$tmp/$exp.cerr"
        echo "$exp" >>"$tmp/failed"
        continue
    fi
    if ! "$dsec" run "$tmp/$exp.yaml" --no-db --json >"$tmp/$exp.json" \
        2>"$tmp/$exp.err"; then
        echo "# $exp: dsec run failed:"
        sed 's/^/#   /' "$tmp/$exp.err"
        echo "$exp" >>"$tmp/failed"
        continue
    fi
    out=$(sed -n 's/^ *output_len: *\([0-9]*\).*/\1/p' "$d/results/config.yaml" |
        head -n 1)
    tp=$(sed -n 's/^tensor_parallelism: *\([0-9]*\).*/\1/p' "$d/exp-config.yaml")
    k=0
    while [ -f "$d/results/stage_${k}_lifecycle_metrics.json" ]; do
        m="$d/results/stage_${k}_lifecycle_metrics.json"
        jq -r --arg exp "$exp" --arg over "$over" --arg mdir "$mdir" \
            --arg tp "$tp" --argjson k "$k" --argjson out "$out" \
            --slurpfile s "$tmp/$exp.json" '
            def ms: if . == null then "nan" else . * 1000 end;
            def v: if . == null then "nan" else . end;
            .successes.latency as $l
            | $s[0].stages[$k] as $d
            | [$exp, $k, $over, $mdir, $tp, .load_summary.requested_rate,
               .successes.count, (.failures.count // 0),
               ($d.completed | v), ($d.timeouts | v),
               ($l.request_latency.mean | ms), ($d.e2e_mean_ms | v),
               ($l.request_latency.p90 | ms), ($d.e2e_p90_ms | v),
               ($l.request_latency.p99 | ms), ($d.e2e_p99_ms | v),
               ($l.time_to_first_token.mean | ms), ($d.ttft_mean_ms | v),
               ($l.time_to_first_token.p90 | ms), ($d.ttft_p90_ms | v),
               ($l.time_to_first_token.p99 | ms), ($d.ttft_p99_ms | v),
               ((($l.request_latency.mean - $l.time_to_first_token.mean)
                 / ($out - 1)) | ms), ($d.tpot_mean_ms | v),
               ($l.inter_token_latency.p90 | ms), ($d.itl_p90_ms | v),
               ($l.inter_token_latency.p99 | ms), ($d.itl_p99_ms | v),
               .successes.throughput.requests_per_sec,
               ($d.requests_per_s | v)]
            | @tsv' "$m" >>"$rows"
        k=$((k + 1))
    done
done

[ -f "$tmp/failed" ] && bad=1

# The table and the mean absolute errors over the stages of runs that were
# not overloaded (overload flag 0: at most 10 % of requests failed).
awk -F '\t' -v md=$markdown -v bad=$bad '
function err(d, m) { return (d == "nan" || m == "nan" || m == 0) ? "nan" : 100 * (d / m - 1) }
function e(x) { return x == "nan" ? "–" : sprintf("%+.1f %%", x) }
function f(x, p) { return x == "nan" ? "–" : sprintf(p, x) }
function acc(name, x) { if (x != "nan") { sum[name] += (x < 0 ? -x : x); cnt[name]++ } }
BEGIN {
    hdr = "| run | stage | rate/s | ok / failed (real) | ok / timed out (dsec) | E2E mean ms | E2E p90 | E2E p99 | TTFT mean ms | TTFT p90 | TTFT p99 | TPOT mean ms | ITL p90 | ITL p99 | req/s |"
    sep = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if (md) { print hdr; print sep }
}
{
    run = $1; sub(/^[0-9]+-[0-9]+-/, "", run)
    if ($3 == 1) run = run " (overload)"
    line = sprintf("| %s | %d | %g | %d / %d | %s / %s | %s → %s (%s) | %s | %s | %s → %s (%s) | %s | %s | %s → %s (%s) | %s | %s | %s |",
        run, $2, $6, $7, $8, $9, $10,
        f($11, "%.0f"), f($12, "%.0f"), e(err($12, $11)), e(err($14, $13)), e(err($16, $15)),
        f($17, "%.1f"), f($18, "%.1f"), e(err($18, $17)), e(err($20, $19)), e(err($22, $21)),
        f($23, "%.2f"), f($24, "%.2f"), e(err($24, $23)), e(err($26, $25)), e(err($28, $27)),
        e(err($30, $29)))
    if (md) print line; else print "# " line
    if ($3 == 0) {
        acc("e2e", err($12, $11)); acc("ttft", err($18, $17)); acc("tpot", err($24, $23))
        acc("e2e_p99", err($16, $15)); acc("ttft_p99", err($22, $21)); acc("rps", err($30, $29))
    }
    n++
}
END {
    split("e2e ttft tpot e2e_p99 ttft_p99 rps", keys, " ")
    split("E2E mean,TTFT mean,TPOT mean,E2E p99,TTFT p99,requests/s", names, ",")
    # Regression bounds on the mean absolute error (percent): what this
    # page reports, with room for seed noise; the targets are 7 % (E2E,
    # TPOT) and 20 % (TTFT).
    bound["e2e"] = 10; bound["ttft"] = 25; bound["tpot"] = 6
    bound["e2e_p99"] = 14; bound["ttft_p99"] = 30; bound["rps"] = 4
    if (md) {
        print ""
        printf "Mean absolute error over the %d stages of runs that were not overloaded:", cnt["e2e"]
        for (i = 1; i <= 6; i++)
            printf " %s %.1f %%%s", names[i], cnt[keys[i]] ? sum[keys[i]] / cnt[keys[i]] : 0, i < 6 ? "," : ".\n"
        exit 0
    }
    printf "1..%d\n", 7
    printf "%s 1 - every run converted and ran\n", bad ? "not ok" : "ok"
    for (i = 1; i <= 6; i++) {
        k = keys[i]; m = cnt[k] ? sum[k] / cnt[k] : 1e9
        printf "%s %d - %s mean absolute error %.1f %% <= %d %% (%d stages)\n",
            m <= bound[k] ? "ok" : "not ok", i + 1, names[i], m, bound[k], cnt[k]
    }
}' "$rows"
