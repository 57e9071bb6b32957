/* The serving sections' rows (see config.h), in the order `dsec help
 * scenario` prints them, their cross-field checks, and the scenario's
 * destructor, which frees through
 * the rows. Enum choices are written in alphabetical order, the order
 * messages list them in. Defaults for the llm server come from docs/sources.md
 * §5.1 (vLLM knobs), §5.4 (host overhead per iteration) and §1.3
 * (achieved-vs-peak anchors); the ones the layout model also uses without
 * a scenario are named constants of models/perf/roofline.h and
 * models/gpu/gpu.h. After the walk, the cl_*_check() functions at the end
 * check the rules that span several keys or sections. */
#include "models/cluster/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/arch/hf.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/perf/roofline.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY

/* Ranges with their reasons (docs/scenario.md "Ranges"); the bounds every
 * time, size and bandwidth obeys are in base/param.h. A time drawn or
 * given in seconds is at least 1 ns, the clock's resolution. A coefficient
 * of variation below 0.01 is a deterministic value to 4 digits (use
 * deterministic), and above 100 the gamma shape 1/cv^2 falls under 1e-4,
 * where samples underflow to 0. An efficiency below 1 % of peak is no
 * kernel anyone runs, and would make one step last for ever. */
#define CL_TIME_MIN_S 1e-9
#define CL_CV_MIN 0.01
#define CL_CV_MAX 100
#define CL_EFFICIENCY_MIN 0.01
#define CL_REPLICAS_MAX 100000
#define CL_GPUS_MAX 1000000
#define GT SIM_PF_MIN_EXCL
#define REQ SIM_PF_REQUIRED
#define LLM CL_PF_LLM
#define ABS CL_PF_ABSTRACT

static const struct sim_param_choice service_dists[] = {
    {"deterministic", CL_DIST_DETERMINISTIC},
    {"exponential", CL_DIST_EXPONENTIAL},
    {"gamma", CL_DIST_GAMMA},
    {"lognormal", CL_DIST_LOGNORMAL},
    {NULL, 0},
};

static const struct sim_param_choice provision_dists[] = {
    {"exponential", CL_DIST_EXPONENTIAL},
    {"fixed", CL_DIST_FIXED},
    {"gamma", CL_DIST_GAMMA},
    {"lognormal", CL_DIST_LOGNORMAL},
    {NULL, 0},
};

static const struct sim_param_choice weights_sources[] = {
    {"auto", CL_SRC_AUTO},
    {"host_memory", CL_SRC_HOST_MEMORY},
    {"nvme", CL_SRC_NVME},
    {"object_store", CL_SRC_OBJECT_STORE},
    {"peer_nvlink", CL_SRC_PEER_NVLINK},
    {"peer_rdma", CL_SRC_PEER_RDMA},
    {NULL, 0},
};

static const struct sim_param_choice drains[] = {
    {"finish", CL_DRAIN_FINISH},
    {"migrate", CL_DRAIN_MIGRATE},
    {NULL, 0},
};

static const struct sim_param_choice routings[] = {
    {"least-kv", CL_ROUTE_LEAST_KV},
    {"least-outstanding", CL_ROUTE_LEAST_OUTSTANDING},
    {"prefix-affinity", CL_ROUTE_PREFIX_AFFINITY},
    {"random", CL_ROUTE_RANDOM},
    {"round-robin", CL_ROUTE_ROUND_ROBIN},
    {NULL, 0},
};

static const struct sim_param_choice fault_kinds[] = {
    {"gpu", CL_FAULT_GPU},
    {"node", CL_FAULT_NODE},
    {NULL, 0},
};

static const struct sim_param_choice recoveries[] = {
    {"memory", CL_RECOVER_MEMORY},
    {"storage", CL_RECOVER_STORAGE},
    {NULL, 0},
};

static const struct sim_param_choice server_kinds[] = {
    {"abstract", CL_SRV_ABSTRACT},
    {"llm", CL_SRV_LLM},
    {NULL, 0},
};

static const struct sim_param_choice preemptions[] = {
    {"recompute", CL_PREEMPT_RECOMPUTE},
    {"swap", CL_PREEMPT_SWAP},
    {"auto", CL_PREEMPT_AUTO},
    {NULL, 0},
};

static const struct sim_param_choice kv_admissions[] = {
    {"greedy", CL_KVA_GREEDY},
    {"watermark", CL_KVA_WATERMARK},
    {"reserve", CL_KVA_RESERVE},
    {NULL, 0},
};

static const struct sim_param_choice spec_methods[] = {
    {"none", PERF_SPEC_NONE},
    {"mtp", PERF_SPEC_MTP},
    {"ngram", PERF_SPEC_NGRAM},
    {NULL, 0},
};

static const struct sim_param_choice schedulings[] = {
    {"fcfs", CL_SCHED_FCFS},
    {"priority", CL_SCHED_PRIORITY},
    {NULL, 0},
};

static const struct sim_param_choice kv_links[] = {
    {"ib-edr", CL_KVL_IB_EDR},
    {"ib-hdr", CL_KVL_IB_HDR},
    {"ib-ndr", CL_KVL_IB_NDR},
    {"ib-xdr", CL_KVL_IB_XDR},
    {"roce-100", CL_KVL_ROCE_100},
    {"roce-200", CL_KVL_ROCE_200},
    {"roce-400", CL_KVL_ROCE_400},
    {"roce-800", CL_KVL_ROCE_800},
    {NULL, 0},
};

static const struct sim_param_choice strategies[] = {
    {"tensor_parallel", CL_STRAT_TENSOR_PARALLEL},
    {NULL, 0},
};

#define FE(f) offsetof(struct cl_frontend, f)

/* Unset keys take the calibration profile's frontend entry (built-in:
 * assumptions from recall, unverified, chosen low; docs/serving.md "Front
 * end" gives the mechanism and BLIS's fit, which is larger). */
static const struct sim_param frontend_rows[] = {
    {"request", SIM_PT_DURATION, SIM_U_SECONDS, 0, 10, 0, NULL,
     "API server time per request before the engine queue: HTTP, "
     "validation, scheduling onto the engine process (assumption, from "
     "recall); default: the calibration's frontend.request, built-in 2ms",
     FE(request_ns), NULL, NULL},
    {"per_prompt_token", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "tokenisation time per prompt token, before the engine queue "
     "(assumption, from recall: Rust fast tokenizers); default: the "
     "calibration's frontend.per_prompt_token, built-in 1us",
     FE(per_prompt_token_ns), NULL, NULL},
    {"per_output_token", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "detokenisation and streaming per output token; overlaps the next "
     "engine step (separate process), so it adds to TTFT and E2E once, not "
     "to the time per output token (assumption, from recall); default: the "
     "calibration's frontend.per_output_token, built-in 30us",
     FE(per_output_token_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define WU(f) offsetof(struct cl_warmup, f)

static const struct sim_param warmup_rows[] = {
    {"iterations", SIM_PT_INT64, SIM_U_NONE, 0, 1e9, 0, "0",
     "engine iterations after a replica starts that run slower (cold "
     "caches, lazy allocation, kernels compiled on first use); 0 = off",
     WU(iterations), NULL, NULL},
    {"factor", SIM_PT_DOUBLE, SIM_U_NONE, 1, 100, 0, "2",
     "how many times longer a warm-up iteration takes (BLIS's demo uses 2x "
     "for its warm-up requests, docs/sources.md §8.1, illustrative)",
     WU(factor), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define SPC(f) offsetof(struct cl_spec, f)

static const struct sim_param spec_rows[] = {
    {"method", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "none",
     "none: one token per sequence and step; mtp: the model's own "
     "multi-token-prediction module drafts (DeepSeek-V3/V3.2: one layer, "
     "its weights and KV cache in HBM, run once per drafted token); ngram: "
     "prompt lookup on the host, no GPU work for the draft. Every drafted "
     "token is verified in the next step: each decoding sequence runs 1 + "
     "tokens query tokens through the model",
     SPC(method), spec_methods, NULL},
    {"tokens", SIM_PT_INT, SIM_U_TOKENS, 1, 8, 0, "1",
     "tokens drafted per sequence and step (vLLM num_speculative_tokens; "
     "DeepSeek-V3 serves MTP with 1)",
     SPC(tokens), NULL, NULL},
    {"acceptance", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, NULL,
     "probability that a drafted token is accepted when the ones before "
     "it were; a step then emits (1 - a^(tokens+1)) / (1 - a) tokens on "
     "average, drawn per request. Default for mtp: 0.85 (DeepSeek-V3 "
     "technical report: 85-90 % for the second token); ngram: required "
     "(it depends on how much the output repeats the prompt)",
     SPC(acceptance), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define KVO(f) offsetof(struct cl_kv_offload, f)

static const struct sim_param kv_offload_rows[] = {
    {"host", SIM_PT_DOUBLE, SIM_U_BYTES, 0, NOMAX, 0, NULL,
     "host memory per replica for offloaded KV blocks (default 128GB per "
     "GPU of the replica: half of a DGX H100's 2 TB over 8 GPUs, an "
     "assumption; docs/serving.md)",
     KVO(host_bytes), NULL, NULL},
    {"remote", SIM_PT_DOUBLE, SIM_U_BYTES, 0, NOMAX, 0, "0",
     "size of a remote KV pool shared by all replicas, reached over RDMA "
     "(0: none)",
     KVO(remote_bytes), NULL, NULL},
    {"remote_link", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "roce-400",
     "link class of the remote pool, one per GPU (net catalog, docs/sources.md "
     "§2.1)",
     KVO(remote_link), kv_links, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define PDL(f) offsetof(struct cl_pd_layout, f)

/* One group's layout: every key optional, falling back to the top-level
 * one (cl_pd_layout_resolve()). DeepSeek serves V3 with prefill EP32 and
 * decode EP144, both TP1 with 32 redundant experts and two micro-batches
 * (deepseek-ai/open-infra-index, day 6 inference system overview,
 * docs/sources.md §14). */
static const struct sim_param pd_layout_rows[] = {
    {"tp", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the group's tensor-parallel degree (default deploy.tp; unset there "
     "too: the smallest power of two on one node that fits)",
     PDL(tp), NULL, NULL},
    {"ep", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the group's expert-parallel degree (default deploy.ep)", PDL(ep), NULL,
     NULL},
    {"redundant_experts", SIM_PT_INT, SIM_U_NONE, 0, NOMAX, 0, NULL,
     "the group's extra expert slots (default deploy.redundant_experts)",
     PDL(redundant_experts), NULL, NULL},
    {"expert_imbalance", SIM_PT_DOUBLE, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the group's busiest EP rank over the mean (default "
     "deploy.expert_imbalance)",
     PDL(expert_imbalance), NULL, NULL},
    {"micro_batches", SIM_PT_INT, SIM_U_NONE, 1, 2, 0, NULL,
     "the group's micro-batches per iteration (default "
     "server.micro_batches)",
     PDL(micro_batches), NULL, NULL},
    {"max_num_seqs", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the group's batch cap per data-parallel rank (default "
     "server.max_num_seqs)",
     PDL(max_num_seqs), NULL, NULL},
    {"max_num_batched_tokens", SIM_PT_INT64, SIM_U_TOKENS, 1, NOMAX, 0, NULL,
     "the group's token budget per data-parallel rank (default "
     "server.max_num_batched_tokens)",
     PDL(max_num_batched_tokens), NULL, NULL},
    {"min_replicas", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "elastic P/D (cluster.min_gpus/max_gpus) only: fewest replicas of the "
     "group (default 1)",
     PDL(min_replicas), NULL, NULL},
    {"max_replicas", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "elastic P/D only: most replicas of the group (default: as many as "
     "cluster.max_gpus holds)",
     PDL(max_replicas), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* A pool's layout (pools[].deploy): the P/D group's keys less the group
 * bounds, plus pp; every key optional, falling back to the top-level one
 * (cl_pool_layout_resolve()). */
static const struct sim_param pool_layout_rows[] = {
    {"tp", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the pool's tensor-parallel degree (default deploy.tp; unset there "
     "too: the one deploy.tp derives)",
     PDL(tp), NULL, NULL},
    {"ep", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the pool's expert-parallel degree (default deploy.ep)", PDL(ep), NULL,
     NULL},
    {"pp", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the pool's pipeline stages (default deploy.pp)", PDL(pp), NULL, NULL},
    {"redundant_experts", SIM_PT_INT, SIM_U_NONE, 0, NOMAX, 0, NULL,
     "the pool's extra expert slots (default deploy.redundant_experts)",
     PDL(redundant_experts), NULL, NULL},
    {"expert_imbalance", SIM_PT_DOUBLE, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the pool's busiest EP rank over the mean (default "
     "deploy.expert_imbalance)",
     PDL(expert_imbalance), NULL, NULL},
    {"micro_batches", SIM_PT_INT, SIM_U_NONE, 1, 2, 0, NULL,
     "the pool's micro-batches per iteration (default server.micro_batches)",
     PDL(micro_batches), NULL, NULL},
    {"max_num_seqs", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "the pool's batch cap per data-parallel rank (default "
     "server.max_num_seqs)",
     PDL(max_num_seqs), NULL, NULL},
    {"max_num_batched_tokens", SIM_PT_INT64, SIM_U_TOKENS, 1, NOMAX, 0, NULL,
     "the pool's token budget per data-parallel rank (default "
     "server.max_num_batched_tokens)",
     PDL(max_num_batched_tokens), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define DSG(f) offsetof(struct cl_disagg, f)

static const struct sim_param disagg_rows[] = {
    {"prefill_replicas", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, REQ, NULL,
     "replicas that run prompts (prefill) and make the first token",
     DSG(prefill_replicas), NULL, NULL},
    {"decode_replicas", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, REQ, NULL,
     "replicas that receive the KV and generate the other tokens",
     DSG(decode_replicas), NULL, NULL},
    {"kv_link", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "roce-400",
     "link class the KV crosses, one per GPU (net catalog, docs/sources.md "
     "§2.1)",
     DSG(kv_link), kv_links, NULL},
    {"prefill", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the prefill group's layout {tp, ep, redundant_experts, "
     "expert_imbalance, micro_batches, max_num_seqs, "
     "max_num_batched_tokens}; each key left out is the top-level one "
     "(docs/serving.md)",
     DSG(prefill), NULL, pd_layout_rows},
    {"decode", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the decode group's layout, keys as prefill's", DSG(decode), NULL,
     pd_layout_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

SIM_PARAM_COUNT_AFTER(struct cl_faults, scripted, nscripted);
SIM_PARAM_COUNT_AFTER(struct cl_pool, reclaim, nreclaim);
SIM_PARAM_COUNT_AFTER(struct cl_interruptions, at_ns, nat);
SIM_PARAM_COUNT_AFTER(struct cl_faults, links, nlinks);
SIM_PARAM_COUNT_AFTER(struct cl_policy, params, nparams);
SIM_PARAM_COUNT_AFTER(struct cl_hardware, gpus, ngpus);

static const struct sim_param service_rows[] = {
    {"dist", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "service-time distribution: exponential (mean_s), deterministic "
     "(mean_s), lognormal (mean_s, sd_s), gamma (mean_s, cv)",
     offsetof(struct cl_dist, kind), service_dists, NULL},
    {"mean_s", SIM_PT_DOUBLE, SIM_U_SECONDS, CL_TIME_MIN_S, SIM_PARAM_HORIZON_S,
     REQ, NULL,
     "mean service time (at least 1 ns, the clock's resolution; at most the "
     "366-day horizon)",
     offsetof(struct cl_dist, mean), NULL, NULL},
    {"sd_s", SIM_PT_DOUBLE, SIM_U_SECONDS, CL_TIME_MIN_S, SIM_PARAM_HORIZON_S,
     0, NULL, "lognormal only: standard deviation of the service time",
     offsetof(struct cl_dist, sd), NULL, NULL},
    {"cv", SIM_PT_DOUBLE, SIM_U_NONE, CL_CV_MIN, CL_CV_MAX, 0, NULL,
     "gamma only: coefficient of variation of the service time",
     offsetof(struct cl_dist, cv), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_server_rows[] = {
    {"kind", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "abstract: a queueing server with a service-time distribution; llm: an "
     "LLM replica with continuous batching. Default: llm when a model is "
     "given (model or deploy.model_path), else abstract",
     offsetof(struct cl_server, kind), server_kinds, NULL},
    {"service", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, ABS, NULL,
     "abstract only (and required there): service time of one request",
     offsetof(struct cl_server, service), NULL, service_rows},
    {"concurrency", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, ABS, "1",
     "abstract only: requests served at once per replica",
     offsetof(struct cl_server, concurrency), NULL, NULL},
    {"price", SIM_PT_DOUBLE, SIM_U_USD_PER_HOUR, 0, NOMAX, ABS, "0",
     "abstract only: price of one replica per hour",
     offsetof(struct cl_server, price_usd_per_hour), NULL, NULL},
    {"max_num_seqs", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, LLM, NULL,
     "llm only: most sequences in one batch (vLLM max_num_seqs; default "
     "vLLM's rule for each pool's GPU: 1024 with at least 70 GiB and not "
     "an A100, else 256, docs/sources.md §5.1)",
     offsetof(struct cl_server, max_num_seqs), NULL, NULL},
    {"max_num_batched_tokens", SIM_PT_INT64, SIM_U_TOKENS, 1, NOMAX, LLM, NULL,
     "llm only: token budget of one iteration, which also caps a prompt "
     "chunk (vLLM max_num_batched_tokens; default vLLM's OpenAI API-server "
     "rule for each pool's GPU: 8192 with at least 70 GiB and not an A100, "
     "else 2048, vllm @ 99d7eb5d arg_utils.py get_batch_defaults, "
     "docs/sources.md "
     "§5.1)",
     offsetof(struct cl_server, max_num_batched_tokens), NULL, NULL},
    {"max_cudagraph_capture_size", SIM_PT_INT64, SIM_U_TOKENS, -1, 1e6, LLM,
     "-1",
     "llm only: iterations of at most this many tokens replay a CUDA graph "
     "(padded to a capture size), larger ones run eagerly; 0 = always eager "
     "(vLLM enforce_eager); -1 = vLLM's default min(2 x max_num_seqs, 512) "
     "(docs/step-time.md)",
     offsetof(struct cl_server, max_cudagraph_capture_size), NULL, NULL},
    {"custom_all_reduce", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, LLM, "true",
     "llm only: tensor-parallel all-reduces under 8 MiB over 2, 4, 6 or 8 "
     "NVLink GPUs run vLLM's custom one-shot/two-shot kernel, the others "
     "NCCL; false = NCCL for all (vLLM --disable-custom-all-reduce; "
     "docs/step-time.md)",
     offsetof(struct cl_server, custom_all_reduce), NULL, NULL},
    {"micro_batches", SIM_PT_INT, SIM_U_NONE, 1, 2, LLM, "1",
     "llm only: 2 splits each iteration into two micro-batches whose "
     "expert-parallel all-to-alls hide behind each other's compute (SGLang "
     "and DeepSeek's two-batch overlap; fixed kernel times paid twice); 1 "
     "runs one batch, nothing hidden; 2 needs pp 1 (docs/step-time.md)",
     offsetof(struct cl_server, micro_batches), NULL, NULL},
    {"gpu_memory_utilization", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT | LLM,
     SIM_PARAM_DEF(PERF_DEFAULT_GPU_MEMORY_UTILIZATION),
     "llm only: fraction of HBM the engine may use (vLLM 0.90 in older "
     "releases, 0.92 at newer commits, docs/sources.md §5.1)",
     offsetof(struct cl_server, gpu_memory_utilization), NULL, NULL},
    {"efficiency_compute", SIM_PT_DOUBLE, SIM_U_FRACTION, CL_EFFICIENCY_MIN, 1,
     LLM, NULL,
     "llm only: replaces the largest achieved fraction of peak FLOP/s of "
     "GEMMs and attention (default: the calibration's, docs/step-time.md; "
     "kernel anchors 67-78%, docs/sources.md §1.3)",
     offsetof(struct cl_server, efficiency_compute), NULL, NULL},
    {"efficiency_memory", SIM_PT_DOUBLE, SIM_U_FRACTION, CL_EFFICIENCY_MIN, 1,
     LLM, NULL,
     "llm only: replaces the achieved fraction of peak HBM bandwidth of "
     "GEMMs and attention (default: the calibration's; FlashMLA decode "
     "~90%, docs/sources.md §1.3)",
     offsetof(struct cl_server, efficiency_memory), NULL, NULL},
    {"iteration_overhead", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, LLM, NULL,
     "llm only: replaces the fixed host time per iteration (default: the "
     "calibration's; Vidur measured 1.2-6.2 ms, docs/sources.md §5.4)",
     offsetof(struct cl_server, iteration_overhead_ns), NULL, NULL},
    {"block_tokens", SIM_PT_INT, SIM_U_TOKENS, 1, NOMAX, LLM, "16",
     "llm only: tokens per paged KV-cache block (vLLM block_size, "
     "docs/sources.md §5.1)",
     offsetof(struct cl_server, block_tokens), NULL, NULL},
    {"preemption", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, LLM, "auto",
     "llm only: what happens to the newest running request when the KV "
     "cache cannot grow; recompute drops its KV and prefills it again "
     "(vLLM V1, docs/sources.md §5.1); swap copies its KV to host memory over "
     "PCIe and back (vLLM V0; recompute when the swap space is full); "
     "auto is recompute, and with cluster.kv_cache_offload moves the KV "
     "to host memory (then the remote tier) when copying it out and back "
     "costs less than recomputing it (docs/serving.md \"Tiered KV\")",
     offsetof(struct cl_server, preemption), preemptions, NULL},
    {"kv_admission", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, LLM, "greedy",
     "llm only: when a waiting request may take KV blocks; greedy: when "
     "its first chunk fits (vLLM V1's scheduler; decodes that cannot grow "
     "then preempt); watermark: and kv_watermark of the cache stays free "
     "after it (vLLM V0's block manager); reserve: when its whole peak "
     "(prompt + output tokens) fits beside the peaks of every admitted "
     "request, so nothing is ever preempted (TensorRT-LLM's "
     "GUARANTEED_NO_EVICT)",
     offsetof(struct cl_server, kv_admission), kv_admissions, NULL},
    {"kv_watermark", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 0.5, LLM, "0.01",
     "llm only, kv_admission watermark: fraction of the KV cache kept free "
     "at admission (vLLM V0's watermark, 0.01)",
     offsetof(struct cl_server, kv_watermark), NULL, NULL},
    {"swap_space", SIM_PT_DOUBLE, SIM_U_BYTES, 0, NOMAX, LLM, "4GiB",
     "llm only: host memory per GPU for swapped-out KV (vLLM V0 swap_space, "
     "docs/sources.md §5.1)",
     offsetof(struct cl_server, swap_space_bytes), NULL, NULL},
    {"scheduling", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, LLM, "fcfs",
     "llm only: fcfs admits in arrival order and preempts the newest "
     "admitted request; priority admits by (priority, arrival) and "
     "preempts the largest (vLLM scheduling_policy, docs/sources.md §5.1)",
     offsetof(struct cl_server, scheduling), schedulings, NULL},
    {"prefix_caching", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, LLM, "true",
     "llm only: reuse the KV of prompt blocks already cached, matched by "
     "the requests' block hashes or workload.prefix_hit_rate (vLLM V1 "
     "enable_prefix_caching, on by default, docs/sources.md §5.1); requests "
     "without hashes see no difference",
     offsetof(struct cl_server, prefix_caching), NULL, NULL},
    {"async_scheduling", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, LLM, "true",
     "llm only: the engine schedules iteration N+1 when iteration N starts "
     "(vLLM --async-scheduling, on by default since v0.14; from recall, "
     "unverified), so a request that reaches a busy engine waits for the "
     "iteration after the next one (docs/serving.md, \"Async "
     "scheduling\")",
     offsetof(struct cl_server, async_scheduling), NULL, NULL},
    {"max_model_len", SIM_PT_INT64, SIM_U_TOKENS, 1, NOMAX, LLM, NULL,
     "llm only: longest request, prompt plus output tokens; a longer one is "
     "refused at arrival and counted in requests_dropped, as vLLM's API "
     "server returns an error (vLLM max_model_len; default the model's "
     "max_position_embeddings, no limit when the model has none); must fit "
     "one replica's KV cache, or vLLM refuses to start",
     offsetof(struct cl_server, max_model_len), NULL, NULL},
    {"kv_offload", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, LLM, NULL,
     "llm only: tiers below HBM used when cluster.kv_cache_offload is true",
     offsetof(struct cl_server, kv_offload), NULL, kv_offload_rows},
    {"frontend", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, LLM, NULL,
     "llm only: the API front end, outside the engine's step: its time "
     "before the engine queue and per streamed token (docs/serving.md)",
     offsetof(struct cl_server, frontend), NULL, frontend_rows},
    {"warmup", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, LLM, NULL,
     "llm only: engine warm-up after each replica start, off by default "
     "(docs/serving.md)",
     offsetof(struct cl_server, warmup), NULL, warmup_rows},
    {"speculative", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, LLM, NULL,
     "llm only: speculative decoding, off by default (docs/serving.md "
     "\"Speculative decoding\")",
     offsetof(struct cl_server, speculative), NULL, spec_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_model_src_rows[] = {
    {"hf_config", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "Hugging Face config.json (or its directory) of a Llama, Qwen, "
     "Qwen-MoE or DeepSeek model; a relative path is relative to the "
     "scenario file",
     offsetof(struct cl_model_src, hf_config), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define GDEF(f) offsetof(struct cl_gpu_def, f)

static const struct sim_param gpu_def_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "the name hardware.gpu and pools.gpu use; may shadow a catalog name",
     GDEF(name), NULL, NULL},
    {"base", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "catalog GPU whose figures the others replace (without it every "
     "figure but flops_fp8, flops_int8 and price is required)",
     GDEF(base), NULL, NULL},
    {"flops_bf16", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT, NULL,
     "dense BF16 tensor FLOP/s, e.g. 989.4e12", GDEF(flops_bf16), NULL, NULL},
    {"flops_fp8", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, 0, NULL,
     "dense FP8 tensor FLOP/s (0: no FP8)", GDEF(flops_fp8), NULL, NULL},
    {"flops_int8", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, 0, NULL,
     "dense INT8 tensor OP/s", GDEF(flops_int8), NULL, NULL},
    {"hbm", SIM_PT_DOUBLE, SIM_U_BYTES, 0, NOMAX, GT, NULL,
     "device memory, e.g. 141GB", GDEF(hbm_bytes), NULL, NULL},
    {"hbm_bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, GT, NULL,
     "peak device-memory bandwidth, e.g. 4.8TB/s", GDEF(hbm_bytes_per_s), NULL,
     NULL},
    {"nvlink_bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, GT, NULL,
     "intra-node GPU link per direction, e.g. 450GB/s",
     GDEF(nvlink_bytes_per_s), NULL, NULL},
    {"nvlink_latency", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, NULL,
     "intra-node per-step latency, e.g. 1.9us", GDEF(nvlink_latency_ns), NULL,
     NULL},
    {"pcie_bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, GT, NULL,
     "host link per direction, e.g. 63GB/s", GDEF(pcie_bytes_per_s), NULL,
     NULL},
    {"price_per_gpu_hour", SIM_PT_DOUBLE, SIM_U_USD_PER_HOUR, 0, NOMAX, 0, NULL,
     "default price of one GPU per hour", GDEF(price_usd_per_gpu_hour), NULL,
     NULL},
    SIM_PARAM_END_LIST(struct cl_gpu_def),
};

const struct sim_param cl_hardware_rows[] = {
    {"gpu", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, "h100",
     "GPU catalog name (dsec help gpus) or a hardware.gpus name",
     offsetof(struct cl_hardware, gpu), NULL, NULL},
    {"gpus_per_node", SIM_PT_INT, SIM_U_NONE, 1, 72, 0,
     SIM_PARAM_DEF(GPU_DEFAULT_GPUS_PER_NODE),
     "GPUs joined by NVLink in one node",
     offsetof(struct cl_hardware, gpus_per_node), NULL, NULL},
    {"price_per_gpu_hour", SIM_PT_DOUBLE, SIM_U_USD_PER_HOUR, 0, NOMAX, 0, NULL,
     "price of one GPU per hour (default: the GPU catalog's price)",
     offsetof(struct cl_hardware, price_usd_per_gpu_hour), NULL, NULL},
    {"calibration", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "calibration profile (YAML written by dsec-calib, docs/step-time.md) "
     "whose fitted efficiencies and link figures replace the defaults; a "
     "relative path is relative to the scenario file",
     offsetof(struct cl_hardware, calibration), NULL, NULL},
    {.key = "gpus",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = 64,
     .help = "GPUs defined inline, each from a catalog base or from scratch",
     .offset = offsetof(struct cl_hardware, gpus),
     .sub = gpu_def_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_deploy_rows[] = {
    {"model_path", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "where the weights live, e.g. s3://models/deepseek-v3; the model is "
     "recognised from the last path component",
     offsetof(struct cl_deploy, model_path), NULL, NULL},
    {"strategy", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "tensor_parallel",
     "the seed's name for the layout of one replica; tensor_parallel is "
     "its only value: the degrees are deploy.tp, pp and ep "
     "(docs/layouts.md)",
     offsetof(struct cl_deploy, strategy), strategies, NULL},
    {"tp", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "tensor-parallel degree (default: the smallest that fits)",
     offsetof(struct cl_deploy, tp), NULL, NULL},
    {"pp", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, "1",
     "pipeline stages of one replica (layers split in order; an iteration "
     "passes through every stage, one batch in flight, docs/step-time.md)",
     offsetof(struct cl_deploy, pp), NULL, NULL},
    {"ep", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, "1",
     "expert-parallel degree of a MoE model: 1 splits every expert over the "
     "tp GPUs, tp spreads whole experts over them, k*tp adds k "
     "data-parallel attention groups (docs/step-time.md)",
     offsetof(struct cl_deploy, ep), NULL, NULL},
    {"redundant_experts", SIM_PT_INT, SIM_U_NONE, 0, NOMAX, 0, "0",
     "extra routed-expert slots holding second copies of hot experts, ep > "
     "1 only, at most the routed experts; ep must divide routed + redundant "
     "(DeepSeek-V3 decode: 32, EP144 = 2 per GPU; docs/step-time.md)",
     offsetof(struct cl_deploy, redundant_experts), NULL, NULL},
    {"expert_imbalance", SIM_PT_DOUBLE, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "busiest expert-parallel rank's token-expert pairs over the mean, ep > "
     "1 only (default: derived from uniform routing over the placement, "
     "docs/step-time.md)",
     offsetof(struct cl_deploy, expert_imbalance), NULL, NULL},
    {"weight_dtype", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "bf16",
     "data type of the weights (int4: 4-bit weights, 16-bit activations)",
     offsetof(struct cl_deploy, weight_dtype), arch_dtype_choices, NULL},
    {"kv_dtype", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "bf16",
     "data type of the KV cache", offsetof(struct cl_deploy, kv_dtype),
     arch_dtype_float_choices, NULL},
    {"weights_source", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "auto",
     "where a starting replica reads its weights: auto (object_store for "
     "s3://, gs://, http(s):// model paths, else nvme), object_store, nvme, "
     "host_memory (a snapshot over PCIe), peer_nvlink, peer_rdma",
     offsetof(struct cl_deploy, weights_source), weights_sources, NULL},
    {"load_bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, GT, NULL,
     "weight-loading bandwidth per replica (default: the source's, "
     "docs/orchestrator.md; docs/sources.md §8.1 gives the ceilings)",
     offsetof(struct cl_deploy, load_bytes_per_s), NULL, NULL},
    {"engine_init", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "30s",
     "time after loading before a replica serves: container start, CUDA "
     "graph capture and warm-up (docs/sources.md §8.1 puts a whole LLM pod "
     "start "
     "at 2-7 min)",
     offsetof(struct cl_deploy, engine_init_ns), NULL, NULL},
    {"disaggregation", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "llm only: separate prefill and decode replica groups of a static "
     "cluster (cluster.replicas = their sum), each with its own layout "
     "(prefill, decode); TTFT includes the KV transfer (docs/serving.md)",
     offsetof(struct cl_deploy, disaggregation), NULL, disagg_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_cluster_rows[] = {
    {"replicas", SIM_PT_INT, SIM_U_NONE, 1, CL_REPLICAS_MAX, 0, NULL,
     "static replica count (give replicas, or min_gpus and max_gpus; 1 when "
     "neither is given); at most 100000, more than the GPUs of the largest "
     "clusters built, so that setting up replicas stays bounded",
     offsetof(struct cl_cluster, replicas), NULL, NULL},
    {"min_gpus", SIM_PT_INT, SIM_U_NONE, 0, CL_GPUS_MAX, 0, NULL,
     "elastic pool: fewest GPUs (with max_gpus, <= max_gpus); 0 scales to "
     "zero: requests wait for a replica the orchestrator starts at once "
     "(docs/orchestrator.md, Scale to zero)",
     offsetof(struct cl_cluster, min_gpus), NULL, NULL},
    {"max_gpus", SIM_PT_INT, SIM_U_NONE, 1, CL_GPUS_MAX, 0, NULL,
     "elastic pool: most GPUs (with min_gpus); at most 1000000, ten times "
     "the largest clusters built",
     offsetof(struct cl_cluster, max_gpus), NULL, NULL},
    {"target_latency_ms", SIM_PT_DURATION, SIM_U_MILLISECONDS, 0, NOMAX, GT,
     NULL,
     "per-output-token latency target of the scaler; also slo.tpot_ms when "
     "that is not given",
     offsetof(struct cl_cluster, target_latency_ns), NULL, NULL},
    {"kv_cache_offload", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "KV below HBM: the KV of preempted requests (server.preemption auto) "
     "and, with server.prefix_caching, evicted prefix-cache blocks go to "
     "host memory over PCIe (server.kv_offload.host) and then to "
     "server.kv_offload.remote over RDMA",
     offsetof(struct cl_cluster, kv_cache_offload), NULL, NULL},
    {"rdma_interface", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "RDMA device for calibration (e.g. mlx5_0); ignored by the simulator",
     offsetof(struct cl_cluster, rdma_interface), NULL, NULL},
    {"initial_gpus", SIM_PT_INT, SIM_U_NONE, 0, CL_GPUS_MAX, 0, NULL,
     "elastic pool: GPUs serving at the start, in [min_gpus, max_gpus] "
     "(default: min_gpus)",
     offsetof(struct cl_cluster, initial_gpus), NULL, NULL},
    {"scale_to_zero_grace", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "30s",
     "min_gpus 0: the last replica goes only after the cluster has had no "
     "request waiting or running this long, whatever the policy says "
     "(Knative's scale-to-zero-grace-period, 30 s)",
     offsetof(struct cl_cluster, scale_to_zero_grace_ns), NULL, NULL},
    {"rebalance", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, LLM, "0s",
     "llm only: every this long, move one running request with its KV from "
     "the replica with the least free KV (counting the blocks its queue's "
     "head needs) to the one with the most, when their free fractions "
     "differ by rebalance_gap (Llumnix-style load balancing and "
     "de-fragmentation; 0: off; docs/serving.md \"Live migration\")",
     offsetof(struct cl_cluster, rebalance_ns), NULL, NULL},
    {"rebalance_gap", SIM_PT_DOUBLE, SIM_U_FRACTION, 0.01, 1, LLM, "0.25",
     "llm only, with rebalance: the least difference of free KV fractions "
     "(free blocks less the queue head's need, over the cache) between the "
     "fullest and the freest replica that moves a request",
     offsetof(struct cl_cluster, rebalance_gap), NULL, NULL},
    {"defrag", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, LLM, "false",
     "llm only: when a replica's waiting head cannot fit its prompt's KV "
     "and no other replica could take it, move up to 8 of the replica's "
     "decoding requests with their KV at once to replicas with room for "
     "their peak and nothing waiting, if that makes the room (each request "
     "moved so at most once; docs/serving.md \"Live migration\")",
     offsetof(struct cl_cluster, defrag), NULL, NULL},
    {"drain", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "finish",
     "what a replica being removed does with its requests: finish (admit no "
     "more, finish the running ones) or migrate (move them with their KV "
     "cache to the replicas that stay: pre-copy while they run, then a "
     "short stop-and-copy; llm only; docs/serving.md \"Live migration\")",
     offsetof(struct cl_cluster, drain), drains, NULL},
    {"routing", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "least-outstanding",
     "how an arriving request picks an llm replica among those serving whose "
     "KV cache can hold it: least-outstanding (fewest waiting + running; "
     "Vidur's lor, docs/sources.md §5.3), least-kv (lowest KV usage), "
     "prefix-affinity (longest cached prefix within routing_max_imbalance), "
     "random, round-robin (docs/routing.md)",
     offsetof(struct cl_cluster, routing), routings, NULL},
    {"routing_max_imbalance", SIM_PT_INT, SIM_U_NONE, 0, NOMAX, 0, "8",
     "prefix-affinity: a replica is a candidate only while its outstanding "
     "requests exceed the least loaded replica's by at most this (our rule, "
     "docs/routing.md)",
     offsetof(struct cl_cluster, routing_max_imbalance), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_slo_rows[] = {
    {"ttft_ms", SIM_PT_DURATION, SIM_U_MILLISECONDS, 0, NOMAX, GT, NULL,
     "time-to-first-token target", offsetof(struct cl_slo, ttft_ns), NULL,
     NULL},
    {"tpot_ms", SIM_PT_DURATION, SIM_U_MILLISECONDS, 0, NOMAX, GT, NULL,
     "time-per-output-token target (default: cluster.target_latency_ms)",
     offsetof(struct cl_slo, tpot_ns), NULL, NULL},
    {"e2e_ms", SIM_PT_DURATION, SIM_U_MILLISECONDS, 0, NOMAX, GT, NULL,
     "end-to-end latency target", offsetof(struct cl_slo, e2e_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_metrics_rows[] = {
    {"interval", SIM_PT_DURATION, SIM_U_SECONDS, 1e-3, NOMAX, 0, "60s",
     "width of a time-series bucket (at least 1ms; a run may close at most "
     "1000000 of them, so that the series stays bounded)",
     offsetof(struct cl_metrics, interval_ns), NULL, NULL},
    {"warmup_fraction", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 0.5, SIM_PF_MAX_EXCL,
     "0.1", "leading fraction of requests left out of the statistics",
     offsetof(struct cl_metrics, warmup_fraction), NULL, NULL},
    {"batches", SIM_PT_INT, SIM_U_NONE, 10, 256, 0, "32",
     "batch-means batches for confidence intervals",
     offsetof(struct cl_metrics, batches), NULL, NULL},
    {"requests", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "keep one row per request for the database's requests table (at most "
     "2^20 rows); dsec run --requests streams rows to a file without it",
     offsetof(struct cl_metrics, requests), NULL, NULL},
    {"replica_rows", SIM_PT_INT64, SIM_U_NONE, 100, 524288, 0, "50000",
     "most rows the per-replica series keeps: when it holds this many, "
     "adjacent rows of each replica merge two by two (rows twice as long, "
     "means weighted by time, counts added), so that memory stays flat "
     "however long the run",
     offsetof(struct cl_metrics, replica_rows), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param provision_rows[] = {
    {"dist", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "fixed",
     "provisioning-time distribution: fixed (mean_s), exponential (mean_s), "
     "lognormal (mean_s, sd_s), gamma (mean_s, cv)",
     offsetof(struct cl_dist, kind), provision_dists, NULL},
    {"mean_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, SIM_PARAM_HORIZON_S, 0, "120",
     "mean time from a request for a node to the node being ready (BLIS "
     "demo: node provisioning 120 +- 30 s, docs/sources.md §8.1)",
     offsetof(struct cl_dist, mean), NULL, NULL},
    {"sd_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "lognormal only: standard deviation of the provisioning time",
     offsetof(struct cl_dist, sd), NULL, NULL},
    {"cv", SIM_PT_DOUBLE, SIM_U_NONE, CL_CV_MIN, CL_CV_MAX, 0, NULL,
     "gamma only: coefficient of variation of the provisioning time",
     offsetof(struct cl_dist, cv), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param reclaim_rows[] = {
    {"at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, REQ, NULL,
     "when the owner gives notice; its GPUs are back by at + the pool's "
     "grace",
     offsetof(struct cl_reclaim, at_ns), NULL, NULL},
    {"gpus", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, REQ, NULL,
     "GPUs the owner takes back (at most capacity_gpus)",
     offsetof(struct cl_reclaim, gpus), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "how long the owner keeps them after the notice ends (default: to the "
     "end of the run)",
     offsetof(struct cl_reclaim, duration_ns), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_reclaim),
};

static const struct sim_param owner_demand_rows[] = {
    {"rate_per_h", SIM_PT_DOUBLE, SIM_U_NONE, 0, 3600, GT | REQ, NULL,
     "the owner's jobs per hour, a Poisson process (at most one a second)",
     offsetof(struct cl_owner_demand, rate_per_h), NULL, NULL},
    {"gpus", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, REQ, NULL,
     "GPUs each job takes (at most capacity_gpus)",
     offsetof(struct cl_owner_demand, gpus), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT | REQ, NULL,
     "how long each job holds its GPUs, after the pool's grace",
     offsetof(struct cl_owner_demand, duration_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param interruption_at_rows[] = {
    {"", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, NULL,
     "a time the provider gives notice", 0, NULL, NULL},
    SIM_PARAM_END_LIST(int64_t),
};

/* The notice: AWS EC2 gives a Spot Instance interruption notice two
 * minutes before it stops or terminates the instance (EC2 User Guide,
 * "Spot Instance interruption notices"); Google Compute Engine gives 30
 * seconds before it preempts a Spot or preemptible VM (Compute Engine
 * docs, "Spot VMs", preemption process). */
static const struct sim_param interruption_rows[] = {
    {"rate_per_h", SIM_PT_DOUBLE, SIM_U_NONE, 0, 60, GT, NULL,
     "interruptions per hour over the pool's whole capacity: each hits the "
     "replica holding a GPU drawn uniformly, none when that GPU is idle (at "
     "most one a minute, far above the worst band, > 20 % a month per "
     "instance, AWS's Spot Instance Advisor shows)",
     offsetof(struct cl_interruptions, rate_per_h), NULL, NULL},
    {.key = "at",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "times of interruptions (a trace), each of the oldest replica "
             "serving in the pool then",
     .offset = offsetof(struct cl_interruptions, at_ns),
     .sub = interruption_at_rows},
    {"notice", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "120s",
     "the provider's notice before it takes the GPUs (AWS EC2 Spot: 2 min; "
     "GCP Spot VMs: 30 s)",
     offsetof(struct cl_interruptions, notice_ns), NULL, NULL},
    {"trace", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "a CSV file of the provider's interruptions, one instance a row "
     "'time_s,gpus' in time order: each interrupts the oldest replicas "
     "serving in the pool then until that many GPUs are under notice (a "
     "relative path is relative to the scenario file)",
     offsetof(struct cl_interruptions, trace), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_pool_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "pool name, unique", offsetof(struct cl_pool, name), NULL, NULL},
    {"gpu", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "GPU catalog name (default: hardware.gpu)", offsetof(struct cl_pool, gpu),
     NULL, NULL},
    {"capacity_gpus", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, REQ, NULL,
     "most GPUs the pool can give", offsetof(struct cl_pool, capacity_gpus),
     NULL, NULL},
    {"price_per_gpu_hour", SIM_PT_DOUBLE, SIM_U_USD_PER_HOUR, 0, NOMAX, 0, NULL,
     "price of one GPU per hour in this pool (default: "
     "hardware.price_per_gpu_hour, else the catalog's)",
     offsetof(struct cl_pool, price_usd_per_gpu_hour), NULL, NULL},
    {"provision", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "time from asking for a node to the node being ready (default fixed "
     "120 s)",
     offsetof(struct cl_pool, provision), NULL, provision_rows},
    {"preemptible", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "spot capacity: cheaper by spot_discount, and the provider may take "
     "GPUs back (interruptions)",
     offsetof(struct cl_pool, preemptible), NULL, NULL},
    {"spot_discount", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MAX_EXCL,
     "0.6",
     "preemptible only: fraction off the GPU's price when "
     "price_per_gpu_hour is not given (GCP Spot VMs: 60-91 % off; AWS Spot: "
     "up to 90 %)",
     offsetof(struct cl_pool, spot_discount), NULL, NULL},
    {"interruptions", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "preemptible only: the provider takes a replica's GPUs back after a "
     "notice; it drains, then its unfinished requests restart elsewhere",
     offsetof(struct cl_pool, interruptions), NULL, interruption_rows},
    {"borrowable", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "a pool lent to us (e.g. a test cluster) that its owner takes back "
     "with notice",
     offsetof(struct cl_pool, borrowable), NULL, NULL},
    {"grace", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "30s",
     "borrowable only: notice given before borrowed GPUs are taken back "
     "(either way: the test work's, and ours at a reclaim)",
     offsetof(struct cl_pool, grace_ns), NULL, NULL},
    {.key = "reclaim",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "borrowable only: the owner takes GPUs back at given times, "
             "with grace as notice; borrowed replicas drain and what is "
             "left at the notice's end restarts elsewhere",
     .offset = offsetof(struct cl_pool, reclaim),
     .sub = reclaim_rows},
    {"owner_demand", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "borrowable only: the owner's own jobs, which take GPUs back as "
     "reclaims do",
     offsetof(struct cl_pool, owner_demand), NULL, owner_demand_rows},
    {"priority", SIM_PT_INT, SIM_U_NONE, NOMIN, NOMAX, 0, "0",
     "order in which pools are used; lower is preferred",
     offsetof(struct cl_pool, priority), NULL, NULL},
    {"reserved", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "capacity paid for whether used or not (a reservation)",
     offsetof(struct cl_pool, reserved), NULL, NULL},
    {"deploy", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the layout of this pool's replicas {tp, ep, pp, redundant_experts, "
     "expert_imbalance, micro_batches, max_num_seqs, "
     "max_num_batched_tokens}; each key left out is the top-level one "
     "(an llm server; not with deploy.disaggregation; "
     "docs/orchestrator.md)",
     offsetof(struct cl_pool, deploy), NULL, pool_layout_rows},
    SIM_PARAM_END_LIST(struct cl_pool),
};

static const struct sim_param fault_rows[] = {
    {"at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, REQ, NULL,
     "when the failure happens", offsetof(struct cl_fault, at_ns), NULL, NULL},
    {"kind", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "gpu",
     "gpu: one GPU (and its replica) fails; node: a whole node fails",
     offsetof(struct cl_fault, kind), fault_kinds, NULL},
    {"replica", SIM_PT_INT, SIM_U_NONE, -1, NOMAX, 0, "-1",
     "index of the replica hit among those serving then, in start order; "
     "-1: the oldest",
     offsetof(struct cl_fault, replica), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_fault),
};

static const struct sim_param link_fault_rows[] = {
    {"at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, REQ, NULL,
     "when the degradation starts", offsetof(struct cl_link_fault, at_ns), NULL,
     NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT | REQ, NULL,
     "how long it lasts", offsetof(struct cl_link_fault, duration_ns), NULL,
     NULL},
    {"factor", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT | REQ, NULL,
     "fraction of the tensor-parallel link bandwidth left (e.g. 0.5)",
     offsetof(struct cl_link_fault, factor), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_link_fault),
};

const struct sim_param cl_faults_rows[] = {
    {"gpu_mtbf", SIM_PT_DOUBLE, SIM_U_SECONDS, 3600, NOMAX, 0, NULL,
     "mean time between failures of one GPU, e.g. 50000h (default: no "
     "random failures); at least 1h: measured fleets see thousands of hours, "
     "and below an hour a cluster does nothing but fail",
     offsetof(struct cl_faults, gpu_mtbf_s), NULL, NULL},
    {.key = "scripted",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "failures at given times",
     .offset = offsetof(struct cl_faults, scripted),
     .sub = fault_rows},
    {.key = "links",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "link degradations: the tensor-parallel all-reduce slows by "
             "1/factor while one lasts (the strongest wins when they overlap)",
     .offset = offsetof(struct cl_faults, links),
     .sub = link_fault_rows},
    {"recovery", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "memory",
     "where a restarted replica reloads its weights: memory (a surviving "
     "host or peer copy) or storage (deploy.weights_source)",
     offsetof(struct cl_faults, recovery), recoveries, NULL},
    {"detect", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "10s",
     "time from a failure to its detection",
     offsetof(struct cl_faults, detect_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* The layout of one policy.params entry, for sim_param_fini(): the loader
 * fills key and value itself (they are not document keys). */
static const struct sim_param policy_param_rows[] = {
    {"key", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the parameter's name", offsetof(struct cl_policy_param, key), NULL, NULL},
    {"value", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the parameter's scalar text", offsetof(struct cl_policy_param, value),
     NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_policy_param),
};

const struct sim_param cl_policy_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "scaling policy (dsec help policies; default: target-latency for a "
     "min_gpus/max_gpus cluster)",
     offsetof(struct cl_policy, name), NULL, NULL},
    {"plugin", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "a policy plug-in: the path of a shared object exporting "
     "dsec_policy_plugin, relative to the scenario (docs/policies.md); "
     "policy.name may then be omitted",
     offsetof(struct cl_policy, plugin), NULL, NULL},
    {"interval", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, "15s",
     "time between decisions (Kubernetes HPA sync period 15 s, docs/sources.md "
     "§8)",
     offsetof(struct cl_policy, interval_ns), NULL, NULL},
    {"window", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, "60s",
     "span of the windowed rates and quantiles the policy sees (Knative "
     "stable window 60 s, docs/sources.md §8)",
     offsetof(struct cl_policy, window_ns), NULL, NULL},
    {"scale_up_cooldown", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "no scale-up sooner than this after a scale-up (HPA scale-up window 0, "
     "docs/sources.md §8)",
     offsetof(struct cl_policy, scale_up_cooldown_ns), NULL, NULL},
    {"scale_down_cooldown", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "300s",
     "no scale-down sooner than this after any change (HPA scale-down "
     "stabilisation window 300 s, docs/sources.md §8)",
     offsetof(struct cl_policy, scale_down_cooldown_ns), NULL, NULL},
    {"max_step_up", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, "8",
     "most replicas added by one decision",
     offsetof(struct cl_policy, max_step_up), NULL, NULL},
    {"max_step_down", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, "1",
     "most replicas removed by one decision",
     offsetof(struct cl_policy, max_step_down), NULL, NULL},
    {.key = "params",
     .type = SIM_PT_MAP,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .flags = SIM_PF_SCALARS,
     .help = "the policy's own parameters, key: value (checked against the "
             "policy's table; see dsec help policies)",
     .offset = offsetof(struct cl_policy, params),
     .sub = policy_param_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

void cl_scenario_fini(struct cl_scenario *s)
{
    if (s == NULL)
        return;
    /* The pools' traces, which their rows do not name. */
    for (int i = 0; i < s->npools && s->pools != NULL; i++) {
        free(s->pools[i].interruptions.trace_at_ns);
        free(s->pools[i].interruptions.trace_gpus);
    }
    sim_param_fini(s->rows, s);
    /* model: {hf_config: PATH}, the mapping form of the top-level model
     * key, which the composition table has no row for. */
    sim_param_fini(cl_model_src_rows, &s->model_src);
    free(s->file);
    free(s->text);
    arch_hf_free(s->model_arch);
    free(s->gpu_specs);
    perf_calib_fini(s->calib);
    free(s->calib);
    memset(s, 0, sizeof(*s));
}

const char *cl_pd_group_name(int g)
{
    return g == CL_PD_PREFILL ? "prefill" : "decode";
}

/* Fills the keys of l left unset from the top-level deploy and server
 * keys (all but pp, which only a pool's layout has). */
static void layout_fallback(struct cl_pd_layout *l, const struct cl_scenario *s)
{
    const struct cl_deploy *dp = &s->deploy;
    const struct cl_server *sv = &s->server;

    if (l->tp < 1)
        l->tp = dp->tp;
    if (l->ep < 1)
        l->ep = dp->ep;
    if (l->redundant_experts < 0)
        l->redundant_experts = dp->redundant_experts;
    if (isnan(l->expert_imbalance) || l->expert_imbalance < 1)
        l->expert_imbalance = dp->expert_imbalance;
    if (l->micro_batches < 1)
        l->micro_batches = sv->micro_batches;
    if (l->max_num_seqs < 1)
        l->max_num_seqs = sv->max_num_seqs;
    if (l->max_num_batched_tokens < 1)
        l->max_num_batched_tokens = sv->max_num_batched_tokens;
}

struct cl_pd_layout cl_pd_layout_resolve(const struct cl_scenario *s, int g)
{
    const struct cl_deploy *dp = &s->deploy;
    struct cl_pd_layout l = g == CL_PD_PREFILL ? dp->disaggregation.prefill
                                               : dp->disaggregation.decode;

    layout_fallback(&l, s);
    return l;
}

struct cl_pd_layout cl_pool_layout_resolve(const struct cl_scenario *s, int i)
{
    struct cl_pd_layout l;

    if (i >= 0 && i < s->npools && s->pools[i].has_deploy) {
        l = s->pools[i].deploy;
    } else {
        memset(&l, 0, sizeof(l));
        l.tp = l.ep = l.pp = l.redundant_experts = -1;
        l.micro_batches = l.max_num_seqs = -1;
        l.max_num_batched_tokens = -1;
        l.expert_imbalance = NAN;
    }
    layout_fallback(&l, s);
    if (l.pp < 1)
        l.pp = s->deploy.pp;
    l.min_replicas = l.max_replicas = -1;
    return l;
}

int cl_pools_mixed(const struct cl_scenario *s)
{
    for (int i = 0; i < s->npools; i++)
        if (s->pools[i].has_deploy)
            return 1;
    return 0;
}

const struct gpu_spec *cl_gpu_find(const struct cl_scenario *s,
                                   const char *name)
{
    if (name == NULL)
        return NULL;
    for (int i = 0; s != NULL && s->gpu_specs != NULL && i < s->hardware.ngpus;
         i++) {
        if (strcasecmp(s->gpu_specs[i].name, name) == 0)
            return &s->gpu_specs[i];
    }
    return gpu_find(name);
}

char *cl_gpu_names(const struct cl_scenario *s)
{
    char *cat = gpu_names(), *out;
    size_t len = strlen(cat) + 1;
    int n = s != NULL && s->gpu_specs != NULL ? s->hardware.ngpus : 0;

    for (int i = 0; i < n; i++)
        len += strlen(s->gpu_specs[i].name) + 2;
    out = xmalloc(len);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strcat(out, s->gpu_specs[i].name);
        strcat(out, ", ");
    }
    strcat(out, cat);
    free(cat);
    return out;
}

/* ---- the serving sections' cross-field checks ---- */

/* server.speculative: tokens and acceptance mean nothing without a
 * method; ngram has no default acceptance; mtp takes DeepSeek's. */
static void spec_check(struct sim_yaml *y, struct cl_spec *sp)
{
    int line, col;

    if (sp->method == PERF_SPEC_NONE) {
        sim_yaml_not_used(y, "server.speculative", "tokens", "method none");
        sim_yaml_not_used(y, "server.speculative", "acceptance", "method none");
        sp->tokens = 0;
        sp->acceptance = 0.0;
        return;
    }
    if (!isnan(sp->acceptance))
        return;
    if (sp->method == PERF_SPEC_MTP) {
        sp->acceptance = CL_SPEC_MTP_ACCEPTANCE;
        return;
    }
    sim_yaml_section_pos(y, "server.speculative", &line, &col);
    sim_yaml_error(y, line, col,
                   "server.speculative: missing key 'acceptance' (required "
                   "by method %s: how often a drafted token is accepted "
                   "depends on the workload)",
                   perf_spec_name(sp->method));
}

void cl_server_check(struct sim_yaml *y, struct cl_scenario *s)
{
    static const char *const service_keys[] = {"sd_s", "cv", NULL};
    struct cl_server *sv = &s->server;
    int line, col;

    if (sim_yaml_seen(y, "server.kind") == NULL)
        sv->kind = s->model != NULL || s->model_src.hf_config != NULL ||
                           s->deploy.model_path != NULL
                       ? CL_SRV_LLM
                       : CL_SRV_ABSTRACT;
    sv->service.value = sv->service.min = sv->service.max = NAN;
    if (sv->kind < 0)
        return; /* an unknown kind, already reported */
    if (sv->kind == CL_SRV_LLM) {
        const struct sim_yaml_seen *hr =
            sim_yaml_seen(y, "workload.prefix_hit_rate");
        for (const struct sim_param *p = cl_server_rows; p->key != NULL; p++)
            if (p->flags & CL_PF_ABSTRACT)
                sim_yaml_not_used(y, "server", p->key, "kind llm");
        if (hr != NULL && !sv->prefix_caching)
            sim_yaml_error(y, hr->kline, hr->kcol,
                           "workload.prefix_hit_rate: needs "
                           "server.prefix_caching: true");
        spec_check(y, &sv->speculative);
        return;
    }
    for (const struct sim_param *p = cl_server_rows; p->key != NULL; p++)
        if (p->flags & CL_PF_LLM)
            sim_yaml_not_used(y, "server", p->key, "kind abstract");
    if (sim_yaml_seen(y, "server.service") == NULL) {
        sim_yaml_section_pos(y, "server", &line, &col);
        sim_yaml_error(
            y, line, col,
            "server: missing key 'service' (required by kind abstract)");
        return;
    }
    if (sim_yaml_seen(y, "server.service.dist") != NULL &&
        sv->service.kind >= 0) {
        unsigned used = 0;
        char what[64];
        if (sv->service.kind == CL_DIST_LOGNORMAL)
            used = 1u << 0;
        else if (sv->service.kind == CL_DIST_GAMMA)
            used = 1u << 1;
        snprintf(what, sizeof(what), "dist %s",
                 sim_yaml_choice_name(service_rows, "dist", sv->service.kind));
        sim_yaml_check_keys(y, "server.service", service_keys, used, 0, what);
    }
}

void cl_cluster_check(struct sim_yaml *y, struct cl_scenario *s)
{
    struct cl_cluster *cl = &s->cluster;
    const struct sim_yaml_seen *r = sim_yaml_seen(y, "cluster.replicas");
    const struct sim_yaml_seen *mn = sim_yaml_seen(y, "cluster.min_gpus");
    const struct sim_yaml_seen *mx = sim_yaml_seen(y, "cluster.max_gpus");
    int line, col;

    if (r != NULL && (mn != NULL || mx != NULL)) {
        sim_yaml_error(y, r->kline, r->kcol,
                       "cluster.replicas: give either replicas or min_gpus and "
                       "max_gpus, not both");
    } else if ((mn == NULL) != (mx == NULL)) {
        sim_yaml_section_pos(y, "cluster", &line, &col);
        sim_yaml_error(y, line, col,
                       "cluster: missing key '%s' (min_gpus and max_gpus go "
                       "together)",
                       mn == NULL ? "min_gpus" : "max_gpus");
    } else if (mn != NULL && cl->min_gpus > 0 && cl->max_gpus > 0 &&
               cl->min_gpus > cl->max_gpus) {
        sim_yaml_error(y, mn->vline, mn->vcol,
                       "cluster.min_gpus: %d greater than max_gpus %d",
                       cl->min_gpus, cl->max_gpus);
    } else if (r == NULL && mn == NULL) {
        cl->replicas = 1;
    }
    if (s->slo.tpot_ns < 0 && cl->target_latency_ns > 0)
        s->slo.tpot_ns = cl->target_latency_ns;

    const struct sim_yaml_seen *dg = sim_yaml_seen(y, "deploy.disaggregation");
    if (dg != NULL) {
        struct cl_disagg *g = &s->deploy.disaggregation;
        int sum = g->prefill_replicas + g->decode_replicas;
        g->enabled = 1;
        if (mn == NULL && mx == NULL) {
            /* Static: the bounds mean nothing. */
            for (int k = 0; k < CL_PD_GROUPS; k++) {
                char path[64];
                snprintf(path, sizeof(path), "deploy.disaggregation.%s",
                         cl_pd_group_name(k));
                sim_yaml_not_used(y, path, "min_replicas",
                                  "a static cluster (give cluster.min_gpus "
                                  "and max_gpus)");
                sim_yaml_not_used(y, path, "max_replicas",
                                  "a static cluster (give cluster.min_gpus "
                                  "and max_gpus)");
            }
        }
        if (mn != NULL || mx != NULL) {
            /* Elastic: each group starts at its replicas, within its
             * bounds. */
            for (int k = 0; k < CL_PD_GROUPS; k++) {
                struct cl_pd_layout *l =
                    k == CL_PD_PREFILL ? &g->prefill : &g->decode;
                int n = k == CL_PD_PREFILL ? g->prefill_replicas
                                           : g->decode_replicas;
                int lo = l->min_replicas > 0 ? l->min_replicas : 1;
                if (n > 0 &&
                    (n < lo || (l->max_replicas > 0 && n > l->max_replicas)))
                    sim_yaml_error(
                        y, dg->kline, dg->kcol,
                        "deploy.disaggregation: %s_replicas %d is outside "
                        "the %s group's bounds [%d, %d]",
                        cl_pd_group_name(k), n, cl_pd_group_name(k), lo,
                        l->max_replicas > 0 ? l->max_replicas : n);
                else if (l->max_replicas > 0 && l->max_replicas < lo)
                    sim_yaml_error(y, dg->kline, dg->kcol,
                                   "deploy.disaggregation.%s: max_replicas "
                                   "%d is below min_replicas %d",
                                   cl_pd_group_name(k), l->max_replicas, lo);
            }
        }
        if (s->server.kind != CL_SRV_LLM)
            sim_yaml_error(y, dg->kline, dg->kcol,
                           "deploy.disaggregation: needs server kind llm");
        else if (r != NULL && g->prefill_replicas > 0 &&
                 g->decode_replicas > 0 && cl->replicas != sum)
            sim_yaml_error(y, r->vline, r->vcol,
                           "cluster.replicas: %d differs from "
                           "deploy.disaggregation prefill_replicas + "
                           "decode_replicas = %d",
                           cl->replicas, sum);
        else if (g->prefill_replicas > 0 && g->decode_replicas > 0 &&
                 mn == NULL && mx == NULL)
            cl->replicas = sum;
    }

    const struct sim_yaml_seen *gz =
        sim_yaml_seen(y, "cluster.scale_to_zero_grace");
    if (gz != NULL && (mn == NULL || cl->min_gpus != 0))
        sim_yaml_error(y, gz->kline, gz->kcol,
                       "cluster.scale_to_zero_grace: only used with "
                       "cluster.min_gpus 0");

    const struct sim_yaml_seen *ig = sim_yaml_seen(y, "cluster.initial_gpus");
    if (ig != NULL && mn == NULL && mx == NULL) {
        sim_yaml_error(
            y, ig->kline, ig->kcol,
            "cluster.initial_gpus: not used by a static cluster (give "
            "min_gpus and max_gpus)");
    } else if (ig != NULL && cl->initial_gpus >= 0 && cl->min_gpus >= 0 &&
               cl->max_gpus > 0 &&
               (cl->initial_gpus < cl->min_gpus ||
                cl->initial_gpus > cl->max_gpus)) {
        sim_yaml_error(
            y, ig->vline, ig->vcol,
            "cluster.initial_gpus: %d outside [min_gpus, max_gpus] = "
            "[%d, %d]",
            cl->initial_gpus, cl->min_gpus, cl->max_gpus);
    }
}

/* The keys by which GPUs of pool pl (pools[i]) are taken back: no more
 * GPUs than the pool has, interruptions given some source, and a spot
 * discount only off the catalog price. */
static void pool_revoke_check(struct sim_yaml *y, const struct cl_pool *pl,
                              int i)
{
    const struct sim_yaml_seen *k;

    for (int r = 0; r < pl->nreclaim && pl->capacity_gpus > 0; r++)
        if (pl->reclaim[r].gpus > pl->capacity_gpus &&
            (k = sim_yaml_seenf(y, "pools[%d].reclaim[%d].gpus", i, r)) != NULL)
            sim_yaml_error(y, k->vline, k->vcol,
                           "pools[%d].reclaim[%d].gpus: %d more than the "
                           "pool's capacity_gpus %d",
                           i, r, pl->reclaim[r].gpus, pl->capacity_gpus);
    k = sim_yaml_seenf(y, "pools[%d].owner_demand.gpus", i);
    if (k != NULL && pl->capacity_gpus > 0 &&
        pl->owner_demand.gpus > pl->capacity_gpus)
        sim_yaml_error(y, k->vline, k->vcol,
                       "pools[%d].owner_demand.gpus: %d more than the pool's "
                       "capacity_gpus %d",
                       i, pl->owner_demand.gpus, pl->capacity_gpus);
    k = sim_yaml_seenf(y, "pools[%d].interruptions", i);
    if (k != NULL && isnan(pl->interruptions.rate_per_h) &&
        pl->interruptions.nat == 0 && pl->interruptions.trace == NULL)
        sim_yaml_error(y, k->kline, k->kcol,
                       "pools[%d].interruptions: missing key 'rate_per_h', "
                       "'at' or 'trace'",
                       i);
    k = sim_yaml_seenf(y, "pools[%d].spot_discount", i);
    if (k != NULL && sim_yaml_seenf(y, "pools[%d].price_per_gpu_hour", i))
        sim_yaml_error(y, k->kline, k->kcol,
                       "pools[%d].spot_discount: give exactly one of "
                       "'price_per_gpu_hour' or 'spot_discount'",
                       i);
}

void cl_pools_check(struct sim_yaml *y, struct cl_scenario *s)
{
    static const char *const prov_keys[] = {"sd_s", "cv", NULL};
    const struct sim_yaml_seen *pk = sim_yaml_seen(y, "pools");
    long total = 0;

    if (pk == NULL)
        return;
    if (sim_yaml_seen(y, "cluster.min_gpus") == NULL ||
        sim_yaml_seen(y, "cluster.max_gpus") == NULL) {
        sim_yaml_error(y, pk->kline, pk->kcol,
                       "pools: needs an elastic cluster (cluster.min_gpus and "
                       "max_gpus)");
        return;
    }
    for (int i = 0; i < s->npools; i++) {
        struct cl_pool *pl = &s->pools[i];
        char path[64];

        total += pl->capacity_gpus > 0 ? pl->capacity_gpus : 0;
        for (int j = 0; j < i && pl->name != NULL; j++)
            if (s->pools[j].name != NULL &&
                strcmp(s->pools[j].name, pl->name) == 0) {
                const struct sim_yaml_seen *n =
                    sim_yaml_seenf(y, "pools[%d].name", i);
                sim_yaml_error(y, n->vline, n->vcol,
                               "pools[%d].name: duplicate pool name '%s' (also "
                               "pools[%d])",
                               i, pl->name, j);
                break;
            }
        snprintf(path, sizeof(path), "pools[%d]", i);
        if (!pl->borrowable) {
            sim_yaml_not_used(y, path, "grace",
                              "a pool that is not borrowable");
            sim_yaml_not_used(y, path, "reclaim",
                              "a pool that is not borrowable");
            sim_yaml_not_used(y, path, "owner_demand",
                              "a pool that is not borrowable");
        }
        if (!pl->preemptible) {
            sim_yaml_not_used(y, path, "spot_discount",
                              "a pool that is not preemptible");
            sim_yaml_not_used(y, path, "interruptions",
                              "a pool that is not preemptible");
        }
        pool_revoke_check(y, pl, i);
        snprintf(path, sizeof(path), "pools[%d].deploy", i);
        const struct sim_yaml_seen *dk = sim_yaml_seen(y, path);
        if (dk != NULL) {
            pl->has_deploy = 1;
            pl->deploy_pos.line = dk->kline;
            pl->deploy_pos.col = dk->kcol;
            if (s->server.kind != CL_SRV_LLM)
                sim_yaml_error(y, dk->kline, dk->kcol,
                               "pools[%d].deploy: needs server kind llm", i);
            else if (sim_yaml_seen(y, "deploy.disaggregation") != NULL)
                sim_yaml_error(y, dk->kline, dk->kcol,
                               "pools[%d].deploy: a pool's own layout is not "
                               "simulated with deploy.disaggregation (give "
                               "each group's layout there)",
                               i);
        }
        snprintf(path, sizeof(path), "pools[%d].provision", i);
        if (sim_yaml_seen(y, path) != NULL && pl->provision.kind >= 0) {
            unsigned used = 0;
            char what[64];
            if (pl->provision.kind == CL_DIST_LOGNORMAL)
                used = 1u << 0;
            else if (pl->provision.kind == CL_DIST_GAMMA)
                used = 1u << 1;
            snprintf(what, sizeof(what), "dist %s",
                     sim_yaml_choice_name(provision_rows, "dist",
                                          pl->provision.kind));
            sim_yaml_check_keys(y, path, prov_keys, used, 0, what);
            if (pl->provision.kind != CL_DIST_FIXED &&
                !(pl->provision.mean > 0)) {
                const struct sim_yaml_seen *m =
                    sim_yaml_seenf(y, "%s.mean_s", path);
                const struct sim_yaml_seen *at =
                    m != NULL ? m : sim_yaml_seen(y, path);
                sim_yaml_error(y, m ? m->vline : at->kline,
                               m ? m->vcol : at->kcol,
                               "%s.mean_s: dist %s needs a mean above 0 "
                               "(dist fixed takes 0: no delay)",
                               path,
                               sim_yaml_choice_name(provision_rows, "dist",
                                                    pl->provision.kind));
            }
        }
        pl->provision.value =
            pl->provision.kind == CL_DIST_FIXED ? pl->provision.mean : NAN;
        pl->provision.min = pl->provision.max = NAN;
    }
    if (s->cluster.min_gpus > 0 && total < s->cluster.min_gpus)
        sim_yaml_error(
            y, pk->kline, pk->kcol,
            "pools: total capacity_gpus %ld less than cluster.min_gpus "
            "%d",
            total, s->cluster.min_gpus);
}

static const char *scope_pool_name(const void *ctx, int i)
{
    const struct cl_scenario *s = ctx;

    return s->pools[i].name;
}

static int scope_has_gpu(const void *ctx, const char *name)
{
    return cl_gpu_find(ctx, name) != NULL;
}

static char *scope_gpu_names(const void *ctx)
{
    return cl_gpu_names(ctx);
}

struct train_config_scope cl_train_scope(const struct cl_scenario *s)
{
    struct train_config_scope sc = {
        .ctx = s,
        .npools = s->npools,
        .pool_name = scope_pool_name,
        .has_gpu = scope_has_gpu,
        .gpu_names = scope_gpu_names,
    };

    return sc;
}
