/* Dispatch from the public wl_source API to the synthetic and trace kinds,
 * plus the helpers they share. The end-of-input and error states are kept
 * here, once, so each kind only reports the first occurrence. */
#include "models/workload/source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"
#include "sim/errors.h"
#include "sim/xalloc.h"

struct wl_source {
    int kind; /* enum cl_workload_kind */
    struct wl__synthetic *syn;
    struct wl__azure *azure;
    uint64_t count;
    int state; /* 0 while producing; then the sticky SIM_E* code */
};

char *wl__path_join(const char *base_dir, const char *path)
{
    if (path[0] == '/' || base_dir == NULL || base_dir[0] == '\0')
        return xstrdup(path);
    size_t n = strlen(base_dir);
    if (base_dir[n - 1] == '/')
        return xasprintf("%s%s", base_dir, path);
    return xasprintf("%s/%s", base_dir, path);
}

int64_t wl__tokens_round(double x)
{
    /* Clamping rather than rejecting: a distribution tail (lognormal with a
     * large sd) can legitimately produce huge or sub-0.5 values, and a
     * request always has at least one prompt and one output token. */
    if (!(x >= 1.0))
        return 1;
    if (x >= (double)WL_TOKENS_MAX)
        return WL_TOKENS_MAX;
    return (int64_t)llround(x);
}

struct wl_source *wl_source_new(const struct cl_workload *cfg,
                                const char *base_dir, struct sim_loop *loop,
                                struct sim_diag *d)
{
    struct wl_source *s;

    switch (cfg->kind) {
    case CL_WL_SYNTHETIC: {
        if (loop == NULL) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.synthetic: no simulation loop for the "
                           "random streams");
            return NULL;
        }
        struct wl__synthetic *syn = wl__synthetic_new(cfg, loop, d);
        if (syn == NULL)
            return NULL;
        s = xcalloc(1, sizeof(*s));
        s->syn = syn;
        break;
    }
    case CL_WL_TRACE: {
        if (cfg->trace.format != CL_TRACE_AZURE) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.format: unknown format %d; valid: "
                           "azure",
                           cfg->trace.format);
            return NULL;
        }
        if (cfg->trace.path == NULL || cfg->trace.path[0] == '\0') {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.path: expected a file name");
            return NULL;
        }
        char *path = wl__path_join(base_dir, cfg->trace.path);
        struct wl__azure *az = wl__azure_new(cfg, path, d);
        free(path);
        if (az == NULL)
            return NULL;
        s = xcalloc(1, sizeof(*s));
        s->azure = az;
        break;
    }
    default:
        sim_diag_error(d, NULL, 0, 0,
                       "workload.kind: unknown kind %d; valid: synthetic, "
                       "trace",
                       cfg->kind);
        return NULL;
    }
    s->kind = cfg->kind;
    return s;
}

int wl_source_next(struct wl_source *s, struct wl_request *out,
                   struct sim_diag *d)
{
    struct wl_request r;
    int rc;

    if (s->state != 0)
        return s->state;
    if (s->kind == CL_WL_SYNTHETIC)
        rc = wl__synthetic_next(s->syn, &r);
    else
        rc = wl__azure_next(s->azure, &r, d);
    if (rc != 0) {
        s->state = rc;
        return rc;
    }
    *out = r;
    s->count++;
    return 0;
}

uint64_t wl_source_count(const struct wl_source *s)
{
    return s->count;
}

void wl_source_free(struct wl_source *s)
{
    if (s == NULL)
        return;
    wl__synthetic_free(s->syn);
    wl__azure_free(s->azure);
    free(s);
}
