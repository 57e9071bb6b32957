/*
 * Internals shared by the files of models/workload/: the registry of
 * request producers behind source.c (synthetic, sessions, azure, mooncake,
 * burstgpt, servegen), and the helpers they share. Not part of the
 * contract; only source.c, table.c and the format files include it.
 * Single-threaded.
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

/*
 * The format registry, version 1. Every producer of requests (the
 * synthetic process, multi-turn sessions and one entry per trace format)
 * is one const struct wl__format in its own file, listed name-sorted in
 * table.c. source.c takes the entry whose match() accepts the workload
 * section and drives it through open, next and close; what the trace
 * formats share (the path, the checks of wl__trace_check(), time_scale /
 * rate_scale and the requests and duration limits) it does once for every
 * entry flagged WL_FMT_TRACE. The entries have no parameter rows of their
 * own: their settings are the workload section's.
 */
#define WL_FORMAT_API_VERSION 1

/* What an entry needs from source.c (struct wl__format.flags). */
enum wl__format_flag {
    /* Reads workload.trace.path; next() gives arrivals in trace time (ns
     * after the first request, before time_scale and rate_scale). */
    WL_FMT_TRACE = 1 << 0,
    WL_FMT_LOOP = 1 << 1,    /* draws from the loop's streams */
    WL_FMT_MODEL = 1 << 2,   /* takes workload.trace.model */
    WL_FMT_CLIENTS = 1 << 3, /* takes workload.trace.clients */
};

/* What source.c calls on a format; all four are required. */
struct wl__format_ops {
    int version; /* WL_FORMAT_API_VERSION */
    /* 1 when the entry produces the requests of cfg (its kind, and its
     * trace format or synthetic mode), else 0. */
    int (*match)(const struct cl_workload *cfg);
    /* Checks cfg and creates the state. path: the trace file resolved
     * against the base directory (copied if kept), NULL without
     * WL_FMT_TRACE. loop: borrowed, outlives the state; NULL without
     * WL_FMT_LOOP. Returns NULL with an error in d on failure, having
     * allocated nothing. */
    void *(*open)(const struct cl_workload *cfg, const char *path,
                  struct sim_loop *loop, struct sim_diag *d);
    /* Returns 0 with *out filled (block hashes borrowed until the next
     * call), SIM_EEOF, or SIM_EPARSE / SIM_EIO with a diagnostic in d; out
     * is unchanged on a non-zero return. */
    int (*next)(void *state, struct wl_request *out, struct sim_diag *d);
    /* Closes the file, if any, and frees state. NULL is a no-op. */
    void (*close)(void *state);
};

/* One request producer: a registry entry (table.c). */
struct wl__format {
    const char *name;    /* workload.trace.format's, or the synthetic mode */
    const char *summary; /* one line: what it reads or draws, its source */
    unsigned flags;      /* enum wl__format_flag */
    const struct wl__format_ops *ops;
};

/* The synthetic process, whose ops sessions.c also drives for its session
 * starts (synthetic.c). */
extern const struct wl__format wl__format_synthetic;

/* The registry: NULL-terminated, name-sorted (table.c). */
extern const struct wl__format *const wl__format_table[];

/* The entry that produces the requests of cfg, or NULL when none does (an
 * unknown kind or trace format). */
const struct wl__format *wl__format_for(const struct cl_workload *cfg);

/* The names of the entries that have every flag in flags, name-sorted and
 * separated by ", ", for messages. Caller frees with free(). */
char *wl__format_names(unsigned flags);

/* Rounds a sampled token count to the nearest integer and clamps it to
 * [1, WL_TOKENS_MAX]; NaN gives 1. */
int64_t wl__tokens_round(double x);

/* The block hash of the benchmark clients (inference_perf, vllm_bench):
 * a bijection of (shared, owner, block) onto 64 bits, so that two blocks
 * hash equal exactly when their triples are equal; no collision is
 * possible. shared is 0 or 1 (a block of a shared prefix, or one of a
 * single prompt), owner < 2^46 (the group, prompt or request), block <
 * 2^17 (>= WL_BLOCKS_MAX would not fit: asserted). The triple is packed
 * into one word and scrambled by the SplitMix64 finaliser (Steele, Lea and
 * Flood, OOPSLA 2014), itself a bijection. */
uint64_t wl__bench_hash(int shared, uint64_t owner, int64_t block);

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

/* Returns 0 when fp (opened from path) is a regular file, else adds "PATH:
 * error: cannot read trace: not a regular file" to d and returns SIM_EIO:
 * a device such as /dev/zero would be read for ever. */
int wl__regular_file(FILE *fp, const char *path, struct sim_diag *d);

/* Opens path (copied) for reading; it must be a regular file. On failure adds
 * "PATH: error: cannot open trace: REASON" to d, followed by "; HINT" when the
 * file does not exist and hint is not NULL, and returns SIM_EIO with l
 * untouched. */
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

/* Checks the knobs common to every trace format (time_scale, rate_scale,
 * requests, duration_ns). Returns 0 or SIM_EINVAL with an error in d. */
int wl__trace_check(const struct cl_workload *cfg, struct sim_diag *d);

/* delta_ns * factor rounded to the nearest ns (exactly delta_ns when the
 * factor is 1), saturating at SIM_TIME_MAX. */
int64_t wl__trace_scale(int64_t delta_ns, double factor);

#endif /* WL_WORKLOAD_INT_H */
