/* A tier of hash-addressed KV blocks with LRU eviction (kvcache.h). */
#include "models/cluster/kvcache.h"

#include <stdlib.h>

#include "base/xalloc.h"

#define NOT_LISTED (-2)

static uint64_t mix64(uint64_t z)
{
    /* SplitMix64 finaliser (Steele, Lea and Flood, OOPSLA 2014). */
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void cl_kvtier_init(struct cl_kvtier *t)
{
    t->b = NULL;
    t->nslots = 0;
    t->free_slot = -1;
    t->mask = 63;
    t->bucket = xmalloc(64 * sizeof(*t->bucket));
    for (int k = 0; k < 64; k++)
        t->bucket[k] = -1;
    t->n = 0;
    t->lru_head = t->lru_tail = -1;
    t->lru_n = 0;
}

void cl_kvtier_fini(struct cl_kvtier *t)
{
    free(t->b);
    free(t->bucket);
    t->b = NULL;
    t->bucket = NULL;
    t->nslots = 0;
    t->n = t->lru_n = 0;
}

int32_t cl_kvtier_find(const struct cl_kvtier *t, uint64_t h)
{
    int32_t i = t->bucket[mix64(h) & t->mask];
    while (i >= 0 && t->b[i].hash != h)
        i = t->b[i].hnext;
    return i;
}

static void rehash(struct cl_kvtier *t, uint32_t nb)
{
    free(t->bucket);
    t->bucket = xmalloc((size_t)nb * sizeof(*t->bucket));
    t->mask = nb - 1;
    for (uint32_t k = 0; k < nb; k++)
        t->bucket[k] = -1;
    for (int32_t i = 0; i < t->nslots; i++) {
        uint32_t k;
        if (t->b[i].hnext == -3) /* a free slot */
            continue;
        k = (uint32_t)(mix64(t->b[i].hash) & t->mask);
        t->b[i].hnext = t->bucket[k];
        t->bucket[k] = i;
    }
}

int32_t cl_kvtier_insert(struct cl_kvtier *t, uint64_t h)
{
    int32_t i;
    uint32_t k;

    if (t->free_slot < 0) {
        int32_t old = t->nslots;
        int32_t n = old > 0 ? 2 * old : 64;
        t->b = xrealloc(t->b, (size_t)n, sizeof(*t->b));
        for (int32_t s = old; s < n; s++) {
            t->b[s].hnext = -3;
            t->b[s].next = s + 1 < n ? s + 1 : -1;
        }
        t->free_slot = old;
        t->nslots = n;
    }
    i = t->free_slot;
    t->free_slot = t->b[i].next;
    t->b[i].hash = h;
    t->b[i].ref = 0;
    t->b[i].prev = NOT_LISTED;
    t->b[i].next = -1;
    t->n++;
    if ((uint64_t)t->n > (uint64_t)t->mask + 1) {
        t->b[i].hnext = -1; /* rehash() skips only free slots */
        rehash(t, 2 * (t->mask + 1));
        return i;
    }
    k = (uint32_t)(mix64(h) & t->mask);
    t->b[i].hnext = t->bucket[k];
    t->bucket[k] = i;
    return i;
}

void cl_kvtier_remove(struct cl_kvtier *t, int32_t i)
{
    uint32_t k = (uint32_t)(mix64(t->b[i].hash) & t->mask);
    int32_t *p = &t->bucket[k];

    cl_kvtier_lru_unlink(t, i);
    while (*p != i)
        p = &t->b[*p].hnext;
    *p = t->b[i].hnext;
    t->b[i].hnext = -3;
    t->b[i].next = t->free_slot;
    t->free_slot = i;
    t->n--;
}

void cl_kvtier_lru_push(struct cl_kvtier *t, int32_t i)
{
    t->b[i].prev = t->lru_tail;
    t->b[i].next = -1;
    if (t->lru_tail >= 0)
        t->b[t->lru_tail].next = i;
    else
        t->lru_head = i;
    t->lru_tail = i;
    t->lru_n++;
}

void cl_kvtier_lru_unlink(struct cl_kvtier *t, int32_t i)
{
    struct cl_kvblk *e = &t->b[i];
    if (e->prev == NOT_LISTED)
        return;
    if (e->prev >= 0)
        t->b[e->prev].next = e->next;
    else
        t->lru_head = e->next;
    if (e->next >= 0)
        t->b[e->next].prev = e->prev;
    else
        t->lru_tail = e->prev;
    e->prev = NOT_LISTED;
    e->next = -1;
    t->lru_n--;
}

void cl_kvtier_lru_touch(struct cl_kvtier *t, int32_t i)
{
    cl_kvtier_lru_unlink(t, i);
    cl_kvtier_lru_push(t, i);
}

uint64_t cl_kv_block_hash(const uint64_t *src, int src_tokens, int64_t j,
                          int64_t block_tokens)
{
    int64_t m = ((j + 1) * block_tokens - 1) / src_tokens;
    return mix64(src[m] ^ mix64((uint64_t)j + UINT64_C(0x9e3779b97f4a7c15)));
}

int64_t cl_kv_hashed_blocks(int64_t prompt_tokens, int nsrc, int src_tokens,
                            int64_t block_tokens)
{
    int64_t covered = (int64_t)nsrc * src_tokens;
    if (nsrc <= 0 || src_tokens <= 0)
        return 0;
    if (covered > prompt_tokens)
        covered = prompt_tokens;
    return covered / block_tokens;
}
