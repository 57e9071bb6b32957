/* The analytic half of the planner: the workload's figures, the layouts of
 * the search, each layout's throughput bound and the Pareto frontier.
 * Nothing here simulates; every time comes from the step-time model
 * (models/perf/roofline.h), priced exactly as the simulator prices an
 * iteration. docs/plan.md derives the bound. */
#include "plan/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "models/workload/source.h"
#include "base/errors.h"
#include "sim/loop.h"
#include "sim/time.h"
#include "base/xalloc.h"

int plan_workload_measure(const struct cl_scenario *s, const char *base_dir,
                          struct plan_workload *out, struct sim_diag *d)
{
    struct sim_loop *loop = sim_loop_new(s->seed);
    struct wl_source *src = wl_source_new(&s->workload, base_dir, loop, d);
    struct wl_request rq;
    double prompt = 0, output = 0, last_s = 0, win_s = PLAN_PEAK_WINDOW_S;
    uint64_t n = 0, in_win = 0, peak = 0;
    int64_t win_ns, win_end_ns, dur_ns = -1;
    int rc = SIM_EIO, full = 0;

    memset(out, 0, sizeof(*out));
    if (src == NULL) {
        sim_loop_free(loop);
        return SIM_EIO;
    }
    if (s->workload.kind == CL_WL_SYNTHETIC)
        dur_ns = s->workload.synthetic.duration_ns;
    else
        dur_ns = s->workload.trace.duration_ns;
    /* Shorter than four windows: a quarter of the known span. Without a
     * duration the span is known only at the end, so the windows stay. */
    if (dur_ns > 0 && (double)dur_ns / SIM_NS_PER_S_F < 4 * win_s)
        win_s = (double)dur_ns / SIM_NS_PER_S_F / 4;
    win_ns = (int64_t)llround(win_s * SIM_NS_PER_S_F);
    win_end_ns = win_ns;
    while (n < PLAN_WL_MAX_REQUESTS &&
           (rc = wl_source_next(src, &rq, d)) == 0) {
        while (rq.arrival_ns >= win_end_ns) {
            if (in_win > peak)
                peak = in_win;
            in_win = 0;
            full++;
            win_end_ns += win_ns;
        }
        in_win++;
        n++;
        prompt += (double)rq.prompt_tokens;
        output += (double)rq.output_tokens;
        last_s = (double)rq.arrival_ns / SIM_NS_PER_S_F;
    }
    if (rc == SIM_EEOF || rc == 0)
        rc = 0;
    wl_source_free(src);
    sim_loop_free(loop);
    if (rc != 0)
        return rc;
    if (n == 0) {
        sim_diag_error(d, s->file, 0, 0, "workload: no request to plan for");
        return SIM_EINVAL;
    }
    /* The last window counts when it lies within the duration, or when
     * there is no other; else arrivals stopped inside it. */
    if ((full == 0 || (dur_ns > 0 && win_end_ns <= dur_ns)) && in_win > peak)
        peak = in_win;
    out->requests = n;
    out->truncated = n >= PLAN_WL_MAX_REQUESTS;
    out->span_s = dur_ns > 0 && !out->truncated
                      ? (double)dur_ns / SIM_NS_PER_S_F
                      : last_s;
    if (out->span_s < 1)
        out->span_s = 1;
    if (full == 0 && out->span_s < win_s)
        win_s = out->span_s;
    out->window_s = win_s;
    out->rate_mean_per_s = (double)n / out->span_s;
    out->rate_peak_per_s = (double)peak / win_s;
    if (out->rate_peak_per_s < out->rate_mean_per_s)
        out->rate_peak_per_s = out->rate_mean_per_s;
    out->prompt_mean_tokens = prompt / (double)n;
    out->output_mean_tokens = output / (double)n;
    return 0;
}

/* The time of one prompt of p tokens prefilled alone, chunk by chunk
 * within the token budget. */
static int64_t prefill_alone_ns(const struct perf_replica *r, int64_t p,
                                int64_t budget)
{
    int64_t done = 0, ns = 0;

    while (done < p) {
        int64_t c = p - done < budget ? p - done : budget;
        struct perf_batch b = {0};

        b.prefill_tokens = c;
        b.prefill_ctx_tokens = done;
        b.prefill_attn_pairs = (double)c * ((double)done + (double)c / 2);
        b.prefill_seqs = 1;
        b.prefill_done_seqs = done + c == p;
        ns += perf_iteration_ns(r, &b);
        done += c;
    }
    return ns;
}

/* Prompt tokens per second of iterations that fill the token budget with
 * whole mean prompts (one chunk of the budget when a prompt is longer),
 * at the pipeline's interval (stage_ns; the latency when pp = 1). */
static double prefill_rate(const struct perf_replica *r, int64_t p,
                           int64_t budget)
{
    struct perf_batch b = {0};
    struct perf_breakdown br;
    int64_t k = p < budget ? budget / p : 1;
    int64_t c = p < budget ? p : budget;

    b.prefill_tokens = k * c;
    b.prefill_attn_pairs = (double)k * (double)c * ((double)c / 2);
    b.prefill_seqs = k;
    b.prefill_done_seqs = p <= budget ? k : 0;
    perf_iteration_breakdown(r, &b, &br);
    return br.stage_ns > 0
               ? (double)(k * c) * SIM_NS_PER_S_F / (double)br.stage_ns
               : 0;
}

/* ceil(x) for a replica count, tolerant of rounding just above an
 * integer; at least 1. */
static int replicas_ceil(double x)
{
    double c = ceil(x - 1e-9);

    if (!(c >= 1))
        return 1;
    return c > 1e6 ? 1000000 : (int)c;
}

int plan_bound_compute(const struct perf_replica *r,
                       const struct plan_target *t,
                       const struct plan_workload *w, struct plan_bound *out,
                       char *why, size_t whylen)
{
    struct perf_saturation sat;
    int64_t ctx, hi, lo, p, max_seqs, budget;
    double dec_m, dec_p, pf_m = 0, pf_p = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (r == NULL || t == NULL || w == NULL || t->max_num_seqs == 0 ||
        t->max_num_batched_tokens == 0 || !(t->headroom >= 1))
        return SIM_EINVAL;
    /* Per data-parallel attention rank, as the engine has them. */
    max_seqs = (t->max_num_seqs > 0 ? t->max_num_seqs
                                    : perf_default_max_num_seqs(r->gpu)) *
               r->dp;
    budget = (t->max_num_batched_tokens > 0
                  ? t->max_num_batched_tokens
                  : perf_default_max_num_batched_tokens(r->gpu)) *
             r->dp;
    ctx = llround(w->prompt_mean_tokens + w->output_mean_tokens / 2);
    if (ctx < 1)
        ctx = 1;
    out->context_tokens = ctx;
    rc = perf_saturate(r, ctx, 1, &sat);
    if (rc != 0) {
        if (whylen > 0)
            snprintf(why, whylen,
                     "the kv cache (%lld tokens) holds no sequence of the "
                     "mean context, %lld tokens",
                     (long long)perf_kv_capacity_tokens(r), (long long)ctx);
        return rc;
    }
    out->kv_limit_seqs = sat.kv_limit_seqs;
    out->step1_ns = sat.cycle_ns;
    if (t->tpot_ns > 0 && sat.cycle_ns > t->tpot_ns) {
        if (whylen > 0)
            snprintf(why, whylen,
                     "one sequence alone decodes at %.2f ms per token (context "
                     "%lld), above slo.tpot_ms %.6g",
                     sim_ns_to_ms(sat.cycle_ns), (long long)ctx,
                     sim_ns_to_ms(t->tpot_ns));
        return SIM_EINFEASIBLE;
    }
    p = llround(w->prompt_mean_tokens);
    if (p < 1)
        p = 1;
    out->prefill_ns = prefill_alone_ns(r, p, budget);
    if (t->ttft_ns > 0 && out->prefill_ns > t->ttft_ns) {
        if (whylen > 0)
            snprintf(why, whylen,
                     "a mean prompt of %lld tokens alone takes %.2f ms to "
                     "prefill, above slo.ttft_ms %.6g",
                     (long long)p, sim_ns_to_ms(out->prefill_ns),
                     sim_ns_to_ms(t->ttft_ns));
        return SIM_EINFEASIBLE;
    }

    /* B: the largest batch whose decode cycle is within the target. The
     * cycle grows with the batch, so bisect on [1, hi]. */
    hi = max_seqs < sat.kv_limit_seqs ? max_seqs : sat.kv_limit_seqs;
    lo = 1;
    if (t->tpot_ns > 0) {
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            perf_saturate(r, ctx, mid, &sat);
            if (sat.cycle_ns <= t->tpot_ns)
                lo = mid;
            else
                hi = mid - 1;
        }
    } else {
        lo = hi;
    }
    perf_saturate(r, ctx, lo, &sat);
    out->batch_seqs = lo;
    out->step_ns = sat.cycle_ns;
    out->decode_tokens_per_s = sat.tokens_per_s;
    out->prefill_tokens_per_s = prefill_rate(r, p, budget);

    /* Each replica must carry its share of both the decode and the
     * prefill tokens. The larger share is a lower bound (a mixed iteration
     * reads the weights once for both, so the two shares overlap); their
     * sum, which assumes no overlap, sets the cap. */
    dec_m =
        w->rate_mean_per_s * w->output_mean_tokens / out->decode_tokens_per_s;
    dec_p =
        w->rate_peak_per_s * w->output_mean_tokens / out->decode_tokens_per_s;
    if (out->prefill_tokens_per_s > 0) {
        pf_m = w->rate_mean_per_s * w->prompt_mean_tokens /
               out->prefill_tokens_per_s;
        pf_p = w->rate_peak_per_s * w->prompt_mean_tokens /
               out->prefill_tokens_per_s;
    }
    out->replicas_mean = dec_m > pf_m ? dec_m : pf_m;
    out->replicas_peak = dec_p > pf_p ? dec_p : pf_p;
    out->replicas_peak_sum = dec_p + pf_p;
    out->min_replicas = replicas_ceil(out->replicas_mean);
    out->peak_replicas = replicas_ceil(out->replicas_peak);
    out->cap_replicas = replicas_ceil(t->headroom * out->replicas_peak_sum);
    if (out->cap_replicas < out->min_replicas)
        out->cap_replicas = out->min_replicas;
    return 0;
}

static void add_layout(struct plan_layout **v, size_t *n, size_t *cap,
                       const struct cl_scenario *s, const struct arch_spec *a,
                       const struct gpu_spec *g, int tp, int pp, int ep,
                       int dtype)
{
    struct plan_layout *l;
    struct perf_replica r;
    char why[512];

    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        *v = xrealloc(*v, *cap, sizeof(**v));
    }
    l = &(*v)[(*n)++];
    memset(l, 0, sizeof(*l));
    l->gpu = g;
    l->tp = tp;
    l->pp = pp;
    l->ep = ep;
    l->weight_dtype = dtype;
    l->gpus = (ep > tp ? ep : tp) * pp;
    l->price_usd_per_gpu_hour = g->price_usd_per_hour;
    if (!isnan(s->hardware.price_usd_per_gpu_hour) &&
        cl_gpu_find(s, s->hardware.gpu) == g)
        l->price_usd_per_gpu_hour = s->hardware.price_usd_per_gpu_hour;
    if (cl_replica_perf_init(s, a, g, tp, pp, ep, dtype, &r, why,
                             sizeof(why)) == 0) {
        l->verdict = PLAN_V_FITS;
        l->gpus = r.gpus;
    } else {
        l->verdict = PLAN_V_MEMORY;
        l->why = xstrdup(why);
    }
}

void plan_layouts_enumerate(const struct cl_scenario *s,
                            const struct arch_spec *a,
                            const struct gpu_spec *const *gpus, int ngpus,
                            const int *dtypes, int ndtypes,
                            struct plan_layout **out, size_t *n)
{
    struct plan_layout *v = NULL;
    size_t nv = 0, cap = 0;
    int per_node =
        s->hardware.gpus_per_node > 0 ? s->hardware.gpus_per_node : 1;
    int pp = s->deploy.pp > 1 ? s->deploy.pp : 1;
    int experts = a->moe.n_routed_experts;
    int node_tp = 1;

    while (node_tp * 2 <= per_node)
        node_tp *= 2;
    for (int gi = 0; gi < ngpus; gi++) {
        for (int di = 0; di < ndtypes; di++) {
            size_t start = nv;
            int fits = 0;

            for (int tp = 1; tp <= per_node; tp *= 2) {
                add_layout(&v, &nv, &cap, s, a, gpus[gi], tp, pp, 1,
                           dtypes[di]);
                for (int ep = tp; experts > 0 && ep <= per_node; ep *= 2)
                    if (ep >= 2 && experts % ep == 0)
                        add_layout(&v, &nv, &cap, s, a, gpus[gi], tp, pp, ep,
                                   dtypes[di]);
            }
            for (size_t i = start; i < nv; i++)
                fits |= v[i].verdict == PLAN_V_FITS;
            /* Nothing fits on one node: whole-node pipeline stages. */
            for (int stages = 2;
                 !fits && pp == 1 && stages <= 8 && stages <= a->layers;
                 stages *= 2) {
                add_layout(&v, &nv, &cap, s, a, gpus[gi], node_tp, stages, 1,
                           dtypes[di]);
                fits = v[nv - 1].verdict == PLAN_V_FITS;
            }
        }
    }
    *out = v;
    *n = nv;
}

void plan_layouts_free(struct plan_layout *v, size_t n)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i].why);
    free(v);
}

void plan_layout_name(const struct plan_layout *l, char *buf, size_t len)
{
    int k;

    if (l->pd) {
        k = snprintf(buf, len, "P tp%d", l->pd_tp[0]);
        if (k >= 0 && (size_t)k < len && l->pd_ep[0] > 1)
            k += snprintf(buf + k, len - (size_t)k, " ep%d", l->pd_ep[0]);
        if (k >= 0 && (size_t)k < len)
            k += snprintf(buf + k, len - (size_t)k, " / D tp%d", l->pd_tp[1]);
        if (k >= 0 && (size_t)k < len && l->pd_ep[1] > 1)
            snprintf(buf + k, len - (size_t)k, " ep%d", l->pd_ep[1]);
        return;
    }
    k = snprintf(buf, len, "tp%d", l->tp);

    if (k >= 0 && (size_t)k < len && l->ep > 1)
        k += snprintf(buf + k, len - (size_t)k, " ep%d", l->ep);
    if (k >= 0 && (size_t)k < len && l->pp > 1)
        snprintf(buf + k, len - (size_t)k, " pp%d", l->pp);
}

size_t plan_pareto(const double *cost, const double *lat, size_t n, int *on)
{
    size_t count = 0;

    for (size_t i = 0; i < n; i++) {
        on[i] = !isnan(cost[i]) && !isnan(lat[i]);
        for (size_t j = 0; j < n && on[i]; j++) {
            if (j == i || isnan(cost[j]) || isnan(lat[j]))
                continue;
            if (cost[j] <= cost[i] && lat[j] <= lat[i] &&
                (cost[j] < cost[i] || lat[j] < lat[i] || j < i))
                on[i] = 0;
        }
        count += (size_t)on[i];
    }
    return count;
}

int plan_config_gpus(const struct plan_layout *ls, const struct plan_config *c)
{
    const struct plan_layout *l = &ls[c->layout];
    int mix = 0;

    /* A mix: each pool's capacity in its replicas' GPUs. */
    for (int i = 0; i < PLAN_MIX_MAX_POOLS; i++)
        if (c->mix[i] > 0) /* then pools[i] has layout ls[i] */
            mix += c->mix[i] * ls[i].gpus;
    if (mix > 0)
        return mix;
    if (l->pd)
        return c->replicas * l->pd_gpus[0] + c->pd_decode * l->pd_gpus[1];
    return c->replicas * l->gpus;
}

void plan_config_replicas(int elastic, const struct plan_config *c, char *buf,
                          size_t len)
{
    if (c->pd_decode > 0)
        snprintf(buf, len, "%d+%d", c->replicas, c->pd_decode);
    else if (elastic)
        snprintf(buf, len, "%d-%d", c->min_replicas, c->replicas);
    else
        snprintf(buf, len, "%d", c->replicas);
}
