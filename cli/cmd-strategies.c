/* dsec strategies MODEL --gpu KIND --gpus N [--nodes M] [--train] ...:
 * every parallel layout (dp, tp, pp, ep, ZeRO) of a model on a cluster, with
 * memory per GPU, traffic per step by kind and the link it crosses, the step
 * time of a reference batch and whether the layout fits (models/layout/,
 * docs/layouts.md): the quantitative version of the classic DP/TP/PP/ZeRO
 * comparison table. */
#include <getopt.h>
#include <json-c/json.h>
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

/* Parses a positive int; 0, or -1 on bad input. */
static int parse_pos(const char *s, int *out)
{
    uint64_t v;

    if (cli_parse_u64(s, &v) != 0 || v < 1 || v > 1u << 30)
        return -1;
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

/* Writes a time in ns as "85 us", "4.63 ms" or "11.6 s" into buf. */
static const char *duration(char *buf, size_t len, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3g s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g us", ns / 1e3);
    return buf;
}

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
                     cli_human_bytes(b, sizeof(b), t->wire_bytes), t->link,
                     also ? "+" : "", also ? inter : "",
                     duration(d, sizeof(d), t->time_ns));
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

static json_object *jdouble(double v)
{
    return json_object_new_double(v);
}

static json_object *result_json(const struct layout_setup *s,
                                const struct layout_result *r)
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
    json_object_object_add(mem, "weights_bytes", jdouble(r->weight_bytes));
    if (s->mode == LAYOUT_INFERENCE) {
        json_object_object_add(mem, "kv_bytes", jdouble(r->kv_bytes));
        json_object_object_add(mem, "reserve_bytes", jdouble(r->reserve_bytes));
        json_object_object_add(mem, "kv_bytes_per_token",
                               jdouble(r->kv_bytes_per_token));
        json_object_object_add(mem, "kv_tokens",
                               json_object_new_int64(r->kv_tokens));
    } else {
        json_object_object_add(mem, "grads_bytes", jdouble(r->grad_bytes));
        json_object_object_add(mem, "optimizer_bytes", jdouble(r->optim_bytes));
        json_object_object_add(mem, "activations_bytes", jdouble(r->act_bytes));
    }
    json_object_object_add(mem, "total_bytes", jdouble(r->total_bytes));
    json_object_object_add(mem, "usable_bytes", jdouble(r->usable_bytes));
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
        json_object_object_add(x, "collectives", jdouble(t->collectives));
        json_object_object_add(x, "wire_bytes", jdouble(t->wire_bytes));
        json_object_object_add(x, "time_ms", jdouble(t->time_ns / 1e6));
        json_object_object_add(x, "link", json_object_new_string(t->link));
        json_object_object_add(x, "crosses_nodes",
                               json_object_new_boolean(t->crosses_nodes));
        json_object_array_add(tr, x);
    }
    json_object_object_add(o, "traffic_per_gpu_per_step", tr);
    if (r->verdict == LAYOUT_FITS) {
        json_object_object_add(o, "compute_ms", jdouble(r->compute_ns / 1e6));
        json_object_object_add(o, "comm_ms", jdouble(r->comm_ns / 1e6));
        json_object_object_add(o, "step_ms", jdouble(r->step_ns / 1e6));
        json_object_object_add(o, "tokens_per_s", jdouble(r->tokens_per_s));
        if (s->mode == LAYOUT_INFERENCE) {
            json_object_object_add(o, "batch_seqs",
                                   json_object_new_int64(r->batch_seqs));
            json_object_object_add(o, "prefill_ms",
                                   jdouble(r->prefill_ns / 1e6));
        } else {
            json_object_object_add(o, "bubble", jdouble(r->bubble));
            json_object_object_add(o, "mfu", jdouble(r->mfu));
        }
    }
    return o;
}

static void print_json(const struct layout_setup *s,
                       const struct layout_result *res, int n)
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
    } else {
        json_object_object_add(ref, "global_batch_seqs",
                               json_object_new_int64(s->batch));
        json_object_object_add(ref, "seq_tokens",
                               json_object_new_int64(s->seq_tokens));
    }
    json_object_object_add(o, "reference", ref);
    arr = json_object_new_array();
    for (int i = 0; i < n; i++)
        json_object_array_add(arr, result_json(s, &res[i]));
    json_object_object_add(o, "layouts", arr);
    printf("%s\n", json_object_to_json_string_ext(
                       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                              JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
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
        "  --json            print one JSON object instead of the table\n"
        "\nColumns: memory per GPU in GB (1e9 B) on the fullest pipeline "
        "stage;\ntraffic is the bytes one GPU of the first stage sends per "
        "step by kind,\nthe slowest link it crosses and its time. fits* = tp "
        "crosses nodes.\nFormulas and sources: docs/layouts.md.\n");
}

static int exec_strategies(int argc, char **argv)
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
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *gpu_name = NULL, *link_name = NULL;
    int gpus = 0, nodes = 0, nics = 0, train = 0, json = 0, opt, n, rc;
    int seq = 0, batch = 0, dtype = -1, kv_dtype = -1, prefill = -1;
    uint64_t v;
    const struct arch_spec *a;
    const struct gpu_spec *g;
    struct arch_spec *loaded = NULL;
    struct layout_setup s;
    struct layout_result *res;
    char *names;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'g':
            gpu_name = optarg;
            break;
        case 'n':
            if (parse_pos(optarg, &gpus) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--gpus: expected a positive integer");
            break;
        case 'N':
            if (parse_pos(optarg, &nodes) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--nodes: expected a positive integer");
            break;
        case 'I':
            if (parse_pos(optarg, &nics) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--nics: expected a positive integer");
            break;
        case 'l':
            link_name = optarg;
            break;
        case 't':
            train = 1;
            break;
        case 's':
            if (parse_pos(optarg, &seq) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--seq: expected a positive integer");
            break;
        case 'b':
            if (parse_pos(optarg, &batch) != 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--batch: expected a positive integer");
            break;
        case 'p':
            if (cli_parse_u64(optarg, &v) != 0 || v > 1u << 30)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--prefill: expected a non-negative "
                                       "integer");
            prefill = (int)v;
            break;
        case 'd':
            dtype = parse_dtype(optarg);
            if (dtype < 0)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--dtype: expected bf16, fp8 or int4");
            break;
        case 'k':
            kv_dtype = parse_dtype(optarg);
            if (kv_dtype != CL_DTYPE_BF16 && kv_dtype != CL_DTYPE_FP8)
                return cli_usage_error(&cli_cmd_strategies,
                                       "--kv-dtype: expected bf16 or fp8");
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            print_help();
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(&cli_cmd_strategies, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_strategies, "expected one MODEL");
    if (gpu_name == NULL || gpus == 0)
        return cli_usage_error(&cli_cmd_strategies,
                               "--gpu and --gpus are required");
    if (train && dtype == CL_DTYPE_INT4)
        return cli_usage_error(&cli_cmd_strategies,
                               "--dtype int4 is for serving; training takes "
                               "bf16 or fp8");
    if (train && (prefill >= 0 || kv_dtype >= 0))
        return cli_usage_error(&cli_cmd_strategies,
                               "--prefill and --kv-dtype are for serving");

    g = gpu_find(gpu_name);
    if (g == NULL) {
        names = gpu_names();
        fprintf(stderr, "dsec strategies: unknown gpu '%s'; valid: %s\n",
                gpu_name, names);
        free(names);
        return CLI_EXIT_INPUT;
    }
    a = cli_resolve_model("strategies", argv[optind], &loaded);
    if (a == NULL)
        return CLI_EXIT_INPUT;
    if (nodes > 0 && gpus % nodes != 0) {
        fprintf(stderr,
                "dsec strategies: %d gpus do not split evenly over %d "
                "nodes\n",
                gpus, nodes);
        arch_hf_free(loaded);
        return CLI_EXIT_INPUT;
    }
    layout_setup_init(&s, a, g, gpus,
                      train ? LAYOUT_TRAINING : LAYOUT_INFERENCE);
    if (nodes > 0)
        s.gpus_per_node = gpus / nodes;
    else if (gpus > s.gpus_per_node && gpus % s.gpus_per_node != 0) {
        fprintf(stderr,
                "dsec strategies: %d gpus do not fill nodes of %d; give "
                "--nodes\n",
                gpus, s.gpus_per_node);
        arch_hf_free(loaded);
        return CLI_EXIT_INPUT;
    }
    s.nics_per_node = nics > 0 ? nics : s.gpus_per_node;
    if (link_name != NULL) {
        const struct net_link *li = net_link_find(link_name);

        if (li == NULL) {
            names = net_link_names();
            fprintf(stderr, "dsec strategies: unknown link '%s'; valid: %s\n",
                    link_name, names);
            free(names);
            arch_hf_free(loaded);
            return CLI_EXIT_INPUT;
        }
        /* The catalog class in place of the calibrated ib-ndr. */
        s.calib.inter = *li;
    }
    if (dtype >= 0)
        s.dtype = dtype;
    if (kv_dtype >= 0)
        s.kv_dtype = kv_dtype;
    if (seq > 0)
        s.seq_tokens = seq;
    if (batch > 0)
        s.batch = batch;
    if (prefill >= 0)
        s.prefill_tokens = prefill;

    rc = layout_enumerate(&s, &res, &n);
    if (rc != 0) {
        struct layout_result r;
        struct layout l = {.dp = gpus, .tp = 1, .pp = 1, .ep = 1};

        layout_eval(&s, &l, &r);
        fprintf(stderr, "dsec strategies: %s\n", r.why);
        arch_hf_free(loaded);
        return CLI_EXIT_INPUT;
    }
    if (json) {
        print_json(&s, res, n);
    } else {
        int nodes_used = (gpus + s.gpus_per_node - 1) / s.gpus_per_node;
        int feasible = 0;

        for (int i = 0; i < n; i++)
            feasible += res[i].verdict == LAYOUT_FITS;
        printf("%s on %d x %s: %d node%s of %d, %s inside, %s x%d between; "
               "%s weights",
               a->name, gpus, g->name, nodes_used, nodes_used == 1 ? "" : "s",
               s.gpus_per_node, s.calib.intra.name, s.calib.inter.name,
               s.nics_per_node, dtype_name(s.dtype));
        if (train)
            printf("\ntraining: global batch %lld x %lld tokens, "
                   "micro-batches of one sequence, 1F1B, mixed-precision "
                   "Adam\n",
                   (long long)s.batch, (long long)s.seq_tokens);
        else
            printf(", %s kv cache\nserving: decode of up to %lld sequences "
                   "per dp rank at %lld tokens of context (step = the cycle "
                   "in which each advances a token), prefill of %lld "
                   "tokens\n",
                   dtype_name(s.kv_dtype), (long long)s.batch,
                   (long long)s.seq_tokens, (long long)s.prefill_tokens);
        printf("hbm %.1f GB per gpu, %.1f GB usable (%.2f); %d layouts, %d "
               "fit\n\n",
               (double)g->hbm_bytes / 1e9,
               s.gpu_memory_utilization * (double)g->hbm_bytes / 1e9,
               s.gpu_memory_utilization, n, feasible);
        if (train)
            print_training(&s, res, n);
        else
            print_serving(&s, res, n);
    }
    free(res);
    arch_hf_free(loaded);
    return CLI_EXIT_OK;
}

const struct cli_entry cli_cmd_strategies = {
    .name = "strategies",
    .usage = "MODEL --gpu KIND --gpus N [--nodes M] [--nics N] "
             "[--link NAME] [--train] [--seq L] [--batch B] [--prefill P] "
             "[--dtype bf16|fp8|int4] [--kv-dtype bf16|fp8] [--json]",
    .summary = "compare parallel layouts (dp, tp, pp, ep, ZeRO): memory, "
               "traffic, step time, fit",
    .exec = exec_strategies,
};
