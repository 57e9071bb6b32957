/*
 * Replays a Mooncake trace (Qin et al., "Mooncake: A KVCache-centric
 * Disaggregated Architecture for LLM Serving", FAST 2025; dataset
 * kvcache-ai/Mooncake, FAST25-release/traces/ (JSONL files) and
 * FAST25-release/README.md).
 *
 * Format: JSON Lines, one object per request:
 *   {"timestamp": 0, "input_length": 6758, "output_length": 500,
 *    "hash_ids": [0, 1, 2, ...]}
 * timestamp is in milliseconds since the start of the trace (an integer or
 * a decimal number >= 0), input_length and output_length are token counts
 * (integers >= 0; 0 is replayed as 1, as for Azure), and hash_ids lists the
 * remapped hashes of the prompt's 512-token prefix blocks (equal ids mean
 * reusable prefix KV). timestamp, input_length and output_length are
 * required; hash_ids is optional (a row without it has no blocks), and
 * other keys are ignored (the Qwen-Bailian traces add chat_id, turn, ...).
 * The hash ids are handed to the request as block_hashes with
 * block_tokens 512; the published files have len(hash_ids) =
 * ceil(input_length / 512) on every row, which is not enforced.
 *
 * Arrival of a row = timestamp - timestamp of the first row (the published
 * files start at 0), in ns, rounded to the nearest ns. Rows must be in time
 * order (both published files are; equal times are allowed): a row earlier
 * than the one before is an error, since re-sorting would mean holding the
 * whole file. Blank lines are skipped and not counted as rows.
 *
 * Each line is parsed by json-c (json_tokener, strict mode, reset per
 * line), so memory is the longest line (at most WL_JSONL_LINE_MAX bytes)
 * plus the hash buffer (at most WL_BLOCKS_MAX ids), however long the file.
 * json-c does not report where a key sits in the line, so a message about
 * a key gives the column of the key's value found by a text search of the
 * line ('"key"' then ':'), or column 1 when the key is missing. Cost:
 * O(bytes) per row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* Longest accepted line, in bytes: WL_BLOCKS_MAX ids of up to 20 digits
 * and a separator, plus the other keys. */
#define WL_JSONL_LINE_MAX ((size_t)WL_BLOCKS_MAX * 22 + 4096)

/* Largest timestamp in ms that keeps the time in int64 ns. */
#define TS_MAX_MS (INT64_MAX / 1000000 - 1)

struct wl__mooncake {
    struct wl__lines in;
    json_tokener *tok;
    int64_t row;
    int have_prev;
    int64_t first_ns;
    int64_t prev_ns;
    uint64_t *hashes; /* owned, grows to WL_BLOCKS_MAX */
    size_t cap;
};

/* Column (1-based) of the value of key in the line, or 1 if not found. */
static int value_col(const struct wl__mooncake *m, const char *key)
{
    char pat[64];
    const char *b = m->in.buf, *p;

    snprintf(pat, sizeof(pat), "\"%s\"", key);
    p = strstr(b, pat);
    if (p == NULL)
        return 1;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == ':')
        p++;
    while (*p == ' ' || *p == '\t')
        p++;
    return (int)(p - b) + 1;
}

/* Adds "row N: KEY: expected WHAT, got 'VALUE'" at the value's column. */
static int bad_value(struct wl__mooncake *m, const char *key, const char *what,
                     json_object *v, struct sim_diag *d)
{
    char q[WL_QUOTE_MAX + 4];
    const char *t = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);

    wl__quote(q, t, strlen(t));
    sim_diag_error(d, m->in.path, m->in.line, value_col(m, key),
                   "row %lld: %s: expected %s, got '%s'", (long long)m->row,
                   key, what, q);
    return SIM_EPARSE;
}

/* Looks up a required key of the row object. */
static int need(struct wl__mooncake *m, json_object *o, const char *key,
                json_object **v, struct sim_diag *d)
{
    if (json_object_object_get_ex(o, key, v) && *v != NULL)
        return 0;
    sim_diag_error(d, m->in.path, m->in.line, 1,
                   "row %lld: missing key '%s'; expected timestamp, "
                   "input_length, output_length and optionally hash_ids",
                   (long long)m->row, key);
    return SIM_EPARSE;
}

static int tokens(struct wl__mooncake *m, json_object *o, const char *key,
                  int64_t *out, struct sim_diag *d)
{
    json_object *v;
    int64_t x;

    if (need(m, o, key, &v, d) != 0)
        return SIM_EPARSE;
    if (!json_object_is_type(v, json_type_int))
        return bad_value(m, key, "a non-negative integer", v, d);
    x = json_object_get_int64(v); /* saturates at INT64_MAX */
    if (x < 0 || x > WL_TOKENS_MAX) {
        char what[64];
        snprintf(what, sizeof(what), "an integer in [0, %lld]",
                 (long long)WL_TOKENS_MAX);
        return bad_value(m, key, what, v, d);
    }
    *out = x > 0 ? x : 1;
    return 0;
}

static int timestamp(struct wl__mooncake *m, json_object *o, int64_t *ns,
                     struct sim_diag *d)
{
    json_object *v;
    char what[80];

    snprintf(what, sizeof(what), "milliseconds in [0, %lld]",
             (long long)TS_MAX_MS);
    if (need(m, o, "timestamp", &v, d) != 0)
        return SIM_EPARSE;
    if (json_object_is_type(v, json_type_int)) {
        int64_t x = json_object_get_int64(v);
        if (x < 0 || x > TS_MAX_MS)
            return bad_value(m, "timestamp", what, v, d);
        *ns = x * 1000000;
        return 0;
    }
    if (json_object_is_type(v, json_type_double)) {
        double x = json_object_get_double(v);
        if (!(x >= 0.0 && x <= (double)TS_MAX_MS))
            return bad_value(m, "timestamp", what, v, d);
        *ns = (int64_t)llround(x * 1e6);
        return 0;
    }
    return bad_value(m, "timestamp", what, v, d);
}

static int hash_ids(struct wl__mooncake *m, json_object *o,
                    struct wl_request *out, struct sim_diag *d)
{
    json_object *v;
    size_t n;

    out->block_hashes = NULL;
    out->nblocks = 0;
    out->block_tokens = 0;
    if (!json_object_object_get_ex(o, "hash_ids", &v))
        return 0;
    if (!json_object_is_type(v, json_type_array))
        return bad_value(m, "hash_ids", "a list of non-negative integers", v,
                         d);
    n = json_object_array_length(v);
    if (n > WL_BLOCKS_MAX) {
        sim_diag_error(d, m->in.path, m->in.line, value_col(m, "hash_ids"),
                       "row %lld: hash_ids: %zu ids, more than %d",
                       (long long)m->row, n, WL_BLOCKS_MAX);
        return SIM_EPARSE;
    }
    if (n > m->cap) {
        size_t cap = m->cap ? m->cap : 64;
        while (cap < n)
            cap *= 2;
        if (cap > WL_BLOCKS_MAX)
            cap = WL_BLOCKS_MAX;
        m->hashes = xrealloc(m->hashes, cap, sizeof(*m->hashes));
        m->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(v, i);
        /* json-c saturates integers past 2^64 - 1 to UINT64_MAX, so that
         * value cannot be told from a larger one and is refused too:
         * distinct ids must stay distinct, or prefixes would match that
         * do not. */
        if (!json_object_is_type(e, json_type_int) ||
            json_object_get_int64(e) < 0 ||
            json_object_get_uint64(e) == UINT64_MAX) {
            char key[48];
            char q[WL_QUOTE_MAX + 4];
            const char *t =
                json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN);
            snprintf(key, sizeof(key), "hash_ids[%zu]", i);
            wl__quote(q, t, strlen(t));
            sim_diag_error(d, m->in.path, m->in.line, value_col(m, "hash_ids"),
                           "row %lld: %s: expected an integer from 0 to "
                           "2^64 - 2, got '%s'",
                           (long long)m->row, key, q);
            return SIM_EPARSE;
        }
        m->hashes[i] = json_object_get_uint64(e);
    }
    out->block_hashes = n > 0 ? m->hashes : NULL;
    out->nblocks = (int)n;
    out->block_tokens = n > 0 ? WL_MOONCAKE_BLOCK_TOKENS : 0;
    return 0;
}

/* Parses the row in m->in.buf into *out. */
static int parse_row(struct wl__mooncake *m, struct wl_request *out,
                     struct sim_diag *d)
{
    json_object *o;
    int64_t t_ns = 0;
    int rc;

    json_tokener_reset(m->tok);
    o = json_tokener_parse_ex(m->tok, m->in.buf, (int)m->in.len);
    enum json_tokener_error je = json_tokener_get_error(m->tok);
    size_t end = json_tokener_get_parse_end(m->tok);
    if (o == NULL || je != json_tokener_success) {
        const char *why = je == json_tokener_continue
                              ? "unexpected end of line"
                              : json_tokener_error_desc(je);
        if (end > m->in.len)
            end = m->in.len;
        sim_diag_error(d, m->in.path, m->in.line, (int)end + 1,
                       "row %lld: invalid JSON: %s", (long long)m->row, why);
        json_object_put(o);
        return SIM_EPARSE;
    }
    while (end < m->in.len && (m->in.buf[end] == ' ' || m->in.buf[end] == '\t'))
        end++;
    if (end < m->in.len) {
        sim_diag_error(d, m->in.path, m->in.line, (int)end + 1,
                       "row %lld: invalid JSON: text after the object",
                       (long long)m->row);
        json_object_put(o);
        return SIM_EPARSE;
    }
    if (!json_object_is_type(o, json_type_object)) {
        sim_diag_error(d, m->in.path, m->in.line, 1,
                       "row %lld: expected a JSON object, got %s",
                       (long long)m->row,
                       json_type_to_name(json_object_get_type(o)));
        json_object_put(o);
        return SIM_EPARSE;
    }
    rc = timestamp(m, o, &t_ns, d);
    if (rc == 0)
        rc = tokens(m, o, "input_length", &out->prompt_tokens, d);
    if (rc == 0)
        rc = tokens(m, o, "output_length", &out->output_tokens, d);
    if (rc == 0)
        rc = hash_ids(m, o, out, d);
    json_object_put(o);
    if (rc != 0)
        return rc;
    if (!m->have_prev) {
        m->first_ns = t_ns;
    } else if (t_ns < m->prev_ns) {
        sim_diag_error(d, m->in.path, m->in.line, value_col(m, "timestamp"),
                       "row %lld: timestamp: %.6f ms is earlier than row "
                       "%lld (%.6f ms); the trace must be sorted by time",
                       (long long)m->row, (double)t_ns / 1e6,
                       (long long)m->row - 1, (double)m->prev_ns / 1e6);
        return SIM_EPARSE;
    }
    m->have_prev = 1;
    m->prev_ns = t_ns;
    out->arrival_ns = t_ns - m->first_ns;
    return 0;
}

/* Where the public files are published, for a missing trace file. */
static const char hint[] =
    "the Mooncake traces are in the kvcache-ai/Mooncake repository on "
    "GitHub, FAST25-release/traces/conversation_trace.jsonl (also "
    "toolagent_trace.jsonl, synthetic_trace.jsonl); download one and set "
    "workload.trace.path or pass dsec run --trace FILE";

static void *mooncake_open(const struct cl_workload *cfg, const char *path,
                           struct sim_loop *loop, struct sim_diag *d)
{
    struct wl__mooncake *m = xcalloc(1, sizeof(*m));

    (void)cfg;
    (void)loop;
    if (wl__lines_open(&m->in, path, WL_JSONL_LINE_MAX, hint, d) != 0) {
        free(m);
        return NULL;
    }
    m->tok = json_tokener_new();
    if (m->tok == NULL)
        sim_fatal("cannot allocate a JSON tokener");
    json_tokener_set_flags(m->tok, JSON_TOKENER_STRICT);
    return m;
}

static int mooncake_next(void *state, struct wl_request *out,
                         struct sim_diag *d)
{
    struct wl__mooncake *m = state;
    struct wl_request r = {0};
    int rc;

    do {
        rc = wl__lines_read(&m->in);
    } while (rc == WL_LINE_OK && m->in.len == 0);
    if (rc == WL_LINE_EOF)
        return SIM_EEOF;
    if (rc == WL_LINE_IOERR)
        return wl__lines_ioerr(&m->in, d);
    m->row++;
    if (rc == WL_LINE_LONG) {
        sim_diag_error(d, m->in.path, m->in.line, 1,
                       "row %lld: line longer than %zu bytes",
                       (long long)m->row, (size_t)WL_JSONL_LINE_MAX);
        return SIM_EPARSE;
    }
    if ((rc = parse_row(m, &r, d)) != 0)
        return rc;
    *out = r;
    return 0;
}

static void mooncake_close(void *state)
{
    struct wl__mooncake *m = state;

    if (m == NULL)
        return;
    wl__lines_close(&m->in);
    if (m->tok != NULL)
        json_tokener_free(m->tok);
    free(m->hashes);
    free(m);
}

static int mooncake_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_TRACE && cfg->trace.format == CL_TRACE_MOONCAKE;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = mooncake_match,
    .open = mooncake_open,
    .next = mooncake_next,
    .close = mooncake_close,
};

const struct wl__format wl__format_mooncake = {
    .name = "mooncake",
    .summary = "Mooncake trace, JSONL with 512-token prefix block hashes "
               "(Qin et al., Mooncake, FAST 2025)",
    .flags = WL_FMT_TRACE,
    .ops = &ops,
};
