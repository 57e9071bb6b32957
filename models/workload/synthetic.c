/*
 * Synthetic workloads: a renewal arrival process and two independent length
 * distributions, each drawn from its own named stream of the loop.
 *
 * Arrival processes (gaps in seconds, rate lambda = rate_per_s; Law and
 * Kelton, "Simulation Modeling and Analysis", 5th ed., 2015, sections 6.2
 * and 8.3):
 *   poisson        gaps ~ Exponential(mean 1/lambda), CV 1;
 *   deterministic  arrival k (k = 1, 2, ...) at k/lambda exactly, CV 0;
 *   gamma          gaps ~ Gamma(shape a = 1/cv^2, scale b = cv^2/lambda), so
 *                  the mean a*b = 1/lambda and the CV 1/sqrt(a) = cv;
 *                  sampled with gsl_ran_gamma (Marsaglia and Tsang, 2000).
 * Each gap is rounded to the nearest ns and added to an int64 clock, so the
 * clock is exact integer arithmetic: the only error is the per-gap rounding
 * (at most 0.5 ns, zero-mean), never the drift of a double running sum.
 * Deterministic arrivals are computed as round(k * 1e9 / lambda) directly,
 * so even that rounding does not accumulate.
 *
 * Lengths (tokens) are drawn by the shared sampler of dist.h (fixed,
 * uniform, lognormal, exponential, gamma, with an optional cap), then
 * rounded to the nearest integer and clamped to [1, WL_TOKENS_MAX].
 * Rounding shifts the mean by well under a token when the mean is large;
 * the clamp at 1 raises it when much mass lies below 0.5.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/workload/dist.h"
#include "models/workload/workload-int.h"
#include "sim/errors.h"
#include "sim/time.h"
#include "sim/xalloc.h"

/* A length distribution and its stream. */
struct len_dist {
    struct wl_dist d;
    gsl_rng *rng; /* borrowed from the loop */
};

struct wl__synthetic {
    int process;       /* enum cl_arrival_process */
    double rate_per_s; /* lambda */
    double shape;      /* gamma arrivals */
    double scale_s;    /* gamma arrivals */
    int64_t requests;  /* -1 = no limit */
    int64_t duration_ns;
    int64_t emitted;
    int64_t now_ns; /* arrival time of the last request */
    gsl_rng *arrivals;
    struct len_dist prompt;
    struct len_dist output;
};

static int positive(double x)
{
    return isfinite(x) && x > 0.0;
}

static int64_t dist_sample(const struct len_dist *ld)
{
    return wl__tokens_round(wl_dist_draw(&ld->d, ld->rng));
}

struct wl__synthetic *wl__synthetic_new(const struct cl_workload *cfg,
                                        struct sim_loop *loop,
                                        struct sim_diag *d)
{
    const struct cl_arrival *arr = &cfg->synthetic.arrival;
    struct wl__synthetic s = {0};

    if (!positive(arr->rate_per_s)) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.synthetic.arrival.rate_per_s: expected a "
                       "positive number, got %g",
                       arr->rate_per_s);
        return NULL;
    }
    s.process = arr->process;
    s.rate_per_s = arr->rate_per_s;
    switch (arr->process) {
    case CL_ARR_POISSON:
    case CL_ARR_DETERMINISTIC:
        break;
    case CL_ARR_GAMMA:
        if (!positive(arr->cv)) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.synthetic.arrival.cv: expected a positive "
                           "number, got %g",
                           arr->cv);
            return NULL;
        }
        s.shape = 1.0 / (arr->cv * arr->cv);
        s.scale_s = arr->cv * arr->cv / arr->rate_per_s;
        break;
    default:
        sim_diag_error(d, NULL, 0, 0,
                       "workload.synthetic.arrival.process: unknown process "
                       "%d; valid: deterministic, gamma, poisson",
                       arr->process);
        return NULL;
    }

    s.requests = cfg->synthetic.requests;
    s.duration_ns = cfg->synthetic.duration_ns;
    if (s.requests < -1 || s.duration_ns < -1) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.synthetic: requests and duration_ns must be "
                       "-1 (unset) or non-negative, got %lld and %lld",
                       (long long)s.requests, (long long)s.duration_ns);
        return NULL;
    }
    /* An endless source would make a run that never ends; the loader is
     * meant to require one of the two, this is the backstop. */
    if (s.requests < 0 && s.duration_ns < 0) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.synthetic: set requests or duration_ns");
        return NULL;
    }
    if (wl_dist_init(&s.prompt.d, &cfg->synthetic.prompt_tokens,
                     "workload.synthetic.prompt_tokens", d) != 0 ||
        wl_dist_init(&s.output.d, &cfg->synthetic.output_tokens,
                     "workload.synthetic.output_tokens", d) != 0)
        return NULL;

    s.arrivals = sim_loop_stream(loop, "arrivals");
    s.prompt.rng = sim_loop_stream(loop, "prompt_tokens");
    s.output.rng = sim_loop_stream(loop, "output_tokens");

    struct wl__synthetic *p = xmalloc(sizeof(*p));
    *p = s;
    return p;
}

/* Advances the clock to the next arrival. Returns 0, or SIM_EEOF if the
 * clock would pass SIM_TIME_MAX. */
static int next_arrival(struct wl__synthetic *s)
{
    double gap_s;

    if (s->process == CL_ARR_DETERMINISTIC) {
        double t = (double)(s->emitted + 1) * 1e9 / s->rate_per_s;
        if (!(t < 9.2e18))
            return SIM_EEOF;
        s->now_ns = (int64_t)llround(t);
        return 0;
    }
    if (s->process == CL_ARR_GAMMA)
        gap_s = gsl_ran_gamma(s->arrivals, s->shape, s->scale_s);
    else
        gap_s = gsl_ran_exponential(s->arrivals, 1.0 / s->rate_per_s);
    int64_t gap_ns = sim_s_to_ns(gap_s);
    if (gap_ns > SIM_TIME_MAX - s->now_ns)
        return SIM_EEOF;
    s->now_ns += gap_ns;
    return 0;
}

int wl__synthetic_next(struct wl__synthetic *s, struct wl_request *out)
{
    if (s->requests >= 0 && s->emitted >= s->requests)
        return SIM_EEOF;
    if (next_arrival(s) != 0)
        return SIM_EEOF;
    if (s->duration_ns >= 0 && s->now_ns > s->duration_ns)
        return SIM_EEOF;
    out->arrival_ns = s->now_ns;
    out->prompt_tokens = dist_sample(&s->prompt);
    out->output_tokens = dist_sample(&s->output);
    s->emitted++;
    return 0;
}

void wl__synthetic_free(struct wl__synthetic *s)
{
    free(s);
}
