/*
 * Check suite for request routing across replicas (models/cluster/router.c)
 * and the per-replica time series (models/cluster/replica-series.c): each
 * rule's choice on hand-built replica states, round-robin fairness,
 * determinism of random routing, the default rule leaving results unchanged,
 * per-replica rows summing to the cluster's series, and the replica_series
 * table's round trip through the results database.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "models/cluster/cluster-int.h"
#include "reports/db.h"
#include "reports/report.h"
#include "reports/summary.h"
#include "scenarios/load.h"
#include "tests/run-fixture.h"

/* Candidates in slot order: slot, outstanding, KV usage, cached tokens. */
static int pick(int routing, const struct cl_route_cand *c, int n, int bound)
{
    int rr = 0;
    return cl__route_choose(routing, c, n, bound, &rr, NULL);
}

START_TEST(test_route_choose_least_outstanding)
{
    const struct cl_route_cand c[] = {{0, 3, 0.1, 0, 1.0},
                                      {1, 1, 0.9, 0, 1.0},
                                      {2, 1, 0.0, 0, 1.0},
                                      {4, 5, 0.0, 0, 1.0}};
    /* Fewest outstanding; the tie between slots 1 and 2 to the lower. */
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, c, 4, 8), 1);
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, c + 2, 2, 8), 0);
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, c, 0, 8), -1);
}
END_TEST

START_TEST(test_route_choose_weighs_speed)
{
    /* A mixed cluster: at equal outstanding the faster replica wins;
     * (outstanding + 1) / speed: 3/1 = 3 against 4/2 = 2 goes to slot 1. */
    const struct cl_route_cand c[] = {{0, 2, 0.0, 0, 1.0}, {1, 2, 0.0, 0, 1.5}};
    const struct cl_route_cand d[] = {{0, 2, 0.0, 0, 1.0}, {1, 3, 0.0, 0, 2.0}};
    const struct cl_route_cand e[] = {{0, 0, 0.0, 0, 1.0}, {1, 0, 0.0, 0, 1.2}};
    /* Equal speeds keep the count order and the slot tie-break. */
    const struct cl_route_cand f[] = {{0, 2, 0.0, 0, 1.5}, {1, 2, 0.0, 0, 1.5}};
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, c, 2, 8), 1);
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, d, 2, 8), 1);
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, e, 2, 8), 1);
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_OUTSTANDING, f, 2, 8), 0);
}
END_TEST

START_TEST(test_route_choose_least_kv)
{
    const struct cl_route_cand c[] = {{0, 1, 0.50, 0, 1.0},
                                      {1, 4, 0.20, 0, 1.0},
                                      {2, 2, 0.20, 0, 1.0},
                                      {3, 0, 0.30, 0, 1.0}};
    /* Lowest usage; the tie at 0.20 goes to fewer outstanding (slot 2). */
    ck_assert_int_eq(pick(CL_ROUTE_LEAST_KV, c, 4, 8), 2);
    {
        const struct cl_route_cand d[] = {{5, 2, 0.2, 0, 1.0},
                                          {7, 2, 0.2, 0, 1.0}};
        ck_assert_int_eq(pick(CL_ROUTE_LEAST_KV, d, 2, 8), 0);
    }
}
END_TEST

START_TEST(test_route_choose_prefix_affinity)
{
    const struct cl_route_cand c[] = {{0, 0, 0.0, 0, 1.0},
                                      {1, 5, 0.0, 1024, 1.0},
                                      {2, 9, 0.0, 4096, 1.0},
                                      {3, 2, 0.0, 512, 1.0}};
    /* Slot 2 holds the longest prefix but is 9 requests above the least
     * loaded: out of a bound of 8, in with 9. */
    ck_assert_int_eq(pick(CL_ROUTE_PREFIX_AFFINITY, c, 4, 8), 1);
    ck_assert_int_eq(pick(CL_ROUTE_PREFIX_AFFINITY, c, 4, 9), 2);
    /* Bound 0: only the least loaded qualify. */
    ck_assert_int_eq(pick(CL_ROUTE_PREFIX_AFFINITY, c, 4, 0), 0);
    {
        /* Nothing cached anywhere: least-outstanding. */
        const struct cl_route_cand d[] = {
            {0, 4, 0, 0, 1.0}, {1, 2, 0, 0, 1.0}, {2, 2, 0, 0, 1.0}};
        ck_assert_int_eq(pick(CL_ROUTE_PREFIX_AFFINITY, d, 3, 8), 1);
    }
    {
        /* Equal prefixes: fewer outstanding, then the lower slot. */
        const struct cl_route_cand d[] = {{0, 0, 0, 0, 1.0},
                                          {1, 3, 0, 512, 1.0},
                                          {2, 2, 0, 512, 1.0},
                                          {3, 2, 0, 512, 1.0}};
        ck_assert_int_eq(pick(CL_ROUTE_PREFIX_AFFINITY, d, 4, 8), 2);
    }
}
END_TEST

START_TEST(test_route_choose_round_robin)
{
    const struct cl_route_cand c[] = {
        {0, 9, 0.9, 0, 1.0}, {2, 0, 0.0, 0, 1.0}, {5, 3, 0.5, 0, 1.0}};
    int rr = 0, count[3] = {0, 0, 0};

    /* In slot order regardless of load, wrapping around. */
    ck_assert_int_eq(cl__route_choose(CL_ROUTE_ROUND_ROBIN, c, 3, 8, &rr, NULL),
                     0);
    ck_assert_int_eq(rr, 1);
    ck_assert_int_eq(cl__route_choose(CL_ROUTE_ROUND_ROBIN, c, 3, 8, &rr, NULL),
                     1);
    ck_assert_int_eq(cl__route_choose(CL_ROUTE_ROUND_ROBIN, c, 3, 8, &rr, NULL),
                     2);
    ck_assert_int_eq(rr, 6);
    ck_assert_int_eq(cl__route_choose(CL_ROUTE_ROUND_ROBIN, c, 3, 8, &rr, NULL),
                     0);
    /* A replica that left: the cursor moves to the next slot present. */
    rr = 3;
    ck_assert_int_eq(cl__route_choose(CL_ROUTE_ROUND_ROBIN, c, 3, 8, &rr, NULL),
                     2);
    /* Fairness: 3000 picks, 1000 each. */
    rr = 0;
    for (int i = 0; i < 3000; i++)
        count[cl__route_choose(CL_ROUTE_ROUND_ROBIN, c, 3, 8, &rr, NULL)]++;
    ck_assert_int_eq(count[0], 1000);
    ck_assert_int_eq(count[1], 1000);
    ck_assert_int_eq(count[2], 1000);
}
END_TEST

START_TEST(test_route_choose_random)
{
    const struct cl_route_cand c[] = {{0, 0, 0, 0, 1.0},
                                      {1, 0, 0, 0, 1.0},
                                      {2, 0, 0, 0, 1.0},
                                      {3, 0, 0, 0, 1.0}};
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng *b = gsl_rng_alloc(gsl_rng_mt19937);
    int rr = 0, count[4] = {0, 0, 0, 0};

    gsl_rng_set(a, 42);
    gsl_rng_set(b, 42);
    for (int i = 0; i < 4000; i++) {
        int x = cl__route_choose(CL_ROUTE_RANDOM, c, 4, 8, &rr, a);
        int y = cl__route_choose(CL_ROUTE_RANDOM, c, 4, 8, &rr, b);
        ck_assert_int_eq(x, y); /* the same stream, the same picks */
        ck_assert(x >= 0 && x < 4);
        count[x]++;
    }
    /* Uniform: each near 1000 (binomial sd 27; 6 sd). */
    for (int k = 0; k < 4; k++)
        ck_assert(count[k] > 840 && count[k] < 1160);
    gsl_rng_free(a);
    gsl_rng_free(b);
}
END_TEST

static void run_text(const char *text, struct cl_results *res)
{
    run_fixture_text(text, ".", res);
}

/* Four replicas of Llama-3.1-8B on H100, Poisson arrivals with lognormal
 * prompts (long-context skew), 5 s series intervals. */
static char *text_of(const char *routing, int seed, long requests)
{
    return xasprintf(
        "seed: %d\n"
        "model: llama-3.1-8b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: poisson, rate_per_s: 40}\n"
        "    requests: %ld\n"
        "    prompt_tokens: {dist: lognormal, mean: 2000, sd: 3000, "
        "max: 30000}\n"
        "    output_tokens: {dist: lognormal, mean: 200, sd: 200, max: 2000}\n"
        "hardware: {gpu: h100}\n"
        "deploy: {tp: 1}\n"
        "cluster: {replicas: 4%s%s}\n"
        "metrics: {interval: 5s}\n",
        seed, requests, routing ? ", routing: " : "", routing ? routing : "");
}

static void run_routing(const char *routing, int seed, long requests,
                        struct cl_results *res)
{
    char *t = text_of(routing, seed, requests);
    run_text(t, res);
    free(t);
}

/* Requests finished per replica serial over the run, from the rows. */
static void per_replica(const struct cl_results *r, uint64_t *done, int n)
{
    memset(done, 0, (size_t)n * sizeof(*done));
    for (size_t i = 0; i < r->nreplica_series; i++) {
        const struct cl_replica_row *x = &r->replica_series[i];
        ck_assert_uint_lt(x->replica, (uint64_t)n);
        done[x->replica] += x->request_success;
    }
}

static char *json_of(struct cl_results *r)
{
    r->wall_s = 0;
    r->events_per_s = 0;
    return rpt_summary_json(r, 0);
}

START_TEST(test_route_default_is_least_outstanding)
{
    struct cl_results a, b, c;
    char *ja, *jb, *jc;

    run_routing(NULL, 1, 300, &a);
    run_routing("least-outstanding", 1, 300, &b);
    /* No workload here has prefix hashes: prefix-affinity finds nothing
     * cached and falls back to least-outstanding. */
    run_routing("prefix-affinity", 1, 300, &c);
    ja = json_of(&a);
    jb = json_of(&b);
    jc = json_of(&c);
    ck_assert_str_eq(ja, jb);
    ck_assert_str_eq(ja, jc);
    free(ja);
    free(jb);
    free(jc);
    cl_results_fini(&a);
    cl_results_fini(&b);
    cl_results_fini(&c);
}
END_TEST

START_TEST(test_route_round_robin_fair)
{
    struct cl_results r;
    uint64_t done[4];

    run_routing("round-robin", 1, 400, &r);
    ck_assert_uint_eq(r.requests_completed, 400);
    per_replica(&r, done, 4);
    for (int k = 0; k < 4; k++)
        ck_assert_uint_eq(done[k], 100);
    cl_results_fini(&r);
}
END_TEST

START_TEST(test_route_random_deterministic)
{
    struct cl_results a, b, c;
    uint64_t da[4], db[4], dc[4];
    char *ja, *jb;
    int differ = 0;

    run_routing("random", 5, 300, &a);
    run_routing("random", 5, 300, &b);
    run_routing("random", 6, 300, &c);
    ja = json_of(&a);
    jb = json_of(&b);
    ck_assert_str_eq(ja, jb);
    per_replica(&a, da, 4);
    per_replica(&b, db, 4);
    per_replica(&c, dc, 4);
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(da[k], db[k]);
        differ |= da[k] != dc[k];
    }
    ck_assert_int_eq(differ, 1); /* another seed, other picks */
    free(ja);
    free(jb);
    cl_results_fini(&a);
    cl_results_fini(&b);
    cl_results_fini(&c);
}
END_TEST

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

/* Per interval, the replicas' rows add up to the cluster's row: requests
 * finished, requests running and waiting (time-weighted); over the run the
 * generation tokens add up to the output tokens. */
static void check_sums(const char *routing)
{
    struct cl_results r;
    uint64_t gen = 0;
    size_t j = 0;

    run_routing(routing, 2, 400, &r);
    ck_assert_uint_gt(r.nseries, 3);
    ck_assert_uint_eq(r.replica_series_dropped, 0);
    for (size_t i = 0; i < r.nseries; i++) {
        const struct cl_series_row *s = &r.series[i];
        uint64_t done = 0;
        double running = 0, waiting = 0;
        int rows = 0;
        for (; j < r.nreplica_series &&
               r.replica_series[j].t_start_ns == s->t_start_ns;
             j++) {
            const struct cl_replica_row *x = &r.replica_series[j];
            ck_assert_int_eq(x->t_end_ns, s->t_end_ns);
            ck_assert_str_eq(cl_replica_state_name(x->state), "serving");
            ck_assert(x->kv_cache_usage_perc >= 0 &&
                      x->kv_cache_usage_perc <= 1);
            done += x->request_success;
            running += x->num_requests_running;
            waiting += x->num_requests_waiting;
            gen += x->generation_tokens;
            rows++;
        }
        ck_assert_int_eq(rows, 4);
        ck_assert_uint_eq(done, s->completions);
        ck_assert_msg(near(running, s->running_mean), "running %g vs %g",
                      running, s->running_mean);
        ck_assert_msg(near(waiting, s->queue_len_mean), "waiting %g vs %g",
                      waiting, s->queue_len_mean);
    }
    ck_assert_uint_eq(j, r.nreplica_series);
    ck_assert_uint_eq(gen, r.output_tokens);
    /* The run ends drained: nothing held at the last interval's end. */
    for (size_t k = r.nreplica_series - 4; k < r.nreplica_series; k++) {
        ck_assert_int_eq(r.replica_series[k].num_requests_running_end, 0);
        ck_assert_int_eq(r.replica_series[k].num_requests_waiting_end, 0);
        ck_assert(r.replica_series[k].kv_cache_usage_perc_end == 0);
    }
    cl_results_fini(&r);
}

START_TEST(test_rseries_sums_match_cluster)
{
    check_sums(NULL);
    check_sums("least-kv");
    check_sums("round-robin");
}
END_TEST

/* An elastic cluster that grows: replicas appear in the rows in the
 * interval they are requested (provisioning, loading), and the rows still
 * add up to the cluster's requests finished. */
START_TEST(test_rseries_elastic_replicas_appear)
{
    static const char text[] =
        "seed: 4\n"
        "model: llama-3.1-8b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: poisson, rate_per_s: 20}\n"
        "    requests: 1500\n"
        "    prompt_tokens: {dist: fixed, value: 1000}\n"
        "    output_tokens: {dist: fixed, value: 200}\n"
        "hardware: {gpu: h100}\n"
        "deploy: {tp: 1, engine_init: 10s}\n"
        "cluster: {min_gpus: 1, max_gpus: 4}\n"
        "pools:\n"
        "  - {name: cloud, capacity_gpus: 4,\n"
        "     provision: {dist: fixed, mean_s: 5}}\n"
        "policy: {name: static, interval: 10s, params: {replicas: 3}}\n"
        "metrics: {interval: 10s}\n";
    struct cl_results r;
    uint64_t done = 0, maxserial = 0;
    int saw_loading = 0;

    run_text(text, &r);
    ck_assert_uint_gt(r.replicas_max, 1);
    for (size_t i = 0; i < r.nreplica_series; i++) {
        const struct cl_replica_row *x = &r.replica_series[i];
        done += x->request_success;
        if (x->replica > maxserial)
            maxserial = x->replica;
        saw_loading |=
            strcmp(cl_replica_state_name(x->state), "loading") == 0 ||
            strcmp(cl_replica_state_name(x->state), "provisioning") == 0;
    }
    ck_assert_uint_eq(done, r.requests_completed);
    ck_assert_uint_ge(maxserial + 1, (uint64_t)r.replicas_max);
    ck_assert_int_eq(saw_loading, 1);
    cl_results_fini(&r);
}
END_TEST

/* metrics.replica_rows: an elastic run (a flash crowd: replicas join
 * mid-run, inside merged rows) with 1 s intervals keeps at most the budget plus
 * one row interval of rows; its rows span 2^k intervals each, aligned, the last
 * ending at the run's end; and per replica they say what the unmerged
 * run's rows say: the same sums of finished requests and tokens, the same
 * time integrals of the means, the same end values. */
START_TEST(test_rseries_merge_keeps_what_rows_say)
{
    static const char body[] =
        "seed: 4\n"
        "model: llama-3.1-8b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival:\n"
        "      process: poisson\n"
        "      rate_per_s: 25\n"
        "      steps:\n"
        "        - {at: 280s, multiplier: 4, ramp: 10s}\n"
        "        - {at: 400s, multiplier: 1, ramp: 10s}\n"
        "    duration: 500s\n"
        "    prompt_tokens: {dist: fixed, value: 1000}\n"
        "    output_tokens: {dist: fixed, value: 200}\n"
        "hardware: {gpu: h100}\n"
        "deploy: {tp: 1, engine_init: 200ms}\n"
        "cluster: {min_gpus: 3, max_gpus: 6, initial_gpus: 3,\n"
        "          target_latency_ms: 12}\n"
        "pools:\n"
        "  - {name: cloud, capacity_gpus: 6,\n"
        "     provision: {dist: fixed, mean_s: 0.3}}\n"
        "policy: {name: target-latency, interval: 3s}\n";
    char *full = xasprintf("%smetrics: {interval: 1s}\n", body);
    char *small =
        xasprintf("%smetrics: {interval: 1s, replica_rows: 100}\n", body);
    struct cl_results a, b;
    int64_t per = 0, end = 0;

    run_text(full, &a);
    run_text(small, &b);
    ck_assert_uint_gt(a.nreplica_series, 200); /* unmerged: many */
    ck_assert_uint_le(b.nreplica_series, 100 + 6);
    ck_assert_uint_gt(b.nreplica_series, 100 / 2 - 6);
    for (size_t i = 0; i < a.nreplica_series; i++)
        if (a.replica_series[i].t_end_ns > end)
            end = a.replica_series[i].t_end_ns;
    for (size_t i = 0; i < b.nreplica_series; i++) {
        const struct cl_replica_row *x = &b.replica_series[i];
        int64_t len = x->t_end_ns - x->t_start_ns;
        if (per == 0)
            per = len;
        ck_assert_int_eq(x->t_start_ns % per, 0);
        ck_assert(len == per || x->t_end_ns == end);
    }
    /* Merged at least twice: 2^k one-second intervals, k >= 2. */
    ck_assert_int_eq(per % 1000000000, 0);
    ck_assert_int_ge(per / 1000000000, 4);
    ck_assert_int_eq((per / 1000000000) & (per / 1000000000 - 1), 0);
    ck_assert_int_eq(b.replica_series[b.nreplica_series - 1].t_end_ns, end);
    for (uint64_t rep = 0; rep < 8; rep++) {
        uint64_t done[2] = {0}, gen[2] = {0}, prompt[2] = {0};
        double run[2] = {0}, wait[2] = {0}, kv[2] = {0};
        int64_t last_end[2] = {-1, -1}, run_end[2] = {0};
        const struct cl_results *rs[2] = {&a, &b};
        for (int k = 0; k < 2; k++) {
            for (size_t i = 0; i < rs[k]->nreplica_series; i++) {
                const struct cl_replica_row *x = &rs[k]->replica_series[i];
                double d = (double)(x->t_end_ns - x->t_start_ns);
                if (x->replica != rep)
                    continue;
                done[k] += x->request_success;
                gen[k] += x->generation_tokens;
                prompt[k] += x->prompt_tokens;
                run[k] += x->num_requests_running * d;
                wait[k] += x->num_requests_waiting * d;
                kv[k] += x->kv_cache_usage_perc * d;
                if (x->t_end_ns > last_end[k]) {
                    last_end[k] = x->t_end_ns;
                    run_end[k] = x->num_requests_running_end;
                }
            }
        }
        ck_assert_uint_eq(done[0], done[1]);
        ck_assert_uint_eq(gen[0], gen[1]);
        ck_assert_uint_eq(prompt[0], prompt[1]);
        ck_assert_msg(near(run[0] / 1e9, run[1] / 1e9), "running %g vs %g",
                      run[0], run[1]);
        ck_assert_msg(near(wait[0] / 1e9, wait[1] / 1e9), "waiting");
        ck_assert_msg(near(kv[0] / 1e9, kv[1] / 1e9), "kv %g vs %g", kv[0],
                      kv[1]);
        ck_assert_int_eq(last_end[0], last_end[1]);
        ck_assert_int_eq(run_end[0], run_end[1]);
    }
    ck_assert_uint_eq(a.requests_completed, b.requests_completed);
    ck_assert_uint_eq(a.output_tokens, b.output_tokens);
    free(full);
    free(small);
    cl_results_fini(&a);
    cl_results_fini(&b);
}
END_TEST

START_TEST(test_rseries_db_round_trip)
{
    char path[] = "/tmp/check-router-XXXXXX";
    const struct rpt_run_info info = {.started_at = "2025-01-31T12:00:00Z",
                                      .seed = 2};
    struct cl_results r;
    struct rpt_db *db;
    struct rpt_run *back;
    struct sim_diag d;
    int64_t id = 0;
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    close(fd);
    unlink(path);
    sim_diag_init(&d);
    run_routing("least-kv", 2, 200, &r);
    db = rpt_db_open(path, &d);
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_write_run(db, &info, &r, &id, &d), 0);
    rpt_db_close(db);
    back = rpt_run_load(path, id, &d);
    if (back == NULL)
        sim_diag_print(&d, stderr);
    ck_assert_ptr_nonnull(back);
    ck_assert_uint_eq(back->nreplicas, r.nreplica_series);
    for (size_t i = 0; i < r.nreplica_series; i++) {
        const struct cl_replica_row *x = &r.replica_series[i];
        const struct rpt_replica_row *y = &back->replicas[i];
        ck_assert(y->t_start_s == (double)x->t_start_ns / 1e9);
        ck_assert(y->t_end_s == (double)x->t_end_ns / 1e9);
        ck_assert_int_eq(y->replica, (int64_t)x->replica);
        ck_assert_str_eq(y->pool, r.pools[x->pool].name);
        ck_assert_str_eq(y->state, cl_replica_state_name(x->state));
        ck_assert(y->num_requests_running_mean == x->num_requests_running);
        ck_assert(y->num_requests_waiting_mean == x->num_requests_waiting);
        ck_assert(y->num_requests_running ==
                  (double)x->num_requests_running_end);
        ck_assert(y->kv_cache_usage_perc_mean == x->kv_cache_usage_perc);
        ck_assert(y->kv_cache_usage_perc == x->kv_cache_usage_perc_end);
        /* No prefix lookups: NAN, stored as NULL, read back as NAN. */
        ck_assert_int_eq(isnan(y->prefix_cache_hit_rate),
                         isnan(x->prefix_cache_hit_rate));
        ck_assert(y->generation_tokens == (double)x->generation_tokens);
        ck_assert(y->request_success == (double)x->request_success);
    }
    rpt_run_free(back);
    cl_results_fini(&r);
    sim_diag_fini(&d);
    unlink(path);
    {
        /* WAL side files, when SQLite left them. */
        char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
        unlink(wal);
        unlink(shm);
        free(wal);
        free(shm);
    }
}
END_TEST

static Suite *router_suite(void)
{
    Suite *s = suite_create("models_router");
    TCase *tc = tcase_create("choose");
    TCase *tr = tcase_create("runs");

    tcase_add_test(tc, test_route_choose_least_outstanding);
    tcase_add_test(tc, test_route_choose_least_kv);
    tcase_add_test(tc, test_route_choose_weighs_speed);
    tcase_add_test(tc, test_route_choose_prefix_affinity);
    tcase_add_test(tc, test_route_choose_round_robin);
    tcase_add_test(tc, test_route_choose_random);
    suite_add_tcase(s, tc);
    tcase_set_timeout(tr, 120);
    tcase_add_test(tr, test_route_default_is_least_outstanding);
    tcase_add_test(tr, test_route_round_robin_fair);
    tcase_add_test(tr, test_route_random_deterministic);
    tcase_add_test(tr, test_rseries_sums_match_cluster);
    tcase_add_test(tr, test_rseries_elastic_replicas_appear);
    tcase_add_test(tr, test_rseries_merge_keeps_what_rows_say);
    tcase_add_test(tr, test_rseries_db_round_trip);
    suite_add_tcase(s, tr);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(router_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
