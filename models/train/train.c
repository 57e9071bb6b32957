/*
 * Training jobs: configuration, checkpoint arithmetic, Young/Daly and the
 * job simulation. Sources (docs/training.md repeats them):
 *
 * - Checkpoint contents (docs/sources.md §12.3): bf16 weights and the FP32 Adam
 *   states, 14 bytes a parameter, sharded over the GPUs.
 * - Young (CACM 17(9), 1974) and Daly (FGCS 22(3), 2006) optimum
 *   intervals, as docs/sources.md §12.5 states them (Daly's form is recalled,
 *   unverified there; the simulated sweep of docs/training.md checks both).
 * - Failures: exponential inter-arrival times per GPU (the memoryless
 *   model behind both formulas); the job's rate is the GPUs it holds over
 *   the per-GPU MTBF (docs/sources.md §12.5 derives ~5.8 GPU-years from Llama
 * 3's 419 unexpected interruptions on 16,384 GPUs in 54 days).
 *
 * - Recovery without a whole-job restart (shrink, spare): the failed
 *   node's ZeRO shards come from in-memory checkpoints in peers' host
 *   memory, as Gemini does (Wang et al., "Gemini: Fast Failure Recovery in
 *   Distributed Training with In-Memory Checkpoints", SOSP'23, which
 *   checkpoints to CPU memory every iteration); the replicated bf16
 *   weights from a live data-parallel peer. Transfers are
 *   alpha + bytes / bandwidth over the scale-out link (net_p2p_ns(),
 *   docs/sources.md §3.1). With ZeRO-0 a live peer holds everything, so nothing
 *   is rolled back beyond the partial step.
 *
 * The simulation schedules one event per checkpoint segment (the steps up
 * to the next checkpoint run as one block), one per checkpoint, failure,
 * restart, resize and availability change. A failure rolls the job back
 * to the last durable checkpoint. Rejected alternative: one event per
 * step, which a 10 s step makes affordable but a checkpoint sweep of
 * thousands of simulated days does not need.
 */
#include "models/train/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "base/errors.h"
#include "sim/event.h"
#include "sim/loop.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* Bytes saved per parameter (docs/sources.md §12.3): bf16 weights 2, FP32
 * master weights, momentum and variance 12. */
#define CKPT_BYTES_PER_PARAM 14.0

/* Default aggregate storage bandwidth per 1,024 GPUs (assumption, scaled
 * from Tectonic's 2 TB/s sustained for 16,384 GPUs, docs/sources.md §12.5). */
#define STORAGE_BYTES_PER_S_PER_1024 100e9

const char *train_time_name(int kind)
{
    static const char *const names[] = {"useful",   "checkpoint",  "rework",
                                        "restart",  "reconfigure", "paused",
                                        "snapshot", "recover"};

    return kind >= 0 && kind < TRAIN_T_KINDS ? names[kind] : "?";
}

const char *train_lost_name(int kind)
{
    static const char *const names[] = {"detection", "transfer", "rebuild",
                                        "reload", "recompute"};

    return kind >= 0 && kind < TRAIN_L_KINDS ? names[kind] : "?";
}

const char *train_recovery_name(int recovery)
{
    static const char *const names[] = {"restart", "shrink", "spare"};

    return recovery >= 0 && recovery <= TRAIN_RECOVER_SPARE ? names[recovery]
                                                            : "?";
}

const char *train_ckpt_target_name(int target)
{
    if (target == TRAIN_CKPT_STORAGE)
        return "storage";
    if (target == TRAIN_CKPT_PEER_MEMORY)
        return "peer_memory";
    return "?";
}

/* ---- layout strings ---- */

int train_layout_parse(const char *text, int gpus, struct layout *l, char *err,
                       size_t len)
{
    static const char *const keys[] = {"tp", "pp", "dp", "ep", "v"};
    long val[5] = {1, 1, 0, 1, 1};
    int seen[5] = {0};
    const char *p = text;

    if (text == NULL || *text == '\0') {
        snprintf(err, len, "empty layout; expected e.g. tp=8,pp=4,dp=2");
        return SIM_EINVAL;
    }
    while (*p != '\0') {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        size_t klen;
        char *stop = NULL;
        long v;
        int k;

        if (end == NULL)
            end = p + strlen(p);
        if (eq == NULL || eq > end) {
            snprintf(err, len,
                     "'%.*s': expected KEY=N (keys tp, pp, dp, ep, "
                     "v)",
                     (int)(end - p), p);
            return SIM_EINVAL;
        }
        klen = (size_t)(eq - p);
        for (k = 0; k < 5; k++)
            if (strlen(keys[k]) == klen && strncmp(p, keys[k], klen) == 0)
                break;
        if (k == 5) {
            snprintf(err, len, "unknown key '%.*s'; valid: dp, ep, pp, tp, v",
                     (int)klen, p);
            return SIM_EINVAL;
        }
        if (seen[k]) {
            snprintf(err, len, "'%s' given twice", keys[k]);
            return SIM_EINVAL;
        }
        seen[k] = 1;
        v = eq + 1 < end && eq[1] >= '0' && eq[1] <= '9'
                ? strtol(eq + 1, &stop, 10)
                : -1;
        if (v < 1 || v > 1 << 20 || stop != end) {
            snprintf(err, len, "%s: '%.*s' is not a positive integer", keys[k],
                     (int)(end - eq - 1), eq + 1);
            return SIM_EINVAL;
        }
        val[k] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0') {
            snprintf(err, len, "trailing ','");
            return SIM_EINVAL;
        }
    }
    if (!seen[2]) {
        if (gpus % (val[0] * val[1]) != 0) {
            snprintf(err, len, "tp %ld x pp %ld does not divide %d gpus",
                     val[0], val[1], gpus);
            return SIM_EINVAL;
        }
        val[2] = gpus / (val[0] * val[1]);
    }
    if (val[0] * val[1] * val[2] != gpus) {
        snprintf(err, len, "dp %ld x tp %ld x pp %ld is not %d gpus", val[2],
                 val[0], val[1], gpus);
        return SIM_EINVAL;
    }
    l->tp = (int)val[0];
    l->pp = (int)val[1];
    l->dp = (int)val[2];
    l->ep = (int)val[3];
    l->chunks = (int)val[4];
    return 0;
}

/* ---- checkpoints ---- */

double train_ckpt_bytes(double params)
{
    return CKPT_BYTES_PER_PARAM * params;
}

double train_ckpt_bandwidth(int target, int gpus, double link_bytes_per_s)
{
    if (target == TRAIN_CKPT_PEER_MEMORY)
        return link_bytes_per_s;
    return STORAGE_BYTES_PER_S_PER_1024 * gpus / 1024.0;
}

double train_ckpt_seconds(int target, double bytes, int gpus,
                          double bandwidth_bytes_per_s)
{
    if (bandwidth_bytes_per_s <= 0 || gpus < 1)
        return 0.0;
    if (target == TRAIN_CKPT_PEER_MEMORY)
        return bytes / gpus / bandwidth_bytes_per_s;
    return bytes / bandwidth_bytes_per_s;
}

double train_young_s(double delta_s, double mtbf_s)
{
    if (!(delta_s > 0) || !(mtbf_s > 0))
        return 0.0;
    return sqrt(2.0 * delta_s * mtbf_s);
}

double train_daly_s(double delta_s, double mtbf_s)
{
    double x;

    if (!(delta_s > 0) || !(mtbf_s > 0))
        return 0.0;
    if (delta_s >= 2.0 * mtbf_s)
        return mtbf_s;
    x = delta_s / (2.0 * mtbf_s);
    return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) -
           delta_s;
}

/* ---- recovery transfers ---- */

/* Seconds of one transfer of bytes per GPU over j's link, 0 for none. */
static double xfer_s(const struct train_job *j, double bytes)
{
    double ns;

    if (!(bytes > 0) || j->link == NULL)
        return 0.0;
    ns = net_p2p_ns(j->link, bytes);
    return ns > 0 ? ns / 1e9 : 0.0;
}

double train_mem_ckpt_s(const struct train_job *j, int dp)
{
    if (dp < 1)
        return 0.0;
    return xfer_s(j, j->shard_bytes / dp) * (1.0 - j->mem_overlap);
}

double train_spare_transfer_s(const struct train_job *j, int dp)
{
    if (dp < 1)
        return 0.0;
    return xfer_s(j, j->repl_bytes + j->shard_bytes / dp);
}

double train_shrink_transfer_s(const struct train_job *j, int dp)
{
    if (dp < 2)
        return 0.0;
    return xfer_s(j, j->shard_bytes / dp / (dp - 1));
}

/* ---- the job simulation ---- */

enum phase {
    PH_RUN,     /* a segment of steps in progress */
    PH_CKPT,    /* blocked writing a checkpoint */
    PH_RECOVER, /* restarting, or reconfiguring */
    PH_PAUSED,  /* no replica fits */
    PH_MEMCKPT, /* blocked taking an in-memory checkpoint */
};

struct job {
    const struct train_job *j;
    struct sim_loop *loop;
    gsl_rng *rng;
    struct train_job_result *r;
    struct sim_event ev_phase;   /* segment, checkpoint or recovery end */
    struct sim_event ev_fail;    /* the next failure */
    struct sim_event ev_persist; /* an async checkpoint becomes durable */
    struct sim_event ev_avail;   /* the next availability interval */
    struct sim_event ev_end;     /* duration_s */
    struct sim_event ev_repair;  /* the oldest failed node is back */
    /* Failed nodes being repaired, oldest first (repair_s is the same for
     * all, so they come back in order): 1 = it shrank the job, 0 = it
     * used a spare. At most dp + spares are away at once. */
    int *repair_shrank;
    int64_t *repair_due_ns;
    int nrepair, repair_cap;
    int64_t step_ns, end_ns;
    int phase;
    int recover_kind; /* TRAIN_T_RESTART or TRAIN_T_RECONFIGURE */
    int dp_now;
    int dp_cap;      /* the job's size less its shrinks */
    int spares_left; /* hot spares not yet used */
    int64_t phase_start_ns;
    /* A failure's recovery in progress: its parts in order (seconds) and
     * where each goes in lost_s; n 0 for a resize. */
    double rec_s[3];
    int rec_kind[3];
    int rec_n;
    int64_t seg_steps;  /* steps of the segment in progress */
    int64_t since_ckpt; /* steps since the last checkpoint began */
    /* Progress kept in memory (total), at the last durable checkpoint
     * and at the snapshot an async write is persisting. */
    int64_t steps_total, steps_durable, steps_snap;
    double tokens_total, tokens_durable, tokens_snap;
    double work_total, work_durable, work_snap; /* seconds of steps */
    /* The last in-memory checkpoint (shrink, spare), and since_ckpt then. */
    int64_t steps_mem, since_mem, since_ckpt_mem;
    double tokens_mem, work_mem;
    int64_t last_acct_ns; /* replicas and GPU-hours integrated up to */
    double replica_ns;    /* integral of dp_now over time (ns) */
    size_t avail_idx;
};

static double ns_s(int64_t ns)
{
    return (double)ns / SIM_NS_PER_S_F;
}

static int64_t s_ns(double s)
{
    return (int64_t)llround(s * SIM_NS_PER_S_F);
}

/* Integrates replicas held up to now (for the mean, the GPU-hours and the
 * per-interval series). */
static void account(struct job *jb)
{
    int64_t now = sim_loop_now(jb->loop);
    const struct train_job *j = jb->j;

    while (jb->last_acct_ns < now) {
        int64_t upto = now;

        if (j->avail_gpus != NULL && jb->r->nseries > 0) {
            size_t i = (size_t)(jb->last_acct_ns / s_ns(j->avail_interval_s));
            int64_t ie = s_ns(j->avail_interval_s) * (int64_t)(i + 1);

            if (ie < upto)
                upto = ie;
            if (i < jb->r->nseries)
                jb->r->replicas_series[i] += jb->dp_now *
                                             ns_s(upto - jb->last_acct_ns) /
                                             j->avail_interval_s;
        }
        jb->replica_ns +=
            (double)jb->dp_now * (double)(upto - jb->last_acct_ns);
        jb->last_acct_ns = upto;
    }
}

static void time_add(struct job *jb, int kind, int64_t from_ns)
{
    jb->r->time_s[kind] += ns_s(sim_loop_now(jb->loop) - from_ns);
}

static void schedule_failure(struct job *jb)
{
    double gpus = (double)jb->dp_now * jb->j->gpus_per_replica;

    sim_loop_cancel(jb->loop, &jb->ev_fail);
    if (jb->j->gpu_mtbf_s <= 0 || gpus <= 0)
        return;
    /* Memoryless: redrawing at a resize leaves the process exponential at
     * the new rate. */
    sim_loop_after(
        jb->loop, &jb->ev_fail,
        s_ns(gsl_ran_exponential(jb->rng, jb->j->gpu_mtbf_s / gpus)));
}

static double tokens_per_step(const struct job *jb)
{
    return jb->j->tokens_per_step * jb->dp_now / jb->j->dp;
}

/* Starts the next segment: the steps up to the next checkpoint (or to
 * the end of the run). */
static void start_segment(struct job *jb)
{
    int64_t now = sim_loop_now(jb->loop), n;

    if (jb->j->ckpt_every_steps > 0)
        n = jb->j->ckpt_every_steps - jb->since_ckpt;
    else
        n = (jb->end_ns - now) / jb->step_ns + 1;
    if (jb->j->mem_every_steps > 0 &&
        jb->j->mem_every_steps - jb->since_mem < n)
        n = jb->j->mem_every_steps - jb->since_mem;
    if (n < 1)
        n = 1;
    jb->phase = PH_RUN;
    jb->phase_start_ns = now;
    jb->seg_steps = n;
    sim_loop_schedule(jb->loop, &jb->ev_phase, now + n * jb->step_ns);
}

/* Credits k steps of the running segment as done (in memory). */
static void credit_steps(struct job *jb, int64_t k)
{
    jb->steps_total += k;
    jb->since_ckpt += k;
    jb->since_mem += k;
    jb->tokens_total += (double)k * tokens_per_step(jb);
    jb->work_total += (double)k * ns_s(jb->step_ns);
}

/* Charges elapsed_s of the recovery in progress to its parts in order
 * (a failure may cut it short), then forgets them. */
static void split_recovery(struct job *jb, double elapsed_s)
{
    for (int i = 0; i < jb->rec_n; i++) {
        double t = elapsed_s < jb->rec_s[i] ? elapsed_s : jb->rec_s[i];

        if (t > 0)
            jb->r->lost_s[jb->rec_kind[i]] += t;
        elapsed_s -= t;
    }
    jb->rec_n = 0;
}

/* Records the in-memory checkpoint of the progress now. */
static void mem_snapshot(struct job *jb)
{
    jb->steps_mem = jb->steps_total;
    jb->tokens_mem = jb->tokens_total;
    jb->work_mem = jb->work_total;
    jb->since_ckpt_mem = jb->since_ckpt;
    jb->since_mem = 0;
}

/* Stops whatever runs now: a segment keeps its completed steps (the
 * partial one is rework), a checkpoint write is abandoned. */
static void interrupt(struct job *jb)
{
    int64_t now = sim_loop_now(jb->loop);

    sim_loop_cancel(jb->loop, &jb->ev_phase);
    if (jb->phase == PH_RUN) {
        int64_t done = (now - jb->phase_start_ns) / jb->step_ns;

        if (done > jb->seg_steps)
            done = jb->seg_steps;
        credit_steps(jb, done);
        jb->r->time_s[TRAIN_T_USEFUL] += ns_s(done * jb->step_ns);
        jb->r->time_s[TRAIN_T_REWORK] +=
            ns_s(now - jb->phase_start_ns - done * jb->step_ns);
    } else if (jb->phase == PH_CKPT) {
        time_add(jb, TRAIN_T_CHECKPOINT, jb->phase_start_ns);
    } else if (jb->phase == PH_RECOVER) {
        time_add(jb, jb->recover_kind, jb->phase_start_ns);
        split_recovery(jb, ns_s(now - jb->phase_start_ns));
    } else if (jb->phase == PH_MEMCKPT) {
        time_add(jb, TRAIN_T_SNAPSHOT, jb->phase_start_ns);
    } else {
        time_add(jb, TRAIN_T_PAUSED, jb->phase_start_ns);
    }
}

static void start_recover(struct job *jb, int kind, double seconds)
{
    jb->phase = PH_RECOVER;
    jb->recover_kind = kind;
    jb->phase_start_ns = sim_loop_now(jb->loop);
    sim_loop_after(jb->loop, &jb->ev_phase, s_ns(seconds));
}

/* A failure's recovery of up to three parts (seconds, lost_s kinds). */
static void start_failure_recover(struct job *jb, int kind, double a, int ka,
                                  double b, int kb, double c, int kc)
{
    jb->rec_s[0] = a;
    jb->rec_kind[0] = ka;
    jb->rec_s[1] = b;
    jb->rec_kind[1] = kb;
    jb->rec_s[2] = c;
    jb->rec_kind[2] = kc;
    jb->rec_n = 3;
    start_recover(jb, kind, a + b + c);
}

static void make_durable(struct job *jb, int64_t steps, double tokens,
                         double work)
{
    jb->steps_durable = steps;
    jb->tokens_durable = tokens;
    jb->work_durable = work;
    jb->r->checkpoints++;
}

static void on_phase(struct sim_loop *loop, struct sim_event *ev)
{
    struct job *jb = ev->arg;
    const struct train_job *j = jb->j;

    (void)loop;
    switch (jb->phase) {
    case PH_RUN:
        credit_steps(jb, jb->seg_steps);
        time_add(jb, TRAIN_T_USEFUL, jb->phase_start_ns);
        if (j->ckpt_every_steps > 0 && jb->since_ckpt >= j->ckpt_every_steps) {
            jb->since_ckpt = 0;
            /* Async: one write in flight at a time; a checkpoint due
             * while the previous one persists is skipped (it would
             * otherwise supersede it before it is durable, forever when
             * the interval is shorter than the write). */
            if (j->ckpt_persist_s > 0 && sim_event_pending(&jb->ev_persist)) {
                jb->r->ckpt_skipped++;
                start_segment(jb);
                return;
            }
            jb->phase = PH_CKPT;
            jb->phase_start_ns = sim_loop_now(jb->loop);
            sim_loop_after(jb->loop, &jb->ev_phase, s_ns(j->ckpt_block_s));
            return;
        }
        if (j->mem_every_steps > 0 && jb->since_mem >= j->mem_every_steps) {
            double block = train_mem_ckpt_s(j, jb->dp_now);

            if (block <= 0) {
                jb->r->mem_checkpoints++;
                mem_snapshot(jb);
                start_segment(jb);
                return;
            }
            jb->phase = PH_MEMCKPT;
            jb->phase_start_ns = sim_loop_now(jb->loop);
            sim_loop_after(jb->loop, &jb->ev_phase, s_ns(block));
            return;
        }
        start_segment(jb);
        return;
    case PH_MEMCKPT:
        time_add(jb, TRAIN_T_SNAPSHOT, jb->phase_start_ns);
        jb->r->mem_checkpoints++;
        mem_snapshot(jb);
        start_segment(jb);
        return;
    case PH_CKPT:
        time_add(jb, TRAIN_T_CHECKPOINT, jb->phase_start_ns);
        if (j->ckpt_persist_s > 0) {
            jb->steps_snap = jb->steps_total;
            jb->tokens_snap = jb->tokens_total;
            jb->work_snap = jb->work_total;
            sim_loop_after(jb->loop, &jb->ev_persist, s_ns(j->ckpt_persist_s));
        } else {
            make_durable(jb, jb->steps_total, jb->tokens_total, jb->work_total);
        }
        /* The checkpoint's snapshot serves as an in-memory one too. */
        if (j->mem_every_steps > 0)
            mem_snapshot(jb);
        start_segment(jb);
        return;
    case PH_RECOVER:
        time_add(jb, jb->recover_kind, jb->phase_start_ns);
        split_recovery(jb, ns_s(sim_loop_now(jb->loop) - jb->phase_start_ns));
        start_segment(jb);
        return;
    default:
        return;
    }
}

static void on_persist(struct sim_loop *loop, struct sim_event *ev)
{
    struct job *jb = ev->arg;

    (void)loop;
    make_durable(jb, jb->steps_snap, jb->tokens_snap, jb->work_snap);
}

/* Queues the failed node's return after repair_s. The queue cannot
 * overflow: a node is queued only for a spare (at most spares) or a
 * shrink (at most dp - 1). */
static void repair_push(struct job *jb, int shrank)
{
    int64_t due = sim_loop_now(jb->loop) + s_ns(jb->j->repair_s);

    if (!SIM_ALWAYS(jb->nrepair < jb->repair_cap))
        return;
    jb->repair_shrank[jb->nrepair] = shrank;
    jb->repair_due_ns[jb->nrepair] = due;
    if (jb->nrepair++ == 0)
        sim_loop_schedule(jb->loop, &jb->ev_repair, due);
}

static int replicas_fitting(const struct job *jb, size_t i);

/* The oldest failed node is back: a spare again, or its replica rejoins
 * (a resize, as when availability grows). */
static void on_repair(struct sim_loop *loop, struct sim_event *ev)
{
    struct job *jb = ev->arg;
    int shrank = jb->repair_shrank[0], want;

    (void)loop;
    jb->nrepair--;
    memmove(jb->repair_shrank, jb->repair_shrank + 1,
            (size_t)jb->nrepair * sizeof(*jb->repair_shrank));
    memmove(jb->repair_due_ns, jb->repair_due_ns + 1,
            (size_t)jb->nrepair * sizeof(*jb->repair_due_ns));
    if (jb->nrepair > 0)
        sim_loop_schedule(jb->loop, &jb->ev_repair, jb->repair_due_ns[0]);
    jb->r->repairs++;
    if (!shrank) {
        jb->spares_left++;
        return;
    }
    jb->dp_cap++;
    want = replicas_fitting(jb, jb->avail_idx);
    if (want == jb->dp_now)
        return;
    account(jb);
    interrupt(jb);
    jb->r->resizes++;
    jb->dp_now = want;
    start_recover(jb, TRAIN_T_RECONFIGURE, jb->j->reconfigure_s);
    schedule_failure(jb);
}

static void on_fail(struct sim_loop *loop, struct sim_event *ev)
{
    struct job *jb = ev->arg;
    const struct train_job *j = jb->j;

    int how = j->recovery;
    double rework0;

    (void)loop;
    account(jb);
    jb->r->failures++;
    rework0 = jb->r->time_s[TRAIN_T_REWORK];
    interrupt(jb);
    if (how == TRAIN_RECOVER_SPARE && jb->spares_left == 0)
        how = j->fallback;
    if (how == TRAIN_RECOVER_SHRINK &&
        (jb->dp_now < 2 || jb->dp_now - 1 < j->min_dp))
        how = TRAIN_RECOVER_RESTART;
    if (how == TRAIN_RECOVER_RESTART) {
        double det = j->detect_s < j->restart_s ? j->detect_s : j->restart_s;

        /* Roll back to the last durable checkpoint: the steps since are
         * redone, and an unfinished async write is lost. */
        sim_loop_cancel(jb->loop, &jb->ev_persist);
        jb->r->steps_lost += jb->steps_total - jb->steps_durable;
        jb->r->time_s[TRAIN_T_USEFUL] -= jb->work_total - jb->work_durable;
        jb->r->time_s[TRAIN_T_REWORK] += jb->work_total - jb->work_durable;
        jb->steps_total = jb->steps_durable;
        jb->tokens_total = jb->tokens_durable;
        jb->work_total = jb->work_durable;
        jb->since_ckpt = 0;
        if (j->mem_every_steps > 0)
            mem_snapshot(jb);
        jb->r->restarts++;
        jb->r->lost_s[TRAIN_L_RECOMPUTE] +=
            jb->r->time_s[TRAIN_T_REWORK] - rework0;
        start_failure_recover(jb, TRAIN_T_RESTART, det, TRAIN_L_DETECT,
                              j->restart_s - det, TRAIN_L_REBUILD, j->load_s,
                              TRAIN_L_RELOAD);
        schedule_failure(jb);
        return;
    }
    /* Shrink or spare: roll back to the last in-memory checkpoint, whose
     * copies on peers' hosts hold the lost shards; with no shard (ZeRO-0)
     * a live peer holds everything and nothing is rolled back. */
    if (j->shard_bytes > 0 && jb->steps_total > jb->steps_mem) {
        jb->r->steps_lost += jb->steps_total - jb->steps_mem;
        jb->r->time_s[TRAIN_T_USEFUL] -= jb->work_total - jb->work_mem;
        jb->r->time_s[TRAIN_T_REWORK] += jb->work_total - jb->work_mem;
        jb->steps_total = jb->steps_mem;
        jb->tokens_total = jb->tokens_mem;
        jb->work_total = jb->work_mem;
        jb->since_ckpt = jb->since_ckpt_mem;
    }
    jb->since_mem = 0;
    jb->r->lost_s[TRAIN_L_RECOMPUTE] += jb->r->time_s[TRAIN_T_REWORK] - rework0;
    if (j->repair_s > 0)
        repair_push(jb, how == TRAIN_RECOVER_SHRINK);
    if (how == TRAIN_RECOVER_SPARE) {
        jb->spares_left--;
        jb->r->spares_used++;
        start_failure_recover(jb, TRAIN_T_RECOVER, j->detect_s, TRAIN_L_DETECT,
                              train_spare_transfer_s(j, jb->dp_now),
                              TRAIN_L_TRANSFER, j->reconfigure_s,
                              TRAIN_L_REBUILD);
    } else {
        double x = train_shrink_transfer_s(j, jb->dp_now);

        jb->r->shrinks++;
        jb->dp_cap--;
        jb->dp_now--;
        start_failure_recover(jb, TRAIN_T_RECOVER, j->detect_s, TRAIN_L_DETECT,
                              x, TRAIN_L_TRANSFER, j->reconfigure_s,
                              TRAIN_L_REBUILD);
    }
    schedule_failure(jb);
}

static int replicas_fitting(const struct job *jb, size_t i)
{
    const struct train_job *j = jb->j;
    double avail;
    int dp;

    if (j->avail_gpus == NULL || j->navail == 0)
        return jb->dp_cap;
    avail = j->avail_gpus[i < j->navail ? i : j->navail - 1];
    dp = avail > 0 ? (int)floor(avail / j->gpus_per_replica + 1e-9) : 0;
    if (dp < j->min_dp)
        return 0;
    return dp < jb->dp_cap ? dp : jb->dp_cap;
}

static void on_avail(struct sim_loop *loop, struct sim_event *ev)
{
    struct job *jb = ev->arg;
    const struct train_job *j = jb->j;
    int want;

    (void)loop;
    jb->avail_idx++;
    if (jb->avail_idx + 1 < j->navail)
        sim_loop_after(jb->loop, &jb->ev_avail, s_ns(j->avail_interval_s));
    want = replicas_fitting(jb, jb->avail_idx);
    if (want == jb->dp_now)
        return;
    account(jb);
    interrupt(jb);
    jb->r->resizes++;
    jb->dp_now = want;
    if (want == 0) {
        jb->phase = PH_PAUSED;
        jb->phase_start_ns = sim_loop_now(jb->loop);
    } else {
        start_recover(jb, TRAIN_T_RECONFIGURE, j->reconfigure_s);
    }
    schedule_failure(jb);
}

/* The end of the run: whatever runs stops there; a segment's completed
 * steps are kept (the job goes on; they are in memory). */
static void on_end(struct sim_loop *loop, struct sim_event *ev)
{
    struct job *jb = ev->arg;

    account(jb);
    interrupt(jb);
    sim_loop_cancel(loop, &jb->ev_fail);
    sim_loop_cancel(loop, &jb->ev_persist);
    sim_loop_cancel(loop, &jb->ev_avail);
    sim_loop_cancel(loop, &jb->ev_repair);
    sim_loop_stop(loop);
}

static int job_check(const struct train_job *j)
{
    if (j == NULL || !(j->step_s > 0) || !(j->tokens_per_step > 0) ||
        j->dp < 1 || j->gpus_per_replica < 1 || j->ckpt_every_steps < 0 ||
        !(j->ckpt_block_s >= 0) || !(j->ckpt_persist_s >= 0) ||
        !(j->load_s >= 0) || !(j->gpu_mtbf_s >= 0) || !(j->restart_s >= 0) ||
        !(j->reconfigure_s >= 0) || !(j->duration_s > 0))
        return SIM_EINVAL;
    if (j->recovery < TRAIN_RECOVER_RESTART ||
        j->recovery > TRAIN_RECOVER_SPARE || j->spares < 0 ||
        (j->fallback != TRAIN_RECOVER_RESTART &&
         j->fallback != TRAIN_RECOVER_SHRINK) ||
        !(j->detect_s >= 0) || j->mem_every_steps < 0 ||
        !(j->mem_overlap >= 0 && j->mem_overlap <= 1) ||
        !(j->repl_bytes >= 0) || !(j->shard_bytes >= 0) || !(j->repair_s >= 0))
        return SIM_EINVAL;
    if (j->avail_gpus != NULL && j->navail > 0 && !(j->avail_interval_s > 0))
        return SIM_EINVAL;
    return 0;
}

int train_job_run(const struct train_job *j, uint64_t seed,
                  struct train_job_result *out)
{
    struct job jb;

    memset(out, 0, sizeof(*out));
    if (job_check(j) != 0)
        return SIM_EINVAL;
    memset(&jb, 0, sizeof(jb));
    jb.j = j;
    jb.r = out;
    jb.loop = sim_loop_new(seed);
    jb.rng = sim_loop_stream(jb.loop, "train.failures");
    jb.step_ns = s_ns(j->step_s);
    if (jb.step_ns < 1)
        jb.step_ns = 1;
    jb.end_ns = s_ns(j->duration_s);
    jb.dp_cap = j->dp;
    jb.spares_left = j->spares;
    jb.repair_cap = j->dp + j->spares;
    jb.repair_shrank = xcalloc((size_t)jb.repair_cap, sizeof(int));
    jb.repair_due_ns = xcalloc((size_t)jb.repair_cap, sizeof(int64_t));
    sim_event_init(&jb.ev_repair, on_repair, &jb);
    sim_event_init(&jb.ev_phase, on_phase, &jb);
    sim_event_init(&jb.ev_fail, on_fail, &jb);
    sim_event_init(&jb.ev_persist, on_persist, &jb);
    sim_event_init(&jb.ev_avail, on_avail, &jb);
    sim_event_init(&jb.ev_end, on_end, &jb);
    /* First in the queue, so that it fires before anything else due at
     * the same time. */
    sim_loop_schedule(jb.loop, &jb.ev_end, jb.end_ns);
    if (j->avail_gpus != NULL && j->navail > 0) {
        out->nseries = j->navail;
        out->replicas_series = xcalloc(j->navail, sizeof(double));
        if (j->navail > 1)
            sim_loop_after(jb.loop, &jb.ev_avail, s_ns(j->avail_interval_s));
    }
    jb.dp_now = replicas_fitting(&jb, 0);
    if (jb.dp_now > 0) {
        start_segment(&jb);
    } else {
        jb.phase = PH_PAUSED;
        jb.phase_start_ns = 0;
    }
    schedule_failure(&jb);
    sim_loop_run(jb.loop, jb.end_ns);
    account(&jb);
    out->steps = jb.steps_total;
    out->useful_tokens = jb.tokens_total;
    out->goodput_tokens_per_s = jb.tokens_total / j->duration_s;
    out->ideal_tokens_per_s = j->tokens_per_step / ns_s(jb.step_ns);
    out->replicas_mean = jb.replica_ns / (double)jb.end_ns;
    out->gpu_hours =
        jb.replica_ns / SIM_NS_PER_S_F / 3600.0 * j->gpus_per_replica;
    out->capacity_tokens_lost = (j->dp - out->replicas_mean) / j->dp *
                                out->ideal_tokens_per_s * j->duration_s;
    out->events = sim_loop_events(jb.loop);
    free(jb.repair_shrank);
    free(jb.repair_due_ns);
    out->dp_final = jb.dp_cap;
    out->goodput_time = out->time_s[TRAIN_T_USEFUL] / j->duration_s;
    sim_loop_free(jb.loop);
    return 0;
}

void train_job_result_fini(struct train_job_result *r)
{
    if (r == NULL)
        return;
    free(r->replicas_series);
    memset(r, 0, sizeof(*r));
}

/* ---- layout search ---- */

int train_eval(const struct layout_setup *s, const struct train_knobs *k,
               const struct layout *l, struct layout_result *out)
{
    struct layout x = *l;

    x.zero = k->zero >= 0 ? k->zero : (l->dp > 1 ? 1 : 0);
    x.recompute = k->recompute;
    x.seq_parallel = -1;
    x.chunks = l->pp > 1 ? k->chunks : 1;
    x.micro_batches = 0;
    if (k->micro_batch >= 1 && s != NULL && l->dp >= 1 &&
        s->batch % l->dp == 0) {
        int64_t per_dp = s->batch / l->dp;

        if (per_dp % k->micro_batch != 0) {
            int rc = layout_eval(s, &x, out);

            if (rc == 0 && out->verdict == LAYOUT_FITS) {
                memset(out, 0, sizeof(*out));
                out->l = x;
                out->verdict = LAYOUT_NO_BATCH;
                snprintf(out->why, sizeof(out->why),
                         "%lld sequences per dp rank do not split into "
                         "micro-batches of %d",
                         (long long)per_dp, k->micro_batch);
            }
            return rc;
        }
        x.micro_batches = (int)(per_dp / k->micro_batch);
    }
    return layout_eval(s, &x, out);
}

/* Bound on divisors considered per degree (as layout_enumerate()). */
#define TRAIN_DIVISORS_MAX 1024

int train_enumerate(const struct layout_setup *s, const struct train_knobs *k,
                    struct layout_result **out, int *n)
{
    int dv[TRAIN_DIVISORS_MAX], ndv = 0, cap = 64, cnt = 0;
    int e;
    struct layout_result *res;

    *out = NULL;
    *n = 0;
    if (s == NULL || s->arch == NULL || s->gpus < 1 || k == NULL)
        return SIM_EINVAL;
    e = s->arch->moe.n_routed_experts;
    for (int i = 1; i <= s->gpus && ndv < TRAIN_DIVISORS_MAX; i++)
        if (s->gpus % i == 0)
            dv[ndv++] = i;
    res = xcalloc((size_t)cap, sizeof(*res));
    for (int a = 0; a < ndv; a++) {
        for (int b = 0; b < ndv; b++) {
            int tp = dv[a], pp = dv[b], dp;

            if (s->gpus % (tp * pp) != 0)
                continue;
            dp = s->gpus / (tp * pp);
            for (int ep = 1; ep <= tp * dp; ep++) {
                int z0 = k->zero >= 0 ? k->zero : 0;
                int z1 = k->zero >= 0 ? k->zero : 3;

                if (ep > 1 && (e == 0 || ep % tp != 0 || e % ep != 0 ||
                               (tp * dp) % ep != 0))
                    continue;
                for (int z = z0; z <= z1; z++) {
                    struct layout l = {.dp = dp, .tp = tp, .pp = pp, .ep = ep};
                    struct train_knobs kz = *k;
                    int rc;

                    if (k->zero < 0 && z > 0 && dp == 1)
                        continue;
                    kz.zero = z;
                    if (cnt == cap) {
                        cap *= 2;
                        res = xrealloc(res, (size_t)cap, sizeof(*res));
                    }
                    rc = train_eval(s, &kz, &l, &res[cnt]);
                    if (rc != 0) {
                        free(res);
                        return rc;
                    }
                    cnt++;
                }
            }
        }
    }
    qsort(res, (size_t)cnt, sizeof(*res), layout_result_cmp);
    *out = res;
    *n = cnt;
    return 0;
}
