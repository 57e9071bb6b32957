/*
 * The twin's server: libmicrohttpd in external mode on its epoll
 * descriptor, driven from the calling thread. Each turn of the loop waits
 * for HTTP traffic for at most TWIN_TICK_MS of wall time, answers what
 * came, then advances the session to (wall seconds since the start) x
 * speed. The simulator and the handlers thus run in one thread, one after
 * the other: a scrape sees the session between two steps, and a scale PATCH
 * takes effect at the simulated time reached. When the simulator falls behind
 * (a step takes longer than its wall share) the twin simply runs late;
 * dsec_twin_sim_time_seconds shows it. SIGTERM and SIGINT end the loop cleanly.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>

#include <microhttpd.h>

#include "models/cluster/cluster.h"
#include "sim/time.h"
#include "base/xalloc.h"
#include "twin/twin.h"

/* Wall time between two steps of the simulator when no request comes. */
#define TWIN_TICK_MS 20
/* Idle connections close after this long (s), and at most this many are
 * open: a client that connects and says nothing holds one slot for
 * TWIN_IDLE_S at most. */
#define TWIN_IDLE_S 30
#define TWIN_MAX_CONN 4096
/* Largest request body taken (a scale patch is a few dozen bytes). */
#define TWIN_BODY_MAX (64 * 1024)

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct req_body {
    char *data;
    size_t len;
    int too_big;
};

struct server {
    struct twin *t;
    int quiet;
    int last_desired;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    struct server *sv = cls;
    struct req_body *b = *con_cls;
    struct twin_reply r;
    struct MHD_Response *resp;
    enum MHD_Result ret;

    (void)version;
    if (b == NULL) {
        *con_cls = xcalloc(1, sizeof(*b));
        return MHD_YES;
    }
    if (*upload_size > 0) {
        if (b->len + *upload_size > TWIN_BODY_MAX) {
            b->too_big = 1;
        } else {
            b->data = xrealloc(b->data, b->len + *upload_size + 1, 1);
            memcpy(b->data + b->len, upload, *upload_size);
            b->len += *upload_size;
            b->data[b->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (b->too_big) {
        memset(&r, 0, sizeof(r));
        r.status = 413;
        r.content_type = "text/plain; charset=utf-8";
        r.body = xstrdup("request body too large\n");
        r.len = strlen(r.body);
    } else {
        twin_handle(
            sv->t, method, url,
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"),
            MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "dryRun"),
            b->data, b->len, &r);
    }
    resp =
        MHD_create_response_from_buffer(r.len, r.body, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(r.body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", r.content_type);
    if (r.allow != NULL)
        MHD_add_response_header(resp, "Allow", r.allow);
    ret = MHD_queue_response(conn, (unsigned int)r.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    struct req_body *b = *con_cls;

    (void)cls;
    (void)conn;
    (void)why;
    if (b != NULL) {
        free(b->data);
        free(b);
        *con_cls = NULL;
    }
}

/* Resolves "HOST:PORT" or "[V6]:PORT" (numeric port) into *ss. Returns 0,
 * or -1 after printing why. */
static int resolve(const char *listen, struct sockaddr_storage *ss,
                   socklen_t *sslen)
{
    char *host = xstrdup(listen), *port = strrchr(host, ':');
    struct addrinfo hints, *res = NULL;
    int rc;

    if (port == NULL || port == host || port[1] == '\0') {
        fprintf(stderr, "dsec twin: --listen %s: expected HOST:PORT\n", listen);
        free(host);
        return -1;
    }
    *port++ = '\0';
    /* getaddrinfo() takes a numeric service modulo 2^16 (99999 would
     * listen on 34463): the port must be a number in [0, 65535]. */
    if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
        atol(port) > 65535) {
        fprintf(stderr,
                "dsec twin: --listen %s: port '%s' is not a number in [0, "
                "65535]\n",
                listen, port);
        free(host);
        return -1;
    }
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "dsec twin: --listen %s: %s\n", listen,
                gai_strerror(rc));
        free(host);
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sslen = res->ai_addrlen;
    freeaddrinfo(res);
    free(host);
    return 0;
}

static double wall_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) +
           (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* One line on stderr when the simulated size or its parts change. */
static void log_change(struct server *sv)
{
    struct cl_session_cluster c;

    cl_session_cluster(sv->t->ss, &c);
    if (c.desired == sv->last_desired)
        return;
    if (!sv->quiet)
        fprintf(stderr,
                "dsec twin: t=%.1f s: spec.replicas %d -> desired %d "
                "(ready %d, pending %d, draining %d)\n",
                c.now_s, sv->t->spec_replicas, c.desired, c.serving, c.pending,
                c.draining);
    sv->last_desired = c.desired;
}

int twin_serve(struct twin *t, const struct twin_serve_opts *o)
{
    struct sockaddr_storage addr;
    socklen_t addrlen = 0;
    struct MHD_Daemon *d;
    const union MHD_DaemonInfo *info;
    struct server sv = {t, o->quiet, -1};
    struct sigaction sa;
    struct timespec t0;
    char host[256]; /* a numeric address */
    unsigned port = 0;
    int rc = 0, epfd;

    stop_requested = 0;
    /* Before the URL is printed: whoever reads it may signal at once. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    if (resolve(o->listen, &addr, &addrlen) != 0)
        return -1;
    /* The port given is the one bound (MHD_OPTION_SOCK_ADDR); MHD only
     * names it in its messages. */
    port = ntohs(addr.ss_family == AF_INET6
                     ? ((struct sockaddr_in6 *)&addr)->sin6_port
                     : ((struct sockaddr_in *)&addr)->sin_port);
    /* epoll, not select(): select() stops at FD_SETSIZE (1,024) sockets,
     * so that many idle clients made the twin unreachable. The loop below
     * polls epoll's one descriptor; idle connections close after
     * TWIN_IDLE_S, and at most TWIN_MAX_CONN are open at once. */
    d = MHD_start_daemon(
        MHD_USE_ERROR_LOG | MHD_USE_EPOLL |
            (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
        (uint16_t)port, NULL, NULL, on_request, &sv, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
        NULL, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)TWIN_IDLE_S,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)TWIN_MAX_CONN, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "dsec twin: cannot listen on %s: %s\n", o->listen,
                errno != 0 ? strerror(errno) : "libmicrohttpd refused");
        return -1;
    }
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (info != NULL)
        port = info->port;
    if (getnameinfo((struct sockaddr *)&addr, addrlen, host, sizeof(host), NULL,
                    0, NI_NUMERICHOST) != 0)
        snprintf(host, sizeof(host), "?");
    printf(addr.ss_family == AF_INET6
               ? "dsec twin: listening on http://[%s]:%u\n"
               : "dsec twin: listening on http://%s:%u\n",
           host, port);
    fflush(stdout);

    clock_gettime(CLOCK_MONOTONIC, &t0);
    log_change(&sv);
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
    if (info == NULL) {
        fprintf(stderr, "dsec twin: libmicrohttpd: no epoll descriptor\n");
        MHD_stop_daemon(d);
        return -2;
    }
    epfd = info->epoll_fd;
    while (!stop_requested) {
        struct pollfd pfd = {.fd = epfd, .events = POLLIN};
        int timeout_ms = TWIN_TICK_MS;
        MHD_UNSIGNED_LONG_LONG to;
        double sim_s;

        if (MHD_get_timeout(d, &to) == MHD_YES && to < TWIN_TICK_MS)
            timeout_ms = (int)to;
        if (poll(&pfd, 1, timeout_ms) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "dsec twin: poll: %s\n", strerror(errno));
            rc = -2;
            break;
        }
        MHD_run(d);
        log_change(&sv);

        sim_s = wall_since(&t0) * t->speed;
        if (o->duration_s > 0 && sim_s >= o->duration_s) {
            sim_s = o->duration_s;
            stop_requested = 1;
        }
        if (cl_session_advance(t->ss, sim_s_to_ns(sim_s)) != 0) {
            fprintf(stderr, "dsec twin: the simulation stopped at %.1f s\n",
                    sim_ns_to_s(cl_session_now(t->ss)));
            rc = -2;
            break;
        }
        log_change(&sv);
    }
    MHD_stop_daemon(d);
    return rc;
}
