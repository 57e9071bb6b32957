/*
 * Parallel layouts: one model spread over N GPUs by data (dp), tensor (tp),
 * pipeline (pp) and expert (ep) parallelism, with a ZeRO stage, micro-batches,
 * activation recomputation and sequence parallelism when training. For each
 * layout this module computes, per GPU: memory (weights and KV cache when
 * serving; weights, gradients, optimizer states and activations when
 * training), the traffic of every parallel dimension per step with the link
 * it crosses and its time, the pipeline bubble, the step time of a reference
 * batch, and a verdict (fits, or the reason it does not). Ranks are placed as
 * Megatron-LM places them: tp innermost, then dp, then pp; an ep group is ep
 * consecutive ranks of one stage's tp x dp block. Serving layouts are priced
 * by the step-time model (models/perf/roofline.h) and keep tp within a
 * node; training is priced here. Bytes, FLOPs and times are doubles (times
 * in ns); every formula cites docs/sources.md §3.2, §4 or §12 here, in layout.c
 * and in docs/layouts.md. The caller owns every struct; catalog entries are
 * borrowed. Pure functions, single-threaded, no state.
 */
#ifndef LAYOUT_LAYOUT_H
#define LAYOUT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "models/arch/arch.h"
#include "models/gpu/gpu.h"
#include "models/net/net.h"
#include "models/perf/calib.h"

enum layout_mode {
    LAYOUT_INFERENCE,
    LAYOUT_TRAINING,
};

/* Activation recomputation (Korthikanti et al. via docs/sources.md §12.2). AUTO
 * is an input only: the least recomputation with which the layout fits. */
enum layout_recompute {
    LAYOUT_RECOMPUTE_NONE,
    LAYOUT_RECOMPUTE_SELECTIVE, /* attention core recomputed */
    LAYOUT_RECOMPUTE_FULL,      /* only each layer's input kept */
    LAYOUT_RECOMPUTE_AUTO,
};

/* The reference batch of a training step when nothing says otherwise: a
 * global batch of 1,024 sequences of 4,096 tokens (4M tokens, Llama 2's
 * batch, docs/sources.md §4.1); serving's decode context is also 4,096 tokens.
 * The scenario's training.seq and training.global_batch defaults. Plain
 * literals (a row's default text). */
#define LAYOUT_DEFAULT_SEQ_TOKENS 4096
#define LAYOUT_DEFAULT_GLOBAL_BATCH_SEQS 1024

/* One layout. dp * tp * pp must equal the setup's gpus. Training fields are
 * ignored when serving (and reported as 0). */
struct layout {
    int dp;            /* data-parallel replicas, >= 1 */
    int tp;            /* tensor-parallel ranks, >= 1 */
    int pp;            /* pipeline stages, >= 1 */
    int ep;            /* expert-parallel ranks, >= 1; 1 for dense models;
                          above 1 a multiple of tp dividing the expert
                          slots (routed + the setup's redundant) and
                          tp * dp */
    int zero;          /* training: ZeRO stage 0..3 (docs/sources.md §12.3) */
    int micro_batches; /* training: m per dp rank per step; 0 = one
                          sequence per micro-batch (m = batch / dp) */
    int recompute;     /* training: enum layout_recompute */
    int seq_parallel;  /* training: 1 on, 0 off, -1 on whenever tp > 1 */
    int chunks;        /* training: model chunks per GPU of the interleaved
                          1F1B schedule (v, docs/sources.md §12.4); 0 or 1 is
                          plain 1F1B; above 1 needs pp > 1 and micro-batches
                          a multiple of pp */
};

/* The cluster, the mode and the reference batch. Fill it with
 * layout_setup_init() and then change fields. */
struct layout_setup {
    const struct arch_spec *arch; /* borrowed; must outlive the setup */
    const struct gpu_spec *gpu;   /* borrowed; must outlive the setup */
    int gpus;                     /* N, >= 1 */
    int gpus_per_node;            /* >= 1; gpus is a multiple of it, or
                                     less (one partly used node) */
    int nics_per_node;            /* >= 1, shared by the node's GPUs */
    /* The step-time model's calibration of gpu (a copy): efficiencies,
     * kernel and host times, and the links every collective here uses,
     * calib.intra within a node and calib.inter between nodes. */
    struct perf_gpu_calib calib;
    int mode;     /* enum layout_mode */
    int dtype;    /* enum cl_dtype of weights and GEMMs; training takes bf16
                     or fp8 (fp8 GEMMs, bf16 states) */
    int kv_dtype; /* serving: enum cl_dtype of the KV cache, bf16 or fp8 */
    double gpu_memory_utilization; /* fraction of HBM usable, (0, 1] */
    /* Training: achieved fraction of the GEMM peak, (0, 1]; 0 takes the
     * calibration's perf_gemm_eff() at one micro-batch's tokens. */
    double eff_compute;
    /* Serving: at most `batch` decode sequences per data-parallel rank
     * (vLLM's max_num_seqs per engine; the KV cache may hold fewer) at a
     * context of seq_tokens each, and a prefill of prefill_tokens.
     * Training: `batch` sequences of seq_tokens per step (the global
     * batch). */
    int64_t batch;
    int64_t seq_tokens;
    int64_t prefill_tokens;
    int tp_across_nodes; /* training: 1 allowed and flagged, 0 refused */
    /* Training: fraction of the data-parallel collectives hidden behind
     * the backward passes, [0, 1] (Megatron-LM's --overlap-grad-reduce
     * and --overlap-param-gather); 0, the default, exposes them all. */
    double dp_overlap;
    /* Training: fractions of the tensor/sequence-parallel and of the
     * expert all-to-all time hidden behind a micro-batch's compute, [0, 1]
     * (Megatron-LM's --tp-comm-overlap; DeepSeek-V3's DualPipe overlaps
     * the all-to-alls, docs/sources.md §12.4); at most the compute is hidden.
     * 0, the default, exposes them all. */
    double tp_overlap;
    double ep_overlap;
    /* Training, ZeRO-3: 1 gathers the parameters in the forward and the
     * backward of every micro-batch and reduce-scatters its gradients (3
     * Psi per micro-batch: what FSDP and DeepSpeed do with gradient
     * accumulation, since the whole parameters are never resident); 0,
     * the default, counts the ZeRO paper's 3 Psi per step (docs/sources.md
     * §12.3), i.e. one gather kept across the micro-batches. */
    int zero3_regather;
    /* Serving: the step-time model's expert-parallel and decoding knobs
     * (struct perf_layout), 0 for none. redundant_experts extra expert
     * slots (at most the routed experts) on every layout with ep > 1, which
     * must then divide routed + redundant slots (a layout where it does not
     * is refused, LAYOUT_NO_EP); micro_batches 2 runs the two-batch overlap
     * on layouts with pp 1 (those with pp > 1 run one, flagged in
     * layout_result micro_batches_fallback); spec_method an enum perf_spec
     * with spec_tokens (1..8) drafted per sequence and step at
     * spec_acceptance ([0, 1]); PERF_SPEC_MTP needs a model with an MTP
     * module. */
    int redundant_experts;
    int micro_batches;
    int spec_method;
    int spec_tokens;
    double spec_acceptance;
};

/* The traffic of one parallel dimension on a GPU of the first pipeline
 * stage. Serving counts one decode iteration of one micro-batch of the
 * reference batch, training one optimizer step. */
enum layout_traffic_kind {
    LAYOUT_TR_TP, /* tensor-parallel all-reduces */
    LAYOUT_TR_SP, /* sequence parallel: all-gathers and reduce-scatters */
    LAYOUT_TR_PP, /* pipeline send/recv between stages */
    LAYOUT_TR_DP, /* gradient all-reduce, or ZeRO's reduce-scatter and
                     all-gathers */
    LAYOUT_TR_EP, /* expert dispatch and combine all-to-alls */
    LAYOUT_TR_KINDS,
};

struct layout_traffic {
    int ranks;          /* group size; 0 when the kind is absent */
    double collectives; /* calls per step per GPU */
    double wire_bytes;  /* bytes one GPU sends per step: the busbw factor
                           (docs/sources.md §3.3) times each call's size */
    double time_ns;     /* per step, from net_coll_ns() */
    int crosses_nodes;  /* 1 if the group spans nodes */
    const char *link;   /* name of the slowest link crossed, static */
};

/* Why a layout does not fit; LAYOUT_FITS when it does. */
enum layout_verdict {
    LAYOUT_FITS,
    LAYOUT_NO_HEADS,     /* tp does not split the attention heads */
    LAYOUT_NO_TP_NODES,  /* tp spans nodes: serving, or tp_across_nodes 0 */
    LAYOUT_NO_EP,        /* ep does not divide the experts or the group */
    LAYOUT_NO_PP_LAYERS, /* pp > layers */
    LAYOUT_NO_BATCH,     /* the batch does not split over dp and m */
    LAYOUT_NO_WEIGHTS,   /* weights alone exceed the usable memory */
    LAYOUT_NO_KV,        /* KV cache below one block, or one sequence */
    LAYOUT_NO_MEMORY,    /* training states plus activations too large */
    LAYOUT_NO_NETWORK,   /* a group cannot be priced over its links */
    LAYOUT_NO_REPLICA,   /* serving: the step-time model refuses it */
};

/* One evaluated layout. Memory is per GPU on the fullest pipeline stage. */
struct layout_result {
    struct layout l; /* as evaluated, AUTO and -1 resolved */
    int verdict;     /* enum layout_verdict */
    char why[256];   /* lower-case reason, "" when it fits */
    int tp_crosses_nodes;
    double weight_bytes;  /* weights held (serving: dtype; training: bf16) */
    double kv_bytes;      /* serving: KV cache (what is left for it) */
    double grad_bytes;    /* training */
    double optim_bytes;   /* training: FP32 master, momentum, variance */
    double act_bytes;     /* training: activations in flight */
    double reserve_bytes; /* serving: activations and workspace */
    double total_bytes;   /* the sum of the above */
    double usable_bytes;  /* gpu_memory_utilization * HBM */
    double kv_bytes_per_token; /* serving: per GPU */
    int64_t kv_tokens;         /* serving: KV capacity per dp rank */
    int64_t batch_seqs;        /* serving: sequences decoding per dp rank (the
                                  reference batch, capped by the KV cache), split
                                  into pp micro-batches */
    struct layout_traffic traffic[LAYOUT_TR_KINDS]; /* by kind */
    double bubble;       /* (p - 1) / (m + p - 1) of the step; serving 0 */
    double compute_ns;   /* serving: a micro-batch's decode iteration less
                            communication and host time; training: FLOPs /
                            (eff * peak) of the slowest stage */
    double comm_ns;      /* exposed communication per step */
    double step_ns;      /* serving: the decode cycle in which every sequence
                            advances one token (perf_saturate(): the
                            inter-token latency); training: one optimizer
                            step */
    double prefill_ns;   /* serving: one prompt of prefill_tokens on every
                            dp rank at once */
    double tokens_per_s; /* serving: decode tokens/s of all replicas;
                            training: tokens/s trained */
    double mfu;          /* training: 6 N_active tokens / (step * N * peak) */
    /* Training: the parts of step_ns, which they sum to (slowest stage):
     * fwd_bwd_ns the m micro-batches' forward and backward (and
     * recomputation) compute, GEMMs, attention and element-wise kernels;
     * tp_ns, ep_ns and pp_ns their tensor/sequence-parallel, expert and
     * pipeline collectives as far as tp_overlap and ep_overlap leave them
     * exposed (hidden_ns the rest); bubble_ns the idle
     * pipeline slots; dp_exposed_ns what dp_overlap leaves of dp_ns, the
     * data-parallel collectives (ZeRO-3 parameter gathers included);
     * optim_ns the Adam update of the GPU's optimizer shard (HBM-bound).
     * compute_ns = fwd_bwd_ns + optim_ns; comm_ns = tp_ns + ep_ns + pp_ns +
     * dp_exposed_ns. */
    double fwd_bwd_ns, tp_ns, ep_ns, pp_ns, bubble_ns;
    double dp_ns, dp_exposed_ns, optim_ns;
    double hidden_ns;   /* training: tp and ep time hidden by overlap */
    double elem_ns;     /* training: of fwd_bwd_ns, element-wise kernels */
    double model_flops; /* training: per step, 6 N_active + attention per
                           token (the MFU numerator) */
    double hfu;         /* training: MFU with recomputation's FLOPs counted */
    /* Serving, per GPU, of layouts that fit (eval_serving(); 0 otherwise):
     * expert slots of the replica (routed + redundant; the routed experts
     * with ep 1), slots each GPU holds (the routed experts, split over tp,
     * with ep 1) and the redundant ones; the micro-batches the decode
     * iteration ran (1 or 2) and 1 when the setup's 2 fell back to 1 for
     * pp > 1; the EP all-to-all's kernel class (enum perf_a2a) and its
     * total, hidden and exposed time over every MoE layer of one decode
     * iteration (of one pipeline micro-batch, ceil(batch / pp) sequences,
     * when pp > 1; hidden + exposed = total); the imbalance used (1
     * without ep); the expected tokens a sequence emits per step (1
     * without speculation); the tokens each GPU runs per decode step, its
     * dp rank's batch_seqs times 1 + drafted tokens; and tokens_per_s /
     * gpus. */
    int expert_slots, slots_per_gpu, redundant_slots;
    int serve_micro_batches, micro_batches_fallback;
    int a2a_class;
    double a2a_total_ns, a2a_hidden_ns, a2a_exposed_ns;
    double expert_imbalance;
    double spec_tokens_per_step;
    double decode_tokens_per_gpu;
    double tokens_per_s_per_gpu;
};

/*
 * Fills s with a, g, gpus and mode and the defaults: 8 GPUs per node, one
 * NIC per GPU, the built-in calibration of g (perf_calib_resolve(NULL, g):
 * its intra-node link and ib-ndr between nodes), the model's released
 * weight dtype (bf16 when training), a bf16 KV cache,
 * gpu_memory_utilization 0.9 (the scenario schema's default, vLLM's 0.90,
 * docs/sources.md §5.1), eff_compute 0 (calibrated), tp across nodes allowed;
 * serving: perf_default_max_num_seqs(g) decode sequences per dp rank at a
 * context of 4,096 and a prefill of 8,192 tokens (vLLM's API-server token
 * budget on >= 70 GiB GPUs, docs/sources.md §5.1); training: a global batch of
 * 1,024 sequences of 4,096 tokens (4M tokens, Llama 2's batch, docs/sources.md
 * §4.1). Returns 0, or SIM_EINVAL (s zeroed) for a NULL entry, gpus < 1 or
 * an unknown mode.
 */
int layout_setup_init(struct layout_setup *s, const struct arch_spec *a,
                      const struct gpu_spec *g, int gpus, int mode);

/*
 * Evaluates layout l on setup s into out (always filled on return 0, the
 * verdict saying whether it fits). Returns SIM_EINVAL, with a reason in
 * out->why and the rest of out zeroed, when s or l is malformed: a degree
 * below 1, dp * tp * pp != gpus, a ZeRO stage outside 0..3, a dtype the
 * mode cannot use, or a setup field out of range.
 */
int layout_eval(const struct layout_setup *s, const struct layout *l,
                struct layout_result *out);

/*
 * Evaluates every layout of s: each (dp, tp, pp) with dp * tp * pp = gpus;
 * for MoE models each ep in {1} and every multiple of tp above 1 dividing
 * tp * dp and the routed experts (or, with redundant_experts, the routed +
 * redundant slots); when training, each ZeRO stage 0..3 with
 * micro-batches of one sequence, recomputation AUTO and sequence
 * parallelism on. Sorted feasible first, then by tokens/s (descending),
 * then by total memory per GPU, then by (tp, pp, dp, ep, zero); infeasible
 * layouts follow in (tp, pp, dp, ep, zero) order. On success *out is an
 * array of *n results the caller frees with free(); returns 0, or
 * SIM_EINVAL when s is malformed (*out NULL, *n 0).
 */
int layout_enumerate(const struct layout_setup *s, struct layout_result **out,
                     int *n);

/* The order of layout_enumerate() for qsort() over struct layout_result:
 * feasible first, then tokens/s descending, total memory ascending, then
 * (tp, pp, dp, ep, zero). */
int layout_result_cmp(const void *a, const void *b);

/* The best feasible layout of s into out: the first of
 * layout_enumerate(). Returns 0, SIM_EINFEASIBLE when none fits (out then
 * holds the first infeasible one), or SIM_EINVAL. */
int layout_best(const struct layout_setup *s, struct layout_result *out);

/* The 1F1B (and GPipe) pipeline bubble as a fraction of the step,
 * (p - 1) / (m + p - 1): docs/sources.md §12.4 gives bubble / ideal = (p - 1) /
 * m, and the step is ideal + bubble. 0 for p <= 1 or m < 1. */
double layout_bubble(int pp, int micro_batches);

/* The interleaved 1F1B bubble with v model chunks per GPU as a fraction of
 * the step, (p - 1) / (v m + p - 1): docs/sources.md §12.4 gives bubble / ideal
 * = (p - 1) / (v m). v <= 1 is layout_bubble(). 0 for p <= 1 or m < 1. */
double layout_bubble_interleaved(int pp, int micro_batches, int chunks);

/* Bytes one Adam step reads and writes per parameter of the optimizer
 * shard (mixed precision, docs/sources.md §12.3): FP32 master, momentum and
 * variance read and written (24), the bf16 gradient read (2) and the bf16
 * weight written (2): 28. */
#define LAYOUT_ADAM_BYTES_PER_PARAM 28.0

/* Bytes of model states one GPU holds for params parameters under ZeRO
 * stage zero (0..3) over nd data-parallel ranks, mixed-precision Adam
 * (docs/sources.md §12.3, K = 12): 16 params at stage 0; 4 params + 12 params /
 * nd at stage 1; 2 params + 14 params / nd at stage 2; 16 params / nd at
 * stage 3. weights, grads and optim, if not NULL, receive the three parts.
 * Returns -1.0 for a stage outside 0..3 or nd < 1 (the parts then 0). */
double layout_zero_bytes(double params, int zero, int nd, double *weights,
                         double *grads, double *optim);

/* Activation bytes one transformer layer of a keeps per micro-batch of
 * micro_batch sequences of seq tokens on one of tp ranks (docs/sources.md
 * §12.2, Korthikanti et al.), with the per-tensor constant recomputed for a's
 * attention and SwiGLU or MoE MLP (moe_layer != 0 for a MoE layer):
 * none: sbh (10 + (c - 10) / t + 5as / (ht)), or with sequence parallelism
 * sbh (c / t + 5as / (ht)); selective: the same without the 5as/(ht)
 * term; full: 2sbh. c is 34 for a GPT layer. Returns -1.0 on bad input. */
double layout_act_bytes_per_layer(const struct arch_spec *a, int moe_layer,
                                  double seq, double micro_batch, int tp,
                                  int seq_parallel, int recompute);

/* The per-tensor constant c of layout_act_bytes_per_layer(): 34 for the
 * GPT layer of docs/sources.md §12.2, derived for a's attention and MLP. */
double layout_act_constant(const struct arch_spec *a, int moe_layer);

/* Writes l compactly, e.g. "dp2 tp8 pp1 ep16" (serving) or "dp4 tp4 pp1
 * z1" (training, ep shown when > 1), into buf of len bytes. */
void layout_format(const struct layout *l, int mode, char *buf, size_t len);

/* Static lower-case names: "tp", "sp", "pp", "dp", "ep"; "none",
 * "selective", "full", "auto"; "fits", "heads", "tp-nodes", "ep",
 * "pp-layers", "batch", "weights", "kv", "memory", "network", "replica".
 * "?" for an unknown value. */
const char *layout_traffic_name(int kind);
const char *layout_recompute_name(int recompute);
const char *layout_verdict_name(int verdict);

#endif /* LAYOUT_LAYOUT_H */
