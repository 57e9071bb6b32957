/*
 * NVIDIA A100 80GB SXM4 (80 GB HBM2e, NVLink3 through NVSwitch). No FP8:
 * flops_fp8 is 0, and a step-time model must run FP8 weights at another
 * precision or refuse them.
 *
 * Figures from docs/sources.md §1.1 (glennklockwood.com/garden/processors/A100,
 * reproducing the NVIDIA A100 datasheet r4; support.denvrdata.com), §2.1,
 * §2.2 and §1.4. DGX A100 has NVSwitch (600 GB/s bidir per GPU, docs/sources.md
 * §2.1 "NVSwitch").
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_a100 = {
    .name = "a100",
    .summary = "NVIDIA A100 80GB SXM4: 312 TFLOP/s bf16 dense, no fp8, "
               "2.039 TB/s HBM2e, NVLink3 300 GB/s/dir (A100 datasheet via "
               "docs/sources.md §1.1)",
    .source =
        "NVIDIA A100 datasheet r4 via docs/sources.md §1.1, §2.1, §2.2, §1.4",
    /* NVIDIA A100 datasheet via docs/sources.md §1.1: BF16 312 dense (624
       sparse). */
    .flops_bf16 = 312e12,
    /* docs/sources.md §1.1: no FP8 tensor cores ("none"). */
    .flops_fp8 = 0,
    /* docs/sources.md §1.1: INT8 624 TOPS dense (1,248 sparse). */
    .flops_int8 = 624e12,
    /* docs/sources.md §1.1: 80 GB HBM2e. */
    .hbm_bytes = INT64_C(80000000000),
    /* docs/sources.md §1.1: 2.039 TB/s. */
    .hbm_bytes_per_s = 2.039e12,
    /* docs/sources.md §2.1: NVLink3, 12 links, "300+300 GB/s" = 300 per
     * direction through NVSwitch (DGX A100 600 GB/s per GPU bidir). */
    .nvlink_bytes_per_s = 300e9,
    /* NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: Ring
     * LL128 NVLink per-step latency 1.9 us (per link type, not
     * generation). */
    .nvlink_latency_ns = 1900,
    /* docs/sources.md §2.1 (derived): PCIe Gen4 x16 = 31.5 GB/s per direction
     * (the datasheet's "32+32 GB/s"). */
    .pcie_bytes_per_s = 31.5e9,
    /* Default only, docs/sources.md §1.4: CoreWeave 8x A100 80GB = $21.60/h. */
    .price_usd_per_hour = 2.70,
    .price_source = "default: CoreWeave 8x A100 80GB $21.60/h via "
                    "kaelresearch.com, Feb 2026 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src =
        {.provider = "CoreWeave",
         .region = "list price, no region",
         .basis =
             "on-demand; per GPU-hour = 8x A100 80GB node price $21.60/h / 8",
         .date = "Feb 2026",
         .source = "docs/sources.md §1.4 (kaelresearch.com, 3rd-party)"},
    /* docs/sources.md §1.1: INT4 1,248 TOPS dense (2,496 sparse). */
    .flops_int4 = 1248e12,
    /* docs/sources.md §1.1: no FP4. */
    .flops_fp4 = 0,
    /* docs/sources.md §1.1: PCIe Gen4 x16. */
    .pcie_gen = 4,
    .pcie_lanes = 16,
    .scale_up = "nvlink3",
    .scale_up_switched = 1,
    /* docs/sources.md §1.1: 400 W. */
    .tdp_watts = 400,
};
