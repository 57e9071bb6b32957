/*
 * Output statistics; see stats.h for the contract and the sources.
 *
 * Welford, B. P. (1962). Note on a method for calculating corrected sums of
 * squares and products. Technometrics 4(3), 419-420.
 * Chan, T. F., Golub, G. H., LeVeque, R. J. (1979). Updating formulae and a
 * pairwise algorithm for computing sample variances. Stanford CS tech. report
 * STAN-CS-79-773.
 * Tene, G. HdrHistogram, http://hdrhistogram.org (bucket layout and the
 * quantile definition).
 * Law, A. M. (2015). Simulation Modeling and Analysis, 5th ed., McGraw-Hill,
 * sec. 9.5.3 (batch means).
 */
#include "sim/stats.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "base/errors.h"
#include "base/xalloc.h"

void sim_welford_init(struct sim_welford *w)
{
    w->n = 0;
    w->mean = 0.0;
    w->m2 = 0.0;
    w->min = INFINITY;
    w->max = -INFINITY;
}

void sim_welford_add(struct sim_welford *w, double x)
{
    /* The naive sum-of-squares formula loses every digit when the mean is
     * large against the spread (latencies in ns); Welford's update does
     * not. */
    double d = x - w->mean;
    w->n++;
    w->mean += d / (double)w->n;
    w->m2 += d * (x - w->mean);
    w->min = x < w->min ? x : w->min;
    w->max = x > w->max ? x : w->max;
}

double sim_welford_mean(const struct sim_welford *w)
{
    return w->n ? w->mean : NAN;
}

double sim_welford_var(const struct sim_welford *w)
{
    return w->n >= 2 ? w->m2 / (double)(w->n - 1) : NAN;
}

double sim_welford_sd(const struct sim_welford *w)
{
    return sqrt(sim_welford_var(w));
}

void sim_welford_merge(struct sim_welford *dst, const struct sim_welford *src)
{
    /* Copy first so that src == dst works. */
    struct sim_welford a = *dst, b = *src;
    double n, d;

    if (b.n == 0)
        return;
    if (a.n == 0) {
        *dst = b;
        return;
    }
    n = (double)a.n + (double)b.n;
    d = b.mean - a.mean;
    dst->n = a.n + b.n;
    dst->mean = a.mean + d * ((double)b.n / n);
    dst->m2 = a.m2 + b.m2 + d * d * ((double)a.n * (double)b.n / n);
    dst->min = b.min < a.min ? b.min : a.min;
    dst->max = b.max > a.max ? b.max : a.max;
}

/* Index of the highest set bit of v, which must be non-zero. */
static inline unsigned high_bit(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll(v);
#else
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
#endif
}

/*
 * The bucket of v. Or-ing in 255 raises the octave k to at least 7, so that
 * values below 256 get shift 0 and bucket v (exact), and larger ones keep
 * their top 8 bits, 128..255, in octave slot shift = k - 7: the buckets of
 * consecutive octaves then follow each other with no gap and no branch.
 */
static inline size_t bucket_of(uint64_t v)
{
    unsigned shift = high_bit(v | (2 * SIM_HIST_SUB - 1)) - SIM_HIST_SUB_BITS;
    return (size_t)shift * SIM_HIST_SUB + (size_t)(v >> shift);
}

/* The smallest value of bucket i and its width (the number of values). */
static void bucket_range(size_t i, uint64_t *lo, uint64_t *width)
{
    unsigned shift =
        i < 2 * SIM_HIST_SUB ? 0 : (unsigned)(i / SIM_HIST_SUB - 1);
    *lo = (uint64_t)(i - (size_t)shift * SIM_HIST_SUB) << shift;
    *width = UINT64_C(1) << shift;
}

void sim_hist_init(struct sim_hist *h)
{
    memset(h->counts, 0, sizeof h->counts);
    h->n = 0;
    h->min = INT64_MAX;
    h->max = -1;
}

void sim_hist_reset(struct sim_hist *h)
{
    size_t lo, hi;

    if (h->n == 0)
        return;
    lo = bucket_of((uint64_t)h->min);
    hi = bucket_of((uint64_t)h->max);
    memset(&h->counts[lo], 0, (hi - lo + 1) * sizeof h->counts[0]);
    h->n = 0;
    h->min = INT64_MAX;
    h->max = -1;
}

void sim_hist_add(struct sim_hist *h, int64_t value)
{
    assert(value >= 0);
    /* The conditionals compile to conditional moves. */
    value = value < 0 ? 0 : value;
    h->counts[bucket_of((uint64_t)value)]++;
    h->n++;
    h->min = value < h->min ? value : h->min;
    h->max = value > h->max ? value : h->max;
}

void sim_hist_add_n(struct sim_hist *h, int64_t value, uint64_t count)
{
    assert(value >= 0);
    if (count == 0)
        return;
    value = value < 0 ? 0 : value;
    h->counts[bucket_of((uint64_t)value)] += count;
    h->n += count;
    h->min = value < h->min ? value : h->min;
    h->max = value > h->max ? value : h->max;
}

size_t sim_hist_runs(const int64_t *v, size_t n, struct sim_hist_run *run,
                     int64_t *min, int64_t *max)
{
    size_t nrun = 0;
    int64_t lo = INT64_MAX, hi = -1;

    /* The extremes first, with no branch: when they share a bucket, so
     * does every value between them (bucket_of() never decreases), and
     * the values are one run with no bucket computed for each. */
    for (size_t i = 0; i < n; i++) {
        int64_t value = v[i];

        assert(value >= 0);
        value = value < 0 ? 0 : value;
        lo = value < lo ? value : lo;
        hi = value > hi ? value : hi;
    }
    *min = lo;
    *max = hi;
    if (n == 0)
        return 0;
    if (bucket_of((uint64_t)lo) == bucket_of((uint64_t)hi)) {
        run[0].bucket = bucket_of((uint64_t)lo);
        run[0].len = n;
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t b = bucket_of((uint64_t)(v[i] < 0 ? 0 : v[i]));

        if (nrun > 0 && run[nrun - 1].bucket == b) {
            run[nrun - 1].len++;
        } else {
            run[nrun].bucket = b;
            run[nrun++].len = 1;
        }
    }
    return nrun;
}

void sim_hist_add_runs(struct sim_hist *h, const struct sim_hist_run *run,
                       size_t nrun, int64_t min, int64_t max, uint64_t count)
{
    uint64_t values = 0;

    if (count == 0 || nrun == 0)
        return;
    for (size_t i = 0; i < nrun; i++) {
        h->counts[run[i].bucket] += run[i].len * count;
        values += run[i].len;
    }
    h->n += values * count;
    h->min = min < h->min ? min : h->min;
    h->max = max > h->max ? max : h->max;
}

uint64_t sim_hist_count(const struct sim_hist *h)
{
    return h->n;
}

double sim_hist_quantile(const struct sim_hist *h, double q)
{
    uint64_t rank, cum = 0, lo, width;
    size_t i, end;
    double r, v;

    if (h->n == 0 || isnan(q))
        return NAN;
    if (q <= 0.0)
        return (double)h->min;
    if (q >= 1.0)
        return (double)h->max;
    r = ceil(q * (double)h->n);
    if (r < 1.0)
        rank = 1;
    else if (r >= (double)h->n)
        rank = h->n;
    else
        rank = (uint64_t)r;

    /* Only buckets between min and max can be non-zero. */
    i = bucket_of((uint64_t)h->min);
    end = bucket_of((uint64_t)h->max);
    for (; i < end; i++) {
        cum += h->counts[i];
        if (cum >= rank)
            break;
    }
    /* The midpoint halves the error of HdrHistogram's bucket bounds: the
     * order statistic is somewhere in [lo, lo + width - 1]. */
    bucket_range(i, &lo, &width);
    v = (double)lo + (double)(width - 1) / 2.0;
    if (v < (double)h->min)
        v = (double)h->min;
    if (v > (double)h->max)
        v = (double)h->max;
    return v;
}

int64_t sim_hist_max(const struct sim_hist *h)
{
    return h->n ? h->max : 0;
}

int64_t sim_hist_min(const struct sim_hist *h)
{
    return h->n ? h->min : 0;
}

void sim_hist_merge(struct sim_hist *dst, const struct sim_hist *src)
{
    size_t i, end;

    if (src->n == 0)
        return;
    /* Ascending and element-wise, so src == dst is safe. */
    i = bucket_of((uint64_t)src->min);
    end = bucket_of((uint64_t)src->max);
    for (; i <= end; i++)
        dst->counts[i] += src->counts[i];
    dst->n += src->n;
    dst->min = src->min < dst->min ? src->min : dst->min;
    dst->max = src->max > dst->max ? src->max : dst->max;
}

void sim_tavg_init(struct sim_tavg *a, int64_t t0_ns, double value)
{
    a->t0_ns = t0_ns;
    a->last_ns = t0_ns;
    a->value = value;
    a->area = 0.0;
}

/* t_ns, or the last change if t_ns is before it (a caller bug). */
static int64_t tavg_clamp(const struct sim_tavg *a, int64_t t_ns)
{
    if (SIM_NEVER(t_ns < a->last_ns))
        return a->last_ns;
    return t_ns;
}

void sim_tavg_set(struct sim_tavg *a, int64_t t_ns, double value)
{
    t_ns = tavg_clamp(a, t_ns);
    a->area += a->value * (double)(t_ns - a->last_ns);
    a->last_ns = t_ns;
    a->value = value;
}

void sim_tavg_set_run(struct sim_tavg *a, const int64_t *t_ns,
                      const double *value, size_t n)
{
    /* In registers: each change's area waits only on the last one's
     * sum, not on a store and a load of a (n calls to sim_tavg_set() on
     * one window's KV usage were 3 % of the fleet-day's time). */
    double area = a->area, v = a->value;
    int64_t last = a->last_ns;

    for (size_t i = 0; i < n; i++) {
        int64_t t = t_ns[i];
        if (SIM_NEVER(t < last))
            t = last;
        area += v * (double)(t - last);
        last = t;
        v = value[i];
    }
    a->area = area;
    a->last_ns = last;
    a->value = v;
}

double sim_tavg_value(const struct sim_tavg *a)
{
    return a->value;
}

double sim_tavg_integral(const struct sim_tavg *a, int64_t t_now_ns)
{
    t_now_ns = tavg_clamp(a, t_now_ns);
    return a->area + a->value * (double)(t_now_ns - a->last_ns);
}

double sim_tavg_mean(const struct sim_tavg *a, int64_t t_now_ns)
{
    t_now_ns = tavg_clamp(a, t_now_ns);
    if (t_now_ns == a->t0_ns)
        return a->value;
    return sim_tavg_integral(a, t_now_ns) / (double)(t_now_ns - a->t0_ns);
}

void sim_tavg_restart(struct sim_tavg *a, int64_t t_ns)
{
    t_ns = tavg_clamp(a, t_ns);
    a->t0_ns = t_ns;
    a->last_ns = t_ns;
    a->area = 0.0;
}

int sim_bmeans_init(struct sim_bmeans *b, size_t nbatches)
{
    if (nbatches < 2 || nbatches > SIM_BMEANS_MAX_BATCHES)
        return SIM_ERANGE;
    b->nbatches = nbatches;
    b->k = 0;
    b->size = 1;
    b->cur_n = 0;
    b->cur_sum = 0.0;
    b->n = 0;
    b->total = 0.0;
    return 0;
}

void sim_bmeans_add(struct sim_bmeans *b, double x)
{
    b->n++;
    b->total += x;
    b->cur_sum += x;
    if (++b->cur_n < b->size)
        return;
    b->sums[b->k++] = b->cur_sum;
    b->cur_n = 0;
    b->cur_sum = 0.0;
    if (b->k < 2 * b->nbatches)
        return;
    /* Full: halve the count and double the size. Keeping sums, not means,
     * makes the merge exact up to one rounding per pair. */
    for (size_t i = 0; i < b->nbatches; i++)
        b->sums[i] = b->sums[2 * i] + b->sums[2 * i + 1];
    b->k = b->nbatches;
    b->size *= 2;
}

double sim_bmeans_mean(const struct sim_bmeans *b)
{
    return b->n ? b->total / (double)b->n : NAN;
}

size_t sim_bmeans_batches(const struct sim_bmeans *b)
{
    return b->k;
}

double sim_bmeans_ci95(const struct sim_bmeans *b)
{
    double size = (double)b->size, k = (double)b->k, mean = 0.0, ss = 0.0;

    if (b->k < 2)
        return NAN;
    /* Two passes over at most 2B - 1 values: exact enough and cheap. */
    for (size_t i = 0; i < b->k; i++)
        mean += b->sums[i] / size;
    mean /= k;
    for (size_t i = 0; i < b->k; i++) {
        double d = b->sums[i] / size - mean;
        ss += d * d;
    }
    return gsl_cdf_tdist_Pinv(0.975, k - 1.0) * sqrt(ss / (k - 1.0) / k);
}
