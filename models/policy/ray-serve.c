/*
 * Ray Serve's default autoscaling policy (docs.ray.io AutoscalingConfig;
 * Ray replica_queue_length_autoscaling_policy, docs/sources.md §8):
 *
 *   total = mean over look_back_period (30 s) of the ongoing requests
 *           (num_running + num_waiting summed over ready replicas)
 *   e = total / (target_ongoing_requests * R)
 *   R* = ceil(R * (1 + (e - 1) * g)), g = upscale_smoothing_factor when
 *        e >= 1, else downscale_smoothing_factor (both default to
 *        smoothing_factor, 1)
 *   if ceil(R * e) < R but smoothing left R* = R, R* = R - 1
 *   clamped to [min_replicas, max_replicas]
 *
 * R is the running (ready) count, as in Ray; the decision is compared with
 * the target size (ready + pending) and applies only once it has pointed
 * the same way for upscale_delay (30 s) or downscale_delay (600 s),
 * measured from the first evaluation of the run (Ray counts 0.1 s control
 * loops; the two agree to within one evaluation interval). Until then the
 * size holds. target_ongoing_requests defaults to Ray's 2 (1 before Ray
 * 2.32), which suits one-request-at-a-time replicas; an LLM replica batches
 * tens of requests, so raise it (e.g. 32) for LLM serving. Requests queued
 * in Ray's handles before reaching a replica are not visible here.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/xalloc.h"

struct ray_params {
    double target;
    double smoothing;
    double up_smoothing;   /* NAN: smoothing */
    double down_smoothing; /* NAN: smoothing */
    double up_delay_s;
    double down_delay_s;
    double look_back_s;
};

#define P(f) offsetof(struct ray_params, f)

static const struct sim_param rows[] = {
    {"target_ongoing_requests", SIM_PT_DOUBLE, SIM_U_NONE, 0, INFINITY,
     SIM_PF_MIN_EXCL, "2", "ongoing requests (running + waiting) per replica",
     P(target), NULL, NULL},
    {"smoothing_factor", SIM_PT_DOUBLE, SIM_U_NONE, 0, 100, SIM_PF_MIN_EXCL,
     "1", "gain on the error in both directions", P(smoothing), NULL, NULL},
    {"upscale_smoothing_factor", SIM_PT_DOUBLE, SIM_U_NONE, 0, 100,
     SIM_PF_MIN_EXCL, NULL, "gain when scaling up (unset: smoothing_factor)",
     P(up_smoothing), NULL, NULL},
    {"downscale_smoothing_factor", SIM_PT_DOUBLE, SIM_U_NONE, 0, 100,
     SIM_PF_MIN_EXCL, NULL, "gain when scaling down (unset: smoothing_factor)",
     P(down_smoothing), NULL, NULL},
    {"upscale_delay", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "30s",
     "a scale-up must persist this long", P(up_delay_s), NULL, NULL},
    {"downscale_delay", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "600s",
     "a scale-down must persist this long", P(down_delay_s), NULL, NULL},
    {"look_back_period", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, 0, "30s",
     "averaging window of the ongoing requests", P(look_back_s), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct ray {
    struct ray_params p;
    struct pol_util_window totals;
    int dir;        /* +1 up, -1 down, 0 none: the current run */
    double since_s; /* first evaluation of the run */
};

static void *create(const void *params)
{
    struct ray *r = xmalloc(sizeof(*r));

    r->p = *(const struct ray_params *)params;
    if (isnan(r->p.up_smoothing))
        r->p.up_smoothing = r->p.smoothing;
    if (isnan(r->p.down_smoothing))
        r->p.down_smoothing = r->p.smoothing;
    pol_util_window_init(&r->totals);
    r->dir = 0;
    r->since_s = 0;
    return r;
}

static void destroy(void *state)
{
    free(state);
}

/* Ray's _calculate_desired_num_replicas. */
static int desired(const struct ray *r, const struct pol_snapshot *s,
                   double total)
{
    int R = s->ready, want;
    double e = total / (r->p.target * R);
    double g = e >= 1 ? r->p.up_smoothing : r->p.down_smoothing;

    want = pol_util_ceil(R * (1 + (e - 1) * g));
    if (pol_util_ceil(R * e) < R && want == R)
        want = R - 1;
    if (want > s->max_replicas)
        want = s->max_replicas;
    if (want < s->min_replicas)
        want = s->min_replicas;
    return want;
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    struct ray *r = state;
    int with, cur = pol_util_current(s), want, dir;
    double total = pol_util_ready_sum(s, POL_UTIL_M_CONCURRENCY, &with);

    if (with == 0 || s->ready <= 0)
        return POL_UTIL_ENODATA;
    pol_util_window_push(&r->totals, s->now_s, total);
    total = pol_util_window_mean(&r->totals, s->now_s, r->p.look_back_s);
    want = desired(r, s, total);
    dir = want > cur ? 1 : want < cur ? -1 : 0;
    if (dir != r->dir) {
        r->dir = dir;
        r->since_s = s->now_s;
    }
    out->desired = cur;
    if (dir != 0 && s->now_s - r->since_s >=
                        (dir > 0 ? r->p.up_delay_s : r->p.down_delay_s)) {
        out->desired = want;
        r->dir = 0; /* Ray resets its decision counter */
    }
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

const struct pol_entry pol_ray_serve = {
    .name = "ray-serve",
    .summary = "Ray Serve: e = ongoing/(2*R), R* = ceil(R*(1+(e-1)*g)), "
               "applied after 30 s up / 600 s down persistence "
               "(docs.ray.io AutoscalingConfig)",
    .params = rows,
    .params_size = sizeof(struct ray_params),
    .ops = &ops,
};
