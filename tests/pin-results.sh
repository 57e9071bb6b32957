#!/bin/sh
# Pins what dsec computes: every bundled scenario and bench input that runs
# without downloaded data, through every output it has (the text table, the
# JSON with the per-replica series, the SQLite database), plus the analytic
# commands (step, strategies, train, plan) and two sweeps. Each output is
# reduced to a SHA-256 after removing what is not a result (wall time,
# events per second, the run's start time and program version); the
# digests are in tests/data/pinned/digests. A change of structure must leave
# every digest as it is; a change of physics updates them in the same
# commit and says why:
#
#   tests/pin-results.sh --update     rewrite tests/data/pinned/digests
#
# On a mismatch the differing outputs are kept in $PIN_KEEP (default: a
# temporary directory, printed) for inspection.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
# Run from the source directory, so that the paths the outputs record
# ("scenarios/x.yaml") do not depend on where the build tree is.
case "$dsec" in /*) ;; *) dsec=$(pwd)/$dsec ;; esac
update=0
[ "${1:-}" = --update ] && update=1
if [ -n "${DSEC_SAN_CFLAGS:-}" ]; then
    echo "1..0 # SKIP sanitizer build: the plain build pins the same code"
    exit 0
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "1..0 # SKIP sqlite3 (the command-line shell) not installed"
    exit 0
fi
out=${PIN_KEEP:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
pins="$(cd "$srcdir" && pwd)/tests/data/pinned/digests"
cd "$srcdir" || exit 1
srcdir=.
got="$out/digests"
: >"$got"


# digest NAME FILE: one line "NAME sha256" into $got.
digest() {
    printf '%s %s\n' "$1" "$(sha256sum <"$2" | cut -d' ' -f1)" >>"$got"
}

# The results database without what is not a result, as SQL text.
dbtext() {
    cp "$1" "$out/tmp.db"
    sqlite3 "$out/tmp.db" "UPDATE runs SET started_at = '', wall_s = 0,
        program_version = '';" 2>/dev/null
    sqlite3 "$out/tmp.db" "UPDATE summary SET value = NULL
        WHERE metric IN ('wall_s', 'events_per_s');" 2>/dev/null
    sqlite3 "$out/tmp.db" "UPDATE sweeps SET created_at = '';" 2>/dev/null
    # A sweep fast-forwards steady decode (docs/performance.md): its event
    # counts are the engine's, not results.
    [ "${2:-}" = no-events ] && sqlite3 "$out/tmp.db" "UPDATE summary SET
        value = NULL WHERE metric = 'sim_events';" 2>/dev/null
    sqlite3 "$out/tmp.db" .dump
    rm -f "$out/tmp.db"
}

run_scenario() { # run_scenario NAME FILE
    n=$1
    rm -f "$out/$n.db"
    # --no-fast-forward: today's output byte for byte, event counts too
    # (tests/e2e-fast-forward.sh compares it with the default).
    $dsec run --db "$out/$n.db" --json --series-replicas --no-fast-forward \
        "$2" 2>/dev/null |
        grep -v -E '"(wall_s|events_per_s)":' >"$out/$n.json"
    digest "$n.json" "$out/$n.json"
    dbtext "$out/$n.db" >"$out/$n.sql"
    digest "$n.sql" "$out/$n.sql"
    rm -f "$out/$n.db"
    # With its notes (stderr), but not the progress lines a run that takes
    # over 10 s of wall-clock time prints there (a loaded machine).
    $dsec run --no-db --no-fast-forward "$2" 2>&1 |
        grep -v -E '^wall time|^dsec run: +([0-9.]+%|[0-9]+ requests) ' \
            >"$out/$n.txt"
    digest "$n.txt" "$out/$n.txt"
}

for f in "$srcdir"/scenarios/*.yaml "$srcdir"/bench/mm4.yaml \
    "$srcdir"/bench/llama8b.yaml "$srcdir"/bench/kv-heavy.yaml \
    "$srcdir"/bench/prefix-offload.yaml; do
    n=$(basename "$f" .yaml)
    case "$f" in
    # These replay downloaded traces (their headers say where from).
    */azure-conv-trace.yaml | */mooncake-conversation.yaml | \
        */mooncake-offload.yaml) continue ;;
    esac
    case "$f" in */bench/*) n="bench-$n" ;; esac
    run_scenario "$n" "$f"
done

analytic() { # analytic NAME ARGS...
    n=$1
    shift
    $dsec "$@" >"$out/$n.raw" 2>&1
    echo "exit $?" >>"$out/$n.raw"
    mv "$out/$n.raw" "$out/$n.out"
    digest "$n.out" "$out/$n.out"
}
analytic step-8b-h100 step llama-3.1-8b --gpu h100 --json
analytic step-70b-sat step llama-2-70b --gpu h200 --tp 8 --dtype bf16 \
    --saturate --context 2048 --json
analytic step-v3-sat step deepseek-v3 --gpu h200 --tp 8 --dtype fp8 --saturate \
    --context 2048
analytic strat-v3-16 strategies deepseek-v3 --gpu h200 --gpus 16
analytic strat-8b-json strategies llama-3.1-8b --gpu h100 --gpus 2 --json
analytic strat-8b-train strategies llama-3.1-8b --gpu h100 --gpus 16 --train
analytic train-405b train llama-3.1-405b --gpu h100 --gpus 1024 --json
analytic plan-seed plan "$srcdir/scenarios/seed-dsec.yaml" --quiet --json \
    --db "$out/plan.db" -j 2

sweep() { # sweep NAME FILE
    rm -f "$out/$1.db"
    $dsec sweep "$2" --db "$out/$1.db" --quiet -j 1 --no-mpi >/dev/null 2>&1
    dbtext "$out/$1.db" no-events >"$out/$1.sql"
    digest "$1.sql" "$out/$1.sql"
    rm -f "$out/$1.db"
}
sweep sweep-bench "$srcdir/bench/sweep.yaml"
sweep sweep-routing "$srcdir/scenarios/sweeps/routing.yaml"

if [ $update -eq 1 ]; then
    cp "$got" "$pins"
    echo "pin-results: wrote $(wc -l <"$pins") digests to $pins"
    exit 0
fi
if diff -u "$pins" "$got" >"$out/diff"; then
    echo "1..1"
    echo "ok 1 - $(wc -l <"$got") outputs identical to tests/data/pinned/digests"
    [ -z "${PIN_KEEP:-}" ] && rm -rf "$out"
    exit 0
fi
echo "1..1"
echo "not ok 1 - outputs differ from tests/data/pinned/digests (kept in $out)"
sed 's/^/# /' "$out/diff"
exit 1
