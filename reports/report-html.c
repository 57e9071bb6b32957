/* The report as HTML (one self-contained file: charts as base64 data: URIs),
 * Markdown and CSV. Every text that comes from the database goes through
 * rpt_html_escape() (HTML), rpt__md_text() (Markdown) or rpt_csv_field() (CSV).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report-int.h"
#include "base/errors.h"
#include "base/xalloc.h"

void rpt_html_escape(FILE *fp, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", fp);
            break;
        case '<':
            fputs("&lt;", fp);
            break;
        case '>':
            fputs("&gt;", fp);
            break;
        case '"':
            fputs("&quot;", fp);
            break;
        case '\'':
            fputs("&#39;", fp);
            break;
        default:
            fputc(*s, fp);
        }
    }
}

void rpt_csv_field(FILE *fp, const char *s)
{
    size_t n;

    if (s == NULL)
        return;
    n = strlen(s);
    if (strpbrk(s, ",\"\r\n") == NULL &&
        (n == 0 || (s[0] != ' ' && s[n - 1] != ' '))) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s != '\0'; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/* Markdown table cells: | and newlines would break the row, and <, &, *,
 * _, ` and [ would be markup. */
void rpt__md_text(FILE *fp, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        if (*s == '\n' || *s == '\r')
            fputc(' ', fp);
        else if (strchr("|\\`*_[]<>&#", *s) != NULL)
            fprintf(fp, "\\%c", *s);
        else
            fputc(*s, fp);
    }
}

void rpt__base64(FILE *fp, const char *path)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char in[3];
    size_t n;
    FILE *f = fopen(path, "rb");

    if (f == NULL)
        return;
    while ((n = fread(in, 1, 3, f)) > 0) {
        unsigned v = (unsigned)in[0] << 16 |
                     (n > 1 ? (unsigned)in[1] << 8 : 0) | (n > 2 ? in[2] : 0);
        fputc(tab[v >> 18 & 63], fp);
        fputc(tab[v >> 12 & 63], fp);
        fputc(n > 1 ? tab[v >> 6 & 63] : '=', fp);
        fputc(n > 2 ? tab[v & 63] : '=', fp);
    }
    fclose(f);
}

static void html_cell(FILE *fp, double v, int prec)
{
    char buf[64];
    rpt__fmt(buf, sizeof(buf), v, prec);
    fprintf(fp, "<td class=\"n\">%s</td>", buf);
}

int rpt__write_html(const struct rpt_report *rep, FILE *fp,
                    const struct rpt__chart *charts, const char *chart_note)
{
    const struct rpt_run *r = rep->run;
    struct rpt__line lines[RPT__MAX_LINES];
    struct rpt__state_row st[RPT__NSTATE_ROWS];
    const char *kname[RPT__MAX_KINDS];
    double khours[RPT__MAX_KINDS], kcost[RPT__MAX_KINDS];
    int n = rpt__headline(rep, lines), ns = rpt__state_rows(r, st), nk;
    char title[64], note[RPT__NOTE_LEN];
    int has_pi = rpt__pi_title(r, title, sizeof(title));

    fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                "<meta charset=\"utf-8\">\n<title>dsec cost report: ");
    rpt_html_escape(fp, r->scenario_name);
    fprintf(fp, "</title>\n<style>\n"
                "body{font-family:sans-serif;max-width:1040px;margin:2em "
                "auto;color:#222}\n"
                "table{border-collapse:collapse;margin:1em 0}\n"
                "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
                "\ntd.n{text-align:right;font-variant-numeric:tabular-nums}\n"
                "th{background:#f0f0f0}\nimg{max-width:100%%}\n"
                ".note{color:#555}\n</style>\n</head>\n<body>\n"
                "<h1>Cost report: ");
    rpt_html_escape(fp, r->scenario_name);
    fprintf(fp, "</h1>\n<p>Run %lld, started ", (long long)r->id);
    rpt_html_escape(fp, r->started_at);
    fprintf(fp, ", seed %llu, policy ", (unsigned long long)r->seed);
    rpt_html_escape(fp, r->policy ? r->policy : "none (static cluster)");
    fprintf(fp, ", dsec ");
    rpt_html_escape(fp, r->program_version);
    if (rep->self_baseline)
        fprintf(fp, ". This run is a static cluster: it is its own "
                    "baseline.");
    else if (rep->baseline != NULL)
        fprintf(fp,
                ". Baseline: run %lld, the same workload and seed on a "
                "static cluster sized for the peak.",
                (long long)rep->baseline->id);
    fprintf(fp, "</p>\n<h2>Headline</h2>\n<table id=\"headline\">\n"
                "<tr><th>figure</th><th>value</th>");
    if (has_pi)
        fprintf(fp, "<th>%s</th>", title);
    fprintf(fp, "<th>unit</th></tr>\n");
    for (int i = 0; i < n; i++) {
        fprintf(fp, "<tr><td>%s</td><td class=\"n\">%s</td>", lines[i].label,
                lines[i].text);
        if (has_pi && !isnan(lines[i].lo))
            fprintf(fp, "<td class=\"n pi\">%s&#8211;%s</td>", lines[i].lo_text,
                    lines[i].hi_text);
        else if (has_pi)
            fprintf(fp, "<td></td>");
        fprintf(fp, "<td>%s</td></tr>\n", lines[i].unit);
    }
    fprintf(fp, "</table>\n");
    if (has_pi)
        fprintf(fp,
                "<p class=\"note\">%s: what it holds is under "
                "<a href=\"#engineering-notes\">" RPT__ENG_TITLE "</a>.</p>\n",
                title);
    fprintf(fp, "<h2>Charts</h2>\n");
    for (int c = 0; c < RPT__NCHARTS; c++) {
        if (charts[c].path == NULL)
            continue;
        fprintf(fp, "<h3>%s</h3>\n<img alt=\"%s\" src=\"data:image/png;base64,",
                charts[c].title, charts[c].title);
        rpt__base64(fp, charts[c].path);
        fprintf(fp, "\">\n");
    }
    fprintf(fp, "<h2>Pools</h2>\n<table id=\"pools\">\n<tr><th>pool</th>"
                "<th>GPU</th><th>capacity</th><th>kind</th>"
                "<th>USD per GPU-hour</th><th>GPU-hours held</th>"
                "<th>GPU-hours paid</th><th>cost (USD)</th></tr>\n");
    for (int p = 0; p < r->npools; p++) {
        const struct rpt_pool_row *pl = &r->pools[p];
        fprintf(fp, "<tr><td>");
        rpt_html_escape(fp, pl->name);
        fprintf(fp, "</td><td>");
        rpt_html_escape(fp, pl->gpu);
        fprintf(fp, "</td><td class=\"n\">%d</td><td>%s%s</td>",
                pl->capacity_gpus, pl->reserved ? "reserved" : "on demand",
                pl->borrowable ? ", borrowable" : "");
        html_cell(fp, pl->price_usd_per_gpu_hour, 2);
        html_cell(fp, pl->gpu_hours_used, 2);
        html_cell(fp, pl->gpu_hours_paid, 2);
        html_cell(fp, pl->cost_usd, 2);
        fprintf(fp, "</tr>\n");
    }
    fprintf(fp, "</table>\n<h2>By GPU kind</h2>\n<table id=\"kinds\">\n"
                "<tr><th>GPU</th><th>GPU-hours paid</th><th>cost (USD)</th>"
                "</tr>\n");
    nk = rpt__kinds(r, kname, khours, kcost);
    for (int k = 0; k < nk; k++) {
        fprintf(fp, "<tr><td>");
        rpt_html_escape(fp, kname[k]);
        fprintf(fp, "</td>");
        html_cell(fp, khours[k], 2);
        html_cell(fp, kcost[k], 2);
        fprintf(fp, "</tr>\n");
    }
    fprintf(fp, "</table>\n<h2>By state</h2>\n<table id=\"states\">\n"
                "<tr><th>state</th><th>GPU-hours</th><th>cost (USD)</th>"
                "</tr>\n");
    for (int s = 0; s < ns; s++) {
        fprintf(fp, "<tr><td>%s</td>", st[s].name);
        html_cell(fp, st[s].hours, 2);
        html_cell(fp, st[s].cost, 2);
        fprintf(fp, "</tr>\n");
    }
    fprintf(fp, "</table>\n<h2>Prices</h2>\n<table id=\"prices\">\n"
                "<tr><th>pool</th><th>GPU</th><th>USD per GPU-hour</th>"
                "<th>provider</th><th>region</th><th>basis</th><th>date</th>"
                "<th>source</th></tr>\n");
    for (int p = 0; p < r->npools; p++) {
        const struct rpt_pool_row *pl = &r->pools[p];
        struct rpt__price pr;
        const char *cells[RPT__PRICE_COLS];

        rpt__price_of(pl, &pr);
        rpt__price_cells(&pr, cells);
        fprintf(fp, "<tr><td>");
        rpt_html_escape(fp, pl->name);
        fprintf(fp, "</td><td>");
        rpt_html_escape(fp, pl->gpu);
        fprintf(fp, "</td>");
        html_cell(fp, pl->price_usd_per_gpu_hour, 2);
        for (int k = 0; k < 5; k++) {
            fprintf(fp, "<td>");
            rpt_html_escape(fp, cells[k]);
            fprintf(fp, "</td>");
        }
        fprintf(fp, "</tr>\n");
    }
    fprintf(fp, "</table>\n");
    rpt__borrow_note(r, note, sizeof(note));
    if (note[0] != '\0') {
        fprintf(fp, "<p id=\"borrowed\">");
        rpt_html_escape(fp, note);
        fprintf(fp, "</p>\n");
    }
    fprintf(fp, "<p class=\"note\">%s</p>\n<h2>" RPT__FIN_TITLE "</h2>\n<ul>\n",
            rpt__price_caveat);
    rpt__savings_note(rep, note, sizeof(note));
    if (note[0] != '\0') {
        fprintf(fp, "<li>");
        rpt_html_escape(fp, note);
        fprintf(fp, "</li>\n");
    }
    {
        char tn[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN];
        int ntn = rpt__time_notes(rep, tn);
        for (int i = 0; i < ntn; i++) {
            fprintf(fp, "<li>");
            rpt_html_escape(fp, tn[i]);
            fprintf(fp, "</li>\n");
        }
    }
    fprintf(fp, "<li>Per day and per month scale the simulated "
                "time.</li>\n</ul>\n");
    /* What is not for finance comes last, after the figures. */
    fprintf(fp, "<h2 id=\"engineering-notes\">" RPT__ENG_TITLE "</h2>\n");
    rpt__calib_note(rep, note, sizeof(note));
    if (note[0] != '\0') {
        fprintf(fp, "<p class=\"note\" id=\"calibration\">");
        rpt_html_escape(fp, note);
        fprintf(fp, "</p>\n");
    }
    if (has_pi) {
        rpt__pi_note(r, note, sizeof(note));
        fprintf(fp, "<p class=\"note\" id=\"prediction-interval\">");
        rpt_html_escape(fp, note);
        fprintf(fp, "</p>\n");
    }
    if (chart_note != NULL) {
        fprintf(fp, "<p class=\"note\"><strong>");
        rpt_html_escape(fp, chart_note);
        fprintf(fp, ".</strong></p>\n");
    }
    if (r->nnotes > 0)
        fprintf(fp, "<ul>\n");
    for (int i = 0; i < r->nnotes; i++) {
        fprintf(fp, "<li>");
        rpt_html_escape(fp, r->notes[i]);
        fprintf(fp, "</li>\n");
    }
    fprintf(fp, "%s</body>\n</html>\n", r->nnotes > 0 ? "</ul>\n" : "");
    return 0;
}

/* Writes "- TEXT\n" when text is not empty. */
static void md_item(FILE *fp, const char *text)
{
    if (text[0] == '\0')
        return;
    fprintf(fp, "- ");
    rpt__md_text(fp, text);
    fprintf(fp, "\n");
}

int rpt__write_md(const struct rpt_report *rep, FILE *fp,
                  const struct rpt__chart *charts, const char *chart_note)
{
    const struct rpt_run *r = rep->run;
    struct rpt__line lines[RPT__MAX_LINES];
    struct rpt__state_row st[RPT__NSTATE_ROWS];
    const char *kname[RPT__MAX_KINDS];
    double khours[RPT__MAX_KINDS], kcost[RPT__MAX_KINDS];
    int n = rpt__headline(rep, lines), ns = rpt__state_rows(r, st);
    int nk = rpt__kinds(r, kname, khours, kcost);
    char b1[64], b2[64], b3[64], b4[64], title[64], note[RPT__NOTE_LEN];
    int has_pi = rpt__pi_title(r, title, sizeof(title));

    fprintf(fp, "# Cost report: ");
    rpt__md_text(fp, r->scenario_name);
    fprintf(fp, "\n\nRun %lld, seed %llu, policy ", (long long)r->id,
            (unsigned long long)r->seed);
    rpt__md_text(fp, r->policy ? r->policy : "none (static cluster)");
    if (rep->self_baseline)
        fprintf(fp, "; a static cluster, its own baseline");
    else if (rep->baseline != NULL)
        fprintf(fp, "; baseline: run %lld (static, sized for the peak)",
                (long long)rep->baseline->id);
    fprintf(fp, ".\n\n## Headline\n\n");
    if (has_pi)
        fprintf(fp,
                "| figure | value | %s | unit |\n"
                "| --- | ---: | ---: | --- |\n",
                title);
    else
        fprintf(fp, "| figure | value | unit |\n| --- | ---: | --- |\n");
    for (int i = 0; i < n; i++) {
        fprintf(fp, "| %s | %s |", lines[i].label, lines[i].text);
        if (has_pi && !isnan(lines[i].lo))
            fprintf(fp, " %s-%s |", lines[i].lo_text, lines[i].hi_text);
        else if (has_pi)
            fprintf(fp, "  |");
        fprintf(fp, " %s |\n", lines[i].unit);
    }
    if (has_pi)
        fprintf(fp, "\n%s: what it holds is under " RPT__ENG_TITLE ".\n",
                title);
    fprintf(fp, "\n## Pools\n\n| pool | GPU | capacity | kind | USD per "
                "GPU-hour | GPU-hours held | GPU-hours paid | cost (USD) |\n"
                "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |\n");
    for (int p = 0; p < r->npools; p++) {
        const struct rpt_pool_row *pl = &r->pools[p];
        rpt__fmt(b1, sizeof(b1), pl->price_usd_per_gpu_hour, 2);
        rpt__fmt(b2, sizeof(b2), pl->gpu_hours_used, 2);
        rpt__fmt(b3, sizeof(b3), pl->gpu_hours_paid, 2);
        rpt__fmt(b4, sizeof(b4), pl->cost_usd, 2);
        fprintf(fp, "| ");
        rpt__md_text(fp, pl->name);
        fprintf(fp, " | ");
        rpt__md_text(fp, pl->gpu);
        fprintf(fp, " | %d | %s%s | %s | %s | %s | %s |\n", pl->capacity_gpus,
                pl->reserved ? "reserved" : "on demand",
                pl->borrowable ? ", borrowable" : "", b1, b2, b3, b4);
    }
    fprintf(fp, "\n## By GPU kind\n\n| GPU | GPU-hours paid | cost (USD) |\n"
                "| --- | ---: | ---: |\n");
    for (int k = 0; k < nk; k++) {
        rpt__fmt(b1, sizeof(b1), khours[k], 2);
        rpt__fmt(b2, sizeof(b2), kcost[k], 2);
        fprintf(fp, "| ");
        rpt__md_text(fp, kname[k]);
        fprintf(fp, " | %s | %s |\n", b1, b2);
    }
    fprintf(fp, "\n## By state\n\n| state | GPU-hours | cost (USD) |\n"
                "| --- | ---: | ---: |\n");
    for (int s = 0; s < ns; s++) {
        rpt__fmt(b1, sizeof(b1), st[s].hours, 2);
        rpt__fmt(b2, sizeof(b2), st[s].cost, 2);
        fprintf(fp, "| %s | %s | %s |\n", st[s].name, b1, b2);
    }
    fprintf(fp, "\n## Prices\n\n| pool | GPU | USD per GPU-hour | provider | "
                "region | basis | date | source |\n| --- | --- | ---: | --- | "
                "--- | --- | --- | --- |\n");
    for (int p = 0; p < r->npools; p++) {
        const struct rpt_pool_row *pl = &r->pools[p];
        struct rpt__price pr;
        const char *cells[RPT__PRICE_COLS];

        rpt__price_of(pl, &pr);
        rpt__price_cells(&pr, cells);
        rpt__fmt(b1, sizeof(b1), pl->price_usd_per_gpu_hour, 2);
        fprintf(fp, "| ");
        rpt__md_text(fp, pl->name);
        fprintf(fp, " | ");
        rpt__md_text(fp, pl->gpu);
        fprintf(fp, " | %s |", b1);
        for (int k = 0; k < 5; k++) {
            fprintf(fp, " ");
            rpt__md_text(fp, cells[k]);
            fprintf(fp, " |");
        }
        fprintf(fp, "\n");
    }
    rpt__borrow_note(r, note, sizeof(note));
    if (note[0] != '\0') {
        fprintf(fp, "\n");
        rpt__md_text(fp, note);
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n%s\n\n## Charts\n\n", rpt__price_caveat);
    for (int c = 0; c < RPT__NCHARTS; c++)
        if (charts[c].path != NULL)
            fprintf(fp, "![%s](%s)\n\n", charts[c].title, charts[c].file);
    fprintf(fp, "## " RPT__FIN_TITLE "\n\n");
    rpt__savings_note(rep, note, sizeof(note));
    md_item(fp, note);
    {
        char tn[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN];
        int ntn = rpt__time_notes(rep, tn);
        for (int i = 0; i < ntn; i++)
            md_item(fp, tn[i]);
    }
    md_item(fp, "Per day and per month scale the simulated time.");
    fprintf(fp, "\n## " RPT__ENG_TITLE "\n\n");
    rpt__calib_note(rep, note, sizeof(note));
    md_item(fp, note);
    if (has_pi) {
        rpt__pi_note(r, note, sizeof(note));
        md_item(fp, note);
    }
    if (chart_note != NULL) {
        snprintf(note, sizeof(note), "%s.", chart_note);
        md_item(fp, note);
    }
    for (int i = 0; i < r->nnotes; i++)
        md_item(fp, r->notes[i]);
    return 0;
}

void rpt__csv_num(FILE *fp, double v)
{
    if (!isnan(v))
        fprintf(fp, "%.17g", v);
}

static FILE *csv_open(const char *dir, const char *name, char **path)
{
    *path = xasprintf("%s/%s", dir, name);
    return fopen(*path, "w");
}

static int csv_close(FILE *fp, char *path, struct sim_diag *d)
{
    int rc = 0;

    if (fp == NULL || ferror(fp))
        rc = SIM_EIO;
    if (fp != NULL && fclose(fp) != 0)
        rc = SIM_EIO;
    if (rc != 0)
        sim_diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
    free(path);
    return rc;
}

/* A row of notes.csv, none for an empty text. */
static void csv_note(FILE *fp, const char *section, const char *text)
{
    if (text[0] == '\0')
        return;
    fprintf(fp, "%s,", section);
    rpt_csv_field(fp, text);
    fprintf(fp, "\r\n");
}

int rpt__write_csv(const struct rpt_report *rep, const char *out_dir,
                   struct sim_diag *d)
{
    const struct rpt_run *r = rep->run;
    struct rpt__line lines[RPT__MAX_LINES];
    struct rpt__state_row st[RPT__NSTATE_ROWS];
    int n = rpt__headline(rep, lines), ns = rpt__state_rows(r, st), rc = 0;
    char *path;
    FILE *fp;

    /* CRLF line ends, as RFC 4180 says. The intervals' columns go last,
     * so that a reader of the four columns of a run without intervals
     * reads a run with them too. */
    fp = csv_open(out_dir, "headline.csv", &path);
    if (fp != NULL) {
        fprintf(fp, "metric,value,unit,label%s\r\n", r->pi ? ",lo,hi" : "");
        for (int i = 0; i < n; i++) {
            fprintf(fp, "%s,", lines[i].key);
            rpt__csv_num(fp, lines[i].value);
            fprintf(fp, ",");
            rpt_csv_field(fp, lines[i].unit);
            fprintf(fp, ",");
            rpt_csv_field(fp, lines[i].label);
            if (r->pi != NULL) {
                fprintf(fp, ",");
                rpt__csv_num(fp, lines[i].lo);
                fprintf(fp, ",");
                rpt__csv_num(fp, lines[i].hi);
            }
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_close(fp, path, d);

    /* The table prediction_intervals as stored, beside the run's value of
     * each metric (its summary, in the interval's unit). */
    if (r->pi != NULL) {
        fp = csv_open(out_dir, "prediction_intervals.csv", &path);
        if (fp != NULL) {
            fprintf(fp, "run_id,metric,unit,value,lo,hi,median,level,draws,"
                        "params,structural\r\n");
            for (int m = 0; m < CL_PI_N; m++) {
                fprintf(fp, "%lld,%s,", (long long)r->id, cl_pi_json[m]);
                rpt_csv_field(fp, cl_pi_unit[m]);
                fprintf(fp, ",");
                rpt__csv_num(fp, rpt__pi_value(r, (enum cl_pi_metric)m));
                fprintf(fp, ",");
                rpt__csv_num(fp, r->pi->lo[m]);
                fprintf(fp, ",");
                rpt__csv_num(fp, r->pi->hi[m]);
                fprintf(fp, ",");
                rpt__csv_num(fp, r->pi->median[m]);
                fprintf(fp, ",");
                rpt__csv_num(fp, r->pi->level);
                fprintf(fp, ",%d,%d,%d\r\n", r->pi->n, r->pi->nparams,
                        r->pi->structural);
            }
        }
        rc |= csv_close(fp, path, d);
    }

    fp = csv_open(out_dir, "pools.csv", &path);
    if (fp != NULL) {
        fprintf(fp, "pool,gpu,capacity_gpus,reserved,borrowable,"
                    "price_usd_per_gpu_hour,gpu_hours_used,gpu_hours_paid,"
                    "cost_usd\r\n");
        for (int p = 0; p < r->npools; p++) {
            const struct rpt_pool_row *pl = &r->pools[p];
            rpt_csv_field(fp, pl->name);
            fprintf(fp, ",");
            rpt_csv_field(fp, pl->gpu);
            fprintf(fp, ",%d,%d,%d,", pl->capacity_gpus, pl->reserved,
                    pl->borrowable);
            rpt__csv_num(fp, pl->price_usd_per_gpu_hour);
            fprintf(fp, ",");
            rpt__csv_num(fp, pl->gpu_hours_used);
            fprintf(fp, ",");
            rpt__csv_num(fp, pl->gpu_hours_paid);
            fprintf(fp, ",");
            rpt__csv_num(fp, pl->cost_usd);
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_close(fp, path, d);

    /* The "Prices" table: one row per pool, where its price comes from. */
    fp = csv_open(out_dir, "prices.csv", &path);
    if (fp != NULL) {
        fprintf(fp, "pool,gpu,price_usd_per_gpu_hour,provider,region,basis,"
                    "date,source,borrowable,gpu_hours_borrowed\r\n");
        for (int p = 0; p < r->npools; p++) {
            const struct rpt_pool_row *pl = &r->pools[p];
            struct rpt__price pr;
            const char *cells[RPT__PRICE_COLS];

            rpt__price_of(pl, &pr);
            rpt__price_cells(&pr, cells);
            rpt_csv_field(fp, pl->name);
            fprintf(fp, ",");
            rpt_csv_field(fp, pl->gpu);
            fprintf(fp, ",");
            rpt__csv_num(fp, pl->price_usd_per_gpu_hour);
            for (int k = 0; k < 5; k++) {
                fprintf(fp, ",");
                rpt_csv_field(fp, cells[k]);
            }
            fprintf(fp, ",%d,", pl->borrowable);
            rpt__csv_num(fp, pl->borrowable ? pl->gpu_hours_used : 0);
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_close(fp, path, d);

    /* The notes of the other formats, finance first. */
    fp = csv_open(out_dir, "notes.csv", &path);
    if (fp != NULL) {
        char note[RPT__NOTE_LEN], tn[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN];
        int ntn = rpt__time_notes(rep, tn);

        fprintf(fp, "section,text\r\n");
        rpt__borrow_note(r, note, sizeof(note));
        csv_note(fp, "finance", note);
        csv_note(fp, "finance", rpt__price_caveat);
        rpt__savings_note(rep, note, sizeof(note));
        csv_note(fp, "finance", note);
        for (int i = 0; i < ntn; i++)
            csv_note(fp, "finance", tn[i]);
        rpt__calib_note(rep, note, sizeof(note));
        csv_note(fp, "engineering", note);
        rpt__pi_note(r, note, sizeof(note));
        csv_note(fp, "engineering", note);
        for (int i = 0; i < r->nnotes; i++)
            csv_note(fp, "engineering", r->notes[i]);
    }
    rc |= csv_close(fp, path, d);

    fp = csv_open(out_dir, "states.csv", &path);
    if (fp != NULL) {
        fprintf(fp, "pool,state,gpu_hours,cost_usd\r\n");
        for (int s = 0; s < ns; s++) {
            fprintf(fp, "(all),");
            rpt_csv_field(fp, st[s].name);
            fprintf(fp, ",");
            rpt__csv_num(fp, st[s].hours);
            fprintf(fp, ",");
            rpt__csv_num(fp, st[s].cost);
            fprintf(fp, "\r\n");
        }
        for (int p = 0; p < r->npools; p++)
            for (int s = 0; s < CL_GS_COUNT; s++) {
                const struct rpt_pool_row *pl = &r->pools[p];
                rpt_csv_field(fp, pl->name);
                fprintf(fp, ",%s,", cl_gpu_state_name(s));
                rpt__csv_num(fp, pl->gpu_hours_by_state[s]);
                fprintf(fp, ",");
                rpt__csv_num(fp, pl->gpu_hours_by_state[s] *
                                     pl->price_usd_per_gpu_hour);
                fprintf(fp, "\r\n");
            }
    }
    rc |= csv_close(fp, path, d);

    fp = csv_open(out_dir, "timeseries.csv", &path);
    if (fp != NULL) {
        fprintf(fp, "t_start_s,t_end_s,arrivals,gpus_mean,replicas_mean,"
                    "ttft_p50_ms,ttft_p99_ms,tpot_p50_ms,tpot_p99_ms");
        for (int p = 0; r->pool_cost_usd && p < r->npools; p++) {
            char *h = xasprintf("cost_usd.%s", r->pools[p].name);
            fprintf(fp, ",");
            rpt_csv_field(fp, h);
            free(h);
        }
        fprintf(fp, "\r\n");
        for (size_t i = 0; i < r->nseries; i++) {
            const struct rpt_series_row *s = &r->series[i];
            const double v[] = {
                s->t_start_s,   s->t_end_s,       s->arrivals,
                s->gpus_mean,   s->replicas_mean, s->ttft_p50_ms,
                s->ttft_p99_ms, s->tpot_p50_ms,   s->tpot_p99_ms};
            for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
                fprintf(fp, "%s", j ? "," : "");
                rpt__csv_num(fp, v[j]);
            }
            for (int p = 0; r->pool_cost_usd && p < r->npools; p++) {
                fprintf(fp, ",");
                rpt__csv_num(
                    fp, r->pool_cost_usd[i * (size_t)r->npools + (size_t)p]);
            }
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_close(fp, path, d);

    /* replica_series, under vLLM's metric names (docs/results.md). */
    fp = csv_open(out_dir, "replicas.csv", &path);
    if (fp != NULL) {
        fprintf(fp, "t_start_s,t_end_s,replica,pool,state,"
                    "num_requests_running_mean,num_requests_waiting_mean,"
                    "num_requests_running,num_requests_waiting,"
                    "kv_cache_usage_perc_mean,kv_cache_usage_perc,"
                    "prefix_cache_hit_rate,prompt_tokens,generation_tokens,"
                    "request_success\r\n");
        for (size_t i = 0; i < r->nreplicas; i++) {
            const struct rpt_replica_row *x = &r->replicas[i];
            const double v[] = {
                x->num_requests_running_mean, x->num_requests_waiting_mean,
                x->num_requests_running,      x->num_requests_waiting,
                x->kv_cache_usage_perc_mean,  x->kv_cache_usage_perc,
                x->prefix_cache_hit_rate,     x->prompt_tokens,
                x->generation_tokens,         x->request_success};
            rpt__csv_num(fp, x->t_start_s);
            fprintf(fp, ",");
            rpt__csv_num(fp, x->t_end_s);
            fprintf(fp, ",%lld,", (long long)x->replica);
            rpt_csv_field(fp, x->pool != NULL ? x->pool : "");
            fprintf(fp, ",");
            rpt_csv_field(fp, x->state != NULL ? x->state : "");
            for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
                fprintf(fp, ",");
                rpt__csv_num(fp, v[j]);
            }
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_close(fp, path, d);
    return rc != 0 ? SIM_EIO : 0;
}
