/*
 * CUDA microbenchmarks of dsec-calib run: cuBLASLt GEMMs, HBM copy and
 * streaming read, pinned host<->device copies, peer copies. Each warms up
 * (CAL_RUN_WARMUP), times b->reps repetitions with CUDA events, checks
 * every CUDA and cuBLAS return code, and writes one raw log in the
 * dsec-calib format (docs/calibration.md "Raw logs"). Built only when
 * configure found CUDA; the kernels are in stream.cu (nvcc).
 */
#ifndef CAL_CUDA_BENCH_H
#define CAL_CUDA_BENCH_H

#include <stddef.h>
#include <stdio.h>

#ifndef __CUDACC__
#include "calib/run.h"

/* Checks that device exists: fills its name and the number of devices.
 * Returns 0, or -1 with the CUDA error in why ("no CUDA device: ..."). */
int cal_cuda_probe(int device, char *name, size_t len, int *ngpus, char *why,
                   size_t whylen);

/* The benchmarks: 0, or -1 with the failing call in why. */
int cal_cuda_gemm(FILE *log, const struct cal_bench *b, char *why,
                  size_t whylen);
int cal_cuda_hbm(FILE *log, const struct cal_bench *b, char *why,
                 size_t whylen);
int cal_cuda_pcie(FILE *log, const struct cal_bench *b, char *why,
                  size_t whylen);
int cal_cuda_p2p(FILE *log, const struct cal_bench *b, char *why,
                 size_t whylen);
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* Kernels (stream.cu). stream is a cudaStream_t. Each returns the
 * cudaError_t of its launch as an int. */
/* Fills bytes at p with a deterministic pattern of small values of the
 * element size elem (1: fp8 e4m3, 2: bf16, 4: float). */
int cal_cu_fill(void *p, size_t bytes, int elem, unsigned seed, void *stream);
/* Reads bytes (a multiple of 16) at p once, as a stream of 16-byte loads,
 * and writes one float per block to sink (so the loads are not removed);
 * sink holds at least cal_cu_read_blocks() floats. */
int cal_cu_read(const void *p, size_t bytes, float *sink, void *stream);
int cal_cu_read_blocks(void);
#ifdef __cplusplus
}
#endif

#endif /* CAL_CUDA_BENCH_H */
