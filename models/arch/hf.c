/*
 * Hugging Face config.json -> struct arch_spec. The key names and the
 * shapes they describe are docs/sources.md §4.1's (DeepSeek with its HF names);
 * the parameter, KV and FLOP formulas applied to the result are arch.c's
 * (docs/sources.md §4.2-4.4), so a fixture written from docs/sources.md §4.1
 * loads to exactly the catalog entry's counts (tests/check_models_arch.c).
 *
 * Two rules come from the Hugging Face modelling code rather than from
 * docs/sources.md and are marked as such in docs/models.md: which layers are
 * MoE (Qwen: (i + 1) % decoder_sparse_step == 0 and i not in mlp_only_layers;
 * DeepSeek: i >= first_k_dense_replace and i % moe_layer_freq == 0), and
 * Qwen2-MoE's hidden x 1 shared-expert gate; so do the Mixtral, phi-2,
 * GPT-NeoX and GPT-2 shapes (biases, norms, position tables), from their
 * modelling files. Keys that do not change memory or compute (rope_*,
 * rms_norm_eps, ...) are not read; DeepSeek's n_group and topk_group
 * (node-limited routing) are; max_position_embeddings is
 * read as the model's context length. JSON parsing is json-c's in strict
 * mode; a hand-written parser was rejected as needless risk.
 */
#include "models/arch/hf.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/xalloc.h"

/* Upper bounds on the integer keys. They are far above any released model
 * and keep every product in arch.c inside int64_t: the largest, layers *
 * experts * 3 * hidden * moe_ffn, is at most 2^12 * 2^10 * 3 * 2^16 * 2^18
 * = 3 * 2^56. */
#define MAX_LAYERS (1 << 12)
#define MAX_HIDDEN (1 << 16)
#define MAX_HEADS (1 << 10)
#define MAX_HEAD_DIM (1 << 10)
#define MAX_FFN (1 << 18)
#define MAX_VOCAB (1 << 22)
#define MAX_EXPERTS (1 << 10)
#define MAX_RANK (1 << 14)

/* Marks a key as required in get_int(). */
#define REQUIRED INT_MIN

enum family {
    FAM_DEEPSEEK_V2,
    FAM_DEEPSEEK_V32,
    FAM_DEEPSEEK_V3,
    FAM_GPT2,
    FAM_GPT_NEOX,
    FAM_LLAMA,
    FAM_MIXTRAL,
    FAM_PHI,
    FAM_QWEN2,
    FAM_QWEN2_MOE,
    FAM_QWEN3,
    FAM_QWEN3_MOE,
};

const char *const arch_hf_architectures[] = {
    "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLM", "GPT2LMHeadModel",
    "GPTNeoXForCausalLM",    "LlamaForCausalLM",
    "MistralForCausalLM",    "MixtralForCausalLM",
    "PhiForCausalLM",        "Qwen2ForCausalLM",
    "Qwen2MoeForCausalLM",   "Qwen3ForCausalLM",
    "Qwen3MoeForCausalLM",   NULL,
};

/* The family of each arch_hf_architectures[] entry, in the same order. */
static const enum family families[] = {
    FAM_DEEPSEEK_V2, FAM_DEEPSEEK_V32, FAM_DEEPSEEK_V3, FAM_GPT2, FAM_GPT_NEOX,
    FAM_LLAMA,       FAM_LLAMA,        FAM_MIXTRAL,     FAM_PHI,  FAM_QWEN2,
    FAM_QWEN2_MOE,   FAM_QWEN3,        FAM_QWEN3_MOE,
};

/* What every architecture must give dsec, named when a config.json's
 * architecture is unknown so that the user can tell whether a catalog
 * entry or a supported look-alike would do. */
#define NEEDS                                                                  \
    "layers and width (num_hidden_layers, hidden_size, vocab_size), "          \
    "attention (num_attention_heads, num_key_value_heads, head_dim: GQA, "     \
    "or DeepSeek MLA ranks), an MLP kind (gated SiLU: intermediate_size; or "  \
    "plain GELU with biases), the MoE shape if any (experts, experts per "     \
    "token, expert width) and the norms and biases of one of the families "    \
    "above"

/* The entry and the strings it points to, in one allocation owner. The
 * spec comes first so that arch_hf_free() can convert back. */
struct hf_model {
    struct arch_spec spec;
    char *name;
    char *summary;
    char *source;
};

/* One load. */
struct ctx {
    const char *file; /* the config.json path, for messages */
    const char *arch; /* the architecture name once known, for messages */
    const char *buf;  /* the file's text, for positions in messages */
    json_object *root;
    char *why;
    size_t whylen;
};

/* Writes "FILE: error: MESSAGE (ARCH)" to c->why; returns rc. */
static int fail(struct ctx *c, int rc, const char *fmt, ...) SIM_PRINTF(3, 4);

static int fail(struct ctx *c, int rc, const char *fmt, ...)
{
    va_list ap;
    size_t n;

    if (c->whylen == 0)
        return rc;
    snprintf(c->why, c->whylen, "%s: error: ", c->file);
    n = strlen(c->why);
    va_start(ap, fmt);
    vsnprintf(c->why + n, c->whylen - n, fmt, ap);
    va_end(ap);
    n = strlen(c->why);
    if (c->arch != NULL && n < c->whylen)
        snprintf(c->why + n, c->whylen - n, " (%s)", c->arch);
    return rc;
}

/* The value of key in obj; NULL when absent or JSON null. Borrowed. */
static json_object *lookup(json_object *obj, const char *key)
{
    json_object *v = NULL;

    if (!json_object_object_get_ex(obj, key, &v))
        return NULL;
    return v;
}

/* The JSON text of v for messages. Borrowed, valid until v is freed. */
static const char *text(json_object *v)
{
    return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* Reads integer key of obj (its path in messages is prefix + key) into
 * *out, within [min, max]; def when absent or null, or an error when def
 * is REQUIRED. */
static int get_int_in(struct ctx *c, json_object *obj, const char *prefix,
                      const char *key, int def, int min, int max, int *out)
{
    json_object *v = lookup(obj, key);
    int64_t x;

    if (v == NULL) {
        if (def == REQUIRED)
            return fail(c, SIM_EINVAL, "missing key '%s%s'", prefix, key);
        *out = def;
        return 0;
    }
    if (!json_object_is_type(v, json_type_int))
        return fail(c, SIM_EINVAL,
                    "%s%s: expected an integer in [%d, %d], "
                    "got %s",
                    prefix, key, min, max, text(v));
    x = json_object_get_int64(v);
    if (x < min || x > max)
        return fail(c, SIM_EINVAL, "%s%s: %s out of range [%d, %d]", prefix,
                    key, text(v), min, max);
    *out = (int)x;
    return 0;
}

static int get_int(struct ctx *c, const char *key, int def, int min, int max,
                   int *out)
{
    return get_int_in(c, c->root, "", key, def, min, max, out);
}

/* Reads boolean key into *out (0 or 1); def when absent or null. */
static int get_bool(struct ctx *c, const char *key, int def, int *out)
{
    json_object *v = lookup(c->root, key);

    if (v == NULL) {
        *out = def;
        return 0;
    }
    if (!json_object_is_type(v, json_type_boolean))
        return fail(c, SIM_EINVAL, "%s: expected true or false, got %s", key,
                    text(v));
    *out = json_object_get_boolean(v) ? 1 : 0;
    return 0;
}

/* Reads string key of obj into *out (borrowed from obj); NULL when absent
 * or null. */
static int get_str_in(struct ctx *c, json_object *obj, const char *prefix,
                      const char *key, const char **out)
{
    json_object *v = lookup(obj, key);

    *out = NULL;
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return fail(c, SIM_EINVAL, "%s%s: expected a string, got %s", prefix,
                    key, text(v));
    *out = json_object_get_string(v);
    return 0;
}

/* Rewrites c->why, "FILE: error: ...", as "FILE:LINE:COL: error: ..." at
 * the first occurrence of "key" in the text (the key itself: json-c keeps
 * no positions, and a config.json names each top-level key once). Leaves
 * the message as it is when the text has no such string. */
static void at_key(struct ctx *c, const char *key)
{
    char *pat = xasprintf("\"%s\"", key), *msg;
    const char *hit = c->buf != NULL ? strstr(c->buf, pat) : NULL, *p;
    size_t skip = strlen(c->file) + 2; /* "FILE: " */
    int line = 1, col = 1;

    free(pat);
    if (hit == NULL || strlen(c->why) < skip)
        return;
    for (p = c->buf; p < hit; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    msg = xstrdup(c->why + skip);
    snprintf(c->why, c->whylen, "%s:%d:%d: %s", c->file, line, col, msg);
    free(msg);
}

/* Finds the architecture: the first element of "architectures". */
static int get_family(struct ctx *c, enum family *fam)
{
    json_object *v = lookup(c->root, "architectures"), *e;
    const char *name;
    size_t i;

    if (v == NULL)
        return fail(c, SIM_EINVAL, "missing key 'architectures'");
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) == 0 ||
        !json_object_is_type(e = json_object_array_get_idx(v, 0),
                             json_type_string))
        return fail(c, SIM_EINVAL,
                    "architectures: expected a list of names, got %s", text(v));
    name = json_object_get_string(e);
    for (i = 0; arch_hf_architectures[i] != NULL; i++) {
        if (strcmp(arch_hf_architectures[i], name) == 0) {
            *fam = families[i];
            c->arch = arch_hf_architectures[i];
            return 0;
        }
    }
    if (c->whylen > 0) {
        size_t n;

        fail(c, SIM_EINVAL,
             "architectures: '%s' is not supported; supported: ", name);
        for (i = 0; arch_hf_architectures[i] != NULL; i++) {
            n = strlen(c->why);
            snprintf(c->why + n, c->whylen - n, "%s%s", i > 0 ? ", " : "",
                     arch_hf_architectures[i]);
        }
        n = strlen(c->why);
        snprintf(c->why + n, c->whylen - n, "; dsec needs: %s", NEEDS);
        at_key(c, "architectures");
    }
    return SIM_EINVAL;
}

/* Weight dtype: quantization_config (fp8; gptq or awq with 4 bits), else
 * torch_dtype (or its newer name dtype), bfloat16 when neither is given.
 * float16 maps to bf16: both are 2 bytes, which is all the model uses. */
static int get_dtype(struct ctx *c, int *dtype)
{
    json_object *q = lookup(c->root, "quantization_config");
    const char *s;
    int rc, bits;

    if (q != NULL) {
        if (!json_object_is_type(q, json_type_object))
            return fail(c, SIM_EINVAL,
                        "quantization_config: expected an object, got %s",
                        text(q));
        if ((rc = get_str_in(c, q, "quantization_config.", "quant_method",
                             &s)) != 0)
            return rc;
        if (s == NULL)
            return fail(c, SIM_EINVAL,
                        "missing key 'quantization_config.quant_method'");
        if (strcmp(s, "fp8") == 0) {
            *dtype = CL_DTYPE_FP8;
            return 0;
        }
        if (strcmp(s, "gptq") == 0 || strcmp(s, "awq") == 0) {
            if ((rc = get_int_in(c, q, "quantization_config.", "bits", REQUIRED,
                                 4, 4, &bits)) != 0)
                return rc;
            *dtype = CL_DTYPE_INT4;
            return 0;
        }
        return fail(c, SIM_EINVAL,
                    "quantization_config.quant_method: unknown method '%s'; "
                    "valid: awq (bits 4), fp8, gptq (bits 4)",
                    s);
    }
    if ((rc = get_str_in(c, c->root, "", "torch_dtype", &s)) != 0)
        return rc;
    if (s == NULL && (rc = get_str_in(c, c->root, "", "dtype", &s)) != 0)
        return rc;
    if (s == NULL || strcmp(s, "bfloat16") == 0 || strcmp(s, "float16") == 0) {
        *dtype = CL_DTYPE_BF16;
        return 0;
    }
    return fail(c, SIM_EINVAL,
                "torch_dtype: unsupported dtype '%s'; valid: bfloat16, "
                "float16 (or a quantization_config)",
                s);
}

/* Rejects a true value of a boolean key the model does not represent. */
static int refuse_true(struct ctx *c, const char *key, const char *what)
{
    int rc, on;

    if ((rc = get_bool(c, key, 0, &on)) != 0)
        return rc;
    if (on)
        return fail(c, SIM_EINVAL, "%s: true is not supported (%s)", key, what);
    return 0;
}

/* Layers, hidden, heads, vocabulary, ties and dtype: every family. */
static int read_common(struct ctx *c, struct arch_spec *a)
{
    int rc;

    if ((rc = get_int(c, "num_hidden_layers", REQUIRED, 1, MAX_LAYERS,
                      &a->layers)) != 0 ||
        (rc = get_int(c, "hidden_size", REQUIRED, 1, MAX_HIDDEN, &a->hidden)) !=
            0 ||
        (rc = get_int(c, "num_attention_heads", REQUIRED, 1, MAX_HEADS,
                      &a->heads)) != 0 ||
        (rc = get_int(c, "num_key_value_heads", a->heads, 1, a->heads,
                      &a->kv_heads)) != 0 ||
        (rc = get_int(c, "vocab_size", REQUIRED, 1, MAX_VOCAB, &a->vocab)) !=
            0 ||
        (rc = get_bool(c, "tie_word_embeddings", 0, &a->tied_embeddings)) !=
            0 ||
        (rc = get_int(c, "max_position_embeddings", 0, 1, INT_MAX,
                      &a->max_positions)) != 0 ||
        (rc = get_int(c, "num_nextn_predict_layers", 0, 0, 16,
                      &a->mtp_layers)) != 0 ||
        (rc = get_dtype(c, &a->weight_dtype)) != 0)
        return rc;
    return 0;
}

static int read_ffn(struct ctx *c, struct arch_spec *a, int dense_layers);

/* Mixtral: GQA as Llama and every layer a MoE block of num_local_experts
 * SwiGLU experts of width intermediate_size behind a bias-free h x E
 * router, no shared expert (Hugging Face modeling_mixtral.py). */
static int read_mixtral(struct ctx *c, struct arch_spec *a)
{
    struct arch_moe *e = &a->moe;
    int rc;

    if ((rc = get_int(c, "num_local_experts", REQUIRED, 1, MAX_EXPERTS,
                      &e->n_routed_experts)) != 0 ||
        (rc = get_int(c, "num_experts_per_tok", REQUIRED, 1,
                      e->n_routed_experts, &e->experts_per_token)) != 0 ||
        (rc = get_int(c, "intermediate_size", REQUIRED, 1, MAX_FFN,
                      &e->moe_ffn)) != 0)
        return rc;
    a->ffn = 0; /* no dense layer */
    return 0;
}

/* head_dim (default hidden / heads when that divides) and the GQA rule
 * that the KV heads divide the query heads. */
static int read_head_dim(struct ctx *c, struct arch_spec *a)
{
    int rc, def = a->hidden % a->heads == 0 ? a->hidden / a->heads : REQUIRED;

    if ((rc = get_int(c, "head_dim", def, 1, MAX_HEAD_DIM, &a->head_dim)) != 0)
        return rc;
    if (a->heads % a->kv_heads != 0)
        return fail(c, SIM_EINVAL,
                    "num_key_value_heads: %d does not divide "
                    "num_attention_heads %d",
                    a->kv_heads, a->heads);
    return 0;
}

/* The plain-MLP families that name their keys as Llama does: phi-2
 * (PhiForCausalLM: one shared LayerNorm a layer, attention and MLP in
 * parallel, biases on q, k, v, dense, fc1, fc2 and the LM head) and GPT-NeoX
 * (GPTNeoXForCausalLM: two LayerNorms, use_parallel_residual, fused
 * query_key_value and dense with biases when attention_bias, the default,
 * MLP biases always). Both untie the head by default. Rotary keys
 * (partial_rotary_factor, rotary_pct) change no count and are not read.
 * From the Hugging Face modeling_phi.py and modeling_gpt_neox.py. */
static int read_plain(struct ctx *c, enum family fam, struct arch_spec *a)
{
    int rc;
    int bias = 1;

    a->attn = ARCH_ATTN_GQA;
    a->mlp = ARCH_MLP_PLAIN;
    a->mlp_bias = 1;
    a->layer_norm = 1;
    if ((rc = read_head_dim(c, a)) != 0)
        return rc;
    if (fam == FAM_PHI) {
        a->shared_norm = 1;
        a->parallel = 1;
        a->head_bias = !a->tied_embeddings;
        if ((rc = refuse_true(c, "qk_layernorm",
                              "q/k LayerNorms are not modelled")) != 0)
            return rc;
    } else {
        if ((rc = get_bool(c, "use_parallel_residual", 1, &a->parallel)) != 0 ||
            (rc = get_bool(c, "attention_bias", 1, &bias)) != 0)
            return rc;
    }
    a->qkv_bias = a->o_bias = bias;
    return read_ffn(c, a, a->layers);
}

/* GPT-2 (GPT2LMHeadModel), with its own key names: n_layer, n_embd, n_head,
 * n_inner (null: 4 * n_embd), n_positions learned position rows; MHA with
 * a fused c_attn and c_proj, both biased, two LayerNorms a layer, a GELU
 * MLP with biases and the head tied to the token embedding unless
 * tie_word_embeddings says false (Hugging Face modeling_gpt2.py). */
static int read_gpt2(struct ctx *c, struct arch_spec *a)
{
    int rc;

    if ((rc = get_int(c, "n_layer", REQUIRED, 1, MAX_LAYERS, &a->layers)) !=
            0 ||
        (rc = get_int(c, "n_embd", REQUIRED, 1, MAX_HIDDEN, &a->hidden)) != 0 ||
        (rc = get_int(c, "n_head", REQUIRED, 1, MAX_HEADS, &a->heads)) != 0 ||
        (rc = get_int(c, "n_inner",
                      a->hidden <= MAX_FFN / 4 ? 4 * a->hidden : REQUIRED, 1,
                      MAX_FFN, &a->ffn)) != 0 ||
        (rc = get_int(c, "n_positions", REQUIRED, 1, MAX_VOCAB,
                      &a->positions)) != 0 ||
        (rc = get_int(c, "vocab_size", REQUIRED, 1, MAX_VOCAB, &a->vocab)) !=
            0 ||
        (rc = get_bool(c, "tie_word_embeddings", 1, &a->tied_embeddings)) !=
            0 ||
        (rc = get_dtype(c, &a->weight_dtype)) != 0)
        return rc;
    if (a->hidden % a->heads != 0)
        return fail(c, SIM_EINVAL, "n_head: %d does not divide n_embd %d",
                    a->heads, a->hidden);
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->attn = ARCH_ATTN_GQA;
    a->qkv_bias = a->o_bias = 1;
    a->mlp = ARCH_MLP_PLAIN;
    a->mlp_bias = 1;
    a->layer_norm = 1;
    a->max_positions = a->positions;
    return 0;
}

/* Grouped-query attention: head_dim (default hidden / heads), biases and
 * QK-norm by family. */
static int read_gqa(struct ctx *c, enum family fam, struct arch_spec *a)
{
    int rc;

    a->attn = ARCH_ATTN_GQA;
    if ((rc = read_head_dim(c, a)) != 0)
        return rc;
    /* docs/sources.md §4.1: Qwen2 has QKV bias, Qwen3 QK-norm. Llama, Mistral
     * and Qwen3 may switch biases on for all four projections; the o bias is
     * not modelled, so refuse rather than miscount. */
    a->qkv_bias = fam == FAM_QWEN2 || fam == FAM_QWEN2_MOE;
    a->qk_norm = fam == FAM_QWEN3 || fam == FAM_QWEN3_MOE;
    if (!a->qkv_bias &&
        (rc = refuse_true(c, "attention_bias",
                          "biases on the o projection are not modelled")) != 0)
        return rc;
    return refuse_true(c, "mlp_bias", "MLP biases are not modelled");
}

/* Multi-head latent attention and the V3.2 indexer. */
static int read_mla(struct ctx *c, enum family fam, struct arch_spec *a)
{
    struct arch_mla *m = &a->mla;
    int rc, has_index = lookup(c->root, "index_n_heads") != NULL;

    a->attn = ARCH_ATTN_MLA;
    if ((rc = get_int(c, "q_lora_rank", 0, 0, MAX_RANK, &m->q_lora_rank)) !=
            0 ||
        (rc = get_int(c, "kv_lora_rank", REQUIRED, 1, MAX_RANK,
                      &m->kv_lora_rank)) != 0 ||
        (rc = get_int(c, "qk_nope_head_dim", REQUIRED, 1, MAX_HEAD_DIM,
                      &m->qk_nope_head_dim)) != 0 ||
        (rc = get_int(c, "qk_rope_head_dim", REQUIRED, 1, MAX_HEAD_DIM,
                      &m->qk_rope_head_dim)) != 0 ||
        (rc = get_int(c, "v_head_dim", REQUIRED, 1, MAX_HEAD_DIM,
                      &m->v_head_dim)) != 0)
        return rc;
    a->head_dim = m->v_head_dim; /* as the catalog entries */
    if (fam == FAM_DEEPSEEK_V2 || (fam == FAM_DEEPSEEK_V3 && !has_index))
        return 0;
    /* DeepSeek-V3.2 (docs/sources.md §4.1): the DSA indexer, and the MLA cache
     * in FlashMLA's FP8-with-scale layout, one FP32 scale per 128 (§4.3). */
    if ((rc = get_int(c, "index_n_heads", REQUIRED, 1, MAX_HEADS,
                      &a->indexer.n_heads)) != 0 ||
        (rc = get_int(c, "index_head_dim", REQUIRED, 1, MAX_HEAD_DIM,
                      &a->indexer.head_dim)) != 0 ||
        (rc = get_int(c, "index_topk", REQUIRED, 1, INT_MAX,
                      &a->indexer.topk)) != 0)
        return rc;
    m->fp8_scale_group = 128;
    return 0;
}

/* The MLP width for dense layers: required when some layer is dense. */
static int read_ffn(struct ctx *c, struct arch_spec *a, int dense_layers)
{
    return get_int(c, "intermediate_size", dense_layers > 0 ? REQUIRED : 0,
                   dense_layers > 0 ? 1 : 0, MAX_FFN, &a->ffn);
}

/* Sets the MoE layer count: n of a->layers, first_dense a prefix. */
static void set_moe_layers(struct arch_spec *a, int n, int first_dense)
{
    if (n == 0) {
        memset(&a->moe, 0, sizeof(a->moe)); /* no MoE layer: dense */
        return;
    }
    a->moe.first_dense_layers = first_dense;
    if (n != a->layers - first_dense)
        a->moe.moe_layers = n;
}

/* Qwen2-MoE and Qwen3-MoE experts. */
static int read_qwen_moe(struct ctx *c, enum family fam, struct arch_spec *a)
{
    struct arch_moe *e = &a->moe;
    json_object *only = lookup(c->root, "mlp_only_layers");
    int rc, step, shared, i, n = 0;
    unsigned char *dense;

    if ((rc = get_int(c, "num_experts", REQUIRED, 1, MAX_EXPERTS,
                      &e->n_routed_experts)) != 0 ||
        (rc = get_int(c, "num_experts_per_tok", REQUIRED, 1,
                      e->n_routed_experts, &e->experts_per_token)) != 0 ||
        (rc = get_int(c, "moe_intermediate_size", REQUIRED, 1, MAX_FFN,
                      &e->moe_ffn)) != 0 ||
        (rc = get_int(c, "decoder_sparse_step", 1, 1, a->layers, &step)) != 0)
        return rc;
    if (fam == FAM_QWEN2_MOE) {
        /* One shared expert of its own width, behind a sigmoid gate, when
         * the key is present and positive. */
        if ((rc = get_int(c, "shared_expert_intermediate_size", 0, 0, MAX_FFN,
                          &shared)) != 0)
            return rc;
        if (shared > 0) {
            e->n_shared_experts = 1;
            e->shared_ffn = shared;
            e->shared_gate = 1;
        }
    }
    if (only != NULL && !json_object_is_type(only, json_type_array))
        return fail(c, SIM_EINVAL,
                    "mlp_only_layers: expected a list of layer indices, got "
                    "%s",
                    text(only));
    dense = xcalloc((size_t)a->layers, 1);
    for (i = 0; only != NULL && i < (int)json_object_array_length(only); i++) {
        json_object *v = json_object_array_get_idx(only, (size_t)i);
        int64_t x;

        if (v == NULL || !json_object_is_type(v, json_type_int) ||
            (x = json_object_get_int64(v)) < 0 || x >= a->layers) {
            free(dense);
            return fail(c, SIM_EINVAL,
                        "mlp_only_layers[%d]: expected a layer index in "
                        "[0, %d], got %s",
                        i, a->layers - 1, v != NULL ? text(v) : "null");
        }
        dense[x] = 1;
    }
    for (i = 0; i < a->layers; i++)
        n += !dense[i] && (i + 1) % step == 0;
    free(dense);
    set_moe_layers(a, n, 0);
    return read_ffn(c, a, a->layers - n);
}

/* DeepSeek-V2/V3 experts (HF key names, docs/sources.md §4.1). */
static int read_deepseek_moe(struct ctx *c, enum family fam,
                             struct arch_spec *a)
{
    struct arch_moe *e = &a->moe;
    const char *method;
    int rc, first, freq, i, n = 0;

    if ((rc = get_int(c, "n_routed_experts", 0, 0, MAX_EXPERTS,
                      &e->n_routed_experts)) != 0)
        return rc;
    if (e->n_routed_experts == 0) {
        memset(e, 0, sizeof(*e));
        return read_ffn(c, a, a->layers);
    }
    if ((rc = get_int(c, "num_experts_per_tok", REQUIRED, 1,
                      e->n_routed_experts, &e->experts_per_token)) != 0 ||
        (rc = get_int(c, "n_shared_experts", 0, 0, MAX_EXPERTS,
                      &e->n_shared_experts)) != 0 ||
        (rc = get_int(c, "moe_intermediate_size", REQUIRED, 1, MAX_FFN,
                      &e->moe_ffn)) != 0 ||
        (rc = get_int(c, "first_k_dense_replace", 0, 0, a->layers, &first)) !=
            0 ||
        (rc = get_int(c, "moe_layer_freq", 1, 1, a->layers, &freq)) != 0 ||
        (rc = get_str_in(c, c->root, "", "topk_method", &method)) != 0 ||
        (rc = get_int(c, "n_group", 0, 0, e->n_routed_experts, &e->n_group)) !=
            0 ||
        (rc = get_int(c, "topk_group", 0, 0,
                      e->n_group > 0 ? e->n_group : e->n_routed_experts,
                      &e->topk_group)) != 0)
        return rc;
    /* Groups must split the experts evenly; one group, or a limit of every
     * group, is no limit. */
    if (e->n_group > 0 && e->n_routed_experts % e->n_group != 0)
        return fail(c, SIM_EINVAL,
                    "n_group: %d does not divide the %d routed experts",
                    e->n_group, e->n_routed_experts);
    if (e->n_group <= 1 || e->topk_group == 0 || e->topk_group >= e->n_group)
        e->n_group = e->topk_group = 0;
    /* noaux_tc routing carries the per-expert e_score_correction_bias
     * (docs/sources.md §4.1, §4.2); V3 and V3.2 use it when the key is absent.
     */
    if (method != NULL)
        e->router_bias = strcmp(method, "noaux_tc") == 0;
    else
        e->router_bias = fam != FAM_DEEPSEEK_V2;
    for (i = first; i < a->layers; i++)
        n += i % freq == 0;
    set_moe_layers(a, n, first);
    return read_ffn(c, a, a->layers - n);
}

/* Fills a from c->root. */
static int read_spec(struct ctx *c, struct arch_spec *a)
{
    enum family fam = FAM_LLAMA;
    int rc;

    if ((rc = get_family(c, &fam)) != 0)
        return rc;
    if (fam == FAM_GPT2)
        return read_gpt2(c, a);
    if ((rc = read_common(c, a)) != 0)
        return rc;
    switch (fam) {
    case FAM_GPT2:
        break; /* read above */
    case FAM_GPT_NEOX:
    case FAM_PHI:
        return read_plain(c, fam, a);
    case FAM_MIXTRAL:
        if ((rc = read_gqa(c, FAM_LLAMA, a)) != 0)
            return rc;
        return read_mixtral(c, a);
    case FAM_LLAMA:
    case FAM_QWEN2:
    case FAM_QWEN3:
        if ((rc = read_gqa(c, fam, a)) != 0)
            return rc;
        return read_ffn(c, a, a->layers);
    case FAM_QWEN2_MOE:
    case FAM_QWEN3_MOE:
        if ((rc = read_gqa(c, fam, a)) != 0)
            return rc;
        return read_qwen_moe(c, fam, a);
    case FAM_DEEPSEEK_V2:
    case FAM_DEEPSEEK_V3:
    case FAM_DEEPSEEK_V32:
        if ((rc = read_mla(c, fam, a)) != 0)
            return rc;
        return read_deepseek_moe(c, fam, a);
    }
    return fail(c, SIM_EINVAL, "internal: unhandled architecture");
}

/* Reads the whole file into a new NUL-terminated buffer. */
static int read_file(struct ctx *c, char **out, size_t *len)
{
    FILE *fp = fopen(c->file, "rb");
    char *buf;
    size_t n;

    if (fp == NULL)
        return fail(c, SIM_EIO, "cannot open: %s", strerror(errno));
    buf = xmalloc((size_t)ARCH_HF_MAX_BYTES + 1);
    n = fread(buf, 1, (size_t)ARCH_HF_MAX_BYTES + 1, fp);
    if (ferror(fp)) {
        int e = errno;

        fclose(fp);
        free(buf);
        return fail(c, SIM_EIO, "cannot read: %s", strerror(e));
    }
    fclose(fp);
    if (n > (size_t)ARCH_HF_MAX_BYTES) {
        free(buf);
        return fail(c, SIM_EIO, "larger than %d bytes; not a config.json",
                    ARCH_HF_MAX_BYTES);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Writes "FILE:LINE:COL: error: MESSAGE" for byte offset off of buf. */
static int fail_at(struct ctx *c, const char *buf, size_t off, const char *msg)
{
    int line = 1, col = 1;
    size_t i;

    for (i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (c->whylen > 0)
        snprintf(c->why, c->whylen, "%s:%d:%d: error: %s", c->file, line, col,
                 msg);
    return SIM_EPARSE;
}

/* Parses buf into c->root, which must be an object. */
static int parse(struct ctx *c, const char *buf, size_t len)
{
    struct json_tokener *tok = json_tokener_new();
    enum json_tokener_error err;
    json_object *root;
    size_t end;

    if (tok == NULL)
        sim_fatal("out of memory for the JSON tokener");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    root = json_tokener_parse_ex(tok, buf, (int)len);
    err = json_tokener_get_error(tok);
    end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (root == NULL) {
        char msg[128];

        /* json_tokener_continue: the text stopped inside a value. */
        snprintf(msg, sizeof(msg), "json: %s",
                 err == json_tokener_continue ? "unexpected end of file"
                                              : json_tokener_error_desc(err));
        return fail_at(c, buf, end, msg);
    }
    /* Strict mode also rejects anything but white space after the value,
     * as "unexpected character" at its position. */
    if (!json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        end = 0;
        while (isspace((unsigned char)buf[end]))
            end++;
        return fail_at(c, buf, end, "json: expected an object at the top");
    }
    c->root = root;
    return 0;
}

/* The last component of dir after resolving "." and ".." lexically
 * against the working directory (symbolic links are not followed). NULL
 * when there is none (the root). Caller frees. */
static char *resolved_basename(const char *dir)
{
    char cwd[4096], *abs, *p, *tok, *save = NULL;
    char **stack;
    size_t n = 0;
    char *last = NULL;

    if (dir[0] == '/')
        abs = xstrdup(dir);
    else if (getcwd(cwd, sizeof(cwd)) != NULL)
        abs = xasprintf("%s/%s", cwd, dir);
    else
        return NULL;
    stack = xcalloc(strlen(abs) + 1, sizeof(*stack));
    for (p = abs; (tok = strtok_r(p, "/", &save)) != NULL; p = NULL) {
        if (strcmp(tok, "..") == 0)
            n -= n > 0;
        else if (strcmp(tok, ".") != 0)
            stack[n++] = tok;
    }
    if (n > 0)
        last = xstrdup(stack[n - 1]);
    free(stack);
    free(abs);
    return last;
}

/* The lower-cased basename of the directory that holds the config: of path
 * itself when it is a directory, else of its parent. Caller frees. */
static char *model_name(const char *path, int is_dir)
{
    char *dir, *s, *p;
    size_t end, start;

    if (is_dir) {
        dir = xstrdup(path);
    } else {
        const char *slash = strrchr(path, '/');

        if (slash == NULL)
            dir = xstrdup(".");
        else
            dir = xstrndup(path, (size_t)(slash - path) + 1);
    }
    end = strlen(dir);
    while (end > 0 && dir[end - 1] == '/')
        end--;
    start = end;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    s = xstrndup(dir + start, end - start);
    if (s[0] == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
        /* "config.json", "./" or "../": name the directory they mean. */
        free(s);
        s = resolved_basename(dir);
        if (s == NULL)
            s = xstrdup("model");
    }
    free(dir);
    for (p = s; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    return s;
}

int arch_hf_load(const char *path, struct arch_spec **out, char *why,
                 size_t whylen)
{
    struct ctx c = {.why = why, .whylen = whylen};
    struct hf_model *m;
    struct stat st;
    char *file, *buf = NULL;
    size_t len = 0, n;
    int rc, is_dir;

    is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    n = strlen(path);
    if (is_dir)
        file = xasprintf("%s%sconfig.json", path,
                         n > 0 && path[n - 1] == '/' ? "" : "/");
    else
        file = xstrdup(path);
    c.file = file;
    if ((rc = read_file(&c, &buf, &len)) != 0 ||
        (rc = parse(&c, buf, len)) != 0) {
        free(buf);
        free(file);
        return rc;
    }
    m = xcalloc(1, sizeof(*m));
    c.buf = buf;
    rc = read_spec(&c, &m->spec);
    free(buf);
    if (rc != 0) {
        json_object_put(c.root);
        free(m);
        free(file);
        return rc;
    }
    m->name = model_name(path, is_dir);
    m->summary = xasprintf("%s from %s (%s)", m->name, file, c.arch);
    m->source = xasprintf("Hugging Face config.json %s (%s)", file, c.arch);
    m->spec.name = m->name;
    m->spec.summary = m->summary;
    m->spec.source = m->source;
    json_object_put(c.root);
    free(file);
    *out = &m->spec;
    return 0;
}

void arch_hf_free(struct arch_spec *a)
{
    struct hf_model *m = (struct hf_model *)a;

    if (m == NULL)
        return;
    free(m->name);
    free(m->summary);
    free(m->source);
    free(m);
}
