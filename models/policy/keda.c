/*
 * KEDA (kedacore/keda @ 8b4f083, docs/sources.md §8): KEDA owns an HPA that
 * reads its external-metrics API with an AverageValue target, so
 *
 *   total = sum over ready replicas of m
 *   R* = current when |total / (t * current) - 1| <= tolerance,
 *        else ceil(total / t)
 *
 * (the HPA's GetExternalPerPodMetricReplicas; current = ready + pending,
 * the spec's replicas, with no per-pod readiness adjustment), followed by
 * the HPA's default behaviour (300 s scale-down stabilisation, scale-up
 * max(100 %, 4 pods) per 15 s). KEDA itself polls the scaler every
 * pollingInterval (30 s) for activity: the scaler is active while total >
 * activationThreshold (default 0). When it has been inactive for
 * cooldownPeriod (300 s) KEDA scales to minReplicaCount. Real KEDA does
 * this only when minReplicaCount is 0 and leaves 1..N to the HPA; here
 * "min" is the snapshot's min_replicas whatever it is, reached directly
 * once the cooldown has passed (the clock starts at the first
 * evaluation). With min_replicas 0 that is KEDA's scale to zero
 * (minReplicaCount: 0). At zero replicas the HPA is off and KEDA polls
 * its scaler alone: the metric then comes from its source, not from
 * replicas (pol_util_idle_total: requests held count as waiting; a
 * per-replica metric reads 0), and once it is above
 * activation_threshold KEDA scales to max(minReplicaCount, 1) = 1 and
 * hands over to the HPA (KEDA docs, "Scaling Deployments": activation
 * phase 0 <-> 1, scaling phase 1 <-> N). Defaults: metric concurrency,
 * target 32 per replica (as hpa, see there).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/xalloc.h"

struct keda_params {
    int metric;
    double target;
    double activation_threshold;
    double polling_interval_s;
    double cooldown_period_s;
    double tolerance;
    double down_window_s;
};

#define P(f) offsetof(struct keda_params, f)

static const struct sim_param rows[] = {
    {"metric", SIM_PT_ENUM, SIM_U_NONE, -INFINITY, INFINITY, 0, "concurrency",
     "per-replica metric, summed over ready replicas", P(metric),
     pol_util_metric_choices, NULL},
    {"target", SIM_PT_DOUBLE, SIM_U_NONE, 0, INFINITY, SIM_PF_MIN_EXCL, "32",
     "AverageValue target per replica, in the metric's unit", P(target), NULL,
     NULL},
    {"activation_threshold", SIM_PT_DOUBLE, SIM_U_NONE, 0, INFINITY, 0, "0",
     "active while the summed metric is above this", P(activation_threshold),
     NULL, NULL},
    {"polling_interval", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, SIM_PF_MIN_EXCL,
     "30s", "how often activity is checked", P(polling_interval_s), NULL, NULL},
    {"cooldown_period", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "300s",
     "inactive this long: scale to min_replicas", P(cooldown_period_s), NULL,
     NULL},
    {"tolerance", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MAX_EXCL, "0.1",
     "the HPA's tolerance", P(tolerance), NULL, NULL},
    {"scale_down_stabilization", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, 0,
     "300s", "the HPA's scale-down stabilisation window", P(down_window_s),
     NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct keda {
    struct keda_params p;
    struct pol_util_hpa_behavior b;
    struct pol_util_hpa_state st;
    double last_poll_s;   /* -INFINITY before the first poll */
    double last_active_s; /* NAN before the first evaluation */
    int active;
};

static void *create(const void *params)
{
    struct keda *k = xmalloc(sizeof(*k));

    k->p = *(const struct keda_params *)params;
    k->b.up_window_s = 0;
    k->b.down_window_s = k->p.down_window_s;
    k->b.up_percent = 100;
    k->b.up_pods = 4;
    k->b.up_period_s = 15;
    k->b.down_percent = 100;
    k->b.down_period_s = 15;
    pol_util_hpa_state_init(&k->st);
    k->last_poll_s = -INFINITY;
    k->last_active_s = NAN;
    k->active = 1;
    return k;
}

static void destroy(void *state)
{
    free(state);
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    struct keda *k = state;
    int with, cur = pol_util_current(s), rec;
    double total = pol_util_ready_sum(s, k->p.metric, &with);

    if (with == 0 && s->ready == 0) {
        /* Activation phase: no replica ready, the scaler alone. */
        total = pol_util_idle_total(s, k->p.metric);
        if (isnan(total))
            total = 0;
        if (isnan(k->last_active_s))
            k->last_active_s = s->now_s;
        k->last_poll_s = s->now_s;
        k->active = total > k->p.activation_threshold;
        if (k->active) {
            k->last_active_s = s->now_s;
            out->desired = cur > 1 ? cur : 1;
        } else {
            out->desired = cur > s->min_replicas ? cur : s->min_replicas;
        }
        return 0;
    }
    if (with == 0)
        return POL_UTIL_ENODATA;
    if (isnan(k->last_active_s))
        k->last_active_s = s->now_s;
    if (s->now_s - k->last_poll_s >= k->p.polling_interval_s) {
        k->last_poll_s = s->now_s;
        k->active = total > k->p.activation_threshold;
        if (k->active)
            k->last_active_s = s->now_s;
    }
    if (!k->active && s->now_s - k->last_active_s >= k->p.cooldown_period_s) {
        out->desired = s->min_replicas;
        return 0;
    }
    if (cur > 0 && fabs(total / (k->p.target * cur) - 1) <= k->p.tolerance)
        rec = cur;
    else
        rec = pol_util_ceil(total / k->p.target);
    out->desired = pol_util_hpa_behave(&k->st, &k->b, s->now_s, cur, rec);
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

const struct pol_entry pol_keda = {
    .name = "keda",
    .summary = "KEDA: HPA on an external AverageValue metric, R* = "
               "ceil(sum m/t); inactive for cooldown 300 s (polled every "
               "30 s) -> min replicas (kedacore/keda @ 8b4f083)",
    .params = rows,
    .params_size = sizeof(struct keda_params),
    .ops = &ops,
};
