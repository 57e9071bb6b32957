/*
 * llmd-saturation: the llm-d Workload Variant Autoscaler's saturation
 * analyzer, V1 (docs/sources.md §8; llm-d/llm-d-workload-variant-autoscaler @
 * b08b1c7 docs/saturation-analyzer.md), for one variant.
 *
 * Rule. Per ready replica i take kv_i = max over the last window_s (1 min)
 * of vllm:kv_cache_usage_perc and q_i = the same max of
 * vllm:num_requests_waiting. A replica is non-saturated iff
 * kv_i < kv_cache_threshold (0.80) and q_i < queue_length_threshold (5).
 * Over the non-saturated replicas (count M)
 *   avgSpareKV = mean(0.80 - kv_i),  avgSpareQ = mean(5 - q_i).
 * Scale up by one if M = 0, avgSpareKV < kv_spare_trigger (0.1) or
 * avgSpareQ < queue_spare_trigger (3). Otherwise scale down by one only if
 * M >= 2 and, with the non-saturated replicas' total KV and queue load
 * spread over M - 1 of them, 0.80 - sum(kv)/(M-1) >= 0.1 and
 * 5 - sum(q)/(M-1) >= 3. Nothing while any replica is pending; with no
 * ready replica it holds (V1 does not scale from zero; the guard's
 * min_replicas is the floor). One step per decision. WVA's choice of the
 * cheapest variant to add and the dearest to remove does not arise with
 * one pool.
 *
 * The max over the window needs each replica's history, but the snapshot
 * carries no replica id. The history is kept per position among the ready
 * replicas (their order in the snapshot) and restarted whenever the number
 * of ready replicas changes, so just after a change the max covers fewer
 * samples than a minute. At most POL_LLMD_HIST snapshots are kept (a
 * minute at 1 s evaluations); older ones fall out even when inside the
 * window, so window_s longer than POL_LLMD_HIST intervals is cut short.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "base/param.h"
#include "base/xalloc.h"

#define POL_LLMD_HIST 128          /* snapshots kept */
#define POL_LLMD_MAX_REPLICAS 4096 /* ready replicas tracked */

struct ls_params {
    double window_s;
    double kv_cache_threshold;
    double queue_length_threshold;
    double kv_spare_trigger;
    double queue_spare_trigger;
};

static const struct sim_param ls_rows[] = {
    {"window_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 3600, 0, "60",
     "span of max_over_time of the per-replica gauges (WVA: 1m)",
     offsetof(struct ls_params, window_s), NULL, NULL},
    {"kv_cache_threshold", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MIN_EXCL,
     "0.80", "a replica at or above this KV usage is saturated (WVA: 0.80)",
     offsetof(struct ls_params, kv_cache_threshold), NULL, NULL},
    {"queue_length_threshold", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1e6,
     SIM_PF_MIN_EXCL, "5",
     "a replica with at least this many waiting requests is saturated "
     "(WVA: 5)",
     offsetof(struct ls_params, queue_length_threshold), NULL, NULL},
    {"kv_spare_trigger", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, "0.1",
     "scale up when the mean spare KV of non-saturated replicas is below "
     "this (WVA: 0.1)",
     offsetof(struct ls_params, kv_spare_trigger), NULL, NULL},
    {"queue_spare_trigger", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1e6, 0, "3",
     "scale up when the mean spare queue of non-saturated replicas is below "
     "this (WVA: 3)",
     offsetof(struct ls_params, queue_spare_trigger), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* One evaluation's gauges of the ready replicas, in snapshot order. */
struct ls_entry {
    double t_s;
    int n;
    double *kv;
    double *q;
};

struct ls_state {
    struct ls_params p;
    struct ls_entry hist[POL_LLMD_HIST];
    int nhist; /* entries in use */
    int head;  /* next entry to write */
};

static void *ls_create(const void *params)
{
    struct ls_state *st = xcalloc(1, sizeof(*st));

    st->p = *(const struct ls_params *)params;
    return st;
}

static void ls_destroy(void *state)
{
    struct ls_state *st = state;

    if (st == NULL)
        return;
    for (int i = 0; i < POL_LLMD_HIST; i++) {
        free(st->hist[i].kv);
        free(st->hist[i].q);
    }
    free(st);
}

/* Records the ready replicas' gauges; restarts the history when their
 * number changed. Returns the number recorded. */
static int record(struct ls_state *st, const struct pol_snapshot *s)
{
    struct ls_entry *e;
    int n = 0;

    for (int i = 0; i < s->nreplicas; i++)
        n += s->replicas[i].state == POL_RS_READY;
    if (n > POL_LLMD_MAX_REPLICAS)
        n = POL_LLMD_MAX_REPLICAS;
    if (st->nhist > 0) {
        int last = (st->head + POL_LLMD_HIST - 1) % POL_LLMD_HIST;

        if (st->hist[last].n != n)
            st->nhist = 0;
    }
    e = &st->hist[st->head];
    e->kv = xrealloc(e->kv, (size_t)(n > 0 ? n : 1), sizeof(double));
    e->q = xrealloc(e->q, (size_t)(n > 0 ? n : 1), sizeof(double));
    e->t_s = s->now_s;
    e->n = 0;
    for (int i = 0; i < s->nreplicas && e->n < n; i++) {
        const struct pol_replica *r = &s->replicas[i];

        if (r->state != POL_RS_READY)
            continue;
        /* A missing gauge counts as saturated-side: it cannot vouch for
         * spare capacity. */
        e->kv[e->n] = isfinite(r->kv_usage) ? r->kv_usage : 1.0;
        e->q[e->n] = isfinite(r->num_waiting) ? r->num_waiting : INFINITY;
        e->n++;
    }
    st->head = (st->head + 1) % POL_LLMD_HIST;
    if (st->nhist < POL_LLMD_HIST)
        st->nhist++;
    return n;
}

/* Max over the window of replica j's gauges. */
static void window_max(const struct ls_state *st, double now_s, int j,
                       double *kv, double *q)
{
    *kv = -INFINITY;
    *q = -INFINITY;
    for (int k = 0; k < st->nhist; k++) {
        const struct ls_entry *e =
            &st->hist[(st->head + POL_LLMD_HIST - 1 - k) % POL_LLMD_HIST];

        if (k > 0 && now_s - e->t_s > st->p.window_s + 1e-9)
            break;
        *kv = fmax(*kv, e->kv[j]);
        *q = fmax(*q, e->q[j]);
    }
}

static int ls_decide(void *state, const struct pol_snapshot *s,
                     struct pol_decision *out)
{
    struct ls_state *st = state;
    const struct ls_params *p = &st->p;
    double sum_kv = 0, sum_q = 0, spare_kv, spare_q;
    int n, m = 0;

    n = record(st, s);
    if (s->pending > 0 || n == 0)
        return 0;
    for (int j = 0; j < n; j++) {
        double kv, q;

        window_max(st, s->now_s, j, &kv, &q);
        if (kv < p->kv_cache_threshold && q < p->queue_length_threshold) {
            m++;
            sum_kv += kv;
            sum_q += q;
        }
    }
    if (m == 0) {
        out->desired = s->ready + 1;
        return 0;
    }
    spare_kv = p->kv_cache_threshold - sum_kv / m;
    spare_q = p->queue_length_threshold - sum_q / m;
    if (spare_kv < p->kv_spare_trigger || spare_q < p->queue_spare_trigger) {
        out->desired = s->ready + 1;
        return 0;
    }
    if (m >= 2 && s->ready >= 2 &&
        p->kv_cache_threshold - sum_kv / (m - 1) >= p->kv_spare_trigger &&
        p->queue_length_threshold - sum_q / (m - 1) >= p->queue_spare_trigger)
        out->desired = s->ready - 1;
    return 0;
}

static const struct pol_ops ls_ops = {
    .version = POL_API_VERSION,
    .create = ls_create,
    .destroy = ls_destroy,
    .decide = ls_decide,
};

const struct pol_entry pol_llmd_saturation = {
    .name = "llmd-saturation",
    .summary = "llm-d WVA V1 saturation: per-replica 1-min max KV/queue; up 1 "
               "if mean spare KV < 0.1 or spare queue < 3 (thresholds 0.80, "
               "5); down 1 if load over N-1 keeps both "
               "(llm-d WVA saturation-analyzer.md)",
    .params = ls_rows,
    .params_size = sizeof(struct ls_params),
    .ops = &ls_ops,
};
