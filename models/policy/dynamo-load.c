/*
 * dynamo-load: NVIDIA Dynamo's SLA planner in load (reactive) mode, for one
 * aggregated pool (docs/sources.md §8; ai-dynamo/dynamo docs/architecture/
 * load_planner.md and sla_planner.md @ 19d1fc5).
 *
 * Rule. Every adjustment_interval_s (Dynamo: 5 s) the planner estimates each
 * ready engine's latency from its current load with an online linear
 * regression fitted to the last max_num_fpm_samples (64) observations,
 * needing at least load_min_observations (5):
 *   ITL_i  = a_d + b_d * x_i,  x_i = decode load of replica i,
 *   TTFT_i = a_p + b_p * u_i,  u_i = prompt tokens/s of replica i.
 * It adds one replica when ALL ready replicas' estimated ITL exceed
 * target_itl_s, or all estimated TTFT exceed target_ttft_s. It removes one
 * when every estimate is below target x scaling_down_sensitivity (0.8) and
 * the survivors, each carrying x_i * N / (N - 1) (Dynamo PR #9294), would
 * still be estimated under target. One step per interval; nothing while a
 * replica is pending; N >= 2 to remove.
 *
 * Differences from Dynamo, and why. Dynamo regresses per-iteration
 * ForwardPassMetrics (decode KV tokens -> iteration time, prefill tokens ->
 * prefill time). A live system exposing only vLLM's Prometheus metrics
 * (docs/sources.md §6.1) has windowed quantiles per replica instead, so one
 * sample here is (load, latency quantile) of one ready replica at one
 * evaluation. The decode load is selectable: running requests (default:
 * exported by every server), KV tokens in use (kv_usage x kv_capacity_tokens,
 * the nearest to Dynamo's regressor) or output tokens/s. The latency compared
 * is p50 by default (Dynamo's estimate is a mean iteration time) or p99.
 * A negative fitted slope (noise) is clamped to 0, so the estimate falls
 * back to the mean latency. With no target set for either metric the
 * policy holds. Cost: O(max_num_fpm_samples) per evaluation.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "base/param.h"
#include "base/xalloc.h"

enum dl_load {
    DL_LOAD_RUNNING = 0,
    DL_LOAD_KV_TOKENS = 1,
    DL_LOAD_OUTPUT_TOKENS = 2,
};

enum dl_quantile {
    DL_Q_P50 = 0,
    DL_Q_P99 = 1,
};

struct dl_params {
    double adjustment_interval_s;
    double scaling_down_sensitivity;
    int load_min_observations;
    int max_num_fpm_samples;
    int decode_load;
    int latency_quantile;
};

static const struct sim_param_choice dl_loads[] = {
    {"kv_tokens", DL_LOAD_KV_TOKENS},
    {"output_tokens", DL_LOAD_OUTPUT_TOKENS},
    {"running", DL_LOAD_RUNNING},
    {NULL, 0},
};

static const struct sim_param_choice dl_quantiles[] = {
    {"p50", DL_Q_P50},
    {"p99", DL_Q_P99},
    {NULL, 0},
};

static const struct sim_param dl_rows[] = {
    {"adjustment_interval_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "5",
     "least time between two decisions (Dynamo load planner: 5 s); the "
     "guard's interval_s sets how often it is asked",
     offsetof(struct dl_params, adjustment_interval_s), NULL, NULL},
    {"scaling_down_sensitivity", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1,
     SIM_PF_MIN_EXCL, "0.8",
     "scale down only when every estimate is below target times this "
     "(Dynamo load_scaling_down_sensitivity 80%)",
     offsetof(struct dl_params, scaling_down_sensitivity), NULL, NULL},
    {"load_min_observations", SIM_PT_INT, SIM_U_NONE, 2, 4096, 0, "5",
     "samples needed before the regression is used (Dynamo: 5)",
     offsetof(struct dl_params, load_min_observations), NULL, NULL},
    {"max_num_fpm_samples", SIM_PT_INT, SIM_U_NONE, 2, 4096, 0, "64",
     "most recent samples kept for the regression (Dynamo: 64)",
     offsetof(struct dl_params, max_num_fpm_samples), NULL, NULL},
    {"decode_load", SIM_PT_ENUM, SIM_U_NONE, -INFINITY, INFINITY, 0, "running",
     "per-replica regressor of ITL: running (requests in the batch), "
     "kv_tokens (KV tokens in use, Dynamo's), output_tokens (tokens/s)",
     offsetof(struct dl_params, decode_load), dl_loads, NULL},
    {"latency_quantile", SIM_PT_ENUM, SIM_U_NONE, -INFINITY, INFINITY, 0, "p50",
     "latency quantile regressed and compared with the targets (Dynamo "
     "estimates a mean; p50 is the nearest exported quantile)",
     offsetof(struct dl_params, latency_quantile), dl_quantiles, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* A bounded ring of (x, y) samples with a least-squares line. */
struct dl_ring {
    double *x;
    double *y;
    int cap;
    int n;
    int head; /* next slot to write */
};

struct dl_state {
    struct dl_params p;
    struct dl_ring itl;  /* decode load -> ITL */
    struct dl_ring ttft; /* prompt tokens/s -> TTFT */
    double last_eval_s;
};

static void ring_init(struct dl_ring *r, int cap)
{
    r->x = xcalloc((size_t)cap, sizeof(double));
    r->y = xcalloc((size_t)cap, sizeof(double));
    r->cap = cap;
    r->n = 0;
    r->head = 0;
}

static void ring_push(struct dl_ring *r, double x, double y)
{
    if (!isfinite(x) || !isfinite(y))
        return;
    r->x[r->head] = x;
    r->y[r->head] = y;
    r->head = (r->head + 1) % r->cap;
    if (r->n < r->cap)
        r->n++;
}

/* Least-squares y = a + b x over the ring, b clamped to >= 0 (a negative
 * slope is noise: more load never makes a step faster). With no spread in
 * x the line is flat at the mean. */
static void ring_fit(const struct dl_ring *r, double *a, double *b)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;

    for (int i = 0; i < r->n; i++) {
        mx += r->x[i];
        my += r->y[i];
    }
    mx /= r->n;
    my /= r->n;
    for (int i = 0; i < r->n; i++) {
        sxx += (r->x[i] - mx) * (r->x[i] - mx);
        sxy += (r->x[i] - mx) * (r->y[i] - my);
    }
    *b = sxx > 0 && sxy > 0 ? sxy / sxx : 0;
    *a = my - *b * mx;
}

static double decode_load(const struct dl_params *p,
                          const struct pol_replica *r)
{
    switch (p->decode_load) {
    case DL_LOAD_KV_TOKENS:
        return r->kv_usage * r->kv_capacity_tokens;
    case DL_LOAD_OUTPUT_TOKENS:
        return r->output_tokens_per_s;
    default:
        return r->num_running;
    }
}

static void *dl_create(const void *params)
{
    struct dl_state *st = xcalloc(1, sizeof(*st));

    st->p = *(const struct dl_params *)params;
    ring_init(&st->itl, st->p.max_num_fpm_samples);
    ring_init(&st->ttft, st->p.max_num_fpm_samples);
    st->last_eval_s = -INFINITY;
    return st;
}

static void dl_destroy(void *state)
{
    struct dl_state *st = state;

    if (st == NULL)
        return;
    free(st->itl.x);
    free(st->itl.y);
    free(st->ttft.x);
    free(st->ttft.y);
    free(st);
}

/* Verdict of one metric over the ready replicas: +1 all above target, -1
 * all below target x sensitivity and the N-1 check passes, 0 otherwise or
 * when the metric is not in use. */
static int verdict(const struct dl_state *st, const struct dl_ring *ring,
                   double target, const struct pol_snapshot *s, int decode)
{
    double a, b;
    int n = 0, above = 0, below = 0, survive = 0;

    if (!isfinite(target) || ring->n < st->p.load_min_observations)
        return 0;
    ring_fit(ring, &a, &b);
    for (int i = 0; i < s->nreplicas; i++) {
        const struct pol_replica *r = &s->replicas[i];
        double x, est, est_after;

        if (r->state != POL_RS_READY)
            continue;
        x = decode ? decode_load(&st->p, r) : r->prompt_tokens_per_s;
        if (!isfinite(x))
            continue;
        n++;
        est = a + b * x;
        above += est > target;
        below += est < target * st->p.scaling_down_sensitivity;
        est_after = s->ready >= 2
                        ? a + b * x * s->ready / (double)(s->ready - 1)
                        : INFINITY;
        survive += est_after < target;
    }
    if (n == 0)
        return 0;
    if (above == n)
        return 1;
    if (below == n && survive == n)
        return -1;
    return 0;
}

static int dl_decide(void *state, const struct pol_snapshot *s,
                     struct pol_decision *out)
{
    struct dl_state *st = state;
    int p99 = st->p.latency_quantile == DL_Q_P99;
    int vi, vt, up, down;

    /* Observations accumulate at every call, decisions only once per
     * adjustment interval (the tolerance absorbs clock rounding). */
    for (int i = 0; i < s->nreplicas; i++) {
        const struct pol_replica *r = &s->replicas[i];

        if (r->state != POL_RS_READY)
            continue;
        ring_push(&st->itl, decode_load(&st->p, r),
                  p99 ? r->itl_p99_s : r->itl_p50_s);
        ring_push(&st->ttft, r->prompt_tokens_per_s,
                  p99 ? r->ttft_p99_s : r->ttft_p50_s);
    }
    if (s->now_s - st->last_eval_s < st->p.adjustment_interval_s - 1e-9)
        return 0;
    st->last_eval_s = s->now_s;
    if (s->pending > 0 || s->ready < 1)
        return 0;

    vi = verdict(st, &st->itl, s->target_itl_s, s, 1);
    vt = verdict(st, &st->ttft, s->target_ttft_s, s, 0);
    up = vi > 0 || vt > 0;
    /* Down needs every metric in use to agree; a metric without a target
     * or without enough samples gives 0 and so blocks a scale-down unless
     * it is simply not configured. */
    down = !up && (vi < 0 || !isfinite(s->target_itl_s)) &&
           (vt < 0 || !isfinite(s->target_ttft_s)) && (vi < 0 || vt < 0);
    if (up)
        out->desired = s->ready + 1;
    else if (down && s->ready >= 2)
        out->desired = s->ready - 1;
    return 0;
}

static const struct pol_ops dl_ops = {
    .version = POL_API_VERSION,
    .create = dl_create,
    .destroy = dl_destroy,
    .decide = dl_decide,
};

const struct pol_entry pol_dynamo_load = {
    .name = "dynamo-load",
    .summary = "Dynamo SLA planner, load mode: +1 if all replicas' regressed "
               "ITL/TTFT exceed the SLA, -1 if all < SLA x 0.8 and N-1 holds; "
               "every 5 s, 64 samples (ai-dynamo/dynamo load_planner.md)",
    .params = dl_rows,
    .params_size = sizeof(struct dl_params),
    .ops = &dl_ops,
};
