/* Prediction intervals from calibration uncertainty (predict.h). */
#include "models/cluster/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "models/perf/calib.h"
#include "base/errors.h"
#include "base/xalloc.h"

#define PI_JSON(e, json, text, unit) json,
#define PI_TEXT(e, json, text, unit) text,
#define PI_UNIT(e, json, text, unit) unit,
const char *const cl_pi_json[CL_PI_N] = {CL_PI_METRICS(PI_JSON)};
const char *const cl_pi_text[CL_PI_N] = {CL_PI_METRICS(PI_TEXT)};
const char *const cl_pi_unit[CL_PI_N] = {CL_PI_METRICS(PI_UNIT)};

/* The structural error's metric (0 TTFT, 1 TPOT, 2 E2E) of each metric,
 * -1 for none: throughput, GPU-hours, cost and SLO attainment are not
 * what a serving fit compares, so no structural error is added to them. */
static const int structural_of[CL_PI_N] = {2, 2, 0,  0,  1,  1,
                                           1, 1, -1, -1, -1, -1};

double cl_pi_value(const struct cl_results *r, enum cl_pi_metric m)
{
    switch (m) {
    case CL_PI_E2E_MEAN:
        return r->e2e_ms.mean;
    case CL_PI_E2E_P99:
        return r->e2e_ms.p99;
    case CL_PI_TTFT_MEAN:
        return r->ttft_ms.mean;
    case CL_PI_TTFT_P99:
        return r->ttft_ms.p99;
    case CL_PI_TPOT_MEAN:
        return r->tpot_ms.mean;
    case CL_PI_TPOT_P99:
        return r->tpot_ms.p99;
    case CL_PI_ITL_MEAN:
        return r->itl_ms.mean;
    case CL_PI_ITL_P99:
        return r->itl_ms.p99;
    case CL_PI_THROUGHPUT:
        return r->throughput_tokens_per_s;
    case CL_PI_GPU_HOURS:
        return r->gpu_hours;
    case CL_PI_COST:
        return r->cost_usd;
    case CL_PI_SLO:
        return r->slo_attainment;
    case CL_PI_N:
        break;
    }
    return NAN;
}

/* The GPU kinds whose calibration is drawn: every pool's (a pool without
 * its own is hardware.gpu's), or hardware.gpu's; the first pool's first.
 * Returns their number (kinds holds at most CL_PI_MAX_KINDS). */
#define CL_PI_MAX_KINDS 64
static int drawn_gpus(const struct cl_scenario *s, const char **kinds)
{
    int n = 0;

    for (int i = 0; i <= s->npools && n < CL_PI_MAX_KINDS; i++) {
        const char *g = i < s->npools && s->pools[i].gpu != NULL
                            ? s->pools[i].gpu
                            : s->hardware.gpu;
        int dup = 0;
        if (i == s->npools && n > 0)
            break; /* pools named every kind */
        for (int j = 0; j < n && g != NULL; j++)
            dup |= strcmp(kinds[j], g) == 0;
        if (g != NULL && !dup)
            kinds[n++] = g;
    }
    return n;
}

int cl_predict(struct cl_scenario *s, const struct cl_run_opts *ro, int n,
               double level, cl_pi_progress_fn progress, void *progress_ctx,
               struct cl_pi *out, struct sim_diag *d)
{
    struct perf_calib *orig = s->calib;
    struct perf_calib_dist *dist;
    const char *kinds[CL_PI_MAX_KINDS];
    int nkinds = drawn_gpus(s, kinds);
    double sigma[3];
    double *vals;
    gsl_rng *rng;
    int rc = 0, nst = 0;

    memset(out, 0, sizeof(*out));
    out->level = level;
    for (int m = 0; m < CL_PI_N; m++)
        out->lo[m] = out->hi[m] = out->median[m] = NAN;
    if (n < 2 || n > CL_PI_MAX_DRAWS || !(level > 0 && level < 1)) {
        sim_diag_error(d, NULL, 0, 0,
                       "--uncertainty: %d draws; expected 2 to %d", n,
                       CL_PI_MAX_DRAWS);
        return SIM_EINVAL;
    }
    if (orig == NULL) {
        sim_diag_error(d, s->file, 0, 0,
                       "--uncertainty: the scenario uses the built-in "
                       "calibration, which carries no uncertainty; give a "
                       "profile fitted by dsec-calib (hardware.calibration "
                       "or --calibration)");
        return SIM_EINVAL;
    }
    dist = xmalloc(sizeof(*dist));
    perf_calib_dist_init_kinds(orig, kinds, nkinds, dist);
    sigma[0] = isnan(dist->structural.ttft) ? 0 : dist->structural.ttft;
    sigma[1] = isnan(dist->structural.tpot) ? 0 : dist->structural.tpot;
    sigma[2] = isnan(dist->structural.e2e) ? 0 : dist->structural.e2e;
    nst = sigma[0] > 0 || sigma[1] > 0 || sigma[2] > 0;
    if (dist->n == 0 && !nst) {
        sim_diag_error(d, orig->file, 0, 0,
                       "--uncertainty: the profile carries no uncertainty "
                       "for GPU kind '%s'%s (no uncertainty.std_errors in "
                       "its entry, its default entry or its links); fit it "
                       "with dsec-calib fit or fit --serving",
                       nkinds > 0 ? kinds[0] : "?",
                       nkinds > 1 ? " or the scenario's other kinds" : "");
        free(dist);
        return SIM_EINVAL;
    }
    out->nparams = dist->n;
    out->structural = nst;
    vals = xcalloc((size_t)n * CL_PI_N, sizeof(*vals));
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    /* A stream of its own: the scenario's seed mixed with a constant, so
     * the draws do not repeat the workload's streams. */
    gsl_rng_set(rng, (unsigned long)(s->seed ^ 0x5ca1ab1e0ddba11ull));
    for (int i = 0; i < n && rc == 0; i++) {
        struct perf_calib draw;
        struct cl_results res;
        double z[PERF_CALIB_MAX_UNC], zs[3];

        for (int j = 0; j < dist->n; j++)
            z[j] = gsl_ran_gaussian(rng, 1.0);
        for (int j = 0; j < 3; j++)
            zs[j] = gsl_ran_gaussian(rng, 1.0);
        perf_calib_copy(orig, &draw);
        perf_calib_dist_draw(dist, z, &draw);
        s->calib = &draw;
        memset(&res, 0, sizeof(res));
        rc = cl_run(s, ro, &res, d);
        s->calib = orig;
        if (rc == 0) {
            for (int m = 0; m < CL_PI_N; m++) {
                double v = cl_pi_value(&res, (enum cl_pi_metric)m);
                int k = structural_of[m];
                if (k >= 0 && isfinite(v))
                    v *= exp(sigma[k] * zs[k]);
                vals[(size_t)m * (size_t)n + (size_t)i] = v;
            }
            cl_results_fini(&res);
        }
        perf_calib_fini(&draw);
        if (progress != NULL)
            progress(progress_ctx, i + 1, n);
    }
    gsl_rng_free(rng);
    free(dist);
    if (rc != 0) {
        free(vals);
        return rc;
    }
    out->n = n;
    for (int m = 0; m < CL_PI_N; m++) {
        double *v = vals + (size_t)m * (size_t)n;
        int k = 0;
        for (int i = 0; i < n; i++)
            if (isfinite(v[i]))
                v[k++] = v[i];
        if (k == 0)
            continue;
        gsl_sort(v, 1, (size_t)k);
        out->lo[m] = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k,
                                                         (1 - level) / 2);
        out->hi[m] = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k,
                                                         (1 + level) / 2);
        out->median[m] =
            gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k, 0.5);
    }
    free(vals);
    return 0;
}
