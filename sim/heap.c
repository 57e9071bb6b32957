/* 4-ary min-heap with inline keys; see heap.h for the choice. */
#include "sim/heap.h"

#include <stdlib.h>

#include "sim/event.h"
#include "base/xalloc.h"

#define ARITY 4

static inline int less(const struct sim_heap_slot *a,
                       const struct sim_heap_slot *b)
{
#ifdef __SIZEOF_INT128__
    /* (key, seq) as one unsigned 128-bit number: one compare and no
     * branch, so that sift_down() can choose among four children by
     * arithmetic. */
    typedef unsigned __int128 u128;
    return ((u128)a->key << 64 | a->seq) < ((u128)b->key << 64 | b->seq);
#else
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
#endif
}

void sim_heap_init(struct sim_heap *h)
{
    h->v = NULL;
    h->n = 0;
    h->cap = 0;
}

void sim_heap_fini(struct sim_heap *h)
{
    free(h->v);
    sim_heap_init(h);
}

static void sift_up(struct sim_heap *h, size_t i)
{
    struct sim_heap_slot x = h->v[i];
    while (i > 0) {
        size_t p = (i - 1) / ARITY;
        if (!less(&x, &h->v[p]))
            break;
        h->v[i] = h->v[p];
        h->v[i].ev->heap_index = i;
        i = p;
    }
    h->v[i] = x;
    x.ev->heap_index = i;
}

static void sift_down(struct sim_heap *h, size_t i)
{
    struct sim_heap_slot x = h->v[i];
    size_t n = h->n;
    for (;;) {
        size_t c = i * ARITY + 1, best;
        if (c >= n)
            break;
        if (c + ARITY <= n) {
            /* Four children: two pairs, then their winners, by index
             * arithmetic on the comparisons (no branch to mispredict: a
             * heap's comparisons are coin flips to the predictor). */
            size_t a = c + (size_t)less(&h->v[c + 1], &h->v[c]);
            size_t b = c + 2 + (size_t)less(&h->v[c + 3], &h->v[c + 2]);
            size_t lb = (size_t)less(&h->v[b], &h->v[a]);
            best = a + lb * (b - a);
        } else {
            best = c;
            for (size_t k = c + 1; k < n; k++)
                if (less(&h->v[k], &h->v[best]))
                    best = k;
        }
        if (!less(&h->v[best], &x))
            break;
        h->v[i] = h->v[best];
        h->v[i].ev->heap_index = i;
        i = best;
    }
    h->v[i] = x;
    x.ev->heap_index = i;
}

void sim_heap_insert(struct sim_heap *h, struct sim_event *ev, int64_t time_ns,
                     uint64_t seq)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 64;
        h->v = xrealloc(h->v, h->cap, sizeof(*h->v));
    }
    h->v[h->n].key = sim_heap_key(time_ns);
    h->v[h->n].seq = seq;
    h->v[h->n].ev = ev;
    ev->time_ns = time_ns;
    sift_up(h, h->n++);
}

void sim_heap_remove(struct sim_heap *h, struct sim_event *ev)
{
    size_t i = ev->heap_index;
    assert(i < h->n && h->v[i].ev == ev);
    ev->heap_index = SIM_HEAP_NONE;
    if (i == --h->n)
        return;
    h->v[i] = h->v[h->n];
    h->v[i].ev->heap_index = i;
    if (i > 0 && less(&h->v[i], &h->v[(i - 1) / ARITY]))
        sift_up(h, i);
    else
        sift_down(h, i);
}

void sim_heap_update(struct sim_heap *h, struct sim_event *ev, int64_t time_ns,
                     uint64_t seq)
{
    size_t i = ev->heap_index;
    struct sim_heap_slot old;
    assert(i < h->n && h->v[i].ev == ev);
    old = h->v[i];
    h->v[i].key = sim_heap_key(time_ns);
    h->v[i].seq = seq;
    ev->time_ns = time_ns;
    if (less(&h->v[i], &old))
        sift_up(h, i);
    else
        sift_down(h, i);
}

struct sim_event *sim_heap_pop(struct sim_heap *h)
{
    struct sim_event *ev;
    if (h->n == 0)
        return NULL;
    ev = h->v[0].ev;
    ev->heap_index = SIM_HEAP_NONE;
    if (--h->n > 0) {
        h->v[0] = h->v[h->n];
        sift_down(h, 0);
    }
    return ev;
}

void sim_heap_replace_root(struct sim_heap *h, struct sim_event *ev,
                           int64_t time_ns, uint64_t seq)
{
    h->v[0].key = sim_heap_key(time_ns);
    h->v[0].seq = seq;
    h->v[0].ev = ev;
    ev->time_ns = time_ns;
    sift_down(h, 0); /* the new key is not less than the old */
}

void sim_heap_drop_root(struct sim_heap *h)
{
    if (--h->n > 0) {
        h->v[0] = h->v[h->n];
        sift_down(h, 0);
    }
}

int sim_heap_check(const struct sim_heap *h)
{
    for (size_t i = 0; i < h->n; i++) {
        if (h->v[i].ev->heap_index != i)
            return 0;
        if (h->v[i].ev->time_ns != sim_heap_slot_time(&h->v[i]))
            return 0;
        if (i > 0 && less(&h->v[i], &h->v[(i - 1) / ARITY]))
            return 0;
    }
    return 1;
}
