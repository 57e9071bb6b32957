/*
 * The per-operator step-time model. Every term and its source (the
 * formulas with their symbols are in docs/step-time.md):
 *
 * - GEMM classes (attention projections, dense MLP, MoE router, shared and
 *   routed experts, LM head): FLOPs 2 * M * params and bytes params * b_w
 *   + M * (K + N) * 2 per GEMM (docs/sources.md §4.4, "GEMM time model"),
 * priced max(FLOPs / (eta(M) * peak), bytes / (eta_m * HBM)) + kernels * kernel
 * time, eta(M) = eta_max * M / (M + M_half) (models/perf/calib.c for the fitted
 * values). MLA decodes in the absorbed form, whose FLOPs per query token equal
 * the naive kv_b's (docs/sources.md §4.4); a prefill with cached context also
 * expands the cached latents through kv_b.
 * - Routed experts: E * (1 - (1 - k/E)^T) experts touched per MoE layer
 *   (docs/sources.md §4.5), whose weights are read; 2 * 3 * h * f_e FLOPs per
 *   token-expert pair; M = T * k / touched rows per expert.
 * - Attention: FLOPs per query-key pair of arch_attn_flops_per_pair()
 *   (docs/sources.md §4.4: GQA 4 n_h d, MLA naive for prefill and absorbed for
 *   decode), capped at the DSA top-k keys plus the indexer's scoring of
 *   every key (arch.h); bytes = the KV cache read (every attended cached
 *   token once) and written (every new token), docs/sources.md §4.3.
 * - Elementwise: two fused residual-add RMSNorms (read x and the residual,
 *   write both: 4h elements), rotary embedding on q and k, SiLU-and-mul
 *   (read 2f, write f), MoE routing, permute and combine, embedding lookup
 *   and final norm, at the elementwise HBM fraction.
 * - TP: two all-reduces per layer of T * h * 2 bytes (Megatron, docs/sources.md
 *   §3.2), one per MoE layer when EP's combine replaces the second; PP: a
 *   send of T * h * 2 bytes per stage boundary (docs/sources.md §3.2). Costs
 * from models/net (docs/sources.md §3.2-3.4) over the calibrated links.
 * - EP (docs/step-time.md "Expert parallelism"): slots = routed +
 *   redundant experts, slots / ep whole experts a GPU; the busiest rank's
 *   pairs iota times the mean (uniform routing: its static share plus the
 *   normal approximation of the maximum over ep ranks) set the routed
 *   GEMMs and the all-to-all; dispatch k * h * b_d (b_d = 1 for fp8 as
 *   DeepEP dispatches, else 2) and combine k * h * 2 bytes per token,
 *   priced by DeepEP's kernel class (docs/sources.md §14: normal kernels with a
 *   prefill, RDMA one copy per destination node under node-limited
 *   routing; low-latency kernels for decode, base + bytes / bandwidth
 *   fitted to its table) and, with two micro-batches, hidden behind the
 *   other half's compute.
 * - Host: a fixed time per iteration plus a time per sequence (docs/sources.md
 *   §5.4).
 *
 * Every class is linear in tokens, query-key pairs or context, so the
 * aggregate struct perf_batch prices them exactly, except two documented
 * approximations: the DSA cap uses the mean decode context, and the
 * expert coverage assumes uniform routing. Per-layer and per-sequence sums
 * were rejected: O(batch) per iteration on the simulator's hot path.
 * Not modelled, TODO(#3): overlap of anything but the EP all-to-all, the
 * logits all-gather, sampling on the GPU, and load imbalance between
 * data-parallel attention groups (TODO(#18)).
 */
#include "models/perf/roofline.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* Bytes per activation element (bf16), docs/sources.md §3.2 counts tokens * h *
 * bytes. */
#define ACT_BYTES 2.0

/* The most tokens whose all-reduce the step memo keeps (allreduce()). */
#define PERF_AR_MEMO_MAX 1048576.0

/* GEMM kernels per layer (docs/sources.md §4.4 shapes): GQA fused QKV and O;
 * MLA fused q_a/kv_a, q_b, kv_b (absorbed: two batched GEMMs), o; dense
 * MLP fused gate/up and down; experts the same two (fused MoE). */
#define KERNELS_GQA_PROJ 2.0
#define KERNELS_MLA_PROJ 5.0
#define KERNELS_MLP 2.0

static const char *const op_names[PERF_OP_COUNT] = {
    "attn_proj", "attention", "mlp",     "moe",   "lm_head",  "elementwise",
    "tp_comm",   "ep_comm",   "pp_comm", "draft", "overhead",
};

const char *perf_spec_name(int method)
{
    switch (method) {
    case PERF_SPEC_NONE:
        return "none";
    case PERF_SPEC_MTP:
        return "mtp";
    case PERF_SPEC_NGRAM:
        return "ngram";
    default:
        return "?";
    }
}

double perf_spec_tokens_per_step(int k, double alpha)
{
    double sum = 1.0, p = 1.0;
    for (int j = 1; j <= k; j++) {
        p *= alpha;
        sum += p;
    }
    return sum;
}

const char *perf_op_name(int op)
{
    return op >= 0 && op < PERF_OP_COUNT ? op_names[op] : "?";
}

const char *perf_bound_name(int bound)
{
    switch (bound) {
    case PERF_BOUND_COMPUTE:
        return "compute";
    case PERF_BOUND_MEMORY:
        return "memory";
    case PERF_BOUND_COMM:
        return "comm";
    case PERF_BOUND_HOST:
        return "host";
    default:
        return "-";
    }
}

double perf_weight_bytes_per_param(int dtype)
{
    switch (dtype) {
    case CL_DTYPE_BF16:
        return 2.0;
    case CL_DTYPE_FP8:
        /* docs/sources.md §4.2: one FP32 scale per 128x128 block. */
        return 1.0 + 4.0 / (128.0 * 128.0);
    case CL_DTYPE_INT4:
        /* Assumption: one 16-bit scale per group of 128 weights. */
        return 0.5 + 2.0 / 128.0;
    default:
        return 0.0;
    }
}

int perf_kv_bytes_per_elem(int dtype)
{
    switch (dtype) {
    case CL_DTYPE_BF16:
        return 2;
    case CL_DTYPE_FP8:
        return 1;
    default:
        return 0;
    }
}

const char *perf_dtype_name(int dtype)
{
    switch (dtype) {
    case CL_DTYPE_BF16:
        return "bf16";
    case CL_DTYPE_FP8:
        return "fp8";
    case CL_DTYPE_INT4:
        return "int4";
    default:
        return "?";
    }
}

/* Whether tp is an allowed split of a's heads (vLLM's rule: query heads
 * divisible by tp; KV heads divisible by tp, or tp a multiple of them when
 * they are replicated). MLA caches no per-head KV. */
static int tp_divides(const struct arch_spec *a, int tp)
{
    if (tp < 1 || a->heads % tp != 0)
        return 0;
    if (a->attn == ARCH_ATTN_GQA) {
        if (tp <= a->kv_heads)
            return a->kv_heads % tp == 0;
        return tp % a->kv_heads == 0;
    }
    return 1;
}

/* Whether ep is allowed with tp and redundant extra slots: 1 without
 * redundant slots, or a multiple of tp dividing the expert slots (routed
 * experts + redundant, redundant <= routed) of an MoE model. */
static int ep_allowed(const struct arch_spec *a, int tp, int ep, int redundant)
{
    int e = a->moe.n_routed_experts;

    if (ep == 1)
        return redundant == 0;
    return ep > 1 && e > 0 && ep % tp == 0 && redundant >= 0 &&
           redundant <= e && (e + redundant) % ep == 0;
}

const char *perf_a2a_name(int cls)
{
    switch (cls) {
    case PERF_A2A_NONE:
        return "none";
    case PERF_A2A_NORMAL_INTRA:
        return "normal-intranode";
    case PERF_A2A_NORMAL_INTER:
        return "normal-internode";
    case PERF_A2A_LOW_LATENCY:
        return "low-latency";
    default:
        return "?";
    }
}

int perf_expert_placement(int experts, int redundant, int ep, int *slot_expert)
{
    int slots = experts + redundant, per, unique, next_unique, next_copy;

    if (experts < 1 || redundant < 0 || redundant > experts || ep < 1 ||
        slots % ep != 0)
        return SIM_EINVAL;
    per = slots / ep;
    unique = experts - redundant;
    /* GPU g first takes its even share of the single-copy experts
     * (redundant .. experts - 1), then copies: the first copies of the hot
     * experts 0 .. redundant - 1 in order, then their second copies, so
     * that the two copies of one expert are redundant copy slots apart. */
    next_unique = redundant;
    next_copy = 0;
    for (int g = 0; g < ep; g++) {
        int u = unique / ep + (g < unique % ep ? 1 : 0);
        for (int j = 0; j < per; j++) {
            int *slot = &slot_expert[g * per + j];
            if (j < u)
                *slot = next_unique++;
            else
                *slot = next_copy++ % redundant;
        }
    }
    return 0;
}

double perf_expected_max_normal(int n)
{
    if (n <= 1)
        return 0.0;
    return gsl_cdf_ugaussian_Pinv((n - 0.375) / (n + 0.25));
}

/* The fraction of the GQA KV heads one GPU holds: 1/tp, or 1/kv_heads when
 * they are replicated (tp > kv_heads). */
static double kv_head_share(const struct arch_spec *a, int tp)
{
    if (a->attn == ARCH_ATTN_MLA)
        return 1.0; /* the latent is replicated on every rank */
    return tp >= a->kv_heads ? 1.0 / a->kv_heads : 1.0 / tp;
}

/* Fills the layout-dependent constants of n (everything but the
 * calibration) and returns the KV capacity in tokens, negative when the
 * weights and the reserve alone do not fit. n->arch, gpu and the dtypes
 * and utilisation must be set. */
static double plan(struct perf_replica *n, const struct perf_layout *l)
{
    const struct arch_spec *a = n->arch;
    const struct gpu_spec *g = n->gpu;
    double h = a->hidden, nh = a->heads, tp = l->tp;
    double bpp = perf_weight_bytes_per_param(n->weight_dtype);
    int kvb = perf_kv_bytes_per_elem(n->kv_dtype);
    double emb = (double)arch_params_embedding(a);
    double head = a->tied_embeddings ? 0.0 : emb;
    double e = a->moe.n_routed_experts;
    double sffn = a->moe.shared_ffn > 0 ? a->moe.shared_ffn : a->moe.moe_ffn;
    double nsh = a->moe.n_shared_experts;
    double router = 0.0, shared = 0.0, attn, rope, kvg;
    double layer_common, layer_dense, layer_moe, stage, free_bytes;
    struct arch_spec noidx;
    int w, gpn = l->gpus_per_node;

    n->tp = l->tp;
    n->pp = l->pp;
    n->ep = l->ep;
    n->expert_slots =
        a->moe.n_routed_experts + (l->ep > 1 ? l->redundant_experts : 0);
    n->slots_per_gpu =
        l->ep > 1 ? n->expert_slots / l->ep : a->moe.n_routed_experts;
    n->slot_ratio = e > 0 ? n->expert_slots / e : 1.0;
    n->micro_batches = l->micro_batches > 1 ? l->micro_batches : 1;
    n->dp = l->ep > l->tp ? l->ep / l->tp : 1;
    n->inv_dp = 1.0 / n->dp;
    n->gpus = l->tp * n->dp * l->pp;
    n->gpus_per_node = gpn;
    n->nics_per_node = l->nics_per_node > 0 ? l->nics_per_node : gpn;
    n->layers = a->layers;
    n->moe_layers = arch_moe_layers(a);
    n->dense_layers = a->layers - n->moe_layers;
    n->stage_layers = (a->layers + l->pp - 1) / l->pp;
    n->stage_moe_layers =
        n->moe_layers < n->stage_layers ? n->moe_layers : n->stage_layers;
    n->stage_dense_layers = n->stage_layers - n->stage_moe_layers;
    n->weight_bytes_per_param = bpp;
    n->weight_bytes = (double)arch_params_total(a) * bpp;

    /* Attention parameters of one layer, QKV and output biases, QK-norm
     * and the DSA indexer included. */
    if (e > 0) {
        router = e * h + (a->moe.router_bias ? e : 0.0);
        shared = nsh * 3.0 * h * sffn + (a->moe.shared_gate ? h : 0.0);
    }
    attn = (double)arch_params_attn(a);

    kvg = a->kv_heads * kv_head_share(a, l->tp); /* KV heads per GPU */
    if (a->attn == ARCH_ATTN_MLA) {
        const struct arch_mla *m = &a->mla;
        double qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        double repl = 0.0;

        /* vLLM keeps q_a and kv_a (with their norms) whole on every rank
         * (ReplicatedLinear); the rest splits by heads. */
        if (m->q_lora_rank > 0)
            repl += h * m->q_lora_rank + m->q_lora_rank;
        repl += h * (m->kv_lora_rank + m->qk_rope_head_dim) + m->kv_lora_rank;
        n->attn_proj_params = (attn - repl) / tp + repl;
        n->attn_proj_act =
            (m->q_lora_rank > 0
                 ? h + m->q_lora_rank + m->q_lora_rank + nh / tp * qk
                 : h + nh / tp * qk) +
            h + m->kv_lora_rank + m->qk_rope_head_dim + m->kv_lora_rank +
            nh / tp * (m->qk_nope_head_dim + m->v_head_dim) +
            nh / tp * m->v_head_dim + h;
        n->attn_proj_kernels =
            m->q_lora_rank > 0 ? KERNELS_MLA_PROJ : KERNELS_MLA_PROJ - 1.0;
        n->kv_b_params = (double)m->kv_lora_rank * nh *
                         (m->qk_nope_head_dim + m->v_head_dim) / tp;
        n->attn_qo_act = nh / tp * (qk + m->v_head_dim);
        rope = 2.0 * (nh / tp + 1.0) * m->qk_rope_head_dim;
        rope += 2.0 * (m->q_lora_rank + m->kv_lora_rank); /* latent norms */
    } else {
        double d = a->head_dim;
        double kv = 2.0 * h * a->kv_heads * d;

        /* K and V replicate with their heads when tp > kv_heads. */
        n->attn_proj_params = (attn - kv) / tp + kv * kv_head_share(a, l->tp);
        n->attn_proj_act = h + (nh / tp + 2.0 * kvg) * d + nh / tp * d + h;
        n->attn_proj_kernels = KERNELS_GQA_PROJ;
        n->kv_b_params = 0.0;
        n->attn_qo_act = 2.0 * nh / tp * d;
        rope = 2.0 * (nh / tp + kvg) * d;
        if (a->qk_norm)
            rope *= 2.0; /* QK-norm reads and writes q and k once more */
    }
    /* Gated: gate and up write 2f, down reads f; plain: up writes f, down
     * reads f (arch_params_mlp(): 3hf or 2hf weights, biases in). */
    n->mlp_params = (double)arch_params_mlp(a) / tp;
    n->mlp_act = h + (a->mlp == ARCH_MLP_PLAIN ? 1.0 : 2.0) * a->ffn / tp +
                 a->ffn / tp + h;
    n->router_params = router;
    n->router_act = e > 0 ? h + e : 0.0;
    n->shared_params = shared / tp;
    n->shared_act = nsh > 0 ? h + 3.0 * nsh * sffn / tp + h : 0.0;
    n->expert_params = (double)arch_params_expert(a);
    n->moe_log_keep = e > 0 ? log1p(-a->moe.experts_per_token / e) : 0.0;
    n->expert_div = l->ep > 1 ? l->ep : l->tp;
    n->pairs_div = l->ep > 1 ? l->ep : 1.0;
    n->expert_pair_act =
        h + 3.0 * a->moe.moe_ffn * n->pairs_div / n->expert_div + h;
    n->lm_head_params = emb / tp;
    n->lm_head_act = h + a->vocab / tp;

    /* Attention per layer. */
    n->attn_flops_pair_prefill = arch_attn_flops_per_pair(a, 0) / a->layers;
    n->attn_flops_pair_decode = arch_attn_flops_per_pair(a, 1) / a->layers;
    n->attn_flops_pair_indexer = arch_indexer_flops_per_pair(a) / a->layers;
    n->attn_topk = arch_attn_topk(a);
    noidx = *a;
    memset(&noidx.indexer, 0, sizeof(noidx.indexer));
    n->kv_main_bytes = (double)arch_kv_bytes_per_token(&noidx, kvb) /
                       a->layers * kv_head_share(a, l->tp);
    n->kv_index_bytes = (double)(arch_kv_bytes_per_token(a, kvb) -
                                 arch_kv_bytes_per_token(&noidx, kvb)) /
                        a->layers;
    n->attn_kernels = a->indexer.n_heads > 0 ? 2.0 : 1.0;

    /* Elementwise per layer. */
    n->elem_common = 2.0 * 4.0 * h + rope;
    n->elem_common_kernels =
        3.0 + (a->attn == ARCH_ATTN_MLA ? 1.0 : 0.0) + (a->qk_norm ? 1.0 : 0.0);
    /* The activation reads 2f (silu(gate) * up) or f (gelu(up)), writes f. */
    n->elem_dense = (a->mlp == ARCH_MLP_PLAIN ? 2.0 : 3.0) * a->ffn / tp;
    n->elem_dense_kernels = 1.0;
    n->elem_moe_token = 3.0 * nsh * sffn / tp + h + e;
    n->elem_moe_pair =
        3.0 * a->moe.moe_ffn * n->pairs_div / n->expert_div + 2.0 * h;
    n->elem_moe_kernels = 4.0 + (nsh > 0 ? 1.0 : 0.0);
    n->elem_once = 4.0 * h;
    n->elem_once_kernels = 2.0;

    /* Communication. */
    n->allreduces_dense = l->tp > 1 ? 2 : 0;
    n->allreduces_moe = l->tp > 1 ? (l->ep > 1 ? 1 : 2) : 0;
    n->dispatch_bytes_per_elem =
        n->weight_dtype == CL_DTYPE_FP8 && g->flops_fp8 > 0.0 ? 1.0 : 2.0;
    /* Rank j of stage s-1 sends to rank j of stage s; the boundary crosses
     * nodes when a node boundary falls between any such pair. */
    w = l->tp * n->dp;
    n->pp_intra_sends = n->pp_inter_sends = 0;
    for (int s = 1; s < l->pp; s++) {
        if (((s + 1) * w - 1) / gpn > ((s - 1) * w) / gpn)
            n->pp_inter_sends++;
        else
            n->pp_intra_sends++;
    }

    /* Memory of one GPU of the heaviest stage. */
    layer_common = n->attn_proj_params + 2.0 * h;
    layer_dense = layer_common + n->mlp_params;
    /* Each GPU holds slots / ep whole experts (ep > 1), or 1 / tp of every
     * expert. */
    layer_moe =
        layer_common + n->router_params + n->shared_params +
        (l->ep > 1 ? n->expert_slots : e) * n->expert_params / n->expert_div;
    stage = n->stage_dense_layers * layer_dense +
            n->stage_moe_layers * layer_moe +
            (l->pp == 1 ? (emb + head) / tp : emb / tp) + h;
    n->kv_bytes_per_token_per_gpu =
        n->stage_layers * (n->kv_main_bytes + n->kv_index_bytes);
    /* Speculative decoding. The MTP module (one layer, like the model's
     * last, with its input projection of the embedding and the hidden
     * state, 2h -> h, and two norms; the embedding and LM head shared)
     * lives with the last stage: counted on the heaviest, and its layer
     * keeps a KV cache of its own. */
    n->spec_method = l->spec_method;
    n->spec_tokens = l->spec_tokens;
    n->spec_acceptance = l->spec_acceptance;
    n->mtp_proj_params = 0.0;
    if (l->spec_method == PERF_SPEC_MTP) {
        n->mtp_proj_params = 2.0 * h * h / tp;
        stage += (n->moe_layers > 0 ? layer_moe : layer_dense) +
                 n->mtp_proj_params + 2.0 * h;
        n->kv_bytes_per_token_per_gpu += n->kv_main_bytes + n->kv_index_bytes;
    }
    n->weight_bytes_per_gpu = stage * bpp;
    n->reserve_bytes_per_gpu = (double)PERF_RESERVE_BYTES_PER_GPU;
    free_bytes = n->gpu_memory_utilization * (double)g->hbm_bytes -
                 n->weight_bytes_per_gpu - n->reserve_bytes_per_gpu;
    if (free_bytes < 0)
        return floor(free_bytes / n->kv_bytes_per_token_per_gpu);
    return n->dp * floor(free_bytes / n->kv_bytes_per_token_per_gpu);
}

/* Whether the layout is allowed at all (not memory). */
static int layout_ok(const struct arch_spec *a, const struct perf_layout *l)
{
    return l->tp >= 1 && l->tp <= l->gpus_per_node && tp_divides(a, l->tp) &&
           l->pp >= 1 && l->pp <= a->layers &&
           ep_allowed(a, l->tp, l->ep, l->redundant_experts) &&
           (l->micro_batches <= 1 || l->pp == 1);
}

static double capacity(const struct arch_spec *a, const struct gpu_spec *g,
                       const struct perf_layout *l, int wd, int kd, double util)
{
    struct perf_replica n;

    memset(&n, 0, sizeof(n));
    n.arch = a;
    n.gpu = g;
    n.weight_dtype = wd;
    n.kv_dtype = kd;
    n.gpu_memory_utilization = util;
    return plan(&n, l);
}

static int fits(const struct arch_spec *a, const struct gpu_spec *g,
                const struct perf_layout *l, int wd, int kd, double util)
{
    return layout_ok(a, l) &&
           capacity(a, g, l, wd, kd, util) >= PERF_MIN_KV_TOKENS;
}

/* A short list of phrases joined for a message: "a", "a or b",
 * "a, b, or c". Bounded: items past PHRASES_MAX are dropped. */
#define PHRASES_MAX 8

struct phrases {
    char item[PHRASES_MAX][96];
    int n;
};

static void phrases_add(struct phrases *p, const char *item)
{
    size_t n = strlen(item);

    if (p->n >= PHRASES_MAX)
        return;
    /* Truncate silently: a message is still useful cut short. memcpy, not
     * snprintf, so that gcc -O2 does not warn about the truncation. */
    if (n >= sizeof(p->item[0]))
        n = sizeof(p->item[0]) - 1;
    memcpy(p->item[p->n], item, n);
    p->item[p->n][n] = '\0';
    p->n++;
}

static void phrases_join(const struct phrases *p, char *buf, size_t len)
{
    size_t used = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < p->n && used < len; i++) {
        const char *sep = "";
        if (i > 0 && i == p->n - 1)
            sep = p->n > 2 ? ", or " : " or ";
        else if (i > 0)
            sep = ", ";
        used +=
            (size_t)snprintf(buf + used, len - used, "%s%s", sep, p->item[i]);
    }
}

/* The most pipeline stages and expert-parallel GPUs a suggestion names. */
#define SUGGEST_MAX_PP 16
#define SUGGEST_MAX_EP 64

/* Writes what would make an infeasible configuration fit into buf: other
 * weight dtypes, an fp8 KV cache, the smallest allowed larger tp, pp or ep,
 * larger catalog GPUs, each with the rest of the layout unchanged. */
static void suggest(char *buf, size_t len, const struct arch_spec *a,
                    const struct gpu_spec *g, const struct perf_layout *l,
                    int wd, int kd, double util)
{
    static const int dtypes[] = {CL_DTYPE_BF16, CL_DTYPE_FP8, CL_DTYPE_INT4};
    struct phrases all = {.n = 0}, names = {.n = 0};
    struct perf_layout t;
    char joined[256], item[300];
    size_t i;

    for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
        if (dtypes[i] != wd && fits(a, g, l, dtypes[i], kd, util))
            phrases_add(&names, perf_dtype_name(dtypes[i]));
    }
    if (names.n > 0) {
        phrases_join(&names, joined, sizeof(joined));
        snprintf(item, sizeof(item), "%s weights", joined);
        phrases_add(&all, item);
    }
    if (kd == CL_DTYPE_BF16 && fits(a, g, l, wd, CL_DTYPE_FP8, util))
        phrases_add(&all, "an fp8 kv cache");
    for (t = *l, t.tp = l->tp + 1; t.tp <= l->gpus_per_node; t.tp++) {
        t.ep = l->ep > 1 && l->ep % t.tp == 0 ? l->ep : 1;
        if (fits(a, g, &t, wd, kd, util)) {
            snprintf(item, sizeof(item), "tp >= %d", t.tp);
            phrases_add(&all, item);
            break;
        }
    }
    for (t = *l, t.pp = l->pp + 1; t.pp <= SUGGEST_MAX_PP; t.pp++) {
        if (fits(a, g, &t, wd, kd, util)) {
            snprintf(item, sizeof(item), "pp >= %d", t.pp);
            phrases_add(&all, item);
            break;
        }
    }
    if (a->moe.n_routed_experts > 0) {
        for (t = *l, t.ep = 2 * (l->ep > l->tp ? l->ep : l->tp);
             t.ep <= SUGGEST_MAX_EP; t.ep += l->tp) {
            if (fits(a, g, &t, wd, kd, util)) {
                snprintf(item, sizeof(item), "ep >= %d", t.ep);
                phrases_add(&all, item);
                break;
            }
        }
    }
    names.n = 0;
    for (i = 0; gpu_table[i] != NULL; i++) {
        const struct gpu_spec *o = gpu_table[i];
        if (o->hbm_bytes > g->hbm_bytes && fits(a, o, l, wd, kd, util))
            phrases_add(&names, o->name);
    }
    if (names.n > 0) {
        phrases_join(&names, joined, sizeof(joined));
        snprintf(item, sizeof(item), "a larger gpu (%s)", joined);
        phrases_add(&all, item);
    }
    phrases_join(&all, buf, len);
}

/* Writes a message into why if there is room. */
static void say(char *why, size_t whylen, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void say(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    if (why == NULL || whylen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

/* The allowed tp values up to gpus_per_node, as "1, 2, 4, or 8". */
static void allowed_tps(char *buf, size_t len, const struct arch_spec *a,
                        int gpus_per_node)
{
    struct phrases p = {.n = 0};
    char item[16];
    int t;

    for (t = 1; t <= gpus_per_node; t++) {
        if (!tp_divides(a, t))
            continue;
        snprintf(item, sizeof(item), "%d", t);
        phrases_add(&p, item);
    }
    phrases_join(&p, buf, len);
}

static int calib_ok(const struct perf_gpu_calib *c)
{
    const double f[] = {c->gemm_eff_max, c->gemm_eff_memory,
                        c->attn_eff_compute, c->attn_eff_memory,
                        c->elem_eff_memory};
    const double t[] = {c->gemm_half_tokens,      c->gemm_kernel_ns,
                        c->attn_kernel_ns,        c->elem_kernel_ns,
                        c->iteration_overhead_ns, c->seq_overhead_ns,
                        c->launch_eager_ns,       c->launch_graph_ns,
                        c->a2a_normal_base_ns,    c->a2a_ll_base_ns};
    /* All-to-all bandwidth ratios may exceed 1 (DeepEP counts bytes its
     * own way, docs/step-time.md). */
    const double ratio[] = {c->a2a_normal_intra, c->a2a_normal_inter,
                            c->a2a_ll_intra, c->a2a_ll_inter};

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if (!(f[i] > 0.0 && f[i] <= 1.0))
            return 0;
    for (size_t i = 0; i < sizeof(ratio) / sizeof(ratio[0]); i++)
        if (!(ratio[i] > 0.0) || isinf(ratio[i]))
            return 0;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!(t[i] >= 0.0) || isinf(t[i]))
            return 0;
    return c->intra.bytes_per_s > 0 && c->intra.efficiency > 0 &&
           c->inter.bytes_per_s > 0 && c->inter.efficiency > 0;
}

/* Checks the layout against a and writes the reason into why. Returns 0,
 * SIM_EINVAL or SIM_EINFEASIBLE. */
static int check_layout(const struct arch_spec *a, const struct perf_layout *l,
                        char *why, size_t whylen)
{
    if (l->gpus_per_node < 1) {
        say(why, whylen, "gpus_per_node must be at least 1, got %d",
            l->gpus_per_node);
        return SIM_EINVAL;
    }
    if (l->tp < 1 || l->pp < 1 || l->ep < 1 || l->nics_per_node < 0) {
        say(why, whylen,
            "tp, pp and ep must be at least 1, got tp %d, pp %d, ep %d", l->tp,
            l->pp, l->ep);
        return SIM_EINVAL;
    }
    if (l->tp > l->gpus_per_node) {
        say(why, whylen,
            "tp %d exceeds gpus_per_node %d; tensor "
            "parallelism across nodes is not modelled, use tp <= %d "
            "and pp or ep across nodes",
            l->tp, l->gpus_per_node, l->gpus_per_node);
        return SIM_EINFEASIBLE;
    }
    if (!tp_divides(a, l->tp)) {
        char list[512];

        allowed_tps(list, sizeof(list), a, l->gpus_per_node);
        if (a->attn == ARCH_ATTN_GQA)
            say(why, whylen,
                "%s has %d attention heads and %d kv heads, "
                "which tp %d does not split evenly; use tp %s",
                a->name, a->heads, a->kv_heads, l->tp, list);
        else
            say(why, whylen,
                "%s has %d attention heads, not divisible by "
                "tp %d; use tp %s",
                a->name, a->heads, l->tp, list);
        return SIM_EINFEASIBLE;
    }
    if (l->pp > a->layers) {
        say(why, whylen, "pp %d exceeds the %d layers of %s", l->pp, a->layers,
            a->name);
        return SIM_EINFEASIBLE;
    }
    if (l->ep > 1 && a->moe.n_routed_experts == 0) {
        say(why, whylen,
            "ep %d needs a mixture-of-experts model; %s is dense, use ep 1",
            l->ep, a->name);
        return SIM_EINFEASIBLE;
    }
    if (l->redundant_experts < 0 || l->micro_batches < 0 ||
        l->micro_batches > 2 ||
        !(l->expert_imbalance == 0.0 || l->expert_imbalance >= 1.0) ||
        isinf(l->expert_imbalance)) {
        say(why, whylen,
            "redundant_experts must be >= 0, micro_batches 1 or 2 and "
            "expert_imbalance >= 1, got %d, %d and %g",
            l->redundant_experts, l->micro_batches, l->expert_imbalance);
        return SIM_EINVAL;
    }
    if (l->ep == 1 && (l->redundant_experts > 0 || l->expert_imbalance > 0)) {
        say(why, whylen,
            "%s needs expert parallelism (ep > 1); with ep 1 every gpu holds "
            "a slice of every expert",
            l->redundant_experts > 0 ? "redundant_experts"
                                     : "expert_imbalance");
        return SIM_EINFEASIBLE;
    }
    if (l->redundant_experts > a->moe.n_routed_experts) {
        say(why, whylen,
            "redundant_experts %d exceeds the %d routed experts of %s (at "
            "most one extra copy per expert)",
            l->redundant_experts, a->moe.n_routed_experts, a->name);
        return SIM_EINFEASIBLE;
    }
    if (!ep_allowed(a, l->tp, l->ep, l->redundant_experts)) {
        int e = a->moe.n_routed_experts, slots = e + l->redundant_experts;
        int fix = (l->ep - e % l->ep) % l->ep;
        char hint[160] = "";

        /* The fewest redundant slots that would make ep divide them. */
        if (l->ep % l->tp == 0 && fix <= e)
            snprintf(hint, sizeof(hint),
                     "; redundant_experts %d gives %d slots, %d per gpu", fix,
                     e + fix, (e + fix) / l->ep);
        say(why, whylen,
            "ep %d must be a multiple of tp %d (ep = tp: experts spread "
            "over the tp GPUs; ep = k * tp: k data-parallel attention "
            "groups) dividing the %d expert slots of %s (%d routed + %d "
            "redundant)%s",
            l->ep, l->tp, slots, a->name, e, l->redundant_experts, hint);
        return SIM_EINFEASIBLE;
    }
    if (l->spec_method < PERF_SPEC_NONE || l->spec_method > PERF_SPEC_NGRAM ||
        (l->spec_method == PERF_SPEC_NONE) != (l->spec_tokens == 0) ||
        l->spec_tokens < 0 || l->spec_tokens > 8 ||
        !(l->spec_acceptance >= 0.0 && l->spec_acceptance <= 1.0)) {
        say(why, whylen,
            "speculative decoding needs a method with 1 to 8 drafted tokens "
            "and an acceptance in [0, 1] (none with 0 tokens), got %s, %d "
            "tokens, acceptance %g",
            perf_spec_name(l->spec_method), l->spec_tokens, l->spec_acceptance);
        return SIM_EINVAL;
    }
    if (l->spec_method == PERF_SPEC_MTP && a->mtp_layers < 1) {
        say(why, whylen,
            "speculative method mtp needs a model with a multi-token-"
            "prediction module (num_nextn_predict_layers >= 1, as "
            "DeepSeek-V3); %s has none, use method ngram",
            a->name);
        return SIM_EINFEASIBLE;
    }
    if (l->micro_batches > 1 && l->pp > 1) {
        say(why, whylen,
            "micro_batches %d needs pp 1 (the two-batch overlap within a "
            "stage is not modelled with pipeline stages), got pp %d",
            l->micro_batches, l->pp);
        return SIM_EINFEASIBLE;
    }
    return 0;
}

/* Distinct destination nodes of one token's k experts over the EP group's
 * nodes under node-limited routing (docs/step-time.md "Expert
 * parallelism"): the token's topk_group groups of n_group reach r nodes
 * (whole groups per node: the expected nodes covered by topk_group groups
 * drawn from n_group; groups wider than a node: topk_group * nodes /
 * n_group), and k uniform picks over r nodes cover r * (1 - (1 - 1/r)^k)
 * of them. */
static double node_copies(const struct arch_moe *m, double nodes)
{
    double k = m->experts_per_token, reach = nodes;

    if (m->n_group > 1 && m->topk_group > 0 && m->topk_group < m->n_group) {
        double g = m->n_group, tg = m->topk_group;
        if (nodes <= g) {
            double per = g / nodes, miss = 1.0;
            for (int i = 0; i < m->topk_group; i++)
                miss *= g - per - i > 0.0 ? (g - per - i) / (g - i) : 0.0;
            reach = nodes * (1.0 - miss);
        } else {
            reach = tg * nodes / g;
        }
    }
    if (reach <= 1.0)
        return 1.0;
    return reach * (1.0 - pow(1.0 - 1.0 / reach, k));
}

/* The expert-parallel constants of n (its calibration copied): the load
 * imbalance of uniform routing over the placement and the all-to-all's ns
 * per byte by kernel class (docs/step-time.md "Expert parallelism"). */
static void ep_constants(struct perf_replica *n, const struct perf_layout *l)
{
    const struct arch_moe *m = &n->arch->moe;
    const struct perf_gpu_calib *c = &n->calib;
    double e = m->n_routed_experts, k = m->experts_per_token, ep = n->ep;
    double gpn = n->gpus_per_node, nodes, local, inter_bw, q, most;
    int unique;

    n->imbalance_key = l->expert_imbalance;
    n->imb_static = n->imb_noise = 0.0;
    n->imb_cap = 1.0;
    if (n->ep <= 1 || m->n_routed_experts == 0)
        return;
    /* The busiest rank's expected share q of the pairs: its single-copy
     * experts, evened out by the hot experts' copies where the slots allow
     * (a replicated expert's tokens split between its copies). */
    unique = m->n_routed_experts - l->redundant_experts;
    most = (double)((unique + n->ep - 1) / n->ep);
    q = (most > e / ep ? most : e / ep) / e;
    n->imb_static = q * ep;
    /* Its pairs over T tokens: mean T k q and, a token's k distinct
     * experts hypergeometric, variance T k q (1 - q) (E - k) / (E - 1);
     * the busiest of ep ranks sits perf_expected_max_normal(ep) standard
     * deviations up: ratio = q ep + z ep sqrt(q (1 - q) (E - k) / ((E -
     * 1) k T)). */
    n->imb_noise = perf_expected_max_normal(n->ep) * ep *
                   sqrt(q * (1.0 - q) * (e - k) / ((e - 1.0) * k));
    /* No rank takes more than min(k, slots per gpu) pairs of a token. */
    most = n->slots_per_gpu < k ? n->slots_per_gpu : k;
    n->imb_cap = ep * most / k;

    nodes = ceil(ep / gpn);
    local = gpn / ep < 1.0 ? gpn / ep : 1.0;
    inter_bw = c->inter.bytes_per_s * n->nics_per_node / gpn;
    n->a2a_ll_ns_per_byte =
        SIM_NS_PER_S_F * (local / (c->a2a_ll_intra * c->intra.bytes_per_s) +
                          (1.0 - local) / (c->a2a_ll_inter * inter_bw));
    n->a2a_normal_intra_ns_per_byte =
        SIM_NS_PER_S_F / (c->a2a_normal_intra * c->intra.bytes_per_s);
    n->a2a_node_copies = node_copies(m, nodes);
    n->a2a_normal_inter_ns_per_byte = SIM_NS_PER_S_F * n->a2a_node_copies / k /
                                      (c->a2a_normal_inter * inter_bw);
}

int perf_replica_init(struct perf_replica *r, const struct arch_spec *a,
                      const struct gpu_spec *g, const struct perf_layout *l,
                      int weight_dtype, int kv_dtype,
                      double gpu_memory_utilization,
                      const struct perf_gpu_calib *c, char *why, size_t whylen)
{
    struct perf_replica n;
    double util = gpu_memory_utilization, cap;
    int rc;

    if (a == NULL || g == NULL || l == NULL) {
        say(why, whylen, "no model, gpu or layout given");
        return SIM_EINVAL;
    }
    if (perf_weight_bytes_per_param(weight_dtype) == 0.0) {
        say(why, whylen, "unknown weight dtype %d; valid: bf16, fp8, int4",
            weight_dtype);
        return SIM_EINVAL;
    }
    if (perf_kv_bytes_per_elem(kv_dtype) == 0) {
        say(why, whylen,
            "kv cache dtype %s is not supported; valid: bf16, "
            "fp8",
            perf_dtype_name(kv_dtype));
        return SIM_EINVAL;
    }
    if (!(util > 0.0 && util <= 1.0)) {
        say(why, whylen, "gpu_memory_utilization %g out of range (0, 1]", util);
        return SIM_EINVAL;
    }
    memset(&n, 0, sizeof(n));
    if (c != NULL)
        n.calib = *c;
    else
        perf_calib_resolve(NULL, g, &n.calib);
    if (!calib_ok(&n.calib)) {
        say(why, whylen,
            "calibration out of range: efficiencies must be in (0, 1] and "
            "times >= 0");
        return SIM_EINVAL;
    }
    rc = check_layout(a, l, why, whylen);
    if (rc != 0)
        return rc;

    n.arch = a;
    n.gpu = g;
    n.cudagraph_max_tokens = PERF_DEFAULT_MAX_CUDAGRAPH_CAPTURE_SIZE;
    n.custom_allreduce = 1;
    n.weight_dtype = weight_dtype;
    n.kv_dtype = kv_dtype;
    n.gpu_memory_utilization = util;
    cap = plan(&n, l);
    if (cap < PERF_MIN_KV_TOKENS) {
        double w = n.weight_bytes;
        double hold = (double)g->hbm_bytes * n.gpus;
        double reserve = n.reserve_bytes_per_gpu * n.gpus;
        char list[512];

        suggest(list, sizeof(list), a, g, l, weight_dtype, kv_dtype, util);
        if (list[0] == '\0')
            snprintf(list, sizeof(list), "%s",
                     "nothing in the catalog fits with this layout's "
                     "variations; use more pipeline stages or expert "
                     "parallelism across nodes");
        if (n.weight_bytes_per_gpu >
            util * (double)g->hbm_bytes - n.reserve_bytes_per_gpu)
            say(why, whylen,
                "%s in %s needs %.1f GB of weights but %d x "
                "%s hold %.1f GB (%.1f GB usable at gpu_memory_utilization "
                "%g, %.1f GB of it reserved for activations); %s%s",
                a->name, perf_dtype_name(weight_dtype), w / 1e9, n.gpus,
                g->name, hold / 1e9, util * hold / 1e9, util, reserve / 1e9,
                strncmp(list, "nothing", 7) == 0 ? "" : "use ", list);
        else
            say(why, whylen,
                "%s in %s on %d x %s leaves room for %.0f kv "
                "tokens, fewer than %d, after %.1f GB of weights and "
                "%.1f GB reserved for activations (%.1f GB usable at "
                "gpu_memory_utilization %g); %s%s",
                a->name, perf_dtype_name(weight_dtype), n.gpus, g->name,
                cap < 0 ? 0 : cap, PERF_MIN_KV_TOKENS, w / 1e9, reserve / 1e9,
                util * hold / 1e9, util,
                strncmp(list, "nothing", 7) == 0 ? "" : "use ", list);
        return SIM_EINFEASIBLE;
    }
    n.kv_capacity_tokens = (int64_t)cap;
    /* FP8 GEMMs where the GPU has FP8 tensor cores; elsewhere (A100) fp8
     * weights are weight-only, dequantised to bf16, as are int4 (W4A16). */
    n.linear_peak_flops = weight_dtype == CL_DTYPE_FP8 && g->flops_fp8 > 0.0
                              ? g->flops_fp8
                              : g->flops_bf16;
    n.attn_peak_flops = g->flops_bf16;
    n.ns_per_gemm_flop =
        SIM_NS_PER_S_F / (n.calib.gemm_eff_max * n.linear_peak_flops);
    n.ns_per_gemm_byte =
        SIM_NS_PER_S_F / (n.calib.gemm_eff_memory * g->hbm_bytes_per_s);
    n.ns_per_attn_flop =
        SIM_NS_PER_S_F / (n.calib.attn_eff_compute * n.attn_peak_flops);
    n.ns_per_attn_byte =
        SIM_NS_PER_S_F / (n.calib.attn_eff_memory * g->hbm_bytes_per_s);
    n.ns_per_elem_byte =
        SIM_NS_PER_S_F / (n.calib.elem_eff_memory * g->hbm_bytes_per_s);
    ep_constants(&n, l);
    *r = n;
    return 0;
}

/* Adds one GEMM's roofline, times times, to *ns and, when op is not NULL,
 * its FLOPs, bytes and bound to op: m rows of fpr FLOPs each, bytes,
 * kernels. The same formula as perf_op_ns() with eta = perf_gemm_eff(m),
 * rearranged with the reciprocals precomputed by perf_replica_init() so
 * that the simulator's hot path divides nothing: f / (eta * peak) = fpr *
 * (m + M_half) / (eta_max * peak). */
static void add_gemm(const struct perf_replica *r, struct perf_op_cost *op,
                     double *ns, double times, double m, double fpr,
                     double bytes, double kernels, double kernel_ns,
                     double *worst)
{
    double tc, tm, t;

    if (times <= 0.0 || m <= 0.0)
        return;
    tc = fpr * (m + r->calib.gemm_half_tokens) * r->ns_per_gemm_flop;
    tm = bytes * r->ns_per_gemm_byte;
    t = (tc >= tm ? tc : tm) + kernels * kernel_ns;
    *ns += times * t;
    if (op == NULL)
        return;
    op->flops += times * fpr * m;
    op->bytes += times * bytes;
    if (t > *worst) {
        *worst = t;
        op->bound = tc >= tm ? PERF_BOUND_COMPUTE : PERF_BOUND_MEMORY;
    }
}

/* Bandwidth-bound elementwise traffic of bytes in kernels kernels of
 * kernel_ns fixed time each. */
static double elem_ns(const struct perf_replica *r, double bytes,
                      double kernels, double kernel_ns)
{
    return bytes * r->ns_per_elem_byte + kernels * kernel_ns;
}

/* arch_moe_experts_touched() for t tokens, E * (1 - (1 - k/E)^t)
 * (docs/sources.md §4.5), with log(1 - k/E) precomputed and exp() instead of
 * expm1() where 1 - exp(x) loses no precision (exp(x) < 0.61): expm1() is
 * several times slower and this runs every iteration. */
static double experts_touched(const struct perf_replica *r, double t)
{
    double x = t * r->moe_log_keep;

    return r->arch->moe.n_routed_experts *
           (x > -0.5 ? -expm1(x) : 1.0 - exp(x));
}

/* x >= 0 rounded to the nearest ns, halves up (llround() without the libm
 * call). */
static int64_t round_ns(double x)
{
    return (int64_t)(x + 0.5);
}

/* The busiest EP rank's token-expert pairs over the mean for t tokens of
 * one micro-batch (1 without EP): the key's ratio, else the placement's
 * static share plus the normal approximation's excess, within [1, cap]. */
static double imbalance(const struct perf_replica *r, double t)
{
    double x;

    if (r->ep <= 1 || r->moe_layers == 0)
        return 1.0;
    if (r->imbalance_key > 0.0)
        return r->imbalance_key;
    x = r->imb_static + r->imb_noise / sqrt(t);
    if (x > r->imb_cap)
        x = r->imb_cap;
    return x < 1.0 ? 1.0 : x;
}

/* One MoE layer's dispatch and combine for t tokens of one micro-batch in
 * kernel class cls, ns; *bytes receives the busiest GPU's bytes. Each GPU
 * sends the k copies of its t / ep tokens, the busiest receives imb times
 * the mean: fp8 or bf16 dispatch, bf16 combine (docs/step-time.md). */
static double a2a_layer_ns(const struct perf_replica *r, double t, double imb,
                           int cls, double *bytes)
{
    const struct perf_gpu_calib *c = &r->calib;
    double el =
        t / r->ep * r->arch->moe.experts_per_token * r->arch->hidden * imb;
    double by = el * (r->dispatch_bytes_per_elem + ACT_BYTES), rdma, nvl;

    *bytes = by;
    switch (cls) {
    case PERF_A2A_LOW_LATENCY:
        return 2.0 * c->a2a_ll_base_ns + by * r->a2a_ll_ns_per_byte;
    case PERF_A2A_NORMAL_INTRA:
        return 2.0 * c->a2a_normal_base_ns +
               by * r->a2a_normal_intra_ns_per_byte;
    default:
        /* RDMA carries one copy per destination node, NVLink forwards
         * every copy within it; DeepEP pipelines the two. */
        rdma = by * r->a2a_normal_inter_ns_per_byte;
        nvl = by * r->a2a_normal_intra_ns_per_byte;
        return 2.0 * c->a2a_normal_base_ns + (rdma > nvl ? rdma : nvl);
    }
}

/* The iteration: returns total_ns and, when out is not NULL, fills it. One
 * function serves both perf_iteration_ns() (out NULL: times only, no
 * bookkeeping, the simulator's hot path) and perf_iteration_breakdown(),
 * so the two cannot disagree. With two micro-batches every compute class
 * is priced for half the batch and paid twice (fixed times included); the
 * host overhead once; each micro-batch's all-to-all runs beside the other
 * one's MoE-layer compute, exposing max(0, comm - that compute) per layer
 * and micro-batch. In three parts: terms() prices what depends on the
 * batch's token and sequence counts, attention() what depends on its
 * context, total() adds them; a decode step whose decoders are the last
 * step's (perf_iteration_ns_memo()) reuses the first part. */
static int64_t iterate(const struct perf_replica *r, const struct perf_batch *b,
                       struct perf_breakdown *out, int spec,
                       struct perf_step_memo *memo);

/* Speculative drafting of batch b (decoders only) with the MTP module:
 * spec_tokens passes, each of one layer at the model's mean layer time for
 * the decoders (the MTP layer is a layer like the others: MoE in
 * DeepSeek-V3), the module's input projection (2h -> h) and the shared LM
 * head. Adds its FLOPs and bytes to op when not NULL. Returns ns. */
static double mtp_draft_ns(const struct perf_replica *r,
                           const struct perf_batch *b, double kernel_ns,
                           struct perf_op_cost *op)
{
    struct perf_batch d = {0};
    struct perf_breakdown br;
    double body_ns = 0.0, body_f = 0.0, body_b = 0.0;
    double k = r->spec_tokens, m = b->decode_seqs * r->inv_dp;
    double per = 1.0 / r->layers;
    /* The projection, one GEMM of m rows: add_gemm()'s roofline (not
     * add_gemm() itself, whose inlining in the hot path that would
     * change). */
    double proj_f = 2.0 * r->mtp_proj_params * m;
    double proj_b = r->mtp_proj_params * r->weight_bytes_per_param +
                    m * 3.0 * r->arch->hidden * ACT_BYTES;
    double tc = 2.0 * r->mtp_proj_params * (m + r->calib.gemm_half_tokens) *
                r->ns_per_gemm_flop;
    double tm = proj_b * r->ns_per_gemm_byte;
    double proj_ns = (tc >= tm ? tc : tm) + kernel_ns;

    d.decode_seqs = b->decode_seqs;
    d.decode_ctx_tokens = b->decode_ctx_tokens;
    iterate(r, &d, &br, 0, NULL);
    for (int i = 0; i < PERF_OP_DRAFT; i++) {
        if (i == PERF_OP_LM_HEAD)
            continue;
        body_ns += br.op[i].ns;
        body_f += br.op[i].flops;
        body_b += br.op[i].bytes;
    }
    if (op != NULL) {
        op->flops = k * (body_f * per + br.op[PERF_OP_LM_HEAD].flops + proj_f);
        op->bytes = k * (body_b * per + br.op[PERF_OP_LM_HEAD].bytes + proj_b);
        op->bound = br.op[PERF_OP_LM_HEAD].bound;
    }
    return k * (body_ns * per + br.op[PERF_OP_LM_HEAD].ns + proj_ns);
}

/* Table v of *n entries of size bytes, grown when it has fewer than k
 * (to k or twice its size), the new entries zero. Returns it. */
static void *table_fit(void *v, int64_t *n, int64_t k, size_t size)
{
    if (k > *n) {
        int64_t cap = k > 2 * *n ? k : 2 * *n;
        v = xrealloc(v, (size_t)cap, size);
        memset((char *)v + (size_t)*n * size, 0, (size_t)(cap - *n) * size);
        *n = cap;
    }
    return v;
}

/* One TP all-reduce of the activations of tg tokens, ns: vLLM's custom
 * all-reduce where it applies (one kernel of the elementwise fixed time
 * k_elem), else NCCL (docs/step-time.md); *shot its enum net_car_shot.
 * Looked up in memo (r's) when not NULL and tg is a whole number. */
static double allreduce(const struct perf_replica *r,
                        const struct net_topo *topo, double tg, double k_elem,
                        struct perf_step_memo *memo, int *shot)
{
    double n = tg * r->arch->hidden * ACT_BYTES, ns;
    struct perf_ar_memo *m = NULL;
    struct net_car_cost car;

    if (memo != NULL && tg >= 1.0 && tg <= PERF_AR_MEMO_MAX &&
        tg == floor(tg)) {
        int64_t k = (int64_t)tg;

        memo->ar = table_fit(memo->ar, &memo->nar, k, sizeof(*memo->ar));
        m = &memo->ar[k - 1];
        if (m->full && m->k_elem == k_elem) {
            *shot = m->shot;
            return m->ns;
        }
    }
    *shot = NET_CAR_NONE;
    if (r->custom_allreduce && r->tp <= r->gpus_per_node &&
        net_car_cost(&r->calib.intra, r->tp, n, k_elem, &car) == 0) {
        ns = car.total_ns;
        *shot = car.shot;
    } else {
        ns = net_coll_ns(topo, NET_ALLREDUCE, NET_ALGO_AUTO, r->tp, n);
    }
    if (m != NULL) {
        m->k_elem = k_elem;
        m->ns = ns;
        m->shot = *shot;
        m->full = 1;
    }
    return ns;
}

/* terms() of batch b whose values depend only on its token count (with
 * its kind: decode-only or not, and its prefill context) and not on how
 * they split into prompts and decoders: the linear layers but the LM
 * head, the elementwise kernels and the collectives. x holds b's token
 * counts and kernel times (terms()'s first part). */
static void token_terms(const struct perf_replica *r,
                        const struct perf_batch *b, struct perf_breakdown *out,
                        struct perf_step_memo *memo, struct perf_step_terms *x,
                        double k_gemm)
{
    const struct arch_spec *a = r->arch;
    const struct perf_gpu_calib *c = &r->calib;
    struct perf_op_cost *op = out != NULL ? out->op : NULL;
    struct net_topo topo;
    double *ns = x->ns;
    double h = a->hidden;
    double t = x->t, tg = x->tg, k_elem = x->k_elem, worst = 0.0, f, by;

    /* Attention projections, per layer; MLA's kv_b also expands the cached
     * latents of a prefill (FLOPs per row: their share). */
    f = 2.0 * r->attn_proj_params;
    if (b->prefill_ctx_tokens > 0 && r->kv_b_params > 0.0)
        f += 2.0 * r->kv_b_params * x->pf_ctx / t;
    by = r->attn_proj_params * r->weight_bytes_per_param +
         tg * r->attn_proj_act * ACT_BYTES;
    add_gemm(r, op ? &op[PERF_OP_ATTN_PROJ] : NULL, &ns[PERF_OP_ATTN_PROJ],
             r->layers, tg, f, by, r->attn_proj_kernels, k_gemm, &worst);

    /* Dense MLP layers. */
    worst = 0.0;
    add_gemm(r, op ? &op[PERF_OP_MLP] : NULL, &ns[PERF_OP_MLP], r->dense_layers,
             tg, 2.0 * r->mlp_params,
             r->mlp_params * r->weight_bytes_per_param +
                 tg * r->mlp_act * ACT_BYTES,
             KERNELS_MLP, k_gemm, &worst);

    /* MoE layers: router, shared experts, routed experts. With EP the
     * busiest rank sets the time: imb times the mean pairs, over the slots
     * of the touched experts that it holds (docs/step-time.md "Expert
     * parallelism"). */
    if (r->moe_layers > 0) {
        struct perf_op_cost *mo = op ? &op[PERF_OP_MOE] : NULL;
        double k = a->moe.experts_per_token, slots, pairs;

        worst = 0.0;
        x->imb = imbalance(r, t);
        x->pairs = pairs = t * k / r->pairs_div * x->imb; /* busiest GPU */
        x->touched = experts_touched(r, t);
        slots = x->touched * r->slot_ratio; /* slots of touched experts */
        add_gemm(r, mo, &ns[PERF_OP_MOE], r->moe_layers, tg,
                 2.0 * r->router_params,
                 r->router_params * r->weight_bytes_per_param +
                     tg * r->router_act * ACT_BYTES,
                 1.0, k_gemm, &worst);
        if (r->shared_params > 0.0)
            add_gemm(r, mo, &ns[PERF_OP_MOE], r->moe_layers, tg,
                     2.0 * r->shared_params,
                     r->shared_params * r->weight_bytes_per_param +
                         tg * r->shared_act * ACT_BYTES,
                     KERNELS_MLP, k_gemm, &worst);
        /* Rows in one expert's GEMM: the pairs over the slots read, t * k /
         * touched without EP (the same operations, so that the result is
         * bit for bit today's). */
        add_gemm(r, mo, &ns[PERF_OP_MOE], r->moe_layers,
                 pairs * r->pairs_div / slots,
                 2.0 * slots * r->expert_params / r->expert_div,
                 slots * r->expert_params / r->expert_div *
                         r->weight_bytes_per_param +
                     pairs * r->expert_pair_act * ACT_BYTES,
                 KERNELS_MLP, k_gemm, &worst);
        x->e_moe = elem_ns(
            r, (tg * r->elem_moe_token + pairs * r->elem_moe_pair) * ACT_BYTES,
            r->elem_moe_kernels, k_elem);
    }

    /* Elementwise. */
    x->e_common = elem_ns(r, tg * r->elem_common * ACT_BYTES,
                          r->elem_common_kernels, k_elem);
    x->e_dense = elem_ns(r, tg * r->elem_dense * ACT_BYTES,
                         r->elem_dense_kernels, k_elem);
    x->t_once =
        elem_ns(r, tg * r->elem_once * ACT_BYTES, r->elem_once_kernels, k_elem);
    ns[PERF_OP_ELEMENTWISE] = r->layers * x->e_common +
                              r->dense_layers * x->e_dense +
                              r->moe_layers * x->e_moe + x->t_once;

    /* Collectives. */
    topo.intra = &c->intra;
    topo.inter = &c->inter;
    topo.ranks_per_node = r->gpus_per_node;
    topo.nics_per_node = r->nics_per_node;
    if (r->tp > 1) {
        double n = tg * h * ACT_BYTES;
        int count = r->dense_layers * r->allreduces_dense +
                    r->moe_layers * r->allreduces_moe;
        int shot;

        x->ar_ns = allreduce(r, &topo, tg, k_elem, memo, &shot);
        ns[PERF_OP_TP_COMM] = count * x->ar_ns;
        if (out != NULL) {
            out->tp_allreduce = shot;
            out->tp_allreduce_ns = x->ar_ns;
        }
        if (op != NULL)
            op[PERF_OP_TP_COMM].bytes = count * n;
    }
    if (r->ep > 1 && r->moe_layers > 0) {
        /* DeepEP's low-latency kernels for decode-only batches, its normal
         * ones (within a node or across nodes) for batches with a
         * prefill; total() hides it behind the other micro-batch. */
        x->a2a_cls = b->prefill_tokens == 0      ? PERF_A2A_LOW_LATENCY
                     : r->ep <= r->gpus_per_node ? PERF_A2A_NORMAL_INTRA
                                                 : PERF_A2A_NORMAL_INTER;
        x->a2a_mb = a2a_layer_ns(r, t, x->imb, x->a2a_cls, &x->a2a_bytes);
    }
    if (r->pp > 1) {
        double n = tg * h * ACT_BYTES;
        x->send_intra = r->pp_intra_sends > 0 ? net_p2p_ns(&c->intra, n) : 0.0;
        x->send_inter = r->pp_inter_sends > 0 ? net_p2p_ns(&c->inter, n) : 0.0;
        ns[PERF_OP_PP_COMM] = r->pp_intra_sends * x->send_intra +
                              r->pp_inter_sends * x->send_inter;
        if (op != NULL)
            op[PERF_OP_PP_COMM].bytes = (r->pp - 1) * n;
    }
}

/* The classes token_terms() prices, as struct perf_mixed_memo keeps
 * them. */
static const int mixed_ops[PERF_MIXED_OPS] = {
    PERF_OP_ATTN_PROJ,   PERF_OP_MLP,     PERF_OP_MOE,
    PERF_OP_ELEMENTWISE, PERF_OP_TP_COMM, PERF_OP_PP_COMM,
};

/* The entry of memo (memo_own()ed) for batch b's token count, when
 * b has a prompt but no prefill context and no drafts (x->q 1), grown as
 * needed; NULL otherwise, or without a memo, or for a breakdown (out). */
static struct perf_mixed_memo *mixed_entry(const struct perf_batch *b,
                                           const struct perf_breakdown *out,
                                           struct perf_step_memo *memo,
                                           const struct perf_step_terms *x)
{
    int64_t k = b->prefill_tokens + b->decode_seqs;

    if (memo == NULL || out != NULL || b->prefill_tokens <= 0 ||
        b->prefill_ctx_tokens != 0 || x->q != 1.0 || k > PERF_AR_MEMO_MAX)
        return NULL;
    memo->mx = table_fit(memo->mx, &memo->nmx, k, sizeof(*memo->mx));
    return &memo->mx[k - 1];
}

/* What terms() and mixed_quick() both need of batch b's shape, into x:
 * its micro-batches, its tokens of one micro-batch (prefill, decode,
 * query, padded for a CUDA graph), its kernels' fixed times and the
 * busiest data-parallel rank's share of the decoders; *sg the sampled
 * positions of one data-parallel group. Returns the GEMMs' fixed time a
 * kernel. Fills out's graph fields when out is not NULL. */
static inline double shape(const struct perf_replica *r,
                           const struct perf_batch *b, int spec,
                           struct perf_breakdown *out,
                           struct perf_step_terms *x, double *sg)
{
    const struct perf_gpu_calib *c = &r->calib;
    double t, tg, dec, dq, k_gemm;

    /* Two micro-batches need two tokens; the sums below are of one
     * micro-batch (s = 1 / mb, exact in binary). */
    x->mb = r->micro_batches > 1 && b->prefill_tokens + b->decode_seqs >= 2
                ? r->micro_batches
                : 1;
    x->nmb = x->mb;
    x->s = 1.0 / x->nmb;
    x->pf = (double)b->prefill_tokens * x->s;
    x->dec = dec = (double)b->decode_seqs * x->s;
    x->pf_ctx = (double)b->prefill_ctx_tokens * x->s;
    /* Speculative decoding: each decoder verifies its drafted tokens with
     * its own, q query tokens through every layer and the LM head; the
     * attention reads its context once for all q queries. */
    x->q = spec ? 1.0 + r->spec_tokens : 1.0;
    dq = dec * x->q;
    x->t = t = x->pf + dq;
    tg = t * r->inv_dp; /* tokens of one data-parallel attention group */
    *sg = (dq + (double)b->prefill_done_seqs * x->s) * r->inv_dp;
    /* CUDA graphs (docs/step-time.md "Kernels and CUDA graphs"): a batch
     * of at most cudagraph_max_tokens replays a graph, its tokens padded
     * to the capture size for the linear layers; a decode-only batch a
     * full graph, a mixed one piecewise graphs with attention launched
     * eagerly between the pieces. Larger batches run eagerly. */
    {
        double tg_ceil = ceil(tg);
        int graph = r->cudagraph_max_tokens > 0 &&
                    tg_ceil <= (double)r->cudagraph_max_tokens;
        double l_other = graph ? c->launch_graph_ns : c->launch_eager_ns;
        double l_attn = graph && b->prefill_tokens == 0 ? c->launch_graph_ns
                                                        : c->launch_eager_ns;

        k_gemm = c->gemm_kernel_ns + l_other;
        x->k_elem = c->elem_kernel_ns + l_other;
        x->k_attn = c->attn_kernel_ns + l_attn;
        if (graph)
            tg = (double)perf_cudagraph_padded_tokens((int64_t)tg_ceil);
        if (out != NULL) {
            out->graph = !graph                  ? PERF_GRAPH_EAGER
                         : b->prefill_tokens > 0 ? PERF_GRAPH_PIECEWISE
                                                 : PERF_GRAPH_FULL;
            out->padded_tokens = tg;
        }
    }
    x->tg = tg;
    /* Data-parallel attention: the decodes spread over dp ranks, the
     * busiest holding ceil(D / dp) of the D sequences (and their share of
     * the context), the step waiting for it; prefill chunks split evenly
     * (a chunk is one rank's, and chunks are many). */
    x->dshare =
        r->dp > 1 && dec > 0.0 ? ceil(dec * r->inv_dp - 1e-9) / dec : r->inv_dp;

    return k_gemm;
}

/* The LM head's time for sg sampled positions, added to *ns (op: its
 * FLOPs, bytes and bound, when not NULL). */
static inline void lm_head(const struct perf_replica *r,
                           struct perf_op_cost *op, double *ns, double sg,
                           double k_gemm)
{
    double worst = 0.0;

    if (sg > 0.0)
        add_gemm(r, op, ns, 1.0, sg, 2.0 * r->lm_head_params,
                 r->lm_head_params * r->weight_bytes_per_param +
                     sg * r->lm_head_act * ACT_BYTES,
                 1.0, k_gemm, &worst);
}

/* The host's time for batch b: the iteration's and each sequence's. */
static inline double host_ns(const struct perf_replica *r,
                             const struct perf_batch *b)
{
    const struct perf_gpu_calib *c = &r->calib;
    double nseqs =
        (double)b->decode_seqs +
        (double)(b->prefill_seqs > 0 ? b->prefill_seqs
                                     : (b->prefill_tokens > 0 ? 1 : 0));

    /* Every data-parallel rank schedules its own sequences, in parallel:
     * the busiest's share of the per-sequence time. */
    if (r->dp > 1)
        nseqs = ceil(nseqs * r->inv_dp - 1e-9);
    return c->iteration_overhead_ns + c->seq_overhead_ns * nseqs;
}

/* Fills x with the terms of batch b that do not depend on its context
 * (every class but attention, the exposed all-to-all and the draft, for
 * one micro-batch) and, when out is not NULL, those classes' FLOPs, bytes
 * and bounds. b holds at least one token; memo (r's), when not NULL,
 * keeps the all-reduce. */
static void terms(const struct perf_replica *r, const struct perf_batch *b,
                  struct perf_breakdown *out, int spec,
                  struct perf_step_memo *memo, struct perf_step_terms *x)
{
    struct perf_op_cost *op = out != NULL ? out->op : NULL;
    struct perf_mixed_memo *mx;
    double *ns = x->ns;
    double sg, k_gemm;

#ifdef __GNUC__
    /* The entry of this token count, if any: the table outgrows the
     * cache, and the work below hides most of the miss (the fleet-day's
     * mixed steps waited on it for 2 % of the run). */
    if (memo != NULL && b->prefill_tokens + b->decode_seqs <= memo->nmx)
        __builtin_prefetch(&memo->mx[b->prefill_tokens + b->decode_seqs - 1]);
#endif
    memset(ns, 0, sizeof(x->ns));
    x->e_moe = x->ar_ns = x->a2a_mb = x->a2a_bytes = 0.0;
    x->send_intra = x->send_inter = 0.0;
    x->imb = 1.0;
    x->pairs = x->touched = 0.0;
    x->a2a_cls = PERF_A2A_NONE;
    k_gemm = shape(r, b, spec, out, x, &sg);

    mx = mixed_entry(b, out, memo, x);
    if (mx != NULL && mx->full) {
        /* Its token count's terms (what total() reads of them). */
        for (int i = 0; i < PERF_MIXED_OPS; i++)
            ns[mixed_ops[i]] = mx->ns[i];
        x->e_common = mx->e_common;
        x->e_moe = mx->e_moe;
        x->ar_ns = mx->ar_ns;
        x->a2a_mb = mx->a2a_mb;
    } else {
        token_terms(r, b, out, memo, x, k_gemm);
        if (mx != NULL) {
            for (int i = 0; i < PERF_MIXED_OPS; i++)
                mx->ns[i] = ns[mixed_ops[i]];
            mx->e_common = x->e_common;
            mx->e_moe = x->e_moe;
            mx->ar_ns = x->ar_ns;
            mx->a2a_mb = x->a2a_mb;
            /* What mixed_quick() adds to the split's own terms. */
            mx->pre = 0.0;
            for (int i = 0; i < PERF_MIXED_OPS; i++)
                mx->pre += mx->ns[i];
            if (r->ep > 1 && r->moe_layers > 0)
                mx->pre += r->moe_layers * mx->a2a_mb;
            mx->full = 1;
        }
    }

    /* LM head, for the sampled positions only; host. */
    lm_head(r, op ? &op[PERF_OP_LM_HEAD] : NULL, &ns[PERF_OP_LM_HEAD], sg,
            k_gemm);
    ns[PERF_OP_OVERHEAD] = host_ns(r, b);
}

/* Attention of batch b over its context, per micro-batch, ns; fills op
 * when not NULL. DSA reads at most topk keys a query. */
static double attention(const struct perf_replica *r,
                        const struct perf_batch *b,
                        const struct perf_step_terms *x,
                        struct perf_op_cost *op)
{
    double pairs_pf = b->prefill_attn_pairs * x->s;
    double dec_ctx = (double)b->decode_ctx_tokens * x->s;
    double dec_main = dec_ctx, pf_main = pairs_pf, f, by, tc, tm;

    if (r->attn_topk > 0) {
        double topk = r->attn_topk;
        if (b->decode_seqs > 0 && dec_main > topk * x->dec)
            dec_main = topk * x->dec;
        if (pf_main > topk * x->pf)
            pf_main = topk * x->pf;
    }
    f = (r->attn_flops_pair_prefill * pf_main * r->inv_dp +
         r->attn_flops_pair_decode * dec_main * x->dshare * x->q +
         r->attn_flops_pair_indexer *
             (pairs_pf * r->inv_dp + dec_ctx * x->dshare * x->q)) /
        r->tp;
    by = r->kv_main_bytes *
             (dec_main * x->dshare + (x->pf_ctx + x->t) * r->inv_dp) +
         r->kv_index_bytes *
             (dec_ctx * x->dshare + (x->pf_ctx + x->t) * r->inv_dp) +
         x->tg * r->attn_qo_act * ACT_BYTES;
    tc = f * r->ns_per_attn_flop;
    tm = by * r->ns_per_attn_byte;
    if (op != NULL) {
        op->flops = r->layers * f;
        op->bytes = r->layers * by;
        op->bound = tc >= tm ? PERF_BOUND_COMPUTE : PERF_BOUND_MEMORY;
    }
    return r->layers * ((tc >= tm ? tc : tm) + r->attn_kernels * x->k_attn);
}

/* The device's part of a step whose classes take ns: their sum in class
 * order, rounded, at least 1 ns. */
static inline int64_t device_ns(const double *ns)
{
    double sum = 0.0;

    for (int i = 0; i < PERF_OP_OVERHEAD; i++)
        sum += ns[i];
    return sum < 1.0 ? 1 : round_ns(sum);
}

/* The step's total from x and its attention time attn_ns; fills the rest
 * of out when not NULL. */
static int64_t total(const struct perf_replica *r, const struct perf_batch *b,
                     struct perf_breakdown *out, int spec,
                     const struct perf_step_terms *x, double attn_ns)
{
    const struct perf_gpu_calib *c = &r->calib;
    struct perf_op_cost *op = out != NULL ? out->op : NULL;
    double ns[PERF_OP_COUNT];
    double nmb = x->nmb, a2a_ns = 0.0, a2a_hidden = 0.0, sum, per;
    double t_common, t_dense, t_moe;
    int64_t overhead, tot;

    memcpy(ns, x->ns, sizeof(ns));
    ns[PERF_OP_ATTENTION] = attn_ns;
    if (r->ep > 1 && r->moe_layers > 0) {
        /* One micro-batch's all-to-all overlaps the other's compute of a
         * MoE layer: attention, MoE, elementwise and TP. */
        a2a_ns = x->a2a_mb;
        if (x->mb > 1) {
            double other =
                (ns[PERF_OP_ATTN_PROJ] + ns[PERF_OP_ATTENTION]) / r->layers +
                ns[PERF_OP_MOE] / r->moe_layers + x->e_common + x->e_moe +
                r->allreduces_moe * x->ar_ns;
            a2a_hidden = x->a2a_mb < other ? x->a2a_mb : other;
            a2a_ns = nmb * (x->a2a_mb - a2a_hidden);
        }
        ns[PERF_OP_EP_COMM] = r->moe_layers * a2a_ns;
        if (op != NULL)
            op[PERF_OP_EP_COMM].bytes = r->moe_layers * nmb * x->a2a_bytes;
    }
    /* Two micro-batches pay every class but the exposed all-to-all and the
     * host twice (pp is 1 then). */
    if (x->mb > 1) {
        for (int i = 0; i < PERF_OP_OVERHEAD; i++) {
            if (i == PERF_OP_EP_COMM)
                continue;
            ns[i] *= nmb;
            if (op != NULL) {
                op[i].flops *= nmb;
                op[i].bytes *= nmb;
            }
        }
    }

    /* Speculative drafting, after the target's pass (pp: on the last
     * stage). */
    if (spec && r->spec_method == PERF_SPEC_MTP && b->decode_seqs > 0)
        ns[PERF_OP_DRAFT] =
            mtp_draft_ns(r, b, c->gemm_kernel_ns + c->launch_graph_ns,
                         op != NULL ? &op[PERF_OP_DRAFT] : NULL);

    overhead = round_ns(ns[PERF_OP_OVERHEAD]);
    tot = device_ns(ns) + overhead;
    if (out == NULL)
        return tot;

    for (int i = 0; i < PERF_OP_COUNT; i++)
        op[i].ns = ns[i];
    op[PERF_OP_ELEMENTWISE].bytes =
        nmb * ACT_BYTES *
        (r->layers * x->tg * r->elem_common +
         r->dense_layers * x->tg * r->elem_dense +
         r->moe_layers *
             (x->tg * r->elem_moe_token + x->pairs * r->elem_moe_pair) +
         x->tg * r->elem_once);
    op[PERF_OP_ELEMENTWISE].bound = PERF_BOUND_MEMORY;
    for (int i = PERF_OP_TP_COMM; i <= PERF_OP_PP_COMM; i++)
        if (ns[i] > 0.0)
            op[i].bound = PERF_BOUND_COMM;
    op[PERF_OP_OVERHEAD].bound = PERF_BOUND_HOST;
    out->tokens = x->t * nmb;
    out->spec_tokens_per_step =
        spec && b->decode_seqs > 0
            ? perf_spec_tokens_per_step(r->spec_tokens, r->spec_acceptance)
            : 1.0;
    out->experts_touched = x->touched;
    out->comm_ns =
        ns[PERF_OP_TP_COMM] + ns[PERF_OP_EP_COMM] + ns[PERF_OP_PP_COMM];
    out->a2a_class = x->a2a_cls;
    out->a2a_total_ns = r->moe_layers * nmb * x->a2a_mb;
    out->a2a_hidden_ns = r->moe_layers * nmb * a2a_hidden;
    out->a2a_exposed_ns = ns[PERF_OP_EP_COMM];
    out->expert_imbalance = x->imb;
    out->micro_batches = x->mb;
    out->overhead_ns = overhead;
    out->total_ns = tot;

    /* The busiest stage: its layers, the LM head and embedding, one send
     * (one micro-batch: pp > 1 runs no two-batch overlap). */
    if (r->pp == 1) {
        out->stage_ns = tot;
        return tot;
    }
    per = r->layers > 0 ? 1.0 / r->layers : 0.0;
    t_common = (ns[PERF_OP_ATTN_PROJ] + ns[PERF_OP_ATTENTION]) * per +
               x->e_common + (r->tp > 1 ? x->ar_ns : 0.0);
    t_dense = r->dense_layers > 0
                  ? ns[PERF_OP_MLP] / r->dense_layers + x->e_dense +
                        (r->allreduces_dense > 1 ? x->ar_ns : 0.0)
                  : 0.0;
    t_moe = r->moe_layers > 0
                ? ns[PERF_OP_MOE] / r->moe_layers + x->e_moe +
                      (r->allreduces_moe > 1 ? x->ar_ns : 0.0) + a2a_ns
                : 0.0;
    sum = r->stage_layers * t_common + r->stage_dense_layers * t_dense +
          r->stage_moe_layers * t_moe + ns[PERF_OP_LM_HEAD] +
          ns[PERF_OP_DRAFT] + x->t_once +
          (x->send_inter > x->send_intra ? x->send_inter : x->send_intra);
    out->stage_ns = (sum < 1.0 ? 1 : round_ns(sum)) + overhead;
    return tot;
}

/* Makes memo entry x of spec a fast one when it can be: one micro-batch
 * and no drafting, so that total() adds the entry's class times and the
 * attention's in the same order whatever the context. Keeps the first
 * class, the others but the attention in order less those that are zero
 * (adding +0 changes no sum of non-negative terms), and the parts of
 * attention() that do not depend on the context. */
static void fast_init(const struct perf_replica *r, int spec,
                      struct perf_step_terms *x)
{
    x->fast = x->mb == 1 && !(spec && r->spec_method == PERF_SPEC_MTP);
    if (!x->fast)
        return;
    x->first = x->ns[0];
    x->nafter = 0;
    for (int i = 1; i < PERF_OP_OVERHEAD; i++) {
        double v = x->ns[i];
        if (i == PERF_OP_ATTENTION)
            continue;
        if (i == PERF_OP_EP_COMM && r->ep > 1 && r->moe_layers > 0)
            v = r->moe_layers * x->a2a_mb;
        if (v != 0.0)
            x->after[x->nafter++] = v;
    }
    x->overhead = round_ns(x->ns[PERF_OP_OVERHEAD]);
    x->cap = r->attn_topk > 0 ? r->attn_topk * x->dec : 0.0;
    x->by_ctx = (x->pf_ctx + x->t) * r->inv_dp;
    x->by_act = x->tg * r->attn_qo_act * ACT_BYTES;
    x->kernels = r->attn_kernels * x->k_attn;
    /* decode_ns() rearranged: its sum, with the context-free parts added
     * first, and its two sides' coefficients multiplied out. */
    x->base = x->first + r->layers * x->kernels;
    for (int i = 0; i < x->nafter; i++)
        x->base += x->after[i];
    x->k_fm = r->attn_flops_pair_decode * x->dshare * x->q / r->tp *
              r->ns_per_attn_flop;
    x->k_fc = r->attn_flops_pair_indexer * x->dshare * x->q / r->tp *
              r->ns_per_attn_flop;
    x->k_bm = r->kv_main_bytes * x->dshare * r->ns_per_attn_byte;
    x->k_bc = r->kv_index_bytes * x->dshare * r->ns_per_attn_byte;
    x->k_b0 = (r->kv_main_bytes * x->by_ctx + r->kv_index_bytes * x->by_ctx +
               x->by_act) *
              r->ns_per_attn_byte;
}

/* iterate()'s value for the decoders of fast memo entry x with dec_ctx
 * tokens of context, bit for bit: attention() with the prefill's terms
 * (exact zeros) left out, then device_ns() and the host's part. */
static inline int64_t decode_ns(const struct perf_replica *r,
                                const struct perf_step_terms *x, double dec_ctx)
{
    double dec_main = dec_ctx, f, by, tc, tm, sum;

    if (x->cap > 0.0 && dec_main > x->cap)
        dec_main = x->cap;
    f = (r->attn_flops_pair_decode * dec_main * x->dshare * x->q +
         r->attn_flops_pair_indexer * (dec_ctx * x->dshare * x->q)) /
        r->tp;
    by = r->kv_main_bytes * (dec_main * x->dshare + x->by_ctx) +
         r->kv_index_bytes * (dec_ctx * x->dshare + x->by_ctx) + x->by_act;
    tc = f * r->ns_per_attn_flop;
    tm = by * r->ns_per_attn_byte;
    sum = x->first + r->layers * ((tc >= tm ? tc : tm) + x->kernels);
    for (int i = 0; i < x->nafter; i++)
        sum += x->after[i];
    return (sum < 1.0 ? 1 : round_ns(sum)) + x->overhead;
}

/* sum, a rearranged decode_ns() sum within 1e-14 of it, rounded as
 * decode_ns() rounds its own, plus the host's part; -1 where that is not
 * certain: within 1e-12 of sum (plus 1e-6 ns) of a rounding boundary, or
 * out of the range where the bound holds. The nearest integer by adding
 * and taking away 1.5 * 2^52 (exact below 2^51), and how far it was: no
 * conversion to an integer and back on the way to the test. */
static inline int64_t quick_round(const struct perf_step_terms *x, double sum)
{
    double near = (sum + 0x1.8p52) - 0x1.8p52, off = fabs(sum - near);

    if (!(sum >= 2.0 && sum < 1e15) || off > 0.5 - (sum * 1e-12 + 1e-6))
        return -1;
    return (int64_t)near + x->overhead;
}

/* decode_ns()'s value, the same nanosecond, from the same sum rearranged:
 * no division and no chain of additions class by class (a window prices
 * its steps with it). Both add and multiply non-negative terms only,
 * about 40 roundings each, so they differ by less than 1e-14 of the sum
 * (4.4e-16 at most over the bundled scenarios); where the rearranged sum
 * is within 1e-12 of itself (plus 1e-6 ns) of a rounding boundary, or
 * out of the range where that holds, -1: decode_ns() itself decides (245
 * of the 134 million steps of the bundled scenarios and four hours of the
 * fleet-day, none of the others different). */
static inline int64_t decode_ns_quick(const struct perf_replica *r,
                                      const struct perf_step_terms *x,
                                      double dec_ctx)
{
    double main = x->cap > 0.0 && dec_ctx > x->cap ? x->cap : dec_ctx;
    double tc = main * x->k_fm + dec_ctx * x->k_fc;
    double tm = main * x->k_bm + dec_ctx * x->k_bc + x->k_b0;

    return quick_round(x, x->base + r->layers * (tc >= tm ? tc : tm));
}

/* decode_ns_quick() of the steps m = 0 .. k - 1 of decoders b (x its
 * fast memo entry), into ns[m], when there is no cap on the context: step
 * m has b's context plus m * seqs, each roofline side is affine in the
 * context, so each side's whole sum is affine in m, its two coefficients
 * multiplied out once; a step is then two multiply-adds, the larger, and
 * the rounding test. A handful of roundings more than decode_ns_quick()'s,
 * still within 1e-14 of the sum: the same guard holds, and decode_ns()
 * decides where it fails. The guard's range and tolerance are taken once
 * for all the steps: each side's sum over them lies between its ends, and
 * a step's sum, the larger side, between the larger of the sides' least
 * ends and the largest end, whose tolerance is the widest. Returns 1, or
 * 0 having priced nothing: a cap, or sums out of that range. */
static int decode_steps_affine(const struct perf_replica *r,
                               const struct perf_step_terms *x,
                               const struct perf_batch *b, int64_t k,
                               int64_t *ns, int64_t *sum_ns)
{
    double c0 = (double)b->decode_ctx_tokens, s = (double)b->decode_seqs;
    double kf = x->k_fm + x->k_fc, kb = x->k_bm + x->k_bc, l = r->layers;
    double a_c = x->base + l * (c0 * kf), b_c = l * (s * kf);
    double a_m = x->base + l * (c0 * kb + x->k_b0), b_m = l * (s * kb);
    double c_1 = a_c + (double)(k - 1) * b_c, m_1 = a_m + (double)(k - 1) * b_m;
    double lo_c = a_c < c_1 ? a_c : c_1, lo_m = a_m < m_1 ? a_m : m_1;
    double lo = lo_c > lo_m ? lo_c : lo_m, hi = a_c, lim, dm;
    int64_t ov, all;

    hi = c_1 > hi ? c_1 : hi;
    hi = a_m > hi ? a_m : hi;
    hi = m_1 > hi ? m_1 : hi;
    if (x->cap > 0.0 || k <= 0 || !(lo >= 2.0 && hi < 1e15))
        return 0;
    lim = 0.5 - (hi * 1e-12 + 1e-6);
    /* m as a double counted up (exact below 2^53, no conversion a step);
     * the larger side as `>` writes it, one instruction (equal sides are
     * the same value); the overhead in a register (ns may alias x). */
    ov = x->overhead;
    all = 0;
    dm = 0.0;
    for (int64_t m = 0; m < k; m++, dm += 1.0) {
        double sc = a_c + dm * b_c, sm = a_m + dm * b_m;
        double sum = sc > sm ? sc : sm;
        double near = (sum + 0x1.8p52) - 0x1.8p52;
        int64_t v = fabs(sum - near) <= lim
                        ? (int64_t)near + ov
                        : decode_ns(r, x,
                                    (double)(b->decode_ctx_tokens +
                                             m * b->decode_seqs));
        v = v < 1 ? 1 : v; /* a select, as perf_decode_steps() says */
        ns[m] = v;
        all += v;
    }
    *sum_ns = all; /* in a register until now: ns may alias sum_ns */
    return 1;
}

/* Whether b has decoders only. */
static int decode_only(const struct perf_batch *b)
{
    return b->prefill_tokens == 0 && b->prefill_ctx_tokens == 0 &&
           b->prefill_attn_pairs == 0.0 && b->prefill_seqs == 0 &&
           b->prefill_done_seqs == 0 && b->decode_seqs > 0;
}

void perf_step_memo_fini(struct perf_step_memo *m)
{
    free(m->x);
    free(m->ar);
    free(m->mx);
    memset(m, 0, sizeof(*m));
}

/* Empties m unless it is r's with spec. */
static void memo_own(struct perf_step_memo *m, const struct perf_replica *r,
                     int spec)
{
    if (m->r != r || m->spec != spec) {
        perf_step_memo_fini(m);
        m->r = r;
        m->spec = spec;
    }
}

/* The entry of memo m (memo_own()ed) for seqs decoders (mb 0 if not yet
 * filled), grown as needed. */
static struct perf_step_terms *memo_entry(struct perf_step_memo *m,
                                          int64_t seqs)
{
    m->x = table_fit(m->x, &m->n, seqs, sizeof(*m->x));
    return &m->x[seqs - 1];
}

/* The memo entry (memo_own()ed) of decoders-only batch b, filled on
 * first use. */
static struct perf_step_terms *decode_entry(const struct perf_replica *r,
                                            const struct perf_batch *b,
                                            int spec,
                                            struct perf_step_memo *memo)
{
    struct perf_step_terms *x = memo_entry(memo, b->decode_seqs);

    if (x->mb == 0) {
        terms(r, b, NULL, spec, memo, x);
        fast_init(r, spec, x);
    }
    return x;
}

/* iterate()'s value for batch b with new prompts (no prefill context,
 * no drafts, one micro-batch) whose token count's entry in memo is full,
 * without terms() and total(): the entry's classes, summed once when it
 * was filled, then the LM head, the attention and the host, which depend
 * on how the tokens split. The same class values added in another order
 * (a dozen non-negative terms: within 1e-14 of the sum), so
 * quick_round() says whether it is certainly the same nanosecond. -1
 * when it does not apply or is not certain: iterate() prices b whole. */
static int64_t mixed_quick(const struct perf_replica *r,
                           const struct perf_batch *b, int spec,
                           const struct perf_step_memo *memo)
{
    int64_t k = b->prefill_tokens + b->decode_seqs;
    const struct perf_mixed_memo *mx;
    struct perf_step_terms x;
    double sg, k_gemm, lm = 0.0, sum;

    if (b->prefill_tokens <= 0 || b->prefill_ctx_tokens != 0 || k > memo->nmx ||
        (spec && (r->spec_tokens > 0 || r->spec_method == PERF_SPEC_MTP)) ||
        (r->micro_batches > 1 && k >= 2))
        return -1;
    mx = &memo->mx[k - 1];
    if (!mx->full)
        return -1;
    k_gemm = shape(r, b, spec, NULL, &x, &sg);
    lm_head(r, NULL, &lm, sg, k_gemm);
    sum = mx->pre + lm + attention(r, b, &x, NULL);
    x.overhead = round_ns(host_ns(r, b));
    return quick_round(&x, sum);
}

static int64_t iterate(const struct perf_replica *r, const struct perf_batch *b,
                       struct perf_breakdown *out, int spec,
                       struct perf_step_memo *memo)
{
    struct perf_step_terms own, *x = &own;

    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (b->prefill_tokens + b->decode_seqs <= 0)
        return 0;
    if (memo != NULL)
        memo_own(memo, r, spec);
    if (memo != NULL && decode_only(b)) {
        x = decode_entry(r, b, spec, memo);
        if (x->fast && out == NULL) {
            int64_t ns = decode_ns_quick(r, x, (double)b->decode_ctx_tokens);
            return ns >= 0 ? ns : decode_ns(r, x, (double)b->decode_ctx_tokens);
        }
    } else {
        if (memo != NULL && out == NULL) {
            int64_t ns = mixed_quick(r, b, spec, memo);
            if (ns >= 0)
                return ns;
        }
        terms(r, b, out, spec, memo, x);
    }
    return total(
        r, b, out, spec, x,
        attention(r, b, x, out != NULL ? &out->op[PERF_OP_ATTENTION] : NULL));
}

void perf_iteration_breakdown(const struct perf_replica *r,
                              const struct perf_batch *b,
                              struct perf_breakdown *out)
{
    iterate(r, b, out, 1, NULL);
}

int64_t perf_iteration_ns(const struct perf_replica *r,
                          const struct perf_batch *b)
{
    return iterate(r, b, NULL, 1, NULL);
}

int64_t perf_iteration_ns_memo(const struct perf_replica *r,
                               const struct perf_batch *b,
                               struct perf_step_memo *memo)
{
    return iterate(r, b, NULL, 1, memo);
}

/* ns[0 .. k - 1] at least 1 each; returns their sum. */
static int64_t at_least_1ns(int64_t *ns, int64_t k)
{
    int64_t sum_ns = 0;

    for (int64_t m = 0; m < k; m++) {
        ns[m] = ns[m] < 1 ? 1 : ns[m];
        sum_ns += ns[m];
    }
    return sum_ns;
}

int64_t perf_decode_steps(const struct perf_replica *r,
                          const struct perf_batch *b, int64_t k,
                          struct perf_step_memo *memo, int64_t *ns)
{
    struct perf_batch d = *b;
    const struct perf_step_terms *x = NULL;
    int64_t m = 0, sum_ns = 0;

    if (k <= 0)
        return 0;
    if (memo != NULL && decode_only(b)) {
        memo_own(memo, r, 1);
        x = decode_entry(r, b, 1, memo);
        /* The common case clamps and sums as it prices. */
        if (x->fast && decode_steps_affine(r, x, b, k, ns, &sum_ns))
            return sum_ns;
        ns[m++] = iterate(r, b, NULL, 1, memo);
    }
    if (x != NULL && x->fast) {
        for (; m < k; m++) {
            double ctx = (double)(b->decode_ctx_tokens + m * b->decode_seqs);
            ns[m] = decode_ns_quick(r, x, ctx);
            if (ns[m] < 0)
                ns[m] = decode_ns(r, x, ctx);
        }
        return at_least_1ns(ns, k);
    }
    /* iterate() itself, so that its parts stay inlined into it (a second
     * caller of total() made the compiler call it: 4.8 % more instructions
     * for every step). */
    for (; m < k; m++) {
        d.decode_ctx_tokens = b->decode_ctx_tokens + m * b->decode_seqs;
        ns[m] = iterate(r, &d, NULL, 1, memo);
    }
    return at_least_1ns(ns, k);
}

int64_t perf_kv_capacity_tokens(const struct perf_replica *r)
{
    return r->kv_capacity_tokens;
}

double perf_weight_bytes_per_gpu(const struct perf_replica *r)
{
    return r->weight_bytes_per_gpu;
}

/* vLLM's "GPU >= 70 GiB and not A100" (vllm @ 99d7eb5d get_batch_defaults
 * via docs/sources.md §5.1: "Setting large max_num_batched_tokens for A100
 * reduces throughput"). */
static int vllm_large_gpu(const struct gpu_spec *g)
{
    return (double)g->hbm_bytes >= 70.0 * 1073741824.0 &&
           strcmp(g->name, "a100") != 0;
}

int64_t perf_default_max_num_batched_tokens(const struct gpu_spec *g)
{
    return vllm_large_gpu(g) ? 8192 : 2048;
}

int64_t perf_default_cudagraph_capture_size(int64_t max_num_seqs)
{
    int64_t n = 2 * max_num_seqs;

    return n < PERF_DEFAULT_MAX_CUDAGRAPH_CAPTURE_SIZE
               ? n
               : PERF_DEFAULT_MAX_CUDAGRAPH_CAPTURE_SIZE;
}

int64_t perf_cudagraph_padded_tokens(int64_t tokens)
{
    if (tokens <= 2)
        return tokens < 1 ? 1 : tokens;
    if (tokens <= 4)
        return 4;
    if (tokens <= 256)
        return (tokens + 7) / 8 * 8;
    return (tokens + 15) / 16 * 16;
}

int64_t perf_default_max_num_seqs(const struct gpu_spec *g)
{
    return vllm_large_gpu(g) ? 1024 : 256;
}

int perf_saturate(const struct perf_replica *r, int64_t context_tokens,
                  int64_t max_num_seqs, struct perf_saturation *out)
{
    struct perf_batch b;
    int64_t d, mb;

    memset(out, 0, sizeof(*out));
    if (r == NULL || context_tokens <= 0 || max_num_seqs <= 0)
        return SIM_EINVAL;
    out->context_tokens = context_tokens;
    out->max_num_seqs = max_num_seqs;
    out->kv_limit_seqs = r->kv_capacity_tokens / context_tokens;
    if (out->kv_limit_seqs < 1) {
        memset(out, 0, sizeof(*out));
        return SIM_EINFEASIBLE;
    }
    d = max_num_seqs < out->kv_limit_seqs ? max_num_seqs : out->kv_limit_seqs;
    out->limited_by_kv = out->kv_limit_seqs < max_num_seqs;
    out->decode_seqs = d;
    mb = (d + r->pp - 1) / r->pp;
    out->micro_batch_seqs = mb;
    memset(&b, 0, sizeof(b));
    b.decode_seqs = mb;
    b.decode_ctx_tokens = mb * context_tokens;
    perf_iteration_breakdown(r, &b, &out->step);
    out->step_ns = out->step.total_ns;
    out->cycle_ns = out->step.total_ns;
    if (r->pp > 1 && r->pp * out->step.stage_ns > out->cycle_ns)
        out->cycle_ns = r->pp * out->step.stage_ns;
    out->tokens_per_s = (double)d * out->step.spec_tokens_per_step *
                        SIM_NS_PER_S_F / (double)out->cycle_ns;
    return 0;
}
