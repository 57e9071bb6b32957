/*
 * Llama 2 70B (dense, GQA 64/8, 4K context). Shape from the Hugging Face
 * config values (hidden 8192, intermediate 28672, 64/8 heads, 80 layers,
 * vocab 32000, tie_word_embeddings false) as copied in third-party repos and
 * in microsoft/vidur vidur/config/model_config.py (which pads the vocab to
 * 32768; we do not), all via docs/sources.md §4.1. Not from llama-models
 * sku_list.py, whose Llama 2 entries docs/sources.md §4.1 flags as unreliable.
 * 68,976,648,192 parameters (docs/sources.md §4.2). Released in 16-bit.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_llama_2_70b = {
    .name = "llama-2-70b",
    .summary = "Llama 2 70B: dense, 80 layers, hidden 8192, GQA 64/8, vocab "
               "32000, 68.98B params (HF config copies, microsoft/vidur via "
               "docs/sources.md §4.1)",
    .source = "HF config.json copies and microsoft/vidur "
              "vidur/config/model_config.py via docs/sources.md §4.1, §4.2",
    .layers = 80,
    .hidden = 8192,
    .heads = 64,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 28672,
    .vocab = 32000,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .max_positions = 4096, /* docs/sources.md §4.1: ctx 4096 */
    .weight_dtype = CL_DTYPE_BF16,
};
