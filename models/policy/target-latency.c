/*
 * target-latency: dsec's own policy. It holds the scenario's ITL target
 * (target_itl_s, the seed's target_latency_ms; target_ttft_s too when set)
 * with the fewest replicas, scaling ahead of a rising load by the time a
 * new replica takes to start. docs/policies-planners.md has the design and
 * its limits; in short:
 *
 * (a) Capacity, learned online. Each ready replica at each evaluation
 *     gives a point (x, y): x its output tokens/s, y its windowed ITL
 *     (latency_stat: the exact mean by default, or p50/p99). Over the
 *     last fit_window_s (at most POL_TL_OBS points) a least-squares line
 *     y = a + b x is fitted; decode ITL grows about linearly with the
 *     batch (weights read once per step plus KV read per sequence,
 * docs/sources.md §1-§4 roofline), so the line is a fair local model. The
 * capacity is the load where the line reaches target x headroom (0.85): cap =
 * (T h - a) / b, capped at max_extrapolation (2) x the largest load observed
 * and at the smallest load observed violating T (an observation beats the
 *     line). With no spread in x (flat or degenerate fit) cap is the
 *     largest load observed at or under T h. Until min_observations points
 *     exist cap is unknown unless capacity_tokens_per_s is given. The cap
 *     never falls below the largest load ever served at ITL <= T h: the
 *     fit sees only recent points, which after a peak are all light, and
 *     without that memory the policy could never scale down again.
 * (b) Sizing ahead. Demand D = arrival rate x mean output tokens (tokens/s
 *     asked for, not served, so a saturated cluster does not hide demand).
 *     Over the last trend_window_s (300 s) a line through D gives level L
 *     and slope g. The horizon H is the preferred pool's provision_s_mean
 *     plus load_time_s (60 s): the preferred pool is the non-borrowable
 *     pool of lowest priority with room. Forecast
 *       D_f = max(D, L + max(g, 0) H),   desired = ceil(D_f / cap).
 * (c) Fast path. If the cluster ITL p99 or TTFT p99 exceeds its target by
 *     the factor e > 1, or the waiting queue grows beyond one request per
 *     replica (e = (running + waiting) / running), desired is at least
 *     ceil(ready x e) at once, pending replicas counting as already added.
 * (d) Slow down. One replica fewer only when no replica is pending, no
 *     target is exceeded, and max(D_f, the highest D in the trend window)
 *     <= down_hysteresis (0.9) x cap x (ready - 1) has held for down_delay_s
 *     (120 s); then the clock restarts, so removals come one at a time at
 *     least down_delay_s apart. For this test cap is at most the demand per
 *     replica at the last violation (relaxing 2% an hour), so the policy
 *     does not return to a size that just proved too small.
 * (e) Borrowing. An increase is urgent when a target is already exceeded,
 *     or when at slope g the load reaches the capacity at T of the current
 *     size sooner than the preferred pool's provision time. Then borrow =
 *     the replicas needed before a preferred replica could arrive
 *     (ceil(D(now + provision) / cap) - current, or the fast-path excess),
 *     at most the increase and the room left in borrowable pools.
 * (f) Scale-in mode. A removal carries scale_in as the decision's drain:
 *     default leaves it to cluster.drain; migrate moves the removed
 *     replica's running requests with their KV (live migration, so its
 *     GPUs go at once instead of after its longest request); finish lets
 *     them finish in place even under cluster.drain: migrate.
 *
 * With no ITL target and no TTFT target the policy holds. Cost per call:
 * O(POL_TL_OBS + POL_TL_DEM). Source: this project (docs/policies-planners.md).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/param.h"
#include "base/xalloc.h"

#define POL_TL_OBS 1024 /* (load, ITL) points kept for the capacity fit */
#define POL_TL_DEM 256  /* demand samples kept for the trend */

/* Tunables of this policy that are not parameters: each is a judgement of
 * this project (docs/policies-planners.md), named so it has one home. */
/* A lead signal (the de-lagged rate, the in-flight count) counts for
 * sizing up only when it exceeds the windowed figure by this factor: below
 * it, the signal is mostly the noise its faster reaction costs. */
#define TL_LEAD_GAIN 1.2
/* The demand-per-replica memory of the last violation relaxes by this
 * fraction per hour, so an old peak stops holding the size up. */
#define TL_VIOL_RELAX_PER_H 0.02
/* A load spread below this fraction of the mean load carries no slope. */
#define TL_MIN_SPREAD 0.02
/* Slack on replica counts and on the scale-down clock (rounding). */
#define TL_EPS 1e-9
#define TL_EPS_S 1e-9
#define TL_S_PER_H 3600.0
/* Most replicas the policy ever asks for (a bound, not a target). */
#define TL_MAX_REPLICAS 1e6

struct tl_params {
    double headroom;
    double load_time_s;
    double trend_window_s;
    double fit_window_s;
    int min_observations;
    double capacity_tokens_per_s;
    double max_extrapolation;
    double down_hysteresis;
    double down_delay_s;
    int latency_stat; /* enum tl_stat */
    int scale_in;     /* enum pol_drain: how removed replicas leave */
};

/* Which windowed latency is held to the target. The mean is exact (the
 * histograms' _sum / _count); quantiles are interpolated inside vLLM's
 * coarse buckets (docs/sources.md §6.1): with a 45 ms target between the 25 and
 * 50 ms ITL bounds, a p99 of traffic sitting at 30 ms reads about 49.7 ms.
 * A per-request TPOT objective is a mean of that request's ITLs, so the
 * default holds the mean. */
enum tl_stat {
    TL_STAT_MEAN,
    TL_STAT_P50,
    TL_STAT_P99,
};

static const struct sim_param_choice tl_stat_choices[] = {
    {"mean", TL_STAT_MEAN},
    {"p50", TL_STAT_P50},
    {"p99", TL_STAT_P99},
    {NULL, 0},
};

static const struct sim_param tl_rows[] = {
    {"headroom", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MIN_EXCL, "0.85",
     "size so that the fitted ITL stays at target times this",
     offsetof(struct tl_params, headroom), NULL, NULL},
    {"load_time_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "60",
     "time to load weights and warm up, added to the preferred pool's "
     "provision time to make the forecast horizon",
     offsetof(struct tl_params, load_time_s), NULL, NULL},
    {"trend_window_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, SIM_PF_MIN_EXCL,
     "300", "span of the demand samples whose slope is extrapolated",
     offsetof(struct tl_params, trend_window_s), NULL, NULL},
    {"fit_window_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 604800, SIM_PF_MIN_EXCL,
     "1800", "span of the (load, ITL p99) points the capacity is fitted to",
     offsetof(struct tl_params, fit_window_s), NULL, NULL},
    {"min_observations", SIM_PT_INT, SIM_U_NONE, 2, POL_TL_OBS, 0, "10",
     "points needed before the fitted capacity is used",
     offsetof(struct tl_params, min_observations), NULL, NULL},
    {"capacity_tokens_per_s", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e9, 0, "0",
     "output tokens/s one replica serves at target x headroom; 0: learn it",
     offsetof(struct tl_params, capacity_tokens_per_s), NULL, NULL},
    {"max_extrapolation", SIM_PT_DOUBLE, SIM_U_NONE, 1, 100, 0, "2",
     "the fitted capacity is at most this times the largest load observed",
     offsetof(struct tl_params, max_extrapolation), NULL, NULL},
    {"down_hysteresis", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MIN_EXCL,
     "0.9",
     "remove a replica only if the load fits in this fraction of the "
     "capacity of one replica fewer",
     offsetof(struct tl_params, down_hysteresis), NULL, NULL},
    {"latency_stat", SIM_PT_ENUM, SIM_U_NONE, 0, 0, 0, "mean",
     "which windowed ITL and TTFT statistic is held to the target: mean "
     "(exact, from _sum/_count), p50 or p99 (from vLLM's buckets)",
     offsetof(struct tl_params, latency_stat), tl_stat_choices, NULL},
    {"down_delay_s", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "120",
     "the scale-down condition must hold this long, and removals are at "
     "least this far apart",
     offsetof(struct tl_params, down_delay_s), NULL, NULL},
    {"scale_in", SIM_PT_ENUM, SIM_U_NONE, 0, 0, 0, "default",
     "how a replica this policy removes leaves: default (as cluster.drain), "
     "finish (its running requests finish in place) or migrate (they move "
     "with their KV to the replicas that stay)",
     offsetof(struct tl_params, scale_in), pol_util_drain_choices, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

struct tl_pt {
    double t_s;
    double x;
    double y;
};

struct tl_ring {
    struct tl_pt *v;
    int cap;
    int n;
    int head;
};

struct tl_state {
    struct tl_params p;
    struct tl_ring obs; /* x = replica output tokens/s, y = ITL p99 */
    struct tl_ring dem; /* x = demand tokens/s, y unused */
    double last_waiting;
    double last_d;       /* demand of the previous evaluation, tokens/s */
    double down_since_s; /* NAN: the down condition does not hold */
    double last_down_s;
    /* The largest per-replica load ever served at ITL <= target x
     * headroom, and at <= target: capacity is a property of the hardware,
     * so what was seen at the last peak still holds when the load has
     * fallen and only light loads are observed. */
    double seen_ok_h;
    double seen_ok_t;
    /* The per-replica demand at the last violation (tokens/s) and when:
     * a size that just proved too small is not returned to for a while. */
    double viol_per_replica;
    double viol_at_s;
};

static void ring_push(struct tl_ring *r, double t_s, double x, double y)
{
    r->v[r->head] = (struct tl_pt){t_s, x, y};
    r->head = (r->head + 1) % r->cap;
    if (r->n < r->cap)
        r->n++;
}

/* The k-th newest point (k = 0 is the newest). */
static const struct tl_pt *ring_at(const struct tl_ring *r, int k)
{
    return &r->v[(r->head + r->cap - 1 - k) % r->cap];
}

static void *tl_create(const void *params)
{
    struct tl_state *st = xcalloc(1, sizeof(*st));

    st->p = *(const struct tl_params *)params;
    st->obs.cap = POL_TL_OBS;
    st->obs.v = xcalloc(POL_TL_OBS, sizeof(struct tl_pt));
    st->dem.cap = POL_TL_DEM;
    st->dem.v = xcalloc(POL_TL_DEM, sizeof(struct tl_pt));
    st->last_waiting = NAN;
    st->down_since_s = NAN;
    st->last_down_s = -INFINITY;
    st->last_d = NAN;
    st->viol_per_replica = NAN;
    return st;
}

static void tl_destroy(void *state)
{
    struct tl_state *st = state;

    if (st == NULL)
        return;
    free(st->obs.v);
    free(st->dem.v);
    free(st);
}

/* Capacity per replica in output tokens/s at ITL = itl_s, from the fit
 * (a), at most the smallest load seen with ITL above viol_s. NAN when
 * unknown. */
static double capacity_at(const struct tl_state *st, double now_s, double itl_s,
                          double viol_s)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, xmax = 0, xmax_ok = NAN;
    double xviol = INFINITY, cap;
    int n = 0;

    if (!isfinite(itl_s))
        return NAN;
    for (int k = 0; k < st->obs.n; k++) {
        const struct tl_pt *q = ring_at(&st->obs, k);

        if (now_s - q->t_s > st->p.fit_window_s)
            break;
        n++;
        mx += q->x;
        my += q->y;
        xmax = fmax(xmax, q->x);
        if (q->y <= itl_s && !(q->x <= xmax_ok))
            xmax_ok = q->x;
        if (q->y > viol_s)
            xviol = fmin(xviol, q->x);
    }
    if (n < st->p.min_observations)
        return NAN;
    mx /= n;
    my /= n;
    for (int k = 0; k < n; k++) {
        const struct tl_pt *q = ring_at(&st->obs, k);

        sxx += (q->x - mx) * (q->x - mx);
        sxy += (q->x - mx) * (q->y - my);
    }
    /* A spread below TL_MIN_SPREAD of the mean load cannot carry a slope. */
    if (sxy > 0 && sxx > n * (TL_MIN_SPREAD * mx) * (TL_MIN_SPREAD * mx)) {
        double b = sxy / sxx;

        cap = (itl_s - (my - b * mx)) / b;
        cap = fmin(cap, st->p.max_extrapolation * xmax);
    } else {
        cap = xmax_ok;
    }
    cap = fmin(cap, xviol);
    return cap > 0 ? cap : NAN;
}

/* Level at now_s and slope of the demand over the trend window. */
static void trend(const struct tl_state *st, double now_s, double *level,
                  double *slope)
{
    double mt = 0, md = 0, stt = 0, std = 0;
    int n = 0;

    for (int k = 0; k < st->dem.n; k++) {
        const struct tl_pt *q = ring_at(&st->dem, k);

        if (now_s - q->t_s > st->p.trend_window_s)
            break;
        n++;
        mt += q->t_s - now_s;
        md += q->x;
    }
    *slope = 0;
    *level = n > 0 ? ring_at(&st->dem, 0)->x : NAN;
    if (n < 3)
        return;
    mt /= n;
    md /= n;
    for (int k = 0; k < n; k++) {
        const struct tl_pt *q = ring_at(&st->dem, k);

        stt += (q->t_s - now_s - mt) * (q->t_s - now_s - mt);
        std += (q->t_s - now_s - mt) * (q->x - md);
    }
    if (stt <= 0)
        return;
    *slope = std / stt;
    *level = md - *slope * mt;
}

/* Highest demand in the trend window. */
static double demand_max(const struct tl_state *st, double now_s)
{
    double m = 0;

    for (int k = 0; k < st->dem.n; k++) {
        const struct tl_pt *q = ring_at(&st->dem, k);

        if (now_s - q->t_s > st->p.trend_window_s)
            break;
        m = fmax(m, q->x);
    }
    return m;
}

static int pool_room(const struct pol_pool *p)
{
    int room = p->capacity_replicas - p->ready - p->pending - p->draining;

    return room > 0 ? room : 0;
}

/* Provision time of the preferred pool: the non-borrowable pool of lowest
 * priority with room (or with none if all are full); 0 with no pools. */
static double preferred_provision_s(const struct pol_snapshot *s)
{
    const struct pol_pool *best = NULL;
    int best_room = 0;

    for (int i = 0; i < s->npools; i++) {
        const struct pol_pool *p = &s->pools[i];
        int room = pool_room(p) > 0;

        if (p->borrowable)
            continue;
        if (best == NULL || room > best_room ||
            (room == best_room && p->priority < best->priority)) {
            best = p;
            best_room = room;
        }
    }
    if (best == NULL)
        for (int i = 0; i < s->npools; i++)
            if (best == NULL || s->pools[i].priority < best->priority)
                best = &s->pools[i];
    return best != NULL && isfinite(best->provision_s_mean)
               ? best->provision_s_mean
               : 0;
}

static int borrowable_room(const struct pol_snapshot *s)
{
    int room = 0;

    for (int i = 0; i < s->npools; i++)
        if (s->pools[i].borrowable)
            room += pool_room(&s->pools[i]);
    return room;
}

static int ceil_replicas(double v)
{
    if (!(v > 0))
        return 0;
    return (int)fmin(ceil(v - TL_EPS), TL_MAX_REPLICAS);
}

static double stat_pick(int stat, double mean, double p50, double p99)
{
    return stat == TL_STAT_MEAN ? mean : stat == TL_STAT_P50 ? p50 : p99;
}

/* Records each ready replica's (output tokens/s, ITL) point for the fit
 * (a) and this evaluation's demand for the trend (b); returns the demand D
 * in tokens/s (NAN when the snapshot has neither rate) and sets
 * *base_inflight to the mean in-flight count of the window before this
 * evaluation (NAN without samples). */
static double observe(struct tl_state *st, const struct pol_snapshot *s,
                      double *base_inflight)
{
    const struct tl_params *p = &st->p;
    double d, inflight, sum = 0;
    int n = 0;

    for (int i = 0; i < s->nreplicas; i++) {
        const struct pol_replica *r = &s->replicas[i];
        double itl = stat_pick(p->latency_stat, r->itl_mean_s, r->itl_p50_s,
                               r->itl_p99_s);

        if (r->state == POL_RS_READY && isfinite(r->output_tokens_per_s) &&
            r->output_tokens_per_s > 0 && isfinite(itl)) {
            ring_push(&st->obs, s->now_s, r->output_tokens_per_s, itl);
        }
    }
    d = s->arrival_rate_per_s * s->mean_output_tokens;
    if (!isfinite(d))
        d = s->output_tokens_per_s;
    /* The in-flight count as of the previous evaluations: its mean over
     * the window is the baseline for the concurrency signal of forecast(). */
    inflight = s->num_running + s->num_waiting;
    *base_inflight = NAN;
    for (int k = 0; k < st->dem.n; k++) {
        const struct tl_pt *q = ring_at(&st->dem, k);

        if (s->now_s - q->t_s > s->window_s)
            break;
        sum += q->y;
        n++;
    }
    if (n > 0)
        *base_inflight = sum / n;
    if (isfinite(d))
        ring_push(&st->dem, s->now_s, d, isfinite(inflight) ? inflight : 0);
    return d;
}

/* Capacity memory, from cluster-wide figures (a single replica's window is
 * noisy, and the largest of many noisy points is biased high): the served
 * output tokens/s per ready replica, at a time with nothing pending and
 * the cluster's ITL within the bound. */
static void remember_capacity(struct tl_state *st, const struct pol_snapshot *s,
                              double T)
{
    const struct tl_params *p = &st->p;
    double itl_c =
        stat_pick(p->latency_stat, s->itl_mean_s, s->itl_p50_s, s->itl_p99_s);
    double per = s->ready > 0 ? s->output_tokens_per_s / s->ready : NAN;

    if (isfinite(T) && isfinite(itl_c) && isfinite(per) && s->pending == 0) {
        if (itl_c <= T * p->headroom)
            st->seen_ok_h = fmax(st->seen_ok_h, per);
        if (itl_c <= T)
            st->seen_ok_t = fmax(st->seen_ok_t, per);
    }
}

/* (c) The excess factor e >= 1 over the targets now; remembers the demand
 * per replica at a violation (for (d)). */
static double excess(struct tl_state *st, const struct pol_snapshot *s,
                     double T, double d)
{
    const struct tl_params *p = &st->p;
    double e = 1;
    double itl_now =
        stat_pick(p->latency_stat, s->itl_mean_s, s->itl_p50_s, s->itl_p99_s);
    double ttft_now = stat_pick(p->latency_stat, s->ttft_mean_s, s->ttft_p50_s,
                                s->ttft_p99_s);

    if (isfinite(T) && isfinite(itl_now))
        e = fmax(e, itl_now / T);
    if (isfinite(s->target_ttft_s) && isfinite(ttft_now))
        e = fmax(e, ttft_now / s->target_ttft_s);
    if (isfinite(s->num_waiting) && s->num_waiting > s->ready &&
        isfinite(st->last_waiting) && s->num_waiting > st->last_waiting &&
        isfinite(s->num_running))
        e = fmax(e,
                 (s->num_running + s->num_waiting) / fmax(s->num_running, 1));
    st->last_waiting = s->num_waiting;
    if (e > 1 && s->pending == 0 && s->ready > 0 && isfinite(d)) {
        st->viol_per_replica = d / s->ready;
        st->viol_at_s = s->now_s;
    }
    return e;
}

/* (a) Capacity per replica at target x headroom (*cap) and at the target
 * (*capT), tokens/s; NAN when unknown. */
static void capacity(const struct tl_state *st, const struct pol_snapshot *s,
                     double T, double *cap, double *capT)
{
    const struct tl_params *p = &st->p;

    if (p->capacity_tokens_per_s > 0) {
        *cap = p->capacity_tokens_per_s;
        *capT = *cap / p->headroom;
        return;
    }
    *cap = capacity_at(st, s->now_s, T * p->headroom, T);
    *capT = capacity_at(st, s->now_s, T, T);
    /* Never below what was served within target: the line is fitted to
     * recent points, which after a peak are all light loads. Only once
     * there is a line: before min_observations the capacity is unknown
     * (NaN) and the light load seen while replicas fill up is no estimate
     * of it (the fast path acts alone until then). */
    if (st->seen_ok_h > 0 && isfinite(*cap) && *cap < st->seen_ok_h)
        *cap = st->seen_ok_h;
    if (st->seen_ok_t > 0 && isfinite(*capT) && *capT < st->seen_ok_t)
        *capT = st->seen_ok_t;
    if (isfinite(*cap) && !(*capT >= *cap))
        *capT = *cap;
}

/* (b) The forecast demand D_f over the horizon (tokens/s), from the trend
 * level and slope, the de-lagged rate and the concurrency signal. */
static double forecast(struct tl_state *st, const struct pol_snapshot *s,
                       double d, double level, double slope, double horizon,
                       double base_inflight)
{
    double df = isfinite(d) ? fmax(d, level + fmax(slope, 0) * horizon) : NAN;
    double inflight = s->num_running + s->num_waiting;

    /* De-lagged demand: the window average moves by (recent - dropped) x
     * interval / window per evaluation, so the rate of the last interval
     * is about last + (d - last) x window / interval. It reacts to a step
     * within one evaluation instead of a whole window, at the price of
     * noise (x window / interval), so it only counts for sizing up when it
     * exceeds the window average by TL_LEAD_GAIN. */
    if (isfinite(d) && isfinite(st->last_d) && s->interval_s > 0 &&
        s->window_s > s->interval_s) {
        double recent =
            st->last_d + (d - st->last_d) * s->window_s / s->interval_s;
        if (recent > TL_LEAD_GAIN * d)
            df = fmax(df, recent);
    }
    st->last_d = d;
    /* Concurrency leads: by Little's law the requests in flight grow with
     * the arrival rate at once, while the windowed rate lags by up to a
     * window. A rise of the in-flight count over its recent mean scales
     * the demand in proportion (for sizing up only, above TL_LEAD_GAIN).
     * A removal raises the in-flight count too (each replica serves more,
     * so requests stay longer): the signal is ignored for a window after
     * one, or the policy would undo its own scale-down. */
    if (isfinite(d) && isfinite(inflight) && base_inflight > 0 &&
        inflight > TL_LEAD_GAIN * base_inflight &&
        s->now_s - st->last_down_s > s->window_s + s->interval_s)
        df = fmax(df, d * inflight / base_inflight);
    return df;
}

/* (e) Replicas to borrow for an urgent increase to want from cur. */
static int borrow_for(const struct pol_snapshot *s, int fast, int want, int cur,
                      double cap, double level, double slope, double prov)
{
    int need_now = fast - cur, room = borrowable_room(s);

    if (room <= 0)
        return 0;
    if (isfinite(cap) &&
        ceil_replicas((level + fmax(slope, 0) * prov) / cap) - cur > need_now)
        need_now = ceil_replicas((level + fmax(slope, 0) * prov) / cap) - cur;
    if (need_now > want - cur)
        need_now = want - cur;
    if (need_now > room)
        need_now = room;
    return need_now > 0 ? need_now : 0;
}

/* (d) One replica fewer when the load has fit one replica fewer, below
 * the capacity a recent violation showed, for down_delay_s. */
static void size_down(struct tl_state *st, const struct pol_snapshot *s,
                      double e, double cap, double df, struct pol_decision *out)
{
    const struct tl_params *p = &st->p;
    double capd = cap;

    /* Below a size that recently violated, the capacity is what that size
     * could not carry; the memory relaxes by TL_VIOL_RELAX_PER_H. */
    if (isfinite(st->viol_per_replica))
        capd =
            fmin(cap, st->viol_per_replica *
                          (1.0 + TL_VIOL_RELAX_PER_H *
                                     (s->now_s - st->viol_at_s) / TL_S_PER_H));
    if (s->pending == 0 && e <= 1 && isfinite(capd) && isfinite(df) &&
        s->ready >= 2 &&
        fmax(df, demand_max(st, s->now_s)) <=
            p->down_hysteresis * capd * (s->ready - 1)) {
        if (isnan(st->down_since_s))
            st->down_since_s = s->now_s;
        if (s->now_s - st->down_since_s >= p->down_delay_s - TL_EPS_S &&
            s->now_s - st->last_down_s >= p->down_delay_s - TL_EPS_S) {
            out->desired = s->ready - 1;
            out->drain = p->scale_in;
            st->down_since_s = s->now_s;
            st->last_down_s = s->now_s;
        }
    } else {
        st->down_since_s = NAN;
    }
}

static int tl_decide(void *state, const struct pol_snapshot *s,
                     struct pol_decision *out)
{
    struct tl_state *st = state;
    double T = s->target_itl_s, d, level, slope, prov, df, cap, capT, e;
    double base_inflight;
    int cur = s->ready + s->pending, fast = 0, want;

    if (!isfinite(T) && !isfinite(s->target_ttft_s))
        return 0;
    d = observe(st, s, &base_inflight);
    remember_capacity(st, s, T);
    e = excess(st, s, T, d);
    if (e > 1)
        fast = s->ready > 0 ? ceil_replicas(s->ready * e) : 1;
    capacity(st, s, T, &cap, &capT);
    trend(st, s->now_s, &level, &slope);
    prov = preferred_provision_s(s);
    df = forecast(st, s, d, level, slope, prov + st->p.load_time_s,
                  base_inflight);
    want = fast;
    if (isfinite(cap) && isfinite(df) && ceil_replicas(df / cap) > want)
        want = ceil_replicas(df / cap);
    if (want > cur) {
        int urgent = e > 1;

        st->down_since_s = NAN;
        out->desired = want;
        if (!urgent && isfinite(capT) && slope > 0 &&
            (capT * cur - level) / slope < prov)
            urgent = 1;
        if (urgent)
            out->borrow =
                borrow_for(s, fast, want, cur, cap, level, slope, prov);
        return 0;
    }
    size_down(st, s, e, cap, df, out);
    return 0;
}

static const struct pol_ops tl_ops = {
    .version = POL_API_VERSION,
    .create = tl_create,
    .destroy = tl_destroy,
    .decide = tl_decide,
};

const struct pol_entry pol_target_latency = {
    .name = "target-latency",
    .summary = "dsec: hold ITL (mean; latency_stat p50 or p99) at target "
               "with fewest replicas; capacity "
               "fitted online (ITL vs tokens/s, headroom 0.85), demand "
               "trend extrapolated over provision + 60 s, fast path on "
               "violation, slow one-step down, borrows when urgent",
    .params = tl_rows,
    .params_size = sizeof(struct tl_params),
    .ops = &tl_ops,
};
