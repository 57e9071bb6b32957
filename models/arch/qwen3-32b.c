/*
 * Qwen3 32B (dense, GQA 64/8, QK-norm). Shape from third-party copies of
 * the HF config.json (hidden 5120, intermediate 25600, 64 layers, 64/8
 * heads, head_dim 128, so q-proj 5120 -> 8192, vocab 151936,
 * tie_word_embeddings false), counts agreeing with the Qwen3 Technical
 * Report Tables 1-2, via docs/sources.md §4.1. 32,762,123,264 parameters
 * (docs/sources.md §4.2). Released in bf16.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_qwen3_32b = {
    .name = "qwen3-32b",
    .summary = "Qwen3 32B: dense, 64 layers, hidden 5120, GQA 64/8 of 128, "
               "QK-norm, 32.76B params (HF config copies via docs/sources.md "
               "§4.1)",
    .source = "Qwen/Qwen3-32B config.json (third-party copies) and the Qwen3 "
              "Technical Report via docs/sources.md §4.1, §4.2",
    .hf_repo = "Qwen/Qwen3-32B",
    .layers = 64,
    .hidden = 5120,
    .heads = 64,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 25600,
    .vocab = 151936,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .weight_dtype = CL_DTYPE_BF16,
    .qk_norm = 1,
};
