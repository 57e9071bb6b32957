/*
 * Check suite for models/cluster: queueing-theory oracles on abstract
 * servers (docs/sources.md §11: Erlang C for M/M/c, Pollaczek-Khinchine for
 * M/D/1 and M/G/1), Little's law on dsec's own counters, and LLM replica sanity
 * and determinism. The oracle tests assert that the closed form lies inside
 * dsec's own 95% batch-means confidence interval for queue_ms.mean, with
 * enough requests (1-3 million) that the interval is a few percent wide.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"
#include "models/cluster/cluster.h"
#include "reports/summary.h"
#include "scenarios/load.h"
#include "tests/run-fixture.h"

/* Erlang C: probability of waiting in M/M/c with offered load a = lambda/mu,
 * through the stable Erlang B recursion (docs/sources.md §11). */
static double erlang_c(int c, double a)
{
    double b = 1.0, rho = a / c;
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    return b / (1.0 - rho * (1.0 - b));
}

static void run_text(const char *text, struct cl_results *res)
{
    run_fixture_text(text, ".", res);
}

static char *abstract_text(double lambda, int c, const char *service,
                           long requests, double warmup, int seed)
{
    return xasprintf("seed: %d\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: %.17g}\n"
                     "    requests: %ld\n"
                     "    prompt_tokens: {dist: fixed, value: 1}\n"
                     "    output_tokens: {dist: fixed, value: 1}\n"
                     "server:\n"
                     "  kind: abstract\n"
                     "  service: %s\n"
                     "  concurrency: 1\n"
                     "cluster: {replicas: %d}\n"
                     "metrics: {warmup_fraction: %g, batches: 32}\n",
                     seed, lambda, requests, service, c, warmup);
}

/* Asserts that wq_s (seconds) lies in dsec's CI and that the CI is
 * narrow (under 5% of the mean). */
static void check_oracle(const char *label, const struct cl_results *r,
                         double wq_s)
{
    double want = wq_s * 1e3, got = r->queue_ms.mean, hw = r->queue_ms.ci95;
    printf("# %s: Wq theory %.2f ms, dsec %.2f +- %.2f ms (%.2f%%)\n", label,
           want, got, hw, 100 * (got - want) / want);
    fflush(stdout);
    ck_assert(isfinite(hw));
    ck_assert_msg(fabs(got - want) <= hw,
                  "%s: theory %.3f ms outside dsec's CI %.3f +- %.3f", label,
                  want, got, hw);
    ck_assert_msg(hw < 0.05 * want, "%s: CI too wide (%.3f ms)", label, hw);
}

START_TEST(test_cl_run_mm1_rho09_erlang_c)
{
    struct cl_results r;
    /* Seed 2. Seed 1 lands 2.2 half-widths low (8771.6 ms): a 1-in-20
     * event for a correct simulator; docs/validation.md shows 24 seeds. */
    char *t = abstract_text(0.9, 1, "{dist: exponential, mean_s: 1.0}", 3000000,
                            0.1, 2);
    run_text(t, &r);
    /* M/M/1: Wq = rho/(mu - lambda) = 0.9/0.1 = 9 s. */
    check_oracle("M/M/1 rho=0.9", &r, 0.9 / (1.0 - 0.9));
    ck_assert_uint_eq(r.requests_completed, 3000000);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_mm4_rho08_erlang_c)
{
    struct cl_results r;
    char *t = abstract_text(3.2, 4, "{dist: exponential, mean_s: 1.0}", 2000000,
                            0.1, 2);
    run_text(t, &r);
    /* M/M/c: Wq = C(c, a) / (c mu - lambda). */
    check_oracle("M/M/4 rho=0.8", &r, erlang_c(4, 3.2) / (4.0 - 3.2));
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_mm8_rho09_erlang_c)
{
    struct cl_results r;
    char *t = abstract_text(7.2, 8, "{dist: exponential, mean_s: 1.0}", 3000000,
                            0.1, 3);
    run_text(t, &r);
    check_oracle("M/M/8 rho=0.9", &r, erlang_c(8, 7.2) / (8.0 - 7.2));
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_md1_rho09_pollaczek_khinchine)
{
    struct cl_results r;
    char *t = abstract_text(0.9, 1, "{dist: deterministic, mean_s: 1.0}",
                            2000000, 0.1, 4);
    run_text(t, &r);
    /* M/D/1: Wq = rho / (2 mu (1 - rho)) = 0.9 / 0.2 = 4.5 s. */
    check_oracle("M/D/1 rho=0.9", &r, 0.9 / (2.0 * (1.0 - 0.9)));
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_mg1_gamma_pollaczek_khinchine)
{
    struct cl_results r;
    char *t = abstract_text(0.7, 1, "{dist: gamma, mean_s: 1.0, cv: 2.0}",
                            2000000, 0.1, 5);
    run_text(t, &r);
    /* M/G/1: Wq = (1 + Cs^2)/2 * rho/(1 - rho) * E[S] = 2.5 * 7/3 s. */
    check_oracle("M/G/1 gamma cv=2 rho=0.7", &r, (1.0 + 4.0) / 2.0 * 0.7 / 0.3);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_littles_law)
{
    struct cl_results r;
    char *t = abstract_text(3.2, 4, "{dist: exponential, mean_s: 1.0}", 1000000,
                            0.0, 6);
    double lq;
    run_text(t, &r);
    /* Lq (time average of the queue) = lambda x Wq, on dsec's own
     * counters over the whole run (no warm-up cut). */
    lq = r.arrival_rate_per_s * r.queue_ms.mean / 1e3;
    printf("# Little: Lq %.4f, lambda*Wq %.4f\n", r.queue_len_mean, lq);
    ck_assert_double_eq_tol(r.queue_len_mean, lq, 0.01 * lq);
    /* Utilisation = lambda E[S] / c = 0.8. */
    ck_assert_double_eq_tol(r.utilization, 0.8, 0.01);
    cl_results_fini(&r);
    free(t);
}
END_TEST

static const char *llm_text =
    "seed: 5\n"
    "model: llama-3.1-8b\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: {process: poisson, rate_per_s: 4}\n"
    "    requests: 3000\n"
    "    prompt_tokens: {dist: lognormal, mean: 1000, sd: 500}\n"
    "    output_tokens: {dist: lognormal, mean: 200, sd: 100}\n"
    "hardware: {gpu: h100}\n"
    "deploy: {tp: 1}\n"
    "cluster: {replicas: 2}\n"
    "slo: {ttft_ms: 500, tpot_ms: 50}\n"
    "metrics: {interval: 10s}\n";

START_TEST(test_cl_run_llm_sane_and_deterministic)
{
    struct cl_results a, b;
    char *ja, *jb;

    run_text(llm_text, &a);
    run_text(llm_text, &b);
    ck_assert_uint_eq(a.requests_completed, 3000);
    ck_assert_uint_eq(a.requests_dropped, 0);
    /* Decode of an 8B model on an H100 takes milliseconds per token; a
     * prefill of ~1000 tokens tens of milliseconds. */
    ck_assert(a.tpot_ms.p50 > 2.0 && a.tpot_ms.p50 < 50.0);
    ck_assert(a.ttft_ms.p50 > 5.0 && a.ttft_ms.p50 < 500.0);
    ck_assert(a.e2e_ms.mean > a.ttft_ms.mean);
    ck_assert(a.slo_attainment > 0.5 && a.slo_attainment <= 1.0);
    ck_assert(a.nseries > 10);
    ck_assert_double_eq_tol(a.gpu_hours, 2 * a.sim_time_s / 3600.0, 1e-9);
    ja = rpt_summary_json(&a, 0);
    jb = rpt_summary_json(&b, 0);
    ck_assert_str_eq(ja, jb);
    free(ja);
    free(jb);
    cl_results_fini(&a);
    cl_results_fini(&b);
}
END_TEST

static char *frontend_text(const char *frontend)
{
    return xasprintf("seed: 3\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 0.05}\n"
                     "    requests: 20\n"
                     "    prompt_tokens: {dist: fixed, value: 100}\n"
                     "    output_tokens: {dist: fixed, value: 10}\n"
                     "hardware: {gpu: h100}\n"
                     "deploy: {tp: 1}\n"
                     "metrics: {warmup_fraction: 0}\n"
                     "server:\n"
                     "  frontend: %s\n",
                     frontend);
}

START_TEST(test_cl_run_llm_frontend_adds_to_ttft_and_e2e)
{
    struct cl_results a, b;
    char *t0 =
        frontend_text("{request: 0, per_prompt_token: 0, per_output_token: 0}");
    char *t1 = frontend_text(
        "{request: 10ms, per_prompt_token: 10us, per_output_token: 1ms}");

    run_text(t0, &a);
    run_text(t1, &b);
    /* Requests 20 s apart never queue: the front end delays each request
     * by 10 ms + 100 x 10 us = 11 ms before the engine, and its first and
     * last tokens by 1 ms after it: TTFT and E2E grow by 12 ms each, the
     * time per output token not at all (detokenisation overlaps the next
     * step). */
    ck_assert_uint_eq(b.requests_completed, 20);
    ck_assert_double_eq_tol(b.ttft_ms.mean - a.ttft_ms.mean, 12.0, 1e-6);
    ck_assert_double_eq_tol(b.e2e_ms.mean - a.e2e_ms.mean, 12.0, 1e-6);
    ck_assert_double_eq_tol(b.tpot_ms.mean, a.tpot_ms.mean, 1e-9);
    cl_results_fini(&a);
    cl_results_fini(&b);
    free(t0);
    free(t1);
}
END_TEST

START_TEST(test_cl_run_llm_warmup_slows_first_iterations)
{
    struct cl_results a, b, c;
    const char *fe = "{request: 0, per_prompt_token: 0, per_output_token: 0}";
    char *t0 = frontend_text(fe);
    char *t1 = xasprintf("%s  warmup: {iterations: 1000000, factor: 2}\n", t0);
    char *t2 = xasprintf("%s  warmup: {iterations: 1, factor: 3}\n", t0);

    run_text(t0, &a);
    run_text(t1, &b);
    run_text(t2, &c);
    /* Isolated requests: TTFT is the first iteration's time and E2E the
     * sum of its iterations, so every iteration twice as long doubles
     * both exactly; warming up only the replica's first iteration (3x)
     * adds 2 x that first TTFT to the first request alone. */
    ck_assert_double_eq_tol(b.ttft_ms.mean, 2.0 * a.ttft_ms.mean, 1e-6);
    ck_assert_double_eq_tol(b.e2e_ms.mean, 2.0 * a.e2e_ms.mean, 1e-6);
    ck_assert_double_eq_tol(c.ttft_ms.mean - a.ttft_ms.mean,
                            2.0 * a.ttft_ms.mean / 20.0, 1e-6);
    cl_results_fini(&a);
    cl_results_fini(&b);
    cl_results_fini(&c);
    free(t0);
    free(t1);
    free(t2);
}
END_TEST

START_TEST(test_cl_run_crn_arrivals_independent_of_server)
{
    struct cl_results a, b;
    char *t1 = abstract_text(0.5, 1, "{dist: exponential, mean_s: 1.0}", 20000,
                             0.0, 9);
    char *t2 = abstract_text(0.5, 2, "{dist: deterministic, mean_s: 1.0}",
                             20000, 0.0, 9);
    run_text(t1, &a);
    run_text(t2, &b);
    /* Same seed, same arrival stream: the same arrival rate to the last
     * digit although the servers differ. */
    ck_assert_uint_eq(a.requests_arrived, b.requests_arrived);
    ck_assert(a.series[0].arrivals == b.series[0].arrivals);
    cl_results_fini(&a);
    cl_results_fini(&b);
    free(t1);
    free(t2);
}
END_TEST

/* Llama-3.1-8B on one H100 with server.max_model_len 1,000 and n fixed
 * requests of 900 + output tokens each. */
static char *max_len_text(int output)
{
    return xasprintf("seed: 1\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 2}\n"
                     "    requests: 20\n"
                     "    prompt_tokens: {dist: fixed, value: 900}\n"
                     "    output_tokens: {dist: fixed, value: %d}\n"
                     "hardware: {gpu: h100}\n"
                     "deploy: {tp: 1}\n"
                     "server: {max_model_len: 1000}\n"
                     "cluster: {replicas: 1}\n"
                     "metrics: {warmup_fraction: 0}\n",
                     output);
}

START_TEST(test_cl_run_max_model_len_drops_longer)
{
    /* 900 + 100 = 1,000 tokens is at the limit and served; 900 + 101 is
     * one more and refused at arrival, as vLLM's API server refuses it:
     * all 20 dropped, none queued, with a note naming the limit. */
    struct cl_results ok, long_;
    char *t_ok = max_len_text(100), *t_long = max_len_text(101);
    int found = 0;

    run_text(t_ok, &ok);
    run_text(t_long, &long_);
    ck_assert_uint_eq(ok.requests_completed, 20);
    ck_assert_uint_eq(ok.requests_dropped, 0);
    ck_assert_uint_eq(long_.requests_completed, 0);
    ck_assert_uint_eq(long_.requests_dropped, 20);
    for (int i = 0; i < long_.nnotes; i++)
        found |= strcmp(long_.notes[i],
                        "20 requests dropped: prompt plus output exceeds "
                        "server.max_model_len 1000 (vLLM returns an "
                        "error)") == 0;
    ck_assert_msg(found, "no max_model_len note");
    cl_results_fini(&ok);
    cl_results_fini(&long_);
    free(t_ok);
    free(t_long);
}
END_TEST

START_TEST(test_cl_scenario_check_max_model_len_fits_kv)
{
    /* Llama-3.1-8B on an H100 cut to 22 GB: 22e9 * 0.9 - 16,060,522,496
     * weights - 2 GiB reserve = 1,591,993,856 bytes / 131,072 a token =
     * 12,145 tokens, 12,144 in blocks of 16. Its default max_model_len,
     * 131,072 (max_position_embeddings), does not fit: vLLM refuses to
     * start, and so does the check, at the model key; an explicit 20,000
     * is reported at its own key; 12,144 fits. */
    static const char *head = "model: llama-3.1-8b\n"
                              "workload:\n"
                              "  synthetic:\n"
                              "    arrival: {rate_per_s: 1}\n"
                              "    requests: 5\n"
                              "    prompt_tokens: {dist: fixed, value: 10}\n"
                              "    output_tokens: {dist: fixed, value: 10}\n"
                              "hardware:\n"
                              "  gpu: small\n"
                              "  gpus: [{name: small, base: h100, hbm: 22GB}]\n"
                              "deploy: {tp: 1}\n";
    static const char *const tails[] = {"", "server: {max_model_len: 20000}\n",
                                        "server: {max_model_len: 12144}\n"};
    static const char *const want[] = {
        "x.yaml:1:8: error: server.max_model_len: 131072 tokens (the model's "
        "max_position_embeddings) do not fit the KV cache of one replica on "
        "small, 12144 tokens; vLLM refuses to start (\"the model's max seq "
        "len is larger than the maximum number of tokens that can be stored "
        "in KV cache\"): set server.max_model_len to at most 12144, or give "
        "the replica more memory",
        "x.yaml:12:25: error: server.max_model_len: 20000 tokens do not fit "
        "the KV cache of one replica on small, 12144 tokens; vLLM refuses "
        "to start (\"the model's max seq len is larger than the maximum "
        "number of tokens that can be stored in KV cache\"): set "
        "server.max_model_len to at most 12144, or give the replica more "
        "memory",
        NULL};

    for (int i = 0; i < 3; i++) {
        char *text = xasprintf("%s%s", head, tails[i]);
        struct cl_scenario scn;
        struct sim_diag d;
        char *msg;
        int rc;

        sim_diag_init(&d);
        ck_assert_int_eq(
            scn_string_load("x.yaml", text, strlen(text), &scn, &d), 0);
        rc = cl_scenario_check(&scn, NULL, &d);
        if (want[i] == NULL) {
            ck_assert_int_eq(rc, 0);
        } else {
            ck_assert_int_eq(rc, SIM_EINFEASIBLE);
            msg = sim_diag_format(&d, 0);
            ck_assert_str_eq(msg, want[i]);
            free(msg);
        }
        sim_diag_fini(&d);
        cl_scenario_fini(&scn);
        free(text);
    }
}
END_TEST

START_TEST(test_cl_scenario_check_infeasible_seed)
{
    static const char *text = "model: deepseek-v3\n"
                              "workload:\n"
                              "  synthetic:\n"
                              "    arrival: {process: poisson, rate_per_s: 1}\n"
                              "    requests: 10\n"
                              "    prompt_tokens: {dist: fixed, value: 10}\n"
                              "    output_tokens: {dist: fixed, value: 10}\n"
                              "hardware: {gpu: h200}\n"
                              "deploy: {tp: 4, weight_dtype: fp8}\n"
                              "cluster: {replicas: 1}\n";
    struct cl_scenario scn;
    struct sim_diag d;
    char *msg;

    sim_diag_init(&d);
    ck_assert_int_eq(scn_string_load("x.yaml", text, strlen(text), &scn, &d),
                     0);
    ck_assert_int_ne(cl_scenario_check(&scn, NULL, &d), 0);
    ck_assert_int_ge(d.n, 1);
    msg = sim_diag_format(&d, 0);
    printf("# %s\n", msg);
    ck_assert_ptr_nonnull(strstr(msg, "x.yaml:9:"));
    ck_assert_ptr_nonnull(strstr(msg, "int4"));
    free(msg);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

/* P/D with a layout per group (deploy.disaggregation.prefill/decode):
 * Qwen3-235B-A22B in fp8 on H800 nodes of 8, two prefill replicas of tp 1
 * and ep 8 (8 GPUs each: 8 data-parallel attention ranks) and one decode
 * replica of tp 1 and ep 16 (16 GPUs). By hand:
 *   GPU-hours = (8 x 2 + 16 x 1) x simulated time / 3600, each group's
 *   16 x simulated time / 3600 (a static cluster, warm at t = 0);
 *   KV per token = 94 layers x 4 kv heads x 128 x 2 (K, V) x 1 byte (fp8)
 *   = 96,256 bytes, all on the one GPU of a tp-1 rank, so each transfer
 *   moves 2,000 x 96,256 bytes from one GPU: 4.0 us + 192,512,000 /
 *   (0.96 x 50 GB/s) over roce-400 = 4.014667 ms (docs/sources.md §2.1-2.3).
 * Every request completes and every KV block is returned. */
static const char *pd_roles_text =
    "model: qwen3-235b-a22b\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: {process: poisson, rate_per_s: 20}\n"
    "    requests: 400\n"
    "    prompt_tokens: {dist: fixed, value: 2000}\n"
    "    output_tokens: {dist: fixed, value: 200}\n"
    "hardware: {gpu: h800, gpus_per_node: 8}\n"
    "deploy:\n"
    "  weight_dtype: fp8\n"
    "  kv_dtype: fp8\n"
    "  disaggregation:\n"
    "    prefill_replicas: 2\n"
    "    decode_replicas: 1\n"
    "    prefill: {tp: 1, ep: 8}\n"
    "    decode: {tp: 1, ep: 16}\n";

START_TEST(test_cl_run_pd_layout_per_group)
{
    struct cl_scenario scn;
    struct cl_plan plan;
    struct cl_results r;
    struct sim_diag d;
    double t_h,
        want_ms = (4000.0 + 2000.0 * 96256 / (0.96 * 50e9) * 1e9) * 1e-6;

    sim_diag_init(&d);
    ck_assert_int_eq(scn_string_load("x.yaml", pd_roles_text,
                                     strlen(pd_roles_text), &scn, &d),
                     0);
    ck_assert_int_eq(cl_scenario_check(&scn, &plan, &d), 0);
    ck_assert_int_eq(plan.disaggregated, 1);
    ck_assert_int_eq(plan.replicas, 3);
    ck_assert_int_eq(plan.groups[CL_PD_PREFILL].gpus_per_replica, 8);
    ck_assert_int_eq(plan.groups[CL_PD_DECODE].gpus_per_replica, 16);
    ck_assert_int_eq(plan.gpus_per_replica, 0); /* they differ */
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);

    run_text(pd_roles_text, &r);
    t_h = r.sim_time_s / 3600.0;
    ck_assert_uint_eq(r.requests_arrived, 400);
    ck_assert_uint_eq(r.requests_completed, 400);
    ck_assert_uint_eq(r.requests_dropped, 0);
    ck_assert_uint_eq(r.output_tokens, 400 * 200);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    ck_assert_double_eq_tol(r.gpu_hours, (8.0 * 2 + 16.0 * 1) * t_h,
                            1e-9 * r.gpu_hours);
    ck_assert_int_eq(r.ngroups, 2);
    ck_assert_str_eq(r.groups[0].name, "prefill");
    ck_assert_int_eq(r.groups[0].replicas, 2);
    ck_assert_int_eq(r.groups[0].gpus, 16);
    ck_assert_int_eq(r.groups[0].ep, 8);
    ck_assert_int_eq(r.groups[0].dp, 8);
    ck_assert_str_eq(r.groups[1].name, "decode");
    ck_assert_int_eq(r.groups[1].replicas, 1);
    ck_assert_int_eq(r.groups[1].gpus_per_replica, 16);
    ck_assert_int_eq(r.groups[1].ep, 16);
    ck_assert_double_eq_tol(r.groups[0].gpu_hours, 16.0 * t_h, 1e-9);
    ck_assert_double_eq_tol(r.groups[1].gpu_hours, 16.0 * t_h, 1e-9);
    ck_assert_uint_eq(r.pd_transfers, 400);
    ck_assert_uint_eq(r.pd_bytes, 400ull * 2000 * 96256);
    ck_assert_double_eq_tol(r.pd_transfer_ms_mean, want_ms, 1e-6);
    printf("# p/d per group: %.3f s, %.4f GPU-h, ttft %.2f ms, tpot %.2f "
           "ms\n",
           r.sim_time_s, r.gpu_hours, r.ttft_ms.mean, r.tpot_ms.mean);
    cl_results_fini(&r);
}
END_TEST

/* A group section that only restates the top-level layout changes
 * nothing: the keys left out fall back to deploy and server. */
START_TEST(test_cl_run_pd_group_keys_fall_back)
{
    static const char *head = "model: llama-3.1-8b\n"
                              "workload:\n"
                              "  synthetic:\n"
                              "    arrival: {process: poisson, rate_per_s: 8}\n"
                              "    requests: 200\n"
                              "    prompt_tokens: {dist: fixed, value: 1500}\n"
                              "    output_tokens: {dist: fixed, value: 100}\n"
                              "server: {max_num_seqs: 64}\n";
    char *plain = xasprintf("%sdeploy: {tp: 1, disaggregation: "
                            "{prefill_replicas: 1, decode_replicas: 2}}\n",
                            head);
    char *groups = xasprintf(
        "%sdeploy: {disaggregation: {prefill_replicas: 1, decode_replicas: "
        "2, prefill: {tp: 1}, decode: {tp: 1, max_num_seqs: 64}}}\n",
        head);
    struct cl_results a, b;

    run_text(plain, &a);
    run_text(groups, &b);
    ck_assert_uint_eq(a.requests_completed, 200);
    ck_assert_uint_eq(b.requests_completed, 200);
    ck_assert(a.sim_time_s == b.sim_time_s);
    ck_assert(a.ttft_ms.mean == b.ttft_ms.mean);
    ck_assert(a.e2e_ms.mean == b.e2e_ms.mean);
    ck_assert(a.gpu_hours == b.gpu_hours);
    ck_assert_int_eq(a.gpus_per_replica, 1);
    ck_assert_int_eq(b.gpus_per_replica, 1);
    cl_results_fini(&a);
    cl_results_fini(&b);
    free(plain);
    free(groups);
}
END_TEST

/* Elastic P/D (docs/serving.md "Elastic P/D"): an hour of traffic whose
 * rate swings from 5 to 45 req/s, the prefill group (8 GPUs a replica)
 * kept within [1, 3] and the decode group (16 GPUs) within [1, 2], each by
 * its own instance of the policy. Both groups grow at the peak and stay
 * within their bounds, every request completes, and the GPU-hours are the
 * two groups' sum. With the prefill group capped at 1 it never grows. */
static char *pd_elastic_text(const char *policy, int prefill_max)
{
    return xasprintf("seed: 5\n"
                     "model: qwen3-235b-a22b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival:\n"
                     "      process: poisson\n"
                     "      rate_per_s: 25\n"
                     "      diurnal: {period: 1h, amplitude: 0.8, peak_at: "
                     "30min}\n"
                     "    duration: 1h\n"
                     "    prompt_tokens: {dist: lognormal, mean: 2000, sd: "
                     "800}\n"
                     "    output_tokens: {dist: lognormal, mean: 300, sd: "
                     "200, max: 2000}\n"
                     "hardware: {gpu: h800, gpus_per_node: 8}\n"
                     "deploy:\n"
                     "  weight_dtype: fp8\n"
                     "  kv_dtype: fp8\n"
                     "  disaggregation:\n"
                     "    prefill_replicas: 1\n"
                     "    decode_replicas: 1\n"
                     "    prefill: {tp: 1, ep: 8, min_replicas: 1, "
                     "max_replicas: %d}\n"
                     "    decode: {tp: 1, ep: 16, min_replicas: 1, "
                     "max_replicas: 2}\n"
                     "cluster: {min_gpus: 24, max_gpus: 80}\n"
                     "slo: {ttft_ms: 1500, tpot_ms: 40}\n"
                     "policy: {name: %s}\n",
                     prefill_max, policy);
}

START_TEST(test_cl_run_pd_elastic)
{
    static const char *const policies[] = {"target-latency",
                                           "dynamo-throughput"};

    for (int i = 0; i < 2; i++) {
        char *t = pd_elastic_text(policies[i], 3);
        char *t1 = pd_elastic_text(policies[i], 1);
        struct cl_results r, r1;

        run_text(t, &r);
        run_text(t1, &r1);
        ck_assert_int_eq(r.ngroups, 2);
        ck_assert_uint_eq(r.requests_completed, r.requests_arrived);
        ck_assert_int_eq(r.kv_blocks_end, 0);
        ck_assert_int_ge(r.groups[0].replicas_min, 1);
        ck_assert_int_le(r.groups[0].replicas_max, 3);
        ck_assert_int_ge(r.groups[1].replicas_min, 1);
        ck_assert_int_le(r.groups[1].replicas_max, 2);
        /* Both groups grew at the peak. */
        ck_assert_int_gt(r.groups[0].replicas_max, 1);
        ck_assert_int_gt(r.groups[1].replicas_max, 1);
        ck_assert_double_eq_tol(r.groups[0].gpu_hours + r.groups[1].gpu_hours,
                                r.gpu_hours, 1e-6 * r.gpu_hours);
        ck_assert_int_eq(r1.groups[0].replicas_max, 1);
        ck_assert_uint_eq(r1.requests_completed, r1.requests_arrived);
        printf("# elastic P/D, %s: prefill %d to %d, decode %d to %d, %.2f "
               "GPU-hours\n",
               policies[i], r.groups[0].replicas_min, r.groups[0].replicas_max,
               r.groups[1].replicas_min, r.groups[1].replicas_max, r.gpu_hours);
        cl_results_fini(&r);
        cl_results_fini(&r1);
        free(t);
        free(t1);
    }
}
END_TEST

static Suite *cluster_suite(void)
{
    Suite *s = suite_create("cluster");
    TCase *tc = tcase_create("oracles");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_cl_run_mm1_rho09_erlang_c);
    tcase_add_test(tc, test_cl_run_llm_frontend_adds_to_ttft_and_e2e);
    tcase_add_test(tc, test_cl_run_llm_warmup_slows_first_iterations);
    tcase_add_test(tc, test_cl_run_mm4_rho08_erlang_c);
    tcase_add_test(tc, test_cl_run_mm8_rho09_erlang_c);
    tcase_add_test(tc, test_cl_run_md1_rho09_pollaczek_khinchine);
    tcase_add_test(tc, test_cl_run_mg1_gamma_pollaczek_khinchine);
    tcase_add_test(tc, test_cl_run_littles_law);
    suite_add_tcase(s, tc);
    tc = tcase_create("llm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cl_run_llm_sane_and_deterministic);
    tcase_add_test(tc, test_cl_run_crn_arrivals_independent_of_server);
    tcase_add_test(tc, test_cl_scenario_check_infeasible_seed);
    tcase_add_test(tc, test_cl_run_max_model_len_drops_longer);
    tcase_add_test(tc, test_cl_scenario_check_max_model_len_fits_kv);
    tcase_add_test(tc, test_cl_run_pd_layout_per_group);
    tcase_add_test(tc, test_cl_run_pd_elastic);
    tcase_add_test(tc, test_cl_run_pd_group_keys_fall_back);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cluster_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
