/*
 * The "step" suite: the per-operator step-time model
 * (models/perf/roofline.h), its calibration profiles (models/perf/calib.h)
 * and decode saturation. Expected values are worked by hand in the
 * comments from docs/sources.md figures and the built-in calibration
 * (models/perf/calib.c), so that a change to a formula or a default shows
 * up here.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/perf/roofline.h"
#include "base/errors.h"
#include "base/xalloc.h"

static const struct arch_spec *must_arch(const char *name)
{
    const struct arch_spec *a = arch_find(name);

    ck_assert_ptr_nonnull(a);
    return a;
}

static const struct gpu_spec *must_gpu(const char *name)
{
    const struct gpu_spec *g = gpu_find(name);

    ck_assert_ptr_nonnull(g);
    return g;
}

/* A feasible replica with the built-in calibration at utilisation 0.9 on
 * 8-GPU nodes. */
static void must_init(struct perf_replica *r, const char *model,
                      const char *gpu, int tp, int pp, int ep, int wdt)
{
    struct perf_layout l = {
        .tp = tp, .pp = pp, .ep = ep, .gpus_per_node = 8, .nics_per_node = 0};
    char why[512] = "";
    int rc = perf_replica_init(r, must_arch(model), must_gpu(gpu), &l, wdt,
                               CL_DTYPE_BF16, 0.9, NULL, why, sizeof(why));

    ck_assert_msg(rc == 0, "%s tp %d pp %d ep %d on %s: %s", model, tp, pp, ep,
                  gpu, why);
}

static struct perf_batch decode(int64_t seqs, int64_t ctx)
{
    struct perf_batch b = {0};

    b.decode_seqs = seqs;
    b.decode_ctx_tokens = seqs * ctx;
    return b;
}

/* ---- primitives ---- */

START_TEST(test_perf_gemm_eff_curve)
{
    struct perf_gpu_calib c;

    perf_calib_resolve(NULL, must_gpu("h100"), &c);
    /* 0.74 * M / (M + 80): half the asymptote at M = 80. */
    ck_assert_double_eq(perf_gemm_eff(&c, 0.0), 0.0);
    ck_assert_double_eq_tol(perf_gemm_eff(&c, 80.0), 0.37, 1e-12);
    ck_assert_double_eq_tol(perf_gemm_eff(&c, 1.0), 0.74 / 81.0, 1e-12);
    ck_assert(perf_gemm_eff(&c, 1e9) < 0.74 && perf_gemm_eff(&c, 1e9) > 0.7399);
}
END_TEST

START_TEST(test_perf_op_ns_roofline_and_bound)
{
    int bound = -1;

    /* 1e12 FLOPs at 0.5 * 1e15 = 2 ms against 1e9 B at 0.5 * 1e12 = 2 ms:
     * a tie is compute-bound; plus 3 kernels of 1 us. */
    ck_assert_double_eq_tol(
        perf_op_ns(1e12, 1e15, 0.5, 1e9, 1e12, 0.5, 3.0, 1000.0, &bound),
        2e6 + 3000.0, 1e-6);
    ck_assert_int_eq(bound, PERF_BOUND_COMPUTE);
    perf_op_ns(1e12, 1e15, 0.5, 2e9, 1e12, 0.5, 0.0, 0.0, &bound);
    ck_assert_int_eq(bound, PERF_BOUND_MEMORY);
    ck_assert_double_eq(
        perf_op_ns(0.0, 1e15, 0.5, 0.0, 1e12, 0.5, 2.0, 500.0, &bound), 1000.0);
    ck_assert_int_eq(bound, PERF_BOUND_NONE);
}
END_TEST

START_TEST(test_perf_calib_defaults_honour_facts_anchors)
{
    /* docs/sources.md §1.3: the best kernels reach 78 % (DeepGEMM FP8) and 67 %
     * (FlashMLA BF16) of peak and 90 % of HBM (FlashMLA); no default may
     * claim more. A 16k x 16k x 16k FP8 GEMM on H100 then achieves at
     * most 78 % of the FP8 peak. */
    const char *gpus[] = {"a100", "h100", "h200", "b200"};

    for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
        struct perf_gpu_calib c;
        perf_calib_resolve(NULL, must_gpu(gpus[i]), &c);
        ck_assert(c.gemm_eff_max >= 0.67 && c.gemm_eff_max <= 0.78);
        ck_assert(c.attn_eff_compute <= 0.67);
        ck_assert(c.gemm_eff_memory <= 0.90 && c.attn_eff_memory <= 0.90 &&
                  c.elem_eff_memory <= 0.90);
    }
    {
        struct perf_gpu_calib c;
        const struct gpu_spec *g = must_gpu("h100");
        double n = 16384.0, f = 2.0 * n * n * n;
        double ns;

        perf_calib_resolve(NULL, g, &c);
        ns = perf_op_ns(f, g->flops_fp8, perf_gemm_eff(&c, n), 3.0 * n * n,
                        g->hbm_bytes_per_s, c.gemm_eff_memory, 1.0,
                        c.gemm_kernel_ns, NULL);
        ck_assert(f / (ns * 1e-9) <= 0.78 * g->flops_fp8);
    }
}
END_TEST

/* ---- step time ---- */

START_TEST(test_perf_iteration_ns_empty_batch)
{
    struct perf_replica r;
    struct perf_batch b = {0};
    struct perf_breakdown bd;

    must_init(&r, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    ck_assert_int_eq(perf_iteration_ns(&r, &b), 0);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq(bd.op[PERF_OP_OVERHEAD].ns, 0.0);
}
END_TEST

START_TEST(test_perf_iteration_ns_single_decode_weight_bound)
{
    /* One decoding token, Llama-3.1-8B bf16, 1 x H100. It reads every
     * GEMM weight once: 32 layers * (41,943,040 attention + 176,160,768
     * MLP) + 525,336,576 LM head = 7,504,658,432 parameters * 2 B =
     * 15,009,316,864 B, at 0.85 * 3.35e12 B/s (Hopper GEMMs) =
     * 5,271,050.70 ns. A one-token decode replays a full CUDA graph (a
     * capture size of 1, no padding): every kernel pays its GPU-side time
     * plus 1 us: 129 GEMMs * 5 us + 32 attention * 14 us + (32 * 4 + 2)
     * elementwise * 1.5 us = 1,288,000 ns; host 126 + 4 us = 130,000 ns.
     * Everything else moves activations and one KV row: 4,721,152 B of
     * GEMM activations, 655,360 B of attention and 5,537,792 B of
     * elementwise traffic, 5.6 us in all, 0.1 % of the weight time; the
     * tolerance is 0.2 % of it. */
    struct perf_replica r;
    struct perf_batch b = decode(1, 0);
    struct perf_breakdown bd;
    double w = 15009316864.0 / (0.85 * 3.35e12) * 1e9;
    double fixed = 1288000.0, host = 130000.0;

    must_init(&r, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.op[PERF_OP_ATTN_PROJ].bound, PERF_BOUND_MEMORY);
    ck_assert_int_eq(bd.op[PERF_OP_MLP].bound, PERF_BOUND_MEMORY);
    ck_assert_int_eq(bd.op[PERF_OP_LM_HEAD].bound, PERF_BOUND_MEMORY);
    ck_assert_double_eq_tol(bd.op[PERF_OP_OVERHEAD].ns, host, 1e-6);
    ck_assert_double_eq(bd.comm_ns, 0.0);
    ck_assert_msg(fabs((double)bd.total_ns - (w + fixed + host)) <= 0.002 * w,
                  "total %lld vs %.0f", (long long)bd.total_ns,
                  w + fixed + host);
    ck_assert((double)bd.total_ns >= w + fixed + host);
}
END_TEST

START_TEST(test_perf_iteration_ns_large_prefill_compute_bound)
{
    /* One 8,192-token prompt from scratch, Llama-3.1-8B, 1 x H100. GEMMs:
     * 2 * 8,192 * 32 * 218,103,808 = 114,349,209,288,704 FLOPs at eta(8192)
     * = 0.74 * 8192 / 8272 = 0.732843 of 989.4e12 = 157,706,692 ns, plus
     * 128 kernels * (4 us + 2 us eager launch: 8,192 tokens exceed the
     * CUDA-graph limit of 512). Attention: 524,288 FLOPs a pair * 8,192 *
     * 4,096 pairs = 1.7592e13 FLOPs at 0.67 of peak = 26,538,300 ns + 32 *
     * (13 + 2) us, against 1.1 GB of KV writes (0.36 ms): compute-bound. */
    struct perf_replica r;
    struct perf_batch b = {0};
    struct perf_breakdown bd;
    double gemm = 157706692.0 + 128 * 6000.0;
    double attn = 26538300.08 + 32 * 15000.0;

    must_init(&r, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    b.prefill_tokens = 8192;
    b.prefill_attn_pairs = 8192.0 * 4096.0;
    b.prefill_seqs = 1;
    b.prefill_done_seqs = 1;
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.op[PERF_OP_ATTN_PROJ].bound, PERF_BOUND_COMPUTE);
    ck_assert_int_eq(bd.op[PERF_OP_MLP].bound, PERF_BOUND_COMPUTE);
    ck_assert_int_eq(bd.op[PERF_OP_ATTENTION].bound, PERF_BOUND_COMPUTE);
    ck_assert_double_eq_tol(bd.op[PERF_OP_ATTN_PROJ].ns + bd.op[PERF_OP_MLP].ns,
                            gemm, 1.0);
    ck_assert_double_eq_tol(bd.op[PERF_OP_ATTENTION].ns, attn, 1.0);
    ck_assert_double_eq_tol(bd.op[PERF_OP_ATTN_PROJ].flops +
                                bd.op[PERF_OP_MLP].flops,
                            114349209288704.0, 1.0);
    /* The one sampled position reads the LM head once (memory-bound). */
    ck_assert_int_eq(bd.op[PERF_OP_LM_HEAD].bound, PERF_BOUND_MEMORY);
    ck_assert((double)bd.total_ns > gemm + attn);
}
END_TEST

START_TEST(test_perf_cudagraph_modes)
{
    struct perf_replica r;
    struct perf_batch b = decode(1, 0);
    struct perf_breakdown g, e, pw, pe;

    /* vLLM's capture sizes and limit (from recall, docs/step-time.md). */
    ck_assert_int_eq(perf_cudagraph_padded_tokens(1), 1);
    ck_assert_int_eq(perf_cudagraph_padded_tokens(3), 4);
    ck_assert_int_eq(perf_cudagraph_padded_tokens(5), 8);
    ck_assert_int_eq(perf_cudagraph_padded_tokens(250), 256);
    ck_assert_int_eq(perf_cudagraph_padded_tokens(257), 272);
    ck_assert_int_eq(perf_cudagraph_padded_tokens(512), 512);
    ck_assert_int_eq(perf_default_cudagraph_capture_size(128), 256);
    ck_assert_int_eq(perf_default_cudagraph_capture_size(1024), 512);

    /* The one-token decode of Llama-3.1-8B on an H100 eagerly costs 1 us
     * more per kernel than in its full graph (2 us eager launch against 1
     * us): 129 GEMMs + 32 attention + 130 elementwise = 291 kernels, 291
     * us; the rooflines are the same (one token is its own capture size). */
    must_init(&r, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    perf_iteration_breakdown(&r, &b, &g);
    r.cudagraph_max_tokens = 0;
    perf_iteration_breakdown(&r, &b, &e);
    ck_assert_double_eq_tol(e.op[PERF_OP_ATTN_PROJ].ns + e.op[PERF_OP_MLP].ns +
                                e.op[PERF_OP_LM_HEAD].ns -
                                g.op[PERF_OP_ATTN_PROJ].ns -
                                g.op[PERF_OP_MLP].ns - g.op[PERF_OP_LM_HEAD].ns,
                            129 * 1000.0, 1e-6);
    ck_assert_double_eq_tol(e.op[PERF_OP_ATTENTION].ns -
                                g.op[PERF_OP_ATTENTION].ns,
                            32 * 1000.0, 1e-6);
    ck_assert_double_eq_tol(e.op[PERF_OP_ELEMENTWISE].ns -
                                g.op[PERF_OP_ELEMENTWISE].ns,
                            130 * 1000.0, 1e-6);
    /* A mixed batch (a 103-token chunk and one decode: 104 tokens, a
     * capture size, so nothing is padded) runs piecewise
     * graphs: attention is launched eagerly between the pieces (vLLM V1),
     * so eager and graph attention differ by nothing while the GEMMs still
     * save 1 us a kernel. */
    b.prefill_tokens = 103;
    b.prefill_seqs = 1;
    b.prefill_attn_pairs = 103.0 * 51.5;
    r.cudagraph_max_tokens = 512;
    perf_iteration_breakdown(&r, &b, &pw);
    r.cudagraph_max_tokens = 0;
    perf_iteration_breakdown(&r, &b, &pe);
    ck_assert_double_eq_tol(pe.op[PERF_OP_ATTENTION].ns,
                            pw.op[PERF_OP_ATTENTION].ns, 1e-6);
    ck_assert_double_lt(pw.op[PERF_OP_MLP].ns, pe.op[PERF_OP_MLP].ns);
}
END_TEST

START_TEST(test_perf_iteration_lm_head_only_for_sampled)
{
    /* A prefill chunk that does not end its prompt samples nothing. */
    struct perf_replica r;
    struct perf_batch b = {0};
    struct perf_breakdown bd;

    must_init(&r, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    b.prefill_tokens = 512;
    b.prefill_attn_pairs = 512.0 * 256.0;
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq(bd.op[PERF_OP_LM_HEAD].ns, 0.0);
    b.prefill_done_seqs = 1;
    perf_iteration_breakdown(&r, &b, &bd);
    /* 2 * 525,336,576 FLOPs for the one row. */
    ck_assert_double_eq(bd.op[PERF_OP_LM_HEAD].flops, 1050673152.0);
    b = decode(3, 100);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq(bd.op[PERF_OP_LM_HEAD].flops, 3 * 1050673152.0);
}
END_TEST

START_TEST(test_perf_iteration_mla_decode_and_moe)
{
    /* DeepSeek-V3 fp8, 8 x H200, one decoding token over 1,000 cached.
     * Attention (absorbed MLA): 2,176 * 128 heads * 61 layers per pair =
     * 16,990,208; / tp 8 * 1,000 = 2,123,776,000 FLOPs a GPU. MoE, per
     * layer and GPU: router 256 * 7168 + 256 = 1,835,264 (whole on every
     * rank), shared 44,040,192 / 8 = 5,505,024, 8 touched experts * 1/8
     * = 44,040,192 parameters: 51,380,480 * (1 + 4/16384) B; activations
     * (7168 + 256) * 2 + (2 * 7168 + 3 * 2048 / 8) * 2 + 8 pairs * (2 *
     * 7168 + 3 * 2048 / 8) * 2 = 286,720 B; 58 layers. */
    struct perf_replica r;
    struct perf_batch b = decode(1, 1000);
    struct perf_breakdown bd;
    double bpp = 1.0 + 4.0 / 16384.0;

    must_init(&r, "deepseek-v3", "h200", 8, 1, 1, CL_DTYPE_FP8);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq_tol(bd.op[PERF_OP_ATTENTION].flops, 2123776000.0, 1.0);
    ck_assert_double_eq_tol(bd.experts_touched, 8.0, 1e-9);
    ck_assert_double_eq_tol(bd.op[PERF_OP_MOE].bytes,
                            58.0 * (51380480.0 * bpp + 286720.0), 1.0);
    ck_assert_int_eq(bd.op[PERF_OP_MOE].bound, PERF_BOUND_MEMORY);
    /* fp8 weights on an FP8 GPU run FP8 GEMMs. */
    ck_assert_double_eq(r.linear_peak_flops, must_gpu("h200")->flops_fp8);
}
END_TEST

START_TEST(test_perf_iteration_mla_prefill_expands_cached_latents)
{
    /* A prefill after 1,000 cached tokens runs kv_b over them (naive
     * form): 512 * 128 * (128 + 128) / 8 = 2,097,152 parameters a GPU,
     * 2 FLOPs each per token per layer: 2 * 2,097,152 * 1,000 * 61 more
     * attention-projection FLOPs than from scratch. */
    struct perf_replica r;
    struct perf_batch b = {0};
    struct perf_breakdown a0, a1;

    must_init(&r, "deepseek-v3", "h200", 8, 1, 1, CL_DTYPE_FP8);
    ck_assert_double_eq(r.kv_b_params, 2097152.0);
    b.prefill_tokens = 256;
    b.prefill_attn_pairs = 256.0 * 128.0;
    perf_iteration_breakdown(&r, &b, &a0);
    b.prefill_ctx_tokens = 1000;
    b.prefill_attn_pairs = 256.0 * (1000.0 + 128.0);
    perf_iteration_breakdown(&r, &b, &a1);
    ck_assert_double_eq_tol(a1.op[PERF_OP_ATTN_PROJ].flops -
                                a0.op[PERF_OP_ATTN_PROJ].flops,
                            2.0 * 2097152.0 * 1000.0 * 61.0, 1.0);
}
END_TEST

START_TEST(test_perf_iteration_a100_fp8_is_weight_only)
{
    /* A100 has no FP8 (docs/sources.md §1.1): fp8 weights are stored in one
     * byte and dequantised to bf16 GEMMs. */
    struct perf_replica r;
    struct perf_batch b = decode(1, 0);
    struct perf_breakdown bf, f8;

    must_init(&r, "llama-3.1-8b", "a100", 1, 1, 1, CL_DTYPE_FP8);
    ck_assert_double_eq(r.linear_peak_flops, 312e12);
    ck_assert_double_eq_tol(r.weight_bytes_per_param, 1.000244140625, 1e-12);
    perf_iteration_breakdown(&r, &b, &f8);
    must_init(&r, "llama-3.1-8b", "a100", 1, 1, 1, CL_DTYPE_BF16);
    perf_iteration_breakdown(&r, &b, &bf);
    /* Half the bytes, so a weight-bound decode is faster. */
    ck_assert(f8.op[PERF_OP_MLP].ns < 0.6 * bf.op[PERF_OP_MLP].ns);
    /* The a100 entry's host overhead, 870 us + 42 us a sequence. */
    ck_assert_double_eq_tol(bf.op[PERF_OP_OVERHEAD].ns, 912000.0, 1e-6);
}
END_TEST

START_TEST(test_perf_iteration_tp_allreduces)
{
    /* Llama-3.1-70B on 8 x H100, 64 decoding tokens: 2 * 80 all-reduces
     * of 64 * 8192 * 2 = 1,048,576 B each; with the custom all-reduce off
     * (vLLM --disable-custom-all-reduce) priced by net_coll_ns() over the
     * GPU's intra link. */
    struct perf_replica r;
    struct perf_batch b = decode(64, 2048);
    struct perf_breakdown bd;
    struct net_topo t;
    double one;

    must_init(&r, "llama-3.1-70b", "h100", 8, 1, 1, CL_DTYPE_BF16);
    r.custom_allreduce = 0;
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.tp_allreduce, NET_CAR_NONE);
    t.intra = &r.calib.intra;
    t.inter = &r.calib.inter;
    t.ranks_per_node = 8;
    t.nics_per_node = 8;
    one = net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 1048576.0);
    ck_assert(one > 0.0);
    ck_assert_double_eq(bd.op[PERF_OP_TP_COMM].bytes, 160.0 * 1048576.0);
    ck_assert_double_eq_tol(bd.op[PERF_OP_TP_COMM].ns, 160.0 * one, 1e-6);
    ck_assert_double_eq(bd.op[PERF_OP_EP_COMM].ns, 0.0);
    ck_assert_double_eq(bd.op[PERF_OP_PP_COMM].ns, 0.0);
    ck_assert_int_eq(bd.stage_ns, bd.total_ns);
}
END_TEST

START_TEST(test_perf_iteration_tp_custom_allreduce)
{
    /* Llama-3.1-8B on 2 x H100, 32 decoding tokens in a full CUDA graph:
     * 2 x 32 = 64 all-reduces of 32 x 4096 x 2 = 262,144 B, each vLLM's
     * one-shot custom all-reduce: one elementwise kernel (500 ns + 1,000
     * ns graph launch) + one barrier (600 ns) + 262,144 B / 370e9 B/s
     * (708.4973 ns) = 2,808.4973 ns; tp_comm = 64 x that = 179,743.827
     * ns. */
    struct perf_replica r;
    struct perf_batch b = decode(32, 1024);
    struct perf_breakdown bd;
    struct net_topo t;
    double one = 1500.0 + 600.0 + 262144.0 / 370e9 * 1e9;

    must_init(&r, "llama-3.1-8b", "h100", 2, 1, 1, CL_DTYPE_BF16);
    ck_assert_int_eq(r.custom_allreduce, 1);
    ck_assert_double_eq_tol(r.calib.elem_kernel_ns + r.calib.launch_graph_ns,
                            1500.0, 1e-9);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.graph, PERF_GRAPH_FULL);
    ck_assert_int_eq(bd.tp_allreduce, NET_CAR_ONESHOT);
    ck_assert_double_eq_tol(bd.tp_allreduce_ns, one, 1e-6);
    ck_assert_double_eq_tol(bd.op[PERF_OP_TP_COMM].ns, 64.0 * one, 1e-6);
    ck_assert_double_eq_tol(bd.op[PERF_OP_TP_COMM].ns, 179743.827027, 1e-5);
    ck_assert_double_eq(bd.op[PERF_OP_TP_COMM].bytes, 64.0 * 262144.0);

    t.intra = &r.calib.intra;
    t.inter = &r.calib.inter;
    t.ranks_per_node = 8;
    t.nics_per_node = 8;
    /* Off: NCCL again (ring LL: 6,600 + 2 x 600 + 262,144 / (0.5 x
     * 370e9)). */
    r.custom_allreduce = 0;
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.tp_allreduce, NET_CAR_NONE);
    ck_assert_double_eq_tol(
        bd.op[PERF_OP_TP_COMM].ns,
        64.0 * net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 2, 262144.0),
        1e-6);
    ck_assert_double_eq_tol(bd.tp_allreduce_ns,
                            6600.0 + 1200.0 + 262144.0 / 185e9 * 1e9, 1e-6);

    /* A 2,048-token prefill: 2,048 x 4096 x 2 = 16 MiB per all-reduce,
     * above vLLM's 8 MiB max_size, so NCCL prices it. */
    r.custom_allreduce = 1;
    b = (struct perf_batch){0};
    b.prefill_tokens = 2048;
    b.prefill_attn_pairs = 2048.0 * 1024.0;
    b.prefill_seqs = 1;
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.tp_allreduce, NET_CAR_NONE);
    ck_assert_double_eq_tol(bd.op[PERF_OP_TP_COMM].ns,
                            64.0 * net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_AUTO,
                                               2, 16.0 * 1048576.0),
                            1e-6);
}
END_TEST

START_TEST(test_perf_iteration_ep_and_pp_terms_only_when_used)
{
    struct perf_replica r;
    struct perf_batch b = decode(256, 1024);
    struct perf_breakdown bd;

    /* ep 1: experts split by tp, two all-reduces in every layer. */
    must_init(&r, "deepseek-v3", "h200", 8, 1, 1, CL_DTYPE_FP8);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq(bd.op[PERF_OP_EP_COMM].ns, 0.0);
    ck_assert_double_eq(bd.op[PERF_OP_TP_COMM].bytes,
                        61 * 2 * 256.0 * 7168 * 2);
    /* ep 8 = tp: dispatch and combine replace the MoE layers' second
     * all-reduce: 3 * 2 + 58 * 1 of them. Dispatch in fp8 (1 B), combine
     * in bf16: 256 / 8 tokens * 8 copies * 7168 * (1 + 2) B a layer, times
     * the busiest rank's imbalance. */
    must_init(&r, "deepseek-v3", "h200", 8, 1, 8, CL_DTYPE_FP8);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert(bd.op[PERF_OP_EP_COMM].ns > 0.0);
    ck_assert(bd.expert_imbalance > 1.0);
    ck_assert_double_eq(bd.op[PERF_OP_TP_COMM].bytes, 64 * 256.0 * 7168 * 2);
    ck_assert_double_eq_tol(bd.op[PERF_OP_EP_COMM].bytes,
                            58 * 32.0 * 8 * 7168 * 3 * bd.expert_imbalance,
                            1e-3);
    ck_assert_double_eq(bd.op[PERF_OP_PP_COMM].ns, 0.0);
    /* pp 2 of tp 4 in one node: one send inside the node; pp 2 of tp 8:
     * the stages are two nodes. */
    must_init(&r, "llama-3.1-70b", "h100", 4, 1, 1, CL_DTYPE_BF16);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq(bd.op[PERF_OP_PP_COMM].ns, 0.0);
    must_init(&r, "llama-3.1-70b", "h100", 4, 2, 1, CL_DTYPE_BF16);
    ck_assert_int_eq(r.pp_intra_sends, 1);
    ck_assert_int_eq(r.pp_inter_sends, 0);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq_tol(bd.op[PERF_OP_PP_COMM].ns,
                            net_p2p_ns(&r.calib.intra, 256.0 * 8192 * 2), 1e-6);
    ck_assert(bd.stage_ns < bd.total_ns);
    must_init(&r, "llama-3.1-70b", "h100", 8, 2, 1, CL_DTYPE_BF16);
    ck_assert_int_eq(r.pp_inter_sends, 1);
    ck_assert_int_eq(r.gpus, 16);
}
END_TEST

START_TEST(test_perf_replica_dp_attention_groups)
{
    /* DeepSeek-V3 fp8 with tp 1, ep 8 on H200: eight data-parallel
     * attention groups of one GPU each, no tensor-parallel all-reduce; each
     * GPU keeps the latent only for its own sequences, so the replica
     * holds 8 x one GPU's capacity. */
    struct perf_replica r;
    struct perf_batch b = decode(64, 1000);
    struct perf_breakdown bd;
    double free_bytes;

    must_init(&r, "deepseek-v3", "h200", 1, 1, 8, CL_DTYPE_FP8);
    ck_assert_int_eq(r.dp, 8);
    ck_assert_int_eq(r.gpus, 8);
    free_bytes = 0.9 * 141e9 - r.weight_bytes_per_gpu - 2147483648.0;
    ck_assert_int_eq(r.kv_capacity_tokens,
                     8 * (int64_t)floor(free_bytes / 70272.0));
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_double_eq(bd.op[PERF_OP_TP_COMM].ns, 0.0);
    ck_assert(bd.op[PERF_OP_EP_COMM].ns > 0.0);
}
END_TEST

/* Replicas for the property tests. */
static const struct {
    const char *model, *gpu;
    int tp, pp, ep, dtype;
} props[] = {
    {"llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16},
    {"llama-3.1-70b", "h100", 4, 2, 1, CL_DTYPE_BF16},
    {"deepseek-v3", "h200", 8, 1, 1, CL_DTYPE_FP8},
    {"deepseek-v3", "h200", 2, 1, 8, CL_DTYPE_FP8},
    {"deepseek-v3.2", "h200", 8, 1, 8, CL_DTYPE_FP8},
    {"qwen3-235b-a22b", "h100", 4, 1, 1, CL_DTYPE_FP8},
};
#define PROPS_N (sizeof(props) / sizeof(props[0]))

START_TEST(test_perf_iteration_monotone_in_batch_and_context)
{
    /* Property: the step time never falls when a batch gains decoding
     * sequences, prefill tokens or context. */
    for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
        struct perf_replica r;
        int64_t prev = 0;

        must_init(&r, props[i].model, props[i].gpu, props[i].tp, props[i].pp,
                  props[i].ep, props[i].dtype);
        for (int64_t d = 1; d <= 4096; d = d * 3 / 2 + 1) {
            struct perf_batch b = decode(d, 700);
            int64_t t = perf_iteration_ns(&r, &b);
            ck_assert_msg(t >= prev, "%s: decode %lld", props[i].model,
                          (long long)d);
            prev = t;
        }
        prev = 0;
        for (int64_t ctx = 0; ctx <= 200000; ctx = ctx * 2 + 100) {
            struct perf_batch b = decode(32, ctx);
            int64_t t = perf_iteration_ns(&r, &b);
            ck_assert_msg(t >= prev, "%s: context %lld", props[i].model,
                          (long long)ctx);
            prev = t;
        }
        prev = 0;
        for (int64_t p = 1; p <= 65536; p = p * 2 + 7) {
            struct perf_batch b = decode(16, 500);
            int64_t t;
            b.prefill_tokens = p;
            b.prefill_attn_pairs = (double)p * (double)p / 2.0;
            b.prefill_seqs = 1;
            t = perf_iteration_ns(&r, &b);
            ck_assert_msg(t >= prev, "%s: prefill %lld", props[i].model,
                          (long long)p);
            prev = t;
        }
    }
}
END_TEST

START_TEST(test_perf_iteration_breakdown_adds_up)
{
    for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
        struct perf_replica r;
        struct perf_batch b = decode(100, 3000);
        struct perf_breakdown bd;
        double sum = 0.0;

        must_init(&r, props[i].model, props[i].gpu, props[i].tp, props[i].pp,
                  props[i].ep, props[i].dtype);
        b.prefill_tokens = 2000;
        b.prefill_attn_pairs = 2000.0 * 1000.0;
        perf_iteration_breakdown(&r, &b, &bd);
        for (int k = 0; k < PERF_OP_OVERHEAD; k++) {
            ck_assert(bd.op[k].ns >= 0.0 && bd.op[k].bytes >= 0.0);
            sum += bd.op[k].ns;
        }
        ck_assert(llabs(bd.total_ns - llround(sum) - bd.overhead_ns) <= 1);
        ck_assert(bd.stage_ns <= bd.total_ns);
        ck_assert(bd.stage_ns * r.pp >= bd.total_ns - 2 * r.pp * 1000000);
    }
}
END_TEST

/* ---- saturation ---- */

START_TEST(test_perf_saturate_kv_and_seq_limits)
{
    /* Llama-3.1-8B bf16 on 1 x H100: 410,400 KV tokens / 2,048 = 200
     * sequences, fewer than vLLM's 1,024: D = 200, limited by the cache;
     * tokens/s = 200 / step. With max_num_seqs 64, D = 64. */
    struct perf_replica r;
    struct perf_saturation s;
    struct perf_batch b = decode(200, 2048);

    must_init(&r, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    ck_assert_int_eq(perf_saturate(&r, 2048, 1024, &s), 0);
    ck_assert_int_eq(s.kv_limit_seqs, 200);
    ck_assert_int_eq(s.decode_seqs, 200);
    ck_assert(s.limited_by_kv);
    ck_assert_int_eq(s.step_ns, perf_iteration_ns(&r, &b));
    ck_assert_double_eq_tol(s.tokens_per_s, 200.0 * 1e9 / (double)s.step_ns,
                            1e-9);
    ck_assert_int_eq(perf_saturate(&r, 2048, 64, &s), 0);
    ck_assert_int_eq(s.decode_seqs, 64);
    ck_assert(!s.limited_by_kv);
    ck_assert_int_eq(perf_saturate(&r, 500000, 64, &s), SIM_EINFEASIBLE);
    ck_assert_int_eq(perf_saturate(&r, 0, 64, &s), SIM_EINVAL);
}
END_TEST

START_TEST(test_perf_saturate_pipeline_micro_batches)
{
    /* pp 2: two micro-batches of ceil(D / 2) in flight; every sequence
     * advances once per max(step, 2 * stage). */
    struct perf_replica r;
    struct perf_saturation s;

    must_init(&r, "llama-3.1-70b", "h100", 4, 2, 1, CL_DTYPE_BF16);
    ck_assert_int_eq(perf_saturate(&r, 1000, 301, &s), 0);
    ck_assert_int_eq(s.decode_seqs, 301);
    ck_assert_int_eq(s.micro_batch_seqs, 151);
    ck_assert_int_eq(s.cycle_ns, s.step.total_ns > 2 * s.step.stage_ns
                                     ? s.step.total_ns
                                     : 2 * s.step.stage_ns);
    ck_assert_double_eq_tol(s.tokens_per_s, 301.0 * 1e9 / (double)s.cycle_ns,
                            1e-9);
}
END_TEST

START_TEST(test_perf_iteration_plain_mlp_two_matrices)
{
    /* Llama-3.1-8B with its MLP made plain (up, GELU, down): 64 decoding
     * tokens, 1 x H100. Gated: 2 * 64 * 3 * 4096 * 14336 * 32 FLOPs;
     * plain: 2 * 64 * 2 * 4096 * 14336 * 32 = 481,036,337,152. Bytes: the
     * weights 32 * 2 * 4096 * 14336 * 2 = 7,516,192,768 plus the
     * activations 32 * 64 * (4096 + 14336 + 14336 + 4096) * 2 = 150,994,944
     * (up writes f, down reads f; gated writes 2f). The elementwise
     * activation reads f and writes f where the gated one reads 2f: f * 2
     * bytes fewer a token and layer, 32 * 64 * 14336 * 2 = 58,720,256. */
    struct perf_layout l = {
        .tp = 1, .pp = 1, .ep = 1, .gpus_per_node = 8, .nics_per_node = 0};
    struct arch_spec plain = *must_arch("llama-3.1-8b");
    struct perf_replica g, p;
    struct perf_batch b = decode(64, 0);
    struct perf_breakdown bg, bp;
    char why[512] = "";

    plain.mlp = ARCH_MLP_PLAIN;
    must_init(&g, "llama-3.1-8b", "h100", 1, 1, 1, CL_DTYPE_BF16);
    ck_assert_msg(perf_replica_init(&p, &plain, must_gpu("h100"), &l,
                                    CL_DTYPE_BF16, CL_DTYPE_BF16, 0.9, NULL,
                                    why, sizeof(why)) == 0,
                  "%s", why);
    perf_iteration_breakdown(&g, &b, &bg);
    perf_iteration_breakdown(&p, &b, &bp);
    ck_assert_double_eq(bg.op[PERF_OP_MLP].flops, 721554505728.0);
    ck_assert_double_eq(bp.op[PERF_OP_MLP].flops, 481036337152.0);
    ck_assert_double_eq_tol(bp.op[PERF_OP_MLP].bytes,
                            7516192768.0 + 150994944.0, 1.0);
    ck_assert_double_eq_tol(bg.op[PERF_OP_ELEMENTWISE].bytes -
                                bp.op[PERF_OP_ELEMENTWISE].bytes,
                            58720256.0, 1.0);
}
END_TEST

START_TEST(test_perf_default_max_num_seqs_vllm)
{
    /* docs/sources.md §5.1: 1,024 at >= 70 GiB except A100, else 256. */
    ck_assert_int_eq(perf_default_max_num_seqs(must_gpu("h200")), 1024);
    ck_assert_int_eq(perf_default_max_num_seqs(must_gpu("h100")), 1024);
    ck_assert_int_eq(perf_default_max_num_seqs(must_gpu("a100")), 256);
    ck_assert_int_eq(perf_default_max_num_seqs(must_gpu("l40s")), 256);
}
END_TEST

START_TEST(test_perf_default_max_num_batched_tokens_vllm)
{
    /* docs/sources.md §5.1, the OpenAI API server's: 8,192 at >= 70 GiB except
     * A100 (80 GiB, excluded by name), else 2,048. */
    ck_assert_int_eq(perf_default_max_num_batched_tokens(must_gpu("h100")),
                     8192);
    ck_assert_int_eq(perf_default_max_num_batched_tokens(must_gpu("h200")),
                     8192);
    ck_assert_int_eq(perf_default_max_num_batched_tokens(must_gpu("a100")),
                     2048);
    ck_assert_int_eq(perf_default_max_num_batched_tokens(must_gpu("l40s")),
                     2048);
}
END_TEST

/* ---- calibration profiles ---- */

static const char *good_profile =
    "format: 1\n"
    "provenance:\n"
    "  tool: dsec-calib 0.1\n"
    "  date: 2026-11-30\n"
    "  host: node-a\n"
    "  raw_log: logs/node-a.log\n"
    "gpus:\n"
    "  default:\n"
    "    elementwise: {hbm_efficiency: 60%}\n"
    "  H100:\n"
    "    gemm: {efficiency_max: 0.7, half_tokens: 50, kernel_time: 4us}\n"
    "    frontend: {request: 5ms, per_output_token: 40us}\n"
    "    iteration_overhead: 300us\n"
    "links:\n"
    "  nvlink4: {alpha: 2.5us, efficiency: 0.9}\n";

START_TEST(test_perf_calib_load_good_and_resolve)
{
    struct perf_calib c;
    struct perf_gpu_calib h100, h200;
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(perf_calib_load_string("p.yaml", good_profile,
                                            strlen(good_profile), &c, &d),
                     0);
    ck_assert_int_eq(d.n, 0);
    ck_assert_str_eq(c.tool, "dsec-calib 0.1");
    ck_assert_str_eq(c.raw_log, "logs/node-a.log");
    ck_assert_ptr_null(c.note);
    ck_assert_int_eq(c.ngpus, 2);
    ck_assert_int_eq(c.nlinks, 1);
    /* h100: its entry, the profile's default, then the built-ins. */
    perf_calib_resolve(&c, must_gpu("h100"), &h100);
    ck_assert_double_eq(h100.gemm_eff_max, 0.7);
    ck_assert_double_eq(h100.gemm_half_tokens, 50.0);
    ck_assert_double_eq(h100.gemm_kernel_ns, 4000.0);
    /* Not in the profile: the built-in Hopper entry's. */
    ck_assert_double_eq(h100.gemm_eff_memory, 0.85);
    ck_assert_double_eq(h100.launch_eager_ns, 2000.0);
    ck_assert_double_eq(h100.launch_graph_ns, 1000.0);
    ck_assert_double_eq(h100.iteration_overhead_ns, 300000.0);
    /* The front end: given keys replace, the rest stay built-in. */
    ck_assert_double_eq(h100.frontend_request_ns, 5e6);
    ck_assert_double_eq(h100.frontend_prompt_token_ns, 1000.0);
    ck_assert_double_eq(h100.frontend_output_token_ns, 40000.0);
    ck_assert_double_eq(h100.elem_eff_memory, 0.60);
    ck_assert_double_eq(h100.intra.alpha_ns, 2500.0);
    ck_assert_double_eq(h100.intra.efficiency, 0.9);
    ck_assert_double_eq(h100.intra.bytes_per_s, 450e9);
    ck_assert_str_eq(h100.source, "p.yaml");
    /* h200 shares the link class but not the h100 entry. */
    perf_calib_resolve(&c, must_gpu("h200"), &h200);
    ck_assert_double_eq(h200.gemm_eff_max, 0.74);
    ck_assert_double_eq(h200.elem_eff_memory, 0.60);
    ck_assert_double_eq(h200.frontend_request_ns, 2e6);
    ck_assert_double_eq(h200.intra.alpha_ns, 2500.0);
    perf_calib_fini(&c);
    perf_calib_fini(NULL);
    sim_diag_fini(&d);
}
END_TEST

/* Loads text and returns the first diagnostic, formatted (caller frees),
 * asserting the return code. */
static char *load_error(const char *text, int want_rc)
{
    struct perf_calib c;
    struct sim_diag d;
    char *msg;

    sim_diag_init(&d);
    ck_assert_int_eq(
        perf_calib_load_string("x.yaml", text, strlen(text), &c, &d), want_rc);
    ck_assert_int_ge(d.n, 1);
    ck_assert_ptr_null(c.gpus);
    msg = sim_diag_format(&d, 0);
    sim_diag_fini(&d);
    return msg;
}

#define PROV "format: 1\nprovenance: {tool: t, date: d}\n"

START_TEST(test_perf_calib_load_unknown_key_line_col)
{
    char *m = load_error(PROV "gpus:\n"
                              "  h100:\n"
                              "    gemm:\n"
                              "      efficency_max: 0.7\n",
                         SIM_EINVAL);

    ck_assert_str_eq(m, "x.yaml:6:7: error: gpus.h100.gemm.efficency_max: "
                        "unknown key; did you mean 'efficiency_max'?");
    free(m);
    m = load_error(PROV "gpus: {h100: {gemm: {speed: 1}}}\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:3:22: error: gpus.h100.gemm.speed: unknown "
                        "key; valid: efficiency_max, half_tokens, "
                        "hbm_efficiency, kernel_time");
    free(m);
}
END_TEST

START_TEST(test_perf_calib_load_out_of_range)
{
    char *m = load_error(PROV "gpus:\n"
                              "  h100: {attention: {hbm_efficiency: 1.5}}\n",
                         SIM_EINVAL);

    ck_assert_str_eq(m, "x.yaml:4:38: error: "
                        "gpus.h100.attention.hbm_efficiency: 1.5 out of "
                        "range [0.001, 1]");
    free(m);
}
END_TEST

START_TEST(test_perf_calib_load_other_errors)
{
    char *m;

    m = load_error("format: 1\nprovenance: {tool: t}\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:2:1: error: provenance: missing key 'date'");
    free(m);
    m = load_error("format: 2\nprovenance: {tool: t, date: d}\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:1:9: error: format: 2 is not supported; "
                        "valid: 1");
    free(m);
    m = load_error("provenance: {tool: t, date: d}\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:1:1: error: missing key 'format'");
    free(m);
    m = load_error(PROV "links:\n  nvlink9: {alpha: 1us}\n", SIM_EINVAL);
    ck_assert_msg(strncmp(m,
                          "x.yaml:4:3: error: links: unknown link class "
                          "'nvlink9'; valid: ",
                          60) == 0,
                  "%s", m);
    free(m);
    m = load_error(PROV "gpus:\n  h100: {}\n  H100: {}\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:5:3: error: gpus.H100: duplicate entry");
    free(m);
    m = load_error(PROV "gpus:\n  h100: {}\n  h100: {}\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:5:3: error: gpus.h100: duplicate key");
    free(m);
    /* Every plain spelling of null is a missing value, as in a scenario. */
    m = load_error("format: Null\nprovenance: {tool: t, date: d}\n",
                   SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:1:1: error: format: missing value; expected "
                        "an integer");
    free(m);
    m = load_error(PROV "gpus:\n  h100: {gemm: {kernel_time: fast}}\n",
                   SIM_EINVAL);
    ck_assert_msg(
        strstr(m, "x.yaml:4:30: error: gpus.h100.gemm.kernel_time: ") == m,
        "%s", m);
    free(m);
    m = load_error(PROV "gpus: [h100]\n", SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:3:7: error: gpus: expected a mapping, got a "
                        "sequence");
    free(m);
    m = load_error("format: 1\nprovenance: {tool: t, date: d\n", SIM_EPARSE);
    ck_assert_msg(strncmp(m, "x.yaml:3:1: error: ", 19) == 0, "%s", m);
    free(m);
}
END_TEST

START_TEST(test_perf_calib_load_missing_file)
{
    struct perf_calib c;
    struct sim_diag d;
    char *msg;

    sim_diag_init(&d);
    ck_assert_int_eq(perf_calib_load("/nonexistent/p.yaml", &c, &d), SIM_EIO);
    msg = sim_diag_format(&d, 0);
    ck_assert_msg(strstr(msg, "/nonexistent/p.yaml: error: cannot open: ") !=
                      NULL,
                  "%s", msg);
    free(msg);
    sim_diag_fini(&d);
}
END_TEST

static void same_double(double a, double b, const char *what)
{
    ck_assert_msg((isnan(a) && isnan(b)) || a == b, "%s: %g vs %g", what, a, b);
}

/* A profile's uncertainty: the errors of bad sections, named and placed. */
START_TEST(test_perf_calib_uncertainty_errors)
{
    char *m;

    m = load_error(PROV "gpus:\n"
                        "  h100:\n"
                        "    gemm: {hbm_efficiency: 0.8}\n"
                        "    uncertainty:\n"
                        "      std_errors: {iteration_overhead: 9us}\n",
                   SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:7:40: error: gpus.h100.uncertainty.std_errors."
                        "iteration_overhead: the entry gives no value of "
                        "iteration_overhead");
    free(m);
    m = load_error(PROV "gpus:\n"
                        "  h100:\n"
                        "    gemm: {hbm_efficiency: 0.8}\n"
                        "    uncertainty:\n"
                        "      std_errors: {gemm.speed: 1}\n",
                   SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:7:32: error: gpus.h100.uncertainty.std_errors."
                        "gemm.speed: not a numeric key of a GPU entry");
    free(m);
    m = load_error(PROV "gpus:\n"
                        "  h100:\n"
                        "    gemm: {hbm_efficiency: 0.8}\n"
                        "    uncertainty:\n"
                        "      std_errors: {gemm.hbm_efficiency: -0.1}\n",
                   SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:7:41: error: gpus.h100.uncertainty.std_errors."
                        "gemm.hbm_efficiency: -0.1 out of range [0, 1]");
    free(m);
    /* Three keys pairwise correlated by -0.9 make no covariance. */
    m = load_error(PROV "gpus:\n"
                        "  h100:\n"
                        "    gemm: {hbm_efficiency: 0.8, efficiency_max: 0.7}\n"
                        "    iteration_overhead: 100us\n"
                        "    uncertainty:\n"
                        "      std_errors: {gemm.hbm_efficiency: 0.01,\n"
                        "        gemm.efficiency_max: 0.01,\n"
                        "        iteration_overhead: 5us}\n"
                        "      correlation:\n"
                        "        - {a: gemm.hbm_efficiency, b: "
                        "gemm.efficiency_max, r: -0.9}\n"
                        "        - {a: gemm.hbm_efficiency, b: "
                        "iteration_overhead, r: -0.9}\n"
                        "        - {a: gemm.efficiency_max, b: "
                        "iteration_overhead, r: -0.9}\n",
                   SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:7:5: error: gpus.h100.uncertainty: the "
                        "correlations do not make a covariance matrix (not "
                        "positive semidefinite)");
    free(m);
    m = load_error(PROV "gpus:\n"
                        "  h100:\n"
                        "    gemm: {hbm_efficiency: 0.8}\n"
                        "    uncertainty:\n"
                        "      std_errors: {gemm.hbm_efficiency: 0.01}\n"
                        "      correlation:\n"
                        "        - {a: gemm.hbm_efficiency, b: nothing, r: "
                        "0.1}\n",
                   SIM_EINVAL);
    ck_assert_str_eq(m, "x.yaml:9:39: error: gpus.h100.uncertainty."
                        "correlation[0]: 'nothing' has no standard error in "
                        "std_errors");
    free(m);
}
END_TEST

/* Draws follow the stated errors and correlation (log-normal: for small
 * relative errors, mean and sd as given), for keys of any unit; the
 * profile round-trips through perf_calib_write() with its uncertainty. */
START_TEST(test_perf_calib_dist_draws_and_writes)
{
    static const char text[] = PROV
        "gpus:\n"
        "  h100:\n"
        "    gemm: {hbm_efficiency: 0.8}\n"
        "    iteration_overhead: 100us\n"
        "    uncertainty:\n"
        "      std_errors: {gemm.hbm_efficiency: 0.008,\n"
        "        iteration_overhead: 2us}\n"
        "      correlation:\n"
        "        - {a: gemm.hbm_efficiency, b: iteration_overhead, r: 0.6}\n"
        "      structural: {ttft: 0.1}\n";
    struct perf_calib c, back;
    struct perf_calib_dist *dist = xmalloc(sizeof(*dist));
    struct sim_diag d;
    struct perf_calib_key kh, ko;
    double s[2] = {0}, ss[2] = {0}, sxy = 0;
    const int n = 20000;
    unsigned long long state = 12345;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp;

    sim_diag_init(&d);
    ck_assert_int_eq(
        perf_calib_load_string("u.yaml", text, strlen(text), &c, &d), 0);
    ck_assert_int_eq(perf_calib_dist_init(&c, "h100", dist), 2);
    ck_assert(fabs(dist->structural.ttft - 0.1) < 1e-12);
    ck_assert(isnan(dist->structural.tpot));
    ck_assert_int_eq(perf_calib_key_find("gemm.hbm_efficiency", 0, &kh), 0);
    ck_assert_int_eq(perf_calib_key_find("iteration_overhead", 0, &ko), 0);
    for (int i = 0; i < n; i++) {
        struct perf_calib draw;
        double z[2], v[2];
        /* Box-Muller on a fixed LCG: reproducible normals. */
        for (int j = 0; j < 2; j++) {
            double u1, u2;
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            u1 = ((double)(state >> 11) + 0.5) / 9007199254740992.0;
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            u2 = ((double)(state >> 11) + 0.5) / 9007199254740992.0;
            z[j] = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        }
        perf_calib_copy(&c, &draw);
        perf_calib_dist_draw(dist, z, &draw);
        v[0] = perf_calib_key_get(&kh, &draw.gpus[0]);
        v[1] = perf_calib_key_get(&ko, &draw.gpus[0]) * 1e6; /* us */
        for (int j = 0; j < 2; j++) {
            s[j] += v[j];
            ss[j] += v[j] * v[j];
        }
        sxy += v[0] * v[1];
        perf_calib_fini(&draw);
    }
    {
        double m0 = s[0] / n, m1 = s[1] / n;
        double sd0 = sqrt(ss[0] / n - m0 * m0), sd1 = sqrt(ss[1] / n - m1 * m1);
        double r = (sxy / n - m0 * m1) / (sd0 * sd1);
        ck_assert_msg(fabs(m0 - 0.8) < 0.001, "mean %g", m0);
        ck_assert_msg(fabs(sd0 - 0.008) < 0.0005, "sd %g", sd0);
        ck_assert_msg(fabs(m1 - 100) < 0.1, "mean %g us", m1);
        ck_assert_msg(fabs(sd1 - 2) < 0.1, "sd %g us", sd1);
        ck_assert_msg(fabs(r - 0.6) < 0.03, "r %g", r);
    }
    fp = open_memstream(&buf, &len);
    ck_assert_int_eq(perf_calib_write(fp, &c), 0);
    fclose(fp);
    ck_assert_int_eq(perf_calib_load_string("w.yaml", buf, len, &back, &d), 0);
    ck_assert_int_eq(back.gpus[0].unc.nstd_errors, 2);
    ck_assert(fabs(back.gpus[0].unc.std_errors[1].se - 2e-6) < 1e-12);
    ck_assert_int_eq(back.gpus[0].unc.ncorrelation, 1);
    ck_assert(fabs(back.gpus[0].unc.correlation[0].r - 0.6) < 1e-9);
    ck_assert_str_eq(back.sha256[0] ? "set" : "", "set");
    free(buf);
    free(dist);
    perf_calib_fini(&back);
    perf_calib_fini(&c);
    sim_diag_fini(&d);
}
END_TEST

/* Several GPU kinds: each kind's own errors once, and a default key only
 * while some kind still uses it. */
START_TEST(test_perf_calib_dist_kinds)
{
    static const char text[] =
        PROV "gpus:\n"
             "  default:\n"
             "    iteration_overhead: 150us\n"
             "    uncertainty: {std_errors: {iteration_overhead: 20us}}\n"
             "  h100:\n"
             "    gemm: {hbm_efficiency: 0.8}\n"
             "    uncertainty: {std_errors: {gemm.hbm_efficiency: 0.02}}\n"
             "  h200:\n"
             "    gemm: {hbm_efficiency: 0.82}\n"
             "    iteration_overhead: 140us\n"
             "    uncertainty: {std_errors: {gemm.hbm_efficiency: 0.03,\n"
             "      iteration_overhead: 10us}}\n";
    const char *both[] = {"h100", "h200", "h100"};
    const char *h200[] = {"h200"};
    struct perf_calib c;
    struct perf_calib_dist *dist = xmalloc(sizeof(*dist));
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(
        perf_calib_load_string("k.yaml", text, strlen(text), &c, &d), 0);
    ck_assert_int_eq(perf_calib_dist_init_kinds(&c, both, 3, dist), 4);
    ck_assert_int_eq(perf_calib_dist_init_kinds(&c, h200, 1, dist), 2);
    ck_assert_int_eq(perf_calib_dist_init(&c, "h100", dist), 2);
    ck_assert_int_eq(perf_calib_dist_init(&c, "a100", dist), 1);
    free(dist);
    perf_calib_fini(&c);
    sim_diag_fini(&d);
}
END_TEST

/* Data-parallel attention (DeepSeek-V3, tp 1, ep 16: dp 16): the host
 * time per sequence is the busiest rank's, ceil(D / 16) sequences, not
 * all D; the decode attention of 17 sequences waits for the rank with 2,
 * as much as 32 sequences spread evenly would take. */
START_TEST(test_perf_dp_attention_per_rank)
{
    struct perf_replica r;
    struct perf_breakdown a, b;
    struct perf_batch b17 = decode(17, 1024), b32 = decode(32, 1024);
    struct perf_batch b1600 = decode(1600, 1024);

    must_init(&r, "deepseek-v3", "h200", 1, 1, 16, CL_DTYPE_FP8);
    ck_assert_int_eq(r.dp, 16);
    perf_iteration_breakdown(&r, &b1600, &a);
    /* 126 us per iteration + 4 us x 100 sequences (the built-in H200 host
     * figures). */
    ck_assert_double_eq_tol(a.op[PERF_OP_OVERHEAD].ns, 126000.0 + 4000.0 * 100,
                            1e-6);
    perf_iteration_breakdown(&r, &b17, &a);
    perf_iteration_breakdown(&r, &b32, &b);
    ck_assert_double_eq_tol(a.op[PERF_OP_ATTENTION].ns,
                            b.op[PERF_OP_ATTENTION].ns,
                            1e-6 * b.op[PERF_OP_ATTENTION].ns);
    ck_assert_double_eq_tol(a.op[PERF_OP_OVERHEAD].ns, 126000.0 + 4000.0 * 2,
                            1e-6);
}
END_TEST

START_TEST(test_perf_calib_shipped_file_is_the_builtin)
{
    /* models/perf/calibration-default.yaml documents the defaults: it
     * must hold exactly perf_calib_builtin's entries. */
    const char *src = getenv("top_srcdir");
    char *path = xasprintf("%s/models/perf/calibration-default.yaml",
                           src != NULL && src[0] != '\0' ? src : ".");
    struct perf_calib c;
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_msg(perf_calib_load(path, &c, &d) == 0, "%s",
                  d.n > 0 ? d.v[0].msg : path);
    ck_assert_int_eq(c.ngpus, perf_calib_builtin.ngpus);
    ck_assert_int_eq(c.nlinks, 0);
    for (int i = 0; i < perf_calib_builtin.ngpus; i++) {
        const struct perf_calib_gpu *b = &perf_calib_builtin.gpus[i];
        const struct perf_calib_gpu *f = perf_calib_find_gpu(&c, b->name);

        ck_assert_msg(f != NULL, "%s missing", b->name);
        same_double(f->gemm.eff_max, b->gemm.eff_max, "gemm.efficiency_max");
        same_double(f->gemm.half_tokens, b->gemm.half_tokens,
                    "gemm.half_tokens");
        same_double(f->gemm.eff_memory, b->gemm.eff_memory,
                    "gemm.hbm_efficiency");
        ck_assert_int_eq(f->gemm.kernel_ns, b->gemm.kernel_ns);
        same_double(f->attn.eff_compute, b->attn.eff_compute,
                    "attention.compute_efficiency");
        same_double(f->attn.eff_memory, b->attn.eff_memory,
                    "attention.hbm_efficiency");
        ck_assert_int_eq(f->attn.kernel_ns, b->attn.kernel_ns);
        same_double(f->elem.eff_memory, b->elem.eff_memory,
                    "elementwise.hbm_efficiency");
        ck_assert_int_eq(f->elem.kernel_ns, b->elem.kernel_ns);
        ck_assert_int_eq(f->launch.eager_ns, b->launch.eager_ns);
        ck_assert_int_eq(f->launch.graph_ns, b->launch.graph_ns);
        ck_assert_int_eq(f->frontend.request_ns, b->frontend.request_ns);
        ck_assert_int_eq(f->frontend.per_prompt_token_ns,
                         b->frontend.per_prompt_token_ns);
        ck_assert_int_eq(f->frontend.per_output_token_ns,
                         b->frontend.per_output_token_ns);
        same_double(f->alltoall.normal_intranode, b->alltoall.normal_intranode,
                    "alltoall.normal_intranode");
        same_double(f->alltoall.normal_internode, b->alltoall.normal_internode,
                    "alltoall.normal_internode");
        ck_assert_int_eq(f->alltoall.normal_base_ns,
                         b->alltoall.normal_base_ns);
        same_double(f->alltoall.low_latency_intranode,
                    b->alltoall.low_latency_intranode,
                    "alltoall.low_latency_intranode");
        same_double(f->alltoall.low_latency_internode,
                    b->alltoall.low_latency_internode,
                    "alltoall.low_latency_internode");
        ck_assert_int_eq(f->alltoall.low_latency_base_ns,
                         b->alltoall.low_latency_base_ns);
        ck_assert_int_eq(f->iteration_overhead_ns, b->iteration_overhead_ns);
        ck_assert_int_eq(f->seq_overhead_ns, b->seq_overhead_ns);
    }
    perf_calib_fini(&c);
    sim_diag_fini(&d);
    free(path);
}
END_TEST

/* ---- expert parallelism (docs/step-time.md "Expert parallelism") ---- */

/* A replica of layout l (gpus_per_node 8 unless set) with the built-in
 * calibration; returns perf_replica_init()'s code, the reason in why. */
static int init_layout(struct perf_replica *r, const struct arch_spec *a,
                       const char *gpu, struct perf_layout l, char *why,
                       size_t whylen)
{
    if (l.gpus_per_node == 0)
        l.gpus_per_node = 8;
    return perf_replica_init(r, a, must_gpu(gpu), &l, CL_DTYPE_FP8,
                             CL_DTYPE_FP8, 0.9, NULL, why, whylen);
}

/* DeepSeek-V3 on 16 H200 with expert parallelism and two micro-batches
 * into *r. */
static void init_ep16_two_micro_batches(struct perf_replica *r)
{
    char why[512] = "";

    ck_assert_msg(init_layout(r, must_arch("deepseek-v3"), "h200",
                              (struct perf_layout){.tp = 1,
                                                   .pp = 1,
                                                   .ep = 16,
                                                   .micro_batches = 2,
                                                   .gpus_per_node = 8},
                              why, sizeof(why)) == 0,
                  "%s", why);
}

/* The decode memo (perf_iteration_ns_memo) gives perf_iteration_ns()'s
 * value bit for bit: decode steps whose context grows and whose decoder
 * count goes up and down, mixed steps between them (priced whole, leaving
 * the memo as it was but for their all-reduce; those with new prompts
 * only, of one token count split in many ways, from its entry), steps ahead
 * (perf_decode_steps(), with the memo and without), one memo shared by
 * two replicas in turn, on every property replica and on two
 * micro-batches, DSA and MTP layouts. */
START_TEST(test_perf_iteration_memo_is_exact)
{
    struct perf_replica r[PROPS_N + 3], *prev = NULL;
    struct perf_step_memo m = {0};
    char why[512] = "";
    int n = 0;

    for (size_t i = 0; i < PROPS_N; i++)
        must_init(&r[n++], props[i].model, props[i].gpu, props[i].tp,
                  props[i].pp, props[i].ep, props[i].dtype);
    init_ep16_two_micro_batches(&r[n++]);
    ck_assert_msg(init_layout(&r[n++], must_arch("deepseek-v3"), "h200",
                              (struct perf_layout){.tp = 8,
                                                   .pp = 1,
                                                   .ep = 8,
                                                   .spec_method = PERF_SPEC_MTP,
                                                   .spec_tokens = 2,
                                                   .spec_acceptance = 0.8},
                              why, sizeof(why)) == 0,
                  "%s", why);
    ck_assert_msg(
        init_layout(
            &r[n++], must_arch("deepseek-v3.2"), "h200",
            (struct perf_layout){.tp = 1, .pp = 1, .ep = 8, .micro_batches = 2},
            why, sizeof(why)) == 0,
        "%s", why);
    for (int i = 0; i < n; i++) {
        int64_t seqs = 1, ctx = 100;
        for (int step = 0; step < 400; step++) {
            struct perf_batch b = decode(seqs, 0);
            b.decode_ctx_tokens = ctx;
            if (step % 37 == 5) { /* a mixed step, its size seen again */
                b.prefill_tokens = 1000 + step % 2 * 24;
                b.prefill_ctx_tokens = step;
                b.prefill_attn_pairs = 1000.0 * (step + 500.0);
                b.prefill_seqs = 1;
                b.prefill_done_seqs = 1;
            }
            if (step % 7 == 3) {
                /* New prompts (no prefill context): 1,200 tokens in all,
                 * split anew each time between prompts and decoders (the
                 * memo keeps what depends on the count alone). */
                b.prefill_tokens = 1200 - seqs;
                b.prefill_attn_pairs = 600.0 * (double)b.prefill_tokens;
                b.prefill_seqs = 1 + step % 2;
                b.prefill_done_seqs = step % 3 != 0;
            }
            ck_assert_int_eq(perf_iteration_ns_memo(&r[i], &b, &m),
                             perf_iteration_ns(&r[i], &b));
            /* Steps ahead, as a fast-forwarded window prices them. */
            if (step % 3 == 0) {
                int64_t ahead[7];
                perf_decode_steps(&r[i], &b, 7, step % 2 ? &m : NULL, ahead);
                for (int j = 0; j < 7; j++) {
                    struct perf_batch c = b;
                    c.decode_ctx_tokens += j * b.decode_seqs;
                    ck_assert_int_eq(ahead[j], perf_iteration_ns(&r[i], &c));
                }
            }
            /* Every few steps the other replica borrows the memo. */
            if (prev != NULL && step % 53 == 0) {
                struct perf_batch o = decode(seqs, 700);
                ck_assert_int_eq(perf_iteration_ns_memo(prev, &o, &m),
                                 perf_iteration_ns(prev, &o));
            }
            ctx += seqs * (1 + step % 3) + 4093 * (step % 11 == 0);
            seqs = 1 + (seqs * 7 + step) % 300;
            if (step % 5 != 0) /* mostly the same decoders again */
                seqs = seqs > 1 && step % 2 ? seqs - 1 : seqs;
        }
        prev = &r[i];
    }
    perf_step_memo_fini(&m);
    ck_assert_ptr_null(m.x);
    ck_assert_ptr_null(m.mx);
}
END_TEST

/* Every property replica, then DeepSeek-V3.2 on 8 H200 (DSA's capped
 * attention) into r (PROPS_N + 1 of them); returns how many. */
static int props_and_dsa(struct perf_replica *r)
{
    char why[512] = "";
    int n = 0;

    for (size_t i = 0; i < PROPS_N; i++)
        must_init(&r[n++], props[i].model, props[i].gpu, props[i].tp,
                  props[i].pp, props[i].ep, props[i].dtype);
    ck_assert_msg(init_layout(&r[n++], must_arch("deepseek-v3.2"), "h200",
                              (struct perf_layout){.tp = 8, .pp = 1, .ep = 1},
                              why, sizeof(why)) == 0,
                  "%s", why);
    return n;
}

/* A window's steps are priced by a rearranged sum that must round to the
 * same nanosecond as the step model's own (roofline.c decode_ns_quick()):
 * 64-step windows over the whole range of context, on every property
 * replica and on a DSA layout (capped attention), against
 * perf_iteration_ns(), 670,000 steps in all (its own test case, with a
 * timeout for sanitizer builds). */
START_TEST(test_perf_decode_steps_match_every_step)
{
    struct perf_replica r[PROPS_N + 1];
    struct perf_step_memo m = {0};
    static const int64_t seqs[] = {1, 3, 17, 64, 255};
    int n = props_and_dsa(r);
    int64_t checked = 0;

    for (int i = 0; i < n; i++) {
        for (size_t s = 0; s < sizeof(seqs) / sizeof(seqs[0]); s++) {
            /* Context from 1 token a decoder to past DSA's cap. */
            for (int64_t w = 0; w < 300; w++) {
                int64_t ahead[64];
                struct perf_batch b =
                    decode(seqs[s], 1 + w * w * 331 % 40000 + w * 19);
                perf_decode_steps(&r[i], &b, 64, &m, ahead);
                for (int j = 0; j < 64; j++) {
                    struct perf_batch c = b;
                    c.decode_ctx_tokens += j * b.decode_seqs;
                    ck_assert_int_eq(ahead[j], perf_iteration_ns(&r[i], &c));
                    checked++;
                }
            }
        }
    }
    ck_assert_int_gt(checked, 64 * 300 * 5 * PROPS_N);
    perf_step_memo_fini(&m);
}
END_TEST

/* A step with new prompts whose token count the memo has seen is priced
 * from the memo's entry by a rearranged sum (roofline.c mixed_quick()),
 * which must round to the same nanosecond as the step priced whole: 200
 * token counts, each split ten ways between prompts and decoders (one to
 * three prompts, the last of them done or not, decoders' context from
 * none to past DSA's cap), on every property replica and on expert
 * parallelism with two micro-batches (which the rearranged sum leaves to
 * the whole step), against perf_iteration_ns(). */
START_TEST(test_perf_mixed_steps_from_the_memo_match)
{
    struct perf_replica r[PROPS_N + 2];
    struct perf_step_memo m = {0};
    int n = props_and_dsa(r);
    int64_t checked = 0;

    init_ep16_two_micro_batches(&r[n++]);
    for (int i = 0; i < n; i++) {
        for (int64_t w = 0; w < 200; w++) {
            int64_t t = 2 + w * w * 97 % 8000;
            for (int64_t split = 0; split < 10; split++) {
                struct perf_batch b = {0};
                int64_t dec = (w * 7 + split * 13) % 300;
                if (dec >= t)
                    dec = t - 1;
                b.decode_seqs = dec;
                b.decode_ctx_tokens = dec * (1 + split * split * 977 % 60000);
                b.prefill_tokens = t - dec;
                b.prefill_attn_pairs =
                    (double)b.prefill_tokens * ((double)b.prefill_tokens / 2.0);
                b.prefill_seqs = 1 + split % 3;
                b.prefill_done_seqs = split % 2;
                ck_assert_int_eq(perf_iteration_ns_memo(&r[i], &b, &m),
                                 perf_iteration_ns(&r[i], &b));
                checked++;
            }
        }
    }
    ck_assert_int_eq(checked, 200 * 10 * n);
    perf_step_memo_fini(&m);
}
END_TEST

START_TEST(test_perf_expert_placement_covers_every_expert)
{
    static const int cases[][3] = {
        {256, 32, 144}, {256, 32, 32}, {256, 0, 8},  {256, 0, 256},
        {256, 44, 100}, {8, 3, 11},    {128, 0, 16},
    };

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int e = cases[c][0], red = cases[c][1], ep = cases[c][2];
        int slots = e + red, per = slots / ep;
        int *slot = xcalloc((size_t)slots, sizeof(int));
        int *copies = xcalloc((size_t)e, sizeof(int));
        int *first_gpu = xcalloc((size_t)e, sizeof(int));

        ck_assert_int_eq(perf_expert_placement(e, red, ep, slot), 0);
        for (int j = 0; j < slots; j++) {
            int x = slot[j];
            ck_assert_msg(x >= 0 && x < e, "slot %d holds %d", j, x);
            /* Two copies of one expert sit on different GPUs. */
            if (copies[x]++ == 0)
                first_gpu[x] = j / per;
            else
                ck_assert_msg(first_gpu[x] != j / per,
                              "%d+%d/%d: expert %d twice on gpu %d", e, red, ep,
                              x, j / per);
        }
        /* Every expert has a slot; the hot ones (0 .. red - 1) two. */
        for (int x = 0; x < e; x++)
            ck_assert_msg(copies[x] == (x < red ? 2 : 1),
                          "%d+%d/%d: expert %d has %d slots", e, red, ep, x,
                          copies[x]);
        free(slot);
        free(copies);
        free(first_gpu);
    }
    /* An ep that divides no slot count, too many copies: refused. */
    {
        int slot[300];
        ck_assert_int_eq(perf_expert_placement(256, 0, 144, slot), SIM_EINVAL);
        ck_assert_int_eq(perf_expert_placement(8, 9, 1, slot), SIM_EINVAL);
    }
}
END_TEST

START_TEST(test_perf_replica_ep144_redundant_slots)
{
    /* DeepSeek's decode: EP144 with 32 redundant experts, 288 slots, 2 per
     * GPU, the same expert weight per GPU as EP128 without redundancy;
     * prefill EP32: 9 per GPU (docs/sources.md §14). */
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    struct perf_replica r, r128;
    char why[1024] = "";

    ck_assert_msg(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 144, .redundant_experts = 32},
                    why, sizeof(why)) == 0,
        "%s", why);
    ck_assert_int_eq(r.expert_slots, 288);
    ck_assert_int_eq(r.slots_per_gpu, 2);
    ck_assert_int_eq(r.gpus, 144);
    ck_assert_int_eq(
        init_layout(&r128, v3, "h800",
                    (struct perf_layout){.tp = 1, .pp = 1, .ep = 128}, why,
                    sizeof(why)),
        0);
    ck_assert_int_eq(r128.slots_per_gpu, 2);
    ck_assert_double_eq_tol(r.weight_bytes_per_gpu, r128.weight_bytes_per_gpu,
                            1.0);
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 32, .redundant_experts = 32},
                    why, sizeof(why)),
        0);
    ck_assert_int_eq(r.slots_per_gpu, 9);
    /* 9 experts a GPU where EP32 without copies holds 8: one expert's
     * weights more per MoE layer. */
    ck_assert_int_eq(
        init_layout(&r128, v3, "h800",
                    (struct perf_layout){.tp = 1, .pp = 1, .ep = 32}, why,
                    sizeof(why)),
        0);
    ck_assert_double_eq_tol(
        r.weight_bytes_per_gpu - r128.weight_bytes_per_gpu,
        58.0 * (double)arch_params_expert(v3) * r.weight_bytes_per_param, 1e3);
}
END_TEST

START_TEST(test_perf_replica_ep_refused_with_a_fix)
{
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    struct perf_replica r;
    char why[1024] = "";

    /* EP144 without copies divides nothing: the message names the slots
     * and the redundancy that would fit. */
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){.tp = 1, .pp = 1, .ep = 144}, why,
                    sizeof(why)),
        SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "dividing the 256 expert slots of deepseek-v3 "
                              "(256 routed + 0 redundant); redundant_experts "
                              "32 gives 288 slots, 2 per gpu") != NULL,
                  "%s", why);
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 144, .redundant_experts = 16},
                    why, sizeof(why)),
        SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "272 expert slots") != NULL, "%s", why);
    /* Copies need EP; at most one extra per expert. */
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 8, .pp = 1, .ep = 1, .redundant_experts = 8},
                    why, sizeof(why)),
        SIM_EINFEASIBLE);
    ck_assert_str_eq(why, "redundant_experts needs expert parallelism (ep > "
                          "1); with ep 1 every gpu holds a slice of every "
                          "expert");
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 512, .redundant_experts = 256},
                    why, sizeof(why)),
        0);
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 257, .redundant_experts = 257},
                    why, sizeof(why)),
        SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "redundant_experts 257 exceeds the 256 routed "
                              "experts") != NULL,
                  "%s", why);
    /* Two micro-batches with pipeline stages: refused. */
    ck_assert_int_eq(
        init_layout(
            &r, v3, "h800",
            (struct perf_layout){.tp = 8, .pp = 2, .ep = 8, .micro_batches = 2},
            why, sizeof(why)),
        SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "micro_batches 2 needs pp 1") != NULL, "%s", why);
}
END_TEST

START_TEST(test_perf_expected_max_normal_blom)
{
    /* E[max of 2] = 1 / sqrt(pi) = 0.564; of 100: 2.508 (tables of normal
     * order statistics); Blom's rule within 0.03. */
    ck_assert_double_eq(perf_expected_max_normal(1), 0.0);
    ck_assert_double_eq_tol(perf_expected_max_normal(2), 0.5642, 0.03);
    ck_assert_double_eq_tol(perf_expected_max_normal(100), 2.5076, 0.03);
    ck_assert(perf_expected_max_normal(144) > perf_expected_max_normal(128));
}
END_TEST

START_TEST(test_perf_imbalance_uniform_routing)
{
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    struct perf_replica r;
    struct perf_breakdown small, large;
    struct perf_batch b1 = decode(64, 1000), b2 = decode(1 << 20, 10);
    char why[512] = "";

    /* EP32, 8 experts a GPU: the busiest rank's excess shrinks as 1 /
     * sqrt(T) towards the even placement's 1. */
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){.tp = 1, .pp = 1, .ep = 32}, why,
                    sizeof(why)),
        0);
    ck_assert_double_eq(r.imb_static, 1.0);
    perf_iteration_breakdown(&r, &b1, &small);
    perf_iteration_breakdown(&r, &b2, &large);
    ck_assert(small.expert_imbalance > large.expert_imbalance);
    ck_assert(large.expert_imbalance > 1.0 && large.expert_imbalance < 1.02);
    /* EP144 with 32 copies: 224 single-copy experts over 144 GPUs leave 80
     * with two whole experts, 2 / 256 of the pairs where the mean is 1 /
     * 144: 1.125 however large the batch (plus 0.012 at 2^20 tokens). */
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 144, .redundant_experts = 32},
                    why, sizeof(why)),
        0);
    ck_assert_double_eq_tol(r.imb_static, 1.125, 1e-12);
    perf_iteration_breakdown(&r, &b2, &large);
    ck_assert(large.expert_imbalance > 1.125 && large.expert_imbalance < 1.14);
    /* The key replaces the derivation; 1 prices the mean exactly: 58 MoE
     * layers of 64 / 144 tokens x 8 copies x 7168 x (1 + 2) B. */
    ck_assert_int_eq(init_layout(&r, v3, "h800",
                                 (struct perf_layout){.tp = 1,
                                                      .pp = 1,
                                                      .ep = 144,
                                                      .redundant_experts = 32,
                                                      .expert_imbalance = 1.0},
                                 why, sizeof(why)),
                     0);
    perf_iteration_breakdown(&r, &b1, &small);
    ck_assert_double_eq(small.expert_imbalance, 1.0);
    ck_assert_double_eq_tol(small.op[PERF_OP_EP_COMM].bytes,
                            58 * 64.0 / 144 * 8 * 7168 * 3, 1e-3);
    /* Without EP: no imbalance. */
    must_init(&r, "deepseek-v3", "h200", 8, 1, 1, CL_DTYPE_FP8);
    perf_iteration_breakdown(&r, &b1, &small);
    ck_assert_double_eq(small.expert_imbalance, 1.0);
}
END_TEST

/* DeepEP's low-latency kernels on H800 (deepseek-ai/DeepEP @ 0297fc80
 * docs/legacy.md via docs/sources.md §14): 128 tokens per GPU, hidden 7168,
 * top-8, fp8 dispatch, bf16 combine; EP, dispatch us, combine us. The
 * inputs of the built-in fit (models/perf/calib.c). */
static const double deepep_ll[][3] = {
    {8, 77, 114},   {16, 118, 195},  {32, 155, 273},
    {64, 173, 314}, {128, 192, 369}, {256, 194, 360},
};

START_TEST(test_perf_a2a_low_latency_fits_deepep)
{
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    double worst = 0.0;

    for (size_t i = 0; i < sizeof(deepep_ll) / sizeof(deepep_ll[0]); i++) {
        int ep = (int)deepep_ll[i][0];
        /* EP8 holds 1/8 of V3 per GPU only with two stages; pp does not
         * change the per-layer all-to-all. */
        struct perf_layout l = {
            .tp = 1, .pp = ep == 8 ? 2 : 1, .ep = ep, .expert_imbalance = 1.0};
        struct perf_replica r;
        struct perf_batch b = decode(128 * ep, 100);
        struct perf_breakdown bd;
        double pairs_bytes = 128.0 * 8 * 7168, d, c, sum;
        char why[512] = "";

        ck_assert_msg(init_layout(&r, v3, "h800", l, why, sizeof(why)) == 0,
                      "ep %d: %s", ep, why);
        perf_iteration_breakdown(&r, &b, &bd);
        ck_assert_int_eq(bd.a2a_class, PERF_A2A_LOW_LATENCY);
        d = (r.calib.a2a_ll_base_ns + pairs_bytes * r.a2a_ll_ns_per_byte) / 1e3;
        c = (r.calib.a2a_ll_base_ns + 2 * pairs_bytes * r.a2a_ll_ns_per_byte) /
            1e3;
        sum = bd.a2a_total_ns / r.moe_layers / 1e3;
        ck_assert_double_eq_tol(sum, d + c, 1e-6);
        worst = fmax(worst, fabs(d / deepep_ll[i][1] - 1.0));
        worst = fmax(worst, fabs(c / deepep_ll[i][2] - 1.0));
    }
    /* docs/step-time.md states the worst error: 15 %. */
    ck_assert_msg(worst < 0.155, "worst relative error %.3f", worst);
}
END_TEST

START_TEST(test_perf_a2a_normal_kernels_and_node_limit)
{
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    struct arch_spec free_routing = *v3;
    struct perf_replica r, rf;
    struct perf_breakdown bd;
    struct perf_batch b = {0};
    char why[512] = "";

    /* A prefill batch runs the normal kernels: within a node at EP8 (at
     * 0.78 x 200 GB/s), across nodes at EP32 and EP64. */
    b.prefill_tokens = 4096 * 8;
    b.prefill_attn_pairs = 4096.0 * 8 * 2048;
    b.prefill_seqs = 8;
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 2, .ep = 8, .expert_imbalance = 1.0},
                    why, sizeof(why)),
        0);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.a2a_class, PERF_A2A_NORMAL_INTRA);
    ck_assert_double_eq_tol(bd.a2a_total_ns / r.moe_layers,
                            2 * 37000.0 + 4096.0 * 8 * 7168 * 3 / 156e9 * 1e9,
                            1.0);
    /* Node-limited routing: a token's 8 experts lie in 4 of 8 groups; at
     * EP64 (8 nodes, one group each) it reaches at most 4 nodes, where
     * free routing would reach 8 * (1 - (7/8)^8) = 5.25 of them. */
    ck_assert_int_eq(v3->moe.n_group, 8);
    ck_assert_int_eq(v3->moe.topk_group, 4);
    free_routing.moe.n_group = free_routing.moe.topk_group = 0;
    ck_assert_int_eq(
        init_layout(&r, v3, "h800",
                    (struct perf_layout){.tp = 1, .pp = 1, .ep = 64}, why,
                    sizeof(why)),
        0);
    ck_assert_int_eq(
        init_layout(&rf, &free_routing, "h800",
                    (struct perf_layout){.tp = 1, .pp = 1, .ep = 64}, why,
                    sizeof(why)),
        0);
    ck_assert_double_eq_tol(rf.a2a_node_copies, 8 * (1 - pow(7.0 / 8, 8)),
                            1e-9);
    ck_assert_double_eq_tol(r.a2a_node_copies, 4 * (1 - pow(3.0 / 4, 8)), 1e-9);
    perf_iteration_breakdown(&r, &b, &bd);
    ck_assert_int_eq(bd.a2a_class, PERF_A2A_NORMAL_INTER);
    {
        struct perf_breakdown bf;
        perf_iteration_breakdown(&rf, &b, &bf);
        ck_assert(bd.a2a_total_ns < bf.a2a_total_ns);
    }
}
END_TEST

/* The compute of a breakdown: every class but the EP all-to-all and the
 * host. */
static double compute_ns(const struct perf_breakdown *bd)
{
    double s = 0.0;

    for (int i = 0; i < PERF_OP_OVERHEAD; i++)
        if (i != PERF_OP_EP_COMM)
            s += bd->op[i].ns;
    return s;
}

/* Speculative decoding (docs/step-time.md "Speculative decoding"). */
START_TEST(test_perf_spec_tokens_per_step)
{
    /* 1 + a + a^2 + ... + a^k by hand. */
    ck_assert_double_eq(perf_spec_tokens_per_step(0, 0.9), 1.0);
    ck_assert_double_eq_tol(perf_spec_tokens_per_step(1, 0.85), 1.85, 1e-12);
    ck_assert_double_eq_tol(perf_spec_tokens_per_step(2, 0.5), 1.75, 1e-12);
    ck_assert_double_eq_tol(perf_spec_tokens_per_step(3, 1.0), 4.0, 1e-12);
    ck_assert_double_eq(perf_spec_tokens_per_step(4, 0.0), 1.0);
}
END_TEST

START_TEST(test_perf_spec_mtp_costs_and_pays)
{
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    struct perf_layout base = {.tp = 1,
                               .pp = 1,
                               .ep = 144,
                               .redundant_experts = 32,
                               .micro_batches = 2};
    struct perf_layout mtp = base, mtp0 = base;
    struct perf_replica r0, r1, rz;
    struct perf_saturation s0, s1, sz;
    struct perf_breakdown b0, b1;
    struct perf_batch b = decode(18432, 4096);
    char why[512] = "";

    mtp.spec_method = mtp0.spec_method = PERF_SPEC_MTP;
    mtp.spec_tokens = mtp0.spec_tokens = 1;
    mtp.spec_acceptance = 0.85;
    mtp0.spec_acceptance = 0.0;
    ck_assert_int_eq(init_layout(&r0, v3, "h800", base, why, sizeof(why)), 0);
    ck_assert_int_eq(init_layout(&r1, v3, "h800", mtp, why, sizeof(why)), 0);
    ck_assert_int_eq(init_layout(&rz, v3, "h800", mtp0, why, sizeof(why)), 0);
    /* The MTP layer's weights and KV cache take HBM. */
    ck_assert(r1.weight_bytes_per_gpu > r0.weight_bytes_per_gpu);
    ck_assert(r1.kv_bytes_per_token_per_gpu > r0.kv_bytes_per_token_per_gpu);
    ck_assert(r1.kv_capacity_tokens < r0.kv_capacity_tokens);
    /* A verifying step is longer (two query tokens a sequence, the
     * draft), and the draft shows in its own class. */
    perf_iteration_breakdown(&r0, &b, &b0);
    perf_iteration_breakdown(&r1, &b, &b1);
    ck_assert(b1.total_ns > b0.total_ns);
    ck_assert_double_eq(b0.op[PERF_OP_DRAFT].ns, 0.0);
    ck_assert(b1.op[PERF_OP_DRAFT].ns > 0.0);
    ck_assert_double_eq_tol(b1.tokens, 2.0 * b0.tokens, 1e-9);
    ck_assert_double_eq_tol(b1.spec_tokens_per_step, 1.85, 1e-12);
    /* Acceptance 0 costs more than no MTP; 0.85 pays where decode is
     * memory-bound (8 sequences a GPU; DeepSeek reports about 1.8x decode
     * tokens/s). */
    ck_assert_int_eq(perf_saturate(&r0, 4096, 8 * 144, &s0), 0);
    ck_assert_int_eq(perf_saturate(&r1, 4096, 8 * 144, &s1), 0);
    ck_assert_int_eq(perf_saturate(&rz, 4096, 8 * 144, &sz), 0);
    ck_assert(sz.tokens_per_s < s0.tokens_per_s);
    ck_assert(s1.tokens_per_s > 1.3 * s0.tokens_per_s);
    ck_assert(s1.tokens_per_s < 1.85 * s0.tokens_per_s);
}
END_TEST

START_TEST(test_perf_spec_refused)
{
    struct perf_replica r;
    char why[512] = "";

    /* Llama has no MTP module: ngram works, mtp is refused by name. */
    ck_assert_int_eq(
        init_layout(&r, must_arch("llama-3.1-8b"), "h100",
                    (struct perf_layout){.tp = 1,
                                         .pp = 1,
                                         .ep = 1,
                                         .spec_method = PERF_SPEC_MTP,
                                         .spec_tokens = 1,
                                         .spec_acceptance = 0.8},
                    why, sizeof(why)),
        SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "use method ngram") != NULL, "%s", why);
    ck_assert_int_eq(
        init_layout(&r, must_arch("llama-3.1-8b"), "h100",
                    (struct perf_layout){.tp = 1,
                                         .pp = 1,
                                         .ep = 1,
                                         .spec_method = PERF_SPEC_NGRAM,
                                         .spec_tokens = 9,
                                         .spec_acceptance = 0.8},
                    why, sizeof(why)),
        SIM_EINVAL);
    ck_assert_int_eq(
        init_layout(&r, must_arch("llama-3.1-8b"), "h100",
                    (struct perf_layout){.tp = 1,
                                         .pp = 1,
                                         .ep = 1,
                                         .spec_method = PERF_SPEC_NGRAM,
                                         .spec_tokens = 3,
                                         .spec_acceptance = 0.6},
                    why, sizeof(why)),
        0);
    ck_assert_int_eq(r.spec_tokens, 3);
}
END_TEST

START_TEST(test_perf_two_micro_batches_never_shorter_than_a_part)
{
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    static const int64_t seqs[] = {2, 144, 4096, 18432, 65536};
    struct perf_replica r1, r2;
    char why[512] = "";

    ck_assert_int_eq(
        init_layout(&r1, v3, "h800",
                    (struct perf_layout){
                        .tp = 1, .pp = 1, .ep = 144, .redundant_experts = 32},
                    why, sizeof(why)),
        0);
    ck_assert_int_eq(init_layout(&r2, v3, "h800",
                                 (struct perf_layout){.tp = 1,
                                                      .pp = 1,
                                                      .ep = 144,
                                                      .redundant_experts = 32,
                                                      .micro_batches = 2},
                                 why, sizeof(why)),
                     0);
    for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
        for (int pf = 0; pf < 2; pf++) {
            struct perf_batch b = decode(seqs[i], 2000);
            struct perf_breakdown one, two;
            double longest;

            if (pf) {
                b.prefill_tokens = 8192;
                b.prefill_attn_pairs = 8192.0 * 4096;
                b.prefill_seqs = 1;
            }
            perf_iteration_breakdown(&r1, &b, &one);
            perf_iteration_breakdown(&r2, &b, &two);
            ck_assert_int_eq(two.micro_batches, 2);
            /* One batch hides nothing; two hide a part. */
            ck_assert_double_eq(one.a2a_hidden_ns, 0.0);
            ck_assert_double_eq_tol(one.a2a_exposed_ns, one.a2a_total_ns, 1e-6);
            ck_assert_double_eq_tol(two.a2a_hidden_ns + two.a2a_exposed_ns,
                                    two.a2a_total_ns, 1e-3);
            ck_assert(two.a2a_hidden_ns > 0.0);
            /* The step is never shorter than its longest part. */
            longest = fmax(compute_ns(&two), two.a2a_total_ns);
            ck_assert_msg((double)two.total_ns - (double)two.overhead_ns >=
                              longest - 1.0,
                          "seqs %lld pf %d: %lld < %.0f", (long long)seqs[i],
                          pf, (long long)two.total_ns, longest);
            longest = fmax(compute_ns(&one), one.a2a_total_ns);
            ck_assert((double)one.total_ns - (double)one.overhead_ns >=
                      longest - 1.0);
        }
    }
}
END_TEST

START_TEST(test_perf_hf_reads_node_limited_routing)
{
    const char *src = getenv("top_srcdir");
    char *path = xasprintf("%s/tests/data/hf/deepseek-v3",
                           src != NULL && src[0] != '\0' ? src : ".");
    struct arch_spec *a = NULL;
    char why[512] = "";

    ck_assert_msg(arch_hf_load(path, &a, why, sizeof(why)) == 0, "%s", why);
    ck_assert_int_eq(a->moe.n_group, 8);
    ck_assert_int_eq(a->moe.topk_group, 4);
    arch_hf_free(a);
    free(path);
    /* Dense and Qwen models carry no limit. */
    ck_assert_int_eq(must_arch("qwen3-235b-a22b")->moe.topk_group, 0);
}
END_TEST

static Suite *step_suite(void)
{
    Suite *s = suite_create("step");
    TCase *tc;

    tc = tcase_create("primitives");
    tcase_add_test(tc, test_perf_gemm_eff_curve);
    tcase_add_test(tc, test_perf_op_ns_roofline_and_bound);
    tcase_add_test(tc, test_perf_calib_defaults_honour_facts_anchors);
    suite_add_tcase(s, tc);

    /* 670,000 steps priced twice: seconds under the sanitizers. */
    tc = tcase_create("perf_decode_steps");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_perf_decode_steps_match_every_step);
    tcase_add_test(tc, test_perf_mixed_steps_from_the_memo_match);
    suite_add_tcase(s, tc);

    tc = tcase_create("perf_iteration_breakdown");
    tcase_add_test(tc, test_perf_iteration_ns_empty_batch);
    tcase_add_test(tc, test_perf_iteration_ns_single_decode_weight_bound);
    tcase_add_test(tc, test_perf_iteration_ns_large_prefill_compute_bound);
    tcase_add_test(tc, test_perf_iteration_lm_head_only_for_sampled);
    tcase_add_test(tc, test_perf_cudagraph_modes);
    tcase_add_test(tc, test_perf_iteration_mla_decode_and_moe);
    tcase_add_test(tc, test_perf_iteration_mla_prefill_expands_cached_latents);
    tcase_add_test(tc, test_perf_iteration_a100_fp8_is_weight_only);
    tcase_add_test(tc, test_perf_iteration_tp_allreduces);
    tcase_add_test(tc, test_perf_iteration_tp_custom_allreduce);
    tcase_add_test(tc, test_perf_iteration_ep_and_pp_terms_only_when_used);
    tcase_add_test(tc, test_perf_replica_dp_attention_groups);
    tcase_add_test(tc, test_perf_iteration_monotone_in_batch_and_context);
    tcase_add_test(tc, test_perf_iteration_memo_is_exact);
    tcase_add_test(tc, test_perf_iteration_breakdown_adds_up);
    suite_add_tcase(s, tc);

    tc = tcase_create("perf_expert_parallel");
    tcase_add_test(tc, test_perf_expert_placement_covers_every_expert);
    tcase_add_test(tc, test_perf_replica_ep144_redundant_slots);
    tcase_add_test(tc, test_perf_replica_ep_refused_with_a_fix);
    tcase_add_test(tc, test_perf_expected_max_normal_blom);
    tcase_add_test(tc, test_perf_imbalance_uniform_routing);
    tcase_add_test(tc, test_perf_a2a_low_latency_fits_deepep);
    tcase_add_test(tc, test_perf_a2a_normal_kernels_and_node_limit);
    tcase_add_test(tc, test_perf_two_micro_batches_never_shorter_than_a_part);
    tcase_add_test(tc, test_perf_spec_tokens_per_step);
    tcase_add_test(tc, test_perf_spec_mtp_costs_and_pays);
    tcase_add_test(tc, test_perf_spec_refused);
    tcase_add_test(tc, test_perf_hf_reads_node_limited_routing);
    suite_add_tcase(s, tc);

    tc = tcase_create("perf_saturate");
    tcase_add_test(tc, test_perf_saturate_kv_and_seq_limits);
    tcase_add_test(tc, test_perf_saturate_pipeline_micro_batches);
    tcase_add_test(tc, test_perf_iteration_plain_mlp_two_matrices);
    tcase_add_test(tc, test_perf_default_max_num_seqs_vllm);
    tcase_add_test(tc, test_perf_default_max_num_batched_tokens_vllm);
    suite_add_tcase(s, tc);

    tc = tcase_create("perf_calib_load");
    tcase_add_test(tc, test_perf_calib_load_good_and_resolve);
    tcase_add_test(tc, test_perf_calib_load_unknown_key_line_col);
    tcase_add_test(tc, test_perf_calib_load_out_of_range);
    tcase_add_test(tc, test_perf_calib_load_other_errors);
    tcase_add_test(tc, test_perf_calib_load_missing_file);
    tcase_add_test(tc, test_perf_calib_shipped_file_is_the_builtin);
    tcase_add_test(tc, test_perf_calib_uncertainty_errors);
    tcase_add_test(tc, test_perf_calib_dist_draws_and_writes);
    tcase_add_test(tc, test_perf_calib_dist_kinds);
    tcase_add_test(tc, test_perf_dp_attention_per_rank);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(step_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
