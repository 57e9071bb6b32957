/* Check suite for libdsec (include/dsec.h), linked as users link it: only
 * dsec_* symbols are visible. Scenarios are the bundled ones and the
 * fixtures under $top_srcdir/tests/data; plug-ins are the ones built in
 * $top_builddir/tests/.libs. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dsec.h"

static char path_buf[4096];

static const char *src(const char *rel)
{
    const char *top = getenv("top_srcdir");
    snprintf(path_buf, sizeof(path_buf), "%s/%s", top ? top : ".", rel);
    return path_buf;
}

/* The absolute path of rel under $top_builddir (plug-in paths are taken
 * from the scenario's directory otherwise). Caller frees. */
static char *build_path(const char *rel)
{
    const char *top = getenv("top_builddir");
    char *dir = realpath(top ? top : ".", NULL), *p = malloc(8192);

    ck_assert_ptr_nonnull(dir);
    snprintf(p, 8192, "%s/%s", dir, rel);
    free(dir);
    return p;
}

static dsec_scenario *load(const char *rel)
{
    dsec_scenario *sc = NULL;
    char *err = NULL;
    int rc = dsec_scenario_load_file(src(rel), &sc, &err);

    ck_assert_msg(rc == 0, "%s: %s", rel, err ? err : "?");
    ck_assert_ptr_null(err);
    return sc;
}

static char *run_json(dsec_scenario *sc)
{
    dsec_results *r = NULL;
    char *err = NULL, *json;
    int rc = dsec_run(sc, &r, &err);

    ck_assert_msg(rc == 0, "run: %s", err ? err : "?");
    json = dsec_results_json(r, 0);
    dsec_results_free(r);
    return json;
}

START_TEST(test_versions)
{
    ck_assert_str_eq(dsec_version(), PACKAGE_VERSION);
    ck_assert_int_eq(dsec_policy_api_version(), POL_API_VERSION);
    ck_assert_uint_eq(dsec_type_size("pol_snapshot"),
                      sizeof(struct pol_snapshot));
    ck_assert_uint_eq(dsec_type_size("pol_entry"), sizeof(struct pol_entry));
    ck_assert_uint_eq(dsec_type_size("dsec_policy_plugin"),
                      sizeof(struct dsec_policy_plugin));
    ck_assert_uint_eq(dsec_type_size("no_such_struct"), 0);
    ck_assert_str_eq(dsec_strerror(DSEC_EINVAL), "invalid argument");
}
END_TEST

/* M/M/1 at rho 0.9 through the library: 200,000 requests, mean sojourn
 * 1 / (mu - lambda) = 10 s within 10 %; overrides and seeds apply. */
START_TEST(test_run_mm1_overrides)
{
    dsec_scenario *sc = load("scenarios/mm1.yaml");
    dsec_results *r = NULL;
    char *err = NULL;
    double done, e2e, p99;

    ck_assert_int_eq(
        dsec_scenario_set(sc, "workload.synthetic.requests=200000", &err), 0);
    ck_assert_int_eq(dsec_run(sc, &r, &err), 0);
    ck_assert_int_eq(dsec_results_get(r, "requests_completed", &done), 0);
    ck_assert_double_eq(done, 200000);
    ck_assert_int_eq(dsec_results_get(r, "e2e_ms.mean", &e2e), 0);
    ck_assert_double_eq_tol(e2e / 1000.0, 10.0, 1.0);
    ck_assert_int_eq(dsec_results_get(r, "e2e_ms.p99", &p99), 0);
    ck_assert(p99 > e2e);
    ck_assert_int_eq(dsec_results_get(r, "no_such_field", &done),
                     DSEC_ENOTFOUND);
    ck_assert_int_eq(dsec_results_get(r, "e2e_ms.p42", &done), DSEC_ENOTFOUND);
    dsec_results_free(r);
    /* rho 0.45 by override: mean sojourn 1 / (1 - 0.45) = 1.82 s. */
    ck_assert_int_eq(
        dsec_scenario_set(sc, "workload.synthetic.arrival.rate_per_s=0.45",
                          &err),
        0);
    ck_assert_int_eq(dsec_run(sc, &r, &err), 0);
    ck_assert_int_eq(dsec_results_get(r, "e2e_ms.mean", &e2e), 0);
    ck_assert_double_eq_tol(e2e / 1000.0, 1.0 / 0.55, 0.1);
    dsec_results_free(r);
    dsec_scenario_free(sc);
}
END_TEST

/* Every field name reads back; the first few are the record's. */
START_TEST(test_fields)
{
    dsec_scenario *sc = load("scenarios/mm1.yaml");
    dsec_results *r = NULL;
    char *err = NULL;
    int n = dsec_results_nfields();
    double v;

    ck_assert_int_eq(
        dsec_scenario_set(sc, "workload.synthetic.requests=100", &err), 0);
    ck_assert_int_eq(dsec_run(sc, &r, &err), 0);
    ck_assert_int_gt(n, 40);
    ck_assert_ptr_null(dsec_results_field_name(n));
    ck_assert_ptr_null(dsec_results_field_name(-1));
    for (int i = 0; i < n; i++)
        ck_assert_msg(dsec_results_get(r, dsec_results_field_name(i), &v) == 0,
                      "%s", dsec_results_field_name(i));
    ck_assert_int_eq(dsec_results_get(r, "seed", &v), 0);
    ck_assert_double_eq(v, 1);
    dsec_results_free(r);
    dsec_scenario_free(sc);
}
END_TEST

/* Same scenario and seed: the same JSON; another seed: another. */
START_TEST(test_determinism)
{
    dsec_scenario *sc = load("tests/data/e2e/compare-small.yaml");
    char *a = run_json(sc), *b = run_json(sc), *c;

    ck_assert_str_eq(a, b);
    dsec_scenario_set_seed(sc, 8);
    c = run_json(sc);
    ck_assert_str_ne(a, c);
    ck_assert_ptr_nonnull(strstr(c, "\"seed\":8"));
    dsec_free(a);
    dsec_free(b);
    dsec_free(c);
    dsec_scenario_free(sc);
}
END_TEST

/* Errors carry their place; a load with a syntax error fails at once,
 * key errors at validation (all of them), bad overrides name themselves. */
START_TEST(test_errors)
{
    static const char bad_keys[] =
        "name: x\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: poisson, rate_per_s: -1}\n"
        "    requests: 10\n"
        "    prompt_tokens: {dist: fixed, value: 1}\n"
        "    output_tokens: {dist: fixed, value: 1}\n"
        "server: {kind: abstract, service: {dist: exponential, mean_s: 1}}\n"
        "cluster: {replicas: 1, colour: red}\n";
    dsec_scenario *sc = NULL;
    dsec_results *r = (dsec_results *)&sc; /* must be reset to NULL */
    char *err = NULL, *notes = NULL;
    int rc;

    rc = dsec_scenario_load_string("inline.yaml", "a: [1, 2\n", 0, NULL, &sc,
                                   &err);
    ck_assert_int_eq(rc, DSEC_EPARSE);
    ck_assert_ptr_null(sc);
    ck_assert_ptr_nonnull(strstr(err, "inline.yaml:"));
    ck_assert_ptr_nonnull(strstr(err, ": error: "));
    dsec_free(err);

    ck_assert_int_eq(dsec_scenario_load_file("/nonexistent/x.yaml", &sc, &err),
                     DSEC_EIO);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.yaml"));
    dsec_free(err);

    ck_assert_int_eq(
        dsec_scenario_load_string("inline.yaml", bad_keys, 0, NULL, &sc, &err),
        0);
    rc = dsec_scenario_validate(sc, &notes, &err);
    ck_assert_int_eq(rc, DSEC_EINVAL);
    ck_assert_ptr_null(notes);
    ck_assert_msg(strstr(err, "inline.yaml:4:") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "inline.yaml:9:") != NULL, "%s", err);
    ck_assert_ptr_nonnull(strchr(err, '\n')); /* both, one a line */
    dsec_free(err);
    rc = dsec_run(sc, &r, &err);
    ck_assert_int_eq(rc, DSEC_EINVAL);
    ck_assert_ptr_null(r);
    dsec_free(err);
    dsec_scenario_free(sc);

    sc = load("scenarios/mm1.yaml");
    ck_assert_int_eq(dsec_scenario_set(sc, "no-equals-sign", &err),
                     DSEC_EINVAL);
    dsec_free(err);
    ck_assert_int_eq(dsec_scenario_set(sc, "cluster.replicas=zero", &err), 0);
    rc = dsec_scenario_validate(sc, NULL, &err);
    ck_assert_int_eq(rc, DSEC_EINVAL);
    ck_assert_msg(strstr(err, "override cluster.replicas=zero") != NULL, "%s",
                  err);
    dsec_free(err);
    /* The text with an override that does not apply: none, and why. */
    ck_assert_ptr_null(dsec_scenario_text(sc, &err));
    ck_assert_ptr_nonnull(strstr(err, "override cluster.replicas=zero"));
    dsec_free(err);
    dsec_scenario_clear_sets(sc);
    ck_assert_int_eq(dsec_scenario_validate(sc, NULL, &err), 0);
    ck_assert_ptr_null(err);
    dsec_scenario_free(sc);
}
END_TEST

/* A session stepped every 30 s ends where one run does. */
START_TEST(test_session)
{
    dsec_scenario *sc = load("tests/data/e2e/compare-small.yaml");
    dsec_session *ss = NULL;
    dsec_results *r = NULL;
    char *err = NULL, *whole = run_json(sc), *stepped, *state;

    ck_assert_int_eq(dsec_session_open(sc, 0, &ss, &err), 0);
    for (double t = 30; t <= 600; t += 30) {
        ck_assert_int_eq(dsec_session_advance(ss, t, &err), 0);
        ck_assert_double_eq(dsec_session_now(ss), t);
    }
    state = dsec_session_state_json(ss);
    ck_assert_ptr_nonnull(strstr(state, "\"replicas\":["));
    ck_assert_ptr_nonnull(strstr(state, "\"now_s\":600"));
    dsec_free(state);
    ck_assert_int_eq(dsec_session_set_desired(ss, 3), DSEC_EINVAL);
    ck_assert_int_eq(dsec_session_advance(ss, INFINITY, &err), 0);
    ck_assert_int_eq(dsec_session_close(ss, &r, &err), 0);
    stepped = dsec_results_json(r, 0);
    ck_assert_str_eq(whole, stepped);
    dsec_results_free(r);
    dsec_free(whole);
    dsec_free(stepped);

    /* External: the caller sizes the cluster. */
    ck_assert_int_eq(dsec_session_open(sc, DSEC_SESSION_EXTERNAL, &ss, &err),
                     0);
    ck_assert_int_eq(dsec_session_set_desired(ss, 100), 8); /* max_gpus 8 */
    ck_assert_int_eq(dsec_session_advance(ss, 120, &err), 0);
    state = dsec_session_state_json(ss);
    ck_assert_msg(strstr(state, "\"desired\":8") != NULL, "%s", state);
    dsec_free(state);
    ck_assert_int_eq(dsec_session_close(ss, NULL, &err), 0);
    dsec_scenario_free(sc);
}
END_TEST

/* A policy handed to the scenario: the static rule written here gives
 * the built-in static policy's results (same decisions, same seed). */
struct fixed {
    int n;
};

static void *fixed_create(const void *params)
{
    (void)params;
    struct fixed *f = malloc(sizeof(*f));
    f->n = 5;
    return f;
}

static void fixed_destroy(void *state)
{
    free(state);
}

static int fixed_decide(void *state, const struct pol_snapshot *s,
                        struct pol_decision *out)
{
    (void)s;
    out->desired = ((struct fixed *)state)->n;
    return 0;
}

static const struct pol_ops fixed_ops = {POL_API_VERSION, fixed_create,
                                         fixed_destroy, fixed_decide};
static const struct pol_entry fixed_entry = {"fixed-five", "five replicas",
                                             NULL, 0, &fixed_ops};

/* Removes name (quoted) from json, in place, for comparing two runs
 * that differ only in the policy's name. */
static void drop_policy_name(char *json, const char *name)
{
    char *p = strstr(json, name);
    size_t n = strlen(name);

    ck_assert_msg(p != NULL, "%s not in %s", name, json);
    memmove(p, p + n, strlen(p + n) + 1);
}

START_TEST(test_set_policy)
{
    dsec_scenario *sc = load("tests/data/e2e/compare-small.yaml");
    static const struct pol_ops bad_ops = {POL_API_VERSION + 1, fixed_create,
                                           fixed_destroy, fixed_decide};
    static const struct pol_entry bad = {"bad", "", NULL, 0, &bad_ops};
    char *err = NULL, *mine, *builtin;

    ck_assert_int_eq(dsec_scenario_set_policy(sc, &bad, &err), DSEC_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "version 1"));
    dsec_free(err);
    ck_assert_int_eq(dsec_scenario_set_policy(sc, &fixed_entry, &err), 0);
    mine = run_json(sc);
    ck_assert_int_eq(dsec_scenario_set_policy(sc, NULL, &err), 0);
    ck_assert_int_eq(dsec_scenario_set(sc, "policy.name=static", &err), 0);
    ck_assert_int_eq(dsec_scenario_set(sc, "policy.params.replicas=5", &err),
                     0);
    builtin = run_json(sc);
    drop_policy_name(mine, "\"fixed-five\"");
    drop_policy_name(builtin, "\"static\"");
    ck_assert_str_eq(mine, builtin);
    dsec_free(mine);
    dsec_free(builtin);
    dsec_scenario_free(sc);
}
END_TEST

/* The plug-in: loaded from policy.plugin; the one for API 99 refused. */
START_TEST(test_plugins)
{
    char *good = build_path("tests/.libs/libqueue_step.so");
    char *bad = build_path("tests/.libs/libbadversion.so");
    char *set = malloc(8192), *err = NULL, *json;
    dsec_scenario *sc = load("tests/data/e2e/compare-small.yaml");

    snprintf(set, 8192, "policy.plugin=%s", good);
    ck_assert_int_eq(dsec_scenario_set(sc, "policy.name=queue-step", &err), 0);
    ck_assert_int_eq(dsec_scenario_set(sc, set, &err), 0);
    ck_assert_int_eq(
        dsec_scenario_set(sc, "policy.params.up_waiting=0.5", &err), 0);
    json = run_json(sc);
    ck_assert_msg(strstr(json, "\"policy\":\"queue-step\"") != NULL, "%s",
                  json);
    dsec_free(json);
    dsec_scenario_clear_sets(sc);
    snprintf(set, 8192, "policy.plugin=%s", bad);
    ck_assert_int_eq(dsec_scenario_set(sc, set, &err), 0);
    ck_assert_int_eq(dsec_scenario_validate(sc, NULL, &err), DSEC_EINVAL);
    ck_assert_msg(strstr(err, "API version 99; this dsec has version 1") !=
                      NULL,
                  "%s", err);
    dsec_free(err);
    dsec_scenario_free(sc);
    free(good);
    free(bad);
    free(set);
}
END_TEST

/* compare: one thread or three, the same JSON. */
START_TEST(test_compare)
{
    static const char *const pols[] = {"target-latency", "static:replicas=4"};
    static const char *const badp[] = {"hpa:nonsense=1"};
    dsec_scenario *sc = load("tests/data/e2e/compare-small.yaml");
    char *err = NULL, *one, *three, *bad, *single;

    ck_assert_int_eq(dsec_compare_json(sc, pols, 2, 3, 7, 1, &one, &err), 0);
    ck_assert_int_eq(dsec_compare_json(sc, pols, 2, 3, 7, 3, &three, &err), 0);
    ck_assert_str_eq(one, three);
    ck_assert_ptr_nonnull(strstr(one, "static:replicas=4"));
    ck_assert_int_eq(dsec_compare_json(sc, badp, 1, 2, 7, 1, &bad, &err),
                     DSEC_EINVAL);
    ck_assert_ptr_null(bad);
    ck_assert_msg(strstr(err, "nonsense") != NULL, "%s", err);
    dsec_free(err);
    ck_assert_int_eq(dsec_compare_json(sc, pols, 2, 0, 7, 1, &bad, &err),
                     DSEC_EINVAL);
    dsec_free(err);
    /* One replication, as dsec compare --replications 1 allows. */
    ck_assert_int_eq(dsec_compare_json(sc, pols, 2, 1, 7, 1, &single, &err), 0);
    dsec_free(single);
    dsec_free(one);
    dsec_free(three);
    dsec_scenario_free(sc);
}
END_TEST

static Suite *lib_suite(void)
{
    Suite *s = suite_create("lib");
    TCase *tc = tcase_create("api");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_versions);
    tcase_add_test(tc, test_run_mm1_overrides);
    tcase_add_test(tc, test_fields);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_session);
    tcase_add_test(tc, test_set_policy);
    tcase_add_test(tc, test_plugins);
    tcase_add_test(tc, test_compare);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lib_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
