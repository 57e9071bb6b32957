/* dsec run SCENARIO [--seed N] [--db FILE|--no-db] [--json] [--quiet]
 * [--report DIR] [--trace FILE] [--requests FILE] [--calibration PROFILE]
 * [--uncertainty N]: load, check, simulate, store
 * in SQLite (one transaction), print, and with --report write the cost report
 * (dsec report) into DIR. --trace replaces workload.trace.path; a relative FILE
 * is taken from the current directory, not the scenario's. --requests
 * streams one row per request to FILE (CSV or JSON Lines). Parse
 * (parse_args), run (load, simulate, store, write_report), print. */
#include <getopt.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "models/cluster/cluster.h"
#include "models/cluster/predict.h"
#include "models/cluster/training.h"
#include "reports/db.h"
#include "reports/fmt.h"
#include "reports/requests.h"
#include "reports/summary.h"
#include "reports/train-report.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/progress.h"

/* The options. */
struct opts {
    const char *file; /* the scenario */
    const char *db_path, *report_dir, *trace_path, *requests_path;
    const char *calibration; /* --calibration, or NULL */
    int json, quiet, no_db, seed_set, series_replicas, no_ff;
    int draws;            /* --uncertainty N, 0 for none */
    struct cli_sets sets; /* --set KEY=VALUE */
    uint64_t seed;
};

/* What the command computed; run_fini() frees it. */
struct run {
    struct cl_scenario scn;
    struct cl_results res;
    struct cl_training_report trep; /* the training: section's job */
    char *dir_copy;                 /* holds ropts.base_dir */
    struct cl_run_opts ropts;
    int64_t run_id;
    struct cl_pi pi; /* --uncertainty */
};

/* Progress on stderr, at most twice a second, only on a terminal. */
static void on_progress(void *ctx, double sim_s, uint64_t done,
                        uint64_t expected)
{
    struct sim_progress *p = ctx;
    double wall, frac, eta;

    if (!sim_progress_due(p))
        return;
    wall = sim_progress_wall_s(p);
    if (expected == 0) {
        sim_progress_draw(p, "%s%llu requests  sim %.0f s  wall %.1f s   ",
                          p->in_place ? "  " : "dsec run: ",
                          (unsigned long long)done, sim_s, wall);
        return;
    }
    frac = (double)done / (double)expected;
    eta = frac > 0 ? wall * (1 - frac) / frac : 0;
    sim_progress_draw(p,
                      "%s%5.1f%%  %llu/%llu requests  sim %.0f s  "
                      "wall %.1f s  eta %.0f s   ",
                      p->in_place ? "  " : "dsec run: ", 100 * frac,
                      (unsigned long long)done, (unsigned long long)expected,
                      sim_s, wall, eta);
}

/* Starts p for o: on a terminal a line redrawn twice a second; off one
 * (a log) a line every 10 s of wall-clock time; none with --quiet or
 * --json. */
static void progress_start(struct sim_progress *p, const struct opts *o)
{
    int tty = isatty(STDERR_FILENO);

    sim_progress_start(p, o->quiet || o->json ? NULL : stderr, tty,
                       tty ? 0.5 : 10);
}

static void print_help(void)
{
    printf("usage: dsec run %s\n\n%s\n", cli_cmd_run.usage,
           cli_cmd_run.summary);
    printf("\nSCENARIO.yaml is checked as by 'dsec validate' ('dsec help "
           "scenario' lists\nits keys), then simulated; the run is stored "
           "in the results database in one\ntransaction.\n\noptions:\n"
           "  -s, --seed N     seed of the random streams (default: the "
           "scenario's seed)\n"
           "  -d, --db FILE    results database (default dsec.db)\n"
           "  --no-db          do not write a database\n"
           "  --json           print one JSON object instead of the table, "
           "and no progress\n"
           "  --series-replicas  with --json: add the per-replica time "
           "series\n"
           "                   (replica_series, docs/results.md; one object "
           "per replica\n"
           "                   and interval, so it can be large)\n"
           "  -q, --quiet      print nothing on success (no progress, no "
           "notes, no table)\n"
           "  --no-fast-forward  make every engine iteration an event, as "
           "before steady\n"
           "                   decode was fast-forwarded (the same results "
           "but for the\n"
           "                   rounding of sums; docs/performance.md)\n"
           "  --report DIR     write the run's cost report (HTML, as 'dsec "
           "report') into DIR\n"
           "                   after the run; not with --no-db\n"
           "  --trace FILE     replay FILE instead of the scenario's "
           "workload.trace.path; a\n"
           "                   relative FILE is taken from the current "
           "directory\n"
           "  --requests FILE  write one row per request to FILE: CSV when "
           "it ends in .csv,\n"
           "                   JSON Lines when in .jsonl or .ndjson "
           "(columns: docs/results.md)\n"
           "  --calibration PROFILE  use this calibration profile instead of "
           "the scenario's\n"
           "                   hardware.calibration (it must have an entry "
           "for the\n"
           "                   scenario's GPU kind or a default entry)\n"
           "  --uncertainty N  also run N draws of the calibration's "
           "uncertain parameters\n"
           "                   (its standard errors, correlations and "
           "structural error) on\n"
           "                   the same seed and print 95 %% prediction "
           "intervals; the\n"
           "                   ci95 of the means is seed noise only "
           "(docs/calibration.md)\n" CLI_SET_HELP
           "\nExit status: 0; 1 for a scenario, trace or database error; 2 "
           "for a usage error;\n3 for an internal error.\n");
}

/* ---- parse ---- */

/* Returns 0, -1 after --help, or a usage error's exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"seed", required_argument, NULL, 's'},
        {"db", required_argument, NULL, 'd'},
        {"no-db", no_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},
        {"series-replicas", no_argument, NULL, 'R'},
        {"no-fast-forward", no_argument, NULL, 'F'},
        {"quiet", no_argument, NULL, 'q'},
        {"report", required_argument, NULL, 'r'},
        {"trace", required_argument, NULL, 't'},
        {"requests", required_argument, NULL, 'Q'},
        {"calibration", required_argument, NULL, 'C'},
        {"uncertainty", required_argument, NULL, 'U'},
        {"set", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;

    o->db_path = "dsec.db";
    optind = 1;
    while ((opt = getopt_long(argc, argv, "s:d:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            if (cli_parse_seed(optarg, &o->seed) != 0)
                return cli_usage_error(&cli_cmd_run,
                                       "--seed: expected an integer from 0 "
                                       "to 9223372036854775807");
            o->seed_set = 1;
            break;
        case 'd':
            o->db_path = optarg;
            break;
        case 'S':
            if (cli_set_add(&o->sets, optarg) != 0)
                return cli_usage_error(&cli_cmd_run, CLI_SET_USAGE);
            break;
        case 'n':
            o->no_db = 1;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'R':
            o->series_replicas = 1;
            break;
        case 'F':
            o->no_ff = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'r':
            o->report_dir = optarg;
            break;
        case 't':
            if (optarg[0] == '\0')
                return cli_usage_error(&cli_cmd_run,
                                       "--trace: expected a file name");
            o->trace_path = optarg;
            break;
        case 'C':
            if (optarg[0] == '\0')
                return cli_usage_error(&cli_cmd_run,
                                       "--calibration: expected a profile "
                                       "file");
            o->calibration = optarg;
            break;
        case 'U': {
            uint64_t n;
            if (cli_parse_u64(optarg, &n) != 0 || n < 2 || n > CL_PI_MAX_DRAWS)
                return cli_usage_error(&cli_cmd_run,
                                       "--uncertainty: expected a number of "
                                       "draws, 2 to 10000 (20 or more for a "
                                       "95 % interval)");
            o->draws = (int)n;
            break;
        }
        case 'Q':
            if (rpt_reqfile_format(optarg) < 0)
                return cli_usage_error(&cli_cmd_run,
                                       "--requests: expected a file name "
                                       "ending in .csv, .jsonl or .ndjson");
            o->requests_path = optarg;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return cli_usage_error(&cli_cmd_run, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_run, "expected one scenario file");
    if (o->report_dir != NULL && o->no_db)
        return cli_usage_error(&cli_cmd_run,
                               "--report reads the results database; it "
                               "cannot go with --no-db");
    o->file = argv[optind];
    return 0;
}

/* ---- run ---- */

/* Loads the scenario and applies --seed and --trace. Returns an exit
 * status; on failure x->scn is released. */
static int load(const struct opts *o, struct run *x)
{
    struct cl_scenario *scn = &x->scn;
    char cwd[PATH_MAX];

    if (cli_load_scenario(o->file, &o->sets, scn, NULL) != 0)
        return CLI_EXIT_INPUT;
    if (o->seed_set)
        scn->seed = o->seed;
    if (o->calibration != NULL &&
        cli_apply_calibration("run", scn, o->calibration) != 0) {
        cl_scenario_fini(scn);
        return CLI_EXIT_INPUT;
    }
    if (o->draws > 0 && scn->training.gpus > 0 && scn->npools == 0 &&
        scn->hardware.gpu == NULL) {
        cl_scenario_fini(scn);
        return cli_usage_error(&cli_cmd_run, "--uncertainty: the scenario "
                                             "serves nothing");
    }
    if (o->trace_path == NULL)
        return CLI_EXIT_OK;
    if (scn->workload.kind != CL_WL_TRACE) {
        cl_scenario_fini(scn);
        return cli_usage_error(&cli_cmd_run,
                               "--trace: the scenario's workload is not "
                               "a trace (workload.trace)");
    }
    if (o->trace_path[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL) {
        cl_scenario_fini(scn);
        return cli_usage_error(&cli_cmd_run,
                               "--trace: cannot resolve a relative path "
                               "(the current directory is unreadable); "
                               "give an absolute one");
    }
    free(scn->workload.trace.path);
    if (o->trace_path[0] == '/')
        scn->workload.trace.path = xstrdup(o->trace_path);
    else
        scn->workload.trace.path = xasprintf("%s/%s", cwd, o->trace_path);
    return CLI_EXIT_OK;
}

/* Progress of the draws on stderr: on a terminal redrawn, off one a line
 * per finished draw. */
static void on_draw(void *ctx, int done, int n)
{
    struct sim_progress *p = ctx;

    if (p->in_place && (sim_progress_due(p) || done == n))
        sim_progress_draw(p, "  uncertainty: draw %d of %d   ", done, n);
    else if (!p->in_place)
        sim_progress_draw(p, "dsec run: uncertainty: draw %d of %d done", done,
                          n);
}

/* --uncertainty N: the prediction intervals into x->pi. */
static int predict(const struct opts *o, struct run *x)
{
    struct sim_progress prog;
    struct sim_diag diag;
    int rc;

    progress_start(&prog, o);
    sim_diag_init(&diag);
    rc = cl_predict(&x->scn, &x->ropts, o->draws, 0.95, on_draw, &prog, &x->pi,
                    &diag);
    sim_progress_clear(&prog);
    if (rc != 0)
        sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    return rc == 0 ? CLI_EXIT_OK : cli_exit_status(rc);
}

/* Simulates the serving part, then the training job after it
 * (docs/training.md). Prints diagnostics to stderr (notes only without
 * --quiet). Returns an exit status. */
static int simulate(const struct opts *o, struct run *x)
{
    struct sim_progress prog;
    struct sim_diag diag;
    struct rpt_reqfile *reqs = NULL;
    int rc, status = CLI_EXIT_OK;

    x->dir_copy = xstrdup(o->file);
    x->ropts.base_dir = dirname(x->dir_copy);
    x->ropts.no_fast_forward = o->no_ff;
    progress_start(&prog, o);
    x->ropts.progress = on_progress;
    x->ropts.progress_ctx = &prog;
    sim_diag_init(&diag);
    if (o->requests_path != NULL) {
        reqs = rpt_reqfile_open(o->requests_path, &diag);
        if (reqs == NULL) {
            sim_progress_clear(&prog);
            sim_diag_print(&diag, stderr);
            sim_diag_fini(&diag);
            return CLI_EXIT_INPUT;
        }
        x->ropts.request = rpt_reqfile_write;
        x->ropts.request_ctx = reqs;
    }
    rc = cl_run(&x->scn, &x->ropts, &x->res, &diag);
    x->ropts.request = NULL;
    x->ropts.request_ctx = NULL;
    if (rpt_reqfile_close(reqs, &diag) != 0 && rc == 0)
        rc = SIM_EIO;
    x->res.wall_s = sim_progress_wall_s(&prog);
    x->res.events_per_s =
        x->res.wall_s > 0 ? (double)x->res.sim_events / x->res.wall_s : 0;
    sim_progress_clear(&prog);
    if (rc != 0) {
        sim_diag_print(&diag, stderr);
        status = cli_exit_status(rc);
    } else if (!o->quiet) {
        sim_diag_print(&diag, stderr); /* notes, e.g. trace rows skipped */
    }
    sim_diag_fini(&diag);
    if (status == CLI_EXIT_OK && x->scn.training.gpus > 0) {
        sim_diag_init(&diag);
        if (cl_training_run(&x->scn, &x->ropts, &x->res, &x->trep, &diag) !=
            0) {
            sim_progress_clear(&prog);
            sim_diag_print(&diag, stderr);
            status = CLI_EXIT_INPUT;
        }
        sim_progress_clear(&prog);
        sim_diag_fini(&diag);
    }
    /* prog ends here. */
    x->ropts.progress = NULL;
    x->ropts.progress_ctx = NULL;
    if (status == CLI_EXIT_OK && o->draws > 0)
        status = predict(o, x);
    return status;
}

/* Writes the run to the results database; x->run_id gets its id. Returns
 * an exit status. */
static int store(const struct opts *o, struct run *x)
{
    struct rpt_db *db;
    struct rpt_run_info info = {0};
    struct sim_diag diag;
    char stamp[32];
    int status = CLI_EXIT_OK;

    cli_utc_stamp(stamp, sizeof(stamp));
    info.started_at = stamp;
    info.scenario_name = x->scn.name;
    info.scenario_file = o->file;
    info.scenario_text = x->scn.text;
    info.program_version = PACKAGE_VERSION;
    info.seed = x->scn.seed;
    info.pi = o->draws > 0 ? &x->pi : NULL;
    sim_diag_init(&diag);
    db = rpt_db_open(o->db_path, &diag);
    if (db == NULL ||
        rpt_db_write_run(db, &info, &x->res, &x->run_id, &diag) != 0) {
        sim_diag_print(&diag, stderr);
        status = CLI_EXIT_INPUT;
    }
    rpt_db_close(db);
    sim_diag_fini(&diag);
    return status;
}

/* The report is dsec report itself, run on the new run; it prints the
 * report's path. Returns its exit status. */
static int write_report(const struct opts *o, const struct run *x)
{
    char id[32];
    char *rargv[] = {(char *)"report",
                     id,
                     (char *)"--db",
                     (char *)o->db_path,
                     (char *)"--out",
                     (char *)o->report_dir,
                     NULL};

    snprintf(id, sizeof(id), "%lld", (long long)x->run_id);
    fflush(stdout);
    return cli_cmd_report.exec(6, rargv);
}

static void run_fini(struct run *x)
{
    cl_training_report_fini(&x->trep);
    cl_results_fini(&x->res);
    cl_scenario_fini(&x->scn);
    free(x->dir_copy);
}

/* ---- print ---- */

/* The summary (rpt_summary_print() or _json()) with the Training section
 * of a scenario with a training job. */
static void print(const struct opts *o, const struct run *x)
{
    int training = x->scn.training.gpus > 0;
    char *s;
    json_object *obj;

    if (!o->json) {
        rpt_summary_print(stdout, &x->res);
        if (o->draws > 0)
            rpt_pi_print(stdout, &x->pi, &x->res);
        if (training)
            rpt_train_report_print(stdout, &x->trep);
        return;
    }
    s = o->series_replicas ? rpt_summary_json_replicas(&x->res, 1)
                           : rpt_summary_json(&x->res, 1);
    obj = training || o->draws > 0 ? json_tokener_parse(s) : NULL;
    if (obj != NULL) {
        if (training)
            json_object_object_add(obj, "training",
                                   rpt_train_report_json(&x->trep));
        if (o->draws > 0)
            json_object_object_add(obj, "prediction_interval",
                                   rpt_pi_json(&x->pi));
        rpt_json_print(stdout, obj);
        json_object_put(obj);
    } else {
        printf("%s\n", s);
    }
    free(s);
}

static int exec_run(int argc, char **argv)
{
    struct opts o = {0};
    struct run x;
    int status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    memset(&x, 0, sizeof(x));
    status = load(&o, &x);
    if (status != CLI_EXIT_OK)
        return status;
    status = simulate(&o, &x);
    if (status == CLI_EXIT_OK && !o.no_db) {
        status = store(&o, &x);
        if (status == CLI_EXIT_OK && !o.quiet && !o.json)
            printf("results: %s, run %lld\n", o.db_path, (long long)x.run_id);
        if (status == CLI_EXIT_OK && o.report_dir != NULL)
            status = write_report(&o, &x);
    }
    if (status == CLI_EXIT_OK && (o.json || !o.quiet))
        print(&o, &x);
    run_fini(&x);
    return status;
}

const struct cli_entry cli_cmd_run = {
    .name = "run",
    .usage = "SCENARIO.yaml [--seed N] [--db FILE|--no-db] [--json] [--quiet] "
             "[--report DIR] [--trace FILE] [--series-replicas] "
             "[--no-fast-forward] "
             "[--requests FILE] [--calibration PROFILE] [--uncertainty N] "
             "[--set KEY=VALUE]...",
    .summary = "simulate a scenario, print a summary, store results in SQLite",
    .exec = exec_run,
};
