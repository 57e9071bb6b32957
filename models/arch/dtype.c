/* The names of the data types (see dtype.h), written once for every
 * parameter table that offers a choice of them. */
#include "models/arch/dtype.h"

#include <stddef.h>

const struct sim_param_choice arch_dtype_choices[] = {
    {"bf16", CL_DTYPE_BF16},
    {"fp8", CL_DTYPE_FP8},
    {"int4", CL_DTYPE_INT4},
    {NULL, 0},
};

const struct sim_param_choice arch_dtype_float_choices[] = {
    {"bf16", CL_DTYPE_BF16},
    {"fp8", CL_DTYPE_FP8},
    {NULL, 0},
};
