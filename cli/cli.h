/*
 * The dsec command table, after tmux's cmd-*.c: each command is one entry
 * { name, usage, summary, exec } in its own file, listed in cli/table.c.
 * A command returns the process exit status: 0 success, 1 scenario or input
 * error, 2 usage error, 3 internal error. Each exec parses its options
 * into a struct, runs (printing only diagnostics to stderr) and then
 * prints, as three static parts; the printers of results live in reports/
 * where more than one command or a report shares them.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct layout_setup;
struct sim_diag;

enum cli_exit {
    CLI_EXIT_OK = 0,
    CLI_EXIT_INPUT = 1,
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_INTERNAL = 3,
};

struct cli_entry {
    const char *name;
    const char *usage;                  /* arguments after the name */
    const char *summary;                /* one line */
    int (*exec)(int argc, char **argv); /* argv[0] is the command name */
};

extern const struct cli_entry cli_cmd_compare;
extern const struct cli_entry cli_cmd_help;
extern const struct cli_entry cli_cmd_model;
extern const struct cli_entry cli_cmd_plan;
extern const struct cli_entry cli_cmd_report;
extern const struct cli_entry cli_cmd_run;
extern const struct cli_entry cli_cmd_step;
extern const struct cli_entry cli_cmd_strategies;
extern const struct cli_entry cli_cmd_sweep;
extern const struct cli_entry cli_cmd_train;
extern const struct cli_entry cli_cmd_twin;
extern const struct cli_entry cli_cmd_validate;
extern const struct cli_entry cli_cmd_version;

/* NULL-terminated, name-sorted. */
extern const struct cli_entry *const cli_table[];

/* Looks a command up by exact name; NULL on a miss. */
const struct cli_entry *cli_find(const char *name);

/* Prints the top-level usage (every command with its summary). */
void cli_usage(FILE *fp);

/* Prints "usage: dsec NAME USAGE" to stderr and returns CLI_EXIT_USAGE. */
int cli_usage_error(const struct cli_entry *e, const char *why);

/* Parses a non-negative decimal integer; 0, or -1 on bad input (*out
 * unchanged). */
int cli_parse_u64(const char *s, uint64_t *out);

/* As cli_parse_u64(), for a seed: at most 2^63 - 1, the largest a results
 * database stores (SQLite integers are signed). */
int cli_parse_seed(const char *s, uint64_t *out);

/* The speculative-decoding options of dsec step and dsec strategies
 * (--speculative, --spec-tokens, --acceptance): method is enum perf_spec,
 * -1 when not given; tokens 0 and acceptance NAN when not given. */
struct cli_spec_opts {
    int method;
    int tokens;
    double acceptance;
};

/* Parses option opt ('S' --speculative none|mtp|ngram, 'K' --spec-tokens
 * 1..8, 'a' --acceptance in [0, 1]) of cmd with argument arg into o.
 * Returns 0, or cli_usage_error()'s status naming the option. */
int cli_spec_parse(const struct cli_entry *cmd, int opt, const char *arg,
                   struct cli_spec_opts *o);

/* Checks and completes o after parsing, as a scenario's
 * server.speculative: --spec-tokens and --acceptance need a method, ngram
 * needs an acceptance; with a method, tokens default to 1 and mtp's
 * acceptance to CL_SPEC_MTP_ACCEPTANCE. Returns 0 or a usage error. */
int cli_spec_finish(const struct cli_entry *cmd, struct cli_spec_opts *o);

/* Writes the current UTC time as ISO-8601 ("2026-11-30T05:37:02Z"). */
void cli_utc_stamp(char *buf, size_t len);

/* The exit status of a failed simulation's code rc (a SIM_E* code):
 * CLI_EXIT_INPUT for a scenario, trace or I/O error or an infeasible
 * deployment, else CLI_EXIT_INTERNAL. */
int cli_exit_status(int rc);

struct cl_scenario;
struct cl_plan;

/* Shapes s's nodes from the options of dsec CMD: gpus_per_node from nodes
 * (> 0: gpus / nodes) or s's own, nics_per_node from nics (> 0) or one per
 * GPU, and the inter-node link from the catalog name link (NULL keeps the
 * calibrated one). Returns 0, or CLI_EXIT_INPUT after printing "dsec CMD:
 * ..." when gpus do not split evenly over nodes, do not fill nodes of
 * s->gpus_per_node, or link is unknown (the valid names listed). */
int cli_layout_nodes(const char *cmd, int gpus, int nodes, int nics,
                     const char *link, struct layout_setup *s);

/* The --set KEY=VALUE options of a command (docs/scenario.md, "Overrides
 * on the command line"): borrowed argv strings. */
#define CLI_SETS_MAX 64
struct cli_sets {
    const char *v[CLI_SETS_MAX];
    int n;
};

/* The --set option's help lines and its usage error. */
#define CLI_SET_HELP                                                           \
    "  --set KEY=VALUE  override a scenario key (repeatable): the key paths "  \
    "of the YAML\n"                                                            \
    "                   (pools[0].capacity_gpus) and YAML values, as a "       \
    "sweep's set:\n"
#define CLI_SET_USAGE                                                          \
    "--set: expected KEY=VALUE (a dotted key path such as "                    \
    "cluster.max_gpus, then =, then a YAML value on one line; at most 64)"

/* Adds arg ("key.path=value") to s. Returns 0, or -1 when it has no '=' or
 * an empty key, holds a line break, or s is full. */
int cli_set_add(struct cli_sets *s, const char *arg);

/* Loads and checks a scenario file as dsec run, twin and compare do:
 * scn_scenario_open() (plan may be NULL) of the file's text with sets
 * applied (sets may be NULL or empty), printing
 * every diagnostic (errors, warnings, notes) to stderr. Returns 0 with
 * *scn filled (caller frees with cl_scenario_fini()), or CLI_EXIT_INPUT
 * with *scn released. */
int cli_load_scenario(const char *path, const struct cli_sets *sets,
                      struct cl_scenario *scn, struct cl_plan *plan);

/* As cli_load_scenario(), with the diagnostics added to d instead of
 * printed (for a thread's copy of a scenario already loaded once). */
int cli_load_scenario_quiet(const char *path, const struct cli_sets *sets,
                            struct cl_scenario *scn, struct cl_plan *plan,
                            struct sim_diag *d);

/* Replaces s's calibration profile (hardware.calibration or the built-in)
 * with the profile at path, as dsec CMD --calibration does: the profile
 * must load and have an entry for every GPU kind s uses (hardware.gpu and
 * each pool's) or a default entry; otherwise "PATH: error: ..." naming the
 * kinds it has and the scenario's, and CLI_EXIT_INPUT. Returns 0. */
int cli_apply_calibration(const char *cmd, struct cl_scenario *s,
                          const char *path);

struct arch_spec;

/*
 * Resolves a MODEL argument as dsec model show, step and strategies take
 * it: a catalog name (arch_find(), ignoring case) wins; otherwise a name
 * that exists on disk, holds a '/' or ends in ".json" is read as a Hugging
 * Face config.json or the directory holding one (arch_hf_load()).
 *   cmd: the command's name, for messages ("step").
 *   name: the argument (borrowed).
 *   loaded: receives the entry read from a config.json, which the caller
 *     frees with arch_hf_free(), or NULL for a catalog entry or on failure.
 * Returns the entry (borrowed: the catalog's, or *loaded). On failure
 * returns NULL after printing one line to stderr: the config's diagnostic
 * ("PATH:LINE:COL: error: ...") or "dsec CMD: unknown model 'NAME'; valid:
 * NAMES[; did you mean 'GUESS'?] (or give the path of a config.json)".
 */
const struct arch_spec *cli_resolve_model(const char *cmd, const char *name,
                                          struct arch_spec **loaded);

#endif /* CLI_H */
