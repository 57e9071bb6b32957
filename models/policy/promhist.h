/*
 * Prometheus-style histograms with vLLM's bucket boundaries, and
 * histogram_quantile() as Prometheus computes it, so that a policy sees the
 * same windowed quantiles in the simulator as in the live scaler, where
 * they come from scraping vllm:time_to_first_token_seconds and
 * vllm:inter_token_latency_seconds (buckets from vllm v1/metrics/loggers.py
 * via docs/sources.md §6.1). Values in seconds. Plain C, no allocation; a
 * window is the difference of two cumulative snapshots, as rate() and
 * increase() make it in PromQL. Single-threaded.
 */
#ifndef POL_PROMHIST_H
#define POL_PROMHIST_H

#include <stdint.h>

#define POL_PH_MAX_BUCKETS 24

enum pol_ph_kind {
    POL_PH_TTFT, /* vllm:time_to_first_token_seconds */
    POL_PH_ITL,  /* vllm:inter_token_latency_seconds */
};

/* Cumulative counts per finite bucket (le[i]) plus +Inf, the sum and the
 * count, as exposed on /metrics. */
struct pol_ph {
    int kind;
    int nle;                                 /* finite upper bounds */
    uint64_t bucket[POL_PH_MAX_BUCKETS + 1]; /* non-cumulative; last: +Inf */
    double sum;
    uint64_t count;
};

/* Initialises an empty histogram with the bucket bounds of kind. */
void pol_ph_init(struct pol_ph *h, int kind);

/* Returns the finite upper bounds of kind (borrowed, static) and their
 * number in *n. */
const double *pol_ph_bounds(int kind, int *n);

/* Records n observations of v seconds. */
void pol_ph_add_n(struct pol_ph *h, double v, uint64_t n);

/* out = a - b (a later snapshot minus an earlier one of the same kind). */
void pol_ph_delta(struct pol_ph *out, const struct pol_ph *a,
                  const struct pol_ph *b);

/* out += a. */
void pol_ph_merge(struct pol_ph *out, const struct pol_ph *a);

/* Prometheus histogram_quantile(q): finds the bucket holding rank q*count
 * and interpolates linearly inside it (lower bound 0 for the first bucket);
 * a rank in the +Inf bucket returns the largest finite bound. NAN when the
 * histogram is empty. */
double pol_ph_quantile(const struct pol_ph *h, double q);

#endif /* POL_PROMHIST_H */
