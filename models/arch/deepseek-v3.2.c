/*
 * DeepSeek-V3.2-Exp: DeepSeek-V3 (MoE with MLA, same shape) plus the
 * DeepSeek Sparse Attention lightning indexer in every layer. Shape from
 * deepseek-ai/DeepSeek-V3.2-Exp @ 3b99a535 inference/config_671B_v3.2.json
 * (as V3 plus index_n_heads 64, index_head_dim 128, index_topk 2048) and
 * inference/model.py (Indexer: wq_b q_lora_rank -> 64*128, wk dim -> 128,
 * LayerNorm(128), weights_proj dim -> 64; FP8 key cache with an FP32 scale
 * per 128), all via docs/sources.md §4.1. The indexer adds 13,959,424
 * parameters a layer (docs/sources.md §4.2). The MLA cache defaults to
 * FlashMLA's "FP8 with scale" layout, 656 bytes a layer, and with the indexer
 * key 788 bytes a layer, 48,068 bytes a token (docs/sources.md §4.3). Released
 * in FP8 e4m3 with 128x128 block scales, as V3.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_deepseek_v3_2 = {
    .name = "deepseek-v3.2",
    .summary =
        "DeepSeek-V3.2-Exp: V3 (MoE 256 experts top-8 + 1 shared, "
        "MLA) + DSA indexer 64x128 top-2048, 671.9B total / 38.4B "
        "active (deepseek-ai/DeepSeek-V3.2-Exp via docs/sources.md §4.1)",
    .source = "deepseek-ai/DeepSeek-V3.2-Exp @ 3b99a535 "
              "inference/config_671B_v3.2.json and inference/model.py via "
              "docs/sources.md §4.1, §4.2, §4.3",
    .hf_repo = "deepseek-ai/DeepSeek-V3.2-Exp",
    .layers = 61,
    .hidden = 7168,
    .heads = 128,
    .kv_heads = 128, /* nominal; MLA caches one latent for all heads */
    .head_dim = 128, /* v_head_dim; MLA uses .mla */
    .ffn = 18432,
    .vocab = 129280,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_MLA,
    .mla =
        {
            .q_lora_rank = 1536,
            .kv_lora_rank = 512,
            .qk_nope_head_dim = 128,
            .qk_rope_head_dim = 64,
            .v_head_dim = 128,
            .fp8_scale_group = 128, /* FlashMLA "FP8 with scale" */
        },
    .moe =
        {
            .n_routed_experts = 256,
            .experts_per_token = 8,
            .n_shared_experts = 1,
            .moe_ffn = 2048,
            .first_dense_layers = 3,
            .router_bias = 1,
            /* as V3 (docs/sources.md §4.1, §4.5) */
            .n_group = 8,
            .topk_group = 4,
        },
    .max_positions = 163840, /* docs/sources.md §4.1: as V3 */
    .mtp_layers = 1, /* docs/sources.md §4.1: num_nextn_predict_layers 1 */
    .weight_dtype = CL_DTYPE_FP8,
    .indexer =
        {
            .n_heads = 64,
            .head_dim = 128,
            .topk = 2048,
        },
};
