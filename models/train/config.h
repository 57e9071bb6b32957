/*
 * The scenario's `training:` section (issue #10): the job's model, GPUs,
 * pool, layout knobs, checkpointing, failures and duration, the rows
 * (config.c) the scenario loader fills it through, which are the one
 * source of each key's type, unit, range, default and help, and the
 * section's cross-field checks (train_config_check()). Kept apart from
 * models/train/train.h so that models/cluster/config.h can hold the section
 * without the layout model's headers; it needs no cluster header: what the
 * checks need of the rest of the scenario comes as a struct
 * train_config_scope. Strings are owned and freed by sim_param_fini() over
 * the rows. Times are int64 ns, bandwidths bytes/s. Read-only rows;
 * single-threaded.
 */
#ifndef TRAIN_CONFIG_H
#define TRAIN_CONFIG_H

#include <stdint.h>

#include "models/arch/dtype.h"
#include "base/param.h"

struct sim_yaml; /* base/yaml-rows.h: the walker the checks read */

/* Where a checkpoint goes. */
enum train_ckpt_target {
    TRAIN_CKPT_STORAGE,     /* shared storage at an aggregate bandwidth */
    TRAIN_CKPT_PEER_MEMORY, /* a peer host's DRAM over the scale-out link */
};

/* The scenario's training.checkpoint section. */
struct train_ckpt_config {
    int64_t every_steps;          /* K; 0 = from interval_ns, else Young */
    int64_t interval_ns;          /* 0 = every_steps or Young */
    int target;                   /* enum train_ckpt_target */
    double bandwidth_bytes_per_s; /* storage: aggregate; peer_memory: per
                                     GPU; 0 = the default (see
                                     train_ckpt_bandwidth()) */
    int async;                    /* 1: block only for the snapshot to host
                                     memory; durable after the write */
};

/* How the job recovers from a GPU failure (docs/training.md). */
enum train_recovery {
    TRAIN_RECOVER_RESTART, /* the whole job reloads the last durable
                              checkpoint */
    TRAIN_RECOVER_SHRINK,  /* one fewer data-parallel replica, ZeRO
                              shards from peers' in-memory copies */
    TRAIN_RECOVER_SPARE,   /* a hot spare node takes the failed one's
                              place, its state from peers */
};

/* The scenario's training.in_memory_checkpoint section (spare, shrink). */
struct train_memckpt_config {
    int64_t every_steps; /* K_mem; 0 = from interval_ns, else 1 */
    int64_t interval_ns; /* rounded to whole steps; 0 = every_steps */
    double overlap;      /* fraction of the copy hidden behind compute */
};

/* The scenario's training: section. gpus 0 means there is none. */
struct train_config {
    char *model;   /* catalog name; NULL = the scenario's model */
    char *gpu;     /* GPU kind; NULL = hardware.gpu */
    char *pool;    /* pool the job runs in (elastic: a borrowable one) */
    int gpus;      /* GPUs of the job at full size */
    char *layout;  /* "tp=8,pp=4[,dp=..][,ep=..][,v=..]"; NULL = best */
    int zero;      /* 0..3, or -1: 1 when dp > 1, else 0 */
    int recompute; /* enum layout_recompute */
    int dtype;     /* enum cl_dtype: bf16 or fp8 */
    int64_t seq_tokens;
    int64_t global_batch_seqs;
    int micro_batch;   /* sequences per micro-batch */
    double dp_overlap; /* struct layout_setup's overlaps */
    double tp_overlap;
    double ep_overlap;
    struct train_ckpt_config checkpoint;
    double gpu_mtbf_s;      /* per GPU; 0 = no failures */
    int64_t restart_ns;     /* reschedule + rebuild communicators */
    int64_t reconfigure_ns; /* a resize: communicators + reshard */
    int64_t duration_ns;    /* simulated job time */
    int recovery;           /* enum train_recovery */
    int fallback;           /* spare with none left: SHRINK or RESTART */
    int spares;             /* hot spare nodes (recovery spare) */
    int64_t detection_ns;   /* failure to recovery start (spare, shrink;
                               reported as part of restart) */
    int64_t repair_ns;      /* a failed node back (shrink, spare); 0 =
                               never */
    struct train_memckpt_config in_memory_checkpoint;
    int recovery_given; /* training.recovery was given: report the
                           recovery split (set by
                           train_config_check()) */
};

/* Rows of `training:`, filling struct train_config (models/train/config.c). */
extern const struct sim_param train_config_rows[];

/* What train_config_check() needs of the scenario around `training:`,
 * which this folder cannot include: the names of its pools and its GPUs
 * (the catalog's and the scenario's own definitions). The cluster's
 * cl_train_scope() fills it; ctx is passed to each function. */
struct train_config_scope {
    const void *ctx;
    int npools;
    /* The name of pool i (0 <= i < npools), or NULL; borrowed. */
    const char *(*pool_name)(const void *ctx, int i);
    /* Is name a GPU the scenario knows? */
    int (*has_gpu)(const void *ctx, const char *name);
    /* The names of the GPUs it knows, for messages; the caller frees. */
    char *(*gpu_names)(const void *ctx);
};

/* The checks of `training:` that span several keys or name the rest of
 * the scenario, run after the walk that filled t through
 * train_config_rows and after the scenario's GPUs are resolved, with the
 * walker y (its seen list says what was given; errors go to it at the
 * keys' positions): a catalog model, a known pool and GPU (sc), a layout
 * that parses for its gpus, and at most one of checkpoint.every_steps and
 * interval (the same for in_memory_checkpoint), spares only with recovery
 * spare. Sets t->recovery_given. Does nothing when the section was not
 * given. */
void train_config_check(struct sim_yaml *y, struct train_config *t,
                        const struct train_config_scope *sc);

#endif /* TRAIN_CONFIG_H */
