#!/bin/sh
# Runs each libFuzzer target given (tests/fuzz-*) for FUZZ_SECONDS (default
# 60) on a corpus in fuzz-corpus/NAME, seeded from the test data the first
# time; `make fuzz` calls it (docs/build.md, Fuzzing). A target whose first
# byte picks a parser gets each seed once per parser it fits. FUZZ_SEED, when
# set, fixes libFuzzer's random seed, so that a short run (CI's) tries the
# same inputs every time, however many of them it reaches; unset, each run
# explores anew. Exits 1 when a target finds a crash, a leak or a time-out
# (the reproducer is left in fuzz-corpus/NAME-crash-*).
set -u
: "${top_srcdir:=.}"
: "${FUZZ_SECONDS:=60}"
: "${FUZZ_SEED:=}"
d=$top_srcdir/tests/data
failed=0

seed() { # seed DIR SELECTOR FILE...: copies each FILE into DIR, prefixed
    dir=$1 sel=$2
    shift 2
    for f in "$@"; do
        [ -f "$f" ] || continue
        { printf "$sel"; cat "$f"; } >"$dir/$(basename "$f").$(printf '%s' "$sel" | od -An -tx1 | tr -d ' ')"
    done
}

for t in "$@"; do
    name=$(basename "$t")
    dir=fuzz-corpus/$name
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir"
        case $name in
        fuzz-scn)
            cp "$top_srcdir"/scenarios/*.yaml "$d"/scn/*.yaml "$dir"/ 2>/dev/null ;;
        fuzz-scaler)
            seed "$dir" '\000' "$d"/scaler/*.prom "$d"/scaler/*.txt
            seed "$dir" '\001' "$d"/scaler/*.json
            printf '\002{"spec":{"replicas":3},"status":{"replicas":2}}' >"$dir/scale"
            seed "$dir" '\003' "$d"/scaler/*.yaml ;;
        fuzz-trace)
            seed "$dir" '\000' "$d"/trace/*.csv
            seed "$dir" '\001' "$d"/traces/burstgpt-*.csv
            seed "$dir" '\002' "$d"/traces/mooncake-*.jsonl ;;
        fuzz-calib)
            seed "$dir" '\000' "$d"/calib/*.log
            seed "$dir" '\001' "$d"/calib-scenario/*.json ;;
        esac
    fi
    echo "== $name: $FUZZ_SECONDS s on $(ls "$dir" | wc -l) seeds${FUZZ_SEED:+, random seed $FUZZ_SEED}"
    if ! "$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        -print_final_stats=1 -artifact_prefix="fuzz-corpus/$name-" "$dir" \
        >"fuzz-corpus/$name.log" 2>&1; then
        tail -40 "fuzz-corpus/$name.log"
        echo "FAIL: $name (reproducer: fuzz-corpus/$name-*)"
        failed=1
    else
        grep -E '^stat::number_of_executed_units' "fuzz-corpus/$name.log"
    fi
done
exit $failed
