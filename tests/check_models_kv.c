/*
 * Check suite for the paged KV cache of LLM replicas (models/cluster/llm.c):
 * block rounding, no preemption without KV pressure, and recompute
 * preemption under pressure with every request completing and every block
 * returned when the trace drains.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "reports/summary.h"
#include "scenarios/load.h"
#include "tests/run-fixture.h"

static void run_text(const char *text, struct cl_results *res)
{
    run_fixture_text(text, ".", res);
}

/* One replica of Llama-3.1-8B (about 16 GB of bf16 weights) on an H100
 * cut down to hbm bytes of memory, so that the KV cache is small. */
static char *kv_text(const char *hbm, double rate, long requests, long prompt,
                     long output, const char *extra)
{
    return xasprintf("seed: 3\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: %g}\n"
                     "    requests: %ld\n"
                     "    prompt_tokens: {dist: fixed, value: %ld}\n"
                     "    output_tokens: {dist: fixed, value: %ld}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: %s}]\n"
                     "deploy: {tp: 1}\n"
                     "cluster: {replicas: 1}\n"
                     "%s",
                     rate, requests, prompt, output, hbm, extra);
}

/* A lone request holds ceil((prompt + output - 1) / 16) blocks at its
 * peak: the last output token's KV is never written. */
static int64_t lone_peak(long prompt, long output, const char *extra)
{
    struct cl_results r;
    char *t = kv_text("80GB", 0.001, 1, prompt, output, extra);
    int64_t peak;
    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 1);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    peak = r.kv_blocks_peak;
    cl_results_fini(&r);
    free(t);
    return peak;
}

START_TEST(test_kv_block_rounding)
{
    ck_assert_int_eq(lone_peak(17, 1, ""), 2);
    ck_assert_int_eq(lone_peak(16, 1, ""), 1);
    ck_assert_int_eq(lone_peak(16, 2, ""), 2); /* 17 tokens at its peak */
    ck_assert_int_eq(lone_peak(1, 32, ""), 2);
    ck_assert_int_eq(lone_peak(1, 33, ""), 3);
    ck_assert_int_eq(lone_peak(17, 1, "server: {block_tokens: 17}\n"), 1);
    ck_assert_int_eq(lone_peak(100, 1, "server: {block_tokens: 1}\n"), 100);
}
END_TEST

START_TEST(test_kv_no_pressure_no_preemption)
{
    struct cl_results r;
    char *t = kv_text("80GB", 5, 500, 500, 100, "");
    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 500);
    ck_assert_uint_eq(r.preemptions, 0);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    ck_assert(r.kv_blocks_peak > 0);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_kv_pressure_preempts_and_drains)
{
    struct cl_results a, b;
    char *ja, *jb;
    /* 19.8 GB usable of 22 GB, less 16.1 GB of weights and 2.1 GB of
     * activations leaves about 1.6 GB of KV, some 12,000 tokens at 128 KiB
     * each: about 6 requests of 2,000 peak tokens, while admission by
     * first chunk lets in many more. */
    char *t =
        kv_text("22GB", 50, 400, 1000, 1000,
                "server: {max_model_len: 12144}\n"); /* vLLM: --max-model-len */
    run_text(t, &a);
    run_text(t, &b);
    ck_assert_uint_eq(a.requests_completed, 400);
    ck_assert_uint_eq(a.requests_dropped, 0);
    ck_assert(a.preemptions > 0);
    ck_assert_int_eq(a.kv_blocks_end, 0);
    ck_assert(a.kv_blocks_peak > 0);
    /* Recompute: every token is still produced once. */
    ck_assert_uint_eq(a.output_tokens, 400 * 1000);
    ja = rpt_summary_json(&a, 0);
    jb = rpt_summary_json(&b, 0);
    ck_assert_str_eq(ja, jb); /* deterministic */
    ck_assert_ptr_nonnull(strstr(ja, "\"preemptions\""));
    printf("# kv pressure: %llu preemptions, peak %lld blocks\n",
           (unsigned long long)a.preemptions, (long long)a.kv_blocks_peak);
    free(ja);
    free(jb);
    cl_results_fini(&a);
    cl_results_fini(&b);
    free(t);
}
END_TEST

/* server.kv_admission under the same pressure: reserve (TensorRT-LLM's
 * GUARANTEED_NO_EVICT) admits a request only when its peak fits beside
 * every admitted one's, so nothing is preempted and the peak never
 * exceeds the cache; watermark keeps 1 % free and preempts no more than
 * greedy's first-chunk admission; every mode finishes every request. */
START_TEST(test_kv_admission_modes)
{
    struct cl_results g, wm, rs;
    char *tg = kv_text("22GB", 50, 400, 1000, 1000,
                       "server: {max_model_len: 12144}\n");
    char *tw = kv_text("22GB", 50, 400, 1000, 1000,
                       "server: {max_model_len: 12144, kv_admission: "
                       "watermark}\n");
    char *tr = kv_text("22GB", 50, 400, 1000, 1000,
                       "server: {max_model_len: 12144, kv_admission: "
                       "reserve}\n");
    run_text(tg, &g);
    run_text(tw, &wm);
    run_text(tr, &rs);
    ck_assert(g.preemptions > 0);
    ck_assert_uint_eq(rs.preemptions, 0);
    ck_assert_uint_eq(rs.requests_completed, 400);
    ck_assert_uint_eq(wm.requests_completed, 400);
    ck_assert_uint_eq(g.requests_completed, 400);
    ck_assert(wm.preemptions <= g.preemptions);
    ck_assert_int_eq(rs.kv_blocks_end, 0);
    /* Fewer requests in flight at once: each waits longer for its first
     * token, but none is recomputed. */
    ck_assert(rs.ttft_ms.mean > g.ttft_ms.mean);
    printf("# kv_admission: greedy %llu preemptions, E2E %.0f ms; watermark "
           "%llu, %.0f ms; reserve %llu, %.0f ms\n",
           (unsigned long long)g.preemptions, g.e2e_ms.mean,
           (unsigned long long)wm.preemptions, wm.e2e_ms.mean,
           (unsigned long long)rs.preemptions, rs.e2e_ms.mean);
    cl_results_fini(&g);
    cl_results_fini(&wm);
    cl_results_fini(&rs);
    free(tg);
    free(tw);
    free(tr);
}
END_TEST

/* The same pressure with synthetic lengths (no block hashes): with prefix
 * caching (the default) a preempted request's computed prompt blocks stay
 * in the cache under a hash of its own, and its recompute finds them, as
 * vLLM's hash of every full block does; without caching every preemption
 * recomputes from the first token. The re-hits are the only lookups, so
 * they are the hits, and the runs make the same tokens. */
START_TEST(test_kv_preempted_rehits_own_blocks)
{
    struct cl_results on, off;
    char *t_on = kv_text("22GB", 50, 400, 1000, 1000,
                         "server: {max_model_len: 12144}\n");
    char *t_off = kv_text("22GB", 50, 400, 1000, 1000,
                          "server: {max_model_len: 12144, "
                          "prefix_caching: false}\n");
    run_text(t_on, &on);
    run_text(t_off, &off);
    ck_assert(on.preemptions > 0);
    ck_assert(off.preemptions > 0);
    ck_assert(on.prefix_hits_gpu > 0);
    ck_assert_uint_eq(off.prefix_lookup_blocks, 0);
    /* Every lookup is a re-admission after a preemption. */
    ck_assert(on.prefix_lookup_blocks <= on.preemptions * (1000 / 16));
    ck_assert_uint_eq(on.output_tokens, off.output_tokens);
    ck_assert_int_eq(on.kv_blocks_end, 0);
    /* Recomputing less, the cached run ends no later. */
    ck_assert(on.sim_time_s <= off.sim_time_s);
    printf("# rehits: %llu preemptions, %llu of %llu blocks hit; without "
           "caching %llu preemptions\n",
           (unsigned long long)on.preemptions,
           (unsigned long long)on.prefix_hits_gpu,
           (unsigned long long)on.prefix_lookup_blocks,
           (unsigned long long)off.preemptions);
    cl_results_fini(&on);
    cl_results_fini(&off);
    free(t_on);
    free(t_off);
}
END_TEST

/* Speculative decoding (server.speculative, docs/serving.md): a decoder
 * emits tau tokens a step on average and grows its KV every floor(16 /
 * tau) steps. With every draft accepted (acceptance 1, one drafted token)
 * each step emits exactly 2 tokens: a lone request of 1 + 33 tokens still
 * peaks at 3 blocks (growths at its steps 7 and 15 of 16), decoding takes
 * half the steps, and nothing leaks. Under KV pressure every request still
 * finishes, deterministically, and reserve admission never preempts. */
START_TEST(test_kv_speculative)
{
    static const char *spec1 =
        "server: {speculative: {method: ngram, tokens: 1, acceptance: 1}}\n";
    struct cl_results plain, sp, a, b, rs;
    char *tp = kv_text("80GB", 2, 200, 500, 100, "");
    char *ts = kv_text("80GB", 2, 200, 500, 100, spec1);
    char *tk = kv_text("22GB", 50, 400, 1000, 1000,
                       "server: {max_model_len: 12144, speculative: {method: "
                       "ngram, tokens: 3, acceptance: 0.6}}\n");
    char *tr = kv_text("22GB", 50, 400, 1000, 1000,
                       "server: {max_model_len: 12144, kv_admission: reserve, "
                       "speculative: {method: ngram, tokens: 3, acceptance: "
                       "0.6}}\n");
    char *ja, *jb;

    ck_assert_int_eq(lone_peak(1, 33, spec1), 3);
    ck_assert_int_eq(lone_peak(16, 2, spec1), 2);
    run_text(tp, &plain);
    run_text(ts, &sp);
    ck_assert_uint_eq(sp.requests_completed, 200);
    ck_assert_uint_eq(sp.output_tokens, 200 * 100);
    ck_assert_int_eq(sp.kv_blocks_end, 0);
    /* 99 tokens after the first in 50 steps, each a little longer than a
     * plain step (two query tokens a sequence): TPOT well under plain's
     * and above half of it. */
    ck_assert(sp.tpot_ms.mean < 0.7 * plain.tpot_ms.mean);
    ck_assert(sp.tpot_ms.mean > 0.5 * plain.tpot_ms.mean * 50.0 / 99.0);
    printf("# speculative: TPOT %.3f ms plain, %.3f ms ngram (acceptance 1)\n",
           plain.tpot_ms.mean, sp.tpot_ms.mean);

    run_text(tk, &a);
    run_text(tk, &b);
    run_text(tr, &rs);
    ck_assert_uint_eq(a.requests_completed, 400);
    ck_assert_uint_eq(a.output_tokens, 400 * 1000);
    ck_assert_int_eq(a.kv_blocks_end, 0);
    ja = rpt_summary_json(&a, 0);
    jb = rpt_summary_json(&b, 0);
    ck_assert_str_eq(ja, jb);
    ck_assert_uint_eq(rs.requests_completed, 400);
    ck_assert_uint_eq(rs.preemptions, 0);
    ck_assert_int_eq(rs.kv_blocks_end, 0);
    printf("# speculative under kv pressure: %llu preemptions greedy, %llu "
           "reserve\n",
           (unsigned long long)a.preemptions,
           (unsigned long long)rs.preemptions);
    free(ja);
    free(jb);
    cl_results_fini(&plain);
    cl_results_fini(&sp);
    cl_results_fini(&a);
    cl_results_fini(&b);
    cl_results_fini(&rs);
    free(tp);
    free(ts);
    free(tk);
    free(tr);
}
END_TEST

static Suite *kv_suite(void)
{
    Suite *s = suite_create("models_kv");
    TCase *tc = tcase_create("paged");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kv_block_rounding);
    tcase_add_test(tc, test_kv_no_pressure_no_preemption);
    tcase_add_test(tc, test_kv_pressure_preempts_and_drains);
    tcase_add_test(tc, test_kv_admission_modes);
    tcase_add_test(tc, test_kv_preempted_rehits_own_blocks);
    tcase_add_test(tc, test_kv_speculative);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(kv_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
