/* dsec train MODEL --gpu KIND --gpus N [--layout tp=8,pp=4,...] ...: the
 * optimizer step of a training job with its breakdown (compute, tensor,
 * expert and pipeline collectives, bubble, data-parallel collectives,
 * optimizer), tokens/s, MFU and memory per GPU (models/layout/), or the
 * best layouts ranked; with --simulate, the job over days with checkpoints
 * and failures and the Young/Daly interval (models/train/). Formulas and
 * sources: docs/training.md. Parse (parse_args), run (evaluate, simulate),
 * print (reports/train-report.h). */
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
#include "models/train/train.h"
#include "reports/fmt.h"
#include "reports/train-report.h"
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
           "  --mtbf H          per-GPU MTBF in hours (default 50000: "
           "docs/sources.md "
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
           "FLOPs per token\n(docs/sources.md §12.1) at the dense bf16 peak. "
           "Memory "
           "in GB (1e9 B) on the\nfullest stage. Sources: docs/training.md.\n");
}

/* ---- parse ---- */

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
            if (cli_parse_seed(optarg, &o->seed) != 0)
                return usage("--seed: expected an integer from 0 to "
                             "9223372036854775807");
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

/* ---- run ---- */

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

/* What the command computed; run_fini() frees it. */
struct run {
    struct arch_spec *loaded; /* a model read from a config.json, or NULL */
    struct layout_setup s;
    struct layout_result r;    /* the layout shown */
    struct layout_result *res; /* the layouts ranked (no --layout), or NULL */
    int n;
    int evaluated; /* the layouts were evaluated: there is a report */
    struct rpt_train_sim sim;
    int simulated;
};

/* Resolves the GPU and the model and evaluates --layout, or ranks every
 * layout. Prints what is wrong to stderr. Returns an exit status; x is
 * filled as far as it got (x->evaluated says whether there is a report). */
static int evaluate(const struct opts *o, const char *model, struct run *x)
{
    const struct gpu_spec *g = gpu_find(o->gpu);
    const struct arch_spec *a;
    struct layout_setup *s = &x->s;
    struct train_knobs k = o->k;

    if (g == NULL) {
        char *names = gpu_names();

        fprintf(stderr, "dsec train: unknown gpu '%s'; valid: %s\n", o->gpu,
                names);
        free(names);
        return CLI_EXIT_INPUT;
    }
    if (o->dtype == CL_DTYPE_FP8 && !(g->flops_fp8 > 0))
        fprintf(stderr,
                "dsec train: note: %s has no fp8 peak; fp8 GEMMs "
                "run at the bf16 peak\n",
                g->name);
    a = cli_resolve_model("train", model, &x->loaded);
    if (a == NULL)
        return CLI_EXIT_INPUT;
    layout_setup_init(s, a, g, o->gpus, LAYOUT_TRAINING);
    if (cli_layout_nodes("train", o->gpus, o->nodes, o->nics, o->link, s) != 0)
        return CLI_EXIT_INPUT;
    s->dtype = o->dtype;
    s->dp_overlap = o->overlap;
    s->zero3_regather = 1;
    s->tp_overlap = o->tp_overlap;
    s->ep_overlap = o->ep_overlap;
    s->eff_compute = o->eff;
    if (o->seq > 0)
        s->seq_tokens = o->seq;
    if (o->batch_seqs > 0)
        s->batch = o->batch_seqs;
    else if (o->batch_tokens > 0) {
        if (o->batch_tokens % s->seq_tokens != 0) {
            fprintf(stderr,
                    "dsec train: --global-batch %lld tokens is not a whole "
                    "number of %lld-token sequences\n",
                    (long long)o->batch_tokens, (long long)s->seq_tokens);
            return CLI_EXIT_INPUT;
        }
        s->batch = o->batch_tokens / s->seq_tokens;
    }

    if (o->layout != NULL) {
        struct layout l = {.ep = 1};
        char err[160];

        if (train_layout_parse(o->layout, o->gpus, &l, err, sizeof(err)) != 0) {
            fprintf(stderr, "dsec train: --layout '%s': %s\n", o->layout, err);
            return CLI_EXIT_INPUT;
        }
        if (l.chunks > 1)
            k.chunks = l.chunks;
        if (k.chunks > 1 && l.pp < 2) {
            fprintf(stderr, "dsec train: interleaving needs pp >= 2\n");
            return CLI_EXIT_INPUT;
        }
        if (k.zero > 0 && l.dp == 1) {
            fprintf(stderr,
                    "dsec train: --zero %d shards over dp, which is "
                    "1\n",
                    k.zero);
            return CLI_EXIT_INPUT;
        }
        if (train_eval(s, &k, &l, &x->r) != 0) {
            fprintf(stderr, "dsec train: --layout '%s': %s\n", o->layout,
                    x->r.why);
            return CLI_EXIT_INPUT;
        }
    } else {
        if (train_enumerate(s, &k, &x->res, &x->n) != 0) {
            fprintf(stderr, "dsec train: cannot enumerate layouts\n");
            return CLI_EXIT_INPUT;
        }
        if (x->n > 0)
            x->r = x->res[0];
    }
    x->evaluated = 1;
    /* A layout that does not fit is an input error; so is a ranking in
     * which none does (with no layout at all it prints "no layout fits"
     * and succeeds, as x->r is then the zeroed one). */
    return x->r.verdict != LAYOUT_FITS ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}

/* Simulates the job of the layout shown over --simulate, once with the
 * K given or Young's, or for a geometric grid of K from Young's / 8 to x 8,
 * 4 per octave (--checkpoint-sweep). Fills x->sim; x->sim.ok is 0 when the
 * job could not be simulated. */
static void simulate(const struct opts *o, struct run *x)
{
    const struct layout_setup *s = &x->s;
    struct rpt_train_sim *m = &x->sim;
    struct train_job *j = &m->job;
    struct train_job_result jr;
    double delta;

    x->simulated = 1;
    job_from(s, &x->r, o, j, &delta, &m->job_mtbf_s);
    m->ckpt_bytes = train_ckpt_bytes((double)arch_params_total(s->arch));
    m->ckpt_target = o->ckpt_target;
    m->async = o->async;
    m->gpu_mtbf_h = o->mtbf_h;
    m->seed = o->seed;
    m->sweep = o->ckpt_sweep;
    m->young_s = train_young_s(delta, m->job_mtbf_s);
    m->daly_s = train_daly_s(delta, m->job_mtbf_s);
    j->ckpt_every_steps =
        o->ckpt_every > 0 ? o->ckpt_every
        : m->young_s > 0  ? (int64_t)fmax(1.0, llround(m->young_s / j->step_s))
                          : 0;
    if (!m->sweep) {
        m->ok = train_job_run(j, o->seed, &m->res) == 0;
        return;
    }
    {
        struct train_job jk = *j;
        double k0 = m->young_s > 0 ? m->young_s / j->step_s : 16.0;
        double best_g = -1.0;
        int64_t prev = -1;

        m->ks = xcalloc(25, sizeof(*m->ks));
        for (int i = -12; i <= 12; i++) {
            int64_t k = (int64_t)llround(k0 * pow(2.0, i / 4.0));
            struct rpt_train_k *row;

            if (k < 1)
                k = 1;
            if (k == prev)
                continue;
            prev = k;
            jk.ckpt_every_steps = k;
            if (train_job_run(&jk, o->seed, &jr) != 0)
                return;
            if (jr.goodput_tokens_per_s > best_g) {
                best_g = jr.goodput_tokens_per_s;
                m->best_k = k;
            }
            row = &m->ks[m->nks++];
            row->k = k;
            row->goodput_tokens_per_s = jr.goodput_tokens_per_s;
            row->ideal_tokens_per_s = jr.ideal_tokens_per_s;
            row->failures = jr.failures;
            row->checkpoints = jr.checkpoints;
            train_job_result_fini(&jr);
        }
        m->ok = 1;
    }
}

static void run_fini(struct run *x)
{
    free(x->sim.ks);
    train_job_result_fini(&x->sim.res);
    free(x->res);
    arch_hf_free(x->loaded);
}

/* ---- print ---- */

static void print(const struct opts *o, const struct run *x)
{
    struct rpt_train t = {
        .setup = &x->s,
        .ranked = x->res,
        .nranked = x->n,
        .top = o->top,
        .step = &x->r,
        .sim = x->simulated ? &x->sim : NULL,
    };

    if (o->json) {
        json_object *root = rpt_train_json(&t);

        rpt_json_print(stdout, root);
        json_object_put(root);
    } else {
        rpt_train_print(stdout, &t);
    }
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
    struct run x;
    int status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    memset(&x, 0, sizeof(x));
    status = evaluate(&o, argv[optind], &x);
    if (status == CLI_EXIT_OK && o.simulate_s > 0)
        simulate(&o, &x);
    if (x.evaluated)
        print(&o, &x);
    if (x.simulated && !x.sim.ok) {
        fprintf(stderr, "dsec train: the job cannot be simulated\n");
        status = CLI_EXIT_INPUT;
    }
    run_fini(&x);
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
