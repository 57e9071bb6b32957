/*
 * Replays a BurstGPT trace (Wang et al., "BurstGPT: A Real-world Workload
 * Dataset to Optimize LLM Serving Systems", KDD 2025; dataset
 * HPMLL/BurstGPT, README.md, CC-BY-4.0).
 *
 * Format: CSV with the header
 *   Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
 * (BurstGPT_3 appends Session ID and Elapsed time; extra columns after
 * these six are accepted and ignored, and every row must have as many
 * fields as the header). No quoting; LF or CRLF line ends; a UTF-8
 * byte-order mark is skipped. Timestamp is seconds from 0:00 of the first
 * day, a decimal number with at most 9 fractional digits, parsed exactly
 * to ns; Model is ChatGPT (GPT-3.5) or GPT-4; Request and Response tokens
 * are integers >= 0 (a Request count of 0 is replayed as 1); Total tokens
 * and Log Type (Conversation log / API log) are read but not used.
 *
 * Choices: a row with 0 Response tokens is a failed request (README) and is
 * skipped, not replayed; with workload.trace.model set, only rows whose
 * Model equals it exactly are kept. Both are counted, and at the end of the
 * file a note says how many rows were skipped. Arrival of a kept row =
 * Timestamp - Timestamp of the first kept row. Rows (kept or not) must be
 * in time order; equal times are allowed. A model filter that keeps no row
 * at all is an error naming the models seen.
 *
 * One line at a time (WL_LINE_MAX bytes at most), so memory is constant in
 * the length of the file. Cost: O(bytes) per row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

#define BURST_HEADER                                                           \
    "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"
#define BURST_COLUMNS 6

/* Distinct Model names remembered for the "no row matched" message. */
#define MODELS_SEEN_MAX 8

/* Timestamps up to this many seconds keep the time in int64 ns. */
#define TS_MAX_S (INT64_MAX / SIM_NS_PER_S - 1)

struct wl__burstgpt {
    struct wl__lines in;
    char *model; /* filter, owned, or NULL */
    int nfields; /* columns in the header */
    int64_t row;
    int64_t failed;  /* rows skipped for 0 Response tokens */
    int64_t other;   /* rows skipped for another Model */
    int64_t kept;    /* rows replayed */
    int have_prev;   /* a row (kept or not) has been read */
    int have_first;  /* a row has been kept */
    int64_t prev_ns; /* Timestamp of the last row */
    int64_t first_ns;
    char *seen[MODELS_SEEN_MAX]; /* owned */
    int nseen;
};

/* Parses seconds p[0..n) as [digits][.digits] exactly into ns. Returns 0
 * or -1. */
static int parse_seconds(const char *p, size_t n, int64_t *ns)
{
    int64_t s = 0, f = 0;
    size_t i = 0;
    int k = 0, nd = 0;

    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, nd++) {
        if (s > TS_MAX_S / 10)
            return -1;
        s = s * 10 + (p[i] - '0');
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++, k++) {
            if (k >= 9)
                return -1;
            f = f * 10 + (p[i] - '0');
        }
        if (k == 0)
            return -1;
    }
    if (i != n || nd == 0 || s > TS_MAX_S)
        return -1;
    for (; k < 9; k++)
        f *= 10;
    *ns = s * SIM_NS_PER_S + f;
    return 0;
}

/* Parses a token count p[0..n). Returns 0, -1 (not a non-negative
 * integer) or -2 (above WL_TOKENS_MAX). */
static int parse_count(const char *p, size_t n, int64_t *v)
{
    int64_t x = 0;

    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        if (x <= WL_TOKENS_MAX)
            x = x * 10 + (p[i] - '0');
    }
    if (x > WL_TOKENS_MAX)
        return -2;
    *v = x;
    return 0;
}

static int count_field(struct wl__burstgpt *b, const char *name, size_t off,
                       size_t n, int64_t *v, struct sim_diag *d)
{
    char q[WL_QUOTE_MAX + 4];
    int rc = parse_count(b->in.buf + off, n, v);

    if (rc == 0)
        return 0;
    wl__quote(q, b->in.buf + off, n);
    if (rc == -1)
        sim_diag_error(d, b->in.path, b->in.line, (int)off + 1,
                       "row %lld: %s: expected a non-negative integer, got "
                       "'%s'",
                       (long long)b->row, name, q);
    else
        sim_diag_error(d, b->in.path, b->in.line, (int)off + 1,
                       "row %lld: %s: %s out of range [0, %lld]",
                       (long long)b->row, name, q, (long long)WL_TOKENS_MAX);
    return SIM_EPARSE;
}

static void remember_model(struct wl__burstgpt *b, const char *p, size_t n)
{
    for (int i = 0; i < b->nseen; i++)
        if (strlen(b->seen[i]) == n && memcmp(b->seen[i], p, n) == 0)
            return;
    if (b->nseen < MODELS_SEEN_MAX) {
        char q[WL_QUOTE_MAX + 4];
        wl__quote(q, p, n);
        b->seen[b->nseen++] = xstrdup(q);
    }
}

/* Parses the row in b->in.buf. Returns 0 with *out filled and *keep set
 * (0 for a skipped row), or SIM_EPARSE. */
static int parse_row(struct wl__burstgpt *b, struct wl_request *out, int *keep,
                     struct sim_diag *d)
{
    const char *s = b->in.buf;
    size_t off[BURST_COLUMNS + 1], len[BURST_COLUMNS];
    int nf = 1;
    int64_t t_ns, req, resp;
    char q[WL_QUOTE_MAX + 4];

    for (size_t i = 0; i < b->in.len; i++)
        nf += s[i] == ',';
    if (nf != b->nfields) {
        sim_diag_error(d, b->in.path, b->in.line, 1,
                       "row %lld: expected %d fields (as the header), got %d",
                       (long long)b->row, b->nfields, nf);
        return SIM_EPARSE;
    }
    off[0] = 0;
    for (int f = 0; f < BURST_COLUMNS; f++) {
        const char *c = memchr(s + off[f], ',', b->in.len - off[f]);
        size_t e = c ? (size_t)(c - s) : b->in.len;
        len[f] = e - off[f];
        off[f + 1] = e + 1;
    }
    if (parse_seconds(s, len[0], &t_ns) != 0) {
        wl__quote(q, s, len[0]);
        sim_diag_error(d, b->in.path, b->in.line, 1,
                       "row %lld: Timestamp: expected seconds (a decimal "
                       "number >= 0 with at most 9 fractional digits), got "
                       "'%s'",
                       (long long)b->row, q);
        return SIM_EPARSE;
    }
    if (count_field(b, "Request tokens", off[2], len[2], &req, d) ||
        count_field(b, "Response tokens", off[3], len[3], &resp, d))
        return SIM_EPARSE;
    if (b->have_prev && t_ns < b->prev_ns) {
        wl__quote(q, s, len[0]);
        sim_diag_error(d, b->in.path, b->in.line, 1,
                       "row %lld: Timestamp: %s s is earlier than row %lld; "
                       "the trace must be sorted by time",
                       (long long)b->row, q, (long long)b->row - 1);
        return SIM_EPARSE;
    }
    b->have_prev = 1;
    b->prev_ns = t_ns;
    remember_model(b, s + off[1], len[1]);
    *keep = 0;
    if (b->model != NULL && (strlen(b->model) != len[1] ||
                             memcmp(b->model, s + off[1], len[1]) != 0)) {
        b->other++;
        return 0;
    }
    if (resp == 0) {
        b->failed++;
        return 0;
    }
    if (!b->have_first) {
        b->have_first = 1;
        b->first_ns = t_ns;
    }
    *keep = 1;
    out->arrival_ns = t_ns - b->first_ns;
    out->prompt_tokens = req > 0 ? req : 1;
    out->output_tokens = resp;
    return 0;
}

/* At the end of the file: the note on skipped rows, or the error for a
 * filter that matched nothing. */
static int at_end(struct wl__burstgpt *b, struct sim_diag *d)
{
    if (b->model != NULL && b->kept == 0 && b->other > 0) {
        size_t n = 1;
        for (int i = 0; i < b->nseen; i++)
            n += strlen(b->seen[i]) + 2;
        char *names = xcalloc(n, 1);
        for (int i = 0; i < b->nseen; i++) {
            if (i > 0)
                strcat(names, ", ");
            strcat(names, b->seen[i]);
        }
        sim_diag_error(d, b->in.path, 0, 0,
                       "workload.trace.model: no row has Model '%s'; "
                       "models in the file: %s",
                       b->model, names);
        free(names);
        return SIM_EPARSE;
    }
    if (b->failed > 0 || b->other > 0)
        sim_diag_add(d, SIM_SEV_NOTE, b->in.path, 0, 0,
                     "replayed %lld rows; skipped %lld failed (Response "
                     "tokens 0) and %lld of other models",
                     (long long)b->kept, (long long)b->failed,
                     (long long)b->other);
    return SIM_EEOF;
}

/* Where the public files are published, for a missing trace file. */
static const char hint[] =
    "the BurstGPT traces are in the HPMLL/BurstGPT repository on GitHub "
    "(data/BurstGPT_*.csv, Git LFS); download one and set "
    "workload.trace.path or pass dsec run --trace FILE";

static void burstgpt_close(void *state);

static void *burstgpt_open(const struct cl_workload *cfg, const char *path,
                           struct sim_loop *loop, struct sim_diag *d)
{
    struct wl__burstgpt *b = xcalloc(1, sizeof(*b));
    const size_t hn0 = strlen(BURST_HEADER);

    (void)loop;
    if (wl__lines_open(&b->in, path, WL_LINE_MAX, hint, d) != 0) {
        free(b);
        return NULL;
    }
    if (cfg->trace.model != NULL)
        b->model = xstrdup(cfg->trace.model);

    int rc = wl__lines_read(&b->in);
    const char *h = b->in.buf;
    size_t hn = b->in.len;
    if (rc == WL_LINE_OK && hn >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0) {
        h += 3;
        hn -= 3;
    }
    if (rc == WL_LINE_IOERR) {
        wl__lines_ioerr(&b->in, d);
    } else if (rc == WL_LINE_OK && hn >= hn0 &&
               memcmp(h, BURST_HEADER, hn0) == 0 &&
               (hn == hn0 || h[hn0] == ',')) {
        b->nfields = 1;
        for (size_t i = 0; i < hn; i++)
            b->nfields += h[i] == ',';
        return b;
    } else {
        char q[WL_QUOTE_MAX + 4];
        if (rc == WL_LINE_EOF)
            strcpy(q, "end of file");
        else if (rc == WL_LINE_LONG)
            snprintf(q, sizeof(q), "a line longer than %d bytes", WL_LINE_MAX);
        else
            wl__quote(q, h, hn);
        sim_diag_error(d, b->in.path, 1, 1,
                       "header: expected '" BURST_HEADER "', got %s%s%s",
                       rc == WL_LINE_OK ? "'" : "", q,
                       rc == WL_LINE_OK ? "'" : "");
    }
    burstgpt_close(b);
    return NULL;
}

static int burstgpt_next(void *state, struct wl_request *out,
                         struct sim_diag *d)
{
    struct wl__burstgpt *b = state;
    struct wl_request r = {0};
    int keep = 0, rc;

    while (!keep) {
        do {
            rc = wl__lines_read(&b->in);
        } while (rc == WL_LINE_OK && b->in.len == 0);
        if (rc == WL_LINE_EOF)
            return at_end(b, d);
        if (rc == WL_LINE_IOERR)
            return wl__lines_ioerr(&b->in, d);
        b->row++;
        if (rc == WL_LINE_LONG) {
            sim_diag_error(d, b->in.path, b->in.line, 1,
                           "row %lld: line longer than %d bytes",
                           (long long)b->row, WL_LINE_MAX);
            return SIM_EPARSE;
        }
        if ((rc = parse_row(b, &r, &keep, d)) != 0)
            return rc;
    }
    b->kept++;
    *out = r;
    return 0;
}

static void burstgpt_close(void *state)
{
    struct wl__burstgpt *b = state;

    if (b == NULL)
        return;
    wl__lines_close(&b->in);
    free(b->model);
    for (int i = 0; i < b->nseen; i++)
        free(b->seen[i]);
    free(b);
}

static int burstgpt_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_TRACE && cfg->trace.format == CL_TRACE_BURSTGPT;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = burstgpt_match,
    .open = burstgpt_open,
    .next = burstgpt_next,
    .close = burstgpt_close,
};

const struct wl__format wl__format_burstgpt = {
    .name = "burstgpt",
    .summary = "BurstGPT trace, CSV Timestamp,Model,Request tokens,... with "
               "a Model filter (Wang et al., BurstGPT, KDD 2025)",
    .flags = WL_FMT_TRACE | WL_FMT_MODEL,
    .ops = &ops,
};
