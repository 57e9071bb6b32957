/* Prometheus histograms; see promhist.h. */
#include "models/policy/promhist.h"

#include <math.h>
#include <string.h>

/* vLLM V1 bucket bounds, seconds (docs/sources.md §6.1). */
static const double ttft_le[] = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
    1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
static const double itl_le[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,
                                0.3,  0.4,   0.5,  0.75,  1.0, 2.5,  5.0,
                                7.5,  10.0,  20.0, 40.0,  80.0};

const double *pol_ph_bounds(int kind, int *n)
{
    if (kind == POL_PH_TTFT) {
        *n = (int)(sizeof(ttft_le) / sizeof(ttft_le[0]));
        return ttft_le;
    }
    *n = (int)(sizeof(itl_le) / sizeof(itl_le[0]));
    return itl_le;
}

void pol_ph_init(struct pol_ph *h, int kind)
{
    memset(h, 0, sizeof(*h));
    h->kind = kind;
    (void)pol_ph_bounds(kind, &h->nle);
}

void pol_ph_add_n(struct pol_ph *h, double v, uint64_t n)
{
    int nle;
    const double *le = pol_ph_bounds(h->kind, &nle);
    int i = 0;

    /* Linear scan: at most 22 bounds, and most values fall early. */
    while (i < nle && v > le[i])
        i++;
    h->bucket[i] += n;
    h->sum += v * (double)n;
    h->count += n;
}

void pol_ph_delta(struct pol_ph *out, const struct pol_ph *a,
                  const struct pol_ph *b)
{
    *out = *a;
    for (int i = 0; i <= a->nle; i++)
        out->bucket[i] = a->bucket[i] - b->bucket[i];
    out->sum = a->sum - b->sum;
    out->count = a->count - b->count;
}

void pol_ph_merge(struct pol_ph *out, const struct pol_ph *a)
{
    for (int i = 0; i <= a->nle; i++)
        out->bucket[i] += a->bucket[i];
    out->sum += a->sum;
    out->count += a->count;
}

double pol_ph_quantile(const struct pol_ph *h, double q)
{
    int nle;
    const double *le = pol_ph_bounds(h->kind, &nle);
    double rank, cum = 0;

    if (h->count == 0)
        return NAN;
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    rank = q * (double)h->count;
    for (int i = 0; i < nle; i++) {
        double c = (double)h->bucket[i];
        if (cum + c >= rank && c > 0) {
            double lo = i == 0 ? 0.0 : le[i - 1];
            return lo + (le[i] - lo) * (rank - cum) / c;
        }
        cum += c;
    }
    return le[nle - 1];
}
