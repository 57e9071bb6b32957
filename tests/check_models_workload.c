/* Tests for models/workload/: synthetic arrival and length statistics,
 * determinism and stream independence, the benchmark clients
 * (inference_perf, vllm_bench), the Azure trace reader on hand-made
 * fixtures (exact values and exact diagnostics), and the public Azure 2023
 * traces when the shared folder is present. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/workload/source.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* Set once in main() before the forks; read-only afterwards. */
static char *fixture_dir;
static char *shared_dir;

/* A synthetic configuration with every optional field unset. */
static struct cl_workload synth_cfg(int process, double rate_per_s,
                                    int64_t requests)
{
    struct cl_workload w;
    struct cl_dist unset = {CL_DIST_FIXED, NAN, NAN, NAN, NAN, NAN, NAN};

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_SYNTHETIC;
    w.synthetic.arrival.process = process;
    w.synthetic.arrival.rate_per_s = rate_per_s;
    w.synthetic.arrival.cv = NAN;
    w.synthetic.requests = requests;
    w.synthetic.duration_ns = -1;
    w.synthetic.prompt_tokens = unset;
    w.synthetic.prompt_tokens.value = 100;
    w.synthetic.output_tokens = unset;
    w.synthetic.output_tokens.value = 10;
    return w;
}

static struct cl_workload trace_cfg(const char *path)
{
    struct cl_workload w;

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_TRACE;
    w.trace.format = CL_TRACE_AZURE;
    w.trace.path = (char *)path;
    w.trace.time_scale = 1.0;
    w.trace.rate_scale = 1.0;
    w.trace.requests = -1;
    w.trace.duration_ns = -1;
    return w;
}

/* Running mean and variance (Welford). */
struct moments {
    double n, mean, m2, max;
};

static void moments_add(struct moments *m, double x)
{
    m->n += 1;
    if (x > m->max)
        m->max = x;
    double delta = x - m->mean;
    m->mean += delta / m->n;
    m->m2 += delta * (x - m->mean);
}

static double moments_sd(const struct moments *m)
{
    return sqrt(m->m2 / (m->n - 1));
}

/* Draws every request of cfg under seed, checking that arrivals never
 * decrease; fills the moments of gaps (s), prompts and outputs. Returns the
 * number of requests. */
static uint64_t drain(const struct cl_workload *cfg, uint64_t seed,
                      struct moments *gaps, struct moments *prompts,
                      struct moments *outputs)
{
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(seed);
    struct wl_request r;
    int64_t prev = 0;
    uint64_t bad = 0;
    int rc;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(cfg, NULL, loop, &d);
    ck_assert_ptr_nonnull(s);
    /* Violations are counted, not asserted one by one: each Check assertion
     * costs a write to the parent process. */
    while ((rc = wl_source_next(s, &r, &d)) == 0) {
        bad +=
            r.arrival_ns < prev || r.prompt_tokens < 1 || r.output_tokens < 1;
        if (gaps)
            moments_add(gaps, (double)(r.arrival_ns - prev) * 1e-9);
        if (prompts)
            moments_add(prompts, (double)r.prompt_tokens);
        if (outputs)
            moments_add(outputs, (double)r.output_tokens);
        prev = r.arrival_ns;
    }
    ck_assert_int_eq(rc, SIM_EEOF);
    ck_assert_uint_eq(bad, 0);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    uint64_t n = wl_source_count(s);
    wl_source_free(s);
    sim_loop_free(loop);
    sim_diag_fini(&d);
    return n;
}

/* Asserts that creating a source for cfg fails with exactly want. */
static void expect_new_error(const struct cl_workload *cfg, const char *want)
{
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(1);

    sim_diag_init(&d);
    ck_assert_ptr_null(wl_source_new(cfg, fixture_dir, loop, &d));
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    char *got = sim_diag_format(&d, 0);
    ck_assert_str_eq(got, want);
    free(got);
    sim_diag_fini(&d);
    sim_loop_free(loop);
}

START_TEST(test_next_poisson_moments)
{
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 50.0, 200000);
    struct moments g = {0};

    ck_assert_uint_eq(drain(&w, 42, &g, NULL, NULL), 200000);
    ck_assert_double_eq_tol(g.mean, 1.0 / 50.0, 0.01 / 50.0);
    ck_assert_double_eq_tol(moments_sd(&g) / g.mean, 1.0, 0.02);
}
END_TEST

START_TEST(test_next_gamma_cv)
{
    struct cl_workload w = synth_cfg(CL_ARR_GAMMA, 20.0, 200000);
    struct moments g = {0};

    w.synthetic.arrival.cv = 2.0;
    ck_assert_uint_eq(drain(&w, 43, &g, NULL, NULL), 200000);
    ck_assert_double_eq_tol(g.mean, 1.0 / 20.0, 0.02 / 20.0);
    ck_assert_double_eq_tol(moments_sd(&g) / g.mean, 2.0, 0.05 * 2.0);
}
END_TEST

START_TEST(test_next_deterministic_exact)
{
    struct cl_workload w = synth_cfg(CL_ARR_DETERMINISTIC, 3.0, 300000);
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(1);
    struct wl_request r;
    int64_t bad = 0;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, NULL, loop, &d);
    ck_assert_ptr_nonnull(s);
    for (int64_t k = 1; k <= 300000; k++) {
        if (wl_source_next(s, &r, &d) != 0)
            break;
        /* round(k * 1e9 / 3), computed in integers. */
        bad += r.arrival_ns != (k * INT64_C(1000000000) + 1) / 3 ||
               r.prompt_tokens != 100 || r.output_tokens != 10;
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(r.arrival_ns, INT64_C(100000000000000));
    ck_assert_int_eq(wl_source_next(s, &r, &d), SIM_EEOF);
    ck_assert_int_eq(wl_source_next(s, &r, &d), SIM_EEOF);
    ck_assert_uint_eq(wl_source_count(s), 300000);
    wl_source_free(s);
    sim_loop_free(loop);
    sim_diag_fini(&d);
}
END_TEST

START_TEST(test_next_lognormal_moments)
{
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 10.0, 200000);
    struct moments p = {0}, o = {0};

    w.synthetic.prompt_tokens.kind = CL_DIST_LOGNORMAL;
    w.synthetic.prompt_tokens.mean = 1000;
    w.synthetic.prompt_tokens.sd = 500;
    w.synthetic.output_tokens.kind = CL_DIST_LOGNORMAL;
    w.synthetic.output_tokens.mean = 200;
    w.synthetic.output_tokens.sd = 300;
    drain(&w, 44, NULL, &p, &o);
    ck_assert_double_eq_tol(p.mean, 1000, 20);
    ck_assert_double_eq_tol(moments_sd(&p), 500, 10);
    ck_assert_double_eq_tol(o.mean, 200, 4);
    ck_assert_double_eq_tol(moments_sd(&o), 300, 6);
}
END_TEST

START_TEST(test_next_lognormal_cap)
{
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 10.0, 100000);
    struct moments p = {0}, o = {0};

    /* The seed scenario's output lengths, cut at 1,000 tokens as the Azure
     * conversation trace's are: P(X > 1000) is about 1.5 %, so the cap is
     * hit, never passed, and the mean drops a little below 211. */
    w.synthetic.output_tokens.kind = CL_DIST_LOGNORMAL;
    w.synthetic.output_tokens.mean = 211;
    w.synthetic.output_tokens.sd = 273;
    w.synthetic.output_tokens.max = 1000;
    drain(&w, 45, NULL, &p, &o);
    ck_assert_double_eq(o.max, 1000);
    ck_assert(o.mean < 211 && o.mean > 190);
}
END_TEST

START_TEST(test_next_uniform_bounds)
{
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 10.0, 20000);
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(5);
    struct wl_request r;
    int seen[10] = {0};

    w.synthetic.prompt_tokens.kind = CL_DIST_UNIFORM;
    w.synthetic.prompt_tokens.min = 5;
    w.synthetic.prompt_tokens.max = 9;
    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, NULL, loop, &d);
    ck_assert_ptr_nonnull(s);
    while (wl_source_next(s, &r, &d) == 0)
        seen[r.prompt_tokens >= 5 && r.prompt_tokens <= 9 ? r.prompt_tokens
                                                          : 0]++;
    ck_assert_int_eq(seen[0], 0);
    for (int v = 5; v <= 9; v++)
        ck_assert_int_gt(seen[v], 3600); /* 4000 expected, sd 57 */
    wl_source_free(s);
    sim_loop_free(loop);
    sim_diag_fini(&d);
}
END_TEST

/* Collects n requests of cfg under seed into v. */
static void collect(const struct cl_workload *cfg, uint64_t seed,
                    struct wl_request *v, int n)
{
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(seed);

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(cfg, NULL, loop, &d);
    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(wl_source_next(s, &v[i], &d), 0);
    wl_source_free(s);
    sim_loop_free(loop);
    sim_diag_fini(&d);
}

static struct cl_workload varied_cfg(int process)
{
    struct cl_workload w = synth_cfg(process, 5.0, 1000);

    w.synthetic.arrival.cv = 3.0;
    w.synthetic.prompt_tokens.kind = CL_DIST_LOGNORMAL;
    w.synthetic.prompt_tokens.mean = 1000;
    w.synthetic.prompt_tokens.sd = 800;
    w.synthetic.output_tokens.kind = CL_DIST_UNIFORM;
    w.synthetic.output_tokens.min = 1;
    w.synthetic.output_tokens.max = 1000;
    return w;
}

START_TEST(test_next_same_seed_identical)
{
    struct cl_workload w = varied_cfg(CL_ARR_GAMMA);
    static struct wl_request a[1000], b[1000], c[1000];

    collect(&w, 7, a, 1000);
    collect(&w, 7, b, 1000);
    collect(&w, 8, c, 1000);
    ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
    ck_assert_int_ne(memcmp(a, c, sizeof(a)), 0);
}
END_TEST

START_TEST(test_next_streams_independent)
{
    struct cl_workload wp = varied_cfg(CL_ARR_POISSON);
    struct cl_workload wg = varied_cfg(CL_ARR_GAMMA);
    static struct wl_request a[1000], b[1000];
    int same_arrivals = 0;

    collect(&wp, 11, a, 1000);
    collect(&wg, 11, b, 1000);
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(a[i].prompt_tokens, b[i].prompt_tokens);
        ck_assert_int_eq(a[i].output_tokens, b[i].output_tokens);
        same_arrivals += a[i].arrival_ns == b[i].arrival_ns;
    }
    ck_assert_int_lt(same_arrivals, 10);
}
END_TEST

START_TEST(test_next_duration_stop)
{
    struct cl_workload w = synth_cfg(CL_ARR_DETERMINISTIC, 4.0, -1);
    struct cl_workload p = synth_cfg(CL_ARR_POISSON, 10.0, -1);
    struct moments g = {0};

    w.synthetic.duration_ns = 10 * SIM_NS_PER_S;
    ck_assert_uint_eq(drain(&w, 1, NULL, NULL, NULL), 40); /* 0.25 .. 10 s */
    w.synthetic.requests = 7; /* whichever comes first */
    ck_assert_uint_eq(drain(&w, 1, NULL, NULL, NULL), 7);

    p.synthetic.duration_ns = 1000 * SIM_NS_PER_S;
    uint64_t n = drain(&p, 3, &g, NULL, NULL);
    ck_assert_uint_gt(n, 9700); /* Poisson(10000): sd 100 */
    ck_assert_uint_lt(n, 10300);
    ck_assert_double_le(g.mean * (double)n, 1000.0);
}
END_TEST

START_TEST(test_new_synthetic_bad_config)
{
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 0.0, 10);

    expect_new_error(&w, "error: workload.synthetic.arrival.rate_per_s: "
                         "expected a positive number, got 0");
    w = synth_cfg(CL_ARR_GAMMA, 1.0, 10);
    expect_new_error(&w, "error: workload.synthetic.arrival.cv: expected a "
                         "positive number, got nan");
    w = synth_cfg(CL_ARR_POISSON, 1.0, -1);
    expect_new_error(&w, "error: workload.synthetic: set requests or "
                         "duration_ns");
    w = synth_cfg(CL_ARR_POISSON, 1.0, 10);
    w.synthetic.output_tokens.kind = CL_DIST_LOGNORMAL;
    expect_new_error(&w, "error: workload.synthetic.output_tokens.mean: "
                         "expected a positive number, got nan");
    w = synth_cfg(CL_ARR_POISSON, 1.0, 10);
    w.synthetic.prompt_tokens.kind = CL_DIST_UNIFORM;
    w.synthetic.prompt_tokens.min = 9;
    w.synthetic.prompt_tokens.max = 5;
    expect_new_error(&w, "error: workload.synthetic.prompt_tokens: uniform "
                         "needs 1 <= min <= max <= 2147483647 with an integer "
                         "between them, got min 9, max 5");
}
END_TEST

/* Time-varying rates. */

/* Counts the arrivals of cfg under seed into nb buckets of width_s seconds
 * from 0; returns the total. */
static uint64_t bucket_counts(const struct cl_workload *cfg, uint64_t seed,
                              double width_s, uint64_t *counts, int nb)
{
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(seed);
    struct wl_request r;
    int64_t prev = 0;
    uint64_t n = 0, bad = 0;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(cfg, NULL, loop, &d);
    ck_assert_ptr_nonnull(s);
    memset(counts, 0, (size_t)nb * sizeof(*counts));
    while (wl_source_next(s, &r, &d) == 0) {
        int b = (int)((double)r.arrival_ns * 1e-9 / width_s);
        bad += r.arrival_ns < prev;
        prev = r.arrival_ns;
        if (b >= 0 && b < nb)
            counts[b]++;
        n++;
    }
    ck_assert_uint_eq(bad, 0);
    wl_source_free(s);
    sim_loop_free(loop);
    sim_diag_fini(&d);
    return n;
}

static void set_steps(struct cl_workload *w, struct cl_rate_step *steps, int n)
{
    w->synthetic.arrival.profile.kind = CL_PROF_STEPS;
    w->synthetic.arrival.profile.steps = steps;
    w->synthetic.arrival.profile.nsteps = n;
}

/* Asserts |got / want - 1| <= tol. */
static void assert_rel(double got, double want, double tol, const char *what)
{
    ck_assert_msg(fabs(got / want - 1.0) <= tol, "%s: got %g, want %g (+-%g%%)",
                  what, got, want, tol * 100);
}

START_TEST(test_next_steps_jump_triples)
{
    static const int procs[] = {CL_ARR_POISSON, CL_ARR_GAMMA,
                                CL_ARR_DETERMINISTIC};
    struct cl_rate_step st[] = {{200 * SIM_NS_PER_S, 3.0, 0}};
    uint64_t c[2];

    for (int i = 0; i < 3; i++) {
        struct cl_workload w = synth_cfg(procs[i], 100.0, -1);
        w.synthetic.arrival.cv = 2.0;
        w.synthetic.duration_ns = 400 * SIM_NS_PER_S;
        set_steps(&w, st, 1);
        bucket_counts(&w, 5, 200.0, c, 2);
        /* 20000 before, 60000 after; gamma cv 2: sd 0.8% of 60000. */
        assert_rel((double)c[0], 20000, 0.03, "before the jump");
        assert_rel((double)c[1], 60000, 0.03, "after the jump");
        assert_rel((double)c[1] / (double)c[0], 3.0, 0.03, "ratio");
    }
}
END_TEST

START_TEST(test_next_steps_ramp)
{
    /* m: 1 until 100 s, linearly to 3 at 200 s, then 3. Expected counts per
     * 50 s bucket: 50 m-bar rate, m-bar 1, 1, 1.5, 2.5, 3, 3. */
    static const double mbar[] = {1, 1, 1.5, 2.5, 3, 3};
    struct cl_rate_step st[] = {{100 * SIM_NS_PER_S, 3.0, 100 * SIM_NS_PER_S}};
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 200.0, -1);
    uint64_t c[6];

    w.synthetic.duration_ns = 300 * SIM_NS_PER_S;
    set_steps(&w, st, 1);
    bucket_counts(&w, 9, 50.0, c, 6);
    for (int i = 0; i < 6; i++)
        assert_rel((double)c[i], 200.0 * 50 * mbar[i], 0.03, "ramp bucket");
}
END_TEST

START_TEST(test_next_steps_flash_crowd_integral)
{
    /* The docs' flash crowd: Lambda(40 min) = 10 + 2 + 14*3 + 10 + 10 =
     * 74 min, so 10/s gives 44400 arrivals (sd 0.5%). */
    struct cl_rate_step st[] = {
        {600 * SIM_NS_PER_S, 3.0, 60 * SIM_NS_PER_S},
        {1500 * SIM_NS_PER_S, 1.0, 300 * SIM_NS_PER_S},
    };
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 10.0, -1);
    uint64_t c[1];

    w.synthetic.duration_ns = 2400 * SIM_NS_PER_S;
    set_steps(&w, st, 2);
    assert_rel((double)bucket_counts(&w, 3, 2400.0, c, 1), 44400, 0.02,
               "total");
}
END_TEST

START_TEST(test_next_steps_overlapping_ramps)
{
    /* A ramp to 5 over 100 s cut at 50 s (m = 3 there) by a jump to 1:
     * Lambda(100 s) = 50 + 50 * (1 + 3) / 2 = 150, Lambda(150 s) = 200. */
    struct cl_rate_step st[] = {
        {50 * SIM_NS_PER_S, 5.0, 100 * SIM_NS_PER_S},
        {100 * SIM_NS_PER_S, 1.0, 0},
    };
    struct cl_workload w = synth_cfg(CL_ARR_DETERMINISTIC, 10.0, -1);
    uint64_t c[1];

    w.synthetic.duration_ns = 150 * SIM_NS_PER_S;
    set_steps(&w, st, 2);
    ck_assert_uint_eq(bucket_counts(&w, 1, 100.0, c, 1), 2000);
    ck_assert_uint_eq(c[0], 1499); /* arrival 1500 is at 100 s exactly */
}
END_TEST

START_TEST(test_next_steps_deterministic_exact)
{
    /* 10/s doubled at 10 s: k/10 s up to k = 100, then 10 + (k - 100)/20. */
    struct cl_rate_step st[] = {{10 * SIM_NS_PER_S, 2.0, 0}};
    struct cl_workload w = synth_cfg(CL_ARR_DETERMINISTIC, 10.0, 300);
    static struct wl_request v[300];

    set_steps(&w, st, 1);
    collect(&w, 1, v, 300);
    for (int k = 1; k <= 300; k++) {
        int64_t want =
            k <= 100 ? k * INT64_C(100000000)
                     : INT64_C(10000000000) + (k - 100) * INT64_C(50000000);
        ck_assert_msg(llabs(v[k - 1].arrival_ns - want) <= 1,
                      "arrival %d at %lld, want %lld", k,
                      (long long)v[k - 1].arrival_ns, (long long)want);
    }
}
END_TEST

START_TEST(test_next_diurnal_follows_cosine)
{
    /* period 1 h, a = 0.5, peak at 15 min; 12 buckets of 5 min over 40
     * periods. Each bucket expects rate * (Lambda(b1) - Lambda(b0)). */
    const double period = 3600, a = 0.5, peak = 900,
                 w_ = 2 * 3.14159265358979323846 / period;
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 4.0, -1);
    uint64_t c[480], hour[12] = {0};

    w.synthetic.duration_ns = 40 * 3600 * SIM_NS_PER_S;
    w.synthetic.arrival.profile.kind = CL_PROF_DIURNAL;
    w.synthetic.arrival.profile.amplitude = a;
    w.synthetic.arrival.profile.period_ns = 3600 * SIM_NS_PER_S;
    w.synthetic.arrival.profile.peak_at_ns = 900 * SIM_NS_PER_S;
    uint64_t n = bucket_counts(&w, 21, 300.0, c, 480);
    for (int i = 0; i < 480; i++)
        hour[i % 12] += c[i];
    for (int b = 0; b < 12; b++) {
        double t0 = 300.0 * b, t1 = t0 + 300;
        double lam = (t1 - t0) +
                     a / w_ * (sin(w_ * (t1 - peak)) - sin(w_ * (t0 - peak)));
        assert_rel((double)hour[b], 40 * 4.0 * lam, 0.05, "diurnal bucket");
    }
    /* The whole periods integrate to rate * duration. */
    assert_rel((double)n, 4.0 * 40 * 3600, 0.01, "diurnal total");
    /* The peak bucket holds about 3x the trough bucket ((1+a)/(1-a)). */
    ck_assert_uint_gt(hour[2] + hour[3], 2 * (hour[8] + hour[9]));
}
END_TEST

START_TEST(test_next_profile_same_seed_identical)
{
    struct cl_workload w = varied_cfg(CL_ARR_GAMMA);
    struct cl_rate_step st[] = {{60 * SIM_NS_PER_S, 4.0, 30 * SIM_NS_PER_S}};
    static struct wl_request a[1000], b[1000];

    w.synthetic.arrival.profile.kind = CL_PROF_DIURNAL;
    w.synthetic.arrival.profile.amplitude = 0.9;
    w.synthetic.arrival.profile.period_ns = 120 * SIM_NS_PER_S;
    w.synthetic.arrival.profile.peak_at_ns = 0;
    collect(&w, 7, a, 1000);
    collect(&w, 7, b, 1000);
    ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
    set_steps(&w, st, 1);
    collect(&w, 7, a, 1000);
    collect(&w, 7, b, 1000);
    ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
}
END_TEST

START_TEST(test_new_profile_bad_config)
{
    struct cl_workload w = synth_cfg(CL_ARR_POISSON, 1.0, 10);
    struct cl_rate_step st[] = {{10 * SIM_NS_PER_S, 2.0, 0},
                                {5 * SIM_NS_PER_S, 1.0, 0}};

    set_steps(&w, st, 2);
    expect_new_error(&w, "error: workload.synthetic.arrival.steps[1]: expected "
                         "at after the previous step, multiplier > 0 and ramp "
                         ">= 0, got 5000000000 ns, 1 and 0 ns");
    w = synth_cfg(CL_ARR_POISSON, 1.0, 10);
    w.synthetic.arrival.profile.kind = CL_PROF_DIURNAL;
    w.synthetic.arrival.profile.amplitude = 1.0;
    w.synthetic.arrival.profile.period_ns = SIM_NS_PER_S;
    expect_new_error(&w, "error: workload.synthetic.arrival.diurnal: expected "
                         "0 <= amplitude < 1, period > 0 and peak_at >= 0, "
                         "got 1, 1000000000 ns and 0 ns");
}
END_TEST

/* Opens fixture name with limits and scales, and reads every row. */
static int read_all(const char *name, double time_scale, double rate_scale,
                    int64_t requests, int64_t duration_ns, struct wl_request *v,
                    int cap, int *n, struct sim_diag *d)
{
    struct cl_workload w = trace_cfg(name);
    int rc;

    w.trace.time_scale = time_scale;
    w.trace.rate_scale = rate_scale;
    w.trace.requests = requests;
    w.trace.duration_ns = duration_ns;
    struct wl_source *s = wl_source_new(&w, fixture_dir, NULL, d);
    ck_assert_ptr_nonnull(s);
    *n = 0;
    while ((rc = wl_source_next(s, &v[*n], d)) == 0) {
        ck_assert_int_lt(*n, cap - 1);
        (*n)++;
    }
    ck_assert_int_eq(wl_source_next(s, &v[*n], d), rc); /* sticky */
    ck_assert_uint_eq(wl_source_count(s), (uint64_t)*n);
    wl_source_free(s);
    return rc;
}

static void expect_request(const struct wl_request *r, int64_t arrival_ns,
                           int64_t prompt, int64_t output)
{
    ck_assert_int_eq(r->arrival_ns, arrival_ns);
    ck_assert_int_eq(r->prompt_tokens, prompt);
    ck_assert_int_eq(r->output_tokens, output);
}

START_TEST(test_next_azure_exact)
{
    struct sim_diag d;
    struct wl_request v[8];
    int n;

    sim_diag_init(&d);
    /* 23:59:59.9999999 -> 00:00:00.0000001 (+200 ns, next day) ->
     * 00:01:01.5 (+61.5000001 s). */
    ck_assert_int_eq(read_all("three.csv", 1, 1, -1, -1, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 3);
    expect_request(&v[0], 0, 4808, 10);
    expect_request(&v[1], 200, 3180, 8);
    expect_request(&v[2], INT64_C(61500000100), 17, 1);

    /* 2024 form, CRLF, byte-order mark, offsets, no final line end; zero
     * token counts are replayed as 1. */
    ck_assert_int_eq(read_all("crlf-2024.csv", 1, 1, -1, -1, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 3);
    expect_request(&v[0], 0, 100, 20);
    expect_request(&v[1], INT64_C(1000000000), 5, 1);
    expect_request(&v[2], INT64_C(1990070000), 1, 3);

    /* 2023-12-31 23:59:59 -> 2024-03-01 00:00:00 is 31 + 29 days and 1 s;
     * blank lines are skipped; equal times are allowed. */
    ck_assert_int_eq(read_all("leap-blank.csv", 1, 1, -1, -1, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 3);
    expect_request(&v[0], 0, 1, 1);
    expect_request(&v[1], INT64_C(5184001000000000), 2, 2);
    expect_request(&v[2], INT64_C(5184001000000000), 3, 3);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);
}
END_TEST

START_TEST(test_next_azure_scales_and_limits)
{
    struct sim_diag d;
    struct wl_request v[8];
    int n;

    sim_diag_init(&d);
    /* time_scale 2 and rate_scale 4: gaps times 0.5. */
    ck_assert_int_eq(read_all("three.csv", 2, 4, -1, -1, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 3);
    expect_request(&v[1], 100, 3180, 8);
    expect_request(&v[2], INT64_C(30750000050), 17, 1);
    ck_assert_int_eq(read_all("three.csv", 3, 1, -1, -1, v, 8, &n, &d),
                     SIM_EEOF);
    expect_request(&v[2], INT64_C(184500000300), 17, 1);

    ck_assert_int_eq(read_all("three.csv", 1, 1, 2, -1, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(read_all("three.csv", 1, 1, 0, -1, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 0);
    /* The duration limit applies to the scaled arrival time, inclusive. */
    ck_assert_int_eq(read_all("three.csv", 1, 1, -1, 200, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(read_all("three.csv", 1, 2, -1, 99, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);
}
END_TEST

/* Reads fixture name to its end and asserts the one diagnostic is exactly
 * "<fixture_dir>/<name><tail>". */
static void expect_row_error(const char *name, int want_rc, int want_rows,
                             const char *tail)
{
    struct sim_diag d;
    struct wl_request v[8];
    int n;

    sim_diag_init(&d);
    ck_assert_int_eq(read_all(name, 1, 1, -1, -1, v, 8, &n, &d), want_rc);
    ck_assert_int_eq(n, want_rows);
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    char *got = sim_diag_format(&d, 0);
    char *want = xasprintf("%s/%s%s", fixture_dir, name, tail);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    sim_diag_fini(&d);
}

START_TEST(test_next_azure_row_errors)
{
    expect_row_error("few-fields.csv", SIM_EPARSE, 1,
                     ":3:1: error: row 2: expected 3 fields "
                     "(TIMESTAMP,ContextTokens,GeneratedTokens), got 2");
    expect_row_error("many-fields.csv", SIM_EPARSE, 0,
                     ":2:1: error: row 1: expected 3 fields "
                     "(TIMESTAMP,ContextTokens,GeneratedTokens), got 4");
    expect_row_error("bad-time.csv", SIM_EPARSE, 0,
                     ":2:1: error: row 1: TIMESTAMP: expected 'YYYY-MM-DD "
                     "HH:MM:SS[.fffffff][+HH:MM]', got '2023-11-16 "
                     "24:00:00.0000000'");
    expect_row_error("bad-date.csv", SIM_EPARSE, 1,
                     ":3:1: error: row 2: TIMESTAMP: expected 'YYYY-MM-DD "
                     "HH:MM:SS[.fffffff][+HH:MM]', got '2023-02-29 "
                     "18:17:04.0000000'");
    expect_row_error("bad-tokens.csv", SIM_EPARSE, 2,
                     ":4:32: error: row 3: GeneratedTokens: expected a "
                     "non-negative integer, got 'abc'");
    expect_row_error("negative-tokens.csv", SIM_EPARSE, 0,
                     ":2:29: error: row 1: ContextTokens: expected a "
                     "non-negative integer, got '-5'");
    expect_row_error("big-tokens.csv", SIM_EPARSE, 0,
                     ":2:29: error: row 1: ContextTokens: 99999999999 out of "
                     "range [0, 2147483647]");
    expect_row_error("backwards.csv", SIM_EPARSE, 2,
                     ":4:1: error: row 3: TIMESTAMP: '2023-11-16 "
                     "18:17:04.0319600' is earlier than row 2 ('2023-11-16 "
                     "18:17:05.0000000'); the trace must be sorted by time");
    expect_row_error("long-line.csv", SIM_EPARSE, 1,
                     ":3:1: error: row 2: line longer than 4096 bytes");
}
END_TEST

START_TEST(test_new_azure_errors)
{
    struct cl_workload w = trace_cfg("empty.csv");
    char *want;

    want = xasprintf("%s/empty.csv:1:1: error: header: expected "
                     "'TIMESTAMP,ContextTokens,GeneratedTokens', got end of "
                     "file",
                     fixture_dir);
    expect_new_error(&w, want);
    free(want);

    w = trace_cfg("bad-header.csv");
    want = xasprintf("%s/bad-header.csv:1:1: error: header: expected "
                     "'TIMESTAMP,ContextTokens,GeneratedTokens', got "
                     "'Timestamp,ContextTokens,GeneratedTokens'",
                     fixture_dir);
    expect_new_error(&w, want);
    free(want);

    w = trace_cfg("no-such-file.csv");
    want = xasprintf("%s/no-such-file.csv: error: cannot open trace: No such "
                     "file or directory; the Azure LLM inference traces are "
                     "in the Azure/AzurePublicDataset repository on GitHub, "
                     "data/AzureLLMInferenceTrace_{conv,code}.csv; download "
                     "one and set workload.trace.path or pass dsec run "
                     "--trace FILE",
                     fixture_dir);
    expect_new_error(&w, want);
    free(want);

    w = trace_cfg("three.csv");
    w.trace.rate_scale = 0;
    expect_new_error(&w, "error: workload.trace.rate_scale: expected a "
                         "positive number, got 0");
}
END_TEST

START_TEST(test_new_azure_absolute_path)
{
    struct sim_diag d;
    char *path = xasprintf("%s/three.csv", fixture_dir);
    struct cl_workload w = trace_cfg(path);
    struct wl_request r;

    sim_diag_init(&d);
    /* An absolute path ignores base_dir (a relative fixture_dir is made
     * absolute by the path's own prefix only when it starts with '/'). */
    struct wl_source *s =
        wl_source_new(&w, path[0] == '/' ? "/nonexistent" : NULL, NULL, &d);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(wl_source_next(s, &r, &d), 0);
    expect_request(&r, 0, 4808, 10);
    wl_source_free(s);
    wl_source_free(NULL);
    free(path);
    sim_diag_fini(&d);
}
END_TEST

/* Replays a public trace file and checks its count, means and span. */
static void check_public(const char *file, uint64_t rows, double prompt_mean,
                         double output_mean, int64_t span_ns)
{
    struct sim_diag d;
    struct cl_workload w = trace_cfg(file);
    struct wl_request r = {0};
    struct moments p = {0}, o = {0};
    int64_t prev = 0;
    int rc;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, shared_dir, NULL, &d);
    if (s == NULL)
        sim_diag_print(&d, stderr);
    ck_assert_ptr_nonnull(s);
    int64_t back = 0;
    while ((rc = wl_source_next(s, &r, &d)) == 0) {
        back += r.arrival_ns < prev;
        prev = r.arrival_ns;
        moments_add(&p, (double)r.prompt_tokens);
        moments_add(&o, (double)r.output_tokens);
    }
    sim_diag_print(&d, stderr);
    ck_assert_int_eq(rc, SIM_EEOF);
    ck_assert_uint_eq(wl_source_count(s), rows);
    ck_assert_int_eq(back, 0);
    ck_assert_double_eq_tol(p.mean, prompt_mean, 0.1);
    ck_assert_double_eq_tol(o.mean, output_mean, 0.1);
    ck_assert_int_eq(prev, span_ns);
    wl_source_free(s);
    sim_diag_fini(&d);
}

START_TEST(test_next_azure_public_conv)
{
    /* 18:15:46.6805900 -> 19:14:08.4025270 */
    check_public("AzureLLMInferenceTrace_conv.csv", 19366, 1154.7, 211.1,
                 INT64_C(3501721937000));
}
END_TEST

START_TEST(test_next_azure_public_code)
{
    /* 18:17:03.9799600 -> 19:14:19.9280160 */
    check_public("AzureLLMInferenceTrace_code.csv", 8819, 2047.8, 27.9,
                 INT64_C(3435948056000));
}
END_TEST

/* ---- benchmark clients: inference_perf and vllm_bench ---- */

/* One request as collected, with a copy of its first block hashes. */
struct rec {
    int64_t arrival_ns, prompt, output;
    int stage, nblocks, block_tokens;
    uint64_t h[16];
};

/* Runs cfg under seed into recs (at most max); returns the count. */
static int collect_recs(const struct cl_workload *cfg, uint64_t seed,
                        struct rec *recs, int max)
{
    struct sim_diag d;
    struct sim_loop *loop = sim_loop_new(seed);
    struct wl_request r;
    int n = 0, rc;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(cfg, NULL, loop, &d);
    ck_assert_ptr_nonnull(s);
    while ((rc = wl_source_next(s, &r, &d)) == 0) {
        ck_assert_int_lt(n, max);
        recs[n].arrival_ns = r.arrival_ns;
        recs[n].prompt = r.prompt_tokens;
        recs[n].output = r.output_tokens;
        recs[n].stage = r.stage;
        recs[n].nblocks = r.nblocks;
        recs[n].block_tokens = r.block_tokens;
        memset(recs[n].h, 0, sizeof(recs[n].h));
        for (int i = 0; i < r.nblocks && i < 16; i++)
            recs[n].h[i] = r.block_hashes[i];
        if (n > 0)
            ck_assert_int_ge(r.arrival_ns, recs[n - 1].arrival_ns);
        n++;
    }
    ck_assert_int_eq(rc, SIM_EEOF);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    wl_source_free(s);
    sim_loop_free(loop);
    sim_diag_fini(&d);
    return n;
}

/* An inference_perf section of the given stages (rate, duration s pairs),
 * shared_prefix data G x P, S + Q tokens, output O. stages is borrowed. */
static struct cl_workload ip_cfg(int load, struct cl_ip_stage *stages,
                                 int nstages)
{
    struct cl_workload w;

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_INFERENCE_PERF;
    w.inference_perf.data.type = CL_IP_DATA_SHARED_PREFIX;
    w.inference_perf.data.shared_prefix.num_groups = 10;
    w.inference_perf.data.shared_prefix.num_prompts_per_group = 10;
    w.inference_perf.data.shared_prefix.system_prompt_len = 40;
    w.inference_perf.data.shared_prefix.question_len = 30;
    w.inference_perf.data.shared_prefix.output_len = 7;
    w.inference_perf.load.type = load;
    w.inference_perf.load.stages = stages;
    w.inference_perf.load.nstages = nstages;
    w.inference_perf.ignore_eos = 1;
    return w;
}

static struct rec recs[30000];

/* constant: round(rate x duration) requests per stage, the last at the
 * stage's end; stage k starts at the sum of the earlier durations. */
START_TEST(test_next_ip_constant_exact)
{
    struct cl_ip_stage st[] = {{2.0, 5 * SIM_NS_PER_S},
                               {1.5, 3 * SIM_NS_PER_S}}; /* 10, round(4.5) */
    struct cl_workload w = ip_cfg(CL_IP_LOAD_CONSTANT, st, 2);
    int n = collect_recs(&w, 7, recs, 100);

    ck_assert_int_eq(n, 10 + 5);
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(recs[i].stage, 0);
        ck_assert_int_gt(recs[i].arrival_ns, 0);
        ck_assert_int_le(recs[i].arrival_ns, 5 * SIM_NS_PER_S);
    }
    ck_assert_int_eq(recs[9].arrival_ns, 5 * SIM_NS_PER_S);
    for (int i = 10; i < 15; i++) {
        ck_assert_int_eq(recs[i].stage, 1);
        ck_assert_int_gt(recs[i].arrival_ns, 5 * SIM_NS_PER_S);
    }
    ck_assert_int_eq(recs[14].arrival_ns, 8 * SIM_NS_PER_S);
    /* A stage whose rate x duration rounds to 0 sends nothing. */
    st[0].rate_per_s = 0.09; /* 0.45 requests */
    n = collect_recs(&w, 7, recs, 100);
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(recs[0].stage, 1);
}
END_TEST

/* constant gaps are exponential before the rescaling: over 20,000 requests
 * in one stage the gaps' CV is 1 within 3 % (sd of the CV estimate about
 * 1/sqrt(n) = 0.7 %), not the 0 of equal gaps. */
START_TEST(test_next_ip_constant_exponential_gaps)
{
    struct cl_ip_stage st[] = {{100.0, 200 * SIM_NS_PER_S}};
    struct cl_workload w = ip_cfg(CL_IP_LOAD_CONSTANT, st, 1);
    struct moments g = {0};
    int n = collect_recs(&w, 11, recs, 30000);

    ck_assert_int_eq(n, 20000);
    for (int i = 0; i < n; i++)
        moments_add(&g, (double)(recs[i].arrival_ns -
                                 (i ? recs[i - 1].arrival_ns : 0)) *
                            1e-9);
    ck_assert_double_eq_tol(g.mean, 0.01, 1e-9); /* 200 s / 20,000 exactly */
    ck_assert_double_eq_tol(moments_sd(&g) / g.mean, 1.0, 0.03);
}
END_TEST

/* poisson: a random count of mean rate x duration, every arrival inside
 * its stage. 100/s for 10 s: 1000 +- 5 sd (sqrt(1000) = 31.6). */
START_TEST(test_next_ip_poisson_stage)
{
    struct cl_ip_stage st[] = {{100.0, 10 * SIM_NS_PER_S},
                               {50.0, 10 * SIM_NS_PER_S}};
    struct cl_workload w = ip_cfg(CL_IP_LOAD_POISSON, st, 2);
    int n = collect_recs(&w, 3, recs, 30000), n0 = 0;

    for (int i = 0; i < n; i++) {
        int64_t lo = recs[i].stage == 0 ? 0 : 10 * SIM_NS_PER_S;
        ck_assert_int_ge(recs[i].arrival_ns, lo);
        ck_assert_int_lt(recs[i].arrival_ns, lo + 10 * SIM_NS_PER_S);
        n0 += recs[i].stage == 0;
    }
    ck_assert_int_ge(n0, 1000 - 158);
    ck_assert_int_le(n0, 1000 + 158);
    ck_assert_int_ge(n - n0, 500 - 112); /* 5 sqrt(500) */
    ck_assert_int_le(n - n0, 500 + 112);
}
END_TEST

/* shared_prefix: 10 groups x 10 prompts, 40 + 30 = 70 tokens, 5 blocks of
 * 16; blocks 0 and 1 lie inside the 40-token system prompt, block 2
 * straddles it. */
START_TEST(test_next_ip_shared_prefix_hashes)
{
    struct cl_ip_stage st[] = {{50.0, 5 * SIM_NS_PER_S},  /* 250 */
                               {10.0, 3 * SIM_NS_PER_S}}; /* 30 */
    struct cl_workload w = ip_cfg(CL_IP_LOAD_CONSTANT, st, 2);
    int n = collect_recs(&w, 5, recs, 1000);

    ck_assert_int_eq(n, 280);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(recs[i].prompt, 70);
        ck_assert_int_eq(recs[i].output, 7);
        ck_assert_int_eq(recs[i].nblocks, 5);
        ck_assert_int_eq(recs[i].block_tokens, 16);
        for (int a = 0; a < 5; a++)
            for (int b = a + 1; b < 5; b++)
                ck_assert_uint_ne(recs[i].h[a], recs[i].h[b]);
    }
    /* Request n and n + 100 send the same prompt: the same hashes. */
    for (int i = 0; i + 100 < 250; i++)
        ck_assert_mem_eq(recs[i].h, recs[i + 100].h, 5 * sizeof(uint64_t));
    /* n counts from 0 in each stage: stage 1's first request is prompt 0. */
    ck_assert_mem_eq(recs[250].h, recs[0].h, 5 * sizeof(uint64_t));
    ck_assert_mem_eq(recs[279].h, recs[29].h, 5 * sizeof(uint64_t));
    /* Prompts 0 and 9 (group 0) share the system blocks only. */
    ck_assert_uint_eq(recs[0].h[0], recs[9].h[0]);
    ck_assert_uint_eq(recs[0].h[1], recs[9].h[1]);
    for (int b = 2; b < 5; b++)
        ck_assert_uint_ne(recs[0].h[b], recs[9].h[b]);
    /* Prompts 0 and 10 (groups 0 and 1) share nothing; no hash of prompt 0
     * appears in any other prompt of another group. */
    for (int q = 10; q < 100; q++)
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 5; b++)
                ck_assert_uint_ne(recs[0].h[a], recs[q].h[b]);
}
END_TEST

/* random: normal(mean, std) clipped to [min, max] and rounded; std 0 gives
 * round(mean); no hashes. */
START_TEST(test_next_ip_random_lengths)
{
    struct cl_ip_stage st[] = {{100.0, 50 * SIM_NS_PER_S}};
    struct cl_workload w = ip_cfg(CL_IP_LOAD_CONSTANT, st, 1);
    int n, at_min = 0, at_max = 0;

    w.inference_perf.data.type = CL_IP_DATA_RANDOM;
    w.inference_perf.data.input_distribution =
        (struct cl_ip_distribution){30, 60, 50, 20, -1};
    w.inference_perf.data.output_distribution =
        (struct cl_ip_distribution){1, 100, 42.4, 0, -1};
    n = collect_recs(&w, 9, recs, 30000);
    ck_assert_int_eq(n, 5000);
    for (int i = 0; i < n; i++) {
        ck_assert_int_ge(recs[i].prompt, 30);
        ck_assert_int_le(recs[i].prompt, 60);
        ck_assert_int_eq(recs[i].output, 42);
        ck_assert_int_eq(recs[i].nblocks, 0);
        at_min += recs[i].prompt == 30;
        at_max += recs[i].prompt == 60;
    }
    /* P(X < 30.5) = Phi(-0.975) = 0.1648 and P(X >= 59.5) = Phi(-0.475) =
     * 0.3174: 824 and 1587 of 5000, each +- 5 sd (26 and 33). */
    ck_assert_int_ge(at_min, 824 - 131);
    ck_assert_int_le(at_min, 824 + 131);
    ck_assert_int_ge(at_max, 1587 - 165);
    ck_assert_int_le(at_max, 1587 + 165);
}
END_TEST

START_TEST(test_new_ip_bad_config)
{
    struct cl_ip_stage st[] = {{0.0, 5 * SIM_NS_PER_S}};
    struct cl_workload w = ip_cfg(CL_IP_LOAD_CONSTANT, st, 1);

    expect_new_error(&w, "error: workload.inference_perf.load.stages[0]: "
                         "expected rate > 0 and duration > 0 (the stages "
                         "within 9223372036854775807 ns), got 0 and "
                         "5000000000 ns");
    w.inference_perf.load.nstages = 0;
    expect_new_error(&w, "error: workload.inference_perf.load.stages: "
                         "expected at least one stage {rate, duration}");
    st[0].rate_per_s = 1;
    w.inference_perf.load.nstages = 1;
    w.inference_perf.data.type = CL_IP_DATA_RANDOM;
    w.inference_perf.data.input_distribution =
        (struct cl_ip_distribution){60, 30, 50, 20, -1};
    expect_new_error(&w, "error: workload.inference_perf.data."
                         "input_distribution: expected 0 <= min <= max, a "
                         "mean and std >= 0, got min 60, max 30, mean 50, "
                         "std 20");
}
END_TEST

static struct cl_workload vb_cfg(int64_t n, double rate, double burstiness)
{
    struct cl_workload w;

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_VLLM_BENCH;
    w.vllm_bench.num_prompts = n;
    w.vllm_bench.request_rate = rate;
    w.vllm_bench.burstiness = burstiness;
    w.vllm_bench.max_concurrency = -1;
    w.vllm_bench.dataset = CL_VB_RANDOM;
    w.vllm_bench.random_input_len = 1024;
    w.vllm_bench.random_output_len = 128;
    w.vllm_bench.random_range_ratio = 0;
    w.vllm_bench.random_prefix_len = 0;
    return w;
}

/* Gamma gaps of shape b, mean 1/rate: the last request at N / rate
 * exactly, so the mean gap is exactly 1/rate; the gaps' CV is 1/sqrt(b)
 * within 3 % (n = 20,000). Defaults: 1024 and 128 tokens exactly. */
START_TEST(test_next_vb_gamma_gaps)
{
    static const double shapes[] = {0.5, 1.0, 4.0};

    for (int k = 0; k < 3; k++) {
        struct cl_workload w = vb_cfg(20000, 10.0, shapes[k]);
        struct moments g = {0};
        int n = collect_recs(&w, 13, recs, 30000);

        ck_assert_int_eq(n, 20000);
        ck_assert_int_eq(recs[n - 1].arrival_ns, 2000 * SIM_NS_PER_S);
        ck_assert_int_gt(recs[0].arrival_ns, 0);
        for (int i = 0; i < n; i++) {
            ck_assert_int_eq(recs[i].prompt, 1024);
            ck_assert_int_eq(recs[i].output, 128);
            ck_assert_int_eq(recs[i].nblocks, 0);
            moments_add(&g, (double)(recs[i].arrival_ns -
                                     (i ? recs[i - 1].arrival_ns : 0)) *
                                1e-9);
        }
        ck_assert_double_eq_tol(g.mean, 0.1, 1e-9);
        ck_assert_double_eq_tol(moments_sd(&g) / g.mean, 1.0 / sqrt(shapes[k]),
                                0.03);
    }
}
END_TEST

/* request_rate inf: every request at t = 0. */
START_TEST(test_next_vb_inf_rate)
{
    struct cl_workload w = vb_cfg(300, INFINITY, 1.0);
    int n = collect_recs(&w, 1, recs, 1000);

    ck_assert_int_eq(n, 300);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(recs[i].arrival_ns, 0);
}
END_TEST

/* random_range_ratio 0.25: inputs uniform in [floor(75), ceil(125)],
 * outputs in [floor(7.5), ceil(12.5)] = [7, 13], every value hit; a
 * 40-token prefix: blocks 0 and 1 shared by every request, the rest not. */
START_TEST(test_next_vb_range_ratio_prefix)
{
    struct cl_workload w = vb_cfg(5000, 100.0, 1.0);
    int seen_in[51] = {0}, seen_out[7] = {0};
    int n;

    w.vllm_bench.random_input_len = 100;
    w.vllm_bench.random_output_len = 10;
    w.vllm_bench.random_range_ratio = 0.25;
    w.vllm_bench.random_prefix_len = 40;
    n = collect_recs(&w, 17, recs, 30000);
    ck_assert_int_eq(n, 5000);
    for (int i = 0; i < n; i++) {
        int64_t in = recs[i].prompt - 40;
        ck_assert_int_ge(in, 75);
        ck_assert_int_le(in, 125);
        ck_assert_int_ge(recs[i].output, 7);
        ck_assert_int_le(recs[i].output, 13);
        seen_in[in - 75] = 1;
        seen_out[recs[i].output - 7] = 1;
        ck_assert_int_eq(recs[i].nblocks, (recs[i].prompt + 15) / 16);
        ck_assert_int_eq(recs[i].block_tokens, 16);
        ck_assert_uint_eq(recs[i].h[0], recs[0].h[0]);
        ck_assert_uint_eq(recs[i].h[1], recs[0].h[1]);
        if (i > 0)
            ck_assert_uint_ne(recs[i].h[2], recs[i - 1].h[2]);
    }
    for (int v = 0; v < 51; v++)
        ck_assert_msg(seen_in[v], "input %d never drawn", 75 + v);
    for (int v = 0; v < 7; v++)
        ck_assert_msg(seen_out[v], "output %d never drawn", 7 + v);
}
END_TEST

/* dataset lengths: the distributions, no hashes. */
START_TEST(test_next_vb_lengths_dataset)
{
    struct cl_workload w = vb_cfg(50, 5.0, 1.0);
    struct cl_dist unset = {CL_DIST_FIXED, NAN, NAN, NAN, NAN, NAN, NAN};
    int n;

    w.vllm_bench.dataset = CL_VB_LENGTHS;
    w.vllm_bench.random_prefix_len = 64; /* not used by lengths */
    w.vllm_bench.prompt_tokens = unset;
    w.vllm_bench.prompt_tokens.value = 123;
    w.vllm_bench.output_tokens = unset;
    w.vllm_bench.output_tokens.value = 45;
    n = collect_recs(&w, 2, recs, 100);
    ck_assert_int_eq(n, 50);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(recs[i].prompt, 123);
        ck_assert_int_eq(recs[i].output, 45);
        ck_assert_int_eq(recs[i].nblocks, 0);
    }
    ck_assert_int_eq(recs[49].arrival_ns, 10 * SIM_NS_PER_S);
}
END_TEST

START_TEST(test_new_vb_bad_config)
{
    struct cl_workload w = vb_cfg(0, 1.0, 1.0);

    expect_new_error(&w, "error: workload.vllm_bench: expected num_prompts "
                         "in [1, 1e12], request_rate > 0 (or inf) and "
                         "burstiness > 0, got 0, 1 and 1");
    w = vb_cfg(10, 1.0, 1.0);
    w.vllm_bench.random_range_ratio = 1.0;
    expect_new_error(&w, "error: workload.vllm_bench: expected "
                         "random_range_ratio in [0, 1), random_input_len and "
                         "random_output_len in [1, 1e9], random_prefix_len "
                         "in [0, 1e9]");
}
END_TEST

static Suite *workload_suite(void)
{
    Suite *s = suite_create("workload");
    TCase *tc;

    tc = tcase_create("synthetic");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_next_poisson_moments);
    tcase_add_test(tc, test_next_gamma_cv);
    tcase_add_test(tc, test_next_deterministic_exact);
    tcase_add_test(tc, test_next_lognormal_moments);
    tcase_add_test(tc, test_next_lognormal_cap);
    tcase_add_test(tc, test_next_uniform_bounds);
    tcase_add_test(tc, test_next_same_seed_identical);
    tcase_add_test(tc, test_next_streams_independent);
    tcase_add_test(tc, test_next_duration_stop);
    tcase_add_test(tc, test_new_synthetic_bad_config);
    suite_add_tcase(s, tc);

    tc = tcase_create("profile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_next_steps_jump_triples);
    tcase_add_test(tc, test_next_steps_ramp);
    tcase_add_test(tc, test_next_steps_flash_crowd_integral);
    tcase_add_test(tc, test_next_steps_overlapping_ramps);
    tcase_add_test(tc, test_next_steps_deterministic_exact);
    tcase_add_test(tc, test_next_diurnal_follows_cosine);
    tcase_add_test(tc, test_next_profile_same_seed_identical);
    tcase_add_test(tc, test_new_profile_bad_config);
    suite_add_tcase(s, tc);

    tc = tcase_create("azure");
    tcase_add_test(tc, test_next_azure_exact);
    tcase_add_test(tc, test_next_azure_scales_and_limits);
    tcase_add_test(tc, test_next_azure_row_errors);
    tcase_add_test(tc, test_new_azure_errors);
    tcase_add_test(tc, test_new_azure_absolute_path);
    suite_add_tcase(s, tc);

    tc = tcase_create("benchmark_clients");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_next_ip_constant_exact);
    tcase_add_test(tc, test_next_ip_constant_exponential_gaps);
    tcase_add_test(tc, test_next_ip_poisson_stage);
    tcase_add_test(tc, test_next_ip_shared_prefix_hashes);
    tcase_add_test(tc, test_next_ip_random_lengths);
    tcase_add_test(tc, test_new_ip_bad_config);
    tcase_add_test(tc, test_next_vb_gamma_gaps);
    tcase_add_test(tc, test_next_vb_inf_rate);
    tcase_add_test(tc, test_next_vb_range_ratio_prefix);
    tcase_add_test(tc, test_next_vb_lengths_dataset);
    tcase_add_test(tc, test_new_vb_bad_config);
    suite_add_tcase(s, tc);

    /* The public traces live outside the repository; register their tests
     * only when the folder is there, so a bare checkout still passes. */
    struct stat st;
    if (stat(shared_dir, &st) == 0 && S_ISDIR(st.st_mode)) {
        tc = tcase_create("azure_public");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_next_azure_public_conv);
        tcase_add_test(tc, test_next_azure_public_code);
        suite_add_tcase(s, tc);
    } else {
        printf("# SKIP shared traces not found in %s (set DSEC_SHARED)\n",
               shared_dir);
        fflush(stdout);
    }
    return s;
}

int main(void)
{
    const char *top = getenv("top_srcdir");
    const char *shared = getenv("DSEC_SHARED");

    if (top == NULL || top[0] == '\0')
        top = ".";
    fixture_dir = xasprintf("%s/tests/data/trace", top);
    if (shared != NULL && shared[0] != '\0')
        shared_dir = xasprintf("%s/traces/azure-llm-2023", shared);
    else
        shared_dir = xasprintf("%s/../shared/traces/azure-llm-2023", top);

    SRunner *sr = srunner_create(workload_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(fixture_dir);
    free(shared_dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
