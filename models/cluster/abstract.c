/*
 * Abstract servers: replicas x concurrency identical slots fed by one
 * central FCFS queue, each request holding a slot for its service time. With
 * Poisson arrivals and exponential service this is M/M/c (c = slots); with
 * deterministic service M/D/c; otherwise M/G/c. The service time is drawn
 * when the request arrives, from its own stream, so that queueing decisions
 * never change which service time a request gets (common random numbers).
 * Two events per request: arrival and completion.
 */
#include "models/cluster/cluster-int.h"

static void start(struct cl_world *w, struct cl_req *r);

static void on_done(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    struct cl_req *r = (struct cl_req *)ev;
    struct cl_req *next;

    (void)loop;
    /* The first (and only) token arrives with the whole response. */
    r->first_token_ns = sim_loop_now(w->loop);
    cl__set_running(w, -1);
    w->slots_free++;
    sim_tavg_set(&w->busy, sim_loop_now(w->loop),
                 (double)(w->slots_total - w->slots_free));
    cl__complete(w, r);
    next = cl__fifo_pop(&w->queue);
    if (next != NULL) {
        cl__set_waiting(w, -1);
        start(w, next);
    }
}

static void start(struct cl_world *w, struct cl_req *r)
{
    int64_t now = sim_loop_now(w->loop);
    w->slots_free--;
    sim_tavg_set(&w->busy, now, (double)(w->slots_total - w->slots_free));
    cl__set_running(w, +1);
    r->start_ns = now;
    sim_event_init(&r->ev, on_done, w);
    sim_loop_after(w->loop, &r->ev, r->service_ns);
}

void cl__abstract_init(struct cl_world *w)
{
    const struct cl_server *sv = &w->scn->server;
    w->slots_total = (int64_t)w->replicas * sv->concurrency;
    w->slots_free = w->slots_total;
    sim_tavg_init(&w->busy, 0, 0.0);
}

void cl__abstract_arrive(struct cl_world *w, struct cl_req *r)
{
    if (w->slots_free > 0) {
        start(w, r);
    } else {
        cl__fifo_push(&w->queue, r);
        cl__set_waiting(w, +1);
    }
}
