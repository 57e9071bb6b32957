/*
 * The scenario as the models see it: struct cl_scenario composes the
 * sections each model folder owns (workload: models/workload/config.h;
 * training: models/train/config.h) with the serving sections declared here
 * (server, hardware, deploy, cluster, slo, metrics, pools, faults, policy)
 * and their parameter rows (config.c). The scenario loader (scenarios/)
 * fills the struct from YAML through those rows, which are the one source
 * of each key's type, unit, range, default and help; the cluster builder
 * (models/cluster/) reads it. Every quantity is in SI base units or int64
 * nanoseconds, with the unit in the field name. Strings and arrays are
 * owned by the struct and freed by cl_scenario_fini() through the rows that
 * filled it. A field the user did not set holds its row's default; optional
 * numbers without a default hold NAN (for double) or -1 (for integers and
 * durations), and the cross-field checks (cl_server_check() and the
 * others, which the loader runs after the walk) guarantee that the fields
 * a given kind needs are set. Read-only rows; single-threaded.
 */
#ifndef CL_CONFIG_H
#define CL_CONFIG_H

#include <stdint.h>

#include "models/arch/dtype.h"
#include "models/train/config.h"
#include "models/workload/config.h"
#include "base/param.h"

struct sim_yaml; /* base/yaml-rows.h: the walker the checks read */
struct sim_diag; /* base/diag.h */

/* DeepSeek-V3's MTP acceptance of the second token, the low end of the
 * 85-90 % its technical report gives (arXiv 2412.19437 via docs/sources.md
 * §14): server.speculative.acceptance's default for method mtp. */
#define CL_SPEC_MTP_ACCEPTANCE 0.85

/* A position in the scenario file, 1-based; line 0 means "not given". */
struct cl_pos {
    int line;
    int col;
};

enum cl_server_kind {
    CL_SRV_ABSTRACT, /* a queueing server with a service-time distribution */
    CL_SRV_LLM,      /* an LLM replica with continuous batching */
};

/* What an LLM replica does to a running request whose KV cache cannot
 * grow (docs/sources.md §5.1: recompute in vLLM V1; swap in V0). */
enum cl_preemption {
    CL_PREEMPT_RECOMPUTE, /* drop its KV; it re-prefills prompt + output */
    CL_PREEMPT_SWAP,      /* copy its KV to host memory and back */
    CL_PREEMPT_AUTO,      /* recompute; with cluster.kv_cache_offload, the
                             cheaper of recompute and the offload tiers */
};

/* server.kv_admission: when a waiting request may take KV blocks. */
enum cl_kv_admission {
    CL_KVA_GREEDY,    /* its first chunk fits (vLLM V1) */
    CL_KVA_WATERMARK, /* and kv_watermark of the cache stays free (vLLM V0) */
    CL_KVA_RESERVE,   /* its peak fits beside every admitted one's (TRT-LLM
                         GUARANTEED_NO_EVICT): no preemption */
};

/* Order in which an LLM replica admits waiting requests and picks the
 * request to preempt (vLLM scheduling_policy, docs/sources.md §5.1). */
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

/* The API front end of an LLM server (vLLM's OpenAI server process): the
 * time from the client's send to the request reaching the engine queue,
 * request_ns + per_prompt_token_ns * prompt tokens (HTTP handling, request
 * validation, tokenisation of the prompt), and the time from a token
 * leaving the engine to the client, per_output_token_ns
 * (detokenisation, streaming). docs/serving.md "Front end". */
struct cl_frontend {
    int64_t request_ns;
    int64_t per_prompt_token_ns;
    int64_t per_output_token_ns;
};

/* Engine warm-up: the first iterations of each replica after it starts
 * take factor times their modelled time (docs/serving.md "Warm-up");
 * iterations 0 turns it off. */
struct cl_warmup {
    int64_t iterations;
    double factor;
};

/* Speculative decoding (server.speculative, docs/serving.md "Speculative
 * decoding"): method is enum perf_spec (models/perf/roofline.h); tokens
 * drafted per step; acceptance of each drafted token given the ones
 * before, NAN = the method's default (mtp: docs/sources.md §14's 85 %, the low
 * end of DeepSeek's 85-90 %; ngram: none, required). */
struct cl_spec {
    int method;
    int tokens;
    double acceptance;
};

/* Flags of server rows (SIM_PF_OWNER bits): the key is used only by
 * server kind llm or only by kind abstract; the loader reports it as not
 * used when given for the other kind. */
#define CL_PF_LLM (SIM_PF_OWNER << 0)
#define CL_PF_ABSTRACT (SIM_PF_OWNER << 1)

struct cl_server {
    int kind; /* enum cl_server_kind */
    /* abstract */
    struct cl_dist service;    /* seconds */
    int concurrency;           /* requests served at once per replica */
    double price_usd_per_hour; /* abstract replicas: price of one replica */
    /* llm (vLLM-style knobs, docs/sources.md §5.1) */
    int max_num_seqs;                   /* -1 = vLLM's rule for the pool's GPU:
                                           perf_default_max_num_seqs() */
    int64_t max_num_batched_tokens;     /* -1 = vLLM's rule for the pool's GPU:
                                           perf_default_max_num_batched_tokens() */
    int64_t max_cudagraph_capture_size; /* -1 = vLLM's min(2 x
                                            max_num_seqs, 512); 0 eager */
    int custom_all_reduce;              /* 0/1: vLLM's custom TP all-reduce */
    int micro_batches; /* 1, or 2: two-batch overlap of the EP all-to-all */
    double gpu_memory_utilization;
    double efficiency_compute;     /* achieved fraction of peak FLOP/s */
    double efficiency_memory;      /* achieved fraction of peak HBM B/s */
    int64_t iteration_overhead_ns; /* fixed host overhead per iteration */
    int block_tokens;              /* tokens per paged KV block (vLLM 16) */
    int preemption;                /* enum cl_preemption */
    int kv_admission;              /* enum cl_kv_admission */
    double kv_watermark;           /* CL_KVA_WATERMARK: free fraction kept */
    int prefix_caching;            /* 0/1: hash-addressed block reuse */
    int async_scheduling;    /* 0/1: step N+1 is scheduled as step N starts */
    int64_t max_model_len;   /* tokens; -1 = the model's
                                max_positions (none when 0) */
    int scheduling;          /* enum cl_sched */
    double swap_space_bytes; /* per GPU, swap preemption (vLLM V0) */
    struct cl_kv_offload kv_offload;
    struct cl_frontend frontend; /* llm only */
    struct cl_warmup warmup;     /* llm only */
    struct cl_spec speculative;  /* llm only */
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

/* The layout of one group under deploy.disaggregation (its prefill or
 * decode section), as given: a key left out holds -1 (NAN for
 * expert_imbalance) and falls back to the top-level key
 * (cl_pd_layout_resolve()). */
struct cl_pd_layout {
    int tp; /* deploy.tp; -1 = derive */
    int ep; /* deploy.ep */
    int pp; /* deploy.pp; pools[].deploy only (a P/D group has no row for
               it: 0, deploy.pp) */
    int redundant_experts;          /* deploy.redundant_experts */
    double expert_imbalance;        /* deploy.expert_imbalance; NAN = derive */
    int micro_batches;              /* server.micro_batches */
    int max_num_seqs;               /* server.max_num_seqs; -1 = vLLM's rule */
    int64_t max_num_batched_tokens; /* server.max_num_batched_tokens; -1 =
                                       vLLM's rule */
    /* Elastic P/D (cluster.min_gpus/max_gpus): the group's bounds, in
     * replicas; -1 unset (min 1; max: as many as max_gpus holds). */
    int min_replicas;
    int max_replicas;
};

/* The groups of deploy.disaggregation, in the order the rows, the plan and
 * the results list them. */
enum cl_pd_group {
    CL_PD_PREFILL,
    CL_PD_DECODE,
    CL_PD_GROUPS,
};

/* Prefill/decode disaggregation (deploy.disaggregation): the cluster's
 * replicas split into a prefill group and a decode group, each with its
 * own layout; a request's KV goes from one to the other over kv_link. A
 * static cluster has prefill_replicas + decode_replicas; an elastic one
 * (min_gpus/max_gpus) starts with them and scales each group on its own
 * within its min_replicas/max_replicas and the cluster's max_gpus. */
struct cl_disagg {
    int enabled; /* 0/1: the section was given */
    int prefill_replicas;
    int decode_replicas;
    int kv_link; /* enum cl_kv_link */
    struct cl_pd_layout prefill;
    struct cl_pd_layout decode;
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
    int redundant_experts;   /* extra expert slots (ep > 1), >= 0 */
    double expert_imbalance; /* busiest EP rank over the mean; NAN = derive */
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
    int64_t target_latency_ns;      /* -1 if unset */
    int kv_cache_offload;           /* 0/1 */
    char *rdma_interface;           /* calibration only; ignored by the sim */
    int initial_gpus;               /* GPUs at t = 0 (elastic), -1 = min_gpus */
    int64_t scale_to_zero_grace_ns; /* min_gpus 0: idle this long first */
    int64_t rebalance_ns;           /* llm: migration for balance, 0 off */
    double rebalance_gap;           /* its trigger, a freeness gap */
    int defrag;                     /* llm: migrate to admit, 0/1 */
    int drain;                      /* enum cl_drain */
    int routing;                    /* enum cl_routing */
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
    int requests;           /* 0/1: keep per-request rows for the database */
    int64_t replica_rows;   /* per-replica series rows kept before merging */
};

/* A pool of GPUs the cluster can grow into (cloud on-demand, spot, a test
 * cluster it may borrow from). */
/* A scheduled reclaim of a borrowable pool by its owner: notice at at_ns,
 * the GPUs back by at_ns + the pool's grace, held by the owner for
 * duration_ns after that (-1: to the end of the run). */
struct cl_reclaim {
    int64_t at_ns;
    int gpus;            /* >= 1, at most the pool's capacity */
    int64_t duration_ns; /* -1 = until the end */
};

/* The owner's own work on a borrowable pool: jobs arriving as a Poisson
 * process, each claiming gpus for duration_ns (after the pool's grace). */
struct cl_owner_demand {
    double rate_per_h;   /* jobs per hour; NAN = none */
    int gpus;            /* per job */
    int64_t duration_ns; /* per job, fixed */
};

/* A spot pool's interruptions by its provider: a Poisson process of
 * rate_per_h over the pool's whole capacity, given times, and/or a trace
 * file of interruptions (one instance of trace_gpus[k] GPUs at
 * trace_at_ns[k], read at load by cl_interruption_trace_load()); each
 * comes with notice_ns. */
struct cl_interruptions {
    double rate_per_h; /* NAN = no random interruptions */
    int64_t *at_ns;    /* owned, or NULL */
    int nat;
    int64_t notice_ns;    /* provider's notice */
    char *trace;          /* the trace's path as given, or NULL */
    int64_t *trace_at_ns; /* owned, ascending, or NULL */
    int *trace_gpus;      /* owned, each >= 1, or NULL */
    int ntrace;
};

/* Most rows an interruption trace may hold: a year of a busy market (an
 * interruption every 10 minutes is about 52,600) fits. */
#define CL_INTERRUPTION_TRACE_MAX_ROWS 100000

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
    struct cl_reclaim *reclaim;    /* borrowable: owned, scheduled reclaims */
    int nreclaim;
    struct cl_owner_demand owner_demand;   /* borrowable */
    struct cl_interruptions interruptions; /* preemptible */
    double spot_discount; /* preemptible: off the GPU's price, 0..1 */
    /* pools[].deploy: the replica layout on this pool's GPUs, each key
     * left out the top-level one (cl_pool_layout_resolve()); has_deploy 1
     * when the section was given (cl_pools_check()), deploy_pos its key. */
    struct cl_pd_layout deploy;
    int has_deploy;
    struct cl_pos deploy_pos;
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

struct pol_entry;

struct cl_policy {
    char *name;   /* registry name, NULL = none given */
    char *plugin; /* policy.plugin: a shared object's path, or NULL */
    /* The policy itself when it is not the registry's entry of that name:
     * the plug-in's (resolved by the loader) or one set through the
     * library (dsec_scenario_set_policy()). Borrowed; NULL: look name up. */
    const struct pol_entry *entry;
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
    struct cl_pos server_max_model_len;
    struct cl_pos server_spec_method;
    /* Where a P/D group's layout error is reported, by enum cl_pd_group:
     * its ep, else its tp, else its section key, else deploy.ep, else
     * deploy.tp, else deploy.disaggregation (line 0 without it). */
    struct cl_pos pd_layout[CL_PD_GROUPS];
};

/* model: {hf_config: PATH}, the alternative to a catalog name. */
struct cl_model_src {
    char *hf_config; /* path to a Hugging Face config.json or its dir */
};

struct arch_spec;
struct gpu_spec;
struct perf_calib;

struct cl_scenario {
    /* The table that filled the struct (the scenario loader's composition
     * of the sections' rows), or NULL; cl_scenario_fini() frees every
     * field it names. Borrowed, static. */
    const struct sim_param *rows;
    char *file; /* path of the scenario file, for messages */
    char *name;
    uint64_t seed;
    /* start: the time of day at t = 0, "HH:MM[:SS]" as given (NULL: none),
     * and in nanoseconds after midnight (0 without it), set by the
     * loader. */
    char *start;
    int64_t start_ns;
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

/* The rows of the serving sections, each filling the struct of its name
 * (config.c): server:, hardware:, deploy:, cluster:, slo:, metrics:, the
 * elements of pools:, faults: and policy:. */
extern const struct sim_param cl_server_rows[];
extern const struct sim_param cl_hardware_rows[];
extern const struct sim_param cl_deploy_rows[];
extern const struct sim_param cl_cluster_rows[];
extern const struct sim_param cl_slo_rows[];
extern const struct sim_param cl_metrics_rows[];
extern const struct sim_param cl_pool_rows[];
extern const struct sim_param cl_faults_rows[];
extern const struct sim_param cl_policy_rows[];

/* Rows of `model:` when it is a mapping rather than a catalog name,
 * filling struct cl_model_src. */
extern const struct sim_param cl_model_src_rows[];

/* The GPU named name: an inline definition of s (hardware.gpus) first,
 * else the catalog's; NULL when neither has it. Borrowed from s or static. */
const struct gpu_spec *cl_gpu_find(const struct cl_scenario *s,
                                   const char *name);

/* The names cl_gpu_find() knows, inline ones first, joined by ", ".
 * Caller frees with free(). */
char *cl_gpu_names(const struct cl_scenario *s);

/* The layout of P/D group g (enum cl_pd_group) of s: its section's keys,
 * each one left out (or out of range, as in a struct not filled by the
 * loader) replaced by the top-level key it stands for: deploy.tp, deploy.ep,
 * deploy.redundant_experts, deploy.expert_imbalance, server.micro_batches,
 * server.max_num_seqs, server.max_num_batched_tokens. tp, expert_imbalance
 * and the two caps may stay unset (-1, NAN) when the top-level key is. */
struct cl_pd_layout cl_pd_layout_resolve(const struct cl_scenario *s, int g);

/* The layout of pools[i] of s (pools[].deploy), resolved as
 * cl_pd_layout_resolve() resolves a P/D group's, deploy.pp standing for a
 * pp left out; a pool without the section gets the top-level layout.
 * min_replicas and max_replicas are -1. */
struct cl_pd_layout cl_pool_layout_resolve(const struct cl_scenario *s, int i);

/* 1 when some pool of s has its own layout (pools[].deploy): the cluster
 * is then mixed, and its replicas differ in GPUs and speed
 * (docs/orchestrator.md, "Pools with their own layout"). */
int cl_pools_mixed(const struct cl_scenario *s);

/* The name of P/D group g ("prefill", "decode"); static. */
const char *cl_pd_group_name(int g);

/* The cross-field checks of the serving sections, which the scenario
 * loader runs after the walk that filled s, in this order: server, the
 * workload (wl_workload_check()), cluster, pools. Each reads what was
 * given from the walker y's seen list, reports to y at the keys'
 * positions, and completes the fields it decides. */

/* server: the server kind, when not given, from whether a model is
 * (llm) or not (abstract); the keys of the other kind are not used;
 * workload.prefix_hit_rate needs prefix_caching; an abstract server needs
 * service with the keys its dist uses. */
void cl_server_check(struct sim_yaml *y, struct cl_scenario *s);

/* cluster: replicas or min_gpus and max_gpus (together, min <= max;
 * neither: 1 replica); initial_gpus only for an elastic cluster, within
 * [min_gpus, max_gpus]; deploy.disaggregation only for a static llm
 * cluster, its replicas summing to cluster.replicas (which it sets when
 * not given). slo.tpot defaults to cluster.target_latency. */
void cl_cluster_check(struct sim_yaml *y, struct cl_scenario *s);

/* Pools: only for elastic clusters; names unique; provisioning keys fit
 * the distribution; grace only for borrowable pools; total capacity covers
 * min_gpus. */
void cl_pools_check(struct sim_yaml *y, struct cl_scenario *s);

/* The scope train_config_check() reads s through: its pools and the GPUs
 * of cl_gpu_find(). Borrows s, which must outlive it. */
struct train_config_scope cl_train_scope(const struct cl_scenario *s);

/* Reads the interruption trace file at path (format in
 * models/cluster/spot-trace.c: rows "time_s,gpus", in time order) into
 * it->trace_at_ns, trace_gpus and ntrace, replacing what they held; each
 * row's gpus at most capacity_gpus. Returns 0, SIM_EIO when the file
 * cannot be opened or is not a regular file, or SIM_EINVAL for a bad row
 * (reported to d as "path:line:col: error: ..."); on failure it is
 * unchanged. */
int cl_interruption_trace_load(const char *path, int capacity_gpus,
                               struct cl_interruptions *it, struct sim_diag *d);

/* Frees what s owns and zeroes it: every field its rows name
 * (sim_param_fini() over s->rows and cl_model_src_rows), then the fields the
 * loader adds beside the rows (file, text, the resolved model, GPUs,
 * calibration and the pools' interruption traces). NULL is a no-op. */
void cl_scenario_fini(struct cl_scenario *s);

#endif /* CL_CONFIG_H */
