/*
 * The scaling-policy interface, version 1 (its types are public:
 * include/dsec/policy.h). A policy sees only what a live
 * system can see: a snapshot of serving metrics per replica and per pool,
 * as vLLM exports them (docs/sources.md §6.1), windowed aggregates over the
 * last metrics window, the current and pending sizes, the targets and the
 * clock. It answers with the desired number of replicas and, optionally, how
 * many of them it wants borrowed from preemptible test pools and how the
 * replicas it removes should leave (finish in place or migrate).
 *
 * The same object files are linked into the simulator (dsec) and into the
 * live scaler (dsec-scaler), so nothing here or in a policy file may depend
 * on the simulator: only plain C types, <math.h>, GSL for numerics, and the
 * parameter rows of base/param.h (plain data) to declare settable parameters.
 * Time is double seconds here (the scaler reads a wall clock); the
 * simulator converts its int64 ns.
 *
 * Life of a policy object: pol_create() with the entry and the parameter
 * block (filled from the entry's rows: defaults, then YAML); decide() once
 * per evaluation interval with a borrowed snapshot; pol_destroy(). A policy
 * may keep state between calls (windows, forecasts). Single-threaded.
 *
 * The guard rails common to all policies (no decision on invalid metrics,
 * cooldowns, step limits, clamping to [min, max]) are applied by
 * pol_guard_apply() (guard.h) after decide(); policies need not repeat them.
 */
#ifndef POL_POLICY_H
#define POL_POLICY_H

#include <stddef.h>

#include "base/param.h"
#include "dsec/policy.h"

/* The registry: NULL-terminated, name-sorted (models/policy/table.c). */
extern const struct pol_entry *const pol_table[];

/* Lookup by name, ASCII case ignored; NULL on a miss. */
const struct pol_entry *pol_find(const char *name);

/* Writes into buf (len bytes) why key is no parameter of e: "unknown
 * parameter of policy NAME; did you mean 'K'?" for a key within two edits
 * of one, else the list of e's parameters. */
void pol_param_unknown(const struct pol_entry *e, const char *key, char *buf,
                       size_t len);

/* "a, b, c" of every name, for "valid: ..." messages. Caller frees. */
char *pol_names(void);

/* Fills a parameter block of e (e->params_size bytes) with the defaults of
 * every row. Returns 0, or the sim_param error code of the first bad
 * default (a bug in a table) with err filled. */
int pol_params_default(const struct pol_entry *e, void *block, char *err,
                       size_t errlen);

/* Loads the policy plug-in at path (a shared object exporting
 * dsec_policy_plugin, dsec/policy.h) with dlopen; a relative path is taken
 * from dir (NULL: the current directory). Returns the plug-in's entry
 * (valid for the life of the process: plug-ins are never unloaded), or NULL
 * with why (len bytes) saying what failed: the file, a missing symbol, a
 * plug-in built for another API version (both versions named) or an entry
 * without name or ops. Loading the same path twice returns the same entry. */
const struct pol_entry *pol_plugin_load(const char *path, const char *dir,
                                        char *why, size_t len);

#endif /* POL_POLICY_H */
