/*
 * The "physics" suite: the GPU and architecture catalogs, the derived
 * parameter, KV and FLOP counts, and replica feasibility and KV capacity
 * (perf_replica_init). Expected values are worked by hand in the comments,
 * from the figures in docs/sources.md, so that a change to a formula or a
 * datasheet figure shows up here. The step time itself is tested in
 * check_models_step.c.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/arch.h"
#include "models/gpu/gpu.h"
#include "models/perf/roofline.h"
#include "base/errors.h"

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

/* perf_replica_init() with tp on one 8-GPU node, no pp or ep, the
 * built-in calibration and utilisation 0.9. */
static int init_tp(struct perf_replica *r, const struct arch_spec *a,
                   const struct gpu_spec *g, int tp, int wdt, int kvdt,
                   double util, char *why, size_t whylen)
{
    struct perf_layout l = {
        .tp = tp, .pp = 1, .ep = 1, .gpus_per_node = 8, .nics_per_node = 0};

    return perf_replica_init(r, a, g, &l, wdt, kvdt, util, NULL, why, whylen);
}

/* A replica that must be feasible. */
static void must_init(struct perf_replica *r, const char *model,
                      const char *gpu, int tp, int wdt, int kvdt)
{
    char why[512] = "";
    int rc = init_tp(r, must_arch(model), must_gpu(gpu), tp, wdt, kvdt, 0.9,
                     why, sizeof(why));

    ck_assert_msg(rc == 0, "%s on %d x %s: %s", model, tp, gpu, why);
}

/* ---- registries ---- */

START_TEST(test_gpu_table_sorted_unique_summaries)
{
    size_t i;

    ck_assert_ptr_nonnull(gpu_table[0]);
    for (i = 0; gpu_table[i] != NULL; i++) {
        const struct gpu_spec *g = gpu_table[i];
        ck_assert_msg(g->summary != NULL && g->summary[0] != '\0', "%s",
                      g->name);
        ck_assert_msg(g->source != NULL && g->source[0] != '\0', "%s", g->name);
        ck_assert_msg(g->price_source != NULL &&
                          strstr(g->price_source, "default") != NULL,
                      "%s price must be marked as a default", g->name);
        /* The report's "Prices" table reads these, one column each. */
        ck_assert_msg(
            g->price_src.provider != NULL && g->price_src.region != NULL &&
                g->price_src.basis != NULL && g->price_src.date != NULL &&
                g->price_src.source != NULL &&
                strstr(g->price_src.source, "§1.4") != NULL,
            "%s price provenance incomplete", g->name);
        /* FP8 is absent (0) or faster than bf16 (docs/sources.md §1.1). */
        ck_assert(g->flops_bf16 > 0 &&
                  (g->flops_fp8 == 0 || g->flops_fp8 >= g->flops_bf16));
        ck_assert(g->hbm_bytes > 0 && g->hbm_bytes_per_s > 0);
        ck_assert(g->nvlink_bytes_per_s > 0 && g->nvlink_latency_ns > 0);
        if (gpu_table[i + 1] != NULL)
            ck_assert_msg(strcmp(g->name, gpu_table[i + 1]->name) < 0,
                          "%s before %s", g->name, gpu_table[i + 1]->name);
    }
}
END_TEST

START_TEST(test_gpu_find_exact_case_and_miss)
{
    ck_assert_str_eq(must_gpu("h200")->name, "h200");
    ck_assert_str_eq(must_gpu("H100")->name, "h100");
    ck_assert_ptr_null(gpu_find("h20"));
    ck_assert_ptr_null(gpu_find(NULL));
    /* docs/sources.md §1.1: H200 141 GB, 4.8 TB/s, 989.4 TFLOP/s bf16 dense. */
    ck_assert_int_eq(must_gpu("h200")->hbm_bytes, INT64_C(141000000000));
    ck_assert_double_eq(must_gpu("h200")->flops_bf16, 989.4e12);
}
END_TEST

START_TEST(test_arch_table_sorted_unique_summaries)
{
    size_t i;

    ck_assert_ptr_nonnull(arch_table[0]);
    for (i = 0; arch_table[i] != NULL; i++) {
        const struct arch_spec *a = arch_table[i];
        ck_assert_msg(a->summary != NULL && a->summary[0] != '\0', "%s",
                      a->name);
        ck_assert_msg(a->source != NULL && a->source[0] != '\0', "%s", a->name);
        ck_assert(a->layers > 0 && a->hidden > 0 && a->heads > 0);
        if (arch_table[i + 1] != NULL)
            ck_assert_msg(strcmp(a->name, arch_table[i + 1]->name) < 0,
                          "%s before %s", a->name, arch_table[i + 1]->name);
    }
}
END_TEST

START_TEST(test_arch_find_path_url_basename)
{
    ck_assert_ptr_eq(arch_find_path("s3://models/deepseek-v3"),
                     must_arch("deepseek-v3"));
    /* "llama3170binstruct" starts with "llama3170b". */
    ck_assert_ptr_eq(arch_find_path("/models/Llama-3.1-70B-Instruct/"),
                     must_arch("llama-3.1-70b"));
    ck_assert_ptr_eq(arch_find_path("hf://meta-llama/Llama-3.1-8B"),
                     must_arch("llama-3.1-8b"));
    ck_assert_ptr_eq(arch_find_path("DeepSeek-V3"), must_arch("deepseek-v3"));
}
END_TEST

START_TEST(test_arch_find_path_miss)
{
    ck_assert_ptr_null(arch_find_path("s3://models/mistral-7b"));
    ck_assert_ptr_null(arch_find_path("s3://models/"));
    ck_assert_ptr_null(arch_find_path(""));
    ck_assert_ptr_null(arch_find_path(NULL));
    /* The catalog name must be a prefix, not just a substring. */
    ck_assert_ptr_null(arch_find_path("/m/my-llama-3.1-8b"));
}
END_TEST

/* ---- parameter counts (docs/sources.md §4.2 worked values) ---- */

START_TEST(test_arch_params_total_llama_8b)
{
    /* 32 * (4096*4096 + 2*4096*1024 + 4096*4096 + 3*4096*14336 + 2*4096)
     * + 2 * 128256*4096 + 4096 = 32 * 218,112,000 + 1,050,673,152 + 4096
     * = 8,030,261,248. */
    const struct arch_spec *a = must_arch("llama-3.1-8b");

    ck_assert_int_eq(arch_params_total(a), INT64_C(8030261248));
    ck_assert_int_eq(arch_params_active(a), INT64_C(8030261248));
}
END_TEST

START_TEST(test_arch_params_total_llama_70b)
{
    /* 80 * (2*8192*8192 + 2*8192*1024 + 3*8192*28672 + 2*8192)
     * + 2 * 128256*8192 + 8192 = 70,553,706,496. */
    const struct arch_spec *a = must_arch("llama-3.1-70b");

    ck_assert_int_eq(arch_params_total(a), INT64_C(70553706496));
    ck_assert_int_eq(arch_params_active(a), INT64_C(70553706496));
}
END_TEST

START_TEST(test_arch_params_total_deepseek_v3)
{
    /* Per docs/sources.md §4.2: MLA 187,107,328; dense MLP 396,361,728; expert
     * 44,040,192; router 256*7168 + 256 = 1,835,264; norms 14,336.
     * total = 3*(187,107,328 + 396,361,728 + 14,336)
     *       + 58*(187,107,328 + 1,835,264 + 257*44,040,192 + 14,336)
     *       + 2*926,679,040 + 7168 = 671,026,419,200.
     * active: 9 experts instead of 257 = 37,552,297,472. */
    const struct arch_spec *a = must_arch("deepseek-v3");

    ck_assert_int_eq(arch_params_expert(a), INT64_C(44040192));
    ck_assert_int_eq(arch_params_embedding(a), INT64_C(926679040));
    ck_assert_int_eq(arch_moe_layers(a), 58);
    ck_assert_int_eq(arch_params_total(a), INT64_C(671026419200));
    ck_assert_int_eq(arch_params_active(a), INT64_C(37552297472));
}
END_TEST

START_TEST(test_arch_params_always_read_excludes_experts_and_embedding)
{
    /* 671,026,419,200 - 58*256*44,040,192 - 926,679,040
     * = 671,026,419,200 - 653,908,770,816 - 926,679,040 = 16,190,969,344. */
    ck_assert_int_eq(arch_params_always_read(must_arch("deepseek-v3")),
                     INT64_C(16190969344));
    /* 8,030,261,248 - 525,336,576 = 7,504,924,672. */
    ck_assert_int_eq(arch_params_always_read(must_arch("llama-3.1-8b")),
                     INT64_C(7504924672));
}
END_TEST

/* ---- KV bytes and FLOPs (docs/sources.md §4.3, §4.4) ---- */

START_TEST(test_arch_kv_bytes_per_token_gqa)
{
    /* 2*32*8*128*2 = 131,072; fp8 65,536; 2*80*8*128*2 = 327,680. */
    ck_assert_int_eq(arch_kv_bytes_per_token(must_arch("llama-3.1-8b"), 2),
                     131072);
    ck_assert_int_eq(arch_kv_bytes_per_token(must_arch("llama-3.1-8b"), 1),
                     65536);
    ck_assert_int_eq(arch_kv_bytes_per_token(must_arch("llama-3.1-70b"), 2),
                     327680);
}
END_TEST

START_TEST(test_arch_kv_bytes_per_token_mla)
{
    /* 61 * (512 + 64) * 2 = 70,272. */
    ck_assert_int_eq(arch_kv_bytes_per_token(must_arch("deepseek-v3"), 2),
                     70272);
}
END_TEST

START_TEST(test_arch_linear_flops_per_token_excludes_embedding)
{
    /* 2 * (37,552,297,472 - 926,679,040) = 73,251,236,864 (docs/sources.md
     * §4.4: about 75 GFLOP/token with the embedding). */
    ck_assert_int_eq(arch_linear_flops_per_token(must_arch("deepseek-v3")),
                     INT64_C(73251236864));
}
END_TEST

START_TEST(test_arch_attn_flops_per_pair_mla_absorbed)
{
    /* Decode: (2*576 + 2*512) * 128 heads * 61 layers = 16,990,208.
     * Prefill: (2*192 + 2*128) * 128 * 61 = 4,997,120.
     * GQA 8B: 4*128 * 32 heads * 32 layers = 524,288 both ways. */
    const struct arch_spec *ds = must_arch("deepseek-v3");
    const struct arch_spec *l8 = must_arch("llama-3.1-8b");

    ck_assert_double_eq(arch_attn_flops_per_pair(ds, 1), 16990208.0);
    ck_assert_double_eq(arch_attn_flops_per_pair(ds, 0), 4997120.0);
    ck_assert_double_eq(arch_attn_flops_per_pair(l8, 1), 524288.0);
    ck_assert_double_eq(arch_attn_flops_per_pair(l8, 0), 524288.0);
}
END_TEST

START_TEST(test_arch_moe_experts_touched_limits)
{
    const struct arch_spec *ds = must_arch("deepseek-v3");

    /* T = 1: 256 * (1 - (1 - 8/256)) = 8, a fraction k/E = 1/32. */
    ck_assert_double_eq_tol(arch_moe_experts_touched(ds, 1) / 256.0,
                            8.0 / 256.0, 1e-12);
    /* T = 2: 256 * (1 - (31/32)^2) = 256 * 63/1024 = 15.75. */
    ck_assert_double_eq_tol(arch_moe_experts_touched(ds, 2), 15.75, 1e-9);
    /* T = 10,000: (31/32)^10000 ~ e^-317, all 256 experts. */
    ck_assert_double_eq_tol(arch_moe_experts_touched(ds, 10000), 256.0, 1e-9);
    ck_assert_double_eq(arch_moe_experts_touched(ds, 0), 0.0);
    ck_assert_double_eq(
        arch_moe_experts_touched(must_arch("llama-3.1-8b"), 100), 0.0);
}
END_TEST

/* ---- feasibility ---- */

START_TEST(test_perf_replica_init_deepseek_fp8_4xh200_refused)
{
    /* Weights 671,026,419,200 * (1 + 4/16384) = 671.19 GB; 4 x 141 GB =
     * 564.0 GB, 507.6 GB at 0.9. Per GPU at tp 4 (MLA q_a and kv_a,
     * norms and router replicated, the rest / 4): 168.57 GB against
     * 126.9 - 2.1 = 124.75 GB usable: does not fit. int4 (86.9 GB a GPU)
     * fits; so do tp 8 (84.8 GB), two pipeline stages (31 layers a GPU)
     * and ep 8 (32 experts a GPU, two data-parallel attention groups).
     * B200 at tp 4: 0.9 * 180e9 - 2.1e9 = 159.9 GB < 168.6: no. */
    struct perf_replica r;
    char why[512] = "";
    int rc = init_tp(&r, must_arch("deepseek-v3"), must_gpu("h200"), 4,
                     CL_DTYPE_FP8, CL_DTYPE_BF16, 0.9, why, sizeof(why));

    ck_assert_int_eq(rc, SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "int4") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "tp >= 8") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "pp >= 2") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "ep >= 8") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "needs 671.2 GB of weights but 4 x h200 hold "
                              "564.0 GB") != NULL,
                  "%s", why);
    ck_assert_msg(strstr(why, "507.6 GB usable") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "b200") == NULL, "%s", why);
    ck_assert_msg(strchr(why, '\n') == NULL, "%s", why);
}
END_TEST

START_TEST(test_perf_replica_init_deepseek_int4_4xh200_accepted)
{
    /* Per layer, MLA attention 187,107,328 parameters, of which q_a and
     * kv_a with their norms stay whole on every rank (7168*1536 + 1536 +
     * 7168*576 + 512 = 15,140,864) and the rest splits: 171,966,464 / 4
     * + 15,140,864 = 58,132,480; norms 14,336. Dense layer + 396,361,728 /
     * 4; MoE layer + router 1,835,264 + shared 44,040,192 / 4 + 256 *
     * 44,040,192 / 4 = 2,889,564,416. Per GPU: 3 * 157,237,248 + 58 *
     * 2,889,564,416 + 2 * 926,679,040 / 4 + 7168 = 168,529,794,560
     * parameters * 0.515625 = 86,898,175,320 B. Free = 0.9 * 141e9 -
     * 86,898,175,320 - 2,147,483,648 = 37,854,341,032 B; / 70,272 B/token
     * (latent replicated on every rank) = 538,683.13 -> 538,683 tokens. */
    struct perf_replica r;

    must_init(&r, "deepseek-v3", "h200", 4, CL_DTYPE_INT4, CL_DTYPE_BF16);
    ck_assert_double_eq_tol(perf_weight_bytes_per_gpu(&r), 86898175320.0, 1.0);
    ck_assert_int_eq(perf_kv_capacity_tokens(&r), 538683);
}
END_TEST

START_TEST(test_perf_replica_init_llama_8b_1xh100_kv_capacity)
{
    /* Weights 8,030,261,248 * 2 = 16,060,522,496 B. Free = 0.9 * 80e9 -
     * 16,060,522,496 - 2,147,483,648 = 53,791,993,856 B; / 131,072
     * = 410,400.34 -> 410,400 tokens. */
    struct perf_replica r;

    must_init(&r, "llama-3.1-8b", "h100", 1, CL_DTYPE_BF16, CL_DTYPE_BF16);
    ck_assert_double_eq(perf_weight_bytes_per_gpu(&r), 16060522496.0);
    ck_assert_int_eq(perf_kv_capacity_tokens(&r), 410400);
}
END_TEST

START_TEST(test_perf_replica_init_gqa_heads_split_and_replicated)
{
    /* 70B tp 4: 327,680 / 4 = 81,920 B/token/GPU. 8B tp 8 = kv_heads: one
     * head each, 65,536 (fp8) / 8 = 8,192. */
    struct perf_replica r;

    must_init(&r, "llama-3.1-70b", "h100", 4, CL_DTYPE_BF16, CL_DTYPE_BF16);
    ck_assert_double_eq(r.kv_bytes_per_token_per_gpu, 81920.0);
    must_init(&r, "llama-3.1-8b", "h100", 8, CL_DTYPE_BF16, CL_DTYPE_FP8);
    ck_assert_double_eq(r.kv_bytes_per_token_per_gpu, 8192.0);
}
END_TEST

START_TEST(test_perf_replica_init_tp_not_dividing_heads)
{
    struct perf_replica r;
    char why[512] = "";
    int rc = init_tp(&r, must_arch("llama-3.1-8b"), must_gpu("h100"), 3,
                     CL_DTYPE_BF16, CL_DTYPE_BF16, 0.9, why, sizeof(why));

    ck_assert_int_eq(rc, SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "use tp 1, 2, 4, or 8") != NULL, "%s", why);
}
END_TEST

START_TEST(test_perf_replica_init_tp_beyond_node)
{
    struct perf_replica r;
    char why[512] = "";
    int rc = init_tp(&r, must_arch("llama-3.1-70b"), must_gpu("h100"), 16,
                     CL_DTYPE_BF16, CL_DTYPE_BF16, 0.9, why, sizeof(why));

    ck_assert_int_eq(rc, SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "gpus_per_node 8") != NULL, "%s", why);
}
END_TEST

START_TEST(test_perf_replica_init_bad_arguments)
{
    struct perf_replica r;
    struct perf_gpu_calib c;
    struct perf_layout l = {
        .tp = 1, .pp = 1, .ep = 1, .gpus_per_node = 8, .nics_per_node = 0};
    char why[256];
    const struct arch_spec *a = must_arch("llama-3.1-8b");
    const struct gpu_spec *g = must_gpu("h100");

    /* int4 is a weight-only format; utilisation above 1. */
    ck_assert_int_eq(init_tp(&r, a, g, 1, CL_DTYPE_BF16, CL_DTYPE_INT4, 0.9,
                             why, sizeof(why)),
                     SIM_EINVAL);
    ck_assert_int_eq(init_tp(&r, a, g, 1, CL_DTYPE_BF16, CL_DTYPE_BF16, 1.5,
                             why, sizeof(why)),
                     SIM_EINVAL);
    ck_assert_int_eq(
        init_tp(&r, a, g, 0, CL_DTYPE_BF16, CL_DTYPE_BF16, 0.9, NULL, 0),
        SIM_EINVAL);
    /* A calibration with a zero efficiency. */
    perf_calib_resolve(NULL, g, &c);
    c.gemm_eff_max = 0.0;
    ck_assert_int_eq(perf_replica_init(&r, a, g, &l, CL_DTYPE_BF16,
                                       CL_DTYPE_BF16, 0.9, &c, why,
                                       sizeof(why)),
                     SIM_EINVAL);
    ck_assert_msg(strstr(why, "calibration") != NULL, "%s", why);
    /* Layouts: pp beyond the layers, ep on a dense model, ep not a
     * multiple of tp. */
    l.pp = 33;
    ck_assert_int_eq(perf_replica_init(&r, a, g, &l, CL_DTYPE_BF16,
                                       CL_DTYPE_BF16, 0.9, NULL, why,
                                       sizeof(why)),
                     SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "pp 33 exceeds the 32 layers") != NULL, "%s",
                  why);
    l.pp = 1;
    l.ep = 2;
    ck_assert_int_eq(perf_replica_init(&r, a, g, &l, CL_DTYPE_BF16,
                                       CL_DTYPE_BF16, 0.9, NULL, why,
                                       sizeof(why)),
                     SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "is dense, use ep 1") != NULL, "%s", why);
    l.tp = 4;
    l.ep = 6;
    ck_assert_int_eq(perf_replica_init(&r, must_arch("deepseek-v3"),
                                       must_gpu("h200"), &l, CL_DTYPE_FP8,
                                       CL_DTYPE_BF16, 0.9, NULL, why,
                                       sizeof(why)),
                     SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "ep 6 must be a multiple of tp 4") != NULL, "%s",
                  why);
}
END_TEST

START_TEST(test_perf_replica_init_70b_1xh100_no_room)
{
    /* 70,553,706,496 * 2 = 141.1 GB on one 80 GB GPU (72e9 usable): int4
     * (36.4 GB) fits; fp8 (70.57 GB) does not (72e9 - 70.57e9 - 2.15e9 <
     * 0); tp 2 does not (70.55e9 + 2.15e9 > 72e9), tp 4 does (35.3 GB per
     * GPU); two pipeline stages do not ((40 * 855,654,400 + 1,050,673,152
     * + 8192) * 2 B = 70.55 GB > 72e9 - 2.15e9 = 69.85 GB: a layer is
     * 2 * 8192^2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192, and a
     * stage holds the embedding or the head), three do (27 layers:
     * 48.3 GB); b200 (162e9 - 141.1e9 - 2.15e9 = 18.8 GB left) and mi300x
     * (172.8e9 usable) do, h200 (126.9e9 usable) does not. */
    struct perf_replica r;
    char why[512] = "";
    int rc = init_tp(&r, must_arch("llama-3.1-70b"), must_gpu("h100"), 1,
                     CL_DTYPE_BF16, CL_DTYPE_BF16, 0.9, why, sizeof(why));

    ck_assert_int_eq(rc, SIM_EINFEASIBLE);
    ck_assert_msg(strstr(why, "; use int4 weights, tp >= 4, pp >= 3, or a "
                              "larger gpu (b200 or mi300x)") != NULL,
                  "%s", why);
}
END_TEST

START_TEST(test_perf_replica_init_memory_per_gpu_never_grows_with_tp)
{
    /* On a GPU large enough for every catalog model, the weights each GPU
     * holds do not grow with tp, nor with pp or ep (property). */
    struct gpu_spec big = *must_gpu("h200");
    size_t i;

    big.hbm_bytes = INT64_C(4000000000000);
    for (i = 0; arch_table[i] != NULL; i++) {
        const struct arch_spec *a = arch_table[i];
        double prev = INFINITY;
        int tp;

        for (tp = 1; tp <= 8; tp *= 2) {
            struct perf_replica r;
            struct perf_layout l = {.tp = tp,
                                    .pp = 1,
                                    .ep = 1,
                                    .gpus_per_node = 8,
                                    .nics_per_node = 0};
            if (perf_replica_init(&r, a, &big, &l, CL_DTYPE_BF16, CL_DTYPE_BF16,
                                  0.9, NULL, NULL, 0) != 0)
                continue;
            ck_assert_msg(r.weight_bytes_per_gpu <= prev, "%s tp %d", a->name,
                          tp);
            prev = r.weight_bytes_per_gpu;
            l.pp = 2;
            ck_assert_int_eq(perf_replica_init(&r, a, &big, &l, CL_DTYPE_BF16,
                                               CL_DTYPE_BF16, 0.9, NULL, NULL,
                                               0),
                             0);
            ck_assert_msg(r.weight_bytes_per_gpu <= prev, "%s pp 2", a->name);
            if (a->moe.n_routed_experts > 0) {
                l.pp = 1;
                l.ep = 2 * tp;
                if (perf_replica_init(&r, a, &big, &l, CL_DTYPE_BF16,
                                      CL_DTYPE_BF16, 0.9, NULL, NULL, 0) == 0)
                    ck_assert_msg(r.weight_bytes_per_gpu <= prev, "%s ep %d",
                                  a->name, l.ep);
            }
        }
        ck_assert_msg(prev < INFINITY, "%s fits nowhere", a->name);
    }
}
END_TEST

START_TEST(test_perf_replica_init_one_gpu_holds_every_parameter)
{
    /* With one GPU the per-GPU weights are the whole model: checks that
     * the per-class parameter split (attention by subtraction, MLP, MoE,
     * embeddings) adds up to arch_params_total() for every catalog entry. */
    struct gpu_spec big = *must_gpu("h200");
    size_t i;

    big.hbm_bytes = INT64_C(4000000000000);
    for (i = 0; arch_table[i] != NULL; i++) {
        struct perf_replica r;
        struct perf_layout l = {
            .tp = 1, .pp = 1, .ep = 1, .gpus_per_node = 8, .nics_per_node = 0};
        const struct arch_spec *a = arch_table[i];

        ck_assert_int_eq(perf_replica_init(&r, a, &big, &l, CL_DTYPE_BF16,
                                           CL_DTYPE_BF16, 0.9, NULL, NULL, 0),
                         0);
        ck_assert_msg(fabs(r.weight_bytes_per_gpu -
                           2.0 * (double)arch_params_total(a)) < 1.0,
                      "%s: %.0f vs %.0f", a->name, r.weight_bytes_per_gpu,
                      2.0 * (double)arch_params_total(a));
    }
}
END_TEST

static Suite *physics_suite(void)
{
    Suite *s = suite_create("physics");
    TCase *tc;

    tc = tcase_create("gpu_table");
    tcase_add_test(tc, test_gpu_table_sorted_unique_summaries);
    tcase_add_test(tc, test_gpu_find_exact_case_and_miss);
    suite_add_tcase(s, tc);

    tc = tcase_create("arch_table");
    tcase_add_test(tc, test_arch_table_sorted_unique_summaries);
    tcase_add_test(tc, test_arch_find_path_url_basename);
    tcase_add_test(tc, test_arch_find_path_miss);
    suite_add_tcase(s, tc);

    tc = tcase_create("arch_params");
    tcase_add_test(tc, test_arch_params_total_llama_8b);
    tcase_add_test(tc, test_arch_params_total_llama_70b);
    tcase_add_test(tc, test_arch_params_total_deepseek_v3);
    tcase_add_test(tc,
                   test_arch_params_always_read_excludes_experts_and_embedding);
    suite_add_tcase(s, tc);

    tc = tcase_create("arch_kv_flops");
    tcase_add_test(tc, test_arch_kv_bytes_per_token_gqa);
    tcase_add_test(tc, test_arch_kv_bytes_per_token_mla);
    tcase_add_test(tc, test_arch_linear_flops_per_token_excludes_embedding);
    tcase_add_test(tc, test_arch_attn_flops_per_pair_mla_absorbed);
    tcase_add_test(tc, test_arch_moe_experts_touched_limits);
    suite_add_tcase(s, tc);

    tc = tcase_create("perf_replica_init");
    tcase_add_test(tc, test_perf_replica_init_deepseek_fp8_4xh200_refused);
    tcase_add_test(tc, test_perf_replica_init_deepseek_int4_4xh200_accepted);
    tcase_add_test(tc, test_perf_replica_init_llama_8b_1xh100_kv_capacity);
    tcase_add_test(tc, test_perf_replica_init_gqa_heads_split_and_replicated);
    tcase_add_test(tc, test_perf_replica_init_tp_not_dividing_heads);
    tcase_add_test(tc, test_perf_replica_init_tp_beyond_node);
    tcase_add_test(tc, test_perf_replica_init_bad_arguments);
    tcase_add_test(tc, test_perf_replica_init_70b_1xh100_no_room);
    tcase_add_test(tc,
                   test_perf_replica_init_memory_per_gpu_never_grows_with_tp);
    tcase_add_test(tc, test_perf_replica_init_one_gpu_holds_every_parameter);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(physics_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
