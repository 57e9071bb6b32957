/*
 * Taking GPUs back: the owner of a borrowable pool reclaims them, and the
 * provider of a spot pool interrupts them, each with notice.
 *
 * Reclaims. The owner claims GPUs at scheduled times (pools[].reclaim) or
 * for its own jobs, a Poisson process (pools[].owner_demand). A claim
 * takes what the pool has free first; if our replicas then hold more than
 * the rest, they are given the pool's grace as notice (cancelled if still
 * pending, else drained: the pending ones first, then those already
 * draining, then the serving ones with the fewest requests, newest first),
 * and a replacement is asked for at once in the preferred pool with room.
 * What a replica still runs when the notice ends is handed back: its
 * requests restart elsewhere, their KV lost (replica.c). The owner holds
 * the GPUs from the notice's end for the claim's duration. At each
 * notice's end the pool is checked: GPUs of ours beyond what the owner
 * left us are counted late (the invariant says never).
 *
 * Interruptions. A spot pool's provider interrupts at given times (the
 * oldest replica serving in the pool), from a trace of instances (the
 * oldest serving replicas until the instance's GPUs are under notice;
 * spot-trace.c reads it) or as a Poisson process over the
 * pool's whole capacity: each candidate picks a GPU index uniformly and
 * interrupts the replica holding it, none when it is idle, so that the
 * candidates are the same whatever the size (common random numbers, as
 * the failures of orchestrator.c). The replica gets the provider's notice
 * (AWS EC2 Spot: two minutes, EC2 User Guide "Spot Instance interruption
 * notices"; GCP Spot VMs: 30 s, Compute Engine "Spot VMs") and leaves as
 * at a reclaim; the pool's capacity is unchanged, so a replacement may
 * come from it again after provisioning.
 *
 * Each pool draws from its own named streams, "owner-demand:<pool>" and
 * "interruptions:<pool>". Nothing is started once the run is over (the
 * source done and no request live), so these processes never lengthen
 * it. Single-threaded.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "models/cluster/cluster-int.h"
#include "base/xalloc.h"
#include "sim/time.h"

/* A claim of the owner on a borrowable pool, from its notice to its
 * release. */
struct claim {
    struct sim_event ev;
    struct cl_world *w;
    int pool;
    int gpus;            /* asked */
    int taken;           /* counted in the pool's owner_gpus */
    int64_t duration_ns; /* held after the notice; -1: to the end */
    int phase;           /* enum claim_phase */
    struct claim *prev, *next;
};

enum claim_phase {
    CLAIM_SCHEDULED, /* a pools[].reclaim entry before its time */
    CLAIM_NOTICE,    /* notice given, its end is next */
    CLAIM_HELD,      /* the owner holds the GPUs until the release */
};

/* A scripted interruption. */
struct intr_at {
    struct sim_event ev;
    struct cl_world *w;
    int pool;
};

/* One pool's processes. */
struct pool_proc {
    struct sim_event owner_ev; /* the owner's next job */
    struct sim_event intr_ev;  /* the provider's next candidate */
    struct cl_world *w;
    int pool;
    int owner_held; /* GPUs of claims whose notice has ended */
    char owner_stream[96];
    char intr_stream[96];
    struct intr_at *at; /* interruptions.at, one each */
    int nat;
    struct sim_event trace_ev; /* the trace's next row */
    int trace_next;            /* index of that row */
};

struct cl_reclaim_set {
    struct pool_proc *pools;
    int npools;
    struct claim *claims; /* live claims, for freeing */
};

static int run_over(const struct cl_world *w)
{
    return w->source_done && w->live == 0;
}

static void claim_unlink(struct cl_reclaim_set *rs, struct claim *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        rs->claims = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    free(c);
}

/* The replica of pool p to give notice ending at end_ns next, or NULL:
 * pending ones first, then those draining (under a later notice too),
 * then the serving one with the fewest requests; newest first among
 * equals. O(replicas). */
static struct cl_replica *victim(struct cl_world *w, int p, int64_t end_ns)
{
    struct cl_replica *best = NULL;
    double best_rank = 0;

    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        struct cl_gauges g;
        double rank;

        if (rep->pool != p || rep->state == CL_R_GONE ||
            (rep->notice_end_ns >= 0 && rep->notice_end_ns <= end_ns))
            continue;
        if (rep->state == CL_R_PROVISIONING || rep->state == CL_R_LOADING) {
            rank = 2e9;
        } else if (rep->state == CL_R_DRAINING) {
            rank = 1e9;
        } else {
            cl__replica_gauges(w, rep, &g);
            rank = -(g.running + g.waiting);
        }
        rank += (double)rep->serial * 1e-9;
        if (best == NULL || rank > best_rank) {
            best = rep;
            best_rank = rank;
        }
    }
    return best;
}

/* GPUs of pool p on replicas under a notice that ends by end_ns: they
 * are leaving in time. */
static int leaving_gpus(const struct cl_world *w, int p, int64_t end_ns)
{
    int n = 0;
    for (int i = 0; i < w->nreps; i++) {
        const struct cl_replica *rep = w->reps[i];
        if (rep->pool == p && rep->state != CL_R_GONE &&
            rep->notice_end_ns >= 0 && rep->notice_end_ns <= end_ns)
            n += rep->gpus;
    }
    return n;
}

/* Gives rep notice for cause and asks for its replacement. */
static void revoke(struct cl_world *w, struct cl_replica *rep,
                   int64_t notice_ns, int cause)
{
    int role = rep->role, gpus = rep->gpus;

    if (cl__replica_revoke(w, rep, notice_ns, cause) > 0)
        cl__orch_replace(w, role, gpus);
}

static void on_claim(struct sim_loop *loop, struct sim_event *ev);

/* The owner claims c->gpus of its pool now. */
static void claim_start(struct claim *c)
{
    struct cl_world *w = c->w;
    struct cl_pool_rt *p = &w->pools[c->pool];
    int64_t notice = p->grace_ns;
    int64_t end = sim_loop_now(w->loop) + notice;
    int excess;

    w->revoke[CL_REVOKE_RECLAIM].events++;
    c->taken =
        c->gpus < p->gpus - p->owner_gpus ? c->gpus : p->gpus - p->owner_gpus;
    p->owner_gpus += c->taken;
    excess =
        p->gpus_live + p->owner_gpus - p->gpus - leaving_gpus(w, c->pool, end);
    while (excess > 0) {
        struct cl_replica *rep = victim(w, c->pool, end);
        if (rep == NULL)
            break;
        excess -= rep->gpus;
        revoke(w, rep, notice, CL_REVOKE_RECLAIM);
    }
    c->phase = CLAIM_NOTICE;
    sim_loop_after(w->loop, &c->ev, notice);
}

static void on_claim(struct sim_loop *loop, struct sim_event *ev)
{
    struct claim *c = ev->arg;
    struct cl_world *w = c->w;
    struct cl_pool_rt *p = &w->pools[c->pool];
    struct pool_proc *pp = &w->reclaim->pools[c->pool];
    int over;

    switch (c->phase) {
    case CLAIM_SCHEDULED:
        if (run_over(w))
            claim_unlink(w->reclaim, c);
        else
            claim_start(c);
        return;
    case CLAIM_NOTICE:
        /* The notice has ended: the pool's GPUs of ours fit what the
         * owner holds now, the claims whose notice has ended (a later
         * claim's replicas may still drain). */
        pp->owner_held += c->taken;
        over = p->gpus_live + pp->owner_held - p->gpus;
        if (SIM_NEVER(over > 0))
            w->revoke[CL_REVOKE_RECLAIM].late_gpus += (uint64_t)over;
        if (c->duration_ns < 0) {
            c->phase = CLAIM_HELD; /* to the end: freed with the set */
            return;
        }
        c->phase = CLAIM_HELD;
        sim_loop_schedule(loop, &c->ev, sim_loop_now(loop) + c->duration_ns);
        return;
    default:
        p->owner_gpus -= c->taken;
        pp->owner_held -= c->taken;
        claim_unlink(w->reclaim, c);
        return;
    }
}

static struct claim *claim_new(struct cl_world *w, int pool, int gpus,
                               int64_t duration_ns)
{
    struct cl_reclaim_set *rs = w->reclaim;
    struct claim *c = xcalloc(1, sizeof(*c));

    sim_event_init(&c->ev, on_claim, c);
    c->w = w;
    c->pool = pool;
    c->gpus = gpus;
    c->duration_ns = duration_ns;
    c->next = rs->claims;
    if (rs->claims != NULL)
        rs->claims->prev = c;
    rs->claims = c;
    return c;
}

static void schedule_owner(struct pool_proc *pp)
{
    struct cl_world *w = pp->w;
    double rate_per_s =
        w->scn->pools[pp->pool].owner_demand.rate_per_h / 3600.0;
    double gap = gsl_ran_exponential(sim_loop_stream(w->loop, pp->owner_stream),
                                     1.0 / rate_per_s);
    sim_loop_after(w->loop, &pp->owner_ev, sim_s_to_ns(gap));
}

static void on_owner(struct sim_loop *loop, struct sim_event *ev)
{
    struct pool_proc *pp = ev->arg;
    struct cl_world *w = pp->w;
    const struct cl_owner_demand *od = &w->scn->pools[pp->pool].owner_demand;

    (void)loop;
    if (run_over(w))
        return;
    claim_start(claim_new(w, pp->pool, od->gpus, od->duration_ns));
    schedule_owner(pp);
}

/* Interrupts rep (serving or pending, not under notice yet). */
static void interrupt(struct cl_world *w, struct cl_replica *rep)
{
    w->revoke[CL_REVOKE_INTERRUPTION].events++;
    revoke(w, rep, w->pools[rep->pool].notice_ns, CL_REVOKE_INTERRUPTION);
}

static void schedule_intr(struct pool_proc *pp)
{
    struct cl_world *w = pp->w;
    double rate_per_s =
        w->scn->pools[pp->pool].interruptions.rate_per_h / 3600.0;
    double gap = gsl_ran_exponential(sim_loop_stream(w->loop, pp->intr_stream),
                                     1.0 / rate_per_s);
    sim_loop_after(w->loop, &pp->intr_ev, sim_s_to_ns(gap));
}

static void on_intr(struct sim_loop *loop, struct sim_event *ev)
{
    struct pool_proc *pp = ev->arg;
    struct cl_world *w = pp->w;
    const struct cl_pool_rt *p = &w->pools[pp->pool];
    int gpu, first = 0;

    if (run_over(w))
        return;
    gpu = (int)gsl_rng_uniform_int(sim_loop_stream(loop, pp->intr_stream),
                                   (unsigned long)p->gpus);
    /* GPU index gpu belongs to the pool's replica whose GPUs hold it, in
     * slot order; past them the pool is idle. */
    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        if (rep->pool != pp->pool || rep->state == CL_R_GONE)
            continue;
        if (gpu < first + rep->gpus) {
            if (rep->notice_end_ns < 0)
                interrupt(w, rep);
            break;
        }
        first += rep->gpus;
    }
    schedule_intr(pp);
}

static void on_intr_at(struct sim_loop *loop, struct sim_event *ev)
{
    struct intr_at *a = ev->arg;
    struct cl_world *w = a->w;
    struct cl_replica *oldest = NULL;

    (void)loop;
    if (run_over(w))
        return;
    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        if (rep->pool == a->pool && rep->state == CL_R_SERVING &&
            (oldest == NULL || rep->serial < oldest->serial))
            oldest = rep;
    }
    if (oldest != NULL)
        interrupt(w, oldest);
}

/* The trace's rows due now: each takes an instance of its GPUs back, the
 * oldest replicas serving in the pool and not under notice, until that
 * many GPUs are (a replica spans whole instances, or an instance holds
 * whole replicas: each one hit is one interruption). None when the pool
 * serves none: the instance was not ours then. O(rows due x replicas). */
static void on_intr_trace(struct sim_loop *loop, struct sim_event *ev)
{
    struct pool_proc *pp = ev->arg;
    struct cl_world *w = pp->w;
    const struct cl_interruptions *it = &w->scn->pools[pp->pool].interruptions;
    int64_t now = sim_loop_now(loop);

    if (run_over(w))
        return;
    while (pp->trace_next < it->ntrace &&
           it->trace_at_ns[pp->trace_next] <= now) {
        int want = it->trace_gpus[pp->trace_next++];

        while (want > 0) {
            struct cl_replica *oldest = NULL;
            for (int i = 0; i < w->nreps; i++) {
                struct cl_replica *rep = w->reps[i];
                if (rep->pool == pp->pool && rep->state == CL_R_SERVING &&
                    rep->notice_end_ns < 0 &&
                    (oldest == NULL || rep->serial < oldest->serial))
                    oldest = rep;
            }
            if (oldest == NULL)
                break;
            want -= oldest->gpus;
            interrupt(w, oldest);
        }
    }
    if (pp->trace_next < it->ntrace)
        sim_loop_schedule(loop, &pp->trace_ev, it->trace_at_ns[pp->trace_next]);
}

void cl__reclaim_start(struct cl_world *w)
{
    const struct cl_scenario *s = w->scn;
    struct cl_reclaim_set *rs;
    int any = 0;

    for (int i = 0; i < s->npools; i++) {
        const struct cl_pool *cp = &s->pools[i];
        any |= cp->borrowable &&
               (cp->nreclaim > 0 || !isnan(cp->owner_demand.rate_per_h));
        any |= cp->preemptible &&
               (cp->interruptions.nat > 0 || cp->interruptions.ntrace > 0 ||
                !isnan(cp->interruptions.rate_per_h));
    }
    if (!any || !w->elastic)
        return;
    rs = xcalloc(1, sizeof(*rs));
    rs->pools = xcalloc((size_t)s->npools, sizeof(*rs->pools));
    rs->npools = s->npools;
    w->reclaim = rs;
    for (int i = 0; i < s->npools; i++) {
        const struct cl_pool *cp = &s->pools[i];
        struct pool_proc *pp = &rs->pools[i];

        pp->w = w;
        pp->pool = i;
        snprintf(pp->owner_stream, sizeof(pp->owner_stream), "owner-demand:%s",
                 cp->name);
        snprintf(pp->intr_stream, sizeof(pp->intr_stream), "interruptions:%s",
                 cp->name);
        sim_event_init(&pp->owner_ev, on_owner, pp);
        sim_event_init(&pp->intr_ev, on_intr, pp);
        sim_event_init(&pp->trace_ev, on_intr_trace, pp);
        w->pools[i].notice_ns = cp->interruptions.notice_ns;
        if (cp->borrowable) {
            for (int k = 0; k < cp->nreclaim; k++) {
                struct claim *c = claim_new(w, i, cp->reclaim[k].gpus,
                                            cp->reclaim[k].duration_ns);
                c->phase = CLAIM_SCHEDULED;
                sim_loop_schedule(w->loop, &c->ev, cp->reclaim[k].at_ns);
            }
            if (!isnan(cp->owner_demand.rate_per_h))
                schedule_owner(pp);
        }
        if (cp->preemptible) {
            pp->nat = cp->interruptions.nat;
            pp->at =
                pp->nat > 0 ? xcalloc((size_t)pp->nat, sizeof(*pp->at)) : NULL;
            for (int k = 0; k < pp->nat; k++) {
                sim_event_init(&pp->at[k].ev, on_intr_at, &pp->at[k]);
                pp->at[k].w = w;
                pp->at[k].pool = i;
                sim_loop_schedule(w->loop, &pp->at[k].ev,
                                  cp->interruptions.at_ns[k]);
            }
            if (cp->interruptions.ntrace > 0)
                sim_loop_schedule(w->loop, &pp->trace_ev,
                                  cp->interruptions.trace_at_ns[0]);
            if (!isnan(cp->interruptions.rate_per_h))
                schedule_intr(pp);
        }
    }
}

void cl__reclaim_fini(struct cl_world *w)
{
    struct cl_reclaim_set *rs = w->reclaim;

    if (rs == NULL)
        return;
    /* Cancel what is still queued: a session may free the world before
     * its loop. */
    while (rs->claims != NULL) {
        sim_loop_cancel(w->loop, &rs->claims->ev);
        claim_unlink(rs, rs->claims);
    }
    for (int i = 0; i < rs->npools; i++) {
        struct pool_proc *pp = &rs->pools[i];
        sim_loop_cancel(w->loop, &pp->owner_ev);
        sim_loop_cancel(w->loop, &pp->intr_ev);
        sim_loop_cancel(w->loop, &pp->trace_ev);
        for (int k = 0; k < pp->nat; k++)
            sim_loop_cancel(w->loop, &pp->at[k].ev);
        free(pp->at);
    }
    free(rs->pools);
    free(rs);
    w->reclaim = NULL;
}
