/*
 * The scenario loader: reads a YAML scenario with libyaml and fills a struct
 * cl_scenario (models/cluster/config.h) through the composition table of
 * scenarios/schema.h and the section rows it points at, which supply types,
 * units, ranges and defaults. It then runs the cross-field checks that need
 * no catalog (exactly one of, keys a kind uses, min <= max, sorted rate
 * steps, pool names and capacity) and records where the values that catalog
 * and policy checks need were found (struct cl_scenario_pos). Lists (pools,
 * steps, scripted faults) are owned arrays capped at SIM_PARAM_LIST_MAX
 * elements; policy.params is kept as text for the policy's own rows.
 * Diagnostics are "file:line:col: error: key.path: what was expected",
 * 1-based. A YAML syntax error stops the load; semantic errors are all
 * collected. The scenario's model, GPU and policy names are looked up by
 * the check that follows the load in scn_scenario_open(), the pipeline
 * call every command uses. Single-threaded.
 */
#ifndef SCN_LOAD_H
#define SCN_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "models/cluster/config.h"
#include "base/diag.h"

struct cl_plan;
struct pol_entry;

/* Largest scenario text accepted, in bytes. */
#define SCN_MAX_TEXT_BYTES (4u << 20)

/* Loads the scenario text (len bytes, need not be NUL-terminated) into *out.
 * name is the file name used in messages, in out->file and, without its
 * directory and .yaml/.yml suffix, as the default out->name. On success
 * returns 0 and *out owns its strings (free with cl_scenario_fini()); out->text
 * holds a NUL-terminated copy of text. Notes (e.g. an ignored key) may be
 * added to d even on success. On failure returns SIM_EPARSE (YAML syntax;
 * one diagnostic at libyaml's position) or SIM_EINVAL (one or more semantic
 * errors, each added to d) and leaves *out zeroed. */
int scn_string_load(const char *name, const char *text, size_t len,
                    struct cl_scenario *out, struct sim_diag *d);

/* Reads the file at path and loads it as scn_string_load(path, ...) does.
 * Returns as scn_string_load(), or SIM_EIO when the file cannot be read or
 * is larger than SCN_MAX_TEXT_BYTES (with a diagnostic naming the file). *out
 * is zeroed on failure. */
int scn_file_load(const char *path, struct cl_scenario *out,
                  struct sim_diag *d);

/* What scn_scenario_open() reads and fills besides the scenario; a zeroed
 * struct (or NULL) reads the file at the path and wants no plan. */
struct scn_open_opts {
    /* The scenario text (len bytes, need not be NUL-terminated), or NULL
     * to read the file at path; path then only names it. */
    const char *text;
    size_t len;
    /* Filled with the replica layout the check chose, or NULL. */
    struct cl_plan *plan;
    /* 1: a scenario that loads but is infeasible (no layout fits) stays in
     * *out and SIM_EINFEASIBLE is returned; 0: it is freed as any other
     * failure is. */
    int keep_infeasible;
    /* The policy to use in place of the one the scenario names (borrowed;
     * dsec_scenario_set_policy()), or NULL. */
    const struct pol_entry *policy;
};

/* The scenario pipeline: loads the scenario at path (scn_file_load(), or
 * scn_string_load() of opts->text), resolves the names it gives (model,
 * GPUs, pools, policy) against the catalogs and checks that it can run
 * (cl_scenario_check(), models/cluster/cluster.h). Returns 0 with *out
 * owned by the caller (free with cl_scenario_fini()) and *opts->plan
 * filled; or the load's code (SIM_EIO, SIM_EPARSE, SIM_EINVAL) or the
 * check's (SIM_EINVAL, SIM_EINFEASIBLE) with the reasons in d and *out
 * zeroed, except that SIM_EINFEASIBLE with opts->keep_infeasible leaves *out
 * filled. Notes and warnings may be added to d on success too. */
int scn_scenario_open(const char *path, const struct scn_open_opts *opts,
                      struct cl_scenario *out, struct sim_diag *d);

/* Prints the reference of every scenario key (path, type, unit, range,
 * default, help) generated from the tables, for `dsec help scenario`. */
void scn_help_print(FILE *fp);

/* Prints rows as scn_help_print() prints the scenario's (dsec help sweep
 * and scaler use it for those files' keys). */
struct sim_param;
void scn_help_print_rows(FILE *fp, const struct sim_param *rows);

#endif /* SCN_LOAD_H */
