/*
 * Internals shared by the files of models/cluster/: the request record, the
 * world of one run, and the hooks by which a replica engine (abstract.c,
 * llm.c) hands finished requests back to the cluster. Not installed.
 */
#ifndef CL_CLUSTER_INT_H
#define CL_CLUSTER_INT_H

#include <stdint.h>

#include "models/cluster/cluster.h"
#include "models/perf/roofline.h"
#include "models/workload/dist.h"
#include "models/workload/source.h"
#include "sim/heap.h"
#include "sim/loop.h"
#include "sim/stats.h"

/* One request. Allocated from the world's free list; lives from arrival to
 * completion or drop. */
struct cl_req {
    struct sim_event ev; /* abstract: completion; llm: slot in done heap */
    struct cl_req *next; /* FIFO link or free-list link */
    uint64_t id;         /* arrival index, 0-based */
    int64_t arrival_ns;
    int64_t start_ns;       /* first admitted to service */
    int64_t first_token_ns; /* -1 until the first output token */
    int64_t prompt_tokens;
    int64_t output_tokens;
    int64_t prefilled;  /* llm: prompt tokens processed so far */
    int64_t chunk;      /* llm: prompt tokens in the in-flight iteration */
    int64_t service_ns; /* abstract: drawn at arrival (common random nums) */
};

struct cl_fifo {
    struct cl_req *head;
    struct cl_req *tail;
    uint64_t n;
};

void cl__fifo_push(struct cl_fifo *q, struct cl_req *r);
struct cl_req *cl__fifo_pop(struct cl_fifo *q);

/* A latency metric: batch means for the mean and its CI, a histogram for
 * quantiles over the run, and one for the current series interval. */
struct cl_metric {
    struct sim_bmeans bm;
    struct sim_hist all;
    struct sim_hist interval;
};

struct cl_llm_replica;

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
    uint64_t live; /* requests allocated and not yet freed */

    int replicas;
    int gpus_per_replica;
    double price_usd_per_gpu_hour;

    /* Abstract servers: one central FCFS queue, replicas x concurrency
     * slots, which is what M/M/c means. */
    struct cl_fifo queue;
    struct wl_dist service; /* seconds, drawn at arrival */
    int64_t slots_free;
    int64_t slots_total;

    /* LLM replicas: join-shortest-queue routing at arrival. */
    struct cl_llm_replica *llm;
    struct perf_replica perf;

    /* Counters and statistics. */
    uint64_t arrived, completed, dropped, measured, slo_met;
    uint64_t input_tokens, output_tokens;
    struct cl_metric ttft, tpot, e2e, queue_ms;
    struct sim_tavg waiting; /* requests queued, not yet admitted */
    struct sim_tavg running; /* requests admitted, not complete */
    struct sim_tavg replicas_up;
    struct sim_tavg busy; /* abstract: busy slots */
    int64_t n_waiting;
    int64_t n_running;
    int64_t last_event_ns;

    /* Time series. */
    struct sim_event interval_ev;
    int64_t interval_start_ns;
    uint64_t iv_arrivals, iv_completions, iv_output_tokens;
    struct sim_tavg iv_waiting, iv_running, iv_replicas;
    struct cl_results *res;
    size_t series_cap;

    uint64_t progress_every;
    const struct cl_run_opts *opts;
};

/* Returns a zeroed request from the free list. */
struct cl_req *cl__req_new(struct cl_world *w);

/* Returns r to the free list. */
void cl__req_free(struct cl_world *w, struct cl_req *r);

/* Books a change in the number waiting or running (time-weighted). */
void cl__set_waiting(struct cl_world *w, int64_t delta);
void cl__set_running(struct cl_world *w, int64_t delta);

/* Records a finished request at the current time and frees it. */
void cl__complete(struct cl_world *w, struct cl_req *r);

/* Abstract engine (abstract.c). */
void cl__abstract_init(struct cl_world *w);
void cl__abstract_arrive(struct cl_world *w, struct cl_req *r);

/* LLM engine (llm.c). */
void cl__llm_init(struct cl_world *w);
void cl__llm_fini(struct cl_world *w);
void cl__llm_arrive(struct cl_world *w, struct cl_req *r);

#endif /* CL_CLUSTER_INT_H */
