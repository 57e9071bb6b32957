/* Check suite for dsec-scaler's safety rules: hold on stale or missing
 * metrics, clamping to [min, max], cooldowns, the idempotent Kubernetes
 * PATCH, backoff on server errors, the exec actuator, and its own
 * /metrics text. The HTTP counterparts are a real libmicrohttpd server
 * started in the test: a fixture of the Kubernetes scale API, the
 * Prometheus query API and a vLLM /metrics page that records what it was
 * asked (a stand-in for those APIs, not for dsec-scaler's code). */
#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <math.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "scaler/actuator.h"
#include "scaler/conf.h"
#include "scaler/decide.h"
#include "scaler/log.h"
#include "scaler/serve.h"
#include "scaler/source.h"
#include "base/diag.h"
#include "base/errors.h"
#include "base/xalloc.h"

#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

#define SCALE_PATH "/apis/apps/v1/namespaces/ns/deployments/llm/scale"

/* What the fixture serves and records. */
struct api {
    pthread_mutex_t mu;
    struct MHD_Daemon *d;
    int port;
    int spec;      /* spec.replicas */
    int fail_next; /* answer this many requests with fail_status */
    int fail_status;
    int gets, patches, queries, scrapes;
    char ctype[128];
    char body[1024];
    char auth[256];
    const char *page; /* the /metrics text */
    const char *up_b; /* up of the second Prometheus target */
};

struct upload {
    char buf[1024];
    size_t n;
};

static mhd_result reply(struct MHD_Connection *c, unsigned code,
                        const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    mhd_result ret = MHD_queue_response(c, code, r);

    MHD_destroy_response(r);
    return ret;
}

static mhd_result on_req(void *cls, struct MHD_Connection *c, const char *url,
                         const char *method, const char *version,
                         const char *data, size_t *size, void **ctx)
{
    struct api *a = cls;
    struct upload *u = *ctx;
    char out[512];
    mhd_result ret;

    (void)version;
    if (u == NULL) {
        *ctx = xcalloc(1, sizeof(struct upload));
        return MHD_YES;
    }
    if (*size > 0) {
        size_t k = *size < sizeof(u->buf) - 1 - u->n
                       ? *size
                       : sizeof(u->buf) - 1 - u->n;
        memcpy(u->buf + u->n, data, k);
        u->n += k;
        *size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&a->mu);
    if (a->fail_next > 0) {
        a->fail_next--;
        if (strcmp(url, SCALE_PATH) == 0 && strcmp(method, "GET") == 0)
            a->gets++;
        pthread_mutex_unlock(&a->mu);
        return reply(c, (unsigned)a->fail_status, "{\"kind\":\"Status\"}");
    }
    if (strcmp(url, SCALE_PATH) == 0 && strcmp(method, "GET") == 0) {
        const char *h =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        a->gets++;
        snprintf(a->auth, sizeof(a->auth), "%s", h ? h : "");
        snprintf(out, sizeof(out),
                 "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\","
                 "\"spec\":{\"replicas\":%d},\"status\":{\"replicas\":%d}}",
                 a->spec, a->spec);
        ret = reply(c, 200, out);
    } else if (strcmp(url, SCALE_PATH) == 0 && strcmp(method, "PATCH") == 0) {
        const char *ct =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
        int n;
        a->patches++;
        snprintf(a->ctype, sizeof(a->ctype), "%s", ct ? ct : "");
        u->buf[u->n] = '\0';
        snprintf(a->body, sizeof(a->body), "%s", u->buf);
        if (sscanf(u->buf, "{\"spec\":{\"replicas\":%d}}", &n) == 1)
            a->spec = n;
        snprintf(out, sizeof(out), "{\"spec\":{\"replicas\":%d}}", a->spec);
        ret = reply(c, 200, out);
    } else if (strcmp(url, "/api/v1/query") == 0) {
        const char *q =
            MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "query");
        a->queries++;
        if (q != NULL && strstr(q, "timestamp(") != NULL)
            snprintf(out, sizeof(out),
                     "{\"status\":\"success\",\"data\":{\"resultType\":"
                     "\"vector\",\"result\":[{\"metric\":{},\"value\":[%ld,"
                     "\"%ld\"]}]}}",
                     (long)time(NULL), (long)time(NULL));
        else if (q != NULL && strncmp(q, "up", 2) == 0)
            snprintf(out, sizeof(out),
                     "{\"status\":\"success\",\"data\":{\"resultType\":"
                     "\"vector\",\"result\":[{\"metric\":{\"instance\":"
                     "\"a\"},\"value\":[1,\"1\"]},{\"metric\":{"
                     "\"instance\":\"b\"},\"value\":[1,\"%s\"]}]}}",
                     a->up_b);
        else
            snprintf(out, sizeof(out),
                     "{\"status\":\"success\",\"data\":{\"resultType\":"
                     "\"vector\",\"result\":[{\"metric\":{\"replica\":\"a\"},"
                     "\"value\":[1,\"%s\"]},{\"metric\":{\"replica\":\"b\"},"
                     "\"value\":[1,\"%s\"]}]}}",
                     q != NULL && strstr(q, "kv_cache") ? "0.2" : "2",
                     q != NULL && strstr(q, "kv_cache") ? "0.3" : "3");
        ret = reply(c, 200, out);
    } else if (strcmp(url, "/metrics") == 0 && a->page != NULL) {
        a->scrapes++;
        ret = reply(c, 200, a->page);
    } else {
        ret = reply(c, 404, "not found");
    }
    pthread_mutex_unlock(&a->mu);
    return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **ctx,
                    enum MHD_RequestTerminationCode tc)
{
    (void)cls;
    (void)c;
    (void)tc;
    free(*ctx);
    *ctx = NULL;
}

static struct api api;

static void api_start(void)
{
    const union MHD_DaemonInfo *di;

    memset(&api, 0, sizeof(api));
    pthread_mutex_init(&api.mu, NULL);
    api.spec = 3;
    api.up_b = "1";
    api.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                             on_req, &api, MHD_OPTION_NOTIFY_COMPLETED, on_done,
                             NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(api.d);
    di = MHD_get_daemon_info(api.d, MHD_DAEMON_INFO_BIND_PORT);
    api.port = di->port;
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void api_stop(void)
{
    MHD_stop_daemon(api.d);
    pthread_mutex_destroy(&api.mu);
    curl_global_cleanup();
}

static void load(struct scl_config *c, const char *fmt, ...) SIM_PRINTF(2, 3);

static void load(struct scl_config *c, const char *fmt, ...)
{
    struct sim_diag d;
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    sim_diag_init(&d);
    if (scl_config_parse("t.yaml", text, strlen(text), c, &d) != 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);
}

/* A valid snapshot of ready replicas with n running requests each. */
static void snap(struct pol_snapshot *s, struct pol_replica *r, int ready,
                 double running, double now_s, const struct scl_config *c)
{
    memset(s, 0, sizeof(*s));
    s->api_version = POL_API_VERSION;
    s->now_s = now_s;
    s->interval_s = c->interval_s;
    s->window_s = c->window_s;
    s->metrics_valid = 1;
    s->ready = ready;
    s->min_replicas = c->min_replicas;
    s->max_replicas = c->max_replicas;
    s->gpus_per_replica = 1;
    s->target_itl_s = NAN;
    s->target_ttft_s = NAN;
    for (int i = 0; i < ready; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].state = POL_RS_READY;
        r[i].num_running = running;
        r[i].kv_usage = NAN;
    }
    s->replicas = r;
    s->nreplicas = ready;
    s->num_running = running * ready;
}

START_TEST(test_decide_clamp_to_bounds)
{
    struct scl_config c;
    struct scl_decider d;
    struct pol_snapshot s;
    struct pol_replica r[8];
    struct pol_decision out;

    load(&c, "max_replicas: 6\nmin_replicas: 2\npolicy: {name: static, "
             "params: {replicas: 20}, max_step_up: 100}\n"
             "actuator: {kind: log}\n");
    ck_assert_int_eq(scl_decider_init(&d, &c), 0);
    snap(&s, r, 3, 1, 0, &c);
    ck_assert_int_eq(scl_decide(&d, &s, &out, NULL), POL_GUARD_CLAMP);
    ck_assert_int_eq(out.desired, 6);
    scl_decider_fini(&d);
    scl_config_fini(&c);
}
END_TEST

/* More replicas report than the bounds allow (10 ready, max 4, one step
 * down at a time): the guard's step limit would answer 9; the scaler
 * clamps every change into [min, max] and answers 4. Holding at the
 * reported 10 changes nothing and stays a hold. */
START_TEST(test_decide_never_leaves_bounds)
{
    struct scl_config c;
    struct scl_decider d;
    struct pol_snapshot s;
    struct pol_replica r[10];
    struct pol_decision out;

    load(&c, "max_replicas: 4\nmin_replicas: 1\npolicy: {name: static, "
             "params: {replicas: 1}, max_step_down: 1}\n"
             "actuator: {kind: log}\n");
    ck_assert_int_eq(scl_decider_init(&d, &c), 0);
    snap(&s, r, 10, 1, 0, &c);
    ck_assert_int_eq(scl_decide(&d, &s, &out, NULL), POL_GUARD_CLAMP);
    ck_assert_int_eq(out.desired, 4);
    s.metrics_valid = 0; /* a hold: the answer is the reported size */
    scl_decide(&d, &s, &out, NULL);
    ck_assert_int_eq(out.desired, 10);
    scl_decider_fini(&d);
    scl_config_fini(&c);
}
END_TEST

START_TEST(test_decide_cooldown_and_step)
{
    struct scl_config c;
    struct scl_decider d;
    struct pol_snapshot s;
    struct pol_replica r[16];
    struct pol_decision out;

    load(&c, "max_replicas: 16\npolicy: {name: hpa, params: {target: 10, "
             "scale_down_stabilization: 0s}, cooldown_down_s: 300, "
             "max_step_up: 2, max_step_down: 1}\nactuator: {kind: log}\n");
    ck_assert_int_eq(scl_decider_init(&d, &c), 0);
    /* 4 replicas at 40 running each want 16: the step limit allows 2. */
    snap(&s, r, 4, 40, 0, &c);
    ck_assert_int_eq(scl_decide(&d, &s, &out, NULL), POL_GUARD_STEP_LIMIT);
    ck_assert_int_eq(out.desired, 6);
    /* Load gone 15 s later: a scale-down inside the cooldown is held. */
    snap(&s, r, 6, 1, 15, &c);
    ck_assert_int_eq(scl_decide(&d, &s, &out, NULL), POL_GUARD_COOLDOWN);
    ck_assert_int_eq(out.desired, 6);
    /* After the cooldown, one step down. */
    snap(&s, r, 6, 1, 301, &c);
    scl_decide(&d, &s, &out, NULL);
    ck_assert_int_eq(out.desired, 5);
    scl_decider_fini(&d);
    scl_config_fini(&c);
}
END_TEST

static const char page[] = "vllm:num_requests_running{replica=\"r0\"} 4\n"
                           "vllm:num_requests_waiting{replica=\"r0\"} 0\n"
                           "vllm:generation_tokens_total{replica=\"r0\"} 100\n";

START_TEST(test_stale_metrics_hold)
{
    struct scl_config c;
    struct scl_source *src;
    struct scl_decider d;
    struct pol_snapshot s;
    struct pol_decision out;
    struct scl_view v;

    api_start();
    api.page = page;
    load(&c,
         "max_replicas: 8\nstale_after_s: 45\npolicy: {name: static, "
         "params: {replicas: 5}}\nmetrics: {source: scrape, targets: "
         "[http://127.0.0.1:%d/metrics]}\nactuator: {kind: log}\n",
         api.port);
    src = scl_source_new(&c);
    ck_assert_int_eq(scl_decider_init(&d, &c), 0);
    scl_source_collect(src, 0, 1000, NULL, NULL);
    scl_source_collect(src, 15, 1015, NULL, NULL);
    scl_source_snapshot(src, 2, &s, &v);
    ck_assert_int_eq(v.valid, 1);
    ck_assert_int_eq(api.scrapes, 2);
    /* The target answers 500 from now on: hold, and say for how long. */
    api.fail_next = 1000;
    api.fail_status = 500;
    scl_source_collect(src, 75, 1075, NULL, NULL);
    scl_source_snapshot(src, 2, &s, &v);
    ck_assert_int_eq(s.metrics_valid, 0);
    ck_assert_int_eq(v.hold, SCL_HOLD_STALE);
    ck_assert_str_eq(v.msg, "metrics stale for 60 s (every target failed)");
    ck_assert_int_eq(scl_decide(&d, &s, &out, NULL), POL_GUARD_INVALID_METRICS);
    ck_assert_int_eq(out.desired, 2); /* current size, not the policy's 5 */
    scl_decider_fini(&d);
    scl_source_free(src);
    scl_config_fini(&c);
    api_stop();
}
END_TEST

START_TEST(test_prometheus_source_http)
{
    struct scl_config c;
    struct scl_source *src;
    struct pol_snapshot s;
    struct scl_view v;

    api_start();
    load(&c,
         "max_replicas: 8\nmetrics: {source: prometheus, "
         "prometheus_url: 'http://127.0.0.1:%d/'}\n"
         "actuator: {kind: log}\n",
         api.port);
    src = scl_source_new(&c);
    scl_source_collect(src, 0, (double)time(NULL), NULL, NULL);
    scl_source_snapshot(src, 3, &s, &v);
    ck_assert_msg(v.valid == 1, "held: %s", v.msg);
    ck_assert_int_eq(s.ready, 2);
    ck_assert_int_eq(s.pending, 1);
    ck_assert_double_eq(s.num_running, 5); /* 2 + 3 */
    ck_assert_int_eq(api.queries, SCL_Q_N);
    /* Prometheus down: one failed query holds the round. */
    api.fail_next = 1000;
    api.fail_status = 503;
    scl_source_collect(src, 15, (double)time(NULL), NULL, NULL);
    scl_source_snapshot(src, 3, &s, &v);
    ck_assert_int_eq(v.hold, SCL_HOLD_SOURCE_ERROR);
    ck_assert_str_eq(v.msg, "prometheus query failed");
    /* Still down a minute later: the newest sample is now stale. */
    scl_source_collect(src, 75, (double)time(NULL) + 60, NULL, NULL);
    scl_source_snapshot(src, 3, &s, &v);
    ck_assert_int_eq(v.hold, SCL_HOLD_STALE);
    ck_assert_int_eq(strncmp(v.msg, "metrics stale for 6", 19), 0);
    scl_source_free(src);
    scl_config_fini(&c);
    api_stop();
}
END_TEST

static char token_path[64];

static void k8s_config(struct scl_config *c, int max_attempts)
{
    FILE *fp;

    snprintf(token_path, sizeof(token_path), "/tmp/scl-token-%d",
             (int)getpid());
    fp = fopen(token_path, "w");
    fputs("sekrit\n", fp);
    fclose(fp);
    load(c,
         "max_replicas: 8\nactuator: {kind: kubernetes, api_server: "
         "'http://127.0.0.1:%d', namespace: ns, deployment: llm, "
         "token_file: %s, backoff_initial_s: 0.01, backoff_max_s: 0.02, "
         "max_attempts: %d}\n",
         api.port, token_path, max_attempts);
}

START_TEST(test_k8s_idempotent_patch)
{
    struct scl_config c;
    struct scl_actuator *a;
    struct scl_act_result r;
    char err[256];
    int spec, status;

    api_start();
    k8s_config(&c, 4);
    a = scl_actuator_new(&c, 0, NULL);
    ck_assert_int_eq(scl_actuator_read(a, &spec, &status, err, sizeof(err)), 0);
    ck_assert_int_eq(spec, 3);
    ck_assert_str_eq(api.auth, "Bearer sekrit");
    /* Already 3: a GET, no PATCH. */
    ck_assert_int_eq(scl_actuator_apply(a, 3, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(r.patched, 0);
    ck_assert_int_eq(api.patches, 0);
    ck_assert_int_eq(scl_actuator_apply(a, 5, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(r.patched, 1);
    ck_assert_int_eq(api.patches, 1);
    ck_assert_str_eq(api.ctype, "application/merge-patch+json");
    ck_assert_str_eq(api.body, "{\"spec\":{\"replicas\":5}}");
    ck_assert_int_eq(api.spec, 5);
    /* The same again changes nothing. */
    ck_assert_int_eq(scl_actuator_apply(a, 5, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(api.patches, 1);
    scl_actuator_free(a);
    /* Dry run: reads, never patches. */
    a = scl_actuator_new(&c, 1, NULL);
    ck_assert_int_eq(scl_actuator_apply(a, 7, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(api.patches, 1);
    ck_assert_int_eq(api.spec, 5);
    scl_actuator_free(a);
    scl_config_fini(&c);
    unlink(token_path);
    api_stop();
}
END_TEST

START_TEST(test_k8s_backoff_then_success)
{
    struct scl_config c;
    struct scl_actuator *a;
    struct scl_act_result r;
    char err[256];

    api_start();
    k8s_config(&c, 4);
    a = scl_actuator_new(&c, 0, NULL);
    api.fail_next = 2;
    api.fail_status = 500;
    ck_assert_int_eq(scl_actuator_apply(a, 4, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(r.attempts, 3);
    ck_assert_int_eq(r.errors, 2);
    ck_assert_int_eq(api.gets, 3); /* one request at a time, in sequence */
    ck_assert_int_eq(api.patches, 1);
    ck_assert_int_eq(api.spec, 4);
    /* Always 500: gives up after max_attempts. */
    api.fail_next = 1000;
    ck_assert_int_eq(scl_actuator_apply(a, 6, &r, err, sizeof(err)), SIM_EIO);
    ck_assert_int_eq(r.attempts, 4);
    /* 403 will not heal: no retry. */
    api.fail_next = 1000;
    api.fail_status = 403;
    ck_assert_int_eq(scl_actuator_apply(a, 6, &r, err, sizeof(err)), SIM_EIO);
    ck_assert_int_eq(r.attempts, 1);
    ck_assert_ptr_null(strstr(err, "sekrit")); /* tokens never in messages */
    scl_actuator_free(a);
    scl_config_fini(&c);
    unlink(token_path);
    api_stop();
}
END_TEST

START_TEST(test_exec_actuator)
{
    struct scl_config c;
    struct scl_actuator *a;
    struct scl_act_result r;
    char err[256], path[64], buf[32] = "";
    FILE *fp;

    snprintf(path, sizeof(path), "/tmp/scl-exec-%d", (int)getpid());
    load(&c,
         "max_replicas: 8\nactuator: {kind: exec, command: [/bin/sh, "
         "-c, 'echo \"$1\" > %s', sh, 'n={replicas}'], "
         "backoff_initial_s: 0.01, max_attempts: 2}\n",
         path);
    a = scl_actuator_new(&c, 0, NULL);
    ck_assert_int_eq(scl_actuator_apply(a, 7, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(r.patched, 1);
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    unlink(path);
    ck_assert_str_eq(buf, "n=7\n");
    {
        int spec, st;
        scl_actuator_read(a, &spec, &st, err, sizeof(err));
        ck_assert_int_eq(spec, 7);
    }
    scl_actuator_free(a);
    scl_config_fini(&c);

    load(&c, "max_replicas: 8\nactuator: {kind: exec, command: [/bin/sh, "
             "-c, 'exit 3', '{replicas}'], backoff_initial_s: 0.01, "
             "max_attempts: 2}\n");
    a = scl_actuator_new(&c, 0, NULL);
    ck_assert_int_eq(scl_actuator_apply(a, 2, &r, err, sizeof(err)), SIM_EIO);
    ck_assert_int_eq(r.attempts, 2);
    ck_assert_str_eq(err, "command /bin/sh exited with status 3");
    scl_actuator_free(a);
    scl_config_fini(&c);

    load(&c, "max_replicas: 8\nactuator: {kind: exec, command: [/bin/sh, "
             "-c, 'sleep 10', '{replicas}'], timeout_s: 0.2, "
             "max_attempts: 1}\n");
    a = scl_actuator_new(&c, 0, NULL);
    ck_assert_int_eq(scl_actuator_apply(a, 2, &r, err, sizeof(err)), SIM_EIO);
    ck_assert_str_eq(err, "command /bin/sh timed out after 0.2 s");
    scl_actuator_free(a);
    scl_config_fini(&c);
}
END_TEST

/* Issue #22 item 5: a command that times out is killed with everything
 * it started (its process group), not only itself. */
START_TEST(test_exec_timeout_kills_group)
{
    struct scl_config c;
    struct scl_actuator *a;
    struct scl_act_result r;
    char err[256], path[64], buf[32] = "", stat[64];
    FILE *fp;
    long gpid = 0;
    int alive = 1;

    snprintf(path, sizeof(path), "/tmp/scl-grand-%d", (int)getpid());
    load(&c,
         "max_replicas: 8\nactuator: {kind: exec, command: [/bin/sh, -c, "
         "'sleep 30 & echo $! > %s; wait', sh, '{replicas}'], timeout_s: "
         "0.3, max_attempts: 1}\n",
         path);
    a = scl_actuator_new(&c, 0, NULL);
    ck_assert_int_eq(scl_actuator_apply(a, 2, &r, err, sizeof(err)), SIM_EIO);
    ck_assert_str_eq(err, "command /bin/sh timed out after 0.3 s");
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
    fclose(fp);
    unlink(path);
    gpid = strtol(buf, NULL, 10);
    ck_assert_int_gt(gpid, 1);
    /* Gone, or a zombie waiting for its new parent to reap it. */
    for (int i = 0; i < 100 && alive; i++) {
        snprintf(stat, sizeof(stat), "/proc/%ld/stat", gpid);
        fp = fopen(stat, "r");
        if (fp == NULL) {
            alive = 0;
        } else {
            char line[256] = "";
            const char *rp;
            if (fgets(line, sizeof(line), fp) != NULL &&
                (rp = strrchr(line, ')')) != NULL && rp[1] == ' ' &&
                (rp[2] == 'Z' || rp[2] == 'X'))
                alive = 0;
            fclose(fp);
        }
        if (alive) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
    }
    ck_assert_msg(!alive, "grandchild %ld outlived the time-out", gpid);
    scl_actuator_free(a);
    scl_config_fini(&c);
}
END_TEST

/* A TCP connection to 127.0.0.1:port from the source address src (any
 * address of 127/8 is this machine), or -1. */
static int connect_from(const char *src, int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    inet_pton(AF_INET, src, &a.sin_addr);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* GET /healthz from src; 1 when "200" came back within 2 s. */
static int probe(const char *src, int port)
{
    static const char req[] = "GET /healthz HTTP/1.0\r\n\r\n";
    struct timeval tv = {2, 0};
    char buf[64] = "";
    int fd = connect_from(src, port), ok;

    if (fd < 0)
        return 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ok = write(fd, req, sizeof(req) - 1) == (ssize_t)(sizeof(req) - 1) &&
         read(fd, buf, sizeof(buf) - 1) > 0 && strstr(buf, " 200 ") != NULL;
    close(fd);
    return ok;
}

/* Issue #22 item 5: idle clients never lock /healthz out: 200 idle
 * connections from one address (more than the old limit of 32 in all),
 * and a probe from another address still answers; idle ones are closed. */
START_TEST(test_healthz_survives_idle_clients)
{
    struct scl_stats st;
    struct scl_server *srv;
    char err[128], listen_at[32];
    int fds[200], port = 0, n = 0;
    char one;

    scl_stats_init(&st, 15);
    for (int p = 29464; p < 29564 && port == 0; p++) {
        snprintf(listen_at, sizeof(listen_at), "127.0.0.1:%d", p);
        srv = scl_server_start(listen_at, &st, err, sizeof(err));
        if (srv != NULL)
            port = p;
    }
    ck_assert_int_gt(port, 0);
    for (int i = 0; i < 200; i++) {
        fds[i] = connect_from("127.0.0.1", port);
        n += fds[i] >= 0;
    }
    ck_assert_int_gt(n, 32);
    ck_assert(probe("127.0.0.2", port));
    /* After the idle time-out the server has closed them: reads see EOF. */
    sleep(SCL_SERVE_IDLE_S + 1);
    for (int i = 0; i < 200; i++) {
        if (fds[i] < 0)
            continue;
        if (i < 16) {
            struct timeval tv = {1, 0};
            setsockopt(fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
            ck_assert_int_le(read(fds[i], &one, 1), 0);
        }
        close(fds[i]);
    }
    ck_assert(probe("127.0.0.1", port));
    scl_server_stop(srv);
    scl_stats_fini(&st);
}
END_TEST

/* Issue #22 item 5: control bytes from outside (an API error body) are
 * escaped in the text log, never written raw. */
START_TEST(test_log_escapes_control_bytes)
{
    struct scl_log l = {SCL_LOG_TEXT, tmpfile()};
    char line[512] = "";

    ck_assert_ptr_nonnull(l.fp);
    scl_log(&l, "error", "scaling failed", "error",
            "HTTP 500: \x1b[2J\rlevel=info msg=forged\nx\x7f\t",
            (const char *)NULL);
    rewind(l.fp);
    ck_assert_ptr_nonnull(fgets(line, sizeof(line), l.fp));
    ck_assert_ptr_nonnull(strstr(line,
                                 " error=\"HTTP 500: \\x1b[2J\\rlevel=info "
                                 "msg=forged\\nx\\x7f\\t\"\n"));
    for (const char *p = line; *p != '\n'; p++)
        ck_assert_int_ge((unsigned char)*p, 0x20);
    ck_assert_ptr_null(fgets(line, sizeof(line), l.fp)); /* one line */
    fclose(l.fp);
}
END_TEST

START_TEST(test_stats_render)
{
    struct scl_stats st;
    char *text;

    scl_stats_init(&st, 15);
    st.desired = 4;
    st.decisions[SCL_ACTION_UP] = 2;
    st.holds[SCL_HOLD_STALE] = 3;
    st.errors[SCL_ERR_ACTUATOR] = 1;
    text = scl_stats_render(&st);
    ck_assert_ptr_nonnull(strstr(text, "\ndsec_scaler_desired_replicas 4\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "dsec_scaler_decisions_total{action=\"up\"} 2\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "dsec_scaler_holds_total{reason=\"stale\"} 3\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "dsec_scaler_errors_total{kind=\"actuator\"} 1\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "dsec_scaler_last_success_timestamp_seconds NaN\n"));
    free(text);
    scl_stats_fini(&st);
}
END_TEST

static Suite *scaler_safety_suite(void)
{
    Suite *s = suite_create("scaler_safety");
    TCase *tc = tcase_create("decide");

    tcase_add_test(tc, test_decide_clamp_to_bounds);
    tcase_add_test(tc, test_decide_never_leaves_bounds);
    tcase_add_test(tc, test_decide_cooldown_and_step);
    suite_add_tcase(s, tc);
    tc = tcase_create("source");
    tcase_add_test(tc, test_stale_metrics_hold);
    tcase_add_test(tc, test_prometheus_source_http);
    suite_add_tcase(s, tc);
    tc = tcase_create("actuator");
    tcase_add_test(tc, test_k8s_idempotent_patch);
    tcase_add_test(tc, test_k8s_backoff_then_success);
    tcase_add_test(tc, test_exec_actuator);
    tcase_add_test(tc, test_exec_timeout_kills_group);
    suite_add_tcase(s, tc);
    tc = tcase_create("serve");
    tcase_set_timeout(tc, 30); /* waits out the idle time-out */
    tcase_add_test(tc, test_stats_render);
    tcase_add_test(tc, test_healthz_survives_idle_clients);
    tcase_add_test(tc, test_log_escapes_control_bytes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scaler_safety_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
