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
    double replicas_mean;           /* time-weighted replicas up */
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
    double replicas_mean; /* time-weighted */
    uint64_t scale_events;

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
};

/* Appends a copy of note. */
void cl_results_note(struct cl_results *r, const char *note);

/* Frees everything r owns and zeroes it. NULL is a no-op. */
void cl_results_fini(struct cl_results *r);

#endif /* CL_RESULTS_H */
