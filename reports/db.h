/*
 * The results database: an SQLite file holding every run's description,
 * summary metrics, time series and notes (schema in reports/schema.sql,
 * described in docs/results.md). A run is written in one transaction, so a
 * database never holds half a run. The handle owns its sqlite3 connection;
 * errors are reported as diagnostics naming the database file. Opens use WAL
 * journal mode and a busy timeout, so a reader or a second writer (another
 * process of a sweep) waits instead of failing. Single-threaded per handle.
 */
#ifndef RPT_DB_H
#define RPT_DB_H

#include <stdint.h>

#include "models/cluster/results.h"
#include "base/diag.h"

/* How long a statement waits for another connection's lock, in ms. */
#define RPT_DB_BUSY_TIMEOUT_MS 5000

struct rpt_db;

/* What describes a run besides its results. Every string is borrowed for the
 * call and may be NULL (stored as NULL) except started_at, the wall-clock
 * start as ISO-8601 UTC ("2025-01-31T12:00:00Z"), which the caller supplies
 * because nothing in the simulator reads the clock. scenario_name NULL falls
 * back to the results' own scenario_name. */
struct cl_pi;

struct rpt_run_info {
    const char *started_at;
    const char *scenario_name;
    const char *scenario_file;
    const char *scenario_text;
    const char *program_version;
    uint64_t seed;
    const struct cl_pi *pi; /* dsec run --uncertainty, or NULL */
};

/* Opens the results database at path (":memory:" works too), creating the
 * file and the schema if the file is new or empty, and turns on WAL journal
 * mode, foreign keys and a busy timeout of RPT_DB_BUSY_TIMEOUT_MS. Returns a
 * handle that the caller closes with rpt_db_close(), or NULL after adding an
 * error to d ("PATH: error: cannot open database: ...", "...: database
 * schema version 2 is newer than this program's 1", "... is older ...", or
 * "...: not a dsec results database") and leaving nothing open. */
struct rpt_db *rpt_db_open(const char *path, struct sim_diag *d);

/* Writes one run: a row in runs (status 'ok'), every scalar of r in summary,
 * r's time series and notes, in one transaction (BEGIN IMMEDIATE ... COMMIT).
 * NAN values are stored as NULL, times in seconds. info and r are borrowed.
 * Returns 0 and stores the new runs.id in *run_id_out (which may be NULL), or
 * SIM_EDB after adding "PATH: error: cannot write run: ..." to d; then the
 * transaction is rolled back, the database holds nothing of this run and
 * *run_id_out is unchanged. SIM_EINVAL if info->started_at is NULL. */
int rpt_db_write_run(struct rpt_db *db, const struct rpt_run_info *info,
                     const struct cl_results *r, int64_t *run_id_out,
                     struct sim_diag *d);

/* What identifies and describes a sweep (dsec sweep, docs/sweep.md). Every
 * string is borrowed for the call; hash and created_at must not be NULL. */
struct rpt_sweep_info {
    const char *name;
    const char *sweep_file;
    const char *sweep_text;
    const char *hash;       /* identity: equal hashes are the same sweep */
    const char *created_at; /* ISO-8601 UTC, from the caller */
    int64_t points;         /* the size of the grid */
};

/* Finds the sweep whose hash is info->hash, or inserts a row for it (in its
 * own transaction). Returns 0 with its id in *sweep_id_out and *created_out
 * set to 1 if the row is new, 0 if it existed (created_out may be NULL); or
 * SIM_EDB after adding "PATH: error: cannot record sweep: ..." to d, with
 * the outputs unchanged. SIM_EINVAL if hash or created_at is NULL. */
int rpt_db_sweep_find_or_add(struct rpt_db *db,
                             const struct rpt_sweep_info *info,
                             int64_t *sweep_id_out, int *created_out,
                             struct sim_diag *d);

/* Statuses of a recorded sweep point. */
#define RPT_SWEEP_OK "ok"
#define RPT_SWEEP_INFEASIBLE "infeasible"

/* One point of a sweep as recorded: its canonical key, its 0-based position
 * in the grid, its status (RPT_SWEEP_OK or RPT_SWEEP_INFEASIBLE), the message
 * saying why it is infeasible (NULL when ok) and its overrides, nvalues
 * pairs paths[i] = values[i]. Everything is borrowed for the call. */
struct rpt_sweep_point {
    int64_t sweep_id;
    const char *key;
    int64_t seq;
    const char *status;
    const char *message;
    const char *const *paths;
    const char *const *values;
    int nvalues;
};

/* Records one point of a sweep: when r is not NULL, its run as
 * rpt_db_write_run() does (info then must not be NULL), and the point's row
 * in sweep_points linked to that run, with its rows in sweep_values, all in
 * one transaction (BEGIN IMMEDIATE ... COMMIT). r NULL records a point with
 * no run (an infeasible one). Returns 0 and stores the new run id (0 without
 * a run) in *run_id_out (which may be NULL); SIM_EBUSY if the point was
 * already recorded (another process of the same sweep wrote it first: the
 * transaction is rolled back and nothing is added, no diagnostic); SIM_EDB
 * after adding "PATH: error: cannot write sweep point: ..." to d, or
 * SIM_EINVAL as rpt_db_write_run(); on every failure the database holds
 * nothing of this call and *run_id_out is unchanged. */
int rpt_db_write_sweep_point(struct rpt_db *db,
                             const struct rpt_sweep_point *pt,
                             const struct rpt_run_info *info,
                             const struct cl_results *r, int64_t *run_id_out,
                             struct sim_diag *d);

/* Called once per recorded point of a sweep by rpt_db_sweep_points(), in
 * order of seq. key, status and message (NULL when none) are borrowed for
 * the call; run_id is 0 for a point without a run; values[i] is the run's
 * summary value of metrics[i] (NAN when NULL, missing, or without a run).
 * A non-zero return stops the walk and is returned. The callback must not
 * use the database handle: the walk holds a read transaction on it. */
typedef int (*rpt_sweep_point_fn)(void *ctx, const char *key, int64_t seq,
                                  const char *status, const char *message,
                                  int64_t run_id, const double *values);

/* Walks the recorded points of sweep_id, reading for each the summary
 * metrics named in metrics[0..nmetrics-1] (names as in docs/results.md, at
 * most 32). Returns 0, the callback's non-zero value, or SIM_EDB after
 * adding "PATH: error: cannot read sweep: ..." to d. */
int rpt_db_sweep_points(struct rpt_db *db, int64_t sweep_id,
                        const char *const *metrics, int nmetrics,
                        rpt_sweep_point_fn fn, void *ctx, struct sim_diag *d);

/* Closes the database and frees the handle. NULL is a no-op. */
void rpt_db_close(struct rpt_db *db);

#endif /* RPT_DB_H */
