/* The rows of the scenario's `training:` section (see config.h and
 * docs/training.md), in the order `dsec help scenario` prints them (enum
 * choices are alphabetical), and the section's cross-field checks
 * (train_config_check()). The default sequence length and global batch
 * are the layout model's (models/layout/layout.h), which `dsec train` uses
 * without a scenario. */
#include "models/train/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/arch.h"
#include "models/layout/layout.h"
#include "models/train/train.h"
#include "base/yaml-rows.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define GT SIM_PF_MIN_EXCL
#define REQ SIM_PF_REQUIRED

#define TRN(f) offsetof(struct train_config, f)
#define CKP(f) offsetof(struct train_ckpt_config, f)
#define MCK(f) offsetof(struct train_memckpt_config, f)

static const struct sim_param_choice train_recomputes[] = {
    {"auto", LAYOUT_RECOMPUTE_AUTO},
    {"full", LAYOUT_RECOMPUTE_FULL},
    {"none", LAYOUT_RECOMPUTE_NONE},
    {"selective", LAYOUT_RECOMPUTE_SELECTIVE},
    {NULL, 0},
};

static const struct sim_param_choice train_ckpt_targets[] = {
    {"peer_memory", TRAIN_CKPT_PEER_MEMORY},
    {"storage", TRAIN_CKPT_STORAGE},
    {NULL, 0},
};

static const struct sim_param train_ckpt_rows[] = {
    {"every_steps", SIM_PT_INT64, SIM_U_NONE, 0, NOMAX, 0, "0",
     "optimizer steps between checkpoints (0: from interval, else Young's "
     "optimum sqrt(2 delta M), docs/sources.md §12.5)",
     CKP(every_steps), NULL, NULL},
    {"interval", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "time between checkpoints, rounded to whole steps (0: every_steps or "
     "Young's optimum)",
     CKP(interval_ns), NULL, NULL},
    {"target", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "storage",
     "storage (shared, aggregate bandwidth) or peer_memory (each GPU's shard "
     "to a peer host's DRAM over the scale-out link)",
     CKP(target), train_ckpt_targets, NULL},
    {"bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, 0, "0",
     "storage: aggregate write and read bandwidth; peer_memory: per GPU (0: "
     "storage 100 GB/s per 1,024 GPUs, peer_memory the inter-node link)",
     CKP(bandwidth_bytes_per_s), NULL, NULL},
    {"async", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false",
     "block only for the snapshot to host memory over PCIe; durable once "
     "written",
     CKP(async), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param_choice train_recoveries[] = {
    {"restart", TRAIN_RECOVER_RESTART},
    {"shrink", TRAIN_RECOVER_SHRINK},
    {"spare", TRAIN_RECOVER_SPARE},
    {NULL, 0},
};

static const struct sim_param_choice train_fallbacks[] = {
    {"restart", TRAIN_RECOVER_RESTART},
    {"shrink", TRAIN_RECOVER_SHRINK},
    {NULL, 0},
};

static const struct sim_param train_memckpt_rows[] = {
    {"every_steps", SIM_PT_INT64, SIM_U_NONE, 0, NOMAX, 0, "0",
     "optimizer steps between in-memory checkpoints (0: from interval, else "
     "every step, as Gemini, SOSP'23)",
     MCK(every_steps), NULL, NULL},
    {"interval", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "time between in-memory checkpoints, rounded to whole steps",
     MCK(interval_ns), NULL, NULL},
    {"overlap", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, "0",
     "fraction of the copy to a peer host hidden behind training (Gemini "
     "interleaves it with training traffic)",
     MCK(overlap), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param train_config_rows[] = {
    {"model", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "model catalog name of the job (default: the scenario's model)",
     TRN(model), NULL, NULL},
    {"gpu", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "GPU kind (default: the pool's, else hardware.gpu)", TRN(gpu), NULL, NULL},
    {"pool", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "pool the job runs in; when borrowable, serving's borrowing shrinks "
     "the job by whole data-parallel replicas",
     TRN(pool), NULL, NULL},
    {"gpus", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, REQ, NULL,
     "GPUs of the job at full size", TRN(gpus), NULL, NULL},
    {"layout", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "tp=T,pp=P[,dp=D][,ep=E][,v=V] (default: the best layout, as dsec "
     "train ranks them)",
     TRN(layout), NULL, NULL},
    {"zero", SIM_PT_INT, SIM_U_NONE, -1, 3, 0, "-1",
     "ZeRO stage 0-3 (-1: 1 when dp > 1, else 0)", TRN(zero), NULL, NULL},
    {"recompute", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "auto",
     "activation recomputation (auto: the least that fits)", TRN(recompute),
     train_recomputes, NULL},
    {"dtype", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "bf16",
     "GEMM data type", TRN(dtype), arch_dtype_float_choices, NULL},
    {"seq", SIM_PT_INT64, SIM_U_TOKENS, 1, NOMAX, 0,
     SIM_PARAM_DEF(LAYOUT_DEFAULT_SEQ_TOKENS), "sequence length",
     TRN(seq_tokens), NULL, NULL},
    {"global_batch", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0,
     SIM_PARAM_DEF(LAYOUT_DEFAULT_GLOBAL_BATCH_SEQS),
     "sequences per optimizer step", TRN(global_batch_seqs), NULL, NULL},
    {"micro_batch", SIM_PT_INT, SIM_U_NONE, 1, NOMAX, 0, "1",
     "sequences per micro-batch", TRN(micro_batch), NULL, NULL},
    {"overlap", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, "0",
     "fraction of the data-parallel collectives hidden behind the backward "
     "pass",
     TRN(dp_overlap), NULL, NULL},
    {"tp_overlap", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, "0",
     "fraction of the tensor-parallel collectives hidden behind compute",
     TRN(tp_overlap), NULL, NULL},
    {"ep_overlap", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, "0",
     "fraction of the expert all-to-alls hidden behind compute",
     TRN(ep_overlap), NULL, NULL},
    {"checkpoint", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "how often and where the job checkpoints", TRN(checkpoint), NULL,
     train_ckpt_rows},
    {"gpu_mtbf", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, NOMAX, 0, "0",
     "mean time between failures of one GPU, e.g. 50000h (0: none)",
     TRN(gpu_mtbf_s), NULL, NULL},
    {"restart", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "600s",
     "after a failure: reschedule and rebuild communicators, before the "
     "checkpoint load",
     TRN(restart_ns), NULL, NULL},
    {"reconfigure", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "120s",
     "per resize: rebuild communicators and reshard the states",
     TRN(reconfigure_ns), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT | REQ, NULL,
     "simulated job time (the serving part's duration when the job "
     "borrows from serving's pool)",
     TRN(duration_ns), NULL, NULL},
    {"recovery", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "restart",
     "after a failure: restart (the whole job reloads the last durable "
     "checkpoint), shrink (one fewer data-parallel replica) or spare (a hot "
     "spare node replaces the failed one); shrink and spare reshard from "
     "peers' in-memory checkpoints",
     TRN(recovery), train_recoveries, NULL},
    {"spares", SIM_PT_INT, SIM_U_NONE, 0, NOMAX, 0, "0",
     "hot spare nodes (recovery spare); each replaces one failed node",
     TRN(spares), NULL, NULL},
    {"fallback", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "shrink",
     "recovery spare with no spare left: shrink or restart (shrink below "
     "the fewest replicas that fit restarts)",
     TRN(fallback), train_fallbacks, NULL},
    {"detection", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "30s",
     "from a failure to the start of its recovery (shrink, spare; with "
     "restart it is counted inside restart)",
     TRN(detection_ns), NULL, NULL},
    {"repair", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "shrink, spare: a failed node is back this long after its failure, a "
     "spare again or growing the job back by its replica (0: never)",
     TRN(repair_ns), NULL, NULL},
    {"in_memory_checkpoint", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "snapshots of each GPU's ZeRO shard to a peer host's memory "
     "(shrink, spare)",
     TRN(in_memory_checkpoint), NULL, train_memckpt_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- the section's cross-field checks ---- */

void train_config_check(struct sim_yaml *y, struct train_config *t,
                        const struct train_config_scope *sc)
{
    const struct sim_yaml_seen *k;

    if (sim_yaml_seen(y, "training") == NULL)
        return;
    if (t->model != NULL && arch_find(t->model) == NULL &&
        (k = sim_yaml_seen(y, "training.model")) != NULL) {
        char *names = arch_names();
        sim_yaml_error(y, k->vline, k->vcol,
                       "training.model: unknown model '%s'; valid: %s",
                       t->model, names);
        free(names);
    }
    if (t->pool != NULL && (k = sim_yaml_seen(y, "training.pool")) != NULL) {
        int found = 0;
        for (int i = 0; i < sc->npools; i++) {
            const char *name = sc->pool_name(sc->ctx, i);
            found |= name != NULL && strcmp(name, t->pool) == 0;
        }
        if (!found) {
            char names[512] = "";
            size_t used = 0;
            for (int i = 0; i < sc->npools && used < sizeof(names); i++) {
                int n = snprintf(names + used, sizeof(names) - used, "%s%s",
                                 i ? ", " : "", sc->pool_name(sc->ctx, i));
                if (n < 0)
                    break;
                used += (size_t)n;
            }
            sim_yaml_error(y, k->vline, k->vcol,
                           "training.pool: unknown pool '%s'; valid: %s",
                           t->pool,
                           sc->npools > 0 ? names : "(no pools given)");
        }
    }
    if (t->gpu != NULL && !sc->has_gpu(sc->ctx, t->gpu) &&
        (k = sim_yaml_seen(y, "training.gpu")) != NULL) {
        char *names = sc->gpu_names(sc->ctx);
        sim_yaml_error(y, k->vline, k->vcol,
                       "training.gpu: unknown gpu '%s'; valid: %s", t->gpu,
                       names);
        free(names);
    }
    if (t->layout != NULL && t->gpus > 0 &&
        (k = sim_yaml_seen(y, "training.layout")) != NULL) {
        struct layout l = {.ep = 1};
        char err[160];

        if (train_layout_parse(t->layout, t->gpus, &l, err, sizeof(err)) != 0)
            sim_yaml_error(y, k->vline, k->vcol, "training.layout: %s", err);
    }
    if (sim_yaml_seen(y, "training.checkpoint.every_steps") != NULL &&
        sim_yaml_seen(y, "training.checkpoint.interval") != NULL)
        sim_yaml_exactly_one(y, "training.checkpoint", "every_steps",
                             "interval");
    if (sim_yaml_seen(y, "training.in_memory_checkpoint.every_steps") != NULL &&
        sim_yaml_seen(y, "training.in_memory_checkpoint.interval") != NULL)
        sim_yaml_exactly_one(y, "training.in_memory_checkpoint", "every_steps",
                             "interval");
    if (t->spares > 0 && t->recovery != TRAIN_RECOVER_SPARE &&
        (k = sim_yaml_seen(y, "training.spares")) != NULL)
        sim_yaml_error(y, k->vline, k->vcol,
                       "training.spares: needs training.recovery spare");
    t->recovery_given = sim_yaml_seen(y, "training.recovery") != NULL;
}
