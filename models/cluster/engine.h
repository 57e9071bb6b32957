/*
 * The server-engine interface, version 1, private to models/cluster/: how
 * the cluster (cluster.c, replica.c, orchestrator.c, session.c,
 * replica-series.c) drives a kind of replica without knowing which. An
 * engine is one const struct cl_engine at the end of its file (abstract.c,
 * llm.c), listed name-sorted in engine-table.c; the world takes the entry
 * of server.kind once, at open, and calls nothing of an engine by name.
 *
 * An engine owns two opaque states: one per world (w->engine_state, from
 * world_init() to world_fini()) and one per replica (rep->engine_state,
 * from ready() until fail() or replica_free(); NULL before). Every other
 * field of the world, the replicas and the requests keeps the owner that
 * cluster-int.h names. The engines' settings are the server section's rows
 * (config.h), so an entry has no parameter rows of its own. Single-threaded.
 */
#ifndef CL_ENGINE_H
#define CL_ENGINE_H

#include <stdint.h>

#define CL_ENGINE_API_VERSION 1

struct cl_scenario;
struct cl_plan;
struct cl_results;
struct cl_world;
struct cl_replica;
struct cl_req;
struct wl_request;
struct sim_diag;

/* A replica's own gauges, as vLLM exports them (docs/sources.md §6.1). */
struct cl_gauges {
    double running; /* vllm:num_requests_running */
    /* vllm:num_requests_waiting: queued at the replica itself (a central
     * queue is the cluster's, w->queue) */
    double waiting;
    double kv_usage; /* vllm:kv_cache_usage_perc, 0..1; NAN: no KV cache */
};

/* What the cluster calls on an engine. All ops but pool_init and notes are
 * required; none may fail except plan, world_init and pool_init, which run
 * before the first event. */
struct cl_engine_ops {
    int version; /* CL_ENGINE_API_VERSION */
    /* Checks what the engine needs of s (catalog names, feasibility) and
     * sizes its replica: fills plan's tp, tp_chosen, gpus_per_replica and
     * price_usd_per_gpu_hour. There is no world yet (cl_scenario_check()).
     * Returns 0, or SIM_EINVAL / SIM_EINFEASIBLE with a diagnostic at each
     * offending key. */
    int (*plan)(const struct cl_scenario *s, struct cl_plan *plan,
                struct sim_diag *d);
    /* Creates w->engine_state from w->scn, before the pools exist. Returns
     * 0, or SIM_EINVAL with a diagnostic (the state, if made, is freed by
     * world_fini()). */
    int (*world_init)(struct cl_world *w, struct sim_diag *d);
    /* Builds the replica model of pool i (w->pools[i]: its perf and KV
     * figures) and may replace its price, which holds the plan's. Returns
     * 0 or a negative SIM_E* code. NULL: nothing to build. */
    int (*pool_init)(struct cl_world *w, int i, const struct cl_plan *plan,
                     struct sim_diag *d);
    /* Adds the engine's notes on the scenario to out. NULL: none. */
    void (*notes)(const struct cl_scenario *s, struct cl_results *out);
    /* Sees a new request r before it is routed; q is its source record,
     * borrowed for the call (block hashes to copy). Returns 1 to hand r to
     * arrive(), 0 when no replica could ever serve it (it is dropped). */
    int (*accept)(struct cl_world *w, struct cl_req *r,
                  const struct wl_request *q);
    /* Takes request r: new, or back from a replica that failed. */
    void (*arrive)(struct cl_world *w, struct cl_req *r);
    /* The client gave up on r (its time-out; vLLM aborts a request whose
     * client disconnects): takes r out of wherever it is (a queue, a
     * batch, a KV transfer), frees what it holds (a slot, its KV blocks;
     * prefix-cache entries stay cached), cancels its events and books it
     * out of the waiting or running counts, without completing it. A
     * request in an iteration in flight leaves the batch from the next
     * iteration on (the one in flight still costs what it cost). The
     * caller records and frees r. O(log n). */
    void (*abandon)(struct cl_world *w, struct cl_req *r);
    /* rep has just become serving: creates its state, takes waiting work. */
    void (*ready)(struct cl_world *w, struct cl_replica *rep);
    /* rep is draining: it takes nothing new, and calls
     * cl__replica_drained() once it is empty (now, if it is). */
    void (*drain)(struct cl_world *w, struct cl_replica *rep);
    /* rep, serving or draining, has failed (it is gone): its requests go
     * back through arrive() or the cluster queue; frees its state. */
    void (*fail)(struct cl_world *w, struct cl_replica *rep);
    /* Frees rep's state, if any, before its slot is reused or freed. */
    void (*replica_free)(struct cl_world *w, struct cl_replica *rep);
    /* Fills g with rep's gauges now, in any state (a replica not serving
     * yet reads idle). Called after every change, so keep it O(1). */
    void (*gauges)(const struct cl_world *w, const struct cl_replica *rep,
                   struct cl_gauges *g);
    /* Fills the figures of out that only this engine has, at the end of
     * the run (end_ns; out's replicas_mean is set). Those it has not stay
     * as cl__world_close() preset them (0, or NAN for ratios). */
    void (*results)(const struct cl_world *w, int64_t end_ns,
                    struct cl_results *out);
    /* Frees w->engine_state; NULL is a no-op. */
    void (*world_fini)(struct cl_world *w);
};

/* One engine: a registry entry (engine-table.c). */
struct cl_engine {
    const char *name;    /* as server.kind names it */
    const char *summary; /* one line: the model and its source */
    int kind;            /* enum cl_server_kind */
    /* 1: output tokens come one at a time (TPOT is measured); 0: the
     * whole response comes at once. */
    int streams_tokens;
    /* 1: every replica serves from the cluster queue (w->queue), so each
     * serving one reports an equal share of it as waiting; 0: the queue
     * only holds requests no replica could take yet, which count in the
     * cluster's waiting but in no replica's. */
    int central_queue;
    const struct cl_engine_ops *ops;
};

/* The registry: NULL-terminated, name-sorted (engine-table.c). */
extern const struct cl_engine *const cl__engine_table[];

/* The entry for kind (enum cl_server_kind), or NULL. */
const struct cl_engine *cl__engine_for(int kind);

/* The entries' names, name-sorted and separated by ", ", for messages.
 * Caller frees with free(). */
char *cl__engine_names(void);

#endif /* CL_ENGINE_H */
