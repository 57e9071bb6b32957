/* The command table and top-level usage. */
#include <string.h>

#include "cli/cli.h"
#include "config.h"

const struct cli_entry *const cli_table[] = {
    &cli_cmd_compare, &cli_cmd_help,  &cli_cmd_model, &cli_cmd_plan,
    &cli_cmd_report,  &cli_cmd_run,   &cli_cmd_step,  &cli_cmd_strategies,
    &cli_cmd_sweep,   &cli_cmd_train, &cli_cmd_twin,  &cli_cmd_validate,
    &cli_cmd_version, NULL,
};

const struct cli_entry *cli_find(const char *name)
{
    for (int i = 0; cli_table[i] != NULL; i++)
        if (strcmp(cli_table[i]->name, name) == 0)
            return cli_table[i];
    return NULL;
}

void cli_usage(FILE *fp)
{
    fprintf(fp, "usage: dsec COMMAND [ARGS]\n\n"
                "dsec simulates elastic GPU clusters that serve large "
                "language models.\n\ncommands:\n");
    for (int i = 0; cli_table[i] != NULL; i++)
        fprintf(fp, "  %-10s %s\n", cli_table[i]->name, cli_table[i]->summary);
    fprintf(fp, "\n'dsec help COMMAND' shows a command's options; "
                "'dsec help scenario' lists every scenario key ('dsec help "
                "sweep' a sweep file's, 'dsec help scaler' dsec-scaler's "
                "configuration's); 'dsec help policies', 'models', 'gpus' "
                "and 'links' list the catalogs.\n"
                "options: --help, --version\n");
}

int cli_usage_error(const struct cli_entry *e, const char *why)
{
    if (why != NULL)
        fprintf(stderr, "dsec %s: %s\n", e->name, why);
    fprintf(stderr, "usage: dsec %s %s\n", e->name, e->usage);
    return CLI_EXIT_USAGE;
}
