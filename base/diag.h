/*
 * Diagnostics for users: a list of file:line:col messages collected while
 * loading and validating input, in the manner of SQLite's parse context.
 * Positions are 1-based; line 0 means "the whole file" and col 0 "the whole
 * line". Messages are lower case, with no trailing period or newline, and
 * start with the key path. At most SIM_DIAG_MAX_ERRORS errors are kept; later
 * ones are counted but dropped. Single-threaded; the list owns its strings.
 */
#ifndef BASE_DIAG_H
#define BASE_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#include "base/xalloc.h"

#define SIM_DIAG_MAX_ERRORS 20

enum sim_severity {
    SIM_SEV_ERROR,
    SIM_SEV_WARNING,
    SIM_SEV_NOTE,
};

struct sim_diag_entry {
    char *file; /* owned; may be NULL for messages about no file */
    int line;   /* 1-based, 0 = none */
    int col;    /* 1-based, 0 = none */
    enum sim_severity sev;
    char *msg; /* owned */
};

struct sim_diag {
    struct sim_diag_entry *v;
    int n;
    int cap;
    int nerrors; /* every error reported, including dropped ones */
};

/* Initialises an empty list. */
void sim_diag_init(struct sim_diag *d);

/* Frees every entry; the list is empty and reusable afterwards. */
void sim_diag_fini(struct sim_diag *d);

/* Appends a message. file may be NULL; it is copied. Errors past
 * SIM_DIAG_MAX_ERRORS are counted but not kept. */
void sim_diag_add(struct sim_diag *d, enum sim_severity sev, const char *file,
                  int line, int col, const char *fmt, ...) SIM_PRINTF(6, 7);

/* As sim_diag_add() with a va_list. */
void sim_diag_vadd(struct sim_diag *d, enum sim_severity sev, const char *file,
                   int line, int col, const char *fmt, va_list ap)
    SIM_PRINTF(6, 0);

/* Shorthand for an error. */
void sim_diag_error(struct sim_diag *d, const char *file, int line, int col,
                    const char *fmt, ...) SIM_PRINTF(5, 6);

/* Number of errors reported so far (warnings and notes excluded). */
int sim_diag_errors(const struct sim_diag *d);

/* Formats entry i as "file:line:col: error: msg" into a new string that the
 * caller frees with free(). */
char *sim_diag_format(const struct sim_diag *d, int i);

/* Prints every entry, one per line, then "N more errors not shown" if some
 * were dropped. */
void sim_diag_print(const struct sim_diag *d, FILE *fp);

#endif /* BASE_DIAG_H */
