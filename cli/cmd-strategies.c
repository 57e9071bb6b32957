/* dsec strategies MODEL --gpu KIND --gpus N [--nodes M] [--train] ...:
 * every parallel layout (dp, tp, pp, ep, ZeRO) of a model on a cluster, with
 * memory per GPU, traffic per step by kind and the link it crosses, the step
 * time of a reference batch and whether the layout fits (models/layout/,
 * docs/layouts.md): the quantitative version of the classic DP/TP/PP/ZeRO
 * comparison table. Serving takes the knobs DeepSeek serves with (redundant
 * experts, two micro-batches, speculative decoding) and then adds a block
 * of per-GPU figures: experts per GPU, the all-to-all and tokens per GPU.
 * Parse (parse_args), run (evaluate), print (text or JSON). */
#include <errno.h>
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
#include "models/perf/roofline.h"
#include "reports/fmt.h"
#include "base/fmt.h"
#include "base/xalloc.h"

static const char *dtype_name(int dtype)
{
    switch (dtype) {
    case CL_DTYPE_BF16:
        return "bf16";
    case CL_DTYPE_FP8:
        return "fp8";
    case CL_DTYPE_INT4:
        return "int4";
    }
    return "?";
}

/* Parses bf16, fp8 or int4; -1 otherwise. */
static int parse_dtype(const char *s)
{
    if (strcasecmp(s, "bf16") == 0)
        return CL_DTYPE_BF16;
    if (strcasecmp(s, "fp8") == 0)
        return CL_DTYPE_FP8;
    if (strcasecmp(s, "int4") == 0)
        return CL_DTYPE_INT4;
    return -1;
}

/* The options. */
struct opts {
    const char *model, *gpu, *link;
    int gpus, nodes, nics, train, json;
    int seq, batch;               /* 0: the default */
    int dtype, kv_dtype, prefill; /* -1: the default */
    /* Serving knobs (struct layout_setup), as dsec step takes them:
     * redundant -1 and micro_batches 0 when not given; spec as
     * cli_spec_opts. */
    int redundant, micro_batches;
    struct cli_spec_opts spec;
    int knobs; /* 1 when one of the knobs above was given */
    int ranks; /* 1: print the per-GPU figures (--ranks or a knob) */
};

/* What the command computed; run_fini() frees it. */
struct run {
    struct arch_spec *loaded; /* a model read from a config.json, or NULL */
    struct layout_setup s;
    struct layout_result *res; /* every layout, in order */
    int n;
};

/* Parses a positive int; 0, or -1 on bad input. */
static int parse_pos(const char *s, int *out)
{
    uint64_t v;

    if (cli_parse_u64(s, &v) != 0 || v < 1 || v > 1u << 30)
        return -1;
    *out = (int)v;
    return 0;
}

/* Parses an integer in [lo, hi] for option opt, with dsec step's usage
 * message; 0, or a usage error's exit status. */
static int parse_range(const char *opt, const char *s, int lo, int hi, int *out)
{
    uint64_t v;

    if (cli_parse_u64(s, &v) != 0 || v < (uint64_t)lo || v > (uint64_t)hi) {
        char why[128];

        snprintf(why, sizeof(why), "%s: expected an integer in [%d, %d]", opt,
                 lo, hi);
        return cli_usage_error(&cli_cmd_strategies, why);
    }
    *out = (int)v;
    return 0;
}

/* Writes a count compactly ("950k", "2.13M") into buf. */
static const char *count(char *buf, size_t len, int64_t v)
{
    if (v >= 10000000)
        snprintf(buf, len, "%.1fM", (double)v / 1e6);
    else if (v >= 1000000)
        snprintf(buf, len, "%.2fM", (double)v / 1e6);
    else if (v >= 10000)
        snprintf(buf, len, "%.0fk", (double)v / 1e3);
    else
        snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

static void print_help(void)
{
    printf("usage: dsec strategies %s\n\n%s\n", cli_cmd_strategies.usage,
           cli_cmd_strategies.summary);
    printf(
        "\nMODEL is a catalog name ('dsec help models') or a Hugging Face "
        "config.json\n(or its directory).\n\noptions:\n"
        "  --gpu KIND        GPU kind ('dsec help gpus'); required\n"
        "  --gpus N          number of GPUs; required\n"
        "  --nodes M         nodes holding them (default: nodes of 8)\n"
        "  --nics N          NICs per node (default: one per GPU)\n"
        "  --link NAME       inter-node link (default ib-ndr)\n"
        "  --train           training instead of serving\n"
        "  --seq L           serving: context tokens of each decode "
        "sequence;\n"
        "                    training: sequence length (default 4096)\n"
        "  --batch B         serving: decode sequences per dp rank (default "
        "vLLM's\n"
        "                    max_num_seqs, 1024 or 256);\n"
        "                    training: global batch in sequences (default "
        "1024)\n"
        "  --prefill P       serving: tokens of the reference prefill "
        "(default 8192)\n"
        "  --dtype D         weights: bf16, fp8 or int4 (default: the "
        "checkpoint's;\n"
        "                    training bf16)\n"
        "  --kv-dtype D      serving: kv cache bf16 or fp8 (default bf16)\n"
        "  --redundant-experts N  serving: N extra expert slots on every "
        "layout with\n"
        "                    ep > 1 (DeepSeek's decode: 32); a layout whose "
        "ep does not\n"
        "                    divide routed + N slots is listed as not "
        "fitting (default 0)\n"
        "  --micro-batches N serving: 1, or 2 to overlap the ep all-to-all "
        "with the\n"
        "                    other half's compute (two-batch overlap); "
        "layouts with\n"
        "                    pp > 1 run 1, marked 1* (default 1)\n"
        "  --speculative M   serving: none (default), mtp (the model's MTP "
        "module drafts)\n"
        "                    or ngram (host drafter)\n"
        "  --spec-tokens N   tokens drafted per sequence and step, 1-8 "
        "(default 1)\n"
        "  --acceptance A    each drafted token's acceptance, 0-1 (default "
        "for mtp 0.85;\n"
        "                    required for ngram)\n"
        "  --ranks           serving: add the per-gpu block (implied by the "
        "knobs above)\n"
        "  --json            print one JSON object instead of the table\n"
        "\nColumns: memory per GPU in GB (1e9 B) on the fullest pipeline "
        "stage;\ntraffic is the bytes one GPU of the first stage sends per "
        "step by kind,\nthe slowest link it crosses and its time. fits* = tp "
        "crosses nodes.\nThe per-gpu block (serving layouts that fit): "
        "expert slots per gpu and the\nredundant ones, micro-batches, "
        "tokens a sequence emits per step, tokens a\ngpu runs per decode "
        "step, the ep all-to-all's kernels and its time per\niteration "
        "(all MoE layers), hidden behind the other micro-batch and "
        "exposed,\nthe expert imbalance and output tokens/s per gpu.\n"
        "Formulas and sources: docs/layouts.md.\n");
}

/* ---- parse ---- */

/* Returns 0, -1 after --help, or a usage error's exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"gpus", required_argument, NULL, 'n'},
        {"nodes", required_argument, NULL, 'N'},
        {"nics", required_argument, NULL, 'I'},
        {"link", required_argument, NULL, 'l'},
        {"train", no_argument, NULL, 't'},
        {"seq", required_argument, NULL, 's'},
        {"batch", required_argument, NULL, 'b'},
        {"prefill", required_argument, NULL, 'p'},
        {"dtype", required_argument, NULL, 'd'},
        {"kv-dtype", required_argument, NULL, 'k'},
        {"redundant-experts", required_argument, NULL, 'R'},
        {"micro-batches", required_argument, NULL, 'M'},
        {"speculative", required_argument, NULL, 'S'},
        {"spec-tokens", required_argument, NULL, 'K'},
        {"acceptance", required_argument, NULL, 'a'},
        {"ranks", no_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, rc = 0;
    uint64_t v;

    o->dtype = o->kv_dtype = o->prefill = -1;
    o->redundant = o->spec.method = -1;
    o->spec.acceptance = NAN;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'g':
            o->gpu = optarg;
            break;
        case 'n':
            if (parse_pos(optarg, &o->gpus) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--gpus: expected a positive integer");
            break;
        case 'N':
            if (parse_pos(optarg, &o->nodes) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--nodes: expected a positive integer");
            break;
        case 'I':
            if (parse_pos(optarg, &o->nics) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--nics: expected a positive integer");
            break;
        case 'l':
            o->link = optarg;
            break;
        case 't':
            o->train = 1;
            break;
        case 's':
            if (parse_pos(optarg, &o->seq) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--seq: expected a positive integer");
            break;
        case 'b':
            if (parse_pos(optarg, &o->batch) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--batch: expected a positive integer");
            break;
        case 'p':
            if (cli_parse_u64(optarg, &v) != 0 || v > 1u << 30)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--prefill: expected a non-negative "
                                       "integer");
            o->prefill = (int)v;
            break;
        case 'd':
            o->dtype = parse_dtype(optarg);
            if (o->dtype < 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--dtype: expected bf16, fp8 or int4");
            break;
        case 'k':
            o->kv_dtype = parse_dtype(optarg);
            if (o->kv_dtype != CL_DTYPE_BF16 && o->kv_dtype != CL_DTYPE_FP8)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--kv-dtype: expected bf16 or fp8");
            break;
        case 'R':
            rc = parse_range("--redundant-experts", optarg, 0, 4096,
                             &o->redundant);
            break;
        case 'M':
            rc =
                parse_range("--micro-batches", optarg, 1, 2, &o->micro_batches);
            break;
        case 'S':
        case 'K':
        case 'a':
            rc = cli_spec_parse(&cli_cmd_strategies, opt, optarg, &o->spec);
            break;
        case 'r':
            o->ranks = 1;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return cli_usage_error(&cli_cmd_strategies, NULL);
        }
        if (rc != 0)
            return rc;
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_strategies, "expected one MODEL");
    if (o->gpu == NULL || o->gpus == 0)
        return cli_usage_error(&cli_cmd_strategies,
                               "--gpu and --gpus are required");
    if (o->train && o->dtype == CL_DTYPE_INT4)
        return cli_usage_error(&cli_cmd_strategies,
                               "--dtype int4 is for serving; training takes "
                               "bf16 or fp8");
    if (o->train && (o->prefill >= 0 || o->kv_dtype >= 0))
        return cli_usage_error(&cli_cmd_strategies,
                               "--prefill and --kv-dtype are for serving");
    o->knobs = o->redundant >= 0 || o->micro_batches > 0 ||
               o->spec.method >= 0 || o->spec.tokens > 0 ||
               !isnan(o->spec.acceptance);
    if (o->train && (o->knobs || o->ranks))
        return cli_usage_error(&cli_cmd_strategies,
                               "--redundant-experts, --micro-batches, "
                               "--speculative, --spec-tokens, --acceptance "
                               "and --ranks are for serving");
    /* dsec step's rules for the speculative flags. */
    rc = cli_spec_finish(&cli_cmd_strategies, &o->spec);
    if (rc != 0)
        return rc;
    o->ranks |= o->knobs;
    o->model = argv[optind];
    return 0;
}

/* ---- run ---- */

/* Resolves the GPU, the model and the cluster and evaluates every layout.
 * Prints what is wrong to stderr. Returns an exit status. */
static int evaluate(const struct opts *o, struct run *x)
{
    const struct gpu_spec *g = gpu_find(o->gpu);
    const struct arch_spec *a;
    struct layout_setup *s = &x->s;

    if (g == NULL) {
        char *names = gpu_names();

        fprintf(stderr, "dsec strategies: unknown gpu '%s'; valid: %s\n",
                o->gpu, names);
        free(names);
        return CLI_EXIT_INPUT;
    }
    a = cli_resolve_model("strategies", o->model, &x->loaded);
    if (a == NULL)
        return CLI_EXIT_INPUT;
    layout_setup_init(s, a, g, o->gpus,
                      o->train ? LAYOUT_TRAINING : LAYOUT_INFERENCE);
    if (cli_layout_nodes("strategies", o->gpus, o->nodes, o->nics, o->link,
                         s) != 0)
        return CLI_EXIT_INPUT;
    if (o->dtype >= 0)
        s->dtype = o->dtype;
    if (o->kv_dtype >= 0)
        s->kv_dtype = o->kv_dtype;
    if (o->seq > 0)
        s->seq_tokens = o->seq;
    if (o->batch > 0)
        s->batch = o->batch;
    if (o->prefill >= 0)
        s->prefill_tokens = o->prefill;
    if (o->redundant > 0)
        s->redundant_experts = o->redundant;
    if (o->micro_batches > 0)
        s->micro_batches = o->micro_batches;
    if (o->spec.method > PERF_SPEC_NONE) {
        s->spec_method = o->spec.method;
        s->spec_tokens = o->spec.tokens;
        s->spec_acceptance = o->spec.acceptance;
    }
    if (layout_enumerate(s, &x->res, &x->n) != 0) {
        struct layout_result r;
        struct layout l = {.dp = o->gpus, .tp = 1, .pp = 1, .ep = 1};

        layout_eval(s, &l, &r);
        fprintf(stderr, "dsec strategies: %s\n", r.why);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

static void run_fini(struct run *x)
{
    free(x->res);
    arch_hf_free(x->loaded);
}

/* ---- print ---- */

/* One "tp 1.2 GB nvlink4 0.85 ms" item per traffic kind present; inter is
 * the inter-node link's name or NULL. The link is the slowest one crossed;
 * when the group spans nodes but NVLink is still the bottleneck, "+ib-ndr"
 * says that the network is crossed too. */
static void traffic_text(const struct layout_result *r, const char *inter,
                         char *buf, size_t len)
{
    size_t used = 0;
    char b[32], d[32];

    buf[0] = '\0';
    for (int k = 0; k < LAYOUT_TR_KINDS && used < len; k++) {
        const struct layout_traffic *t = &r->traffic[k];
        int also, n;

        if (t->ranks == 0)
            continue;
        also = t->crosses_nodes && inter != NULL && strcmp(t->link, inter) != 0;
        n = snprintf(buf + used, len - used, "%s%s %s %s%s%s %s",
                     used ? "; " : "", layout_traffic_name(k),
                     sim_fmt_bytes(b, sizeof(b), t->wire_bytes), t->link,
                     also ? "+" : "", also ? inter : "",
                     sim_fmt_duration(d, sizeof(d), t->time_ns, SIM_DUR_SIG3));
        if (n < 0)
            return;
        used += (size_t)n;
    }
    if (buf[0] == '\0')
        snprintf(buf, len, "none");
}

static void print_serving(const struct layout_setup *s,
                          const struct layout_result *res, int n)
{
    char lay[48], tr[256], tok[32];

    printf("%-3s %-20s %8s %8s %8s %8s %6s %8s %9s %10s  %-9s %s\n", "#",
           "layout", "weights", "kv", "used", "kv tok", "batch", "step ms",
           "prefill", "tok/s", "verdict", "traffic per gpu per step");
    for (int i = 0; i < n; i++) {
        const struct layout_result *r = &res[i];
        int fits = r->verdict == LAYOUT_FITS;

        layout_format(&r->l, s->mode, lay, sizeof(lay));
        printf("%-3d %-20s ", i + 1, lay);
        /* Refused for its shape (heads, tp across nodes, ep, pp): no
         * memory was computed. */
        if (r->weight_bytes > 0)
            printf("%8.1f ", r->weight_bytes / 1e9);
        else
            printf("%8s ", "-");
        if (r->verdict == LAYOUT_FITS || r->verdict == LAYOUT_NO_KV)
            printf("%8.1f %8.1f %8s ", r->kv_bytes / 1e9, r->total_bytes / 1e9,
                   count(tok, sizeof(tok), r->kv_tokens));
        else
            printf("%8s %8s %8s ", "-", "-", "-");
        if (fits) {
            traffic_text(r, s->calib.inter.name, tr, sizeof(tr));
            printf("%6lld %8.2f %9.1f %10.0f  %-9s %s\n",
                   (long long)r->batch_seqs, r->step_ns / 1e6,
                   r->prefill_ns / 1e6, r->tokens_per_s,
                   r->tp_crosses_nodes ? "fits*" : "fits", tr);
        } else {
            printf("%6s %8s %9s %10s  %-9s %s\n", "-", "-", "-", "-", "no",
                   r->why);
        }
    }
}

/* The per-gpu block: one row per serving layout that fits, numbered as in
 * the table. Expert and all-to-all columns are "-" with ep 1. */
static void print_per_gpu(const struct layout_setup *s,
                          const struct layout_result *res, int n)
{
    char lay[48], mb[8];
    int fallback = 0;

    printf("\nper gpu, layouts that fit: tok/gpu is its dp rank's tokens "
           "per decode step; the ep\nall-to-all is a decode iteration's "
           "(one pp micro-batch's when pp > 1), over every MoE layer\n");
    printf("%-3s %-20s %7s %6s %3s %8s %8s  %-16s %8s %8s %8s %6s %10s\n", "#",
           "layout", "experts", "redund", "mb", "tok/seq", "tok/gpu",
           "a2a kernels", "a2a ms", "hidden", "exposed", "imbal", "tok/s/gpu");
    for (int i = 0; i < n; i++) {
        const struct layout_result *r = &res[i];

        if (r->verdict != LAYOUT_FITS)
            continue;
        layout_format(&r->l, s->mode, lay, sizeof(lay));
        snprintf(mb, sizeof(mb), "%d%s", r->serve_micro_batches,
                 r->micro_batches_fallback ? "*" : "");
        fallback |= r->micro_batches_fallback;
        printf("%-3d %-20s ", i + 1, lay);
        if (r->l.ep > 1)
            printf("%7d %6d ", r->slots_per_gpu, r->redundant_slots);
        else
            printf("%7s %6s ", "-", "-");
        printf("%3s %8.3f %8.0f  ", mb, r->spec_tokens_per_step,
               r->decode_tokens_per_gpu);
        if (r->l.ep > 1)
            printf("%-16s %8.3f %8.3f %8.3f %6.3f ",
                   perf_a2a_name(r->a2a_class), r->a2a_total_ns / 1e6,
                   r->a2a_hidden_ns / 1e6, r->a2a_exposed_ns / 1e6,
                   r->expert_imbalance);
        else
            printf("%-16s %8s %8s %8s %6s ", "-", "-", "-", "-", "-");
        printf("%10.1f\n", r->tokens_per_s_per_gpu);
    }
    if (fallback)
        printf("mb 1*: two micro-batches need pp 1; this layout runs one\n");
}

static void print_training(const struct layout_setup *s,
                           const struct layout_result *res, int n)
{
    char lay[48], tr[256];

    printf("%-3s %-22s %-9s %7s %7s %7s %7s %7s %6s %9s %10s %5s  %-9s %s\n",
           "#", "layout", "recomp", "weights", "grads", "optim", "act", "used",
           "bubble", "step s", "tok/s", "MFU", "verdict",
           "traffic per gpu per step");
    for (int i = 0; i < n; i++) {
        const struct layout_result *r = &res[i];
        int fits = r->verdict == LAYOUT_FITS, mem;
        char rc[16];

        layout_format(&r->l, s->mode, lay, sizeof(lay));
        snprintf(rc, sizeof(rc), "%s%s",
                 r->l.recompute == LAYOUT_RECOMPUTE_SELECTIVE
                     ? "sel"
                     : layout_recompute_name(r->l.recompute),
                 r->l.seq_parallel ? "+sp" : "");
        mem = fits || r->verdict == LAYOUT_NO_WEIGHTS ||
              r->verdict == LAYOUT_NO_MEMORY;
        printf("%-3d %-22s ", i + 1, lay);
        if (mem)
            printf("%-9s %7.1f %7.1f %7.1f %7.1f %7.1f ", rc,
                   r->weight_bytes / 1e9, r->grad_bytes / 1e9,
                   r->optim_bytes / 1e9, r->act_bytes / 1e9,
                   r->total_bytes / 1e9);
        else
            printf("%-9s %7s %7s %7s %7s %7s ", "-", "-", "-", "-", "-", "-");
        if (fits) {
            traffic_text(r, s->calib.inter.name, tr, sizeof(tr));
            printf("%6.3f %9.2f %10.0f %4.0f%%  %-9s %s\n", r->bubble,
                   r->step_ns / 1e9, r->tokens_per_s, 100.0 * r->mfu,
                   r->tp_crosses_nodes ? "fits*" : "fits", tr);
        } else {
            printf("%6s %9s %10s %5s  %-9s %s\n", "-", "-", "-", "-", "no",
                   r->why);
        }
    }
}

/* The per-gpu figures of a serving layout that fits (print_per_gpu()'s
 * columns); expert and all-to-all fields only with ep > 1. */
static json_object *per_gpu_json(const struct layout_result *r)
{
    json_object *o = json_object_new_object();

    if (r->l.ep > 1) {
        json_object_object_add(o, "expert_slots",
                               json_object_new_int(r->expert_slots));
        json_object_object_add(o, "experts_per_gpu",
                               json_object_new_int(r->slots_per_gpu));
        json_object_object_add(o, "redundant_slots",
                               json_object_new_int(r->redundant_slots));
        json_object_object_add(
            o, "expert_imbalance",
            rpt_json_double(r->expert_imbalance, RPT_JSON_FULL));
        json_object_object_add(
            o, "a2a_kernels",
            json_object_new_string(perf_a2a_name(r->a2a_class)));
        json_object_object_add(
            o, "a2a_total_ms",
            rpt_json_double(r->a2a_total_ns / 1e6, RPT_JSON_FULL));
        json_object_object_add(
            o, "a2a_hidden_ms",
            rpt_json_double(r->a2a_hidden_ns / 1e6, RPT_JSON_FULL));
        json_object_object_add(
            o, "a2a_exposed_ms",
            rpt_json_double(r->a2a_exposed_ns / 1e6, RPT_JSON_FULL));
    }
    json_object_object_add(o, "micro_batches",
                           json_object_new_int(r->serve_micro_batches));
    json_object_object_add(o, "micro_batches_fallback",
                           json_object_new_boolean(r->micro_batches_fallback));
    json_object_object_add(
        o, "spec_tokens_per_step",
        rpt_json_double(r->spec_tokens_per_step, RPT_JSON_FULL));
    json_object_object_add(
        o, "decode_tokens_per_gpu",
        rpt_json_double(r->decode_tokens_per_gpu, RPT_JSON_FULL));
    json_object_object_add(
        o, "tokens_per_s_per_gpu",
        rpt_json_double(r->tokens_per_s_per_gpu, RPT_JSON_FULL));
    return o;
}

/* ranks: 1 when the per-gpu figures go with every serving layout that fits,
 * not only those with ep > 1. */
static json_object *result_json(const struct layout_setup *s,
                                const struct layout_result *r, int ranks)
{
    json_object *o = json_object_new_object(), *mem, *tr;
    char lay[48];

    layout_format(&r->l, s->mode, lay, sizeof(lay));
    json_object_object_add(o, "layout", json_object_new_string(lay));
    json_object_object_add(o, "dp", json_object_new_int(r->l.dp));
    json_object_object_add(o, "tp", json_object_new_int(r->l.tp));
    json_object_object_add(o, "pp", json_object_new_int(r->l.pp));
    json_object_object_add(o, "ep", json_object_new_int(r->l.ep));
    if (s->mode == LAYOUT_TRAINING) {
        json_object_object_add(o, "zero", json_object_new_int(r->l.zero));
        json_object_object_add(o, "micro_batches",
                               json_object_new_int(r->l.micro_batches));
        json_object_object_add(
            o, "recompute",
            json_object_new_string(layout_recompute_name(r->l.recompute)));
        json_object_object_add(o, "sequence_parallel",
                               json_object_new_boolean(r->l.seq_parallel));
    }
    json_object_object_add(o, "fits",
                           json_object_new_boolean(r->verdict == LAYOUT_FITS));
    json_object_object_add(
        o, "verdict", json_object_new_string(layout_verdict_name(r->verdict)));
    json_object_object_add(o, "why", json_object_new_string(r->why));
    json_object_object_add(o, "tp_crosses_nodes",
                           json_object_new_boolean(r->tp_crosses_nodes));

    mem = json_object_new_object();
    json_object_object_add(mem, "weights_bytes",
                           rpt_json_double(r->weight_bytes, RPT_JSON_FULL));
    if (s->mode == LAYOUT_INFERENCE) {
        json_object_object_add(mem, "kv_bytes",
                               rpt_json_double(r->kv_bytes, RPT_JSON_FULL));
        json_object_object_add(
            mem, "reserve_bytes",
            rpt_json_double(r->reserve_bytes, RPT_JSON_FULL));
        json_object_object_add(
            mem, "kv_bytes_per_token",
            rpt_json_double(r->kv_bytes_per_token, RPT_JSON_FULL));
        json_object_object_add(mem, "kv_tokens",
                               json_object_new_int64(r->kv_tokens));
    } else {
        json_object_object_add(mem, "grads_bytes",
                               rpt_json_double(r->grad_bytes, RPT_JSON_FULL));
        json_object_object_add(mem, "optimizer_bytes",
                               rpt_json_double(r->optim_bytes, RPT_JSON_FULL));
        json_object_object_add(mem, "activations_bytes",
                               rpt_json_double(r->act_bytes, RPT_JSON_FULL));
    }
    json_object_object_add(mem, "total_bytes",
                           rpt_json_double(r->total_bytes, RPT_JSON_FULL));
    json_object_object_add(mem, "usable_bytes",
                           rpt_json_double(r->usable_bytes, RPT_JSON_FULL));
    json_object_object_add(mem, "hbm_bytes",
                           json_object_new_int64(s->gpu->hbm_bytes));
    json_object_object_add(o, "memory_per_gpu", mem);

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
        json_object_object_add(x, "collectives",
                               rpt_json_double(t->collectives, RPT_JSON_FULL));
        json_object_object_add(x, "wire_bytes",
                               rpt_json_double(t->wire_bytes, RPT_JSON_FULL));
        json_object_object_add(
            x, "time_ms", rpt_json_double(t->time_ns / 1e6, RPT_JSON_FULL));
        json_object_object_add(x, "link", json_object_new_string(t->link));
        json_object_object_add(x, "crosses_nodes",
                               json_object_new_boolean(t->crosses_nodes));
        json_object_array_add(tr, x);
    }
    json_object_object_add(o, "traffic_per_gpu_per_step", tr);
    if (r->verdict == LAYOUT_FITS) {
        json_object_object_add(
            o, "compute_ms",
            rpt_json_double(r->compute_ns / 1e6, RPT_JSON_FULL));
        json_object_object_add(
            o, "comm_ms", rpt_json_double(r->comm_ns / 1e6, RPT_JSON_FULL));
        json_object_object_add(
            o, "step_ms", rpt_json_double(r->step_ns / 1e6, RPT_JSON_FULL));
        json_object_object_add(o, "tokens_per_s",
                               rpt_json_double(r->tokens_per_s, RPT_JSON_FULL));
        if (s->mode == LAYOUT_INFERENCE) {
            json_object_object_add(o, "batch_seqs",
                                   json_object_new_int64(r->batch_seqs));
            json_object_object_add(
                o, "prefill_ms",
                rpt_json_double(r->prefill_ns / 1e6, RPT_JSON_FULL));
            if (r->l.ep > 1 || ranks)
                json_object_object_add(o, "per_gpu", per_gpu_json(r));
        } else {
            json_object_object_add(o, "bubble",
                                   rpt_json_double(r->bubble, RPT_JSON_FULL));
            json_object_object_add(o, "mfu",
                                   rpt_json_double(r->mfu, RPT_JSON_FULL));
        }
    }
    return o;
}

/* The serving knobs of s (print_text()'s knobs line). */
static json_object *knobs_json(const struct layout_setup *s)
{
    json_object *o = json_object_new_object(), *sp;

    json_object_object_add(o, "redundant_experts",
                           json_object_new_int(s->redundant_experts));
    json_object_object_add(
        o, "micro_batches",
        json_object_new_int(s->micro_batches > 1 ? s->micro_batches : 1));
    sp = json_object_new_object();
    json_object_object_add(
        sp, "method", json_object_new_string(perf_spec_name(s->spec_method)));
    if (s->spec_method != PERF_SPEC_NONE) {
        json_object_object_add(sp, "tokens",
                               json_object_new_int(s->spec_tokens));
        json_object_object_add(
            sp, "acceptance",
            rpt_json_double(s->spec_acceptance, RPT_JSON_FULL));
        json_object_object_add(
            sp, "tokens_per_step",
            rpt_json_double(
                perf_spec_tokens_per_step(s->spec_tokens, s->spec_acceptance),
                RPT_JSON_FULL));
    }
    json_object_object_add(o, "speculative", sp);
    return o;
}

/* ranks: 1 when a knob or --ranks was given (the knobs object and per-gpu
 * figures for every layout that fits). */
static void print_json(const struct layout_setup *s,
                       const struct layout_result *res, int n, int ranks)
{
    json_object *o = json_object_new_object(), *ref, *arr;
    int nodes = (s->gpus + s->gpus_per_node - 1) / s->gpus_per_node;

    json_object_object_add(o, "model", json_object_new_string(s->arch->name));
    json_object_object_add(o, "gpu", json_object_new_string(s->gpu->name));
    json_object_object_add(o, "gpus", json_object_new_int(s->gpus));
    json_object_object_add(o, "nodes", json_object_new_int(nodes));
    json_object_object_add(o, "gpus_per_node",
                           json_object_new_int(s->gpus_per_node));
    json_object_object_add(o, "nics_per_node",
                           json_object_new_int(s->nics_per_node));
    json_object_object_add(o, "intra_link",
                           json_object_new_string(s->calib.intra.name));
    json_object_object_add(o, "inter_link",
                           json_object_new_string(s->calib.inter.name));
    json_object_object_add(o, "mode",
                           json_object_new_string(s->mode == LAYOUT_TRAINING
                                                      ? "training"
                                                      : "inference"));
    json_object_object_add(o, "dtype",
                           json_object_new_string(dtype_name(s->dtype)));
    ref = json_object_new_object();
    if (s->mode == LAYOUT_INFERENCE) {
        json_object_object_add(o, "kv_dtype",
                               json_object_new_string(dtype_name(s->kv_dtype)));
        json_object_object_add(ref, "decode_seqs_per_dp_rank",
                               json_object_new_int64(s->batch));
        json_object_object_add(ref, "context_tokens",
                               json_object_new_int64(s->seq_tokens));
        json_object_object_add(ref, "prefill_tokens",
                               json_object_new_int64(s->prefill_tokens));
        if (ranks)
            json_object_object_add(ref, "knobs", knobs_json(s));
    } else {
        json_object_object_add(ref, "global_batch_seqs",
                               json_object_new_int64(s->batch));
        json_object_object_add(ref, "seq_tokens",
                               json_object_new_int64(s->seq_tokens));
    }
    json_object_object_add(o, "reference", ref);
    arr = json_object_new_array();
    for (int i = 0; i < n; i++)
        json_object_array_add(arr, result_json(s, &res[i], ranks));
    json_object_object_add(o, "layouts", arr);
    rpt_json_print(stdout, o);
    json_object_put(o);
}

/* The cluster, the reference batch and the table of every layout; with
 * ranks, the serving knobs and the per-gpu block too. */
static void print_text(const struct run *x, int ranks)
{
    const struct layout_setup *s = &x->s;
    const struct gpu_spec *g = s->gpu;
    int train = s->mode == LAYOUT_TRAINING;
    int nodes_used = (s->gpus + s->gpus_per_node - 1) / s->gpus_per_node;
    int feasible = 0;

    for (int i = 0; i < x->n; i++)
        feasible += x->res[i].verdict == LAYOUT_FITS;
    printf("%s on %d x %s: %d node%s of %d, %s inside, %s x%d between; "
           "%s weights",
           s->arch->name, s->gpus, g->name, nodes_used,
           nodes_used == 1 ? "" : "s", s->gpus_per_node, s->calib.intra.name,
           s->calib.inter.name, s->nics_per_node, dtype_name(s->dtype));
    if (train)
        printf("\ntraining: global batch %lld x %lld tokens, "
               "micro-batches of one sequence, 1F1B, mixed-precision "
               "Adam\n",
               (long long)s->batch, (long long)s->seq_tokens);
    else
        printf(", %s kv cache\nserving: decode of up to %lld sequences "
               "per dp rank at %lld tokens of context (step = the cycle "
               "in which each advances a token), prefill of %lld "
               "tokens\n",
               dtype_name(s->kv_dtype), (long long)s->batch,
               (long long)s->seq_tokens, (long long)s->prefill_tokens);
    if (!train && ranks) {
        printf("knobs: %d redundant expert slots with ep > 1, %d "
               "micro-batch%s with pp 1, ",
               s->redundant_experts, s->micro_batches > 1 ? 2 : 1,
               s->micro_batches > 1 ? "es" : "");
        if (s->spec_method == PERF_SPEC_NONE)
            printf("no speculative decoding\n");
        else
            printf(
                "speculative %s: %d token%s drafted at acceptance %.3f, "
                "%.3f tokens per step\n",
                perf_spec_name(s->spec_method), s->spec_tokens,
                s->spec_tokens > 1 ? "s" : "", s->spec_acceptance,
                perf_spec_tokens_per_step(s->spec_tokens, s->spec_acceptance));
    }
    printf("hbm %.1f GB per gpu, %.1f GB usable (%.2f); %d layouts, %d "
           "fit\n\n",
           (double)g->hbm_bytes / 1e9,
           s->gpu_memory_utilization * (double)g->hbm_bytes / 1e9,
           s->gpu_memory_utilization, x->n, feasible);
    if (train)
        print_training(s, x->res, x->n);
    else
        print_serving(s, x->res, x->n);
    if (!train && ranks)
        print_per_gpu(s, x->res, x->n);
}

static int exec_strategies(int argc, char **argv)
{
    struct opts o = {0};
    struct run x = {0};
    int status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    status = evaluate(&o, &x);
    if (status == CLI_EXIT_OK && o.json)
        print_json(&x.s, x.res, x.n, o.ranks);
    else if (status == CLI_EXIT_OK)
        print_text(&x, o.ranks);
    run_fini(&x);
    return status;
}

const struct cli_entry cli_cmd_strategies = {
    .name = "strategies",
    .usage = "MODEL --gpu KIND --gpus N [--nodes M] [--nics N] "
             "[--link NAME] [--train] [--seq L] [--batch B] [--prefill P] "
             "[--dtype bf16|fp8|int4] [--kv-dtype bf16|fp8] "
             "[--redundant-experts N] [--micro-batches N] "
             "[--speculative none|mtp|ngram] [--spec-tokens N] "
             "[--acceptance A] [--ranks] [--json]",
    .summary = "compare parallel layouts (dp, tp, pp, ep, ZeRO): memory, "
               "traffic, step time, fit",
    .exec = exec_strategies,
};
