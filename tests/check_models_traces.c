/* Tests for the Mooncake, BurstGPT and ServeGen trace kinds of
 * models/workload/: exact values and exact diagnostics on hand-made
 * fixtures in tests/data/traces/, hash_ids carried to the request, the
 * ServeGen arrival counts against rate x window, and the public files when
 * the shared folder is present. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/workload/source.h"
#include "base/errors.h"
#include "sim/loop.h"
#include "base/xalloc.h"

/* Set once in main() before the forks; read-only afterwards. */
static char *fixture_dir;
static char *shared_dir;

static struct cl_workload trace_cfg(int format, const char *path)
{
    struct cl_workload w;

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_TRACE;
    w.trace.format = format;
    w.trace.path = (char *)path;
    w.trace.time_scale = 1;
    w.trace.rate_scale = 1;
    w.trace.requests = -1;
    w.trace.duration_ns = -1;
    return w;
}

/* Creating a source for w must fail with exactly the one error want. */
static void expect_new_error(const struct cl_workload *w, struct sim_loop *lp,
                             const char *want)
{
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_ptr_null(wl_source_new(w, fixture_dir, lp, &d));
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    char *got = sim_diag_format(&d, 0);
    ck_assert_str_eq(got, want);
    free(got);
    sim_diag_fini(&d);
}

/* Reads a source to its end; the one diagnostic must be exactly
 * "<fixture_dir>/<name><tail>" and want_rows rows come first. */
static void expect_row_error(int format, const char *name, int want_rows,
                             const char *tail)
{
    struct sim_diag d;
    struct cl_workload w = trace_cfg(format, name);
    struct wl_request r;
    int n = 0, rc;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, fixture_dir, NULL, &d);
    ck_assert_ptr_nonnull(s);
    while ((rc = wl_source_next(s, &r, &d)) == 0)
        n++;
    ck_assert_int_eq(rc, SIM_EPARSE);
    ck_assert_int_eq(wl_source_next(s, &r, &d), SIM_EPARSE); /* sticky */
    ck_assert_int_eq(n, want_rows);
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    char *got = sim_diag_format(&d, 0);
    char *want = xasprintf("%s/%s%s", fixture_dir, name, tail);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    wl_source_free(s);
    sim_diag_fini(&d);
}

static void expect_request(const struct wl_request *r, int64_t arrival_ns,
                           int64_t prompt, int64_t output)
{
    ck_assert_int_eq(r->arrival_ns, arrival_ns);
    ck_assert_int_eq(r->prompt_tokens, prompt);
    ck_assert_int_eq(r->output_tokens, output);
}

/* ---- mooncake ---- */

START_TEST(test_next_mooncake_exact)
{
    struct sim_diag d;
    struct cl_workload w = trace_cfg(CL_TRACE_MOONCAKE, "mooncake-good.jsonl");
    struct wl_request r;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, fixture_dir, NULL, &d);
    ck_assert_ptr_nonnull(s);

    ck_assert_int_eq(wl_source_next(s, &r, &d), 0);
    expect_request(&r, 0, 1000, 10);
    ck_assert_int_eq(r.nblocks, 2);
    ck_assert_int_eq(r.block_tokens, 512);
    ck_assert_uint_eq(r.block_hashes[0], 0);
    ck_assert_uint_eq(r.block_hashes[1], 1);

    /* A decimal timestamp in ms; output 0 is replayed as 1. */
    ck_assert_int_eq(wl_source_next(s, &r, &d), 0);
    expect_request(&r, 1500000, 600, 1);
    ck_assert_int_eq(r.nblocks, 2);
    ck_assert_uint_eq(r.block_hashes[1], 2);

    /* The blank line is skipped; no hash_ids means no blocks; unknown keys
     * are ignored; input 0 is replayed as 1. */
    ck_assert_int_eq(wl_source_next(s, &r, &d), 0);
    expect_request(&r, INT64_C(2000000000), 1, 7);
    ck_assert_ptr_null(r.block_hashes);
    ck_assert_int_eq(r.nblocks, 0);
    ck_assert_int_eq(r.block_tokens, 0);

    /* Equal times are allowed; ids use the uint64 range but its last
     * value (json-c saturates larger ones to it). */
    ck_assert_int_eq(wl_source_next(s, &r, &d), 0);
    expect_request(&r, INT64_C(2000000000), 513, 3);
    ck_assert_int_eq(r.nblocks, 2);
    ck_assert_uint_eq(r.block_hashes[0], UINT64_MAX - 1);
    ck_assert_uint_eq(r.block_hashes[1], 5);

    ck_assert_int_eq(wl_source_next(s, &r, &d), SIM_EEOF);
    ck_assert_uint_eq(wl_source_count(s), 4);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    wl_source_free(s);
    sim_diag_fini(&d);
}
END_TEST

START_TEST(test_next_mooncake_scales_and_limits)
{
    struct sim_diag d;
    struct cl_workload w = trace_cfg(CL_TRACE_MOONCAKE, "mooncake-good.jsonl");
    struct wl_request r;
    int n = 0;

    sim_diag_init(&d);
    /* rate_scale 4, time_scale 2: gaps times 0.5; the duration limit is
     * inclusive and applies to the scaled time. */
    w.trace.rate_scale = 4;
    w.trace.time_scale = 2;
    w.trace.duration_ns = 750000;
    struct wl_source *s = wl_source_new(&w, fixture_dir, NULL, &d);
    ck_assert_ptr_nonnull(s);
    while (wl_source_next(s, &r, &d) == 0)
        n++;
    ck_assert_int_eq(n, 2);
    expect_request(&r, 750000, 600, 1);
    wl_source_free(s);

    w = trace_cfg(CL_TRACE_MOONCAKE, "mooncake-good.jsonl");
    w.trace.requests = 3;
    s = wl_source_new(&w, fixture_dir, NULL, &d);
    n = 0;
    while (wl_source_next(s, &r, &d) == 0)
        n++;
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    wl_source_free(s);
    sim_diag_fini(&d);
}
END_TEST

START_TEST(test_next_mooncake_row_errors)
{
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-syntax.jsonl", 1,
                     ":2:37: error: row 2: invalid JSON: object value "
                     "separator ',' expected");
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-missing.jsonl", 1,
                     ":2:1: error: row 2: missing key 'input_length'; "
                     "expected timestamp, input_length, output_length and "
                     "optionally hash_ids");
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-type.jsonl", 1,
                     ":2:34: error: row 2: input_length: expected a "
                     "non-negative integer, got '\"ten\"'");
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-backwards.jsonl", 1,
                     ":2:15: error: row 2: timestamp: 5.000000 ms is earlier "
                     "than row 1 (10.000000 ms); the trace must be sorted by "
                     "time");
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-hash.jsonl", 0,
                     ":1:70: error: row 1: hash_ids[1]: expected an "
                     "integer from 0 to 2^64 - 2, got '-1'");
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-hash-big.jsonl", 0,
                     ":1:70: error: row 1: hash_ids[1]: expected an "
                     "integer from 0 to 2^64 - 2, got "
                     "'18446744073709551615'");
    expect_row_error(CL_TRACE_MOONCAKE, "mooncake-array.jsonl", 0,
                     ":1:1: error: row 1: expected a JSON object, got array");
}
END_TEST

START_TEST(test_new_mooncake_missing_file)
{
    struct cl_workload w = trace_cfg(CL_TRACE_MOONCAKE, "no-such.jsonl");
    char *want = xasprintf(
        "%s/no-such.jsonl: error: cannot open trace: No such file or "
        "directory; the Mooncake traces are in the kvcache-ai/Mooncake "
        "repository on GitHub, FAST25-release/traces/conversation_trace.jsonl "
        "(also toolagent_trace.jsonl, synthetic_trace.jsonl); download one "
        "and set workload.trace.path or pass dsec run --trace FILE",
        fixture_dir);
    expect_new_error(&w, NULL, want);
    free(want);

    w.trace.model = (char *)"GPT-4";
    expect_new_error(&w, NULL,
                     "error: workload.trace.model: only format burstgpt has "
                     "a Model column");
}
END_TEST

/* ---- burstgpt ---- */

/* Reads every request of a burstgpt fixture with an optional model
 * filter; returns the end code and the diagnostics in d. */
static int burst_all(const char *name, const char *model, struct wl_request *v,
                     int cap, int *n, struct sim_diag *d)
{
    struct cl_workload w = trace_cfg(CL_TRACE_BURSTGPT, name);
    int rc;

    w.trace.model = (char *)model;
    struct wl_source *s = wl_source_new(&w, fixture_dir, NULL, d);
    ck_assert_ptr_nonnull(s);
    *n = 0;
    while ((rc = wl_source_next(s, &v[*n], d)) == 0) {
        ck_assert_int_lt(*n, cap - 1);
        (*n)++;
    }
    wl_source_free(s);
    return rc;
}

START_TEST(test_next_burstgpt_exact)
{
    struct sim_diag d;
    struct wl_request v[8];
    int n;

    sim_diag_init(&d);
    ck_assert_int_eq(burst_all("burstgpt-good.csv", NULL, v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 3);
    expect_request(&v[0], 0, 472, 18);
    expect_request(&v[1], INT64_C(41250000000), 200, 100);
    expect_request(&v[2], INT64_C(41250000000), 1, 5);
    ck_assert_ptr_null(v[0].block_hashes);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    ck_assert_int_eq(d.n, 1);
    char *got = sim_diag_format(&d, 0);
    char *want = xasprintf("%s/burstgpt-good.csv: note: replayed 3 rows; "
                           "skipped 1 failed (Response tokens 0) and 0 of "
                           "other models",
                           fixture_dir);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    sim_diag_fini(&d);

    /* The filter keeps GPT-4 only; times restart at its first row. */
    sim_diag_init(&d);
    ck_assert_int_eq(burst_all("burstgpt-good.csv", "GPT-4", v, 8, &n, &d),
                     SIM_EEOF);
    ck_assert_int_eq(n, 1);
    expect_request(&v[0], 0, 200, 100);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);

    sim_diag_init(&d);
    ck_assert_int_eq(burst_all("burstgpt-good.csv", "gpt-4", v, 8, &n, &d),
                     SIM_EPARSE);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    got = sim_diag_format(&d, 0);
    want = xasprintf("%s/burstgpt-good.csv: error: workload.trace.model: no "
                     "row has Model 'gpt-4'; models in the file: ChatGPT, "
                     "GPT-4",
                     fixture_dir);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    sim_diag_fini(&d);
}
END_TEST

START_TEST(test_next_burstgpt_row_errors)
{
    expect_row_error(CL_TRACE_BURSTGPT, "burstgpt-bad-tokens.csv", 1,
                     ":3:11: error: row 2: Request tokens: expected a "
                     "non-negative integer, got '47x'");
    expect_row_error(CL_TRACE_BURSTGPT, "burstgpt-backwards.csv", 1,
                     ":3:1: error: row 2: Timestamp: 4.5 s is earlier than "
                     "row 1; the trace must be sorted by time");
    expect_row_error(CL_TRACE_BURSTGPT, "burstgpt-few-fields.csv", 0,
                     ":2:1: error: row 1: expected 6 fields (as the header), "
                     "got 5");
    expect_row_error(CL_TRACE_BURSTGPT, "burstgpt-bad-time.csv", 0,
                     ":2:1: error: row 1: Timestamp: expected seconds (a "
                     "decimal number >= 0 with at most 9 fractional digits), "
                     "got '1e3'");
}
END_TEST

START_TEST(test_new_burstgpt_errors)
{
    struct cl_workload w =
        trace_cfg(CL_TRACE_BURSTGPT, "burstgpt-bad-header.csv");
    char *want = xasprintf(
        "%s/burstgpt-bad-header.csv:1:1: error: header: expected "
        "'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log "
        "Type', got 'Timestamp,Model,Request tokens,Response tokens'",
        fixture_dir);
    expect_new_error(&w, NULL, want);
    free(want);
}
END_TEST

/* ---- servegen ---- */

struct window_counts {
    int64_t n[144];
    int64_t total;
    int bad_support; /* lengths outside the block's PMF support */
};

/* Fixture PMF supports per 6-hour block for client 1 and client 2. */
static int in_support(int64_t t_s, int64_t in, int64_t out)
{
    switch (t_s / 21600) {
    case 0:
        return (in == 10 || in == 20 || in == 100) && (out == 1 || out == 7);
    case 1:
        return (in == 30 || in == 200) && (out == 2 || out == 3 || out == 8);
    case 2:
        return (in == 40 || in == 50) && (out == 4 || out == 5);
    default:
        return in == 60 && out == 6;
    }
}

/* Generates the day of the fixture clients with seed and counts the
 * arrivals per 600 s window. */
static void servegen_counts(const char *path, const char *clients,
                            uint64_t seed, struct window_counts *c)
{
    struct sim_diag d;
    struct cl_workload w = trace_cfg(CL_TRACE_SERVEGEN, path);
    struct sim_loop *lp = sim_loop_new(seed);
    struct wl_request r;
    int64_t prev = 0;
    int rc;

    memset(c, 0, sizeof(*c));
    w.trace.clients = (char *)clients;
    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, fixture_dir, lp, &d);
    if (s == NULL)
        sim_diag_print(&d, stderr);
    ck_assert_ptr_nonnull(s);
    while ((rc = wl_source_next(s, &r, &d)) == 0) {
        ck_assert_int_ge(r.arrival_ns, prev);
        prev = r.arrival_ns;
        int64_t win = r.arrival_ns / INT64_C(600000000000);
        ck_assert_int_lt(win, 144);
        c->n[win]++;
        c->total++;
        c->bad_support += !in_support(r.arrival_ns / 1000000000,
                                      r.prompt_tokens, r.output_tokens);
    }
    ck_assert_int_eq(rc, SIM_EEOF);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    wl_source_free(s);
    sim_loop_free(lp);
    sim_diag_fini(&d);
}

START_TEST(test_next_servegen_gamma_counts)
{
    struct window_counts c;

    /* Client 1: Gamma(shape 4), so cv = 1/sqrt(4) = 0.5, at 2 req/s in two
     * windows of three. A renewal count over an interval with mean m has
     * variance ~ cv^2 m (Cox, "Renewal Theory", 1962, 4.5), so a 600 s
     * window (m = 1200) has sd ~ 17.3 and the 96 active windows (m =
     * 115,200) sd ~ 170. Bounds: 6 sd per window (over 96 windows a false
     * alarm has probability ~1e-7) and 5 sd for the day. */
    servegen_counts("servegen", "1", 42, &c);
    for (int i = 0; i < 144; i++) {
        if (i % 3 == 2)
            ck_assert_int_eq(c.n[i], 0);
        else
            ck_assert_msg(llabs(c.n[i] - 1200) <= 104,
                          "window %d: %lld arrivals, expected 1200 +- 104", i,
                          (long long)c.n[i]);
    }
    ck_assert_msg(llabs(c.total - 115200) <= 850, "day: %lld, want 115200",
                  (long long)c.total);
    ck_assert_int_eq(c.bad_support, 0);
}
END_TEST

START_TEST(test_next_servegen_weibull_counts)
{
    struct window_counts c;

    /* Client 2: Weibull(shape 0.5), cv^2 = Gamma(5)/Gamma(3)^2 - 1 = 5,
     * 1 req/s for the first 72 windows (m = 43,200, sd ~ sqrt(5 m) =
     * 465); bound 5 sd. */
    servegen_counts("servegen", "2", 7, &c);
    for (int i = 72; i < 144; i++)
        ck_assert_int_eq(c.n[i], 0);
    ck_assert_msg(llabs(c.total - 43200) <= 2325, "day: %lld, want 43200",
                  (long long)c.total);
    ck_assert_int_eq(c.bad_support, 0);
}
END_TEST

START_TEST(test_next_servegen_clients_independent)
{
    struct window_counts a, one, two, file, again;

    /* Each client has its own streams, so the merged day is exactly the
     * two single-client days, and a client's file alone equals selecting
     * it in the folder. */
    servegen_counts("servegen", NULL, 5, &a);
    servegen_counts("servegen", "1", 5, &one);
    servegen_counts("servegen", " 2 ", 5, &two);
    servegen_counts("servegen/chunk-1-trace.csv", NULL, 5, &file);
    servegen_counts("servegen", "all", 5, &again);
    ck_assert_int_eq(a.total, one.total + two.total);
    ck_assert_int_eq(file.total, one.total);
    ck_assert_int_eq(again.total, a.total);
    for (int i = 0; i < 144; i++)
        ck_assert_int_eq(a.n[i], one.n[i] + two.n[i]);
    ck_assert_int_eq(a.bad_support, 0);
}
END_TEST

START_TEST(test_new_servegen_errors)
{
    struct sim_loop *lp = sim_loop_new(1);
    struct cl_workload w;
    char *want;

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen-bad/chunk-7-trace.csv");
    want = xasprintf("%s/servegen-bad/chunk-7-trace.csv:2:11: error: pattern: "
                     "unknown distribution 'Lognormal'; valid: Gamma, "
                     "Weibull, or empty (idle)",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen-bad/chunk-6-trace.csv");
    want = xasprintf("%s/servegen-bad/chunk-6-trace.csv:2:5: error: rate: "
                     "expected a number >= 0, got 'x'",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen-bad/chunk-8-trace.csv");
    want = xasprintf("%s/servegen-bad/chunk-8-dataset.json: error: "
                     "\"0\".input_tokens: at offset 13: expected ':' after a "
                     "token count",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen-bad/chunk-9-trace.csv");
    want = xasprintf("%s/servegen-bad/chunk-9-dataset.json: error: block "
                     "\"21600\": empty input_tokens or output_tokens, but the "
                     "window at 21600 s has rate 1",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    /* Gamma(1 + 1/0.005) is past any double; GSL's handler would abort. */
    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen-bad/chunk-10-trace.csv");
    want = xasprintf("%s/servegen-bad/chunk-10-trace.csv:1:19: error: shape: "
                     "0.005 below 0.01; a Weibull that skewed has a mean, "
                     "scale x Gamma(1 + 1/shape), past any number",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen");
    w.trace.clients = (char *)"1, x";
    expect_new_error(&w, lp,
                     "error: workload.trace.clients: expected 'all' or "
                     "client ids separated by commas, got '1, x'");
    w.trace.clients = (char *)"2,2";
    expect_new_error(&w, lp,
                     "error: workload.trace.clients: client 2 listed twice");
    w.trace.clients = (char *)"3";
    want = xasprintf("%s/servegen/chunk-3-trace.csv: error: cannot open "
                     "trace: No such file or directory; the ServeGen client "
                     "statistics are in the alibaba/ServeGen repository on "
                     "GitHub, e.g. data/reason/deepseek-r1/ "
                     "(chunk-<id>-trace.csv and chunk-<id>-dataset.json); "
                     "download a folder and set workload.trace.path or pass "
                     "dsec run --trace DIR",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen/chunk-1-trace.csv");
    w.trace.clients = (char *)"1";
    want = xasprintf("error: workload.trace.clients: give a folder as "
                     "workload.trace.path to select clients; "
                     "'%s/servegen/chunk-1-trace.csv' is one client's file",
                     fixture_dir);
    expect_new_error(&w, lp, want);
    free(want);

    w = trace_cfg(CL_TRACE_SERVEGEN, "servegen");
    expect_new_error(&w, NULL,
                     "error: workload.trace: no simulation loop for the "
                     "random streams of a servegen source");
    sim_loop_free(lp);
}
END_TEST

/* ---- the public files ---- */

START_TEST(test_next_mooncake_public_conversation)
{
    struct sim_diag d;
    char *path =
        xasprintf("%s/mooncake-fast25/conversation_trace.jsonl", shared_dir);
    struct cl_workload w = trace_cfg(CL_TRACE_MOONCAKE, path);
    struct wl_request r;
    double in = 0, out = 0;
    int64_t n = 0, bad_blocks = 0, last = 0;
    int rc;

    sim_diag_init(&d);
    struct wl_source *s = wl_source_new(&w, NULL, NULL, &d);
    ck_assert_ptr_nonnull(s);
    while ((rc = wl_source_next(s, &r, &d)) == 0) {
        n++;
        in += (double)r.prompt_tokens;
        out += (double)r.output_tokens;
        bad_blocks += r.nblocks != (r.prompt_tokens + 511) / 512;
        last = r.arrival_ns;
    }
    sim_diag_print(&d, stderr);
    ck_assert_int_eq(rc, SIM_EEOF);
    /* FAST25-release/README.md and shared/traces/README.md §2: 12,031
     * requests, mean input 12,035.1, mean output 342.6, last at 3,536,999
     * ms, len(hash_ids) = ceil(input_length / 512) on every row. */
    ck_assert_int_eq(n, 12031);
    ck_assert_double_eq_tol(in / (double)n, 12035.1, 0.1);
    ck_assert_double_eq_tol(out / (double)n, 342.6, 0.1);
    ck_assert_int_eq(last, INT64_C(3536999000000));
    ck_assert_int_eq(bad_blocks, 0);
    wl_source_free(s);
    sim_diag_fini(&d);
    free(path);
}
END_TEST

START_TEST(test_next_servegen_public_day)
{
    char *dir = xasprintf("%s/servegen-deepseek-r1", shared_dir);
    struct sim_diag d;
    double lambda_all = 0, var_all = 0, cv2max = 0;
    int best = -1;
    double best_lambda = 0, best_var = 0;

    /* Expected counts from the CSVs themselves: m = sum(rate * 600), and
     * the renewal-count variance ~ sum(cv^2 * rate * 600). */
    for (int id = 0; id < 73; id++) {
        char *csv = xasprintf("%s/chunk-%d-trace.csv", dir, id);
        FILE *fp = fopen(csv, "r");
        double t, rate, cv, shape, scale, m = 0, v = 0;
        char pat[16];
        char line[256];
        ck_assert_ptr_nonnull(fp);
        while (fgets(line, sizeof(line), fp) != NULL) {
            pat[0] = '\0';
            if (sscanf(line, "%lf,%lf,%lf,%15[A-Za-z],%lf,%lf", &t, &rate, &cv,
                       pat, &shape, &scale) < 3)
                continue;
            m += rate * 600;
            v += cv * cv * rate * 600;
            if (rate > 0 && cv * cv > cv2max)
                cv2max = cv * cv;
        }
        fclose(fp);
        free(csv);
        lambda_all += m;
        var_all += v;
        if (m > best_lambda) {
            best = id, best_lambda = m, best_var = v;
        }
    }

    sim_diag_init(&d);
    for (int pass = 0; pass < 2; pass++) {
        struct cl_workload w = trace_cfg(CL_TRACE_SERVEGEN, dir);
        struct sim_loop *lp = sim_loop_new(2024);
        char ids[16];
        struct wl_request r;
        int64_t n = 0;
        int rc;
        if (pass == 1) {
            snprintf(ids, sizeof(ids), "%d", best);
            w.trace.clients = ids;
        }
        struct wl_source *s = wl_source_new(&w, NULL, lp, &d);
        if (s == NULL)
            sim_diag_print(&d, stderr);
        ck_assert_ptr_nonnull(s);
        while ((rc = wl_source_next(s, &r, &d)) == 0)
            n++;
        ck_assert_int_eq(rc, SIM_EEOF);
        double m = pass == 0 ? lambda_all : best_lambda;
        double v = pass == 0 ? var_all : best_var;
        /* 5 sd, plus the renewal start-up bias (cv^2 - 1) / 2 per client
         * (at most 73 cv2max / 2). */
        double tol = 5 * sqrt(v) + 73 * cv2max / 2;
        printf("# servegen %s: %lld requests, expected %.0f +- %.0f\n",
               pass == 0 ? "all clients" : "top client", (long long)n, m, tol);
        ck_assert_msg(fabs((double)n - m) <= tol,
                      "%lld requests, expected %.0f +- %.0f", (long long)n, m,
                      tol);
        wl_source_free(s);
        sim_loop_free(lp);
    }
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);
    free(dir);
}
END_TEST

static Suite *traces_suite(void)
{
    Suite *s = suite_create("traces");
    TCase *tc;

    tc = tcase_create("mooncake");
    tcase_add_test(tc, test_next_mooncake_exact);
    tcase_add_test(tc, test_next_mooncake_scales_and_limits);
    tcase_add_test(tc, test_next_mooncake_row_errors);
    tcase_add_test(tc, test_new_mooncake_missing_file);
    suite_add_tcase(s, tc);

    tc = tcase_create("burstgpt");
    tcase_add_test(tc, test_next_burstgpt_exact);
    tcase_add_test(tc, test_next_burstgpt_row_errors);
    tcase_add_test(tc, test_new_burstgpt_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("servegen");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_next_servegen_gamma_counts);
    tcase_add_test(tc, test_next_servegen_weibull_counts);
    tcase_add_test(tc, test_next_servegen_clients_independent);
    tcase_add_test(tc, test_new_servegen_errors);
    suite_add_tcase(s, tc);

    /* The public traces live outside the repository; register their tests
     * only when the folder is there, so a bare checkout still passes. */
    struct stat st;
    if (stat(shared_dir, &st) == 0 && S_ISDIR(st.st_mode)) {
        tc = tcase_create("public");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_next_mooncake_public_conversation);
        tcase_add_test(tc, test_next_servegen_public_day);
        suite_add_tcase(s, tc);
    } else {
        printf("# SKIP shared traces not found in %s (set DSEC_SHARED)\n",
               shared_dir);
        fflush(stdout);
    }
    return s;
}

int main(void)
{
    const char *top = getenv("top_srcdir");
    const char *shared = getenv("DSEC_SHARED");

    if (top == NULL || top[0] == '\0')
        top = ".";
    fixture_dir = xasprintf("%s/tests/data/traces", top);
    if (shared != NULL && shared[0] != '\0')
        shared_dir = xasprintf("%s/traces", shared);
    else
        shared_dir = xasprintf("%s/../shared/traces", top);

    SRunner *sr = srunner_create(traces_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(fixture_dir);
    free(shared_dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
