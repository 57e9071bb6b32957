/* Shared policy helpers. The window is a plain ring scanned linearly: at
 * most POL_UTIL_WINDOW_CAP samples and one scan per evaluation, which is
 * cheaper than keeping a monotonic deque per aggregate and simpler to
 * trust. */
#include "models/policy/pol-util.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>

const struct sim_param_choice pol_util_metric_choices[] = {
    {"concurrency", POL_UTIL_M_CONCURRENCY},
    {"itl_p99", POL_UTIL_M_ITL_P99},
    {"kv_usage", POL_UTIL_M_KV_USAGE},
    {"num_running", POL_UTIL_M_NUM_RUNNING},
    {"num_waiting", POL_UTIL_M_NUM_WAITING},
    {"output_tokens_per_s", POL_UTIL_M_OUTPUT_TOKENS_PER_S},
    {"requests_per_s", POL_UTIL_M_REQUESTS_PER_S},
    {"ttft_p99", POL_UTIL_M_TTFT_P99},
    {NULL, 0},
};

const struct sim_param_choice pol_util_drain_choices[] = {
    {"default", POL_DRAIN_DEFAULT},
    {"finish", POL_DRAIN_FINISH},
    {"migrate", POL_DRAIN_MIGRATE},
    {NULL, 0},
};

void pol_util_window_init(struct pol_util_window *w)
{
    w->head = 0;
    w->n = 0;
}

void pol_util_window_push(struct pol_util_window *w, double t_s, double v)
{
    int i;

    if (isnan(v) || isnan(t_s))
        return;
    if (w->n == POL_UTIL_WINDOW_CAP) {
        w->head = (w->head + 1) % POL_UTIL_WINDOW_CAP;
        w->n--;
    }
    i = (w->head + w->n) % POL_UTIL_WINDOW_CAP;
    w->t_s[i] = t_s;
    w->v[i] = v;
    w->n++;
}

static int counts(double t_s, double now_s, double span_s)
{
    return t_s >= now_s || now_s - t_s < span_s;
}

enum agg { AGG_SUM, AGG_MAX, AGG_MIN };

/* One scan: the sum, max or min of the counted samples and their number. */
static double scan(const struct pol_util_window *w, double now_s, double span_s,
                   enum agg a, int *n_out)
{
    double acc = a == AGG_SUM ? 0.0 : NAN;
    int n = 0;

    for (int k = 0; k < w->n; k++) {
        int i = (w->head + k) % POL_UTIL_WINDOW_CAP;
        if (!counts(w->t_s[i], now_s, span_s))
            continue;
        n++;
        if (a == AGG_SUM)
            acc += w->v[i];
        else if (isnan(acc) || (a == AGG_MAX ? w->v[i] > acc : w->v[i] < acc))
            acc = w->v[i];
    }
    *n_out = n;
    return n > 0 ? acc : NAN;
}

double pol_util_window_mean(const struct pol_util_window *w, double now_s,
                            double span_s)
{
    int n;
    double sum = scan(w, now_s, span_s, AGG_SUM, &n);

    return n > 0 ? sum / n : NAN;
}

double pol_util_window_max(const struct pol_util_window *w, double now_s,
                           double span_s)
{
    int n;

    return scan(w, now_s, span_s, AGG_MAX, &n);
}

double pol_util_window_min(const struct pol_util_window *w, double now_s,
                           double span_s)
{
    int n;

    return scan(w, now_s, span_s, AGG_MIN, &n);
}

double pol_util_window_sum(const struct pol_util_window *w, double now_s,
                           double span_s)
{
    int n;

    return scan(w, now_s, span_s, AGG_SUM, &n);
}

int pol_util_window_count(const struct pol_util_window *w, double now_s,
                          double span_s)
{
    int n;

    scan(w, now_s, span_s, AGG_SUM, &n);
    return n;
}

const char *pol_util_metric_name(enum pol_util_metric m)
{
    for (const struct sim_param_choice *c = pol_util_metric_choices;
         c->name != NULL; c++)
        if (c->value == (int)m)
            return c->name;
    return "?";
}

double pol_util_replica_metric(const struct pol_replica *r,
                               enum pol_util_metric m)
{
    switch (m) {
    case POL_UTIL_M_NUM_RUNNING:
        return r->num_running;
    case POL_UTIL_M_NUM_WAITING:
        return r->num_waiting;
    case POL_UTIL_M_CONCURRENCY:
        return r->num_running + r->num_waiting; /* NAN if either is */
    case POL_UTIL_M_KV_USAGE:
        return r->kv_usage;
    case POL_UTIL_M_TTFT_P99:
        return r->ttft_p99_s;
    case POL_UTIL_M_ITL_P99:
        return r->itl_p99_s;
    case POL_UTIL_M_REQUESTS_PER_S:
        return r->requests_per_s;
    case POL_UTIL_M_OUTPUT_TOKENS_PER_S:
        return r->output_tokens_per_s;
    }
    return NAN;
}

double pol_util_ready_sum(const struct pol_snapshot *s, enum pol_util_metric m,
                          int *n_out)
{
    double sum = 0.0;
    int n = 0;

    for (int i = 0; i < s->nreplicas; i++) {
        double v;
        if (s->replicas[i].state != POL_RS_READY)
            continue;
        v = pol_util_replica_metric(&s->replicas[i], m);
        if (isnan(v))
            continue;
        sum += v;
        n++;
    }
    if (n_out != NULL)
        *n_out = n;
    return n > 0 ? sum : NAN;
}

double pol_util_idle_total(const struct pol_snapshot *s, enum pol_util_metric m)
{
    switch (m) {
    case POL_UTIL_M_NUM_RUNNING:
        return s->num_running;
    case POL_UTIL_M_NUM_WAITING:
        return s->num_waiting;
    case POL_UTIL_M_CONCURRENCY:
        return s->num_running + s->num_waiting;
    case POL_UTIL_M_REQUESTS_PER_S:
        return s->arrival_rate_per_s;
    case POL_UTIL_M_OUTPUT_TOKENS_PER_S:
        return s->output_tokens_per_s;
    case POL_UTIL_M_KV_USAGE:
    case POL_UTIL_M_TTFT_P99:
    case POL_UTIL_M_ITL_P99:
        break;
    }
    return NAN;
}

double pol_util_ready_mean(const struct pol_snapshot *s, enum pol_util_metric m,
                           int *n_out)
{
    int n;
    double sum = pol_util_ready_sum(s, m, &n);

    if (n_out != NULL)
        *n_out = n;
    return n > 0 ? sum / n : NAN;
}

int pol_util_current(const struct pol_snapshot *s)
{
    return s->ready + s->pending;
}

/* Saturates a rounded value into [0, INT_MAX / 2], so that callers may add
 * two results without overflow. */
static int saturate(double x)
{
    if (isnan(x) || x <= 0)
        return 0;
    if (x >= INT_MAX / 2)
        return INT_MAX / 2;
    return (int)x;
}

int pol_util_ceil(double x)
{
    return saturate(ceil(x - 1e-9));
}

int pol_util_floor(double x)
{
    return saturate(floor(x + 1e-9));
}

void pol_util_hpa_state_init(struct pol_util_hpa_state *st)
{
    pol_util_window_init(&st->recs);
    pol_util_window_init(&st->ups);
    pol_util_window_init(&st->downs);
}

int pol_util_hpa_behave(struct pol_util_hpa_state *st,
                        const struct pol_util_hpa_behavior *b, double now_s,
                        int current, int rec)
{
    double up, down;
    int want = current;

    /* Stabilise: the window minimum for scale-up and the window maximum
     * for scale-down, both including rec (Kubernetes'
     * stabilizeRecommendationWithBehaviors). */
    pol_util_window_push(&st->recs, now_s, rec);
    up = pol_util_window_min(&st->recs, now_s, b->up_window_s);
    down = pol_util_window_max(&st->recs, now_s, b->down_window_s);
    if (want < up)
        want = (int)up;
    if (want > down)
        want = (int)down;

    if (want > current) {
        double added = pol_util_window_sum(&st->ups, now_s, b->up_period_s);
        /* Events are proposals; one the guard trimmed would make start
         * negative, so floor it at 0 (the Pods policy then still allows
         * up_pods). */
        double start = fmax(0, current - (isnan(added) ? 0 : added));
        int by_pct = pol_util_ceil(start * (1 + b->up_percent / 100));
        int by_pods = pol_util_floor(start) + b->up_pods;
        int limit = by_pct > by_pods ? by_pct : by_pods;
        if (limit < current)
            limit = current;
        if (want > limit)
            want = limit;
        pol_util_window_push(&st->ups, now_s, want - current);
    } else if (want < current) {
        double gone = pol_util_window_sum(&st->downs, now_s, b->down_period_s);
        double start = current + (isnan(gone) ? 0 : gone);
        int limit = pol_util_floor(start * (1 - b->down_percent / 100));
        if (limit > current)
            limit = current;
        if (want < limit)
            want = limit;
        pol_util_window_push(&st->downs, now_s, current - want);
    }
    return want;
}
