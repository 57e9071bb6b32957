/* dsec model [list] | dsec model show NAME [--json]: the architecture
 * catalog, and the shape and derived figures (parameters, KV bytes, weight
 * bytes, FLOPs; docs/models.md) of one catalog entry or Hugging Face
 * config.json. */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/perf/roofline.h"
#include "reports/fmt.h"
#include "base/xalloc.h"

/* Writes n with thousands separators ("1,234,567") into buf. */
static const char *commas(char *buf, size_t len, int64_t n)
{
    char digits[32];
    size_t nd, i, j = 0;
    int neg = n < 0;

    snprintf(digits, sizeof(digits), "%" PRId64, n);
    nd = strlen(digits) - (size_t)neg;
    if (neg && j + 1 < len)
        buf[j++] = '-';
    for (i = 0; i < nd && j + 1 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0 && j + 2 < len)
            buf[j++] = ',';
        buf[j++] = digits[(size_t)neg + i];
    }
    buf[j] = '\0';
    return buf;
}

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

/* Whole-model weight bytes in dtype, scales included, rounded to a byte. */
static int64_t weight_bytes(const struct arch_spec *a, int dtype)
{
    return llround((double)arch_params_total(a) *
                   perf_weight_bytes_per_param(dtype));
}

static int dense_layers(const struct arch_spec *a)
{
    return a->layers - arch_moe_layers(a);
}

/* The MLP kind as the table and the JSON name it. */
static const char *mlp_name(const struct arch_spec *a)
{
    return a->mlp == ARCH_MLP_PLAIN ? "plain_gelu" : "gated_silu";
}

static void print_table(const struct arch_spec *a)
{
    char b1[32], b2[32], b3[32];
    const struct arch_mla *m = &a->mla;
    const struct arch_moe *e = &a->moe;

    printf("%-22s %s\n", "model", a->name);
    printf("%-22s %s\n", "source", a->source);
    printf("%-22s %d\n", "layers", a->layers);
    printf("%-22s %s\n", "hidden", commas(b1, sizeof(b1), a->hidden));
    printf("%-22s %d / %d%s\n", "heads / kv heads", a->heads, a->kv_heads,
           a->attn == ARCH_ATTN_MLA ? " (nominal; MLA)" : "");
    if (a->attn == ARCH_ATTN_MLA) {
        printf("%-22s qk %d nope + %d rope, v %d\n", "head_dim",
               m->qk_nope_head_dim, m->qk_rope_head_dim, m->v_head_dim);
        printf("%-22s MLA, q_lora_rank %s, kv_lora_rank %d\n", "attention",
               commas(b1, sizeof(b1), m->q_lora_rank), m->kv_lora_rank);
    } else {
        printf("%-22s %d\n", "head_dim", a->head_dim);
        printf("%-22s %s, %d query heads per kv head%s%s%s\n", "attention",
               a->kv_heads == a->heads ? "MHA" : "GQA", a->heads / a->kv_heads,
               a->qkv_bias ? ", qkv bias" : "", a->o_bias ? ", o bias" : "",
               a->qk_norm ? ", qk-norm" : "");
    }
    if (a->indexer.n_heads > 0)
        printf("%-22s DSA, %d heads x %d, top-%s keys\n", "indexer",
               a->indexer.n_heads, a->indexer.head_dim,
               commas(b1, sizeof(b1), a->indexer.topk));
    if (arch_moe_layers(a) == 0)
        printf("%-22s %s\n", "ffn", commas(b1, sizeof(b1), a->ffn));
    else
        printf("%-22s %s (%d dense layers)\n", "ffn",
               commas(b1, sizeof(b1), a->ffn), dense_layers(a));
    printf("%-22s %s (%d matrices)%s%s\n", "mlp",
           a->mlp == ARCH_MLP_PLAIN ? "plain GELU" : "gated SiLU",
           a->mlp == ARCH_MLP_PLAIN ? 2 : 3, a->mlp_bias ? ", biases" : "",
           a->parallel ? ", parallel to attention" : "");
    printf("%-22s %s, %d a layer\n", "norms",
           a->layer_norm ? "LayerNorm" : "RMSNorm", a->shared_norm ? 1 : 2);
    if (arch_moe_layers(a) == 0) {
        printf("%-22s none\n", "moe");
    } else {
        printf("%-22s %d layers: %d routed experts, top-%d, %d shared, "
               "expert ffn %s%s\n",
               "moe", arch_moe_layers(a), e->n_routed_experts,
               e->experts_per_token, e->n_shared_experts,
               commas(b1, sizeof(b1), e->moe_ffn),
               e->router_bias ? ", router bias" : "");
        if (e->n_shared_experts > 0 && e->shared_ffn > 0)
            printf("%-22s %s%s\n", "shared expert ffn",
                   commas(b1, sizeof(b1), e->shared_ffn),
                   e->shared_gate ? ", gated" : "");
    }
    printf("%-22s %s\n", "vocab", commas(b1, sizeof(b1), a->vocab));
    printf("%-22s %s%s\n", "tied embeddings", a->tied_embeddings ? "yes" : "no",
           a->head_bias ? " (head bias)" : "");
    if (a->positions > 0)
        printf("%-22s %s learned\n", "position embedding",
               commas(b1, sizeof(b1), a->positions));
    if (a->max_positions > 0)
        printf("%-22s %s tokens\n", "max positions",
               commas(b1, sizeof(b1), a->max_positions));
    printf("%-22s %s\n", "weight dtype", dtype_name(a->weight_dtype));
    printf("%-22s %s\n", "params total",
           commas(b1, sizeof(b1), arch_params_total(a)));
    printf("%-22s %s\n", "params active",
           commas(b1, sizeof(b1), arch_params_active(a)));
    printf("%-22s %s\n", "params always read",
           commas(b1, sizeof(b1), arch_params_always_read(a)));
    printf("%-22s bf16 %s, fp8 %s\n", "kv bytes per token",
           commas(b1, sizeof(b1), arch_kv_bytes_per_token(a, 2)),
           commas(b2, sizeof(b2), arch_kv_bytes_per_token(a, 1)));
    printf("%-22s bf16 %s, fp8 %s, int4 %s\n", "weight bytes",
           commas(b1, sizeof(b1), weight_bytes(a, CL_DTYPE_BF16)),
           commas(b2, sizeof(b2), weight_bytes(a, CL_DTYPE_FP8)),
           commas(b3, sizeof(b3), weight_bytes(a, CL_DTYPE_INT4)));
    printf("%-22s %s\n", "linear flops per token",
           commas(b1, sizeof(b1), arch_linear_flops_per_token(a)));
    printf("%-22s prefill %s, decode %s\n", "attn flops per pair",
           commas(b1, sizeof(b1), (int64_t)arch_attn_flops_per_pair(a, 0)),
           commas(b2, sizeof(b2), (int64_t)arch_attn_flops_per_pair(a, 1)));
    if (a->indexer.n_heads > 0)
        printf("%-22s %s per pair, every cached key\n", "indexer flops",
               commas(b1, sizeof(b1), (int64_t)arch_indexer_flops_per_pair(a)));
}

static void add_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_bool(json_object *o, const char *key, int v)
{
    json_object_object_add(o, key, json_object_new_boolean(v));
}

static void print_json(const struct arch_spec *a)
{
    json_object *o = json_object_new_object(), *x;

    json_object_object_add(o, "name", json_object_new_string(a->name));
    json_object_object_add(o, "source", json_object_new_string(a->source));
    add_int(o, "layers", a->layers);
    add_int(o, "hidden", a->hidden);
    add_int(o, "heads", a->heads);
    add_int(o, "kv_heads", a->kv_heads);
    add_int(o, "head_dim", a->head_dim);
    json_object_object_add(
        o, "attention",
        json_object_new_string(a->attn == ARCH_ATTN_MLA ? "MLA" : "GQA"));
    if (a->attn == ARCH_ATTN_MLA) {
        x = json_object_new_object();
        add_int(x, "q_lora_rank", a->mla.q_lora_rank);
        add_int(x, "kv_lora_rank", a->mla.kv_lora_rank);
        add_int(x, "qk_nope_head_dim", a->mla.qk_nope_head_dim);
        add_int(x, "qk_rope_head_dim", a->mla.qk_rope_head_dim);
        add_int(x, "v_head_dim", a->mla.v_head_dim);
        add_int(x, "fp8_scale_group", a->mla.fp8_scale_group);
        json_object_object_add(o, "mla", x);
    }
    add_bool(o, "qkv_bias", a->qkv_bias);
    add_bool(o, "qk_norm", a->qk_norm);
    if (a->indexer.n_heads > 0) {
        x = json_object_new_object();
        add_int(x, "n_heads", a->indexer.n_heads);
        add_int(x, "head_dim", a->indexer.head_dim);
        add_int(x, "topk", a->indexer.topk);
        add_int(x, "params_per_layer", arch_params_indexer(a));
        json_object_object_add(o, "indexer", x);
    }
    add_int(o, "ffn", a->ffn);
    json_object_object_add(o, "mlp", json_object_new_string(mlp_name(a)));
    add_bool(o, "mlp_bias", a->mlp_bias);
    add_bool(o, "o_bias", a->o_bias);
    json_object_object_add(
        o, "norm", json_object_new_string(a->layer_norm ? "layer" : "rms"));
    add_int(o, "norms_per_layer", a->shared_norm ? 1 : 2);
    add_bool(o, "parallel_attn_mlp", a->parallel);
    add_int(o, "positions", a->positions);
    add_int(o, "max_positions", a->max_positions);
    add_int(o, "dense_layers", dense_layers(a));
    if (arch_moe_layers(a) > 0) {
        x = json_object_new_object();
        add_int(x, "moe_layers", arch_moe_layers(a));
        add_int(x, "routed_experts", a->moe.n_routed_experts);
        add_int(x, "experts_per_token", a->moe.experts_per_token);
        add_int(x, "shared_experts", a->moe.n_shared_experts);
        add_int(x, "expert_ffn", a->moe.moe_ffn);
        add_int(x, "shared_expert_ffn",
                a->moe.n_shared_experts == 0 ? 0
                : a->moe.shared_ffn > 0      ? a->moe.shared_ffn
                                             : a->moe.moe_ffn);
        add_bool(x, "router_bias", a->moe.router_bias);
        add_int(x, "params_per_expert", arch_params_expert(a));
        json_object_object_add(o, "moe", x);
    } else {
        json_object_object_add(o, "moe", NULL);
    }
    add_int(o, "vocab", a->vocab);
    add_bool(o, "tied_embeddings", a->tied_embeddings);
    json_object_object_add(o, "weight_dtype",
                           json_object_new_string(dtype_name(a->weight_dtype)));
    add_int(o, "params_total", arch_params_total(a));
    add_int(o, "params_active", arch_params_active(a));
    add_int(o, "params_always_read", arch_params_always_read(a));
    x = json_object_new_object();
    add_int(x, "bf16", arch_kv_bytes_per_token(a, 2));
    add_int(x, "fp8", arch_kv_bytes_per_token(a, 1));
    json_object_object_add(o, "kv_bytes_per_token", x);
    x = json_object_new_object();
    add_int(x, "bf16", weight_bytes(a, CL_DTYPE_BF16));
    add_int(x, "fp8", weight_bytes(a, CL_DTYPE_FP8));
    add_int(x, "int4", weight_bytes(a, CL_DTYPE_INT4));
    json_object_object_add(o, "weight_bytes", x);
    add_int(o, "linear_flops_per_token", arch_linear_flops_per_token(a));
    x = json_object_new_object();
    add_int(x, "prefill", (int64_t)arch_attn_flops_per_pair(a, 0));
    add_int(x, "decode", (int64_t)arch_attn_flops_per_pair(a, 1));
    json_object_object_add(o, "attn_flops_per_pair", x);
    add_int(o, "attn_topk", arch_attn_topk(a));
    add_int(o, "indexer_flops_per_pair",
            (int64_t)arch_indexer_flops_per_pair(a));
    rpt_json_print(stdout, o);
    json_object_put(o);
}

static void list_models(void)
{
    for (int i = 0; arch_table[i] != NULL; i++)
        printf("%-16s %s\n", arch_table[i]->name, arch_table[i]->summary);
}

static void print_help(void)
{
    printf("usage: dsec model %s\n\n"
           "  dsec model [list]           list the architecture catalog\n"
           "  dsec model show NAME [--json]\n"
           "                              show a model's shape and derived "
           "figures\n\n"
           "NAME is a catalog name or the path of a Hugging Face config.json "
           "or of the\ndirectory holding one (a catalog name wins; write "
           "./NAME for a directory\nof that name). --json prints exact "
           "integers as one JSON object.\n",
           cli_cmd_model.usage);
}

/* dsec model show NAME [--json]. */
static int show(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const struct arch_spec *a;
    struct arch_spec *loaded = NULL;
    int json = 0, opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'j':
            json = 1;
            break;
        case 'h':
            print_help();
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(&cli_cmd_model, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_model,
                               "show: expected one model name or path");
    a = cli_resolve_model("model", argv[optind], &loaded);
    if (a == NULL)
        return CLI_EXIT_INPUT;
    if (json)
        print_json(a);
    else
        print_table(a);
    arch_hf_free(loaded);
    return CLI_EXIT_OK;
}

static int exec_model(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "list") == 0) {
        if (argc > 2)
            return cli_usage_error(&cli_cmd_model, "list: takes no arguments");
        list_models();
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_help();
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    fprintf(stderr, "dsec model: unknown subcommand '%s'; valid: list, show\n",
            argv[1]);
    return cli_usage_error(&cli_cmd_model, NULL);
}

const struct cli_entry cli_cmd_model = {
    .name = "model",
    .usage = "[list] | show NAME|CONFIG.JSON|DIR [--json]",
    .summary = "list the model catalog, or show a model's parameters, KV "
               "bytes and FLOPs",
    .exec = exec_model,
};
