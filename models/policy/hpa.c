/*
 * Kubernetes Horizontal Pod Autoscaler (autoscaling/v2), on a Pods metric
 * with an AverageValue target (kubernetes/website @ 10ae760
 * content/en/docs/tasks/run-application/horizontal-pod-autoscale.md,
 * docs/sources.md §8):
 *
 *   ratio = mean over ready pods of m / t
 *   R* = current when |ratio - 1| <= tolerance, else ceil(ratio * ready)
 *
 * with the published treatment of pods without a metric: on a scale-up,
 * pending (not-ready) pods and ready pods that report nothing count as 0 %
 * of target; on a scale-down, ready pods that report nothing count as
 * 100 %; if that flips the direction or lands in the tolerance, hold.
 * Then the default behaviour: scale-down uses the maximum recommendation of
 * the last 300 s (stabilisation window), scale-up window 0 s; scale-up at
 * most max(+100 %, +4 pods) per 15 s, scale-down at most -100 % per 15 s.
 *
 * R in the formula is the ready count (the published rule), the size held
 * and compared against is ready + pending (the spec's replicas). Default
 * metric: concurrency (num_running + num_waiting) with target 32 per
 * replica, well below vLLM's max_num_seqs (256 or 1024, docs/sources.md §5.1),
 * so that requests rarely queue and decode batches stay in the range where
 * inter-token latency is near its floor. The HPA's CPU readiness delay
 * and initialisation period do not apply to these metrics.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/xalloc.h"

struct hpa_params {
    int metric; /* enum pol_util_metric */
    double target;
    double tolerance;
    double down_window_s;
    double up_window_s;
    double up_percent;
    int up_pods;
    double up_period_s;
    double down_percent;
    double down_period_s;
};

#define P(f) offsetof(struct hpa_params, f)

static const struct sim_param rows[] = {
    {"metric", SIM_PT_ENUM, SIM_U_NONE, -INFINITY, INFINITY, 0, "concurrency",
     "per-replica metric averaged over ready replicas", P(metric),
     pol_util_metric_choices, NULL},
    {"target", SIM_PT_DOUBLE, SIM_U_NONE, 0, INFINITY, SIM_PF_MIN_EXCL, "32",
     "target average value per replica, in the metric's unit", P(target), NULL,
     NULL},
    {"tolerance", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MAX_EXCL, "0.1",
     "no change while |m/t - 1| <= tolerance", P(tolerance), NULL, NULL},
    {"scale_down_stabilization", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, 0,
     "300s", "scale down to the largest recommendation of this window",
     P(down_window_s), NULL, NULL},
    {"scale_up_stabilization", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, 0, "0s",
     "scale up to the smallest recommendation of this window", P(up_window_s),
     NULL, NULL},
    {"scale_up_percent", SIM_PT_DOUBLE, SIM_U_NONE, 0, 100000, SIM_PF_MIN_EXCL,
     "100", "scale-up Percent policy, per scale_up_period", P(up_percent), NULL,
     NULL},
    {"scale_up_pods", SIM_PT_INT, SIM_U_NONE, 1, 100000, 0, "4",
     "scale-up Pods policy, per scale_up_period", P(up_pods), NULL, NULL},
    {"scale_up_period", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 1800, SIM_PF_MIN_EXCL,
     "15s", "period of the scale-up policies", P(up_period_s), NULL, NULL},
    {"scale_down_percent", SIM_PT_DOUBLE, SIM_U_NONE, 0, 100, SIM_PF_MIN_EXCL,
     "100", "scale-down Percent policy, per period", P(down_percent), NULL,
     NULL},
    {"scale_down_period", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 1800,
     SIM_PF_MIN_EXCL, "15s", "period of the scale-down policy",
     P(down_period_s), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct hpa {
    struct hpa_params p;
    struct pol_util_hpa_behavior b;
    struct pol_util_hpa_state st;
};

static void *create(const void *params)
{
    struct hpa *h = xmalloc(sizeof(*h));

    h->p = *(const struct hpa_params *)params;
    h->b.up_window_s = h->p.up_window_s;
    h->b.down_window_s = h->p.down_window_s;
    h->b.up_percent = h->p.up_percent;
    h->b.up_pods = h->p.up_pods;
    h->b.up_period_s = h->p.up_period_s;
    h->b.down_percent = h->p.down_percent;
    h->b.down_period_s = h->p.down_period_s;
    pol_util_hpa_state_init(&h->st);
    return h;
}

static void destroy(void *state)
{
    free(state);
}

/* Kubernetes' calcPlainMetricReplicas for an AverageValue target. */
static int recommend(const struct hpa *h, const struct pol_snapshot *s,
                     double mean, int with, int cur)
{
    double t = h->p.target, tol = h->p.tolerance;
    double ratio = mean / t, sum, new_ratio;
    int missing = s->ready - with, count, rec;

    if (missing < 0)
        missing = 0;
    if (missing == 0 && !(s->pending > 0 && ratio > 1)) {
        if (fabs(ratio - 1) <= tol)
            return cur;
        return pol_util_ceil(ratio * with);
    }
    sum = mean * with;
    count = with + missing;
    if (ratio < 1)
        sum += t * missing; /* missing pods at 100 % on a scale-down */
    else if (s->pending > 0)
        count += s->pending; /* not-ready pods at 0 % on a scale-up */
    new_ratio = sum / (t * count);
    if (fabs(new_ratio - 1) <= tol || (ratio < 1 && new_ratio > 1) ||
        (ratio > 1 && new_ratio < 1))
        return cur;
    rec = pol_util_ceil(new_ratio * count);
    if ((new_ratio < 1 && rec > cur) || (new_ratio > 1 && rec < cur))
        return cur;
    return rec;
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    struct hpa *h = state;
    int with, cur = pol_util_current(s), rec;
    double mean = pol_util_ready_mean(s, h->p.metric, &with);

    if (with == 0)
        return POL_UTIL_ENODATA;
    rec = recommend(h, s, mean, with, cur);
    out->desired = pol_util_hpa_behave(&h->st, &h->b, s->now_s, cur, rec);
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

const struct pol_entry pol_hpa = {
    .name = "hpa",
    .summary = "Kubernetes HPA: R* = ceil(R*m/t) outside tolerance 0.1, "
               "scale-down stabilised over 300 s, up max(100%, 4 pods)/15 s "
               "(kubernetes/website @ 10ae760)",
    .params = rows,
    .params_size = sizeof(struct hpa_params),
    .ops = &ops,
};
