/* The training reports of dsec train and of dsec run's Training section
 * (reports/train-report.h). Durations print in SIM_DUR_FIXED ("11.600 s",
 * "4.6 ms"), byte counts in SI units; memory in GB of 1e9 bytes. Formulas
 * and sources of what is printed: docs/training.md. */
#include "reports/train-report.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>

#include "base/fmt.h"
#include "models/arch/arch.h"
#include "models/cluster/config.h"
#include "models/gpu/gpu.h"
#include "reports/fmt.h"

/* ---- one layout ---- */

static void print_step(FILE *fp, const struct layout_setup *s,
                       const struct layout_result *r)
{
    const struct arch_spec *a = s->arch;
    char lay[64], b1[32];
    double st = r->step_ns, six_n;
    struct {
        const char *name;
        double ns;
    } parts[] = {
        {"forward+backward compute", r->fwd_bwd_ns},
        {"  of which element-wise", r->elem_ns},
        {"tp/sp collectives (nvlink)", r->tp_ns},
        {"ep all-to-all", r->ep_ns},
        {"pp send/recv", r->pp_ns},
        {"pipeline bubble", r->bubble_ns},
        {"dp collectives, exposed", r->dp_exposed_ns},
        {"optimizer step (adam)", r->optim_ns},
    };

    layout_format(&r->l, LAYOUT_TRAINING, lay, sizeof(lay));
    fprintf(fp,
            "layout %s, recompute %s%s, %d micro-batches of %lld sequence%s "
            "per dp rank, %s\n",
            lay, layout_recompute_name(r->l.recompute),
            r->l.seq_parallel == 1 && r->l.tp > 1 ? " + sequence parallel" : "",
            r->l.micro_batches,
            (long long)(s->batch / r->l.dp / r->l.micro_batches),
            s->batch / r->l.dp / r->l.micro_batches == 1 ? "" : "s",
            r->l.chunks > 1 ? "interleaved 1F1B" : "1F1B");
    if (r->verdict != LAYOUT_FITS) {
        fprintf(fp, "does not fit: %s\n", r->why);
        if (r->total_bytes > 0)
            fprintf(fp,
                    "memory per gpu  weights %.1f, grads %.1f, optimizer "
                    "%.1f, activations %.1f = %.1f GB of %.1f usable\n",
                    r->weight_bytes / 1e9, r->grad_bytes / 1e9,
                    r->optim_bytes / 1e9, r->act_bytes / 1e9,
                    r->total_bytes / 1e9, r->usable_bytes / 1e9);
        return;
    }
    fprintf(fp, "\nstep            %s  (%.0f tokens/s, %.0f per gpu)\n",
            sim_fmt_duration(b1, sizeof(b1), st, SIM_DUR_FIXED),
            r->tokens_per_s, r->tokens_per_s / s->gpus);
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (parts[i].ns <= 0 && i != 0)
            continue;
        fprintf(fp, "  %-28s %12s %6.1f%%\n", parts[i].name,
                sim_fmt_duration(b1, sizeof(b1), parts[i].ns, SIM_DUR_FIXED),
                100.0 * parts[i].ns / st);
    }
    if (r->hidden_ns > 0)
        fprintf(fp,
                "  (tp/ep collectives %s hidden behind compute by "
                "--tp-overlap/--ep-overlap)\n",
                sim_fmt_duration(b1, sizeof(b1), r->hidden_ns, SIM_DUR_FIXED));
    if (r->dp_ns > 0)
        fprintf(fp,
                "  (dp collectives %s in all, %.0f%% hidden by --overlap)\n",
                sim_fmt_duration(b1, sizeof(b1), r->dp_ns, SIM_DUR_FIXED),
                100.0 * (r->dp_ns - r->dp_exposed_ns) / r->dp_ns);
    fprintf(fp, "bubble fraction %.4f = (p - 1) / (%sm + p - 1), p %d, m %d\n",
            r->bubble, r->l.chunks > 1 ? "v " : "", r->l.pp,
            r->l.micro_batches);
    six_n = 6.0 * (double)arch_params_active(a) * (double)s->batch *
            (double)s->seq_tokens;
    fprintf(fp,
            "MFU             %.1f%% (6 N_active + attention per token, "
            "%.3g FLOP/step; bf16 peak %.0f TFLOP/s)\n",
            100.0 * r->mfu, r->model_flops, s->gpu->flops_bf16 / 1e12);
    fprintf(fp,
            "  6N only       %.1f%% (6 x %.4g params x %.4g tokens = %.3g "
            "FLOP/step)\n",
            100.0 * six_n / (st / 1e9 * s->gpus * s->gpu->flops_bf16),
            (double)arch_params_active(a), (double)s->batch * s->seq_tokens,
            six_n);
    fprintf(fp, "  HFU           %.1f%% (recomputation counted)\n",
            100.0 * r->hfu);
    fprintf(fp, "  achieved      %.0f TFLOP/s per gpu (model FLOPs)\n",
            r->model_flops / (st / 1e9) / s->gpus / 1e12);
    fprintf(fp,
            "memory per gpu  weights %.1f, grads %.1f, optimizer %.1f, "
            "activations %.1f = %.1f GB of %.1f usable: fits\n",
            r->weight_bytes / 1e9, r->grad_bytes / 1e9, r->optim_bytes / 1e9,
            r->act_bytes / 1e9, r->total_bytes / 1e9, r->usable_bytes / 1e9);
    fprintf(fp, "traffic per gpu per step (first stage):\n");
    for (int k = 0; k < LAYOUT_TR_KINDS; k++) {
        const struct layout_traffic *t = &r->traffic[k];

        if (t->ranks == 0)
            continue;
        fprintf(fp, "  %-3s %4d ranks %9.0f calls %10s over %-8s %12s%s\n",
                layout_traffic_name(k), t->ranks, t->collectives,
                sim_fmt_bytes(b1, sizeof(b1), t->wire_bytes), t->link,
                sim_fmt_duration((char[32]){0}, 32, t->time_ns, SIM_DUR_FIXED),
                t->crosses_nodes ? " (crosses nodes)" : "");
    }
}

static void print_ranked(FILE *fp, const struct layout_result *res, int n,
                         int top)
{
    char lay[64];
    int shown = 0;

    fprintf(fp, "%-3s %-24s %-9s %7s %7s %6s %9s %10s %6s\n", "#", "layout",
            "recomp", "mem GB", "act GB", "bubble", "step s", "tok/s", "MFU");
    for (int i = 0; i < n && shown < top; i++) {
        const struct layout_result *r = &res[i];

        if (r->verdict != LAYOUT_FITS)
            continue;
        layout_format(&r->l, LAYOUT_TRAINING, lay, sizeof(lay));
        fprintf(fp, "%-3d %-24s %-9s %7.1f %7.1f %6.3f %9.3f %10.0f %5.1f%%\n",
                shown + 1, lay, layout_recompute_name(r->l.recompute),
                r->total_bytes / 1e9, r->act_bytes / 1e9, r->bubble,
                r->step_ns / 1e9, r->tokens_per_s, 100.0 * r->mfu);
        shown++;
    }
    if (shown == 0) {
        fprintf(fp, "no layout fits");
        if (n > 0)
            fprintf(fp, "; e.g. %s", res[0].why);
        fprintf(fp, "\n");
    }
}

static json_object *step_json(const struct layout_setup *s,
                              const struct layout_result *r)
{
    json_object *o = json_object_new_object(), *b, *m, *tr;
    char lay[64];

    layout_format(&r->l, LAYOUT_TRAINING, lay, sizeof(lay));
    json_object_object_add(o, "layout", json_object_new_string(lay));
    json_object_object_add(o, "dp", json_object_new_int(r->l.dp));
    json_object_object_add(o, "tp", json_object_new_int(r->l.tp));
    json_object_object_add(o, "pp", json_object_new_int(r->l.pp));
    json_object_object_add(o, "ep", json_object_new_int(r->l.ep));
    json_object_object_add(o, "zero", json_object_new_int(r->l.zero));
    json_object_object_add(
        o, "chunks", json_object_new_int(r->l.chunks > 1 ? r->l.chunks : 1));
    json_object_object_add(o, "micro_batches",
                           json_object_new_int(r->l.micro_batches));
    json_object_object_add(
        o, "recompute",
        json_object_new_string(layout_recompute_name(r->l.recompute)));
    json_object_object_add(o, "sequence_parallel",
                           json_object_new_boolean(r->l.seq_parallel));
    json_object_object_add(o, "fits",
                           json_object_new_boolean(r->verdict == LAYOUT_FITS));
    json_object_object_add(o, "why", json_object_new_string(r->why));
    m = json_object_new_object();
    json_object_object_add(m, "weights_bytes",
                           rpt_json_double(r->weight_bytes, RPT_JSON_FULL));
    json_object_object_add(m, "grads_bytes",
                           rpt_json_double(r->grad_bytes, RPT_JSON_FULL));
    json_object_object_add(m, "optimizer_bytes",
                           rpt_json_double(r->optim_bytes, RPT_JSON_FULL));
    json_object_object_add(m, "activations_bytes",
                           rpt_json_double(r->act_bytes, RPT_JSON_FULL));
    json_object_object_add(m, "total_bytes",
                           rpt_json_double(r->total_bytes, RPT_JSON_FULL));
    json_object_object_add(m, "usable_bytes",
                           rpt_json_double(r->usable_bytes, RPT_JSON_FULL));
    json_object_object_add(o, "memory_per_gpu", m);
    if (r->verdict != LAYOUT_FITS)
        return o;
    json_object_object_add(o, "step_s",
                           rpt_json_double(r->step_ns / 1e9, RPT_JSON_FULL));
    b = json_object_new_object();
    json_object_object_add(b, "fwd_bwd_s",
                           rpt_json_double(r->fwd_bwd_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "elementwise_s",
                           rpt_json_double(r->elem_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "tp_s",
                           rpt_json_double(r->tp_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "ep_s",
                           rpt_json_double(r->ep_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "pp_s",
                           rpt_json_double(r->pp_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "bubble_s",
                           rpt_json_double(r->bubble_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "dp_s",
                           rpt_json_double(r->dp_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "hidden_s",
                           rpt_json_double(r->hidden_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(
        b, "dp_exposed_s",
        rpt_json_double(r->dp_exposed_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(b, "optimizer_s",
                           rpt_json_double(r->optim_ns / 1e9, RPT_JSON_FULL));
    json_object_object_add(o, "breakdown", b);
    json_object_object_add(o, "bubble",
                           rpt_json_double(r->bubble, RPT_JSON_FULL));
    json_object_object_add(o, "tokens_per_s",
                           rpt_json_double(r->tokens_per_s, RPT_JSON_FULL));
    json_object_object_add(o, "model_flops_per_step",
                           rpt_json_double(r->model_flops, RPT_JSON_FULL));
    json_object_object_add(o, "mfu", rpt_json_double(r->mfu, RPT_JSON_FULL));
    json_object_object_add(o, "hfu", rpt_json_double(r->hfu, RPT_JSON_FULL));
    json_object_object_add(
        o, "mfu_6n",
        rpt_json_double(6.0 * (double)arch_params_active(s->arch) *
                            (double)s->batch * (double)s->seq_tokens /
                            (r->step_ns / 1e9 * s->gpus * s->gpu->flops_bf16),
                        RPT_JSON_FULL));
    tr = json_object_new_array();
    for (int k = 0; k < LAYOUT_TR_KINDS; k++) {
        const struct layout_traffic *t = &r->traffic[k];
        json_object *x;

        if (t->ranks == 0)
            continue;
        x = json_object_new_object();
        json_object_object_add(x, "kind",
                               json_object_new_string(layout_traffic_name(k)));
        json_object_object_add(x, "ranks", json_object_new_int(t->ranks));
        json_object_object_add(x, "wire_bytes",
                               rpt_json_double(t->wire_bytes, RPT_JSON_FULL));
        json_object_object_add(
            x, "time_s", rpt_json_double(t->time_ns / 1e9, RPT_JSON_FULL));
        json_object_object_add(x, "link", json_object_new_string(t->link));
        json_object_array_add(tr, x);
    }
    json_object_object_add(o, "traffic_per_gpu_per_step", tr);
    return o;
}

static void job_json(json_object *o, const struct train_job *j,
                     const struct train_job_result *jr)
{
    json_object *t = json_object_new_object();

    json_object_object_add(o, "checkpoint_every_steps",
                           json_object_new_int64(j->ckpt_every_steps));
    json_object_object_add(o, "steps", json_object_new_int64(jr->steps));
    json_object_object_add(o, "steps_lost",
                           json_object_new_int64(jr->steps_lost));
    json_object_object_add(o, "checkpoints",
                           json_object_new_int64(jr->checkpoints));
    json_object_object_add(o, "checkpoints_skipped",
                           json_object_new_int64(jr->ckpt_skipped));
    json_object_object_add(o, "failures", json_object_new_int64(jr->failures));
    json_object_object_add(o, "useful_tokens",
                           rpt_json_double(jr->useful_tokens, RPT_JSON_FULL));
    json_object_object_add(
        o, "goodput_tokens_per_s",
        rpt_json_double(jr->goodput_tokens_per_s, RPT_JSON_FULL));
    json_object_object_add(
        o, "ideal_tokens_per_s",
        rpt_json_double(jr->ideal_tokens_per_s, RPT_JSON_FULL));
    json_object_object_add(o, "gpu_hours",
                           rpt_json_double(jr->gpu_hours, RPT_JSON_FULL));
    /* The kinds after paused came with recovery modes: left out while
     * zero, so that outputs without them stay as they were. */
    for (int k = 0; k < TRAIN_T_KINDS; k++)
        if (k < TRAIN_T_SNAPSHOT || jr->time_s[k] > 0)
            json_object_object_add(
                t, train_time_name(k),
                rpt_json_double(jr->time_s[k], RPT_JSON_FULL));
    json_object_object_add(o, "time_s", t);
}

/* The recovery block of a scenario's job (training.recovery given). */
static json_object *recovery_json(const struct train_job *j,
                                  const struct train_job_result *jr)
{
    json_object *o = json_object_new_object(), *l = json_object_new_object();

    json_object_object_add(
        o, "mode", json_object_new_string(train_recovery_name(j->recovery)));
    json_object_object_add(
        o, "fallback",
        json_object_new_string(train_recovery_name(j->fallback)));
    json_object_object_add(o, "spares", json_object_new_int(j->spares));
    json_object_object_add(o, "spares_used",
                           json_object_new_int64(jr->spares_used));
    json_object_object_add(o, "shrinks", json_object_new_int64(jr->shrinks));
    json_object_object_add(o, "restarts", json_object_new_int64(jr->restarts));
    json_object_object_add(o, "repair_s",
                           rpt_json_double(j->repair_s, RPT_JSON_FULL));
    json_object_object_add(o, "repairs", json_object_new_int64(jr->repairs));
    json_object_object_add(o, "replicas_final",
                           json_object_new_int(jr->dp_final));
    json_object_object_add(o, "detection_s",
                           rpt_json_double(j->detect_s, RPT_JSON_FULL));
    json_object_object_add(o, "in_memory_every_steps",
                           json_object_new_int64(j->mem_every_steps));
    json_object_object_add(o, "in_memory_block_s",
                           rpt_json_double(j->mem_every_steps > 0
                                               ? train_mem_ckpt_s(j, j->dp)
                                               : 0.0,
                                           RPT_JSON_FULL));
    json_object_object_add(o, "in_memory_checkpoints",
                           json_object_new_int64(jr->mem_checkpoints));
    json_object_object_add(
        o, "spare_transfer_s",
        rpt_json_double(train_spare_transfer_s(j, j->dp), RPT_JSON_FULL));
    json_object_object_add(
        o, "shrink_transfer_s",
        rpt_json_double(train_shrink_transfer_s(j, j->dp), RPT_JSON_FULL));
    for (int k = 0; k < TRAIN_L_KINDS; k++)
        json_object_object_add(l, train_lost_name(k),
                               rpt_json_double(jr->lost_s[k], RPT_JSON_FULL));
    json_object_object_add(o, "lost_s", l);
    json_object_object_add(o, "goodput_time",
                           rpt_json_double(jr->goodput_time, RPT_JSON_FULL));
    return o;
}

static void print_job(FILE *fp, const struct train_job *j,
                      const struct train_job_result *jr)
{
    double d = j->duration_s;

    fprintf(fp,
            "  %lld steps kept, %lld lost; %lld checkpoints, %lld failures; "
            "%.0f events\n",
            (long long)jr->steps, (long long)jr->steps_lost,
            (long long)jr->checkpoints, (long long)jr->failures,
            (double)jr->events);
    fprintf(fp,
            "  goodput %.0f tokens/s = %.1f%% of %.0f (no failures, no "
            "checkpoints)\n",
            jr->goodput_tokens_per_s,
            100.0 * jr->goodput_tokens_per_s / jr->ideal_tokens_per_s,
            jr->ideal_tokens_per_s);
    fprintf(fp, "  time          ");
    for (int k = 0; k < TRAIN_T_KINDS; k++)
        if (jr->time_s[k] > 0 || k == TRAIN_T_USEFUL)
            fprintf(fp, " %s %.2f%%", train_time_name(k),
                    100.0 * jr->time_s[k] / d);
    fprintf(fp, "\n");
}

/* ---- dsec train ---- */

static void print_sim(FILE *fp, const struct layout_setup *s,
                      const struct rpt_train_sim *m)
{
    const struct train_job *j = &m->job;
    double delta = j->ckpt_block_s;
    char b1[32];

    fprintf(fp,
            "\ncheckpoint: %s (14 B/param) to %s, %s write%s; "
            "%s blocking per checkpoint; load %.1f s, restart %.0f s\n",
            sim_fmt_bytes(b1, sizeof(b1), m->ckpt_bytes),
            train_ckpt_target_name(m->ckpt_target),
            sim_fmt_duration((char[32]){0}, 32,
                             (m->async ? j->ckpt_persist_s : delta) * 1e9,
                             SIM_DUR_FIXED),
            m->async ? " in the background" : "",
            sim_fmt_duration((char[32]){0}, 32, delta * 1e9, SIM_DUR_FIXED),
            j->load_s, j->restart_s);
    fprintf(fp,
            "failures: per-gpu MTBF %.0f h -> job MTBF %.2f h over %d "
            "gpus\n",
            m->gpu_mtbf_h, m->job_mtbf_s / 3600.0, s->gpus);
    fprintf(fp,
            "Young sqrt(2 delta M) = %.0f s (%.1f steps); Daly %.0f s "
            "(%.1f steps)\n",
            m->young_s, m->young_s / j->step_s, m->daly_s,
            m->daly_s / j->step_s);
    if (m->sweep) {
        fprintf(fp, "\n%10s %10s %12s %9s %9s %8s\n", "K steps", "interval s",
                "goodput t/s", "of ideal", "failures", "ckpts");
        for (int i = 0; i < m->nks; i++) {
            const struct rpt_train_k *x = &m->ks[i];

            fprintf(fp, "%10lld %10.0f %12.0f %8.2f%% %9lld %8lld\n",
                    (long long)x->k, (double)x->k * j->step_s,
                    x->goodput_tokens_per_s,
                    100.0 * x->goodput_tokens_per_s / x->ideal_tokens_per_s,
                    (long long)x->failures, (long long)x->checkpoints);
        }
        if (m->ok)
            fprintf(fp,
                    "simulated optimum K %lld (%.0f s); Young %.0f s, Daly "
                    "%.0f s\n",
                    (long long)m->best_k, (double)m->best_k * j->step_s,
                    m->young_s, m->daly_s);
        return;
    }
    if (!m->ok)
        return;
    fprintf(fp,
            "simulated %.1f h with a checkpoint every %lld steps (%.0f "
            "s), seed %llu:\n",
            j->duration_s / 3600.0, (long long)j->ckpt_every_steps,
            (double)j->ckpt_every_steps * j->step_s,
            (unsigned long long)m->seed);
    print_job(fp, j, &m->res);
}

void rpt_train_print(FILE *fp, const struct rpt_train *t)
{
    const struct layout_setup *s = t->setup;
    int nodes = (s->gpus + s->gpus_per_node - 1) / s->gpus_per_node;
    int best_fits = t->nranked > 0 && t->ranked[0].verdict == LAYOUT_FITS;

    fprintf(fp, "%s on %d x %s: %d node%s of %d, %s inside, %s x%d between\n",
            s->arch->name, s->gpus, s->gpu->name, nodes, nodes == 1 ? "" : "s",
            s->gpus_per_node, s->calib.intra.name, s->calib.inter.name,
            s->nics_per_node);
    fprintf(fp,
            "global batch %lld x %lld tokens (%.3gM), %s GEMMs, "
            "mixed-precision Adam, dp overlap %.2f\n",
            (long long)s->batch, (long long)s->seq_tokens,
            (double)s->batch * s->seq_tokens / 1048576.0,
            s->dtype == CL_DTYPE_FP8 ? "fp8" : "bf16", s->dp_overlap);
    fprintf(fp, "\n");
    if (t->ranked != NULL) {
        print_ranked(fp, t->ranked, t->nranked, t->top);
        if (best_fits)
            fprintf(fp, "\nbest: ");
    }
    if (t->ranked == NULL || best_fits)
        print_step(fp, s, t->step);
    if (t->sim != NULL)
        print_sim(fp, s, t->sim);
}

static void sim_json(json_object *root, const struct rpt_train_sim *m)
{
    const struct train_job *j = &m->job;
    json_object *y = json_object_new_object();

    json_object_object_add(y, "checkpoint_block_s",
                           rpt_json_double(j->ckpt_block_s, RPT_JSON_FULL));
    json_object_object_add(y, "checkpoint_persist_s",
                           rpt_json_double(j->ckpt_persist_s, RPT_JSON_FULL));
    json_object_object_add(y, "load_s",
                           rpt_json_double(j->load_s, RPT_JSON_FULL));
    json_object_object_add(y, "job_mtbf_s",
                           rpt_json_double(m->job_mtbf_s, RPT_JSON_FULL));
    json_object_object_add(y, "young_s",
                           rpt_json_double(m->young_s, RPT_JSON_FULL));
    json_object_object_add(y, "daly_s",
                           rpt_json_double(m->daly_s, RPT_JSON_FULL));
    json_object_object_add(
        y, "young_steps",
        rpt_json_double(m->young_s / j->step_s, RPT_JSON_FULL));
    json_object_object_add(root, "checkpoint_optimum", y);
    if (!m->ok)
        return;
    if (m->sweep) {
        json_object *arr = json_object_new_array();

        for (int i = 0; i < m->nks; i++) {
            const struct rpt_train_k *k = &m->ks[i];
            json_object *x = json_object_new_object();

            json_object_object_add(x, "k", json_object_new_int64(k->k));
            json_object_object_add(
                x, "interval_s",
                rpt_json_double((double)k->k * j->step_s, RPT_JSON_FULL));
            json_object_object_add(
                x, "goodput_tokens_per_s",
                rpt_json_double(k->goodput_tokens_per_s, RPT_JSON_FULL));
            json_object_object_add(x, "failures",
                                   json_object_new_int64(k->failures));
            json_object_array_add(arr, x);
        }
        json_object_object_add(root, "checkpoint_sweep", arr);
        json_object_object_add(root, "sweep_best_k",
                               json_object_new_int64(m->best_k));
    } else {
        json_object *x = json_object_new_object();

        job_json(x, j, &m->res);
        json_object_object_add(root, "simulation", x);
    }
}

struct json_object *rpt_train_json(const struct rpt_train *t)
{
    const struct layout_setup *s = t->setup;
    json_object *root = json_object_new_object();

    json_object_object_add(root, "model",
                           json_object_new_string(s->arch->name));
    json_object_object_add(root, "gpu", json_object_new_string(s->gpu->name));
    json_object_object_add(root, "gpus", json_object_new_int(s->gpus));
    json_object_object_add(root, "seq_tokens",
                           json_object_new_int64(s->seq_tokens));
    json_object_object_add(root, "global_batch_seqs",
                           json_object_new_int64(s->batch));
    json_object_object_add(
        root, "dtype",
        json_object_new_string(s->dtype == CL_DTYPE_FP8 ? "fp8" : "bf16"));
    json_object_object_add(root, "dp_overlap",
                           rpt_json_double(s->dp_overlap, RPT_JSON_FULL));
    json_object_object_add(root, "tp_overlap",
                           rpt_json_double(s->tp_overlap, RPT_JSON_FULL));
    json_object_object_add(root, "ep_overlap",
                           rpt_json_double(s->ep_overlap, RPT_JSON_FULL));
    if (t->ranked != NULL) {
        json_object *arr = json_object_new_array();

        for (int i = 0, shown = 0; i < t->nranked && shown < t->top; i++) {
            if (t->ranked[i].verdict != LAYOUT_FITS)
                continue;
            json_object_array_add(arr, step_json(s, &t->ranked[i]));
            shown++;
        }
        json_object_object_add(root, "layouts", arr);
    } else {
        json_object_object_add(root, "step", step_json(s, t->step));
    }
    if (t->sim != NULL)
        sim_json(root, t->sim);
    return root;
}

/* ---- a scenario's training section (dsec run) ---- */

static void print_recovery(FILE *fp, const struct train_job *j,
                           const struct train_job_result *jr)
{
    double lost = 0;

    fprintf(fp, "  recovery      %s", train_recovery_name(j->recovery));
    if (j->recovery == TRAIN_RECOVER_SPARE)
        fprintf(fp, " (%d spare nodes, %lld used; then %s)", j->spares,
                (long long)jr->spares_used, train_recovery_name(j->fallback));
    fprintf(fp,
            ": %lld spare, %lld shrink, %lld restart; %lld repaired; %d "
            "replicas at the end\n",
            (long long)jr->spares_used, (long long)jr->shrinks,
            (long long)jr->restarts, (long long)jr->repairs, jr->dp_final);
    if (j->recovery != TRAIN_RECOVER_RESTART)
        fprintf(fp,
                "                in-memory checkpoint every %lld steps, %.3f "
                "s blocked each; spare transfer %.3f s, reshard %.3f s\n",
                (long long)j->mem_every_steps, train_mem_ckpt_s(j, j->dp),
                train_spare_transfer_s(j, j->dp),
                train_shrink_transfer_s(j, j->dp));
    for (int k = 0; k < TRAIN_L_KINDS; k++)
        lost += jr->lost_s[k];
    fprintf(fp, "                lost to failures %.0f s:", lost);
    for (int k = 0; k < TRAIN_L_KINDS; k++)
        fprintf(fp, " %s %.1f", train_lost_name(k), jr->lost_s[k]);
    fprintf(fp, "; goodput %.2f%% of wall time useful\n",
            100.0 * jr->goodput_time);
}

void rpt_train_report_print(FILE *fp, const struct cl_training_report *t)
{
    const struct layout_result *r = &t->step;
    const struct train_job_result *jr = &t->res;
    char lay[64], b1[32];
    static const char *const ksrc[] = {"training.checkpoint.every_steps",
                                       "training.checkpoint.interval",
                                       "Young's optimum", "none"};

    layout_format(&r->l, LAYOUT_TRAINING, lay, sizeof(lay));
    fprintf(fp, "\ntraining        %s on %d x %s%s%s, %s, recompute %s\n",
            t->arch->name, t->setup.gpus, t->gpu->name,
            t->pool != NULL ? ", pool " : "", t->pool != NULL ? t->pool : "",
            lay, layout_recompute_name(r->l.recompute));
    fprintf(fp,
            "  step          %.3f s (bubble %.3f), %.0f tokens/s, MFU %.1f%%; "
            "memory %.1f of %.1f GB per gpu\n",
            r->step_ns / 1e9, r->bubble, r->tokens_per_s, 100.0 * r->mfu,
            r->total_bytes / 1e9, r->usable_bytes / 1e9);
    fprintf(fp,
            "  checkpoint    %s every %lld steps (%s; %.0f s), %s blocked "
            "each%s\n",
            sim_fmt_bytes(b1, sizeof(b1), t->ckpt_bytes),
            (long long)t->job.ckpt_every_steps, ksrc[t->k_source],
            (double)t->job.ckpt_every_steps * t->job.step_s,
            sim_fmt_duration((char[32]){0}, 32, t->job.ckpt_block_s * 1e9,
                             SIM_DUR_FIXED),
            t->job.ckpt_persist_s > 0 ? " (async)" : "");
    if (t->job_mtbf_s > 0)
        fprintf(fp,
                "  failures      job MTBF %.2f h; Young %.0f s, Daly %.0f s; "
                "restart %.0f s + load %.1f s\n",
                t->job_mtbf_s / 3600.0, t->young_s, t->daly_s, t->job.restart_s,
                t->job.load_s);
    fprintf(fp,
            "  simulated     %.1f h: %lld steps kept, %lld lost, %lld "
            "checkpoints (%lld skipped), %lld failures, %lld resizes\n",
            t->job.duration_s / 3600.0, (long long)jr->steps,
            (long long)jr->steps_lost, (long long)jr->checkpoints,
            (long long)jr->ckpt_skipped, (long long)jr->failures,
            (long long)jr->resizes);
    fprintf(fp,
            "  goodput       %.0f tokens/s = %.1f%% of %.0f; %.0f "
            "GPU-hours, %.1f replicas mean\n",
            jr->goodput_tokens_per_s,
            100.0 * jr->goodput_tokens_per_s / jr->ideal_tokens_per_s,
            jr->ideal_tokens_per_s, jr->gpu_hours, jr->replicas_mean);
    fprintf(fp, "  time          ");
    for (int k = 0; k < TRAIN_T_KINDS; k++)
        if (jr->time_s[k] > 0 || k == TRAIN_T_USEFUL)
            fprintf(fp, " %s %.2f%%", train_time_name(k),
                    100.0 * jr->time_s[k] / t->job.duration_s);
    fprintf(fp, "\n");
    if (t->recovery_report)
        print_recovery(fp, &t->job, jr);
    if (t->elastic) {
        fprintf(fp,
                "  elastic       pool %s of %d gpus, %d per replica (at "
                "least %d replicas fit): serving held %.1f GPU-hours of it "
                "($%.2f at $%.2f/GPU-h)\n",
                t->pool, t->pool_capacity, t->job.gpus_per_replica,
                t->job.min_dp > 0 ? t->job.min_dp : 1, t->lent_gpu_hours,
                t->lent_gpu_hours * t->price_usd_per_gpu_hour,
                t->price_usd_per_gpu_hour);
        fprintf(fp,
                "                training lost %.3g tokens (%.1f%% of its "
                "ideal) to lending\n",
                jr->capacity_tokens_lost,
                100.0 * jr->capacity_tokens_lost /
                    (jr->ideal_tokens_per_s * t->job.duration_s));
        if (!isnan(t->slo_without))
            fprintf(fp,
                    "                serving SLO attainment %.2f%% with the "
                    "pool vs %.2f%% without (p99 TTFT %.0f vs %.0f ms)\n",
                    100.0 * t->slo_with, 100.0 * t->slo_without,
                    t->p99_ttft_with_ms, t->p99_ttft_without_ms);
    }
}

struct json_object *rpt_train_report_json(const struct cl_training_report *t)
{
    json_object *o = json_object_new_object(), *x;
    static const char *const ksrc[] = {"every_steps", "interval", "young",
                                       "none"};

    json_object_object_add(o, "model", json_object_new_string(t->arch->name));
    json_object_object_add(o, "gpu", json_object_new_string(t->gpu->name));
    json_object_object_add(o, "gpus", json_object_new_int(t->setup.gpus));
    if (t->pool != NULL)
        json_object_object_add(o, "pool", json_object_new_string(t->pool));
    json_object_object_add(o, "step", step_json(&t->setup, &t->step));
    x = json_object_new_object();
    json_object_object_add(x, "bytes",
                           rpt_json_double(t->ckpt_bytes, RPT_JSON_FULL));
    json_object_object_add(x, "block_s",
                           rpt_json_double(t->job.ckpt_block_s, RPT_JSON_FULL));
    json_object_object_add(
        x, "persist_s", rpt_json_double(t->job.ckpt_persist_s, RPT_JSON_FULL));
    json_object_object_add(x, "every_steps_from",
                           json_object_new_string(ksrc[t->k_source]));
    json_object_object_add(x, "job_mtbf_s",
                           rpt_json_double(t->job_mtbf_s, RPT_JSON_FULL));
    json_object_object_add(x, "young_s",
                           rpt_json_double(t->young_s, RPT_JSON_FULL));
    json_object_object_add(x, "daly_s",
                           rpt_json_double(t->daly_s, RPT_JSON_FULL));
    json_object_object_add(o, "checkpoint", x);
    x = json_object_new_object();
    json_object_object_add(x, "duration_s",
                           rpt_json_double(t->job.duration_s, RPT_JSON_FULL));
    job_json(x, &t->job, &t->res);
    json_object_object_add(x, "resizes", json_object_new_int64(t->res.resizes));
    json_object_object_add(
        x, "replicas_mean",
        rpt_json_double(t->res.replicas_mean, RPT_JSON_FULL));
    json_object_object_add(
        x, "capacity_tokens_lost",
        rpt_json_double(t->res.capacity_tokens_lost, RPT_JSON_FULL));
    if (t->recovery_report)
        json_object_object_add(x, "recovery", recovery_json(&t->job, &t->res));
    json_object_object_add(o, "simulation", x);
    if (t->elastic) {
        json_object *e = json_object_new_object();

        json_object_object_add(e, "pool_capacity",
                               json_object_new_int(t->pool_capacity));
        json_object_object_add(
            e, "lent_gpu_hours",
            rpt_json_double(t->lent_gpu_hours, RPT_JSON_FULL));
        json_object_object_add(
            e, "min_replicas",
            json_object_new_int(t->job.min_dp > 0 ? t->job.min_dp : 1));
        json_object_object_add(
            e, "lent_cost_usd",
            rpt_json_double(t->lent_gpu_hours * t->price_usd_per_gpu_hour,
                            RPT_JSON_FULL));
        json_object_object_add(e, "slo_attainment_with",
                               rpt_json_double(t->slo_with, RPT_JSON_FULL));
        json_object_object_add(e, "slo_attainment_without",
                               rpt_json_double(t->slo_without, RPT_JSON_FULL));
        x = json_object_new_array();
        for (size_t i = 0; i < t->nseries; i++) {
            json_object *row = json_object_new_object();

            json_object_object_add(
                row, "t_s",
                rpt_json_double((double)i * t->interval_s, RPT_JSON_FULL));
            json_object_object_add(
                row, "serving_gpus",
                rpt_json_double(t->serving_gpus[i], RPT_JSON_FULL));
            json_object_object_add(
                row, "available_gpus",
                rpt_json_double(t->avail_gpus[i], RPT_JSON_FULL));
            json_object_object_add(
                row, "training_gpus",
                rpt_json_double(t->res.replicas_series != NULL
                                    ? t->res.replicas_series[i] *
                                          t->job.gpus_per_replica
                                    : 0.0,
                                RPT_JSON_FULL));
            json_object_array_add(x, row);
        }
        json_object_object_add(e, "series", x);
        json_object_object_add(o, "elastic", e);
    }
    return o;
}
