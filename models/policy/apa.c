/*
 * AIBrix APA (vllm-project/aibrix @ e3e10f9
 * pkg/controller/podautoscaler/algorithm/apa.go, docs/sources.md §8):
 *
 *   r = (per-ready-replica mean of m, averaged over the window) / t
 *   r > 1 + up_tolerance:   R* = min(ceil(R * r), ceil(max_up_rate * R))
 *   r < 1 - down_tolerance: R* = max(ceil(R * r), floor(R / max_down_rate))
 *   otherwise hold
 *
 * Defaults: tolerances 0.1, rates 2, window 180 s (AIBrix's observe
 * window). R is the ready count, as in AIBrix. We never let a scale-up
 * signal shrink the cluster (R* < ready + pending while replicas are
 * still pending) nor a scale-down signal grow it; AIBrix compares with
 * ready only. AIBrix's cooldowns (scale-up 0 s, scale-down 300 s) are left
 * to the guard, whose defaults are the same (scale_up_cooldown 0s,
 * scale_down_cooldown 300s); set them there. The guard's cooldown counts
 * from the last change in either direction, AIBrix's from the last
 * scale-down signal; the difference only shows after a recent scale-up.
 * Default metric: concurrency, target 32 per replica (see hpa.c).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/xalloc.h"

struct apa_params {
    int metric;
    double target;
    double up_tolerance;
    double down_tolerance;
    double max_up_rate;
    double max_down_rate;
    double window_s;
};

#define P(f) offsetof(struct apa_params, f)

static const struct sim_param rows[] = {
    {"metric", SIM_PT_ENUM, SIM_U_NONE, -INFINITY, INFINITY, 0, "concurrency",
     "per-replica metric averaged over ready replicas", P(metric),
     pol_util_metric_choices, NULL},
    {"target", SIM_PT_DOUBLE, SIM_U_NONE, 0, INFINITY, SIM_PF_MIN_EXCL, "32",
     "target per replica, in the metric's unit", P(target), NULL, NULL},
    {"up_tolerance", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 10, 0, "0.1",
     "scale up when m/t > 1 + this", P(up_tolerance), NULL, NULL},
    {"down_tolerance", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MAX_EXCL,
     "0.1", "scale down when m/t < 1 - this", P(down_tolerance), NULL, NULL},
    {"max_up_rate", SIM_PT_DOUBLE, SIM_U_NONE, 1, INFINITY, SIM_PF_MIN_EXCL,
     "2", "at most this many times ready per decision", P(max_up_rate), NULL,
     NULL},
    {"max_down_rate", SIM_PT_DOUBLE, SIM_U_NONE, 1, INFINITY, SIM_PF_MIN_EXCL,
     "2", "at least ready divided by this per decision", P(max_down_rate), NULL,
     NULL},
    {"window", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, 0, "180s",
     "averaging window of the metric (0: the latest sample)", P(window_s), NULL,
     NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct apa {
    struct apa_params p;
    struct pol_util_window means;
};

static void *create(const void *params)
{
    struct apa *a = xmalloc(sizeof(*a));

    a->p = *(const struct apa_params *)params;
    pol_util_window_init(&a->means);
    return a;
}

static void destroy(void *state)
{
    free(state);
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    struct apa *a = state;
    int with, cur = pol_util_current(s), want;
    double mean = pol_util_ready_mean(s, a->p.metric, &with), r, ready;

    if (with == 0)
        return POL_UTIL_ENODATA;
    pol_util_window_push(&a->means, s->now_s, mean);
    r = pol_util_window_mean(&a->means, s->now_s, a->p.window_s) / a->p.target;
    ready = s->ready > 1 ? s->ready : 1;
    if (r > 1 + a->p.up_tolerance) {
        int by_r = pol_util_ceil(ready * r);
        int cap = pol_util_ceil(a->p.max_up_rate * ready);
        want = by_r < cap ? by_r : cap;
        out->desired = want > cur ? want : cur;
    } else if (r < 1 - a->p.down_tolerance) {
        int by_r = pol_util_ceil(ready * r);
        int floor_ = pol_util_floor(ready / a->p.max_down_rate);
        want = by_r > floor_ ? by_r : floor_;
        out->desired = want < cur ? want : cur;
    } else {
        out->desired = cur;
    }
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

const struct pol_entry pol_apa = {
    .name = "apa",
    .summary = "AIBrix APA: r = mean m/t; r > 1.1 -> min(ceil(R*r), 2R), "
               "r < 0.9 -> max(ceil(R*r), floor(R/2)), 180 s window "
               "(vllm-project/aibrix @ e3e10f9 apa.go)",
    .params = rows,
    .params_size = sizeof(struct apa_params),
    .ops = &ops,
};
