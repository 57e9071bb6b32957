#!/usr/bin/env python3
"""Writes the recorded-log fixtures of tests/e2e-calib.sh and
tests/check_calib_import.c: synthetic H200-like measurements in the exact
text formats of nccl-tests, perftest, nvbandwidth, cuda-samples
bandwidthTest and dsec-calib run (docs/sources.md §10). The numbers follow an
alpha-beta (or dsec GEMM) model with 2 % noise from a fixed seed; the model
parameters below are the "truth" the fit should find, chosen from docs/sources.md:
- NVLink4 ring bus bandwidth ~370 GB/s = 82 % of 450 GB/s/dir (§1.3, §2.3);
- IB NDR 46-48 GB/s per NIC, one-way write latency ~1 us, below the 2.5 us
  acceptance bound (§2.2, §2.3);
- PCIe Gen5 x16 63.0 GB/s per direction nominal (§2.1), ~55 GB/s achieved;
- H200 HBM 4.8 TB/s (§1.1), ~85 % achieved by a streaming copy;
- GEMM eta_max 0.78 (DeepGEMM's 78 % anchor, §1.3), M_half 60.
Run: python3 make-fixtures.py (in this folder). Not run by make check."""
import random

R = random.Random(7)


def noisy(v, rel=0.02):
    return v * (1 + R.gauss(0, rel))


def nccl(name, coll, ngpu, alpha_us, bus_gbps, redop, maxb=1 << 30):
    f = {"all_reduce": 2 * (ngpu - 1) / ngpu, "sendrecv": 1.0}.get(
        coll, (ngpu - 1) / ngpu)
    out = []
    out.append("# nThread 1 nGpus %d minBytes 8 maxBytes %d step: 2(factor) "
               "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
               % (ngpu, maxb))
    out.append("#")
    out.append("# Using devices")
    for r in range(ngpu):
        out.append("#  Rank %2d Group  0 Pid  41%03d on  h200-node1 device %2d "
                   "[0x%02x] NVIDIA H200" % (r, r, r, 0x18 + 0x10 * r))
    out.append("#")
    out.append("#                                                              "
               "out-of-place                       in-place          ")
    out.append("#       size         count      type   redop    root     time "
               "  algbw   busbw #wrong     time   algbw   busbw #wrong")
    out.append("#        (B)    (elements)                               (us) "
               " (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ")
    s = 8
    tot = 0
    n = 0
    while s <= maxb:
        count = s // 4
        if coll in ("all_gather", "reduce_scatter", "alltoall"):
            count -= count % ngpu
        if count == 0:
            s *= 2
            continue
        size = count * 4
        row = "%12d  %12d  %8s  %6s  %6d" % (size, count, "float", redop, -1)
        for half in range(2):
            t = noisy(alpha_us + size * f / (bus_gbps * 1e3))
            alg = size / (t * 1e3)
            bus = alg * f
            if half == 0:
                tot += bus
                n += 1
            ts = "%7.2f" % t if t < 10000 else "%7.1f" % t
            row += "  %s  %6.2f  %6.2f  %5s" % (ts, alg, bus, "0")
        out.append(row)
        s *= 2
    out.append("# Out of bounds values : 0 OK")
    out.append("# Avg bus bandwidth    : %.4f " % (tot / n))
    out.append("#")
    out.append("# Collective test concluded: %s" % name)
    out.append("")
    open(name + ".log", "w").write("\n".join(out))


RULE = "-" * 87


def perftest_bw():
    out = [RULE, "                    RDMA_Write BW Test",
           " Dual-port       : OFF\t\tDevice         : mlx5_0",
           " Number of qps   : 1\t\tTransport type : IB",
           " Connection type : RC\t\tUsing SRQ      : OFF",
           " PCIe relax order: ON", " ibv_wr* API     : ON",
           " TX depth        : 128", " CQ Moderation   : 1",
           " Mtu             : 4096[B]", " Link type       : IB",
           " Max inline data : 0[B]", " rdma_cm QPs\t : OFF",
           " Data ex. method : Ethernet", RULE,
           " local address: LID 0x2a QPN 0x0107 PSN 0x5c1f3e RKey 0x1fffbd "
           "VAddr 0x007f2b4c600000",
           " remote address: LID 0x2b QPN 0x0107 PSN 0x9e4a21 RKey 0x1fffbd "
           "VAddr 0x007f8a1d200000", RULE,
           " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]"
           "   MsgRate[Mpps]"]
    s = 2
    while s <= 1 << 23:
        t_us = noisy(0.12 + s / (47.5e3))  # per-message, pipelined
        bps = s / (t_us * 1e-6)
        mib = bps / 1048576
        out.append(" %-10d %-10d %-18.2f %-20.2f %.6f" % (
            s, 5000, mib * 1.01, mib, bps / s / 1e6))
        s *= 2
    out.append(RULE)
    out.append("")
    open("ib_write_bw.log", "w").write("\n".join(out))


def perftest_lat():
    out = [RULE, "                    RDMA_Write Latency Test",
           " Dual-port       : OFF\t\tDevice         : mlx5_0",
           " Number of qps   : 1\t\tTransport type : IB",
           " Connection type : RC\t\tUsing SRQ      : OFF",
           " TX depth        : 1", " Mtu             : 4096[B]",
           " Link type       : IB", " Max inline data : 220[B]",
           " rdma_cm QPs\t : OFF", " Data ex. method : Ethernet", RULE,
           " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
           "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   "
           "99.9% percentile[usec] "]
    s = 2
    while s <= 1 << 23:
        typ = noisy(1.02 + s / 46.8e3, 0.01)
        out.append(" %-7d %-10d %-13.2f %-13.2f %-15.2f %-13.2f %-14.2f "
                   "%-22.2f %.2f" % (s, 1000, typ * 0.97, typ * 3.1, typ,
                                     typ * 1.01, typ * 0.03, typ * 1.12,
                                     typ * 2.9))
        s *= 2
    out.append(RULE)
    out.append("")
    open("ib_write_lat.log", "w").write("\n".join(out))


def nvbandwidth():
    out = ["nvbandwidth Version: v0.7", "Built from Git version: v0.7", "",
           "CUDA Runtime Version: 12080", "CUDA Driver Version: 12080",
           "Driver Version: 570.124.06", ""]
    for g in range(8):
        out.append("Device %d: NVIDIA H200 (00000000:%02x:00)" % (g, 0x18 + 0x10 * g))
    out.append("")
    out.append("Running host_to_device_memcpy_ce.")
    out.append("memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)")
    out.append("           " + "".join("%9d " % g for g in range(8)))
    out.append(" 0      " + "".join("%9.2f " % noisy(55.2, 0.005) for g in range(8)))
    out.append("")
    out.append("SUM host_to_device_memcpy_ce %.2f" % (8 * 55.2))
    out.append("")
    out.append("Running device_to_device_memcpy_write_ce.")
    out.append("memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)")
    out.append("           " + "".join("%9d " % g for g in range(8)))
    tot = 0
    for r in range(8):
        cells = []
        for c in range(8):
            if r == c:
                cells.append("%9s " % "N/A")
            else:
                v = noisy(389.5, 0.003)
                tot += v
                cells.append("%9.2f " % v)
        out.append(" %d      " % r + "".join(cells))
    out.append("")
    out.append("SUM device_to_device_memcpy_write_ce %.2f" % tot)
    out.append("")
    open("nvbandwidth.log", "w").write("\n".join(out))


def bandwidthtest():
    out = ["[CUDA Bandwidth Test] - Starting...", "Running on...", "",
           " Device 0: NVIDIA H200", " Shmoo Mode", "", ".................", ""]
    for title, op, alpha, b in (("Host to Device", "h2d", 9.0, 55.0),
                                ("Device to Host", "d2h", 9.5, 55.8),
                                ("Device to Device", "d2d", 4.0, 2 * 1900.0)):
        out.append(" %s Bandwidth, 1 Device(s)" % title)
        out.append(" PINNED Memory Transfers")
        out.append("   Transfer Size (Bytes)\tBandwidth(GB/s)")
        for s in [1000 * 2 ** i for i in range(0, 17)]:
            moved = 2 * s if op == "d2d" else s
            t = noisy(alpha + s / (b * 1e3) * (2 if op == "d2d" else 1))
            gbps = moved / (t * 1e3)
            out.append("   %d\t\t\t%.1f" % (s, gbps))
        out.append("")
    out.append("Result = PASS")
    out.append("")
    out.append("NOTE: The CUDA Samples are not meant for performance "
               "measurements. Results may vary when GPU Boost is enabled.")
    out.append("")
    open("bandwidthTest-shmoo.log", "w").write("\n".join(out))
    csv = []
    for op, b in (("H2D-Pinned", 55.1), ("D2H-Pinned", 55.7), ("D2D", 3786.2)):
        s = 32000000
        t = s / (b * 1e9)
        csv.append("bandwidthTest-%s, Bandwidth = %.1f GB/s, Time = %.5f s, "
                   "Size = %d bytes, NumDevsUsed = 1" % (op, b, t, s))
    csv.append("Result = PASS")
    csv.append("")
    open("bandwidthTest-csv.log", "w").write("\n".join(csv))


def gemm_model(m, n, k, p, eb=2, peak=989.4e12, hbm=4.8e12):
    flops = 2 * m * n * k
    by = eb * (m * k + k * n + m * n)
    tc = flops * (m + p[1]) / (p[0] * m * peak) * 1e6
    tm = by / (p[2] * hbm) * 1e6
    return max(tc, tm) + p[3]


def dsec_gemm():
    truth = (0.78, 60.0, 0.85, 5.0)
    out = ["# dsec-calib gemm 1", "# date: 2026-11-28", "# host: h200-node1",
           "# device: 0 NVIDIA H200 sm_90, 132 SMs, CUDA runtime 13000, "
           "driver 13000",
           "# warmup 5, reps 30; times are per operation",
           "# columns: dtype m n k reps median_us min_us max_us tflops"]
    for n, k in ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)):
        for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                  8192):
            t = noisy(gemm_model(m, n, k, truth))
            out.append("bf16 %d %d %d 30 %.3f %.3f %.3f %.2f" % (
                m, n, k, t, t * 0.98, t * 1.05, 2 * m * n * k / (t * 1e6)))
    out.append("")
    open("gemm.log", "w").write("\n".join(out))


def dsec_hbm():
    out = ["# dsec-calib hbm 1", "# date: 2026-11-28", "# host: h200-node1",
           "# device: 0 NVIDIA H200 sm_90, 132 SMs, CUDA runtime 13000, "
           "driver 13000",
           "# warmup 5, reps 30; times are per operation",
           "# columns: op bytes reps median_us min_us max_us gbps"]
    for op, alpha, b in (("copy", 3.0, 4080.0), ("read", 2.5, 4300.0)):
        s = 1 << 20
        while s <= 4 << 30:
            moved = 2 * s if op == "copy" else s
            t = noisy(alpha + moved / (b * 1e3))
            out.append("%s %d 30 %.3f %.3f %.3f %.2f" % (
                op, moved, t, t * 0.99, t * 1.03, moved / (t * 1e3)))
            s *= 4
    out.append("")
    open("hbm.log", "w").write("\n".join(out))


nccl("all_reduce_perf", "all_reduce", 8, 24.0, 370.0, "sum")
nccl("all_gather_perf", "all_gather", 8, 17.0, 362.0, "none")
nccl("reduce_scatter_perf", "reduce_scatter", 8, 18.0, 358.0, "sum")
nccl("alltoall_perf", "alltoall", 8, 22.0, 340.0, "none", 1 << 28)
nccl("sendrecv_perf", "sendrecv", 8, 9.0, 365.0, "sum", 1 << 28)
perftest_bw()
perftest_lat()
nvbandwidth()
bandwidthtest()
dsec_gemm()
dsec_hbm()
