/*
 * predictive: sizes for the arrival rate forecast one cold start ahead with
 * Holt-Winters additive seasonality (C. C. Holt, "Forecasting seasonals
 * and trends by exponentially weighted moving averages", ONR memo 52,
 * 1957; P. R. Winters, "Forecasting sales by exponentially weighted moving
 * averages", Management Science 6(3), 1960; equations and initialisation
 * as in R. J. Hyndman and G. Athanasopoulos, "Forecasting: Principles and
 * Practice", 3rd ed., §8.2-8.3).
 *
 * Series. The snapshot's arrival rate is averaged into buckets of step_s
 * (60 s); a season has m = round(season_s / step_s) buckets (at most
 * POL_PRED_MAX_SLOTS; the step is stretched to season_s / m so that slots
 * line up with the season exactly). A bucket is closed by the last call
 * that falls in it, so with step_s equal to the evaluation interval every
 * call's sample is in the model before it forecasts.
 *
 * Model, per bucket y_t (h = buckets since the last observed one):
 *   level  l_t = alpha (y_t - s_{t-m}) + (1 - alpha)(l_{t-h} + h b_{t-h})
 *   trend  b_t = beta (l_t - l_{t-h}) / h + (1 - beta) b_{t-h}
 *   season s_t = gamma (y_t - l_{t-h} - h b_{t-h}) + (1 - gamma) s_{t-m}
 *   forecast y_{t+k} = l_t + k b_t + s_{t+k-m}.
 * During the first season only Holt's linear trend runs (no s terms) and
 * the buckets are stored; once a season of buckets exists the seasonal
 * terms start from the classical initialisation (FPP): l = the mean of the
 * first season, b = 0, s_j = y_j - l, each then averaged with its two
 * neighbours on either side (5 slots, circular) because a single season
 * gives one noisy sample per slot. Missing slots start at 0.
 *
 * Sizing. desired = ceil(F / capacity), F = the forecast for the bucket at
 * now + lead_s (180 s, a cold start per docs/sources.md §8.1) or, with
 * hold_down (default), the highest of the forecasts for the buckets from now to
 * now + lead_s and the current rate: a replica removed now is missing for
 * the whole lead time, so the policy scales up ahead of the load and down
 * only as it falls. capacity is capacity_rps (requests/s one replica serves
 * at the targets) or, when 0, learned as in dynamo-throughput: the highest
 * per-replica request rate seen while the cluster ITL p99 (and TTFT p99
 * when set) met the target, with nothing pending; before that it holds.
 * Cost per call O(lead_s / step_s); memory O(m).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "base/param.h"
#include "base/xalloc.h"

#define POL_PRED_MAX_SLOTS 100000 /* buckets per season */
#define POL_PRED_SMOOTH 2         /* init smoothing: +-2 slots */

struct pr_params {
    double season_s;
    double step_s;
    double alpha;
    double beta;
    double gamma;
    double lead_s;
    double capacity_rps;
    int hold_down;
};

static const struct sim_param pr_rows[] = {
    {"season_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 31536000, SIM_PF_MIN_EXCL,
     "86400",
     "length of the seasonal cycle (a day; set the scenario's diurnal "
     "period)",
     offsetof(struct pr_params, season_s), NULL, NULL},
    {"step_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, SIM_PF_MIN_EXCL, "60",
     "bucket the arrival rate is averaged over; one model update per bucket",
     offsetof(struct pr_params, step_s), NULL, NULL},
    {"alpha", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1, SIM_PF_MIN_EXCL, "0.1",
     "level smoothing per bucket", offsetof(struct pr_params, alpha), NULL,
     NULL},
    {"beta", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1, 0, "0.01",
     "trend smoothing per bucket", offsetof(struct pr_params, beta), NULL,
     NULL},
    {"gamma", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1, 0, "0.3",
     "seasonal smoothing, applied once per slot per season",
     offsetof(struct pr_params, gamma), NULL, NULL},
    {"lead_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "180",
     "how far ahead to size: the cold start (docs/sources.md §8.1: 2-7 min)",
     offsetof(struct pr_params, lead_s), NULL, NULL},
    {"capacity_rps", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e6, 0, "0",
     "requests/s one replica serves at the targets; 0: learn it as "
     "dynamo-throughput does",
     offsetof(struct pr_params, capacity_rps), NULL, NULL},
    {"hold_down", SIM_PT_BOOL, SIM_U_NONE, 0, 1, 0, "true",
     "size for the highest forecast between now and now + lead_s and the "
     "current rate (true), or for the forecast at now + lead_s only",
     offsetof(struct pr_params, hold_down), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct pr_state {
    struct pr_params p;
    double step_s; /* season_s / m */
    int m;
    double *season; /* m seasonal terms (or first-season buckets) */
    int seasonal;   /* 1 once the seasonal terms are in use */
    double l, b;
    int64_t k0, last_k; /* first and last observed bucket */
    long nobs;
    int64_t cur_k; /* bucket being filled */
    double sum;
    int cnt;
    double best_rps; /* learned capacity */
};

static void *pr_create(const void *params)
{
    struct pr_state *st = xcalloc(1, sizeof(*st));
    double m;

    st->p = *(const struct pr_params *)params;
    m = round(st->p.season_s / st->p.step_s);
    st->m = m < 1 ? 1 : m > POL_PRED_MAX_SLOTS ? POL_PRED_MAX_SLOTS : (int)m;
    st->step_s = st->p.season_s / st->m;
    st->season = xcalloc((size_t)st->m, sizeof(double));
    for (int j = 0; j < st->m; j++)
        st->season[j] = NAN;
    st->cur_k = INT64_MIN;
    return st;
}

static void pr_destroy(void *state)
{
    struct pr_state *st = state;

    if (st == NULL)
        return;
    free(st->season);
    free(st);
}

static int slot(const struct pr_state *st, int64_t k)
{
    int64_t j = k % st->m;

    return (int)(j < 0 ? j + st->m : j);
}

static int64_t bucket(const struct pr_state *st, double t_s)
{
    return (int64_t)floor(t_s / st->step_s + 1e-9);
}

/* Classical seasonal start from the first season's buckets. */
static void seasonal_init(struct pr_state *st)
{
    double mean = 0, *raw = xcalloc((size_t)st->m, sizeof(double));
    int n = 0;

    for (int j = 0; j < st->m; j++)
        if (isfinite(st->season[j])) {
            mean += st->season[j];
            n++;
        }
    mean = n > 0 ? mean / n : st->l;
    for (int j = 0; j < st->m; j++)
        raw[j] = st->season[j] - mean;
    for (int j = 0; j < st->m; j++) {
        double sum = 0;
        int c = 0;

        for (int d = -POL_PRED_SMOOTH; d <= POL_PRED_SMOOTH; d++) {
            double v = raw[slot(st, (int64_t)j + d)];

            if (isfinite(v)) {
                sum += v;
                c++;
            }
        }
        st->season[j] = c > 0 ? sum / c : 0;
    }
    free(raw);
    st->l = mean;
    st->b = 0;
    st->seasonal = 1;
}

/* Feeds the mean y of bucket k to the model. */
static void observe(struct pr_state *st, int64_t k, double y)
{
    const struct pr_params *p = &st->p;
    double h, lp, lprev = st->l;

    if (st->nobs++ == 0) {
        st->k0 = st->last_k = k;
        st->l = y;
        st->b = 0;
        st->season[slot(st, k)] = y;
        return;
    }
    if (k <= st->last_k)
        return; /* the clock went back: ignore */
    h = (double)(k - st->last_k);
    lp = st->l + h * st->b;
    if (!st->seasonal) {
        st->l = p->alpha * y + (1 - p->alpha) * lp;
        st->b = p->beta * (st->l - lprev) / h + (1 - p->beta) * st->b;
        st->season[slot(st, k)] = y;
        st->last_k = k;
        if (k - st->k0 + 1 >= st->m)
            seasonal_init(st);
        return;
    }
    {
        double *s = &st->season[slot(st, k)];

        st->l = p->alpha * (y - *s) + (1 - p->alpha) * lp;
        st->b = p->beta * (st->l - lprev) / h + (1 - p->beta) * st->b;
        *s = p->gamma * (y - lp) + (1 - p->gamma) * *s;
    }
    st->last_k = k;
}

static double forecast(const struct pr_state *st, int64_t k)
{
    double f = st->l + (double)(k - st->last_k) * st->b;

    if (st->seasonal)
        f += st->season[slot(st, k)];
    return f > 0 ? f : 0;
}

static void close_bucket(struct pr_state *st)
{
    if (st->cnt > 0)
        observe(st, st->cur_k, st->sum / st->cnt);
    st->sum = 0;
    st->cnt = 0;
    st->cur_k = INT64_MIN;
}

static void learn(struct pr_state *st, const struct pol_snapshot *s)
{
    double rps;

    /* The ITL test uses the window's exact mean (_sum/_count): the p99
     * interpolated in vLLM's coarse buckets reads 49.7 ms for traffic at
     * 30 ms and would never let a 45 ms target count as met. Dynamo's
     * ITL target is an average too. */
    if (s->ready < 1 || s->pending > 0 || !isfinite(s->target_itl_s) ||
        !isfinite(s->itl_mean_s) || s->itl_mean_s > s->target_itl_s)
        return;
    if (isfinite(s->target_ttft_s) &&
        !(isfinite(s->ttft_p99_s) && s->ttft_p99_s <= s->target_ttft_s))
        return;
    if (!isfinite(s->arrival_rate_per_s))
        return;
    rps = s->arrival_rate_per_s / s->ready;
    if (rps > st->best_rps)
        st->best_rps = rps;
}

static int pr_decide(void *state, const struct pol_snapshot *s,
                     struct pol_decision *out)
{
    struct pr_state *st = state;
    int64_t k = bucket(st, s->now_s), k1;
    double cap, f;

    if (st->cur_k != INT64_MIN && k != st->cur_k)
        close_bucket(st);
    if (isfinite(s->arrival_rate_per_s) && s->arrival_rate_per_s >= 0) {
        st->cur_k = k;
        st->sum += s->arrival_rate_per_s;
        st->cnt++;
    }
    /* The last call in this bucket closes it. */
    if (st->cur_k == k && bucket(st, s->now_s + s->interval_s) > k)
        close_bucket(st);
    learn(st, s);

    cap = st->p.capacity_rps > 0 ? st->p.capacity_rps : st->best_rps;
    if (!(cap > 0) || st->nobs == 0)
        return 0;
    k1 = bucket(st, s->now_s + st->p.lead_s);
    f = forecast(st, k1);
    if (st->p.hold_down) {
        for (int64_t j = k; j < k1; j++)
            f = fmax(f, forecast(st, j));
        if (isfinite(s->arrival_rate_per_s))
            f = fmax(f, s->arrival_rate_per_s);
    }
    out->desired = (int)fmin(ceil(f / cap - 1e-9), 1e6);
    return 0;
}

static const struct pol_ops pr_ops = {
    .version = POL_API_VERSION,
    .create = pr_create,
    .destroy = pr_destroy,
    .decide = pr_decide,
};

const struct pol_entry pol_predictive = {
    .name = "predictive",
    .summary = "Holt-Winters additive forecast of the arrival rate (season "
               "1 d, alpha 0.1, beta 0.01, gamma 0.3; Holt until one season) "
               "sized at now + 180 s lead / per-replica capacity (Holt 1957, "
               "Winters 1960, Hyndman & Athanasopoulos FPP)",
    .params = pr_rows,
    .params_size = sizeof(struct pr_params),
    .ops = &pr_ops,
};
