/*
 * Calibration profiles: the built-in defaults, the YAML loader and the
 * resolution of one GPU kind's constants.
 *
 * The built-in values and where each comes from (docs/step-time.md has the
 * fit and its error table):
 *
 * - GEMMs, "default" entry: eta(M) = 0.74 * M / (M + 80), HBM fraction
 *   0.80, 6 us per kernel as profiled (4 us GPU-side + the 2 us eager
 *   launch below). Fitted (grid search, least mean absolute
 *   percentage error) on the Vidur A100 per-operator medians of the four
 *   GEMMs of eight models at TP 1-8 and 1-32,768 tokens
 *   (shared/reference/vidur, microsoft/vidur @ 7d47513, 36,516 rows),
 *   tests/vidur-check. The asymptote sits inside the kernel authors'
 *   anchors of docs/sources.md §1.3 (FlashMLA BF16 67 %, DeepGEMM FP8 78 %) and
 *   the HBM fraction below FlashMLA's 90 %.
 * - Elementwise kernels: HBM fraction 0.46 and 2.5 us per kernel (0.5 us
 *   GPU-side + the eager launch), fitted on the same files' norms, rotary
 *   embedding and activation.
 * - Launch: Vidur profiles each operator alone, so its fixed times hold
 *   one eager launch gap; 2 us of each is taken as that gap (bounded by
 *   the smallest fitted fixed time, elementwise 2.5 us; kernel launch
 *   latencies of 2-5 us are from recall, unverified) and the class kernel
 *   times are the rest, GPU-side. Inside a CUDA graph a kernel pays 1 us
 *   instead (from recall, unverified; chosen so that graphs save little).
 * - GEMMs, Hopper entries (h100, h200, h800; b200 falls back to them): HBM
 *   fraction 0.85 for memory-bound GEMMs, between the A100 fit (0.80) and
 *   FlashMLA's 3,000 of 3,350 GB/s on H800 (0.90, docs/sources.md §1.3): HBM3
 *   streams at ~90 % of its peak on H100 where HBM2e reached ~85-90 % on
 *   A100 (from recall, unverified). The rest is the default entry.
 * - l40s (Ada) and a100 (Ampere) share the A100 attention fit
 *   (FlashAttention-2 class kernels; Ada has no FlashAttention-3); mi300x
 *   (CDNA3) has no figures and uses the default entry.
 * - Attention, "default" entry: FlashMLA's compute-bound 67 % of BF16 peak
 *   and memory-bound 90 % of HBM on H800 (docs/sources.md §1.3), the Hopper
 * kernel authors' figures; 15 us per kernel from the A100 fit below (assumption
 * for other GPUs).
 * - Attention, "a100" entry: 28 % of peak, 78 % of HBM, 15 us per kernel
 *   (13 us GPU-side + the eager launch),
 *   fitted on Vidur's FlashAttention profile of CodeLlama-34B at TP 2 on
 *   A100 (legacy/acb95f6 attention.csv, 14,658 rows).
 * - Host overhead, "default": 126 us per iteration and 4 us per sequence,
 *   BLIS's H100 fit (inference-sim @ f90a1e3 via docs/sources.md §5.4).
 * - Host overhead, "a100": 870 us per iteration and 42 us per sequence,
 *   the line through Vidur's A100 CPU overheads of Llama-2-7B at TP 1
 *   (1.2 ms at batch 8, 6.2 ms at 128, docs/sources.md §5.4; derived).
 * - Expert-parallel all-to-all, "default": DeepEP's tables on H800 with
 *   NVLink at 200 GB/s per direction and one CX7 400 Gb/s NIC (50 GB/s)
 *   per GPU (deepseek-ai/DeepEP @ 0297fc80 docs/legacy.md via docs/sources.md
 *   §14), as ratios to those links so that other GPUs scale with their
 *   own: normal kernels intranode 0.78 (dispatch 153, combine 158 GB/s;
 *   mean 155.5 / 200) and internode 1.0 (43-58 GB/s at EP 16-64, mean 50.3
 *   / 50); low-latency kernels base + local bytes / (1.01 x 200 GB/s) +
 *   remote bytes / (0.97 x 50 GB/s) with base 37 us, a least-squares fit
 *   of relative error to the twelve dispatch and combine latencies at EP
 *   8-256 (128 tokens, hidden 7,168, top-8), worst error 15 %
 *   (docs/step-time.md; tests/check_models_step.c keeps the table). The
 *   normal kernels' fixed time is not in the tables (bandwidth at 4,096
 *   tokens only): the low-latency base is taken for it (assumption).
 *
 * The loader is the toolbox's YAML-over-rows walker (base/yaml-rows.h)
 * over the sim_param rows below, so units, ranges and messages are those
 * of the scenario language; check_profile() adds what rows cannot say.
 */
#include "models/perf/calib.h"

#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define GT SIM_PF_MIN_EXCL
#define REQ SIM_PF_REQUIRED

/* The smallest efficiency (a fraction of a peak) and all-to-all bandwidth
 * ratio a profile may give: 0.1 %. Every time the model prices is work
 * over such a figure, so a tiny one (1e-300) made step times overflow to
 * negative ones (issue #22); the lowest built-in figure is 0.28, and 0.1 %
 * still keeps a step of any scenario's batch far inside int64
 * nanoseconds (docs/calibration.md "Ranges"). */
#define EFF_MIN 1e-3
#define EFF_WHY "; at least 0.001, as a tinier figure overflows step times"

/* ---- built-in profile ---- */

#define UNSET_GEMM                                                             \
    {                                                                          \
        .eff_max = NAN, .half_tokens = NAN, .eff_memory = NAN, .kernel_ns = -1 \
    }
#define UNSET_ATTN                                                             \
    {                                                                          \
        .eff_compute = NAN, .eff_memory = NAN, .kernel_ns = -1                 \
    }
#define UNSET_ELEM                                                             \
    {                                                                          \
        .eff_memory = NAN, .kernel_ns = -1                                     \
    }
#define UNSET_LAUNCH                                                           \
    {                                                                          \
        .eager_ns = -1, .graph_ns = -1                                         \
    }
#define UNSET_FRONTEND                                                         \
    {                                                                          \
        .request_ns = -1, .per_prompt_token_ns = -1, .per_output_token_ns = -1 \
    }
#define UNSET_ALLTOALL                                                         \
    {                                                                          \
        .normal_intranode = NAN, .normal_internode = NAN,                      \
        .normal_base_ns = -1, .low_latency_intranode = NAN,                    \
        .low_latency_internode = NAN, .low_latency_base_ns = -1                \
    }

/* Hopper (and Blackwell, which falls back to it): memory-bound GEMMs at
 * 0.85 of HBM, between the A100 fit's 0.80 and FlashMLA's 0.90 on H800
 * (docs/sources.md §1.3); file comment. */
#define HOPPER_ENTRY(gpu)                                                      \
    {                                                                          \
        .name = (char *)(gpu),                                                 \
        .gemm = {.eff_max = NAN,                                               \
                 .half_tokens = NAN,                                           \
                 .eff_memory = 0.85,                                           \
                 .kernel_ns = -1},                                             \
        .attn = UNSET_ATTN, .elem = UNSET_ELEM, .launch = UNSET_LAUNCH,        \
        .frontend = UNSET_FRONTEND, .alltoall = UNSET_ALLTOALL,                \
        .iteration_overhead_ns = -1, .seq_overhead_ns = -1,                    \
    }

/* Ampere-era attention (FlashAttention-2 class kernels): the A100 fit; Ada
 * (L40S) has no FlashAttention-3 and uses it too. */
#define FA2_ATTN                                                               \
    {                                                                          \
        .eff_compute = 0.28, .eff_memory = 0.78, .kernel_ns = 13000            \
    }

static const struct perf_calib_gpu builtin_gpus[] = {
    {
        .name = (char *)PERF_CALIB_DEFAULT_GPU,
        /* Vidur A100 GEMM fit (file comment); inside docs/sources.md §1.3.
         * Kernel times are the fit's fixed times less the eager launch. */
        .gemm = {.eff_max = 0.74,
                 .half_tokens = 80.0,
                 .eff_memory = 0.80,
                 .kernel_ns = 4000},
        /* FlashMLA on H800, docs/sources.md §1.3; kernel time: A100 fit. */
        .attn = {.eff_compute = 0.67, .eff_memory = 0.90, .kernel_ns = 13000},
        /* Vidur A100 norm/rope/activation fit (file comment). */
        .elem = {.eff_memory = 0.46, .kernel_ns = 500},
        /* Launch per kernel, eager and in a CUDA graph (file comment). */
        .launch = {.eager_ns = 2000, .graph_ns = 1000},
        /* The API front end: assumptions from recall (unverified),
         * docs/serving.md "Front end". */
        .frontend = {.request_ns = 2000000,
                     .per_prompt_token_ns = 1000,
                     .per_output_token_ns = 30000},
        /* DeepEP on H800 (NVLink 200 GB/s per direction, CX7 400 Gb/s =
         * 50 GB/s per GPU), docs/legacy.md via docs/sources.md §14, file
         * comment: normal kernels' mean bandwidths, low-latency kernels' fit.
         */
        .alltoall = {.normal_intranode = 0.78,
                     .normal_internode = 1.0,
                     .normal_base_ns = 37000,
                     .low_latency_intranode = 1.01,
                     .low_latency_internode = 0.97,
                     .low_latency_base_ns = 37000},
        /* BLIS H100 fit, docs/sources.md §5.4: beta7 126 us, beta6 4 us. */
        .iteration_overhead_ns = 126000,
        .seq_overhead_ns = 4000,
    },
    {
        .name = (char *)"a100",
        .gemm = UNSET_GEMM,
        /* Vidur A100 FlashAttention fit (file comment). */
        .attn = FA2_ATTN,
        .elem = UNSET_ELEM,
        .launch = UNSET_LAUNCH,
        .frontend = UNSET_FRONTEND,
        .alltoall = UNSET_ALLTOALL,
        /* Vidur A100 CPU overheads, docs/sources.md §5.4 (derived line). */
        .iteration_overhead_ns = 870000,
        .seq_overhead_ns = 42000,
    },
    HOPPER_ENTRY("b200"),
    HOPPER_ENTRY("h100"),
    HOPPER_ENTRY("h200"),
    HOPPER_ENTRY("h800"),
    {
        .name = (char *)"l40s",
        .gemm = UNSET_GEMM,
        .attn = FA2_ATTN,
        .elem = UNSET_ELEM,
        .launch = UNSET_LAUNCH,
        .frontend = UNSET_FRONTEND,
        .alltoall = UNSET_ALLTOALL,
        .iteration_overhead_ns = -1,
        .seq_overhead_ns = -1,
    },
};

const struct perf_calib perf_calib_builtin = {
    .file = (char *)"built-in defaults",
    .format = PERF_CALIB_FORMAT,
    .tool = (char *)"dsec built-in defaults",
    .date = (char *)"2026-11-30",
    .host = NULL,
    .raw_log = NULL,
    .note = (char *)"docs/step-time.md",
    .gpus = (struct perf_calib_gpu *)builtin_gpus,
    .ngpus = (int)(sizeof(builtin_gpus) / sizeof(builtin_gpus[0])),
    .links = NULL,
    .nlinks = 0,
};

/* ---- parameter rows ---- */

#define GEMM(f) offsetof(struct perf_calib_gemm, f)
#define ATTN(f) offsetof(struct perf_calib_attn, f)
#define ELEM(f) offsetof(struct perf_calib_elem, f)
#define LAUNCH(f) offsetof(struct perf_calib_launch, f)
#define FRONT(f) offsetof(struct perf_calib_frontend, f)
#define A2A(f) offsetof(struct perf_calib_alltoall, f)
#define GPU(f) offsetof(struct perf_calib_gpu, f)
#define LINK(f) offsetof(struct perf_calib_link, f)
#define CAL(f) offsetof(struct perf_calib, f)

static const struct sim_param gemm_rows[] = {
    {"efficiency_max", SIM_PT_DOUBLE, SIM_U_FRACTION, EFF_MIN, 1, 0, NULL,
     "achieved fraction of peak FLOP/s of a GEMM with many rows" EFF_WHY,
     GEMM(eff_max), NULL, NULL},
    {"half_tokens", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, 1e6, 0, NULL,
     "rows (tokens) at which a GEMM reaches half of efficiency_max",
     GEMM(half_tokens), NULL, NULL},
    {"hbm_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, EFF_MIN, 1, 0, NULL,
     "achieved fraction of peak HBM bandwidth of a memory-bound GEMM" EFF_WHY,
     GEMM(eff_memory), NULL, NULL},
    {"kernel_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed GPU time of one GEMM kernel", GEMM(kernel_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param attn_rows[] = {
    {"compute_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, EFF_MIN, 1, 0, NULL,
     "achieved fraction of peak bf16 FLOP/s of attention kernels" EFF_WHY,
     ATTN(eff_compute), NULL, NULL},
    {"hbm_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, EFF_MIN, 1, 0, NULL,
     "achieved fraction of peak HBM bandwidth reading the KV cache" EFF_WHY,
     ATTN(eff_memory), NULL, NULL},
    {"kernel_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed GPU time of one attention kernel", ATTN(kernel_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param elem_rows[] = {
    {"hbm_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, EFF_MIN, 1, 0, NULL,
     "achieved fraction of peak HBM bandwidth of norms and activations" EFF_WHY,
     ELEM(eff_memory), NULL, NULL},
    {"kernel_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed GPU time of one elementwise kernel", ELEM(kernel_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param launch_rows[] = {
    {"eager", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "launch cost added to every kernel run outside a CUDA graph",
     LAUNCH(eager_ns), NULL, NULL},
    {"graph", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "launch cost added to every kernel replayed in a CUDA graph",
     LAUNCH(graph_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param frontend_rows[] = {
    {"request", SIM_PT_DURATION, SIM_U_SECONDS, 0, 10, 0, NULL,
     "API front end per request, before the engine queue (HTTP, "
     "validation, hand-off to the engine process)",
     FRONT(request_ns), NULL, NULL},
    {"per_prompt_token", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "tokenisation per prompt token, before the engine queue",
     FRONT(per_prompt_token_ns), NULL, NULL},
    {"per_output_token", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "detokenisation and streaming per output token, after the engine",
     FRONT(per_output_token_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param alltoall_rows[] = {
    {"normal_intranode", SIM_PT_DOUBLE, SIM_U_NONE, EFF_MIN, 4, 0, NULL,
     "DeepEP normal kernels (batches with a prefill) within a node: "
     "bandwidth per GPU over the intra link's nominal per-direction "
     "bandwidth" EFF_WHY,
     A2A(normal_intranode), NULL, NULL},
    {"normal_internode", SIM_PT_DOUBLE, SIM_U_NONE, EFF_MIN, 4, 0, NULL,
     "DeepEP normal kernels across nodes: RDMA bandwidth per GPU (one copy "
     "per destination node) over the inter link's nominal share per "
     "GPU" EFF_WHY,
     A2A(normal_internode), NULL, NULL},
    {"normal_base", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed time of one normal dispatch or combine", A2A(normal_base_ns), NULL,
     NULL},
    {"low_latency_intranode", SIM_PT_DOUBLE, SIM_U_NONE, EFF_MIN, 4, 0, NULL,
     "DeepEP low-latency kernels (decode-only batches): bandwidth of the "
     "token-expert pairs to the same node over the intra link's nominal "
     "bandwidth" EFF_WHY,
     A2A(low_latency_intranode), NULL, NULL},
    {"low_latency_internode", SIM_PT_DOUBLE, SIM_U_NONE, EFF_MIN, 4, 0, NULL,
     "DeepEP low-latency kernels: RDMA bandwidth of the pairs to other "
     "nodes over the inter link's nominal share per GPU" EFF_WHY,
     A2A(low_latency_internode), NULL, NULL},
    {"low_latency_base", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed time of one low-latency dispatch or combine",
     A2A(low_latency_base_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* uncertainty: a map of scalars (key: standard error, parsed by the key's
 * own row in check_unc()), a list of correlations and the structural
 * error. */
#define UNC(f) offsetof(struct perf_calib_unc, f)
#define CORR(f) offsetof(struct perf_calib_corr, f)
#define STRUCT(f) offsetof(struct perf_calib_structural, f)

static const struct sim_param corr_rows[] = {
    {"a", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "a key with a standard error", CORR(a), NULL, NULL},
    {"b", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "another key of the same fit", CORR(b), NULL, NULL},
    {"r", SIM_PT_DOUBLE, SIM_U_NONE, -1, 1, REQ, NULL,
     "their correlation coefficient", CORR(r), NULL, NULL},
    SIM_PARAM_END_LIST(struct perf_calib_corr),
};

static const struct sim_param structural_rows[] = {
    {"ttft", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 10, 0, NULL,
     "relative standard deviation of the model's TTFT error", STRUCT(ttft),
     NULL, NULL},
    {"tpot", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 10, 0, NULL,
     "relative standard deviation of the model's per-token time error",
     STRUCT(tpot), NULL, NULL},
    {"e2e", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 10, 0, NULL,
     "relative standard deviation of the model's end-to-end latency error",
     STRUCT(e2e), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param unc_rows[] = {
    {"std_errors", SIM_PT_MAP, SIM_U_NONE, 0, PERF_CALIB_MAX_UNC, 0, NULL,
     "key of this entry -> its standard error, in the key's unit",
     UNC(std_errors), NULL, NULL},
    {"correlation", SIM_PT_LIST, SIM_U_NONE, 0, PERF_CALIB_MAX_UNC * 8, 0, NULL,
     "correlations of keys fitted together (absent pairs: 0)", UNC(correlation),
     NULL, corr_rows},
    {"structural", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the model's own error left in a serving fit's residuals", UNC(structural),
     NULL, structural_rows},
    {"fit", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "what was fitted to what", UNC(fit), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

SIM_PARAM_COUNT_AFTER(struct perf_calib_unc, std_errors, nstd_errors);
SIM_PARAM_COUNT_AFTER(struct perf_calib_unc, correlation, ncorrelation);

const struct sim_param perf_calib_gpu_rows[] = {
    {"gemm", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "GEMM efficiency curve", GPU(gemm), NULL, gemm_rows},
    {"attention", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "attention kernels", GPU(attn), NULL, attn_rows},
    {"elementwise", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "norms, rotary embedding, activation, residual add", GPU(elem), NULL,
     elem_rows},
    {"launch", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "kernel launch, eager and in CUDA graphs", GPU(launch), NULL, launch_rows},
    {"frontend", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the API front end, outside the step (server.frontend replaces it)",
     GPU(frontend), NULL, frontend_rows},
    {"alltoall", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "expert-parallel all-to-all by DeepEP kernel class", GPU(alltoall), NULL,
     alltoall_rows},
    {"iteration_overhead", SIM_PT_DURATION, SIM_U_SECONDS, 0, 10, 0, NULL,
     "host time per engine iteration", GPU(iteration_overhead_ns), NULL, NULL},
    {"sequence_overhead", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "host time per sequence in the batch", GPU(seq_overhead_ns), NULL, NULL},
    {"uncertainty", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "standard errors, correlations and structural error of the values",
     GPU(unc), NULL, unc_rows},
    SIM_PARAM_END_LIST(struct perf_calib_gpu),
};

const struct sim_param perf_calib_link_rows[] = {
    {"alpha", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL, "per-step latency",
     LINK(alpha_ns), NULL, NULL},
    {"bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, GT, NULL,
     "nominal bandwidth per direction", LINK(bytes_per_s), NULL, NULL},
    {"efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, EFF_MIN, 1, 0, NULL,
     "achieved fraction of the bandwidth" EFF_WHY, LINK(efficiency), NULL,
     NULL},
    {"custom_allreduce_latency", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, GT, NULL,
     "one barrier of vLLM's custom all-reduce over this link (default: the "
     "class's NCCL LL per-step latency scaled by alpha, NVLink 0.6 us, "
     "docs/hardware.md)",
     LINK(car_sync_ns), NULL, NULL},
    {"uncertainty", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "standard errors and correlations of the values (structural: none)",
     LINK(unc), NULL, unc_rows},
    SIM_PARAM_END_LIST(struct perf_calib_link),
};

static const struct sim_param provenance_rows[] = {
    {"tool", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "tool and version that wrote the profile", CAL(tool), NULL, NULL},
    {"date", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "date of the measurement, ISO 8601", CAL(date), NULL, NULL},
    {"host", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "host or node measured", CAL(host), NULL, NULL},
    {"raw_log", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "raw log file of the measurement", CAL(raw_log), NULL, NULL},
    {"note", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL, "free text",
     CAL(note), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* The root keys. gpus and links are maps of named sections (the name
 * goes to the entry's first member, base/yaml-rows.h). */
const struct sim_param perf_calib_rows[] = {
    {"format", SIM_PT_INT, SIM_U_NONE, 1, 1e6, REQ, NULL, "profile format, 1",
     CAL(format), NULL, NULL},
    {"provenance", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "who measured what, when", 0, NULL, provenance_rows},
    {"gpus", SIM_PT_MAP, SIM_U_NONE, 0, PERF_CALIB_MAX_GPUS, 0, NULL,
     "GPU kind -> constants", CAL(gpus), NULL, perf_calib_gpu_rows},
    {"links", SIM_PT_MAP, SIM_U_NONE, 0, PERF_CALIB_MAX_LINKS, 0, NULL,
     "link class -> constants", CAL(links), NULL, perf_calib_link_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- loader ---- */

/* The given key of entry name of the map ("gpus", "links"), or NULL. */
static const struct sim_yaml_seen *entry_at(const struct sim_yaml *y,
                                            const char *map, const char *name)
{
    char *path = xasprintf("%s.%s", map, name);
    const struct sim_yaml_seen *at = sim_yaml_seen(y, path);

    free(path);
    return at;
}

/* uncertainty.std_errors pairs, parsed later by check_unc(). */
static void fill_se(void *elem, const char *key, const char *value,
                    const struct sim_yaml_seen *at)
{
    struct perf_calib_se *e = elem;

    e->key = xstrdup(key);
    e->text = xstrdup(value);
    e->line = at->vline;
    e->col = at->vcol;
    e->se = NAN;
}

static const struct sim_yaml_ops calib_yaml_ops = {
    .map_fill = fill_se,
    .map_size = sizeof(struct perf_calib_se),
};

/* The index of key among u's standard errors, or -1. */
static int se_index(const struct perf_calib_unc *u, const char *key)
{
    for (int i = 0; i < u->nstd_errors; i++)
        if (strcmp(u->std_errors[i].key, key) == 0)
            return i;
    return -1;
}

/* The covariance matrix of u (n = u->nstd_errors) into cov. */
static void unc_covariance(const struct perf_calib_unc *u, double *cov)
{
    int n = u->nstd_errors;

    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            cov[i * n + j] =
                i == j ? u->std_errors[i].se * u->std_errors[i].se : 0.0;
    for (int c = 0; c < u->ncorrelation; c++) {
        int i = se_index(u, u->correlation[c].a);
        int j = se_index(u, u->correlation[c].b);
        if (i < 0 || j < 0 || i == j)
            continue;
        cov[i * n + j] = cov[j * n + i] =
            u->correlation[c].r * u->std_errors[i].se * u->std_errors[j].se;
    }
}

/* An entry's uncertainty section (path "gpus.NAME" or "links.NAME"): each
 * standard error names a numeric key that the entry gives and parses by
 * that key's row (>= 0); each correlation names two such keys, once; the
 * covariance is positive semidefinite. */
static void check_unc(struct sim_yaml *y, const char *path, void *entry,
                      struct perf_calib_unc *u, int link)
{
    const struct sim_yaml_seen *at;
    double cov[PERF_CALIB_MAX_UNC * PERF_CALIB_MAX_UNC];
    double l[PERF_CALIB_MAX_UNC * PERF_CALIB_MAX_UNC];
    int bad = 0;

    for (int i = 0; i < u->nstd_errors; i++) {
        struct perf_calib_se *e = &u->std_errors[i];
        struct perf_calib_key k;

        if (perf_calib_key_find(e->key, link, &k) != 0) {
            sim_yaml_error(y, e->line, e->col,
                           "%s.uncertainty.std_errors.%s: not a numeric key "
                           "of a %s entry",
                           path, e->key, link ? "link" : "GPU");
            bad = 1;
            continue;
        }
        if (isnan(perf_calib_key_get(&k, entry))) {
            sim_yaml_error(y, e->line, e->col,
                           "%s.uncertainty.std_errors.%s: the entry gives no "
                           "value of %s",
                           path, e->key, e->key);
            bad = 1;
            continue;
        }
        {
            /* Parse with the key's own row, from 0 up, into a scratch
             * entry of either kind. */
            /* Both entry kinds fit in it (cppcheck: members used only
             * through the offset). */
            union {
                struct perf_calib_gpu
                    g; /* cppcheck-suppress unusedStructMember */
                struct perf_calib_link
                    l; /* cppcheck-suppress unusedStructMember */
            } scratch;
            struct sim_param row = *k.row;
            char err[SIM_PARAM_ERRLEN];

            /* From 0 up to the key's own largest value: a larger error
             * squared overflows the covariance (issue #22). */
            memset(&scratch, 0, sizeof(scratch));
            row.min = 0;
            row.flags &= ~(unsigned)(SIM_PF_MIN_EXCL | SIM_PF_MAX_EXCL);
            row.offset = k.offset;
            if (sim_param_parse(&row, e->text, &scratch, err, sizeof(err)) !=
                0) {
                sim_yaml_error(y, e->line, e->col,
                               "%s.uncertainty.std_errors.%s: %s", path, e->key,
                               err);
                bad = 1;
                continue;
            }
            e->se = perf_calib_key_get(&k, &scratch);
        }
    }
    for (int c = 0; c < u->ncorrelation; c++) {
        const struct perf_calib_corr *r = &u->correlation[c];
        int i = se_index(u, r->a), j = se_index(u, r->b);
        const char *which = i < 0 ? r->a : r->b;

        at = sim_yaml_seenf(y, "%s.uncertainty.correlation[%d].%s", path, c,
                            i < 0 ? "a" : "b");
        if (i < 0 || j < 0) {
            sim_yaml_error(y, at ? at->vline : 0, at ? at->vcol : 0,
                           "%s.uncertainty.correlation[%d]: '%s' has no "
                           "standard error in std_errors",
                           path, c, which);
            bad = 1;
        } else if (i == j) {
            sim_yaml_error(y, at ? at->vline : 0, at ? at->vcol : 0,
                           "%s.uncertainty.correlation[%d]: a key correlates "
                           "with itself by 1; give pairs of two keys",
                           path, c);
            bad = 1;
        }
        for (int d = 0; d < c && !bad; d++) {
            const struct perf_calib_corr *q = &u->correlation[d];
            if ((strcmp(q->a, r->a) == 0 && strcmp(q->b, r->b) == 0) ||
                (strcmp(q->a, r->b) == 0 && strcmp(q->b, r->a) == 0)) {
                sim_yaml_error(y, at ? at->vline : 0, at ? at->vcol : 0,
                               "%s.uncertainty.correlation[%d]: the pair %s, "
                               "%s is given twice",
                               path, c, r->a, r->b);
                bad = 1;
            }
        }
    }
    if (bad || u->nstd_errors == 0)
        return;
    unc_covariance(u, cov);
    if (perf_cholesky_psd(cov, u->nstd_errors, l) != 0) {
        at = sim_yaml_seenf(y, "%s.uncertainty", path);
        sim_yaml_error(y, at ? at->kline : 0, at ? at->kcol : 0,
                       "%s.uncertainty: the correlations do not make a "
                       "covariance matrix (not positive semidefinite)",
                       path);
    }
}

/* What the rows cannot say: GPU and link names are matched ignoring case,
 * so two entries that differ only in case clash; a link entry must name a
 * catalog class; the format must be one this code reads. Reported at the
 * entry's key (the format's value). */
static void check_profile(struct sim_yaml *y, const struct perf_calib *cal)
{
    const struct sim_yaml_seen *at;

    for (int i = 0; i < cal->ngpus; i++) {
        at = entry_at(y, "gpus", cal->gpus[i].name);
        for (int j = 0; j < i && at != NULL; j++)
            if (strcasecmp(cal->gpus[i].name, cal->gpus[j].name) == 0) {
                sim_yaml_error(y, at->kline, at->kcol, "%s: duplicate entry",
                               at->path);
                break;
            }
    }
    for (int i = 0; i < cal->nlinks; i++) {
        const char *name = cal->links[i].name;

        at = entry_at(y, "links", name);
        if (at == NULL)
            continue;
        for (int j = 0; j < i; j++)
            if (strcasecmp(name, cal->links[j].name) == 0) {
                sim_yaml_error(y, at->kline, at->kcol, "%s: duplicate entry",
                               at->path);
                break;
            }
        if (net_link_find(name) == NULL) {
            char *names = net_link_names();
            sim_yaml_error(y, at->kline, at->kcol,
                           "links: unknown link class '%s'; valid: %s", name,
                           names);
            free(names);
        }
    }
    for (int i = 0; i < cal->ngpus; i++) {
        char *path = xasprintf("gpus.%s", cal->gpus[i].name);
        check_unc(y, path, &cal->gpus[i], &cal->gpus[i].unc, 0);
        free(path);
    }
    for (int i = 0; i < cal->nlinks; i++) {
        char *path = xasprintf("links.%s", cal->links[i].name);
        check_unc(y, path, &cal->links[i], &cal->links[i].unc, 1);
        free(path);
    }
    if (y->errors == 0 && cal->format != PERF_CALIB_FORMAT &&
        (at = sim_yaml_seen(y, "format")) != NULL)
        sim_yaml_error(y, at->vline, at->vcol,
                       "format: %d is not supported; valid: %d", cal->format,
                       PERF_CALIB_FORMAT);
}

/* The SHA-256 of len bytes as 64 hex digits (OpenSSL's libcrypto). */
static void sha256_hex(const char *text, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    out[0] = '\0';
    if (EVP_Digest(text, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
        return;
    for (unsigned int i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int perf_calib_load_string(const char *name, const char *text, size_t len,
                           struct perf_calib *out, struct sim_diag *d)
{
    struct perf_calib cal;
    struct sim_yaml y;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&cal, 0, sizeof(cal));
    sim_yaml_init(&y, name, d, &calib_yaml_ops);
    rc = sim_yaml_parse(&y, text, len, PERF_CALIB_MAX_BYTES);
    if (rc == 0) {
        sim_yaml_defaults(perf_calib_rows, &cal, "calibration");
        if (sim_yaml_walk(&y, perf_calib_rows, &cal,
                          "a mapping of profile keys") == 0)
            check_profile(&y, &cal);
        if (y.errors > 0)
            rc = SIM_EINVAL;
    }
    sim_yaml_fini(&y);
    if (rc != 0) {
        perf_calib_fini(&cal);
        return rc;
    }
    cal.file = xstrdup(name);
    sha256_hex(text, len, cal.sha256);
    *out = cal;
    return 0;
}

int perf_calib_load(const char *path, struct perf_calib *out,
                    struct sim_diag *d)
{
    size_t len = 0;
    char *text;
    int rc;

    memset(out, 0, sizeof(*out));
    text = sim_yaml_read_file(path, PERF_CALIB_MAX_BYTES, &len, d);
    if (text == NULL)
        return SIM_EIO;
    rc = perf_calib_load_string(path, text, len, out, d);
    free(text);
    return rc;
}

static void unc_fini(struct perf_calib_unc *u)
{
    for (int i = 0; i < u->nstd_errors; i++) {
        free(u->std_errors[i].key);
        free(u->std_errors[i].text);
    }
    free(u->std_errors);
    for (int i = 0; i < u->ncorrelation; i++) {
        free(u->correlation[i].a);
        free(u->correlation[i].b);
    }
    free(u->correlation);
    free(u->fit);
}

void perf_calib_fini(struct perf_calib *c)
{
    if (c == NULL)
        return;
    free(c->file);
    free(c->tool);
    free(c->date);
    free(c->host);
    free(c->raw_log);
    free(c->note);
    for (int i = 0; i < c->ngpus; i++) {
        free(c->gpus[i].name);
        unc_fini(&c->gpus[i].unc);
    }
    free(c->gpus);
    for (int i = 0; i < c->nlinks; i++) {
        free(c->links[i].name);
        unc_fini(&c->links[i].unc);
    }
    free(c->links);
    memset(c, 0, sizeof(*c));
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? xstrdup(s) : NULL;
}

static void unc_copy(const struct perf_calib_unc *s, struct perf_calib_unc *d)
{
    *d = *s;
    d->fit = dup_or_null(s->fit);
    d->std_errors = NULL;
    d->correlation = NULL;
    if (s->nstd_errors > 0) {
        d->std_errors = xcalloc((size_t)s->nstd_errors, sizeof(*d->std_errors));
        for (int i = 0; i < s->nstd_errors; i++) {
            d->std_errors[i] = s->std_errors[i];
            d->std_errors[i].key = xstrdup(s->std_errors[i].key);
            d->std_errors[i].text = dup_or_null(s->std_errors[i].text);
        }
    }
    if (s->ncorrelation > 0) {
        d->correlation =
            xcalloc((size_t)s->ncorrelation, sizeof(*d->correlation));
        for (int i = 0; i < s->ncorrelation; i++) {
            d->correlation[i].a = xstrdup(s->correlation[i].a);
            d->correlation[i].b = xstrdup(s->correlation[i].b);
            d->correlation[i].r = s->correlation[i].r;
        }
    }
}

void perf_calib_copy(const struct perf_calib *src, struct perf_calib *dst)
{
    memset(dst, 0, sizeof(*dst));
    dst->file = dup_or_null(src->file);
    memcpy(dst->sha256, src->sha256, sizeof(dst->sha256));
    dst->format = src->format;
    dst->tool = dup_or_null(src->tool);
    dst->date = dup_or_null(src->date);
    dst->host = dup_or_null(src->host);
    dst->raw_log = dup_or_null(src->raw_log);
    dst->note = dup_or_null(src->note);
    dst->ngpus = src->ngpus;
    dst->nlinks = src->nlinks;
    if (src->ngpus > 0) {
        dst->gpus = xcalloc((size_t)src->ngpus, sizeof(*dst->gpus));
        for (int i = 0; i < src->ngpus; i++) {
            dst->gpus[i] = src->gpus[i];
            dst->gpus[i].name = xstrdup(src->gpus[i].name);
            unc_copy(&src->gpus[i].unc, &dst->gpus[i].unc);
        }
    }
    if (src->nlinks > 0) {
        dst->links = xcalloc((size_t)src->nlinks, sizeof(*dst->links));
        for (int i = 0; i < src->nlinks; i++) {
            dst->links[i] = src->links[i];
            dst->links[i].name = xstrdup(src->links[i].name);
            unc_copy(&src->links[i].unc, &dst->links[i].unc);
        }
    }
}

/* ---- writer ---- */

static void write_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        if (*s == '\n')
            fputs("\\n", fp);
        else
            fputc(*s, fp);
    }
    fputc('"', fp);
}

/* A value of row r in its plain unit, as the loader reads it back. */
static void write_value(FILE *fp, const struct sim_param *r, double v)
{
    if (r->type == SIM_PT_DURATION)
        fprintf(fp, "%.10gus", v * 1e6);
    else
        fprintf(fp, "%.6g", v);
}

/* Does the struct at base give any value of rows (recursively)? */
static int rows_given(const struct sim_param *rows, const void *base)
{
    for (const struct sim_param *r = rows; r->key != NULL; r++) {
        struct perf_calib_key k = {.row = r, .offset = r->offset};
        if (r->type == SIM_PT_SECTION && r->sub != unc_rows &&
            rows_given(r->sub, (const char *)base + r->offset))
            return 1;
        if ((r->type == SIM_PT_DOUBLE || r->type == SIM_PT_DURATION) &&
            !isnan(perf_calib_key_get(&k, base)))
            return 1;
    }
    return 0;
}

/* The given keys of rows at base, as flow mappings for sections, one key a
 * line at indent. */
static void write_rows(FILE *fp, const struct sim_param *rows, const void *base,
                       int indent)
{
    for (const struct sim_param *r = rows; r->key != NULL; r++) {
        const void *sub = (const char *)base + r->offset;
        struct perf_calib_key k = {.row = r, .offset = r->offset};

        if (r->type == SIM_PT_SECTION && r->sub != unc_rows) {
            int first = 1;
            if (!rows_given(r->sub, sub))
                continue;
            fprintf(fp, "%*s%s: {", indent, "", r->key);
            for (const struct sim_param *q = r->sub; q->key != NULL; q++) {
                struct perf_calib_key kq = {.row = q, .offset = q->offset};
                double v = perf_calib_key_get(&kq, sub);
                if (isnan(v))
                    continue;
                fprintf(fp, "%s%s: ", first ? "" : ", ", q->key);
                write_value(fp, q, v);
                first = 0;
            }
            fputs("}\n", fp);
        } else if (r->type == SIM_PT_DOUBLE || r->type == SIM_PT_DURATION) {
            double v = perf_calib_key_get(&k, base);
            if (isnan(v))
                continue;
            fprintf(fp, "%*s%s: ", indent, "", r->key);
            write_value(fp, r, v);
            fputc('\n', fp);
        }
    }
}

static void write_unc(FILE *fp, const struct perf_calib_unc *u, int link,
                      int indent)
{
    const struct perf_calib_structural *st = &u->structural;
    int has_st = (!isnan(st->ttft) && st->ttft > 0) ||
                 (!isnan(st->tpot) && st->tpot > 0) ||
                 (!isnan(st->e2e) && st->e2e > 0);

    if (u->nstd_errors == 0 && !has_st)
        return;
    fprintf(fp, "%*suncertainty:\n", indent, "");
    if (u->fit != NULL) {
        fprintf(fp, "%*sfit: ", indent + 2, "");
        write_str(fp, u->fit);
        fputc('\n', fp);
    }
    if (u->nstd_errors > 0) {
        fprintf(fp, "%*sstd_errors:\n", indent + 2, "");
        for (int i = 0; i < u->nstd_errors; i++) {
            struct perf_calib_key k;
            fprintf(fp, "%*s%s: ", indent + 4, "", u->std_errors[i].key);
            if (perf_calib_key_find(u->std_errors[i].key, link, &k) == 0)
                write_value(fp, k.row, u->std_errors[i].se);
            else
                fprintf(fp, "%.6g", u->std_errors[i].se);
            fputc('\n', fp);
        }
    }
    if (u->ncorrelation > 0) {
        fprintf(fp, "%*scorrelation:\n", indent + 2, "");
        for (int i = 0; i < u->ncorrelation; i++)
            fprintf(fp, "%*s- {a: %s, b: %s, r: %.4f}\n", indent + 4, "",
                    u->correlation[i].a, u->correlation[i].b,
                    u->correlation[i].r);
    }
    if (has_st) {
        const char *sep = "";
        fprintf(fp, "%*sstructural: {", indent + 2, "");
        if (!isnan(st->ttft)) {
            fprintf(fp, "ttft: %.4f", st->ttft);
            sep = ", ";
        }
        if (!isnan(st->tpot)) {
            fprintf(fp, "%stpot: %.4f", sep, st->tpot);
            sep = ", ";
        }
        if (!isnan(st->e2e))
            fprintf(fp, "%se2e: %.4f", sep, st->e2e);
        fputs("}\n", fp);
    }
}

/* "  key: "value"" when value is given. */
static void write_opt(FILE *fp, const char *key, const char *value)
{
    if (value == NULL)
        return;
    fprintf(fp, "  %s: ", key);
    write_str(fp, value);
    fputc('\n', fp);
}

/* One GPU or link entry (rows: its table; link: 1 for a link entry). */
static void write_entry(FILE *fp, const char *name,
                        const struct sim_param *rows, const void *entry,
                        const struct perf_calib_unc *u, int link)
{
    fprintf(fp, "  %s:", name);
    if (!rows_given(rows, entry) && u->nstd_errors == 0) {
        fputs(" {}\n", fp);
        return;
    }
    fputc('\n', fp);
    write_rows(fp, rows, entry, 4);
    write_unc(fp, u, link, 4);
}

int perf_calib_write(FILE *fp, const struct perf_calib *c)
{
    fprintf(fp, "format: %d\nprovenance:\n", PERF_CALIB_FORMAT);
    write_opt(fp, "tool", c->tool != NULL ? c->tool : "unknown");
    write_opt(fp, "date", c->date != NULL ? c->date : "unknown");
    write_opt(fp, "host", c->host);
    write_opt(fp, "raw_log", c->raw_log);
    write_opt(fp, "note", c->note);
    if (c->ngpus > 0)
        fputs("gpus:\n", fp);
    for (int i = 0; i < c->ngpus; i++)
        write_entry(fp, c->gpus[i].name, perf_calib_gpu_rows, &c->gpus[i],
                    &c->gpus[i].unc, 0);
    if (c->nlinks > 0)
        fputs("links:\n", fp);
    for (int i = 0; i < c->nlinks; i++)
        write_entry(fp, c->links[i].name, perf_calib_link_rows, &c->links[i],
                    &c->links[i].unc, 1);
    return ferror(fp) ? SIM_EIO : 0;
}

/* ---- keys and distributions ---- */

int perf_calib_key_find(const char *key, int link, struct perf_calib_key *out)
{
    const struct sim_param *rows =
        link ? perf_calib_link_rows : perf_calib_gpu_rows;
    size_t offset = 0;
    const char *p = key;

    while (rows != NULL) {
        const char *dot = strchr(p, '.');
        size_t len = dot != NULL ? (size_t)(dot - p) : strlen(p);
        const struct sim_param *r = NULL;

        for (const struct sim_param *q = rows; q->key != NULL; q++)
            if (strlen(q->key) == len && strncmp(q->key, p, len) == 0) {
                r = q;
                break;
            }
        if (r == NULL)
            return SIM_ENOTFOUND;
        offset += r->offset;
        if (dot == NULL) {
            if (r->type != SIM_PT_DOUBLE && r->type != SIM_PT_DURATION)
                return SIM_ENOTFOUND;
            out->row = r;
            out->offset = offset;
            return 0;
        }
        if (r->type != SIM_PT_SECTION || r->sub == unc_rows)
            return SIM_ENOTFOUND;
        rows = r->sub;
        p = dot + 1;
    }
    return SIM_ENOTFOUND;
}

double perf_calib_key_get(const struct perf_calib_key *k, const void *entry)
{
    const char *at = (const char *)entry + k->offset;

    if (k->row->type == SIM_PT_DURATION) {
        int64_t ns;
        memcpy(&ns, at, sizeof(ns));
        return ns < 0 ? NAN : (double)ns / 1e9;
    }
    {
        double v;
        memcpy(&v, at, sizeof(v));
        return v;
    }
}

void perf_calib_key_set(const struct perf_calib_key *k, void *entry, double v)
{
    char *at = (char *)entry + k->offset;

    if (k->row->type == SIM_PT_DURATION) {
        int64_t ns = (int64_t)llround(v * 1e9);
        memcpy(at, &ns, sizeof(ns));
    } else {
        memcpy(at, &v, sizeof(v));
    }
}

double perf_calib_key_resolved(const struct perf_calib *c, const char *gpu,
                               const struct perf_calib_key *k)
{
    const struct perf_calib_gpu *order[4] = {
        perf_calib_find_gpu(c, gpu),
        perf_calib_find_gpu(c, PERF_CALIB_DEFAULT_GPU),
        perf_calib_find_gpu(&perf_calib_builtin, gpu),
        perf_calib_find_gpu(&perf_calib_builtin, PERF_CALIB_DEFAULT_GPU),
    };

    for (int i = 0; i < 4; i++) {
        double v = order[i] != NULL ? perf_calib_key_get(k, order[i]) : NAN;
        if (!isnan(v))
            return v;
    }
    return NAN;
}

int perf_cholesky_psd(const double *a, int n, double *l)
{
    /* Factored as the correlation matrix R = D^-1 A D^-1 (D the standard
     * deviations), L = D L_R: the tolerances below are then free of the
     * keys' units, which differ by many orders of magnitude (a kernel
     * time's variance in s^2 beside half_tokens' in tokens^2). A key with
     * variance 0 must have no covariance. */
    double *d = xcalloc((size_t)n, sizeof(*d));
    double *r = xcalloc((size_t)n * (size_t)n, sizeof(*r));
    int rc = 0;

    memset(l, 0, (size_t)n * (size_t)n * sizeof(*l));
    for (int i = 0; i < n && rc == 0; i++) {
        if (a[i * n + i] < 0)
            rc = -1;
        else
            d[i] = sqrt(a[i * n + i]);
    }
    for (int i = 0; i < n && rc == 0; i++)
        for (int j = 0; j < n && rc == 0; j++) {
            if (i == j)
                r[i * n + j] = d[i] > 0 ? 1 : 0;
            else if (d[i] > 0 && d[j] > 0)
                r[i * n + j] = a[i * n + j] / (d[i] * d[j]);
            else if (a[i * n + j] != 0)
                rc = -1;
        }
    for (int j = 0; j < n && rc == 0; j++) {
        double p = r[j * n + j];

        for (int k = 0; k < j; k++)
            p -= l[j * n + k] * l[j * n + k];
        if (p < -1e-10) {
            rc = -1;
            break;
        }
        if (p <= 1e-10) {
            /* A zero pivot: the column's other entries must vanish too. */
            for (int i = j + 1; i < n; i++) {
                double s = r[i * n + j];
                for (int k = 0; k < j; k++)
                    s -= l[i * n + k] * l[j * n + k];
                if (fabs(s) > 1e-8)
                    rc = -1;
            }
            continue;
        }
        l[j * n + j] = sqrt(p);
        for (int i = j + 1; i < n; i++) {
            double s = r[i * n + j];
            for (int k = 0; k < j; k++)
                s -= l[i * n + k] * l[j * n + k];
            l[i * n + j] = s / l[j * n + j];
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            l[i * n + j] = rc == 0 ? l[i * n + j] * d[i] : 0;
    free(d);
    free(r);
    return rc;
}

/* Adds the standard errors of u (an entry of kind link at index entry;
 * skip: a GPU entry whose values replace u's) to out, with their
 * covariance block at the block's place. */
static void dist_add(struct perf_calib_dist *out,
                     const struct perf_calib_unc *u, int link, int entry,
                     const struct perf_calib_gpu *const *kinds, int nkinds,
                     const void *values, double *cov)
{
    int idx[PERF_CALIB_MAX_UNC] = {0};

    for (int i = 0; i < u->nstd_errors; i++) {
        struct perf_calib_dist_param *p;
        struct perf_calib_key k;

        idx[i] = -1;
        if (out->n >= PERF_CALIB_MAX_UNC ||
            perf_calib_key_find(u->std_errors[i].key, link >= 0, &k) != 0)
            continue;
        /* A default key that every kind's own entry replaces is not
         * used by any of them. */
        if (nkinds > 0) {
            int used = 0;
            for (int j = 0; j < nkinds && !used; j++)
                used =
                    kinds[j] == NULL || isnan(perf_calib_key_get(&k, kinds[j]));
            if (!used)
                continue;
        }
        p = &out->p[out->n];
        p->link = link;
        p->entry = entry;
        snprintf(p->key, sizeof(p->key), "%s", u->std_errors[i].key);
        p->k = k;
        p->mean = perf_calib_key_get(&k, values);
        p->se = u->std_errors[i].se;
        idx[i] = out->n++;
    }
    for (int i = 0; i < u->nstd_errors; i++)
        if (idx[i] >= 0)
            cov[idx[i] * PERF_CALIB_MAX_UNC + idx[i]] =
                u->std_errors[i].se * u->std_errors[i].se;
    for (int c = 0; c < u->ncorrelation; c++) {
        int a = se_index(u, u->correlation[c].a);
        int b = se_index(u, u->correlation[c].b);
        if (a < 0 || b < 0 || a == b || idx[a] < 0 || idx[b] < 0)
            continue;
        cov[idx[a] * PERF_CALIB_MAX_UNC + idx[b]] =
            cov[idx[b] * PERF_CALIB_MAX_UNC + idx[a]] =
                u->correlation[c].r * u->std_errors[a].se * u->std_errors[b].se;
    }
}

/* The scale that makes a parameter's error relative: its mean when
 * positive (a log-normal draw), else 1 (a normal one, for a value of 0). */
static double rel_scale(const struct perf_calib_dist_param *p)
{
    return p->mean > 0 ? p->mean : 1.0;
}

int perf_calib_dist_init(const struct perf_calib *c, const char *gpu,
                         struct perf_calib_dist *out)
{
    return perf_calib_dist_init_kinds(c, &gpu, 1, out);
}

int perf_calib_dist_init_kinds(const struct perf_calib *c,
                               const char *const *gpus, int ngpus,
                               struct perf_calib_dist *out)
{
    static const int M = PERF_CALIB_MAX_UNC;
    double *cov = xcalloc((size_t)M * (size_t)M, sizeof(*cov));
    double *a;
    const struct perf_calib_gpu *def =
        perf_calib_find_gpu(c, PERF_CALIB_DEFAULT_GPU);
    const struct perf_calib_gpu **kinds =
        xcalloc((size_t)(ngpus > 0 ? ngpus : 1), sizeof(*kinds));
    int nk = 0;

    memset(out, 0, sizeof(*out));
    out->structural.ttft = out->structural.tpot = out->structural.e2e = NAN;
    if (c == NULL) {
        free(kinds);
        free(cov);
        return 0;
    }
    /* The kinds' own entries, once each (NULL: the kind has none). */
    for (int i = 0; i < ngpus; i++) {
        const struct perf_calib_gpu *e = perf_calib_find_gpu(c, gpus[i]);
        int dup = 0;
        if (e == def)
            e = NULL;
        for (int j = 0; j < nk && e != NULL; j++)
            dup |= kinds[j] == e;
        if (!dup)
            kinds[nk++] = e;
    }
    if (def != NULL)
        dist_add(out, &def->unc, -1, (int)(def - c->gpus), kinds, nk, def, cov);
    for (int i = 0; i < nk; i++)
        if (kinds[i] != NULL)
            dist_add(out, &kinds[i]->unc, -1, (int)(kinds[i] - c->gpus), NULL,
                     0, kinds[i], cov);
    for (int i = 0; i < c->nlinks; i++)
        dist_add(out, &c->links[i].unc, i, -1, NULL, 0, &c->links[i], cov);
    /* The structural error: the first kind's, else the default's. */
    for (int w = 0; w < 2; w++) {
        const struct perf_calib_gpu *e =
            w == 0 ? def : (nk > 0 ? kinds[0] : NULL);
        if (e == NULL)
            continue;
        if (!isnan(e->unc.structural.ttft))
            out->structural.ttft = e->unc.structural.ttft;
        if (!isnan(e->unc.structural.tpot))
            out->structural.tpot = e->unc.structural.tpot;
        if (!isnan(e->unc.structural.e2e))
            out->structural.e2e = e->unc.structural.e2e;
    }
    free(kinds);
    /* Compact the covariance to n x n, relative to the means (the draws
     * are log-normal, perf_calib_dist_draw()), and factor it; each block
     * was checked at load, so the whole (block-diagonal) matrix factors. */
    a = xcalloc((size_t)M * (size_t)M, sizeof(*a));
    for (int i = 0; i < out->n; i++)
        for (int j = 0; j < out->n; j++)
            a[i * out->n + j] = cov[i * M + j] /
                                (rel_scale(&out->p[i]) * rel_scale(&out->p[j]));
    if (out->n > 0 && perf_cholesky_psd(a, out->n, out->chol) != 0) {
        /* Not reachable for a loaded profile; fall back to independence. */
        memset(out->chol, 0, sizeof(out->chol));
        for (int i = 0; i < out->n; i++)
            out->chol[i * out->n + i] = out->p[i].se / rel_scale(&out->p[i]);
    }
    free(a);
    free(cov);
    return out->n;
}

void perf_calib_dist_draw(const struct perf_calib_dist *dist, const double *z,
                          struct perf_calib *dst)
{
    for (int i = 0; i < dist->n; i++) {
        const struct perf_calib_dist_param *p = &dist->p[i];
        const struct sim_param *row = p->k.row;
        double u = 0, v;
        void *entry;

        for (int j = 0; j <= i; j++)
            u += dist->chol[i * dist->n + j] * z[j];
        /* Log-normal around a positive mean, with the stated relative
         * error (a normal one for small errors; positive values stay
         * positive); normal around 0. */
        v = p->mean > 0 ? p->mean * exp(u) : u;
        /* Keep the value inside the key's range (an efficiency in [0.001,
         * 1], a time in [0, its largest]): a normal tail can leave it. */
        if (row->type == SIM_PT_DURATION) {
            /* Within the key's range (its largest is finite): a draw of
             * inf would not round to nanoseconds. */
            if (!(v >= row->min))
                v = row->min;
            if (v > row->max)
                v = row->max;
        } else {
            double lo = row->min, hi = row->max;
            if ((row->flags & SIM_PF_MIN_EXCL) && !(v > lo))
                v = lo + 1e-6 * (isfinite(hi) ? hi - lo : 1.0);
            else if (!(v >= lo))
                v = lo;
            if (v > hi)
                v = hi;
        }
        if (p->link >= 0) {
            if (p->link >= dst->nlinks)
                continue;
            entry = &dst->links[p->link];
        } else {
            if (p->entry < 0 || p->entry >= dst->ngpus)
                continue;
            entry = &dst->gpus[p->entry];
        }
        perf_calib_key_set(&p->k, entry, v);
    }
}

const struct perf_calib_gpu *perf_calib_find_gpu(const struct perf_calib *c,
                                                 const char *name)
{
    if (c == NULL || name == NULL)
        return NULL;
    for (int i = 0; i < c->ngpus; i++)
        if (strcasecmp(c->gpus[i].name, name) == 0)
            return &c->gpus[i];
    return NULL;
}

/* ---- resolution ---- */

static void set_d(double *dst, double v)
{
    if (!isnan(v))
        *dst = v;
}

static void set_ns(double *dst, int64_t v)
{
    if (v >= 0)
        *dst = (double)v;
}

static void apply_gpu(const struct perf_calib_gpu *e, struct perf_gpu_calib *o)
{
    if (e == NULL)
        return;
    set_d(&o->gemm_eff_max, e->gemm.eff_max);
    set_d(&o->gemm_half_tokens, e->gemm.half_tokens);
    set_d(&o->gemm_eff_memory, e->gemm.eff_memory);
    set_ns(&o->gemm_kernel_ns, e->gemm.kernel_ns);
    set_d(&o->attn_eff_compute, e->attn.eff_compute);
    set_d(&o->attn_eff_memory, e->attn.eff_memory);
    set_ns(&o->attn_kernel_ns, e->attn.kernel_ns);
    set_d(&o->elem_eff_memory, e->elem.eff_memory);
    set_ns(&o->elem_kernel_ns, e->elem.kernel_ns);
    set_ns(&o->launch_eager_ns, e->launch.eager_ns);
    set_ns(&o->launch_graph_ns, e->launch.graph_ns);
    set_ns(&o->frontend_request_ns, e->frontend.request_ns);
    set_ns(&o->frontend_prompt_token_ns, e->frontend.per_prompt_token_ns);
    set_ns(&o->frontend_output_token_ns, e->frontend.per_output_token_ns);
    set_d(&o->a2a_normal_intra, e->alltoall.normal_intranode);
    set_d(&o->a2a_normal_inter, e->alltoall.normal_internode);
    set_ns(&o->a2a_normal_base_ns, e->alltoall.normal_base_ns);
    set_d(&o->a2a_ll_intra, e->alltoall.low_latency_intranode);
    set_d(&o->a2a_ll_inter, e->alltoall.low_latency_internode);
    set_ns(&o->a2a_ll_base_ns, e->alltoall.low_latency_base_ns);
    set_ns(&o->iteration_overhead_ns, e->iteration_overhead_ns);
    set_ns(&o->seq_overhead_ns, e->seq_overhead_ns);
}

static void apply_link(const struct perf_calib *c, struct net_link *l)
{
    if (c == NULL || l->name == NULL)
        return;
    for (int i = 0; i < c->nlinks; i++) {
        const struct perf_calib_link *e = &c->links[i];
        if (strcasecmp(e->name, l->name) != 0)
            continue;
        if (e->alpha_ns >= 0)
            l->alpha_ns = (double)e->alpha_ns;
        set_d(&l->bytes_per_s, e->bytes_per_s);
        set_d(&l->efficiency, e->efficiency);
        if (e->car_sync_ns > 0)
            l->car_sync_ns = (double)e->car_sync_ns;
    }
}

void perf_calib_resolve(const struct perf_calib *c, const struct gpu_spec *g,
                        struct perf_gpu_calib *out)
{
    const struct net_link *inter = net_link_find(PERF_CALIB_INTER_LINK);

    memset(out, 0, sizeof(*out));
    apply_gpu(perf_calib_find_gpu(&perf_calib_builtin, PERF_CALIB_DEFAULT_GPU),
              out);
    apply_gpu(perf_calib_find_gpu(&perf_calib_builtin, g->name), out);
    apply_gpu(perf_calib_find_gpu(c, PERF_CALIB_DEFAULT_GPU), out);
    apply_gpu(perf_calib_find_gpu(c, g->name), out);
    gpu_intra_link(g, &out->intra);
    if (inter != NULL)
        out->inter = *inter;
    apply_link(c, &out->intra);
    apply_link(c, &out->inter);
    out->source = c == NULL         ? "built-in defaults"
                  : c->file != NULL ? c->file
                                    : "calibration profile";
}

/* ---- cost primitives ---- */

double perf_gemm_eff(const struct perf_gpu_calib *c, double m_tokens)
{
    if (!(m_tokens > 0.0))
        return 0.0;
    return c->gemm_eff_max * m_tokens / (m_tokens + c->gemm_half_tokens);
}

double perf_op_ns(double flops, double peak_flops, double eff_compute,
                  double bytes, double hbm_bytes_per_s, double eff_memory,
                  double kernels, double kernel_ns, int *bound)
{
    double tc = flops > 0.0 ? flops / (eff_compute * peak_flops) : 0.0;
    double tm = bytes > 0.0 ? bytes / (eff_memory * hbm_bytes_per_s) : 0.0;

    if (bound != NULL)
        *bound = tc == 0.0 && tm == 0.0 ? PERF_BOUND_NONE
                 : tc >= tm             ? PERF_BOUND_COMPUTE
                                        : PERF_BOUND_MEMORY;
    return 1e9 * (tc > tm ? tc : tm) + kernels * kernel_ns;
}
