/*
 * The benchmark client: how the workload's requests are sent, between the
 * source (read one ahead by cluster.c) and the engine, as the load
 * generators that the simulator replays send them (issue #16).
 *
 * Open loop, the default: a request is sent at its source arrival time.
 * A staged source (inference-perf's load.stages) is held at the first
 * request of each new stage until every earlier request has ended; the
 * stage then starts at max(its nominal start + the earlier delay, the
 * drain) + stage_gap, and all its arrivals move by the same delay
 * (inference-perf runs a stage, waits for it to drain, then sleeps).
 * max_concurrency is vllm bench serve's semaphore: a request due while
 * that many are in flight waits in the client and is sent, first due first
 * sent, when one ends; its arrival (from which TTFT and E2E are measured)
 * is the send, as vLLM's benchmark starts its timer inside the semaphore.
 * Only the one read-ahead request ever waits: the source is not read past
 * it, so memory stays flat however far the client falls behind.
 *
 * Closed loop (users): every user sends at t = 0 (vLLM's and GuideLLM's
 * concurrency modes start all at once), waits for its request to end,
 * thinks an exponential time of mean think_time (stream
 * "client_think_time", one draw per end, so other streams never move),
 * and sends the next request of the source, whose arrival times are
 * ignored. A user whose turn comes after the source has ended stops.
 *
 * Time-out (client disconnect): each request kept by the engine gets one
 * event, embedded in it, at send + timeout; if it fires the engine
 * abandons the request (engine.h) and it counts in requests_timed_out, out
 * of every latency statistic. Completion cancels it; a replica failure
 * leaves it running, so a retried request keeps its deadline.
 *
 * Everything the client sends because a request ended goes through an
 * event at the current time (the arrival event, a user's event), never
 * from inside the engine that ended it. Without workload.client and with a
 * single stage it schedules nothing and changes nothing.
 */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "models/cluster/cluster-int.h"
#include "base/xalloc.h"

/* A closed-loop user. */
struct client_user {
    struct sim_event ev; /* its next send */
    struct cl_world *w;
    int idx;
};

struct cl_client_rt {
    int64_t timeout_ns;      /* > 0, or none */
    int64_t max_concurrency; /* > 0, or unbounded */
    int64_t think_ns;        /* closed loop: mean think time */
    int64_t gap_ns;          /* staged: pause after a drain */
    struct client_user *users;
    int nusers;          /* 0: open loop */
    int64_t in_flight;   /* sent and not yet ended */
    int64_t last_end_ns; /* when the last request ended */
    int staged;          /* a request has been seen: stage is set */
    int stage;           /* the stage now being sent */
    int64_t shift_ns;    /* its arrivals' delay */
    int stage_hold;      /* the read-ahead opens a stage: held */
    int blocked;         /* the read-ahead is due but over the cap */
    gsl_rng *think;      /* closed loop with think time */
};

int64_t cl__client_stage_start(int64_t nominal_ns, int64_t shift_ns,
                               int64_t drain_ns, int64_t gap_ns)
{
    int64_t t = nominal_ns + shift_ns;

    if (drain_ns > t)
        t = drain_ns;
    return t + (gap_ns > 0 ? gap_ns : 0);
}

static void on_user(struct sim_loop *loop, struct sim_event *ev)
{
    struct client_user *u = (struct client_user *)ev;

    (void)loop;
    if (!u->w->source_done)
        cl__send_next(u->w, u->idx);
}

static void on_timeout(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    struct cl_req *r =
        (struct cl_req *)((char *)ev - offsetof(struct cl_req, client_ev));

    if (!cl__frontend_cancel(w, r))
        w->engine->ops->abandon(w, r);
    w->timed_out++;
    w->last_event_ns = sim_loop_now(loop);
    cl__req_record(w, r, CL_OUTCOME_TIMEOUT);
    cl__client_ended(w, r);
    cl__req_free(w, r);
}

void cl__client_open(struct cl_world *w)
{
    const struct cl_client *cfg = &w->scn->workload.client;
    struct cl_client_rt *c = xcalloc(1, sizeof(*c));

    w->client = c;
    /* Unset is -1; a zeroed section (a scenario not from the loader)
     * reads as unset too. */
    c->timeout_ns = cfg->timeout_ns > 0 ? cfg->timeout_ns : -1;
    c->max_concurrency = cfg->max_concurrency > 0 ? cfg->max_concurrency : -1;
    c->think_ns = cfg->think_time_ns > 0 ? cfg->think_time_ns : 0;
    c->gap_ns = cfg->stage_gap_ns > 0 ? cfg->stage_gap_ns : 0;
    if (cfg->users <= 0)
        return;
    /* The loader bounds users (workload.client.users). */
    c->nusers = (int)cfg->users;
    c->users = xcalloc((size_t)c->nusers, sizeof(*c->users));
    if (c->think_ns > 0)
        c->think = sim_loop_stream(w->loop, "client_think_time");
    for (int i = 0; i < c->nusers; i++) {
        c->users[i].w = w;
        c->users[i].idx = i;
        sim_event_init(&c->users[i].ev, on_user, &c->users[i]);
        sim_loop_schedule(w->loop, &c->users[i].ev, 0);
    }
}

void cl__client_fini(struct cl_world *w)
{
    if (w->client == NULL)
        return;
    free(w->client->users);
    free(w->client);
    w->client = NULL;
}

int64_t cl__client_due(struct cl_world *w, const struct wl_request *q)
{
    struct cl_client_rt *c = w->client;
    int64_t now = sim_loop_now(w->loop), at;

    if (c->nusers > 0)
        return -1; /* the users pull it */
    if (!c->staged) {
        c->staged = 1;
        c->stage = q->stage;
    } else if (q->stage != c->stage) {
        c->stage = q->stage;
        if (c->in_flight > 0) {
            c->stage_hold = 1; /* cl__client_ended() releases it */
            return -1;
        }
        at = cl__client_stage_start(q->arrival_ns, c->shift_ns, c->last_end_ns,
                                    c->gap_ns);
        c->shift_ns = at - q->arrival_ns;
    }
    at = q->arrival_ns + c->shift_ns;
    return at > now ? at : now;
}

int cl__client_gate(struct cl_world *w)
{
    struct cl_client_rt *c = w->client;

    if (c->max_concurrency > 0 && c->in_flight >= c->max_concurrency) {
        c->blocked = 1;
        return 0;
    }
    return 1;
}

void cl__client_sent(struct cl_world *w, struct cl_req *r, int keep)
{
    struct cl_client_rt *c = w->client;

    c->in_flight++;
    if (!keep || c->timeout_ns <= 0)
        return;
    sim_event_init(&r->client_ev, on_timeout, w);
    sim_loop_after(w->loop, &r->client_ev, c->timeout_ns);
}

void cl__client_ended(struct cl_world *w, struct cl_req *r)
{
    struct cl_client_rt *c = w->client;
    int64_t now = sim_loop_now(w->loop);

    sim_loop_cancel(w->loop, &r->client_ev);
    c->in_flight--;
    c->last_end_ns = now;
    if (r->user >= 0 && r->user < c->nusers) {
        int64_t think = 0;
        if (c->think != NULL)
            think = llround(gsl_ran_exponential(c->think, (double)c->think_ns));
        sim_loop_after(w->loop, &c->users[r->user].ev, think);
        return;
    }
    if (c->stage_hold && c->in_flight == 0) {
        const struct wl_request *q = &w->next_req;
        int64_t at =
            cl__client_stage_start(q->arrival_ns, c->shift_ns, now, c->gap_ns);
        c->stage_hold = 0;
        c->shift_ns = at - q->arrival_ns;
        sim_loop_schedule(w->loop, &w->arrival_ev, at);
    } else if (c->blocked && c->in_flight < c->max_concurrency) {
        c->blocked = 0;
        sim_loop_schedule(w->loop, &w->arrival_ev, now);
    }
}
