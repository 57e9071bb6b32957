#!/bin/sh
# End-to-end tests of what `dsec report` gives a finance reader
# (docs/reports.md), printing TAP: the "Prices" table (a catalog price with
# its provider and date, a scenario's price said to be set in the
# scenario), engineering notes after the finance content, the sentence on
# a borrowed pool (tests/data/e2e/report-borrow.yaml borrows from a test
# pool at its internal transfer price) and its billing in the database,
# the PDF against the HTML (every heading and table header, the glyphs
# § and ±, with pdftotext from poppler-utils; skipped, with the reason,
# without it or without cairo), and a comparison report as PDF with the
# savings against the static cluster sized for the peak.
set -u
srcdir=${top_srcdir:-.}
dsec=${DSEC:-./dsec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
echo "1..11"

. "$srcdir/tests/tap.sh"
# line_of FILE PATTERN: the first line number matching, or 0.
line_of() { grep -n -m1 -e "$2" "$1" | cut -d: -f1 | grep . || echo 0; }
# headers FILE: every <h2>, <h3> and <th> text of an HTML file, one a line,
# entities decoded.
headers() {
    grep -o -e '<h[23][^>]*>[^<]*</h[23]>' -e '<th>[^<]*</th>' "$1" |
        sed -e 's/<[^>]*>//g' -e 's/&quot;/"/g' -e 's/&#39;/'"'"'/g' \
            -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g' | grep . | sort -u
}
# pdf_has PDF HTML: every header of HTML is in the text of PDF.
pdf_has() {
    pdftotext "$1" "$tmp/pdf.txt" || return 1
    tr '\n' ' ' <"$tmp/pdf.txt" | tr -s ' ' >"$tmp/pdf.flat"
    miss=0
    headers "$2" >"$tmp/heads"
    while IFS= read -r h; do
        grep -q -F -e "$h" "$tmp/pdf.flat" || {
            echo "# not in the PDF: $h"
            miss=1
        }
    done <"$tmp/heads"
    [ -s "$tmp/heads" ] && [ $miss -eq 0 ]
}

dsec=$(cd "$(dirname "$dsec")" && pwd)/$(basename "$dsec")
data=$(cd "$srcdir/tests/data/e2e" && pwd)
db=$tmp/r.db
out=$tmp/rep

# report-small: a reserved pool at a scenario price (2.10), a borrowable
# pool at the catalog's H100 price.
$dsec run "$data/report-small.yaml" --db "$db" --quiet >/dev/null 2>"$tmp/err"
for fmt in html pdf csv md; do
    $dsec report --latest --db "$db" --format $fmt --out "$out" \
        >/dev/null 2>"$tmp/err.$fmt"
    echo $? >"$tmp/st.$fmt"
done
h=$out/report.html
grep -q '<h2>Prices</h2>' "$h" &&
    grep -q '<tr><td>test, borrowed</td><td>h100</td><td class="n">6.16</td><td>CoreWeave</td><td>list price, no region</td><td>borrowed pool, billed at its own price (the internal transfer price): on-demand; per GPU-hour = HGX H100 8-GPU node price \$49.24/h / 8</td><td>Feb 2026</td><td>docs/sources.md §1.4 ' "$h" &&
    grep -q '<tr><td>reserved &quot;A&quot; &lt;4&gt;</td><td>h100</td><td class="n">2.10</td><td>set in the scenario</td><td>n/a</td>.*<td>set in the scenario</td></tr>' "$h" &&
    ! grep -q 'Price of \|Price assumptions' "$h"
ok "html: Prices table, catalog row with provider and date, scenario row" $?

grep -q '^| test, borrowed | h100 | 6.16 | CoreWeave | list price, no region | .* | Feb 2026 | docs/sources.md §1.4 ' "$out/report.md" &&
    grep -q '^| reserved "A" \\<4\\> | h100 | 2.10 | set in the scenario | n/a | .* | set in the scenario |$' "$out/report.md" &&
    grep -q '^"test, borrowed",h100,6.16[0-9]*,CoreWeave,"list price, no region",.*,Feb 2026,.*§1.4' "$out/prices.csv"
ok "markdown and prices.csv: the same rows" $?

# The finance part first; the engineering notes last, after the cost per
# 1M tokens line; the run's stored notes only there.
fin=$(line_of "$h" '<h2>What the figures mean</h2>')
cost1m=$(line_of "$h" '<li>Cost per 1M input tokens charges the input tokens')
eng=$(line_of "$h" '<h2 id="engineering-notes">Engineering notes</h2>')
chart=$(line_of "$h" '<h2>Charts</h2>')
[ "$fin" -gt 0 ] && [ "$cost1m" -gt "$fin" ] && [ "$eng" -gt "$cost1m" ] &&
    [ "$chart" -lt "$fin" ] && [ "$(grep -c '<h2' "$h")" -eq "$(sed -n "1,${eng}p" "$h" | grep -c '<h2')" ]
ok "html: engineering notes are the last section, after the finance notes" $?
fm=$(line_of "$out/report.md" '^## What the figures mean')
em=$(line_of "$out/report.md" '^## Engineering notes')
[ "$fm" -gt 0 ] && [ "$em" -gt "$fm" ] &&
    [ "$(grep -c '^## ' "$out/report.md")" -eq "$(sed -n "1,${em}p" "$out/report.md" | grep -c '^## ')" ]
ok "markdown: engineering notes last" $?

# The borrowing fixture: the sentence, its hours equal to the database's,
# and the billing at the pool's own price.
bdb=$tmp/b.db
$dsec run "$data/report-borrow.yaml" --db "$bdb" --quiet >/dev/null 2>"$tmp/err.b" &&
    $dsec report --latest --db "$bdb" --out "$tmp/b" >/dev/null 2>>"$tmp/err.b" &&
    $dsec report --latest --db "$bdb" --format md --out "$tmp/b" >/dev/null 2>>"$tmp/err.b"
st=$?
hours=$(sqlite3 "$bdb" "SELECT printf('%.2f', gpu_hours_used) FROM pools WHERE name = 'test-lab' AND run_id = (SELECT min(id) FROM runs)")
[ $st -eq 0 ] && [ -n "$hours" ] && [ "$hours" != "0.00" ] &&
    grep -q "<p id=\"borrowed\">A borrowed pool is billed at its own price per GPU-hour, the internal transfer price (its pools\[\].price_per_gpu_hour; .*: test-lab at USD 1.50 per GPU-hour, $hours GPU-hours borrowed, USD " "$tmp/b/report.html" &&
    grep -q "^A borrowed pool is billed at its own price per GPU-hour, the internal transfer price .*test-lab at USD 1.50 per GPU-hour, $hours GPU-hours borrowed" "$tmp/b/report.md" &&
    grep -q '<tr><td>test-lab</td><td>h100</td><td class="n">1.50</td><td>set in the scenario</td><td>n/a</td><td>borrowed pool, billed at its own price (the internal transfer price): ' "$tmp/b/report.html"
ok "borrowed pool: the sentence with its GPU-hours ($hours), the prices row" $? || show "$tmp/err.b"
sqlite3 "$bdb" "SELECT count(*) FROM pools WHERE borrowable AND gpu_hours_used > 0 AND abs(cost_usd - gpu_hours_paid * price_usd_per_gpu_hour) > 1e-9" >"$tmp/bad"
[ "$(cat "$tmp/bad")" -eq 0 ] &&
    [ "$(sqlite3 "$bdb" "SELECT count(*) FROM pools WHERE borrowable AND gpu_hours_used > 0 AND price_usd_per_gpu_hour = 1.5")" -ge 1 ]
ok "the database bills the borrowed GPU-hours at the pool's own price" $?

if [ "$(cat "$tmp/st.pdf")" -eq 2 ] && grep -q 'without cairo' "$tmp/err.pdf"; then
    skip "pdf has every heading and table header of the html" "dsec built without cairo"
    skip "pdf renders § and ±" "dsec built without cairo"
elif ! command -v pdftotext >/dev/null 2>&1; then
    skip "pdf has every heading and table header of the html" "pdftotext (poppler-utils) is not installed"
    skip "pdf renders § and ±" "pdftotext (poppler-utils) is not installed"
else
    pdf_has "$out/report.pdf" "$h"
    ok "pdf has every heading and table header of the html" $?
    # ± is in the intervals' sentence: a run with --uncertainty.
    cat >"$tmp/p.yaml" <<'EOF2'
format: 1
provenance: {tool: e2e-report-finance, date: 2026-12-02}
gpus:
  h100:
    gemm: {hbm_efficiency: 0.8}
    uncertainty:
      std_errors: {gemm.hbm_efficiency: 0.02}
EOF2
    $dsec run "$data/report-borrow.yaml" --calibration "$tmp/p.yaml" \
        --uncertainty 4 --db "$tmp/pi.db" --quiet >/dev/null 2>"$tmp/err.pi" &&
        $dsec report --latest --db "$tmp/pi.db" --format pdf --out "$tmp/pi" \
            >/dev/null 2>>"$tmp/err.pi" &&
        $dsec report --latest --db "$tmp/pi.db" --out "$tmp/pi" \
            >/dev/null 2>>"$tmp/err.pi" &&
        pdftotext "$tmp/pi/report.pdf" "$tmp/pi.txt" &&
        grep -q '§1.4' "$tmp/pdf.txt" && grep -q 'TTFT mean ± ' "$tmp/pi.txt" &&
        grep -q '–' "$tmp/pi.txt" && ! grep -q '?1.4' "$tmp/pi.txt" &&
        pdf_has "$tmp/pi/report.pdf" "$tmp/pi/report.html"
    ok "pdf renders § and ± and –; with intervals it has every html header too" $? || show "$tmp/err.pi"
fi

# A comparison: PDF, and the savings against the static peak-sized
# cluster in every format, the baselines simulated once.
cdb=$tmp/c.db
$dsec compare "$data/compare-small.yaml" --policy static:replicas=4 \
    --policy target-latency --replications 2 --db "$cdb" --quiet >/dev/null 2>"$tmp/err.c"
for fmt in pdf html csv md; do
    $dsec report --latest-comparison --db "$cdb" --format $fmt \
        --out "$tmp/cmp" >/dev/null 2>"$tmp/err.c$fmt"
    echo $? >"$tmp/st.c$fmt"
done
peak=$(sqlite3 "$cdb" "SELECT CAST(max(value) AS INTEGER) FROM summary WHERE metric = 'replicas.max' AND run_id IN (SELECT run_id FROM comparison_runs)")
[ "$(cat "$tmp/st.chtml")" -eq 0 ] &&
    grep -q '<h2>Savings against the static cluster sized for the peak</h2>' "$tmp/cmp/comparison.html" &&
    grep -q "cluster.replicas = $peak, the most replicas any policy held" "$tmp/cmp/comparison.html" &&
    grep -q '^## Savings against the static cluster sized for the peak' "$tmp/cmp/comparison.md" &&
    [ "$(sqlite3 "$cdb" "SELECT count(*) FROM runs")" -eq 6 ] &&
    [ "$(sqlite3 "$cdb" "SELECT count(*) FROM baselines WHERE run_id = baseline_run_id")" -eq 2 ]
ok "comparison: savings against the static cluster of $peak replicas, 2 baselines stored once" $? || show "$tmp/err.chtml"

# savings.csv: the static policy's mean savings = mean(baseline - run).
want=$(sqlite3 "$cdb" "SELECT printf('%.17g', avg(b.value - s.value)) FROM comparison_runs cr JOIN runs r ON r.id = cr.run_id JOIN summary s ON s.run_id = cr.run_id AND s.metric = 'cost_usd' JOIN notes n ON n.text LIKE 'static baseline of comparison 1, replication ' || cr.replication || ':%' JOIN summary b ON b.run_id = n.run_id AND b.metric = 'cost_usd' WHERE cr.policy = 'target-latency'")
got=$(awk -F, '$1 == "target-latency" { print $7 }' "$tmp/cmp/savings.csv")
echo "# savings.csv target-latency $got, database $want"
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-9 * (b < 0 ? 1 - b : 1 + b)) }'
ok "comparison savings.csv: mean savings = mean(baseline cost - run cost)" $?

if [ "$(cat "$tmp/st.cpdf")" -eq 2 ] && grep -q 'without cairo' "$tmp/err.cpdf"; then
    skip "comparison pdf has every heading and header of the html" "dsec built without cairo"
elif ! command -v pdftotext >/dev/null 2>&1; then
    [ "$(head -c 4 "$tmp/cmp/comparison.pdf")" = "%PDF" ]
    ok "comparison pdf is written (no pdftotext to read it back)" $?
else
    pdf_has "$tmp/cmp/comparison.pdf" "$tmp/cmp/comparison.html" &&
        grep -q ' ± ' "$tmp/pdf.txt"
    ok "comparison pdf has every heading and header of the html, and ±" $?
fi

[ $fails -eq 0 ]
