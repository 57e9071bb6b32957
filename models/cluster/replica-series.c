/*
 * The per-replica time series: for every series interval and every replica
 * that existed in it, vLLM's gauges (num_requests_running,
 * num_requests_waiting, kv_cache_usage_perc; docs/sources.md §6.1) as
 * time-weighted means and end values, the prefix cache hit rate, and the
 * interval's prompt and generation tokens and finished requests.
 *
 * Replica engines call cl__replica_set_busy() at the time of every change
 * of a replica's gauges or counters (llm.c: after each arrival, iteration
 * and drain; abstract.c: after each slot change), and that calls
 * cl__rseries_touch(), so the time-weighted means are exact: O(1) per
 * call, nothing per request or per token. A replica is tracked from its
 * first touch or the first interval end it sees, whichever comes first,
 * until the interval in which it is gone; a replica that is requested and
 * cancelled inside one interval without ever being touched has no row.
 *
 * Memory: the accumulators are one struct per replica alive in the
 * interval, and the rows stay flat in simulated time. A row covers
 * per_row metrics intervals (1 at first); when the rows reach
 * metrics.replica_rows after an even number of row intervals, each two
 * adjacent row intervals merge into one (merge()) and per_row doubles, so
 * a run keeps between half of that and that many rows (plus one
 * interval's) however long it is. The merge is exact for what a row says:
 * means weighted by time, counts added, end values the later row's. Rows
 * are also capped at CL_REPLICA_SERIES_MAX per run (a note counts the
 * rows past it), which only one interval of more replicas than the budget
 * can reach.
 */
#include <math.h>
#include <stdlib.h>

#include "models/cluster/cluster-int.h"
#include "base/xalloc.h"

/* One replica's accumulators over the current series interval. The
 * replica's slot may be reused once it is gone, so what a row needs is
 * copied here each time the replica is seen. */
struct cl_rseries {
    struct cl_replica *rep; /* borrowed; rep->serial != serial once reused */
    uint64_t serial;
    int pool;
    int state;                            /* enum cl_rstate, last seen */
    struct sim_tavg running, waiting, kv; /* gauges, time-weighted */
    uint64_t out0, prompt0, done0;        /* counters at interval start */
    uint64_t out, prompt, done;           /* counters last seen */
    double hit_rate;                      /* prefix cache, last close */
};

/* The world's series state (w->rseries). */
struct cl_rseries_set {
    struct cl_rseries *v; /* replicas tracked this interval, in order */
    int n;
    int cap;
    size_t rows_cap; /* rows allocated in res->replica_series */
    /* Downsampling: metrics intervals per row (a power of two), those
     * closed into the row being built and its start (where every
     * tracked replica's means begin), and the row intervals written. */
    int64_t per_row, pending, row_start_ns, row_intervals;
};

static struct cl_rseries *track(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_rseries_set *t = w->rseries;
    struct cl_rseries *e;
    int64_t t0;

    if (t == NULL) {
        t = w->rseries = xcalloc(1, sizeof(*t));
        t->per_row = 1;
        t->row_start_ns = w->interval_start_ns;
    }
    t0 = t->row_start_ns; /* the row's means span all of it */
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->v = xrealloc(t->v, (size_t)t->cap, sizeof(*t->v));
    }
    e = &t->v[t->n++];
    e->rep = rep;
    e->serial = rep->serial;
    e->pool = rep->pool;
    e->state = rep->state;
    /* Zero until now: it did not exist, or held nothing, before; KV usage
     * is NAN throughout for a replica without a KV cache. */
    sim_tavg_init(&e->running, t0, 0.0);
    sim_tavg_init(&e->waiting, t0, 0.0);
    sim_tavg_init(&e->kv, t0,
                  isnan(cl__rep_layout(w, rep)->kv_tokens) ? NAN : 0);
    e->out0 = e->out = 0;
    e->prompt0 = e->prompt = 0;
    e->done0 = e->done = 0;
    e->hit_rate = NAN;
    rep->rseries = t->n;
    return e;
}

/* Copies rep's own gauges and counters into e at time now. An abstract
 * replica reports no waiting: its queue is the cluster's. */
static void see(const struct cl_world *w, struct cl_rseries *e,
                const struct cl_replica *rep, int64_t now)
{
    struct cl_gauges g;

    w->engine->ops->gauges(w, rep, &g);
    sim_tavg_set(&e->running, now, g.running);
    sim_tavg_set(&e->waiting, now, g.waiting);
    sim_tavg_set(&e->kv, now, g.kv_usage);
    e->out = rep->ctr.output_tokens;
    e->prompt = rep->ctr.prompt_tokens;
    e->done = rep->ctr.completed;
    e->state = rep->state;
}

/* rep's accumulators, tracked from now if they were not; NULL when there
 * are no results or rep is gone (its last row is written). */
static struct cl_rseries *find(struct cl_world *w, struct cl_replica *rep)
{
    const struct cl_rseries_set *t = w->rseries;

    if (w->res == NULL)
        return NULL;
    /* rep->rseries > 0 only once track() has made the set. */
    if (rep->rseries > 0 && rep->rseries <= t->n &&
        t->v[rep->rseries - 1].rep == rep &&
        t->v[rep->rseries - 1].serial == rep->serial)
        return &t->v[rep->rseries - 1];
    if (rep->state == CL_R_GONE)
        return NULL;
    return track(w, rep);
}

void cl__rseries_touch_at(struct cl_world *w, struct cl_replica *rep,
                          int64_t t_ns)
{
    struct cl_rseries *e = find(w, rep);

    if (e != NULL)
        see(w, e, rep, t_ns);
}

void cl__rseries_decode_run(struct cl_world *w, struct cl_replica *rep,
                            const int64_t *t_ns, const double *kv, int n)
{
    struct cl_rseries *e = find(w, rep);

    if (e == NULL)
        return;
    sim_tavg_set_run(&e->kv, t_ns, kv, (size_t)n);
    e->out = rep->ctr.output_tokens;
}

static int alive(const struct cl_rseries *e)
{
    return e->rep->serial == e->serial && e->rep->state != CL_R_GONE;
}

/* metrics.replica_rows, or its default for a scenario built in code. */
static size_t budget_of(const struct cl_world *w)
{
    return w->scn->metrics.replica_rows > 0
               ? (size_t)w->scn->metrics.replica_rows
               : CL_REPLICA_ROWS_DEFAULT;
}

/* Row a over [a.t_start, a.t_end] and row b of the same replica over the
 * next span (either NULL: the replica was not there, its gauges zero)
 * into *out over both spans. */
static void merge_rows(const struct cl_replica_row *a,
                       const struct cl_replica_row *b, int64_t start_ns,
                       int64_t end_ns, struct cl_replica_row *out)
{
    const struct cl_replica_row *last = b != NULL ? b : a;
    double da = a != NULL ? (double)(a->t_end_ns - a->t_start_ns) : 0.0;
    double db = b != NULL ? (double)(b->t_end_ns - b->t_start_ns) : 0.0;
    double d = (double)(end_ns - start_ns);
    struct cl_replica_row r = *last;

#define MEAN(f)                                                                \
    (((a != NULL ? a->f * da : 0.0) + (b != NULL ? b->f * db : 0.0)) / d)
#define SUM(f) ((a != NULL ? a->f : 0) + (b != NULL ? b->f : 0))
    r.t_start_ns = start_ns;
    r.t_end_ns = end_ns;
    r.num_requests_running = MEAN(num_requests_running);
    r.num_requests_waiting = MEAN(num_requests_waiting);
    r.kv_cache_usage_perc = MEAN(kv_cache_usage_perc);
    if (b != NULL && isnan(b->prefix_cache_hit_rate) && a != NULL)
        r.prefix_cache_hit_rate = a->prefix_cache_hit_rate;
    r.prompt_tokens = SUM(prompt_tokens);
    r.generation_tokens = SUM(generation_tokens);
    r.request_success = SUM(request_success);
#undef MEAN
#undef SUM
    *out = r;
}

/* Merges each two adjacent row intervals of w->res into one, in place: a
 * replica's rows in the two become one row; one in only one of them (it
 * came or went) gets a row over both, zero in the other. Replicas keep
 * their order from one interval to the next (track() appends, close
 * keeps order), so one pass pairs them. O(rows). */
static void merge(struct cl_world *w)
{
    struct cl_results *res = w->res;
    struct cl_replica_row *v = res->replica_series;
    size_t n = res->nreplica_series, i = 0, o = 0;

    while (i < n) {
        size_t a0 = i, a1, b0, b1, j, k;
        int64_t start = v[i].t_start_ns, end;

        for (a1 = a0; a1 < n && v[a1].t_start_ns == start; a1++)
            ;
        b0 = a1;
        for (b1 = b0; b1 < n && v[b1].t_start_ns == v[b0].t_start_ns; b1++)
            ;
        end = b1 > b0 ? v[b0].t_end_ns : v[a0].t_end_ns;
        /* Reads stay ahead of writes: o <= the next row read. */
        for (j = a0, k = b0; j < a1 || k < b1;) {
            struct cl_replica_row ra, rb, out;
            if (j < a1 && k < b1 && v[j].replica == v[k].replica) {
                ra = v[j++];
                rb = v[k++];
                merge_rows(&ra, &rb, start, end, &out);
            } else if (j < a1) {
                ra = v[j++];
                merge_rows(&ra, NULL, start, end, &out);
            } else {
                rb = v[k++];
                merge_rows(NULL, &rb, start, end, &out);
            }
            v[o++] = out;
        }
        i = b1;
    }
    res->nreplica_series = o;
}

static struct cl_replica_row *new_row(struct cl_world *w)
{
    struct cl_results *res = w->res;

    if (res->nreplica_series >= CL_REPLICA_SERIES_MAX) {
        res->replica_series_dropped++;
        return NULL;
    }
    if (res->nreplica_series == w->rseries->rows_cap) {
        /* Doubling up to the budget, then a quarter more at a time: the
         * rows stop growing there. */
        size_t cap = w->rseries->rows_cap, budget = budget_of(w);
        w->rseries->rows_cap = cap == 0            ? 256
                               : 2 * cap <= budget ? 2 * cap
                                                   : cap + cap / 4 + 1;
        res->replica_series =
            xrealloc(res->replica_series, w->rseries->rows_cap,
                     sizeof(*res->replica_series));
    }
    return &res->replica_series[res->nreplica_series++];
}

/* Appends one row per tracked replica for [t->row_start_ns, end_ns],
 * forgets the replicas that are gone and starts the next row at end_ns;
 * merges rows at the budget. */
static void write_rows(struct cl_world *w, struct cl_rseries_set *t,
                       int64_t end_ns)
{
    int64_t start_ns = t->row_start_ns;
    int keep = 0;

    t->pending = 0;
    t->row_start_ns = end_ns;
    for (int i = 0; i < t->n; i++) {
        struct cl_rseries *e = &t->v[i];
        int live = alive(e);
        struct cl_replica_row *row;

        if (live) {
            const struct cl_counters *c = &e->rep->ctr;
            see(w, e, e->rep, end_ns);
            e->hit_rate = c->prefix_queries > 0 ? (double)c->prefix_hits /
                                                      (double)c->prefix_queries
                                                : NAN;
        } else {
            e->state = CL_R_GONE;
        }
        row = new_row(w);
        if (row != NULL) {
            row->t_start_ns = start_ns;
            row->t_end_ns = end_ns;
            row->replica = e->serial;
            row->pool = e->pool;
            row->state = e->state;
            row->num_requests_running = sim_tavg_mean(&e->running, end_ns);
            row->num_requests_waiting = sim_tavg_mean(&e->waiting, end_ns);
            row->num_requests_running_end =
                (int64_t)sim_tavg_value(&e->running);
            row->num_requests_waiting_end =
                (int64_t)sim_tavg_value(&e->waiting);
            row->kv_cache_usage_perc = sim_tavg_mean(&e->kv, end_ns);
            row->kv_cache_usage_perc_end = sim_tavg_value(&e->kv);
            row->prefix_cache_hit_rate = e->hit_rate;
            row->prompt_tokens = e->prompt - e->prompt0;
            row->generation_tokens = e->out - e->out0;
            row->request_success = e->done - e->done0;
        }
        if (!live) {
            /* Forgotten; its slot may already hold another replica. */
            if (e->rep->serial == e->serial)
                e->rep->rseries = 0;
            continue;
        }
        sim_tavg_restart(&e->running, end_ns);
        sim_tavg_restart(&e->waiting, end_ns);
        sim_tavg_restart(&e->kv, end_ns);
        e->out0 = e->out;
        e->prompt0 = e->prompt;
        e->done0 = e->done;
        t->v[keep] = *e;
        t->v[keep].rep->rseries = keep + 1;
        keep++;
    }
    t->n = keep;
    /* Pairs only: an odd row interval waits for its partner (so rows
     * stay aligned on per_row intervals from the start). */
    if (++t->row_intervals % 2 == 0 &&
        w->res->nreplica_series >= budget_of(w)) {
        merge(w);
        t->per_row *= 2;
        t->row_intervals /= 2;
    }
}

void cl__rseries_close(struct cl_world *w, int64_t end_ns, int last)
{
    struct cl_rseries_set *t;

    /* Replicas not touched yet (provisioning, loading, idle) join now, in
     * slot order. */
    for (int s = 0; s < w->nreps; s++)
        if (w->reps[s]->state != CL_R_GONE && w->reps[s]->rseries == 0)
            track(w, w->reps[s]);
    t = w->rseries;
    if (t == NULL)
        return; /* no replica yet */
    /* A row of per_row intervals: written at the last of them, or at the
     * run's end. */
    if (++t->pending < t->per_row && !last)
        return;
    write_rows(w, t, end_ns);
}

void cl__rseries_flush(struct cl_world *w, int64_t end_ns)
{
    if (w->rseries != NULL && w->rseries->pending > 0)
        write_rows(w, w->rseries, end_ns);
}

void cl__rseries_fini(struct cl_world *w)
{
    if (w->rseries == NULL)
        return;
    free(w->rseries->v);
    free(w->rseries);
    w->rseries = NULL;
}
