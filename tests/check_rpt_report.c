/* Check suite rpt_report: the cost report's accounting on a hand-built
 * database (runs written with rpt_db_write_run from hand-made cl_results
 * with pools, read back with rpt_run_load), every listed result field
 * through the database and back, the savings arithmetic, the baseline
 * link, HTML escaping and CSV quoting, and the prediction intervals of
 * dsec run --uncertainty in the headline and the writers. Money figures
 * are chosen so that every expected value is exact in binary or checked
 * to 1e-9. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "models/cluster/predict.h"
#include "models/cluster/results.h"
#include "reports/db.h"
#include "reports/report-int.h"
#include "reports/report.h"
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
    snprintf(db_path, sizeof(db_path), "%s/check_rpt_report.XXXXXX", dir);
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
}

/* An elastic run of 12 h: a reserved pool of 4 GPUs at 2 USD/GPU-h (paid
 * 48 GPU-h, 40 held: 30 serving, 6 idle, 2 loading, 1 provisioning, 1
 * draining) and a borrowable pool at 4 USD/GPU-h holding 10 GPU-h (8
 * serving, 2 idle). Cost 96 + 40 = 136 USD; 2e6 input and 5e5 output
 * tokens. */
static void elastic(struct cl_results *r)
{
    struct cl_pool_result *p;

    memset(r, 0, sizeof(*r));
    r->scenario_name = xstrdup("hand");
    r->policy = xstrdup("target-latency");
    r->sim_time_s = 12 * 3600.0;
    r->input_tokens = 2000000;
    r->output_tokens = 500000;
    r->gpu_hours = 50;
    /* Of the 38 GPU-h in steps, a quarter prefilling. */
    r->prefill_gpu_hours = 9.5;
    r->decode_gpu_hours = 28.5;
    r->cost_usd = 136;
    r->slo_attainment = 0.95;
    r->replicas_max = 6;
    r->gpu_hours_by_state[CL_GS_PROVISIONING] = 1;
    r->gpu_hours_by_state[CL_GS_LOADING] = 2;
    r->gpu_hours_by_state[CL_GS_SERVING] = 38;
    r->gpu_hours_by_state[CL_GS_IDLE] = 8;
    r->gpu_hours_by_state[CL_GS_DRAINING] = 1;
    r->npools = 2;
    r->pools = xcalloc(2, sizeof(*r->pools));
    p = &r->pools[0];
    p->name = xstrdup("reserved");
    p->gpu = xstrdup("h100");
    p->capacity_gpus = 4;
    p->reserved = 1;
    p->price_usd_per_gpu_hour = 2;
    p->gpu_hours_by_state[CL_GS_PROVISIONING] = 1;
    p->gpu_hours_by_state[CL_GS_LOADING] = 2;
    p->gpu_hours_by_state[CL_GS_SERVING] = 30;
    p->gpu_hours_by_state[CL_GS_IDLE] = 6;
    p->gpu_hours_by_state[CL_GS_DRAINING] = 1;
    p->gpu_hours_used = 40;
    p->gpu_hours_paid = 48;
    p->cost_usd = 96;
    p = &r->pools[1];
    p->name = xstrdup("test");
    p->gpu = xstrdup("h100");
    p->capacity_gpus = 8;
    p->borrowable = 1;
    p->price_usd_per_gpu_hour = 4;
    p->gpu_hours_by_state[CL_GS_SERVING] = 8;
    p->gpu_hours_by_state[CL_GS_IDLE] = 2;
    p->gpu_hours_used = 10;
    p->gpu_hours_paid = 10;
    p->cost_usd = 40;
}

/* Writes r (and pi, which may be NULL, as its prediction intervals) as a
 * run; frees r. Returns the run's id. */
static int64_t write_run_pi(struct cl_results *r, const struct cl_pi *pi)
{
    struct rpt_db *db = rpt_db_open(db_path, &diag);
    struct rpt_run_info info = {0};
    int64_t id = 0;

    ck_assert_ptr_nonnull(db);
    info.started_at = "2026-01-01T00:00:00Z";
    info.scenario_text = "name: hand\n";
    info.seed = 3;
    info.pi = pi;
    ck_assert_int_eq(rpt_db_write_run(db, &info, r, &id, &diag), 0);
    rpt_db_close(db);
    cl_results_fini(r);
    return id;
}

static int64_t write_run(struct cl_results *r)
{
    return write_run_pi(r, NULL);
}

static void near(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * (fabs(want) + 1),
                  "got %.17g, want %.17g", got, want);
}

START_TEST(test_rpt_acct_compute_figures)
{
    struct cl_results r;
    struct rpt_run *run;
    struct rpt_acct a;
    int64_t id;

    elastic(&r);
    id = write_run(&r);
    run = rpt_run_load(db_path, id, &diag);
    ck_assert_ptr_nonnull(run);
    ck_assert_int_eq(run->npools, 2);
    ck_assert_str_eq(run->policy, "target-latency");
    rpt_acct_compute(run, &a);
    near(a.cost_usd, 136);
    near(a.gpu_hours, 50);
    near(a.gpu_hours_paid, 58);
    /* Reserved: 48 paid, 40 held, so 8 GPU-h paid for nothing (16 USD). */
    near(a.reserved_unused_gpu_hours, 8);
    near(a.reserved_unused_cost_usd, 16);
    near(a.borrowed_gpu_hours, 10);
    near(a.gpu_hours_by_state[CL_GS_IDLE], 8);
    /* Idle: 6 h x 2 + 2 h x 4 = 20 USD; serving 30 x 2 + 8 x 4 = 92. */
    near(a.cost_by_state_usd[CL_GS_IDLE], 20);
    near(a.cost_by_state_usd[CL_GS_SERVING], 92);
    /* States plus the unused reservation add up to the total. */
    {
        double sum = a.reserved_unused_cost_usd;
        for (int s = 0; s < CL_GS_COUNT; s++)
            sum += a.cost_by_state_usd[s];
        near(sum, a.cost_usd);
    }
    /* Prefill's quarter of the cost on 2M input tokens, the rest on 0.5M
     * output tokens; 136 USD on 2.5M tokens of both. */
    near(a.prefill_share, 0.25);
    near(a.cost_per_m_input_usd, 136 * 0.25 / 2.0);
    near(a.cost_per_m_output_usd, 136 * 0.75 / 0.5);
    near(a.cost_per_m_tokens_usd, 136 / 2.5);
    near(a.cost_per_m_input_usd * 2.0 + a.cost_per_m_output_usd * 0.5, 136);
    /* 136 USD in 12 h: 272 a day, 8,160 a 30-day month. */
    near(a.cost_per_day_usd, 272);
    near(a.cost_per_month_usd, 8160);
    near(a.slo_attainment, 0.95);
    rpt_run_free(run);
}
END_TEST

/* Without prefill and decode GPU time (an abstract server, an older
 * database) the cost is not split: only the per-1M of both tokens. */
START_TEST(test_rpt_acct_compute_no_split)
{
    struct cl_results r;
    struct rpt_run *run;
    struct rpt_acct a;

    elastic(&r);
    r.prefill_gpu_hours = 0;
    r.decode_gpu_hours = 0;
    run = rpt_run_load(db_path, write_run(&r), &diag);
    ck_assert_ptr_nonnull(run);
    rpt_acct_compute(run, &a);
    ck_assert(isnan(a.prefill_share));
    ck_assert(isnan(a.cost_per_m_input_usd));
    ck_assert(isnan(a.cost_per_m_output_usd));
    near(a.cost_per_m_tokens_usd, 136 / 2.5);
    rpt_run_free(run);
}
END_TEST

START_TEST(test_rpt_acct_compute_no_tokens)
{
    struct cl_results r;
    struct rpt_run *run;
    struct rpt_acct a;

    elastic(&r);
    r.input_tokens = 0;
    r.output_tokens = 0;
    r.slo_attainment = NAN;
    run = rpt_run_load(db_path, write_run(&r), &diag);
    ck_assert_ptr_nonnull(run);
    rpt_acct_compute(run, &a);
    ck_assert(isnan(a.cost_per_m_input_usd));
    ck_assert(isnan(a.cost_per_m_output_usd));
    ck_assert(isnan(a.cost_per_m_tokens_usd));
    ck_assert(isnan(a.slo_attainment));
    rpt_run_free(run);
}
END_TEST

START_TEST(test_rpt_savings_arithmetic)
{
    double usd, pct;

    rpt_savings(136, 200, &usd, &pct);
    near(usd, 64);
    near(pct, 32);
    rpt_savings(250, 200, &usd, &pct);
    near(usd, -50);
    near(pct, -25);
    rpt_savings(10, 0, &usd, &pct);
    ck_assert(isnan(pct));
    rpt_savings(NAN, 10, &usd, &pct);
    ck_assert(isnan(usd));
    ck_assert(isnan(pct));
}
END_TEST

START_TEST(test_rpt_baseline_link_and_latest)
{
    struct cl_results r;
    int64_t run_id, base_id, got = -1;

    elastic(&r);
    run_id = write_run(&r);
    elastic(&r);
    free(r.policy);
    r.policy = NULL;
    base_id = write_run(&r);
    ck_assert_int_eq(rpt_baseline_find(db_path, run_id, &got, &diag), 1);
    ck_assert_int_eq(rpt_baseline_link(db_path, run_id, base_id, &diag), 0);
    ck_assert_int_eq(rpt_baseline_find(db_path, run_id, &got, &diag), 0);
    ck_assert_int_eq(got, base_id);
    /* The newest run is the baseline; --latest means the elastic run. */
    ck_assert_int_eq(rpt_run_latest(db_path, &got, &diag), 0);
    ck_assert_int_eq(got, run_id);
}
END_TEST

START_TEST(test_rpt_run_load_missing)
{
    struct cl_results r;
    char want[4300];

    elastic(&r);
    write_run(&r);
    ck_assert_ptr_null(rpt_run_load(db_path, 99, &diag));
    ck_assert_int_eq(sim_diag_errors(&diag), 1);
    snprintf(want, sizeof(want), "%s: error: no run 99 in this database",
             db_path);
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        sim_diag_print(&diag, fp);
        fclose(fp);
        ck_assert_msg(strstr(buf, want) != NULL, "got %s", buf);
        free(buf);
    }
}
END_TEST

/* Where each list's fields are in the row structs rpt_run_load fills
 * (report.h expands the members from the same lists). */
#define POOL_OFF(name, type, col, unit, help)                                  \
    offsetof(struct rpt_pool_row, name),
#define SERIES_OFF(name, type, col, unit, help)                                \
    offsetof(struct rpt_series_row, col),
#define REPLICA_OFF(name, type, col, unit, help)                               \
    offsetof(struct rpt_replica_row, col),
static const size_t pool_off[] = {CL_POOL_FIELDS(POOL_OFF)};
static const size_t series_off[] = {CL_SERIES_FIELDS(SERIES_OFF)};
static const size_t replica_off[] = {CL_REPLICA_FIELDS(REPLICA_OFF)};

/* Asserts that the stored row (fields at off[]) holds the values of the
 * element rec of r, as RPT_STORED_* reads them back. */
static void assert_stored(const struct cl_relem *e, const size_t *off,
                          const void *row, const void *rec,
                          const struct cl_results *r)
{
    for (int i = 0; i < e->nfields; i++) {
        const struct cl_rfield *f = &e->fields[i];
        const char *p = (const char *)row + off[i];
        const void *v = cl_rfield_cptr(rec, f);

        switch (f->type) {
        case CL_RT_STR:
            ck_assert_str_eq(*(char *const *)(const void *)p,
                             *(char *const *)v);
            break;
        case CL_RT_POOL:
            ck_assert_str_eq(*(char *const *)(const void *)p,
                             r->pools[*(const int *)v].name);
            break;
        case CL_RT_RSTATE:
            ck_assert_str_eq(*(char *const *)(const void *)p,
                             cl_replica_state_name(*(const int *)v));
            break;
        case CL_RT_SERIAL:
            ck_assert_int_eq(*(const int64_t *)(const void *)p,
                             (int64_t) * (const uint64_t *)v);
            break;
        case CL_RT_INT:
        case CL_RT_BOOL:
            ck_assert_int_eq(*(const int *)(const void *)p, *(const int *)v);
            break;
        default:
            for (int sub = 0; sub < cl_rfield_nsub(f); sub++)
                ck_assert_msg(
                    rfix_same_double(((const double *)(const void *)p)[sub],
                                     cl_rfield_get(f, rec, sub)),
                    "%s[%d] differs", f->name, sub);
        }
    }
}

/* Every field of every list with a place in the database comes back from
 * rpt_run_load: the summary metrics (and no others), the runs row, the
 * pools, timeseries, pool_series, replica_series and notes rows. The
 * fields with no place are listed, so that adding one is a decision. */
START_TEST(test_rpt_run_load_every_field_round_trips)
{
    static const char *const unstored[] = {
        "seed", /* runs.seed is rpt_run_info.seed */
        "kv_blocks_end",
        "kv_blocks_peak",
        "classes",
        "groups",
        "replica_series_dropped",
        "requests_rows_dropped",
        /* Run-level switches and an end-of-run check, for the tests and
         * for leaving members out (CL_RESULTS_OMIT_ZERO). */
        "kv_paused_blocks_end",
        "kv_tiered",
        "migrate_on",
    };
    struct rpt_db *db = rpt_db_open(db_path, &diag);
    struct rpt_run_info info = {0};
    struct cl_results r;
    struct rpt_run *run;
    int64_t id = 0;
    int nmetrics = 0;

    rfix_fill(&r);
    ck_assert_ptr_nonnull(db);
    info.started_at = "2026-01-01T00:00:00Z";
    ck_assert_int_eq(rpt_db_write_run(db, &info, &r, &id, &diag), 0);
    rpt_db_close(db);
    run = rpt_run_load(db_path, id, &diag);
    ck_assert_ptr_nonnull(run);

    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        int listed = 0;

        for (size_t u = 0; u < sizeof(unstored) / sizeof(unstored[0]); u++)
            listed |= strcmp(f->name, unstored[u]) == 0;
        ck_assert_msg(listed == (f->db == NULL && f->type != CL_RT_STR),
                      "%s: stored or not, unlike the list here", f->name);
        if (f->db == NULL || f->type == CL_RT_STR || cl_rfield_elem(f))
            continue;
        for (int sub = 0; sub < cl_rfield_nsub(f); sub++) {
            char name[96];
            cl_rfield_metric(f, sub, name, sizeof(name));
            ck_assert_msg(rfix_same_double(rpt_run_metric(run, name),
                                           cl_rfield_get(f, &r, sub)),
                          "metric %s: %.17g != %.17g", name,
                          rpt_run_metric(run, name), cl_rfield_get(f, &r, sub));
            nmetrics++;
        }
    }
    ck_assert_int_eq(run->nmetrics, nmetrics);
    ck_assert_str_eq(run->scenario_name, r.scenario_name);
    ck_assert_str_eq(run->policy, r.policy);

    ck_assert_int_eq(run->npools, r.npools);
    for (int i = 0; i < r.npools; i++)
        assert_stored(cl_rfield_elem(CL_RESULTS_FIELD(pools)), pool_off,
                      &run->pools[i], &r.pools[i], &r);
    ck_assert_uint_eq(run->nseries, r.nseries);
    for (size_t i = 0; i < r.nseries; i++)
        assert_stored(cl_rfield_elem(CL_RESULTS_FIELD(series)), series_off,
                      &run->series[i], &r.series[i], &r);
    ck_assert_uint_eq(run->nreplicas, r.nreplica_series);
    for (size_t i = 0; i < r.nreplica_series; i++)
        assert_stored(cl_rfield_elem(CL_RESULTS_FIELD(replica_series)),
                      replica_off, &run->replicas[i], &r.replica_series[i], &r);
    ck_assert_ptr_nonnull(run->pool_cost_usd);
    for (size_t k = 0; k < r.nseries * (size_t)r.npools; k++)
        ck_assert(rfix_same_double(run->pool_cost_usd[k], r.pool_cost_usd[k]));
    ck_assert_int_eq(run->nnotes, r.nnotes);
    for (int i = 0; i < r.nnotes; i++)
        ck_assert_str_eq(run->notes[i], r.notes[i]);
    rpt_run_free(run);
    cl_results_fini(&r);
}
END_TEST

/* A comparison written as dsec compare writes it: two policies x three
 * replications, cost 10, 20, 30 USD for the first and 5 USD more each for
 * the second (paired difference exactly 5, half-width 0), 5e5 output tokens
 * (cost per 1M = 2 x cost), p99 TTFT 100 + r ms. Returns its id. */
static int64_t write_comparison(void)
{
    static const char *const labels[] = {"static:replicas=4", "a<b&c"};
    struct rpt_cmp *c = rpt_cmp_new("hand", 3, 3);
    int64_t ids[6], cmp_id = 0;

    ck_assert_ptr_nonnull(c);
    for (int p = 0; p < 2; p++) {
        ck_assert_int_eq(rpt_cmp_add_policy(c, labels[p], "x", NULL, 0), p);
        for (int r = 0; r < 3; r++) {
            struct cl_results res;
            elastic(&res);
            res.cost_usd = 10.0 * (r + 1) + 5 * p;
            res.ttft_ms.p99 = 100 + r;
            res.scale_events = (uint64_t)(p + 1);
            ids[p * 3 + r] = write_run(&res);
        }
    }
    ck_assert_int_eq(rpt_cmp_db_write(db_path, c, "2026-01-01T00:00:00Z", ids,
                                      &cmp_id, &diag),
                     0);
    rpt_cmp_free(c);
    return cmp_id;
}

START_TEST(test_rpt_cmp_report_table)
{
    struct rpt_cmp_report c;
    struct rpt_cmp_stat s;
    double costs[3] = {10, 20, 30};
    int64_t id = write_comparison(), latest = 0;

    ck_assert_int_eq(rpt_cmp_latest(db_path, &latest, &diag), 0);
    ck_assert_int_eq(latest, id);
    ck_assert_int_eq(rpt_cmp_report_load(db_path, id, &c, &diag), 0);
    ck_assert_int_eq(c.npolicies, 2);
    ck_assert_int_eq(c.nreps, 3);
    ck_assert_str_eq(c.labels[0], "static:replicas=4");
    ck_assert_str_eq(c.labels[1], "a<b&c");
    ck_assert_str_eq(c.scenario_name, "hand");
    /* Cost: mean 20, half-width t(0.975, 2) x 10 / sqrt(3). */
    s = rpt_crep_stat(&c, 0, RPT_CMP_COST);
    near(s.mean, 20);
    near(s.ci95, 4.302652729911275 * 10 / sqrt(3));
    near(s.ci95, rpt_cmp_mean_ci(costs, 3).ci95);
    near(rpt_crep_stat(&c, 1, RPT_CMP_COST).mean, 25);
    s = rpt_crep_stat(&c, 0, RPT_CREP_COST_PER_M_OUTPUT);
    near(s.mean, 40);
    near(rpt_crep_stat(&c, 1, RPT_CREP_COST_PER_M_OUTPUT).mean, 50);
    near(rpt_crep_stat(&c, 0, RPT_CMP_SLO_ATTAINMENT).mean, 95);
    near(rpt_crep_stat(&c, 0, RPT_CMP_SLO_ATTAINMENT).ci95, 0);
    near(rpt_crep_stat(&c, 1, RPT_CMP_TTFT_P99).mean, 101);
    near(rpt_crep_stat(&c, 1, RPT_CMP_GPU_HOURS).mean, 50);
    near(rpt_crep_stat(&c, 1, RPT_CMP_SCALE_EVENTS).mean, 2);
    /* Paired: exactly 5 USD more in every replication. */
    s = rpt_crep_diff(&c, 1, RPT_CMP_COST);
    near(s.mean, 5);
    near(s.ci95, 0);
    ck_assert(rpt_cmp_significant(s));
    near(rpt_crep_diff(&c, 1, RPT_CREP_COST_PER_M_OUTPUT).mean, 10);
    ck_assert(isnan(rpt_crep_stat(&c, 2, RPT_CMP_COST).mean));
    rpt_cmp_report_fini(&c);
}
END_TEST

START_TEST(test_rpt_cmp_report_html_rows)
{
    struct rpt_cmp_report c;
    char dir[4200], *written = NULL, *buf = NULL, *p;
    size_t len = 0;
    int rows = 0;
    FILE *fp;

    ck_assert_int_eq(
        rpt_cmp_report_load(db_path, write_comparison(), &c, &diag), 0);
    snprintf(dir, sizeof(dir), "%s.d", db_path);
    /* No gnuplot: the report is still written, and says so. */
    ck_assert_int_eq(
        rpt_cmp_report_write(&c, RPT_FMT_HTML, dir, NULL, &written, &diag), 0);
    ck_assert_int_eq(sim_diag_errors(&diag), 0);
    fp = fopen(written, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(getdelim(&buf, &len, '\0', fp) > 0, 1);
    fclose(fp);
    for (p = buf; (p = strstr(p, "<tr class=\"policy\">")) != NULL; p++)
        rows++;
    ck_assert_int_eq(rows, 2);
    ck_assert_ptr_nonnull(strstr(buf, "<td>a&lt;b&amp;c</td>"));
    ck_assert_ptr_null(strstr(buf, "a<b"));
    ck_assert_ptr_nonnull(strstr(buf, "this report has no charts"));
    ck_assert_ptr_null(strstr(buf, "<img"));
    /* A comparison is written as PDF too, where cairo is built in. */
    if (rpt_format_available(RPT_FMT_PDF)) {
        char *pdf = NULL;
        ck_assert_int_eq(
            rpt_cmp_report_write(&c, RPT_FMT_PDF, dir, NULL, &pdf, &diag), 0);
        ck_assert_ptr_nonnull(strstr(pdf, "comparison.pdf"));
        ck_assert_int_eq(access(pdf, R_OK), 0);
        unlink(pdf);
        free(pdf);
    } else {
        ck_assert_int_eq(
            rpt_cmp_report_write(&c, RPT_FMT_PDF, dir, NULL, NULL, &diag),
            SIM_EINVAL);
    }
    unlink(written);
    rmdir(dir);
    free(buf);
    free(written);
    rpt_cmp_report_fini(&c);
}
END_TEST

/* The elastic run with a calibration profile and latencies, and its
 * intervals: 20 draws of 3 parameters with the structural error; cost
 * 128..144 USD, GPU-hours 48..52, SLO attainment 0.9..1, TTFT mean
 * 90..110 ms; no ITL (NULL bounds, as for an abstract engine). */
static int64_t write_pi_run(void)
{
    struct cl_results r;
    struct cl_pi pi;

    elastic(&r);
    r.calibration = xstrdup("h100_serving.yaml");
    r.calibration_sha256 = xstrdup("ab12");
    r.ttft_ms.mean = 100;
    r.ttft_ms.ci95 = 1.5;
    r.ttft_ms.p99 = 250;
    r.throughput_tokens_per_s = 11.5;
    r.itl_ms.mean = NAN;
    memset(&pi, 0, sizeof(pi));
    pi.n = 20;
    pi.level = 0.95;
    pi.nparams = 3;
    pi.structural = 1;
    for (int m = 0; m < CL_PI_N; m++)
        pi.lo[m] = pi.hi[m] = pi.median[m] = NAN;
    pi.lo[CL_PI_COST] = 128;
    pi.hi[CL_PI_COST] = 144;
    pi.median[CL_PI_COST] = 136;
    pi.lo[CL_PI_GPU_HOURS] = 48;
    pi.hi[CL_PI_GPU_HOURS] = 52;
    pi.lo[CL_PI_SLO] = 0.9;
    pi.hi[CL_PI_SLO] = 1;
    pi.lo[CL_PI_TTFT_MEAN] = 90;
    pi.hi[CL_PI_TTFT_MEAN] = 110;
    pi.lo[CL_PI_THROUGHPUT] = 11.25;
    pi.hi[CL_PI_THROUGHPUT] = 11.75;
    return write_run_pi(&r, &pi);
}

/* The headline line with key k, or NULL. */
static const struct rpt__line *find_line(const struct rpt__line *l, int n,
                                         const char *k)
{
    for (int i = 0; i < n; i++)
        if (strcmp(l[i].key, k) == 0)
            return &l[i];
    return NULL;
}

START_TEST(test_rpt_run_load_prediction_intervals)
{
    struct rpt_run *run = rpt_run_load(db_path, write_pi_run(), &diag);

    ck_assert_ptr_nonnull(run);
    ck_assert_ptr_nonnull(run->pi);
    ck_assert_int_eq(run->pi->n, 20);
    ck_assert_int_eq(run->pi->nparams, 3);
    ck_assert_int_eq(run->pi->structural, 1);
    near(run->pi->level, 0.95);
    near(run->pi->lo[CL_PI_COST], 128);
    near(run->pi->hi[CL_PI_COST], 144);
    near(run->pi->median[CL_PI_COST], 136);
    ck_assert(isnan(run->pi->lo[CL_PI_ITL_MEAN]));
    ck_assert_str_eq(run->calibration, "h100_serving.yaml");
    ck_assert_str_eq(run->calibration_sha256, "ab12");
    near(rpt__pi_value(run, CL_PI_TTFT_MEAN), 100);
    near(rpt__pi_value(run, CL_PI_TTFT_P99), 250);
    near(rpt__pi_value(run, CL_PI_COST), 136);
    near(rpt__pi_value(run, CL_PI_THROUGHPUT), 11.5);
    rpt_run_free(run);
}
END_TEST

/* Each figure with an interval gets it, the cost's figures scaled as the
 * cost is (136 USD in 12 h is 272 a day: 128..144 is 256..288 a day; the
 * output tokens' three quarters of it on 0.5M tokens); the
 * latencies appear only with intervals. */
START_TEST(test_rpt_headline_intervals)
{
    struct rpt_report rep = {0};
    struct rpt__line l[RPT__MAX_LINES];
    const struct rpt__line *x;
    struct cl_results r;
    int n, nplain;

    elastic(&r);
    rep.run = rpt_run_load(db_path, write_run(&r), &diag);
    rep.self_baseline = 1;
    ck_assert_ptr_nonnull(rep.run);
    ck_assert_ptr_null(rep.run->pi);
    nplain = rpt__headline(&rep, l);
    ck_assert_int_eq(nplain, 20);
    for (int i = 0; i < nplain; i++) {
        ck_assert(isnan(l[i].lo) && isnan(l[i].hi));
        ck_assert_str_eq(l[i].lo_text, "");
    }
    ck_assert_ptr_null(find_line(l, nplain, "ttft_ms_mean"));
    rpt_report_fini(&rep);

    rep.run = rpt_run_load(db_path, write_pi_run(), &diag);
    rep.self_baseline = 1;
    n = rpt__headline(&rep, l);
    ck_assert_int_eq(n, nplain + 9);
    ck_assert_int_le(n, RPT__MAX_LINES);
    x = find_line(l, n, "cost_usd");
    near(x->lo, 128);
    near(x->hi, 144);
    ck_assert_str_eq(x->lo_text, "128.00");
    ck_assert_str_eq(x->hi_text, "144.00");
    x = find_line(l, n, "cost_per_day_usd");
    near(x->lo, 256);
    near(x->hi, 288);
    x = find_line(l, n, "cost_per_month_usd");
    near(x->lo, 256 * 30);
    near(x->hi, 288 * 30);
    ck_assert_str_eq(x->hi_text, "8,640.00");
    x = find_line(l, n, "cost_per_m_output_tokens_usd");
    near(x->lo, 128 * 0.75 / 0.5);
    near(x->hi, 144 * 0.75 / 0.5);
    x = find_line(l, n, "cost_per_m_tokens_usd");
    near(x->lo, 128 / 2.5);
    near(x->hi, 144 / 2.5);
    x = find_line(l, n, "slo_attainment_pct");
    near(x->lo, 90);
    near(x->hi, 100);
    x = find_line(l, n, "gpu_hours");
    near(x->lo, 48);
    x = find_line(l, n, "ttft_ms_mean");
    near(x->value, 100);
    near(x->lo, 90);
    near(x->hi, 110);
    /* 11.25..11.75 prints as 11.25-11.75 at two decimals. */
    x = find_line(l, n, "throughput_tokens_per_s");
    ck_assert_str_eq(x->lo_text, "11.25");
    /* No interval for the baseline's figures, the tokens or ITL. */
    ck_assert(isnan(find_line(l, n, "static_cost_usd")->lo));
    ck_assert(isnan(find_line(l, n, "input_tokens")->lo));
    ck_assert(isnan(find_line(l, n, "itl_ms_mean")->lo));
    rpt_report_fini(&rep);
}
END_TEST

/* Reads the whole file at path; caller frees. */
static char *slurp(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = fopen(path, "r");

    ck_assert_msg(fp != NULL, "cannot open %s", path);
    ck_assert_int_eq(getdelim(&buf, &len, '\0', fp) > 0, 1);
    fclose(fp);
    return buf;
}

/* Writes rep as fmt into dir; returns the main file's text. */
static char *write_report(const struct rpt_report *rep, enum rpt_format fmt,
                          const char *dir)
{
    char *written = NULL, *text;

    ck_assert_int_eq(rpt_report_write(rep, fmt, dir, NULL, &written, &diag), 0);
    text = slurp(written);
    free(written);
    return text;
}

/* Removes dir and the files a report without charts leaves in it. */
static void remove_report(const char *dir)
{
    static const char *const files[] = {
        "report.html",  "report.md",  "headline.csv",
        "pools.csv",    "states.csv", "timeseries.csv",
        "replicas.csv", "report.pdf", "prediction_intervals.csv"};
    char path[4400];

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

START_TEST(test_rpt_report_write_intervals)
{
    struct rpt_report rep = {0};
    char dir[4200], path[4400], *s;

    snprintf(dir, sizeof(dir), "%s.pi", db_path);
    rep.run = rpt_run_load(db_path, write_pi_run(), &diag);
    rep.self_baseline = 1;
    ck_assert_ptr_nonnull(rep.run);

    s = write_report(&rep, RPT_FMT_HTML, dir);
    ck_assert_ptr_nonnull(strstr(s, "<th>95 % interval</th>"));
    ck_assert_ptr_nonnull(
        strstr(s, "<tr><td>Total cost</td><td class=\"n\">136.00</td>"
                  "<td class=\"n pi\">128.00&#8211;144.00</td>"));
    ck_assert_ptr_nonnull(strstr(s, "id=\"prediction-interval\""));
    ck_assert_ptr_nonnull(strstr(s, "of 20 runs"));
    ck_assert_ptr_nonnull(strstr(s, "3 uncertain parameters"));
    ck_assert_ptr_nonnull(strstr(s, "structural error"));
    ck_assert_ptr_nonnull(strstr(s, "TTFT mean \xc2\xb1 1.50 ms"));
    ck_assert_ptr_nonnull(
        strstr(s, "Calibration: h100_serving.yaml, SHA-256 ab12."));
    free(s);

    s = write_report(&rep, RPT_FMT_MD, dir);
    ck_assert_ptr_nonnull(strstr(s, "| figure | value | 95 % interval | "
                                    "unit |\n| --- | ---: | ---: | --- |\n"));
    ck_assert_ptr_nonnull(
        strstr(s, "| Total cost | 136.00 | 128.00-144.00 | USD |\n"));
    ck_assert_ptr_nonnull(strstr(s, "| Input tokens | 2,000,000 |  | tokens"));
    ck_assert_ptr_nonnull(strstr(s, "Calibration: h100\\_serving.yaml"));
    free(s);

    s = write_report(&rep, RPT_FMT_CSV, dir);
    ck_assert_ptr_nonnull(strstr(s, "metric,value,unit,label,lo,hi\r\n"));
    ck_assert_ptr_nonnull(strstr(s, "cost_usd,136,USD,Total cost,128,144\r\n"));
    ck_assert_ptr_nonnull(strstr(s, "input_tokens,2000000,tokens,Input "
                                    "tokens,,\r\n"));
    free(s);
    snprintf(path, sizeof(path), "%s/prediction_intervals.csv", dir);
    s = slurp(path);
    ck_assert_ptr_nonnull(strstr(s, "run_id,metric,unit,value,lo,hi,median,"
                                    "level,draws,params,structural\r\n"));
    ck_assert_ptr_nonnull(
        strstr(s, ",cost_usd,USD,136,128,144,136,0.94999999999999996,20,3,"
                  "1\r\n"));
    ck_assert_ptr_nonnull(strstr(s, ",itl_ms_mean,ms,,,,,"));
    free(s);
    ck_assert_int_eq(sim_diag_errors(&diag), 0);
    remove_report(dir);
    rpt_report_fini(&rep);
}
END_TEST

/* A run without intervals: no interval column, note or file; a run
 * without a profile names none. */
START_TEST(test_rpt_report_write_no_intervals)
{
    struct rpt_report rep = {0};
    struct cl_results r;
    char dir[4200], path[4400], *s;

    snprintf(dir, sizeof(dir), "%s.plain", db_path);
    elastic(&r);
    rep.run = rpt_run_load(db_path, write_run(&r), &diag);
    rep.self_baseline = 1;
    ck_assert_ptr_nonnull(rep.run);
    s = write_report(&rep, RPT_FMT_HTML, dir);
    ck_assert_ptr_nonnull(strstr(s, "<tr><th>figure</th><th>value</th>"
                                    "<th>unit</th></tr>"));
    ck_assert_ptr_null(strstr(s, "interval"));
    ck_assert_ptr_null(strstr(s, "Calibration"));
    free(s);
    s = write_report(&rep, RPT_FMT_MD, dir);
    ck_assert_ptr_nonnull(strstr(s, "| figure | value | unit |\n"));
    ck_assert_ptr_null(strstr(s, "interval"));
    free(s);
    s = write_report(&rep, RPT_FMT_CSV, dir);
    ck_assert_ptr_nonnull(strstr(s, "metric,value,unit,label\r\n"));
    ck_assert_ptr_nonnull(strstr(s, "cost_usd,136,USD,Total cost\r\n"));
    free(s);
    snprintf(path, sizeof(path), "%s/prediction_intervals.csv", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    remove_report(dir);
    rpt_report_fini(&rep);
}
END_TEST

/* A database from before the calibration columns and the intervals
 * table still loads: no profile, no intervals. */
START_TEST(test_rpt_run_load_old_database)
{
    int64_t id = write_pi_run();
    struct rpt_run *run;
    sqlite3 *sql = NULL;

    ck_assert_int_eq(sqlite3_open(db_path, &sql), SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_exec(sql,
                     "ALTER TABLE runs RENAME COLUMN calibration TO old_a; "
                     "ALTER TABLE runs RENAME COLUMN calibration_sha256 TO "
                     "old_b; DROP TABLE prediction_intervals",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(sql);
    run = rpt_run_load(db_path, id, &diag);
    ck_assert_ptr_nonnull(run);
    ck_assert_ptr_null(run->pi);
    ck_assert_ptr_null(run->calibration);
    ck_assert_ptr_null(run->calibration_sha256);
    near(rpt_run_metric(run, "cost_usd"), 136);
    rpt_run_free(run);
}
END_TEST

/* The baseline of a run with a profile is simulated from the stored
 * scenario, so at the built-in defaults: the note says so. */
START_TEST(test_rpt_calib_note_baseline)
{
    struct rpt_report rep = {0};
    struct cl_results r;
    char note[RPT__NOTE_LEN];

    elastic(&r);
    r.calibration = xstrdup("built-in defaults");
    rep.baseline = rpt_run_load(db_path, write_run(&r), &diag);
    rep.run = rpt_run_load(db_path, write_pi_run(), &diag);
    ck_assert_ptr_nonnull(rep.baseline);
    ck_assert_ptr_nonnull(rep.run);
    rpt__calib_note(&rep, note, sizeof(note));
    ck_assert_msg(strstr(note, "Calibration: h100_serving.yaml, SHA-256 "
                               "ab12. The static baseline (run 1) was "
                               "simulated with the built-in defaults") != NULL,
                  "got %s", note);
    /* The same profile on both: no warning. */
    free(rep.baseline->calibration_sha256);
    rep.baseline->calibration_sha256 = xstrdup("ab12");
    rpt__calib_note(&rep, note, sizeof(note));
    ck_assert_str_eq(note, "Calibration: h100_serving.yaml, SHA-256 ab12.");
    /* No profile (built-in, or an old database): nothing. */
    free(rep.run->calibration_sha256);
    rep.run->calibration_sha256 = NULL;
    rpt__calib_note(&rep, note, sizeof(note));
    ck_assert_str_eq(note, "");
    rpt_report_fini(&rep);
}
END_TEST

/* Runs fn on s into a string; caller frees. */
static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    fn(fp, s);
    fclose(fp);
    return buf;
}

START_TEST(test_rpt_html_escape_specials)
{
    char *s = capture(rpt_html_escape, "<b a=\"x\">Tom & 'Jerry'</b>");

    ck_assert_str_eq(s, "&lt;b a=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;"
                        "&lt;/b&gt;");
    free(s);
    s = capture(rpt_html_escape, NULL);
    ck_assert_str_eq(s, "");
    free(s);
}
END_TEST

START_TEST(test_rpt_csv_field_quoting)
{
    static const struct {
        const char *in, *out;
    } c[] = {
        {"plain", "plain"},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        {"cr\r", "\"cr\r\""},
        {" padded", "\" padded\""},
        {"", ""},
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        char *s = capture(rpt_csv_field, c[i].in);
        ck_assert_str_eq(s, c[i].out);
        free(s);
    }
}
END_TEST

START_TEST(test_rpt_format_parse_names)
{
    enum rpt_format f = RPT_FMT_HTML;

    ck_assert_int_eq(rpt_format_parse("md", &f), 0);
    ck_assert_int_eq(f, RPT_FMT_MD);
    ck_assert_int_eq(rpt_format_parse("csv", &f), 0);
    ck_assert_int_eq(f, RPT_FMT_CSV);
    ck_assert_int_eq(rpt_format_parse("docx", &f), -1);
    ck_assert_int_eq(f, RPT_FMT_CSV);
}
END_TEST

static Suite *rpt_report_suite(void)
{
    Suite *s = suite_create("rpt_report");
    TCase *tc = tcase_create("accounting");

    tcase_add_checked_fixture(tc, db_setup, db_teardown);
    tcase_add_test(tc, test_rpt_acct_compute_figures);
    tcase_add_test(tc, test_rpt_acct_compute_no_tokens);
    tcase_add_test(tc, test_rpt_acct_compute_no_split);
    tcase_add_test(tc, test_rpt_baseline_link_and_latest);
    tcase_add_test(tc, test_rpt_run_load_missing);
    tcase_add_test(tc, test_rpt_run_load_every_field_round_trips);
    tcase_add_test(tc, test_rpt_cmp_report_table);
    tcase_add_test(tc, test_rpt_cmp_report_html_rows);
    suite_add_tcase(s, tc);
    tc = tcase_create("intervals");
    tcase_add_checked_fixture(tc, db_setup, db_teardown);
    tcase_add_test(tc, test_rpt_run_load_prediction_intervals);
    tcase_add_test(tc, test_rpt_headline_intervals);
    tcase_add_test(tc, test_rpt_report_write_intervals);
    tcase_add_test(tc, test_rpt_report_write_no_intervals);
    tcase_add_test(tc, test_rpt_run_load_old_database);
    tcase_add_test(tc, test_rpt_calib_note_baseline);
    suite_add_tcase(s, tc);
    tc = tcase_create("text");
    tcase_add_test(tc, test_rpt_savings_arithmetic);
    tcase_add_test(tc, test_rpt_html_escape_specials);
    tcase_add_test(tc, test_rpt_csv_field_quoting);
    tcase_add_test(tc, test_rpt_format_parse_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rpt_report_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
