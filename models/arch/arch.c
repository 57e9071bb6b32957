/*
 * Quantities derived from an architecture entry. Parameter counts follow
 * docs/sources.md §4.2 term by term (it states the per-layer formulas and the
 * expected totals these functions reproduce exactly); KV bytes follow
 * docs/sources.md §4.3, FLOPs §4.4, expert coverage §4.5. Integer arithmetic in
 * int64_t: the largest product here (DeepSeek-V3 total, 6.7e11) is far from
 * overflow.
 */
#include "models/arch/arch.h"

#include <math.h>
#include <stddef.h>

/* Attention parameters of one layer (projections only, no norms). */
static int64_t attn_params(const struct arch_spec *a)
{
    int64_t h = a->hidden, nh = a->heads;

    if (a->attn == ARCH_ATTN_MLA) {
        const struct arch_mla *m = &a->mla;
        int64_t qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        int64_t q;

        /* docs/sources.md §4.2, MLA layer: h*q_lora + q_lora (norm) +
         * q_lora*n_h*(d_nope+d_rope) + h*(kv_lora+d_rope) + kv_lora (norm)
         * + kv_lora*n_h*(d_nope+d_v) + n_h*d_v*h. Without a q LoRA (as in
         * DeepSeek-V2-Lite) the query is one h x n_h*(d_nope+d_rope)
         * projection. */
        if (m->q_lora_rank > 0)
            q = h * m->q_lora_rank + m->q_lora_rank +
                (int64_t)m->q_lora_rank * nh * qk;
        else
            q = h * nh * qk;
        return q + h * (m->kv_lora_rank + m->qk_rope_head_dim) +
               m->kv_lora_rank +
               (int64_t)m->kv_lora_rank * nh *
                   (m->qk_nope_head_dim + m->v_head_dim) +
               nh * m->v_head_dim * h;
    }
    /* docs/sources.md §4.2, dense layer: h*(n_h*d) [q] + 2*h*(n_kv*d) [k, v] +
     * (n_h*d)*h [o]; no biases for Llama; + n_h*d + 2*n_kv*d biases for
     * Qwen2; + 2*d QK-norm weights for Qwen3. */
    int64_t d = a->head_dim, nkv = a->kv_heads;
    int64_t n = h * nh * d + 2 * h * nkv * d + nh * d * h;

    if (a->qkv_bias)
        n += nh * d + 2 * nkv * d;
    if (a->o_bias) /* phi-2, GPT-NeoX, GPT-2: the dense/c_proj bias */
        n += h;
    if (a->qk_norm)
        n += 2 * d;
    return n;
}

int64_t arch_params_attn(const struct arch_spec *a)
{
    return attn_params(a) + arch_params_indexer(a);
}

/* Weight matrices of an MLP of width f: gate, up, down or up, down. */
static int64_t mlp_matrices(const struct arch_spec *a, int64_t f)
{
    return (a->mlp == ARCH_MLP_PLAIN ? 2 : 3) * (int64_t)a->hidden * f;
}

int64_t arch_params_mlp(const struct arch_spec *a)
{
    int64_t n = mlp_matrices(a, a->ffn);

    if (a->mlp_bias) /* up (and gate) f each, down h */
        n += (a->mlp == ARCH_MLP_PLAIN ? 1 : 2) * (int64_t)a->ffn + a->hidden;
    return n;
}

/* Parameters of one norm: RMSNorm weight, or LayerNorm weight and bias. */
static int64_t norm_params(const struct arch_spec *a)
{
    return (a->layer_norm ? 2 : 1) * (int64_t)a->hidden;
}

int64_t arch_params_layer_norms(const struct arch_spec *a)
{
    return (a->shared_norm ? 1 : 2) * norm_params(a);
}

int64_t arch_params_ends(const struct arch_spec *a)
{
    int64_t n = arch_params_embedding(a) + (int64_t)a->positions * a->hidden;

    if (!a->tied_embeddings)
        n += arch_params_embedding(a) + (a->head_bias ? a->vocab : 0);
    return n + norm_params(a); /* final norm */
}

/* Bytes of n FP8 elements with one FP32 scale per group of them. */
static int64_t fp8_scaled_bytes(int64_t n, int64_t group)
{
    return n + 4 * ((n + group - 1) / group);
}

/* Router parameters of one MoE layer: E*h, plus E bias terms (DeepSeek's
 * e_score_correction_bias), docs/sources.md §4.2. */
static int64_t router_params(const struct arch_spec *a)
{
    int64_t e = a->moe.n_routed_experts;

    return e * a->hidden + (a->moe.router_bias ? e : 0);
}

/* Shared by total and active: everything except the routed experts, plus
 * experts_per_layer routed experts in each MoE layer. */
static int64_t params_with_experts(const struct arch_spec *a,
                                   int64_t experts_per_layer)
{
    int64_t h = a->hidden;
    /* docs/sources.md §4.2: two RMSNorm vectors a layer (LayerNorm doubles). */
    int64_t norms = arch_params_layer_norms(a);
    int64_t dense_mlp = arch_params_mlp(a); /* gate, up, down or up, down */
    int moe_layers = arch_moe_layers(a);
    int dense_layers = a->layers - moe_layers;
    int64_t shared_ffn =
        a->moe.shared_ffn > 0 ? a->moe.shared_ffn : a->moe.moe_ffn;
    int64_t moe_layer = router_params(a) +
                        experts_per_layer * arch_params_expert(a) +
                        a->moe.n_shared_experts * mlp_matrices(a, shared_ffn) +
                        (a->moe.shared_gate ? h : 0);
    int64_t n;

    n = (int64_t)dense_layers * (arch_params_attn(a) + dense_mlp + norms);
    n += (int64_t)moe_layers * (arch_params_attn(a) + moe_layer + norms);
    return n + arch_params_ends(a); /* embeddings, LM head, final norm */
}

int64_t arch_params_embedding(const struct arch_spec *a)
{
    return (int64_t)a->vocab * a->hidden;
}

int64_t arch_params_expert(const struct arch_spec *a)
{
    if (a->moe.n_routed_experts == 0)
        return 0;
    return mlp_matrices(a, a->moe.moe_ffn);
}

int arch_moe_layers(const struct arch_spec *a)
{
    if (a->moe.n_routed_experts == 0)
        return 0;
    if (a->moe.moe_layers > 0)
        return a->moe.moe_layers;
    return a->layers - a->moe.first_dense_layers;
}

int64_t arch_params_indexer(const struct arch_spec *a)
{
    const struct arch_indexer *x = &a->indexer;
    int64_t h = a->hidden, nd = (int64_t)x->n_heads * x->head_dim;

    if (x->n_heads == 0)
        return 0;
    /* docs/sources.md §4.1 (model.py Indexer): wq_b from the query LoRA to
     * n_heads*head_dim (from the hidden state when there is no query
     * LoRA), wk hidden -> head_dim, LayerNorm(head_dim) with weight and
     * bias, weights_proj hidden -> n_heads. */
    return (a->mla.q_lora_rank > 0 ? a->mla.q_lora_rank : h) * nd +
           h * x->head_dim + 2 * (int64_t)x->head_dim + h * x->n_heads;
}

int64_t arch_params_total(const struct arch_spec *a)
{
    return params_with_experts(a, a->moe.n_routed_experts);
}

int64_t arch_params_active(const struct arch_spec *a)
{
    return params_with_experts(a, a->moe.experts_per_token);
}

int64_t arch_params_always_read(const struct arch_spec *a)
{
    int64_t n = params_with_experts(a, 0);

    if (!a->tied_embeddings)
        n -= arch_params_embedding(a);
    return n - (int64_t)a->positions * a->hidden;
}

int64_t arch_kv_bytes_per_token(const struct arch_spec *a, int kv_dtype_bytes)
{
    if (a->attn == ARCH_ATTN_MLA) {
        const struct arch_mla *m = &a->mla;
        int64_t layer;

        /* docs/sources.md §4.3: only the latent and the shared RoPE key are
         * cached, one copy for all heads. FlashMLA's FP8 layout (V3.2)
         * keeps scales beside the latent and the RoPE key in bf16. */
        if (kv_dtype_bytes == 1 && m->fp8_scale_group > 0)
            layer = fp8_scaled_bytes(m->kv_lora_rank, m->fp8_scale_group) +
                    2 * (int64_t)m->qk_rope_head_dim;
        else
            layer = (int64_t)(m->kv_lora_rank + m->qk_rope_head_dim) *
                    kv_dtype_bytes;
        /* docs/sources.md §4.3: the DSA indexer caches an FP8 key with one FP32
         * scale per 128 elements (model.py k_cache, k_scale_cache). */
        if (a->indexer.n_heads > 0)
            layer += fp8_scaled_bytes(a->indexer.head_dim, 128);
        return a->layers * layer;
    }
    /* docs/sources.md §4.3: K and V for every KV head of every layer. */
    return 2 * (int64_t)a->layers * a->kv_heads * a->head_dim * kv_dtype_bytes;
}

int64_t arch_linear_flops_per_token(const struct arch_spec *a)
{
    int64_t n = arch_params_active(a);

    /* A tied head is the embedding matrix and does multiply; an untied
     * embedding table is only indexed (docs/sources.md §4.4). */
    if (!a->tied_embeddings)
        n -= arch_params_embedding(a);
    n -= (int64_t)a->positions * a->hidden; /* looked up, never multiplied */
    return 2 * n;
}

double arch_attn_flops_per_pair(const struct arch_spec *a, int decode)
{
    double per_head;

    if (a->attn == ARCH_ATTN_MLA) {
        const struct arch_mla *m = &a->mla;

        if (decode) /* absorbed: MQA over the 576-wide latent+rope key */
            per_head = 2.0 * (m->kv_lora_rank + m->qk_rope_head_dim) +
                       2.0 * m->kv_lora_rank;
        else /* naive: per-head 192-wide keys and 128-wide values */
            per_head = 2.0 * (m->qk_nope_head_dim + m->qk_rope_head_dim) +
                       2.0 * m->v_head_dim;
    } else {
        per_head = 4.0 * a->head_dim; /* 2d for QK^T, 2d for PV */
    }
    return per_head * a->heads * a->layers;
}

double arch_moe_experts_touched(const struct arch_spec *a, int64_t tokens)
{
    double e = a->moe.n_routed_experts;
    double k = a->moe.experts_per_token;

    if (a->moe.n_routed_experts == 0 || tokens <= 0)
        return 0.0;
    /* docs/sources.md §4.5. exp(T*log1p(-k/E)) keeps precision for large T. */
    return e * -expm1((double)tokens * log1p(-k / e));
}

int arch_attn_topk(const struct arch_spec *a)
{
    return a->indexer.n_heads > 0 ? a->indexer.topk : 0;
}

double arch_indexer_flops_per_pair(const struct arch_spec *a)
{
    /* One head_dim-wide dot product per indexer head, 2 FLOPs per
     * multiply-add (docs/sources.md §4.4 convention). */
    return 2.0 * a->indexer.n_heads * a->indexer.head_dim * a->layers;
}

double arch_attn_flops_decode_query(const struct arch_spec *a,
                                    int64_t ctx_tokens)
{
    int64_t topk = arch_attn_topk(a);
    int64_t read = ctx_tokens;

    if (ctx_tokens <= 0)
        return 0.0;
    if (topk > 0 && topk < read)
        read = topk;
    return arch_attn_flops_per_pair(a, 1) * (double)read +
           arch_indexer_flops_per_pair(a) * (double)ctx_tokens;
}
