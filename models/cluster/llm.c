/*
 * LLM replicas with continuous batching, after vLLM's V1 scheduler
 * (docs/sources.md §5.1): one token budget (max_num_batched_tokens) per
 * iteration; running decodes first, one token each; then prompt chunks (chunked
 * prefill) of admitted requests in FCFS order while the budget lasts; new
 * requests are admitted while max_num_seqs and the KV cache allow. The last
 * prefill chunk samples the first output token; each later iteration adds one
 * token.
 *
 * The KV cache is paged (vLLM's PagedAttention): capacity is
 * floor(KV tokens / block_tokens) blocks and a request holds
 * ceil(tokens in cache / block_tokens) blocks, growing as prefill chunks and
 * output tokens are computed. The last output token's KV is never written,
 * so a request peaks at ceil((prompt + output - 1) / block_tokens) blocks.
 * A waiting request is admitted (FCFS) when the blocks of its first chunk
 * fit. When a running request cannot grow, the newest running request is
 * preempted by recompute (vLLM V1, docs/sources.md §5.1): its blocks are freed,
 * it goes back to the head of the waiting queue, and its prefill later covers
 * the prompt plus the tokens it had generated. With server.preemption swap
 * (vLLM V0) its KV is copied to host memory instead, within the swap space,
 * and copied back when it is admitted again; it then resumes where it was
 * (recompute when the swap space is full).
 *
 * Prefix caching (server.prefix_caching, vLLM V1's automatic prefix
 * caching; docs/sources.md §5.1): full prompt blocks have hashes (from the
 * source's block_hashes, kvcache.h) and live in a per-replica table with
 * reference counts. blocks_used counts the blocks requests hold, a shared
 * block once; blocks nobody holds stay cached on an LRU list and count as
 * free: they are evicted, least recently used first, whenever blocks_used
 * plus cached blocks would exceed the capacity. At admission the longest
 * chain of cached blocks of the prompt is taken (referenced) and its
 * tokens are not prefilled again (at least one token is, to sample from);
 * the attention of the remaining chunks still reads the whole context.
 * When its prompt is complete a request's own hashed blocks join the
 * table (a block another request registered meanwhile is shared and the
 * duplicate freed). Without hashes, workload.prefix_hit_rate makes that
 * fraction of each prompt (whole blocks) a hit, with no sharing.
 *
 * KV offload (cluster.kv_cache_offload): an evicted cached block is copied
 * to the replica's host-memory tier (LRU, server.kv_offload.host) and, when
 * that evicts, to the remote tier shared by all replicas (optional). A hit
 * in a lower tier is fetched back into a new GPU block. Transfers cost
 * alpha + bytes / (efficiency x bandwidth) per GPU (docs/sources.md §3.1) over
 * the GPU's PCIe link (host) or the RDMA link (remote), each GPU moving its own
 * share in parallel; the fetches and swaps that an iteration needs are added to
 * that iteration's time (not overlapped with compute; host and remote links run
 * in parallel), while offload writes are taken as asynchronous (off the
 * critical path, counted in bytes only).
 *
 * Tiered KV (server.preemption auto, the default, with
 * cluster.kv_cache_offload): a preempted request's KV moves down instead
 * of being dropped when copying it out and back costs less than
 * recomputing it (the prefill of its context on this replica, marginal
 * over a decode step; docs/serving.md "Tiered KV"): to the replica's host
 * memory (server.kv_offload.host, shared with offloaded prefix blocks,
 * which are evicted to make room: a paused request's blocks are pinned
 * until it resumes) or, when host memory is full of paused requests, to
 * the remote tier over RDMA; with no room anywhere it is recomputed. The
 * copy out delays the iteration that preempts (the GPU blocks are reused
 * at once); the copy back is a prefetch loaded layer by layer ahead of
 * the layer's compute, as LMCache's layerwise retrieval does, so the
 * iteration that resumes the request lasts max(compute, transfer): only
 * the part of the transfer the compute does not hide is a stall.
 *
 * Live migration (cluster.drain: migrate, or a scaling decision's drain
 * mode for the replicas it removes), after Llumnix (Sun et al.,
 * OSDI 2024): a replica told to drain hands back what waits and copies the
 * KV of every admitted request to other replicas while it keeps serving
 * them (pre-copy), then stops them at the next iteration boundary and
 * copies what they computed meanwhile (stop-and-copy, the downtime); they
 * resume on the least loaded serving replica of their role where their
 * KV landed, without recomputing it. The KV crosses the scale-out link
 * (deploy.disaggregation.kv_link), each GPU of the source sending its
 * share. With no other replica serving, the drain finishes its requests
 * in place. One event per drain plus one per moved request.
 *
 * cluster.rebalance moves one request at a time the same way, for load
 * balancing and de-fragmentation as Llumnix does: every interval, the
 * replica with the least free KV, counting the blocks its queue's head
 * needs as used (Llumnix's virtual usage of the head-of-line request),
 * sends its newest decoding request, the one it would preempt first, to
 * the replica with the most, when their free fractions differ by
 * rebalance_gap. O(replicas) per tick.
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
 * phase_n[j mod block_tokens] new blocks. A preemption costs O(log n).
 *
 * Replicas come and go (the orchestrator): arrivals are routed by
 * join-shortest-queue over serving replicas only; with none serving they
 * wait in the cluster's holding queue. A draining replica hands back the
 * requests it has not admitted; a failed one hands back everything, and
 * requests it was serving start again (their KV is lost).
 */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "models/cluster/kvcache.h"
#include "models/gpu/gpu.h"
#include "models/net/net.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* A replica's decoders by the iteration they finish in, then by the order
 * they joined: v[lo .. lo + n - 1], sorted that way. The first to finish
 * leave from the front in O(1); a new one's place is found from the back
 * (it usually finishes after most) and those after it move up one. At the
 * few dozen decoders of a replica that costs less than a heap's sift down
 * at every finish (the event queue's 4-ary heap held them before, with
 * the order of joining as its sequence numbers: the same order). */
struct dec_slot {
    int64_t iter;
    struct cl_req *r;
};

struct dec_set {
    struct dec_slot *v;
    size_t lo, n, cap;
};

/* The engine's world state (w->engine_state). */
struct llm_world {
    struct cl_kv_world kv; /* prefix cache, offload, swap, P/D (kvcache.h) */
    struct cl_world *w;
    struct sim_event reb_ev; /* cluster.rebalance's tick */
    int reb_started;
    int64_t kv_blocks_peak; /* most KV blocks one replica held */
    uint64_t preemptions;   /* running requests whose KV was dropped */
    /* GPU time of the iterations, by phase (GPU-ns): a step of prompts
     * only is prefill, one of decoders only decode; a mixed step gives
     * prefill the time it took beyond a decode-only step of the same
     * decoders (the marginal cost of its chunks), decode the rest. */
    double prefill_gpu_ns, decode_gpu_ns;
    /* A drain has migrated: cluster.drain: migrate, or a scaling
     * decision's own drain mode (mig_enable()). From then on every
     * replica admits through admit(), which takes moved KV. */
    int mig_on;
    /* Fast-forward (ff_start()): allowed in this world (decided with the
     * first replica), and the replicas with a window, in no order. */
    int ff_ok, ff_decided;
    struct cl_llm_replica **ff_list;
    /* ff_due[i]: when ff_list[i]'s in-flight step ends if that is not its
     * window's last (INT64_MAX then); ff_min: at most their minimum. The
     * hook reads these, not the replicas. */
    int64_t *ff_due, ff_min;
    int ff_count, ff_cap;
    /* Decode-only step terms by decoder count (perf_step_memo), one memo
     * per pool and role: index pool * CL_ROLE_COUNT + role; allocated by
     * the first replica. */
    struct perf_step_memo *memo;
};

/* A serving replica's engine (rep->engine_state). */
struct cl_llm_replica {
    struct cl_replica *rep;
    struct llm_world *lw;            /* its world's */
    const struct perf_replica *perf; /* of the replica's pool */
    /* Its layout's memo of decode-only steps (lw->memo). */
    struct perf_step_memo *memo;
    struct sim_event iter_ev;
    int stepping;    /* an iteration is in flight */
    int64_t iter_no; /* number of the in-flight (or next) iteration */
    /* iter_no % grow_period, kept as iter_no goes up (next_iter()):
     * integer divisions in the iteration path were 6 % of the fleet-day's
     * CPU time. */
    int64_t iter_phase;
    int64_t iter_start_ns;
    /* Async scheduling (server.async_scheduling): the next iteration was
     * scheduled when the one just ended started, so it admits only the
     * requests that were waiting then; INT64_MAX when the engine was idle
     * or schedules synchronously. Set by on_iteration_end() for kick(). */
    int64_t sched_cutoff_ns;
    int async; /* server.async_scheduling */
    /* A preemption since the last admission: vLLM admits no waiting
     * request in a step that preempted (see kick()). */
    int preempted;

    struct cl_fifo waiting;  /* routed here, not admitted */
    struct cl_fifo prefill;  /* admitted, prompt not fully processed */
    struct dec_set decoding; /* by the iteration they finish in */

    int64_t nseqs;       /* admitted requests (prefill + decode) */
    int64_t max_seqs;    /* at most: the pool's max_num_seqs */
    int64_t max_batched; /* token budget: the pool's max_num_batched_tokens
                            x the data-parallel attention ranks */
    int64_t chunk_max;   /* one request's chunk: one rank's budget */
    /* Paged KV cache. */
    int64_t block_tokens;
    int block_shift; /* log2(block_tokens) if a power of two, else -1 */
    int64_t cap_blocks;
    int64_t blocks_used; /* held, with this iteration's decode growth */
    /* server.kv_admission: the mode, the blocks a watermark keeps free,
     * and (reserve) the summed peaks of the admitted requests. */
    int kva;
    int64_t kv_keep_free;
    int64_t peak_reserved;
    int64_t *phase_n; /* [k]: decoders that grow when iter_no % B == k */
    int grown;        /* this iteration's decode growth is in blocks_used */
    struct cl_req *run_head; /* admitted requests, oldest first */
    struct cl_req *run_tail;
    int64_t ctx_sum;          /* summed context of decoding requests (one
                                 token a step; with speculative decoding
                                 ctx_entry + tau x (ctx_sum - ctx_entry)) */
    int64_t decode_in_flight; /* decoders in the in-flight iteration */
    /* The decoders by whether they count after warm-up and by load stage
     * (cl__stage()'s index), kept as they join and leave the decode set
     * so that an iteration's inter-token gaps are booked in O(stages). */
    int64_t dec_measured;
    int64_t *dec_stage;
    int ndec_stage;
    int64_t prefill_chunks; /* chunks in the in-flight iteration */

    /* Prefix cache, offload tiers and swap. */
    int caching;           /* server.prefix_caching */
    struct cl_kvtier gpu;  /* hashed blocks in HBM */
    int offload;           /* cluster.kv_cache_offload */
    double pcie_bytes_gpu; /* this iteration's transfers, per GPU */
    double rdma_bytes_gpu;
    int plain; /* no caching, swap or P/D: admission as before */
    /* Tiered KV (tiered below): this iteration's prefetches
     * (per GPU), hidden behind its compute. */
    double pf_pcie_bytes_gpu, pf_rdma_bytes_gpu;
    int role; /* enum cl_role: its replica's */
    /* Speculative decoding (server.speculative) on (its parameters
     * below); the iterations between a decoder's new KV blocks
     * (grow_period: block tokens without it) and the blocks each growth
     * takes. */
    int spec;
    int64_t grow_period, grow_blocks;
    /* drain: migrate: the pre-copy has ended (mig_ev below): the next
     * iteration boundary stops and moves the batch. */
    int mig_stop;
    /* Fast-forward (ff_start()): a window of ff_n iterations whose ends
     * are not events; ff_dt[k] is the k-th one's step time, ff_done of
     * them have ended (the in-flight one is ff_done), ff_slot its place in
     * lw->ff_list. ff_n 0: no window. ff_pf: the window's first step
     * completes the prompt of the request in prefill (land()). */
    int64_t ff_n, ff_done, ff_cap;
    int ff_pf;
    int ff_cut_short; /* the window lost its tail (ff_cut_arrival()) */
    /* The next window's most iterations: doubled when one runs whole,
     * three quarters when one is cut, within [2, FF_MAX]. */
    int64_t ff_want;
    int64_t *ff_dt;
    int ff_slot;

    /* Below, what the iteration path does not read (the fields above fit
     * in fewer cache lines: a fleet's replicas take turns, and each event
     * found most of its replica's lines gone from L1). */
    int64_t ctx_entry;           /* speculative decoding: the decoders' summed
                                    context when they began decoding */
    struct cl_kvtier host;       /* offloaded blocks in host memory */
    int64_t host_cap;            /* blocks */
    int64_t swap_cap;            /* blocks of swap space */
    int64_t swap_used;           /* blocks swapped out */
    double tok_bytes_gpu;        /* KV bytes per token on one GPU */
    double tok_bytes;            /* KV bytes per token, whole replica */
    struct net_link pcie;        /* the GPU's host link */
    const struct net_link *rdma; /* the remote tier's link, or NULL */
    uint64_t gen; /* bumped when a lookup may find more or claim less */
    /* Tiered KV: on, and the host blocks pinned by paused requests. */
    int tiered;
    int64_t host_seq;
    /* Speculative decoding (spec above): drafted tokens k, acceptance,
     * expected tokens per step tau and its variance; tok_acc holds the
     * fraction of an output token the counters have not booked. */
    int spec_k;
    double spec_alpha, spec_tau, spec_var;
    double tok_acc;
    /* drain: migrate: the end of the pre-copy (mig_stop above). */
    struct sim_event mig_ev;
    int mig_all;         /* a drain: every admitted request moves */
    struct net_link nvl; /* its GPUs' NVLink, for moves inside a node */
};

static void kick(struct cl_llm_replica *e);
static void on_iteration_end(struct sim_loop *loop, struct sim_event *ev);
static void llm_arrive(struct cl_world *w, struct cl_req *r);
static void reroute(struct cl_world *w, struct cl_fifo *q, int was_waiting);

static void dec_set_fini(struct dec_set *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}

/* The iteration the first decoder of s finishes in; INT64_MAX if none. */
static int64_t dec_set_first(const struct dec_set *s)
{
    return s->n > 0 ? s->v[s->lo].iter : INT64_MAX;
}

/* Adds r, finishing in iteration iter, after those that finish no later. */
static void dec_set_add(struct dec_set *s, struct cl_req *r, int64_t iter)
{
    struct dec_slot *v;
    size_t j;

    if (s->lo + s->n == s->cap) {
        if (s->lo > 0 && s->n < s->cap / 2) {
            memmove(s->v, s->v + s->lo, s->n * sizeof(*s->v));
            s->lo = 0;
        } else {
            s->cap = s->cap ? 2 * s->cap : 16;
            s->v = xrealloc(s->v, s->cap, sizeof(*s->v));
        }
    }
    v = s->v + s->lo;
    j = s->n;
    while (j > 0 && v[j - 1].iter > iter)
        j--;
    memmove(v + j + 1, v + j, (s->n - j) * sizeof(*v));
    v[j].iter = iter;
    v[j].r = r;
    s->n++;
}

/* Takes out and returns the first to finish; NULL if none. */
static struct cl_req *dec_set_pop(struct dec_set *s)
{
    struct cl_req *r;

    if (s->n == 0)
        return NULL;
    r = s->v[s->lo].r;
    s->n--;
    s->lo = s->n > 0 ? s->lo + 1 : 0;
    return r;
}

/* Takes r, which must be in s, out. O(n). */
static void dec_set_remove(struct dec_set *s, const struct cl_req *r)
{
    struct dec_slot *v = s->v + s->lo;
    size_t j = 0;

    while (v[j].r != r)
        j++;
    memmove(v + j, v + j + 1, (s->n - j - 1) * sizeof(*v));
    if (--s->n == 0)
        s->lo = 0;
}

static struct cl_llm_replica *llm_of(const struct cl_replica *rep)
{
    return rep->engine_state;
}

/* The RDMA link of each enum cl_kv_link, in the net catalog. */
static const char *const kv_link_names[] = {
    [CL_KVL_IB_EDR] = "ib-edr",     [CL_KVL_IB_HDR] = "ib-hdr",
    [CL_KVL_IB_NDR] = "ib-ndr",     [CL_KVL_IB_XDR] = "ib-xdr",
    [CL_KVL_ROCE_100] = "roce-100", [CL_KVL_ROCE_200] = "roce-200",
    [CL_KVL_ROCE_400] = "roce-400", [CL_KVL_ROCE_800] = "roce-800",
};

/* vLLM's kv_cache_usage_perc: blocks in use over blocks. */
static double kv_usage(const struct cl_llm_replica *e)
{
    return e->cap_blocks > 0 ? (double)e->blocks_used / (double)e->cap_blocks
                             : 0;
}

static int64_t load(const struct cl_llm_replica *e)
{
    return (int64_t)e->waiting.n + e->nseqs;
}

/* After every change to e: its busy time, its series, its routing count
 * (w->route_n). */
static void update_busy(struct cl_llm_replica *e)
{
    struct cl_replica *rep = e->rep;
    int64_t n = load(e);

    rep->w->route_n[rep->slot] = rep->state == CL_R_SERVING ? n : INT64_MAX;
    cl__replica_set_busy(rep->w, rep, n > 0);
}

static int64_t blocks_of(const struct cl_llm_replica *e, int64_t tokens)
{
    int64_t n = tokens + e->block_tokens - 1;

    /* The same quotient as the division (n >= 0), which takes tens of
     * cycles. */
    return e->block_shift >= 0 && n >= 0 ? n >> e->block_shift
                                         : n / e->block_tokens;
}

/* Bytes of n blocks, whole replica, for the counters. */
static uint64_t block_bytes(const struct cl_llm_replica *e, int64_t n)
{
    return (uint64_t)llround((double)n * (double)e->block_tokens *
                             e->tok_bytes);
}

static int64_t hashed_blocks(const struct cl_llm_replica *e,
                             const struct cl_req *r)
{
    return cl_kv_hashed_blocks(r->prompt_tokens, r->nhashes, r->hash_tokens,
                               e->block_tokens);
}

static uint64_t hash_of(const struct cl_llm_replica *e, const struct cl_req *r,
                        int64_t j)
{
    return cl_kv_block_hash(r->hashes, r->hash_tokens, j, e->block_tokens);
}

/* Puts block h into the remote tier (LRU), evicting as needed; without
 * one, h is dropped. Any change a lookup could see bumps a generation
 * (memo_blocked()). */
static void remote_put(struct cl_llm_replica *e, uint64_t h)
{
    struct cl_kv_world *kv = &e->lw->kv;
    int32_t i;
    if (e->rdma == NULL || kv->remote_cap <= 0) {
        e->gen++; /* dropped */
        return;
    }
    i = cl_kvtier_find(&kv->remote, h);
    if (i >= 0) {
        cl_kvtier_lru_touch(&kv->remote, i);
        return;
    }
    if (kv->remote_seq >= kv->remote_cap) {
        e->gen++; /* full of paused requests' KV: dropped */
        return;
    }
    while (kv->remote.n + kv->remote_seq >= kv->remote_cap)
        cl_kvtier_remove(&kv->remote, kv->remote.lru_head);
    cl_kvtier_lru_push(&kv->remote, cl_kvtier_insert(&kv->remote, h));
    kv->remote_gen++;
    kv->offload_remote_bytes += block_bytes(e, 1);
}

/* Puts block h, just evicted from HBM, into host memory (LRU); what host
 * memory evicts goes to the remote tier. */
static void host_put(struct cl_llm_replica *e, uint64_t h)
{
    struct cl_kv_world *kv = &e->lw->kv;
    int32_t i;
    if (e->host_seq >= e->host_cap) { /* none, or all paused KV */
        remote_put(e, h);
        return;
    }
    i = cl_kvtier_find(&e->host, h);
    if (i >= 0) {
        cl_kvtier_lru_touch(&e->host, i);
        return;
    }
    while (e->host.n + e->host_seq >= e->host_cap) {
        int32_t v = e->host.lru_head;
        uint64_t vh = e->host.b[v].hash;
        cl_kvtier_remove(&e->host, v);
        remote_put(e, vh);
    }
    cl_kvtier_lru_push(&e->host, cl_kvtier_insert(&e->host, h));
    kv->offload_bytes += block_bytes(e, 1);
}

/* Cached blocks nobody holds are free space: evicts the least recently
 * used of them until held plus cached blocks fit the capacity. */
static void reclaim(struct cl_llm_replica *e)
{
    while (e->blocks_used + e->gpu.lru_n > e->cap_blocks && e->gpu.lru_n > 0) {
        int32_t i = e->gpu.lru_head;
        uint64_t h = e->gpu.b[i].hash;
        cl_kvtier_remove(&e->gpu, i);
        if (e->offload)
            host_put(e, h);
        else
            e->gen++; /* dropped */
    }
}

/* Where block hash h is: 0 HBM, 1 host, 2 remote, -1 nowhere. */
static int tier_of(const struct cl_llm_replica *e, uint64_t h)
{
    if (cl_kvtier_find(&e->gpu, h) >= 0)
        return 0;
    if (!e->offload)
        return -1;
    if (e->host_cap > 0 && cl_kvtier_find(&e->host, h) >= 0)
        return 1;
    if (e->rdma != NULL && e->lw->kv.remote_ready &&
        cl_kvtier_find(&e->lw->kv.remote, h) >= 0)
        return 2;
    return -1;
}

/* The longest chain of r's prompt blocks found in some tier (only HBM when
 * gpu_only): its length, and in *claim the HBM blocks it takes from free
 * space (cached, unreferenced, or fetched from a lower tier). */
static int64_t lookup(const struct cl_llm_replica *e, const struct cl_req *r,
                      int gpu_only, int64_t *claim)
{
    int64_t n = 0, nh;
    *claim = 0;
    if (!e->caching || r->hashes == NULL)
        return 0;
    nh = hashed_blocks(e, r);
    for (; n < nh; n++) {
        uint64_t h = hash_of(e, r, n);
        int32_t i = cl_kvtier_find(&e->gpu, h);
        if (i >= 0) {
            if (e->gpu.b[i].ref == 0)
                (*claim)++;
            continue;
        }
        if (gpu_only || tier_of(e, h) < 0)
            break;
        (*claim)++;
    }
    return n;
}

/* References the first n blocks of r's prompt (found by lookup()),
 * fetching those in a lower tier into new HBM blocks. */
static void take_prefix(struct cl_llm_replica *e, struct cl_req *r, int64_t n)
{
    struct cl_kv_world *kv = &e->lw->kv;
    for (int64_t j = 0; j < n; j++) {
        uint64_t h = hash_of(e, r, j);
        int32_t i = cl_kvtier_find(&e->gpu, h);
        if (i >= 0) {
            if (e->gpu.b[i].ref++ == 0) {
                cl_kvtier_lru_unlink(&e->gpu, i);
                e->gen++;
            }
            kv->hit_gpu++;
            continue;
        }
        i = e->host_cap > 0 ? cl_kvtier_find(&e->host, h) : -1;
        if (i >= 0) {
            cl_kvtier_remove(&e->host, i);
            kv->hit_host++;
            kv->fetch_bytes += block_bytes(e, 1);
            e->pcie_bytes_gpu += (double)e->block_tokens * e->tok_bytes_gpu;
        } else {
            i = cl_kvtier_find(&kv->remote, h);
            cl_kvtier_lru_touch(&kv->remote, i);
            kv->hit_remote++;
            kv->fetch_remote_bytes += block_bytes(e, 1);
            e->rdma_bytes_gpu += (double)e->block_tokens * e->tok_bytes_gpu;
        }
        i = cl_kvtier_insert(&e->gpu, h); /* may move e->gpu.b */
        e->gpu.b[i].ref = 1;
        e->gen++;
    }
}

/* r's prompt is complete: its hashed blocks not yet shared join the
 * table; one already there (registered by another request meanwhile) is
 * shared and r's duplicate freed. */
/* Makes r's first `upto` prompt blocks (those with a hash) prefix-cache
 * entries that r references: its own blocks become entries, or are freed
 * when the cache already has the block. */
static void register_blocks(struct cl_llm_replica *e, struct cl_req *r,
                            int64_t upto)
{
    int64_t nh;
    if (!e->caching || r->hashes == NULL)
        return;
    nh = hashed_blocks(e, r);
    if (upto < nh)
        nh = upto;
    for (int64_t j = r->nshared; j < nh; j++) {
        uint64_t h = hash_of(e, r, j);
        int32_t i = cl_kvtier_find(&e->gpu, h);
        if (i >= 0) {
            /* From free to held (+1) with the duplicate freed (-1), or
             * just the duplicate freed. */
            if (e->gpu.b[i].ref++ == 0) {
                cl_kvtier_lru_unlink(&e->gpu, i);
                e->gen++;
            } else
                e->blocks_used--;
            continue;
        }
        if (e->offload && e->host_cap > 0) {
            int32_t k = cl_kvtier_find(&e->host, h);
            if (k >= 0)
                cl_kvtier_remove(&e->host, k); /* HBM has it now */
        }
        i = cl_kvtier_insert(&e->gpu, h); /* may move e->gpu.b */
        e->gpu.b[i].ref = 1;
        e->gen++;
    }
    if (nh > r->nshared)
        r->nshared = nh;
}

/* All of r's prompt blocks, once its prompt is computed. */
static void register_prompt(struct cl_llm_replica *e, struct cl_req *r)
{
    register_blocks(e, r, INT64_MAX);
}

/* A request without source hashes (synthetic lengths) gets one hash of its
 * own when it is preempted with prefix caching on. vLLM hashes every full
 * block of every prompt, so the blocks a preempted request computed stay in
 * the cache (evictable) and its recompute finds them; here one source hash
 * covering the whole prompt, unique to the request (its id), stands for
 * them and matches nothing else (cl_kv_block_hash() derives the blocks'
 * hashes from it). One allocation per preempted request, freed with it. */
static void own_hash(struct cl_llm_replica *e, struct cl_req *r)
{
    if (!e->caching || r->hashes != NULL || r->prompt_tokens < e->block_tokens)
        return;
    r->hashes = xmalloc(sizeof(*r->hashes));
    r->hashes[0] =
        UINT64_C(0x6f776e2068617368) ^ (r->id * UINT64_C(0x9e3779b97f4a7c15));
    r->nhashes = 1;
    r->hash_tokens = (int)r->prompt_tokens;
}

/* Frees the blocks of r, `blocks` of them in all: its own go, the shared
 * ones lose a reference and, when none is left, join the LRU list (the
 * prefix's last block first, so that its first blocks are evicted last,
 * as vLLM's free-block queue does). */
static void release(struct cl_llm_replica *e, struct cl_req *r, int64_t blocks)
{
    e->blocks_used -= blocks - r->nshared;
    for (int64_t j = r->nshared - 1; j >= 0; j--) {
        int32_t i = cl_kvtier_find(&e->gpu, hash_of(e, r, j));
        if (--e->gpu.b[i].ref == 0) {
            e->blocks_used--;
            cl_kvtier_lru_push(&e->gpu, i);
        }
    }
    r->nshared = 0;
}

int64_t cl__llm_kv_peak_tokens(const struct cl_req *r)
{
    return r->prompt_tokens + (r->output_tokens > 1 ? r->output_tokens : 1) - 1;
}

/* The growth phase of decoder r: it needs a new block in iteration j iff
 * j % B equals this. Before iteration j > dec_iter its cache holds
 * prompt + gen_tokens + (j - dec_iter - 1) - 1 tokens. */
static int64_t phase_at(const struct cl_llm_replica *e, int64_t dec_iter,
                        int64_t tokens)
{
    int64_t k;

    if (e->block_shift >= 0) /* the same in two's complement */
        return (dec_iter + 2 - tokens) & (e->block_tokens - 1);
    k = (dec_iter + 2 - tokens) % e->block_tokens;
    return k < 0 ? k + e->block_tokens : k;
}

static int64_t phase_of(const struct cl_llm_replica *e, const struct cl_req *r)
{
    if (e->spec)
        return r->dec_phase;
    return phase_at(e, r->dec_iter, r->prompt_tokens + r->gen_tokens);
}

/* The next iteration's number. */
static void next_iter(struct cl_llm_replica *e)
{
    e->iter_no++;
    if (++e->iter_phase == e->grow_period)
        e->iter_phase = 0;
}

/* Output tokens decoder r has made before iteration iter_no runs. */
static int64_t decoded(const struct cl_llm_replica *e, const struct cl_req *r)
{
    int64_t steps = e->iter_no - r->dec_iter - 1;
    if (e->spec) /* its R tokens spread evenly over its steps, < R */
        return r->gen_tokens +
               (int64_t)((double)steps *
                         (double)(r->output_tokens - r->gen_tokens) /
                         (double)r->dec_steps);
    return r->gen_tokens + steps;
}

/* Speculative decoding: iterations j in [from, to] at which decoder r
 * grows (j % grow_period == its phase). */
static int64_t growths(const struct cl_llm_replica *e, const struct cl_req *r,
                       int64_t from, int64_t to)
{
    int64_t p = e->grow_period, ph = r->dec_phase;
    int64_t hi = to < ph ? 0 : (to - ph) / p + 1;
    int64_t lo = from - 1 < ph ? 0 : (from - 1 - ph) / p + 1;
    return hi > lo ? hi - lo : 0;
}

/* Speculative decoding: the blocks decoder r holds once iteration last
 * has grown (its blocks at the start of its decode plus its growths). */
static int64_t spec_blocks(const struct cl_llm_replica *e,
                           const struct cl_req *r, int64_t last)
{
    return r->kv_blocks + e->grow_blocks * growths(e, r, r->dec_iter + 1, last);
}

/* Speculative decoding: the steps a decoder needs for its remaining n
 * tokens (n >= 1), each step emitting 1 + the drafted tokens accepted in
 * a row (each with probability alpha), up to 1 + k. Drawn from the
 * "speculative" stream: step by step for n <= 64, else from the normal
 * approximation of the renewal count (mean n / tau, variance n var /
 * tau^3), within [ceil(n / (k + 1)), n]. */
static int64_t spec_steps(const struct cl_llm_replica *e, int64_t n)
{
    gsl_rng *g = sim_loop_stream(e->rep->w->loop, "speculative");
    int64_t lo = (n + e->spec_k) / (e->spec_k + 1), s = 0;

    if (n <= 64) {
        for (int64_t made = 0; made < n; s++) {
            int j = 0;
            while (j < e->spec_k && gsl_rng_uniform(g) < e->spec_alpha)
                j++;
            made += 1 + j;
        }
        return s;
    }
    s = llround((double)n / e->spec_tau +
                gsl_ran_gaussian_ziggurat(
                    g, sqrt((double)n * e->spec_var /
                            (e->spec_tau * e->spec_tau * e->spec_tau))));
    return s < lo ? lo : s > n ? n : s;
}

/* Counts r in (delta +1) or out of (-1) the decode set of e. */
static void dec_count(struct cl_llm_replica *e, const struct cl_req *r,
                      int delta)
{
    struct cl_world *w = e->rep->w;
    int st = cl__stage(w, r->stage);

    if (st >= e->ndec_stage) {
        e->dec_stage =
            xrealloc(e->dec_stage, (size_t)st + 1, sizeof(*e->dec_stage));
        for (int i = e->ndec_stage; i <= st; i++)
            e->dec_stage[i] = 0;
        e->ndec_stage = st + 1;
    }
    e->dec_stage[st] += delta;
    if (r->id >= w->warmup)
        e->dec_measured += delta;
}

static void run_append(struct cl_llm_replica *e, struct cl_req *r)
{
    e->peak_reserved += r->kv_peak;
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
    e->peak_reserved -= r->kv_peak;
    r->kv_peak = 0;
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

/* 1 when a goes after b under priority scheduling: (priority, arrival,
 * id) larger, as vLLM's priority policy orders requests. */
static int after(const struct cl_req *a, const struct cl_req *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->arrival_ns != b->arrival_ns)
        return a->arrival_ns > b->arrival_ns;
    return a->id > b->id;
}

/* Queues r to wait on e: at the back (fcfs), or by (priority, arrival)
 * (priority; O(waiting)). A preempted request goes to the front under
 * fcfs. */
static void wait_push(struct cl_llm_replica *e, struct cl_req *r, int front)
{
    struct cl_req *p = NULL, *q;
    if (!front)
        r->engine_ns = sim_loop_now(e->rep->w->loop);
    if (e->rep->w->scn->server.scheduling != CL_SCHED_PRIORITY) {
        if (front)
            cl__fifo_push_front(&e->waiting, r);
        else
            cl__fifo_push(&e->waiting, r);
        return;
    }
    for (q = e->waiting.head; q != NULL && !after(q, r); q = q->next)
        p = q;
    if (p == NULL) {
        cl__fifo_push_front(&e->waiting, r);
        return;
    }
    r->next = q;
    r->prev = p;
    p->next = r;
    if (q == NULL)
        e->waiting.tail = r;
    else
        q->prev = r;
    e->waiting.n++;
}

/* The running request to preempt: the newest admitted (fcfs) or the
 * largest (priority, arrival) that has no prompt chunk in the iteration
 * being built (priority; O(running)). */
static struct cl_req *victim(const struct cl_llm_replica *e)
{
    struct cl_req *v = NULL;
    if (e->rep->w->scn->server.scheduling != CL_SCHED_PRIORITY)
        return e->run_tail;
    for (struct cl_req *q = e->run_head; q != NULL; q = q->run_next)
        if (q->chunk == 0 && (v == NULL || after(q, v)))
            v = q;
    return v;
}

/* The time recomputing `tokens` tokens of context costs this replica: a
 * prefill of them alone less a decode step at that context (what the
 * request would have cost anyway), in ns. O(1); called per preemption. */
static double recompute_ns(const struct cl_llm_replica *e, int64_t tokens)
{
    struct perf_batch p = {0}, d = {0};
    double t;
    p.prefill_tokens = tokens;
    p.prefill_attn_pairs = (double)tokens * ((double)tokens + 1.0) / 2.0;
    p.prefill_seqs = 1;
    p.prefill_done_seqs = 1;
    d.decode_seqs = 1;
    d.decode_ctx_tokens = tokens;
    t = (double)perf_iteration_ns(e->perf, &p) -
        (double)perf_iteration_ns(e->perf, &d);
    return t > 0 ? t : 0;
}

/* Tiered KV: moves the KV of `tokens` tokens of preempted request r to
 * host memory (evicting offloaded prefix blocks, which go to the remote
 * tier) or, when paused requests fill it, to the remote tier, if copying
 * it out and back costs less than recomputing it; otherwise r will be
 * recomputed. */
static void tier_out(struct cl_llm_replica *e, struct cl_req *r, int64_t tokens)
{
    struct cl_kv_world *kv = &e->lw->kv;
    int64_t nb = blocks_of(e, tokens);
    double bytes = (double)tokens * e->tok_bytes_gpu;
    uint64_t whole = (uint64_t)llround((double)tokens * e->tok_bytes);
    int tier = 0;

    if (e->host_cap - e->host_seq >= nb)
        tier = 1;
    else if (e->rdma != NULL && kv->remote_cap - kv->remote_seq >= nb)
        tier = 2;
    if (tier == 0) {
        kv->swap_fallbacks++;
        return;
    }
    if (2.0 * net_p2p_ns(tier == 1 ? &e->pcie : e->rdma, bytes) >=
        recompute_ns(e, tokens)) {
        kv->recompute_chosen++;
        return;
    }
    if (tier == 1) {
        e->host_seq += nb;
        while (e->host.n > 0 && e->host.n + e->host_seq > e->host_cap) {
            int32_t v = e->host.lru_head;
            uint64_t vh = e->host.b[v].hash;
            cl_kvtier_remove(&e->host, v);
            remote_put(e, vh);
        }
        e->pcie_bytes_gpu += bytes;
        kv->seq_host_bytes += whole;
    } else {
        kv->remote_seq += nb;
        while (kv->remote.n > 0 &&
               kv->remote.n + kv->remote_seq > kv->remote_cap)
            cl_kvtier_remove(&kv->remote, kv->remote.lru_head);
        e->rdma_bytes_gpu += bytes;
        kv->seq_remote_bytes += whole;
    }
    r->swapped_tokens = tokens;
    r->swap_tier = tier;
    kv->swaps_out++;
    kv->swap_bytes += whole;
}

/* Gives back the space r's swapped KV holds (e: the replica it was
 * preempted on) and forgets it: r will be recomputed, or (resume) its KV
 * is coming back. */
static void unswap(struct cl_llm_replica *e, struct cl_req *r)
{
    int64_t nb = blocks_of(e, r->swapped_tokens);
    if (r->swapped_tokens <= 0)
        return;
    if (r->swap_tier == 1)
        e->host_seq -= nb;
    else if (r->swap_tier == 2)
        e->lw->kv.remote_seq -= nb;
    else
        e->swap_used -= nb;
    r->swapped_tokens = 0;
    r->swap_tier = 0;
}

/* Swap preemption: copies the KV of `tokens` tokens to host memory when
 * the swap space holds it (then r resumes from them); otherwise r will be
 * recomputed. With tiered KV, tier_out() decides. */
static void swap_out(struct cl_llm_replica *e, struct cl_req *r, int64_t tokens)
{
    struct cl_kv_world *kv = &e->lw->kv;
    int64_t nb = blocks_of(e, tokens);
    if (tokens <= 0)
        return;
    if (e->tiered) {
        tier_out(e, r, tokens);
        return;
    }
    if (e->rep->w->scn->server.preemption != CL_PREEMPT_SWAP)
        return;
    if (e->swap_used + nb > e->swap_cap) {
        kv->swap_fallbacks++;
        return;
    }
    e->swap_used += nb;
    r->swapped_tokens = tokens;
    e->pcie_bytes_gpu += (double)tokens * e->tok_bytes_gpu;
    kv->swaps_out++;
    kv->swap_bytes += (uint64_t)llround((double)tokens * e->tok_bytes);
}

/* Takes running request r out of e's batch: frees its blocks, keeps the
 * tokens it has made. Returns the tokens whose KV it had computed. Only
 * called before an iteration starts (e->grown says whether this
 * iteration's decode growth is reserved). */
static int64_t unbatch(struct cl_llm_replica *e, struct cl_req *r)
{
    int64_t tokens;
    if (r->dec_iter >= 0) {
        int64_t gen = decoded(e, r);
        e->phase_n[phase_of(e, r)]--;
        dec_set_remove(&e->decoding, r);
        dec_count(e, r, -1);
        if (e->spec) {
            e->ctx_sum -=
                r->prompt_tokens + r->gen_tokens + e->iter_no - r->dec_iter - 1;
            e->ctx_entry -= r->prompt_tokens + r->gen_tokens;
            release(e, r, spec_blocks(e, r, e->iter_no - 1 + e->grown));
        } else {
            e->ctx_sum -= r->prompt_tokens + gen;
            release(e, r, blocks_of(e, r->prompt_tokens + gen - 1 + e->grown));
        }
        r->gen_tokens = gen;
        r->dec_iter = -1;
        tokens = r->prompt_tokens + gen - 1;
    } else {
        cl__fifo_remove(&e->prefill, r);
        release(e, r, r->kv_blocks);
        tokens = r->prefilled;
    }
    run_unlink(e, r);
    r->kv_blocks = 0;
    r->prefilled = 0;
    r->chunk = 0;
    e->nseqs--;
    cl__set_running(e->rep->w, -1);
    return tokens;
}

/* Preempts running request r: frees its blocks and puts it at the head of
 * the waiting queue with the tokens it has made. By recompute its next
 * prefill computes them again; by swap its KV goes to host memory first.
 * Only called before an iteration starts. */
static void preempt(struct cl_llm_replica *e, struct cl_req *r)
{
    struct cl_world *w = e->rep->w;

    /* Its computed prompt blocks stay in the prefix cache (vLLM caches full
     * blocks as they are computed), so its recompute can find them. */
    own_hash(e, r);
    if (r->dec_iter >= 0)
        register_prompt(e, r);
    else
        register_blocks(e, r, r->prefilled / e->block_tokens);
    swap_out(e, r, unbatch(e, r));
    r->mig_copied = 0; /* a pre-copy of it is stale */
    r->mig_to = NULL;
    r->npreempt++;
    e->preempted = 1;
    e->lw->preemptions++;
    wait_push(e, r, 1);
    cl__set_waiting(w, +1);
}

/* Blocks a waiting request needs at admission: the first chunk after
 * `start` cached tokens, less the nhit cached blocks, plus the claim of
 * those that are not held now. */
static int64_t admit_need(const struct cl_llm_replica *e, int64_t target,
                          int64_t nhit, int64_t claim, int64_t *start_out,
                          int64_t *logical_out)
{
    int64_t start = nhit * e->block_tokens, first;
    int64_t max = e->chunk_max;
    if (start > target - 1)
        start = target - 1;
    first = target - start;
    if (first > max)
        first = max;
    *start_out = start;
    *logical_out = blocks_of(e, start + first);
    return claim + *logical_out - nhit;
}

/* The blocks r holds at its peak: prompt + output - 1 tokens (the last
 * token's KV is never written). */
static int64_t peak_blocks(const struct cl_llm_replica *e,
                           const struct cl_req *r)
{
    int64_t tokens = r->prompt_tokens + r->output_tokens - 1;
    /* Speculative decoding: at worst one token a step, a growth every
     * grow_period steps after the prompt's and first token's blocks. */
    if (e->spec)
        return blocks_of(e, r->prompt_tokens + r->gen_tokens + 1) +
               e->grow_blocks *
                   ((r->output_tokens - r->gen_tokens + e->grow_period - 1) /
                        e->grow_period +
                    1);
    return blocks_of(e, tokens > 1 ? tokens : 1);
}

/* server.kv_admission: may r take need more blocks now? greedy: they
 * fit; watermark: and kv_keep_free blocks stay free; reserve: and r's
 * peak fits beside the admitted requests' peaks (*peak_out, may be NULL:
 * what the admission reserves, 0 unless reserve). An empty engine admits
 * a request whose peak alone exceeds the cache (it may then preempt). */
static int admission_fits(const struct cl_llm_replica *e,
                          const struct cl_req *r, int64_t need,
                          int64_t *peak_out)
{
    int64_t peak = 0;

    if (e->blocks_used + need > e->cap_blocks - e->kv_keep_free)
        return 0;
    if (e->kva == CL_KVA_RESERVE) {
        peak = peak_blocks(e, r);
        if (peak < need)
            peak = need;
        if (e->peak_reserved + peak > e->cap_blocks && e->nseqs > 0)
            return 0;
    }
    if (peak_out != NULL)
        *peak_out = peak;
    return 1;
}

/* 1 when r was blocked at the head before and no cache has gained, lost
 * or taken a block since (gen unchanged; only references dropping to 0,
 * which can only raise the need, do not count): its last lookup still
 * holds, so it is still blocked. Saves a lookup per iteration while a
 * long prompt waits for room; results are the same as without it. */
static int memo_blocked(const struct cl_llm_replica *e, const struct cl_req *r,
                        int64_t target)
{
    int64_t start, logical, need;
    if (r->memo_rep != e || r->memo_gen != e->gen + e->lw->kv.remote_gen)
        return 0;
    need = admit_need(e, target, r->memo_nhit, r->memo_claim, &start, &logical);
    return !admission_fits(e, r, need, NULL);
}

/* Admission with no prefix cache, swap or P/D (the common case, kept
 * apart so that it stays as small as it was): FCFS by first chunk. */
static void admit_plain(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;

    while (e->waiting.head != NULL && e->nseqs < e->max_seqs &&
           e->waiting.head->engine_ns <= e->sched_cutoff_ns) {
        struct cl_req *r = e->waiting.head;
        int64_t first = r->prompt_tokens + r->gen_tokens;
        int64_t need;
        if (first > e->chunk_max)
            first = e->chunk_max;
        need = blocks_of(e, first);
        if (!admission_fits(e, r, need, &r->kv_peak))
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

/* Admission with a prefix cache, swapped or transferred KV: the first
 * chunk starts after the tokens already cached. */
static void admit(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;

    while (e->waiting.head != NULL && e->nseqs < e->max_seqs &&
           e->waiting.head->engine_ns <= e->sched_cutoff_ns) {
        struct cl_req *r = e->waiting.head;
        int64_t target = r->prompt_tokens + r->gen_tokens;
        int64_t start = 0, nhit = 0, claim = 0, first, logical, need;
        int transferred = r->pd_tokens > 0; /* decode side of P/D */

        if (r->pd_tokens > 0) {
            start = r->pd_tokens; /* its KV came from a prefill replica */
        } else if (r->swapped_tokens > 0) {
            start = r->swapped_tokens; /* swapped in, not recomputed */
        } else if (r->hashes != NULL) {
            if (memo_blocked(e, r, target))
                break; /* as before: a lookup would find no more now */
            nhit = lookup(e, r, 0, &claim);
            r->memo_rep = e;
            r->memo_gen = e->gen + e->lw->kv.remote_gen;
            r->memo_nhit = nhit;
            r->memo_claim = claim;
            start = nhit * e->block_tokens;
        } else if (e->caching && !isnan(w->scn->workload.prefix_hit_rate)) {
            start = (int64_t)floor(w->scn->workload.prefix_hit_rate *
                                   (double)r->prompt_tokens) /
                    e->block_tokens * e->block_tokens;
        }
        if (start > target - 1)
            start = target - 1; /* one token is computed, to sample */
        first = target - start;
        if (first > e->chunk_max)
            first = e->chunk_max;
        logical = blocks_of(e, start + first);
        need = claim + logical - nhit;
        if (!admission_fits(e, r, need, &r->kv_peak))
            break; /* FCFS: the head waits for room; no overtaking */
        cl__fifo_pop(&e->waiting);
        cl__set_waiting(w, -1);
        cl__set_running(w, +1);
        if (r->pd_tokens > 0) {
            r->pd_tokens = 0;
        } else if (r->swapped_tokens > 0) {
            double bytes = (double)r->swapped_tokens * e->tok_bytes_gpu;
            uint64_t whole =
                (uint64_t)llround((double)r->swapped_tokens * e->tok_bytes);
            if (r->swap_tier == 1) { /* prefetched: see kick() */
                e->pf_pcie_bytes_gpu += bytes;
                e->lw->kv.seq_host_bytes += whole;
            } else if (r->swap_tier == 2) {
                e->pf_rdma_bytes_gpu += bytes;
                e->lw->kv.seq_remote_bytes += whole;
            } else {
                e->pcie_bytes_gpu += bytes;
            }
            e->lw->kv.swaps_in++;
            e->lw->kv.swap_bytes += whole;
            unswap(e, r);
        } else if (r->hashes != NULL && e->caching) {
            int64_t nh = hashed_blocks(e, r);
            take_prefix(e, r, nhit);
            e->rep->ctr.prefix_queries += (uint64_t)nh;
            e->rep->ctr.prefix_hits += (uint64_t)nhit;
            e->lw->kv.lookup_blocks += (uint64_t)nh;
            e->lw->kv.hit_blocks += (uint64_t)nhit;
        } else if (e->caching && !isnan(w->scn->workload.prefix_hit_rate)) {
            int64_t nh = r->prompt_tokens / e->block_tokens;
            e->rep->ctr.prefix_queries += (uint64_t)nh;
            e->rep->ctr.prefix_hits += (uint64_t)(start / e->block_tokens);
            e->lw->kv.lookup_blocks += (uint64_t)nh;
            e->lw->kv.hit_blocks += (uint64_t)(start / e->block_tokens);
            e->lw->kv.hit_gpu += (uint64_t)(start / e->block_tokens);
        }
        e->blocks_used += need;
        reclaim(e);
        r->kv_blocks = logical;
        r->nshared = nhit;
        e->nseqs++;
        run_append(e, r);
        /* Queue time ends at the first admission: not again after a
         * preemption, nor on the decode side of P/D. */
        if ((r->retries == 0 && r->npreempt == 0 && !transferred) ||
            r->start_ns < 0) {
            r->start_ns = sim_loop_now(w->loop);
            /* The prompt's cached tokens, at its first admission. */
            if (!transferred && r->retries == 0 && r->npreempt == 0)
                r->cached_tokens = start;
        }
        r->prefilled = start;
        r->dec_iter = -1;
        cl__fifo_push(&e->prefill, r);
    }
}

static void finish(struct cl_llm_replica *e, struct cl_req *r, int64_t blocks)
{
    struct cl_world *w = e->rep->w;
    release(e, r, blocks);
    run_unlink(e, r);
    e->nseqs--;
    e->rep->ctr.completed++;
    w->cl_ctr.completed++;
    cl__set_running(w, -1);
    cl__complete(w, r);
}

/* P/D: the KV of r reached the decode group; its first token is
 * delivered now, so TTFT includes the transfer. */
static void on_pd_landed(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_req *r = ev->arg;
    struct cl_world *w = r->rep->w;
    r->pd_moving = 0;
    if (r->first_token_ns < 0) {
        r->first_token_ns = sim_loop_now(loop);
        /* The TTFT a policy reads (the prefill group's target). */
        if (w->elastic)
            pol_ph_add_n(&w->cl_ctr.ttft,
                         sim_ns_to_s(r->first_token_ns - r->arrival_ns), 1);
    }
    llm_arrive(w, r);
}

/* P/D: a prefill replica has made r's first token: r leaves it and its KV
 * (prompt + tokens made - 1 tokens) crosses deploy.disaggregation.kv_link,
 * each of the tp x pp GPUs of the data-parallel group that held it sending
 * its share (the prefill layout's KV bytes per token per GPU) over its own
 * NIC: alpha + bytes / (efficiency x bandwidth) per GPU (docs/sources.md §3.1).
 * The decode replica that takes it holds it in its own layout's cache. */
static void handoff(struct cl_llm_replica *e, struct cl_req *r)
{
    struct cl_world *w = e->rep->w;
    const struct net_link *l =
        net_link_find(kv_link_names[w->scn->deploy.disaggregation.kv_link]);
    int64_t tokens = r->prompt_tokens + r->gen_tokens - 1;
    int64_t t =
        (int64_t)llround(net_p2p_ns(l, (double)tokens * e->tok_bytes_gpu));

    release(e, r, r->kv_blocks);
    run_unlink(e, r);
    e->nseqs--;
    cl__set_running(w, -1);
    r->kv_blocks = 0;
    r->prefilled = 0;
    r->dec_iter = -1;
    r->pd_tokens = tokens;
    r->pd_moving = 1;
    e->lw->kv.pd_transfers++;
    e->lw->kv.pd_bytes += (uint64_t)llround((double)tokens * e->tok_bytes);
    e->lw->kv.pd_transfer_ns += t;
    sim_event_init(&r->ev, on_pd_landed, r);
    sim_loop_after(w->loop, &r->ev, t > 0 ? t : 0);
}

/* The scale-out link (deploy.disaggregation.kv_link). */
static const struct net_link *kv_link(const struct cl_world *w)
{
    return net_link_find(kv_link_names[w->scn->deploy.disaggregation.kv_link]);
}

/* The link the KV of a move from e to `to` crosses, per GPU: its GPUs'
 * NVLink when both replicas lie on one node (cl__replica_node(): each GPU
 * of the source sends its share to a GPU of the target through the node's
 * switch), else the scale-out link. *nvl says which (1 NVLink). O(slots). */
static const struct net_link *mig_path(const struct cl_llm_replica *e,
                                       const struct cl_replica *to, int *nvl)
{
    const struct cl_world *w = e->rep->w;
    int node = to != NULL ? cl__replica_node(w, e->rep) : -1;
    *nvl = node >= 0 && node == cl__replica_node(w, to);
    return *nvl ? &e->nvl : kv_link(w);
}

/* Counts the bytes of `tokens` tokens of KV that e sent over NVLink (nvl)
 * or the scale-out link. */
static void mig_bytes(struct cl_llm_replica *e, double tokens, int nvl)
{
    uint64_t b = (uint64_t)llround(tokens * e->tok_bytes);
    e->lw->kv.migration_bytes += b;
    if (nvl)
        e->lw->kv.migration_bytes_nvlink += b;
}

/* Tokens of KV running request r holds on e now. */
static int64_t kv_tokens(const struct cl_llm_replica *e, const struct cl_req *r)
{
    return r->dec_iter >= 0 ? r->prompt_tokens + decoded(e, r) - 1
                            : r->prefilled;
}

/* The serving replica of e's role, other than e, with the least load
 * whose KV cache can hold r at its peak; NULL if none. O(replicas). */
static struct cl_llm_replica *mig_target(const struct cl_llm_replica *e,
                                         const struct cl_req *r)
{
    struct cl_world *w = e->rep->w;
    struct cl_llm_replica *best = NULL;
    int64_t need = cl__llm_kv_peak_tokens(r);
    for (int k = 0; k < w->nreps; k++) {
        struct cl_replica *rep = w->reps[k];
        struct cl_llm_replica *c = llm_of(rep);
        if (rep->state != CL_R_SERVING || c == NULL || c == e ||
            c->role != e->role || need > cl__rep_layout(w, rep)->kv_cap_tokens)
            continue;
        if (best == NULL || load(c) < load(best))
            best = c;
    }
    return best;
}

/* A migrated request's KV has landed: it waits at the head of its new
 * replica's queue and resumes after its KV (no recompute); if that
 * replica has stopped serving meanwhile, the KV is lost and it is routed
 * again from scratch. */
static void on_mig_landed(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_req *r = ev->arg;
    struct cl_replica *to = r->rep;
    struct cl_world *w = to->w;
    (void)loop;
    r->pd_moving = 0;
    if (to->serial != r->mig_serial || to->state != CL_R_SERVING ||
        llm_of(to) == NULL) {
        r->pd_tokens = 0;
        llm_arrive(w, r);
        return;
    }
    wait_push(llm_of(to), r, 1);
    cl__set_waiting(w, +1);
    kick(llm_of(to));
    update_busy(llm_of(to));
}

/* Where moving request r of e goes at its stop: the replica chosen for it
 * (rebalance, defrag) while it serves, else the least loaded. */
static struct cl_replica *mig_dest(const struct cl_llm_replica *e,
                                   const struct cl_req *r)
{
    struct cl_llm_replica *to;
    if (r->mig_to != NULL && r->mig_to->serial == r->mig_to_serial &&
        r->mig_to->state == CL_R_SERVING && llm_of(r->mig_to) != NULL)
        return r->mig_to;
    to = mig_target(e, r);
    return to != NULL ? to->rep : NULL;
}

/* The pre-copy is over: every admitted request of e (a drain) or those
 * marked (a rebalance or defrag move) stop and move with their KV; what
 * the pre-copy did not carry is copied now, the downtime, over each
 * move's path (NVLink and the scale-out link in parallel); what waits is
 * routed again (a drain). Called by kick() between iterations. */
static void stop_and_copy(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    struct cl_kv_world *kv = &e->lw->kv;
    struct cl_req *r, *next;
    double delta[2] = {0, 0};
    int64_t t[2];
    int nvl;

    e->mig_stop = 0;
    if (e->mig_all)
        reroute(w, &e->waiting, 1); /* preempted meanwhile: start again */
    /* First where each goes (r->mig_to) and what is left to copy. */
    for (r = e->run_head; r != NULL; r = r->run_next) {
        int64_t now_tokens = kv_tokens(e, r);
        int64_t copied = r->mig_copied > 0 ? r->mig_copied : 0;
        if (!e->mig_all && r->mig_copied <= 0)
            continue;
        r->mig_to = mig_dest(e, r);
        if (r->mig_to == NULL)
            continue;
        r->mig_to_serial = r->mig_to->serial;
        mig_path(e, r->mig_to, &nvl);
        if (now_tokens > copied)
            delta[nvl] += (double)(now_tokens - copied);
    }
    for (int k = 0; k < 2; k++) {
        t[k] = (int64_t)llround(
            net_p2p_ns(k ? &e->nvl : kv_link(w), delta[k] * e->tok_bytes_gpu));
        mig_bytes(e, delta[k], k);
    }
    for (r = e->run_head; r != NULL; r = next) {
        struct cl_replica *to = r->mig_to;
        int64_t tokens;
        next = r->run_next;
        if (!e->mig_all && r->mig_copied <= 0)
            continue;
        r->mig_to = NULL;
        if (to == NULL) {
            kv->migration_fallbacks++;
            r->mig_copied = 0;
            continue; /* it finishes here */
        }
        mig_path(e, to, &nvl);
        tokens = unbatch(e, r);
        r->mig_copied = -1;
        r->pd_tokens = tokens;
        r->pd_moving = 1;
        r->rep = to;
        r->mig_serial = to->serial;
        kv->migrations++;
        kv->migration_downtime_ns += t[nvl];
        if (r->defrag_moved == 1) {
            r->defrag_moved = 2;
            kv->migration_defrag++;
        }
        sim_event_init(&r->ev, on_mig_landed, r);
        sim_loop_after(w->loop, &r->ev, t[nvl]);
    }
}

/* The pre-copy of a draining replica is done: stop and move its batch at
 * the next iteration boundary (now, if none is in flight). */
static void on_mig_precopied(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_llm_replica *e = ev->arg;
    (void)loop;
    e->mig_stop = 1;
    if (!e->stepping)
        kick(e);
}

/* drain: migrate: starts copying the KV of e's admitted requests to other
 * replicas while they keep running, over the path to the least loaded
 * one (where they go unless the loads change by the stop); 0 when there
 * is nothing to move or nowhere to move it (the drain then finishes in
 * place). */
static int mig_start(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    struct cl_llm_replica *to;
    const struct net_link *l;
    double tokens = 0;
    int64_t t;
    int nvl;

    e->mig_all = 1;
    if (e->nseqs == 0 || (to = mig_target(e, e->run_head)) == NULL)
        return 0;
    for (struct cl_req *r = e->run_head; r != NULL; r = r->run_next) {
        r->mig_copied = kv_tokens(e, r);
        tokens += (double)r->mig_copied;
    }
    l = mig_path(e, to->rep, &nvl);
    t = (int64_t)llround(net_p2p_ns(l, tokens * e->tok_bytes_gpu));
    mig_bytes(e, tokens, nvl);
    sim_loop_after(w->loop, &e->mig_ev, t);
    return 1;
}

/* Marks running request r of e to move to `to`, its KV pre-copied from
 * now: returns the tokens it holds (what the pre-copy sends) and in *nvl
 * the path. */
static int64_t mig_mark(struct cl_llm_replica *e, struct cl_req *r,
                        struct cl_replica *to, int *nvl)
{
    r->mig_copied = kv_tokens(e, r);
    r->mig_to = to;
    r->mig_to_serial = to->serial;
    mig_path(e, to, nvl);
    mig_bytes(e, (double)r->mig_copied, *nvl);
    return r->mig_copied;
}

/* Free KV of e as a fraction of its cache, the blocks its queue's head
 * needs counted as used. */
static double freeness(const struct cl_llm_replica *e)
{
    int64_t head = 0;
    if (e->waiting.head != NULL) {
        const struct cl_req *r = e->waiting.head;
        int64_t first = r->prompt_tokens + r->gen_tokens;
        head = blocks_of(e, first < e->chunk_max ? first : e->chunk_max);
    }
    return e->cap_blocks > 0 ? (double)(e->cap_blocks - e->blocks_used - head) /
                                   (double)e->cap_blocks
                             : 0;
}

/* The newest admitted request of e that is decoding (the one preemption
 * would take first), or NULL. */
static struct cl_req *newest_decoder(const struct cl_llm_replica *e)
{
    for (struct cl_req *r = e->run_tail; r != NULL; r = r->run_prev)
        if (r->dec_iter >= 0)
            return r;
    return NULL;
}

/* cluster.rebalance: one move from the fullest to the freest replica of a
 * role when their freeness differs by the gap; then the next tick, until
 * the run is over. */
static void on_rebalance(struct sim_loop *loop, struct sim_event *ev)
{
    struct llm_world *lw = ev->arg;
    struct cl_world *w = lw->w;
    double gap = w->scn->cluster.rebalance_gap;

    for (int role = 0; role < CL_ROLE_COUNT; role++) {
        struct cl_llm_replica *lo = NULL, *hi = NULL;
        double flo = 0, fhi = 0;
        struct cl_req *r;
        int64_t tokens;
        int nvl;
        for (int k = 0; k < w->nreps; k++) {
            struct cl_llm_replica *e = llm_of(w->reps[k]);
            double f;
            if (w->reps[k]->state != CL_R_SERVING || e == NULL ||
                e->role != role)
                continue;
            f = freeness(e);
            if (lo == NULL || f < flo) {
                lo = e;
                flo = f;
            }
            if (hi == NULL || f > fhi) {
                hi = e;
                fhi = f;
            }
        }
        if (lo == NULL || lo == hi || fhi - flo < gap || lo->mig_stop ||
            sim_event_pending(&lo->mig_ev) ||
            (r = newest_decoder(lo)) == NULL ||
            cl__llm_kv_peak_tokens(r) >
                cl__rep_layout(w, hi->rep)->kv_cap_tokens)
            continue;
        lo->mig_all = 0;
        tokens = mig_mark(lo, r, hi->rep, &nvl);
        sim_loop_after(
            loop, &lo->mig_ev,
            (int64_t)llround(net_p2p_ns(nvl ? &lo->nvl : kv_link(w),
                                        (double)tokens * lo->tok_bytes_gpu)));
    }
    if (!(w->source_done && w->live == 0))
        sim_loop_after(loop, ev, w->scn->cluster.rebalance_ns);
}

/* cluster.defrag: the decoding requests one trigger looks at (the newest,
 * the ones preemption would take first) and so at most moves, so that a
 * trigger costs O(replicas). An assumption: a long prompt needs a few
 * decoders' room, and more moves make a burst of copies. */
#define DEFRAG_LOOK_MAX 8

/* KV blocks of e nothing holds, less those server.kv_admission
 * watermark keeps free. */
static int64_t free_blocks(const struct cl_llm_replica *e)
{
    return e->cap_blocks - e->kv_keep_free - e->blocks_used;
}

/* The blocks decoder r holds on e now, as unbatch() frees them, less the
 * prefix blocks it shares (which may stay held by others). */
static int64_t held_blocks(const struct cl_llm_replica *e,
                           const struct cl_req *r)
{
    int64_t b =
        e->spec ? spec_blocks(e, r, e->iter_no - 1 + e->grown)
                : blocks_of(e, r->prompt_tokens + decoded(e, r) - 1 + e->grown);
    return b - r->nshared;
}

/* cluster.defrag, for e's waiting head (once per request that gets this
 * far; the checks before are O(1)): when the KV of e's head's
 * prompt does not fit e's free blocks, no other serving replica of its
 * role with nothing waiting has them free, and moving some of e's newest
 * decoding requests to replicas that have room for their peak and
 * nothing waiting frees enough, those requests start moving now (the
 * pre-copy; they stop at the next iteration boundary after it, as a
 * rebalance's do). Each request moves so at most once, and a target
 * takes only what fits its peak with nothing waiting there, so moves do
 * not come back (no ping-pong). O(DEFRAG_LOOK_MAX^2 x replicas). */
static void defrag(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    struct cl_req *h = e->waiting.head, *q;
    struct cl_req *mv[DEFRAG_LOOK_MAX];
    struct cl_llm_replica *to[DEFRAG_LOOK_MAX];
    int64_t peak[DEFRAG_LOOK_MAX];
    int64_t need, deficit, freed = 0, t = 0;
    double tokens[2] = {0, 0};
    int n = 0, looked = 0, nvl;

    if (e->rep->state != CL_R_SERVING || e->mig_stop ||
        sim_event_pending(&e->mig_ev) || e->nseqs == 0 ||
        e->nseqs >= e->max_seqs)
        return;
    need = blocks_of(e, h->prompt_tokens + h->gen_tokens);
    deficit = need - free_blocks(e);
    if (deficit <= 0 || need > e->cap_blocks - e->kv_keep_free)
        return;          /* it fits, or never will beside anything */
    h->defrag_tried = 1; /* the O(replicas) look, once per request */
    for (int k = 0; k < w->nreps; k++) {
        struct cl_llm_replica *c = llm_of(w->reps[k]);
        if (w->reps[k]->state == CL_R_SERVING && c != NULL && c != e &&
            c->role == e->role && c->waiting.n == 0 && free_blocks(c) >= need)
            return; /* not fragmentation: a replica has the room */
    }
    for (q = e->run_tail;
         q != NULL && looked < DEFRAG_LOOK_MAX && freed < deficit;
         q = q->run_prev) {
        struct cl_llm_replica *best = NULL;
        int64_t best_room = 0, p;
        if (q->dec_iter < 0 || q->defrag_moved || q->mig_copied > 0)
            continue;
        looked++;
        p = peak_blocks(e, q);
        for (int k = 0; k < w->nreps; k++) {
            struct cl_llm_replica *c = llm_of(w->reps[k]);
            int64_t room;
            if (w->reps[k]->state != CL_R_SERVING || c == NULL || c == e ||
                c->role != e->role || c->waiting.n > 0 ||
                cl__llm_kv_peak_tokens(q) >
                    cl__rep_layout(w, c->rep)->kv_cap_tokens)
                continue;
            room = free_blocks(c);
            for (int i = 0; i < n; i++)
                if (to[i] == c)
                    room -= peak[i];
            if (room >= p && (best == NULL || room > best_room)) {
                best = c;
                best_room = room;
            }
        }
        if (best == NULL)
            continue;
        mv[n] = q;
        to[n] = best;
        peak[n] = p;
        n++;
        freed += held_blocks(e, q);
    }
    if (freed < deficit)
        return; /* moving what can move would not make the room */
    e->mig_all = 0;
    for (int i = 0; i < n; i++) {
        int64_t tk = mig_mark(e, mv[i], to[i]->rep, &nvl);
        mv[i]->defrag_moved = 1;
        tokens[nvl] += (double)tk;
    }
    /* The two paths copy in parallel; each sends its moves in turn. */
    for (int k = 0; k < 2; k++) {
        int64_t tk;
        if (tokens[k] <= 0)
            continue;
        tk = (int64_t)llround(
            net_p2p_ns(k ? &e->nvl : kv_link(w), tokens[k] * e->tok_bytes_gpu));
        if (tk > t)
            t = tk;
    }
    sim_loop_after(w->loop, &e->mig_ev, t);
}

/* The prefill chunks of iteration i, ended at now: the FCFS head requests
 * got them, in order (nchunks of them). A prompt they complete makes its
 * first token and joins the decoders (or finishes, or goes to the decode
 * group). Returns the tokens made. */
static uint64_t land(struct cl_llm_replica *e, int64_t nchunks, int64_t i,
                     int64_t now)
{
    struct cl_replica *rep = e->rep;
    struct cl_world *w = rep->w;
    uint64_t tokens = 0;

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
        register_prompt(e, r);
        tokens++;
        r->gen_tokens++;
        if (e->role == CL_ROLE_PREFILL && r->gen_tokens < r->output_tokens) {
            handoff(e, r); /* its first token counts when the KV lands */
            continue;
        }
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
        if (e->spec) {
            /* Its first new block when the free slots of its last one
             * are used at tau tokens a step, then every grow_period. */
            int64_t free_slots = r->kv_blocks * e->block_tokens - target;
            r->dec_steps = spec_steps(e, r->output_tokens - r->gen_tokens);
            r->dec_phase =
                (i + 1 + (int64_t)((double)free_slots / e->spec_tau)) %
                e->grow_period;
            e->ctx_entry += target + 1;
        }
        e->phase_n[phase_of(e, r)]++;
        dec_set_add(
            &e->decoding, r,
            i + (e->spec ? r->dec_steps : r->output_tokens - r->gen_tokens));
        dec_count(e, r, +1);
    }
    return tokens;
}

/* ---- Fast-forward of steady decode ----
 *
 * A replica whose next iterations are decode steps of the same decoders
 * (nothing waiting, no prompt in the batch, no decoder finishing before
 * the last of them, KV growth within its blocks), the first of them
 * possibly completing one prompt whose request then decodes with them,
 * knows their step times in advance: ff_start() puts only the last
 * iteration's end in the event queue and keeps the others' step times
 * (ff_dt). Their ends are applied in order, each at its own time
 * (ff_prompt_step(), ff_run(): what on_iteration_end() and kick() do for
 * such a step, nothing else can happen in one), whenever anything might
 * look: before every other event (the loop's hook ff_hook(), over the
 * replicas with a window) and at the window's last end. (A request that
 * finishes looks at no other replica: a request its client sends at once is an
 * event of its own.) Arrivals are not looks when the routing reads only what a
 * window leaves as it is (outstanding counts, states, KV capacities, speeds,
 * slots: not least-kv or prefix-affinity), and the window the request joins is
 * cut first; their handlers then run without the hook (cl__arrivals_quiet()),
 * which at a high rate of arrivals would otherwise run before most events.
 * Anything that changes the replica (a request routed to it, abandoned,
 * a drain, a failure) first cuts the window at the iteration in flight
 * (ff_cut()), whose end becomes an event again; a request routed to it
 * under async scheduling, at the iteration after (ff_cut_arrival()). So every
 * statistic sees the same values at the same simulated times as without it;
 * what changes is the order in which replicas add to shared sums (their
 * floating-point rounding) and, for an iteration ending at the very
 * nanosecond of another event, possibly which of the two comes first.
 * Worlds with P/D, speculative decoding, link faults, defragmentation,
 * rebalancing or migration run without it, as does `dsec run
 * --no-fast-forward`. Cost: a window of K iterations prices its K steps
 * up front (the memo makes each a few dozen operations) and saves K - 1
 * events; a window cut early has priced steps it does not use. */

/* Most iterations in one window: longer windows save few events more and
 * price more steps that a cut throws away (each replica adapts its own,
 * ff_want). */
#define FF_MAX 64

static void ff_list_remove(struct llm_world *lw, struct cl_llm_replica *e)
{
    struct cl_llm_replica *last = lw->ff_list[--lw->ff_count];

    lw->ff_list[e->ff_slot] = last;
    lw->ff_due[e->ff_slot] = lw->ff_due[lw->ff_count];
    last->ff_slot = e->ff_slot;
    e->ff_slot = -1;
    e->ff_n = 0;
    e->ff_pf = 0;
    e->ff_cut_short = 0;
}

/* The end of a window's first iteration when it completes a prompt
 * (e->ff_pf), at time t, and the start of the next: what
 * on_iteration_end() and kick() do for that step (ff_start() checked what
 * it may be), in the same order, with the same arithmetic: the decoders'
 * gaps, the prompt landed (its request decodes with the others from the
 * next step on), the decoders' growth (it fits), an empty admission. */
static void ff_prompt_step(struct cl_llm_replica *e, int64_t t)
{
    struct cl_replica *rep = e->rep;
    struct cl_world *w = rep->w;
    int64_t n = e->decode_in_flight;
    int64_t gap_ns = t - e->iter_start_ns, dt;
    double itl_s = sim_ns_to_s(gap_ns);
    uint64_t tokens = (uint64_t)n;

    if (t > w->last_event_ns)
        w->last_event_ns = t;
    e->ctx_sum += n;
    if (w->elastic && n > 0) {
        pol_ph_add_n(&rep->ctr.itl, itl_s, (uint64_t)n);
        pol_ph_add_n(&w->cl_ctr.itl, itl_s, (uint64_t)n);
    }
    if (n > 0) /* before the prompt's request joins the decoders */
        cl__itl_add(w, gap_ns, (uint64_t)e->dec_measured, e->dec_stage,
                    e->ndec_stage);
    tokens += land(e, e->prefill_chunks, e->iter_no, t);
    e->prefill_chunks = 0;
    e->ff_pf = 0;
    rep->ctr.output_tokens += tokens;
    w->cl_ctr.output_tokens += tokens;
    next_iter(e);
    e->blocks_used += e->phase_n[e->iter_phase] * e->grow_blocks;
    e->grown = 1;
    e->sched_cutoff_ns = INT64_MAX;
    if (e->blocks_used > e->lw->kv_blocks_peak)
        e->lw->kv_blocks_peak = e->blocks_used;
    dt = e->ff_dt[++e->ff_done];
    e->decode_in_flight = (int64_t)e->decoding.n;
    e->lw->decode_gpu_ns += (1 - 0.0) * (double)dt * e->perf->gpus;
    e->iter_start_ns = t;
    e->lw->ff_due[e->ff_slot] = e->ff_done + 1 < e->ff_n ? t + dt : INT64_MAX;
    /* Its gauges changed (the prompt's request decodes now). */
    cl__rseries_touch_at(w, rep, t);
}

/* The window's steps after one that completes a prompt, whose decoders
 * are all of it, ending before now: what ff_prompt_step() does for a step
 * but the prompt, the same updates in the same order, the
 * replica's in registers, so that each step's sums wait only on the last
 * step's, not on a store and a load. Their gaps and KV usage go to gap
 * and kv_t / kv; returns how many steps. */
static int ff_run(struct cl_llm_replica *e, int64_t now, int64_t *gap,
                  int *ngap, int64_t *kv_t, double *kv, int *nkv)
{
    struct cl_replica *rep = e->rep;
    struct cl_world *w = rep->w;
    struct llm_world *lw = e->lw;
    const int64_t *dt = e->ff_dt;
    int64_t n = (int64_t)e->decoding.n, done = e->ff_done, last = e->ff_n - 1;
    int64_t start = e->iter_start_ns, blocks = e->blocks_used;
    int64_t peak = lw->kv_blocks_peak, phase = e->iter_phase;
    int64_t steps;
    double gpu_ns = lw->decode_gpu_ns, gpus = e->perf->gpus;
    double cap = (double)e->cap_blocks;
    /* Read once: the stores to gap, kv_t and kv could alias them. */
    const int64_t *phase_n = e->phase_n;
    int64_t period = e->grow_period, grow = e->grow_blocks;
    int elastic = w->elastic && n > 0, has_cap = e->cap_blocks > 0;
    int ng = *ngap, nk = *nkv;

    while (done < last && start + dt[done] < now) {
        int64_t t = start + dt[done], g;
        gap[ng++] = t - start;
        if (elastic) {
            double itl_s = sim_ns_to_s(t - start);
            pol_ph_add_n(&rep->ctr.itl, itl_s, (uint64_t)n);
            pol_ph_add_n(&w->cl_ctr.itl, itl_s, (uint64_t)n);
        }
        if (++phase == period)
            phase = 0;
        g = phase_n[phase] * grow;
        blocks += g;
        if (blocks > peak)
            peak = blocks;
        gpu_ns += (1 - 0.0) * (double)dt[++done] * gpus;
        start = t;
        /* Kept when it grew: no branch (growth follows the decoders'
         * phases, which a predictor does not learn). */
        kv_t[nk] = t;
        kv[nk] = has_cap ? (double)blocks / cap : 0;
        nk += g != 0;
    }
    *ngap = ng;
    *nkv = nk;
    steps = done - e->ff_done;
    if (steps == 0)
        return 0;
    if (start > w->last_event_ns)
        w->last_event_ns = start;
    e->ctx_sum += n * steps;
    rep->ctr.output_tokens += (uint64_t)(n * steps);
    w->cl_ctr.output_tokens += (uint64_t)(n * steps);
    e->iter_no += steps;
    e->iter_phase = phase;
    e->blocks_used = blocks;
    e->grown = 1;
    e->sched_cutoff_ns = INT64_MAX;
    lw->kv_blocks_peak = peak;
    e->ff_done = done;
    e->decode_in_flight = n;
    lw->decode_gpu_ns = gpu_ns;
    e->iter_start_ns = start;
    lw->ff_due[e->ff_slot] = done < last ? start + dt[done] : INT64_MAX;
    return (int)steps;
}

/* Applies the window's iteration ends before now (not at now: an event at
 * the same time was most likely queued first). */
static void ff_sync(struct cl_llm_replica *e, int64_t now)
{
    int64_t gap[FF_MAX], kv_t[FF_MAX];
    double kv[FF_MAX];
    int n = 0, nkv = 0, steps = 0;

    if (e->ff_pf && e->ff_done + 1 < e->ff_n &&
        e->iter_start_ns + e->ff_dt[e->ff_done] < now) {
        ff_prompt_step(e, e->iter_start_ns + e->ff_dt[e->ff_done]);
        steps++;
    }
    steps += ff_run(e, now, gap, &n, kv_t, kv, &nkv);
    /* Their inter-token gaps and KV usage: nothing reads the statistics
     * in between, and the decoders are the same throughout. */
    if (n > 0)
        cl__itl_add_run(e->rep->w, gap, n, (uint64_t)e->dec_measured,
                        e->dec_stage, e->ndec_stage);
    if (steps > 0)
        cl__rseries_decode_run(e->rep->w, e->rep, kv_t, kv, nkv);
}

static void ff_sync_all(struct llm_world *lw, int64_t now)
{
    int64_t min = INT64_MAX;

    if (now <= lw->ff_min)
        return; /* nothing due: O(1) */
    for (int i = 0; i < lw->ff_count; i++) {
        if (lw->ff_due[i] < now)
            ff_sync(lw->ff_list[i], now);
        if (lw->ff_due[i] < min)
            min = lw->ff_due[i];
    }
    lw->ff_min = min;
}

static void ff_hook(struct sim_loop *loop, void *arg)
{
    struct llm_world *lw = arg;

    if (lw->ff_count > 0)
        ff_sync_all(lw, sim_loop_now(loop));
}

/* A window of e was cut, its last steps priced for nothing: the next is
 * shorter (by a quarter: 1 % fewer instructions in the fleet hour than by
 * half), at least 2. */
static void ff_shrink(struct cl_llm_replica *e)
{
    e->ff_want = e->ff_want * 3 / 4 > 2 ? e->ff_want * 3 / 4 : 2;
}

/* Ends e's window at the iteration in flight, whose end becomes the
 * event: before anything changes e. */
static void ff_cut(struct cl_llm_replica *e)
{
    struct sim_loop *loop = e->rep->w->loop;

    if (e->ff_n == 0)
        return;
    ff_sync(e, sim_loop_now(loop));
    if (e->ff_done + 1 < e->ff_n) {
        sim_loop_reschedule(loop, &e->iter_ev,
                            e->iter_start_ns + e->ff_dt[e->ff_done]);
        ff_shrink(e);
    }
    ff_list_remove(e->lw, e);
}

/* Before a request arrives at e: with async scheduling the iteration
 * after the one in flight was scheduled when that one started, so it
 * cannot take the request (admit() stops at sched_cutoff_ns) and is the
 * same decode step with or without it. The window then ends after that
 * iteration, not after the one in flight: one event for the arrival, not
 * two (the fleet-day's 40.1 M events become 33.4 M). Else ff_cut(). */
static void ff_cut_arrival(struct cl_llm_replica *e)
{
    struct sim_loop *loop = e->rep->w->loop;
    int64_t now = sim_loop_now(loop), end;

    if (e->ff_n == 0)
        return;
    ff_sync(e, now);
    if (!e->async || e->iter_start_ns >= now || e->ff_done + 2 > e->ff_n) {
        /* The next iteration could take the request, or the one in flight
         * is the window's last. */
        ff_cut(e);
        return;
    }
    if (e->ff_done + 2 == e->ff_n)
        return; /* the window ends after the next iteration anyway */
    end = e->iter_start_ns + e->ff_dt[e->ff_done] + e->ff_dt[e->ff_done + 1];
    sim_loop_reschedule(loop, &e->iter_ev, end);
    e->ff_n = e->ff_done + 2;
    ff_shrink(e);
    e->ff_cut_short = 1;
}

static void ff_cut_all(struct llm_world *lw)
{
    while (lw->ff_count > 0)
        ff_cut(lw->ff_list[lw->ff_count - 1]);
}

/* Whether this world fast-forwards (see above), decided with its first
 * replica, once the run's options are known; installs the hook. */
static void ff_decide(struct cl_world *w, struct llm_world *lw)
{
    const struct cl_scenario *s = w->scn;

    if (lw->ff_decided)
        return;
    lw->ff_decided = 1;
    lw->ff_ok = (w->opts == NULL || !w->opts->no_fast_forward) &&
                !s->deploy.disaggregation.enabled && s->faults.nlinks == 0 &&
                !s->cluster.defrag && s->cluster.rebalance_ns <= 0;
    if (!lw->ff_ok)
        return;
    sim_loop_set_hook(w->loop, ff_hook, lw, on_iteration_end);
    /* Routing by counts a window leaves as they are: arrivals need no
     * window brought up to date but the one they cut. */
    if (s->cluster.routing == CL_ROUTE_LEAST_OUTSTANDING ||
        s->cluster.routing == CL_ROUTE_RANDOM ||
        s->cluster.routing == CL_ROUTE_ROUND_ROBIN)
        cl__arrivals_quiet(w);
}

/* Called by kick() with the step b it has just priced at dt (no stall, no
 * warm-up, no degraded link): opens a window when the steps after it are
 * alike, and returns the time to its last end (dt without one). b may
 * also complete one prompt, of a request that goes on decoding, whose
 * blocks nothing else shares (register_prompt() leaves them as they
 * are): the window's first end lands it (ff_prompt_step()), and the
 * steps after it have one decoder more. */
static int64_t ff_start(struct cl_llm_replica *e, const struct perf_batch *b,
                        int64_t dt)
{
    struct llm_world *lw = e->lw;
    struct cl_req *r = e->prefill.head;
    int64_t i0 = e->iter_no, k, used = e->blocks_used, total = dt;
    int64_t last = dec_set_first(&e->decoding);
    int64_t ph = -1; /* the prompt's request: its growth phase */
    struct perf_batch d = {0};

    if (e->waiting.n > 0 || e->spec || lw->mig_on || e->mig_stop ||
        e->rep->state != CL_R_SERVING)
        return dt;
    d.decode_seqs = b->decode_seqs;
    d.decode_ctx_tokens = b->decode_ctx_tokens + b->decode_seqs;
    if (r != NULL) {
        /* As land() will do at the first end (P/D worlds have no
         * windows): prompt + gen_tokens of context, one more token. */
        int64_t target = r->prompt_tokens + r->gen_tokens;
        if (r->next != NULL || e->prefill_chunks != 1 ||
            r->prefilled + r->chunk != target ||
            r->gen_tokens + 1 >= r->output_tokens ||
            (e->caching && r->hashes != NULL))
            return dt;
        if (i0 + r->output_tokens - (r->gen_tokens + 1) < last)
            last = i0 + r->output_tokens - (r->gen_tokens + 1);
        ph = phase_at(e, i0, target + 1);
        d.decode_seqs++;
        d.decode_ctx_tokens += target + 1;
    }
    if (last == INT64_MAX)
        return dt;
    /* Iterations i0 .. i0 + k - 1; only the last may finish a decoder. */
    k = last - i0 + 1;
    if (k > e->ff_want)
        k = e->ff_want;
    /* Each decoder grows once a period (phase_n counts them by phase):
     * when even that many periods' growth fits, so does every step's, and
     * the steps need no look. j: (i0 + m) % grow_period. */
    if (used + e->gpu.lru_n +
            ((int64_t)e->decoding.n + (ph >= 0)) * e->grow_blocks *
                ((k - 1 + e->grow_period - 1) / e->grow_period) >
        e->cap_blocks) {
        for (int64_t m = 1, j = e->iter_phase; m < k; m++) {
            if (++j == e->grow_period)
                j = 0;
            used += (e->phase_n[j] + (j == ph)) * e->grow_blocks;
            if (used + e->gpu.lru_n > e->cap_blocks) {
                k = m; /* that step would evict or preempt */
                break;
            }
        }
    }
    if (k < 2)
        return dt;
    if (e->ff_cap < k) {
        e->ff_cap = FF_MAX;
        e->ff_dt = xrealloc(e->ff_dt, (size_t)e->ff_cap, sizeof(*e->ff_dt));
    }
    e->ff_dt[0] = dt;
    /* Each at least 1 ns, as kick() takes a step. */
    total += perf_decode_steps(e->perf, &d, k - 1, e->memo, e->ff_dt + 1);
    e->ff_n = k;
    e->ff_done = 0;
    e->ff_pf = r != NULL;
    if (lw->ff_count == lw->ff_cap) {
        lw->ff_cap = lw->ff_cap ? 2 * lw->ff_cap : 16;
        lw->ff_list =
            xrealloc(lw->ff_list, (size_t)lw->ff_cap, sizeof(*lw->ff_list));
        lw->ff_due =
            xrealloc(lw->ff_due, (size_t)lw->ff_cap, sizeof(*lw->ff_due));
    }
    e->ff_slot = lw->ff_count;
    lw->ff_list[lw->ff_count] = e;
    lw->ff_due[lw->ff_count++] = e->iter_start_ns + dt; /* k >= 2 */
    if (e->iter_start_ns + dt < lw->ff_min)
        lw->ff_min = e->iter_start_ns + dt;
    return total;
}

static void on_iteration_end(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_llm_replica *e = ev->arg;
    struct cl_replica *rep = e->rep;
    struct cl_world *w = rep->w;
    int64_t now = sim_loop_now(loop);
    int64_t i, nchunks, gap_ns;
    uint64_t tokens;
    double itl_s;

    /* The window's earlier iterations end first, then this one, its last,
     * as any iteration. */
    if (e->ff_n > 0) {
        int whole = !e->ff_cut_short;
        ff_sync(e, now);
        ff_list_remove(e->lw, e);
        /* It ran whole: the next may be longer. */
        if (whole)
            e->ff_want = 2 * e->ff_want < FF_MAX ? 2 * e->ff_want : FF_MAX;
    }
    i = e->iter_no;
    nchunks = e->prefill_chunks;
    tokens = (uint64_t)e->decode_in_flight;
    itl_s = sim_ns_to_s(now - e->iter_start_ns);
    gap_ns = now - e->iter_start_ns;

    /* Speculative decoding: every decoder made tau tokens on average, one
     * gap of step / tau each (the mean time between its tokens). */
    if (e->spec && e->decode_in_flight > 0) {
        double made = e->tok_acc + e->spec_tau * (double)e->decode_in_flight;
        tokens = (uint64_t)made;
        e->tok_acc = made - (double)tokens;
        itl_s /= e->spec_tau;
        gap_ns = llround((double)gap_ns / e->spec_tau);
    }

    /* An iteration that outlives the last request (abandoned while it was
     * in flight) is part of the run: it ends no earlier. */
    if (now > w->last_event_ns)
        w->last_event_ns = now;
    /* Every decoder of this iteration made one token, one inter-token
     * interval each: one histogram update for all of them. */
    e->ctx_sum += e->decode_in_flight;
    if (e->decode_in_flight > 0 && w->elastic) {
        pol_ph_add_n(&rep->ctr.itl, itl_s, (uint64_t)e->decode_in_flight);
        pol_ph_add_n(&w->cl_ctr.itl, itl_s, (uint64_t)e->decode_in_flight);
    }
    /* The decode set is still the iteration's (it changes only below and
     * in kick()), so its counts are this iteration's token gaps. */
    if (e->decode_in_flight > 0)
        cl__itl_add(w, gap_ns, (uint64_t)e->dec_measured, e->dec_stage,
                    e->ndec_stage);

    /* Decoders whose last token this was; the last token's KV is never
     * written. */
    while (dec_set_first(&e->decoding) == i) {
        struct cl_req *r = dec_set_pop(&e->decoding);
        dec_count(e, r, -1);
        e->phase_n[phase_of(e, r)]--;
        if (e->spec) {
            e->ctx_sum -= r->prompt_tokens + r->gen_tokens + r->dec_steps;
            e->ctx_entry -= r->prompt_tokens + r->gen_tokens;
            finish(e, r, spec_blocks(e, r, i));
            continue;
        }
        e->ctx_sum -= r->prompt_tokens + r->output_tokens;
        finish(e, r, blocks_of(e, r->prompt_tokens + r->output_tokens - 1));
    }

    tokens += land(e, nchunks, i, now);
    rep->ctr.output_tokens += tokens;
    w->cl_ctr.output_tokens += tokens;

    e->stepping = 0;
    next_iter(e);
    /* Async scheduling: iteration i + 1 was scheduled as iteration i
     * started (vLLM's batch queue of two), so it takes only the requests
     * that were waiting then; kick() lifts the cutoff when nothing is
     * running. */
    if (e->async)
        e->sched_cutoff_ns = e->iter_start_ns;
    if (rep->state == CL_R_DRAINING && e->nseqs == 0 && e->waiting.n == 0) {
        update_busy(e);
        cl__replica_drained(w, rep);
        return;
    }
    kick(e);
    update_busy(e);
}

/* The prefill share of an iteration of batch b lasting dt ns (the step
 * model's time): 1 for prompts only, 0 for decoders only; a mixed step
 * gives prefill its time beyond a decode-only step of the same decoders.
 * One more step-time evaluation, for mixed steps only. */
static double phase_share(struct cl_llm_replica *e, const struct perf_batch *b,
                          int64_t dt)
{
    struct perf_batch d = {0};
    int64_t td;

    if (b->prefill_tokens == 0)
        return 0;
    if (b->decode_seqs == 0)
        return 1;
    d.decode_seqs = b->decode_seqs;
    d.decode_ctx_tokens = b->decode_ctx_tokens;
    td = perf_iteration_ns_memo(e->perf, &d, e->memo);
    return dt > td ? (double)(dt - td) / (double)dt : 0;
}

/* Starts the next iteration if there is work and none is in flight:
 * reserves the decoders' growth, admits, then schedules prompt chunks,
 * preempting the newest running request whenever blocks run out. */
static void kick(struct cl_llm_replica *e)
{
    struct cl_world *w = e->rep->w;
    struct perf_batch b = {0};
    int64_t budget = e->max_batched;
    int64_t *grow;
    int64_t dt;
    double share;
    int steady;

    if (e->stepping)
        return;
    grow = &e->phase_n[e->iter_phase];
    e->grown = 0;
    if (e->mig_stop) {
        stop_and_copy(e);
        if (e->nseqs == 0 && e->waiting.n == 0 &&
            e->rep->state == CL_R_DRAINING) {
            update_busy(e);
            cl__replica_drained(w, e->rep);
            return;
        }
    }
    while (*grow > 0 && e->blocks_used + *grow * e->grow_blocks > e->cap_blocks)
        preempt(e, victim(e));
    e->blocks_used += *grow * e->grow_blocks;
    reclaim(e);
    e->grown = 1;
    /* With nothing left running the engine is idle, and an idle engine
     * schedules whatever is waiting at once. */
    if (e->nseqs == 0)
        e->sched_cutoff_ns = INT64_MAX;
    /* vLLM's V1 scheduler admits waiting requests only in a step that
     * preempted none (`if not preempted_reqs:` before the WAITING loop of
     * vllm/v1/core/sched/scheduler.py; from recall, unverified), so that a
     * preempted request does not come straight back and evict another.
     * Here admission comes before the prompt chunks are placed, so a
     * preemption while placing them holds back the next step's admission
     * instead: one step later than vLLM. An empty engine admits anyway. */
    /* cluster.defrag: a head whose prompt does not fit may move decoders
     * away now; O(1) after its first look. */
    if (w->scn->cluster.defrag && e->waiting.head != NULL &&
        !e->waiting.head->defrag_tried)
        defrag(e);
    if (!e->preempted || e->nseqs == 0) {
        if (e->plain)
            admit_plain(e);
        else
            admit(e);
    }
    e->preempted = 0;
    e->sched_cutoff_ns = INT64_MAX;
    budget -= (int64_t)e->decoding.n;
    e->prefill_chunks = 0;
    for (struct cl_req *r = e->prefill.head; r != NULL && budget > 0;
         r = r->next) {
        int64_t target = r->prompt_tokens + r->gen_tokens;
        int64_t c = target - r->prefilled;
        int64_t need;
        if (c > budget)
            c = budget;
        if (c > e->chunk_max)
            c = e->chunk_max;
        need = blocks_of(e, r->prefilled + c) - r->kv_blocks;
        if (need > 0) {
            struct cl_req *v = NULL;
            while (e->blocks_used + need > e->cap_blocks && v != r) {
                v = victim(e);
                preempt(e, v);
            }
            if (v == r)
                break; /* it and every newer request were preempted */
            e->blocks_used += need;
            reclaim(e);
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
    if (e->spec) /* tau tokens of context a step since each began */
        b.decode_ctx_tokens =
            e->ctx_entry +
            llround(e->spec_tau * (double)(e->ctx_sum - e->ctx_entry));
    if (b.decode_seqs == 0 && b.prefill_tokens == 0)
        return; /* idle until the next arrival */
    e->decode_in_flight = b.decode_seqs;
    /* Blocks only shrink between kicks, so this sees every peak. */
    if (e->blocks_used > e->lw->kv_blocks_peak)
        e->lw->kv_blocks_peak = e->blocks_used;
    dt = perf_iteration_ns_memo(e->perf, &b, e->memo);
    share = phase_share(e, &b, dt);
    /* A step the step model alone prices may open a fast-forward window. */
    steady = e->lw->ff_ok && w->link_factor >= 1.0 &&
             e->pf_pcie_bytes_gpu <= 0 && e->pf_rdma_bytes_gpu <= 0 &&
             e->pcie_bytes_gpu <= 0 && e->rdma_bytes_gpu <= 0 &&
             e->iter_no >= w->scn->server.warmup.iterations;
    if (w->link_factor < 1.0) {
        /* A degraded link: the all-reduce term takes 1/factor as long.
         * The breakdown is computed only then, off the common path. */
        struct perf_breakdown br;
        perf_iteration_breakdown(e->perf, &b, &br);
        dt += (int64_t)llround(br.comm_ns * (1.0 / w->link_factor - 1.0));
    }
    if (e->pf_pcie_bytes_gpu > 0 || e->pf_rdma_bytes_gpu > 0) {
        /* Tiered KV coming back, layer by layer ahead of the compute: the
         * iteration lasts max(compute, transfer). */
        double t = e->pf_pcie_bytes_gpu > 0
                       ? net_p2p_ns(&e->pcie, e->pf_pcie_bytes_gpu)
                       : 0;
        if (e->pf_rdma_bytes_gpu > 0 &&
            net_p2p_ns(e->rdma, e->pf_rdma_bytes_gpu) > t)
            t = net_p2p_ns(e->rdma, e->pf_rdma_bytes_gpu);
        if (t > (double)dt) {
            int64_t stall = (int64_t)llround(t) - dt;
            dt += stall;
            e->lw->kv.stall_ns += stall;
        }
        e->pf_pcie_bytes_gpu = e->pf_rdma_bytes_gpu = 0;
    }
    if (e->pcie_bytes_gpu > 0 || e->rdma_bytes_gpu > 0) {
        /* Fetches and swaps this iteration waits for; the host and remote
         * links work in parallel. */
        double t =
            e->pcie_bytes_gpu > 0 ? net_p2p_ns(&e->pcie, e->pcie_bytes_gpu) : 0;
        if (e->rdma_bytes_gpu > 0 && e->rdma != NULL &&
            net_p2p_ns(e->rdma, e->rdma_bytes_gpu) > t)
            t = net_p2p_ns(e->rdma, e->rdma_bytes_gpu);
        dt += (int64_t)llround(t);
        e->lw->kv.transfer_ns += (int64_t)llround(t);
        e->pcie_bytes_gpu = e->rdma_bytes_gpu = 0;
    }
    /* Engine warm-up (server.warmup): the replica's first iterations. */
    if (e->iter_no < w->scn->server.warmup.iterations)
        dt = (int64_t)llround((double)dt * w->scn->server.warmup.factor);
    if (dt < 1)
        dt = 1;
    e->lw->prefill_gpu_ns += share * (double)dt * e->perf->gpus;
    e->lw->decode_gpu_ns += (1 - share) * (double)dt * e->perf->gpus;
    e->stepping = 1;
    e->iter_start_ns = sim_loop_now(w->loop);
    sim_loop_after(w->loop, &e->iter_ev, steady ? ff_start(e, &b, dt) : dt);
}

/* Host memory per GPU for the offload tier when server.kv_offload.host is
 * not given. Assumption (not in docs/sources.md): half of a DGX H100's 2 TB of
 * system memory (NVIDIA DGX H100 datasheet) over its 8 GPUs, the other
 * half left to the OS, the engine and pinned staging buffers. */
#define HOST_BYTES_PER_GPU 128e9

/* Sets up the prefix cache, the offload tiers and the swap space of e. */
static void kv_init(struct cl_world *w, struct cl_llm_replica *e)
{
    const struct cl_server *sv = &w->scn->server;
    const struct perf_replica *p = e->perf;
    const struct net_link *base;
    double block, host;
    char name[16];

    e->caching = sv->prefix_caching;
    e->async = sv->async_scheduling;
    e->kva = sv->kv_admission;
    e->sched_cutoff_ns = INT64_MAX;
    e->tiered =
        w->scn->cluster.kv_cache_offload && sv->preemption == CL_PREEMPT_AUTO;
    e->plain = !sv->prefix_caching && sv->preemption != CL_PREEMPT_SWAP &&
               !e->tiered && !w->scn->deploy.disaggregation.enabled &&
               w->scn->cluster.drain != CL_DRAIN_MIGRATE && !e->lw->mig_on &&
               w->scn->cluster.rebalance_ns == 0 && !w->scn->cluster.defrag;
    e->offload = e->caching && w->scn->cluster.kv_cache_offload;
    cl_kvtier_init(&e->gpu);
    cl_kvtier_init(&e->host);
    /* Each GPU holds and moves its own share of a token's KV: tp x pp
     * GPUs (one data-parallel group) hold all of it. */
    e->tok_bytes_gpu = p->kv_bytes_per_token_per_gpu;
    e->tok_bytes = p->kv_bytes_per_token_per_gpu * p->tp * p->pp;
    block = (double)e->block_tokens * e->tok_bytes_gpu;
    /* The GPU's host link: the net catalog's PCIe class of its generation
     * (alpha 2.5 us, docs/sources.md §2.2) at the GPU's own PCIe bandwidth. */
    snprintf(name, sizeof(name), "pcie%d",
             p->gpu->pcie_gen >= 4 && p->gpu->pcie_gen <= 6 ? p->gpu->pcie_gen
                                                            : 5);
    base = net_link_find(name);
    e->pcie = *base;
    if (p->gpu->pcie_bytes_per_s > 0)
        e->pcie.bytes_per_s = p->gpu->pcie_bytes_per_s;
    gpu_intra_link(p->gpu, &e->nvl);
    e->swap_cap = block > 0 ? (int64_t)(sv->swap_space_bytes / block) : 0;
    if (!e->offload && !e->tiered)
        return;
    host = isnan(sv->kv_offload.host_bytes) ? HOST_BYTES_PER_GPU * p->gpus
                                            : sv->kv_offload.host_bytes;
    e->host_cap =
        e->tok_bytes > 0
            ? (int64_t)(host / ((double)e->block_tokens * e->tok_bytes))
            : 0;
    if (sv->kv_offload.remote_bytes > 0) {
        e->rdma = net_link_find(kv_link_names[sv->kv_offload.remote_link]);
        if (!e->lw->kv.remote_ready) {
            cl_kvtier_init(&e->lw->kv.remote);
            e->lw->kv.remote_ready = 1;
            e->lw->kv.remote_cap =
                (int64_t)(sv->kv_offload.remote_bytes /
                          ((double)e->block_tokens * e->tok_bytes));
        }
    }
}

static int llm_world_init(struct cl_world *w, struct sim_diag *d)
{
    struct llm_world *lw = xcalloc(1, sizeof(struct llm_world));
    (void)d;
    lw->w = w;
    lw->ff_min = INT64_MAX;
    sim_event_init(&lw->reb_ev, on_rebalance, lw);
    w->engine_state = lw;
    return 0;
}

static void llm_world_fini(struct cl_world *w)
{
    struct llm_world *lw = w->engine_state;

    if (lw == NULL)
        return;
    if (lw->kv.remote_ready)
        cl_kvtier_fini(&lw->kv.remote);
    for (int i = 0; lw->memo != NULL && i < w->npools * CL_ROLE_COUNT; i++)
        perf_step_memo_fini(&lw->memo[i]);
    free(lw->memo);
    free(lw->ff_list);
    free(lw->ff_due);
    if (lw->ff_ok)
        sim_loop_set_hook(w->loop, NULL, NULL, NULL);
    free(lw);
    w->engine_state = NULL;
}

/* Copies the block hashes of q into r (nothing without hashes). */
static void req_hashes(struct cl_req *r, const struct wl_request *q)
{
    free(r->hashes);
    r->hashes = NULL;
    r->nhashes = 0;
    r->hash_tokens = 0;
    if (q->block_hashes == NULL || q->nblocks <= 0 || q->block_tokens <= 0)
        return;
    r->hashes = xmalloc((size_t)q->nblocks * sizeof(*r->hashes));
    memcpy(r->hashes, q->block_hashes, (size_t)q->nblocks * sizeof(uint64_t));
    r->nhashes = q->nblocks;
    r->hash_tokens = q->block_tokens;
}

/* Prompts of replicas with prefix caching carry their block hashes; a
 * request that could never fit a replica's KV cache is refused. */
static int llm_accept(struct cl_world *w, struct cl_req *r,
                      const struct wl_request *q)
{
    if (w->max_model_len > 0 &&
        r->prompt_tokens + r->output_tokens > w->max_model_len) {
        /* vLLM's API server refuses it: "This model's maximum context
         * length is ... tokens". */
        w->dropped_too_long++;
        return 0;
    }
    if (w->scn->server.prefix_caching)
        req_hashes(r, q);
    return cl__llm_kv_peak_tokens(r) <= w->kv_cap_max;
}

static void llm_ready(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = xcalloc(1, sizeof(*e));
    const struct cl_server *sv = &w->scn->server;
    /* Its role's layout: under P/D each group has its own perf, caps and
     * budget. */
    const struct cl_layout_rt *lay = cl__rep_layout(w, rep);
    e->rep = rep;
    e->lw = w->engine_state;
    e->perf = &lay->perf;
    /* The pools exist from here on (world_init runs before them). */
    if (e->lw->memo == NULL)
        e->lw->memo =
            xcalloc((size_t)w->npools * CL_ROLE_COUNT, sizeof(*e->lw->memo));
    e->memo = &e->lw->memo[rep->pool * CL_ROLE_COUNT + rep->role];
    e->ff_slot = -1;
    e->ff_want = 4;
    ff_decide(w, e->lw);
    /* cluster.rebalance ticks from the first replica that serves. */
    if (w->scn->cluster.rebalance_ns > 0 && !e->lw->reb_started) {
        e->lw->reb_started = 1;
        sim_loop_after(w->loop, &e->lw->reb_ev, w->scn->cluster.rebalance_ns);
    }
    e->block_tokens = sv->block_tokens > 0 ? sv->block_tokens : 16;
    e->block_shift = -1;
    for (int s = 0; s < 62; s++)
        if (e->block_tokens == (int64_t)1 << s)
            e->block_shift = s;
    e->cap_blocks = perf_kv_capacity_tokens(e->perf) / e->block_tokens;
    /* server.kv_admission (kv_init() sets e->kva too; it runs below). */
    e->kva = sv->kv_admission;
    e->kv_keep_free = e->kva == CL_KVA_WATERMARK
                          ? (int64_t)floor(w->scn->server.kv_watermark *
                                           (double)e->cap_blocks)
                          : 0;
    /* Data-parallel attention (ep = dp x tp, docs/serving.md): every DP
     * rank is an engine with its own scheduler, so the batch cap and the
     * token budget are per rank; one request's chunk stays within one
     * rank's budget. */
    e->max_seqs = lay->max_num_seqs * e->perf->dp;
    e->max_batched = lay->max_num_batched_tokens * e->perf->dp;
    e->chunk_max = lay->max_num_batched_tokens;
    e->grow_period = e->block_tokens;
    e->grow_blocks = 1;
    if (e->perf->spec_method != PERF_SPEC_NONE) {
        /* A decoder writes tau tokens a step on average: a new block every
         * floor(B / tau) steps (a little ahead, as vLLM allocates the
         * drafted tokens' slots before verifying them). */
        double a = e->perf->spec_acceptance, m2 = 0.0, p = 1.0;
        e->spec = 1;
        e->spec_k = e->perf->spec_tokens;
        e->spec_alpha = a;
        e->spec_tau = perf_spec_tokens_per_step(e->spec_k, a);
        /* E[X^2] = sum_{j=0..k} (2j + 1) P(X > j), P(X > j) = a^j. */
        for (int j = 0; j <= e->spec_k; j++, p *= a)
            m2 += (2.0 * j + 1.0) * p;
        e->spec_var = m2 - e->spec_tau * e->spec_tau;
        e->grow_period = (int64_t)floor((double)e->block_tokens / e->spec_tau);
        if (e->grow_period < 1) {
            e->grow_period = 1;
            e->grow_blocks =
                (int64_t)ceil(e->spec_tau / (double)e->block_tokens);
        }
    }
    e->phase_n = xcalloc((size_t)e->grow_period, sizeof(*e->phase_n));
    kv_init(w, e);
    e->role = rep->role; /* replica.c: the group it was requested for */
    sim_event_init(&e->iter_ev, on_iteration_end, e);
    sim_event_init(&e->mig_ev, on_mig_precopied, e);
    rep->engine_state = e;
    /* Requests held while no replica served go out now. */
    while (w->queue.head != NULL) {
        struct cl_req *r = cl__fifo_pop(&w->queue);
        cl__set_waiting(w, -1);
        llm_arrive(w, r);
    }
}

static void llm_replica_free(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = llm_of(rep);

    if (e == NULL)
        return;
    if (e->ff_n > 0)
        ff_list_remove(e->lw, e);
    free(e->ff_dt);
    if (sim_event_pending(&e->mig_ev))
        sim_loop_cancel(w->loop, &e->mig_ev);
    dec_set_fini(&e->decoding);
    cl_kvtier_fini(&e->gpu);
    cl_kvtier_fini(&e->host);
    free(e->phase_n);
    free(e->dec_stage);
    free(e);
    rep->engine_state = NULL;
}

/* Hands every request of fifo q back to the router. A swapped request's
 * KV stays in this replica's host memory: it will be recomputed. */
static void reroute(struct cl_world *w, struct cl_fifo *q, int was_waiting)
{
    struct cl_req *r;
    while ((r = cl__fifo_pop(q)) != NULL) {
        struct cl_llm_replica *held = r->rep != NULL ? llm_of(r->rep) : NULL;
        if (held != NULL)
            unswap(held, r);
        r->swapped_tokens = 0;
        r->swap_tier = 0;
        r->pd_tokens = 0; /* the KV it received is lost: prefill again */
        if (was_waiting)
            cl__set_waiting(w, -1);
        llm_arrive(w, r);
    }
}

/* A drain is to migrate (a scaling decision may ask for one whatever
 * cluster.drain says): every replica admits moved KV from now on. The
 * plain admission of the others is the same as admit()'s for what they
 * hold, so switching mid-run changes nothing else. O(replicas), once. */
static void mig_enable(struct cl_world *w, struct llm_world *lw)
{
    if (lw->mig_on)
        return;
    ff_cut_all(lw); /* moves change other replicas' batches */
    lw->mig_on = 1;
    for (int k = 0; k < w->nreps; k++)
        if (llm_of(w->reps[k]) != NULL)
            llm_of(w->reps[k])->plain = 0;
}

static void llm_drain(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = llm_of(rep);
    ff_cut(e);
    reroute(w, &e->waiting, 1);
    if (rep->drain == CL_DRAIN_MIGRATE) {
        mig_enable(w, e->lw);
        if (e->mig_stop || sim_event_pending(&e->mig_ev))
            e->mig_all = 1; /* a rebalance is under way: move all */
        else if (!mig_start(e) && e->nseqs > 0)
            e->lw->kv.migration_fallbacks++;
    }
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
    r->nshared = 0; /* the replica's cache is gone with it */
    r->swapped_tokens = 0;
    r->swap_tier = 0;
    r->pd_tokens = 0;
    r->run_prev = r->run_next = NULL;
    r->retries++;
    w->retried++;
    cl__set_running(w, -1);
    llm_arrive(w, r);
}

static void llm_fail(struct cl_world *w, struct cl_replica *rep)
{
    struct cl_llm_replica *e = llm_of(rep);
    struct cl_req *r;

    ff_cut(e); /* its iterations up to now happened */
    sim_loop_cancel(w->loop, &e->iter_ev);
    /* Preempted requests in the waiting queue keep their tokens: they
     * were going to recompute them anyway. */
    reroute(w, &e->waiting, 1);
    while ((r = cl__fifo_pop(&e->prefill)) != NULL)
        restart(w, r);
    while ((r = dec_set_pop(&e->decoding)) != NULL)
        restart(w, r);
    e->nseqs = 0;
    e->blocks_used = 0;
    e->run_head = e->run_tail = NULL;
    e->ctx_sum = 0;
    cl__replica_set_busy(w, rep, 0);
    llm_replica_free(w, rep);
}

void cl__llm_gauges(const struct cl_world *w, const struct cl_replica *rep,
                    struct cl_gauges *g)
{
    const struct cl_llm_replica *e = llm_of(rep);

    (void)w;
    if (e == NULL) {
        g->running = g->waiting = g->kv_usage = 0;
        return;
    }
    g->running = (double)e->nseqs;
    g->waiting = (double)e->waiting.n;
    g->kv_usage = kv_usage(e);
}

int64_t cl__llm_outstanding(const struct cl_replica *rep)
{
    const struct cl_llm_replica *e = llm_of(rep);

    return e != NULL ? (int64_t)e->nseqs + (int64_t)e->waiting.n : 0;
}

struct cl_replica *cl__llm_least_outstanding(const struct cl_world *w,
                                             int64_t need)
{
    struct cl_replica *pick = NULL;
    int64_t least = INT64_MAX;
    /* Every replica holds what the smallest pool's holds (no P/D here). */
    int fits_all = need <= w->kv_cap_min;

    if (fits_all) {
        int best = -1;
        for (int s = 0; s < w->nreps; s++) {
            if (w->route_n[s] < least) {
                least = w->route_n[s];
                best = s;
            }
        }
        return best >= 0 ? w->reps[best] : NULL;
    }
    for (int s = 0; s < w->nreps; s++) {
        struct cl_replica *rep = w->reps[s];
        const struct cl_llm_replica *e = llm_of(rep);
        int64_t n;

        if (rep->state != CL_R_SERVING ||
            need > cl__rep_layout(w, rep)->kv_cap_tokens)
            continue;
        n = e != NULL ? (int64_t)e->nseqs + (int64_t)e->waiting.n : 0;
        if (n < least) {
            least = n;
            pick = rep;
        }
    }
    return pick;
}

/* P/D routing: a request without transferred KV goes to the prefill
 * group, one with it to the decode group; join the shortest queue among
 * the group's serving replicas whose KV cache holds the request at its
 * peak (ties to the lowest slot). Returns 0 when none serves. */
static int pd_route(struct cl_world *w, struct cl_req *r)
{
    struct cl_llm_replica *best = NULL;
    int role = r->pd_tokens > 0 ? CL_ROLE_DECODE : CL_ROLE_PREFILL;
    int64_t need = cl__llm_kv_peak_tokens(r);
    for (int k = 0; k < w->nreps; k++) {
        struct cl_replica *rep = w->reps[k];
        struct cl_llm_replica *e = llm_of(rep);
        if (rep->state != CL_R_SERVING || e == NULL || e->role != role ||
            need > cl__rep_layout(w, rep)->kv_cap_tokens)
            continue;
        if (best == NULL || load(e) < load(best))
            best = e;
    }
    if (best == NULL)
        return 0;
    r->rep = best->rep;
    wait_push(best, r, 0);
    cl__set_waiting(w, +1);
    kick(best);
    update_busy(best);
    return 1;
}

static void llm_arrive(struct cl_world *w, struct cl_req *r)
{
    if (w->scn->deploy.disaggregation.enabled) {
        if (!pd_route(w, r)) {
            r->rep = NULL;
            cl__fifo_push(&w->queue, r);
            cl__set_waiting(w, +1);
        }
        return;
    }

    /* cluster.routing picks among the serving replicas whose KV cache can
     * hold the request at its peak (router.c); the default,
     * least-outstanding, is join-shortest-queue over waiting + admitted
     * with ties to the lowest slot. O(replicas). */
    struct cl_replica *to = cl__route(w, r);
    struct cl_llm_replica *best = to != NULL ? llm_of(to) : NULL;

    r->rep = NULL;
    if (best == NULL) {
        /* Nothing can serve it now: hold it until a replica is ready. */
        cl__fifo_push(&w->queue, r);
        cl__set_waiting(w, +1);
        return;
    }
    ff_cut_arrival(best);
    r->rep = best->rep;
    wait_push(best, r, 0);
    cl__set_waiting(w, +1);
    kick(best);
    update_busy(best);
}

/* 1 when r is admitted on e (prefilling or decoding): in its run list. */
static int admitted(const struct cl_llm_replica *e, const struct cl_req *r)
{
    return r->run_prev != NULL || e->run_head == r;
}

/* The client gave up on r, as vLLM's abort on a client disconnect: out of
 * the holding queue, a replica's waiting queue (with its swapped KV), the
 * batch (prefilling or decoding: its blocks are freed, as preempt() does,
 * and the prompt blocks it registered stay cached, unreferenced) or a P/D
 * transfer (cancelled). An iteration in flight keeps its cost and forgets
 * r's chunk or token; the replica then admits what the freed blocks let
 * in, or reports itself drained. O(log n). */
static void llm_abandon(struct cl_world *w, struct cl_req *r)
{
    struct cl_llm_replica *e;

    if (r->pd_moving) {
        sim_loop_cancel(w->loop, &r->ev); /* neither waiting nor running */
        r->pd_moving = 0;
        return;
    }
    if (r->rep == NULL) {
        cl__fifo_remove(&w->queue, r);
        cl__set_waiting(w, -1);
        return;
    }
    e = llm_of(r->rep);
    ff_cut(e);
    if (!admitted(e, r)) {
        cl__fifo_remove(&e->waiting, r);
        unswap(e, r);
        cl__set_waiting(w, -1);
    } else {
        if (r->dec_iter >= 0) {
            int64_t gen = decoded(e, r);
            e->phase_n[phase_of(e, r)]--;
            dec_set_remove(&e->decoding, r);
            if (e->spec) {
                e->ctx_sum -= r->prompt_tokens + r->gen_tokens + e->iter_no -
                              r->dec_iter - 1;
                e->ctx_entry -= r->prompt_tokens + r->gen_tokens;
                release(e, r, spec_blocks(e, r, e->iter_no - 1 + e->grown));
            } else {
                e->ctx_sum -= r->prompt_tokens + gen;
                release(e, r,
                        blocks_of(e, r->prompt_tokens + gen - 1 + e->grown));
            }
            if (e->stepping)
                e->decode_in_flight--; /* makes no token at its end */
        } else {
            if (e->stepping && r->chunk > 0)
                e->prefill_chunks--; /* the chunks in flight lead prefill */
            cl__fifo_remove(&e->prefill, r);
            release(e, r, r->kv_blocks);
        }
        run_unlink(e, r);
        r->kv_blocks = 0;
        r->chunk = 0;
        e->nseqs--;
        cl__set_running(w, -1);
    }
    r->rep = NULL;
    if (!e->stepping && e->rep->state == CL_R_DRAINING && e->nseqs == 0 &&
        e->waiting.n == 0) {
        update_busy(e);
        cl__replica_drained(w, e->rep);
        return;
    }
    kick(e);
    update_busy(e);
}

int64_t cl__llm_prefix_cached_tokens(const struct cl_replica *rep,
                                     const struct cl_req *r)
{
    const struct cl_llm_replica *e = llm_of(rep);
    int64_t claim, n;
    if (e == NULL)
        return 0;
    n = lookup(e, r, 1, &claim) * e->block_tokens;
    return n < r->prompt_tokens ? n : r->prompt_tokens;
}

/* The prefix-cache, offload, swap and P/D figures, the preemptions and
 * the KV blocks held at the peak and at the end. */
static void llm_results(const struct cl_world *w, int64_t end_ns,
                        struct cl_results *out)
{
    const struct llm_world *lw = w->engine_state;
    const struct cl_kv_world *kv = &lw->kv;

    (void)end_ns;
    out->preemptions = lw->preemptions;
    out->prefill_gpu_hours = lw->prefill_gpu_ns / 3.6e12;
    out->decode_gpu_hours = lw->decode_gpu_ns / 3.6e12;
    out->kv_blocks_peak = lw->kv_blocks_peak;
    for (int k = 0; k < w->nreps; k++)
        if (llm_of(w->reps[k]) != NULL)
            out->kv_blocks_end += llm_of(w->reps[k])->blocks_used;
    out->kv_paused_blocks_end = kv->remote_seq;
    for (int k = 0; k < w->nreps; k++)
        if (llm_of(w->reps[k]) != NULL)
            out->kv_paused_blocks_end += llm_of(w->reps[k])->host_seq;
    out->kv_tiered = w->scn->cluster.kv_cache_offload &&
                     w->scn->server.preemption == CL_PREEMPT_AUTO;
    out->prefix_hit_rate = kv->lookup_blocks > 0 ? (double)kv->hit_blocks /
                                                       (double)kv->lookup_blocks
                                                 : NAN;
    out->prefix_lookup_blocks = kv->lookup_blocks;
    out->prefix_hits_gpu = kv->hit_gpu;
    out->prefix_hits_host = kv->hit_host;
    out->prefix_hits_remote = kv->hit_remote;
    out->kv_offload_bytes = kv->offload_bytes;
    out->kv_offload_remote_bytes = kv->offload_remote_bytes;
    out->kv_fetch_bytes = kv->fetch_bytes;
    out->kv_fetch_remote_bytes = kv->fetch_remote_bytes;
    out->kv_transfer_s = sim_ns_to_s(kv->transfer_ns);
    out->swaps_out = kv->swaps_out;
    out->swaps_in = kv->swaps_in;
    out->swap_bytes = kv->swap_bytes;
    out->swap_fallbacks = kv->swap_fallbacks;
    out->kv_seq_host_bytes = kv->seq_host_bytes;
    out->kv_seq_remote_bytes = kv->seq_remote_bytes;
    out->kv_recompute_chosen = kv->recompute_chosen;
    out->kv_stall_s = sim_ns_to_s(kv->stall_ns);
    out->migrate_on = w->scn->cluster.drain == CL_DRAIN_MIGRATE || lw->mig_on ||
                      w->scn->cluster.rebalance_ns > 0 ||
                      w->scn->cluster.defrag;
    out->migrations = kv->migrations;
    out->migration_bytes = kv->migration_bytes;
    out->migration_fallbacks = kv->migration_fallbacks;
    out->migration_bytes_nvlink = kv->migration_bytes_nvlink;
    out->migration_defrag = kv->migration_defrag;
    out->migration_downtime_ms_mean =
        kv->migrations > 0
            ? (double)kv->migration_downtime_ns / (double)kv->migrations * 1e-6
            : NAN;
    out->pd_transfers = kv->pd_transfers;
    out->pd_bytes = kv->pd_bytes;
    out->pd_transfer_ms_mean =
        kv->pd_transfers > 0
            ? (double)kv->pd_transfer_ns / (double)kv->pd_transfers * 1e-6
            : NAN;
}

static const struct cl_engine_ops ops = {
    .version = CL_ENGINE_API_VERSION,
    .plan = cl__llm_plan,
    .world_init = llm_world_init,
    .pool_init = cl__llm_pool_init,
    .notes = cl__llm_notes,
    .accept = llm_accept,
    .arrive = llm_arrive,
    .abandon = llm_abandon,
    .ready = llm_ready,
    .drain = llm_drain,
    .fail = llm_fail,
    .replica_free = llm_replica_free,
    .gauges = cl__llm_gauges,
    .results = llm_results,
    .world_fini = llm_world_fini,
};

const struct cl_engine cl__engine_llm = {
    .name = "llm",
    .summary = "an LLM replica with continuous batching, chunked prefill and "
               "a paged KV cache with prefix caching, offload, swap and P/D, "
               "after vLLM's V1 scheduler (docs/sources.md §5.1); iteration "
               "time from the roofline step model (docs/step-time.md)",
    .kind = CL_SRV_LLM,
    .streams_tokens = 1,
    .central_queue = 0,
    .ops = &ops,
};
