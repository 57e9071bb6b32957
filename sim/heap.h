/*
 * The event queue: an array-based 4-ary min-heap of (time_ns, seq, event)
 * entries. Keys are stored inline so that sifting touches one contiguous
 * array, not the events; each event records its slot so that cancel and
 * reschedule cost O(log n) with no search. Ties in time are broken by seq,
 * a 64-bit counter stamped at schedule time, so equal times fire in the order
 * they were scheduled. A 4-ary heap was chosen over a binary one because it
 * halves the depth and keeps the four children of a node in one or two cache
 * lines; a calendar queue was rejected because its O(1) holds only for
 * well-spread event times, which bursty traffic breaks.
 *
 * The heap does not own events: they are embedded in their owners' structs
 * and must outlive their time in the heap. Single-threaded.
 */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct sim_event;

/* One entry. The time is kept as its bits with the sign bit flipped, so
 * that (key, seq) compares as one unsigned 128-bit number in the order of
 * (time, seq): sim_heap_slot_time() reads it back. */
struct sim_heap_slot {
    uint64_t key;
    uint64_t seq;
    struct sim_event *ev;
};

#define SIM_HEAP_SIGN (UINT64_C(1) << 63)

/* A slot's key for time_ns, and back. */
static inline uint64_t sim_heap_key(int64_t time_ns)
{
    return (uint64_t)time_ns ^ SIM_HEAP_SIGN;
}

static inline int64_t sim_heap_slot_time(const struct sim_heap_slot *s)
{
    return (int64_t)(s->key ^ SIM_HEAP_SIGN);
}

/* Whether (time_ns, seq) comes before slot s. */
static inline int sim_heap_slot_before(int64_t time_ns, uint64_t seq,
                                       const struct sim_heap_slot *s)
{
    uint64_t key = sim_heap_key(time_ns);
    return key < s->key || (key == s->key && seq < s->seq);
}

struct sim_heap {
    struct sim_heap_slot *v;
    size_t n;
    size_t cap;
};

/* Marks an event that is not in any heap. */
#define SIM_HEAP_NONE SIZE_MAX

/* Initialises an empty heap. */
void sim_heap_init(struct sim_heap *h);

/* Frees the array; events still queued are forgotten, not touched. */
void sim_heap_fini(struct sim_heap *h);

/* Inserts ev with key (time_ns, seq) and sets its slot index. ev must not be
 * in a heap. O(log n) amortised. */
void sim_heap_insert(struct sim_heap *h, struct sim_event *ev, int64_t time_ns,
                     uint64_t seq);

/* Removes ev, which must be in h, and marks it SIM_HEAP_NONE. O(log n). */
void sim_heap_remove(struct sim_heap *h, struct sim_event *ev);

/* Changes the key of ev, which must be in h. O(log n). */
void sim_heap_update(struct sim_heap *h, struct sim_event *ev, int64_t time_ns,
                     uint64_t seq);

/* Removes and returns the least event, or NULL when empty. */
struct sim_event *sim_heap_pop(struct sim_heap *h);

/* Replace-top, the two halves of a pop that may become an update: the
 * root slot keeps its place while its event fires (the caller marks the
 * event out of the queue), then either sim_heap_replace_root() gives the
 * root slot ev's new key and sifts it down once (the event rescheduled
 * itself), or sim_heap_drop_root() removes the slot without touching its
 * event, whose memory the handler may have freed. Between the two, keys
 * added must not be less than the root's (the loop's clock and sequence
 * guarantee it). O(log n) each. */
void sim_heap_replace_root(struct sim_heap *h, struct sim_event *ev,
                           int64_t time_ns, uint64_t seq);
void sim_heap_drop_root(struct sim_heap *h);

/* Returns the least slot without removing it; borrowed, valid until the
 * next change to the heap. NULL when empty. */
static inline const struct sim_heap_slot *
sim_heap_peek(const struct sim_heap *h)
{
    return h->n ? &h->v[0] : NULL;
}

/* Walks the whole heap and returns 1 if the heap property and every event's
 * slot index hold, 0 otherwise. O(n); for tests and debug builds. */
int sim_heap_check(const struct sim_heap *h);

#endif /* SIM_HEAP_H */
