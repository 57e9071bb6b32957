/*
 * Qwen3 235B-A22B (MoE, GQA 64/4, QK-norm). Shape from third-party copies of
 * the HF config.json (hidden 4096, 94 layers, 64/4 heads, head_dim 128,
 * vocab 151936, 128 experts, top-8, moe_intermediate_size 1536, no shared
 * expert, decoder_sparse_step 1 so every layer is MoE, tie_word_embeddings
 * false; its intermediate_size 12288 is unused), counts agreeing with the
 * Qwen3 Technical Report Tables 1-2, via docs/sources.md §4.1. The router is
 * softmax top-8 without a bias (docs/sources.md §4.5). 235,093,634,560 total
 * and 22,190,763,520 active parameters (docs/sources.md §4.2). Released in
 * bf16.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_qwen3_235b_a22b = {
    .name = "qwen3-235b-a22b",
    .summary = "Qwen3 235B-A22B: MoE 128 experts top-8, no shared, 94 "
               "layers, GQA 64/4, QK-norm, 235.1B total / 22.2B active (HF "
               "config copies via docs/sources.md §4.1)",
    .source = "Qwen/Qwen3-235B-A22B config.json (third-party copies) and the "
              "Qwen3 Technical Report via docs/sources.md §4.1, §4.2",
    .hf_repo = "Qwen/Qwen3-235B-A22B",
    .layers = 94,
    .hidden = 4096,
    .heads = 64,
    .kv_heads = 4,
    .head_dim = 128,
    .ffn = 12288, /* intermediate_size: no dense layer uses it */
    .vocab = 151936,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .moe =
        {
            .n_routed_experts = 128,
            .experts_per_token = 8,
            .n_shared_experts = 0,
            .moe_ffn = 1536,
            .first_dense_layers = 0,
            .router_bias = 0,
        },
    .weight_dtype = CL_DTYPE_BF16,
    .qk_norm = 1,
};
