/*
 * Step time of one model replica: a roofline per operator class, summed
 * over the layers, per engine iteration. A replica is one model on
 * tp x pp GPUs (x ep / tp data-parallel attention groups for MoE models
 * with ep > tp) of one GPU kind: tensor parallelism within a node
 * (Megatron-style, two all-reduces per layer), pipeline stages holding
 * ceil(layers / pp) layers each, and expert parallelism over ep GPUs.
 * perf_replica_init() checks that the configuration fits and precomputes
 * the per-replica constants; perf_iteration_breakdown() then prices one
 * batch in O(1) from its aggregate shape (no loop over sequences or
 * layers):
 *
 *   t = sum over operator classes of max(FLOPs / (eta_c * peak),
 *       bytes / (eta_m * HBM)) + kernels * kernel time
 *       + collectives + host overhead
 *
 * Classes run one after another on the GPU's stream, so their times add;
 * within a class compute and memory overlap. Efficiencies come from a
 * calibration (models/perf/calib.h). Bytes and FLOPs are doubles,
 * simulated time is int64_t ns. The replica borrows its arch and gpu
 * entries (static catalog entries or the scenario's, which must outlive
 * it) and copies its calibration. Single-threaded, no state beyond the
 * caller-owned struct. See docs/step-time.md.
 */
#ifndef PERF_ROOFLINE_H
#define PERF_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "models/arch/arch.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"

/* Memory kept back on every GPU for activations, CUDA graphs, NCCL buffers
 * and allocator slack, outside the KV cache: 2 GiB. An assumption
 * (docs/sources.md §4.3 names the term but gives no figure); calibrate against
 * vLLM's "activation peak memory" log line. TODO(#3): make it a function of
 * max_num_batched_tokens and the model width. */
#define PERF_RESERVE_BYTES_PER_GPU (INT64_C(2) << 30)

/* A replica is feasible only if its KV cache holds at least this many
 * tokens: one block at vLLM's default block_size of 16 (vllm @ 002f10e0
 * vllm/config/cache.py via docs/sources.md §5.1). */
#define PERF_MIN_KV_TOKENS 16

/* vLLM engine default that the scenario's server section and the layout
 * model share (docs/sources.md §5.1): the fraction of HBM the engine may use,
 * 0.90 in the releases dsec is validated against (v0.15 runs; 0.92 at
 * newer commits). A plain literal: the scenario row takes it as its
 * default text (SIM_PARAM_DEF). The per-GPU defaults are functions below
 * (perf_default_max_num_seqs, perf_default_max_num_batched_tokens). */
#define PERF_DEFAULT_GPU_MEMORY_UTILIZATION 0.9

/* vLLM's largest CUDA-graph capture size (compilation_config
 * max_cudagraph_capture_size), the default when max_num_seqs is large: a
 * batch of up to this many tokens replays a captured graph, padded up to
 * the next capture size (docs/step-time.md "Kernels and CUDA graphs"; from
 * recall, unverified). */
#define PERF_DEFAULT_MAX_CUDAGRAPH_CAPTURE_SIZE 512

/* vLLM's default capture limit for max_num_seqs (> 0): min(2 *
 * max_num_seqs, 512) (from recall, unverified). */
int64_t perf_default_cudagraph_capture_size(int64_t max_num_seqs);

/* The capture size a batch of tokens (> 0, <= the limit) is padded to:
 * vLLM's sizes 1, 2, 4, then multiples of 8 up to 256, then multiples of
 * 16 (from recall, unverified). */
int64_t perf_cudagraph_padded_tokens(int64_t tokens);

/* Speculative decoding (struct perf_layout spec_method; docs/step-time.md
 * "Speculative decoding"). */
enum perf_spec {
    PERF_SPEC_NONE,  /* one token per decoding sequence and step */
    PERF_SPEC_MTP,   /* the model's multi-token-prediction module drafts
                        (DeepSeek-V3: one layer, reused for each token) */
    PERF_SPEC_NGRAM, /* prompt-lookup n-gram drafting on the host: no GPU
                        work for the draft */
};

/* Static name of a perf_spec ("none", "mtp", "ngram"), "?" if none. */
const char *perf_spec_name(int method);

/* Expected tokens a decoding sequence emits per step when k tokens are
 * drafted and each is accepted with probability alpha given that the ones
 * before it were (the first rejected draft is replaced by the target's own
 * token): sum_{j=0..k} alpha^j = (1 - alpha^(k + 1)) / (1 - alpha); 1
 * for k <= 0. alpha in [0, 1]. */
double perf_spec_tokens_per_step(int k, double alpha);

/* How a replica's GPUs are arranged. */
struct perf_layout {
    int tp; /* tensor-parallel degree of attention and dense layers, >= 1,
               within one node */
    int pp; /* pipeline stages, >= 1, <= layers */
    int ep; /* expert-parallel degree, >= 1; 1 splits every expert over
               the tp GPUs; > 1 (MoE only, a multiple of tp dividing the
               expert slots) puts slots / ep whole experts on each of ep
               GPUs, and ep / tp data-parallel attention groups of tp GPUs
               each serve 1 / (ep / tp) of the sequences */
    int gpus_per_node; /* GPUs joined by the intra-node link, >= 1 */
    int nics_per_node; /* inter-node rails per node; 0 = gpus_per_node */
    /* Redundant expert slots, >= 0, at most the routed experts, ep > 1
     * only: slots = routed experts + redundant_experts, the first
     * redundant_experts experts held twice (perf_expert_placement()). 0 =
     * one slot per expert. */
    int redundant_experts;
    /* The busiest EP rank's token-expert pairs over the mean, >= 1, ep > 1
     * only; 0 = derived from uniform routing and the placement
     * (docs/step-time.md "Expert parallelism"). */
    double expert_imbalance;
    /* 0 or 1: the batch runs as one; 2: two micro-batches, one's
     * all-to-all hidden behind the other's compute (SGLang's two-batch
     * overlap), pp 1 only. */
    int micro_batches;
    /* Speculative decoding: enum perf_spec, the tokens drafted per
     * decoding sequence and step (0 with PERF_SPEC_NONE, 1..8 otherwise)
     * and the acceptance rate of each drafted token, in [0, 1]. Every
     * decoding sequence then runs 1 + spec_tokens query tokens through
     * the model (verification) and, with PERF_SPEC_MTP, the MTP layer
     * spec_tokens times. PERF_SPEC_MTP needs a model with an MTP module
     * (struct arch_spec mtp_layers), whose layer's weights and KV cache
     * then take HBM. */
    int spec_method;
    int spec_tokens;
    double spec_acceptance;
};

/* The EP all-to-all's DeepEP kernel class (struct perf_breakdown). */
enum perf_a2a {
    PERF_A2A_NONE,         /* no expert parallelism */
    PERF_A2A_NORMAL_INTRA, /* normal kernels, ep within one node (NVLink) */
    PERF_A2A_NORMAL_INTER, /* normal kernels, RDMA between nodes */
    PERF_A2A_LOW_LATENCY,  /* low-latency kernels, decode-only batches */
};

/* Static name of a perf_a2a class ("none", "normal-intranode",
 * "normal-internode", "low-latency"), "?" if none. */
const char *perf_a2a_name(int cls);

/* Fills slot_expert[0 .. slots - 1] (slots = experts + redundant, caller
 * allocated) with the expert each slot holds; GPU g of ep holds slots g *
 * (slots / ep) to (g + 1) * (slots / ep) - 1. Experts redundant to
 * experts - 1 take one slot each, dealt evenly over the GPUs; experts 0
 * to redundant - 1 (the hot ones) two, on different GPUs when slots / ep
 * <= redundant. Returns 0, or SIM_EINVAL when experts < 1, redundant < 0
 * or > experts, ep < 1, or ep does not divide the slots (slot_expert is
 * then untouched). */
int perf_expert_placement(int experts, int redundant, int ep, int *slot_expert);

/* The expected maximum of n independent standard normals, Blom's
 * approximation Phi^-1((n - 0.375) / (n + 0.25)); 0 for n <= 1. */
double perf_expected_max_normal(int n);

/* The operator classes of the breakdown, in print order. */
enum perf_op {
    PERF_OP_ATTN_PROJ,   /* QKV and output projections (MLA: q_a, q_b,
                            kv_a, kv_b or its absorbed form, o) */
    PERF_OP_ATTENTION,   /* score and PV over the KV cache */
    PERF_OP_MLP,         /* dense SwiGLU MLP layers */
    PERF_OP_MOE,         /* router, shared experts, routed experts */
    PERF_OP_LM_HEAD,     /* logits of the sampled positions */
    PERF_OP_ELEMENTWISE, /* norms, rotary, activation, residual, routing,
                            embedding lookup */
    PERF_OP_TP_COMM,     /* tensor-parallel all-reduces */
    PERF_OP_EP_COMM,     /* expert-parallel dispatch and combine */
    PERF_OP_PP_COMM,     /* pipeline sends between stages */
    PERF_OP_DRAFT,       /* speculative drafting: the MTP layer, its
                            projection and LM head, once per drafted token */
    PERF_OP_OVERHEAD,    /* host time */
    PERF_OP_COUNT,
};

/* Static lower-case name of class op ("attn_proj", ...), "?" if none. */
const char *perf_op_name(int op);

/* Static name of a bound ("compute", "memory", "comm", "host", "-"). */
const char *perf_bound_name(int bound);

/* Per-replica constants. Callers embed it and fill it only through
 * perf_replica_init(); the fields are public for reports and tests. */
struct perf_replica {
    const struct arch_spec *arch; /* borrowed */
    const struct gpu_spec *gpu;   /* borrowed */
    int tp, pp, ep;
    int dp; /* data-parallel attention groups, ep / tp or 1 */
    /* Expert placement: slots (routed + redundant), slots per EP GPU (the
     * routed experts when ep is 1), and the expert slots per routed
     * expert (slots / routed). */
    int expert_slots, slots_per_gpu;
    double slot_ratio;
    /* Load imbalance (ep > 1): the key's ratio when > 0, else imb_static +
     * imb_noise / sqrt(tokens), capped at imb_cap (docs/step-time.md). */
    double imbalance_key, imb_static, imb_noise, imb_cap;
    int micro_batches; /* 1 or 2 */
    /* Speculative decoding (struct perf_layout): the method, drafted
     * tokens per step, acceptance, and the MTP module's projection
     * parameters per GPU (2 hidden x hidden / tp; 0 without MTP). */
    int spec_method, spec_tokens;
    double spec_acceptance, mtp_proj_params;
    /* EP all-to-all per byte of the busiest GPU (ns): low-latency kernels,
     * normal kernels within a node, and across nodes (RDMA, one copy per
     * destination node: a2a_node_copies of the k copies per token). */
    double a2a_ll_ns_per_byte, a2a_normal_intra_ns_per_byte;
    double a2a_normal_inter_ns_per_byte, a2a_node_copies;
    double inv_dp;    /* 1 / dp */
    int gpus;         /* tp * dp * pp */
    int weight_dtype; /* enum cl_dtype */
    int kv_dtype;     /* enum cl_dtype, bf16 or fp8 */
    double gpu_memory_utilization;
    struct perf_gpu_calib calib; /* a copy */
    /* CUDA graphs: batches of at most this many tokens (per data-parallel
     * group) replay a graph; 0 runs every iteration eagerly (vLLM
     * enforce_eager). perf_replica_init() sets
     * PERF_DEFAULT_MAX_CUDAGRAPH_CAPTURE_SIZE; callers may change it. */
    int64_t cudagraph_max_tokens;
    /* Tensor-parallel all-reduces: 1 prices those vLLM's custom all-reduce
     * takes (net_car_shot(): 2, 4, 6 or 8 GPUs on NVLink, under 8 MiB)
     * with net_car_cost(), the rest with NCCL; 0 prices all with NCCL
     * (vLLM --disable-custom-all-reduce). perf_replica_init() sets 1. */
    int custom_allreduce;
    /* Memory, per GPU of the heaviest stage. */
    double weight_bytes;         /* whole model, with quantisation scales */
    double weight_bytes_per_gpu; /* what one GPU holds */
    double reserve_bytes_per_gpu;
    double kv_bytes_per_token_per_gpu; /* of its stage's layers */
    int64_t kv_capacity_tokens;        /* per replica, all dp groups */
    /* Layers: all of them, and of the heaviest pipeline stage. */
    int layers, dense_layers, moe_layers;
    int stage_layers, stage_dense_layers, stage_moe_layers;
    /* Peaks per GPU: GEMMs at the weights' compute dtype, attention bf16. */
    double linear_peak_flops;
    double attn_peak_flops;
    double weight_bytes_per_param;
    /* ns per FLOP and per byte at the calibrated fractions (GEMM FLOPs at
     * the asymptote gemm_eff_max). */
    double ns_per_gemm_flop, ns_per_gemm_byte;
    double ns_per_attn_flop, ns_per_attn_byte, ns_per_elem_byte;
    /* Per layer and GPU: parameters each GEMM class reads and the
     * activation elements (inputs plus outputs) it moves per token. */
    double attn_proj_params, attn_proj_act;
    double attn_proj_kernels;
    double kv_b_params; /* MLA kv_b per GPU, applied to cached context
                           tokens by a prefill (naive form) */
    double mlp_params, mlp_act;
    double router_params, router_act;
    double shared_params, shared_act;
    double expert_params;   /* one routed expert, whole */
    double moe_log_keep;    /* log(1 - k / E): a token skips an expert */
    double expert_div;      /* GPUs an expert's work is split over: tp or
                               ep */
    double expert_pair_act; /* elements moved per token-expert pair */
    double pairs_div;       /* token-expert pairs per GPU = T * k / it */
    double lm_head_params, lm_head_act;
    /* Attention, per layer: FLOPs per query-key pair (all heads; split
     * over tp at run time), KV bytes per token per GPU (main cache, DSA
     * indexer keys), query/output elements per token per GPU. */
    double attn_flops_pair_prefill, attn_flops_pair_decode;
    double attn_flops_pair_indexer;
    int attn_topk; /* DSA keys per query, 0 = all */
    double kv_main_bytes, kv_index_bytes;
    double attn_qo_act;
    double attn_kernels;
    /* Elementwise elements per token per GPU and kernels, per layer. */
    double elem_common, elem_dense, elem_moe_token, elem_moe_pair;
    double elem_common_kernels, elem_dense_kernels, elem_moe_kernels;
    double elem_once, elem_once_kernels; /* embedding lookup, final norm */
    /* Communication. */
    int allreduces_dense, allreduces_moe; /* per layer */
    double dispatch_bytes_per_elem;       /* EP dispatch: 1 (fp8) or 2 */
    int pp_intra_sends, pp_inter_sends;   /* stage boundaries by link */
    int gpus_per_node, nics_per_node;
};

/* The aggregate shape of one iteration's batch, so that its cost is O(1)
 * however many sequences it holds. A prefill chunk of c new tokens for a
 * sequence with s tokens already cached contributes c to prefill_tokens,
 * s to prefill_ctx_tokens, c * (s + c / 2) query-key pairs (causal) to
 * prefill_attn_pairs, 1 to prefill_seqs, and 1 to prefill_done_seqs if it
 * ends the prompt (the engine then samples its first output token). A
 * decoding sequence contributes 1 to decode_seqs and its context length
 * (the tokens its query attends to) to decode_ctx_tokens. Zero-initialise
 * and add. prefill_seqs == 0 with prefill tokens counts as one sequence
 * for the host overhead; prefill_done_seqs == 0 prices no logits for the
 * prefills. */
struct perf_batch {
    int64_t prefill_tokens;
    int64_t prefill_ctx_tokens;
    double prefill_attn_pairs;
    int64_t decode_seqs;
    int64_t decode_ctx_tokens;
    int64_t prefill_seqs;
    int64_t prefill_done_seqs;
};

/* One operator class of one iteration: what one GPU computes and moves,
 * summed over every layer of the model (all pipeline stages, each on its
 * own GPUs), and the time it adds. */
struct perf_op_cost {
    double flops;
    double bytes; /* HBM bytes, or bytes sent for a collective */
    double ns;
    int bound; /* enum perf_bound */
};

/* The terms of one iteration's time. total_ns is the latency of the batch
 * through every stage: max(1, round(sum of the op[] ns but the overhead))
 * + round(overhead), or 0 for an empty batch. stage_ns is the busiest
 * stage's share (its layers, the LM head, one send, the overhead), the
 * interval at which a full pipeline completes micro-batches; equal to
 * total_ns when pp == 1. */
/* How an iteration's kernels were launched (struct perf_breakdown). */
enum perf_graph {
    PERF_GRAPH_EAGER,     /* every kernel launched by the host */
    PERF_GRAPH_PIECEWISE, /* graph pieces, attention launched eagerly */
    PERF_GRAPH_FULL,      /* one graph, decode-only batch */
};

struct perf_breakdown {
    struct perf_op_cost op[PERF_OP_COUNT];
    int graph;                   /* enum perf_graph */
    double padded_tokens;        /* tokens of one dp group through the linear
                                    layers: the capture size in a graph */
    double experts_touched;      /* per MoE layer, 0 for dense models */
    double tokens;               /* T = prefill_tokens + decode_seqs x (1 +
                                    drafted tokens) */
    double spec_tokens_per_step; /* expected tokens a decoding sequence
                                    emits per step: 1 without speculation */
    double comm_ns;              /* TP + EP (exposed) + PP collectives */
    /* Expert parallelism: the all-to-all's kernel class (enum perf_a2a),
     * its time over every MoE layer and micro-batch, the part hidden
     * behind the other micro-batch's compute and the exposed rest (=
     * op[PERF_OP_EP_COMM].ns); the imbalance used (busiest rank's pairs
     * over the mean, 1 without EP) and the micro-batches run. */
    int a2a_class;
    double a2a_total_ns, a2a_hidden_ns, a2a_exposed_ns;
    double expert_imbalance;
    int micro_batches;
    int tp_allreduce;       /* enum net_car_shot: NET_CAR_NONE = NCCL */
    double tp_allreduce_ns; /* one TP all-reduce, 0 without TP */
    int64_t overhead_ns;
    int64_t stage_ns;
    int64_t total_ns;
};

/* Bytes per weight parameter stored in dtype (enum cl_dtype), quantisation
 * scales included: bf16 2; fp8 1 + 4 / (128 * 128) (one FP32 scale per
 * 128x128 block, DeepSeek-V3 README_WEIGHTS.md via docs/sources.md §4.2); int4
 * 0.5 + 2 / 128 (one 16-bit scale per group of 128, the usual GPTQ/AWQ
 * group size: an assumption, docs/sources.md §4.2 says only "0.5 + scales").
 * Returns 0 for an unknown dtype. */
double perf_weight_bytes_per_param(int dtype);

/* Bytes per cached KV element in dtype: bf16 2, fp8 1; 0 otherwise (int4
 * is a weight-only format). */
int perf_kv_bytes_per_elem(int dtype);

/* Static name of dtype: "bf16", "fp8", "int4", or "?". */
const char *perf_dtype_name(int dtype);

/*
 * Checks one replica configuration and fills r with its constants.
 *   a, g: architecture and GPU (borrowed; must outlive r).
 *   l: the layout (struct perf_layout; copied). tp must divide the query
 *     heads, and divide the KV heads when tp <= kv_heads or be a multiple
 *     of them otherwise (GQA, vLLM's rule); ep > 1 must be a multiple of
 *     tp dividing the expert slots; micro_batches 2 needs pp 1.
 *   weight_dtype, kv_dtype: enum cl_dtype; the KV cache is bf16 or fp8.
 *     bf16 and int4 (W4A16) weights compute at the bf16 peak; fp8 weights
 *     at the fp8 peak, or dequantised at the bf16 peak on a GPU without
 *     FP8 (flops_fp8 == 0, e.g. A100).
 *   gpu_memory_utilization: fraction of HBM the engine may use, (0, 1].
 *   c: calibration for g (copied); NULL means perf_calib_resolve(NULL, g).
 *   why, whylen: receives a one-line lower-case reason on failure (may be
 *     NULL when whylen is 0); untouched on success.
 * Memory per GPU (heaviest stage): its layers' weights (attention and
 * dense MLPs / tp, MLA's q_a and kv_a, norms and router replicated, routed
 * experts / tp, or slots / ep whole experts), the embedding and LM head / tp,
 * and PERF_RESERVE_BYTES_PER_GPU; KV capacity = dp * floor((util * HBM - those)
 * / KV bytes per token of the stage's layers on one GPU), where a GPU holds
 * kv_heads / tp of the GQA heads (one, replicated, when tp > kv_heads) or the
 * whole MLA latent (docs/sources.md §4.3). Returns 0; SIM_EINVAL for an
 * out-of-range argument; SIM_EINFEASIBLE when the layout is not allowed or the
 * weights plus PERF_MIN_KV_TOKENS of KV do not fit, the message then naming the
 * weight dtypes, KV dtype, larger tp, pp or ep, and larger catalog GPUs that
 * would fit. On failure r is unchanged.
 */
int perf_replica_init(struct perf_replica *r, const struct arch_spec *a,
                      const struct gpu_spec *g, const struct perf_layout *l,
                      int weight_dtype, int kv_dtype,
                      double gpu_memory_utilization,
                      const struct perf_gpu_calib *c, char *why, size_t whylen);

/* Fills out with the terms of one iteration of batch b on replica r
 * (docs/step-time.md lists every formula and its source). An empty batch
 * (no tokens) gives all zeros. O(1). */
void perf_iteration_breakdown(const struct perf_replica *r,
                              const struct perf_batch *b,
                              struct perf_breakdown *out);

/* Returns the time of one iteration of batch b on r in ns, the total_ns of
 * perf_iteration_breakdown(): 0 for an empty batch, else >= 1. */
int64_t perf_iteration_ns(const struct perf_replica *r,
                          const struct perf_batch *b);

/* The terms of a step that do not depend on its context, for one
 * micro-batch (private to roofline.c; struct perf_step_memo embeds it). */
struct perf_step_terms {
    int mb, a2a_cls; /* mb 0: not computed */
    double nmb, s, pf, dec, pf_ctx, t, tg, q, dshare, k_elem, k_attn;
    double ns[PERF_OP_COUNT];
    double e_common, e_dense, e_moe, t_once, ar_ns, a2a_mb, a2a_bytes;
    double send_intra, send_inter, imb, pairs, touched;
    /* A memo entry of one micro-batch without drafting (fast 1): the
     * step's time is its attention's plus these, in this order (roofline.c
     * decode_ns()). */
    int fast, nafter;
    int64_t overhead;
    double first, after[PERF_OP_COUNT];
    double cap, by_ctx, by_act, kernels;
    /* The same time as one affine form per roofline side (roofline.c
     * decode_ns_quick()): base + layers * max(tc, tm), tc = main * k_fm
     * + ctx * k_fc, tm = main * k_bm + ctx * k_bc + k_b0. */
    double base, k_fm, k_fc, k_bm, k_bc, k_b0;
};

/* What a step with new prompts costs that depends on its token count
 * alone, as total() reads it without a breakdown (roofline.c
 * token_terms()): six classes' times and four of their parts; 88
 * bytes, so that the thousands of token counts a run sees stay in
 * cache. */
#define PERF_MIXED_OPS 6
struct perf_mixed_memo {
    double ns[PERF_MIXED_OPS];
    double e_common, e_moe, ar_ns, a2a_mb;
    double pre; /* ns's sum and the exposed all-to-all (one micro-batch) */
    int full;   /* 0: not yet */
};

/* One all-reduce of struct perf_step_memo. */
struct perf_ar_memo {
    double k_elem, ns;
    int shot, full; /* full 0: not yet */
};

/* A memo of decode-only steps on one struct perf_replica: for each count
 * of decoders seen, what the step costs except its attention, which alone
 * depends on the decoders' context (about 450 bytes each); for steps
 * with new prompts (no prefill context), by token count, what does not
 * depend on how the tokens split into prompts and decoders (88 bytes
 * each); and for steps of any kind, the TP all-reduce by token count
 * (24 bytes each). Zero it
 * before first use ({0}); free it with perf_step_memo_fini(). It grows to
 * the most decoders and tokens seen. Used with another replica it starts
 * over, so it cannot give a wrong price, only a slower one. Not
 * thread-safe: one simulation's. */
struct perf_step_memo {
    const struct perf_replica *r; /* NULL: empty */
    int spec;
    int64_t n;                 /* entries in x */
    struct perf_step_terms *x; /* x[k]: k + 1 decoders; mb 0 = not yet */
    /* The TP all-reduce of any step whose GPUs hold a whole number of
     * tokens, by that number: ar[k] for k + 1 tokens (its message), nar
     * entries. */
    int64_t nar;
    struct perf_ar_memo *ar;
    /* The terms of batches with a prompt and no prefill context that
     * depend on their token count alone, by that count (roofline.c
     * mixed_entry()): mx[k] for k + 1 tokens, nmx entries. */
    int64_t nmx;
    struct perf_mixed_memo *mx;
};

/* Frees what m holds and empties it. */
void perf_step_memo_fini(struct perf_step_memo *m);

/* perf_iteration_ns() with a memo: a decode-only batch with a count of
 * decoders seen before reprices its attention only (the GEMMs,
 * collectives, elementwise and host terms depend on the count); a batch
 * with new prompts and a token count seen before reprices its attention,
 * LM head and host terms only; any other batch is priced whole, and
 * those two kinds fill their entries. Returns
 * exactly perf_iteration_ns()'s value. O(1). */
int64_t perf_iteration_ns_memo(const struct perf_replica *r,
                               const struct perf_batch *b,
                               struct perf_step_memo *memo);

/* The times of k steps of b's decoders one after another, ns[m] (ns) =
 * perf_iteration_ns_memo() of b with m * b->decode_seqs more context
 * tokens (each decoder one token longer a step), m = 0 .. k - 1, each
 * taken as at least 1 ns (as the engine takes a step: only a fitted
 * calibration's negative host term can make one shorter). ns holds k.
 * Returns their sum. */
int64_t perf_decode_steps(const struct perf_replica *r,
                          const struct perf_batch *b, int64_t k,
                          struct perf_step_memo *memo, int64_t *ns);

/* Returns the replica's KV-cache capacity in tokens. */
int64_t perf_kv_capacity_tokens(const struct perf_replica *r);

/* Returns the weight bytes each GPU of the replica holds (heaviest
 * stage). */
double perf_weight_bytes_per_gpu(const struct perf_replica *r);

/* vLLM's default max_num_seqs for g: 1,024 on GPUs of at least 70 GiB
 * other than the A100, else 256 (vllm @ 99d7eb5d EngineArgs
 * get_batch_defaults via docs/sources.md §5.1). */
int64_t perf_default_max_num_seqs(const struct gpu_spec *g);

/* vLLM's default max_num_batched_tokens for g as its OpenAI API server
 * (what benchmarks hit) sets it: 8,192 on GPUs of at least 70 GiB other
 * than the A100, else 2,048 (vllm @ 99d7eb5d arg_utils.py
 * get_batch_defaults via docs/sources.md §5.1; the LLM class doubles both). The
 * one source of the token budget's default for run, step, strategies and
 * plan. */
int64_t perf_default_max_num_batched_tokens(const struct gpu_spec *g);

/* Decode at saturation (struct perf_saturation). */
struct perf_saturation {
    int64_t context_tokens;
    int64_t max_num_seqs;
    int64_t kv_limit_seqs;      /* floor(KV capacity / context) */
    int64_t decode_seqs;        /* D = min(max_num_seqs, kv_limit_seqs) */
    int limited_by_kv;          /* 1 when kv_limit_seqs < max_num_seqs */
    int64_t micro_batch_seqs;   /* ceil(D / pp): one micro-batch */
    int64_t step_ns;            /* a decode iteration of one micro-batch */
    int64_t cycle_ns;           /* every sequence advances once per cycle:
                                   max(step_ns, pp * stage_ns) */
    double tokens_per_s;        /* D x tokens per step / cycle */
    struct perf_breakdown step; /* of the micro-batch */
};

/* Fills out with the output rate of r when every sequence decodes at
 * context_tokens (> 0) and the batch is as large as max_num_seqs (> 0)
 * and the KV cache allow: D = min(max_num_seqs, floor(capacity /
 * context)); with pp > 1, pp micro-batches of ceil(D / pp) sequences are
 * in flight (vLLM's virtual engines) and tokens/s = D / max(step, pp *
 * stage); with speculative decoding each step emits
 * perf_spec_tokens_per_step() tokens a sequence. Returns 0, SIM_EINVAL for
 * a bad argument, SIM_EINFEASIBLE when not one sequence of context_tokens
 * fits (out zeroed then). */
int perf_saturate(const struct perf_replica *r, int64_t context_tokens,
                  int64_t max_num_seqs, struct perf_saturation *out);

#endif /* PERF_ROOFLINE_H */
