/*
 * ibverbs RDMA write bandwidth and latency of dsec-calib run, between the
 * two ranks of `mpirun -np 2` (MPI only exchanges the queue-pair
 * addresses), on one RDMA device such as the seed's mlx5_0. Results are
 * written in perftest's text format (ib_write_bw and ib_write_lat,
 * docs/sources.md §10.2) so that `import` reads them as it reads perftest.
 * Built only with ibverbs and MPI.
 */
#ifndef CAL_VERBS_RDMA_H
#define CAL_VERBS_RDMA_H

#include <stddef.h>

#include "calib/run.h"

/* Rank 0 writes the logs bw_path and lat_path. Returns 0, or -1 with the
 * failing verbs call in why (both ranks). */
int cal_verbs_run(const char *bw_path, const char *lat_path, const char *device,
                  const struct cal_bench *b, char *why, size_t whylen);

#endif /* CAL_VERBS_RDMA_H */
