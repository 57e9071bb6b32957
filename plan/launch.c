/*
 * The launch of a plan's chosen configuration (plan/launch.h). The roles
 * are gathered first (one for a plain replica, prefill and decode for a
 * disaggregated scenario, one per pool of a mix), then each file is written
 * from them with fprintf. The flags are `vllm serve` options (EngineArgs,
 * vllm/engine/arg_utils.py; their names from recall, unverified against
 * the commits docs/sources.md §5.1 pins, so check them against the vLLM
 * you deploy); a value dsec leaves to vLLM's rule (max_num_seqs,
 * max_num_batched_tokens) is written as the number the plan priced, so that the
 * engine runs with the limits the simulation assumed even where vLLM's own rule
 * changes. The HPA's metric goes through a Prometheus adapter, as the HPA reads
 * Pods metrics only from the custom metrics API; its rule is written as a
 * comment, since the adapter's configuration is the cluster's.
 */
#include "plan/launch.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/perf/roofline.h"
#include "models/policy/policy.h"
#include "plan/plan.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"

/* The port every role's server listens on (vLLM's default). */
#define LAUNCH_PORT 8000

/* Most roles: the two groups of P/D, or one per pool of a mix. */
#define LAUNCH_MAX_ROLES PLAN_MIX_MAX_POOLS

/* One `vllm serve` command line and the replicas that run it. */
struct role {
    char name[64];    /* DNS-1123: the Deployment's and Service's name */
    const char *what; /* "replica", "prefill", "decode" or the pool name */
    const char *arg;  /* serve.sh's argument that selects it */
    const struct gpu_spec *gpu;
    int tp, pp, ep, dp; /* dp: data-parallel attention groups, ep / tp */
    int gpus;           /* per replica */
    int64_t max_num_seqs;
    int64_t max_num_batched_tokens;
    int replicas; /* at the start */
    int min_replicas, max_replicas;
    double price_usd_per_gpu_hour;
    int kv_transfer; /* 1: a P/D group (NixlConnector) */
};

struct launch {
    const struct plan *p;
    const struct plan_config *c;
    const struct plan_layout *l;
    const char *scn_file; /* the scenario's file name, without directory */
    char *model;          /* the Hugging Face id, or NULL when unknown */
    const char *policy;   /* elastic: the policy the runs used; else NULL */
    int autoscale;        /* elastic with fewer replicas than the most, not
                             a mix: an HPA (hpa) or scaler.yaml (others) */
    struct role roles[LAUNCH_MAX_ROLES];
    int nroles;
};

/* ---- Gathering -------------------------------------------------------- */

/* Copies s into buf as a DNS-1123 label: lower-case letters, digits and
 * '-', starting and ending with an alphanumeric, at most 63 bytes. */
static void dns_label(const char *s, char *buf, size_t len)
{
    size_t n = 0;

    if (len > 64)
        len = 64;
    for (; *s && n + 1 < len; s++) {
        char ch = *s;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
            ch = '-';
        if (ch == '-' && (n == 0 || buf[n - 1] == '-'))
            continue;
        buf[n++] = ch;
    }
    while (n > 0 && buf[n - 1] == '-')
        n--;
    if (n == 0 && len > 4) {
        memcpy(buf, "llm", 3);
        n = 3;
    }
    buf[n] = '\0';
}

/* The model's Hugging Face id: deploy.model_path when it is hf://ORG/NAME,
 * else the catalog entry's hf_repo; NULL when neither says. */
static char *model_id(const struct plan *p)
{
    const char *path = p->scn.deploy.model_path;

    if (path != NULL && strncmp(path, "hf://", 5) == 0 && path[5] != '\0') {
        char *id = xstrdup(path + 5);
        size_t n = strlen(id);
        while (n > 0 && id[n - 1] == '/')
            id[--n] = '\0';
        if (n > 0 && strchr(id, '/') != NULL)
            return id;
        free(id);
    }
    return p->arch != NULL && p->arch->hf_repo != NULL
               ? xstrdup(p->arch->hf_repo)
               : NULL;
}

static void role_layout(struct role *r, const struct plan_layout *l, int tp,
                        int ep, int gpus, const struct cl_pd_layout *caps)
{
    r->gpu = l->gpu;
    r->tp = tp;
    r->pp = l->pp > 1 ? l->pp : 1;
    r->ep = ep;
    r->dp = ep > tp && tp > 0 && ep % tp == 0 ? ep / tp : 1;
    r->gpus = gpus;
    r->price_usd_per_gpu_hour = l->price_usd_per_gpu_hour;
    r->max_num_seqs = caps->max_num_seqs > 0
                          ? caps->max_num_seqs
                          : perf_default_max_num_seqs(l->gpu);
    r->max_num_batched_tokens =
        caps->max_num_batched_tokens > 0
            ? caps->max_num_batched_tokens
            : perf_default_max_num_batched_tokens(l->gpu);
}

/* A mix: one role per pool it keeps, the starting replicas filled in the
 * order the cluster fills its pools (priority, then the scenario's
 * order) up to the configuration's initial (else minimum) GPUs. */
static void gather_mix(struct launch *x, const char *base)
{
    const struct plan *p = x->p;
    const struct cl_cluster *cl = &p->scn.cluster;
    int order[PLAN_MIX_MAX_POOLS], n = 0, total = 0, start;
    struct role *by_pool[PLAN_MIX_MAX_POOLS] = {0};

    for (int i = 0; i < p->mixed; i++)
        total += x->c->mix[i] * p->layouts[i].gpus;
    start = cl->min_gpus < total ? cl->min_gpus : total;
    if (cl->initial_gpus >= 1)
        start = cl->initial_gpus < start   ? start
                : cl->initial_gpus > total ? total
                                           : cl->initial_gpus;
    for (int i = 0; i < p->mixed; i++) {
        const struct plan_layout *l = &p->layouts[i];
        struct cl_pd_layout caps = cl_pool_layout_resolve(&p->scn, i);
        struct role *r;
        char full[160];

        if (x->c->mix[i] == 0)
            continue;
        r = &x->roles[x->nroles++];
        by_pool[i] = r;
        snprintf(full, sizeof(full), "%s-%s", base, l->pool_name);
        dns_label(full, r->name, sizeof(r->name));
        r->what = l->pool_name;
        r->arg = l->pool_name;
        role_layout(r, l, l->tp, l->ep, l->gpus, &caps);
        r->min_replicas = 0;
        r->max_replicas = x->c->mix[i];
        order[n++] = i;
    }
    /* Insertion sort by priority keeps the scenario's order of equals. */
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && p->scn.pools[order[k]].priority <
                                     p->scn.pools[order[k - 1]].priority;
             k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (int k = 0; k < n && start > 0; k++) {
        struct role *r = by_pool[order[k]];
        int want = (start + r->gpus - 1) / r->gpus;
        r->replicas = want < r->max_replicas ? want : r->max_replicas;
        start -= r->replicas * r->gpus;
    }
}

static void gather(struct launch *x)
{
    const struct plan *p = x->p;
    const struct plan_config *c = x->c;
    const struct plan_layout *l = x->l;
    const char *scn_name = p->scn.name != NULL ? p->scn.name : "llm";
    char base[64];

    dns_label(scn_name, base, sizeof(base));
    if (p->mixed) {
        gather_mix(x, base);
        return;
    }
    if (l->pd) {
        static const char *const what[CL_PD_GROUPS] = {
            [CL_PD_PREFILL] = "prefill",
            [CL_PD_DECODE] = "decode",
        };
        for (int g = 0; g < CL_PD_GROUPS; g++) {
            struct role *r = &x->roles[x->nroles++];
            struct cl_pd_layout caps = cl_pd_layout_resolve(&p->scn, g);
            char full[96];
            int n = g == CL_PD_PREFILL ? c->replicas : c->pd_decode;

            snprintf(full, sizeof(full), "%s-%s", base, what[g]);
            dns_label(full, r->name, sizeof(r->name));
            r->what = what[g];
            r->arg = what[g];
            role_layout(r, l, l->pd_tp[g], l->pd_ep[g], l->pd_gpus[g], &caps);
            r->replicas = r->min_replicas = r->max_replicas = n;
            r->kv_transfer = 1;
        }
        return;
    }
    {
        struct role *r = &x->roles[x->nroles++];
        struct cl_pd_layout caps = {
            .max_num_seqs = p->scn.server.max_num_seqs,
            .max_num_batched_tokens = p->scn.server.max_num_batched_tokens,
        };

        snprintf(r->name, sizeof(r->name), "%s", base);
        r->what = "replica";
        r->arg = "replica";
        role_layout(r, l, l->tp, l->ep, l->gpus, &caps);
        r->max_replicas = c->replicas;
        r->min_replicas = p->elastic ? c->min_replicas : c->replicas;
        r->replicas = p->elastic && c->initial_replicas > 0
                          ? c->initial_replicas
                          : r->min_replicas;
    }
}

/* ---- Writing helpers -------------------------------------------------- */

/* The arguments of a role's `vllm serve` after the model, NULL-terminated,
 * each owned: free with args_free(). */
static char **serve_args(const struct launch *x, const struct role *r)
{
    const struct cl_scenario *s = &x->p->scn;
    const struct cl_server *sv = &s->server;
    char **v = xcalloc(48, sizeof(*v));
    int n = 0;

    v[n++] = xstrdup("--port");
    v[n++] = xasprintf("%d", LAUNCH_PORT);
    v[n++] = xstrdup("--tensor-parallel-size");
    v[n++] = xasprintf("%d", r->tp);
    if (r->pp > 1) {
        v[n++] = xstrdup("--pipeline-parallel-size");
        v[n++] = xasprintf("%d", r->pp);
    }
    if (r->dp > 1) {
        v[n++] = xstrdup("--data-parallel-size");
        v[n++] = xasprintf("%d", r->dp);
    }
    if (r->ep > 1)
        v[n++] = xstrdup("--enable-expert-parallel");
    v[n++] = xstrdup("--max-num-seqs");
    v[n++] = xasprintf("%lld", (long long)r->max_num_seqs);
    v[n++] = xstrdup("--max-num-batched-tokens");
    v[n++] = xasprintf("%lld", (long long)r->max_num_batched_tokens);
    if (sv->max_model_len > 0) {
        v[n++] = xstrdup("--max-model-len");
        v[n++] = xasprintf("%lld", (long long)sv->max_model_len);
    }
    v[n++] = xstrdup("--gpu-memory-utilization");
    v[n++] = xasprintf("%g", sv->gpu_memory_utilization);
    if (s->deploy.kv_dtype == CL_DTYPE_FP8) {
        v[n++] = xstrdup("--kv-cache-dtype");
        v[n++] = xstrdup("fp8");
    }
    if (x->l->weight_dtype == CL_DTYPE_FP8) {
        v[n++] = xstrdup("--quantization");
        v[n++] = xstrdup("fp8");
    }
    v[n++] = xstrdup(sv->prefix_caching ? "--enable-prefix-caching"
                                        : "--no-enable-prefix-caching");
    if (sv->speculative.method != PERF_SPEC_NONE) {
        json_object *o = json_object_new_object();
        json_object_object_add(
            o, "method",
            json_object_new_string(sv->speculative.method == PERF_SPEC_MTP
                                       ? "deepseek_mtp"
                                       : "ngram"));
        json_object_object_add(o, "num_speculative_tokens",
                               json_object_new_int(sv->speculative.tokens));
        v[n++] = xstrdup("--speculative-config");
        v[n++] =
            xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    }
    if (r->kv_transfer) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "kv_connector",
                               json_object_new_string("NixlConnector"));
        json_object_object_add(o, "kv_role", json_object_new_string("kv_both"));
        v[n++] = xstrdup("--kv-transfer-config");
        v[n++] =
            xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    }
    return v;
}

static void args_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

/* Writes s single-quoted for sh ('\'' for a quote in it). */
static void sh_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", fp);
        else
            fputc(*s, fp);
    fputc('\'', fp);
}

/* Writes s as a single-quoted YAML scalar ('' for a quote in it). */
static void yaml_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', fp);
        fputc(*s, fp);
    }
    fputc('\'', fp);
}

/* Whether a word needs no quotes in sh or YAML: flags and numbers. */
static int plain_word(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_'))
            return 0;
    return 1;
}

static void layout_text(const struct role *r, int weight_dtype, char *buf,
                        size_t len)
{
    int k = snprintf(buf, len, "tp%d", r->tp);

    if (r->ep > 1 && k >= 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, " ep%d", r->ep);
    if (r->pp > 1 && k >= 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, " pp%d", r->pp);
    if (k >= 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " %s",
                 perf_dtype_name(weight_dtype));
}

/* "2", "1-4" or "0-3": the replicas a role may have. */
static void replicas_text(const struct role *r, char *buf, size_t len)
{
    if (r->min_replicas == r->max_replicas)
        snprintf(buf, len, "%d (fixed)", r->max_replicas);
    else
        snprintf(buf, len, "%d-%d, starting at %d", r->min_replicas,
                 r->max_replicas, r->replicas);
}

/* The comment above a role's command: what dsec planned for it. */
static void role_comment(FILE *fp, const struct launch *x, const struct role *r,
                         const char *indent)
{
    int node = x->p->scn.hardware.gpus_per_node;
    char lay[64], reps[64];

    layout_text(r, x->l->weight_dtype, lay, sizeof(lay));
    replicas_text(r, reps, sizeof(reps));
    fprintf(fp,
            "%s# %s: %s %s, %d GPU%s per replica; replicas %s; $%.2f per "
            "GPU-hour, $%.2f/h per replica\n",
            indent, r->what, r->gpu->name, lay, r->gpus,
            r->gpus == 1 ? "" : "s", reps, r->price_usd_per_gpu_hour,
            r->price_usd_per_gpu_hour * r->gpus);
    if (r->gpus > node && r->dp > 1 && r->tp * r->pp <= node)
        fprintf(fp,
                "%s# a replica spans %d nodes of %d GPUs: run it as vLLM's "
                "multi-node data parallel\n"
                "%s# (add --data-parallel-size-local %d, "
                "--data-parallel-address and, but on the first node,\n"
                "%s# --headless --data-parallel-start-rank)\n",
                indent, (r->gpus + node - 1) / node, node, indent,
                node / (r->tp * r->pp), indent);
    else if (r->gpus > node)
        fprintf(fp,
                "%s# a replica spans %d nodes of %d GPUs: run it on a Ray "
                "cluster (--distributed-executor-backend ray)\n",
                indent, (r->gpus + node - 1) / node, node);
    if (r->ep > 1 && r->ep < r->tp)
        fprintf(fp,
                "%s# dsec planned ep %d under tp %d; vLLM's expert "
                "parallelism spans tp x dp GPUs (here %d)\n",
                indent, r->ep, r->tp, r->tp * r->dp);
}

/* Notes that apply to every role: what has no flag; with unknown, also
 * that the model's id is unknown. */
static void common_notes(FILE *fp, const struct launch *x, const char *indent,
                         int unknown)
{
    const struct cl_scenario *s = &x->p->scn;

    if (unknown && x->model == NULL)
        fprintf(fp,
                "%s# dsec does not know the Hugging Face id of %s: set "
                "MODEL to it\n",
                indent, x->p->arch != NULL ? x->p->arch->name : "the model");
    if (s->deploy.model_path != NULL &&
        strncmp(s->deploy.model_path, "hf://", 5) != 0)
        fprintf(fp,
                "%s# the scenario loads the weights from its "
                "deploy.model_path; point MODEL at a local copy to do the "
                "same\n",
                indent);
    if (x->l->weight_dtype == CL_DTYPE_INT4)
        fprintf(fp,
                "%s# weights planned in int4: point MODEL at an int4 "
                "checkpoint (AWQ, GPTQ) of the model; vLLM reads its "
                "quantization from it\n",
                indent);
    if (x->l->weight_dtype == CL_DTYPE_BF16 && x->p->arch != NULL &&
        x->p->arch->weight_dtype == CL_DTYPE_FP8)
        fprintf(fp,
                "%s# weights planned in bf16 but released in fp8: point "
                "MODEL at a bf16 checkpoint\n",
                indent);
    if (s->server.speculative.method == PERF_SPEC_NGRAM)
        fprintf(fp,
                "%s# ngram drafting: vLLM's prompt_lookup_min/max are its "
                "defaults (dsec models the acceptance, %g)\n",
                indent, s->server.speculative.acceptance);
}

/* ---- The files -------------------------------------------------------- */

static void header(FILE *fp, const struct launch *x, const char *what)
{
    fprintf(fp,
            "# Written by dsec plan from scenario %s (%s):\n"
            "# %s of the %s that met the slo.\n"
            "# Its figures are dsec's predictions for the simulated "
            "workload, not measurements.\n",
            x->scn_file, x->p->scn.name ? x->p->scn.name : "unnamed", what,
            x->p->opts.robust ? "robust pick (--robust) among the "
                                "configurations"
                              : "cheapest configuration");
}

static void write_serve(FILE *fp, const struct launch *x)
{
    const char *first = x->roles[0].arg;

    fprintf(fp, "#!/bin/sh\n");
    header(fp, x, "the vLLM servers");
    fprintf(fp, "#\n# usage: serve.sh [ROLE]   (ROLE: ");
    for (int i = 0; i < x->nroles; i++)
        fprintf(fp, "%s%s", i ? ", " : "", x->roles[i].arg);
    fprintf(fp,
            "; default %s)\n"
            "# Runs one replica of ROLE on this machine's GPUs; start one "
            "per replica.\n",
            first);
    if (x->roles[0].kv_transfer)
        fprintf(fp, "# Disaggregated prefill/decode: requests go through a "
                    "proxy that sends each to a\n"
                    "# prefill server, then to a decode server (vLLM's "
                    "disaggregated-serving examples, llm-d).\n");
    fprintf(fp, "set -eu\n");
    if (x->model != NULL) {
        fprintf(fp, "MODEL=${MODEL:-");
        sh_quote(fp, x->model);
        fprintf(fp, "}\n");
    } else {
        fprintf(fp,
                "MODEL=${MODEL:?set MODEL to the Hugging Face id of the "
                "model, dsec does not know it for %s}\n",
                x->p->arch != NULL ? x->p->arch->name : "this model");
    }
    common_notes(fp, x, "", 0);
    fprintf(fp, "role=${1:-%s}\ncase $role in\n", first);
    for (int i = 0; i < x->nroles; i++) {
        const struct role *r = &x->roles[i];
        char **v = serve_args(x, r);

        fprintf(fp, "%s)\n", r->arg);
        role_comment(fp, x, r, "    ");
        fprintf(fp, "    exec vllm serve \"$MODEL\"");
        for (size_t k = 0; v[k] != NULL; k++) {
            fputc(' ', fp);
            if (plain_word(v[k]))
                fputs(v[k], fp);
            else
                sh_quote(fp, v[k]);
        }
        fprintf(fp, "\n    ;;\n");
        args_free(v);
    }
    fprintf(fp, "*)\n    echo \"serve.sh: unknown role '$role'; valid: ");
    for (int i = 0; i < x->nroles; i++)
        fprintf(fp, "%s%s", i ? ", " : "", x->roles[i].arg);
    fprintf(fp, "\" >&2\n    exit 2\n    ;;\nesac\n");
}

/* A Kubernetes quantity for v >= 0: whole numbers plain, others in
 * thousandths ("800m"). */
static void quantity(char *buf, size_t len, double v)
{
    if (v == floor(v) && v < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.0fm", round(v * 1000));
}

/* What an hpa metric (pol_util_metric_choices) is in vLLM's Prometheus
 * metrics: the name the adapter exposes and its PromQL. NULL expr: none. */
struct hpa_metric {
    const char *dsec;
    const char *name;
    const char *expr;
};

static const struct hpa_metric hpa_metrics[] = {
    {"concurrency", "vllm_num_requests_running_and_waiting",
     "sum(vllm:num_requests_running{<<.LabelMatchers>>} + "
     "vllm:num_requests_waiting{<<.LabelMatchers>>}) by (<<.GroupBy>>)"},
    {"num_running", "vllm_num_requests_running",
     "sum(vllm:num_requests_running{<<.LabelMatchers>>}) by (<<.GroupBy>>)"},
    {"num_waiting", "vllm_num_requests_waiting",
     "sum(vllm:num_requests_waiting{<<.LabelMatchers>>}) by (<<.GroupBy>>)"},
    {"kv_usage", "vllm_kv_cache_usage_perc",
     "max(vllm:kv_cache_usage_perc{<<.LabelMatchers>>}) by (<<.GroupBy>>)"},
    {"requests_per_s", "vllm_request_success_per_second",
     "sum(rate(vllm:request_success_total{<<.LabelMatchers>>}[1m])) by "
     "(<<.GroupBy>>)"},
    {"output_tokens_per_s", "vllm_generation_tokens_per_second",
     "sum(rate(vllm:generation_tokens_total{<<.LabelMatchers>>}[1m])) by "
     "(<<.GroupBy>>)"},
    {"ttft_p99", "vllm_time_to_first_token_p99_seconds",
     "histogram_quantile(0.99, sum(rate(vllm:time_to_first_token_seconds_"
     "bucket{<<.LabelMatchers>>}[1m])) by (le, <<.GroupBy>>))"},
    {"itl_p99", "vllm_inter_token_latency_p99_seconds",
     "histogram_quantile(0.99, sum(rate(vllm:inter_token_latency_seconds_"
     "bucket{<<.LabelMatchers>>}[1m])) by (le, <<.GroupBy>>))"},
    {NULL, NULL, NULL},
};

/* The policy's parameter block: its defaults with the scenario's
 * policy.params applied when the runs used the scenario's own policy (the
 * plan drops them for another, search.c). Caller frees; NULL for an
 * unknown policy or a value that does not parse (the scenario loaded, so
 * neither happens). */
static void *policy_block(const struct launch *x, const struct pol_entry *e)
{
    const struct cl_policy *sp = &x->p->scn.policy;
    char err[SIM_PARAM_ERRLEN];
    void *b = xcalloc(1, e->params_size ? e->params_size : 1);

    if (pol_params_default(e, b, err, sizeof(err)) != 0)
        goto fail;
    if (sp->name != NULL && strcmp(sp->name, e->name) != 0)
        return b;
    for (int i = 0; i < sp->nparams; i++) {
        const struct sim_param *row =
            sim_param_find(e->params, sp->params[i].key);
        if (row == NULL ||
            sim_param_parse(row, sp->params[i].value, b, err, sizeof(err)))
            goto fail;
    }
    return b;
fail:
    sim_param_fini(e->params, b);
    free(b);
    return NULL;
}

/* The number at row key of block b (int, enum, bool or double), NAN when
 * there is no such row. */
static double param_num(const struct pol_entry *e, const void *b,
                        const char *key)
{
    const struct sim_param *row = sim_param_find(e->params, key);
    const char *at;

    if (row == NULL)
        return NAN;
    at = (const char *)b + row->offset;
    switch (row->type) {
    case SIM_PT_INT:
    case SIM_PT_ENUM:
    case SIM_PT_BOOL: {
        int v;
        memcpy(&v, at, sizeof(v));
        return v;
    }
    case SIM_PT_DOUBLE: {
        double v;
        memcpy(&v, at, sizeof(v));
        return v;
    }
    default:
        return NAN;
    }
}

static void write_hpa(FILE *fp, const struct launch *x, const struct role *r)
{
    const struct pol_entry *e = pol_find("hpa");
    const struct cl_policy *sp = &x->p->scn.policy;
    void *b = e != NULL ? policy_block(x, e) : NULL;
    const struct hpa_metric *m = hpa_metrics;
    const struct sim_param_choice *ch;
    char q[32];

    if (b == NULL)
        return;
    ch = sim_param_choice_by_value(sim_param_find(e->params, "metric"),
                                   (int)param_num(e, b, "metric"));
    while (m->dsec != NULL && (ch == NULL || strcmp(m->dsec, ch->name) != 0))
        m++;
    quantity(q, sizeof(q), param_num(e, b, "target"));
    fprintf(fp,
            "---\n"
            "# The hpa policy dsec simulated: metric %s, target %s per "
            "pod (AverageValue).\n",
            ch != NULL ? ch->name : "?", q);
    if (m->dsec != NULL)
        fprintf(fp,
                "# A Pods metric comes from the custom metrics API: "
                "Prometheus-adapter exposes vLLM's\n"
                "# metrics under it with a rule such as\n"
                "#   - seriesQuery: "
                "'vllm:num_requests_running{namespace!=\"\",pod!=\"\"}'\n"
                "#     resources: {overrides: {namespace: {resource: "
                "namespace}, pod: {resource: pod}}}\n"
                "#     name: {as: \"%s\"}\n"
                "#     metricsQuery: '%s'\n",
                m->name, m->expr);
    fprintf(fp,
            "# Tolerance %g: the HPA's is the controller's "
            "--horizontal-pod-autoscaler-tolerance (0.1 by default).\n"
            "# dsec also held the policy to its guard rails "
            "(scale_up_cooldown %gs, scale_down_cooldown %gs,\n"
            "# max_step_up %d, max_step_down %d per %gs decision); the HPA "
            "has only its behavior below.\n",
            param_num(e, b, "tolerance"),
            (double)sp->scale_up_cooldown_ns * 1e-9,
            (double)sp->scale_down_cooldown_ns * 1e-9, sp->max_step_up,
            sp->max_step_down, (double)sp->interval_ns * 1e-9);
    if (r->min_replicas == 0)
        fprintf(fp, "# minReplicas 0 needs the HPAScaleToZero feature "
                    "gate.\n");
    fprintf(
        fp,
        "apiVersion: autoscaling/v2\n"
        "kind: HorizontalPodAutoscaler\n"
        "metadata:\n"
        "  name: %s\n"
        "spec:\n"
        "  scaleTargetRef:\n"
        "    apiVersion: apps/v1\n"
        "    kind: Deployment\n"
        "    name: %s\n"
        "  minReplicas: %d\n"
        "  maxReplicas: %d\n"
        "  metrics:\n"
        "    - type: Pods\n"
        "      pods:\n"
        "        metric:\n"
        "          name: %s\n"
        "        target:\n"
        "          type: AverageValue\n"
        "          averageValue: \"%s\"\n"
        "  behavior:\n"
        "    scaleUp:\n"
        "      stabilizationWindowSeconds: %.0f\n"
        "      selectPolicy: Max\n"
        "      policies:\n"
        "        - type: Percent\n"
        "          value: %.0f\n"
        "          periodSeconds: %.0f\n"
        "        - type: Pods\n"
        "          value: %.0f\n"
        "          periodSeconds: %.0f\n"
        "    scaleDown:\n"
        "      stabilizationWindowSeconds: %.0f\n"
        "      policies:\n"
        "        - type: Percent\n"
        "          value: %.0f\n"
        "          periodSeconds: %.0f\n",
        r->name, r->name, r->min_replicas, r->max_replicas,
        m->name != NULL ? m->name : "set-me", q,
        param_num(e, b, "scale_up_stabilization"),
        param_num(e, b, "scale_up_percent"), param_num(e, b, "scale_up_period"),
        param_num(e, b, "scale_up_pods"), param_num(e, b, "scale_up_period"),
        param_num(e, b, "scale_down_stabilization"),
        param_num(e, b, "scale_down_percent"),
        param_num(e, b, "scale_down_period"));
    sim_param_fini(e->params, b);
    free(b);
}

static void write_deployment(FILE *fp, const struct launch *x)
{
    header(fp, x, "Kubernetes manifests");
    fprintf(fp, "# One Deployment and Service per role; the image is "
                "vllm/vllm-openai at the tag you tested\n"
                "# (VLLM_TAG: replace 'latest').\n");
    if (x->autoscale)
        fprintf(fp, "# The autoscaler owns spec.replicas once it runs: drop "
                    "replicas from this file after\n"
                    "# the first apply (docs/scaler.md).\n");
    else if (x->policy != NULL && !x->p->mixed)
        fprintf(fp, "# The planned cluster's fewest and most replicas are "
                    "equal: a fixed size, no autoscaler.\n");
    if (x->p->mixed)
        fprintf(fp,
                "# A mix of pools: dsec's cluster grew into the pools in "
                "priority order under policy %s;\n"
                "# no autoscaler is written, as dsec-scaler and the HPA "
                "scale one Deployment.\n",
                x->policy != NULL ? x->policy : "(none)");
    common_notes(fp, x, "", 1);
    for (int i = 0; i < x->nroles; i++) {
        const struct role *r = &x->roles[i];
        char **v = serve_args(x, r);

        fprintf(fp, "---\n");
        role_comment(fp, x, r, "");
        fprintf(fp,
                "apiVersion: apps/v1\n"
                "kind: Deployment\n"
                "metadata:\n"
                "  name: %s\n"
                "  labels:\n"
                "    app: %s\n"
                "    app.kubernetes.io/managed-by: dsec-plan\n"
                "spec:\n"
                "  replicas: %d\n"
                "  selector:\n"
                "    matchLabels:\n"
                "      app: %s\n"
                "  template:\n"
                "    metadata:\n"
                "      labels:\n"
                "        app: %s\n"
                "    spec:\n"
                "      # %s GPUs: add the nodeSelector of your cluster's "
                "%s nodes\n"
                "      containers:\n"
                "        - name: vllm\n"
                "          image: vllm/vllm-openai:latest  # VLLM_TAG\n"
                "          command: [\"vllm\", \"serve\"]\n"
                "          args:\n"
                "            - \"$(MODEL)\"\n",
                r->name, r->name, r->replicas, r->name, r->name, r->gpu->name,
                r->gpu->name);
        for (size_t k = 0; v[k] != NULL; k++) {
            fprintf(fp, "            - ");
            if (plain_word(v[k]) && v[k][0] == '-')
                fputs(v[k], fp);
            else
                yaml_quote(fp, v[k]);
            fputc('\n', fp);
        }
        args_free(v);
        fprintf(fp, "          env:\n            - name: MODEL\n"
                    "              value: ");
        yaml_quote(fp, x->model != NULL ? x->model : "SET-ME");
        fprintf(fp,
                "%s\n"
                "          ports:\n"
                "            - name: http\n"
                "              containerPort: %d\n"
                "          resources:\n"
                "            limits:\n"
                "              nvidia.com/gpu: %d\n"
                "          readinessProbe:\n"
                "            httpGet:\n"
                "              path: /health\n"
                "              port: %d\n"
                "            periodSeconds: 10\n"
                "            failureThreshold: 3\n"
                "          volumeMounts:\n"
                "            - name: dshm\n"
                "              mountPath: /dev/shm\n"
                "      volumes:\n"
                "        - name: dshm\n"
                "          emptyDir:\n"
                "            medium: Memory\n"
                "---\n"
                "apiVersion: v1\n"
                "kind: Service\n"
                "metadata:\n"
                "  name: %s\n"
                "spec:\n"
                "  selector:\n"
                "    app: %s\n"
                "  ports:\n"
                "    - name: http\n"
                "      port: %d\n"
                "      targetPort: %d\n",
                x->model != NULL ? "" : "  # the model's Hugging Face id",
                LAUNCH_PORT, r->gpus, LAUNCH_PORT, r->name, r->name,
                LAUNCH_PORT, LAUNCH_PORT);
        if (x->autoscale && strcmp(x->policy, "hpa") == 0)
            write_hpa(fp, x, r);
    }
}

static void write_scaler(FILE *fp, const struct launch *x)
{
    const struct cl_scenario *s = &x->p->scn;
    const struct cl_policy *sp = &s->policy;
    const struct role *r = &x->roles[0];
    int own = sp->name == NULL || strcmp(sp->name, x->policy) == 0;

    header(fp, x, "the dsec-scaler configuration");
    fprintf(fp,
            "# dsec-scaler reads it (docs/scaler.md); check it with\n"
            "#   dsec-scaler --config scaler.yaml --once --dry-run\n"
            "interval_s: %gs\n"
            "window_s: %gs\n"
            "min_replicas: %d\n"
            "max_replicas: %d\n"
            "gpus_per_replica: %d\n",
            (double)sp->interval_ns * 1e-9, (double)sp->window_ns * 1e-9,
            r->min_replicas, r->max_replicas, r->gpus);
    if (s->slo.tpot_ns >= 0)
        fprintf(fp, "target_latency_ms: %g\n", (double)s->slo.tpot_ns * 1e-6);
    else if (s->cluster.target_latency_ns >= 0)
        fprintf(fp, "target_latency_ms: %g\n",
                (double)s->cluster.target_latency_ns * 1e-6);
    if (s->slo.ttft_ns >= 0)
        fprintf(fp, "target_ttft_ms: %g\n", (double)s->slo.ttft_ns * 1e-6);
    fprintf(fp,
            "price_per_replica_hour: %.4g\n"
            "policy:\n"
            "  name: %s\n",
            r->price_usd_per_gpu_hour * r->gpus, x->policy);
    if (own && sp->nparams > 0) {
        fprintf(fp, "  params:\n");
        for (int i = 0; i < sp->nparams; i++) {
            fprintf(fp, "    %s: ", sp->params[i].key);
            yaml_quote(fp, sp->params[i].value);
            fputc('\n', fp);
        }
    } else {
        fprintf(fp, "  params: {}\n");
    }
    fprintf(fp,
            "  scale_up_cooldown: %gs\n"
            "  scale_down_cooldown: %gs\n"
            "  max_step_up: %d\n"
            "  max_step_down: %d\n"
            "metrics:\n"
            "  source: prometheus\n"
            "  prometheus_url: http://127.0.0.1:9090  # your Prometheus\n"
            "  engine: vllm\n"
            "  selector: '{app=\"%s\"}'  # the label your scrape job "
            "gives the pods\n"
            "actuator:\n"
            "  kind: kubernetes\n"
            "  namespace: default\n"
            "  deployment: %s\n",
            (double)sp->scale_up_cooldown_ns * 1e-9,
            (double)sp->scale_down_cooldown_ns * 1e-9, sp->max_step_up,
            sp->max_step_down, r->name, r->name);
}

static void write_readme(FILE *fp, const struct launch *x, int scaler)
{
    const struct plan *p = x->p;
    const struct plan_config *c = x->c;
    double usd_per_h = 0;
    char lay[64];

    plan_layout_name(x->l, lay, sizeof(lay));
    for (int i = 0; i < x->nroles; i++)
        usd_per_h += x->roles[i].max_replicas * x->roles[i].gpus *
                     x->roles[i].price_usd_per_gpu_hour;
    fprintf(fp,
            "# Launch of the plan of %s\n\n"
            "Written by `dsec plan --launch` from scenario `%s`: the %s\n"
            "that met the slo",
            p->scn.name ? p->scn.name : x->scn_file, x->scn_file,
            p->opts.robust ? "robust pick (`--robust`) among the "
                             "configurations"
                           : "cheapest configuration");
    if (p->mixed)
        fprintf(fp, ", a mix of pools.\n\n");
    else
        fprintf(fp, ", %s %s %s.\n\n", x->l->gpu->name, lay,
                perf_dtype_name(x->l->weight_dtype));
    fprintf(fp,
            "* `serve.sh`: one `vllm serve` command line per role (`sh "
            "serve.sh ROLE` runs one replica\n  of it).\n"
            "* `deployment.yaml`: a Kubernetes Deployment and Service per "
            "role%s.\n",
            x->autoscale && strcmp(x->policy, "hpa") == 0
                ? ", and the HorizontalPodAutoscaler\n  of the hpa policy "
                  "with the metric and target dsec simulated"
                : "");
    if (scaler)
        fprintf(fp,
                "* `scaler.yaml`: the dsec-scaler configuration of policy "
                "%s (docs/scaler.md).\n",
                x->policy);
    fprintf(fp, "\n| role | GPU | GPUs per replica | replicas |\n"
                "|---|---|---|---|\n");
    for (int i = 0; i < x->nroles; i++) {
        char reps[64];
        replicas_text(&x->roles[i], reps, sizeof(reps));
        fprintf(fp, "| %s | %s | %d | %s |\n", x->roles[i].what,
                x->roles[i].gpu->name, x->roles[i].gpus, reps);
    }
    fprintf(fp,
            "\nWhat dsec predicted for the simulated workload (%llu "
            "requests over %.0f s%s%s; means over\n%d replication%s):\n\n"
            "* cost $%.2f for the run (%.2f GPU-hours); $%.2f/h at the "
            "most replicas\n"
            "* slo attainment %.2f%% (target %g%%)\n"
            "* p99 TTFT %.2f ms, p99 TPOT %.2f ms, p99 E2E %.0f ms\n\n"
            "These are dsec's predictions for the simulated workload, not "
            "measurements: check them\nwith a load test of the real "
            "servers before relying on them.\n",
            (unsigned long long)p->wl.requests, p->wl.span_s,
            p->opts.duration != NULL ? ", shortened by --duration " : "",
            p->opts.duration != NULL ? p->opts.duration : "",
            p->opts.replications, p->opts.replications == 1 ? "" : "s",
            c->m[PLAN_M_COST].mean, c->m[PLAN_M_GPU_HOURS].mean, usd_per_h,
            100 * c->m[PLAN_M_ATTAINMENT].mean, 100 * p->attainment,
            c->m[PLAN_M_TTFT_P99].mean, c->m[PLAN_M_TPOT_P99].mean,
            c->m[PLAN_M_E2E_P99].mean);
}

/* ---- Entry ------------------------------------------------------------ */

typedef void launch_writer_fn(FILE *fp, const struct launch *x);

static void readme_with_scaler(FILE *fp, const struct launch *x)
{
    write_readme(fp, x, 1);
}

static void readme_without_scaler(FILE *fp, const struct launch *x)
{
    write_readme(fp, x, 0);
}

/* Writes dir/name with fn (mode 0755 when exec). Returns 0 or SIM_EIO. */
static int write_file(const struct launch *x, const char *dir, const char *name,
                      int exec, launch_writer_fn *fn, struct sim_diag *d)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    int rc = 0;

    if (fp == NULL) {
        sim_diag_error(d, "dsec plan", 0, 0, "--launch %s: %s: %s", dir, name,
                       strerror(errno));
        free(path);
        return SIM_EIO;
    }
    fn(fp, x);
    if (ferror(fp))
        rc = SIM_EIO;
    if (fclose(fp) != 0)
        rc = SIM_EIO;
    if (rc == 0 && exec && chmod(path, 0755) != 0)
        rc = SIM_EIO;
    if (rc != 0)
        sim_diag_error(d, "dsec plan", 0, 0, "--launch %s: %s: %s", dir, name,
                       strerror(errno));
    free(path);
    return rc;
}

int plan_launch_write(const struct plan *p, const char *dir, struct sim_diag *d)
{
    struct launch x = {0};
    struct stat st;
    const char *slash;
    int rc, scaler;
    char *old;

    if (p->chosen < 0) {
        sim_diag_error(d, "dsec plan", 0, 0,
                       "--launch %s: nothing chosen; nothing written", dir);
        return SIM_EINVAL;
    }
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            sim_diag_error(d, "dsec plan", 0, 0,
                           "--launch %s: exists and is not a directory", dir);
            return SIM_EIO;
        }
    } else if (errno != ENOENT || mkdir(dir, 0777) != 0) {
        sim_diag_error(d, "dsec plan", 0, 0, "--launch %s: %s", dir,
                       strerror(errno));
        return SIM_EIO;
    }
    x.p = p;
    x.c = &p->configs[p->chosen];
    x.l = &p->layouts[x.c->layout];
    slash = strrchr(p->scenario_file, '/');
    x.scn_file = slash != NULL ? slash + 1 : p->scenario_file;
    x.model = model_id(p);
    if (p->elastic)
        x.policy = x.c->policy_run != NULL      ? x.c->policy_run
                   : x.c->policy != NULL        ? x.c->policy
                   : p->scn.policy.name != NULL ? p->scn.policy.name
                                                : "target-latency";
    gather(&x);
    x.autoscale = x.policy != NULL && !p->mixed &&
                  x.roles[0].min_replicas < x.roles[0].max_replicas;
    scaler = x.autoscale && strcmp(x.policy, "hpa") != 0;

    rc = write_file(&x, dir, PLAN_LAUNCH_SERVE, 1, write_serve, d);
    if (rc == 0)
        rc =
            write_file(&x, dir, PLAN_LAUNCH_DEPLOYMENT, 0, write_deployment, d);
    if (rc == 0 && scaler)
        rc = write_file(&x, dir, PLAN_LAUNCH_SCALER, 0, write_scaler, d);
    if (rc == 0)
        rc = write_file(&x, dir, PLAN_LAUNCH_README, 0,
                        scaler ? readme_with_scaler : readme_without_scaler, d);
    /* A scaler.yaml of an earlier launch into the same directory would
     * contradict this one. */
    old = xasprintf("%s/%s", dir, PLAN_LAUNCH_SCALER);
    if (rc == 0 && !scaler && unlink(old) != 0 && errno != ENOENT) {
        sim_diag_error(d, "dsec plan", 0, 0, "--launch %s: %s: %s", dir,
                       PLAN_LAUNCH_SCALER, strerror(errno));
        rc = SIM_EIO;
    }
    free(old);
    free(x.model);
    return rc;
}
