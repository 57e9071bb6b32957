/* dsec step MODEL --gpu KIND [--tp N] [--ep N] [--pp N]
 * [--redundant-experts N] [--expert-imbalance X] [--micro-batches N]
 * [--prefill-tokens P [--prefill-seqs N]] [--decode-seqs D] [--context L]
 * [--dtype D] [--kv-dtype
 * D] [--saturate
 * [--max-num-seqs N]] [--calibration FILE] [--disable-custom-all-reduce]
 * [--json]: the predicted time of
 * one engine iteration with its breakdown per operator class
 * (models/perf/roofline.h), the replica's KV capacity, and with --saturate
 * the output rate at the largest decode batch that fits. MODEL is a
 * catalog name or a Hugging Face config.json (cli_resolve_model()). Parse
 * (parse_args), run (evaluate), print (print_text or print_json). */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/gpu/gpu.h"
#include "models/cluster/config.h"
#include "models/perf/calib.h"
#include "models/perf/roofline.h"
#include "reports/fmt.h"
#include "base/errors.h"

/* vLLM's gpu_memory_utilization of older releases, the scenario default
 * (docs/sources.md §5.1). */
#define STEP_DEFAULT_UTIL 0.9

struct step_opts {
    const char *model, *gpu, *calib_path;
    int64_t tp, pp, ep, gpus_per_node, redundant, micro_batches;
    double imbalance;
    struct cli_spec_opts spec; /* --speculative, --spec-tokens,
                                  --acceptance */
    int64_t prefill_tokens, decode_seqs, context, max_num_seqs;
    int64_t prefill_seqs; /* --prefill-seqs: prompts the chunk is made of */
    int weight_dtype, kv_dtype;
    double util;
    int saturate, json, decode_given, no_custom_ar;
};

static int parse_count(const char *opt, const char *s, int64_t lo, int64_t hi,
                       int64_t *out)
{
    uint64_t v;

    if (cli_parse_u64(s, &v) != 0 || v < (uint64_t)lo || v > (uint64_t)hi) {
        char why[128];

        snprintf(why, sizeof(why), "%s: expected an integer in [%lld, %lld]",
                 opt, (long long)lo, (long long)hi);
        return cli_usage_error(&cli_cmd_step, why);
    }
    *out = (int64_t)v;
    return 0;
}

static int parse_dtype(const char *opt, const char *s, int kv, int *out)
{
    char why[128];

    if (strcmp(s, "bf16") == 0)
        *out = CL_DTYPE_BF16;
    else if (strcmp(s, "fp8") == 0)
        *out = CL_DTYPE_FP8;
    else if (!kv && strcmp(s, "int4") == 0)
        *out = CL_DTYPE_INT4;
    else {
        snprintf(why, sizeof(why), "%s: unknown dtype '%s'; valid: %s", opt, s,
                 kv ? "bf16, fp8" : "bf16, fp8, int4");
        return cli_usage_error(&cli_cmd_step, why);
    }
    return 0;
}

/* "1,234,567". */
static const char *grouped(char *buf, size_t len, int64_t v)
{
    char raw[32];
    size_t n, o = 0;

    snprintf(raw, sizeof(raw), "%lld", (long long)(v < 0 ? -v : v));
    n = strlen(raw);
    if (v < 0 && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return buf;
}

/* The API front end is not part of the step (docs/serving.md "Front
 * end"): one line with the calibration's figures, which a scenario's
 * server.frontend keys replace. */
static void frontend_line(const struct perf_gpu_calib *c)
{
    printf("front end (calibration frontend, server.frontend; not in the "
           "step): %.3g ms + %.3g us per prompt token per request before the "
           "engine queue; %.3g us per output token, overlapping the next step "
           "(in TTFT and E2E once)\n",
           c->frontend_request_ns / 1e6, c->frontend_prompt_token_ns / 1e3,
           c->frontend_output_token_ns / 1e3);
}

static void print_text(const struct step_opts *o, const struct perf_replica *r,
                       const struct perf_batch *b,
                       const struct perf_breakdown *bd,
                       const struct perf_saturation *sat)
{
    char g1[32], g2[32], g3[32], g4[32];
    double kv_gpu = r->gpu_memory_utilization * (double)r->gpu->hbm_bytes -
                    r->weight_bytes_per_gpu - r->reserve_bytes_per_gpu;

    printf("%s on %d x %s (tp %d, pp %d, ep %d%s), %s weights, %s kv cache\n",
           r->arch->name, r->gpus, r->gpu->name, r->tp, r->pp, r->ep,
           r->dp > 1 ? ", data-parallel attention" : "",
           perf_dtype_name(r->weight_dtype), perf_dtype_name(r->kv_dtype));
    printf("calibration: %s\n", r->calib.source);
    printf("memory per gpu: %.1f GB weights, %.1f GB kv cache at "
           "gpu_memory_utilization %g; kv capacity %s tokens per replica\n",
           r->weight_bytes_per_gpu / 1e9, kv_gpu / 1e9,
           r->gpu_memory_utilization,
           grouped(g1, sizeof(g1), r->kv_capacity_tokens));
    printf("batch: %s decoding sequences at context %s, %s prefill tokens "
           "after %s cached\n",
           grouped(g1, sizeof(g1), b->decode_seqs),
           grouped(g2, sizeof(g2), o->context),
           grouped(g3, sizeof(g3), b->prefill_tokens),
           grouped(g4, sizeof(g4), b->prefill_ctx_tokens));
    printf("kernels: %s (up to %lld tokens per graph); %.0f tokens through "
           "the linear layers; launch %.3g us per kernel eager, %.3g us in a "
           "graph, in each class's time\n",
           bd->graph == PERF_GRAPH_FULL        ? "full cuda graph"
           : bd->graph == PERF_GRAPH_PIECEWISE ? "piecewise cuda graphs, "
                                                 "attention eager"
                                               : "eager",
           (long long)r->cudagraph_max_tokens, bd->padded_tokens,
           r->calib.launch_eager_ns / 1e3, r->calib.launch_graph_ns / 1e3);
    if (r->tp > 1 && bd->tp_allreduce_ns > 0.0)
        printf("tp all-reduce: %s, %.2f us each over %s%s\n",
               bd->tp_allreduce == NET_CAR_NONE ? "NCCL"
               : bd->tp_allreduce == NET_CAR_ONESHOT
                   ? "vLLM custom all-reduce, one-shot"
                   : "vLLM custom all-reduce, two-shot",
               bd->tp_allreduce_ns / 1e3, r->calib.intra.name,
               bd->tp_allreduce == NET_CAR_NONE && r->custom_allreduce
                   ? " (the custom kernel does not apply)"
               : !r->custom_allreduce ? " (custom all-reduce disabled)"
                                      : "");
    if (r->ep > 1 && r->moe_layers > 0) {
        printf("experts: %d slots (%d routed + %d redundant), %d per gpu; "
               "imbalance %.3f (busiest rank's token-expert pairs over the "
               "mean, %s)\n",
               r->expert_slots, r->arch->moe.n_routed_experts,
               r->expert_slots - r->arch->moe.n_routed_experts,
               r->slots_per_gpu, bd->expert_imbalance,
               r->imbalance_key > 0.0 ? "given" : "uniform routing");
        printf("ep all-to-all: %s kernels, %d micro-batch%s; %.3f ms in all, "
               "%.3f ms hidden behind compute, %.3f ms exposed\n",
               perf_a2a_name(bd->a2a_class), bd->micro_batches,
               bd->micro_batches > 1 ? "es" : "", bd->a2a_total_ns / 1e6,
               bd->a2a_hidden_ns / 1e6, bd->a2a_exposed_ns / 1e6);
    } else if (bd->micro_batches > 1) {
        printf("micro-batches: %d (no expert all-to-all to hide)\n",
               bd->micro_batches);
    }
    if (r->spec_method != PERF_SPEC_NONE)
        printf("speculative: %s, %d token%s drafted per sequence, "
               "acceptance %.3f; %.3f tokens per step per sequence "
               "expected\n",
               perf_spec_name(r->spec_method), r->spec_tokens,
               r->spec_tokens > 1 ? "s" : "", r->spec_acceptance,
               perf_spec_tokens_per_step(r->spec_tokens, r->spec_acceptance));
    printf("\n");
    printf("%-12s %12s %10s %10s %6s  %s\n", "operator", "GFLOP/gpu", "GB/gpu",
           "time ms", "share", "bound");
    for (int i = 0; i < PERF_OP_COUNT; i++) {
        const struct perf_op_cost *c = &bd->op[i];
        if (c->ns == 0.0 && c->bytes == 0.0)
            continue;
        printf("%-12s %12.2f %10.3f %10.3f %5.1f%%  %s\n", perf_op_name(i),
               c->flops / 1e9, c->bytes / 1e9, c->ns / 1e6,
               100.0 * c->ns / (double)bd->total_ns, perf_bound_name(c->bound));
    }
    printf("%-12s %12s %10s %10.3f\n", "total", "", "",
           (double)bd->total_ns / 1e6);
    frontend_line(&r->calib);
    if (r->pp > 1)
        printf("%-12s %12s %10s %10.3f  (busiest pipeline stage)\n", "stage",
               "", "", (double)bd->stage_ns / 1e6);
    if (sat != NULL) {
        printf("\nsaturation at context %s: decode batch %s = min(max_num_seqs "
               "%s, kv capacity / context %s)%s\n",
               grouped(g1, sizeof(g1), sat->context_tokens),
               grouped(g2, sizeof(g2), sat->decode_seqs),
               grouped(g3, sizeof(g3), sat->max_num_seqs),
               grouped(g4, sizeof(g4), sat->kv_limit_seqs),
               sat->limited_by_kv ? ", limited by the kv cache" : "");
        if (r->pp > 1)
            printf("  %d micro-batches of %lld sequences in flight; cycle "
                   "%.3f ms\n",
                   r->pp, (long long)sat->micro_batch_seqs,
                   (double)sat->cycle_ns / 1e6);
        printf("  step %.3f ms; %.0f output tokens/s per replica, %.0f per "
               "gpu\n",
               (double)sat->step_ns / 1e6, sat->tokens_per_s,
               sat->tokens_per_s / r->gpus);
    }
}

static void add_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_str(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, json_object_new_string(v));
}

static void print_json(const struct step_opts *o, const struct perf_replica *r,
                       const struct perf_batch *b,
                       const struct perf_breakdown *bd,
                       const struct perf_saturation *sat)
{
    json_object *j = json_object_new_object(), *x, *ops;

    add_str(j, "model", r->arch->name);
    add_str(j, "gpu", r->gpu->name);
    add_int(j, "tp", r->tp);
    add_int(j, "pp", r->pp);
    add_int(j, "ep", r->ep);
    add_int(j, "dp_attention", r->dp);
    add_int(j, "gpus", r->gpus);
    add_str(j, "weight_dtype", perf_dtype_name(r->weight_dtype));
    add_str(j, "kv_dtype", perf_dtype_name(r->kv_dtype));
    add_str(j, "calibration", r->calib.source);
    add_str(j, "cudagraph",
            bd->graph == PERF_GRAPH_FULL        ? "full"
            : bd->graph == PERF_GRAPH_PIECEWISE ? "piecewise"
                                                : "eager");
    if (r->tp > 1) {
        add_str(j, "tp_allreduce", net_car_name(bd->tp_allreduce));
        json_object_object_add(
            j, "tp_allreduce_ns",
            rpt_json_double(bd->tp_allreduce_ns, RPT_JSON_SHORTEST));
    }
    json_object_object_add(
        j, "gpu_memory_utilization",
        rpt_json_double(r->gpu_memory_utilization, RPT_JSON_SHORTEST));
    /* Whole bytes, as the table's GB are (the model computes a double). */
    add_int(j, "weight_bytes_per_gpu", llround(r->weight_bytes_per_gpu));
    add_int(j, "kv_capacity_tokens", r->kv_capacity_tokens);
    /* Only where they apply, so that other outputs keep their shape. */
    if (r->ep > 1 || bd->micro_batches > 1)
        add_int(j, "micro_batches", bd->micro_batches);
    if (r->spec_method != PERF_SPEC_NONE) {
        x = json_object_new_object();
        add_str(x, "method", perf_spec_name(r->spec_method));
        add_int(x, "tokens", r->spec_tokens);
        json_object_object_add(
            x, "acceptance",
            rpt_json_double(r->spec_acceptance, RPT_JSON_SHORTEST));
        json_object_object_add(
            x, "tokens_per_step",
            rpt_json_double(bd->spec_tokens_per_step, RPT_JSON_SHORTEST));
        json_object_object_add(j, "speculative", x);
    }
    if (r->ep > 1 && r->moe_layers > 0) {
        x = json_object_new_object();
        add_int(x, "routed", r->arch->moe.n_routed_experts);
        add_int(x, "redundant",
                r->expert_slots - r->arch->moe.n_routed_experts);
        add_int(x, "slots", r->expert_slots);
        add_int(x, "slots_per_gpu", r->slots_per_gpu);
        json_object_object_add(
            x, "imbalance",
            rpt_json_double(bd->expert_imbalance, RPT_JSON_SHORTEST));
        add_str(x, "imbalance_source",
                r->imbalance_key > 0.0 ? "given" : "uniform routing");
        json_object_object_add(j, "experts", x);
        x = json_object_new_object();
        add_str(x, "kernels", perf_a2a_name(bd->a2a_class));
        json_object_object_add(
            x, "total_ns",
            rpt_json_double(bd->a2a_total_ns, RPT_JSON_SHORTEST));
        json_object_object_add(
            x, "hidden_ns",
            rpt_json_double(bd->a2a_hidden_ns, RPT_JSON_SHORTEST));
        json_object_object_add(
            x, "exposed_ns",
            rpt_json_double(bd->a2a_exposed_ns, RPT_JSON_SHORTEST));
        json_object_object_add(j, "ep_alltoall", x);
    }

    x = json_object_new_object();
    add_int(x, "prefill_tokens", b->prefill_tokens);
    add_int(x, "prefill_ctx_tokens", b->prefill_ctx_tokens);
    add_int(x, "decode_seqs", b->decode_seqs);
    add_int(x, "decode_ctx_tokens", b->decode_ctx_tokens);
    add_int(x, "context", o->context);
    json_object_object_add(j, "batch", x);

    ops = json_object_new_array();
    for (int i = 0; i < PERF_OP_COUNT; i++) {
        const struct perf_op_cost *c = &bd->op[i];

        /* The draft class only with speculative decoding, so that other
         * outputs keep their shape. */
        if (i == PERF_OP_DRAFT && r->spec_method == PERF_SPEC_NONE)
            continue;
        x = json_object_new_object();
        add_str(x, "name", perf_op_name(i));
        json_object_object_add(x, "flops",
                               rpt_json_double(c->flops, RPT_JSON_SHORTEST));
        json_object_object_add(x, "bytes",
                               rpt_json_double(c->bytes, RPT_JSON_SHORTEST));
        json_object_object_add(x, "time_ns",
                               rpt_json_double(c->ns, RPT_JSON_SHORTEST));
        add_str(x, "bound", perf_bound_name(c->bound));
        json_object_array_add(ops, x);
    }
    json_object_object_add(j, "ops", ops);
    add_int(j, "total_ns", bd->total_ns);
    add_int(j, "stage_ns", bd->stage_ns);

    if (sat != NULL) {
        x = json_object_new_object();
        add_int(x, "context", sat->context_tokens);
        add_int(x, "max_num_seqs", sat->max_num_seqs);
        add_int(x, "kv_limit_seqs", sat->kv_limit_seqs);
        add_int(x, "decode_seqs", sat->decode_seqs);
        json_object_object_add(x, "limited_by_kv",
                               json_object_new_boolean(sat->limited_by_kv));
        add_int(x, "micro_batch_seqs", sat->micro_batch_seqs);
        add_int(x, "step_ns", sat->step_ns);
        add_int(x, "cycle_ns", sat->cycle_ns);
        json_object_object_add(
            x, "tokens_per_s",
            rpt_json_double(sat->tokens_per_s, RPT_JSON_SHORTEST));
        json_object_object_add(
            x, "tokens_per_s_per_gpu",
            rpt_json_double(sat->tokens_per_s / r->gpus, RPT_JSON_SHORTEST));
        json_object_object_add(j, "saturation", x);
    }
    rpt_json_print(stdout, j);
    json_object_put(j);
}

static void print_help(void)
{
    printf(
        "usage: dsec step %s\n\n%s\n\n"
        "MODEL is a catalog name ('dsec help models') or a Hugging Face "
        "config.json\n(or its directory); a catalog name wins.\n\n"
        "options:\n"
        "  --gpu KIND          GPU catalog name (dsec help gpus)\n"
        "  --tp N              tensor-parallel GPUs (default: the smallest "
        "power of two that fits)\n"
        "  --pp N              pipeline stages (default 1)\n"
        "  --ep N              expert-parallel GPUs, MoE only: tp or a "
        "multiple of it dividing the expert slots (default 1)\n"
        "  --redundant-experts N  extra expert slots with ep > 1, copies of "
        "hot experts\n"
        "                      (default 0; DeepSeek's decode: 32)\n"
        "  --expert-imbalance X  busiest EP rank's pairs over the mean, >= "
        "1 (default:\n"
        "                      derived from uniform routing)\n"
        "  --micro-batches N   1, or 2 to overlap the EP all-to-all with "
        "the other half's\n"
        "                      compute (two-batch overlap; default 1)\n"
        "  --speculative M     speculative decoding: none (default), mtp "
        "(the model's\n"
        "                      MTP module drafts) or ngram (host drafter)\n"
        "  --spec-tokens N     tokens drafted per sequence and step, 1-8 "
        "(default 1)\n"
        "  --acceptance A      each drafted token's acceptance, 0-1 "
        "(default for mtp\n"
        "                      0.85; required for ngram)\n"
        "  --prefill-tokens P  P prompt tokens in the batch: one chunk, or\n"
        "                      the last chunks of --prefill-seqs prompts\n"
        "  --prefill-seqs N    the prefill tokens are N prompts of P/N tokens\n"
        "                      each (default 1)\n"
        "  --decode-seqs D     D decoding sequences in the batch (default "
        "1 without a prefill)\n"
        "  --context L         tokens each sequence already has cached "
        "(default 0)\n"
        "  --dtype D           weights: bf16, fp8 or int4 (default: the "
        "model's release)\n"
        "  --kv-dtype D        kv cache: bf16 or fp8 (default bf16)\n"
        "  --gpu-memory-utilization F  fraction of HBM for the engine "
        "(default 0.9)\n"
        "  --gpus-per-node N   GPUs per node (default 8)\n"
        "  --calibration FILE  calibration profile (docs/step-time.md)\n"
        "  --saturate          decode at the largest batch that fits "
        "(needs --context)\n"
        "  --max-num-seqs N    batch cap for --saturate (default: vLLM's, "
        "1024 or 256)\n"
        "  --disable-custom-all-reduce  price every tensor-parallel "
        "all-reduce with NCCL\n"
        "  --json              one JSON object instead of the table\n",
        cli_cmd_step.usage, cli_cmd_step.summary);
}

static int parse_args(int argc, char **argv, struct step_opts *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"tp", required_argument, NULL, 't'},
        {"pp", required_argument, NULL, 'p'},
        {"ep", required_argument, NULL, 'e'},
        {"redundant-experts", required_argument, NULL, 'R'},
        {"expert-imbalance", required_argument, NULL, 'I'},
        {"micro-batches", required_argument, NULL, 'M'},
        {"speculative", required_argument, NULL, 'S'},
        {"spec-tokens", required_argument, NULL, 'K'},
        {"acceptance", required_argument, NULL, 'a'},
        {"prefill-tokens", required_argument, NULL, 'P'},
        {"prefill-seqs", required_argument, NULL, 'Q'},
        {"decode-seqs", required_argument, NULL, 'D'},
        {"context", required_argument, NULL, 'L'},
        {"dtype", required_argument, NULL, 'w'},
        {"kv-dtype", required_argument, NULL, 'k'},
        {"gpu-memory-utilization", required_argument, NULL, 'u'},
        {"gpus-per-node", required_argument, NULL, 'n'},
        {"calibration", required_argument, NULL, 'c'},
        {"saturate", no_argument, NULL, 's'},
        {"max-num-seqs", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'j'},
        {"disable-custom-all-reduce", no_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, rc = 0;
    char *end;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'g':
            o->gpu = optarg;
            break;
        case 't':
            rc = parse_count("--tp", optarg, 1, 1024, &o->tp);
            break;
        case 'p':
            rc = parse_count("--pp", optarg, 1, 1024, &o->pp);
            break;
        case 'e':
            rc = parse_count("--ep", optarg, 1, 4096, &o->ep);
            break;
        case 'R':
            rc = parse_count("--redundant-experts", optarg, 0, 4096,
                             &o->redundant);
            break;
        case 'M':
            rc =
                parse_count("--micro-batches", optarg, 1, 2, &o->micro_batches);
            break;
        case 'S':
        case 'K':
        case 'a':
            rc = cli_spec_parse(&cli_cmd_step, opt, optarg, &o->spec);
            break;
        case 'I':
            errno = 0;
            o->imbalance = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || errno != 0 ||
                !(o->imbalance >= 1.0) || isinf(o->imbalance))
                rc = cli_usage_error(&cli_cmd_step,
                                     "--expert-imbalance: expected a number "
                                     ">= 1");
            break;
        case 'P':
            rc = parse_count("--prefill-tokens", optarg, 0, INT64_C(1) << 40,
                             &o->prefill_tokens);
            break;
        case 'Q':
            rc = parse_count("--prefill-seqs", optarg, 1, INT64_C(1) << 30,
                             &o->prefill_seqs);
            break;
        case 'D':
            rc = parse_count("--decode-seqs", optarg, 0, INT64_C(1) << 30,
                             &o->decode_seqs);
            o->decode_given = 1;
            break;
        case 'L':
            rc = parse_count("--context", optarg, 0, INT64_C(1) << 40,
                             &o->context);
            break;
        case 'w':
            rc = parse_dtype("--dtype", optarg, 0, &o->weight_dtype);
            break;
        case 'k':
            rc = parse_dtype("--kv-dtype", optarg, 1, &o->kv_dtype);
            break;
        case 'u':
            errno = 0;
            o->util = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || errno != 0 ||
                !(o->util > 0.0 && o->util <= 1.0))
                rc = cli_usage_error(&cli_cmd_step,
                                     "--gpu-memory-utilization: expected a "
                                     "number in (0, 1]");
            break;
        case 'n':
            rc = parse_count("--gpus-per-node", optarg, 1, 1024,
                             &o->gpus_per_node);
            break;
        case 'c':
            o->calib_path = optarg;
            break;
        case 's':
            o->saturate = 1;
            break;
        case 'm':
            rc = parse_count("--max-num-seqs", optarg, 1, INT64_C(1) << 30,
                             &o->max_num_seqs);
            break;
        case 'j':
            o->json = 1;
            break;
        case 'A':
            o->no_custom_ar = 1;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return cli_usage_error(&cli_cmd_step, NULL);
        }
        if (rc != 0)
            return rc;
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_step, "expected one model name");
    o->model = argv[optind];
    if (o->gpu == NULL)
        return cli_usage_error(&cli_cmd_step, "--gpu is required");
    if (o->saturate && o->context < 1)
        return cli_usage_error(&cli_cmd_step,
                               "--saturate needs --context L >= 1");
    if (o->saturate && (o->prefill_tokens > 0 || o->decode_given))
        return cli_usage_error(&cli_cmd_step,
                               "--saturate chooses the decode batch itself; "
                               "drop --prefill-tokens and --decode-seqs");
    if (o->max_num_seqs > 0 && !o->saturate)
        return cli_usage_error(&cli_cmd_step,
                               "--max-num-seqs goes with --saturate");
    return cli_spec_finish(&cli_cmd_step, &o->spec);
}

/* ---- run ---- */

/* What the command computed; run_fini() frees it. */
struct run {
    struct arch_spec *loaded; /* a model read from a config.json, or NULL */
    struct perf_calib cal;
    int have_cal;
    struct perf_replica r;
    struct perf_batch b;
    struct perf_breakdown bd;
    struct perf_saturation sat;
};

/* Resolves the GPU, the model, the calibration and the replica's tp, then
 * prices the batch (or finds the saturated one). Prints what is wrong to
 * stderr. Returns an exit status. o's defaults that depend on the model
 * are filled in. */
static int evaluate(struct step_opts *o, struct run *x)
{
    const struct arch_spec *a;
    const struct gpu_spec *g = gpu_find(o->gpu);
    struct perf_gpu_calib gc;
    struct perf_layout l;
    struct perf_batch *b = &x->b;
    struct sim_diag d;
    char why[1024];
    int rc;

    if (g == NULL) {
        char *names = gpu_names();
        fprintf(stderr, "dsec step: unknown gpu '%s'; valid: %s\n", o->gpu,
                names);
        free(names);
        return CLI_EXIT_INPUT;
    }
    a = cli_resolve_model("step", o->model, &x->loaded);
    if (a == NULL)
        return CLI_EXIT_INPUT;
    if (o->weight_dtype < 0)
        o->weight_dtype = a->weight_dtype;
    if (o->calib_path != NULL) {
        sim_diag_init(&d);
        if (perf_calib_load(o->calib_path, &x->cal, &d) != 0) {
            sim_diag_print(&d, stderr);
            sim_diag_fini(&d);
            return CLI_EXIT_INPUT;
        }
        sim_diag_fini(&d);
        x->have_cal = 1;
    }
    perf_calib_resolve(x->have_cal ? &x->cal : NULL, g, &gc);

    memset(&l, 0, sizeof(l));
    l.pp = (int)o->pp;
    l.ep = (int)o->ep;
    l.redundant_experts = (int)o->redundant;
    l.expert_imbalance = o->imbalance;
    l.micro_batches = (int)o->micro_batches;
    if (o->spec.method > PERF_SPEC_NONE) {
        l.spec_method = o->spec.method;
        l.spec_tokens = o->spec.tokens;
        l.spec_acceptance = o->spec.acceptance;
    }
    l.gpus_per_node = (int)o->gpus_per_node;
    l.nics_per_node = 0;
    if (o->tp > 0) {
        l.tp = (int)o->tp;
        rc = perf_replica_init(&x->r, a, g, &l, o->weight_dtype, o->kv_dtype,
                               o->util, &gc, why, sizeof(why));
    } else {
        /* The smallest power-of-two tp in one node that fits (with ep a
         * multiple of it), as the scenario does when deploy.tp is unset. */
        rc = SIM_EINFEASIBLE;
        snprintf(why, sizeof(why), "no tp fits ep %lld", (long long)o->ep);
        for (int t = 1; t <= l.gpus_per_node && rc != 0; t *= 2) {
            if (o->ep > 1 && o->ep % t != 0)
                break;
            l.tp = t; /* on failure, why keeps the largest try's reason */
            rc = perf_replica_init(&x->r, a, g, &l, o->weight_dtype,
                                   o->kv_dtype, o->util, &gc, why, sizeof(why));
        }
    }
    if (rc == 0)
        x->r.custom_allreduce = !o->no_custom_ar;
    if (rc != 0) {
        fprintf(stderr, "dsec step: %s\n", why);
        return rc != SIM_EINVAL && rc != SIM_EINFEASIBLE ? CLI_EXIT_INTERNAL
                                                         : CLI_EXIT_INPUT;
    }

    if (o->saturate) {
        int64_t mns = o->max_num_seqs > 0 ? o->max_num_seqs
                                          : perf_default_max_num_seqs(g);
        if (perf_saturate(&x->r, o->context, mns, &x->sat) != 0) {
            fprintf(stderr,
                    "dsec step: context %lld exceeds the kv capacity of %lld "
                    "tokens\n",
                    (long long)o->context, (long long)x->r.kv_capacity_tokens);
            return CLI_EXIT_INPUT;
        }
        b->decode_seqs = x->sat.micro_batch_seqs;
        b->decode_ctx_tokens = x->sat.micro_batch_seqs * o->context;
        x->bd = x->sat.step;
        return CLI_EXIT_OK;
    }
    if (o->prefill_tokens == 0 && !o->decode_given)
        o->decode_seqs = 1;
    if (o->prefill_tokens + o->decode_seqs == 0)
        return cli_usage_error(&cli_cmd_step,
                               "the batch is empty: give "
                               "--prefill-tokens or --decode-seqs > 0");
    b->decode_seqs = o->decode_seqs;
    b->decode_ctx_tokens = o->decode_seqs * o->context;
    /* P prefill tokens: the last chunks of N prompts of P/N tokens each
     * (--prefill-seqs, default 1), each after L cached ones. */
    b->prefill_tokens = o->prefill_tokens;
    if (o->prefill_tokens > 0) {
        int64_t n = o->prefill_seqs > 0 ? o->prefill_seqs : 1;
        double each = (double)o->prefill_tokens / (double)n;
        if (n > o->prefill_tokens)
            return cli_usage_error(&cli_cmd_step,
                                   "--prefill-seqs: more prompts than "
                                   "prefill tokens");
        b->prefill_ctx_tokens = n * o->context;
        b->prefill_attn_pairs =
            (double)n * each * ((double)o->context + each / 2.0);
        b->prefill_seqs = n;
        b->prefill_done_seqs = n;
    } else if (o->prefill_seqs > 0) {
        return cli_usage_error(&cli_cmd_step,
                               "--prefill-seqs: needs --prefill-tokens");
    }
    perf_iteration_breakdown(&x->r, b, &x->bd);
    return CLI_EXIT_OK;
}

static void run_fini(struct run *x)
{
    if (x->have_cal)
        perf_calib_fini(&x->cal);
    arch_hf_free(x->loaded);
}

static int exec_step(int argc, char **argv)
{
    struct step_opts o = {.pp = 1,
                          .ep = 1,
                          .micro_batches = 1,
                          .gpus_per_node = 8,
                          .weight_dtype = -1,
                          .kv_dtype = CL_DTYPE_BF16,
                          .util = STEP_DEFAULT_UTIL,
                          .spec = {-1, 0, NAN}};
    struct run x;
    int status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    memset(&x, 0, sizeof(x));
    status = evaluate(&o, &x);
    if (status == CLI_EXIT_OK && o.json)
        print_json(&o, &x.r, &x.b, &x.bd, o.saturate ? &x.sat : NULL);
    else if (status == CLI_EXIT_OK)
        print_text(&o, &x.r, &x.b, &x.bd, o.saturate ? &x.sat : NULL);
    run_fini(&x);
    return status;
}

const struct cli_entry cli_cmd_step = {
    .name = "step",
    .usage = "MODEL --gpu KIND [--tp N] [--pp N] [--ep N] "
             "[--redundant-experts N] [--expert-imbalance X] "
             "[--micro-batches N] "
             "[--speculative mtp|ngram [--spec-tokens N] [--acceptance A]] "
             "[--prefill-tokens P [--prefill-seqs N]] [--decode-seqs D] "
             "[--context L] "
             "[--dtype bf16|fp8|int4] [--kv-dtype bf16|fp8] "
             "[--gpu-memory-utilization F] [--gpus-per-node N] "
             "[--calibration FILE] [--saturate [--max-num-seqs N]] "
             "[--disable-custom-all-reduce] [--json]",
    .summary = "predict one engine iteration's time per operator class, the "
               "kv capacity and the saturated output rate",
    .exec = exec_step,
};
