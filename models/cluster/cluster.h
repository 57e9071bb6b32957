/*
 * The cluster model: builds a simulation from a loaded scenario (workload
 * source, router, replicas of an abstract server or of an LLM serving
 * engine), runs it on its own sim_loop and fills a struct cl_results. Each
 * call is independent (no shared state), so several can run in one process.
 * Single-threaded.
 */
#ifndef CL_CLUSTER_H
#define CL_CLUSTER_H

#include <stdint.h>

#include "models/cluster/config.h"
#include "models/cluster/results.h"
#include "models/policy/promhist.h"
#include "base/diag.h"

/* Called now and then during a run with the simulated time reached (s) and
 * the requests completed so far, so that a terminal can show progress. The
 * callback may read the wall clock; the model never does. */
typedef void (*cl_progress_fn)(void *ctx, double sim_s, uint64_t completed,
                               uint64_t expected);

/* Called once per request when it ends (finished, timed out or dropped
 * at arrival), in the order they end, with its row (borrowed for the
 * call), so that a caller can stream per-request results without the run
 * keeping them. */
typedef void (*cl_request_fn)(void *ctx, const struct cl_request_row *row);

struct cl_run_opts {
    const char *base_dir;    /* directory that relative trace paths use */
    cl_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    cl_request_fn request; /* may be NULL */
    void *request_ctx;
    /* 1: no fast-forward of steady decode (every engine iteration is an
     * event, as before it existed; docs/performance.md). */
    int no_fast_forward;
};

/* One group of replicas under deploy.disaggregation, as planned. */
struct cl_plan_group {
    int replicas;     /* at t = 0 */
    int min_replicas; /* elastic: the group's bounds; else replicas */
    int max_replicas;
    int gpus_per_replica; /* tp x data-parallel attention x pp */
    int tp;
    int tp_chosen; /* the group's tp was unset: the engine chose it */
    int ep;
};

/* The resolved deployment of an LLM scenario, for messages and reports. */
struct cl_plan {
    int replicas; /* at t = 0 */
    int gpus_per_replica;
    int tp;
    int tp_chosen;                 /* deploy.tp unset: the engine chose tp */
    double price_usd_per_gpu_hour; /* of hardware.gpu */
    int elastic;                   /* min_gpus/max_gpus with a policy */
    int min_replicas;
    int max_replicas;
    int initial_replicas;
    const char *policy; /* elastic: the policy's name (borrowed) */
    /* deploy.disaggregation: 1, and each group by enum cl_pd_group; then
     * gpus_per_replica is the groups' common count, 0 when they differ,
     * and tp the prefill group's. 0 and zeroes without it. */
    int disaggregated;
    struct cl_plan_group groups[CL_PD_GROUPS];
    /* pools[].deploy given (cl_pools_mixed()): 1, and then
     * gpus_per_replica is the first pool's replica's, the unit of the
     * replica counts above (min, max, initial: GPUs / that). */
    int mixed;
};

struct arch_spec;
struct gpu_spec;
struct perf_replica;

/* Fills r with the step-time constants of one replica of a on g laid out
 * tp x pp with expert parallelism ep and weights in weight_dtype (enum
 * cl_dtype), priced exactly as the simulation of s prices its replicas:
 * s's calibration profile (or the built-in one) for g, then s's
 * server.efficiency_* and iteration_overhead where given, s's kv_dtype,
 * gpu_memory_utilization and gpus_per_node. pp, ep < 1 mean 1. Returns
 * perf_replica_init()'s code with why filled on failure. */
int cl_replica_perf_init(const struct cl_scenario *s, const struct arch_spec *a,
                         const struct gpu_spec *g, int tp, int pp, int ep,
                         int weight_dtype, struct perf_replica *r, char *why,
                         size_t whylen);

/* Fills r with the step-time constants of one replica of P/D group group
 * (enum cl_pd_group) of s on g: the group's layout
 * (cl_pd_layout_resolve(), its tp derived when unset as the simulation
 * derives it), s's pp and weight dtype, priced as cl_replica_perf_init()
 * prices. Returns perf_replica_init()'s code with why filled on failure. */
int cl_pd_group_perf_init(const struct cl_scenario *s,
                          const struct arch_spec *a, const struct gpu_spec *g,
                          int group, struct perf_replica *r, char *why,
                          size_t whylen);

/* Checks what needs the catalogs: the model and GPU names, the replica's
 * feasibility (weights and KV cache in HBM), the GPU counts. Adds a
 * diagnostic at the offending key for each problem and returns
 * SIM_EINVAL/SIM_EINFEASIBLE, or 0 with *plan filled (plan may be NULL). */
int cl_scenario_check(const struct cl_scenario *s, struct cl_plan *plan,
                      struct sim_diag *d);

/* What can be checked of a scenario whose other keys have errors: the
 * model's and GPU kinds' names against the catalogs and the policy's name
 * and parameters, each problem a diagnostic at its key, so that a file's
 * errors come in one round. s may be partly filled (its positions set);
 * policy 0 leaves the policy out (its section had errors of its own). */
void cl_scenario_check_names(const struct cl_scenario *s, int policy,
                             struct sim_diag *d);

/* Runs the scenario with seed s->seed and fills *out (zeroed first; caller
 * frees with cl_results_fini()). wall_s is left 0 for the caller to set.
 * Returns 0, or a negative SIM_E* code with diagnostics (bad trace row,
 * infeasible configuration); *out then holds what was simulated so far. */
int cl_run(const struct cl_scenario *s, const struct cl_run_opts *opts,
           struct cl_results *out, struct sim_diag *d);

/*
 * A session: a run opened from a scenario and advanced step by step to
 * given simulated times, so that something outside (the digital twin, a
 * test) can read what a live system would expose between steps and, in
 * the external mode, set the cluster's size. cl_run() is a session
 * advanced to the end in one step, so both give the same results.
 * Deterministic: the session reads no clock; the caller chooses the times.
 */
struct cl_session;

enum cl_session_flags {
    /* The policy is never asked: the size is what cl_session_set_desired()
     * sets (the scenario must be elastic). Results name the policy
     * "external". */
    CL_SESSION_EXTERNAL = 1,
    /* Record each replica's per-request histograms (struct
     * cl_session_replica.req); cl_run() does not pay for them. */
    CL_SESSION_READOUTS = 2,
};

/* Opens a session on s with the checks and start of cl_run(): *out is
 * zeroed, then filled as the run goes (s, opts and out are borrowed until
 * cl_session_close()). flags: enum cl_session_flags. Returns 0 with *sp
 * set, or a negative SIM_E* code with diagnostics in d, *sp NULL and out
 * holding what was filled (free it with cl_results_fini()). */
int cl_session_open(const struct cl_scenario *s, const struct cl_run_opts *opts,
                    int flags, struct cl_results *out, struct cl_session **sp,
                    struct sim_diag *d);

/* Runs every event up to and including t_ns; the session's clock is then
 * t_ns (INT64_MAX: until nothing is left, the clock at the last event).
 * A t_ns before the clock is a no-op. Returns 0, or the negative SIM_E*
 * code of a workload error (bad trace row, with diagnostics in the d given
 * to open): then only cl_session_close() is useful. */
int cl_session_advance(struct cl_session *ss, int64_t t_ns);

/* The session's clock in ns. */
int64_t cl_session_now(const struct cl_session *ss);

/* External mode: sets the desired number of replicas (serving plus
 * pending) now, clamped to the scenario's [min, max] replicas, and
 * reconciles at once as the orchestrator does after a policy decision
 * (new replicas provision and load; surplus pending ones are cancelled,
 * serving ones drain). Returns the clamped count, or -1 when the session
 * is not external. */
int cl_session_set_desired(struct cl_session *ss, int desired);

/* A per-request histogram with vLLM's fixed bounds: non-cumulative counts
 * per finite bucket, then +Inf; sum and count of the observations. */
#define CL_VH_MAX_BUCKETS 24

enum cl_vhist_kind {
    CL_VH_PROMPT, /* vllm:request_prompt_tokens (tokens) */
    CL_VH_OUTPUT, /* vllm:request_generation_tokens (tokens) */
    CL_VH_E2E,    /* vllm:e2e_request_latency_seconds (s) */
    CL_VH_COUNT,
};

struct cl_vhist {
    uint64_t bucket[CL_VH_MAX_BUCKETS + 1];
    double sum;
    uint64_t count;
};

/* The finite upper bounds of kind (borrowed, static; *n receives their
 * number): for token counts vLLM's 1-2-5 series (build_1_2_5_buckets) up
 * to 100,000, where vLLM stops at the largest value within max_model_len
 * (131,072 for Llama 3.1); for the end-to-end latency vLLM's 0.3 ... 7680 s
 * (docs/sources.md §6.1). */
const double *cl_vhist_bounds(int kind, int *n);

/* Replica life states as read out. */
enum cl_session_rstate {
    CL_SS_PROVISIONING,
    CL_SS_LOADING,
    CL_SS_SERVING,
    CL_SS_DRAINING,
};

/* One replica as a live system would scrape it: gauges now, cumulative
 * counters and histograms since it was requested (vLLM's names in
 * comments, docs/sources.md §6.1). */
struct cl_session_replica {
    uint64_t serial;       /* start order from 0: a stable name */
    int pool;              /* index into the scenario's pools */
    const char *pool_name; /* borrowed, valid while the session is */
    int state;             /* enum cl_session_rstate */
    double ready_s;        /* when it began serving; NAN before */
    double num_running;    /* vllm:num_requests_running */
    double num_waiting;    /* vllm:num_requests_waiting */
    double kv_usage;       /* vllm:kv_cache_usage_perc, 0..1; NAN abstract */
    int64_t kv_capacity_tokens; /* whole blocks; 0 for an abstract server */
    int block_tokens;           /* tokens per kv block; 0 abstract */
    uint64_t prompt_tokens;     /* vllm:prompt_tokens_total */
    uint64_t generation_tokens; /* vllm:generation_tokens_total */
    uint64_t request_success;   /* vllm:request_success_total */
    struct pol_ph ttft;         /* vllm:time_to_first_token_seconds */
    struct pol_ph itl;          /* vllm:inter_token_latency_seconds */
    /* Finished requests: prompt and output lengths, end-to-end latency
     * (enum cl_vhist_kind); zero unless opened with CL_SESSION_READOUTS. */
    struct cl_vhist req[CL_VH_COUNT];
};

/* The whole cluster now. */
struct cl_session_cluster {
    double now_s;
    int desired; /* external: the clamped size last set; else the policy's */
    int min_replicas;
    int max_replicas;
    int gpus_per_replica;
    int serving;
    int pending; /* provisioning or loading */
    int draining;
    int workload_done; /* the workload has ended and every request left */
    uint64_t arrived;
    uint64_t completed;
    uint64_t dropped;
    uint64_t unrouted; /* llm: requests held with no serving replica */
    uint64_t scale_events;
    uint64_t cold_starts;
};

/* Number of replica slots; cl_session_replica() reads slot i in [0, n). */
int cl_session_nreplicas(const struct cl_session *ss);

/* Fills *out with slot i. Returns 0, or -1 when the slot holds no replica
 * now (its replica is gone); *out is then unchanged. */
int cl_session_replica(const struct cl_session *ss, int i,
                       struct cl_session_replica *out);

/* Fills *out with the cluster's figures now. */
void cl_session_cluster(const struct cl_session *ss,
                        struct cl_session_cluster *out);

/* Ends the run at its last event (as cl_run() does at its end), fills the
 * results given to open, frees the session and returns the workload's
 * error code or 0. NULL is a no-op returning 0. */
int cl_session_close(struct cl_session *ss);

#endif /* CL_CLUSTER_H */
