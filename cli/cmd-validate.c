/* dsec validate SCENARIO...: load and check without simulating. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "sweep/spec.h"

static void print_help(void)
{
    printf("usage: dsec validate %s\n\n%s\n", cli_cmd_validate.usage,
           cli_cmd_validate.summary);
    printf("\nEach file is loaded and checked as 'dsec run' would ('dsec "
           "help scenario' lists\nthe keys), and nothing is simulated. A good "
           "file prints \"FILE: ok: N replicas\nof M gpus\"; each error goes "
           "to stderr as FILE:LINE:COL: error: "
           "MESSAGE.\n"
           "A sweep file (docs/sweep.md: top-level base, axes or points) is "
           "loaded as 'dsec\nsweep' loads it, every point checked, and "
           "prints \"FILE: ok: sweep of N points\".\n"
           "\noptions:\n"
           "  --help           print this text\n" CLI_SET_HELP
           "  --               end of options: the files that follow may "
           "start with '-'\n"
           "\nExit status: 0 when every file is good; 1 when any has an "
           "error; 2 for a usage\nerror.\n");
}

/* Whether the file at path is a sweep file (docs/sweep.md): a top-level
 * key base, axes or points, which no scenario has. */
static int is_sweep_file(const char *path)
{
    char line[512];
    FILE *fp = fopen(path, "r");
    int sweep = 0;

    if (fp == NULL)
        return 0; /* the scenario loader says why */
    while (!sweep && fgets(line, sizeof(line), fp) != NULL)
        sweep = strncmp(line, "base:", 5) == 0 ||
                strncmp(line, "axes:", 5) == 0 ||
                strncmp(line, "points:", 7) == 0;
    fclose(fp);
    return sweep;
}

/* Loads the sweep file at path as dsec sweep does, every point checked;
 * prints "FILE: ok: sweep of N points" or its errors. Returns 0 or -1. */
static int validate_sweep(const char *path, const struct cli_sets *sets)
{
    struct sim_diag diag;
    struct swp_spec *spec;

    sim_diag_init(&diag);
    if (sets->n > 0) {
        sim_diag_add(&diag, SIM_SEV_ERROR, path, 0, 0,
                     "--set applies to scenarios; a sweep sets keys with "
                     "its own set:");
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        return -1;
    }
    spec = swp_spec_load(path, &diag);
    if (spec != NULL) {
        size_t infeasible = 0;
        for (size_t k = 0; k < spec->npoints; k++)
            infeasible += spec->points[k].infeasible != 0;
        printf("%s: ok: sweep of %zu point%s", path, spec->npoints,
               spec->npoints == 1 ? "" : "s");
        if (infeasible > 0)
            printf(", %zu infeasible (recorded as such)", infeasible);
        printf("\n");
    }
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    swp_spec_free(spec);
    return spec != NULL ? 0 : -1;
}

static int exec_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"set", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct cli_sets sets = {.n = 0};
    int status = CLI_EXIT_OK, opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            print_help();
            return CLI_EXIT_OK;
        case 'S':
            if (cli_set_add(&sets, optarg) != 0)
                return cli_usage_error(&cli_cmd_validate, CLI_SET_USAGE);
            break;
        default:
            return cli_usage_error(&cli_cmd_validate, NULL);
        }
    }
    if (optind == argc)
        return cli_usage_error(&cli_cmd_validate,
                               "expected at least one scenario file");
    for (int i = optind; i < argc; i++) {
        if (is_sweep_file(argv[i])) {
            if (validate_sweep(argv[i], &sets) != 0)
                status = CLI_EXIT_INPUT;
            continue;
        }
        struct cl_scenario scn;
        struct cl_plan plan = {0};
        struct scn_open_opts opts = {.plan = &plan};
        struct sim_diag diag;

        char *text = NULL;

        sim_diag_init(&diag);
        if (sets.n > 0) {
            text = swp_scenario_with_sets(argv[i], sets.v, sets.n, &diag);
            opts.text = text;
            opts.len = text != NULL ? strlen(text) : 0;
        }
        if ((sets.n > 0 && text == NULL) ||
            scn_scenario_open(argv[i], &opts, &scn, &diag) != 0) {
            status = CLI_EXIT_INPUT;
        } else if (plan.disaggregated) {
            const struct cl_plan_group *p = &plan.groups[CL_PD_PREFILL];
            const struct cl_plan_group *q = &plan.groups[CL_PD_DECODE];
            printf("%s: ok: %d prefill replica%s of %d gpu%s, %d decode "
                   "replica%s of %d gpu%s\n",
                   argv[i], p->replicas, p->replicas == 1 ? "" : "s",
                   p->gpus_per_replica, p->gpus_per_replica == 1 ? "" : "s",
                   q->replicas, q->replicas == 1 ? "" : "s",
                   q->gpus_per_replica, q->gpus_per_replica == 1 ? "" : "s");
        } else {
            printf("%s: ok: %d replica%s of %d gpu%s\n", argv[i], plan.replicas,
                   plan.replicas == 1 ? "" : "s", plan.gpus_per_replica,
                   plan.gpus_per_replica == 1 ? "" : "s");
        }
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        if (sets.n == 0 || text != NULL)
            cl_scenario_fini(&scn);
        free(text);
    }
    return status;
}

const struct cli_entry cli_cmd_validate = {
    .name = "validate",
    .usage = "[--set KEY=VALUE]... FILE.yaml...",
    .summary = "check scenario files and report every error, without running",
    .exec = exec_validate,
};
