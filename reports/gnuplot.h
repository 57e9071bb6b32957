/*
 * Running gnuplot, shared by the comparison chart and the cost report.
 * gnuplot is a separate program run with fork/execv on a script file, never
 * through a shell, so no path or label is ever parsed by sh; inside a script
 * every string is a single-quoted gnuplot string, where only a doubled quote
 * is special. Charts are PNG, through pngcairo when gnuplot has it (else the
 * plain png terminal). Nothing here keeps state. Single-threaded.
 */
#ifndef RPT_GNUPLOT_H
#define RPT_GNUPLOT_H

#include <stdio.h>

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

/* Runs the program at gnuplot_path on the script file script, with its
 * stdout and stderr written to errpath. Returns gnuplot's exit status, or -1
 * if it could not be started or was killed by a signal. */
int rpt_gp_run(const char *gnuplot_path, const char *script,
               const char *errpath);

/* Returns the first non-blank line of the file at path (gnuplot's error
 * message, for a diagnostic), or NULL when there is none. Caller frees with
 * free(). */
char *rpt_gp_first_line(const char *path);

#endif /* RPT_GNUPLOT_H */
