/*
 * The "arch" suite: the model-architecture catalog entries added for
 * issue #3 (DeepSeek-V3.2, Llama 2 70B, Llama 3.1 405B, Qwen2.5 72B, Qwen3
 * 32B and 235B-A22B) against the worked values of docs/sources.md §4.2-4.4,
 * path recognition, and the Hugging Face config.json reader: every fixture in
 * tests/data/hf/ (written from docs/sources.md §4.1) loads to exactly its
 * catalog entry's counts, small synthetic configs exercise the other keys, and
 * every diagnostic has its exact message checked.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "base/errors.h"
#include "base/xalloc.h"

static const struct arch_spec *must_arch(const char *name)
{
    const struct arch_spec *a = arch_find(name);

    ck_assert_msg(a != NULL, "no catalog entry %s", name);
    return a;
}

/* The fixture directory tests/data/hf/NAME. Caller frees. */
static char *fixture(const char *name)
{
    const char *srcdir = getenv("top_srcdir");

    return xasprintf("%s/tests/data/hf/%s", srcdir ? srcdir : ".", name);
}

/* Loads path, which must succeed. Caller frees with arch_hf_free(). */
static struct arch_spec *must_load(const char *path)
{
    struct arch_spec *a = NULL;
    char why[512] = "";
    int rc = arch_hf_load(path, &a, why, sizeof(why));

    ck_assert_msg(rc == 0, "%s: %s", path, why);
    ck_assert_ptr_nonnull(a);
    return a;
}

/* Writes text to a new temporary file NAME/config.json under a fresh
 * directory; returns the file's path (caller frees; remove_tmp() cleans). */
static char *write_tmp(const char *name, const char *text)
{
    char tmpl[] = "/tmp/dsec-arch-XXXXXX";
    char *dir, *file;
    FILE *fp;

    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    dir = xasprintf("%s/%s", tmpl, name);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    file = xasprintf("%s/config.json", dir);
    fp = fopen(file, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    free(dir);
    return file;
}

/* Removes FILE, its directory and the temporary directory above it. */
static void remove_tmp(char *file)
{
    char *slash;

    ck_assert_int_eq(unlink(file), 0);
    for (int i = 0; i < 2; i++) {
        slash = strrchr(file, '/');
        *slash = '\0';
        ck_assert_int_eq(rmdir(file), 0);
    }
    free(file);
}

/* Loads text as NAME/config.json; returns the result code and the
 * message. */
static int load_text(const char *text, struct arch_spec **a, char *why,
                     size_t whylen)
{
    char *file = write_tmp("m", text);
    int rc = arch_hf_load(file, a, why, whylen);

    remove_tmp(file);
    return rc;
}

/* ---- catalog ---- */

START_TEST(test_arch_names_full_catalog)
{
    char *s = arch_names();

    ck_assert_str_eq(s, "deepseek-v3, deepseek-v3.2, llama-2-70b, "
                        "llama-3.1-405b, llama-3.1-70b, llama-3.1-8b, "
                        "qwen2.5-72b, qwen3-235b-a22b, qwen3-32b");
    free(s);
}
END_TEST

START_TEST(test_arch_params_total_dense_new)
{
    /* docs/sources.md §4.2 worked values.
     * Llama-2-70B: 80*(2*8192*8192 + 2*8192*1024 + 3*8192*28672 + 2*8192)
     *   + 2*32000*8192 + 8192 = 68,976,648,192.
     * Llama-3.1-405B: 126*(2*16384*16384 + 2*16384*1024 + 3*16384*53248
     *   + 2*16384) + 2*128256*16384 + 16384 = 405,853,388,800.
     * Qwen2.5-72B: as Llama with ffn 29568, vocab 152064 and 8192 + 2*1024
     *   QKV bias terms a layer = 72,706,203,648.
     * Qwen3-32B: q 5120 -> 8192, 2*128 QK-norm weights a layer
     *   = 32,762,123,264. */
    static const struct {
        const char *name;
        int64_t total;
    } want[] = {
        {"llama-2-70b", INT64_C(68976648192)},
        {"llama-3.1-405b", INT64_C(405853388800)},
        {"qwen2.5-72b", INT64_C(72706203648)},
        {"qwen3-32b", INT64_C(32762123264)},
    };

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct arch_spec *a = must_arch(want[i].name);

        ck_assert_msg(arch_params_total(a) == want[i].total, "%s: %lld",
                      want[i].name, (long long)arch_params_total(a));
        ck_assert_int_eq(arch_params_active(a), want[i].total);
        ck_assert_int_eq(arch_moe_layers(a), 0);
        ck_assert_int_eq(arch_params_indexer(a), 0);
    }
}
END_TEST

START_TEST(test_arch_params_qwen3_235b)
{
    /* docs/sources.md §4.2: attention 2*4096*8192 + 2*4096*512 + 256 =
     * 71,303,424; router 128*4096; expert 3*4096*1536 = 18,874,368; every one
     * of the 94 layers MoE: total 235,093,634,560, active (8 experts)
     * 22,190,763,520. Always read: 235,093,634,560 - 94*128*18,874,368 -
     * 151936*4096 = 7,374,908,928. */
    const struct arch_spec *a = must_arch("qwen3-235b-a22b");

    ck_assert_int_eq(arch_moe_layers(a), 94);
    ck_assert_int_eq(arch_params_expert(a), INT64_C(18874368));
    ck_assert_int_eq(arch_params_total(a), INT64_C(235093634560));
    ck_assert_int_eq(arch_params_active(a), INT64_C(22190763520));
    ck_assert_int_eq(arch_params_always_read(a), INT64_C(7374908928));
    /* docs/sources.md §4.4: 2 * (22,190,763,520 - 622,329,856). */
    ck_assert_int_eq(arch_linear_flops_per_token(a), INT64_C(43136867328));
}
END_TEST

START_TEST(test_arch_params_deepseek_v3_2_indexer)
{
    /* docs/sources.md §4.2: indexer 1536*64*128 + 7168*128 + 2*128 + 7168*64
     * = 13,959,424 a layer; V3.2 = V3 + 61 * 13,959,424:
     * total 671,026,419,200 + 851,524,864 = 671,877,944,064,
     * active 37,552,297,472 + 851,524,864 = 38,403,822,336. */
    const struct arch_spec *v3 = must_arch("deepseek-v3");
    const struct arch_spec *a = must_arch("deepseek-v3.2");

    ck_assert_int_eq(arch_params_indexer(a), INT64_C(13959424));
    ck_assert_int_eq(arch_params_indexer(v3), 0);
    ck_assert_int_eq(arch_params_total(a),
                     arch_params_total(v3) + 61 * INT64_C(13959424));
    ck_assert_int_eq(arch_params_total(a), INT64_C(671877944064));
    ck_assert_int_eq(arch_params_active(a), INT64_C(38403822336));
    /* Always read: 671,877,944,064 - 58*256*44,040,192 - 926,679,040. */
    ck_assert_int_eq(arch_params_always_read(a), INT64_C(17042494208));
    /* 2 * (38,403,822,336 - 926,679,040). */
    ck_assert_int_eq(arch_linear_flops_per_token(a), INT64_C(74954286592));
    /* The existing entry is unchanged (docs/sources.md §4.2). */
    ck_assert_int_eq(arch_params_total(v3), INT64_C(671026419200));
    ck_assert_int_eq(arch_params_active(v3), INT64_C(37552297472));
}
END_TEST

START_TEST(test_arch_kv_bytes_per_token_catalog)
{
    /* docs/sources.md §4.3 table: bf16 and fp8. */
    static const struct {
        const char *name;
        int64_t bf16, fp8;
    } want[] = {
        {"llama-3.1-8b", 131072, 65536},
        {"llama-2-70b", 327680, 163840},
        {"llama-3.1-70b", 327680, 163840},
        {"qwen2.5-72b", 327680, 163840},
        {"llama-3.1-405b", 516096, 258048},
        {"qwen3-32b", 262144, 131072},
        {"qwen3-235b-a22b", 192512, 96256},
        /* MLA: 61 * 576 * 2 = 70,272; 61 * 576 = 35,136 (per element). */
        {"deepseek-v3", 70272, 35136},
        /* V3.2: fp8 61 * (512 + 16 + 128 + 128 + 4) = 48,068 (FlashMLA FP8
         * with scale plus the indexer key, docs/sources.md §4.3); bf16 61 *
         * (1,152 + 132) = 78,324 (the indexer key stays FP8). */
        {"deepseek-v3.2", 78324, 48068},
    };

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct arch_spec *a = must_arch(want[i].name);

        ck_assert_msg(arch_kv_bytes_per_token(a, 2) == want[i].bf16,
                      "%s bf16: %lld", want[i].name,
                      (long long)arch_kv_bytes_per_token(a, 2));
        ck_assert_msg(arch_kv_bytes_per_token(a, 1) == want[i].fp8,
                      "%s fp8: %lld", want[i].name,
                      (long long)arch_kv_bytes_per_token(a, 1));
    }
}
END_TEST

START_TEST(test_arch_attn_flops_dsa)
{
    const struct arch_spec *a = must_arch("deepseek-v3.2");
    const struct arch_spec *l8 = must_arch("llama-3.1-8b");

    /* The per-pair MLA figures are V3's (docs/sources.md §4.4): 16,990,208
     * decode, 4,997,120 prefill. */
    ck_assert_double_eq(arch_attn_flops_per_pair(a, 1), 16990208.0);
    ck_assert_double_eq(arch_attn_flops_per_pair(a, 0), 4997120.0);
    ck_assert_int_eq(arch_attn_topk(a), 2048);
    ck_assert_int_eq(arch_attn_topk(l8), 0);
    /* 2 * 64 * 128 * 61 = 999,424. */
    ck_assert_double_eq(arch_indexer_flops_per_pair(a), 999424.0);
    ck_assert_double_eq(arch_indexer_flops_per_pair(l8), 0.0);
    /* ctx 1,000 < topk: 1,000 * (16,990,208 + 999,424). */
    ck_assert_double_eq(arch_attn_flops_decode_query(a, 1000),
                        1000.0 * 17989632.0);
    /* ctx 10,000: 2,048 * 16,990,208 + 10,000 * 999,424. */
    ck_assert_double_eq(arch_attn_flops_decode_query(a, 10000),
                        2048.0 * 16990208.0 + 10000.0 * 999424.0);
    /* Dense attention reads everything: 10,000 * 524,288. */
    ck_assert_double_eq(arch_attn_flops_decode_query(l8, 10000),
                        10000.0 * 524288.0);
    ck_assert_double_eq(arch_attn_flops_decode_query(a, 0), 0.0);
}
END_TEST

START_TEST(test_arch_find_path_new_entries)
{
    ck_assert_ptr_eq(arch_find_path("DeepSeek-V3.2-Exp"),
                     must_arch("deepseek-v3.2"));
    ck_assert_ptr_eq(arch_find_path("deepseek-v3"), must_arch("deepseek-v3"));
    ck_assert_ptr_eq(arch_find_path("s3://m/DeepSeek-V3-0324"),
                     must_arch("deepseek-v3"));
    ck_assert_ptr_eq(arch_find_path("/m/Meta-Llama-3.1-405B-Instruct/"),
                     must_arch("llama-3.1-405b"));
    ck_assert_ptr_eq(arch_find_path("hf://meta-llama/Llama-2-70b-hf"),
                     must_arch("llama-2-70b"));
    ck_assert_ptr_eq(arch_find_path("Qwen3-235B-A22B-Instruct-2507"),
                     must_arch("qwen3-235b-a22b"));
    ck_assert_ptr_eq(arch_find_path("Qwen3-32B-FP8"), must_arch("qwen3-32b"));
    ck_assert_ptr_eq(arch_find_path("Qwen2.5-72B-Instruct"),
                     must_arch("qwen2.5-72b"));
    /* Only the "meta" vendor word is skipped, not any prefix. */
    ck_assert_ptr_null(arch_find_path("/m/my-llama-3.1-8b"));
    ck_assert_ptr_null(arch_find_path("/m/Meta-Mistral-7B"));
}
END_TEST

/* ---- Hugging Face config.json: catalog fixtures ---- */

START_TEST(test_arch_hf_load_matches_catalog)
{
    for (int i = 0; arch_table[i] != NULL; i++) {
        const struct arch_spec *c = arch_table[i];
        char *path = fixture(c->name);
        struct arch_spec *a = must_load(path);

        ck_assert_str_eq(a->name, c->name);
        ck_assert_msg(arch_params_total(a) == arch_params_total(c), "%s",
                      c->name);
        ck_assert_int_eq(arch_params_active(a), arch_params_active(c));
        ck_assert_int_eq(arch_params_always_read(a),
                         arch_params_always_read(c));
        ck_assert_int_eq(arch_kv_bytes_per_token(a, 2),
                         arch_kv_bytes_per_token(c, 2));
        ck_assert_int_eq(arch_kv_bytes_per_token(a, 1),
                         arch_kv_bytes_per_token(c, 1));
        ck_assert_int_eq(arch_linear_flops_per_token(a),
                         arch_linear_flops_per_token(c));
        ck_assert_double_eq(arch_attn_flops_per_pair(a, 0),
                            arch_attn_flops_per_pair(c, 0));
        ck_assert_double_eq(arch_attn_flops_per_pair(a, 1),
                            arch_attn_flops_per_pair(c, 1));
        ck_assert_int_eq(arch_moe_layers(a), arch_moe_layers(c));
        ck_assert_int_eq(arch_attn_topk(a), arch_attn_topk(c));
        ck_assert_int_eq(a->layers, c->layers);
        ck_assert_int_eq(a->hidden, c->hidden);
        ck_assert_int_eq(a->heads, c->heads);
        ck_assert_int_eq(a->kv_heads, c->kv_heads);
        ck_assert_int_eq(a->head_dim, c->head_dim);
        ck_assert_int_eq(a->vocab, c->vocab);
        ck_assert_int_eq(a->attn, c->attn);
        ck_assert_int_eq(a->weight_dtype, c->weight_dtype);
        ck_assert_int_eq(a->tied_embeddings, c->tied_embeddings);
        ck_assert_int_eq(a->qkv_bias, c->qkv_bias);
        ck_assert_int_eq(a->qk_norm, c->qk_norm);
        arch_hf_free(a);
        free(path);
    }
}
END_TEST

START_TEST(test_arch_hf_load_file_or_dir)
{
    char *dir = fixture("qwen3-32b");
    char *slash = xasprintf("%s/", dir);
    char *file = xasprintf("%s/config.json", dir);
    struct arch_spec *a = must_load(file), *b = must_load(slash);
    char *want = xasprintf("qwen3-32b from %s (Qwen3ForCausalLM)", file);

    ck_assert_str_eq(a->name, "qwen3-32b");
    ck_assert_str_eq(b->name, "qwen3-32b");
    ck_assert_str_eq(a->summary, want);
    ck_assert_int_eq(arch_params_total(b), INT64_C(32762123264));
    arch_hf_free(a);
    arch_hf_free(b);
    arch_hf_free(NULL);
    free(want);
    free(file);
    free(slash);
    free(dir);
}
END_TEST

/* ---- Hugging Face config.json: other architectures and keys ---- */

START_TEST(test_arch_hf_load_mistral_tied_float16)
{
    /* head_dim null -> 64 / 8 = 8. Per layer 64*64 + 2*64*16 + 64*64
     * + 3*64*128 + 2*64 = 34,944; 2 layers + one tied 10*64 table + 64
     * = 70,592. Tied: the head multiplies, so FLOPs = 2 * 70,592 and the
     * table is always read. */
    struct arch_spec *a = NULL;
    char why[512] = "";
    int rc = load_text("{\"architectures\": [\"MistralForCausalLM\"], "
                       "\"num_hidden_layers\": 2, \"hidden_size\": 64, "
                       "\"num_attention_heads\": 8, \"num_key_value_heads\": "
                       "2, \"head_dim\": null, \"intermediate_size\": 128, "
                       "\"vocab_size\": 10, \"tie_word_embeddings\": true, "
                       "\"sliding_window\": 4096, \"torch_dtype\": "
                       "\"float16\"}",
                       &a, why, sizeof(why));

    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_str_eq(a->name, "m");
    ck_assert_int_eq(a->head_dim, 8);
    ck_assert_int_eq(a->tied_embeddings, 1);
    ck_assert_int_eq(a->weight_dtype, CL_DTYPE_BF16);
    ck_assert_int_eq(arch_params_total(a), 70592);
    ck_assert_int_eq(arch_params_always_read(a), 70592);
    ck_assert_int_eq(arch_linear_flops_per_token(a), 141184);
    /* 2 * 2 * 2 * 8 * 2 = 128. */
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 2), 128);
    arch_hf_free(a);
}
END_TEST

/* ---- architectures beyond the catalog (issue #16) ---- */

START_TEST(test_arch_hf_load_mixtral_8x7b)
{
    /* embed = head = 32000 * 4096 = 131,072,000; a layer: q, o 4096^2 and
     * k, v 4096 * 1024 = 41,943,040, 8 experts * 3 * 4096 * 14336 =
     * 1,409,286,144, router 4096 * 8 = 32,768, norms 8,192: 1,451,270,144;
     * 32 layers + 2 * 131,072,000 + 4,096 = 46,702,792,704. Active: 2
     * experts, 6 * 3 * 4096 * 14336 * 32 = 33,822,867,456 fewer. */
    char *dir = fixture("mixtral-8x7b");
    struct arch_spec *a = must_load(dir);

    ck_assert_int_eq(arch_params_total(a), INT64_C(46702792704));
    ck_assert_int_eq(arch_params_active(a), INT64_C(12879925248));
    ck_assert_int_eq(arch_moe_layers(a), 32);
    ck_assert_int_eq(a->moe.n_routed_experts, 8);
    ck_assert_int_eq(a->moe.experts_per_token, 2);
    ck_assert_int_eq(a->moe.moe_ffn, 14336);
    ck_assert_int_eq(a->moe.n_shared_experts, 0);
    ck_assert_int_eq(a->moe.router_bias, 0);
    ck_assert_int_eq(a->ffn, 0);
    ck_assert_int_eq(a->max_positions, 32768);
    /* 2 * 32 * 8 * 128 * 2 = 131,072. */
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 2), 131072);
    arch_hf_free(a);
    free(dir);
}
END_TEST

START_TEST(test_arch_hf_load_phi_2)
{
    /* A layer: q, k, v, dense 4 * (2560^2 + 2560) = 26,224,640; fc1
     * 2560 * 10240 + 10240, fc2 10240 * 2560 + 2560 = 52,441,600; one
     * LayerNorm 2 * 2560: 78,671,360; 32 layers 2,517,483,520 + embed
     * 131,072,000 + head 131,072,000 + bias 51,200 + final LayerNorm 5,120
     * = 2,779,683,840. */
    char *dir = fixture("phi-2");
    struct arch_spec *a = must_load(dir);

    ck_assert_int_eq(arch_params_total(a), INT64_C(2779683840));
    ck_assert_int_eq(arch_params_mlp(a), 52441600);
    ck_assert_int_eq(arch_params_attn(a), 26224640);
    ck_assert_int_eq(arch_params_layer_norms(a), 5120);
    ck_assert_int_eq(a->mlp, ARCH_MLP_PLAIN);
    ck_assert_int_eq(a->shared_norm, 1);
    ck_assert_int_eq(a->parallel, 1);
    ck_assert_int_eq(a->head_bias, 1);
    ck_assert_int_eq(a->head_dim, 80);
    ck_assert_int_eq(a->max_positions, 2048);
    /* 2 * 32 * 32 * 80 * 2 = 327,680. */
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 2), 327680);
    /* Untied: the embedding is looked up, 2 * (total - 131,072,000). */
    ck_assert_int_eq(arch_linear_flops_per_token(a), INT64_C(5297223680));
    arch_hf_free(a);
    free(dir);
}
END_TEST

START_TEST(test_arch_hf_load_pythia_1_4b)
{
    /* A layer: 2 LayerNorms 8,192; query_key_value 2048 * 6144 + 6144 and
     * dense 2048^2 + 2048 = 16,785,408; MLP 2 * 2048 * 8192 + 8192 + 2048
     * = 33,564,672: 50,358,272; 24 layers 1,208,598,528 + embed_in and
     * embed_out 2 * 50304 * 2048 = 206,045,184 + final LayerNorm 4,096 =
     * 1,414,647,808. */
    char *dir = fixture("pythia-1.4b");
    struct arch_spec *a = must_load(dir);

    ck_assert_int_eq(arch_params_total(a), INT64_C(1414647808));
    ck_assert_int_eq(a->parallel, 1);
    ck_assert_int_eq(a->shared_norm, 0);
    ck_assert_int_eq(a->head_bias, 0);
    ck_assert_int_eq(a->kv_heads, 16);
    /* 2 * 24 * 16 * 128 * 2 = 196,608. */
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 2), 196608);
    arch_hf_free(a);
    free(dir);
}
END_TEST

START_TEST(test_arch_hf_load_gpt2)
{
    /* A layer: c_attn 768 * 2304 + 2304, c_proj 768^2 + 768, c_fc
     * 768 * 3072 + 3072, c_proj 3072 * 768 + 768, 2 LayerNorms 3,072:
     * 7,087,872; 12 layers 85,054,464 + wte 50257 * 768 = 38,597,376 + wpe
     * 1024 * 768 = 786,432 + ln_f 1,536 = 124,439,808 (tied head). */
    char *dir = fixture("gpt2");
    struct arch_spec *a = must_load(dir);

    ck_assert_int_eq(arch_params_total(a), 124439808);
    ck_assert_int_eq(a->ffn, 3072); /* n_inner absent: 4 * n_embd */
    ck_assert_int_eq(a->tied_embeddings, 1);
    ck_assert_int_eq(a->positions, 1024);
    ck_assert_int_eq(a->max_positions, 1024);
    /* The position table is a lookup: always read and FLOPs leave it. */
    ck_assert_int_eq(arch_params_always_read(a), 124439808 - 786432);
    ck_assert_int_eq(arch_linear_flops_per_token(a), 2 * (124439808 - 786432));
    /* 2 * 12 * 12 * 64 * 2 = 36,864. */
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 2), 36864);
    arch_hf_free(a);
    free(dir);
}
END_TEST

START_TEST(test_arch_hf_load_neox_no_attention_bias)
{
    /* attention_bias false: no q, k, v or dense biases (the MLP keeps
     * its own); use_parallel_residual false is read. */
    struct arch_spec *a = NULL;
    char why[512] = "";
    int rc = load_text("{\"architectures\": [\"GPTNeoXForCausalLM\"], "
                       "\"num_hidden_layers\": 2, \"hidden_size\": 8, "
                       "\"num_attention_heads\": 2, \"intermediate_size\": "
                       "32, \"vocab_size\": 4, \"attention_bias\": false, "
                       "\"use_parallel_residual\": false}",
                       &a, why, sizeof(why));

    ck_assert_msg(rc == 0, "%s", why);
    /* Attention 4 * 64 = 256; MLP 2 * 8 * 32 + 32 + 8 = 552; norms 2 * 16
     * = 32: 840 a layer, 1,680; embed + head 2 * 32 + final norm 16 =
     * 1,760. */
    ck_assert_int_eq(arch_params_attn(a), 256);
    ck_assert_int_eq(arch_params_total(a), 1760);
    ck_assert_int_eq(a->parallel, 0);
    arch_hf_free(a);
}
END_TEST

START_TEST(test_arch_hf_load_qwen2_moe_sparse_step)
{
    /* 4 layers, decoder_sparse_step 2 -> layers 1 and 3; mlp_only_layers
     * [3] leaves layer 1 the only MoE layer. Attention 16*16 + 2*16*8 +
     * 16*16 + 16 + 2*8 (QKV bias) = 800; dense MLP 3*16*32 = 1,536; norms
     * 32; MoE: router 8*16 = 128, experts 8*3*16*8 = 3,072, shared expert
     * 3*16*24 = 1,152 and its gate 16. Total 3*2,368 + (800 + 4,368 + 32)
     * + 2*100*16 + 16 = 15,520; active with 2 experts 13,216. */
    struct arch_spec *a = NULL;
    char why[512] = "";
    int rc = load_text(
        "{\"architectures\": [\"Qwen2MoeForCausalLM\"], "
        "\"num_hidden_layers\": 4, \"hidden_size\": 16, "
        "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
        "\"intermediate_size\": 32, \"vocab_size\": 100, \"num_experts\": 8, "
        "\"num_experts_per_tok\": 2, \"moe_intermediate_size\": 8, "
        "\"shared_expert_intermediate_size\": 24, \"decoder_sparse_step\": 2, "
        "\"mlp_only_layers\": [3], \"torch_dtype\": \"bfloat16\"}",
        &a, why, sizeof(why));

    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_eq(a->qkv_bias, 1);
    ck_assert_int_eq(a->qk_norm, 0);
    ck_assert_int_eq(arch_moe_layers(a), 1);
    ck_assert_int_eq(arch_params_total(a), 15520);
    ck_assert_int_eq(arch_params_active(a), 13216);
    /* 15,520 - 8*384 - 100*16. */
    ck_assert_int_eq(arch_params_always_read(a), 10848);
    arch_hf_free(a);
}
END_TEST

START_TEST(test_arch_hf_load_deepseek_v2_layer_freq)
{
    /* No query LoRA (null). MLA: 32*2*6 + 32*10 + 8 + 8*2*8 + 2*4*32
     * = 1,096. first_k_dense_replace 1, moe_layer_freq 2: only layer 2 of
     * 4 is MoE. Dense layer 1,096 + 3*32*64 + 64 = 7,304; MoE layer
     * 1,096 + 4*32 (router, no bias: greedy) + 6*768 + 64 = 5,896; total
     * 3*7,304 + 5,896 + 2*50*32 + 32 = 31,040; active (2 + 2 experts)
     * 29,504. KV bf16 4 * (8 + 2) * 2 = 80. */
    struct arch_spec *a = NULL;
    char why[512] = "";
    int rc = load_text("{\"architectures\": [\"DeepseekV2ForCausalLM\"], "
                       "\"num_hidden_layers\": 4, \"hidden_size\": 32, "
                       "\"num_attention_heads\": 2, \"q_lora_rank\": null, "
                       "\"kv_lora_rank\": 8, \"qk_nope_head_dim\": 4, "
                       "\"qk_rope_head_dim\": 2, \"v_head_dim\": 4, "
                       "\"intermediate_size\": 64, \"vocab_size\": 50, "
                       "\"n_routed_experts\": 4, \"num_experts_per_tok\": 2, "
                       "\"n_shared_experts\": 2, \"moe_intermediate_size\": 8, "
                       "\"first_k_dense_replace\": 1, \"moe_layer_freq\": 2, "
                       "\"topk_method\": \"greedy\"}",
                       &a, why, sizeof(why));

    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_eq(a->attn, ARCH_ATTN_MLA);
    ck_assert_int_eq(a->mla.q_lora_rank, 0);
    ck_assert_int_eq(a->moe.router_bias, 0);
    ck_assert_int_eq(arch_moe_layers(a), 1);
    ck_assert_int_eq(arch_params_total(a), 31040);
    ck_assert_int_eq(arch_params_active(a), 29504);
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 2), 80);
    ck_assert_int_eq(arch_attn_topk(a), 0);
    arch_hf_free(a);
}
END_TEST

START_TEST(test_arch_hf_load_deepseek_v32_name_and_gptq)
{
    char *path = fixture("deepseek-v3.2/config.json");
    char *v32, *text = NULL, *p;
    struct arch_spec *a = NULL;
    char why[512] = "";
    FILE *fp = fopen(path, "r");
    size_t n;
    int rc;

    /* The V3.2 fixture under the DeepseekV32ForCausalLM name. */
    ck_assert_ptr_nonnull(fp);
    text = xcalloc(1, 8192);
    n = fread(text, 1, 8191, fp);
    fclose(fp);
    ck_assert_uint_gt(n, 0);
    p = strstr(text, "DeepseekV3ForCausalLM");
    ck_assert_ptr_nonnull(p);
    v32 = xasprintf("%.*sDeepseekV32ForCausalLM%s", (int)(p - text), text,
                    p + strlen("DeepseekV3ForCausalLM"));
    rc = load_text(v32, &a, why, sizeof(why));
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_eq(arch_params_total(a), INT64_C(671877944064));
    ck_assert_int_eq(arch_kv_bytes_per_token(a, 1), 48068);
    ck_assert_int_eq(a->weight_dtype, CL_DTYPE_FP8);
    arch_hf_free(a);
    free(v32);
    free(text);
    free(path);

    /* GPTQ 4-bit weights. */
    rc = load_text("{\"architectures\": [\"Qwen2ForCausalLM\"], "
                   "\"num_hidden_layers\": 1, \"hidden_size\": 8, "
                   "\"num_attention_heads\": 2, \"intermediate_size\": 8, "
                   "\"vocab_size\": 4, \"quantization_config\": "
                   "{\"quant_method\": \"gptq\", \"bits\": 4}}",
                   &a, why, sizeof(why));
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_eq(a->weight_dtype, CL_DTYPE_INT4);
    ck_assert_int_eq(a->kv_heads, 2);
    arch_hf_free(a);
}
END_TEST

/* ---- Hugging Face config.json: diagnostics ---- */

START_TEST(test_arch_hf_load_syntax_error_line_col)
{
    char *path = fixture("bad-syntax/config.json");
    char *want = xasprintf("%s:4:27: error: json: quoted object property "
                           "name expected",
                           path);
    struct arch_spec *a = NULL;
    char why[512] = "";

    ck_assert_int_eq(arch_hf_load(path, &a, why, sizeof(why)), SIM_EPARSE);
    ck_assert_str_eq(why, want);
    ck_assert_ptr_null(a);
    free(want);
    free(path);
}
END_TEST

START_TEST(test_arch_hf_load_missing_key)
{
    char *dir = fixture("bad-missing");
    char *want = xasprintf("%s/config.json: error: missing key "
                           "'num_hidden_layers' (LlamaForCausalLM)",
                           dir);
    struct arch_spec *a = NULL;
    char why[512] = "";

    ck_assert_int_eq(arch_hf_load(dir, &a, why, sizeof(why)), SIM_EINVAL);
    ck_assert_str_eq(why, want);
    ck_assert_ptr_null(a);
    free(want);
    free(dir);
}
END_TEST

START_TEST(test_arch_hf_load_unknown_architecture)
{
    char *dir = fixture("bad-arch");
    /* Placed at the "architectures" key: line 2, column 3. */
    char *want = xasprintf(
        "%s/config.json:2:3: error: architectures: 'FalconForCausalLM' is "
        "not supported; supported: DeepseekV2ForCausalLM, "
        "DeepseekV32ForCausalLM, DeepseekV3ForCausalLM, GPT2LMHeadModel, "
        "GPTNeoXForCausalLM, LlamaForCausalLM, MistralForCausalLM, "
        "MixtralForCausalLM, PhiForCausalLM, Qwen2ForCausalLM, "
        "Qwen2MoeForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM; dsec "
        "needs: layers and width (num_hidden_layers, hidden_size, "
        "vocab_size), attention (num_attention_heads, num_key_value_heads, "
        "head_dim: GQA, or DeepSeek MLA ranks), an MLP kind (gated SiLU: "
        "intermediate_size; or plain GELU with biases), the MoE shape if any "
        "(experts, experts per token, expert width) and the norms and biases "
        "of one of the families above",
        dir);
    struct arch_spec *a = NULL;
    char why[1024] = "";

    ck_assert_int_eq(arch_hf_load(dir, &a, why, sizeof(why)), SIM_EINVAL);
    ck_assert_str_eq(why, want);
    free(want);
    free(dir);
}
END_TEST

START_TEST(test_arch_hf_load_missing_file)
{
    struct arch_spec *a = NULL;
    char why[512] = "";

    ck_assert_int_eq(
        arch_hf_load("/nonexistent/dsec/x.json", &a, why, sizeof(why)),
        SIM_EIO);
    ck_assert_str_eq(why, "/nonexistent/dsec/x.json: error: cannot open: No "
                          "such file or directory");
    ck_assert_ptr_null(a);
    /* No message buffer at all is allowed. */
    ck_assert_int_eq(arch_hf_load("/nonexistent/dsec/x.json", &a, NULL, 0),
                     SIM_EIO);
}
END_TEST

/* Checks that text fails with rc and that the message, after the
 * "DIR/m/config.json" path, is tail. */
static void check_fails(const char *text, int rc, const char *tail)
{
    struct arch_spec *a = NULL;
    char why[512] = "";
    const char *p;

    ck_assert_int_eq(load_text(text, &a, why, sizeof(why)), rc);
    ck_assert_ptr_null(a);
    p = strstr(why, "/m/config.json");
    ck_assert_msg(p != NULL, "%s", why);
    ck_assert_str_eq(p + strlen("/m/config.json"), tail);
}

START_TEST(test_arch_hf_load_json_errors)
{
    check_fails("", SIM_EPARSE, ":1:1: error: json: unexpected end of file");
    check_fails("{\"a\": 1\n", SIM_EPARSE,
                ":2:1: error: json: unexpected end of file");
    check_fails("{\"a\": 1}\n x", SIM_EPARSE,
                ":2:2: error: json: unexpected character");
    check_fails("\n [1, 2]", SIM_EPARSE,
                ":2:2: error: json: expected an object at the top");
    check_fails("{\"a\": tru}", SIM_EPARSE,
                ":1:10: error: json: boolean expected");
}
END_TEST

START_TEST(test_arch_hf_load_value_errors)
{
#define LLAMA_HEAD                                                             \
    "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 64, "        \
    "\"num_attention_heads\": 8, \"intermediate_size\": 128, "                 \
    "\"vocab_size\": 10, "
    check_fails("{\"n_layer\": 2}", SIM_EINVAL,
                ": error: missing key 'architectures'");
    check_fails("{\"architectures\": \"LlamaForCausalLM\"}", SIM_EINVAL,
                ": error: architectures: expected a list of names, got "
                "\"LlamaForCausalLM\"");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": \"32\"}", SIM_EINVAL,
                ": error: num_hidden_layers: expected an integer in [1, "
                "4096], got \"32\" (LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 0}", SIM_EINVAL,
                ": error: num_hidden_layers: 0 out of range [1, 4096] "
                "(LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 2, "
                           "\"num_key_value_heads\": 3}",
                SIM_EINVAL,
                ": error: num_key_value_heads: 3 does not divide "
                "num_attention_heads 8 (LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 2, "
                           "\"tie_word_embeddings\": 1}",
                SIM_EINVAL,
                ": error: tie_word_embeddings: expected true or false, got 1 "
                "(LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 2, "
                           "\"attention_bias\": true}",
                SIM_EINVAL,
                ": error: attention_bias: true is not supported (biases on "
                "the o projection are not modelled) (LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 2, "
                           "\"torch_dtype\": \"float32\"}",
                SIM_EINVAL,
                ": error: torch_dtype: unsupported dtype 'float32'; valid: "
                "bfloat16, float16 (or a quantization_config) "
                "(LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 2, "
                           "\"quantization_config\": {\"quant_method\": "
                           "\"awq\", \"bits\": 8}}",
                SIM_EINVAL,
                ": error: quantization_config.bits: 8 out of range [4, 4] "
                "(LlamaForCausalLM)");
    check_fails(LLAMA_HEAD "\"num_hidden_layers\": 2, "
                           "\"quantization_config\": {\"quant_method\": "
                           "\"bitsandbytes\"}}",
                SIM_EINVAL,
                ": error: quantization_config.quant_method: unknown method "
                "'bitsandbytes'; valid: awq (bits 4), fp8, gptq (bits 4) "
                "(LlamaForCausalLM)");
#undef LLAMA_HEAD
    check_fails("{\"architectures\": [\"Qwen3MoeForCausalLM\"], "
                "\"num_hidden_layers\": 2, \"hidden_size\": 8, "
                "\"num_attention_heads\": 2, \"vocab_size\": 4, "
                "\"num_experts\": 4, \"num_experts_per_tok\": 5, "
                "\"moe_intermediate_size\": 8}",
                SIM_EINVAL,
                ": error: num_experts_per_tok: 5 out of range [1, 4] "
                "(Qwen3MoeForCausalLM)");
    check_fails("{\"architectures\": [\"Qwen3MoeForCausalLM\"], "
                "\"num_hidden_layers\": 2, \"hidden_size\": 8, "
                "\"num_attention_heads\": 2, \"vocab_size\": 4, "
                "\"num_experts\": 4, \"num_experts_per_tok\": 2, "
                "\"moe_intermediate_size\": 8, \"mlp_only_layers\": [0, 2]}",
                SIM_EINVAL,
                ": error: mlp_only_layers[1]: expected a layer index in [0, "
                "1], got 2 (Qwen3MoeForCausalLM)");
    /* A dense layer needs intermediate_size. */
    check_fails("{\"architectures\": [\"Qwen3MoeForCausalLM\"], "
                "\"num_hidden_layers\": 2, \"hidden_size\": 8, "
                "\"num_attention_heads\": 2, \"vocab_size\": 4, "
                "\"num_experts\": 4, \"num_experts_per_tok\": 2, "
                "\"moe_intermediate_size\": 8, \"decoder_sparse_step\": 2}",
                SIM_EINVAL,
                ": error: missing key 'intermediate_size' "
                "(Qwen3MoeForCausalLM)");
    check_fails("{\"architectures\": [\"DeepseekV32ForCausalLM\"], "
                "\"num_hidden_layers\": 2, \"hidden_size\": 8, "
                "\"num_attention_heads\": 2, \"vocab_size\": 4, "
                "\"kv_lora_rank\": 8, \"qk_nope_head_dim\": 4, "
                "\"qk_rope_head_dim\": 2, \"v_head_dim\": 4}",
                SIM_EINVAL,
                ": error: missing key 'index_n_heads' "
                "(DeepseekV32ForCausalLM)");
}
END_TEST

START_TEST(test_arch_hf_load_message_truncated)
{
    char *dir = fixture("bad-arch");
    struct arch_spec *a = NULL;
    char why[16];

    ck_assert_int_eq(arch_hf_load(dir, &a, why, sizeof(why)), SIM_EINVAL);
    ck_assert_uint_eq(strlen(why), sizeof(why) - 1);
    free(dir);
}
END_TEST

static Suite *arch_suite(void)
{
    Suite *s = suite_create("arch");
    TCase *tc = tcase_create("catalog");

    tcase_add_test(tc, test_arch_names_full_catalog);
    tcase_add_test(tc, test_arch_params_total_dense_new);
    tcase_add_test(tc, test_arch_params_qwen3_235b);
    tcase_add_test(tc, test_arch_params_deepseek_v3_2_indexer);
    tcase_add_test(tc, test_arch_kv_bytes_per_token_catalog);
    tcase_add_test(tc, test_arch_attn_flops_dsa);
    tcase_add_test(tc, test_arch_find_path_new_entries);
    suite_add_tcase(s, tc);

    tc = tcase_create("hf");
    tcase_add_test(tc, test_arch_hf_load_matches_catalog);
    tcase_add_test(tc, test_arch_hf_load_file_or_dir);
    tcase_add_test(tc, test_arch_hf_load_mistral_tied_float16);
    tcase_add_test(tc, test_arch_hf_load_mixtral_8x7b);
    tcase_add_test(tc, test_arch_hf_load_phi_2);
    tcase_add_test(tc, test_arch_hf_load_pythia_1_4b);
    tcase_add_test(tc, test_arch_hf_load_gpt2);
    tcase_add_test(tc, test_arch_hf_load_neox_no_attention_bias);
    tcase_add_test(tc, test_arch_hf_load_qwen2_moe_sparse_step);
    tcase_add_test(tc, test_arch_hf_load_deepseek_v2_layer_freq);
    tcase_add_test(tc, test_arch_hf_load_deepseek_v32_name_and_gptq);
    tcase_add_test(tc, test_arch_hf_load_syntax_error_line_col);
    tcase_add_test(tc, test_arch_hf_load_missing_key);
    tcase_add_test(tc, test_arch_hf_load_unknown_architecture);
    tcase_add_test(tc, test_arch_hf_load_missing_file);
    tcase_add_test(tc, test_arch_hf_load_json_errors);
    tcase_add_test(tc, test_arch_hf_load_value_errors);
    tcase_add_test(tc, test_arch_hf_load_message_truncated);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(arch_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
