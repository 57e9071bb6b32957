/*
 * A run's results as bytes, for sending them between MPI ranks: every field
 * of struct cl_results (models/cluster/results.h), in the order of its field
 * lists (results-fields.h), integers and the bit patterns of doubles in
 * little-endian order, strings and arrays with their lengths. Unpacking
 * gives back the very same values, bit for bit, so rank 0 writes exactly
 * what a local run would have written. Both ends must be the same build:
 * the layout changes with the lists. No state; reentrant.
 */
#ifndef SWP_WIRE_H
#define SWP_WIRE_H

#include <stddef.h>

#include "models/cluster/results.h"

/* Returns r packed into a new buffer of *len bytes; the caller frees it
 * with free(). r is borrowed. */
unsigned char *swp_results_pack(const struct cl_results *r, size_t *len);

/* Unpacks len bytes made by swp_results_pack() into *out (zeroed first; the
 * caller frees it with cl_results_fini()). Returns 0, or SIM_EPARSE when the
 * bytes are truncated, too long or inconsistent; *out is then zeroed. */
int swp_results_unpack(const unsigned char *p, size_t len,
                       struct cl_results *out);

#endif /* SWP_WIRE_H */
