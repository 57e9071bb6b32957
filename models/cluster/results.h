/*
 * What one simulation run produces: summary metrics and a time series, in
 * the units their names say. Filled by the cluster model, read by the report
 * writers (reports/) and the CLI. The struct owns its strings and arrays;
 * free them with cl_results_fini(). The time series has one row per
 * metrics interval, so it grows with simulated time, not with requests.
 */
#ifndef CL_RESULTS_H
#define CL_RESULTS_H

#include <stddef.h>
#include <stdint.h>

/* A latency metric in milliseconds over the requests after warm-up. ci95 is
 * the half-width of the 95% batch-means confidence interval of the mean
 * (NAN when too few batches). n = 0 means no samples, and then every other
 * field is NAN. */
struct cl_latency {
    uint64_t n;
    double mean;
    double ci95;
    double p50;
    double p90;
    double p99;
    double max;
};

/* States a GPU is charged in, from request to release. Idle is serving
 * with no request on the replica. */
enum cl_gpu_state {
    CL_GS_PROVISIONING,
    CL_GS_LOADING,
    CL_GS_SERVING,
    CL_GS_IDLE,
    CL_GS_DRAINING,
    CL_GS_COUNT,
};

/* Static names: "provisioning", "loading", "serving", "idle", "draining". */
const char *cl_gpu_state_name(int state);

/* Per pool accounting. GPU-hours of a reserved pool are its whole capacity
 * over the run (paid whether used or not); gpu_hours_used is what replicas
 * held. */
struct cl_pool_result {
    char *name;
    char *gpu;
    int capacity_gpus;
    int borrowable;
    int reserved;
    double price_usd_per_gpu_hour;
    double gpu_hours_by_state[CL_GS_COUNT];
    double gpu_hours_used; /* sum over states */
    double gpu_hours_paid; /* used, or capacity x time when reserved */
    double cost_usd;
    uint64_t replicas_started;
};

/* One interval of the time series. Quantiles are NAN when the interval saw
 * no completion. */
struct cl_series_row {
    int64_t t_start_ns;
    int64_t t_end_ns;
    uint64_t arrivals;
    uint64_t completions;
    uint64_t output_tokens;
    double throughput_tokens_per_s; /* output tokens / interval length */
    double queue_len_mean;          /* time-weighted waiting requests */
    double running_mean;            /* time-weighted requests in service */
    double replicas_mean;           /* time-weighted replicas serving */
    double gpus_mean;               /* time-weighted GPUs held (any state) */
    int desired_replicas;           /* the orchestrator's target at the end */
    double ttft_p50_ms;
    double ttft_p99_ms;
    double tpot_p50_ms;
    double tpot_p99_ms;
    double e2e_p50_ms;
    double e2e_p99_ms;
};

struct cl_results {
    char *scenario_name;
    uint64_t seed;

    struct cl_latency ttft_ms;
    struct cl_latency tpot_ms;
    struct cl_latency e2e_ms;
    struct cl_latency queue_ms;

    uint64_t requests_arrived;
    uint64_t requests_completed;
    uint64_t requests_dropped;      /* rejected: could never be served */
    uint64_t input_tokens;          /* of completed requests */
    uint64_t output_tokens;         /* of completed requests */
    double throughput_tokens_per_s; /* output tokens / simulated time */
    double requests_per_s;          /* completions / simulated time */

    double sim_time_s; /* simulated time from 0 to the last event */
    double gpu_hours;
    double cost_usd;
    double price_usd_per_gpu_hour;
    int gpus_per_replica;
    double slo_attainment; /* fraction 0..1; NAN when no SLO is set */

    int replicas_min;
    int replicas_max;
    double replicas_mean;  /* time-weighted, serving */
    uint64_t scale_events; /* orchestrator decisions that changed the size */
    uint64_t cold_starts;  /* replicas started after t = 0 */
    uint64_t failures;     /* replicas lost to GPU or node failures */
    uint64_t requests_retried; /* in flight on a failed replica */
    uint64_t preemptions;      /* llm: running requests whose KV was dropped
                                  for lack of blocks (recompute) */
    int64_t kv_blocks_end;     /* llm: KV blocks still held when the run
                                  ended; 0 unless requests were cut off */
    int64_t kv_blocks_peak;    /* llm: most KV blocks one replica held at
                                  once */
    double recovery_s_mean;    /* failure -> replacement serving; NAN */
    double gpu_hours_by_state[CL_GS_COUNT];
    double borrowed_gpu_hours; /* taken from borrowable (test) pools */
    char *policy;              /* NULL for a static cluster */

    struct cl_pool_result *pools;
    int npools;

    /* Little's law on the simulator's own counters, after warm-up:
     * time-average number waiting vs. arrival rate x mean wait. */
    double queue_len_mean; /* time-weighted, whole run */
    double arrival_rate_per_s;
    double utilization; /* busy slots / slots, time-weighted */

    uint64_t sim_events;
    double wall_s;
    double events_per_s; /* sim_events / wall_s */

    /* Human-readable notes (e.g. "elastic scaling not simulated yet"). */
    char **notes;
    int nnotes;

    struct cl_series_row *series;
    size_t nseries;
    /* Per pool and interval, [row * npools + pool]: time-weighted GPUs held
     * and the interval's cost (a reserved pool: its whole capacity). */
    double *pool_gpus_mean;
    double *pool_cost_usd;
};

/* Appends a copy of note. */
void cl_results_note(struct cl_results *r, const char *note);

/* Frees everything r owns and zeroes it. NULL is a no-op. */
void cl_results_fini(struct cl_results *r);

#endif /* CL_RESULTS_H */
