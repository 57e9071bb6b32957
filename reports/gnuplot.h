/*
 * Running gnuplot: the one driver behind every chart (the comparison chart
 * of dsec compare --plot, the frontier of dsec plan --chart, the charts of
 * the run and comparison reports). A chart is drawn in a job: a temporary
 * directory under $TMPDIR (or /tmp) that holds its data files and script
 * and is removed, with everything in it, when the job ends. gnuplot is a
 * separate program run with fork/execv on the script, never through a
 * shell, so no path or label is ever parsed by sh; inside a script every
 * string is a single-quoted gnuplot string, where only a doubled quote is
 * special. Charts are PNG, through pngcairo when gnuplot has it (else the
 * plain png terminal).
 *
 * One rule says what a chart that cannot be drawn is (rpt_gp_fail()): an
 * error when the user asked for that chart (--plot, --chart), a note when
 * it is an optional part of a report, which is written without it. The
 * job owns its paths and files; nothing here keeps global state.
 * Single-threaded.
 */
#ifndef RPT_GNUPLOT_H
#define RPT_GNUPLOT_H

#include <stdio.h>

#include "base/diag.h"

/* The gnuplot to run, or NULL for none. The environment variable
 * DSEC_GNUPLOT, when set, overrides the program configure found: an empty
 * value, or a path that is not an executable file, means no gnuplot.
 * Unset, the configure-time path is used when it is still executable.
 * Returns a borrowed string (the environment's or a constant). */
const char *rpt_gp_find(void);

/* Writes s to fp as a single-quoted gnuplot string; newlines become spaces
 * (they would end the command). s is borrowed. */
void rpt_gp_quote(FILE *fp, const char *s);

/* Writes the terminal preamble: "set datafile missing '?'", a pngcairo (or
 * png) terminal of width x height pixels, noenhanced (labels print as
 * written), and "set output" to png_path. */
void rpt_gp_terminal(FILE *fp, const char *png_path, int width, int height);

/* Whether a chart that cannot be drawn is an error. */
enum rpt_gp_need {
    RPT_GP_OPTIONAL, /* part of a report, which is written without it */
    RPT_GP_ASKED,    /* the user asked for it by an option */
};

/* Says in d why the chart (or charts) at path cannot be drawn: fmt and its
 * arguments make the message ("cannot draw chart: ..."). An error for
 * RPT_GP_ASKED, a note for RPT_GP_OPTIONAL. Returns SIM_EIO for an asked
 * chart, 0 for an optional one, so a caller can return the result. */
int rpt_gp_fail(struct sim_diag *d, enum rpt_gp_need need, const char *path,
                const char *fmt, ...) SIM_PRINTF(4, 5);

/* A job: the gnuplot to run and a temporary directory for one or more
 * charts. Fill it with rpt_gp_job_init(); callers read dir (for messages)
 * and change nothing. */
struct rpt_gp_job {
    const char *gnuplot; /* borrowed */
    char *dir;           /* the temporary directory, owned */
    char **files;        /* paths made in it, removed by rpt_gp_job_fini() */
    int nfiles;
};

/* Starts a job with the gnuplot at gnuplot_path: makes its temporary
 * directory. Returns 0, or -1 with j empty (rpt_gp_job_fini() is then a
 * no-op) and *why set to a message the caller frees: "gnuplot not found
 * ..." when gnuplot_path is NULL, else "temporary directory DIR: REASON". */
int rpt_gp_job_init(struct rpt_gp_job *j, const char *gnuplot_path, char **why);

/* The path of the file named by fmt in j's directory ("p%d.dat"), removed
 * when the job ends. The same name gives the same path. Borrowed, valid
 * until rpt_gp_job_fini(). The file itself is the caller's to write. */
const char *rpt_gp_job_file(struct rpt_gp_job *j, const char *fmt, ...)
    SIM_PRINTF(2, 3);

/* Runs gnuplot on the script at script (a file of j), its output kept in
 * j's directory. Returns 0 when gnuplot exits with status 0; else -1 with
 * *why set to "GNUPLOT exited with status N: FIRST LINE OF ITS OUTPUT" (or
 * without the line when there is none), which the caller frees. */
int rpt_gp_job_run(struct rpt_gp_job *j, const char *script, char **why);

/* Removes every file of j and its directory, and frees j's paths. */
void rpt_gp_job_fini(struct rpt_gp_job *j);

#endif /* RPT_GNUPLOT_H */
