/*
 * Abstract servers: each serving replica has `concurrency` identical slots,
 * fed by one central FCFS queue, each request holding a slot for its
 * service time. With Poisson arrivals and exponential service on a static
 * cluster this is M/M/c (c = replicas x concurrency); with deterministic
 * service M/D/c; otherwise M/G/c. The service time is drawn when the
 * request arrives, from its own stream, so that queueing decisions never
 * change which service time a request gets (common random numbers). Two
 * events per request: arrival and completion.
 */
#include "models/cluster/cluster-int.h"
#include "sim/time.h"

static void start(struct cl_world *w, struct cl_replica *rep, struct cl_req *r);

static void list_remove(struct cl_replica *rep, struct cl_req *r)
{
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        rep->inservice = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    r->next = r->prev = NULL;
}

static void set_slots(struct cl_world *w, struct cl_replica *rep, int delta)
{
    rep->slots_free -= delta;
    rep->slots_busy += delta;
    w->slots_busy_total += delta;
    sim_tavg_set(&w->busy, sim_loop_now(w->loop), (double)w->slots_busy_total);
    cl__replica_set_busy(w, rep, rep->slots_busy > 0);
}

/* The serving replica with a free slot and the lowest slot index, or NULL.
 * O(replicas); any free slot would do, since the servers are identical. */
static struct cl_replica *free_replica(struct cl_world *w)
{
    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        if (rep->state == CL_R_SERVING && rep->slots_free > 0)
            return rep;
    }
    return NULL;
}

static void pull(struct cl_world *w, struct cl_replica *rep)
{
    while (rep->state == CL_R_SERVING && rep->slots_free > 0 &&
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

    /* The first (and only) token arrives with the whole response. */
    r->first_token_ns = sim_loop_now(loop);
    list_remove(rep, r);
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
    if (rep->state == CL_R_DRAINING && rep->slots_busy == 0)
        cl__replica_drained(w, rep);
    else
        pull(w, rep);
}

static void start(struct cl_world *w, struct cl_replica *rep, struct cl_req *r)
{
    set_slots(w, rep, +1);
    cl__set_running(w, +1);
    r->start_ns = sim_loop_now(w->loop);
    r->rep = rep;
    r->prev = NULL;
    r->next = rep->inservice;
    if (rep->inservice != NULL)
        rep->inservice->prev = r;
    rep->inservice = r;
    sim_event_init(&r->ev, on_done, w);
    sim_loop_after(w->loop, &r->ev, r->service_ns);
}

void cl__abstract_arrive(struct cl_world *w, struct cl_req *r)
{
    struct cl_replica *rep = w->queue.head == NULL ? free_replica(w) : NULL;
    if (rep != NULL) {
        start(w, rep, r);
    } else {
        cl__fifo_push(&w->queue, r);
        cl__set_waiting(w, +1);
    }
}

void cl__abstract_ready(struct cl_world *w, struct cl_replica *rep)
{
    rep->slots_free = w->scn->server.concurrency;
    rep->slots_busy = 0;
    rep->inservice = NULL;
    pull(w, rep);
}

void cl__abstract_drain(struct cl_world *w, struct cl_replica *rep)
{
    if (rep->slots_busy == 0)
        cl__replica_drained(w, rep);
}

void cl__abstract_fail(struct cl_world *w, struct cl_replica *rep)
{
    /* In-service requests lose their work and go back to the head of the
     * queue, keeping their arrival time; their service time stays drawn. */
    while (rep->inservice != NULL) {
        struct cl_req *r = rep->inservice;
        list_remove(rep, r);
        sim_loop_cancel(w->loop, &r->ev);
        set_slots(w, rep, -1);
        cl__set_running(w, -1);
        r->rep = NULL;
        r->retries++;
        w->retried++;
        cl__fifo_push_front(&w->queue, r);
        cl__set_waiting(w, +1);
    }
    rep->slots_free = 0;
    for (struct cl_replica *other;
         (other = free_replica(w)) != NULL && w->queue.head != NULL;)
        pull(w, other);
}
