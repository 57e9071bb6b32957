/* Check suite for sim/stats.c: Welford against a two-pass computation, the
 * histogram's quantiles against exact order statistics of sorted samples,
 * hand-computed time averages, and the coverage of batch-means intervals on
 * an AR(1) process. Every random input comes from a fixed-seed gsl_rng. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/errors.h"
#include "sim/stats.h"

#define NSAMP 100000

static gsl_rng *rng;
/* Static: each histogram is about 57 KiB. */
static struct sim_hist ha, hb, hc;
static double xs[NSAMP];
static int64_t vs[NSAMP];

static void setup(void)
{
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20240601);
    sim_hist_init(&ha);
    sim_hist_init(&hb);
    sim_hist_init(&hc);
}

static void teardown(void)
{
    gsl_rng_free(rng);
    rng = NULL;
}

static int close_rel(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

START_TEST(test_sim_welford_add_matches_two_pass)
{
    struct sim_welford w;
    double sum = 0.0, ss = 0.0, mean, var, lo = INFINITY, hi = -INFINITY;

    /* A large mean against a small spread defeats the one-pass sum of
     * squares; Welford must still agree with two passes. */
    sim_welford_init(&w);
    for (int i = 0; i < NSAMP; i++) {
        xs[i] = 1e9 + 1e3 * gsl_ran_gaussian(rng, 1.0);
        sim_welford_add(&w, xs[i]);
    }
    for (int i = 0; i < NSAMP; i++) {
        sum += xs[i];
        lo = xs[i] < lo ? xs[i] : lo;
        hi = xs[i] > hi ? xs[i] : hi;
    }
    mean = sum / NSAMP;
    for (int i = 0; i < NSAMP; i++)
        ss += (xs[i] - mean) * (xs[i] - mean);
    var = ss / (NSAMP - 1);

    ck_assert_uint_eq(w.n, NSAMP);
    ck_assert(close_rel(sim_welford_mean(&w), mean, 1e-12));
    ck_assert(close_rel(sim_welford_var(&w), var, 1e-8));
    ck_assert(close_rel(sim_welford_sd(&w), sqrt(var), 1e-8));
    ck_assert(w.min == lo && w.max == hi);
}
END_TEST

START_TEST(test_sim_welford_var_few_samples)
{
    struct sim_welford w;

    sim_welford_init(&w);
    ck_assert(isnan(sim_welford_mean(&w)));
    ck_assert(isnan(sim_welford_var(&w)));
    sim_welford_add(&w, 3.0);
    ck_assert(sim_welford_mean(&w) == 3.0);
    ck_assert(isnan(sim_welford_var(&w)));
    ck_assert(isnan(sim_welford_sd(&w)));
    sim_welford_add(&w, 5.0);
    ck_assert(sim_welford_var(&w) == 2.0);
}
END_TEST

START_TEST(test_sim_welford_merge_equals_sequential)
{
    struct sim_welford all, a, b, c, empty;
    const int cut1 = 7, cut2 = 61234;

    sim_welford_init(&all);
    sim_welford_init(&a);
    sim_welford_init(&b);
    sim_welford_init(&c);
    sim_welford_init(&empty);
    for (int i = 0; i < NSAMP; i++) {
        /* Parts with different means exercise the cross term. */
        double x = gsl_ran_exponential(rng, i < cut2 ? 2.0 : 50.0);
        sim_welford_add(&all, x);
        sim_welford_add(i < cut1 ? &a : i < cut2 ? &b : &c, x);
    }
    sim_welford_merge(&a, &b);
    sim_welford_merge(&a, &c);
    sim_welford_merge(&a, &empty);
    ck_assert_uint_eq(a.n, all.n);
    ck_assert(close_rel(a.mean, all.mean, 1e-12));
    ck_assert(close_rel(sim_welford_var(&a), sim_welford_var(&all), 1e-10));
    ck_assert(a.min == all.min && a.max == all.max);

    sim_welford_merge(&empty, &all);
    ck_assert_uint_eq(empty.n, all.n);
    ck_assert(empty.mean == all.mean && empty.m2 == all.m2);

    /* Merging with itself doubles every sample: same mean, n doubles. */
    sim_welford_merge(&empty, &empty);
    ck_assert_uint_eq(empty.n, 2 * all.n);
    ck_assert(close_rel(empty.mean, all.mean, 1e-12));
    ck_assert(close_rel(empty.m2, 2 * all.m2, 1e-12));
}
END_TEST

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The order statistic sim_hist_quantile() estimates, from sorted v. */
static int64_t exact_quantile(const int64_t *v, size_t n, double q)
{
    double r = ceil(q * (double)n);
    size_t rank = r < 1.0 ? 1 : r >= (double)n ? n : (size_t)r;
    return v[rank - 1];
}

/* Records vs[0..NSAMP) in ha, then checks each quantile of qs against the
 * sorted samples: within 1% as asked, and within the documented 1/256. */
static void check_quantiles(const double *qs, size_t nq)
{
    for (int i = 0; i < NSAMP; i++) {
        ck_assert(vs[i] >= 0);
        sim_hist_add(&ha, vs[i]);
    }
    qsort(vs, NSAMP, sizeof vs[0], cmp_i64);
    ck_assert_uint_eq(sim_hist_count(&ha), NSAMP);
    ck_assert_int_eq(sim_hist_min(&ha), vs[0]);
    ck_assert_int_eq(sim_hist_max(&ha), vs[NSAMP - 1]);
    ck_assert(sim_hist_quantile(&ha, 0.0) == (double)vs[0]);
    ck_assert(sim_hist_quantile(&ha, 1.0) == (double)vs[NSAMP - 1]);
    for (size_t j = 0; j < nq; j++) {
        double want = (double)exact_quantile(vs, NSAMP, qs[j]);
        double got = sim_hist_quantile(&ha, qs[j]);
        ck_assert_msg(fabs(got - want) <= 0.01 * want,
                      "q=%g: got %.17g, want %.17g", qs[j], got, want);
        ck_assert_msg(fabs(got - want) <= want / 256.0,
                      "q=%g: got %.17g, want %.17g beyond 1/256", qs[j], got,
                      want);
    }
}

static const double std_qs[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999};
#define NSTD (sizeof std_qs / sizeof std_qs[0])

START_TEST(test_sim_hist_quantile_uniform)
{
    /* 0 to one hour in ns. */
    for (int i = 0; i < NSAMP; i++)
        vs[i] = (int64_t)llround(gsl_rng_uniform(rng) * 3.6e12);
    check_quantiles(std_qs, NSTD);
}
END_TEST

START_TEST(test_sim_hist_quantile_exponential)
{
    /* Mean 1 s: the smallest samples are tens of ns, the largest ~10 s. */
    for (int i = 0; i < NSAMP; i++)
        vs[i] = (int64_t)llround(gsl_ran_exponential(rng, 1e9));
    check_quantiles(std_qs, NSTD);
}
END_TEST

START_TEST(test_sim_hist_quantile_lognormal)
{
    double fine[1001];

    /* Median 1 ms, sigma 4: from 0 ns to hours. Every 0.1% quantile is
     * checked, so the exact low range and many octaves are crossed. */
    for (int i = 0; i < NSAMP; i++)
        vs[i] = (int64_t)llround(gsl_ran_lognormal(rng, log(1e6), 4.0));
    for (int j = 0; j <= 1000; j++)
        fine[j] = j / 1000.0;
    check_quantiles(fine, 1001);
    ck_assert(vs[0] < 256);
    ck_assert(vs[NSAMP - 1] > INT64_C(3600000000000));
    /* The brief's list too, on the same data. */
    for (size_t j = 0; j < NSTD; j++) {
        double want = (double)exact_quantile(vs, NSAMP, std_qs[j]);
        ck_assert(fabs(sim_hist_quantile(&ha, std_qs[j]) - want) <=
                  0.01 * want);
    }
}
END_TEST

START_TEST(test_sim_hist_quantile_empty_nan)
{
    ck_assert(isnan(sim_hist_quantile(&ha, 0.5)));
    ck_assert_uint_eq(sim_hist_count(&ha), 0);
    ck_assert_int_eq(sim_hist_min(&ha), 0);
    ck_assert_int_eq(sim_hist_max(&ha), 0);
    sim_hist_add(&ha, 1000);
    ck_assert(isnan(sim_hist_quantile(&ha, NAN)));
    /* Out-of-range q is clamped. */
    ck_assert(sim_hist_quantile(&ha, -1.0) == 1000.0);
    ck_assert(sim_hist_quantile(&ha, 2.0) == 1000.0);
    /* A single value: every quantile is that value (midpoint clamped). */
    ck_assert(sim_hist_quantile(&ha, 0.5) == 1000.0);
}
END_TEST

START_TEST(test_sim_hist_quantile_exact_small)
{
    /* Below 256 every value has its own bucket. */
    for (int64_t v = 0; v < 256; v++)
        sim_hist_add_n(&ha, v, 2);
    for (int j = 1; j <= 100; j++) {
        double q = j / 100.0;
        double r = ceil(q * 512.0);
        ck_assert(sim_hist_quantile(&ha, q) == floor((r - 1.0) / 2.0));
    }
}
END_TEST

START_TEST(test_sim_hist_add_zero)
{
    sim_hist_add(&ha, 0);
    sim_hist_add(&ha, 0);
    sim_hist_add(&ha, 5);
    ck_assert_int_eq(sim_hist_min(&ha), 0);
    ck_assert(sim_hist_quantile(&ha, 0.5) == 0.0);
    ck_assert(sim_hist_quantile(&ha, 0.66) == 0.0);
    ck_assert(sim_hist_quantile(&ha, 0.67) == 5.0);
}
END_TEST

START_TEST(test_sim_hist_add_huge)
{
    const int64_t p62 = INT64_C(1) << 62;

    sim_hist_add(&ha, INT64_MAX);
    sim_hist_add(&ha, p62);
    sim_hist_add(&ha, p62 + 12345);
    sim_hist_add(&ha, 1);
    ck_assert_int_eq(sim_hist_max(&ha), INT64_MAX);
    ck_assert_int_eq(sim_hist_min(&ha), 1);
    ck_assert(sim_hist_quantile(&ha, 1.0) == (double)INT64_MAX);
    ck_assert(close_rel(sim_hist_quantile(&ha, 0.5), (double)p62, 0.01));
    ck_assert(close_rel(sim_hist_quantile(&ha, 0.75), (double)p62, 0.01));
    ck_assert(close_rel(sim_hist_quantile(&ha, 0.9), (double)INT64_MAX, 0.01));
    ck_assert(sim_hist_quantile(&ha, 0.25) == 1.0);
    /* The last counter is in use; reset must clear it. */
    ck_assert_uint_eq(ha.counts[SIM_HIST_BUCKETS - 1], 1);
    sim_hist_reset(&ha);
    ck_assert_uint_eq(ha.counts[SIM_HIST_BUCKETS - 1], 0);
}
END_TEST

START_TEST(test_sim_hist_add_n_equals_repeated)
{
    for (int i = 0; i < 1000; i++) {
        int64_t v = (int64_t)gsl_rng_uniform_int(rng, 1000000);
        uint64_t c = gsl_rng_uniform_int(rng, 5);
        sim_hist_add_n(&ha, v, c);
        for (uint64_t j = 0; j < c; j++)
            sim_hist_add(&hb, v);
    }
    ck_assert_uint_eq(ha.n, hb.n);
    ck_assert_int_eq(ha.min, hb.min);
    ck_assert_int_eq(ha.max, hb.max);
    ck_assert(memcmp(ha.counts, hb.counts, sizeof ha.counts) == 0);
    /* count 0 records nothing, not even min and max. */
    sim_hist_add_n(&hc, 7, 0);
    ck_assert_uint_eq(sim_hist_count(&hc), 0);
    ck_assert_int_eq(hc.max, -1);
}
END_TEST

/* One run list (sim_hist_runs()) added to two histograms with different
 * counts (sim_hist_add_runs()) records what sim_hist_add_n() of each value
 * does: slowly growing values (one run a bucket), random ones and a zero;
 * count 0 and no runs record nothing. */
START_TEST(test_sim_hist_add_runs_equals_add_n)
{
    int64_t v[300], lo, hi;
    struct sim_hist_run run[300];
    size_t n = 0, nrun;

    for (int i = 0; i < 200; i++)
        v[n++] = 30000000 + 997 * i;
    for (int i = 0; i < 99; i++)
        v[n++] = (int64_t)gsl_rng_uniform_int(rng, 1000000);
    v[n++] = 0;
    nrun = sim_hist_runs(v, n, run, &lo, &hi);
    ck_assert_uint_lt(nrun, n);
    ck_assert_int_eq(lo, 0);
    sim_hist_add_runs(&ha, run, nrun, lo, hi, 3);
    sim_hist_add_runs(&hc, run, nrun, lo, hi, 7);
    sim_hist_add_runs(&hc, run, nrun, lo, hi, 0);
    sim_hist_add_runs(&hc, run, 0, lo, hi, 4);
    for (size_t i = 0; i < n; i++)
        sim_hist_add_n(&hb, v[i], 3);
    ck_assert_uint_eq(ha.n, hb.n);
    ck_assert_int_eq(ha.min, hb.min);
    ck_assert_int_eq(ha.max, hb.max);
    ck_assert(memcmp(ha.counts, hb.counts, sizeof ha.counts) == 0);
    sim_hist_reset(&hb);
    for (size_t i = 0; i < n; i++)
        sim_hist_add_n(&hb, v[i], 7);
    ck_assert_uint_eq(hc.n, hb.n);
    ck_assert_int_eq(hc.max, hb.max);
    ck_assert(memcmp(hc.counts, hb.counts, sizeof hc.counts) == 0);
}
END_TEST

/* Values in one bucket, in no order, are one run (found from their
 * extremes alone); one value more in the next bucket makes two runs or
 * three, as it falls. Each records what sim_hist_add_n() does. */
START_TEST(test_sim_hist_runs_one_bucket)
{
    /* Bucket width 2^18 ns for values in [2^25, 2^26). */
    int64_t v[65], lo, hi, base = INT64_C(1) << 25;
    struct sim_hist_run run[65];
    size_t nrun;

    for (int i = 0; i < 64; i++)
        v[i] = base + (int64_t)gsl_rng_uniform_int(rng, 1 << 18);
    nrun = sim_hist_runs(v, 64, run, &lo, &hi);
    ck_assert_uint_eq(nrun, 1);
    ck_assert_uint_eq(run[0].len, 64);
    sim_hist_add_runs(&ha, run, nrun, lo, hi, 5);
    for (int i = 0; i < 64; i++)
        sim_hist_add_n(&hb, v[i], 5);
    v[64] = v[10];
    v[10] = base + (1 << 18); /* the next bucket, mid-run */
    nrun = sim_hist_runs(v, 65, run, &lo, &hi);
    ck_assert_uint_eq(nrun, 3);
    ck_assert_int_eq(hi, base + (1 << 18));
    sim_hist_add_runs(&ha, run, nrun, lo, hi, 2);
    for (int i = 0; i < 65; i++)
        sim_hist_add_n(&hb, v[i], 2);
    ck_assert_uint_eq(ha.n, hb.n);
    ck_assert_int_eq(ha.min, hb.min);
    ck_assert_int_eq(ha.max, hb.max);
    ck_assert(memcmp(ha.counts, hb.counts, sizeof ha.counts) == 0);
}
END_TEST

START_TEST(test_sim_hist_reset_empties)
{
    for (int i = 0; i < 10000; i++)
        sim_hist_add(&ha,
                     (int64_t)llround(gsl_ran_lognormal(rng, log(1e6), 3.0)));
    sim_hist_reset(&ha);
    ck_assert_uint_eq(sim_hist_count(&ha), 0);
    ck_assert(isnan(sim_hist_quantile(&ha, 0.5)));
    /* Same bytes as a fresh histogram, so the cheap clear missed nothing. */
    ck_assert(memcmp(&ha, &hb, sizeof ha) == 0);
    sim_hist_reset(&ha);
    sim_hist_add(&ha, 42);
    ck_assert(sim_hist_quantile(&ha, 0.5) == 42.0);
    ck_assert_int_eq(sim_hist_min(&ha), 42);
}
END_TEST

START_TEST(test_sim_hist_merge_equals_sequential)
{
    for (int i = 0; i < NSAMP; i++) {
        int64_t v = (int64_t)llround(gsl_ran_exponential(rng, 1e6));
        sim_hist_add(&hc, v);
        sim_hist_add(i % 3 ? &ha : &hb, v);
    }
    sim_hist_merge(&ha, &hb);
    ck_assert_uint_eq(ha.n, hc.n);
    ck_assert_int_eq(ha.min, hc.min);
    ck_assert_int_eq(ha.max, hc.max);
    ck_assert(memcmp(ha.counts, hc.counts, sizeof ha.counts) == 0);
    for (size_t j = 0; j < NSTD; j++)
        ck_assert(sim_hist_quantile(&ha, std_qs[j]) ==
                  sim_hist_quantile(&hc, std_qs[j]));

    /* Merging an empty histogram changes nothing; into an empty one copies. */
    sim_hist_reset(&hb);
    sim_hist_merge(&ha, &hb);
    ck_assert_uint_eq(ha.n, hc.n);
    sim_hist_merge(&hb, &hc);
    ck_assert(memcmp(&hb, &hc, sizeof hb) == 0);
}
END_TEST

START_TEST(test_sim_tavg_mean_hand_computed)
{
    struct sim_tavg a;
    const int64_t s = INT64_C(1000000000);

    /* 2 for 3 s, then 5 for 1 s: (6 + 5) / 4 = 2.75. */
    sim_tavg_init(&a, 10 * s, 2.0);
    ck_assert(sim_tavg_mean(&a, 10 * s) == 2.0);
    sim_tavg_set(&a, 13 * s, 5.0);
    ck_assert(sim_tavg_value(&a) == 5.0);
    ck_assert(sim_tavg_mean(&a, 14 * s) == 2.75);
    ck_assert(sim_tavg_integral(&a, 14 * s) == 11.0 * 1e9);
    /* Reading does not change the state. */
    ck_assert(sim_tavg_mean(&a, 13 * s) == 2.0);
    /* Several changes at one instant keep only the last. */
    sim_tavg_set(&a, 14 * s, 100.0);
    sim_tavg_set(&a, 14 * s, 1.0);
    ck_assert(sim_tavg_mean(&a, 16 * s) == (11.0 + 2.0) / 6.0);
}
END_TEST

START_TEST(test_sim_tavg_mean_at_t0)
{
    struct sim_tavg a;

    sim_tavg_init(&a, 0, 7.5);
    ck_assert(sim_tavg_mean(&a, 0) == 7.5);
    ck_assert(sim_tavg_integral(&a, 0) == 0.0);
    sim_tavg_set(&a, 0, 3.0);
    ck_assert(sim_tavg_mean(&a, 0) == 3.0);
    ck_assert(sim_tavg_mean(&a, 1000) == 3.0);
}
END_TEST

/* A run of changes set at once: the same bits as each set in turn (values
 * whose areas round, so that another order of the additions would show),
 * with a repeated time, and an empty run that changes nothing. */
START_TEST(test_sim_tavg_set_run_equals_set)
{
    struct sim_tavg a, b;
    int64_t t[500];
    double v[500];
    int64_t now = 1000;

    for (int i = 0; i < 500; i++) {
        now += 1 + (int64_t)(i * 7919 % 100003) * 1000003;
        t[i] = i == 250 ? t[i - 1] : now;
        v[i] = (double)(i % 97) / 97.0 + 1e-3 * i;
    }
    sim_tavg_init(&a, 0, 0.25);
    sim_tavg_init(&b, 0, 0.25);
    sim_tavg_set_run(&a, t, v, 300);
    sim_tavg_set_run(&a, t + 300, v + 300, 0);
    sim_tavg_set_run(&a, t + 300, v + 300, 200);
    for (int i = 0; i < 500; i++)
        sim_tavg_set(&b, t[i], v[i]);
    ck_assert(a.area == b.area);
    ck_assert(a.value == b.value);
    ck_assert_int_eq(a.last_ns, b.last_ns);
    ck_assert(sim_tavg_mean(&a, now + 5) == sim_tavg_mean(&b, now + 5));
}
END_TEST

START_TEST(test_sim_tavg_restart_new_window)
{
    struct sim_tavg a;

    sim_tavg_init(&a, 0, 10.0);
    sim_tavg_set(&a, 100, 4.0);
    /* Warm-up ends at 150: the new window starts with the value 4. */
    sim_tavg_restart(&a, 150);
    ck_assert(sim_tavg_value(&a) == 4.0);
    ck_assert(sim_tavg_mean(&a, 150) == 4.0);
    ck_assert(sim_tavg_integral(&a, 150) == 0.0);
    ck_assert(sim_tavg_mean(&a, 250) == 4.0);
    sim_tavg_set(&a, 200, 0.0);
    /* 4 for 50 ns, then 0 for 150 ns. */
    ck_assert(sim_tavg_mean(&a, 350) == 1.0);
    ck_assert(sim_tavg_integral(&a, 350) == 200.0);
}
END_TEST

START_TEST(test_sim_bmeans_init_range)
{
    struct sim_bmeans b;

    ck_assert_int_eq(sim_bmeans_init(&b, 1), SIM_ERANGE);
    ck_assert_int_eq(sim_bmeans_init(&b, SIM_BMEANS_MAX_BATCHES + 1),
                     SIM_ERANGE);
    ck_assert_int_eq(sim_bmeans_init(&b, 2), 0);
    ck_assert_int_eq(sim_bmeans_init(&b, SIM_BMEANS_MAX_BATCHES), 0);
    ck_assert(isnan(sim_bmeans_mean(&b)));
}
END_TEST

START_TEST(test_sim_bmeans_ci95_few_batches_nan)
{
    struct sim_bmeans b;

    ck_assert_int_eq(sim_bmeans_init(&b, 32), 0);
    ck_assert(isnan(sim_bmeans_ci95(&b)));
    sim_bmeans_add(&b, 1.0);
    ck_assert_uint_eq(sim_bmeans_batches(&b), 1);
    ck_assert(isnan(sim_bmeans_ci95(&b)));
    sim_bmeans_add(&b, 3.0);
    ck_assert_uint_eq(sim_bmeans_batches(&b), 2);
    ck_assert(!isnan(sim_bmeans_ci95(&b)));
}
END_TEST

START_TEST(test_sim_bmeans_ci95_hand_computed)
{
    struct sim_bmeans b;

    /* B = 2: the fourth sample fills 2B = 4 batches of one, which merge
     * into batches {1, 2} and {3, 4} with means 1.5 and 3.5, s = sqrt(2).
     * The fifth sample is an incomplete batch and is left out. */
    ck_assert_int_eq(sim_bmeans_init(&b, 2), 0);
    for (int i = 1; i <= 5; i++)
        sim_bmeans_add(&b, (double)i);
    ck_assert_uint_eq(sim_bmeans_batches(&b), 2);
    ck_assert(sim_bmeans_mean(&b) == 3.0);
    ck_assert(close_rel(sim_bmeans_ci95(&b),
                        gsl_cdf_tdist_Pinv(0.975, 1.0) * sqrt(2.0) / sqrt(2.0),
                        1e-12));
}
END_TEST

START_TEST(test_sim_bmeans_batches_bounds)
{
    struct sim_bmeans b;
    const size_t nb = 32;

    ck_assert_int_eq(sim_bmeans_init(&b, nb), 0);
    for (size_t n = 1; n <= 100000; n++) {
        size_t k;
        sim_bmeans_add(&b, (double)(n % 7));
        k = sim_bmeans_batches(&b);
        if (n < 2 * nb)
            ck_assert_uint_eq(k, n);
        else
            ck_assert(k >= nb && k < 2 * nb);
    }
}
END_TEST

/* Adds n samples of a stationary AR(1) process with mean mu, coefficient
 * phi and unit innovations to b, continuing from *x. */
static void add_ar1(struct sim_bmeans *b, double *x, int n, double mu,
                    double phi)
{
    for (int i = 0; i < n; i++) {
        *x = mu + phi * (*x - mu) + gsl_ran_gaussian(rng, 1.0);
        sim_bmeans_add(b, *x);
    }
}

/* A draw from the stationary distribution of that AR(1) process. */
static double ar1_start(double mu, double phi)
{
    return mu + gsl_ran_gaussian(rng, 1.0 / sqrt(1.0 - phi * phi));
}

START_TEST(test_sim_bmeans_ci95_coverage_ar1)
{
    const double mu = 10.0, phi = 0.5;
    const int reps = 200;
    int covered = 0;

    for (int r = 0; r < reps; r++) {
        struct sim_bmeans b;
        double x = ar1_start(mu, phi), hw;
        ck_assert_int_eq(sim_bmeans_init(&b, 32), 0);
        add_ar1(&b, &x, 20000, mu, phi);
        hw = sim_bmeans_ci95(&b);
        ck_assert(hw > 0.0);
        covered += fabs(sim_bmeans_mean(&b) - mu) <= hw;
    }
    ck_assert_msg(covered >= 0.88 * reps && covered <= 0.99 * reps,
                  "coverage %d/%d", covered, reps);
}
END_TEST

START_TEST(test_sim_bmeans_ci95_shrinks)
{
    const double mu = 10.0, phi = 0.5;
    const int reps = 50;
    double sum_short = 0.0, sum_long = 0.0, ratio;

    /* One interval varies by about 10% from run to run, so compare mean
     * half-widths over several runs; 4x the samples should halve them. */
    for (int r = 0; r < reps; r++) {
        struct sim_bmeans b;
        double x = ar1_start(mu, phi);
        ck_assert_int_eq(sim_bmeans_init(&b, 32), 0);
        add_ar1(&b, &x, 20000, mu, phi);
        sum_short += sim_bmeans_ci95(&b);
        add_ar1(&b, &x, 60000, mu, phi);
        sum_long += sim_bmeans_ci95(&b);
    }
    ratio = sum_long / sum_short;
    ck_assert_msg(ratio >= 0.4 && ratio <= 0.6, "ratio %g", ratio);
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc;

    tc = tcase_create("sim_welford");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_welford_add_matches_two_pass);
    tcase_add_test(tc, test_sim_welford_var_few_samples);
    tcase_add_test(tc, test_sim_welford_merge_equals_sequential);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_hist_quantile");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_hist_quantile_uniform);
    tcase_add_test(tc, test_sim_hist_quantile_exponential);
    tcase_add_test(tc, test_sim_hist_quantile_lognormal);
    tcase_add_test(tc, test_sim_hist_quantile_empty_nan);
    tcase_add_test(tc, test_sim_hist_quantile_exact_small);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_hist_add");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_hist_add_zero);
    tcase_add_test(tc, test_sim_hist_add_huge);
    tcase_add_test(tc, test_sim_hist_add_n_equals_repeated);
    tcase_add_test(tc, test_sim_hist_add_runs_equals_add_n);
    tcase_add_test(tc, test_sim_hist_runs_one_bucket);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_hist_reset");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_hist_reset_empties);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_hist_merge");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_hist_merge_equals_sequential);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_tavg");
    tcase_add_test(tc, test_sim_tavg_mean_hand_computed);
    tcase_add_test(tc, test_sim_tavg_mean_at_t0);
    tcase_add_test(tc, test_sim_tavg_restart_new_window);
    tcase_add_test(tc, test_sim_tavg_set_run_equals_set);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_bmeans");
    tcase_add_checked_fixture(tc, setup, teardown);
    /* 200 x 20,000 AR(1) samples take well under a second, but leave room
     * for sanitizer and valgrind builds. */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sim_bmeans_init_range);
    tcase_add_test(tc, test_sim_bmeans_ci95_few_batches_nan);
    tcase_add_test(tc, test_sim_bmeans_ci95_hand_computed);
    tcase_add_test(tc, test_sim_bmeans_batches_bounds);
    tcase_add_test(tc, test_sim_bmeans_ci95_coverage_ar1);
    tcase_add_test(tc, test_sim_bmeans_ci95_shrinks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stats_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
