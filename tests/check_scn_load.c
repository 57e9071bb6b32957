/* Tests of the scenario language: unit parsing and the row-driven defaults
 * and destructor (base/param.c), the tables (scenarios/schema.c and the
 * section rows of models/), the loader and its pipeline (scenarios/load.c).
 * Fixtures are in tests/data/scn/; their paths are built from $top_srcdir
 * (default ".") so that messages can be compared exactly, file prefix
 * included. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "models/cluster/config.h"
#include "models/gpu/gpu.h"
#include "models/layout/layout.h"
#include "models/perf/roofline.h"
#include "scenarios/load.h"
#include "scenarios/schema.h"
#include "base/diag.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"

/* A valid abstract-server scenario of 6 lines; cases append lines 7+. */
#define BASE                                                                   \
    "workload:\n"                                                              \
    "  synthetic:\n"                                                           \
    "    arrival: {rate_per_s: 5}\n"                                           \
    "    requests: 10\n"                                                       \
    "server:\n"                                                                \
    "  service: {dist: exponential, mean_s: 1}\n"

static struct sim_diag diag;
static struct cl_scenario scn;

static void setup(void)
{
    sim_diag_init(&diag);
    memset(&scn, 0, sizeof(scn));
}

static void teardown(void)
{
    cl_scenario_fini(&scn);
    sim_diag_fini(&diag);
}

static char *fixture(const char *name)
{
    const char *top = getenv("top_srcdir");

    return xasprintf("%s/tests/data/scn/%s", top ? top : ".", name);
}

static int is_zeroed(const struct cl_scenario *s)
{
    static const struct cl_scenario zero;

    return memcmp(s, &zero, sizeof(zero)) == 0;
}

/* Asserts that the diagnostics are exactly want[] (NULL-terminated), each
 * prefixed with file and ":". */
static void assert_diags(const char *file, const char *const *want)
{
    int n = 0;

    for (; want[n] != NULL; n++) {
        char *exp = xasprintf("%s:%s", file, want[n]);
        char *got;
        ck_assert_msg(n < diag.n, "missing diagnostic %d: %s", n, exp);
        got = sim_diag_format(&diag, n);
        ck_assert_str_eq(got, exp);
        free(got);
        free(exp);
    }
    if (diag.n != n) {
        char *extra = sim_diag_format(&diag, n);
        ck_abort_msg("%d diagnostics, expected %d; next: %s", diag.n, n, extra);
        free(extra);
    }
}

/* Loads fixture name, expects rc and exactly the messages in want. */
static void load_fixture_expect(const char *name, int rc,
                                const char *const *want)
{
    char *path = fixture(name);

    ck_assert_int_eq(scn_file_load(path, &scn, &diag), rc);
    if (rc != 0)
        ck_assert(is_zeroed(&scn));
    assert_diags(path, want);
    free(path);
}

static void load_string_expect(const char *text, int rc,
                               const char *const *want)
{
    ck_assert_int_eq(
        scn_string_load("inline.yaml", text, strlen(text), &scn, &diag), rc);
    if (rc != 0)
        ck_assert(is_zeroed(&scn));
    assert_diags("inline.yaml", want);
}

/* sim_unit_parse */

START_TEST(test_sim_unit_parse_suffixes)
{
    char err[SIM_PARAM_ERRLEN];
    double v;

    ck_assert_int_eq(sim_unit_parse(SIM_U_BYTES, "80GiB", &v, err, sizeof(err)),
                     0);
    ck_assert(v == 80.0 * 1073741824.0);
    ck_assert_int_eq(sim_unit_parse(SIM_U_BYTES, "512MB", &v, err, sizeof(err)),
                     0);
    ck_assert(v == 512e6);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_BYTES_PER_S, "400Gbps", &v, err, sizeof(err)), 0);
    ck_assert(v == 5e10);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_BYTES_PER_S, "400Gb/s", &v, err, sizeof(err)), 0);
    ck_assert(v == 5e10);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_BYTES_PER_S, "900GB/s", &v, err, sizeof(err)), 0);
    ck_assert(v == 9e11);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_USD_PER_HOUR, "$2.10/h", &v, err, sizeof(err)), 0);
    ck_assert(v == 2.10);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_USD_PER_HOUR, "2.10/h", &v, err, sizeof(err)), 0);
    ck_assert(v == 2.10);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_USD_PER_HOUR, "2.1", &v, err, sizeof(err)), 0);
    ck_assert(v == 2.1);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_PER_S, "600/min", &v, err, sizeof(err)), 0);
    ck_assert(fabs(v - 10.0) < 1e-12);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_FRACTION, "90%", &v, err, sizeof(err)), 0);
    ck_assert(fabs(v - 0.9) < 1e-15);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_SECONDS, "500ms", &v, err, sizeof(err)), 0);
    ck_assert(v == 0.5);
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_MILLISECONDS, "2s", &v, err, sizeof(err)), 0);
    ck_assert(v == 2000.0);
}
END_TEST

START_TEST(test_sim_unit_parse_wrong_dimension)
{
    char err[SIM_PARAM_ERRLEN];
    double v = 7;

    ck_assert_int_eq(
        sim_unit_parse(SIM_U_SECONDS, "80GiB", &v, err, sizeof(err)),
        SIM_EINVAL);
    ck_assert_str_eq(err, "expected a duration (e.g. 90s, 500ms, 2h; plain "
                          "number = seconds), got a size '80GiB'");
    ck_assert(v == 7);
    ck_assert_int_eq(sim_unit_parse(SIM_U_BYTES, "90s", &v, err, sizeof(err)),
                     SIM_EINVAL);
    ck_assert_str_eq(err, "expected a size (e.g. 80GiB, 512MB; plain number = "
                          "bytes), got a duration '90s'");
    ck_assert_int_eq(
        sim_unit_parse(SIM_U_NONE, "3 apples", &v, err, sizeof(err)),
        SIM_EINVAL);
    ck_assert_str_eq(err, "expected a number, got '3 apples'");
}
END_TEST

START_TEST(test_sim_unit_parse_rejects_non_numbers)
{
    static const char *const bad[] = {"inf", "nan", "0x10", "",  "e5",
                                      ".",   "1e",  "--1",  "$", "1..2"};
    char err[SIM_PARAM_ERRLEN];
    double v;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(sim_unit_parse(SIM_U_NONE, bad[i], &v, err,
                                     sizeof(err)) == SIM_EINVAL,
                      "accepted '%s'", bad[i]);
    ck_assert_int_eq(sim_unit_parse(SIM_U_NONE, "1e999", &v, err, sizeof(err)),
                     SIM_ERANGE);
}
END_TEST

/* sim_duration_parse */

START_TEST(test_sim_duration_parse_units)
{
    static const struct {
        const char *text;
        enum sim_unit plain;
        int64_t ns;
    } cases[] = {
        {"90s", SIM_U_SECONDS, 90000000000LL},
        {"2h", SIM_U_SECONDS, 7200000000000LL},
        {"500ms", SIM_U_SECONDS, 500000000LL},
        {"45ms", SIM_U_MILLISECONDS, 45000000LL},
        {"45", SIM_U_MILLISECONDS, 45000000LL},
        {"90", SIM_U_SECONDS, 90000000000LL},
        {"1.5us", SIM_U_SECONDS, 1500LL},
        {"250ns", SIM_U_MILLISECONDS, 250LL},
        {"2min", SIM_U_SECONDS, 120000000000LL},
        {"1d", SIM_U_SECONDS, 86400000000000LL},
        {"0.1s", SIM_U_SECONDS, 100000000LL},
        {"1.5 s", SIM_U_SECONDS, 1500000000LL},
    };
    char err[SIM_PARAM_ERRLEN];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t ns = -7;
        ck_assert_int_eq(sim_duration_parse(cases[i].text, cases[i].plain, &ns,
                                            err, sizeof(err)),
                         0);
        ck_assert_msg(ns == cases[i].ns, "%s: %lld", cases[i].text,
                      (long long)ns);
    }
}
END_TEST

START_TEST(test_sim_duration_parse_too_long)
{
    char err[SIM_PARAM_ERRLEN];
    int64_t ns = -7;

    ck_assert_int_eq(
        sim_duration_parse("1000000d", SIM_U_SECONDS, &ns, err, sizeof(err)),
        SIM_ERANGE);
    ck_assert_str_eq(err, "'1000000d' is too long a duration");
    ck_assert(ns == -7);
}
END_TEST

/* sim_param_edit_distance */

START_TEST(test_sim_param_edit_distance_values)
{
    ck_assert_int_eq(sim_param_edit_distance("arival", "arrival", 2), 1);
    ck_assert_int_eq(sim_param_edit_distance("kitten", "sitting", 5), 3);
    ck_assert_int_eq(sim_param_edit_distance("abc", "abc", 2), 0);
    ck_assert_int_eq(sim_param_edit_distance("workload", "xyz", 2), 3);
}
END_TEST

/* scn_schema */

static void check_rows(const struct sim_param *rows, const char *path)
{
    struct cl_scenario tmp;
    char err[SIM_PARAM_ERRLEN];

    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        ck_assert_msg(p->help != NULL && p->help[0] != '\0', "%s.%s: no help",
                      path, p->key);
        ck_assert_msg(!(p->min > p->max), "%s.%s: min > max", path, p->key);
        ck_assert_msg(sim_param_find(rows, p->key) == p, "%s.%s: duplicate",
                      path, p->key);
        if (p->type == SIM_PT_ENUM)
            ck_assert_msg(p->choices != NULL && p->choices[0].name != NULL,
                          "%s.%s: no choices", path, p->key);
        if (p->type == SIM_PT_SECTION) {
            ck_assert_msg(p->sub != NULL, "%s.%s: no rows", path, p->key);
            check_rows(p->sub, p->key);
            continue;
        }
        if (p->type == SIM_PT_LIST) {
            ck_assert_msg(p->sub != NULL, "%s.%s: no rows", path, p->key);
            ck_assert_msg(sim_param_list_elem_size(p) > 0,
                          "%s.%s: no element size", path, p->key);
            ck_assert_msg(p->max >= 1 && p->max <= SIM_PARAM_LIST_MAX,
                          "%s.%s: bad cap", path, p->key);
            check_rows(p->sub, p->key);
            continue;
        }
        if (p->type == SIM_PT_MAP) {
            ck_assert_msg(p->max >= 1 && p->max <= SIM_PARAM_LIST_MAX,
                          "%s.%s: bad cap", path, p->key);
            /* The element layout, when given, has a size and strings. */
            if (p->sub != NULL)
                ck_assert_msg(sim_param_list_elem_size(p) > 0,
                              "%s.%s: no element size", path, p->key);
            continue;
        }
        if (p->def != NULL) {
            /* The defaults pass their own row's checks; the field is
             * written into a scratch struct large enough for any section. */
            memset(&tmp, 0, sizeof(tmp));
            ck_assert_msg(p->offset < sizeof(tmp), "%s.%s", path, p->key);
            ck_assert_msg(sim_param_parse(p, p->def, &tmp, err, sizeof(err)) ==
                              0,
                          "%s.%s: default %s: %s", path, p->key, p->def, err);
            if (p->type == SIM_PT_STRING)
                free(*(char **)(void *)((char *)&tmp + p->offset));
        }
    }
}

START_TEST(test_scn_schema_rows_sane)
{
    check_rows(scn_schema, "");
    check_rows(cl_model_src_rows, "model");
}
END_TEST

/* The defaults the layout model also uses are the rows' defaults. */
START_TEST(test_scn_schema_shared_defaults)
{
    struct cl_server sv;
    struct cl_hardware hw;
    struct train_config tc;
    char err[SIM_PARAM_ERRLEN];

    memset(&sv, 0, sizeof(sv));
    memset(&hw, 0, sizeof(hw));
    memset(&tc, 0, sizeof(tc));
    ck_assert_int_eq(sim_param_defaults(cl_server_rows, &sv, err, sizeof(err)),
                     0);
    ck_assert_int_eq(
        sim_param_defaults(cl_hardware_rows, &hw, err, sizeof(err)), 0);
    ck_assert_int_eq(
        sim_param_defaults(train_config_rows, &tc, err, sizeof(err)), 0);
    ck_assert_int_eq(sv.max_num_seqs, -1);           /* vLLM's rule per GPU */
    ck_assert_int_eq(sv.max_num_batched_tokens, -1); /* vLLM's per GPU */
    ck_assert_int_eq(sv.prefix_caching, 1);          /* vLLM V1 */
    ck_assert(sv.gpu_memory_utilization == PERF_DEFAULT_GPU_MEMORY_UTILIZATION);
    ck_assert_int_eq(hw.gpus_per_node, GPU_DEFAULT_GPUS_PER_NODE);
    ck_assert_int_eq(tc.seq_tokens, LAYOUT_DEFAULT_SEQ_TOKENS);
    ck_assert_int_eq(tc.global_batch_seqs, LAYOUT_DEFAULT_GLOBAL_BATCH_SEQS);
    sim_param_fini(cl_server_rows, &sv);
    sim_param_fini(cl_hardware_rows, &hw);
    sim_param_fini(train_config_rows, &tc);
}
END_TEST

/* sim_param_fini */

struct fini_item {
    char *name;
    int n;
};

struct fini_pair {
    char *key;
    char *value;
};

struct fini_inner {
    char *label;
    double x;
};

struct fini_outer {
    char *title;
    struct fini_inner inner;
    struct fini_item *items;
    int nitems;
    struct fini_pair *pairs;
    int npairs;
    struct fini_pair *raw; /* a map without element rows */
    int nraw;
};

static const struct sim_param fini_item_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL, "name",
     offsetof(struct fini_item, name), NULL, NULL},
    {"n", SIM_PT_INT, SIM_U_NONE, -INFINITY, INFINITY, 0, "3", "count",
     offsetof(struct fini_item, n), NULL, NULL},
    SIM_PARAM_END_LIST(struct fini_item),
};

static const struct sim_param fini_pair_rows[] = {
    {"key", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL, "key",
     offsetof(struct fini_pair, key), NULL, NULL},
    {"value", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL, "value",
     offsetof(struct fini_pair, value), NULL, NULL},
    SIM_PARAM_END_LIST(struct fini_pair),
};

static const struct sim_param fini_inner_rows[] = {
    {"label", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, "in", "label",
     offsetof(struct fini_inner, label), NULL, NULL},
    {"x", SIM_PT_DOUBLE, SIM_U_NONE, -INFINITY, INFINITY, 0, "2.5", "x",
     offsetof(struct fini_inner, x), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param fini_rows[] = {
    {"title", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, "t", "title",
     offsetof(struct fini_outer, title), NULL, NULL},
    {"inner", SIM_PT_SECTION, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL, "inner",
     offsetof(struct fini_outer, inner), NULL, fini_inner_rows},
    {"items", SIM_PT_LIST, SIM_U_NONE, -INFINITY, 8, 0, NULL, "items",
     offsetof(struct fini_outer, items), NULL, fini_item_rows},
    {"pairs", SIM_PT_MAP, SIM_U_NONE, -INFINITY, 8, 0, NULL, "pairs",
     offsetof(struct fini_outer, pairs), NULL, fini_pair_rows},
    {"raw", SIM_PT_MAP, SIM_U_NONE, -INFINITY, 8, 0, NULL, "raw",
     offsetof(struct fini_outer, raw), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* Every string, list and map the rows name is freed (the ASan and
 * valgrind builds catch a leak); scalars keep their values. */
START_TEST(test_sim_param_fini_frees_by_rows)
{
    struct fini_outer o;
    struct fini_pair *pr;
    char err[SIM_PARAM_ERRLEN];

    memset(&o, 0, sizeof(o));
    ck_assert_int_eq(sim_param_defaults(fini_rows, &o, err, sizeof(err)), 0);
    ck_assert_str_eq(o.title, "t");
    ck_assert_str_eq(o.inner.label, "in");
    ck_assert(o.inner.x == 2.5);
    for (int i = 0; i < 3; i++) {
        struct fini_item *it = sim_param_list_append(
            &fini_rows[2], &o, sim_param_list_elem_size(&fini_rows[2]));
        ck_assert_int_eq(
            sim_param_defaults(fini_item_rows, it, err, sizeof(err)), 0);
        it->name = xasprintf("item%d", i);
        pr = sim_param_list_append(&fini_rows[3], &o, sizeof(*pr));
        pr->key = xasprintf("k%d", i);
        pr->value = xasprintf("v%d", i);
    }
    ck_assert_int_eq(o.nitems, 3);
    ck_assert_int_eq(o.items[2].n, 3);
    ck_assert_int_eq(o.npairs, 3);
    pr = sim_param_list_append(&fini_rows[4], &o, sizeof(*pr));
    ck_assert_ptr_nonnull(pr); /* zeroed: nothing for the caller to free */

    sim_param_fini(fini_rows, &o);
    ck_assert_ptr_null(o.title);
    ck_assert_ptr_null(o.inner.label);
    ck_assert(o.inner.x == 2.5);
    ck_assert_ptr_null(o.items);
    ck_assert_int_eq(o.nitems, 0);
    ck_assert_ptr_null(o.pairs);
    ck_assert_int_eq(o.npairs, 0);
    ck_assert_ptr_null(o.raw);
    ck_assert_int_eq(o.nraw, 0);
    sim_param_fini(fini_rows, &o); /* idempotent */
}
END_TEST

START_TEST(test_scn_help_print_every_key)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(fp);
    scn_help_print(fp);
    fclose(fp);
    ck_assert_ptr_nonnull(
        strstr(buf, "  workload.synthetic.arrival.rate_per_s: number, per "
                    "second, range (0, 1e+06], required\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  cluster.target_latency_ms: duration, "
                                      "milliseconds for a plain number"));
    ck_assert_ptr_nonnull(strstr(buf, "docs/sources.md §5.4"));
    ck_assert_ptr_nonnull(strstr(buf, "  metrics.batches: integer, range "
                                      "[10, 256], default 32\n"));
    ck_assert_ptr_nonnull(
        strstr(buf, "\n  pools: list of mappings, at most 256 entries\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  pools[].capacity_gpus: integer, "
                                      "range [1, inf), required\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  pools[].provision.mean_s: number, "
                                      "seconds, range [0, 3.16224e+07], "
                                      "default 120\n"));
    ck_assert_ptr_nonnull(
        strstr(buf, "  workload.synthetic.arrival.steps[].multiplier: "
                    "number, range (0, 1e+06], required\n"));
    ck_assert_ptr_nonnull(
        strstr(buf, "  workload.synthetic.arrival.diurnal.amplitude: number, "
                    "fraction, range [0, 1), required\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  faults.scripted[].kind: enum {gpu, "
                                      "node}, default gpu\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  policy.params: mapping of key: "
                                      "scalar, at most 256 entries\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  deploy.engine_init: duration, "
                                      "seconds for a plain number, range "
                                      "[0, inf), default 30s\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  cluster.drain: enum {finish, "
                                      "migrate}, default finish\n"));
    free(buf);
}
END_TEST

/* scn_file_load */

START_TEST(test_scn_file_load_full_llm)
{
    /* rdma_interface is noted in the run's results, not by the loader. */
    static const char *const want[] = {NULL};
    char *path = fixture("full-llm.yaml");
    const struct cl_workload *w = &scn.workload;

    load_fixture_expect("full-llm.yaml", 0, want);
    ck_assert_str_eq(scn.file, path);
    ck_assert_str_eq(scn.name, "full");
    ck_assert(scn.seed == 42);
    ck_assert_str_eq(scn.model, "deepseek-v3");
    ck_assert_int_eq(w->kind, CL_WL_SYNTHETIC);
    ck_assert_int_eq(w->synthetic.arrival.process, CL_ARR_GAMMA);
    ck_assert(w->synthetic.arrival.rate_per_s == 12.5);
    ck_assert(w->synthetic.arrival.cv == 2);
    ck_assert(w->synthetic.requests == -1);
    ck_assert(w->synthetic.duration_ns == 90000000000LL);
    ck_assert_int_eq(w->synthetic.prompt_tokens.kind, CL_DIST_LOGNORMAL);
    ck_assert(w->synthetic.prompt_tokens.mean == 1024);
    ck_assert(w->synthetic.prompt_tokens.sd == 512);
    ck_assert(isnan(w->synthetic.prompt_tokens.value));
    ck_assert(isnan(w->synthetic.prompt_tokens.cv));
    ck_assert_int_eq(w->synthetic.output_tokens.kind, CL_DIST_UNIFORM);
    ck_assert(w->synthetic.output_tokens.min == 16);
    ck_assert(w->synthetic.output_tokens.max == 256);
    ck_assert_int_eq(scn.server.kind, CL_SRV_LLM);
    ck_assert_int_eq(scn.server.max_num_seqs, 128);
    ck_assert(scn.server.max_num_batched_tokens == 4096);
    ck_assert(scn.server.gpu_memory_utilization == 0.92);
    ck_assert(fabs(scn.server.efficiency_compute - 0.55) < 1e-15);
    ck_assert(scn.server.efficiency_memory == 0.85);
    ck_assert(scn.server.iteration_overhead_ns == 1500);
    ck_assert_str_eq(scn.hardware.gpu, "h200");
    ck_assert_int_eq(scn.hardware.gpus_per_node, 8);
    ck_assert(scn.hardware.price_usd_per_gpu_hour == 2.10);
    ck_assert_str_eq(scn.deploy.model_path, "s3://models/deepseek-v3");
    ck_assert_int_eq(scn.deploy.strategy, CL_STRAT_TENSOR_PARALLEL);
    ck_assert_int_eq(scn.deploy.tp, 8);
    ck_assert_int_eq(scn.deploy.weight_dtype, CL_DTYPE_FP8);
    ck_assert_int_eq(scn.deploy.kv_dtype, CL_DTYPE_FP8);
    ck_assert_int_eq(scn.cluster.replicas, -1);
    ck_assert_int_eq(scn.cluster.min_gpus, 4);
    ck_assert_int_eq(scn.cluster.max_gpus, 32);
    ck_assert(scn.cluster.target_latency_ns == 45000000LL);
    ck_assert_int_eq(scn.cluster.kv_cache_offload, 1);
    ck_assert_str_eq(scn.cluster.rdma_interface, "mlx5_0");
    ck_assert(scn.slo.ttft_ns == 500000000LL);
    ck_assert(scn.slo.tpot_ns == 45000000LL); /* from target_latency_ms */
    ck_assert(scn.slo.e2e_ns == 7200000000000LL);
    ck_assert(scn.metrics.interval_ns == 500000000LL);
    ck_assert(scn.metrics.warmup_fraction == 0.2);
    ck_assert_int_eq(scn.metrics.batches, 20);
    ck_assert_ptr_nonnull(strstr(scn.text, "rdma_interface: mlx5_0\n"));
    ck_assert_int_eq(scn.pos.model.line, 4);
    ck_assert_int_eq(scn.pos.model.col, 8);
    ck_assert_int_eq(scn.pos.hardware_gpu.line, 23);
    ck_assert_int_eq(scn.pos.hardware_gpu.col, 8);
    ck_assert_int_eq(scn.pos.deploy_model_path.line, 27);
    ck_assert_int_eq(scn.pos.deploy_model_path.col, 15);
    ck_assert_int_eq(scn.pos.deploy_tp.line, 29);
    ck_assert_int_eq(scn.pos.deploy_weight_dtype.line, 30);
    ck_assert_int_eq(scn.pos.cluster_min_gpus.line, 33);
    ck_assert_int_eq(scn.pos.cluster_min_gpus.col, 13);
    ck_assert_int_eq(scn.pos.workload_trace_path.line, 0);
    free(path);
}
END_TEST

START_TEST(test_scn_file_load_full_abstract_trace)
{
    static const char *const want[] = {NULL};
    const struct cl_workload *w = &scn.workload;

    load_fixture_expect("full-abstract-trace.yaml", 0, want);
    ck_assert_str_eq(scn.name, "mm4");
    ck_assert(scn.seed == 7);
    ck_assert_ptr_null(scn.model);
    ck_assert_int_eq(w->kind, CL_WL_TRACE);
    ck_assert_int_eq(w->trace.format, CL_TRACE_AZURE);
    ck_assert_str_eq(w->trace.path, "traces/azure-conv.csv");
    ck_assert(w->trace.time_scale == 0.5);
    ck_assert(w->trace.rate_scale == 2);
    ck_assert(w->trace.requests == 1000);
    ck_assert(w->trace.duration_ns == 7200000000000LL);
    ck_assert_int_eq(scn.server.kind, CL_SRV_ABSTRACT);
    ck_assert_int_eq(scn.server.service.kind, CL_DIST_GAMMA);
    ck_assert(scn.server.service.mean == 0.5);
    ck_assert(scn.server.service.cv == 0.5);
    ck_assert(isnan(scn.server.service.sd));
    ck_assert(isnan(scn.server.service.value));
    ck_assert_int_eq(scn.server.concurrency, 4);
    ck_assert(scn.server.price_usd_per_hour == 3.5);
    ck_assert_int_eq(scn.cluster.replicas, 3);
    ck_assert_int_eq(scn.cluster.min_gpus, -1);
    ck_assert(scn.slo.tpot_ns == 20000000LL);
    ck_assert(scn.slo.ttft_ns == -1);
    ck_assert_int_eq(scn.pos.workload_trace_path.line, 7);
    ck_assert_int_eq(scn.pos.workload_trace_path.col, 11);
}
END_TEST

START_TEST(test_scn_file_load_defaults)
{
    static const char *const want[] = {NULL};
    const struct cl_workload *w = &scn.workload;

    load_fixture_expect("minimal.yaml", 0, want);
    ck_assert_str_eq(scn.name, "minimal");
    ck_assert(scn.seed == 1);
    ck_assert_ptr_null(scn.model);
    ck_assert_int_eq(w->synthetic.arrival.process, CL_ARR_POISSON);
    ck_assert(isnan(w->synthetic.arrival.cv));
    ck_assert(w->synthetic.requests == 100);
    ck_assert(w->synthetic.duration_ns == -1);
    ck_assert_int_eq(w->synthetic.prompt_tokens.kind, CL_DIST_FIXED);
    ck_assert(w->synthetic.prompt_tokens.value == 1);
    ck_assert_int_eq(w->synthetic.output_tokens.kind, CL_DIST_FIXED);
    ck_assert(w->trace.time_scale == 1);
    ck_assert(w->trace.requests == -1);
    ck_assert_ptr_null(w->trace.path);
    ck_assert_int_eq(scn.server.kind, CL_SRV_ABSTRACT);
    ck_assert_int_eq(scn.server.service.kind, CL_DIST_EXPONENTIAL);
    ck_assert(scn.server.service.mean == 0.1);
    ck_assert_int_eq(scn.server.concurrency, 1);
    ck_assert(scn.server.price_usd_per_hour == 0);
    ck_assert_int_eq(scn.server.max_num_seqs, -1);      /* vLLM's rule */
    ck_assert(scn.server.max_num_batched_tokens == -1); /* vLLM's rule */
    ck_assert(scn.server.gpu_memory_utilization == 0.9);
    /* Unset: the calibration's (models/perf/calib.c) apply. */
    ck_assert(isnan(scn.server.efficiency_compute));
    ck_assert(isnan(scn.server.efficiency_memory));
    ck_assert(scn.server.iteration_overhead_ns == -1);
    ck_assert_int_eq(scn.deploy.pp, 1);
    ck_assert_int_eq(scn.deploy.ep, 1);
    ck_assert_ptr_null(scn.calib);
    ck_assert_ptr_null(scn.model_arch);
    ck_assert_str_eq(scn.hardware.gpu, "h100");
    ck_assert_int_eq(scn.hardware.gpus_per_node, 8);
    ck_assert(isnan(scn.hardware.price_usd_per_gpu_hour));
    ck_assert_ptr_null(scn.deploy.model_path);
    ck_assert_int_eq(scn.deploy.strategy, CL_STRAT_TENSOR_PARALLEL);
    ck_assert_int_eq(scn.deploy.tp, -1);
    ck_assert_int_eq(scn.deploy.weight_dtype, CL_DTYPE_BF16);
    ck_assert_int_eq(scn.deploy.kv_dtype, CL_DTYPE_BF16);
    ck_assert_int_eq(scn.cluster.replicas, 1);
    ck_assert_int_eq(scn.cluster.min_gpus, -1);
    ck_assert_int_eq(scn.cluster.max_gpus, -1);
    ck_assert(scn.cluster.target_latency_ns == -1);
    ck_assert_int_eq(scn.cluster.kv_cache_offload, 0);
    ck_assert_ptr_null(scn.cluster.rdma_interface);
    ck_assert(scn.slo.ttft_ns == -1);
    ck_assert(scn.slo.tpot_ns == -1);
    ck_assert(scn.slo.e2e_ns == -1);
    ck_assert(scn.metrics.interval_ns == 60000000000LL);
    ck_assert(scn.metrics.warmup_fraction == 0.1);
    ck_assert_int_eq(scn.metrics.batches, 32);
    ck_assert_int_eq(scn.pos.hardware_gpu.line, 0);
}
END_TEST

START_TEST(test_scn_file_load_seed_example)
{
    /* rdma_interface is noted in the run's results, not by the loader. */
    static const char *const want[] = {NULL};

    load_fixture_expect("seed.yaml", 0, want);
    ck_assert_str_eq(scn.name, "seed");
    ck_assert_ptr_null(scn.model);
    ck_assert_int_eq(scn.server.kind, CL_SRV_LLM); /* from model_path */
    ck_assert_int_eq(scn.cluster.min_gpus, 4);
    ck_assert_int_eq(scn.cluster.max_gpus, 32);
    ck_assert_int_eq(scn.cluster.replicas, -1);
    ck_assert(scn.cluster.target_latency_ns == 45000000LL);
    ck_assert(scn.slo.tpot_ns == 45000000LL);
    ck_assert_int_eq(scn.cluster.kv_cache_offload, 1);
    ck_assert(scn.workload.synthetic.duration_ns == 7200000000000LL);
}
END_TEST

START_TEST(test_scn_file_load_unknown_key_did_you_mean)
{
    static const char *const want[] = {
        "4:5: error: workload.synthetic.arival: unknown key; did you mean "
        "'arrival'?",
        "2:3: error: workload.synthetic: missing key 'arrival'", NULL};

    load_fixture_expect("bad-unknown-key.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_unknown_key_lists_valid)
{
    static const char *const want[] = {
        "8:3: error: metrics.bucket: unknown key; valid: batches, interval, "
        "replica_rows, requests, warmup_fraction",
        NULL};

    load_fixture_expect("bad-unknown-key-list.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_out_of_range)
{
    static const char *const want[] = {
        "4:19: error: workload.synthetic.arrival.rate_per_s: -1 out of range "
        "(0, 1e+06]",
        NULL};

    load_fixture_expect("bad-range.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_bad_enum)
{
    static const char *const want[] = {
        "4:16: error: workload.synthetic.arrival.process: unknown process "
        "'poison'; valid: deterministic, gamma, poisson",
        NULL};

    load_fixture_expect("bad-enum.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_wrong_dimension)
{
    static const char *const want[] = {
        "4:15: error: workload.synthetic.duration: expected a duration (e.g. "
        "90s, 500ms, 2h; plain number = seconds), got a size '80GiB'",
        NULL};

    load_fixture_expect("bad-unit.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_missing_required)
{
    static const char *const want[] = {
        "2:3: error: workload.synthetic: missing key 'arrival'", NULL};

    load_fixture_expect("bad-missing.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_exactly_one)
{
    static const char *const want[] = {
        "6:3: error: workload.trace: give exactly one of 'synthetic', "
        "'trace', 'inference_perf' or 'vllm_bench'",
        "5:5: error: workload.synthetic.duration: give exactly one of "
        "'requests' or 'duration'",
        NULL};

    load_fixture_expect("bad-exactly-one.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_syntax_indent)
{
    static const char *const want[] = {"4:4: error: did not find expected key",
                                       NULL};

    load_fixture_expect("bad-syntax-indent.yaml", SIM_EPARSE, want);
}
END_TEST

START_TEST(test_scn_file_load_syntax_bracket)
{
    static const char *const want[] = {
        "4:13: error: did not find expected ',' or '}'", NULL};

    load_fixture_expect("bad-syntax-bracket.yaml", SIM_EPARSE, want);
}
END_TEST

START_TEST(test_scn_file_load_many_errors)
{
    static const char *const want[] = {
        "1:7: error: seed: -3 out of range [0, inf)",
        "4:43: error: workload.synthetic.arrival.rate_per_s: 2e6 out of range "
        "(0, 1e+06]",
        "5:15: error: workload.synthetic.requests: 0 out of range [1, inf)",
        "10:27: error: server.gpu_memory_utilization: 1.5 out of range (0, 1]",
        "13:18: error: hardware.gpus_per_node: 128 out of range [1, 72]",
        "14:23: error: hardware.price_per_gpu_hour: expected a price (e.g. "
        "$2.10/h; plain number = USD per hour), got a size '80GiB'",
        "19:20: error: metrics.warmup_fraction: 0.5 out of range [0, 0.5)",
        "20:12: error: metrics.batches: expected an integer, got 'lots'",
        "11:3: error: server.concurrency: not used by kind llm",
        "4:5: error: workload.synthetic.arrival: missing key 'cv' (required "
        "by process gamma)",
        "6:45: error: workload.synthetic.prompt_tokens.sd: not used by dist "
        "fixed",
        "7:41: error: workload.synthetic.output_tokens.min: 100 greater than "
        "max 10",
        "16:3: error: cluster.replicas: give either replicas or min_gpus and "
        "max_gpus, not both",
        NULL};

    load_fixture_expect("bad-many.yaml", SIM_EINVAL, want);
    ck_assert_int_eq(sim_diag_errors(&diag), 13);
}
END_TEST

START_TEST(test_scn_file_load_missing_file)
{
    char *path = fixture("no-such-file.yaml");
    char *msg;
    char *want =
        xasprintf("%s: error: cannot open: No such file or directory", path);

    ck_assert_int_eq(scn_file_load(path, &scn, &diag), SIM_EIO);
    ck_assert(is_zeroed(&scn));
    ck_assert_int_eq(diag.n, 1);
    msg = sim_diag_format(&diag, 0);
    ck_assert_str_eq(msg, want);
    free(msg);
    free(want);
    free(path);
}
END_TEST

/* scn_string_load */

START_TEST(test_scn_string_load_name_from_file)
{
    static const char *const want[] = {NULL};
    const char *text = BASE;

    ck_assert_int_eq(
        scn_string_load("dir/x.y/run-1.yml", text, strlen(text), &scn, &diag),
        0);
    assert_diags("dir/x.y/run-1.yml", want);
    ck_assert_str_eq(scn.name, "run-1");
    ck_assert_str_eq(scn.file, "dir/x.y/run-1.yml");
    ck_assert_str_eq(scn.text, text);
}
END_TEST

START_TEST(test_scn_string_load_not_nul_terminated)
{
    static const char *const want[] = {NULL};
    char *buf = xasprintf("%sseed: 99", BASE);

    /* Only "seed: 9" is inside len; the last byte must not be read. */
    ck_assert_int_eq(
        scn_string_load("inline.yaml", buf, strlen(buf) - 1, &scn, &diag), 0);
    assert_diags("inline.yaml", want);
    ck_assert(scn.seed == 9);
    ck_assert_uint_eq(strlen(scn.text), strlen(buf) - 1);
    free(buf);
}
END_TEST

START_TEST(test_scn_string_load_dist_keys)
{
    static const char *const want[] = {
        "4:5: error: workload.synthetic.prompt_tokens: missing key 'value' "
        "(required by dist fixed)",
        "5:5: error: workload.synthetic.output_tokens: missing key 'sd' "
        "(required by dist lognormal)",
        NULL};

    load_string_expect("model: llama-3.1-8b\n"
                       "workload:\n"
                       "  synthetic: {arrival: {rate_per_s: 1}, requests: 1,\n"
                       "    prompt_tokens: {dist: fixed},\n"
                       "    output_tokens: {dist: lognormal, mean: 10}}\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_dist_cap)
{
    static const char *const want[] = {
        "4:44: error: workload.synthetic.prompt_tokens.max: not used by dist "
        "fixed",
        NULL};
    static const char *const none[] = {NULL};
    const char *ok = "model: llama-3.1-8b\n"
                     "workload:\n"
                     "  synthetic: {arrival: {rate_per_s: 1}, requests: 1,\n"
                     "    prompt_tokens: {dist: fixed, value: 5},\n"
                     "    output_tokens: {dist: lognormal, mean: 10, sd: 5, "
                     "max: 40}}\n";

    /* A lognormal may carry a cap; a fixed length may not. */
    load_string_expect(ok, 0, none);
    ck_assert(scn.workload.synthetic.output_tokens.max == 40);
    cl_scenario_fini(&scn);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    load_string_expect(
        "model: llama-3.1-8b\n"
        "workload:\n"
        "  synthetic: {arrival: {rate_per_s: 1}, requests: 1,\n"
        "    prompt_tokens: {dist: fixed, value: 5, max: 9},\n"
        "    output_tokens: {dist: lognormal, mean: 10, sd: 5}}\n",
        SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_tokens_required_by_llm)
{
    static const char *const want[] = {
        "3:3: error: workload.synthetic: missing key 'prompt_tokens' "
        "(required by server kind llm)",
        "3:3: error: workload.synthetic: missing key 'output_tokens' "
        "(required by server kind llm)",
        NULL};

    load_string_expect("model: llama-3.1-8b\n"
                       "workload:\n"
                       "  synthetic:\n"
                       "    arrival: {rate_per_s: 1}\n"
                       "    requests: 1\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_arrival_cv)
{
    static const char *const want[] = {
        "3:30: error: workload.synthetic.arrival.cv: not used by process "
        "poisson",
        NULL};

    load_string_expect("workload:\n"
                       "  synthetic:\n"
                       "    arrival: {rate_per_s: 5, cv: 1.5}\n"
                       "    requests: 10\n"
                       "server:\n"
                       "  service: {dist: exponential, mean_s: 1}\n",
                       SIM_EINVAL, want);
}
END_TEST

/* Hardening #6/#7/#8: inputs whose times overflow the clock, or that make
 * the run spin or lie, are refused at load with their position. */
START_TEST(test_scn_string_load_extreme_values_refused)
{
    static const char *const want[] = {
        "3:27: error: workload.synthetic.arrival.rate_per_s: 1e-300 out of "
        "range [3.16232e-08, 1e+06]",
        "6:40: error: server.service.mean_s: 1e30 out of range [1e-09, "
        "3.16224e+07]",
        "8:13: error: metrics.interval: 1us out of range [0.001, "
        "3.16224e+07]",
        "10:13: error: cluster.replicas: 2147483647 out of range [1, 100000]",
        "12:13: error: faults.gpu_mtbf: 1e-9 out of range [3600, 1e+12]",
        NULL};

    load_string_expect("workload:\n"
                       "  synthetic:\n"
                       "    arrival: {rate_per_s: 1e-300}\n"
                       "    requests: 10\n"
                       "server:\n"
                       "  service: {dist: exponential, mean_s: 1e30}\n"
                       "metrics:\n"
                       "  interval: 1us\n"
                       "cluster:\n"
                       "  replicas: 2147483647\n"
                       "faults:\n"
                       "  gpu_mtbf: 1e-9\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_service_keys)
{
    static const char *const want[] = {
        "9:3: error: server.max_num_seqs: not used by kind abstract",
        "7:3: error: server.service: missing key 'sd_s' (required by dist "
        "lognormal)",
        "7:41: error: server.service.cv: not used by dist lognormal", NULL};

    load_string_expect("workload:\n"
                       "  synthetic:\n"
                       "    arrival: {rate_per_s: 5}\n"
                       "    requests: 10\n"
                       "server:\n"
                       "  kind: abstract\n"
                       "  service: {dist: lognormal, mean_s: 1, cv: 2}\n"
                       "  concurrency: 2\n"
                       "  max_num_seqs: 4\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_service_missing)
{
    static const char *const want[] = {
        "1:1: error: server: missing key 'service' (required by kind "
        "abstract)",
        NULL};

    load_string_expect("workload:\n"
                       "  synthetic:\n"
                       "    arrival: {rate_per_s: 5}\n"
                       "    requests: 10\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_cluster_bounds)
{
    static const char *const want[] = {
        "8:13: error: cluster.min_gpus: 40 greater than max_gpus 32", NULL};

    load_string_expect(BASE "cluster:\n"
                            "  min_gpus: 40\n"
                            "  max_gpus: 32\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_cluster_min_only)
{
    static const char *const want[] = {
        "7:1: error: cluster: missing key 'max_gpus' (min_gpus and max_gpus "
        "go together)",
        NULL};

    load_string_expect(BASE "cluster:\n"
                            "  min_gpus: 4\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_types)
{
    static const char *const want[] = {
        "7:7: error: seed: expected an integer, got a sequence",
        "8:6: error: slo: expected a mapping, got 'fast'",
        "10:21: error: cluster.kv_cache_offload: expected true or false, got "
        "'maybe'",
        "11:3: error: cluster.replicas: missing value; expected an integer",
        "12:14: error: deploy.tp: expected an integer, got '2.5'",
        "13:13: error: deploy.kv_dtype: unknown kv_dtype 'int4'; valid: bf16, "
        "fp8",
        NULL};

    load_string_expect(BASE "seed: [1, 2]\n"
                            "slo: fast\n"
                            "cluster:\n"
                            "  kv_cache_offload: maybe\n"
                            "  replicas:\n"
                            "deploy: {tp: 2.5,\n"
                            "  kv_dtype: int4}\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_duplicate_key)
{
    static const char *const want[] = {"8:1: error: seed: duplicate key", NULL};

    load_string_expect(BASE "seed: 1\n"
                            "seed: 2\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_root_did_you_mean)
{
    static const char *const want[] = {
        "7:1: error: seeds: unknown key; did you mean 'seed'?",
        "8:1: error: metric: unknown key; did you mean 'metrics'?", NULL};

    load_string_expect(BASE "seeds: 1\n"
                            "metric: {}\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_missing_workload)
{
    static const char *const want[] = {
        "1:1: error: missing key 'workload'",
        "1:1: error: server: missing key 'service' (required by kind "
        "abstract)",
        NULL};

    load_string_expect("seed: 3\n", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_workload_empty)
{
    static const char *const want[] = {
        "1:1: error: workload: missing key 'synthetic', 'trace', "
        "'inference_perf' or 'vllm_bench'",
        NULL};

    load_string_expect("workload:\n"
                       "server:\n"
                       "  service: {dist: exponential, mean_s: 1}\n",
                       SIM_EINVAL, want);
}
END_TEST

#define LLM "model: llama-3.1-8b\nhardware: {gpu: h100}\ndeploy: {tp: 1}\n"

START_TEST(test_scn_string_load_inference_perf)
{
    static const char *const want[] = {NULL};

    load_string_expect("workload:\n"
                       "  inference_perf:\n"
                       "    data:\n"
                       "      type: shared_prefix\n"
                       "      shared_prefix: {num_groups: 10, "
                       "num_prompts_per_group: 10,\n"
                       "        system_prompt_len: 100, question_len: 447, "
                       "output_len: 248}\n"
                       "    load:\n"
                       "      stages: [{rate: 8, duration: 600}, "
                       "{rate: 20, duration: 10min}]\n"
                       "      stage_gap: 2s\n" LLM,
                       0, want);
    ck_assert_int_eq(scn.workload.kind, CL_WL_INFERENCE_PERF);
    ck_assert_int_eq(scn.workload.inference_perf.load.type,
                     CL_IP_LOAD_CONSTANT);
    ck_assert_int_eq(scn.workload.inference_perf.load.nstages, 2);
    ck_assert(scn.workload.inference_perf.load.stages[1].rate_per_s == 20);
    ck_assert(scn.workload.inference_perf.load.stages[1].duration_ns ==
              600000000000LL);
    ck_assert(scn.workload.inference_perf.data.shared_prefix.question_len ==
              447);
    ck_assert_int_eq(scn.workload.inference_perf.ignore_eos, 1);
    ck_assert(scn.workload.client.stage_gap_ns == 2000000000LL);
}
END_TEST

START_TEST(test_scn_string_load_inference_perf_errors)
{
    static const char *const want[] = {
        "5:7: error: workload.inference_perf.data.shared_prefix: missing "
        "key 'question_len'",
        "5:7: error: workload.inference_perf.data.shared_prefix: missing "
        "key 'output_len'",
        "9:15: error: workload.inference_perf.load.stages: expected at least "
        "one stage {rate, duration}",
        "10:17: note: workload.inference_perf.ignore_eos: false, but dsec "
        "cannot model an end-of-sequence token: every request generates "
        "exactly data.shared_prefix.output_len tokens",
        "7:7: error: workload.inference_perf.data.input_distribution: not "
        "used by data type shared_prefix",
        NULL};

    load_string_expect("workload:\n"
                       "  inference_perf:\n"
                       "    data:\n"
                       "      type: shared_prefix\n"
                       "      shared_prefix: {num_groups: 10, "
                       "num_prompts_per_group: 10,\n"
                       "        system_prompt_len: 100}\n"
                       "      input_distribution: {min: 1, max: 9, mean: 5, "
                       "std: 2}\n"
                       "    load:\n"
                       "      stages: []\n"
                       "    ignore_eos: false\n" LLM,
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_inference_perf_random_errors)
{
    static const char *const want[] = {
        "7:13: error: workload.inference_perf.load.type: unknown type "
        "'steady'; valid: constant, poisson",
        "8:23: error: workload.inference_perf.load.stages[0].rate: 0 out of "
        "range (0, 1e+06]",
        "8:62: error: workload.inference_perf.load.stages[1].duration: 0 out "
        "of range (0, 3.16224e+07]",
        "3:5: error: workload.inference_perf.data: missing key "
        "'output_distribution' (required by data type random)",
        "5:33: error: workload.inference_perf.data.input_distribution.min: "
        "100 greater than max 10",
        NULL};

    load_string_expect("workload:\n"
                       "  inference_perf:\n"
                       "    data:\n"
                       "      type: random\n"
                       "      input_distribution: {min: 100, max: 10, mean: "
                       "512, std: 200, total_count: 5}\n"
                       "    load:\n"
                       "      type: steady\n"
                       "      stages: [{rate: 0, duration: 600}, {rate: 2, "
                       "duration: 0}]\n" LLM,
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_vllm_bench)
{
    static const char *const want[] = {NULL};

    load_string_expect("workload:\n"
                       "  vllm_bench: {num_prompts: 50, max_concurrency: 4,\n"
                       "    random_prefix_len: 64, ignore_eos: true}\n" LLM,
                       0, want);
    ck_assert_int_eq(scn.workload.kind, CL_WL_VLLM_BENCH);
    ck_assert(isinf(scn.workload.vllm_bench.request_rate));
    ck_assert(scn.workload.vllm_bench.burstiness == 1.0);
    ck_assert(scn.workload.vllm_bench.random_input_len == 1024);
    ck_assert(scn.workload.vllm_bench.random_output_len == 128);
    ck_assert(scn.workload.vllm_bench.random_range_ratio == 0.0);
    ck_assert(scn.workload.vllm_bench.random_prefix_len == 64);
    ck_assert_int_eq(scn.workload.vllm_bench.dataset, CL_VB_RANDOM);
    ck_assert(scn.workload.client.max_concurrency == 4);
}
END_TEST

START_TEST(test_scn_string_load_vllm_bench_errors)
{
    static const char *const want[] = {
        "3:19: error: workload.vllm_bench.request_rate: expected inf or a "
        "rate (e.g. 10/s, 600/min; plain number = per second), got "
        "'infinity'",
        "4:25: error: workload.vllm_bench.random_range_ratio: 1 out of range "
        "[0, 1)",
        "8:3: error: workload.trace: give exactly one of 'synthetic', "
        "'trace', 'inference_perf' or 'vllm_bench'",
        "5:5: error: workload.vllm_bench.random_input_len: not used by "
        "dataset lengths",
        "4:5: error: workload.vllm_bench.random_range_ratio: not used by "
        "dataset lengths",
        "2:3: error: workload.vllm_bench: missing key 'prompt_tokens' "
        "(required by dataset lengths)",
        "6:41: error: workload.vllm_bench.output_tokens.min: 5 greater than "
        "max 3",
        "2:3: note: workload.vllm_bench.ignore_eos: false, but dsec cannot "
        "model an end-of-sequence token: every request generates exactly its "
        "output_tokens draw",
        NULL};

    load_string_expect("workload:\n"
                       "  vllm_bench:\n"
                       "    request_rate: infinity\n"
                       "    random_range_ratio: 1\n"
                       "    random_input_len: 100\n"
                       "    output_tokens: {dist: uniform, min: 5, max: 3}\n"
                       "    dataset: lengths\n"
                       "  trace: {path: t.csv}\n" LLM,
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_trace_path_required)
{
    static const char *const want[] = {
        "2:3: error: workload.trace: missing key 'path'", NULL};

    load_string_expect("workload:\n"
                       "  trace: {format: azure}\n"
                       "server:\n"
                       "  service: {dist: exponential, mean_s: 1}\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_empty_document)
{
    static const char *const want[] = {
        "1:1: error: expected a mapping of scenario keys, got an empty "
        "document",
        NULL};

    load_string_expect("# nothing\n", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_root_not_mapping)
{
    static const char *const want[] = {
        "1:1: error: expected a mapping of scenario keys, got a sequence",
        NULL};

    load_string_expect("- a\n- b\n", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_two_documents)
{
    static const char *const want[] = {
        "8:1: error: expected one YAML document, got a second", NULL};

    load_string_expect(BASE "---\n"
                            "seed: 2\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_tpot_not_overwritten)
{
    static const char *const want[] = {NULL};

    load_string_expect(BASE "cluster: {target_latency_ms: 45}\n"
                            "slo: {tpot_ms: 0.5s}\n",
                       0, want);
    ck_assert(scn.slo.tpot_ns == 500000000LL);
    ck_assert(scn.cluster.target_latency_ns == 45000000LL);
}
END_TEST

START_TEST(test_scn_string_load_quoted_and_alias)
{
    static const char *const want[] = {NULL};

    load_string_expect("workload:\n"
                       "  synthetic:\n"
                       "    arrival: {rate_per_s: \"2.5\"}\n"
                       "    duration: '90s'\n"
                       "    prompt_tokens: &len {dist: fixed, value: 64}\n"
                       "    output_tokens: *len\n"
                       "server:\n"
                       "  kind: abstract\n"
                       "  service: {dist: deterministic, mean_s: 20ms}\n",
                       0, want);
    ck_assert(scn.workload.synthetic.arrival.rate_per_s == 2.5);
    ck_assert(scn.workload.synthetic.duration_ns == 90000000000LL);
    ck_assert(scn.workload.synthetic.output_tokens.value == 64);
    ck_assert(scn.server.service.mean == 0.02);
}
END_TEST

START_TEST(test_scn_string_load_error_cap)
{
    char *text = xstrdup(BASE "hardware:\n");
    int i;

    for (i = 0; i < 30; i++) {
        char *next = xasprintf("%s  k%02d: 1\n", text, i);
        free(text);
        text = next;
    }
    ck_assert_int_eq(
        scn_string_load("inline.yaml", text, strlen(text), &scn, &diag),
        SIM_EINVAL);
    ck_assert_int_eq(sim_diag_errors(&diag), 30);
    ck_assert_int_eq(diag.n, SIM_DIAG_MAX_ERRORS);
    free(text);
}
END_TEST

START_TEST(test_scn_string_load_reader_error)
{
    static const char text[] = "workload: \x01\n";

    ck_assert_int_eq(
        scn_string_load("inline.yaml", text, sizeof(text) - 1, &scn, &diag),
        SIM_EPARSE);
    ck_assert(is_zeroed(&scn));
    ck_assert_int_eq(diag.n, 1);
    ck_assert_int_eq(diag.v[0].line, 1);
    ck_assert_int_eq(diag.v[0].col, 11);
}
END_TEST

/* Elastic-cluster keys: profiles, weight loading, pools, faults, policy. */

START_TEST(test_scn_file_load_full_elastic)
{
    static const char *const want[] = {NULL};
    const struct cl_rate_profile *pr = &scn.workload.synthetic.arrival.profile;

    load_fixture_expect("full-elastic.yaml", 0, want);
    ck_assert_int_eq(pr->kind, CL_PROF_STEPS);
    ck_assert_int_eq(pr->nsteps, 2);
    ck_assert(pr->steps[0].at_ns == 600 * INT64_C(1000000000));
    ck_assert(pr->steps[0].multiplier == 3);
    ck_assert(pr->steps[0].ramp_ns == 60 * INT64_C(1000000000));
    ck_assert(pr->steps[1].at_ns == 1500 * INT64_C(1000000000));
    ck_assert(pr->steps[1].multiplier == 1);
    ck_assert(pr->steps[1].ramp_ns == 300 * INT64_C(1000000000));
    ck_assert_int_eq(scn.deploy.weights_source, CL_SRC_PEER_RDMA);
    ck_assert(scn.deploy.load_bytes_per_s == 5e9);
    ck_assert(scn.deploy.engine_init_ns == 45 * INT64_C(1000000000));
    ck_assert_int_eq(scn.cluster.initial_gpus, 4);
    ck_assert_int_eq(scn.cluster.drain, CL_DRAIN_MIGRATE);

    ck_assert_int_eq(scn.npools, 2);
    ck_assert_str_eq(scn.pools[0].name, "on-demand");
    ck_assert_str_eq(scn.pools[0].gpu, "h100");
    ck_assert_int_eq(scn.pools[0].capacity_gpus, 8);
    ck_assert(scn.pools[0].price_usd_per_gpu_hour == 3.5);
    ck_assert_int_eq(scn.pools[0].provision.kind, CL_DIST_FIXED);
    ck_assert(scn.pools[0].provision.mean == 120);
    ck_assert(scn.pools[0].provision.value == 120);
    ck_assert_int_eq(scn.pools[0].preemptible, 0);
    ck_assert_int_eq(scn.pools[0].borrowable, 0);
    ck_assert(scn.pools[0].grace_ns == 30 * INT64_C(1000000000));
    ck_assert_int_eq(scn.pools[0].priority, 1);
    ck_assert_int_eq(scn.pools[0].reserved, 0);
    ck_assert_str_eq(scn.pools[1].name, "test-cluster");
    ck_assert_ptr_null(scn.pools[1].gpu);
    ck_assert(isnan(scn.pools[1].price_usd_per_gpu_hour));
    ck_assert_int_eq(scn.pools[1].provision.kind, CL_DIST_LOGNORMAL);
    ck_assert(scn.pools[1].provision.mean == 90);
    ck_assert(scn.pools[1].provision.sd == 30);
    ck_assert(isnan(scn.pools[1].provision.value));
    ck_assert_int_eq(scn.pools[1].borrowable, 1);
    ck_assert_int_eq(scn.pools[1].reserved, 1);
    ck_assert(scn.pools[1].grace_ns == 120 * INT64_C(1000000000));
    ck_assert_int_eq(scn.pools[1].priority, 0);

    ck_assert(scn.faults.gpu_mtbf_s == 50000.0 * 3600);
    ck_assert_int_eq(scn.faults.nscripted, 2);
    ck_assert(scn.faults.scripted[0].at_ns == 300 * INT64_C(1000000000));
    ck_assert_int_eq(scn.faults.scripted[0].kind, CL_FAULT_GPU);
    ck_assert_int_eq(scn.faults.scripted[0].replica, -1);
    ck_assert_int_eq(scn.faults.scripted[1].kind, CL_FAULT_NODE);
    ck_assert_int_eq(scn.faults.scripted[1].replica, 2);
    ck_assert_int_eq(scn.faults.recovery, CL_RECOVER_STORAGE);
    ck_assert(scn.faults.detect_ns == 20 * INT64_C(1000000000));

    ck_assert_str_eq(scn.policy.name, "hpa");
    ck_assert(scn.policy.interval_ns == 30 * INT64_C(1000000000));
    ck_assert(scn.policy.window_ns == 120 * INT64_C(1000000000));
    ck_assert(scn.policy.scale_up_cooldown_ns == 60 * INT64_C(1000000000));
    ck_assert(scn.policy.scale_down_cooldown_ns == 600 * INT64_C(1000000000));
    ck_assert_int_eq(scn.policy.max_step_up, 4);
    ck_assert_int_eq(scn.policy.max_step_down, 2);
    ck_assert_int_eq(scn.policy.nparams, 3);
    ck_assert_str_eq(scn.policy.params[0].key, "target");
    ck_assert_str_eq(scn.policy.params[0].value, "0.7");
    ck_assert_int_eq(scn.policy.params[0].pos.line, 49);
    ck_assert_int_eq(scn.policy.params[0].pos.col, 13);
    ck_assert_str_eq(scn.policy.params[1].key, "metric");
    ck_assert_str_eq(scn.policy.params[1].value, "kv_usage");
    ck_assert_str_eq(scn.policy.params[2].key, "tolerance");
    ck_assert_str_eq(scn.policy.params[2].value, "0.1");
    ck_assert_int_eq(scn.policy.params[2].pos.line, 51);
    ck_assert_int_eq(scn.policy.params[2].pos.col, 16);

    ck_assert_int_eq(scn.pos.policy_name.line, 41);
    ck_assert_int_eq(scn.pos.policy_name.col, 9);
    ck_assert_int_eq(scn.pos.pools.line, 21);
    ck_assert_int_eq(scn.pos.pools.col, 1);
}
END_TEST

START_TEST(test_scn_file_load_diurnal)
{
    static const char *const want[] = {NULL};
    const struct cl_rate_profile *pr = &scn.workload.synthetic.arrival.profile;

    load_fixture_expect("diurnal.yaml", 0, want);
    ck_assert_int_eq(pr->kind, CL_PROF_DIURNAL);
    ck_assert(pr->period_ns == 7200 * INT64_C(1000000000));
    ck_assert(pr->amplitude == 0.6);
    ck_assert(pr->peak_at_ns == 4200 * INT64_C(1000000000));
    ck_assert_ptr_null(pr->steps);
    ck_assert_int_eq(pr->nsteps, 0);
}
END_TEST

/* start: a clock time sets start_ns and the diurnal cycle's phase, scaled
 * to the period (09:00 is 3/8 of a 2 h cycle, 45 min); a bad one is an
 * error at its value. */
START_TEST(test_scn_string_load_start)
{
    static const char *const want[] = {NULL};
    static const char *const bad[] = {
        "7:8: error: start: expected a time of day \"HH:MM\" or \"HH:MM:SS\" "
        "(24-hour, e.g. \"09:00\"), got '9am'",
        NULL};
    const struct cl_rate_profile *pr = &scn.workload.synthetic.arrival.profile;

    load_string_expect("workload:\n"
                       "  synthetic:\n"
                       "    arrival:\n"
                       "      rate_per_s: 5\n"
                       "      diurnal: {period: 2h, amplitude: 0.5}\n"
                       "    requests: 10\n"
                       "start: \"09:00\"\n"
                       "server:\n"
                       "  service: {dist: exponential, mean_s: 1}\n",
                       0, want);
    ck_assert_str_eq(scn.start, "09:00");
    ck_assert(scn.start_ns == 9 * 3600 * INT64_C(1000000000));
    ck_assert(pr->phase_ns == 2700 * INT64_C(1000000000));
    cl_scenario_fini(&scn);
    memset(&scn, 0, sizeof(scn));
    load_string_expect(BASE "start: 9am\n", SIM_EINVAL, bad);
}
END_TEST

/* One round: a key's error does not hide the catalog names' or the
 * policy's. */
START_TEST(test_scn_string_load_one_round)
{
    static const char *const want[] = {
        "8:7: error: slo.ttft: unknown key; did you mean 'ttft_ms'?",
        "5:8: error: model: unknown model 'llama-9'; valid: deepseek-v3, "
        "deepseek-v3.2, llama-2-70b, llama-3.1-405b, llama-3.1-70b, "
        "llama-3.1-8b, qwen2.5-72b, qwen3-235b-a22b, qwen3-32b",
        "6:17: error: hardware.gpu: unknown gpu 'h1000'; valid: a100, b200, "
        "h100, h200, h800, l40s, mi300x",
        "9:35: error: policy.params.foo: unknown parameter of policy hpa; "
        "valid: metric, target, tolerance, scale_down_stabilization, "
        "scale_up_stabilization, scale_up_percent, scale_up_pods, "
        "scale_up_period, scale_down_percent, scale_down_period",
        NULL};

    load_string_expect("workload:\n"
                       "  synthetic: {arrival: {rate_per_s: 5}, requests: 9,\n"
                       "    prompt_tokens: {dist: fixed, value: 9},\n"
                       "    output_tokens: {dist: fixed, value: 9}}\n"
                       "model: llama-9\n"
                       "hardware: {gpu: h1000}\n"
                       "cluster: {min_gpus: 1, max_gpus: 2}\nslo: {ttft: 1}\n"
                       "policy: {name: hpa, params: {foo: 1}}\n",
                       SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_elastic_defaults)
{
    static const char *const want[] = {NULL};
    const struct cl_rate_profile *pr = &scn.workload.synthetic.arrival.profile;

    load_string_expect(BASE "cluster: {min_gpus: 1, max_gpus: 4}\n"
                            "pools: [{name: p, capacity_gpus: 4}]\n"
                            "policy: {}\n",
                       0, want);
    ck_assert_int_eq(pr->kind, CL_PROF_NONE);
    ck_assert(pr->period_ns == 24 * 3600 * INT64_C(1000000000));
    ck_assert(pr->peak_at_ns == 14 * 3600 * INT64_C(1000000000));
    ck_assert(isnan(pr->amplitude));
    ck_assert_int_eq(scn.deploy.weights_source, CL_SRC_AUTO);
    ck_assert(isnan(scn.deploy.load_bytes_per_s));
    ck_assert(scn.deploy.engine_init_ns == 30 * INT64_C(1000000000));
    ck_assert_int_eq(scn.cluster.initial_gpus, -1);
    ck_assert_int_eq(scn.cluster.drain, CL_DRAIN_FINISH);
    ck_assert_int_eq(scn.pools[0].provision.kind, CL_DIST_FIXED);
    ck_assert(scn.pools[0].provision.mean == 120);
    ck_assert(isnan(scn.faults.gpu_mtbf_s));
    ck_assert_ptr_null(scn.faults.scripted);
    ck_assert_int_eq(scn.faults.nscripted, 0);
    ck_assert_int_eq(scn.faults.recovery, CL_RECOVER_MEMORY);
    ck_assert(scn.faults.detect_ns == 10 * INT64_C(1000000000));
    ck_assert_ptr_null(scn.policy.name);
    ck_assert_int_eq(scn.pos.policy_name.line, 0);
    ck_assert(scn.policy.interval_ns == 15 * INT64_C(1000000000));
    ck_assert(scn.policy.window_ns == 60 * INT64_C(1000000000));
    ck_assert(scn.policy.scale_up_cooldown_ns == 0);
    ck_assert(scn.policy.scale_down_cooldown_ns == 300 * INT64_C(1000000000));
    ck_assert_int_eq(scn.policy.max_step_up, 8);
    ck_assert_int_eq(scn.policy.max_step_down, 1);
    ck_assert_ptr_null(scn.policy.params);
    ck_assert_int_eq(scn.policy.nparams, 0);
}
END_TEST

START_TEST(test_scn_file_load_bad_pools)
{
    static const char *const want[] = {
        "12:20: error: pools[1].capacity_gpus: 0 out of range [1, inf)",
        "14:5: error: pools[2]: missing key 'name'",
        "18:5: error: pools[3].capacity: unknown key; did you mean "
        "'capacity_gpus'?",
        "19:5: error: pools[4]: expected a mapping, got 'just a string'",
        "13:5: error: pools[1].grace: not used by a pool that is not "
        "borrowable",
        "15:5: error: pools[2].provision: missing key 'cv' (required by dist "
        "gamma)",
        "16:11: error: pools[3].name: duplicate pool name 'a' (also "
        "pools[0])",
        "8:1: error: pools: total capacity_gpus 20 less than "
        "cluster.min_gpus 40",
        NULL};

    load_fixture_expect("bad-pools.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_bad_reclaim)
{
    static const char *const want[] = {
        "11:5: error: pools[0].reclaim: not used by a pool that is not "
        "borrowable",
        "12:5: error: pools[0].spot_discount: not used by a pool that is not "
        "preemptible",
        "16:30: error: pools[1].reclaim[0].gpus: 5 more than the pool's "
        "capacity_gpus 4",
        "17:41: error: pools[1].owner_demand.gpus: 6 more than the pool's "
        "capacity_gpus 4",
        "23:5: error: pools[2].interruptions: missing key 'rate_per_h', "
        "'at' or 'trace'",
        "22:5: error: pools[2].spot_discount: give exactly one of "
        "'price_per_gpu_hour' or 'spot_discount'",
        NULL};

    load_fixture_expect("bad-reclaim.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_pools_static_cluster)
{
    static const char *const want[] = {
        "8:1: error: pools: needs an elastic cluster (cluster.min_gpus and "
        "max_gpus)",
        NULL};

    load_fixture_expect("bad-pools-static.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_bad_profile)
{
    static const char *const want[] = {
        "5:25: error: workload.synthetic.arrival.diurnal.period: 0s out of "
        "range (0, 3.16224e+07]",
        "5:7: error: workload.synthetic.arrival.diurnal: missing key "
        "'amplitude'",
        "6:7: error: workload.synthetic.arrival.steps: give at most one of "
        "'diurnal' or 'steps'",
        NULL};

    load_fixture_expect("bad-profile.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_bad_steps)
{
    static const char *const want[] = {
        "8:34: error: workload.synthetic.arrival.steps[2].multiplier: 0 out "
        "of range (0, 1e+06]",
        "9:33: error: workload.synthetic.arrival.steps[3].ramp: -1s out of "
        "range [0, 3.16224e+07]",
        "9:11: error: workload.synthetic.arrival.steps[3]: missing key 'at'",
        "10:7: error: workload.synthetic.arrival.cv: not used by process "
        "poisson",
        "7:16: error: workload.synthetic.arrival.steps[1].at: 600s not after "
        "steps[0].at 600s; steps must be sorted by at",
        "8:16: error: workload.synthetic.arrival.steps[2].at: 300s not after "
        "steps[1].at 600s; steps must be sorted by at",
        NULL};

    load_fixture_expect("bad-steps.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_bad_policy_and_faults)
{
    static const char *const want[] = {
        "9:13: error: policy.interval: 0s out of range (0, 3.16224e+07]",
        "10:18: error: policy.max_step_down: 0 out of range [1, inf)",
        "13:13: error: policy.params.nested: expected a scalar, got a "
        "mapping",
        "14:11: error: policy.params.list: expected a scalar, got a sequence",
        "15:5: error: policy.params.target: duplicate key",
        "16:5: error: policy.params.empty: missing value; expected a scalar",
        "18:13: error: faults.gpu_mtbf: expected a duration (e.g. 90s, "
        "500ms, 2h; plain number = seconds), got a size '10GB'",
        "20:24: error: faults.scripted[0].kind: unknown kind 'rack'; valid: "
        "gpu, node",
        "20:39: error: faults.scripted[0].replica: -2 out of range [-1, inf)",
        "21:3: error: faults.scripted_at: unknown key; did you mean "
        "'scripted'?",
        "22:13: error: faults.recovery: unknown recovery 'tape'; valid: "
        "memory, storage",
        NULL};

    load_fixture_expect("bad-policy.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_file_load_bad_deploy_cluster_keys)
{
    static const char *const want[] = {
        "7:26: error: deploy.weights_source: unknown weights_source 'ftp'; "
        "valid: auto, host_memory, nvme, object_store, peer_nvlink, "
        "peer_rdma",
        "7:47: error: deploy.load_bandwidth: expected a bandwidth (e.g. "
        "900GB/s, 400Gbps; plain number = bytes/s), got a size '5GiB'",
        "7:66: error: deploy.engine_init: expected a duration (e.g. 90s, "
        "500ms, 2h; plain number = seconds), got a size '10GB'",
        "8:61: error: cluster.drain: unknown drain 'kill'; valid: finish, "
        "migrate",
        "8:51: error: cluster.initial_gpus: 9 outside [min_gpus, max_gpus] = "
        "[2, 8]",
        NULL};

    load_fixture_expect("bad-cluster-new.yaml", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_initial_gpus_static)
{
    static const char *const want[] = {
        "7:11: error: cluster.initial_gpus: not used by a static "
        "cluster (give min_gpus and max_gpus)",
        NULL};

    load_string_expect(BASE "cluster: {initial_gpus: 2}\n", SIM_EINVAL, want);
}
END_TEST

START_TEST(test_scn_string_load_list_shapes)
{
    static const char *const want[] = {
        "7:8: error: pools: expected a sequence of mappings, got "
        "'none'",
        "8:9: error: faults: expected a mapping, got 'x'",
        "7:1: error: pools: needs an elastic cluster (cluster.min_gpus and "
        "max_gpus)",
        NULL};
    static const char *const want2[] = {
        "7:1: error: pools: missing value; expected a sequence "
        "of mappings",
        "8:18: error: policy.params: expected a mapping, got a "
        "sequence",
        "7:1: error: pools: needs an elastic cluster (cluster.min_gpus and "
        "max_gpus)",
        NULL};

    load_string_expect(BASE "pools: none\n"
                            "faults: x\n",
                       SIM_EINVAL, want);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    load_string_expect(BASE "pools:\n"
                            "policy: {params: [a]}\n",
                       SIM_EINVAL, want2);
}
END_TEST

START_TEST(test_scn_string_load_list_cap)
{
    /* 256 steps load; with 258 the 257th (line 263) is refused at its own
     * node, and the load stops reading the list there. */
    size_t cap = 1 << 16, len;
    char *text = xmalloc(cap);
    static const char *const want[] = {
        "263:11: error: workload.synthetic.arrival.steps: more "
        "than 256 entries",
        NULL};
    static const char *const ok[] = {NULL};

    len = (size_t)snprintf(text, cap,
                           "workload:\n  synthetic:\n    requests: 10\n"
                           "    arrival:\n      rate_per_s: 5\n"
                           "      steps:\n");
    for (int i = 0; i < 256; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "        - {at: %ds, multiplier: 2}\n", i);
    len += (size_t)snprintf(text + len, cap - len,
                            "server: {service: {dist: exponential, "
                            "mean_s: 1}}\n");
    ck_assert_int_eq(scn_string_load("inline.yaml", text, len, &scn, &diag), 0);
    assert_diags("inline.yaml", ok);
    ck_assert_int_eq(scn.workload.synthetic.arrival.profile.nsteps, 256);
    ck_assert(scn.workload.synthetic.arrival.profile.steps[255].at_ns ==
              255 * INT64_C(1000000000));
    cl_scenario_fini(&scn);

    len = (size_t)snprintf(text, cap,
                           "workload:\n  synthetic:\n    requests: 10\n"
                           "    arrival:\n      rate_per_s: 5\n"
                           "      steps:\n");
    for (int i = 0; i < 258; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "        - {at: %ds, multiplier: 2}\n", i);
    len += (size_t)snprintf(text + len, cap - len,
                            "server: {service: {dist: exponential, "
                            "mean_s: 1}}\n");
    ck_assert_int_eq(scn_string_load("inline.yaml", text, len, &scn, &diag),
                     SIM_EINVAL);
    ck_assert(is_zeroed(&scn));
    assert_diags("inline.yaml", want);
    free(text);
}
END_TEST

/* scn_scenario_open */

/* Calls fn on every *.yaml file of $top_srcdir/dir; returns the count. */
static int each_yaml(const char *dir, void (*fn)(const char *path))
{
    const char *top = getenv("top_srcdir");
    char *root = xasprintf("%s/%s", top ? top : ".", dir);
    DIR *dp = opendir(root);
    struct dirent *e;
    int n = 0;

    ck_assert_msg(dp != NULL, "cannot open %s", root);
    while ((e = readdir(dp)) != NULL) {
        size_t len = strlen(e->d_name);
        char *path;

        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        path = xasprintf("%s/%s", root, e->d_name);
        fn(path);
        free(path);
        n++;
    }
    closedir(dp);
    free(root);
    return n;
}

/* A bundled scenario goes through the whole pipeline; freeing it leaves
 * nothing behind (the ASan build reports any leak). */
static void open_bundled(const char *path)
{
    struct cl_scenario s;
    struct cl_plan plan;
    struct scn_open_opts opts = {.plan = &plan};
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = scn_scenario_open(path, &opts, &s, &d);
    if (rc != 0)
        sim_diag_print(&d, stderr);
    ck_assert_msg(rc == 0, "%s: rc %d", path, rc);
    ck_assert_ptr_eq(s.rows, scn_schema);
    /* A cluster that scales to zero may start with none. */
    ck_assert_int_ge(plan.replicas,
                     plan.elastic && plan.min_replicas == 0 ? 0 : 1);
    cl_scenario_fini(&s);
    ck_assert(is_zeroed(&s));
    sim_diag_fini(&d);
}

/* A fixture, good or bad, is freed on every path out of the pipeline:
 * after a failed load, after a failed check (kept or not) and after
 * success. */
static void open_fixture(const char *path)
{
    for (int keep = 0; keep <= 1; keep++) {
        struct cl_scenario s;
        struct scn_open_opts opts = {.keep_infeasible = keep};
        struct sim_diag d;
        int rc;

        sim_diag_init(&d);
        rc = scn_scenario_open(path, &opts, &s, &d);
        if (rc != 0)
            ck_assert_msg(sim_diag_errors(&d) > 0, "%s: rc %d, no error", path,
                          rc);
        if (rc != 0 && !(rc == SIM_EINFEASIBLE && keep))
            ck_assert_msg(is_zeroed(&s), "%s: rc %d, not zeroed", path, rc);
        cl_scenario_fini(&s);
        sim_diag_fini(&d);
    }
    /* Loaded but never checked. */
    {
        struct cl_scenario s;
        struct sim_diag d;

        sim_diag_init(&d);
        (void)scn_file_load(path, &s, &d);
        cl_scenario_fini(&s);
        sim_diag_fini(&d);
    }
}

START_TEST(test_scn_scenario_open_bundled)
{
    ck_assert_int_ge(each_yaml("scenarios", open_bundled), 10);
}
END_TEST

START_TEST(test_scn_scenario_open_fixtures)
{
    ck_assert_int_ge(each_yaml("tests/data/scn", open_fixture), 10);
    ck_assert_int_ge(each_yaml("tests/data/train", open_fixture), 1);
}
END_TEST

/* deepseek-v3 in fp8 does not fit tp 4 of h200: the check says
 * SIM_EINFEASIBLE, and the scenario is kept only when asked for. */
START_TEST(test_scn_scenario_open_keep_infeasible)
{
    static const char text[] = "model: deepseek-v3\n"
                               "workload:\n"
                               "  synthetic:\n"
                               "    arrival: {rate_per_s: 1}\n"
                               "    requests: 10\n"
                               "    prompt_tokens: {dist: fixed, value: 10}\n"
                               "    output_tokens: {dist: fixed, value: 10}\n"
                               "hardware: {gpu: h200}\n"
                               "deploy: {tp: 4, weight_dtype: fp8}\n";
    struct scn_open_opts opts = {.text = text, .len = strlen(text)};

    ck_assert_int_eq(scn_scenario_open("inline.yaml", &opts, &scn, &diag),
                     SIM_EINFEASIBLE);
    ck_assert(is_zeroed(&scn));
    ck_assert_int_ge(sim_diag_errors(&diag), 1);
    opts.keep_infeasible = 1;
    ck_assert_int_eq(scn_scenario_open("inline.yaml", &opts, &scn, &diag),
                     SIM_EINFEASIBLE);
    ck_assert_str_eq(scn.model, "deepseek-v3");
    ck_assert_int_eq(scn.deploy.tp, 4);
}
END_TEST

/* The text form names the scenario as the file form does, and a load
 * error stops the pipeline before the check. */
START_TEST(test_scn_scenario_open_text_and_errors)
{
    static const char good[] = BASE;
    static const char bad[] = BASE "cluster: {replicas: 0}\n";
    struct cl_plan plan;
    struct scn_open_opts opts = {
        .text = good, .len = strlen(good), .plan = &plan};
    static const char *const want[] = {
        "7:21: error: cluster.replicas: 0 out of range [1, 100000]", NULL};

    ck_assert_int_eq(scn_scenario_open("dir/x.yaml", &opts, &scn, &diag), 0);
    ck_assert_str_eq(scn.name, "x");
    ck_assert_str_eq(scn.file, "dir/x.yaml");
    ck_assert_int_eq(plan.replicas, 1);
    cl_scenario_fini(&scn);
    opts.text = bad;
    opts.len = strlen(bad);
    ck_assert_int_eq(scn_scenario_open("inline.yaml", &opts, &scn, &diag),
                     SIM_EINVAL);
    ck_assert(is_zeroed(&scn));
    assert_diags("inline.yaml", want);
}
END_TEST

/* A P/D group's layout that does not fit is reported at that group's key:
 * the decode group's ep 12 does not divide Qwen3-235B-A22B's 128 expert
 * slots (4 redundant would make 132, 11 per GPU), while the prefill
 * group's ep 8 does (16 per GPU). Under an elastic cluster a group that
 * starts outside its bounds is refused at the disaggregation key, and a
 * static one refuses the bounds. */
START_TEST(test_scn_scenario_open_bad_pd_layout)
{
    static const char *const want[] = {
        "17:25: error: deploy.disaggregation.decode: ep 12 must be a "
        "multiple of tp 1 (ep = tp: experts spread over the tp GPUs; ep = k "
        "* tp: k data-parallel attention groups) dividing the 128 expert "
        "slots of qwen3-235b-a22b (128 routed + 0 redundant); "
        "redundant_experts 4 gives 132 slots, 11 per gpu",
        NULL};
    static const char *const want_elastic[] = {
        "9:3: error: deploy.disaggregation: prefill_replicas 3 is outside "
        "the prefill group's bounds [1, 2]",
        NULL};
    static const char *const want_static[] = {
        "12:31: error: deploy.disaggregation.decode.min_replicas: not used "
        "by a static cluster (give cluster.min_gpus and max_gpus)",
        "12:14: error: deploy.disaggregation.decode.max_replicas: not used "
        "by a static cluster (give cluster.min_gpus and max_gpus)",
        NULL};
    static const char elastic[] =
        "model: qwen3-235b-a22b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {rate_per_s: 5}\n"
        "    requests: 10\n"
        "    prompt_tokens: {dist: fixed, value: 100}\n"
        "    output_tokens: {dist: fixed, value: 10}\n"
        "deploy:\n"
        "  disaggregation:\n"
        "    prefill_replicas: 3\n"
        "    decode_replicas: 1\n"
        "    prefill: {max_replicas: 2}\n"
        "cluster: {min_gpus: 2, max_gpus: 4}\n";
    static const char fixed[] =
        "model: qwen3-235b-a22b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {rate_per_s: 5}\n"
        "    requests: 10\n"
        "    prompt_tokens: {dist: fixed, value: 100}\n"
        "    output_tokens: {dist: fixed, value: 10}\n"
        "deploy:\n"
        "  disaggregation:\n"
        "    prefill_replicas: 1\n"
        "    decode_replicas: 1\n"
        "    decode: {max_replicas: 2, min_replicas: 1}\n"
        "cluster: {replicas: 2}\n";
    char *path = fixture("bad-pd-ep.yaml");
    struct scn_open_opts opts = {0};

    ck_assert_int_eq(scn_scenario_open(path, &opts, &scn, &diag),
                     SIM_EINFEASIBLE);
    ck_assert(is_zeroed(&scn));
    assert_diags(path, want);
    free(path);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    opts.text = elastic;
    opts.len = strlen(elastic);
    ck_assert_int_ne(scn_scenario_open("inline.yaml", &opts, &scn, &diag), 0);
    assert_diags("inline.yaml", want_elastic);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    opts.text = fixed;
    opts.len = strlen(fixed);
    ck_assert_int_ne(scn_scenario_open("inline.yaml", &opts, &scn, &diag), 0);
    assert_diags("inline.yaml", want_static);
}
END_TEST

static Suite *scn_load_suite(void)
{
    Suite *s = suite_create("scn_load");
    TCase *tc;

    tc = tcase_create("sim_unit_parse");
    tcase_add_test(tc, test_sim_unit_parse_suffixes);
    tcase_add_test(tc, test_sim_unit_parse_wrong_dimension);
    tcase_add_test(tc, test_sim_unit_parse_rejects_non_numbers);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_duration_parse");
    tcase_add_test(tc, test_sim_duration_parse_units);
    tcase_add_test(tc, test_sim_duration_parse_too_long);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_param_edit_distance");
    tcase_add_test(tc, test_sim_param_edit_distance_values);
    suite_add_tcase(s, tc);

    tc = tcase_create("sim_param_fini");
    tcase_add_test(tc, test_sim_param_fini_frees_by_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("scn_schema");
    tcase_add_test(tc, test_scn_schema_rows_sane);
    tcase_add_test(tc, test_scn_schema_shared_defaults);
    tcase_add_test(tc, test_scn_help_print_every_key);
    suite_add_tcase(s, tc);

    tc = tcase_create("scn_file_load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_scn_file_load_full_llm);
    tcase_add_test(tc, test_scn_file_load_full_abstract_trace);
    tcase_add_test(tc, test_scn_file_load_defaults);
    tcase_add_test(tc, test_scn_file_load_seed_example);
    tcase_add_test(tc, test_scn_file_load_unknown_key_did_you_mean);
    tcase_add_test(tc, test_scn_file_load_unknown_key_lists_valid);
    tcase_add_test(tc, test_scn_file_load_out_of_range);
    tcase_add_test(tc, test_scn_file_load_bad_enum);
    tcase_add_test(tc, test_scn_file_load_wrong_dimension);
    tcase_add_test(tc, test_scn_file_load_missing_required);
    tcase_add_test(tc, test_scn_file_load_exactly_one);
    tcase_add_test(tc, test_scn_file_load_syntax_indent);
    tcase_add_test(tc, test_scn_file_load_syntax_bracket);
    tcase_add_test(tc, test_scn_file_load_many_errors);
    tcase_add_test(tc, test_scn_file_load_missing_file);
    tcase_add_test(tc, test_scn_file_load_full_elastic);
    tcase_add_test(tc, test_scn_file_load_diurnal);
    tcase_add_test(tc, test_scn_string_load_start);
    tcase_add_test(tc, test_scn_string_load_one_round);
    tcase_add_test(tc, test_scn_file_load_bad_pools);
    tcase_add_test(tc, test_scn_file_load_bad_reclaim);
    tcase_add_test(tc, test_scn_file_load_pools_static_cluster);
    tcase_add_test(tc, test_scn_file_load_bad_profile);
    tcase_add_test(tc, test_scn_file_load_bad_steps);
    tcase_add_test(tc, test_scn_file_load_bad_policy_and_faults);
    tcase_add_test(tc, test_scn_file_load_bad_deploy_cluster_keys);
    suite_add_tcase(s, tc);

    tc = tcase_create("scn_string_load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_scn_string_load_name_from_file);
    tcase_add_test(tc, test_scn_string_load_not_nul_terminated);
    tcase_add_test(tc, test_scn_string_load_dist_keys);
    tcase_add_test(tc, test_scn_string_load_dist_cap);
    tcase_add_test(tc, test_scn_string_load_tokens_required_by_llm);
    tcase_add_test(tc, test_scn_string_load_arrival_cv);
    tcase_add_test(tc, test_scn_string_load_extreme_values_refused);
    tcase_add_test(tc, test_scn_string_load_service_keys);
    tcase_add_test(tc, test_scn_string_load_service_missing);
    tcase_add_test(tc, test_scn_string_load_cluster_bounds);
    tcase_add_test(tc, test_scn_string_load_cluster_min_only);
    tcase_add_test(tc, test_scn_string_load_types);
    tcase_add_test(tc, test_scn_string_load_duplicate_key);
    tcase_add_test(tc, test_scn_string_load_root_did_you_mean);
    tcase_add_test(tc, test_scn_string_load_missing_workload);
    tcase_add_test(tc, test_scn_string_load_workload_empty);
    tcase_add_test(tc, test_scn_string_load_trace_path_required);
    tcase_add_test(tc, test_scn_string_load_inference_perf);
    tcase_add_test(tc, test_scn_string_load_inference_perf_errors);
    tcase_add_test(tc, test_scn_string_load_inference_perf_random_errors);
    tcase_add_test(tc, test_scn_string_load_vllm_bench);
    tcase_add_test(tc, test_scn_string_load_vllm_bench_errors);
    tcase_add_test(tc, test_scn_string_load_empty_document);
    tcase_add_test(tc, test_scn_string_load_root_not_mapping);
    tcase_add_test(tc, test_scn_string_load_two_documents);
    tcase_add_test(tc, test_scn_string_load_tpot_not_overwritten);
    tcase_add_test(tc, test_scn_string_load_quoted_and_alias);
    tcase_add_test(tc, test_scn_string_load_error_cap);
    tcase_add_test(tc, test_scn_string_load_reader_error);
    tcase_add_test(tc, test_scn_string_load_elastic_defaults);
    tcase_add_test(tc, test_scn_string_load_initial_gpus_static);
    tcase_add_test(tc, test_scn_string_load_list_shapes);
    tcase_add_test(tc, test_scn_string_load_list_cap);
    suite_add_tcase(s, tc);

    tc = tcase_create("scn_scenario_open");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scn_scenario_open_bundled);
    tcase_add_test(tc, test_scn_scenario_open_fixtures);
    tcase_add_test(tc, test_scn_scenario_open_keep_infeasible);
    tcase_add_test(tc, test_scn_scenario_open_text_and_errors);
    tcase_add_test(tc, test_scn_scenario_open_bad_pd_layout);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scn_load_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
