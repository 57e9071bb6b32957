/*
 * Reads a Hugging Face config.json into a heap-allocated struct arch_spec,
 * so that any model of a supported architecture can be planned without a
 * catalog entry. The keys read, their defaults and the limits are listed in
 * docs/models.md; the shapes they describe are those of docs/sources.md §4.1
 * and the derived quantities (arch.h) work on the result as on a catalog entry.
 * Parsing is json-c's; the module has no state. Single-threaded.
 */
#ifndef ARCH_HF_H
#define ARCH_HF_H

#include <stddef.h>

#include "models/arch/arch.h"

/* Largest config.json read, in bytes (real ones are a few KiB). */
#define ARCH_HF_MAX_BYTES (4 << 20)

/*
 * Loads the config.json at path, or DIR/config.json when path is a
 * directory. The architecture is the first element of "architectures":
 * LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM (every layer
 * MoE), Qwen2ForCausalLM (QKV bias), Qwen3ForCausalLM (QK-norm),
 * Qwen2MoeForCausalLM, Qwen3MoeForCausalLM, DeepseekV2ForCausalLM,
 * DeepseekV3ForCausalLM (with index_* keys: DeepSeek-V3.2),
 * DeepseekV32ForCausalLM, and the plain GELU-MLP families PhiForCausalLM,
 * GPTNeoXForCausalLM and GPT2LMHeadModel (its n_* key names).
 * max_position_embeddings (GPT-2: n_positions) fills max_positions, 0 when
 * absent. The entry's name is the
 * basename of the directory holding the file, lower-cased
 * ("/m/Qwen3-32B/config.json" gives "qwen3-32b"); its summary and source
 * name the file and the architecture.
 *   path: a file or directory name (borrowed).
 *   out: receives the new entry on success; the caller frees it with
 *     arch_hf_free(). Unchanged on failure.
 *   why, whylen: on failure receive one line, without a newline, of the
 *     form "PATH:LINE:COL: error: MESSAGE" for JSON syntax errors (1-based,
 *     columns in bytes) and "PATH: error: MESSAGE" otherwise, e.g.
 *     "cfg/config.json: error: missing key 'num_hidden_layers'
 *     (LlamaForCausalLM)" or "cfg/config.json:2:3: error: architectures:
 *     'FalconForCausalLM' is not supported; supported: ...; dsec needs:
 *     ..." (an unknown architecture is placed at its key). Truncated to whylen;
 * why may be NULL when whylen is 0. Untouched on success. Returns 0; SIM_EIO if
 * the file cannot be read or exceeds ARCH_HF_MAX_BYTES; SIM_EPARSE for a JSON
 * syntax error or a top level that is not an object; SIM_EINVAL for an unknown
 * architecture or a missing, mistyped, out-of-range or unsupported key.
 */
int arch_hf_load(const char *path, struct arch_spec **out, char *why,
                 size_t whylen);

/* Frees an entry returned by arch_hf_load() (never a catalog entry) with
 * the strings it owns. arch_hf_free(NULL) is a no-op. */
void arch_hf_free(struct arch_spec *a);

/* The supported architecture names, sorted, NULL-terminated. Borrowed,
 * static. */
extern const char *const arch_hf_architectures[];

#endif /* ARCH_HF_H */
