/*
 * dsec-calib run: the interface between the driver (calib/run.c) and the
 * microbenchmarks under calib/cuda, calib/nccl, calib/verbs and calib/mpi,
 * each compiled only when configure found its library. Benchmarks write
 * raw logs (docs/calibration.md "Raw logs": the dsec-calib format for
 * GEMM, HBM and copies, nccl-tests' format for collectives, perftest's for
 * RDMA) that the driver then imports, so `fit` treats measured and
 * imported data alike. Times are microseconds, sizes bytes. Each function
 * returns 0, or -1 with a one-line reason in why.
 */
#ifndef CAL_RUN_H
#define CAL_RUN_H

#include <stddef.h>
#include <stdio.h>

/* Repetitions and warm-up of each measurement. */
#define CAL_RUN_WARMUP 5
#define CAL_RUN_REPS 30
#define CAL_RUN_REPS_QUICK 10

/* What one benchmark needs to know. */
struct cal_bench {
    int device;       /* CUDA device of this process */
    int quick;        /* smaller sweeps */
    int reps;         /* timed repetitions per point */
    const char *date; /* ISO 8601 date for the log header */
    const char *host; /* this node's name */
    /* MPI: rank and size (0 and 1 without MPI); bcast of bytes from rank
     * 0 and a barrier, NULL without MPI. */
    int rank, size;
    int (*bcast)(void *buf, size_t bytes);
    int (*barrier)(void);
    int (*allgather)(const void *in, void *out, size_t bytes);
};

/* Median, minimum and maximum of n samples (sorted in place). */
void cal_stats(double *v, int n, double *median, double *min, double *max);

#endif /* CAL_RUN_H */
