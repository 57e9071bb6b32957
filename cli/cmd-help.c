/* dsec help [COMMAND|scenario|sweep|scaler|policies|models|gpus|links]. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "models/arch/arch.h"
#include "models/gpu/gpu.h"
#include "models/net/net.h"
#include "models/policy/policy.h"
#include "scaler/conf.h"
#include "scenarios/load.h"

static void print_help(void)
{
    printf("usage: dsec help %s\n\n%s\n", cli_cmd_help.usage,
           cli_cmd_help.summary);
    printf("\ntopics:\n"
           "  (none)     the commands, one line each (as 'dsec --help')\n"
           "  COMMAND    the command's usage and options (as 'dsec COMMAND "
           "--help')\n"
           "  scenario   every scenario key with its type, range and "
           "default\n"
           "  sweep      the sweep command, then every key of a sweep file\n"
           "  scaler     every key of dsec-scaler's configuration file\n"
           "  policies   the scaling policies and their parameters\n"
           "  models     the model architecture catalog\n"
           "  gpus       the GPU catalog\n"
           "  links      the interconnect catalog (latency, bandwidth, "
           "efficiency)\n");
}

static int exec_help(int argc, char **argv)
{
    const struct cli_entry *e;
    char name[32], opt[] = "--help";
    char *args[] = {name, opt, NULL};

    if (argc < 2) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_help();
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "scenario") == 0) {
        scn_help_print(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "scaler") == 0) {
        printf("dsec-scaler configuration keys (YAML, docs/scaler.md). "
               "policy.params are the\npolicy's own ('dsec help "
               "policies').\n");
        scn_help_print_rows(stdout, scl_config_rows);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "policies") == 0) {
        for (int i = 0; pol_table[i] != NULL; i++) {
            const struct pol_entry *pe = pol_table[i];
            printf("%-18s %s\n", pe->name, pe->summary);
            for (const struct sim_param *p = pe->params; p && p->key; p++)
                printf("%-18s   %s: %s%s%s\n", "", p->key, p->help,
                       p->def ? "; default " : "", p->def ? p->def : "");
        }
        printf("\nA plug-in (a shared object exporting dsec_policy_plugin, "
               "built against\n<dsec/policy.h>) is named by policy.plugin: "
               "PATH in a scenario or in\ndsec-scaler's config; a policy "
               "written in Python runs through the Python\npackage "
               "(docs/policies.md).\n");
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "models") == 0) {
        for (int i = 0; arch_table[i] != NULL; i++)
            printf("%-16s %s\n", arch_table[i]->name, arch_table[i]->summary);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "gpus") == 0) {
        for (int i = 0; gpu_table[i] != NULL; i++) {
            const struct gpu_spec *g = gpu_table[i];
            const struct net_link *su = net_link_find(g->scale_up);
            const char *how = "";

            if (g->scale_up_switched)
                how = " via NVSwitch";
            else if (su != NULL && su->mesh_peers > 0)
                how = " full mesh";
            printf("%-8s %s\n", g->name, g->summary);
            printf("%-8s   scale-up %s%s, %.0f GB/s/dir; host PCIe Gen%d "
                   "x%d; %.0f W; $%.2f/h (%s)\n",
                   "", g->scale_up != NULL ? g->scale_up : "-", how,
                   g->nvlink_bytes_per_s / 1e9, g->pcie_gen, g->pcie_lanes,
                   g->tdp_watts, g->price_usd_per_hour, g->price_source);
        }
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "links") == 0) {
        printf("%-12s %8s %9s %5s  %s\n", "name", "alpha", "GB/s/dir", "eff",
               "summary");
        for (int i = 0; net_link_table[i] != NULL; i++) {
            const struct net_link *l = net_link_table[i];
            printf("%-12s %6.1fus %9.1f %5.3f  %s\n", l->name,
                   l->alpha_ns / 1e3, l->bytes_per_s / 1e9, l->efficiency,
                   l->summary);
        }
        return CLI_EXIT_OK;
    }
    e = cli_find(argv[1]);
    if (e == NULL) {
        fprintf(stderr,
                "dsec help: unknown topic '%s'; valid: gpus, links, "
                "models, policies, scaler, scenario",
                argv[1]);
        for (int i = 0; cli_table[i] != NULL; i++)
            fprintf(stderr, ", %s", cli_table[i]->name);
        fprintf(stderr, "\n");
        return CLI_EXIT_USAGE;
    }
    /* dsec help COMMAND is dsec COMMAND --help: one text per command, kept
     * beside its option table, rather than a second copy here. */
    snprintf(name, sizeof(name), "%s", e->name);
    return e->exec(2, args);
}

const struct cli_entry cli_cmd_help = {
    .name = "help",
    .usage = "[COMMAND|scenario|sweep|scaler|policies|models|gpus|links]",
    .summary = "show help for a command, every scenario key, or the catalogs",
    .exec = exec_help,
};
