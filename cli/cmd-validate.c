/* dsec validate SCENARIO...: load and check without simulating. */
#include <stdio.h>

#include "cli/cli.h"
#include "models/cluster/cluster.h"
#include "scenarios/load.h"

static int exec_validate(int argc, char **argv)
{
    int status = CLI_EXIT_OK;

    if (argc < 2)
        return cli_usage_error(&cli_cmd_validate,
                               "expected at least one scenario file");
    for (int i = 1; i < argc; i++) {
        struct cl_scenario scn;
        struct cl_plan plan;
        struct sim_diag diag;

        sim_diag_init(&diag);
        if (scn_file_load(argv[i], &scn, &diag) != 0 ||
            cl_scenario_check(&scn, &plan, &diag) != 0) {
            status = CLI_EXIT_INPUT;
        } else {
            printf("%s: ok: %d replica%s of %d gpu%s\n", argv[i], plan.replicas,
                   plan.replicas == 1 ? "" : "s", plan.gpus_per_replica,
                   plan.gpus_per_replica == 1 ? "" : "s");
        }
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        cl_scenario_fini(&scn);
    }
    return status;
}

const struct cli_entry cli_cmd_validate = {
    .name = "validate",
    .usage = "SCENARIO.yaml...",
    .summary = "check scenario files and report every error, without running",
    .exec = exec_validate,
};
