/*
 * The model-architecture catalog: the config.json figures that decide memory
 * and compute (layers, widths, heads, attention kind, MoE shape) for each
 * model the simulator knows, one const entry per file listed by table.c,
 * plus the quantities derived from them (parameter counts, KV-cache bytes
 * per token, FLOPs per token). Counts are exact integers; the formulas are
 * those of FACTS.md §4.2-4.5 and reproduce its worked values to the unit.
 * Entries are immutable and static; lookups return borrowed pointers.
 * Single-threaded, no state.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdint.h>

#include "models/cluster/config.h"

enum arch_attn_kind {
    ARCH_ATTN_GQA, /* grouped-query (MHA when kv_heads == heads) */
    ARCH_ATTN_MLA, /* DeepSeek multi-head latent attention */
};

/* Multi-head latent attention shape (DeepSeek-V2/V3); zero for GQA. */
struct arch_mla {
    int q_lora_rank;
    int kv_lora_rank;
    int qk_nope_head_dim;
    int qk_rope_head_dim;
    int v_head_dim;
};

/* Mixture-of-experts shape; n_routed_experts == 0 for a dense model. Layers
 * [0, first_dense_layers) use the dense MLP of width ffn; the others use a
 * router, n_routed_experts experts of width moe_ffn of which
 * experts_per_token run per token, and n_shared_experts always-on experts of
 * width moe_ffn. */
struct arch_moe {
    int n_routed_experts;
    int experts_per_token;
    int n_shared_experts;
    int moe_ffn;
    int first_dense_layers;
    int router_bias; /* 1 if the router has a per-expert bias (DeepSeek) */
};

/* One model. All layers are SwiGLU MLPs with RMSNorm before attention and
 * MLP (2 norm vectors of width hidden per layer) and a final norm. */
struct arch_spec {
    const char *name;    /* catalog key, lower case, e.g. "llama-3.1-8b" */
    const char *summary; /* one line for --list-models, cites the source */
    const char *source;  /* config.json and FACTS.md section */
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
 * "llama3170b"). When several match the longest wins. Returns the entry or
 * NULL (also for NULL or empty path). Borrowed, static. */
const struct arch_spec *arch_find_path(const char *path);

/* Returns the catalog names joined by ", " in table order, e.g.
 * "deepseek-v3, llama-3.1-70b, llama-3.1-8b". Caller frees with free(). */
char *arch_names(void);

/* Number of parameters in the input embedding table, vocab * hidden. */
int64_t arch_params_embedding(const struct arch_spec *a);

/* Parameters of one routed expert of one MoE layer, 3 * hidden * moe_ffn
 * (SwiGLU gate, up, down); 0 for a dense model. */
int64_t arch_params_expert(const struct arch_spec *a);

/* Number of MoE layers, layers - first_dense_layers; 0 for a dense model. */
int arch_moe_layers(const struct arch_spec *a);

/* Total parameters of the main model (DeepSeek's multi-token-prediction
 * module excluded), by the FACTS.md §4.2 formulas: embedding, per-layer
 * attention, MLP or MoE (router, routed and shared experts) and norms, final
 * norm, and the LM head unless tied. */
int64_t arch_params_total(const struct arch_spec *a);

/* Parameters used per token: as arch_params_total but counting only
 * experts_per_token routed experts (plus the shared ones and the router) in
 * each MoE layer. Equal to the total for a dense model. The embedding table
 * is counted whole, as FACTS.md §4.2 does. */
int64_t arch_params_active(const struct arch_spec *a);

/* Parameters that are read in full every forward pass whatever the batch:
 * all parameters except the routed experts and the untied input embedding
 * table (a lookup reads only the batch's rows). */
int64_t arch_params_always_read(const struct arch_spec *a);

/* KV-cache bytes per token for the whole model (all layers, all heads, on
 * one copy), FACTS.md §4.3: GQA 2 * layers * kv_heads * head_dim * b; MLA
 * layers * (kv_lora_rank + qk_rope_head_dim) * b. kv_dtype_bytes is the size
 * of one cached element in bytes (2 for bf16, 1 for fp8). */
int64_t arch_kv_bytes_per_token(const struct arch_spec *a, int kv_dtype_bytes);

/* Linear-layer FLOPs per token of the forward pass, 2 * (active parameters
 * - untied embedding table): every weight does one multiply-add per token
 * and the embedding lookup does none (FACTS.md §4.4). Includes the LM head
 * and the router; excludes attention score FLOPs (below). */
int64_t arch_linear_flops_per_token(const struct arch_spec *a);

/* Attention FLOPs per query-key pair summed over all heads and layers, for
 * a prefill (decode == 0) or decode (decode != 0) query. GQA: 4 * heads *
 * head_dim per layer (QK^T and PV, FACTS.md §4.4). MLA prefill, naive form:
 * heads * (2 * (qk_nope + qk_rope) + 2 * v_head_dim); MLA decode, absorbed
 * form (FlashMLA): heads * (2 * (kv_lora + qk_rope) + 2 * kv_lora), i.e.
 * 2,176 * heads for DeepSeek-V3 (FACTS.md §4.4). */
double arch_attn_flops_per_pair(const struct arch_spec *a, int decode);

/* Expected number of distinct routed experts a batch of tokens touches in
 * one MoE layer under uniform routing, E * (1 - (1 - k/E)^tokens) (FACTS.md
 * §4.5): k for one token, approaching E for large batches. 0 for a dense
 * model or tokens <= 0. */
double arch_moe_experts_touched(const struct arch_spec *a, int64_t tokens);

#endif /* ARCH_ARCH_H */
