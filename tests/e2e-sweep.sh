#!/bin/sh
# End-to-end tests of `dsec sweep`, printing TAP: a grid runs on two
# threads; running it again runs nothing; a point's run equals `dsec run`
# of its stored scenario; kill -9 and SIGINT in the middle lose and
# duplicate nothing, and a rerun completes the grid; under mpirun (when dsec
# was built with MPI) the results equal a threads-only run; a bad key path
# is reported at its axis; --json counts the infeasible points recorded by
# this invocation and in all; --help lists every option. Run by `make
# check` (top_srcdir, top_builddir, DSEC set by the harness) or by hand from
# the build directory. Needs the sqlite3 program. No assertion depends on timing: the interrupted sweeps
# are checked for invariants that hold wherever the signal lands.
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..18"

. "$srcdir/tests/tap.sh"
q() { sqlite3 -batch -noheader "$@"; }

if ! command -v sqlite3 >/dev/null 2>&1; then
    while [ $n -lt 17 ]; do skip "sweep test $((n + 1))" "no sqlite3 program"; done
    exit 0
fi

dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
data=$(cd "$srcdir/tests/data/sweep" && pwd)
small=$data/small.yaml
slow=$data/slow.yaml

# Every run belongs to exactly one point, and no key is recorded twice.
consistent() { # consistent DB
    [ "$(q "$1" "SELECT count(*) FROM runs WHERE id NOT IN
        (SELECT run_id FROM sweep_points WHERE run_id IS NOT NULL)")" = 0 ] &&
        [ "$(q "$1" "SELECT count(*) - count(DISTINCT point_key)
            FROM sweep_points")" = 0 ] &&
        [ "$(q "$1" "SELECT count(*) FROM sweep_points WHERE status = 'ok'")" = \
            "$(q "$1" "SELECT count(*) FROM runs")" ]
}

# The results of a database by point key, less ids, clocks and wall time.
dump() { # dump DB
    q "$1" "SELECT p.point_key, s.metric, quote(s.value) FROM sweep_points p
        JOIN summary s ON s.run_id = p.run_id
        WHERE s.metric NOT IN ('wall_s', 'events_per_s') ORDER BY 1, 2"
    q "$1" "SELECT p.point_key, r.seed, r.scenario_text, r.status
        FROM sweep_points p JOIN runs r ON r.id = p.run_id ORDER BY 1"
    q "$1" "SELECT p.point_key, t.t_start_s, t.arrivals, t.completions,
        quote(t.queue_len_mean), quote(t.e2e_p99_ms) FROM sweep_points p
        JOIN timeseries t ON t.run_id = p.run_id ORDER BY 1, 2"
}

# Waits (at most about a minute) until the sweep has recorded a point.
wait_first() { # wait_first DB
    i=0
    while [ $i -lt 1200 ]; do
        if [ -s "$1" ] &&
            [ "$(q "$1" "SELECT count(*) FROM sweep_points" 2>/dev/null)" \
                -ge 1 ] 2>/dev/null; then
            return 0
        fi
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# 1-3: a grid on two threads, then again.
(cd "$tmp" && $dsec sweep "$small" -j 2 --db a.db) >"$tmp/out" 2>"$tmp/err"
st=$?
grep -q '^sweep small: 12 points, 12 run now, 0 recorded before; a.db, sweep 1$' \
    "$tmp/out" || st=1
[ "$(q "$tmp/a.db" "SELECT count(*) FROM runs")" = 12 ] || st=1
[ $st -ne 0 ] && show "$tmp/out" "$tmp/err"
ok "a 2 x 3 x 2 grid runs 12 points on 2 threads" $st

# The table: a header naming the axes, then the rows sorted by the axes.
st=0
grep -qE '^server.concurrency +cluster.replicas +seed +SLO % +TTFT p99 ms +TPOT p99 ms +GPU-h +cost \$$' \
    "$tmp/out" || st=1
[ "$(grep -cE '^ +[12] +[123] +[12] ' "$tmp/out")" = 12 ] || st=1
sed -n '4p' "$tmp/out" | grep -qE '^ +1 +1 +1 ' || st=1
sed -n '15p' "$tmp/out" | grep -qE '^ +2 +3 +2 ' || st=1
[ $st -ne 0 ] && show "$tmp/out"
ok "the table has a column per axis and a row per point, sorted" $st

(cd "$tmp" && $dsec sweep "$small" -j 2 --db a.db --json) >"$tmp/j" 2>"$tmp/err"
st=$?
grep -q '"ran": 0' "$tmp/j" && grep -q '"recorded_before": 12' "$tmp/j" &&
    grep -q '"remaining": 0' "$tmp/j" || st=1
[ "$(q "$tmp/a.db" "SELECT count(*) FROM runs")" = 12 ] || st=1
[ "$(q "$tmp/a.db" "SELECT count(*) FROM sweeps")" = 1 ] || st=1
[ $st -ne 0 ] && show "$tmp/j" "$tmp/err"
ok "running it again runs nothing (--json says ran 0)" $st

# 4: a point is exactly `dsec run` of the scenario stored with it.
q "$tmp/a.db" "SELECT r.scenario_text FROM sweep_points p JOIN runs r
    ON r.id = p.run_id WHERE p.seq = 7" >"$tmp/p7.yaml"
st=0
(cd "$data" && $dsec run "$tmp/p7.yaml" --db "$tmp/one.db" --quiet) \
    2>"$tmp/err" || st=1
m="SELECT metric, quote(value) FROM summary WHERE metric NOT IN
    ('wall_s', 'events_per_s') AND run_id ="
q "$tmp/a.db" "$m (SELECT run_id FROM sweep_points WHERE seq = 7)" \
    >"$tmp/m1"
q "$tmp/one.db" "$m 1" >"$tmp/m2"
[ -s "$tmp/m1" ] && cmp -s "$tmp/m1" "$tmp/m2" || st=1
[ $st -ne 0 ] && show "$tmp/err" "$tmp/m1" "$tmp/m2"
ok "a sweep point's results equal dsec run of its stored scenario" $st

# 5-6: kill -9 in the middle, then run again.
(cd "$tmp" && exec $dsec sweep "$slow" -j 2 --db k.db --quiet) \
    >/dev/null 2>"$tmp/err" &
pid=$!
wait_first "$tmp/k.db"
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
done_k=$(q "$tmp/k.db" "SELECT count(*) FROM sweep_points")
echo "# killed with $done_k of 30 points recorded"
consistent "$tmp/k.db"
ok "after kill -9 every recorded point is whole, none twice" $?

(cd "$tmp" && $dsec sweep "$slow" -j 2 --db k.db) >"$tmp/out" 2>"$tmp/err"
st=$?
grep -q "^sweep slow: 30 points, $((30 - done_k)) run now, $done_k recorded before;" \
    "$tmp/out" || st=1
[ "$(q "$tmp/k.db" "SELECT count(*) FROM sweep_points")" = 30 ] || st=1
consistent "$tmp/k.db" || st=1
[ $st -ne 0 ] && show "$tmp/out" "$tmp/err"
ok "rerun after kill -9 runs only what is missing: 30 points, no duplicate" $st

# 7-8: SIGINT in the middle: running points finish, the rest remains.
(cd "$tmp" && exec $dsec sweep "$slow" -j 2 --db i.db) >"$tmp/out" \
    2>"$tmp/err" &
pid=$!
wait_first "$tmp/i.db"
kill -INT $pid 2>/dev/null
wait $pid
st=$?
done_i=$(q "$tmp/i.db" "SELECT count(*) FROM sweep_points")
echo "# interrupted with $done_i of 30 points recorded (exit $st)"
if [ $st -eq 130 ]; then
    st=0
    grep -q "^dsec sweep: interrupted; $((30 - done_i)) of 30 points remain; run the same command again to resume$" \
        "$tmp/err" || st=1
else
    # The sweep ended before the signal came: then it must be whole.
    [ $st -eq 0 ] && [ "$done_i" = 30 ] || st=1
fi
consistent "$tmp/i.db" || st=1
[ $st -ne 0 ] && show "$tmp/out" "$tmp/err"
ok "SIGINT: exit 130, says how many points remain, leaves whole points" $st

(cd "$tmp" && $dsec sweep "$slow" -j 2 --db i.db --quiet) 2>"$tmp/err"
st=$?
[ "$(q "$tmp/i.db" "SELECT count(*) FROM sweep_points")" = 30 ] || st=1
[ "$(q "$tmp/i.db" "SELECT count(*) FROM runs")" = 30 ] || st=1
consistent "$tmp/i.db" || st=1
[ $st -ne 0 ] && show "$tmp/err"
ok "rerun after SIGINT completes the grid" $st

# 9-11: MPI: three ranks give the results of one process, and resume.
if ! grep -q '^#define HAVE_MPI 1' "$builddir/config.h" 2>/dev/null; then
    skip "mpirun -np 3 equals threads" "dsec was built without MPI"
    skip "mpirun rerun runs nothing" "dsec was built without MPI"
    skip "an unfinished sweep resumes under mpirun" "dsec was built without MPI"
elif ! command -v mpirun >/dev/null 2>&1; then
    skip "mpirun -np 3 equals threads" "no mpirun in PATH"
    skip "mpirun rerun runs nothing" "no mpirun in PATH"
    skip "an unfinished sweep resumes under mpirun" "no mpirun in PATH"
else
    root=""
    [ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
    mpi() { # mpi DB ARGS...: three ranks on this machine
        db=$1
        shift
        # Open MPI's runtime (its dlopen'ed plugins, MPI_Finalize) leaks
        # by design, and the frames of unloaded plugins cannot be matched
        # by an LSan suppression: leak checking is off for these runs only
        # (dsec's own sweep code is leak-checked by the threads-only runs
        # above and by check_sweep).
        (cd "$tmp" &&
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
                timeout 300 mpirun $root --oversubscribe -np 3 \
                $dsec sweep "$@" --db "$db")
    }
    mpi m.db "$small" --quiet >"$tmp/out" 2>"$tmp/err"
    st=$?
    dump "$tmp/a.db" >"$tmp/d1"
    dump "$tmp/m.db" >"$tmp/d2"
    [ "$(q "$tmp/m.db" "SELECT count(*) FROM runs")" = 12 ] || st=1
    cmp -s "$tmp/d1" "$tmp/d2" || st=1
    consistent "$tmp/m.db" || st=1
    [ $st -ne 0 ] && show "$tmp/out" "$tmp/err" && diff "$tmp/d1" "$tmp/d2" |
        head -20 | show
    ok "mpirun -np 3: results identical to the threads-only run" $st

    mpi m.db "$small" --json >"$tmp/j" 2>"$tmp/err"
    st=$?
    grep -q '"ran": 0' "$tmp/j" || st=1
    [ "$(q "$tmp/m.db" "SELECT count(*) FROM runs")" = 12 ] || st=1
    [ $st -ne 0 ] && show "$tmp/j" "$tmp/err"
    ok "mpirun rerun runs nothing" $st

    # Half of a database made by threads, finished by three ranks.
    cp "$tmp/a.db" "$tmp/h.db"
    q "$tmp/h.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id IN
        (SELECT run_id FROM sweep_points WHERE seq % 2 = 1)"
    mpi h.db "$small" >"$tmp/out" 2>"$tmp/err"
    st=$?
    grep -q '^sweep small: 12 points, 6 run now, 6 recorded before;' \
        "$tmp/out" || st=1
    dump "$tmp/h.db" | sort >"$tmp/d3"
    sort "$tmp/d1" >"$tmp/d1s"
    cmp -s "$tmp/d1s" "$tmp/d3" || st=1
    [ $st -ne 0 ] && show "$tmp/out" "$tmp/err"
    ok "an unfinished sweep resumes under mpirun, with the same results" $st
fi

# 12: launched by mpirun without MPI support: refused, not run N times.
if grep -q '^#define HAVE_MPI 1' "$builddir/config.h" 2>/dev/null; then
    skip "an MPI launch of a build without MPI is refused" "built with MPI"
else
    (cd "$tmp" && OMPI_COMM_WORLD_SIZE=3 $dsec sweep "$small" --db x.db) \
        >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 2 ] && grep -q 'built without MPI' "$tmp/err" &&
        [ ! -e "$tmp/x.db" ]
    st=$?
    [ $st -ne 0 ] && show "$tmp/err"
    ok "an MPI launch of a build without MPI is refused" $st
fi

# 13-14: errors point into the sweep file.
f=$data/bad-axis.yaml
$dsec sweep "$f" --db "$tmp/bad.db" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] &&
    [ "$(sed -n 1p "$tmp/err")" = "$f:5:3: error: hardware.gpux: unknown key; did you mean 'gpu'?" ] &&
    [ ! -e "$tmp/bad.db" ]
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "a bad key path is reported at its axis (file:line:col), exit 1" $st

f=$data/bad-value.yaml
$dsec sweep "$f" --list >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] &&
    grep -qxF "$f:4:24: error: hardware.gpu: unknown gpu 'h999'; valid: a100, b200, h100, h200, h800, l40s, mi300x" "$tmp/err"
st=$?
[ $st -ne 0 ] && show "$tmp/err"
ok "a bad axis value is reported at the value" $st

# 15-16: infeasible points: what this invocation recorded (infeasible_now)
# and what the database holds (infeasible), also on a rerun. In grid.yaml
# TP 2 of Llama-3.1-70B does not fit on an H100.
grid=$data/grid.yaml
jn() { # jn FILE KEY: the top-level integer KEY of a sweep's --json
    sed -n "s/^  \"$2\": \([0-9]*\),\$/\1/p" "$1"
}
counts() { # counts FILE: ran infeasible_now recorded ok infeasible remaining
    echo "$(jn "$1" ran) $(jn "$1" infeasible_now) $(jn "$1" recorded)" \
        "$(jn "$1" ok) $(jn "$1" infeasible) $(jn "$1" remaining)"
}
(cd "$tmp" && $dsec sweep "$grid" -j 2 --db g.db --json) >"$tmp/g1" \
    2>"$tmp/err"
st=$?
[ "$(counts "$tmp/g1")" = "3 1 4 3 1 0" ] || st=1
[ $st -ne 0 ] && show "$tmp/g1" "$tmp/err"
ok "--json: a first run counts its infeasible point now and in all" $st

(cd "$tmp" && $dsec sweep "$grid" -j 2 --db g.db --json) >"$tmp/g2" \
    2>"$tmp/err" &&
    (cd "$tmp" && $dsec sweep "$grid" -j 2 --db g.db) >"$tmp/g3" 2>>"$tmp/err"
st=$?
[ "$(counts "$tmp/g2")" = "0 0 4 3 1 0" ] || st=1
[ "$(jn "$tmp/g2" recorded_before)" = 4 ] || st=1
grep -q '^sweep grid: 4 points, 0 run now, 4 recorded before, 1 infeasible; g.db, sweep 1$' \
    "$tmp/g3" || st=1
[ $st -ne 0 ] && show "$tmp/g2" "$tmp/g3" "$tmp/err"
ok "a rerun reports the recorded infeasible point (infeasible 1, now 0)" $st

# 17: --help lists every option the parser takes; dsec help sweep is the same.
$dsec sweep --help >"$tmp/h" 2>&1
st=$?
for o in '-j, --jobs N' '-d, --db FILE' '--json' '-q, --quiet' '--list' \
    '--no-mpi'; do
    grep -q -- "^  $o " "$tmp/h" || { echo "# --help lacks $o"; st=1; }
done
$dsec help sweep >"$tmp/h2" 2>&1 && cmp -s "$tmp/h" "$tmp/h2" || st=1
[ $st -ne 0 ] && show "$tmp/h"
ok "dsec sweep --help lists every option (and dsec help sweep)" $st

# 18: uncertainty: N draws per point, their intervals in the database.
cat >"$tmp/unc.yaml" <<'EOF'
format: 1
provenance: {tool: e2e-sweep, date: 2026-12-02}
gpus:
  h100:
    gemm: {hbm_efficiency: 0.8}
    uncertainty:
      std_errors: {gemm.hbm_efficiency: 0.02}
EOF
cat >"$tmp/swu.yaml" <<EOF
base: $(cd "$srcdir/scenarios" && pwd)/llama-70b-h100.yaml
set:
  workload.synthetic.duration: 1min
  hardware.calibration: $tmp/unc.yaml
axes:
  deploy.tp: [4, 8]
uncertainty: 4
EOF
$dsec sweep "$tmp/swu.yaml" --db "$tmp/swu.db" -j 2 --no-mpi --quiet \
    >"$tmp/out" 2>"$tmp/err"
st=$?
rows=$(sqlite3 "$tmp/swu.db" "SELECT count(*) FROM prediction_intervals
    WHERE draws = 4 AND params = 1 AND lo <= hi" 2>/dev/null)
[ $st -eq 0 ] && [ "$rows" = 24 ] || { st=1; show "$tmp/err"; }
ok "uncertainty: each point's intervals in the database ($rows rows)" $st

[ "$fails" -eq 0 ]
