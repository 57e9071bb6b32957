#!/bin/sh
# Prints the tables of docs/orchestrator.md "Mechanisms on and off": each
# bundled scenario of an orchestrator mechanism run as shipped and with the
# mechanism switched off (one key changed), same seed, as Markdown rows.
#
#   tests/orchestrator-tables.sh [DSEC]     (default: _build/dsec, then dsec)
#
# Needs jq. Run from the source tree.
set -eu
dsec=${1:-}
if [ -z "$dsec" ]; then
    if [ -x _build/dsec ]; then dsec=_build/dsec; else dsec=dsec; fi
fi
command -v jq >/dev/null || {
    echo "orchestrator-tables: jq is needed" >&2
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The traces the scenarios name, relative to the copies made here.
cp -R scenarios/traces "$tmp/traces"

row() { # row LABEL FILE: one Markdown row of FILE's results
    "$dsec" run "$2" --no-db --json --quiet >"$tmp/out.json" 2>/dev/null ||
        "$dsec" run "$2" --no-db --json >"$tmp/out.json"
    jq -r --arg l "$1" '
      def f(d): if . == null then "n/a" else (. * pow(10; d) | round) / pow(10; d) | tostring end;
      "| \($l) | \(.ttft_ms.mean / 1000 | f(2)) | \(.ttft_ms.p99 / 1000 | f(2)) | \(.e2e_ms.mean / 1000 | f(1)) | \(.e2e_ms.p99 / 1000 | f(1)) | \(.tpot_ms.p99 | f(1)) | \(.throughput_tokens_per_s | f(0)) | \(.preemptions) | \(.requests_retried) | \((.slo_attainment // null) | if . == null then "n/a" else (. * 100 | f(1)) + " %" end) | \(.gpu_hours | f(2)) | \(.gpu_hours_by_state.draining | f(3)) | \(.cost_usd | f(2)) |"' \
        "$tmp/out.json"
}

# table SCENARIO TITLE OFF [BASE]: the scenario (with the sed script BASE
# applied, if given), then with the sed script OFF applied too.
table() {
    printf '\n%s (`scenarios/%s.yaml`%s):\n\n' "$2" "$1" \
        "${4:+ with \`$4\`}"
    echo "| run | TTFT mean (s) | TTFT p99 (s) | E2E mean (s) | E2E p99 (s) | TPOT p99 (ms) | tokens/s | preemptions | restarted | SLO met | GPU-h | GPU-h draining | cost (USD) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    sed "${4:-}" "scenarios/$1.yaml" >"$tmp/on.yaml"
    sed "$3" "$tmp/on.yaml" >"$tmp/off.yaml"
    if cmp -s "$tmp/on.yaml" "$tmp/off.yaml"; then
        echo "orchestrator-tables: $3 changed nothing in $1" >&2
        exit 1
    fi
    row "mechanism on" "$tmp/on.yaml"
    row "mechanism off" "$tmp/off.yaml"
}

table kv-offload-pressure "Tiered KV under memory pressure" \
    's/kv_cache_offload: true/kv_cache_offload: false/'
table kv-offload-pressure \
    "The same with prefix caching on (vLLM V1's default)" \
    's/kv_cache_offload: true/kv_cache_offload: false/' \
    's/prefix_caching: false/prefix_caching: true/'
table migrate-scale-in "Live migration on scale-in" \
    's/drain: migrate/drain: finish/'
table reclaim-flash "A reclaim during a flash crowd" \
    '/^    reclaim:$/d; /{at: 45min, gpus: 16/d; /owner_demand:/d'
table spot-pool "A spot pool with interruptions" '/interruptions:/d'
table spot-pool "The same pool on demand (no spot discount)" \
    '/interruptions:/d; s/preemptible: true/preemptible: false/'
table spot-trace "A spot pool interrupted from a trace of 8-GPU instances" \
    '/interruptions:/d'
table hetero-pools "H100 TP4 then H200 TP2 pools; off: all 32 GPUs H100 at TP4" \
    '/    deploy: {tp:/d; s/gpu: h200/gpu: h100/'

# zero_row LABEL FILE: a row of the scale-to-zero table (GPU-hours and
# cost against TTFT and the cold-start waits).
zero_row() {
    "$dsec" run "$2" --no-db --json --quiet >"$tmp/out.json" 2>/dev/null ||
        "$dsec" run "$2" --no-db --json >"$tmp/out.json"
    jq -r --arg l "$1" '
      def f(d): if . == null then "n/a" else (. * pow(10; d) | round) / pow(10; d) | tostring end;
      "| \($l) | \(.gpu_hours | f(2)) | \(.cost_usd | f(2)) | \(.ttft_ms.mean / 1000 | f(2)) | \(.ttft_ms.p99 / 1000 | f(2)) | \(.cold_starts) | \(.cold_start_waits // 0) | \(.cold_start_wait_s_mean // null | f(1)) | \((.slo_attainment // null) | if . == null then "n/a" else (. * 100 | f(1)) + " %" end) |"' \
        "$tmp/out.json"
}

# table_zero SCENARIO TITLE OFF: as table, with zero_row's columns.
table_zero() {
    printf '\n%s (`scenarios/%s.yaml`):\n\n' "$2" "$1"
    echo "| run | GPU-hours | cost (USD) | TTFT mean (s) | TTFT p99 (s) | cold starts | cold-start waits | their wait mean (s) | SLO met |"
    echo "|---|---|---|---|---|---|---|---|---|"
    cp "scenarios/$1.yaml" "$tmp/on.yaml"
    sed "$3" "$tmp/on.yaml" >"$tmp/off.yaml"
    if cmp -s "$tmp/on.yaml" "$tmp/off.yaml"; then
        echo "orchestrator-tables: $3 changed nothing in $1" >&2
        exit 1
    fi
    zero_row "min_gpus 0" "$tmp/on.yaml"
    zero_row "min_gpus 1" "$tmp/off.yaml"
}

table_zero scale-to-zero "Scale to zero against a floor of one replica" \
    's/min_gpus: 0/min_gpus: 1/; /scale_to_zero_grace/d'
