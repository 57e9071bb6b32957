/*
 * NVIDIA H800 SXM5: the H100's GH100 silicon and low-precision compute with
 * NVLink cut to 400 GB/s bidir (FP64 is also cut, which LLM serving does not
 * use).
 *
 * Figures from docs/sources.md §1.1 (philisun.com "NVIDIA H800 vs H100",
 * aiwiki.ai/wiki/nvidia_h800; deepseek-ai/DeepEP docs/legacy.md), §2.1,
 * §2.2 and §1.4. HGX H800 boards are taken to use NVSwitch like HGX H100
 * (assumption: docs/sources.md does not say; the 215 GB/s all-reduce busbw of
 * NVIDIA/nccl#1374 exceeds the 200 GB/s wire rate, which only NVLink SHARP,
 * a switch feature, allows, docs/sources.md §3.3).
 */
#include "models/gpu/gpu.h"

const struct gpu_spec gpu_h800 = {
    .name = "h800",
    .summary =
        "NVIDIA H800 SXM5 80 GB: H100 compute (989.4 TFLOP/s bf16 "
        "dense), 3.35 TB/s HBM3, NVLink 200 GB/s/dir (docs/sources.md §1.1)",
    .source =
        "third-party H800 comparisons and DeepEP docs via docs/sources.md "
        "§1.1, §2.1, §2.2, §1.4",
    /* docs/sources.md §1.1: same low-precision compute as H100, 989.4 dense. */
    .flops_bf16 = 989.4e12,
    /* docs/sources.md §1.1: 1,978.9 TFLOP/s FP8 dense. */
    .flops_fp8 = 1978.9e12,
    /* docs/sources.md §1.1: 1,978.9 TOPS INT8 dense. */
    .flops_int8 = 1978.9e12,
    /* docs/sources.md §1.1: 80 GB HBM3. */
    .hbm_bytes = INT64_C(80000000000),
    /* docs/sources.md §1.1: 3.35 TB/s. */
    .hbm_bytes_per_s = 3.35e12,
    /* docs/sources.md §1.1, §2.1: NVLink 400 GB/s bidir = 200 per direction
     * (about 160 achievable, DeepEP; see the nvlink-h800 link). */
    .nvlink_bytes_per_s = 200e9,
    /* NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: Ring
     * LL128 NVLink per-step latency 1.9 us. */
    .nvlink_latency_ns = 1900,
    /* docs/sources.md §2.1 (derived): PCIe Gen5 x16 = 63.0 GB/s per direction.
     */
    .pcie_bytes_per_s = 63.0e9,
    /* Default only, docs/sources.md §1.4: no public Western list price; the
     * recommended assumption is the H100 price of the chosen provider,
     * here CoreWeave's (as the h100 entry). */
    .price_usd_per_hour = 6.16,
    .price_source = "default (assumption): no public H800 price; the H100 "
                    "CoreWeave HGX 8x $49.24/h via kaelresearch.com, "
                    "Feb 2026 (docs/sources.md §1.4)",
    /* docs/sources.md §1.4 gives no region for any price. */
    .price_src = {.provider = "CoreWeave (the H100 price, an assumption)",
                  .region = "list price, no region",
                  .basis = "assumption: no public H800 price; the H100 "
                           "on-demand HGX 8-GPU node price $49.24/h / 8",
                  .date = "Feb 2026",
                  .source =
                      "docs/sources.md §1.4 (kaelresearch.com, 3rd-party)"},
    /* docs/sources.md §1.1: no INT4 or FP4 figure for Hopper. */
    .flops_int4 = 0,
    .flops_fp4 = 0,
    /* docs/sources.md §1.1: PCIe Gen5 x16. */
    .pcie_gen = 5,
    .pcie_lanes = 16,
    .scale_up = "nvlink-h800",
    /* Assumption (file comment): NVSwitch as on HGX H100. */
    .scale_up_switched = 1,
    /* docs/sources.md §1.1: 700 W (unverified there). */
    .tdp_watts = 700,
};
