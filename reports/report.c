/* The cost report: reading runs back, the accounting, the baseline link and
 * the dispatch to the writers. The pools, timeseries and replica_series
 * rows are read through the field lists of models/cluster/results-fields.h
 * into the row structs report.h expands from the same lists, and summary
 * metrics are looked up under the names the lists give them, so the
 * reader cannot drift from the writer. The database is opened per call
 * (read-only for reads), as a report reads a few thousand rows once; the
 * cost of re-opening is a millisecond. The newer parts of a run (runs'
 * calibration columns, prediction_intervals) are read where they exist,
 * so that an older database still reports. */
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
#include "base/fmt.h"
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

/* runs.calibration and calibration_sha256 (a database from before the
 * columns has neither: both stay NULL). */
static int load_calibration(sqlite3 *sql, struct rpt_run *r)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT calibration, calibration_sha256 "
                                "FROM runs WHERE id = ?1",
                                -1, &st, NULL);

    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return SQLITE_OK;
    }
    rc = sqlite3_bind_int64(st, 1, r->id);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        r->calibration = col_text(st, 0);
        r->calibration_sha256 = col_text(st, 1);
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* prediction_intervals rows, by metric name (cl_pi_json). Every row of a
 * run was written from one cl_pi, so level, draws, params and structural
 * are taken from the first; a name this dsec does not know is skipped. A
 * database without the table has no intervals. */
static int load_pi(sqlite3 *sql, struct rpt_run *r)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT metric, level, draws, params, "
                                "structural, lo, hi, median FROM "
                                "prediction_intervals WHERE run_id = ?1 "
                                "ORDER BY metric",
                                -1, &st, NULL);

    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return SQLITE_OK;
    }
    rc = sqlite3_bind_int64(st, 1, r->id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int m = 0;

        rc = SQLITE_OK;
        while (m < CL_PI_N &&
               (name == NULL || strcmp(cl_pi_json[m], name) != 0))
            m++;
        if (m == CL_PI_N)
            continue;
        if (r->pi == NULL) {
            r->pi = xcalloc(1, sizeof(*r->pi));
            r->pi->level = col_real(st, 1);
            r->pi->n = sqlite3_column_int(st, 2);
            r->pi->nparams = sqlite3_column_int(st, 3);
            r->pi->structural = sqlite3_column_int(st, 4);
            for (int k = 0; k < CL_PI_N; k++)
                r->pi->lo[k] = r->pi->hi[k] = r->pi->median[k] = NAN;
        }
        r->pi->lo[m] = col_real(st, 5);
        r->pi->hi[m] = col_real(st, 6);
        r->pi->median[m] = col_real(st, 7);
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
    if (rc == SQLITE_OK)
        rc = load_calibration(sql, r);
    if (rc == SQLITE_OK)
        rc = load_pi(sql, r);
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
    free(r->calibration);
    free(r->calibration_sha256);
    free(r->pi);
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
    {
        double pf = run_value(run, CL_RESULTS_FIELD(prefill_gpu_hours), 0);
        double dc = run_value(run, CL_RESULTS_FIELD(decode_gpu_hours), 0);
        a->prefill_share =
            pf >= 0 && dc >= 0 && pf + dc > 0 ? pf / (pf + dc) : NAN;
    }
    a->cost_per_m_tokens_usd =
        per(a->cost_usd, a->input_tokens + a->output_tokens, 1e6);
    a->cost_per_m_input_usd =
        per(a->cost_usd * a->prefill_share, a->input_tokens, 1e6);
    a->cost_per_m_output_usd =
        per(a->cost_usd * (1 - a->prefill_share), a->output_tokens, 1e6);
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

const char rpt__price_caveat[] =
    "Catalog prices are dated defaults, not quotes; set "
    "pools[].price_per_gpu_hour in the scenario for your own.";

void rpt__price_of(const struct rpt_pool_row *p, struct rpt__price *out)
{
    const struct gpu_spec *g = gpu_find(p->gpu);
    const char *basis;

    memset(out, 0, sizeof(*out));
    /* The pool row keeps the price, not where it came from: a price equal
     * to the catalog's is taken for the catalog's (a scenario that sets
     * exactly the catalog's figure reads the same). */
    if (g != NULL && g->price_src.provider != NULL &&
        p->price_usd_per_gpu_hour == g->price_usd_per_hour) {
        out->catalog = 1;
        out->provider = g->price_src.provider;
        out->region = g->price_src.region;
        out->date = g->price_src.date;
        out->source = g->price_src.source;
        basis = g->price_src.basis;
    } else {
        out->provider = "set in the scenario";
        out->region = "n/a";
        out->date = "n/a";
        out->source = "set in the scenario";
        basis = "per GPU-hour, as the scenario gives it "
                "(pools[].price_per_gpu_hour, hardware.price_per_gpu_hour or "
                "a spot discount)";
    }
    snprintf(out->basis, sizeof(out->basis), "%s%s",
             p->borrowable ? "borrowed pool, billed at its own price (the "
                             "internal transfer price): "
                           : "",
             basis);
}

void rpt__borrow_note(const struct rpt_run *r, char *buf, size_t len)
{
    size_t o;
    int n, nb = 0;
    double hours = 0, cost = 0;

    snprintf(buf, len, "%s", "");
    for (int i = 0; i < r->npools; i++)
        nb += r->pools[i].borrowable != 0;
    if (nb == 0)
        return;
    n = snprintf(buf, len,
                 "A borrowed pool is billed at its own price per GPU-hour, "
                 "the internal transfer price (its pools[].price_per_gpu_hour; "
                 "the GPU's price where the scenario sets none), for the "
                 "GPU-hours held in it:");
    o = n > 0 ? (size_t)n : 0;
    for (int i = 0; i < r->npools && o < len; i++) {
        const struct rpt_pool_row *p = &r->pools[i];
        char pr[64], h[64], c[64];

        if (!p->borrowable)
            continue;
        rpt__fmt(pr, sizeof(pr), p->price_usd_per_gpu_hour, 2);
        rpt__fmt(h, sizeof(h), p->gpu_hours_used, 2);
        rpt__fmt(c, sizeof(c), p->cost_usd, 2);
        n = snprintf(buf + o, len - o,
                     "%s %s at USD %s per GPU-hour, %s GPU-hours borrowed, "
                     "USD %s",
                     o > 0 && buf[o - 1] == ':' ? "" : ";", p->name, pr, h, c);
        o += n > 0 ? (size_t)n : 0;
        if (!isnan(p->gpu_hours_used))
            hours += p->gpu_hours_used;
        if (!isnan(p->cost_usd))
            cost += p->cost_usd;
    }
    if (o < len && nb > 1) {
        char h[64], c[64];
        rpt__fmt(h, sizeof(h), hours, 2);
        rpt__fmt(c, sizeof(c), cost, 2);
        n = snprintf(buf + o, len - o, "; in all %s GPU-hours borrowed, USD %s",
                     h, c);
        o += n > 0 ? (size_t)n : 0;
    }
    if (o + 1 < len)
        snprintf(buf + o, len - o, ".");
}

void rpt__savings_note(const struct rpt_report *rep, char *buf, size_t len)
{
    if (rep->self_baseline)
        snprintf(buf, len,
                 "This run is a static cluster, its own baseline: its savings "
                 "are 0.");
    else if (rep->baseline != NULL)
        snprintf(buf, len,
                 "Savings vs static: the cost of run %lld (the same workload "
                 "and seed on a static cluster of %.0f replicas, this run's "
                 "peak, on the first pool's GPU at its price) minus this "
                 "run's cost, and that as a share of it; negative when the "
                 "elastic run paid more, e.g. for a dearer pool.",
                 (long long)rep->baseline->id,
                 rpt_run_metric(rep->run, "replicas.max"));
    else
        snprintf(buf, len, "%s", "");
}

int rpt__state_rows(const struct rpt_run *r, struct rpt__state_row *out)
{
    struct rpt_acct a;
    int n = 0;

    rpt_acct_compute(r, &a);
    for (int s = 0; s < CL_GS_COUNT; s++) {
        out[n].name = cl_gpu_state_name(s);
        out[n].hours = a.gpu_hours_by_state[s];
        out[n++].cost = a.cost_by_state_usd[s];
    }
    out[n].name = "reserved, paid but unused";
    out[n].hours = a.reserved_unused_gpu_hours;
    out[n++].cost = a.reserved_unused_cost_usd;
    out[n].name = "of which borrowed (any state)";
    out[n].hours = a.borrowed_gpu_hours;
    out[n++].cost = NAN;
    return n;
}

int rpt__kinds(const struct rpt_run *r, const char **name, double *hours,
               double *cost)
{
    int n = 0;

    for (int p = 0; p < r->npools; p++) {
        const char *g = r->pools[p].gpu ? r->pools[p].gpu : "?";
        int k = 0;
        while (k < n && strcmp(name[k], g) != 0)
            k++;
        if (k == n && n == RPT__MAX_KINDS)
            continue; /* the table's bound; pools are fewer in practice */
        if (k == n) {
            name[n] = g;
            hours[n] = cost[n] = 0;
            n++;
        }
        hours[k] += r->pools[p].gpu_hours_paid;
        cost[k] += r->pools[p].cost_usd;
    }
    return n;
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

/* The summary value of statistic stat ("mean", "ci95", "p99") of the
 * latency field f; NAN when absent. */
static double latency_value(const struct rpt_run *run,
                            const struct cl_rfield *f, const char *stat)
{
    for (int sub = 0; sub < cl_rfield_nsub(f); sub++)
        if (strcmp(cl_rfield_sub_name(f, sub), stat) == 0)
            return run_value(run, f, sub);
    return NAN;
}

/* Sets the interval of l to [lo, hi] (nothing when either is NAN), in
 * text with prec decimals, or up to PI_EXTRA_PREC more where prec prints
 * two different bounds the same: an interval narrower than the value's
 * last digit still shows its width. */
#define PI_EXTRA_PREC 4
static void line_pi(struct rpt__line *l, double lo, double hi, int prec)
{
    if (isnan(lo) || isnan(hi))
        return;
    l->lo = lo;
    l->hi = hi;
    for (int p = prec; p <= prec + PI_EXTRA_PREC; p++) {
        rpt__fmt(l->lo_text, sizeof(l->lo_text), lo, p);
        rpt__fmt(l->hi_text, sizeof(l->hi_text), hi, p);
        if (lo == hi || strcmp(l->lo_text, l->hi_text) != 0)
            break;
    }
}

int rpt__headline(const struct rpt_report *rep, struct rpt__line *out)
{
    static const double nan_pi[CL_PI_N] = {
#define PI_NAN(e, json, text, unit) NAN,
        CL_PI_METRICS(PI_NAN)
#undef PI_NAN
    };
    const struct rpt_run *r = rep->run;
    const struct rpt_run *base = rep->self_baseline ? r : rep->baseline;
    const double *lo = r->pi ? r->pi->lo : nan_pi;
    const double *hi = r->pi ? r->pi->hi : nan_pi;
    struct rpt_acct a, b;
    double sav_usd = NAN, sav_pct = NAN, base_cost = NAN, base_slo = NAN;
    int n = 0;

    rpt_acct_compute(r, &a);
    if (base != NULL) {
        rpt_acct_compute(base, &b);
        base_cost = b.cost_usd;
        base_slo = b.slo_attainment;
        rpt_savings(a.cost_usd, b.cost_usd, &sav_usd, &sav_pct);
    }
#define LINE(k, l, u, v, p)                                                    \
    do {                                                                       \
        memset(&out[n], 0, sizeof(out[n]));                                    \
        out[n].key = (k);                                                      \
        out[n].label = (l);                                                    \
        out[n].unit = (u);                                                     \
        out[n].value = (v);                                                    \
        out[n].lo = out[n].hi = NAN;                                           \
        rpt__fmt(out[n].text, sizeof(out[n].text), (v), (p));                  \
        n++;                                                                   \
    } while (0)
    /* A figure with an interval: [plo, phi] at the figure's precision. */
#define LINE_PI(k, l, u, v, p, plo, phi)                                       \
    do {                                                                       \
        LINE(k, l, u, v, p);                                                   \
        line_pi(&out[n - 1], (plo), (phi), (p));                               \
    } while (0)
    /* The figures derived from the cost scale its interval as they scale
     * the cost (tokens and simulated time are the run's). */
    LINE_PI("cost_usd", "Total cost", "USD", a.cost_usd, 2, lo[CL_PI_COST],
            hi[CL_PI_COST]);
    LINE("static_cost_usd", "Static cluster sized for the peak", "USD",
         base_cost, 2);
    LINE("savings_usd", "Savings vs static", "USD", sav_usd, 2);
    LINE("savings_pct", "Savings vs static", "%", sav_pct, 1);
    LINE_PI("cost_per_m_tokens_usd", "Cost per 1M tokens, input and output",
            "USD", a.cost_per_m_tokens_usd, 4,
            per(lo[CL_PI_COST], a.input_tokens + a.output_tokens, 1e6),
            per(hi[CL_PI_COST], a.input_tokens + a.output_tokens, 1e6));
    LINE("prefill_share_pct", "Prefill's share of GPU time", "%",
         100 * a.prefill_share, 1);
    LINE_PI("cost_per_m_input_tokens_usd", "Cost per 1M input tokens", "USD",
            a.cost_per_m_input_usd, 4,
            per(lo[CL_PI_COST] * a.prefill_share, a.input_tokens, 1e6),
            per(hi[CL_PI_COST] * a.prefill_share, a.input_tokens, 1e6));
    LINE_PI("cost_per_m_output_tokens_usd", "Cost per 1M output tokens", "USD",
            a.cost_per_m_output_usd, 4,
            per(lo[CL_PI_COST] * (1 - a.prefill_share), a.output_tokens, 1e6),
            per(hi[CL_PI_COST] * (1 - a.prefill_share), a.output_tokens, 1e6));
    LINE_PI("cost_per_day_usd", "Cost per day", "USD", a.cost_per_day_usd, 2,
            per(lo[CL_PI_COST], a.sim_time_s, 86400.0),
            per(hi[CL_PI_COST], a.sim_time_s, 86400.0));
    LINE_PI("cost_per_month_usd", "Projected per month (30 days)", "USD",
            a.cost_per_month_usd, 2,
            per(lo[CL_PI_COST], a.sim_time_s, 86400.0) * RPT_DAYS_PER_MONTH,
            per(hi[CL_PI_COST], a.sim_time_s, 86400.0) * RPT_DAYS_PER_MONTH);
    LINE_PI("slo_attainment_pct", "SLO attainment, elastic", "%",
            100 * a.slo_attainment, 2, 100 * lo[CL_PI_SLO],
            100 * hi[CL_PI_SLO]);
    LINE("static_slo_attainment_pct", "SLO attainment, static", "%",
         100 * base_slo, 2);
    if (r->pi != NULL) {
        /* Only a run with intervals shows the latencies: the report of
         * any other run stays as it was. Keys are the intervals' metric
         * names. */
        static const struct {
            enum cl_pi_metric m;
            const char *label;
        } lat[] = {
            {CL_PI_TTFT_MEAN, "TTFT mean"},
            {CL_PI_TTFT_P99, "TTFT p99"},
            {CL_PI_TPOT_MEAN, "TPOT mean"},
            {CL_PI_TPOT_P99, "TPOT p99"},
            {CL_PI_ITL_MEAN, "ITL mean"},
            {CL_PI_ITL_P99, "ITL p99"},
            {CL_PI_E2E_MEAN, "E2E latency mean"},
            {CL_PI_E2E_P99, "E2E latency p99"},
            {CL_PI_THROUGHPUT, "Output throughput"},
        };

        for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
            LINE_PI(cl_pi_json[lat[i].m], lat[i].label, cl_pi_unit[lat[i].m],
                    rpt__pi_value(r, lat[i].m), 2, lo[lat[i].m], hi[lat[i].m]);
    }
    LINE_PI("gpu_hours", "GPU-hours held", "GPU-h", a.gpu_hours, 2,
            lo[CL_PI_GPU_HOURS], hi[CL_PI_GPU_HOURS]);
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
#undef LINE_PI
#undef LINE
    return n;
}

double rpt__pi_value(const struct rpt_run *r, enum cl_pi_metric m)
{
    /* As cl_pi_value() reads the results, from their summary metrics. */
    switch (m) {
    case CL_PI_E2E_MEAN:
        return latency_value(r, CL_RESULTS_FIELD(e2e_ms), "mean");
    case CL_PI_E2E_P99:
        return latency_value(r, CL_RESULTS_FIELD(e2e_ms), "p99");
    case CL_PI_TTFT_MEAN:
        return latency_value(r, CL_RESULTS_FIELD(ttft_ms), "mean");
    case CL_PI_TTFT_P99:
        return latency_value(r, CL_RESULTS_FIELD(ttft_ms), "p99");
    case CL_PI_TPOT_MEAN:
        return latency_value(r, CL_RESULTS_FIELD(tpot_ms), "mean");
    case CL_PI_TPOT_P99:
        return latency_value(r, CL_RESULTS_FIELD(tpot_ms), "p99");
    case CL_PI_ITL_MEAN:
        return latency_value(r, CL_RESULTS_FIELD(itl_ms), "mean");
    case CL_PI_ITL_P99:
        return latency_value(r, CL_RESULTS_FIELD(itl_ms), "p99");
    case CL_PI_THROUGHPUT:
        return run_value(r, CL_RESULTS_FIELD(throughput_tokens_per_s), 0);
    case CL_PI_GPU_HOURS:
        return run_value(r, CL_RESULTS_FIELD(gpu_hours), 0);
    case CL_PI_COST:
        return run_value(r, CL_RESULTS_FIELD(cost_usd), 0);
    case CL_PI_SLO:
        return run_value(r, CL_RESULTS_FIELD(slo_attainment), 0);
    case CL_PI_N:
        break;
    }
    return NAN;
}

int rpt__pi_title(const struct rpt_run *r, char *buf, size_t len)
{
    if (r->pi == NULL) {
        snprintf(buf, len, "%s", "");
        return 0;
    }
    snprintf(buf, len, "%g %% interval", 100 * r->pi->level);
    return 1;
}

void rpt__pi_note(const struct rpt_run *r, char *buf, size_t len)
{
    const struct cl_pi *pi = r->pi;
    char lvl[32], ci[3][64];
    const struct cl_rfield *f[3] = {CL_RESULTS_FIELD(ttft_ms),
                                    CL_RESULTS_FIELD(tpot_ms),
                                    CL_RESULTS_FIELD(e2e_ms)};

    if (pi == NULL) {
        snprintf(buf, len, "%s", "");
        return;
    }
    snprintf(lvl, sizeof(lvl), "%g %%", 100 * pi->level);
    for (int i = 0; i < 3; i++)
        rpt__fmt(ci[i], sizeof(ci[i]), latency_value(r, f[i], "ci95"), 2);
    snprintf(buf, len,
             "The %s intervals are prediction intervals: the central %s of "
             "%d runs of this scenario on its seed, each with a draw of the "
             "calibration's %d uncertain parameter%s%s. Throughput, "
             "GPU-hours, cost and SLO attainment carry the parameters' "
             "uncertainty only; cost per day, per month and per 1M tokens "
             "scale the cost's interval. They are not the ci95 of dsec "
             "run's summary, which is seed noise only (batch means over "
             "this run: TTFT mean \xc2\xb1 %s ms, TPOT mean \xc2\xb1 %s ms, "
             "E2E mean \xc2\xb1 %s ms).",
             lvl, lvl, pi->n, pi->nparams, pi->nparams == 1 ? "" : "s",
             pi->structural ? ", and the latencies multiplied by the profile's "
                              "structural error"
                            : " (the profile has no structural error)",
             ci[0], ci[1], ci[2]);
}

void rpt__calib_note(const struct rpt_report *rep, char *buf, size_t len)
{
    const struct rpt_run *r = rep->run, *b = rep->baseline;
    int n;

    if (r->calibration == NULL || r->calibration_sha256 == NULL) {
        snprintf(buf, len, "%s", "");
        return;
    }
    n = snprintf(buf, len, "Calibration: %s, SHA-256 %s.", r->calibration,
                 r->calibration_sha256);
    /* The baseline is simulated from the stored scenario, which does not
     * hold a profile given by dsec run --calibration. */
    if (n >= 0 && (size_t)n < len && b != NULL && b->calibration != NULL &&
        (b->calibration_sha256 == NULL ||
         strcmp(b->calibration_sha256, r->calibration_sha256) != 0))
        snprintf(buf + n, len - (size_t)n,
                 " The static baseline (run %lld) was simulated with %s, "
                 "not this profile: the savings compare two calibrations.",
                 (long long)b->id,
                 b->calibration_sha256 == NULL ? "the built-in defaults"
                                               : b->calibration);
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

int rpt__time_notes(const struct rpt_report *rep,
                    char notes[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN])
{
    double sim_s = rpt_run_metric(rep->run, "sim_time_s");
    struct rpt_acct a;
    int n = 0;

    rpt_acct_compute(rep->run, &a);
    if (!isnan(a.prefill_share))
        snprintf(notes[n++], RPT__TIME_NOTE_LEN,
                 "Cost per 1M input tokens charges the input tokens with "
                 "prefill's share of the engines' GPU time (%.1f %%), per 1M "
                 "output tokens the output tokens with decode's (%.1f %%); "
                 "a step that does both gives prefill the time it took "
                 "beyond a decode-only step of its decoders. Idle and "
                 "start-up hours follow the same shares.",
                 100 * a.prefill_share, 100 * (1 - a.prefill_share));
    else
        snprintf(notes[n++], RPT__TIME_NOTE_LEN,
                 "The run has no prefill and decode GPU time (an abstract "
                 "server, or a database written before dsec recorded it), so "
                 "the cost is not split between input and output tokens: "
                 "only the cost per 1M tokens of both is given.");

    if (rep->has_start) {
        char clock[16];
        sim_fmt_clock(clock, sizeof(clock), (long long)(rep->start_s * 1e9));
        snprintf(notes[n++], RPT__TIME_NOTE_LEN,
                 "The run starts at %s (the scenario's start); the charts' "
                 "times are times of day.",
                 clock);
    }
    if (rep->day_period_s > 0 && fabs(rep->day_period_s - 86400) > 0.5) {
        double f = 86400 / rep->day_period_s;
        double cycles = sim_s > 0 ? sim_s / rep->day_period_s : NAN;
        char period[32];
        if (rep->day_period_s >= 3600)
            snprintf(period, sizeof(period), "%.4g h",
                     rep->day_period_s / 3600);
        else if (rep->day_period_s >= 60)
            snprintf(period, sizeof(period), "%.4g min",
                     rep->day_period_s / 60);
        else
            snprintf(period, sizeof(period), "%.4g s", rep->day_period_s);
        snprintf(notes[n++], RPT__TIME_NOTE_LEN,
                 "A compressed day: the workload's daily cycle lasts %s, "
                 "%.4g times shorter than a day. Per day and per month "
                 "count each simulated cycle as one day (the run covers "
                 "%.3g cycle%s%s). Start-up times and cool-downs are not "
                 "compressed, so a real day follows its curve more closely "
                 "than this run could.",
                 period, f, cycles, cycles == 1 ? "" : "s",
                 isnan(cycles) || fabs(cycles - round(cycles)) > 1e-6
                     ? "; a part cycle counts the hours it covers"
                     : "");
    }
    return n;
}

void rpt__price_cells(const struct rpt__price *pr,
                      const char *cells[RPT__PRICE_COLS])
{
    cells[0] = pr->provider;
    cells[1] = pr->region;
    cells[2] = pr->basis;
    cells[3] = pr->date;
    cells[4] = pr->source;
}
