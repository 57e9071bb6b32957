/*
 * NVIDIA H100 SXM5 (80 GB HBM3, NVLink4 through NVSwitch).
 *
 * Figures from docs/sources.md §1.1 (glennklockwood.com/garden/processors/h100,
 * reproducing the NVIDIA H100 datasheet and Hopper whitepaper; dense values
 * are the datasheet's sparse values halved), §2.1 (link rates), §2.2 (NCCL
 * latency) and §1.4 (price).
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_h100 = {
    .name = "h100",
    .summary = "NVIDIA H100 SXM5 80 GB: 989.4 TFLOP/s bf16 dense, "
               "3.35 TB/s HBM3, NVLink4 450 GB/s/dir (H100 datasheet via "
               "docs/sources.md §1.1)",
    .source =
        "NVIDIA H100 datasheet via docs/sources.md §1.1, §2.1, §2.2, §1.4",
    /* NVIDIA H100 datasheet via docs/sources.md §1.1: 989.4 TFLOP/s BF16 dense.
     */
    .flops_bf16 = 989.4e12,
    /* NVIDIA H100 datasheet via docs/sources.md §1.1: 1,978.9 TFLOP/s FP8
       dense. */
    .flops_fp8 = 1978.9e12,
    /* NVIDIA H100 datasheet via docs/sources.md §1.1: 1,978.9 TOPS INT8 dense.
     */
    .flops_int8 = 1978.9e12,
    /* NVIDIA H100 datasheet via docs/sources.md §1.1: 80 GB HBM3 (GB = 1e9 B).
     */
    .hbm_bytes = INT64_C(80000000000),
    /* NVIDIA H100 datasheet via docs/sources.md §1.1: 3.35 TB/s. */
    .hbm_bytes_per_s = 3.35e12,
    /* docs/sources.md §2.1: NVLink4, 18 links, 900 GB/s bidir = 450 GB/s per
     * direction; through NVSwitch every pair gets the full rate. */
    .nvlink_bytes_per_s = 450e9,
    /* NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: Ring
     * LL128 NVLink per-step latency 1.9 us (LL128 is NCCL's usual protocol
     * on NVLink for the MB-sized tensor-parallel all-reduces). */
    .nvlink_latency_ns = 1900,
    /* docs/sources.md §2.1 (derived): PCIe Gen5 x16, 32 GT/s, 128b/130b = 63.0
     * GB/s per direction. */
    .pcie_bytes_per_s = 63.0e9,
    /* Default only, docs/sources.md §1.4: CoreWeave HGX H100 8x = $49.24/h. */
    .price_usd_per_hour = 6.16,
    .price_source = "default: CoreWeave HGX H100 8x $49.24/h via "
                    "kaelresearch.com, Feb 2026 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src =
        {.provider = "CoreWeave",
         .region = "list price, no region",
         .basis =
             "on-demand; per GPU-hour = HGX H100 8-GPU node price $49.24/h / 8",
         .date = "Feb 2026",
         .source = "docs/sources.md §1.4 (kaelresearch.com \"GPU Economics\", "
                   "3rd-party)"},
    /* Added fields. docs/sources.md §1.1: no INT4 or FP4 figure for Hopper. */
    .flops_int4 = 0,
    .flops_fp4 = 0,
    /* docs/sources.md §1.1: host link PCIe Gen5 x16. */
    .pcie_gen = 5,
    .pcie_lanes = 16,
    /* docs/sources.md §2.1: NVLink4 through 3rd-gen NVSwitch. */
    .scale_up = "nvlink4",
    .scale_up_switched = 1,
    /* docs/sources.md §1.1: 700 W. */
    .tdp_watts = 700,
};
