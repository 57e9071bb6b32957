/*
 * Llama 3.1 70B (dense, GQA 64/8). Shape from meta-llama/llama-models @
 * 8c88b8c0 models/sku_list.py (dim 8192, 80 layers, 64/8 heads,
 * intermediate 28672 derived from ffn_dim_multiplier 1.3 and multiple_of
 * 4096, vocab 128256) and third-party copies of the HF config
 * (tie_word_embeddings false), all via docs/sources.md §4.1. Released in bf16.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_llama_3_1_70b = {
    .name = "llama-3.1-70b",
    .summary = "Llama 3.1 70B: dense, 80 layers, hidden 8192, GQA 64/8, "
               "70.55B params (meta-llama/llama-models sku_list via "
               "docs/sources.md §4.1)",
    .source = "meta-llama/llama-models @ 8c88b8c0 models/sku_list.py and HF "
              "config.json via docs/sources.md §4.1, §4.2",
    .layers = 80,
    .hidden = 8192,
    .heads = 64,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 28672,
    .vocab = 128256,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .max_positions = 131072, /* docs/sources.md §4.1: 128K context (as 8B) */
    .weight_dtype = CL_DTYPE_BF16,
};
