/*
 * NVIDIA B200 in an HGX/DGX B200 board (1,000 W variant, 180 GB HBM3e
 * usable, NVLink5 through NVSwitch).
 *
 * Figures from docs/sources.md §1.1 (glennklockwood.com/garden/processors/B200
 * citing NVIDIA; DGX B200 totals; docs.vultr.com measurement), §2.1, §2.2
 * and §1.4. The host link is modelled as PCIe Gen5 x16 because the DGX B200
 * host CPUs are Gen5 parts (docs/sources.md §1.1 "Note B200 host link", an
 * assumption until calibrated).
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_b200 = {
    .name = "b200",
    .summary = "NVIDIA B200 (HGX, 1,000 W) 180 GB: 2,250 TFLOP/s bf16 dense, "
               "8.0 TB/s HBM3e, NVLink5 900 GB/s/dir (NVIDIA figures via "
               "docs/sources.md §1.1)",
    .source =
        "NVIDIA B200/DGX B200 figures via docs/sources.md §1.1, §2.1, §2.2, "
        "§1.4",
    /* NVIDIA via glennklockwood B200, docs/sources.md §1.1: 2,250 TFLOP/s BF16
     * dense (HGX 1,000 W variant). */
    .flops_bf16 = 2250e12,
    /* Same source: 4,500 TFLOP/s FP8 dense. */
    .flops_fp8 = 4500e12,
    /* Same source: 4,500 TOPS INT8 dense. */
    .flops_int8 = 4500e12,
    /* NVIDIA DGX B200 via docs/sources.md §1.1: 1,440 GB over 8 GPUs = 180 GB
     * each (derived); vultr sees 179 GB; some pages quote 192 GB physical. */
    .hbm_bytes = INT64_C(180000000000),
    /* NVIDIA via docs/sources.md §1.1: 8.0 TB/s (DGX 64 TB/s over 8 GPUs). */
    .hbm_bytes_per_s = 8.0e12,
    /* docs/sources.md §2.1: NVLink5, 18 links x 100 GB/s bidir = 1,800 GB/s
     * bidir, 900 GB/s per direction. */
    .nvlink_bytes_per_s = 900e9,
    /* NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: Ring
     * LL128 NVLink per-step latency 1.9 us (NCCL's table is per link type,
     * not per NVLink generation). */
    .nvlink_latency_ns = 1900,
    /* docs/sources.md §1.1 note and §2.1 (derived): modelled as PCIe Gen5 x16,
     * 63.0 GB/s per direction (assumption; spec pages say Gen6). */
    .pcie_bytes_per_s = 63.0e9,
    /* Default only, docs/sources.md §1.4: CoreWeave 8x B200 = $68.80/h. */
    .price_usd_per_hour = 8.60,
    .price_source = "default: CoreWeave 8x B200 $68.80/h via "
                    "kaelresearch.com, Feb 2026 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src =
        {.provider = "CoreWeave",
         .region = "list price, no region",
         .basis = "on-demand; per GPU-hour = 8x B200 node price $68.80/h / 8",
         .date = "Feb 2026",
         .source = "docs/sources.md §1.4 (kaelresearch.com, 3rd-party)"},
    /* Added fields. docs/sources.md §1.1 gives no INT4 figure for B200. */
    .flops_int4 = 0,
    /* glennklockwood B200 via docs/sources.md §1.1: FP4 9,000 TFLOP/s dense. */
    .flops_fp4 = 9000e12,
    /* docs/sources.md §1.1 "Note B200 host link": Gen5 x16 (assumption). */
    .pcie_gen = 5,
    .pcie_lanes = 16,
    /* docs/sources.md §1.1, §2.1: NVLink5 through 2 NVSwitch chips (DGX B200).
     */
    .scale_up = "nvlink5",
    .scale_up_switched = 1,
    /* docs/sources.md §1.1: 1,000 W (HGX variant). */
    .tdp_watts = 1000,
};
