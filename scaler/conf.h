/*
 * The configuration of dsec-scaler, read from a YAML file by the toolbox's
 * YAML-over-rows walker (base/yaml-rows.h): evaluation period and window,
 * bounds, targets, the scaling policy and its guard rails (the same names
 * and parameter rows as a scenario's policy block), the metrics source,
 * the actuator and the listen address. Every error is reported as
 * FILE:LINE:COL: error: ... through a sim_diag list, in the scenario
 * language's words. docs/scaler.md lists every key. A loaded configuration
 * owns its strings and arrays. Single-threaded.
 */
#ifndef SCL_CONF_H
#define SCL_CONF_H

#include "models/policy/guard.h"
#include "models/policy/policy.h"
#include "base/diag.h"

enum scl_source_kind {
    SCL_SRC_PROMETHEUS, /* PromQL over the Prometheus HTTP API */
    SCL_SRC_SCRAPE,     /* /metrics of the serving engines, directly */
};

enum scl_engine {
    SCL_ENG_VLLM,
    SCL_ENG_SGLANG,
};

enum scl_actuator_kind {
    SCL_ACT_KUBERNETES, /* the scale subresource of a Deployment */
    SCL_ACT_EXEC,       /* a command run with the desired count */
    SCL_ACT_LOG,        /* log only (what --dry-run selects) */
};

/* The metric families a replica is read from (names per engine in
 * metrics.c; overridable under metrics.names). */
enum scl_family {
    SCL_M_RUNNING,       /* gauge: requests running */
    SCL_M_WAITING,       /* gauge: requests queued */
    SCL_M_KV_USAGE,      /* gauge: KV cache use, 0..1 */
    SCL_M_KV_CAPACITY,   /* info gauge: KV capacity in tokens */
    SCL_M_REQUESTS,      /* counter: finished requests */
    SCL_M_PROMPT_TOKENS, /* counter: prompt tokens processed */
    SCL_M_OUTPUT_TOKENS, /* counter: tokens generated */
    SCL_M_REQ_PROMPT,    /* histogram: prompt tokens per request */
    SCL_M_REQ_OUTPUT,    /* histogram: output tokens per request */
    SCL_M_TTFT,          /* histogram: time to first token, seconds */
    SCL_M_ITL,           /* histogram: inter-token latency, seconds */
    SCL_M_N,
};

/* The PromQL queries of source: prometheus (defaults in metrics.c;
 * overridable under metrics.queries). */
enum scl_query {
    SCL_Q_RUNNING,
    SCL_Q_WAITING,
    SCL_Q_KV_USAGE,
    SCL_Q_KV_CAPACITY,
    SCL_Q_REQUESTS,
    SCL_Q_PROMPT_TOKENS,
    SCL_Q_OUTPUT_TOKENS,
    SCL_Q_REQ_PROMPT_SUM,
    SCL_Q_REQ_PROMPT_COUNT,
    SCL_Q_REQ_OUTPUT_SUM,
    SCL_Q_REQ_OUTPUT_COUNT,
    SCL_Q_TTFT_BUCKETS,
    SCL_Q_TTFT_SUM,
    SCL_Q_ITL_BUCKETS,
    SCL_Q_ITL_SUM,
    SCL_Q_SCRAPE_TIME,
    SCL_Q_TARGETS_UP, /* Prometheus' up: scrape targets answering (1/0) */
    SCL_Q_N,
};

struct scl_config {
    char *file; /* owned: the path it was read from */

    double interval_s;    /* evaluation period */
    double window_s;      /* rates and quantiles window */
    double stale_after_s; /* metrics older than this: hold */
    int min_replicas;
    int max_replicas;
    int gpus_per_replica;
    double target_itl_s;  /* NAN if unset */
    double target_ttft_s; /* NAN if unset */
    double provision_s;   /* expected request -> serving, for policies */
    double price_usd_per_replica_hour;

    const struct pol_entry *policy; /* borrowed from pol_table */
    void *policy_params;            /* owned, policy->params_size bytes */
    struct pol_guard_params guard;

    int source; /* enum scl_source_kind */
    int engine; /* enum scl_engine */
    char *prometheus_url;
    char *selector;         /* "{job=...}" or "" */
    char *names[SCL_M_N];   /* owned metric family names */
    char *queries[SCL_Q_N]; /* owned overrides, NULL = default */
    char **targets;         /* owned scrape URLs */
    int ntargets;
    double http_timeout_s;
    double max_clock_skew_s;      /* sample time further ahead: invalid */
    double min_reporting_share;   /* of targets answering, else hold */
    char *activation_query;       /* owned PromQL: requests waiting with no
                                   * replica (scale from zero), NULL = none */
    double scale_to_zero_grace_s; /* idle this long before 1 -> 0 */

    int actuator; /* enum scl_actuator_kind */
    char *api_server;
    char *k8s_namespace;
    char *deployment;
    char *token_file;
    char *ca_file;
    int insecure_skip_tls_verify;
    char **command; /* owned argv for exec, ncommand entries */
    int ncommand;
    double exec_timeout_s;
    double backoff_initial_s; /* first retry delay */
    double backoff_max_s;     /* cap of the doubling delay */
    int max_attempts;         /* actuation attempts per evaluation */

    char *listen; /* "host:port" or "" (disabled) */
};

/* Most observations the scrape ring keeps (window_s / interval_s + 1):
 * a longer window is refused at load rather than silently shortened. */
#define SCL_RING_MAX 1024

/* Largest max_replicas, and the largest size read from the scale
 * subresource that is taken as an answer (more is a hold). */
#define SCL_REPLICAS_LIMIT 100000

/* Shortest evaluation period (interval_s), in seconds: Prometheus and the
 * engines' /metrics pages are scraped at intervals of seconds, so a
 * shorter period reads the same samples again, and a tiny one spins. */
#define SCL_INTERVAL_MIN_S 1.0

/* Shortest HTTP or command time-out, in seconds: libcurl reads a
 * time-out of 0 ms as none. */
#define SCL_TIMEOUT_MIN_S 0.001

/* The configuration's root rows, read-only, as scl_config_parse() walks
 * them: keys, units, ranges, defaults and help. The policy: section's
 * rows are composed per load from pol_guard_params_rows (but interval,
 * which interval_s sets) and the policy's own params rows, so its row here
 * has no sub rows. */
extern const struct sim_param scl_config_rows[];

/* Reads path into out (zeroed first, defaults applied). Returns 0, or
 * SIM_EIO (unreadable or larger than 16 MiB), SIM_EPARSE (YAML syntax) or
 * SIM_EINVAL (bad keys or values) with every error in d; out is then
 * zeroed and owns nothing. */
int scl_config_load(const char *path, struct scl_config *out,
                    struct sim_diag *d);

/* Parses text (len bytes) named name, as scl_config_load(). */
int scl_config_parse(const char *name, const char *text, size_t len,
                     struct scl_config *out, struct sim_diag *d);

/* Frees what c owns and zeroes it; safe on a zeroed struct. */
void scl_config_fini(struct scl_config *c);

/* The static YAML key of query q under metrics.queries ("num_running",
 * "ttft_buckets", ...), "?" out of range. */
const char *scl_query_key(int q);

#endif /* SCL_CONF_H */
