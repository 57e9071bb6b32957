/*
 * Sessions: a run of the cluster model advanced in steps chosen by the
 * caller, with read-outs of what a live system would expose between steps
 * and, in the external mode, the size set from outside (the digital twin,
 * docs/twin.md). cl_run() is one session advanced to the end, so there is
 * one code path and both give the same results.
 *
 * Advancing to t schedules one no-op "tick" event at t and runs the loop up
 * to t, so that the clock reads t afterwards and a size set then takes
 * effect at t. Ticks change no state: they fire after the events already
 * queued for t, and their count is taken out of the results' sim_events.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "base/errors.h"
#include "sim/time.h"

struct cl_session {
    struct cl_world *w;
    struct cl_results *out;
    struct sim_event tick;
    int64_t now_ns;
    int stepped; /* advanced to a finite time at least once */
};

/* vLLM's bounds (docs/sources.md §6.1; vllm/v1/metrics/loggers.py). */
static const double len_bounds[] = {1,     2,     5,     10,    20,   50,
                                    100,   200,   500,   1000,  2000, 5000,
                                    10000, 20000, 50000, 100000};
static const double e2e_bounds[] = {0.3, 0.5, 0.8, 1,   1.5, 2,    2.5,
                                    5,   10,  15,  20,  30,  40,   50,
                                    60,  120, 240, 480, 960, 1920, 7680};

const double *cl_vhist_bounds(int kind, int *n)
{
    if (kind == CL_VH_E2E) {
        *n = (int)(sizeof(e2e_bounds) / sizeof(e2e_bounds[0]));
        return e2e_bounds;
    }
    *n = (int)(sizeof(len_bounds) / sizeof(len_bounds[0]));
    return len_bounds;
}

void cl__vhist_add(struct cl_vhist *h, int kind, double v)
{
    int n, i = 0;
    const double *le = cl_vhist_bounds(kind, &n);

    /* Prometheus buckets are upper-inclusive: the first le >= v. */
    while (i < n && v > le[i])
        i++;
    h->bucket[i]++;
    h->sum += v;
    h->count++;
}

static void on_tick(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_session *ss = ev->arg;
    (void)loop;
    ss->w->ticks++;
}

int cl_session_open(const struct cl_scenario *s, const struct cl_run_opts *opts,
                    int flags, struct cl_results *out, struct cl_session **sp,
                    struct sim_diag *d)
{
    struct cl_session *ss = xcalloc(1, sizeof(*ss));
    int rc;

    /* The world holds eight histograms (about 460 KiB): heap, not stack. */
    ss->w = xcalloc(1, sizeof(*ss->w));
    ss->w->external = (flags & CL_SESSION_EXTERNAL) != 0;
    ss->w->readouts = (flags & CL_SESSION_READOUTS) != 0;
    ss->out = out;
    sim_event_init(&ss->tick, on_tick, ss);
    memset(out, 0, sizeof(*out));
    *sp = NULL;
    rc = cl__world_open(ss->w, s, opts, out, d);
    if (rc != 0) {
        cl__world_free(ss->w);
        free(ss);
        return rc;
    }
    *sp = ss;
    return 0;
}

int cl_session_advance(struct cl_session *ss, int64_t t_ns)
{
    struct cl_world *w = ss->w;

    if (w->failed != 0)
        return w->failed;
    if (t_ns < ss->now_ns)
        return 0;
    if (t_ns == SIM_TIME_MAX) {
        sim_loop_run(w->loop, SIM_TIME_MAX);
        ss->now_ns = sim_loop_now(w->loop);
        return w->failed;
    }
    /* The clock never runs ahead of the session's, so t_ns is not in the
     * loop's past. */
    ss->stepped = 1;
    sim_loop_reschedule(w->loop, &ss->tick, t_ns);
    sim_loop_run(w->loop, t_ns);
    if (w->failed == 0)
        ss->now_ns = t_ns;
    return w->failed;
}

int64_t cl_session_now(const struct cl_session *ss)
{
    return ss->now_ns;
}

int cl_session_set_desired(struct cl_session *ss, int desired)
{
    struct cl_world *w = ss->w;

    if (!w->external)
        return -1;
    if (desired < w->min_replicas)
        desired = w->min_replicas;
    if (desired > w->max_replicas)
        desired = w->max_replicas;
    w->desired = desired;
    cl__orch_scale_to(w, desired, 0);
    return desired;
}

int cl_session_nreplicas(const struct cl_session *ss)
{
    return ss->w->nreps;
}

int cl_session_replica(const struct cl_session *ss, int i,
                       struct cl_session_replica *out)
{
    const struct cl_world *w = ss->w;
    const struct cl_replica *rep;
    const struct cl_pool_rt *pool;
    struct cl_gauges g;

    if (i < 0 || i >= w->nreps || w->reps[i]->state == CL_R_GONE)
        return -1;
    rep = w->reps[i];
    pool = &w->pools[rep->pool];
    memset(out, 0, sizeof(*out));
    out->serial = rep->serial;
    out->pool = rep->pool;
    out->pool_name = pool->name;
    switch (rep->state) {
    case CL_R_PROVISIONING:
        out->state = CL_SS_PROVISIONING;
        break;
    case CL_R_LOADING:
        out->state = CL_SS_LOADING;
        break;
    case CL_R_SERVING:
        out->state = CL_SS_SERVING;
        break;
    default:
        out->state = CL_SS_DRAINING;
        break;
    }
    out->ready_s = out->state == CL_SS_SERVING || out->state == CL_SS_DRAINING
                       ? sim_ns_to_s(rep->ready_ns)
                       : NAN;
    /* As the policy snapshot sees it: a central queue shows as each
     * serving replica's share. */
    cl__replica_gauges(w, rep, &g);
    out->num_running = g.running;
    out->num_waiting = g.waiting;
    out->kv_usage = g.kv_usage;
    out->kv_capacity_tokens = cl__rep_layout(w, rep)->kv_cap_tokens;
    out->block_tokens = pool->kv_block_tokens;
    out->prompt_tokens = rep->ctr.prompt_tokens;
    out->generation_tokens = rep->ctr.output_tokens;
    out->request_success = rep->ctr.completed;
    out->ttft = rep->ctr.ttft;
    out->itl = rep->ctr.itl;
    memcpy(out->req, rep->req, sizeof(out->req));
    return 0;
}

void cl_session_cluster(const struct cl_session *ss,
                        struct cl_session_cluster *out)
{
    const struct cl_world *w = ss->w;

    memset(out, 0, sizeof(*out));
    out->now_s = sim_ns_to_s(ss->now_ns);
    out->desired = w->elastic ? w->desired : w->n_serving;
    out->min_replicas = w->min_replicas;
    out->max_replicas = w->max_replicas;
    out->gpus_per_replica = w->gpus_per_replica;
    out->serving = w->n_serving;
    out->pending = w->n_pending;
    out->draining = w->n_draining;
    out->workload_done = w->source_done && w->live == 0;
    out->arrived = w->arrived;
    out->completed = w->completed;
    out->dropped = w->dropped;
    out->unrouted = w->queue.n;
    out->scale_events = w->scale_events;
    out->cold_starts = w->cold_starts;
}

int cl_session_close(struct cl_session *ss)
{
    int rc;

    if (ss == NULL)
        return 0;
    /* Stepped and closed before the run ended (the twin, stopped): it ends
     * now, after every time-weighted average's last change. cl_run() never
     * steps, so its end stays at the last event. */
    if (ss->stepped && (!ss->w->source_done || ss->w->live > 0) &&
        sim_loop_now(ss->w->loop) > ss->w->last_event_ns)
        ss->w->last_event_ns = sim_loop_now(ss->w->loop);
    rc = cl__world_close(ss->w, ss->out);
    cl__world_free(ss->w);
    free(ss);
    return rc;
}

int cl_run(const struct cl_scenario *s, const struct cl_run_opts *opts,
           struct cl_results *out, struct sim_diag *d)
{
    struct cl_session *ss;
    int rc = cl_session_open(s, opts, 0, out, &ss, d);

    if (rc != 0)
        return rc;
    /* A workload error stops the loop; close reports it. */
    cl_session_advance(ss, SIM_TIME_MAX);
    return cl_session_close(ss);
}
