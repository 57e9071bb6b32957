/* The calibration database: one table of raw points, one of fits, and the
 * serving benchmark runs with their load stages (docs/calibration.md
 * "Database"). */
#include <math.h>
#include <string.h>

#include "calib/cal.h"
#include "base/errors.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS points ("
    " id INTEGER PRIMARY KEY,"
    " tool TEXT NOT NULL, file TEXT NOT NULL, line INTEGER,"
    " benchmark TEXT NOT NULL, op TEXT NOT NULL,"
    " dtype TEXT, redop TEXT, root INTEGER, ranks INTEGER, hosts INTEGER,"
    " src INTEGER, dst INTEGER,"
    " size_bytes REAL, count REAL, m REAL, n REAL, k REAL,"
    " time_us REAL, time_min_us REAL, time_max_us REAL,"
    " algbw_gbps REAL, busbw_gbps REAL, nwrong INTEGER,"
    " gpu TEXT, node TEXT, date TEXT);"
    "CREATE INDEX IF NOT EXISTS points_bench ON points(gpu, benchmark);"
    "CREATE TABLE IF NOT EXISTS fits ("
    " id INTEGER PRIMARY KEY, gpu TEXT, kind TEXT NOT NULL,"
    " subject TEXT NOT NULL, param TEXT NOT NULL, value REAL,"
    " stderr REAL, unit TEXT, r2 REAL, npoints INTEGER);"
    "CREATE TABLE IF NOT EXISTS serving_runs ("
    " id INTEGER PRIMARY KEY,"
    " source TEXT NOT NULL, format TEXT NOT NULL, gpu TEXT NOT NULL,"
    " model TEXT, scenario TEXT NOT NULL, model_config TEXT);"
    "CREATE TABLE IF NOT EXISTS serving_stages ("
    " run INTEGER NOT NULL, stage INTEGER NOT NULL,"
    " requests INTEGER, failures INTEGER, rate REAL, output_tokens REAL,"
    " ttft_mean_ms REAL, ttft_p99_ms REAL, tpot_mean_ms REAL,"
    " itl_mean_ms REAL, e2e_mean_ms REAL, e2e_p99_ms REAL,"
    " requests_per_s REAL,"
    " PRIMARY KEY (run, stage));";

void cal_point_clear(struct cal_point *p)
{
    memset(p, 0, sizeof(*p));
    p->root = p->ranks = p->hosts = p->src = p->dst = p->nwrong = -1;
    p->size_bytes = p->count = p->m = p->n = p->k = NAN;
    p->time_us = p->time_min_us = p->time_max_us = NAN;
    p->algbw_gbps = p->busbw_gbps = NAN;
}

int cal_db_open(const char *path, sqlite3 **out, struct sim_diag *d)
{
    sqlite3 *db = NULL;
    char *err = NULL;

    if (sqlite3_open(path, &db) != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "cannot open database: %s",
                       db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return SIM_EDB;
    }
    if (sqlite3_exec(db, schema, NULL, NULL, &err) != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "cannot create tables: %s",
                       err ? err : "unknown error");
        sqlite3_free(err);
        sqlite3_close(db);
        return SIM_EDB;
    }
    *out = db;
    return 0;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

static void bind_real(sqlite3_stmt *s, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_double(s, i, v);
}

static void bind_int(sqlite3_stmt *s, int i, int v)
{
    if (v < 0)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_int(s, i, v);
}

int cal_db_insert(sqlite3 *db, const struct cal_point *p, struct sim_diag *d)
{
    static const char sql[] =
        "INSERT INTO points (tool, file, line, benchmark, op, dtype, redop,"
        " root, ranks, hosts, src, dst, size_bytes, count, m, n, k, time_us,"
        " time_min_us, time_max_us, algbw_gbps, busbw_gbps, nwrong, gpu,"
        " node, date) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        "?,?,?,?)";
    sqlite3_stmt *s = NULL;
    int rc;

    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        sim_diag_error(d, p->file, p->line, 0, "database: %s",
                       sqlite3_errmsg(db));
        return SIM_EDB;
    }
    bind_text(s, 1, p->tool);
    bind_text(s, 2, p->file);
    bind_int(s, 3, p->line);
    bind_text(s, 4, p->benchmark);
    bind_text(s, 5, p->op);
    bind_text(s, 6, p->dtype);
    bind_text(s, 7, p->redop);
    /* root -1 is nccl-tests' "no root", kept as NULL like any unknown. */
    bind_int(s, 8, p->root);
    bind_int(s, 9, p->ranks);
    bind_int(s, 10, p->hosts);
    bind_int(s, 11, p->src);
    bind_int(s, 12, p->dst);
    bind_real(s, 13, p->size_bytes);
    bind_real(s, 14, p->count);
    bind_real(s, 15, p->m);
    bind_real(s, 16, p->n);
    bind_real(s, 17, p->k);
    bind_real(s, 18, p->time_us);
    bind_real(s, 19, p->time_min_us);
    bind_real(s, 20, p->time_max_us);
    bind_real(s, 21, p->algbw_gbps);
    bind_real(s, 22, p->busbw_gbps);
    bind_int(s, 23, p->nwrong);
    bind_text(s, 24, p->gpu);
    bind_text(s, 25, p->node);
    bind_text(s, 26, p->date);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        sim_diag_error(d, p->file, p->line, 0, "database: %s",
                       sqlite3_errmsg(db));
        return SIM_EDB;
    }
    return 0;
}

static void bind_int64(sqlite3_stmt *s, int i, int64_t v)
{
    if (v < 0)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_int64(s, i, v);
}

/* Prepares sql, or reports the error against file. */
static sqlite3_stmt *prepare(sqlite3 *db, const char *sql, const char *file,
                             struct sim_diag *d)
{
    sqlite3_stmt *s = NULL;

    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        sim_diag_error(d, file, 0, 0, "database: %s", sqlite3_errmsg(db));
        return NULL;
    }
    return s;
}

/* Steps and finalizes s, which inserts one row. */
static int step_insert(sqlite3 *db, sqlite3_stmt *s, const char *file,
                       struct sim_diag *d)
{
    int rc = sqlite3_step(s);

    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        sim_diag_error(d, file, 0, 0, "database: %s", sqlite3_errmsg(db));
        return SIM_EDB;
    }
    return 0;
}

int cal_db_insert_run(sqlite3 *db, const struct cal_serving_run *r, int64_t *id,
                      struct sim_diag *d)
{
    static const char sql[] =
        "INSERT INTO serving_runs (source, format, gpu, model, scenario,"
        " model_config) VALUES (?,?,?,?,?,?)";
    sqlite3_stmt *s = prepare(db, sql, r->source, d);
    int rc;

    if (s == NULL)
        return SIM_EDB;
    bind_text(s, 1, r->source);
    bind_text(s, 2, r->format);
    bind_text(s, 3, r->gpu);
    bind_text(s, 4, r->model);
    bind_text(s, 5, r->scenario);
    bind_text(s, 6, r->model_config);
    rc = step_insert(db, s, r->source, d);
    if (rc == 0)
        *id = sqlite3_last_insert_rowid(db);
    return rc;
}

int cal_db_insert_stage(sqlite3 *db, int64_t run,
                        const struct cal_serving_stage *st, const char *file,
                        struct sim_diag *d)
{
    static const char sql[] =
        "INSERT INTO serving_stages (run, stage, requests, failures, rate,"
        " output_tokens, ttft_mean_ms, ttft_p99_ms, tpot_mean_ms,"
        " itl_mean_ms, e2e_mean_ms, e2e_p99_ms, requests_per_s)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *s = prepare(db, sql, file, d);

    if (s == NULL)
        return SIM_EDB;
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_int(s, 2, st->stage);
    bind_int64(s, 3, st->requests);
    bind_int64(s, 4, st->failures);
    bind_real(s, 5, st->rate_per_s);
    bind_real(s, 6, st->output_tokens);
    bind_real(s, 7, st->ttft_mean_ms);
    bind_real(s, 8, st->ttft_p99_ms);
    bind_real(s, 9, st->tpot_mean_ms);
    bind_real(s, 10, st->itl_mean_ms);
    bind_real(s, 11, st->e2e_mean_ms);
    bind_real(s, 12, st->e2e_p99_ms);
    bind_real(s, 13, st->requests_per_s);
    return step_insert(db, s, file, d);
}

static void print_cell(FILE *fp, sqlite3_stmt *s, int i)
{
    switch (sqlite3_column_type(s, i)) {
    case SQLITE_NULL:
        fputs("-", fp);
        break;
    case SQLITE_FLOAT:
        fprintf(fp, "%.6g", sqlite3_column_double(s, i));
        break;
    default:
        fputs((const char *)sqlite3_column_text(s, i), fp);
        break;
    }
}

static int dump(sqlite3 *db, const char *sql, FILE *fp, struct sim_diag *d)
{
    sqlite3_stmt *s = NULL;
    int rc, ncol;

    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        sim_diag_error(d, NULL, 0, 0, "database: %s", sqlite3_errmsg(db));
        return SIM_EDB;
    }
    ncol = sqlite3_column_count(s);
    for (int i = 0; i < ncol; i++)
        fprintf(fp, "%s%s", i ? "\t" : "", sqlite3_column_name(s, i));
    fputc('\n', fp);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        for (int i = 0; i < ncol; i++) {
            if (i)
                fputc('\t', fp);
            print_cell(fp, s, i);
        }
        fputc('\n', fp);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        sim_diag_error(d, NULL, 0, 0, "database: %s", sqlite3_errmsg(db));
        return SIM_EDB;
    }
    return 0;
}

int cal_show(sqlite3 *db, FILE *fp, struct sim_diag *d)
{
    int rc;

    fputs("# points per source, benchmark and operation\n", fp);
    rc = dump(db,
              "SELECT gpu, tool, benchmark, op, count(*) AS points,"
              " min(size_bytes) AS min_bytes, max(size_bytes) AS max_bytes,"
              " max(busbw_gbps) AS max_busbw, max(algbw_gbps) AS max_algbw,"
              " count(DISTINCT file) AS files FROM points"
              " GROUP BY gpu, tool, benchmark, op ORDER BY gpu, tool,"
              " benchmark, op",
              fp, d);
    if (rc != 0)
        return rc;
    fputs("\n# fits\n", fp);
    rc = dump(db,
              "SELECT gpu, kind, subject, param, value, stderr, unit, r2,"
              " npoints FROM fits ORDER BY id",
              fp, d);
    if (rc != 0)
        return rc;
    fputs("\n# serving runs\n", fp);
    rc = dump(db,
              "SELECT r.id, r.gpu, r.format, r.model, count(s.stage) AS"
              " stages, r.model_config IS NOT NULL AS config, r.source"
              " FROM serving_runs r LEFT JOIN serving_stages s ON s.run = r.id"
              " GROUP BY r.id ORDER BY r.id",
              fp, d);
    if (rc != 0)
        return rc;
    fputs("\n# serving stages (latencies in ms)\n", fp);
    return dump(db,
                "SELECT run, stage, requests, failures AS fail, rate,"
                " output_tokens AS out, ttft_mean_ms AS ttft, ttft_p99_ms AS"
                " ttft_p99, tpot_mean_ms AS tpot, itl_mean_ms AS itl,"
                " e2e_mean_ms AS e2e, e2e_p99_ms AS e2e_p99, requests_per_s"
                " AS req_per_s FROM serving_stages ORDER BY run, stage",
                fp, d);
}
