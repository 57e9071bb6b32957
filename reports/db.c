/* Results database writer. Every statement is prepared, run and finalized in
 * the function that prepares it; a write is one IMMEDIATE transaction so that
 * it takes the write lock up front (waiting up to the busy timeout) instead
 * of failing halfway when another writer appears. The summary rows and the
 * timeseries, pools, replica_series, stages and requests rows are written
 * from the field lists of models/cluster/results-fields.h, so a field added
 * there is stored without code here (a new table column also needs schema.sql).
 * Metric rows are bound with one reused statement: about 80 rows per run, a
 * fraction of a millisecond, so no further batching is worth its code; the
 * INSERT of a table is put together once per run from its columns. */
#include "reports/db.h"

#include "models/cluster/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "reports/schema.h"
#include "base/errors.h"
#include "base/xalloc.h"

struct rpt_db {
    sqlite3 *sql;
    char *path;
};

/* Binds a double, with NAN as NULL (the schema's "not defined"). */
static int bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_double(st, i, v);
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s == NULL)
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/* Runs a statement that returns one integer row (a PRAGMA or a count). */
static int query_int(sqlite3 *sql, const char *q, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(sql, q, -1, &st, NULL);

    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_ERROR;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* Creates the schema in an empty database, or checks the version of an
 * existing one. Inside one IMMEDIATE transaction, so two processes opening
 * a new file at once create the schema only once. Returns 0, or -1 after
 * adding a diagnostic. */
static int db_prepare_schema(struct rpt_db *db, struct sim_diag *d)
{
    int64_t version = 0, ntables = 0, meta_version = 0;
    int rc;

    rc = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = query_int(db->sql, "PRAGMA user_version", &version);
    if (rc == SQLITE_OK)
        rc = query_int(db->sql, "SELECT count(*) FROM sqlite_master", &ntables);
    if (rc != SQLITE_OK)
        goto sql_error;

    if (version == 0 && ntables == 0) {
        rc = sqlite3_exec(db->sql, rpt_schema_sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            goto sql_error;
        version = RPT_SCHEMA_VERSION;
    } else if (version == 0) {
        sim_diag_error(d, db->path, 0, 0, "not a dsec results database");
        goto fail;
    }
    if (version > RPT_SCHEMA_VERSION) {
        sim_diag_error(d, db->path, 0, 0,
                       "database schema version %lld is newer than this "
                       "program's %d; use a newer dsec",
                       (long long)version, RPT_SCHEMA_VERSION);
        goto fail;
    }
    if (version < RPT_SCHEMA_VERSION) {
        sim_diag_error(d, db->path, 0, 0,
                       "database schema version %lld is older than this "
                       "program's %d; write to a new database file",
                       (long long)version, RPT_SCHEMA_VERSION);
        goto fail;
    }
    /* The header's user_version and the meta row must agree; a file whose
     * meta table is missing or different was not written by us. */
    if (query_int(db->sql, "SELECT schema_version FROM meta", &meta_version) !=
            SQLITE_OK ||
        meta_version != version) {
        sim_diag_error(d, db->path, 0, 0,
                       "not a dsec results database: meta.schema_version "
                       "does not match user_version %lld",
                       (long long)version);
        goto fail;
    }
    rc = sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        goto sql_error;
    return 0;

sql_error:
    sim_diag_error(d, db->path, 0, 0, "cannot open database: %s",
                   sqlite3_errmsg(db->sql));
fail:
    if (!sqlite3_get_autocommit(db->sql))
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

struct rpt_db *rpt_db_open(const char *path, struct sim_diag *d)
{
    struct rpt_db *db = xcalloc(1, sizeof(*db));
    sqlite3_stmt *st = NULL;
    int rc;

    db->path = xstrdup(path);
    rc = sqlite3_open_v2(path, &db->sql,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "cannot open database: %s",
                       db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_extended_result_codes(db->sql, 1);
    sqlite3_busy_timeout(db->sql, RPT_DB_BUSY_TIMEOUT_MS);
    rc = sqlite3_exec(db->sql, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        goto sql_error;

    /* journal_mode answers with the mode now in force: "wal", or "memory"
     * for an in-memory database, which cannot use WAL and needs none. */
    rc =
        sqlite3_prepare_v2(db->sql, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const char *mode = (const char *)sqlite3_column_text(st, 0);
            if (mode == NULL ||
                (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)) {
                sim_diag_error(d, path, 0, 0,
                               "cannot open database: journal mode is %s, "
                               "not wal",
                               mode ? mode : "unknown");
                sqlite3_finalize(st);
                goto fail;
            }
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        goto sql_error;

    if (db_prepare_schema(db, d) != 0)
        goto fail;
    return db;

sql_error:
    sim_diag_error(d, path, 0, 0, "cannot open database: %s",
                   sqlite3_errmsg(db->sql));
fail:
    rpt_db_close(db);
    return NULL;
}

void rpt_db_close(struct rpt_db *db)
{
    if (db == NULL)
        return;
    /* Every statement was finalized by its preparer, so close cannot be
     * refused with SQLITE_BUSY. */
    sqlite3_close(db->sql);
    free(db->path);
    free(db);
}

/* Inserts one summary row; st is the prepared INSERT INTO summary. */
static int put_metric(sqlite3_stmt *st, const char *metric, double value)
{
    int rc;

    sqlite3_reset(st);
    rc = sqlite3_bind_text(st, 2, metric, -1, SQLITE_TRANSIENT);
    if (rc == SQLITE_OK)
        rc = bind_real(st, 3, value);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Whether results field f has rows in the summary table: a number with a
 * metric name (arrays name their own table there). */
static int in_summary(const struct cl_rfield *f)
{
    return f->db != NULL && f->type != CL_RT_STR && cl_rfield_elem(f) == NULL;
}

/* The rows the database writes elsewhere than the list has them. */
#define MOVED(field, after)                                                    \
    {offsetof(struct cl_results, field), offsetof(struct cl_results, after)},
static const struct {
    size_t field, after;
} moved[] = {CL_RESULTS_DB_MOVED(MOVED)};
#define NMOVED (sizeof(moved) / sizeof(moved[0]))

static int is_moved(const struct cl_rfield *f)
{
    for (size_t i = 0; i < NMOVED; i++)
        if (moved[i].field == f->offset)
            return 1;
    return 0;
}

/* The rows of field f: one per value of a latency or states field. */
static int put_field(sqlite3_stmt *st, const struct cl_rfield *f,
                     const struct cl_results *r)
{
    char name[96];
    int rc = SQLITE_OK;

    for (int sub = 0; sub < cl_rfield_nsub(f) && rc == SQLITE_OK; sub++)
        rc = put_metric(st, cl_rfield_metric(f, sub, name, sizeof(name)),
                        cl_rfield_get(f, r, sub));
    return rc;
}

/* Every scalar of r with a metric name, in the list's order but for the
 * moved rows (CL_RESULTS_DB_MOVED). Counters are exact as REAL up to
 * 2^53. */
static int write_summary(sqlite3 *sql, int64_t run_id,
                         const struct cl_results *r)
{
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(sql,
                            "INSERT INTO summary (run_id, metric, value) "
                            "VALUES (?1, ?2, ?3)",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run_id);
    for (int i = 0; i < CL_RESULTS_NFIELDS && rc == SQLITE_OK; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];

        if (!in_summary(f) || is_moved(f) || cl_rfield_omitted(f, r))
            continue;
        rc = put_field(st, f, r);
        for (size_t m = 0; m < NMOVED && rc == SQLITE_OK; m++)
            if (moved[m].after == f->offset)
                rc = put_field(st, cl_results_field_at(moved[m].field), r);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Binds field f of the record rec (an element of r) from parameter *param
 * on, advancing *param by its columns. */
static int bind_field(sqlite3_stmt *st, int *param, const struct cl_rfield *f,
                      const void *rec, const struct cl_results *r)
{
    const void *p = cl_rfield_cptr(rec, f);
    int i = *param, rc = SQLITE_OK;

    *param += cl_rfield_nsub(f);
    switch (f->type) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        return sqlite3_bind_int64(st, i, (sqlite3_int64) * (const uint64_t *)p);
    case CL_RT_I64:
        return sqlite3_bind_int64(st, i, *(const int64_t *)p);
    case CL_RT_INT:
    case CL_RT_BOOL:
        return sqlite3_bind_int(st, i, *(const int *)p);
    case CL_RT_STR:
        return bind_text(st, i, *(char *const *)p);
    case CL_RT_POOL: {
        int k = *(const int *)p;
        return bind_text(st, i,
                         k >= 0 && k < r->npools ? r->pools[k].name : "?");
    }
    case CL_RT_RSTATE:
        return bind_text(st, i, cl_replica_state_name(*(const int *)p));
    default:
        for (int sub = 0; sub < cl_rfield_nsub(f) && rc == SQLITE_OK; sub++)
            rc = bind_real(st, i + sub, cl_rfield_get(f, rec, sub));
        return rc;
    }
}

/* One row per element of array field f of r in the table f->db: the run's
 * id, then a column per value of the element's fields (CL_SERIES_FIELDS,
 * CL_POOL_FIELDS, CL_REPLICA_FIELDS, CL_STAGE_FIELDS, CL_REQUEST_FIELDS). A
 * pool is written by name; an index out of range (not from the cluster model)
 * is "?". */
static int write_rows(sqlite3 *sql, int64_t run_id, const struct cl_results *r,
                      const struct cl_rfield *f)
{
    const struct cl_relem *e = cl_rfield_elem(f);
    const char *rows = cl_rfield_array(f, r);
    size_t n = cl_rfield_count(f, r);
    sqlite3_stmt *st = NULL;
    char *cols, *params, *q;
    int ncols, rc;

    if (n == 0)
        return SQLITE_OK;
    cols = cl_rfield_columns(e->fields, e->nfields, &ncols);
    params = xstrdup("?1");
    for (int i = 2; i <= ncols + 1; i++) {
        char *t = xasprintf("%s, ?%d", params, i);
        free(params);
        params = t;
    }
    q = xasprintf("INSERT INTO %s (run_id, %s) VALUES (%s)", f->db, cols,
                  params);
    rc = sqlite3_prepare_v2(sql, q, -1, &st, NULL);
    free(q);
    free(params);
    free(cols);
    for (size_t k = 0; k < n && rc == SQLITE_OK; k++) {
        const void *rec = rows + k * e->size;
        int param = 2;

        sqlite3_reset(st);
        rc = sqlite3_bind_int64(st, 1, run_id);
        for (int i = 0; i < e->nfields && rc == SQLITE_OK; i++)
            rc = bind_field(st, &param, &e->fields[i], rec, r);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_pool_series(sqlite3 *sql, int64_t run_id,
                             const struct cl_results *r)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (r->pool_gpus_mean == NULL || r->npools == 0)
        return SQLITE_OK;
    rc = sqlite3_prepare_v2(sql,
                            "INSERT INTO pool_series (run_id, t_start_s, "
                            "t_end_s, pool, gpus_mean, cost_usd) VALUES (?1, "
                            "?2, ?3, ?4, ?5, ?6)",
                            -1, &st, NULL);
    for (size_t i = 0; i < r->nseries && rc == SQLITE_OK; i++) {
        for (int p = 0; p < r->npools && rc == SQLITE_OK; p++) {
            size_t k = i * (size_t)r->npools + (size_t)p;
            sqlite3_reset(st);
            rc = sqlite3_bind_int64(st, 1, run_id);
            if (rc == SQLITE_OK)
                rc = bind_real(st, 2, (double)r->series[i].t_start_ns / 1e9);
            if (rc == SQLITE_OK)
                rc = bind_real(st, 3, (double)r->series[i].t_end_ns / 1e9);
            if (rc == SQLITE_OK)
                rc = bind_text(st, 4, r->pools[p].name);
            if (rc == SQLITE_OK)
                rc = bind_real(st, 5, r->pool_gpus_mean[k]);
            if (rc == SQLITE_OK)
                rc = bind_real(st, 6, r->pool_cost_usd[k]);
            if (rc == SQLITE_OK)
                rc = sqlite3_step(st);
            if (rc == SQLITE_DONE)
                rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_notes(sqlite3 *sql, int64_t run_id, const struct cl_results *r)
{
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(sql,
                            "INSERT INTO notes (run_id, seq, text) "
                            "VALUES (?1, ?2, ?3)",
                            -1, &st, NULL);
    for (int i = 0; i < r->nnotes && rc == SQLITE_OK; i++) {
        sqlite3_reset(st);
        rc = sqlite3_bind_int64(st, 1, run_id);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, 2, i);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 3, r->notes[i] ? r->notes[i] : "");
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_run_row(sqlite3 *sql, const struct rpt_run_info *info,
                         const struct cl_results *r, int64_t *run_id)
{
    sqlite3_stmt *st = NULL;
    const char *name =
        info->scenario_name ? info->scenario_name : r->scenario_name;
    int rc;

    rc = sqlite3_prepare_v2(
        sql,
        "INSERT INTO runs (started_at, scenario_name, scenario_file, "
        "scenario_text, seed, program_version, wall_s, sim_time_s, status, "
        "policy, calibration, calibration_sha256) VALUES (?1, ?2, ?3, ?4, "
        "?5, ?6, ?7, ?8, 'ok', ?9, ?10, ?11)",
        -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 1, info->started_at);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 2, name);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 3, info->scenario_file);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 4, info->scenario_text);
    /* SQLite integers are signed: a seed above INT64_MAX is stored as its
     * two's-complement bit pattern and reads back the same through a cast
     * to uint64_t. */
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 5, (sqlite3_int64)info->seed);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 6, info->program_version);
    if (rc == SQLITE_OK)
        rc = bind_real(st, 7, r->wall_s);
    if (rc == SQLITE_OK)
        rc = bind_real(st, 8, r->sim_time_s);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 9, r->policy);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 10, r->calibration);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 11, r->calibration_sha256);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
        *run_id = sqlite3_last_insert_rowid(sql);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Writes every row of one run inside the caller's transaction and stores
 * its id in *run_id. Returns an SQLite code. */
static int write_run_rows(sqlite3 *sql, const struct rpt_run_info *info,
                          const struct cl_results *r, int64_t *run_id)
{
    int rc = write_run_row(sql, info, r, run_id);

    if (rc == SQLITE_OK)
        rc = write_summary(sql, *run_id, r);
    if (rc == SQLITE_OK)
        rc = write_rows(sql, *run_id, r, CL_RESULTS_FIELD(series));
    if (rc == SQLITE_OK)
        rc = write_notes(sql, *run_id, r);
    if (rc == SQLITE_OK)
        rc = write_rows(sql, *run_id, r, CL_RESULTS_FIELD(pools));
    if (rc == SQLITE_OK)
        rc = write_pool_series(sql, *run_id, r);
    if (rc == SQLITE_OK)
        rc = write_rows(sql, *run_id, r, CL_RESULTS_FIELD(replica_series));
    if (rc == SQLITE_OK)
        rc = write_rows(sql, *run_id, r, CL_RESULTS_FIELD(stages));
    if (rc == SQLITE_OK)
        rc = write_rows(sql, *run_id, r, CL_RESULTS_FIELD(requests));
    return rc;
}

/* The prediction intervals of dsec run --uncertainty, one row a metric. */
static int write_pi_rows(sqlite3 *sql, int64_t run_id, const struct cl_pi *pi)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(
        sql,
        "INSERT INTO prediction_intervals (run_id, metric, level, draws, "
        "params, structural, lo, hi, median) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
        "?7, ?8, ?9)",
        -1, &st, NULL);

    for (int m = 0; m < CL_PI_N && rc == SQLITE_OK; m++) {
        sqlite3_reset(st);
        rc = sqlite3_bind_int64(st, 1, run_id);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 2, cl_pi_json[m]);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_double(st, 3, pi->level);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, 4, pi->n);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, 5, pi->nparams);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, 6, pi->structural);
        if (rc == SQLITE_OK)
            rc = bind_real(st, 7, pi->lo[m]);
        if (rc == SQLITE_OK)
            rc = bind_real(st, 8, pi->hi[m]);
        if (rc == SQLITE_OK)
            rc = bind_real(st, 9, pi->median[m]);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK
                                                 : sqlite3_errcode(sql);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Ends a failed transaction. SQLite may have rolled back already (on
 * SQLITE_FULL, IOERR, ...); a failed COMMIT leaves the transaction open. */
static void rollback(sqlite3 *sql)
{
    if (!sqlite3_get_autocommit(sql))
        sqlite3_exec(sql, "ROLLBACK", NULL, NULL, NULL);
}

int rpt_db_write_run(struct rpt_db *db, const struct rpt_run_info *info,
                     const struct cl_results *r, int64_t *run_id_out,
                     struct sim_diag *d)
{
    int64_t run_id = 0;
    int rc;

    if (info->started_at == NULL) {
        sim_diag_error(d, db->path, 0, 0,
                       "cannot write run: started_at is not set");
        return SIM_EINVAL;
    }
    rc = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = write_run_rows(db->sql, info, r, &run_id);
    if (rc == SQLITE_OK && info->pi != NULL)
        rc = write_pi_rows(db->sql, run_id, info->pi);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        sim_diag_error(d, db->path, 0, 0, "cannot write run: %s",
                       sqlite3_errmsg(db->sql));
        rollback(db->sql);
        return SIM_EDB;
    }
    if (run_id_out != NULL)
        *run_id_out = run_id;
    return 0;
}

int rpt_db_sweep_find_or_add(struct rpt_db *db,
                             const struct rpt_sweep_info *info,
                             int64_t *sweep_id_out, int *created_out,
                             struct sim_diag *d)
{
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    int created = 0, rc;

    if (info->hash == NULL || info->created_at == NULL) {
        sim_diag_error(d, db->path, 0, 0,
                       "cannot record sweep: hash or created_at is not set");
        return SIM_EINVAL;
    }
    /* IMMEDIATE, so that two processes starting the same sweep at once
     * insert one row: the second waits and then finds it. */
    rc = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db->sql,
                                "SELECT id FROM sweeps WHERE sweep_hash = ?1",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 1, info->hash);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            id = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_OK && id == 0) {
        rc = sqlite3_prepare_v2(
            db->sql,
            "INSERT INTO sweeps (name, sweep_file, sweep_hash, sweep_text, "
            "points, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            -1, &st, NULL);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 1, info->name);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 2, info->sweep_file);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 3, info->hash);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 4, info->sweep_text);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int64(st, 5, info->points);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 6, info->created_at);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
            id = sqlite3_last_insert_rowid(db->sql);
            created = 1;
        }
        sqlite3_finalize(st);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        sim_diag_error(d, db->path, 0, 0, "cannot record sweep: %s",
                       sqlite3_errmsg(db->sql));
        rollback(db->sql);
        return SIM_EDB;
    }
    *sweep_id_out = id;
    if (created_out != NULL)
        *created_out = created;
    return 0;
}

/* Inserts the sweep_points row of pt and its sweep_values rows. */
static int write_point_rows(sqlite3 *sql, const struct rpt_sweep_point *pt,
                            int64_t run_id)
{
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(sql,
                            "INSERT INTO sweep_points (sweep_id, point_key, "
                            "seq, run_id, status, message) VALUES (?1, ?2, "
                            "?3, ?4, ?5, ?6)",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, pt->sweep_id);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 2, pt->key);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 3, pt->seq);
    if (rc == SQLITE_OK)
        rc = run_id > 0 ? sqlite3_bind_int64(st, 4, run_id)
                        : sqlite3_bind_null(st, 4);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 5, pt->status);
    if (rc == SQLITE_OK)
        rc = bind_text(st, 6, pt->message);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return rc;

    rc = sqlite3_prepare_v2(sql,
                            "INSERT INTO sweep_values (sweep_id, point_key, "
                            "path, value) VALUES (?1, ?2, ?3, ?4)",
                            -1, &st, NULL);
    for (int i = 0; i < pt->nvalues && rc == SQLITE_OK; i++) {
        sqlite3_reset(st);
        rc = sqlite3_bind_int64(st, 1, pt->sweep_id);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 2, pt->key);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 3, pt->paths[i]);
        if (rc == SQLITE_OK)
            rc = bind_text(st, 4, pt->values[i]);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

int rpt_db_write_sweep_point(struct rpt_db *db,
                             const struct rpt_sweep_point *pt,
                             const struct rpt_run_info *info,
                             const struct cl_results *r, int64_t *run_id_out,
                             struct sim_diag *d)
{
    int64_t run_id = 0;
    int rc;

    if (r != NULL && (info == NULL || info->started_at == NULL)) {
        sim_diag_error(d, db->path, 0, 0,
                       "cannot write sweep point: started_at is not set");
        return SIM_EINVAL;
    }
    rc = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK && r != NULL)
        rc = write_run_rows(db->sql, info, r, &run_id);
    if (rc == SQLITE_OK && r != NULL && info->pi != NULL)
        rc = write_pi_rows(db->sql, run_id, info->pi);
    if (rc == SQLITE_OK)
        rc = write_point_rows(db->sql, pt, run_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
        rollback(db->sql);
        return SIM_EBUSY;
    }
    if (rc != SQLITE_OK) {
        sim_diag_error(d, db->path, 0, 0, "cannot write sweep point: %s",
                       sqlite3_errmsg(db->sql));
        rollback(db->sql);
        return SIM_EDB;
    }
    if (run_id_out != NULL)
        *run_id_out = run_id;
    return 0;
}

/* Reads the metrics of one run into values[] (NAN where absent); st is the
 * prepared SELECT metric, value FROM summary WHERE run_id = ?1. */
static int read_metrics(sqlite3_stmt *st, int64_t run_id,
                        const char *const *metrics, int nmetrics,
                        double *values)
{
    int rc;

    sqlite3_reset(st);
    rc = sqlite3_bind_int64(st, 1, run_id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *m = (const char *)sqlite3_column_text(st, 0);
        rc = SQLITE_OK;
        for (int i = 0; m != NULL && i < nmetrics; i++)
            if (strcmp(m, metrics[i]) == 0 &&
                sqlite3_column_type(st, 1) != SQLITE_NULL)
                values[i] = sqlite3_column_double(st, 1);
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int rpt_db_sweep_points(struct rpt_db *db, int64_t sweep_id,
                        const char *const *metrics, int nmetrics,
                        rpt_sweep_point_fn fn, void *ctx, struct sim_diag *d)
{
    sqlite3_stmt *pts = NULL, *sum = NULL;
    double values[32];
    int rc, stop = 0;

    if (nmetrics < 0 || nmetrics > 32)
        nmetrics = nmetrics < 0 ? 0 : 32;
    /* Reading in one transaction gives a consistent snapshot while another
     * process may be writing. */
    rc = sqlite3_exec(db->sql, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db->sql,
                                "SELECT point_key, seq, status, message, "
                                "run_id FROM sweep_points WHERE sweep_id = ?1 "
                                "ORDER BY seq, point_key",
                                -1, &pts, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db->sql,
                                "SELECT metric, value FROM summary WHERE "
                                "run_id = ?1",
                                -1, &sum, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(pts, 1, sweep_id);
    while (rc == SQLITE_OK && !stop && (rc = sqlite3_step(pts)) == SQLITE_ROW) {
        int64_t run_id = sqlite3_column_int64(pts, 4);
        const char *key = (const char *)sqlite3_column_text(pts, 0);
        const char *status = (const char *)sqlite3_column_text(pts, 2);
        const char *message = (const char *)sqlite3_column_text(pts, 3);

        rc = SQLITE_OK;
        for (int i = 0; i < nmetrics; i++)
            values[i] = NAN;
        if (run_id > 0)
            rc = read_metrics(sum, run_id, metrics, nmetrics, values);
        if (rc == SQLITE_OK)
            stop = fn(ctx, key ? key : "", sqlite3_column_int64(pts, 1),
                      status ? status : "", message, run_id, values);
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(pts);
    sqlite3_finalize(sum);
    if (rc != SQLITE_OK) {
        sim_diag_error(d, db->path, 0, 0, "cannot read sweep: %s",
                       sqlite3_errmsg(db->sql));
        rollback(db->sql);
        return SIM_EDB;
    }
    sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    return stop;
}
