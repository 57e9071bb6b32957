/* dsec compare SCENARIO --policy A --policy B ... [--replications N]
 * [--seed S] [--db FILE|--no-db] [--json] [--plot FILE.png] [--quiet]:
 * runs every policy on the same elastic scenario, replication r with seed
 * S + r for all of them (common random numbers), and prints means with
 * t intervals and paired differences against the first policy. The
 * scenario is loaded once; each run swaps the policy name and parameters
 * into it and restores the file's own before it is freed. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "models/cluster/cluster.h"
#include "reports/compare.h"
#include "reports/db.h"
#include "reports/gnuplot.h"
#include "scenarios/load.h"
#include "base/errors.h"

#define DEFAULT_REPLICATIONS 5

/* One --policy argument, parsed. */
struct pol_arg {
    const char *arg; /* as given (borrowed from argv) */
    char *name;
    struct cl_policy_param *params;
    int nparams;
};

struct progress {
    int on;
    int policy, npolicies, rep, nreps;
    const char *label;
    struct timespec t0;
    double last_print;
};

static void show_progress(struct progress *p, double frac)
{
    fprintf(stderr, "\r  policy %d/%d (%.30s), replication %d/%d", p->policy,
            p->npolicies, p->label, p->rep, p->nreps);
    if (frac >= 0)
        fprintf(stderr, "  %5.1f%%", 100 * frac);
    fprintf(stderr, "   ");
}

/* Progress on stderr, at most twice a second, only on a terminal. */
static void on_progress(void *ctx, double sim_s, uint64_t done,
                        uint64_t expected)
{
    struct progress *p = ctx;
    double wall = cli_wall_since(&p->t0);

    (void)sim_s;
    if (!p->on || wall - p->last_print < 0.5)
        return;
    p->last_print = wall;
    show_progress(p, expected > 0 ? (double)done / (double)expected : -1);
}

static void pol_arg_fini(struct pol_arg *a)
{
    for (int i = 0; i < a->nparams; i++) {
        free(a->params[i].key);
        free(a->params[i].value);
    }
    free(a->params);
    free(a->name);
}

/* Splits "NAME" or "NAME:key=value,key=value" into a. Returns NULL, or a
 * message (static storage) saying what is wrong; a is then partly filled
 * and still needs pol_arg_fini(). */
static const char *pol_arg_parse(const char *arg, struct pol_arg *a)
{
    const char *colon = strchr(arg, ':');
    const char *p;

    a->arg = arg;
    a->name = colon ? xstrndup(arg, (size_t)(colon - arg)) : xstrdup(arg);
    if (a->name[0] == '\0')
        return "expected NAME or NAME:key=value,...";
    if (colon == NULL)
        return NULL;
    for (p = colon + 1;;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        struct cl_policy_param *pp;

        if (eq == NULL || eq == p)
            return "expected key=value after the colon, pairs separated "
                   "by commas";
        a->params =
            xrealloc(a->params, (size_t)a->nparams + 1, sizeof(*a->params));
        pp = &a->params[a->nparams++];
        pp->key = xstrndup(p, (size_t)(eq - p));
        pp->value = xstrndup(eq + 1, len - (size_t)(eq - p) - 1);
        pp->pos.line = 0;
        pp->pos.col = 0;
        for (int i = 0; i + 1 < a->nparams; i++)
            if (strcmp(a->params[i].key, pp->key) == 0)
                return "a parameter is given twice";
        if (pp->value[0] == '\0')
            return "expected a value after '='";
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    return NULL;
}

/* Points s's policy at a's name and parameters (borrowed by s until
 * restored). */
static void use_policy(struct cl_scenario *s, const struct pol_arg *a)
{
    s->policy.name = a->name;
    s->policy.params = a->params;
    s->policy.nparams = a->nparams;
}

/* Checks the scenario with policy a: prints each error as
 * "dsec compare: --policy ARG: MESSAGE". Returns 0 or -1. */
static int check_policy(struct cl_scenario *s, const struct pol_arg *a)
{
    struct sim_diag diag;
    int rc;

    sim_diag_init(&diag);
    use_policy(s, a);
    rc = cl_scenario_check(s, NULL, &diag);
    for (int i = 0; i < diag.n; i++)
        if (diag.v[i].sev == SIM_SEV_ERROR)
            fprintf(stderr, "dsec compare: --policy %s: %s\n", a->arg,
                    diag.v[i].msg);
    if (rc == 0 && sim_diag_errors(&diag) > 0)
        rc = SIM_EINVAL;
    sim_diag_fini(&diag);
    return rc == 0 ? 0 : -1;
}

static int exit_status(int rc)
{
    return rc == SIM_EPARSE || rc == SIM_EIO || rc == SIM_EINVAL ||
                   rc == SIM_EINFEASIBLE
               ? CLI_EXIT_INPUT
               : CLI_EXIT_INTERNAL;
}

/* Writes every run and then the comparison. Returns an exit status. */
static int store(const char *db_path, struct rpt_db *db,
                 const struct cl_scenario *scn, const char *file,
                 const struct rpt_cmp *cmp, struct cl_results *res, int quiet)
{
    int np = rpt_cmp_npolicies(cmp), nr = rpt_cmp_replications(cmp);
    int64_t *ids = xcalloc((size_t)np * (size_t)nr, sizeof(*ids));
    int64_t cmp_id = 0;
    struct sim_diag diag;
    struct rpt_run_info info = {0};
    char stamp[32];
    int rc = 0;

    cli_utc_stamp(stamp, sizeof(stamp));
    info.started_at = stamp;
    info.scenario_name = scn->name;
    info.scenario_file = file;
    info.scenario_text = scn->text;
    info.program_version = PACKAGE_VERSION;
    sim_diag_init(&diag);
    for (int i = 0; i < np * nr && rc == 0; i++) {
        info.seed = res[i].seed;
        rc = rpt_db_write_run(db, &info, &res[i], &ids[i], &diag);
    }
    if (rc == 0)
        rc = rpt_cmp_db_write(db_path, cmp, stamp, ids, &cmp_id, &diag);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    if (rc == 0 && !quiet)
        printf("results: %s, comparison %lld, runs %lld..%lld\n", db_path,
               (long long)cmp_id, (long long)ids[0],
               (long long)ids[np * nr - 1]);
    free(ids);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

/* Draws the chart of replication 0, or says why there is none. */
static int plot(const char *png, const struct cl_scenario *scn,
                const struct pol_arg *pols, int npols,
                const struct cl_results *res, int nreps)
{
    const char *gnuplot = rpt_gp_find();
    struct rpt_cmp_line *lines;
    struct sim_diag diag;
    double target_ms, slo_ms;
    int rc;

    if (gnuplot == NULL) {
        fprintf(stderr, "dsec compare: note: gnuplot not found: no chart\n");
        return 0;
    }
    lines = xcalloc((size_t)npols, sizeof(*lines));
    for (int p = 0; p < npols; p++) {
        lines[p].label = pols[p].arg;
        lines[p].res = &res[(size_t)p * (size_t)nreps];
    }
    target_ms = scn->cluster.target_latency_ns >= 0
                    ? (double)scn->cluster.target_latency_ns / 1e6
                    : NAN;
    slo_ms = scn->slo.tpot_ns >= 0 ? (double)scn->slo.tpot_ns / 1e6 : NAN;
    sim_diag_init(&diag);
    rc = rpt_cmp_plot(gnuplot, png, lines, npols, target_ms, slo_ms, &diag);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    free(lines);
    return rc;
}

static void print_help(void)
{
    printf("usage: dsec compare %s\n\n%s\n", cli_cmd_compare.usage,
           cli_cmd_compare.summary);
    printf("\nSCENARIO.yaml must be elastic (cluster.min_gpus and "
           "cluster.max_gpus). Every\npolicy runs on it with the same seeds: "
           "replication r uses seed S + r (common\nrandom numbers); the "
           "table gives means with t intervals and paired\ndifferences "
           "against the first policy.\n\noptions:\n"
           "  -p, --policy NAME[:key=value,...]\n"
           "                       a policy to run ('dsec help policies'), "
           "with parameters\n"
           "                       that replace the scenario's; repeat for "
           "each (at least\n"
           "                       one, at most 64)\n"
           "  -r, --replications N runs per policy, 1 to 1000 (default 5)\n"
           "  -s, --seed S         seed of the first replication (default: "
           "the scenario's)\n"
           "  -d, --db FILE        results database (default dsec.db)\n"
           "  --no-db              do not write a database\n"
           "  -j, --json           print one JSON object instead of the "
           "table, no progress\n"
           "  -P, --plot FILE.png  chart replicas and p99 TPOT over time "
           "of replication 0,\n"
           "                       one line per policy (needs gnuplot)\n"
           "  -q, --quiet          print nothing on success (no progress, "
           "no table)\n"
           "\nExit status: 0; 1 for a scenario or database error or a "
           "failed run; 2 for a\nusage error (an unknown policy or "
           "parameter); 3 for an internal error.\n");
}

static int exec_compare(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"policy", required_argument, NULL, 'p'},
        {"replications", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"db", required_argument, NULL, 'd'},
        {"no-db", no_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},
        {"plot", required_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db_path = "dsec.db", *png = NULL, *file;
    int json = 0, quiet = 0, no_db = 0, seed_set = 0, opt, rc;
    int nreps = DEFAULT_REPLICATIONS, npols = 0, status = CLI_EXIT_OK;
    uint64_t seed = 0, v;
    struct pol_arg pols[RPT_CMP_MAX_POLICIES];
    struct cl_scenario scn;
    struct cl_plan plan;
    struct cl_policy saved;
    struct cl_run_opts ropts = {0};
    struct cl_results *res = NULL;
    struct rpt_cmp *cmp = NULL;
    struct rpt_db *db = NULL;
    struct sim_diag diag;
    struct progress prog = {0};
    char *dir_copy = NULL;

    memset(pols, 0, sizeof(pols));
    optind = 1;
    while ((opt = getopt_long(argc, argv, "p:r:s:d:P:jqh", longopts, NULL)) !=
           -1) {
        switch (opt) {
        case 'p': {
            const char *why;
            char *msg;
            if (npols == RPT_CMP_MAX_POLICIES) {
                status = cli_usage_error(&cli_cmd_compare,
                                         "--policy: too many policies");
                goto out;
            }
            why = pol_arg_parse(optarg, &pols[npols++]);
            if (why != NULL) {
                msg = xasprintf("--policy %s: %s", optarg, why);
                status = cli_usage_error(&cli_cmd_compare, msg);
                free(msg);
                goto out;
            }
            break;
        }
        case 'r':
            if (cli_parse_u64(optarg, &v) != 0 || v < 1 ||
                v > RPT_CMP_MAX_REPLICATIONS) {
                status = cli_usage_error(&cli_cmd_compare,
                                         "--replications: expected an "
                                         "integer in [1, 1000]");
                goto out;
            }
            nreps = (int)v;
            break;
        case 's':
            if (cli_parse_u64(optarg, &seed) != 0) {
                status = cli_usage_error(&cli_cmd_compare,
                                         "--seed: expected a non-negative "
                                         "integer");
                goto out;
            }
            seed_set = 1;
            break;
        case 'd':
            db_path = optarg;
            break;
        case 'n':
            no_db = 1;
            break;
        case 'j':
            json = 1;
            break;
        case 'P':
            png = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            print_help();
            status = CLI_EXIT_OK;
            goto out;
        default:
            status = cli_usage_error(&cli_cmd_compare, NULL);
            goto out;
        }
    }
    if (optind != argc - 1) {
        status =
            cli_usage_error(&cli_cmd_compare, "expected one scenario file");
        goto out;
    }
    if (npols == 0) {
        status =
            cli_usage_error(&cli_cmd_compare, "expected at least one --policy");
        goto out;
    }
    file = argv[optind];

    sim_diag_init(&diag);
    if (scn_scenario_open(file, &(struct scn_open_opts){.plan = &plan}, &scn,
                          &diag) != 0) {
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        status = CLI_EXIT_INPUT;
        goto out;
    }
    sim_diag_print(&diag, stderr); /* warnings and notes */
    sim_diag_fini(&diag);
    if (!plan.elastic) {
        fprintf(stderr,
                "dsec compare: %s: not an elastic scenario: set "
                "cluster.min_gpus and cluster.max_gpus (instead of "
                "cluster.replicas) so that a policy can scale it\n",
                file);
        cl_scenario_fini(&scn);
        status = CLI_EXIT_INPUT;
        goto out;
    }
    saved = scn.policy;
    for (int p = 0; p < npols; p++)
        if (check_policy(&scn, &pols[p]) != 0)
            status = CLI_EXIT_USAGE;
    if (status != CLI_EXIT_OK)
        goto done;
    if (!seed_set)
        seed = scn.seed;

    if (!no_db) {
        sim_diag_init(&diag);
        db = rpt_db_open(db_path, &diag);
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        if (db == NULL) {
            status = CLI_EXIT_INPUT;
            goto done;
        }
    }

    cmp = rpt_cmp_new(scn.name, seed, nreps);
    for (int p = 0; p < npols; p++)
        rpt_cmp_add_policy(cmp, pols[p].arg, pols[p].name, pols[p].params,
                           pols[p].nparams);
    res = xcalloc((size_t)npols * (size_t)nreps, sizeof(*res));
    dir_copy = xstrdup(file);
    ropts.base_dir = dirname(dir_copy);
    prog.on = !quiet && !json && isatty(STDERR_FILENO);
    prog.npolicies = npols;
    prog.nreps = nreps;
    ropts.progress = on_progress;
    ropts.progress_ctx = &prog;
    for (int p = 0; p < npols && status == CLI_EXIT_OK; p++) {
        use_policy(&scn, &pols[p]);
        for (int r = 0; r < nreps && status == CLI_EXIT_OK; r++) {
            struct cl_results *out = &res[(size_t)p * (size_t)nreps + r];

            prog.policy = p + 1;
            prog.rep = r + 1;
            prog.label = pols[p].arg;
            if (prog.on)
                show_progress(&prog, -1);
            scn.seed = seed + (uint64_t)r;
            clock_gettime(CLOCK_MONOTONIC, &prog.t0);
            prog.last_print = 0;
            sim_diag_init(&diag);
            rc = cl_run(&scn, &ropts, out, &diag);
            out->wall_s = cli_wall_since(&prog.t0);
            out->events_per_s =
                out->wall_s > 0 ? (double)out->sim_events / out->wall_s : 0;
            if (rc != 0) {
                if (prog.on)
                    fprintf(stderr, "\r%78s\r", "");
                fprintf(stderr,
                        "dsec compare: policy %s, replication %d (seed "
                        "%llu) failed:\n",
                        pols[p].arg, r, (unsigned long long)scn.seed);
                sim_diag_print(&diag, stderr);
                status = exit_status(rc);
            }
            sim_diag_fini(&diag);
            rpt_cmp_record(cmp, p, r, out);
        }
    }
    if (prog.on)
        fprintf(stderr, "\r%78s\r", "");

    if (status == CLI_EXIT_OK && db != NULL)
        status = store(db_path, db, &scn, file, cmp, res, quiet || json);
    if (status == CLI_EXIT_OK && png != NULL &&
        plot(png, &scn, pols, npols, res, nreps) != 0)
        status = CLI_EXIT_INPUT;
    if (status == CLI_EXIT_OK && json) {
        char *s = rpt_cmp_json(cmp, 1);
        printf("%s\n", s);
        free(s);
    } else if (status == CLI_EXIT_OK && !quiet) {
        rpt_cmp_print(stdout, cmp);
        if (png != NULL)
            printf("chart: %s\n", png);
    }

done:
    scn.policy = saved;
    cl_scenario_fini(&scn);
    rpt_db_close(db);
    rpt_cmp_free(cmp);
    if (res != NULL)
        for (int i = 0; i < npols * nreps; i++)
            cl_results_fini(&res[i]);
    free(res);
    free(dir_copy);
out:
    for (int p = 0; p < npols; p++)
        pol_arg_fini(&pols[p]);
    return status;
}

const struct cli_entry cli_cmd_compare = {
    .name = "compare",
    .usage = "SCENARIO.yaml --policy NAME[:key=value,...] [--policy ...] "
             "[--replications N] [--seed S] [--db FILE|--no-db] [--json] "
             "[--plot FILE.png] [--quiet]",
    .summary = "compare scaling policies over replications, with "
               "confidence intervals",
    .exec = exec_compare,
};
