/* Check suite for sim/heap.c: randomised insert, cancel, update and pop
 * sequences (fixed seed) against a sorted reference. */
#include <check.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "sim/event.h"
#include "sim/heap.h"

#define NEV 2000

struct ref {
    int64_t t;
    uint64_t seq;
    int live;
};

static struct sim_event evs[NEV];
static struct ref refs[NEV];

static void nop(struct sim_loop *loop, struct sim_event *ev)
{
    (void)loop;
    (void)ev;
}

/* Index of the least live reference entry, or -1. O(n), for the test. */
static int ref_min(void)
{
    int best = -1;
    for (int i = 0; i < NEV; i++) {
        if (!refs[i].live)
            continue;
        if (best < 0 || refs[i].t < refs[best].t ||
            (refs[i].t == refs[best].t && refs[i].seq < refs[best].seq))
            best = i;
    }
    return best;
}

START_TEST(test_sim_heap_insert_pop_sorted)
{
    struct sim_heap h;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int64_t last_t = -1;
    uint64_t last_seq = 0;

    gsl_rng_set(r, 42);
    sim_heap_init(&h);
    for (int i = 0; i < NEV; i++) {
        sim_event_init(&evs[i], nop, NULL);
        /* Few distinct times, so that ties exercise the seq order. */
        sim_heap_insert(&h, &evs[i], (int64_t)gsl_rng_uniform_int(r, 50),
                        (uint64_t)i);
    }
    ck_assert(sim_heap_check(&h));
    for (int i = 0; i < NEV; i++) {
        struct sim_event *ev = sim_heap_pop(&h);
        uint64_t seq = (uint64_t)(ev - evs);
        ck_assert_ptr_nonnull(ev);
        ck_assert(ev->time_ns > last_t ||
                  (ev->time_ns == last_t && seq > last_seq));
        last_t = ev->time_ns;
        last_seq = seq;
        ck_assert_uint_eq(ev->heap_index, SIM_HEAP_NONE);
    }
    ck_assert_ptr_null(sim_heap_pop(&h));
    sim_heap_fini(&h);
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_sim_heap_remove_update_random_ops)
{
    struct sim_heap h;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint64_t seq = 0;

    gsl_rng_set(r, 7);
    sim_heap_init(&h);
    for (int i = 0; i < NEV; i++) {
        sim_event_init(&evs[i], nop, NULL);
        refs[i].live = 0;
    }
    for (int step = 0; step < 50000; step++) {
        int i = (int)gsl_rng_uniform_int(r, NEV);
        int op = (int)gsl_rng_uniform_int(r, 4);
        int64_t t = (int64_t)gsl_rng_uniform_int(r, 1000);
        if (!refs[i].live) {
            sim_heap_insert(&h, &evs[i], t, seq);
            refs[i] = (struct ref){t, seq++, 1};
        } else if (op == 0) {
            sim_heap_remove(&h, &evs[i]);
            refs[i].live = 0;
        } else if (op == 1) {
            sim_heap_update(&h, &evs[i], t, seq);
            refs[i] = (struct ref){t, seq++, 1};
        } else if (op == 2) {
            int m = ref_min();
            struct sim_event *ev = sim_heap_pop(&h);
            ck_assert_ptr_eq(ev, &evs[m]);
            refs[m].live = 0;
        }
        if (step % 997 == 0)
            ck_assert(sim_heap_check(&h));
    }
    ck_assert(sim_heap_check(&h));
    while (h.n > 0) {
        int m = ref_min();
        ck_assert_ptr_eq(sim_heap_pop(&h), &evs[m]);
        refs[m].live = 0;
    }
    ck_assert_int_eq(ref_min(), -1);
    sim_heap_fini(&h);
    gsl_rng_free(r);
}
END_TEST

static Suite *heap_suite(void)
{
    Suite *s = suite_create("heap");
    TCase *tc = tcase_create("sim_heap");
    tcase_add_test(tc, test_sim_heap_insert_pop_sorted);
    tcase_add_test(tc, test_sim_heap_remove_update_random_ops);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(heap_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
