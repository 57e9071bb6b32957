/*
 * Check suite for the benchmark client (models/cluster/client.c): the
 * stage shift as a pure function, max_concurrency on deterministic
 * abstract servers (hand-computed send and finish times), the closed loop
 * (throughput N/S; Little's law with think time), time-outs on abstract
 * servers (in service, in the queue after a failure) and on an LLM replica
 * (the KV it frees admits the next request), every engine state abandoned
 * under P/D, prefix caching and priority, and the section's diagnostics.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "base/xalloc.h"
#include "scenarios/load.h"
#include "tests/run-fixture.h"

static char *fixture_dir;

static void run_text(const char *text, struct cl_results *res)
{
    run_fixture_text(text, fixture_dir, res);
}

/* requests deterministic arrivals at rate_per_s on replicas abstract
 * servers of one slot each with deterministic service of service_s, under
 * the client section client (without braces, or ""). */
static char *abstract_text(double rate_per_s, long requests, double service_s,
                           int replicas, const char *client)
{
    return xasprintf(
        "seed: 7\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: deterministic, rate_per_s: %.17g}\n"
        "    requests: %ld\n"
        "  client: {%s}\n"
        "server:\n"
        "  kind: abstract\n"
        "  service: {dist: deterministic, mean_s: %.17g}\n"
        "  concurrency: 1\n"
        "cluster: {replicas: %d}\n"
        "metrics: {warmup_fraction: 0}\n",
        rate_per_s, requests, client, service_s, replicas);
}

/* The first arrival of a deterministic process at rate 10/s, from a run
 * without a client: the one request's arrival is the run's start. */
static double first_arrival_s(void)
{
    struct cl_results r;
    char *t = abstract_text(10, 1, 1e-9, 1, "");
    double t0;
    run_text(t, &r);
    t0 = r.sim_time_s - 1e-9;
    cl_results_fini(&r);
    free(t);
    return t0;
}

START_TEST(test_client_stage_start)
{
    /* Drained before the nominal start: the nominal start (plus earlier
     * delay), then the gap. */
    ck_assert_int_eq(cl__client_stage_start(100, 0, 50, 0), 100);
    ck_assert_int_eq(cl__client_stage_start(100, 30, 50, 5), 135);
    /* Drained after it: the drain, then the gap. */
    ck_assert_int_eq(cl__client_stage_start(100, 30, 400, 5), 405);
    ck_assert_int_eq(cl__client_stage_start(100, 0, 400, 0), 400);
    /* A negative gap is none. */
    ck_assert_int_eq(cl__client_stage_start(100, 0, 400, -7), 400);
}
END_TEST

static void on_noop(struct sim_loop *loop, struct sim_event *ev)
{
    (void)loop;
    (void)ev;
}

/* Moves the loop's clock to t_ns (nothing else is scheduled). */
static void advance(struct sim_loop *loop, int64_t t_ns)
{
    struct sim_event ev;
    sim_event_init(&ev, on_noop, NULL);
    sim_loop_schedule(loop, &ev, t_ns);
    sim_loop_run(loop, t_ns);
}

static struct wl_request staged(int stage, double at_s)
{
    struct wl_request q;
    memset(&q, 0, sizeof(q));
    q.stage = stage;
    q.arrival_ns = (int64_t)llround(at_s * 1e9);
    return q;
}

/* The stage rule inside the client, driven by hand (no staged source
 * exists yet): stage 0 has requests due at 0 and 1 s; stage 1 nominally
 * starts at 10 s but its first request is held while stage 0's two are in
 * flight; they end at 12 s and 20 s, so stage 1 starts at max(10, 20) +
 * the 5 s gap = 25 s and its request due at 11 s moves to 26 s. Stage 2
 * (nominal 30 s) finds nothing in flight: max(30 + 15, 20) + 5 = 50 s. */
START_TEST(test_client_stage_hold_and_shift)
{
    struct cl_world *w = xcalloc(1, sizeof(*w));
    struct cl_scenario *scn = xcalloc(1, sizeof(*scn));
    struct cl_req r0, r1;
    struct wl_request q;
    const int64_t s = 1000000000;

    scn->workload.client.stage_gap_ns = 5 * s;
    w->scn = scn;
    w->loop = sim_loop_new(1);
    sim_event_init(&w->arrival_ev, on_noop, NULL);
    cl__client_open(w);
    memset(&r0, 0, sizeof(r0));
    memset(&r1, 0, sizeof(r1));
    r0.user = r1.user = -1;
    sim_event_init(&r0.client_ev, NULL, NULL);
    sim_event_init(&r1.client_ev, NULL, NULL);

    q = staged(0, 0);
    ck_assert_int_eq(cl__client_due(w, &q), 0);
    cl__client_sent(w, &r0, 1);
    q = staged(0, 1);
    ck_assert_int_eq(cl__client_due(w, &q), 1 * s);
    advance(w->loop, 1 * s);
    cl__client_sent(w, &r1, 1);
    w->next_req = staged(1, 10);
    ck_assert_int_eq(cl__client_due(w, &w->next_req), -1); /* held */
    advance(w->loop, 12 * s);
    cl__client_ended(w, &r0);
    ck_assert(!sim_event_pending(&w->arrival_ev));
    advance(w->loop, 20 * s);
    cl__client_ended(w, &r1);
    ck_assert(sim_event_pending(&w->arrival_ev));
    ck_assert_int_eq(w->arrival_ev.time_ns, 25 * s);
    sim_loop_cancel(w->loop, &w->arrival_ev);
    q = staged(1, 11);
    ck_assert_int_eq(cl__client_due(w, &q), 26 * s);
    q = staged(2, 30);
    ck_assert_int_eq(cl__client_due(w, &q), 50 * s);
    q = staged(2, 31);
    ck_assert_int_eq(cl__client_due(w, &q), 51 * s);

    cl__client_fini(w);
    sim_loop_free(w->loop);
    free(scn);
    free(w);
}
END_TEST

/* Five requests due 0.1 s apart, 1 s of service each, one server. With
 * max_concurrency 1 each is sent when the one before ends: sends at t0,
 * t0 + 1, ..., t0 + 4, so every E2E is exactly 1 s, nothing queues at the
 * server and the run ends at t0 + 5 s. Without it request k (due at t0 +
 * 0.1 k) finishes at t0 + k + 1: E2E 1, 1.9, 2.8, 3.7, 4.6 s. */
START_TEST(test_client_max_concurrency_sequential)
{
    struct cl_results r, open;
    char *t = abstract_text(10, 5, 1.0, 1, "max_concurrency: 1");
    char *to = abstract_text(10, 5, 1.0, 1, "");
    double t0 = first_arrival_s();

    run_text(t, &r);
    run_text(to, &open);
    ck_assert_uint_eq(r.requests_completed, 5);
    ck_assert_double_eq_tol(r.sim_time_s, t0 + 5.0, 1e-9);
    ck_assert_double_eq_tol(r.e2e_ms.mean, 1000.0, 1e-6);
    ck_assert_double_eq_tol(r.e2e_ms.max, 1000.0, 1000.0 * 0.004);
    ck_assert_double_eq_tol(r.queue_ms.mean, 0.0, 1e-6);
    ck_assert_double_eq_tol(r.queue_len_mean, 0.0, 1e-12);
    ck_assert_double_eq_tol(open.sim_time_s, t0 + 5.0, 1e-9);
    ck_assert_double_eq_tol(open.e2e_ms.mean,
                            (1 + 1.9 + 2.8 + 3.7 + 4.6) / 5e-3, 1e-6);
    cl_results_fini(&r);
    cl_results_fini(&open);
    free(t);
    free(to);
}
END_TEST

/* A cap of 2 on 2 servers: pairs sent at t0, t0 + 1 (the third and
 * fourth), t0 + 2 (the fifth); done at t0 + 3. */
START_TEST(test_client_max_concurrency_two)
{
    struct cl_results r;
    char *t = abstract_text(10, 5, 1.0, 2, "max_concurrency: 2");
    double t0 = first_arrival_s();

    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 5);
    ck_assert_double_eq_tol(r.sim_time_s, t0 + 3.0, 1e-9);
    ck_assert_double_eq_tol(r.e2e_ms.mean, 1000.0, 1e-6);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Closed loop, N = 4 users on 4 servers, service S = 2 s, no think time:
 * every user sends at 0, 2, 4, ...; 400 requests take 100 rounds, 200 s:
 * throughput N / S = 2 requests/s, every E2E S. The source's arrival
 * times (rate 1000/s) are ignored. */
START_TEST(test_client_closed_loop_throughput)
{
    struct cl_results r;
    char *t = abstract_text(1000, 400, 2.0, 4, "users: 4");

    run_text(t, &r);
    ck_assert_uint_eq(r.requests_arrived, 400);
    ck_assert_uint_eq(r.requests_completed, 400);
    ck_assert_double_eq_tol(r.sim_time_s, 200.0, 1e-9);
    ck_assert_double_eq_tol(r.requests_per_s, 4.0 / 2.0, 1e-9);
    ck_assert_double_eq_tol(r.e2e_ms.mean, 2000.0, 1e-6);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Four users on two servers of S = 1 s: the servers bound throughput to
 * 2/s, and 400 requests end at 200 s. Users 0 and 1 are served at once
 * (E2E 1 s); every later request finds the other pair queued ahead: 1 s
 * queued, E2E 2 s = N / X, Little's law. Mean E2E (2 x 1 + 398 x 2) / 400
 * = 1.995 s, queue 398 / 400 s. */
START_TEST(test_client_closed_loop_server_bound)
{
    struct cl_results r;
    char *t = abstract_text(1000, 400, 1.0, 2, "users: 4");

    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 400);
    ck_assert_double_eq_tol(r.sim_time_s, 200.0, 1e-9);
    ck_assert_double_eq_tol(r.e2e_ms.mean, 1995.0, 1e-6);
    ck_assert_double_eq_tol(r.queue_ms.mean, 995.0, 1e-6);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Think time Z = 1 s (exponential) with S = 1 s and a server per user:
 * each user cycles every S + Z on average, so X = N / (S + Z) = 2/s. With
 * 20,000 requests (5,000 cycles a user) the run's length has a relative
 * standard deviation under 1%; 3% is a wide margin. The same seed gives
 * the same run. */
START_TEST(test_client_closed_loop_think_time)
{
    struct cl_results r, again;
    char *t = abstract_text(1000, 20000, 1.0, 4, "users: 4, think_time: 1s");

    run_text(t, &r);
    run_text(t, &again);
    ck_assert_uint_eq(r.requests_completed, 20000);
    ck_assert_double_eq_tol(r.requests_per_s, 2.0, 2.0 * 0.03);
    ck_assert_double_eq_tol(r.e2e_ms.mean, 1000.0, 1e-6);
    ck_assert(r.sim_time_s == again.sim_time_s);
    cl_results_fini(&r);
    cl_results_fini(&again);
    free(t);
}
END_TEST

/* Time-out 1 s under 2 s of service: every request is abandoned in
 * service, none completes, no latency is recorded, and the run ends at the
 * last time-out, 1 s after the last arrival (t0 + 0.9 s). */
START_TEST(test_client_timeout_all)
{
    struct cl_results r;
    char *t = abstract_text(10, 10, 2.0, 1, "timeout: 1s");
    double t0 = first_arrival_s();

    run_text(t, &r);
    ck_assert_uint_eq(r.requests_arrived, 10);
    ck_assert_uint_eq(r.requests_completed, 0);
    ck_assert_uint_eq(r.requests_timed_out, 10);
    ck_assert_uint_eq(r.e2e_ms.n, 0);
    ck_assert_uint_eq(r.ttft_ms.n, 0);
    ck_assert_double_eq_tol(r.sim_time_s, t0 + 0.9 + 1.0, 1e-9);
    ck_assert_double_eq_tol(r.throughput_tokens_per_s, 0, 1e-12);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Ten requests 0.1 s apart, 0.5 s of service, time-out 1.2 s, one
 * server. Request 0 runs [t0, t0 + 0.5], request 1 [0.5, 1.0] (E2E 0.9 s);
 * request 2 starts at 1.0 but its deadline is 0.2 + 1.2 = 1.4: abandoned
 * in service, which starts request 3, abandoned at its own deadline 1.5,
 * and so on: 2 complete (mean E2E 0.7 s), 8 time out, the last at t0 +
 * 0.9 + 1.2. */
START_TEST(test_client_timeout_some)
{
    struct cl_results r;
    char *t = abstract_text(10, 10, 0.5, 1, "timeout: 1.2s");
    double t0 = first_arrival_s();

    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 2);
    ck_assert_uint_eq(r.requests_timed_out, 8);
    ck_assert_uint_eq(r.e2e_ms.n, 2);
    ck_assert_double_eq_tol(r.e2e_ms.mean, 700.0, 1e-6);
    ck_assert_double_eq_tol(r.sim_time_s, t0 + 0.9 + 1.2, 1e-9);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* The one abstract server fails at 10 s; its replacement serves after
 * detection and provisioning, 40 s later at the earliest. Requests wait in
 * the cluster queue meanwhile and those that wait 5 s are abandoned there;
 * the one in service when the replica failed is re-queued with its timer.
 * Requests arriving at 10..44 s (35 of them) cannot be served in time. */
START_TEST(test_client_timeout_in_queue_after_failure)
{
    struct cl_results r;
    char *t = xasprintf("seed: 7\n"
                        "workload:\n"
                        "  synthetic:\n"
                        "    arrival: {process: deterministic, "
                        "rate_per_s: 1}\n"
                        "    requests: 80\n"
                        "  client: {timeout: 5s}\n"
                        "server:\n"
                        "  kind: abstract\n"
                        "  service: {dist: deterministic, mean_s: 0.5}\n"
                        "  concurrency: 1\n"
                        "cluster: {min_gpus: 1, max_gpus: 1}\n"
                        "policy: {name: static}\n"
                        "pools:\n"
                        "  - {name: main, capacity_gpus: 2,\n"
                        "     provision: {dist: fixed, mean_s: 30}}\n"
                        "faults:\n"
                        "  detect: 10s\n"
                        "  scripted:\n"
                        "    - {at: 10.2s, kind: gpu}\n"
                        "metrics: {warmup_fraction: 0}\n");

    run_text(t, &r);
    ck_assert_uint_eq(r.failures, 1);
    ck_assert_uint_eq(r.requests_arrived, 80);
    ck_assert_uint_eq(r.requests_completed + r.requests_timed_out, 80);
    ck_assert_uint_ge(r.requests_timed_out, 35);
    ck_assert_uint_ge(r.requests_retried, 1);
    ck_assert(r.e2e_ms.max <= 5000.0 * 1.004);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Llama-3.1-8B on an H100 cut to 22 GB: a KV cache of about 12,000
 * tokens. Request A (8,000 + 3,000 tokens, about 23 s of decode alone)
 * holds most of it; B (8,000 + 10) arrives at 4 s and cannot finish its
 * prompt beside A. With a 5 s time-out A is abandoned at 5 s, its blocks
 * return, and B is admitted at the end of the iteration in flight: it
 * waits 1 s plus less than one iteration, and completes. Without the
 * time-out B waits for A to finish. */
START_TEST(test_client_timeout_frees_kv)
{
    static const char fmt[] =
        "seed: 3\n"
        "model: llama-3.1-8b\n"
        "workload:\n"
        "  trace: {format: azure, path: kv.csv}\n"
        "  client: {%s}\n"
        "hardware:\n"
        "  gpu: small\n"
        "  gpus: [{name: small, base: h100, hbm: 22GB}]\n"
        "deploy: {tp: 1}\n"
        "server: {max_model_len: 12000, max_num_batched_tokens: 8192}\n"
        "cluster: {replicas: 1}\n"
        "metrics: {warmup_fraction: 0}\n";
    struct cl_results r, open;
    char *t = xasprintf(fmt, "timeout: 5s");
    char *to = xasprintf(fmt, "");

    run_text(t, &r);
    run_text(to, &open);
    ck_assert_uint_eq(r.requests_timed_out, 1);
    ck_assert_uint_eq(r.requests_completed, 1);
    ck_assert_uint_eq(r.input_tokens, 8000);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    ck_assert(r.queue_ms.mean >= 1000.0);
    ck_assert(r.queue_ms.mean < 1000.0 + 20.0);
    ck_assert_uint_eq(open.requests_completed, 2);
    ck_assert(open.queue_ms.max > 10000.0);
    cl_results_fini(&r);
    cl_results_fini(&open);
    free(t);
    free(to);
}
END_TEST

/* Time-outs hit every state of the LLM engine: the holding queue (the
 * one prefill replica of a static P/D cluster fails at 60 s and is not
 * replaced, so every later request waits there until it times out), the
 * replicas' waiting queues (priority order, swapped KV), prefill chunks in
 * and out of the iteration in flight, decode and P/D transfers (each seen
 * in these runs by instrumenting llm_abandon()). Every request is
 * accounted for, no completed one took longer than the time-out, every
 * block returns, the run ends, and it is deterministic. */
static void check_stress(double rate_per_s, const char *timeout,
                         const char *hbm, const char *deploy,
                         const char *server, const char *extra)
{
    struct cl_results r, again;
    char *t = xasprintf(
        "seed: 5\n"
        "model: llama-3.1-8b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: poisson, rate_per_s: %g}\n"
        "    requests: 1500\n"
        "    prompt_tokens: {dist: lognormal, mean: 4000, sd: 3000}\n"
        "    output_tokens: {dist: uniform, min: 1, max: 300}\n"
        "    sessions: {turns: {dist: fixed, value: 2}, think_time: 2s}\n"
        "  priority_classes:\n"
        "    - {name: hi, share: 1, priority: 0}\n"
        "    - {name: lo, share: 2, priority: 1}\n"
        "  client: {timeout: %s}\n"
        "hardware:\n"
        "  gpu: small\n"
        "  gpus: [{name: small, base: h100, hbm: %s}]\n"
        "deploy: {tp: 1%s}\n"
        "server: {max_model_len: 12000, %s}\n"
        "cluster: {replicas: 3}\n"
        "metrics: {warmup_fraction: 0}\n"
        "%s",
        rate_per_s, timeout, hbm, deploy, server, extra);
    double timeout_ms = 1000.0 * atof(timeout);

    run_text(t, &r);
    run_text(t, &again);
    printf("# stress: %llu completed, %llu timed out, %llu dropped, %llu "
           "preemptions, %llu swaps, %llu P/D transfers\n",
           (unsigned long long)r.requests_completed,
           (unsigned long long)r.requests_timed_out,
           (unsigned long long)r.requests_dropped,
           (unsigned long long)r.preemptions, (unsigned long long)r.swaps_out,
           (unsigned long long)r.pd_transfers);
    fflush(stdout);
    ck_assert_uint_eq(r.requests_completed + r.requests_timed_out +
                          r.requests_dropped,
                      r.requests_arrived);
    ck_assert_uint_gt(r.requests_timed_out, 0);
    ck_assert_uint_gt(r.requests_completed, 0);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    ck_assert(r.e2e_ms.max <= timeout_ms * 1.004);
    ck_assert(r.sim_time_s == again.sim_time_s);
    ck_assert_uint_eq(r.requests_timed_out, again.requests_timed_out);
    cl_results_fini(&r);
    cl_results_fini(&again);
    free(t);
}

START_TEST(test_client_timeout_llm_states)
{
    check_stress(6, "3s", "22GB", "", "preemption: swap, scheduling: priority",
                 "");
    check_stress(3, "1s", "26GB", "",
                 "scheduling: priority, prefix_caching: true", "");
    check_stress(3, "1s", "26GB",
                 ", disaggregation: {prefill_replicas: 1, decode_replicas: 2}",
                 "prefix_caching: true",
                 "faults: {scripted: [{at: 60s, kind: gpu, replica: 0}]}\n");
}
END_TEST

/* Loads text, expecting exactly the error want (file:line:col: ...). */
static void expect_error(const char *client, const char *want)
{
    struct cl_scenario scn;
    struct sim_diag d;
    char *text = abstract_text(1, 5, 1, 1, client);
    char *got;

    sim_diag_init(&d);
    ck_assert_int_ne(scn_string_load("bad.yaml", text, strlen(text), &scn, &d),
                     0);
    ck_assert_int_ge(d.n, 1);
    got = sim_diag_format(&d, 0);
    ck_assert_str_eq(got, want);
    free(got);
    free(text);
    sim_diag_fini(&d);
}

START_TEST(test_client_bad_keys)
{
    expect_error("think_time: 2s",
                 "bad.yaml:6:12: error: workload.client.think_time: needs "
                 "users (a think time is a closed loop's; an open loop sends "
                 "at the source's arrival times)");
    expect_error("users: 4, max_concurrency: 2",
                 "bad.yaml:6:12: error: workload.client.users: not with "
                 "max_concurrency (a closed loop of N users already has at "
                 "most N requests in flight)");
    expect_error("timeout: 0s",
                 "bad.yaml:6:21: error: workload.client.timeout: "
                 "0s out of range (0, 3.16224e+07]");
    expect_error("users: 0", "bad.yaml:6:19: error: workload.client.users: 0 "
                             "out of range [1, 1e+06]");
}
END_TEST

static Suite *client_suite(void)
{
    Suite *s = suite_create("client");
    TCase *tc = tcase_create("client");

    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_client_stage_start);
    tcase_add_test(tc, test_client_stage_hold_and_shift);
    tcase_add_test(tc, test_client_max_concurrency_sequential);
    tcase_add_test(tc, test_client_max_concurrency_two);
    tcase_add_test(tc, test_client_closed_loop_throughput);
    tcase_add_test(tc, test_client_closed_loop_server_bound);
    tcase_add_test(tc, test_client_closed_loop_think_time);
    tcase_add_test(tc, test_client_timeout_all);
    tcase_add_test(tc, test_client_timeout_some);
    tcase_add_test(tc, test_client_timeout_in_queue_after_failure);
    tcase_add_test(tc, test_client_timeout_frees_kv);
    tcase_add_test(tc, test_client_timeout_llm_states);
    tcase_add_test(tc, test_client_bad_keys);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *top = getenv("top_srcdir");

    if (top == NULL || top[0] == '\0')
        top = ".";
    fixture_dir = xasprintf("%s/tests/data/client", top);

    SRunner *sr = srunner_create(client_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(fixture_dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
