/*
 * The digital twin (dsec twin, docs/twin.md): a cluster-model session run
 * against the wall clock, seen from outside as a vLLM deployment. twin.c
 * answers the HTTP requests as pure functions of the session: /metrics in
 * the Prometheus text format with vLLM's names, types and buckets
 * (docs/sources.md §6.1), /healthz, and the Kubernetes scale subresource of
 * one Deployment (GET, PATCH; docs/sources.md §7.1). server.c serves them
 * with libmicrohttpd from an external select loop in the calling thread and
 * advances the session to (wall seconds since the start) x speed between
 * requests, so the simulator stays single-threaded. Times in seconds.
 */
#ifndef TWIN_TWIN_H
#define TWIN_TWIN_H

#include <stddef.h>
#include <stdint.h>

struct cl_session;

/* The twin's state beside its session. Fill with twin_init(). */
struct twin {
    struct cl_session *ss;  /* borrowed; external mode */
    const char *ns;         /* the Deployment's namespace (borrowed) */
    const char *deployment; /* its name (borrowed) */
    const char *model_name; /* label model_name (borrowed) */
    double speed;           /* simulated seconds per wall second */
    int spec_replicas;      /* spec.replicas as last set (not clamped) */
    uint64_t resource_version;
    uint64_t patches; /* PATCHes that changed spec.replicas */
};

/* One HTTP answer. body is malloc'd (caller frees with free()) and holds
 * len bytes; content_type and allow (NULL, or the Allow header of a 405)
 * are static strings. */
struct twin_reply {
    int status;
    const char *content_type;
    const char *allow;
    char *body;
    size_t len;
};

/* Initialises t on session ss (external, freshly opened): spec.replicas
 * starts at the replicas serving at t = 0. All strings are borrowed for
 * t's life. */
void twin_init(struct twin *t, struct cl_session *ss, const char *ns,
               const char *deployment, const char *model_name, double speed);

/* Returns 1 when s is a valid Kubernetes object name for namespaces and
 * deployments here (an RFC 1123 label: 1 to 63 of [a-z0-9-], starting and
 * ending alphanumeric), else 0. */
int twin_name_ok(const char *s);

/* The /metrics text (Prometheus text format 0.0.4) for the session now:
 * one series per serving replica for each vLLM metric, labelled
 * model_name, engine="0" and replica="DEPLOYMENT-SERIAL", then the
 * dsec_twin_* gauges and counters of the whole twin. Caller frees. */
char *twin_metrics(const struct twin *t, size_t *len);

/* Answers one request. method: "GET", "PATCH", ...; path without the query;
 * content_type: the request's Content-Type header or NULL; dry_run: the
 * dryRun query argument or NULL ("All": validate, change nothing); body,
 * len: the request body. A PATCH of the scale subresource with a valid
 * body sets spec.replicas and the session's desired size (clamped to the
 * scenario's bounds) at the session's current time. */
void twin_handle(struct twin *t, const char *method, const char *path,
                 const char *content_type, const char *dry_run,
                 const char *body, size_t len, struct twin_reply *out);

/* Options of twin_serve(). */
struct twin_serve_opts {
    const char *listen; /* "HOST:PORT" (IPv6: "[ADDR]:PORT"); port 0 picks
                           a free one */
    double duration_s;  /* stop at this simulated time; <= 0: never */
    int quiet;          /* no log line per scale change */
};

/* Serves t until SIGTERM or SIGINT (or duration_s of simulated time), then
 * returns 0. Prints "dsec twin: listening on http://HOST:PORT" on stdout
 * (flushed) once bound, and one line per scale change on stderr. After
 * printing why on stderr, returns -1 when it cannot listen (nothing ran),
 * -2 when the session or the server fails later (the session's
 * diagnostics may tell more). */
int twin_serve(struct twin *t, const struct twin_serve_opts *o);

#endif /* TWIN_TWIN_H */
