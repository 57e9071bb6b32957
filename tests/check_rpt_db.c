/* Check suite rpt_db: the results database writer, the summary table and the
 * JSON summary, on a hand-built cl_results and on one with every listed
 * field set (tests/results-fixture.h), and that the schema and
 * docs/results.md name every field of the lists. Database tests read back
 * with plain sqlite3 queries, not through the code under test. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/cluster/results.h"
#include "reports/db.h"
#include "reports/schema.h"
#include "reports/summary.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "tests/results-fixture.h"

static char db_path[4096];
static struct sim_diag diag;

static void db_setup(void)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    snprintf(db_path, sizeof(db_path), "%s/check_rpt_db.XXXXXX", dir);
    fd = mkstemp(db_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    sim_diag_init(&diag);
}

static void db_teardown(void)
{
    char side[4200];

    sim_diag_fini(&diag);
    unlink(db_path);
    snprintf(side, sizeof(side), "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", db_path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-journal", db_path);
    unlink(side);
}

static void fill_latency(struct cl_latency *l, uint64_t n, double base)
{
    l->n = n;
    l->mean = base + 0.5;
    l->ci95 = base / 100.0;
    l->p50 = base;
    l->p90 = base * 2.0;
    l->p99 = base * 3.0;
    l->max = base * 4.0;
}

/* A results record with every field set, three series rows, two notes and
 * NAN in slo_attainment, tpot_ms.ci95 and row 1's quantiles. */
static void fill_results(struct cl_results *r)
{
    memset(r, 0, sizeof(*r));
    r->scenario_name = xstrdup("seed-dsec");
    r->seed = 42;
    fill_latency(&r->ttft_ms, 990, 120.25);
    fill_latency(&r->tpot_ms, 990, 22.125);
    r->tpot_ms.ci95 = NAN;
    fill_latency(&r->e2e_ms, 990, 4100.0);
    fill_latency(&r->queue_ms, 990, 0.1);
    r->requests_arrived = 1000;
    r->requests_completed = 990;
    r->requests_dropped = 3;
    r->input_tokens = 2000000;
    r->output_tokens = 250000;
    r->throughput_tokens_per_s = 694.4444444444445;
    r->requests_per_s = 2.75;
    r->sim_time_s = 360.0;
    r->gpu_hours = 1.6;
    r->cost_usd = 4.8;
    r->price_usd_per_gpu_hour = 3.0;
    r->gpus_per_replica = 8;
    r->slo_attainment = NAN;
    r->replicas_min = 1;
    r->replicas_max = 3;
    r->replicas_mean = 2.0 / 3.0;
    r->scale_events = 4;
    r->queue_len_mean = 0.3;
    r->arrival_rate_per_s = 2.7777777777777777;
    r->utilization = 0.85;
    r->sim_events = 123456;
    r->wall_s = 0.25;
    r->events_per_s = 493824.0;
    cl_results_note(r, "elastic scaling not simulated yet");
    cl_results_note(r, "rdma_interface mlx5_0 ignored by the simulator");
    r->nseries = 3;
    r->series = xcalloc(r->nseries, sizeof(*r->series));
    for (size_t i = 0; i < r->nseries; i++) {
        struct cl_series_row *s = &r->series[i];
        double k = (double)(i + 1);

        s->t_start_ns = (int64_t)i * 120000000000;
        s->t_end_ns = (int64_t)(i + 1) * 120000000000;
        s->arrivals = 300 + i;
        s->completions = 290 + i;
        s->output_tokens = 80000 + i;
        s->throughput_tokens_per_s = 666.5 * k;
        s->queue_len_mean = 0.25 * k;
        s->running_mean = 10.5 * k;
        s->replicas_mean = 1.5 * k;
        s->ttft_p50_ms = 100.0 * k;
        s->ttft_p99_ms = 300.0 * k;
        s->tpot_p50_ms = 20.0 * k;
        s->tpot_p99_ms = 40.0 * k;
        s->e2e_p50_ms = 4000.0 * k;
        s->e2e_p99_ms = 9000.0 * k;
    }
    /* An interval that saw no completion. */
    r->series[1].completions = 0;
    r->series[1].ttft_p50_ms = NAN;
    r->series[1].ttft_p99_ms = NAN;
    r->series[1].tpot_p50_ms = NAN;
    r->series[1].tpot_p99_ms = NAN;
    r->series[1].e2e_p50_ms = NAN;
    r->series[1].e2e_p99_ms = NAN;

    /* Two pools: an on-demand one and a borrowed test pool. */
    r->policy = xstrdup("target-latency");
    r->cold_starts = 5;
    r->failures = 1;
    r->requests_retried = 7;
    r->recovery_s_mean = 180.5;
    r->npools = 2;
    r->pools = xcalloc(2, sizeof(*r->pools));
    for (int i = 0; i < 2; i++) {
        struct cl_pool_result *p = &r->pools[i];
        p->name = xstrdup(i == 0 ? "on-demand" : "test");
        p->gpu = xstrdup("h200");
        p->capacity_gpus = 32 - 16 * i;
        p->borrowable = i;
        p->price_usd_per_gpu_hour = 6.31 - i;
        for (int st = 0; st < CL_GS_COUNT; st++) {
            p->gpu_hours_by_state[st] = 0.25 * (st + 1) + i;
            r->gpu_hours_by_state[st] += p->gpu_hours_by_state[st];
        }
        p->gpu_hours_used = 3.75 + 5 * i;
        p->gpu_hours_paid = p->gpu_hours_used;
        p->cost_usd = p->gpu_hours_paid * p->price_usd_per_gpu_hour;
        p->replicas_started = (uint64_t)(3 + i);
    }
    r->borrowed_gpu_hours = r->pools[1].gpu_hours_used;
}

static const struct rpt_run_info run_info = {
    .started_at = "2025-01-31T12:00:00Z",
    .scenario_name = "seed-dsec",
    .scenario_file = "scenarios/seed-dsec.yaml",
    .scenario_text = "cluster: {min_gpus: 4, max_gpus: 32}\n",
    .program_version = "0.1.0",
    .seed = 42,
};

static sqlite3 *raw_open(void)
{
    sqlite3 *sql = NULL;

    ck_assert_int_eq(sqlite3_open(db_path, &sql), SQLITE_OK);
    return sql;
}

static int64_t raw_int(sqlite3 *sql, const char *q)
{
    sqlite3_stmt *st = NULL;
    int64_t v;

    ck_assert_msg(sqlite3_prepare_v2(sql, q, -1, &st, NULL) == SQLITE_OK,
                  "%s: %s", q, sqlite3_errmsg(sql));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void raw_exec(sqlite3 *sql, const char *q)
{
    ck_assert_msg(sqlite3_exec(sql, q, NULL, NULL, NULL) == SQLITE_OK, "%s: %s",
                  q, sqlite3_errmsg(sql));
}

/* Asserts that column i holds v exactly, or NULL when v is NAN. */
static void assert_col_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v)) {
        ck_assert_msg(sqlite3_column_type(st, i) == SQLITE_NULL,
                      "column %d: expected NULL", i);
    } else {
        ck_assert_msg(sqlite3_column_type(st, i) != SQLITE_NULL,
                      "column %d: unexpected NULL", i);
        ck_assert_msg(sqlite3_column_double(st, i) == v,
                      "column %d: %.17g != %.17g", i,
                      sqlite3_column_double(st, i), v);
    }
}

static void assert_metric(sqlite3 *sql, const char *metric, double v)
{
    sqlite3_stmt *st = NULL;

    ck_assert_int_eq(sqlite3_prepare_v2(sql,
                                        "SELECT value FROM summary "
                                        "WHERE run_id = 1 AND metric = ?1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
    ck_assert_msg(sqlite3_step(st) == SQLITE_ROW, "no metric %s", metric);
    if (isnan(v))
        ck_assert_msg(sqlite3_column_type(st, 0) == SQLITE_NULL,
                      "%s: expected NULL", metric);
    else
        ck_assert_msg(sqlite3_column_double(st, 0) == v, "%s: %.17g != %.17g",
                      metric, sqlite3_column_double(st, 0), v);
    sqlite3_finalize(st);
}

static void assert_latency_metrics(sqlite3 *sql, const char *base,
                                   const struct cl_latency *l)
{
    char name[64];

    snprintf(name, sizeof(name), "%s.n", base);
    assert_metric(sql, name, (double)l->n);
    snprintf(name, sizeof(name), "%s.mean", base);
    assert_metric(sql, name, l->mean);
    snprintf(name, sizeof(name), "%s.ci95", base);
    assert_metric(sql, name, l->ci95);
    snprintf(name, sizeof(name), "%s.p50", base);
    assert_metric(sql, name, l->p50);
    snprintf(name, sizeof(name), "%s.p90", base);
    assert_metric(sql, name, l->p90);
    snprintf(name, sizeof(name), "%s.p99", base);
    assert_metric(sql, name, l->p99);
    snprintf(name, sizeof(name), "%s.max", base);
    assert_metric(sql, name, l->max);
}

static char *diag_first(void)
{
    ck_assert_int_ge(diag.n, 1);
    return sim_diag_format(&diag, 0);
}

static void assert_diag(const char *expected)
{
    char *s = diag_first();

    ck_assert_str_eq(s, expected);
    free(s);
}

START_TEST(test_rpt_db_open_creates_schema)
{
    struct rpt_db *db = rpt_db_open(db_path, &diag);
    sqlite3 *sql;
    sqlite3_stmt *st = NULL;

    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(sim_diag_errors(&diag), 0);
    rpt_db_close(db);
    sql = raw_open();
    ck_assert_int_eq(raw_int(sql, "PRAGMA user_version"), RPT_SCHEMA_VERSION);
    ck_assert_int_eq(raw_int(sql, "SELECT schema_version FROM meta"),
                     RPT_SCHEMA_VERSION);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM meta"), 1);
    ck_assert_int_eq(
        sqlite3_prepare_v2(sql, "PRAGMA journal_mode", -1, &st, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(sql);

    /* A second open of the same file finds the schema and keeps it. */
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);
    rpt_db_close(db);
    ck_assert_int_eq(sim_diag_errors(&diag), 0);
}
END_TEST

START_TEST(test_rpt_db_open_embedded_schema_matches_file)
{
    /* The embedded text is generated from reports/schema.sql; check that
     * it still declares the version that schema.h does. */
    char want[64];

    snprintf(want, sizeof(want), "PRAGMA user_version = %d;",
             RPT_SCHEMA_VERSION);
    ck_assert_ptr_nonnull(strstr(rpt_schema_sql, want));
    snprintf(want, sizeof(want), "VALUES (%d);", RPT_SCHEMA_VERSION);
    ck_assert_ptr_nonnull(strstr(rpt_schema_sql, want));
}
END_TEST

START_TEST(test_rpt_db_open_missing_dir)
{
    const char *path = "/nonexistent-dsec-dir/sub/dsec.db";
    char expected[256];

    ck_assert_ptr_null(rpt_db_open(path, &diag));
    ck_assert_int_eq(sim_diag_errors(&diag), 1);
    snprintf(expected, sizeof(expected),
             "%s: error: cannot open database: unable to open database file",
             path);
    assert_diag(expected);
}
END_TEST

START_TEST(test_rpt_db_open_newer_version)
{
    struct rpt_db *db = rpt_db_open(db_path, &diag);
    sqlite3 *sql;
    char expected[4400], pragma[64];

    ck_assert_ptr_nonnull(db);
    rpt_db_close(db);
    sql = raw_open();
    snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d",
             RPT_SCHEMA_VERSION + 1);
    raw_exec(sql, pragma);
    sqlite3_close(sql);

    ck_assert_ptr_null(rpt_db_open(db_path, &diag));
    snprintf(expected, sizeof(expected),
             "%s: error: database schema version %d is newer than this "
             "program's %d; use a newer dsec",
             db_path, RPT_SCHEMA_VERSION + 1, RPT_SCHEMA_VERSION);
    assert_diag(expected);
}
END_TEST

START_TEST(test_rpt_db_open_older_version)
{
    struct rpt_db *db = rpt_db_open(db_path, &diag);
    sqlite3 *sql;
    char expected[4400];

    ck_assert_ptr_nonnull(db);
    rpt_db_close(db);
    sql = raw_open();
    raw_exec(sql, "PRAGMA user_version = -1");
    sqlite3_close(sql);

    ck_assert_ptr_null(rpt_db_open(db_path, &diag));
    snprintf(expected, sizeof(expected),
             "%s: error: database schema version -1 is older than this "
             "program's %d; write to a new database file",
             db_path, RPT_SCHEMA_VERSION);
    assert_diag(expected);
}
END_TEST

START_TEST(test_rpt_db_open_foreign_database)
{
    sqlite3 *sql = raw_open();
    char expected[4400];

    raw_exec(sql, "CREATE TABLE t (x)");
    sqlite3_close(sql);
    ck_assert_ptr_null(rpt_db_open(db_path, &diag));
    snprintf(expected, sizeof(expected),
             "%s: error: not a dsec results database", db_path);
    assert_diag(expected);
}
END_TEST

START_TEST(test_rpt_db_open_not_sqlite)
{
    FILE *fp = fopen(db_path, "w");
    char expected[4400];

    ck_assert_ptr_nonnull(fp);
    for (int i = 0; i < 64; i++)
        fputs("this is not an SQLite database file\n", fp);
    fclose(fp);
    ck_assert_ptr_null(rpt_db_open(db_path, &diag));
    snprintf(expected, sizeof(expected),
             "%s: error: cannot open database: file is not a database",
             db_path);
    assert_diag(expected);
}
END_TEST

START_TEST(test_rpt_db_write_run_roundtrip)
{
    struct cl_results r;
    struct rpt_db *db;
    sqlite3 *sql;
    sqlite3_stmt *st = NULL;
    int64_t id = -1;

    fill_results(&r);
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_write_run(db, &run_info, &r, &id, &diag), 0);
    ck_assert_int_eq(id, 1);
    rpt_db_close(db);

    sql = raw_open();
    ck_assert_int_eq(
        sqlite3_prepare_v2(sql,
                           "SELECT id, started_at, scenario_name, "
                           "scenario_file, scenario_text, seed, "
                           "program_version, wall_s, sim_time_s, status "
                           "FROM runs",
                           -1, &st, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int64(st, 0), 1);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 1),
                     run_info.started_at);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 2), "seed-dsec");
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 3),
                     run_info.scenario_file);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 4),
                     run_info.scenario_text);
    ck_assert_int_eq(sqlite3_column_int64(st, 5), 42);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 6), "0.1.0");
    assert_col_real(st, 7, r.wall_s);
    assert_col_real(st, 8, r.sim_time_s);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 9), "ok");
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);

    /* One row per listed metric. */
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM summary"),
                     rfix_nmetrics(&r));
    assert_metric(sql, "cold_starts", 5);
    assert_metric(sql, "recovery_s_mean", 180.5);
    assert_metric(sql, "gpu_hours.idle", 3.0); /* 1.0 + 2.0 */
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM pools"), 2);
    ck_assert_int_eq(raw_int(sql, "SELECT borrowable FROM pools WHERE "
                                  "name = 'test'"),
                     1);
    ck_assert_int_eq(raw_int(sql, "SELECT replicas_started FROM pools "
                                  "WHERE name = 'on-demand'"),
                     3);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM runs WHERE policy = "
                                  "'target-latency'"),
                     1);
    assert_latency_metrics(sql, "ttft_ms", &r.ttft_ms);
    assert_latency_metrics(sql, "tpot_ms", &r.tpot_ms);
    assert_latency_metrics(sql, "e2e_ms", &r.e2e_ms);
    assert_latency_metrics(sql, "queue_ms", &r.queue_ms);
    assert_metric(sql, "requests_arrived", 1000);
    assert_metric(sql, "requests_completed", 990);
    assert_metric(sql, "requests_dropped", 3);
    assert_metric(sql, "input_tokens", 2000000);
    assert_metric(sql, "output_tokens", 250000);
    assert_metric(sql, "throughput_tokens_per_s", r.throughput_tokens_per_s);
    assert_metric(sql, "requests_per_s", r.requests_per_s);
    assert_metric(sql, "sim_time_s", r.sim_time_s);
    assert_metric(sql, "gpu_hours", r.gpu_hours);
    assert_metric(sql, "cost_usd", r.cost_usd);
    assert_metric(sql, "price_usd_per_gpu_hour", r.price_usd_per_gpu_hour);
    assert_metric(sql, "gpus_per_replica", 8);
    assert_metric(sql, "slo_attainment", NAN);
    assert_metric(sql, "replicas.min", 1);
    assert_metric(sql, "replicas.max", 3);
    assert_metric(sql, "replicas.mean", r.replicas_mean);
    assert_metric(sql, "scale_events", 4);
    assert_metric(sql, "queue_len_mean", r.queue_len_mean);
    assert_metric(sql, "arrival_rate_per_s", r.arrival_rate_per_s);
    assert_metric(sql, "utilization", r.utilization);
    assert_metric(sql, "sim_events", 123456);
    assert_metric(sql, "wall_s", r.wall_s);
    assert_metric(sql, "events_per_s", r.events_per_s);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM summary "
                                  "WHERE value IS NULL"),
                     2);

    ck_assert_int_eq(
        sqlite3_prepare_v2(
            sql,
            "SELECT run_id, t_start_s, t_end_s, arrivals, completions, "
            "output_tokens, throughput_tokens_per_s, queue_len_mean, "
            "running_mean, replicas_mean, ttft_p50_ms, ttft_p99_ms, "
            "tpot_p50_ms, tpot_p99_ms, e2e_p50_ms, e2e_p99_ms "
            "FROM timeseries ORDER BY t_start_s",
            -1, &st, NULL),
        SQLITE_OK);
    for (size_t i = 0; i < r.nseries; i++) {
        const struct cl_series_row *s = &r.series[i];

        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_int_eq(sqlite3_column_int64(st, 0), 1);
        assert_col_real(st, 1, (double)s->t_start_ns / 1e9);
        assert_col_real(st, 2, (double)s->t_end_ns / 1e9);
        ck_assert_int_eq(sqlite3_column_int64(st, 3), (int64_t)s->arrivals);
        ck_assert_int_eq(sqlite3_column_int64(st, 4), (int64_t)s->completions);
        ck_assert_int_eq(sqlite3_column_int64(st, 5),
                         (int64_t)s->output_tokens);
        assert_col_real(st, 6, s->throughput_tokens_per_s);
        assert_col_real(st, 7, s->queue_len_mean);
        assert_col_real(st, 8, s->running_mean);
        assert_col_real(st, 9, s->replicas_mean);
        assert_col_real(st, 10, s->ttft_p50_ms);
        assert_col_real(st, 11, s->ttft_p99_ms);
        assert_col_real(st, 12, s->tpot_p50_ms);
        assert_col_real(st, 13, s->tpot_p99_ms);
        assert_col_real(st, 14, s->e2e_p50_ms);
        assert_col_real(st, 15, s->e2e_p99_ms);
    }
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM timeseries "
                                  "WHERE ttft_p50_ms IS NULL"),
                     1);

    ck_assert_int_eq(sqlite3_prepare_v2(sql,
                                        "SELECT run_id, seq, text FROM notes "
                                        "ORDER BY seq",
                                        -1, &st, NULL),
                     SQLITE_OK);
    for (int i = 0; i < r.nnotes; i++) {
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_int_eq(sqlite3_column_int64(st, 0), 1);
        ck_assert_int_eq(sqlite3_column_int(st, 1), i);
        ck_assert_str_eq((const char *)sqlite3_column_text(st, 2), r.notes[i]);
    }
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    ck_assert_int_eq(
        raw_int(sql, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    sqlite3_close(sql);
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_rpt_db_write_run_two_runs)
{
    struct cl_results r;
    struct rpt_db *db;
    struct rpt_run_info info = run_info;
    sqlite3 *sql;
    int64_t id1 = 0, id2 = 0;

    fill_results(&r);
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_write_run(db, &info, &r, &id1, &diag), 0);
    /* A seed above INT64_MAX survives as its bit pattern. */
    info.seed = UINT64_MAX - 1;
    info.scenario_name = NULL;
    ck_assert_int_eq(rpt_db_write_run(db, &info, &r, &id2, &diag), 0);
    rpt_db_close(db);
    ck_assert_int_eq(id1, 1);
    ck_assert_int_eq(id2, 2);

    sql = raw_open();
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM runs"), 2);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM summary "
                                  "GROUP BY run_id HAVING run_id = 2"),
                     rfix_nmetrics(&r));
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM timeseries "
                                  "WHERE run_id = 2"),
                     3);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM notes "
                                  "WHERE run_id = 2"),
                     2);
    ck_assert_uint_eq(
        (uint64_t)raw_int(sql, "SELECT seed FROM runs WHERE id = 2"),
        UINT64_MAX - 1);
    /* scenario_name NULL falls back to the results' own name. */
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM runs "
                                  "WHERE id = 2 AND "
                                  "scenario_name = 'seed-dsec'"),
                     1);
    sqlite3_close(sql);
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_rpt_db_write_run_failure_rolls_back)
{
    struct cl_results r;
    struct rpt_db *db;
    sqlite3 *sql;
    int64_t id = -5;
    char expected[4400];

    fill_results(&r);
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);

    /* Notes are written last: by then the run row, the summary and the
     * series are inserted, and the failure must undo all of them. */
    sql = raw_open();
    raw_exec(sql, "CREATE TRIGGER fail_notes BEFORE INSERT ON notes "
                  "BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    ck_assert_int_eq(rpt_db_write_run(db, &run_info, &r, &id, &diag), SIM_EDB);
    ck_assert_int_eq(id, -5);
    snprintf(expected, sizeof(expected),
             "%s: error: cannot write run: injected failure", db_path);
    assert_diag(expected);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM runs"), 0);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM summary"), 0);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM timeseries"), 0);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM notes"), 0);

    /* The handle is usable afterwards, and nothing was left locked. */
    raw_exec(sql, "DROP TRIGGER fail_notes");
    ck_assert_int_eq(rpt_db_write_run(db, &run_info, &r, &id, &diag), 0);
    ck_assert_int_eq(id, 1);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM notes"), 2);
    sqlite3_close(sql);
    rpt_db_close(db);
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_rpt_db_write_run_no_started_at)
{
    struct cl_results r;
    struct rpt_db *db;
    struct rpt_run_info info = run_info;
    sqlite3 *sql;

    fill_results(&r);
    info.started_at = NULL;
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_write_run(db, &info, &r, NULL, &diag), SIM_EINVAL);
    rpt_db_close(db);
    sql = raw_open();
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM runs"), 0);
    sqlite3_close(sql);
    cl_results_fini(&r);
}
END_TEST

static struct json_object *jget(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    ck_assert_msg(json_object_object_get_ex(o, key, &v), "no member %s", key);
    return v;
}

static void assert_jdouble(struct json_object *o, const char *key, double v)
{
    struct json_object *j = jget(o, key);

    if (isnan(v)) {
        ck_assert_msg(j == NULL, "%s: expected null", key);
        return;
    }
    ck_assert_msg(json_object_is_type(j, json_type_double) ||
                      json_object_is_type(j, json_type_int),
                  "%s: not a number", key);
    ck_assert_msg(json_object_get_double(j) == v, "%s: %.17g != %.17g", key,
                  json_object_get_double(j), v);
}

static void assert_juint(struct json_object *o, const char *key, uint64_t v)
{
    struct json_object *j = jget(o, key);

    ck_assert_msg(json_object_is_type(j, json_type_int), "%s: not an int", key);
    ck_assert_uint_eq(json_object_get_uint64(j), v);
}

static void assert_jlatency(struct json_object *o, const char *key,
                            const struct cl_latency *l)
{
    struct json_object *j = jget(o, key);

    ck_assert(json_object_is_type(j, json_type_object));
    assert_jdouble(j, "mean", l->mean);
    assert_jdouble(j, "ci95", l->ci95);
    assert_jdouble(j, "p50", l->p50);
    assert_jdouble(j, "p90", l->p90);
    assert_jdouble(j, "p99", l->p99);
    assert_jdouble(j, "max", l->max);
    assert_juint(j, "n", l->n);
}

START_TEST(test_rpt_summary_json_members)
{
    struct cl_results r;
    struct json_object *o, *rep, *notes;
    char *s;

    fill_results(&r);
    for (int pretty = 0; pretty <= 1; pretty++) {
        s = rpt_summary_json(&r, pretty);
        o = json_tokener_parse(s);
        ck_assert_msg(o != NULL, "unparsable: %s", s);
        ck_assert_str_eq(json_object_get_string(jget(o, "scenario")),
                         "seed-dsec");
        assert_juint(o, "seed", 42);
        assert_jlatency(o, "ttft_ms", &r.ttft_ms);
        assert_jlatency(o, "tpot_ms", &r.tpot_ms);
        assert_jlatency(o, "e2e_ms", &r.e2e_ms);
        assert_jlatency(o, "queue_ms", &r.queue_ms);
        assert_juint(o, "requests_arrived", 1000);
        assert_juint(o, "requests_completed", 990);
        assert_juint(o, "requests_dropped", 3);
        assert_juint(o, "input_tokens", 2000000);
        assert_juint(o, "output_tokens", 250000);
        assert_jdouble(o, "throughput_tokens_per_s", r.throughput_tokens_per_s);
        assert_jdouble(o, "requests_per_s", r.requests_per_s);
        assert_jdouble(o, "gpu_hours", r.gpu_hours);
        assert_jdouble(o, "cost_usd", r.cost_usd);
        assert_jdouble(o, "price_usd_per_gpu_hour", r.price_usd_per_gpu_hour);
        assert_juint(o, "gpus_per_replica", 8);
        assert_jdouble(o, "slo_attainment", NAN);
        rep = jget(o, "replicas");
        assert_juint(rep, "min", 1);
        assert_juint(rep, "max", 3);
        assert_jdouble(rep, "mean", r.replicas_mean);
        assert_juint(o, "scale_events", 4);
        assert_jdouble(o, "queue_len_mean", r.queue_len_mean);
        assert_jdouble(o, "arrival_rate_per_s", r.arrival_rate_per_s);
        assert_jdouble(o, "utilization", r.utilization);
        assert_juint(o, "sim_events", 123456);
        assert_jdouble(o, "sim_time_s", r.sim_time_s);
        assert_jdouble(o, "wall_s", r.wall_s);
        assert_jdouble(o, "events_per_s", r.events_per_s);
        notes = jget(o, "notes");
        ck_assert(json_object_is_type(notes, json_type_array));
        ck_assert_int_eq((int)json_object_array_length(notes), 2);
        for (int i = 0; i < 2; i++)
            ck_assert_str_eq(
                json_object_get_string(json_object_array_get_idx(notes, i)),
                r.notes[i]);
        json_object_put(o);
        free(s);
    }
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_rpt_summary_json_null_for_nan)
{
    struct cl_results r;
    char *s;

    fill_results(&r);
    r.scenario_name[0] = '\0';
    free(r.scenario_name);
    r.scenario_name = NULL;
    memset(&r.queue_ms, 0, sizeof(r.queue_ms));
    r.queue_ms.mean = r.queue_ms.ci95 = r.queue_ms.p50 = NAN;
    r.queue_ms.p90 = r.queue_ms.p99 = r.queue_ms.max = NAN;
    r.utilization = INFINITY;
    s = rpt_summary_json(&r, 0);
    ck_assert_ptr_nonnull(strstr(s, "\"scenario\":null"));
    ck_assert_ptr_nonnull(strstr(s, "\"slo_attainment\":null"));
    ck_assert_ptr_nonnull(strstr(s, "\"utilization\":null"));
    ck_assert_ptr_nonnull(strstr(s, "\"ci95\":null"));
    ck_assert_ptr_nonnull(
        strstr(s, "\"queue_ms\":{\"mean\":null,\"ci95\":null,\"p50\":null,"
                  "\"p90\":null,\"p99\":null,\"max\":null,\"n\":0}"));
    ck_assert_ptr_null(strstr(s, "nan"));
    ck_assert_ptr_null(strstr(s, "NaN"));
    ck_assert_ptr_null(strstr(s, "inf"));
    free(s);
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_rpt_summary_json_deterministic)
{
    struct cl_results a, b;
    char *sa, *sb, *pa, *pb;

    fill_results(&a);
    fill_results(&b);
    sa = rpt_summary_json(&a, 0);
    sb = rpt_summary_json(&b, 0);
    pa = rpt_summary_json(&a, 1);
    pb = rpt_summary_json(&b, 1);
    ck_assert_str_eq(sa, sb);
    ck_assert_str_eq(pa, pb);
    /* The shortest exact form: 0.3, not 0.29999999999999999, and 2/3 with the
     * 16 digits it needs. */
    ck_assert_ptr_nonnull(strstr(sa, "\"queue_len_mean\":0.3,"));
    ck_assert_ptr_nonnull(strstr(sa, "\"mean\":0.6666666666666666}"));
    ck_assert_ptr_nonnull(strstr(sa, "\"cost_usd\":4.8,"));
    ck_assert_ptr_null(strchr(sa, '\n'));
    ck_assert_ptr_nonnull(strchr(pa, '\n'));
    free(sa);
    free(sb);
    free(pa);
    free(pb);
    cl_results_fini(&a);
    cl_results_fini(&b);
}
END_TEST

static char *print_to_string(const struct cl_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(fp);
    rpt_summary_print(fp, r);
    ck_assert_int_eq(fclose(fp), 0);
    return buf;
}

START_TEST(test_rpt_summary_print_key_lines)
{
    struct cl_results r;
    char *s;

    fill_results(&r);
    s = print_to_string(&r);
    ck_assert_ptr_nonnull(strstr(s, "scenario seed-dsec, seed 42\n"));
    ck_assert_ptr_nonnull(strstr(s,
                                 "requests        1000 arrived, 990 completed, "
                                 "3 dropped\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "latency        mean \xc2\xb1 ci95            p50        p90 "
                  "       p99        max        n\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "  TTFT       120.75 \xc2\xb1 1.20         120.25     240.50 "
                  "    360.75     481.00      990\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "  TPOT        22.62 \xc2\xb1 n/a           22.12      44.25 "
                  "     66.38      88.50      990\n"));
    ck_assert_ptr_nonnull(strstr(s, "  E2E "));
    ck_assert_ptr_nonnull(strstr(s, "  queue "));
    ck_assert_ptr_nonnull(
        strstr(s, "throughput      694.44 tokens/s, 2.75 requests/s\n"));
    ck_assert_ptr_nonnull(strstr(s, "replicas        min 1, mean 0.67, max "
                                    "3; 4 scale events, 8 GPUs each\n"));
    ck_assert_ptr_nonnull(strstr(s, "GPU-hours       1.60\n"));
    ck_assert_ptr_nonnull(strstr(s, "cost            $4.80\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "scaling         policy target-latency; 5 cold starts, 1 "
                  "failures, 7 requests retried, recovery 180.5 s\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "  pool test      8.75 GPU-hours, $46.46 at $5.31/GPU-h, "
                  "borrowed\n"));
    ck_assert_ptr_nonnull(strstr(s, "SLO attainment  n/a (no SLO set)\n"));
    ck_assert_ptr_nonnull(strstr(s, "simulated time  360.00 s, "
                                    "123456 events\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "wall time       0.25 s, 493824 events/s\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "note: elastic scaling not simulated yet\n"
                  "note: rdma_interface mlx5_0 ignored by the simulator\n"));
    free(s);

    r.slo_attainment = 0.995;
    s = print_to_string(&r);
    ck_assert_ptr_nonnull(strstr(s, "SLO attainment  99.50%\n"));
    free(s);
    cl_results_fini(&r);
}
END_TEST

/* The stage table is printed for 2 or more stages, not for one; the ITL
 * row only when there are token gaps. */
START_TEST(test_rpt_summary_print_stages)
{
    struct cl_results r;
    struct cl_stage_row *st;
    char *s;

    fill_results(&r);
    r.itl_ms.n = 0;
    st = xcalloc(2, sizeof(*st));
    st[0] = (struct cl_stage_row){.stage = 0,
                                  .requests = 10,
                                  .completed = 9,
                                  .timeouts = 1,
                                  .span_start_ns = 0,
                                  .span_end_ns = 30000000000,
                                  .output_tokens_per_s = 123.0,
                                  .ttft_p50_ms = 100.0,
                                  .ttft_p99_ms = 250.5,
                                  .tpot_mean_ms = 20.25,
                                  .itl_p99_ms = 45.5,
                                  .e2e_p99_ms = 3000.0};
    st[1] = (struct cl_stage_row){.stage = 1,
                                  .requests = 2,
                                  .dropped = 2,
                                  .span_start_ns = 31000000000,
                                  .span_end_ns = 31500000000,
                                  .output_tokens_per_s = NAN,
                                  .ttft_p50_ms = NAN,
                                  .ttft_p99_ms = NAN,
                                  .tpot_mean_ms = NAN,
                                  .itl_p99_ms = NAN,
                                  .e2e_p99_ms = NAN};
    cl_rfield_set_array(CL_RESULTS_FIELD(stages), &r, st, 1);
    s = print_to_string(&r);
    ck_assert_ptr_null(strstr(s, "stage "));
    ck_assert_ptr_null(strstr(s, "  ITL "));
    free(s);
    r.nstages = 2;
    r.itl_ms.n = 5;
    s = print_to_string(&r);
    ck_assert_ptr_nonnull(strstr(s, "  ITL "));
    ck_assert_ptr_nonnull(strstr(
        s, "\nstage  requests     done   t/o  drop    span s out tok/s "
           "TTFT p50 TTFT p99     TPOT  ITL p99  E2E p99\n"
           "  0          10        9     1     0      30.0     123.0    "
           "100.0    250.5    20.25    45.50   3000.0\n"
           "  1           2        0     0     2       0.5       n/a      "
           "n/a      n/a      n/a      n/a      n/a\n"));
    free(s);
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_cl_results_note_capped)
{
    struct cl_results r;

    memset(&r, 0, sizeof(r));
    for (int i = 0; i < 1000; i++)
        cl_results_note(&r, "again");
    ck_assert_int_eq(r.nnotes, 65);
    ck_assert_str_eq(r.notes[63], "again");
    ck_assert_str_eq(r.notes[64], "further notes dropped");
    cl_results_fini(&r);
    ck_assert_int_eq(r.nnotes, 0);
    ck_assert_ptr_null(r.notes);
    cl_results_fini(NULL);
}
END_TEST

/* The columns of table after run_id, joined by ", ". */
static char *raw_columns(sqlite3 *sql, const char *table)
{
    sqlite3_stmt *st = NULL;
    char *q = xasprintf("PRAGMA table_info(%s)", table), *s = xstrdup("");

    ck_assert_int_eq(sqlite3_prepare_v2(sql, q, -1, &st, NULL), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        char *t;
        if (strcmp(name, "run_id") == 0)
            continue;
        t = xasprintf("%s%s%s", s, *s ? ", " : "", name);
        free(s);
        s = t;
    }
    sqlite3_finalize(st);
    free(q);
    return s;
}

/* The tables of the results' arrays have the columns of their lists, in
 * order: reports/schema.sql and results-fields.h agree. */
START_TEST(test_rpt_db_open_tables_match_lists)
{
    static const char *const arrays[] = {"series", "pools", "replica_series",
                                         "stages", "requests"};
    struct rpt_db *db = rpt_db_open(db_path, &diag);
    sqlite3 *sql;

    ck_assert_ptr_nonnull(db);
    rpt_db_close(db);
    sql = raw_open();
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const struct cl_relem *e = cl_rfield_elem(f);
        int listed = 0, ncols;
        char *want, *got;

        for (size_t a = 0; a < sizeof(arrays) / sizeof(arrays[0]); a++)
            listed |= strcmp(f->name, arrays[a]) == 0;
        if (!listed)
            continue;
        want = cl_rfield_columns(e->fields, e->nfields, &ncols);
        got = raw_columns(sql, f->db);
        ck_assert_str_eq(got, want);
        free(want);
        free(got);
    }
    sqlite3_close(sql);
}
END_TEST

/* The stages and requests arrays are written one row each, the outcome
 * as its text and a NAN first token as NULL. */
START_TEST(test_rpt_db_write_run_stages_and_requests)
{
    struct cl_results r;
    struct rpt_db *db;
    sqlite3 *sql;
    char *q;

    rfix_fill(&r);
    r.requests[1].first_token_s = NAN;
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_write_run(db, &run_info, &r, NULL, &diag), 0);
    rpt_db_close(db);
    sql = raw_open();
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM stages"), RFIX_NSTAGES);
    ck_assert_int_eq(raw_int(sql, "SELECT count(*) FROM requests"),
                     RFIX_NREQUESTS);
    q = xasprintf("SELECT count(*) FROM stages WHERE stage = %d AND "
                  "requests = %llu AND e2e_p99_ms IS %s",
                  r.stages[1].stage, (unsigned long long)r.stages[1].requests,
                  isnan(r.stages[1].e2e_p99_ms) ? "NULL" : "NOT NULL");
    ck_assert_int_eq(raw_int(sql, q), 1);
    free(q);
    q = xasprintf("SELECT count(*) FROM requests WHERE id = %llu AND "
                  "first_token_s IS NULL AND outcome = '%s'",
                  (unsigned long long)r.requests[1].id, r.requests[1].outcome);
    ck_assert_int_eq(raw_int(sql, q), 1);
    free(q);
    sqlite3_close(sql);
    cl_results_fini(&r);
}
END_TEST

/* The summary rows come in the list's order, but for the rows
 * CL_RESULTS_DB_MOVED places elsewhere (kept byte-identical). */
START_TEST(test_rpt_db_write_run_summary_row_order)
{
    struct cl_results r;
    struct rpt_db *db;
    sqlite3 *sql;
    sqlite3_stmt *st = NULL;
    char prev[96] = "", first[96] = "";
    int nrows = 0, moved = 0;

    rfix_fill(&r);
    db = rpt_db_open(db_path, &diag);
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_write_run(db, &run_info, &r, NULL, &diag), 0);
    rpt_db_close(db);
    sql = raw_open();
    ck_assert_int_eq(sqlite3_prepare_v2(sql,
                                        "SELECT metric FROM summary "
                                        "ORDER BY rowid",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *m = (const char *)sqlite3_column_text(st, 0);
        if (nrows++ == 0)
            snprintf(first, sizeof(first), "%s", m);
        if (strcmp(m, "sim_time_s") == 0) {
            ck_assert_str_eq(prev, "requests_per_s");
            moved++;
        }
        if (strcmp(m, "kv.swap_bytes") == 0) {
            ck_assert_str_eq(prev, "kv.swap_fallbacks");
            moved++;
        }
        snprintf(prev, sizeof(prev), "%s", m);
    }
    sqlite3_finalize(st);
    sqlite3_close(sql);
    ck_assert_str_eq(first, "ttft_ms.mean");
    ck_assert_str_eq(prev, "events_per_s");
    ck_assert_int_eq(moved, 2);
    ck_assert_int_eq(nrows, rfix_nmetrics(&r));
    cl_results_fini(&r);
}
END_TEST

static void assert_jrecord(struct json_object *o,
                           const struct cl_rfield *fields, int n,
                           const void *rec, const struct cl_results *r);

/* Asserts that j is the JSON value of field f of rec, a part of r. */
static void assert_jvalue(struct json_object *j, const struct cl_rfield *f,
                          const void *rec, const struct cl_results *r)
{
    const void *p = cl_rfield_cptr(rec, f);
    const struct cl_relem *e = cl_rfield_elem(f);

    switch (f->type) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        ck_assert_msg(json_object_is_type(j, json_type_int), "%s", f->name);
        ck_assert_uint_eq(json_object_get_uint64(j), *(const uint64_t *)p);
        break;
    case CL_RT_I64:
        ck_assert_int_eq(json_object_get_int64(j), *(const int64_t *)p);
        break;
    case CL_RT_INT:
        ck_assert_int_eq(json_object_get_int64(j), *(const int *)p);
        break;
    case CL_RT_BOOL:
        ck_assert(json_object_is_type(j, json_type_boolean));
        ck_assert_int_eq(json_object_get_boolean(j), *(const int *)p);
        break;
    case CL_RT_F64:
    case CL_RT_NS: {
        double v = cl_rfield_get(f, rec, 0);
        if (isnan(v))
            ck_assert_msg(j == NULL, "%s: expected null", f->name);
        else
            ck_assert_msg(json_object_get_double(j) == v, "%s: %.17g != %.17g",
                          f->name, json_object_get_double(j), v);
        break;
    }
    case CL_RT_STR:
        ck_assert_str_eq(json_object_get_string(j), *(char *const *)p);
        break;
    case CL_RT_POOL:
        ck_assert_str_eq(json_object_get_string(j),
                         r->pools[*(const int *)p].name);
        break;
    case CL_RT_RSTATE:
        ck_assert_str_eq(json_object_get_string(j),
                         cl_replica_state_name(*(const int *)p));
        break;
    case CL_RT_LATENCY:
        assert_jrecord(j, cl_latency_fields, CL_LATENCY_NFIELDS, p, r);
        break;
    case CL_RT_STATES:
        ck_assert_int_eq(json_object_object_length(j), CL_GS_COUNT);
        for (int st = 0; st < CL_GS_COUNT; st++)
            assert_jdouble(j, cl_gpu_state_name(st), ((const double *)p)[st]);
        break;
    default: {
        const char *a = cl_rfield_array(f, r);
        size_t n = cl_rfield_count(f, r);
        ck_assert(json_object_is_type(j, json_type_array));
        ck_assert_uint_eq(json_object_array_length(j), n);
        for (size_t k = 0; k < n; k++) {
            struct json_object *x = json_object_array_get_idx(j, k);
            if (f->type == CL_RT_NOTES)
                ck_assert_str_eq(json_object_get_string(x),
                                 ((char *const *)(const void *)a)[k]);
            else
                assert_jrecord(x, e->fields, e->nfields, a + k * e->size, r);
        }
    }
    }
}

/* Asserts that o has exactly the JSON members of the fields of rec. */
static void assert_jrecord(struct json_object *o,
                           const struct cl_rfield *fields, int n,
                           const void *rec, const struct cl_results *r)
{
    int njson = 0;

    for (int i = 0; i < n; i++) {
        if (fields[i].json == NULL)
            continue;
        njson++;
        assert_jvalue(jget(o, fields[i].json), &fields[i], rec, r);
    }
    ck_assert_int_eq(json_object_object_length(o), njson);
}

/* Every field with a JSON member is in the object, with its value, in
 * the list's order, and nothing else is. */
START_TEST(test_rpt_summary_json_every_field)
{
    struct cl_results r;
    struct json_object *o;
    char want[CL_RESULTS_NFIELDS][64];
    int nwant = 0, k = 0;
    char *s;

    rfix_fill(&r);
    s = rpt_summary_json_replicas(&r, 0);
    o = json_tokener_parse(s);
    ck_assert_ptr_nonnull(o);
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const char *dot = f->json ? strchr(f->json, '.') : NULL;
        char top[64];

        if (f->json == NULL)
            continue;
        snprintf(top, sizeof(top), "%.*s",
                 dot ? (int)(dot - f->json) : (int)strlen(f->json), f->json);
        if (dot == NULL)
            assert_jvalue(jget(o, f->json), f, &r, &r);
        else
            assert_jvalue(jget(jget(o, top), dot + 1), f, &r, &r);
        /* A group is one member, where its first field is listed. */
        if (nwant == 0 || strcmp(want[nwant - 1], top) != 0)
            snprintf(want[nwant++], sizeof(want[0]), "%s", top);
    }
    ck_assert_int_eq(json_object_object_length(o), nwant);
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        ck_assert_str_eq(key, want[k++]);
    }
    json_object_put(o);
    free(s);
    cl_results_fini(&r);
}
END_TEST

/* Whether name occurs in text as a whole name: not inside a longer
 * identifier or dotted path. */
static int names(const char *text, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        int before = p > text && (p[-1] == '_' || p[-1] == '.' ||
                                  (p[-1] >= 'a' && p[-1] <= 'z'));
        int after = p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') ||
                    (p[n] == '.' && p[n + 1] >= 'a' && p[n + 1] <= 'z');
        if (!before && !after)
            return 1;
    }
    return 0;
}

static void assert_named(const char *doc, const char *name)
{
    ck_assert_msg(names(doc, name), "docs/results.md does not name %s", name);
}

/* Asserts that docs/results.md names the JSON members of fields and their
 * summary metrics and tables (top: the run's list) or table columns. */
static void assert_documented(const char *doc, const struct cl_rfield *fields,
                              int n, int top)
{
    for (int i = 0; i < n; i++) {
        const struct cl_rfield *f = &fields[i];
        const char *member = f->json ? strrchr(f->json, '.') : NULL;

        if (f->json != NULL)
            assert_named(doc, member ? member + 1 : f->json);
        if (f->db == NULL)
            continue;
        if (top && (f->type == CL_RT_LATENCY || f->type == CL_RT_STATES)) {
            /* Documented as `ttft_ms.{mean,ci95,...}`. */
            char *group = xasprintf("`%s.{", f->db);
            ck_assert_msg(strstr(doc, group) != NULL,
                          "docs/results.md does not name %s", group);
            free(group);
        } else if (top || f->type != CL_RT_STATES) {
            assert_named(doc, f->db);
        } else {
            for (int st = 0; st < CL_GS_COUNT; st++) {
                char *col = xasprintf("%s_%s", f->db, cl_gpu_state_name(st));
                assert_named(doc, col);
                free(col);
            }
        }
    }
}

/* docs/results.md names every summary metric, table column and JSON
 * member the lists give, so that a field added to a list is documented
 * before the tests pass. */
START_TEST(test_rpt_db_docs_name_every_field)
{
    const char *top = getenv("top_srcdir");
    char *path = xasprintf("%s/docs/results.md", top ? top : ".");
    FILE *fp = fopen(path, "r");
    char *doc = NULL;
    size_t len = 0;

    ck_assert_msg(fp != NULL, "cannot read %s", path);
    ck_assert_int_eq(getdelim(&doc, &len, '\0', fp) > 0, 1);
    fclose(fp);
    assert_documented(doc, cl_results_fields, CL_RESULTS_NFIELDS, 1);
    assert_documented(doc, cl_latency_fields, CL_LATENCY_NFIELDS, 0);
    assert_documented(doc, cl_series_fields, CL_SERIES_NFIELDS, 0);
    assert_documented(doc, cl_replica_fields, CL_REPLICA_NFIELDS, 0);
    assert_documented(doc, cl_class_fields, CL_CLASS_NFIELDS, 0);
    assert_documented(doc, cl_pool_fields, CL_POOL_NFIELDS, 0);
    assert_documented(doc, cl_stage_fields, CL_STAGE_NFIELDS, 0);
    assert_documented(doc, cl_request_fields, CL_REQUEST_NFIELDS, 0);
    free(doc);
    free(path);
}
END_TEST

static Suite *rpt_db_suite(void)
{
    Suite *s = suite_create("rpt_db");
    TCase *tc;

    tc = tcase_create("rpt_db_open");
    tcase_add_checked_fixture(tc, db_setup, db_teardown);
    tcase_add_test(tc, test_rpt_db_open_creates_schema);
    tcase_add_test(tc, test_rpt_db_open_embedded_schema_matches_file);
    tcase_add_test(tc, test_rpt_db_open_missing_dir);
    tcase_add_test(tc, test_rpt_db_open_newer_version);
    tcase_add_test(tc, test_rpt_db_open_older_version);
    tcase_add_test(tc, test_rpt_db_open_foreign_database);
    tcase_add_test(tc, test_rpt_db_open_not_sqlite);
    tcase_add_test(tc, test_rpt_db_open_tables_match_lists);
    tcase_add_test(tc, test_rpt_db_docs_name_every_field);
    suite_add_tcase(s, tc);

    tc = tcase_create("rpt_db_write_run");
    tcase_add_checked_fixture(tc, db_setup, db_teardown);
    tcase_add_test(tc, test_rpt_db_write_run_roundtrip);
    tcase_add_test(tc, test_rpt_db_write_run_two_runs);
    tcase_add_test(tc, test_rpt_db_write_run_failure_rolls_back);
    tcase_add_test(tc, test_rpt_db_write_run_no_started_at);
    tcase_add_test(tc, test_rpt_db_write_run_summary_row_order);
    tcase_add_test(tc, test_rpt_db_write_run_stages_and_requests);
    suite_add_tcase(s, tc);

    tc = tcase_create("rpt_summary_json");
    tcase_add_test(tc, test_rpt_summary_json_members);
    tcase_add_test(tc, test_rpt_summary_json_null_for_nan);
    tcase_add_test(tc, test_rpt_summary_json_deterministic);
    tcase_add_test(tc, test_rpt_summary_json_every_field);
    suite_add_tcase(s, tc);

    tc = tcase_create("rpt_summary_print");
    tcase_add_test(tc, test_rpt_summary_print_key_lines);
    tcase_add_test(tc, test_rpt_summary_print_stages);
    suite_add_tcase(s, tc);

    tc = tcase_create("cl_results_note");
    tcase_add_test(tc, test_cl_results_note_capped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rpt_db_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
