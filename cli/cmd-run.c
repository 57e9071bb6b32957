/* dsec run SCENARIO [--seed N] [--db FILE|--no-db] [--json] [--quiet]
 * [--report DIR] [--trace FILE]: load, check, simulate, store in SQLite
 * (one transaction), print, and with --report write the cost report (dsec
 * report) into DIR. --trace replaces workload.trace.path; a relative FILE
 * is taken from the current directory, not the scenario's. */
#include <getopt.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "models/cluster/cluster.h"
#include "models/train/scenario.h"
#include "reports/db.h"
#include "reports/summary.h"
#include "reports/train-report.h"
#include "scenarios/load.h"
#include "base/errors.h"

struct progress {
    int on;
    struct timespec t0;
    double last_print;
};

/* Progress on stderr, at most twice a second, only on a terminal. */
static void on_progress(void *ctx, double sim_s, uint64_t done,
                        uint64_t expected)
{
    struct progress *p = ctx;
    double wall = cli_wall_since(&p->t0);

    if (!p->on || wall - p->last_print < 0.5)
        return;
    p->last_print = wall;
    if (expected > 0) {
        double frac = (double)done / (double)expected;
        double eta = frac > 0 ? wall * (1 - frac) / frac : 0;
        fprintf(stderr,
                "\r  %5.1f%%  %llu/%llu requests  sim %.0f s  "
                "wall %.1f s  eta %.0f s   ",
                100 * frac, (unsigned long long)done,
                (unsigned long long)expected, sim_s, wall, eta);
    } else {
        fprintf(stderr, "\r  %llu requests  sim %.0f s  wall %.1f s   ",
                (unsigned long long)done, sim_s, wall);
    }
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
           "  -j, --json       print one JSON object instead of the table, "
           "and no progress\n"
           "  --series-replicas  with --json: add the per-replica time "
           "series\n"
           "                   (replica_series, docs/results.md; one object "
           "per replica\n"
           "                   and interval, so it can be large)\n"
           "  -q, --quiet      print nothing on success (no progress, no "
           "notes, no table)\n"
           "  --report DIR     write the run's cost report (HTML, as 'dsec "
           "report') into DIR\n"
           "                   after the run; not with --no-db\n"
           "  --trace FILE     replay FILE instead of the scenario's "
           "workload.trace.path; a\n"
           "                   relative FILE is taken from the current "
           "directory\n"
           "\nExit status: 0; 1 for a scenario, trace or database error; 2 "
           "for a usage error;\n3 for an internal error.\n");
}

static int exec_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"seed", required_argument, NULL, 's'},
        {"db", required_argument, NULL, 'd'},
        {"no-db", no_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},
        {"series-replicas", no_argument, NULL, 'R'},
        {"quiet", no_argument, NULL, 'q'},
        {"report", required_argument, NULL, 'r'},
        {"trace", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db_path = "dsec.db", *report_dir = NULL, *trace_path = NULL;
    int json = 0, quiet = 0, no_db = 0, seed_set = 0, opt, rc, status;
    int series_replicas = 0;
    uint64_t seed = 0;
    struct cl_scenario scn;
    struct cl_results res;
    struct train_report trep = {0}; /* the training: section's job */
    struct cl_run_opts ropts = {0};
    struct sim_diag diag;
    struct progress prog = {0};
    char *dir_copy;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "s:d:jqh", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            if (cli_parse_u64(optarg, &seed) != 0)
                return cli_usage_error(&cli_cmd_run,
                                       "--seed: expected a non-negative "
                                       "integer");
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
        case 'R':
            series_replicas = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'r':
            report_dir = optarg;
            break;
        case 't':
            if (optarg[0] == '\0')
                return cli_usage_error(&cli_cmd_run,
                                       "--trace: expected a file name");
            trace_path = optarg;
            break;
        case 'h':
            print_help();
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(&cli_cmd_run, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_run, "expected one scenario file");
    if (report_dir != NULL && no_db)
        return cli_usage_error(&cli_cmd_run,
                               "--report reads the results database; it "
                               "cannot go with --no-db");

    if (cli_load_scenario(argv[optind], &scn, NULL) != 0)
        return CLI_EXIT_INPUT;
    if (seed_set)
        scn.seed = seed;
    if (trace_path != NULL) {
        char cwd[PATH_MAX];
        if (scn.workload.kind != CL_WL_TRACE) {
            cl_scenario_fini(&scn);
            return cli_usage_error(&cli_cmd_run,
                                   "--trace: the scenario's workload is not "
                                   "a trace (workload.trace)");
        }
        if (trace_path[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL) {
            cl_scenario_fini(&scn);
            return cli_usage_error(&cli_cmd_run,
                                   "--trace: cannot resolve a relative path "
                                   "(the current directory is unreadable); "
                                   "give an absolute one");
        }
        free(scn.workload.trace.path);
        if (trace_path[0] == '/')
            scn.workload.trace.path = xstrdup(trace_path);
        else
            scn.workload.trace.path = xasprintf("%s/%s", cwd, trace_path);
    }

    dir_copy = xstrdup(argv[optind]);
    ropts.base_dir = dirname(dir_copy);
    prog.on = !quiet && !json && isatty(STDERR_FILENO);
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    ropts.progress = on_progress;
    ropts.progress_ctx = &prog;

    sim_diag_init(&diag);
    rc = cl_run(&scn, &ropts, &res, &diag);
    res.wall_s = cli_wall_since(&prog.t0);
    res.events_per_s = res.wall_s > 0 ? (double)res.sim_events / res.wall_s : 0;
    if (prog.on)
        fprintf(stderr, "\r%78s\r", "");
    status = CLI_EXIT_OK;
    if (rc != 0) {
        sim_diag_print(&diag, stderr);
        status = rc == SIM_EPARSE || rc == SIM_EIO || rc == SIM_EINVAL ||
                         rc == SIM_EINFEASIBLE
                     ? CLI_EXIT_INPUT
                     : CLI_EXIT_INTERNAL;
    } else if (!quiet) {
        sim_diag_print(&diag, stderr); /* notes, e.g. trace rows skipped */
    }
    sim_diag_fini(&diag);
    /* The training job after the serving part (docs/training.md). */
    if (status == CLI_EXIT_OK && scn.training.gpus > 0) {
        sim_diag_init(&diag);
        if (train_scenario_run(&scn, &ropts, &res, &trep, &diag) != 0) {
            sim_diag_print(&diag, stderr);
            status = CLI_EXIT_INPUT;
        }
        sim_diag_fini(&diag);
    }

    if (status == CLI_EXIT_OK && !no_db) {
        struct rpt_db *db;
        struct rpt_run_info info = {0};
        char stamp[32];
        int64_t run_id = 0;

        cli_utc_stamp(stamp, sizeof(stamp));
        info.started_at = stamp;
        info.scenario_name = scn.name;
        info.scenario_file = argv[optind];
        info.scenario_text = scn.text;
        info.program_version = PACKAGE_VERSION;
        info.seed = scn.seed;
        sim_diag_init(&diag);
        db = rpt_db_open(db_path, &diag);
        if (db == NULL ||
            rpt_db_write_run(db, &info, &res, &run_id, &diag) != 0) {
            sim_diag_print(&diag, stderr);
            status = CLI_EXIT_INPUT;
        }
        rpt_db_close(db);
        sim_diag_fini(&diag);
        if (status == CLI_EXIT_OK && !quiet && !json)
            printf("results: %s, run %lld\n", db_path, (long long)run_id);
        /* The report is dsec report itself, run on the new run. */
        if (status == CLI_EXIT_OK && report_dir != NULL) {
            char id[32];
            char *rargv[] = {(char *)"report",
                             id,
                             (char *)"--db",
                             (char *)db_path,
                             (char *)"--out",
                             (char *)report_dir,
                             NULL};
            snprintf(id, sizeof(id), "%lld", (long long)run_id);
            fflush(stdout);
            status = cli_cmd_report.exec(6, rargv);
        }
    }
    if (status == CLI_EXIT_OK && json) {
        char *s = series_replicas ? rpt_summary_json_replicas(&res, 1)
                                  : rpt_summary_json(&res, 1);
        json_object *o = scn.training.gpus > 0 ? json_tokener_parse(s) : NULL;

        if (o != NULL) {
            json_object_object_add(o, "training", rpt_train_report_json(&trep));
            printf("%s\n",
                   json_object_to_json_string_ext(
                       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                              JSON_C_TO_STRING_NOSLASHESCAPE));
            json_object_put(o);
        } else {
            printf("%s\n", s);
        }
        free(s);
    } else if (status == CLI_EXIT_OK && !quiet) {
        rpt_summary_print(stdout, &res);
        if (scn.training.gpus > 0)
            rpt_train_report_print(stdout, &trep);
    }
    train_report_fini(&trep);
    cl_results_fini(&res);
    cl_scenario_fini(&scn);
    free(dir_copy);
    return status;
}

const struct cli_entry cli_cmd_run = {
    .name = "run",
    .usage = "SCENARIO.yaml [--seed N] [--db FILE|--no-db] [--json] [--quiet] "
             "[--report DIR] [--trace FILE] [--series-replicas]",
    .summary = "simulate a scenario, print a summary, store results in SQLite",
    .exec = exec_run,
};
