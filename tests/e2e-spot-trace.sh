#!/bin/sh
# End-to-end tests of pools[].interruptions.trace (docs/orchestrator.md,
# "Spot interruptions"; format in models/cluster/spot-trace.c) on the
# bundled scenarios/spot-trace.yaml cut to 15 minutes, printing TAP: a
# trace of N rows inside the run gives exactly N interruptions of the
# rows' GPUs, rows past the run's end none; rows of one replica's GPUs run
# the same as `at:` at the same times (both take the oldest serving
# replica), so the results match member for member; a row of two
# replicas' GPUs interrupts two; bad traces name file:line:col and exit 1.
# Run by `make check` (top_srcdir, DSEC set by the harness) or by hand
# from the build directory.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
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
show() { sed 's/^/# /' "$@"; }
# interruption FILE NAME: member NAME of the JSON's interruption object
# (empty when there is none).
interruption() {
    sed -n '/^  "interruption": {/,/^  }/p' "$1" |
        sed -n "s/^ *\"$2\": \([-0-9.e+]*\),*$/\1/p"
}

base=$srcdir/scenarios/spot-trace.yaml
# scn NAME INTERRUPTIONS: the bundled scenario, 15 minutes of arrivals,
# with pools[0].interruptions set to the flow mapping INTERRUPTIONS, as
# $tmp/NAME.yaml.
scn() {
    sed -e "s/duration: 1h/duration: 15min/" \
        -e "s|interruptions: {.*}|interruptions: $2|" "$base" \
        >"$tmp/$1.yaml"
}
# run NAME: dsec run --json of $tmp/NAME.yaml into $tmp/NAME.json, without
# the members that are no result (wall time) or name the file.
run() {
    $dsec run --no-db --json "$tmp/$1.yaml" 2>"$tmp/$1.err" |
        grep -v -E '"(wall_s|events_per_s|scenario)":' >"$tmp/$1.json"
}

# Three instances of 4 GPUs (one TP4 replica each) inside the run, one
# past its end (the arrivals stop at 15 min; the run ends soon after).
printf 'time_s,gpus\n200,4\n400,4\n600.25,4\n7200,4\n' >"$tmp/four.csv"
scn trace "{trace: four.csv, notice: 2min}"
run trace
st=$?
ev=$(interruption "$tmp/trace.json" events)
gp=$(interruption "$tmp/trace.json" gpus)
[ $st -eq 0 ] && [ "$ev" = 3 ] && [ "$gp" = 12 ]
ok "3 rows of 4 GPUs inside the run: 3 interruptions, 12 GPUs (got $ev, $gp)" $? ||
    show "$tmp/trace.err"

scn at "{at: [200s, 400s, 600.25s, 7200s], notice: 2min}"
run at
cmp -s "$tmp/at.json" "$tmp/trace.json"
ok "the same times by at: the same results, member for member" $? ||
    diff "$tmp/at.json" "$tmp/trace.json" | head -n 20 | show

# The same trace shifted by 100 s is another run: the times are used.
printf '300,4\n500,4\n700.25,4\n' >"$tmp/later.csv"
scn later "{trace: later.csv, notice: 2min}"
run later
ev=$(interruption "$tmp/later.json" events)
! cmp -s "$tmp/later.json" "$tmp/trace.json" && [ "$ev" = 3 ]
ok "the rows 100 s later: 3 interruptions, other results" $?

# One instance of 8 GPUs: the two oldest serving TP4 replicas.
printf '400,8\n' >"$tmp/eight.csv"
scn eight "{trace: eight.csv, notice: 2min}"
run eight
ev=$(interruption "$tmp/eight.json" events)
gp=$(interruption "$tmp/eight.json" gpus)
[ "$ev" = 2 ] && [ "$gp" = 8 ]
ok "one row of 8 GPUs: 2 TP4 replicas interrupted (got $ev, $gp)" $?

# Only rows past the end: no interruption, the run of no interruptions.
printf '7200,4\n' >"$tmp/late.csv"
scn late "{trace: late.csv, notice: 2min}"
run late
scn none "{at: [7200s], notice: 2min}"
run none
[ -z "$(interruption "$tmp/late.json" events)" ] &&
    cmp -s "$tmp/late.json" "$tmp/none.json"
ok "a row past the run's end interrupts nothing" $?

# bad NAME CONTENT WANT: the trace CONTENT refused with the message WANT
# (after "$tmp/NAME.csv:"), the key's own error after it, exit 1.
bad() {
    printf "$2" >"$tmp/$1.csv"
    scn "$1" "{trace: $1.csv}"
    $dsec validate "$tmp/$1.yaml" >/dev/null 2>"$tmp/err"
    st=$?
    line=$(grep -n 'trace:' "$tmp/$1.yaml" | cut -d: -f1)
    col=$(grep 'trace:' "$tmp/$1.yaml" | awk '{ print index($0, "'"$1"'.csv") }')
    [ $st -eq 1 ] && grep -qxF "$tmp/$1.csv:$3" "$tmp/err" &&
        grep -qxF "$tmp/$1.yaml:$line:$col: error: pools[0].interruptions.trace: cannot use trace '$tmp/$1.csv'" "$tmp/err"
    ok "$4" $? || show "$tmp/err"
}
bad word 'time_s,gpus\n100,4\nsoon,4\n' \
    "3:1: error: time_s: expected seconds since the start (a decimal number, at most 9 fractional digits, below 3.16224e+07 s), got 'soon'" \
    "a time that is no number: file:line:col"
bad neg '100,4\n -5,4\n' \
    "2:2: error: time_s: -5 is negative (seconds since the start, >= 0)" \
    "a negative time: file:line:col"
bad unsorted '100,4\n300,4\n200,4\n' \
    "3:1: error: time_s: 200 before the previous row's 300 (sort the trace by time)" \
    "rows out of time order refused, not sorted"
bad zero '100,0\n' \
    "1:5: error: gpus: expected an integer in [1, 16] (the pool's capacity_gpus), got '0'" \
    "an instance of 0 GPUs"
bad big '100,32\n' \
    "1:5: error: gpus: expected an integer in [1, 16] (the pool's capacity_gpus), got '32'" \
    "an instance beyond the pool's capacity"
bad one '100\n' \
    "1:4: error: expected 2 fields 'time_s,gpus', got 1" \
    "a row without its GPUs"
bad empty 'time_s,gpus\n' \
    "1:1: error: no interruptions: expected rows 'time_s,gpus'" \
    "a header alone is no trace"

scn dev "{trace: /dev/zero}"
$dsec validate "$tmp/dev.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] &&
    grep -qxF "/dev/zero: error: cannot read trace: not a regular file" "$tmp/err"
ok "/dev/zero refused: not a regular file" $? || show "$tmp/err"

scn gone "{trace: gone.csv}"
$dsec validate "$tmp/gone.yaml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] &&
    grep -qxF "$tmp/gone.csv: error: cannot open trace: No such file or directory" "$tmp/err"
ok "a missing trace, relative to the scenario file" $? || show "$tmp/err"

exit $((fails > 0))
