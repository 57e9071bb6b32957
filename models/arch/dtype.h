/*
 * Data types of weights, GEMMs and the KV cache: the one enum that the
 * architecture catalog (a checkpoint's weight type), the step-time and
 * layout models and the scenario's deploy and training sections share, and
 * the name tables their parameter rows read. The enum keeps the cl_ names
 * it had when it lived in the cluster's scenario header, so that its uses
 * across the tree did not change. Read-only data; no state.
 */
#ifndef ARCH_DTYPE_H
#define ARCH_DTYPE_H

#include "base/param.h"

/* A numeric format of weights, activations or KV entries. */
enum cl_dtype {
    CL_DTYPE_BF16,
    CL_DTYPE_FP8,
    CL_DTYPE_INT4, /* weights only: 4-bit weights, 16-bit activations */
};

/* Names of every type for enum rows, alphabetical: bf16, fp8, int4 (the
 * weight types). Ends with a NULL name. */
extern const struct sim_param_choice arch_dtype_choices[];

/* Names of the floating-point types, bf16 and fp8: those a KV cache or a
 * training GEMM can use. Ends with a NULL name. */
extern const struct sim_param_choice arch_dtype_float_choices[];

#endif /* ARCH_DTYPE_H */
