/* dsec: dispatch to the command table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "config.h"

int main(int argc, char **argv)
{
    const struct cli_entry *e;

    if (argc < 2) {
        cli_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
        return cli_cmd_version.exec(1, argv + 1);
    e = cli_find(argv[1]);
    if (e == NULL) {
        fprintf(stderr, "dsec: unknown command '%s'; valid:", argv[1]);
        for (int i = 0; cli_table[i] != NULL; i++)
            fprintf(stderr, "%s %s", i ? "," : "", cli_table[i]->name);
        fprintf(stderr, "\n");
        return CLI_EXIT_USAGE;
    }
    return e->exec(argc - 1, argv + 1);
}
