#!/bin/sh
# Fast-forwarded steady decode (docs/performance.md) against every engine
# iteration as an event (--no-fast-forward), through the dsec binary,
# printing TAP: for every bundled scenario and bench input that runs
# without downloaded data, and for the bench fleet lightly loaded (where
# most iterations are fast-forwarded), every number of `dsec run --json`
# but the engine's event counts and wall time, and every number of the
# database's cluster, pool and replica series, agrees to 1e-9 relative (in
# practice exactly or to a few ulps), the text summary is the same but for its events line,
# and fast-forwarding fires no more events than not. --no-fast-forward
# giving today's output byte for byte is tests/pin-results.sh's job.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0

if [ -n "${DSEC_SAN_CFLAGS:-}" ]; then
    echo "1..0 # SKIP sanitizer build: the plain build runs every scenario twice"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 (compares the JSON summaries) not installed"
    exit 0
fi

# compare A B: every number but the event counts and timings within 1e-9
# relative, everything else equal; prints the differences and the events.
cat >"$tmp/cmp.py" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
skip = {"sim_events", "events_per_s", "wall_s"}
bad = []
worst = 0.0
def walk(x, y, p):
    global worst
    if isinstance(x, dict) and isinstance(y, dict):
        if set(x) != set(y):
            bad.append(p + ": other members")
            return
        for k in x:
            if k not in skip:
                walk(x[k], y[k], p + "." + k)
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            bad.append(p + ": other length")
            return
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, "%s[%d]" % (p, i))
    elif (isinstance(x, (int, float)) and isinstance(y, (int, float))
          and not isinstance(x, bool) and not isinstance(y, bool)):
        if x != y:
            rel = abs(x - y) / max(abs(x), abs(y))
            worst = max(worst, rel)
            if rel > 1e-9:
                bad.append("%s: %r vs %r" % (p, x, y))
    elif x != y:
        bad.append("%s: %r vs %r" % (p, x, y))
walk(a, b, "")
for line in bad[:10]:
    print(line)
print("events %d fast-forwarded, %d not; worst relative difference %.1e"
      % (a.get("sim_events", -1), b.get("sim_events", -1), worst))
sys.exit(1 if bad or a.get("sim_events", 0) > b.get("sim_events", 0) else 0)
EOF

# cmpdb A B: the time series of two results databases (cluster, pools,
# replicas) row by row, numbers within 1e-9 relative, the rest equal.
cat >"$tmp/cmpdb.py" <<'EOF'
import sqlite3, sys
a = sqlite3.connect(sys.argv[1])
b = sqlite3.connect(sys.argv[2])
bad = []
worst = 0.0
rows = 0
for t in ("timeseries", "pool_series", "replica_series"):
    q = "SELECT * FROM %s ORDER BY rowid" % t
    x, y = a.execute(q).fetchall(), b.execute(q).fetchall()
    if len(x) != len(y):
        bad.append("%s: %d rows vs %d" % (t, len(x), len(y)))
        continue
    rows += len(x)
    for i, (u, v) in enumerate(zip(x, y)):
        for j, (p, q) in enumerate(zip(u[1:], v[1:])):
            if isinstance(p, float) and isinstance(q, float) and p != q:
                rel = abs(p - q) / max(abs(p), abs(q))
                worst = max(worst, rel)
                if rel <= 1e-9:
                    continue
            if p != q and not (p != p and q != q):
                bad.append("%s row %d column %d: %r vs %r" % (t, i, j + 1, p, q))
for line in bad[:10]:
    print(line)
print("series: %d rows; worst relative difference %.1e" % (rows, worst))
sys.exit(1 if bad or rows == 0 else 0)
EOF

set --
for f in "$srcdir"/scenarios/*.yaml "$srcdir"/bench/mm4.yaml \
    "$srcdir"/bench/llama8b.yaml "$srcdir"/bench/kv-heavy.yaml \
    "$srcdir"/bench/prefix-offload.yaml; do
    case "$f" in
    */azure-conv-trace.yaml | */mooncake-conversation.yaml | \
        */mooncake-offload.yaml) continue ;;
    esac
    set -- "$@" "$f"
done
echo "1..$(($# * 3 + 1))"
. "$srcdir/tests/tap.sh"

for f in "$@"; do
    name=$(basename "$f" .yaml)
    rm -f "$tmp/ff.db" "$tmp/ev.db"
    $dsec run --db "$tmp/ff.db" --json "$f" >"$tmp/ff.json" 2>/dev/null
    st=$?
    $dsec run --db "$tmp/ev.db" --json --no-fast-forward "$f" \
        >"$tmp/ev.json" 2>/dev/null || st=1
    [ $st -eq 0 ] && python3 "$tmp/cmp.py" "$tmp/ff.json" "$tmp/ev.json" \
        >"$tmp/cmp" || st=1
    show "$tmp/cmp"
    ok "$name: the JSON summary agrees with --no-fast-forward" $st
    st=0
    python3 "$tmp/cmpdb.py" "$tmp/ff.db" "$tmp/ev.db" >"$tmp/cmp" || st=1
    show "$tmp/cmp"
    ok "$name: the time series agree with --no-fast-forward" $st
    # stdout only: progress lines on stderr depend on the wall clock.
    $dsec run --no-db "$f" 2>/dev/null |
        grep -v -E '^(wall time|simulated time)' >"$tmp/ff.txt"
    $dsec run --no-db --no-fast-forward "$f" 2>/dev/null |
        grep -v -E '^(wall time|simulated time)' >"$tmp/ev.txt"
    cmp -s "$tmp/ff.txt" "$tmp/ev.txt"
    st=$?
    [ $st -ne 0 ] && diff "$tmp/ff.txt" "$tmp/ev.txt" | head -10 | show
    ok "$name: the text summary is the same but for its events" $st
done

# The bench fleet at a tenth of its load for two hours: lightly loaded
# replicas step many times between arrivals, so most iterations are
# fast-forwarded; the results are the same and the events far fewer.
fleet="$srcdir/bench/fleet-day.yaml"
sets="--set workload.synthetic.duration=2h"
sets="$sets --set workload.synthetic.arrival.rate_per_s=10"
# shellcheck disable=SC2086
$dsec run --no-db --json $sets "$fleet" >"$tmp/ff.json" 2>/dev/null
st=$?
# shellcheck disable=SC2086
$dsec run --no-db --json --no-fast-forward $sets "$fleet" >"$tmp/ev.json" \
    2>/dev/null || st=1
[ $st -eq 0 ] && python3 "$tmp/cmp.py" "$tmp/ff.json" "$tmp/ev.json" \
    >"$tmp/cmp" || st=1
show "$tmp/cmp"
if [ $st -eq 0 ]; then
    python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["sim_events"]
b = json.load(open(sys.argv[2]))["sim_events"]
sys.exit(0 if 10 * a < b else 1)' "$tmp/ff.json" "$tmp/ev.json" || st=1
fi
ok "lightly loaded fleet: the same results in under a tenth of the events" $st
exit $((fails > 0))
