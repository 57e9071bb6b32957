/*
 * A scenario's training job after its serving part (see scenario.h).
 * Serving's per-interval GPUs held in the job's pool are rounded up to
 * whole GPUs (a replica partly present in an interval still blocks them),
 * and the job gets the pool's capacity less those. Rejected alternative:
 * a two-way coupling in one event loop, in which serving would wait for a
 * training step to end before taking GPUs back; serving's priority (it
 * takes them at once, training pays a resize) is both simpler and what the
 * borrowable pool's grace period already models on the serving side.
 */
#include "models/cluster/training.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/arch.h"
#include "models/cluster/cluster.h"
#include "models/cluster/config.h"
#include "models/cluster/results.h"
#include "models/perf/calib.h"
#include "base/errors.h"
#include "base/xalloc.h"

static const struct arch_spec *job_model(const struct cl_scenario *s)
{
    const struct train_config *t = &s->training;

    if (t->model != NULL)
        return arch_find(t->model);
    if (s->model != NULL && arch_find(s->model) != NULL)
        return arch_find(s->model);
    if (s->model_arch != NULL)
        return s->model_arch;
    return arch_find_path(s->deploy.model_path);
}

static const struct cl_pool *job_pool(const struct cl_scenario *s)
{
    for (int i = 0; s->training.pool != NULL && i < s->npools; i++)
        if (strcmp(s->pools[i].name, s->training.pool) == 0)
            return &s->pools[i];
    return NULL;
}

static int fail(struct sim_diag *d, const struct cl_scenario *s,
                struct cl_training_report *out, const char *what,
                const char *why)
{
    sim_diag_error(d, s->file, 0, 0, "training: %s%s%s", what,
                   why[0] ? ": " : "", why);
    cl_training_report_fini(out);
    return SIM_EINVAL;
}

/* Serving's GPUs in the pool per interval, and what is left to the job. */
static void couple(const struct cl_scenario *s,
                   const struct cl_results *serving, const struct cl_pool *p,
                   struct cl_training_report *out)
{
    int idx = -1;

    for (int i = 0; i < serving->npools; i++)
        if (serving->pools[i].name != NULL &&
            strcmp(serving->pools[i].name, p->name) == 0)
            idx = i;
    if (idx < 0 || serving->nseries == 0 || serving->pool_gpus_mean == NULL)
        return;
    out->nseries = serving->nseries;
    out->serving_gpus = xcalloc(out->nseries, sizeof(double));
    out->avail_gpus = xcalloc(out->nseries, sizeof(double));
    out->interval_s =
        (double)(serving->series[0].t_end_ns - serving->series[0].t_start_ns) /
        1e9;
    for (size_t r = 0; r < out->nseries; r++) {
        double held =
            serving->pool_gpus_mean[r * (size_t)serving->npools + (size_t)idx];
        double left = p->capacity_gpus - ceil(held - 1e-9);

        out->serving_gpus[r] = held;
        out->avail_gpus[r] = left > 0 ? left : 0;
        out->lent_gpu_hours += held * out->interval_s / 3600.0;
    }
    out->elastic = 1;
    out->pool_capacity = p->capacity_gpus;
    out->slo_with = serving->slo_attainment;
    out->p99_ttft_with_ms = serving->ttft_ms.p99;
    out->price_usd_per_gpu_hour = serving->pools[idx].price_usd_per_gpu_hour;
    (void)s;
}

/* Serving again without the job's pool: what the borrowing bought. */
static void counterfactual(const struct cl_scenario *s,
                           const struct cl_run_opts *opts,
                           const struct cl_pool *p,
                           struct cl_training_report *out)
{
    struct cl_scenario alt = *s;
    struct cl_results res;
    struct sim_diag d;
    int k = 0;

    out->slo_without = NAN;
    out->p99_ttft_without_ms = NAN;
    if (s->npools < 2)
        return;
    alt.pools = xcalloc((size_t)s->npools, sizeof(*alt.pools));
    for (int i = 0; i < s->npools; i++)
        if (&s->pools[i] != p)
            alt.pools[k++] = s->pools[i];
    alt.npools = k;
    memset(&res, 0, sizeof(res));
    sim_diag_init(&d);
    if (cl_run(&alt, opts, &res, &d) == 0) {
        out->slo_without = res.slo_attainment;
        out->p99_ttft_without_ms = res.ttft_ms.p99;
    }
    sim_diag_fini(&d);
    cl_results_fini(&res);
    free(alt.pools);
}

/* The fewest replicas with which the layout still fits: the same
 * replica (tp, pp, micro-batches) over dp' ranks, a global batch of dp' /
 * dp of the job's. */
static int min_replicas(const struct cl_training_report *out,
                        const struct train_knobs *k)
{
    const struct layout *l = &out->step.l;
    int64_t per_dp = out->setup.batch / l->dp;

    for (int dp = 1; dp < l->dp; dp++) {
        struct layout_setup s = out->setup;
        struct layout x = *l;
        struct layout_result r;
        struct train_knobs kk = *k;

        s.gpus = dp * l->tp * l->pp;
        s.batch = per_dp * dp;
        x.dp = dp;
        kk.zero = l->zero;
        if (l->ep > 1 && (l->tp * dp) % l->ep != 0)
            continue;
        if (train_eval(&s, &kk, &x, &r) == 0 && r.verdict == LAYOUT_FITS)
            return dp;
    }
    return l->dp;
}

/* The recovery fields of the job: the state per GPU by ZeRO stage
 * (docs/sources.md §12.3: bf16 weights 2 bytes a parameter, FP32 master and
 * Adam moments 12; gradients are recomputed, not moved), the scale-out link the
 * transfers cross, and the in-memory checkpoint interval (shrink, spare
 * only: restart keeps none, as before). */
static void recovery_setup(const struct train_config *t,
                           struct cl_training_report *out)
{
    struct train_job *j = &out->job;
    double per_gpu = (double)arch_params_total(out->arch) /
                     (out->step.l.tp * out->step.l.pp);
    int z = out->step.l.zero;

    out->recovery_report = t->recovery_given;
    j->recovery = t->recovery;
    j->fallback = t->fallback;
    j->spares = t->recovery == TRAIN_RECOVER_SPARE ? t->spares : 0;
    j->detect_s = (double)t->detection_ns / 1e9;
    j->repair_s =
        t->recovery == TRAIN_RECOVER_RESTART ? 0.0 : (double)t->repair_ns / 1e9;
    j->repl_bytes =
        (z >= 3 ? 0.0 : 2.0 * per_gpu) + (z == 0 ? 12.0 * per_gpu : 0.0);
    j->shard_bytes =
        (z >= 3 ? 2.0 * per_gpu : 0.0) + (z >= 1 ? 12.0 * per_gpu : 0.0);
    j->link = &out->setup.calib.inter;
    if (t->recovery == TRAIN_RECOVER_RESTART)
        return;
    j->mem_overlap = t->in_memory_checkpoint.overlap;
    if (t->in_memory_checkpoint.every_steps > 0) {
        j->mem_every_steps = t->in_memory_checkpoint.every_steps;
    } else if (t->in_memory_checkpoint.interval_ns > 0) {
        j->mem_every_steps = llround(
            (double)t->in_memory_checkpoint.interval_ns / 1e9 / j->step_s);
        if (j->mem_every_steps < 1)
            j->mem_every_steps = 1;
    } else {
        j->mem_every_steps = 1;
    }
}

int cl_training_run(const struct cl_scenario *s, const struct cl_run_opts *opts,
                    const struct cl_results *serving,
                    struct cl_training_report *out, struct sim_diag *d)
{
    const struct train_config *t = &s->training;
    const struct cl_pool *p = job_pool(s);
    const char *gname;
    struct train_knobs k;
    struct train_job *j = &out->job;
    double bw, write_s;
    char why[400];

    memset(out, 0, sizeof(*out));
    out->slo_with = out->slo_without = NAN;
    out->p99_ttft_with_ms = out->p99_ttft_without_ms = NAN;
    out->arch = job_model(s);
    if (out->arch == NULL)
        return fail(d, s, out, "no model", "give training.model");
    gname = t->gpu != NULL                ? t->gpu
            : p != NULL && p->gpu != NULL ? p->gpu
                                          : s->hardware.gpu;
    out->gpu = gname != NULL ? cl_gpu_find(s, gname) : NULL;
    if (out->gpu == NULL)
        return fail(d, s, out, "no gpu", "give training.gpu");
    out->pool = t->pool;
    layout_setup_init(&out->setup, out->arch, out->gpu, t->gpus,
                      LAYOUT_TRAINING);
    if (s->calib != NULL)
        perf_calib_resolve(s->calib, out->gpu, &out->setup.calib);
    if (t->gpus > out->setup.gpus_per_node &&
        t->gpus % out->setup.gpus_per_node != 0)
        return fail(d, s, out, "gpus", "not a whole number of 8-gpu nodes");
    out->setup.dtype = t->dtype;
    out->setup.seq_tokens = t->seq_tokens;
    out->setup.batch = t->global_batch_seqs;
    out->setup.dp_overlap = t->dp_overlap;
    out->setup.zero3_regather = 1;
    out->setup.tp_overlap = t->tp_overlap;
    out->setup.ep_overlap = t->ep_overlap;
    k.zero = t->zero;
    k.recompute = t->recompute;
    k.micro_batch = t->micro_batch;
    k.chunks = 1;
    if (t->layout != NULL) {
        struct layout l = {.ep = 1};

        if (train_layout_parse(t->layout, t->gpus, &l, why, sizeof(why)) != 0)
            return fail(d, s, out, "layout", why);
        k.chunks = l.chunks;
        if (train_eval(&out->setup, &k, &l, &out->step) != 0)
            return fail(d, s, out, "layout", out->step.why);
    } else {
        struct layout_result *res;
        int n;

        if (train_enumerate(&out->setup, &k, &res, &n) != 0 || n == 0)
            return fail(d, s, out, "no layout", "");
        out->step = res[0];
        free(res);
    }
    if (out->step.verdict != LAYOUT_FITS) {
        char lay[64];

        layout_format(&out->step.l, LAYOUT_TRAINING, lay, sizeof(lay));
        snprintf(why, sizeof(why), "%s: %s", lay, out->step.why);
        return fail(d, s, out, "the layout does not fit", why);
    }

    /* The checkpoint: docs/sources.md §12.3's states, to storage or peers. */
    out->ckpt_bytes = train_ckpt_bytes((double)arch_params_total(out->arch));
    bw = t->checkpoint.bandwidth_bytes_per_s > 0
             ? t->checkpoint.bandwidth_bytes_per_s
             : train_ckpt_bandwidth(t->checkpoint.target, t->gpus,
                                    out->setup.calib.inter.bytes_per_s);
    write_s =
        train_ckpt_seconds(t->checkpoint.target, out->ckpt_bytes, t->gpus, bw);
    j->step_s = out->step.step_ns / 1e9;
    j->tokens_per_step = (double)t->global_batch_seqs * t->seq_tokens;
    j->dp = out->step.l.dp;
    j->gpus_per_replica = out->step.l.tp * out->step.l.pp;
    j->gpu_mtbf_s = t->gpu_mtbf_s;
    j->restart_s = (double)t->restart_ns / 1e9;
    j->reconfigure_s = (double)t->reconfigure_ns / 1e9;
    j->load_s = write_s;
    j->duration_s = (double)t->duration_ns / 1e9;
    if (t->checkpoint.async) {
        j->ckpt_block_s =
            out->ckpt_bytes / t->gpus / out->gpu->pcie_bytes_per_s;
        j->ckpt_persist_s = write_s;
    } else {
        j->ckpt_block_s = write_s;
    }
    recovery_setup(t, out);
    out->job_mtbf_s = t->gpu_mtbf_s > 0 ? t->gpu_mtbf_s / t->gpus : 0.0;
    out->young_s = train_young_s(j->ckpt_block_s, out->job_mtbf_s);
    out->daly_s = train_daly_s(j->ckpt_block_s, out->job_mtbf_s);
    if (t->checkpoint.every_steps > 0) {
        j->ckpt_every_steps = t->checkpoint.every_steps;
        out->k_source = CL_TRAIN_K_STEPS;
    } else if (t->checkpoint.interval_ns > 0) {
        j->ckpt_every_steps =
            llround((double)t->checkpoint.interval_ns / 1e9 / j->step_s);
        if (j->ckpt_every_steps < 1)
            j->ckpt_every_steps = 1;
        out->k_source = CL_TRAIN_K_INTERVAL;
    } else if (out->young_s > 0) {
        j->ckpt_every_steps = llround(out->young_s / j->step_s);
        if (j->ckpt_every_steps < 1)
            j->ckpt_every_steps = 1;
        out->k_source = CL_TRAIN_K_YOUNG;
    } else {
        out->k_source = CL_TRAIN_K_NONE;
    }

    if (p != NULL && p->borrowable && serving != NULL) {
        j->min_dp = min_replicas(out, &k);
        couple(s, serving, p, out);
        if (out->elastic) {
            j->avail_gpus = out->avail_gpus;
            j->navail = out->nseries;
            j->avail_interval_s = out->interval_s;
            if (out->lent_gpu_hours > 0)
                counterfactual(s, opts, p, out);
        }
    }
    if (train_job_run(j, s->seed, &out->res) != 0)
        return fail(d, s, out, "the job cannot be simulated", "");
    /* The job struct points into out; keep it valid for the caller. */
    return 0;
}

void cl_training_report_fini(struct cl_training_report *r)
{
    if (r == NULL)
        return;
    train_job_result_fini(&r->res);
    free(r->serving_gpus);
    free(r->avail_gpus);
    memset(r, 0, sizeof(*r));
}
