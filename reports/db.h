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
#include "sim/diag.h"

/* How long a statement waits for another connection's lock, in ms. */
#define RPT_DB_BUSY_TIMEOUT_MS 5000

struct rpt_db;

/* What describes a run besides its results. Every string is borrowed for the
 * call and may be NULL (stored as NULL) except started_at, the wall-clock
 * start as ISO-8601 UTC ("2025-01-31T12:00:00Z"), which the caller supplies
 * because nothing in the simulator reads the clock. scenario_name NULL falls
 * back to the results' own scenario_name. */
struct rpt_run_info {
    const char *started_at;
    const char *scenario_name;
    const char *scenario_file;
    const char *scenario_text;
    const char *program_version;
    uint64_t seed;
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

/* Closes the database and frees the handle. NULL is a no-op. */
void rpt_db_close(struct rpt_db *db);

#endif /* RPT_DB_H */
