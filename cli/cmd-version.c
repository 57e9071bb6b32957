/* dsec version: program version and the library versions it was built
 * with. */
#include <gsl/gsl_version.h>
#include <json-c/json_c_version.h>
#include <openssl/crypto.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "cli/cli.h"
#include "config.h"

static int exec_version(int argc, char **argv)
{
    if (argc > 1 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf(
            "usage: dsec version\n\n%s: the dsec version, then the "
            "versions of\nGSL, SQLite, libyaml, json-c and OpenSSL's libcrypto "
            "it was built with.\n",
            cli_cmd_version.summary);
        return CLI_EXIT_OK;
    }
    if (argc > 1)
        return cli_usage_error(&cli_cmd_version, "takes no arguments");
    printf("dsec %s\n", PACKAGE_VERSION);
    printf("built with GSL %s, SQLite %s, libyaml %s, json-c %s, %s\n",
           GSL_VERSION, sqlite3_libversion(), yaml_get_version_string(),
           json_c_version(), OpenSSL_version(OPENSSL_VERSION));
    return CLI_EXIT_OK;
}

const struct cli_entry cli_cmd_version = {
    .name = "version",
    .usage = "",
    .summary = "print the version and library versions",
    .exec = exec_version,
};
