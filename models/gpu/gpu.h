/*
 * The GPU catalog: datasheet figures for each GPU kind the simulator knows,
 * one const entry per file (h100.c, h200.c, b200.c) listed by table.c. All
 * quantities are SI base units (FLOP/s, bytes, bytes/s, ns, USD); peak FLOP/s
 * are dense (no 2:4 sparsity). Every figure cites FACTS.md, which cites the
 * datasheet or third-party reproduction it came from. Entries are immutable
 * and live for the whole program; lookups return borrowed pointers.
 * Single-threaded, no state.
 */
#ifndef GPU_GPU_H
#define GPU_GPU_H

#include <stdint.h>

/* One GPU kind. Prices are defaults (on-demand, third-party snapshots with
 * a date in price_source) to be overridden by the scenario, never facts. */
struct gpu_spec {
    const char *name;       /* catalog key, lower case, e.g. "h200" */
    const char *summary;    /* one line for --list-gpus, cites the source */
    const char *source;     /* where the figures come from (FACTS.md section) */
    double flops_bf16;      /* dense peak BF16 tensor FLOP/s */
    double flops_fp8;       /* dense peak FP8 tensor FLOP/s */
    double flops_int8;      /* dense peak INT8 tensor OP/s */
    int64_t hbm_bytes;      /* device memory usable by applications */
    double hbm_bytes_per_s; /* peak HBM bandwidth */
    double nvlink_bytes_per_s; /* per GPU, per direction, via NVSwitch */
    int64_t nvlink_latency_ns; /* NCCL per-step NVLink latency (alpha) */
    double pcie_bytes_per_s;   /* host link, per direction */
    double price_usd_per_hour; /* default on-demand price of one GPU */
    const char *price_source;  /* provider, basis and date of the price */
};

/* NULL-terminated, sorted by name. Borrowed, static. */
extern const struct gpu_spec *const gpu_table[];

/* Returns the entry whose name equals name, ignoring ASCII case, or NULL if
 * there is none (or name is NULL). The result is borrowed and static. */
const struct gpu_spec *gpu_find(const char *name);

/* Returns the catalog names joined by ", " in table order, for "valid: ..."
 * messages, e.g. "b200, h100, h200". Caller frees with free(). */
char *gpu_names(void);

#endif /* GPU_GPU_H */
