/*
 * Prediction intervals from calibration uncertainty (docs/calibration.md
 * "Prediction intervals"): a scenario is run once per draw of its
 * calibration profile's parameters (the joint normal of the profile's
 * standard errors and correlations, perf_calib_dist_init()), every draw on
 * the scenario's own seed (common random numbers: the draws differ only
 * by their parameters), and each latency mean and p99 is then multiplied
 * by exp(sigma z) with the profile's structural error sigma of its metric
 * (a serving fit's estimate of the model's own error). The interval is the
 * empirical central quantile range of the draws. The draws' normals come
 * from a GSL MT19937 stream seeded from the scenario's seed, so the same
 * scenario, seed and N give the same intervals. Seed noise is not in
 * them: that is the confidence interval (ci95) of each mean.
 */
#ifndef CL_PREDICT_H
#define CL_PREDICT_H

#include "models/cluster/cluster.h"
#include "base/diag.h"

/* The metrics an interval is given for, their JSON names. */
#define CL_PI_METRICS(X)                                                       \
    X(CL_PI_E2E_MEAN, "e2e_ms_mean", "E2E mean", "ms")                         \
    X(CL_PI_E2E_P99, "e2e_ms_p99", "E2E p99", "ms")                            \
    X(CL_PI_TTFT_MEAN, "ttft_ms_mean", "TTFT mean", "ms")                      \
    X(CL_PI_TTFT_P99, "ttft_ms_p99", "TTFT p99", "ms")                         \
    X(CL_PI_TPOT_MEAN, "tpot_ms_mean", "TPOT mean", "ms")                      \
    X(CL_PI_TPOT_P99, "tpot_ms_p99", "TPOT p99", "ms")                         \
    X(CL_PI_ITL_MEAN, "itl_ms_mean", "ITL mean", "ms")                         \
    X(CL_PI_ITL_P99, "itl_ms_p99", "ITL p99", "ms")                            \
    X(CL_PI_THROUGHPUT, "throughput_tokens_per_s", "throughput", "tokens/s")   \
    X(CL_PI_GPU_HOURS, "gpu_hours", "GPU-hours", "GPU-h")                      \
    X(CL_PI_COST, "cost_usd", "cost", "USD")                                   \
    X(CL_PI_SLO, "slo_attainment", "SLO attainment", "fraction")

#define CL_PI_ENUM(e, json, text, unit) e,
enum cl_pi_metric { CL_PI_METRICS(CL_PI_ENUM) CL_PI_N };
#undef CL_PI_ENUM

/* Name, label and unit of each metric, by enum cl_pi_metric. */
extern const char *const cl_pi_json[CL_PI_N];
extern const char *const cl_pi_text[CL_PI_N];
extern const char *const cl_pi_unit[CL_PI_N];

/* Most draws. */
#define CL_PI_MAX_DRAWS 10000

struct cl_pi {
    int n;          /* draws run */
    double level;   /* 0.95 */
    int nparams;    /* uncertain parameters drawn */
    int structural; /* 1: the profile's structural error was applied */
    /* Per metric: the interval [lo, hi] and the draws' median; NAN where
     * the metric is undefined (no SLO set, no completions). */
    double lo[CL_PI_N], hi[CL_PI_N], median[CL_PI_N];
};

/* Called after each draw with the number done and n (may be NULL). */
typedef void (*cl_pi_progress_fn)(void *ctx, int done, int n);

/*
 * Runs s n times (2 <= n <= CL_PI_MAX_DRAWS) with parameters drawn from the
 * uncertainty of s->calib for the GPU kinds of s's pools (hardware.gpu when
 * there are no pools; perf_calib_dist_init_kinds(): the structural error
 * is the first pool's kind's), and fills out with the central level interval
 * of each metric. s->calib is replaced during each run and restored.
 * Returns 0; SIM_EINVAL when s has no calibration profile or it carries
 * no uncertainty for that kind (the message says so) or n is out of
 * range; or a run's error (in d).
 */
int cl_predict(struct cl_scenario *s, const struct cl_run_opts *ro, int n,
               double level, cl_pi_progress_fn progress, void *progress_ctx,
               struct cl_pi *out, struct sim_diag *d);

/* The value of metric m in a run's results. */
double cl_pi_value(const struct cl_results *r, enum cl_pi_metric m);

#endif /* CL_PREDICT_H */
