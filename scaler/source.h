/*
 * The metrics source of dsec-scaler: collects what the serving engines
 * report, per replica, and turns it into the policy snapshot through the
 * simulator's own code (models/policy/snapshot.h, promhist.h). Two
 * inputs: PromQL over the Prometheus HTTP API, whose increase() gives the
 * window directly, and direct scrapes of /metrics, whose cumulative
 * counters go through a ring of past observations with the simulator's
 * window rule (window_s / interval_s + 1 slots; the window is the newest
 * observation minus the oldest held; a counter that went down starts the
 * replica's window after the reset). Every value is checked: NaN,
 * infinite, negative or absurd values, sample times ahead of this clock,
 * too few targets answering or too many replicas make the round a hold
 * (enum scl_hold, docs/scaler.md "What is a hold"). A replica is a distinct
 * value of the labels replica, pod and instance (plus the target URL when
 * scraping). Collection is split in begin / feed / end so that tests can feed
 * recorded texts. Single-threaded.
 */
#ifndef SCL_SOURCE_H
#define SCL_SOURCE_H

#include "models/policy/policy.h"
#include "scaler/conf.h"
#include "scaler/expo.h"

/* Why a snapshot is not valid (metrics_valid = 0): the guard then holds. */
enum scl_hold {
    SCL_HOLD_NONE = 0,
    SCL_HOLD_SOURCE_ERROR, /* Prometheus or every target failed */
    SCL_HOLD_STALE,        /* newest sample older than stale_after_s */
    SCL_HOLD_NO_REPLICAS,  /* no replica reports metrics */
    SCL_HOLD_WARMING_UP,   /* no window yet (scrape: first observation) */
    SCL_HOLD_INVALID,      /* a value is NaN, infinite, negative or absurd */
    SCL_HOLD_BAD_TIME,     /* sample time not finite or in the future */
    SCL_HOLD_PARTIAL,      /* fewer targets answer than min_reporting_share */
    SCL_HOLD_TOO_MANY,     /* more replicas report than can exist */
    SCL_HOLD_N,
};

/* What the last round saw, for logs and the scaler's own /metrics. */
struct scl_view {
    int valid;          /* the snapshot's metrics_valid */
    int hold;           /* enum scl_hold */
    char msg[256];      /* "metrics stale for 47 s", ... */
    double age_s;       /* age of the newest sample, NAN if unknown */
    int nready;         /* replicas reporting */
    int sources_failed; /* targets or queries that failed this round */
};

struct scl_source;

/* A new source for c (borrowed; must outlive the source). Caller frees
 * with scl_source_free(). */
struct scl_source *scl_source_new(const struct scl_config *c);

/* Frees src; NULL is a no-op. */
void scl_source_free(struct scl_source *src);

/* Starts a round at now_s (a monotonic clock, seconds) and wall_s (Unix
 * time, seconds, for the staleness of Prometheus samples). */
void scl_source_begin(struct scl_source *src, double now_s, double wall_s);

/* Adds the samples of one scraped target (its URL names the replicas). */
void scl_source_feed_scrape(struct scl_source *src, const char *target,
                            const struct scl_expo *e);

/* Adds the result of query q (enum scl_query) of the Prometheus source. */
void scl_source_feed_query(struct scl_source *src, int q,
                           const struct scl_expo *e);

/* Records that a target or query failed this round (err is logged by the
 * caller). */
void scl_source_fail(struct scl_source *src);

/* Ends the round: computes the windows (and, scraping, pushes the
 * observation into the ring). */
void scl_source_end(struct scl_source *src);

/* begin, the HTTP requests of the configured source, feed, end. Failed
 * requests are passed to on_error (may be NULL) with a message. */
void scl_source_collect(struct scl_source *src, double now_s, double wall_s,
                        void (*on_error)(void *arg, const char *msg),
                        void *arg);

/* Builds the snapshot of the last round into s. current is the size the
 * actuator reports (spec.replicas), or -1 when unknown. When known, it is
 * the size: ready = min(replicas reporting, current) and pending =
 * current - ready, so ready + pending (what the guard steps from) is
 * current even when more replicas report; when unknown, ready is the
 * replicas reporting and pending 0.
 * Replica and pool arrays are owned by src and valid until the next
 * round. v (may be NULL) receives what the round saw. */
void scl_source_snapshot(struct scl_source *src, int current,
                         struct pol_snapshot *s, struct scl_view *v);

/* Runs c->activation_query (scale from zero) against Prometheus: *value
 * is the sum of the series' values (0 when the vector is empty), or the
 * first value that is not finite or is negative. Returns 0, SIM_EINVAL
 * when no query is configured, or SIM_EIO with err (errlen bytes) when
 * the query failed. */
int scl_source_activation(struct scl_source *src, double *value, char *err,
                          size_t errlen);

/* The PromQL of query q under c (a default built from the metric names,
 * selector and window, or the override). Caller frees; NULL when the
 * engine has no such metric. */
char *scl_query_text(const struct scl_config *c, int q);

/* Static name of a hold reason ("stale", ...). */
const char *scl_hold_name(int h);

#endif /* SCL_SOURCE_H */
