/*
 * The "train" suite: training jobs (models/train/) and the training step
 * of models/layout. Step components are recomputed here by hand from the
 * formulas of docs/training.md (docs/sources.md §12.1-12.5): the linear and
 * attention FLOPs at the given efficiencies, the element-wise bytes, the
 * Adam update, the ZeRO memory, the bubble; Young and Daly against their
 * closed forms; the job simulation against worked timelines (checkpoint
 * cycles, resizes) and its checkpoint optimum against Young's.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/arch.h"
#include "models/cluster/config.h"
#include "models/gpu/gpu.h"
#include "models/layout/layout.h"
#include "models/train/train.h"
#include "base/errors.h"

#define NS 1e9

static void setup8(struct layout_setup *s, int gpus)
{
    const struct arch_spec *a = arch_find("llama-3.1-8b");
    const struct gpu_spec *g = gpu_find("h100");

    ck_assert(a != NULL && g != NULL);
    ck_assert_int_eq(layout_setup_init(s, a, g, gpus, LAYOUT_TRAINING), 0);
}

/* ---- closed forms ---- */

START_TEST(test_young_daly_closed_forms)
{
    double d = 60.0, m = 3600.0, x = d / (2 * m);

    ck_assert_double_eq_tol(train_young_s(d, m), sqrt(2 * 60.0 * 3600.0), 1e-9);
    ck_assert_double_eq_tol(train_young_s(d, m), 657.2670690061994, 1e-9);
    ck_assert_double_eq_tol(train_daly_s(d, m),
                            sqrt(2 * d * m) * (1 + sqrt(x) / 3 + x / 9) - d,
                            1e-9);
    /* delta >= 2M: checkpoint once per MTBF. */
    ck_assert_double_eq(train_daly_s(8000.0, 3600.0), 3600.0);
    ck_assert_double_eq(train_young_s(0.0, 3600.0), 0.0);
    ck_assert_double_eq(train_daly_s(10.0, -1.0), 0.0);
}
END_TEST

START_TEST(test_bubble_interleaved)
{
    /* docs/sources.md §12.4: (p - 1) / (v m + p - 1). */
    ck_assert_double_eq_tol(layout_bubble_interleaved(4, 8, 2), 3.0 / 19.0,
                            1e-15);
    ck_assert_double_eq_tol(layout_bubble_interleaved(4, 8, 1), 3.0 / 11.0,
                            1e-15);
    ck_assert_double_eq(layout_bubble_interleaved(1, 8, 4), 0.0);
}
END_TEST

START_TEST(test_ckpt_bytes_and_seconds)
{
    /* 14 bytes a parameter; storage: bytes / bandwidth; peers: a shard per
     * GPU over its link. */
    ck_assert_double_eq(train_ckpt_bytes(1e9), 14e9);
    ck_assert_double_eq_tol(
        train_ckpt_seconds(TRAIN_CKPT_STORAGE, 14e9, 8, 7e9), 2.0, 1e-12);
    ck_assert_double_eq_tol(
        train_ckpt_seconds(TRAIN_CKPT_PEER_MEMORY, 16e9, 8, 1e9), 2.0, 1e-12);
    ck_assert_double_eq_tol(
        train_ckpt_bandwidth(TRAIN_CKPT_STORAGE, 2048, 50e9), 200e9, 1e-3);
    ck_assert_double_eq(
        train_ckpt_bandwidth(TRAIN_CKPT_PEER_MEMORY, 2048, 50e9), 50e9);
}
END_TEST

/* ---- layout strings ---- */

START_TEST(test_layout_parse_ok_and_errors)
{
    struct layout l = {.ep = 1};
    char err[160];

    ck_assert_int_eq(train_layout_parse("tp=2,pp=2", 8, &l, err, sizeof(err)),
                     0);
    ck_assert_int_eq(l.dp, 2);
    ck_assert_int_eq(l.tp, 2);
    ck_assert_int_eq(l.pp, 2);
    ck_assert_int_eq(l.chunks, 1);
    ck_assert_int_eq(
        train_layout_parse("v=2,dp=1,pp=4,tp=2,ep=2", 8, &l, err, sizeof(err)),
        0);
    ck_assert_int_eq(l.chunks, 2);
    ck_assert_int_eq(l.ep, 2);

    ck_assert_int_eq(train_layout_parse("tq=2", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "unknown key 'tq'; valid: dp, ep, pp, tp, v");
    ck_assert_int_eq(train_layout_parse("tp=0", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "tp: '0' is not a positive integer");
    ck_assert_int_eq(train_layout_parse("tp=2x", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "tp: '2x' is not a positive integer");
    ck_assert_int_eq(train_layout_parse("tp=2,tp=2", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "'tp' given twice");
    ck_assert_int_eq(train_layout_parse("tp=3", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "tp 3 x pp 1 does not divide 8 gpus");
    ck_assert_int_eq(train_layout_parse("tp=2,dp=2", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "dp 2 x tp 2 x pp 1 is not 8 gpus");
    ck_assert_int_eq(train_layout_parse("tp=2,", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "trailing ','");
    ck_assert_int_eq(train_layout_parse("tp", 8, &l, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "'tp': expected KEY=N (keys tp, pp, dp, ep, v)");
    /* Unchanged on failure. */
    ck_assert_int_eq(l.tp, 2);
    ck_assert_int_eq(l.dp, 1);
}
END_TEST

/* ---- the step, by hand ---- */

/* Llama-3.1-8B on 8 H100s, dp 8, ZeRO-1, no recomputation, sequences of
 * 1,024, 64 per step (8 micro-batches of one per rank), a GEMM efficiency
 * of 0.5: every part worked from the formulas. */
START_TEST(test_step_components_by_hand)
{
    struct layout_setup s;
    struct train_knobs k = {.zero = 1,
                            .recompute = LAYOUT_RECOMPUTE_NONE,
                            .micro_batch = 1,
                            .chunks = 1};
    struct layout l = {.dp = 8, .tp = 1, .pp = 1, .ep = 1};
    struct layout_result r;
    const struct arch_spec *a;
    const struct gpu_spec *g;
    double seq = 1024, tokens = 1024, m = 8, p, lin, attn, elem, fb, opt;
    double h, f, flops;

    setup8(&s, 8);
    a = s.arch;
    g = s.gpu;
    s.seq_tokens = 1024;
    s.batch = 64;
    s.eff_compute = 0.5;
    ck_assert_int_eq(train_eval(&s, &k, &l, &r), 0);
    ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
    ck_assert_int_eq(r.l.micro_batches, 8);

    /* Compute per micro-batch: 3 passes of 2 N_linear per token at 0.5 of
     * the bf16 peak, 3 of the causal attention at the calibrated
     * attention efficiency (docs/sources.md §12.1, §4.4). */
    lin = 3.0 * tokens * (double)arch_linear_flops_per_token(a) /
          (0.5 * g->flops_bf16);
    attn = 3.0 * arch_attn_flops_per_pair(a, 0) * seq * (seq + 1) / 2 /
           (s.calib.attn_eff_compute * g->flops_bf16);
    /* Element-wise: per layer and token 10 h elements (norms, residuals)
     * and 3 f (SwiGLU) of 2 bytes, forward once and backward twice. */
    h = a->hidden;
    f = a->ffn;
    elem = 3.0 * tokens * a->layers * (20.0 * h + 6.0 * f) /
           (s.calib.elem_eff_memory * g->hbm_bytes_per_s);
    fb = m * (lin + attn + elem) * NS;
    ck_assert_double_eq_tol(r.fwd_bwd_ns, fb, 1e-9 * fb);
    ck_assert_double_eq_tol(r.elem_ns, m * elem * NS, 1e-9 * r.elem_ns);

    /* Adam on the ZeRO-1 shard: 28 bytes per parameter of P / 8. */
    p = (double)arch_params_total(a);
    opt = 28.0 * p / 8.0 / (s.calib.elem_eff_memory * g->hbm_bytes_per_s) * NS;
    ck_assert_double_eq_tol(r.optim_ns, opt, 1e-6 * opt);

    /* No tp, pp or bubble; the dp collectives all exposed. */
    ck_assert_double_eq(r.tp_ns, 0.0);
    ck_assert_double_eq(r.pp_ns, 0.0);
    ck_assert_double_eq(r.bubble_ns, 0.0);
    ck_assert(r.dp_ns > 0);
    ck_assert_double_eq(r.dp_exposed_ns, r.dp_ns);
    ck_assert_double_eq_tol(r.step_ns, fb + r.dp_ns + opt, 1e-9 * r.step_ns);
    /* ZeRO-1 over 8 ranks: a reduce-scatter and an all-gather of 2 P. */
    ck_assert_double_eq(r.traffic[LAYOUT_TR_DP].collectives, 2.0);
    ck_assert_double_eq_tol(r.traffic[LAYOUT_TR_DP].wire_bytes,
                            2.0 * 7.0 / 8.0 * 2.0 * p, 1e-6 * p);

    /* MFU: 3 (N_linear tokens + attention pairs) over step x gpus x peak. */
    flops = 3.0 * 64 *
            ((double)arch_linear_flops_per_token(a) * seq +
             arch_attn_flops_per_pair(a, 0) * seq * (seq + 1) / 2);
    ck_assert_double_eq_tol(r.model_flops, flops, 1e-9 * flops);
    ck_assert_double_eq_tol(r.mfu, flops / (r.step_ns / NS * 8 * g->flops_bf16),
                            1e-12);
    ck_assert_double_eq_tol(r.hfu, r.mfu, 1e-15);
    ck_assert_double_eq_tol(r.tokens_per_s, 64 * 1024 / (r.step_ns / NS), 1e-6);

    /* Memory (docs/sources.md §12.3, §12.2): bf16 weights and grads, FP32 Adam
     * sharded over 8, and one micro-batch of activations. */
    ck_assert_double_eq_tol(r.weight_bytes, 2.0 * p, 1.0);
    ck_assert_double_eq_tol(r.grad_bytes, 2.0 * p, 1.0);
    ck_assert_double_eq_tol(r.optim_bytes, 12.0 * p / 8.0, 1.0);
    ck_assert_double_eq_tol(
        r.act_bytes,
        a->layers * layout_act_bytes_per_layer(a, 0, seq, 1, 1, 0,
                                               LAYOUT_RECOMPUTE_NONE),
        1.0);

    /* Overlap hides half the dp collectives. */
    s.dp_overlap = 0.5;
    ck_assert_int_eq(train_eval(&s, &k, &l, &r), 0);
    ck_assert_double_eq_tol(r.dp_exposed_ns, 0.5 * r.dp_ns, 1e-6);
    ck_assert_double_eq_tol(r.step_ns, fb + 0.5 * r.dp_ns + opt,
                            1e-9 * r.step_ns);
}
END_TEST

START_TEST(test_step_full_recompute_memory_and_hfu)
{
    struct layout_setup s;
    struct train_knobs k = {.zero = 1,
                            .recompute = LAYOUT_RECOMPUTE_FULL,
                            .micro_batch = 1,
                            .chunks = 1};
    struct layout l = {.dp = 8, .tp = 1, .pp = 1, .ep = 1};
    struct layout_result r;

    setup8(&s, 8);
    s.seq_tokens = 1024;
    s.batch = 64;
    ck_assert_int_eq(train_eval(&s, &k, &l, &r), 0);
    ck_assert_int_eq(r.verdict, LAYOUT_FITS);
    /* Full recomputation keeps 2 s b h a layer (docs/sources.md §12.2). */
    ck_assert_double_eq_tol(r.act_bytes,
                            2.0 * 1024 * s.arch->hidden * s.arch->layers, 1.0);
    /* HFU counts the fourth pass: 4/3 MFU. */
    ck_assert_double_eq_tol(r.hfu, 4.0 / 3.0 * r.mfu, 1e-12);
}
END_TEST

/* pp 4 with 2 chunks: the bubble is (p - 1) / v slots of the slowest
 * stage's micro-batch. */
START_TEST(test_step_interleaved_bubble)
{
    struct layout_setup s;
    struct train_knobs k = {.zero = 0,
                            .recompute = LAYOUT_RECOMPUTE_FULL,
                            .micro_batch = 1,
                            .chunks = 2};
    struct layout l = {.dp = 2, .tp = 1, .pp = 4, .ep = 1};
    struct layout_result r, r1;
    double slot;

    setup8(&s, 8);
    s.seq_tokens = 1024;
    s.batch = 16; /* 8 micro-batches per rank, a multiple of pp */
    ck_assert_int_eq(train_eval(&s, &k, &l, &r), 0);
    ck_assert_msg(r.verdict == LAYOUT_FITS, "%s", r.why);
    ck_assert_int_eq(r.l.chunks, 2);
    ck_assert_double_eq_tol(r.bubble, 3.0 / 19.0, 1e-15);
    slot = (r.fwd_bwd_ns + r.tp_ns + r.ep_ns + r.pp_ns) / 8.0;
    ck_assert_double_eq_tol(r.bubble_ns, 1.5 * slot, 1e-9 * r.step_ns);
    ck_assert_double_eq_tol(r.step_ns,
                            r.fwd_bwd_ns + r.pp_ns + r.bubble_ns +
                                r.dp_exposed_ns + r.optim_ns,
                            1e-9 * r.step_ns);
    /* Plain 1F1B: 3 slots; the first stage sends over one boundary (m
     * calls), while interleaved it also wraps from the last (2 v m). */
    k.chunks = 1;
    ck_assert_int_eq(train_eval(&s, &k, &l, &r1), 0);
    ck_assert_double_eq_tol(r1.bubble, 3.0 / 11.0, 1e-15);
    ck_assert(r1.bubble_ns > r.bubble_ns);
    ck_assert_double_eq(r1.traffic[LAYOUT_TR_PP].collectives, 8.0);
    ck_assert_double_eq(r.traffic[LAYOUT_TR_PP].collectives, 2.0 * 2 * 8);
    /* Micro-batches not a multiple of pp: refused. */
    k.chunks = 2;
    s.batch = 12;
    ck_assert_int_eq(train_eval(&s, &k, &l, &r), 0);
    ck_assert_int_eq(r.verdict, LAYOUT_NO_BATCH);
    ck_assert(strstr(r.why, "multiple of pp 4") != NULL);
}
END_TEST

START_TEST(test_zero3_regathers_per_micro_batch)
{
    struct layout_setup s;
    struct train_knobs k = {.zero = 3,
                            .recompute = LAYOUT_RECOMPUTE_FULL,
                            .micro_batch = 1,
                            .chunks = 1};
    struct layout l = {.dp = 8, .tp = 1, .pp = 1, .ep = 1};
    struct layout_result r0, r1;

    setup8(&s, 8);
    s.seq_tokens = 1024;
    s.batch = 32; /* m = 4 */
    ck_assert_int_eq(train_eval(&s, &k, &l, &r0), 0);
    s.zero3_regather = 1;
    ck_assert_int_eq(train_eval(&s, &k, &l, &r1), 0);
    /* The ZeRO paper's 3 calls a step, or 3 a micro-batch. */
    ck_assert_double_eq(r0.traffic[LAYOUT_TR_DP].collectives, 3.0);
    ck_assert_double_eq(r1.traffic[LAYOUT_TR_DP].collectives, 12.0);
    ck_assert_double_eq_tol(r1.dp_ns, 4.0 * r0.dp_ns, 1e-6 * r1.dp_ns);
}
END_TEST

START_TEST(test_enumerate_knobs)
{
    struct layout_setup s;
    struct train_knobs k = {.zero = -1,
                            .recompute = LAYOUT_RECOMPUTE_AUTO,
                            .micro_batch = 1,
                            .chunks = 1};
    struct layout_result *res;
    int n;

    setup8(&s, 16);
    ck_assert_int_eq(train_enumerate(&s, &k, &res, &n), 0);
    /* As layout_enumerate(): 15 (dp, tp, pp), 5 with dp 1, ZeRO 0-3. */
    ck_assert_int_eq(n, 5 + 10 * 4);
    for (int i = 1; i < n; i++)
        if (res[i].verdict == LAYOUT_FITS)
            ck_assert(res[i - 1].verdict == LAYOUT_FITS &&
                      res[i - 1].tokens_per_s >= res[i].tokens_per_s);
    free(res);
    k.zero = 2;
    ck_assert_int_eq(train_enumerate(&s, &k, &res, &n), 0);
    ck_assert_int_eq(n, 15);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(res[i].l.zero, 2);
    free(res);
}
END_TEST

/* ---- the job ---- */

static struct train_job base_job(void)
{
    struct train_job j;

    memset(&j, 0, sizeof(j));
    j.step_s = 1.0;
    j.tokens_per_step = 1000.0;
    j.dp = 2;
    j.gpus_per_replica = 8;
    j.duration_s = 120.0;
    return j;
}

START_TEST(test_job_checkpoint_cycles)
{
    struct train_job j = base_job();
    struct train_job_result r;

    /* 10 steps + a 2 s checkpoint = 12 s cycles: 10 cycles in 120 s, the
     * last checkpoint cut by the end. */
    j.ckpt_every_steps = 10;
    j.ckpt_block_s = 2.0;
    ck_assert_int_eq(train_job_run(&j, 1, &r), 0);
    ck_assert_int_eq(r.steps, 100);
    ck_assert_int_eq(r.checkpoints, 9);
    ck_assert_int_eq(r.failures, 0);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_USEFUL], 100.0, 1e-9);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_CHECKPOINT], 20.0, 1e-9);
    ck_assert_double_eq_tol(r.useful_tokens, 100000.0, 1e-6);
    ck_assert_double_eq_tol(r.goodput_tokens_per_s, 100000.0 / 120.0, 1e-9);
    ck_assert_double_eq_tol(r.ideal_tokens_per_s, 1000.0, 1e-12);
    ck_assert_double_eq_tol(r.gpu_hours, 16.0 * 120.0 / 3600.0, 1e-9);
    train_job_result_fini(&r);

    /* Async: only the 0.5 s snapshot blocks; durable 5 s later. */
    j.ckpt_block_s = 0.5;
    j.ckpt_persist_s = 5.0;
    ck_assert_int_eq(train_job_run(&j, 1, &r), 0);
    /* 10.5 s cycles: 11 full cycles (115.5 s) and 4 steps. */
    ck_assert_int_eq(r.steps, 114);
    /* The 11th snapshot (115.5 s) would be durable at 120.5 s. */
    ck_assert_int_eq(r.checkpoints, 10);
    train_job_result_fini(&r);

    /* A write (15 s) longer than the interval: every other checkpoint is
     * due while the previous one persists and is skipped. Snapshots at 10,
     * 30.5, 51, 71.5, 92 and 112.5 s; the last is not durable by 120 s. */
    j.ckpt_persist_s = 15.0;
    ck_assert_int_eq(train_job_run(&j, 1, &r), 0);
    ck_assert_int_eq(r.checkpoints, 5);
    ck_assert_int_eq(r.ckpt_skipped, 5);
    ck_assert_int_eq(r.steps, 117);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_CHECKPOINT], 3.0, 1e-9);
    train_job_result_fini(&r);
    ck_assert_int_eq(train_job_run(NULL, 1, &r), SIM_EINVAL);
    j.step_s = 0;
    ck_assert_int_eq(train_job_run(&j, 1, &r), SIM_EINVAL);
}
END_TEST

START_TEST(test_job_failure_accounting)
{
    struct train_job j = base_job();
    struct train_job_result r, r2;
    double sum = 0;

    /* A job MTBF of 500 s (16 GPUs at 8,000 s each) over 100,000 s. */
    j.duration_s = 1e5;
    j.gpu_mtbf_s = 8000.0;
    j.ckpt_every_steps = 60;
    j.ckpt_block_s = 5.0;
    j.restart_s = 20.0;
    j.load_s = 5.0;
    ck_assert_int_eq(train_job_run(&j, 7, &r), 0);
    ck_assert(r.failures > 100 && r.failures < 300);
    for (int k = 0; k < TRAIN_T_KINDS; k++) {
        ck_assert(r.time_s[k] >= -1e-6);
        sum += r.time_s[k];
    }
    /* Every second is accounted for once. */
    ck_assert_double_eq_tol(sum, j.duration_s, 1e-6);
    /* Useful time is the kept steps; rework at least the lost ones. */
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_USEFUL], (double)r.steps, 1e-6);
    ck_assert(r.time_s[TRAIN_T_REWORK] >= (double)r.steps_lost - 1e-6);
    ck_assert_double_eq_tol(r.useful_tokens, 1000.0 * r.steps, 1e-3);
    /* Each failure starts a restart and a load of 25 s, which a failure
     * may cut short. */
    ck_assert(r.time_s[TRAIN_T_RESTART] <= 25.0 * r.failures + 1e-6);
    ck_assert(r.time_s[TRAIN_T_RESTART] > 0.5 * 25.0 * r.failures);
    /* Deterministic for a seed, different for another. */
    ck_assert_int_eq(train_job_run(&j, 7, &r2), 0);
    ck_assert_int_eq(r2.failures, r.failures);
    ck_assert_int_eq(r2.steps, r.steps);
    train_job_result_fini(&r2);
    ck_assert_int_eq(train_job_run(&j, 8, &r2), 0);
    ck_assert(r2.failures != r.failures || r2.steps != r.steps);
    train_job_result_fini(&r2);
    train_job_result_fini(&r);
}
END_TEST

/* The simulated optimum of K lands near Young's sqrt(2 delta M). */
START_TEST(test_job_checkpoint_optimum_near_young)
{
    struct train_job j = base_job();
    struct train_job_result r;
    double young, best_g = -1, best_k = 0;

    j.duration_s = 2e6;
    j.gpu_mtbf_s = 16.0 * 2000.0; /* job MTBF 2,000 s */
    j.ckpt_block_s = 20.0;
    j.restart_s = 30.0;
    j.load_s = 20.0;
    young = train_young_s(20.0, 2000.0); /* 283 s */
    for (int i = -8; i <= 8; i++) {
        double k = round(young * pow(2.0, i / 4.0));

        j.ckpt_every_steps = (int64_t)k;
        ck_assert_int_eq(train_job_run(&j, 3, &r), 0);
        if (r.goodput_tokens_per_s > best_g) {
            best_g = r.goodput_tokens_per_s;
            best_k = k;
        }
        train_job_result_fini(&r);
    }
    ck_assert_msg(best_k >= young / 1.5 && best_k <= young * 1.5,
                  "simulated optimum %g steps, Young %g", best_k, young);
}
END_TEST

START_TEST(test_job_shrink_and_grow)
{
    struct train_job j = base_job();
    struct train_job_result r;
    const double avail[] = {16, 8, 16};

    /* dp 2 of 8 GPUs; 8 GPUs left from 100 s to 200 s; resizes cost 10 s
     * each and a step stays 1 s with half the tokens. */
    j.duration_s = 300.0;
    j.reconfigure_s = 10.0;
    j.avail_gpus = avail;
    j.navail = 3;
    j.avail_interval_s = 100.0;
    ck_assert_int_eq(train_job_run(&j, 1, &r), 0);
    ck_assert_int_eq(r.resizes, 2);
    ck_assert_int_eq(r.steps, 100 + 90 + 90);
    ck_assert_double_eq_tol(r.useful_tokens, 1000.0 * (100 + 45 + 90), 1e-6);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_RECONFIGURE], 20.0, 1e-9);
    ck_assert_double_eq_tol(r.replicas_mean, 5.0 / 3.0, 1e-12);
    ck_assert_uint_eq(r.nseries, 3);
    ck_assert_double_eq_tol(r.replicas_series[0], 2.0, 1e-12);
    ck_assert_double_eq_tol(r.replicas_series[1], 1.0, 1e-12);
    ck_assert_double_eq_tol(r.replicas_series[2], 2.0, 1e-12);
    /* (2 - 5/3) / 2 of the ideal 1,000 tokens/s over 300 s. */
    ck_assert_double_eq_tol(r.capacity_tokens_lost, 50000.0, 1e-6);
    train_job_result_fini(&r);

    /* A replica too few to fit: the job pauses instead. */
    j.min_dp = 2;
    ck_assert_int_eq(train_job_run(&j, 1, &r), 0);
    ck_assert_int_eq(r.steps, 100 + 90);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_PAUSED], 100.0, 1e-9);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_RECONFIGURE], 10.0, 1e-9);
    train_job_result_fini(&r);
}
END_TEST

/* A job with a known state per GPU over a 50 GB/s link with a 10 us
 * alpha and full efficiency: a spare's GPU receives 2 GB of weights and
 * 12 GB / 4 of shard (0.1 s + alpha), a shrink's survivor 12 GB / (4 x
 * 3) (0.02 s + alpha), an in-memory checkpoint copies 3 GB (0.06 s +
 * alpha, half hidden). */
static const struct net_link rec_link = {
    .name = "test", .alpha_ns = 1e4, .bytes_per_s = 50e9, .efficiency = 1.0};

static struct train_job recovery_job(int recovery)
{
    struct train_job j = base_job();

    j.dp = 4;
    j.duration_s = 1e4;
    j.gpu_mtbf_s = 5000.0 * 32; /* the job's MTBF 5,000 s */
    j.ckpt_every_steps = 100;
    j.ckpt_block_s = 10.0;
    j.restart_s = 600.0;
    j.load_s = 50.0;
    j.reconfigure_s = 120.0;
    j.detect_s = 30.0;
    j.recovery = recovery;
    j.fallback = TRAIN_RECOVER_SHRINK;
    j.spares = recovery == TRAIN_RECOVER_SPARE ? 1 : 0;
    j.mem_every_steps = recovery == TRAIN_RECOVER_RESTART ? 0 : 1;
    j.mem_overlap = 0.5;
    j.repl_bytes = 2e9;
    j.shard_bytes = 12e9;
    j.link = &rec_link;
    return j;
}

START_TEST(test_recovery_transfers_by_hand)
{
    struct train_job j = recovery_job(TRAIN_RECOVER_SPARE);

    ck_assert_double_eq_tol(train_spare_transfer_s(&j, 4), 0.1 + 1e-5, 1e-12);
    ck_assert_double_eq_tol(train_shrink_transfer_s(&j, 4), 0.02 + 1e-5, 1e-12);
    ck_assert_double_eq_tol(train_mem_ckpt_s(&j, 4), (0.06 + 1e-5) / 2, 1e-12);
    ck_assert_double_eq_tol(train_shrink_transfer_s(&j, 1), 0.0, 1e-12);
    j.shard_bytes = 0; /* ZeRO-0: nothing sharded, nothing to snapshot */
    ck_assert_double_eq_tol(train_mem_ckpt_s(&j, 4), 0.0, 1e-12);
    ck_assert_double_eq_tol(train_shrink_transfer_s(&j, 4), 0.0, 1e-12);
}
END_TEST

/* One failure, its recovery by hand in each mode. The seed is the first
 * with exactly one failure whose restart completes; the failure time is
 * the same in the three modes (the first draw), and the second draw falls
 * after the end in each (its rate is the same or lower). */
START_TEST(test_recovery_single_failure_by_hand)
{
    struct train_job j = recovery_job(TRAIN_RECOVER_RESTART);
    struct train_job_result r;
    uint64_t seed;

    for (seed = 1; seed < 200; seed++) {
        ck_assert_int_eq(train_job_run(&j, seed, &r), 0);
        if (r.failures == 1 && r.time_s[TRAIN_T_RESTART] > 650.0 - 1e-6)
            break;
        train_job_result_fini(&r);
    }
    ck_assert(seed < 200);
    /* restart: detection 30 of the 600, the rest rebuilding, the load. */
    ck_assert_int_eq(r.restarts, 1);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_DETECT], 30.0, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_REBUILD], 570.0, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_RELOAD], 50.0, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_TRANSFER], 0.0, 1e-12);
    /* Recomputed: the steps since the durable checkpoint (at most 100)
     * and the partial one; the run's end adds its own partial step to
     * rework, not to the failure's loss. */
    ck_assert(r.lost_s[TRAIN_L_RECOMPUTE] <= r.time_s[TRAIN_T_REWORK]);
    ck_assert(r.lost_s[TRAIN_L_RECOMPUTE] <= 100.0 + 1e-9);
    ck_assert_double_eq_tol(
        r.lost_s[TRAIN_L_RECOMPUTE],
        (double)r.steps_lost + fmod(r.lost_s[TRAIN_L_RECOMPUTE], 1.0), 1e-9);
    train_job_result_fini(&r);

    /* spare: 30 + (0.1 + 1e-5) + 120 s, back at most one step. */
    j = recovery_job(TRAIN_RECOVER_SPARE);
    ck_assert_int_eq(train_job_run(&j, seed, &r), 0);
    ck_assert_int_eq(r.failures, 1);
    ck_assert_int_eq(r.spares_used, 1);
    ck_assert_int_eq(r.dp_final, 4);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_DETECT], 30.0, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_TRANSFER], 0.1 + 1e-5, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_REBUILD], 120.0, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_RELOAD], 0.0, 1e-12);
    ck_assert(r.lost_s[TRAIN_L_RECOMPUTE] <= 1.0 + 1e-9);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_RECOVER], 150.1 + 1e-5, 1e-6);
    ck_assert(r.mem_checkpoints > 0);
    train_job_result_fini(&r);

    /* shrink: 30 + (0.02 + 1e-5) + 120 s, and 3 replicas after. */
    j = recovery_job(TRAIN_RECOVER_SHRINK);
    ck_assert_int_eq(train_job_run(&j, seed, &r), 0);
    ck_assert_int_eq(r.failures, 1);
    ck_assert_int_eq(r.shrinks, 1);
    ck_assert_int_eq(r.dp_final, 3);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_TRANSFER], 0.02 + 1e-5, 1e-9);
    ck_assert_double_eq_tol(r.lost_s[TRAIN_L_REBUILD], 120.0, 1e-9);
    ck_assert(r.lost_s[TRAIN_L_RECOMPUTE] <= 1.0 + 1e-9);
    ck_assert(r.replicas_mean < 4.0 && r.replicas_mean > 3.0);
    train_job_result_fini(&r);
}
END_TEST

/* Many failures: the invariants, and the same result for a seed. */
START_TEST(test_recovery_invariants)
{
    for (int mode = TRAIN_RECOVER_RESTART; mode <= TRAIN_RECOVER_SPARE;
         mode++) {
        for (int repair = 0; repair <= 1; repair++) {
            struct train_job j = recovery_job(mode);
            struct train_job_result r, r2;
            double sum = 0;

            j.gpu_mtbf_s = 300.0 * 32; /* about 33 failures */
            j.spares = mode == TRAIN_RECOVER_SPARE ? 2 : 0;
            j.min_dp = 2;
            j.repair_s = repair ? 900.0 : 0.0;
            ck_assert_int_eq(train_job_run(&j, 3, &r), 0);
            ck_assert(r.failures > 10);
            for (int k = 0; k < TRAIN_T_KINDS; k++) {
                ck_assert(r.time_s[k] >= -1e-6);
                sum += r.time_s[k];
            }
            ck_assert_double_eq_tol(sum, j.duration_s, 1e-6);
            ck_assert(r.goodput_time >= 0 && r.goodput_time <= 1);
            ck_assert(r.steps <= (int64_t)(j.duration_s / j.step_s));
            ck_assert_int_eq(r.spares_used + r.shrinks + r.restarts,
                             r.failures);
            /* Spares never below zero: used at most spares + repaired. */
            ck_assert(r.spares_used <= j.spares + r.repairs);
            /* Never fewer than max(1, min_dp) replicas. */
            ck_assert(r.dp_final >= 2 && r.dp_final <= j.dp);
            if (mode == TRAIN_RECOVER_RESTART)
                ck_assert_int_eq(r.restarts, r.failures);
            if (mode == TRAIN_RECOVER_SHRINK && !repair)
                ck_assert(r.restarts > 0 && r.shrinks == 2);
            ck_assert_int_eq(train_job_run(&j, 3, &r2), 0);
            ck_assert_int_eq(r2.steps, r.steps);
            ck_assert_int_eq(r2.failures, r.failures);
            ck_assert(memcmp(r2.lost_s, r.lost_s, sizeof(r.lost_s)) == 0);
            ck_assert(memcmp(r2.time_s, r.time_s, sizeof(r.time_s)) == 0);
            train_job_result_fini(&r2);
            train_job_result_fini(&r);
        }
    }
}
END_TEST

/* ZeRO-0: a live peer holds everything, so nothing is rolled back. */
START_TEST(test_recovery_zero0_keeps_steps)
{
    struct train_job j = recovery_job(TRAIN_RECOVER_SPARE);
    struct train_job_result r;

    j.repl_bytes = 14e9;
    j.shard_bytes = 0;
    j.gpu_mtbf_s = 300.0 * 32;
    j.spares = 1000;
    ck_assert_int_eq(train_job_run(&j, 3, &r), 0);
    ck_assert(r.failures > 10);
    ck_assert_int_eq(r.steps_lost, 0);
    ck_assert_double_eq_tol(r.time_s[TRAIN_T_SNAPSHOT], 0.0, 1e-12);
    ck_assert(r.lost_s[TRAIN_L_RECOMPUTE] < (double)r.failures);
    train_job_result_fini(&r);
}
END_TEST

static Suite *train_suite(void)
{
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("closed_forms");

    tcase_add_test(tc, test_young_daly_closed_forms);
    tcase_add_test(tc, test_bubble_interleaved);
    tcase_add_test(tc, test_ckpt_bytes_and_seconds);
    tcase_add_test(tc, test_layout_parse_ok_and_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("train_eval");
    tcase_add_test(tc, test_step_components_by_hand);
    tcase_add_test(tc, test_step_full_recompute_memory_and_hfu);
    tcase_add_test(tc, test_step_interleaved_bubble);
    tcase_add_test(tc, test_zero3_regathers_per_micro_batch);
    tcase_add_test(tc, test_enumerate_knobs);
    suite_add_tcase(s, tc);

    tc = tcase_create("train_job_run");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_job_checkpoint_cycles);
    tcase_add_test(tc, test_job_failure_accounting);
    tcase_add_test(tc, test_job_checkpoint_optimum_near_young);
    tcase_add_test(tc, test_job_shrink_and_grow);
    suite_add_tcase(s, tc);

    tc = tcase_create("recovery");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_recovery_transfers_by_hand);
    tcase_add_test(tc, test_recovery_single_failure_by_hand);
    tcase_add_test(tc, test_recovery_invariants);
    tcase_add_test(tc, test_recovery_zero0_keeps_steps);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(train_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
