/*
 * AMD Instinct MI300X (192 GB HBM3, Infinity Fabric full mesh). In an
 * 8 x MI300X OAM platform each GPU has seven xGMI links, one to each peer,
 * 64 GB/s per direction each, and no switch (docs/sources.md §1.1). Its
 * nvlink_bytes_per_s is the sum, 7 x 64 = 448 GB/s per direction:
 * collectives over all eight GPUs can drive every link at once (the
 * directed complete graph on 8 vertices splits into 7 directed Hamiltonian
 * rings), but a pair gets one link and a group of g GPUs g - 1 links
 * (gpu_intra_link(), net_link_gpu_bytes_per_s()).
 *
 * Figures from docs/sources.md §1.1 (alpharomercoma/MI300X-vs-H200
 * METHODOLOGY.md; an AMD peak table; wheelersnetwork.com; yobitel.com;
 * gpu.blog), §2.1 and §1.4. docs/sources.md has no RCCL latency: NCCL's NVLink
 * LL128 figure is used (assumption).
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_mi300x = {
    .name = "mi300x",
    .summary = "AMD MI300X 192 GB: 1,307.4 TFLOP/s bf16 dense, 5.3 TB/s "
               "HBM3, xGMI mesh 7 x 64 GB/s/dir (docs/sources.md §1.1)",
    .source = "AMD peak figures via third-party copies, docs/sources.md §1.1, "
              "§2.1, §2.2, §1.4",
    /* docs/sources.md §1.1: BF16 dense 1,307.4 TFLOP/s. */
    .flops_bf16 = 1307.4e12,
    /* docs/sources.md §1.1: FP8 dense 2,614.9 TFLOP/s. */
    .flops_fp8 = 2614.9e12,
    /* docs/sources.md §1.1: INT8 dense 2,614.9 TOPS (equal to FP8; unverified
     * against AMD's own page). */
    .flops_int8 = 2614.9e12,
    /* docs/sources.md §1.1: 192 GB HBM3. */
    .hbm_bytes = INT64_C(192000000000),
    /* docs/sources.md §1.1: 5.3 TB/s. */
    .hbm_bytes_per_s = 5.3e12,
    /* docs/sources.md §1.1, §2.1: 7 links x 128 GB/s bidir = 896 GB/s
     * aggregate, 448 GB/s per direction, 64 per peer pair (file comment). */
    .nvlink_bytes_per_s = 448e9,
    /* Assumption: NCCL's Ring LL128 NVLink per-step latency, 1.9 us
     * (NVIDIA/nccl @ 5067397c via docs/sources.md §2.2); no RCCL figure. */
    .nvlink_latency_ns = 1900,
    /* docs/sources.md §1.1 (gpu.blog), §2.1: PCIe Gen5 x16 = 63.0 GB/s/dir. */
    .pcie_bytes_per_s = 63.0e9,
    /* Default only, docs/sources.md §1.4: Vultr on-demand $1.85 (TensorWave
     * $1.71; yobitel quotes ~$4.00 in 2026). */
    .price_usd_per_hour = 1.85,
    .price_source = "default: Vultr on-demand $1.85/GPU-h via gpu.blog, "
                    "2025 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src = {.provider = "Vultr",
                  .region = "list price, no region",
                  .basis = "on-demand; per GPU-hour as listed",
                  .date = "2025",
                  .source = "docs/sources.md §1.4 (gpu.blog, 3rd-party)"},
    /* No INT4 or FP4 figure in docs/sources.md §1.1. */
    .flops_int4 = 0,
    .flops_fp4 = 0,
    .pcie_gen = 5,
    .pcie_lanes = 16,
    .scale_up = "xgmi",
    .scale_up_switched = 0,
    /* docs/sources.md §1.1: TBP 750 W. */
    .tdp_watts = 750,
};
