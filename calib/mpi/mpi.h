/*
 * MPI for dsec-calib run: only the bootstrap of multi-rank benchmarks (the
 * NCCL unique id, the verbs queue-pair addresses) and barriers; no data
 * moves through MPI. Built only when configure found MPI.
 */
#ifndef CAL_MPI_MPI_H
#define CAL_MPI_MPI_H

#include "calib/run.h"

/* MPI_Init; fills b->rank, b->size and the bcast, barrier and allgather
 * hooks. Returns 0 or -1. */
int cal_mpi_init(struct cal_bench *b);

/* The rank's index among the ranks of its node (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED), 0 when MPI is not initialised. */
int cal_mpi_local_rank(void);

/* MPI_Finalize (when initialised). */
void cal_mpi_fini(void);

#endif /* CAL_MPI_MPI_H */
