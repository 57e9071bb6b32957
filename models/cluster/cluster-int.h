/*
 * Internals shared by the files of models/cluster/: the request record,
 * replicas and their life cycle, the world of one run, and the hooks by
 * which a replica engine (abstract.c, llm.c) and the orchestrator
 * (orchestrator.c, replica.c) talk to the cluster. Not installed.
 */
#ifndef CL_CLUSTER_INT_H
#define CL_CLUSTER_INT_H

#include <stdint.h>

#include "models/cluster/cluster.h"
#include "models/cluster/kvcache.h"
#include "models/perf/roofline.h"
#include "models/policy/guard.h"
#include "models/policy/policy.h"
#include "models/policy/promhist.h"
#include "models/workload/dist.h"
#include "models/workload/source.h"
#include "sim/heap.h"
#include "sim/loop.h"
#include "sim/stats.h"

struct cl_replica;

/* One request. Allocated from the world's free list; lives from arrival to
 * completion or drop. */
struct cl_req {
    struct sim_event ev;    /* abstract: completion; llm: slot in done heap */
    struct cl_req *next;    /* FIFO link, in-service link or free-list link */
    struct cl_req *prev;    /* abstract in-service list */
    struct cl_replica *rep; /* where it is being served, NULL if queued */
    uint64_t id;            /* arrival index, 0-based */
    int64_t arrival_ns;
    int64_t start_ns;       /* first admitted to service */
    int64_t first_token_ns; /* -1 until the first output token */
    int64_t prompt_tokens;
    int64_t output_tokens;
    int64_t prefilled;  /* llm: prompt tokens processed so far */
    int64_t chunk;      /* llm: prompt tokens in the in-flight iteration */
    int64_t service_ns; /* abstract: drawn at arrival (common random nums) */
    int retries;        /* times its replica failed under it */
    /* llm paged KV cache (llm.c). */
    int npreempt;            /* times it was preempted */
    int64_t gen_tokens;      /* output tokens made before the current prefill
                                ends (recompute: prompt + these re-prefill);
                                while decoding, those made when it ended */
    int64_t dec_iter;        /* iteration whose end began its decode; -1 */
    int64_t kv_blocks;       /* blocks held while prefilling */
    struct cl_req *run_prev; /* admitted requests, in admission order */
    struct cl_req *run_next;
    /* Prefix caching, offload and swap (llm.c). */
    uint64_t *hashes; /* the source's prefix-block hashes, owned, or
                         NULL (struct wl_request.block_hashes) */
    int nhashes;
    int hash_tokens;        /* tokens per source block */
    int64_t nshared;        /* its leading blocks that are prefix-cache
                               entries it references */
    int64_t swapped_tokens; /* swap: tokens whose KV waits in host memory */
    /* llm.c: the last prefix lookup of a blocked waiting head, reused
     * while its replica's cache has gained nothing (memo_gen). */
    const struct cl_llm_replica *memo_rep;
    uint64_t memo_gen;
    int64_t memo_nhit, memo_claim;
    int64_t pd_tokens; /* P/D: tokens whose KV came from a prefill
                          replica, waiting for a decode replica */
    int prio_class;    /* index in workload.priority_classes, or 0 */
    int priority;      /* its class's priority, 0 without classes */
};

/* A priority class at run time (cluster.c). */
struct cl_class_rt {
    double cum_share; /* upper end of its slice of [0, 1) */
    struct sim_hist ttft, e2e;
    double ttft_sum_ns;
    uint64_t measured, slo_met;
};

struct cl_fifo {
    struct cl_req *head;
    struct cl_req *tail;
    uint64_t n;
};

void cl__fifo_push(struct cl_fifo *q, struct cl_req *r);
void cl__fifo_push_front(struct cl_fifo *q, struct cl_req *r);
struct cl_req *cl__fifo_pop(struct cl_fifo *q);

/* A latency metric: batch means for the mean and its CI, a histogram for
 * quantiles over the run, and one for the current series interval. */
struct cl_metric {
    struct sim_bmeans bm;
    struct sim_hist all;
    struct sim_hist interval;
};

/* Cumulative counters a live system would scrape from a replica (or the
 * router, for arrivals); windows are differences of snapshots. */
struct cl_counters {
    uint64_t arrivals;
    uint64_t arrival_prompt_tokens;
    uint64_t arrival_output_tokens;
    uint64_t completed;
    uint64_t prompt_tokens;
    uint64_t output_tokens;
    struct pol_ph ttft;
    struct pol_ph itl;
};

/* Snapshots of counters taken at each policy evaluation; the window is
 * the newest minus the one CL_WIN_SLOTS-ago-or-less. */
#define CL_WIN_MAX 64

struct cl_window {
    struct cl_counters snap[CL_WIN_MAX];
    int64_t at_ns[CL_WIN_MAX];
    int head; /* next slot to write */
    int n;    /* snapshots held */
};

enum cl_rstate {
    CL_R_PROVISIONING,
    CL_R_LOADING,
    CL_R_SERVING,
    CL_R_DRAINING,
    CL_R_GONE,
};

struct cl_llm_replica;
struct cl_world;

/* The start or end of a link degradation. */
struct cl_link_ev {
    struct sim_event ev;
    struct cl_world *w;
};

struct cl_replica {
    struct cl_world *w;
    int slot;        /* index in w->reps */
    uint64_t serial; /* start order, for scripted faults */
    int pool;
    int state; /* enum cl_rstate */
    int borrowed;
    int64_t failed_at_ns; /* a replacement: when its predecessor failed;
                             -1 otherwise */
    int64_t requested_ns;
    int64_t state_since_ns;
    int64_t ready_ns;
    int64_t load_ns; /* weights + engine init, set when requested */
    struct sim_event life_ev;
    /* Idle accounting while serving: idle when it holds no request. */
    int busy;
    int64_t idle_since_ns;
    int64_t idle_acc_ns;
    /* Engines. */
    struct cl_llm_replica *llm; /* LLM engine, NULL for abstract */
    int slots_free;             /* abstract */
    int slots_busy;
    struct cl_req *inservice; /* abstract: doubly linked */
    /* Metrics a live system would see. */
    struct cl_counters ctr;
    struct cl_window win;
    struct cl_vhist req[CL_VH_COUNT]; /* finished here, for a session */
    int rseries; /* 1 + its index in w->rser; 0 before it is tracked */
};

/* A replica as the router sees it (router.c). */
struct cl_route_cand {
    int slot;              /* index in w->reps */
    int64_t outstanding;   /* requests waiting + running on it */
    double kv_usage;       /* KV blocks used / blocks, 0..1 */
    int64_t cached_tokens; /* prefix-affinity: prompt tokens it has cached */
};

/* One replica's accumulators over the current series interval
 * (replica-series.c). The replica's slot may be reused once it is gone, so
 * what a row needs is copied here each time the replica is seen. */
struct cl_rseries {
    struct cl_replica *rep; /* borrowed; rep->serial != serial once reused */
    uint64_t serial;
    int pool;
    int state;                            /* enum cl_rstate, last seen */
    struct sim_tavg running, waiting, kv; /* gauges, time-weighted */
    uint64_t out0, prompt0, done0;        /* counters at interval start */
    uint64_t out, prompt, done;           /* counters last seen */
    double hit_rate;                      /* prefix cache, last seen */
};

struct cl_pool_rt {
    const char *name;
    int gpus;      /* capacity */
    int gpus_live; /* held by replicas not yet gone */
    double price;  /* USD per GPU-hour */
    int borrowable;
    int preemptible;
    int reserved;
    int priority;
    int64_t grace_ns;
    struct wl_dist provision; /* seconds */
    double provision_mean_s;
    struct perf_replica perf; /* the model on this pool's GPU kind */
    const char *gpu;
    double gpu_s[CL_GS_COUNT]; /* GPU-seconds by state */
    uint64_t started;
    struct sim_tavg iv_gpus; /* GPUs held, this series interval */
};

struct cl_world {
    const struct cl_scenario *scn;
    struct sim_loop *loop;
    struct wl_source *src;
    struct sim_diag *diag;
    int failed; /* a source error stopped the run */

    /* Arrivals: the next request is read ahead and its event scheduled. */
    struct sim_event arrival_ev;
    struct wl_request next_req;
    int source_done;
    uint64_t expected; /* requests expected in total, 0 if unknown */
    uint64_t warmup;   /* requests with id < warmup are not measured */

    struct cl_req *free_list;
    uint64_t live;            /* requests allocated and not yet freed */
    struct cl_req **reqs_all; /* every request allocated (at most the peak
                                 live), freed with the world */
    size_t nreqs_all, cap_reqs_all;

    int gpus_per_replica;
    int64_t kv_cap_max; /* tokens: the largest replica KV cache of any pool,
                           in whole blocks */
    int elastic;
    int min_replicas;
    int max_replicas;

    /* Replicas: a table of slots; GONE slots are reused. */
    struct cl_replica **reps;
    int nreps; /* slots in use (some may be GONE) */
    int cap_reps;
    uint64_t next_serial;
    int n_serving; /* SERVING */
    int n_pending; /* PROVISIONING or LOADING */
    int n_draining;

    struct cl_pool_rt *pools;
    int npools;

    /* Abstract servers: one central FCFS queue. */
    struct cl_fifo queue;
    struct wl_dist service; /* seconds, drawn at arrival */

    /* LLM replicas: routed at arrival by cluster.routing (router.c); the
     * model's figures per GPU kind live in each pool's perf. */
    struct cl_route_cand *route_cands; /* scratch, route_cap entries */
    int route_cap;
    int route_rr_next; /* round-robin: first slot to try next */

    /* Orchestrator. */
    const struct pol_entry *policy;
    void *policy_state;
    void *policy_params;
    struct pol_guard guard;
    struct sim_event policy_ev;
    struct cl_counters cl_ctr; /* cluster-wide cumulative counters */
    struct cl_window cl_win;
    int win_slots;
    int desired;
    struct pol_replica *snap_reps;
    struct pol_pool *snap_pools;
    int external;   /* a session sets the size from outside: no policy runs */
    int readouts;   /* a session records replicas' per-request histograms */
    uint64_t ticks; /* a session's clock-advance events (not in sim_events) */

    /* Faults. */
    struct cl_link_ev *link_evs; /* 2 per link fault: start and end */
    double link_factor;          /* bandwidth left on TP links, 1 = all */
    struct sim_event mtbf_ev;
    struct sim_event script_ev;
    int next_script;
    double recovery_s_sum;
    uint64_t recoveries;

    /* Counters and statistics. */
    uint64_t arrived, completed, dropped, measured, slo_met;
    uint64_t input_tokens, output_tokens;
    uint64_t retried, failures, cold_starts, scale_events;
    uint64_t preemptions;  /* llm: running requests whose KV was dropped */
    struct cl_kv_world kv; /* llm: prefix cache, offload, swap (llm.c) */
    struct cl_class_rt *classes; /* workload.priority_classes, or NULL */
    int nclasses;
    int64_t kv_blocks_peak; /* llm: most KV blocks one replica held */
    uint64_t policy_holds;
    struct cl_metric ttft, tpot, e2e, queue_ms;
    struct sim_tavg waiting; /* requests queued, not yet admitted */
    struct sim_tavg running; /* requests admitted, not complete */
    struct sim_tavg replicas_up;
    struct sim_tavg busy; /* abstract: busy slots */
    struct sim_tavg gpus_held;
    int64_t slots_busy_total;
    int64_t n_waiting;
    int64_t n_running;
    int64_t last_event_ns;
    int replicas_min_seen;
    int replicas_max_seen;

    /* Time series. */
    struct sim_event interval_ev;
    int64_t interval_start_ns;
    uint64_t iv_arrivals, iv_completions, iv_output_tokens;
    struct sim_tavg iv_waiting, iv_running, iv_replicas, iv_gpus;
    struct cl_results *res;
    size_t series_cap;
    struct cl_rseries *rser; /* replicas tracked this interval, in order */
    int nrser;
    int cap_rser;
    size_t rseries_cap; /* rows allocated in res->replica_series */

    uint64_t progress_every;
    const struct cl_run_opts *opts;
};

/* Routing (router.c). */
/* The index in c[0..n) of the replica that routing (enum cl_routing) picks;
 * c is in slot order. max_imbalance: prefix-affinity's bound in requests.
 * *rr_next: round-robin's cursor, advanced past the pick. rng: random's
 * stream (NULL for the other rules). Returns -1 when n is 0. */
int cl__route_choose(int routing, const struct cl_route_cand *c, int n,
                     int max_imbalance, int *rr_next, gsl_rng *rng);
/* The serving replica that cluster.routing sends r to, among those whose KV
 * cache holds r at its peak; NULL when none serves. O(replicas). */
struct cl_replica *cl__route(struct cl_world *w, const struct cl_req *r);
void cl__route_fini(struct cl_world *w);

/* Per-replica series (replica-series.c). */
/* Records rep's gauges and counters now. Engines call it, through
 * cl__replica_set_busy(), after every change of a replica's running,
 * waiting, KV blocks or counters, at the time of the change. O(1). */
void cl__rseries_touch(struct cl_world *w, struct cl_replica *rep);
/* Appends one row per tracked replica for [start_ns, end_ns] to w->res and
 * starts the next interval; forgets replicas that are gone. */
void cl__rseries_close(struct cl_world *w, int64_t start_ns, int64_t end_ns);
void cl__rseries_fini(struct cl_world *w);

/* Requests. */
struct cl_req *cl__req_new(struct cl_world *w);
void cl__req_free(struct cl_world *w, struct cl_req *r);

/* Books a change in the number waiting or running (time-weighted). */
void cl__set_waiting(struct cl_world *w, int64_t delta);
void cl__set_running(struct cl_world *w, int64_t delta);

/* Records a finished request at the current time and frees it. */
void cl__complete(struct cl_world *w, struct cl_req *r);

/* Records v in h of kind (session.c). */
void cl__vhist_add(struct cl_vhist *h, int kind, double v);

/* Hands a request (new, or retried after a failure) to the engine. */
void cl__dispatch(struct cl_world *w, struct cl_req *r);

/* Replicas (replica.c). */
/* Requests a replica in pool. warm: serving at once (the cluster at t =
 * 0). failed_at_ns >= 0: a replacement for one that failed then (adds the
 * detection delay, loads from the recovery source). */
struct cl_replica *cl__replica_request(struct cl_world *w, int pool, int warm,
                                       int64_t failed_at_ns);
void cl__replica_drain(struct cl_world *w, struct cl_replica *rep);
void cl__replica_cancel(struct cl_world *w, struct cl_replica *rep);
void cl__replica_fail(struct cl_world *w, struct cl_replica *rep);
void cl__replica_set_busy(struct cl_world *w, struct cl_replica *rep, int busy);
/* Called by an engine when a draining replica has emptied. */
void cl__replica_drained(struct cl_world *w, struct cl_replica *rep);
/* Closes the accounting of every replica at the end of the run. */
void cl__replicas_close(struct cl_world *w, int64_t end_ns);
void cl__replicas_free(struct cl_world *w);

/* The parameter block of policy e: its defaults, then the scenario's
 * policy.params. Returns it (caller frees with free()), or NULL with a
 * diagnostic at each bad parameter. */
void *cl__policy_params(const struct pol_entry *e, const struct cl_scenario *s,
                        struct sim_diag *d);

/* The run driver (cluster.c), for cl_run and the session (session.c).
 * cl__world_open() checks s and builds the world on w (zeroed by the
 * caller; w->external set first for an external session) up to the first
 * event: results are written into out as the run goes. Returns 0, or a
 * negative SIM_E* code with diagnostics. cl__world_close() ends the run at
 * the last event and fills out's totals; returns the source's error code
 * or 0. cl__world_free() frees w and everything it holds (after a failed
 * open too). */
int cl__world_open(struct cl_world *w, const struct cl_scenario *s,
                   const struct cl_run_opts *opts, struct cl_results *out,
                   struct sim_diag *d);
int cl__world_close(struct cl_world *w, struct cl_results *out);
void cl__world_free(struct cl_world *w);

/* Orchestrator and faults (orchestrator.c). */
int cl__orch_init(struct cl_world *w, struct sim_diag *d);
/* Reconciles the cluster to desired replicas (serving + pending), borrow of
 * them from borrowable pools, as after a policy decision: requests,
 * cancels or drains replicas now. */
void cl__orch_scale_to(struct cl_world *w, int desired, int borrow);
void cl__orch_start(struct cl_world *w);
void cl__orch_fini(struct cl_world *w);
void cl__counters_init(struct cl_counters *c);

/* Abstract engine (abstract.c). */
void cl__abstract_arrive(struct cl_world *w, struct cl_req *r);
void cl__abstract_ready(struct cl_world *w, struct cl_replica *rep);
void cl__abstract_drain(struct cl_world *w, struct cl_replica *rep);
void cl__abstract_fail(struct cl_world *w, struct cl_replica *rep);

/* LLM engine (llm.c). */
void cl__llm_ready(struct cl_world *w, struct cl_replica *rep);
void cl__llm_drain(struct cl_world *w, struct cl_replica *rep);
void cl__llm_fail(struct cl_world *w, struct cl_replica *rep);
void cl__llm_free(struct cl_replica *rep);
void cl__llm_arrive(struct cl_world *w, struct cl_req *r);
/* Tokens request r holds in the KV cache at its peak: prompt + output - 1
 * (the last token's KV is never written), at least its prompt. */
int64_t cl__llm_kv_peak_tokens(const struct cl_req *r);
/* KV capacity of one replica of a pool with perf, in tokens, rounded down
 * to whole blocks of sv->block_tokens: a request fits iff its peak tokens
 * are at most this. */
int64_t cl__llm_kv_cap_tokens(const struct cl_server *sv,
                              const struct perf_replica *perf);
/* KV blocks held by requests on rep now (0 for an abstract replica). */
int64_t cl__llm_blocks_used(const struct cl_replica *rep);
/* Gauges of an LLM replica for the policy snapshot. */
void cl__llm_gauges(const struct cl_replica *rep, double *running,
                    double *waiting, double *kv_usage);
/* Frees what the LLM engines hold for the whole world (the remote KV
 * tier). */
void cl__llm_world_fini(struct cl_world *w);
/* Fills out's prefix-cache, offload and swap figures. */
void cl__llm_kv_results(const struct cl_world *w, struct cl_results *out);
/* Copies the block hashes of q into r (nothing without hashes). */
void cl__llm_req_hashes(struct cl_req *r, const struct wl_request *q);
/* Tokens of r's prompt whose blocks are in rep's GPU prefix cache now
 * (the longest cached chain of its block hashes, in tokens, at most its
 * prompt); 0 without hashes, with prefix caching off, or for an abstract
 * replica. O(blocks of r). For prefix-affinity routing. */
int64_t cl__llm_prefix_cached_tokens(const struct cl_replica *rep,
                                     const struct cl_req *r);
/* Cumulative prefix-cache hit rate of rep: blocks found over blocks looked
 * up at admission; NAN before any lookup. */
double cl__llm_prefix_hit_rate(const struct cl_replica *rep);

#endif /* CL_CLUSTER_INT_H */
