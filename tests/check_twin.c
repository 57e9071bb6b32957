/*
 * Check suite for the twin's answers (twin/twin.c), without a network: the
 * /metrics text of a session stepped to fixed simulated times (vLLM's names
 * and types, one series per serving replica, cumulative buckets with +Inf
 * equal to _count, replicas' counters adding up to the cluster's), and the
 * scale subresource's answers and error codes. Deterministic: the session
 * is advanced by the test, not by a clock.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "sim/time.h"
#include "base/xalloc.h"
#include "twin/twin.h"

static const char *const text =
    "seed: 7\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: {process: poisson, rate_per_s: 6}\n"
    "    duration: 10min\n"
    "    prompt_tokens: {dist: lognormal, mean: 600, sd: 300}\n"
    "    output_tokens: {dist: lognormal, mean: 200, sd: 150, max: 1000}\n"
    "hardware: {gpu: h100, gpus_per_node: 8}\n"
    "model: llama-3.1-8b\n"
    "deploy: {tp: 1, engine_init: 5s}\n"
    "cluster: {min_gpus: 1, max_gpus: 4}\n"
    "pools:\n"
    "  - {name: warm, capacity_gpus: 4, provision: {dist: fixed, mean_s: "
    "10}}\n"
    "policy: {name: hpa}\n";

struct fix {
    struct cl_run_opts opts; /* borrowed by the session until it closes */
    struct cl_scenario scn;
    struct cl_results res;
    struct cl_session *ss;
    struct twin t;
};

static struct fix *fix_new(void)
{
    struct fix *f = xcalloc(1, sizeof(*f));
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(
        scn_string_load("inline.yaml", text, strlen(text), &f->scn, &d), 0);
    f->opts.base_dir = ".";
    ck_assert_int_eq(cl_session_open(&f->scn, &f->opts,
                                     CL_SESSION_EXTERNAL | CL_SESSION_READOUTS,
                                     &f->res, &f->ss, &d),
                     0);
    sim_diag_fini(&d);
    twin_init(&f->t, f->ss, "prod", "llm", "llama-3.1-8b", 20);
    return f;
}

static void fix_free(struct fix *f)
{
    ck_assert_int_eq(cl_session_close(f->ss), 0);
    cl_results_fini(&f->res);
    cl_scenario_fini(&f->scn);
    free(f);
}

static void handle(struct fix *f, const char *method, const char *path,
                   const char *ctype, const char *body, struct twin_reply *r)
{
    twin_handle(&f->t, method, path, ctype, NULL, body,
                body != NULL ? strlen(body) : 0, r);
    ck_assert_ptr_nonnull(r->body);
    ck_assert_uint_eq(strlen(r->body), r->len);
}

/* Copies the line at *p into buf (without its newline), moves *p past it;
 * returns 0 at the end of the text. */
static int next_line(const char **p, char *buf, size_t len)
{
    const char *nl = strchr(*p, '\n');
    size_t n;

    if (**p == '\0' || nl == NULL)
        return 0;
    n = (size_t)(nl - *p);
    ck_assert_uint_lt(n, len);
    memcpy(buf, *p, n);
    buf[n] = '\0';
    *p = nl + 1;
    return 1;
}

static double value_of(const char *line)
{
    return strtod(strrchr(line, ' ') + 1, NULL);
}

/* Sum of the samples whose line starts with prefix; *n: how many. */
static double sum_of(const char *m, const char *prefix, int *n)
{
    char line[512];
    double s = 0;

    *n = 0;
    while (next_line(&m, line, sizeof(line)))
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            s += value_of(line);
            (*n)++;
        }
    return s;
}

/* Checks every histogram series of name: buckets cumulative, +Inf equal
 * to the _count that follows; returns the number of series. */
static int check_hist(const char *m, const char *name)
{
    char bucket[128], count[128], line[512];
    int series = 0;
    double last = -1, inf = -1;

    snprintf(bucket, sizeof(bucket), "%s_bucket{", name);
    snprintf(count, sizeof(count), "%s_count{", name);
    while (next_line(&m, line, sizeof(line))) {
        if (strncmp(line, bucket, strlen(bucket)) == 0) {
            double v = value_of(line);
            if (last >= 0)
                ck_assert(v >= last);
            last = v;
            if (strstr(line, "le=\"+Inf\"") != NULL) {
                inf = v;
                last = -1;
            }
        } else if (strncmp(line, count, strlen(count)) == 0) {
            ck_assert(value_of(line) == inf);
            inf = -1;
            series++;
        }
    }
    return series;
}

START_TEST(test_twin_metrics_series)
{
    struct fix *f = fix_new();
    struct cl_session_cluster c;
    char *m;
    size_t len;
    int n;

    ck_assert_int_eq(cl_session_set_desired(f->ss, 3), 3);
    ck_assert_int_eq(cl_session_advance(f->ss, sim_s_to_ns(120)), 0);
    cl_session_cluster(f->ss, &c);
    ck_assert_int_eq(c.serving, 3);
    m = twin_metrics(&f->t, &len);
    ck_assert_uint_eq(strlen(m), len);
    ck_assert_ptr_nonnull(
        strstr(m, "# TYPE vllm:num_requests_running gauge\n"));
    ck_assert_ptr_nonnull(
        strstr(m, "# TYPE vllm:request_success_total counter\n"));
    ck_assert_ptr_nonnull(
        strstr(m, "# TYPE vllm:time_to_first_token_seconds histogram\n"));
    ck_assert_ptr_nonnull(
        strstr(m, "vllm:num_requests_running{model_name=\"llama-3.1-8b\","
                  "engine=\"0\",replica=\"llm-2\"} "));
    sum_of(m, "vllm:num_requests_running{", &n);
    ck_assert_int_eq(n, 3);
    /* No replica has gone: their successes are the cluster's. */
    ck_assert(sum_of(m, "vllm:request_success_total{", &n) ==
              (double)c.completed);
    ck_assert(sum_of(m, "dsec_twin_requests_completed_total ", &n) ==
              (double)c.completed);
    ck_assert(sum_of(m, "vllm:request_prompt_tokens_count{", &n) ==
              (double)c.completed);
    ck_assert_int_eq(check_hist(m, "vllm:time_to_first_token_seconds"), 3);
    ck_assert_int_eq(check_hist(m, "vllm:inter_token_latency_seconds"), 3);
    ck_assert_int_eq(check_hist(m, "vllm:e2e_request_latency_seconds"), 3);
    ck_assert_int_eq(check_hist(m, "vllm:request_generation_tokens"), 3);
    ck_assert_double_eq_tol(sum_of(m, "dsec_twin_sim_time_seconds ", &n), 120,
                            1e-9);
    ck_assert_int_eq(n, 1);
    ck_assert_double_eq(sum_of(m, "dsec_twin_ready_replicas ", &n), 3);
    free(m);
    fix_free(f);
}
END_TEST

START_TEST(test_twin_handle_scale)
{
    struct fix *f = fix_new();
    const char *path = "/apis/apps/v1/namespaces/prod/deployments/llm/scale";
    const char *mp = "application/merge-patch+json";
    struct twin_reply r;
    struct cl_session_cluster c;

    handle(f, "GET", path, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body,
                     "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\","
                     "\"metadata\":{\"name\":\"llm\",\"namespace\":\"prod\","
                     "\"resourceVersion\":\"1\"},\"spec\":{\"replicas\":1},"
                     "\"status\":{\"replicas\":1,\"selector\":\"app=llm\"}}"
                     "\n");
    free(r.body);

    handle(f, "PATCH", path, "application/merge-patch+json; charset=utf-8",
           "{\"spec\":{\"replicas\":3}}", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"resourceVersion\":\"2\""));
    ck_assert_ptr_nonnull(strstr(r.body, "\"spec\":{\"replicas\":3}"));
    free(r.body);
    cl_session_cluster(f->ss, &c);
    ck_assert_int_eq(c.desired, 3);
    ck_assert_int_eq(c.pending, 2);

    /* The same value again: no change, no new resourceVersion. */
    handle(f, "PATCH", path, mp, "{\"spec\":{\"replicas\":3}}", &r);
    ck_assert_ptr_nonnull(strstr(r.body, "\"resourceVersion\":\"2\""));
    free(r.body);
    ck_assert_uint_eq(f->t.patches, 1);

    /* dryRun=All: validated, not applied. */
    twin_handle(&f->t, "PATCH", path, mp, "All", "{\"spec\":{\"replicas\":1}}",
                23, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"spec\":{\"replicas\":3}"));
    free(r.body);

    /* Beyond the bounds: kept in spec, the cluster at its max. */
    handle(f, "PATCH", path, "application/json-patch+json",
           "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":9}]",
           &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"spec\":{\"replicas\":9}"));
    free(r.body);
    cl_session_cluster(f->ss, &c);
    ck_assert_int_eq(c.desired, 4);
    fix_free(f);
}
END_TEST

START_TEST(test_twin_handle_errors)
{
    struct fix *f = fix_new();
    const char *path = "/apis/apps/v1/namespaces/prod/deployments/llm/scale";
    const char *mp = "application/merge-patch+json";
    static const struct {
        const char *method, *path, *ctype, *body;
        int status;
        const char *want;
    } cases[] = {
        {"PATCH", NULL, "application/json", "{\"spec\":{\"replicas\":2}}", 415,
         "\"reason\":\"UnsupportedMediaType\""},
        {"PATCH", NULL, NULL, "{\"spec\":{\"replicas\":2}}", 415,
         "\"code\":415"},
        {"PATCH", NULL, NULL, "{\"spec\":{\"replicas\":", 400,
         "\"reason\":\"BadRequest\""},
        {"PATCH", NULL, NULL, "{\"spec\":{\"replicas\":2}} x", 400,
         "error decoding patch"},
        {"PATCH", NULL, NULL, "[1]", 400, "not a JSON object"},
        {"PATCH", NULL, NULL, "{\"spec\":{\"replicas\":2.5}}", 400,
         "spec.replicas: expected an integer"},
        {"PATCH", NULL, NULL, "{\"spec\":{\"replicas\":-1}}", 422,
         "spec.replicas: Invalid value: -1: must be greater than or equal "
         "to 0"},
        {"PATCH", NULL, NULL, "{\"spec\":{\"replicas\":4294967296}}", 422,
         "\"reason\":\"Invalid\""},
        {"PUT", NULL, NULL, "{}", 405, "\"reason\":\"MethodNotAllowed\""},
        {"GET", "/apis/apps/v1/namespaces/prod/deployments/web/scale", NULL,
         NULL, 404, "deployments.apps \\\"web\\\" not found"},
        {"GET", "/apis/apps/v1/namespaces/dev/deployments/llm/scale", NULL,
         NULL, 404, "\"reason\":\"NotFound\""},
        {"GET", "/apis/apps/v1/namespaces/prod/deployments/llm", NULL, NULL,
         404, "could not find the requested resource"},
        {"GET", "/nothing", NULL, NULL, 404, "404 page not found"},
        {"POST", "/metrics", NULL, NULL, 405, "method not allowed"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct twin_reply r;
        const char *ct = cases[i].ctype;
        if (ct == NULL && strcmp(cases[i].method, "PATCH") == 0 &&
            cases[i].status != 415)
            ct = mp;
        handle(f, cases[i].method, cases[i].path ? cases[i].path : path, ct,
               cases[i].body, &r);
        if (r.status != cases[i].status ||
            strstr(r.body, cases[i].want) == NULL)
            ck_abort_msg("case %zu: %d %s", i, r.status, r.body);
        free(r.body);
    }
    /* Nothing changed spec.replicas. */
    ck_assert_int_eq(f->t.spec_replicas, 1);
    ck_assert_uint_eq(f->t.resource_version, 1);
    fix_free(f);
}
END_TEST

START_TEST(test_twin_name_ok)
{
    ck_assert_int_eq(twin_name_ok("llm"), 1);
    ck_assert_int_eq(twin_name_ok("a-1"), 1);
    ck_assert_int_eq(twin_name_ok(""), 0);
    ck_assert_int_eq(twin_name_ok("-a"), 0);
    ck_assert_int_eq(twin_name_ok("a-"), 0);
    ck_assert_int_eq(twin_name_ok("Llm"), 0);
    ck_assert_int_eq(twin_name_ok("a_b"), 0);
    ck_assert_int_eq(
        twin_name_ok(
            "a234567890123456789012345678901234567890123456789012345678901234"),
        0);
}
END_TEST

static Suite *twin_suite(void)
{
    Suite *s = suite_create("twin");
    TCase *tc = tcase_create("twin");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_twin_metrics_series);
    tcase_add_test(tc, test_twin_handle_scale);
    tcase_add_test(tc, test_twin_handle_errors);
    tcase_add_test(tc, test_twin_name_ok);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(twin_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
