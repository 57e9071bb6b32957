/* Check suite for dsec-scaler's inputs: the Prometheus text exposition
 * parser on recorded vLLM and SGLang pages (tests/data/scaler/), the
 * Prometheus API's JSON answers, the configuration loader and its
 * FILE:LINE:COL messages, and the snapshot the source builds from them. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/policy/promhist.h"
#include "scaler/conf.h"
#include "scaler/expo.h"
#include "scaler/promapi.h"
#include "scaler/source.h"
#include "base/diag.h"
#include "base/errors.h"
#include "base/xalloc.h"

static char *fixture(const char *name)
{
    const char *top = getenv("top_srcdir");

    return xasprintf("%s/tests/data/scaler/%s", top ? top : ".", name);
}

static char *slurp(const char *name, size_t *len)
{
    char *path = fixture(name);
    FILE *fp = fopen(path, "rb");
    char *buf = xmalloc(1 << 20);

    ck_assert_msg(fp != NULL, "cannot open %s", path);
    *len = fread(buf, 1, (1 << 20) - 1, fp);
    buf[*len] = '\0';
    fclose(fp);
    free(path);
    return buf;
}

static const struct scl_sample *find(const struct scl_expo *e, const char *name,
                                     const char *lab, const char *val)
{
    for (int i = 0; i < e->n; i++) {
        const char *v;
        if (strcmp(e->v[i].name, name) != 0)
            continue;
        v = lab ? scl_sample_label(&e->v[i], lab) : NULL;
        if (lab == NULL || (v != NULL && strcmp(v, val) == 0))
            return &e->v[i];
    }
    return NULL;
}

START_TEST(test_expo_parse_vllm)
{
    size_t len;
    char *text = slurp("vllm-metrics.txt", &len);
    struct scl_expo e;
    char err[256];
    const struct scl_sample *s;

    scl_expo_init(&e);
    ck_assert_int_eq(scl_expo_parse(text, len, &e, err, sizeof(err)), 0);
    s = find(&e, "vllm:num_requests_running", NULL, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_double_eq(s->value, 12.0);
    ck_assert_str_eq(scl_sample_label(s, "model_name"),
                     "meta-llama/Llama-3.1-70B-Instruct");
    s = find(&e, "vllm:request_success_total", "finished_reason", "length");
    ck_assert_ptr_nonnull(s);
    ck_assert_double_eq(s->value, 500.0);
    s = find(&e, "vllm:prompt_tokens_total", NULL, NULL);
    ck_assert_double_eq(s->value, 1234567.0);
    s = find(&e, "vllm:inter_token_latency_seconds_bucket", "le", "+Inf");
    ck_assert_double_eq(s->value, 343678.0);
    s = find(&e, "vllm:cache_config_info", NULL, NULL);
    ck_assert_str_eq(scl_sample_label(s, "num_gpu_blocks"), "21000");
    scl_expo_fini(&e);
    free(text);
}
END_TEST

START_TEST(test_expo_parse_escapes_nan_inf)
{
    const char *text = "# a comment\n"
                       "\n"
                       "m{a=\"x\\\"y\\\\z\\nw\",b=\"\",} NaN 1700000000000\n"
                       "  m2 +Inf\r\n"
                       "m3{} -Inf\n"
                       "m4 1.5e-3";
    struct scl_expo e;
    char err[256];

    scl_expo_init(&e);
    ck_assert_int_eq(scl_expo_parse(text, strlen(text), &e, err, sizeof(err)),
                     0);
    ck_assert_int_eq(e.n, 4);
    ck_assert_str_eq(scl_sample_label(&e.v[0], "a"), "x\"y\\z\nw");
    ck_assert_str_eq(scl_sample_label(&e.v[0], "b"), "");
    ck_assert(isnan(e.v[0].value));
    ck_assert(isinf(e.v[1].value) && e.v[1].value > 0);
    ck_assert(isinf(e.v[2].value) && e.v[2].value < 0);
    ck_assert_double_eq(e.v[3].value, 1.5e-3);
    scl_expo_fini(&e);
}
END_TEST

START_TEST(test_expo_parse_errors)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"ok 1\nbad{ 2\n", "line 2: expected a label name"},
        {"m{a=\"x} 1\n", "line 1: unterminated label value"},
        {"m{a=\"\\t\"} 1\n", "line 1: unknown escape in a label value"},
        {"m twelve\n", "line 1: expected a number (or NaN, +Inf, -Inf) as "
                       "the value"},
        {"m 1 2 3\n", "line 1: unexpected text after the timestamp"},
        {"1m 1\n", "line 1: expected a metric name"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct scl_expo e;
        char err[256] = "";
        scl_expo_init(&e);
        ck_assert_int_eq(scl_expo_parse(cases[i].text, strlen(cases[i].text),
                                        &e, err, sizeof(err)),
                         SIM_EPARSE);
        ck_assert_str_eq(err, cases[i].msg);
        /* Only the good lines before the bad one remain. */
        ck_assert_int_eq(e.n, i == 0 ? 1 : 0);
        scl_expo_fini(&e);
    }
}
END_TEST

START_TEST(test_prom_parse_vector)
{
    size_t len;
    char *text = slurp("prom-vector.json", &len);
    struct scl_expo e;
    char err[256];

    scl_expo_init(&e);
    ck_assert_int_eq(scl_prom_parse(text, len, &e, err, sizeof(err)), 0);
    ck_assert_int_eq(e.n, 3);
    ck_assert_str_eq(e.v[0].name, "");
    ck_assert_str_eq(scl_sample_label(&e.v[0], "replica"), "llm-0");
    ck_assert_double_eq(e.v[0].value, 5);
    ck_assert(isnan(e.v[1].value));
    ck_assert_str_eq(e.v[2].name, "vllm:num_requests_running");
    ck_assert_str_eq(scl_sample_label(&e.v[2], "replica"), "a \"q\" b");
    ck_assert(isinf(e.v[2].value));
    scl_expo_fini(&e);
    free(text);
}
END_TEST

START_TEST(test_prom_parse_errors)
{
    size_t len;
    char *text = slurp("prom-error.json", &len);
    struct scl_expo e;
    char err[256];
    const char *scalar =
        "{\"status\":\"success\",\"data\":{\"resultType\":"
        "\"scalar\",\"result\":[1764494400,\"1764494399.5\"]}}";
    const char *matrix = "{\"status\":\"success\",\"data\":{\"resultType\":"
                         "\"matrix\",\"result\":[]}}";

    scl_expo_init(&e);
    ck_assert_int_eq(scl_prom_parse(text, len, &e, err, sizeof(err)), SIM_EIO);
    ck_assert_str_eq(err, "prometheus: bad_data: invalid parameter "
                          "\"query\": 1:6: parse error: unexpected <op:*>");
    ck_assert_int_eq(scl_prom_parse("{", 1, &e, err, sizeof(err)), SIM_EPARSE);
    ck_assert_int_eq(
        scl_prom_parse(matrix, strlen(matrix), &e, err, sizeof(err)),
        SIM_EPARSE);
    ck_assert_str_eq(err, "result type matrix; expected vector or scalar (an "
                          "instant query)");
    ck_assert_int_eq(e.n, 0);
    ck_assert_int_eq(
        scl_prom_parse(scalar, strlen(scalar), &e, err, sizeof(err)), 0);
    ck_assert_int_eq(e.n, 1);
    ck_assert_double_eq(e.v[0].value, 1764494399.5);
    scl_expo_fini(&e);
    free(text);
}
END_TEST

START_TEST(test_config_good)
{
    char *path = fixture("good.yaml");
    struct scl_config c;
    struct sim_diag d;
    char *q;

    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_load(path, &c, &d), 0);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    ck_assert_str_eq(c.policy->name, "hpa");
    ck_assert_int_eq(c.min_replicas, 2);
    ck_assert_int_eq(c.max_replicas, 8);
    ck_assert_double_eq_tol(c.target_itl_s, 0.045, 1e-15);
    ck_assert(isnan(c.target_ttft_s));
    ck_assert_double_eq(c.guard.scale_up_cooldown_s, 30);
    ck_assert_double_eq(c.guard.scale_down_cooldown_s, 300);
    ck_assert_int_eq(c.guard.max_step_up, 2);
    ck_assert_int_eq(c.guard.max_step_down, 1); /* the scenario default */
    ck_assert_double_eq(c.guard.interval_s, 15);
    ck_assert_str_eq(c.deployment, "llm");
    ck_assert_str_eq(c.k8s_namespace, "serving");
    q = scl_query_text(&c, SCL_Q_RUNNING);
    ck_assert_str_eq(q, "sum by (replica, pod, instance) "
                        "(vllm:num_requests_running{job=\"dsec-twin\"})");
    free(q);
    q = scl_query_text(&c, SCL_Q_ITL_BUCKETS);
    ck_assert_str_eq(q, "sum by (replica, pod, instance, le) "
                        "(increase(vllm:inter_token_latency_seconds_bucket"
                        "{job=\"dsec-twin\"}[60s]))");
    free(q);
    q = scl_query_text(&c, SCL_Q_WAITING);
    ck_assert_str_eq(q, "sum by (replica) (vllm:num_requests_waiting)");
    free(q);
    scl_config_fini(&c);
    sim_diag_fini(&d);
    free(path);
}
END_TEST

START_TEST(test_config_errors)
{
    char *path = fixture("bad.yaml");
    struct scl_config c;
    struct sim_diag d;
    static const char *const want[] = {
        "bad.yaml:1:13: error: interval_s: -3 out of range [1, 3.1536e+07]",
        "bad.yaml:3:15: error: min_replicas: expected an integer, got 'many'",
        "bad.yaml:7:24: error: policy.scale_down_cooldown: expected a "
        "duration (e.g. 90s, 500ms, 2h; plain number = seconds), got "
        "'forever'",
        "bad.yaml:6:12: error: policy.params.no_such: unknown parameter of "
        "policy hpa; valid: metric, target, tolerance, "
        "scale_down_stabilization, scale_up_stabilization, scale_up_percent, "
        "scale_up_pods, scale_up_period, scale_down_percent, "
        "scale_down_period",
        "bad.yaml:9:11: error: metrics.source: unknown source "
        "'carrier-pigeon'; valid: prometheus, scrape",
        "bad.yaml:10:13: error: metrics.selector: expected a label matcher in "
        "braces, such as '{job=\"vllm\"}'",
        "bad.yaml:12:3: error: actuator.command: no argument contains "
        "{replicas}",
        "bad.yaml:14:1: error: colour: unknown key; valid: actuator, "
        "gpus_per_replica, interval_s, listen, max_replicas, metrics, "
        "min_replicas, policy, price_per_replica_hour, provision_s, "
        "scale_to_zero_grace_s, stale_after_s, target_latency_ms, "
        "target_ttft_ms, window_s",
    };
    int n = (int)(sizeof(want) / sizeof(want[0]));

    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_load(path, &c, &d), SIM_EINVAL);
    ck_assert_int_eq(d.n, n);
    for (int i = 0; i < n; i++) {
        char *got = sim_diag_format(&d, i);
        const char *base = strstr(got, "bad.yaml:");
        ck_assert_ptr_nonnull(base);
        ck_assert_str_eq(base, want[i]);
        free(got);
    }
    ck_assert_ptr_null(c.file); /* freed and zeroed on failure */
    sim_diag_fini(&d);
    free(path);
}
END_TEST

/* Issue #22 items 4 and 5: duplicate keys, time-outs under 1 ms, a share
 * of 0, a negative skew, names that are not Kubernetes names and a
 * window longer than the ring are refused with their positions. */
START_TEST(test_config_hardening_errors)
{
    char *path = fixture("bad-names.yaml");
    struct scl_config c;
    struct sim_diag d;
    static const char *const want[] = {
        "bad-names.yaml:4:1: error: max_replicas: duplicate key",
        "bad-names.yaml:8:14: error: metrics.timeout_s: 0.0001 out of range "
        "[0.001, 3.1536e+07]",
        "bad-names.yaml:9:24: error: metrics.min_reporting_share: 0 out of "
        "range (0, 1]",
        "bad-names.yaml:10:21: error: metrics.max_clock_skew_s: -1 out of "
        "range [0, 3.1536e+07]",
        "bad-names.yaml:13:14: error: actuator.namespace: 'Prod_NS' is not a "
        "Kubernetes namespace name (DNS-1123 label: 1 to 63 of a-z, 0-9 and "
        "'-', starting and ending with a letter or digit)",
        "bad-names.yaml:14:15: error: actuator.deployment: '../secrets?x=1' "
        "is not a Kubernetes object name (DNS-1123 subdomain: at most 253 of "
        "a-z, 0-9, '-' and '.', each dot-separated part starting and ending "
        "with a letter or digit)",
        "bad-names.yaml:2:11: error: window_s: 2000 over interval_s 1 needs "
        "2001 observations; at most 1024 are kept (lengthen interval_s or "
        "shorten window_s)",
    };
    int n = (int)(sizeof(want) / sizeof(want[0]));

    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_load(path, &c, &d), SIM_EINVAL);
    ck_assert_int_eq(d.n, n);
    for (int i = 0; i < n; i++) {
        char *got = sim_diag_format(&d, i);
        const char *base = strstr(got, "bad-names.yaml:");
        ck_assert_ptr_nonnull(base);
        ck_assert_str_eq(base, want[i]);
        free(got);
    }
    sim_diag_fini(&d);
    free(path);
}
END_TEST

START_TEST(test_config_syntax_and_required)
{
    struct scl_config c;
    struct sim_diag d;
    const char *bad = "max_replicas: [1,\n";
    const char *none = "min_replicas: 1\n";
    char *msg;

    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_parse("x.yaml", bad, strlen(bad), &c, &d),
                     SIM_EPARSE);
    ck_assert_int_eq(d.n, 1);
    ck_assert_int_eq(d.v[0].line, 2);
    sim_diag_fini(&d);
    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_parse("x.yaml", none, strlen(none), &c, &d),
                     SIM_EINVAL);
    msg = sim_diag_format(&d, 0);
    ck_assert_str_eq(msg, "x.yaml:1:1: error: missing key 'max_replicas'");
    free(msg);
    sim_diag_fini(&d);
}
END_TEST

/* Scale to zero: the keys parse with min_replicas 0 (grace default 30 s)
 * and are refused, with their positions, where they mean nothing. */
START_TEST(test_config_scale_to_zero)
{
    static const char *const want[] = {
        "z.yaml:3:11: error: metrics.activation_query: needs source "
        "prometheus",
        "z.yaml:4:1: error: scale_to_zero_grace_s: needs min_replicas 0, "
        "not 1",
    };
    const char *bad = "min_replicas: 1\nmax_replicas: 4\n"
                      "metrics: {activation_query: q, source: scrape, "
                      "targets: [http://a/metrics]}\n"
                      "scale_to_zero_grace_s: 10\n";
    const char *bad2 = "max_replicas: 4\nmetrics: {activation_query: q}\n";
    const char *ok = "min_replicas: 0\nmax_replicas: 4\n"
                     "metrics: {activation_query: 'sum(gw_queue)'}\n";
    struct scl_config c;
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_parse("z.yaml", bad, strlen(bad), &c, &d),
                     SIM_EINVAL);
    ck_assert_int_eq(d.n, 2);
    for (int i = 0; i < 2; i++) {
        char *got = sim_diag_format(&d, i);
        ck_assert_str_eq(strstr(got, "z.yaml:"), want[i]);
        free(got);
    }
    sim_diag_fini(&d);
    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_parse("z.yaml", bad2, strlen(bad2), &c, &d),
                     SIM_EINVAL);
    ck_assert_int_eq(d.n, 1);
    sim_diag_fini(&d);
    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_parse("z.yaml", ok, strlen(ok), &c, &d), 0);
    ck_assert_str_eq(c.activation_query, "sum(gw_queue)");
    ck_assert_double_eq(c.scale_to_zero_grace_s, 30);
    ck_assert_int_eq(c.min_replicas, 0);
    scl_config_fini(&c);
    sim_diag_fini(&d);
}
END_TEST

static void load_text(struct scl_config *c, const char *text)
{
    struct sim_diag d;

    sim_diag_init(&d);
    if (scl_config_parse("t.yaml", text, strlen(text), c, &d) != 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);
}

START_TEST(test_config_walker_messages)
{
    /* The scenario language's walker: a duplicate is an error, a misspelt
     * key gets the closest one, null is a missing value, an alias and its
     * key set the same guard field. */
    static const char *const want[] = {
        "y.yaml:2:1: error: max_replicas: duplicate key",
        "y.yaml:3:1: error: windw_s: unknown key; did you mean 'window_s'?",
        "y.yaml:4:1: error: listen: missing value; expected a string",
        "y.yaml:5:21: error: policy.max_step_upp: unknown key; did you mean "
        "'max_step_up'?",
        "y.yaml:6:24: error: metrics.targets[1]: expected a string, got a "
        "mapping",
        NULL,
    };
    const char *text = "max_replicas: 4\n"
                       "max_replicas: 5\n"
                       "windw_s: 60\n"
                       "listen: ~\n"
                       "policy: {name: hpa, max_step_upp: 2}\n"
                       "metrics: {targets: [a, {b: 1}]}\n";
    const char *ok = "max_replicas: 4\n"
                     "policy: {cooldown_up_s: 12, scale_down_cooldown: 7m}\n"
                     "metrics: {engine: sglang, names: {ttft: my_ttft}}\n"
                     "actuator: {kind: exec, command: [a, '{replicas}']}\n";
    struct scl_config c;
    struct sim_diag d;
    int n = 0;

    sim_diag_init(&d);
    ck_assert_int_eq(scl_config_parse("y.yaml", text, strlen(text), &c, &d),
                     SIM_EINVAL);
    for (; want[n] != NULL; n++) {
        char *got;
        ck_assert_int_gt(d.n, n);
        got = sim_diag_format(&d, n);
        ck_assert_str_eq(got, want[n]);
        free(got);
    }
    ck_assert_int_eq(d.n, n);
    sim_diag_fini(&d);
    load_text(&c, ok);
    ck_assert_double_eq(c.guard.scale_up_cooldown_s, 12);
    ck_assert_double_eq(c.guard.scale_down_cooldown_s, 420);
    ck_assert_str_eq(c.policy->name, "target-latency");
    ck_assert_str_eq(c.names[SCL_M_TTFT], "my_ttft");
    ck_assert_str_eq(c.names[SCL_M_RUNNING], "sglang:num_running_reqs");
    ck_assert_ptr_null(c.names[SCL_M_REQ_PROMPT]);
    ck_assert_int_eq(c.ncommand, 2);
    ck_assert_str_eq(c.command[1], "{replicas}");
    ck_assert_str_eq(scl_query_key(SCL_Q_SCRAPE_TIME), "scrape_time");
    scl_config_fini(&c);
}
END_TEST

static void parse_fixture(const char *name, struct scl_expo *e)
{
    size_t len;
    char *text = slurp(name, &len);
    char err[256];

    scl_expo_init(e);
    ck_assert_int_eq(scl_expo_parse(text, len, e, err, sizeof(err)), 0);
    free(text);
}

START_TEST(test_source_scrape_vllm)
{
    struct scl_config c;
    struct scl_source *src;
    struct scl_expo e;
    struct pol_snapshot s;
    struct scl_view v;

    load_text(&c, "max_replicas: 4\nmetrics: {source: scrape, targets: "
                  "[http://a/metrics]}\nactuator: {kind: log}\n");
    src = scl_source_new(&c);
    parse_fixture("vllm-metrics.txt", &e);
    scl_source_begin(src, 0, 1000);
    scl_source_feed_scrape(src, "http://a/metrics", &e);
    scl_source_end(src);
    scl_source_snapshot(src, 3, &s, &v);
    /* First observation: no window yet. */
    ck_assert_int_eq(s.metrics_valid, 0);
    ck_assert_int_eq(v.hold, SCL_HOLD_WARMING_UP);
    ck_assert_int_eq(s.ready, 1);
    ck_assert_int_eq(s.pending, 2);
    ck_assert_double_eq(s.num_running, 12);
    ck_assert_double_eq(s.num_waiting, 3);
    ck_assert_double_eq(s.kv_usage_mean, 0.4375);
    ck_assert_double_eq(s.replicas[0].kv_capacity_tokens, 16.0 * 21000);
    scl_source_begin(src, 15, 1015);
    scl_source_feed_scrape(src, "http://a/metrics", &e);
    scl_source_end(src);
    scl_source_snapshot(src, 1, &s, &v);
    ck_assert_int_eq(s.metrics_valid, 1);
    ck_assert_int_eq(s.pending, 0);
    /* Nothing changed between the two pages: zero rates, no quantiles. */
    ck_assert_double_eq(s.output_tokens_per_s, 0);
    ck_assert_double_eq(s.arrival_rate_per_s, 0);
    ck_assert(isnan(s.itl_p99_s));
    ck_assert_double_eq(s.replicas[0].age_s, 15);
    scl_expo_fini(&e);
    scl_source_free(src);
    scl_config_fini(&c);
}
END_TEST

START_TEST(test_source_scrape_sglang)
{
    struct scl_config c;
    struct scl_source *src;
    struct scl_expo e;
    struct pol_snapshot s;
    struct scl_view v;

    load_text(&c, "max_replicas: 4\nmetrics: {source: scrape, engine: "
                  "sglang, targets: [http://b/metrics]}\n"
                  "actuator: {kind: log}\n");
    src = scl_source_new(&c);
    parse_fixture("sglang-metrics.txt", &e);
    for (int round = 0; round < 2; round++) {
        scl_source_begin(src, 15.0 * round, 1000 + 15.0 * round);
        scl_source_feed_scrape(src, "http://b/metrics", &e);
        scl_source_end(src);
    }
    scl_source_snapshot(src, -1, &s, &v);
    ck_assert_int_eq(v.valid, 1);
    ck_assert_int_eq(s.ready, 1);
    ck_assert_double_eq(s.num_running, 7);
    ck_assert_double_eq(s.num_waiting, 2);
    ck_assert_double_eq(s.kv_usage_mean, 0.25);
    ck_assert_double_eq(s.replicas[0].kv_capacity_tokens, 491520);
    scl_expo_fini(&e);
    scl_source_free(src);
    scl_config_fini(&c);
}
END_TEST

/* The samples of e whose name is name, as a query result would give them
 * (same labels, same values). */
static void select_into(const struct scl_expo *e, const char *name,
                        struct scl_expo *out)
{
    scl_expo_init(out);
    for (int i = 0; i < e->n; i++) {
        struct scl_sample *s;
        if (strcmp(e->v[i].name, name) != 0)
            continue;
        s = scl_expo_append(out, "", e->v[i].value);
        for (int j = 0; j < e->v[i].nlabels; j++)
            scl_sample_add_label(s, e->v[i].labels[j].name,
                                 e->v[i].labels[j].value);
        scl_sample_add_label(s, "replica", "r0");
    }
}

START_TEST(test_source_prometheus_quantiles)
{
    static const struct {
        int q;
        const char *name;
    } qs[] = {
        {SCL_Q_RUNNING, "vllm:num_requests_running"},
        {SCL_Q_WAITING, "vllm:num_requests_waiting"},
        {SCL_Q_ITL_BUCKETS, "vllm:inter_token_latency_seconds_bucket"},
        {SCL_Q_ITL_SUM, "vllm:inter_token_latency_seconds_sum"},
        {SCL_Q_TTFT_BUCKETS, "vllm:time_to_first_token_seconds_bucket"},
        {SCL_Q_TTFT_SUM, "vllm:time_to_first_token_seconds_sum"},
        {SCL_Q_REQUESTS, "vllm:request_success_total"},
        {SCL_Q_OUTPUT_TOKENS, "vllm:generation_tokens_total"},
        {SCL_Q_REQ_PROMPT_COUNT, "vllm:request_prompt_tokens_count"},
        {SCL_Q_REQ_PROMPT_SUM, "vllm:request_prompt_tokens_sum"},
    };
    struct scl_config c;
    struct scl_source *src;
    struct scl_expo e, t;
    struct pol_snapshot s;
    struct scl_view v;
    struct pol_ph itl;
    struct scl_sample *ts;

    load_text(&c, "max_replicas: 4\nwindow_s: 60\nstale_after_s: 45\n"
                  "actuator: {kind: log}\n");
    src = scl_source_new(&c);
    parse_fixture("vllm-metrics.txt", &e);
    scl_source_begin(src, 100, 5000);
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
        struct scl_expo r;
        select_into(&e, qs[i].name, &r);
        scl_source_feed_query(src, qs[i].q, &r);
        scl_expo_fini(&r);
    }
    scl_expo_init(&t);
    ts = scl_expo_append(&t, "", 4990);
    (void)ts;
    scl_source_feed_query(src, SCL_Q_SCRAPE_TIME, &t);
    scl_source_end(src);
    scl_source_snapshot(src, 2, &s, &v);
    ck_assert_int_eq(v.valid, 1);
    ck_assert_double_eq(v.age_s, 10);
    /* The page's buckets as increments over the 60 s window. */
    pol_ph_init(&itl, POL_PH_ITL);
    itl.bucket[1] = 100000;
    itl.bucket[2] = 200000;
    itl.bucket[3] = 40000;
    itl.bucket[4] = 3678;
    itl.count = 343678;
    itl.sum = 12028.73;
    ck_assert_double_eq(s.itl_p99_s, pol_ph_quantile(&itl, 0.99));
    ck_assert_double_eq(s.itl_p50_s, pol_ph_quantile(&itl, 0.5));
    ck_assert_double_eq(s.itl_mean_s, 12028.73 / 343678);
    ck_assert_double_eq(s.arrival_rate_per_s, 2000.0 / 60);
    ck_assert_double_eq(s.mean_prompt_tokens, 1234567.0 / 2000);
    ck_assert_double_eq(s.output_tokens_per_s, 345678.0 / 60);
    ck_assert_double_eq(s.replicas[0].requests_per_s, 2000.0 / 60);
    ck_assert_int_eq(s.pending, 1);
    /* The same round seen 50 s later is stale. */
    scl_source_begin(src, 150, 5040);
    scl_source_feed_query(src, SCL_Q_SCRAPE_TIME, &t);
    {
        struct scl_expo r;
        select_into(&e, "vllm:num_requests_running", &r);
        scl_source_feed_query(src, SCL_Q_RUNNING, &r);
        scl_expo_fini(&r);
    }
    scl_source_end(src);
    scl_source_snapshot(src, 2, &s, &v);
    ck_assert_int_eq(s.metrics_valid, 0);
    ck_assert_int_eq(v.hold, SCL_HOLD_STALE);
    ck_assert_str_eq(v.msg, "metrics stale for 50 s");
    scl_expo_fini(&t);
    scl_expo_fini(&e);
    scl_source_free(src);
    scl_config_fini(&c);
}
END_TEST

static Suite *scaler_parse_suite(void)
{
    Suite *s = suite_create("scaler_parse");
    TCase *tc = tcase_create("expo");

    tcase_add_test(tc, test_expo_parse_vllm);
    tcase_add_test(tc, test_expo_parse_escapes_nan_inf);
    tcase_add_test(tc, test_expo_parse_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("promapi");
    tcase_add_test(tc, test_prom_parse_vector);
    tcase_add_test(tc, test_prom_parse_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("config");
    tcase_add_test(tc, test_config_good);
    tcase_add_test(tc, test_config_errors);
    tcase_add_test(tc, test_config_hardening_errors);
    tcase_add_test(tc, test_config_syntax_and_required);
    tcase_add_test(tc, test_config_walker_messages);
    tcase_add_test(tc, test_config_scale_to_zero);
    suite_add_tcase(s, tc);
    tc = tcase_create("source");
    tcase_add_test(tc, test_source_scrape_vllm);
    tcase_add_test(tc, test_source_scrape_sglang);
    tcase_add_test(tc, test_source_prometheus_quantiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scaler_parse_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
