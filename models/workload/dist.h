/*
 * Distributions of positive quantities, token lengths and service times,
 * from a struct cl_dist, reduced to what sampling needs. One sampler serves
 * the synthetic workloads (which round draws to whole tokens) and the
 * abstract servers (which use them as seconds), so both follow the same
 * moment matching:
 *   fixed, deterministic  value (or mean);
 *   uniform               integers in [ceil(min), floor(max)], each equally
 *                         likely;
 *   lognormal             mean m and sd s (or cv) of the variable itself:
 *                         sigma^2 = ln(1 + s^2/m^2), mu = ln(m) - sigma^2/2
 *                         (Law and Kelton, "Simulation Modeling and
 *                         Analysis", 5th ed., table 6.3);
 *   exponential           mean;
 *   gamma                 mean and cv (or sd): shape 1/cv^2, scale m*cv^2
 *                         (gsl_ran_gamma, Marsaglia and Tsang 2000).
 * Lognormal, exponential and gamma take an optional cap (max): a larger
 * draw is set to it. Single-threaded; the generator is the caller's.
 */
#ifndef WL_DIST_H
#define WL_DIST_H

#include <gsl/gsl_rng.h>

#include "models/workload/config.h"
#include "base/diag.h"

struct wl_dist {
    int kind;  /* enum cl_dist_kind; FIXED also stands for DETERMINISTIC */
    double a;  /* lognormal mu, gamma shape, exponential mean */
    double b;  /* lognormal sigma, gamma scale */
    double lo; /* fixed value; uniform lower bound */
    double hi; /* uniform upper bound; cap of the continuous kinds */
};

/* Checks cd and fills *wd. key names the scenario section for messages
 * ("workload.synthetic.prompt_tokens"). Returns 0, or -1 with an error in d
 * (*wd is then partly filled and must not be used). */
int wl_dist_init(struct wl_dist *wd, const struct cl_dist *cd, const char *key,
                 struct sim_diag *d);

/* Draws one value from rng (borrowed). */
double wl_dist_draw(const struct wl_dist *wd, gsl_rng *rng);

#endif /* WL_DIST_H */
