/*
 * Llama 3.1 405B (dense, GQA 128/8). Shape from meta-llama/llama-models @
 * 8c88b8c0 models/sku_list.py (dim 16384, 126 layers, 128/8 heads,
 * intermediate 53248 derived from ffn_dim_multiplier 1.2 and multiple_of
 * 4096, vocab 128256) and third-party copies of the HF config
 * (tie_word_embeddings false), all via docs/sources.md §4.1. The bf16-mp16
 * SKU's 16 KV heads are not modelled. 405,853,388,800 parameters
 * (docs/sources.md §4.2). Released in bf16.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_llama_3_1_405b = {
    .name = "llama-3.1-405b",
    .summary = "Llama 3.1 405B: dense, 126 layers, hidden 16384, GQA 128/8, "
               "405.85B params (meta-llama/llama-models sku_list via "
               "docs/sources.md §4.1)",
    .source = "meta-llama/llama-models @ 8c88b8c0 models/sku_list.py and HF "
              "config.json via docs/sources.md §4.1, §4.2",
    .layers = 126,
    .hidden = 16384,
    .heads = 128,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 53248,
    .vocab = 128256,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .max_positions = 131072, /* docs/sources.md §4.1: 128K context (as 8B) */
    .weight_dtype = CL_DTYPE_BF16,
};
