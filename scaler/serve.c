/* /metrics and /healthz of dsec-scaler; see serve.h. */
#include "scaler/serve.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/xalloc.h"

#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

static const char *const action_names[SCL_ACTION_N] = {"up", "down", "hold"};
static const char *const holdx_names[SCL_HOLDX_N - SCL_HOLD_N] = {
    "policy_hold", "cooldown", "actuator_unreachable", "actuator_invalid"};
static const char *const error_names[SCL_ERR_N] = {"metrics", "actuator"};

void scl_stats_init(struct scl_stats *s, double interval_s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    s->interval_s = interval_s;
    s->desired = -1;
    s->current = -1;
    s->last_success_s = NAN;
    s->last_eval_mono_s = NAN;
    s->metrics_age_s = NAN;
    s->arrival_rate_per_s = NAN;
    s->num_running = NAN;
    s->num_waiting = NAN;
    s->kv_usage_mean = NAN;
    s->ttft_p99_s = NAN;
    s->itl_p99_s = NAN;
    s->itl_mean_s = NAN;
    s->output_tokens_per_s = NAN;
}

void scl_stats_fini(struct scl_stats *s)
{
    pthread_mutex_destroy(&s->mu);
}

struct out {
    char *p;
    size_t n, cap;
};

static void emit(struct out *o, const char *fmt, ...) SIM_PRINTF(2, 3);

static void emit(struct out *o, const char *fmt, ...)
{
    va_list ap;

    for (;;) {
        int k;
        va_start(ap, fmt);
        k = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < o->cap - o->n) {
            o->n += (size_t)k;
            return;
        }
        o->cap = o->cap * 2 + (size_t)k + 64;
        o->p = xrealloc(o->p, o->cap, 1);
    }
}

static void gauge(struct out *o, const char *name, const char *help, double v)
{
    emit(o, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    if (isnan(v))
        emit(o, "%s NaN\n", name);
    else
        emit(o, "%s %.17g\n", name, v);
}

char *scl_stats_render(struct scl_stats *s)
{
    struct out o = {xmalloc(4096), 0, 4096};

    o.p[0] = '\0';
    pthread_mutex_lock(&s->mu);
    gauge(&o, "dsec_scaler_desired_replicas",
          "replicas of the last decision (-1 before the first)", s->desired);
    gauge(&o, "dsec_scaler_current_replicas",
          "size the actuator reported (spec.replicas), -1 if unknown",
          s->current);
    gauge(&o, "dsec_scaler_ready_replicas", "replicas reporting metrics",
          s->ready);
    gauge(&o, "dsec_scaler_pending_replicas",
          "current minus ready replicas, at least 0", s->pending);
    emit(&o, "# HELP dsec_scaler_decisions_total evaluations by outcome\n"
             "# TYPE dsec_scaler_decisions_total counter\n");
    for (int i = 0; i < SCL_ACTION_N; i++)
        emit(&o, "dsec_scaler_decisions_total{action=\"%s\"} %lu\n",
             action_names[i], s->decisions[i]);
    emit(&o, "# HELP dsec_scaler_holds_total decisions held, by reason\n"
             "# TYPE dsec_scaler_holds_total counter\n");
    for (int i = 1; i < SCL_HOLDX_N; i++)
        emit(&o, "dsec_scaler_holds_total{reason=\"%s\"} %lu\n",
             i < SCL_HOLD_N ? scl_hold_name(i) : holdx_names[i - SCL_HOLD_N],
             s->holds[i]);
    emit(&o, "# HELP dsec_scaler_errors_total failed requests, by kind\n"
             "# TYPE dsec_scaler_errors_total counter\n");
    for (int i = 0; i < SCL_ERR_N; i++)
        emit(&o, "dsec_scaler_errors_total{kind=\"%s\"} %lu\n", error_names[i],
             s->errors[i]);
    gauge(&o, "dsec_scaler_last_success_timestamp_seconds",
          "Unix time of the last completed evaluation", s->last_success_s);
    gauge(&o, "dsec_scaler_metrics_valid",
          "1 when the last snapshot was valid, 0 when it held",
          s->metrics_valid);
    gauge(&o, "dsec_scaler_metrics_age_seconds",
          "age of the newest metric sample seen", s->metrics_age_s);
    gauge(&o, "dsec_scaler_input_arrival_rate_per_second",
          "requests per second over the window", s->arrival_rate_per_s);
    gauge(&o, "dsec_scaler_input_num_running",
          "requests running, summed over ready replicas", s->num_running);
    gauge(&o, "dsec_scaler_input_num_waiting",
          "requests waiting, summed over ready replicas", s->num_waiting);
    gauge(&o, "dsec_scaler_input_kv_usage_mean",
          "mean KV cache use of ready replicas, 0..1", s->kv_usage_mean);
    gauge(&o, "dsec_scaler_input_ttft_p99_seconds",
          "TTFT p99 over the window (histogram_quantile)", s->ttft_p99_s);
    gauge(&o, "dsec_scaler_input_itl_p99_seconds",
          "inter-token latency p99 over the window", s->itl_p99_s);
    gauge(&o, "dsec_scaler_input_itl_mean_seconds",
          "inter-token latency mean over the window", s->itl_mean_s);
    gauge(&o, "dsec_scaler_input_output_tokens_per_second",
          "tokens generated per second over the window",
          s->output_tokens_per_s);
    pthread_mutex_unlock(&s->mu);
    return o.p;
}

struct scl_server {
    struct MHD_Daemon *d;
    struct scl_stats *s;
};

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static mhd_result on_request(void *cls, struct MHD_Connection *c,
                             const char *url, const char *method,
                             const char *version, const char *upload,
                             size_t *upload_size, void **con_cls)
{
    struct scl_server *srv = cls;
    struct MHD_Response *r;
    unsigned code = MHD_HTTP_OK;
    char *body;
    const char *ctype = "text/plain; version=0.0.4; charset=utf-8";
    mhd_result ret;

    (void)version;
    (void)upload;
    (void)upload_size;
    (void)con_cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        body = xstrdup("method not allowed\n");
        code = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") == 0) {
        body = scl_stats_render(srv->s);
    } else if (strcmp(url, "/healthz") == 0) {
        double last, limit;
        pthread_mutex_lock(&srv->s->mu);
        last = srv->s->last_eval_mono_s;
        limit = fmax(3 * srv->s->interval_s, 60);
        pthread_mutex_unlock(&srv->s->mu);
        /* Alive while the loop keeps evaluating (a hold still counts). */
        if (isnan(last) || mono_now() - last <= limit) {
            body = xstrdup("ok\n");
        } else {
            body = xasprintf("evaluation loop stuck: last run %.0f s ago\n",
                             mono_now() - last);
            code = MHD_HTTP_SERVICE_UNAVAILABLE;
        }
    } else {
        body = xstrdup("not found: try /metrics or /healthz\n");
        code = MHD_HTTP_NOT_FOUND;
    }
    r = MHD_create_response_from_buffer(strlen(body), body,
                                        MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", ctype);
    ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

struct scl_server *scl_server_start(const char *listen, struct scl_stats *s,
                                    char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    const char *colon = strrchr(listen, ':');
    char host[128];
    long port;
    char *end;
    struct scl_server *srv;
    /* epoll or poll (MHD_USE_AUTO): select() would cap the descriptors at
     * FD_SETSIZE below the connection limit. */
    unsigned flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;

    memset(&ss, 0, sizeof(ss));
    if (colon == NULL || (size_t)(colon - listen) >= sizeof(host)) {
        snprintf(err, errlen, "listen: expected host:port, got '%s'", listen);
        return NULL;
    }
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    port = strtol(colon + 1, &end, 10);
    if (*end != '\0' || end == colon + 1 || port < 0 || port > 65535) {
        snprintf(err, errlen, "listen: bad port in '%s'", listen);
        return NULL;
    }
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
        host[strlen(host) - 1] = '\0';
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1) {
            snprintf(err, errlen, "listen: bad IPv6 address in '%s'", listen);
            return NULL;
        }
        flags |= MHD_USE_IPv6;
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host[0] ? host : "0.0.0.0", &a4->sin_addr) !=
            1) {
            snprintf(err, errlen,
                     "listen: bad IPv4 address in '%s' (names are not "
                     "resolved)",
                     listen);
            return NULL;
        }
    }
    srv = xcalloc(1, sizeof(*srv));
    srv->s = s;
    /* Idle clients must never lock the probe out: a connection idle for
     * SCL_SERVE_IDLE_S is closed, one address holds at most
     * SCL_SERVE_PER_IP connections, and the total is far above what a
     * kubelet and a Prometheus need together. */
    srv->d = MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, on_request, srv,
        MHD_OPTION_SOCK_ADDR, &ss, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)SCL_SERVE_IDLE_S, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)SCL_SERVE_MAX_CONN, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)SCL_SERVE_PER_IP, MHD_OPTION_END);
    if (srv->d == NULL) {
        snprintf(err, errlen, "listen: cannot serve on %s (port in use?)",
                 listen);
        free(srv);
        return NULL;
    }
    return srv;
}

void scl_server_stop(struct scl_server *srv)
{
    if (srv == NULL)
        return;
    MHD_stop_daemon(srv->d);
    free(srv);
}
