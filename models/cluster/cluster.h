/*
 * The cluster model: builds a simulation from a loaded scenario (workload
 * source, router, replicas of an abstract server or of an LLM serving
 * engine), runs it on its own sim_loop and fills a struct cl_results. Each
 * call is independent (no shared state), so several can run in one process.
 * Single-threaded.
 */
#ifndef CL_CLUSTER_H
#define CL_CLUSTER_H

#include <stdint.h>

#include "models/cluster/config.h"
#include "models/cluster/results.h"
#include "sim/diag.h"

/* Called now and then during a run with the simulated time reached (s) and
 * the requests completed so far, so that a terminal can show progress. The
 * callback may read the wall clock; the model never does. */
typedef void (*cl_progress_fn)(void *ctx, double sim_s, uint64_t completed,
                               uint64_t expected);

struct cl_run_opts {
    const char *base_dir;    /* directory that relative trace paths use */
    cl_progress_fn progress; /* may be NULL */
    void *progress_ctx;
};

/* The resolved deployment of an LLM scenario, for messages and reports. */
struct cl_plan {
    int replicas; /* at t = 0 */
    int gpus_per_replica;
    int tp;
    double price_usd_per_gpu_hour; /* of hardware.gpu */
    int elastic;                   /* min_gpus/max_gpus with a policy */
    int min_replicas;
    int max_replicas;
    int initial_replicas;
    const char *policy; /* elastic: the policy's name (borrowed) */
};

struct arch_spec;
struct gpu_spec;
struct perf_replica;

/* Fills r with the step-time constants of one replica of a on g laid out
 * tp x pp with expert parallelism ep and weights in weight_dtype (enum
 * cl_dtype), priced exactly as the simulation of s prices its replicas:
 * s's calibration profile (or the built-in one) for g, then s's
 * server.efficiency_* and iteration_overhead where given, s's kv_dtype,
 * gpu_memory_utilization and gpus_per_node. pp, ep < 1 mean 1. Returns
 * perf_replica_init()'s code with why filled on failure. */
int cl_replica_perf_init(const struct cl_scenario *s, const struct arch_spec *a,
                         const struct gpu_spec *g, int tp, int pp, int ep,
                         int weight_dtype, struct perf_replica *r, char *why,
                         size_t whylen);

/* Checks what needs the catalogs: the model and GPU names, the replica's
 * feasibility (weights and KV cache in HBM), the GPU counts. Adds a
 * diagnostic at the offending key for each problem and returns
 * SIM_EINVAL/SIM_EINFEASIBLE, or 0 with *plan filled (plan may be NULL). */
int cl_scenario_check(const struct cl_scenario *s, struct cl_plan *plan,
                      struct sim_diag *d);

/* Runs the scenario with seed s->seed and fills *out (zeroed first; caller
 * frees with cl_results_fini()). wall_s is left 0 for the caller to set.
 * Returns 0, or a negative SIM_E* code with diagnostics (bad trace row,
 * infeasible configuration); *out then holds what was simulated so far. */
int cl_run(const struct cl_scenario *s, const struct cl_run_opts *opts,
           struct cl_results *out, struct sim_diag *d);

#endif /* CL_CLUSTER_H */
