/*
 * The GPU catalog: datasheet figures for each GPU kind the simulator knows,
 * one const entry per file (a100.c, b200.c, h100.c, ...) listed by table.c. All
 * quantities are SI base units (FLOP/s, bytes, bytes/s, ns, USD); peak FLOP/s
 * are dense (no 2:4 sparsity). Every figure cites docs/sources.md, which cites
 * the datasheet or third-party reproduction it came from. Entries are immutable
 * and live for the whole program; lookups return borrowed pointers.
 * Single-threaded, no state.
 */
#ifndef GPU_GPU_H
#define GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

struct net_link;

/* GPUs joined by NVLink in one node when nothing says otherwise: an HGX or
 * DGX board of 8. The scenario's hardware.gpus_per_node default and the
 * layout model's. A plain literal (a row's default text). */
#define GPU_DEFAULT_GPUS_PER_NODE 8

/* Where a catalog price comes from, for the cost report's "Prices" table
 * (docs/reports.md): every field is static text taken from
 * docs/sources.md §1.4, none invented. region is "list price, no region"
 * where the source names none. */
struct gpu_price_src {
    const char *provider; /* who charges it, e.g. "CoreWeave" */
    const char *region;   /* as the source gives it, or "list price, ..." */
    const char *basis;    /* on-demand, per GPU-hour, derived from a node */
    const char *date;     /* of the snapshot, e.g. "Feb 2026" */
    const char *source;   /* docs/sources.md section and the page it cites */
};

/* One GPU kind. Prices are defaults (on-demand, third-party snapshots with
 * a date in price_source) to be overridden by the scenario, never facts. */
struct gpu_spec {
    const char *name;    /* catalog key, lower case, e.g. "h200" */
    const char *summary; /* one line for --list-gpus, cites the source */
    const char
        *source; /* where the figures come from (docs/sources.md section) */
    double flops_bf16;      /* dense peak BF16 tensor FLOP/s */
    double flops_fp8;       /* dense peak FP8 tensor FLOP/s */
    double flops_int8;      /* dense peak INT8 tensor OP/s */
    int64_t hbm_bytes;      /* device memory usable by applications */
    double hbm_bytes_per_s; /* peak HBM bandwidth */
    /* Per GPU, per direction, into its intra-node (scale-up) fabric: via
     * NVSwitch what every pair gets; for a mesh (MI300X) the sum over its
     * peer links; without NVLink (L40S) its PCIe link. */
    double nvlink_bytes_per_s;
    int64_t nvlink_latency_ns; /* NCCL per-step latency (alpha) of it */
    double pcie_bytes_per_s;   /* host link, per direction */
    double price_usd_per_hour; /* default on-demand price of one GPU */
    const char *price_source;  /* provider, basis and date of the price */
    /* The same provenance field by field; all NULL for a GPU defined in a
     * scenario (hardware.gpus), whose price the scenario sets. */
    struct gpu_price_src price_src;
    /* Added with issue #3. Zero where the chip has none or docs/sources.md
     * gives no figure; a spec built from scratch may leave them zero or NULL.
     */
    double flops_int4; /* dense peak INT4 tensor OP/s, 0 if none */
    double flops_fp4;  /* dense peak FP4 tensor FLOP/s, 0 if none */
    int pcie_gen;      /* host link PCIe generation, e.g. 5 */
    int pcie_lanes;    /* host link lanes, e.g. 16 */
    /* net_link catalog name of the intra-node link class ("nvlink4",
     * "nvlink-h800", "nvlink3", "nvlink5", "xgmi", "pcie4"), or NULL. */
    const char *scale_up;
    int scale_up_switched; /* 1 through NVSwitch, 0 mesh or none */
    double tdp_watts;      /* board power */
};

/* NULL-terminated, sorted by name. Borrowed, static. */
extern const struct gpu_spec *const gpu_table[];

/* Returns the entry whose name equals name, ignoring ASCII case, or NULL if
 * there is none (or name is NULL). The result is borrowed and static. */
const struct gpu_spec *gpu_find(const char *name);

/* Returns the catalog names joined by ", " in table order, for "valid: ..."
 * messages, e.g. "b200, h100, h200". Caller frees with free(). */
char *gpu_names(void);

/* Checks a spec built outside the catalog (a scenario's inline GPU): name
 * set; flops_bf16, hbm_bytes, hbm_bytes_per_s, nvlink_bytes_per_s,
 * nvlink_latency_ns and pcie_bytes_per_s finite and > 0; flops_fp8,
 * flops_int8, flops_int4, flops_fp4, price_usd_per_hour, tdp_watts,
 * pcie_gen and pcie_lanes finite and >= 0 (0 = none or unknown); scale_up
 * NULL or a net_link catalog name. Returns 0, or SIM_EINVAL with one
 * lower-case line naming the field written to why (if why is not NULL and
 * whylen > 0). */
int gpu_spec_check(const struct gpu_spec *g, char *why, size_t whylen);

/* Fills out with g's intra-node link built from g's own figures, so that an
 * inline or calibrated GPU gets collectives right: alpha_ns =
 * nvlink_latency_ns, efficiency and mesh_peers those of the scale_up class
 * (NVLink4's, switched, when scale_up is NULL or unknown), bytes_per_s =
 * nvlink_bytes_per_s, divided by mesh_peers for a mesh (one link per peer
 * pair). name and summary point to static strings; out borrows nothing
 * from g. */
void gpu_intra_link(const struct gpu_spec *g, struct net_link *out);

#endif /* GPU_GPU_H */
