/*
 * Replays an Azure LLM inference trace (Patel et al., "Splitwise: Efficient
 * Generative LLM Inference Using Phase Splitting", ISCA 2024; dataset
 * Azure/AzurePublicDataset, AzureLLMInferenceDataset2023.md and 2024.md).
 *
 * Format: CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens, one
 * request per row, LF or CRLF line ends (the 2023 files use CRLF with no
 * final line end), no quoting. TIMESTAMP is
 * YYYY-MM-DD HH:MM:SS[.f...][Z|+HH:MM|-HH:MM] with 1 to 9 fractional digits
 * (2023: naive, 7 digits; 2024: 6 digits and +00:00). A naive time is taken
 * as UTC; an offset is subtracted. Times are converted to int64 ns by the
 * days-from-civil algorithm (H. Hinnant, "chrono-Compatible Low-Level Date
 * Algorithms"), never mktime(): no time zone, locale or environment is read.
 *
 * Arrival of a row = t - t_first in ns, exact; source.c scales it by
 * time_scale / rate_scale and applies the requests and duration limits, as
 * for every trace format.
 *
 * Rows must be in time order (the published files are; equal times are
 * allowed): a row earlier than the one before is an error, not re-sorted,
 * since sorting would mean holding the whole file. Token counts of 0 are
 * accepted and replayed as 1 (a request has at least one prompt token and
 * produces at least one output token); neither 2023 file contains a 0.
 * Blank lines are skipped and are not counted as rows.
 *
 * The file is read a byte at a time into one WL_LINE_MAX buffer, so memory
 * is constant in the length of the file. Cost: O(bytes) per row.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

#define AZURE_HEADER "TIMESTAMP,ContextTokens,GeneratedTokens"
#define TIMESTAMP_FORM "YYYY-MM-DD HH:MM:SS[.fffffff][+HH:MM]"

/* Bytes of a field quoted in a message; longer fields end with "...". */
#define QUOTE_MAX 64

/* Timestamps at most this many whole seconds after the first row keep the
 * span in int64 ns (about 292 years). */
#define SPAN_MAX_S (INT64_MAX / SIM_NS_PER_S - 1)

struct stamp {
    int64_t s;  /* seconds since 1970-01-01 00:00:00 UTC */
    int64_t ns; /* [0, 1e9) */
};

struct wl__azure {
    FILE *fp;
    char *path;
    int line; /* file line of the last line read, 1-based */
    int64_t row;
    int have_prev;
    struct stamp first;
    struct stamp prev;
    char prev_text[QUOTE_MAX + 4];
    size_t len;
    char buf[WL_LINE_MAX + 2];
};

/* Copies at most QUOTE_MAX bytes of p[0..n) into dst (QUOTE_MAX + 4 bytes)
 * for a message, with control bytes shown as '?'. */
static void quote(char *dst, const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n && i < QUOTE_MAX; i++) {
        unsigned char c = (unsigned char)p[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (i < n)
        memcpy(dst + i, "...", 4);
    else
        dst[i] = '\0';
}

enum { LINE_OK, LINE_EOF, LINE_LONG, LINE_IOERR };

/* Reads the next line into a->buf/a->len without its terminator (LF, CRLF
 * or end of file). */
static int read_line(struct wl__azure *a)
{
    size_t n = 0;
    int c;

    a->line++;
    while ((c = getc(a->fp)) != EOF && c != '\n') {
        /* One byte over the limit is kept for a CR that is stripped. */
        if (n > WL_LINE_MAX)
            return LINE_LONG;
        a->buf[n++] = (char)c;
    }
    if (c == EOF) {
        if (ferror(a->fp))
            return LINE_IOERR;
        if (n == 0)
            return LINE_EOF;
    }
    if (n > 0 && a->buf[n - 1] == '\r')
        n--;
    if (n > WL_LINE_MAX)
        return LINE_LONG;
    a->buf[n] = '\0';
    a->len = n;
    return LINE_OK;
}

static int io_error(struct wl__azure *a, struct sim_diag *d)
{
    sim_diag_error(d, a->path, a->line, 0, "cannot read trace: %s",
                   strerror(errno));
    return SIM_EIO;
}

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (Hinnant). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int m)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return mdays[m - 1] + (m == 2 && leap);
}

/* Reads exactly k decimal digits at *p (advancing it). Returns -1 if they
 * are not all digits or the text ends first. */
static int64_t digits(const char **p, const char *end, int k)
{
    int64_t v = 0;
    for (int i = 0; i < k; i++, (*p)++) {
        if (*p >= end || **p < '0' || **p > '9')
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

static int expect(const char **p, const char *end, char c)
{
    if (*p >= end || **p != c)
        return -1;
    (*p)++;
    return 0;
}

/* Parses a TIMESTAMP field p[0..n). Returns 0, or -1 if malformed or not a
 * valid date and time (leap seconds are not accepted). */
static int parse_stamp(const char *p, size_t n, struct stamp *out)
{
    const char *end = p + n;
    int64_t y, mo, dd, hh, mi, ss, ns = 0, off_s = 0;

    if ((y = digits(&p, end, 4)) < 0 || expect(&p, end, '-') ||
        (mo = digits(&p, end, 2)) < 0 || expect(&p, end, '-') ||
        (dd = digits(&p, end, 2)) < 0)
        return -1;
    if (p >= end || (*p != ' ' && *p != 'T'))
        return -1;
    p++;
    if ((hh = digits(&p, end, 2)) < 0 || expect(&p, end, ':') ||
        (mi = digits(&p, end, 2)) < 0 || expect(&p, end, ':') ||
        (ss = digits(&p, end, 2)) < 0)
        return -1;
    if (p < end && *p == '.') {
        int k = 0;
        p++;
        while (p < end && *p >= '0' && *p <= '9') {
            if (++k > 9)
                return -1;
            ns = ns * 10 + (*p++ - '0');
        }
        if (k == 0)
            return -1;
        for (; k < 9; k++)
            ns *= 10;
    }
    if (p < end && *p == 'Z') {
        p++;
    } else if (p < end && (*p == '+' || *p == '-')) {
        int sign = *p++ == '-' ? -1 : 1;
        int64_t oh, om;
        if ((oh = digits(&p, end, 2)) < 0 || expect(&p, end, ':') ||
            (om = digits(&p, end, 2)) < 0 || oh > 23 || om > 59)
            return -1;
        off_s = sign * (oh * 3600 + om * 60);
    }
    if (p != end)
        return -1;
    if (mo < 1 || mo > 12 || dd < 1 || dd > days_in_month(y, (int)mo) ||
        hh > 23 || mi > 59 || ss > 59)
        return -1;
    out->s = days_from_civil(y, (int)mo, (int)dd) * 86400 + hh * 3600 +
             mi * 60 + ss - off_s;
    out->ns = ns;
    return 0;
}

/* Parses a token count p[0..n) into *v. Returns 0, -1 if it is not a
 * non-negative decimal integer, or -2 if it exceeds WL_TOKENS_MAX. */
static int parse_tokens(const char *p, size_t n, int64_t *v)
{
    int64_t x = 0;
    int big = 0;

    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        if (!big) {
            x = x * 10 + (p[i] - '0');
            big = x > WL_TOKENS_MAX;
        }
    }
    if (big)
        return -2;
    *v = x;
    return 0;
}

static int token_field(struct wl__azure *a, const char *name, size_t off,
                       size_t n, int64_t *v, struct sim_diag *d)
{
    char q[QUOTE_MAX + 4];
    int rc = parse_tokens(a->buf + off, n, v);

    if (rc == 0)
        return 0;
    quote(q, a->buf + off, n);
    if (rc == -1)
        sim_diag_error(d, a->path, a->line, (int)off + 1,
                       "row %lld: %s: expected a non-negative integer, got "
                       "'%s'",
                       (long long)a->row, name, q);
    else
        sim_diag_error(d, a->path, a->line, (int)off + 1,
                       "row %lld: %s: %s out of range [0, %lld]",
                       (long long)a->row, name, q, (long long)WL_TOKENS_MAX);
    return SIM_EPARSE;
}

static int stamp_less(const struct stamp *x, const struct stamp *y)
{
    return x->s < y->s || (x->s == y->s && x->ns < y->ns);
}

/* Parses the row in a->buf into *out (arrival relative to the first row,
 * before scaling). */
static int parse_row(struct wl__azure *a, struct wl_request *out,
                     struct sim_diag *d)
{
    const char *b = a->buf;
    const char *c1 = memchr(b, ',', a->len);
    const char *c2 =
        c1 ? memchr(c1 + 1, ',', a->len - (size_t)(c1 + 1 - b)) : NULL;
    struct stamp t;
    char q[QUOTE_MAX + 4];

    if (c1 == NULL || c2 == NULL ||
        memchr(c2 + 1, ',', a->len - (size_t)(c2 + 1 - b)) != NULL) {
        int nf = 1;
        for (size_t i = 0; i < a->len; i++)
            nf += b[i] == ',';
        sim_diag_error(d, a->path, a->line, 1,
                       "row %lld: expected 3 fields (" AZURE_HEADER "), got %d",
                       (long long)a->row, nf);
        return SIM_EPARSE;
    }
    size_t n0 = (size_t)(c1 - b);
    size_t o1 = n0 + 1, n1 = (size_t)(c2 - c1 - 1);
    size_t o2 = o1 + n1 + 1, n2 = a->len - o2;

    if (parse_stamp(b, n0, &t) != 0) {
        quote(q, b, n0);
        sim_diag_error(d, a->path, a->line, 1,
                       "row %lld: TIMESTAMP: expected '" TIMESTAMP_FORM
                       "', got '%s'",
                       (long long)a->row, q);
        return SIM_EPARSE;
    }
    if (token_field(a, "ContextTokens", o1, n1, &out->prompt_tokens, d) ||
        token_field(a, "GeneratedTokens", o2, n2, &out->output_tokens, d))
        return SIM_EPARSE;
    if (!a->have_prev) {
        a->first = t;
    } else if (stamp_less(&t, &a->prev)) {
        quote(q, b, n0);
        sim_diag_error(d, a->path, a->line, 1,
                       "row %lld: TIMESTAMP: '%s' is earlier than row %lld "
                       "('%s'); the trace must be sorted by time",
                       (long long)a->row, q, (long long)a->row - 1,
                       a->prev_text);
        return SIM_EPARSE;
    }
    if (t.s - a->first.s > SPAN_MAX_S) {
        sim_diag_error(d, a->path, a->line, 1,
                       "row %lld: TIMESTAMP: more than %lld s after the first "
                       "row",
                       (long long)a->row, (long long)SPAN_MAX_S);
        return SIM_EPARSE;
    }
    a->prev = t;
    a->have_prev = 1;
    quote(a->prev_text, b, n0);

    out->arrival_ns = (t.s - a->first.s) * SIM_NS_PER_S + (t.ns - a->first.ns);
    if (out->prompt_tokens == 0)
        out->prompt_tokens = 1;
    if (out->output_tokens == 0)
        out->output_tokens = 1;
    return 0;
}

/* Where the public files are published, for a missing trace file. */
static const char hint[] =
    "the Azure LLM inference traces are in the Azure/AzurePublicDataset "
    "repository on GitHub, data/AzureLLMInferenceTrace_{conv,code}.csv; "
    "download one and set workload.trace.path or pass dsec run --trace FILE";

static void azure_close(void *state);

static void *azure_open(const struct cl_workload *cfg, const char *path,
                        struct sim_loop *loop, struct sim_diag *d)
{
    (void)cfg;
    (void)loop;
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        int e = errno;
        if (e == ENOENT)
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s; %s",
                           strerror(e), hint);
        else
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s", strerror(e));
        return NULL;
    }
    if (wl__regular_file(fp, path, d) != 0) {
        fclose(fp);
        return NULL;
    }

    struct wl__azure *a = xcalloc(1, sizeof(*a));
    a->fp = fp;
    a->path = xstrdup(path);

    int rc = read_line(a);
    const char *h = a->buf;
    size_t hn = a->len;
    if (rc == LINE_OK && hn >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0) {
        h += 3; /* a UTF-8 byte-order mark, as spreadsheet exports write */
        hn -= 3;
    }
    if (rc == LINE_IOERR) {
        io_error(a, d);
    } else if (rc == LINE_OK && hn == strlen(AZURE_HEADER) &&
               memcmp(h, AZURE_HEADER, hn) == 0) {
        return a;
    } else {
        char q[QUOTE_MAX + 4];
        if (rc == LINE_EOF)
            strcpy(q, "end of file");
        else if (rc == LINE_LONG)
            snprintf(q, sizeof(q), "a line longer than %d bytes", WL_LINE_MAX);
        else
            quote(q, h, hn);
        sim_diag_error(d, a->path, 1, 1,
                       "header: expected '" AZURE_HEADER "', got %s%s%s",
                       rc == LINE_OK ? "'" : "", q, rc == LINE_OK ? "'" : "");
    }
    azure_close(a);
    return NULL;
}

static int azure_next(void *state, struct wl_request *out, struct sim_diag *d)
{
    struct wl__azure *a = state;
    struct wl_request r = {0};
    int rc;

    do {
        rc = read_line(a);
    } while (rc == LINE_OK && a->len == 0);
    if (rc == LINE_EOF)
        return SIM_EEOF;
    if (rc == LINE_IOERR)
        return io_error(a, d);
    a->row++;
    if (rc == LINE_LONG) {
        sim_diag_error(d, a->path, a->line, 1,
                       "row %lld: line longer than %d bytes", (long long)a->row,
                       WL_LINE_MAX);
        return SIM_EPARSE;
    }
    if ((rc = parse_row(a, &r, d)) != 0)
        return rc;
    *out = r;
    return 0;
}

static void azure_close(void *state)
{
    struct wl__azure *a = state;

    if (a == NULL)
        return;
    if (a->fp != NULL)
        fclose(a->fp);
    free(a->path);
    free(a);
}

static int azure_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_TRACE && cfg->trace.format == CL_TRACE_AZURE;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = azure_match,
    .open = azure_open,
    .next = azure_next,
    .close = azure_close,
};

const struct wl__format wl__format_azure = {
    .name = "azure",
    .summary = "Azure LLM inference trace, CSV "
               "TIMESTAMP,ContextTokens,GeneratedTokens (Patel et al., "
               "Splitwise, ISCA 2024)",
    .flags = WL_FMT_TRACE,
    .ops = &ops,
};
