/*
 * The "layout" suite: parallel layouts (models/layout/). Closed forms are
 * checked against values worked by hand from docs/sources.md §12.2-12.4; the
 * memory, KV and traffic rules against the properties docs/sources.md §3.2 and
 * §4.3 state (MLA latent replicated over tp, GQA heads split, ZeRO-3 moving
 * 1.5x the data-parallel bytes); the catalog cases against the verdicts
 * they must give.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/arch.h"
#include "models/cluster/config.h"
#include "models/gpu/gpu.h"
#include "models/layout/layout.h"
#include "models/perf/roofline.h"
#include "base/errors.h"

static const struct arch_spec *must_arch(const char *name)
{
    const struct arch_spec *a = arch_find(name);

    ck_assert_msg(a != NULL, "no model %s", name);
    return a;
}

static const struct gpu_spec *must_gpu(const char *name)
{
    const struct gpu_spec *g = gpu_find(name);

    ck_assert_msg(g != NULL, "no gpu %s", name);
    return g;
}

static void must_setup(struct layout_setup *s, const char *model,
                       const char *gpu, int gpus, int mode)
{
    ck_assert_int_eq(
        layout_setup_init(s, must_arch(model), must_gpu(gpu), gpus, mode), 0);
}

/* Evaluates (dp, tp, pp, ep, zero) with the given training choices. */
static void must_eval(const struct layout_setup *s, int dp, int tp, int pp,
                      int ep, int zero, int recompute, int sp,
                      struct layout_result *r)
{
    struct layout l = {.dp = dp,
                       .tp = tp,
                       .pp = pp,
                       .ep = ep,
                       .zero = zero,
                       .micro_batches = 0,
                       .recompute = recompute,
                       .seq_parallel = sp};
    int rc = layout_eval(s, &l, r);

    ck_assert_msg(rc == 0, "dp%d tp%d pp%d ep%d: %s", dp, tp, pp, ep, r->why);
}

static void serve(const struct layout_setup *s, int dp, int tp, int pp, int ep,
                  struct layout_result *r)
{
    must_eval(s, dp, tp, pp, ep, 0, LAYOUT_RECOMPUTE_NONE, 0, r);
}

/* ---- closed forms ---- */

START_TEST(test_layout_zero_bytes_per_stage)
{
    double w, g, o;

    /* docs/sources.md §12.3 with Psi = 1,000 and N_d = 4, K = 12:
     * baseline (2 + 2 + 12) Psi = 16,000;
     * ZeRO-1 2 Psi + 2 Psi + 12 Psi / 4 = 2,000 + 2,000 + 3,000 = 7,000;
     * ZeRO-2 2 Psi + 14 Psi / 4 = 2,000 + 3,500 = 5,500;
     * ZeRO-3 16 Psi / 4 = 4,000. */
    ck_assert_double_eq_tol(layout_zero_bytes(1000, 0, 4, &w, &g, &o), 16000,
                            1e-9);
    ck_assert_double_eq_tol(w, 2000, 1e-9);
    ck_assert_double_eq_tol(g, 2000, 1e-9);
    ck_assert_double_eq_tol(o, 12000, 1e-9);
    ck_assert_double_eq_tol(layout_zero_bytes(1000, 1, 4, &w, &g, &o), 7000,
                            1e-9);
    ck_assert_double_eq_tol(o, 3000, 1e-9);
    ck_assert_double_eq_tol(layout_zero_bytes(1000, 2, 4, &w, &g, &o), 5500,
                            1e-9);
    ck_assert_double_eq_tol(w, 2000, 1e-9);
    ck_assert_double_eq_tol(g, 500, 1e-9);
    ck_assert_double_eq_tol(o, 3000, 1e-9);
    ck_assert_double_eq_tol(layout_zero_bytes(1000, 3, 4, &w, &g, &o), 4000,
                            1e-9);
    ck_assert_double_eq_tol(w, 500, 1e-9);
    /* One rank: every stage is the baseline. */
    ck_assert_double_eq_tol(layout_zero_bytes(1000, 3, 1, NULL, NULL, NULL),
                            16000, 1e-9);
    ck_assert_double_eq(layout_zero_bytes(1000, 4, 4, NULL, NULL, NULL), -1.0);
    ck_assert_double_eq(layout_zero_bytes(1000, 1, 0, NULL, NULL, NULL), -1.0);
}
END_TEST

START_TEST(test_layout_bubble_one_f_one_b)
{
    /* docs/sources.md §12.4: bubble / ideal = (p - 1) / m, so of the step
     * (p - 1) / (m + p - 1): p 4, m 8 -> 3/11; p 8, m 1 -> 7/8. */
    ck_assert_double_eq_tol(layout_bubble(4, 8), 3.0 / 11.0, 1e-15);
    ck_assert_double_eq_tol(layout_bubble(8, 1), 7.0 / 8.0, 1e-15);
    ck_assert_double_eq_tol(layout_bubble(2, 2), 1.0 / 3.0, 1e-15);
    ck_assert_double_eq(layout_bubble(1, 64), 0.0);
    ck_assert_double_eq(layout_bubble(4, 0), 0.0);
    /* The ratio to the ideal time is (p - 1) / m. */
    ck_assert_double_eq_tol(layout_bubble(4, 8) / (1 - layout_bubble(4, 8)),
                            3.0 / 8.0, 1e-15);
}
END_TEST

/* A GPT-shaped layer in the catalog's terms: MHA (kv heads = heads), and a
 * SwiGLU MLP of width 2h, whose four f-wide tensors (8 f / h = 16) weigh as
 * much as GELU's input and output at 4h. */
static const struct arch_spec gpt_like = {
    .name = "gpt-like",
    .layers = 4,
    .hidden = 1024,
    .heads = 16,
    .kv_heads = 16,
    .head_dim = 64,
    .ffn = 2048,
    .vocab = 1000,
    .attn = ARCH_ATTN_GQA,
};

START_TEST(test_layout_act_bytes_korthikanti_rows)
{
    const struct arch_spec *a = &gpt_like;
    double s = 2048, b = 2, h = 1024, sbh = s * b * h;
    double sc = 5.0 * 16 * s / h; /* 5as/h = 160 */

    ck_assert_double_eq_tol(layout_act_constant(a, 0), 34.0, 1e-12);
    /* docs/sources.md §12.2, row by row. No parallelism: sbh (34 + 5as/h). */
    ck_assert_double_eq_tol(
        layout_act_bytes_per_layer(a, 0, s, b, 1, 0, LAYOUT_RECOMPUTE_NONE),
        sbh * (34 + sc), 1e-6);
    /* TP 4: sbh (10 + 24/4 + 5as/(4h)). */
    ck_assert_double_eq_tol(
        layout_act_bytes_per_layer(a, 0, s, b, 4, 0, LAYOUT_RECOMPUTE_NONE),
        sbh * (10 + 6 + sc / 4), 1e-6);
    /* TP 4 + SP: sbh (34/4 + 5as/(4h)). */
    ck_assert_double_eq_tol(
        layout_act_bytes_per_layer(a, 0, s, b, 4, 1, LAYOUT_RECOMPUTE_NONE),
        sbh * (8.5 + sc / 4), 1e-6);
    /* TP 4 + selective: sbh (10 + 24/4). */
    ck_assert_double_eq_tol(layout_act_bytes_per_layer(
                                a, 0, s, b, 4, 0, LAYOUT_RECOMPUTE_SELECTIVE),
                            sbh * 16, 1e-6);
    /* TP 4 + SP + selective: 34 sbh / 4. */
    ck_assert_double_eq_tol(layout_act_bytes_per_layer(
                                a, 0, s, b, 4, 1, LAYOUT_RECOMPUTE_SELECTIVE),
                            sbh * 8.5, 1e-6);
    /* Full: 2 sbh whatever t. */
    ck_assert_double_eq_tol(
        layout_act_bytes_per_layer(a, 0, s, b, 4, 1, LAYOUT_RECOMPUTE_FULL),
        2 * sbh, 1e-6);
    ck_assert_double_eq(
        layout_act_bytes_per_layer(a, 0, 0, b, 1, 0, LAYOUT_RECOMPUTE_NONE),
        -1.0);
}
END_TEST

START_TEST(test_layout_act_constant_swiglu_and_gqa)
{
    /* Llama-3.1-70B: h 8192, 64 heads of 128, 8 kv heads, f 28672.
     * Attention 2 + 2 (8192 + 1024 + 1024) / 8192 + 2 + 1 = 7.5; MLP 2 +
     * 8 * 3.5 + 1 = 31; norms 4; c = 42.5. */
    ck_assert_double_eq_tol(layout_act_constant(must_arch("llama-3.1-70b"), 0),
                            42.5, 1e-12);
}
END_TEST

/* ---- memory ---- */

START_TEST(test_layout_eval_llama8b_one_h100_fits)
{
    struct layout_setup s;
    struct layout_result r;

    must_setup(&s, "llama-3.1-8b", "h100", 1, LAYOUT_INFERENCE);
    serve(&s, 1, 1, 1, 1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_FITS);
    ck_assert_str_eq(r.why, "");
    /* 8,030,261,248 params x 2 bytes (docs/sources.md §4.2). */
    ck_assert_double_eq_tol(r.weight_bytes, 16060522496.0, 1.0);
    /* docs/hardware.md worked example: (72e9 - 16,060,522,496 -
     * 2,147,483,648) / 131,072 = 410,400 tokens. */
    ck_assert_int_eq(r.kv_tokens, 410400);
    /* The KV cache caps the 256 reference sequences of 4,096 tokens at
     * floor(410,400 / 4,096) = 100. */
    ck_assert_int_eq(r.batch_seqs, 100);
    ck_assert(r.step_ns > 0 && r.prefill_ns > 0 && r.tokens_per_s > 0);
    for (int k = 0; k < LAYOUT_TR_KINDS; k++)
        ck_assert_int_eq(r.traffic[k].ranks, 0);
}
END_TEST

START_TEST(test_layout_eval_deepseek_bf16_8xh100_weights)
{
    struct layout_setup s;
    struct layout_result r, *res;
    int n;

    must_setup(&s, "deepseek-v3", "h100", 8, LAYOUT_INFERENCE);
    s.dtype = CL_DTYPE_BF16;
    serve(&s, 1, 8, 1, 1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_WEIGHTS);
    ck_assert_msg(strstr(r.why, "weights need") != NULL, "%s", r.why);
    /* 671,026,419,200 x 2 / 8 = 167.8 GB per GPU > 72 GB. */
    ck_assert(r.weight_bytes > 167e9 && r.weight_bytes < 168e9);
    /* No layout of 8 H100 holds it. */
    ck_assert_int_eq(layout_enumerate(&s, &res, &n), 0);
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++)
        ck_assert_msg(res[i].verdict == LAYOUT_NO_WEIGHTS, "%d: %s", i,
                      res[i].why);
    free(res);
    ck_assert_int_eq(layout_best(&s, &r), SIM_EINFEASIBLE);
}
END_TEST

START_TEST(test_layout_eval_mla_kv_constant_across_tp)
{
    struct layout_setup s;
    struct layout_result r;
    double first = 0;

    must_setup(&s, "deepseek-v3", "h200", 16, LAYOUT_INFERENCE);
    /* docs/sources.md §4.3: the latent is replicated on every tp rank, 70,272
     * bytes per token in bf16 whatever tp (ep 16 so that each fits and
     * the figure is the step-time model's). */
    for (int tp = 1; tp <= 8; tp *= 2) {
        serve(&s, 16 / tp, tp, 1, 16, &r);
        ck_assert_msg(r.verdict == LAYOUT_FITS, "tp %d: %s", tp, r.why);
        if (tp == 1)
            first = r.kv_bytes_per_token;
        ck_assert_double_eq_tol(r.kv_bytes_per_token, 70272.0, 1e-6);
        ck_assert_double_eq_tol(r.kv_bytes_per_token, first, 1e-9);
    }
}
END_TEST

START_TEST(test_layout_eval_gqa_kv_halves_from_tp1_to_tp2)
{
    struct layout_setup s;
    struct layout_result r1, r2, r4, r8;

    must_setup(&s, "llama-3.1-70b", "h200", 16, LAYOUT_INFERENCE);
    s.dtype = CL_DTYPE_FP8; /* 70.6 GB: tp 1 fits */
    serve(&s, 16, 1, 1, 1, &r1);
    serve(&s, 8, 2, 1, 1, &r2);
    ck_assert_msg(r1.verdict == LAYOUT_FITS, "%s", r1.why);
    ck_assert_msg(r2.verdict == LAYOUT_FITS, "%s", r2.why);
    /* docs/sources.md §4.3: 327,680 bytes per token, 8 kv heads split over tp.
     */
    ck_assert_double_eq_tol(r1.kv_bytes_per_token, 327680.0, 1e-6);
    ck_assert_double_eq_tol(r2.kv_bytes_per_token, 163840.0, 1e-6);
    /* tp beyond the KV heads: each rank keeps one, replicated. Qwen3-235B
     * has 4: 2 * 94 * 128 * 2 = 48,128 bytes at tp 4 and still at tp 8. */
    must_setup(&s, "qwen3-235b-a22b", "h200", 8, LAYOUT_INFERENCE);
    serve(&s, 2, 4, 1, 1, &r4);
    serve(&s, 1, 8, 1, 1, &r8);
    ck_assert_msg(r4.verdict == LAYOUT_FITS, "%s", r4.why);
    ck_assert_msg(r8.verdict == LAYOUT_FITS, "%s", r8.why);
    ck_assert_double_eq_tol(r4.kv_bytes_per_token, 48128.0, 1e-6);
    ck_assert_double_eq_tol(r8.kv_bytes_per_token, 48128.0, 1e-6);
    /* Serving keeps tp within a node: refused, with the figure. */
    must_setup(&s, "llama-3.1-70b", "h200", 16, LAYOUT_INFERENCE);
    serve(&s, 1, 16, 1, 1, &r4);
    ck_assert_int_eq(r4.verdict, LAYOUT_NO_TP_NODES);
    ck_assert_int_eq(r4.tp_crosses_nodes, 1);
}
END_TEST

/* Memory per GPU of the layout under a fixed training policy. */
static double train_total(const struct layout_setup *s, int dp, int tp, int pp)
{
    struct layout_result r;

    must_eval(s, dp, tp, pp, 1, 1, LAYOUT_RECOMPUTE_SELECTIVE, 1, &r);
    ck_assert_msg(r.verdict != LAYOUT_NO_HEADS && r.verdict != LAYOUT_NO_BATCH,
                  "dp%d tp%d pp%d: %s", dp, tp, pp, r.why);
    return r.total_bytes;
}

START_TEST(test_layout_eval_memory_never_grows_with_tp_or_pp)
{
    struct layout_setup si, st;
    struct layout_result a, b;
    const int n = 64;

    must_setup(&si, "llama-3.1-70b", "h100", n, LAYOUT_INFERENCE);
    must_setup(&st, "llama-3.1-70b", "h100", n, LAYOUT_TRAINING);
    for (int pp = 1; pp <= 8; pp *= 2) {
        for (int tp = 1; tp <= 8; tp *= 2) {
            serve(&si, n / (tp * pp), tp, pp, 1, &a);
            if (tp < 8) {
                serve(&si, n / (2 * tp * pp), 2 * tp, pp, 1, &b);
                ck_assert(b.weight_bytes <= a.weight_bytes);
                ck_assert(b.kv_bytes_per_token <= a.kv_bytes_per_token);
                ck_assert(train_total(&st, n / (2 * tp * pp), 2 * tp, pp) <=
                          train_total(&st, n / (tp * pp), tp, pp) *
                              (1 + 1e-12));
            }
            if (pp < 8) {
                serve(&si, n / (2 * tp * pp), tp, 2 * pp, 1, &b);
                ck_assert(b.weight_bytes <= a.weight_bytes);
                ck_assert(b.kv_bytes_per_token <= a.kv_bytes_per_token);
                ck_assert(train_total(&st, n / (2 * tp * pp), tp, 2 * pp) <=
                          train_total(&st, n / (tp * pp), tp, pp) *
                              (1 + 1e-12));
            }
        }
    }
}
END_TEST

START_TEST(test_layout_eval_training_states_sum)
{
    struct layout_setup s;
    struct layout_result r;
    double psi = (double)arch_params_total(must_arch("llama-3.1-8b"));

    /* dp 8 tp 1 pp 1, ZeRO-2: 2 Psi + 14 Psi / 8 (docs/sources.md §12.3). */
    must_setup(&s, "llama-3.1-8b", "h100", 8, LAYOUT_TRAINING);
    must_eval(&s, 8, 1, 1, 1, 2, LAYOUT_RECOMPUTE_FULL, 0, &r);
    ck_assert_double_eq_tol(r.weight_bytes, 2 * psi, 1.0);
    ck_assert_double_eq_tol(r.grad_bytes + r.optim_bytes, 14 * psi / 8, 1.0);
    /* Full recomputation: 2 s b h per layer, one micro-batch in flight:
     * 32 x 2 x 4096 x 1 x 4096 bytes. */
    ck_assert_double_eq_tol(r.act_bytes, 32 * 2.0 * 4096 * 4096, 1.0);
    ck_assert_double_eq_tol(
        r.total_bytes,
        r.weight_bytes + r.grad_bytes + r.optim_bytes + r.act_bytes, 1.0);
    ck_assert_int_eq(r.verdict, LAYOUT_FITS);
    ck_assert_int_eq(r.l.micro_batches, 128);
}
END_TEST

/* ---- traffic ---- */

START_TEST(test_layout_eval_traffic_kinds_follow_degrees)
{
    struct layout_setup si, st, sm;
    struct layout_result r;
    static const int shapes[][3] = {{16, 1, 1}, {8, 2, 1}, {4, 2, 2},
                                    {1, 8, 2},  {2, 1, 8}, {1, 16, 1}};

    must_setup(&si, "llama-3.1-8b", "h100", 16, LAYOUT_INFERENCE);
    must_setup(&st, "llama-3.1-8b", "h100", 16, LAYOUT_TRAINING);
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        int dp = shapes[i][0], tp = shapes[i][1], pp = shapes[i][2];

        serve(&si, dp, tp, pp, 1, &r);
        if (tp > 8) {
            ck_assert_int_eq(r.verdict, LAYOUT_NO_TP_NODES);
        } else {
            ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
            ck_assert(r.step_ns > 0 && r.tokens_per_s > 0);
        }
        ck_assert_int_eq(r.traffic[LAYOUT_TR_TP].ranks > 0, tp > 1 && tp <= 8);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_PP].ranks > 0, pp > 1);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_DP].ranks, 0);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_SP].ranks, 0);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_EP].ranks, 0);

        /* Training with sequence parallelism: sp replaces tp. */
        must_eval(&st, dp, tp, pp, 1, dp > 1, LAYOUT_RECOMPUTE_AUTO, -1, &r);
        ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_TP].ranks, 0);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_SP].ranks > 0, tp > 1);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_PP].ranks > 0, pp > 1);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_DP].ranks > 0, dp > 1);
        ck_assert_int_eq(r.traffic[LAYOUT_TR_EP].ranks, 0);
        for (int k = 0; k < LAYOUT_TR_KINDS; k++)
            if (r.traffic[k].ranks > 0)
                ck_assert(r.traffic[k].wire_bytes > 0 &&
                          r.traffic[k].time_ns > 0 &&
                          r.traffic[k].link != NULL);
    }
    /* Expert parallelism only with ep > 1. */
    must_setup(&sm, "deepseek-v3", "h200", 16, LAYOUT_INFERENCE);
    serve(&sm, 16, 1, 1, 16, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_FITS);
    ck_assert_int_gt(r.traffic[LAYOUT_TR_EP].ranks, 0);
    ck_assert_int_eq(r.traffic[LAYOUT_TR_EP].crosses_nodes, 1);
    ck_assert_str_eq(r.traffic[LAYOUT_TR_EP].link, "ib-ndr");
    serve(&sm, 2, 8, 1, 1, &r);
    ck_assert_int_eq(r.traffic[LAYOUT_TR_EP].ranks, 0);
    ck_assert_int_gt(r.traffic[LAYOUT_TR_TP].ranks, 0);
    ck_assert_int_eq(r.traffic[LAYOUT_TR_TP].crosses_nodes, 0);
}
END_TEST

START_TEST(test_layout_eval_zero3_moves_one_and_a_half_times)
{
    struct layout_setup s;
    struct layout_result z0, z1, z3;

    must_setup(&s, "llama-3.1-8b", "h100", 16, LAYOUT_TRAINING);
    /* tp 2 so that ZeRO-0's 16 Psi / 2 = 64 GB fits in 72 GB. */
    must_eval(&s, 8, 2, 1, 1, 0, LAYOUT_RECOMPUTE_FULL, 0, &z0);
    must_eval(&s, 8, 2, 1, 1, 1, LAYOUT_RECOMPUTE_FULL, 0, &z1);
    must_eval(&s, 8, 2, 1, 1, 3, LAYOUT_RECOMPUTE_FULL, 0, &z3);
    ck_assert_msg(z0.verdict == LAYOUT_FITS, "%s", z0.why);
    ck_assert_int_eq(z3.verdict, LAYOUT_FITS);
    /* docs/sources.md §12.3: DP and ZeRO-1 move 2 Psi, ZeRO-3 3 Psi. */
    ck_assert_double_eq_tol(z1.traffic[LAYOUT_TR_DP].wire_bytes,
                            z0.traffic[LAYOUT_TR_DP].wire_bytes, 1.0);
    ck_assert_double_eq_tol(z3.traffic[LAYOUT_TR_DP].wire_bytes /
                                z0.traffic[LAYOUT_TR_DP].wire_bytes,
                            1.5, 1e-12);
    /* The dp group spans the two nodes: the network carries it. */
    ck_assert_int_eq(z0.traffic[LAYOUT_TR_DP].crosses_nodes, 1);
    ck_assert_str_eq(z0.traffic[LAYOUT_TR_DP].link, "ib-ndr");
}
END_TEST

START_TEST(test_layout_eval_training_step_and_bubble)
{
    struct layout_setup s;
    struct layout_result r;

    must_setup(&s, "llama-3.1-8b", "h100", 16, LAYOUT_TRAINING);
    /* No pipeline: step = compute + exposed communication. */
    must_eval(&s, 16, 1, 1, 1, 1, LAYOUT_RECOMPUTE_AUTO, -1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_FITS);
    ck_assert_double_eq(r.bubble, 0.0);
    ck_assert_double_eq_tol(r.step_ns, r.compute_ns + r.comm_ns,
                            1e-9 * r.step_ns);
    ck_assert(r.mfu > 0 && r.mfu < 1);
    /* dp 2, pp 8: 512 micro-batches per rank, bubble 7 / 519. */
    must_eval(&s, 2, 1, 8, 1, 0, LAYOUT_RECOMPUTE_AUTO, -1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_FITS);
    ck_assert_int_eq(r.l.micro_batches, 512);
    ck_assert_double_eq_tol(r.bubble, 7.0 / 519.0, 1e-15);
    ck_assert(r.step_ns >= r.compute_ns / (1 - r.bubble));
    ck_assert_double_eq_tol(r.tokens_per_s * r.step_ns / 1e9, 1024.0 * 4096,
                            1e-6);
}
END_TEST

/* ---- verdicts ---- */

START_TEST(test_layout_eval_rejections)
{
    struct layout_setup s;
    struct layout_result r;
    struct layout bad = {.dp = 3, .tp = 2, .pp = 1, .ep = 1};

    must_setup(&s, "llama-3.1-8b", "h100", 3, LAYOUT_INFERENCE);
    serve(&s, 1, 3, 1, 1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_HEADS);
    ck_assert_int_eq(layout_eval(&s, &bad, &r), SIM_EINVAL);
    ck_assert(strstr(r.why, "is not 3 gpus") != NULL);

    must_setup(&s, "llama-3.1-8b", "h100", 64, LAYOUT_INFERENCE);
    serve(&s, 1, 1, 64, 1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_PP_LAYERS);
    serve(&s, 64, 1, 1, 2, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_EP);
    ck_assert(strstr(r.why, "dense model") != NULL);
    /* Serving keeps tp within a node; training may cross, flagged. */
    serve(&s, 4, 16, 1, 1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_TP_NODES);
    ck_assert(strstr(r.why, "spans nodes of 8") != NULL);
    must_setup(&s, "llama-3.1-8b", "h100", 64, LAYOUT_TRAINING);
    s.tp_across_nodes = 0;
    must_eval(&s, 4, 16, 1, 1, 1, LAYOUT_RECOMPUTE_AUTO, -1, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_TP_NODES);
    s.tp_across_nodes = 1;
    must_eval(&s, 4, 16, 1, 1, 1, LAYOUT_RECOMPUTE_AUTO, -1, &r);
    ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
    ck_assert_int_eq(r.tp_crosses_nodes, 1);
    ck_assert_int_eq(r.traffic[LAYOUT_TR_SP].crosses_nodes, 1);

    must_setup(&s, "deepseek-v3", "h200", 16, LAYOUT_INFERENCE);
    /* 3 divides neither 256 experts nor tp x dp = 16. */
    serve(&s, 16, 1, 1, 3, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_EP);
    ck_assert(strstr(r.why, "256 routed experts") != NULL);
    /* Not below 1. */
    bad.dp = 16;
    bad.tp = 1;
    bad.ep = 0;
    ck_assert_int_eq(layout_eval(&s, &bad, &r), SIM_EINVAL);
}
END_TEST

START_TEST(test_layout_eval_bad_setup)
{
    struct layout_setup s;
    struct layout_result r;
    struct layout l = {.dp = 1, .tp = 1, .pp = 1, .ep = 1};

    ck_assert_int_eq(
        layout_setup_init(&s, NULL, must_gpu("h100"), 1, LAYOUT_INFERENCE),
        SIM_EINVAL);
    must_setup(&s, "llama-3.1-8b", "h100", 1, LAYOUT_TRAINING);
    s.dtype = CL_DTYPE_INT4;
    ck_assert_int_eq(layout_eval(&s, &l, &r), SIM_EINVAL);
    ck_assert(strstr(r.why, "training") != NULL);
    must_setup(&s, "llama-3.1-8b", "h100", 12, LAYOUT_INFERENCE);
    l.dp = 12;
    ck_assert_int_eq(layout_eval(&s, &l, &r), SIM_EINVAL);
    ck_assert(strstr(r.why, "do not fill nodes") != NULL);
}
END_TEST

/* ---- serving knobs ---- */

START_TEST(test_layout_eval_redundant_experts_per_gpu)
{
    struct layout_setup s;
    struct layout_result r, r0;

    /* DeepSeek's decode: 256 routed + 32 redundant slots over ep144, two
     * per GPU; the two-batch overlap hides part of the all-to-all. */
    must_setup(&s, "deepseek-v3", "h800", 144, LAYOUT_INFERENCE);
    s.redundant_experts = 32;
    s.micro_batches = 2;
    serve(&s, 144, 1, 1, 144, &r);
    ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
    ck_assert_int_eq(r.expert_slots, 288);
    ck_assert_int_eq(r.slots_per_gpu, 2);
    ck_assert_int_eq(r.redundant_slots, 32);
    ck_assert_int_eq(r.serve_micro_batches, 2);
    ck_assert_int_eq(r.micro_batches_fallback, 0);
    ck_assert(r.a2a_total_ns > 0.0 && r.a2a_hidden_ns > 0.0);
    ck_assert(fabs(r.a2a_hidden_ns + r.a2a_exposed_ns - r.a2a_total_ns) <=
              1e-9 * r.a2a_total_ns);
    ck_assert(r.expert_imbalance >= 1.0);
    ck_assert(r.decode_tokens_per_gpu == (double)r.batch_seqs);
    ck_assert(fabs(r.tokens_per_s_per_gpu * 144 - r.tokens_per_s) <=
              1e-9 * r.tokens_per_s);

    /* Pipelined layouts fall back to one micro-batch, flagged. */
    serve(&s, 72, 1, 2, 72, &r);
    ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
    ck_assert_int_eq(r.serve_micro_batches, 1);
    ck_assert_int_eq(r.micro_batches_fallback, 1);
    ck_assert(r.a2a_hidden_ns == 0.0);

    /* ep dividing the routed experts but not the slots is refused. */
    must_setup(&s, "deepseek-v3", "h200", 16, LAYOUT_INFERENCE);
    s.redundant_experts = 8;
    serve(&s, 16, 1, 1, 16, &r);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_EP);
    ck_assert(strstr(r.why, "264 expert slots") != NULL);
    /* Without knobs ep16 holds 16 experts a GPU, none redundant. */
    s.redundant_experts = 0;
    serve(&s, 16, 1, 1, 16, &r0);
    ck_assert_int_eq(r0.slots_per_gpu, 16);
    ck_assert_int_eq(r0.redundant_slots, 0);
    ck_assert(r0.spec_tokens_per_step == 1.0);
}
END_TEST

START_TEST(test_layout_eval_speculative)
{
    struct layout_setup s;
    struct layout_result r0, r1;
    struct layout l = {.dp = 8, .tp = 1, .pp = 1, .ep = 1};

    /* MTP at a small batch: more tokens per cycle than without. */
    must_setup(&s, "deepseek-v3", "h200", 16, LAYOUT_INFERENCE);
    s.batch = 8;
    serve(&s, 16, 1, 1, 16, &r0);
    s.spec_method = PERF_SPEC_MTP;
    s.spec_tokens = 1;
    s.spec_acceptance = 0.85;
    serve(&s, 16, 1, 1, 16, &r1);
    ck_assert_msg(r1.verdict == LAYOUT_FITS, "%s", r1.why);
    ck_assert(fabs(r1.spec_tokens_per_step - 1.85) < 1e-12);
    ck_assert(r1.decode_tokens_per_gpu == 2.0 * (double)r1.batch_seqs);
    ck_assert(r1.tokens_per_s > r0.tokens_per_s);

    /* MTP needs the module; knobs are for serving. */
    must_setup(&s, "llama-3.1-8b", "h100", 8, LAYOUT_INFERENCE);
    s.spec_method = PERF_SPEC_MTP;
    s.spec_tokens = 1;
    s.spec_acceptance = 0.85;
    ck_assert_int_eq(layout_eval(&s, &l, &r0), SIM_EINVAL);
    ck_assert(strstr(r0.why, "multi-token-prediction") != NULL);
    must_setup(&s, "llama-3.1-8b", "h100", 8, LAYOUT_INFERENCE);
    s.redundant_experts = 4;
    ck_assert_int_eq(layout_eval(&s, &l, &r0), SIM_EINVAL);
    ck_assert(strstr(r0.why, "dense") != NULL);
    must_setup(&s, "llama-3.1-8b", "h100", 8, LAYOUT_TRAINING);
    s.micro_batches = 2;
    ck_assert_int_eq(layout_eval(&s, &l, &r0), SIM_EINVAL);
    ck_assert(strstr(r0.why, "for serving") != NULL);
}
END_TEST

/* ---- enumeration ---- */

START_TEST(test_layout_enumerate_sorted_and_complete)
{
    struct layout_setup s;
    struct layout_result *res, best;
    int n, seen_infeasible = 0;

    must_setup(&s, "deepseek-v3", "h200", 16, LAYOUT_INFERENCE);
    ck_assert_int_eq(layout_enumerate(&s, &res, &n), 0);
    ck_assert_int_gt(n, 15); /* 15 (dp, tp, pp) triples, plus ep choices */
    for (int i = 0; i < n; i++) {
        const struct layout_result *r = &res[i];

        ck_assert_int_eq(r->l.dp * r->l.tp * r->l.pp, 16);
        if (r->l.ep > 1)
            ck_assert(r->l.ep % r->l.tp == 0 && 256 % r->l.ep == 0 &&
                      (r->l.tp * r->l.dp) % r->l.ep == 0);
        if (r->verdict != LAYOUT_FITS)
            seen_infeasible = 1;
        else
            ck_assert_msg(!seen_infeasible, "feasible after infeasible");
        if (i > 0 && r->verdict == LAYOUT_FITS)
            ck_assert(res[i - 1].tokens_per_s >= r->tokens_per_s);
    }
    ck_assert_int_eq(seen_infeasible, 1);
    ck_assert_int_eq(layout_best(&s, &best), 0);
    ck_assert_int_eq(best.l.dp, res[0].l.dp);
    ck_assert_int_eq(best.l.ep, res[0].l.ep);
    free(res);

    /* A dense model gets no ep; training adds the ZeRO stages (above 0
     * only with dp > 1): 15 triples, 5 with dp 1. */
    must_setup(&s, "llama-3.1-8b", "h100", 16, LAYOUT_TRAINING);
    ck_assert_int_eq(layout_enumerate(&s, &res, &n), 0);
    ck_assert_int_eq(n, 5 + 10 * 4);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(res[i].l.ep, 1);
        ck_assert(res[i].l.recompute != LAYOUT_RECOMPUTE_AUTO);
    }
    free(res);
}
END_TEST

START_TEST(test_layout_names_and_format)
{
    struct layout l = {.dp = 2, .tp = 8, .pp = 1, .ep = 16, .zero = 3};
    char buf[64];

    layout_format(&l, LAYOUT_INFERENCE, buf, sizeof(buf));
    ck_assert_str_eq(buf, "dp2 tp8 pp1 ep16");
    layout_format(&l, LAYOUT_TRAINING, buf, sizeof(buf));
    ck_assert_str_eq(buf, "dp2 tp8 pp1 ep16 z3");
    ck_assert_str_eq(layout_traffic_name(LAYOUT_TR_SP), "sp");
    ck_assert_str_eq(layout_traffic_name(LAYOUT_TR_KINDS), "?");
    ck_assert_str_eq(layout_recompute_name(LAYOUT_RECOMPUTE_SELECTIVE),
                     "selective");
    ck_assert_str_eq(layout_verdict_name(LAYOUT_NO_WEIGHTS), "weights");
    ck_assert_str_eq(layout_verdict_name(-1), "?");
}
END_TEST

static Suite *layout_suite(void)
{
    Suite *s = suite_create("layout");
    TCase *tc;

    tc = tcase_create("closed_forms");
    tcase_add_test(tc, test_layout_zero_bytes_per_stage);
    tcase_add_test(tc, test_layout_bubble_one_f_one_b);
    tcase_add_test(tc, test_layout_act_bytes_korthikanti_rows);
    tcase_add_test(tc, test_layout_act_constant_swiglu_and_gqa);
    tcase_add_test(tc, test_layout_names_and_format);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout_eval_memory");
    tcase_add_test(tc, test_layout_eval_llama8b_one_h100_fits);
    tcase_add_test(tc, test_layout_eval_deepseek_bf16_8xh100_weights);
    tcase_add_test(tc, test_layout_eval_mla_kv_constant_across_tp);
    tcase_add_test(tc, test_layout_eval_gqa_kv_halves_from_tp1_to_tp2);
    tcase_add_test(tc, test_layout_eval_memory_never_grows_with_tp_or_pp);
    tcase_add_test(tc, test_layout_eval_training_states_sum);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout_eval_traffic");
    tcase_add_test(tc, test_layout_eval_traffic_kinds_follow_degrees);
    tcase_add_test(tc, test_layout_eval_zero3_moves_one_and_a_half_times);
    tcase_add_test(tc, test_layout_eval_training_step_and_bubble);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout_eval_verdicts");
    tcase_add_test(tc, test_layout_eval_rejections);
    tcase_add_test(tc, test_layout_eval_bad_setup);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout_eval_serving_knobs");
    tcase_add_test(tc, test_layout_eval_redundant_experts_per_gpu);
    tcase_add_test(tc, test_layout_eval_speculative);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout_enumerate");
    tcase_add_test(tc, test_layout_enumerate_sorted_and_complete);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(layout_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
