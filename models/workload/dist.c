/* The shared sampler; see dist.h for the formulas and their sources. */
#include "models/workload/dist.h"

#include <math.h>

#include <gsl/gsl_randist.h>

#include "models/workload/source.h"
#include "sim/rng.h"

static int positive(double x)
{
    return isfinite(x) && x > 0.0;
}

int wl_dist_init(struct wl_dist *ld, const struct cl_dist *cd, const char *key,
                 struct sim_diag *d)
{
    double m = cd->mean;

    ld->kind = cd->kind;
    switch (cd->kind) {
    case CL_DIST_FIXED:
    case CL_DIST_DETERMINISTIC: {
        double v = isnan(cd->value) ? cd->mean : cd->value;
        if (!positive(v)) {
            sim_diag_error(d, NULL, 0, 0,
                           "%s.value: expected a positive number, got %g", key,
                           v);
            return -1;
        }
        ld->kind = CL_DIST_FIXED;
        ld->lo = v;
        return 0;
    }
    case CL_DIST_UNIFORM: {
        double lo = ceil(cd->min), hi = floor(cd->max);
        if (!(lo >= 1.0 && lo <= hi && hi <= (double)WL_TOKENS_MAX)) {
            sim_diag_error(d, NULL, 0, 0,
                           "%s: uniform needs 1 <= min <= max <= %lld with an "
                           "integer between them, got min %g, max %g",
                           key, (long long)WL_TOKENS_MAX, cd->min, cd->max);
            return -1;
        }
        ld->lo = lo;
        ld->hi = hi;
        return 0;
    }
    case CL_DIST_LOGNORMAL:
    case CL_DIST_EXPONENTIAL:
    case CL_DIST_GAMMA:
        if (!positive(m)) {
            sim_diag_error(d, NULL, 0, 0,
                           "%s.mean: expected a positive number, got %g", key,
                           m);
            return -1;
        }
        /* An optional cap (scenario key max): draws above it are set to
         * it, as an API's max_tokens ends generation. */
        ld->hi = isnan(cd->max) ? INFINITY : cd->max;
        break;
    default:
        sim_diag_error(d, NULL, 0, 0,
                       "%s: unknown distribution %d; valid: deterministic, "
                       "exponential, fixed, gamma, lognormal, uniform",
                       key, cd->kind);
        return -1;
    }

    if (cd->kind == CL_DIST_EXPONENTIAL) {
        ld->a = m;
    } else if (cd->kind == CL_DIST_LOGNORMAL) {
        double sd = isnan(cd->sd) ? cd->cv * m : cd->sd;
        if (!(isfinite(sd) && sd >= 0.0)) {
            sim_diag_error(d, NULL, 0, 0,
                           "%s.sd: expected a non-negative number, got %g", key,
                           sd);
            return -1;
        }
        double s2 = log1p(sd * sd / (m * m));
        ld->a = log(m) - s2 / 2.0;
        ld->b = sqrt(s2);
    } else {
        double cv = isnan(cd->cv) ? cd->sd / m : cd->cv;
        if (!positive(cv)) {
            sim_diag_error(d, NULL, 0, 0,
                           "%s.cv: expected a positive number, got %g", key,
                           cv);
            return -1;
        }
        ld->a = 1.0 / (cv * cv);
        ld->b = m * cv * cv;
    }
    return 0;
}

double wl_dist_draw(const struct wl_dist *wd, gsl_rng *rng)
{
    double x;

    switch (wd->kind) {
    case CL_DIST_FIXED:
        return wd->lo;
    case CL_DIST_UNIFORM:
        return wd->lo + (double)gsl_rng_uniform_int(
                            rng, (unsigned long)(wd->hi - wd->lo) + 1UL);
    case CL_DIST_LOGNORMAL:
        x = sim_ran_lognormal(rng, wd->a, wd->b); /* gsl_ran_lognormal() */
        break;
    case CL_DIST_EXPONENTIAL:
        x = sim_ran_exponential(rng, wd->a); /* gsl_ran_exponential() */
        break;
    default:
        x = gsl_ran_gamma(rng, wd->a, wd->b);
        break;
    }
    return x < wd->hi ? x : wd->hi;
}
