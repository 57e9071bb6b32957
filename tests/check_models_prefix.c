/*
 * Check suite for prefix caching, KV offload tiers and swap preemption of
 * LLM replicas (models/cluster/llm.c, kvcache.c) and the multi-turn
 * session generator (models/workload/sessions.c): the hit rate of a
 * hand-made Mooncake trace with known reuse, the fetch time of offloaded
 * blocks computed by hand, block accounting when a trace drains, swap
 * preemption under pressure, and (when ../shared is there) the real
 * Mooncake conversation trace.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/cluster/cluster.h"
#include "models/cluster/kvcache.h"
#include "reports/summary.h"
#include "scenarios/load.h"
#include "tests/run-fixture.h"

static char tmpdir[] = "/tmp/dsec-prefix-XXXXXX";

static void run_text(const char *text, struct cl_results *res)
{
    run_fixture_text(text, tmpdir, res);
}

/* Writes lines (NULL-terminated) to tmpdir/name. */
static void write_trace(const char *name, const char *const *lines)
{
    char *path = xasprintf("%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (int i = 0; lines[i] != NULL; i++)
        fprintf(fp, "%s\n", lines[i]);
    fclose(fp);
    free(path);
}

/* Llama-3.1-8B, one replica on an H100 with hbm bytes, replaying trace,
 * with KV offload when offload is 1. */
static char *trace_text(const char *trace, const char *hbm, int offload,
                        const char *extra)
{
    return xasprintf("seed: 1\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  trace: {format: mooncake, path: %s}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: %s}]\n"
                     "deploy: {tp: 1}\n"
                     "cluster: {replicas: 1, kv_cache_offload: %s}\n"
                     "metrics: {warmup_fraction: 0}\n"
                     "%s",
                     trace, hbm, offload ? "true" : "false", extra);
}

/* Four requests 10 s apart (each done before the next), 512-token hash
 * blocks, 16-token engine blocks: 64 + 64 + 96 + 37 hashed blocks looked
 * up (the last prompt of 600 tokens has 37 full blocks), of which
 * 0 + 32 (first 512 tokens shared) + 64 (first 1024) + 0 hit. */
static const char *const known[] = {
    "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 10, "
    "\"hash_ids\": [1, 2]}",
    "{\"timestamp\": 10000, \"input_length\": 1024, \"output_length\": 10, "
    "\"hash_ids\": [1, 3]}",
    "{\"timestamp\": 20000, \"input_length\": 1536, \"output_length\": 10, "
    "\"hash_ids\": [1, 2, 4]}",
    "{\"timestamp\": 30000, \"input_length\": 600, \"output_length\": 10, "
    "\"hash_ids\": [5, 6]}",
    NULL,
};

START_TEST(test_prefix_known_hit_rate)
{
    struct cl_results on, off;
    char *t_on, *t_off, *j;
    write_trace("known.jsonl", known);
    t_on = trace_text("known.jsonl", "80GB", 0,
                      "server: {prefix_caching: true}\n");
    t_off = trace_text("known.jsonl", "80GB", 0,
                       "server: {prefix_caching: false}\n");
    run_text(t_on, &on);
    run_text(t_off, &off);
    ck_assert_uint_eq(on.requests_completed, 4);
    ck_assert_uint_eq(on.prefix_lookup_blocks, 261);
    ck_assert_uint_eq(on.prefix_hits_gpu, 96);
    ck_assert_uint_eq(on.prefix_hits_host, 0);
    ck_assert_double_eq_tol(on.prefix_hit_rate, 96.0 / 261.0, 1e-12);
    ck_assert_int_eq(on.kv_blocks_end, 0);
    /* Caching off: no lookups, and hits make first tokens come sooner. */
    ck_assert(isnan(off.prefix_hit_rate));
    ck_assert_uint_eq(off.prefix_lookup_blocks, 0);
    ck_assert(on.ttft_ms.mean < off.ttft_ms.mean);
    ck_assert(on.ttft_ms.max <= off.ttft_ms.max);
    j = rpt_summary_json(&on, 0);
    ck_assert_ptr_nonnull(strstr(j, "\"prefix_hit_rate\""));
    free(j);
    cl_results_fini(&on);
    cl_results_fini(&off);
    free(t_on);
    free(t_off);
}
END_TEST

/* Mapping of source blocks onto engine blocks: equal source ids at the
 * same position give equal engine hashes, a different position or id a
 * different one; only full prompt blocks have hashes. */
START_TEST(test_prefix_block_hash_mapping)
{
    const uint64_t a[] = {7, 8}, b[] = {7, 9};
    ck_assert_uint_eq(cl_kv_block_hash(a, 512, 31, 16),
                      cl_kv_block_hash(b, 512, 31, 16));
    ck_assert_uint_ne(cl_kv_block_hash(a, 512, 32, 16),
                      cl_kv_block_hash(b, 512, 32, 16));
    ck_assert_uint_ne(cl_kv_block_hash(a, 512, 0, 16),
                      cl_kv_block_hash(a, 512, 1, 16));
    ck_assert_int_eq(cl_kv_hashed_blocks(600, 2, 512, 16), 37);
    ck_assert_int_eq(cl_kv_hashed_blocks(2000, 2, 512, 16), 64);
    ck_assert_int_eq(cl_kv_hashed_blocks(15, 1, 512, 16), 0);
    ck_assert_int_eq(cl_kv_hashed_blocks(100, 0, 512, 16), 0);
}
END_TEST

/* Offload: A (4096 tokens, 8 hash blocks) is evicted from HBM by five
 * other 4096-token prompts on a small KV cache, lands in host memory, and
 * comes back for A's second copy as 256 fetched blocks: one transfer of
 * 256 x 16 tokens x 128 KiB (Llama-3.1-8B bf16 KV per token, docs/sources.md
 * §4.3) over PCIe Gen5: 2.5 us + bytes / 63 GB/s (docs/sources.md §2.1, §2.2).
 */
START_TEST(test_offload_fetch_time)
{
    const char *lines[8];
    char buf[7][512];
    struct cl_results r, plain;
    char *t, *tp;
    double bytes = 256.0 * 16 * 131072;
    double want_ns = 2500.0 + bytes / 63e9 * 1e9;
    for (int i = 0; i < 7; i++) {
        int base = i == 6 ? 0 : i * 10;
        snprintf(buf[i], sizeof(buf[i]),
                 "{\"timestamp\": %d, \"input_length\": 4096, "
                 "\"output_length\": 10, \"hash_ids\": [%d, %d, %d, %d, %d, "
                 "%d, %d, %d]}",
                 i * 10000, base + 1, base + 2, base + 3, base + 4, base + 5,
                 base + 6, base + 7, base + 8);
        lines[i] = buf[i];
    }
    lines[7] = NULL;
    write_trace("offload.jsonl", lines);
    t = trace_text("offload.jsonl", "22GB", 1,
                   "server: {prefix_caching: true, max_model_len: 12144}\n");
    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 7);
    ck_assert_uint_eq(r.prefix_hits_host, 256);
    ck_assert_uint_eq(r.prefix_hits_gpu, 0);
    ck_assert_uint_eq(r.kv_fetch_bytes, (uint64_t)bytes);
    ck_assert(r.kv_offload_bytes >= (uint64_t)bytes);
    ck_assert_double_eq_tol(r.kv_transfer_s, want_ns * 1e-9, 1e-9);
    ck_assert_double_eq_tol(r.prefix_hit_rate, 1.0 / 7.0, 1e-12);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    /* Without offload the same trace finds nothing: A was evicted. */
    tp = trace_text("offload.jsonl", "22GB", 0,
                    "server: {prefix_caching: true, max_model_len: 12144}\n");
    run_text(tp, &plain);
    ck_assert_uint_eq(plain.prefix_hits_gpu + plain.prefix_hits_host, 0);
    ck_assert_uint_eq(plain.kv_fetch_bytes, 0);
    printf("# offload: fetch %.6f s for %llu bytes\n", r.kv_transfer_s,
           (unsigned long long)r.kv_fetch_bytes);
    cl_results_fini(&r);
    cl_results_fini(&plain);
    free(t);
    free(tp);
}
END_TEST

/* Synthetic sessions under KV pressure, caching and offload on: every
 * request completes, every block held returns when the trace drains, and
 * the conversation prefixes hit. */
static char *session_text(const char *hbm, const char *extra)
{
    return xasprintf("seed: 5\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 4}\n"
                     "    requests: 400\n"
                     "    prompt_tokens: {dist: fixed, value: 300}\n"
                     "    output_tokens: {dist: fixed, value: 200}\n"
                     "    sessions:\n"
                     "      turns: {dist: uniform, min: 1, max: 6}\n"
                     "      think_time: 5s\n"
                     "      system_prompt_tokens: 1000\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: %s}]\n"
                     "deploy: {tp: 1}\n"
                     "%s",
                     hbm, extra);
}

START_TEST(test_sessions_drain_and_hit)
{
    struct cl_results r, r2;
    char *t = session_text("22GB", "server: {prefix_caching: true, "
                                   "max_model_len: 12144}\n"
                                   "cluster: {replicas: 1, "
                                   "kv_cache_offload: true}\n");
    char *j1, *j2;
    run_text(t, &r);
    run_text(t, &r2);
    ck_assert_uint_eq(r.requests_completed, 400);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    ck_assert(r.prefix_hit_rate > 0.5); /* system prompt + history */
    ck_assert(r.preemptions > 0);
    j1 = rpt_summary_json(&r, 0);
    j2 = rpt_summary_json(&r2, 0);
    ck_assert_str_eq(j1, j2); /* deterministic */
    printf("# sessions: hit rate %.4f, %llu preemptions, host hits %llu\n",
           r.prefix_hit_rate, (unsigned long long)r.preemptions,
           (unsigned long long)r.prefix_hits_host);
    free(j1);
    free(j2);
    cl_results_fini(&r);
    cl_results_fini(&r2);
    free(t);
}
END_TEST

/* The prefix_hit_rate knob: half of each 1000-token prompt, in whole
 * blocks (496 tokens = 31 of 62 blocks), hits. */
START_TEST(test_prefix_knob)
{
    struct cl_results r;
    char *t = xasprintf("model: llama-3.1-8b\n"
                        "workload:\n"
                        "  prefix_hit_rate: 0.5\n"
                        "  synthetic:\n"
                        "    arrival: {process: poisson, rate_per_s: 2}\n"
                        "    requests: 50\n"
                        "    prompt_tokens: {dist: fixed, value: 1000}\n"
                        "    output_tokens: {dist: fixed, value: 20}\n"
                        "server: {prefix_caching: true}\n"
                        "deploy: {tp: 1}\n");
    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, 50);
    ck_assert_uint_eq(r.prefix_lookup_blocks, 50 * 62);
    ck_assert_uint_eq(r.prefix_hits_gpu, 50 * 31);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Preemption under pressure by swap and by recompute: all requests done,
 * all blocks back, every token made once; swap moves bytes both ways and
 * resumes every request it swapped out. */
static char *pressure_text_c(const char *cluster, const char *extra)
{
    return xasprintf("seed: 3\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 50}\n"
                     "    requests: 300\n"
                     "    prompt_tokens: {dist: fixed, value: 1000}\n"
                     "    output_tokens: {dist: fixed, value: 1000}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: 22GB}]\n"
                     "deploy: {tp: 1}\n"
                     "cluster: {replicas: 1%s}\n"
                     "%s",
                     cluster, extra);
}

static char *pressure_text(const char *extra)
{
    return pressure_text_c("", extra);
}

START_TEST(test_swap_preemption)
{
    struct cl_results sw, rc;
    char *ts =
        pressure_text("server: {preemption: swap, max_model_len: 12144}\n");
    char *tr = pressure_text("server: {max_model_len: 12144}\n");
    run_text(ts, &sw);
    run_text(tr, &rc);
    ck_assert_uint_eq(sw.requests_completed, 300);
    ck_assert_uint_eq(rc.requests_completed, 300);
    ck_assert_int_eq(sw.kv_blocks_end, 0);
    ck_assert_int_eq(rc.kv_blocks_end, 0);
    ck_assert_uint_eq(sw.output_tokens, 300 * 1000);
    ck_assert(sw.preemptions > 0);
    ck_assert(sw.swaps_out > 0);
    ck_assert_uint_eq(sw.swaps_in, sw.swaps_out);
    ck_assert(sw.swap_bytes > 0);
    ck_assert(sw.kv_transfer_s > 0);
    ck_assert(rc.preemptions > 0);
    ck_assert_uint_eq(rc.swaps_out, 0);
    ck_assert_uint_eq(rc.swap_bytes, 0);
    printf("# swap: %llu preemptions, %llu swaps, %llu fallbacks, %.3f GB; "
           "recompute: %llu preemptions\n",
           (unsigned long long)sw.preemptions, (unsigned long long)sw.swaps_out,
           (unsigned long long)sw.swap_fallbacks, (double)sw.swap_bytes * 1e-9,
           (unsigned long long)rc.preemptions);
    cl_results_fini(&sw);
    cl_results_fini(&rc);
    free(ts);
    free(tr);
}
END_TEST

/* Priority scheduling under load: the interactive class (priority 0)
 * waits less than the batch class (priority 1), and far less than it does
 * under fcfs, where both classes see the same queue. */
static char *prio_text(const char *sched)
{
    return xasprintf("seed: 2\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  priority_classes:\n"
                     "    - {name: interactive, share: 1, priority: 0}\n"
                     "    - {name: batch, share: 3, priority: 1}\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 40}\n"
                     "    requests: 600\n"
                     "    prompt_tokens: {dist: fixed, value: 1000}\n"
                     "    output_tokens: {dist: fixed, value: 1000}\n"
                     "server: {scheduling: %s, max_model_len: 12144}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: 22GB}]\n"
                     "deploy: {tp: 1}\n"
                     "slo: {ttft_ms: 2000}\n",
                     sched);
}

/* Tiered KV (preemption auto with kv_cache_offload) under the same
 * pressure: preempted requests' KV goes to host memory instead of being
 * recomputed, so every request still finishes with every token once and
 * no block lost (GPU and paused blocks all back at the end, every swap
 * out resumed), and the run is faster than recompute: E2E and TTFT lower,
 * throughput higher. A host tier too small for one request sends the KV
 * to the remote tier; with neither, everything is recomputed. */
START_TEST(test_tiered_offload)
{
    struct cl_results on, off, rem, none;
    const char *off_c = ", kv_cache_offload: true";
    char *t_on = pressure_text_c(off_c, "server: {max_model_len: 12144}\n");
    char *t_off = pressure_text("server: {max_model_len: 12144}\n");
    char *t_rem = pressure_text_c(
        off_c, "server: {max_model_len: 12144, kv_offload: {host: 1MB, "
               "remote: 1TB, remote_link: ib-ndr}}\n");
    char *t_none = pressure_text_c(
        off_c, "server: {max_model_len: 12144, kv_offload: {host: 0}}\n");

    run_text(t_on, &on);
    run_text(t_off, &off);
    run_text(t_rem, &rem);
    run_text(t_none, &none);
    for (int k = 0; k < 4; k++) {
        const struct cl_results *r = k == 0   ? &on
                                     : k == 1 ? &off
                                     : k == 2 ? &rem
                                              : &none;
        ck_assert_uint_eq(r->requests_completed, 300);
        ck_assert_uint_eq(r->output_tokens, 300 * 1000);
        ck_assert_int_eq(r->kv_blocks_end, 0);
        ck_assert_int_eq(r->kv_paused_blocks_end, 0);
        ck_assert_uint_eq(r->swaps_in, r->swaps_out);
        ck_assert(r->preemptions > 0);
    }
    /* Host tier: all of it, both ways; nothing recomputed but requests
     * preempted before their first chunk (nothing to move). */
    ck_assert(on.swaps_out > 0 && on.swaps_out <= on.preemptions);
    ck_assert_uint_eq(on.swap_fallbacks, 0);
    ck_assert(on.kv_seq_host_bytes > 0);
    ck_assert_uint_eq(on.kv_seq_host_bytes, on.swap_bytes);
    ck_assert_uint_eq(on.kv_seq_remote_bytes, 0);
    ck_assert_uint_eq(on.kv_recompute_chosen, 0);
    /* Physically expected direction. */
    ck_assert(on.e2e_ms.mean < off.e2e_ms.mean);
    ck_assert(on.ttft_ms.mean < off.ttft_ms.mean);
    ck_assert(on.throughput_tokens_per_s > off.throughput_tokens_per_s);
    ck_assert_uint_eq(off.swaps_out, 0);
    ck_assert_uint_eq(off.kv_seq_host_bytes, 0);
    /* Remote tier, RDMA. */
    ck_assert(rem.kv_seq_remote_bytes > 0);
    ck_assert_uint_eq(rem.kv_seq_host_bytes, 0);
    /* No room: recomputed, counted. */
    ck_assert_uint_eq(none.swaps_out, 0);
    ck_assert_uint_eq(none.swap_fallbacks, none.preemptions);
    printf("# tiered: e2e %.0f ms vs %.0f ms recompute, ttft %.0f vs %.0f ms, "
           "%.0f vs %.0f tok/s, %llu preemptions vs %llu, %.2f GB host, "
           "stall %.3f s; remote %.2f GB\n",
           on.e2e_ms.mean, off.e2e_ms.mean, on.ttft_ms.mean, off.ttft_ms.mean,
           on.throughput_tokens_per_s, off.throughput_tokens_per_s,
           (unsigned long long)on.preemptions,
           (unsigned long long)off.preemptions,
           (double)on.kv_seq_host_bytes * 1e-9, on.kv_stall_s,
           (double)rem.kv_seq_remote_bytes * 1e-9);
    cl_results_fini(&on);
    cl_results_fini(&off);
    cl_results_fini(&rem);
    cl_results_fini(&none);
    free(t_on);
    free(t_off);
    free(t_rem);
    free(t_none);
}
END_TEST

/* Live migration on scale-in: a burst of long requests, then a lull; the
 * policy scales in and a drained replica's requests move with their KV.
 * Every request finishes, every output token is made exactly once (the
 * series' generated tokens add up to the completed requests' outputs, so
 * a move neither loses nor repeats one), nothing is left held, and the
 * drains take less GPU time than finishing in place. */
static char *mig_text_with(const char *drain, const char *params)
{
    return xasprintf("seed: 4\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival:\n"
                     "      process: poisson\n"
                     "      rate_per_s: 4\n"
                     "      steps: [{at: 5min, multiplier: 0.1}]\n"
                     "    duration: 12min\n"
                     "    prompt_tokens: {dist: fixed, value: 1000}\n"
                     "    output_tokens: {dist: fixed, value: 3000}\n"
                     "hardware: {gpu: h100}\n"
                     "deploy: {tp: 1}\n"
                     "server: {max_num_seqs: 32}\n"
                     "cluster: {min_gpus: 1, max_gpus: 6, initial_gpus: 6, "
                     "target_latency_ms: 40, drain: %s}\n"
                     "policy: {name: target-latency, interval: 30s%s}\n",
                     drain, params);
}

static char *mig_text(const char *drain)
{
    return mig_text_with(drain, "");
}

START_TEST(test_migration_conserves)
{
    struct cl_results m, f;
    char *tm = mig_text("migrate"), *tf = mig_text("finish");

    run_text(tm, &m);
    run_text(tf, &f);
    for (int k = 0; k < 2; k++) {
        const struct cl_results *r = k == 0 ? &m : &f;
        uint64_t gen = 0;
        for (size_t i = 0; i < r->nreplica_series; i++)
            gen += r->replica_series[i].generation_tokens;
        ck_assert_uint_eq(r->requests_completed, r->requests_arrived);
        ck_assert_uint_eq(r->output_tokens, r->requests_completed * 3000);
        ck_assert_uint_eq(gen, r->output_tokens);
        ck_assert_int_eq(r->kv_blocks_end, 0);
    }
    ck_assert_uint_eq(m.migrate_on, 1);
    ck_assert(m.migrations > 0);
    ck_assert(m.migration_bytes > 0);
    ck_assert(m.migration_downtime_ms_mean > 0);
    ck_assert_uint_eq(f.migrations, 0);
    ck_assert(m.gpu_hours_by_state[CL_GS_DRAINING] <
              f.gpu_hours_by_state[CL_GS_DRAINING]);
    printf("# migration: %llu requests, %.2f GB, downtime %.3f ms mean; "
           "draining %.4f vs %.4f GPU-h (finish); e2e p99 %.0f vs %.0f ms\n",
           (unsigned long long)m.migrations, (double)m.migration_bytes * 1e-9,
           m.migration_downtime_ms_mean, m.gpu_hours_by_state[CL_GS_DRAINING],
           f.gpu_hours_by_state[CL_GS_DRAINING], m.e2e_ms.p99, f.e2e_ms.p99);
    cl_results_fini(&m);
    cl_results_fini(&f);
    free(tm);
    free(tf);
}
END_TEST

/* The policy names the drain mode of its removals (target-latency's
 * scale_in): under cluster.drain: finish, scale_in: migrate moves the
 * removed replicas' requests with their KV, as cluster.drain: migrate
 * does, and conserves requests and tokens; the draining GPU-hours fall.
 * scale_in: finish under cluster.drain: migrate moves none, and
 * scale_in: default is the deployment's mode: the same run as without
 * the key. */
START_TEST(test_migration_by_policy)
{
    struct cl_results pm, f, fd, m, mf;
    char *t_pm = mig_text_with("finish", ", params: {scale_in: migrate}");
    char *t_f = mig_text("finish");
    char *t_fd = mig_text_with("finish", ", params: {scale_in: default}");
    char *t_m = mig_text("migrate");
    char *t_mf = mig_text_with("migrate", ", params: {scale_in: finish}");

    run_text(t_pm, &pm);
    run_text(t_f, &f);
    run_text(t_fd, &fd);
    run_text(t_m, &m);
    run_text(t_mf, &mf);
    for (int k = 0; k < 2; k++) {
        const struct cl_results *r = k == 0 ? &pm : &mf;
        uint64_t gen = 0;
        for (size_t i = 0; i < r->nreplica_series; i++)
            gen += r->replica_series[i].generation_tokens;
        ck_assert_uint_eq(r->requests_completed, r->requests_arrived);
        ck_assert_uint_eq(r->output_tokens, r->requests_completed * 3000);
        ck_assert_uint_eq(gen, r->output_tokens);
        ck_assert_int_eq(r->kv_blocks_end, 0);
    }
    /* The policy scaled in, and its removals migrated. */
    ck_assert(pm.scale_events > 0);
    ck_assert_uint_eq(pm.migrate_on, 1);
    ck_assert(pm.migrations > 0);
    ck_assert(pm.migration_bytes > 0);
    ck_assert(pm.gpu_hours_by_state[CL_GS_DRAINING] <
              f.gpu_hours_by_state[CL_GS_DRAINING]);
    /* Every drain here is the policy's: the same moves as cluster-wide. */
    ck_assert_uint_eq(pm.migrations, m.migrations);
    ck_assert_uint_eq(pm.migration_bytes, m.migration_bytes);
    /* finish overrides cluster.drain: migrate. */
    ck_assert_uint_eq(mf.migrations, 0);
    ck_assert(mf.gpu_hours_by_state[CL_GS_DRAINING] >
              m.gpu_hours_by_state[CL_GS_DRAINING]);
    ck_assert(mf.e2e_ms.mean == f.e2e_ms.mean);
    /* default is no override: the run without the key. */
    ck_assert_uint_eq(fd.migrate_on, 0);
    ck_assert_uint_eq(f.migrate_on, 0);
    ck_assert(fd.e2e_ms.mean == f.e2e_ms.mean);
    ck_assert(fd.gpu_hours == f.gpu_hours);
    printf("# policy scale_in: migrate: %llu requests moved, draining %.6f "
           "vs %.6f GPU-h (finish), e2e mean %.0f vs %.0f ms\n",
           (unsigned long long)pm.migrations,
           pm.gpu_hours_by_state[CL_GS_DRAINING],
           f.gpu_hours_by_state[CL_GS_DRAINING], pm.e2e_ms.mean, f.e2e_ms.mean);
    cl_results_fini(&pm);
    cl_results_fini(&f);
    cl_results_fini(&fd);
    cl_results_fini(&m);
    cl_results_fini(&mf);
    free(t_pm);
    free(t_f);
    free(t_fd);
    free(t_m);
    free(t_mf);
}
END_TEST

/* cluster.rebalance under KV pressure on two replicas that round-robin
 * routing loads unevenly (long and short answers alternate): requests
 * move from the fuller to the freer one, every request and token is
 * conserved, and the same seed gives the same moves. */
static char *reb_text(const char *rebalance)
{
    return xasprintf("seed: 6\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 6}\n"
                     "    requests: 400\n"
                     "    prompt_tokens: {dist: fixed, value: 2000}\n"
                     "    output_tokens: {dist: lognormal, mean: 1500, sd: "
                     "1500, max: 8000}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: 24GB}]\n"
                     "deploy: {tp: 1}\n"
                     "server: {max_model_len: 12144}\n"
                     "cluster: {replicas: 2, routing: round-robin, "
                     "rebalance: %s}\n",
                     rebalance);
}

START_TEST(test_rebalance_moves_and_conserves)
{
    struct cl_results on, on2, off;
    char *ton = reb_text("5s"), *toff = reb_text("0s");

    run_text(ton, &on);
    run_text(ton, &on2);
    run_text(toff, &off);
    for (int k = 0; k < 2; k++) {
        const struct cl_results *r = k == 0 ? &on : &off;
        uint64_t gen = 0;
        for (size_t i = 0; i < r->nreplica_series; i++)
            gen += r->replica_series[i].generation_tokens;
        ck_assert_uint_eq(r->requests_completed, 400);
        ck_assert_uint_eq(gen, r->output_tokens);
        ck_assert_int_eq(r->kv_blocks_end, 0);
    }
    ck_assert(on.migrations > 0);
    ck_assert_uint_eq(on.migrations, on2.migrations);
    ck_assert_uint_eq(on.migration_bytes, on2.migration_bytes);
    ck_assert_uint_eq(off.migrations, 0);
    ck_assert_uint_eq(off.migrate_on, 0);
    printf("# rebalance: %llu moves, %.2f GB, downtime %.3f ms; preemptions "
           "%llu vs %llu, e2e p99 %.0f vs %.0f ms\n",
           (unsigned long long)on.migrations, (double)on.migration_bytes * 1e-9,
           on.migration_downtime_ms_mean, (unsigned long long)on.preemptions,
           (unsigned long long)off.preemptions, on.e2e_ms.p99, off.e2e_ms.p99);
    cl_results_fini(&on);
    cl_results_fini(&on2);
    cl_results_fini(&off);
    free(ton);
    free(toff);
}
END_TEST

/* cluster.defrag, by hand: three replicas of 60,202 KV tokens (3,762
 * blocks of 16; llama-3.1-8b on a 29 GB GPU), six requests of 14,000 +
 * 4,000 tokens routed two to each (least-outstanding, ties to the lowest
 * slot), then at 5 s a 40,000-token prompt sent to the first. Each
 * replica then holds two decoders of about 14,500 tokens, so about
 * 31,000 tokens are free on each: the prompt fits none (fragmentation),
 * but moving one decoder (peak 18,000 tokens) to another replica, which
 * then holds 3 x 18,000 = 54,000 at most, frees about 14,500, enough:
 * exactly one move. Without it the prompt's chunks run out of blocks,
 * it preempts itself and waits for a decoder to finish (about 30 s). */
static void defrag_trace(void)
{
    static char buf[7][160];
    const char *lines[8];
    for (int i = 0; i < 7; i++) {
        snprintf(buf[i], sizeof(buf[i]),
                 "{\"timestamp\": %d, \"input_length\": %d, "
                 "\"output_length\": %d, \"hash_ids\": []}",
                 i < 6 ? i * 100 : 5000, i < 6 ? 14000 : 40000,
                 i < 6 ? 4000 : 10);
        lines[i] = buf[i];
    }
    lines[7] = NULL;
    write_trace("defrag.jsonl", lines);
}

static char *defrag_text(const char *defrag, int gpus_per_node)
{
    return xasprintf("seed: 1\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  trace: {format: mooncake, path: defrag.jsonl}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus_per_node: %d\n"
                     "  gpus: [{name: small, base: h100, hbm: 29GB}]\n"
                     "deploy: {tp: 1}\n"
                     "server: {max_model_len: 60000}\n"
                     "cluster: {replicas: 3, defrag: %s}\n"
                     "metrics: {warmup_fraction: 0}\n",
                     gpus_per_node, defrag);
}

START_TEST(test_defrag_admits_long_prompt)
{
    struct cl_results on, on2, off, far;
    char *ton = defrag_text("true", 8), *toff = defrag_text("false", 8);
    char *tfar = defrag_text("true", 1), *j1, *j2;

    defrag_trace();
    run_text(ton, &on);
    run_text(ton, &on2);
    run_text(toff, &off);
    run_text(tfar, &far);
    for (int k = 0; k < 3; k++) {
        const struct cl_results *r = k == 0 ? &on : k == 1 ? &off : &far;
        uint64_t gen = 0;
        for (size_t i = 0; i < r->nreplica_series; i++)
            gen += r->replica_series[i].generation_tokens;
        ck_assert_uint_eq(r->requests_completed, 7);
        ck_assert_uint_eq(r->output_tokens, 6 * 4000 + 10);
        ck_assert_uint_eq(gen, r->output_tokens);
        ck_assert_int_eq(r->kv_blocks_end, 0);
    }
    /* One move, made for the prompt; none without defrag. */
    ck_assert_uint_eq(on.migrations, 1);
    ck_assert_uint_eq(on.migration_defrag, 1);
    ck_assert_uint_eq(on.preemptions, 0);
    ck_assert_uint_eq(off.migrations, 0);
    ck_assert_uint_eq(off.migrate_on, 0);
    /* Without it the prompt waits for a decoder to finish (its first
     * token after more than 10 s, a preemption on the way); with it, it
     * is admitted at once (its prefill takes about a second). */
    ck_assert(off.ttft_ms.max > 10000);
    ck_assert(off.preemptions >= 1);
    ck_assert(on.ttft_ms.max < 3000);
    /* Placement: the three replicas of one GPU share a node of 8 (all
     * bytes over NVLink) or each has its own (none); the same bytes move,
     * NVLink's in less time. */
    ck_assert_uint_eq(on.migration_bytes_nvlink, on.migration_bytes);
    ck_assert_uint_eq(far.migration_bytes_nvlink, 0);
    ck_assert_uint_eq(far.migration_defrag, 1);
    ck_assert(on.migration_downtime_ms_mean < far.migration_downtime_ms_mean);
    /* The slower pre-copy lets the decoder make a few more tokens, whose
     * KV the stop then copies: the same bytes within 0.1 %. */
    ck_assert(far.migration_bytes >= on.migration_bytes);
    ck_assert((double)(far.migration_bytes - on.migration_bytes) <
              1e-3 * (double)on.migration_bytes);
    /* Deterministic. */
    j1 = rpt_summary_json(&on, 0);
    j2 = rpt_summary_json(&on2, 0);
    ck_assert_str_eq(j1, j2);
    ck_assert_ptr_nonnull(strstr(j1, "\"bytes_nvlink\""));
    printf("# defrag: long prompt TTFT %.0f vs %.0f ms (off); %.2f GB, "
           "downtime %.4f ms over NVLink vs %.4f ms across nodes\n",
           on.ttft_ms.max, off.ttft_ms.max, (double)on.migration_bytes * 1e-9,
           on.migration_downtime_ms_mean, far.migration_downtime_ms_mean);
    free(j1);
    free(j2);
    cl_results_fini(&on);
    cl_results_fini(&on2);
    cl_results_fini(&off);
    cl_results_fini(&far);
    free(ton);
    free(toff);
    free(tfar);
}
END_TEST

/* cluster.defrag (with and without rebalance) on four replicas that
 * round-robin routing loads unevenly, prompts of up to 20,000 tokens in
 * caches of 25,872: every request completes (but the one longer than
 * max_model_len), every output token is made once, nothing stays held,
 * some moves are made for waiting prompts, and the same seed gives the
 * same results. */
static char *defrag_load_text(const char *extra)
{
    return xasprintf("seed: 6\n"
                     "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 6}\n"
                     "    requests: 400\n"
                     "    prompt_tokens: {dist: lognormal, mean: 6000, sd: "
                     "6000, max: 20000}\n"
                     "    output_tokens: {dist: lognormal, mean: 1500, sd: "
                     "1500, max: 8000}\n"
                     "hardware:\n"
                     "  gpu: small\n"
                     "  gpus: [{name: small, base: h100, hbm: 24GB}]\n"
                     "deploy: {tp: 1}\n"
                     "server: {max_model_len: 25000}\n"
                     "cluster: {replicas: 4, routing: round-robin, "
                     "defrag: true%s}\n",
                     extra);
}

START_TEST(test_defrag_conserves)
{
    struct cl_results d, d2, b;
    char *td = defrag_load_text("");
    char *tb = defrag_load_text(", rebalance: 5s");
    char *j1, *j2;

    run_text(td, &d);
    run_text(td, &d2);
    run_text(tb, &b);
    for (int k = 0; k < 2; k++) {
        const struct cl_results *r = k == 0 ? &d : &b;
        uint64_t gen = 0;
        for (size_t i = 0; i < r->nreplica_series; i++)
            gen += r->replica_series[i].generation_tokens;
        ck_assert_uint_eq(r->requests_completed + r->requests_dropped, 400);
        ck_assert_uint_eq(gen, r->output_tokens);
        ck_assert_int_eq(r->kv_blocks_end, 0);
        ck_assert_uint_eq(r->migrate_on, 1);
        ck_assert(r->migration_defrag > 0);
        ck_assert(r->migration_defrag <= r->migrations);
    }
    j1 = rpt_summary_json(&d, 0);
    j2 = rpt_summary_json(&d2, 0);
    ck_assert_str_eq(j1, j2);
    printf("# defrag under pressure: %llu moves (%llu defrag), with "
           "rebalance %llu (%llu); preemptions %llu, %llu\n",
           (unsigned long long)d.migrations,
           (unsigned long long)d.migration_defrag,
           (unsigned long long)b.migrations,
           (unsigned long long)b.migration_defrag,
           (unsigned long long)d.preemptions,
           (unsigned long long)b.preemptions);
    free(j1);
    free(j2);
    cl_results_fini(&d);
    cl_results_fini(&d2);
    cl_results_fini(&b);
    free(td);
    free(tb);
}
END_TEST

START_TEST(test_priority_order)
{
    struct cl_results p, f;
    char *tp = prio_text("priority"), *tf = prio_text("fcfs");
    char *j;
    run_text(tp, &p);
    run_text(tf, &f);
    ck_assert_uint_eq(p.requests_completed, 600);
    ck_assert_int_eq(p.nclasses, 2);
    ck_assert_str_eq(p.classes[0].name, "interactive");
    ck_assert_uint_eq(p.classes[0].completed + p.classes[1].completed,
                      p.ttft_ms.n);
    ck_assert(p.classes[0].completed > 0 && p.classes[1].completed > 0);
    ck_assert(p.classes[0].ttft_mean_ms < p.classes[1].ttft_mean_ms);
    ck_assert(p.classes[0].ttft_mean_ms < f.classes[0].ttft_mean_ms);
    ck_assert_int_eq(p.kv_blocks_end, 0);
    /* Same arrivals and class draws under both policies. */
    ck_assert_uint_eq(p.classes[0].completed, f.classes[0].completed);
    j = rpt_summary_json(&p, 0);
    ck_assert_ptr_nonnull(strstr(j, "\"priority_classes\""));
    printf("# priority: ttft interactive %.1f ms, batch %.1f ms; fcfs %.1f / "
           "%.1f ms\n",
           p.classes[0].ttft_mean_ms, p.classes[1].ttft_mean_ms,
           f.classes[0].ttft_mean_ms, f.classes[1].ttft_mean_ms);
    free(j);
    cl_results_fini(&p);
    cl_results_fini(&f);
    free(tp);
    free(tf);
}
END_TEST

/* P/D disaggregation: one request, alone, on one prefill and one decode
 * replica. Its prefill iteration is the same as on a colocated replica, so
 * its TTFT is longer by exactly the KV transfer: 4.0 us + 2,000 tokens x
 * 128 KiB / (0.96 x 50 GB/s) over roce-400 (docs/sources.md §2.1-2.3). Its
 * tokens are all made, and blocks return on both groups. */
static char *pd_text(const char *deploy)
{
    return xasprintf("model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 0.01}\n"
                     "    requests: 1\n"
                     "    prompt_tokens: {dist: fixed, value: 2000}\n"
                     "    output_tokens: {dist: fixed, value: 50}\n"
                     "metrics: {warmup_fraction: 0}\n"
                     "deploy: {tp: 1%s}\n",
                     deploy);
}

START_TEST(test_pd_transfer_in_ttft)
{
    struct cl_results pd, co;
    char *tpd = pd_text(", disaggregation: {prefill_replicas: 1, "
                        "decode_replicas: 1, kv_link: roce-400}");
    char *tco = pd_text("");
    double want_ms = (4000.0 + 2000.0 * 131072 / (0.96 * 50e9) * 1e9) * 1e-6;
    run_text(tpd, &pd);
    run_text(tco, &co);
    ck_assert_uint_eq(pd.requests_completed, 1);
    ck_assert_uint_eq(pd.output_tokens, 50);
    ck_assert_uint_eq(pd.pd_transfers, 1);
    ck_assert_uint_eq(pd.pd_bytes, 2000 * 131072);
    ck_assert_double_eq_tol(pd.pd_transfer_ms_mean, want_ms, 1e-6);
    ck_assert_double_eq_tol(pd.ttft_ms.mean - co.ttft_ms.mean, want_ms, 2e-6);
    /* Alone on idle replicas it never queues: its queue time ends at the
     * prefill admission, not at the decode side's. */
    ck_assert_double_eq_tol(pd.queue_ms.mean, co.queue_ms.mean, 1e-9);
    ck_assert_int_eq(pd.kv_blocks_end, 0);
    ck_assert_int_eq(pd.replicas_max, 2);
    printf("# p/d: ttft %.3f ms vs %.3f colocated (transfer %.3f ms)\n",
           pd.ttft_ms.mean, co.ttft_ms.mean, pd.pd_transfer_ms_mean);
    cl_results_fini(&pd);
    cl_results_fini(&co);
    free(tpd);
    free(tco);
}
END_TEST

/* P/D under load: every request completes, blocks drain, one transfer per
 * request with more than one output token. */
START_TEST(test_pd_load)
{
    struct cl_results r;
    char *t =
        xasprintf("model: llama-3.1-8b\n"
                  "workload:\n"
                  "  synthetic:\n"
                  "    arrival: {process: poisson, rate_per_s: 20}\n"
                  "    requests: 500\n"
                  "    prompt_tokens: {dist: lognormal, mean: 2000, sd: 1000}\n"
                  "    output_tokens: {dist: uniform, min: 1, max: 400}\n"
                  "hardware:\n"
                  "  gpu: small\n"
                  "  gpus: [{name: small, base: h100, hbm: 22GB}]\n"
                  "deploy: {tp: 1, disaggregation: {prefill_replicas: 1, "
                  "decode_replicas: 2}}\n"
                  "server: {max_model_len: 12144}\n"
                  "cluster: {replicas: 3}\n");
    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed + r.requests_dropped, 500);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    ck_assert(r.pd_transfers > 0 && r.pd_transfers <= 500);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Loads text, expecting exactly the error want (file:line:col: ...). */
static void expect_error(const char *text, const char *want)
{
    struct cl_scenario scn;
    struct sim_diag d;
    char *got;
    sim_diag_init(&d);
    ck_assert_int_ne(scn_string_load("bad.yaml", text, strlen(text), &scn, &d),
                     0);
    ck_assert_int_ge(d.n, 1);
    got = sim_diag_format(&d, 0);
    ck_assert_str_eq(got, want);
    free(got);
    sim_diag_fini(&d);
}

START_TEST(test_bad_keys)
{
    expect_error("model: llama-3.1-8b\n"
                 "workload:\n"
                 "  prefix_hit_rate: 0.5\n"
                 "  synthetic:\n"
                 "    arrival: {rate_per_s: 1}\n"
                 "    requests: 5\n"
                 "    prompt_tokens: {dist: fixed, value: 100}\n"
                 "    output_tokens: {dist: fixed, value: 10}\n"
                 "server: {prefix_caching: false}\n",
                 "bad.yaml:3:3: error: workload.prefix_hit_rate: needs "
                 "server.prefix_caching: true");
    expect_error("model: llama-3.1-8b\n"
                 "workload:\n"
                 "  synthetic:\n"
                 "    arrival: {rate_per_s: 1}\n"
                 "    requests: 5\n"
                 "    prompt_tokens: {dist: fixed, value: 100}\n"
                 "    output_tokens: {dist: fixed, value: 10}\n"
                 "deploy: {disaggregation: {prefill_replicas: 1, "
                 "decode_replicas: 2}}\n"
                 "cluster: {replicas: 2}\n",
                 "bad.yaml:9:21: error: cluster.replicas: 2 differs from "
                 "deploy.disaggregation prefill_replicas + decode_replicas "
                 "= 3");
    expect_error("model: llama-3.1-8b\n"
                 "workload:\n"
                 "  synthetic:\n"
                 "    arrival: {rate_per_s: 1}\n"
                 "    requests: 5\n"
                 "    prompt_tokens: {dist: fixed, value: 100}\n"
                 "    output_tokens: {dist: fixed, value: 10}\n"
                 "server: {preemption: swop}\n",
                 "bad.yaml:8:22: error: server.preemption: unknown preemption "
                 "'swop'; valid: auto, recompute, swap");
}
END_TEST

/* The real Mooncake conversation trace (read from ../shared when present;
 * never committed): its hit rate emerges from hash_ids. */
START_TEST(test_mooncake_conversation)
{
    /* make check runs in the build directory; ../shared sits beside the
     * checkout (the top source directory's parent). The scenario's paths
     * are relative to tmpdir, so the path is made absolute. */
    const char *top = getenv("top_srcdir") ? getenv("top_srcdir") : "..";
    char cwd[4096];
    struct cl_results r;
    char *t, *path;
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        return;
    path = xasprintf("%s%s%s/../shared/traces/mooncake-fast25/"
                     "conversation_trace.jsonl",
                     top[0] == '/' ? "" : cwd, top[0] == '/' ? "" : "/", top);
    if (access(path, R_OK) != 0) {
        printf("# skip: %s not found\n", path);
        free(path);
        return;
    }
    t = xasprintf("model: llama-3.1-8b\n"
                  "workload:\n"
                  "  trace: {format: mooncake, path: %s, requests: 2000}\n"
                  "server: {prefix_caching: true}\n"
                  "hardware: {gpu: h100}\n"
                  "deploy: {tp: 1}\n"
                  "cluster: {replicas: 4}\n",
                  path);
    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed + r.requests_dropped, 2000);
    ck_assert(r.prefix_hit_rate > 0 && r.prefix_hit_rate < 1);
    ck_assert_int_eq(r.kv_blocks_end, 0);
    printf("# mooncake conversation (2000 requests): hit rate %.4f\n",
           r.prefix_hit_rate);
    cl_results_fini(&r);
    free(t);
    free(path);
}
END_TEST

static Suite *prefix_suite(void)
{
    Suite *s = suite_create("models_prefix");
    TCase *tc = tcase_create("prefix");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_prefix_block_hash_mapping);
    tcase_add_test(tc, test_prefix_known_hit_rate);
    tcase_add_test(tc, test_offload_fetch_time);
    tcase_add_test(tc, test_prefix_knob);
    tcase_add_test(tc, test_sessions_drain_and_hit);
    tcase_add_test(tc, test_swap_preemption);
    tcase_add_test(tc, test_tiered_offload);
    tcase_add_test(tc, test_migration_conserves);
    tcase_add_test(tc, test_migration_by_policy);
    tcase_add_test(tc, test_rebalance_moves_and_conserves);
    tcase_add_test(tc, test_defrag_admits_long_prompt);
    tcase_add_test(tc, test_defrag_conserves);
    tcase_add_test(tc, test_priority_order);
    tcase_add_test(tc, test_pd_transfer_in_ttft);
    tcase_add_test(tc, test_pd_load);
    tcase_add_test(tc, test_bad_keys);
    tcase_add_test(tc, test_mooncake_conversation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr;
    int failed;
    char *cmd;
    if (mkdtemp(tmpdir) == NULL)
        return EXIT_FAILURE;
    sr = srunner_create(prefix_suite());
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    cmd = xasprintf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        failed++;
    free(cmd);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
