/*
 * Helpers shared by the scaling policies: a bounded, time-stamped sample
 * window (a ring of at most POL_UTIL_WINDOW_CAP samples, the oldest dropped
 * first), per-replica metric access by name, means and sums over READY
 * replicas that skip NAN, and a few rounding helpers. Like the policies,
 * this depends on plain C, <math.h> and base/ only, so it links unchanged
 * into the live scaler. Time is double seconds. Objects are
 * caller-allocated (no heap use). Single-threaded.
 */
#ifndef POL_UTIL_H
#define POL_UTIL_H

#include "base/errors.h"
#include "models/policy/policy.h"

/* What decide() returns when it has nothing to decide on (no READY replica
 * reports the metric): the guard then holds (POL_GUARD_POLICY_HOLD). */
#define POL_UTIL_ENODATA SIM_ENOTFOUND

/* Most samples a window keeps. At one sample per 1 s evaluation this is
 * 17 minutes, longer than any published window (HPA's 300 s, Ray's 600 s
 * delay is not a window). Older samples are dropped when it is full. */
#define POL_UTIL_WINDOW_CAP 1024

/* A ring of (time, value) samples, pushed in non-decreasing time. */
struct pol_util_window {
    double t_s[POL_UTIL_WINDOW_CAP];
    double v[POL_UTIL_WINDOW_CAP];
    int head; /* index of the oldest sample */
    int n;    /* samples held, <= POL_UTIL_WINDOW_CAP */
};

/* Empties w. */
void pol_util_window_init(struct pol_util_window *w);

/* Appends the sample (t_s seconds, v). A NAN v is ignored. When w is full
 * the oldest sample is dropped. */
void pol_util_window_push(struct pol_util_window *w, double t_s, double v);

/* Aggregates of the samples in the last span_s seconds before now_s: a
 * sample counts when now_s - t_s < span_s, or when t_s >= now_s (so the
 * sample taken now counts even with span 0). Each costs O(n). Return NAN
 * when no sample counts. */
double pol_util_window_mean(const struct pol_util_window *w, double now_s,
                            double span_s);
double pol_util_window_max(const struct pol_util_window *w, double now_s,
                           double span_s);
double pol_util_window_min(const struct pol_util_window *w, double now_s,
                           double span_s);
double pol_util_window_sum(const struct pol_util_window *w, double now_s,
                           double span_s);

/* Number of samples the aggregates above would use. */
int pol_util_window_count(const struct pol_util_window *w, double now_s,
                          double span_s);

/* Per-replica metrics a policy can be configured to follow (docs/sources.md
 * §6.1 names in pol_replica). */
enum pol_util_metric {
    POL_UTIL_M_NUM_RUNNING = 0, /* vllm:num_requests_running */
    POL_UTIL_M_NUM_WAITING,     /* vllm:num_requests_waiting */
    POL_UTIL_M_CONCURRENCY,     /* running + waiting */
    POL_UTIL_M_KV_USAGE,        /* vllm:kv_cache_usage_perc, 0..1 */
    POL_UTIL_M_TTFT_P99,        /* seconds */
    POL_UTIL_M_ITL_P99,         /* seconds */
    POL_UTIL_M_REQUESTS_PER_S,  /* rate of vllm:request_success_total */
    POL_UTIL_M_OUTPUT_TOKENS_PER_S,
};

/* Choices for a SIM_PT_ENUM row of enum pol_util_metric, sorted by name,
 * NULL-terminated: concurrency, itl_p99, kv_usage, num_running,
 * num_waiting, output_tokens_per_s, requests_per_s, ttft_p99. */
extern const struct sim_param_choice pol_util_metric_choices[];

/* Choices for a SIM_PT_ENUM row of enum pol_drain (a policy's scale_in
 * parameter), NULL-terminated: default, finish, migrate. */
extern const struct sim_param_choice pol_util_drain_choices[];

/* Static name of m ("concurrency", ...), or "?" for an unknown value. */
const char *pol_util_metric_name(enum pol_util_metric m);

/* Value of metric m on replica r; NAN when r does not report it
 * (concurrency is NAN when either part is). */
double pol_util_replica_metric(const struct pol_replica *r,
                               enum pol_util_metric m);

/* Mean of metric m over the READY replicas of s that report it (non-NAN).
 * *n_out (may be NULL) receives how many replicas were averaged. Returns
 * NAN when none reports it. */
double pol_util_ready_mean(const struct pol_snapshot *s, enum pol_util_metric m,
                           int *n_out);

/* Sum of metric m over the READY replicas of s that report it; *n_out (may
 * be NULL) as above. Returns NAN when none reports it. */
double pol_util_ready_sum(const struct pol_snapshot *s, enum pol_util_metric m,
                          int *n_out);

/* The revision-wide total of metric m with no replica ready, as a scaler
 * reading the metric's source (Knative's activator, KEDA's scaler) sees
 * it: concurrency, num_waiting and num_running from the cluster's gauges
 * (requests held for want of a replica count as waiting), requests_per_s
 * from the arrival rate, output_tokens_per_s from the cluster's rate.
 * Returns NAN for a per-replica metric (KV usage, latency quantiles),
 * which no replica reports then. */
double pol_util_idle_total(const struct pol_snapshot *s,
                           enum pol_util_metric m);

/* The size the cluster is heading to: s->ready + s->pending. */
int pol_util_current(const struct pol_snapshot *s);

/* ceil(x) and floor(x) that forgive floating-point noise of 1e-9 (so
 * 4 * 1.5000000001 is 6, not 7), saturated to [0, INT_MAX / 2]; NAN gives
 * 0. */
int pol_util_ceil(double x);
int pol_util_floor(double x);

/* The behaviour stage of a Kubernetes HPA (autoscaling/v2,
 * kubernetes/website @ 10ae760 horizontal-pod-autoscale.md, docs/sources.md
 * §8), shared by hpa and keda: stabilisation windows, then rate limits per
 * period, each direction with one Percent and one Pods policy and
 * selectPolicy Max (the policy allowing the larger change wins). */
struct pol_util_hpa_behavior {
    double up_window_s;   /* scale-up stabilisation window (0) */
    double down_window_s; /* scale-down stabilisation window (300 s) */
    double up_percent;    /* Percent policy per up_period_s (100) */
    int up_pods;          /* Pods policy per up_period_s (4) */
    double up_period_s;   /* (15 s) */
    double down_percent;  /* Percent policy per down_period_s (100) */
    double down_period_s; /* (15 s) */
};

/* History the stage keeps: the raw recommendations and the scale events
 * it proposed (replicas added or removed, as positive values). */
struct pol_util_hpa_state {
    struct pol_util_window recs;
    struct pol_util_window ups;
    struct pol_util_window downs;
};

/* Empties st. */
void pol_util_hpa_state_init(struct pol_util_hpa_state *st);

/* Stabilises the raw recommendation rec (replicas) against current
 * (replicas), then applies the rate limits, and records rec and the
 * resulting event at now_s. Stabilisation: up = min of the
 * recommendations in the up window, down = max of those in the down
 * window (both include rec); the result is current raised to up or
 * lowered to down. Rate limits: relative to the size at the start of each
 * period (current minus the replicas this stage added in it, or plus
 * those it removed), up to max(ceil(start * (1 + up_percent / 100)),
 * start + up_pods) and down to start * (1 - down_percent / 100) rounded
 * down, never past current. Events record what this stage proposed, not
 * what the guard let through. Returns the replicas to ask for. */
int pol_util_hpa_behave(struct pol_util_hpa_state *st,
                        const struct pol_util_hpa_behavior *b, double now_s,
                        int current, int rec);

#endif /* POL_UTIL_H */
