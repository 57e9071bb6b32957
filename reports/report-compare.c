/* The comparison report: a "dsec compare" read back from the database and
 * written as HTML, Markdown or CSV. The statistics are those of
 * reports/compare.c (rpt_cmp_mean_ci, rpt_cmp_paired) applied to figures
 * recomputed from each run's summary rows, so the report reads only the
 * database. Rejected: storing the per-policy means at compare time (a
 * second copy of numbers the runs already hold). The runs are loaded one by
 * one with rpt_run_load(), a connection each: a few dozen opens at most. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "reports/gnuplot.h"
#include "reports/report-int.h"
#include "base/errors.h"
#include "base/xalloc.h"

/* Per figure: the summary metric it comes from (NULL: computed), a scale,
 * decimals in tables. Indexed like RPT_CMP_* then the extra figure. */
static const struct {
    const char *summary;
    double scale;
    int prec;
} figs[RPT_CREP_NMETRICS] = {
    [RPT_CMP_SLO_ATTAINMENT] = {"slo_attainment", 100, 2},
    [RPT_CMP_TTFT_P99] = {"ttft_ms.p99", 1, 1},
    [RPT_CMP_TPOT_P99] = {"tpot_ms.p99", 1, 2},
    [RPT_CMP_GPU_HOURS] = {"gpu_hours", 1, 3},
    [RPT_CMP_COST] = {"cost_usd", 1, 2},
    [RPT_CMP_SCALE_EVENTS] = {"scale_events", 1, 1},
    [RPT_CMP_COLD_STARTS] = {"cold_starts", 1, 1},
    [RPT_CREP_COST_PER_M_OUTPUT] = {NULL, 1, 4},
};

/* Table order: cost per 1M output tokens right after cost. */
static const int order[RPT_CREP_NMETRICS] = {
    RPT_CMP_SLO_ATTAINMENT, RPT_CMP_TTFT_P99,    RPT_CMP_TPOT_P99,
    RPT_CMP_GPU_HOURS,      RPT_CMP_COST,        RPT_CREP_COST_PER_M_OUTPUT,
    RPT_CMP_SCALE_EVENTS,   RPT_CMP_COLD_STARTS,
};

const char *rpt_crep_label(int m)
{
    if (m == RPT_CREP_COST_PER_M_OUTPUT)
        return "cost per 1M output tokens (USD)";
    return rpt_cmp_metric_label(m);
}

const char *rpt_crep_name(int m)
{
    if (m == RPT_CREP_COST_PER_M_OUTPUT)
        return "cost_per_m_output_tokens_usd";
    return rpt_cmp_metric_name(m);
}

double rpt_crep_value(const struct rpt_cmp_report *c, int p, int r, int m)
{
    const struct rpt_run *run;

    if (p < 0 || p >= c->npolicies || r < 0 || r >= c->nreps || m < 0 ||
        m >= RPT_CREP_NMETRICS)
        return NAN;
    run = c->runs[(size_t)p * (size_t)c->nreps + (size_t)r];
    if (figs[m].summary == NULL) {
        double cost = rpt_run_metric(run, "cost_usd");
        double out = rpt_run_metric(run, "output_tokens");
        return out > 0 ? cost / out * 1e6 : NAN;
    }
    return figs[m].scale * rpt_run_metric(run, figs[m].summary);
}

static double *gather(const struct rpt_cmp_report *c, int p, int m)
{
    double *x = xmalloc((size_t)c->nreps * sizeof(*x));

    for (int r = 0; r < c->nreps; r++)
        x[r] = rpt_crep_value(c, p, r, m);
    return x;
}

struct rpt_cmp_stat rpt_crep_stat(const struct rpt_cmp_report *c, int p, int m)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double *x;

    if (p < 0 || p >= c->npolicies || m < 0 || m >= RPT_CREP_NMETRICS)
        return s;
    x = gather(c, p, m);
    s = rpt_cmp_mean_ci(x, c->nreps);
    free(x);
    return s;
}

struct rpt_cmp_stat rpt_crep_diff(const struct rpt_cmp_report *c, int p, int m)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double *x, *base;

    if (p < 0 || p >= c->npolicies || m < 0 || m >= RPT_CREP_NMETRICS)
        return s;
    x = gather(c, p, m);
    base = gather(c, 0, m);
    s = rpt_cmp_paired(x, base, c->nreps);
    free(x);
    free(base);
    return s;
}

int rpt_cmp_peak_replicas(const struct rpt_cmp_report *c)
{
    double peak = 1;

    for (int i = 0; i < c->npolicies * c->nreps; i++) {
        double m = rpt_run_metric(c->runs[i], "replicas.max");
        if (m > peak)
            peak = m;
    }
    return (int)peak;
}

char *rpt_cmp_baseline_note(int64_t id, int r, int replicas)
{
    return xasprintf("static baseline of comparison %lld, replication %d: "
                     "replicas: %d (the most any policy held), same "
                     "workload and seed",
                     (long long)id, r, replicas);
}

int rpt_cmp_baseline_find(const char *db_path, const char *note,
                          int64_t *run_id, struct sim_diag *d)
{
    sqlite3 *sql = rpt__open_db(db_path, 0, d);
    sqlite3_stmt *st = NULL;
    int rc, ret = 1;

    if (sql == NULL)
        return SIM_EDB;
    /* Such a baseline is linked to itself in table baselines, which keeps
     * it out of --latest; its note says whose it is. */
    rc = sqlite3_prepare_v2(sql,
                            "SELECT max(n.run_id) FROM notes n JOIN "
                            "baselines b ON b.run_id = n.run_id AND "
                            "b.baseline_run_id = n.run_id WHERE n.text = ?1",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, note, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *run_id = sqlite3_column_int64(st, 0);
        ret = 0;
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sim_diag_error(d, db_path, 0, 0, "cannot read database: %s",
                       sqlite3_errmsg(sql));
        ret = SIM_EDB;
    }
    sqlite3_finalize(st);
    sqlite3_close(sql);
    return ret;
}

struct rpt_cmp_stat rpt_crep_savings(const struct rpt_cmp_report *c, int p,
                                     int pct)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double *x;

    if (c->baselines == NULL || p < 0 || p >= c->npolicies)
        return s;
    x = xmalloc((size_t)c->nreps * sizeof(*x));
    for (int r = 0; r < c->nreps; r++) {
        double b = rpt_run_metric(c->baselines[r], "cost_usd");
        double e = rpt_crep_value(c, p, r, RPT_CMP_COST);
        x[r] = pct ? (b > 0 ? 100 * (b - e) / b : NAN) : b - e;
    }
    s = rpt_cmp_mean_ci(x, c->nreps);
    free(x);
    return s;
}

/* The static baseline's mean cost over the replications. */
static struct rpt_cmp_stat baseline_cost(const struct rpt_cmp_report *c)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double *x;

    if (c->baselines == NULL)
        return s;
    x = xmalloc((size_t)c->nreps * sizeof(*x));
    for (int r = 0; r < c->nreps; r++)
        x[r] = rpt_run_metric(c->baselines[r], "cost_usd");
    s = rpt_cmp_mean_ci(x, c->nreps);
    free(x);
    return s;
}

int rpt_cmp_latest(const char *db_path, int64_t *id, struct sim_diag *d)
{
    return rpt__query_id(db_path, "SELECT max(id) FROM comparisons", -1, id, d);
}

void rpt_cmp_report_fini(struct rpt_cmp_report *c)
{
    free(c->started_at);
    free(c->scenario_name);
    for (int p = 0; p < c->npolicies; p++)
        free(c->labels[p]);
    free(c->labels);
    for (int i = 0; c->runs != NULL && i < c->npolicies * c->nreps; i++)
        rpt_run_free(c->runs[i]);
    free(c->runs);
    for (int r = 0; c->baselines != NULL && r < c->nreps; r++)
        rpt_run_free(c->baselines[r]);
    free(c->baselines);
    memset(c, 0, sizeof(*c));
}

static char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? xstrdup((const char *)s) : NULL;
}

/* Reads the comparisons row; policies is the JSON array of labels. */
static int load_head(sqlite3 *sql, struct rpt_cmp_report *c, char **policies)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT started_at, scenario_name, policies, "
                                "replications, seed FROM comparisons WHERE "
                                "id = ?1",
                                -1, &st, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, c->id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        c->started_at = col_text(st, 0);
        c->scenario_name = col_text(st, 1);
        *policies = col_text(st, 2);
        c->nreps = sqlite3_column_int(st, 3);
        c->seed = (uint64_t)sqlite3_column_int64(st, 4);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_NOTFOUND;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Fills c->labels from the JSON array; returns 0 or -1 when malformed. */
static int parse_labels(struct rpt_cmp_report *c, const char *policies)
{
    struct json_object *a = policies ? json_tokener_parse(policies) : NULL;
    int n, rc = 0;

    if (a == NULL || !json_object_is_type(a, json_type_array) ||
        (n = (int)json_object_array_length(a)) < 1 ||
        n > RPT_CMP_MAX_POLICIES) {
        json_object_put(a);
        return -1;
    }
    c->labels = xcalloc((size_t)n, sizeof(char *));
    for (int p = 0; p < n; p++) {
        const char *s =
            json_object_get_string(json_object_array_get_idx(a, (size_t)p));
        c->labels[p] = xstrdup(s ? s : "");
    }
    c->npolicies = n;
    json_object_put(a);
    return rc;
}

/* Reads comparison_runs into ids[p * nreps + r]; a label given twice fills
 * its policies in order. */
static int load_links(sqlite3 *sql, const struct rpt_cmp_report *c,
                      int64_t *ids)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT run_id, policy, replication FROM "
                                "comparison_runs WHERE comparison_id = ?1 "
                                "ORDER BY rowid",
                                -1, &st, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, c->id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *label = (const char *)sqlite3_column_text(st, 1);
        int r = sqlite3_column_int(st, 2);

        rc = SQLITE_OK;
        if (label == NULL || r < 0 || r >= c->nreps)
            continue;
        for (int p = 0; p < c->npolicies; p++) {
            size_t k = (size_t)p * (size_t)c->nreps + (size_t)r;
            if (ids[k] < 0 && strcmp(c->labels[p], label) == 0) {
                ids[k] = sqlite3_column_int64(st, 0);
                break;
            }
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int rpt_cmp_report_load(const char *db_path, int64_t id,
                        struct rpt_cmp_report *c, struct sim_diag *d)
{
    sqlite3 *sql;
    char *policies = NULL;
    int64_t *ids = NULL;
    int rc, n = 0;

    memset(c, 0, sizeof(*c));
    c->id = id;
    c->target_tpot_ms = c->slo_tpot_ms = NAN;
    sql = rpt__open_db(db_path, 0, d);
    if (sql == NULL)
        return SIM_EDB;
    rc = load_head(sql, c, &policies);
    if (rc == SQLITE_NOTFOUND) {
        sim_diag_error(d, db_path, 0, 0, "no comparison %lld in this database",
                       (long long)id);
    } else if (rc == SQLITE_OK &&
               (c->nreps < 1 || c->nreps > RPT_CMP_MAX_REPLICATIONS ||
                parse_labels(c, policies) != 0)) {
        sim_diag_error(d, db_path, 0, 0,
                       "comparison %lld: bad policies or replications",
                       (long long)id);
        rc = SQLITE_CORRUPT;
    } else if (rc == SQLITE_OK) {
        n = c->npolicies * c->nreps;
        ids = xmalloc((size_t)n * sizeof(*ids));
        for (int i = 0; i < n; i++)
            ids[i] = -1;
        rc = load_links(sql, c, ids);
        if (rc != SQLITE_OK)
            sim_diag_error(d, db_path, 0, 0, "cannot read comparison: %s",
                           sqlite3_errmsg(sql));
    } else {
        sim_diag_error(d, db_path, 0, 0, "cannot read comparison: %s",
                       sqlite3_errmsg(sql));
    }
    sqlite3_close(sql);
    free(policies);
    if (rc == SQLITE_OK) {
        c->runs = xcalloc((size_t)n, sizeof(*c->runs));
        for (int i = 0; i < n && rc == SQLITE_OK; i++) {
            if (ids[i] < 0) {
                sim_diag_error(d, db_path, 0, 0,
                               "comparison %lld has no run for policy %s, "
                               "replication %d",
                               (long long)id, c->labels[i / c->nreps],
                               i % c->nreps);
                rc = SQLITE_CORRUPT;
            } else if ((c->runs[i] = rpt_run_load(db_path, ids[i], d)) ==
                       NULL) {
                rc = SQLITE_ERROR;
            }
        }
    }
    free(ids);
    if (rc != SQLITE_OK) {
        rpt_cmp_report_fini(c);
        return SIM_EDB;
    }
    return 0;
}

/* ---- charts ---- */

#define NCHARTS 3

static const char *const chart_files[NCHARTS] = {"replicas.png", "tpot.png",
                                                 "cost-by-policy.png"};
static const char *const chart_titles[NCHARTS] = {
    "Replicas serving over time (replication 0)",
    "p99 TPOT over time against the target (replication 0)",
    "Mean cost per policy (95% interval)"};

static void put(FILE *fp, double v)
{
    if (isnan(v))
        fprintf(fp, " ?");
    else
        fprintf(fp, " %.6g", v);
}

/* One data file per policy: minute, replicas, p99 TPOT of replication 0. */
static int series_data(const struct rpt_cmp_report *c, struct rpt_gp_job *j)
{
    for (int p = 0; p < c->npolicies; p++) {
        const struct rpt_run *r = c->runs[(size_t)p * (size_t)c->nreps];
        FILE *fp = fopen(rpt_gp_job_file(j, "p%d.dat", p), "w");

        if (fp == NULL)
            return -1;
        for (size_t i = 0; i < r->nseries; i++) {
            const struct rpt_series_row *s = &r->series[i];
            fprintf(fp, "%.6f", (s->t_start_s + s->t_end_s) / 2 / 60);
            put(fp, s->replicas_mean);
            put(fp, s->tpot_p99_ms);
            fputc('\n', fp);
        }
        if (fclose(fp) != 0)
            return -1;
    }
    return 0;
}

static void lines_script(FILE *fp, const struct rpt_cmp_report *c,
                         struct rpt_gp_job *j, int col)
{
    fprintf(fp, "set grid\nset key outside right top\n"
                "set xlabel 'time (min)'\nset autoscale xfixmax\n"
                "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n");
    if (col == 2)
        fprintf(fp, "set title 'replicas serving (replication 0)'\n"
                    "set ylabel 'replicas'\n");
    else
        fprintf(fp, "set title 'p99 TPOT per interval (replication 0)'\n"
                    "set ylabel 'p99 TPOT (ms)'\n");
    fprintf(fp, "plot ");
    for (int p = 0; p < c->npolicies; p++) {
        fprintf(fp, "%s", p ? ", " : "");
        rpt_gp_quote(fp, rpt_gp_job_file(j, "p%d.dat", p));
        fprintf(fp, " using 1:%d with lines lw 2 title ", col);
        rpt_gp_quote(fp, c->labels[p]);
    }
    if (col == 3 && !isnan(c->target_tpot_ms))
        fprintf(fp,
                ", %.17g with lines dt 2 lw 2 lc 'black' title 'target "
                "latency'",
                c->target_tpot_ms);
    if (col == 3 && !isnan(c->slo_tpot_ms))
        fprintf(fp, ", %.17g with lines dt 3 lw 2 lc 'red' title 'SLO'",
                c->slo_tpot_ms);
    fputc('\n', fp);
}

/* Bars: x, label (double-quoted, which cannot hold a double quote), mean,
 * half-width (0 when undefined, so the bar is still drawn). */
static int cost_script(FILE *fp, const struct rpt_cmp_report *c,
                       const char *dat)
{
    FILE *df = fopen(dat, "w");

    if (df == NULL)
        return -1;
    for (int p = 0; p < c->npolicies; p++) {
        struct rpt_cmp_stat s = rpt_crep_stat(c, p, RPT_CMP_COST);
        fprintf(df, "%d \"", p);
        for (const char *ch = c->labels[p]; *ch != '\0'; ch++)
            fputc(*ch == '"' ? '\'' : *ch == '\n' ? ' ' : *ch, df);
        fputc('"', df);
        put(df, s.mean);
        put(df, isnan(s.ci95) ? 0 : s.ci95);
        fputc('\n', df);
    }
    if (fclose(df) != 0)
        return -1;
    fprintf(fp,
            "set grid ytics\nset key off\n"
            "set title 'mean cost per policy, 95%% interval'\n"
            "set ylabel 'USD'\nset yrange [0:*]\n"
            "set style fill solid 0.7 border -1\nset boxwidth 0.6\n"
            "set xrange [-0.5:%d.5]\nplot ",
            c->npolicies - 1);
    rpt_gp_quote(fp, dat);
    fprintf(fp, " using 1:3:4:xticlabels(2) with boxerrorbars lw 2\n");
    return 0;
}

/* Draws the charts, each an optional part of the report (a chart that
 * cannot be drawn is a note); paths[c] is set for each drawn. Returns the
 * count. */
static int charts_draw(const struct rpt_cmp_report *c, const char *out_dir,
                       const char *gnuplot_path, char **paths,
                       struct sim_diag *d)
{
    struct rpt_gp_job j;
    char *why = NULL;
    int ndrawn = 0, have_data;

    for (int k = 0; k < NCHARTS; k++)
        paths[k] = NULL;
    if (gnuplot_path == NULL)
        return 0;
    if (rpt_gp_job_init(&j, gnuplot_path, &why) != 0) {
        rpt_gp_fail(d, RPT_GP_OPTIONAL, out_dir, "no charts: %s", why);
        free(why);
        return 0;
    }
    have_data = series_data(c, &j) == 0;
    for (int k = 0; k < NCHARTS; k++) {
        char *png = xasprintf("%s/%s", out_dir, chart_files[k]);
        const char *script = rpt_gp_job_file(&j, "c%d.gp", k);
        const char *dat = rpt_gp_job_file(&j, "c%d.dat", k);
        FILE *fp = fopen(script, "w");
        int ok = fp != NULL && (k == 2 || have_data);

        if (fp != NULL) {
            rpt_gp_terminal(fp, png, 1000, 500);
            if (k < 2)
                lines_script(fp, c, &j, k + 2);
            else if (cost_script(fp, c, dat) != 0)
                ok = 0;
            fprintf(fp, "set output\n");
            if (fclose(fp) != 0)
                ok = 0;
        }
        if (!ok) {
            rpt_gp_fail(d, RPT_GP_OPTIONAL, png,
                        "cannot draw chart: cannot write its data in %s",
                        j.dir);
        } else if (rpt_gp_job_run(&j, script, &why) != 0) {
            rpt_gp_fail(d, RPT_GP_OPTIONAL, png, "cannot draw chart: %s", why);
            free(why);
            why = NULL;
        } else {
            paths[k] = png;
            png = NULL;
            ndrawn++;
        }
        free(png);
    }
    rpt_gp_job_fini(&j);
    return ndrawn;
}

/* ---- tables ---- */

/* "mean ± ci95" (or the mean alone when ci95 is NAN) with prec decimals;
 * sign: a leading + on positive means. */
static void pm(char *buf, size_t len, struct rpt_cmp_stat s, int prec, int sign)
{
    char a[64], b[64];

    rpt__fmt(a, sizeof(a), s.mean, prec);
    rpt__fmt(b, sizeof(b), s.ci95, prec);
    if (isnan(s.ci95))
        snprintf(buf, len, "%s%s", sign && s.mean > 0 ? "+" : "", a);
    else
        snprintf(buf, len, "%s%s \xc2\xb1 %s", sign && s.mean > 0 ? "+" : "", a,
                 b);
}

/* The savings table: one row per policy of SAV_NCOLS cells, texts in
 * buf[p][k]. */
#define SAV_NCOLS 5
static const char *const sav_head[SAV_NCOLS] = {
    "policy", "static cluster sized for the peak (USD)", "policy cost (USD)",
    "savings (USD)", "savings (%)"};

static void sav_cells(const struct rpt_cmp_report *c, int p,
                      char buf[SAV_NCOLS][160])
{
    snprintf(buf[0], 160, "%s", c->labels[p]);
    pm(buf[1], 160, baseline_cost(c), 2, 0);
    pm(buf[2], 160, rpt_crep_stat(c, p, RPT_CMP_COST), 2, 0);
    pm(buf[3], 160, rpt_crep_savings(c, p, 0), 2, 1);
    pm(buf[4], 160, rpt_crep_savings(c, p, 1), 1, 1);
}

/* The sentence under the savings table. */
static void sav_note(const struct rpt_cmp_report *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "The static cluster sized for the peak is the scenario run with "
             "cluster.replicas = %d, the most replicas any policy held, no "
             "policy and no pools, on the first pool's GPU at its price, once "
             "per replication with that replication's seed (runs %lld..%lld). "
             "Savings are its cost minus the policy's, replication by "
             "replication; negative when the policy paid more.",
             c->baseline_replicas, (long long)c->baselines[0]->id,
             (long long)c->baselines[c->nreps - 1]->id);
}

static void html_head(FILE *fp, int first_cell_header)
{
    fprintf(fp, "<tr><th>%s</th>", first_cell_header ? "policy" : "");
    for (int i = 0; i < RPT_CREP_NMETRICS; i++)
        fprintf(fp, "<th>%s</th>", rpt_crep_label(order[i]));
    fprintf(fp, "</tr>\n");
}

static int write_html(const struct rpt_cmp_report *c, FILE *fp,
                      char *const *paths, const char *note)
{
    char buf[160];

    fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                "<meta charset=\"utf-8\">\n<title>dsec comparison report: ");
    rpt_html_escape(fp, c->scenario_name);
    fprintf(fp, "</title>\n<style>\n"
                "body{font-family:sans-serif;max-width:1200px;margin:2em "
                "auto;color:#222}\n"
                "table{border-collapse:collapse;margin:1em 0}\n"
                "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
                "\ntd.n{text-align:right;font-variant-numeric:tabular-nums;"
                "white-space:nowrap}\n"
                "th{background:#f0f0f0}\nimg{max-width:100%%}\n"
                ".note{color:#555}\n</style>\n</head>\n<body>\n"
                "<h1>Comparison report: ");
    rpt_html_escape(fp, c->scenario_name);
    fprintf(fp, "</h1>\n<p>Comparison %lld, started ", (long long)c->id);
    rpt_html_escape(fp, c->started_at);
    fprintf(fp,
            ", %d polic%s, %d replication%s with seeds %llu..%llu (common "
            "random numbers: replication r of every policy has the same "
            "seed). Values are means over the replications \xc2\xb1 the "
            "half-width of the 95%% Student t interval.</p>\n",
            c->npolicies, c->npolicies == 1 ? "y" : "ies", c->nreps,
            c->nreps == 1 ? "" : "s", (unsigned long long)c->seed,
            (unsigned long long)(c->seed + (uint64_t)c->nreps - 1));
    fprintf(fp, "<h2>Policies</h2>\n<table id=\"policies\">\n");
    html_head(fp, 1);
    for (int p = 0; p < c->npolicies; p++) {
        fprintf(fp, "<tr class=\"policy\"><td>");
        rpt_html_escape(fp, c->labels[p]);
        fprintf(fp, "</td>");
        for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
            pm(buf, sizeof(buf), rpt_crep_stat(c, p, order[i]),
               figs[order[i]].prec, 0);
            fprintf(fp, "<td class=\"n\">%s</td>", buf);
        }
        fprintf(fp, "</tr>\n");
    }
    fprintf(fp, "</table>\n");
    if (c->baselines != NULL) {
        char cells[SAV_NCOLS][160], snote[1024];

        fprintf(fp, "<h2>Savings against the static cluster sized for the "
                    "peak</h2>\n<table id=\"savings\">\n<tr>");
        for (int k = 0; k < SAV_NCOLS; k++)
            fprintf(fp, "<th>%s</th>", sav_head[k]);
        fprintf(fp, "</tr>\n");
        for (int p = 0; p < c->npolicies; p++) {
            sav_cells(c, p, cells);
            fprintf(fp, "<tr><td>");
            rpt_html_escape(fp, cells[0]);
            fprintf(fp, "</td>");
            for (int k = 1; k < SAV_NCOLS; k++)
                fprintf(fp, "<td class=\"n\">%s</td>", cells[k]);
            fprintf(fp, "</tr>\n");
        }
        sav_note(c, snote, sizeof(snote));
        fprintf(fp, "</table>\n<p class=\"note\">");
        rpt_html_escape(fp, snote);
        fprintf(fp, "</p>\n");
    }
    if (c->npolicies > 1) {
        fprintf(fp, "<h2>Paired differences against ");
        rpt_html_escape(fp, c->labels[0]);
        fprintf(fp, "</h2>\n<p class=\"note\">Policy minus the first, "
                    "replication by replication; <strong>*</strong>: the "
                    "95%% interval excludes 0.</p>\n"
                    "<table id=\"differences\">\n");
        html_head(fp, 1);
        for (int p = 1; p < c->npolicies; p++) {
            fprintf(fp, "<tr><td>");
            rpt_html_escape(fp, c->labels[p]);
            fprintf(fp, "</td>");
            for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
                struct rpt_cmp_stat s = rpt_crep_diff(c, p, order[i]);
                pm(buf, sizeof(buf), s, figs[order[i]].prec, 1);
                fprintf(fp, "<td class=\"n\">%s%s</td>", buf,
                        rpt_cmp_significant(s) ? " *" : "");
            }
            fprintf(fp, "</tr>\n");
        }
        fprintf(fp, "</table>\n");
    }
    fprintf(fp, "<h2>Charts</h2>\n");
    if (note != NULL) {
        fprintf(fp, "<p class=\"note\"><strong>");
        rpt_html_escape(fp, note);
        fprintf(fp, ".</strong></p>\n");
    }
    for (int k = 0; k < NCHARTS; k++) {
        if (paths[k] == NULL)
            continue;
        fprintf(fp, "<h3>%s</h3>\n<img alt=\"%s\" src=\"data:image/png;base64,",
                chart_titles[k], chart_titles[k]);
        rpt__base64(fp, paths[k]);
        fprintf(fp, "\">\n");
    }
    fprintf(fp, "<h2>Runs</h2>\n<p class=\"note\">Each run's own cost report: "
                "<code>dsec report RUN-ID</code>.</p>\n<table id=\"runs\">\n"
                "<tr><th>policy</th><th>replication</th><th>run</th>"
                "<th>seed</th>");
    for (int i = 0; i < RPT_CREP_NMETRICS; i++)
        fprintf(fp, "<th>%s</th>", rpt_crep_label(order[i]));
    fprintf(fp, "</tr>\n");
    for (int p = 0; p < c->npolicies; p++)
        for (int r = 0; r < c->nreps; r++) {
            const struct rpt_run *run =
                c->runs[(size_t)p * (size_t)c->nreps + (size_t)r];
            fprintf(fp, "<tr><td>");
            rpt_html_escape(fp, c->labels[p]);
            fprintf(fp,
                    "</td><td class=\"n\">%d</td><td class=\"n\">%lld</td>"
                    "<td class=\"n\">%llu</td>",
                    r, (long long)run->id, (unsigned long long)run->seed);
            for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
                rpt__fmt(buf, sizeof(buf), rpt_crep_value(c, p, r, order[i]),
                         figs[order[i]].prec);
                fprintf(fp, "<td class=\"n\">%s</td>", buf);
            }
            fprintf(fp, "</tr>\n");
        }
    fprintf(fp, "</table>\n</body>\n</html>\n");
    return 0;
}

static void md_head(FILE *fp, const char *first)
{
    fprintf(fp, "| %s |", first);
    for (int i = 0; i < RPT_CREP_NMETRICS; i++)
        fprintf(fp, " %s |", rpt_crep_label(order[i]));
    fprintf(fp, "\n| --- |");
    for (int i = 0; i < RPT_CREP_NMETRICS; i++)
        fprintf(fp, " ---: |");
    fprintf(fp, "\n");
}

static int write_md(const struct rpt_cmp_report *c, FILE *fp,
                    char *const *paths, const char *note)
{
    char buf[160];

    fprintf(fp, "# Comparison report: ");
    rpt__md_text(fp, c->scenario_name);
    fprintf(fp,
            "\n\nComparison %lld, %d replication%s, seeds %llu..%llu "
            "(common random numbers). Means over the replications "
            "\xc2\xb1 the half-width of the 95%% t interval.\n\n",
            (long long)c->id, c->nreps, c->nreps == 1 ? "" : "s",
            (unsigned long long)c->seed,
            (unsigned long long)(c->seed + (uint64_t)c->nreps - 1));
    md_head(fp, "policy");
    for (int p = 0; p < c->npolicies; p++) {
        fprintf(fp, "| ");
        rpt__md_text(fp, c->labels[p]);
        fprintf(fp, " |");
        for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
            pm(buf, sizeof(buf), rpt_crep_stat(c, p, order[i]),
               figs[order[i]].prec, 0);
            fprintf(fp, " %s |", buf);
        }
        fprintf(fp, "\n");
    }
    if (c->baselines != NULL) {
        char cells[SAV_NCOLS][160], snote[1024];

        fprintf(fp, "\n## Savings against the static cluster sized for the "
                    "peak\n\n|");
        for (int k = 0; k < SAV_NCOLS; k++)
            fprintf(fp, " %s |", sav_head[k]);
        fprintf(fp, "\n| --- | ---: | ---: | ---: | ---: |\n");
        for (int p = 0; p < c->npolicies; p++) {
            sav_cells(c, p, cells);
            fprintf(fp, "| ");
            rpt__md_text(fp, cells[0]);
            for (int k = 1; k < SAV_NCOLS; k++)
                fprintf(fp, " | %s", cells[k]);
            fprintf(fp, " |\n");
        }
        sav_note(c, snote, sizeof(snote));
        fprintf(fp, "\n");
        rpt__md_text(fp, snote);
        fprintf(fp, "\n");
    }
    if (c->npolicies > 1) {
        fprintf(fp, "\n## Paired differences against ");
        rpt__md_text(fp, c->labels[0]);
        fprintf(fp, "\n\n\\*: the 95%% interval excludes 0.\n\n");
        md_head(fp, "policy");
        for (int p = 1; p < c->npolicies; p++) {
            fprintf(fp, "| ");
            rpt__md_text(fp, c->labels[p]);
            fprintf(fp, " |");
            for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
                struct rpt_cmp_stat s = rpt_crep_diff(c, p, order[i]);
                pm(buf, sizeof(buf), s, figs[order[i]].prec, 1);
                fprintf(fp, " %s%s |", buf,
                        rpt_cmp_significant(s) ? " \\*" : "");
            }
            fprintf(fp, "\n");
        }
    }
    fprintf(fp, "\n## Charts\n\n");
    if (note != NULL)
        fprintf(fp, "**%s.**\n\n", note);
    for (int k = 0; k < NCHARTS; k++)
        if (paths[k] != NULL)
            fprintf(fp, "![%s](%s)\n\n", chart_titles[k], chart_files[k]);
    return 0;
}

static int csv_done(FILE *fp, char *path, struct sim_diag *d)
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

/* CRLF line ends, as RFC 4180 says; one column per figure and statistic. */
static int write_csv(const struct rpt_cmp_report *c, const char *out_dir,
                     struct sim_diag *d)
{
    char *path = xasprintf("%s/policies.csv", out_dir);
    FILE *fp = fopen(path, "w");
    int rc = 0;

    if (fp != NULL) {
        fprintf(fp, "policy,replications");
        for (int i = 0; i < RPT_CREP_NMETRICS; i++)
            fprintf(fp, ",%s_mean,%s_ci95", rpt_crep_name(order[i]),
                    rpt_crep_name(order[i]));
        fprintf(fp, "\r\n");
        for (int p = 0; p < c->npolicies; p++) {
            rpt_csv_field(fp, c->labels[p]);
            fprintf(fp, ",%d", c->nreps);
            for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
                struct rpt_cmp_stat s = rpt_crep_stat(c, p, order[i]);
                fprintf(fp, ",");
                rpt__csv_num(fp, s.mean);
                fprintf(fp, ",");
                rpt__csv_num(fp, s.ci95);
            }
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_done(fp, path, d);

    path = xasprintf("%s/differences.csv", out_dir);
    fp = fopen(path, "w");
    if (fp != NULL) {
        fprintf(fp, "policy,versus");
        for (int i = 0; i < RPT_CREP_NMETRICS; i++)
            fprintf(fp, ",%s_diff_mean,%s_diff_ci95,%s_significant",
                    rpt_crep_name(order[i]), rpt_crep_name(order[i]),
                    rpt_crep_name(order[i]));
        fprintf(fp, "\r\n");
        for (int p = 1; p < c->npolicies; p++) {
            rpt_csv_field(fp, c->labels[p]);
            fprintf(fp, ",");
            rpt_csv_field(fp, c->labels[0]);
            for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
                struct rpt_cmp_stat s = rpt_crep_diff(c, p, order[i]);
                fprintf(fp, ",");
                rpt__csv_num(fp, s.mean);
                fprintf(fp, ",");
                rpt__csv_num(fp, s.ci95);
                fprintf(fp, ",%d", rpt_cmp_significant(s));
            }
            fprintf(fp, "\r\n");
        }
    }
    rc |= csv_done(fp, path, d);

    if (c->baselines != NULL) {
        path = xasprintf("%s/savings.csv", out_dir);
        fp = fopen(path, "w");
        if (fp != NULL) {
            struct rpt_cmp_stat b = baseline_cost(c);

            fprintf(fp, "policy,baseline_replicas,static_cost_usd_mean,"
                        "static_cost_usd_ci95,cost_usd_mean,cost_usd_ci95,"
                        "savings_usd_mean,savings_usd_ci95,savings_pct_mean,"
                        "savings_pct_ci95\r\n");
            for (int p = 0; p < c->npolicies; p++) {
                struct rpt_cmp_stat v[4] = {
                    b, rpt_crep_stat(c, p, RPT_CMP_COST),
                    rpt_crep_savings(c, p, 0), rpt_crep_savings(c, p, 1)};
                rpt_csv_field(fp, c->labels[p]);
                fprintf(fp, ",%d", c->baseline_replicas);
                for (int k = 0; k < 4; k++) {
                    fprintf(fp, ",");
                    rpt__csv_num(fp, v[k].mean);
                    fprintf(fp, ",");
                    rpt__csv_num(fp, v[k].ci95);
                }
                fprintf(fp, "\r\n");
            }
        }
        rc |= csv_done(fp, path, d);
    }

    path = xasprintf("%s/runs.csv", out_dir);
    fp = fopen(path, "w");
    if (fp != NULL) {
        fprintf(fp, "policy,replication,run_id,seed");
        for (int i = 0; i < RPT_CREP_NMETRICS; i++)
            fprintf(fp, ",%s", rpt_crep_name(order[i]));
        fprintf(fp, "\r\n");
        for (int p = 0; p < c->npolicies; p++)
            for (int r = 0; r < c->nreps; r++) {
                const struct rpt_run *run =
                    c->runs[(size_t)p * (size_t)c->nreps + (size_t)r];
                rpt_csv_field(fp, c->labels[p]);
                fprintf(fp, ",%d,%lld,%llu", r, (long long)run->id,
                        (unsigned long long)run->seed);
                for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
                    fprintf(fp, ",");
                    rpt__csv_num(fp, rpt_crep_value(c, p, r, order[i]));
                }
                fprintf(fp, "\r\n");
            }
    }
    rc |= csv_done(fp, path, d);
    return rc != 0 ? SIM_EIO : 0;
}

/* The comparison as PDF, in the order of write_html(), on landscape
 * pages: the policies and differences tables are turned (one row per
 * figure, one column per policy) so that they fit the page. */
static int write_pdf(const struct rpt_cmp_report *c, const char *path,
                     char *const *paths, const char *note, struct sim_diag *d)
{
    struct rpt__pdf *pdf = rpt__pdf_open(path, 1, d);
    int np = c->npolicies, nc = np + 1, nrun = c->npolicies * c->nreps;
    const char **head = xcalloc((size_t)nc + 1, sizeof(*head));
    int *num = xcalloc((size_t)RPT_CREP_NMETRICS + 5, sizeof(*num));
    const char **cells;
    char(*buf)[160];
    char text[1024];
    int rc;

    if (pdf == NULL) {
        free(head);
        free(num);
        return SIM_EINVAL;
    }
    cells = xcalloc((size_t)(RPT_CREP_NMETRICS + 4) * (size_t)(nrun + nc + 1),
                    sizeof(*cells));
    buf = xcalloc((size_t)(RPT_CREP_NMETRICS + 4) * (size_t)(nrun + nc + 1),
                  sizeof(*buf));
    snprintf(text, sizeof(text), "Comparison report: %s",
             c->scenario_name ? c->scenario_name : "");
    rpt__pdf_heading(pdf, text, 1);
    snprintf(text, sizeof(text),
             "Comparison %lld, started %s, %d polic%s, %d replication%s with "
             "seeds %llu..%llu (common random numbers: replication r of every "
             "policy has the same seed). Values are means over the "
             "replications \xc2\xb1 the half-width of the 95%% Student t "
             "interval.",
             (long long)c->id, c->started_at ? c->started_at : "?", np,
             np == 1 ? "y" : "ies", c->nreps, c->nreps == 1 ? "" : "s",
             (unsigned long long)c->seed,
             (unsigned long long)(c->seed + (uint64_t)c->nreps - 1));
    rpt__pdf_para(pdf, text, 9, 0);

    /* Policies: figures down, policies across. */
    rpt__pdf_heading(pdf, "Policies", 2);
    head[0] = "figure";
    for (int p = 0; p < np; p++) {
        head[p + 1] = c->labels[p];
        num[p + 1] = 1;
    }
    for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
        cells[i * nc] = rpt_crep_label(order[i]);
        for (int p = 0; p < np; p++) {
            pm(buf[i * nc + p + 1], 160, rpt_crep_stat(c, p, order[i]),
               figs[order[i]].prec, 0);
            cells[i * nc + p + 1] = buf[i * nc + p + 1];
        }
    }
    rpt__pdf_table(pdf, nc, head, num, RPT_CREP_NMETRICS, cells);

    if (c->baselines != NULL) {
        static const int snum[SAV_NCOLS] = {0, 1, 1, 1, 1};
        char(*sc)[SAV_NCOLS][160] = xcalloc((size_t)np, sizeof(*sc));
        const char **scell = xcalloc((size_t)np * SAV_NCOLS, sizeof(*scell));

        rpt__pdf_heading(pdf,
                         "Savings against the static cluster sized for "
                         "the peak",
                         2);
        for (int p = 0; p < np; p++) {
            sav_cells(c, p, sc[p]);
            for (int k = 0; k < SAV_NCOLS; k++)
                scell[p * SAV_NCOLS + k] = sc[p][k];
        }
        rpt__pdf_table(pdf, SAV_NCOLS, sav_head, snum, np, scell);
        sav_note(c, text, sizeof(text));
        rpt__pdf_para(pdf, text, 8, 0);
        free(sc);
        free(scell);
    }

    if (np > 1) {
        snprintf(text, sizeof(text), "Paired differences against %s",
                 c->labels[0]);
        rpt__pdf_heading(pdf, text, 2);
        rpt__pdf_para(pdf,
                      "Policy minus the first, replication by replication; "
                      "*: the 95% interval excludes 0.",
                      8, 0);
        head[0] = "figure";
        for (int p = 1; p < np; p++)
            head[p] = c->labels[p];
        for (int i = 0; i < RPT_CREP_NMETRICS; i++) {
            cells[i * np] = rpt_crep_label(order[i]);
            for (int p = 1; p < np; p++) {
                struct rpt_cmp_stat st = rpt_crep_diff(c, p, order[i]);
                char t[150];
                pm(t, sizeof(t), st, figs[order[i]].prec, 1);
                snprintf(buf[i * np + p], 160, "%s%s", t,
                         rpt_cmp_significant(st) ? " *" : "");
                cells[i * np + p] = buf[i * np + p];
            }
        }
        rpt__pdf_table(pdf, np, head, num, RPT_CREP_NMETRICS, cells);
    }

    rpt__pdf_heading(pdf, "Charts", 2);
    for (int k = 0; k < NCHARTS; k++)
        if (paths[k] != NULL)
            rpt__pdf_image(pdf, paths[k], chart_titles[k]);

    /* Runs: one row per run, as in the HTML. */
    rpt__pdf_heading(pdf, "Runs", 2);
    rpt__pdf_para(pdf, "Each run's own cost report: dsec report RUN-ID.", 8, 0);
    {
        int rc2 = 4 + RPT_CREP_NMETRICS, row = 0;
        const char **rh = xcalloc((size_t)rc2, sizeof(*rh));
        int *rn = xcalloc((size_t)rc2, sizeof(*rn));

        rh[0] = "policy";
        rh[1] = "replication";
        rh[2] = "run";
        rh[3] = "seed";
        for (int i = 0; i < RPT_CREP_NMETRICS; i++)
            rh[4 + i] = rpt_crep_label(order[i]);
        for (int k = 1; k < rc2; k++)
            rn[k] = 1;
        for (int p = 0; p < np; p++)
            for (int r = 0; r < c->nreps; r++, row++) {
                const struct rpt_run *run =
                    c->runs[(size_t)p * (size_t)c->nreps + (size_t)r];
                char(*b)[160] = buf + (size_t)row * (size_t)rc2;
                cells[row * rc2] = c->labels[p];
                snprintf(b[1], 160, "%d", r);
                snprintf(b[2], 160, "%lld", (long long)run->id);
                snprintf(b[3], 160, "%llu", (unsigned long long)run->seed);
                for (int i = 0; i < RPT_CREP_NMETRICS; i++)
                    rpt__fmt(b[4 + i], 160, rpt_crep_value(c, p, r, order[i]),
                             figs[order[i]].prec);
                for (int k = 1; k < rc2; k++)
                    cells[row * rc2 + k] = b[k];
            }
        rpt__pdf_table(pdf, rc2, rh, rn, row, cells);
        free(rh);
        free(rn);
    }
    if (note != NULL) {
        rpt__pdf_heading(pdf, "Engineering notes", 2);
        snprintf(text, sizeof(text), "%s.", note);
        rpt__pdf_para(pdf, text, 8, 1);
    }
    rc = rpt__pdf_close(pdf, path, d);
    free(head);
    free(num);
    free(cells);
    free(buf);
    return rc;
}

int rpt_cmp_report_write(const struct rpt_cmp_report *c, enum rpt_format fmt,
                         const char *out_dir, const char *gnuplot_path,
                         char **written, struct sim_diag *d)
{
    char *paths[NCHARTS] = {NULL, NULL, NULL};
    const char *note = NULL;
    char *path = NULL;
    int rc = 0;

    if (!rpt_format_available(fmt)) {
        sim_diag_error(d, out_dir, 0, 0,
                       "cannot write a PDF report: this dsec was built "
                       "without cairo (install libcairo2-dev and "
                       "reconfigure)");
        return SIM_EINVAL;
    }
    if (rpt__mkdir_p(out_dir) != 0) {
        sim_diag_error(d, out_dir, 0, 0, "cannot create directory: %s",
                       strerror(errno));
        return SIM_EIO;
    }
    if (fmt != RPT_FMT_CSV) {
        int n = charts_draw(c, out_dir, gnuplot_path, paths, d);
        note = rpt__no_chart_reason(n, NCHARTS, gnuplot_path);
        if (note != NULL && gnuplot_path == NULL)
            rpt_gp_fail(d, RPT_GP_OPTIONAL, out_dir, "%s", note);
    }
    if (fmt == RPT_FMT_CSV) {
        rc = write_csv(c, out_dir, d);
        path = xasprintf("%s/policies.csv", out_dir);
    } else if (fmt == RPT_FMT_PDF) {
        path = xasprintf("%s/comparison.pdf", out_dir);
        rc = write_pdf(c, path, paths, note, d);
    } else {
        FILE *fp;

        path = xasprintf("%s/comparison.%s", out_dir,
                         fmt == RPT_FMT_HTML ? "html" : "md");
        fp = fopen(path, "w");
        if (fp == NULL) {
            rc = SIM_EIO;
        } else {
            rc = fmt == RPT_FMT_HTML ? write_html(c, fp, paths, note)
                                     : write_md(c, fp, paths, note);
            if (ferror(fp))
                rc = SIM_EIO;
            if (fclose(fp) != 0)
                rc = SIM_EIO;
        }
        if (rc != 0)
            sim_diag_error(d, path, 0, 0, "cannot write report: %s",
                           strerror(errno));
    }
    for (int k = 0; k < NCHARTS; k++)
        free(paths[k]);
    if (rc == 0 && written != NULL)
        *written = path;
    else
        free(path);
    return rc;
}
