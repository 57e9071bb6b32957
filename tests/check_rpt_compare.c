/* Check suite rpt_compare: the statistics of "dsec compare" on hand-made
 * per-replication numbers (t quantile for n = 5 worked by hand:
 * t_{0.975,4} = 2.776445), the table, the JSON and the comparison rows in
 * the results database, read back with plain sqlite3 queries. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/compare.h"
#include "reports/db.h"
#include "base/errors.h"

#define T_0975_4 2.776445

static char db_path[4096];

/* Two policies, five replications: policy 1 = policy 0 + a small noisy
 * shift on every metric (paired differences {1, 1.5, 0.5, 1, 1}). */
static struct rpt_cmp *make_cmp(void)
{
    static const double base[5] = {10, 12, 11, 13, 14};
    static const double shift[5] = {1, 1.5, 0.5, 1, 1};
    struct cl_policy_param pp = {(char *)"replicas", (char *)"4", {0, 0}};
    struct rpt_cmp *c = rpt_cmp_new("two", 7, 5);

    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(
        rpt_cmp_add_policy(c, "static:replicas=4", "static", &pp, 1), 0);
    ck_assert_int_eq(
        rpt_cmp_add_policy(c, "target-latency", "target-latency", NULL, 0), 1);
    for (int m = 0; m < RPT_CMP_NMETRICS; m++)
        for (int r = 0; r < 5; r++) {
            rpt_cmp_set(c, 0, r, m, base[r]);
            rpt_cmp_set(c, 1, r, m, base[r] + shift[r]);
        }
    return c;
}

START_TEST(test_rpt_cmp_mean_ci_n5)
{
    const double x[5] = {1, 2, 3, 4, 5};
    struct rpt_cmp_stat s = rpt_cmp_mean_ci(x, 5);

    /* s = sqrt(2.5); ci = t s / sqrt(5). */
    ck_assert_double_eq_tol(s.mean, 3.0, 1e-12);
    ck_assert_double_eq_tol(s.ci95, T_0975_4 * sqrt(2.5) / sqrt(5.0), 1e-5);
    ck_assert_double_eq_tol(s.ci95, 1.963243, 1e-5);
}
END_TEST

START_TEST(test_rpt_cmp_mean_ci_n1_is_nan)
{
    const double x[1] = {42};
    struct rpt_cmp_stat s = rpt_cmp_mean_ci(x, 1);

    ck_assert_double_eq(s.mean, 42);
    ck_assert(isnan(s.ci95));
    s = rpt_cmp_mean_ci(x, 0);
    ck_assert(isnan(s.mean) && isnan(s.ci95));
}
END_TEST

START_TEST(test_rpt_cmp_mean_ci_nan_value)
{
    const double x[3] = {1, NAN, 3};
    struct rpt_cmp_stat s = rpt_cmp_mean_ci(x, 3);

    ck_assert(isnan(s.mean) && isnan(s.ci95));
}
END_TEST

START_TEST(test_rpt_cmp_mean_ci_constant_zero_width)
{
    const double x[4] = {2.5, 2.5, 2.5, 2.5};
    struct rpt_cmp_stat s = rpt_cmp_mean_ci(x, 4);

    ck_assert_double_eq(s.mean, 2.5);
    ck_assert_double_eq(s.ci95, 0);
}
END_TEST

START_TEST(test_rpt_cmp_paired_n5)
{
    const double base[5] = {10, 12, 11, 13, 14};
    const double x[5] = {11, 13.5, 11.5, 14, 15};
    struct rpt_cmp_stat d = rpt_cmp_paired(x, base, 5);
    struct rpt_cmp_stat u = rpt_cmp_mean_ci(x, 5);

    /* Differences {1, 1.5, 0.5, 1, 1}: mean 1, s^2 = 0.5 / 4. */
    ck_assert_double_eq_tol(d.mean, 1.0, 1e-12);
    ck_assert_double_eq_tol(d.ci95, T_0975_4 * sqrt(0.125) / sqrt(5.0), 1e-5);
    ck_assert_double_eq_tol(d.ci95, 0.438997, 1e-5);
    /* The shared noise cancels: far narrower than either mean's interval. */
    ck_assert(d.ci95 < u.ci95 / 3);
}
END_TEST

START_TEST(test_rpt_cmp_significant_marker)
{
    struct rpt_cmp_stat yes = {1.0, 0.439}, no = {0.1, 1.9};
    struct rpt_cmp_stat neg = {-2.0, 1.0}, nan_ci = {1.0, NAN};
    struct rpt_cmp_stat exact = {0.0, 0.0}, fixed = {3.0, 0.0};

    ck_assert(rpt_cmp_significant(yes));
    ck_assert(!rpt_cmp_significant(no));
    ck_assert(rpt_cmp_significant(neg));
    ck_assert(!rpt_cmp_significant(nan_ci));
    ck_assert(!rpt_cmp_significant(exact));
    ck_assert(rpt_cmp_significant(fixed));
}
END_TEST

START_TEST(test_rpt_cmp_diff_against_first)
{
    struct rpt_cmp *c = make_cmp();
    struct rpt_cmp_stat d = rpt_cmp_diff(c, 1, RPT_CMP_COST);
    struct rpt_cmp_stat self = rpt_cmp_diff(c, 0, RPT_CMP_COST);
    struct rpt_cmp_stat s = rpt_cmp_summary(c, 0, RPT_CMP_COST);

    ck_assert_double_eq_tol(d.mean, 1.0, 1e-12);
    ck_assert_double_eq_tol(d.ci95, 0.438997, 1e-5);
    ck_assert_double_eq(self.mean, 0);
    ck_assert_double_eq(self.ci95, 0);
    ck_assert_double_eq_tol(s.mean, 12.0, 1e-12);
    ck_assert_double_eq_tol(s.ci95, T_0975_4 * sqrt(2.5) / sqrt(5.0), 1e-5);
    s = rpt_cmp_summary(c, 2, RPT_CMP_COST); /* no such policy */
    ck_assert(isnan(s.mean) && isnan(s.ci95));
    rpt_cmp_free(c);
}
END_TEST

START_TEST(test_rpt_cmp_record_units)
{
    struct rpt_cmp *c = rpt_cmp_new("one", 1, 1);
    struct cl_results r;

    memset(&r, 0, sizeof(r));
    r.slo_attainment = 0.975;
    r.ttft_ms.p99 = 120;
    r.tpot_ms.p99 = 30;
    r.gpu_hours = 2;
    r.cost_usd = 12.5;
    r.scale_events = 3;
    r.cold_starts = 4;
    rpt_cmp_add_policy(c, "hpa", "hpa", NULL, 0);
    rpt_cmp_record(c, 0, 0, &r);
    ck_assert_double_eq(rpt_cmp_get(c, 0, 0, RPT_CMP_SLO_ATTAINMENT), 97.5);
    ck_assert_double_eq(rpt_cmp_get(c, 0, 0, RPT_CMP_TTFT_P99), 120);
    ck_assert_double_eq(rpt_cmp_get(c, 0, 0, RPT_CMP_COLD_STARTS), 4);
    ck_assert(isnan(rpt_cmp_summary(c, 0, RPT_CMP_COST).ci95));
    rpt_cmp_free(c);
    ck_assert_ptr_null(rpt_cmp_new("x", 1, 0));
    ck_assert_ptr_null(rpt_cmp_new("x", 1, RPT_CMP_MAX_REPLICATIONS + 1));
}
END_TEST

START_TEST(test_rpt_cmp_print_table)
{
    struct rpt_cmp *c = make_cmp();
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    rpt_cmp_print(fp, c);
    fclose(fp);
    ck_assert_ptr_nonnull(
        strstr(buf, "scenario two, 5 replications, seeds 7..11"));
    ck_assert_ptr_nonnull(strstr(buf, "cost (USD)            "
                                      "static:replicas=4         12.00 "
                                      "\xc2\xb1 1.96\n"));
    ck_assert_ptr_nonnull(strstr(buf, "paired differences, policy minus "
                                      "static:replicas=4"));
    ck_assert_ptr_nonnull(strstr(buf, "cost (USD)            "
                                      "target-latency            +1.00 "
                                      "\xc2\xb1 0.44       *\n"));
    for (char *p = buf; (p = strstr(p, " \n")) != NULL;)
        ck_abort_msg("trailing blank at offset %td", p - buf);
    free(buf);
    rpt_cmp_free(c);
}
END_TEST

START_TEST(test_rpt_cmp_json_members)
{
    struct rpt_cmp *c = make_cmp();
    char *s = rpt_cmp_json(c, 1);
    struct json_object *o = json_tokener_parse(s), *pols, *p, *m, *v;

    ck_assert_ptr_nonnull(o);
    ck_assert(json_object_object_get_ex(o, "scenario", &v));
    ck_assert_str_eq(json_object_get_string(v), "two");
    ck_assert(json_object_object_get_ex(o, "replications", &v));
    ck_assert_int_eq(json_object_get_int(v), 5);
    ck_assert(json_object_object_get_ex(o, "seed", &v));
    ck_assert_int_eq(json_object_get_int(v), 7);
    ck_assert(json_object_object_get_ex(o, "policies", &pols));
    ck_assert_int_eq((int)json_object_array_length(pols), 2);

    p = json_object_array_get_idx(pols, 0);
    ck_assert(json_object_object_get_ex(p, "name", &v));
    ck_assert_str_eq(json_object_get_string(v), "static");
    ck_assert(json_object_object_get_ex(p, "params", &v));
    ck_assert(json_object_object_get_ex(v, "replicas", &v));
    ck_assert_str_eq(json_object_get_string(v), "4");
    ck_assert(json_object_object_get_ex(p, "diff_vs_first", &v));
    ck_assert_ptr_null(v);
    ck_assert(json_object_object_get_ex(p, "metrics", &m));
    for (int i = 0; i < RPT_CMP_NMETRICS; i++) {
        ck_assert(json_object_object_get_ex(m, rpt_cmp_metric_name(i), &v));
        ck_assert(json_object_object_get_ex(v, "mean", NULL));
        ck_assert(json_object_object_get_ex(v, "ci95", NULL));
    }
    ck_assert(json_object_object_get_ex(m, "cost_usd", &v));
    ck_assert(json_object_object_get_ex(v, "mean", &v));
    ck_assert_double_eq(json_object_get_double(v), 12);

    p = json_object_array_get_idx(pols, 1);
    ck_assert(json_object_object_get_ex(p, "diff_vs_first", &m));
    ck_assert(json_object_object_get_ex(m, "gpu_hours", &v));
    ck_assert(json_object_object_get_ex(v, "significant", &v));
    ck_assert(json_object_get_boolean(v));
    json_object_put(o);
    free(s);
    rpt_cmp_free(c);
}
END_TEST

START_TEST(test_rpt_cmp_json_nan_is_null)
{
    struct rpt_cmp *c = rpt_cmp_new(NULL, 1, 1);
    char *s;

    rpt_cmp_add_policy(c, "hpa", "hpa", NULL, 0);
    rpt_cmp_set(c, 0, 0, RPT_CMP_COST, 3.25);
    s = rpt_cmp_json(c, 0);
    ck_assert_ptr_nonnull(strstr(s, "\"scenario\":null"));
    ck_assert_ptr_nonnull(strstr(s, "\"cost_usd\":{\"mean\":3.25,\"ci95\":null,"
                                    "\"values\":[3.25]}"));
    ck_assert_ptr_nonnull(
        strstr(s, "\"slo_attainment\":{\"mean\":null,\"ci95\":null,"
                  "\"values\":[null]}"));
    free(s);
    rpt_cmp_free(c);
}
END_TEST

START_TEST(test_rpt_cmp_json_deterministic)
{
    struct rpt_cmp *a = make_cmp(), *b = make_cmp();
    char *sa = rpt_cmp_json(a, 1), *sb = rpt_cmp_json(b, 1);

    ck_assert_str_eq(sa, sb);
    /* 0.1 + 0.2 keeps its shortest exact form, not a %.6g rounding. */
    rpt_cmp_set(a, 0, 0, RPT_CMP_COST, 0.1 + 0.2);
    free(sa);
    sa = rpt_cmp_json(a, 0);
    ck_assert_ptr_nonnull(strstr(sa, "[0.30000000000000004,12,11,13,14]"));
    free(sa);
    free(sb);
    rpt_cmp_free(a);
    rpt_cmp_free(b);
}
END_TEST

static void db_setup(void)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    snprintf(db_path, sizeof(db_path), "%s/check_rpt_compare.XXXXXX", dir);
    fd = mkstemp(db_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void db_teardown(void)
{
    char side[4200];

    unlink(db_path);
    snprintf(side, sizeof(side), "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", db_path);
    unlink(side);
}

static long long query_int(const char *q)
{
    sqlite3 *sql;
    sqlite3_stmt *st;
    long long v = -1;

    ck_assert_int_eq(sqlite3_open(db_path, &sql), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(sql, q, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(sql);
    return v;
}

/* Writes the 2 x 5 runs of make_cmp() as minimal runs; ids in ids[10]. */
static void write_runs(int64_t *ids)
{
    struct sim_diag d;
    struct rpt_db *db;
    struct cl_results r;
    struct rpt_run_info info = {.started_at = "2025-01-31T12:00:00Z"};

    sim_diag_init(&d);
    db = rpt_db_open(db_path, &d);
    ck_assert_ptr_nonnull(db);
    memset(&r, 0, sizeof(r));
    for (int i = 0; i < 10; i++) {
        r.policy = i < 5 ? (char *)"static" : (char *)"target-latency";
        info.seed = 7 + (uint64_t)(i % 5);
        ck_assert_int_eq(rpt_db_write_run(db, &info, &r, &ids[i], &d), 0);
    }
    rpt_db_close(db);
    sim_diag_fini(&d);
}

START_TEST(test_rpt_cmp_db_write_links_runs)
{
    struct rpt_cmp *c = make_cmp();
    struct sim_diag d;
    int64_t ids[10], id = 0;

    write_runs(ids);
    sim_diag_init(&d);
    ck_assert_int_eq(
        rpt_cmp_db_write(db_path, c, "2025-01-31T12:00:00Z", ids, &id, &d), 0);
    ck_assert_int_eq(id, 1);
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparisons"), 1);
    ck_assert_int_eq(query_int("SELECT replications FROM comparisons"), 5);
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparisons WHERE "
                               "policies = '[\"static:replicas=4\","
                               "\"target-latency\"]'"),
                     1);
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparison_runs JOIN "
                               "runs ON runs.id = run_id WHERE "
                               "comparison_id = 1"),
                     10);
    /* Replication r of each policy is the run with seed 7 + r. */
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparison_runs JOIN "
                               "runs ON runs.id = run_id WHERE "
                               "runs.seed = 7 + replication"),
                     10);
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparison_runs WHERE "
                               "policy = 'target-latency'"),
                     5);
    sim_diag_fini(&d);
    rpt_cmp_free(c);
}
END_TEST

START_TEST(test_rpt_cmp_db_write_missing_run_rolls_back)
{
    struct rpt_cmp *c = make_cmp();
    struct sim_diag d;
    int64_t ids[10], id = 99;
    char *msg;

    write_runs(ids);
    ids[9] = 1000; /* no such run: the foreign key refuses the link */
    sim_diag_init(&d);
    ck_assert_int_eq(
        rpt_cmp_db_write(db_path, c, "2025-01-31T12:00:00Z", ids, &id, &d),
        SIM_EDB);
    ck_assert_int_eq(id, 99);
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    msg = sim_diag_format(&d, 0);
    ck_assert_ptr_nonnull(strstr(msg, ": error: cannot write comparison: "));
    free(msg);
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparisons"), 0);
    ck_assert_int_eq(query_int("SELECT count(*) FROM comparison_runs"), 0);
    sim_diag_fini(&d);
    rpt_cmp_free(c);
}
END_TEST

static Suite *rpt_compare_suite(void)
{
    Suite *s = suite_create("rpt_compare");
    TCase *tc;

    tc = tcase_create("rpt_cmp_stats");
    tcase_add_test(tc, test_rpt_cmp_mean_ci_n5);
    tcase_add_test(tc, test_rpt_cmp_mean_ci_n1_is_nan);
    tcase_add_test(tc, test_rpt_cmp_mean_ci_nan_value);
    tcase_add_test(tc, test_rpt_cmp_mean_ci_constant_zero_width);
    tcase_add_test(tc, test_rpt_cmp_paired_n5);
    tcase_add_test(tc, test_rpt_cmp_significant_marker);
    tcase_add_test(tc, test_rpt_cmp_diff_against_first);
    tcase_add_test(tc, test_rpt_cmp_record_units);
    suite_add_tcase(s, tc);

    tc = tcase_create("rpt_cmp_print");
    tcase_add_test(tc, test_rpt_cmp_print_table);
    suite_add_tcase(s, tc);

    tc = tcase_create("rpt_cmp_json");
    tcase_add_test(tc, test_rpt_cmp_json_members);
    tcase_add_test(tc, test_rpt_cmp_json_nan_is_null);
    tcase_add_test(tc, test_rpt_cmp_json_deterministic);
    suite_add_tcase(s, tc);

    tc = tcase_create("rpt_cmp_db_write");
    tcase_add_checked_fixture(tc, db_setup, db_teardown);
    tcase_add_test(tc, test_rpt_cmp_db_write_links_runs);
    tcase_add_test(tc, test_rpt_cmp_db_write_missing_run_rolls_back);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rpt_compare_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
