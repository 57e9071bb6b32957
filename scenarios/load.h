/*
 * The scenario loader: reads a YAML scenario with libyaml and fills a struct
 * cl_scenario (models/cluster/config.h) through the tables of
 * scenarios/schema.h, which supply types, units, ranges and defaults. It then
 * runs the cross-field checks that need no catalog (exactly one of, keys a
 * kind uses, min <= max, sorted rate steps, pool names and capacity) and
 * records where the values that catalog and policy checks need were found
 * (struct cl_scenario_pos). Lists (pools, steps, scripted faults) are owned
 * arrays capped at SIM_PARAM_LIST_MAX elements; policy.params is kept as
 * text for the policy's own rows. Diagnostics are
 * "file:line:col: error: key.path: what was expected", 1-based. A YAML
 * syntax error stops the load; semantic errors are all collected. Model and
 * GPU names are not looked up here. Single-threaded.
 */
#ifndef SCN_LOAD_H
#define SCN_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "models/cluster/config.h"
#include "base/diag.h"

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

/* Prints the reference of every scenario key (path, type, unit, range,
 * default, help) generated from the tables, for `dsec help scenario`. */
void scn_help_print(FILE *fp);

#endif /* SCN_LOAD_H */
