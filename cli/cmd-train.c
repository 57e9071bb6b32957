/* dsec train MODEL --gpu KIND --gpus N [--layout tp=8,pp=4,...] ...: the
 * optimizer step of a training job with its breakdown (compute, tensor,
 * expert and pipeline collectives, bubble, data-parallel collectives,
 * optimizer), tokens/s, MFU and memory per GPU (models/layout/), or the
 * best layouts ranked; with --simulate, the job over days with checkpoints
 * and failures and the Young/Daly interval (models/train/). Formulas and
 * sources: docs/training.md. */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/cluster/config.h"
#include "models/gpu/gpu.h"
#include "models/layout/layout.h"
#include "models/net/net.h"
#include "models/train/scenario.h"
#include "models/train/train.h"
#include "base/param.h"
#include "base/xalloc.h"

/* The options after parsing. */
struct opts {
    const char *gpu, *link, *layout;
    int gpus, nodes, nics, json, top, seq, dtype, async;
    int64_t batch_seqs, batch_tokens;
    struct train_knobs k;
    double overlap, tp_overlap, ep_overlap, eff;
    double simulate_s, mtbf_h, ckpt_bw, restart_s;
    int64_t ckpt_every;
    int ckpt_sweep, ckpt_target;
    uint64_t seed;
};

static const char *duration(char *buf, size_t len, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.1f us", ns / 1e3);
    return buf;
}

static int parse_pos(const char *s, int *out)
{
    uint64_t v;

    if (cli_parse_u64(s, &v) != 0 || v < 1 || v > 1u << 30)
        return -1;
    *out = (int)v;
    return 0;
}

/* A global batch: N sequences, or N with a k or M suffix (1,024 and
 * 1,048,576) or a "t" suffix for tokens ("16M", "4096t"). */
static int parse_batch(const char *s, int64_t *seqs, int64_t *tokens)
{
    char *end;
    double v = strtod(s, &end);
    double mult = 1.0;

    if (end == s || !(v > 0))
        return -1;
    if (*end == 'k' || *end == 'K')
        mult = 1024.0, end++;
    else if (*end == 'M')
        mult = 1048576.0, end++;
    if (mult > 1.0 || *end == 't') {
        if (*end == 't')
            end++;
        if (*end != '\0' || v * mult > 1e15 || v * mult < 1)
            return -1;
        *tokens = (int64_t)llround(v * mult);
        *seqs = 0;
        return 0;
    }
    if (*end != '\0' || v != floor(v) || v > 1e12)
        return -1;
    *seqs = (int64_t)v;
    *tokens = 0;
    return 0;
}

static int parse_recompute(const char *s)
{
    static const char *const names[] = {"none", "selective", "full", "auto"};

    for (int i = 0; i < 4; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

static void print_help(void)
{
    printf("usage: dsec train %s\n\n%s\n", cli_cmd_train.usage,
           cli_cmd_train.summary);
    printf("\nMODEL is a catalog name ('dsec help models') or a Hugging Face "
           "config.json\n(or its directory).\n\noptions:\n"
           "  --gpu KIND        GPU kind ('dsec help gpus'); required\n"
           "  --gpus N          GPUs of the job; required\n"
           "  --nodes M         nodes holding them (default: nodes of 8)\n"
           "  --nics N          NICs per node (default: one per GPU)\n"
           "  --link NAME       inter-node link (default ib-ndr)\n"
           "  --layout L        tp=T,pp=P[,dp=D][,ep=E][,v=V]; dp defaults to "
           "N/(T P);\n"
           "                    without it the best layouts are ranked\n"
           "  --zero Z          ZeRO stage 0-3 (default: 1 when dp > 1; every "
           "stage\n"
           "                    when ranking)\n"
           "  --recompute R     none, selective, full or auto (default auto: "
           "the least\n"
           "                    that fits)\n"
           "  --dtype D         GEMM dtype bf16 or fp8 (default bf16)\n"
           "  --seq L           sequence length in tokens (default 4096)\n"
           "  --global-batch B  sequences per step, or tokens with a t, k or "
           "M suffix\n"
           "                    (k = 1024, M = 1048576: 16M = 16,777,216 "
           "tokens);\n"
           "                    default 1024 sequences\n"
           "  --micro-batch S   sequences per micro-batch (default 1)\n"
           "  --schedule S      1f1b or interleaved (default 1f1b)\n"
           "  --chunks V        model chunks per GPU when interleaved "
           "(default 2)\n"
           "  --overlap F       fraction of the data-parallel collectives "
           "hidden behind\n"
           "                    the backward pass, 0-1 (default 0)\n"
           "  --tp-overlap F    fraction of the tp/sp collectives hidden "
           "behind compute\n"
           "                    (Megatron's --tp-comm-overlap), 0-1 (default "
           "0)\n"
           "  --ep-overlap F    fraction of the expert all-to-alls hidden "
           "behind compute\n"
           "                    (DeepSeek-V3's DualPipe), 0-1 (default 0)\n"
           "  --eff F           GEMM efficiency, 0-1 (default: the "
           "calibration's curve)\n"
           "  --top N           layouts shown when ranking (default 10)\n"
           "  --simulate T      also simulate the job for T (e.g. 3d, 72h) "
           "with\n"
           "                    checkpoints and failures\n"
           "  --mtbf H          per-GPU MTBF in hours (default 50000: FACTS.md "
           "§12.5's\n"
           "                    Llama 3 figure is ~5.8 GPU-years)\n"
           "  --checkpoint-every K  steps between checkpoints (default: "
           "Young's optimum)\n"
           "  --checkpoint-sweep    simulate a range of K around Young's and "
           "print\n"
           "                    goodput for each\n"
           "  --checkpoint-target T storage or peer_memory (default storage)\n"
           "  --checkpoint-bw B bandwidth, e.g. 100GB/s (default: storage 100 "
           "GB/s per\n"
           "                    1,024 GPUs; peer_memory the inter-node link "
           "per GPU)\n"
           "  --async           block only for the snapshot to host memory "
           "over PCIe\n"
           "  --restart S       seconds to reschedule and rebuild "
           "communicators after a\n"
           "                    failure, before loading (default 600)\n"
           "  --seed N          seed of the failure stream (default 1)\n"
           "  --json            print one JSON object instead of the text\n"
           "\nStep = m micro-batches of the slowest stage + bubble + exposed "
           "dp\ncollectives + optimizer. MFU counts 6 N_active + attention "
           "FLOPs per token\n(FACTS.md §12.1) at the dense bf16 peak. Memory "
           "in GB (1e9 B) on the\nfullest stage. Sources: docs/training.md.\n");
}

/* ---- one layout ---- */

static void print_step(const struct layout_setup *s,
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
    printf("layout %s, recompute %s%s, %d micro-batches of %lld sequence%s "
           "per dp rank, %s\n",
           lay, layout_recompute_name(r->l.recompute),
           r->l.seq_parallel == 1 && r->l.tp > 1 ? " + sequence parallel" : "",
           r->l.micro_batches,
           (long long)(s->batch / r->l.dp / r->l.micro_batches),
           s->batch / r->l.dp / r->l.micro_batches == 1 ? "" : "s",
           r->l.chunks > 1 ? "interleaved 1F1B" : "1F1B");
    if (r->verdict != LAYOUT_FITS) {
        printf("does not fit: %s\n", r->why);
        if (r->total_bytes > 0)
            printf("memory per gpu  weights %.1f, grads %.1f, optimizer "
                   "%.1f, activations %.1f = %.1f GB of %.1f usable\n",
                   r->weight_bytes / 1e9, r->grad_bytes / 1e9,
                   r->optim_bytes / 1e9, r->act_bytes / 1e9,
                   r->total_bytes / 1e9, r->usable_bytes / 1e9);
        return;
    }
    printf("\nstep            %s  (%.0f tokens/s, %.0f per gpu)\n",
           duration(b1, sizeof(b1), st), r->tokens_per_s,
           r->tokens_per_s / s->gpus);
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (parts[i].ns <= 0 && i != 0)
            continue;
        printf("  %-28s %12s %6.1f%%\n", parts[i].name,
               duration(b1, sizeof(b1), parts[i].ns), 100.0 * parts[i].ns / st);
    }
    if (r->hidden_ns > 0)
        printf("  (tp/ep collectives %s hidden behind compute by "
               "--tp-overlap/--ep-overlap)\n",
               duration(b1, sizeof(b1), r->hidden_ns));
    if (r->dp_ns > 0)
        printf("  (dp collectives %s in all, %.0f%% hidden by --overlap)\n",
               duration(b1, sizeof(b1), r->dp_ns),
               100.0 * (r->dp_ns - r->dp_exposed_ns) / r->dp_ns);
    printf("bubble fraction %.4f = (p - 1) / (%sm + p - 1), p %d, m %d\n",
           r->bubble, r->l.chunks > 1 ? "v " : "", r->l.pp, r->l.micro_batches);
    six_n = 6.0 * (double)arch_params_active(a) * (double)s->batch *
            (double)s->seq_tokens;
    printf("MFU             %.1f%% (6 N_active + attention per token, "
           "%.3g FLOP/step; bf16 peak %.0f TFLOP/s)\n",
           100.0 * r->mfu, r->model_flops, s->gpu->flops_bf16 / 1e12);
    printf("  6N only       %.1f%% (6 x %.4g params x %.4g tokens = %.3g "
           "FLOP/step)\n",
           100.0 * six_n / (st / 1e9 * s->gpus * s->gpu->flops_bf16),
           (double)arch_params_active(a), (double)s->batch * s->seq_tokens,
           six_n);
    printf("  HFU           %.1f%% (recomputation counted)\n", 100.0 * r->hfu);
    printf("  achieved      %.0f TFLOP/s per gpu (model FLOPs)\n",
           r->model_flops / (st / 1e9) / s->gpus / 1e12);
    printf("memory per gpu  weights %.1f, grads %.1f, optimizer %.1f, "
           "activations %.1f = %.1f GB of %.1f usable: fits\n",
           r->weight_bytes / 1e9, r->grad_bytes / 1e9, r->optim_bytes / 1e9,
           r->act_bytes / 1e9, r->total_bytes / 1e9, r->usable_bytes / 1e9);
    printf("traffic per gpu per step (first stage):\n");
    for (int k = 0; k < LAYOUT_TR_KINDS; k++) {
        const struct layout_traffic *t = &r->traffic[k];

        if (t->ranks == 0)
            continue;
        printf("  %-3s %4d ranks %9.0f calls %10s over %-8s %12s%s\n",
               layout_traffic_name(k), t->ranks, t->collectives,
               cli_human_bytes(b1, sizeof(b1), t->wire_bytes), t->link,
               duration((char[32]){0}, 32, t->time_ns),
               t->crosses_nodes ? " (crosses nodes)" : "");
    }
}

static void print_ranked(const struct layout_setup *s,
                         const struct layout_result *res, int n, int top)
{
    char lay[64];
    int shown = 0;

    printf("%-3s %-24s %-9s %7s %7s %6s %9s %10s %6s\n", "#", "layout",
           "recomp", "mem GB", "act GB", "bubble", "step s", "tok/s", "MFU");
    for (int i = 0; i < n && shown < top; i++) {
        const struct layout_result *r = &res[i];

        if (r->verdict != LAYOUT_FITS)
            continue;
        layout_format(&r->l, LAYOUT_TRAINING, lay, sizeof(lay));
        printf("%-3d %-24s %-9s %7.1f %7.1f %6.3f %9.3f %10.0f %5.1f%%\n",
               shown + 1, lay, layout_recompute_name(r->l.recompute),
               r->total_bytes / 1e9, r->act_bytes / 1e9, r->bubble,
               r->step_ns / 1e9, r->tokens_per_s, 100.0 * r->mfu);
        shown++;
    }
    if (shown == 0) {
        printf("no layout fits");
        if (n > 0)
            printf("; e.g. %s", res[0].why);
        printf("\n");
    }
    (void)s;
}

static json_object *jd(double v)
{
    return json_object_new_double(v);
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
    json_object_object_add(m, "weights_bytes", jd(r->weight_bytes));
    json_object_object_add(m, "grads_bytes", jd(r->grad_bytes));
    json_object_object_add(m, "optimizer_bytes", jd(r->optim_bytes));
    json_object_object_add(m, "activations_bytes", jd(r->act_bytes));
    json_object_object_add(m, "total_bytes", jd(r->total_bytes));
    json_object_object_add(m, "usable_bytes", jd(r->usable_bytes));
    json_object_object_add(o, "memory_per_gpu", m);
    if (r->verdict != LAYOUT_FITS)
        return o;
    json_object_object_add(o, "step_s", jd(r->step_ns / 1e9));
    b = json_object_new_object();
    json_object_object_add(b, "fwd_bwd_s", jd(r->fwd_bwd_ns / 1e9));
    json_object_object_add(b, "elementwise_s", jd(r->elem_ns / 1e9));
    json_object_object_add(b, "tp_s", jd(r->tp_ns / 1e9));
    json_object_object_add(b, "ep_s", jd(r->ep_ns / 1e9));
    json_object_object_add(b, "pp_s", jd(r->pp_ns / 1e9));
    json_object_object_add(b, "bubble_s", jd(r->bubble_ns / 1e9));
    json_object_object_add(b, "dp_s", jd(r->dp_ns / 1e9));
    json_object_object_add(b, "hidden_s", jd(r->hidden_ns / 1e9));
    json_object_object_add(b, "dp_exposed_s", jd(r->dp_exposed_ns / 1e9));
    json_object_object_add(b, "optimizer_s", jd(r->optim_ns / 1e9));
    json_object_object_add(o, "breakdown", b);
    json_object_object_add(o, "bubble", jd(r->bubble));
    json_object_object_add(o, "tokens_per_s", jd(r->tokens_per_s));
    json_object_object_add(o, "model_flops_per_step", jd(r->model_flops));
    json_object_object_add(o, "mfu", jd(r->mfu));
    json_object_object_add(o, "hfu", jd(r->hfu));
    json_object_object_add(
        o, "mfu_6n",
        jd(6.0 * (double)arch_params_active(s->arch) * (double)s->batch *
           (double)s->seq_tokens /
           (r->step_ns / 1e9 * s->gpus * s->gpu->flops_bf16)));
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
        json_object_object_add(x, "wire_bytes", jd(t->wire_bytes));
        json_object_object_add(x, "time_s", jd(t->time_ns / 1e9));
        json_object_object_add(x, "link", json_object_new_string(t->link));
        json_object_array_add(tr, x);
    }
    json_object_object_add(o, "traffic_per_gpu_per_step", tr);
    return o;
}

/* ---- the job simulation ---- */

/* Fills j from the evaluated layout r and the options; *delta_s gets the
 * blocking checkpoint cost and *mtbf_job_s the job's MTBF. */
static void job_from(const struct layout_setup *s,
                     const struct layout_result *r, const struct opts *o,
                     struct train_job *j, double *delta_s, double *mtbf_job_s)
{
    double bytes = train_ckpt_bytes((double)arch_params_total(s->arch));
    double bw = o->ckpt_bw > 0
                    ? o->ckpt_bw
                    : train_ckpt_bandwidth(o->ckpt_target, s->gpus,
                                           s->calib.inter.bytes_per_s);
    double write_s = train_ckpt_seconds(o->ckpt_target, bytes, s->gpus, bw);

    memset(j, 0, sizeof(*j));
    j->step_s = r->step_ns / 1e9;
    j->tokens_per_step = (double)s->batch * (double)s->seq_tokens;
    j->dp = r->l.dp;
    j->gpus_per_replica = r->l.tp * r->l.pp;
    j->gpu_mtbf_s = o->mtbf_h * 3600.0;
    j->restart_s = o->restart_s;
    j->load_s = write_s;
    j->duration_s = o->simulate_s;
    if (o->async) {
        /* The snapshot: each GPU's shard to host memory over PCIe. */
        j->ckpt_block_s = bytes / s->gpus / s->gpu->pcie_bytes_per_s;
        j->ckpt_persist_s = write_s;
    } else {
        j->ckpt_block_s = write_s;
    }
    *delta_s = j->ckpt_block_s;
    *mtbf_job_s = j->gpu_mtbf_s / s->gpus;
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
    json_object_object_add(o, "useful_tokens", jd(jr->useful_tokens));
    json_object_object_add(o, "goodput_tokens_per_s",
                           jd(jr->goodput_tokens_per_s));
    json_object_object_add(o, "ideal_tokens_per_s", jd(jr->ideal_tokens_per_s));
    json_object_object_add(o, "gpu_hours", jd(jr->gpu_hours));
    for (int k = 0; k < TRAIN_T_KINDS; k++)
        json_object_object_add(t, train_time_name(k), jd(jr->time_s[k]));
    json_object_object_add(o, "time_s", t);
}

static void print_job(const struct train_job *j,
                      const struct train_job_result *jr)
{
    double d = j->duration_s;

    printf("  %lld steps kept, %lld lost; %lld checkpoints, %lld failures; "
           "%.0f events\n",
           (long long)jr->steps, (long long)jr->steps_lost,
           (long long)jr->checkpoints, (long long)jr->failures,
           (double)jr->events);
    printf("  goodput %.0f tokens/s = %.1f%% of %.0f (no failures, no "
           "checkpoints)\n",
           jr->goodput_tokens_per_s,
           100.0 * jr->goodput_tokens_per_s / jr->ideal_tokens_per_s,
           jr->ideal_tokens_per_s);
    printf("  time          ");
    for (int k = 0; k < TRAIN_T_KINDS; k++)
        if (jr->time_s[k] > 0 || k == TRAIN_T_USEFUL)
            printf(" %s %.2f%%", train_time_name(k), 100.0 * jr->time_s[k] / d);
    printf("\n");
}

static int simulate(const struct layout_setup *s, const struct layout_result *r,
                    const struct opts *o, json_object *root)
{
    struct train_job j;
    struct train_job_result jr;
    double delta, mtbf, young, daly;

    job_from(s, r, o, &j, &delta, &mtbf);
    young = train_young_s(delta, mtbf);
    daly = train_daly_s(delta, mtbf);
    j.ckpt_every_steps = o->ckpt_every > 0 ? o->ckpt_every
                         : young > 0
                             ? (int64_t)fmax(1.0, llround(young / j.step_s))
                             : 0;
    if (root == NULL) {
        char b1[32];

        printf("\ncheckpoint: %s (14 B/param) to %s, %s write%s; "
               "%s blocking per checkpoint; load %.1f s, restart %.0f s\n",
               cli_human_bytes(
                   b1, sizeof(b1),
                   train_ckpt_bytes((double)arch_params_total(s->arch))),
               train_ckpt_target_name(o->ckpt_target),
               duration((char[32]){0}, 32,
                        (o->async ? j.ckpt_persist_s : delta) * 1e9),
               o->async ? " in the background" : "",
               duration((char[32]){0}, 32, delta * 1e9), j.load_s, j.restart_s);
        printf("failures: per-gpu MTBF %.0f h -> job MTBF %.2f h over %d "
               "gpus\n",
               o->mtbf_h, mtbf / 3600.0, s->gpus);
        printf("Young sqrt(2 delta M) = %.0f s (%.1f steps); Daly %.0f s "
               "(%.1f steps)\n",
               young, young / j.step_s, daly, daly / j.step_s);
    } else {
        json_object *y = json_object_new_object();

        json_object_object_add(y, "checkpoint_block_s", jd(delta));
        json_object_object_add(y, "checkpoint_persist_s", jd(j.ckpt_persist_s));
        json_object_object_add(y, "load_s", jd(j.load_s));
        json_object_object_add(y, "job_mtbf_s", jd(mtbf));
        json_object_object_add(y, "young_s", jd(young));
        json_object_object_add(y, "daly_s", jd(daly));
        json_object_object_add(y, "young_steps", jd(young / j.step_s));
        json_object_object_add(root, "checkpoint_optimum", y);
    }
    if (o->ckpt_sweep) {
        /* K over a geometric grid from Young's / 8 to x 8, 4 per octave. */
        double k0 = young > 0 ? young / j.step_s : 16.0;
        double best_g = -1.0;
        int64_t best_k = 0, prev = -1;
        json_object *arr = root != NULL ? json_object_new_array() : NULL;

        if (root == NULL)
            printf("\n%10s %10s %12s %9s %9s %8s\n", "K steps", "interval s",
                   "goodput t/s", "of ideal", "failures", "ckpts");
        for (int i = -12; i <= 12; i++) {
            int64_t k = (int64_t)llround(k0 * pow(2.0, i / 4.0));

            if (k < 1)
                k = 1;
            if (k == prev)
                continue;
            prev = k;
            j.ckpt_every_steps = k;
            if (train_job_run(&j, o->seed, &jr) != 0)
                return -1;
            if (jr.goodput_tokens_per_s > best_g) {
                best_g = jr.goodput_tokens_per_s;
                best_k = k;
            }
            if (arr != NULL) {
                json_object *x = json_object_new_object();

                json_object_object_add(x, "k", json_object_new_int64(k));
                json_object_object_add(x, "interval_s",
                                       jd((double)k * j.step_s));
                json_object_object_add(x, "goodput_tokens_per_s",
                                       jd(jr.goodput_tokens_per_s));
                json_object_object_add(x, "failures",
                                       json_object_new_int64(jr.failures));
                json_object_array_add(arr, x);
            } else {
                printf("%10lld %10.0f %12.0f %8.2f%% %9lld %8lld\n",
                       (long long)k, (double)k * j.step_s,
                       jr.goodput_tokens_per_s,
                       100.0 * jr.goodput_tokens_per_s / jr.ideal_tokens_per_s,
                       (long long)jr.failures, (long long)jr.checkpoints);
            }
            train_job_result_fini(&jr);
        }
        if (arr != NULL) {
            json_object_object_add(root, "checkpoint_sweep", arr);
            json_object_object_add(root, "sweep_best_k",
                                   json_object_new_int64(best_k));
        } else {
            printf("simulated optimum K %lld (%.0f s); Young %.0f s, Daly "
                   "%.0f s\n",
                   (long long)best_k, (double)best_k * j.step_s, young, daly);
        }
        return 0;
    }
    if (train_job_run(&j, o->seed, &jr) != 0)
        return -1;
    if (root == NULL) {
        printf("simulated %.1f h with a checkpoint every %lld steps (%.0f "
               "s), seed %llu:\n",
               j.duration_s / 3600.0, (long long)j.ckpt_every_steps,
               (double)j.ckpt_every_steps * j.step_s,
               (unsigned long long)o->seed);
        print_job(&j, &jr);
    } else {
        json_object *x = json_object_new_object();

        job_json(x, &j, &jr);
        json_object_object_add(root, "simulation", x);
    }
    train_job_result_fini(&jr);
    return 0;
}

/* ---- main ---- */

static int usage(const char *why)
{
    return cli_usage_error(&cli_cmd_train, why);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"gpus", required_argument, NULL, 'n'},
        {"nodes", required_argument, NULL, 'N'},
        {"nics", required_argument, NULL, 'I'},
        {"link", required_argument, NULL, 'l'},
        {"layout", required_argument, NULL, 'L'},
        {"zero", required_argument, NULL, 'z'},
        {"recompute", required_argument, NULL, 'r'},
        {"dtype", required_argument, NULL, 'd'},
        {"seq", required_argument, NULL, 's'},
        {"global-batch", required_argument, NULL, 'b'},
        {"micro-batch", required_argument, NULL, 'm'},
        {"schedule", required_argument, NULL, 'S'},
        {"chunks", required_argument, NULL, 'v'},
        {"overlap", required_argument, NULL, 'o'},
        {"tp-overlap", required_argument, NULL, 'P'},
        {"ep-overlap", required_argument, NULL, 'E'},
        {"eff", required_argument, NULL, 'e'},
        {"top", required_argument, NULL, 't'},
        {"simulate", required_argument, NULL, 'T'},
        {"mtbf", required_argument, NULL, 'M'},
        {"checkpoint-every", required_argument, NULL, 'K'},
        {"checkpoint-sweep", no_argument, NULL, 'W'},
        {"checkpoint-target", required_argument, NULL, 'C'},
        {"checkpoint-bw", required_argument, NULL, 'B'},
        {"async", no_argument, NULL, 'A'},
        {"restart", required_argument, NULL, 'R'},
        {"seed", required_argument, NULL, 'x'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, interleaved = -1, chunks = 0;
    char err[SIM_PARAM_ERRLEN];
    uint64_t v;
    double d;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'g':
            o->gpu = optarg;
            break;
        case 'n':
            if (parse_pos(optarg, &o->gpus) != 0)
                return usage("--gpus: expected a positive integer");
            break;
        case 'N':
            if (parse_pos(optarg, &o->nodes) != 0)
                return usage("--nodes: expected a positive integer");
            break;
        case 'I':
            if (parse_pos(optarg, &o->nics) != 0)
                return usage("--nics: expected a positive integer");
            break;
        case 'l':
            o->link = optarg;
            break;
        case 'L':
            o->layout = optarg;
            break;
        case 'z':
            if (cli_parse_u64(optarg, &v) != 0 || v > 3)
                return usage("--zero: expected 0, 1, 2 or 3");
            o->k.zero = (int)v;
            break;
        case 'r':
            o->k.recompute = parse_recompute(optarg);
            if (o->k.recompute < 0)
                return usage("--recompute: expected none, selective, full or "
                             "auto");
            break;
        case 'd':
            if (strcasecmp(optarg, "bf16") == 0)
                o->dtype = CL_DTYPE_BF16;
            else if (strcasecmp(optarg, "fp8") == 0)
                o->dtype = CL_DTYPE_FP8;
            else
                return usage("--dtype: expected bf16 or fp8");
            break;
        case 's':
            if (parse_pos(optarg, &o->seq) != 0)
                return usage("--seq: expected a positive integer");
            break;
        case 'b':
            if (parse_batch(optarg, &o->batch_seqs, &o->batch_tokens) != 0)
                return usage("--global-batch: expected sequences (2048) or "
                             "tokens (16M, 4096t)");
            break;
        case 'm':
            if (parse_pos(optarg, &o->k.micro_batch) != 0)
                return usage("--micro-batch: expected a positive integer");
            break;
        case 'S':
            if (strcasecmp(optarg, "1f1b") == 0)
                interleaved = 0;
            else if (strcasecmp(optarg, "interleaved") == 0)
                interleaved = 1;
            else
                return usage("--schedule: expected 1f1b or interleaved");
            break;
        case 'v':
            if (parse_pos(optarg, &chunks) != 0 || chunks < 2)
                return usage("--chunks: expected an integer >= 2");
            break;
        case 'o':
        case 'P':
        case 'E':
        case 'e':
            if (sim_unit_parse(SIM_U_FRACTION, optarg, &d, err, sizeof(err)) !=
                    0 ||
                d < 0 || d > 1 || (opt == 'e' && d == 0))
                return usage(opt == 'e' ? "--eff: expected a fraction in "
                                          "(0, 1]"
                                        : "--overlap, --tp-overlap and "
                                          "--ep-overlap: expected a "
                                          "fraction in [0, 1]");
            if (opt == 'o')
                o->overlap = d;
            else if (opt == 'P')
                o->tp_overlap = d;
            else if (opt == 'E')
                o->ep_overlap = d;
            else
                o->eff = d;
            break;
        case 't':
            if (parse_pos(optarg, &o->top) != 0)
                return usage("--top: expected a positive integer");
            break;
        case 'T':
            if (sim_unit_parse(SIM_U_SECONDS, optarg, &d, err, sizeof(err)) !=
                    0 ||
                !(d > 0) || d > 3.2e7)
                return usage("--simulate: expected a duration up to a year "
                             "(e.g. 3d, 72h)");
            o->simulate_s = d;
            break;
        case 'M':
            d = strtod(optarg, NULL);
            if (!(d > 0) || d > 1e9)
                return usage("--mtbf: expected hours > 0");
            o->mtbf_h = d;
            break;
        case 'K':
            if (cli_parse_u64(optarg, &v) != 0 || v < 1 || v > 1u << 30)
                return usage("--checkpoint-every: expected a positive "
                             "integer");
            o->ckpt_every = (int64_t)v;
            break;
        case 'W':
            o->ckpt_sweep = 1;
            break;
        case 'C':
            if (strcmp(optarg, "storage") == 0)
                o->ckpt_target = TRAIN_CKPT_STORAGE;
            else if (strcmp(optarg, "peer_memory") == 0)
                o->ckpt_target = TRAIN_CKPT_PEER_MEMORY;
            else
                return usage("--checkpoint-target: expected storage or "
                             "peer_memory");
            break;
        case 'B':
            if (sim_unit_parse(SIM_U_BYTES_PER_S, optarg, &d, err,
                               sizeof(err)) != 0 ||
                !(d > 0))
                return usage("--checkpoint-bw: expected a bandwidth (e.g. "
                             "100GB/s)");
            o->ckpt_bw = d;
            break;
        case 'A':
            o->async = 1;
            break;
        case 'R':
            if (sim_unit_parse(SIM_U_SECONDS, optarg, &d, err, sizeof(err)) !=
                    0 ||
                d < 0)
                return usage("--restart: expected a duration (e.g. 600s)");
            o->restart_s = d;
            break;
        case 'x':
            if (cli_parse_u64(optarg, &o->seed) != 0)
                return usage("--seed: expected a non-negative integer");
            break;
        case 'j':
            o->json = 1;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return usage(NULL);
        }
    }
    if (optind != argc - 1)
        return usage("expected one MODEL");
    if (o->gpu == NULL || o->gpus == 0)
        return usage("--gpu and --gpus are required");
    if (chunks > 0 && interleaved == 0)
        return usage("--chunks needs --schedule interleaved");
    if (interleaved == 1)
        o->k.chunks = chunks > 0 ? chunks : 2;
    if (o->simulate_s <= 0 &&
        (o->ckpt_every > 0 || o->ckpt_sweep || o->async || o->ckpt_bw > 0))
        return usage("the checkpoint options need --simulate");
    return 0;
}

static int exec_train(int argc, char **argv)
{
    struct opts o = {
        .top = 10,
        .dtype = CL_DTYPE_BF16,
        .k = {.zero = -1,
              .recompute = LAYOUT_RECOMPUTE_AUTO,
              .micro_batch = 1,
              .chunks = 1},
        .mtbf_h = 50000.0,
        .restart_s = 600.0,
        .seed = 1,
        .ckpt_target = TRAIN_CKPT_STORAGE,
    };
    const struct arch_spec *a;
    const struct gpu_spec *g;
    struct arch_spec *loaded = NULL;
    struct layout_setup s;
    struct layout_result r, *res = NULL;
    json_object *root = NULL;
    int rc, n = 0, status = CLI_EXIT_OK;
    char *names;

    memset(&r, 0, sizeof(r));
    rc = parse_args(argc, argv, &o);
    if (rc == -1)
        return CLI_EXIT_OK;
    if (rc != 0)
        return rc;
    g = gpu_find(o.gpu);
    if (g == NULL) {
        names = gpu_names();
        fprintf(stderr, "dsec train: unknown gpu '%s'; valid: %s\n", o.gpu,
                names);
        free(names);
        return CLI_EXIT_INPUT;
    }
    if (o.dtype == CL_DTYPE_FP8 && !(g->flops_fp8 > 0))
        fprintf(stderr,
                "dsec train: note: %s has no fp8 peak; fp8 GEMMs "
                "run at the bf16 peak\n",
                g->name);
    a = cli_resolve_model("train", argv[optind], &loaded);
    if (a == NULL)
        return CLI_EXIT_INPUT;
    layout_setup_init(&s, a, g, o.gpus, LAYOUT_TRAINING);
    if (o.nodes > 0) {
        if (o.gpus % o.nodes != 0) {
            fprintf(stderr,
                    "dsec train: %d gpus do not split evenly over %d nodes\n",
                    o.gpus, o.nodes);
            status = CLI_EXIT_INPUT;
            goto out;
        }
        s.gpus_per_node = o.gpus / o.nodes;
    } else if (o.gpus > s.gpus_per_node && o.gpus % s.gpus_per_node != 0) {
        fprintf(stderr,
                "dsec train: %d gpus do not fill nodes of %d; give --nodes\n",
                o.gpus, s.gpus_per_node);
        status = CLI_EXIT_INPUT;
        goto out;
    }
    s.nics_per_node = o.nics > 0 ? o.nics : s.gpus_per_node;
    if (o.link != NULL) {
        const struct net_link *li = net_link_find(o.link);

        if (li == NULL) {
            names = net_link_names();
            fprintf(stderr, "dsec train: unknown link '%s'; valid: %s\n",
                    o.link, names);
            free(names);
            status = CLI_EXIT_INPUT;
            goto out;
        }
        s.calib.inter = *li;
    }
    s.dtype = o.dtype;
    s.dp_overlap = o.overlap;
    s.zero3_regather = 1;
    s.tp_overlap = o.tp_overlap;
    s.ep_overlap = o.ep_overlap;
    s.eff_compute = o.eff;
    if (o.seq > 0)
        s.seq_tokens = o.seq;
    if (o.batch_seqs > 0)
        s.batch = o.batch_seqs;
    else if (o.batch_tokens > 0) {
        if (o.batch_tokens % s.seq_tokens != 0) {
            fprintf(stderr,
                    "dsec train: --global-batch %lld tokens is not a whole "
                    "number of %lld-token sequences\n",
                    (long long)o.batch_tokens, (long long)s.seq_tokens);
            status = CLI_EXIT_INPUT;
            goto out;
        }
        s.batch = o.batch_tokens / s.seq_tokens;
    }

    if (o.layout != NULL) {
        struct layout l = {.ep = 1};
        char err[160];

        if (train_layout_parse(o.layout, o.gpus, &l, err, sizeof(err)) != 0) {
            fprintf(stderr, "dsec train: --layout '%s': %s\n", o.layout, err);
            status = CLI_EXIT_INPUT;
            goto out;
        }
        if (l.chunks > 1)
            o.k.chunks = l.chunks;
        if (o.k.chunks > 1 && l.pp < 2) {
            fprintf(stderr, "dsec train: interleaving needs pp >= 2\n");
            status = CLI_EXIT_INPUT;
            goto out;
        }
        if (o.k.zero > 0 && l.dp == 1) {
            fprintf(stderr,
                    "dsec train: --zero %d shards over dp, which is "
                    "1\n",
                    o.k.zero);
            status = CLI_EXIT_INPUT;
            goto out;
        }
        rc = train_eval(&s, &o.k, &l, &r);
        if (rc != 0) {
            fprintf(stderr, "dsec train: --layout '%s': %s\n", o.layout, r.why);
            status = CLI_EXIT_INPUT;
            goto out;
        }
    } else {
        rc = train_enumerate(&s, &o.k, &res, &n);
        if (rc != 0) {
            fprintf(stderr, "dsec train: cannot enumerate layouts\n");
            status = CLI_EXIT_INPUT;
            goto out;
        }
        r = n > 0 ? res[0] : r;
    }
    if (o.json) {
        root = json_object_new_object();
        json_object_object_add(root, "model", json_object_new_string(a->name));
        json_object_object_add(root, "gpu", json_object_new_string(g->name));
        json_object_object_add(root, "gpus", json_object_new_int(o.gpus));
        json_object_object_add(root, "seq_tokens",
                               json_object_new_int64(s.seq_tokens));
        json_object_object_add(root, "global_batch_seqs",
                               json_object_new_int64(s.batch));
        json_object_object_add(
            root, "dtype",
            json_object_new_string(o.dtype == CL_DTYPE_FP8 ? "fp8" : "bf16"));
        json_object_object_add(root, "dp_overlap", jd(s.dp_overlap));
        json_object_object_add(root, "tp_overlap", jd(s.tp_overlap));
        json_object_object_add(root, "ep_overlap", jd(s.ep_overlap));
        if (res != NULL) {
            json_object *arr = json_object_new_array();

            for (int i = 0, shown = 0; i < n && shown < o.top; i++) {
                if (res[i].verdict != LAYOUT_FITS)
                    continue;
                json_object_array_add(arr, step_json(&s, &res[i]));
                shown++;
            }
            json_object_object_add(root, "layouts", arr);
        } else {
            json_object_object_add(root, "step", step_json(&s, &r));
        }
    } else {
        int nodes = (o.gpus + s.gpus_per_node - 1) / s.gpus_per_node;

        printf("%s on %d x %s: %d node%s of %d, %s inside, %s x%d between\n",
               a->name, o.gpus, g->name, nodes, nodes == 1 ? "" : "s",
               s.gpus_per_node, s.calib.intra.name, s.calib.inter.name,
               s.nics_per_node);
        printf("global batch %lld x %lld tokens (%.3gM), %s GEMMs, "
               "mixed-precision Adam, dp overlap %.2f\n",
               (long long)s.batch, (long long)s.seq_tokens,
               (double)s.batch * s.seq_tokens / 1048576.0,
               o.dtype == CL_DTYPE_FP8 ? "fp8" : "bf16", s.dp_overlap);
        if (res != NULL) {
            printf("\n");
            print_ranked(&s, res, n, o.top);
            if (n > 0 && res[0].verdict == LAYOUT_FITS)
                printf("\nbest: ");
        } else {
            printf("\n");
        }
        if (res == NULL || (n > 0 && res[0].verdict == LAYOUT_FITS))
            print_step(&s, &r);
    }
    if (r.verdict != LAYOUT_FITS) {
        if (o.layout != NULL || n == 0)
            status = CLI_EXIT_INPUT;
        else if (res[0].verdict != LAYOUT_FITS)
            status = CLI_EXIT_INPUT;
    }
    if (status == CLI_EXIT_OK && o.simulate_s > 0 &&
        simulate(&s, &r, &o, root) != 0) {
        fprintf(stderr, "dsec train: the job cannot be simulated\n");
        status = CLI_EXIT_INPUT;
    }
    if (root != NULL) {
        printf("%s\n",
               json_object_to_json_string_ext(
                   root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                             JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    }
out:
    free(res);
    arch_hf_free(loaded);
    return status;
}

const struct cli_entry cli_cmd_train = {
    .name = "train",
    .usage = "MODEL --gpu KIND --gpus N [--layout tp=T,pp=P[,dp=D,ep=E,v=V]] "
             "[--zero 0-3] [--recompute none|selective|full|auto] "
             "[--dtype bf16|fp8] [--seq L] [--global-batch B] "
             "[--micro-batch S] [--schedule 1f1b|interleaved] [--chunks V] "
             "[--overlap F] [--simulate T [--mtbf H] [--checkpoint-every K "
             "| --checkpoint-sweep] ...] [--json] [--top N]",
    .summary = "training step time, MFU and memory of a layout (or the best "
               "ranked); checkpoints and failures",
    .exec = exec_train,
};

/* ---- a scenario's training section (dsec run) ---- */

void cli_train_report_print(FILE *fp, const struct train_report *t)
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
            cli_human_bytes(b1, sizeof(b1), t->ckpt_bytes),
            (long long)t->job.ckpt_every_steps, ksrc[t->k_source],
            (double)t->job.ckpt_every_steps * t->job.step_s,
            duration((char[32]){0}, 32, t->job.ckpt_block_s * 1e9),
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

struct json_object *cli_train_report_json(const struct train_report *t)
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
    json_object_object_add(x, "bytes", jd(t->ckpt_bytes));
    json_object_object_add(x, "block_s", jd(t->job.ckpt_block_s));
    json_object_object_add(x, "persist_s", jd(t->job.ckpt_persist_s));
    json_object_object_add(x, "every_steps_from",
                           json_object_new_string(ksrc[t->k_source]));
    json_object_object_add(x, "job_mtbf_s", jd(t->job_mtbf_s));
    json_object_object_add(x, "young_s", jd(t->young_s));
    json_object_object_add(x, "daly_s", jd(t->daly_s));
    json_object_object_add(o, "checkpoint", x);
    x = json_object_new_object();
    json_object_object_add(x, "duration_s", jd(t->job.duration_s));
    job_json(x, &t->job, &t->res);
    json_object_object_add(x, "resizes", json_object_new_int64(t->res.resizes));
    json_object_object_add(x, "replicas_mean", jd(t->res.replicas_mean));
    json_object_object_add(x, "capacity_tokens_lost",
                           jd(t->res.capacity_tokens_lost));
    json_object_object_add(o, "simulation", x);
    if (t->elastic) {
        json_object *e = json_object_new_object();

        json_object_object_add(e, "pool_capacity",
                               json_object_new_int(t->pool_capacity));
        json_object_object_add(e, "lent_gpu_hours", jd(t->lent_gpu_hours));
        json_object_object_add(
            e, "min_replicas",
            json_object_new_int(t->job.min_dp > 0 ? t->job.min_dp : 1));
        json_object_object_add(
            e, "lent_cost_usd",
            jd(t->lent_gpu_hours * t->price_usd_per_gpu_hour));
        json_object_object_add(e, "slo_attainment_with",
                               isnan(t->slo_with) ? NULL : jd(t->slo_with));
        json_object_object_add(e, "slo_attainment_without",
                               isnan(t->slo_without) ? NULL
                                                     : jd(t->slo_without));
        x = json_object_new_array();
        for (size_t i = 0; i < t->nseries; i++) {
            json_object *row = json_object_new_object();

            json_object_object_add(row, "t_s", jd((double)i * t->interval_s));
            json_object_object_add(row, "serving_gpus", jd(t->serving_gpus[i]));
            json_object_object_add(row, "available_gpus", jd(t->avail_gpus[i]));
            json_object_object_add(
                row, "training_gpus",
                jd(t->res.replicas_series != NULL
                       ? t->res.replicas_series[i] * t->job.gpus_per_replica
                       : 0.0));
            json_object_array_add(x, row);
        }
        json_object_object_add(e, "series", x);
        json_object_object_add(o, "elastic", e);
    }
    return o;
}
