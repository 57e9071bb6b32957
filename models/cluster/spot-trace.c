/*
 * Reads a spot pool's interruption trace (pools[].interruptions.trace):
 * the provider's interruptions as it gave them, one instance per row.
 *
 * Format: CSV, one row per interrupted instance,
 *   time_s,gpus[,anything]
 * time_s the seconds since the start of the run when the notice came (a
 * decimal number >= 0, at most 9 fractional digits, below the one-year
 * horizon), gpus the instance's GPUs (an integer >= 1, at most the pool's
 * capacity_gpus), columns after these two (an instance id, its type) read
 * and ignored. This is what a provider's interruption history gives once
 * its clock is made relative: AWS sends one "EC2 Spot Instance
 * Interruption Warning" per instance, with the event's time and the
 * instance's id (EC2 User Guide, "Spot Instance interruption notices"),
 * and the instance type gives the GPUs. A first line that does not start
 * with a number (a header, e.g. "time_s,gpus") is skipped, as are empty
 * lines; a UTF-8 byte-order mark is skipped; LF or CRLF line ends; spaces
 * around fields are allowed. Rows must be in time order (equal times are
 * several instances at once): an unsorted file is an error rather than
 * sorted here, for rows out of order are more likely a file mixed up
 * than a history. An empty trace is an error too.
 *
 * One line at a time (TRACE_LINE_MAX bytes at most), the rows kept up to
 * CL_INTERRUPTION_TRACE_MAX_ROWS. Cost: O(bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/cluster/config.h"
#include "base/diag.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"
#include "sim/time.h"

/* Longest accepted line, in bytes without its end. */
#define TRACE_LINE_MAX 256

struct reader {
    const char *path;
    struct sim_diag *d;
    int line;
    int capacity_gpus;
    int64_t horizon_ns;
    int64_t prev_ns;
    int64_t *at_ns;
    int *gpus;
    int n, cap;
};

/* Parses seconds p[0..n) as digits[.digits] exactly into ns. Returns 0, or
 * -1 when it is not such a number or not below limit_ns. */
static int parse_seconds(const char *p, size_t n, int64_t limit_ns, int64_t *ns)
{
    int64_t s = 0, f = 0;
    size_t i = 0;
    int k = 0, nd = 0;

    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, nd++) {
        if (s > limit_ns / SIM_NS_PER_S / 10 + 1)
            return -1;
        s = s * 10 + (p[i] - '0');
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++, k++, nd++) {
            if (k >= 9)
                return -1;
            f = f * 10 + (p[i] - '0');
        }
    }
    if (i != n || nd == 0)
        return -1;
    for (; k < 9; k++)
        f *= 10;
    if (s > (limit_ns - f) / SIM_NS_PER_S || s * SIM_NS_PER_S + f >= limit_ns)
        return -1;
    *ns = s * SIM_NS_PER_S + f;
    return 0;
}

/* Parses p[0..n) as a decimal integer in [1, max]. Returns 0 or -1. */
static int parse_gpus(const char *p, size_t n, int max, int *out)
{
    long v = 0;

    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9' || v > 1000000000L)
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    if (v < 1 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* The field of line starting at *pos, up to the next comma or the end,
 * without surrounding spaces: its start and length, its 1-based column in
 * *col; *pos moves past the comma. Returns 0, or -1 when there is no
 * field left. */
static int next_field(const char *line, size_t *pos, const char **f, size_t *n,
                      int *col)
{
    size_t i = *pos, end;

    if (line[i] == '\0' && (i == 0 || line[i - 1] != ','))
        return -1;
    while (line[i] == ' ' || line[i] == '\t')
        i++;
    *f = line + i;
    *col = (int)i + 1;
    end = i + strcspn(line + i, ",");
    *pos = line[end] == ',' ? end + 1 : end;
    while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\t'))
        end--;
    *n = end - i;
    return 0;
}

/* Takes one row; reports to r->d and returns -1 when it is bad. */
static int take_row(struct reader *r, const char *line)
{
    const char *f;
    size_t pos = 0, n;
    int col, gpus;
    int64_t at_ns;
    char shown[40];

    if (next_field(line, &pos, &f, &n, &col) != 0)
        return 0;
    snprintf(shown, sizeof(shown), "%.*s", n < 32 ? (int)n : 32, f);
    if (n > 0 && f[0] == '-') {
        sim_diag_error(r->d, r->path, r->line, col,
                       "time_s: %s is negative (seconds since the start, "
                       ">= 0)",
                       shown);
        return -1;
    }
    if (parse_seconds(f, n, r->horizon_ns, &at_ns) != 0) {
        sim_diag_error(r->d, r->path, r->line, col,
                       "time_s: expected seconds since the start (a decimal "
                       "number, at most 9 fractional digits, below %g s), "
                       "got '%s'",
                       SIM_PARAM_HORIZON_S, shown);
        return -1;
    }
    if (at_ns < r->prev_ns) {
        sim_diag_error(r->d, r->path, r->line, col,
                       "time_s: %s before the previous row's %.9g (sort the "
                       "trace by time)",
                       shown, sim_ns_to_s(r->prev_ns));
        return -1;
    }
    if (next_field(line, &pos, &f, &n, &col) != 0) {
        sim_diag_error(r->d, r->path, r->line, (int)strlen(line) + 1,
                       "expected 2 fields 'time_s,gpus', got 1");
        return -1;
    }
    snprintf(shown, sizeof(shown), "%.*s", n < 32 ? (int)n : 32, f);
    if (parse_gpus(f, n, r->capacity_gpus, &gpus) != 0) {
        sim_diag_error(r->d, r->path, r->line, col,
                       "gpus: expected an integer in [1, %d] (the pool's "
                       "capacity_gpus), got '%s'",
                       r->capacity_gpus, shown);
        return -1;
    }
    if (r->n == CL_INTERRUPTION_TRACE_MAX_ROWS) {
        sim_diag_error(r->d, r->path, r->line, 1, "more than %d interruptions",
                       CL_INTERRUPTION_TRACE_MAX_ROWS);
        return -1;
    }
    if (r->n == r->cap) {
        r->cap = r->cap > 0 ? r->cap * 2 : 16;
        r->at_ns = xrealloc(r->at_ns, (size_t)r->cap, sizeof(*r->at_ns));
        r->gpus = xrealloc(r->gpus, (size_t)r->cap, sizeof(*r->gpus));
    }
    r->at_ns[r->n] = at_ns;
    r->gpus[r->n] = gpus;
    r->n++;
    r->prev_ns = at_ns;
    return 0;
}

/* A header: a first line whose first field does not start like a
 * number. */
static int is_header(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return *line != '\0' && *line != '-' && *line != '+' && *line != '.' &&
           !(*line >= '0' && *line <= '9');
}

/* Reads r's rows from fp; returns 0 or -1 after reporting. */
static int read_rows(struct reader *r, FILE *fp)
{
    char buf[TRACE_LINE_MAX + 3];

    while (fgets(buf, sizeof(buf), fp) != NULL) {
        size_t n = strlen(buf);
        char *line = buf;

        r->line++;
        if (n > 0 && buf[n - 1] == '\n') {
            buf[--n] = '\0';
        } else if (!feof(fp)) {
            int c;
            while ((c = getc(fp)) != EOF && c != '\n')
                ;
            sim_diag_error(r->d, r->path, r->line, 1,
                           "line longer than %d bytes", TRACE_LINE_MAX);
            return -1;
        }
        if (n > 0 && buf[n - 1] == '\r')
            buf[--n] = '\0';
        if (n > TRACE_LINE_MAX) {
            sim_diag_error(r->d, r->path, r->line, 1,
                           "line longer than %d bytes", TRACE_LINE_MAX);
            return -1;
        }
        if (r->line == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0)
            line += 3;
        if (line[strspn(line, " \t")] == '\0')
            continue;
        if (r->line == 1 && is_header(line))
            continue;
        if (take_row(r, line) != 0)
            return -1;
    }
    if (ferror(fp)) {
        sim_diag_error(r->d, r->path, r->line, 0, "cannot read trace: %s",
                       strerror(errno));
        return -1;
    }
    if (r->n == 0) {
        sim_diag_error(r->d, r->path, r->line > 0 ? r->line : 1, 1,
                       "no interruptions: expected rows 'time_s,gpus'");
        return -1;
    }
    return 0;
}

int cl_interruption_trace_load(const char *path, int capacity_gpus,
                               struct cl_interruptions *it, struct sim_diag *d)
{
    struct reader r = {.path = path, .d = d, .capacity_gpus = capacity_gpus};
    struct stat st;
    FILE *fp = fopen(path, "r");
    int rc;

    if (fp == NULL) {
        sim_diag_error(d, path, 0, 0, "cannot open trace: %s", strerror(errno));
        return SIM_EIO;
    }
    /* A device or FIFO (/dev/zero) may never end: only a regular file has
     * a size, so reading it is bounded. */
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        sim_diag_error(d, path, 0, 0, "cannot read trace: not a regular file");
        fclose(fp);
        return SIM_EIO;
    }
    r.horizon_ns = sim_s_to_ns(SIM_PARAM_HORIZON_S);
    rc = read_rows(&r, fp) == 0 ? 0 : SIM_EINVAL;
    fclose(fp);
    if (rc != 0) {
        free(r.at_ns);
        free(r.gpus);
        return rc;
    }
    free(it->trace_at_ns);
    free(it->trace_gpus);
    it->trace_at_ns = r.at_ns;
    it->trace_gpus = r.gpus;
    it->ntrace = r.n;
    return 0;
}
