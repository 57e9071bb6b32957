/*
 * Qwen2.5 72B (dense, GQA 64/8, biases on the q, k and v projections).
 * Shape from verbatim third-party copies of the Qwen2.5-72B-Instruct HF
 * config.json (Qwen2ForCausalLM, hidden 8192, intermediate 29568, 80
 * layers, 64/8 heads, vocab 152064, tie_word_embeddings false), via
 * docs/sources.md §4.1. 72,706,203,648 parameters (docs/sources.md §4.2).
 * Released in bf16.
 */
#include "models/arch/arch.h"

const struct arch_spec arch_qwen2_5_72b = {
    .name = "qwen2.5-72b",
    .summary = "Qwen2.5 72B: dense, 80 layers, hidden 8192, GQA 64/8, QKV "
               "bias, vocab 152064, 72.71B params (HF config copies via "
               "docs/sources.md §4.1)",
    .source = "Qwen/Qwen2.5-72B-Instruct config.json (third-party copies) "
              "via docs/sources.md §4.1, §4.2",
    .hf_repo = "Qwen/Qwen2.5-72B-Instruct",
    .layers = 80,
    .hidden = 8192,
    .heads = 64,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 29568,
    .vocab = 152064,
    .tied_embeddings = 0,
    .attn = ARCH_ATTN_GQA,
    .max_positions =
        32768, /* docs/sources.md §4.1: max_position_embeddings 32768 */
    .weight_dtype = CL_DTYPE_BF16,
    .qkv_bias = 1,
};
