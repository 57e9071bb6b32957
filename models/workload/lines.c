/* The line reader shared by the text trace formats (Mooncake JSONL,
 * BurstGPT CSV, ServeGen CSV). The buffer starts small and doubles up to a
 * per-format cap, so memory stays bounded by the longest accepted line and
 * not by the file. Cost: O(bytes) per line (one getc per byte, as in
 * azure.c, which keeps its own fixed buffer). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* First size of the buffer, in bytes; it doubles up to the cap. */
#define LINES_FIRST 256

void wl__quote(char *dst, const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n && i < WL_QUOTE_MAX; i++) {
        unsigned char c = (unsigned char)p[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (i < n)
        memcpy(dst + i, "...", 4);
    else
        dst[i] = '\0';
}

int wl__regular_file(FILE *fp, const char *path, struct sim_diag *d)
{
    struct stat st;

    /* A device or FIFO (/dev/zero) may never end, or never end a line:
     * only a regular file has a size, so reading it is bounded. */
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        sim_diag_error(d, path, 0, 0, "cannot read trace: not a regular file");
        return SIM_EIO;
    }
    return 0;
}

int wl__lines_open(struct wl__lines *l, const char *path, size_t max_bytes,
                   const char *hint, struct sim_diag *d)
{
    FILE *fp = fopen(path, "r");

    if (fp == NULL) {
        int e = errno;
        if (hint != NULL && e == ENOENT)
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s; %s",
                           strerror(e), hint);
        else
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s", strerror(e));
        return SIM_EIO;
    }
    if (wl__regular_file(fp, path, d) != 0) {
        fclose(fp);
        return SIM_EIO;
    }
    memset(l, 0, sizeof(*l));
    l->fp = fp;
    l->path = xstrdup(path);
    l->max = max_bytes;
    l->cap = LINES_FIRST < max_bytes + 2 ? LINES_FIRST : max_bytes + 2;
    l->buf = xmalloc(l->cap);
    l->buf[0] = '\0';
    return 0;
}

int wl__lines_read(struct wl__lines *l)
{
    size_t n = 0;
    int c;

    l->line++;
    while ((c = getc(l->fp)) != EOF && c != '\n') {
        /* One byte over the limit is kept for a CR that is stripped. */
        if (n > l->max) {
            while ((c = getc(l->fp)) != EOF && c != '\n')
                ;
            return WL_LINE_LONG;
        }
        if (n + 2 > l->cap) {
            size_t cap = l->cap * 2;
            if (cap > l->max + 2)
                cap = l->max + 2;
            l->buf = xrealloc(l->buf, cap, 1);
            l->cap = cap;
        }
        l->buf[n++] = (char)c;
    }
    if (c == EOF) {
        if (ferror(l->fp))
            return WL_LINE_IOERR;
        if (n == 0)
            return WL_LINE_EOF;
    }
    if (n > 0 && l->buf[n - 1] == '\r')
        n--;
    if (n > l->max)
        return WL_LINE_LONG;
    l->buf[n] = '\0';
    l->len = n;
    return WL_LINE_OK;
}

int wl__lines_ioerr(struct wl__lines *l, struct sim_diag *d)
{
    sim_diag_error(d, l->path, l->line, 0, "cannot read trace: %s",
                   strerror(errno));
    return SIM_EIO;
}

void wl__lines_close(struct wl__lines *l)
{
    if (l->fp != NULL)
        fclose(l->fp);
    free(l->path);
    free(l->buf);
    memset(l, 0, sizeof(*l));
}

int wl__trace_check(const struct cl_workload *cfg, struct sim_diag *d)
{
    double ts = cfg->trace.time_scale, rs = cfg->trace.rate_scale;

    if (!(ts > 0.0 && ts < INFINITY)) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.time_scale: expected a positive "
                       "number, got %g",
                       ts);
        return SIM_EINVAL;
    }
    if (!(rs > 0.0 && rs < INFINITY)) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.rate_scale: expected a positive "
                       "number, got %g",
                       rs);
        return SIM_EINVAL;
    }
    if (cfg->trace.requests < -1 || cfg->trace.duration_ns < -1) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace: requests and duration_ns must be -1 "
                       "(unset) or non-negative, got %lld and %lld",
                       (long long)cfg->trace.requests,
                       (long long)cfg->trace.duration_ns);
        return SIM_EINVAL;
    }
    return 0;
}

int64_t wl__trace_scale(int64_t delta_ns, double factor)
{
    if (factor == 1.0)
        return delta_ns;
    double x = (double)delta_ns * factor;
    return x >= 9.2e18 ? SIM_TIME_MAX : (int64_t)llround(x);
}
