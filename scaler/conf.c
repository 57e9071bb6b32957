/* dsec-scaler configuration; see conf.h. The file is read by the
 * toolbox's YAML-over-rows walker (base/yaml-rows.h) over the rows below,
 * so its units, ranges and messages are a scenario's and every message
 * names the position of the offending node. The guard rails are the
 * simulator's own rows (pol_guard_params_rows) and the policy parameters
 * the policy's, so a policy is configured identically in simulation and in
 * production. What rows cannot say (the policy looked up by name, engine
 * defaults of the metric names, the actuator's required keys) is checked
 * when its section has been walked. */
#include "scaler/conf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

/* Families per engine: vLLM V1 names (docs/sources.md §6.1), SGLang names
 * (docs/sources.md §6.2). SGLang has no per-request token histograms; NULL
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

/* Largest configuration file read, in bytes. */
#define SCL_CONFIG_MAX_BYTES (16u << 20)

/* One policy.params pair as given, checked against the policy's rows once
 * the policy is known. */
struct param_text {
    char *key;
    char *value;
    int kline, kcol, vline, vcol;
};

/* What the rows fill: the configuration itself, and the keys that need a
 * step after their section (the policy by name, its parameters as text,
 * the two targets in milliseconds). */
struct scl_file {
    struct scl_config c;
    char *policy_name;
    char *policy_plugin;       /* policy.plugin, or NULL */
    struct param_text *params; /* owned, nparams entries */
    int nparams;
    double target_latency_ms; /* NAN when not given */
    double target_ttft_ms;
};

#define F(f) offsetof(struct scl_file, f)
#define C(f) offsetof(struct scl_file, c.f)
#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define GT SIM_PF_MIN_EXCL
#define YEAR_S (86400 * 365.0)

_Static_assert(offsetof(struct scl_config, ntargets) ==
                   offsetof(struct scl_config, targets) + sizeof(void *),
               "ntargets must follow targets");
_Static_assert(offsetof(struct scl_config, ncommand) ==
                   offsetof(struct scl_config, command) + sizeof(void *),
               "ncommand must follow command");
_Static_assert(offsetof(struct scl_file, nparams) ==
                   offsetof(struct scl_file, params) + sizeof(void *),
               "nparams must follow params");

/* A duration in seconds of at most a year, stored as a double. */
#define SECONDS(key, lo_flags, def, help, field)                               \
    {                                                                          \
        key, SIM_PT_DOUBLE, SIM_U_SECONDS, 0, YEAR_S, lo_flags, def, help,     \
            C(field), NULL, NULL                                               \
    }

/* An owned string of the configuration. */
#define STRING(key, def, help, field)                                          \
    {                                                                          \
        key, SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, def, help, field,     \
            NULL, NULL                                                         \
    }

static const struct sim_param string_rows[] = {
    STRING("", NULL, "one string", 0),
    SIM_PARAM_END_LIST(char *),
};

/* Metric family overrides, in enum scl_family order. */
static const struct sim_param name_rows[] = {
    STRING("num_running", NULL, "gauge: requests running",
           C(names[SCL_M_RUNNING])),
    STRING("num_waiting", NULL, "gauge: requests queued",
           C(names[SCL_M_WAITING])),
    STRING("kv_usage", NULL, "gauge: KV cache use", C(names[SCL_M_KV_USAGE])),
    STRING("kv_capacity", NULL, "info gauge: KV capacity",
           C(names[SCL_M_KV_CAPACITY])),
    STRING("requests", NULL, "counter: finished requests",
           C(names[SCL_M_REQUESTS])),
    STRING("prompt_tokens", NULL, "counter: prompt tokens",
           C(names[SCL_M_PROMPT_TOKENS])),
    STRING("output_tokens", NULL, "counter: generated tokens",
           C(names[SCL_M_OUTPUT_TOKENS])),
    STRING("request_prompt_tokens", NULL,
           "histogram: prompt tokens per request", C(names[SCL_M_REQ_PROMPT])),
    STRING("request_output_tokens", NULL,
           "histogram: output tokens per request", C(names[SCL_M_REQ_OUTPUT])),
    STRING("ttft", NULL, "histogram: time to first token",
           C(names[SCL_M_TTFT])),
    STRING("itl", NULL, "histogram: inter-token latency", C(names[SCL_M_ITL])),
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(name_rows) / sizeof(name_rows[0]) == SCL_M_N + 1,
               "one row per metric family");

/* PromQL overrides, in enum scl_query order (scl_query_key() reads the
 * keys here). */
static const struct sim_param query_rows[] = {
    STRING("num_running", NULL, "", C(queries[SCL_Q_RUNNING])),
    STRING("num_waiting", NULL, "", C(queries[SCL_Q_WAITING])),
    STRING("kv_usage", NULL, "", C(queries[SCL_Q_KV_USAGE])),
    STRING("kv_capacity", NULL, "", C(queries[SCL_Q_KV_CAPACITY])),
    STRING("requests", NULL, "", C(queries[SCL_Q_REQUESTS])),
    STRING("prompt_tokens", NULL, "", C(queries[SCL_Q_PROMPT_TOKENS])),
    STRING("output_tokens", NULL, "", C(queries[SCL_Q_OUTPUT_TOKENS])),
    STRING("request_prompt_tokens_sum", NULL, "",
           C(queries[SCL_Q_REQ_PROMPT_SUM])),
    STRING("request_prompt_tokens_count", NULL, "",
           C(queries[SCL_Q_REQ_PROMPT_COUNT])),
    STRING("request_output_tokens_sum", NULL, "",
           C(queries[SCL_Q_REQ_OUTPUT_SUM])),
    STRING("request_output_tokens_count", NULL, "",
           C(queries[SCL_Q_REQ_OUTPUT_COUNT])),
    STRING("ttft_buckets", NULL, "", C(queries[SCL_Q_TTFT_BUCKETS])),
    STRING("ttft_sum", NULL, "", C(queries[SCL_Q_TTFT_SUM])),
    STRING("itl_buckets", NULL, "", C(queries[SCL_Q_ITL_BUCKETS])),
    STRING("itl_sum", NULL, "", C(queries[SCL_Q_ITL_SUM])),
    STRING("scrape_time", NULL, "", C(queries[SCL_Q_SCRAPE_TIME])),
    STRING("targets_up", NULL, "", C(queries[SCL_Q_TARGETS_UP])),
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(query_rows) / sizeof(query_rows[0]) == SCL_Q_N + 1,
               "one row per query");

const char *scl_query_key(int q)
{
    return q >= 0 && q < SCL_Q_N ? query_rows[q].key : "?";
}

static const struct sim_param_choice sources[] = {
    {"prometheus", SCL_SRC_PROMETHEUS}, {"scrape", SCL_SRC_SCRAPE}, {NULL, 0}};
static const struct sim_param_choice engines[] = {
    {"vllm", SCL_ENG_VLLM}, {"sglang", SCL_ENG_SGLANG}, {NULL, 0}};
static const struct sim_param_choice actuators[] = {
    {"kubernetes", SCL_ACT_KUBERNETES},
    {"exec", SCL_ACT_EXEC},
    {"log", SCL_ACT_LOG},
    {NULL, 0}};

static const struct sim_param metrics_rows[] = {
    {"source", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "prometheus",
     "where the metrics come from", C(source), sources, NULL},
    {"engine", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "vllm",
     "serving engine: the default metric names", C(engine), engines, NULL},
    STRING("prometheus_url", "http://127.0.0.1:9090", "Prometheus HTTP API",
           C(prometheus_url)),
    STRING("selector", "", "label matcher added to every default query",
           C(selector)),
    {"queries", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "PromQL overrides, by query key", 0, NULL, query_rows},
    {"names", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "metric family overrides, by family key", 0, NULL, name_rows},
    {"targets", SIM_PT_LIST, SIM_U_NONE, NOMIN, SIM_PARAM_LIST_MAX, 0, NULL,
     "/metrics URLs of source scrape", C(targets), NULL, string_rows},
    {"timeout_s", SIM_PT_DOUBLE, SIM_U_SECONDS, SCL_TIMEOUT_MIN_S, YEAR_S, 0,
     "5s", "per HTTP request", C(http_timeout_s), NULL, NULL},
    SECONDS("max_clock_skew_s", 0, "5s",
            "a sample time further ahead of this clock is invalid",
            max_clock_skew_s),
    STRING("activation_query", NULL,
           "PromQL: requests waiting with no replica (scale from zero)",
           C(activation_query)),
    {"min_reporting_share", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1, GT, "1",
     "share of scrape targets that must answer, else hold",
     C(min_reporting_share), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param actuator_rows[] = {
    {"kind", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "kubernetes",
     "how the size is set", C(actuator), actuators, NULL},
    STRING("api_server", "https://kubernetes.default.svc",
           "Kubernetes API server", C(api_server)),
    STRING("namespace", "default", "the Deployment's namespace",
           C(k8s_namespace)),
    STRING("deployment", NULL, "the Deployment scaled (kind kubernetes)",
           C(deployment)),
    STRING("token_file", NULL, "bearer token, read before each request",
           C(token_file)),
    STRING("ca_file", NULL, "CA bundle of the API server", C(ca_file)),
    {"insecure_skip_tls_verify", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0,
     "false", "do not verify the API server's certificate",
     C(insecure_skip_tls_verify), NULL, NULL},
    {"command", SIM_PT_LIST, SIM_U_NONE, NOMIN, SIM_PARAM_LIST_MAX, 0, NULL,
     "kind exec: program and arguments, {replicas} substituted", C(command),
     NULL, string_rows},
    {"timeout_s", SIM_PT_DOUBLE, SIM_U_SECONDS, SCL_TIMEOUT_MIN_S, YEAR_S, 0,
     "60s", "kind exec: longest run of the command", C(exec_timeout_s), NULL,
     NULL},
    SECONDS("backoff_initial_s", GT, "1s", "first retry delay",
            backoff_initial_s),
    SECONDS("backoff_max_s", GT, "60s", "cap of the doubling delay",
            backoff_max_s),
    {"max_attempts", SIM_PT_INT, SIM_U_NONE, 1, 100, 0, "4",
     "actuation attempts per evaluation", C(max_attempts), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* The root keys. policy's rows are built per load (policy_rows_build());
 * its section is walked by the take hook. */
const struct sim_param scl_config_rows[] = {
    /* At least SCL_INTERVAL_MIN_S: a positive but tiny period (5e-324 s)
     * loaded and spun the evaluation loop against the metrics source. */
    {"interval_s", SIM_PT_DOUBLE, SIM_U_SECONDS, SCL_INTERVAL_MIN_S, YEAR_S, 0,
     "15s",
     "evaluation period; at least 1 s, as metrics are scraped at intervals "
     "of seconds and a shorter period spins on the same samples",
     C(interval_s), NULL, NULL},
    SECONDS("window_s", GT, "60s", "window of the rates and quantiles",
            window_s),
    SECONDS("stale_after_s", GT, "45s", "newest sample older than this: hold",
            stale_after_s),
    {"min_replicas", SIM_PT_INT, SIM_U_NONE, 0, SCL_REPLICAS_LIMIT, 0, "1",
     "fewest replicas", C(min_replicas), NULL, NULL},
    SECONDS("scale_to_zero_grace_s", 0, "30s",
            "idle this long before the last replica goes (min_replicas 0)",
            scale_to_zero_grace_s),
    {"max_replicas", SIM_PT_INT, SIM_U_NONE, 1, SCL_REPLICAS_LIMIT,
     SIM_PF_REQUIRED, NULL, "most replicas", C(max_replicas), NULL, NULL},
    {"gpus_per_replica", SIM_PT_INT, SIM_U_NONE, 1, 4096, 0, "1",
     "GPUs of one replica", C(gpus_per_replica), NULL, NULL},
    {"target_latency_ms", SIM_PT_DOUBLE, SIM_U_MILLISECONDS, 0, NOMAX, GT, NULL,
     "ITL (TPOT) target", F(target_latency_ms), NULL, NULL},
    {"target_ttft_ms", SIM_PT_DOUBLE, SIM_U_MILLISECONDS, 0, NOMAX, GT, NULL,
     "TTFT target", F(target_ttft_ms), NULL, NULL},
    /* The simulator's default pool: 120 s provisioning (docs/sources.md §8.1)
     * plus its default 30 s engine start (docs/orchestrator.md). */
    SECONDS("provision_s", 0, "150s", "expected request -> serving",
            provision_s),
    {"price_per_replica_hour", SIM_PT_DOUBLE, SIM_U_USD_PER_HOUR, 0, NOMAX, 0,
     NULL,
     "for cost-aware policies; not negative (a negative price used to "
     "load and reach them)",
     C(price_usd_per_replica_hour), NULL, NULL},
    {"policy", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the scaling policy and its guard rails", 0, NULL, NULL},
    {"metrics", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the metrics source", 0, NULL, metrics_rows},
    {"actuator", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "how the size is set", 0, NULL, actuator_rows},
    STRING("listen", "127.0.0.1:9464", "own /metrics and /healthz; \"\" off",
           C(listen)),
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* name, params, the guard's rows but interval (interval_s sets it) and the
 * two aliases of the contract, and the end. */
#define POLICY_ROWS_MAX 16

struct loader {
    struct sim_yaml y;
    struct scl_file f;
    /* The policy: block's rows, composed from the guard's own table so
     * that its types, ranges and defaults have one home. */
    struct sim_param policy_rows[POLICY_ROWS_MAX];
};

static void policy_rows_build(struct sim_param *out)
{
    static const struct {
        const char *alias, *key;
    } aliases[] = {{"cooldown_up_s", "scale_up_cooldown"},
                   {"cooldown_down_s", "scale_down_cooldown"}};
    size_t n = 0;

    out[n++] = (struct sim_param)STRING("name", "target-latency",
                                        "dsec help policies", F(policy_name));
    out[n++] = (struct sim_param)STRING(
        "plugin", NULL,
        "a policy plug-in: the path of a shared object exporting "
        "dsec_policy_plugin, relative to this file (docs/policies.md)",
        F(policy_plugin));
    out[n++] = (struct sim_param){
        .key = "params",
        .type = SIM_PT_MAP,
        .min = NOMIN,
        .max = SIM_PARAM_LIST_MAX,
        .help = "the policy's own parameters, as in a scenario",
        .offset = F(params)};
    for (const struct sim_param *r = pol_guard_params_rows; r->key; r++) {
        if (strcmp(r->key, "interval") == 0)
            continue;
        out[n] = *r;
        out[n++].offset += C(guard);
        for (size_t a = 0; a < sizeof(aliases) / sizeof(aliases[0]); a++)
            if (strcmp(r->key, aliases[a].key) == 0) {
                out[n] = out[n - 1];
                out[n++].key = aliases[a].alias;
            }
        if (SIM_NEVER(n + 1 >= POLICY_ROWS_MAX))
            sim_fatal("scaler: more guard rows than POLICY_ROWS_MAX");
    }
    memset(&out[n], 0, sizeof(out[n]));
}

static void fill_param(void *elem, const char *key, const char *value,
                       const struct sim_yaml_seen *at)
{
    struct param_text *t = elem;

    t->key = xstrdup(key);
    t->value = xstrdup(value);
    t->kline = at->kline;
    t->kcol = at->kcol;
    t->vline = at->vline;
    t->vcol = at->vcol;
}

/* The policy by name, its defaults, then its parameters through its rows
 * (as the simulator reads a scenario's policy.params). */
static void resolve_policy(struct loader *x)
{
    struct scl_config *c = &x->f.c;
    const struct sim_yaml_seen *nm = sim_yaml_seen(&x->y, "policy.name");
    const char *name = x->f.policy_name;
    char err[SIM_PARAM_ERRLEN];
    int line = nm ? nm->vline : x->y.root_line;
    int col = nm ? nm->vcol : x->y.root_col;

    if (name == NULL)
        return; /* reported */
    if (x->f.policy_plugin != NULL) {
        const struct sim_yaml_seen *at = sim_yaml_seen(&x->y, "policy.plugin");
        char why[512], *dir = xstrdup(x->y.file), *slash = strrchr(dir, '/');

        if (slash != NULL)
            *slash = '\0';
        c->policy = pol_plugin_load(
            x->f.policy_plugin, slash != NULL ? dir : NULL, why, sizeof(why));
        free(dir);
        if (c->policy == NULL) {
            sim_yaml_error(&x->y, at ? at->vline : line, at ? at->vcol : col,
                           "policy.plugin: %s", why);
            return;
        }
        if (nm != NULL && strcasecmp(name, c->policy->name) != 0) {
            sim_yaml_error(&x->y, line, col,
                           "policy.name: '%s', but the plug-in's policy is "
                           "'%s'; give one of them",
                           name, c->policy->name);
            c->policy = NULL;
            return;
        }
        name = c->policy->name;
    } else {
        c->policy = pol_find(name);
    }
    if (c->policy == NULL) {
        char *names = pol_names();
        sim_yaml_error(&x->y, line, col,
                       "policy.name: unknown policy '%s'; valid: %s", name,
                       names);
        free(names);
        return;
    }
    c->policy_params =
        xcalloc(1, c->policy->params_size ? c->policy->params_size : 1);
    if (pol_params_default(c->policy, c->policy_params, err, sizeof(err)) != 0)
        sim_yaml_error(&x->y, line, col, "policy %s: bad default: %s", name,
                       err);
    for (int i = 0; i < x->f.nparams; i++) {
        const struct param_text *t = &x->f.params[i];
        const struct sim_param *row = sim_param_find(c->policy->params, t->key);

        if (row == NULL) {
            char why[600];
            pol_param_unknown(c->policy, t->key, why, sizeof(why));
            sim_yaml_error(&x->y, t->kline, t->kcol, "policy.params.%s: %s",
                           t->key, why);
        } else if (sim_param_parse(row, t->value, c->policy_params, err,
                                   sizeof(err)) != 0) {
            sim_yaml_error(&x->y, t->vline, t->vcol, "policy.params.%s: %s",
                           t->key, err);
        }
    }
}

/* metrics: the selector must be a label matcher in braces. */
static void check_metrics(struct loader *x)
{
    const char *sel = x->f.c.selector;
    const struct sim_yaml_seen *at = sim_yaml_seen(&x->y, "metrics.selector");

    if (at != NULL && sel != NULL && sel[0] != '\0' &&
        (sel[0] != '{' || sel[strlen(sel) - 1] != '}'))
        sim_yaml_error(&x->y, at->vline, at->vcol,
                       "metrics.selector: expected a label matcher in braces, "
                       "such as '{job=\"vllm\"}'");
}

/* Is s a DNS-1123 label (RFC 1123, as Kubernetes checks a namespace):
 * 1 to 63 of [a-z0-9-], starting and ending with [a-z0-9]? */
static int dns_label_ok(const char *s, size_t n)
{
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return 0;
    return 1;
}

/* Is s a DNS-1123 subdomain (a Deployment's name): at most 253 bytes of
 * DNS-1123 labels joined by '.'? Neither '/', '?', '%' nor ".." passes,
 * so the name is one path segment of the API URL. */
static int dns_subdomain_ok(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > 253)
        return 0;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t k = dot ? (size_t)(dot - s) : strlen(s);
        if (!dns_label_ok(s, k))
            return 0;
        if (dot == NULL)
            return 1;
        s = dot + 1;
    }
}

/* actuator.namespace and actuator.deployment are Kubernetes names: they
 * become path segments of the scale URL and must not be able to leave
 * them. */
static void check_k8s_names(struct loader *x)
{
    const struct scl_config *c = &x->f.c;
    const struct sim_yaml_seen *ns = sim_yaml_seen(&x->y, "actuator.namespace");
    const struct sim_yaml_seen *dp =
        sim_yaml_seen(&x->y, "actuator.deployment");

    if (ns != NULL && c->k8s_namespace != NULL &&
        !dns_label_ok(c->k8s_namespace, strlen(c->k8s_namespace)))
        sim_yaml_error(&x->y, ns->vline, ns->vcol,
                       "actuator.namespace: '%s' is not a Kubernetes "
                       "namespace name (DNS-1123 label: 1 to 63 of a-z, "
                       "0-9 and '-', starting and ending with a letter or "
                       "digit)",
                       c->k8s_namespace);
    if (dp != NULL && c->deployment != NULL && !dns_subdomain_ok(c->deployment))
        sim_yaml_error(&x->y, dp->vline, dp->vcol,
                       "actuator.deployment: '%s' is not a Kubernetes "
                       "object name (DNS-1123 subdomain: at most 253 of "
                       "a-z, 0-9, '-' and '.', each dot-separated part "
                       "starting and ending with a letter or digit)",
                       c->deployment);
}

/* actuator: what each kind needs, reported at the section's mapping. */
static void check_actuator(struct loader *x, int line, int col)
{
    const struct scl_config *c = &x->f.c;

    if (c->actuator == SCL_ACT_KUBERNETES) {
        if (c->deployment == NULL)
            sim_yaml_error(&x->y, line, col,
                           "actuator.deployment: required for kind "
                           "kubernetes");
        check_k8s_names(x);
    } else if (c->actuator == SCL_ACT_EXEC) {
        int has = 0;
        if (c->ncommand == 0)
            sim_yaml_error(&x->y, line, col,
                           "actuator.command: required for kind exec (a "
                           "list: program and arguments, {replicas} "
                           "substituted)");
        for (int i = 0; i < c->ncommand; i++)
            has |= strstr(c->command[i], "{replicas}") != NULL;
        if (c->ncommand > 0 && !has)
            sim_yaml_error(&x->y, line, col,
                           "actuator.command: no argument contains "
                           "{replicas}");
    }
}

/* The walker's hook: walks policy, metrics and actuator, then checks what
 * their rows cannot say, so that the messages keep the file's order. */
static int take_section(struct sim_yaml *y, const struct sim_param *p,
                        yaml_node_t *key, yaml_node_t *val, void *base,
                        const char *path)
{
    struct loader *x = y->ctx;
    int kl = sim_yaml_line(key), kc = sim_yaml_col(key);
    int is_policy = strcmp(path, "policy") == 0;

    if (!is_policy && strcmp(path, "metrics") != 0 &&
        strcmp(path, "actuator") != 0)
        return 0;
    sim_yaml_walk_section(y, is_policy ? x->policy_rows : p->sub, val,
                          (char *)base + p->offset, path, kl, kc);
    if (is_policy)
        resolve_policy(x);
    else if (path[0] == 'm')
        check_metrics(x);
    else
        check_actuator(x, sim_yaml_line(val), sim_yaml_col(val));
    return 1;
}

static const struct sim_yaml_ops scl_yaml_ops = {
    .take = take_section,
    .map_fill = fill_param,
    .map_size = sizeof(struct param_text),
};

/* Scale to zero: its keys mean something only with min_replicas 0, and
 * the activation query only with source prometheus. */
static void check_zero(struct loader *x)
{
    const struct scl_config *c = &x->f.c;
    const struct sim_yaml_seen *aq =
        sim_yaml_seen(&x->y, "metrics.activation_query");
    const struct sim_yaml_seen *g =
        sim_yaml_seen(&x->y, "scale_to_zero_grace_s");

    if (aq != NULL && c->source != SCL_SRC_PROMETHEUS)
        sim_yaml_error(&x->y, aq->kline, aq->kcol,
                       "metrics.activation_query: needs source prometheus");
    else if (aq != NULL && c->min_replicas > 0)
        sim_yaml_error(&x->y, aq->kline, aq->kcol,
                       "metrics.activation_query: needs min_replicas 0, "
                       "not %d",
                       c->min_replicas);
    else if (aq != NULL && c->activation_query != NULL &&
             c->activation_query[0] == '\0')
        sim_yaml_error(&x->y, aq->vline, aq->vcol,
                       "metrics.activation_query: empty");
    if (g != NULL && c->min_replicas > 0)
        sim_yaml_error(&x->y, g->kline, g->kcol,
                       "scale_to_zero_grace_s: needs min_replicas 0, not %d",
                       c->min_replicas);
}

/* After the walk: the bounds, the metric names of the engine where none
 * was given, the default policy, the guard's interval. */
static void finish(struct loader *x)
{
    struct scl_config *c = &x->f.c;
    const struct sim_yaml_seen *mx = sim_yaml_seen(&x->y, "max_replicas");
    int line = x->y.root_line, col = x->y.root_col;

    if (mx != NULL && c->max_replicas >= 0 && c->min_replicas > c->max_replicas)
        sim_yaml_error(&x->y, mx->vline, mx->vcol,
                       "max_replicas: %d is below min_replicas %d",
                       c->max_replicas, c->min_replicas);
    for (int f = 0; f < SCL_M_N; f++) {
        const char *def =
            c->engine == SCL_ENG_SGLANG ? sglang_names[f] : vllm_names[f];
        if (c->names[f] == NULL && def != NULL)
            c->names[f] = xstrdup(def);
    }
    check_zero(x);
    if (c->source == SCL_SRC_SCRAPE && c->ntargets == 0)
        sim_yaml_error(&x->y, line, col,
                       "metrics.targets: required for source scrape");
    if (sim_yaml_seen(&x->y, "policy") == NULL)
        resolve_policy(x);
    if (!isnan(x->f.target_latency_ms))
        c->target_itl_s = x->f.target_latency_ms / 1e3;
    if (!isnan(x->f.target_ttft_ms))
        c->target_ttft_s = x->f.target_ttft_ms / 1e3;
    c->guard.interval_s = c->interval_s;
    if (c->window_s < c->interval_s) {
        sim_yaml_error(&x->y, line, col,
                       "window_s: %g is shorter than interval_s %g",
                       c->window_s, c->interval_s);
    } else if (c->source == SCL_SRC_SCRAPE &&
               c->window_s / c->interval_s + 1 > SCL_RING_MAX) {
        /* The scrape ring holds one observation per interval over the
         * window; a longer window is refused, never silently cut. */
        const struct sim_yaml_seen *w = sim_yaml_seen(&x->y, "window_s");
        sim_yaml_error(&x->y, w ? w->vline : line, w ? w->vcol : col,
                       "window_s: %g over interval_s %g needs %.0f "
                       "observations; at most %d are kept (lengthen "
                       "interval_s or shorten window_s)",
                       c->window_s, c->interval_s,
                       floor(c->window_s / c->interval_s) + 1, SCL_RING_MAX);
    }
}

/* Frees what the loader holds beside the configuration. */
static void file_fini(struct scl_file *f)
{
    for (int i = 0; i < f->nparams; i++) {
        free(f->params[i].key);
        free(f->params[i].value);
    }
    free(f->params);
    free(f->policy_name);
    free(f->policy_plugin);
}

int scl_config_parse(const char *name, const char *text, size_t len,
                     struct scl_config *out, struct sim_diag *d)
{
    struct loader x;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&x, 0, sizeof(x));
    policy_rows_build(x.policy_rows);
    sim_yaml_init(&x.y, name, d, &scl_yaml_ops);
    x.y.ctx = &x;
    sim_yaml_defaults(scl_config_rows, &x.f, "scaler");
    sim_yaml_defaults(x.policy_rows, &x.f, "scaler policy");
    x.f.c.target_itl_s = NAN;
    x.f.c.target_ttft_s = NAN;
    rc = sim_yaml_parse(&x.y, text, len, SCL_CONFIG_MAX_BYTES);
    if (rc == 0 && sim_yaml_walk(&x.y, scl_config_rows, &x.f,
                                 "a mapping of configuration keys") == 0)
        finish(&x);
    if (rc == 0 && x.y.errors > 0)
        rc = SIM_EINVAL;
    if (rc == 0) {
        *out = x.f.c;
        out->file = xstrdup(name);
    } else {
        scl_config_fini(&x.f.c);
    }
    file_fini(&x.f);
    sim_yaml_fini(&x.y);
    return rc;
}

int scl_config_load(const char *path, struct scl_config *out,
                    struct sim_diag *d)
{
    size_t len = 0;
    char *buf;
    int rc;

    memset(out, 0, sizeof(*out));
    buf = sim_yaml_read_file(path, SCL_CONFIG_MAX_BYTES, &len, d);
    if (buf == NULL)
        return SIM_EIO;
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
    free(c->activation_query);
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
