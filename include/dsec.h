/*
 * dsec.h: dsec as a library (libdsec). Load a scenario from a file or a
 * string, override keys as the command line's --set does, validate it
 * (every error, each "file:line:col: error: ..."), run it whole or step it
 * as the digital twin does, and read the results by field or as the JSON
 * of `dsec run --json`. Scaling policies come in through the policy ABI of
 * dsec/policy.h: in the tree, as plug-ins (policy.plugin), or handed to a
 * scenario at run time (dsec_scenario_set_policy(), which the Python
 * package uses for policies written in Python). docs/library.md walks
 * through it with a complete example.
 *
 * Conventions, for every call:
 *   - Functions that can fail return 0 or a negative DSEC_E* code. When
 *     they take char **err, a failure stores there a message the caller
 *     frees with dsec_free(): one diagnostic per line, the same text the
 *     command line prints. err may be NULL; on success *err is NULL.
 *   - Objects returned through an out-pointer are owned by the caller and
 *     freed with their own _free()/_close() call; NULL is always a no-op
 *     there. Strings returned by value (char *) are freed with dsec_free();
 *     const char * results are borrowed from the object that returned them
 *     and valid until it is freed or changed.
 *   - Arguments that are pointers must not be NULL unless a call says so.
 *     Nothing calls abort() on bad input; running out of memory does end
 *     the process with a message (as the command line does).
 *   - An object may be used by one thread at a time. Different objects may
 *     be used on different threads at once (each run has its own state).
 *   - Same scenario, seed and overrides: the same results, bit for bit.
 *
 * Versions: DSEC_LIB_VERSION is the release; the shared object's soname
 * (libdsec.so.N) changes whenever this interface changes incompatibly,
 * and POL_API_VERSION (dsec/policy.h) whenever the policy ABI does.
 */
#ifndef DSEC_H
#define DSEC_H

#include <stddef.h>
#include <stdint.h>

#include "dsec/param.h"
#include "dsec/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (the command line's SIM_E* codes, same values). */
enum dsec_status {
    DSEC_OK = 0,
    DSEC_ENOMEM = -1,
    DSEC_EINVAL = -2, /* the scenario or an argument is invalid */
    DSEC_EIO = -3,    /* a file could not be read or written */
    DSEC_EPARSE = -4, /* YAML syntax */
    DSEC_ERANGE = -5,
    DSEC_ENOTFOUND = -6,   /* no such results field */
    DSEC_EINFEASIBLE = -8, /* loads, but no layout fits the GPUs */
};

/* The release, such as "0.1.0" (static). */
const char *dsec_version(void);

/* POL_API_VERSION of the library (a plug-in or a caller built against
 * other headers can compare). */
int dsec_policy_api_version(void);

/* A short static description of a DSEC_E* code. */
const char *dsec_strerror(int code);

/* Frees a string or buffer the library returned; NULL is a no-op. */
void dsec_free(void *p);

/* The size in bytes of a public struct as this library was built ("
 * pol_snapshot", "pol_replica", "pol_pool", "pol_decision", "pol_ops",
 * "pol_entry", "sim_param", "dsec_policy_plugin"), so that bindings that
 * declare the structs themselves can check their layout; 0 for an unknown
 * name. */
size_t dsec_type_size(const char *name);

/* ---- Scenarios ---- */

typedef struct dsec_scenario dsec_scenario;

/* Reads the scenario at path. Only the file's reading and its YAML syntax
 * are checked here; dsec_scenario_validate() checks the rest. Relative
 * paths inside it (traces, hf_config, plug-ins) are taken from its
 * directory. Returns 0 with *out set, or DSEC_EIO / DSEC_EPARSE with *out
 * NULL and *err the message. */
int dsec_scenario_load_file(const char *path, dsec_scenario **out, char **err);

/* As dsec_scenario_load_file(), from text (len bytes; len 0 means
 * strlen(text)). name labels it in messages ("name:line:col: ..."); dir is
 * the directory relative paths inside it are taken from (NULL: the
 * current directory). */
int dsec_scenario_load_string(const char *name, const char *text, size_t len,
                              const char *dir, dsec_scenario **out, char **err);

/* Frees sc. */
void dsec_scenario_free(dsec_scenario *sc);

/* Adds an override, "KEY=VALUE" with the key path and YAML value of the
 * command line's --set (docs/scenario.md): "cluster.max_gpus=16",
 * "workload.rate=8/s", "policy.params.target=0.5". Overrides apply in the
 * order added, on top of the text, and are checked with it by
 * dsec_scenario_validate() and dsec_run(); here only their form
 * (KEY=VALUE, a non-empty key) is. Returns 0 or DSEC_EINVAL. */
int dsec_scenario_set(dsec_scenario *sc, const char *assignment, char **err);

/* Removes every override. */
void dsec_scenario_clear_sets(dsec_scenario *sc);

/* Sets the seed of the next runs (the scenario's own seed otherwise). */
void dsec_scenario_set_seed(dsec_scenario *sc, uint64_t seed);

/* Makes e the scenario's scaling policy (the scenario must be elastic:
 * cluster.min_gpus and max_gpus), as policy.plugin does with a plug-in's
 * entry: policy.name becomes e->name, and the text's policy.params are
 * checked against e->params (an override of policy.params.KEY is checked,
 * when it is applied, against the policy the text names: give an entry's
 * parameters in the text, or load it as a plug-in). e is borrowed: it must
 * outlive every run of sc. The entry's ops->version must be POL_API_VERSION.
 * NULL goes back to the scenario's own policy. Returns 0 or DSEC_EINVAL. */
int dsec_scenario_set_policy(dsec_scenario *sc, const struct pol_entry *e,
                             char **err);

/* Checks the scenario with its overrides as dsec validate does: every
 * key, the catalogs (model, GPUs, policy and its parameters) and that a
 * layout fits. Returns 0 when it can run, with *notes (if not NULL) set to
 * the warnings and notes of loading and checking it or NULL when there are
 * none (notes of a run, such as a layout derived, come with its results); else
 * DSEC_EINVAL, DSEC_EPARSE, DSEC_EIO or DSEC_EINFEASIBLE with every error in
 * *err. */
int dsec_scenario_validate(dsec_scenario *sc, char **notes, char **err);

/* The scenario's YAML text with its overrides applied (what a run
 * stores). Returns NULL with *err set when an override does not apply. */
char *dsec_scenario_text(dsec_scenario *sc, char **err);

/* The scenario's name: its name: key once it has been validated or run,
 * else the file name without its directory and .yaml/.yml suffix;
 * borrowed. */
const char *dsec_scenario_name(const dsec_scenario *sc);

/* ---- Runs and results ---- */

typedef struct dsec_results dsec_results;

/* Validates and runs the scenario (serving, then its training job if it
 * has one) and stores the results in *out. Returns 0, or the validation's
 * or the run's code with *out NULL and *err set. Writes nothing to any
 * file or database. */
int dsec_run(dsec_scenario *sc, dsec_results **out, char **err);

/* Frees res. */
void dsec_results_free(dsec_results *res);

/* The results as one JSON object, the same as `dsec run --json` prints
 * (docs/results.md), but for wall_s and events_per_s, which are 0: the
 * library reads no clock. pretty: indented, else one line. Caller
 * frees. */
char *dsec_results_json(const dsec_results *res, int pretty);

/* Reads a numeric field of the results record by its JSON name
 * (docs/results.md): counts, fractions, seconds, dollars, and the latency
 * statistics as "NAME.SUB" ("ttft_ms.p99", "tpot_ms.mean"). Times of
 * simulated time are in seconds. Returns 0 with *out set (NAN where the
 * run has no value), or DSEC_ENOTFOUND for a name that is no numeric
 * field. */
int dsec_results_get(const dsec_results *res, const char *name, double *out);

/* The number of numeric fields dsec_results_get() reads, and the name of
 * the i-th (borrowed, static; NULL out of range), in results order. */
int dsec_results_nfields(void);
const char *dsec_results_field_name(int i);

/* ---- Sessions: a run advanced step by step ---- */

typedef struct dsec_session dsec_session;

enum dsec_session_flags {
    /* The policy is never asked: dsec_session_set_desired() sets the size
     * (the scenario must be elastic), as the digital twin's Scale API. */
    DSEC_SESSION_EXTERNAL = 1,
};

/* Validates the scenario and opens a run of it at simulated time 0.
 * flags: enum dsec_session_flags. The session keeps its own copy of the
 * scenario. Returns 0 with *out set, or a code with *err set. */
int dsec_session_open(dsec_scenario *sc, int flags, dsec_session **out,
                      char **err);

/* Runs every event up to and including t_s seconds of simulated time (a
 * time before the clock is a no-op; INFINITY: to the end). Returns 0, or
 * a workload error's code (a bad trace row) with *err set. */
int dsec_session_advance(dsec_session *ss, double t_s, char **err);

/* The simulated clock, in seconds. */
double dsec_session_now(const dsec_session *ss);

/* External sessions: sets the desired replicas now (clamped to the
 * scenario's bounds). Returns the clamped count, or DSEC_EINVAL when the
 * session is not external. */
int dsec_session_set_desired(dsec_session *ss, int desired);

/* The cluster and every replica now, as a JSON object: {"now_s", "desired",
 * "serving", "pending", "draining", "arrived", "completed", ...,
 * "replicas": [{"serial", "pool", "state", "num_running", "num_waiting",
 * "kv_usage", ...}]} (docs/library.md). Caller frees. */
char *dsec_session_state_json(const dsec_session *ss);

/* Ends the run at the session's clock (advance to INFINITY first for the
 * whole run; then the results equal dsec_run()'s), stores its results in
 * *out (if out is not NULL) and frees the session. Returns 0 or the
 * workload's error code with *err set (the results are then those
 * simulated so far). */
int dsec_session_close(dsec_session *ss, dsec_results **out, char **err);

/* ---- Comparisons ---- */

/* Runs each of the policies ("NAME" or "NAME:KEY=VALUE,...", as
 * `dsec compare --policy`; NULL or "" for the scenario's own) on the
 * scenario, replications runs each (1 to 1000) with seeds seed, seed + 1,
 * ... (common random numbers), and stores in *json the comparison as
 * `dsec compare --json` prints it: means with 95 % t intervals (none for
 * one replication) and paired differences against the first policy.
 * jobs: threads (0: the online CPUs); the result does not depend on them.
 * Returns 0 with *json set (caller frees), or a code with *json NULL and
 * *err set. */
int dsec_compare_json(dsec_scenario *sc, const char *const *policies,
                      int npolicies, int replications, uint64_t seed, int jobs,
                      char **json, char **err);

#ifdef __cplusplus
}
#endif

#endif /* DSEC_H */
