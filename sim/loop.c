/* The simulation loop. The hot path is sim_loop_run(): pop, advance the
 * clock, call the handler; nothing else happens per event. */
#include "sim/loop.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/param.h"
#include "sim/heap.h"
#include "sim/rng.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* The schema's horizon (the largest duration a scenario key accepts) and
 * the loop's are one. */
_Static_assert(SIM_PARAM_HORIZON_DAYS *INT64_C(86400000000000) ==
                   SIM_HORIZON_NS,
               "SIM_PARAM_HORIZON_S must match SIM_HORIZON_NS");

struct sim_stream {
    char *name;
    gsl_rng *rng;
};

/* heap_index of the event in the loop's lane (struct sim_loop). */
#define LANE (SIM_HEAP_NONE - 1)

struct sim_loop {
    struct sim_heap heap;
    /* One queued event beside the heap, NULL when none: the first event
     * queued while it is empty, or one queued earlier than it holds (that
     * one then goes to the heap). Events fire in (time, seq) order from
     * the two together, so the lane changes no order; it saves the sifts
     * of an event queued and fired soon (a request leaving the front end
     * goes in at the bottom of the heap and out at its top). */
    struct sim_event *lane;
    int64_t lane_ns;
    uint64_t lane_seq;
    /* The event whose handler runs, and whether its slot is still the
     * heap's root (replace-top: sim_heap_replace_root()). */
    struct sim_event *firing;
    int firing_root;
    int64_t now_ns;
    uint64_t seq;
    uint64_t fired;
    int stop;
    uint64_t seed;
    struct sim_stream *streams;
    int nstreams;
    /* sim_loop_set_hook(): called before every handler but the quiet
     * ones (sim_loop_hook_quiet()). */
    sim_hook_fn hook;
    void *hook_arg;
    sim_handler_fn quiet[SIM_HOOK_QUIET_MAX];
    int nquiet;
};

void sim_event_init(struct sim_event *ev, sim_handler_fn fn, void *arg)
{
    ev->time_ns = 0;
    ev->heap_index = SIM_HEAP_NONE;
    ev->fn = fn;
    ev->arg = arg;
}

int sim_event_pending(const struct sim_event *ev)
{
    return ev->heap_index != SIM_HEAP_NONE;
}

struct sim_loop *sim_loop_new(uint64_t seed)
{
    struct sim_loop *loop = xcalloc(1, sizeof(*loop));
    sim_heap_init(&loop->heap);
    loop->seed = seed;
    return loop;
}

void sim_loop_free(struct sim_loop *loop)
{
    if (loop == NULL)
        return;
    for (int i = 0; i < loop->nstreams; i++) {
        free(loop->streams[i].name);
        gsl_rng_free(loop->streams[i].rng);
    }
    free(loop->streams);
    sim_heap_fini(&loop->heap);
    free(loop);
}

int64_t sim_loop_now(const struct sim_loop *loop)
{
    return loop->now_ns;
}

/* Queues ev, not queued, at at_ns (>= now): into the root slot it still
 * holds when it is the firing event (one sift instead of a pop and a
 * push), else as a new slot. */
static void enqueue(struct sim_loop *loop, struct sim_event *ev, int64_t at_ns)
{
    if (ev == loop->firing && loop->firing_root) {
        loop->firing_root = 0;
        sim_heap_replace_root(&loop->heap, ev, at_ns, loop->seq++);
        return;
    }
    if (loop->lane != NULL && at_ns < loop->lane_ns) {
        /* Earlier than the lane's: that one goes to the heap. */
        struct sim_event *was = loop->lane;
        sim_heap_insert(&loop->heap, was, loop->lane_ns, loop->lane_seq);
        loop->lane = NULL;
    }
    if (loop->lane == NULL) {
        loop->lane = ev;
        loop->lane_ns = at_ns;
        loop->lane_seq = loop->seq++;
        ev->time_ns = at_ns;
        ev->heap_index = LANE;
        return;
    }
    sim_heap_insert(&loop->heap, ev, at_ns, loop->seq++);
}

/* Takes ev out of the lane. */
static void lane_clear(struct sim_loop *loop, struct sim_event *ev)
{
    ev->heap_index = SIM_HEAP_NONE;
    loop->lane = NULL;
}

int sim_loop_schedule(struct sim_loop *loop, struct sim_event *ev,
                      int64_t at_ns)
{
    if (at_ns < loop->now_ns)
        return SIM_EPAST;
    if (ev->heap_index != SIM_HEAP_NONE)
        return SIM_EBUSY;
    enqueue(loop, ev, at_ns);
    return 0;
}

int sim_loop_after(struct sim_loop *loop, struct sim_event *ev,
                   int64_t delay_ns)
{
    if (delay_ns < 0)
        return SIM_EPAST;
    /* Saturates rather than wrapping into the past: an event at or past
     * SIM_HORIZON_NS is "never", and sim_loop_run() does not fire it. */
    return sim_loop_schedule(loop, ev, sim_time_add(loop->now_ns, delay_ns));
}

int sim_loop_reschedule(struct sim_loop *loop, struct sim_event *ev,
                        int64_t at_ns)
{
    if (at_ns < loop->now_ns)
        return SIM_EPAST;
    if (ev->heap_index == LANE)
        lane_clear(loop, ev);
    if (ev->heap_index == SIM_HEAP_NONE)
        enqueue(loop, ev, at_ns);
    else
        sim_heap_update(&loop->heap, ev, at_ns, loop->seq++);
    return 0;
}

void sim_loop_cancel(struct sim_loop *loop, struct sim_event *ev)
{
    if (ev->heap_index == LANE)
        lane_clear(loop, ev);
    else if (ev->heap_index != SIM_HEAP_NONE)
        sim_heap_remove(&loop->heap, ev);
}

/* Whether handler fn runs without the hook. */
static inline int is_quiet(const struct sim_loop *loop, sim_handler_fn fn)
{
    for (int i = 0; i < loop->nquiet; i++)
        if (loop->quiet[i] == fn)
            return 1;
    return 0;
}

uint64_t sim_loop_run(struct sim_loop *loop, int64_t until_ns)
{
    uint64_t fired = 0;
    loop->stop = 0;
    while (!loop->stop && (loop->heap.n > 0 || loop->lane != NULL)) {
        struct sim_event *ev;
        int from_lane = loop->lane != NULL &&
                        (loop->heap.n == 0 ||
                         sim_heap_slot_before(loop->lane_ns, loop->lane_seq,
                                              &loop->heap.v[0]));
        int64_t t =
            from_lane ? loop->lane_ns : sim_heap_slot_time(&loop->heap.v[0]);
        if (t > until_ns || t >= SIM_HORIZON_NS)
            break;
        /* The event leaves the queue, but a heap event's slot stays the
         * root until the handler returns: an event that reschedules
         * itself (most do) is then sifted down once instead of popped and
         * pushed. */
        if (from_lane) {
            ev = loop->lane;
            loop->lane = NULL;
        } else {
            ev = loop->heap.v[0].ev;
        }
        ev->heap_index = SIM_HEAP_NONE;
        assert(ev->time_ns >= loop->now_ns);
        loop->now_ns = ev->time_ns;
        fired++;
        loop->firing = ev;
        loop->firing_root = !from_lane;
        if (loop->hook != NULL && !is_quiet(loop, ev->fn))
            loop->hook(loop, loop->hook_arg);
        ev->fn(loop, ev);
        if (loop->firing_root)
            sim_heap_drop_root(&loop->heap); /* ev may be freed: untouched */
        loop->firing = NULL;
        loop->firing_root = 0;
    }
    loop->fired += fired;
    return fired;
}

void sim_loop_set_hook(struct sim_loop *loop, sim_hook_fn fn, void *arg,
                       sim_handler_fn quiet)
{
    loop->hook = fn;
    loop->hook_arg = arg;
    loop->nquiet = 0;
    if (quiet != NULL)
        loop->quiet[loop->nquiet++] = quiet;
}

int sim_loop_hook_quiet(struct sim_loop *loop, sim_handler_fn fn)
{
    if (fn == NULL || loop->nquiet == SIM_HOOK_QUIET_MAX)
        return SIM_EINVAL;
    if (!is_quiet(loop, fn))
        loop->quiet[loop->nquiet++] = fn;
    return 0;
}

void sim_loop_stop(struct sim_loop *loop)
{
    loop->stop = 1;
}

uint64_t sim_loop_events(const struct sim_loop *loop)
{
    return loop->fired;
}

size_t sim_loop_pending(const struct sim_loop *loop)
{
    return loop->heap.n - (size_t)loop->firing_root + (loop->lane != NULL);
}

/* splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014): a bijective mix with good avalanche. */
static uint64_t mix64(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t sim_stream_seed(uint64_t seed, const char *name)
{
    /* FNV-1a over the name, then mixed with the seed. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= UINT64_C(0x100000001b3);
    }
    return mix64(mix64(seed) ^ h);
}

gsl_rng *sim_loop_stream(struct sim_loop *loop, const char *name)
{
    struct sim_stream *s;
    uint64_t sd;

    for (int i = 0; i < loop->nstreams; i++)
        if (strcmp(loop->streams[i].name, name) == 0)
            return loop->streams[i].rng;
    loop->streams = xrealloc(loop->streams, (size_t)loop->nstreams + 1,
                             sizeof(*loop->streams));
    s = &loop->streams[loop->nstreams++];
    s->name = xstrdup(name);
    s->rng = gsl_rng_alloc(&sim_rng_mt19937);
    if (s->rng == NULL)
        sim_fatal("cannot allocate random stream '%s'", name);
    /* gsl_rng_set takes an unsigned long; fold the 64-bit seed so that
     * 32-bit longs still see all of it. MT19937 treats seed 0 as 4357,
     * which would alias two streams; map 0 to a fixed non-zero value. */
    sd = sim_stream_seed(loop->seed, name);
    sd = (sd ^ (sd >> 32)) & UINT64_C(0xffffffff);
    gsl_rng_set(s->rng, (unsigned long)(sd ? sd : 0x5eed));
    return s->rng;
}
