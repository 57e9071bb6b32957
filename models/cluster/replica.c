/*
 * The life of a replica: requested -> provisioning (the pool's delay, or a
 * borrowable pool's grace period while its test work is preempted) ->
 * loading (weight bytes / the source's bandwidth, plus engine init) ->
 * serving -> draining (no new requests; in-flight ones finish) -> gone.
 * A failure ends it in any state. GPU-seconds are charged to its pool from
 * request to release, split by state, with serving split again into busy
 * and idle (no request on the replica).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "models/gpu/gpu.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sim/time.h"

static int charge_state(int state)
{
    switch (state) {
    case CL_R_PROVISIONING:
        return CL_GS_PROVISIONING;
    case CL_R_LOADING:
        return CL_GS_LOADING;
    case CL_R_SERVING:
        return CL_GS_SERVING;
    default:
        return CL_GS_DRAINING;
    }
}

/* Charges the time since the last transition to the replica's pool. */
static void charge(struct cl_world *w, struct cl_replica *rep, int64_t now)
{
    struct cl_pool_rt *p = &w->pools[rep->pool];
    double gpus = (double)rep->gpus;
    double dt = sim_ns_to_s(now - rep->state_since_ns);

    if (rep->state == CL_R_SERVING) {
        double idle = sim_ns_to_s(rep->idle_acc_ns);
        if (!rep->busy)
            idle += sim_ns_to_s(now - rep->idle_since_ns);
        if (idle > dt)
            idle = dt;
        p->gpu_s[CL_GS_IDLE] += gpus * idle;
        p->gpu_s[CL_GS_SERVING] += gpus * (dt - idle);
        rep->idle_acc_ns = 0;
        rep->idle_since_ns = now;
    } else if (rep->state != CL_R_GONE) {
        p->gpu_s[charge_state(rep->state)] += gpus * dt;
    }
    if (rep->state != CL_R_GONE)
        w->role_gpu_s[rep->role] += gpus * dt;
    rep->state_since_ns = now;
}

static void count_state(struct cl_world *w, int state, int delta)
{
    if (state == CL_R_PROVISIONING || state == CL_R_LOADING)
        w->n_pending += delta;
    else if (state == CL_R_SERVING)
        w->n_serving += delta;
    else if (state == CL_R_DRAINING)
        w->n_draining += delta;
}

static void note_sizes(struct cl_world *w)
{
    int64_t now = sim_loop_now(w->loop);
    double gpus = 0;
    for (int i = 0; i < w->npools; i++)
        gpus += w->pools[i].gpus_live;
    /* A change of size is part of the run: it ends no earlier. */
    if (now > w->last_event_ns)
        w->last_event_ns = now;
    sim_tavg_set(&w->replicas_up, now, (double)w->n_serving);
    sim_tavg_set(&w->iv_replicas, now, (double)w->n_serving);
    sim_tavg_set(&w->iv_gpus, now, gpus);
    for (int i = 0; i < w->npools; i++)
        sim_tavg_set(&w->pools[i].iv_gpus, now, w->pools[i].gpus_live);
    if (w->n_serving < w->replicas_min_seen)
        w->replicas_min_seen = w->n_serving;
    if (w->n_serving > w->replicas_max_seen)
        w->replicas_max_seen = w->n_serving;
}

static void free_slot_push(struct cl_world *w, int slot);

static void set_state(struct cl_world *w, struct cl_replica *rep, int state)
{
    int64_t now = sim_loop_now(w->loop);
    if (state == CL_R_GONE && rep->state != CL_R_GONE)
        free_slot_push(w, rep->slot);
    charge(w, rep, now);
    count_state(w, rep->state, -1);
    rep->state = state;
    count_state(w, state, +1);
    /* A replica becomes serving with nothing routed to it (its engine's
     * state is made after this, by ready()); the engine keeps the count
     * from then on. */
    w->route_n[rep->slot] = state == CL_R_SERVING ? 0 : INT64_MAX;
    if (state == CL_R_SERVING && w->n_serving == 1)
        cl__orch_served(w);
    if (state == CL_R_GONE) {
        w->pools[rep->pool].gpus_live -= rep->gpus;
        sim_loop_cancel(w->loop, &rep->life_ev);
        sim_loop_cancel(w->loop, &rep->notice_ev);
        /* The invariant of a notice: its GPUs are back by its end. */
        if (SIM_NEVER(rep->notice_end_ns >= 0 && now > rep->notice_end_ns))
            w->revoke[rep->notice_cause].late_gpus += (uint64_t)rep->gpus;
    }
    note_sizes(w);
}

static void become_ready(struct cl_world *w, struct cl_replica *rep)
{
    int64_t now = sim_loop_now(w->loop);
    set_state(w, rep, CL_R_SERVING);
    rep->ready_ns = now;
    rep->busy = 0;
    rep->idle_since_ns = now;
    rep->idle_acc_ns = 0;
    if (rep->failed_at_ns >= 0) {
        w->recovery_s_sum += sim_ns_to_s(now - rep->failed_at_ns);
        w->recoveries++;
    }
    w->engine->ops->ready(w, rep);
}

static void on_life(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_replica *rep = ev->arg;
    struct cl_world *w = rep->w;

    if (rep->state == CL_R_PROVISIONING) {
        set_state(w, rep, CL_R_LOADING);
        sim_loop_after(loop, &rep->life_ev, rep->load_ns);
    } else if (rep->state == CL_R_LOADING) {
        become_ready(w, rep);
    }
}

/* A notice has ended with rep still draining: what it runs is handed
 * back. Its requests restart elsewhere (the engine's fail op, as at a
 * failure, but no replacement: one was asked for at the notice), and the
 * KV its cache held is lost. */
static void on_notice(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_replica *rep = ev->arg;
    struct cl_world *w = rep->w;
    struct cl_revoke_cost *c = &w->revoke[rep->notice_cause];
    struct cl_gauges g;
    uint64_t retried = w->retried;

    (void)loop;
    if (SIM_NEVER(rep->state != CL_R_DRAINING))
        return;
    w->engine->ops->gauges(w, rep, &g);
    if (!isnan(g.kv_usage))
        c->kv_tokens_lost +=
            g.kv_usage * (double)cl__rep_layout(w, rep)->kv_cap_tokens;
    c->handed_back++;
    set_state(w, rep, CL_R_GONE);
    w->engine->ops->fail(w, rep);
    c->restarted += w->retried - retried;
}

int cl__replica_revoke(struct cl_world *w, struct cl_replica *rep,
                       int64_t notice_ns, int cause)
{
    int64_t end = sim_loop_now(w->loop) + notice_ns;
    struct cl_revoke_cost *c = &w->revoke[cause];

    if (rep->state == CL_R_GONE)
        return 0;
    if (rep->notice_end_ns >= 0) {
        /* Two notices: the earlier end holds. */
        if (end < rep->notice_end_ns) {
            rep->notice_end_ns = end;
            rep->notice_cause = cause;
            sim_loop_cancel(w->loop, &rep->notice_ev);
            sim_loop_schedule(w->loop, &rep->notice_ev, end);
        }
        return 0;
    }
    c->replicas++;
    c->gpus += (uint64_t)rep->gpus;
    if (rep->state == CL_R_PROVISIONING || rep->state == CL_R_LOADING) {
        set_state(w, rep, CL_R_GONE);
        return rep->gpus;
    }
    rep->notice_end_ns = end;
    rep->notice_cause = cause;
    if (rep->state == CL_R_SERVING)
        cl__replica_drain(w, rep, (int)w->scn->cluster.drain);
    /* The drain may have emptied it at once. */
    if (rep->state == CL_R_DRAINING)
        sim_loop_schedule(w->loop, &rep->notice_ev, end);
    return rep->gpus;
}

static void free_slot_push(struct cl_world *w, int slot)
{
    int i;

    if (w->nfree == w->cap_free) {
        w->cap_free = w->cap_free ? 2 * w->cap_free : 16;
        w->free_slots =
            xrealloc(w->free_slots, (size_t)w->cap_free, sizeof(int));
    }
    i = w->nfree++;
    while (i > 0 && w->free_slots[(i - 1) / 2] > slot) {
        w->free_slots[i] = w->free_slots[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->free_slots[i] = slot;
}

static int free_slot_pop(struct cl_world *w)
{
    int top = w->free_slots[0], last = w->free_slots[--w->nfree], i = 0;

    for (;;) {
        int c = 2 * i + 1;
        if (c >= w->nfree)
            break;
        if (c + 1 < w->nfree && w->free_slots[c + 1] < w->free_slots[c])
            c++;
        if (last <= w->free_slots[c])
            break;
        w->free_slots[i] = w->free_slots[c];
        i = c;
    }
    if (w->nfree > 0)
        w->free_slots[i] = last;
    return top;
}

static int free_slot(struct cl_world *w)
{
    if (w->nfree > 0)
        return free_slot_pop(w);
    if (w->nreps == w->cap_reps) {
        w->cap_reps = w->cap_reps ? 2 * w->cap_reps : 16;
        w->reps = xrealloc(w->reps, (size_t)w->cap_reps, sizeof(*w->reps));
        w->route_n =
            xrealloc(w->route_n, (size_t)w->cap_reps, sizeof(*w->route_n));
    }
    w->route_n[w->nreps] = INT64_MAX;
    w->reps[w->nreps] = xcalloc(1, sizeof(struct cl_replica));
    return w->nreps++;
}

/* Bytes per second a starting replica rep loads its weights at. */
static double load_rate(const struct cl_world *w, int source,
                        const struct cl_replica *rep)
{
    const struct gpu_spec *g = cl__rep_layout(w, rep)->perf.gpu;
    double tp = (double)rep->gpus;

    switch (source) {
    case CL_SRC_OBJECT_STORE:
        /* ServerlessLLM: 130 GB from remote storage at 5 GB/s (docs/sources.md
         * §8.1). */
        return 5e9;
    case CL_SRC_NVME:
        /* One local PCIe Gen4 NVMe drive, about 6 GB/s sequential reads
         * (assumption; calibrate). */
        return 6e9;
    case CL_SRC_HOST_MEMORY:
        /* Each GPU pulls its shard over its own PCIe link. */
        return tp * (g != NULL ? g->pcie_bytes_per_s : 63e9);
    case CL_SRC_PEER_NVLINK:
        /* NCCL reaches ~82% of NVLink line rate (370 of 450 GB/s,
         * docs/sources.md §2.3). */
        return tp * 0.82 * (g != NULL ? g->nvlink_bytes_per_s : 450e9);
    default:
        /* One NDR 400G NIC per GPU: 46-48 GB/s achieved (docs/sources.md §2.3).
         */
        return tp * 46e9;
    }
}

static int source_of(const struct cl_scenario *s)
{
    const char *p = s->deploy.model_path;
    if (s->deploy.weights_source != CL_SRC_AUTO)
        return s->deploy.weights_source;
    if (p != NULL &&
        (strncmp(p, "s3://", 5) == 0 || strncmp(p, "gs://", 5) == 0 ||
         strncmp(p, "http://", 7) == 0 || strncmp(p, "https://", 8) == 0))
        return CL_SRC_OBJECT_STORE;
    return CL_SRC_NVME;
}

/* Loading time of replica rep: weights over the source (none for an
 * engine without a model: its layout's perf is zero), plus engine init.
 * recovery: a replacement after a failure loads from the in-memory
 * checkpoint (peer hosts over RDMA) or from storage. */
static int64_t load_time(const struct cl_world *w, const struct cl_replica *rep,
                         int recovery)
{
    const struct cl_scenario *s = w->scn;
    double bytes = cl__rep_layout(w, rep)->perf.weight_bytes;
    int src = source_of(s);
    double rate;

    if (recovery)
        src = s->faults.recovery == CL_RECOVER_MEMORY ? CL_SRC_PEER_RDMA
                                                      : CL_SRC_OBJECT_STORE;
    rate = !recovery && !isnan(s->deploy.load_bytes_per_s)
               ? s->deploy.load_bytes_per_s
               : load_rate(w, src, rep);
    return sim_s_to_ns(bytes / rate) + s->deploy.engine_init_ns;
}

int cl__replica_next_role(const struct cl_world *w)
{
    int n = 0;

    if (!w->pd)
        return CL_ROLE_BOTH;
    if (w->force_role >= 0)
        return w->force_role;
    for (int k = 0; k < w->nreps; k++)
        if (w->reps[k]->state != CL_R_GONE &&
            w->reps[k]->role == CL_ROLE_PREFILL)
            n++;
    return n < w->role_replicas[CL_ROLE_PREFILL] ? CL_ROLE_PREFILL
                                                 : CL_ROLE_DECODE;
}

struct cl_replica *cl__replica_request(struct cl_world *w, int pool, int warm,
                                       int64_t failed_at_ns)
{
    int role = cl__replica_next_role(w);
    int slot = free_slot(w);
    struct cl_replica *rep = w->reps[slot];
    struct cl_pool_rt *p = &w->pools[pool];
    int64_t now = sim_loop_now(w->loop);
    int64_t delay;

    w->engine->ops->replica_free(w, rep);
    memset(rep, 0, sizeof(*rep));
    rep->w = w;
    rep->slot = slot;
    rep->serial = w->next_serial++;
    rep->pool = pool;
    rep->role = role;
    rep->gpus = cl__pool_gpr(w, pool, role);
    rep->borrowed = p->borrowable;
    rep->requested_ns = now;
    rep->state_since_ns = now;
    rep->failed_at_ns = failed_at_ns;
    rep->state = CL_R_GONE; /* set_state() moves it out */
    sim_event_init(&rep->life_ev, on_life, rep);
    sim_event_init(&rep->notice_ev, on_notice, rep);
    rep->notice_end_ns = -1;
    cl__counters_init(&rep->ctr);
    p->gpus_live += rep->gpus;
    p->started++;
    rep->load_ns = load_time(w, rep, failed_at_ns >= 0);
    if (warm) {
        become_ready(w, rep);
        return rep;
    }
    w->cold_starts++;
    set_state(w, rep, CL_R_PROVISIONING);
    delay = p->borrowable
                ? p->grace_ns
                : sim_s_to_ns(wl_dist_draw(
                      &p->provision, sim_loop_stream(w->loop, "provision")));
    if (failed_at_ns >= 0)
        delay += w->scn->faults.detect_ns;
    sim_loop_after(w->loop, &rep->life_ev, delay);
    return rep;
}

void cl__replica_set_busy(struct cl_world *w, struct cl_replica *rep, int busy)
{
    int64_t now = sim_loop_now(w->loop);
    cl__rseries_touch(w, rep); /* engines call this after every change */
    if (busy == rep->busy)
        return;
    if (busy)
        rep->idle_acc_ns += now - rep->idle_since_ns;
    else
        rep->idle_since_ns = now;
    rep->busy = busy;
}

void cl__replica_drain(struct cl_world *w, struct cl_replica *rep, int drain)
{
    if (rep->state != CL_R_SERVING)
        return;
    rep->drain = drain;
    set_state(w, rep, CL_R_DRAINING);
    w->engine->ops->drain(w, rep);
}

void cl__replica_drained(struct cl_world *w, struct cl_replica *rep)
{
    if (rep->state == CL_R_DRAINING)
        set_state(w, rep, CL_R_GONE);
}

void cl__replica_cancel(struct cl_world *w, struct cl_replica *rep)
{
    if (rep->state == CL_R_PROVISIONING || rep->state == CL_R_LOADING)
        set_state(w, rep, CL_R_GONE);
}

void cl__replica_fail(struct cl_world *w, struct cl_replica *rep)
{
    int was = rep->state;
    int64_t now = sim_loop_now(w->loop);

    if (was == CL_R_GONE)
        return;
    w->failures++;
    set_state(w, rep, CL_R_GONE);
    if (was == CL_R_SERVING || was == CL_R_DRAINING)
        w->engine->ops->fail(w, rep);
    /* A replica that was meant to serve is replaced in its pool; one that
     * was draining away is not. */
    if (was != CL_R_DRAINING)
        cl__replica_request(w, rep->pool, 0, now);
}

void cl__replica_gauges(const struct cl_world *w, const struct cl_replica *rep,
                        struct cl_gauges *g)
{
    w->engine->ops->gauges(w, rep, g);
    if (w->engine->central_queue && rep->state == CL_R_SERVING &&
        w->n_serving > 0)
        g->waiting += (double)w->queue.n / w->n_serving;
}

void cl__replicas_close(struct cl_world *w, int64_t end_ns)
{
    for (int i = 0; i < w->nreps; i++)
        if (w->reps[i]->state != CL_R_GONE)
            charge(w, w->reps[i], end_ns);
}

void cl__replicas_free(struct cl_world *w)
{
    for (int i = 0; i < w->nreps; i++) {
        w->engine->ops->replica_free(w, w->reps[i]);
        free(w->reps[i]);
    }
    free(w->reps);
    free(w->route_n);
    free(w->free_slots);
    w->reps = NULL;
    w->route_n = NULL;
    w->nreps = w->cap_reps = 0;
    w->free_slots = NULL;
    w->nfree = w->cap_free = 0;
}
