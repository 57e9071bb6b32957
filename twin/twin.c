/*
 * The twin's answers: the Prometheus exposition of a session with vLLM's
 * metric names, types, help texts and histogram buckets (docs/sources.md
 * §6.1; buckets from models/policy/promhist.c and cl_vhist_bounds(), which
 * cite vLLM's v1/metrics/loggers.py), and the Kubernetes scale subresource of
 * one Deployment as the API server answers it (docs/sources.md §7.1): GET gives
 * an autoscaling/v1 Scale, PATCH takes a merge patch (or strategic merge,
 * or a JSON patch of /spec/replicas), errors are v1 Status objects with
 * Kubernetes' reasons and codes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "models/cluster/cluster.h"
#include "base/xalloc.h"
#include "twin/twin.h"

/* Kubernetes' spec.replicas is an int32. */
#define TWIN_REPLICAS_MAX 2147483647LL

void twin_init(struct twin *t, struct cl_session *ss, const char *ns,
               const char *deployment, const char *model_name, double speed)
{
    struct cl_session_cluster c;

    memset(t, 0, sizeof(*t));
    t->ss = ss;
    t->ns = ns;
    t->deployment = deployment;
    t->model_name = model_name;
    t->speed = speed;
    cl_session_cluster(ss, &c);
    t->spec_replicas = c.desired;
    t->resource_version = 1;
}

int twin_name_ok(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return 0;
    return 1;
}

/* A sample value as Prometheus' clients print it: the shortest of %.15g
 * and %.17g that reads back exactly; NaN and infinities by name. */
static void put_value(FILE *fp, double v)
{
    char buf[64];

    if (isnan(v)) {
        fputs("NaN", fp);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "+Inf" : "-Inf", fp);
        return;
    }
    snprintf(buf, sizeof(buf), "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof(buf), "%.17g", v);
    fputs(buf, fp);
}

/* A bucket bound as prometheus_client writes le: "0.5", "1.0", "2560.0". */
static void fmt_le(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%g", v);
    if (strpbrk(buf, ".e") == NULL && strlen(buf) + 3 <= len)
        strcat(buf, ".0");
}

/* A label value with the exposition format's escapes. */
static void put_label(FILE *fp, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '\\')
            fputs("\\\\", fp);
        else if (*s == '"')
            fputs("\\\"", fp);
        else if (*s == '\n')
            fputs("\\n", fp);
        else
            fputc(*s, fp);
    }
}

static void put_head(FILE *fp, const char *name, const char *type,
                     const char *help)
{
    fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{model_name="M",engine="0",replica="R"[,extra]}: vLLM's labels in
 * its order, then the replica as a pod would be told apart. */
static void put_series(FILE *fp, const struct twin *t, const char *name,
                       const struct cl_session_replica *r, const char *extra)
{
    fprintf(fp, "%s{model_name=\"", name);
    put_label(fp, t->model_name);
    fprintf(fp, "\",engine=\"0\",replica=\"%s-%llu\"", t->deployment,
            (unsigned long long)r->serial);
    if (extra != NULL)
        fprintf(fp, ",%s", extra);
    fputs("} ", fp);
}

enum field {
    F_RUNNING,
    F_WAITING,
    F_KV,
    F_PROMPT,
    F_GEN,
    F_SUCCESS,
};

static double field_of(const struct cl_session_replica *r, int f)
{
    switch (f) {
    case F_RUNNING:
        return r->num_running;
    case F_WAITING:
        return r->num_waiting;
    case F_KV:
        return isnan(r->kv_usage) ? 0 : r->kv_usage;
    case F_PROMPT:
        return (double)r->prompt_tokens;
    case F_GEN:
        return (double)r->generation_tokens;
    default:
        return (double)r->request_success;
    }
}

/* The histograms a replica exposes, in /metrics order. */
enum hist_id {
    H_TTFT,
    H_ITL,
    H_E2E,
    H_PROMPT,
    H_OUTPUT,
};

static void put_histogram(FILE *fp, const struct twin *t, const char *name,
                          const struct cl_session_replica *reps, int n, int id)
{
    char series[128];

    for (int i = 0; i < n; i++) {
        const struct cl_session_replica *r = &reps[i];
        const double *le;
        const uint64_t *bucket;
        double sum;
        uint64_t count, cum = 0;
        int nle;

        if (id == H_TTFT || id == H_ITL) {
            const struct pol_ph *h = id == H_TTFT ? &r->ttft : &r->itl;
            le = pol_ph_bounds(h->kind, &nle);
            bucket = h->bucket;
            sum = h->sum;
            count = h->count;
        } else {
            int k = id == H_E2E      ? CL_VH_E2E
                    : id == H_PROMPT ? CL_VH_PROMPT
                                     : CL_VH_OUTPUT;
            le = cl_vhist_bounds(k, &nle);
            bucket = r->req[k].bucket;
            sum = r->req[k].sum;
            count = r->req[k].count;
        }
        snprintf(series, sizeof(series), "%s_bucket", name);
        for (int b = 0; b <= nle; b++) {
            char extra[64], lebuf[32] = "+Inf";

            cum += bucket[b];
            if (b < nle)
                fmt_le(lebuf, sizeof(lebuf), le[b]);
            snprintf(extra, sizeof(extra), "le=\"%s\"", lebuf);
            put_series(fp, t, series, r, extra);
            fprintf(fp, "%llu\n", (unsigned long long)cum);
        }
        snprintf(series, sizeof(series), "%s_sum", name);
        put_series(fp, t, series, r, NULL);
        put_value(fp, sum);
        fputc('\n', fp);
        snprintf(series, sizeof(series), "%s_count", name);
        put_series(fp, t, series, r, NULL);
        fprintf(fp, "%llu\n", (unsigned long long)count);
    }
}

static int by_serial(const void *a, const void *b)
{
    uint64_t x = ((const struct cl_session_replica *)a)->serial;
    uint64_t y = ((const struct cl_session_replica *)b)->serial;
    return (x > y) - (x < y);
}

static void put_twin_gauge(FILE *fp, const char *name, const char *type,
                           const char *help, double v)
{
    put_head(fp, name, type, help);
    fputs(name, fp);
    fputc(' ', fp);
    put_value(fp, v);
    fputc('\n', fp);
}

char *twin_metrics(const struct twin *t, size_t *len)
{
    /* vLLM's help texts (v1/metrics/loggers.py). */
    static const struct {
        const char *name, *type, *help;
        int field;
    } scalars[] = {
        {"vllm:num_requests_running", "gauge",
         "Number of requests in model execution batches.", F_RUNNING},
        {"vllm:num_requests_waiting", "gauge",
         "Number of requests waiting to be processed.", F_WAITING},
        {"vllm:kv_cache_usage_perc", "gauge",
         "KV-cache usage. 1 means 100 percent usage.", F_KV},
        {"vllm:prompt_tokens_total", "counter",
         "Number of prefill tokens processed.", F_PROMPT},
        {"vllm:generation_tokens_total", "counter",
         "Number of generation tokens processed.", F_GEN},
        {"vllm:request_success_total", "counter",
         "Count of successfully processed requests.", F_SUCCESS},
    };
    static const struct {
        const char *name, *help;
        int id;
    } hists[] = {
        {"vllm:time_to_first_token_seconds",
         "Histogram of time to first token in seconds.", H_TTFT},
        {"vllm:inter_token_latency_seconds",
         "Histogram of inter-token latency in seconds.", H_ITL},
        {"vllm:e2e_request_latency_seconds",
         "Histogram of e2e request latency in seconds.", H_E2E},
        {"vllm:request_prompt_tokens", "Number of prefill tokens processed.",
         H_PROMPT},
        {"vllm:request_generation_tokens",
         "Number of generation tokens processed.", H_OUTPUT},
    };
    struct cl_session_cluster c;
    struct cl_session_replica *reps;
    int nslots = cl_session_nreplicas(t->ss), n = 0;
    char *buf = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&buf, &size);

    if (fp == NULL)
        sim_fatal("out of memory");
    cl_session_cluster(t->ss, &c);
    reps = xcalloc((size_t)nslots + 1, sizeof(*reps));
    /* Serving replicas only, in start order: a ready pod is scraped; one
     * starting or terminating is not. */
    for (int i = 0; i < nslots; i++)
        if (cl_session_replica(t->ss, i, &reps[n]) == 0 &&
            reps[n].state == CL_SS_SERVING)
            n++;
    qsort(reps, (size_t)n, sizeof(*reps), by_serial);

    for (size_t k = 0; k < sizeof(scalars) / sizeof(scalars[0]); k++) {
        /* In format 0.0.4 prometheus_client writes a counter's HELP and
         * TYPE with the _total of its samples. */
        put_head(fp, scalars[k].name, scalars[k].type, scalars[k].help);
        for (int i = 0; i < n; i++) {
            put_series(fp, t, scalars[k].name, &reps[i],
                       scalars[k].field == F_SUCCESS
                           ? "finished_reason=\"stop\""
                           : NULL);
            put_value(fp, field_of(&reps[i], scalars[k].field));
            fputc('\n', fp);
        }
    }
    for (size_t k = 0; k < sizeof(hists) / sizeof(hists[0]); k++) {
        put_head(fp, hists[k].name, "histogram", hists[k].help);
        put_histogram(fp, t, hists[k].name, reps, n, hists[k].id);
    }
    put_head(fp, "vllm:cache_config_info", "gauge",
             "Information of the LLMEngine CacheConfig");
    for (int i = 0; i < n; i++) {
        char extra[96];
        int bt = reps[i].block_tokens > 0 ? reps[i].block_tokens : 1;
        snprintf(
            extra, sizeof(extra), "block_size=\"%d\",num_gpu_blocks=\"%lld\"",
            reps[i].block_tokens, (long long)(reps[i].kv_capacity_tokens / bt));
        put_series(fp, t, "vllm:cache_config_info", &reps[i], extra);
        fputs("1.0\n", fp);
    }

    put_twin_gauge(fp, "dsec_twin_sim_time_seconds", "gauge",
                   "Simulated time the twin has reached.", c.now_s);
    put_twin_gauge(fp, "dsec_twin_speed", "gauge",
                   "Simulated seconds per wall-clock second.", t->speed);
    put_twin_gauge(fp, "dsec_twin_spec_replicas", "gauge",
                   "spec.replicas of the scale subresource as last set.",
                   t->spec_replicas);
    put_twin_gauge(fp, "dsec_twin_desired_replicas", "gauge",
                   "Replicas the simulated cluster holds or starts: "
                   "spec.replicas clamped to the scenario's bounds.",
                   c.desired);
    put_twin_gauge(fp, "dsec_twin_min_replicas", "gauge",
                   "The scenario's least replicas (cluster.min_gpus).",
                   c.min_replicas);
    put_twin_gauge(fp, "dsec_twin_max_replicas", "gauge",
                   "The scenario's most replicas (cluster.max_gpus).",
                   c.max_replicas);
    put_twin_gauge(fp, "dsec_twin_ready_replicas", "gauge", "Replicas serving.",
                   c.serving);
    put_twin_gauge(fp, "dsec_twin_pending_replicas", "gauge",
                   "Replicas provisioning or loading their weights.",
                   c.pending);
    put_twin_gauge(fp, "dsec_twin_draining_replicas", "gauge",
                   "Replicas finishing their requests before they go.",
                   c.draining);
    put_twin_gauge(fp, "dsec_twin_unrouted_requests", "gauge",
                   "Requests held by the router with no serving replica.",
                   (double)c.unrouted);
    put_twin_gauge(fp, "dsec_twin_workload_done", "gauge",
                   "1 once the scenario's workload has ended and drained.",
                   c.workload_done);
    put_twin_gauge(fp, "dsec_twin_requests_arrived_total", "counter",
                   "Requests that have arrived.", (double)c.arrived);
    put_twin_gauge(fp, "dsec_twin_requests_completed_total", "counter",
                   "Requests that have completed.", (double)c.completed);
    put_twin_gauge(fp, "dsec_twin_scale_events_total", "counter",
                   "Changes of the cluster's size.", (double)c.scale_events);
    put_twin_gauge(fp, "dsec_twin_scale_patches_total", "counter",
                   "PATCH requests that changed spec.replicas.",
                   (double)t->patches);
    free(reps);
    if (fclose(fp) != 0)
        sim_fatal("out of memory");
    *len = size;
    return buf;
}

/* Takes ownership of o: serialises it into out's body. */
static void reply_json(struct twin_reply *out, int status,
                       struct json_object *o)
{
    size_t n;
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);

    out->status = status;
    out->content_type = "application/json";
    out->body = xmalloc(n + 2);
    memcpy(out->body, s, n);
    out->body[n] = '\n';
    out->body[n + 1] = '\0';
    out->len = n + 1;
    json_object_put(o);
}

static void reply_text(struct twin_reply *out, int status, const char *text)
{
    out->status = status;
    out->content_type = "text/plain; charset=utf-8";
    out->body = xstrdup(text);
    out->len = strlen(text);
}

/* A v1 Status, as the API server reports a failed request. details: the
 * deployment's name (NULL: none). */
static void reply_status(struct twin_reply *out, int code, const char *reason,
                         const char *details_name, const char *message)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "kind", json_object_new_string("Status"));
    json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(o, "metadata", json_object_new_object());
    json_object_object_add(o, "status", json_object_new_string("Failure"));
    json_object_object_add(o, "message", json_object_new_string(message));
    json_object_object_add(o, "reason", json_object_new_string(reason));
    if (details_name != NULL) {
        struct json_object *d = json_object_new_object();
        json_object_object_add(d, "name", json_object_new_string(details_name));
        json_object_object_add(d, "group", json_object_new_string("apps"));
        json_object_object_add(d, "kind",
                               json_object_new_string("deployments"));
        json_object_object_add(o, "details", d);
    }
    json_object_object_add(o, "code", json_object_new_int(code));
    reply_json(out, code, o);
}

static void reply_scale(const struct twin *t, struct twin_reply *out)
{
    struct cl_session_cluster c;
    struct json_object *o = json_object_new_object();
    struct json_object *md = json_object_new_object();
    struct json_object *spec = json_object_new_object();
    struct json_object *st = json_object_new_object();
    char rv[32], sel[96];

    cl_session_cluster(t->ss, &c);
    snprintf(rv, sizeof(rv), "%llu", (unsigned long long)t->resource_version);
    snprintf(sel, sizeof(sel), "app=%s", t->deployment);
    json_object_object_add(o, "kind", json_object_new_string("Scale"));
    json_object_object_add(o, "apiVersion",
                           json_object_new_string("autoscaling/v1"));
    json_object_object_add(md, "name", json_object_new_string(t->deployment));
    json_object_object_add(md, "namespace", json_object_new_string(t->ns));
    json_object_object_add(md, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(o, "metadata", md);
    json_object_object_add(spec, "replicas",
                           json_object_new_int(t->spec_replicas));
    json_object_object_add(o, "spec", spec);
    /* A Deployment's status.replicas counts its pods that are not
     * terminating: serving and starting replicas. */
    json_object_object_add(st, "replicas",
                           json_object_new_int(c.serving + c.pending));
    json_object_object_add(st, "selector", json_object_new_string(sel));
    json_object_object_add(o, "status", st);
    reply_json(out, 200, o);
}

/* The media type of a Content-Type header, without parameters. */
static int media_is(const char *ct, const char *type)
{
    size_t n = strlen(type);
    if (ct == NULL)
        return 0;
    while (*ct == ' ')
        ct++;
    return strncasecmp(ct, type, n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* Reads spec.replicas from a merge patch (1 = present, 0 = absent) or
 * answers the error and returns -1. */
static int merge_patch_replicas(struct json_object *root, long long *n,
                                struct twin_reply *out)
{
    struct json_object *spec, *r;

    if (!json_object_is_type(root, json_type_object)) {
        reply_status(out, 400, "BadRequest", NULL,
                     "error decoding patch: the patch is not a JSON object");
        return -1;
    }
    if (!json_object_object_get_ex(root, "spec", &spec) ||
        json_object_is_type(spec, json_type_null))
        return 0;
    if (!json_object_is_type(spec, json_type_object)) {
        reply_status(out, 400, "BadRequest", NULL, "spec: expected an object");
        return -1;
    }
    if (!json_object_object_get_ex(spec, "replicas", &r))
        return 0;
    if (!json_object_is_type(r, json_type_int)) {
        reply_status(out, 400, "BadRequest", NULL,
                     "spec.replicas: expected an integer");
        return -1;
    }
    *n = json_object_get_int64(r);
    return 1;
}

/* Reads the value of a JSON patch's replace/add of /spec/replicas. */
static int json_patch_replicas(struct json_object *root, long long *n,
                               struct twin_reply *out)
{
    int found = 0;

    if (!json_object_is_type(root, json_type_array)) {
        reply_status(out, 400, "BadRequest", NULL,
                     "error decoding patch: a JSON patch is an array");
        return -1;
    }
    for (size_t i = 0; i < json_object_array_length(root); i++) {
        struct json_object *op = json_object_array_get_idx(root, i), *v;
        const char *o = NULL, *p = NULL;
        struct json_object *x;

        if (json_object_object_get_ex(op, "op", &x))
            o = json_object_get_string(x);
        if (json_object_object_get_ex(op, "path", &x))
            p = json_object_get_string(x);
        if (o == NULL || p == NULL || strcmp(p, "/spec/replicas") != 0 ||
            (strcmp(o, "replace") != 0 && strcmp(o, "add") != 0)) {
            reply_status(out, 422, "Invalid", NULL,
                         "the twin's scale takes only replace or add of "
                         "/spec/replicas");
            return -1;
        }
        if (!json_object_object_get_ex(op, "value", &v) ||
            !json_object_is_type(v, json_type_int)) {
            reply_status(out, 400, "BadRequest", NULL,
                         "/spec/replicas: expected an integer value");
            return -1;
        }
        *n = json_object_get_int64(v);
        found = 1;
    }
    return found;
}

static void patch_scale(struct twin *t, const char *content_type,
                        const char *dry_run, const char *body, size_t len,
                        struct twin_reply *out)
{
    int merge =
        media_is(content_type, "application/merge-patch+json") ||
        media_is(content_type, "application/strategic-merge-patch+json");
    int jpatch = media_is(content_type, "application/json-patch+json");
    struct json_tokener *tok;
    struct json_object *root;
    long long n = 0;
    int have;

    if (!merge && !jpatch) {
        reply_status(out, 415, "UnsupportedMediaType", NULL,
                     "the body of the request was in an unknown format - "
                     "accepted media types include: "
                     "application/json-patch+json, "
                     "application/merge-patch+json, "
                     "application/strategic-merge-patch+json");
        return;
    }
    tok = json_tokener_new();
    root = json_tokener_parse_ex(tok, body != NULL ? body : "", (int)len);
    if (root == NULL || json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != len) {
        char msg[160];
        enum json_tokener_error e = json_tokener_get_error(tok);
        snprintf(msg, sizeof(msg), "error decoding patch: %s",
                 e == json_tokener_continue || e == json_tokener_success
                     ? "unexpected end of JSON input"
                     : json_tokener_error_desc(e));
        json_object_put(root);
        json_tokener_free(tok);
        reply_status(out, 400, "BadRequest", NULL, msg);
        return;
    }
    json_tokener_free(tok);
    have = merge ? merge_patch_replicas(root, &n, out)
                 : json_patch_replicas(root, &n, out);
    json_object_put(root);
    if (have < 0)
        return;
    if (have && (n < 0 || n > TWIN_REPLICAS_MAX)) {
        char msg[200];
        snprintf(msg, sizeof(msg),
                 "Scale.autoscaling \"%s\" is invalid: spec.replicas: "
                 "Invalid value: %lld: must be greater than or equal to 0",
                 t->deployment, n);
        reply_status(out, 422, "Invalid", t->deployment, msg);
        return;
    }
    if (have && (dry_run == NULL || strcmp(dry_run, "All") != 0) &&
        n != t->spec_replicas) {
        t->spec_replicas = (int)n;
        t->resource_version++;
        t->patches++;
        cl_session_set_desired(t->ss, (int)n);
    }
    reply_scale(t, out);
}

void twin_handle(struct twin *t, const char *method, const char *path,
                 const char *content_type, const char *dry_run,
                 const char *body, size_t len, struct twin_reply *out)
{
    static const char apis[] = "/apis/apps/v1/namespaces/";
    int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;

    memset(out, 0, sizeof(*out));
    if (strcmp(path, "/metrics") == 0 || strcmp(path, "/healthz") == 0) {
        if (!get) {
            reply_text(out, 405, "method not allowed\n");
            out->allow = "GET, HEAD";
            return;
        }
        if (path[1] == 'h') {
            reply_text(out, 200, "ok\n");
            return;
        }
        out->status = 200;
        out->content_type = "text/plain; version=0.0.4; charset=utf-8";
        out->body = twin_metrics(t, &out->len);
        return;
    }
    if (strncmp(path, apis, sizeof(apis) - 1) == 0) {
        /* NS/deployments/NAME/scale */
        const char *ns = path + sizeof(apis) - 1;
        const char *slash = strchr(ns, '/');
        size_t nslen = slash != NULL ? (size_t)(slash - ns) : 0;
        const char *rest = slash != NULL ? slash + 1 : "";
        static const char dep[] = "deployments/";
        const char *name, *end;
        size_t namelen;
        char msg[300], *nm;

        if (strncmp(rest, dep, sizeof(dep) - 1) != 0)
            goto not_found;
        name = rest + sizeof(dep) - 1;
        end = strchr(name, '/');
        if (end == NULL || strcmp(end, "/scale") != 0)
            goto not_found;
        namelen = (size_t)(end - name);
        if (nslen != strlen(t->ns) || strncmp(ns, t->ns, nslen) != 0 ||
            namelen != strlen(t->deployment) ||
            strncmp(name, t->deployment, namelen) != 0) {
            nm = xasprintf("%.*s", (int)(namelen > 200 ? 200 : namelen), name);
            snprintf(msg, sizeof(msg), "deployments.apps \"%s\" not found", nm);
            reply_status(out, 404, "NotFound", nm, msg);
            free(nm);
            return;
        }
        if (get) {
            reply_scale(t, out);
        } else if (strcmp(method, "PATCH") == 0) {
            patch_scale(t, content_type, dry_run, body, len, out);
        } else {
            snprintf(msg, sizeof(msg),
                     "the server does not allow this method on the "
                     "requested resource (the twin takes GET and PATCH)");
            reply_status(out, 405, "MethodNotAllowed", NULL, msg);
            out->allow = "GET, HEAD, PATCH";
        }
        return;
    }
not_found:
    if (strncmp(path, "/apis/", 6) == 0) {
        reply_status(out, 404, "NotFound", NULL,
                     "the server could not find the requested resource");
        return;
    }
    reply_text(out, 404, "404 page not found\n");
}
