/*
 * LLM replicas with continuous batching, after vLLM's V1 scheduler (FACTS.md
 * §5.1): one token budget (max_num_batched_tokens) per iteration; running
 * decodes first, one token each; then prompt chunks (chunked prefill) of
 * admitted requests in FCFS order while the budget lasts; new requests are
 * admitted while max_num_seqs and the KV cache allow. The last prefill chunk
 * samples the first output token; each later iteration adds one token.
 *
 * KV admission reserves prompt + output tokens up front (Orca-style), so no
 * request ever runs out of cache and no preemption is needed. It is more
 * conservative than vLLM's paged allocation with recompute preemption, which
 * comes with the serving-engine issue. TODO(#4): paged KV, preemption.
 *
 * Cost per iteration is O(1) plus O(log n) per request that joins or leaves
 * the decode set plus O(1) per prefill chunk: decoding requests are never
 * visited one by one. A request that enters decode after iteration i with
 * `output` tokens to make finishes at the end of iteration i + output - 1,
 * so it sits in a per-replica heap keyed by that iteration number, and the
 * summed decode context grows by the number of decoders each iteration.
 * One event per replica iteration.
 *
 * Replicas come and go (the orchestrator): arrivals are routed by
 * join-shortest-queue over serving replicas only; with none serving they
 * wait in the cluster's holding queue. A draining replica hands back the
 * requests it has not admitted; a failed one hands back everything, and
 * requests it was serving start again (their KV is lost).
 */
#include <math.h>
#include <stdlib.h>

#include "models/cluster/cluster-int.h"
#include "sim/time.h"

struct cl_llm_replica {
    struct cl_replica *rep;
    const struct perf_replica *perf; /* of the replica's pool */
    struct sim_event iter_ev;
    int stepping;    /* an iteration is in flight */
    int64_t iter_no; /* number of the in-flight (or next) iteration */
    int64_t iter_start_ns;

    struct cl_fifo waiting;   /* routed here, not admitted */
    struct cl_fifo prefill;   /* admitted, prompt not fully processed */
    struct sim_heap decoding; /* keyed by the iteration they finish in */
    uint64_t seq;

    int64_t nseqs;            /* admitted requests (prefill + decode) */
    int64_t kv_reserved;      /* tokens reserved in the KV cache */
    int64_t ctx_sum;          /* summed context of decoding requests */
    int64_t decode_in_flight; /* decoders in the in-flight iteration */
    int64_t prefill_chunks;   /* chunks in the in-flight iteration */
};

static void kick(struct cl_llm_replica *e);

static int64_t load(const struct cl_llm_replica *e)
{
    return (int64_t)e->waiting.n + e->nseqs;
}

static void update_busy(struct cl_llm_replica *e)
{
    cl__replica_set_busy(e->rep->w, e->rep, load(e) > 0);
}

static void admit(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    const struct cl_server *sv = &w->scn->server;
    int64_t cap = perf_kv_capacity_tokens(e->perf);

    while (e->waiting.head != NULL && e->nseqs < sv->max_num_seqs) {
        struct cl_req *r = e->waiting.head;
        int64_t need = r->prompt_tokens + r->output_tokens;
        if (e->kv_reserved + need > cap)
            break; /* FCFS: the head waits for room; no overtaking */
        cl__fifo_pop(&e->waiting);
        cl__set_waiting(w, -1);
        cl__set_running(w, +1);
        e->kv_reserved += need;
        e->nseqs++;
        if (r->retries == 0 || r->start_ns < 0)
            r->start_ns = sim_loop_now(w->loop);
        r->prefilled = 0;
        cl__fifo_push(&e->prefill, r);
    }
}

static void finish(struct cl_llm_replica *e, struct cl_req *r)
{
    struct cl_world *w = e->rep->w;
    e->kv_reserved -= r->prompt_tokens + r->output_tokens;
    e->nseqs--;
    e->rep->ctr.completed++;
    w->cl_ctr.completed++;
    cl__set_running(w, -1);
    cl__complete(w, r);
}

static void on_iteration_end(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_llm_replica *e = ev->arg;
    struct cl_replica *rep = e->rep;
    struct cl_world *w = rep->w;
    int64_t now = sim_loop_now(loop);
    int64_t i = e->iter_no;
    int64_t nchunks = e->prefill_chunks;
    uint64_t tokens = (uint64_t)e->decode_in_flight;
    double itl_s = sim_ns_to_s(now - e->iter_start_ns);

    /* Every decoder of this iteration made one token, one inter-token
     * interval each: one histogram update for all of them. */
    e->ctx_sum += e->decode_in_flight;
    if (e->decode_in_flight > 0 && w->elastic) {
        pol_ph_add_n(&rep->ctr.itl, itl_s, (uint64_t)e->decode_in_flight);
        pol_ph_add_n(&w->cl_ctr.itl, itl_s, (uint64_t)e->decode_in_flight);
    }

    /* Decoders whose last token this was. */
    while (e->decoding.n > 0 && e->decoding.v[0].time_ns == i) {
        struct cl_req *r = (struct cl_req *)sim_heap_pop(&e->decoding);
        e->ctx_sum -= r->prompt_tokens + r->output_tokens;
        finish(e, r);
    }

    /* Prefill chunks: the FCFS head requests got them, in order. */
    while (nchunks-- > 0) {
        struct cl_req *r = e->prefill.head;
        r->prefilled += r->chunk;
        rep->ctr.prompt_tokens += (uint64_t)r->chunk;
        w->cl_ctr.prompt_tokens += (uint64_t)r->chunk;
        r->chunk = 0;
        if (r->prefilled < r->prompt_tokens)
            break; /* only the last chunk can be partial */
        cl__fifo_pop(&e->prefill);
        r->first_token_ns = now;
        tokens++;
        if (w->elastic) {
            /* Only a policy reads these: static clusters skip them. */
            double ttft_s = sim_ns_to_s(now - r->arrival_ns);
            pol_ph_add_n(&rep->ctr.ttft, ttft_s, 1);
            pol_ph_add_n(&w->cl_ctr.ttft, ttft_s, 1);
        }
        if (r->output_tokens <= 1) {
            finish(e, r);
            continue;
        }
        e->ctx_sum += r->prompt_tokens + 1;
        sim_heap_insert(&e->decoding, &r->ev, i + r->output_tokens - 1,
                        e->seq++);
    }
    rep->ctr.output_tokens += tokens;
    w->cl_ctr.output_tokens += tokens;

    e->stepping = 0;
    e->iter_no++;
    if (rep->state == CL_R_DRAINING && e->nseqs == 0 && e->waiting.n == 0) {
        update_busy(e);
        cl__replica_drained(w, rep);
        return;
    }
    kick(e);
    update_busy(e);
}

/* Starts the next iteration if there is work and none is in flight. */
static void kick(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    const struct cl_server *sv = &w->scn->server;
    struct perf_batch b = {0};
    int64_t budget = sv->max_num_batched_tokens;
    int64_t dt;

    if (e->stepping)
        return;
    admit(e);
    b.decode_seqs = (int64_t)e->decoding.n;
    b.decode_ctx_tokens = e->ctx_sum;
    budget -= b.decode_seqs;
    e->prefill_chunks = 0;
    for (struct cl_req *r = e->prefill.head; r != NULL && budget > 0;
         r = r->next) {
        int64_t c = r->prompt_tokens - r->prefilled;
        if (c > budget)
            c = budget;
        r->chunk = c;
        budget -= c;
        b.prefill_tokens += c;
        b.prefill_ctx_tokens += r->prefilled;
        b.prefill_attn_pairs += (double)c * ((double)r->prefilled + c / 2.0);
        b.prefill_seqs++;
        if (r->prefilled + c == r->prompt_tokens)
            b.prefill_done_seqs++; /* samples its first token */
        e->prefill_chunks++;
    }
    if (b.decode_seqs == 0 && b.prefill_tokens == 0)
        return; /* idle until the next arrival */
    e->decode_in_flight = b.decode_seqs;
    dt = perf_iteration_ns(e->perf, &b);
    if (w->link_factor < 1.0) {
        /* A degraded link: the all-reduce term takes 1/factor as long.
         * The breakdown is computed only then, off the common path. */
        struct perf_breakdown br;
        perf_iteration_breakdown(e->perf, &b, &br);
        dt += (int64_t)llround(br.comm_ns * (1.0 / w->link_factor - 1.0));
    }
    if (dt < 1)
        dt = 1;
    e->stepping = 1;
    e->iter_start_ns = sim_loop_now(w->loop);
    sim_loop_after(w->loop, &e->iter_ev, dt);
}

void cl__llm_ready(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = xcalloc(1, sizeof(*e));
    e->rep = rep;
    e->perf = &w->pools[rep->pool].perf;
    sim_event_init(&e->iter_ev, on_iteration_end, e);
    sim_heap_init(&e->decoding);
    rep->llm = e;
    /* Requests held while no replica served go out now. */
    while (w->queue.head != NULL) {
        struct cl_req *r = cl__fifo_pop(&w->queue);
        cl__set_waiting(w, -1);
        cl__llm_arrive(w, r);
    }
}

void cl__llm_free(struct cl_replica *rep)
{
    if (rep == NULL || rep->llm == NULL)
        return;
    sim_heap_fini(&rep->llm->decoding);
    free(rep->llm);
    rep->llm = NULL;
}

/* Hands every request of fifo q back to the router. */
static void reroute(struct cl_world *w, struct cl_fifo *q, int was_waiting)
{
    struct cl_req *r;
    while ((r = cl__fifo_pop(q)) != NULL) {
        if (was_waiting)
            cl__set_waiting(w, -1);
        cl__llm_arrive(w, r);
    }
}

void cl__llm_drain(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = rep->llm;
    reroute(w, &e->waiting, 1);
    update_busy(e);
    if (e->nseqs == 0 && !e->stepping)
        cl__replica_drained(w, rep);
}

/* A request that lost its replica starts over elsewhere; its arrival time
 * stays, so the failure shows in its latency. */
static void restart(struct cl_world *w, struct cl_req *r)
{
    r->prefilled = 0;
    r->chunk = 0;
    r->first_token_ns = -1;
    r->retries++;
    w->retried++;
    cl__set_running(w, -1);
    cl__llm_arrive(w, r);
}

void cl__llm_fail(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = rep->llm;
    struct cl_req *r;

    sim_loop_cancel(w->loop, &e->iter_ev);
    reroute(w, &e->waiting, 1);
    while ((r = cl__fifo_pop(&e->prefill)) != NULL)
        restart(w, r);
    while ((r = (struct cl_req *)sim_heap_pop(&e->decoding)) != NULL)
        restart(w, r);
    e->nseqs = 0;
    e->kv_reserved = 0;
    e->ctx_sum = 0;
    cl__replica_set_busy(w, rep, 0);
    cl__llm_free(rep);
}

void cl__llm_gauges(const struct cl_replica *rep, double *running,
                    double *waiting, double *kv_usage)
{
    const struct cl_llm_replica *e = rep->llm;
    if (e == NULL) {
        *running = *waiting = *kv_usage = 0;
        return;
    }
    *running = (double)e->nseqs;
    *waiting = (double)e->waiting.n;
    *kv_usage =
        (double)e->kv_reserved / (double)perf_kv_capacity_tokens(e->perf);
}

void cl__llm_arrive(struct cl_world *w, struct cl_req *r)
{
    struct cl_llm_replica *best = NULL;
    int64_t need = r->prompt_tokens + r->output_tokens;

    /* Join the shortest queue (waiting + admitted) among serving replicas
     * whose KV cache can hold the request; ties to the lowest slot, so the
     * choice is deterministic. O(replicas). */
    for (int k = 0; k < w->nreps; k++) {
        struct cl_replica *rep = w->reps[k];
        if (rep->state != CL_R_SERVING ||
            need > perf_kv_capacity_tokens(&w->pools[rep->pool].perf))
            continue;
        if (best == NULL || load(rep->llm) < load(best))
            best = rep->llm;
    }
    r->rep = NULL;
    if (best == NULL) {
        /* Nothing can serve it now: hold it until a replica is ready. */
        cl__fifo_push(&w->queue, r);
        cl__set_waiting(w, +1);
        return;
    }
    r->rep = best->rep;
    cl__fifo_push(&best->waiting, r);
    cl__set_waiting(w, +1);
    kick(best);
    update_busy(best);
}
