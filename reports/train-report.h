/*
 * The training reports: the text and JSON of dsec train (one layout's
 * optimizer step with its breakdown, or the best layouts ranked, and with
 * --simulate the job over days with checkpoints and failures) and the
 * Training section that dsec run adds for a scenario's training: job.
 * The commands compute (models/layout/, models/train/); these functions
 * only print what they are given, which stays the caller's. Text goes to
 * the FILE given; JSON comes back as a new json-c object the caller
 * releases with json_object_put(). Numbers in the JSON have json-c's 17
 * significant digits (reports/fmt.h, RPT_JSON_FULL). Single-threaded.
 */
#ifndef RPT_TRAIN_REPORT_H
#define RPT_TRAIN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "models/layout/layout.h"
#include "models/cluster/training.h"
#include "models/train/train.h"

struct json_object;

/* One checkpoint interval of a --checkpoint-sweep and its simulation. */
struct rpt_train_k {
    int64_t k; /* steps between checkpoints */
    double goodput_tokens_per_s;
    double ideal_tokens_per_s;
    int64_t failures;
    int64_t checkpoints;
};

/* dsec train --simulate: the job and what its simulation gave. */
struct rpt_train_sim {
    struct train_job job;   /* ckpt_every_steps: the one run's K */
    double ckpt_bytes;      /* one checkpoint (14 B per parameter) */
    int ckpt_target;        /* enum train_ckpt_target */
    int async;              /* --async: the write goes on in the background */
    double gpu_mtbf_h;      /* per GPU, hours (--mtbf) */
    double job_mtbf_s;      /* the job's */
    double young_s;         /* Young's interval */
    double daly_s;          /* Daly's interval */
    uint64_t seed;          /* of the failure stream */
    int ok;                 /* 0: the job could not be simulated; what
                               follows is as far as it got */
    int sweep;              /* --checkpoint-sweep: ks, else res */
    struct rpt_train_k *ks; /* the intervals simulated, nks of them */
    int nks;
    int64_t best_k;              /* the sweep's best goodput */
    struct train_job_result res; /* the one run */
};

/* What dsec train computed. Everything is borrowed. */
struct rpt_train {
    const struct layout_setup *setup;
    /* The layouts ranked, best first (no --layout), or NULL for one. */
    const struct layout_result *ranked;
    int nranked;
    int top; /* ranked layouts shown (--top) */
    /* The layout shown in full: --layout's, or ranked[0]. */
    const struct layout_result *step;
    const struct rpt_train_sim *sim; /* --simulate, or NULL */
};

/* Prints dsec train's text to fp: the cluster and batch, the ranked table
 * (when ranking), the step of the layout shown with its breakdown, MFU,
 * memory and traffic (unless no ranked layout fits), then the checkpoint
 * optimum and the simulation or the sweep. */
void rpt_train_print(FILE *fp, const struct rpt_train *t);

/* dsec train's JSON object, with the same content as rpt_train_print(). */
struct json_object *rpt_train_json(const struct rpt_train *t);

/* Prints dsec run's Training section of a scenario's training report r
 * (models/cluster/training.h) to fp. */
void rpt_train_report_print(FILE *fp, const struct cl_training_report *r);

/* dsec run's "training" object of report r. */
struct json_object *rpt_train_report_json(const struct cl_training_report *r);

#endif /* RPT_TRAIN_REPORT_H */
