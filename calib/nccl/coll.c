/* NCCL collectives of dsec-calib run (calib/nccl/coll.h). Timing: CUDA
 * events around each call on every local GPU's stream, the slowest GPU
 * (and under MPI the slowest rank) counting, median over the repetitions;
 * #wrong is N/A (no data check). */
/* The vendor headers trip -Wundef and -Wstrict-prototypes; they are not
 * ours to fix. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cuda_runtime.h>
#include <nccl.h>
#pragma GCC diagnostic pop
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/nccl/coll.h"
#include "base/xalloc.h"

#define MAXG 16

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            snprintf(why, whylen, "%s: %s", #call, cudaGetErrorString(e_));    \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

#define CKN(call)                                                              \
    do {                                                                       \
        ncclResult_t r_ = (call);                                              \
        if (r_ != ncclSuccess) {                                               \
            snprintf(why, whylen, "%s: %s", #call, ncclGetErrorString(r_));    \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

enum coll { C_ALLREDUCE, C_ALLGATHER, C_REDUCESCATTER, C_ALLTOALL, C_SENDRECV };

static const char *const coll_name[] = {"all_reduce_perf", "all_gather_perf",
                                        "reduce_scatter_perf", "alltoall_perf",
                                        "sendrecv_perf"};

/* nccl-tests' bus-bandwidth factors (doc/PERFORMANCE.md @ a0b82b22 via
 * docs/sources.md §3.3). */
static double bus_factor(enum coll c, int n)
{
    switch (c) {
    case C_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case C_ALLGATHER:
    case C_REDUCESCATTER:
    case C_ALLTOALL:
        return (double)(n - 1) / n;
    default:
        return 1.0;
    }
}

struct nctx {
    int nlocal, nranks, rank0; /* local GPUs, all ranks, first local rank */
    int dev[MAXG];
    ncclComm_t comm[MAXG];
    cudaStream_t st[MAXG];
    cudaEvent_t e0[MAXG], e1[MAXG];
    char *send[MAXG], *recv[MAXG];
};

/* Launches one collective of count floats (the nccl-tests count) on every
 * local GPU. */
static ncclResult_t launch(struct nctx *c, enum coll k, size_t count,
                           int inplace)
{
    ncclResult_t r = ncclGroupStart();
    size_t chunk = count / c->nranks;

    for (int i = 0; i < c->nlocal && r == ncclSuccess; i++) {
        int rank = c->rank0 + i;
        char *s = c->send[i], *d = inplace ? c->send[i] : c->recv[i];

        switch (k) {
        case C_ALLREDUCE:
            r = ncclAllReduce(s, d, count, ncclFloat, ncclSum, c->comm[i],
                              c->st[i]);
            break;
        case C_ALLGATHER:
            /* In place: each rank's share already sits at its offset. */
            r = ncclAllGather(inplace ? d + rank * chunk * 4 : s, d, chunk,
                              ncclFloat, c->comm[i], c->st[i]);
            break;
        case C_REDUCESCATTER:
            r = ncclReduceScatter(s, inplace ? s + rank * chunk * 4 : d, chunk,
                                  ncclFloat, ncclSum, c->comm[i], c->st[i]);
            break;
        case C_ALLTOALL:
            for (int p = 0; p < c->nranks && r == ncclSuccess; p++) {
                r = ncclSend(s + p * chunk * 4, chunk, ncclFloat, p, c->comm[i],
                             c->st[i]);
                if (r == ncclSuccess)
                    r = ncclRecv(d + p * chunk * 4, chunk, ncclFloat, p,
                                 c->comm[i], c->st[i]);
            }
            break;
        case C_SENDRECV:
            r = ncclSend(s, count, ncclFloat, (rank + 1) % c->nranks,
                         c->comm[i], c->st[i]);
            if (r == ncclSuccess)
                r = ncclRecv(d, count, ncclFloat,
                             (rank - 1 + c->nranks) % c->nranks, c->comm[i],
                             c->st[i]);
            break;
        }
    }
    ncclResult_t e = ncclGroupEnd();
    return r != ncclSuccess ? r : e;
}

/* Median time (us) of reps calls, the slowest local GPU per call. */
static int time_coll(struct nctx *c, const struct cal_bench *b, enum coll k,
                     size_t count, int inplace, double *t, double *med,
                     char *why, size_t whylen)
{
    double mn, mx;

    for (int r = -CAL_RUN_WARMUP; r < b->reps; r++) {
        double worst = 0;

        for (int i = 0; i < c->nlocal; i++) {
            CK(cudaSetDevice(c->dev[i]));
            CK(cudaEventRecord(c->e0[i], c->st[i]));
        }
        CKN(launch(c, k, count, inplace));
        for (int i = 0; i < c->nlocal; i++) {
            float ms = 0;

            CK(cudaSetDevice(c->dev[i]));
            CK(cudaEventRecord(c->e1[i], c->st[i]));
            CK(cudaEventSynchronize(c->e1[i]));
            CK(cudaEventElapsedTime(&ms, c->e0[i], c->e1[i]));
            worst = ms * 1e3 > worst ? ms * 1e3 : worst;
        }
        if (r >= 0)
            t[r] = worst;
    }
    cal_stats(t, b->reps, med, &mn, &mx);
    if (b->size > 1 && b->allgather) {
        double *all = xcalloc((size_t)b->size, sizeof(double));

        if (b->allgather(med, all, sizeof(double)) != 0) {
            free(all);
            snprintf(why, whylen, "MPI_Allgather of the times failed");
            return -1;
        }
        for (int i = 0; i < b->size; i++)
            *med = all[i] > *med ? all[i] : *med;
        free(all);
    }
    return 0;
fail:
    return -1;
}

int cal_nccl_run(const char *dir, const struct cal_bench *b, char ***files,
                 int *nfiles, char *why, size_t whylen)
{
    struct nctx c;
    size_t maxb = b->quick ? (256ul << 20) : (1ul << 30);
    size_t minb = b->quick ? 1024 : 8;
    int step = b->quick ? 4 : 2, rc = -1, ngpu = 0;
    double *t = xcalloc((size_t)b->reps, sizeof(double));
    char(*hosts)[64] = NULL;
    int *devs = NULL;
    char host[64];

    memset(&c, 0, sizeof(c));
    *files = NULL;
    *nfiles = 0;
    if (b->size > 1) {
        ncclUniqueId id;

        c.nlocal = 1;
        c.nranks = b->size;
        c.rank0 = b->rank;
        c.dev[0] = b->device;
        if (b->rank == 0)
            CKN(ncclGetUniqueId(&id));
        if (b->bcast(&id, sizeof(id)) != 0) {
            snprintf(why, whylen, "MPI_Bcast of the NCCL unique id failed");
            goto fail;
        }
        CK(cudaSetDevice(b->device));
        CKN(ncclCommInitRank(&c.comm[0], b->size, id, b->rank));
    } else {
        CK(cudaGetDeviceCount(&ngpu));
        c.nlocal = ngpu > MAXG ? MAXG : ngpu;
        c.nranks = c.nlocal;
        for (int i = 0; i < c.nlocal; i++)
            c.dev[i] = i;
        CKN(ncclCommInitAll(c.comm, c.nlocal, c.dev));
    }
    for (int i = 0; i < c.nlocal; i++) {
        CK(cudaSetDevice(c.dev[i]));
        CK(cudaStreamCreate(&c.st[i]));
        CK(cudaEventCreate(&c.e0[i]));
        CK(cudaEventCreate(&c.e1[i]));
        CK(cudaMalloc((void **)&c.send[i], maxb));
        CK(cudaMalloc((void **)&c.recv[i], maxb));
        CK(cudaMemset(c.send[i], 0, maxb));
    }
    /* Every rank's host and device, for the "# Rank" lines. */
    hosts = xcalloc((size_t)c.nranks, sizeof(*hosts));
    devs = xcalloc((size_t)c.nranks, sizeof(int));
    snprintf(host, sizeof(host), "%s", b->host);
    if (b->size > 1) {
        if (b->allgather(host, hosts, sizeof(host)) != 0 ||
            b->allgather(&b->device, devs, sizeof(int)) != 0) {
            snprintf(why, whylen, "MPI_Allgather of the hosts failed");
            goto fail;
        }
    } else {
        for (int i = 0; i < c.nranks; i++) {
            snprintf(hosts[i], sizeof(hosts[i]), "%s", host);
            devs[i] = c.dev[i];
        }
    }
    for (int k = 0; k < 5; k++) {
        FILE *log = NULL;
        char *path = xasprintf("%s/%s.log", dir, coll_name[k]);
        double sum_bus = 0;
        int nrows = 0;

        if (b->rank == 0) {
            log = fopen(path, "w");
            if (!log) {
                snprintf(why, whylen, "cannot write %s", path);
                free(path);
                goto fail;
            }
            fprintf(log,
                    "# nThread 1 nGpus %d minBytes %zu maxBytes %zu step: "
                    "%d(factor) warmup iters: %d iters: %d agg iters: 1 "
                    "validation: 0 graph: 0\n#\n# Using devices\n",
                    c.nlocal, minb, maxb, step, CAL_RUN_WARMUP, b->reps);
            for (int r = 0; r < c.nranks; r++) {
                struct cudaDeviceProp prop;

                memset(&prop, 0, sizeof(prop));
                cudaGetDeviceProperties(&prop, devs[r]);
                fprintf(log,
                        "#  Rank %2d Group  0 Pid %6d on %10s device %2d "
                        "[0x%02x] %s\n",
                        r, (int)getpid(), hosts[r], devs[r], prop.pciBusID,
                        prop.name);
            }
            fprintf(log,
                    "#\n# dsec-calib run, %s\n#\n"
                    "#                                                      "
                    "        out-of-place                       in-place\n"
                    "#       size         count      type   redop    root   "
                    "  time   algbw   busbw #wrong     time   algbw   busbw "
                    "#wrong\n"
                    "#        (B)    (elements)                               "
                    "(us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n",
                    b->date);
        }
        for (size_t s = minb; s <= maxb; s *= (size_t)step) {
            size_t count = s / 4;
            double tm[2];

            /* The per-rank share must be whole elements. */
            if (k != C_ALLREDUCE && k != C_SENDRECV)
                count -= count % (size_t)c.nranks;
            if (count == 0)
                continue;
            for (int ip = 0; ip < 2; ip++)
                if (time_coll(&c, b, (enum coll)k, count, ip, t, &tm[ip], why,
                              whylen) != 0) {
                    if (log)
                        fclose(log);
                    free(path);
                    goto fail;
                }
            if (log) {
                double bytes = (double)count * 4;
                double f = bus_factor((enum coll)k, c.nranks);

                fprintf(log, "%12.0f  %12zu     float  %6s  %6d", bytes, count,
                        k == C_ALLREDUCE || k == C_REDUCESCATTER ? "sum"
                                                                 : "none",
                        -1);
                for (int ip = 0; ip < 2; ip++) {
                    double alg = bytes / (tm[ip] * 1e3);
                    fprintf(log, "  %7.2f  %6.2f  %6.2f  %5s", tm[ip], alg,
                            alg * f, "N/A");
                    if (ip == 0) {
                        sum_bus += alg * f;
                        nrows++;
                    }
                }
                fputc('\n', log);
                fflush(log);
            }
        }
        if (log) {
            fprintf(log,
                    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "
                    "%g \n#\n# Collective test concluded: %s\n",
                    nrows ? sum_bus / nrows : 0.0, coll_name[k]);
            fclose(log);
            *files = xrealloc(*files, (size_t)*nfiles + 1, sizeof(char *));
            (*files)[(*nfiles)++] = path;
        } else {
            free(path);
        }
    }
    rc = 0;
fail:
    for (int i = 0; i < c.nlocal; i++) {
        cudaSetDevice(c.dev[i]);
        if (c.comm[i])
            ncclCommDestroy(c.comm[i]);
        cudaFree(c.send[i]);
        cudaFree(c.recv[i]);
        if (c.e0[i])
            cudaEventDestroy(c.e0[i]);
        if (c.e1[i])
            cudaEventDestroy(c.e1[i]);
        if (c.st[i])
            cudaStreamDestroy(c.st[i]);
    }
    free(hosts);
    free(devs);
    free(t);
    return rc;
}
