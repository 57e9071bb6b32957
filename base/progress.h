/*
 * A progress line for long commands on stderr or a log: redrawn in place
 * on a terminal (a carriage return before each draw, blanks over it at the
 * end) or written as whole lines to a log, at most once per interval of
 * wall-clock time. The caller formats the text; this keeps the clock, the
 * rate limit and whether a line is showing. It reads the wall clock
 * (CLOCK_MONOTONIC), so the commands and drivers use it (cli/, sweep/,
 * plan/), never the simulation. The struct is the caller's; one thread
 * draws on it.
 */
#ifndef BASE_PROGRESS_H
#define BASE_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "base/xalloc.h"

/* Columns that sim_progress_clear() blanks: an 80-column terminal's line
 * less the last column, where a character would wrap. */
#define SIM_PROGRESS_COLS 79

/* A progress line. Fill it with sim_progress_start(); the fields are
 * read-only to callers. */
struct sim_progress {
    FILE *fp;       /* where lines go (borrowed); NULL: none are drawn */
    int in_place;   /* 1: one line redrawn over itself; 0: a line per draw */
    double every_s; /* least wall-clock seconds between two due draws */
    double t0_s;    /* the monotonic clock at the start, seconds */
    double last_s;  /* seconds after t0_s of the last draw (0 at start) */
    int drawn;      /* an in-place line is on the terminal */
};

/* Starts the clock of p. fp (borrowed, may be NULL for no output) gets the
 * lines; in_place redraws one line (for a terminal), else each draw is a
 * line of its own (for a log); every_s is the least interval between two
 * draws that sim_progress_due() lets through. */
void sim_progress_start(struct sim_progress *p, FILE *fp, int in_place,
                        double every_s);

/* Restarts the clock of p for a new task (a replication), keeping its
 * output and any line on the terminal. */
void sim_progress_restart(struct sim_progress *p);

/* Wall-clock seconds since the clock of p started. Works with fp NULL. */
double sim_progress_wall_s(const struct sim_progress *p);

/* Returns 1 when p has an output and every_s has passed since its last
 * draw (or its start), 0 otherwise. */
int sim_progress_due(const struct sim_progress *p);

/* Draws one line (printf format, no newline or carriage return in it) and
 * flushes fp: in place after a carriage return, else followed by a
 * newline. Records the time of the draw. Nothing when fp is NULL. */
void sim_progress_draw(struct sim_progress *p, const char *fmt, ...)
    SIM_PRINTF(2, 3);

/* Blanks an in-place line that is showing (SIM_PROGRESS_COLS columns) and
 * returns the cursor to the start of the line; nothing otherwise. */
void sim_progress_clear(struct sim_progress *p);

/* Writes a bar of width cells, '#' for the fraction done/total and '.' for
 * the rest, into buf (width + 1 bytes) and returns buf. total 0 is an
 * empty bar. */
char *sim_progress_bar(char *buf, size_t width, size_t done, size_t total);

#endif /* BASE_PROGRESS_H */
