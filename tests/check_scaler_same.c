/* Check suite for "same code, same decisions": one metric sequence (a
 * flash crowd over five vLLM replicas, one joining late: cumulative
 * counters and histogram buckets every 15 s) goes (a) through the
 * simulator's path, the orchestrator's window rule over cumulative
 * counters (models/cluster/orchestrator.c: window_s / interval_s + 1
 * snapshots, newest minus oldest) into the shared snapshot code, and (b)
 * through the scaler's path, rendered as a vLLM /metrics page, parsed,
 * mapped and windowed by scaler/source.c. Both snapshots must agree
 * field by field, and every policy of the registry, with the guard, must
 * take the same decision at every step; so must the example plug-in
 * (contrib/policy-plugin, loaded from $top_builddir/tests/.libs as both
 * dsec and dsec-scaler load it). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/policy/guard.h"
#include "models/policy/snapshot.h"
#include "scaler/conf.h"
#include "scaler/decide.h"
#include "scaler/expo.h"
#include "scaler/source.h"
#include "base/diag.h"
#include "base/xalloc.h"

#define NREP 5
#define STEPS 48
#define INTERVAL_S 15.0
#define SLOTS 5      /* window 60 s / interval 15 s + 1, the simulator's rule */
#define JOIN_STEP 12 /* r4 appears just before this evaluation */
#define SPEC 5       /* spec.replicas the actuator reports */
#define TARGET "http://replica/metrics"

struct rep {
    struct pol_window cum; /* cumulative since the replica started */
    double running, waiting, kv;
    double ring_at[SLOTS];
    struct pol_window ring[SLOTS];
    int head, n;
    double born_s;
};

static struct rep reps[NREP];
static double cl_ring_at[SLOTS];
static struct pol_window cl_ring[SLOTS], cl_cum;
static int cl_head, cl_n;

static int alive(int r, int step)
{
    return r < NREP - 1 || step >= JOIN_STEP;
}

/* Requests per second per replica: a flash crowd from step 10 to 25. */
static double load(int step, int r)
{
    double base = step >= 10 && step < 25 ? 12.0 : step >= 25 ? 3.0 : 2.0;
    return base * (1 + 0.1 * r) + 0.25 * (step % 3);
}

/* The traffic of one interval, added to the cumulative counters. */
static void advance(int step)
{
    memset(&cl_cum, 0, sizeof(cl_cum.span_s));
    for (int r = 0; r < NREP; r++) {
        struct rep *p = &reps[r];
        double lam = load(step, r);
        double inc = floor(lam * INTERVAL_S);
        uint64_t tok = (uint64_t)inc * 180;
        double itl = 0.012 + 0.0035 * lam;

        if (!alive(r, step))
            continue;
        p->cum.completed += inc;
        p->cum.arrivals += inc;
        p->cum.arrival_prompt_tokens += inc * 512 + step;
        p->cum.arrival_output_tokens += (double)tok;
        p->cum.prompt_tokens += inc * 512 + step;
        p->cum.output_tokens += (double)tok;
        pol_ph_add_n(&p->cum.itl, itl, tok - tok / 10);
        pol_ph_add_n(&p->cum.itl, 2.5 * itl, tok / 10);
        pol_ph_add_n(&p->cum.ttft, 0.04 + 0.03 * lam, (uint64_t)inc);
        p->running = floor(lam * 2.5) + r;
        p->waiting = lam > 10 ? floor((lam - 10) * 3) : 0;
        p->kv = fmin(0.97, 0.045 * lam + 0.01 * r);
    }
}

/* Path (a): the simulator's windows and the shared snapshot code. */
static void sim_snapshot(int step, const struct scl_config *c,
                         struct pol_snapshot *s, struct pol_replica *pr,
                         struct pol_pool *pool)
{
    double now = step * INTERVAL_S;
    struct pol_window cl, d;
    int n = 0, nkv = 0;

    pol_window_init(&cl);
    for (int r = 0; r < NREP; r++)
        if (alive(r, step))
            pol_window_add(&cl, &reps[r].cum);
    cl_cum = cl;
    memset(s, 0, sizeof(*s));
    s->api_version = POL_API_VERSION;
    s->now_s = now;
    s->interval_s = c->interval_s;
    s->window_s = c->window_s;
    s->min_replicas = c->min_replicas;
    s->max_replicas = c->max_replicas;
    s->gpus_per_replica = c->gpus_per_replica;
    s->target_ttft_s = c->target_ttft_s;
    s->target_itl_s = c->target_itl_s;
    /* win_delta(): the newest counters minus the oldest snapshot held. */
    {
        int o = (cl_head - cl_n + SLOTS) % SLOTS;
        pol_window_init(&d);
        d.span_s = now - cl_ring_at[o];
        d.arrivals = cl.arrivals - cl_ring[o].arrivals;
        d.arrival_prompt_tokens =
            cl.arrival_prompt_tokens - cl_ring[o].arrival_prompt_tokens;
        d.arrival_output_tokens =
            cl.arrival_output_tokens - cl_ring[o].arrival_output_tokens;
        d.completed = cl.completed - cl_ring[o].completed;
        d.prompt_tokens = cl.prompt_tokens - cl_ring[o].prompt_tokens;
        d.output_tokens = cl.output_tokens - cl_ring[o].output_tokens;
        pol_ph_delta(&d.ttft, &cl.ttft, &cl_ring[o].ttft);
        pol_ph_delta(&d.itl, &cl.itl, &cl_ring[o].itl);
        s->metrics_valid = d.span_s > 0;
        pol_snapshot_fill_window(s, &d);
    }
    for (int r = 0; r < NREP; r++) {
        struct rep *p = &reps[r];
        struct pol_replica *q;
        if (!alive(r, step))
            continue;
        q = &pr[n++];
        memset(q, 0, sizeof(*q));
        q->state = POL_RS_READY;
        q->age_s = now - p->born_s;
        q->num_running = p->running;
        q->num_waiting = p->waiting;
        q->kv_usage = p->kv;
        q->kv_capacity_tokens = 16.0 * 1000;
        nkv++;
        pol_window_init(&d);
        if (p->n > 0) {
            int o = (p->head - p->n + SLOTS) % SLOTS;
            d.span_s = now - p->ring_at[o];
            d.completed = p->cum.completed - p->ring[o].completed;
            d.prompt_tokens = p->cum.prompt_tokens - p->ring[o].prompt_tokens;
            d.output_tokens = p->cum.output_tokens - p->ring[o].output_tokens;
            pol_ph_delta(&d.ttft, &p->cum.ttft, &p->ring[o].ttft);
            pol_ph_delta(&d.itl, &p->cum.itl, &p->ring[o].itl);
        }
        pol_replica_fill_window(q, &d);
    }
    s->ready = n;
    s->pending = SPEC > n ? SPEC - n : 0;
    s->replicas = pr;
    s->nreplicas = n;
    pol_snapshot_sum_gauges(s, nkv);
    memset(pool, 0, sizeof(*pool));
    pool->name = "default";
    pool->capacity_replicas = c->max_replicas;
    pool->ready = s->ready;
    pool->pending = s->pending;
    pool->price_usd_per_replica_hour = c->price_usd_per_replica_hour;
    pool->provision_s_mean = c->provision_s;
    s->pools = pool;
    s->npools = 1;
}

/* win_push() after the evaluation. */
static void sim_push(int step)
{
    double now = step * INTERVAL_S;

    cl_ring[cl_head] = cl_cum;
    cl_ring_at[cl_head] = now;
    cl_head = (cl_head + 1) % SLOTS;
    if (cl_n < SLOTS)
        cl_n++;
    for (int r = 0; r < NREP; r++) {
        struct rep *p = &reps[r];
        if (!alive(r, step))
            continue;
        p->ring[p->head] = p->cum;
        p->ring_at[p->head] = now;
        p->head = (p->head + 1) % SLOTS;
        if (p->n < SLOTS)
            p->n++;
    }
}

static void put_hist(FILE *fp, const char *name, const char *lab,
                     const struct pol_ph *h)
{
    int nle;
    const double *le = pol_ph_bounds(h->kind, &nle);
    uint64_t cum = 0;

    for (int i = 0; i < nle; i++) {
        cum += h->bucket[i];
        fprintf(fp, "%s_bucket{%s,le=\"%g\"} %llu\n", name, lab, le[i],
                (unsigned long long)cum);
    }
    fprintf(fp, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, lab,
            (unsigned long long)h->count);
    fprintf(fp, "%s_sum{%s} %.17g\n", name, lab, h->sum);
    fprintf(fp, "%s_count{%s} %llu\n", name, lab, (unsigned long long)h->count);
}

/* Path (b)'s input: the page a vLLM deployment would expose. */
static char *render(int step, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);

    fputs("# HELP vllm:num_requests_running Number of requests in model "
          "execution batches.\n# TYPE vllm:num_requests_running gauge\n",
          fp);
    for (int r = 0; r < NREP; r++) {
        const struct rep *p = &reps[r];
        char lab[96];
        if (!alive(r, step))
            continue;
        snprintf(lab, sizeof(lab),
                 "model_name=\"m\",engine=\"0\",replica=\"r%d\"", r);
        fprintf(fp, "vllm:num_requests_running{%s} %.17g\n", lab, p->running);
        fprintf(fp, "vllm:num_requests_waiting{%s} %.17g\n", lab, p->waiting);
        fprintf(fp, "vllm:kv_cache_usage_perc{%s} %.17g\n", lab, p->kv);
        fprintf(fp,
                "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks="
                "\"1000\",%s} 1\n",
                lab);
        fprintf(fp,
                "vllm:request_success_total{%s,finished_reason=\"stop\"} "
                "%.17g\n",
                lab, p->cum.completed);
        fprintf(fp, "vllm:prompt_tokens_total{%s} %.17g\n", lab,
                p->cum.prompt_tokens);
        fprintf(fp, "vllm:generation_tokens_total{%s} %.17g\n", lab,
                p->cum.output_tokens);
        fprintf(fp, "vllm:request_prompt_tokens_sum{%s} %.17g\n", lab,
                p->cum.arrival_prompt_tokens);
        fprintf(fp, "vllm:request_prompt_tokens_count{%s} %.17g\n", lab,
                p->cum.arrivals);
        fprintf(fp, "vllm:request_generation_tokens_sum{%s} %.17g\n", lab,
                p->cum.arrival_output_tokens);
        fprintf(fp, "vllm:request_generation_tokens_count{%s} %.17g\n", lab,
                p->cum.arrivals);
        put_hist(fp, "vllm:time_to_first_token_seconds", lab, &p->cum.ttft);
        put_hist(fp, "vllm:inter_token_latency_seconds", lab, &p->cum.itl);
    }
    fclose(fp);
    return buf;
}

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

#define SAME(f)                                                                \
    ck_assert_msg(same(a->f, b->f),                                            \
                  "step %d: " #f ": sim %.17g, scaler %.17g", step, a->f,      \
                  b->f)

static void compare(int step, const struct pol_snapshot *a,
                    const struct pol_snapshot *b)
{
    ck_assert_int_eq(a->metrics_valid, b->metrics_valid);
    ck_assert_int_eq(a->ready, b->ready);
    ck_assert_int_eq(a->pending, b->pending);
    ck_assert_int_eq(a->nreplicas, b->nreplicas);
    SAME(now_s);
    SAME(arrival_rate_per_s);
    SAME(mean_prompt_tokens);
    SAME(mean_output_tokens);
    SAME(output_tokens_per_s);
    SAME(ttft_p50_s);
    SAME(ttft_p99_s);
    SAME(itl_p50_s);
    SAME(itl_p99_s);
    SAME(num_running);
    SAME(num_waiting);
    SAME(kv_usage_mean);
    /* Histogram _sum values are doubles: the cluster's is a sum of
     * differences on one path and a difference of sums on the other, so
     * the window means may differ in the last bits. */
    ck_assert_double_eq_tol(a->ttft_mean_s, b->ttft_mean_s,
                            1e-12 * fabs(a->ttft_mean_s));
    ck_assert_double_eq_tol(a->itl_mean_s, b->itl_mean_s,
                            1e-12 * fabs(a->itl_mean_s));
    for (int i = 0; i < a->nreplicas; i++) {
        const struct pol_replica *x = &a->replicas[i], *y = &b->replicas[i];
        ck_assert_msg(
            same(x->itl_p99_s, y->itl_p99_s) &&
                same(x->ttft_p50_s, y->ttft_p50_s) &&
                same(x->itl_mean_s, y->itl_mean_s) &&
                same(x->output_tokens_per_s, y->output_tokens_per_s) &&
                same(x->requests_per_s, y->requests_per_s) &&
                same(x->prompt_tokens_per_s, y->prompt_tokens_per_s) &&
                same(x->kv_capacity_tokens, y->kv_capacity_tokens) &&
                same(x->age_s, y->age_s),
            "step %d: replica %d differs", step, i);
    }
}

START_TEST(test_same_decisions_every_policy)
{
    struct scl_config c;
    struct sim_diag diag;
    struct scl_source *src;
    const char *cfg = "max_replicas: 12\nmin_replicas: 1\n"
                      "target_latency_ms: 45\ninterval_s: 15\nwindow_s: 60\n"
                      "stale_after_s: 45\n"
                      "metrics: {source: scrape, targets: [" TARGET "]}\n"
                      "actuator: {kind: log}\n";
    int npol = 0;
    struct scl_decider sim_d[32], scl_d[32];
    int decisions = 0, changes = 0;

    sim_diag_init(&diag);
    ck_assert_int_eq(scl_config_parse("same.yaml", cfg, strlen(cfg), &c, &diag),
                     0);
    sim_diag_fini(&diag);
    for (int i = 0; pol_table[i] != NULL && npol < 32; i++) {
        const struct pol_entry *e = pol_table[i];
        char err[SIM_PARAM_ERRLEN];
        void *params = xcalloc(1, e->params_size ? e->params_size : 1);
        if (strcmp(e->name, "static") == 0) {
            free(params); /* needs a size; nothing to compare */
            continue;
        }
        ck_assert_int_eq(pol_params_default(e, params, err, sizeof(err)), 0);
        c.policy = e;
        free(c.policy_params);
        c.policy_params = params;
        ck_assert_int_eq(scl_decider_init(&sim_d[npol], &c), 0);
        ck_assert_int_eq(scl_decider_init(&scl_d[npol], &c), 0);
        npol++;
    }
    ck_assert_int_ge(npol, 8);
    {
        /* The plug-in, with a threshold this sequence crosses. */
        const char *top = getenv("top_builddir");
        char why[512], err[SIM_PARAM_ERRLEN];
        const struct pol_entry *e = pol_plugin_load(
            "tests/.libs/libqueue_step.so", top ? top : ".", why, sizeof(why));
        void *params;

        ck_assert_msg(e != NULL, "%s", why);
        params = xcalloc(1, e->params_size);
        ck_assert_int_eq(pol_params_default(e, params, err, sizeof(err)), 0);
        ck_assert_int_eq(
            sim_param_parse(sim_param_find(e->params, "up_waiting"), "0.5",
                            params, err, sizeof(err)),
            0);
        c.policy = e;
        free(c.policy_params);
        c.policy_params = params;
        ck_assert_int_eq(scl_decider_init(&sim_d[npol], &c), 0);
        ck_assert_int_eq(scl_decider_init(&scl_d[npol], &c), 0);
        npol++;
    }
    for (int r = 0; r < NREP; r++) {
        pol_window_init(&reps[r].cum);
        reps[r].born_s = r == NREP - 1 ? JOIN_STEP * INTERVAL_S : 0;
    }
    src = scl_source_new(&c);
    for (int step = 0; step < STEPS; step++) {
        struct pol_snapshot a, b;
        struct pol_replica pr[NREP];
        struct pol_pool pool;
        struct scl_expo e;
        char err[256];
        size_t len;
        char *page;

        if (step > 0)
            advance(step);
        page = render(step, &len);
        scl_expo_init(&e);
        ck_assert_int_eq(scl_expo_parse(page, len, &e, err, sizeof(err)), 0);
        free(page);
        scl_source_begin(src, step * INTERVAL_S, 1e9 + step * INTERVAL_S);
        scl_source_feed_scrape(src, TARGET, &e);
        scl_source_end(src);
        scl_expo_fini(&e);
        if (step == 0) {
            /* The simulator's first snapshot at t = 0 (cl__orch_start),
             * no evaluation. */
            sim_snapshot(step, &c, &a, pr, &pool);
            sim_push(step);
            continue;
        }
        sim_snapshot(step, &c, &a, pr, &pool);
        scl_source_snapshot(src, SPEC, &b, NULL);
        compare(step, &a, &b);
        for (int p = 0; p < npol; p++) {
            struct pol_decision da, db;
            enum pol_guard_reason ra = scl_decide(&sim_d[p], &a, &da, NULL);
            enum pol_guard_reason rb = scl_decide(&scl_d[p], &b, &db, NULL);
            ck_assert_msg(da.desired == db.desired && ra == rb,
                          "step %d, policy %s: sim %d (%s), scaler %d (%s)",
                          step, sim_d[p].policy->name, da.desired,
                          pol_guard_reason_name(ra), db.desired,
                          pol_guard_reason_name(rb));
            decisions++;
            changes += da.desired != a.ready + a.pending;
        }
        sim_push(step);
    }
    /* The sequence must make policies move, or the test shows little. */
    ck_assert_int_gt(changes, npol);
    printf("# %d policies, %d decisions compared, %d of them changes\n", npol,
           decisions, changes);
    for (int p = 0; p < npol; p++) {
        scl_decider_fini(&sim_d[p]);
        scl_decider_fini(&scl_d[p]);
    }
    scl_source_free(src);
    scl_config_fini(&c);
}
END_TEST

/* dsec-scaler's config names the plug-in as a scenario does; a plug-in for
 * another API version is refused with both versions. */
START_TEST(test_scaler_config_plugin)
{
    char *top =
        realpath(getenv("top_builddir") ? getenv("top_builddir") : ".", NULL);
    char cfg[1024];
    struct scl_config c;
    struct sim_diag diag;
    int rc;

    snprintf(cfg, sizeof(cfg),
             "max_replicas: 4\nmin_replicas: 1\n"
             "policy: {plugin: %s/tests/.libs/libqueue_step.so, params: "
             "{up_waiting: 2}}\n"
             "metrics: {source: scrape, targets: [" TARGET "]}\n"
             "actuator: {kind: log}\n",
             top ? top : ".");
    sim_diag_init(&diag);
    rc = scl_config_parse("/plugin.yaml", cfg, strlen(cfg), &c, &diag);
    if (rc != 0)
        sim_diag_print(&diag, stderr);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(c.policy->name, "queue-step");
    ck_assert_double_eq(*(const double *)c.policy_params, 2.0);
    scl_config_fini(&c);
    sim_diag_fini(&diag);

    snprintf(cfg, sizeof(cfg),
             "max_replicas: 4\nmin_replicas: 1\n"
             "policy: {plugin: %s/tests/.libs/libbadversion.so}\n"
             "metrics: {source: scrape, targets: [" TARGET "]}\n"
             "actuator: {kind: log}\n",
             top ? top : ".");
    sim_diag_init(&diag);
    ck_assert_int_ne(scl_config_parse("/bad.yaml", cfg, strlen(cfg), &c, &diag),
                     0);
    ck_assert_int_eq(diag.n, 1);
    ck_assert_msg(strstr(diag.v[0].msg, "API version 99; this dsec has "
                                        "version 1") != NULL,
                  "%s", diag.v[0].msg);
    sim_diag_fini(&diag);
    free(top);
}
END_TEST

static Suite *scaler_same_suite(void)
{
    Suite *s = suite_create("scaler_same");
    TCase *tc = tcase_create("decide");

    tcase_add_test(tc, test_same_decisions_every_policy);
    tcase_add_test(tc, test_scaler_config_plugin);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scaler_same_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
