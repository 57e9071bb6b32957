/*
 * Internals shared by the files of models/workload/: the source kinds
 * behind the dispatch in source.c (synthetic, azure, mooncake, burstgpt,
 * servegen), and helpers they share. Not part of the
 * contract; only source.c and the kind files include it. Single-threaded.
 */
#ifndef WL_WORKLOAD_INT_H
#define WL_WORKLOAD_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/workload/config.h"
#include "models/workload/source.h"
#include "base/diag.h"
#include "sim/loop.h"

struct wl__synthetic;
struct wl__azure;
struct wl__mooncake;
struct wl__burstgpt;
struct wl__servegen;
struct wl__sessions;

/* Checks cfg->synthetic and takes the three streams from loop (borrowed).
 * Returns NULL with an error in d on a bad configuration. Caller frees with
 * wl__synthetic_free(). */
struct wl__synthetic *wl__synthetic_new(const struct cl_workload *cfg,
                                        struct sim_loop *loop,
                                        struct sim_diag *d);

/* Returns 0 with *out filled, or SIM_EEOF (out unchanged). */
int wl__synthetic_next(struct wl__synthetic *s, struct wl_request *out);

/* Frees s. NULL is a no-op. */
void wl__synthetic_free(struct wl__synthetic *s);

/* Multi-turn sessions (sessions.c), when cfg->synthetic.sessions.enabled:
 * the same contract as the synthetic kind; requests carry block hashes
 * borrowed until the next call. */
struct wl__sessions *wl__sessions_new(const struct cl_workload *cfg,
                                      struct sim_loop *loop,
                                      struct sim_diag *d);
int wl__sessions_next(struct wl__sessions *g, struct wl_request *out);
void wl__sessions_free(struct wl__sessions *g);

/* Opens path (already resolved against the base directory; copied) and
 * checks its header. Returns NULL with an error in d on failure. Caller
 * frees with wl__azure_free(). */
struct wl__azure *wl__azure_new(const struct cl_workload *cfg, const char *path,
                                struct sim_diag *d);

/* Returns 0 with *out filled, SIM_EEOF, SIM_EPARSE or SIM_EIO (with a
 * diagnostic in d); out is unchanged on a non-zero return. */
int wl__azure_next(struct wl__azure *a, struct wl_request *out,
                   struct sim_diag *d);

/* Closes the file and frees a. NULL is a no-op. */
void wl__azure_free(struct wl__azure *a);

/* Joins base_dir and path: path itself when it is absolute or base_dir is
 * NULL or empty. Caller frees with free(). */
char *wl__path_join(const char *base_dir, const char *path);

/* Rounds a sampled token count to the nearest integer and clamps it to
 * [1, WL_TOKENS_MAX]; NaN gives 1. */
int64_t wl__tokens_round(double x);

/* Bytes of a field quoted in a message; longer fields end with "...". */
#define WL_QUOTE_MAX 64

/* Copies at most WL_QUOTE_MAX bytes of p[0..n) into dst (WL_QUOTE_MAX + 4
 * bytes) for a message, with control bytes shown as '?'. */
void wl__quote(char *dst, const char *p, size_t n);

/* A text file read line by line (lines.c) into a buffer that grows by
 * doubling up to max bytes (bounded growth). */
struct wl__lines {
    FILE *fp;
    char *path; /* owned */
    int line;   /* file line of the last line read, 1-based */
    char *buf;  /* owned; the last line, NUL-terminated, no terminator */
    size_t len;
    size_t cap;
    size_t max;
};

/* Results of wl__lines_read(). */
enum { WL_LINE_OK, WL_LINE_EOF, WL_LINE_LONG, WL_LINE_IOERR };

/* Opens path (copied) for reading. On failure adds "PATH: error: cannot
 * open trace: REASON" to d, followed by "; HINT" when the file does not
 * exist and hint is not NULL, and returns SIM_EIO with l untouched. */
int wl__lines_open(struct wl__lines *l, const char *path, size_t max_bytes,
                   const char *hint, struct sim_diag *d);

/* Reads the next line (LF, CRLF or end of file) into l->buf/l->len and
 * counts it in l->line. Returns WL_LINE_OK, WL_LINE_EOF, WL_LINE_LONG (the
 * rest of the line is skipped) or WL_LINE_IOERR (errno set). */
int wl__lines_read(struct wl__lines *l);

/* Adds "PATH:LINE: error: cannot read trace: REASON" from errno and
 * returns SIM_EIO. */
int wl__lines_ioerr(struct wl__lines *l, struct sim_diag *d);

/* Closes the file and frees the buffers; l is zeroed. */
void wl__lines_close(struct wl__lines *l);

/* The sentence appended to "cannot open trace" when a trace file of format
 * (enum cl_trace_format) does not exist: where its public files are
 * published. Static; NULL for an unknown format. */
const char *wl__download_hint(int format);

/* Checks the knobs common to every trace format (time_scale, rate_scale,
 * requests, duration_ns). Returns 0 or SIM_EINVAL with an error in d. */
int wl__trace_check(const struct cl_workload *cfg, struct sim_diag *d);

/* delta_ns * factor rounded to the nearest ns (exactly delta_ns when the
 * factor is 1), saturating at SIM_TIME_MAX. */
int64_t wl__trace_scale(int64_t delta_ns, double factor);

/* The new trace kinds share one contract: *_new opens path (resolved,
 * copied) and checks what can be checked up front, returning NULL with an
 * error in d on failure; *_next returns 0 with *out filled and its arrival
 * in trace time (ns after the first request, before time_scale and
 * rate_scale, which source.c applies together with the requests and
 * duration limits), SIM_EEOF, SIM_EPARSE or SIM_EIO (with a diagnostic);
 * *_free(NULL) is a no-op. */
struct wl__mooncake *wl__mooncake_new(const char *path, struct sim_diag *d);
int wl__mooncake_next(struct wl__mooncake *m, struct wl_request *out,
                      struct sim_diag *d);
void wl__mooncake_free(struct wl__mooncake *m);

/* cfg->trace.model, if set, keeps only rows of that Model. */
struct wl__burstgpt *wl__burstgpt_new(const struct cl_workload *cfg,
                                      const char *path, struct sim_diag *d);
int wl__burstgpt_next(struct wl__burstgpt *b, struct wl_request *out,
                      struct sim_diag *d);
void wl__burstgpt_free(struct wl__burstgpt *b);

/* Reads the client files under path (a directory or one chunk trace file)
 * selected by cfg->trace.clients, and takes per-client streams from loop
 * (borrowed; it must outlive the source). */
struct wl__servegen *wl__servegen_new(const struct cl_workload *cfg,
                                      const char *path, struct sim_loop *loop,
                                      struct sim_diag *d);
int wl__servegen_next(struct wl__servegen *g, struct wl_request *out,
                      struct sim_diag *d);
void wl__servegen_free(struct wl__servegen *g);

#endif /* WL_WORKLOAD_INT_H */
