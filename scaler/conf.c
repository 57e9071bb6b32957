/* dsec-scaler configuration; see config.h. The YAML is loaded as a libyaml
 * document and walked key by key, so every message can name the position
 * of the offending node. Policy parameters and guard rails go through the
 * same parameter rows (base/param.h) as a scenario's policy block, so a
 * policy is configured identically in simulation and in production. */
#include "scaler/conf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"

/* Families per engine: vLLM V1 names (FACTS.md §6.1), SGLang names
 * (FACTS.md §6.2). SGLang has no per-request token histograms; NULL
 * entries fall back as docs/scaler.md describes. */
static const char *const vllm_names[SCL_M_N] = {
    "vllm:num_requests_running",        "vllm:num_requests_waiting",
    "vllm:kv_cache_usage_perc",         "vllm:cache_config_info",
    "vllm:request_success_total",       "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",     "vllm:request_prompt_tokens",
    "vllm:request_generation_tokens",   "vllm:time_to_first_token_seconds",
    "vllm:inter_token_latency_seconds",
};
static const char *const sglang_names[SCL_M_N] = {
    "sglang:num_running_reqs",
    "sglang:num_queue_reqs",
    "sglang:token_usage",
    "sglang:max_total_num_tokens",
    "sglang:num_requests_total",
    "sglang:prompt_tokens_total",
    "sglang:generation_tokens_total",
    NULL,
    NULL,
    "sglang:time_to_first_token_seconds",
    "sglang:inter_token_latency_seconds",
};

static const char *const family_keys[SCL_M_N] = {
    "num_running",
    "num_waiting",
    "kv_usage",
    "kv_capacity",
    "requests",
    "prompt_tokens",
    "output_tokens",
    "request_prompt_tokens",
    "request_output_tokens",
    "ttft",
    "itl",
};

static const char *const query_keys[SCL_Q_N] = {
    "num_running",
    "num_waiting",
    "kv_usage",
    "kv_capacity",
    "requests",
    "prompt_tokens",
    "output_tokens",
    "request_prompt_tokens_sum",
    "request_prompt_tokens_count",
    "request_output_tokens_sum",
    "request_output_tokens_count",
    "ttft_buckets",
    "ttft_sum",
    "itl_buckets",
    "itl_sum",
    "scrape_time",
};

const char *scl_family_key(int f)
{
    return f >= 0 && f < SCL_M_N ? family_keys[f] : "?";
}

const char *scl_query_key(int q)
{
    return q >= 0 && q < SCL_Q_N ? query_keys[q] : "?";
}

struct ctx {
    const char *file;
    yaml_document_t *doc;
    struct sim_diag *d;
    struct scl_config *c;
};

static void err_at(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void err_at(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_diag_vadd(x->d, SIM_SEV_ERROR, x->file,
                  n ? (int)n->start_mark.line + 1 : 0,
                  n ? (int)n->start_mark.column + 1 : 0, fmt, ap);
    va_end(ap);
}

static const char *scalar(struct ctx *x, const yaml_node_t *n, const char *path)
{
    if (n->type != YAML_SCALAR_NODE) {
        err_at(x, n, "%s: expected a scalar", path);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static int get_seconds(struct ctx *x, const yaml_node_t *n, const char *path,
                       double lo, int lo_excl, double *out)
{
    char err[SIM_PARAM_ERRLEN];
    const char *t = scalar(x, n, path);
    double v;

    if (t == NULL)
        return -1;
    if (sim_unit_parse(SIM_U_SECONDS, t, &v, err, sizeof(err)) != 0) {
        err_at(x, n, "%s: %s", path, err);
        return -1;
    }
    if (v < lo || (lo_excl && v == lo) || v > 86400 * 365.0) {
        err_at(x, n, "%s: %g out of range %s%g, 31536000]", path, v,
               lo_excl ? "(" : "[", lo);
        return -1;
    }
    *out = v;
    return 0;
}

static int get_int(struct ctx *x, const yaml_node_t *n, const char *path,
                   long lo, long hi, int *out)
{
    const char *t = scalar(x, n, path);
    char *end;
    long v;

    if (t == NULL)
        return -1;
    errno = 0;
    v = strtol(t, &end, 10);
    if (end == t || *end != '\0' || errno != 0) {
        err_at(x, n, "%s: expected an integer, got '%s'", path, t);
        return -1;
    }
    if (v < lo || v > hi) {
        err_at(x, n, "%s: %ld out of range [%ld, %ld]", path, v, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int get_bool(struct ctx *x, const yaml_node_t *n, const char *path,
                    int *out)
{
    const char *t = scalar(x, n, path);

    if (t == NULL)
        return -1;
    if (strcmp(t, "true") == 0 || strcmp(t, "yes") == 0) {
        *out = 1;
    } else if (strcmp(t, "false") == 0 || strcmp(t, "no") == 0) {
        *out = 0;
    } else {
        err_at(x, n, "%s: expected true or false, got '%s'", path, t);
        return -1;
    }
    return 0;
}

static void set_str(struct ctx *x, const yaml_node_t *n, const char *path,
                    char **dst)
{
    const char *t = scalar(x, n, path);

    if (t == NULL)
        return;
    free(*dst);
    *dst = xstrdup(t);
}

static int get_choice(struct ctx *x, const yaml_node_t *n, const char *path,
                      const char *const *names, int *out)
{
    const char *t = scalar(x, n, path);
    char valid[256] = "";

    if (t == NULL)
        return -1;
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(t, names[i]) == 0) {
            *out = i;
            return 0;
        }
        if (i > 0)
            strncat(valid, ", ", sizeof(valid) - strlen(valid) - 1);
        strncat(valid, names[i], sizeof(valid) - strlen(valid) - 1);
    }
    err_at(x, n, "%s: unknown value '%s'; valid: %s", path, t, valid);
    return -1;
}

static int is_mapping(struct ctx *x, const yaml_node_t *n, const char *path)
{
    if (n->type != YAML_MAPPING_NODE) {
        err_at(x, n, "%s: expected a mapping", path);
        return 0;
    }
    return 1;
}

static void unknown(struct ctx *x, const yaml_node_t *k, const char *path,
                    const char *key, const char *valid)
{
    err_at(x, k, "%s%s%s: unknown key; valid: %s", path, path[0] ? "." : "",
           key, valid);
}

/* The string list node n (a sequence of scalars) into *v, *n. */
static void get_list(struct ctx *x, yaml_node_t *n, const char *path, char ***v,
                     int *count, int terminate)
{
    int m;

    if (n->type != YAML_SEQUENCE_NODE) {
        err_at(x, n, "%s: expected a list", path);
        return;
    }
    m = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    *v = xcalloc((size_t)m + 1, sizeof(char *));
    *count = 0;
    for (int i = 0; i < m; i++) {
        yaml_node_t *it =
            yaml_document_get_node(x->doc, n->data.sequence.items.start[i]);
        const char *t = scalar(x, it, path);
        if (t != NULL)
            (*v)[(*count)++] = xstrdup(t);
    }
    (void)terminate; /* the array is always NULL-terminated */
}

#define FOR_PAIRS(x, map, k, v, key)                                           \
    for (yaml_node_pair_t *p_ = (map)->data.mapping.pairs.start;               \
         p_ < (map)->data.mapping.pairs.top; p_++)                             \
        for (yaml_node_t *k = yaml_document_get_node((x)->doc, p_->key),       \
                         *v = yaml_document_get_node((x)->doc, p_->value);     \
             k != NULL; k = NULL)                                              \
            for (const char *key = k->type == YAML_SCALAR_NODE                 \
                                       ? (const char *)k->data.scalar.value    \
                                       : "";                                   \
                 key != NULL; key = NULL)

static void parse_policy(struct ctx *x, yaml_node_t *m)
{
    struct scl_config *c = x->c;
    yaml_node_t *params = NULL;
    yaml_node_t *name_node = NULL;
    const char *name = "target-latency";
    char err[SIM_PARAM_ERRLEN];

    if (!is_mapping(x, m, "policy"))
        return;
    FOR_PAIRS(x, m, k, v, key)
    {
        const char *gkey = key;
        const struct sim_param *row;

        if (strcmp(key, "name") == 0) {
            name_node = v;
            continue;
        }
        if (strcmp(key, "params") == 0) {
            params = v;
            continue;
        }
        /* The contract's aliases of the scenario's guard keys. */
        if (strcmp(key, "cooldown_up_s") == 0)
            gkey = "scale_up_cooldown";
        else if (strcmp(key, "cooldown_down_s") == 0)
            gkey = "scale_down_cooldown";
        row = strcmp(gkey, "interval") == 0
                  ? NULL
                  : sim_param_find(pol_guard_params_rows, gkey);
        if (row == NULL) {
            unknown(x, k, "policy", key,
                    "name, params, scale_up_cooldown (cooldown_up_s), "
                    "scale_down_cooldown (cooldown_down_s), max_step_up, "
                    "max_step_down");
            continue;
        }
        if (scalar(x, v, "policy") == NULL)
            continue;
        if (sim_param_parse(row, (const char *)v->data.scalar.value, &c->guard,
                            err, sizeof(err)) != 0)
            err_at(x, v, "policy.%s: %s", key, err);
    }
    if (name_node != NULL) {
        name = scalar(x, name_node, "policy.name");
        if (name == NULL)
            return;
    }
    c->policy = pol_find(name);
    if (c->policy == NULL) {
        char *names = pol_names();
        err_at(x, name_node, "policy.name: unknown policy '%s'; valid: %s",
               name, names);
        free(names);
        return;
    }
    c->policy_params =
        xcalloc(1, c->policy->params_size ? c->policy->params_size : 1);
    if (pol_params_default(c->policy, c->policy_params, err, sizeof(err)) != 0)
        err_at(x, name_node, "policy %s: bad default: %s", name, err);
    if (params == NULL || !is_mapping(x, params, "policy.params"))
        return;
    FOR_PAIRS(x, params, k, v, key)
    {
        const struct sim_param *row = sim_param_find(c->policy->params, key);
        if (row == NULL) {
            char keys[512] = "";
            for (const struct sim_param *q = c->policy->params; q && q->key;
                 q++) {
                if (keys[0] != '\0')
                    strncat(keys, ", ", sizeof(keys) - strlen(keys) - 1);
                strncat(keys, q->key, sizeof(keys) - strlen(keys) - 1);
            }
            err_at(x, k,
                   "policy.params.%s: unknown parameter of policy %s; "
                   "valid: %s",
                   key, name, keys[0] ? keys : "(none)");
            continue;
        }
        if (scalar(x, v, "policy.params") == NULL)
            continue;
        if (sim_param_parse(row, (const char *)v->data.scalar.value,
                            c->policy_params, err, sizeof(err)) != 0)
            err_at(x, v, "policy.params.%s: %s", key, err);
    }
}

static void parse_map_of_strings(struct ctx *x, yaml_node_t *m,
                                 const char *path, const char *const *keys,
                                 int nkeys, char **dst)
{
    if (!is_mapping(x, m, path))
        return;
    FOR_PAIRS(x, m, k, v, key)
    {
        int found = -1;
        for (int i = 0; i < nkeys; i++)
            if (strcmp(key, keys[i]) == 0)
                found = i;
        if (found < 0) {
            char valid[512] = "";
            for (int i = 0; i < nkeys; i++) {
                if (i > 0)
                    strncat(valid, ", ", sizeof(valid) - strlen(valid) - 1);
                strncat(valid, keys[i], sizeof(valid) - strlen(valid) - 1);
            }
            unknown(x, k, path, key, valid);
            continue;
        }
        set_str(x, v, path, &dst[found]);
    }
}

static void parse_metrics(struct ctx *x, yaml_node_t *m)
{
    static const char *const sources[] = {"prometheus", "scrape", NULL};
    static const char *const engines[] = {"vllm", "sglang", NULL};
    struct scl_config *c = x->c;
    yaml_node_t *names = NULL, *sel = m;

    if (!is_mapping(x, m, "metrics"))
        return;
    FOR_PAIRS(x, m, k, v, key)
    {
        if (strcmp(key, "source") == 0)
            get_choice(x, v, "metrics.source", sources, &c->source);
        else if (strcmp(key, "engine") == 0)
            get_choice(x, v, "metrics.engine", engines, &c->engine);
        else if (strcmp(key, "prometheus_url") == 0)
            set_str(x, v, "metrics.prometheus_url", &c->prometheus_url);
        else if (strcmp(key, "selector") == 0) {
            set_str(x, v, "metrics.selector", &c->selector);
            sel = v;
        } else if (strcmp(key, "queries") == 0)
            parse_map_of_strings(x, v, "metrics.queries", query_keys, SCL_Q_N,
                                 c->queries);
        else if (strcmp(key, "names") == 0)
            names = v;
        else if (strcmp(key, "targets") == 0)
            get_list(x, v, "metrics.targets", &c->targets, &c->ntargets, 0);
        else if (strcmp(key, "timeout_s") == 0)
            get_seconds(x, v, "metrics.timeout_s", 0, 1, &c->http_timeout_s);
        else
            unknown(x, k, "metrics", key,
                    "source, engine, prometheus_url, selector, queries, "
                    "names, targets, timeout_s");
    }
    /* Engine defaults first, then the overrides, whatever the key order. */
    for (int f = 0; f < SCL_M_N; f++) {
        const char *def =
            c->engine == SCL_ENG_SGLANG ? sglang_names[f] : vllm_names[f];
        free(c->names[f]);
        c->names[f] = def ? xstrdup(def) : NULL;
    }
    if (names != NULL)
        parse_map_of_strings(x, names, "metrics.names", family_keys, SCL_M_N,
                             c->names);
    if (c->selector != NULL && c->selector[0] != '\0' &&
        (c->selector[0] != '{' || c->selector[strlen(c->selector) - 1] != '}'))
        err_at(x, sel,
               "metrics.selector: expected a label matcher in braces, "
               "such as '{job=\"vllm\"}'");
}

static void parse_actuator(struct ctx *x, yaml_node_t *m)
{
    static const char *const kinds[] = {"kubernetes", "exec", "log", NULL};
    struct scl_config *c = x->c;

    if (!is_mapping(x, m, "actuator"))
        return;
    FOR_PAIRS(x, m, k, v, key)
    {
        if (strcmp(key, "kind") == 0)
            get_choice(x, v, "actuator.kind", kinds, &c->actuator);
        else if (strcmp(key, "api_server") == 0)
            set_str(x, v, "actuator.api_server", &c->api_server);
        else if (strcmp(key, "namespace") == 0)
            set_str(x, v, "actuator.namespace", &c->k8s_namespace);
        else if (strcmp(key, "deployment") == 0)
            set_str(x, v, "actuator.deployment", &c->deployment);
        else if (strcmp(key, "token_file") == 0)
            set_str(x, v, "actuator.token_file", &c->token_file);
        else if (strcmp(key, "ca_file") == 0)
            set_str(x, v, "actuator.ca_file", &c->ca_file);
        else if (strcmp(key, "insecure_skip_tls_verify") == 0)
            get_bool(x, v, "actuator.insecure_skip_tls_verify",
                     &c->insecure_skip_tls_verify);
        else if (strcmp(key, "command") == 0)
            get_list(x, v, "actuator.command", &c->command, &c->ncommand, 1);
        else if (strcmp(key, "timeout_s") == 0)
            get_seconds(x, v, "actuator.timeout_s", 0, 1, &c->exec_timeout_s);
        else if (strcmp(key, "backoff_initial_s") == 0)
            get_seconds(x, v, "actuator.backoff_initial_s", 0, 1,
                        &c->backoff_initial_s);
        else if (strcmp(key, "backoff_max_s") == 0)
            get_seconds(x, v, "actuator.backoff_max_s", 0, 1,
                        &c->backoff_max_s);
        else if (strcmp(key, "max_attempts") == 0)
            get_int(x, v, "actuator.max_attempts", 1, 100, &c->max_attempts);
        else
            unknown(x, k, "actuator", key,
                    "kind, api_server, namespace, deployment, token_file, "
                    "ca_file, insecure_skip_tls_verify, command, timeout_s, "
                    "backoff_initial_s, backoff_max_s, max_attempts");
    }
    if (c->actuator == SCL_ACT_KUBERNETES) {
        if (c->deployment == NULL)
            err_at(x, m, "actuator.deployment: required for kind kubernetes");
    } else if (c->actuator == SCL_ACT_EXEC) {
        int has = 0;
        if (c->ncommand == 0)
            err_at(x, m,
                   "actuator.command: required for kind exec (a list: "
                   "program and arguments, {replicas} substituted)");
        for (int i = 0; i < c->ncommand; i++)
            has |= strstr(c->command[i], "{replicas}") != NULL;
        if (c->ncommand > 0 && !has)
            err_at(x, m, "actuator.command: no argument contains {replicas}");
    }
}

static void set_defaults(struct scl_config *c)
{
    char err[SIM_PARAM_ERRLEN];

    memset(c, 0, sizeof(*c));
    c->interval_s = 15;
    c->window_s = 60;
    c->stale_after_s = 45;
    c->min_replicas = 1;
    c->max_replicas = -1;
    c->gpus_per_replica = 1;
    c->target_itl_s = NAN;
    c->target_ttft_s = NAN;
    /* The simulator's default pool: 120 s provisioning (FACTS.md §8.1)
     * plus its default 30 s engine start (docs/orchestrator.md). */
    c->provision_s = 150;
    c->price_usd_per_replica_hour = NAN;
    for (const struct sim_param *r = pol_guard_params_rows; r->key; r++)
        if (sim_param_default(r, &c->guard, err, sizeof(err)) != 0)
            sim_fatal("guard default %s: %s", r->key, err);
    c->source = SCL_SRC_PROMETHEUS;
    c->engine = SCL_ENG_VLLM;
    c->prometheus_url = xstrdup("http://127.0.0.1:9090");
    c->selector = xstrdup("");
    c->http_timeout_s = 5;
    c->actuator = SCL_ACT_KUBERNETES;
    c->api_server = xstrdup("https://kubernetes.default.svc");
    c->k8s_namespace = xstrdup("default");
    c->exec_timeout_s = 60;
    c->backoff_initial_s = 1;
    c->backoff_max_s = 60;
    c->max_attempts = 4;
    c->listen = xstrdup("127.0.0.1:9464");
}

static void parse_root(struct ctx *x, yaml_node_t *root)
{
    struct scl_config *c = x->c;
    int seen_max = 0, seen_metrics = 0;
    yaml_node_t *at_max = root;

    FOR_PAIRS(x, root, k, v, key)
    {
        double ms;
        if (strcmp(key, "interval_s") == 0) {
            get_seconds(x, v, key, 0, 1, &c->interval_s);
        } else if (strcmp(key, "window_s") == 0) {
            get_seconds(x, v, key, 0, 1, &c->window_s);
        } else if (strcmp(key, "stale_after_s") == 0) {
            get_seconds(x, v, key, 0, 1, &c->stale_after_s);
        } else if (strcmp(key, "min_replicas") == 0) {
            get_int(x, v, key, 0, 100000, &c->min_replicas);
        } else if (strcmp(key, "max_replicas") == 0) {
            seen_max = 1;
            at_max = v;
            get_int(x, v, key, 1, 100000, &c->max_replicas);
        } else if (strcmp(key, "gpus_per_replica") == 0) {
            get_int(x, v, key, 1, 4096, &c->gpus_per_replica);
        } else if (strcmp(key, "target_latency_ms") == 0 ||
                   strcmp(key, "target_ttft_ms") == 0) {
            char err[SIM_PARAM_ERRLEN];
            const char *t = scalar(x, v, key);
            if (t == NULL)
                continue;
            if (sim_unit_parse(SIM_U_MILLISECONDS, t, &ms, err, sizeof(err)) !=
                0) {
                err_at(x, v, "%s: %s", key, err);
            } else if (!(ms > 0)) {
                err_at(x, v, "%s: %g out of range (0, inf)", key, ms);
            } else if (key[7] == 'l') {
                c->target_itl_s = ms / 1e3;
            } else {
                c->target_ttft_s = ms / 1e3;
            }
        } else if (strcmp(key, "provision_s") == 0) {
            get_seconds(x, v, key, 0, 0, &c->provision_s);
        } else if (strcmp(key, "price_per_replica_hour") == 0) {
            char err[SIM_PARAM_ERRLEN];
            const char *t = scalar(x, v, key);
            if (t != NULL && sim_unit_parse(SIM_U_USD_PER_HOUR, t,
                                            &c->price_usd_per_replica_hour, err,
                                            sizeof(err)) != 0)
                err_at(x, v, "%s: %s", key, err);
        } else if (strcmp(key, "policy") == 0) {
            parse_policy(x, v);
        } else if (strcmp(key, "metrics") == 0) {
            seen_metrics = 1;
            parse_metrics(x, v);
        } else if (strcmp(key, "actuator") == 0) {
            parse_actuator(x, v);
        } else if (strcmp(key, "listen") == 0) {
            set_str(x, v, key, &c->listen);
        } else {
            unknown(x, k, "", key,
                    "interval_s, window_s, stale_after_s, min_replicas, "
                    "max_replicas, gpus_per_replica, target_latency_ms, "
                    "target_ttft_ms, provision_s, price_per_replica_hour, "
                    "policy, metrics, actuator, listen");
        }
    }
    if (!seen_max)
        err_at(x, root, "max_replicas: required");
    else if (c->max_replicas >= 0 && c->min_replicas > c->max_replicas)
        err_at(x, at_max, "max_replicas: %d is below min_replicas %d",
               c->max_replicas, c->min_replicas);
    if (!seen_metrics) {
        /* Engine defaults for the names even without a metrics block. */
        for (int f = 0; f < SCL_M_N; f++)
            c->names[f] = vllm_names[f] ? xstrdup(vllm_names[f]) : NULL;
    }
    if (c->source == SCL_SRC_SCRAPE && c->ntargets == 0)
        err_at(x, root, "metrics.targets: required for source scrape");
    if (c->policy == NULL && sim_diag_errors(x->d) == 0) {
        c->policy = pol_find("target-latency");
        if (c->policy != NULL) {
            char err[SIM_PARAM_ERRLEN];
            c->policy_params =
                xcalloc(1, c->policy->params_size ? c->policy->params_size : 1);
            if (pol_params_default(c->policy, c->policy_params, err,
                                   sizeof(err)) != 0)
                sim_fatal("policy default: %s", err);
        }
    }
    c->guard.interval_s = c->interval_s;
    if (c->window_s < c->interval_s)
        err_at(x, root, "window_s: %g is shorter than interval_s %g",
               c->window_s, c->interval_s);
}

int scl_config_parse(const char *name, const char *text, size_t len,
                     struct scl_config *out, struct sim_diag *d)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root;
    struct ctx x;
    int before = sim_diag_errors(d);

    set_defaults(out);
    out->file = xstrdup(name);
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        sim_diag_error(d, name, (int)parser.problem_mark.line + 1,
                       (int)parser.problem_mark.column + 1, "%s",
                       parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        scl_config_fini(out);
        return SIM_EPARSE;
    }
    yaml_parser_delete(&parser);
    x.file = name;
    x.doc = &doc;
    x.d = d;
    x.c = out;
    root = yaml_document_get_root_node(&doc);
    if (root == NULL)
        sim_diag_error(d, name, 1, 1,
                       "empty configuration; max_replicas and "
                       "metrics are required");
    else if (is_mapping(&x, root, "configuration"))
        parse_root(&x, root);
    yaml_document_delete(&doc);
    if (sim_diag_errors(d) > before) {
        scl_config_fini(out);
        return SIM_EINVAL;
    }
    return 0;
}

int scl_config_load(const char *path, struct scl_config *out,
                    struct sim_diag *d)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc;

    if (fp == NULL) {
        sim_diag_error(d, path, 0, 0, "cannot open: %s", strerror(errno));
        memset(out, 0, sizeof(*out));
        return SIM_EIO;
    }
    for (;;) {
        size_t n;
        if (len + 4096 > cap) {
            cap = cap ? cap * 2 : 8192;
            if (cap > (size_t)1 << 24) {
                fclose(fp);
                free(buf);
                sim_diag_error(d, path, 0, 0, "larger than 16 MiB");
                memset(out, 0, sizeof(*out));
                return SIM_EIO;
            }
            buf = xrealloc(buf, cap, 1);
        }
        n = fread(buf + len, 1, cap - len, fp);
        len += n;
        if (n == 0)
            break;
    }
    fclose(fp);
    rc = scl_config_parse(path, buf, len, out, d);
    free(buf);
    return rc;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void scl_config_fini(struct scl_config *c)
{
    free(c->file);
    free(c->policy_params);
    free(c->prometheus_url);
    free(c->selector);
    for (int i = 0; i < SCL_M_N; i++)
        free(c->names[i]);
    for (int i = 0; i < SCL_Q_N; i++)
        free(c->queries[i]);
    free_list(c->targets, c->ntargets);
    free(c->api_server);
    free(c->k8s_namespace);
    free(c->deployment);
    free(c->token_file);
    free(c->ca_file);
    free_list(c->command, c->ncommand);
    free(c->listen);
    memset(c, 0, sizeof(*c));
}
