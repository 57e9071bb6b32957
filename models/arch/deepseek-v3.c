/*
 * DeepSeek-V3 (and R1, same shape): MoE with MLA. Shape from
 * deepseek-ai/DeepSeek-V3 @ 9b4e9788 inference/configs/config_671B.json
 * (61 layers, dim 7168, inter_dim 18432, moe_inter_dim 2048, 3 dense
 * layers, 128 heads, 256 routed experts, top-8, 1 shared, q_lora_rank 1536,
 * kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head_dim 128, vocab 129280,
 * dtype fp8) and HF config copies (tie_word_embeddings false, router bias
 * e_score_correction_bias), all via docs/sources.md §4.1. The
 * multi-token-prediction module (11.5B unique parameters) is not part of the
 * main model counted here (docs/sources.md §4.2). Released in FP8 e4m3 with
 * 128x128 block scales.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_deepseek_v3 = {
    .name = "deepseek-v3",
    .summary = "DeepSeek-V3: MoE 256 experts top-8 + 1 shared, MLA, 61 "
               "layers, 671B total / 37.6B active (deepseek-ai/DeepSeek-V3 "
               "config_671B.json via docs/sources.md §4.1)",
    .source = "deepseek-ai/DeepSeek-V3 @ 9b4e9788 "
              "inference/configs/config_671B.json and HF config.json via "
              "docs/sources.md §4.1, §4.2",
    .hf_repo = "deepseek-ai/DeepSeek-V3",
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
        },
    .moe =
        {
            .n_routed_experts = 256,
            .experts_per_token = 8,
            .n_shared_experts = 1,
            .moe_ffn = 2048,
            .first_dense_layers = 3,
            .router_bias = 1,
            /* docs/sources.md §4.1, §4.5: n_group 8, topk_group 4 */
            .n_group = 8,
            .topk_group = 4,
        },
    .max_positions =
        163840,      /* docs/sources.md §4.1: max_position_embeddings 163840 */
    .mtp_layers = 1, /* docs/sources.md §4.1: num_nextn_predict_layers 1 */
    .weight_dtype = CL_DTYPE_FP8,
};
