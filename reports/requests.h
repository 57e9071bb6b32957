/*
 * Per-request results as a file: one row per request (struct
 * cl_request_row, the columns of CL_REQUEST_FIELDS in list order), as CSV
 * with a header line or as JSON Lines (one object per line), written as
 * the run streams its rows (struct cl_run_opts.request), so memory does
 * not grow with the requests. NAN is an empty CSV field and JSON null;
 * doubles print as the shortest of %.15g, %.16g and %.17g that reads back
 * exactly. The handle owns its FILE. Single-threaded.
 */
#ifndef RPT_REQUESTS_H
#define RPT_REQUESTS_H

#include "models/cluster/results.h"
#include "base/diag.h"

enum rpt_req_format {
    RPT_REQ_CSV,   /* FILE ends in .csv */
    RPT_REQ_JSONL, /* FILE ends in .jsonl or .ndjson */
};

/* The format named by path's suffix, or -1 for any other name. */
int rpt_reqfile_format(const char *path);

struct rpt_reqfile;

/* Creates (truncates) path and, for CSV, writes the header line. Returns
 * a handle to close with rpt_reqfile_close(), or NULL after adding "PATH:
 * error: cannot write requests: ..." to d (also for a name of no known
 * format). */
struct rpt_reqfile *rpt_reqfile_open(const char *path, struct sim_diag *d);

/* Writes row (borrowed) as one line; ctx is the struct rpt_reqfile. The
 * signature of cl_request_fn. Write errors are kept for close. */
void rpt_reqfile_write(void *ctx, const struct cl_request_row *row);

/* Flushes and closes f. Returns 0, or SIM_EIO after adding "PATH: error:
 * cannot write requests: ..." to d when a write failed. NULL is a no-op
 * returning 0. */
int rpt_reqfile_close(struct rpt_reqfile *f, struct sim_diag *d);

#endif /* RPT_REQUESTS_H */
