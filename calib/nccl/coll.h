/*
 * NCCL collectives of dsec-calib run: all-reduce, all-gather,
 * reduce-scatter, all-to-all and send/recv over a size sweep, either one
 * process driving every local GPU (ncclCommInitAll) or one rank per GPU
 * under mpirun (MPI only broadcasts the NCCL unique id). Each collective's
 * results are written in nccl-tests' text format (docs/sources.md §10.1) with
 * algbw and busbw computed as nccl-tests does (docs/sources.md §3.3), so
 * `import` reads them like real nccl-tests logs. Built only with CUDA and NCCL.
 */
#ifndef CAL_NCCL_COLL_H
#define CAL_NCCL_COLL_H

#include <stddef.h>

#include "calib/run.h"

/* Runs the sweep and writes DIR/<name>_perf.log per collective (rank 0).
 * *files receives the paths written (caller frees each and the array).
 * Returns 0, or -1 with the failing NCCL or CUDA call in why. */
int cal_nccl_run(const char *dir, const struct cal_bench *b, char ***files,
                 int *nfiles, char *why, size_t whylen);

#endif /* CAL_NCCL_COLL_H */
