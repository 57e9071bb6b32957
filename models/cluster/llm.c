/*
 * LLM replicas with continuous batching, after vLLM's V1 scheduler (FACTS.md
 * §5.1): one token budget (max_num_batched_tokens) per iteration; running
 * decodes first, one token each; then prompt chunks (chunked prefill) of
 * admitted requests in FCFS order while the budget lasts; new requests are
 * admitted while max_num_seqs and the KV cache allow. The last prefill chunk
 * samples the first output token; each later iteration adds one token.
 *
 * The KV cache is paged (vLLM's PagedAttention): capacity is
 * floor(KV tokens / block_tokens) blocks and a request holds
 * ceil(tokens in cache / block_tokens) blocks, growing as prefill chunks and
 * output tokens are computed. The last output token's KV is never written,
 * so a request peaks at ceil((prompt + output - 1) / block_tokens) blocks.
 * A waiting request is admitted (FCFS) when the blocks of its first chunk
 * fit. When a running request cannot grow, the newest running request is
 * preempted by recompute (vLLM V1, FACTS.md §5.1): its blocks are freed, it
 * goes back to the head of the waiting queue, and its prefill later covers
 * the prompt plus the tokens it had generated. Swap to host memory (vLLM V0)
 * is not simulated. TODO(#4): swap preemption.
 *
 * Cost per iteration is O(1) plus O(log n) per request that joins or leaves
 * the decode set plus O(1) per prefill chunk: decoding requests are never
 * visited one by one. A request that enters decode after iteration i with
 * `output` tokens to make finishes at the end of iteration i + output - 1,
 * so it sits in a per-replica heap keyed by that iteration number, and the
 * summed decode context grows by the number of decoders each iteration.
 * One event per replica iteration. Decode growth is O(1) too: a decoder
 * needs a new block in iteration j exactly when its cache holds a multiple
 * of block_tokens tokens before j, which for every decoder recurs every
 * block_tokens iterations, so decoders are counted by that phase
 * (iteration number mod block_tokens) and iteration j needs
 * phase_n[j mod block_tokens] new blocks. A preemption costs O(log n), plus
 * O(prefilling requests) when it hits one.
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

    int64_t nseqs; /* admitted requests (prefill + decode) */
    /* Paged KV cache. */
    int64_t block_tokens;
    int64_t cap_blocks;
    int64_t blocks_used; /* held, with this iteration's decode growth */
    int64_t *phase_n;    /* [k]: decoders that grow when iter_no % B == k */
    int grown;           /* this iteration's decode growth is in blocks_used */
    struct cl_req *run_head; /* admitted requests, oldest first */
    struct cl_req *run_tail;
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

static int64_t blocks_of(const struct cl_llm_replica *e, int64_t tokens)
{
    return (tokens + e->block_tokens - 1) / e->block_tokens;
}

int64_t cl__llm_kv_peak_tokens(const struct cl_req *r)
{
    return r->prompt_tokens + (r->output_tokens > 1 ? r->output_tokens : 1) - 1;
}

int64_t cl__llm_kv_cap_tokens(const struct cl_server *sv,
                              const struct perf_replica *perf)
{
    int64_t b = sv->block_tokens > 0 ? sv->block_tokens : 16;
    return perf_kv_capacity_tokens(perf) / b * b;
}

/* The growth phase of decoder r: it needs a new block in iteration j iff
 * j % B equals this. Before iteration j > dec_iter its cache holds
 * prompt + gen_tokens + (j - dec_iter - 1) - 1 tokens. */
static int64_t phase_of(const struct cl_llm_replica *e, const struct cl_req *r)
{
    int64_t k =
        (r->dec_iter + 2 - r->prompt_tokens - r->gen_tokens) % e->block_tokens;
    return k < 0 ? k + e->block_tokens : k;
}

/* Output tokens decoder r has made before iteration iter_no runs. */
static int64_t decoded(const struct cl_llm_replica *e, const struct cl_req *r)
{
    return r->gen_tokens + (e->iter_no - r->dec_iter - 1);
}

static void run_append(struct cl_llm_replica *e, struct cl_req *r)
{
    r->run_next = NULL;
    r->run_prev = e->run_tail;
    if (e->run_tail != NULL)
        e->run_tail->run_next = r;
    else
        e->run_head = r;
    e->run_tail = r;
}

static void run_unlink(struct cl_llm_replica *e, struct cl_req *r)
{
    if (r->run_prev != NULL)
        r->run_prev->run_next = r->run_next;
    else
        e->run_head = r->run_next;
    if (r->run_next != NULL)
        r->run_next->run_prev = r->run_prev;
    else
        e->run_tail = r->run_prev;
    r->run_prev = r->run_next = NULL;
}

/* Removes r from the prefill FIFO. O(prefilling requests); only a
 * preemption needs it. */
static void prefill_unlink(struct cl_llm_replica *e, struct cl_req *r)
{
    struct cl_req *p = NULL;
    for (struct cl_req *q = e->prefill.head; q != r; q = q->next)
        p = q;
    if (p != NULL)
        p->next = r->next;
    else
        e->prefill.head = r->next;
    if (e->prefill.tail == r)
        e->prefill.tail = p;
    r->next = NULL;
    e->prefill.n--;
}

/* Preempts running request r by recompute: frees its blocks and puts it at
 * the head of the waiting queue with the tokens it has made, which its
 * next prefill computes again. Only called before an iteration starts. */
static void preempt(struct cl_llm_replica *e, struct cl_req *r)
{
    struct cl_world *w = e->rep->w;

    if (r->dec_iter >= 0) {
        int64_t gen = decoded(e, r);
        e->phase_n[phase_of(e, r)]--;
        sim_heap_remove(&e->decoding, &r->ev);
        e->ctx_sum -= r->prompt_tokens + gen;
        e->blocks_used -= blocks_of(e, r->prompt_tokens + gen - 1 + e->grown);
        r->gen_tokens = gen;
        r->dec_iter = -1;
    } else {
        prefill_unlink(e, r);
        e->blocks_used -= r->kv_blocks;
    }
    run_unlink(e, r);
    r->kv_blocks = 0;
    r->prefilled = 0;
    r->chunk = 0;
    r->npreempt++;
    e->nseqs--;
    w->preemptions++;
    cl__set_running(w, -1);
    cl__fifo_push_front(&e->waiting, r);
    cl__set_waiting(w, +1);
}

static void admit(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    const struct cl_server *sv = &w->scn->server;

    while (e->waiting.head != NULL && e->nseqs < sv->max_num_seqs) {
        struct cl_req *r = e->waiting.head;
        int64_t first = r->prompt_tokens + r->gen_tokens;
        int64_t need;
        if (first > sv->max_num_batched_tokens)
            first = sv->max_num_batched_tokens;
        need = blocks_of(e, first);
        if (e->blocks_used + need > e->cap_blocks)
            break; /* FCFS: the head waits for room; no overtaking */
        cl__fifo_pop(&e->waiting);
        cl__set_waiting(w, -1);
        cl__set_running(w, +1);
        e->blocks_used += need;
        r->kv_blocks = need;
        e->nseqs++;
        run_append(e, r);
        if ((r->retries == 0 && r->npreempt == 0) || r->start_ns < 0)
            r->start_ns = sim_loop_now(w->loop);
        r->prefilled = 0;
        r->dec_iter = -1;
        cl__fifo_push(&e->prefill, r);
    }
}

static void finish(struct cl_llm_replica *e, struct cl_req *r, int64_t blocks)
{
    struct cl_world *w = e->rep->w;
    e->blocks_used -= blocks;
    run_unlink(e, r);
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

    /* Decoders whose last token this was; the last token's KV is never
     * written. */
    while (e->decoding.n > 0 && e->decoding.v[0].time_ns == i) {
        struct cl_req *r = (struct cl_req *)sim_heap_pop(&e->decoding);
        e->ctx_sum -= r->prompt_tokens + r->output_tokens;
        e->phase_n[phase_of(e, r)]--;
        finish(e, r, blocks_of(e, r->prompt_tokens + r->output_tokens - 1));
    }

    /* Prefill chunks: the FCFS head requests got them, in order. */
    while (nchunks-- > 0) {
        struct cl_req *r = e->prefill.head;
        int64_t target = r->prompt_tokens + r->gen_tokens;
        r->prefilled += r->chunk;
        rep->ctr.prompt_tokens += (uint64_t)r->chunk;
        w->cl_ctr.prompt_tokens += (uint64_t)r->chunk;
        r->chunk = 0;
        if (r->prefilled < target)
            break; /* only the last chunk can be partial */
        cl__fifo_pop(&e->prefill);
        tokens++;
        r->gen_tokens++;
        if (r->first_token_ns < 0) {
            r->first_token_ns = now;
            if (w->elastic) {
                /* Only a policy reads these: static clusters skip them. */
                double ttft_s = sim_ns_to_s(now - r->arrival_ns);
                pol_ph_add_n(&rep->ctr.ttft, ttft_s, 1);
                pol_ph_add_n(&w->cl_ctr.ttft, ttft_s, 1);
            }
        }
        if (r->gen_tokens >= r->output_tokens) {
            finish(e, r, r->kv_blocks);
            continue;
        }
        e->ctx_sum += target + 1;
        r->dec_iter = i;
        e->phase_n[phase_of(e, r)]++;
        sim_heap_insert(&e->decoding, &r->ev,
                        i + r->output_tokens - r->gen_tokens, e->seq++);
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

/* Starts the next iteration if there is work and none is in flight:
 * reserves the decoders' growth, admits, then schedules prompt chunks,
 * preempting the newest running request whenever blocks run out. */
static void kick(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    const struct cl_server *sv = &w->scn->server;
    struct perf_batch b = {0};
    int64_t budget = sv->max_num_batched_tokens;
    int64_t *grow;
    int64_t dt;

    if (e->stepping)
        return;
    grow = &e->phase_n[e->iter_no % e->block_tokens];
    e->grown = 0;
    while (*grow > 0 && e->blocks_used + *grow > e->cap_blocks)
        preempt(e, e->run_tail);
    e->blocks_used += *grow;
    e->grown = 1;
    admit(e);
    budget -= (int64_t)e->decoding.n;
    e->prefill_chunks = 0;
    for (struct cl_req *r = e->prefill.head; r != NULL && budget > 0;
         r = r->next) {
        int64_t target = r->prompt_tokens + r->gen_tokens;
        int64_t c = target - r->prefilled;
        int64_t need;
        if (c > budget)
            c = budget;
        need = blocks_of(e, r->prefilled + c) - r->kv_blocks;
        if (need > 0) {
            struct cl_req *v = NULL;
            while (e->blocks_used + need > e->cap_blocks && v != r) {
                v = e->run_tail;
                preempt(e, v);
            }
            if (v == r)
                break; /* it and every newer request were preempted */
            e->blocks_used += need;
            r->kv_blocks += need;
        }
        r->chunk = c;
        budget -= c;
        b.prefill_tokens += c;
        b.prefill_ctx_tokens += r->prefilled;
        b.prefill_attn_pairs += (double)c * ((double)r->prefilled + c / 2.0);
        b.prefill_seqs++;
        if (r->prefilled + c == target)
            b.prefill_done_seqs++; /* samples its next token */
        e->prefill_chunks++;
    }
    /* Preemptions above may have removed decoders. */
    b.decode_seqs = (int64_t)e->decoding.n;
    b.decode_ctx_tokens = e->ctx_sum;
    if (b.decode_seqs == 0 && b.prefill_tokens == 0)
        return; /* idle until the next arrival */
    e->decode_in_flight = b.decode_seqs;
    /* Blocks only shrink between kicks, so this sees every peak. */
    if (e->blocks_used > w->kv_blocks_peak)
        w->kv_blocks_peak = e->blocks_used;
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
    const struct cl_server *sv = &w->scn->server;
    e->rep = rep;
    e->perf = &w->pools[rep->pool].perf;
    e->block_tokens = sv->block_tokens > 0 ? sv->block_tokens : 16;
    e->cap_blocks = perf_kv_capacity_tokens(e->perf) / e->block_tokens;
    e->phase_n = xcalloc((size_t)e->block_tokens, sizeof(*e->phase_n));
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
    free(rep->llm->phase_n);
    free(rep->llm);
    rep->llm = NULL;
}

int64_t cl__llm_blocks_used(const struct cl_replica *rep)
{
    return rep->llm != NULL ? rep->llm->blocks_used : 0;
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
    r->gen_tokens = 0;
    r->dec_iter = -1;
    r->kv_blocks = 0;
    r->run_prev = r->run_next = NULL;
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
    /* Preempted requests in the waiting queue keep their tokens: they
     * were going to recompute them anyway. */
    reroute(w, &e->waiting, 1);
    while ((r = cl__fifo_pop(&e->prefill)) != NULL)
        restart(w, r);
    while ((r = (struct cl_req *)sim_heap_pop(&e->decoding)) != NULL)
        restart(w, r);
    e->nseqs = 0;
    e->blocks_used = 0;
    e->run_head = e->run_tail = NULL;
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
    /* vLLM's kv_cache_usage_perc: blocks in use over blocks. */
    *kv_usage =
        e->cap_blocks > 0 ? (double)e->blocks_used / (double)e->cap_blocks : 0;
}

void cl__llm_arrive(struct cl_world *w, struct cl_req *r)
{
    struct cl_llm_replica *best = NULL;
    int64_t need = cl__llm_kv_peak_tokens(r);

    /* Join the shortest queue (waiting + admitted) among serving replicas
     * whose KV cache can hold the request at its peak; ties to the lowest
     * slot, so the choice is deterministic. O(replicas). */
    for (int k = 0; k < w->nreps; k++) {
        struct cl_replica *rep = w->reps[k];
        if (rep->state != CL_R_SERVING ||
            need > cl__llm_kv_cap_tokens(&w->scn->server,
                                         &w->pools[rep->pool].perf))
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
