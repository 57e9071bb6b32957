/*
 * The link catalog: one const struct net_link per link class, sorted by
 * name, and the point-to-point (Hockney) cost over one link.
 *
 * Sources (docs/sources.md): nominal rates §2.1; alpha is NCCL's per-step
 * hardware latency for the LL128 protocol, Ring (NVIDIA/nccl @ 5067397c
 * src/graph/tuning.cc, §2.2): NVLink 1.9 us, PCIe 2.5 us, network 4.0 us.
 * Collectives (coll.c) derive the LL and Simple latencies of the link's
 * class (.hw) from it and pick the protocol. Efficiencies are the achieved
 * fractions of §2.3 where docs/sources.md has one; elsewhere they are
 * documented assumptions (below and in docs/hardware.md).
 */
#include "models/net/net.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

/* NCCL LL128 Ring per-step hardware latencies, docs/sources.md §2.2. */
#define ALPHA_NVLINK_NS 1900.0
#define ALPHA_PCIE_NS 2500.0
#define ALPHA_NET_NS 4000.0

/* 8x H100 ring: "NCCL can get an effective NVLink bandwidth of 370 GB/s" of
 * the 450 GB/s line rate, the loss being NCCL's protocol overhead
 * (sjeaugey, NVIDIA/nccl-tests#212 via docs/sources.md §2.3). */
#define EFF_NVLINK (370.0 / 450.0)
/* NDR CX-7: "46-48 GB/s per NIC" of 50 GB/s (AddyLaddy, NVIDIA/nccl-tests
 * #290 via docs/sources.md §2.3); the top of the range, as the 2-node ring
 * bound of §2.3 (8 x 48 = 384 GB/s) uses it. */
#define EFF_NET (48.0 / 50.0)

static const struct net_link link_host_dram = {
    .name = "host-dram",
    .summary = "host DRAM, 307.2 GB/s (assumption: one socket of 8 DDR5-4800 "
               "channels; docs/sources.md has no DRAM figure)",
    /* Assumption: docs/sources.md has no DRAM latency; 100 ns is the order of a
     * DRAM load-to-use latency. Host transfers are bound by PCIe anyway
     * (docs/sources.md §8.1: host DRAM over PCIe Gen5 x16 <= 63 GB/s/dir). */
    .alpha_ns = 100.0,
    .hw = NET_HW_PCIE,
    /* Assumption: 8 channels x 4800 MT/s x 8 B = 307.2 GB/s, shared by both
     * directions; calibrate (e.g. STREAM). */
    .bytes_per_s = 307.2e9,
    /* No achieved figure in docs/sources.md: 1.0 until calibrated. */
    .efficiency = 1.0,
};

static const struct net_link link_ib_edr = {
    .name = "ib-edr",
    .summary = "InfiniBand EDR 100 Gb/s, 12.5 GB/s/dir, NCCL network alpha "
               "4.0 us (docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 100 Gb/s = 12.5 GB/s per direction. */
    .bytes_per_s = 12.5e9,
    /* docs/sources.md §2.1: EDR practical ceiling "96.6 Gbps" (NVIDIA forum).
     */
    .efficiency = 96.6 / 100.0,
};

static const struct net_link link_ib_hdr = {
    .name = "ib-hdr",
    .summary = "InfiniBand HDR 200 Gb/s, 25 GB/s/dir, NCCL network alpha "
               "4.0 us (docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 200 Gb/s = 25 GB/s per direction. */
    .bytes_per_s = 25e9,
    /* Assumption: NDR's achieved 48/50 (docs/sources.md §2.3); no HDR figure.
     */
    .efficiency = EFF_NET,
};

static const struct net_link link_ib_ndr = {
    .name = "ib-ndr",
    .summary = "InfiniBand NDR 400 Gb/s (CX-7), 50 GB/s/dir, 48 achieved "
               "by NCCL (docs/sources.md §2.1, §2.3)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 400 Gb/s = 50 GB/s per direction. */
    .bytes_per_s = 50e9,
    /* docs/sources.md §2.3: 46-48 GB/s per NIC with NCCL (48 / 50). */
    .efficiency = EFF_NET,
};

static const struct net_link link_ib_xdr = {
    .name = "ib-xdr",
    .summary = "InfiniBand XDR 800 Gb/s (CX-8), 100 GB/s/dir, NCCL network "
               "alpha 4.0 us (docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 800 Gb/s = 100 GB/s per direction. */
    .bytes_per_s = 100e9,
    /* Assumption: NDR's achieved 48/50 (docs/sources.md §2.3); no XDR figure.
     */
    .efficiency = EFF_NET,
};

static const struct net_link link_nvlink_h800 = {
    .name = "nvlink-h800",
    .summary = "H800 NVLink via NVSwitch, 200 GB/s/dir, ~160 achievable "
               "(docs/sources.md §2.1; DeepEP docs/legacy.md via §2.3)",
    .alpha_ns = ALPHA_NVLINK_NS,
    .hw = NET_HW_NVLINK,
    /* docs/sources.md §2.1: 400 GB/s bidir = 200 GB/s per direction. */
    .bytes_per_s = 200e9,
    /* deepseek-ai/DeepEP docs/legacy.md via docs/sources.md §1.1, §2.3: "~160
     * GB/s NVLink maximum" (160 / 200). The 215 GB/s all-reduce busbw of
     * NVIDIA/nccl#1374 exceeds the wire rate, so it used NVLS (docs/sources.md
     * §3.3), which this model does not. */
    .efficiency = 160.0 / 200.0,
};

static const struct net_link link_nvlink3 = {
    .name = "nvlink3",
    .summary = "NVLink3 (A100) via NVSwitch, 12 links, 300 GB/s/dir "
               "(docs/sources.md §2.1)",
    .alpha_ns = ALPHA_NVLINK_NS,
    .hw = NET_HW_NVLINK,
    /* docs/sources.md §2.1: 12 links x 50 GB/s bidir = 300 GB/s per direction.
     */
    .bytes_per_s = 300e9,
    /* Assumption: NVLink4's 370/450 (docs/sources.md §2.3), which NVIDIA puts
     * down to NCCL's protocol overhead rather than to the link generation. */
    .efficiency = EFF_NVLINK,
};

static const struct net_link link_nvlink4 = {
    .name = "nvlink4",
    .summary = "NVLink4 (H100/H200) via NVSwitch, 450 GB/s/dir, ring 370 "
               "achieved (docs/sources.md §2.1, §2.3)",
    .alpha_ns = ALPHA_NVLINK_NS,
    .hw = NET_HW_NVLINK,
    /* docs/sources.md §2.1: 18 links x 50 GB/s bidir = 900 GB/s, 450 per dir.
     */
    .bytes_per_s = 450e9,
    /* docs/sources.md §2.3: 370 of 450 GB/s with NCCL's protocol overhead. */
    .efficiency = EFF_NVLINK,
};

static const struct net_link link_nvlink5 = {
    .name = "nvlink5",
    .summary = "NVLink5 (B200) via NVSwitch, 18 links, 900 GB/s/dir "
               "(docs/sources.md §2.1)",
    .alpha_ns = ALPHA_NVLINK_NS,
    .hw = NET_HW_NVLINK,
    /* docs/sources.md §2.1: 18 links x 100 GB/s bidir = 1,800 GB/s, 900 per
       dir. */
    .bytes_per_s = 900e9,
    /* Assumption: NVLink4's 370/450 protocol efficiency (docs/sources.md §2.3).
     */
    .efficiency = EFF_NVLINK,
};

static const struct net_link link_pcie4 = {
    .name = "pcie4",
    .summary = "PCIe Gen4 x16, 31.5 GB/s/dir, NCCL PCIe alpha 2.5 us "
               "(docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_PCIE_NS,
    .hw = NET_HW_PCIE,
    /* docs/sources.md §2.1 (derived): 16 GT/s x 16 lanes x 128/130 / 8. */
    .bytes_per_s = 31.5e9,
    /* No achieved PCIe figure in docs/sources.md (the nvbandwidth example's 26
     * GB/s H2D names no generation): 1.0 until calibrated with nvbandwidth. */
    .efficiency = 1.0,
};

static const struct net_link link_pcie5 = {
    .name = "pcie5",
    .summary = "PCIe Gen5 x16, 63.0 GB/s/dir, NCCL PCIe alpha 2.5 us "
               "(docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_PCIE_NS,
    .hw = NET_HW_PCIE,
    /* docs/sources.md §2.1 (derived): 32 GT/s x 16 lanes x 128/130 / 8. */
    .bytes_per_s = 63.0e9,
    /* No achieved figure in docs/sources.md: 1.0 until calibrated. */
    .efficiency = 1.0,
};

static const struct net_link link_pcie6 = {
    .name = "pcie6",
    .summary = "PCIe Gen6 x16, ~121.6 GB/s/dir (128 raw less FLIT/FEC, "
               "approx.; docs/sources.md §2.1)",
    .alpha_ns = ALPHA_PCIE_NS,
    .hw = NET_HW_PCIE,
    /* docs/sources.md §2.1: 128 GB/s raw per direction, "a few % less after
     * FLIT/FEC overhead"; assumption: 5 % less, 121.6 GB/s. */
    .bytes_per_s = 121.6e9,
    /* No achieved figure in docs/sources.md: 1.0 until calibrated. */
    .efficiency = 1.0,
};

static const struct net_link link_roce_100 = {
    .name = "roce-100",
    .summary = "RoCE 100 GbE, 12.5 GB/s/dir, NCCL network alpha 4.0 us "
               "(docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 100 Gb/s = 12.5 GB/s per direction. */
    .bytes_per_s = 12.5e9,
    /* Assumption: the 100 Gb/s practical ceiling of EDR (docs/sources.md §2.1).
     */
    .efficiency = 96.6 / 100.0,
};

static const struct net_link link_roce_200 = {
    .name = "roce-200",
    .summary = "RoCE 200 GbE, 25 GB/s/dir, NCCL network alpha 4.0 us "
               "(docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 200 Gb/s = 25 GB/s per direction. */
    .bytes_per_s = 25e9,
    /* Assumption: NDR's achieved 48/50 (docs/sources.md §2.3). */
    .efficiency = EFF_NET,
};

static const struct net_link link_roce_400 = {
    .name = "roce-400",
    .summary = "RoCE 400 GbE (CX-7), 50 GB/s/dir, 48 with NCCL as on NDR "
               "(docs/sources.md §2.1, §2.3)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 400 Gb/s = 50 GB/s per direction. */
    .bytes_per_s = 50e9,
    /* docs/sources.md §2.3: perftest reaches 392 Gb/s on CX-7 400G RoCE
     * (NVIDIA/nccl#2409), but NCCL's figure is NDR's 48 of 50 GB/s per
     * NIC; the same CX-7 NIC, so NCCL's figure is used. */
    .efficiency = EFF_NET,
};

static const struct net_link link_roce_800 = {
    .name = "roce-800",
    .summary = "RoCE 800 GbE (CX-8), 100 GB/s/dir, NCCL network alpha "
               "4.0 us (docs/sources.md §2.1, §2.2)",
    .alpha_ns = ALPHA_NET_NS,
    .hw = NET_HW_NET,
    /* docs/sources.md §2.1 (derived): 800 Gb/s = 100 GB/s per direction. */
    .bytes_per_s = 100e9,
    /* Assumption: NDR's achieved 48/50 (docs/sources.md §2.3). */
    .efficiency = EFF_NET,
};

static const struct net_link link_xgmi = {
    .name = "xgmi",
    .summary = "MI300X Infinity Fabric full mesh, 7 links x 64 GB/s/dir per "
               "peer pair, no switch (docs/sources.md §1.1, §2.1)",
    /* Assumption: docs/sources.md has no RCCL latency table; NCCL's NVLink
     * LL128 figure (docs/sources.md §2.2) is used for this GPU-to-GPU fabric.
     */
    .alpha_ns = ALPHA_NVLINK_NS,
    .hw = NET_HW_NVLINK,
    /* docs/sources.md §1.1, §2.1: 128 GB/s bidir per link, one link per peer
     * pair in an 8 x MI300X platform: 64 GB/s per direction per pair. */
    .bytes_per_s = 64e9,
    /* Assumption: NVLink4's 370/450 protocol efficiency (docs/sources.md §2.3);
     * docs/sources.md has no achieved RCCL figure. */
    .efficiency = EFF_NVLINK,
    /* docs/sources.md §1.1: seven links, one to each of the other GPUs. */
    .mesh_peers = 7,
};

const struct net_link *const net_link_table[] = {
    &link_host_dram, &link_ib_edr,   &link_ib_hdr,
    &link_ib_ndr,    &link_ib_xdr,   &link_nvlink_h800,
    &link_nvlink3,   &link_nvlink4,  &link_nvlink5,
    &link_pcie4,     &link_pcie5,    &link_pcie6,
    &link_roce_100,  &link_roce_200, &link_roce_400,
    &link_roce_800,  &link_xgmi,     NULL,
};

const struct net_link *net_link_find(const char *name)
{
    size_t i;

    if (name == NULL)
        return NULL;
    /* Linear: the table has a handful of entries. */
    for (i = 0; net_link_table[i] != NULL; i++) {
        if (strcasecmp(net_link_table[i]->name, name) == 0)
            return net_link_table[i];
    }
    return NULL;
}

char *net_link_names(void)
{
    size_t i, len = 1;
    char *s;

    for (i = 0; net_link_table[i] != NULL; i++)
        len += strlen(net_link_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (i = 0; net_link_table[i] != NULL; i++) {
        if (i > 0)
            strcat(s, ", ");
        strcat(s, net_link_table[i]->name);
    }
    return s;
}

double net_p2p_ns(const struct net_link *l, double bytes)
{
    /* The negated comparisons also reject NaN. */
    if (l == NULL || !(l->bytes_per_s > 0.0) || !(l->efficiency > 0.0) ||
        !(bytes >= 0.0))
        return -1.0;
    return l->alpha_ns + bytes / (l->efficiency * l->bytes_per_s) * 1e9;
}

double net_link_gpu_bytes_per_s(const struct net_link *l, int group_gpus)
{
    int links;

    if (l == NULL)
        return 0.0;
    if (l->mesh_peers <= 0)
        return l->efficiency * l->bytes_per_s;
    /* A mesh: every GPU drives one link per peer of the group at once,
     * e.g. the 7 directed Hamiltonian rings of 8 MI300X (docs/hardware.md),
     * but has only mesh_peers links. */
    links = group_gpus - 1;
    if (links > l->mesh_peers)
        links = l->mesh_peers;
    if (links < 1)
        return 0.0;
    return l->efficiency * l->bytes_per_s * links;
}
