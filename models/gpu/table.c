/*
 * The GPU registry: every entry, sorted by name. To add a GPU, write
 * models/gpu/NAME.c with a const struct gpu_spec gpu_NAME citing its
 * sources, declare it below and insert it in order; the physics test checks
 * that the table stays sorted and unique.
 */
#include "models/gpu/gpu.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/net/net.h"
#include "base/errors.h"
#include "base/xalloc.h"

extern const struct gpu_spec gpu_a100;
extern const struct gpu_spec gpu_b200;
extern const struct gpu_spec gpu_h100;
extern const struct gpu_spec gpu_h200;
extern const struct gpu_spec gpu_h800;
extern const struct gpu_spec gpu_l40s;
extern const struct gpu_spec gpu_mi300x;

const struct gpu_spec *const gpu_table[] = {
    &gpu_a100, &gpu_b200, &gpu_h100,   &gpu_h200,
    &gpu_h800, &gpu_l40s, &gpu_mi300x, NULL,
};

const struct gpu_spec *gpu_find(const char *name)
{
    size_t i;

    if (name == NULL)
        return NULL;
    /* Linear: the table has a handful of entries. */
    for (i = 0; gpu_table[i] != NULL; i++) {
        if (strcasecmp(gpu_table[i]->name, name) == 0)
            return gpu_table[i];
    }
    return NULL;
}

char *gpu_names(void)
{
    size_t i, len = 1;
    char *s;

    for (i = 0; gpu_table[i] != NULL; i++)
        len += strlen(gpu_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (i = 0; gpu_table[i] != NULL; i++) {
        if (i > 0)
            strcat(s, ", ");
        strcat(s, gpu_table[i]->name);
    }
    return s;
}

/* Writes "FIELD: must be OP 0, got V" and returns SIM_EINVAL. */
static int bad(char *why, size_t whylen, const char *field, const char *op,
               double v)
{
    if (why != NULL && whylen > 0)
        snprintf(why, whylen, "%s: must be %s 0, got %g", field, op, v);
    return SIM_EINVAL;
}

int gpu_spec_check(const struct gpu_spec *g, char *why, size_t whylen)
{
    /* Required figures, > 0; then optional ones, >= 0 (0 = none). The
     * negated comparisons also reject NaN. */
    const struct {
        const char *field;
        double v;
    } pos[] =
        {
            {"flops_bf16", g != NULL ? g->flops_bf16 : 0.0},
            {"hbm_bytes", g != NULL ? (double)g->hbm_bytes : 0.0},
            {"hbm_bytes_per_s", g != NULL ? g->hbm_bytes_per_s : 0.0},
            {"nvlink_bytes_per_s", g != NULL ? g->nvlink_bytes_per_s : 0.0},
            {"nvlink_latency_ns",
             g != NULL ? (double)g->nvlink_latency_ns : 0.0},
            {"pcie_bytes_per_s", g != NULL ? g->pcie_bytes_per_s : 0.0},
        },
      nonneg[] = {
          {"flops_fp8", g != NULL ? g->flops_fp8 : 0.0},
          {"flops_int8", g != NULL ? g->flops_int8 : 0.0},
          {"flops_int4", g != NULL ? g->flops_int4 : 0.0},
          {"flops_fp4", g != NULL ? g->flops_fp4 : 0.0},
          {"price_usd_per_hour", g != NULL ? g->price_usd_per_hour : 0.0},
          {"tdp_watts", g != NULL ? g->tdp_watts : 0.0},
          {"pcie_gen", g != NULL ? (double)g->pcie_gen : 0.0},
          {"pcie_lanes", g != NULL ? (double)g->pcie_lanes : 0.0},
      };
    size_t i;

    if (g == NULL || g->name == NULL || g->name[0] == '\0') {
        if (why != NULL && whylen > 0)
            snprintf(why, whylen, "name: missing");
        return SIM_EINVAL;
    }
    for (i = 0; i < sizeof(pos) / sizeof(pos[0]); i++)
        if (!(pos[i].v > 0.0) || isinf(pos[i].v))
            return bad(why, whylen, pos[i].field, ">", pos[i].v);
    for (i = 0; i < sizeof(nonneg) / sizeof(nonneg[0]); i++)
        if (!(nonneg[i].v >= 0.0) || isinf(nonneg[i].v))
            return bad(why, whylen, nonneg[i].field, ">=", nonneg[i].v);
    if (g->scale_up != NULL && net_link_find(g->scale_up) == NULL) {
        if (why != NULL && whylen > 0) {
            char *names = net_link_names();
            snprintf(why, whylen, "scale_up: unknown link '%s'; valid: %s",
                     g->scale_up, names);
            free(names);
        }
        return SIM_EINVAL;
    }
    return 0;
}

void gpu_intra_link(const struct gpu_spec *g, struct net_link *out)
{
    const struct net_link *cls = net_link_find(g->scale_up);

    /* Without a class, assume a switched NVLink fabric: the common case of
     * an inline GPU, and NVLink4's measured efficiency is the only GPU
     * fabric figure docs/sources.md §2.3 has. */
    if (cls == NULL)
        cls = net_link_find("nvlink4");
    memset(out, 0, sizeof(*out));
    out->name = cls->name;
    out->summary = "built by gpu_intra_link() from the GPU's own "
                   "nvlink_bytes_per_s and nvlink_latency_ns and its "
                   "scale-up class's efficiency";
    out->alpha_ns = (double)g->nvlink_latency_ns;
    out->efficiency = cls->efficiency;
    out->mesh_peers = cls->mesh_peers;
    out->hw = cls->hw;
    /* A mesh: nvlink_bytes_per_s is the sum over the peer links (MI300X
     * 7 x 64 GB/s = 448 GB/s, docs/sources.md §1.1), one link per pair. */
    out->bytes_per_s = cls->mesh_peers > 0
                           ? g->nvlink_bytes_per_s / cls->mesh_peers
                           : g->nvlink_bytes_per_s;
}
