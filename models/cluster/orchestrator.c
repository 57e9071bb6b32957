/*
 * The orchestrator: every policy.interval it takes a snapshot of what a
 * live system could scrape (vLLM gauges per replica, counters and
 * Prometheus histograms turned into windowed rates and quantiles), asks the
 * scaling policy for a size, applies the common guard rails, and reconciles:
 * scale-up requests replicas from the preferred pools (priority, then
 * price), borrowing from test pools when asked to or when the others are
 * full; scale-down cancels pending replicas first, then drains borrowed
 * ones, then the most expensive and newest, each as cluster.drain says
 * unless the decision names a drain mode (finish or migrate) for them.
 *
 * Scale to zero (min_replicas 0), as Knative Serving does it (Knative docs,
 * "Autoscaling / Configuring scale to zero"): requests arriving with no
 * replica wait in the cluster's holding queue, and the activator
 * (cl__orch_arrive) asks for one replica at once instead of waiting for
 * the next evaluation; the last replica goes only once the cluster has
 * had no request for cluster.scale_to_zero_grace (Knative's
 * scale-to-zero-grace-period, 30 s), so until then the policy sees, and
 * the orchestrator enforces, a floor of one replica.
 *
 * Faults: scripted failures at given times, and random GPU failures with a
 * per-GPU MTBF drawn by thinning a Poisson process at the rate of the
 * largest cluster (max_gpus / MTBF): every candidate picks a GPU index
 * uniformly, and fails its replica if that GPU is in use. The candidates
 * come from their own stream, so every policy sees the same failure
 * candidates (common random numbers) whatever its size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/cluster/cluster-int.h"
#include "models/policy/snapshot.h"
#include "base/errors.h"
#include "sim/time.h"

struct cl_link_ev {
    struct sim_event ev;
    struct cl_world *w;
};

void cl__counters_init(struct cl_counters *c)
{
    memset(c, 0, sizeof(*c));
    pol_ph_init(&c->ttft, POL_PH_TTFT);
    pol_ph_init(&c->itl, POL_PH_ITL);
}

/* Pushes the current counters into the window ring. */
static void win_push(struct cl_window *win, const struct cl_counters *c,
                     int64_t now, int slots)
{
    win->snap[win->head] = *c;
    win->at_ns[win->head] = now;
    win->head = (win->head + 1) % slots;
    if (win->n < slots)
        win->n++;
}

/* The window: current counters minus the oldest snapshot held (which is
 * at most window_ns old). Returns the window length in seconds, 0 when no
 * snapshot exists yet. */
static double win_delta(const struct cl_window *win,
                        const struct cl_counters *c, int64_t now, int slots,
                        struct cl_counters *out)
{
    int oldest;
    const struct cl_counters *o;

    if (win->n == 0)
        return 0;
    oldest = (win->head - win->n + slots) % slots;
    o = &win->snap[oldest];
    out->arrivals = c->arrivals - o->arrivals;
    out->arrival_prompt_tokens =
        c->arrival_prompt_tokens - o->arrival_prompt_tokens;
    out->arrival_output_tokens =
        c->arrival_output_tokens - o->arrival_output_tokens;
    out->completed = c->completed - o->completed;
    out->prompt_tokens = c->prompt_tokens - o->prompt_tokens;
    out->output_tokens = c->output_tokens - o->output_tokens;
    pol_ph_delta(&out->ttft, &c->ttft, &o->ttft);
    pol_ph_delta(&out->itl, &c->itl, &o->itl);
    return sim_ns_to_s(now - win->at_ns[oldest]);
}

/* The window as the snapshot code shared with dsec-scaler takes it
 * (models/policy/snapshot.h); counts below 2^53 convert exactly. */
static void to_window(const struct cl_counters *d, double span_s,
                      struct pol_window *out)
{
    out->span_s = span_s;
    out->arrivals = (double)d->arrivals;
    out->arrival_prompt_tokens = (double)d->arrival_prompt_tokens;
    out->arrival_output_tokens = (double)d->arrival_output_tokens;
    out->completed = (double)d->completed;
    out->prompt_tokens = (double)d->prompt_tokens;
    out->output_tokens = (double)d->output_tokens;
    out->ttft = d->ttft;
    out->itl = d->itl;
}

/* The fewest replicas the cluster may have now: min_replicas, or under
 * scale to zero 1 until the cluster has had no request for the grace
 * period (requests waiting or running, or any held by the client path,
 * are work). */
static int zero_floor(const struct cl_world *w, int64_t now)
{
    if (w->min_replicas > 0 || w->pd)
        return w->min_replicas;
    if (w->live > 0 ||
        now - w->idle_since_ns < w->scn->cluster.scale_to_zero_grace_ns)
        return 1;
    return 0;
}

/* Fills s for the policy of role (enum cl_role): CL_ROLE_BOTH, the
 * whole cluster; under elastic P/D one group, whose sizes, bounds,
 * replicas, gauges and pools' capacity (in its replicas) s then holds,
 * with the one target that group answers for (prefill: TTFT, decode:
 * ITL); the cluster aggregates stay the cluster's. */
static void fill_snapshot(struct cl_world *w, struct pol_snapshot *s, int role)
{
    int64_t now = sim_loop_now(w->loop);
    struct cl_counters d;
    struct pol_window pw;
    double span;
    int n = 0, kv_ready = 0, ready = 0, pending = 0, draining = 0;
    int gpr = role == CL_ROLE_BOTH ? w->gpus_per_replica : w->role_gpus[role];

    memset(s, 0, sizeof(*s));
    s->api_version = POL_API_VERSION;
    s->now_s = sim_ns_to_s(now);
    s->interval_s = sim_ns_to_s(w->scn->policy.interval_ns);
    s->window_s = sim_ns_to_s(w->scn->policy.window_ns);
    s->ready = w->n_serving;
    s->pending = w->n_pending;
    s->draining = w->n_draining;
    s->min_replicas = zero_floor(w, now);
    s->max_replicas = w->max_replicas;
    s->gpus_per_replica = w->gpus_per_replica;
    s->target_ttft_s =
        w->scn->slo.ttft_ns >= 0 ? sim_ns_to_s(w->scn->slo.ttft_ns) : NAN;
    s->target_itl_s =
        w->scn->slo.tpot_ns >= 0 ? sim_ns_to_s(w->scn->slo.tpot_ns) : NAN;

    span = win_delta(&w->cl_win, &w->cl_ctr, now, w->win_slots, &d);
    s->metrics_valid = span > 0;
    to_window(&d, span, &pw);
    pol_snapshot_fill_window(s, &pw);

    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        struct pol_replica *pr;
        struct cl_counters rd;
        struct cl_gauges g;
        double rspan;

        if (rep->state == CL_R_GONE ||
            (role != CL_ROLE_BOTH && rep->role != role))
            continue;
        pr = &w->snap_reps[n++];
        memset(pr, 0, sizeof(*pr));
        pr->pool = rep->pool;
        pr->state = rep->state == CL_R_SERVING    ? POL_RS_READY
                    : rep->state == CL_R_DRAINING ? POL_RS_DRAINING
                                                  : POL_RS_PENDING;
        pr->age_s = rep->state == CL_R_SERVING || rep->state == CL_R_DRAINING
                        ? sim_ns_to_s(now - rep->ready_ns)
                        : 0;
        cl__replica_gauges(w, rep, &g);
        pr->num_running = g.running;
        pr->num_waiting = g.waiting;
        pr->kv_usage = g.kv_usage;
        pr->kv_capacity_tokens = cl__rep_layout(w, rep)->kv_tokens;
        if (pr->state == POL_RS_READY && !isnan(g.kv_usage))
            kv_ready++;
        ready += pr->state == POL_RS_READY;
        pending += pr->state == POL_RS_PENDING;
        draining += pr->state == POL_RS_DRAINING;
        /* A replica requested since the last evaluation has no
         * snapshot yet: its window is empty (win_delta leaves rd as is). */
        cl__counters_init(&rd);
        rspan = win_delta(&rep->win, &rep->ctr, now, w->win_slots, &rd);
        to_window(&rd, rspan, &pw);
        pol_replica_fill_window(pr, &pw);
    }
    s->replicas = w->snap_reps;
    s->nreplicas = n;
    if (role != CL_ROLE_BOTH) {
        s->role = role == CL_ROLE_PREFILL ? POL_ROLE_PREFILL : POL_ROLE_DECODE;
        s->ready = ready;
        s->pending = pending;
        s->draining = draining;
        s->min_replicas = w->role_min[role];
        s->max_replicas = w->role_max[role];
        s->gpus_per_replica = gpr;
        if (role == CL_ROLE_PREFILL)
            s->target_itl_s = NAN;
        else
            s->target_ttft_s = NAN;
    }
    /* KV usage is the mean over the ready replicas that have a KV cache. */
    pol_snapshot_sum_gauges(s, kv_ready);
    if (!w->engine->central_queue && role != CL_ROLE_DECODE)
        s->num_waiting += (double)w->queue.n; /* held, no replica yet */
    else if (w->min_replicas == 0 && w->n_serving == 0 && !w->pd)
        s->num_waiting += (double)w->queue.n; /* no replica to share it */

    for (int p = 0; p < w->npools; p++) {
        struct pol_pool *pp = &w->snap_pools[p];
        const struct cl_pool_rt *rt = &w->pools[p];
        int pgpr = role == CL_ROLE_BOTH ? rt->gpr : gpr;
        memset(pp, 0, sizeof(*pp));
        pp->name = rt->name;
        /* What the owner holds or has claimed is not ours to use. */
        pp->capacity_replicas = (rt->gpus - rt->owner_gpus) / pgpr;
        pp->price_usd_per_replica_hour = rt->price * pgpr;
        pp->gpus_per_replica = pgpr;
        pp->speed = rt->speed;
        pp->decode_tokens_per_s = rt->speed_tokps;
        pp->provision_s_mean = (rt->borrowable ? sim_ns_to_s(rt->grace_ns)
                                               : rt->provision_mean_s) +
                               sim_ns_to_s(w->scn->deploy.engine_init_ns);
        pp->preemptible = rt->preemptible;
        pp->borrowable = rt->borrowable;
        pp->priority = rt->priority;
    }
    for (int i = 0; i < n; i++) {
        struct pol_pool *pp = &w->snap_pools[w->snap_reps[i].pool];
        if (w->snap_reps[i].state == POL_RS_READY)
            pp->ready++;
        else if (w->snap_reps[i].state == POL_RS_PENDING)
            pp->pending++;
        else
            pp->draining++;
    }
    s->pools = w->snap_pools;
    s->npools = w->npools;
    if (w->mixed && role == CL_ROLE_BOTH) {
        /* Sizes in units of the first pool's replica (cl__orch_scale_to):
         * each replica counts its pool's speed. */
        double cr = 0, cp = 0, cd = 0;
        for (int i = 0; i < n; i++) {
            double sp = w->pools[w->snap_reps[i].pool].speed;
            if (w->snap_reps[i].state == POL_RS_READY)
                cr += sp;
            else if (w->snap_reps[i].state == POL_RS_PENDING)
                cp += sp;
            else
                cd += sp;
        }
        s->ready = (int)floor(cr + 0.5);
        s->pending = (int)floor(cr + cp + 0.5) - s->ready;
        s->draining = (int)floor(cd + 0.5);
    }
}

/* GPUs held by replicas serving or starting (not draining). O(slots). */
static int live_gpus(const struct cl_world *w)
{
    int n = 0;
    for (int i = 0; i < w->nreps; i++) {
        const struct cl_replica *rep = w->reps[i];
        if (rep->state == CL_R_SERVING || rep->state == CL_R_PROVISIONING ||
            rep->state == CL_R_LOADING)
            n += rep->gpus;
    }
    return n;
}

int cl__pool_room(const struct cl_world *w, int p)
{
    return w->pools[p].gpus - w->pools[p].owner_gpus - w->pools[p].gpus_live;
}

static int pool_has_room(const struct cl_world *w, int p, int gpus)
{
    return cl__pool_room(w, p) >= gpus;
}

/* The pool a new replica of role (its pool's GPUs, cl__pool_gpr()) should
 * come from: borrowable pools only when borrow is set (or nothing else has
 * room); otherwise the lowest priority, then the cheapest. A mixed
 * cluster's replica must also fit cluster.max_gpus with the live ones.
 * -1 when every pool is full. */
static int pick_pool(const struct cl_world *w, int borrow, int role)
{
    int best = -1;
    int room = w->mixed ? w->scn->cluster.max_gpus - live_gpus(w) : 0;
    for (int pass = 0; pass < 2 && best < 0; pass++) {
        int want_borrowable = borrow ? pass == 0 : pass == 1;
        for (int p = 0; p < w->npools; p++) {
            const struct cl_pool_rt *rt = &w->pools[p];
            int gpus = cl__pool_gpr(w, p, role);
            if (rt->borrowable != want_borrowable ||
                !pool_has_room(w, p, gpus) || (w->mixed && gpus > room))
                continue;
            if (best < 0 || rt->priority < w->pools[best].priority ||
                (rt->priority == w->pools[best].priority &&
                 rt->price < w->pools[best].price))
                best = p;
        }
    }
    return best;
}

/* Ranks a replica for removal: larger goes first. Pending before serving,
 * borrowed before owned, expensive before cheap, newest first. */
static double removal_rank(const struct cl_world *w,
                           const struct cl_replica *rep)
{
    double r = (double)rep->serial * 1e-12;
    if (rep->state == CL_R_PROVISIONING || rep->state == CL_R_LOADING)
        r += 4e6;
    if (rep->borrowed)
        r += 2e6;
    r += w->pools[rep->pool].price;
    return r;
}

/* The replicas of role serving or pending (CL_ROLE_BOTH: all). */
static int live_of(const struct cl_world *w, int role)
{
    int n = 0;
    if (role == CL_ROLE_BOTH)
        return w->n_serving + w->n_pending;
    for (int i = 0; i < w->nreps; i++) {
        const struct cl_replica *rep = w->reps[i];
        n += rep->role == role &&
             (rep->state == CL_R_SERVING || rep->state == CL_R_PROVISIONING ||
              rep->state == CL_R_LOADING);
    }
    return n;
}

/* The next replica to remove of role (CL_ROLE_BOTH: any): pending before
 * serving, borrowed before owned, expensive before cheap, newest first
 * (removal_rank()); NULL when none is live. */
static struct cl_replica *pick_victim(struct cl_world *w, int role)
{
    struct cl_replica *victim = NULL;
    for (int i = 0; i < w->nreps; i++) {
        struct cl_replica *rep = w->reps[i];
        if ((rep->state != CL_R_SERVING && rep->state != CL_R_PROVISIONING &&
             rep->state != CL_R_LOADING) ||
            (role != CL_ROLE_BOTH && rep->role != role))
            continue;
        if (victim == NULL || removal_rank(w, rep) > removal_rank(w, victim))
            victim = rep;
    }
    return victim;
}

/* A mixed cluster (w->mixed) to desired replicas of the first pool's
 * worth: adds replicas from the preferred pools while the live capacity
 * (the sum of their pools' speeds) is short of desired by more than half
 * a replica, or removes them in removal order while the capacity left
 * stays within half a replica of it, the serving ones draining as drain
 * (enum cl_drain) says. With every speed 1 this is the count rule of
 * scale_role(). */
static void scale_mixed(struct cl_world *w, double desired, int borrow,
                        int drain)
{
    double cap = 0;
    int changed = 0;
    struct cl_replica *victim;

    for (int i = 0; i < w->nreps; i++) {
        const struct cl_replica *rep = w->reps[i];
        if (rep->state == CL_R_SERVING || rep->state == CL_R_PROVISIONING ||
            rep->state == CL_R_LOADING)
            cap += w->pools[rep->pool].speed;
    }
    while (cap + 0.5 < desired) {
        int p = pick_pool(w, borrow > 0, CL_ROLE_BOTH);
        if (p < 0)
            break;
        if (w->pools[p].borrowable && borrow > 0)
            borrow--;
        cl__replica_request(w, p, 0, -1);
        cap += w->pools[p].speed;
        changed = 1;
    }
    while ((victim = pick_victim(w, CL_ROLE_BOTH)) != NULL &&
           cap - w->pools[victim->pool].speed + 0.5 >= desired &&
           cap - w->pools[victim->pool].speed > 1e-9) {
        cap -= w->pools[victim->pool].speed;
        if (victim->state == CL_R_SERVING)
            cl__replica_drain(w, victim, drain);
        else
            cl__replica_cancel(w, victim);
        changed = 1;
    }
    /* Scale to zero: the last replica goes when desired is 0. */
    if (desired < 0.5) {
        while ((victim = pick_victim(w, CL_ROLE_BOTH)) != NULL) {
            if (victim->state == CL_R_SERVING)
                cl__replica_drain(w, victim, drain);
            else
                cl__replica_cancel(w, victim);
            changed = 1;
        }
    }
    w->scale_events += changed;
}

/* The drain mode (enum cl_drain) of a decision's drain (enum pol_drain):
 * the policy's when it names one, else cluster.drain. */
static int drain_mode(const struct cl_world *w, int drain)
{
    if (drain == POL_DRAIN_MIGRATE)
        return CL_DRAIN_MIGRATE;
    if (drain == POL_DRAIN_FINISH)
        return CL_DRAIN_FINISH;
    return (int)w->scn->cluster.drain;
}

/* Scales the replicas of role (CL_ROLE_BOTH: all) to desired; the serving
 * replicas removed drain as drain (enum pol_drain) says. */
static void scale_role(struct cl_world *w, int role, int desired, int borrow,
                       int drain)
{
    int current = live_of(w, role);

    drain = drain_mode(w, drain);
    if (w->mixed && role == CL_ROLE_BOTH) {
        scale_mixed(w, (double)desired, borrow, drain);
        return;
    }
    if (desired == current)
        return;
    w->scale_events++;
    while (current < desired) {
        int p = pick_pool(w, borrow > 0, role);
        if (p < 0)
            break; /* every pool is full */
        if (w->pools[p].borrowable && borrow > 0)
            borrow--;
        if (role != CL_ROLE_BOTH)
            w->force_role = role;
        cl__replica_request(w, p, 0, -1);
        w->force_role = -1;
        current++;
    }
    while (current > desired) {
        struct cl_replica *victim = NULL;
        for (int i = 0; i < w->nreps; i++) {
            struct cl_replica *rep = w->reps[i];
            if ((rep->state != CL_R_SERVING &&
                 rep->state != CL_R_PROVISIONING &&
                 rep->state != CL_R_LOADING) ||
                (role != CL_ROLE_BOTH && rep->role != role))
                continue;
            if (victim == NULL ||
                removal_rank(w, rep) > removal_rank(w, victim))
                victim = rep;
        }
        if (victim == NULL)
            break;
        if (victim->state == CL_R_SERVING)
            cl__replica_drain(w, victim, drain);
        else
            cl__replica_cancel(w, victim);
        current--;
    }
}

void cl__orch_replace(struct cl_world *w, int role, int gpus)
{
    int p;

    if (!w->elastic || w->external)
        return;
    /* The owned pools first, as any scale-up; the policy corrects the
     * size at its next evaluation. */
    (void)gpus; /* the replacement takes its pool's replica size */
    p = pick_pool(w, 0, role);
    if (p < 0)
        return;
    if (w->pd)
        w->force_role = role;
    cl__replica_request(w, p, 0, -1);
    w->force_role = -1;
}

void cl__orch_arrive(struct cl_world *w)
{
    int64_t now = sim_loop_now(w->loop);
    int p;

    if (!w->elastic || w->external || w->pd || w->min_replicas > 0)
        return;
    if (w->n_serving == 0) {
        /* Arrivals relative to the first still waiting: the sum stays
         * small, and the waits come out exact when a replica serves. */
        if (w->cold_pending == 0)
            w->cold_first_ns = now;
        w->cold_rel_ns += (double)(now - w->cold_first_ns);
        w->cold_pending++;
        w->cold_waits++;
    }
    if (w->n_serving + w->n_pending > 0)
        return;
    p = pick_pool(w, 0, CL_ROLE_BOTH);
    if (p < 0)
        return; /* every pool is full: the next arrival asks again */
    cl__replica_request(w, p, 0, -1);
    w->scale_events++;
    if (w->desired < 1)
        w->desired = 1;
}

void cl__orch_served(struct cl_world *w)
{
    int64_t now = sim_loop_now(w->loop);

    if (w->cold_pending == 0)
        return;
    w->cold_wait_s_sum +=
        ((double)w->cold_pending * (double)(now - w->cold_first_ns) -
         w->cold_rel_ns) /
        SIM_NS_PER_S_F;
    w->cold_pending = 0;
    w->cold_rel_ns = 0;
}

void cl__orch_scale_to(struct cl_world *w, int desired, int borrow)
{
    scale_role(w, CL_ROLE_BOTH, desired, borrow, POL_DRAIN_DEFAULT);
}

/* Asks the policy of role for a size and reconciles that role: the whole
 * cluster, or one group of an elastic P/D deployment, each with its own
 * policy state and guard (Dynamo's planner sizes prefill and decode
 * workers separately). */
static void decide_role(struct cl_world *w, int role)
{
    struct pol_snapshot s;
    struct pol_decision dec;
    void *st =
        role == CL_ROLE_DECODE ? w->policy_state_decode : w->policy_state;
    struct pol_guard *g = role == CL_ROLE_DECODE ? &w->guard_decode : &w->guard;
    int rc, live;

    fill_snapshot(w, &s, role);
    dec.desired = s.ready + s.pending;
    dec.borrow = 0;
    dec.drain = POL_DRAIN_DEFAULT;
    rc = w->policy->ops->decide(st, &s, &dec);
    if (pol_guard_apply(g, &s, rc, &dec) == POL_GUARD_INVALID_METRICS)
        w->policy_holds++;
    /* A policy that holds (no data with no replica ready) keeps the
     * size as it is; the floor of scale to zero still applies. */
    if (role == CL_ROLE_BOTH && dec.desired < s.min_replicas)
        dec.desired = s.min_replicas;
    scale_role(w, role, dec.desired, dec.borrow, dec.drain);
    if (role == CL_ROLE_BOTH) {
        w->desired = dec.desired;
        return;
    }
    w->role_replicas[role] = dec.desired;
    live = live_of(w, role);
    if (live < w->role_seen_min[role])
        w->role_seen_min[role] = live;
    if (live > w->role_seen_max[role])
        w->role_seen_max[role] = live;
}

static void on_policy(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    int64_t now = sim_loop_now(loop);

    if (w->pd) {
        decide_role(w, CL_ROLE_PREFILL);
        decide_role(w, CL_ROLE_DECODE);
        w->desired = w->role_replicas[CL_ROLE_PREFILL] +
                     w->role_replicas[CL_ROLE_DECODE];
    } else {
        decide_role(w, CL_ROLE_BOTH);
    }

    /* Snapshot the counters for the next windows. */
    win_push(&w->cl_win, &w->cl_ctr, now, w->win_slots);
    for (int i = 0; i < w->nreps; i++)
        if (w->reps[i]->state != CL_R_GONE)
            win_push(&w->reps[i]->win, &w->reps[i]->ctr, now, w->win_slots);
    if (!w->source_done || w->live > 0)
        sim_loop_after(loop, ev, w->scn->policy.interval_ns);
}

/* The serving replica the i-th in start order (-1: the oldest), or NULL. */
static struct cl_replica *nth_serving(struct cl_world *w, int i)
{
    int rank = 0;
    /* Replicas in serial order: a simple selection over the table. */
    for (uint64_t serial = 0; serial < w->next_serial; serial++) {
        for (int k = 0; k < w->nreps; k++) {
            struct cl_replica *rep = w->reps[k];
            if (rep->serial != serial || rep->state != CL_R_SERVING)
                continue;
            if (i < 0 || rank == i)
                return rep;
            rank++;
        }
    }
    return NULL;
}

/* The index of the first GPU of replica slot: the slots before it hold
 * their replicas' GPUs in slot order (gpus_per_replica each, or each
 * group's under disaggregation, where a replacement takes its
 * predecessor's slot and group). O(slots). */
static int first_gpu(const struct cl_world *w, int slot)
{
    int n = 0;
    for (int k = 0; k < slot && k < w->nreps; k++)
        n += w->reps[k]->gpus;
    return n;
}

int cl__replica_node(const struct cl_world *w, const struct cl_replica *rep)
{
    int per_node = w->scn->hardware.gpus_per_node;
    int first = first_gpu(w, rep->slot);
    if (per_node < 1 || rep->gpus < 1 ||
        first / per_node != (first + rep->gpus - 1) / per_node)
        return -1;
    return first / per_node;
}

/* Fails every live replica whose first GPU is on target's first GPU's
 * node. O(slots^2), once per scripted node failure. */
static void fail_node_of(struct cl_world *w, struct cl_replica *target)
{
    int per_node = w->scn->hardware.gpus_per_node;
    int node = first_gpu(w, target->slot) / per_node;
    for (int k = 0; k < w->nreps; k++) {
        struct cl_replica *rep = w->reps[k];
        if (rep->state != CL_R_GONE &&
            first_gpu(w, rep->slot) / per_node == node)
            cl__replica_fail(w, rep);
    }
}

static void on_script(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    const struct cl_faults *f = &w->scn->faults;
    const struct cl_fault *ft = &f->scripted[w->next_script++];
    struct cl_replica *rep = nth_serving(w, ft->replica);

    if (rep != NULL) {
        if (ft->kind == CL_FAULT_NODE)
            fail_node_of(w, rep);
        else
            cl__replica_fail(w, rep);
    }
    if (w->next_script < f->nscripted) {
        int64_t at = f->scripted[w->next_script].at_ns;
        sim_loop_schedule(loop, ev,
                          at > sim_loop_now(loop) ? at : sim_loop_now(loop));
    }
}

/* GPUs the failure process draws from: every pool's capacity. */
static int fault_gpus(const struct cl_world *w)
{
    int n = 0;
    for (int p = 0; p < w->npools; p++)
        n += w->pools[p].gpus;
    return n;
}

static void schedule_mtbf(struct cl_world *w)
{
    double rate_per_s = (double)fault_gpus(w) / w->scn->faults.gpu_mtbf_s;
    double gap = gsl_ran_exponential(sim_loop_stream(w->loop, "failures"),
                                     1.0 / rate_per_s);
    sim_loop_after(w->loop, &w->mtbf_ev, sim_s_to_ns(gap));
}

static void on_mtbf(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    int gpus = fault_gpus(w);
    int gpu = (int)gsl_rng_uniform_int(sim_loop_stream(loop, "failures"),
                                       (unsigned long)gpus);
    int slot = 0, first = 0;

    /* GPU index g belongs to the slot whose GPUs hold it (first_gpu(); g /
     * gpus_per_replica when all are alike): fail it if it is live. */
    while (slot < w->nreps && gpu >= first + w->reps[slot]->gpus)
        first += w->reps[slot++]->gpus;
    if (slot < w->nreps && w->reps[slot]->state != CL_R_GONE)
        cl__replica_fail(w, w->reps[slot]);
    if (!w->source_done || w->live > 0)
        schedule_mtbf(w);
}

/* The strongest degradation active now (links are few: O(n)). */
static void on_link(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ((struct cl_link_ev *)ev)->w;
    const struct cl_faults *f = &w->scn->faults;
    int64_t now = sim_loop_now(loop);

    w->link_factor = 1.0;
    for (int i = 0; i < f->nlinks; i++) {
        const struct cl_link_fault *l = &f->links[i];
        if (l->at_ns <= now && now < l->at_ns + l->duration_ns &&
            l->factor < w->link_factor)
            w->link_factor = l->factor;
    }
}

int cl__orch_init(struct cl_world *w, struct sim_diag *d)
{
    const struct cl_scenario *s = w->scn;
    struct pol_guard_params gp;

    cl__counters_init(&w->cl_ctr);
    w->win_slots = (int)(s->policy.window_ns / s->policy.interval_ns) + 1;
    if (w->win_slots > CL_WIN_MAX)
        w->win_slots = CL_WIN_MAX;
    if (w->win_slots < 2)
        w->win_slots = 2;
    sim_event_init(&w->policy_ev, on_policy, w);
    sim_event_init(&w->mtbf_ev, on_mtbf, w);
    sim_event_init(&w->script_ev, on_script, w);
    w->link_factor = 1.0;
    if (s->faults.nlinks > 0) {
        w->link_evs =
            xcalloc((size_t)s->faults.nlinks * 2, sizeof(*w->link_evs));
        for (int i = 0; i < 2 * s->faults.nlinks; i++) {
            sim_event_init(&w->link_evs[i].ev, on_link, NULL);
            w->link_evs[i].w = w;
        }
    }
    if (!w->elastic)
        return 0;

    w->policy_params = cl__policy_params(w->policy, s, d);
    if (w->policy_params == NULL)
        return SIM_EINVAL;
    w->policy_state = w->policy->ops->create(w->policy_params);
    if (w->policy_state == NULL)
        sim_fatal("cannot create policy %s", w->policy->name);
    if (w->pd) {
        w->policy_state_decode = w->policy->ops->create(w->policy_params);
        if (w->policy_state_decode == NULL)
            sim_fatal("cannot create policy %s", w->policy->name);
    }
    memset(&gp, 0, sizeof(gp));
    gp.interval_s = sim_ns_to_s(s->policy.interval_ns);
    gp.scale_up_cooldown_s = sim_ns_to_s(s->policy.scale_up_cooldown_ns);
    gp.scale_down_cooldown_s = sim_ns_to_s(s->policy.scale_down_cooldown_ns);
    gp.max_step_up = s->policy.max_step_up;
    gp.max_step_down = s->policy.max_step_down;
    pol_guard_init(&w->guard, &gp);
    pol_guard_init(&w->guard_decode, &gp);
    return 0;
}

void cl__orch_start(struct cl_world *w)
{
    const struct cl_faults *f = &w->scn->faults;

    if (w->elastic) {
        /* Live replicas never outnumber the pools' capacity. */
        int n = 1, gpr = w->gpus_per_replica;
        if (w->pd)
            gpr = w->role_gpus[CL_ROLE_PREFILL] < w->role_gpus[CL_ROLE_DECODE]
                      ? w->role_gpus[CL_ROLE_PREFILL]
                      : w->role_gpus[CL_ROLE_DECODE];
        for (int p = 0; p < w->npools; p++)
            n += w->pools[p].gpus / (w->mixed ? w->pools[p].gpr : gpr);
        w->snap_reps = xcalloc((size_t)n, sizeof(*w->snap_reps));
        w->snap_pools = xcalloc((size_t)w->npools, sizeof(*w->snap_pools));
        w->desired = w->n_serving;
        /* A first snapshot at t = 0, so the first evaluation has a window. */
        win_push(&w->cl_win, &w->cl_ctr, 0, w->win_slots);
        for (int i = 0; i < w->nreps; i++)
            win_push(&w->reps[i]->win, &w->reps[i]->ctr, 0, w->win_slots);
        /* An external session decides the size itself
         * (cl_session_set_desired): the policy is never asked. */
        if (!w->external)
            sim_loop_after(w->loop, &w->policy_ev, w->scn->policy.interval_ns);
    }
    if (f->nscripted > 0)
        sim_loop_schedule(w->loop, &w->script_ev, f->scripted[0].at_ns);
    for (int i = 0; i < f->nlinks; i++) {
        sim_loop_schedule(w->loop, &w->link_evs[2 * i].ev, f->links[i].at_ns);
        sim_loop_schedule(w->loop, &w->link_evs[2 * i + 1].ev,
                          f->links[i].at_ns + f->links[i].duration_ns);
    }
    if (!isnan(f->gpu_mtbf_s) && f->gpu_mtbf_s > 0)
        schedule_mtbf(w);
    cl__reclaim_start(w);
}

void cl__orch_fini(struct cl_world *w)
{
    if (w->policy != NULL && w->policy_state != NULL)
        w->policy->ops->destroy(w->policy_state);
    if (w->policy != NULL && w->policy_state_decode != NULL)
        w->policy->ops->destroy(w->policy_state_decode);
    free(w->policy_params);
    free(w->snap_reps);
    free(w->snap_pools);
    free(w->link_evs);
    cl__reclaim_fini(w);
}
