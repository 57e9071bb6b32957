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
 * interval; the rows are capped at CL_REPLICA_SERIES_MAX per run (a note
 * counts the rows past it).
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
};

static struct cl_rseries *track(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_rseries_set *t = w->rseries;
    struct cl_rseries *e;
    int64_t t0 = w->interval_start_ns;

    if (t == NULL)
        t = w->rseries = xcalloc(1, sizeof(*t));
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

void cl__rseries_touch(struct cl_world *w, struct cl_replica *rep)
{
    const struct cl_rseries_set *t = w->rseries;
    struct cl_rseries *e = NULL;

    if (w->res == NULL)
        return;
    /* rep->rseries > 0 only once track() has made the set. */
    if (rep->rseries > 0 && rep->rseries <= t->n &&
        t->v[rep->rseries - 1].rep == rep &&
        t->v[rep->rseries - 1].serial == rep->serial)
        e = &t->v[rep->rseries - 1];
    else if (rep->state == CL_R_GONE)
        return; /* its last row is written */
    else
        e = track(w, rep);
    see(w, e, rep, sim_loop_now(w->loop));
}

static int alive(const struct cl_rseries *e)
{
    return e->rep->serial == e->serial && e->rep->state != CL_R_GONE;
}

static struct cl_replica_row *new_row(struct cl_world *w)
{
    struct cl_results *res = w->res;

    if (res->nreplica_series >= CL_REPLICA_SERIES_MAX) {
        res->replica_series_dropped++;
        return NULL;
    }
    if (res->nreplica_series == w->rseries->rows_cap) {
        w->rseries->rows_cap =
            w->rseries->rows_cap ? 2 * w->rseries->rows_cap : 256;
        res->replica_series =
            xrealloc(res->replica_series, w->rseries->rows_cap,
                     sizeof(*res->replica_series));
    }
    return &res->replica_series[res->nreplica_series++];
}

void cl__rseries_close(struct cl_world *w, int64_t start_ns, int64_t end_ns)
{
    struct cl_rseries_set *t;
    int keep = 0;

    /* Replicas not touched yet (provisioning, loading, idle) join now, in
     * slot order. */
    for (int s = 0; s < w->nreps; s++)
        if (w->reps[s]->state != CL_R_GONE && w->reps[s]->rseries == 0)
            track(w, w->reps[s]);
    t = w->rseries;
    if (t == NULL)
        return; /* no replica yet */
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
}

void cl__rseries_fini(struct cl_world *w)
{
    if (w->rseries == NULL)
        return;
    free(w->rseries->v);
    free(w->rseries);
    w->rseries = NULL;
}
