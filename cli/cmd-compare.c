/* dsec compare SCENARIO --policy A --policy B ... [--replications N]
 * [--seed S] [-j N] [--db FILE|--no-db] [--json] [--plot FILE.png]
 * [--quiet]: runs every policy on the same elastic scenario, replication r
 * with seed S + r for all of them (common random numbers), and prints
 * means with t intervals and paired differences against the first policy.
 * The runs go on -j threads, each with its own copy of the scenario into
 * which a run swaps the policy name and parameters (restoring the file's
 * own after). Parse (parse_args), run (prepare, simulate, store, plot),
 * print. */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "models/cluster/cluster.h"
#include "models/cluster/predict.h"
#include "models/policy/policy.h"
#include "reports/compare.h"
#include "reports/db.h"
#include "reports/fmt.h"
#include "reports/gnuplot.h"
#include "reports/summary.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/progress.h"

#define DEFAULT_REPLICATIONS 5

/* One --policy argument, parsed. */
struct pol_arg {
    const char *arg; /* as given (borrowed from argv) */
    char *name;
    struct cl_policy_param *params;
    int nparams;
};

/* The options; opts_fini() frees the policies. */
struct opts {
    const char *file; /* the scenario */
    const char *db_path, *png;
    const char *calibration; /* --calibration, or NULL */
    int json, quiet, no_db, seed_set, nreps, npols;
    int draws;            /* --uncertainty N, 0 for none */
    int jobs;             /* -j N: threads; 0 for the online CPUs */
    struct cli_sets sets; /* --set KEY=VALUE */
    uint64_t seed;
    struct pol_arg pols[RPT_CMP_MAX_POLICIES];
};

/* What the command computed; run_fini() frees it. */
struct run {
    struct cl_scenario scn;
    int loaded;
    struct cl_policy saved; /* the file's own policy, restored at the end */
    struct cl_results *res; /* [npols][nreps] */
    struct cl_pi *pi;       /* [npols] with --uncertainty, else NULL */
    struct rpt_cmp *cmp;
    struct rpt_db *db;
    char *dir_copy;
    const char *base_dir; /* of the scenario: dirname() of dir_copy */
    int64_t cmp_id, first_run, last_run; /* what store() wrote */
};

static void pol_arg_fini(struct pol_arg *a)
{
    rpt_cmp_policy_fini(a->name, a->params, a->nparams);
}

/* Splits "NAME" or "NAME:key=value,key=value" into a
 * (rpt_cmp_policy_parse()). Returns NULL, or a message saying what is
 * wrong; a still needs pol_arg_fini(). */
static const char *pol_arg_parse(const char *arg, struct pol_arg *a)
{
    a->arg = arg;
    return rpt_cmp_policy_parse(arg, &a->name, &a->params, &a->nparams);
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
           "  -j, --jobs N         run N replications at once (default: "
           "the online CPUs);\n"
           "                       the results do not depend on N\n"
           "  --json               print one JSON object instead of the "
           "table, no progress\n"
           "  -P, --plot FILE.png  chart replicas and p99 TPOT over time "
           "of replication 0,\n"
           "                       one line per policy (needs gnuplot)\n"
           "  -q, --quiet          print nothing on success (no progress, "
           "no table)\n"
           "  --calibration PROFILE  use this calibration profile (as dsec "
           "run does)\n"
           "  --uncertainty N      per policy, N draws of the calibration's "
           "uncertain\n"
           "                       parameters at the first replication's "
           "seed: 95 %% prediction\n"
           "                       intervals of cost, SLO attainment and "
           "latencies (the t\n"
           "                       intervals are seed noise only; the same "
           "draws for every\n"
           "                       policy)\n" CLI_SET_HELP
           "\nExit status: 0; 1 for a scenario or database error or a "
           "failed run; 2 for a\nusage error (an unknown policy or "
           "parameter); 3 for an internal error.\n");
}

/* ---- parse ---- */

static void opts_fini(struct opts *o)
{
    for (int p = 0; p < o->npols; p++)
        pol_arg_fini(&o->pols[p]);
}

/* Returns 0, -1 after --help, or a usage error's exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"policy", required_argument, NULL, 'p'},
        {"replications", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"db", required_argument, NULL, 'd'},
        {"no-db", no_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'J'},
        {"jobs", required_argument, NULL, 'j'},
        {"plot", required_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"calibration", required_argument, NULL, 'C'},
        {"uncertainty", required_argument, NULL, 'U'},
        {"set", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, status;
    uint64_t v;

    o->db_path = "dsec.db";
    o->nreps = DEFAULT_REPLICATIONS;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "p:r:s:d:P:j:qh", longopts, NULL)) !=
           -1) {
        switch (opt) {
        case 'p': {
            const char *why;
            if (o->npols == RPT_CMP_MAX_POLICIES)
                return cli_usage_error(&cli_cmd_compare,
                                       "--policy: too many policies");
            why = pol_arg_parse(optarg, &o->pols[o->npols++]);
            if (why != NULL) {
                char *msg = xasprintf("--policy %s: %s", optarg, why);

                status = cli_usage_error(&cli_cmd_compare, msg);
                free(msg);
                return status;
            }
            break;
        }
        case 'S':
            if (cli_set_add(&o->sets, optarg) != 0)
                return cli_usage_error(&cli_cmd_compare, CLI_SET_USAGE);
            break;
        case 'r':
            if (cli_parse_u64(optarg, &v) != 0 || v < 1 ||
                v > RPT_CMP_MAX_REPLICATIONS)
                return cli_usage_error(&cli_cmd_compare,
                                       "--replications: expected an "
                                       "integer in [1, 1000]");
            o->nreps = (int)v;
            break;
        case 's':
            if (cli_parse_seed(optarg, &o->seed) != 0)
                return cli_usage_error(&cli_cmd_compare,
                                       "--seed: expected an integer from 0 "
                                       "to 9223372036854775807");
            o->seed_set = 1;
            break;
        case 'd':
            o->db_path = optarg;
            break;
        case 'n':
            o->no_db = 1;
            break;
        case 'J':
            o->json = 1;
            break;
        case 'j':
            if (cli_parse_u64(optarg, &v) != 0 || v < 1 || v > 4096)
                return cli_usage_error(&cli_cmd_compare,
                                       "--jobs: expected a number of "
                                       "threads, 1 to 4096");
            o->jobs = (int)v;
            break;
        case 'P':
            o->png = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'C':
            if (optarg[0] == '\0')
                return cli_usage_error(&cli_cmd_compare,
                                       "--calibration: expected a profile "
                                       "file");
            o->calibration = optarg;
            break;
        case 'U':
            if (cli_parse_u64(optarg, &v) != 0 || v < 2 || v > CL_PI_MAX_DRAWS)
                return cli_usage_error(&cli_cmd_compare,
                                       "--uncertainty: expected a number of "
                                       "draws, 2 to 10000");
            o->draws = (int)v;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return cli_usage_error(&cli_cmd_compare, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_compare, "expected one scenario file");
    if (o->npols == 0)
        return cli_usage_error(&cli_cmd_compare,
                               "expected at least one --policy");
    o->file = argv[optind];
    if (o->jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = cpus < 1 ? 1 : cpus > 4096 ? 4096 : (int)cpus;
    }
    return 0;
}

/* ---- run ---- */

/* Points s's policy at a's name and parameters (borrowed by s until
 * restored). The file's plug-in stays the policy only under its own name. */
static void use_policy(struct cl_scenario *s, const struct pol_arg *a)
{
    if (s->policy.entry != NULL && strcasecmp(s->policy.entry->name, a->name))
        s->policy.entry = NULL;
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

/* Loads the scenario, checks that it is elastic and that every policy
 * goes with it, and opens the database. Returns an exit status. */
static int prepare(struct opts *o, struct run *x)
{
    struct cl_plan plan;
    struct sim_diag diag;
    int status = CLI_EXIT_OK;

    if (cli_load_scenario(o->file, &o->sets, &x->scn, &plan) != 0)
        return CLI_EXIT_INPUT;
    x->loaded = 1;
    x->saved = x->scn.policy;
    if (!plan.elastic) {
        fprintf(stderr,
                "dsec compare: %s: not an elastic scenario: set "
                "cluster.min_gpus and cluster.max_gpus (instead of "
                "cluster.replicas) so that a policy can scale it\n",
                o->file);
        return CLI_EXIT_INPUT;
    }
    for (int p = 0; p < o->npols; p++)
        if (check_policy(&x->scn, &o->pols[p]) != 0)
            status = CLI_EXIT_USAGE;
    if (status != CLI_EXIT_OK)
        return status;
    if (!o->seed_set)
        o->seed = x->scn.seed;
    if (o->calibration != NULL &&
        cli_apply_calibration("compare", &x->scn, o->calibration) != 0)
        return CLI_EXIT_INPUT;
    if (!o->no_db) {
        sim_diag_init(&diag);
        x->db = rpt_db_open(o->db_path, &diag);
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        if (x->db == NULL)
            return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

/* ---- the runs, on -j threads ---- */

/* One unit of work: replication rep of policy pol, or with rep -1 the
 * --uncertainty draws of policy pol. */
struct job {
    int pol, rep;
    int rc;
    int started, finished;
    double frac; /* of the run simulated, for the progress line */
    struct sim_diag diag;
    struct runs *pool;
};

/* The work shared by the threads: the next job to start under mu, and
 * the progress line (drawn under mu). */
struct runs {
    const struct opts *o;
    struct run *x;
    struct job *jobs;
    int njobs, next, done, stop;
    pthread_mutex_t mu;
    struct sim_progress line; /* a terminal's: in place */
    FILE *log;                /* off a terminal: a line per finished run */
};

/* The progress line, under mu: runs finished, running, and the fraction
 * of all runs simulated. */
static void show_progress(struct runs *w)
{
    double sum = 0;
    int running = 0;

    for (int i = 0; i < w->njobs; i++) {
        const struct job *j = &w->jobs[i];
        if (j->finished)
            sum += 1;
        else if (j->started) {
            sum += j->frac;
            running++;
        }
    }
    sim_progress_draw(
        &w->line, "  dsec compare: %d of %d runs done, %d running  %5.1f%%   ",
        w->done, w->njobs, running, 100 * sum / w->njobs);
}

/* A run's progress callback: at most twice a second, on a terminal. */
static void on_progress(void *ctx, double sim_s, uint64_t done,
                        uint64_t expected)
{
    struct job *j = ctx;
    struct runs *w = j->pool;

    (void)sim_s;
    pthread_mutex_lock(&w->mu);
    j->frac = expected > 0 ? (double)done / (double)expected : 0;
    if (j->frac > 1)
        j->frac = 1;
    if (sim_progress_due(&w->line))
        show_progress(w);
    pthread_mutex_unlock(&w->mu);
}

/* A thread's own copy of the scenario, loaded as prepare() loaded it but
 * silently (prepare() printed its warnings once). Returns 0 or -1 with
 * the diagnostics in d. */
static int load_copy(const struct opts *o, struct cl_scenario *scn,
                     struct sim_diag *d)
{
    if (cli_load_scenario_quiet(o->file, &o->sets, scn, NULL, d) != 0)
        return -1;
    if (o->calibration != NULL &&
        cli_apply_calibration("compare", scn, o->calibration) != 0) {
        cl_scenario_fini(scn);
        return -1;
    }
    return 0;
}

/* Runs job j on scn (the thread's copy): a replication into x->res, or the
 * policy's uncertainty draws into x->pi. */
static void run_job(struct runs *w, struct cl_scenario *scn, struct job *j)
{
    const struct opts *o = w->o;
    struct run *x = w->x;
    struct cl_run_opts ro = {0};
    const struct cl_policy file_policy = scn->policy;

    ro.base_dir = x->base_dir;
    use_policy(scn, &o->pols[j->pol]);
    if (j->rep >= 0) {
        struct cl_results *out =
            &x->res[(size_t)j->pol * (size_t)o->nreps + (size_t)j->rep];
        struct sim_progress clock;

        sim_progress_start(&clock, NULL, 0, 0);
        ro.progress = on_progress;
        ro.progress_ctx = j;
        scn->seed = o->seed + (uint64_t)j->rep;
        j->rc = cl_run(scn, &ro, out, &j->diag);
        out->wall_s = sim_progress_wall_s(&clock);
        out->events_per_s =
            out->wall_s > 0 ? (double)out->sim_events / out->wall_s : 0;
    } else {
        /* Every policy on the first replication's seed, so all see the
         * same parameter draws (cl_predict seeds them from it). */
        scn->seed = o->seed;
        j->rc = cl_predict(scn, &ro, o->draws, 0.95, NULL, NULL, &x->pi[j->pol],
                           &j->diag);
    }
    scn->policy = file_policy;
}

/* The label of job j for messages: "policy hpa, replication 2 (seed 44)"
 * or "policy hpa, uncertainty (20 draws)". */
static void job_label(const struct runs *w, const struct job *j, char *buf,
                      size_t len)
{
    if (j->rep >= 0)
        snprintf(buf, len, "policy %s, replication %d (seed %llu)",
                 w->o->pols[j->pol].arg, j->rep,
                 (unsigned long long)(w->o->seed + (uint64_t)j->rep));
    else
        snprintf(buf, len, "policy %s, uncertainty (%d draws)",
                 w->o->pols[j->pol].arg, w->o->draws);
}

static void *worker(void *arg)
{
    struct runs *w = arg;
    struct cl_scenario scn;
    struct sim_diag d;
    int loaded;

    sim_diag_init(&d);
    loaded = load_copy(w->o, &scn, &d) == 0;
    for (;;) {
        struct job *j = NULL;

        pthread_mutex_lock(&w->mu);
        if (!w->stop && w->next < w->njobs) {
            j = &w->jobs[w->next++];
            j->started = 1;
        }
        pthread_mutex_unlock(&w->mu);
        if (j == NULL)
            break;
        if (loaded)
            run_job(w, &scn, j);
        else {
            /* The file changed under us: its diagnostics, on every job. */
            for (int i = 0; i < d.n; i++)
                sim_diag_add(&j->diag, d.v[i].sev, d.v[i].file, d.v[i].line,
                             d.v[i].col, "%s", d.v[i].msg);
            j->rc = SIM_EINVAL;
        }
        pthread_mutex_lock(&w->mu);
        j->finished = 1;
        w->done++;
        if (j->rc != 0)
            w->stop = 1;
        if (w->log != NULL && j->rc == 0) {
            char label[160];
            job_label(w, j, label, sizeof(label));
            fprintf(w->log, "dsec compare: %d of %d done: %s\n", w->done,
                    w->njobs, label);
            fflush(w->log);
        } else if (w->line.fp != NULL)
            show_progress(w);
        pthread_mutex_unlock(&w->mu);
    }
    if (loaded)
        cl_scenario_fini(&scn);
    sim_diag_fini(&d);
    return NULL;
}

/* Runs every policy's replications, then with --uncertainty each policy's
 * draws, on o->jobs threads; after a run fails no new one starts, and the
 * failed runs' diagnostics go to stderr. The results do not depend on the
 * number of threads: every run has its own copy of the scenario and its
 * seed. Returns an exit status. */
static int simulate(const struct opts *o, struct run *x)
{
    struct runs w = {.o = o, .x = x};
    int nreps = o->nreps, status = CLI_EXIT_OK;
    int terminal = !o->quiet && !o->json && isatty(STDERR_FILENO);
    pthread_t *t;
    int nt;

    x->cmp = rpt_cmp_new(x->scn.name, o->seed, nreps);
    for (int p = 0; p < o->npols; p++)
        rpt_cmp_add_policy(x->cmp, o->pols[p].arg, o->pols[p].name,
                           o->pols[p].params, o->pols[p].nparams);
    x->res = xcalloc((size_t)o->npols * (size_t)nreps, sizeof(*x->res));
    if (o->draws > 0)
        x->pi = xcalloc((size_t)o->npols, sizeof(*x->pi));
    x->dir_copy = xstrdup(o->file);
    x->base_dir = dirname(x->dir_copy);
    w.njobs = o->npols * nreps + (o->draws > 0 ? o->npols : 0);
    w.jobs = xcalloc((size_t)w.njobs, sizeof(*w.jobs));
    for (int i = 0; i < w.njobs; i++) {
        struct job *j = &w.jobs[i];
        j->pol = i < o->npols * nreps ? i / nreps : i - o->npols * nreps;
        j->rep = i < o->npols * nreps ? i % nreps : -1;
        j->pool = &w;
        sim_diag_init(&j->diag);
    }
    pthread_mutex_init(&w.mu, NULL);
    sim_progress_start(&w.line, terminal ? stderr : NULL, 1, 0.5);
    w.log = !o->quiet && !o->json && !terminal ? stderr : NULL;
    nt = o->jobs > 0 ? o->jobs : 1;
    if (nt > w.njobs)
        nt = w.njobs;
    if (nt <= 1)
        worker(&w);
    else {
        t = xcalloc((size_t)nt, sizeof(*t));
        for (int i = 0; i < nt; i++)
            if (pthread_create(&t[i], NULL, worker, &w) != 0)
                sim_fatal("dsec compare: cannot start a thread");
        for (int i = 0; i < nt; i++)
            pthread_join(t[i], NULL);
        free(t);
    }
    sim_progress_clear(&w.line);
    pthread_mutex_destroy(&w.mu);
    for (int i = 0; i < w.njobs; i++) {
        struct job *j = &w.jobs[i];
        if (j->finished && j->rc != 0) {
            char label[160];
            job_label(&w, j, label, sizeof(label));
            fprintf(stderr, "dsec compare: %s failed:\n", label);
            sim_diag_print(&j->diag, stderr);
            if (status == CLI_EXIT_OK)
                status = cli_exit_status(j->rc);
        }
        if (j->finished && j->rep >= 0)
            rpt_cmp_record(
                x->cmp, j->pol, j->rep,
                &x->res[(size_t)j->pol * (size_t)nreps + (size_t)j->rep]);
        sim_diag_fini(&j->diag);
    }
    free(w.jobs);
    return status;
}

/* Writes every run and then the comparison. Returns an exit status. */
static int store(const struct opts *o, struct run *x)
{
    int np = rpt_cmp_npolicies(x->cmp), nr = rpt_cmp_replications(x->cmp);
    int64_t *ids = xcalloc((size_t)np * (size_t)nr, sizeof(*ids));
    struct sim_diag diag;
    struct rpt_run_info info = {0};
    char stamp[32];
    int rc = 0;

    cli_utc_stamp(stamp, sizeof(stamp));
    info.started_at = stamp;
    info.scenario_name = x->scn.name;
    info.scenario_file = o->file;
    info.scenario_text = x->scn.text;
    info.program_version = PACKAGE_VERSION;
    sim_diag_init(&diag);
    for (int i = 0; i < np * nr && rc == 0; i++) {
        info.seed = x->res[i].seed;
        /* A policy's intervals go with its first replication's run. */
        info.pi = x->pi != NULL && i % nr == 0 ? &x->pi[i / nr] : NULL;
        rc = rpt_db_write_run(x->db, &info, &x->res[i], &ids[i], &diag);
    }
    if (rc == 0)
        rc =
            rpt_cmp_db_write(o->db_path, x->cmp, stamp, ids, &x->cmp_id, &diag);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    x->first_run = ids[0];
    x->last_run = ids[np * nr - 1];
    free(ids);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

/* Draws the chart of replication 0 that --plot asked for; a chart that
 * cannot be drawn (no gnuplot, or gnuplot fails) is an error. Returns an
 * exit status. */
static int plot(const struct opts *o, const struct run *x)
{
    struct rpt_cmp_line *lines = xcalloc((size_t)o->npols, sizeof(*lines));
    const struct cl_scenario *scn = &x->scn;
    struct sim_diag diag;
    double target_ms, slo_ms;
    int rc;

    for (int p = 0; p < o->npols; p++) {
        lines[p].label = o->pols[p].arg;
        lines[p].res = &x->res[(size_t)p * (size_t)o->nreps];
    }
    target_ms = scn->cluster.target_latency_ns >= 0
                    ? (double)scn->cluster.target_latency_ns / 1e6
                    : NAN;
    slo_ms = scn->slo.tpot_ns >= 0 ? (double)scn->slo.tpot_ns / 1e6 : NAN;
    sim_diag_init(&diag);
    rc = rpt_cmp_plot(rpt_gp_find(), o->png, lines, o->npols, target_ms, slo_ms,
                      &diag);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    free(lines);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

static void run_fini(const struct opts *o, struct run *x)
{
    if (x->loaded) {
        x->scn.policy = x->saved;
        cl_scenario_fini(&x->scn);
    }
    rpt_db_close(x->db);
    rpt_cmp_free(x->cmp);
    if (x->res != NULL)
        for (int i = 0; i < o->npols * o->nreps; i++)
            cl_results_fini(&x->res[i]);
    free(x->res);
    free(x->pi);
    free(x->dir_copy);
}

/* ---- print ---- */

/* The intervals of --uncertainty, one row per policy. */
static void print_pi(const struct opts *o, const struct run *x)
{
    static const enum cl_pi_metric cols[] = {
        CL_PI_COST, CL_PI_SLO, CL_PI_TTFT_P99, CL_PI_TPOT_P99, CL_PI_E2E_MEAN};

    printf("\nprediction intervals (95 %%, %d draws of the calibration's "
           "%d uncertain parameters%s, seed %llu;\nthe t intervals above "
           "are seed noise, these the calibration's uncertainty; the same "
           "draws for every policy):\n",
           x->pi[0].n, x->pi[0].nparams,
           x->pi[0].structural ? " and its structural error" : "",
           (unsigned long long)o->seed);
    printf("  %-24s", "policy");
    for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
        printf(" %24s", cl_pi_text[cols[c]]);
    printf("\n");
    for (int p = 0; p < o->npols; p++) {
        printf("  %-24.24s", o->pols[p].arg);
        for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
            char cell[64];
            double lo = x->pi[p].lo[cols[c]], hi = x->pi[p].hi[cols[c]];
            if (isnan(lo))
                snprintf(cell, sizeof(cell), "n/a");
            else if (cols[c] == CL_PI_SLO)
                snprintf(cell, sizeof(cell), "[%.4f, %.4f]", lo, hi);
            else
                snprintf(cell, sizeof(cell), "[%.4g, %.4g]", lo, hi);
            printf(" %24s", cell);
        }
        printf("\n");
    }
}

static void print(const struct opts *o, const struct run *x)
{
    if (o->json) {
        char *s = rpt_cmp_json(x->cmp, 1);
        json_object *obj = x->pi != NULL ? json_tokener_parse(s) : NULL;

        if (obj != NULL) {
            json_object *a = json_object_new_array();
            for (int p = 0; p < o->npols; p++) {
                json_object *e = rpt_pi_json(&x->pi[p]);
                json_object_object_add(e, "policy",
                                       json_object_new_string(o->pols[p].arg));
                json_object_array_add(a, e);
            }
            json_object_object_add(obj, "prediction_intervals", a);
            rpt_json_print(stdout, obj);
            json_object_put(obj);
        } else {
            printf("%s\n", s);
        }
        free(s);
        return;
    }
    rpt_cmp_print(stdout, x->cmp);
    if (x->pi != NULL)
        print_pi(o, x);
    if (o->png != NULL)
        printf("chart: %s\n", o->png);
}

static int exec_compare(int argc, char **argv)
{
    struct opts o = {0};
    struct run x = {0};
    int status = parse_args(argc, argv, &o);

    if (status == CLI_EXIT_OK)
        status = prepare(&o, &x);
    if (status == CLI_EXIT_OK)
        status = simulate(&o, &x);
    if (status == CLI_EXIT_OK && x.db != NULL) {
        status = store(&o, &x);
        if (status == CLI_EXIT_OK && !o.quiet && !o.json)
            printf("results: %s, comparison %lld, runs %lld..%lld\n", o.db_path,
                   (long long)x.cmp_id, (long long)x.first_run,
                   (long long)x.last_run);
    }
    if (status == CLI_EXIT_OK && o.png != NULL)
        status = plot(&o, &x);
    if (status == CLI_EXIT_OK && (o.json || !o.quiet))
        print(&o, &x);
    run_fini(&o, &x);
    opts_fini(&o);
    return status < 0 ? CLI_EXIT_OK : status;
}

const struct cli_entry cli_cmd_compare = {
    .name = "compare",
    .usage =
        "SCENARIO.yaml --policy NAME[:key=value,...] [--policy ...] "
        "[--replications N] [--seed S] [-j N] [--db FILE|--no-db] [--json] "
        "[--plot FILE.png] [--quiet] [--calibration PROFILE] "
        "[--uncertainty N] [--set KEY=VALUE]...",
    .summary = "compare scaling policies over replications, with "
               "confidence intervals",
    .exec = exec_compare,
};
