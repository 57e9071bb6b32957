/*
 * A scenario's training job (its `training:` section) run after the
 * serving part: the step model of models/layout for the job's layout (or
 * the best one), the checkpoint cost and Young/Daly interval, and the job
 * simulation of models/train/train.h. When the job's pool is borrowable
 * and serving held GPUs of it (results->pool_gpus_mean), the job gets the
 * rest in each metrics interval: a one-way coupling in which serving has
 * priority and never waits for training. The serving part is then run a
 * second time without that pool, to measure the SLO attainment the
 * borrowing bought. Single-threaded; deterministic for a scenario and
 * seed.
 */
#ifndef CL_TRAINING_H
#define CL_TRAINING_H

#include <stddef.h>
#include <stdint.h>

#include "models/layout/layout.h"
#include "models/train/train.h"
#include "base/diag.h"

/* The serving side, used by pointer only. */
struct cl_results;
struct cl_run_opts;
struct cl_scenario;

/* How the checkpoint interval was chosen. */
enum cl_train_k_source {
    CL_TRAIN_K_STEPS,    /* checkpoint.every_steps */
    CL_TRAIN_K_INTERVAL, /* checkpoint.interval, rounded to steps */
    CL_TRAIN_K_YOUNG,    /* Young's optimum */
    CL_TRAIN_K_NONE,     /* no failures and nothing given: none */
};

/* The training part of a scenario's results. */
struct cl_training_report {
    const struct arch_spec *arch; /* borrowed, static catalog entry */
    const struct gpu_spec *gpu;   /* borrowed from the scenario */
    const char *pool;             /* borrowed from the scenario, or NULL */
    struct layout_setup setup;
    struct layout_result step;
    struct train_job job;
    int k_source; /* enum cl_train_k_source */
    double ckpt_bytes;
    double job_mtbf_s;
    double young_s, daly_s;
    struct train_job_result res;
    int recovery_report; /* training.recovery was given: the text and JSON
                            show the recovery split */
    /* Elastic (the pool is borrowable and serving used it): */
    int elastic;
    int pool_capacity;
    double price_usd_per_gpu_hour;
    double lent_gpu_hours; /* serving's GPU-hours in the pool */
    double slo_with;       /* serving SLO attainment, borrowing */
    double slo_without;    /* the same serving without the pool; NAN
                              when not run */
    double p99_ttft_with_ms, p99_ttft_without_ms;
    double *serving_gpus; /* per interval, serving's mean GPUs in the pool
                             (owned) */
    double *avail_gpus;   /* per interval, left to the job (owned) */
    size_t nseries;
    double interval_s;
};

/*
 * Runs s->training (s->training.gpus > 0) after serving's results
 * (may be NULL: no coupling). opts is what the serving run used (for the
 * second run without the pool). Fills out (zeroed first). Returns 0, or
 * SIM_EINVAL with an error in d (the layout does not fit, the model or GPU
 * is unknown, the job is malformed); out is then freed.
 */
int cl_training_run(const struct cl_scenario *s, const struct cl_run_opts *opts,
                    const struct cl_results *serving,
                    struct cl_training_report *out, struct sim_diag *d);

/* Frees what r owns and zeroes it. NULL is a no-op. */
void cl_training_report_fini(struct cl_training_report *r);

#endif /* CL_TRAINING_H */
