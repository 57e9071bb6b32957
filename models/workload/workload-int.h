/*
 * Internals shared by the files of models/workload/: the two source kinds
 * behind the dispatch in source.c, and helpers they share. Not part of the
 * contract; only source.c and the kind files include it. Single-threaded.
 */
#ifndef WL_WORKLOAD_INT_H
#define WL_WORKLOAD_INT_H

#include <stdint.h>

#include "models/cluster/config.h"
#include "models/workload/source.h"
#include "sim/diag.h"
#include "sim/loop.h"

struct wl__synthetic;
struct wl__azure;

/* Checks cfg->synthetic and takes the three streams from loop (borrowed).
 * Returns NULL with an error in d on a bad configuration. Caller frees with
 * wl__synthetic_free(). */
struct wl__synthetic *wl__synthetic_new(const struct cl_workload *cfg,
                                        struct sim_loop *loop,
                                        struct sim_diag *d);

/* Returns 0 with *out filled, or SIM_EEOF (out unchanged). */
int wl__synthetic_next(struct wl__synthetic *s, struct wl_request *out);

/* Frees s. NULL is a no-op. */
void wl__synthetic_free(struct wl__synthetic *s);

/* Opens path (already resolved against the base directory; copied) and
 * checks its header. Returns NULL with an error in d on failure. Caller
 * frees with wl__azure_free(). */
struct wl__azure *wl__azure_new(const struct cl_workload *cfg, const char *path,
                                struct sim_diag *d);

/* Returns 0 with *out filled, SIM_EEOF, SIM_EPARSE or SIM_EIO (with a
 * diagnostic in d); out is unchanged on a non-zero return. */
int wl__azure_next(struct wl__azure *a, struct wl_request *out,
                   struct sim_diag *d);

/* Closes the file and frees a. NULL is a no-op. */
void wl__azure_free(struct wl__azure *a);

/* Joins base_dir and path: path itself when it is absolute or base_dir is
 * NULL or empty. Caller frees with free(). */
char *wl__path_join(const char *base_dir, const char *path);

/* Rounds a sampled token count to the nearest integer and clamps it to
 * [1, WL_TOKENS_MAX]; NaN gives 1. */
int64_t wl__tokens_round(double x);

#endif /* WL_WORKLOAD_INT_H */
