/*
 * dsec/policy.h: the scaling-policy interface, part of dsec's public
 * interface (dsec.h, docs/library.md, docs/policies.md). A policy sees only
 * what a live system can see: a snapshot of serving metrics per replica and
 * per pool, as vLLM exports them, windowed aggregates over the last metrics
 * window, the current and pending sizes, the targets and the clock. It
 * answers with the desired number of replicas and, optionally, how many of
 * them it wants borrowed from preemptible test pools and how the replicas
 * it removes should leave (finish in place or migrate).
 *
 * The same policy code runs in the simulator (dsec) and in the live scaler
 * (dsec-scaler): the built-in policies are linked into both, and a plug-in
 * (a shared object exporting dsec_policy_plugin, below) is loaded by both
 * with dlopen. Time is double seconds. Single-threaded per policy object:
 * create(), then decide() once per evaluation interval with a borrowed
 * snapshot, then destroy(). A policy may keep state between calls.
 *
 * The guard rails common to all policies (no decision on invalid metrics,
 * cooldowns, step limits, clamping to [min, max]) are applied by dsec after
 * decide(); policies need not repeat them.
 */
#ifndef DSEC_POLICY_H
#define DSEC_POLICY_H

#include <stddef.h>

#include "dsec/param.h"

#define POL_API_VERSION 1

/* Replica states as a live system reports them. */
enum pol_replica_state {
    POL_RS_PENDING = 0, /* requested: provisioning or loading weights */
    POL_RS_READY = 1,   /* serving */
    POL_RS_DRAINING = 2,
};

/* One replica's metrics. Gauges are instantaneous; rates and quantiles
 * cover the last window (snapshot.window_s). NAN means "not available"
 * (e.g. no request finished in the window). */
struct pol_replica {
    int pool;                  /* index into snapshot.pools */
    int state;                 /* enum pol_replica_state */
    double age_s;              /* since the replica became ready */
    double num_running;        /* vllm:num_requests_running */
    double num_waiting;        /* vllm:num_requests_waiting */
    double kv_usage;           /* vllm:kv_cache_usage_perc, 0..1 */
    double kv_capacity_tokens; /* from vllm:cache_config_info */
    double ttft_p50_s;         /* vllm:time_to_first_token_seconds */
    double ttft_p99_s;
    double itl_p50_s; /* vllm:inter_token_latency_seconds */
    double itl_p99_s;
    double prompt_tokens_per_s; /* rate of vllm:prompt_tokens_total */
    double output_tokens_per_s; /* rate of vllm:generation_tokens_total */
    double requests_per_s;      /* rate of vllm:request_success_total */
    /* Exact window means from the histograms' _sum / _count, which the
     * coarse vLLM buckets cannot blur (NAN when empty). */
    double ttft_mean_s;
    double itl_mean_s;
};

/* Which replicas a snapshot and its decision are about: the whole
 * cluster, or one group of a disaggregated (prefill/decode) deployment
 * that is scaled on its own (Dynamo's planner sizes prefill workers by
 * TTFT and decode workers by ITL). */
enum pol_role {
    POL_ROLE_ALL = 0,     /* aggregated serving: every replica */
    POL_ROLE_PREFILL = 1, /* prompts and first tokens; target_itl_s NAN */
    POL_ROLE_DECODE = 2,  /* the other tokens; target_ttft_s NAN */
};

/* One GPU pool. */
struct pol_pool {
    const char *name;
    int capacity_replicas; /* most replicas the pool can hold */
    int ready;             /* replicas serving */
    int pending;           /* requested, not yet serving */
    int draining;
    double price_usd_per_replica_hour;
    double provision_s_mean; /* expected request -> ready time */
    int preemptible;         /* can be taken back (spot) */
    int borrowable;          /* a test pool we may borrow from */
    int priority;            /* lower is preferred */
    /* The pool's replica (0 when unknown, as from dsec-scaler): its GPUs,
     * its decode output at a reference batch (the simulator: 64 sequences
     * of 2,048 tokens, from the step-time model), and that over the first
     * pool's in a cluster whose pools have their own layouts, else 1. In
     * such a mixed cluster the snapshot's sizes (ready, pending,
     * min/max_replicas, the decision) count replicas of the first pool's
     * worth: a pool's replica counts speed of them. */
    int gpus_per_replica;
    double decode_tokens_per_s;
    double speed;
};

/* What the policy sees at one evaluation. Borrowed for the call. */
struct pol_snapshot {
    int api_version;   /* POL_API_VERSION */
    double now_s;      /* clock: simulated, or wall time in the scaler */
    double interval_s; /* time between evaluations */
    double window_s;   /* span of the windowed rates and quantiles */
    int metrics_valid; /* 0: stale or missing; the guard then holds */

    /* Sizes, in replicas. */
    int ready;
    int pending;
    int draining;
    int min_replicas;
    int max_replicas;
    int gpus_per_replica;

    /* Targets from the scenario (NAN if unset), seconds. */
    double target_ttft_s;
    double target_itl_s; /* slo.tpot_ms, whose default is the seed's
                          * cluster.target_latency_ms */

    /* Cluster aggregates over the window (NAN when unavailable). */
    double arrival_rate_per_s;
    double mean_prompt_tokens;
    double mean_output_tokens;
    double output_tokens_per_s;
    double ttft_p50_s;
    double ttft_p99_s;
    double itl_p50_s;
    double itl_p99_s;
    double num_running; /* sums over ready replicas, instantaneous */
    double num_waiting;
    double kv_usage_mean;
    double ttft_mean_s; /* window means from _sum / _count */
    double itl_mean_s;

    const struct pol_replica *replicas;
    int nreplicas;
    const struct pol_pool *pools;
    int npools;

    /* enum pol_role. With a role, the sizes, bounds, replicas and gauges
     * are that group's, the targets only the one that group answers for,
     * and the cluster aggregates stay the cluster's (every request passes
     * through both groups). */
    int role;
};

/* How the replicas that a scale-down drains leave. */
enum pol_drain {
    POL_DRAIN_DEFAULT = 0, /* as the deployment says (cluster.drain) */
    POL_DRAIN_FINISH = 1,  /* admit nothing more; running requests finish */
    POL_DRAIN_MIGRATE = 2, /* running requests move away with their KV */
};

/* The answer. desired counts replicas in service after pending ones come
 * up; borrow is how many of the added replicas should come from borrowable
 * pools (the orchestrator may borrow anyway when other pools are full);
 * drain (enum pol_drain) is how the serving replicas that this decision
 * removes leave, overriding the deployment's default for them alone (a
 * simulator's LLM server migrates; an engine that cannot, or a live scaler
 * that only sets a size, lets them finish). */
struct pol_decision {
    int desired;
    int borrow;
    int drain;
};

struct pol_ops {
    int version; /* POL_API_VERSION */
    /* Creates the policy's state from its parameter block (params_size
     * bytes, laid out by the entry's rows; borrowed for the call). Returns
     * NULL only on allocation failure. */
    void *(*create)(const void *params);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
    /* Fills out (out->desired preset to ready + pending, out->borrow to 0,
     * out->drain to POL_DRAIN_DEFAULT). Returns 0, or a negative code to
     * hold this round. */
    int (*decide)(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out);
};

struct pol_entry {
    const char *name;
    const char *summary;            /* one line: the rule and its source */
    const struct sim_param *params; /* rows, NULL-key terminated */
    size_t params_size;             /* bytes of the parameter block */
    const struct pol_ops *ops;
};

/*
 * A plug-in: a shared object that exports one object of this type named
 * dsec_policy_plugin (DSEC_POLICY_PLUGIN() defines it). api_version comes
 * first so that any version of dsec can read it: a plug-in built against
 * another POL_API_VERSION is refused with both versions named. entry and
 * everything it points at must live as long as the process (dsec never
 * unloads a plug-in).
 */
struct dsec_policy_plugin {
    int api_version; /* POL_API_VERSION of the headers built against */
    const struct pol_entry *entry;
};

#define DSEC_POLICY_PLUGIN_SYMBOL "dsec_policy_plugin"

/* In a plug-in's source: DSEC_POLICY_PLUGIN(my_entry); */
#define DSEC_POLICY_PLUGIN(entry_)                                             \
    const struct dsec_policy_plugin dsec_policy_plugin = {POL_API_VERSION,     \
                                                          &(entry_)}

#endif /* DSEC_POLICY_H */
