#!/bin/sh
# End-to-end tests of the scenario's start (a time of day, docs/scenario.md
# "Time of day"), printing TAP: without start the run is as at "00:00",
# (the JSON but its wall-clock members); a diurnal cycle's phase follows start, so ten minutes at
# the peak (start at peak_at) and at the trough (twelve hours later) give
# the arrivals 1 +- amplitude times the rate does, within 4 standard
# deviations of a Poisson count; a bad time is an error at its position;
# the report's notes say when the run starts and that a 2 h cycle is a
# compressed day. Run by `make check` (top_srcdir, DSEC set by the harness)
# or by hand from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..7"

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

# scn START PERIOD PEAK: a 10-minute scenario at 2 requests/s, amplitude
# 0.9, START the start line (or empty for none).
scn() {
    printf 'name: start\n%s\nworkload:\n  synthetic:\n    duration: 10min\n' "$1"
    printf '    arrival:\n      rate_per_s: 2\n'
    printf '      diurnal: {period: %s, amplitude: 0.9, peak_at: %s}\n' "$2" "$3"
    printf '    prompt_tokens: {dist: fixed, value: 100}\n'
    printf '    output_tokens: {dist: fixed, value: 10}\n'
    printf 'model: llama-3.1-8b\nhardware: {gpu: h100}\ncluster: {replicas: 1}\n'
}
arrived() { "$dsec" run "$1" --no-db --json | jq .requests_arrived; }
# The JSON without the wall-clock members.
sim_json() { "$dsec" run "$1" --no-db --json | jq -S 'del(.wall_s, .events_per_s)'; }
# within N WANT: |N - WANT| <= 4 sqrt(WANT)
within() { awk -v n="$1" -v w="$2" 'BEGIN { exit !((n - w) ^ 2 <= 16 * w) }'; }

scn "" 24h 14h >"$tmp/none.yaml"
scn 'start: "00:00"' 24h 14h >"$tmp/zero.yaml"
sim_json "$tmp/none.yaml" >"$tmp/none.json" 2>"$tmp/err" &&
    sim_json "$tmp/zero.yaml" >"$tmp/zero.json" 2>>"$tmp/err" &&
    cmp -s "$tmp/none.json" "$tmp/zero.json"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "no start runs as start \"00:00\" (the JSON but its wall-clock members)" $st

# At the peak: 2 x 1.9 x 600 = 2280; at the trough: 2 x 0.1 x 600 = 120.
scn 'start: "14:00"' 24h 14h >"$tmp/peak.yaml"
scn 'start: "02:00"' 24h 14h >"$tmp/trough.yaml"
peak=$(arrived "$tmp/peak.yaml")
trough=$(arrived "$tmp/trough.yaml")
within "$peak" 2280
ok "start at the peak: $peak arrivals in 10 min (2280 expected)" $?
within "$trough" 120
ok "start at the trough: $trough arrivals in 10 min (120 expected)" $?

# A 2 h cycle: 09:00 is 3/8 of it, 45 min; peak_at 45min is then the peak.
scn 'start: "09:00"' 2h 45min >"$tmp/comp.yaml"
comp=$(arrived "$tmp/comp.yaml")
within "$comp" 2280
ok "a compressed day's phase scales with the period: $comp arrivals" $?

scn 'start: "24:00"' 24h 14h >"$tmp/bad.yaml"
"$dsec" run "$tmp/bad.yaml" --no-db >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -qF "bad.yaml:2:8: error: start: expected a time of day \"HH:MM\" or \"HH:MM:SS\" (24-hour, e.g. \"09:00\"), got '24:00'" "$tmp/err"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "start \"24:00\": an error at its position, exit 1" $st

"$dsec" run "$tmp/comp.yaml" --db "$tmp/r.db" --quiet &&
    "$dsec" report --latest --db "$tmp/r.db" --format md --out "$tmp/rep" \
        >/dev/null 2>"$tmp/err"
st=$?
grep -q "^- The run starts at 09:00 (the scenario's start)" "$tmp/rep/report.md" &&
    grep -q "^- A compressed day: the workload's daily cycle lasts 2 h, 12 times shorter" \
        "$tmp/rep/report.md" || st=1
[ $st -ne 0 ] && show "$tmp/err" "$tmp/rep/report.md"
ok "the report's notes: the start and the compressed day" $st

"$dsec" help scenario | grep -q '^ *start: string'
ok "dsec help scenario lists start" $?

[ "$fails" -eq 0 ]
