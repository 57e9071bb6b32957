/*
 * dsec-scaler's own observability: what it decided and saw, kept in a
 * struct scl_stats guarded by a mutex (the HTTP server runs its own
 * thread), and served by libmicrohttpd as Prometheus text on /metrics and
 * as a liveness check on /healthz. The main loop is the only writer.
 */
#ifndef SCL_SERVE_H
#define SCL_SERVE_H

#include <pthread.h>

#include "scaler/source.h"

enum scl_action {
    SCL_ACTION_UP,
    SCL_ACTION_DOWN,
    SCL_ACTION_HOLD,
    SCL_ACTION_N,
};

/* Reasons a decision held (dsec_scaler_holds_total{reason}): the metric
 * hold reasons of source.h, then these. */
enum scl_hold_extra {
    SCL_HOLDX_POLICY = SCL_HOLD_N, /* the policy asked to hold */
    SCL_HOLDX_COOLDOWN,            /* a cooldown of the guard */
    SCL_HOLDX_ACTUATOR,            /* the current size could not be read */
    SCL_HOLDX_ACTUATOR_INVALID,    /* the scale read is not usable */
    SCL_HOLDX_N,
};

enum scl_error_kind {
    SCL_ERR_METRICS,  /* a query or scrape failed */
    SCL_ERR_ACTUATOR, /* an actuation attempt failed */
    SCL_ERR_N,
};

struct scl_stats {
    pthread_mutex_t mu;
    double interval_s;
    int desired; /* -1 before the first decision */
    int current;
    int ready;
    int pending;
    unsigned long decisions[SCL_ACTION_N];
    unsigned long holds[SCL_HOLDX_N];
    unsigned long errors[SCL_ERR_N];
    double last_success_s; /* Unix time of the last completed evaluation */
    double last_eval_mono_s;
    int metrics_valid;
    double metrics_age_s;
    double arrival_rate_per_s, num_running, num_waiting, kv_usage_mean;
    double ttft_p99_s, itl_p99_s, itl_mean_s, output_tokens_per_s;
};

/* Initialises s (no decision yet). */
void scl_stats_init(struct scl_stats *s, double interval_s);

/* Destroys the mutex. */
void scl_stats_fini(struct scl_stats *s);

/* Writes the Prometheus text of s into a new string; caller frees. */
char *scl_stats_render(struct scl_stats *s);

struct scl_server;

/* The server's limits: seconds before an idle connection is closed,
 * connections from one address, connections in all. */
#define SCL_SERVE_IDLE_S 3
#define SCL_SERVE_PER_IP 32
#define SCL_SERVE_MAX_CONN 512

/* Serves s (borrowed; must outlive the server) on listen ("host:port",
 * IPv4 or [IPv6]). Returns NULL with err filled when the address is bad
 * or the port cannot be bound. */
struct scl_server *scl_server_start(const char *listen, struct scl_stats *s,
                                    char *err, size_t errlen);

/* Stops and frees; NULL is a no-op. */
void scl_server_stop(struct scl_server *srv);

#endif /* SCL_SERVE_H */
