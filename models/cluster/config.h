/*
 * The scenario as the models see it: plain structs filled by the scenario
 * loader (scenarios/) from YAML through its parameter tables, and read by the
 * cluster builder (models/cluster/). Every quantity is in SI base units or
 * int64 nanoseconds, with the unit in the field name. Strings are owned by
 * the struct and freed by cl_scenario_fini(). A field the user did not set
 * holds the table's default; optional numbers without a default hold NAN (for
 * double) or -1 (for integers and durations), and the loader's cross-field
 * checks guarantee that the fields a given kind needs are set.
 */
#ifndef CL_CONFIG_H
#define CL_CONFIG_H

#include <stdint.h>

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

struct cl_arrival {
    int process;       /* enum cl_arrival_process */
    double rate_per_s; /* mean arrival rate, > 0 */
    double cv;         /* gamma only: coefficient of variation of gaps */
};

enum cl_workload_kind {
    CL_WL_SYNTHETIC,
    CL_WL_TRACE,
};

enum cl_trace_format {
    CL_TRACE_AZURE, /* CSV TIMESTAMP,ContextTokens,GeneratedTokens */
};

struct cl_workload {
    int kind; /* enum cl_workload_kind */
    struct {
        struct cl_arrival arrival;
        int64_t requests;    /* stop after this many, -1 if unset */
        int64_t duration_ns; /* or stop arrivals after this time, -1 */
        struct cl_dist prompt_tokens;
        struct cl_dist output_tokens;
    } synthetic;
    struct {
        int format;          /* enum cl_trace_format */
        char *path;          /* as given; relative to the scenario file */
        double time_scale;   /* multiplies gaps between arrivals (default 1) */
        double rate_scale;   /* multiplies the arrival rate (default 1) */
        int64_t requests;    /* stop after this many rows, -1 = all */
        int64_t duration_ns; /* stop after this much trace time, -1 = all */
    } trace;
};

enum cl_server_kind {
    CL_SRV_ABSTRACT, /* a queueing server with a service-time distribution */
    CL_SRV_LLM,      /* an LLM replica with continuous batching */
};

struct cl_server {
    int kind; /* enum cl_server_kind */
    /* abstract */
    struct cl_dist service;    /* seconds */
    int concurrency;           /* requests served at once per replica */
    double price_usd_per_hour; /* abstract replicas: price of one replica */
    /* llm (vLLM-style knobs, FACTS §5.1) */
    int max_num_seqs;
    int64_t max_num_batched_tokens;
    double gpu_memory_utilization;
    double efficiency_compute;     /* achieved fraction of peak FLOP/s */
    double efficiency_memory;      /* achieved fraction of peak HBM B/s */
    int64_t iteration_overhead_ns; /* fixed host overhead per iteration */
};

enum cl_dtype {
    CL_DTYPE_BF16,
    CL_DTYPE_FP8,
    CL_DTYPE_INT4, /* weights only: 4-bit weights, 16-bit activations */
};

struct cl_hardware {
    char *gpu; /* catalog name, e.g. "h200" */
    int gpus_per_node;
    double price_usd_per_gpu_hour; /* NAN = the catalog default */
};

enum cl_strategy {
    CL_STRAT_TENSOR_PARALLEL,
};

struct cl_deploy {
    char *model_path; /* e.g. s3://models/deepseek-v3; model from basename */
    int strategy;     /* enum cl_strategy */
    int tp;           /* tensor-parallel degree, -1 = derive */
    int weight_dtype; /* enum cl_dtype */
    int kv_dtype;     /* enum cl_dtype (bf16 or fp8) */
};

struct cl_cluster {
    int replicas; /* static replica count, -1 if unset */
    int min_gpus; /* elastic bounds, -1 if unset */
    int max_gpus;
    int64_t target_latency_ns; /* -1 if unset */
    int kv_cache_offload;      /* 0/1 */
    char *rdma_interface;      /* calibration only; ignored by the sim */
};

/* Service-level objective: a request meets it when every target that is set
 * holds. Unset targets are -1. */
struct cl_slo {
    int64_t ttft_ns;
    int64_t tpot_ns;
    int64_t e2e_ns;
};

struct cl_metrics {
    int64_t interval_ns;    /* time-series bucket width */
    double warmup_fraction; /* leading fraction of requests left out of stats */
    int batches;            /* batch-means batches for confidence intervals */
};

/* A position in the scenario file, 1-based; line 0 means "not given". */
struct cl_pos {
    int line;
    int col;
};

/* Where the loader found the values that later checks (catalog lookups,
 * feasibility) report on: the position of each value, line 0 if absent. */
struct cl_scenario_pos {
    struct cl_pos model;
    struct cl_pos deploy_model_path;
    struct cl_pos deploy_tp;
    struct cl_pos deploy_weight_dtype;
    struct cl_pos hardware_gpu;
    struct cl_pos cluster_min_gpus;
    struct cl_pos workload_trace_path;
};

struct cl_scenario {
    char *file; /* path of the scenario file, for messages */
    char *name;
    uint64_t seed;
    char *model; /* catalog name, or NULL (then from deploy.model_path) */
    struct cl_workload workload;
    struct cl_server server;
    struct cl_hardware hardware;
    struct cl_deploy deploy;
    struct cl_cluster cluster;
    struct cl_slo slo;
    struct cl_metrics metrics;
    char *text; /* the scenario text as loaded, NUL-terminated (run rows) */
    struct cl_scenario_pos pos; /* where some values were found */
};

/* Frees the strings of s and zeroes it. NULL is a no-op. */
void cl_scenario_fini(struct cl_scenario *s);

#endif /* CL_CONFIG_H */
