/*
 * The extremes property test beyond the scenario schema (docs/security.md,
 * "The parsers and the simulator's inputs"; tests/check_extremes.c does the
 * scenario): every numeric key of the calibration profile
 * (perf_calib_rows), of the sweep file (swp_spec_rows) and of the scaler's
 * configuration (scl_config_rows, with the guard's and the policy's rows
 * under policy:), found by walking the rows, is set in turn to the ends of
 * its range, 0, negatives, tiny and huge numbers, NaN and +-Inf in every
 * base of tests/data/extremes that gives it. The value's scalar is replaced
 * in the base text (found through libyaml's document tree, spliced at its
 * marks), so every other line keeps its place. Each variant must end one
 * of two ways:
 *   - refused, with at least one error at a position (line and column);
 *   - loaded, and then sane:
 *       a profile prices steps of a dense and of an expert-parallel
 *       replica (as `dsec step` does) and runs a short scenario with it,
 *       with uncertainty draws (as `dsec run --uncertainty`), in a child
 *       process within a CPU-time and memory budget; every step time and
 *       TTFT is positive and finite and no result is absurd;
 *       a sweep has at most SWP_MAX_POINTS points, as many as its grid
 *       times its seeds, and draws within CL_PI_MAX_DRAWS;
 *       a scaler configuration keeps what the scaler relies on: min_replicas
 *       <= max_replicas, a finite interval of at least SCL_INTERVAL_MIN_S
 *       no longer than the window, HTTP and command time-outs of at least 1 ms
 * as libcurl reads them, a PromQL range that says the window, a scrape ring
 *       that holds it, finite non-negative prices and cooldowns.
 * A key that no base gives fails the test: a new key needs a base that
 * reaches it.
 */
#define _DEFAULT_SOURCE /* wait4 */

#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "models/arch/arch.h"
#include "models/cluster/cluster.h"
#include "models/cluster/predict.h"
#include "models/cluster/results.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/perf/roofline.h"
#include "models/policy/guard.h"
#include "models/policy/policy.h"
#include "scaler/conf.h"
#include "scaler/source.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sweep/spec.h"
#include "tests/extremes.h"

/* CPU seconds and resident megabytes a profile's child may use: a hang and
 * leak guard far above any variant's need, not a speed check. */
#define BUDGET_CPU_S 10
#define BUDGET_RSS_MB 2048

#define MAX_KEYS 256
#define PATH_LEN 192
#define EL_LEN (PATH_LEN + 8)

/* ---- keys ---- */

/* A key path is '/'-separated (profile keys hold dots: std_errors'
 * "gemm.hbm_efficiency"), a list element "name[0]". */
struct key {
    char path[PATH_LEN];
    const struct sim_param *row;
    /* std_errors of a key: parsed by the key's row from 0 up. */
    int is_se;
};

static struct key keys[MAX_KEYS];
static int nkeys;

static int numeric(enum sim_param_type t)
{
    return t == SIM_PT_INT || t == SIM_PT_INT64 || t == SIM_PT_UINT64 ||
           t == SIM_PT_DOUBLE || t == SIM_PT_DURATION;
}

static void add_key(const char *path, const struct sim_param *row, int is_se)
{
    ck_assert_int_lt(nkeys, MAX_KEYS);
    snprintf(keys[nkeys].path, PATH_LEN, "%s", path);
    keys[nkeys].row = row;
    keys[nkeys].is_se = is_se;
    nkeys++;
}

static void join(char *out, const char *prefix, const char *key)
{
    if (key[0] == '\0')
        snprintf(out, PATH_LEN, "%s", prefix);
    else if (prefix[0] == '\0')
        snprintf(out, PATH_LEN, "%s", key);
    else
        snprintf(out, PATH_LEN, "%s/%s", prefix, key);
}

/* The dotted names of the numeric keys under rows ("gemm.hbm_efficiency"),
 * as uncertainty.std_errors names them, each with its row. */
static void se_keys(const struct sim_param *rows, const char *dotted,
                    const char *prefix)
{
    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        char name[PATH_LEN], path[PATH_LEN];
        if (dotted[0] == '\0')
            snprintf(name, sizeof(name), "%s", p->key);
        else
            snprintf(name, sizeof(name), "%s.%s", dotted, p->key);
        if (p->type == SIM_PT_SECTION && p->sub != NULL &&
            strcmp(p->key, "uncertainty") != 0) {
            se_keys(p->sub, name, prefix);
        } else if (numeric(p->type)) {
            join(path, prefix, name);
            add_key(path, p, 1);
        }
    }
}

/* Collects the numeric leaves under rows. A map of named sections takes
 * each of names (NULL-terminated); a map of free scalars named
 * "std_errors" takes the numeric keys of entry (the rows of the entry it
 * sits in); a list's element is its first. */
static void walk(const struct sim_param *rows, const char *prefix,
                 const char *const *gpu_names, const char *const *link_names,
                 const struct sim_param *entry)
{
    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        char path[PATH_LEN];
        join(path, prefix, p->key);
        if (p->type == SIM_PT_SECTION && p->sub != NULL) {
            walk(p->sub, path, gpu_names, link_names, entry);
        } else if (p->type == SIM_PT_MAP && p->sub != NULL) {
            const char *const *names =
                p->sub == perf_calib_link_rows ? link_names : gpu_names;
            for (int i = 0; names != NULL && names[i] != NULL; i++) {
                char el[PATH_LEN];
                join(el, path, names[i]);
                walk(p->sub, el, gpu_names, link_names, p->sub);
            }
        } else if (p->type == SIM_PT_MAP && entry != NULL &&
                   strcmp(p->key, "std_errors") == 0) {
            se_keys(entry, "", path);
        } else if (p->type == SIM_PT_LIST && p->sub != NULL) {
            char el[EL_LEN];
            snprintf(el, sizeof(el), "%s[0]", path);
            walk(p->sub, el, gpu_names, link_names, entry);
        } else if (numeric(p->type)) {
            add_key(path, p, 0);
        }
    }
}

/* ---- the base's text, with one scalar replaced ---- */

static char *read_text(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    long n;

    ck_assert_msg(fp != NULL, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = xmalloc((size_t)n + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* The node at path in doc, or NULL. */
static yaml_node_t *node_at(yaml_document_t *doc, const char *path)
{
    yaml_node_t *n = yaml_document_get_root_node(doc);
    const char *p = path;

    while (n != NULL && *p != '\0') {
        size_t len = strcspn(p, "/[");
        if (len > 0) {
            yaml_node_t *next = NULL;
            if (n->type != YAML_MAPPING_NODE)
                return NULL;
            for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
                 q < n->data.mapping.pairs.top; q++) {
                yaml_node_t *k = yaml_document_get_node(doc, q->key);
                if (k->type == YAML_SCALAR_NODE &&
                    k->data.scalar.length == len &&
                    memcmp(k->data.scalar.value, p, len) == 0) {
                    next = yaml_document_get_node(doc, q->value);
                    break;
                }
            }
            n = next;
            p += len;
        }
        if (n != NULL && *p == '[') {
            long i = strtol(p + 1, (char **)&p, 10);
            if (n->type != YAML_SEQUENCE_NODE ||
                i >= n->data.sequence.items.top - n->data.sequence.items.start)
                return NULL;
            n = yaml_document_get_node(doc, n->data.sequence.items.start[i]);
            p++; /* ']' */
        }
        if (*p == '/')
            p++;
    }
    return n;
}

/* The base text with the scalar at path replaced by value (caller frees),
 * or NULL when the base does not give the key as a scalar. */
static char *splice(const char *text, size_t len, const char *path,
                    const char *value)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *n;
    char *out = NULL;

    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    ck_assert_int_eq(yaml_parser_load(&parser, &doc), 1);
    n = node_at(&doc, path);
    if (n != NULL && n->type == YAML_SCALAR_NODE) {
        size_t a = n->start_mark.index, b = n->end_mark.index;
        out = xasprintf("%.*s%s%s", (int)a, text, value, text + b);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return out;
}

/* ---- values ---- */

/* The extremes of k: the fixed ones and the ends of its range with their
 * neighbours outside. Returns the count. */
static int values_of(const struct key *k, char (*vals)[64])
{
    double lo = k->is_se ? 0 : k->row->min;
    double hi = k->is_se ? k->row->max : k->row->max;
    int n = 0;

    for (size_t f = 0; f < EXTREMES_NFIXED; f++)
        snprintf(vals[n++], 64, "%s", extremes_fixed[f]);
    extremes_add_value(vals, &n, lo);
    extremes_add_value(vals, &n, nextafter(lo, -INFINITY));
    extremes_add_value(vals, &n, hi);
    extremes_add_value(vals, &n, nextafter(hi, INFINITY));
    return n;
}

struct base {
    const char *name;
    char *text;
    size_t len;
};

static struct base *bases_read(const char *const *names, int *n)
{
    const char *dir = getenv("top_srcdir");
    struct base *b;

    for (*n = 0; names[*n] != NULL; (*n)++)
        ;
    b = xcalloc((size_t)*n, sizeof(*b));
    for (int i = 0; i < *n; i++) {
        char *path = xasprintf("%s/%s", dir ? dir : ".", names[i]);
        b[i].name = names[i];
        b[i].text = read_text(path, &b[i].len);
        free(path);
    }
    return b;
}

static void bases_free(struct base *b, int n)
{
    for (int i = 0; i < n; i++)
        free(b[i].text);
    free(b);
}

/* Tries one variant: returns 0 when it behaved. */
typedef int (*try_fn)(const char *label, const char *text, int *refused);

/* Drives every key through its extremes in every base that gives it
 * (first only: only the first base that gives each key). */
static void drive(struct base *b, int nb, try_fn try, int first_only)
{
    int bad = 0, uncovered = 0, tried = 0, refused = 0;

    for (int i = 0; i < nkeys; i++) {
        const struct key *k = &keys[i];
        char vals[32][64];
        int nv = values_of(k, vals), reached = 0;

        for (int j = 0; j < nb && !(first_only && reached); j++) {
            char *probe = splice(b[j].text, b[j].len, k->path, "1");
            if (probe == NULL)
                continue;
            free(probe);
            reached = 1;
            for (int v = 0; v < nv; v++) {
                char *text = splice(b[j].text, b[j].len, k->path, vals[v]);
                char *label =
                    xasprintf("%s: %s: %s", b[j].name, k->path, vals[v]);
                int r = 0;
                tried++;
                if (try(label, text, &r) != 0)
                    bad++;
                refused += r;
                free(label);
                free(text);
            }
        }
        if (!reached) {
            fprintf(stderr, "no base gives %s\n", k->path);
            uncovered++;
        }
    }
    fprintf(stderr,
            "%d numeric keys, %d uncovered; %d variants, %d refused, %d "
            "loaded, %d misbehaved\n",
            nkeys, uncovered, tried, refused, tried - refused, bad);
    ck_assert_int_eq(uncovered, 0);
    ck_assert_int_eq(bad, 0);
}

/* ---- calibration profiles ---- */

/* Why a step breakdown is absurd, or NULL. */
static const char *bad_step(const struct perf_breakdown *bd)
{
    static char why[160];

    for (int i = 0; i < PERF_OP_COUNT; i++)
        if (!isfinite(bd->op[i].ns) || bd->op[i].ns < 0) {
            snprintf(why, sizeof(why), "op %d takes %g ns", i, bd->op[i].ns);
            return why;
        }
    if (bd->total_ns < 1 || bd->stage_ns < 1 || bd->stage_ns > bd->total_ns ||
        bd->overhead_ns < 0 || !isfinite(bd->comm_ns) || bd->comm_ns < 0) {
        snprintf(why, sizeof(why),
                 "total %lld ns, stage %lld ns, overhead %lld ns, comm %g ns",
                 (long long)bd->total_ns, (long long)bd->stage_ns,
                 (long long)bd->overhead_ns, bd->comm_ns);
        return why;
    }
    return NULL;
}

/* Prices a decode step, a prefill and a mixed batch on a layout as `dsec
 * step` does; returns 0, or 2 with the reason on stderr. */
static int price_steps(const struct perf_calib *c, const char *model,
                       const struct perf_layout *l, const char *label)
{
    const struct arch_spec *a = arch_find(model);
    const struct gpu_spec *g = gpu_find("h100");
    struct perf_gpu_calib gc;
    struct perf_replica r;
    char why[512];
    const struct perf_batch batches[] = {
        {.decode_seqs = 1, .decode_ctx_tokens = 1000},
        {.decode_seqs = 256, .decode_ctx_tokens = 256 * 2000},
        {.prefill_tokens = 8192,
         .prefill_ctx_tokens = 0,
         .prefill_attn_pairs = 8192.0 * 4096.0,
         .prefill_seqs = 1,
         .prefill_done_seqs = 1},
        {.prefill_tokens = 512,
         .prefill_ctx_tokens = 1000,
         .prefill_attn_pairs = 512.0 * 1256.0,
         .prefill_seqs = 1,
         .prefill_done_seqs = 1,
         .decode_seqs = 32,
         .decode_ctx_tokens = 32 * 1000},
    };

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(g);
    perf_calib_resolve(c, g, &gc);
    if (perf_replica_init(&r, a, g, l, a->weight_dtype, CL_DTYPE_BF16, 0.9, &gc,
                          why, sizeof(why)) != 0) {
        fprintf(stderr, "%s: %s: replica refused: %s\n", label, model, why);
        return 2;
    }
    for (size_t i = 0; i < sizeof(batches) / sizeof(batches[0]); i++) {
        struct perf_breakdown bd;
        const char *bad;
        perf_iteration_breakdown(&r, &batches[i], &bd);
        bad = bad_step(&bd);
        if (bad != NULL) {
            fprintf(stderr, "%s: %s batch %zu: %s\n", label, model, i, bad);
            return 2;
        }
    }
    return 0;
}

/* Runs the profile's scenario (tests/data/extremes/calib-run.yaml) with c
 * in place of its profile, then two uncertainty draws when c carries
 * uncertainty for h100; 0, or 2 with the reason on stderr. */
static int run_scenario(const struct perf_calib *c, const char *label,
                        int strict)
{
    const char *dir = getenv("top_srcdir");
    char *path =
        xasprintf("%s/tests/data/extremes/calib-run.yaml", dir ? dir : ".");
    struct cl_scenario scn;
    struct cl_results res;
    struct cl_run_opts ro = {.base_dir = NULL};
    struct perf_calib_dist dist;
    struct sim_diag d;
    const char *why;
    int rc;

    sim_diag_init(&d);
    if (scn_scenario_open(path, NULL, &scn, &d) != 0) {
        sim_diag_print(&d, stderr);
        return 4;
    }
    scn.calib = xcalloc(1, sizeof(*scn.calib));
    perf_calib_copy(c, scn.calib);
    rc = cl_run(&scn, &ro, &res, &d);
    if (rc != 0)
        return extremes_positioned(&d, label) ? 0 : 3;
    why = extremes_absurd(&res, 1);
    if (why != NULL) {
        fprintf(stderr, "%s: absurd result: %s\n", label, why);
        return 2;
    }
    /* The base as given must reach what the variants are checked on:
     * completions, and draws of its uncertainty. */
    if (strict &&
        (res.ttft_ms.n == 0 || perf_calib_dist_init(c, "h100", &dist) == 0)) {
        fprintf(stderr, "%s: %llu TTFT samples, no draws\n", label,
                (unsigned long long)res.ttft_ms.n);
        return 2;
    }
    if (perf_calib_dist_init(c, "h100", &dist) > 0) {
        struct cl_pi pi;
        rc = cl_predict(&scn, &ro, 2, 0.95, NULL, NULL, &pi, &d);
        if (rc != 0)
            return extremes_positioned(&d, label) ? 0 : 3;
        for (int m = 0; m < CL_PI_N; m++)
            if (isinf(pi.lo[m]) || isinf(pi.hi[m]) || pi.lo[m] < 0) {
                fprintf(stderr, "%s: prediction interval %s [%g, %g]\n", label,
                        cl_pi_json[m], pi.lo[m], pi.hi[m]);
                return 2;
            }
    }
    return 0;
}

/* The child: prices steps, runs the scenario. Exit 0 sane, 2 absurd, 3
 * an error without a position, 4 the scenario did not load. */
static void calib_child(const struct perf_calib *c, const char *label,
                        int strict)
{
    /* Tensor parallelism over the intra link; pipeline stages and expert
     * parallelism across nodes over the inter link. */
    const struct perf_layout dense = {
        .tp = 4, .pp = 2, .ep = 1, .gpus_per_node = 4, .micro_batches = 1};
    const struct perf_layout moe = {
        .tp = 1, .pp = 1, .ep = 16, .gpus_per_node = 8, .micro_batches = 2};
    const struct perf_layout moe1 = {
        .tp = 8, .pp = 1, .ep = 8, .gpus_per_node = 8, .micro_batches = 1};
    int rc;

    extremes_child_budget(BUDGET_CPU_S);
    rc = price_steps(c, "llama-3.1-70b", &dense, label);
    if (rc == 0)
        rc = price_steps(c, "qwen3-235b-a22b", &moe, label);
    if (rc == 0)
        rc = price_steps(c, "qwen3-235b-a22b", &moe1, label);
    if (rc == 0)
        rc = run_scenario(c, label, strict);
    _exit(rc);
}

static int run_child(const struct perf_calib *c, const char *label, int strict)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        calib_child(c, label, strict);
    return extremes_wait(pid, label, BUDGET_RSS_MB);
}

static int try_calib(const char *label, const char *text, int *refused)
{
    struct perf_calib c;
    struct sim_diag d;
    int rc = 0;

    sim_diag_init(&d);
    if (perf_calib_load_string("calib.yaml", text, strlen(text), &c, &d) != 0) {
        *refused = 1;
        rc = extremes_positioned(&d, label) ? 0 : -1;
    } else {
        rc = run_child(&c, label, 0);
        perf_calib_fini(&c);
    }
    sim_diag_fini(&d);
    return rc;
}

START_TEST(test_calibration_profiles)
{
    static const char *const names[] = {
        "tests/data/extremes/calib.yaml",
        "models/perf/calibration-default.yaml",
        NULL,
    };
    static const char *const gpus[] = {PERF_CALIB_DEFAULT_GPU, NULL};
    static const char *const links[] = {"nvlink4", PERF_CALIB_INTER_LINK, NULL};
    int nb;
    struct base *b = bases_read(names, &nb);
    struct perf_calib c;
    struct sim_diag d;

    /* The base itself loads and behaves. */
    sim_diag_init(&d);
    ck_assert_int_eq(
        perf_calib_load_string("calib.yaml", b[0].text, b[0].len, &c, &d), 0);
    ck_assert_int_eq(run_child(&c, "calib.yaml as given", 1), 0);
    perf_calib_fini(&c);
    sim_diag_fini(&d);

    nkeys = 0;
    walk(perf_calib_rows, "", gpus, links, NULL);
    ck_assert_int_gt(nkeys, 60);
    drive(b, nb, try_calib, 1);
    bases_free(b, nb);
}
END_TEST

/* ---- sweep files ---- */

static int try_sweep(const char *label, const char *text, int *refused)
{
    const char *dir = getenv("top_srcdir");
    char *file =
        xasprintf("%s/tests/data/extremes/sweep.yaml", dir ? dir : ".");
    struct sim_diag d;
    struct swp_spec *s;
    int rc = 0;

    sim_diag_init(&d);
    s = swp_spec_load_string(file, text, strlen(text), &d);
    if (s == NULL || sim_diag_errors(&d) > 0) {
        *refused = 1;
        rc = extremes_positioned(&d, label) ? 0 : -1;
    } else {
        /* Each base's grid has two explicit points or an axis of two
         * values. */
        size_t seeds = 0;
        for (int c = 0; c < s->ncolumns; c++)
            seeds |= strcmp(s->columns[c], "seed") == 0;
        if (s->npoints < 1 || s->npoints > SWP_MAX_POINTS ||
            (!seeds && s->npoints != 2) || s->npoints % 2 != 0 ||
            s->uncertainty < 0 || s->uncertainty > CL_PI_MAX_DRAWS ||
            s->uncertainty == 1) {
            fprintf(stderr, "%s: %zu points, %d draws\n", label, s->npoints,
                    s->uncertainty);
            rc = -1;
        }
    }
    swp_spec_free(s);
    sim_diag_fini(&d);
    free(file);
    return rc;
}

START_TEST(test_sweep_files)
{
    static const char *const names[] = {
        "tests/data/extremes/sweep.yaml",
        "tests/data/extremes/sweep-seeds.yaml",
        NULL,
    };
    int nb;
    struct base *b = bases_read(names, &nb);

    nkeys = 0;
    walk(swp_spec_rows, "", NULL, NULL, NULL);
    ck_assert_int_ge(nkeys, 3);
    drive(b, nb, try_sweep, 0);
    bases_free(b, nb);
}
END_TEST

/* ---- the scaler's configuration ---- */

/* The range of the PromQL selector in q's text, in seconds, or NAN. */
static double promql_range_s(const char *q)
{
    const char *o = q ? strchr(q, '[') : NULL;
    char *end;
    double v;

    if (o == NULL)
        return NAN;
    v = strtod(o + 1, &end);
    if (strncmp(end, "ms]", 3) == 0)
        return v / 1e3;
    if (strncmp(end, "s]", 2) == 0)
        return v;
    return NAN;
}

/* Why a loaded configuration breaks what the scaler relies on, or NULL. */
static const char *bad_config(const struct scl_config *c)
{
    static char why[240];
    char *q;
    double range;

    if (c->min_replicas < 0 || c->max_replicas < 1 ||
        c->min_replicas > c->max_replicas ||
        c->max_replicas > SCL_REPLICAS_LIMIT || c->gpus_per_replica < 1) {
        snprintf(why, sizeof(why), "replicas [%d, %d] of %d GPUs",
                 c->min_replicas, c->max_replicas, c->gpus_per_replica);
        return why;
    }
    if (!(isfinite(c->interval_s) && c->interval_s >= SCL_INTERVAL_MIN_S &&
          isfinite(c->window_s) && c->window_s >= c->interval_s &&
          isfinite(c->stale_after_s) && c->stale_after_s > 0)) {
        snprintf(why, sizeof(why), "interval %g s, window %g s, stale %g s",
                 c->interval_s, c->window_s, c->stale_after_s);
        return why;
    }
    /* libcurl takes whole milliseconds, and 0 as no time-out. */
    if ((long)(c->http_timeout_s * 1000) < 1 ||
        (long)(c->exec_timeout_s * 1000) < 1) {
        snprintf(why, sizeof(why), "time-outs %g s and %g s", c->http_timeout_s,
                 c->exec_timeout_s);
        return why;
    }
    if (c->source == SCL_SRC_SCRAPE &&
        c->window_s / c->interval_s + 1 > SCL_RING_MAX) {
        snprintf(why, sizeof(why),
                 "window %g s over interval %g s: more than "
                 "the ring's %d",
                 c->window_s, c->interval_s, SCL_RING_MAX);
        return why;
    }
    q = scl_query_text(c, SCL_Q_REQUESTS);
    range = promql_range_s(q);
    if (!(range > 0 && fabs(range - c->window_s) <= 0.5e-3)) {
        snprintf(why, sizeof(why), "window %.17g s reads %s", c->window_s,
                 q ? q : "(null)");
        free(q);
        return why;
    }
    free(q);
    if (!(c->price_usd_per_replica_hour >= 0 &&
          isfinite(c->price_usd_per_replica_hour)) &&
        !isnan(c->price_usd_per_replica_hour)) {
        snprintf(why, sizeof(why), "price %g per replica-hour",
                 c->price_usd_per_replica_hour);
        return why;
    }
    if (!(c->guard.scale_up_cooldown_s >= 0 &&
          isfinite(c->guard.scale_up_cooldown_s) &&
          c->guard.scale_down_cooldown_s >= 0 &&
          isfinite(c->guard.scale_down_cooldown_s) &&
          c->guard.max_step_up >= 1 && c->guard.max_step_down >= 1)) {
        snprintf(why, sizeof(why), "guard cooldowns %g, %g s, steps %d, %d",
                 c->guard.scale_up_cooldown_s, c->guard.scale_down_cooldown_s,
                 c->guard.max_step_up, c->guard.max_step_down);
        return why;
    }
    if (!(c->backoff_initial_s > 0 && c->backoff_max_s > 0 &&
          c->max_attempts >= 1 && isfinite(c->provision_s) &&
          c->provision_s >= 0 && c->min_reporting_share > 0 &&
          c->min_reporting_share <= 1 && c->max_clock_skew_s >= 0 &&
          isfinite(c->max_clock_skew_s))) {
        snprintf(why, sizeof(why),
                 "backoff %g..%g s x%d, provision %g s, "
                 "share %g, skew %g s",
                 c->backoff_initial_s, c->backoff_max_s, c->max_attempts,
                 c->provision_s, c->min_reporting_share, c->max_clock_skew_s);
        return why;
    }
    if (!isnan(c->target_itl_s) &&
        !(c->target_itl_s > 0 && isfinite(c->target_itl_s))) {
        snprintf(why, sizeof(why), "ITL target %g s", c->target_itl_s);
        return why;
    }
    if (!isnan(c->target_ttft_s) &&
        !(c->target_ttft_s > 0 && isfinite(c->target_ttft_s))) {
        snprintf(why, sizeof(why), "TTFT target %g s", c->target_ttft_s);
        return why;
    }
    return NULL;
}

static int try_scaler(const char *label, const char *text, int *refused)
{
    struct scl_config c;
    struct sim_diag d;
    int rc = 0;

    sim_diag_init(&d);
    if (scl_config_parse("scaler.yaml", text, strlen(text), &c, &d) != 0) {
        *refused = 1;
        rc = extremes_positioned(&d, label) ? 0 : -1;
    } else {
        const char *why = bad_config(&c);
        if (why != NULL) {
            fprintf(stderr, "%s: loaded, but %s\n", label, why);
            rc = -1;
        }
        scl_config_fini(&c);
    }
    sim_diag_fini(&d);
    return rc;
}

START_TEST(test_scaler_configs)
{
    static const char *const names[] = {
        "tests/data/extremes/scaler.yaml",
        "tests/data/extremes/scaler-scrape.yaml",
        "tests/data/scaler/good.yaml",
        NULL,
    };
    int nb;
    struct base *b = bases_read(names, &nb);
    const struct pol_entry *hpa = pol_find("hpa");

    nkeys = 0;
    walk(scl_config_rows, "", NULL, NULL, NULL);
    /* policy: the guard's rows (interval_s sets its interval) and the
     * policy's own parameters, as the loader composes them. */
    for (const struct sim_param *r = pol_guard_params_rows; r->key; r++) {
        char path[PATH_LEN];
        if (strcmp(r->key, "interval") == 0 || !numeric(r->type))
            continue;
        snprintf(path, sizeof(path), "policy/%s", r->key);
        add_key(path, r, 0);
    }
    ck_assert_ptr_nonnull(hpa);
    for (const struct sim_param *r = hpa->params; r && r->key; r++) {
        char path[PATH_LEN];
        if (!numeric(r->type))
            continue;
        snprintf(path, sizeof(path), "policy/params/%s", r->key);
        add_key(path, r, 0);
    }
    ck_assert_int_gt(nkeys, 15);
    drive(b, nb, try_scaler, 0);
    bases_free(b, nb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("extremes_configs");
    TCase *tc = tcase_create("configs");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_calibration_profiles);
    tcase_add_test(tc, test_sweep_files);
    tcase_add_test(tc, test_scaler_configs);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
