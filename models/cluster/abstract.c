/*
 * Abstract servers: each serving replica has `concurrency` identical slots,
 * fed by one central FCFS queue, each request holding a slot for its
 * service time. With Poisson arrivals and exponential service on a static
 * cluster this is M/M/c (c = replicas x concurrency); with deterministic
 * service M/D/c; otherwise M/G/c. The service time is drawn when the
 * request arrives, from its own stream, so that queueing decisions never
 * change which service time a request gets (common random numbers). Two
 * events per request: arrival and completion. The central queue is the
 * cluster's (w->queue); the service-time law and the busy-slot average are
 * this engine's world state, the slots each replica's.
 */
#include <math.h>
#include <stdlib.h>

#include "models/cluster/cluster-int.h"
#include "models/workload/dist.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sim/time.h"

/* The engine's world state (w->engine_state). */
struct abstract_world {
    struct wl_dist service; /* seconds, drawn at arrival */
    struct sim_tavg busy;   /* busy slots of all replicas, time-weighted */
    int64_t slots_busy;     /* now */
};

/* A serving replica's slots (rep->engine_state). */
struct abstract_replica {
    int slots_free;
    int slots_busy;
    struct cl_req *inservice; /* doubly linked by next / prev */
};

static void start(struct cl_world *w, struct cl_replica *rep, struct cl_req *r);

static void list_remove(struct abstract_replica *a, struct cl_req *r)
{
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        a->inservice = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    r->next = r->prev = NULL;
}

static void set_slots(struct cl_world *w, struct cl_replica *rep, int delta)
{
    struct abstract_world *aw = w->engine_state;
    struct abstract_replica *a = rep->engine_state;

    a->slots_free -= delta;
    a->slots_busy += delta;
    aw->slots_busy += delta;
    sim_tavg_set(&aw->busy, sim_loop_now(w->loop), (double)aw->slots_busy);
    cl__replica_set_busy(w, rep, a->slots_busy > 0);
}

/* The serving replica with a free slot and the lowest slot index, or NULL.
 * O(replicas); any free slot would do, since the servers are identical. */
static struct cl_replica *free_replica(struct cl_world *w)
{
    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        const struct abstract_replica *a = rep->engine_state;
        if (rep->state == CL_R_SERVING && a->slots_free > 0)
            return rep;
    }
    return NULL;
}

static void pull(struct cl_world *w, struct cl_replica *rep)
{
    const struct abstract_replica *a = rep->engine_state;

    while (rep->state == CL_R_SERVING && a->slots_free > 0 &&
           w->queue.head != NULL) {
        cl__set_waiting(w, -1);
        start(w, rep, cl__fifo_pop(&w->queue));
    }
}

static void on_done(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    struct cl_req *r = (struct cl_req *)ev;
    struct cl_replica *rep = r->rep;
    struct abstract_replica *a = rep->engine_state;

    /* The first (and only) token arrives with the whole response. */
    r->first_token_ns = sim_loop_now(loop);
    list_remove(a, r);
    set_slots(w, rep, -1);
    cl__set_running(w, -1);
    rep->ctr.completed++;
    w->cl_ctr.completed++;
    if (w->elastic) {
        /* Only a policy reads these: static clusters skip them. */
        double ttft_s = sim_ns_to_s(r->first_token_ns - r->arrival_ns);
        pol_ph_add_n(&rep->ctr.ttft, ttft_s, 1);
        pol_ph_add_n(&w->cl_ctr.ttft, ttft_s, 1);
    }
    cl__complete(w, r);
    if (rep->state == CL_R_DRAINING && a->slots_busy == 0)
        cl__replica_drained(w, rep);
    else
        pull(w, rep);
}

static void start(struct cl_world *w, struct cl_replica *rep, struct cl_req *r)
{
    struct abstract_replica *a = rep->engine_state;

    set_slots(w, rep, +1);
    cl__set_running(w, +1);
    r->start_ns = sim_loop_now(w->loop);
    r->rep = rep;
    r->prev = NULL;
    r->next = a->inservice;
    if (a->inservice != NULL)
        a->inservice->prev = r;
    a->inservice = r;
    sim_event_init(&r->ev, on_done, w);
    sim_loop_after(w->loop, &r->ev, r->service_ns);
}

static int abstract_world_init(struct cl_world *w, struct sim_diag *d)
{
    struct abstract_world *aw = xcalloc(1, sizeof(*aw));

    w->engine_state = aw;
    sim_tavg_init(&aw->busy, 0, 0.0);
    if (wl_dist_init(&aw->service, &w->scn->server.service, "server.service",
                     d) != 0)
        return SIM_EINVAL;
    return 0;
}

static void abstract_world_fini(struct cl_world *w)
{
    free(w->engine_state);
    w->engine_state = NULL;
}

static int abstract_plan(const struct cl_scenario *s, struct cl_plan *plan,
                         struct sim_diag *d)
{
    (void)d;
    plan->tp = 1;
    plan->gpus_per_replica = 1;
    plan->price_usd_per_gpu_hour = s->server.price_usd_per_hour;
    return 0;
}

static int abstract_accept(struct cl_world *w, struct cl_req *r,
                           const struct wl_request *q)
{
    const struct abstract_world *aw = w->engine_state;

    (void)q;
    r->service_ns = sim_s_to_ns(
        wl_dist_draw(&aw->service, sim_loop_stream(w->loop, "service")));
    return 1;
}

static void abstract_arrive(struct cl_world *w, struct cl_req *r)
{
    struct cl_replica *rep = w->queue.head == NULL ? free_replica(w) : NULL;
    if (rep != NULL) {
        start(w, rep, r);
    } else {
        cl__fifo_push(&w->queue, r);
        cl__set_waiting(w, +1);
    }
}

/* Out of the central queue (O(1)), or out of its slot, whose completion
 * is cancelled and which takes the next queued request. */
static void abstract_abandon(struct cl_world *w, struct cl_req *r)
{
    struct cl_replica *rep = r->rep;
    struct abstract_replica *a;

    if (rep == NULL) {
        cl__fifo_remove(&w->queue, r);
        cl__set_waiting(w, -1);
        return;
    }
    a = rep->engine_state;
    list_remove(a, r);
    sim_loop_cancel(w->loop, &r->ev);
    set_slots(w, rep, -1);
    cl__set_running(w, -1);
    r->rep = NULL;
    if (rep->state == CL_R_DRAINING && a->slots_busy == 0)
        cl__replica_drained(w, rep);
    else
        pull(w, rep);
}

static void abstract_ready(struct cl_world *w, struct cl_replica *rep)
{
    struct abstract_replica *a = xcalloc(1, sizeof(*a));

    a->slots_free = w->scn->server.concurrency;
    rep->engine_state = a;
    pull(w, rep);
}

static void abstract_drain(struct cl_world *w, struct cl_replica *rep)
{
    const struct abstract_replica *a = rep->engine_state;

    if (a->slots_busy == 0)
        cl__replica_drained(w, rep);
}

static void abstract_replica_free(struct cl_world *w, struct cl_replica *rep)
{
    (void)w;
    free(rep->engine_state);
    rep->engine_state = NULL;
}

static void abstract_fail(struct cl_world *w, struct cl_replica *rep)
{
    struct abstract_replica *a = rep->engine_state;

    /* In-service requests lose their work and go back to the head of the
     * queue, keeping their arrival time; their service time stays drawn. */
    while (a->inservice != NULL) {
        struct cl_req *r = a->inservice;
        list_remove(a, r);
        sim_loop_cancel(w->loop, &r->ev);
        set_slots(w, rep, -1);
        cl__set_running(w, -1);
        r->rep = NULL;
        r->retries++;
        w->retried++;
        cl__fifo_push_front(&w->queue, r);
        cl__set_waiting(w, +1);
    }
    abstract_replica_free(w, rep);
    for (struct cl_replica *other;
         (other = free_replica(w)) != NULL && w->queue.head != NULL;)
        pull(w, other);
}

/* Busy slots; the queue is central, so a replica has no waiting of its own
 * (cl__replica_gauges() adds its share) and no KV cache. */
static void abstract_gauges(const struct cl_world *w,
                            const struct cl_replica *rep, struct cl_gauges *g)
{
    const struct abstract_replica *a = rep->engine_state;

    (void)w;
    g->running = a != NULL ? (double)a->slots_busy : 0;
    g->waiting = 0;
    g->kv_usage = NAN;
}

/* Utilization: busy slots over the slots of the replicas up, both
 * time-weighted. */
static void abstract_results(const struct cl_world *w, int64_t end_ns,
                             struct cl_results *out)
{
    const struct abstract_world *aw = w->engine_state;

    if (end_ns > 0 && out->replicas_mean > 0)
        out->utilization = sim_tavg_mean(&aw->busy, end_ns) /
                           (out->replicas_mean * w->scn->server.concurrency);
}

static const struct cl_engine_ops ops = {
    .version = CL_ENGINE_API_VERSION,
    .plan = abstract_plan,
    .world_init = abstract_world_init,
    .pool_init = NULL,
    .notes = NULL,
    .accept = abstract_accept,
    .arrive = abstract_arrive,
    .abandon = abstract_abandon,
    .ready = abstract_ready,
    .drain = abstract_drain,
    .fail = abstract_fail,
    .replica_free = abstract_replica_free,
    .gauges = abstract_gauges,
    .results = abstract_results,
    .world_fini = abstract_world_fini,
};

const struct cl_engine cl__engine_abstract = {
    .name = "abstract",
    .summary = "replicas x concurrency identical slots behind one FCFS "
               "queue, service times drawn at arrival: M/M/c, M/D/c or "
               "M/G/c (Kleinrock, Queueing Systems, 1975)",
    .kind = CL_SRV_ABSTRACT,
    .streams_tokens = 0,
    .central_queue = 1,
    .ops = &ops,
};
