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
 * Time-varying rate (arrival.diurnal or arrival.steps) by time rescaling:
 * the process above runs unchanged in "operational time" u (seconds), and
 * each arrival u_k is mapped to real time t_k = Lambda^-1(u_k), where
 * Lambda(t) = integral from 0 to t of m(x) dx and m is the rate multiplier.
 * The arrival rate at t is then rate_per_s * m(t), and for poisson this is
 * exactly the non-homogeneous Poisson process with that intensity (Cinlar,
 * "Introduction to Stochastic Processes", 1975, ch. 4; Lewis and Shedler,
 * "Simulation of nonhomogeneous Poisson processes by thinning", Naval Res.
 * Logistics Q. 26, 1979, which lists inversion as the alternative to
 * thinning; Law and Kelton, section 8.6.2). For deterministic and gamma it
 * gives the same rate with gaps whose shape follows the base process
 * locally. Inversion rather than thinning: it draws exactly one variate
 * per arrival whatever the profile, so the "arrivals" stream stays aligned
 * across profiles (common random numbers), and it needs no bound on m.
 *   steps    m is piecewise linear (a ramp moves from the value in force to
 *            the step's multiplier; a later step that starts mid-ramp
 *            starts from the value reached), so Lambda is piecewise
 *            quadratic and is inverted exactly per piece, with the stable
 *            root x = 2d / (m0 + sqrt(m0^2 + 2 s d)); pieces are walked
 *            with a cursor, O(1) amortised per arrival since u only grows.
 *   diurnal  m(t) = 1 + a cos(w (t - p)), w = 2 pi / period, so Lambda(t) =
 *            t + (a/w) (sin(w (t - p)) + sin(w p)); |Lambda(t) - t| <= 2a/w
 *            brackets the root, found by Newton's method safeguarded by
 *            bisection (Press et al., "Numerical Recipes", 3rd ed., 9.4).
 * Without a profile the mapping is the identity and the int64 clock is used
 * directly, so constant-rate runs are exactly as before. With one, t is
 * computed in double seconds and rounded to the nearest ns (relative error
 * ~1e-16, below 1 ns for runs shorter than ~100 days); the mapping is
 * monotone, so arrivals never decrease.
 *
 * Lengths (tokens) are drawn by the shared sampler of dist.h (fixed,
 * uniform, lognormal, exponential, gamma, with an optional cap), then
 * rounded to the nearest integer and clamped to [1, WL_TOKENS_MAX].
 * Rounding shifts the mean by well under a token when the mean is large;
 * the clamp at 1 raises it when much mass lies below 0.5.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/workload/dist.h"
#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/rng.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* A length distribution and its stream. */
struct len_dist {
    struct wl_dist d;
    gsl_rng *rng; /* borrowed from the loop */
};

/* One piece of a piecewise-linear multiplier: m goes linearly from m0 at
 * t0 to m1 at t1 (t1 = INFINITY for the last, constant piece), and
 * lambda0 = Lambda(t0). Times in seconds. */
struct piece {
    double t0, t1;
    double m0, m1;
    double lambda0;
};

/* The rate profile reduced to what the inversion needs. */
struct profile {
    int kind; /* enum cl_profile_kind */
    /* diurnal */
    double amplitude;
    double omega;  /* 2 pi / period, per second */
    double peak_s; /* p */
    double last_t; /* last inverse, a lower bracket for the next */
    /* steps */
    struct piece *pieces; /* owned */
    int npieces;
    int cur; /* piece of the last inverse */
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
    int64_t op_ns;  /* operational time of the last request */
    struct profile prof;
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

/* Appends a piece from (t0, m0) to (t1, m1) unless it is empty (a jump). */
static void add_piece(struct profile *pr, double t0, double m0, double t1,
                      double m1)
{
    struct piece *pc;

    if (!(t1 > t0))
        return;
    pc = &pr->pieces[pr->npieces++];
    pc->t0 = t0;
    pc->t1 = t1;
    pc->m0 = m0;
    pc->m1 = m1;
    pc->lambda0 = 0;
}

/* Builds the pieces of a steps profile. Each step adds at most two pieces
 * (a ramp and the flat part after it), plus the first flat piece. */
static void steps_build(struct profile *pr, const struct cl_rate_profile *cp)
{
    double t = 0, m = 1;

    pr->pieces = xcalloc((size_t)(2 * cp->nsteps + 2), sizeof(*pr->pieces));
    for (int i = 0; i < cp->nsteps; i++) {
        const struct cl_rate_step *st = &cp->steps[i];
        double at = (double)st->at_ns * 1e-9, ramp = (double)st->ramp_ns * 1e-9;
        double next = i + 1 < cp->nsteps ? (double)cp->steps[i + 1].at_ns * 1e-9
                                         : INFINITY;
        add_piece(pr, t, m, at, m); /* flat until this step */
        t = at;
        if (ramp > 0) {
            double end = at + ramp, m_end = st->multiplier;
            if (next < end) { /* cut short: the next step starts mid-ramp */
                m_end = m + (st->multiplier - m) * (next - at) / ramp;
                end = next;
            }
            add_piece(pr, t, m, end, m_end);
            t = end;
            m = m_end;
        } else {
            m = st->multiplier;
        }
    }
    add_piece(pr, t, m, INFINITY, m);
    for (int i = 1; i < pr->npieces; i++) {
        const struct piece *q = &pr->pieces[i - 1];
        pr->pieces[i].lambda0 =
            q->lambda0 + 0.5 * (q->m0 + q->m1) * (q->t1 - q->t0);
    }
}

/* Solves Lambda(t) = u (seconds) within piece pc. */
static double piece_inverse(const struct piece *pc, double u)
{
    double d = u - pc->lambda0, slope, disc;

    if (d <= 0)
        return pc->t0;
    if (isinf(pc->t1) || pc->m1 == pc->m0)
        return pc->t0 + d / pc->m0;
    slope = (pc->m1 - pc->m0) / (pc->t1 - pc->t0);
    disc = pc->m0 * pc->m0 + 2.0 * slope * d;
    if (disc < 0) /* rounding at the end of a falling ramp */
        disc = 0;
    return pc->t0 + 2.0 * d / (pc->m0 + sqrt(disc));
}

static double diurnal_lambda(const struct profile *pr, double t)
{
    return t + pr->amplitude / pr->omega *
                   (sin(pr->omega * (t - pr->peak_s)) +
                    sin(pr->omega * pr->peak_s));
}

/* Solves Lambda(t) = u for the diurnal profile. Lambda is increasing with
 * slope m(t) in [1 - a, 1 + a], and |Lambda(t) - t| <= 2a/w, so
 * [u - 2a/w, u + 2a/w] (and the previous root below) brackets the root. */
static double diurnal_inverse(struct profile *pr, double u)
{
    double span = 2.0 * pr->amplitude / pr->omega;
    double lo = fmax(fmax(0.0, u - span), pr->last_t), hi = u + span;
    double t = fmin(fmax(u, lo), hi);

    if (!(diurnal_lambda(pr, lo) < u))
        return lo;
    for (int it = 0; it < 100; it++) {
        double f = diurnal_lambda(pr, t) - u;
        double fp = 1.0 + pr->amplitude * cos(pr->omega * (t - pr->peak_s));
        double next;

        if (f > 0)
            hi = t;
        else
            lo = t;
        next = t - f / fp;
        if (!(next > lo && next < hi)) /* Newton left the bracket */
            next = 0.5 * (lo + hi);
        if (fabs(next - t) <= 1e-12 * fmax(1.0, t) || hi - lo <= 1e-12 * hi) {
            t = next;
            break;
        }
        t = next;
    }
    pr->last_t = t;
    return t;
}

/* Maps operational time u (seconds) to real time (seconds). */
static double profile_inverse(struct profile *pr, double u)
{
    if (pr->kind == CL_PROF_DIURNAL)
        return diurnal_inverse(pr, u);
    while (pr->cur + 1 < pr->npieces && pr->pieces[pr->cur + 1].lambda0 <= u)
        pr->cur++;
    return piece_inverse(&pr->pieces[pr->cur], u);
}

/* Checks the profile of cfg and fills *pr. Returns 0, or -1 with an error
 * in d (nothing allocated then). */
static int profile_init(struct profile *pr, const struct cl_rate_profile *cp,
                        struct sim_diag *d)
{
    static const char key[] = "workload.synthetic.arrival";

    memset(pr, 0, sizeof(*pr));
    pr->kind = cp->kind;
    switch (cp->kind) {
    case CL_PROF_NONE:
        return 0;
    case CL_PROF_DIURNAL:
        if (!(cp->amplitude >= 0 && cp->amplitude < 1) ||
            !(cp->period_ns > 0) || cp->peak_at_ns < 0) {
            sim_diag_error(d, NULL, 0, 0,
                           "%s.diurnal: expected 0 <= amplitude < 1, period "
                           "> 0 and peak_at >= 0, got %g, %lld ns and %lld "
                           "ns",
                           key, cp->amplitude, (long long)cp->period_ns,
                           (long long)cp->peak_at_ns);
            return -1;
        }
        pr->amplitude = cp->amplitude;
        pr->omega =
            2.0 * 3.14159265358979323846 / ((double)cp->period_ns * 1e-9);
        /* The cycle's time at t is t + phase: the peak comes phase
         * earlier in the run. */
        pr->peak_s = (double)(cp->peak_at_ns - cp->phase_ns) * 1e-9;
        return 0;
    case CL_PROF_STEPS:
        if (cp->nsteps < 0 || (cp->nsteps > 0 && cp->steps == NULL)) {
            sim_diag_error(d, NULL, 0, 0, "%s.steps: %d steps, no array", key,
                           cp->nsteps);
            return -1;
        }
        for (int i = 0; i < cp->nsteps; i++) {
            const struct cl_rate_step *st = &cp->steps[i];
            if (!positive(st->multiplier) || st->at_ns < 0 || st->ramp_ns < 0 ||
                (i > 0 && st->at_ns <= cp->steps[i - 1].at_ns)) {
                sim_diag_error(d, NULL, 0, 0,
                               "%s.steps[%d]: expected at after the previous "
                               "step, multiplier > 0 and ramp >= 0, got %lld "
                               "ns, %g and %lld ns",
                               key, i, (long long)st->at_ns, st->multiplier,
                               (long long)st->ramp_ns);
                return -1;
            }
        }
        steps_build(pr, cp);
        return 0;
    default:
        sim_diag_error(d, NULL, 0, 0,
                       "%s: unknown rate profile %d; valid: diurnal, steps",
                       key, cp->kind);
        return -1;
    }
}

static void *synthetic_open(const struct cl_workload *cfg, const char *path,
                            struct sim_loop *loop, struct sim_diag *d)
{
    const struct cl_arrival *arr = &cfg->synthetic.arrival;
    struct wl__synthetic s = {0};

    (void)path;
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

    if (profile_init(&s.prof, &arr->profile, d) != 0)
        return NULL;

    s.arrivals = sim_loop_stream(loop, "arrivals");
    s.prompt.rng = sim_loop_stream(loop, "prompt_tokens");
    s.output.rng = sim_loop_stream(loop, "output_tokens");

    struct wl__synthetic *p = xmalloc(sizeof(*p));
    *p = s;
    return p;
}

/* Advances the operational clock to the next arrival. Returns 0, or
 * SIM_EEOF if the clock would pass SIM_TIME_MAX. */
static int next_operational(struct wl__synthetic *s)
{
    double gap_s;

    if (s->process == CL_ARR_DETERMINISTIC) {
        double t = (double)(s->emitted + 1) * 1e9 / s->rate_per_s;
        if (!(t < 9.2e18))
            return SIM_EEOF;
        s->op_ns = (int64_t)llround(t);
        return 0;
    }
    if (s->process == CL_ARR_GAMMA)
        gap_s = gsl_ran_gamma(s->arrivals, s->shape, s->scale_s);
    else
        gap_s = sim_ran_exponential(s->arrivals, 1.0 / s->rate_per_s);
    int64_t gap_ns = sim_s_to_ns(gap_s);
    if (gap_ns > SIM_TIME_MAX - s->op_ns)
        return SIM_EEOF;
    s->op_ns += gap_ns;
    return 0;
}

/* Advances both clocks to the next arrival. Returns 0 or SIM_EEOF. */
static int next_arrival(struct wl__synthetic *s)
{
    double t_ns;

    if (next_operational(s) != 0)
        return SIM_EEOF;
    if (s->prof.kind == CL_PROF_NONE) {
        s->now_ns = s->op_ns;
        return 0;
    }
    t_ns = profile_inverse(&s->prof, (double)s->op_ns * 1e-9) * 1e9;
    if (!(t_ns < 9.2e18))
        return SIM_EEOF;
    /* Rounding could in principle undo the order of two arrivals closer
     * than 1 ns; keep the sequence non-decreasing. */
    int64_t t = (int64_t)llround(t_ns);
    s->now_ns = t > s->now_ns ? t : s->now_ns;
    return 0;
}

static int synthetic_next(void *state, struct wl_request *out,
                          struct sim_diag *d)
{
    struct wl__synthetic *s = state;

    (void)d;
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

static void synthetic_close(void *state)
{
    struct wl__synthetic *s = state;

    if (s == NULL)
        return;
    free(s->prof.pieces);
    free(s);
}

static int synthetic_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_SYNTHETIC && !cfg->synthetic.sessions.enabled;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = synthetic_match,
    .open = synthetic_open,
    .next = synthetic_next,
    .close = synthetic_close,
};

const struct wl__format wl__format_synthetic = {
    .name = "synthetic",
    .summary = "renewal arrivals (poisson, deterministic, gamma; diurnal or "
               "step rate by time rescaling) and two length distributions "
               "(Law and Kelton, Simulation Modeling and Analysis, 2015)",
    .flags = WL_FMT_LOOP,
    .ops = &ops,
};
