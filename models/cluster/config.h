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

#include "models/train/config.h"

/* A position in the scenario file, 1-based; line 0 means "not given". */
struct cl_pos {
    int line;
    int col;
};

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

struct cl_workload {
    int kind; /* enum cl_workload_kind */
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
    /* Fraction of each prompt's tokens found in the prefix cache when the
     * source has no block hashes (NAN = unset: no hits). */
    double prefix_hit_rate;
    struct cl_prio_class *priority_classes; /* owned, or NULL */
    int npriority_classes;
};

enum cl_server_kind {
    CL_SRV_ABSTRACT, /* a queueing server with a service-time distribution */
    CL_SRV_LLM,      /* an LLM replica with continuous batching */
};

/* What an LLM replica does to a running request whose KV cache cannot
 * grow (FACTS.md §5.1: recompute in vLLM V1; swap in V0). */
enum cl_preemption {
    CL_PREEMPT_RECOMPUTE, /* drop its KV; it re-prefills prompt + output */
    CL_PREEMPT_SWAP,      /* copy its KV to host memory and back */
};

/* Order in which an LLM replica admits waiting requests and picks the
 * request to preempt (vLLM scheduling_policy, FACTS.md §5.1). */
enum cl_sched {
    CL_SCHED_FCFS,     /* arrival order; preempt the newest admitted */
    CL_SCHED_PRIORITY, /* (priority, arrival); preempt the largest */
};

/* RDMA link classes of the remote KV tier (models/net catalog names). */
enum cl_kv_link {
    CL_KVL_IB_EDR,
    CL_KVL_IB_HDR,
    CL_KVL_IB_NDR,
    CL_KVL_IB_XDR,
    CL_KVL_ROCE_100,
    CL_KVL_ROCE_200,
    CL_KVL_ROCE_400,
    CL_KVL_ROCE_800,
};

/* KV offload tiers (cluster.kv_cache_offload): host DRAM over PCIe and an
 * optional remote pool over RDMA. Sizes in bytes per replica (remote: the
 * whole pool); NAN = the documented default. */
struct cl_kv_offload {
    double host_bytes;
    double remote_bytes; /* 0 = no remote tier */
    int remote_link;     /* enum cl_kv_link */
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
    int block_tokens;              /* tokens per paged KV block (vLLM 16) */
    int preemption;                /* enum cl_preemption */
    int prefix_caching;            /* 0/1: hash-addressed block reuse */
    int scheduling;                /* enum cl_sched */
    double swap_space_bytes;       /* per GPU, swap preemption (vLLM V0) */
    struct cl_kv_offload kv_offload;
};

enum cl_dtype {
    CL_DTYPE_BF16,
    CL_DTYPE_FP8,
    CL_DTYPE_INT4, /* weights only: 4-bit weights, 16-bit activations */
};

/* A GPU defined inline (hardware.gpus): a catalog entry to start from and
 * the figures that replace its own. Unset figures are NAN (-1 for the
 * latency); without a base every required figure must be given. */
struct cl_gpu_def {
    char *name; /* the name hardware.gpu and pools.gpu refer to */
    char *base; /* catalog name, or NULL */
    double flops_bf16;
    double flops_fp8;
    double flops_int8;
    double hbm_bytes;
    double hbm_bytes_per_s;
    double nvlink_bytes_per_s;
    int64_t nvlink_latency_ns;
    double pcie_bytes_per_s;
    double price_usd_per_gpu_hour;
};

struct cl_hardware {
    char *gpu; /* catalog or hardware.gpus name, e.g. "h200" */
    int gpus_per_node;
    double price_usd_per_gpu_hour; /* NAN = the catalog default */
    char *calibration;             /* calibration profile path, or NULL */
    struct cl_gpu_def *gpus;       /* owned, inline definitions */
    int ngpus;
};

enum cl_strategy {
    CL_STRAT_TENSOR_PARALLEL,
};

/* Where a starting replica reads its weights from (docs/orchestrator.md
 * gives each source's default bandwidth and its source). */
enum cl_weights_source {
    CL_SRC_AUTO, /* from model_path: s3:// gs:// http(s):// -> object
                    store, otherwise local nvme */
    CL_SRC_OBJECT_STORE,
    CL_SRC_NVME,
    CL_SRC_HOST_MEMORY, /* a host-memory snapshot, over PCIe */
    CL_SRC_PEER_NVLINK, /* a peer GPU in the node */
    CL_SRC_PEER_RDMA,   /* a peer node over RDMA */
};

/* Prefill/decode disaggregation (deploy.disaggregation): the static
 * cluster's replicas split into a prefill group and a decode group; a
 * request's KV goes from one to the other over kv_link. */
struct cl_disagg {
    int enabled; /* 0/1: the section was given */
    int prefill_replicas;
    int decode_replicas;
    int kv_link; /* enum cl_kv_link */
};

struct cl_deploy {
    char *model_path;   /* e.g. s3://models/deepseek-v3; model from basename */
    int strategy;       /* enum cl_strategy */
    int tp;             /* tensor-parallel degree, -1 = derive */
    int pp;             /* pipeline stages, >= 1 */
    int ep;             /* expert-parallel degree (MoE), >= 1 */
    int weight_dtype;   /* enum cl_dtype */
    int kv_dtype;       /* enum cl_dtype (bf16 or fp8) */
    int weights_source; /* enum cl_weights_source */
    double load_bytes_per_s; /* per replica; NAN = the source default */
    int64_t engine_init_ns;  /* after loading: CUDA graphs, warm-up */
    struct cl_disagg disaggregation;
};

/* What happens to the requests of a replica that is scaled down. */
enum cl_drain {
    CL_DRAIN_FINISH,  /* stop admitting; running requests finish */
    CL_DRAIN_MIGRATE, /* move running requests (and their KV) elsewhere */
};

/* How arrivals pick an LLM replica (models/cluster/router.c,
 * docs/routing.md). */
enum cl_routing {
    CL_ROUTE_LEAST_OUTSTANDING, /* fewest waiting + running (the default) */
    CL_ROUTE_LEAST_KV,          /* lowest KV blocks used / capacity */
    CL_ROUTE_PREFIX_AFFINITY,   /* longest cached prefix, within a bound */
    CL_ROUTE_RANDOM,            /* uniform, stream "routing" */
    CL_ROUTE_ROUND_ROBIN,       /* next serving slot in turn */
};

struct cl_cluster {
    int replicas; /* static replica count, -1 if unset */
    int min_gpus; /* elastic bounds, -1 if unset */
    int max_gpus;
    int64_t target_latency_ns; /* -1 if unset */
    int kv_cache_offload;      /* 0/1 */
    char *rdma_interface;      /* calibration only; ignored by the sim */
    int initial_gpus;          /* GPUs at t = 0 (elastic), -1 = min_gpus */
    int drain;                 /* enum cl_drain */
    int routing;               /* enum cl_routing */
    int routing_max_imbalance; /* prefix-affinity: most outstanding requests
                                  above the least loaded replica */
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

/* A pool of GPUs the cluster can grow into (cloud on-demand, spot, a test
 * cluster it may borrow from). */
struct cl_pool {
    char *name;                    /* unique */
    char *gpu;                     /* catalog name, NULL = hardware.gpu */
    int capacity_gpus;             /* >= 1 */
    double price_usd_per_gpu_hour; /* NAN = the GPU's price */
    struct cl_dist provision;      /* request -> node ready, seconds */
    int preemptible;               /* 0/1: can be taken back (spot) */
    int borrowable;                /* 0/1: a pool lent to us, returned */
    int64_t grace_ns;              /* borrowable: notice before take-back */
    int priority;                  /* lower is preferred */
    int reserved;                  /* 0/1: paid for whether used or not */
};

enum cl_fault_kind {
    CL_FAULT_GPU,  /* one GPU fails: its replica fails */
    CL_FAULT_NODE, /* a node fails: every replica on it fails */
};

/* Where a restarted replica reloads its weights from. */
enum cl_recovery {
    CL_RECOVER_MEMORY,  /* a host-memory / peer copy survives */
    CL_RECOVER_STORAGE, /* from deploy's weights source */
};

/* A failure at a scripted time. */
struct cl_fault {
    int64_t at_ns;
    int kind;    /* enum cl_fault_kind */
    int replica; /* index among the replicas then serving, -1 = any */
};

/* A degraded interconnect: from at_ns for duration_ns the replicas'
 * tensor-parallel links run at factor x their bandwidth (a flapping NVLink
 * lane, a congested switch). */
struct cl_link_fault {
    int64_t at_ns;
    int64_t duration_ns;
    double factor; /* 0 < factor <= 1 */
};

struct cl_faults {
    double gpu_mtbf_s;         /* mean time between failures per GPU; NAN */
    struct cl_fault *scripted; /* owned, in document order */
    int nscripted;
    struct cl_link_fault *links; /* owned */
    int nlinks;
    int recovery;      /* enum cl_recovery */
    int64_t detect_ns; /* failure -> noticed */
};

/* A policy parameter as written, validated later against the policy's
 * own rows. */
struct cl_policy_param {
    char *key;
    char *value;       /* the scalar text */
    struct cl_pos pos; /* of the value */
};

struct cl_policy {
    char *name; /* registry name, NULL = none given */
    int64_t interval_ns;
    int64_t window_ns;
    int64_t scale_up_cooldown_ns;
    int64_t scale_down_cooldown_ns;
    int max_step_up;
    int max_step_down;
    struct cl_policy_param *params; /* owned, in document order */
    int nparams;
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
    struct cl_pos policy_name;
    struct cl_pos pools; /* the `pools:` key */
    struct cl_pos model_hf_config;
    struct cl_pos hardware_gpus; /* the `hardware.gpus:` key */
    struct cl_pos hardware_calibration;
};

/* model: {hf_config: PATH}, the alternative to a catalog name. */
struct cl_model_src {
    char *hf_config; /* path to a Hugging Face config.json or its dir */
};

struct arch_spec;
struct gpu_spec;
struct perf_calib;

struct cl_scenario {
    char *file; /* path of the scenario file, for messages */
    char *name;
    uint64_t seed;
    char *model; /* catalog name, or NULL (then from deploy.model_path) */
    struct cl_model_src model_src;
    struct cl_workload workload;
    struct cl_server server;
    struct cl_hardware hardware;
    struct cl_deploy deploy;
    struct cl_cluster cluster;
    struct cl_slo slo;
    struct cl_metrics metrics;
    struct cl_pool *pools; /* owned, in document order */
    int npools;
    struct cl_faults faults;
    struct cl_policy policy;
    struct train_config training; /* gpus 0: none (models/train/) */
    char *text; /* the scenario text as loaded, NUL-terminated (run rows) */
    struct cl_scenario_pos pos; /* where some values were found */
    /* Resolved by the loader from the keys above (owned): */
    struct arch_spec *model_arch; /* from model.hf_config, or NULL */
    struct gpu_spec *gpu_specs;   /* from hardware.gpus, ngpus of them */
    struct perf_calib *calib;     /* from hardware.calibration, or NULL */
};

/* The GPU named name: an inline definition of s (hardware.gpus) first,
 * else the catalog's; NULL when neither has it. Borrowed from s or static. */
const struct gpu_spec *cl_gpu_find(const struct cl_scenario *s,
                                   const char *name);

/* The names cl_gpu_find() knows, inline ones first, joined by ", ".
 * Caller frees with free(). */
char *cl_gpu_names(const struct cl_scenario *s);

/* Frees the strings and arrays of s and zeroes it. NULL is a no-op. */
void cl_scenario_fini(struct cl_scenario *s);

#endif /* CL_CONFIG_H */
