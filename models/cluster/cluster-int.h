/*
 * Internals shared by the files of models/cluster/: the request record,
 * replicas and their life cycle, the world of one run, and the hooks by
 * which a replica engine (abstract.c, llm.c, behind the registry of
 * engine.h) and the orchestrator (orchestrator.c, replica.c) talk to the
 * cluster. Every shared struct says, group by group, which file writes
 * its fields; the others only read them. Not installed. Single-threaded.
 */
#ifndef CL_CLUSTER_INT_H
#define CL_CLUSTER_INT_H

#include <stdint.h>

#include "models/cluster/cluster.h"
#include "models/cluster/engine.h"
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
struct cl_world;

/* One request. Allocated from the world's free list (cluster.c); lives
 * from arrival to completion or drop. cluster.c writes the fields of its
 * arrival and frees it; the engine serving it writes the rest, each group
 * below saying which. */
struct cl_req {
    /* abstract.c: completion; llm.c: slot in the done heap, or the P/D
     * landing. */
    struct sim_event ev;
    struct cl_req *next; /* FIFO link (cl__fifo_*), in-service or free list */
    struct cl_req *prev; /* FIFO link back, or abstract.c's in-service list */
    /* Engines: where it is being served, NULL if queued in the cluster. */
    struct cl_replica *rep;
    /* cluster.c, at arrival. */
    uint64_t id; /* arrival index, 0-based */
    int64_t arrival_ns;
    /* Engines: first admitted to service; -1 until the first output
     * token (abstract: the whole response). */
    int64_t start_ns;
    int64_t first_token_ns;
    /* cluster.c, at arrival. */
    int64_t prompt_tokens;
    int64_t output_tokens;
    int stage; /* load stage (struct wl_request.stage) */
    /* llm.c: when it last joined a replica's waiting queue from outside
     * (async scheduling's cutoff compares it). */
    int64_t engine_ns;
    /* llm.c: the prompt's progress. */
    int64_t prefilled; /* prompt tokens processed so far */
    int64_t chunk;     /* prompt tokens in the in-flight iteration */
    /* abstract.c: drawn at arrival (common random numbers). */
    int64_t service_ns;
    int retries; /* engines: times its replica failed under it */
    /* cluster.c: set while the API front end holds it (its ev pending). */
    struct cl_world *frontend_world;
    /* llm.c: the paged KV cache. */
    int npreempt;            /* times it was preempted */
    int64_t cached_tokens;   /* prompt tokens found cached at its first
                                admission (the per-request results) */
    int64_t gen_tokens;      /* output tokens made before the current prefill
                                ends (recompute: prompt + these re-prefill);
                                while decoding, those made when it ended */
    int64_t dec_iter;        /* iteration whose end began its decode; -1 */
    int64_t kv_blocks;       /* blocks held while prefilling */
    int64_t kv_peak;         /* server.kv_admission reserve: blocks reserved */
    struct cl_req *run_prev; /* admitted requests, in admission order */
    struct cl_req *run_next;
    /* llm.c: prefix caching, offload and swap. hashes is copied at arrival
     * (the accept op) and freed by cl__req_free(). */
    uint64_t *hashes; /* the source's prefix-block hashes, owned, or
                         NULL (struct wl_request.block_hashes) */
    int nhashes;
    int hash_tokens;        /* tokens per source block */
    int64_t nshared;        /* its leading blocks that are prefix-cache
                               entries it references */
    int64_t swapped_tokens; /* swap: tokens whose KV waits in host memory */
    int swap_tier;          /* where: 0 swap space, 1 host, 2 remote */
    /* llm.c: the last prefix lookup of a blocked waiting head, reused
     * while its replica's cache has gained nothing (memo_gen). */
    const struct cl_llm_replica *memo_rep;
    uint64_t memo_gen;
    int64_t memo_nhit, memo_claim;
    int64_t pd_tokens; /* llm.c, P/D: tokens whose KV came from a prefill
                          replica, waiting for a decode replica */
    /* llm.c, speculative decoding: the steps its decode takes (drawn when
     * it starts decoding) and the growth phase of its KV. */
    int64_t dec_steps;
    int64_t dec_phase;
    /* cluster.c, at arrival. */
    int prio_class; /* index in workload.priority_classes, or 0 */
    int priority;   /* its class's priority, 0 without classes */
    /* client.c: the time-out (workload.client.timeout), scheduled from
     * the send to the end, and the closed-loop user that sent it (-1 in
     * an open loop). */
    struct sim_event client_ev;
    int user;
    int pd_moving; /* llm.c, P/D: its KV is in transit (ev pending) */
    /* llm.c, drain: migrate: tokens of KV pre-copied while it ran on a
     * draining replica (-1: none), and the serial of the replica its KV
     * is moving to (r->rep while pd_moving). */
    int64_t mig_copied;
    uint64_t mig_serial;
    /* llm.c, a move chosen before its stop-and-copy (cluster.rebalance,
     * cluster.defrag): the replica it goes to and that replica's serial
     * then (NULL: the least loaded at the stop); and cluster.defrag's
     * marks: tried as a waiting head, moved once. */
    struct cl_replica *mig_to;
    uint64_t mig_to_serial;
    int defrag_tried;
    int defrag_moved;
};

/* A priority class at run time (cluster.c). */
struct cl_class_rt;

/* A load stage at run time (cluster.c). */
struct cl_stage_rt;

/* A FIFO of requests linked by next (cl__fifo_*, cluster.c). */
struct cl_fifo {
    struct cl_req *head;
    struct cl_req *tail;
    uint64_t n;
};

void cl__fifo_push(struct cl_fifo *q, struct cl_req *r);
void cl__fifo_push_front(struct cl_fifo *q, struct cl_req *r);
struct cl_req *cl__fifo_pop(struct cl_fifo *q);
/* Unlinks r, which must be in q. O(1). */
void cl__fifo_remove(struct cl_fifo *q, struct cl_req *r);

/* A latency metric (cluster.c): batch means for the mean and its CI, and
 * histograms for quantiles. A sample goes to one histogram only: the
 * current series interval's measured samples (iv_measured) or its others
 * (iv_warmup, requests of the warm-up); the interval's quantiles read both,
 * and as it closes its measured samples are added to the run's (all),
 * bucket by bucket. */
struct cl_metric {
    struct sim_bmeans bm;
    struct sim_hist all;
    struct sim_hist iv_measured;
    struct sim_hist iv_warmup;
};

/* Cumulative counters a live system would scrape from a replica (or the
 * router, for arrivals); windows are differences of snapshots. cluster.c
 * counts arrivals, the engines the rest; orchestrator.c snapshots them. */
struct cl_counters {
    uint64_t arrivals;
    uint64_t arrival_prompt_tokens;
    uint64_t arrival_output_tokens;
    uint64_t completed;
    uint64_t prompt_tokens;
    uint64_t output_tokens;
    /* vllm:prefix_cache_queries and _hits, in blocks: hashed prompt blocks
     * looked up at admission and found (llm.c, per replica only). */
    uint64_t prefix_queries;
    uint64_t prefix_hits;
    struct pol_ph ttft;
    struct pol_ph itl;
};

/* Snapshots of counters taken at each policy evaluation; the window is
 * the newest minus the one CL_WIN_SLOTS-ago-or-less (orchestrator.c). */
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

/* The start or end of a link degradation (orchestrator.c). */
struct cl_link_ev;

/* Why a replica is given notice to leave (cl__replica_revoke()). */
enum cl_revoke_cause {
    CL_REVOKE_RECLAIM,      /* a borrowable pool's owner takes GPUs back */
    CL_REVOKE_INTERRUPTION, /* a spot pool's provider takes them */
    CL_REVOKE_COUNT,
};

/* What taking GPUs back cost, per cause. reclaim.c counts events and
 * late_gpus; replica.c the rest, as replicas leave. */
struct cl_revoke_cost {
    uint64_t events;       /* owner claims / interruptions that hit a replica */
    uint64_t replicas;     /* replicas given notice */
    uint64_t gpus;         /* their GPUs */
    uint64_t handed_back;  /* replicas still busy when their notice ended */
    uint64_t restarted;    /* requests restarted elsewhere at a notice's end */
    double kv_tokens_lost; /* KV tokens those replicas held then */
    uint64_t late_gpus;    /* GPUs still ours when a notice ended (always 0) */
};

/* The reclaim and interruption processes' own state (reclaim.c). */
struct cl_reclaim_set;

/* One replica. replica.c writes its life cycle; the other groups say
 * their writer. */
struct cl_replica {
    /* replica.c: identity and life cycle. */
    struct cl_world *w;
    int slot;        /* index in w->reps */
    uint64_t serial; /* start order, for scripted faults */
    int pool;
    int role;  /* enum cl_role */
    int gpus;  /* its role's GPUs per replica (w->role_gpus) */
    int state; /* enum cl_rstate */
    int borrowed;
    int64_t failed_at_ns; /* a replacement: when its predecessor failed;
                             -1 otherwise */
    int64_t requested_ns;
    int64_t state_since_ns;
    int64_t ready_ns;
    int64_t load_ns; /* weights + engine init, set when requested */
    struct sim_event life_ev;
    /* replica.c: a notice to leave (a reclaim or an interruption,
     * cl__replica_revoke()): when it ends (-1: none), why (enum
     * cl_revoke_cause), and the event that hands back what is left. */
    int64_t notice_end_ns;
    int notice_cause;
    struct sim_event notice_ev;
    /* replica.c, at cl__replica_drain(): how it drains (enum cl_drain):
     * cluster.drain, or the scaling decision's own mode. */
    int drain;
    /* replica.c, through cl__replica_set_busy() from the engines: idle
     * accounting while serving (idle when it holds no request). */
    int busy;
    int64_t idle_since_ns;
    int64_t idle_acc_ns;
    /* The engine's state of this replica (engine.h): from its ready() to
     * its fail() or replica_free(); NULL before. */
    void *engine_state;
    /* Metrics a live system would see. ctr: the engines write it;
     * orchestrator.c windows it into win. req: cluster.c, at completion,
     * for a session's read-outs. */
    struct cl_counters ctr;
    struct cl_window win;
    struct cl_vhist req[CL_VH_COUNT];
    int rseries; /* replica-series.c: 1 + its index there; 0 untracked */
};

/* A replica as the router sees it (router.c). */
struct cl_route_cand {
    int slot;              /* index in w->reps */
    int64_t outstanding;   /* requests waiting + running on it */
    double kv_usage;       /* KV blocks used / blocks, 0..1 */
    int64_t cached_tokens; /* prefix-affinity: prompt tokens it has cached */
    double speed;          /* relative speed (its pool's); <= 0 means 1 */
};

/* The reference batch at which a pool's replica speed is measured:
 * decode of this many sequences of this many tokens of context (a
 * mid-sized chat batch; an assumption, docs/orchestrator.md). */
#define CL_SPEED_REF_SEQS 64
#define CL_SPEED_REF_CONTEXT 2048

/* The router's scratch and cursor (router.c). */
struct cl_router;

/* The per-replica series' accumulators (replica-series.c). */
struct cl_rseries_set;

/* A replica's group: the one group of a colocated cluster, or under
 * deploy.disaggregation its prefill or decode group (CL_ROLE_PREFILL +
 * enum cl_pd_group). replica.c assigns it when a replica is requested. */
enum cl_role {
    CL_ROLE_BOTH,    /* no disaggregation: prompts and tokens */
    CL_ROLE_PREFILL, /* prompts and first tokens */
    CL_ROLE_DECODE,  /* the other tokens */
    CL_ROLE_COUNT,
};

/* One replica layout on a pool's GPU kind, as the engine's pool_init
 * builds it: the model (zero for an engine without one) and its KV cache
 * as vLLM's cache_config_info reports it (NAN, 0 without one), with the
 * batch caps. */
struct cl_layout_rt {
    struct perf_replica perf;
    double kv_tokens;      /* the model's KV capacity, tokens */
    int64_t kv_cap_tokens; /* in whole blocks of the pool's kv_block_tokens */
    int64_t max_num_seqs;  /* server.max_num_seqs (or the group's), else
                              vLLM's rule for the pool's GPU
                              (perf_default_max_num_seqs) */
    int64_t max_num_batched_tokens; /* likewise, with
                                       perf_default_max_num_batched_tokens */
};

/* One pool at run time. */
struct cl_pool_rt {
    /* cluster.c, at open: the pool as configured. */
    const char *name;
    int gpus;     /* capacity */
    double price; /* USD per GPU-hour: the plan's, the engine's pool_init's
                     for its GPU kind, or the pool's own */
    int borrowable;
    int preemptible;
    int reserved;
    int priority;
    int64_t grace_ns;
    struct wl_dist provision; /* seconds */
    double provision_mean_s;
    const char *gpu;
    /* The engine's pool_init: the replica layout of each role on this
     * pool's GPU kind; CL_ROLE_BOTH without disaggregation, the other two
     * with it (cl__layout_of()). kv_tokens is NAN in the ones not built. */
    struct cl_layout_rt lay[CL_ROLE_COUNT];
    int kv_block_tokens; /* server.block_tokens */
    /* GPUs of one CL_ROLE_BOTH replica here: the plan's gpus_per_replica,
     * or the pool's own layout's (pools[].deploy). speed_tokps: its decode
     * output at the reference batch (CL_SPEED_REF_SEQS sequences of
     * CL_SPEED_REF_CONTEXT tokens, perf_saturate()), 0 when the engine
     * has no perf model; speed: that over the first pool's in a mixed
     * cluster (w->mixed), else 1. */
    int gpr;
    double speed_tokps;
    double speed;
    /* reclaim.c: GPUs the owner holds or has claimed (borrowable), so not
     * ours to take; the interruptions' notice (preemptible). */
    int owner_gpus;
    int64_t notice_ns;
    /* replica.c: what its replicas hold and used. */
    int gpus_live;             /* held by replicas not yet gone */
    double gpu_s[CL_GS_COUNT]; /* GPU-seconds by state */
    uint64_t started;
    /* GPUs held, this series interval: replica.c sets it, cluster.c
     * restarts it at each interval's end. */
    struct sim_tavg iv_gpus;
};

/*
 * The world of one run, shared by every file of the folder. Each group
 * names the file that writes its fields; the others only read them. What
 * one file alone uses lives in that file's own struct behind a pointer
 * (the engines' states, the router, the per-replica series).
 */
struct cl_world {
    /* cluster.c, at open (cl__world_open()): the run. */
    const struct cl_scenario *scn;
    const struct cl_run_opts *opts;
    const struct cl_engine *engine; /* server.kind's entry (engine.h) */
    struct sim_loop *loop;
    struct sim_diag *diag;
    struct cl_results *res; /* written as the run goes */
    int gpus_per_replica;
    /* 1 when some pool has its own layout (cl_pools_mixed()): replicas
     * differ by pool in GPUs and speed, the policy's sizes are in units of
     * the first pool's replica and the router weights by speed
     * (docs/orchestrator.md, "Pools with their own layout"). */
    int mixed;
    /* deploy.disaggregation: 1, with each role's planned replicas and
     * GPUs per replica (CL_ROLE_BOTH's: gpus_per_replica, and 0 replicas
     * under P/D); 0 without it. */
    int pd;
    int role_replicas[CL_ROLE_COUNT];
    int role_gpus[CL_ROLE_COUNT];
    int elastic;
    int min_replicas;
    int max_replicas;
    int64_t kv_cap_max;        /* tokens: the largest pools[].kv_cap_tokens */
    int64_t kv_cap_min;        /* and the smallest */
    int64_t max_model_len;     /* tokens: server.max_model_len or the model's
                                  context (cl__llm_max_model_len); 0: none */
    uint64_t dropped_too_long; /* of dropped: longer than max_model_len */
    /* The API front end (llm servers; zero otherwise): server.frontend's
     * keys where given, else the calibration of the first pool's GPU
     * (resolve_frontend() in cluster.c). */
    struct cl_frontend frontend;
    uint64_t expected; /* requests expected in total, 0 if unknown */
    uint64_t warmup;   /* requests with id < warmup are not measured */
    uint64_t progress_every;
    const struct pol_entry *policy; /* elastic: the policy's entry */

    /* The engine's world state (engine.h), from its world_init(). */
    void *engine_state;

    /* session.c, before open: how the run is driven. external: a session
     * sets the size from outside, no policy runs (orchestrator.c reads
     * it); readouts: replicas record per-request histograms (cluster.c).
     * ticks: a session's clock-advance events, not in sim_events. */
    int external;
    int readouts;
    uint64_t ticks;

    /* cluster.c: arrivals. The next request is read ahead and its event
     * scheduled when the client (client.c, which may reschedule it) says;
     * a source error stops the run (failed; session.c reads). */
    struct wl_source *src;
    struct sim_event arrival_ev;
    struct wl_request next_req;
    int source_done;
    int failed;

    /* cluster.c: the request pool. */
    struct cl_req *free_list;
    uint64_t live;            /* requests allocated and not yet freed */
    struct cl_req **reqs_all; /* every request allocated (at most the peak
                                 live), freed with the world */
    size_t nreqs_all, cap_reqs_all;

    /* The engine: requests on no replica, as the engine's central queue
     * (abstract) or held while no replica can take them (llm). cluster.c
     * frees what is left; orchestrator.c and session.c read its length. */
    struct cl_fifo queue;

    /* cluster.c builds the pools at open, with the engine's pool_init;
     * replica.c charges them (struct cl_pool_rt says which fields). */
    struct cl_pool_rt *pools;
    int npools;

    /* replica.c: a table of replica slots (GONE slots are reused), the
     * counts by state, and what cluster.c reports of them. */
    struct cl_replica **reps;
    int nreps; /* slots in use (some may be GONE) */
    int cap_reps;
    /* By slot: a serving replica's waiting and admitted requests, INT64_MAX
     * for any other, kept by set_state() and the LLM engine's every change
     * (llm.c update_busy()), so that least-outstanding routing reads one
     * array, not 32 replicas' engine states (6 % of the fleet-day's time
     * was their cache misses). */
    int64_t *route_n;
    /* Slots of GONE replicas as a binary min-heap, so that a new replica
     * takes the lowest free slot (as the linear scan this replaced did, so
     * that results did not change) in O(log n), not O(n). */
    int *free_slots;
    int nfree;
    int cap_free;
    uint64_t next_serial;
    int n_serving; /* SERVING */
    int n_pending; /* PROVISIONING or LOADING */
    int n_draining;
    int replicas_min_seen; /* cluster.c sets both at t = 0 */
    int replicas_max_seen;
    uint64_t failures, cold_starts;
    double recovery_s_sum;
    uint64_t recoveries;
    /* replica.c sets these averages at every change of size; cluster.c
     * starts them and restarts the iv_ ones at each interval's end. */
    struct sim_tavg replicas_up;
    struct sim_tavg iv_replicas, iv_gpus;
    /* replica.c: GPU-seconds held by each role's replicas, all states. */
    double role_gpu_s[CL_ROLE_COUNT];

    /* router.c's own, made at the first routed request. */
    struct cl_router *router;

    /* orchestrator.c: the policy loop (session.c sets desired for an
     * external session; cluster.c reports desired, scale_events and
     * policy_holds). */
    void *policy_state;
    void *policy_params;
    struct pol_guard guard;
    struct sim_event policy_ev;
    struct cl_window cl_win;
    int win_slots;
    int desired;
    struct pol_replica *snap_reps;
    struct pol_pool *snap_pools;
    uint64_t scale_events, policy_holds;
    /* Scale to zero (min_replicas 0): when the cluster last had no
     * request (w->live fell to 0; cluster.c), and the requests that
     * arrived with no replica serving: all of them, those still waiting
     * for the first replica (their arrivals relative to the first's), and
     * the seconds waited by those served. */
    int64_t idle_since_ns;
    uint64_t cold_waits, cold_pending;
    int64_t cold_first_ns;
    double cold_rel_ns, cold_wait_s_sum;
    /* Elastic P/D: the decode group's policy state and guard (the prefill
     * group uses policy_state and guard), each group's bounds, and the
     * group the next requested replica joins (-1: cl__replica_next_role()
     * decides). role_replicas[] then holds each group's desired size. */
    void *policy_state_decode;
    struct pol_guard guard_decode;
    int role_min[CL_ROLE_COUNT], role_max[CL_ROLE_COUNT];
    int role_seen_min[CL_ROLE_COUNT], role_seen_max[CL_ROLE_COUNT];
    int force_role;

    /* orchestrator.c: faults (llm.c reads link_factor). */
    struct cl_link_ev *link_evs; /* 2 per link fault: start and end */
    double link_factor;          /* bandwidth left on TP links, 1 = all */
    struct sim_event mtbf_ev;
    struct sim_event script_ev;
    int next_script;

    /* Reclaims and interruptions (reclaim.c's own, and their cost). */
    struct cl_reclaim_set *reclaim;
    struct cl_revoke_cost revoke[CL_REVOKE_COUNT];

    /* Cluster-wide counters a live system scrapes: cluster.c counts
     * arrivals, the engines the rest; orchestrator.c windows them. */
    struct cl_counters cl_ctr;

    /* cluster.c: request statistics. The engines book through
     * cl__set_waiting(), cl__set_running() and cl__complete(), and count
     * retried; last_event_ns also moves in replica.c (a change of size)
     * and session.c (a stepped session's end). */
    uint64_t arrived, completed, dropped, measured, slo_met;
    uint64_t timed_out; /* client.c: abandoned at the client's time-out */
    uint64_t input_tokens, output_tokens;
    uint64_t retried;
    struct cl_class_rt *classes; /* workload.priority_classes, or NULL */
    int nclasses;
    struct cl_metric ttft, tpot, e2e, queue_ms;
    /* Inter-token latency: cl__itl_add() from the engines. */
    struct sim_hist itl;
    double itl_sum_ns;
    /* Per load stage, made at the first request of each (cl__stage()). */
    struct cl_stage_rt **stages;
    int nstages;
    int stages_clamped;      /* a stage past CL_STAGES_MAX was seen (noted) */
    size_t requests_cap;     /* of res->requests (metrics.requests) */
    struct sim_tavg waiting; /* requests queued, not yet admitted */
    struct sim_tavg running; /* requests admitted, not complete */
    int64_t n_waiting;
    int64_t n_running;
    int64_t last_event_ns;

    /* cluster.c: the time series. */
    struct sim_event interval_ev;
    int64_t interval_start_ns;
    uint64_t iv_arrivals, iv_completions, iv_output_tokens;
    struct sim_tavg iv_waiting, iv_running;
    size_t series_cap;

    /* replica-series.c's own, made at the first replica it tracks. */
    struct cl_rseries_set *rseries;

    /* client.c's own (cl__client_open()). */
    struct cl_client_rt *client;
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
/* Frees w->router; a no-op when no request was routed. */
void cl__route_fini(struct cl_world *w);

/* Per-replica series (replica-series.c). */
/* Records rep's gauges and counters now. Engines call it, through
 * cl__replica_set_busy(), after every change of a replica's running,
 * waiting, KV blocks or counters, at the time of the change. O(1). */
static inline void cl__rseries_touch(struct cl_world *w,
                                     struct cl_replica *rep);
/* cl__rseries_touch() at t_ns, no earlier than rep's last touch and no
 * later than the clock: a fast-forwarded iteration's end (llm.c). */
void cl__rseries_touch_at(struct cl_world *w, struct cl_replica *rep,
                          int64_t t_ns);
static inline void cl__rseries_touch(struct cl_world *w, struct cl_replica *rep)
{
    cl__rseries_touch_at(w, rep, sim_loop_now(w->loop));
}
/* cl__rseries_touch_at() for a run of fast-forwarded decode steps
 * (llm.c): rep's running and waiting are those of its last touch; its KV
 * usage became kv[j] at t_ns[j] (j < n, the steps whose blocks grew, in
 * order) and stayed as it was at the others; so only its KV mean and
 * output counter move (a time-weighted mean is the same whether a
 * constant stretch is one piece or many, up to the last bit of its
 * sum). */
void cl__rseries_decode_run(struct cl_world *w, struct cl_replica *rep,
                            const int64_t *t_ns, const double *kv, int n);
/* Closes the metrics interval ending at end_ns: at the last interval of a
 * row (or when last is not 0, the run's end) appends one row per tracked
 * replica to w->res from the row's start, starts the next row and forgets
 * replicas that are gone; merges rows when they reach
 * metrics.replica_rows (replica-series.c). */
void cl__rseries_close(struct cl_world *w, int64_t end_ns, int last);
/* Writes the row being built, if it holds any interval, ending at end_ns
 * (the run ended on an interval's boundary). */
void cl__rseries_flush(struct cl_world *w, int64_t end_ns);
/* Frees w->rseries; a no-op when no replica was tracked. */
void cl__rseries_fini(struct cl_world *w);

/* Requests. */
struct cl_req *cl__req_new(struct cl_world *w);
void cl__req_free(struct cl_world *w, struct cl_req *r);

/* Books a change in the number waiting or running (time-weighted). */
void cl__set_waiting(struct cl_world *w, int64_t delta);
void cl__set_running(struct cl_world *w, int64_t delta);

/* Records a finished request at the current time and frees it. */
void cl__complete(struct cl_world *w, struct cl_req *r);

/* How a request ended, as the per-request results record it. */
enum cl_outcome {
    CL_OUTCOME_OK,      /* finished: every output token streamed */
    CL_OUTCOME_TIMEOUT, /* abandoned by the client (workload.client.timeout) */
    CL_OUTCOME_DROPPED, /* refused at arrival: could never fit a replica */
};

/* Records request r's end (outcome: enum cl_outcome) for the per-stage and
 * per-request results, at the current time; called once per request by
 * whoever ends it (cl__complete(), the client's time-out, the drop at
 * arrival), before r is freed. r is borrowed for the call. */
void cl__req_record(struct cl_world *w, const struct cl_req *r, int outcome);

/* The index of load stage of r in w->stages (clamped to CL_STAGES_MAX -
 * 1, with a note), made on first use: cl__stage_make() (cluster.c), after
 * an inline look for a stage already made (three looks a request). */
int cl__stage_make(struct cl_world *w, int stage);
static inline int cl__stage(struct cl_world *w, int stage)
{
    if (stage >= 0 && stage < w->nstages && w->stages[stage] != NULL)
        return stage;
    return cl__stage_make(w, stage);
}

/* Counts r's arrival in its stage (cluster.c, at arrival). */
void cl__stage_arrive(struct cl_world *w, const struct cl_req *r);

/* Sets out->stages: one row per stage index seen (0 .. the largest; a
 * stage with no request has a zero row, NAN statistics), owned by out. */
void cl__stages_results(const struct cl_world *w, struct cl_results *out);

/* Records one iteration's inter-token gap of gap_ns for n decoding
 * requests (weight n), of which measured came after warm-up, and by_stage
 * [0, nstages) of each stage index of w->stages. O(nstages). */
void cl__itl_add(struct cl_world *w, int64_t gap_ns, uint64_t measured,
                 const int64_t *by_stage, int nstages);
/* cl__itl_add() for n iterations in a row of the same decoders, gaps
 * gap_ns[0 .. n - 1] (negative ones taken as 0, in place): the same sums
 * in the same order, the histograms by runs of a bucket. O(n x nstages). */
void cl__itl_add_run(struct cl_world *w, int64_t *gap_ns, int n,
                     uint64_t measured, const int64_t *by_stage, int nstages);
/* Cancels r's pass through the API front end (struct cl_frontend) if it
 * is still there, before any engine has it: returns 1 then, else 0 (the
 * engine holds r). For a client that abandons r. */
int cl__frontend_cancel(struct cl_world *w, struct cl_req *r);

/* Sends the request read ahead now, as a client does (cluster.c): gives
 * it an id and the arrival time now, reads the next one ahead, and hands
 * it to the engine, or drops it when no replica could ever serve it. user:
 * the closed-loop user sending it, or -1. */
void cl__send_next(struct cl_world *w, int user);

/*
 * The benchmark client (client.c), between the source and the engine: it
 * sends the source's requests as a load generator would (docs/workloads.md,
 * "The client"). Open loop (the default): at their arrival times, each
 * load stage held until the stages before it have drained and shifted by
 * the wait; at most workload.client.max_concurrency in flight, the others
 * waiting in the client, first come first sent. Closed loop
 * (workload.client.users): each user sends, waits for the end of its
 * request, thinks, and sends the next; arrival times are ignored. Any
 * request may be abandoned at workload.client.timeout after its send. Every
 * request in flight is counted from its send to its end (completed, timed
 * out or dropped); O(1) per request plus O(log n) for a time-out's event.
 */
struct cl_client_rt;

/* Creates w->client from w->scn->workload.client, before the first
 * request is read; a closed loop schedules every user's first send at
 * t = 0 (all at once, as vLLM's and GuideLLM's concurrency modes do). */
void cl__client_open(struct cl_world *w);
/* Frees w->client; NULL is a no-op. */
void cl__client_fini(struct cl_world *w);
/* When to send q, just read ahead: its arrival time shifted by the stage
 * waits so far (at least now), or -1 when the client will send it itself
 * (a closed loop; a new stage held until the earlier ones have drained). */
int64_t cl__client_due(struct cl_world *w, const struct wl_request *q);
/* 1 when a request due now may be sent; 0 when max_concurrency are in
 * flight: the client sends it when one ends (it reschedules the arrival). */
int cl__client_gate(struct cl_world *w);
/* r has just been sent (before the next is read ahead): counts it in
 * flight and, when kept (handed to the engine, not dropped), starts its
 * time-out. */
void cl__client_sent(struct cl_world *w, struct cl_req *r, int keep);
/* r has ended (completed, timed out or dropped), before it is freed:
 * cancels its time-out and lets the client send what was waiting for it
 * (through events, never from inside the caller). */
void cl__client_ended(struct cl_world *w, struct cl_req *r);
/* The start of a load stage held for its predecessors (pure, for tests):
 * max(nominal_ns + shift_ns, drain_ns) + gap_ns, where nominal_ns is the
 * source's arrival of the stage's first request, shift_ns the delay of
 * the stage before it (0 for the first), drain_ns when the last earlier
 * request ended and gap_ns the pause after a drain (negative: 0). The
 * stage's delay is then the result minus nominal_ns. */
int64_t cl__client_stage_start(int64_t nominal_ns, int64_t shift_ns,
                               int64_t drain_ns, int64_t gap_ns);

/* Records v in h of kind (session.c). */
void cl__vhist_add(struct cl_vhist *h, int kind, double v);

/* The layout replicas of role (enum cl_role) use in pool; borrowed from
 * w. */
static inline const struct cl_layout_rt *cl__layout_of(const struct cl_world *w,
                                                       int pool, int role)
{
    return &w->pools[pool].lay[role];
}

/* The layout rep runs: its pool's for its role. Borrowed from w. */
static inline const struct cl_layout_rt *
cl__rep_layout(const struct cl_world *w, const struct cl_replica *rep)
{
    return cl__layout_of(w, rep->pool, rep->role);
}

/* GPUs of one replica of role in pool: the pool's own for CL_ROLE_BOTH
 * (pools[].deploy), the group's under disaggregation. */
static inline int cl__pool_gpr(const struct cl_world *w, int pool, int role)
{
    return role == CL_ROLE_BOTH ? w->pools[pool].gpr : w->role_gpus[role];
}

/* The first role the world's replicas take: CL_ROLE_PREFILL under
 * disaggregation, else CL_ROLE_BOTH; readers of a pool's figures that do
 * not depend on the layout (its GPU's calibration) take its layout. */
static inline int cl__role_first(const struct cl_world *w)
{
    return w->pd ? CL_ROLE_PREFILL : CL_ROLE_BOTH;
}

/* Replicas (replica.c). */
/* The role of the next replica requested: under disaggregation the
 * prefill group while it has fewer live replicas than planned, else the
 * decode group (so a replacement joins the group it replaces);
 * CL_ROLE_BOTH without. O(replicas). */
int cl__replica_next_role(const struct cl_world *w);
/* Requests a replica in pool. warm: serving at once (the cluster at t =
 * 0). failed_at_ns >= 0: a replacement for one that failed then (adds the
 * detection delay, loads from the recovery source). */
struct cl_replica *cl__replica_request(struct cl_world *w, int pool, int warm,
                                       int64_t failed_at_ns);
/* Starts rep's drain (a serving replica; no-op otherwise): it takes nothing
 * new and leaves as drain (enum cl_drain) says, which the engine reads from
 * rep->drain: finish what it runs, or move it away with its KV. */
void cl__replica_drain(struct cl_world *w, struct cl_replica *rep, int drain);
void cl__replica_cancel(struct cl_world *w, struct cl_replica *rep);
void cl__replica_fail(struct cl_world *w, struct cl_replica *rep);
void cl__replica_set_busy(struct cl_world *w, struct cl_replica *rep, int busy);
/* Gives rep notice (cause: enum cl_revoke_cause) to be gone by now +
 * notice_ns: a pending replica is cancelled at once, a serving one drains
 * (admits nothing more, finishes what it runs); whatever a draining one
 * still runs when the notice ends is handed back: its requests restart
 * elsewhere with their KV lost, as at a failure. A replica already under
 * notice keeps the earlier of the two ends (and returns 0). Counts the cost in
 * w->revoke[cause]. Returns the GPUs that leave (0 for a replica gone or under
 * notice). */
int cl__replica_revoke(struct cl_world *w, struct cl_replica *rep,
                       int64_t notice_ns, int cause);
/* Called by an engine when a draining replica has emptied. */
void cl__replica_drained(struct cl_world *w, struct cl_replica *rep);
/* rep's gauges as a live system scrapes them: the engine's, plus, for an
 * engine with a central queue, a serving replica's equal share of it as
 * waiting (the policy snapshot and session read-outs). */
void cl__replica_gauges(const struct cl_world *w, const struct cl_replica *rep,
                        struct cl_gauges *g);
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
/* The node replica rep runs on, when all its GPUs share one: replicas'
 * GPUs are laid out in slot order (each slot its replica's gpus), packed
 * onto nodes of hardware.gpus_per_node GPUs, as scripted node faults
 * count them. Returns -1 when its GPUs span nodes. O(slots). */
int cl__replica_node(const struct cl_world *w, const struct cl_replica *rep);
void cl__orch_start(struct cl_world *w);
void cl__orch_fini(struct cl_world *w);
/* GPUs of pool p free for a new replica: capacity less the owner's and
 * ours. */
int cl__pool_room(const struct cl_world *w, int p);
/* Asks at once for a replica of role (enum cl_role) and gpus GPUs to
 * replace one that is leaving (a reclaim or an interruption), in the
 * preferred pool with room; nothing for an external session or a static
 * cluster. */
void cl__orch_replace(struct cl_world *w, int role, int gpus);
/* The activator of a cluster that scales to zero (min_replicas 0): called
 * for each request as it arrives. With no replica serving it counts a cold
 * wait; with none serving or starting it asks at once for one replica, in
 * the preferred pool with room, without waiting for the policy. A no-op
 * for min_replicas >= 1, a static cluster or an external session. */
void cl__orch_arrive(struct cl_world *w);
/* Called by replica.c when the first replica starts serving: the cold
 * waits pending since the cluster had none end now. */
void cl__orch_served(struct cl_world *w);

/* Reclaims and spot interruptions (reclaim.c). */
/* Schedules every pool's reclaims, owner jobs and interruptions; a no-op
 * for a scenario with none. */
void cl__reclaim_start(struct cl_world *w);
/* Frees w->reclaim; a no-op when there is none. */
void cl__reclaim_fini(struct cl_world *w);
void cl__counters_init(struct cl_counters *c);

/* The LLM engine (llm.c, llm-plan.c): what its entry's ops and router.c
 * share. */
/* cl_replica_perf_init() with the layout keys of o (tp, ep,
 * redundant_experts, expert_imbalance, micro_batches, and max_num_seqs for
 * the CUDA-graph limit) in place of the scenario's top-level ones: a P/D
 * group's layout (cl_pd_layout_resolve()). o->tp must be set. */
int cl__replica_perf_layout(const struct cl_scenario *s,
                            const struct arch_spec *a, const struct gpu_spec *g,
                            const struct cl_pd_layout *o, int pp,
                            int weight_dtype, struct perf_replica *r, char *why,
                            size_t whylen);
/* The model's and the GPU kinds' names of s checked against the catalogs,
 * each unknown one a diagnostic at its key (model: {hf_config} and
 * hardware.gpus are skipped: they are resolved only once the scenario
 * loaded). For cl_scenario_check_names() (llm-plan.c). */
void cl__llm_check_names(const struct cl_scenario *s, struct sim_diag *d);
/* The plan, pool_init and notes ops (llm-plan.c). */
int cl__llm_plan(const struct cl_scenario *s, struct cl_plan *plan,
                 struct sim_diag *d);
int cl__llm_pool_init(struct cl_world *w, int i, const struct cl_plan *plan,
                      struct sim_diag *d);
void cl__llm_notes(const struct cl_scenario *s, struct cl_results *out);
/* The longest request, prompt plus output tokens, the engine accepts:
 * server.max_model_len when set, else the model's max_positions (vLLM's
 * max_model_len defaults to max_position_embeddings); 0 for no limit. */
int64_t cl__llm_max_model_len(const struct cl_scenario *s,
                              const struct arch_spec *a);
/* The gauges op: rep's gauges (idle before it serves). */
void cl__llm_gauges(const struct cl_world *w, const struct cl_replica *rep,
                    struct cl_gauges *g);
/* rep's outstanding requests, running + waiting, as the gauges count
 * them (0 before it serves); what least-outstanding routing reads. */
int64_t cl__llm_outstanding(const struct cl_replica *rep);
/* Marks the handlers of arrivals (a request sent, its front end done) as
 * running without w's loop hook (sim_loop_hook_quiet()): for an engine
 * whose hook brings up to date only what these do not read. */
void cl__arrivals_quiet(struct cl_world *w);
/* Of w's serving replicas whose KV cache holds need tokens, the first in
 * slot order with the fewest outstanding requests; NULL if none. The
 * least-outstanding rule of a cluster that is not mixed (all speeds
 * equal), in one tight pass: the hottest loop of arrival handling. */
struct cl_replica *cl__llm_least_outstanding(const struct cl_world *w,
                                             int64_t need);
/* Tokens request r holds in the KV cache at its peak: prompt + output - 1
 * (the last token's KV is never written), at least its prompt. */
int64_t cl__llm_kv_peak_tokens(const struct cl_req *r);
/* Tokens of r's prompt whose blocks are in rep's GPU prefix cache now
 * (the longest cached chain of its block hashes, in tokens, at most its
 * prompt); 0 without hashes, with prefix caching off, or before rep
 * serves. O(blocks of r). For prefix-affinity routing. */
int64_t cl__llm_prefix_cached_tokens(const struct cl_replica *rep,
                                     const struct cl_req *r);

#endif /* CL_CLUSTER_INT_H */
