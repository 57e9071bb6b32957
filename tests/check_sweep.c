/* Tests of sweeps (sweep/): expanding a sweep file into points, applying
 * overrides to the base scenario's YAML tree, moving diagnostics back to
 * the sweep file, packing results for MPI, the worker pool, the sweep
 * tables of the results database and the driver's resume and interrupt
 * paths. Sweep texts are inline (named "t/sweep.yaml"); fixtures with a
 * base file are in tests/data/sweep/, found through $top_srcdir. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/cluster/cluster.h"
#include "reports/db.h"
#include "reports/summary.h"
#include "scenarios/load.h"
#include "base/diag.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sweep/exec.h"
#include "sweep/pool.h"
#include "sweep/spec.h"
#include "sweep/wire.h"
#include "tests/results-fixture.h"

/* An inline abstract-server scenario of 200 requests, lines 1-8 of every
 * sweep text below; cases append lines 9+. */
#define HEAD                                                                   \
    "name: t\n"                                                                \
    "scenario:\n"                                                              \
    "  workload:\n"                                                            \
    "    synthetic:\n"                                                         \
    "      arrival: {rate_per_s: 5}\n"                                         \
    "      requests: 200\n"                                                    \
    "  server:\n"                                                              \
    "    service: {dist: exponential, mean_s: 0.1}\n"

#define FILE_NAME "t/sweep.yaml"

static struct sim_diag diag;
static struct swp_spec *spec;

static void setup(void)
{
    sim_diag_init(&diag);
    spec = NULL;
}

static void teardown(void)
{
    swp_spec_free(spec);
    sim_diag_fini(&diag);
}

static struct swp_spec *load(const char *text)
{
    return swp_spec_load_string(FILE_NAME, text, strlen(text), &diag);
}

/* An absolute path: the sweep texts below are named FILE_NAME, so a
 * relative base would be read relative to its directory. */
static char *fixture(const char *name)
{
    const char *top = getenv("top_srcdir");
    char cwd[4096];

    if (top == NULL)
        top = ".";
    if (top[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
        return xasprintf("%s/tests/data/sweep/%s", top, name);
    return xasprintf("%s/%s/tests/data/sweep/%s", cwd, top, name);
}

/* Asserts that the diagnostics are exactly want[] (NULL-terminated). */
static void assert_diags(const char *const *want)
{
    int n = 0;

    for (; want[n] != NULL; n++) {
        char *got;
        ck_assert_msg(n < diag.n, "missing diagnostic %d: %s", n, want[n]);
        got = sim_diag_format(&diag, n);
        ck_assert_str_eq(got, want[n]);
        free(got);
    }
    if (diag.n != n) {
        char *extra = sim_diag_format(&diag, n);
        ck_abort_msg("%d diagnostics, expected %d; next: %s", diag.n, n, extra);
        free(extra);
    }
}

/* Loads a point's text as dsec run would. */
static void load_point(const struct swp_point *p, struct cl_scenario *out)
{
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(
        scn_string_load("p.yaml", p->text, strlen(p->text), out, &d), 0);
    sim_diag_fini(&d);
}

/* swp_spec_load_string: the grid */

START_TEST(test_swp_spec_load_grid_order_keys_and_seeds)
{
    struct cl_scenario scn;

    spec = load(HEAD "axes:\n"
                     "  cluster.replicas: [1, 2, 3]\n"
                     "  server.concurrency: [1, 2]\n"
                     "replications: 2\n");
    ck_assert_ptr_nonnull(spec);
    ck_assert_int_eq(diag.n, 0);
    ck_assert_uint_eq(spec->npoints, 12);
    ck_assert_int_eq(spec->ncolumns, 3);
    ck_assert_str_eq(spec->columns[0], "cluster.replicas");
    ck_assert_str_eq(spec->columns[1], "server.concurrency");
    ck_assert_str_eq(spec->columns[2], "seed");
    ck_assert_str_eq(spec->name, "t");
    ck_assert_uint_eq(strlen(spec->hash), 16);
    /* The last axis varies fastest, then the replication. */
    ck_assert_str_eq(spec->points[0].key,
                     "cluster.replicas=1, seed=1, server.concurrency=1");
    ck_assert_str_eq(spec->points[1].key,
                     "cluster.replicas=1, seed=2, server.concurrency=1");
    ck_assert_str_eq(spec->points[2].key,
                     "cluster.replicas=1, seed=1, server.concurrency=2");
    ck_assert_str_eq(spec->points[11].key,
                     "cluster.replicas=3, seed=2, server.concurrency=2");
    for (size_t i = 0; i < spec->npoints; i++) {
        ck_assert_uint_eq(spec->points[i].seq, i);
        ck_assert_int_eq(spec->points[i].infeasible, 0);
        ck_assert_int_eq(swp_spec_find(spec, spec->points[i].key), (long)i);
    }
    ck_assert_int_eq(swp_spec_find(spec, "cluster.replicas=4"), -1);
    ck_assert_str_eq(spec->points[9].values[0], "3");
    ck_assert_str_eq(spec->points[9].values[1], "1");
    ck_assert_str_eq(spec->points[9].values[2], "2");

    /* Each text is the base with the overrides: it loads as such. */
    memset(&scn, 0, sizeof(scn));
    load_point(&spec->points[9], &scn);
    ck_assert_int_eq(scn.cluster.replicas, 3);
    ck_assert_int_eq(scn.server.concurrency, 1);
    ck_assert_uint_eq(scn.seed, 2);
    ck_assert_uint_eq(spec->points[9].seed, 2);
    ck_assert_int_eq((int)scn.workload.synthetic.requests, 200);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_swp_spec_load_keys_stable_when_an_axis_grows)
{
    struct swp_spec *more;

    spec = load(HEAD "axes:\n"
                     "  cluster.replicas: [1, 2]\n");
    more = load(HEAD "axes:\n"
                     "  cluster.replicas: [1, 4, 2]\n");
    ck_assert_ptr_nonnull(spec);
    ck_assert_ptr_nonnull(more);
    ck_assert_uint_eq(more->npoints, 3);
    for (size_t i = 0; i < spec->npoints; i++) {
        long j = swp_spec_find(more, spec->points[i].key);
        ck_assert_int_ge(j, 0);
        ck_assert_str_eq(more->points[j].text, spec->points[i].text);
    }
    /* A different file is a different sweep. */
    ck_assert_str_ne(more->hash, spec->hash);
    swp_spec_free(more);
}
END_TEST

START_TEST(test_swp_spec_load_seeds_list_points_and_set)
{
    struct cl_scenario scn;

    spec = load(HEAD "set:\n"
                     "  workload.synthetic.requests: 50\n"
                     "points:\n"
                     "  - {cluster.replicas: 2}\n"
                     "  - {cluster.replicas: 3, server.concurrency: 4}\n"
                     "seeds: [11, 5]\n");
    ck_assert_ptr_nonnull(spec);
    ck_assert_uint_eq(spec->npoints, 4);
    ck_assert_int_eq(spec->ncolumns, 3);
    ck_assert_str_eq(spec->points[0].key, "cluster.replicas=2, seed=11");
    ck_assert_str_eq(spec->points[1].key, "cluster.replicas=2, seed=5");
    ck_assert_str_eq(spec->points[3].key,
                     "cluster.replicas=3, seed=5, server.concurrency=4");
    ck_assert_ptr_null(spec->points[0].values[1]);
    ck_assert_str_eq(spec->points[3].values[1], "4");
    memset(&scn, 0, sizeof(scn));
    load_point(&spec->points[3], &scn);
    ck_assert_int_eq((int)scn.workload.synthetic.requests, 50);
    ck_assert_int_eq(scn.server.concurrency, 4);
    ck_assert_uint_eq(scn.seed, 5);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_swp_spec_load_no_axes_is_the_base)
{
    spec = load(HEAD);
    ck_assert_ptr_nonnull(spec);
    ck_assert_uint_eq(spec->npoints, 1);
    ck_assert_str_eq(spec->points[0].key, "");
    ck_assert_int_eq(spec->ncolumns, 0);
}
END_TEST

/* swp_spec_load_string: overrides on the YAML tree */

START_TEST(test_swp_spec_load_override_creates_mappings)
{
    struct cl_scenario scn;

    /* slo is not in the base: slo and slo.e2e_ms are created. */
    spec = load(HEAD "axes:\n"
                     "  slo.e2e_ms: [500]\n"
                     "  metrics.interval: [\"5s\"]\n");
    ck_assert_ptr_nonnull(spec);
    memset(&scn, 0, sizeof(scn));
    load_point(&spec->points[0], &scn);
    ck_assert_int_eq((int)(scn.slo.e2e_ns / 1000000), 500);
    ck_assert_int_eq((int)(scn.metrics.interval_ns / 1000000000), 5);
    cl_scenario_fini(&scn);
    /* The style of a value does not change its key. */
    ck_assert_str_eq(spec->points[0].key,
                     "metrics.interval=5s, slo.e2e_ms=500");
}
END_TEST

START_TEST(test_swp_spec_load_override_replaces_flow_and_null)
{
    struct cl_scenario scn;

    spec = load("scenario:\n"
                "  workload:\n"
                "    synthetic:\n"
                "      arrival: {rate_per_s: 5}\n"
                "      requests: 20\n"
                "  server: {service: {dist: deterministic, mean_s: 0.5}}\n"
                "  slo:\n"
                "axes:\n"
                "  server.service.mean_s: [0.25]\n"
                "  slo.e2e_ms: [900]\n"
                "  workload.synthetic.arrival: [{rate_per_s: 2}]\n");
    ck_assert_ptr_nonnull(spec);
    ck_assert_str_eq(spec->points[0].key,
                     "server.service.mean_s=0.25, slo.e2e_ms=900, "
                     "workload.synthetic.arrival={rate_per_s: 2}");
    memset(&scn, 0, sizeof(scn));
    load_point(&spec->points[0], &scn);
    ck_assert_int_eq((int)(scn.slo.e2e_ns / 1000000), 900);
    ck_assert(scn.server.service.mean == 0.25);
    ck_assert(scn.workload.synthetic.arrival.rate_per_s == 2);
    cl_scenario_fini(&scn);
    /* The default name of an inline scenario is the sweep file's. */
    ck_assert_str_eq(spec->name, "sweep");
}
END_TEST

START_TEST(test_swp_spec_load_override_list_index)
{
    char *path = fixture("pools-base.yaml");
    char *text = xasprintf("base: %s\n"
                           "axes:\n"
                           "  pools[1].capacity_gpus: [2, 6]\n",
                           path);
    struct cl_scenario scn;

    spec = load(text);
    ck_assert_msg(spec != NULL, "%s",
                  diag.n ? sim_diag_format(&diag, 0) : "no diagnostic");
    memset(&scn, 0, sizeof(scn));
    load_point(&spec->points[1], &scn);
    ck_assert_int_eq(scn.npools, 2);
    ck_assert_int_eq(scn.pools[0].capacity_gpus, 4);
    ck_assert_int_eq(scn.pools[1].capacity_gpus, 6);
    cl_scenario_fini(&scn);
    ck_assert_str_eq(spec->scenario_file, path);
    free(text);
    free(path);
}
END_TEST

START_TEST(test_swp_spec_load_infeasible_point_is_kept)
{
    char *path = fixture("grid.yaml");

    spec = swp_spec_load(path, &diag);
    ck_assert_ptr_nonnull(spec);
    ck_assert_uint_eq(spec->npoints, 4);
    /* tp 2: 141 GB of bf16 weights on two 80 GB GPUs. */
    ck_assert_str_eq(spec->points[0].key, "deploy.tp=2, hardware.gpu=h100");
    ck_assert_int_eq(spec->points[0].infeasible, 1);
    ck_assert_ptr_nonnull(strstr(spec->points[0].message, "error: deploy: "));
    ck_assert_int_eq(spec->points[1].infeasible, 0);
    ck_assert_ptr_null(spec->points[1].message);
    free(path);
}
END_TEST

/* swp_spec_load_string: diagnostics */

START_TEST(test_swp_spec_load_error_unknown_key_at_axis)
{
    char *path = fixture("bad-axis.yaml");
    char *want0 = xasprintf(
        "%s:5:3: error: hardware.gpux: unknown key; did you mean 'gpu'?", path);
    char *want1 =
        xasprintf("%s: note: in point deploy.tp=4, hardware.gpux=h100", path);
    const char *want[] = {want0, want1, NULL};

    spec = swp_spec_load(path, &diag);
    ck_assert_ptr_null(spec);
    assert_diags(want);
    free(want0);
    free(want1);
    free(path);
}
END_TEST

START_TEST(test_swp_spec_load_error_bad_value_at_value)
{
    char *path = fixture("bad-value.yaml");
    char *want0 = xasprintf("%s:4:24: error: hardware.gpu: unknown gpu 'h999'; "
                            "valid: a100, b200, h100, h200, h800, l40s, mi300x",
                            path);
    char *want1 = xasprintf("%s: note: in point hardware.gpu=h999", path);
    const char *want[] = {want0, want1, NULL};

    spec = swp_spec_load(path, &diag);
    ck_assert_ptr_null(spec);
    assert_diags(want);
    free(want0);
    free(want1);
    free(path);
}
END_TEST

START_TEST(test_swp_spec_load_error_in_base_at_base)
{
    static const char *const want[] = {
        FILE_NAME ":8:23: error: server.service.mean_s: -1 out of range "
                  "[1e-09, 3.16224e+07]",
        FILE_NAME ": note: in point cluster.replicas=1",
        NULL,
    };

    /* An inline base's own error is reported at its place, once for all
     * the points that carry it. */
    spec = load("name: t\n"
                "scenario:\n"
                "  workload:\n"
                "    synthetic:\n"
                "      arrival: {rate_per_s: 5}\n"
                "      requests: 200\n"
                "  server:\n"
                "    service: {mean_s: -1, dist: exponential}\n"
                "axes:\n"
                "  cluster.replicas: [1, 2]\n");
    ck_assert_ptr_null(spec);
    assert_diags(want);
}
END_TEST

START_TEST(test_swp_spec_load_error_sweep_keys)
{
    static const char *const want[] = {
        FILE_NAME ":9:1: error: axis: unknown key; did you mean 'axes'?",
        FILE_NAME ":10:1: error: colour: unknown key; valid: axes, base, "
                  "name, points, replications, scenario, seeds, set, "
                  "uncertainty",
        FILE_NAME ":12:3: error: axes: expected a dotted scenario key path "
                  "such as hardware.gpu or pools[0].capacity_gpus, got "
                  "'cluster..replicas'",
        FILE_NAME ":13:30: error: axes.server.concurrency[2]: duplicate "
                  "value 1",
        FILE_NAME ":14:9: error: axes.seed: expected a non-empty list of "
                  "values, got an empty list",
        FILE_NAME ":15:15: error: replications: 0 out of range [1, 100000]",
        FILE_NAME ":16:1: error: name: duplicate key",
        NULL,
    };

    spec = load(HEAD "axis: {}\n"
                     "colour: blue\n"
                     "axes:\n"
                     "  cluster..replicas: [1]\n"
                     "  server.concurrency: [1, 2, 1]\n"
                     "  seed: []\n"
                     "replications: 0\n"
                     "name: again\n");
    ck_assert_ptr_null(spec);
    assert_diags(want);
}
END_TEST

START_TEST(test_swp_spec_load_error_seeds)
{
    static const char *const dup[] = {
        FILE_NAME ":10:1: error: replications: give either replications or "
                  "seeds, not both",
        FILE_NAME ":9:15: error: seeds[2]: duplicate seed 3",
        NULL,
    };
    static const char *const bad[] = {
        FILE_NAME ":9:12: error: seeds[1]: expected an integer, got 'x'",
        NULL,
    };
    static const char *const empty[] = {
        FILE_NAME ":9:8: error: seeds: expected a non-empty list of at most "
                  "100000 non-negative integers",
        NULL,
    };

    spec = load(HEAD "seeds: [3, 4, 3]\nreplications: 2\n");
    ck_assert_ptr_null(spec);
    assert_diags(dup);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    spec = load(HEAD "seeds: [1, x]\n");
    ck_assert_ptr_null(spec);
    assert_diags(bad);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    spec = load(HEAD "seeds: []\n");
    ck_assert_ptr_null(spec);
    assert_diags(empty);
}
END_TEST

START_TEST(test_swp_spec_load_error_conflicts)
{
    static const char *const want[] = {
        FILE_NAME ":14:1: error: give either base or scenario, not both",
        FILE_NAME ":10:3: error: axes.cluster.replicas: also set by "
                  "points[0]",
        FILE_NAME ":11:3: error: axes.seed: the seed is already set by "
                  "replications",
        NULL,
    };

    spec = load(HEAD "axes:\n"
                     "  cluster.replicas: [1]\n"
                     "  seed: [1, 2]\n"
                     "points: [{cluster.replicas: 2}]\n"
                     "replications: 2\n"
                     "base: x.yaml\n");
    ck_assert_ptr_null(spec);
    ck_assert_int_ge(diag.n, 3);
    for (int i = 0; i < 3; i++) {
        char *got = sim_diag_format(&diag, diag.n - 3 + i);
        ck_assert_str_eq(got, want[i]);
        free(got);
    }
}
END_TEST

START_TEST(test_swp_spec_load_error_path_through_scalar)
{
    static const char *const want[] = {
        FILE_NAME ":10:3: error: server.service.dist.x: server.service.dist "
                  "is a scalar in the base scenario, not a mapping",
        NULL,
    };

    spec = load(HEAD "axes:\n"
                     "  server.service.dist.x: [1]\n");
    ck_assert_ptr_null(spec);
    assert_diags(want);
}
END_TEST

START_TEST(test_swp_spec_load_error_index)
{
    static const char *const want[] = {
        FILE_NAME ":10:5: error: workload[0].x: workload is a mapping in the "
                  "base scenario, not a list",
        FILE_NAME ":11:5: error: pools[0].gpu: pools is not in the base "
                  "scenario; an index needs an existing list",
        NULL,
    };

    spec = load(HEAD "points:\n"
                     "  - workload[0].x: 1\n"
                     "  - pools[0].gpu: h100\n");
    ck_assert_ptr_null(spec);
    assert_diags(want);
}
END_TEST

START_TEST(test_swp_spec_load_error_syntax)
{
    static const char *const want[] = {
        FILE_NAME ":2:5: error: did not find expected ',' or ']'",
        NULL,
    };

    spec = load("axes: [1, 2\nbase: x\n");
    ck_assert_ptr_null(spec);
    assert_diags(want);
}
END_TEST

/* swp_results_pack, swp_results_unpack */

static void run_small(struct cl_results *res)
{
    char *path = fixture("pools-base.yaml");
    struct swp_done done;
    struct cl_scenario scn;
    struct sim_diag d;
    char *text;

    sim_diag_init(&d);
    ck_assert_int_eq(scn_file_load(path, &scn, &d), 0);
    text = xstrdup(scn.text);
    cl_scenario_fini(&scn);
    swp_run_text(0, path, text, ".", &done);
    ck_assert_msg(done.rc == 0, "%s", done.message);
    *res = done.res;
    memset(&done.res, 0, sizeof(done.res));
    swp_done_fini(&done);
    sim_diag_fini(&d);
    free(text);
    free(path);
}

START_TEST(test_swp_results_pack_round_trip)
{
    struct cl_results a, b;
    unsigned char *p;
    size_t len = 0;
    char *ja, *jb;

    run_small(&a);
    ck_assert_uint_gt(a.nseries, 0);
    ck_assert_int_eq(a.npools, 2);
    ck_assert_ptr_nonnull(a.pool_gpus_mean);
    p = swp_results_pack(&a, &len);
    ck_assert_int_eq(swp_results_unpack(p, len, &b), 0);
    ja = rpt_summary_json(&a, 0);
    jb = rpt_summary_json(&b, 0);
    ck_assert_str_eq(ja, jb);
    ck_assert_uint_eq(a.nseries, b.nseries);
    for (size_t i = 0; i < a.nseries; i++) {
        const struct cl_series_row *x = &a.series[i], *y = &b.series[i];
        ck_assert(x->t_start_ns == y->t_start_ns &&
                  x->t_end_ns == y->t_end_ns && x->arrivals == y->arrivals &&
                  x->completions == y->completions &&
                  x->output_tokens == y->output_tokens &&
                  x->desired_replicas == y->desired_replicas);
        ck_assert(memcmp(&x->throughput_tokens_per_s,
                         &y->throughput_tokens_per_s, sizeof(double)) == 0);
        ck_assert(memcmp(&x->e2e_p99_ms, &y->e2e_p99_ms, sizeof(double)) == 0);
        ck_assert(memcmp(&x->gpus_mean, &y->gpus_mean, sizeof(double)) == 0);
    }
    ck_assert(memcmp(a.pool_gpus_mean, b.pool_gpus_mean,
                     a.nseries * (size_t)a.npools * sizeof(double)) == 0);
    ck_assert(memcmp(a.pool_cost_usd, b.pool_cost_usd,
                     a.nseries * (size_t)a.npools * sizeof(double)) == 0);
    free(ja);
    free(jb);
    free(p);
    cl_results_fini(&a);
    cl_results_fini(&b);
}
END_TEST

/* Every field of every list, arrays included, through the wire: a field
 * added to models/cluster/results-fields.h is covered here unchanged. */
START_TEST(test_swp_results_pack_round_trip_every_field)
{
    struct cl_results a, b;
    unsigned char *p;
    size_t len = 0;

    rfix_fill(&a);
    p = swp_results_pack(&a, &len);
    ck_assert_int_eq(swp_results_unpack(p, len, &b), 0);
    rfix_assert_same(&a, &b);
    cl_results_fini(&b);
    for (size_t n = 0; n < len; n++)
        ck_assert_int_eq(swp_results_unpack(p, n, &b), SIM_EPARSE);
    free(p);
    cl_results_fini(&a);
}
END_TEST

START_TEST(test_swp_results_unpack_rejects_every_truncation)
{
    struct cl_results a, b;
    unsigned char *p, *q;
    size_t len = 0;

    run_small(&a);
    p = swp_results_pack(&a, &len);
    for (size_t n = 0; n < len; n++) {
        q = xmalloc(n);
        memcpy(q, p, n);
        ck_assert_int_eq(swp_results_unpack(q, n, &b), SIM_EPARSE);
        free(q);
    }
    q = xmalloc(len + 1);
    memcpy(q, p, len);
    q[len] = 0;
    ck_assert_int_eq(swp_results_unpack(q, len + 1, &b), SIM_EPARSE);
    free(q);
    free(p);
    cl_results_fini(&a);
}
END_TEST

/* swp_pool_*: results do not depend on the thread */

START_TEST(test_swp_pool_matches_serial_runs)
{
    struct swp_pool *pool;
    char *serial[6] = {NULL};
    int seen = 0, taken = 0;

    spec = load(HEAD "axes:\n"
                     "  cluster.replicas: [1, 2, 3]\n"
                     "replications: 2\n");
    ck_assert_ptr_nonnull(spec);
    for (size_t i = 0; i < spec->npoints; i++) {
        struct swp_done d;
        swp_run_text((long)i, spec->scenario_file, spec->points[i].text,
                     spec->base_dir, &d);
        ck_assert_int_eq(d.rc, 0);
        d.res.wall_s = d.res.events_per_s = 0;
        serial[i] = rpt_summary_json(&d.res, 0);
        swp_done_fini(&d);
    }
    pool = swp_pool_new(3);
    for (size_t i = 0; i < spec->npoints; i++)
        swp_pool_submit(pool, (long)i, spec->scenario_file,
                        spec->points[i].text, spec->base_dir);
    while (taken < 6) {
        struct swp_done d;
        char *j;
        if (!swp_pool_take(pool, 1000, &d))
            continue;
        ck_assert_int_eq(d.rc, 0);
        ck_assert_int_ge(d.id, 0);
        ck_assert_int_lt(d.id, 6);
        ck_assert_int_eq(seen & (1 << d.id), 0);
        seen |= 1 << d.id;
        taken++;
        ck_assert(d.res.wall_s > 0);
        d.res.wall_s = d.res.events_per_s = 0;
        j = rpt_summary_json(&d.res, 0);
        ck_assert_str_eq(j, serial[d.id]);
        free(j);
        swp_done_fini(&d);
    }
    ck_assert_int_eq(seen, 63);
    ck_assert_uint_eq(swp_pool_pending(pool), 0);
    swp_pool_free(pool);
    for (int i = 0; i < 6; i++)
        free(serial[i]);
}
END_TEST

START_TEST(test_swp_pool_cancel_drops_queued_jobs)
{
    struct swp_pool *pool;
    struct swp_done d;
    size_t dropped, taken = 0;

    spec = load(HEAD "axes:\n"
                     "  cluster.replicas: [1, 2, 3, 4, 5, 6, 7, 8]\n");
    ck_assert_ptr_nonnull(spec);
    pool = swp_pool_new(1);
    for (size_t i = 0; i < spec->npoints; i++)
        swp_pool_submit(pool, (long)i, spec->scenario_file,
                        spec->points[i].text, spec->base_dir);
    dropped = swp_pool_cancel(pool, NULL);
    while (swp_pool_pending(pool) > 0)
        if (swp_pool_take(pool, 1000, &d)) {
            taken++;
            swp_done_fini(&d);
        }
    /* Whatever had started finished; the rest was dropped. */
    ck_assert_uint_eq(dropped + taken, 8);
    ck_assert_uint_le(taken, 1);
    swp_pool_free(pool);
}
END_TEST

START_TEST(test_swp_run_text_reports_errors)
{
    struct swp_done d;

    swp_run_text(3, "x.yaml", "server: [\n", ".", &d);
    ck_assert_int_eq(d.id, 3);
    ck_assert_int_eq(d.rc, SIM_EPARSE);
    ck_assert_ptr_nonnull(d.message);
    ck_assert_ptr_nonnull(strstr(d.message, "x.yaml:"));
    swp_done_fini(&d);
}
END_TEST

/* rpt_db sweep tables */

START_TEST(test_rpt_db_write_sweep_point_once)
{
    struct rpt_db *db = rpt_db_open(":memory:", &diag);
    struct rpt_sweep_info si = {
        "s", "s.yaml", "text", "0123456789abcdef", "2026-01-01T00:00:00Z", 2};
    struct rpt_run_info ri = {0};
    const char *paths[] = {"cluster.replicas"}, *values[] = {"2"};
    struct rpt_sweep_point pt = {0};
    struct cl_results res;
    int64_t sweep = 0, sweep2 = 0, run = 0, run2 = 77;
    int created = 0;

    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(rpt_db_sweep_find_or_add(db, &si, &sweep, &created, &diag),
                     0);
    ck_assert_int_eq(created, 1);
    ck_assert_int_eq(
        rpt_db_sweep_find_or_add(db, &si, &sweep2, &created, &diag), 0);
    ck_assert_int_eq(created, 0);
    ck_assert_int_eq(sweep, sweep2);

    run_small(&res);
    ri.started_at = "2026-01-01T00:00:00Z";
    ri.seed = res.seed;
    pt.sweep_id = sweep;
    pt.key = "cluster.replicas=2";
    pt.seq = 1;
    pt.status = RPT_SWEEP_OK;
    pt.paths = paths;
    pt.values = values;
    pt.nvalues = 1;
    ck_assert_int_eq(rpt_db_write_sweep_point(db, &pt, &ri, &res, &run, &diag),
                     0);
    ck_assert_int_gt(run, 0);
    /* The same key again: refused whole, the run is not written twice. */
    ck_assert_int_eq(rpt_db_write_sweep_point(db, &pt, &ri, &res, &run2, &diag),
                     SIM_EBUSY);
    ck_assert_int_eq(run2, 77);
    /* An infeasible point has no run. */
    pt.key = "cluster.replicas=1";
    pt.seq = 0;
    pt.status = RPT_SWEEP_INFEASIBLE;
    pt.message = "does not fit";
    ck_assert_int_eq(
        rpt_db_write_sweep_point(db, &pt, NULL, NULL, &run2, &diag), 0);
    ck_assert_int_eq(run2, 0);
    ck_assert_int_eq(diag.n, 0);
    cl_results_fini(&res);
    rpt_db_close(db);
}
END_TEST

struct seen_points {
    int n;
    char keys[4][64];
    double cost[4];
    int64_t run[4];
};

static int gather(void *ctx, const char *key, int64_t seq, const char *status,
                  const char *message, int64_t run_id, const double *values)
{
    struct seen_points *s = ctx;

    (void)seq;
    (void)status;
    (void)message;
    ck_assert_int_lt(s->n, 4);
    snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
    s->cost[s->n] = values[1];
    s->run[s->n] = run_id;
    s->n++;
    return 0;
}

/* swp_exec: resume and interrupt */

START_TEST(test_swp_exec_resumes_and_stops_on_interrupt)
{
    static const char *const metrics[] = {"requests_completed", "cost_usd"};
    struct rpt_db *db = rpt_db_open(":memory:", &diag);
    struct swp_exec_opts o = {0};
    struct swp_exec_stats st;
    volatile sig_atomic_t interrupts = 1;
    struct seen_points seen = {0};

    spec = load(HEAD "axes:\n"
                     "  cluster.replicas: [1, 2, 3]\n");
    ck_assert_ptr_nonnull(spec);
    ck_assert_ptr_nonnull(db);
    o.jobs = 2;
    o.program_version = "test";
    o.interrupts = &interrupts;
    /* Interrupted before it starts: nothing runs, nothing is lost. */
    ck_assert_int_eq(swp_exec(spec, db, &o, &st, &diag), 0);
    ck_assert_int_eq(st.interrupted, 1);
    ck_assert_uint_eq(st.ran, 0);
    ck_assert_uint_eq(st.remaining, 3);

    interrupts = 0;
    ck_assert_int_eq(swp_exec(spec, db, &o, &st, &diag), 0);
    ck_assert_uint_eq(st.points, 3);
    ck_assert_uint_eq(st.before, 0);
    ck_assert_uint_eq(st.ran, 3);
    ck_assert_uint_eq(st.remaining, 0);
    ck_assert_int_eq(st.interrupted, 0);

    ck_assert_int_eq(swp_exec(spec, db, &o, &st, &diag), 0);
    ck_assert_uint_eq(st.before, 3);
    ck_assert_uint_eq(st.ran, 0);
    ck_assert_int_eq(diag.n, 0);

    ck_assert_int_eq(
        rpt_db_sweep_points(db, st.sweep_id, metrics, 2, gather, &seen, &diag),
        0);
    ck_assert_int_eq(seen.n, 3);
    ck_assert_str_eq(seen.keys[0], "cluster.replicas=1");
    ck_assert_str_eq(seen.keys[2], "cluster.replicas=3");
    for (int i = 0; i < 3; i++) {
        ck_assert_int_gt(seen.run[i], 0);
        ck_assert(!isnan(seen.cost[i]));
    }
    rpt_db_close(db);
}
END_TEST

static Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc;

    tc = tcase_create("spec");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_swp_spec_load_grid_order_keys_and_seeds);
    tcase_add_test(tc, test_swp_spec_load_keys_stable_when_an_axis_grows);
    tcase_add_test(tc, test_swp_spec_load_seeds_list_points_and_set);
    tcase_add_test(tc, test_swp_spec_load_no_axes_is_the_base);
    tcase_add_test(tc, test_swp_spec_load_override_creates_mappings);
    tcase_add_test(tc, test_swp_spec_load_override_replaces_flow_and_null);
    tcase_add_test(tc, test_swp_spec_load_override_list_index);
    tcase_add_test(tc, test_swp_spec_load_infeasible_point_is_kept);
    suite_add_tcase(s, tc);

    tc = tcase_create("spec_errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_swp_spec_load_error_unknown_key_at_axis);
    tcase_add_test(tc, test_swp_spec_load_error_bad_value_at_value);
    tcase_add_test(tc, test_swp_spec_load_error_in_base_at_base);
    tcase_add_test(tc, test_swp_spec_load_error_sweep_keys);
    tcase_add_test(tc, test_swp_spec_load_error_seeds);
    tcase_add_test(tc, test_swp_spec_load_error_conflicts);
    tcase_add_test(tc, test_swp_spec_load_error_path_through_scalar);
    tcase_add_test(tc, test_swp_spec_load_error_index);
    tcase_add_test(tc, test_swp_spec_load_error_syntax);
    suite_add_tcase(s, tc);

    tc = tcase_create("wire");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_swp_results_pack_round_trip);
    tcase_add_test(tc, test_swp_results_pack_round_trip_every_field);
    tcase_add_test(tc, test_swp_results_unpack_rejects_every_truncation);
    suite_add_tcase(s, tc);

    tc = tcase_create("pool");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_swp_pool_matches_serial_runs);
    tcase_add_test(tc, test_swp_pool_cancel_drops_queued_jobs);
    tcase_add_test(tc, test_swp_run_text_reports_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("db");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_rpt_db_write_sweep_point_once);
    tcase_add_test(tc, test_swp_exec_resumes_and_stops_on_interrupt);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sweep_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
