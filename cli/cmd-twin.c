/* dsec twin SCENARIO.yaml --listen HOST:PORT [--speed N] [--namespace NS]
 * [--deployment NAME] [--duration S] [--seed N] [--model-name NAME]
 * [--quiet]: the digital twin (twin/twin.h, docs/twin.md). Runs the
 * scenario in real time (or N times faster) with its size set from outside
 * through the Kubernetes scale subresource it serves, and exposes
 * vLLM-named /metrics for its serving replicas, until SIGTERM or SIGINT.
 * Parse (parse_args), run (serve), print (the summary on stderr). */
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "twin/twin.h"

/* Most simulated seconds per wall second the twin accepts: beyond it a
 * scraper at 1 s would see minutes pass between two scrapes. */
#define TWIN_SPEED_MAX 10000.0

static void print_help(void)
{
    printf("usage: dsec twin %s\n\n%s\n", cli_cmd_twin.usage,
           cli_cmd_twin.summary);
    printf(
        "\nRuns SCENARIO.yaml (an elastic LLM scenario: cluster.min_gpus and "
        "max_gpus)\nagainst the wall clock and serves, over HTTP:\n"
        "  GET  /metrics   vLLM's metrics (vllm:num_requests_running, ..., "
        "the TTFT and\n"
        "                  inter-token histograms) per serving replica, "
        "labelled\n"
        "                  model_name, engine and replica, plus dsec_twin_* "
        "gauges\n"
        "  GET  /healthz   \"ok\"\n"
        "  GET, PATCH /apis/apps/v1/namespaces/NS/deployments/NAME/scale\n"
        "                  the Kubernetes scale subresource; PATCH takes\n"
        "                  application/merge-patch+json {\"spec\":{"
        "\"replicas\":N}}\n"
        "The scenario's policy is replaced: the cluster's size is what the "
        "last PATCH\nset, clamped to the scenario's bounds. New replicas "
        "provision, load and drain\nas in 'dsec run'. Stops on SIGTERM or "
        "SIGINT (exit 0) and prints a summary.\n\noptions:\n"
        "  -l, --listen HOST:PORT  address to serve on (required; port 0 "
        "picks a free\n"
        "                          port; the URL is printed on stdout)\n"
        "  -x, --speed N           simulated seconds per wall-clock second "
        "(default 1,\n"
        "                          at most 10000)\n"
        "  --namespace NS          the Deployment's namespace (default "
        "default)\n"
        "  --deployment NAME       the Deployment's name (default llm); "
        "replicas are\n"
        "                          labelled NAME-0, NAME-1, ... in start "
        "order\n"
        "  --model-name NAME       label model_name (default: the "
        "scenario's model)\n"
        "  --duration S            stop at S seconds of simulated time "
        "(default: run\n"
        "                          until a signal)\n"
        "  -s, --seed N            seed of the random streams (default: "
        "the scenario's)\n"
        "  -q, --quiet             no line per size change on stderr\n"
        "\nExit status: 0; 1 for a scenario error or when it cannot listen; "
        "2 for a usage\nerror; 3 for an internal error.\n");
}

static int parse_seconds(const char *opt, const char *s, double lo, double hi,
                         double *out)
{
    char *end;
    double v = strtod(s, &end);

    if (end == s || *end != '\0' || !isfinite(v) || v < lo || v > hi) {
        char why[128];
        snprintf(why, sizeof(why), "%s: expected a number in [%g, %g]", opt, lo,
                 hi);
        return cli_usage_error(&cli_cmd_twin, why);
    }
    *out = v;
    return 0;
}

/* ---- parse ---- */

/* The options. */
struct opts {
    const char *file; /* the scenario */
    const char *ns, *deployment, *model_name;
    struct twin_serve_opts so;
    double speed;
    uint64_t seed;
    int seed_set;
};

/* Returns 0, -1 after --help, or a usage error's exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"speed", required_argument, NULL, 'x'},
        {"namespace", required_argument, NULL, 'N'},
        {"deployment", required_argument, NULL, 'D'},
        {"model-name", required_argument, NULL, 'M'},
        {"duration", required_argument, NULL, 'T'},
        {"seed", required_argument, NULL, 's'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;

    o->ns = "default";
    o->deployment = "llm";
    o->speed = 1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "l:x:s:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'l':
            o->so.listen = optarg;
            break;
        case 'x':
            if (parse_seconds("--speed", optarg, 1e-3, TWIN_SPEED_MAX,
                              &o->speed) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'N':
            o->ns = optarg;
            break;
        case 'D':
            o->deployment = optarg;
            break;
        case 'M':
            o->model_name = optarg;
            break;
        case 'T':
            if (parse_seconds("--duration", optarg, 1e-3, 1e9,
                              &o->so.duration_s) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 's':
            if (cli_parse_seed(optarg, &o->seed) != 0)
                return cli_usage_error(&cli_cmd_twin,
                                       "--seed: expected an integer from 0 "
                                       "to 9223372036854775807");
            o->seed_set = 1;
            break;
        case 'q':
            o->so.quiet = 1;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return cli_usage_error(&cli_cmd_twin, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_twin, "expected one scenario file");
    if (o->so.listen == NULL)
        return cli_usage_error(&cli_cmd_twin, "--listen HOST:PORT is required");
    if (!twin_name_ok(o->ns))
        return cli_usage_error(&cli_cmd_twin,
                               "--namespace: expected 1 to 63 of a-z, 0-9 "
                               "and '-', starting and ending alphanumeric");
    if (!twin_name_ok(o->deployment))
        return cli_usage_error(&cli_cmd_twin,
                               "--deployment: expected 1 to 63 of a-z, 0-9 "
                               "and '-', starting and ending alphanumeric");
    o->file = argv[optind];
    return 0;
}

/* ---- run ---- */

/* Opens a session on the scenario and serves it until a signal or
 * --duration; *res holds what the session produced (caller frees with
 * cl_results_fini()). Says on stderr what sets the size. Returns an exit
 * status, and in *ran whether the twin served at all. */
static int serve(const struct opts *o, struct cl_scenario *scn,
                 struct cl_results *res, int *ran)
{
    const char *model_name = o->model_name;
    struct cl_run_opts ropts = {0};
    struct cl_session *ss;
    struct sim_diag diag;
    struct twin t;
    char *dir_copy = xstrdup(o->file);
    int rc, served, status = CLI_EXIT_OK;

    *ran = 0;
    if (model_name == NULL)
        model_name = scn->model != NULL               ? scn->model
                     : scn->deploy.model_path != NULL ? scn->deploy.model_path
                                                      : "dsec";
    ropts.base_dir = dirname(dir_copy);
    sim_diag_init(&diag);
    rc = cl_session_open(scn, &ropts, CL_SESSION_EXTERNAL | CL_SESSION_READOUTS,
                         res, &ss, &diag);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    if (rc != 0) {
        free(dir_copy);
        return CLI_EXIT_INPUT;
    }
    if (scn->policy.name != NULL)
        fprintf(stderr,
                "dsec twin: the scenario's policy '%s' is replaced: the "
                "size is what PATCH .../deployments/%s/scale sets\n",
                scn->policy.name, o->deployment);
    else
        fprintf(stderr,
                "dsec twin: no policy runs: the size is what PATCH "
                ".../deployments/%s/scale sets\n",
                o->deployment);

    twin_init(&t, ss, o->ns, o->deployment, model_name, o->speed);
    served = twin_serve(&t, &o->so);
    if (served != 0)
        status = CLI_EXIT_INPUT;
    rc = cl_session_close(ss);
    if (rc != 0) {
        fprintf(stderr, "dsec twin: the workload failed (%s)\n",
                sim_strerror(rc));
        status = CLI_EXIT_INPUT;
    }
    *ran = served != -1;
    free(dir_copy);
    return status;
}

/* ---- print ---- */

/* The summary line on stderr after the twin stopped. */
static void print_summary(const struct cl_results *res)
{
    fprintf(stderr,
            "dsec twin: stopped at %.1f s simulated: %llu requests arrived, "
            "%llu completed; %llu scale events, %llu cold starts; "
            "replicas %d..%d\n",
            res->sim_time_s, (unsigned long long)res->requests_arrived,
            (unsigned long long)res->requests_completed,
            (unsigned long long)res->scale_events,
            (unsigned long long)res->cold_starts, res->replicas_min,
            res->replicas_max);
}

static int exec_twin(int argc, char **argv)
{
    struct opts o = {0};
    struct cl_scenario scn;
    struct cl_results res;
    int ran, status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    if (cli_load_scenario(o.file, NULL, &scn, NULL) != 0)
        return CLI_EXIT_INPUT;
    if (o.seed_set)
        scn.seed = o.seed;
    status = serve(&o, &scn, &res, &ran);
    if (ran)
        print_summary(&res);
    cl_results_fini(&res);
    cl_scenario_fini(&scn);
    return status;
}

const struct cli_entry cli_cmd_twin = {
    .name = "twin",
    .usage = "SCENARIO.yaml --listen HOST:PORT [--speed N] [--namespace NS] "
             "[--deployment NAME] [--model-name NAME] [--duration S] "
             "[--seed N] [--quiet]",
    .summary = "digital twin: a scenario in real time behind vLLM "
               "/metrics and a scale API",
    .exec = exec_twin,
};
