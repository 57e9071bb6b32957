/*
 * The model-architecture catalog: the config.json figures that decide memory
 * and compute (layers, widths, heads, attention kind, MoE shape) for each
 * model the simulator knows, one const entry per file listed by table.c,
 * plus the quantities derived from them (parameter counts, KV-cache bytes
 * per token, FLOPs per token). Counts are exact integers; the formulas are
 * those of docs/sources.md §4.2-4.5 and reproduce its worked values to the
 * unit. Catalog entries are immutable and static; lookups return borrowed
 * pointers. models/arch/hf.h builds entries from a Hugging Face config.json
 * on the heap; every function below takes either kind. Single-threaded, no
 * state.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdint.h>

#include "models/arch/dtype.h"

enum arch_attn_kind {
    ARCH_ATTN_GQA, /* grouped-query (MHA when kv_heads == heads) */
    ARCH_ATTN_MLA, /* DeepSeek multi-head latent attention */
};

/* The dense MLP (and expert) form. Gated is SwiGLU: gate and up
 * projections h -> f, silu(gate) * up, down f -> h, 3 * h * f weights.
 * Plain is two matrices, up h -> f and down f -> h, with an elementwise
 * activation (GELU) between them, 2 * h * f weights (phi-2, GPT-NeoX,
 * GPT-2). */
enum arch_mlp_kind {
    ARCH_MLP_GATED, /* SwiGLU, three matrices (the zero default) */
    ARCH_MLP_PLAIN, /* up, activation, down: two matrices */
};

/* Multi-head latent attention shape (DeepSeek-V2/V3); zero for GQA.
 * fp8_scale_group says how the cache is laid out in FP8: 0 for one byte per
 * element (the latent and RoPE key alike, a per-tensor scale), or, as in
 * FlashMLA's "FP8 with scale" layout that DeepSeek-V3.2 uses, the latent in
 * FP8 with one FP32 scale per fp8_scale_group elements and the RoPE key kept
 * in bf16: 512 + 16 + 128 = 656 bytes a layer for group 128 (docs/sources.md
 * §4.3). */
struct arch_mla {
    int q_lora_rank; /* 0: the query is one hidden x heads*qk projection */
    int kv_lora_rank;
    int qk_nope_head_dim;
    int qk_rope_head_dim;
    int v_head_dim;
    int fp8_scale_group;
};

/* The DeepSeek Sparse Attention (DSA) lightning indexer of DeepSeek-V3.2,
 * one per layer; n_heads == 0 when absent. It scores every cached token
 * with n_heads heads of width head_dim and the main attention then reads
 * only the topk best. Its weights (docs/sources.md §4.1, model.py Indexer):
 * wq_b q_lora_rank x n_heads*head_dim, wk hidden x head_dim, a LayerNorm of
 * head_dim (weight and bias) and weights_proj hidden x n_heads, 13,959,424
 * a layer for V3.2 (docs/sources.md §4.2). It caches one FP8 key of head_dim
 * bytes per token and layer plus one FP32 scale per 128 elements, 132 bytes for
 * V3.2, whatever the MLA cache dtype (docs/sources.md §4.3). */
struct arch_indexer {
    int n_heads;
    int head_dim;
    int topk; /* keys each query attends to in the main attention */
};

/* Mixture-of-experts shape; n_routed_experts == 0 for a dense model. Layers
 * [0, first_dense_layers) use the dense MLP of width ffn; the others use a
 * router, n_routed_experts experts of width moe_ffn of which
 * experts_per_token run per token, and n_shared_experts always-on experts of
 * width shared_ffn (moe_ffn when shared_ffn is 0). When moe_layers > 0 it
 * is the number of MoE layers instead of layers - first_dense_layers, for
 * configs whose sparse layers are not a suffix (Hugging Face
 * decoder_sparse_step, mlp_only_layers, moe_layer_freq); every other layer
 * is dense. Only the count matters to the quantities below. */
struct arch_moe {
    int n_routed_experts;
    int experts_per_token;
    int n_shared_experts;
    int moe_ffn;
    int first_dense_layers;
    int router_bias; /* 1 if the router has a per-expert bias (DeepSeek) */
    int shared_ffn;  /* width of a shared expert; 0 means moe_ffn */
    int shared_gate; /* 1 if the shared experts have a hidden x 1 sigmoid
                        gate (Qwen2-MoE) */
    int moe_layers;  /* > 0: MoE layer count overriding the suffix rule */
    /* Node-limited routing (DeepSeek-V3 config n_group, topk_group;
     * docs/sources.md §4.5): the routed experts form n_group equal groups and
     * each token's experts lie in at most topk_group of them. 0 = no limit. */
    int n_group;
    int topk_group;
};

/* One model. By default (every field below the MoE shape zero) all layers
 * are SwiGLU MLPs with RMSNorm before attention and MLP (2 norm vectors of
 * width hidden per layer), a final norm, rotary positions and no biases
 * but those qkv_bias names; the fields from mlp on describe the GELU-MLP
 * families (phi-2, GPT-NeoX, GPT-2) that differ. */
struct arch_spec {
    const char *name;    /* catalog key, lower case, e.g. "llama-3.1-8b" */
    const char *summary; /* one line for --list-models, cites the source */
    const char *source;  /* config.json and docs/sources.md section */
    /* The Hugging Face repository of the released weights, as `vllm serve`
     * takes it (dsec plan --launch), when the repository the source names
     * is one, e.g. "Qwen/Qwen3-32B"; NULL when dsec's sources do not name
     * it (the Llama entries cite meta-llama/llama-models, a code
     * repository) and for models read from a config.json. */
    const char *hf_repo;
    int layers;
    int hidden;
    int heads;    /* query heads */
    int kv_heads; /* GQA key/value heads; == heads for MLA (nominal) */
    int head_dim; /* GQA head dimension; MLA uses struct arch_mla */
    int ffn;      /* dense MLP intermediate size */
    int vocab;
    int tied_embeddings; /* 1 if the LM head reuses the embedding matrix */
    int attn;            /* enum arch_attn_kind */
    struct arch_mla mla;
    struct arch_moe moe;
    int weight_dtype; /* enum cl_dtype of the released checkpoint */
    int qkv_bias;     /* 1 if the q, k and v projections have biases (Qwen2,
                         docs/sources.md §4.1, §4.2) */
    int qk_norm;      /* 1 if q and k get an RMSNorm of head_dim per layer
                         (Qwen3 QK-norm, docs/sources.md §4.1, §4.2) */
    struct arch_indexer indexer; /* DeepSeek-V3.2 DSA; zero otherwise */
    int mlp;                     /* enum arch_mlp_kind of the dense MLP */
    int mlp_bias;      /* 1 if the MLP matrices have biases (f up, h down) */
    int o_bias;        /* 1 if the attention output projection has a bias */
    int layer_norm;    /* 1 for LayerNorm with weight and bias (2 * hidden a
                          norm), 0 for RMSNorm (hidden) */
    int shared_norm;   /* 1 if attention and MLP share one input norm a layer
                          (phi-2), 0 for two norms a layer */
    int parallel;      /* 1 if attention and MLP run in parallel on the same
                          input (phi-2, GPT-NeoX use_parallel_residual);
                          shown, not costed differently */
    int head_bias;     /* 1 if the untied LM head has a vocab bias (phi-2) */
    int positions;     /* rows of a learned position embedding (GPT-2
                          n_positions); 0 for rotary or none */
    int max_positions; /* context length the model was trained for
                          (max_position_embeddings); 0 when unknown */
    int mtp_layers;    /* multi-token-prediction modules shipped with the
                          weights (DeepSeek num_nextn_predict_layers), each
                          one transformer layer that drafts the next token
                          for speculative decoding; 0 = none */
};

/* NULL-terminated, sorted by name. Borrowed, static. */
extern const struct arch_spec *const arch_table[];

/* Returns the entry whose name equals name, ignoring ASCII case, or NULL if
 * there is none (or name is NULL). Borrowed, static. */
const struct arch_spec *arch_find(const char *name);

/* Recognises a model from a path or URL such as "s3://models/deepseek-v3"
 * or "/models/Llama-3.1-70B-Instruct/". Rule: take the last non-empty
 * '/'-separated component; normalise it and every catalog name by lowering
 * ASCII case and dropping every character that is not a letter or digit;
 * a catalog name matches when its normalised form equals, or is a prefix
 * of, the normalised component ("llama3170binstruct" starts with
 * "llama3170b"), or of the component less a leading "meta" (Hugging Face
 * names the Llama 3 repositories "Meta-Llama-3.1-405B-Instruct"). When
 * several match the longest wins, so "DeepSeek-V3.2-Exp" is deepseek-v3.2
 * and "DeepSeek-V3-0324" deepseek-v3. Returns the entry or NULL (also for
 * NULL or empty path). Borrowed, static. */
const struct arch_spec *arch_find_path(const char *path);

/* Returns the catalog names joined by ", " in table order, e.g.
 * "deepseek-v3, deepseek-v3.2, llama-2-70b, ...". Caller frees with
 * free(). */
char *arch_names(void);

/* Number of parameters in the input embedding table, vocab * hidden. */
int64_t arch_params_embedding(const struct arch_spec *a);

/* Parameters of one routed expert of one MoE layer, 3 * hidden * moe_ffn
 * (SwiGLU gate, up, down; 2 * hidden * moe_ffn for a plain MLP); 0 for a
 * dense model. */
int64_t arch_params_expert(const struct arch_spec *a);

/* Parameters of the dense MLP of one layer: 3 * hidden * ffn for a gated
 * MLP, 2 * hidden * ffn for a plain one, plus the biases when mlp_bias is
 * set (ffn + hidden plain, 2 * ffn + hidden gated). phi-2: 2 * 2560 * 10240 +
 * 10240 + 2560 = 52,441,600. */
int64_t arch_params_mlp(const struct arch_spec *a);

/* Parameters of one layer's attention: the projections with their biases
 * (qkv_bias, o_bias), the QK-norm weights and the DSA indexer; no norms. */
int64_t arch_params_attn(const struct arch_spec *a);

/* Norm parameters of one layer: one or two norms (shared_norm) of hidden
 * (RMSNorm) or 2 * hidden (LayerNorm) each. */
int64_t arch_params_layer_norms(const struct arch_spec *a);

/* Parameters outside the layers: the input embedding, the learned position
 * embedding (positions * hidden), the final norm and the LM head with its
 * bias unless tied. */
int64_t arch_params_ends(const struct arch_spec *a);

/* Number of MoE layers: moe.moe_layers when set, else layers -
 * first_dense_layers; 0 for a dense model. */
int arch_moe_layers(const struct arch_spec *a);

/* Parameters of one layer's DSA indexer (struct arch_indexer), 0 without
 * one: 13,959,424 for DeepSeek-V3.2 (docs/sources.md §4.2). Counted in the
 * attention of every layer by the totals below. */
int64_t arch_params_indexer(const struct arch_spec *a);

/* Total parameters of the main model (DeepSeek's multi-token-prediction
 * module excluded), by the docs/sources.md §4.2 formulas: embedding, per-layer
 * attention (with QKV biases, QK-norm weights and the DSA indexer when the
 * entry has them), MLP or MoE (router, routed and shared experts) and norms,
 * final norm, and the LM head unless tied. */
int64_t arch_params_total(const struct arch_spec *a);

/* Parameters used per token: as arch_params_total but counting only
 * experts_per_token routed experts (plus the shared ones and the router) in
 * each MoE layer. Equal to the total for a dense model. The embedding table
 * is counted whole, as docs/sources.md §4.2 does. */
int64_t arch_params_active(const struct arch_spec *a);

/* Parameters that are read in full every forward pass whatever the batch:
 * all parameters except the routed experts, the untied input embedding
 * table and the position embedding (a lookup reads only the batch's
 * rows). */
int64_t arch_params_always_read(const struct arch_spec *a);

/* KV-cache bytes per token for the whole model (all layers, all heads, on
 * one copy), docs/sources.md §4.3: GQA 2 * layers * kv_heads * head_dim * b;
 * MLA layers * (kv_lora_rank + qk_rope_head_dim) * b. kv_dtype_bytes is the
 * size of one cached element in bytes (2 for bf16, 1 for fp8). Two exceptions
 * make the figure the real layout's rather than elements times b: an MLA
 * entry with mla.fp8_scale_group > 0 stores fp8 (b == 1) as FlashMLA's "FP8
 * with scale" layout, kv_lora_rank + 4 * ceil(kv_lora_rank / group) +
 * 2 * qk_rope_head_dim bytes a layer; and a DSA indexer adds its FP8 key
 * with FP32 scales, index_head_dim + 4 * ceil(index_head_dim / 128) bytes a
 * layer, whatever b. DeepSeek-V3.2: 61 * (656 + 132) = 48,068 in fp8,
 * 61 * (1,152 + 132) = 78,324 in bf16. */
int64_t arch_kv_bytes_per_token(const struct arch_spec *a, int kv_dtype_bytes);

/* Linear-layer FLOPs per token of the forward pass, 2 * (active parameters
 * - untied embedding table - position embedding): every weight does one
 * multiply-add per token and the embedding lookups do none (docs/sources.md
 * §4.4). Includes the LM head and the router (and counts biases and norm
 * weights as weights, a negligible excess); excludes attention score FLOPs
 * (below). */
int64_t arch_linear_flops_per_token(const struct arch_spec *a);

/* Attention FLOPs per query-key pair summed over all heads and layers, for
 * a prefill (decode == 0) or decode (decode != 0) query. GQA: 4 * heads *
 * head_dim per layer (QK^T and PV, docs/sources.md §4.4). MLA prefill, naive
 * form: heads * (2 * (qk_nope + qk_rope) + 2 * v_head_dim); MLA decode,
 * absorbed form (FlashMLA): heads * (2 * (kv_lora + qk_rope) + 2 * kv_lora),
 * i.e. 2,176 * heads for DeepSeek-V3 (docs/sources.md §4.4). */
double arch_attn_flops_per_pair(const struct arch_spec *a, int decode);

/* Keys one query attends to in the main attention at most: the DSA
 * index_topk (2,048 for DeepSeek-V3.2), or 0 when every cached key is read
 * (dense attention). */
int arch_attn_topk(const struct arch_spec *a);

/* FLOPs per query-key pair of the DSA indexer, summed over its heads and
 * all layers: 2 * index_n_heads * index_head_dim * layers (a dot product
 * per head; the ReLU and head weighting are neglected), 999,424 for
 * DeepSeek-V3.2. Every cached key is scored, whatever topk. 0 without an
 * indexer. Derived from the docs/sources.md §4.1 shapes with the §4.4 count of
 * 2 FLOPs per multiply-add. */
double arch_indexer_flops_per_pair(const struct arch_spec *a);

/* Attention FLOPs of one decode query over ctx_tokens cached tokens, all
 * heads and layers: arch_attn_flops_per_pair(a, 1) * min(ctx_tokens, topk)
 * + arch_indexer_flops_per_pair(a) * ctx_tokens, where topk is
 * arch_attn_topk() (ctx_tokens when 0). 0 for ctx_tokens <= 0. */
double arch_attn_flops_decode_query(const struct arch_spec *a,
                                    int64_t ctx_tokens);

/* Expected number of distinct routed experts a batch of tokens touches in
 * one MoE layer under uniform routing, E * (1 - (1 - k/E)^tokens)
 * (docs/sources.md §4.5): k for one token, approaching E for large batches. 0
 * for a dense model or tokens <= 0. */
double arch_moe_experts_touched(const struct arch_spec *a, int64_t tokens);

#endif /* ARCH_ARCH_H */
