/*
 * The extremes property test (docs/security.md, "Inputs"): every numeric
 * key of the scenario schema, found by walking its rows (scn_schema and the
 * section rows it points at), is set in turn to the ends of its range, 0,
 * negatives, tiny and huge numbers, NaN and +-Inf, on the first base
 * scenario of tests/data/extremes where the key takes an ordinary value.
 * The key is set as a sweep's `set:` does (swp_spec_load_string()), so the
 * path, the units and the checks are exactly those of `dsec run`. Each
 * variant must end one of two ways:
 *   - refused, with at least one error at a position (line and column);
 *   - run, in a child process, to the end or to a clear error, within a
 *     CPU-time and memory budget, with results that are not absurd (no
 *     negative or infinite time, cost or count).
 * A key that no base can take is listed and fails the test: a new key
 * needs a base that reaches it. The budget is a hang and leak guard, far
 * above any variant's need (the whole test runs in seconds), not a speed
 * check.
 */
#define _DEFAULT_SOURCE /* wait4 */

#include <check.h>
#include <errno.h>
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

#include "models/cluster/cluster.h"
#include "models/cluster/results.h"
#include "scenarios/load.h"
#include "scenarios/schema.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sweep/spec.h"
#include "tests/extremes.h"

/* CPU seconds and resident megabytes a run may use. */
#define BUDGET_CPU_S 10
#define BUDGET_RSS_MB 3072

#define MAX_KEYS 512

static const char *const bases[] = {
    "serve.yaml",
    "dist.yaml",
    "dist2.yaml",
    "dist3.yaml",
    "abstract.yaml",
    "abstract-cv.yaml",
    "pools.yaml",
    "pools2.yaml",
    "borrow.yaml",
    "pd.yaml",
    "moe.yaml",
    "trace.yaml",
    "iperf.yaml",
    "iperf-random.yaml",
    "bench.yaml",
    "bench-lengths.yaml",
    "bench-lengths2.yaml",
    "bench-fixed.yaml",
    "train.yaml",
    "train-interval.yaml",
    "gpus.yaml",
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

struct key {
    char path[160];
    const struct sim_param *row;
};

static struct key keys[MAX_KEYS];
static int nkeys;

static int numeric(enum sim_param_type t)
{
    return t == SIM_PT_INT || t == SIM_PT_INT64 || t == SIM_PT_UINT64 ||
           t == SIM_PT_DOUBLE || t == SIM_PT_DURATION;
}

/* Collects the numeric leaves under rows into keys[]; a list's element is
 * its first, [0]. */
static void walk(const struct sim_param *rows, const char *prefix)
{
    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        char path[160];
        if (p->key[0] == '\0')
            snprintf(path, sizeof(path), "%s", prefix);
        else if (prefix[0] == '\0')
            snprintf(path, sizeof(path), "%s", p->key);
        else
            snprintf(path, sizeof(path), "%s.%s", prefix, p->key);
        if (p->type == SIM_PT_SECTION && p->sub != NULL) {
            walk(p->sub, path);
        } else if (p->type == SIM_PT_LIST && p->sub != NULL) {
            char el[170];
            snprintf(el, sizeof(el), "%s[0]", path);
            walk(p->sub, el);
        } else if (numeric(p->type) && nkeys < MAX_KEYS) {
            snprintf(keys[nkeys].path, sizeof(keys[nkeys].path), "%s", path);
            keys[nkeys].row = p;
            nkeys++;
        }
    }
}

/* Keys that set the amount of work: requests, their rate, the time they
 * arrive over, replicas. At the far end of their ranges a run is long by
 * design (it shows progress and holds memory in proportion); they are
 * driven to 1000 times an ordinary value instead, and to every other
 * extreme as the rest. */
static const char *const work_keys[] = {
    "workload.synthetic.arrival.rate_per_s",
    "workload.synthetic.arrival.steps[0].multiplier",
    "workload.synthetic.arrival.diurnal.period",
    "workload.synthetic.requests",
    "workload.synthetic.duration",
    "workload.synthetic.sessions.turns.",
    "workload.trace.",
    "workload.inference_perf.data.shared_prefix.num_",
    "workload.inference_perf.load.stages[0].",
    "workload.vllm_bench.num_prompts",
    "workload.vllm_bench.request_rate",
    "workload.client.users",
    "cluster.replicas",
    "training.duration",
};

static int work_key(const char *path)
{
    for (size_t i = 0; i < sizeof(work_keys) / sizeof(work_keys[0]); i++)
        if (strncmp(path, work_keys[i], strlen(work_keys[i])) == 0)
            return 1;
    return 0;
}

static char *base_path(const char *name)
{
    const char *dir = getenv("top_srcdir");
    return xasprintf("%s/tests/data/extremes/%s", dir ? dir : ".", name);
}

static struct swp_spec *load_variant(const char *base, const char *path,
                                     const char *value, struct sim_diag *d)
{
    char *text = xasprintf("base: %s\nset:\n  %s: %s\n", base, path, value);
    struct swp_spec *s =
        swp_spec_load_string("extremes.yaml", text, strlen(text), d);
    free(text);
    return s;
}

/* Whether the variant loads, feasible, with no error. */
static int loads(const char *base, const char *path, const char *value)
{
    struct sim_diag d;
    struct swp_spec *s;
    int ok;

    sim_diag_init(&d);
    s = load_variant(base, path, value, &d);
    ok = s != NULL && s->npoints == 1 && !s->points[0].infeasible &&
         sim_diag_errors(&d) == 0;
    if (s != NULL)
        swp_spec_free(s);
    sim_diag_fini(&d);
    return ok;
}

/* The child: loads and runs the point; exit 0 ran (or stopped with a clear
 * error at a position), 2 absurd results, 3 an error without a position,
 * 4 the load failed here though it loaded in the parent. */
static void child(const struct swp_spec *s, const char *label)
{
    struct cl_scenario scn;
    struct cl_results res;
    struct cl_run_opts ro = {.base_dir = s->base_dir};
    struct sim_diag d;
    const char *why;
    int rc;

    extremes_child_budget(BUDGET_CPU_S);
    sim_diag_init(&d);
    if (scn_scenario_open(
            s->scenario_file,
            &(struct scn_open_opts){.text = s->points[0].text,
                                    .len = strlen(s->points[0].text)},
            &scn, &d) != 0) {
        sim_diag_print(&d, stderr);
        _exit(4);
    }
    rc = cl_run(&scn, &ro, &res, &d);
    if (rc != 0) {
        int pos = 0;
        for (int i = 0; i < d.n; i++)
            pos |= d.v[i].sev == SIM_SEV_ERROR && d.v[i].line > 0;
        if (!pos) {
            fprintf(stderr, "%s: run failed (%d) without a positioned error\n",
                    label, rc);
            sim_diag_print(&d, stderr);
            _exit(3);
        }
        _exit(0);
    }
    why = extremes_absurd(&res, scn.server.kind == CL_SRV_LLM);
    if (why != NULL) {
        fprintf(stderr, "%s: absurd result: %s\n", label, why);
        _exit(2);
    }
    _exit(0);
}

/* Runs the loaded variant in a child; 0 when it behaved. */
static int run_variant(const struct swp_spec *s, const char *label)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child(s, label);
    return extremes_wait(pid, label, BUDGET_RSS_MB);
}

/* Tries one extreme value; 0 when it is refused with a position or runs
 * sanely. */
static int try_value(const char *base, const struct key *k, const char *v,
                     int *refused)
{
    const char *slash = strrchr(base, '/');
    char *label = xasprintf("%s: %s: %s", slash ? slash + 1 : base, k->path, v);
    struct sim_diag d;
    struct swp_spec *s;
    int rc = 0;

    sim_diag_init(&d);
    s = load_variant(base, k->path, v, &d);
    if (s == NULL || sim_diag_errors(&d) > 0) {
        if (!extremes_positioned(&d, label))
            rc = -1;
        *refused = 1;
    } else if (s->npoints != 1) {
        fprintf(stderr, "%s: %zu points\n", label, s->npoints);
        rc = -1;
    } else if (s->points[0].infeasible) {
        *refused = 1; /* infeasible, with its reason: a clear error */
    } else {
        rc = run_variant(s, label);
    }
    if (s != NULL)
        swp_spec_free(s);
    sim_diag_fini(&d);
    free(label);
    return rc;
}

START_TEST(test_every_numeric_key)
{
    char *paths[NBASES];
    int bad = 0, uncovered = 0, tried = 0, refused = 0;

    for (size_t b = 0; b < NBASES; b++)
        paths[b] = base_path(bases[b]);
    nkeys = 0;
    walk(scn_schema, "");
    ck_assert_int_gt(nkeys, 100);
    for (int i = 0; i < nkeys; i++) {
        const struct key *k = &keys[i];
        const char *base = NULL;
        char probe[64];
        char vals[32][64];
        int nv = 0;

        /* An ordinary value: the default, else 1 or a few others. */
        const char *cands[] = {k->row->def, "1",    "2",   "8",    "0.5",  "60",
                               "3600",      "1024", "1e9", "1e11", "1e12", "0"};
        for (size_t b = 0; b < NBASES && base == NULL; b++)
            for (size_t c = 0; c < sizeof(cands) / sizeof(cands[0]); c++) {
                if (cands[c] == NULL || strcmp(cands[c], "inf") == 0)
                    continue;
                if (loads(paths[b], k->path, cands[c])) {
                    base = paths[b];
                    snprintf(probe, sizeof(probe), "%s", cands[c]);
                    break;
                }
            }
        if (base == NULL) {
            fprintf(stderr, "no base takes %s\n", k->path);
            uncovered++;
            continue;
        }
        for (size_t f = 0; f < EXTREMES_NFIXED; f++)
            if (!work_key(k->path) || extremes_fixed[f][0] == '-' ||
                strtod(extremes_fixed[f], NULL) < 1e6 ||
                extremes_fixed[f][0] == '.')
                snprintf(vals[nv++], 64, "%s", extremes_fixed[f]);
        extremes_add_value(vals, &nv, k->row->min);
        extremes_add_value(vals, &nv, nextafter(k->row->min, -INFINITY));
        if (work_key(k->path)) {
            extremes_add_value(vals, &nv, 1000 * strtod(probe, NULL));
        } else {
            extremes_add_value(vals, &nv, k->row->max);
            extremes_add_value(vals, &nv, nextafter(k->row->max, INFINITY));
        }
        for (int v = 0; v < nv; v++) {
            int r = 0;
            tried++;
            if (try_value(base, k, vals[v], &r) != 0)
                bad++;
            refused += r;
        }
    }
    fprintf(stderr,
            "%d numeric keys, %d uncovered; %d variants, %d refused, %d ran, "
            "%d misbehaved\n",
            nkeys, uncovered, tried, refused, tried - refused, bad);
    for (size_t b = 0; b < NBASES; b++)
        free(paths[b]);
    ck_assert_int_eq(uncovered, 0);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("extremes");
    TCase *tc = tcase_create("schema");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_every_numeric_key);
    tcase_set_timeout(tc, 1800);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
