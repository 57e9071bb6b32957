/*
 * Check suite for the cluster-model session (models/cluster/session.c):
 * a run advanced in small steps gives exactly the results of cl_run(); the
 * external mode sets the size through the orchestrator's path (provisioning,
 * loading, draining), clamped to the scenario's bounds; the read-outs agree
 * with the cluster's counters.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* A small LLM flash crowd with its own policy (hpa), three minutes. */
static const char *const llm_text =
    "seed: 7\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival:\n"
    "      process: poisson\n"
    "      rate_per_s: 4\n"
    "      steps: [{at: 40s, multiplier: 8, ramp: 10s}, "
    "{at: 100s, multiplier: 1}]\n"
    "    duration: 3min\n"
    "    prompt_tokens: {dist: lognormal, mean: 600, sd: 300}\n"
    "    output_tokens: {dist: lognormal, mean: 200, sd: 150, max: 1000}\n"
    "hardware: {gpu: h100, gpus_per_node: 8}\n"
    "model: llama-3.1-8b\n"
    "deploy: {tp: 1, engine_init: 5s}\n"
    "cluster: {min_gpus: 1, max_gpus: 6}\n"
    "pools:\n"
    "  - {name: warm, capacity_gpus: 6, provision: {dist: fixed, mean_s: "
    "10}}\n"
    "policy:\n"
    "  name: hpa\n"
    "  interval: 5s\n"
    "  scale_down_cooldown: 20s\n"
    "  params: {metric: concurrency, target: 8}\n"
    "metrics: {interval: 10s}\n";

/* Abstract servers, elastic 1..4: provisioning 100 s, engine init 50 s. */
static const char *const abstract_text =
    "seed: 1\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: {process: deterministic, rate_per_s: 0.5}\n"
    "    duration: 1000s\n"
    "server:\n"
    "  kind: abstract\n"
    "  service: {dist: deterministic, mean_s: 1.0}\n"
    "  price: $1/h\n"
    "deploy: {engine_init: 50s}\n"
    "cluster: {min_gpus: 1, max_gpus: 4}\n"
    "pools:\n"
    "  - {name: main, capacity_gpus: 8, price_per_gpu_hour: $1/h,\n"
    "     provision: {dist: fixed, mean_s: 100}}\n"
    "policy: {name: static, interval: 10s}\n";

static void load(const char *text, struct cl_scenario *scn)
{
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = scn_string_load("inline.yaml", text, strlen(text), scn, &d);
    if (rc != 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(rc, 0);
    sim_diag_fini(&d);
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

START_TEST(test_cl_session_advance_steps_equal_run)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = "."};
    struct cl_results a, b;
    struct cl_session *ss;
    struct sim_diag d;
    int64_t t = 0;

    load(llm_text, &scn);
    sim_diag_init(&d);
    ck_assert_int_eq(cl_run(&scn, &opts, &a, &d), 0);
    ck_assert_int_eq(cl_session_open(&scn, &opts, 0, &b, &ss, &d), 0);
    /* Irregular steps, some landing on event times (whole seconds). */
    for (int i = 0; t < sim_s_to_ns(200); i++) {
        t += i % 3 == 0 ? sim_s_to_ns(1) : sim_s_to_ns(0.37);
        ck_assert_int_eq(cl_session_advance(ss, t), 0);
        ck_assert(cl_session_now(ss) == t);
    }
    ck_assert_int_eq(cl_session_advance(ss, SIM_TIME_MAX), 0);
    ck_assert_int_eq(cl_session_close(ss), 0);

    ck_assert_uint_gt(a.requests_completed, 500);
    ck_assert_uint_gt(a.scale_events, 0);
    ck_assert_uint_eq(a.requests_arrived, b.requests_arrived);
    ck_assert_uint_eq(a.requests_completed, b.requests_completed);
    ck_assert_uint_eq(a.output_tokens, b.output_tokens);
    ck_assert_uint_eq(a.sim_events, b.sim_events);
    ck_assert_uint_eq(a.scale_events, b.scale_events);
    ck_assert_uint_eq(a.cold_starts, b.cold_starts);
    ck_assert(a.sim_time_s == b.sim_time_s);
    ck_assert(same(a.ttft_ms.p99, b.ttft_ms.p99));
    ck_assert(same(a.e2e_ms.mean, b.e2e_ms.mean));
    ck_assert(same(a.tpot_ms.p50, b.tpot_ms.p50));
    ck_assert(a.cost_usd == b.cost_usd);
    ck_assert(a.replicas_mean == b.replicas_mean);
    ck_assert_str_eq(a.policy, b.policy);
    ck_assert_uint_eq(a.nseries, b.nseries);
    for (size_t i = 0; i < a.nseries; i++) {
        ck_assert(a.series[i].t_end_ns == b.series[i].t_end_ns);
        ck_assert_uint_eq(a.series[i].completions, b.series[i].completions);
        ck_assert(same(a.series[i].queue_len_mean, b.series[i].queue_len_mean));
        ck_assert(same(a.series[i].ttft_p99_ms, b.series[i].ttft_p99_ms));
        ck_assert_int_eq(a.series[i].desired_replicas,
                         b.series[i].desired_replicas);
    }
    cl_results_fini(&a);
    cl_results_fini(&b);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_cl_session_set_desired_external)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = "."};
    struct cl_results res;
    struct cl_session *ss;
    struct cl_session_cluster c;
    struct sim_diag d;

    load(abstract_text, &scn);
    sim_diag_init(&d);
    ck_assert_int_eq(
        cl_session_open(&scn, &opts, CL_SESSION_EXTERNAL, &res, &ss, &d), 0);
    ck_assert_int_eq(cl_session_advance(ss, sim_s_to_ns(10)), 0);
    ck_assert_int_eq(cl_session_set_desired(ss, 3), 3);
    cl_session_cluster(ss, &c);
    ck_assert_int_eq(c.serving, 1);
    ck_assert_int_eq(c.pending, 2);
    ck_assert_int_eq(c.desired, 3);
    /* 100 s provisioning + 50 s engine init from t = 10 s: serving at
     * 160 s, not before. */
    ck_assert_int_eq(cl_session_advance(ss, sim_s_to_ns(159.9)), 0);
    cl_session_cluster(ss, &c);
    ck_assert_int_eq(c.serving, 1);
    ck_assert_int_eq(cl_session_advance(ss, sim_s_to_ns(160)), 0);
    cl_session_cluster(ss, &c);
    ck_assert_int_eq(c.serving, 3);
    ck_assert_int_eq(c.pending, 0);
    /* Clamped to [1, 4]. */
    ck_assert_int_eq(cl_session_set_desired(ss, 99), 4);
    ck_assert_int_eq(cl_session_set_desired(ss, 0), 1);
    ck_assert_int_eq(cl_session_advance(ss, sim_s_to_ns(300)), 0);
    cl_session_cluster(ss, &c);
    ck_assert_int_eq(c.serving, 1);
    ck_assert_int_eq(c.pending, 0);
    ck_assert_int_eq(c.draining, 0);
    ck_assert_int_eq(cl_session_close(ss), 0);
    ck_assert_str_eq(res.policy, "external");
    ck_assert_int_eq(res.replicas_max, 3);
    ck_assert_int_eq(res.replicas_min, 1);
    /* Up to 3, up to 4 (one more cold start), down to 1. */
    ck_assert_uint_eq(res.scale_events, 3);
    ck_assert_uint_eq(res.cold_starts, 3);
    cl_results_fini(&res);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_cl_session_set_desired_not_external)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = "."};
    struct cl_results res;
    struct cl_session *ss;
    struct sim_diag d;

    load(abstract_text, &scn);
    sim_diag_init(&d);
    ck_assert_int_eq(cl_session_open(&scn, &opts, 0, &res, &ss, &d), 0);
    ck_assert_int_eq(cl_session_set_desired(ss, 3), -1);
    ck_assert_int_eq(cl_session_close(ss), 0);
    cl_results_fini(&res);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_cl_session_open_external_static)
{
    static const char text[] =
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: deterministic, rate_per_s: 0.5}\n"
        "    requests: 10\n"
        "server: {kind: abstract, service: {dist: deterministic, mean_s: 1}}\n"
        "cluster: {replicas: 2}\n";
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = "."};
    struct cl_results res;
    struct cl_session *ss = (struct cl_session *)&scn;
    struct sim_diag d;
    char *msg = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&msg, &len);

    load(text, &scn);
    sim_diag_init(&d);
    ck_assert_int_eq(
        cl_session_open(&scn, &opts, CL_SESSION_EXTERNAL, &res, &ss, &d),
        SIM_EINVAL);
    ck_assert_ptr_null(ss);
    sim_diag_print(&d, fp);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(msg, "error: cluster: an externally scaled "
                                      "run needs an elastic cluster"));
    free(msg);
    cl_results_fini(&res);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_cl_session_replica_readout)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = "."};
    struct cl_results res;
    struct cl_session *ss;
    struct cl_session_cluster c;
    struct sim_diag d;
    uint64_t success = 0, ttft = 0, gen = 0;
    int serving = 0;

    load(llm_text, &scn);
    sim_diag_init(&d);
    ck_assert_int_eq(cl_session_open(&scn, &opts,
                                     CL_SESSION_EXTERNAL | CL_SESSION_READOUTS,
                                     &res, &ss, &d),
                     0);
    ck_assert_int_eq(cl_session_set_desired(ss, 2), 2);
    ck_assert_int_eq(cl_session_advance(ss, sim_s_to_ns(60)), 0);
    cl_session_cluster(ss, &c);
    ck_assert_int_eq(c.serving, 2);
    for (int i = 0; i < cl_session_nreplicas(ss); i++) {
        struct cl_session_replica r;
        if (cl_session_replica(ss, i, &r) != 0)
            continue;
        ck_assert_int_eq(r.state, CL_SS_SERVING);
        ck_assert(r.kv_usage >= 0 && r.kv_usage <= 1);
        ck_assert_int_gt(r.kv_capacity_tokens, 0);
        ck_assert_int_eq(r.block_tokens, 16);
        ck_assert_uint_le(r.ttft.count, r.request_success + 64);
        ck_assert_uint_ge(r.ttft.count, r.request_success);
        /* The per-request histograms count the same finished requests. */
        for (int k = 0; k < CL_VH_COUNT; k++)
            ck_assert_uint_eq(r.req[k].count, r.request_success);
        ck_assert(r.req[CL_VH_OUTPUT].sum > r.req[CL_VH_OUTPUT].count);
        success += r.request_success;
        ttft += r.ttft.count;
        gen += r.generation_tokens;
        serving++;
    }
    ck_assert_int_eq(serving, 2);
    /* No replica has gone: the replicas' counters add up to the
     * cluster's. */
    ck_assert_uint_eq(success, c.completed);
    ck_assert_uint_gt(ttft, 0);
    ck_assert_uint_gt(gen, 0);
    ck_assert_int_eq(cl_session_replica(ss, -1, NULL), -1);
    ck_assert_int_eq(cl_session_close(ss), 0);
    cl_results_fini(&res);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

static Suite *session_suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("session");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cl_session_advance_steps_equal_run);
    tcase_add_test(tc, test_cl_session_set_desired_external);
    tcase_add_test(tc, test_cl_session_set_desired_not_external);
    tcase_add_test(tc, test_cl_session_open_external_static);
    tcase_add_test(tc, test_cl_session_replica_readout);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(session_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
