/*
 * One tier of hash-addressed KV blocks (a prefix cache): a hash table from
 * block hash to entry, reference counts, and an LRU list of the entries
 * that may be evicted, after vLLM V1's KV cache manager (docs/sources.md §5.1:
 * freed blocks keep their hashes and may be re-hit; the free-block queue
 * evicts from its head, blocks freed by a request are appended tail block
 * first so that a prefix's first blocks are evicted last). The GPU tier of
 * a replica counts references and lists only unreferenced entries; the host
 * and remote tiers (KV offload) never reference and list every entry.
 *
 * Entries live in one array that grows by doubling, indexed by int32; the
 * table chains them through buckets (a power of two, rehashed at load 1).
 * find, insert, remove and every LRU operation are O(1) on average.
 * Single-threaded; not installed.
 */
#ifndef CL_KVCACHE_H
#define CL_KVCACHE_H

#include <stdint.h>

struct cl_kvblk {
    uint64_t hash;
    int32_t ref;   /* requests holding it (GPU tier) */
    int32_t prev;  /* LRU neighbours, -1 at the ends; -2 when not listed */
    int32_t next;  /* LRU; or the next free slot */
    int32_t hnext; /* next entry in its bucket, -1 at the end */
};

struct cl_kvtier {
    struct cl_kvblk *b; /* slots */
    int32_t nslots;     /* allocated */
    int32_t free_slot;  /* first free slot, -1 when none */
    int32_t *bucket;    /* heads, -1 when empty */
    uint32_t mask;      /* buckets - 1 */
    int64_t n;          /* entries */
    int32_t lru_head;   /* least recently used, evicted first; -1 */
    int32_t lru_tail;
    int64_t lru_n; /* entries listed */
};

void cl_kvtier_init(struct cl_kvtier *t);
void cl_kvtier_fini(struct cl_kvtier *t);

/* The entry of hash h, or -1. */
int32_t cl_kvtier_find(const struct cl_kvtier *t, uint64_t h);

/* Adds an entry for h (which must not be present) with ref 0, not listed;
 * returns its index. Indices of other entries stay valid. */
int32_t cl_kvtier_insert(struct cl_kvtier *t, uint64_t h);

/* Removes entry i (unlisting it first if listed). */
void cl_kvtier_remove(struct cl_kvtier *t, int32_t i);

/* Appends entry i at the LRU tail (most recently used); it must not be
 * listed. */
void cl_kvtier_lru_push(struct cl_kvtier *t, int32_t i);

/* Takes entry i off the LRU list; a no-op when it is not listed. */
void cl_kvtier_lru_unlink(struct cl_kvtier *t, int32_t i);

/* Moves listed entry i to the LRU tail (a touch). */
void cl_kvtier_lru_touch(struct cl_kvtier *t, int32_t i);

/* Counters of the prefix cache, KV offload and swap over a run, and the
 * remote tier shared by every replica (cluster.kv_cache_offload with
 * server.kv_offload.remote). Bytes are whole-replica KV bytes. */
struct cl_kv_world {
    struct cl_kvtier remote;
    int remote_ready;       /* remote initialised */
    int64_t remote_cap;     /* blocks */
    uint64_t remote_gen;    /* bumped at each remote insert */
    uint64_t lookup_blocks; /* hashed prompt blocks looked up at admission */
    uint64_t hit_blocks;    /* of which found in some tier */
    uint64_t hit_gpu, hit_host, hit_remote;
    uint64_t offload_bytes;        /* GPU -> host (evicted cached blocks) */
    uint64_t offload_remote_bytes; /* host -> remote */
    uint64_t fetch_bytes;          /* host -> GPU (hits in host memory) */
    uint64_t fetch_remote_bytes;   /* remote -> GPU */
    uint64_t swaps_out, swaps_in, swap_bytes; /* both directions */
    uint64_t swap_fallbacks; /* swap space full: recomputed instead */
    int64_t transfer_ns;     /* time iterations waited for transfers */
    /* Tiered KV (server.preemption auto with cluster.kv_cache_offload):
     * remote blocks held by paused requests, the bytes of paused
     * requests' KV moved to and from host memory and the remote tier
     * (both directions), the preemptions where recompute was the cheaper,
     * and the time iterations waited for prefetched KV beyond their
     * compute. */
    int64_t remote_seq;
    uint64_t seq_host_bytes, seq_remote_bytes;
    uint64_t recompute_chosen;
    int64_t stall_ns;
    /* drain: migrate (llm.c): requests moved with their KV, the KV bytes
     * (pre-copy and stop-and-copy), the summed downtime of the moved
     * requests, and drains that found no replica to move to. */
    uint64_t migrations, migration_bytes, migration_fallbacks;
    int64_t migration_downtime_ns;
    /* Of those bytes, the ones that crossed NVLink (source and target on
     * one node), and the moves cluster.defrag made. */
    uint64_t migration_bytes_nvlink, migration_defrag;
    uint64_t pd_transfers; /* P/D: prefill -> decode KV transfers */
    uint64_t pd_bytes;
    int64_t pd_transfer_ns; /* summed transfer times */
};

/* The hash of block j (0-based, engine blocks of block_tokens tokens) of a
 * prompt described by source hashes src[0..nsrc) of src_tokens tokens each
 * (Mooncake: 512): block j ends at token (j + 1) * block_tokens, which
 * lies in source block m = ((j + 1) * block_tokens - 1) / src_tokens, and
 * because source hashes are prefix-chained (equal ids at m mean equal
 * tokens up to the end of block m) the pair (src[m], j) names the tokens
 * of blocks 0..j. Mixed with SplitMix64's finaliser (Steele, Lea and
 * Flood, OOPSLA 2014). */
uint64_t cl_kv_block_hash(const uint64_t *src, int src_tokens, int64_t j,
                          int64_t block_tokens);

/* Engine blocks of a prompt of prompt_tokens that have a hash: full blocks
 * whose tokens the source hashes cover. */
int64_t cl_kv_hashed_blocks(int64_t prompt_tokens, int nsrc, int src_tokens,
                            int64_t block_tokens);

#endif /* CL_KVCACHE_H */
