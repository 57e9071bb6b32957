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
 */
#include <stdlib.h>

#include "models/cluster/cluster-int.h"
#include "sim/time.h"

struct cl_llm_replica {
    struct cl_world *w;
    struct sim_event iter_ev;
    int busy;
    int64_t iter_no; /* number of the in-flight (or next) iteration */

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

static void kick(struct cl_llm_replica *rep);

static int64_t load(const struct cl_llm_replica *rep)
{
    return (int64_t)rep->waiting.n + rep->nseqs;
}

static void admit(struct cl_llm_replica *rep)
{
    struct cl_world *w = rep->w;
    const struct cl_server *sv = &w->scn->server;
    int64_t cap = perf_kv_capacity_tokens(&w->perf);

    while (rep->waiting.head != NULL && rep->nseqs < sv->max_num_seqs) {
        struct cl_req *r = rep->waiting.head;
        int64_t need = r->prompt_tokens + r->output_tokens;
        if (rep->kv_reserved + need > cap)
            break; /* FCFS: the head waits for room; no overtaking */
        cl__fifo_pop(&rep->waiting);
        cl__set_waiting(w, -1);
        cl__set_running(w, +1);
        rep->kv_reserved += need;
        rep->nseqs++;
        r->start_ns = sim_loop_now(w->loop);
        r->prefilled = 0;
        cl__fifo_push(&rep->prefill, r);
    }
}

static void on_iteration_end(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_llm_replica *rep = ev->arg;
    struct cl_world *w = rep->w;
    int64_t now = sim_loop_now(loop);
    int64_t i = rep->iter_no;
    int64_t nchunks = rep->prefill_chunks;

    /* Every decoder of this iteration made one token. */
    rep->ctx_sum += rep->decode_in_flight;

    /* Decoders whose last token this was. */
    while (rep->decoding.n > 0 && rep->decoding.v[0].time_ns == i) {
        struct cl_req *r = (struct cl_req *)sim_heap_pop(&rep->decoding);
        rep->ctx_sum -= r->prompt_tokens + r->output_tokens;
        rep->kv_reserved -= r->prompt_tokens + r->output_tokens;
        rep->nseqs--;
        cl__set_running(w, -1);
        cl__complete(w, r);
    }

    /* Prefill chunks: the FCFS head requests got them, in order. */
    while (nchunks-- > 0) {
        struct cl_req *r = rep->prefill.head;
        r->prefilled += r->chunk;
        r->chunk = 0;
        if (r->prefilled < r->prompt_tokens)
            break; /* only the last chunk can be partial */
        cl__fifo_pop(&rep->prefill);
        r->first_token_ns = now;
        if (r->output_tokens <= 1) {
            rep->kv_reserved -= r->prompt_tokens + r->output_tokens;
            rep->nseqs--;
            cl__set_running(w, -1);
            cl__complete(w, r);
            continue;
        }
        rep->ctx_sum += r->prompt_tokens + 1;
        sim_heap_insert(&rep->decoding, &r->ev, i + r->output_tokens - 1,
                        rep->seq++);
    }

    rep->busy = 0;
    rep->iter_no++;
    kick(rep);
}

/* Starts the next iteration if there is work and none is in flight. */
static void kick(struct cl_llm_replica *rep)
{
    struct cl_world *w = rep->w;
    const struct cl_server *sv = &w->scn->server;
    struct perf_batch b = {0};
    int64_t budget = sv->max_num_batched_tokens;
    int64_t dt;

    if (rep->busy)
        return;
    admit(rep);
    b.decode_seqs = (int64_t)rep->decoding.n;
    b.decode_ctx_tokens = rep->ctx_sum;
    budget -= b.decode_seqs;
    rep->prefill_chunks = 0;
    for (struct cl_req *r = rep->prefill.head; r != NULL && budget > 0;
         r = r->next) {
        int64_t c = r->prompt_tokens - r->prefilled;
        if (c > budget)
            c = budget;
        r->chunk = c;
        budget -= c;
        b.prefill_tokens += c;
        b.prefill_ctx_tokens += r->prefilled;
        b.prefill_attn_pairs += (double)c * ((double)r->prefilled + c / 2.0);
        rep->prefill_chunks++;
    }
    if (b.decode_seqs == 0 && b.prefill_tokens == 0)
        return; /* idle until the next arrival */
    rep->decode_in_flight = b.decode_seqs;
    dt = perf_iteration_ns(&w->perf, &b);
    if (dt < 1)
        dt = 1;
    rep->busy = 1;
    sim_loop_after(w->loop, &rep->iter_ev, dt);
}

void cl__llm_init(struct cl_world *w)
{
    w->llm = xcalloc((size_t)w->replicas, sizeof(*w->llm));
    for (int k = 0; k < w->replicas; k++) {
        struct cl_llm_replica *rep = &w->llm[k];
        rep->w = w;
        sim_event_init(&rep->iter_ev, on_iteration_end, rep);
        sim_heap_init(&rep->decoding);
    }
}

void cl__llm_fini(struct cl_world *w)
{
    if (w->llm == NULL)
        return;
    for (int k = 0; k < w->replicas; k++)
        sim_heap_fini(&w->llm[k].decoding);
    free(w->llm);
    w->llm = NULL;
}

void cl__llm_arrive(struct cl_world *w, struct cl_req *r)
{
    struct cl_llm_replica *best = &w->llm[0];

    /* A request that could never fit the KV cache is dropped, not queued
     * forever. */
    if (r->prompt_tokens + r->output_tokens >
        perf_kv_capacity_tokens(&w->perf)) {
        w->dropped++;
        cl__req_free(w, r);
        return;
    }
    /* Join the shortest queue (waiting + admitted); ties to the lowest
     * index, so the choice is deterministic. O(replicas). */
    for (int k = 1; k < w->replicas; k++)
        if (load(&w->llm[k]) < load(best))
            best = &w->llm[k];
    cl__fifo_push(&best->waiting, r);
    cl__set_waiting(w, +1);
    kick(best);
}
