/* The public wl_source API over the format registry (table.c): picks the
 * entry that produces the workload's requests, and keeps the end-of-input
 * and error states here, once, so each format only reports the first
 * occurrence. For every trace format the path, the common trace knobs, the
 * scaling (time_scale / rate_scale) and the requests and duration limits
 * are handled here too, so a format file only reads its rows. */
#include "models/workload/source.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

struct wl_source {
    const struct wl__format *fmt;
    void *state;         /* the entry's, from its open() */
    int trace;           /* fmt has WL_FMT_TRACE */
    double factor;       /* time_scale / rate_scale (traces) */
    int64_t requests;    /* -1 = no limit (traces) */
    int64_t duration_ns; /* -1 = no limit (traces) */
    uint64_t count;
    int rc; /* 0 while producing; then the sticky SIM_E* code */
};

/* Joins base_dir and path: path itself when it is absolute or base_dir is
 * NULL or empty. Caller frees with free(). */
static char *path_join(const char *base_dir, const char *path)
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
    return sim_llround_nonneg(x);
}

uint64_t wl__bench_hash(int shared, uint64_t owner, int64_t block)
{
    uint64_t z;

    assert(block >= 0 && block < (INT64_C(1) << 17));
    assert(owner < (UINT64_C(1) << 46));
    z = (uint64_t)(shared != 0) << 63 | owner << 17 | (uint64_t)block;
    /* The constant keeps the triple (0, 0, 0) away from the finaliser's
     * fixed point 0 (a hash of 0 reads as "no hash" to a careless eye). */
    z ^= UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Checks what source.c handles for fmt (the trace path, the keys only some
 * formats take, the loop, the common trace knobs), in that order. Returns
 * 0 or -1 with an error in d. */
static int check_common(const struct wl__format *fmt,
                        const struct cl_workload *cfg,
                        const struct sim_loop *loop, struct sim_diag *d)
{
    int trace = (fmt->flags & WL_FMT_TRACE) != 0;
    char *names;

    if (trace && (cfg->trace.path == NULL || cfg->trace.path[0] == '\0')) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.path: expected a file name");
        return -1;
    }
    if (trace && cfg->trace.model != NULL && !(fmt->flags & WL_FMT_MODEL)) {
        names = wl__format_names(WL_FMT_MODEL);
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.model: only format %s has a Model "
                       "column",
                       names);
        free(names);
        return -1;
    }
    if (trace && cfg->trace.clients != NULL && !(fmt->flags & WL_FMT_CLIENTS)) {
        names = wl__format_names(WL_FMT_CLIENTS);
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.clients: only format %s has clients",
                       names);
        free(names);
        return -1;
    }
    if ((fmt->flags & WL_FMT_LOOP) && loop == NULL) {
        if (trace)
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace: no simulation loop for the "
                           "random streams of a %s source",
                           fmt->name);
        else if (cfg->kind == CL_WL_SYNTHETIC)
            sim_diag_error(d, NULL, 0, 0,
                           "workload.synthetic: no simulation loop for the "
                           "random streams");
        else
            sim_diag_error(d, NULL, 0, 0,
                           "workload.%s: no simulation loop for the random "
                           "streams",
                           fmt->name);
        return -1;
    }
    if (trace && wl__trace_check(cfg, d) != 0)
        return -1;
    return 0;
}

struct wl_source *wl_source_new(const struct cl_workload *cfg,
                                const char *base_dir, struct sim_loop *loop,
                                struct sim_diag *d)
{
    const struct wl__format *fmt = wl__format_for(cfg);
    struct wl_source *s;
    char *path = NULL;
    void *state;

    if (fmt == NULL && cfg->kind == CL_WL_TRACE) {
        char *names = wl__format_names(WL_FMT_TRACE);
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.format: unknown format %d; valid: %s",
                       cfg->trace.format, names);
        free(names);
        return NULL;
    }
    if (fmt == NULL) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.kind: unknown kind %d; valid: synthetic, "
                       "trace, inference_perf, vllm_bench",
                       cfg->kind);
        return NULL;
    }
    if (check_common(fmt, cfg, loop, d) != 0)
        return NULL;
    if (fmt->flags & WL_FMT_TRACE)
        path = path_join(base_dir, cfg->trace.path);
    state = fmt->ops->open(cfg, path, loop, d);
    free(path);
    if (state == NULL)
        return NULL;
    s = xcalloc(1, sizeof(*s));
    s->fmt = fmt;
    s->state = state;
    if (fmt->flags & WL_FMT_TRACE) {
        s->trace = 1;
        s->factor = cfg->trace.time_scale / cfg->trace.rate_scale;
        s->requests = cfg->trace.requests;
        s->duration_ns = cfg->trace.duration_ns;
    }
    return s;
}

int wl_source_next(struct wl_source *s, struct wl_request *out,
                   struct sim_diag *d)
{
    struct wl_request r = {0};
    int rc;

    if (s->rc != 0)
        return s->rc;
    if (s->trace && s->requests >= 0 && s->count >= (uint64_t)s->requests) {
        rc = SIM_EEOF;
    } else {
        rc = s->fmt->ops->next(s->state, &r, d);
        if (rc == 0 && s->trace) {
            r.arrival_ns = wl__trace_scale(r.arrival_ns, s->factor);
            if (s->duration_ns >= 0 && r.arrival_ns > s->duration_ns)
                rc = SIM_EEOF;
        }
    }
    if (rc != 0) {
        s->rc = rc;
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
    s->fmt->ops->close(s->state);
    free(s);
}
