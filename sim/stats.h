/*
 * Output statistics for simulation runs, all in constant memory and with no
 * allocation: every struct is caller-owned and may be embedded; _init
 * fully initialises it and nothing needs a _fini. Single-threaded.
 *
 * - struct sim_welford: exact streaming count, mean, sample variance, min and
 *   max of doubles (Welford 1962), and the merge of two accumulators (Chan,
 *   Golub and LeVeque 1979). O(1) per add and per merge.
 * - struct sim_hist: a log-linear histogram of non-negative int64 values
 *   (latencies in ns) after Gil Tene's HdrHistogram. Values below 256 are
 *   counted exactly; above, each power of two [2^k, 2^(k+1)) is split into
 *   128 equal sub-buckets, so a bucket's width is at most 1/128 of its lower
 *   bound. Quantiles are reported as the bucket midpoint, which is within
 *   1/256 (0.39%) relative of the true sample order statistic; the recorded
 *   min and max are exact. Covers 0..INT64_MAX in SIM_HIST_BUCKETS = 7296
 *   uint64 counters (about 57 KiB per histogram). O(1) per add; quantile,
 *   reset and merge are O(buckets between min and max).
 * - struct sim_tavg: time-weighted mean of a piecewise-constant signal
 *   (queue length, replicas up) over a window [t0_ns, now]. Times are int64
 *   ns and never decrease. O(1) per call.
 * - struct sim_bmeans: batch-means 95% confidence interval for the mean of a
 *   long, autocorrelated output sequence (Law and Kelton, "Simulation
 *   Modeling and Analysis", 5th ed., 2015, sec. 9.5.3), streaming: it keeps at
 *   most 2B batch sums and, when they fill, merges adjacent pairs and doubles
 *   the batch size, so it always holds between B and 2B - 1 complete batches
 *   once 2B samples are in. O(1) amortised per add.
 *
 * Functions that take a time require it not to go back; a violation is a bug
 * (SIM_NEVER): it asserts in debug builds and is clamped in release builds.
 */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Welford accumulator. Fields are public for reading; change them only
 * through the functions below. min and max are +inf and -inf while n == 0. */
struct sim_welford {
    uint64_t n;  /* samples added */
    double mean; /* running mean */
    double m2;   /* sum of squared deviations from the mean */
    double min;
    double max;
};

/* Makes w empty. */
void sim_welford_init(struct sim_welford *w);

/* Adds sample x (any unit; all samples in one accumulator share it). NaN is
 * not checked and poisons the mean and variance. O(1). */
void sim_welford_add(struct sim_welford *w, double x);

/* Returns the mean of the samples added, or NAN if there are none. */
double sim_welford_mean(const struct sim_welford *w);

/* Returns the sample variance m2 / (n - 1), in the square of the samples'
 * unit, or NAN if fewer than 2 samples were added. */
double sim_welford_var(const struct sim_welford *w);

/* Returns the sample standard deviation sqrt(var), or NAN if fewer than 2
 * samples were added. */
double sim_welford_sd(const struct sim_welford *w);

/* Adds every sample of src into dst, as if they had been added one by one
 * (equal up to rounding), using the pairwise update of Chan, Golub and
 * LeVeque (1979). src is unchanged; src == dst is allowed and doubles every
 * sample. O(1). */
void sim_welford_merge(struct sim_welford *dst, const struct sim_welford *src);

/* log2 of the number of linear sub-buckets per power of two. */
#define SIM_HIST_SUB_BITS 7
/* Linear sub-buckets per power of two; values below 2 * SIM_HIST_SUB are
 * counted exactly. */
#define SIM_HIST_SUB (1 << SIM_HIST_SUB_BITS)
/* Number of counters: octaves 2^7..2^62 hold SIM_HIST_SUB each, and the
 * exact range 0..255 takes two more. */
#define SIM_HIST_BUCKETS ((64 - SIM_HIST_SUB_BITS) * SIM_HIST_SUB)

/* Log-linear histogram, about 57 KiB. Embeddable; fields are private except
 * for reading. min is INT64_MAX and max is -1 while n == 0. */
struct sim_hist {
    uint64_t n; /* samples recorded */
    int64_t min;
    int64_t max;
    uint64_t counts[SIM_HIST_BUCKETS];
};

/* Makes h empty. Clears every counter: O(SIM_HIST_BUCKETS). */
void sim_hist_init(struct sim_hist *h);

/* Makes h empty again. Clears only the counters between the buckets of min
 * and max, so it costs O(range recorded), not O(SIM_HIST_BUCKETS); h must
 * have been initialised. */
void sim_hist_reset(struct sim_hist *h);

/* Records value (ns or any non-negative integer). value must be >= 0: a
 * negative value asserts in debug builds and is recorded as 0 in release
 * builds. O(1), no loop and no data-dependent branch. */
void sim_hist_add(struct sim_hist *h, int64_t value);

/* Records value count times; count 0 does nothing. Same contract as
 * sim_hist_add(). The caller keeps the total below 2^64. */
void sim_hist_add_n(struct sim_hist *h, int64_t value, uint64_t count);

/* A run of values in one bucket (sim_hist_runs()). */
struct sim_hist_run {
    size_t bucket;
    uint64_t len; /* values */
};

/* Splits v[0 .. n - 1] (each >= 0, as for sim_hist_add()) into runs of
 * consecutive values in the same bucket, written to run (room for n), and
 * sets *min and *max to the smallest and largest value (n > 0). Returns
 * the number of runs. With sim_hist_add_runs(), the same values go to
 * several histograms with one bucket computation each, and to each with
 * one counter update a run (a fast-forwarded replica's inter-token gaps,
 * which grow slowly, are mostly one run). O(n). */
size_t sim_hist_runs(const int64_t *v, size_t n, struct sim_hist_run *run,
                     int64_t *min, int64_t *max);

/* sim_hist_add_n(h, v, count) for every value v of the nrun runs that
 * sim_hist_runs() found, whose extremes are min and max. O(nrun). */
void sim_hist_add_runs(struct sim_hist *h, const struct sim_hist_run *run,
                       size_t nrun, int64_t min, int64_t max, uint64_t count);

/* Returns the number of values recorded. */
uint64_t sim_hist_count(const struct sim_hist *h);

/* Returns an estimate of the q-quantile of the values recorded: the smallest
 * recorded value v such that at least ceil(q * n) values are <= v (with the
 * rank at least 1), as HdrHistogram defines it. q = 0 gives the exact min,
 * q = 1 the exact max; otherwise the result is the midpoint of the bucket
 * holding that order statistic, clamped to [min, max], and is within 1/256
 * relative of it (exact below 256). q is clamped to [0, 1]. Returns NAN if
 * h is empty or q is NaN. O(buckets between min and max), at most
 * SIM_HIST_BUCKETS. */
double sim_hist_quantile(const struct sim_hist *h, double q);

/* Returns the largest value recorded, exactly, or 0 if h is empty. */
int64_t sim_hist_max(const struct sim_hist *h);

/* Returns the smallest value recorded, exactly, or 0 if h is empty. */
int64_t sim_hist_min(const struct sim_hist *h);

/* Adds every value recorded in src into dst; the result is identical to
 * having recorded them in dst. src is unchanged; src == dst doubles every
 * count. O(buckets between src's min and max). */
void sim_hist_merge(struct sim_hist *dst, const struct sim_hist *src);

/* Time-weighted average of a piecewise-constant signal. Fields are private
 * except for reading. */
struct sim_tavg {
    int64_t t0_ns;   /* start of the window */
    int64_t last_ns; /* time of the last sim_tavg_set() or restart */
    double value;    /* current value of the signal */
    double area;     /* integral over [t0_ns, last_ns], value * ns */
};

/* Starts a window at t0_ns (ns of simulated time) with the signal at value
 * (any unit). */
void sim_tavg_init(struct sim_tavg *a, int64_t t0_ns, double value);

/* Changes the signal to value at t_ns; the old value holds on
 * [last change, t_ns). t_ns must not be before the last change or restart
 * (SIM_NEVER: asserts in debug builds; release builds treat it as equal). */
void sim_tavg_set(struct sim_tavg *a, int64_t t_ns, double value);

/* sim_tavg_set(a, t_ns[i], value[i]) for i = 0 .. n - 1, bit for bit. */
void sim_tavg_set_run(struct sim_tavg *a, const int64_t *t_ns,
                      const double *value, size_t n);

/* Returns the current value of the signal. */
double sim_tavg_value(const struct sim_tavg *a);

/* Returns the integral of the signal over [t0_ns, t_now_ns], in value * ns
 * (divide by 1e9 for value * s). t_now_ns must not be before the last change
 * (clamped like sim_tavg_set()). */
double sim_tavg_integral(const struct sim_tavg *a, int64_t t_now_ns);

/* Returns the time-weighted mean of the signal over [t0_ns, t_now_ns], or
 * the current value if t_now_ns == t0_ns. Same time rule as
 * sim_tavg_integral(). */
double sim_tavg_mean(const struct sim_tavg *a, int64_t t_now_ns);

/* Accounts the signal up to t_ns, then starts a new window [t_ns, ...) that
 * keeps the current value and forgets the integral: for per-interval series
 * and to drop a warm-up period. Same time rule as sim_tavg_set(). */
void sim_tavg_restart(struct sim_tavg *a, int64_t t_ns);

/* Largest number of batches sim_bmeans_init() accepts; the buffer holds
 * twice as many batch sums (4 KiB). */
#define SIM_BMEANS_MAX_BATCHES 256

/* Streaming batch means. Embeddable; fields are private. */
struct sim_bmeans {
    size_t nbatches; /* B, batches wanted */
    size_t k;        /* complete batches held, < 2B */
    uint64_t size;   /* samples per batch, a power of two */
    uint64_t cur_n;  /* samples in the incomplete trailing batch */
    double cur_sum;  /* their sum */
    uint64_t n;      /* samples added */
    double total;    /* sum of all samples */
    double sums[2 * SIM_BMEANS_MAX_BATCHES]; /* complete batch sums */
};

/* Makes b empty, with batches of one sample, aiming at nbatches batches
 * (32 is usual; Law and Kelton advise 10 to 40 for the CI itself). Returns
 * 0, or SIM_ERANGE if nbatches is outside [2, SIM_BMEANS_MAX_BATCHES]; b is
 * then unchanged. */
int sim_bmeans_init(struct sim_bmeans *b, size_t nbatches);

/* Adds the next observation x of the sequence (any unit). O(1) amortised;
 * O(B) when the buffer of 2B batch sums fills and pairs are merged. */
void sim_bmeans_add(struct sim_bmeans *b, double x);

/* Returns the mean of every sample added, including the incomplete trailing
 * batch, or NAN if none was added. */
double sim_bmeans_mean(const struct sim_bmeans *b);

/* Returns the number k of complete batches now held: 0 to 2B - 1, and at
 * least B once 2B samples have been added. */
size_t sim_bmeans_batches(const struct sim_bmeans *b);

/* Returns the half-width of a 95% confidence interval for the mean,
 * t_{0.975, k-1} * s / sqrt(k), where s is the sample standard deviation of
 * the k complete batch means (same unit as the samples). The incomplete
 * trailing batch (fewer samples than the batch size) is left out of s,
 * which is valid because every complete batch has the same size; the
 * interval is meant to be centred on sim_bmeans_mean(). Returns NAN if
 * k < 2. Valid only if batches are long enough for their means to be nearly
 * independent, which doubling the batch size brings about as the run grows.
 * O(k). */
double sim_bmeans_ci95(const struct sim_bmeans *b);

#endif /* SIM_STATS_H */
