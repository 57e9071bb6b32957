#!/bin/sh
# End-to-end tests of `dsec report` and `dsec run --report` on a small
# elastic scenario with two pools, one borrowable
# (tests/data/e2e/report-small.yaml), printing TAP. Run by `make check`
# (top_srcdir, DSEC set by the harness) or by hand from the build directory.
# Charts need gnuplot and the PDF needs cairo, both found by configure; the
# checks that need them are skipped, with the reason, when this dsec lacks
# them. DSEC_GNUPLOT=/nonexistent checks the report without charts; the
# comparison report runs on tests/data/e2e/compare-small.yaml. The HTML is opened in headless Chromium when `chromium` is installed.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..20"

ok() { # ok DESCRIPTION STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}
skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
show() { sed 's/^/# /' "$@"; }
# is_png FILE: PNG signature and more than 5 kB.
is_png() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
        [ "$(wc -c <"$1")" -gt 5120 ]
}
# near A B: equal to 9 significant digits (sqlite3 prints 15).
near() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
        m = a < 0 ? -a : a; exit !(a != "" && b != "" && d <= 1e-9 * (m + 1)) }'
}

dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
f=$(cd "$srcdir/tests/data/e2e" && pwd)/report-small.yaml
db=$tmp/r.db
out=$tmp/rep

$dsec run "$f" --db "$db" --quiet --report "$out" >"$tmp/o" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] && [ -s "$out/report.html" ]
ok "dsec run --report writes report.html" $? || true
[ $st -eq 0 ] || show "$tmp/err"

for fmt in html pdf csv md; do
    $dsec report --latest --db "$db" --format $fmt --out "$out" \
        >>"$tmp/o" 2>"$tmp/err.$fmt"
    echo $? >"$tmp/st.$fmt"
done
grep -q 'gnuplot was not found' "$tmp/err.html"
nognuplot=$?

grep -q 'id="headline"' "$out/report.html" &&
    grep -q 'Savings vs static' "$out/report.html" &&
    grep -q 'reserved &quot;A&quot; &lt;4&gt;' "$out/report.html" &&
    ! grep -q 'reserved "A" <4>' "$out/report.html"
ok "html: headline table, pool names escaped" $?

if [ $nognuplot -eq 0 ]; then
    skip "every chart is a PNG over 5 kB" "no gnuplot in this build"
    skip "html embeds the charts" "no gnuplot in this build"
else
    good=0
    for c in traffic cost latency states replicas; do
        is_png "$out/$c.png" || { echo "# bad chart $c.png"; good=1; }
    done
    ok "every chart is a PNG over 5 kB" $good
    [ "$(grep -c 'src="data:image/png;base64,iVBORw0KGgo' "$out/report.html")" -eq 5 ]
    ok "html embeds the charts" $?
fi

if [ "$(cat "$tmp/st.pdf")" -eq 2 ] && grep -q 'without cairo' "$tmp/err.pdf"; then
    skip "pdf starts with %PDF and is over 10 kB" "dsec built without cairo"
else
    [ "$(head -c 4 "$out/report.pdf")" = "%PDF" ] &&
        [ "$(wc -c <"$out/report.pdf")" -gt 10240 ]
    ok "pdf starts with %PDF and is over 10 kB" $?
fi

[ "$(cat "$tmp/st.csv")" -eq 0 ] && [ -s "$out/headline.csv" ] &&
    [ -s "$out/pools.csv" ] && [ -s "$out/states.csv" ] &&
    [ -s "$out/timeseries.csv" ] &&
    [ "$(wc -l <"$out/replicas.csv")" -gt 1 ] &&
    [ "$(($(wc -l <"$out/replicas.csv") - 1))" -eq \
        "$(sqlite3 "$db" "SELECT count(*) FROM replica_series WHERE run_id =
           (SELECT id FROM runs WHERE policy IS NOT NULL)")" ]
ok "csv: one file per table, replicas.csv as replica_series" $?

csv() { awk -F, -v k="$1" '$1 == k { print $2 }' "$out/headline.csv"; }
run=$(sqlite3 "$db" "SELECT id FROM runs WHERE policy IS NOT NULL")
sq() { sqlite3 "$db" "SELECT value FROM summary WHERE run_id = $run AND metric = '$1'"; }
near "$(csv cost_usd)" "$(sq cost_usd)" &&
    near "$(csv gpu_hours)" "$(sq gpu_hours)"
ok "csv totals (cost, GPU-hours) equal the database's summary" $?
echo "# csv cost $(csv cost_usd) db $(sq cost_usd); gpu-h $(csv gpu_hours) db $(sq gpu_hours)"

pools=$(sqlite3 "$db" "SELECT printf('%.17g', sum(cost_usd)) FROM pools WHERE run_id = $run")
near "$pools" "$(csv cost_usd)"
ok "the pools' costs add up to the total" $?

base=$(sqlite3 "$db" "SELECT baseline_run_id FROM baselines WHERE run_id = $run")
[ -n "$base" ] &&
    [ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE id = $base AND policy IS NULL")" -eq 1 ] &&
    [ "$(sqlite3 "$db" "SELECT count(*) FROM runs")" -eq 2 ]
ok "the static baseline is stored once, as a run, and linked" $?

bcost=$(sqlite3 "$db" "SELECT value FROM summary WHERE run_id = '$base' AND metric = 'cost_usd'")
sav=$(awk -v b="$bcost" -v e="$(sq cost_usd)" 'BEGIN { printf "%.17g", b - e }')
near "$(csv savings_usd)" "$sav"
ok "savings = baseline cost - elastic cost" $?

grep -q '^| Total cost | ' "$out/report.md" && grep -q '^## By state' "$out/report.md"
ok "markdown: headline and tables" $?

if command -v chromium >/dev/null 2>&1; then
    prof=$(mktemp -d)
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$prof" \
        --dump-dom "file://$out/report.html" >"$tmp/dom" 2>"$tmp/chromium.err"
    st=$?
    rm -rf "$prof"
    [ $st -eq 0 ] && grep -q '<table id="headline">' "$tmp/dom"
    ok "headless chromium loads the html (DOM has the headline table)" $?
else
    skip "headless chromium loads the html" "chromium is not installed (optional: CI installs it, quickstart does not)"
fi

# Without gnuplot (DSEC_GNUPLOT names no program): still a report, no <img>,
# the sentence in the page and a note on stderr.
DSEC_GNUPLOT=/nonexistent $dsec report --latest --db "$db" --out "$tmp/nog" \
    >/dev/null 2>"$tmp/err.nog"
st=$?
[ $st -eq 0 ] && [ -s "$tmp/nog/report.html" ] &&
    ! grep -q '<img' "$tmp/nog/report.html" &&
    grep -q 'this report has no charts' "$tmp/nog/report.html" &&
    grep -q 'gnuplot was not found.*this report has no charts' "$tmp/err.nog"
ok "DSEC_GNUPLOT=/nonexistent: report without charts, said in it and on stderr" $?
[ $st -eq 0 ] || show "$tmp/err.nog"

cf=$(cd "$srcdir/tests/data/e2e" && pwd)/compare-small.yaml
cdb=$tmp/c.db
$dsec compare "$cf" --policy static:replicas=4 --policy target-latency \
    --replications 3 --db "$cdb" --quiet >/dev/null 2>"$tmp/err.cmp"
ok "dsec compare stores 2 policies x 3 replications" $?
for fmt in html csv; do
    $dsec report --latest-comparison --db "$cdb" --format $fmt \
        --out "$tmp/cmp" >/dev/null 2>"$tmp/err.c$fmt"
    echo $? >"$tmp/st.c$fmt"
done
[ "$(cat "$tmp/st.chtml")" -eq 0 ] && [ "$(cat "$tmp/st.ccsv")" -eq 0 ]
ok "dsec report --latest-comparison writes html and csv" $?
[ "$(cat "$tmp/st.chtml")" -eq 0 ] || show "$tmp/err.chtml"

[ "$(grep -c '<tr class="policy">' "$tmp/cmp/comparison.html")" -eq 2 ] &&
    grep -q '<td>static:replicas=4</td>' "$tmp/cmp/comparison.html"
ok "comparison html: one table row per policy" $?

if [ $nognuplot -eq 0 ]; then
    skip "comparison charts are PNGs over 5 kB, embedded" "no gnuplot in this build"
else
    good=0
    for c in replicas tpot cost-by-policy; do
        is_png "$tmp/cmp/$c.png" || { echo "# bad chart $c.png"; good=1; }
    done
    [ "$(grep -c 'src="data:image/png;base64,iVBORw0KGgo' "$tmp/cmp/comparison.html")" -eq 3 ] || good=1
    ok "comparison charts are PNGs over 5 kB, embedded" $good
fi

# The cost_usd_mean column of the static policy's row, against the mean of
# its runs' cost_usd in the database.
col=$(head -1 "$tmp/cmp/policies.csv" | tr -d '\r' | tr , '\n' | grep -n '^cost_usd_mean$' | cut -d: -f1)
okc=0
for pol in static:replicas=4 target-latency; do
    got=$(awk -F, -v p="$pol" -v c="$col" '$1 == p { print $c }' "$tmp/cmp/policies.csv")
    want=$(sqlite3 "$cdb" "SELECT printf('%.17g', avg(s.value)) FROM comparison_runs cr JOIN summary s ON s.run_id = cr.run_id AND s.metric = 'cost_usd' WHERE cr.comparison_id = (SELECT max(id) FROM comparisons) AND cr.policy = '$pol'")
    echo "# $pol: csv cost mean $got, db $want"
    near "$got" "$want" || okc=1
done
ok "comparison csv: per-policy cost mean equals the database's runs" $okc

DSEC_GNUPLOT=/nonexistent $dsec report --latest-comparison --db "$cdb" \
    --out "$tmp/cnog" >/dev/null 2>"$tmp/err.cnog" &&
    ! grep -q '<img' "$tmp/cnog/comparison.html" &&
    grep -q 'this report has no charts' "$tmp/cnog/comparison.html" &&
    grep -q 'this report has no charts' "$tmp/err.cnog"
ok "DSEC_GNUPLOT=/nonexistent: comparison report without charts, says so" $?

# A chart the user asked for that cannot be drawn is an error (exit 1).
DSEC_GNUPLOT= $dsec compare "$cf" --policy target-latency --replications 1 \
    --no-db --quiet --plot "$tmp/p.png" >/dev/null 2>"$tmp/err.plot"
[ $? -eq 1 ] &&
    grep -q "^$tmp/p.png: error: cannot draw chart: gnuplot not found" "$tmp/err.plot" &&
    [ ! -e "$tmp/p.png" ]
ok "DSEC_GNUPLOT empty: dsec compare --plot fails and says why" $?

[ $fails -eq 0 ]
