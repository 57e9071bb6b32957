#!/bin/sh
# End-to-end tests of `dsec report` and `dsec run --report` on a small
# elastic scenario with two pools, one borrowable
# (tests/data/e2e/report-small.yaml), printing TAP. Run by `make check`
# (top_srcdir, DSEC set by the harness) or by hand from the build directory.
# Charts need gnuplot and the PDF needs cairo, both found by configure; the
# checks that need them are skipped, with the reason, when this dsec lacks
# them. DSEC_GNUPLOT=/nonexistent checks the report without charts; the
# comparison report runs on tests/data/e2e/compare-small.yaml. The HTML is opened in headless Chromium when `chromium` is installed.
# A run with --calibration and --uncertainty is reported with the 95 %
# intervals of its headline figures (html, md, csv, pdf) and its profile;
# the run without shows none.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..29"

. "$srcdir/tests/tap.sh"
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

# No intervals without --uncertainty: the report is as it always was.
! grep -q 'interval' "$out/report.html" &&
    grep -q '<tr><th>figure</th><th>value</th><th>unit</th></tr>' "$out/report.html" &&
    grep -q '^| figure | value | unit |$' "$out/report.md" &&
    [ "$(head -1 "$out/headline.csv" | tr -d '\r')" = "metric,value,unit,label" ] &&
    [ ! -e "$out/prediction_intervals.csv" ] && ! grep -q 'Calibration' "$out/report.md"
ok "without --uncertainty: no interval column, note or file" $?

# --uncertainty: a hand-written profile with standard errors and a
# structural error, 10 draws.
cat >"$tmp/p.yaml" <<'EOF'
format: 1
provenance: {tool: e2e-report, date: 2026-12-02}
gpus:
  h100:
    gemm: {hbm_efficiency: 0.8}
    frontend: {request: 5ms}
    uncertainty:
      std_errors: {gemm.hbm_efficiency: 0.02, frontend.request: 1ms}
      structural: {ttft: 0.05, tpot: 0.02, e2e: 0.02}
EOF
pdb=$tmp/pi.db
pout=$tmp/pi
$dsec run "$f" --calibration "$tmp/p.yaml" --uncertainty 10 --db "$pdb" \
    --quiet >/dev/null 2>"$tmp/err.pi"
[ $? -eq 0 ] &&
    [ "$(sqlite3 "$pdb" "SELECT count(*) FROM prediction_intervals")" -eq 12 ]
ok "dsec run --uncertainty 10 stores the intervals" $? || show "$tmp/err.pi"
for fmt in html pdf csv md; do
    $dsec report --latest --db "$pdb" --format $fmt --out "$pout" \
        >/dev/null 2>"$tmp/err.pi.$fmt"
    echo $? >"$tmp/st.pi.$fmt"
done
pirun=$(sqlite3 "$pdb" "SELECT id FROM runs WHERE policy IS NOT NULL")
pi() { # pi METRIC lo|hi
    sqlite3 "$pdb" "SELECT printf('%.17g', $2) FROM prediction_intervals WHERE run_id = $pirun AND metric = '$1'"
}
# fmt2 V: V with two decimals, as the report prints a latency.
fmt2() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }
sha=$(sha256sum "$tmp/p.yaml" | cut -d' ' -f1)

h=$pout/report.html
[ "$(cat "$tmp/st.pi.html")" -eq 0 ] &&
    grep -q '<th>95 % interval</th>' "$h" &&
    grep -q '<tr><td>Total cost</td><td class="n">[0-9.,]*</td><td class="n pi">[0-9.,]*&#8211;[0-9.,]*</td><td>USD</td></tr>' "$h" &&
    grep -q "<tr><td>TTFT mean</td><td class=\"n\">[0-9.,]*</td><td class=\"n pi\">$(fmt2 "$(pi ttft_ms_mean lo)")&#8211;$(fmt2 "$(pi ttft_ms_mean hi)")</td><td>ms</td></tr>" "$h" &&
    grep -q '<p class="note" id="prediction-interval">The 95 % intervals are prediction intervals: the central 95 % of 10 runs .* 2 uncertain parameters, and the latencies multiplied by the profile&#39;s structural error\..*seed noise only .*TTFT mean ± [0-9.]* ms' "$h"
ok "html: intervals beside the headline figures, and what they are" $?
[ "$(cat "$tmp/st.pi.html")" -eq 0 ] || show "$tmp/err.pi.html"

# The baseline ran on the same profile (dsec report loads it again from
# the run's path while its SHA-256 matches): no note of two calibrations.
grep -q "Calibration: $tmp/p.yaml, SHA-256 $sha\." "$h" &&
    ! grep -q "savings compare two calibrations" "$h"
ok "html: the profile's path and SHA-256 (sha256sum's); the baseline on the same profile" $?

grep -q '^| figure | value | 95 % interval | unit |$' "$pout/report.md" &&
    grep -q '^| Total cost | [0-9.,]* | [0-9.,]*-[0-9.,]* | USD |$' "$pout/report.md" &&
    grep -q '^| GPU-hours paid | [0-9.,]* |  | GPU-h |$' "$pout/report.md" &&
    grep -q '^- The 95 % intervals are prediction intervals' "$pout/report.md"
ok "markdown: an interval column and the sentence" $?

hcsv() { awk -F, -v k="$1" -v c="$2" '$1 == k { sub(/\r$/, ""); print $c }' "$pout/headline.csv"; }
sec=$(sqlite3 "$pdb" "SELECT value FROM summary WHERE run_id = $pirun AND metric = 'sim_time_s'")
[ "$(head -1 "$pout/headline.csv" | tr -d '\r')" = "metric,value,unit,label,lo,hi" ] &&
    near "$(hcsv cost_usd 5)" "$(pi cost_usd lo)" &&
    near "$(hcsv cost_usd 6)" "$(pi cost_usd hi)" &&
    near "$(hcsv e2e_ms_p99 6)" "$(pi e2e_ms_p99 hi)" &&
    near "$(hcsv cost_per_day_usd 5)" "$(awk -v c="$(pi cost_usd lo)" -v s="$sec" 'BEGIN { printf "%.17g", c / s * 86400 }')" &&
    [ -z "$(hcsv input_tokens 5)" ]
ok "csv: headline lo, hi columns equal the database's (cost per day scaled)" $?

[ "$(($(wc -l <"$pout/prediction_intervals.csv") - 1))" -eq 12 ] &&
    near "$(awk -F, '$2 == "ttft_ms_p99" { print $6 }' "$pout/prediction_intervals.csv")" "$(pi ttft_ms_p99 hi)"
ok "csv: prediction_intervals.csv holds the table's 12 rows" $?

if [ "$(cat "$tmp/st.pi.pdf")" -eq 2 ] && grep -q 'without cairo' "$tmp/err.pi.pdf"; then
    skip "pdf with intervals" "dsec built without cairo"
elif command -v pdftotext >/dev/null 2>&1; then
    pdftotext "$pout/report.pdf" "$tmp/pi.txt" &&
        grep -q '95 % interval' "$tmp/pi.txt" && grep -q 'SHA-256' "$tmp/pi.txt"
    ok "pdf with intervals: the column and the profile (pdftotext)" $?
else
    [ "$(head -c 4 "$pout/report.pdf")" = "%PDF" ]
    ok "pdf with intervals is written (no pdftotext to read it back)" $?
fi

if command -v chromium >/dev/null 2>&1; then
    prof=$(mktemp -d)
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$prof" \
        --dump-dom "file://$h" >"$tmp/pidom" 2>"$tmp/chromium.err"
    st=$?
    rm -rf "$prof"
    [ $st -eq 0 ] && grep -q '<th>95 % interval</th>' "$tmp/pidom" &&
        grep -q 'id="prediction-interval"' "$tmp/pidom"
    ok "headless chromium loads the html with intervals" $?
else
    skip "headless chromium loads the html with intervals" "chromium is not installed (optional: CI installs it, quickstart does not)"
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
