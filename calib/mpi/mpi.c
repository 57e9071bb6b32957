/* MPI bootstrap for dsec-calib run (calib/mpi/mpi.h). */
#include <mpi.h>
#include <stdlib.h>

#include "calib/mpi/mpi.h"

static int bcast(void *buf, size_t bytes)
{
    return MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD) ==
                   MPI_SUCCESS
               ? 0
               : -1;
}

static int barrier(void)
{
    return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static int allgather(const void *in, void *out, size_t bytes)
{
    return MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE,
                         MPI_COMM_WORLD) == MPI_SUCCESS
               ? 0
               : -1;
}

int cal_mpi_init(struct cal_bench *b)
{
    int init = 0;

    MPI_Initialized(&init);
    if (!init && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return -1;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &b->rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &b->size) != MPI_SUCCESS)
        return -1;
    b->bcast = bcast;
    b->barrier = barrier;
    b->allgather = allgather;
    return 0;
}

int cal_mpi_local_rank(void)
{
    MPI_Comm local;
    int init = 0, r = 0;

    MPI_Initialized(&init);
    if (!init)
        return 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &local) != MPI_SUCCESS)
        return 0;
    MPI_Comm_rank(local, &r);
    MPI_Comm_free(&local);
    return r;
}

void cal_mpi_fini(void)
{
    int init = 0, fin = 0;

    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Finalize();
}
