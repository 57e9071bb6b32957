/* Check suite for calib/nls.c and calib/fit.c: the fits recover known
 * parameters from synthetic data with Gaussian noise (GSL, fixed seed)
 * within a few standard errors, and the profile they write loads back with
 * perf_calib_load() to the same numbers. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "calib/cal.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "base/errors.h"

/* Relative noise of the synthetic times: 2 %, about the run-to-run spread
 * of nccl-tests medians. */
#define NOISE 0.02

static gsl_rng *rng;

static void setup(void)
{
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20261130);
}

static void teardown(void)
{
    gsl_rng_free(rng);
}

static double noisy(double v)
{
    return v * (1 + gsl_ran_gaussian(rng, NOISE));
}

/* |got - want| within k standard errors, and the error is positive. */
static void near(double got, double se, double want, double k)
{
    ck_assert_msg(se > 0 && fabs(got - want) <= k * se,
                  "got %g (se %g), want %g within %g se", got, se, want, k);
}

START_TEST(test_cal_fit_alpha_beta_recovers)
{
    /* An 8-GPU NVLink ring all-reduce: 24 us, 370 GB/s bus bandwidth
     * (FACTS.md §2.3), 8 B .. 1 GiB by 2. */
    double x[28], t[28];
    struct cal_fit f;
    int n = 0;

    for (double s = 8; s <= 1073741824.0; s *= 2, n++) {
        x[n] = s * 2 * 7 / 8;
        t[n] = noisy(24.0 + x[n] / (370.0 * 1e3));
    }
    ck_assert_int_eq(cal_fit_alpha_beta(x, t, n, &f), 0);
    ck_assert_int_eq(f.npoints, 28);
    near(f.p[0], f.se[0], 24.0, 3);
    near(f.p[1], f.se[1], 370.0, 3);
    ck_assert(f.r2 > 0.99 && f.r2 <= 1);
}
END_TEST

START_TEST(test_cal_fit_alpha_beta_rejects)
{
    double x[3] = {1, 1, 1}, t[3] = {1, 2, 3};
    struct cal_fit f;

    /* Too few points, one size only, a non-positive time. */
    ck_assert_int_eq(cal_fit_alpha_beta(x, t, 2, &f), SIM_EINVAL);
    ck_assert_int_eq(cal_fit_alpha_beta(x, t, 3, &f), SIM_EINVAL);
    x[1] = 10;
    x[2] = 100;
    t[2] = 0;
    ck_assert_int_eq(cal_fit_alpha_beta(x, t, 3, &f), SIM_EINVAL);
}
END_TEST

START_TEST(test_cal_fit_gemm_recovers)
{
    /* H200 peaks (FACTS.md §1.1); truth 0.78 (DeepGEMM's anchor, §1.3),
     * M_half 60, HBM 0.85, 5 us. Four Llama-3.1-8B projections, 1..8192
     * tokens: decode shapes are memory-bound, prefill compute-bound. */
    static const double nk[4][2] = {
        {6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}};
    const double truth[4] = {0.78, 60, 0.85, 5};
    double m[56], n[56], k[56], t[56];
    struct cal_fit f;
    int np = 0;

    for (int i = 0; i < 4; i++)
        for (double mm = 1; mm <= 8192; mm *= 2, np++) {
            m[np] = mm;
            n[np] = nk[i][0];
            k[np] = nk[i][1];
            t[np] = noisy(cal_gemm_model_us(truth, mm, n[np], k[np], 2,
                                            989.4e12, 4.8e12));
        }
    ck_assert_int_eq(
        cal_fit_gemm(m, n, k, t, np, 2, 989.4e12, 4.8e12, 0, 0.8, &f), 0);
    for (int j = 0; j < 4; j++) {
        ck_assert_int_eq(f.fixed[j], 0);
        near(f.p[j], f.se[j], truth[j], 3);
    }
    ck_assert(f.r2 > 0.99);
}
END_TEST

START_TEST(test_cal_fit_gemm_holds_memory)
{
    /* Only compute-bound shapes: the HBM fraction is held at its start. */
    const double truth[4] = {0.7, 100, 0.8, 3};
    double m[12], n[12], k[12], t[12];
    struct cal_fit f;

    for (int i = 0; i < 12; i++) {
        m[i] = 256 << (i % 6);
        n[i] = i < 6 ? 8192 : 28672;
        k[i] = 8192;
        t[i] = noisy(
            cal_gemm_model_us(truth, m[i], n[i], k[i], 2, 989.4e12, 4.8e12));
    }
    ck_assert_int_eq(
        cal_fit_gemm(m, n, k, t, 12, 2, 989.4e12, 4.8e12, 1, 0.8, &f), 0);
    ck_assert_int_eq(f.fixed[2], 1);
    ck_assert(f.p[2] == 0.8);
    near(f.p[0], f.se[0], 0.7, 3);
    near(f.p[1], f.se[1], 100, 3);
}
END_TEST

START_TEST(test_cal_fit_gemm_out_of_range)
{
    /* 10 us for every shape, up to 8192^3 (110 PFLOP/s): no efficiency in
     * (0, 1] explains that, held HBM fraction or not. */
    double m[8], n[8], k[8], t[8];
    struct cal_fit f;
    int rc;

    for (int i = 0; i < 8; i++) {
        m[i] = 1 << (2 * i);
        n[i] = k[i] = 8192;
        t[i] = 10;
    }
    rc = cal_fit_gemm(m, n, k, t, 8, 2, 989.4e12, 4.8e12, 0, 0.8, &f);
    /* Out of range, or no convergence at all: rejected either way. */
    ck_assert(rc == SIM_ERANGE || rc == SIM_EINVAL);
}
END_TEST

static void add(sqlite3 *db, struct cal_point *p)
{
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(cal_db_insert(db, p, &d), 0);
    sim_diag_fini(&d);
}

static double fitted(sqlite3 *db, const char *subject_like, const char *param)
{
    sqlite3_stmt *s = NULL;
    double v = NAN;

    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT value FROM fits WHERE subject"
                                        " LIKE ?1 AND param = ?2",
                                        -1, &s, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(s, 1, subject_like, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, param, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

START_TEST(test_cal_fit_run_profile_round_trip)
{
    const double truth[4] = {0.76, 70, 0.86, 4};
    char dir[] = "/tmp/check_calib_fit_XXXXXX", *yaml, *rep_path, *cmd;
    const struct gpu_spec *g = gpu_find("h200");
    struct cal_fit_opts o;
    struct perf_calib prof;
    struct perf_gpu_calib r;
    struct cal_point p;
    struct sim_diag d;
    sqlite3 *db = NULL;
    FILE *rep;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    yaml = xasprintf("%s/p.yaml", dir);
    rep_path = xasprintf("%s/report.txt", dir);
    sim_diag_init(&d);
    ck_assert_int_eq(cal_db_open(":memory:", &db, &d), 0);
    /* All-reduce over 8 GPUs of one host, as nccl-tests reports it. */
    for (double s = 1024; s <= 1073741824.0; s *= 4) {
        double f = 2.0 * 7 / 8, tt = noisy(22.0 + s * f / (365.0 * 1e3));

        cal_point_clear(&p);
        p.tool = "nccl-tests";
        p.file = "synthetic";
        p.benchmark = "all_reduce_perf";
        p.op = "out-of-place";
        p.ranks = 8;
        p.hosts = 1;
        p.size_bytes = s;
        p.time_us = tt;
        p.algbw_gbps = s / (tt * 1e3);
        p.busbw_gbps = p.algbw_gbps * f;
        p.gpu = "h200";
        p.date = "2026-11-29";
        add(db, &p);
    }
    for (double mm = 1; mm <= 8192; mm *= 2) {
        cal_point_clear(&p);
        p.tool = "dsec-calib";
        p.file = "synthetic";
        p.benchmark = "gemm";
        p.op = "gemm";
        p.dtype = "bf16";
        p.m = mm;
        p.n = 8192;
        p.k = 8192;
        p.time_us = noisy(cal_gemm_model_us(truth, mm, 8192, 8192, 2,
                                            g->flops_bf16, g->hbm_bytes_per_s));
        p.gpu = "h200";
        add(db, &p);
    }
    for (double s = 1 << 20; s <= 4294967296.0; s *= 4) {
        cal_point_clear(&p);
        p.tool = "dsec-calib";
        p.file = "synthetic";
        p.benchmark = "hbm";
        p.op = "copy";
        p.size_bytes = 2 * s;
        p.time_us = noisy(3 + 2 * s / (4100.0 * 1e3));
        add(db, &p); /* unlabelled: fit takes it for any GPU */
    }
    memset(&o, 0, sizeof(o));
    o.gpu = "h200";
    o.out_yaml = yaml;
    rep = fopen(rep_path, "w");
    ck_assert_ptr_nonnull(rep);
    o.report = rep;
    ck_assert_int_eq(cal_fit_run(db, &o, &d), 0);
    fclose(rep);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    /* Load the profile as dsec does and compare with the stored fits. */
    ck_assert_int_eq(perf_calib_load(yaml, &prof, &d), 0);
    ck_assert_str_eq(prof.date, "2026-11-29");
    ck_assert_int_eq(strncmp(prof.tool, "dsec-calib ", 11), 0);
    perf_calib_resolve(&prof, g, &r);
    ck_assert(fabs(r.gemm_eff_max - fitted(db, "gemm bf16", "efficiency_max")) <
              1e-4);
    ck_assert(fabs(r.gemm_half_tokens -
                   fitted(db, "gemm bf16", "half_tokens")) < 0.006);
    ck_assert(fabs(r.gemm_eff_memory -
                   fitted(db, "gemm bf16", "hbm_efficiency")) < 1e-4);
    ck_assert(fabs(r.gemm_kernel_ns / 1e3 -
                   fitted(db, "gemm bf16", "kernel_time")) < 1e-3);
    ck_assert(fabs(r.elem_eff_memory * g->hbm_bytes_per_s / 1e9 -
                   fitted(db, "%hbm copy", "bandwidth")) < 0.5);
    /* NVLink: the achieved bus bandwidth, and the per-step alpha
     * (alpha - 14 us) / (2 (p - 1)). */
    ck_assert_str_eq(r.intra.name, "nvlink4");
    ck_assert(fabs(r.intra.efficiency * r.intra.bytes_per_s / 1e9 -
                   fitted(db, "all_reduce_perf%", "bandwidth")) < 0.05);
    ck_assert(fabs(r.intra.alpha_ns / 1e3 -
                   (fitted(db, "all_reduce_perf%", "alpha") - 14.0) / 14) <
              1e-3);
    perf_calib_fini(&prof);
    sqlite3_close(db);
    sim_diag_fini(&d);
    cmd = xasprintf("rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(yaml);
    free(rep_path);
}
END_TEST

START_TEST(test_cal_fit_run_no_points)
{
    struct cal_fit_opts o;
    struct sim_diag d;
    sqlite3 *db = NULL;
    char *msg;

    sim_diag_init(&d);
    ck_assert_int_eq(cal_db_open(":memory:", &db, &d), 0);
    memset(&o, 0, sizeof(o));
    o.gpu = "h100";
    o.report = stdout;
    ck_assert_int_eq(cal_fit_run(db, &o, &d), SIM_ENOTFOUND);
    msg = sim_diag_format(&d, 0);
    ck_assert_str_eq(msg, "error: no points for GPU kind 'h100' (import "
                          "logs with --gpu h100 first)");
    free(msg);
    sqlite3_close(db);
    sim_diag_fini(&d);
}
END_TEST

static Suite *fit_suite(void)
{
    Suite *s = suite_create("calib_fit");
    TCase *tc = tcase_create("cal_fit");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_cal_fit_alpha_beta_recovers);
    tcase_add_test(tc, test_cal_fit_alpha_beta_rejects);
    tcase_add_test(tc, test_cal_fit_gemm_recovers);
    tcase_add_test(tc, test_cal_fit_gemm_holds_memory);
    tcase_add_test(tc, test_cal_fit_gemm_out_of_range);
    tcase_add_test(tc, test_cal_fit_run_profile_round_trip);
    tcase_add_test(tc, test_cal_fit_run_no_points);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fit_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
