/*
 * NVIDIA H200 SXM (141 GB HBM3e, NVLink4 through NVSwitch). Compute is the
 * H100's (same GH100 silicon with more and faster HBM).
 *
 * Figures from docs/sources.md §1.1 (saulelectric.com/nvidia-h200,
 * ai-hpc.github.io, glennklockwood.com h100 page; third-party reproductions
 * of the NVIDIA H200 datasheet), §2.1, §2.2 and §1.4.
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_h200 = {
    .name = "h200",
    .summary = "NVIDIA H200 SXM 141 GB: 989.4 TFLOP/s bf16 dense, "
               "4.8 TB/s HBM3e, NVLink4 450 GB/s/dir (H200 datasheet via "
               "docs/sources.md §1.1)",
    .source =
        "NVIDIA H200 datasheet via docs/sources.md §1.1, §2.1, §2.2, §1.4",
    /* NVIDIA H200 datasheet via docs/sources.md §1.1: compute identical to
     * H100, 989.4 TFLOP/s BF16 dense (the "1.97 PFLOPS" often quoted is
     * sparse). */
    .flops_bf16 = 989.4e12,
    /* NVIDIA H200 datasheet via docs/sources.md §1.1: 1,978.9 TFLOP/s FP8
       dense. */
    .flops_fp8 = 1978.9e12,
    /* NVIDIA H200 datasheet via docs/sources.md §1.1: 1,978.9 TOPS INT8 dense.
     */
    .flops_int8 = 1978.9e12,
    /* NVIDIA H200 datasheet via docs/sources.md §1.1: 141 GB HBM3e. */
    .hbm_bytes = INT64_C(141000000000),
    /* NVIDIA H200 datasheet via docs/sources.md §1.1: 4.8 TB/s. */
    .hbm_bytes_per_s = 4.8e12,
    /* docs/sources.md §1.1, §2.1: NVLink4 450 GB/s per direction (900 bidir).
     */
    .nvlink_bytes_per_s = 450e9,
    /* NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: Ring
     * LL128 NVLink per-step latency 1.9 us. */
    .nvlink_latency_ns = 1900,
    /* docs/sources.md §2.1 (derived): PCIe Gen5 x16 = 63.0 GB/s per direction.
     */
    .pcie_bytes_per_s = 63.0e9,
    /* Default only, docs/sources.md §1.4: CoreWeave HGX H200 8x = $50.44/h. */
    .price_usd_per_hour = 6.31,
    .price_source = "default: CoreWeave HGX H200 8x $50.44/h via "
                    "kaelresearch.com, Feb 2026 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src =
        {.provider = "CoreWeave",
         .region = "list price, no region",
         .basis =
             "on-demand; per GPU-hour = HGX H200 8-GPU node price $50.44/h / 8",
         .date = "Feb 2026",
         .source = "docs/sources.md §1.4 (kaelresearch.com, 3rd-party)"},
    /* Added fields. docs/sources.md §1.1: no INT4 or FP4 figure for Hopper. */
    .flops_int4 = 0,
    .flops_fp4 = 0,
    /* docs/sources.md §1.1: host link PCIe Gen5 x16. */
    .pcie_gen = 5,
    .pcie_lanes = 16,
    /* docs/sources.md §1.1, §2.1: NVLink4 through NVSwitch. */
    .scale_up = "nvlink4",
    .scale_up_switched = 1,
    /* docs/sources.md §1.1: 700 W. */
    .tdp_watts = 700,
};
