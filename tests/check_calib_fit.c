/* Check suite for calib/nls.c and calib/fit.c: the fits recover known
 * parameters from synthetic data with Gaussian noise (GSL, fixed seed)
 * within a few standard errors, their covariances match the spread of
 * repeated fits, and the profile they write loads back with
 * perf_calib_load() to the same numbers and standard errors. */
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
     * (docs/sources.md §2.3), 8 B .. 1 GiB by 2. */
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

/* Empirical standard deviations and correlation of parameters 0 and 1 of
 * nrep fits, against the fits' mean standard errors and correlation. */
struct spread {
    double sum[2], sq[2], cross, se[2], r;
    int n;
};

static void spread_add(struct spread *s, const struct cal_fit *f)
{
    for (int j = 0; j < 2; j++) {
        s->sum[j] += f->p[j];
        s->sq[j] += f->p[j] * f->p[j];
        s->se[j] += f->se[j];
    }
    s->cross += f->p[0] * f->p[1];
    s->r += cal_fit_corr(f, 0, 1);
    s->n++;
}

static void spread_check(const struct spread *s)
{
    double m[2], sd[2], r;

    for (int j = 0; j < 2; j++) {
        m[j] = s->sum[j] / s->n;
        sd[j] = sqrt(s->sq[j] / s->n - m[j] * m[j]);
        /* 1000 fits: the empirical sd is within about 2.2 % (1 sigma). */
        ck_assert_msg(fabs(sd[j] / (s->se[j] / s->n) - 1) < 0.1,
                      "parameter %d: spread %g, mean standard error %g", j,
                      sd[j], s->se[j] / s->n);
    }
    r = (s->cross / s->n - m[0] * m[1]) / (sd[0] * sd[1]);
    ck_assert_msg(fabs(r - s->r / s->n) < 0.08,
                  "correlation: of the fits %g, reported %g", r, s->r / s->n);
}

START_TEST(test_cal_fit_alpha_beta_covariance)
{
    /* A PCIe copy, 4 KiB .. 1 GiB by 4: 9 us, 55 GB/s. The covariance of
     * alpha and B (converted from alpha and 1/B by the delta method) is
     * the spread of 1000 fits to fresh noise. */
    double x[10], t[10];
    struct spread sp;
    struct cal_fit f;
    int n = 0;

    memset(&sp, 0, sizeof(sp));
    for (double s = 4096; s <= 1073741824.0; s *= 4)
        x[n++] = s;
    for (int rep = 0; rep < 1000; rep++) {
        for (int i = 0; i < n; i++)
            t[i] = noisy(9.0 + x[i] / (55.0 * 1e3));
        ck_assert_int_eq(cal_fit_alpha_beta(x, t, n, &f), 0);
        for (int i = 0; i < 2; i++) {
            ck_assert(fabs(f.cov[i][i] - f.se[i] * f.se[i]) <=
                      1e-12 * f.cov[i][i]);
            ck_assert(f.cov[0][1] == f.cov[1][0]);
        }
        spread_add(&sp, &f);
    }
    spread_check(&sp);
    /* A larger alpha goes with a larger B when fitting the same times. */
    ck_assert(sp.r / sp.n > 0.1);
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
    /* H200 peaks (docs/sources.md §1.1); truth 0.78 (DeepGEMM's anchor, §1.3),
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
    /* The held parameter has no error and no covariance. */
    for (int j = 0; j < 4; j++) {
        ck_assert(f.cov[2][j] == 0 && f.cov[j][2] == 0);
        ck_assert(cal_fit_corr(&f, 2, j) == 0);
    }
    ck_assert(f.se[2] == 0);
}
END_TEST

START_TEST(test_cal_fit_gemm_covariance)
{
    /* The spread of efficiency_max and half_tokens over 1000 fits of
     * compute-bound shapes (HBM held) against their reported errors. */
    const double truth[4] = {0.75, 80, 0.8, 4};
    double m[16], n[16], k[16], t[16];
    struct spread sp;
    struct cal_fit f;

    memset(&sp, 0, sizeof(sp));
    for (int i = 0; i < 16; i++) {
        m[i] = 64 << (i % 8);
        n[i] = i < 8 ? 8192 : 28672;
        k[i] = 8192;
    }
    for (int rep = 0; rep < 1000; rep++) {
        for (int i = 0; i < 16; i++)
            t[i] = noisy(cal_gemm_model_us(truth, m[i], n[i], k[i], 2, 989.4e12,
                                           4.8e12));
        ck_assert_int_eq(
            cal_fit_gemm(m, n, k, t, 16, 2, 989.4e12, 4.8e12, 1, 0.8, &f), 0);
        spread_add(&sp, &f);
    }
    spread_check(&sp);
    /* A higher asymptote goes with a slower rise. */
    ck_assert(sp.r / sp.n > 0.3);
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

/* The stderr column of the fits table for a subject and parameter. */
static double fitted_se(sqlite3 *db, const char *subject_like,
                        const char *param)
{
    sqlite3_stmt *s = NULL;
    double v = NAN;

    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT stderr FROM fits WHERE subject"
                                        " LIKE ?1 AND param = ?2",
                                        -1, &s, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(s, 1, subject_like, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, param, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW &&
        sqlite3_column_type(s, 0) != SQLITE_NULL)
        v = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* The loaded standard error of key in u (plain unit), or NAN. */
static double loaded_se(const struct perf_calib_unc *u, const char *key)
{
    for (int i = 0; i < u->nstd_errors; i++)
        if (strcmp(u->std_errors[i].key, key) == 0)
            return u->std_errors[i].se;
    return NAN;
}

/* The loaded correlation of keys a and b in u, or NAN. */
static double loaded_r(const struct perf_calib_unc *u, const char *a,
                       const char *b)
{
    for (int i = 0; i < u->ncorrelation; i++) {
        const struct perf_calib_corr *r = &u->correlation[i];
        if ((strcmp(r->a, a) == 0 && strcmp(r->b, b) == 0) ||
            (strcmp(r->a, b) == 0 && strcmp(r->b, a) == 0))
            return r->r;
    }
    return NAN;
}

/* A loaded standard error equals the fitted one: to 1e-6 relative, or for
 * a duration (seconds) to the nanosecond the profile holds. */
static void same_se(const struct perf_calib_unc *u, const char *key,
                    double want, int duration)
{
    double got = loaded_se(u, key);
    double tol = duration ? 0.5e-9 + 1e-15 : 1e-6 * want;

    ck_assert_msg(want > 0 && fabs(got - want) <= tol,
                  "%s: standard error %.9g loaded, %.9g fitted", key, got,
                  want);
}

/* Every correlation of u lies in [-1, 1] between two keys with errors,
 * and the entry has a fit note. */
static void sane_unc(const struct perf_calib_unc *u)
{
    ck_assert_ptr_nonnull(u->fit);
    ck_assert_int_eq(strncmp(u->fit, "dsec-calib ", 11), 0);
    for (int i = 0; i < u->ncorrelation; i++) {
        const struct perf_calib_corr *r = &u->correlation[i];
        ck_assert(r->r >= -1 && r->r <= 1);
        ck_assert(!isnan(loaded_se(u, r->a)) && !isnan(loaded_se(u, r->b)));
    }
}

/* The link entry name of c, or NULL. */
static const struct perf_calib_link *link_of(const struct perf_calib *c,
                                             const char *name)
{
    for (int i = 0; i < c->nlinks; i++)
        if (strcmp(c->links[i].name, name) == 0)
            return &c->links[i];
    return NULL;
}

/* The whole report file at path (caller frees). */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *buf = xcalloc(1 << 16, 1);

    ck_assert_ptr_nonnull(fp);
    ck_assert(fread(buf, 1, (1 << 16) - 1, fp) > 0);
    fclose(fp);
    return buf;
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
    /* The standard errors of every fitted key, in the profile's units:
     * fractions, tokens, seconds; the link's efficiency is B / nominal, so
     * its error is se(B) / nominal, and the per-step alpha's se(alpha) /
     * 14 steps. */
    {
        const struct perf_calib_gpu *ge = perf_calib_find_gpu(&prof, "h200");
        const struct perf_calib_link *le = link_of(&prof, "nvlink4");
        const struct perf_calib_unc *u;
        double nominal = net_link_find("nvlink4")->bytes_per_s;

        ck_assert_ptr_nonnull(ge);
        ck_assert_ptr_nonnull(le);
        u = &ge->unc;
        sane_unc(u);
        ck_assert_int_eq(u->nstd_errors, 6);
        same_se(u, "gemm.efficiency_max",
                fitted_se(db, "gemm bf16", "efficiency_max"), 0);
        same_se(u, "gemm.half_tokens",
                fitted_se(db, "gemm bf16", "half_tokens"), 0);
        same_se(u, "gemm.kernel_time",
                fitted_se(db, "gemm bf16", "kernel_time") * 1e-6, 1);
        same_se(u, "elementwise.hbm_efficiency",
                fitted_se(db, "%hbm copy", "bandwidth") * 1e9 /
                    g->hbm_bytes_per_s,
                0);
        same_se(u, "elementwise.kernel_time",
                fitted_se(db, "%hbm copy", "alpha") * 1e-6, 1);
        /* One GEMM shape family: the fit holds the HBM fraction at the
         * copy's (no error in the fits table), so the profile's
         * gemm.hbm_efficiency is that value, with its error and
         * correlation 1; the GEMM's free keys correlate among themselves,
         * not with the copy's. */
        ck_assert(isnan(fitted_se(db, "gemm bf16", "hbm_efficiency")));
        same_se(u, "gemm.hbm_efficiency",
                loaded_se(u, "elementwise.hbm_efficiency"), 0);
        ck_assert(loaded_r(u, "gemm.hbm_efficiency",
                           "elementwise.hbm_efficiency") == 1);
        ck_assert(
            loaded_r(u, "gemm.hbm_efficiency", "elementwise.kernel_time") ==
            loaded_r(u, "elementwise.hbm_efficiency",
                     "elementwise.kernel_time"));
        ck_assert(!isnan(loaded_r(u, "elementwise.hbm_efficiency",
                                  "elementwise.kernel_time")));
        ck_assert(loaded_r(u, "gemm.efficiency_max", "gemm.half_tokens") > 0);
        ck_assert(
            isnan(loaded_r(u, "gemm.hbm_efficiency", "gemm.half_tokens")));
        ck_assert(isnan(
            loaded_r(u, "gemm.efficiency_max", "elementwise.hbm_efficiency")));
        ck_assert_ptr_nonnull(strstr(u->fit, "gemm.hbm_efficiency is held"));
        u = &le->unc;
        sane_unc(u);
        ck_assert_int_eq(u->nstd_errors, 2);
        same_se(u, "efficiency",
                fitted_se(db, "all_reduce_perf%", "bandwidth") * 1e9 / nominal,
                0);
        same_se(u, "alpha", fitted_se(db, "all_reduce_perf%", "alpha") / 14e6,
                1);
        ck_assert_ptr_nonnull(strstr(u->fit, "nccl-tests all_reduce_perf"));
        ck_assert_ptr_nonnull(strstr(u->fit, ", 11 points"));
    }
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

/* Fits the points of db for h200 into DIR/p.yaml with the report in
 * DIR/report.txt, and loads the profile into prof. Returns the report
 * (caller frees). */
static char *fit_and_load(sqlite3 *db, const char *dir, struct perf_calib *prof)
{
    char *yaml = xasprintf("%s/p.yaml", dir);
    char *rep_path = xasprintf("%s/report.txt", dir), *text;
    struct cal_fit_opts o;
    struct sim_diag d;
    FILE *rep;

    sim_diag_init(&d);
    memset(&o, 0, sizeof(o));
    o.gpu = "h200";
    o.out_yaml = yaml;
    rep = fopen(rep_path, "w");
    ck_assert_ptr_nonnull(rep);
    o.report = rep;
    ck_assert_int_eq(cal_fit_run(db, &o, &d), 0);
    fclose(rep);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    ck_assert_int_eq(perf_calib_load(yaml, prof, &d), 0);
    text = slurp(rep_path);
    sim_diag_fini(&d);
    free(yaml);
    free(rep_path);
    return text;
}

static void rm_dir(const char *dir)
{
    char *cmd = xasprintf("rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
}

START_TEST(test_cal_fit_run_profile_clamped)
{
    /* An HBM stream above the datasheet peak with a negative alpha (5000
     * GB/s over 4800, -1 us), and an all-reduce faster than the wire with
     * an alpha under NCCL's 14 us base latency (480 GB/s bus bandwidth
     * over NVLink4's 450, 10 us): the profile gives 1, 0, the measured
     * bandwidth with efficiency 1 and a per-step alpha of 0, the report
     * says so, and the errors are the fits'. */
    char dir[] = "/tmp/check_calib_fit_XXXXXX", *text;
    const struct gpu_spec *g = gpu_find("h200");
    struct perf_calib prof;
    struct perf_gpu_calib r;
    struct cal_point p;
    struct sim_diag d;
    sqlite3 *db = NULL;
    const struct perf_calib_link *le;
    const struct perf_calib_gpu *ge;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    sim_diag_init(&d);
    ck_assert_int_eq(cal_db_open(":memory:", &db, &d), 0);
    for (double s = 1 << 20; s <= 4294967296.0; s *= 4) {
        cal_point_clear(&p);
        p.tool = "dsec-calib";
        p.file = "synthetic";
        p.benchmark = "hbm";
        p.op = "copy";
        p.size_bytes = 2 * s;
        p.time_us = noisy(-1 + 2 * s / (5000.0 * 1e3));
        p.gpu = "h200";
        add(db, &p);
    }
    for (double s = 1024; s <= 1073741824.0; s *= 4) {
        double f = 2.0 * 7 / 8, tt = noisy(10.0 + s * f / (480.0 * 1e3));

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
        add(db, &p);
    }
    text = fit_and_load(db, dir, &prof);
    ck_assert_msg(strstr(text, "profile: elementwise.hbm_efficiency: fitted "
                               "1.03") != NULL &&
                      strstr(text, "written clamped to 1; its standard "
                                   "error is the fit's") != NULL,
                  "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "profile: elementwise.kernel_time: "
                                       "fitted -0.9"));
    ck_assert_ptr_nonnull(strstr(text, "profile: links.nvlink4.alpha: fitted "
                                       "-0.2"));
    ck_assert_ptr_nonnull(
        strstr(text, "is above the nominal 450.00 GB/s: written as the "
                     "bandwidth with efficiency 1"));
    perf_calib_resolve(&prof, g, &r);
    ck_assert(r.elem_eff_memory == 1 && r.elem_kernel_ns == 0);
    ck_assert(r.intra.efficiency == 1 && r.intra.alpha_ns == 0);
    ck_assert(fabs(r.intra.bytes_per_s / 1e9 -
                   fitted(db, "all_reduce_perf%", "bandwidth")) < 1e-3);
    ge = perf_calib_find_gpu(&prof, "h200");
    ck_assert_ptr_nonnull(ge);
    sane_unc(&ge->unc);
    same_se(&ge->unc, "elementwise.hbm_efficiency",
            fitted_se(db, "%hbm copy", "bandwidth") * 1e9 / g->hbm_bytes_per_s,
            0);
    same_se(&ge->unc, "elementwise.kernel_time",
            fitted_se(db, "%hbm copy", "alpha") * 1e-6, 1);
    le = link_of(&prof, "nvlink4");
    ck_assert_ptr_nonnull(le);
    sane_unc(&le->unc);
    ck_assert_int_eq(le->unc.nstd_errors, 2);
    /* Above the nominal rate the error is on the bandwidth (B/s), and the
     * efficiency of 1 is exact. */
    same_se(&le->unc, "bandwidth",
            fitted_se(db, "all_reduce_perf%", "bandwidth") * 1e9, 0);
    same_se(&le->unc, "alpha",
            fitted_se(db, "all_reduce_perf%", "alpha") / 14e6, 1);
    ck_assert(isnan(loaded_se(&le->unc, "efficiency")));
    free(text);
    perf_calib_fini(&prof);
    sqlite3_close(db);
    sim_diag_fini(&d);
    rm_dir(dir);
}
END_TEST

START_TEST(test_cal_fit_run_profile_free_hbm)
{
    /* Four Llama-3.1-8B projections, 1..8192 tokens (decode shapes are
     * memory-bound): the GEMM's HBM fraction is fitted, so all four GEMM
     * keys carry the GEMM fit's errors and correlations, independent of
     * the HBM copy's. */
    static const double nk[4][2] = {
        {6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}};
    static const char *const keys[] = {"efficiency_max", "half_tokens",
                                       "hbm_efficiency", "kernel_time"};
    const double truth[4] = {0.78, 60, 0.85, 5};
    char dir[] = "/tmp/check_calib_fit_XXXXXX", *text;
    const struct gpu_spec *g = gpu_find("h200");
    struct perf_calib prof;
    struct cal_point p;
    struct sim_diag d;
    sqlite3 *db = NULL;
    const struct perf_calib_gpu *ge;
    const struct perf_calib_unc *u;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    sim_diag_init(&d);
    ck_assert_int_eq(cal_db_open(":memory:", &db, &d), 0);
    for (int i = 0; i < 4; i++)
        for (double mm = 1; mm <= 8192; mm *= 2) {
            cal_point_clear(&p);
            p.tool = "dsec-calib";
            p.file = "synthetic";
            p.benchmark = "gemm";
            p.op = "gemm";
            p.dtype = "bf16";
            p.m = mm;
            p.n = nk[i][0];
            p.k = nk[i][1];
            p.time_us = noisy(cal_gemm_model_us(
                truth, mm, p.n, p.k, 2, g->flops_bf16, g->hbm_bytes_per_s));
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
        p.gpu = "h200";
        add(db, &p);
    }
    text = fit_and_load(db, dir, &prof);
    ck_assert_msg(strstr(text, "(held)") == NULL, "%s", text);
    ge = perf_calib_find_gpu(&prof, "h200");
    ck_assert_ptr_nonnull(ge);
    u = &ge->unc;
    sane_unc(u);
    ck_assert_int_eq(u->nstd_errors, 6);
    for (int j = 0; j < 4; j++) {
        char key[64];

        snprintf(key, sizeof(key), "gemm.%s", keys[j]);
        same_se(u, key,
                fitted_se(db, "gemm bf16", keys[j]) * (j == 3 ? 1e-6 : 1),
                j == 3);
        ck_assert(isnan(loaded_r(u, key, "elementwise.hbm_efficiency")));
    }
    ck_assert(!isnan(loaded_r(u, "gemm.hbm_efficiency", "gemm.half_tokens")));
    ck_assert(!isnan(loaded_r(u, "gemm.efficiency_max", "gemm.half_tokens")));
    ck_assert_ptr_null(strstr(u->fit, "held"));
    ck_assert_ptr_nonnull(strstr(u->fit, "gemm bf16, 56 shapes (gemm)"));
    free(text);
    perf_calib_fini(&prof);
    sqlite3_close(db);
    sim_diag_fini(&d);
    rm_dir(dir);
}
END_TEST

START_TEST(test_perf_calib_load_without_uncertainty)
{
    /* A profile written before uncertainty existed still loads, with no
     * errors and nothing to draw. */
    static const char text[] =
        "format: 1\nprovenance: {tool: dsec-calib 0.1.0, date: 2026-11-28}\n"
        "gpus:\n  h200:\n    gemm: {efficiency_max: 0.7855, kernel_time: "
        "4.945us}\nlinks:\n  nvlink4: {alpha: 0.7090us, bandwidth: "
        "450.000GB/s, efficiency: 0.8290}  # from all_reduce_perf\n";
    static struct perf_calib_dist dist;
    struct perf_calib prof;
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(
        perf_calib_load_string("old.yaml", text, strlen(text), &prof, &d), 0);
    ck_assert_int_eq(perf_calib_find_gpu(&prof, "h200")->unc.nstd_errors, 0);
    ck_assert_int_eq(link_of(&prof, "nvlink4")->unc.nstd_errors, 0);
    ck_assert_int_eq(perf_calib_dist_init(&prof, "h200", &dist), 0);
    perf_calib_fini(&prof);
    sim_diag_fini(&d);
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
    tcase_add_test(tc, test_cal_fit_alpha_beta_covariance);
    tcase_add_test(tc, test_cal_fit_alpha_beta_rejects);
    tcase_add_test(tc, test_cal_fit_gemm_recovers);
    tcase_add_test(tc, test_cal_fit_gemm_holds_memory);
    tcase_add_test(tc, test_cal_fit_gemm_covariance);
    tcase_add_test(tc, test_cal_fit_gemm_out_of_range);
    tcase_add_test(tc, test_cal_fit_run_profile_round_trip);
    tcase_add_test(tc, test_cal_fit_run_profile_clamped);
    tcase_add_test(tc, test_cal_fit_run_profile_free_hbm);
    tcase_add_test(tc, test_perf_calib_load_without_uncertainty);
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
