/* Check suite for the baseline scaling policies (static, hpa, keda, kpa,
 * apa, ray-serve), the guard rails and the shared helpers: each published
 * rule on hand-made metric sequences, and every parameter row. Entries are
 * used by their extern names so that the suite links without the planner
 * policies of table.c. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/policy/guard.h"
#include "models/policy/pol-util.h"
#include "models/policy/policy.h"
#include "tests/pol-fixture.h"

extern const struct pol_entry pol_apa;
extern const struct pol_entry pol_hpa;
extern const struct pol_entry pol_keda;
extern const struct pol_entry pol_kpa;
extern const struct pol_entry pol_ray_serve;
extern const struct pol_entry pol_static;

static const struct pol_entry *const baselines[] = {
    &pol_apa, &pol_hpa, &pol_keda, &pol_kpa, &pol_ray_serve, &pol_static, NULL,
};

/* ---- rows ---- */

static size_t type_size(enum sim_param_type t)
{
    switch (t) {
    case SIM_PT_INT:
    case SIM_PT_BOOL:
    case SIM_PT_ENUM:
        return sizeof(int);
    case SIM_PT_INT64:
    case SIM_PT_DURATION:
        return sizeof(int64_t);
    case SIM_PT_UINT64:
        return sizeof(uint64_t);
    case SIM_PT_DOUBLE:
        return sizeof(double);
    case SIM_PT_STRING:
        return sizeof(char *);
    default: /* sections and containers do not belong in policy rows */
        break;
    }
    return 0;
}

static void check_rows(const char *what, const struct sim_param *rows,
                       size_t size)
{
    char err[SIM_PARAM_ERRLEN];
    void *block = xcalloc(1, size ? size : 1);

    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        ck_assert_msg(p->key[0] != '\0', "%s: empty key", what);
        ck_assert_msg(p->help != NULL && p->help[0] != '\0', "%s.%s: no help",
                      what, p->key);
        ck_assert_msg(p->type != SIM_PT_SECTION, "%s.%s: section", what,
                      p->key);
        ck_assert_msg(!(p->min > p->max), "%s.%s: min > max", what, p->key);
        ck_assert_msg(p->offset + type_size(p->type) <= size,
                      "%s.%s: offset beyond the block", what, p->key);
        if (p->type == SIM_PT_ENUM)
            ck_assert_msg(p->choices != NULL && p->choices[0].name != NULL,
                          "%s.%s: no choices", what, p->key);
        ck_assert_msg(sim_param_default(p, block, err, sizeof(err)) == 0,
                      "%s.%s: default: %s", what, p->key, err);
        for (const struct sim_param *q = rows; q < p; q++)
            ck_assert_msg(strcmp(q->key, p->key) != 0, "%s.%s: duplicate", what,
                          p->key);
    }
    free(block);
}

START_TEST(test_rows_baselines_sane)
{
    for (int i = 0; baselines[i] != NULL; i++) {
        const struct pol_entry *e = baselines[i];
        ck_assert(e->name != NULL && e->name[0] != '\0');
        ck_assert_msg(e->summary != NULL && e->summary[0] != '\0', "%s",
                      e->name);
        ck_assert_int_eq(e->ops->version, POL_API_VERSION);
        ck_assert(e->ops->create && e->ops->destroy && e->ops->decide);
        ck_assert_ptr_nonnull(e->params);
        check_rows(e->name, e->params, e->params_size);
        if (i > 0)
            ck_assert_msg(strcmp(baselines[i - 1]->name, e->name) < 0,
                          "not sorted at %s", e->name);
    }
}
END_TEST

START_TEST(test_rows_guard_sane)
{
    struct pol_guard_params gp;
    char err[SIM_PARAM_ERRLEN];

    check_rows("guard", pol_guard_params_rows, sizeof(gp));
    memset(&gp, 0, sizeof(gp));
    for (const struct sim_param *p = pol_guard_params_rows; p->key; p++)
        ck_assert(sim_param_default(p, &gp, err, sizeof(err)) == 0);
    ck_assert_double_eq(gp.interval_s, 15);
    ck_assert_double_eq(gp.scale_up_cooldown_s, 0);
    ck_assert_double_eq(gp.scale_down_cooldown_s, 300);
    ck_assert_int_eq(gp.max_step_up, 8);
    ck_assert_int_eq(gp.max_step_down, 1);
    /* Durations are double seconds: "2min" is 120. */
    ck_assert(sim_param_parse(
                  sim_param_find(pol_guard_params_rows, "scale_down_cooldown"),
                  "2min", &gp, err, sizeof(err)) == 0);
    ck_assert_double_eq(gp.scale_down_cooldown_s, 120);
}
END_TEST

START_TEST(test_rows_metric_choices_sorted)
{
    const struct sim_param_choice *c = pol_util_metric_choices;

    for (int i = 1; c[i].name != NULL; i++)
        ck_assert(strcmp(c[i - 1].name, c[i].name) < 0);
    ck_assert_str_eq(pol_util_metric_name(POL_UTIL_M_CONCURRENCY),
                     "concurrency");
    ck_assert_str_eq(pol_util_metric_name(POL_UTIL_M_TTFT_P99), "ttft_p99");
}
END_TEST

/* ---- util ---- */

START_TEST(test_util_window_span_and_cap)
{
    static struct pol_util_window w;

    pol_util_window_init(&w);
    ck_assert(isnan(pol_util_window_mean(&w, 0, 10)));
    pol_util_window_push(&w, 0, 1);
    pol_util_window_push(&w, 5, NAN); /* ignored */
    pol_util_window_push(&w, 10, 3);
    pol_util_window_push(&w, 20, 8);
    ck_assert_int_eq(pol_util_window_count(&w, 20, 10), 1); /* 10 is out */
    ck_assert_double_eq(pol_util_window_mean(&w, 20, 11), 5.5);
    ck_assert_double_eq(pol_util_window_max(&w, 20, 100), 8);
    ck_assert_double_eq(pol_util_window_min(&w, 20, 100), 1);
    ck_assert_double_eq(pol_util_window_sum(&w, 20, 100), 12);
    ck_assert_double_eq(pol_util_window_mean(&w, 20, 0), 8); /* now counts */
    for (int i = 0; i < 2 * POL_UTIL_WINDOW_CAP; i++)
        pol_util_window_push(&w, 100 + i, i);
    ck_assert_int_eq(w.n, POL_UTIL_WINDOW_CAP);
    ck_assert_double_eq(pol_util_window_min(&w, 1e9, INFINITY),
                        POL_UTIL_WINDOW_CAP);
}
END_TEST

START_TEST(test_util_ready_mean_skips_nan_and_pending)
{
    struct pol_fix *f = pol_fix_new(&pol_static, NULL);
    int n;

    pol_fix_set(f, 0, 3, 2, 10, 2);
    f->reps[0].num_running = NAN;
    f->reps[1].kv_usage = 0.5;
    ck_assert_double_eq(pol_util_ready_mean(&f->s, POL_UTIL_M_CONCURRENCY, &n),
                        12);
    ck_assert_int_eq(n, 2);
    ck_assert_double_eq(pol_util_ready_sum(&f->s, POL_UTIL_M_NUM_WAITING, &n),
                        6);
    ck_assert_int_eq(n, 3);
    ck_assert_double_eq(pol_util_ready_mean(&f->s, POL_UTIL_M_KV_USAGE, NULL),
                        0.5 / 3);
    ck_assert(isnan(pol_util_ready_mean(&f->s, POL_UTIL_M_TTFT_P99, &n)));
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(pol_util_current(&f->s), 5);
    ck_assert_int_eq(pol_util_ceil(4 * 1.5000000001), 6);
    ck_assert_int_eq(pol_util_ceil(NAN), 0);
    pol_fix_free(f);
}
END_TEST

/* ---- guard ---- */

static struct pol_guard guard_new(double up_cd, double down_cd, int up,
                                  int down)
{
    struct pol_guard g;
    struct pol_guard_params p = {15, up_cd, down_cd, up, down};

    pol_guard_init(&g, &p);
    return g;
}

/* Snapshot of cur ready replicas in [lo, hi] at now_s. */
static struct pol_snapshot guard_snap(double now_s, int cur, int lo, int hi)
{
    struct pol_snapshot s;

    memset(&s, 0, sizeof(s));
    s.api_version = POL_API_VERSION;
    s.now_s = now_s;
    s.metrics_valid = 1;
    s.ready = cur;
    s.min_replicas = lo;
    s.max_replicas = hi;
    return s;
}

static int guard_run(struct pol_guard *g, double now_s, int cur, int want,
                     enum pol_guard_reason *why)
{
    struct pol_snapshot s = guard_snap(now_s, cur, 1, 1000);
    struct pol_decision d = {want, 0, POL_DRAIN_DEFAULT};

    *why = pol_guard_apply(g, &s, 0, &d);
    return d.desired;
}

START_TEST(test_guard_clamp_min_max)
{
    struct pol_guard g = guard_new(0, 0, 1000, 1000);
    struct pol_snapshot s = guard_snap(0, 5, 2, 10);
    struct pol_decision d = {50, 0, POL_DRAIN_DEFAULT};

    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_CLAMP);
    ck_assert_int_eq(d.desired, 10);
    d.desired = 0;
    s.now_s = 1;
    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_CLAMP);
    ck_assert_int_eq(d.desired, 2);
    d.desired = 7;
    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_NONE);
    ck_assert_int_eq(d.desired, 7);
}
END_TEST

START_TEST(test_guard_step_limits)
{
    struct pol_guard g = guard_new(0, 0, 8, 1);
    enum pol_guard_reason why;

    ck_assert_int_eq(guard_run(&g, 0, 5, 20, &why), 13);
    ck_assert_int_eq(why, POL_GUARD_STEP_LIMIT);
    ck_assert_int_eq(guard_run(&g, 15, 13, 1, &why), 12);
    ck_assert_int_eq(why, POL_GUARD_STEP_LIMIT);
    ck_assert_int_eq(guard_run(&g, 30, 12, 11, &why), 11);
    ck_assert_int_eq(why, POL_GUARD_NONE);
}
END_TEST

START_TEST(test_guard_up_cooldown)
{
    struct pol_guard g = guard_new(60, 0, 100, 100);
    enum pol_guard_reason why;

    ck_assert_int_eq(guard_run(&g, 0, 5, 6, &why), 6);
    ck_assert_double_eq(g.last_up_s, 0);
    ck_assert_int_eq(guard_run(&g, 30, 6, 8, &why), 6);
    ck_assert_int_eq(why, POL_GUARD_COOLDOWN);
    ck_assert_int_eq(guard_run(&g, 59, 6, 8, &why), 6);
    ck_assert_int_eq(guard_run(&g, 60, 6, 8, &why), 8);
    ck_assert_int_eq(why, POL_GUARD_NONE);
    /* A scale-down is not held by the up cooldown. */
    ck_assert_int_eq(guard_run(&g, 61, 8, 7, &why), 7);
}
END_TEST

START_TEST(test_guard_down_cooldown)
{
    struct pol_guard g = guard_new(0, 300, 100, 100);
    enum pol_guard_reason why;

    /* Before any change, scale-down is free. */
    ck_assert_int_eq(guard_run(&g, 0, 6, 5, &why), 5);
    ck_assert_int_eq(guard_run(&g, 10, 5, 6, &why), 6); /* up after down */
    ck_assert_int_eq(guard_run(&g, 100, 6, 5, &why), 6);
    ck_assert_int_eq(why, POL_GUARD_COOLDOWN);
    ck_assert_int_eq(guard_run(&g, 309, 6, 5, &why), 6);
    ck_assert_int_eq(guard_run(&g, 310, 6, 5, &why), 5);
    ck_assert_double_eq(g.last_down_s, 310);
    ck_assert_int_eq(guard_run(&g, 400, 5, 4, &why), 5);
    ck_assert_int_eq(guard_run(&g, 610, 5, 4, &why), 4);
}
END_TEST

START_TEST(test_guard_hold_invalid_metrics)
{
    struct pol_guard g = guard_new(0, 0, 100, 100);
    struct pol_snapshot s = guard_snap(0, 5, 1, 100);
    struct pol_decision d = {9, 3, POL_DRAIN_DEFAULT};

    s.pending = 2;
    s.metrics_valid = 0;
    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_INVALID_METRICS);
    ck_assert_int_eq(d.desired, 7);
    ck_assert_int_eq(d.borrow, 0);
    ck_assert_uint_eq(g.holds, 1);
    ck_assert(isinf(g.last_up_s) && g.last_up_s < 0);
}
END_TEST

START_TEST(test_guard_hold_policy_rc)
{
    struct pol_guard g = guard_new(0, 0, 100, 100);
    struct pol_snapshot s = guard_snap(0, 5, 1, 100);
    struct pol_decision d = {1, 0, POL_DRAIN_DEFAULT};

    ck_assert_int_eq(pol_guard_apply(&g, &s, -6, &d), POL_GUARD_POLICY_HOLD);
    ck_assert_int_eq(d.desired, 5);
    ck_assert_uint_eq(g.holds, 0);
}
END_TEST

START_TEST(test_guard_borrow_clamped)
{
    struct pol_guard g = guard_new(0, 0, 100, 100);
    struct pol_snapshot s = guard_snap(0, 5, 1, 100);
    struct pol_decision d = {7, 5, POL_DRAIN_DEFAULT};

    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_CLAMP);
    ck_assert_int_eq(d.borrow, 2);
    d.desired = 7;
    d.borrow = -1;
    pol_guard_apply(&g, &s, 0, &d);
    ck_assert_int_eq(d.borrow, 0);
    d.desired = 4;
    d.borrow = 3;
    pol_guard_apply(&g, &s, 0, &d);
    ck_assert_int_eq(d.desired, 4);
    ck_assert_int_eq(d.borrow, 0);
    d.desired = 6;
    d.borrow = 1;
    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_NONE);
    ck_assert_int_eq(d.borrow, 1);
}
END_TEST

/* The drain mode of a scale-down stands; one outside enum pol_drain is a
 * clamp to the default, and a hold names none. */
START_TEST(test_guard_drain_mode)
{
    struct pol_guard g = guard_new(0, 0, 100, 100);
    struct pol_snapshot s = guard_snap(0, 5, 1, 100);
    struct pol_decision d = {4, 0, POL_DRAIN_MIGRATE};

    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_NONE);
    ck_assert_int_eq(d.desired, 4);
    ck_assert_int_eq(d.drain, POL_DRAIN_MIGRATE);
    d.desired = 4;
    d.drain = 7;
    ck_assert_int_eq(pol_guard_apply(&g, &s, 0, &d), POL_GUARD_CLAMP);
    ck_assert_int_eq(d.desired, 4);
    ck_assert_int_eq(d.drain, POL_DRAIN_DEFAULT);
    d.desired = 4;
    d.drain = POL_DRAIN_FINISH;
    ck_assert_int_eq(pol_guard_apply(&g, &s, -6, &d), POL_GUARD_POLICY_HOLD);
    ck_assert_int_eq(d.desired, 5);
    ck_assert_int_eq(d.drain, POL_DRAIN_DEFAULT);
}
END_TEST

START_TEST(test_guard_reason_names)
{
    for (int r = POL_GUARD_NONE; r <= POL_GUARD_CLAMP; r++) {
        const char *n = pol_guard_reason_name(r);
        ck_assert(n != NULL && strcmp(n, "?") != 0);
        for (int q = POL_GUARD_NONE; q < r; q++)
            ck_assert_str_ne(n, pol_guard_reason_name(q));
    }
    ck_assert_str_eq(pol_guard_reason_name(POL_GUARD_COOLDOWN), "cooldown");
}
END_TEST

/* ---- static ---- */

START_TEST(test_static_holds_by_default)
{
    struct pol_fix *f = pol_fix_new(&pol_static, NULL);

    pol_fix_set(f, 0, 3, 2, 500, 500);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 5);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_static_fixed_replicas)
{
    static const char *const kv[] = {"replicas", "7", NULL};
    struct pol_fix *f = pol_fix_new(&pol_static, kv);

    pol_fix_set(f, 0, 3, 0, 0, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 7);
    pol_fix_free(f);
}
END_TEST

/* ---- hpa (target 32 concurrency) ---- */

START_TEST(test_hpa_ratio_scales_up)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);

    pol_fix_set(f, 0, 4, 0, 40, 8); /* m/t = 1.5 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_hpa_tolerance_holds)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);

    pol_fix_set(f, 0, 4, 0, 35, 0); /* 1.09 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_set(f, 15, 4, 0, 29, 0); /* 0.906 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_hpa_stabilization_delays_scale_down)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);

    pol_fix_set(f, 0, 4, 0, 32, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    for (double t = 15; t < 300; t += 15) {
        pol_fix_set(f, t, 4, 0, 8, 0); /* recommends 1 */
        ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    }
    pol_fix_set(f, 300, 4, 0, 8, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 1);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_hpa_scale_up_rate_limit)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);

    pol_fix_set(f, 0, 2, 0, 320, 0);               /* wants 20 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);  /* max(2*2, 2+4) */
    pol_fix_set(f, 15, 6, 0, 320 * 2 / 6.0, 0);    /* still wants 20 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 12); /* max(12, 10) */
    pol_fix_free(f);
}
END_TEST

START_TEST(test_hpa_pending_count_zero_on_scale_up)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);

    /* 4 ready at 1.5x and 2 pending: (4 * 48) / (6 * 32) = 1, hold. */
    pol_fix_set(f, 0, 4, 2, 48, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_hpa_missing_metric_full_on_scale_down)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);

    /* 3 at 8, one without: (24 + 32) / (4 * 32) = 0.4375 -> 2. */
    pol_fix_set(f, 0, 4, 0, 8, 0);
    f->reps[3].num_running = NAN;
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_hpa_no_data_holds)
{
    struct pol_fix *f = pol_fix_new(&pol_hpa, NULL);
    int rc;

    pol_fix_set(f, 0, 0, 2, 0, 0);
    pol_fix_decide(f, &rc);
    ck_assert_int_eq(rc, POL_UTIL_ENODATA);
    pol_fix_free(f);
}
END_TEST

/* ---- keda ---- */

START_TEST(test_keda_average_value)
{
    struct pol_fix *f = pol_fix_new(&pol_keda, NULL);

    pol_fix_set(f, 0, 4, 0, 48, 0); /* 192 / 32 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_set(f, 15, 4, 0, 33, 0); /* within tolerance */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_keda_cooldown_to_min)
{
    static const char *const kv[] = {"activation_threshold", "5", NULL};
    struct pol_fix *f = pol_fix_new(&pol_keda, kv);

    f->s.min_replicas = 2;
    pol_fix_set(f, 0, 4, 0, 40, 0); /* active */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 5);
    for (double t = 15; t < 300; t += 15) {
        pol_fix_set(f, t, 4, 0, 1, 0); /* total 4 <= 5: inactive */
        ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    }
    pol_fix_set(f, 300, 4, 0, 1, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_keda_poll_interval_gates_activity)
{
    static const char *const kv[] = {"activation_threshold", "5",
                                     "cooldown_period", "0s", NULL};
    struct pol_fix *f = pol_fix_new(&pol_keda, kv);

    pol_fix_set(f, 0, 4, 0, 8, 0); /* active at the poll at 0 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 1);
    pol_fix_free(f);
    f = pol_fix_new(&pol_keda, kv);
    pol_fix_set(f, 0, 4, 0, 32, 0); /* active, in tolerance */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_set(f, 15, 4, 0, 0, 0); /* inactive, but not polled yet */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_set(f, 30, 4, 0, 0, 0); /* polled: inactive, cooldown 0 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 1);
    pol_fix_free(f);
}
END_TEST

/* ---- kpa (target 70, interval 2 s) ---- */

START_TEST(test_kpa_stable_mode)
{
    struct pol_fix *f = pol_fix_new(&pol_kpa, NULL);

    pol_fix_set(f, 0, 4, 0, 100, 5); /* total 420 -> 6, 6/4 < 2 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_kpa_panic_no_decrease)
{
    struct pol_fix *f = pol_fix_new(&pol_kpa, NULL);
    double t;

    f->s.interval_s = 2;
    for (t = 0; t < 60; t += 2) {
        pol_fix_set(f, t, 4, 0, 70, 0);
        ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    }
    /* A burst of 2.5x target per replica. */
    pol_fix_set(f, 60, 4, 0, 175, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 5); /* panic mean 420: 1.5 */
    pol_fix_set(f, 62, 4, 0, 175, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 8); /* 560: panic */
    pol_fix_set(f, 64, 4, 0, 175, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 10);
    /* Load falls back; last over the threshold at 66. */
    for (t = 66; t <= 126; t += 2) {
        pol_fix_set(f, t, 4, 0, 70, 0);
        ck_assert_msg(pol_fix_decide(f, NULL) == 10, "t=%g", t);
    }
    pol_fix_set(f, 128, 4, 0, 70, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_kpa_rate_limits)
{
    struct pol_fix *f = pol_fix_new(&pol_kpa, NULL);

    pol_fix_set(f, 0, 1, 0, 70.0 * 5000, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 1000); /* 1000 x 1 */
    pol_fix_free(f);
    f = pol_fix_new(&pol_kpa, NULL);
    pol_fix_set(f, 0, 10, 0, 0, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 5); /* floor(10 / 2) */
    pol_fix_free(f);
}
END_TEST

/* ---- apa (target 32) ---- */

static const char *const apa_now[] = {"window", "0s", NULL};

START_TEST(test_apa_bands)
{
    struct pol_fix *f = pol_fix_new(&pol_apa, apa_now);

    pol_fix_set(f, 0, 4, 0, 35, 0); /* 1.09: in band */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_set(f, 15, 4, 0, 29, 0); /* 0.906: in band */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_set(f, 30, 4, 0, 48, 0); /* 1.5 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_set(f, 45, 8, 0, 24, 0); /* 0.75 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_apa_rate_limits)
{
    struct pol_fix *f = pol_fix_new(&pol_apa, apa_now);

    pol_fix_set(f, 0, 4, 0, 320, 0); /* r = 10 -> 2R */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 8);
    pol_fix_set(f, 15, 8, 0, 8, 0); /* r = 0.25 -> R/2 */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_apa_pending_not_cancelled)
{
    struct pol_fix *f = pol_fix_new(&pol_apa, apa_now);

    pol_fix_set(f, 0, 4, 4, 48, 0); /* rule says 6, 8 are coming */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 8);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_apa_window_average)
{
    struct pol_fix *f = pol_fix_new(&pol_apa, NULL);

    pol_fix_set(f, 0, 4, 0, 32, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_set(f, 15, 4, 0, 64, 0); /* mean 48 over 180 s */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 6);
    pol_fix_free(f);
}
END_TEST

/* ---- ray-serve (target 2 ongoing) ---- */

START_TEST(test_ray_serve_upscale_delay)
{
    struct pol_fix *f = pol_fix_new(&pol_ray_serve, NULL);

    for (double t = 0; t < 30; t += 15) {
        pol_fix_set(f, t, 2, 0, 3, 1); /* e = 8 / 4 = 2 */
        ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    }
    pol_fix_set(f, 30, 2, 0, 3, 1);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_ray_serve_downscale_delay)
{
    struct pol_fix *f = pol_fix_new(&pol_ray_serve, NULL);

    for (double t = 0; t < 600; t += 15) {
        pol_fix_set(f, t, 4, 0, 1, 0); /* e = 0.5 */
        ck_assert_int_eq(pol_fix_decide(f, NULL), 4);
    }
    pol_fix_set(f, 600, 4, 0, 1, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_ray_serve_flip_restarts_delay)
{
    struct pol_fix *f = pol_fix_new(&pol_ray_serve, NULL);

    pol_fix_set(f, 0, 2, 0, 4, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_set(f, 15, 2, 0, 4, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    /* The look-back mean falls to target: no decision, counter reset. */
    pol_fix_set(f, 30, 2, 0, 0, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_set(f, 45, 2, 0, 8, 0); /* look-back mean 8: e = 2, run starts */
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_set(f, 60, 2, 0, 8, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 2);
    pol_fix_set(f, 75, 2, 0, 8, 0);
    ck_assert_int_gt(pol_fix_decide(f, NULL), 2);
    pol_fix_free(f);
}
END_TEST

START_TEST(test_ray_serve_minus_one_rule)
{
    static const char *const kv[] = {"downscale_smoothing_factor", "0.1",
                                     "downscale_delay", "0s", NULL};
    struct pol_fix *f = pol_fix_new(&pol_ray_serve, kv);

    /* ceil(4 * (1 - 0.5 * 0.1)) = 4, but ceil(4 * 0.5) < 4: 3. */
    pol_fix_set(f, 0, 4, 0, 1, 0);
    ck_assert_int_eq(pol_fix_decide(f, NULL), 3);
    pol_fix_free(f);
}
END_TEST

static Suite *pol_baselines_suite(void)
{
    Suite *s = suite_create("pol_baselines");
    TCase *tc;

    tc = tcase_create("rows");
    tcase_add_test(tc, test_rows_baselines_sane);
    tcase_add_test(tc, test_rows_guard_sane);
    tcase_add_test(tc, test_rows_metric_choices_sorted);
    suite_add_tcase(s, tc);

    tc = tcase_create("util");
    tcase_add_test(tc, test_util_window_span_and_cap);
    tcase_add_test(tc, test_util_ready_mean_skips_nan_and_pending);
    suite_add_tcase(s, tc);

    tc = tcase_create("guard");
    tcase_add_test(tc, test_guard_clamp_min_max);
    tcase_add_test(tc, test_guard_step_limits);
    tcase_add_test(tc, test_guard_up_cooldown);
    tcase_add_test(tc, test_guard_down_cooldown);
    tcase_add_test(tc, test_guard_hold_invalid_metrics);
    tcase_add_test(tc, test_guard_hold_policy_rc);
    tcase_add_test(tc, test_guard_borrow_clamped);
    tcase_add_test(tc, test_guard_drain_mode);
    tcase_add_test(tc, test_guard_reason_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("static");
    tcase_add_test(tc, test_static_holds_by_default);
    tcase_add_test(tc, test_static_fixed_replicas);
    suite_add_tcase(s, tc);

    tc = tcase_create("hpa");
    tcase_add_test(tc, test_hpa_ratio_scales_up);
    tcase_add_test(tc, test_hpa_tolerance_holds);
    tcase_add_test(tc, test_hpa_stabilization_delays_scale_down);
    tcase_add_test(tc, test_hpa_scale_up_rate_limit);
    tcase_add_test(tc, test_hpa_pending_count_zero_on_scale_up);
    tcase_add_test(tc, test_hpa_missing_metric_full_on_scale_down);
    tcase_add_test(tc, test_hpa_no_data_holds);
    suite_add_tcase(s, tc);

    tc = tcase_create("keda");
    tcase_add_test(tc, test_keda_average_value);
    tcase_add_test(tc, test_keda_cooldown_to_min);
    tcase_add_test(tc, test_keda_poll_interval_gates_activity);
    suite_add_tcase(s, tc);

    tc = tcase_create("kpa");
    tcase_add_test(tc, test_kpa_stable_mode);
    tcase_add_test(tc, test_kpa_panic_no_decrease);
    tcase_add_test(tc, test_kpa_rate_limits);
    suite_add_tcase(s, tc);

    tc = tcase_create("apa");
    tcase_add_test(tc, test_apa_bands);
    tcase_add_test(tc, test_apa_rate_limits);
    tcase_add_test(tc, test_apa_pending_not_cancelled);
    tcase_add_test(tc, test_apa_window_average);
    suite_add_tcase(s, tc);

    tc = tcase_create("ray_serve");
    tcase_add_test(tc, test_ray_serve_upscale_delay);
    tcase_add_test(tc, test_ray_serve_downscale_delay);
    tcase_add_test(tc, test_ray_serve_flip_restarts_delay);
    tcase_add_test(tc, test_ray_serve_minus_one_rule);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pol_baselines_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
