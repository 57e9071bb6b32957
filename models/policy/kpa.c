/*
 * Knative Pod Autoscaler (knative/serving @ 98e5ef9
 * pkg/autoscaler/scaling/autoscaler.go, config/core/configmaps/
 * autoscaler.yaml, docs/sources.md §8), on revision-wide total concurrency:
 *
 *   P = max(1, ready)
 *   stable, panic = means of the total over the stable window (60 s) and
 *                   the panic window (10 % of it, 6 s)
 *   dspc = ceil(stable / t), dppc = ceil(panic / t), t = target * util
 *   each clamped to [floor(P / max_scale_down_rate),
 *                    ceil(max_scale_up_rate * P)]
 *   panic starts when dppc / P >= panic_threshold (200 %) and ends once a
 *   full stable window has passed with no evaluation over the threshold;
 *   outside panic R* = dspc; in panic R* = max(dspc, dppc) and never
 *   below the largest R* of this panic.
 *
 * P is the ready count, as published; since dspc is an absolute count,
 * pending replicas are not counted twice. The target defaults to
 * container-concurrency-target-default 100 x utilisation 70 % = 70. An LLM
 * replica's concurrency is num_running + num_waiting and it batches far
 * fewer requests well than a web container does; lower target (e.g. 32)
 * for LLM serving. Knative samples every 1 s and ticks every 2 s; here the
 * windows average the totals seen at each evaluation, so with a 15 s
 * interval the 6 s panic window holds only the latest sample. Set the
 * guard's interval to 2s for fidelity. Target burst capacity is out of
 * scope.
 *
 * Scale to zero (min_replicas 0; Knative docs, "Autoscaling / Configuring
 * scale to zero"): with no replica ready the activator buffers the
 * requests and reports their concurrency to the autoscaler, so the total
 * is then the cluster's (pol_util_idle_total: requests held and running);
 * once the stable window's mean is 0, dspc = 0 and R* = 0 (max_down =
 * floor(1 / 2) = 0). The orchestrator starts the first replica when a
 * request arrives (the activator's poke) and keeps the last one for
 * cluster.scale_to_zero_grace (scale-to-zero-grace-period, 30 s).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/xalloc.h"

struct kpa_params {
    int metric;
    double target;
    double utilization;
    double stable_window_s;
    double panic_window_pct;
    double panic_threshold_pct;
    double max_up_rate;
    double max_down_rate;
};

#define P(f) offsetof(struct kpa_params, f)

static const struct sim_param_choice kpa_metrics[] = {
    {"concurrency", POL_UTIL_M_CONCURRENCY},
    {"requests_per_s", POL_UTIL_M_REQUESTS_PER_S},
    {NULL, 0},
};

static const struct sim_param rows[] = {
    {"metric", SIM_PT_ENUM, SIM_U_NONE, -INFINITY, INFINITY, 0, "concurrency",
     "revision-wide total: concurrency (running + waiting) or rps", P(metric),
     kpa_metrics, NULL},
    {"target", SIM_PT_DOUBLE, SIM_U_NONE, 0, INFINITY, SIM_PF_MIN_EXCL, "100",
     "per-replica target (container-concurrency-target-default)", P(target),
     NULL, NULL},
    {"target_utilization", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MIN_EXCL,
     "70%", "fraction of target aimed at", P(utilization), NULL, NULL},
    {"stable_window", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, SIM_PF_MIN_EXCL,
     "60s", "averaging window of the stable mode", P(stable_window_s), NULL,
     NULL},
    {"panic_window_percentage", SIM_PT_DOUBLE, SIM_U_NONE, 1, 100, 0, "10",
     "panic window as a percentage of the stable window", P(panic_window_pct),
     NULL, NULL},
    {"panic_threshold_percentage", SIM_PT_DOUBLE, SIM_U_NONE, 110, 1000, 0,
     "200", "panic when the panic-window need reaches this % of ready",
     P(panic_threshold_pct), NULL, NULL},
    {"max_scale_up_rate", SIM_PT_DOUBLE, SIM_U_NONE, 1, INFINITY,
     SIM_PF_MIN_EXCL, "1000", "at most this many times ready per decision",
     P(max_up_rate), NULL, NULL},
    {"max_scale_down_rate", SIM_PT_DOUBLE, SIM_U_NONE, 1, INFINITY,
     SIM_PF_MIN_EXCL, "2", "at least ready divided by this per decision",
     P(max_down_rate), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct kpa {
    struct kpa_params p;
    struct pol_util_window totals;
    double panic_since_s; /* last time over the threshold; NAN: no panic */
    int max_panic_pods;
};

static void *create(const void *params)
{
    struct kpa *k = xmalloc(sizeof(*k));

    k->p = *(const struct kpa_params *)params;
    pol_util_window_init(&k->totals);
    k->panic_since_s = NAN;
    k->max_panic_pods = 0;
    return k;
}

static void destroy(void *state)
{
    free(state);
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    struct kpa *k = state;
    double t = k->p.target * k->p.utilization, stable, panic, ready;
    double panic_window_s = k->p.stable_window_s * k->p.panic_window_pct / 100;
    int with, max_up, max_down, dspc, dppc, ds, dp, want, over;
    double total = pol_util_ready_sum(s, k->p.metric, &with);

    if (with == 0 && s->ready == 0)
        total = pol_util_idle_total(s, k->p.metric); /* the activator's */
    else if (with == 0)
        return POL_UTIL_ENODATA;
    if (isnan(total))
        return POL_UTIL_ENODATA;
    pol_util_window_push(&k->totals, s->now_s, total);
    stable = pol_util_window_mean(&k->totals, s->now_s, k->p.stable_window_s);
    panic = pol_util_window_mean(&k->totals, s->now_s, panic_window_s);

    ready = s->ready > 1 ? s->ready : 1;
    max_up = pol_util_ceil(k->p.max_up_rate * ready);
    max_down = pol_util_floor(ready / k->p.max_down_rate);
    dspc = pol_util_ceil(stable / t);
    dppc = pol_util_ceil(panic / t);
    ds = clamp(dspc, max_down, max_up);
    dp = clamp(dppc, max_down, max_up);

    over = dppc / ready >= k->p.panic_threshold_pct / 100;
    if (over) {
        k->panic_since_s = s->now_s; /* enter, or extend */
    } else if (!isnan(k->panic_since_s) &&
               s->now_s - k->panic_since_s > k->p.stable_window_s) {
        k->panic_since_s = NAN;
        k->max_panic_pods = 0;
    }

    want = ds;
    if (!isnan(k->panic_since_s)) {
        want = dp > ds ? dp : ds;
        if (want > k->max_panic_pods)
            k->max_panic_pods = want;
        else
            want = k->max_panic_pods; /* never decrease in panic */
    }
    out->desired = want;
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

const struct pol_entry pol_kpa = {
    .name = "kpa",
    .summary = "Knative KPA: ceil(total concurrency/70) over a 60 s stable "
               "window, 6 s panic window at 200%, no decrease in panic, "
               "rates up 1000x/down 2x (knative/serving @ 98e5ef9)",
    .params = rows,
    .params_size = sizeof(struct kpa_params),
    .ops = &ops,
};
