/* dsec report RUN-ID|--latest|--comparison ID|--latest-comparison [--db
 * FILE] [--format html|pdf|csv|md] [--out DIR]: the cost report of one run,
 * or the report of a dsec compare (docs/reports.md). The static
 * baseline is the run's stored scenario (runs.scenario_text, same seed) on
 * a static cluster of the run's peak replicas, the first pool's GPU kind
 * and price; it is simulated once, stored as a run (policy NULL) and linked
 * in table baselines, so later reports reuse it. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "models/cluster/cluster.h"
#include "reports/db.h"
#include "reports/gnuplot.h"
#include "reports/report.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/xalloc.h"

struct progress {
    int on;
    struct timespec t0;
    double last_print;
};

static void on_progress(void *ctx, double sim_s, uint64_t done,
                        uint64_t expected)
{
    struct progress *p = ctx;
    double wall = cli_wall_since(&p->t0);

    (void)done;
    (void)expected;
    if (!p->on || wall - p->last_print < 0.5)
        return;
    p->last_print = wall;
    fprintf(stderr, "\r  static baseline: sim %.0f s  wall %.1f s   ", sim_s,
            wall);
}

/* Turns the loaded elastic scenario into the static cluster of replicas
 * replicas of the first pool's GPU at its price. */
static void make_static(struct cl_scenario *s, int replicas,
                        const struct rpt_pool_row *pool0)
{
    s->cluster.replicas = replicas;
    s->cluster.min_gpus = s->cluster.max_gpus = -1;
    s->cluster.initial_gpus = -1;
    free(s->policy.name);
    s->policy.name = NULL;
    for (int i = 0; i < s->policy.nparams; i++) {
        free(s->policy.params[i].key);
        free(s->policy.params[i].value);
    }
    free(s->policy.params);
    s->policy.params = NULL;
    s->policy.nparams = 0;
    for (int i = 0; i < s->npools; i++) {
        free(s->pools[i].name);
        free(s->pools[i].gpu);
    }
    free(s->pools);
    s->pools = NULL;
    s->npools = 0;
    if (pool0 != NULL && pool0->gpu != NULL) {
        free(s->hardware.gpu);
        s->hardware.gpu = xstrdup(pool0->gpu);
    }
    if (pool0 != NULL)
        s->hardware.price_usd_per_gpu_hour = pool0->price_usd_per_gpu_hour;
}

/* Loads the stored scenario and takes its targets into rep. Returns 0 or
 * an exit status. */
static int load_scenario(const struct rpt_run *run, struct cl_scenario *scn,
                         struct rpt_report *rep)
{
    struct sim_diag diag;
    const char *text = run->scenario_text;
    int rc;

    if (text == NULL) {
        fprintf(stderr, "dsec report: run %lld has no stored scenario\n",
                (long long)run->id);
        return CLI_EXIT_INPUT;
    }
    sim_diag_init(&diag);
    rc = scn_string_load(run->scenario_file ? run->scenario_file : "scenario",
                         text, strlen(text), scn, &diag);
    if (rc != 0)
        sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    if (rc != 0)
        return CLI_EXIT_INPUT;
    rep->target_tpot_ms = scn->cluster.target_latency_ns > 0
                              ? (double)scn->cluster.target_latency_ns / 1e6
                              : NAN;
    rep->slo_tpot_ms =
        scn->slo.tpot_ns > 0 ? (double)scn->slo.tpot_ns / 1e6 : NAN;
    rep->slo_ttft_ms =
        scn->slo.ttft_ns > 0 ? (double)scn->slo.ttft_ns / 1e6 : NAN;
    return 0;
}

/* Simulates and stores the baseline of run; returns 0 or an exit status. */
static int run_baseline(const char *db_path, const struct rpt_run *run,
                        struct cl_scenario *scn, int64_t *base_id)
{
    struct cl_run_opts ropts = {0};
    struct progress prog = {0};
    struct cl_results res;
    struct sim_diag diag;
    struct rpt_run_info info = {0};
    struct rpt_db *db;
    char stamp[32], *dir = NULL, *note;
    int replicas = (int)rpt_run_metric(run, "replicas.max"), status = 0;

    if (replicas < 1)
        replicas = 1;
    make_static(scn, replicas, run->npools > 0 ? &run->pools[0] : NULL);
    scn->seed = run->seed;
    if (run->scenario_file != NULL) {
        char *slash;
        dir = xstrdup(run->scenario_file);
        slash = strrchr(dir, '/');
        if (slash != NULL)
            *slash = '\0';
        else
            strcpy(dir, ".");
        ropts.base_dir = dir;
    }
    prog.on = isatty(STDERR_FILENO);
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    ropts.progress = on_progress;
    ropts.progress_ctx = &prog;
    sim_diag_init(&diag);
    if (cl_scenario_check(scn, NULL, &diag) != 0 ||
        cl_run(scn, &ropts, &res, &diag) != 0) {
        fprintf(stderr, "dsec report: cannot simulate the static "
                        "baseline:\n");
        sim_diag_print(&diag, stderr);
        status = CLI_EXIT_INPUT;
    }
    sim_diag_fini(&diag);
    if (prog.on)
        fprintf(stderr, "\r%78s\r", "");
    if (status != 0) {
        cl_results_fini(&res);
        free(dir);
        return status;
    }
    res.wall_s = cli_wall_since(&prog.t0);
    note = xasprintf("static baseline of run %lld: replicas: %d (its peak), "
                     "same workload and seed",
                     (long long)run->id, replicas);
    cl_results_note(&res, note);
    free(note);
    cli_utc_stamp(stamp, sizeof(stamp));
    info.started_at = stamp;
    info.scenario_name = run->scenario_name;
    info.scenario_file = run->scenario_file;
    info.scenario_text = run->scenario_text;
    info.program_version = PACKAGE_VERSION;
    info.seed = run->seed;
    sim_diag_init(&diag);
    db = rpt_db_open(db_path, &diag);
    if (db == NULL || rpt_db_write_run(db, &info, &res, base_id, &diag) != 0)
        status = CLI_EXIT_INPUT;
    rpt_db_close(db);
    if (status == 0 && rpt_baseline_link(db_path, run->id, *base_id, &diag))
        status = CLI_EXIT_INPUT;
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    cl_results_fini(&res);
    free(dir);
    return status;
}

/* The comparison report of comparison cmp_id (0: the newest). Returns an
 * exit status. */
static int comparison_report(const char *db_path, int64_t cmp_id, int latest,
                             enum rpt_format fmt, const char *out)
{
    struct rpt_cmp_report c;
    struct rpt_report rep = {0};
    struct cl_scenario scn;
    struct sim_diag diag;
    char *out_dir, *written = NULL;
    int rc, status = 0;

    sim_diag_init(&diag);
    rc = latest ? rpt_cmp_latest(db_path, &cmp_id, &diag) : 0;
    if (rc == 1)
        sim_diag_error(&diag, db_path, 0, 0,
                       "the database holds no comparison");
    if (rc != 0 || rpt_cmp_report_load(db_path, cmp_id, &c, &diag) != 0) {
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        return CLI_EXIT_INPUT;
    }
    /* Every run of a comparison stores the same scenario: its targets are
     * read from the first. */
    memset(&scn, 0, sizeof(scn));
    if (load_scenario(c.runs[0], &scn, &rep) == 0) {
        c.target_tpot_ms = rep.target_tpot_ms;
        c.slo_tpot_ms = rep.slo_tpot_ms;
    }
    cl_scenario_fini(&scn);
    out_dir =
        out ? xstrdup(out) : xasprintf("comparison-%lld", (long long)cmp_id);
    if (rpt_cmp_report_write(&c, fmt, out_dir, rpt_gp_find(), &written,
                             &diag) != 0)
        status = CLI_EXIT_INPUT;
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    if (status == 0)
        printf("report: %s\n", written);
    free(written);
    free(out_dir);
    rpt_cmp_report_fini(&c);
    return status;
}

static void print_help(void)
{
    printf("usage: dsec report %s\n\n%s\n", cli_cmd_report.usage,
           cli_cmd_report.summary);
    printf("\nA run's report sets its cost against a static cluster of the "
           "run's peak size,\nsimulated once and stored as a baseline run; "
           "a comparison's report is that of\na 'dsec compare' "
           "(docs/reports.md).\n\noptions:\n"
           "  -l, --latest             the newest run in the database, "
           "instead of RUN-ID\n"
           "  --comparison ID          the report of comparison ID\n"
           "  --latest-comparison      the report of the newest comparison\n"
           "  -d, --db FILE            results database (default dsec.db)\n"
           "  -f, --format FORMAT      html, pdf, csv or md (default html); "
           "pdf needs cairo\n"
           "                           and is for run reports only\n"
           "  -o, --out DIR            where to write it (default "
           "report-RUN-ID or\n"
           "                           comparison-ID)\n"
           "\nExit status: 0; 1 for a missing database, run or comparison; "
           "2 for a usage\nerror; 3 for an internal error.\n");
}

static int exec_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"latest", no_argument, NULL, 'l'},
        {"comparison", required_argument, NULL, 'c'},
        {"latest-comparison", no_argument, NULL, 'C'},
        {"db", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db_path = "dsec.db", *out = NULL, *gnuplot = NULL;
    const char *cmp_arg = NULL;
    enum rpt_format fmt = RPT_FMT_HTML;
    int latest = 0, latest_cmp = 0, opt, status = 0, rc;
    uint64_t id_u = 0;
    int64_t run_id = 0, base_id = 0;
    struct rpt_report rep = {0};
    struct cl_scenario scn;
    struct sim_diag diag;
    char *out_dir = NULL, *written = NULL;

    /* 0, not 1: glibc then forgets the state of an earlier scan, which
     * dsec run --report leaves behind when it calls this in-process. */
    optind = 0;
    while ((opt = getopt_long(argc, argv, "ld:f:o:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'l':
            latest = 1;
            break;
        case 'c':
            cmp_arg = optarg;
            break;
        case 'C':
            latest_cmp = 1;
            break;
        case 'd':
            db_path = optarg;
            break;
        case 'f':
            if (rpt_format_parse(optarg, &fmt) != 0)
                return cli_usage_error(&cli_cmd_report,
                                       "--format: expected html, pdf, csv "
                                       "or md");
            break;
        case 'o':
            out = optarg;
            break;
        case 'h':
            print_help();
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(&cli_cmd_report, NULL);
        }
    }
    if (cmp_arg != NULL || latest_cmp) {
        if (latest || optind != argc || (cmp_arg != NULL && latest_cmp))
            return cli_usage_error(&cli_cmd_report,
                                   "expected one of RUN-ID, --latest, "
                                   "--comparison ID, --latest-comparison");
        if (cmp_arg != NULL &&
            (cli_parse_u64(cmp_arg, &id_u) != 0 || id_u > INT64_MAX))
            return cli_usage_error(&cli_cmd_report,
                                   "--comparison: expected a comparison "
                                   "number");
        if (fmt == RPT_FMT_PDF) {
            fprintf(stderr, "dsec report: PDF is for run reports only: "
                            "write a comparison report with --format html, "
                            "csv or md\n");
            return CLI_EXIT_USAGE;
        }
        if (access(db_path, R_OK) != 0) {
            fprintf(stderr, "dsec report: %s: no such database\n", db_path);
            return CLI_EXIT_INPUT;
        }
        return comparison_report(db_path, (int64_t)id_u, latest_cmp, fmt, out);
    }
    if (latest ? optind != argc : optind != argc - 1)
        return cli_usage_error(&cli_cmd_report,
                               "expected one RUN-ID or --latest");
    if (!latest &&
        (cli_parse_u64(argv[optind], &id_u) != 0 || id_u > INT64_MAX))
        return cli_usage_error(&cli_cmd_report,
                               "RUN-ID: expected a run number");
    if (!rpt_format_available(fmt)) {
        fprintf(stderr, "dsec report: PDF is not available: this dsec was "
                        "built without cairo (install libcairo2-dev and "
                        "reconfigure)\n");
        return CLI_EXIT_USAGE;
    }
    if (access(db_path, R_OK) != 0) {
        fprintf(stderr, "dsec report: %s: no such database\n", db_path);
        return CLI_EXIT_INPUT;
    }
    memset(&scn, 0, sizeof(scn));
    sim_diag_init(&diag);
    run_id = (int64_t)id_u;
    rc = latest ? rpt_run_latest(db_path, &run_id, &diag) : 0;
    if (rc == 1)
        sim_diag_error(&diag, db_path, 0, 0, "the database holds no run");
    if (rc == 0)
        rep.run = rpt_run_load(db_path, run_id, &diag);
    if (rep.run == NULL) {
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        return CLI_EXIT_INPUT;
    }
    status = load_scenario(rep.run, &scn, &rep);
    if (status == 0 && rep.run->policy == NULL) {
        rep.self_baseline = 1;
    } else if (status == 0) {
        rc = rpt_baseline_find(db_path, run_id, &base_id, &diag);
        if (rc == 1)
            status = run_baseline(db_path, rep.run, &scn, &base_id);
        else if (rc < 0)
            status = CLI_EXIT_INPUT;
        if (status == 0) {
            rep.baseline = rpt_run_load(db_path, base_id, &diag);
            if (rep.baseline == NULL)
                status = CLI_EXIT_INPUT;
        }
    }
    cl_scenario_fini(&scn);
    gnuplot = rpt_gp_find();
    if (status == 0) {
        out_dir =
            out ? xstrdup(out) : xasprintf("report-%lld", (long long)run_id);
        if (rpt_report_write(&rep, fmt, out_dir, gnuplot, &written, &diag) != 0)
            status = CLI_EXIT_INPUT;
    }
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    if (status == 0)
        printf("report: %s\n", written);
    free(written);
    free(out_dir);
    rpt_report_fini(&rep);
    return status;
}

const struct cli_entry cli_cmd_report = {
    .name = "report",
    .usage = "RUN-ID|--latest|--comparison ID|--latest-comparison "
             "[--db FILE] [--format html|pdf|csv|md] [--out DIR]",
    .summary = "write a run's cost report, or a comparison's report",
    .exec = exec_report,
};
