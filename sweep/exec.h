/*
 * Running a sweep: the points of a loaded spec (sweep/spec.h) that the
 * results database does not hold yet run on a pool of worker threads
 * (sweep/pool.h), and, under MPI, on other ranks too (sweep/mpi.h); the
 * calling thread is the one writer, and records each finished point in its
 * own transaction with its run (rpt_db_write_sweep_point()). A sweep found
 * in the database (same hash) resumes: recorded points are skipped.
 * Infeasible points are recorded without simulating. Progress goes to a
 * stream: a bar with ETA on a terminal, or a line every few seconds.
 * Interrupts: after the first, no new point starts and the running ones
 * finish and are recorded; after the second, the running ones are
 * abandoned and swp_exec() returns at once (the database holds only whole
 * points either way). The wall clock is read here for progress and run
 * timestamps; nothing of it reaches the simulated results.
 */
#ifndef SWP_EXEC_H
#define SWP_EXEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reports/db.h"
#include "base/diag.h"
#include "sweep/spec.h"

struct swp_mpi;

enum swp_progress {
    SWP_PROGRESS_NONE,
    SWP_PROGRESS_BAR,   /* redrawn in place, for a terminal */
    SWP_PROGRESS_LINES, /* one line every SWP_PROGRESS_LINE_S seconds */
};

/* Seconds between progress lines when the stream is not a terminal. */
#define SWP_PROGRESS_LINE_S 10.0

struct swp_exec_opts {
    int jobs;                          /* worker threads here; 0 with mpi:
                                          rank 0 only serves (else 1) */
    enum swp_progress progress;        /* written to log */
    FILE *log;                         /* progress and interrupt messages;
                                          NULL for none */
    volatile sig_atomic_t *interrupts; /* SIGINTs so far; may be NULL */
    const char *program_version;       /* stored with each run */
    struct swp_mpi *mpi;               /* rank 0 of an MPI job, or NULL */
};

struct swp_exec_stats {
    int64_t sweep_id;
    size_t points;     /* in the grid */
    size_t before;     /* recorded before this call */
    size_t ran;        /* simulated and recorded by this call */
    size_t infeasible; /* recorded by this call without simulating */
    size_t failed;     /* simulations that failed: not recorded */
    size_t elsewhere;  /* recorded meanwhile by another process */
    size_t remaining;  /* not recorded when the call returned */
    size_t abandoned;  /* running when a second interrupt came */
    int interrupted;   /* 1 after one interrupt, 2 after two */
    double wall_s;
};

/* Runs what is missing of spec s against the open database db. Fills *st.
 * Returns 0 (also when interrupted or when points failed: see *st, and the
 * failures' diagnostics added to d), SIM_EDB when the database cannot be
 * read or written (a diagnostic in d; the points recorded so far stay), or
 * SIM_EIO when an MPI message cannot be read. After a second interrupt
 * (st->abandoned > 0) worker threads may still be running: the caller must
 * then end the process (exit or MPI abort) rather than carry on. */
int swp_exec(const struct swp_spec *s, struct rpt_db *db,
             const struct swp_exec_opts *o, struct swp_exec_stats *st,
             struct sim_diag *d);

#endif /* SWP_EXEC_H */
