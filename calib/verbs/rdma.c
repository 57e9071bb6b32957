/* ibverbs RDMA write benchmarks of dsec-calib run (calib/verbs/rdma.h),
 * after perftest's ib_write_lat and ib_write_bw (linux-rdma/perftest @
 * 00b55b66 via docs/sources.md §10.2): one RC queue pair per rank, port 1, GID
 * index 0 when the port has no LID (RoCE).
 * Latency: ping-pong of RDMA writes, each side polling the last byte of
 * its receive region; one-way time = round trip / 2 (perftest's
 * rtt_factor 2 for write). Bandwidth: rank 0 keeps CAL_TX_DEPTH writes in
 * flight and counts bytes over the run; MiB = 2^20 as perftest prints. */
#include <infiniband/verbs.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib/verbs/rdma.h"
#include "base/xalloc.h"

#define CAL_MAX_MSG (1u << 23) /* perftest -a: 2 .. 2^23 bytes */
#define CAL_TX_DEPTH 128

struct peer {
    uint32_t qpn, psn, rkey;
    uint16_t lid;
    uint64_t addr;
    uint8_t gid[16];
};

struct vctx {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    uint8_t *buf; /* send region, then receive region */
    struct peer me, other;
    int gid_route;
};

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int setup(struct vctx *v, const char *device, const struct cal_bench *b,
                 char *why, size_t whylen)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_port_attr port;
    struct ibv_qp_init_attr qia;
    struct ibv_qp_attr a;
    struct peer all[2];
    union ibv_gid gid;
    int rc = -1;

    if (!list) {
        snprintf(why, whylen, "ibv_get_device_list failed: no RDMA devices");
        return -1;
    }
    for (int i = 0; list[i]; i++)
        if (strcmp(ibv_get_device_name(list[i]), device) == 0)
            v->ctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    if (!v->ctx) {
        snprintf(why, whylen, "RDMA device %s not found or cannot be opened",
                 device);
        return -1;
    }
    if (ibv_query_port(v->ctx, 1, &port) != 0) {
        snprintf(why, whylen, "ibv_query_port(%s, 1) failed", device);
        return -1;
    }
    v->buf = aligned_alloc(4096, 2 * (size_t)CAL_MAX_MSG);
    if (!v->buf) {
        snprintf(why, whylen, "out of memory for the RDMA buffers");
        return -1;
    }
    memset(v->buf, 0, 2 * (size_t)CAL_MAX_MSG);
    v->pd = ibv_alloc_pd(v->ctx);
    if (v->pd)
        v->mr = ibv_reg_mr(v->pd, v->buf, 2 * (size_t)CAL_MAX_MSG,
                           IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (v->mr)
        v->cq = ibv_create_cq(v->ctx, 2 * CAL_TX_DEPTH, NULL, NULL, 0);
    if (!v->cq) {
        snprintf(why, whylen,
                 "ibv_alloc_pd, ibv_reg_mr or ibv_create_cq "
                 "failed");
        return -1;
    }
    memset(&qia, 0, sizeof(qia));
    qia.send_cq = qia.recv_cq = v->cq;
    qia.qp_type = IBV_QPT_RC;
    qia.cap.max_send_wr = CAL_TX_DEPTH;
    qia.cap.max_recv_wr = 1;
    qia.cap.max_send_sge = qia.cap.max_recv_sge = 1;
    v->qp = ibv_create_qp(v->pd, &qia);
    if (!v->qp) {
        snprintf(why, whylen, "ibv_create_qp failed");
        return -1;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
    if (ibv_modify_qp(v->qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                          IBV_QP_ACCESS_FLAGS) != 0) {
        snprintf(why, whylen, "ibv_modify_qp to INIT failed");
        return -1;
    }
    memset(&v->me, 0, sizeof(v->me));
    v->me.qpn = v->qp->qp_num;
    v->me.psn = 0x1000u + (uint32_t)b->rank;
    v->me.rkey = v->mr->rkey;
    v->me.lid = port.lid;
    v->me.addr = (uint64_t)(uintptr_t)(v->buf + CAL_MAX_MSG);
    v->gid_route = port.lid == 0;
    if (ibv_query_gid(v->ctx, 1, 0, &gid) == 0)
        memcpy(v->me.gid, gid.raw, 16);
    if (b->allgather(&v->me, all, sizeof(v->me)) != 0) {
        snprintf(why, whylen, "MPI_Allgather of the queue pairs failed");
        return -1;
    }
    v->other = all[1 - b->rank];
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = port.active_mtu;
    a.dest_qp_num = v->other.qpn;
    a.rq_psn = v->other.psn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = v->other.lid;
    a.ah_attr.port_num = 1;
    if (v->gid_route) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, v->other.gid, 16);
        a.ah_attr.grh.hop_limit = 1;
        a.ah_attr.grh.sgid_index = 0;
    }
    if (ibv_modify_qp(v->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                          IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) !=
        0) {
        snprintf(why, whylen, "ibv_modify_qp to RTR failed");
        return -1;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = v->me.psn;
    a.max_rd_atomic = 1;
    if (ibv_modify_qp(v->qp, &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                          IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                          IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
        snprintf(why, whylen, "ibv_modify_qp to RTS failed");
        return -1;
    }
    rc = b->barrier();
    if (rc != 0)
        snprintf(why, whylen, "MPI_Barrier failed");
    return rc;
}

static int post_write(struct vctx *v, size_t size, int signaled)
{
    struct ibv_sge sge;
    struct ibv_send_wr wr, *bad = NULL;

    sge.addr = (uint64_t)(uintptr_t)v->buf;
    sge.length = (uint32_t)size;
    sge.lkey = v->mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    wr.wr.rdma.remote_addr = v->other.addr;
    wr.wr.rdma.rkey = v->other.rkey;
    return ibv_post_send(v->qp, &wr, &bad);
}

/* Waits for n completions; -1 on a failed one. */
static int poll_n(struct vctx *v, int n)
{
    struct ibv_wc wc[16];

    while (n > 0) {
        int got = ibv_poll_cq(v->cq, n < 16 ? n : 16, wc);

        if (got < 0)
            return -1;
        for (int i = 0; i < got; i++)
            if (wc[i].status != IBV_WC_SUCCESS)
                return -1;
        n -= got;
    }
    return 0;
}

static int latency(struct vctx *v, FILE *log, const struct cal_bench *b,
                   char *why, size_t whylen)
{
    int iters = b->quick ? 200 : 1000;
    double *t = xcalloc((size_t)iters, sizeof(double));
    const volatile uint8_t *rx = v->buf + CAL_MAX_MSG;

    for (size_t s = 2; s <= CAL_MAX_MSG; s *= 2) {
        memset(v->buf, 0, 2 * (size_t)CAL_MAX_MSG);
        if (b->barrier() != 0)
            goto fail;
        for (int it = -CAL_RUN_WARMUP; it < iters; it++) {
            uint8_t val = (uint8_t)((it + CAL_RUN_WARMUP) % 250 + 1);
            double t0 = now_us();

            if (b->rank == 1)
                while (rx[s - 1] != val)
                    ;
            v->buf[s - 1] = val;
            if (post_write(v, s, 1) != 0 || poll_n(v, 1) != 0) {
                snprintf(why, whylen, "RDMA write of %zu bytes failed", s);
                goto fail;
            }
            if (b->rank == 0) {
                while (rx[s - 1] != val)
                    ;
                if (it >= 0)
                    t[it] = (now_us() - t0) / 2;
            }
        }
        if (log) {
            double med, mn, mx, avg = 0, var = 0;

            for (int i = 0; i < iters; i++)
                avg += t[i] / iters;
            for (int i = 0; i < iters; i++)
                var += (t[i] - avg) * (t[i] - avg) / iters;
            cal_stats(t, iters, &med, &mn, &mx);
            fprintf(log,
                    " %-7zu %-10d %-13.2f %-13.2f %-15.2f %-13.2f %-14.2f "
                    "%-22.2f %.2f\n",
                    s, iters, mn, mx, med, avg, sqrt(var),
                    t[(int)(iters * 0.99)], t[(int)(iters * 0.999)]);
        }
    }
    free(t);
    return 0;
fail:
    free(t);
    return -1;
}

static int bandwidth(struct vctx *v, FILE *log, const struct cal_bench *b,
                     char *why, size_t whylen)
{
    int iters = b->quick ? 1000 : 5000;

    for (size_t s = 2; s <= CAL_MAX_MSG; s *= 2) {
        int n = s >= (1u << 20) ? iters / 10 : iters;

        if (b->barrier() != 0) {
            snprintf(why, whylen, "MPI_Barrier failed");
            return -1;
        }
        if (b->rank == 0) {
            int posted = 0, done = 0;
            double t0, t1, best = 0, tw;

            t0 = tw = now_us();
            while (done < n) {
                while (posted < n && posted - done < CAL_TX_DEPTH) {
                    if (post_write(v, s, 1) != 0) {
                        snprintf(why, whylen,
                                 "ibv_post_send failed at %zu "
                                 "bytes",
                                 s);
                        return -1;
                    }
                    posted++;
                }
                if (poll_n(v, 1) != 0) {
                    snprintf(why, whylen, "RDMA write of %zu bytes failed", s);
                    return -1;
                }
                done++;
                /* Peak: the best window of CAL_TX_DEPTH completions. */
                if (done % CAL_TX_DEPTH == 0) {
                    double now = now_us(),
                           r = CAL_TX_DEPTH * (double)s / (now - tw);
                    best = r > best ? r : best;
                    tw = now;
                }
            }
            t1 = now_us();
            if (log) {
                double avg = n * (double)s / (t1 - t0); /* bytes/us */

                if (best < avg)
                    best = avg;
                fprintf(log, " %-10zu %-10d %-18.2f %-20.2f %.6f\n", s, n,
                        best * 1e6 / 1048576.0, avg * 1e6 / 1048576.0,
                        n / (t1 - t0));
            }
        }
    }
    return b->barrier();
}

int cal_verbs_run(const char *bw_path, const char *lat_path, const char *device,
                  const struct cal_bench *b, char *why, size_t whylen)
{
    static const char rule[] = "-----------------------------------------"
                               "----------------------------------------------";
    struct vctx v;
    FILE *bw = NULL, *lat = NULL;
    int rc = -1;

    memset(&v, 0, sizeof(v));
    if (setup(&v, device, b, why, whylen) != 0)
        goto out;
    if (b->rank == 0) {
        bw = fopen(bw_path, "w");
        lat = fopen(lat_path, "w");
        if (!bw || !lat) {
            snprintf(why, whylen, "cannot write %s or %s", bw_path, lat_path);
            goto out;
        }
        fprintf(lat,
                "%s\n                    RDMA_Write Latency Test\n"
                " Device         : %s\n Connection type : RC\n"
                " dsec-calib run, %s, %s\n%s\n"
                " #bytes #iterations    t_min[usec]    t_max[usec]  "
                "t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
                "99%% percentile[usec]   99.9%% percentile[usec] \n",
                rule, device, b->date, b->host, rule);
    }
    if (latency(&v, lat, b, why, whylen) != 0)
        goto out;
    if (lat)
        fprintf(lat, "%s\n", rule);
    if (bw)
        fprintf(bw,
                "%s\n                    RDMA_Write BW Test\n"
                " Device         : %s\n Connection type : RC\n"
                " TX depth        : %d\n dsec-calib run, %s, %s\n%s\n"
                " #bytes     #iterations    BW peak[MiB/sec]    "
                "BW average[MiB/sec]   MsgRate[Mpps]\n",
                rule, device, CAL_TX_DEPTH, b->date, b->host, rule);
    if (bandwidth(&v, bw, b, why, whylen) != 0)
        goto out;
    if (bw)
        fprintf(bw, "%s\n", rule);
    rc = 0;
out:
    if (bw && fclose(bw) != 0)
        rc = -1;
    if (lat && fclose(lat) != 0)
        rc = -1;
    if (v.qp)
        ibv_destroy_qp(v.qp);
    if (v.cq)
        ibv_destroy_cq(v.cq);
    if (v.mr)
        ibv_dereg_mr(v.mr);
    if (v.pd)
        ibv_dealloc_pd(v.pd);
    if (v.ctx)
        ibv_close_device(v.ctx);
    free(v.buf);
    return rc;
}
