/* The rows of the scenario's `workload:` section (see config.h), in the
 * order `dsec help scenario` prints them; enum choices are alphabetical,
 * the order messages list them in. After the walk, wl_workload_check()
 * checks the rules that span several keys (exactly one of synthetic,
 * trace, inference_perf and vllm_bench, the keys a distribution, data type
 * or dataset uses, the order of the rate steps). */
#include "models/workload/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "base/yaml-rows.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define GT SIM_PF_MIN_EXCL
#define REQ SIM_PF_REQUIRED

/* Offsets inside the unnamed structs of struct cl_workload. */
#define SYN(f)                                                                 \
    (offsetof(struct cl_workload, synthetic.f) -                               \
     offsetof(struct cl_workload, synthetic))
#define TRC(f)                                                                 \
    (offsetof(struct cl_workload, trace.f) -                                   \
     offsetof(struct cl_workload, trace))

static const struct sim_param_choice length_dists[] = {
    {"fixed", CL_DIST_FIXED},
    {"lognormal", CL_DIST_LOGNORMAL},
    {"uniform", CL_DIST_UNIFORM},
    {NULL, 0},
};

static const struct sim_param_choice processes[] = {
    {"deterministic", CL_ARR_DETERMINISTIC},
    {"gamma", CL_ARR_GAMMA},
    {"poisson", CL_ARR_POISSON},
    {NULL, 0},
};

static const struct sim_param_choice trace_formats[] = {
    {"azure", CL_TRACE_AZURE},
    {"burstgpt", CL_TRACE_BURSTGPT},
    {"mooncake", CL_TRACE_MOONCAKE},
    {"servegen", CL_TRACE_SERVEGEN},
    {NULL, 0},
};

/* The longest a length may be: an int's worth of tokens (WL_TOKENS_MAX,
 * models/workload/source.h), far past any model's context. */
#define LEN_MAX 2147483647.0

static const struct sim_param length_dist_rows[] = {
    {"dist", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "length distribution: fixed (value), uniform (min, max), lognormal "
     "(mean, sd)",
     offsetof(struct cl_dist, kind), length_dists, NULL},
    {"value", SIM_PT_DOUBLE, SIM_U_TOKENS, 1, LEN_MAX, 0, NULL,
     "fixed: every request has this many tokens",
     offsetof(struct cl_dist, value), NULL, NULL},
    {"min", SIM_PT_DOUBLE, SIM_U_TOKENS, 1, LEN_MAX, 0, NULL,
     "uniform: smallest length (integers in [min, max])",
     offsetof(struct cl_dist, min), NULL, NULL},
    {"max", SIM_PT_DOUBLE, SIM_U_TOKENS, 1, LEN_MAX, 0, NULL,
     "uniform: largest length, >= min; lognormal: optional cap, longer "
     "draws are cut to it (as an API's max_tokens)",
     offsetof(struct cl_dist, max), NULL, NULL},
    {"mean", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, LEN_MAX, GT, NULL,
     "lognormal: mean of the length itself (not of its logarithm)",
     offsetof(struct cl_dist, mean), NULL, NULL},
    {"sd", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, LEN_MAX, GT, NULL,
     "lognormal: standard deviation of the length itself",
     offsetof(struct cl_dist, sd), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* A session's number of turns: the rows of a length distribution with
 * counts of turns, not tokens. */
static const struct sim_param turns_dist_rows[] = {
    {"dist", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "distribution of the turns: fixed (value), uniform (min, max), "
     "lognormal (mean, sd)",
     offsetof(struct cl_dist, kind), length_dists, NULL},
    {"value", SIM_PT_DOUBLE, SIM_U_NONE, 1, LEN_MAX, 0, NULL,
     "fixed: every session has this many turns",
     offsetof(struct cl_dist, value), NULL, NULL},
    {"min", SIM_PT_DOUBLE, SIM_U_NONE, 1, LEN_MAX, 0, NULL,
     "uniform: fewest turns (integers in [min, max])",
     offsetof(struct cl_dist, min), NULL, NULL},
    {"max", SIM_PT_DOUBLE, SIM_U_NONE, 1, LEN_MAX, 0, NULL,
     "uniform: most turns, >= min; lognormal: optional cap, longer draws "
     "are cut to it",
     offsetof(struct cl_dist, max), NULL, NULL},
    {"mean", SIM_PT_DOUBLE, SIM_U_NONE, 0, LEN_MAX, GT, NULL,
     "lognormal: mean number of turns (not of its logarithm)",
     offsetof(struct cl_dist, mean), NULL, NULL},
    {"sd", SIM_PT_DOUBLE, SIM_U_NONE, 0, LEN_MAX, GT, NULL,
     "lognormal: standard deviation of the number of turns",
     offsetof(struct cl_dist, sd), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define SES(f) offsetof(struct cl_sessions, f)

static const struct sim_param sessions_rows[] = {
    {"turns", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "turns per session, a distribution of counts (default fixed 4)",
     SES(turns), NULL, turns_dist_rows},
    {"think_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "30s",
     "mean of the exponential time from one turn's arrival to the next's "
     "(open loop: it does not wait for the answer)",
     SES(think_time_ns), NULL, NULL},
    {"system_prompt_tokens", SIM_PT_INT64, SIM_U_TOKENS, 0, NOMAX, 0, "0",
     "tokens of a system prompt every session starts with (shared by all)",
     SES(system_prompt_tokens), NULL, NULL},
    {"block_tokens", SIM_PT_INT, SIM_U_TOKENS, 1, NOMAX, 0, "16",
     "tokens per emitted prefix-block hash (Mooncake uses 512)",
     SES(block_tokens), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define PROF(f) offsetof(struct cl_rate_profile, f)

SIM_PARAM_COUNT_AFTER(struct cl_rate_profile, steps, nsteps);
SIM_PARAM_COUNT_AFTER(struct cl_workload, priority_classes, npriority_classes);

static const struct sim_param prio_class_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "class name, as the summary reports it",
     offsetof(struct cl_prio_class, name), NULL, NULL},
    {"share", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT | REQ, NULL,
     "relative share of the arrivals (shares are normalised to sum 1)",
     offsetof(struct cl_prio_class, share), NULL, NULL},
    {"priority", SIM_PT_INT, SIM_U_NONE, NOMIN, NOMAX, 0, "0",
     "lower is served first by server.scheduling: priority (vLLM)",
     offsetof(struct cl_prio_class, priority), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_prio_class),
};

static const struct sim_param diurnal_rows[] = {
    {"period", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, "24h",
     "length of one cycle (a compressed day, e.g. 2h, replays a daily "
     "pattern faster)",
     PROF(period_ns), NULL, NULL},
    {"amplitude", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MAX_EXCL | REQ,
     NULL,
     "relative swing a: the rate multiplier is 1 + a cos(2 pi (t - "
     "peak_at) / period), so the peak is (1 + a) and the trough (1 - a) "
     "times rate_per_s",
     PROF(amplitude), NULL, NULL},
    {"peak_at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "14h",
     "time of the peak within the cycle, from the start of the run",
     PROF(peak_at_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param step_rows[] = {
    {"at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, REQ, NULL,
     "when the change starts; steps must be sorted by at, strictly",
     offsetof(struct cl_rate_step, at_ns), NULL, NULL},
    {"multiplier", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1e6, GT | REQ, NULL,
     "rate multiplier reached (the rate becomes multiplier x rate_per_s)",
     offsetof(struct cl_rate_step, multiplier), NULL, NULL},
    {"ramp", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "time over which the multiplier moves linearly from its current value "
     "to the new one; 0 is a jump",
     offsetof(struct cl_rate_step, ramp_ns), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_rate_step),
};

static const struct sim_param arrival_rows[] = {
    {"process", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "poisson",
     "inter-arrival process: poisson (exponential gaps), deterministic "
     "(equal gaps), gamma (gaps with coefficient of variation cv)",
     offsetof(struct cl_arrival, process), processes, NULL},
    {"rate_per_s", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e6, GT | REQ, NULL,
     "mean arrival rate", offsetof(struct cl_arrival, rate_per_s), NULL, NULL},
    {"cv", SIM_PT_DOUBLE, SIM_U_NONE, 0.01, 100, 0, NULL,
     "gamma only (and required there): coefficient of variation of the gaps; "
     "1 is poisson, > 1 bursty; in [0.01, 100]: below, the gaps are equal to "
     "4 digits (use deterministic); above, the gamma shape 1/cv^2 is so "
     "small that gaps underflow to 0",
     offsetof(struct cl_arrival, cv), NULL, NULL},
    {"diurnal", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "a daily cycle of the rate (at most one of diurnal, steps); any process "
     "is time-rescaled to follow it",
     offsetof(struct cl_arrival, profile), NULL, diurnal_rows},
    {.key = "steps",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "changes of the rate multiplier over time, e.g. a flash crowd "
             "(at most one of diurnal, steps); the multiplier starts at 1",
     .offset = offsetof(struct cl_arrival, profile.steps),
     .sub = step_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param synthetic_rows[] = {
    {"arrival", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "when requests arrive", SYN(arrival), NULL, arrival_rows},
    {"requests", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "stop after this many requests (give exactly one of requests, duration)",
     SYN(requests), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "stop arrivals after this much simulated time (exactly one of requests, "
     "duration)",
     SYN(duration_ns), NULL, NULL},
    {"prompt_tokens", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "prompt length distribution; required by server kind llm, fixed 1 "
     "otherwise",
     SYN(prompt_tokens), NULL, length_dist_rows},
    {"output_tokens", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "output length distribution; required by server kind llm, fixed 1 "
     "otherwise",
     SYN(output_tokens), NULL, length_dist_rows},
    {"sessions", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "multi-turn conversations: arrival is the session rate, "
     "prompt_tokens the new tokens of each turn, output_tokens each "
     "turn's answer; a turn's prompt repeats the whole conversation so "
     "far, so prefixes are reused (docs/workloads.md)",
     SYN(sessions), NULL, sessions_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param trace_rows[] = {
    {"format", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "azure",
     "trace format; azure: CSV TIMESTAMP,ContextTokens,GeneratedTokens; "
     "mooncake: JSONL timestamp (ms), input_length, output_length, hash_ids; "
     "burstgpt: CSV Timestamp,Model,Request tokens,Response tokens,...; "
     "servegen: per-client rate statistics (arrivals generated)",
     TRC(format), trace_formats, NULL},
    {"path", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "trace file (servegen: a folder of chunk-<id>-trace.csv and "
     "chunk-<id>-dataset.json, or one chunk-<id>-trace.csv); a relative path "
     "is relative to the scenario file; dsec run --trace overrides it",
     TRC(path), NULL, NULL},
    {"model", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "burstgpt only: replay only rows whose Model equals this (ChatGPT, "
     "GPT-4; default: all)",
     TRC(model), NULL, NULL},
    {"clients", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "servegen only: client ids separated by commas (\"3, 17\"), or all "
     "(default)",
     TRC(clients), NULL, NULL},
    {"time_scale", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT, "1",
     "multiplies the gaps between arrivals", TRC(time_scale), NULL, NULL},
    {"rate_scale", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT, "1",
     "multiplies the arrival rate (divides the gaps)", TRC(rate_scale), NULL,
     NULL},
    {"requests", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "stop after this many rows (default: all)", TRC(requests), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "stop after this much (scaled) trace time (default: all)",
     TRC(duration_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- workload.inference_perf (kubernetes-sigs/inference-perf) ---- */

static const struct sim_param_choice ip_data_types[] = {
    {"random", CL_IP_DATA_RANDOM},
    {"shared_prefix", CL_IP_DATA_SHARED_PREFIX},
    {"synthetic", CL_IP_DATA_SYNTHETIC},
    {NULL, 0},
};

static const struct sim_param_choice ip_load_types[] = {
    {"constant", CL_IP_LOAD_CONSTANT},
    {"poisson", CL_IP_LOAD_POISSON},
    {NULL, 0},
};

#define IPD(f) offsetof(struct cl_ip_distribution, f)
#define IPSP(f)                                                                \
    (offsetof(struct cl_inference_perf, data.shared_prefix.f) -                \
     offsetof(struct cl_inference_perf, data.shared_prefix))
#define IPDATA(f)                                                              \
    (offsetof(struct cl_inference_perf, data.f) -                              \
     offsetof(struct cl_inference_perf, data))
#define IPLOAD(f)                                                              \
    (offsetof(struct cl_inference_perf, load.f) -                              \
     offsetof(struct cl_inference_perf, load))

SIM_PARAM_COUNT_AFTER(struct cl_inference_perf, load.stages, load.nstages);

static const struct sim_param ip_distribution_rows[] = {
    {"min", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, NOMAX, REQ, NULL,
     "smallest length; draws below it are raised to it (0 is sent as 1)",
     IPD(min), NULL, NULL},
    {"max", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, NOMAX, REQ, NULL,
     "largest length, >= min; draws above it are cut to it", IPD(max), NULL,
     NULL},
    {"mean", SIM_PT_DOUBLE, SIM_U_TOKENS, NOMIN, NOMAX, REQ, NULL,
     "mean of the normal distribution the lengths are drawn from", IPD(mean),
     NULL, NULL},
    {"std", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, NOMAX, REQ, NULL,
     "standard deviation of that normal distribution (0: always the mean)",
     IPD(std), NULL, NULL},
    {"total_count", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "accepted and not used: inference-perf draws this many lengths up "
     "front and cycles through them, dsec draws one per request from the "
     "same distribution",
     IPD(total_count), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param ip_shared_prefix_rows[] = {
    {"num_groups", SIM_PT_INT64, SIM_U_NONE, 1, 1e6, REQ, NULL,
     "number of system prompts (groups)", IPSP(num_groups), NULL, NULL},
    {"num_prompts_per_group", SIM_PT_INT64, SIM_U_NONE, 1, 1e6, REQ, NULL,
     "questions per system prompt; request n of a stage sends prompt n mod "
     "(num_groups x num_prompts_per_group)",
     IPSP(num_prompts_per_group), NULL, NULL},
    {"system_prompt_len", SIM_PT_INT64, SIM_U_TOKENS, 0, 1e9, REQ, NULL,
     "tokens of each group's system prompt, shared by its questions",
     IPSP(system_prompt_len), NULL, NULL},
    {"question_len", SIM_PT_INT64, SIM_U_TOKENS, 1, 1e9, REQ, NULL,
     "tokens of each question (after the system prompt)", IPSP(question_len),
     NULL, NULL},
    {"output_len", SIM_PT_INT64, SIM_U_TOKENS, 1, 1e9, REQ, NULL,
     "output tokens of every request, exactly", IPSP(output_len), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param ip_data_rows[] = {
    {"type", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "prompts: shared_prefix (groups of questions behind shared system "
     "prompts, with prefix block hashes), random or synthetic (lengths from "
     "input_distribution and output_distribution, random tokens)",
     IPDATA(type), ip_data_types, NULL},
    {"shared_prefix", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "type shared_prefix only (and required there)", IPDATA(shared_prefix),
     NULL, ip_shared_prefix_rows},
    {"input_distribution", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "types random and synthetic (required there): prompt lengths",
     IPDATA(input_distribution), NULL, ip_distribution_rows},
    {"output_distribution", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "types random and synthetic (required there): output lengths",
     IPDATA(output_distribution), NULL, ip_distribution_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param ip_stage_rows[] = {
    {"rate", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e6, GT | REQ, NULL,
     "requests per second in this stage",
     offsetof(struct cl_ip_stage, rate_per_s), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT | REQ, NULL,
     "length of the stage (a plain number is seconds)",
     offsetof(struct cl_ip_stage, duration_ns), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_ip_stage),
};

static const struct sim_param ip_load_rows[] = {
    {"type", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "constant",
     "constant: exactly round(rate x duration) requests per stage, at "
     "exponential gaps rescaled to end at the stage's end; poisson: a "
     "Poisson process of the stage's rate",
     IPLOAD(type), ip_load_types, NULL},
    {.key = "stages",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .flags = REQ,
     .help = "load stages {rate, duration}, in order; a stage starts when "
             "the previous one has drained (every request finished)",
     .offset = IPLOAD(stages),
     .sub = ip_stage_rows},
    {"stage_gap", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "idle time after a stage drains before the next starts "
     "(inference-perf itself pauses a few seconds between stages)",
     IPLOAD(stage_gap_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define IP(f) offsetof(struct cl_inference_perf, f)

static const struct sim_param inference_perf_rows[] = {
    {"data", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "what the prompts are (inference-perf's data)", IP(data), NULL,
     ip_data_rows},
    {"load", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "when they are sent (inference-perf's load)", IP(load), NULL,
     ip_load_rows},
    {"ignore_eos", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "true",
     "inference-perf's server.ignore_eos; dsec takes output lengths as "
     "exact either way (false adds a note)",
     IP(ignore_eos), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- workload.vllm_bench (vllm bench serve) ---- */

static const struct sim_param_choice vb_datasets[] = {
    {"lengths", CL_VB_LENGTHS},
    {"random", CL_VB_RANDOM},
    {NULL, 0},
};

#define VB(f) offsetof(struct cl_vllm_bench, f)

static const struct sim_param vllm_bench_rows[] = {
    {"num_prompts", SIM_PT_INT64, SIM_U_NONE, 1, 1e12, 0, "1000",
     "number of requests (--num-prompts)", VB(num_prompts), NULL, NULL},
    {"request_rate", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e6, GT | SIM_PF_INF, "inf",
     "mean request rate (--request-rate); inf sends every request at t = 0",
     VB(request_rate), NULL, NULL},
    {"burstiness", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1e6, GT, "1",
     "gamma shape of the gaps (--burstiness): 1 is Poisson, < 1 burstier, "
     "> 1 more regular",
     VB(burstiness), NULL, NULL},
    {"max_concurrency", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "requests in flight at most (--max-concurrency; default: no limit); "
     "the client holds the others",
     VB(max_concurrency), NULL, NULL},
    {"dataset", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "random",
     "random: vLLM's RandomDataset (random_* keys); lengths: prompt_tokens "
     "and output_tokens distributions (as a ShareGPT-like dataset's)",
     VB(dataset), vb_datasets, NULL},
    {"random_input_len", SIM_PT_INT64, SIM_U_TOKENS, 1, 1e9, 0, "1024",
     "dataset random: input tokens after the prefix (--random-input-len)",
     VB(random_input_len), NULL, NULL},
    {"random_output_len", SIM_PT_INT64, SIM_U_TOKENS, 1, 1e9, 0, "128",
     "dataset random: output tokens (--random-output-len)",
     VB(random_output_len), NULL, NULL},
    {"random_range_ratio", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1, SIM_PF_MAX_EXCL,
     "0",
     "dataset random: lengths are uniform integers in [floor(L (1 - r)), "
     "ceil(L (1 + r))] (--random-range-ratio)",
     VB(random_range_ratio), NULL, NULL},
    {"random_prefix_len", SIM_PT_INT64, SIM_U_TOKENS, 0, 1e9, 0, "0",
     "dataset random: tokens of a prefix every request starts with, shared "
     "in the prefix cache (--random-prefix-len)",
     VB(random_prefix_len), NULL, NULL},
    {"prompt_tokens", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "dataset lengths (required there): prompt length distribution",
     VB(prompt_tokens), NULL, length_dist_rows},
    {"output_tokens", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "dataset lengths (required there): output length distribution",
     VB(output_tokens), NULL, length_dist_rows},
    {"ignore_eos", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "--ignore-eos (vLLM's default false); dsec takes output lengths as "
     "exact either way (false adds a note)",
     VB(ignore_eos), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define KINDS "give exactly one of synthetic, trace, inference_perf, vllm_bench"

/* Most closed-loop users: each is one event and one record. */
#define WL_CLIENT_USERS_MAX 1e6

static const struct sim_param client_rows[] = {
    {"timeout", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "abandon a request not finished this long after its send (a client "
     "disconnect: the engine aborts it and frees its KV); it counts in "
     "requests_timed_out, not in the latencies (default: none)",
     offsetof(struct cl_client, timeout_ns), NULL, NULL},
    {"max_concurrency", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "at most this many requests in flight; a later one waits in the "
     "client, first due first sent, and its arrival (TTFT, E2E) is its "
     "send, as vllm bench serve --max-concurrency (default: unbounded)",
     offsetof(struct cl_client, max_concurrency), NULL, NULL},
    {"users", SIM_PT_INT64, SIM_U_NONE, 1, WL_CLIENT_USERS_MAX, 0, NULL,
     "closed loop: this many users, all sending at t = 0, each sending its "
     "next request when its last has ended and it has thought; the "
     "source gives lengths and prefixes, its arrival times are ignored "
     "(default: open loop)",
     offsetof(struct cl_client, users), NULL, NULL},
    {"think_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "closed loop (needs users): mean of the exponential time a user "
     "waits between the end of its request and its next send (stream "
     "\"client_think_time\")",
     offsetof(struct cl_client, think_time_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_workload_rows[] = {
    {"synthetic", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "generated traffic (" KINDS ")", offsetof(struct cl_workload, synthetic),
     NULL, synthetic_rows},
    {"trace", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "replayed traffic (" KINDS ")", offsetof(struct cl_workload, trace), NULL,
     trace_rows},
    {"inference_perf", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the load of a kubernetes-sigs/inference-perf run, same keys (" KINDS ")",
     offsetof(struct cl_workload, inference_perf), NULL, inference_perf_rows},
    {"vllm_bench", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the requests of `vllm bench serve`, its options without dashes (" KINDS
     ")",
     offsetof(struct cl_workload, vllm_bench), NULL, vllm_bench_rows},
    {"client", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "how a benchmark client sends the requests: time-out, concurrency "
     "cap, closed loop (docs/workloads.md, \"The client\")",
     offsetof(struct cl_workload, client), NULL, client_rows},
    {"prefix_hit_rate", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, NULL,
     "fraction of each prompt (whole blocks, rounded down) found in the "
     "prefix cache when the source has no block hashes; needs "
     "server.prefix_caching",
     offsetof(struct cl_workload, prefix_hit_rate), NULL, NULL},
    {.key = "priority_classes",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = 64,
     .help = "request classes {name, share, priority}: each arrival joins "
             "one at random in proportion to the shares (stream "
             "\"priority_class\"); TTFT and SLO are reported per class",
     .offset = offsetof(struct cl_workload, priority_classes),
     .sub = prio_class_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- the section's cross-field checks ---- */

/* The length distribution at path: the keys its kind uses and min <= max
 * for uniform. Leaves cv NAN (no length kind has one). */
static void check_length_dist(struct sim_yaml *y, const char *path,
                              struct cl_dist *dist)
{
    static const char *const keys[] = {"value", "min", "max",
                                       "mean",  "sd",  NULL};
    char what[64];
    unsigned used, optional = 0;

    dist->cv = NAN;
    if (sim_yaml_seenf(y, "%s.dist", path) == NULL || dist->kind < 0)
        return; /* already reported */
    switch (dist->kind) {
    case CL_DIST_FIXED:
        used = 1u << 0;
        break;
    case CL_DIST_UNIFORM:
        used = 1u << 1 | 1u << 2;
        break;
    default:
        used = 1u << 3 | 1u << 4;
        optional = 1u << 2; /* max: a cap, as an API's max_tokens */
        break;
    }
    snprintf(what, sizeof(what), "dist %s",
             sim_yaml_choice_name(length_dist_rows, "dist", dist->kind));
    sim_yaml_check_keys(y, path, keys, used, optional, what);
    if (dist->kind == CL_DIST_UNIFORM && dist->min > dist->max) {
        const struct sim_yaml_seen *s = sim_yaml_seenf(y, "%s.min", path);
        sim_yaml_error(y, s->vline, s->vcol, "%s.min: %g greater than max %g",
                       path, dist->min, dist->max);
    } else if (dist->kind == CL_DIST_UNIFORM &&
               ceil(dist->min) > floor(dist->max)) {
        const struct sim_yaml_seen *s = sim_yaml_seenf(y, "%s.min", path);
        sim_yaml_error(y, s->vline, s->vcol,
                       "%s: no whole number of tokens lies between min %g "
                       "and max %g",
                       path, dist->min, dist->max);
    }
}

/* At most one of diurnal and steps; steps strictly sorted by at. Sets the
 * profile's kind from what was given. */
static void check_profile(struct sim_yaml *y, struct cl_rate_profile *pr)
{
    static const char arr[] = "workload.synthetic.arrival";
    const struct sim_yaml_seen *di = sim_yaml_seenf(y, "%s.diurnal", arr);
    const struct sim_yaml_seen *st = sim_yaml_seenf(y, "%s.steps", arr);

    pr->kind = CL_PROF_NONE;
    if (di != NULL && st != NULL) {
        const struct sim_yaml_seen *later =
            (st->kline > di->kline ||
             (st->kline == di->kline && st->kcol > di->kcol))
                ? st
                : di;
        sim_yaml_error(y, later->kline, later->kcol,
                       "%s: give at most one of 'diurnal' or 'steps'",
                       later->path);
        return;
    }
    if (di != NULL)
        pr->kind = CL_PROF_DIURNAL;
    if (st == NULL)
        return;
    pr->kind = CL_PROF_STEPS;
    for (int i = 1; i < pr->nsteps; i++) {
        const struct sim_yaml_seen *at =
            sim_yaml_seenf(y, "%s.steps[%d].at", arr, i);
        const struct sim_yaml_seen *prev =
            sim_yaml_seenf(y, "%s.steps[%d].at", arr, i - 1);
        if (at == NULL || prev == NULL)
            continue; /* a missing at, already reported */
        if (pr->steps[i].at_ns <= pr->steps[i - 1].at_ns)
            sim_yaml_error(y, at->vline, at->vcol,
                           "%s.steps[%d].at: %gs not after steps[%d].at %gs; "
                           "steps must be sorted by at",
                           arr, i, (double)pr->steps[i].at_ns * 1e-9, i - 1,
                           (double)pr->steps[i - 1].at_ns * 1e-9);
    }
}

/* The workload kinds, in the order of enum cl_workload_kind. */
static const char *const kinds[] = {"synthetic", "trace", "inference_perf",
                                    "vllm_bench"};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

/* Exactly one kind: a second one given is reported at the later key, none
 * at the section. Returns the kind given first in the document, or -1. */
static int check_kind(struct sim_yaml *y)
{
    const struct sim_yaml_seen *first = NULL;
    int kind = -1, line, col;

    for (int i = 0; i < NKINDS; i++) {
        const struct sim_yaml_seen *s =
            sim_yaml_seenf(y, "workload.%s", kinds[i]);
        if (s == NULL)
            continue;
        if (first == NULL || s->kline < first->kline ||
            (s->kline == first->kline && s->kcol < first->kcol)) {
            first = s;
            kind = i;
        }
    }
    for (int i = 0; i < NKINDS && first != NULL; i++) {
        const struct sim_yaml_seen *s =
            sim_yaml_seenf(y, "workload.%s", kinds[i]);
        if (s != NULL && s != first)
            sim_yaml_error(y, s->kline, s->kcol,
                           "%s: give exactly one of 'synthetic', 'trace', "
                           "'inference_perf' or 'vllm_bench'",
                           s->path);
    }
    if (first == NULL) {
        sim_yaml_section_pos(y, "workload", &line, &col);
        sim_yaml_error(y, line, col,
                       "workload: missing key 'synthetic', 'trace', "
                       "'inference_perf' or 'vllm_bench'");
    }
    return kind;
}

/* A note at the key ignore_eos of section path when it was given false,
 * or at the section when false is the default. */
static void note_eos(struct sim_yaml *y, const char *path, int ignore_eos,
                     const char *exact)
{
    const struct sim_yaml_seen *s = sim_yaml_seenf(y, "%s.ignore_eos", path);
    int line, col;

    if (ignore_eos)
        return;
    if (s != NULL) {
        line = s->vline;
        col = s->vcol;
    } else {
        sim_yaml_section_pos(y, path, &line, &col);
    }
    sim_diag_add(y->d, SIM_SEV_NOTE, y->file, line, col,
                 "%s.ignore_eos: false, but dsec cannot model an "
                 "end-of-sequence token: every request generates exactly %s",
                 path, exact);
}

/* An inference-perf length distribution at path: min <= max. */
static void check_ip_distribution(struct sim_yaml *y, const char *path,
                                  const struct cl_ip_distribution *di)
{
    const struct sim_yaml_seen *s = sim_yaml_seenf(y, "%s.min", path);

    if (s != NULL && sim_yaml_seenf(y, "%s.max", path) != NULL &&
        di->min > di->max)
        sim_yaml_error(y, s->vline, s->vcol, "%s.min: %g greater than max %g",
                       path, di->min, di->max);
}

static void check_inference_perf(struct sim_yaml *y, struct cl_workload *w)
{
    static const char ip[] = "workload.inference_perf";
    struct cl_inference_perf *c = &w->inference_perf;
    const struct sim_yaml_seen *st;

    w->client.stage_gap_ns = c->load.stage_gap_ns;
    st = sim_yaml_seenf(y, "%s.load.stages", ip);
    if (st != NULL && c->load.nstages == 0)
        sim_yaml_error(y, st->vline, st->vcol,
                       "%s.load.stages: expected at least one stage "
                       "{rate, duration}",
                       ip);
    note_eos(y, ip, c->ignore_eos,
             c->data.type == CL_IP_DATA_SHARED_PREFIX
                 ? "data.shared_prefix.output_len tokens"
                 : "its output_distribution draw");
    if (sim_yaml_seenf(y, "%s.data.type", ip) == NULL || c->data.type < 0)
        return; /* reported */
    if (c->data.type == CL_IP_DATA_SHARED_PREFIX) {
        static const char *const keys[] = {
            "shared_prefix", "input_distribution", "output_distribution", NULL};
        sim_yaml_check_keys(y, "workload.inference_perf.data", keys, 1u << 0, 0,
                            "data type shared_prefix");
        return;
    }
    static const char *const keys[] = {"shared_prefix", "input_distribution",
                                       "output_distribution", NULL};
    char what[64];
    snprintf(what, sizeof(what), "data type %s",
             sim_yaml_choice_name(ip_data_rows, "type", c->data.type));
    sim_yaml_check_keys(y, "workload.inference_perf.data", keys,
                        1u << 1 | 1u << 2, 0, what);
    check_ip_distribution(y, "workload.inference_perf.data.input_distribution",
                          &c->data.input_distribution);
    check_ip_distribution(y, "workload.inference_perf.data.output_distribution",
                          &c->data.output_distribution);
}

static void check_vllm_bench(struct sim_yaml *y, struct cl_workload *w)
{
    static const char vb[] = "workload.vllm_bench";
    static const char *const keys[] = {"random_input_len",
                                       "random_output_len",
                                       "random_range_ratio",
                                       "random_prefix_len",
                                       "prompt_tokens",
                                       "output_tokens",
                                       NULL};
    struct cl_vllm_bench *c = &w->vllm_bench;

    if (sim_yaml_seenf(y, "%s.max_concurrency", vb) != NULL)
        w->client.max_concurrency = c->max_concurrency;
    if (isfinite(c->request_rate) && c->request_rate > 0 &&
        (double)c->num_prompts / c->request_rate > SIM_PARAM_HORIZON_S) {
        const struct sim_yaml_seen *n = sim_yaml_seenf(y, "%s.num_prompts", vb);
        if (n == NULL)
            n = sim_yaml_seenf(y, "%s.request_rate", vb);
        sim_yaml_error(y, n ? n->vline : 0, n ? n->vcol : 0,
                       "%s: num_prompts / request_rate = %g s, longer than "
                       "the 366-day horizon a run simulates",
                       vb, (double)c->num_prompts / c->request_rate);
    }
    c->prompt_tokens.cv = NAN;
    c->output_tokens.cv = NAN;
    if (c->dataset == CL_VB_LENGTHS) {
        sim_yaml_check_keys(y, vb, keys, 1u << 4 | 1u << 5, 0,
                            "dataset lengths");
        if (sim_yaml_seenf(y, "%s.prompt_tokens", vb) != NULL)
            check_length_dist(y, "workload.vllm_bench.prompt_tokens",
                              &c->prompt_tokens);
        if (sim_yaml_seenf(y, "%s.output_tokens", vb) != NULL)
            check_length_dist(y, "workload.vllm_bench.output_tokens",
                              &c->output_tokens);
        note_eos(y, vb, c->ignore_eos, "its output_tokens draw");
    } else {
        sim_yaml_check_keys(y, vb, keys, 0, 0xfu, "dataset random");
        note_eos(y, vb, c->ignore_eos, "its random_output_len draw");
    }
}

/* think_time needs users; users and max_concurrency exclude each other. */
static void check_client(struct sim_yaml *y)
{
    const struct sim_yaml_seen *users, *think, *conc;

    users = sim_yaml_seen(y, "workload.client.users");
    think = sim_yaml_seen(y, "workload.client.think_time");
    conc = sim_yaml_seen(y, "workload.client.max_concurrency");
    if (conc == NULL)
        conc = sim_yaml_seen(y, "workload.vllm_bench.max_concurrency");
    if (think != NULL && users == NULL)
        sim_yaml_error(y, think->kline, think->kcol,
                       "workload.client.think_time: needs users (a think "
                       "time is a closed loop's; an open loop sends at the "
                       "source's arrival times)");
    if (users != NULL && conc != NULL)
        sim_yaml_error(y, users->kline, users->kcol,
                       "workload.client.users: not with max_concurrency (a "
                       "closed loop of N users already has at most N "
                       "requests in flight)");
}

void wl_workload_check(struct sim_yaml *y, struct cl_workload *w, int llm)
{
    const struct sim_yaml_seen *syn;
    int line, col, kind;

    if (sim_yaml_seen(y, "workload") == NULL)
        return; /* reported as a missing key */
    kind = check_kind(y);
    w->kind = kind < 0 ? CL_WL_SYNTHETIC : kind;
    check_client(y);
    w->synthetic.prompt_tokens.cv = NAN;
    w->synthetic.output_tokens.cv = NAN;
    /* Each kind given is checked, so that one run reports everything. */
    if (sim_yaml_seen(y, "workload.inference_perf") != NULL)
        check_inference_perf(y, w);
    if (sim_yaml_seen(y, "workload.vllm_bench") != NULL)
        check_vllm_bench(y, w);
    syn = sim_yaml_seen(y, "workload.synthetic");
    if (syn == NULL)
        return;

    sim_yaml_exactly_one(y, "workload.synthetic", "requests", "duration");
    if (sim_yaml_seen(y, "workload.synthetic.arrival") != NULL) {
        struct cl_arrival *a = &w->synthetic.arrival;
        const char *proc =
            sim_yaml_choice_name(arrival_rows, "process", a->process);
        char what[64];
        snprintf(what, sizeof(what), "process %s", proc);
        if (a->process == CL_ARR_GAMMA) {
            if (sim_yaml_seen(y, "workload.synthetic.arrival.cv") == NULL) {
                sim_yaml_section_pos(y, "workload.synthetic.arrival", &line,
                                     &col);
                sim_yaml_error(y, line, col,
                               "workload.synthetic.arrival: missing key 'cv' "
                               "(required by process gamma)");
            }
        } else {
            sim_yaml_not_used(y, "workload.synthetic.arrival", "cv", what);
            a->cv = NAN;
        }
    }

    check_profile(y, &w->synthetic.arrival.profile);

    static const char *const lens[] = {"prompt_tokens", "output_tokens"};
    struct cl_dist *dists[] = {&w->synthetic.prompt_tokens,
                               &w->synthetic.output_tokens};
    for (int i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof(path), "workload.synthetic.%s", lens[i]);
        if (sim_yaml_seen(y, path) != NULL) {
            check_length_dist(y, path, dists[i]);
        } else if (llm) {
            sim_yaml_error(y, syn->kline, syn->kcol,
                           "workload.synthetic: missing key '%s' (required "
                           "by server kind llm)",
                           lens[i]);
        } else {
            dists[i]->kind = CL_DIST_FIXED;
            dists[i]->value = 1;
        }
    }
    if (sim_yaml_seen(y, "workload.synthetic.sessions") != NULL) {
        struct cl_sessions *ss = &w->synthetic.sessions;
        ss->enabled = 1;
        if (sim_yaml_seen(y, "workload.synthetic.sessions.turns") != NULL) {
            check_length_dist(y, "workload.synthetic.sessions.turns",
                              &ss->turns);
        } else {
            ss->turns.kind = CL_DIST_FIXED;
            ss->turns.value = 4;
        }
    }
}
