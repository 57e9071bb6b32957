/*
 * Parallel layouts: memory, traffic, bubble and step time per layout. Every
 * formula and its source (docs/layouts.md has them all in one place):
 *
 * - Parameters per layer, by kind (docs/sources.md §4.2): the attention of one
 *   layer is what is left of arch_params_always_read() after the embedding
 *   or head, the final norm, the dense MLPs (3 h f), the MoE layers' router
 *   and shared experts and the norms (2 h a layer). Layers go to pipeline
 *   stages in contiguous runs as even as possible, the first layers % pp
 *   stages taking one more; the embedding sits on the first stage and the
 *   LM head with the final norm on the last (a tied head is copied there).
 * - Weights per GPU (training; serving refusals): the non-routed parameters
 *   of a stage split over tp (Megatron: attention heads, MLP columns and the
 *   vocabulary), the routed experts over max(tp, ep) (ep ranks hold E / ep
 *   whole experts). Norms and the router are counted as split too (< 0.01 %
 *   of a model). Serving layouts that pass take the step-time model's
 *   figures instead (perf_replica_init(), which replicates norms, router
 *   and MLA's down-projections), so that table and simulator agree.
 * - KV cache per GPU per token (docs/sources.md §4.3): GQA heads split over tp,
 *   one head per rank (replicated) once tp > kv_heads; the MLA latent
 *   replicated on every tp rank; only the stage's layers. Capacity =
 *   floor((util HBM - weights - reserve) / KV bytes per token), the reserve
 *   being the step-time model's PERF_RESERVE_BYTES_PER_GPU (used here to
 *   tell a KV refusal from another one; the figures are perf's).
 * - Training states (docs/sources.md §12.3): mixed-precision Adam, 2 + 2 + 12
 *   bytes per parameter, split by ZeRO stage over the data-parallel ranks
 *   that hold the same parameters: dp for the non-routed ones, dp tp /
 *   max(tp, ep) for the routed experts.
 * - Activations (docs/sources.md §12.2, Korthikanti et al.): per layer s b h
 * times the table's factor for the TP / SP / recomputation case, with the
 *   per-tensor constant c recomputed for the model as §12.2 asks (see
 *   layout_act_constant()). With 1F1B stage i holds min(p - i, m)
 *   micro-batches (§12.2: the first stage holds p).
 * - Traffic (docs/sources.md §3.2, standard Megatron accounting): tp two
 *   all-reduces per layer forward and two backward of tokens h 2 bytes, or
 *   with sequence parallelism an all-gather and a reduce-scatter in place of
 *   each; pp one send of tokens h 2 bytes per micro-batch per boundary each
 *   way; dp one all-reduce of the gradients (bf16, 2 bytes a parameter) per
 *   step, ZeRO-1/2 as a reduce-scatter plus an all-gather (the same 2 Psi),
 *   ZeRO-3 a reduce-scatter plus two all-gathers (3 Psi, 1.5x, §12.3); ep a
 *   dispatch and a combine all-to-all per MoE layer of k h 2 bytes per
 *   token. Full recomputation repeats the forward collectives. Times come
 *   from net_coll_ns() over the group's topology (docs/sources.md §3.2-3.4).
 * - Training compute (docs/sources.md §12.1, §4.4): 3 passes (2N forward + 4N
 *   backward per token) of the stage's linear FLOPs at the dtype's peak
 *   times eff_compute (by default the calibration's GEMM efficiency at a
 *   micro-batch's rows, perf_gemm_eff()) and of the causal attention FLOPs
 *   at the bf16 peak times the calibrated attention efficiency; full
 *   recomputation adds a fourth forward pass (F = 96 vs 72, §12.1),
 *   selective one of the attention core. Element-wise kernels (norms,
 *   residual adds, the gated MLP's activation; elem_bytes_per_token())
 *   run at the calibrated HBM fraction, and Adam updates the GPU's shard of
 *   the optimizer states (28 bytes a parameter, LAYOUT_ADAM_BYTES_PER_PARAM)
 *   likewise. 1F1B: step = (m + p - 1) x the slowest stage's micro-batch
 *   time (compute, tp/sp and ep collectives and its sends) + the dp
 *   collectives + the optimizer, i.e. ideal / (1 - bubble) with bubble
 *   (p - 1) / (m + p - 1) (§12.4); interleaved with v chunks (m + (p - 1)
 *   / v) slots, v times the sends. The setup's overlaps hide fractions of
 *   the tp/ep collectives behind a micro-batch's compute and of the dp
 *   collectives behind the backward passes (all 0 by default: every
 *   collective exposed, an upper bound). ZeRO-3 with zero3_regather
 *   gathers the parameters twice and reduce-scatters once per
 *   micro-batch (FSDP with gradient accumulation).
 * - Serving step: the step-time model of models/perf (docs/step-time.md)
 *   for the layout's replica: perf_saturate() at the reference batch (pp
 *   micro-batches in flight, as vLLM's virtual engines; every sequence
 *   advances once per cycle) and perf_iteration_breakdown() for a prefill.
 *   The traffic columns are this file's accounting of one micro-batch on a
 *   first-stage GPU (1 + drafted tokens per sequence with speculative
 *   decoding). The setup's serving knobs go to perf_layout as they are:
 *   redundant slots on layouts with ep > 1 (their weights add slots /
 *   routed of the routed experts to the refusal estimate), two
 *   micro-batches on pp 1 layouts only (perf_replica_init() refuses them
 *   with pp > 1; falling back to one keeps the pipelined layouts in the
 *   table), speculative decoding on all; the per-GPU figures are the
 *   replica's and perf_saturate()'s step's (docs/layouts.md "Serving
 *   knobs and per-GPU figures").
 *
 * Rejected alternatives: choosing the recomputation and sequence
 * parallelism per layout in the enumeration (rather than listing every
 * combination) keeps the table to one row per (dp, tp, pp, ep, zero), the
 * classic table's rows; the row says which it chose.
 */
#include "models/layout/layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/dtype.h"
#include "models/perf/roofline.h"
#include "base/errors.h"
#include "base/xalloc.h"

#define NS_PER_S 1e9

/* Bytes of one activation element crossing a link: bf16 (docs/sources.md §3.2
 * counts tokens * h * bytes; training and serving activations are 16-bit). */
#define ACT_BYTES 2.0

/* Bytes of one gradient element reduced across dp: bf16 (docs/sources.md §12.3,
 * 2 Psi per step). */
#define GRAD_BYTES 2.0

/* Bytes per parameter held for training (docs/sources.md §12.3): bf16 weights,
 * bf16 gradients, FP32 master weights, momentum and variance (K = 12). */
#define ZERO_W 2.0
#define ZERO_G 2.0
#define ZERO_K 12.0

/* ---- names ---- */

const char *layout_traffic_name(int kind)
{
    static const char *const names[] = {"tp", "sp", "pp", "dp", "ep"};

    if (kind < 0 || kind >= LAYOUT_TR_KINDS)
        return "?";
    return names[kind];
}

const char *layout_recompute_name(int recompute)
{
    static const char *const names[] = {"none", "selective", "full", "auto"};

    if (recompute < 0 || recompute > LAYOUT_RECOMPUTE_AUTO)
        return "?";
    return names[recompute];
}

const char *layout_verdict_name(int verdict)
{
    static const char *const names[] = {
        "fits",    "heads", "tp-nodes", "ep",      "pp-layers", "batch",
        "weights", "kv",    "memory",   "network", "replica"};

    if (verdict < 0 || verdict > LAYOUT_NO_REPLICA)
        return "?";
    return names[verdict];
}

void layout_format(const struct layout *l, int mode, char *buf, size_t len)
{
    int n = snprintf(buf, len, "dp%d tp%d pp%d", l->dp, l->tp, l->pp);

    if (n < 0 || (size_t)n >= len)
        return;
    if (l->ep > 1) {
        int k = snprintf(buf + n, len - (size_t)n, " ep%d", l->ep);
        if (k < 0 || (size_t)k >= len - (size_t)n)
            return;
        n += k;
    }
    if (mode == LAYOUT_TRAINING && l->chunks > 1)
        snprintf(buf + n, len - (size_t)n, " z%d v%d", l->zero, l->chunks);
    else if (mode == LAYOUT_TRAINING)
        snprintf(buf + n, len - (size_t)n, " z%d", l->zero);
}

/* ---- closed forms ---- */

double layout_bubble(int pp, int micro_batches)
{
    if (pp <= 1 || micro_batches < 1)
        return 0.0;
    /* docs/sources.md §12.4: bubble / ideal = (p - 1) / m; as a fraction of the
     * step (ideal + bubble) it is (p - 1) / (m + p - 1). */
    return (double)(pp - 1) / (double)(micro_batches + pp - 1);
}

double layout_bubble_interleaved(int pp, int micro_batches, int chunks)
{
    if (chunks <= 1)
        return layout_bubble(pp, micro_batches);
    if (pp <= 1 || micro_batches < 1)
        return 0.0;
    /* docs/sources.md §12.4: bubble / ideal = (p - 1) / (v m). */
    return (double)(pp - 1) /
           ((double)chunks * micro_batches + (double)(pp - 1));
}

double layout_zero_bytes(double params, int zero, int nd, double *weights,
                         double *grads, double *optim)
{
    double w = ZERO_W * params, g = ZERO_G * params, o = ZERO_K * params;
    int bad = zero < 0 || zero > 3 || nd < 1;

    if (bad)
        w = g = o = 0.0; /* no part is left unset */
    /* docs/sources.md §12.3: P_os shards the optimizer states, P_os+g also the
     * gradients, P_os+g+p also the parameters. */
    if (!bad && zero >= 1)
        o /= nd;
    if (!bad && zero >= 2)
        g /= nd;
    if (!bad && zero >= 3)
        w /= nd;
    if (weights != NULL)
        *weights = w;
    if (grads != NULL)
        *grads = g;
    if (optim != NULL)
        *optim = o;
    return bad ? -1.0 : w + g + o;
}

double layout_act_constant(const struct arch_spec *a, int moe_layer)
{
    double h = a->hidden, q, k, v, o, attn, mlp;

    /* docs/sources.md §12.2 counts, for a GPT layer in bytes per s*b*h:
     * attention 11 = QKV input 2 + Q and K 4 + V 2 + output-projection input 2
     * + dropout mask 1 (the 5as/h scores term apart); MLP 19 = input 2 + GELU
     * input 8 + GELU output 8 + dropout mask 1; two LayerNorm inputs 4;
     * c = 34. §12.2 asks the constant to be recomputed for other MLPs; the
     * same per-tensor count here (derived): */
    if (a->attn == ARCH_ATTN_MLA) {
        q = (double)a->heads *
            (a->mla.qk_nope_head_dim + a->mla.qk_rope_head_dim);
        k = q;
        v = (double)a->heads * a->mla.v_head_dim;
        o = v;
    } else {
        q = (double)a->heads * a->head_dim;
        k = (double)a->kv_heads * a->head_dim;
        v = k;
        o = q;
    }
    /* Attention: input 2, Q, K, V at 2 bytes by their widths, output
     * projection input, dropout mask 1 (GPT: 2 + 2 + 2 + 2 + 2 + 1 = 11). */
    attn = 2.0 + 2.0 * (q + k + v) / h + 2.0 * o / h + 1.0;
    if (moe_layer && a->moe.n_routed_experts > 0) {
        double kx = a->moe.experts_per_token;
        double fs = a->moe.shared_ffn > 0 ? a->moe.shared_ffn : a->moe.moe_ffn;
        double width = kx * a->moe.moe_ffn + a->moe.n_shared_experts * fs;

        /* MoE MLP: input 2, its k dispatched copies 2k, then per active
         * expert the SwiGLU tensors below, dropout mask 1. */
        mlp = 2.0 + 2.0 * kx + 8.0 * width / h + 1.0;
    } else if (a->mlp == ARCH_MLP_PLAIN) {
        /* GELU MLP of width f (docs/sources.md §12.2's GPT case): input 2; up's
         * output and gelu's (the down projection's input), 2 bytes each by
         * f/h: 4 f / h; dropout mask 1 (19 for f = 4h). */
        mlp = 2.0 + 4.0 * a->ffn / h + 1.0;
    } else {
        /* SwiGLU MLP of width f: input 2; gate, up, silu(gate) and their
         * product (the down projection's input), 2 bytes each by f/h:
         * 8 f / h; dropout mask 1. */
        mlp = 2.0 + 8.0 * a->ffn / h + 1.0;
    }
    return attn + mlp + 4.0;
}

double layout_act_bytes_per_layer(const struct arch_spec *a, int moe_layer,
                                  double seq, double micro_batch, int tp,
                                  int seq_parallel, int recompute)
{
    double sbh, c, t = tp, scores;

    if (a == NULL || seq <= 0 || micro_batch <= 0 || tp < 1 ||
        recompute < LAYOUT_RECOMPUTE_NONE || recompute > LAYOUT_RECOMPUTE_FULL)
        return -1.0;
    sbh = seq * micro_batch * a->hidden;
    /* docs/sources.md §12.2, full recomputation: only the layer input, 2sbh. */
    if (recompute == LAYOUT_RECOMPUTE_FULL)
        return 2.0 * sbh;
    c = layout_act_constant(a, moe_layer);
    /* The 5as/(ht) attention-scores term; selective recomputation (and
     * FlashAttention) removes it. */
    scores = recompute == LAYOUT_RECOMPUTE_SELECTIVE
                 ? 0.0
                 : 5.0 * a->heads * seq / (a->hidden * t);
    /* docs/sources.md §12.2: with sequence parallelism everything splits over
     * t; without it the "10" (norm inputs 4, dropout masks 2, sub-layer inputs
     * 4) is replicated on every rank. t = 1 gives c + 5as/h. */
    if (seq_parallel && tp > 1)
        return sbh * (c / t + scores);
    return sbh * (10.0 + (c - 10.0) / t + scores);
}

/* ---- model split ---- */

/* Parameters of one layer by part, and of the ends (docs/sources.md §4.2). */
struct split {
    double attn;          /* attention of one layer, projections and indexer */
    double dense;         /* dense MLP and norms of one dense layer */
    double moe_other;     /* router, shared experts and norms of a MoE layer */
    double routed;        /* the routed experts of one MoE layer */
    double routed_active; /* experts_per_token of them */
    double end;           /* the embedding, or the head plus final norm */
};

static void split_init(struct split *sp, const struct arch_spec *a)
{
    double h = a->hidden, emb = (double)arch_params_embedding(a);
    int moe = arch_moe_layers(a);
    double fs = a->moe.shared_ffn > 0 ? a->moe.shared_ffn : a->moe.moe_ffn;

    sp->dense = (double)(arch_params_mlp(a) + arch_params_layer_norms(a));
    sp->moe_other = 0.0;
    if (moe > 0)
        sp->moe_other = (double)a->moe.n_routed_experts * h +
                        (a->moe.router_bias ? a->moe.n_routed_experts : 0) +
                        a->moe.n_shared_experts * 3.0 * h * fs +
                        (a->moe.shared_gate ? h : 0.0) + 2.0 * h;
    sp->routed = (double)a->moe.n_routed_experts * arch_params_expert(a);
    sp->routed_active =
        (double)a->moe.experts_per_token * arch_params_expert(a);
    sp->end = emb;
    /* The ends are counted as one vocab x h matrix each (and the final
     * norm as h by the callers): a learned position table, a LayerNorm's
     * bias and an LM head bias (GPT-2, phi-2: under 1 % of the weights)
     * are left out of the per-stage split. */
    sp->attn = (double)arch_params_attn(a);
}

/* One pipeline stage: its layers by kind and whether it holds the ends. */
struct stage {
    int layers, dense, moe;
    int first, last;
};

/* MoE layers among the first x layers: a dense prefix then MoE layers, or,
 * when the count overrides the suffix rule, evenly interleaved. */
static int moe_before(const struct arch_spec *a, int x)
{
    int moe = arch_moe_layers(a);

    if (moe == 0)
        return 0;
    if (a->moe.moe_layers > 0)
        return (int)((int64_t)x * moe / a->layers);
    return x > a->moe.first_dense_layers ? x - a->moe.first_dense_layers : 0;
}

static void stage_of(const struct arch_spec *a, int pp, int i, struct stage *st)
{
    int base = a->layers / pp, extra = a->layers % pp;
    int start = i * base + (i < extra ? i : extra);

    st->layers = base + (i < extra ? 1 : 0);
    st->moe = moe_before(a, start + st->layers) - moe_before(a, start);
    st->dense = st->layers - st->moe;
    st->first = i == 0;
    st->last = i == pp - 1;
}

/* Non-routed and routed parameters a stage holds (whole, before tp). */
static void stage_params(const struct split *sp, const struct stage *st,
                         double h, double *nonrouted, double *routed)
{
    *nonrouted = st->layers * sp->attn + st->dense * sp->dense +
                 st->moe * sp->moe_other + (st->first ? sp->end : 0.0) +
                 (st->last ? sp->end + h : 0.0);
    *routed = st->moe * sp->routed;
}

/* Parameters that multiply per token on a stage (linear FLOPs / 2): no
 * embedding lookup, k routed experts (docs/sources.md §4.4). */
static double stage_active(const struct split *sp, const struct stage *st,
                           double h)
{
    return st->layers * sp->attn + st->dense * sp->dense +
           st->moe * (sp->moe_other + sp->routed_active) +
           (st->last ? sp->end + h : 0.0);
}

/* ---- collectives ---- */

/* The cost of one call over a communication group. */
struct group_cost {
    double time_ns;   /* one call */
    int crosses;      /* spans nodes */
    const char *link; /* bottleneck link name */
    int ok;           /* 0 when net_coll_cost() refuses the group */
};

/* Prices one collective of bytes over the n ranks first, first + stride,
 * ... (ranks numbered node by node). Rails: the node's nics_per_node NICs
 * are shared evenly by its GPUs, all of which communicate at once, so a
 * group with r ranks on a node gets r * nics_per_node / gpus_per_node of
 * them (net_coll_cost() then gives each GPU min(1, rails / r) of a NIC);
 * below one rail the inter-node link is slowed in proportion. */
static void group_price(const struct layout_setup *s, enum net_coll c, int n,
                        int stride, int first, double bytes,
                        struct group_cost *gc)
{
    struct net_topo t;
    struct net_link slow;
    struct net_cost cost;
    int gpn = s->gpus_per_node, rpn = 0, first_node = first / gpn;
    int last_node = first_node;

    memset(gc, 0, sizeof(*gc));
    gc->ok = 1;
    gc->link = s->calib.intra.name;
    if (n <= 1)
        return;
    for (int j = 0; j < n; j++) {
        int node = (first + j * stride) / gpn;
        if (node == first_node)
            rpn++;
        last_node = node;
    }
    gc->crosses = last_node != first_node;
    t.intra = &s->calib.intra;
    t.inter = NULL;
    t.ranks_per_node = rpn;
    t.nics_per_node = 1;
    if (gc->crosses) {
        double rails = (double)rpn * s->nics_per_node / gpn;

        if (rails >= 1.0) {
            t.inter = &s->calib.inter;
            t.nics_per_node = (int)floor(rails);
        } else {
            slow = s->calib.inter;
            slow.bytes_per_s *= rails;
            t.inter = &slow;
        }
    }
    if (net_coll_cost(&t, c, NET_ALGO_AUTO, n, bytes, &cost) != 0) {
        gc->ok = 0;
        return;
    }
    gc->time_ns = cost.total_ns;
    if (cost.bottleneck != NULL)
        gc->link = cost.bottleneck->name;
    else if (gc->crosses)
        gc->link = s->calib.inter.name;
}

/* Adds calls collectives of kind c of bytes each over the group (n,
 * stride, first) to the traffic entry tr. Returns 0, or -1 when the group
 * cannot communicate. */
static int traffic_add(const struct layout_setup *s, struct layout_traffic *tr,
                       enum net_coll c, int n, int stride, int first,
                       double calls, double bytes)
{
    struct group_cost gc;

    if (n <= 1 || calls <= 0)
        return 0;
    group_price(s, c, n, stride, first, bytes, &gc);
    if (!gc.ok)
        return -1;
    if (tr->ranks == 0 || gc.crosses) {
        tr->link = gc.link;
        tr->crosses_nodes |= gc.crosses;
    }
    if (n > tr->ranks)
        tr->ranks = n;
    tr->collectives += calls;
    tr->wire_bytes += calls * net_busbw_factor(c, n) * bytes;
    tr->time_ns += calls * gc.time_ns;
    return 0;
}

/* ---- shared checks ---- */

static void say(struct layout_result *r, int verdict, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void say(struct layout_result *r, int verdict, const char *fmt, ...)
{
    va_list ap;

    r->verdict = verdict;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof(r->why), fmt, ap);
    va_end(ap);
}

/* The serving knobs of the setup (redundant experts, micro-batches,
 * speculative decoding), with perf_replica_init()'s rules checked once for
 * the whole enumeration rather than refusing every layout alike. */
static int serve_knobs_check(const struct layout_setup *s, char *why,
                             size_t len)
{
    const struct arch_spec *a = s->arch;
    int e = a->moe.n_routed_experts;

    if (s->mode == LAYOUT_TRAINING &&
        (s->redundant_experts != 0 || s->micro_batches != 0 ||
         s->spec_method != PERF_SPEC_NONE)) {
        snprintf(why, len,
                 "redundant experts, serving micro-batches and speculative "
                 "decoding are for serving");
        return SIM_EINVAL;
    }
    if (s->redundant_experts < 0 || s->micro_batches < 0 ||
        s->micro_batches > 2) {
        snprintf(why, len,
                 "redundant_experts must be >= 0 and micro_batches 0, 1 or "
                 "2, got %d and %d",
                 s->redundant_experts, s->micro_batches);
        return SIM_EINVAL;
    }
    if (s->redundant_experts > 0 && e == 0) {
        snprintf(why, len,
                 "redundant experts need a mixture-of-experts model; %s is "
                 "dense",
                 a->name);
        return SIM_EINVAL;
    }
    if (s->redundant_experts > e) {
        snprintf(why, len,
                 "redundant_experts %d exceeds the %d routed experts of %s "
                 "(at most one extra copy per expert)",
                 s->redundant_experts, e, a->name);
        return SIM_EINVAL;
    }
    if (s->spec_method < PERF_SPEC_NONE || s->spec_method > PERF_SPEC_NGRAM ||
        (s->spec_method == PERF_SPEC_NONE) != (s->spec_tokens == 0) ||
        s->spec_tokens < 0 || s->spec_tokens > 8 ||
        !(s->spec_acceptance >= 0.0 && s->spec_acceptance <= 1.0)) {
        snprintf(why, len,
                 "speculative decoding needs a method with 1 to 8 drafted "
                 "tokens and an acceptance in [0, 1] (none with 0 tokens), "
                 "got %s, %d tokens, acceptance %g",
                 perf_spec_name(s->spec_method), s->spec_tokens,
                 s->spec_acceptance);
        return SIM_EINVAL;
    }
    if (s->spec_method == PERF_SPEC_MTP && a->mtp_layers < 1) {
        snprintf(why, len,
                 "speculative method mtp needs a model with a multi-token-"
                 "prediction module (num_nextn_predict_layers >= 1, as "
                 "DeepSeek-V3); %s has none, use method ngram",
                 a->name);
        return SIM_EINVAL;
    }
    return 0;
}

/* Expert slots of a layout with ep ranks: the routed experts plus the
 * setup's redundant ones when ep > 1 (perf_replica_init()'s rule). */
static int expert_slots(const struct layout_setup *s, int ep)
{
    return s->arch->moe.n_routed_experts + (ep > 1 ? s->redundant_experts : 0);
}

static int setup_check(const struct layout_setup *s, char *why, size_t len)
{
    if (s == NULL || s->arch == NULL || s->gpu == NULL) {
        snprintf(why, len, "no model or gpu given");
        return SIM_EINVAL;
    }
    if (s->gpus < 1 || s->gpus_per_node < 1 || s->nics_per_node < 1) {
        snprintf(why, len,
                 "gpus %d, gpus_per_node %d and nics_per_node %d must be "
                 "at least 1",
                 s->gpus, s->gpus_per_node, s->nics_per_node);
        return SIM_EINVAL;
    }
    if (s->gpus > s->gpus_per_node && s->gpus % s->gpus_per_node != 0) {
        snprintf(why, len, "%d gpus do not fill nodes of %d", s->gpus,
                 s->gpus_per_node);
        return SIM_EINVAL;
    }
    if (s->mode != LAYOUT_INFERENCE && s->mode != LAYOUT_TRAINING) {
        snprintf(why, len, "unknown mode %d", s->mode);
        return SIM_EINVAL;
    }
    if (perf_weight_bytes_per_param(s->dtype) == 0.0 ||
        (s->mode == LAYOUT_TRAINING && s->dtype == CL_DTYPE_INT4)) {
        snprintf(why, len, "%s takes weight dtype %s",
                 s->mode == LAYOUT_TRAINING ? "training" : "serving",
                 s->mode == LAYOUT_TRAINING ? "bf16 or fp8"
                                            : "bf16, fp8 or int4");
        return SIM_EINVAL;
    }
    if (s->mode == LAYOUT_INFERENCE &&
        perf_kv_bytes_per_elem(s->kv_dtype) == 0) {
        snprintf(why, len, "kv cache dtype must be bf16 or fp8");
        return SIM_EINVAL;
    }
    if (!(s->gpu_memory_utilization > 0 && s->gpu_memory_utilization <= 1) ||
        !(s->eff_compute >= 0 && s->eff_compute <= 1) ||
        !(s->dp_overlap >= 0 && s->dp_overlap <= 1) ||
        !(s->tp_overlap >= 0 && s->tp_overlap <= 1) ||
        !(s->ep_overlap >= 0 && s->ep_overlap <= 1)) {
        snprintf(why, len,
                 "gpu_memory_utilization must be in (0, 1], eff_compute and "
                 "the overlaps in [0, 1]");
        return SIM_EINVAL;
    }
    if (s->batch < 1 || s->seq_tokens < 1 || s->prefill_tokens < 0) {
        snprintf(why, len,
                 "batch and seq_tokens must be at least 1, prefill_tokens at "
                 "least 0");
        return SIM_EINVAL;
    }
    return serve_knobs_check(s, why, len);
}

static int layout_check(const struct layout_setup *s, const struct layout *l,
                        char *why, size_t len)
{
    if (l->dp < 1 || l->tp < 1 || l->pp < 1 || l->ep < 1) {
        snprintf(why, len, "every degree must be at least 1");
        return SIM_EINVAL;
    }
    if ((int64_t)l->dp * l->tp * l->pp != s->gpus) {
        snprintf(why, len, "dp %d x tp %d x pp %d is not %d gpus", l->dp, l->tp,
                 l->pp, s->gpus);
        return SIM_EINVAL;
    }
    if (s->mode == LAYOUT_TRAINING &&
        (l->zero < 0 || l->zero > 3 || l->micro_batches < 0 ||
         l->recompute < LAYOUT_RECOMPUTE_NONE ||
         l->recompute > LAYOUT_RECOMPUTE_AUTO || l->seq_parallel < -1 ||
         l->seq_parallel > 1)) {
        snprintf(why, len,
                 "zero must be 0..3, micro_batches >= 0, recompute one of "
                 "none, selective, full, auto and seq_parallel -1, 0 or 1");
        return SIM_EINVAL;
    }
    if (s->mode == LAYOUT_TRAINING &&
        (l->chunks < 0 || (l->chunks > 1 && l->pp < 2))) {
        snprintf(why, len,
                 "chunks %d: interleaving needs chunks >= 2 and pp >= 2 "
                 "(0 or 1 for plain 1F1B)",
                 l->chunks);
        return SIM_EINVAL;
    }
    return 0;
}

/* Structural rules shared by both modes; 1 when l passes them. */
static int structure_ok(const struct layout_setup *s, const struct layout *l,
                        struct layout_result *r)
{
    const struct arch_spec *a = s->arch;
    int e = a->moe.n_routed_experts, slots = expert_slots(s, l->ep);

    if (a->heads % l->tp != 0 ||
        (a->attn == ARCH_ATTN_GQA &&
         (l->tp <= a->kv_heads ? a->kv_heads % l->tp != 0
                               : l->tp % a->kv_heads != 0))) {
        /* vLLM's rule, as perf_replica_init() applies it: query heads
         * divisible by tp; GQA KV heads divisible by tp, or tp a multiple of
         * them (replicated). */
        say(r, LAYOUT_NO_HEADS,
            "tp %d does not split %d attention heads and %d kv heads", l->tp,
            a->heads, a->kv_heads);
        return 0;
    }
    /* ep ranks hold whole experts and are carved from a stage's tp x dp
     * block, each a whole number of tp groups (ep / tp data-parallel
     * attention groups). */
    if (l->ep > 1 && (e == 0 || slots % l->ep != 0 || l->ep % l->tp != 0 ||
                      ((int64_t)l->tp * l->dp) % l->ep != 0)) {
        if (e == 0)
            say(r, LAYOUT_NO_EP, "ep %d on a dense model", l->ep);
        else if (s->redundant_experts > 0)
            say(r, LAYOUT_NO_EP,
                "ep %d must divide %d expert slots (%d routed + %d "
                "redundant) and tp x dp = %d and be a multiple of tp %d",
                l->ep, slots, e, s->redundant_experts, l->tp * l->dp, l->tp);
        else
            say(r, LAYOUT_NO_EP,
                "ep %d must divide %d routed experts and tp x dp = %d and "
                "be a multiple of tp %d",
                l->ep, e, l->tp * l->dp, l->tp);
        return 0;
    }
    if (l->pp > a->layers) {
        say(r, LAYOUT_NO_PP_LAYERS, "pp %d exceeds %d layers", l->pp,
            a->layers);
        return 0;
    }
    if (r->tp_crosses_nodes && s->mode == LAYOUT_INFERENCE) {
        say(r, LAYOUT_NO_TP_NODES,
            "tp %d spans nodes of %d gpus; the step-time model keeps tensor "
            "parallelism within a node",
            l->tp, s->gpus_per_node);
        return 0;
    }
    if (r->tp_crosses_nodes && !s->tp_across_nodes) {
        say(r, LAYOUT_NO_TP_NODES, "tp %d spans nodes of %d gpus", l->tp,
            s->gpus_per_node);
        return 0;
    }
    return 1;
}

/* ---- serving ---- */

/* KV bytes per token per GPU for one layer (docs/sources.md §4.3). */
static double kv_layer_per_gpu(const struct layout_setup *s, int tp)
{
    const struct arch_spec *a = s->arch;
    double full = (double)arch_kv_bytes_per_token(
                      a, perf_kv_bytes_per_elem(s->kv_dtype)) /
                  a->layers;

    if (a->attn == ARCH_ATTN_MLA)
        return full;
    return tp >= a->kv_heads ? full / a->kv_heads : full / tp;
}

/* Tensor-parallel collectives of one forward pass over a stage (docs/sources.md
 * §3.2): two per layer (attention output, MLP output). A MoE layer under
 * ep > 1 keeps only the attention one: its combine all-to-all returns each
 * token's expert outputs to the rank that owns it (derived). */
static double tp_calls_per_pass(const struct layout *l, const struct stage *st)
{
    return 2.0 * st->dense + (l->ep > 1 ? 1.0 : 2.0) * st->moe;
}

/* The tp all-reduces, ep all-to-alls and pp sends of one serving
 * iteration of tokens on stage st (docs/sources.md §3.2; forward only). Adds to
 * tr; returns the stage's time, or -1 when a group cannot communicate. */
static double serve_comm(const struct layout_setup *s, const struct layout *l,
                         const struct stage *st, int stage_idx, double tokens,
                         struct layout_traffic *tr)
{
    const struct arch_spec *a = s->arch;
    double act = tokens * a->hidden * ACT_BYTES, t0, sum = 0.0;
    int rc = 0;

    t0 = tr[LAYOUT_TR_TP].time_ns;
    rc |= traffic_add(s, &tr[LAYOUT_TR_TP], NET_ALLREDUCE, l->tp, 1, 0,
                      tp_calls_per_pass(l, st), act);
    sum += tr[LAYOUT_TR_TP].time_ns - t0;
    /* Each tp rank dispatches its 1/tp of the tokens to k experts and gets
     * them back (docs/sources.md §3.2, k h bytes each way). */
    t0 = tr[LAYOUT_TR_EP].time_ns;
    rc |= traffic_add(
        s, &tr[LAYOUT_TR_EP], NET_ALLTOALL, l->ep, 1, 0, 2.0 * st->moe,
        tokens / l->tp * a->moe.experts_per_token * a->hidden * ACT_BYTES);
    sum += tr[LAYOUT_TR_EP].time_ns - t0;
    if (!st->last) {
        t0 = tr[LAYOUT_TR_PP].time_ns;
        rc |= traffic_add(s, &tr[LAYOUT_TR_PP], NET_SENDRECV, 2, l->tp * l->dp,
                          stage_idx * l->tp * l->dp, 1.0, act);
        sum += tr[LAYOUT_TR_PP].time_ns - t0;
    }
    return rc != 0 ? -1.0 : sum;
}

/* Weights and KV bytes per token per GPU on the fullest stage by the
 * split above, and the KV tokens of the stage with the least room; for
 * refusals, before the step-time model is asked. */
static void serve_memory(const struct layout_setup *s, const struct layout *l,
                         const struct split *sp, double reserve, double usable,
                         double *weights, double *kv_per_token, int *fullest,
                         double *kv_tokens)
{
    const struct arch_spec *a = s->arch;
    double bpp = perf_weight_bytes_per_param(s->dtype);
    int ed = l->tp > l->ep ? l->tp : l->ep;
    /* Redundant slots hold whole copies of experts: slots / routed of the
     * routed parameters (exactly 1 without them). */
    double ratio =
        a->moe.n_routed_experts > 0
            ? (double)expert_slots(s, l->ep) / a->moe.n_routed_experts
            : 1.0;

    *weights = -1.0;
    *kv_tokens = INFINITY;
    for (int i = 0; i < l->pp; i++) {
        struct stage st;
        double nonrouted, routed, w, c;

        stage_of(a, l->pp, i, &st);
        stage_params(sp, &st, a->hidden, &nonrouted, &routed);
        w = bpp * (nonrouted / l->tp + routed * ratio / ed);
        c = floor((usable - w - reserve) /
                  (kv_layer_per_gpu(s, l->tp) * st.layers));
        if (w > *weights) {
            *weights = w;
            *kv_per_token = kv_layer_per_gpu(s, l->tp) * st.layers;
            *fullest = i;
        }
        if (c < *kv_tokens)
            *kv_tokens = c;
    }
}

/* The per-GPU figures of a serving layout that fits (struct layout_result):
 * its replica's expert placement and the decode iteration's all-to-all,
 * imbalance, micro-batches and tokens per step. */
static void serve_per_gpu(const struct layout_setup *s, const struct layout *l,
                          const struct perf_replica *rep,
                          const struct perf_saturation *sat,
                          struct layout_result *r)
{
    const struct perf_breakdown *bd = &sat->step;

    r->expert_slots = rep->expert_slots;
    r->slots_per_gpu = rep->slots_per_gpu;
    r->redundant_slots = rep->expert_slots - s->arch->moe.n_routed_experts;
    r->serve_micro_batches = bd->micro_batches;
    r->micro_batches_fallback = s->micro_batches > 1 && l->pp > 1;
    r->a2a_class = bd->a2a_class;
    r->a2a_total_ns = bd->a2a_total_ns;
    r->a2a_hidden_ns = bd->a2a_hidden_ns;
    r->a2a_exposed_ns = bd->a2a_exposed_ns;
    r->expert_imbalance = bd->expert_imbalance;
    r->spec_tokens_per_step = bd->spec_tokens_per_step;
    r->decode_tokens_per_gpu =
        (double)r->batch_seqs * (1.0 + (double)rep->spec_tokens);
    r->tokens_per_s_per_gpu = r->tokens_per_s / s->gpus;
}

/* Serving: the layout as a replica of the step-time model (models/perf,
 * docs/step-time.md), with its memory and KV capacity; decode at the
 * reference batch (perf_saturate(): pp micro-batches in flight, every
 * sequence advancing once per cycle); a prefill; and the traffic of a
 * first-stage GPU for one micro-batch. A perf replica is tp x pp GPUs, or
 * ep x pp with ep / tp data-parallel attention groups; dp / groups of them
 * serve side by side. */
static void eval_serving(const struct layout_setup *s, const struct layout *l,
                         struct layout_result *r)
{
    const struct arch_spec *a = s->arch;
    struct perf_layout pl;
    struct perf_replica rep;
    struct perf_saturation sat;
    struct perf_breakdown pre;
    struct perf_batch pb;
    struct split sp;
    struct stage st;
    double reserve = (double)PERF_RESERVE_BYTES_PER_GPU, w, cap;
    int groups = l->ep > l->tp ? l->ep / l->tp : 1, full = 0, rc;
    char why[sizeof(r->why)];

    split_init(&sp, a);
    r->usable_bytes = s->gpu_memory_utilization * (double)s->gpu->hbm_bytes;
    r->reserve_bytes = reserve;
    serve_memory(s, l, &sp, reserve, r->usable_bytes, &w,
                 &r->kv_bytes_per_token, &full, &cap);
    r->weight_bytes = w;
    if (w + reserve > r->usable_bytes) {
        char where[32] = "";

        r->total_bytes = w + reserve;
        if (l->pp > 1)
            snprintf(where, sizeof(where), " (stage %d)", full);
        say(r, LAYOUT_NO_WEIGHTS,
            "weights need %.1f GB per gpu%s plus %.1f GB reserved, %.1f GB "
            "usable",
            w / 1e9, where, reserve / 1e9, r->usable_bytes / 1e9);
        return;
    }

    memset(&pl, 0, sizeof(pl));
    pl.tp = l->tp;
    pl.pp = l->pp;
    pl.ep = l->ep;
    pl.gpus_per_node = s->gpus_per_node;
    pl.nics_per_node = s->nics_per_node;
    pl.redundant_experts = l->ep > 1 ? s->redundant_experts : 0;
    /* The two-batch overlap is modelled within one stage only. */
    pl.micro_batches = s->micro_batches > 1 && l->pp > 1 ? 1 : s->micro_batches;
    pl.spec_method = s->spec_method;
    pl.spec_tokens = s->spec_tokens;
    pl.spec_acceptance = s->spec_acceptance;
    rc = perf_replica_init(&rep, a, s->gpu, &pl, s->dtype, s->kv_dtype,
                           s->gpu_memory_utilization, &s->calib, why,
                           sizeof(why));
    if (rc != 0) {
        /* Below one block of KV (PERF_MIN_KV_TOKENS, vLLM's block_size,
         * docs/sources.md §5.1) by our own count: a KV refusal. */
        if (cap < PERF_MIN_KV_TOKENS)
            say(r, LAYOUT_NO_KV, "%s", why);
        else
            say(r, LAYOUT_NO_REPLICA, "%s", why);
        return;
    }
    r->weight_bytes = rep.weight_bytes_per_gpu;
    r->kv_bytes_per_token = rep.kv_bytes_per_token_per_gpu;
    r->kv_tokens = rep.kv_capacity_tokens / rep.dp;
    r->kv_bytes = r->usable_bytes - r->weight_bytes - reserve;
    r->total_bytes = r->usable_bytes;

    rc = perf_saturate(&rep, s->seq_tokens, s->batch * rep.dp, &sat);
    if (rc != 0) {
        say(r, LAYOUT_NO_KV,
            "kv cache holds %lld tokens per dp rank, less than one sequence "
            "of %lld",
            (long long)r->kv_tokens, (long long)s->seq_tokens);
        return;
    }
    r->batch_seqs = sat.decode_seqs / rep.dp;
    r->step_ns = (double)sat.cycle_ns;
    r->comm_ns = sat.step.comm_ns;
    r->compute_ns =
        (double)(sat.step.total_ns - sat.step.overhead_ns) - sat.step.comm_ns;
    r->tokens_per_s = (double)(l->dp / groups) * sat.tokens_per_s;
    serve_per_gpu(s, l, &rep, &sat, r);

    if (s->prefill_tokens > 0) {
        /* One prompt of prefill_tokens per dp rank: the replica's rep.dp
         * attention groups prefill one each. */
        memset(&pb, 0, sizeof(pb));
        pb.prefill_tokens = s->prefill_tokens * rep.dp;
        pb.prefill_attn_pairs = (double)rep.dp * (double)s->prefill_tokens *
                                (double)s->prefill_tokens / 2.0;
        pb.prefill_seqs = rep.dp;
        pb.prefill_done_seqs = rep.dp;
        perf_iteration_breakdown(&rep, &pb, &pre);
        r->prefill_ns = (double)pre.total_ns;
    }

    /* The traffic of a GPU of the first stage for one micro-batch of its
     * dp rank's sequences. */
    stage_of(a, l->pp, 0, &st);
    if (serve_comm(s, l, &st, 0,
                   (double)sat.micro_batch_seqs / (double)rep.dp *
                       (1.0 + s->spec_tokens),
                   r->traffic) < 0)
        say(r, LAYOUT_NO_NETWORK, "a group cannot be priced over its links");
}

/* ---- training ---- */

/* The interleaved schedule keeps more micro-batches in flight: Korthikanti
 * et al. (arXiv 2205.05198, §4.2.3; recalled, unverified) give the first
 * stage's activations times 1 + (p - 1) / (p v) for v chunks. */
static double interleave_act_factor(const struct layout *l)
{
    if (l->chunks <= 1 || l->pp <= 1)
        return 1.0;
    return 1.0 + (double)(l->pp - 1) / ((double)l->pp * l->chunks);
}

/* Element-wise HBM bytes of one layer's forward pass per token on one of
 * tp ranks: two RMSNorms (read and write h each, 8h), two residual adds
 * (read 2h, write h each, 12h), split over tp under sequence parallelism
 * and replicated otherwise; the gated MLP's activation (read 2f, write f
 * at 2 bytes, 6f / tp) for f the dense width or the active experts'
 * widths. A derived count (the tensors of docs/sources.md §12.2's "10" and the
 * SwiGLU MLP); rotary embeddings and dropout are not counted. */
static double elem_bytes_per_token(const struct arch_spec *a, int moe_layer,
                                   int tp, int sp_on)
{
    double h = a->hidden, f = a->ffn;

    if (!moe_layer && a->mlp == ARCH_MLP_PLAIN) /* gelu reads f, writes f */
        return 10.0 * ACT_BYTES * h / (sp_on ? tp : 1) +
               2.0 * ACT_BYTES * f / tp;
    if (moe_layer)
        f = (double)a->moe.experts_per_token * a->moe.moe_ffn +
            (double)a->moe.n_shared_experts *
                (a->moe.shared_ffn > 0 ? a->moe.shared_ffn : a->moe.moe_ffn);
    return 10.0 * ACT_BYTES * h / (sp_on ? tp : 1) + 3.0 * ACT_BYTES * f / tp;
}

/* Model states and activations of one training stage, per GPU. */
struct train_mem {
    double w, g, o, act;
};

static void train_stage_mem(const struct layout_setup *s,
                            const struct layout *l, const struct split *sp,
                            const struct stage *st, int i, double micro_batch,
                            int sp_on, int recompute, struct train_mem *m)
{
    const struct arch_spec *a = s->arch;
    double nonrouted, routed, w, g, o;
    int ed = l->tp > l->ep ? l->tp : l->ep;
    int inflight = l->pp - i < l->micro_batches ? l->pp - i : l->micro_batches;

    stage_params(sp, st, a->hidden, &nonrouted, &routed);
    /* docs/sources.md §12.3 over the ranks holding the same shard: dp for the
     * non-routed parameters, dp tp / max(tp, ep) for the routed experts. */
    layout_zero_bytes(nonrouted / l->tp, l->zero, l->dp, &m->w, &m->g, &m->o);
    layout_zero_bytes(routed / ed, l->zero, l->dp * l->tp / ed, &w, &g, &o);
    m->w += w;
    m->g += g;
    m->o += o;
    /* docs/sources.md §12.2: with 1F1B stage i holds min(p - i, m)
     * micro-batches of its layers (the first stage p, i.e. L layers' worth). */
    m->act = inflight * interleave_act_factor(l) *
             (st->dense * layout_act_bytes_per_layer(
                              a, 0, (double)s->seq_tokens, micro_batch, l->tp,
                              sp_on, recompute) +
              st->moe * layout_act_bytes_per_layer(a, 1, (double)s->seq_tokens,
                                                   micro_batch, l->tp, sp_on,
                                                   recompute));
}

/* The fullest stage's memory under recompute into r; returns its total. */
static double train_memory(const struct layout_setup *s, const struct layout *l,
                           const struct split *sp, double micro_batch,
                           int sp_on, int recompute, struct layout_result *r)
{
    double worst = -1.0;

    for (int i = 0; i < l->pp; i++) {
        struct stage st;
        struct train_mem m;
        double tot;

        stage_of(s->arch, l->pp, i, &st);
        train_stage_mem(s, l, sp, &st, i, micro_batch, sp_on, recompute, &m);
        tot = m.w + m.g + m.o + m.act;
        if (tot > worst) {
            worst = tot;
            r->weight_bytes = m.w;
            r->grad_bytes = m.g;
            r->optim_bytes = m.o;
            r->act_bytes = m.act;
            r->total_bytes = tot;
        }
    }
    return worst;
}

/* The data-parallel collectives of one step for a stage's parameters
 * (docs/sources.md §3.2, §12.3): ZeRO-0 an all-reduce of the bf16 gradients,
 * ZeRO-1/2 a reduce-scatter of them plus an all-gather of the updated bf16
 * weights (the same 2 Psi), ZeRO-3 one more all-gather (3 Psi). */
static int train_dp(const struct layout_setup *s, const struct layout *l,
                    double params, int n, int stride, struct layout_traffic *tr)
{
    double bytes = GRAD_BYTES * params;
    int rc = 0;

    if (params <= 0)
        return 0;
    if (l->zero == 0)
        return traffic_add(s, tr, NET_ALLREDUCE, n, stride, 0, 1.0, bytes);
    if (l->zero == 3 && s->zero3_regather) {
        /* Every micro-batch: a gather forward, one backward, and the
         * reduce-scatter of its gradients (FSDP; see layout.h). */
        double m = l->micro_batches;

        rc |= traffic_add(s, tr, NET_REDUCESCATTER, n, stride, 0, m, bytes);
        rc |= traffic_add(s, tr, NET_ALLGATHER, n, stride, 0, 2.0 * m, bytes);
        return rc;
    }
    rc |= traffic_add(s, tr, NET_REDUCESCATTER, n, stride, 0, 1.0, bytes);
    rc |= traffic_add(s, tr, NET_ALLGATHER, n, stride, 0,
                      l->zero == 3 ? 2.0 : 1.0, bytes);
    return rc;
}

/* Time of one micro-batch on stage i (compute and its tp/sp, ep and pp
 * communication), its dp time per step, and its traffic per step in tr.
 * Returns 0, or -1 when a group cannot communicate. */
static int train_stage_time(const struct layout_setup *s,
                            const struct layout *l, const struct split *sp,
                            int i, double micro_batch, int sp_on, int recompute,
                            double *compute_ns, double *elem_ns,
                            double *comm_ns, double *dp_ns, double *optim_ns,
                            struct layout_traffic *tr)
{
    const struct arch_spec *a = s->arch;
    const struct gpu_spec *g = s->gpu;
    struct stage st;
    double h = a->hidden, seq = (double)s->seq_tokens;
    double tokens = micro_batch * seq, m = l->micro_batches;
    double act = tokens * h * ACT_BYTES, lin, attn, t0;
    double pass_lin = 3.0, pass_attn = 3.0, passes, calls, nonrouted, routed;
    double elem, shard;
    /* fp8 GEMMs at the fp8 peak, dequantised to bf16 on a GPU without
     * one (A100, docs/sources.md §1.1), as the step-time model does. */
    double peak_lin = s->dtype == CL_DTYPE_FP8 && g->flops_fp8 > 0
                          ? g->flops_fp8
                          : g->flops_bf16;
    double eff;
    int ed = l->tp > l->ep ? l->tp : l->ep, block = l->tp * l->dp, rc = 0;

    stage_of(a, l->pp, i, &st);
    /* docs/sources.md §12.1/§4.4: forward 2 N per token and the causal
     * attention pairs s (s + 1) / 2 per sequence; backward twice the forward;
     * full recomputation one more forward (96 vs 72), selective one more of the
     * attention core. */
    lin = 2.0 * tokens * stage_active(sp, &st, h);
    attn = arch_attn_flops_per_pair(a, 0) * ((double)st.layers / a->layers) *
           micro_batch * seq * (seq + 1.0) / 2.0;
    if (recompute == LAYOUT_RECOMPUTE_FULL)
        pass_lin += 1.0;
    if (recompute != LAYOUT_RECOMPUTE_NONE)
        pass_attn += 1.0;
    /* GEMMs at eff_compute, or the calibration's efficiency for a
     * micro-batch's rows; attention at the calibrated attention one. */
    eff =
        s->eff_compute > 0 ? s->eff_compute : perf_gemm_eff(&s->calib, tokens);
    *compute_ns =
        NS_PER_S *
        (pass_lin * lin / (eff * peak_lin) +
         pass_attn * attn / (s->calib.attn_eff_compute * g->flops_bf16)) /
        l->tp;
    /* Element-wise kernels at the calibrated HBM fraction: the forward
     * once, the backward twice its bytes (gradients of inputs and
     * outputs), full recomputation one forward more. */
    elem = tokens * (st.dense * elem_bytes_per_token(a, 0, l->tp, sp_on) +
                     st.moe * elem_bytes_per_token(a, 1, l->tp, sp_on));
    *elem_ns = NS_PER_S * pass_lin * elem /
               (s->calib.elem_eff_memory * g->hbm_bytes_per_s);
    *compute_ns += *elem_ns;

    /* docs/sources.md §3.2: the forward collectives again backward; full
     * recomputation repeats the forward ones (passes 3 instead of 2). */
    passes = recompute == LAYOUT_RECOMPUTE_FULL ? 3.0 : 2.0;
    calls = m * passes * tp_calls_per_pass(l, &st);
    t0 = 0.0;
    if (sp_on) {
        rc |= traffic_add(s, &tr[LAYOUT_TR_SP], NET_ALLGATHER, l->tp, 1, 0,
                          calls, act);
        rc |= traffic_add(s, &tr[LAYOUT_TR_SP], NET_REDUCESCATTER, l->tp, 1, 0,
                          calls, act);
        t0 += tr[LAYOUT_TR_SP].time_ns;
    } else {
        rc |= traffic_add(s, &tr[LAYOUT_TR_TP], NET_ALLREDUCE, l->tp, 1, 0,
                          calls, act);
        t0 += tr[LAYOUT_TR_TP].time_ns;
    }
    /* A dispatch and a combine per MoE layer and pass. */
    rc |=
        traffic_add(s, &tr[LAYOUT_TR_EP], NET_ALLTOALL, l->ep, 1, 0,
                    m * passes * 2.0 * st.moe,
                    tokens / l->tp * a->moe.experts_per_token * h * ACT_BYTES);
    t0 += tr[LAYOUT_TR_EP].time_ns;
    /* docs/sources.md §3.2: one send of tokens h 2 bytes per micro-batch per
     * boundary each way: activations forward, gradients backward. */
    /* Interleaving sends each micro-batch v times across the pipeline
     * (§12.4: v times the pipeline communication). */
    if (!st.last || l->chunks > 1)
        rc |= traffic_add(s, &tr[LAYOUT_TR_PP], NET_SENDRECV, 2, block,
                          i * block, m * (l->chunks > 1 ? l->chunks : 1), act);
    if (!st.first || l->chunks > 1)
        rc |= traffic_add(s, &tr[LAYOUT_TR_PP], NET_SENDRECV, 2, block,
                          (i > 0 ? i - 1 : 0) * block,
                          m * (l->chunks > 1 ? l->chunks : 1), act);
    t0 += tr[LAYOUT_TR_PP].time_ns;
    *comm_ns = t0 / m;

    stage_params(sp, &st, h, &nonrouted, &routed);
    rc |= train_dp(s, l, nonrouted / l->tp, l->dp, l->tp, &tr[LAYOUT_TR_DP]);
    rc |= train_dp(s, l, routed / ed, block / ed, ed, &tr[LAYOUT_TR_DP]);
    *dp_ns = tr[LAYOUT_TR_DP].time_ns;
    /* Adam on the GPU's shard of the optimizer states (ZeRO >= 1: 1 / dp
     * of them), HBM-bound at the element-wise fraction. */
    shard = nonrouted / l->tp / (l->zero >= 1 ? l->dp : 1) +
            routed / ed / (l->zero >= 1 ? block / ed : 1);
    *optim_ns = NS_PER_S * LAYOUT_ADAM_BYTES_PER_PARAM * shard /
                (s->calib.elem_eff_memory * g->hbm_bytes_per_s);
    return rc != 0 ? -1 : 0;
}

static void eval_training(const struct layout_setup *s, struct layout *l,
                          struct layout_result *r)
{
    const struct arch_spec *a = s->arch;
    const struct gpu_spec *g = s->gpu;
    struct split sp;
    int64_t per_dp;
    double micro_batch, slow = -1.0, slow_c = 0.0, slow_comm = 0.0;
    double slow_elem = 0.0, dp_max = 0.0, optim_max = 0.0, flops, hidden;
    double slots, v, slow_hidden = 0.0, want_hidden;
    struct layout_traffic slow_tr[LAYOUT_TR_KINDS];
    int sp_on, rc_try, rc_last;

    split_init(&sp, a);
    r->usable_bytes = s->gpu_memory_utilization * (double)g->hbm_bytes;
    if (s->batch % l->dp != 0) {
        say(r, LAYOUT_NO_BATCH,
            "a global batch of %lld sequences does not split over dp %d",
            (long long)s->batch, l->dp);
        return;
    }
    per_dp = s->batch / l->dp;
    if (l->micro_batches == 0)
        l->micro_batches = (int)per_dp;
    if (per_dp % l->micro_batches != 0) {
        say(r, LAYOUT_NO_BATCH,
            "%lld sequences per dp rank do not split into %d micro-batches",
            (long long)per_dp, l->micro_batches);
        return;
    }
    micro_batch = (double)(per_dp / l->micro_batches);
    if (l->chunks > 1 && l->micro_batches % l->pp != 0) {
        say(r, LAYOUT_NO_BATCH,
            "interleaving needs micro-batches (%d) a multiple of pp %d",
            l->micro_batches, l->pp);
        return;
    }
    if (l->chunks > 1 && l->pp * l->chunks > a->layers) {
        say(r, LAYOUT_NO_PP_LAYERS, "pp %d x %d chunks exceeds %d layers",
            l->pp, l->chunks, a->layers);
        return;
    }
    sp_on = l->seq_parallel < 0 ? l->tp > 1 : (l->seq_parallel && l->tp > 1);
    l->seq_parallel = sp_on;

    /* AUTO: the least recomputation that fits (none, then selective, then
     * full). */
    rc_try = l->recompute == LAYOUT_RECOMPUTE_AUTO ? LAYOUT_RECOMPUTE_NONE
                                                   : l->recompute;
    rc_last = l->recompute == LAYOUT_RECOMPUTE_AUTO ? LAYOUT_RECOMPUTE_FULL
                                                    : l->recompute;
    for (;; rc_try++) {
        double tot = train_memory(s, l, &sp, micro_batch, sp_on, rc_try, r);
        if (tot <= r->usable_bytes || rc_try == rc_last)
            break;
    }
    l->recompute = rc_try;
    if (r->weight_bytes + r->grad_bytes + r->optim_bytes > r->usable_bytes) {
        say(r, LAYOUT_NO_WEIGHTS,
            "weights, gradients and optimizer states need %.1f GB per gpu, "
            "%.1f GB usable",
            (r->weight_bytes + r->grad_bytes + r->optim_bytes) / 1e9,
            r->usable_bytes / 1e9);
        return;
    }
    if (r->total_bytes > r->usable_bytes) {
        say(r, LAYOUT_NO_MEMORY,
            "states and %s activations need %.1f GB per gpu, %.1f GB usable",
            layout_recompute_name(rc_try), r->total_bytes / 1e9,
            r->usable_bytes / 1e9);
        return;
    }

    memset(slow_tr, 0, sizeof(slow_tr));
    for (int i = 0; i < l->pp; i++) {
        struct layout_traffic tr[LAYOUT_TR_KINDS];
        double c, e, comm, dp, opt;

        memset(tr, 0, sizeof(tr));
        if (train_stage_time(s, l, &sp, i, micro_batch, sp_on, rc_try, &c, &e,
                             &comm, &dp, &opt, tr) != 0) {
            say(r, LAYOUT_NO_NETWORK,
                "the layout spans nodes but no inter-node link is given");
            return;
        }
        if (i == 0)
            memcpy(r->traffic, tr, sizeof(tr));
        /* Overlap: a fraction of the tp/sp and ep time of a micro-batch
         * runs behind its compute, never more than the compute. */
        {
            double mm = l->micro_batches;
            double tpm =
                (tr[LAYOUT_TR_TP].time_ns + tr[LAYOUT_TR_SP].time_ns) / mm;
            double epm = tr[LAYOUT_TR_EP].time_ns / mm;
            double hid = s->tp_overlap * tpm + s->ep_overlap * epm;

            if (hid > c)
                hid = c;
            comm -= hid;
            if (c + comm > slow) {
                slow = c + comm;
                slow_c = c;
                slow_elem = e;
                slow_comm = comm;
                slow_hidden = hid * mm;
                memcpy(slow_tr, tr, sizeof(tr));
            }
        }
        if (dp > dp_max)
            dp_max = dp;
        if (opt > optim_max)
            optim_max = opt;
    }
    /* docs/sources.md §12.4, 1F1B: (m + p - 1) micro-batch slots of the slowest
     * stage = ideal / (1 - bubble), interleaved (m + (p - 1) / v) slots
     * (each chunk's slot is 1 / v of a micro-batch's time); then the dp
     * collectives that overlap does not hide and the optimizer step. The
     * hidden part is at most the backward compute (2/3 of fwd_bwd_ns
     * without recomputation), which it runs behind. */
    v = l->chunks > 1 ? l->chunks : 1;
    slots = l->micro_batches + (l->pp - 1) / v;
    r->bubble = layout_bubble_interleaved(l->pp, l->micro_batches, l->chunks);
    r->fwd_bwd_ns = l->micro_batches * slow_c;
    r->elem_ns = l->micro_batches * slow_elem;
    r->tp_ns = slow_tr[LAYOUT_TR_TP].time_ns + slow_tr[LAYOUT_TR_SP].time_ns;
    r->ep_ns = slow_tr[LAYOUT_TR_EP].time_ns;
    /* What overlap hides comes off tp and ep in proportion to what each
     * asked to hide. */
    r->hidden_ns = slow_hidden;
    want_hidden = s->tp_overlap * r->tp_ns + s->ep_overlap * r->ep_ns;
    if (want_hidden > 0) {
        r->tp_ns -= slow_hidden * s->tp_overlap * r->tp_ns / want_hidden;
        r->ep_ns -= slow_hidden * s->ep_overlap * r->ep_ns / want_hidden;
    }
    r->pp_ns = slow_tr[LAYOUT_TR_PP].time_ns;
    r->bubble_ns = (slots - l->micro_batches) * slow;
    r->dp_ns = dp_max;
    hidden = s->dp_overlap * dp_max;
    /* Gradient collectives hide behind the backward passes (2/3 of the
     * compute); ZeRO-3's regathers are prefetched in both passes. */
    if (hidden >
        (l->zero == 3 && s->zero3_regather ? 1.0 : 2.0 / 3.0) * r->fwd_bwd_ns)
        hidden = (l->zero == 3 && s->zero3_regather ? 1.0 : 2.0 / 3.0) *
                 r->fwd_bwd_ns;
    r->dp_exposed_ns = dp_max - hidden;
    r->optim_ns = optim_max;
    r->compute_ns = r->fwd_bwd_ns + r->optim_ns;
    r->comm_ns = l->micro_batches * slow_comm + r->dp_exposed_ns;
    r->step_ns = slots * slow + r->dp_exposed_ns + r->optim_ns;
    r->tokens_per_s = (double)s->batch * s->seq_tokens * NS_PER_S / r->step_ns;
    /* docs/sources.md §12.1: MFU counts 6 N plus attention per token, at the
     * dense bf16 peak, without recomputation. */
    flops = 3.0 * (double)s->batch *
            ((double)arch_linear_flops_per_token(a) * s->seq_tokens +
             arch_attn_flops_per_pair(a, 0) * s->seq_tokens *
                 (s->seq_tokens + 1.0) / 2.0);
    r->model_flops = flops;
    r->mfu = flops / (r->step_ns / NS_PER_S * s->gpus * g->flops_bf16);
    /* docs/sources.md §12.1: HFU counts the recomputed passes too (4/3 MFU for
     * full recomputation of the linear FLOPs). */
    r->hfu = (flops + (rc_try == LAYOUT_RECOMPUTE_FULL ? flops / 3.0 : 0.0) +
              (rc_try == LAYOUT_RECOMPUTE_SELECTIVE
                   ? (double)s->batch * arch_attn_flops_per_pair(a, 0) *
                         s->seq_tokens * (s->seq_tokens + 1.0) / 2.0
                   : 0.0)) /
             (r->step_ns / NS_PER_S * s->gpus * g->flops_bf16);
}

/* ---- entry points ---- */

int layout_setup_init(struct layout_setup *s, const struct arch_spec *a,
                      const struct gpu_spec *g, int gpus, int mode)
{
    memset(s, 0, sizeof(*s));
    if (a == NULL || g == NULL || gpus < 1 ||
        (mode != LAYOUT_INFERENCE && mode != LAYOUT_TRAINING))
        return SIM_EINVAL;
    s->arch = a;
    s->gpu = g;
    s->gpus = gpus;
    /* The named defaults are those the scenario's rows also use. */
    s->gpus_per_node = GPU_DEFAULT_GPUS_PER_NODE;
    s->nics_per_node = s->gpus_per_node; /* one NIC per GPU */
    perf_calib_resolve(NULL, g, &s->calib);
    s->mode = mode;
    s->dtype = mode == LAYOUT_TRAINING ? CL_DTYPE_BF16 : a->weight_dtype;
    s->kv_dtype = CL_DTYPE_BF16;
    s->gpu_memory_utilization = PERF_DEFAULT_GPU_MEMORY_UTILIZATION;
    s->eff_compute = 0.0;
    s->seq_tokens = LAYOUT_DEFAULT_SEQ_TOKENS;
    if (mode == LAYOUT_TRAINING) {
        s->batch = LAYOUT_DEFAULT_GLOBAL_BATCH_SEQS;
    } else {
        /* vLLM's max_num_seqs and max_num_batched_tokens rules for g
         * (docs/sources.md §5.1). */
        s->batch = perf_default_max_num_seqs(g);
        s->prefill_tokens = perf_default_max_num_batched_tokens(g);
    }
    s->tp_across_nodes = 1;
    return 0;
}

int layout_eval(const struct layout_setup *s, const struct layout *l,
                struct layout_result *out)
{
    char why[sizeof(out->why)];
    int rc;

    memset(out, 0, sizeof(*out));
    rc = setup_check(s, why, sizeof(why));
    if (rc == 0)
        rc = layout_check(s, l, why, sizeof(why));
    if (rc != 0) {
        snprintf(out->why, sizeof(out->why), "%s", why);
        return rc;
    }
    out->l = *l;
    if (s->mode == LAYOUT_INFERENCE) {
        out->l.zero = 0;
        out->l.micro_batches = 0;
        out->l.recompute = LAYOUT_RECOMPUTE_NONE;
        out->l.seq_parallel = 0;
    }
    out->tp_crosses_nodes = l->tp > s->gpus_per_node;
    if (!structure_ok(s, l, out))
        return 0;
    if (s->mode == LAYOUT_INFERENCE)
        eval_serving(s, &out->l, out);
    else
        eval_training(s, &out->l, out);
    return 0;
}

/* Divisors of n in increasing order into d; returns their count. */
static int divisors(int n, int *d, int max)
{
    int k = 0;

    for (int i = 1; i <= n && k < max; i++)
        if (n % i == 0)
            d[k++] = i;
    return k;
}

/* Feasible first; then tokens/s descending, memory ascending; then the
 * degrees. */
int layout_result_cmp(const void *pa, const void *pb)
{
    const struct layout_result *a = pa, *b = pb;
    const int ka[] = {a->l.tp, a->l.pp, a->l.dp, a->l.ep, a->l.zero};
    const int kb[] = {b->l.tp, b->l.pp, b->l.dp, b->l.ep, b->l.zero};
    int fa = a->verdict == LAYOUT_FITS, fb = b->verdict == LAYOUT_FITS;

    if (fa != fb)
        return fb - fa;
    if (fa) {
        if (a->tokens_per_s != b->tokens_per_s)
            return a->tokens_per_s > b->tokens_per_s ? -1 : 1;
        if (a->total_bytes != b->total_bytes)
            return a->total_bytes < b->total_bytes ? -1 : 1;
    }
    for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
        if (ka[i] != kb[i])
            return ka[i] - kb[i];
    return 0;
}

/* Bound on divisors considered per degree: N up to 2^16 GPUs has at most
 * a few hundred divisors. */
#define DIVISORS_MAX 1024

int layout_enumerate(const struct layout_setup *s, struct layout_result **out,
                     int *n)
{
    int dv[DIVISORS_MAX], ndv, cap = 64, cnt = 0, rc;
    int e = s != NULL && s->arch != NULL ? s->arch->moe.n_routed_experts : 0;
    struct layout_result *res;
    char why[256];

    *out = NULL;
    *n = 0;
    rc = setup_check(s, why, sizeof(why));
    if (rc != 0)
        return rc;
    ndv = divisors(s->gpus, dv, DIVISORS_MAX);
    res = xcalloc((size_t)cap, sizeof(*res));
    for (int i = 0; i < ndv; i++) {
        for (int j = 0; j < ndv; j++) {
            int tp = dv[i], pp = dv[j], dp;

            if (s->gpus % (tp * pp) != 0)
                continue;
            dp = s->gpus / (tp * pp);
            for (int ep = 1; ep <= tp * dp; ep++) {
                /* With redundant slots, ep dividing the routed experts
                 * only is listed too (and refused for not dividing the
                 * slots), so that the table says why it went. */
                if (ep > 1 &&
                    (e == 0 || ep % tp != 0 ||
                     (e % ep != 0 && (e + s->redundant_experts) % ep != 0) ||
                     (tp * dp) % ep != 0))
                    continue;
                for (int z = 0; z <= (s->mode == LAYOUT_TRAINING ? 3 : 0);
                     z++) {
                    struct layout l = {.dp = dp,
                                       .tp = tp,
                                       .pp = pp,
                                       .ep = ep,
                                       .zero = z,
                                       .micro_batches = 0,
                                       .recompute = LAYOUT_RECOMPUTE_AUTO,
                                       .seq_parallel = -1};

                    /* ZeRO shards over dp: stages above 0 need dp > 1. */
                    if (z > 0 && dp == 1)
                        continue;
                    if (cnt == cap) {
                        cap *= 2;
                        res = xrealloc(res, (size_t)cap, sizeof(*res));
                    }
                    rc = layout_eval(s, &l, &res[cnt]);
                    if (rc != 0) {
                        free(res);
                        return rc;
                    }
                    cnt++;
                }
            }
        }
    }
    qsort(res, (size_t)cnt, sizeof(*res), layout_result_cmp);
    *out = res;
    *n = cnt;
    return 0;
}

int layout_best(const struct layout_setup *s, struct layout_result *out)
{
    struct layout_result *res;
    int n, rc = layout_enumerate(s, &res, &n);

    memset(out, 0, sizeof(*out));
    if (rc != 0)
        return rc;
    if (n > 0)
        *out = res[0];
    rc = n > 0 && res[0].verdict == LAYOUT_FITS ? 0 : SIM_EINFEASIBLE;
    free(res);
    return rc;
}
