/* Check suite for sim/loop.c: ordering, ties, past scheduling, cancel,
 * reschedule, run limits, two loops in one process, random streams, the
 * replace-top of a firing event, and the hook; and sim/rng.c: its
 * generator and draws against GSL's, bit for bit. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/loop.h"
#include "sim/rng.h"
#include "sim/time.h"

struct rec {
    int log[16];
    int64_t when[16];
    int n;
    struct sim_event extra;
};

struct tagged {
    struct sim_event ev;
    struct rec *rec;
    int tag;
};

static void record(struct sim_loop *loop, struct sim_event *ev)
{
    struct tagged *t = ev->arg;
    t->rec->when[t->rec->n] = sim_loop_now(loop);
    t->rec->log[t->rec->n++] = t->tag;
}

static void tagged_init(struct tagged *t, struct rec *rec, int tag)
{
    sim_event_init(&t->ev, record, t);
    t->rec = rec;
    t->tag = tag;
}

START_TEST(test_sim_loop_run_order_and_ties)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct rec rec = {0};
    struct tagged t[4];
    for (int i = 0; i < 4; i++)
        tagged_init(&t[i], &rec, i);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[0].ev, 30), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[1].ev, 10), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[2].ev, 30), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[3].ev, 20), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[3].ev, 25), SIM_EBUSY);
    ck_assert_uint_eq(sim_loop_run(loop, SIM_TIME_MAX), 4);
    ck_assert_int_eq(rec.log[0], 1);
    ck_assert_int_eq(rec.log[1], 3);
    ck_assert_int_eq(rec.log[2], 0); /* same time: scheduling order */
    ck_assert_int_eq(rec.log[3], 2);
    ck_assert_int_eq(sim_loop_now(loop), 30);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[0].ev, 29), SIM_EPAST);
    sim_loop_free(loop);
}
END_TEST

static void chain(struct sim_loop *loop, struct sim_event *ev)
{
    struct tagged *t = ev->arg;
    record(loop, ev);
    /* Same-time event created by a handler runs after those queued. */
    if (t->tag == 0)
        ck_assert_int_eq(sim_loop_after(loop, &t->rec->extra, 0), 0);
}

START_TEST(test_sim_loop_after_same_time_runs_last)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct rec rec = {0};
    struct tagged a, b, c;
    tagged_init(&a, &rec, 0);
    tagged_init(&b, &rec, 1);
    a.ev.fn = chain;
    c.rec = &rec;
    c.tag = 9;
    sim_event_init(&rec.extra, record, &c);
    sim_loop_schedule(loop, &a.ev, 5);
    sim_loop_schedule(loop, &b.ev, 5);
    sim_loop_run(loop, SIM_TIME_MAX);
    ck_assert_int_eq(rec.n, 3);
    ck_assert_int_eq(rec.log[0], 0);
    ck_assert_int_eq(rec.log[1], 1);
    ck_assert_int_eq(rec.log[2], 9);
    sim_loop_free(loop);
}
END_TEST

START_TEST(test_sim_loop_cancel_reschedule)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct rec rec = {0};
    struct tagged t[3];
    for (int i = 0; i < 3; i++)
        tagged_init(&t[i], &rec, i);
    sim_loop_schedule(loop, &t[0].ev, 10);
    sim_loop_schedule(loop, &t[1].ev, 20);
    sim_loop_schedule(loop, &t[2].ev, 30);
    sim_loop_cancel(loop, &t[1].ev);
    ck_assert(!sim_event_pending(&t[1].ev));
    sim_loop_cancel(loop, &t[1].ev); /* no-op */
    ck_assert_int_eq(sim_loop_reschedule(loop, &t[2].ev, 5), 0);
    ck_assert_int_eq(sim_loop_reschedule(loop, &t[1].ev, 7), 0);
    ck_assert_uint_eq(sim_loop_pending(loop), 3);
    sim_loop_run(loop, SIM_TIME_MAX);
    ck_assert_int_eq(rec.log[0], 2);
    ck_assert_int_eq(rec.log[1], 1);
    ck_assert_int_eq(rec.log[2], 0);
    ck_assert_int_eq(rec.when[0], 5);
    ck_assert_uint_eq(sim_loop_events(loop), 3);
    sim_loop_free(loop);
}
END_TEST

START_TEST(test_sim_loop_run_until_limit)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct rec rec = {0};
    struct tagged t[2];
    tagged_init(&t[0], &rec, 0);
    tagged_init(&t[1], &rec, 1);
    sim_loop_schedule(loop, &t[0].ev, 10);
    sim_loop_schedule(loop, &t[1].ev, 100);
    ck_assert_uint_eq(sim_loop_run(loop, 50), 1);
    ck_assert_int_eq(sim_loop_now(loop), 10);
    ck_assert_uint_eq(sim_loop_run(loop, 100), 1);
    ck_assert_int_eq(sim_loop_now(loop), 100);
    sim_loop_free(loop);
}
END_TEST

START_TEST(test_sim_loop_two_loops_independent)
{
    struct sim_loop *a = sim_loop_new(3), *b = sim_loop_new(3);
    struct rec ra = {0}, rb = {0};
    struct tagged ta, tb;
    tagged_init(&ta, &ra, 1);
    tagged_init(&tb, &rb, 2);
    sim_loop_schedule(a, &ta.ev, 40);
    sim_loop_schedule(b, &tb.ev, 80);
    sim_loop_run(a, SIM_TIME_MAX);
    ck_assert_int_eq(sim_loop_now(a), 40);
    ck_assert_int_eq(sim_loop_now(b), 0);
    sim_loop_run(b, SIM_TIME_MAX);
    ck_assert_int_eq(rb.log[0], 2);
    ck_assert_int_eq(ra.n, 1);
    sim_loop_free(a);
    sim_loop_free(b);
}
END_TEST

START_TEST(test_sim_loop_stream_common_random_numbers)
{
    struct sim_loop *a = sim_loop_new(11), *b = sim_loop_new(11);
    struct sim_loop *c = sim_loop_new(12);
    unsigned long x[4];
    /* Creating other streams first, in another order, changes nothing. */
    (void)sim_loop_stream(b, "service");
    (void)sim_loop_stream(b, "failures");
    for (int i = 0; i < 4; i++)
        x[i] = gsl_rng_get(sim_loop_stream(a, "arrivals"));
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(gsl_rng_get(sim_loop_stream(b, "arrivals")), x[i]);
    ck_assert_ptr_eq(sim_loop_stream(a, "arrivals"),
                     sim_loop_stream(a, "arrivals"));
    ck_assert_uint_ne(gsl_rng_get(sim_loop_stream(c, "arrivals")),
                      gsl_rng_get(sim_loop_stream(a, "x")));
    ck_assert(sim_stream_seed(11, "arrivals") !=
              sim_stream_seed(11, "service"));
    ck_assert(sim_stream_seed(11, "arrivals") !=
              sim_stream_seed(12, "arrivals"));
    sim_loop_free(a);
    sim_loop_free(b);
    sim_loop_free(c);
}
END_TEST

/* Replace-top: a firing event is out of the queue for its handler (not
 * pending, cancel a no-op, schedulable once, EBUSY twice), may free
 * itself, and the order of everything else is a pop-and-push's. */
struct self {
    struct sim_event ev;
    int mode; /* 0 reschedule, 1 cancel self, 2 free self, 3 twice */
    int fired;
    int pending_seen;
    int rc2;
    size_t queued_seen;
    int64_t log[8];
};

static void self_fire(struct sim_loop *loop, struct sim_event *ev)
{
    struct self *x = ev->arg;

    x->log[x->fired++] = sim_loop_now(loop);
    x->pending_seen = sim_event_pending(ev);
    x->queued_seen = sim_loop_pending(loop);
    if (x->mode == 1) {
        sim_loop_cancel(loop, ev);
    } else if (x->mode == 2) {
        free(x);
    } else if (x->fired < 4) {
        ck_assert_int_eq(sim_loop_after(loop, ev, 10), 0);
        if (x->mode == 3)
            x->rc2 = sim_loop_after(loop, ev, 20);
    }
}

START_TEST(test_sim_loop_replace_top)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct self a = {.mode = 0}, c = {.mode = 1}, d = {.mode = 3};
    struct self *b = calloc(1, sizeof(*b));
    struct rec r = {0};
    struct tagged t[3];

    sim_event_init(&a.ev, self_fire, &a);
    sim_event_init(&b->ev, self_fire, b);
    sim_event_init(&c.ev, self_fire, &c);
    sim_event_init(&d.ev, self_fire, &d);
    b->mode = 2;
    ck_assert_int_eq(sim_loop_schedule(loop, &a.ev, 0), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &b->ev, 5), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &c.ev, 7), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &d.ev, 1), 0);
    for (int i = 0; i < 3; i++) {
        tagged_init(&t[i], &r, i);
        ck_assert_int_eq(sim_loop_schedule(loop, &t[i].ev, 10 * i + 10), 0);
    }
    ck_assert_uint_eq(sim_loop_run(loop, SIM_TIME_MAX), 4 + 1 + 1 + 4 + 3);
    ck_assert_int_eq(a.fired, 4);
    ck_assert_int_eq(a.log[3], 30);
    ck_assert_int_eq(a.pending_seen, 0);
    ck_assert_uint_eq(a.queued_seen, 1); /* its last firing: d, at 31 */
    ck_assert_int_eq(c.fired, 1);
    ck_assert_uint_eq(c.queued_seen, 5); /* a, d and the three tagged */
    ck_assert_int_eq(d.fired, 4);
    ck_assert_int_eq(d.log[1], 11); /* the first reschedule stood */
    ck_assert_int_eq(d.rc2, SIM_EBUSY);
    /* The tagged events at 10, 20, 30 ran after a's and d's same-time
     * firings that were scheduled earlier, as with a pop and a push. */
    ck_assert_int_eq(r.n, 3);
    ck_assert_int_eq(r.when[0], 10);
    ck_assert_int_eq(r.when[2], 30);
    ck_assert_uint_eq(sim_loop_pending(loop), 0);
    sim_loop_free(loop);
}
END_TEST

/* The hook runs before every handler but the quiet one's, the clock at
 * the event's time, and may reschedule another event to fire then. */
static void quiet_handler(struct sim_loop *loop, struct sim_event *ev)
{
    struct tagged *t = ev->arg;
    t->rec->when[t->rec->n] = sim_loop_now(loop);
    t->rec->log[t->rec->n++] = 100 + t->tag;
}

struct hook_state {
    struct rec *rec;
    struct tagged *late; /* moved to the hook's time on its first call */
    int calls;
};

static void hook(struct sim_loop *loop, void *arg)
{
    struct hook_state *h = arg;
    h->rec->when[h->rec->n] = sim_loop_now(loop);
    h->rec->log[h->rec->n++] = -1;
    if (h->calls++ == 0)
        ck_assert_int_eq(
            sim_loop_reschedule(loop, &h->late->ev, sim_loop_now(loop)), 0);
}

START_TEST(test_sim_loop_hook)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct rec rec = {0};
    struct tagged t[3];
    struct hook_state h = {&rec, &t[2], 0};

    tagged_init(&t[0], &rec, 0);
    tagged_init(&t[1], &rec, 1);
    tagged_init(&t[2], &rec, 2);
    t[1].ev.fn = quiet_handler;
    sim_loop_set_hook(loop, hook, &h, quiet_handler);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[0].ev, 10), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[1].ev, 5), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[2].ev, 50), 0);
    ck_assert_uint_eq(sim_loop_run(loop, SIM_TIME_MAX), 3);
    /* quiet at 5 without the hook; hook, 0 at 10; hook, 2 moved to 10. */
    ck_assert_int_eq(rec.n, 5);
    ck_assert_int_eq(rec.log[0], 101);
    ck_assert_int_eq(rec.log[1], -1);
    ck_assert_int_eq(rec.when[1], 10);
    ck_assert_int_eq(rec.log[2], 0);
    ck_assert_int_eq(rec.log[3], -1);
    ck_assert_int_eq(rec.log[4], 2);
    ck_assert_int_eq(rec.when[4], 10);
    /* Removed: handlers alone. */
    sim_loop_set_hook(loop, NULL, NULL, NULL);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[0].ev, 20), 0);
    ck_assert_uint_eq(sim_loop_run(loop, SIM_TIME_MAX), 1);
    ck_assert_int_eq(rec.n, 6);
    ck_assert_int_eq(rec.log[5], 0);
    /* A quiet handler added to a hook that had none; added twice, it is
     * there once; NULL is refused. */
    sim_loop_set_hook(loop, hook, &h, NULL);
    ck_assert_int_eq(sim_loop_hook_quiet(loop, quiet_handler), 0);
    ck_assert_int_eq(sim_loop_hook_quiet(loop, quiet_handler), 0);
    ck_assert_int_eq(sim_loop_hook_quiet(loop, NULL), SIM_EINVAL);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[1].ev, 30), 0);
    ck_assert_int_eq(sim_loop_schedule(loop, &t[0].ev, 40), 0);
    ck_assert_uint_eq(sim_loop_run(loop, SIM_TIME_MAX), 2);
    ck_assert_int_eq(rec.n, 9);
    ck_assert_int_eq(rec.log[6], 101);
    ck_assert_int_eq(rec.log[7], -1);
    ck_assert_int_eq(rec.when[7], 40);
    ck_assert_int_eq(rec.log[8], 0);
    sim_loop_free(loop);
}
END_TEST

START_TEST(test_sim_strerror_names)
{
    ck_assert_str_eq(sim_errname(SIM_EPAST), "SIM_EPAST");
    ck_assert_str_eq(sim_strerror(SIM_EPAST), "event scheduled in the past");
    ck_assert_str_eq(sim_strerror(-9999), "unknown error");
}
END_TEST

/* sim_llround_nonneg() is llround() on [0, 9.2e18): halves, the double
 * just below a half, the edges of exact fractions (2^52) and of whole
 * doubles (2^53), and a sweep of magnitudes. */
START_TEST(test_llround_nonneg_matches_llround)
{
    static const double edge[] = {
        0.0,
        0.49999999999999994,
        0.5,
        1.5,
        2.5,
        1e9 - 0.5,
        4503599627370495.5,
        4503599627370496.0,
        4503599627370497.0,
        9007199254740993.0,
        9.19e18,
    };
    double x = 1e-3;

    for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
        ck_assert_int_eq(sim_llround_nonneg(edge[i]), llround(edge[i]));
    for (int i = 0; i < 200000 && x < 9e18; i++) {
        ck_assert_int_eq(sim_llround_nonneg(x), llround(x));
        ck_assert_int_eq(sim_llround_nonneg(floor(x) + 0.5),
                         llround(floor(x) + 0.5));
        x *= 1.00025;
    }
}
END_TEST

/* Seeds for the generator checks: 0 (GSL takes 4357), 4357 itself, the
 * largest, and two of the loop's folded stream seeds. */
static const unsigned long rng_seeds[] = {0,         1,     4357, 0xfffffffful,
                                          123456789, 0x5eed};

/* sim_rng_mt19937 makes gsl_rng_mt19937's words and doubles, across many
 * refills, through GSL's own calls and the inline one; a clone goes on
 * alike. */
START_TEST(test_sim_rng_matches_gsl_mt19937)
{
    for (size_t i = 0; i < sizeof rng_seeds / sizeof rng_seeds[0]; i++) {
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng *m = gsl_rng_alloc(&sim_rng_mt19937);
        gsl_rng *c;
        gsl_rng_set(g, rng_seeds[i]);
        gsl_rng_set(m, rng_seeds[i]);
        ck_assert_uint_eq(gsl_rng_max(m), gsl_rng_max(g));
        ck_assert_uint_eq(gsl_rng_min(m), gsl_rng_min(g));
        for (int k = 0; k < 5000; k++)
            ck_assert_uint_eq(gsl_rng_get(m), gsl_rng_get(g));
        for (int k = 0; k < 5000; k++) {
            double a = gsl_rng_uniform(g);
            ck_assert(k % 2 ? sim_rng_uniform(m) == a
                            : gsl_rng_uniform(m) == a);
        }
        for (int k = 0; k < 2000; k++)
            ck_assert_uint_eq(gsl_rng_uniform_int(m, 1000 + (unsigned long)k),
                              gsl_rng_uniform_int(g, 1000 + (unsigned long)k));
        c = gsl_rng_clone(m);
        for (int k = 0; k < 1000; k++)
            ck_assert_uint_eq(gsl_rng_get(c), gsl_rng_get(g));
        gsl_rng_free(c);
        gsl_rng_free(m);
        gsl_rng_free(g);
    }
}
END_TEST

/* sim_ran_lognormal() and sim_ran_exponential() on sim_rng_mt19937 give
 * gsl_ran_lognormal()'s and gsl_ran_exponential()'s values on GSL's
 * mt19937, bit for bit, and leave the two streams in step. */
START_TEST(test_sim_ran_matches_gsl)
{
    for (size_t i = 0; i < sizeof rng_seeds / sizeof rng_seeds[0]; i++) {
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng *m = gsl_rng_alloc(&sim_rng_mt19937);
        gsl_rng_set(g, rng_seeds[i]);
        gsl_rng_set(m, rng_seeds[i]);
        for (int k = 0; k < 20000; k++) {
            double zeta = 0.5 + (k % 7), sigma = 0.1 + 0.3 * (k % 5);
            double mu = 1e-3 + (k % 11);
            double a = sim_ran_lognormal(m, zeta, sigma);
            double b = gsl_ran_lognormal(g, zeta, sigma);
            ck_assert_msg(memcmp(&a, &b, sizeof a) == 0,
                          "lognormal %d: %.17g != %.17g", k, a, b);
            a = sim_ran_exponential(m, mu);
            b = gsl_ran_exponential(g, mu);
            ck_assert_msg(memcmp(&a, &b, sizeof a) == 0,
                          "exponential %d: %.17g != %.17g", k, a, b);
        }
        ck_assert_uint_eq(gsl_rng_get(m), gsl_rng_get(g));
        gsl_rng_free(m);
        gsl_rng_free(g);
    }
}
END_TEST

/* A model of the queue for the randomized test: per event whether it is
 * pending, its time and its stamp (the order it was last queued in, as
 * the loop's sequence numbers). */
#define RAND_EVENTS 40
struct rand_world {
    struct sim_event ev[RAND_EVENTS];
    int pending[RAND_EVENTS];
    int64_t at[RAND_EVENTS];
    uint64_t stamp[RAND_EVENTS];
    uint64_t next_stamp;
    gsl_rng *rng;
    long fired;
    long bad; /* disagreements with the model */
};

static void rand_queue(struct sim_loop *loop, struct rand_world *rw, int i,
                       int64_t at)
{
    int rc = rw->pending[i] ? sim_loop_reschedule(loop, &rw->ev[i], at)
                            : sim_loop_schedule(loop, &rw->ev[i], at);
    if (rc != 0)
        rw->bad++;
    rw->pending[i] = 1;
    rw->at[i] = at;
    rw->stamp[i] = rw->next_stamp++;
}

static void rand_fire(struct sim_loop *loop, struct sim_event *ev)
{
    struct rand_world *rw = ev->arg;
    int me = (int)(ev - rw->ev), ops;
    int64_t now = sim_loop_now(loop);
    size_t npend = 0;

    /* It is the least pending (time, stamp) of the model. Plain tests,
     * one check per failure: a passing ck_assert() costs a write. */
    if (!rw->pending[me] || rw->at[me] != now || sim_event_pending(ev))
        rw->bad++;
    for (int i = 0; i < RAND_EVENTS; i++)
        if (rw->pending[i] && i != me &&
            (rw->at[i] < now ||
             (rw->at[i] == now && rw->stamp[i] < rw->stamp[me])))
            rw->bad++;
    rw->pending[me] = 0;
    if (++rw->fired > 100000)
        return;
    /* Then a few random operations: queue at now (after those queued),
     * soon or late, reschedule, cancel, itself included. */
    ops = (int)gsl_rng_uniform_int(rw->rng, 4);
    for (int k = 0; k < ops; k++) {
        int i = (int)gsl_rng_uniform_int(rw->rng, RAND_EVENTS);
        unsigned long what = gsl_rng_uniform_int(rw->rng, 10);
        if (what == 0) {
            sim_loop_cancel(loop, &rw->ev[i]);
            rw->pending[i] = 0;
        } else {
            int64_t d = what < 3 ? 0
                        : what < 7
                            ? (int64_t)gsl_rng_uniform_int(rw->rng, 50)
                            : (int64_t)gsl_rng_uniform_int(rw->rng, 5000);
            rand_queue(loop, rw, i, now + d);
        }
        if (sim_event_pending(&rw->ev[i]) != rw->pending[i])
            rw->bad++;
    }
    if (!rw->pending[me] && gsl_rng_uniform_int(rw->rng, 2))
        rand_queue(loop, rw, me,
                   now + (int64_t)gsl_rng_uniform_int(rw->rng, 3000));
    for (int i = 0; i < RAND_EVENTS; i++)
        npend += (size_t)rw->pending[i];
    if (sim_loop_pending(loop) != npend)
        rw->bad++;
}

/* Random schedules, reschedules and cancels from inside handlers: every
 * event fires in (time, order queued) order against the model, whichever
 * of the heap, its root's replace-top or the lane holds it; the pending
 * count agrees. */
START_TEST(test_sim_loop_random_order)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct rand_world rw = {0};
    size_t npend = 0;

    rw.rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rw.rng, 42);
    for (int i = 0; i < RAND_EVENTS; i++)
        sim_event_init(&rw.ev[i], rand_fire, &rw);
    for (int i = 0; i < RAND_EVENTS; i += 2)
        rand_queue(loop, &rw, i, (int64_t)gsl_rng_uniform_int(rw.rng, 100));
    sim_loop_run(loop, SIM_TIME_MAX);
    for (int i = 0; i < RAND_EVENTS; i++)
        npend += (size_t)rw.pending[i];
    ck_assert_uint_eq(npend, 0);
    ck_assert_uint_eq(sim_loop_pending(loop), 0);
    ck_assert(rw.fired > 100000);
    ck_assert_int_eq(rw.bad, 0);
    gsl_rng_free(rw.rng);
    sim_loop_free(loop);
}
END_TEST

static Suite *loop_suite(void)
{
    Suite *s = suite_create("loop");
    TCase *tc = tcase_create("sim_loop");
    tcase_add_test(tc, test_sim_loop_run_order_and_ties);
    tcase_add_test(tc, test_sim_loop_after_same_time_runs_last);
    tcase_add_test(tc, test_sim_loop_cancel_reschedule);
    tcase_add_test(tc, test_sim_loop_run_until_limit);
    tcase_add_test(tc, test_sim_loop_two_loops_independent);
    tcase_add_test(tc, test_sim_loop_stream_common_random_numbers);
    tcase_add_test(tc, test_sim_loop_replace_top);
    tcase_add_test(tc, test_sim_loop_hook);
    tcase_add_test(tc, test_sim_loop_random_order);
    suite_add_tcase(s, tc);
    tc = tcase_create("sim_errors");
    tcase_add_test(tc, test_sim_strerror_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("sim_time");
    tcase_add_test(tc, test_llround_nonneg_matches_llround);
    suite_add_tcase(s, tc);
    tc = tcase_create("sim_rng");
    tcase_add_test(tc, test_sim_rng_matches_gsl_mt19937);
    tcase_add_test(tc, test_sim_ran_matches_gsl);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(loop_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
