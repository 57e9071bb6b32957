/* CUDA microbenchmarks of dsec-calib run (calib/cuda/bench.h).
 *
 * GEMM: cuBLASLt in the "TN" layout that FP8 requires (A transposed), the
 * same layout for bf16, FP32 accumulation, bf16 output; D(M x N) = A^T(M x
 * K) B(K x N) with M the tokens, as dsec prices a linear layer. FLOPs =
 * 2MNK. Shapes: the projections of Llama-3.1-8B and Llama-3.1-70B at tp 1
 * (config.json, docs/sources.md §4.1) over M from one decoding token to a long
 * prefill chunk.
 * HBM: cudaMemcpy device to device counts 2 x size (read + write, as
 * bandwidthTest does, docs/sources.md §10.4); the read kernel counts size.
 * Copies: pinned host memory (cudaMallocHost), one size each way per row.
 * Timing: CUDA events around each repetition on one stream, after
 * CAL_RUN_WARMUP untimed ones; median, min, max over the repetitions. */
/* The vendor headers trip -Wundef and -Wstrict-prototypes; they are not
 * ours to fix. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#include <cuda_runtime.h>
#pragma GCC diagnostic pop
#include <stdlib.h>
#include <string.h>

#include "calib/cuda/bench.h"
#include "base/xalloc.h"

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            snprintf(why, whylen, "%s: %s (%s:%d)", #call,                     \
                     cudaGetErrorString(e_), __FILE__, __LINE__);              \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

#define CKB(call)                                                              \
    do {                                                                       \
        cublasStatus_t s_ = (call);                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            snprintf(why, whylen, "%s: cuBLAS status %d (%s:%d)", #call,       \
                     (int)s_, __FILE__, __LINE__);                             \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

/* cuBLASLt workspace, as NVIDIA's samples use for Hopper. */
#define GEMM_WORKSPACE (32u << 20)

int cal_cuda_probe(int device, char *name, size_t len, int *ngpus, char *why,
                   size_t whylen)
{
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceCount(ngpus);

    if (e != cudaSuccess || *ngpus == 0) {
        snprintf(why, whylen,
                 "no CUDA device: cudaGetDeviceCount: %s (the suite needs a "
                 "GPU and its driver; import and fit work without)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return -1;
    }
    if (device >= *ngpus) {
        snprintf(why, whylen, "no CUDA device %d: %d present", device, *ngpus);
        return -1;
    }
    e = cudaGetDeviceProperties(&prop, device);
    if (e == cudaSuccess)
        e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        snprintf(why, whylen, "CUDA device %d: %s", device,
                 cudaGetErrorString(e));
        return -1;
    }
    snprintf(name, len, "%s", prop.name);
    return 0;
}

static void header(FILE *log, const char *kind, const struct cal_bench *b,
                   const char *columns)
{
    struct cudaDeviceProp prop;
    int rt = 0, drv = 0;

    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    memset(&prop, 0, sizeof(prop));
    cudaGetDeviceProperties(&prop, b->device);
    fprintf(log, "# dsec-calib %s 1\n# date: %s\n# host: %s\n", kind, b->date,
            b->host);
    fprintf(log,
            "# device: %d %s sm_%d%d, %d SMs, CUDA runtime %d, driver "
            "%d\n",
            b->device, prop.name, prop.major, prop.minor,
            prop.multiProcessorCount, rt, drv);
    fprintf(log, "# warmup %d, reps %d; times are per operation\n",
            CAL_RUN_WARMUP, b->reps);
    fprintf(log, "# columns: %s\n", columns);
}

/* One timed GEMM configuration. Returns 0 or -1 (why). */
struct gemm_ctx {
    cublasLtHandle_t lt;
    void *ws;
    cudaStream_t st;
    cudaEvent_t e0, e1;
};

static int gemm_one(struct gemm_ctx *g, int fp8, long m, long n, long k,
                    const void *A, const void *B, void *D, int reps,
                    double *times, char *why, size_t whylen)
{
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, ld = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heur;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    size_t wsz = GEMM_WORKSPACE;
    float alpha = 1.0f, beta = 0.0f;
    int nres = 0, rc = -1;

    CKB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                       sizeof(ta)));
    CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                       sizeof(tb)));
    /* A^T is M x K: stored K x M, leading dimension K. */
    CKB(cublasLtMatrixLayoutCreate(&la, in, (uint64_t)k, (uint64_t)m, k));
    CKB(cublasLtMatrixLayoutCreate(&lb, in, (uint64_t)k, (uint64_t)n, k));
    CKB(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, (uint64_t)m, (uint64_t)n,
                                   m));
    CKB(cublasLtMatmulPreferenceCreate(&pref));
    CKB(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof(wsz)));
    CKB(cublasLtMatmulAlgoGetHeuristic(g->lt, op, la, lb, ld, ld, pref, 1,
                                       &heur, &nres));
    if (nres < 1) {
        snprintf(why, whylen, "cuBLASLt has no algorithm for %s %ldx%ldx%ld",
                 fp8 ? "fp8" : "bf16", m, n, k);
        goto fail;
    }
    for (int r = -CAL_RUN_WARMUP; r < reps; r++) {
        float ms = 0;

        CK(cudaEventRecord(g->e0, g->st));
        CKB(cublasLtMatmul(g->lt, op, &alpha, A, la, B, lb, &beta, D, ld, D, ld,
                           &heur.algo, g->ws, wsz, g->st));
        CK(cudaEventRecord(g->e1, g->st));
        CK(cudaEventSynchronize(g->e1));
        CK(cudaEventElapsedTime(&ms, g->e0, g->e1));
        if (r >= 0)
            times[r] = ms * 1e3;
    }
    rc = 0;
fail:
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (ld)
        cublasLtMatrixLayoutDestroy(ld);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (op)
        cublasLtMatmulDescDestroy(op);
    return rc;
}

int cal_cuda_gemm(FILE *log, const struct cal_bench *b, char *why,
                  size_t whylen)
{
    /* (N, K) of the projections: Llama-3.1-8B QKV (4096 + 2*1024 = 6144,
     * 4096), O (4096, 4096), gate+up (2*14336, 4096), down (4096, 14336);
     * Llama-3.1-70B QKV (8192 + 2*1024, 8192), down (8192, 28672). */
    static const long nk_full[][2] = {{6144, 4096},  {4096, 4096},
                                      {28672, 4096}, {4096, 14336},
                                      {10240, 8192}, {8192, 28672}};
    static const long nk_quick[][2] = {{6144, 4096}, {4096, 14336}};
    static const long m_full[] = {1,   2,   4,   8,    16,   32,   64,
                                  128, 256, 512, 1024, 2048, 4096, 8192};
    static const long m_quick[] = {1, 8, 32, 128, 512, 2048, 8192};
    const long(*nk)[2] = b->quick ? nk_quick : nk_full;
    int nnk = b->quick ? 2 : 6;
    const long *ms = b->quick ? m_quick : m_full;
    int nm = b->quick ? 7 : 14;
    struct gemm_ctx g;
    struct cudaDeviceProp prop;
    void *A = NULL, *B = NULL, *D = NULL;
    double *t = xcalloc((size_t)b->reps, sizeof(double));
    size_t maxa = 0, maxb = 0, maxd = 0;
    int rc = -1, have_fp8;

    memset(&g, 0, sizeof(g));
    CK(cudaGetDeviceProperties(&prop, b->device));
    /* FP8 tensor cores: Ada (sm_89) and Hopper (sm_90) onwards. */
    have_fp8 = prop.major * 10 + prop.minor >= 89;
    for (int i = 0; i < nnk; i++)
        for (int j = 0; j < nm; j++) {
            size_t a = (size_t)ms[j] * nk[i][1] * 2;
            size_t bb = (size_t)nk[i][1] * nk[i][0] * 2;
            size_t d = (size_t)ms[j] * nk[i][0] * 2;
            maxa = a > maxa ? a : maxa;
            maxb = bb > maxb ? bb : maxb;
            maxd = d > maxd ? d : maxd;
        }
    CK(cudaStreamCreate(&g.st));
    CK(cudaEventCreate(&g.e0));
    CK(cudaEventCreate(&g.e1));
    CK(cudaMalloc(&A, maxa));
    CK(cudaMalloc(&B, maxb));
    CK(cudaMalloc(&D, maxd));
    CK(cudaMalloc(&g.ws, GEMM_WORKSPACE));
    CKB(cublasLtCreate(&g.lt));
    header(log, "gemm", b, "dtype m n k reps median_us min_us max_us tflops");
    for (int fp8 = 0; fp8 <= have_fp8; fp8++) {
        int elem = fp8 ? 1 : 2;

        CK((cudaError_t)cal_cu_fill(A, maxa, elem, 1u, g.st));
        CK((cudaError_t)cal_cu_fill(B, maxb, elem, 2u, g.st));
        CK(cudaStreamSynchronize(g.st));
        for (int i = 0; i < nnk; i++)
            for (int j = 0; j < nm; j++) {
                double med, mn, mx;
                long m = ms[j], n = nk[i][0], k = nk[i][1];

                if (gemm_one(&g, fp8, m, n, k, A, B, D, b->reps, t, why,
                             whylen) != 0)
                    goto fail;
                cal_stats(t, b->reps, &med, &mn, &mx);
                fprintf(log, "%s %ld %ld %ld %d %.3f %.3f %.3f %.2f\n",
                        fp8 ? "fp8" : "bf16", m, n, k, b->reps, med, mn, mx,
                        2.0 * m * n * k / (med * 1e6));
                fflush(log);
            }
    }
    rc = 0;
fail:
    if (g.lt)
        cublasLtDestroy(g.lt);
    cudaFree(g.ws);
    cudaFree(A);
    cudaFree(B);
    cudaFree(D);
    if (g.e0)
        cudaEventDestroy(g.e0);
    if (g.e1)
        cudaEventDestroy(g.e1);
    if (g.st)
        cudaStreamDestroy(g.st);
    free(t);
    return rc;
}

int cal_cuda_hbm(FILE *log, const struct cal_bench *b, char *why, size_t whylen)
{
    /* 1 MiB .. 4 GiB (quick: 1 GiB) by 4x: from L2-resident (50 MB L2 on
     * H100, docs/sources.md §1.1 sources) to far past it. */
    size_t maxb = b->quick ? (1ul << 30) : (4ul << 30);
    void *src = NULL, *dst = NULL;
    float *sink = NULL;
    cudaStream_t st = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = xcalloc((size_t)b->reps, sizeof(double));
    int rc = -1;

    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMalloc(&src, maxb));
    CK(cudaMalloc(&dst, maxb));
    CK(cudaMalloc((void **)&sink, sizeof(float) * cal_cu_read_blocks()));
    CK((cudaError_t)cal_cu_fill(src, maxb, 4, 3u, st));
    CK(cudaStreamSynchronize(st));
    header(log, "hbm", b, "op bytes reps median_us min_us max_us gbps");
    for (int kind = 0; kind < 2; kind++)
        for (size_t size = 1ul << 20; size <= maxb; size *= 4) {
            double med, mn, mx, moved = kind == 0 ? 2.0 * size : (double)size;

            for (int r = -CAL_RUN_WARMUP; r < b->reps; r++) {
                float ms = 0;

                CK(cudaEventRecord(e0, st));
                if (kind == 0)
                    CK(cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice,
                                       st));
                else
                    CK((cudaError_t)cal_cu_read(src, size, sink, st));
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r >= 0)
                    t[r] = ms * 1e3;
            }
            cal_stats(t, b->reps, &med, &mn, &mx);
            fprintf(log, "%s %.0f %d %.3f %.3f %.3f %.2f\n",
                    kind == 0 ? "copy" : "read", moved, b->reps, med, mn, mx,
                    moved / (med * 1e3));
            fflush(log);
        }
    rc = 0;
fail:
    cudaFree(src);
    cudaFree(dst);
    cudaFree(sink);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
    free(t);
    return rc;
}

/* Times reps copies of size bytes with cudaMemcpyPeerAsync or
 * cudaMemcpyAsync (peer < 0). */
static int time_copy(void *dst, int dstdev, const void *src, int srcdev,
                     int peer, enum cudaMemcpyKind kind, size_t size,
                     cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1, int reps,
                     double *t, char *why, size_t whylen)
{
    for (int r = -CAL_RUN_WARMUP; r < reps; r++) {
        float ms = 0;

        CK(cudaEventRecord(e0, st));
        if (peer)
            CK(cudaMemcpyPeerAsync(dst, dstdev, src, srcdev, size, st));
        else
            CK(cudaMemcpyAsync(dst, src, size, kind, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0)
            t[r] = ms * 1e3;
    }
    return 0;
fail:
    return -1;
}

int cal_cuda_pcie(FILE *log, const struct cal_bench *b, char *why,
                  size_t whylen)
{
    size_t maxb = b->quick ? (256ul << 20) : (1ul << 30);
    void *host = NULL, *dev = NULL;
    cudaStream_t st = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = xcalloc((size_t)b->reps, sizeof(double));
    int rc = -1;

    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMallocHost(&host, maxb));
    CK(cudaMalloc(&dev, maxb));
    memset(host, 1, maxb);
    header(log, "copy", b, "op device bytes reps median_us min_us max_us gbps");
    for (int dir = 0; dir < 2; dir++)
        for (size_t size = 4096; size <= maxb; size *= 4) {
            double med, mn, mx;

            if (time_copy(dir ? host : dev, 0, dir ? dev : host, 0, 0,
                          dir ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice,
                          size, st, e0, e1, b->reps, t, why, whylen) != 0)
                goto fail;
            cal_stats(t, b->reps, &med, &mn, &mx);
            fprintf(log, "%s %d %zu %d %.3f %.3f %.3f %.2f\n",
                    dir ? "d2h" : "h2d", b->device, size, b->reps, med, mn, mx,
                    size / (med * 1e3));
            fflush(log);
        }
    rc = 0;
fail:
    cudaFreeHost(host);
    cudaFree(dev);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
    free(t);
    return rc;
}

int cal_cuda_p2p(FILE *log, const struct cal_bench *b, char *why, size_t whylen)
{
    size_t maxb = b->quick ? (256ul << 20) : (1ul << 30);
    int n = 0, can = 0, peer = b->device == 0 ? 1 : 0;
    void *src = NULL, *dst = NULL;
    cudaStream_t st = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = xcalloc((size_t)b->reps, sizeof(double));
    int rc = -1;

    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        snprintf(why, whylen, "p2p needs 2 GPUs, %d present", n);
        goto fail;
    }
    CK(cudaDeviceCanAccessPeer(&can, b->device, peer));
    if (can) {
        cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
            CK(e);
        cudaGetLastError();
    }
    CK(cudaSetDevice(peer));
    CK(cudaMalloc(&dst, maxb));
    CK(cudaSetDevice(b->device));
    CK(cudaMalloc(&src, maxb));
    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    header(log, "copy", b,
           "op src dst bytes reps median_us min_us max_us gbps");
    fprintf(log, "# peer access %s\n",
            can ? "enabled"
                : "not supported "
                  "(staged copies)");
    for (size_t size = 4096; size <= maxb; size *= 4) {
        double med, mn, mx;

        if (time_copy(dst, peer, src, b->device, 1, cudaMemcpyDefault, size, st,
                      e0, e1, b->reps, t, why, whylen) != 0)
            goto fail;
        cal_stats(t, b->reps, &med, &mn, &mx);
        fprintf(log, "p2p %d %d %zu %d %.3f %.3f %.3f %.2f\n", b->device, peer,
                size, b->reps, med, mn, mx, size / (med * 1e3));
        fflush(log);
    }
    rc = 0;
fail:
    cudaFree(src);
    if (dst) {
        cudaSetDevice(peer);
        cudaFree(dst);
        cudaSetDevice(b->device);
    }
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
    free(t);
    return rc;
}
