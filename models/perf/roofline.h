/*
 * Step time of one model replica: a roofline per engine iteration. A replica
 * is one model on tp GPUs of one kind in one node, with tensor parallelism
 * (Megatron-style: heads and MLP columns split, two all-reduces per layer).
 * perf_replica_init() checks that the configuration fits and precomputes the
 * per-replica constants (weight bytes, KV capacity, FLOPs per token); then
 * perf_iteration_ns() prices one batch in O(1) from its aggregate shape:
 *
 *   t = max(compute, memory) + tp all-reduce + overhead
 *
 * Compute and memory overlap (the roofline); communication and host overhead
 * do not. Bytes and FLOPs are doubles, simulated time is int64_t ns. The
 * replica borrows its arch and gpu entries (static catalog entries).
 * Single-threaded, no state beyond the caller-owned struct.
 */
#ifndef PERF_ROOFLINE_H
#define PERF_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "models/arch/arch.h"
#include "models/gpu/gpu.h"

/* Efficiencies and the per-iteration overhead are the caller's: the
 * scenario's server.efficiency_compute, efficiency_memory and
 * iteration_overhead, whose defaults and their sources live in one place,
 * the scenario schema (scenarios/schema.c, docs/hardware.md). */

/* Memory kept back on every GPU for activations, CUDA graphs, NCCL buffers
 * and allocator slack, outside the KV cache: 2 GiB. An assumption (FACTS.md
 * §4.3 names the term but gives no figure); calibrate against vLLM's
 * "activation peak memory" log line. TODO(#3): make it a function of
 * max_num_batched_tokens and the model width. */
#define PERF_RESERVE_BYTES_PER_GPU (INT64_C(2) << 30)

/* A replica is feasible only if its KV cache holds at least this many
 * tokens: one block at vLLM's default block_size of 16 (vllm @ 002f10e0
 * vllm/config/cache.py via FACTS.md §5.1). */
#define PERF_MIN_KV_TOKENS 16

/* Per-replica constants. Callers embed it and fill it only through
 * perf_replica_init(); the fields are public for reports and tests. */
struct perf_replica {
    const struct arch_spec *arch; /* borrowed, static catalog entry */
    const struct gpu_spec *gpu;   /* borrowed, static catalog entry */
    int tp;                       /* GPUs in the replica */
    int weight_dtype;             /* enum cl_dtype */
    int kv_dtype;                 /* enum cl_dtype, bf16 or fp8 */
    double gpu_memory_utilization;
    double eff_compute; /* achieved fraction of peak FLOP/s, (0, 1] */
    double eff_memory;  /* achieved fraction of peak HBM B/s, (0, 1] */
    int64_t overhead_ns;
    /* Derived. */
    double weight_bytes;         /* whole model, with quantisation scales */
    double weight_bytes_per_gpu; /* weight_bytes / tp */
    double reserve_bytes_per_gpu;
    double kv_bytes_per_token_per_gpu;
    int64_t kv_capacity_tokens;         /* per replica (= per GPU: ranks share
                                           every token) */
    double linear_flops_per_token;      /* whole model, FACTS.md §4.4 */
    double attn_flops_per_pair_prefill; /* all heads and layers */
    double attn_flops_per_pair_decode;
    double linear_peak_flops; /* per GPU, at the weights' compute dtype */
    double attn_peak_flops;   /* per GPU, bf16 */
    double always_read_bytes; /* whole model: non-expert weights read */
    double expert_bytes;      /* one routed expert of one layer */
    int moe_layers;
};

/* The aggregate shape of one iteration's batch, so that its cost is O(1)
 * however many sequences it holds. A prefill chunk of c new tokens for a
 * sequence with s tokens already cached contributes c to prefill_tokens,
 * s to prefill_ctx_tokens and c * (s + c / 2) query-key pairs (causal) to
 * prefill_attn_pairs. A decoding sequence contributes 1 to decode_seqs and
 * its context length (the tokens its query attends to) to
 * decode_ctx_tokens. Zero-initialise and add. */
struct perf_batch {
    int64_t prefill_tokens;
    int64_t prefill_ctx_tokens;
    double prefill_attn_pairs;
    int64_t decode_seqs;
    int64_t decode_ctx_tokens;
};

/* The terms of one iteration's time, per GPU. FLOPs and bytes are what
 * one GPU of the replica does and moves; the _ns terms are doubles before
 * rounding; total_ns = max(1, round(max(compute_ns, memory_ns) + comm_ns))
 * + overhead_ns, or 0 for an empty batch. */
struct perf_breakdown {
    double linear_flops;    /* 2 * N_linear * tokens / tp */
    double attn_flops;      /* query-key pair FLOPs / tp */
    double weight_bytes;    /* weights read (touched experts only) / tp */
    double kv_bytes;        /* KV cache read and written by one GPU */
    double experts_touched; /* per MoE layer, 0 for dense models */
    double allreduce_bytes; /* payload of one all-reduce */
    double compute_ns;
    double memory_ns;
    double comm_ns; /* 2 * layers ring all-reduces, 0 when tp == 1 */
    int64_t overhead_ns;
    int64_t total_ns;
};

/* Bytes per weight parameter stored in dtype (enum cl_dtype), quantisation
 * scales included: bf16 2; fp8 1 + 4 / (128 * 128) (one FP32 scale per
 * 128x128 block, DeepSeek-V3 README_WEIGHTS.md via FACTS.md §4.2); int4
 * 0.5 + 2 / 128 (one 16-bit scale per group of 128, the usual GPTQ/AWQ
 * group size: an assumption, FACTS.md §4.2 says only "0.5 + scales").
 * Returns 0 for an unknown dtype. */
double perf_weight_bytes_per_param(int dtype);

/* Bytes per cached KV element in dtype: bf16 2, fp8 1; 0 otherwise (int4
 * is a weight-only format). */
int perf_kv_bytes_per_elem(int dtype);

/*
 * Checks one replica configuration and fills r with its constants.
 *   a, g: catalog entries (borrowed; must outlive r).
 *   tp: tensor-parallel degree, 1 <= tp <= gpus_per_node; it must divide
 *     the query heads, and divide the KV heads when tp <= kv_heads or be a
 *     multiple of them otherwise (GQA).
 *   gpus_per_node: GPUs joined by NVLink; tp across nodes is not modelled.
 *   weight_dtype, kv_dtype: enum cl_dtype; the KV cache is bf16 or fp8.
 *     bf16 and int4 (W4A16) weights compute at the bf16 peak, fp8 weights at
 *     the fp8 peak.
 *   gpu_memory_utilization: fraction of HBM the engine may use, (0, 1].
 *   eff_compute, eff_memory: achieved fractions of peak, (0, 1].
 *   overhead_ns: host time added to every non-empty iteration, >= 0.
 *   why, whylen: receives a one-line lower-case reason on failure (may be
 *     NULL when whylen is 0); untouched on success.
 * KV capacity = floor((util * HBM - weights / tp - PERF_RESERVE_BYTES_PER_GPU)
 * / KV bytes per token per GPU), where a GPU holds kv_heads / tp of the GQA
 * heads (one, replicated, when tp > kv_heads) or the whole MLA latent
 * (FACTS.md §4.3).
 * Returns 0; SIM_EINVAL for an out-of-range argument; SIM_EINFEASIBLE when
 * tp is not allowed or the weights plus PERF_MIN_KV_TOKENS of KV do not fit,
 * the message then naming the weight dtypes, the smallest tp and the larger
 * catalog GPUs that would fit. On failure r is unchanged.
 */
int perf_replica_init(struct perf_replica *r, const struct arch_spec *a,
                      const struct gpu_spec *g, int tp, int gpus_per_node,
                      int weight_dtype, int kv_dtype,
                      double gpu_memory_utilization, double eff_compute,
                      double eff_memory, int64_t overhead_ns, char *why,
                      size_t whylen);

/* Fills out with the terms of one iteration of batch b on replica r:
 *   compute = (linear_flops / peak_w + attn_flops / peak_bf16)
 *             / eff_compute, per GPU (FACTS.md §4.4);
 *   memory = (weights read + KV read and written) / (eff_memory * HBM B/s),
 *     MoE layers reading only E * (1 - (1 - k/E)^T) routed experts for T
 *     batch tokens (FACTS.md §4.5);
 *   comm = 2 * layers ring all-reduces of T * hidden * 2 bytes:
 *     2(p-1) * alpha + 2(p-1)/p * n / B_nvlink (FACTS.md §3.2, §2.2).
 * An empty batch (no tokens) gives all zeros. */
void perf_iteration_breakdown(const struct perf_replica *r,
                              const struct perf_batch *b,
                              struct perf_breakdown *out);

/* Returns the time of one iteration of batch b on r in ns, the total_ns of
 * perf_iteration_breakdown(): 0 for an empty batch, else >= 1. */
int64_t perf_iteration_ns(const struct perf_replica *r,
                          const struct perf_batch *b);

/* Returns the replica's KV-cache capacity in tokens. */
int64_t perf_kv_capacity_tokens(const struct perf_replica *r);

/* Returns the weight bytes each GPU of the replica holds. */
double perf_weight_bytes_per_gpu(const struct perf_replica *r);

#endif /* PERF_ROOFLINE_H */
