/* dsec-calib: the calibration suite's command line (docs/calibration.md).
 *
 *   dsec-calib import [--db FILE] [--gpu KIND] [--node LABEL]
 *                     [--model-config FILE] [--timeout DUR] INPUT...
 *   dsec-calib fit [--db FILE] [--gpu KIND] [--out PROFILE] [--chart DIR]
 *                  [--date DATE]
 *   dsec-calib show [--db FILE]
 *   dsec-calib run [--only LIST] [--out DIR] [--db FILE] [--quick] ...
 *   dsec-calib scenario RUN [--model-config FILE] [--gpu KIND]
 *                           [--timeout DUR]
 *
 * Exit status: 0 success, 1 bad input (log, database, profile), 2 usage,
 * 3 run without a device or without the vendor library compiled in. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_errno.h>

#include "config.h"

#include "base/param.h"
#include "calib/cal.h"
#include "calib/scenario.h"
#include "calib/serving.h"
#include "models/gpu/gpu.h"

#define DEFAULT_DB "calib.db"

static const char import_help[] =
    "usage: dsec-calib import [--db FILE] [--gpu KIND] [--node LABEL]\n"
    "                         [--model-config FILE] [--timeout DUR] "
    "INPUT...\n"
    "Read measurements into the database, one transaction per input: an\n"
    "input with an error adds nothing. Each INPUT is detected from its\n"
    "content:\n"
    "  - a text log of nccl-tests (all_reduce_perf, all_gather_perf, ...),\n"
    "    perftest (ib_write_bw, ib_write_lat, ...), nvbandwidth, cuda-samples\n"
    "    bandwidthTest (quick, range, shmoo, --csv) or dsec-calib run: every\n"
    "    row becomes a point;\n"
    "  - serving benchmark results: an inference-perf experiment folder (or\n"
    "    its results/ folder), a vllm bench serve result JSON (--save-result)\n"
    "    or a GuideLLM report JSON (--output-path), each benchmark of it one\n"
    "    run: each run is stored with the dsec scenario that reproduces it\n"
    "    and its measured latencies per load stage.\n"
    "  --db FILE      SQLite database (default " DEFAULT_DB ", created)\n"
    "  --gpu KIND     label the points with a GPU kind of dsec's catalog\n"
    "                 (h100, h200, ...); fit selects points by it; required\n"
    "                 for serving results, which do not record the GPU\n"
    "  --node LABEL   label the points with a host (default: the host the\n"
    "                 log names, if any)\n"
    "  --model-config FILE  serving results: the model's Hugging Face\n"
    "                 config.json (or its folder), stored with each run;\n"
    "                 without it the scenario names the run's model by\n"
    "                 deploy.model_path\n"
    "  --timeout DUR  serving results: the client's time-out in the scenario\n"
    "                 (as for dsec-calib scenario)\n"
    "  -h, --help     this text\n";

static const char fit_help[] =
    "usage: dsec-calib fit [--db FILE] [--gpu KIND] [--out PROFILE.yaml]\n"
    "                      [--chart DIR] [--date DATE]\n"
    "       dsec-calib fit --serving [--db FILE] [--gpu KIND] [--out FILE]\n"
    "                      [--params LIST] [--calibration START.yaml]\n"
    "                      [--holdout TEXT] [--no-loo] [-j N] [--quiet]\n"
    "Fit the points of one GPU kind (and unlabelled points) by nonlinear\n"
    "least squares: alpha-beta per link and collective, the GEMM efficiency\n"
    "curve, the HBM fraction. Prints each parameter with its standard error\n"
    "and R^2, stores the fits in the database, writes the profile (values,\n"
    "standard errors and correlations: its uncertainty sections) and loads\n"
    "it back with dsec's loader to check it.\n"
    "  --db FILE      SQLite database (default " DEFAULT_DB ")\n"
    "  --gpu KIND     GPU kind to fit (default: the only one in the db)\n"
    "  --out FILE     write the calibration profile (YAML) here\n"
    "  --chart DIR    measured-vs-fitted charts (.dat, .gp, and .png when\n"
    "                 gnuplot is installed); DIR is created\n"
    "  --date DATE    provenance date (default: the latest date in the\n"
    "                 logs, else \"unknown\"; never the clock)\n"
    "With --serving, fit the step-time parameters to the imported serving\n"
    "benchmark runs (dsec-calib import RUN --gpu KIND) by simulating every\n"
    "run in the loop, minimising the relative errors of the stage means\n"
    "(TTFT / 0.15, TPOT / 0.05, E2E / 0.05). Reports the values with\n"
    "standard errors and correlations, the residual per run, and\n"
    "leave-one-run-out errors, and writes a profile whose uncertainty\n"
    "section dsec run --uncertainty draws from.\n"
    "  --params LIST  keys of a GPU entry to fit, comma-separated (default\n"
    "                 " CAL_SRV_DEFAULT_PARAMS ")\n"
    "  --calibration FILE  start from this profile (default: built-in)\n"
    "  --holdout TEXT runs whose source contains TEXT are not fitted, only\n"
    "                 predicted (cross-model validation)\n"
    "  --no-loo       skip the leave-one-run-out refits\n"
    "  -j N, --jobs N simulate the runs on N threads (default 1)\n"
    "  --quiet        no progress lines on stderr\n"
    "  -h, --help     this text\n";

static const char show_help[] =
    "usage: dsec-calib show [--db FILE]\n"
    "Print the points per tool, benchmark and operation, and the fits.\n"
    "  --db FILE      SQLite database (default " DEFAULT_DB ")\n"
    "  -h, --help     this text\n";

static const char scenario_help[] =
    "usage: dsec-calib scenario RUN [--model-config FILE] [--gpu KIND]\n"
    "                              [--timeout DUR]\n"
    "Print the dsec scenario equivalent to one benchmark run. RUN is an\n"
    "inference-perf experiment folder (exp-config.yaml with the vLLM\n"
    "server's settings, results/config.yaml with what inference-perf ran),\n"
    "its results/ folder, or a vllm bench serve result JSON (--save-result;\n"
    "--save-detailed adds the lengths). Comments in the output say where\n"
    "each value came from; settings the run ignored are notes on stderr,\n"
    "unsupported ones errors (exit 1).\n"
    "  --model-config FILE  the model's Hugging Face config.json (or its\n"
    "                       folder), written as model.hf_config (absolute);\n"
    "                       without it the scenario names the run's model\n"
    "                       by deploy.model_path\n"
    "  --gpu KIND     GPU kind of dsec's catalog (h100, h200, ...); required:\n"
    "                 neither tool records it\n"
    "  --timeout DUR  the client's time-out (e.g. 300s, 10min); default the\n"
    "                 run's load.request_timeout, else the tool's (300 s for\n"
    "                 inference-perf, 6 h for vllm bench)\n"
    "  -h, --help     this text\n";

static void usage(FILE *fp)
{
    fputs("usage: dsec-calib COMMAND [OPTIONS]\n"
          "Calibrate dsec's step-time and link models from measurements.\n"
          "commands:\n"
          "  run      run the microbenchmarks on this node's GPUs (CUDA,\n"
          "           cuBLAS, NCCL, ibverbs; MPI across nodes)\n"
          "  import   read logs of nccl-tests, perftest, nvbandwidth,\n"
          "           bandwidthTest or dsec-calib run, and inference-perf,\n"
          "           vllm bench or GuideLLM results, into the database\n"
          "  fit      fit the models and write a calibration profile, with\n"
          "           standard errors; --serving: fit to serving runs by\n"
          "           simulating them\n"
          "  show     print what the database holds\n"
          "  scenario print the scenario of an inference-perf or vllm bench\n"
          "           run\n"
          "  help     this text; 'dsec-calib COMMAND --help' for one\n"
          "options: -h, --help; -V, --version\n"
          "exit status: 0 ok, 1 bad input, 2 usage, 3 no device/library\n",
          fp);
}

static int usage_error(const char *cmd, const char *why)
{
    fprintf(stderr, "dsec-calib %s: %s\n(try 'dsec-calib %s --help')\n", cmd,
            why, cmd);
    return CAL_EXIT_USAGE;
}

static int check_gpu(const char *cmd, const char *gpu)
{
    if (gpu && !gpu_find(gpu)) {
        char *names = gpu_names(), *why;
        int rc;

        why = xasprintf("--gpu: unknown GPU kind '%s'; valid: %s", gpu, names);
        rc = usage_error(cmd, why);
        free(why);
        free(names);
        return rc;
    }
    return 0;
}

/* Checks a --timeout argument: a duration > 0 that can be written into a
 * scenario as it is. Returns 0 or the usage error's exit code. */
static int check_timeout(const char *cmd, const char *timeout)
{
    char err[SIM_PARAM_ERRLEN];
    int64_t ns;
    char *why;
    int rc;

    if (timeout == NULL)
        return 0;
    if (sim_duration_parse(timeout, SIM_U_SECONDS, &ns, err, sizeof(err)) ==
            0 &&
        ns > 0 && !strpbrk(timeout, "\n\r#\"'{}[],:"))
        return 0;
    why = xasprintf("--timeout: expected a duration > 0 such as 300s or "
                    "10min, got '%s'",
                    timeout);
    rc = usage_error(cmd, why);
    free(why);
    return rc;
}

static int open_db(const char *path, sqlite3 **db)
{
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = cal_db_open(path, db, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    return rc;
}

static int cmd_import(int argc, char **argv)
{
    static const struct option lo[] = {
        {"db", required_argument, NULL, 'd'},
        {"gpu", required_argument, NULL, 'g'},
        {"node", required_argument, NULL, 'n'},
        {"model-config", required_argument, NULL, 'm'},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *dbp = DEFAULT_DB, *gpu = NULL, *node = NULL;
    struct cal_serving_opts so;
    sqlite3 *db = NULL;
    int c, status = 0, total = 0, runs = 0, nlogs = 0, nserving = 0;

    memset(&so, 0, sizeof(so));
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'd':
            dbp = optarg;
            break;
        case 'g':
            gpu = optarg;
            break;
        case 'n':
            node = optarg;
            break;
        case 'm':
            so.model_config = optarg;
            break;
        case 't':
            so.timeout = optarg;
            break;
        case 'h':
            fputs(import_help, stdout);
            return 0;
        default:
            return usage_error("import", "unknown option");
        }
    }
    if (optind >= argc)
        return usage_error("import", "no input given");
    if ((c = check_gpu("import", gpu)) != 0)
        return c;
    if ((c = check_timeout("import", so.timeout)) != 0)
        return c;
    /* Serving runs are labelled with the catalog's own (lower-case) name;
     * points keep the label as given, as fit selects them. */
    so.gpu = gpu ? gpu_find(gpu)->name : NULL;
    if (open_db(dbp, &db) != 0)
        return CAL_EXIT_INPUT;
    for (int i = optind; i < argc; i++) {
        struct sim_diag d;
        const char *tool = "";
        int n = 0;

        sim_diag_init(&d);
        if (cal_serving_detect(argv[i])) {
            nserving++;
            if (cal_import_serving(db, argv[i], &so, stdout, &n, &d) != 0)
                status = CAL_EXIT_INPUT;
            runs += n;
            /* Notes of the conversion too (settings the run ignored). */
            fflush(stdout);
            sim_diag_print(&d, stderr);
        } else if (nlogs++, cal_import_file(db, argv[i], gpu, node, &n, &tool,
                                            &d) != 0) {
            sim_diag_print(&d, stderr);
            status = CAL_EXIT_INPUT;
        } else {
            printf("%s: %s, %d points\n", argv[i], tool, n);
            total += n;
        }
        sim_diag_fini(&d);
    }
    if (nlogs > 0)
        printf("%d points into %s\n", total, dbp);
    if (nserving > 0)
        printf("%d serving run%s into %s\n", runs, runs == 1 ? "" : "s", dbp);
    sqlite3_close(db);
    return status;
}

static int cmd_fit(int argc, char **argv)
{
    static const struct option lo[] = {
        {"db", required_argument, NULL, 'd'},
        {"gpu", required_argument, NULL, 'g'},
        {"out", required_argument, NULL, 'o'},
        {"chart", required_argument, NULL, 'c'},
        {"date", required_argument, NULL, 't'},
        {"serving", no_argument, NULL, 's'},
        {"params", required_argument, NULL, 'p'},
        {"calibration", required_argument, NULL, 'b'},
        {"holdout", required_argument, NULL, 'H'},
        {"no-loo", no_argument, NULL, 'L'},
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *dbp = DEFAULT_DB;
    struct cal_fit_opts o;
    struct cal_srv_opts so;
    struct sim_diag d;
    sqlite3 *db = NULL;
    struct stat st;
    int c, rc, serving = 0, serving_only = 0;

    memset(&o, 0, sizeof(o));
    memset(&so, 0, sizeof(so));
    o.report = stdout;
    so.report = stdout;
    so.progress = stderr;
    so.threads = 1;
    so.loo = 1;
#ifdef DSEC_GNUPLOT
    o.gnuplot = DSEC_GNUPLOT;
#endif
    while ((c = getopt_long(argc, argv, "hj:", lo, NULL)) != -1) {
        switch (c) {
        case 's':
            serving = 1;
            break;
        case 'p':
            so.params = optarg;
            serving_only = 1;
            break;
        case 'b':
            so.base = optarg;
            serving_only = 1;
            break;
        case 'H':
            so.holdout = optarg;
            serving_only = 1;
            break;
        case 'L':
            so.loo = 0;
            serving_only = 1;
            break;
        case 'q':
            so.progress = NULL;
            break;
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > 64)
                return usage_error("fit", "-j: expected threads, 1 to 64");
            so.threads = (int)j;
            serving_only = 1;
            break;
        }
        case 'd':
            dbp = optarg;
            break;
        case 'g':
            o.gpu = optarg;
            break;
        case 'o':
            o.out_yaml = optarg;
            break;
        case 'c':
            o.chart_dir = optarg;
            break;
        case 't':
            o.date = optarg;
            break;
        case 'h':
            fputs(fit_help, stdout);
            return 0;
        default:
            return usage_error("fit", "unknown option");
        }
    }
    if (optind < argc)
        return usage_error("fit", "unexpected argument");
    if ((c = check_gpu("fit", o.gpu)) != 0)
        return c;
    if (serving_only && !serving)
        return usage_error("fit", "--params, --calibration, --holdout, "
                                  "--no-loo and -j go with --serving");
    if (serving && o.chart_dir)
        return usage_error("fit", "--chart: not with --serving");
    if (o.date && (!*o.date || strpbrk(o.date, "\n\r\"")))
        return usage_error("fit", "--date: expected a date such as "
                                  "2026-11-30");
    if (stat(dbp, &st) != 0) {
        fprintf(stderr,
                "%s: error: no database (run dsec-calib import "
                "first)\n",
                dbp);
        return CAL_EXIT_INPUT;
    }
    if (o.chart_dir && mkdir(o.chart_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: error: cannot create chart folder: %s\n",
                o.chart_dir, strerror(errno));
        return CAL_EXIT_INPUT;
    }
    if (open_db(dbp, &db) != 0)
        return CAL_EXIT_INPUT;
    sim_diag_init(&d);
    if (serving) {
        so.gpu = o.gpu;
        so.out_yaml = o.out_yaml;
        so.date = o.date;
        rc = cal_srv_fit(db, &so, &d);
    } else {
        rc = cal_fit_run(db, &o, &d);
    }
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    sqlite3_close(db);
    return rc == 0 ? 0 : CAL_EXIT_INPUT;
}

static int cmd_show(int argc, char **argv)
{
    static const struct option lo[] = {{"db", required_argument, NULL, 'd'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    const char *dbp = DEFAULT_DB;
    struct sim_diag d;
    sqlite3 *db = NULL;
    struct stat st;
    int c, rc;

    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'd':
            dbp = optarg;
            break;
        case 'h':
            fputs(show_help, stdout);
            return 0;
        default:
            return usage_error("show", "unknown option");
        }
    }
    if (optind < argc)
        return usage_error("show", "unexpected argument");
    if (stat(dbp, &st) != 0) {
        fprintf(stderr, "%s: error: no database\n", dbp);
        return CAL_EXIT_INPUT;
    }
    if (open_db(dbp, &db) != 0)
        return CAL_EXIT_INPUT;
    sim_diag_init(&d);
    rc = cal_show(db, stdout, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    sqlite3_close(db);
    return rc == 0 ? 0 : CAL_EXIT_INPUT;
}

static int cmd_scenario(int argc, char **argv)
{
    static const struct option lo[] = {
        {"model-config", required_argument, NULL, 'm'},
        {"gpu", required_argument, NULL, 'g'},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    struct cal_scn_opts o;
    struct sim_diag d;
    int c, rc;

    memset(&o, 0, sizeof(o));
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'm':
            o.model_config = optarg;
            break;
        case 'g':
            o.gpu = optarg;
            break;
        case 't':
            o.timeout = optarg;
            break;
        case 'h':
            fputs(scenario_help, stdout);
            return 0;
        default:
            return usage_error("scenario", "unknown option");
        }
    }
    if (optind >= argc)
        return usage_error("scenario", "no run given");
    if (optind + 1 < argc)
        return usage_error("scenario", "one run at a time");
    if (o.gpu == NULL)
        return usage_error("scenario", "--gpu: required; neither "
                                       "inference-perf nor vllm bench "
                                       "records the GPU");
    if ((c = check_gpu("scenario", o.gpu)) != 0)
        return c;
    if ((c = check_timeout("scenario", o.timeout)) != 0)
        return c;
    sim_diag_init(&d);
    rc = cal_scenario_convert(argv[optind], &o, stdout, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    return rc == 0 ? 0 : CAL_EXIT_INPUT;
}

int main(int argc, char **argv)
{
    const char *cmd;

    /* GSL errors come back as return codes, never as an abort. */
    gsl_set_error_handler_off();
    if (argc < 2) {
        usage(stderr);
        return CAL_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("dsec-calib %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (strcmp(cmd, "fit") == 0)
        return cmd_fit(argc - 1, argv + 1);
    if (strcmp(cmd, "show") == 0)
        return cmd_show(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return cal_run_main(argc - 1, argv + 1);
    if (strcmp(cmd, "scenario") == 0)
        return cmd_scenario(argc - 1, argv + 1);
    fprintf(stderr,
            "dsec-calib: unknown command '%s'; valid: fit, help, import, "
            "run, scenario, show\n",
            cmd);
    return CAL_EXIT_USAGE;
}
