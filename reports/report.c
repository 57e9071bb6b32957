/* The cost report: reading runs back, the accounting, the baseline link and
 * the dispatch to the writers. The pools, timeseries and replica_series
 * rows are read through the field lists of models/cluster/results-fields.h
 * into the row structs report.h expands from the same lists, and summary
 * metrics are looked up under the names the lists give them, so the
 * reader cannot drift from the writer. The database is opened per call
 * (read-only for reads), as a report reads a few thousand rows once; the
 * cost of re-opening is a millisecond. */
#include "reports/report.h"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "models/gpu/gpu.h"
#include "reports/gnuplot.h"
#include "reports/report-int.h"
#include "base/errors.h"
#include "base/xalloc.h"

sqlite3 *rpt__open_db(const char *path, int write, struct sim_diag *d)
{
    sqlite3 *sql = NULL;
    int rc = sqlite3_open_v2(
        path, &sql, write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, NULL);

    if (rc != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "cannot open database: %s",
                       sql ? sqlite3_errmsg(sql) : sqlite3_errstr(rc));
        sqlite3_close(sql);
        return NULL;
    }
    sqlite3_busy_timeout(sql, 5000);
    return sql;
}

static char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? xstrdup((const char *)s) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL
               ? NAN
               : sqlite3_column_double(st, i);
}

static int load_runrow(sqlite3 *sql, struct rpt_run *r)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(
        sql,
        "SELECT started_at, scenario_name, scenario_file, scenario_text, "
        "program_version, policy, seed FROM runs WHERE id = ?1",
        -1, &st, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, r->id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        r->started_at = col_text(st, 0);
        r->scenario_name = col_text(st, 1);
        r->scenario_file = col_text(st, 2);
        r->scenario_text = col_text(st, 3);
        r->program_version = col_text(st, 4);
        r->policy = col_text(st, 5);
        r->seed = (uint64_t)sqlite3_column_int64(st, 6);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_NOTFOUND;
    }
    sqlite3_finalize(st);
    return rc;
}

static int load_summary(sqlite3 *sql, struct rpt_run *r)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT metric, value FROM summary WHERE "
                                "run_id = ?1 ORDER BY metric",
                                -1, &st, NULL);
    size_t cap = 0;

    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, r->id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((size_t)r->nmetrics == cap) {
            cap = cap ? 2 * cap : 64;
            r->metric_names = xrealloc(r->metric_names, cap, sizeof(char *));
            r->metric_values = xrealloc(r->metric_values, cap, sizeof(double));
        }
        r->metric_names[r->nmetrics] = col_text(st, 0);
        r->metric_values[r->nmetrics] = col_real(st, 1);
        r->nmetrics++;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Where the fields of each table's rows go in the row structs of
 * report.h. */
#define POOL_OFF(name, type, col, unit, help)                                  \
    offsetof(struct rpt_pool_row, name),
#define SERIES_OFF(name, type, col, unit, help)                                \
    offsetof(struct rpt_series_row, col),
#define REPLICA_OFF(name, type, col, unit, help)                               \
    offsetof(struct rpt_replica_row, col),
static const size_t pool_off[CL_POOL_NFIELDS] = {CL_POOL_FIELDS(POOL_OFF)};
static const size_t series_off[CL_SERIES_NFIELDS] = {
    CL_SERIES_FIELDS(SERIES_OFF)};
static const size_t replica_off[CL_REPLICA_NFIELDS] = {
    CL_REPLICA_FIELDS(REPLICA_OFF)};

/* Stores the columns of field f from *col on into the row struct member
 * at p, advancing *col (RPT_STORED_* says what each kind reads back as). */
static void store_field(sqlite3_stmt *st, int *col, const struct cl_rfield *f,
                        void *p)
{
    int i = *col;

    *col += cl_rfield_nsub(f);
    switch (f->type) {
    case CL_RT_SERIAL:
        *(int64_t *)p = sqlite3_column_int64(st, i);
        break;
    case CL_RT_INT:
    case CL_RT_BOOL:
        *(int *)p = sqlite3_column_int(st, i);
        break;
    case CL_RT_STR:
    case CL_RT_POOL:
    case CL_RT_RSTATE:
        *(char **)p = col_text(st, i);
        break;
    default:
        for (int sub = 0; sub < cl_rfield_nsub(f); sub++)
            ((double *)p)[sub] = col_real(st, i + sub);
        break;
    }
}

/* Reads the rows of run r from the table of array field f of the results
 * (f->db) in the given order into a new array of row structs of size
 * bytes, whose members are at off[] (one per element field). Stores the
 * array and its length. A missing table, when missing_ok, is no rows. */
static int load_rows(sqlite3 *sql, const struct rpt_run *r,
                     const struct cl_rfield *f, const char *order,
                     int missing_ok, const size_t *off, size_t size,
                     void **rows_out, size_t *n_out)
{
    const struct cl_relem *e = cl_rfield_elem(f);
    sqlite3_stmt *st = NULL;
    char *rows = NULL, *cols, *q;
    size_t n = 0, cap = 0;
    int ncols, rc;

    cols = cl_rfield_columns(e->fields, e->nfields, &ncols);
    q = xasprintf("SELECT %s FROM %s WHERE run_id = ?1 ORDER BY %s", cols,
                  f->db, order);
    rc = sqlite3_prepare_v2(sql, q, -1, &st, NULL);
    free(q);
    free(cols);
    if (rc != SQLITE_OK && missing_ok) {
        sqlite3_finalize(st);
        return SQLITE_OK;
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, r->id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int col = 0;

        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            rows = xrealloc(rows, cap, size);
        }
        memset(rows + n * size, 0, size);
        for (int i = 0; i < e->nfields; i++)
            store_field(st, &col, &e->fields[i], rows + n * size + off[i]);
        n++;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    *rows_out = rows;
    *n_out = n;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int load_pools(sqlite3 *sql, struct rpt_run *r)
{
    void *rows;
    size_t n;
    int rc = load_rows(sql, r, CL_RESULTS_FIELD(pools), "rowid", 0, pool_off,
                       sizeof(struct rpt_pool_row), &rows, &n);

    r->pools = rows;
    r->npools = (int)n;
    for (int i = 0; i < r->npools; i++)
        if (r->pools[i].name == NULL)
            r->pools[i].name = xstrdup("");
    return rc;
}

static int load_series(sqlite3 *sql, struct rpt_run *r)
{
    void *rows;
    int rc =
        load_rows(sql, r, CL_RESULTS_FIELD(series), "t_start_s", 0, series_off,
                  sizeof(struct rpt_series_row), &rows, &r->nseries);

    r->series = rows;
    return rc;
}

/* pool_series rows are matched to timeseries rows by t_start_s (both are
 * written from the same interval boundaries) and to pools by name. A
 * database without the table (schema before 4) just has no cost chart. */
static int load_pool_series(sqlite3 *sql, struct rpt_run *r)
{
    sqlite3_stmt *st = NULL;
    size_t row = 0, n = r->nseries * (size_t)r->npools;
    int rc;

    if (n == 0)
        return SQLITE_OK;
    rc = sqlite3_prepare_v2(sql,
                            "SELECT t_start_s, pool, cost_usd FROM "
                            "pool_series WHERE run_id = ?1 ORDER BY "
                            "t_start_s",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return SQLITE_OK;
    }
    rc = sqlite3_bind_int64(st, 1, r->id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        double t = sqlite3_column_double(st, 0);
        const char *pool = (const char *)sqlite3_column_text(st, 1);

        rc = SQLITE_OK;
        while (row < r->nseries && r->series[row].t_start_s < t)
            row++;
        if (row == r->nseries || r->series[row].t_start_s != t || pool == NULL)
            continue;
        for (int p = 0; p < r->npools; p++) {
            if (strcmp(r->pools[p].name, pool) != 0)
                continue;
            if (r->pool_cost_usd == NULL) {
                r->pool_cost_usd = xcalloc(n, sizeof(double));
                for (size_t k = 0; k < n; k++)
                    r->pool_cost_usd[k] = NAN;
            }
            r->pool_cost_usd[row * (size_t)r->npools + (size_t)p] =
                col_real(st, 2);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* replica_series rows (schema 7; a database without the table has
 * none). */
static int load_replica_series(sqlite3 *sql, struct rpt_run *r)
{
    void *rows;
    int rc = load_rows(sql, r, CL_RESULTS_FIELD(replica_series),
                       "t_start_s, replica", 1, replica_off,
                       sizeof(struct rpt_replica_row), &rows, &r->nreplicas);

    r->replicas = rows;
    return rc;
}

static int load_notes(sqlite3 *sql, struct rpt_run *r)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT text FROM notes WHERE run_id = ?1 "
                                "ORDER BY seq",
                                -1, &st, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, r->id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        r->notes = xrealloc(r->notes, (size_t)r->nnotes + 1, sizeof(char *));
        r->notes[r->nnotes] = col_text(st, 0);
        if (r->notes[r->nnotes] == NULL)
            r->notes[r->nnotes] = xstrdup("");
        r->nnotes++;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

struct rpt_run *rpt_run_load(const char *db_path, int64_t run_id,
                             struct sim_diag *d)
{
    sqlite3 *sql = rpt__open_db(db_path, 0, d);
    struct rpt_run *r;
    int rc;

    if (sql == NULL)
        return NULL;
    r = xcalloc(1, sizeof(*r));
    r->id = run_id;
    rc = load_runrow(sql, r);
    if (rc == SQLITE_NOTFOUND) {
        sim_diag_error(d, db_path, 0, 0, "no run %lld in this database",
                       (long long)run_id);
        sqlite3_close(sql);
        rpt_run_free(r);
        return NULL;
    }
    if (rc == SQLITE_OK)
        rc = load_summary(sql, r);
    if (rc == SQLITE_OK)
        rc = load_pools(sql, r);
    if (rc == SQLITE_OK)
        rc = load_series(sql, r);
    if (rc == SQLITE_OK)
        rc = load_pool_series(sql, r);
    if (rc == SQLITE_OK)
        rc = load_replica_series(sql, r);
    if (rc == SQLITE_OK)
        rc = load_notes(sql, r);
    if (rc != SQLITE_OK) {
        sim_diag_error(d, db_path, 0, 0, "cannot read run %lld: %s",
                       (long long)run_id, sqlite3_errmsg(sql));
        rpt_run_free(r);
        r = NULL;
    }
    sqlite3_close(sql);
    return r;
}

/* Frees n rows as load_rows() made them, and their strings. */
static void free_rows(const struct cl_rfield *f, const size_t *off, void *rows,
                      size_t n, size_t size)
{
    const struct cl_relem *e = cl_rfield_elem(f);

    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < e->nfields; i++)
            if (e->fields[i].type == CL_RT_STR ||
                e->fields[i].type == CL_RT_POOL ||
                e->fields[i].type == CL_RT_RSTATE)
                free(*(char **)(void *)((char *)rows + k * size + off[i]));
    free(rows);
}

void rpt_run_free(struct rpt_run *r)
{
    if (r == NULL)
        return;
    free(r->started_at);
    free(r->scenario_name);
    free(r->scenario_file);
    free(r->scenario_text);
    free(r->program_version);
    free(r->policy);
    for (int i = 0; i < r->nmetrics; i++)
        free(r->metric_names[i]);
    free(r->metric_names);
    free(r->metric_values);
    free_rows(CL_RESULTS_FIELD(pools), pool_off, r->pools,
              (size_t)(r->npools > 0 ? r->npools : 0), sizeof(*r->pools));
    free_rows(CL_RESULTS_FIELD(series), series_off, r->series, r->nseries,
              sizeof(*r->series));
    free(r->pool_cost_usd);
    free_rows(CL_RESULTS_FIELD(replica_series), replica_off, r->replicas,
              r->nreplicas, sizeof(*r->replicas));
    for (int i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r);
}

double rpt_run_metric(const struct rpt_run *run, const char *name)
{
    /* Names are sorted by SQLite's BINARY collation, i.e. strcmp. */
    int lo = 0, hi = run->nmetrics - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(run->metric_names[mid], name);
        if (c == 0)
            return run->metric_values[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NAN;
}

int rpt__query_id(const char *db_path, const char *q, int64_t a1, int64_t *out,
                  struct sim_diag *d)
{
    sqlite3 *sql = rpt__open_db(db_path, 0, d);
    sqlite3_stmt *st = NULL;
    int rc, ret = 1;

    if (sql == NULL)
        return SIM_EDB;
    rc = sqlite3_prepare_v2(sql, q, -1, &st, NULL);
    if (rc == SQLITE_OK && a1 >= 0)
        rc = sqlite3_bind_int64(st, 1, a1);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
            *out = sqlite3_column_int64(st, 0);
            ret = 0;
        }
    } else if (rc != SQLITE_DONE) {
        sim_diag_error(d, db_path, 0, 0, "cannot read database: %s",
                       sqlite3_errmsg(sql));
        ret = SIM_EDB;
    }
    sqlite3_finalize(st);
    sqlite3_close(sql);
    return ret;
}

int rpt_run_latest(const char *db_path, int64_t *id, struct sim_diag *d)
{
    return rpt__query_id(db_path,
                         "SELECT max(id) FROM runs WHERE id NOT IN (SELECT "
                         "baseline_run_id FROM baselines)",
                         -1, id, d);
}

int rpt_baseline_find(const char *db_path, int64_t run_id, int64_t *baseline_id,
                      struct sim_diag *d)
{
    return rpt__query_id(
        db_path, "SELECT baseline_run_id FROM baselines WHERE run_id = ?1",
        run_id, baseline_id, d);
}

int rpt_baseline_link(const char *db_path, int64_t run_id, int64_t baseline_id,
                      struct sim_diag *d)
{
    sqlite3 *sql = rpt__open_db(db_path, 1, d);
    sqlite3_stmt *st = NULL;
    int rc;

    if (sql == NULL)
        return SIM_EDB;
    rc = sqlite3_exec(sql, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql,
                                "INSERT OR REPLACE INTO baselines (run_id, "
                                "baseline_run_id) VALUES (?1, ?2)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 2, baseline_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        sim_diag_error(d, db_path, 0, 0, "cannot link baseline: %s",
                       sqlite3_errmsg(sql));
    sqlite3_finalize(st);
    sqlite3_close(sql);
    return rc == SQLITE_DONE ? 0 : SIM_EDB;
}

/* NAN-propagating x / y x scale; NAN when y is 0. */
static double per(double x, double y, double scale)
{
    if (isnan(x) || isnan(y) || y <= 0)
        return NAN;
    return x / y * scale;
}

/* The stored value sub of results field f, under its summary metric name;
 * NAN when absent. */
static double run_value(const struct rpt_run *run, const struct cl_rfield *f,
                        int sub)
{
    char name[96];

    if (cl_rfield_metric(f, sub, name, sizeof(name)) == NULL)
        return NAN;
    return rpt_run_metric(run, name);
}

void rpt_acct_compute(const struct rpt_run *run, struct rpt_acct *a)
{
    memset(a, 0, sizeof(*a));
    a->cost_usd = run_value(run, CL_RESULTS_FIELD(cost_usd), 0);
    a->gpu_hours = run_value(run, CL_RESULTS_FIELD(gpu_hours), 0);
    for (int s = 0; s < CL_GS_COUNT; s++)
        a->gpu_hours_by_state[s] =
            run_value(run, CL_RESULTS_FIELD(gpu_hours_by_state), s);
    for (int i = 0; i < run->npools; i++) {
        const struct rpt_pool_row *p = &run->pools[i];
        double price =
            isnan(p->price_usd_per_gpu_hour) ? 0 : p->price_usd_per_gpu_hour;

        if (!isnan(p->gpu_hours_paid))
            a->gpu_hours_paid += p->gpu_hours_paid;
        for (int s = 0; s < CL_GS_COUNT; s++)
            if (!isnan(p->gpu_hours_by_state[s]))
                a->cost_by_state_usd[s] += p->gpu_hours_by_state[s] * price;
        if (p->borrowable && !isnan(p->gpu_hours_used))
            a->borrowed_gpu_hours += p->gpu_hours_used;
        if (p->reserved && p->gpu_hours_paid > p->gpu_hours_used) {
            double unused = p->gpu_hours_paid - p->gpu_hours_used;
            a->reserved_unused_gpu_hours += unused;
            a->reserved_unused_cost_usd += unused * price;
        }
    }
    a->input_tokens = run_value(run, CL_RESULTS_FIELD(input_tokens), 0);
    a->output_tokens = run_value(run, CL_RESULTS_FIELD(output_tokens), 0);
    a->cost_per_m_input_usd = per(a->cost_usd, a->input_tokens, 1e6);
    a->cost_per_m_output_usd = per(a->cost_usd, a->output_tokens, 1e6);
    a->sim_time_s = run_value(run, CL_RESULTS_FIELD(sim_time_s), 0);
    a->cost_per_day_usd = per(a->cost_usd, a->sim_time_s, 86400.0);
    a->cost_per_month_usd = a->cost_per_day_usd * RPT_DAYS_PER_MONTH;
    a->slo_attainment = run_value(run, CL_RESULTS_FIELD(slo_attainment), 0);
}

void rpt_savings(double elastic_cost_usd, double static_cost_usd, double *usd,
                 double *pct)
{
    *usd = static_cost_usd - elastic_cost_usd;
    *pct = per(*usd, static_cost_usd, 100.0);
}

void rpt_report_fini(struct rpt_report *rep)
{
    rpt_run_free(rep->run);
    rpt_run_free(rep->baseline);
    memset(rep, 0, sizeof(*rep));
}

int rpt_format_parse(const char *s, enum rpt_format *fmt)
{
    static const char *const names[] = {"html", "pdf", "csv", "md"};

    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *fmt = (enum rpt_format)i;
            return 0;
        }
    return -1;
}

int rpt_format_available(enum rpt_format fmt)
{
#ifdef HAVE_CAIRO
    (void)fmt;
    return 1;
#else
    return fmt != RPT_FMT_PDF;
#endif
}

void rpt__fmt(char *buf, size_t len, double v, int prec)
{
    char raw[64], *dot;
    size_t n, int_len, o = 0, start;

    if (isnan(v) || isinf(v)) {
        snprintf(buf, len, "n/a");
        return;
    }
    snprintf(raw, sizeof(raw), "%.*f", prec, v);
    /* Thousands separators in the integer part, for people. */
    start = raw[0] == '-' ? 1 : 0;
    dot = strchr(raw, '.');
    int_len = (dot ? (size_t)(dot - raw) : strlen(raw)) - start;
    n = strlen(raw);
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > start && i < start + int_len && (start + int_len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
}

const char *rpt__price_source(const struct rpt_pool_row *p)
{
    const struct gpu_spec *g = gpu_find(p->gpu);

    if (g != NULL && p->price_usd_per_gpu_hour == g->price_usd_per_hour)
        return g->price_source;
    return "set in the scenario";
}

const char *rpt__no_chart_reason(int ndrawn, int nwanted,
                                 const char *gnuplot_path)
{
    if (gnuplot_path == NULL)
        return "gnuplot was not found (not installed, not found when dsec "
               "was built, or DSEC_GNUPLOT names no program): this report "
               "has no charts";
    if (ndrawn < nwanted)
        return "some charts could not be drawn (see the messages of dsec "
               "report)";
    return NULL;
}

int rpt__headline(const struct rpt_report *rep, struct rpt__line *out)
{
    struct rpt_acct a, b;
    const struct rpt_run *base = rep->self_baseline ? rep->run : rep->baseline;
    double sav_usd = NAN, sav_pct = NAN, base_cost = NAN, base_slo = NAN;
    int n = 0;

    rpt_acct_compute(rep->run, &a);
    if (base != NULL) {
        rpt_acct_compute(base, &b);
        base_cost = b.cost_usd;
        base_slo = b.slo_attainment;
        rpt_savings(a.cost_usd, b.cost_usd, &sav_usd, &sav_pct);
    }
#define LINE(k, l, u, v, p)                                                    \
    do {                                                                       \
        out[n].key = (k);                                                      \
        out[n].label = (l);                                                    \
        out[n].unit = (u);                                                     \
        out[n].value = (v);                                                    \
        rpt__fmt(out[n].text, sizeof(out[n].text), (v), (p));                  \
        n++;                                                                   \
    } while (0)
    LINE("cost_usd", "Total cost", "USD", a.cost_usd, 2);
    LINE("static_cost_usd", "Static cluster sized for the peak", "USD",
         base_cost, 2);
    LINE("savings_usd", "Savings vs static", "USD", sav_usd, 2);
    LINE("savings_pct", "Savings vs static", "%", sav_pct, 1);
    LINE("cost_per_m_input_tokens_usd", "Cost per 1M input tokens", "USD",
         a.cost_per_m_input_usd, 4);
    LINE("cost_per_m_output_tokens_usd", "Cost per 1M output tokens", "USD",
         a.cost_per_m_output_usd, 4);
    LINE("cost_per_day_usd", "Cost per day", "USD", a.cost_per_day_usd, 2);
    LINE("cost_per_month_usd", "Projected per month (30 days)", "USD",
         a.cost_per_month_usd, 2);
    LINE("slo_attainment_pct", "SLO attainment, elastic", "%",
         100 * a.slo_attainment, 2);
    LINE("static_slo_attainment_pct", "SLO attainment, static", "%",
         100 * base_slo, 2);
    LINE("gpu_hours", "GPU-hours held", "GPU-h", a.gpu_hours, 2);
    LINE("gpu_hours_paid", "GPU-hours paid", "GPU-h", a.gpu_hours_paid, 2);
    LINE("idle_gpu_hours", "Idle GPU-hours", "GPU-h",
         a.gpu_hours_by_state[CL_GS_IDLE], 2);
    LINE("reserved_unused_gpu_hours", "Reserved, paid but unused", "GPU-h",
         a.reserved_unused_gpu_hours, 2);
    LINE("borrowed_gpu_hours", "Borrowed GPU-hours", "GPU-h",
         a.borrowed_gpu_hours, 2);
    LINE("input_tokens", "Input tokens", "tokens", a.input_tokens, 0);
    LINE("output_tokens", "Output tokens", "tokens", a.output_tokens, 0);
    LINE("sim_time_h", "Simulated time", "h", a.sim_time_s / 3600, 2);
#undef LINE
    return n;
}

int rpt__mkdir_p(const char *dir)
{
    char *s = xstrdup(dir);
    int rc = 0;

    for (char *p = s + 1; *p != '\0' && rc == 0; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(s, 0777) != 0 && errno != EEXIST)
            rc = -1;
        *p = '/';
    }
    if (rc == 0 && mkdir(s, 0777) != 0 && errno != EEXIST)
        rc = -1;
    free(s);
    return rc;
}

int rpt_report_write(const struct rpt_report *rep, enum rpt_format fmt,
                     const char *out_dir, const char *gnuplot_path,
                     char **written, struct sim_diag *d)
{
    struct rpt__chart charts[RPT__NCHARTS];
    const char *note;
    char *path = NULL;
    FILE *fp;
    int rc = 0, ndrawn = 0;

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
    memset(charts, 0, sizeof(charts));
    if (fmt != RPT_FMT_CSV)
        ndrawn = rpt__charts_draw(rep, out_dir, gnuplot_path, charts, d);
    note = fmt == RPT_FMT_CSV
               ? NULL
               : rpt__no_chart_reason(ndrawn, RPT__NCHARTS, gnuplot_path);
    if (note != NULL && gnuplot_path == NULL)
        rpt_gp_fail(d, RPT_GP_OPTIONAL, out_dir, "%s", note);

    switch (fmt) {
    case RPT_FMT_CSV:
        rc = rpt__write_csv(rep, out_dir, d);
        path = xasprintf("%s/headline.csv", out_dir);
        break;
    case RPT_FMT_PDF:
        path = xasprintf("%s/report.pdf", out_dir);
        rc = rpt__write_pdf(rep, path, charts, note, d);
        break;
    case RPT_FMT_HTML:
    case RPT_FMT_MD:
        path = xasprintf("%s/report.%s", out_dir,
                         fmt == RPT_FMT_HTML ? "html" : "md");
        fp = fopen(path, "w");
        if (fp == NULL) {
            rc = SIM_EIO;
        } else {
            rc = fmt == RPT_FMT_HTML ? rpt__write_html(rep, fp, charts, note)
                                     : rpt__write_md(rep, fp, charts, note);
            if (ferror(fp))
                rc = SIM_EIO;
            if (fclose(fp) != 0)
                rc = SIM_EIO;
        }
        if (rc != 0)
            sim_diag_error(d, path, 0, 0, "cannot write report: %s",
                           strerror(errno));
        break;
    }
    rpt__charts_fini(charts);
    if (rc == 0 && written != NULL)
        *written = path;
    else
        free(path);
    return rc;
}
