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

/* One replica over one interval of the time series, under the names vLLM
 * gives its Prometheus metrics (FACTS.md §6.1). Every replica that existed
 * during the interval has a row, including one that went away in it (its
 * last row has state "gone"). Means are time-weighted over the whole
 * interval (zero while the replica did not exist); the *_end fields are the
 * gauges at the interval's end; tokens and successes are those of the
 * interval. */
struct cl_replica_row {
    int64_t t_start_ns;
    int64_t t_end_ns;
    uint64_t replica; /* serial: the replica's start order, 0-based */
    int pool;         /* index in cl_results.pools */
    int state;        /* at the end; cl_replica_state_name() */
    double num_requests_running; /* mean: admitted, not finished */
    double num_requests_waiting; /* mean: routed here, not admitted */
    int64_t num_requests_running_end;
    int64_t num_requests_waiting_end;
    double kv_cache_usage_perc;     /* mean KV blocks used / blocks, 0..1;
                                       NAN for an abstract server */
    double kv_cache_usage_perc_end; /* NAN for an abstract server */
    double prefix_cache_hit_rate;   /* cumulative blocks hit / looked up at
                                       the end; NAN before any lookup */
    uint64_t prompt_tokens;         /* prefilled in the interval */
    uint64_t generation_tokens;     /* generated in the interval */
    uint64_t request_success;       /* finished in the interval */
};

/* Static names of a replica's state in cl_replica_row.state:
 * "provisioning", "loading", "serving", "draining", "gone". */
const char *cl_replica_state_name(int state);

/* One priority class (workload.priority_classes) over the requests after
 * warm-up; latencies in ms, NAN without completions. */
struct cl_class_result {
    char *name;
    int priority;
    uint64_t completed;
    double ttft_mean_ms;
    double ttft_p50_ms;
    double ttft_p99_ms;
    double e2e_p99_ms;
    double slo_attainment; /* NAN when no SLO is set */
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
    /* llm prefix caching, KV offload and swap (docs/serving.md). Blocks
     * are engine blocks of server.block_tokens; bytes whole-replica KV. */
    double prefix_hit_rate;           /* hit / looked-up prompt blocks; NAN
                                         when nothing was looked up */
    uint64_t prefix_lookup_blocks;    /* hashed prompt blocks looked up */
    uint64_t prefix_hits_gpu;         /* found in HBM */
    uint64_t prefix_hits_host;        /* found in host memory (offload) */
    uint64_t prefix_hits_remote;      /* found in the remote tier */
    uint64_t kv_offload_bytes;        /* HBM -> host, evicted cached blocks */
    uint64_t kv_offload_remote_bytes; /* host -> remote */
    uint64_t kv_fetch_bytes;          /* host -> HBM, hits */
    uint64_t kv_fetch_remote_bytes;   /* remote -> HBM, hits */
    double kv_transfer_s;             /* iteration time spent waiting for
                                         fetches and swaps */
    uint64_t swaps_out;               /* swap preemptions */
    uint64_t swaps_in;                /* swapped requests resumed */
    uint64_t swap_bytes;              /* both directions */
    uint64_t swap_fallbacks;          /* swap space full: recomputed */
    uint64_t pd_transfers;            /* P/D: KV transfers */
    uint64_t pd_bytes;                /* P/D: bytes transferred */
    double pd_transfer_ms_mean;       /* P/D: mean transfer time; NAN */
    struct cl_class_result *classes;  /* per priority class, or NULL */
    int nclasses;
    double recovery_s_mean; /* failure -> replacement serving; NAN */
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

    /* Per replica and interval, by interval then replica start order. At
     * most CL_REPLICA_SERIES_MAX rows (bounded memory); rows past it are
     * counted in replica_series_dropped and a note says so. */
    struct cl_replica_row *replica_series;
    size_t nreplica_series;
    uint64_t replica_series_dropped;
};

/* Most per-replica series rows one run keeps: 2^19 rows of about 120
 * bytes, 60 MiB (a day at 60 s intervals for 364 replicas). */
#define CL_REPLICA_SERIES_MAX ((size_t)1 << 19)

/* Appends a copy of note. */
void cl_results_note(struct cl_results *r, const char *note);

/* Frees everything r owns and zeroes it. NULL is a no-op. */
void cl_results_fini(struct cl_results *r);

#endif /* CL_RESULTS_H */
