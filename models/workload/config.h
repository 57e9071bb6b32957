/*
 * The scenario's `workload:` section as the models see it: the traffic,
 * generated (arrival process, rate profile, length distributions,
 * multi-turn sessions) or replayed from a trace, and its priority classes,
 * with the parameter rows (config.c) that the scenario loader fills it
 * through, and the section's cross-field checks (wl_workload_check()),
 * which the loader runs after the walk. The rows are the one source of
 * each key's type, unit, range, default and help; sim_param_fini() over them
 * frees what the section owns (strings, the rate steps, the classes).
 * Quantities are in SI base units or int64 nanoseconds, with the unit in the
 * field name; unset optional numbers are NAN (double) or -1 (integers,
 * durations). struct cl_dist also describes the cluster's service and
 * provisioning times. Read-only rows; single-threaded.
 */
#ifndef WL_CONFIG_H
#define WL_CONFIG_H

#include <stdint.h>

#include "base/param.h"

struct sim_yaml; /* base/yaml-rows.h: the walker the checks read */

/* Distribution kinds for lengths and service times. */
enum cl_dist_kind {
    CL_DIST_FIXED,         /* value (alias: deterministic) */
    CL_DIST_UNIFORM,       /* integers in [min, max] */
    CL_DIST_LOGNORMAL,     /* mean, sd of the variable itself */
    CL_DIST_EXPONENTIAL,   /* mean */
    CL_DIST_DETERMINISTIC, /* mean (service) */
    CL_DIST_GAMMA,         /* mean and cv (or sd) */
};

/* A length (tokens) or service-time (seconds) distribution. Which fields are
 * used depends on kind; unused ones are NAN. For service times every field
 * is in seconds. */
struct cl_dist {
    int kind; /* enum cl_dist_kind */
    double value;
    double min;
    double max;
    double mean;
    double sd;
    double cv;
};

enum cl_arrival_process {
    CL_ARR_POISSON,
    CL_ARR_DETERMINISTIC,
    CL_ARR_GAMMA, /* gamma inter-arrival times with coefficient of variation cv
                   */
};

/* A change of the arrival-rate multiplier: from the multiplier in force,
 * it moves linearly to `multiplier` over ramp_ns starting at at_ns. */
struct cl_rate_step {
    int64_t at_ns;
    double multiplier; /* > 0 */
    int64_t ramp_ns;   /* >= 0; 0 = a jump */
};

enum cl_profile_kind {
    CL_PROF_NONE,    /* constant rate */
    CL_PROF_DIURNAL, /* m(t) = 1 + amplitude cos(2 pi (t - peak_at)/period) */
    CL_PROF_STEPS,   /* piecewise-linear multiplier from a list of steps */
};

/* The rate at time t is rate_per_s x m(t); m starts at 1. */
struct cl_rate_profile {
    int kind; /* enum cl_profile_kind */
    int64_t period_ns;
    double amplitude; /* 0 <= amplitude < 1 */
    int64_t peak_at_ns;
    /* Where in the cycle the run starts: the scenario's start (time of
     * day) scaled from a day to the period; 0 without start. Set by the
     * loader, not a key. */
    int64_t phase_ns;
    struct cl_rate_step *steps; /* owned, sorted by at_ns */
    int nsteps;
};

struct cl_arrival {
    int process;       /* enum cl_arrival_process */
    double rate_per_s; /* mean arrival rate, > 0 (base of the profile) */
    double cv;         /* gamma only: coefficient of variation of gaps */
    struct cl_rate_profile profile;
};

enum cl_workload_kind {
    CL_WL_SYNTHETIC,
    CL_WL_TRACE,
    CL_WL_INFERENCE_PERF, /* kubernetes-sigs/inference-perf's config */
    CL_WL_VLLM_BENCH,     /* `vllm bench serve` options */
};

enum cl_trace_format {
    CL_TRACE_AZURE,    /* CSV TIMESTAMP,ContextTokens,GeneratedTokens */
    CL_TRACE_MOONCAKE, /* JSONL timestamp, input/output_length, hash_ids */
    CL_TRACE_BURSTGPT, /* CSV Timestamp,Model,Request tokens,... */
    CL_TRACE_SERVEGEN, /* per-client statistics, arrivals generated */
};

/* Multi-turn conversations (workload.synthetic.sessions): sessions
 * arrive by synthetic.arrival; each has `turns` turns whose prompt is the
 * shared system prompt, every earlier turn (prompt and output) and
 * prompt_tokens new tokens; turn k+1 arrives think time after turn k. The
 * generator emits block hashes so that prefix reuse emerges. */
struct cl_sessions {
    int enabled;                  /* 0/1: the section was given */
    struct cl_dist turns;         /* turns per session, >= 1 */
    int64_t think_time_ns;        /* mean of the exponential think time */
    int64_t system_prompt_tokens; /* shared by every session, >= 0 */
    int block_tokens;             /* tokens per emitted hash block */
};

/* A priority class of requests (workload.priority_classes): a share of
 * the arrivals, assigned at random in proportion to the shares, and the
 * priority the scheduler gives them (lower first, as vLLM). */
struct cl_prio_class {
    char *name;
    double share;
    int priority;
};

/* How the benchmark client sends the workload's requests (issue #16),
 * applied by the cluster's client layer (models/cluster/client.c) to any
 * workload kind. Filled from workload.client and from the benchmark kinds
 * (vllm_bench.max_concurrency, inference_perf.load.stage_gap). */
struct cl_client {
    int64_t timeout_ns;      /* abandon a request unfinished after this; -1 */
    int64_t max_concurrency; /* requests in flight at most; -1 = unbounded */
    int64_t users;           /* closed loop: this many users; -1 = open */
    int64_t think_time_ns;   /* closed loop: mean think time, >= 0 */
    int64_t stage_gap_ns;    /* staged load: idle after a stage drains */
};

/* inference-perf's data.type. */
enum cl_ip_data {
    CL_IP_DATA_RANDOM,
    CL_IP_DATA_SHARED_PREFIX,
    CL_IP_DATA_SYNTHETIC, /* lengths as random; treated as random tokens */
};

/* inference-perf's load.type. */
enum cl_ip_load {
    CL_IP_LOAD_CONSTANT, /* round(rate x duration) requests per stage */
    CL_IP_LOAD_POISSON,  /* a Poisson process of the stage's rate */
};

/* inference-perf's length distribution: normal(mean, std) rounded to an
 * integer and clipped to [min, max]; tokens. total_count is accepted and
 * not used (-1 when not given). */
struct cl_ip_distribution {
    double min;
    double max;
    double mean;
    double std;
    int64_t total_count;
};

/* One load stage: rate_per_s for duration_ns. */
struct cl_ip_stage {
    double rate_per_s;   /* > 0 */
    int64_t duration_ns; /* > 0 */
};

/* workload.inference_perf: a staged load of shared-prefix or random
 * prompts, as kubernetes-sigs/inference-perf sends it. */
struct cl_inference_perf {
    struct {
        int type; /* enum cl_ip_data */
        struct {
            int64_t num_groups;            /* system prompts, >= 1 */
            int64_t num_prompts_per_group; /* questions per group, >= 1 */
            int64_t system_prompt_len;     /* tokens, >= 0 */
            int64_t question_len;          /* tokens, >= 1 */
            int64_t output_len;            /* tokens, >= 1 */
        } shared_prefix;
        struct cl_ip_distribution input_distribution;
        struct cl_ip_distribution output_distribution;
    } data;
    struct {
        int type;                   /* enum cl_ip_load */
        struct cl_ip_stage *stages; /* owned */
        int nstages;
        int64_t stage_gap_ns; /* idle after a stage drains, >= 0 */
    } load;
    int ignore_eos; /* 0/1; lengths are exact either way */
};

/* vllm bench serve's dataset. */
enum cl_vb_dataset {
    CL_VB_RANDOM,  /* RandomDataset: uniform lengths around random_*_len */
    CL_VB_LENGTHS, /* lengths from prompt_tokens / output_tokens */
};

/* workload.vllm_bench: the requests of `vllm bench serve`. */
struct cl_vllm_bench {
    int64_t num_prompts;
    double request_rate;          /* per s; INFINITY = all at t = 0 */
    double burstiness;            /* gamma shape of the gaps, > 0 */
    int64_t max_concurrency;      /* -1 = unset */
    int dataset;                  /* enum cl_vb_dataset */
    int64_t random_input_len;     /* tokens, >= 1 */
    int64_t random_output_len;    /* tokens, >= 1 */
    double random_range_ratio;    /* [0, 1) */
    int64_t random_prefix_len;    /* tokens shared by every request, >= 0 */
    struct cl_dist prompt_tokens; /* dataset lengths */
    struct cl_dist output_tokens; /* dataset lengths */
    int ignore_eos;               /* 0/1; lengths are exact either way */
};

struct cl_workload {
    int kind; /* enum cl_workload_kind */
    struct cl_client client;
    struct {
        struct cl_arrival arrival;
        int64_t requests;    /* stop after this many, -1 if unset */
        int64_t duration_ns; /* or stop arrivals after this time, -1 */
        struct cl_dist prompt_tokens;
        struct cl_dist output_tokens;
        struct cl_sessions sessions;
    } synthetic;
    struct {
        int format;          /* enum cl_trace_format */
        char *path;          /* as given; relative to the scenario file */
        double time_scale;   /* multiplies gaps between arrivals (default 1) */
        double rate_scale;   /* multiplies the arrival rate (default 1) */
        int64_t requests;    /* stop after this many rows, -1 = all */
        int64_t duration_ns; /* stop after this much trace time, -1 = all */
        char *model;         /* burstgpt: keep only this Model, or NULL */
        char *clients;       /* servegen: "all" or client ids, or NULL */
    } trace;
    struct cl_inference_perf inference_perf;
    struct cl_vllm_bench vllm_bench;
    /* Fraction of each prompt's tokens found in the prefix cache when the
     * source has no block hashes (NAN = unset: no hits). */
    double prefix_hit_rate;
    struct cl_prio_class *priority_classes; /* owned, or NULL */
    int npriority_classes;
};

/* Rows of `workload:`, filling struct cl_workload (models/workload/config.c).
 */
extern const struct sim_param cl_workload_rows[];

/* The checks of `workload:` that span several keys, run after the walk
 * that filled w through cl_workload_rows, with the walker y (its seen list
 * says what was given; errors go to it at the keys' positions): exactly
 * one of synthetic, trace, inference_perf and vllm_bench; of requests and
 * duration; the keys each data type, load and dataset uses, non-empty
 * stages, min <= max; arrival.cv for
 * gamma alone; at most one of diurnal and steps, steps sorted by at; the
 * keys each length distribution uses. Completes w: its kind, the profile's
 * kind, the defaults of lengths left out (1 token, when llm is 0) and of
 * session turns (4), NAN for the fields a kind does not use, and
 * w->client.stage_gap_ns (inference_perf) and max_concurrency (vllm_bench,
 * when given). A note (not an error) says that ignore_eos false still
 * takes output lengths as exact. llm is
 * nonzero when the server is an LLM replica, which needs both lengths. */
void wl_workload_check(struct sim_yaml *y, struct cl_workload *w, int llm);

#endif /* WL_CONFIG_H */
