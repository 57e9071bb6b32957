/*
 * The roofline step-time model. Every term and its source:
 *
 * - Linear FLOPs: 2 * N_linear per token (FACTS.md §4.4), N_linear = active
 *   parameters less an untied embedding table, split evenly over tp.
 * - Attention FLOPs per query-key pair (FACTS.md §4.4): GQA 4 * n_h * d per
 *   layer; MLA naive form for prefill, absorbed (FlashMLA) form for decode.
 *   Run at the bf16 peak whatever the KV dtype (FlashAttention/FlashMLA
 *   compute in bf16 after dequantising an fp8 cache).
 * - Weight bytes: read once per iteration, all of them except the untied
 *   embedding table (a lookup reads a few rows) and the routed experts no
 *   token chose: E * (1 - (1 - k/E)^T) per MoE layer (FACTS.md §4.5).
 * - KV bytes: every cached token a query attends to is read once, every new
 *   token is written once (FACTS.md §4.3 sizes).
 * - TP all-reduce: two per layer (Megatron accounting, FACTS.md §3.2) of
 *   T * hidden bf16 activations, ring cost 2(p-1) alpha + 2(p-1)/p n / B
 *   (Thakur et al. via FACTS.md §3.2) with B the per-direction NVLink rate
 *   through NVSwitch (FACTS.md §2.1) and alpha NCCL's per-step NVLink
 *   latency (FACTS.md §2.2).
 *
 * Rejected alternatives: a per-layer or per-sequence sum would cost O(batch)
 * per iteration, and the aggregate shape in struct perf_batch is exact for
 * every term above, since each is linear in tokens, pairs or context.
 * Not modelled yet, TODO(#3): activation traffic, norm and elementwise
 * kernels, sampling and logits only at sampled positions, per-collective
 * NCCL base latency, NVLink efficiency below line rate, expert parallelism,
 * pipeline parallelism, tp across nodes, and compute/communication overlap.
 */
#include "models/perf/roofline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/errors.h"
#include "sim/xalloc.h"

/* 1e9 ns per second. */
#define NS_PER_S 1e9

/* Bytes per element of activations exchanged by the all-reduces: bf16
 * (FACTS.md §3.2 counts tokens * h * bytes). */
#define ACT_BYTES 2

double perf_weight_bytes_per_param(int dtype)
{
    switch (dtype) {
    case CL_DTYPE_BF16:
        return 2.0;
    case CL_DTYPE_FP8:
        /* FACTS.md §4.2: one FP32 scale per 128x128 block. */
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

static const char *dtype_name(int dtype)
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

/* KV bytes per token held by one GPU (FACTS.md §4.3): GQA heads are split
 * over tp, each rank keeping at least one (replicated) head; the MLA latent
 * is replicated on every rank. */
static double kv_per_gpu(const struct arch_spec *a, int tp, int kv_dtype)
{
    double full =
        (double)arch_kv_bytes_per_token(a, perf_kv_bytes_per_elem(kv_dtype));

    if (a->attn == ARCH_ATTN_MLA)
        return full;
    if (tp >= a->kv_heads)
        return full / a->kv_heads;
    return full / tp;
}

static double weight_bytes(const struct arch_spec *a, int dtype)
{
    return (double)arch_params_total(a) * perf_weight_bytes_per_param(dtype);
}

/* KV tokens a configuration holds; negative when even the weights and
 * the reserve do not fit. */
static double capacity_tokens(const struct arch_spec *a,
                              const struct gpu_spec *g, int tp,
                              int weight_dtype, int kv_dtype, double util)
{
    double free_bytes = util * (double)g->hbm_bytes -
                        weight_bytes(a, weight_dtype) / tp -
                        (double)PERF_RESERVE_BYTES_PER_GPU;

    return floor(free_bytes / kv_per_gpu(a, tp, kv_dtype));
}

static int fits(const struct arch_spec *a, const struct gpu_spec *g, int tp,
                int weight_dtype, int kv_dtype, double util)
{
    return tp_divides(a, tp) &&
           capacity_tokens(a, g, tp, weight_dtype, kv_dtype, util) >=
               PERF_MIN_KV_TOKENS;
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

/* Writes what would make an infeasible configuration fit into buf: other
 * weight dtypes at this tp, the smallest allowed larger tp, larger catalog
 * GPUs at this tp. */
static void suggest(char *buf, size_t len, const struct arch_spec *a,
                    const struct gpu_spec *g, int tp, int gpus_per_node,
                    int weight_dtype, int kv_dtype, double util)
{
    static const int dtypes[] = {CL_DTYPE_BF16, CL_DTYPE_FP8, CL_DTYPE_INT4};
    struct phrases all = {.n = 0}, names = {.n = 0};
    char joined[256], item[300];
    size_t i;
    int t;

    for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
        if (dtypes[i] != weight_dtype &&
            fits(a, g, tp, dtypes[i], kv_dtype, util))
            phrases_add(&names, dtype_name(dtypes[i]));
    }
    if (names.n > 0) {
        phrases_join(&names, joined, sizeof(joined));
        snprintf(item, sizeof(item), "%s weights", joined);
        phrases_add(&all, item);
    }
    if (kv_dtype == CL_DTYPE_BF16 &&
        fits(a, g, tp, weight_dtype, CL_DTYPE_FP8, util))
        phrases_add(&all, "an fp8 kv cache");
    for (t = tp + 1; t <= gpus_per_node; t++) {
        if (fits(a, g, t, weight_dtype, kv_dtype, util)) {
            snprintf(item, sizeof(item), "tp >= %d", t);
            phrases_add(&all, item);
            break;
        }
    }
    names.n = 0;
    for (i = 0; gpu_table[i] != NULL; i++) {
        const struct gpu_spec *o = gpu_table[i];
        if (o->hbm_bytes > g->hbm_bytes &&
            fits(a, o, tp, weight_dtype, kv_dtype, util))
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

int perf_replica_init(struct perf_replica *r, const struct arch_spec *a,
                      const struct gpu_spec *g, int tp, int gpus_per_node,
                      int weight_dtype, int kv_dtype,
                      double gpu_memory_utilization, double eff_compute,
                      double eff_memory, int64_t overhead_ns, char *why,
                      size_t whylen)
{
    struct perf_replica n;
    double util = gpu_memory_utilization, cap;
    char list[512];

    if (a == NULL || g == NULL) {
        say(why, whylen, "no model or gpu given");
        return SIM_EINVAL;
    }
    if (gpus_per_node < 1) {
        say(why, whylen, "gpus_per_node must be at least 1, got %d",
            gpus_per_node);
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
            dtype_name(kv_dtype));
        return SIM_EINVAL;
    }
    if (!(util > 0.0 && util <= 1.0)) {
        say(why, whylen, "gpu_memory_utilization %g out of range (0, 1]", util);
        return SIM_EINVAL;
    }
    if (!(eff_compute > 0.0 && eff_compute <= 1.0) ||
        !(eff_memory > 0.0 && eff_memory <= 1.0)) {
        say(why, whylen,
            "efficiencies must be in (0, 1], got compute %g "
            "and memory %g",
            eff_compute, eff_memory);
        return SIM_EINVAL;
    }
    if (overhead_ns < 0) {
        say(why, whylen, "iteration overhead must be >= 0 ns, got %lld",
            (long long)overhead_ns);
        return SIM_EINVAL;
    }
    if (tp < 1) {
        say(why, whylen, "tp must be at least 1, got %d", tp);
        return SIM_EINVAL;
    }
    if (tp > gpus_per_node) {
        say(why, whylen,
            "tp %d exceeds gpus_per_node %d; tensor "
            "parallelism across nodes is not modelled, use tp <= %d",
            tp, gpus_per_node, gpus_per_node);
        return SIM_EINFEASIBLE;
    }
    if (!tp_divides(a, tp)) {
        allowed_tps(list, sizeof(list), a, gpus_per_node);
        if (a->attn == ARCH_ATTN_GQA)
            say(why, whylen,
                "%s has %d attention heads and %d kv heads, "
                "which tp %d does not split evenly; use tp %s",
                a->name, a->heads, a->kv_heads, tp, list);
        else
            say(why, whylen,
                "%s has %d attention heads, not divisible by "
                "tp %d; use tp %s",
                a->name, a->heads, tp, list);
        return SIM_EINFEASIBLE;
    }

    cap = capacity_tokens(a, g, tp, weight_dtype, kv_dtype, util);
    if (cap < PERF_MIN_KV_TOKENS) {
        double w = weight_bytes(a, weight_dtype);
        double hold = (double)g->hbm_bytes * tp;
        double reserve = (double)PERF_RESERVE_BYTES_PER_GPU * tp;

        suggest(list, sizeof(list), a, g, tp, gpus_per_node, weight_dtype,
                kv_dtype, util);
        if (list[0] == '\0')
            snprintf(list, sizeof(list), "%s",
                     "nothing in the catalog fits within one node; "
                     "pipeline and expert parallelism are not modelled "
                     "yet");
        if (w > util * hold - reserve)
            say(why, whylen,
                "%s in %s needs %.1f GB of weights but %d x "
                "%s hold %.1f GB (%.1f GB usable at gpu_memory_utilization "
                "%g, %.1f GB of it reserved for activations); %s%s",
                a->name, dtype_name(weight_dtype), w / 1e9, tp, g->name,
                hold / 1e9, util * hold / 1e9, util, reserve / 1e9,
                strncmp(list, "nothing", 7) == 0 ? "" : "use ", list);
        else
            say(why, whylen,
                "%s in %s on %d x %s leaves room for %.0f kv "
                "tokens, fewer than %d, after %.1f GB of weights and "
                "%.1f GB reserved for activations (%.1f GB usable at "
                "gpu_memory_utilization %g); %s%s",
                a->name, dtype_name(weight_dtype), tp, g->name,
                cap < 0 ? 0 : cap, PERF_MIN_KV_TOKENS, w / 1e9, reserve / 1e9,
                util * hold / 1e9, util,
                strncmp(list, "nothing", 7) == 0 ? "" : "use ", list);
        return SIM_EINFEASIBLE;
    }

    memset(&n, 0, sizeof(n));
    n.arch = a;
    n.gpu = g;
    n.tp = tp;
    n.weight_dtype = weight_dtype;
    n.kv_dtype = kv_dtype;
    n.gpu_memory_utilization = util;
    n.eff_compute = eff_compute;
    n.eff_memory = eff_memory;
    n.overhead_ns = overhead_ns;
    n.weight_bytes = weight_bytes(a, weight_dtype);
    n.weight_bytes_per_gpu = n.weight_bytes / tp;
    n.reserve_bytes_per_gpu = (double)PERF_RESERVE_BYTES_PER_GPU;
    n.kv_bytes_per_token_per_gpu = kv_per_gpu(a, tp, kv_dtype);
    n.kv_capacity_tokens = (int64_t)cap;
    n.linear_flops_per_token = (double)arch_linear_flops_per_token(a);
    n.attn_flops_per_pair_prefill = arch_attn_flops_per_pair(a, 0);
    n.attn_flops_per_pair_decode = arch_attn_flops_per_pair(a, 1);
    /* W4A16 dequantises to bf16; fp8 weights run fp8 GEMMs (FACTS.md
     * §1.1 peaks). */
    n.linear_peak_flops =
        weight_dtype == CL_DTYPE_FP8 ? g->flops_fp8 : g->flops_bf16;
    n.attn_peak_flops = g->flops_bf16;
    n.always_read_bytes = (double)arch_params_always_read(a) *
                          perf_weight_bytes_per_param(weight_dtype);
    n.expert_bytes = (double)arch_params_expert(a) *
                     perf_weight_bytes_per_param(weight_dtype);
    n.moe_layers = arch_moe_layers(a);
    *r = n;
    return 0;
}

void perf_iteration_breakdown(const struct perf_replica *r,
                              const struct perf_batch *b,
                              struct perf_breakdown *out)
{
    const struct arch_spec *a = r->arch;
    double tokens = (double)(b->prefill_tokens + b->decode_seqs);
    double p = r->tp, t;

    memset(out, 0, sizeof(*out));
    if (b->prefill_tokens + b->decode_seqs <= 0)
        return;

    out->linear_flops = r->linear_flops_per_token * tokens / p;
    out->attn_flops =
        (r->attn_flops_per_pair_prefill * b->prefill_attn_pairs +
         r->attn_flops_per_pair_decode * (double)b->decode_ctx_tokens) /
        p;
    out->compute_ns = NS_PER_S *
                      (out->linear_flops / r->linear_peak_flops +
                       out->attn_flops / r->attn_peak_flops) /
                      r->eff_compute;

    out->experts_touched =
        arch_moe_experts_touched(a, b->prefill_tokens + b->decode_seqs);
    out->weight_bytes =
        (r->always_read_bytes +
         r->moe_layers * out->experts_touched * r->expert_bytes) /
        p;
    out->kv_bytes =
        r->kv_bytes_per_token_per_gpu *
        ((double)b->decode_ctx_tokens + (double)b->prefill_ctx_tokens + tokens);
    out->memory_ns = NS_PER_S * (out->weight_bytes + out->kv_bytes) /
                     (r->eff_memory * r->gpu->hbm_bytes_per_s);

    if (r->tp > 1) {
        out->allreduce_bytes = tokens * a->hidden * ACT_BYTES;
        out->comm_ns = 2.0 * a->layers *
                       (2.0 * (p - 1.0) * (double)r->gpu->nvlink_latency_ns +
                        NS_PER_S * 2.0 * (p - 1.0) / p * out->allreduce_bytes /
                            r->gpu->nvlink_bytes_per_s);
    }
    out->overhead_ns = r->overhead_ns;
    t = fmax(out->compute_ns, out->memory_ns) + out->comm_ns;
    out->total_ns = (t < 1.0 ? 1 : llround(t)) + r->overhead_ns;
}

int64_t perf_iteration_ns(const struct perf_replica *r,
                          const struct perf_batch *b)
{
    struct perf_breakdown bd;

    perf_iteration_breakdown(r, b, &bd);
    return bd.total_ns;
}

int64_t perf_kv_capacity_tokens(const struct perf_replica *r)
{
    return r->kv_capacity_tokens;
}

double perf_weight_bytes_per_gpu(const struct perf_replica *r)
{
    return r->weight_bytes_per_gpu;
}
