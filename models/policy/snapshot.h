/*
 * Building the policy snapshot from windowed counters, shared by the
 * simulator's orchestrator and the live scaler (dsec-scaler), so that both
 * turn the same counter increments into the same rates, means and
 * histogram quantiles (promhist.h). A window is what increase() gives in
 * PromQL: the increments of cumulative counters over span_s seconds, and
 * the non-cumulative histogram buckets over the same span. Plain C, no
 * allocation, single-threaded.
 */
#ifndef POL_SNAPSHOT_H
#define POL_SNAPSHOT_H

#include "models/policy/policy.h"
#include "models/policy/promhist.h"

/* Counter increments over one window. Counts are doubles so that the live
 * scaler can pass Prometheus' increase() results; the simulator passes
 * integers, which doubles hold exactly below 2^53. */
struct pol_window {
    double span_s;                /* window length; 0 when none exists yet */
    double arrivals;              /* requests that arrived */
    double arrival_prompt_tokens; /* their prompt tokens */
    double arrival_output_tokens; /* their output tokens */
    double completed;             /* vllm:request_success_total */
    double prompt_tokens;         /* vllm:prompt_tokens_total */
    double output_tokens;         /* vllm:generation_tokens_total */
    struct pol_ph ttft;           /* vllm:time_to_first_token_seconds */
    struct pol_ph itl;            /* vllm:inter_token_latency_seconds */
};

/* Initialises an empty window (span 0, no counts, empty histograms). */
void pol_window_init(struct pol_window *w);

/* out += a: counts and histograms summed; out->span_s is kept. */
void pol_window_add(struct pol_window *out, const struct pol_window *a);

/* Fills the cluster aggregates of s from the window d: arrival rate, mean
 * prompt and output lengths, output token rate, TTFT and ITL p50/p99 and
 * means. Rates are NAN when d->span_s is 0, means and quantiles NAN when
 * nothing was counted. Other fields of s are untouched. */
void pol_snapshot_fill_window(struct pol_snapshot *s,
                              const struct pol_window *d);

/* Fills the windowed fields of one replica from its window d (quantiles,
 * means, token and request rates), with the same conventions. */
void pol_replica_fill_window(struct pol_replica *r, const struct pol_window *d);

/* Sets s->num_running and s->num_waiting to the sums over the replicas of
 * s->replicas in state POL_RS_READY (in array order), and s->kv_usage_mean
 * to the sum of their known (non-NAN) kv_usage divided by kv_divisor, or
 * NAN when kv_divisor <= 0. s->replicas and s->nreplicas must be set. */
void pol_snapshot_sum_gauges(struct pol_snapshot *s, int kv_divisor);

#endif /* POL_SNAPSHOT_H */
