/*
 * Training jobs on the elastic cluster (issue #10). Three parts:
 *
 * - The scenario's `training:` section (struct train_config and its rows,
 *   models/train/config.h), read by the scenario loader through those
 *   rows; strings are owned and freed by sim_param_fini() over them.
 * - Checkpoint arithmetic: the bytes a checkpoint holds, the time to write
 *   and read it (storage or peer host memory), and Young's and Daly's
 *   optimum intervals (docs/sources.md §12.5).
 * - A deterministic job simulation (train_job_run()): one optimizer step
 *   time from models/layout, checkpoints every K steps, GPU failures drawn
 *   from an exponential MTBF (its own random stream of a sim_loop seeded by
 *   the caller), restarts from the last durable checkpoint, and elastic
 *   resizing by whole data-parallel replicas when a schedule of available
 *   GPUs changes. Events are per checkpoint segment, failure, restart and
 *   resize, never per token. Times are int64 ns inside, seconds in the
 *   structs below. Pure C, single-threaded, no wall clock.
 */
#ifndef TRAIN_TRAIN_H
#define TRAIN_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "models/layout/layout.h"
#include "models/net/net.h"
#include "models/train/config.h"

/*
 * Parses a layout string "tp=8,pp=4,dp=32,ep=8,v=2" (keys tp, pp, dp, ep,
 * v in any order, each at most once, positive integers; tp, pp, ep and v
 * default to 1 and dp to gpus / (tp pp)) into l, keeping l's other fields.
 * Returns 0, or SIM_EINVAL with err (len bytes) naming the bad part: an
 * unknown key (listing the valid ones), a repeated key, a value that is not
 * a positive integer, or dp tp pp != gpus. l is unchanged on failure.
 */
int train_layout_parse(const char *text, int gpus, struct layout *l, char *err,
                       size_t len);

/* What a training layout search fixes: each field, when set, replaces the
 * search over it. */
struct train_knobs {
    int zero;        /* 0..3, or -1: every stage (1..3 only with dp > 1) */
    int recompute;   /* enum layout_recompute (AUTO: the least that fits) */
    int micro_batch; /* sequences per micro-batch, >= 1 */
    int chunks;      /* interleaved model chunks v (pp > 1 only), >= 1 */
};

/*
 * Evaluates layout l (its dp, tp, pp and ep) on setup s under knobs k:
 * micro-batches of k->micro_batch sequences, k's recomputation, chunks
 * (1 when pp is 1) and ZeRO stage (-1: 1 when dp > 1, else 0), sequence
 * parallelism on whenever tp > 1. A global batch that does not split into
 * micro-batches is a LAYOUT_NO_BATCH verdict. Returns layout_eval()'s
 * code.
 */
int train_eval(const struct layout_setup *s, const struct train_knobs *k,
               const struct layout *l, struct layout_result *out);

/*
 * Every (dp, tp, pp, ep) layout of s (ep as layout_enumerate() chooses
 * it) under k, each ZeRO stage when k->zero is -1, sorted as
 * layout_enumerate() sorts: feasible first by tokens/s. *out (caller
 * frees with free()) gets *n results. Returns 0 or SIM_EINVAL.
 */
int train_enumerate(const struct layout_setup *s, const struct train_knobs *k,
                    struct layout_result **out, int *n);

/* Bytes of one checkpoint of params parameters (docs/sources.md §12.3): the
 * bf16 weights (2) and the FP32 master, momentum and variance (12), 14 bytes a
 * parameter; gradients are not saved. */
double train_ckpt_bytes(double params);

/* The default checkpoint bandwidth: storage, an aggregate 100 GB/s per
 * 1,024 GPUs of the job (an assumption, scaled from docs/sources.md §12.5's
 * Tectonic 2 TB/s sustained for 16,384 GPUs: 125 GB/s per 1,024); peer
 * memory, link_bytes_per_s per GPU (the scale-out NIC). */
double train_ckpt_bandwidth(int target, int gpus, double link_bytes_per_s);

/* Seconds to write (or read) bytes: storage bytes / bandwidth; peer memory
 * bytes / gpus / bandwidth (every GPU sends its shard at once). */
double train_ckpt_seconds(int target, double bytes, int gpus,
                          double bandwidth_bytes_per_s);

/* Young's optimum checkpoint interval sqrt(2 delta M) in seconds
 * (docs/sources.md §12.5), delta the checkpoint cost and M the job's MTBF, both
 * seconds. Returns 0 when either is not positive. */
double train_young_s(double delta_s, double mtbf_s);

/* Daly's higher-order optimum (docs/sources.md §12.5): sqrt(2 delta M) [1 +
 * (1/3) sqrt(delta / (2M)) + (1/9) (delta / (2M))] - delta for delta <
 * 2M, else M. Returns 0 when either is not positive. */
double train_daly_s(double delta_s, double mtbf_s);

/* A job to simulate. Every time is in seconds. */
struct train_job {
    double step_s;            /* one optimizer step at full size, > 0 */
    double tokens_per_step;   /* at full size, > 0 */
    int dp;                   /* data-parallel replicas at full size, >= 1 */
    int gpus_per_replica;     /* tp pp, >= 1 */
    int64_t ckpt_every_steps; /* K; 0 = no checkpoints */
    double ckpt_block_s;      /* the job stops this long per checkpoint */
    double ckpt_persist_s;    /* async: after the block, until durable; 0 =
                                 durable when the block ends */
    double load_s;            /* reading the checkpoint back at a restart */
    double gpu_mtbf_s;        /* per GPU; 0 = no failures */
    double restart_s;         /* reschedule + rebuild, before load_s */
    double reconfigure_s;     /* per resize */
    double duration_s;        /* > 0 */
    /* Elastic: GPUs available to the job in each of navail intervals of
     * avail_interval_s from t = 0 (after the last, the last value holds);
     * NULL = gpus_per_replica dp all the time. Borrowed. The job runs
     * min(dp, floor(avail / gpus_per_replica)) replicas; a replica's
     * micro-batches stay as they were, so the step time is unchanged and
     * the tokens per step scale with the replicas (derived; see
     * docs/training.md). */
    const double *avail_gpus;
    size_t navail;
    double avail_interval_s;
    int min_dp; /* fewer replicas than this do not fit (ZeRO shards grow
                   as dp shrinks): the job pauses instead; 0 or 1 = any */
    /* Recovery from a failure (enum train_recovery; zeroed: restart, as
     * before these fields). restart: restart_s + load_s, back to the last
     * durable checkpoint (detect_s of restart_s is reported as
     * detection). shrink, spare: detect_s + the state transfer +
     * reconfigure_s, back to the last in-memory checkpoint, or to the
     * failure itself when shard_bytes is 0 (ZeRO-0: a live peer holds
     * everything). */
    int recovery;
    int fallback; /* spare with no spare left: SHRINK or RESTART */
    int spares;   /* hot spare nodes, >= 0 */
    double detect_s;
    int64_t mem_every_steps; /* in-memory checkpoint every K steps (shrink,
                                spare); 0 = none */
    double mem_overlap;      /* of its copy, hidden behind compute */
    double repl_bytes;       /* per GPU: state every replica holds (bf16
                                weights; ZeRO-0 the optimizer too) */
    double shard_bytes;      /* per GPU position: the ZeRO-sharded state (FP32
                                master and Adam moments; ZeRO-3 the weights
                                too) summed over the replicas, so one GPU of dp
                                replicas holds shard_bytes / dp */
    const struct net_link *link; /* scale-out link of the transfers
                                    (borrowed); NULL: they take no time */
    double repair_s; /* shrink, spare: a failed node is back this long
                        after its failure, as a spare again or growing the
                        job back by its replica (a resize); 0 = never */
};

/* Seconds to copy one GPU's ZeRO shard (shard_bytes / dp) to a peer
 * host's memory over j->link (net_p2p_ns(): alpha + bytes / bandwidth),
 * times 1 - mem_overlap: what the job blocks per in-memory checkpoint at
 * dp replicas. 0 when the shard is empty. */
double train_mem_ckpt_s(const struct train_job *j, int dp);

/* Seconds for a spare node to get a failed one's state at dp replicas:
 * each of its GPUs receives repl_bytes + shard_bytes / dp over its own
 * NIC (all at once), alpha + bytes / bandwidth. */
double train_spare_transfer_s(const struct train_job *j, int dp);

/* Seconds to reshard from dp to dp - 1 replicas (dp >= 2): each surviving
 * GPU receives its 1 / (dp - 1) part of the lost replica's shard,
 * shard_bytes / (dp (dp - 1)) bytes, from the in-memory copy on a peer
 * host. 0 when the shard is empty or dp < 2. */
double train_shrink_transfer_s(const struct train_job *j, int dp);

/* Seconds of the job's wall time by what it was doing. */
enum train_time_kind {
    TRAIN_T_USEFUL,      /* steps whose work was kept */
    TRAIN_T_CHECKPOINT,  /* blocked writing checkpoints */
    TRAIN_T_REWORK,      /* steps lost to a failure (redone) */
    TRAIN_T_RESTART,     /* restart and checkpoint load after failures */
    TRAIN_T_RECONFIGURE, /* resizes */
    TRAIN_T_PAUSED,      /* no replica fits in the GPUs left */
    TRAIN_T_SNAPSHOT,    /* blocked taking in-memory checkpoints */
    TRAIN_T_RECOVER,     /* shrink or spare recoveries: detection,
                            transfer, rebuild */
    TRAIN_T_KINDS,
};

/* Where a failure's lost time went (struct train_job_result's lost_s). */
enum train_lost_kind {
    TRAIN_L_DETECT,    /* detection (restart: detect_s of restart_s) */
    TRAIN_L_TRANSFER,  /* state to the spare, or resharding */
    TRAIN_L_REBUILD,   /* restart: the rest of restart_s; shrink, spare:
                          reconfigure_s */
    TRAIN_L_RELOAD,    /* restart: the checkpoint load */
    TRAIN_L_RECOMPUTE, /* steps rolled back and the partial step */
    TRAIN_L_KINDS,
};

/* The outcome of train_job_run(). */
struct train_job_result {
    int64_t steps;        /* kept */
    int64_t steps_lost;   /* computed, then lost to failures */
    int64_t checkpoints;  /* completed (durable) */
    int64_t ckpt_skipped; /* async: due while the previous one was still
                             being written */
    int64_t failures;
    int64_t resizes;
    double time_s[TRAIN_T_KINDS];
    double useful_tokens;
    double goodput_tokens_per_s; /* useful_tokens / duration */
    double ideal_tokens_per_s;   /* full size, no failure, no checkpoint */
    double capacity_tokens_lost; /* tokens not trained because replicas
                                    were lent (run time at reduced size) */
    double gpu_hours;            /* held by the job */
    double replicas_mean;        /* time-weighted */
    uint64_t events;
    /* Recovery: */
    int64_t spares_used;     /* failures a spare took */
    int64_t shrinks;         /* failures the job shrank for */
    int64_t restarts;        /* failures recovered by a whole restart */
    int64_t repairs;         /* failed nodes back (repair_s) */
    int64_t mem_checkpoints; /* in-memory checkpoints taken */
    int dp_final;            /* replica cap at the end (shrinks lower it) */
    double lost_s[TRAIN_L_KINDS]; /* failures' lost time by kind */
    double goodput_time;          /* time_s[USEFUL] / duration, in [0, 1] */
    /* Per availability interval (navail of them, or none): the job's
     * time-weighted replicas. Owned; train_job_result_fini() frees. */
    double *replicas_series;
    size_t nseries;
};

/*
 * Simulates job j from t = 0 to j->duration_s with random streams derived
 * from seed ("train.failures"). Failures are exponential with rate (GPUs
 * held) / gpu_mtbf_s; under restart one loses every step since the last
 * durable checkpoint and the partial step, then costs restart_s + load_s;
 * under shrink or spare see struct train_job's recovery fields (a spare
 * while any is left, else the fallback; a shrink below max(1, min_dp)
 * replicas restarts instead). With repair_s a failed node comes back:
 * a used spare is free again, a shrunk replica grows back (a resize). A
 * checkpoint follows every ckpt_every_steps-th step. Resizes happen at the
 * interval boundaries where the replicas that fit change: completed steps
 * are kept, the partial step is lost, reconfigure_s is paid (not when the
 * job pauses at 0 replicas; resuming pays it). Fills out (zeroed first).
 * Returns 0, or SIM_EINVAL for a malformed job (out zeroed).
 */
int train_job_run(const struct train_job *j, uint64_t seed,
                  struct train_job_result *out);

/* Frees what r owns and zeroes it. NULL is a no-op. */
void train_job_result_fini(struct train_job_result *r);

/* Static lower-case names: "useful", "checkpoint", "rework", "restart",
 * "reconfigure", "paused", "snapshot", "recover"; "storage",
 * "peer_memory"; "detection", "transfer", "rebuild", "reload",
 * "recompute"; "restart", "shrink", "spare". "?" otherwise. */
const char *train_time_name(int kind);
const char *train_lost_name(int kind);
const char *train_recovery_name(int recovery);
const char *train_ckpt_target_name(int target);

#endif /* TRAIN_TRAIN_H */
