/*
 * NVIDIA L40S (48 GB GDDR6, PCIe card, no NVLink). Its GPUs talk to each
 * other over PCIe Gen4 x16, so its intra-node (scale-up) figures in
 * nvlink_bytes_per_s and nvlink_latency_ns are PCIe's: 31.5 GB/s per
 * direction and NCCL's PCIe LL128 latency.
 *
 * Figures from docs/sources.md §1.1 (NVIDIA L40/L40S datasheet table reproduced
 * at mullet.se; itcreations.com), §2.1, §2.2 and §1.4. The INT8 figure is the
 * usual datasheet value but unverified in docs/sources.md (the retrieved copy
 * left the cell empty); docs/sources.md gives no INT4 figure, so flops_int4 is
 * 0.
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_l40s = {
    .name = "l40s",
    .summary = "NVIDIA L40S 48 GB: 362.05 TFLOP/s bf16 dense, 864 GB/s "
               "GDDR6, no NVLink: PCIe Gen4 x16 31.5 GB/s/dir (L40S "
               "datasheet via docs/sources.md §1.1)",
    .source =
        "NVIDIA L40S datasheet via docs/sources.md §1.1, §2.1, §2.2, §1.4",
    /* NVIDIA L40S datasheet via docs/sources.md §1.1: BF16 362.05 dense. */
    .flops_bf16 = 362.05e12,
    /* docs/sources.md §1.1: FP8 733 dense (1,466 sparse). */
    .flops_fp8 = 733e12,
    /* docs/sources.md §1.1: INT8 733 TOPS dense (unverified there). */
    .flops_int8 = 733e12,
    /* docs/sources.md §1.1: 48 GB GDDR6 ECC. */
    .hbm_bytes = INT64_C(48000000000),
    /* docs/sources.md §1.1: 864 GB/s. */
    .hbm_bytes_per_s = 864e9,
    /* docs/sources.md §1.1 "none (no NVLink)"; §2.1 (derived): GPU to GPU over
     * PCIe Gen4 x16, 31.5 GB/s per direction. */
    .nvlink_bytes_per_s = 31.5e9,
    /* NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: Ring
     * LL128 PCIe per-step latency 2.5 us. */
    .nvlink_latency_ns = 2500,
    /* docs/sources.md §1.1, §2.1: PCIe Gen4 x16 ("64 GB/s bidir"). */
    .pcie_bytes_per_s = 31.5e9,
    /* Default only, docs/sources.md §1.4: CoreWeave 8x L40S = $18.00/h. */
    .price_usd_per_hour = 2.25,
    .price_source = "default: CoreWeave 8x L40S $18.00/h via "
                    "kaelresearch.com, Feb 2026 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src =
        {.provider = "CoreWeave",
         .region = "list price, no region",
         .basis = "on-demand; per GPU-hour = 8x L40S node price $18.00/h / 8",
         .date = "Feb 2026",
         .source = "docs/sources.md §1.4 (kaelresearch.com, 3rd-party)"},
    /* No INT4 or FP4 figure in docs/sources.md §1.1. */
    .flops_int4 = 0,
    .flops_fp4 = 0,
    .pcie_gen = 4,
    .pcie_lanes = 16,
    .scale_up = "pcie4",
    .scale_up_switched = 0,
    /* docs/sources.md §1.1: 350 W. */
    .tdp_watts = 350,
};
