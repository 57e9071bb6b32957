/*
 * The worker threads of a sweep. A pool of N POSIX threads takes jobs (one
 * scenario text each) from a FIFO queue and runs each as `dsec run` does:
 * load the text, check it, simulate it on the thread's own sim_loop; each
 * simulation is single-threaded and shares nothing mutable with the
 * others. Finished jobs wait in a second FIFO until the one thread that
 * owns the pool (the sweep's single database writer) takes them. The owner
 * submits, takes, cancels and frees; the workers touch only the pool's
 * queues, under its mutex. Workers block every signal, so SIGINT reaches
 * the owner. The queue is unbounded: the owner keeps it short.
 */
#ifndef SWP_POOL_H
#define SWP_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "models/cluster/predict.h"
#include "models/cluster/results.h"

struct swp_pool;

/* A finished job. */
struct swp_done {
    long id;       /* as submitted */
    int rc;        /* 0, or the SIM_E* code of the load, check or run */
    char *message; /* rc != 0: the diagnostics, one per line; else NULL */
    struct cl_results res; /* rc == 0: the results, wall_s and
                              events_per_s set */
    double wall_s;         /* load, check and simulation */
    int64_t started_unix;  /* wall-clock start, seconds since 1970 */
    int has_pi;            /* the job asked for draws and they ran */
    struct cl_pi pi;       /* has_pi: the prediction intervals */
};

/* Runs one scenario text as `dsec run` does: scn_scenario_open() of the
 * text under the name file (used in messages and as the default scenario
 * name), then cl_run() with relative paths taken from
 * base_dir. Fills *out (zeroed first; free it with swp_done_fini()).
 * Reentrant: touches nothing but its arguments. */
void swp_run_text(long id, const char *file, const char *text,
                  const char *base_dir, struct swp_done *out);

/* As swp_run_text(), then, when draws > 0, cl_predict() with that many
 * draws of the scenario's calibration uncertainty into out->pi (a failure
 * of the draws fails the job). */
void swp_run_text_draws(long id, const char *file, const char *text,
                        const char *base_dir, int draws, struct swp_done *out);

/* Frees what d owns and zeroes it. NULL is a no-op. */
void swp_done_fini(struct swp_done *d);

/* Starts nthreads (>= 1) worker threads. The caller frees the pool with
 * swp_pool_free(). Failing to start a thread is fatal (sim_fatal). */
struct swp_pool *swp_pool_new(int nthreads);

/* Queues a job. file, text and base_dir are borrowed until the job's
 * result has been taken or the job cancelled. */
void swp_pool_submit(struct swp_pool *p, long id, const char *file,
                     const char *text, const char *base_dir);

/* As swp_pool_submit(), the job run by swp_run_text_draws(). */
void swp_pool_submit_draws(struct swp_pool *p, long id, const char *file,
                           const char *text, const char *base_dir, int draws);

/* Takes the oldest finished job into *out (which the caller frees with
 * swp_done_fini()), waiting at most timeout_ms milliseconds (0: do not
 * wait). Returns 1 if a job was taken, 0 if none finished in time. */
int swp_pool_take(struct swp_pool *p, int timeout_ms, struct swp_done *out);

/* Jobs submitted and not yet taken (queued, running or finished). */
size_t swp_pool_pending(struct swp_pool *p);

/* Jobs running now. */
size_t swp_pool_running(struct swp_pool *p);

/* Drops the queued jobs that no thread has started, and returns how many.
 * Their ids are stored in ids[0..n-1] when ids is not NULL (room for
 * swp_pool_pending() ids). */
size_t swp_pool_cancel(struct swp_pool *p, long *ids);

/* Cancels the queued jobs, waits for the running ones, joins the threads
 * and frees the pool with every result not taken. NULL is a no-op. A pool
 * whose threads are still simulating when the process must exit (a second
 * SIGINT) is simply not freed: exit() ends the threads, and they own
 * nothing that outlives the process. */
void swp_pool_free(struct swp_pool *p);

#endif /* SWP_POOL_H */
