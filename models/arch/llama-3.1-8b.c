/*
 * Llama 3.1 8B (dense, GQA 32/8). Shape from meta-llama/llama-models @
 * 8c88b8c0 models/sku_list.py (dim 4096, 32 layers, 32/8 heads,
 * intermediate 14336 derived from ffn_dim_multiplier 1.3 and multiple_of
 * 1024, vocab 128256) and third-party copies of the HF config
 * (tie_word_embeddings false), all via docs/sources.md §4.1. Released in bf16.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_llama_3_1_8b = {
    .name = "llama-3.1-8b",
    .summary =
        "Llama 3.1 8B: dense, 32 layers, hidden 4096, GQA 32/8, "
        "8.03B params (meta-llama/llama-models sku_list via docs/sources.md "
        "§4.1)",
    .source = "meta-llama/llama-models @ 8c88b8c0 models/sku_list.py and HF "
              "config.json via docs/sources.md §4.1, §4.2",
    .layers = 32,
    .hidden = 4096,
    .heads = 32,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 14336,
    .vocab = 128256,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .max_positions = 131072, /* docs/sources.md §4.1: 128K context */
    .weight_dtype = CL_DTYPE_BF16,
};
