/* Dispatch from the public wl_source API to the synthetic and trace kinds,
 * plus the helpers they share. The end-of-input and error states are kept
 * here, once, so each kind only reports the first occurrence. For the
 * mooncake, burstgpt and servegen kinds the scaling (time_scale /
 * rate_scale) and the requests and duration limits are applied here too;
 * azure.c applies its own (it came first). */
#include "models/workload/source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "base/xalloc.h"

struct wl_source {
    int kind;   /* enum cl_workload_kind */
    int format; /* enum cl_trace_format, for a trace */
    struct wl__synthetic *syn;
    struct wl__sessions *ses; /* synthetic with sessions */
    struct wl__azure *azure;
    struct wl__mooncake *mooncake;
    struct wl__burstgpt *burstgpt;
    struct wl__servegen *servegen;
    double factor;       /* time_scale / rate_scale (new trace kinds) */
    int64_t requests;    /* -1 = no limit (new trace kinds) */
    int64_t duration_ns; /* -1 = no limit (new trace kinds) */
    uint64_t count;
    int state; /* 0 while producing; then the sticky SIM_E* code */
};

/* Where the public files of each format are published, appended to the
 * message for a missing trace file. Repository paths, not URLs. */
static const char *const download_hints[] = {
    [CL_TRACE_AZURE] = "the Azure LLM inference traces are in the "
                       "Azure/AzurePublicDataset repository on GitHub, "
                       "data/AzureLLMInferenceTrace_{conv,code}.csv; "
                       "download one and set workload.trace.path or pass "
                       "dsec run --trace FILE",
    [CL_TRACE_MOONCAKE] = "the Mooncake traces are in the kvcache-ai/Mooncake "
                          "repository on GitHub, "
                          "FAST25-release/traces/conversation_trace.jsonl "
                          "(also toolagent_trace.jsonl, "
                          "synthetic_trace.jsonl); download one and set "
                          "workload.trace.path or pass dsec run --trace FILE",
    [CL_TRACE_BURSTGPT] = "the BurstGPT traces are in the HPMLL/BurstGPT "
                          "repository on GitHub (data/BurstGPT_*.csv, Git "
                          "LFS); download one and set workload.trace.path "
                          "or pass dsec run --trace FILE",
    [CL_TRACE_SERVEGEN] = "the ServeGen client statistics are in the "
                          "alibaba/ServeGen repository on GitHub, e.g. "
                          "data/reason/deepseek-r1/ (chunk-<id>-trace.csv "
                          "and chunk-<id>-dataset.json); download a folder "
                          "and set workload.trace.path or pass dsec run "
                          "--trace DIR",
};

const char *wl__download_hint(int format)
{
    if (format < 0 ||
        (size_t)format >= sizeof(download_hints) / sizeof(download_hints[0]))
        return NULL;
    return download_hints[format];
}

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
        if (cfg->synthetic.sessions.enabled) {
            struct wl__sessions *ses = wl__sessions_new(cfg, loop, d);
            if (ses == NULL)
                return NULL;
            s = xcalloc(1, sizeof(*s));
            s->ses = ses;
            break;
        }
        struct wl__synthetic *syn = wl__synthetic_new(cfg, loop, d);
        if (syn == NULL)
            return NULL;
        s = xcalloc(1, sizeof(*s));
        s->syn = syn;
        break;
    }
    case CL_WL_TRACE: {
        int fmt = cfg->trace.format;
        if (fmt != CL_TRACE_AZURE && fmt != CL_TRACE_MOONCAKE &&
            fmt != CL_TRACE_BURSTGPT && fmt != CL_TRACE_SERVEGEN) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.format: unknown format %d; valid: "
                           "azure, burstgpt, mooncake, servegen",
                           fmt);
            return NULL;
        }
        if (cfg->trace.path == NULL || cfg->trace.path[0] == '\0') {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.path: expected a file name");
            return NULL;
        }
        if (cfg->trace.model != NULL && fmt != CL_TRACE_BURSTGPT) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.model: only format burstgpt has "
                           "a Model column");
            return NULL;
        }
        if (cfg->trace.clients != NULL && fmt != CL_TRACE_SERVEGEN) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.clients: only format servegen has "
                           "clients");
            return NULL;
        }
        if (fmt == CL_TRACE_SERVEGEN && loop == NULL) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace: no simulation loop for the "
                           "random streams of a servegen source");
            return NULL;
        }
        if (fmt != CL_TRACE_AZURE && wl__trace_check(cfg, d) != 0)
            return NULL;
        char *path = wl__path_join(base_dir, cfg->trace.path);
        s = xcalloc(1, sizeof(*s));
        switch (fmt) {
        case CL_TRACE_AZURE:
            s->azure = wl__azure_new(cfg, path, d);
            break;
        case CL_TRACE_MOONCAKE:
            s->mooncake = wl__mooncake_new(path, d);
            break;
        case CL_TRACE_BURSTGPT:
            s->burstgpt = wl__burstgpt_new(cfg, path, d);
            break;
        default:
            s->servegen = wl__servegen_new(cfg, path, loop, d);
            break;
        }
        free(path);
        if (s->azure == NULL && s->mooncake == NULL && s->burstgpt == NULL &&
            s->servegen == NULL) {
            free(s);
            return NULL;
        }
        s->format = fmt;
        s->factor = cfg->trace.time_scale / cfg->trace.rate_scale;
        s->requests = cfg->trace.requests;
        s->duration_ns = cfg->trace.duration_ns;
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
    struct wl_request r = {0};
    int rc;

    if (s->state != 0)
        return s->state;
    if (s->kind == CL_WL_SYNTHETIC && s->ses != NULL) {
        rc = wl__sessions_next(s->ses, &r);
    } else if (s->kind == CL_WL_SYNTHETIC) {
        rc = wl__synthetic_next(s->syn, &r);
    } else if (s->format == CL_TRACE_AZURE) {
        rc = wl__azure_next(s->azure, &r, d);
    } else {
        if (s->requests >= 0 && s->count >= (uint64_t)s->requests) {
            rc = SIM_EEOF;
        } else if (s->format == CL_TRACE_MOONCAKE) {
            rc = wl__mooncake_next(s->mooncake, &r, d);
        } else if (s->format == CL_TRACE_BURSTGPT) {
            rc = wl__burstgpt_next(s->burstgpt, &r, d);
        } else {
            rc = wl__servegen_next(s->servegen, &r, d);
        }
        if (rc == 0) {
            r.arrival_ns = wl__trace_scale(r.arrival_ns, s->factor);
            if (s->duration_ns >= 0 && r.arrival_ns > s->duration_ns)
                rc = SIM_EEOF;
        }
    }
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
    wl__sessions_free(s->ses);
    wl__azure_free(s->azure);
    wl__mooncake_free(s->mooncake);
    wl__burstgpt_free(s->burstgpt);
    wl__servegen_free(s->servegen);
    free(s);
}
