/* dsec report RUN-ID|--latest|--comparison ID|--latest-comparison [--db
 * FILE] [--format html|pdf|csv|md] [--out DIR]: the cost report of one run,
 * or the report of a dsec compare (docs/reports.md). The static
 * baseline is the run's stored scenario (runs.scenario_text, same seed) on
 * a static cluster of the run's peak replicas, the first pool's GPU kind
 * and price; it is simulated once, stored as a run (policy NULL) and linked
 * in table baselines, so later reports reuse it. A comparison's baseline
 * is the same static cluster sized for the most replicas any policy held,
 * one per replication. Parse (parse_args), run
 * (run_report or comparison_report, which write the report), print its
 * path. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "models/perf/calib.h"
#include "config.h"
#include "models/cluster/cluster.h"
#include "reports/db.h"
#include "reports/gnuplot.h"
#include "reports/report.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/progress.h"
#include "base/xalloc.h"

/* The options. */
struct opts {
    const char *db_path, *out;
    enum rpt_format fmt;
    int comparison; /* --comparison ID or --latest-comparison */
    int latest;     /* --latest or --latest-comparison */
    int64_t id;     /* RUN-ID or ID; 0 with latest */
};

static void on_progress(void *ctx, double sim_s, uint64_t done,
                        uint64_t expected)
{
    struct sim_progress *p = ctx;

    (void)done;
    (void)expected;
    if (sim_progress_due(p))
        sim_progress_draw(p, "%sstatic baseline: sim %.0f s  wall %.1f s   ",
                          p->in_place ? "  " : "dsec report: ", sim_s,
                          sim_progress_wall_s(p));
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
           "  -o, --out DIR            where to write it (default "
           "report-RUN-ID or\n"
           "                           comparison-ID)\n"
           "\nExit status: 0; 1 for a missing database, run or comparison; "
           "2 for a usage\nerror; 3 for an internal error.\n");
}

/* ---- parse ---- */

/* Returns 0, -1 after --help, or a usage error's exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
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
    const char *cmp_arg = NULL;
    int latest = 0, latest_cmp = 0, opt;
    uint64_t id_u = 0;

    o->db_path = "dsec.db";
    o->fmt = RPT_FMT_HTML;
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
            o->db_path = optarg;
            break;
        case 'f':
            if (rpt_format_parse(optarg, &o->fmt) != 0)
                return cli_usage_error(&cli_cmd_report,
                                       "--format: expected html, pdf, csv "
                                       "or md");
            break;
        case 'o':
            o->out = optarg;
            break;
        case 'h':
            print_help();
            return -1;
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
        if (!rpt_format_available(o->fmt)) {
            fprintf(stderr, "dsec report: PDF is not available: this dsec "
                            "was built without cairo (install "
                            "libcairo2-dev and reconfigure)\n");
            return CLI_EXIT_USAGE;
        }
        o->comparison = 1;
        o->latest = latest_cmp;
        o->id = (int64_t)id_u;
        return 0;
    }
    if (latest ? optind != argc : optind != argc - 1)
        return cli_usage_error(&cli_cmd_report,
                               "expected one RUN-ID or --latest");
    if (!latest &&
        (cli_parse_u64(argv[optind], &id_u) != 0 || id_u > INT64_MAX))
        return cli_usage_error(&cli_cmd_report,
                               "RUN-ID: expected a run number");
    if (!rpt_format_available(o->fmt)) {
        fprintf(stderr, "dsec report: PDF is not available: this dsec was "
                        "built without cairo (install libcairo2-dev and "
                        "reconfigure)\n");
        return CLI_EXIT_USAGE;
    }
    o->latest = latest;
    o->id = (int64_t)id_u;
    return 0;
}

/* ---- run ---- */

/* Turns the loaded elastic scenario into the static cluster of replicas
 * replicas of the first pool's GPU at its price. */
static void make_static(struct cl_scenario *s, int replicas,
                        const struct rpt_pool_row *pool0)
{
    s->cluster.replicas = replicas;
    s->cluster.min_gpus = s->cluster.max_gpus = -1;
    s->cluster.initial_gpus = -1;
    /* The rows free what they own: the policy's name and parameters, the
     * pools and their strings. */
    sim_param_fini(cl_policy_rows, &s->policy);
    sim_param_list_clear(sim_param_find(s->rows, "pools"), s);
    if (pool0 != NULL && pool0->gpu != NULL) {
        free(s->hardware.gpu);
        s->hardware.gpu = xstrdup(pool0->gpu);
    }
    if (pool0 != NULL)
        s->hardware.price_usd_per_gpu_hour = pool0->price_usd_per_gpu_hour;
}

/* The baseline runs on the calibration the run used: a profile given by
 * dsec run --calibration is not in the stored scenario, so it is loaded
 * again from the run's path when its SHA-256 still matches; otherwise a
 * note says the baseline keeps the scenario's own calibration. */
static void use_run_calibration(const struct rpt_run *run,
                                struct cl_scenario *scn)
{
    struct perf_calib *c;
    struct sim_diag diag;

    if (run->calibration_sha256 == NULL || run->calibration == NULL)
        return;
    if (scn->calib != NULL &&
        strcmp(scn->calib->sha256, run->calibration_sha256) == 0)
        return;
    c = xcalloc(1, sizeof(*c));
    sim_diag_init(&diag);
    if (perf_calib_load(run->calibration, c, &diag) != 0 ||
        strcmp(c->sha256, run->calibration_sha256) != 0) {
        fprintf(stderr,
                "dsec report: note: run %lld used the calibration profile "
                "%s (sha256 %s), which is gone or has changed; the static "
                "baseline uses the scenario's own calibration\n",
                (long long)run->id, run->calibration, run->calibration_sha256);
        perf_calib_fini(c);
        free(c);
    } else {
        perf_calib_fini(scn->calib);
        free(scn->calib);
        scn->calib = c;
    }
    sim_diag_fini(&diag);
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
    use_run_calibration(run, scn);
    rep->target_tpot_ms = scn->cluster.target_latency_ns > 0
                              ? (double)scn->cluster.target_latency_ns / 1e6
                              : NAN;
    rep->slo_tpot_ms =
        scn->slo.tpot_ns > 0 ? (double)scn->slo.tpot_ns / 1e6 : NAN;
    rep->slo_ttft_ms =
        scn->slo.ttft_ns > 0 ? (double)scn->slo.ttft_ns / 1e6 : NAN;
    rep->has_start = scn->start != NULL;
    rep->start_s = (double)scn->start_ns / 1e9;
    rep->day_period_s =
        scn->workload.kind == CL_WL_SYNTHETIC &&
                scn->workload.synthetic.arrival.profile.kind == CL_PROF_DIURNAL
            ? (double)scn->workload.synthetic.arrival.profile.period_ns / 1e9
            : 0;
    return 0;
}

/* Simulates the static cluster of replicas replicas on run's stored
 * scenario scn (loaded, changed here) with seed, stores it as a run with
 * note and sets *base_id; linking it is the caller's. Returns 0 or an exit
 * status. */
static int run_baseline(const char *db_path, const struct rpt_run *run,
                        struct cl_scenario *scn, int replicas, uint64_t seed,
                        const char *note, int64_t *base_id)
{
    struct cl_run_opts ropts = {0};
    struct sim_progress prog;
    struct cl_results res;
    struct sim_diag diag;
    struct rpt_run_info info = {0};
    struct rpt_db *db;
    char stamp[32], *dir = NULL;
    int status = 0;

    make_static(scn, replicas, run->npools > 0 ? &run->pools[0] : NULL);
    scn->seed = seed;
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
    /* On a terminal redrawn twice a second, off one a line every 10 s. */
    sim_progress_start(&prog, stderr, isatty(STDERR_FILENO),
                       isatty(STDERR_FILENO) ? 0.5 : 10);
    ropts.progress = on_progress;
    ropts.progress_ctx = &prog;
    sim_diag_init(&diag);
    if (cl_scenario_check(scn, NULL, &diag) != 0 ||
        cl_run(scn, &ropts, &res, &diag) != 0) {
        sim_progress_clear(&prog);
        fprintf(stderr, "dsec report: cannot simulate the static "
                        "baseline:\n");
        sim_diag_print(&diag, stderr);
        status = CLI_EXIT_INPUT;
    }
    sim_diag_fini(&diag);
    sim_progress_clear(&prog);
    if (status != 0) {
        cl_results_fini(&res);
        free(dir);
        return status;
    }
    res.wall_s = sim_progress_wall_s(&prog);
    cl_results_note(&res, note);
    cli_utc_stamp(stamp, sizeof(stamp));
    info.started_at = stamp;
    info.scenario_name = run->scenario_name;
    info.scenario_file = run->scenario_file;
    info.scenario_text = run->scenario_text;
    info.program_version = PACKAGE_VERSION;
    info.seed = seed;
    sim_diag_init(&diag);
    db = rpt_db_open(db_path, &diag);
    if (db == NULL || rpt_db_write_run(db, &info, &res, base_id, &diag) != 0)
        status = CLI_EXIT_INPUT;
    rpt_db_close(db);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    cl_results_fini(&res);
    free(dir);
    return status;
}

/* The baseline of a run: its peak replicas, its seed, linked to it. */
static int run_peak_baseline(const char *db_path, const struct rpt_run *run,
                             struct cl_scenario *scn, int64_t *base_id)
{
    int replicas = (int)rpt_run_metric(run, "replicas.max"), status;
    struct sim_diag diag;
    char *note;

    if (replicas < 1)
        replicas = 1;
    note = xasprintf("static baseline of run %lld: replicas: %d (its peak), "
                     "same workload and seed",
                     (long long)run->id, replicas);
    status =
        run_baseline(db_path, run, scn, replicas, run->seed, note, base_id);
    free(note);
    sim_diag_init(&diag);
    if (status == 0 && rpt_baseline_link(db_path, run->id, *base_id, &diag))
        status = CLI_EXIT_INPUT;
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    return status;
}

/* The static cluster sized for the peak of comparison c, one per
 * replication (seed c->seed + r), each found by its note or simulated and
 * stored, linked to itself in table baselines so that --latest passes it
 * by; they go into c->baselines. A failure leaves c without baselines and
 * the report without savings, with a note on stderr. */
static void comparison_baselines(const char *db_path, struct rpt_cmp_report *c)
{
    int replicas = rpt_cmp_peak_replicas(c);
    struct rpt_run **b = xcalloc((size_t)c->nreps, sizeof(*b));
    struct sim_diag diag;
    int ok = 1;

    sim_diag_init(&diag);
    for (int r = 0; ok && r < c->nreps; r++) {
        char *note = rpt_cmp_baseline_note(c->id, r, replicas);
        int64_t id = 0;
        int rc = rpt_cmp_baseline_find(db_path, note, &id, &diag);

        if (rc == 1) {
            struct cl_scenario scn;
            struct rpt_report rep = {0};

            memset(&scn, 0, sizeof(scn));
            rc = load_scenario(c->runs[0], &scn, &rep);
            if (rc == 0)
                rc = run_baseline(db_path, c->runs[0], &scn, replicas,
                                  c->seed + (uint64_t)r, note, &id);
            cl_scenario_fini(&scn);
            if (rc == 0)
                rc = rpt_baseline_link(db_path, id, id, &diag);
        }
        if (rc == 0)
            b[r] = rpt_run_load(db_path, id, &diag);
        ok = rc == 0 && b[r] != NULL;
        free(note);
    }
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    if (!ok) {
        fprintf(stderr,
                "dsec report: note: no static baseline for "
                "comparison %lld: the report has no savings\n",
                (long long)c->id);
        for (int r = 0; r < c->nreps; r++)
            rpt_run_free(b[r]);
        free(b);
        return;
    }
    c->baselines = b;
    c->baseline_replicas = replicas;
}

/* Writes the report of the run o names; *written gets its path (caller
 * frees). Returns an exit status. */
static int run_report(const struct opts *o, char **written)
{
    struct rpt_report rep = {0};
    struct cl_scenario scn;
    struct sim_diag diag;
    int64_t run_id = o->id, base_id = 0;
    char *out_dir = NULL;
    int rc, status;

    memset(&scn, 0, sizeof(scn));
    sim_diag_init(&diag);
    rc = o->latest ? rpt_run_latest(o->db_path, &run_id, &diag) : 0;
    if (rc == 1)
        sim_diag_error(&diag, o->db_path, 0, 0, "the database holds no run");
    if (rc == 0)
        rep.run = rpt_run_load(o->db_path, run_id, &diag);
    if (rep.run == NULL) {
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        return CLI_EXIT_INPUT;
    }
    status = load_scenario(rep.run, &scn, &rep);
    if (status == 0 && rep.run->policy == NULL) {
        rep.self_baseline = 1;
    } else if (status == 0) {
        rc = rpt_baseline_find(o->db_path, run_id, &base_id, &diag);
        if (rc == 1)
            status = run_peak_baseline(o->db_path, rep.run, &scn, &base_id);
        else if (rc < 0)
            status = CLI_EXIT_INPUT;
        if (status == 0) {
            rep.baseline = rpt_run_load(o->db_path, base_id, &diag);
            if (rep.baseline == NULL)
                status = CLI_EXIT_INPUT;
        }
    }
    cl_scenario_fini(&scn);
    if (status == 0) {
        out_dir = o->out ? xstrdup(o->out)
                         : xasprintf("report-%lld", (long long)run_id);
        if (rpt_report_write(&rep, o->fmt, out_dir, rpt_gp_find(), written,
                             &diag) != 0)
            status = CLI_EXIT_INPUT;
    }
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    free(out_dir);
    rpt_report_fini(&rep);
    return status;
}

/* Writes the report of the comparison o names (the newest with latest);
 * *written gets its path (caller frees). Returns an exit status. */
static int comparison_report(const struct opts *o, char **written)
{
    struct rpt_cmp_report c;
    struct rpt_report rep = {0};
    struct cl_scenario scn;
    struct sim_diag diag;
    int64_t cmp_id = o->id;
    char *out_dir;
    int rc, status = 0;

    sim_diag_init(&diag);
    rc = o->latest ? rpt_cmp_latest(o->db_path, &cmp_id, &diag) : 0;
    if (rc == 1)
        sim_diag_error(&diag, o->db_path, 0, 0,
                       "the database holds no comparison");
    if (rc != 0 || rpt_cmp_report_load(o->db_path, cmp_id, &c, &diag) != 0) {
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
    comparison_baselines(o->db_path, &c);
    out_dir = o->out ? xstrdup(o->out)
                     : xasprintf("comparison-%lld", (long long)cmp_id);
    if (rpt_cmp_report_write(&c, o->fmt, out_dir, rpt_gp_find(), written,
                             &diag) != 0)
        status = CLI_EXIT_INPUT;
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    free(out_dir);
    rpt_cmp_report_fini(&c);
    return status;
}

/* ---- print ---- */

static int exec_report(int argc, char **argv)
{
    struct opts o = {0};
    char *written = NULL;
    int status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    if (access(o.db_path, R_OK) != 0) {
        fprintf(stderr, "dsec report: %s: no such database\n", o.db_path);
        return CLI_EXIT_INPUT;
    }
    status = o.comparison ? comparison_report(&o, &written)
                          : run_report(&o, &written);
    if (status == CLI_EXIT_OK)
        printf("report: %s\n", written);
    free(written);
    return status;
}

const struct cli_entry cli_cmd_report = {
    .name = "report",
    .usage = "RUN-ID|--latest|--comparison ID|--latest-comparison "
             "[--db FILE] [--format html|pdf|csv|md] [--out DIR]",
    .summary = "write a run's cost report, or a comparison's report",
    .exec = exec_report,
};
