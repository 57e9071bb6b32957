/*
 * Check suite for the per-stage and per-request results of models/cluster
 * (issue #16): the stage rows of hand-made requests booked through
 * cl__req_record() and cl__itl_add() on a bare world, with every value
 * computed by hand; and a single request on an LLM replica, whose
 * inter-token latencies are its iterations: ITL's mean is its TPOT and
 * there are output - 1 of them.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "models/perf/calib.h"
#include "scenarios/load.h"
#include "base/xalloc.h"
#include "sim/time.h"
#include "tests/run-fixture.h"

/* A request that ends at a given time with a given outcome. */
struct ending {
    struct sim_event ev;
    struct cl_world *w;
    struct cl_req r;
    int outcome;
};

/* The rows the request callback saw. */
struct seen {
    int n;
    struct cl_request_row rows[8];
    char outcomes[8][16];
};

static void on_row(void *ctx, const struct cl_request_row *row)
{
    struct seen *s = ctx;

    ck_assert_int_lt(s->n, 8);
    s->rows[s->n] = *row;
    snprintf(s->outcomes[s->n], sizeof(s->outcomes[0]), "%s", row->outcome);
    s->rows[s->n].outcome = s->outcomes[s->n];
    s->n++;
}

static void on_end(struct sim_loop *loop, struct sim_event *ev)
{
    struct ending *e = ev->arg;

    (void)loop;
    cl__req_record(e->w, &e->r, e->outcome);
}

static const struct cl_engine streaming = {.name = "test", .streams_tokens = 1};

/* A world with only what cl__req_record() reads. */
static struct cl_world *bare_world(struct cl_scenario *scn,
                                   struct cl_run_opts *opts,
                                   struct cl_results *res)
{
    struct cl_world *w = xcalloc(1, sizeof(*w));

    memset(scn, 0, sizeof(*scn));
    memset(res, 0, sizeof(*res));
    scn->metrics.requests = 1;
    w->scn = scn;
    w->opts = opts;
    w->res = res;
    w->engine = &streaming;
    w->loop = sim_loop_new(1);
    sim_hist_init(&w->itl);
    return w;
}

static void bare_free(struct cl_world *w)
{
    for (int i = 0; i < w->nstages; i++)
        free(w->stages[i]);
    free(w->stages);
    sim_loop_free(w->loop);
    free(w);
}

/* One request of stage at arrival_s, first token at first_s (< 0: none),
 * ending at end_s. */
static void add_ending(struct ending *e, struct cl_world *w, uint64_t id,
                       int stage, double arrival_s, double first_s,
                       double end_s, int64_t prompt, int64_t output,
                       int outcome)
{
    memset(e, 0, sizeof(*e));
    e->w = w;
    e->r.id = id;
    e->r.stage = stage;
    e->r.arrival_ns = llround(arrival_s * 1e9);
    e->r.first_token_ns = first_s >= 0 ? llround(first_s * 1e9) : -1;
    e->r.prompt_tokens = prompt;
    e->r.output_tokens = output;
    e->r.cached_tokens = id == 1 ? 64 : 0;
    e->r.npreempt = id == 1 ? 2 : 0;
    e->outcome = outcome;
    cl__stage_arrive(w, &e->r);
    sim_event_init(&e->ev, on_end, e);
    sim_loop_schedule(w->loop, &e->ev, llround(end_s * 1e9));
}

/* Within the histograms' 1/256 of the value. */
#define ck_assert_hist_ms(got, want)                                           \
    ck_assert_double_eq_tol(got, want, (want) / 256.0)

START_TEST(test_cl_stages_results_two_stages)
{
    struct cl_scenario scn;
    struct seen seen = {0};
    struct cl_run_opts opts = {.request = on_row, .request_ctx = &seen};
    struct cl_results res;
    struct cl_world *w = bare_world(&scn, &opts, &res);
    struct ending e[5];
    const int64_t by_stage_a[2] = {2, 1}, by_stage_b[2] = {1, 0};
    const struct cl_stage_row *s0, *s1;

    /* Stage 0: TTFT 100 and 300 ms, E2E 2100 and 2300 ms, TPOT 2 s / 10
     * = 200 ms and 2 s / 20 = 100 ms; span 0 .. 3.3 s. */
    add_ending(&e[0], w, 0, 0, 0.0, 0.1, 2.1, 100, 11, CL_OUTCOME_OK);
    add_ending(&e[1], w, 1, 0, 1.0, 1.3, 3.3, 300, 21, CL_OUTCOME_OK);
    /* Stage 1: one ok of one token (no TPOT), one dropped at arrival, one
     * timed out without a token; span 4 .. 6 s. */
    add_ending(&e[2], w, 2, 1, 4.0, 4.5, 5.0, 50, 1, CL_OUTCOME_OK);
    add_ending(&e[3], w, 3, 1, 4.2, -1, 4.2, 70, 9, CL_OUTCOME_DROPPED);
    add_ending(&e[4], w, 4, 1, 4.4, -1, 6.0, 80, 9, CL_OUTCOME_TIMEOUT);
    /* Token gaps: 20 ms for 2 decoders of stage 0 and 1 of stage 1 (one
     * after warm-up), then 40 ms for 1 of stage 0 (none measured). */
    cl__itl_add(w, 20000000, 1, by_stage_a, 2);
    cl__itl_add(w, 40000000, 0, by_stage_b, 2);
    sim_loop_run(w->loop, INT64_MAX);
    cl__stages_results(w, &res);

    ck_assert_uint_eq(res.nstages, 2);
    s0 = &res.stages[0];
    s1 = &res.stages[1];
    ck_assert_int_eq(s0->stage, 0);
    ck_assert_uint_eq(s0->requests, 2);
    ck_assert_uint_eq(s0->completed, 2);
    ck_assert_uint_eq(s0->timeouts + s0->dropped, 0);
    ck_assert_int_eq(s0->span_start_ns, 0);
    ck_assert_int_eq(s0->span_end_ns, 3300000000);
    ck_assert_double_eq_tol(s0->input_tokens_per_s, 400 / 3.3, 1e-9);
    ck_assert_double_eq_tol(s0->output_tokens_per_s, 32 / 3.3, 1e-9);
    ck_assert_double_eq_tol(s0->requests_per_s, 2 / 3.3, 1e-9);
    ck_assert_double_eq_tol(s0->ttft_mean_ms, 200, 1e-9);
    ck_assert_hist_ms(s0->ttft_p50_ms, 100);
    ck_assert_hist_ms(s0->ttft_p99_ms, 300);
    ck_assert_double_eq_tol(s0->tpot_mean_ms, 150, 1e-9);
    ck_assert_hist_ms(s0->tpot_p50_ms, 100);
    ck_assert_hist_ms(s0->tpot_p90_ms, 200);
    ck_assert_double_eq_tol(s0->e2e_mean_ms, 2200, 1e-9);
    ck_assert_hist_ms(s0->e2e_p50_ms, 2100);
    ck_assert_hist_ms(s0->e2e_p99_ms, 2300);
    ck_assert_double_eq_tol(s0->itl_mean_ms, 80.0 / 3, 1e-9);
    ck_assert_hist_ms(s0->itl_p50_ms, 20);
    ck_assert_hist_ms(s0->itl_p99_ms, 40);

    ck_assert_uint_eq(s1->requests, 3);
    ck_assert_uint_eq(s1->completed, 1);
    ck_assert_uint_eq(s1->timeouts, 1);
    ck_assert_uint_eq(s1->dropped, 1);
    ck_assert_int_eq(s1->span_start_ns, 4000000000);
    ck_assert_int_eq(s1->span_end_ns, 6000000000);
    ck_assert_double_eq_tol(s1->input_tokens_per_s, 25, 1e-9);
    ck_assert_double_eq_tol(s1->output_tokens_per_s, 0.5, 1e-9);
    ck_assert_double_eq_tol(s1->ttft_mean_ms, 500, 1e-9);
    ck_assert_double_eq_tol(s1->e2e_mean_ms, 1000, 1e-9);
    ck_assert(isnan(s1->tpot_mean_ms) && isnan(s1->tpot_p99_ms));
    ck_assert_double_eq_tol(s1->itl_mean_ms, 20, 1e-9);
    /* The run's ITL has the measured gap only. */
    ck_assert_uint_eq(sim_hist_count(&w->itl), 1);

    /* Per-request rows, in the order they ended, streamed and kept. */
    ck_assert_int_eq(seen.n, 5);
    ck_assert_uint_eq(res.nrequests, 5);
    ck_assert_uint_eq(seen.rows[0].id, 0);
    ck_assert_uint_eq(seen.rows[1].id, 1);
    ck_assert_double_eq(seen.rows[1].arrival_s, 1.0);
    ck_assert_double_eq(seen.rows[1].first_token_s, 1.3);
    ck_assert_double_eq(seen.rows[1].finish_s, 3.3);
    ck_assert_int_eq(seen.rows[1].cached_tokens, 64);
    ck_assert_int_eq(seen.rows[1].preemptions, 2);
    ck_assert_int_eq(seen.rows[1].replica, -1);
    ck_assert_str_eq(seen.rows[1].outcome, "ok");
    ck_assert_uint_eq(seen.rows[2].id, 3);
    ck_assert_str_eq(seen.rows[2].outcome, "dropped");
    ck_assert_uint_eq(seen.rows[4].id, 4);
    ck_assert_int_eq(seen.rows[4].stage, 1);
    ck_assert(isnan(seen.rows[4].first_token_s));
    ck_assert_str_eq(seen.rows[4].outcome, "timeout");
    ck_assert_str_eq(res.requests[4].outcome, "timeout");
    ck_assert_int_eq(res.requests[3].prompt_tokens, 50);
    bare_free(w);
    cl_results_fini(&res);
}
END_TEST

/* Stages past CL_STAGES_MAX count in the last one, with one note. */
START_TEST(test_cl_stage_clamped_with_note)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {0};
    struct cl_results res;
    struct cl_world *w = bare_world(&scn, &opts, &res);

    ck_assert_int_eq(cl__stage(w, 3), 3);
    ck_assert_int_eq(w->nstages, 4);
    ck_assert_int_eq(cl__stage(w, 1000), CL_STAGES_MAX - 1);
    ck_assert_int_eq(cl__stage(w, CL_STAGES_MAX), CL_STAGES_MAX - 1);
    ck_assert_int_eq(w->nstages, CL_STAGES_MAX);
    ck_assert_int_eq(res.nnotes, 1);
    ck_assert_str_eq(res.notes[0],
                     "load stages past 63 are counted in stage 63");
    cl__stages_results(w, &res);
    ck_assert_uint_eq(res.nstages, CL_STAGES_MAX);
    ck_assert_uint_eq(res.stages[10].requests, 0);
    ck_assert(isnan(res.stages[10].ttft_mean_ms));
    bare_free(w);
    cl_results_fini(&res);
}
END_TEST

static const char *one_request_text =
    "seed: 5\n"
    "model: llama-3.1-8b\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: {process: poisson, rate_per_s: 1}\n"
    "    requests: 1\n"
    "    prompt_tokens: {dist: fixed, value: 500}\n"
    "    output_tokens: {dist: fixed, value: 50}\n"
    "hardware: {gpu: h100}\n"
    "deploy: {tp: 1}\n"
    "cluster: {replicas: 1}\n";

/* The front end on a lone request: server.frontend.request given adds its
 * difference from the calibration's (built-in 2 ms) to TTFT and E2E, and
 * nothing to the engine's time per token. */
START_TEST(test_cl_run_frontend_key_replaces_calibration)
{
    struct cl_results base, fe;
    char *t =
        xasprintf("%sserver: {frontend: {request: 10ms}}\n", one_request_text);

    run_fixture_text(one_request_text, ".", &base);
    run_fixture_text(t, ".", &fe);
    ck_assert_double_eq_tol(fe.ttft_ms.mean - base.ttft_ms.mean, 8.0, 1e-6);
    ck_assert_double_eq_tol(fe.e2e_ms.mean - base.e2e_ms.mean, 8.0, 1e-6);
    ck_assert_double_eq_tol(fe.tpot_ms.mean, base.tpot_ms.mean, 1e-9);
    cl_results_fini(&base);
    cl_results_fini(&fe);
    free(t);
}
END_TEST

/* One request alone on a replica: each of its 49 later tokens takes one
 * decode iteration, so ITL's samples are those iterations and their mean
 * is (E2E - TTFT) / 49, its TPOT. */
START_TEST(test_cl_run_itl_single_request_is_iteration_time)
{
    struct cl_scenario scn;
    struct seen seen = {0};
    struct cl_run_opts opts = {
        .base_dir = ".", .request = on_row, .request_ctx = &seen};
    struct cl_results res;
    struct sim_diag d;
    const struct cl_request_row *row;

    sim_diag_init(&d);
    ck_assert_int_eq(scn_string_load("inline.yaml", one_request_text,
                                     strlen(one_request_text), &scn, &d),
                     0);
    ck_assert_int_eq(cl_run(&scn, &opts, &res, &d), 0);
    ck_assert_uint_eq(res.requests_completed, 1);
    ck_assert_uint_eq(res.itl_ms.n, 49);
    ck_assert(isnan(res.itl_ms.ci95));
    /* TPOT truncates to whole ns. */
    ck_assert_double_eq_tol(res.itl_ms.mean, res.tpot_ms.mean, 1e-6);
    ck_assert(res.itl_ms.p50 > 1.0 && res.itl_ms.p50 < 50.0);
    ck_assert(res.itl_ms.max >= res.itl_ms.p99);
    ck_assert_uint_eq(res.nstages, 1);
    ck_assert_uint_eq(res.stages[0].requests, 1);
    ck_assert_uint_eq(res.stages[0].completed, 1);
    ck_assert_double_eq_tol(res.stages[0].itl_mean_ms, res.itl_ms.mean, 1e-9);
    ck_assert_double_eq_tol(res.stages[0].ttft_mean_ms, res.ttft_ms.mean, 1e-6);
    /* The database rows are opt-in; the callback saw the one request. */
    ck_assert_uint_eq(res.nrequests, 0);
    ck_assert_int_eq(seen.n, 1);
    row = &seen.rows[0];
    ck_assert_str_eq(row->outcome, "ok");
    ck_assert_int_eq(row->replica, 0);
    ck_assert_int_eq(row->output_tokens, 50);
    ck_assert_int_eq(row->cached_tokens, 0);
    ck_assert_double_eq_tol((row->first_token_s - row->arrival_s) * 1e3,
                            res.ttft_ms.mean, 1e-6);
    /* The last token reaches the client one front-end token time
     * (server.frontend.per_output_token) after the engine's end. */
    ck_assert_double_eq_tol(
        row->finish_s,
        res.sim_time_s +
            sim_ns_to_s(
                perf_calib_builtin.gpus[0].frontend.per_output_token_ns),
        1e-9);
    ck_assert_double_eq_tol((row->finish_s - row->arrival_s) * 1e3,
                            res.e2e_ms.mean, 1e-6);
    cl_results_fini(&res);
    cl_scenario_fini(&scn);
    sim_diag_fini(&d);
}
END_TEST

static Suite *results_suite(void)
{
    Suite *s = suite_create("cluster_results");
    TCase *tc = tcase_create("stages");

    tcase_add_test(tc, test_cl_stages_results_two_stages);
    tcase_add_test(tc, test_cl_stage_clamped_with_note);
    suite_add_tcase(s, tc);
    tc = tcase_create("itl");
    tcase_add_test(tc, test_cl_run_itl_single_request_is_iteration_time);
    tcase_add_test(tc, test_cl_run_frontend_key_replaces_calibration);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(results_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
