/*
 * The cluster: reads requests from the workload source one at a time
 * (streamed: one arrival event is pending at any moment), hands them to the
 * replica engine of server.kind (through its entry in the registry,
 * engine.h: the engine also sizes the replica, builds each pool's model and
 * fills its own results), and records metrics when they finish. Metrics
 * cover the requests that arrive after the warm-up fraction; time-weighted
 * averages and the time series cover the whole run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "models/workload/dist.h"
#include "models/policy/policy.h"
#include "base/errors.h"
#include "sim/time.h"

/* A priority class at run time. */
struct cl_class_rt {
    double cum_share; /* upper end of its slice of [0, 1) */
    struct sim_hist ttft, e2e;
    double ttft_sum_ns;
    uint64_t measured, slo_met;
};

/* A load stage at run time: every request of the stage, warm-up included
 * (struct cl_stage_row says what each result is). */
struct cl_stage_rt {
    uint64_t requests, completed, timeouts, dropped;
    int64_t first_ns, last_ns; /* span: first arrival, last end; -1 */
    uint64_t input_tokens, output_tokens;
    double ttft_sum_ns, tpot_sum_ns, itl_sum_ns, e2e_sum_ns;
    struct sim_hist ttft, tpot, itl, e2e;
};

/* Upper bound on time-series rows, so that a tiny interval on a long run
 * cannot grow the results without limit (a year at 1 s). */
/* The most interval rows a run may close (metrics.interval): beyond it the
 * run fails with an error rather than drop rows or grow without bound (a
 * row and its pool columns are a few hundred bytes: 1e6 rows stay well
 * under 1 GiB). */
#define CL_SERIES_MAX 1000000u

void cl__fifo_push(struct cl_fifo *q, struct cl_req *r)
{
    r->next = NULL;
    r->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->n++;
}

void cl__fifo_push_front(struct cl_fifo *q, struct cl_req *r)
{
    r->prev = NULL;
    r->next = q->head;
    if (q->head != NULL)
        q->head->prev = r;
    else
        q->tail = r;
    q->head = r;
    q->n++;
}

struct cl_req *cl__fifo_pop(struct cl_fifo *q)
{
    struct cl_req *r = q->head;
    if (r == NULL)
        return NULL;
    q->head = r->next;
    if (q->head != NULL)
        q->head->prev = NULL;
    else
        q->tail = NULL;
    q->n--;
    r->next = r->prev = NULL;
    return r;
}

void cl__fifo_remove(struct cl_fifo *q, struct cl_req *r)
{
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        q->head = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    else
        q->tail = r->prev;
    q->n--;
    r->next = r->prev = NULL;
}

/* Zeroes r through the C library's memset. Given the constant size, the
 * compiler writes `rep stos` in place, whose start-up was two thirds of a
 * new request's CPU time (2 % of the fleet-day's); a size it cannot see
 * through makes it call memset, which clears the record with vector
 * stores. */
static void clear_req(struct cl_req *r)
{
    size_t n = sizeof(*r);

#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(n));
#endif
    memset(r, 0, n);
}

struct cl_req *cl__req_new(struct cl_world *w)
{
    struct cl_req *r = w->free_list;
    if (r != NULL) {
        w->free_list = r->next;
    } else {
        r = xmalloc(sizeof(*r));
        if (w->nreqs_all == w->cap_reqs_all) {
            w->cap_reqs_all = w->cap_reqs_all ? 2 * w->cap_reqs_all : 64;
            w->reqs_all =
                xrealloc(w->reqs_all, w->cap_reqs_all, sizeof(*w->reqs_all));
        }
        w->reqs_all[w->nreqs_all++] = r;
    }
    clear_req(r);
    r->first_token_ns = -1;
    r->user = -1;
    sim_event_init(&r->client_ev, NULL, NULL);
    w->live++;
    return r;
}

void cl__req_free(struct cl_world *w, struct cl_req *r)
{
    free(r->hashes);
    r->hashes = NULL;
    r->next = w->free_list;
    w->free_list = r;
    if (--w->live == 0)
        w->idle_since_ns = sim_loop_now(w->loop);
}

void cl__set_waiting(struct cl_world *w, int64_t delta)
{
    int64_t now = sim_loop_now(w->loop);
    w->n_waiting += delta;
    sim_tavg_set(&w->waiting, now, (double)w->n_waiting);
    sim_tavg_set(&w->iv_waiting, now, (double)w->n_waiting);
}

void cl__set_running(struct cl_world *w, int64_t delta)
{
    int64_t now = sim_loop_now(w->loop);
    w->n_running += delta;
    sim_tavg_set(&w->running, now, (double)w->n_running);
    sim_tavg_set(&w->iv_running, now, (double)w->n_running);
}

static void metric_init(struct cl_metric *m, int batches)
{
    if (sim_bmeans_init(&m->bm, (size_t)batches) != 0)
        sim_bmeans_init(&m->bm, 32); /* the loader range-checks batches */
    sim_hist_init(&m->all);
    sim_hist_init(&m->iv_measured);
    sim_hist_init(&m->iv_warmup);
}

/* One add a sample, not two: the run's histogram takes the interval's
 * measured samples as it closes (metric_close()), which gives it the same
 * counts. */
static void metric_add(struct cl_metric *m, int64_t ns, int measured)
{
    if (ns < 0)
        ns = 0;
    if (!measured) {
        sim_hist_add(&m->iv_warmup, ns);
        return;
    }
    sim_bmeans_add(&m->bm, sim_ns_to_ms(ns));
    sim_hist_add(&m->iv_measured, ns);
}

/* The series interval closes: its measured samples join the run's. */
static void metric_close(struct cl_metric *m)
{
    sim_hist_merge(&m->all, &m->iv_measured);
    sim_hist_reset(&m->iv_measured);
    sim_hist_reset(&m->iv_warmup);
}

static void metric_result(struct cl_metric *m, struct cl_latency *out)
{
    sim_hist_merge(&m->all, &m->iv_measured); /* an interval left open */
    sim_hist_reset(&m->iv_measured);
    out->n = sim_hist_count(&m->all);
    if (out->n == 0) {
        out->mean = out->ci95 = out->p50 = out->p90 = NAN;
        out->p99 = out->max = NAN;
        return;
    }
    out->mean = sim_bmeans_mean(&m->bm);
    out->ci95 = sim_bmeans_ci95(&m->bm);
    out->p50 = sim_hist_quantile(&m->all, 0.50) * 1e-6;
    out->p90 = sim_hist_quantile(&m->all, 0.90) * 1e-6;
    out->p99 = sim_hist_quantile(&m->all, 0.99) * 1e-6;
    out->max = (double)sim_hist_max(&m->all) * 1e-6;
}

/* The q quantile of the interval's samples, measured or not, in ms. */
static double interval_q(const struct cl_metric *m, double q)
{
    const struct sim_hist *a = &m->iv_measured, *b = &m->iv_warmup;
    struct sim_hist *both;
    double v;

    if (sim_hist_count(b) == 0)
        return sim_hist_count(a) == 0 ? NAN : sim_hist_quantile(a, q) * 1e-6;
    if (sim_hist_count(a) == 0)
        return sim_hist_quantile(b, q) * 1e-6;
    /* Around the end of the warm-up only. */
    both = xmalloc(sizeof(*both));
    sim_hist_init(both);
    sim_hist_merge(both, a);
    sim_hist_merge(both, b);
    v = sim_hist_quantile(both, q) * 1e-6;
    free(both);
    return v;
}

/* Priority classes: cumulative normalised shares, one TTFT and E2E
 * histogram each. */
static void classes_init(struct cl_world *w)
{
    const struct cl_workload *wl = &w->scn->workload;
    double total = 0, cum = 0;
    if (wl->npriority_classes <= 0)
        return;
    w->nclasses = wl->npriority_classes;
    w->classes = xcalloc((size_t)w->nclasses, sizeof(*w->classes));
    for (int i = 0; i < w->nclasses; i++)
        total += wl->priority_classes[i].share;
    for (int i = 0; i < w->nclasses; i++) {
        cum += wl->priority_classes[i].share / total;
        w->classes[i].cum_share = i == w->nclasses - 1 ? 1.0 : cum;
        sim_hist_init(&w->classes[i].ttft);
        sim_hist_init(&w->classes[i].e2e);
    }
}

/* Assigns r a class at random in proportion to the shares, from its own
 * stream so that nothing else is perturbed. */
static void class_pick(struct cl_world *w, struct cl_req *r)
{
    double u;
    int k = 0;
    if (w->nclasses == 0)
        return;
    u = gsl_rng_uniform(sim_loop_stream(w->loop, "priority_class"));
    while (k < w->nclasses - 1 && u >= w->classes[k].cum_share)
        k++;
    r->prio_class = k;
    r->priority = w->scn->workload.priority_classes[k].priority;
}

static void classes_results(const struct cl_world *w, struct cl_results *out)
{
    const struct cl_slo *slo = &w->scn->slo;
    int has_slo = slo->ttft_ns >= 0 || slo->tpot_ns >= 0 || slo->e2e_ns >= 0;
    if (w->nclasses == 0)
        return;
    out->classes = xcalloc((size_t)w->nclasses, sizeof(*out->classes));
    out->nclasses = w->nclasses;
    for (int i = 0; i < w->nclasses; i++) {
        const struct cl_class_rt *c = &w->classes[i];
        struct cl_class_result *o = &out->classes[i];
        o->name = xstrdup(w->scn->workload.priority_classes[i].name);
        o->priority = w->scn->workload.priority_classes[i].priority;
        o->completed = c->measured;
        o->ttft_mean_ms = o->ttft_p50_ms = o->ttft_p99_ms = NAN;
        o->e2e_p99_ms = o->slo_attainment = NAN;
        if (c->measured == 0)
            continue;
        o->ttft_mean_ms = c->ttft_sum_ns / (double)c->measured * 1e-6;
        o->ttft_p50_ms = sim_hist_quantile(&c->ttft, 0.50) * 1e-6;
        o->ttft_p99_ms = sim_hist_quantile(&c->ttft, 0.99) * 1e-6;
        o->e2e_p99_ms = sim_hist_quantile(&c->e2e, 0.99) * 1e-6;
        if (has_slo)
            o->slo_attainment = (double)c->slo_met / (double)c->measured;
    }
}

int cl__stage_make(struct cl_world *w, int stage)
{
    if (stage < 0)
        stage = 0;
    if (stage >= CL_STAGES_MAX) {
        if (!w->stages_clamped) {
            w->stages_clamped = 1;
            char *n = xasprintf("load stages past %d are counted in stage %d",
                                CL_STAGES_MAX - 1, CL_STAGES_MAX - 1);
            cl_results_note(w->res, n);
            free(n);
        }
        stage = CL_STAGES_MAX - 1;
    }
    if (stage >= w->nstages) {
        int n = stage + 1;
        w->stages = xrealloc(w->stages, (size_t)n, sizeof(*w->stages));
        for (int i = w->nstages; i < n; i++)
            w->stages[i] = NULL;
        w->nstages = n;
    }
    if (w->stages[stage] == NULL) {
        struct cl_stage_rt *st = xcalloc(1, sizeof(*st));
        st->first_ns = st->last_ns = -1;
        sim_hist_init(&st->ttft);
        sim_hist_init(&st->tpot);
        sim_hist_init(&st->itl);
        sim_hist_init(&st->e2e);
        w->stages[stage] = st;
    }
    return stage;
}

void cl__stage_arrive(struct cl_world *w, const struct cl_req *r)
{
    int k = cl__stage(w, r->stage);
    w->stages[k]->requests++;
}

void cl__itl_add(struct cl_world *w, int64_t gap_ns, uint64_t measured,
                 const int64_t *by_stage, int nstages)
{
    if (gap_ns < 0)
        gap_ns = 0;
    sim_hist_add_n(&w->itl, gap_ns, measured);
    w->itl_sum_ns += (double)gap_ns * (double)measured;
    for (int i = 0; i < nstages && i < w->nstages; i++) {
        struct cl_stage_rt *st = w->stages[i];
        if (by_stage[i] <= 0 || st == NULL)
            continue;
        sim_hist_add_n(&st->itl, gap_ns, (uint64_t)by_stage[i]);
        st->itl_sum_ns += (double)gap_ns * (double)by_stage[i];
    }
}

void cl__itl_add_run(struct cl_world *w, int64_t *gap_ns, int n,
                     uint64_t measured, const int64_t *by_stage, int nstages)
{
    /* Their buckets once, for the world's histogram and each stage's: a
     * window's gaps grow by a few hundred ns a step, so they are mostly
     * one run. */
    struct sim_hist_run run[64];
    int64_t lo, hi;

    for (int j = 0; j < n; j++)
        if (gap_ns[j] < 0)
            gap_ns[j] = 0;
    for (int off = 0; off < n; off += 64) {
        int m = n - off < 64 ? n - off : 64;
        size_t nrun = sim_hist_runs(gap_ns + off, (size_t)m, run, &lo, &hi);
        sim_hist_add_runs(&w->itl, run, nrun, lo, hi, measured);
        for (int i = 0; i < nstages && i < w->nstages; i++) {
            struct cl_stage_rt *st = w->stages[i];
            if (by_stage[i] > 0 && st != NULL)
                sim_hist_add_runs(&st->itl, run, nrun, lo, hi,
                                  (uint64_t)by_stage[i]);
        }
    }
    for (int j = 0; j < n; j++)
        w->itl_sum_ns += (double)gap_ns[j] * (double)measured;
    for (int i = 0; i < nstages && i < w->nstages; i++) {
        struct cl_stage_rt *st = w->stages[i];
        if (by_stage[i] <= 0 || st == NULL)
            continue;
        for (int j = 0; j < n; j++)
            st->itl_sum_ns += (double)gap_ns[j] * (double)by_stage[i];
    }
}

/* ns as seconds, correctly rounded (a division, not a multiplication by
 * 1e-9), so that the per-request files print 0.539363733, not
 * 0.5393637330000001. */
static double row_s(int64_t ns)
{
    return (double)ns / 1e9;
}

static const char *outcome_name(int outcome)
{
    static const char *const names[] = {"ok", "timeout", "dropped"};
    return outcome >= 0 && outcome <= CL_OUTCOME_DROPPED ? names[outcome] : "?";
}

/* Appends row to the results' requests, up to CL_REQUESTS_MAX. */
static void keep_request_row(struct cl_world *w,
                             const struct cl_request_row *row)
{
    struct cl_results *res = w->res;

    if (res->nrequests >= CL_REQUESTS_MAX) {
        res->requests_rows_dropped++;
        return;
    }
    if (res->nrequests == w->requests_cap) {
        w->requests_cap = w->requests_cap ? 2 * w->requests_cap : 256;
        res->requests =
            xrealloc(res->requests, w->requests_cap, sizeof(*res->requests));
    }
    res->requests[res->nrequests] = *row;
    res->requests[res->nrequests].outcome = xstrdup(row->outcome);
    res->nrequests++;
}

/* w->frontend: each server.frontend key given, else the calibration of
 * the first pool's GPU (the API server is one process in front of the
 * replicas, so one figure serves all pools); zero for abstract servers. */
static void resolve_frontend(struct cl_world *w)
{
    const struct cl_server *sv = &w->scn->server;
    const struct perf_gpu_calib *c =
        &cl__layout_of(w, 0, cl__role_first(w))->perf.calib;
    struct cl_frontend *f = &w->frontend;

    memset(f, 0, sizeof(*f));
    if (sv->kind != CL_SRV_LLM)
        return;
    f->request_ns = sv->frontend.request_ns >= 0
                        ? sv->frontend.request_ns
                        : llround(c->frontend_request_ns);
    f->per_prompt_token_ns = sv->frontend.per_prompt_token_ns >= 0
                                 ? sv->frontend.per_prompt_token_ns
                                 : llround(c->frontend_prompt_token_ns);
    f->per_output_token_ns = sv->frontend.per_output_token_ns >= 0
                                 ? sv->frontend.per_output_token_ns
                                 : llround(c->frontend_output_token_ns);
}

/* The front end's time per streamed token (struct cl_frontend), 0 for
 * servers without one. */
static int64_t frontend_out_ns(const struct cl_world *w)
{
    return w->frontend.per_output_token_ns;
}

void cl__req_record(struct cl_world *w, const struct cl_req *r, int outcome)
{
    /* A finished request as the client sees it, as cl__complete() counts
     * it: its first and last tokens reach the client one front-end token
     * time after leaving the engine. */
    int64_t out_ns = outcome == CL_OUTCOME_OK ? frontend_out_ns(w) : 0;
    int64_t end_ns = sim_loop_now(w->loop); /* the stage's span: engine */
    int64_t now = end_ns + out_ns;
    int k = cl__stage(w, r->stage);
    struct cl_stage_rt *st = w->stages[k];

    if (st->first_ns < 0 || r->arrival_ns < st->first_ns)
        st->first_ns = r->arrival_ns;
    if (end_ns > st->last_ns)
        st->last_ns = end_ns;
    if (outcome == CL_OUTCOME_TIMEOUT)
        st->timeouts++;
    else if (outcome == CL_OUTCOME_DROPPED)
        st->dropped++;
    if (outcome == CL_OUTCOME_OK) {
        int64_t ttft = r->first_token_ns + out_ns - r->arrival_ns;
        int64_t e2e = now - r->arrival_ns;
        ttft = ttft > 0 ? ttft : 0;
        e2e = e2e > 0 ? e2e : 0;
        st->completed++;
        st->input_tokens += (uint64_t)r->prompt_tokens;
        st->output_tokens += (uint64_t)r->output_tokens;
        sim_hist_add(&st->ttft, ttft);
        sim_hist_add(&st->e2e, e2e);
        st->ttft_sum_ns += (double)ttft;
        st->e2e_sum_ns += (double)e2e;
        if (r->output_tokens >= 2 && w->engine->streams_tokens) {
            /* As cl__complete() computes TPOT. */
            int64_t tpot =
                (now - out_ns - r->first_token_ns) / (r->output_tokens - 1);
            tpot = tpot > 0 ? tpot : 0;
            sim_hist_add(&st->tpot, tpot);
            st->tpot_sum_ns += (double)tpot;
        }
    }
    if (w->opts->request != NULL || w->scn->metrics.requests) {
        struct cl_request_row row = {
            .id = r->id,
            .stage = r->stage,
            .arrival_s = row_s(r->arrival_ns),
            .first_token_s = r->first_token_ns >= 0
                                 ? row_s(r->first_token_ns + out_ns)
                                 : NAN,
            .finish_s = row_s(now),
            .prompt_tokens = r->prompt_tokens,
            .output_tokens = r->output_tokens,
            .cached_tokens = r->cached_tokens,
            .replica = r->rep != NULL ? (int64_t)r->rep->serial : -1,
            .preemptions = r->npreempt,
            /* Static; keep_request_row() copies it. */
            .outcome = (char *)outcome_name(outcome),
        };
        if (w->opts->request != NULL)
            w->opts->request(w->opts->request_ctx, &row);
        if (w->scn->metrics.requests)
            keep_request_row(w, &row);
    }
}

/* q-quantile of h in ms, NAN when h is empty. */
static double hist_ms(const struct sim_hist *h, double q)
{
    return sim_hist_count(h) > 0 ? sim_hist_quantile(h, q) * 1e-6 : NAN;
}

/* sum_ns / n in ms, NAN when n is 0. */
static double mean_ms(double sum_ns, uint64_t n)
{
    return n > 0 ? sum_ns / (double)n * 1e-6 : NAN;
}

void cl__stages_results(const struct cl_world *w, struct cl_results *out)
{
    out->stages = w->nstages > 0
                      ? xcalloc((size_t)w->nstages, sizeof(*out->stages))
                      : NULL;
    out->nstages = (size_t)w->nstages;
    for (int i = 0; i < w->nstages; i++) {
        const struct cl_stage_rt *st = w->stages[i];
        struct cl_stage_row *o = &out->stages[i];
        double span_s;

        o->stage = i;
        o->input_tokens_per_s = o->output_tokens_per_s = NAN;
        o->requests_per_s = NAN;
        o->ttft_mean_ms = o->ttft_p50_ms = o->ttft_p90_ms = NAN;
        o->ttft_p99_ms = o->tpot_mean_ms = o->tpot_p50_ms = NAN;
        o->tpot_p90_ms = o->tpot_p99_ms = o->itl_mean_ms = NAN;
        o->itl_p50_ms = o->itl_p90_ms = o->itl_p99_ms = NAN;
        o->e2e_mean_ms = o->e2e_p50_ms = o->e2e_p90_ms = NAN;
        o->e2e_p99_ms = NAN;
        if (st == NULL)
            continue;
        o->requests = st->requests;
        o->completed = st->completed;
        o->timeouts = st->timeouts;
        o->dropped = st->dropped;
        o->span_start_ns = st->first_ns > 0 ? st->first_ns : 0;
        o->span_end_ns = st->last_ns > 0 ? st->last_ns : 0;
        span_s = sim_ns_to_s(o->span_end_ns - o->span_start_ns);
        if (span_s > 0) {
            o->input_tokens_per_s = (double)st->input_tokens / span_s;
            o->output_tokens_per_s = (double)st->output_tokens / span_s;
            o->requests_per_s = (double)st->completed / span_s;
        }
        o->ttft_mean_ms = mean_ms(st->ttft_sum_ns, sim_hist_count(&st->ttft));
        o->ttft_p50_ms = hist_ms(&st->ttft, 0.50);
        o->ttft_p90_ms = hist_ms(&st->ttft, 0.90);
        o->ttft_p99_ms = hist_ms(&st->ttft, 0.99);
        o->tpot_mean_ms = mean_ms(st->tpot_sum_ns, sim_hist_count(&st->tpot));
        o->tpot_p50_ms = hist_ms(&st->tpot, 0.50);
        o->tpot_p90_ms = hist_ms(&st->tpot, 0.90);
        o->tpot_p99_ms = hist_ms(&st->tpot, 0.99);
        o->itl_mean_ms = mean_ms(st->itl_sum_ns, sim_hist_count(&st->itl));
        o->itl_p50_ms = hist_ms(&st->itl, 0.50);
        o->itl_p90_ms = hist_ms(&st->itl, 0.90);
        o->itl_p99_ms = hist_ms(&st->itl, 0.99);
        o->e2e_mean_ms = mean_ms(st->e2e_sum_ns, sim_hist_count(&st->e2e));
        o->e2e_p50_ms = hist_ms(&st->e2e, 0.50);
        o->e2e_p90_ms = hist_ms(&st->e2e, 0.90);
        o->e2e_p99_ms = hist_ms(&st->e2e, 0.99);
    }
}

/* The pooled inter-token latency: no batch means (ci95 NAN). */
static void itl_result(const struct cl_world *w, struct cl_latency *out)
{
    out->n = sim_hist_count(&w->itl);
    out->ci95 = NAN;
    out->mean = mean_ms(w->itl_sum_ns, out->n);
    out->p50 = hist_ms(&w->itl, 0.50);
    out->p90 = hist_ms(&w->itl, 0.90);
    out->p99 = hist_ms(&w->itl, 0.99);
    out->max = out->n > 0 ? (double)sim_hist_max(&w->itl) * 1e-6 : NAN;
}

void cl__complete(struct cl_world *w, struct cl_req *r)
{
    const struct cl_slo *slo = &w->scn->slo;
    int64_t now = sim_loop_now(w->loop);
    int measured = r->id >= w->warmup;
    /* As the client sees them: the first and the last token each reach it
     * one front-end token time after leaving the engine. */
    int64_t out_ns = frontend_out_ns(w);
    int64_t ttft = r->first_token_ns + out_ns - r->arrival_ns;
    int64_t e2e = now + out_ns - r->arrival_ns;
    int64_t tpot = -1;

    if (r->output_tokens >= 2 && w->engine->streams_tokens)
        tpot = (now - r->first_token_ns) / (r->output_tokens - 1);
    metric_add(&w->ttft, ttft, measured);
    metric_add(&w->e2e, e2e, measured);
    metric_add(&w->queue_ms, r->start_ns - r->arrival_ns, measured);
    if (tpot >= 0)
        metric_add(&w->tpot, tpot, measured);
    if (w->readouts && r->rep != NULL) {
        struct cl_vhist *h = r->rep->req;
        cl__vhist_add(&h[CL_VH_PROMPT], CL_VH_PROMPT, (double)r->prompt_tokens);
        cl__vhist_add(&h[CL_VH_OUTPUT], CL_VH_OUTPUT, (double)r->output_tokens);
        cl__vhist_add(&h[CL_VH_E2E], CL_VH_E2E, sim_ns_to_s(e2e));
    }
    w->completed++;
    w->iv_completions++;
    w->iv_output_tokens += (uint64_t)r->output_tokens;
    w->input_tokens += (uint64_t)r->prompt_tokens;
    w->output_tokens += (uint64_t)r->output_tokens;
    w->last_event_ns = now;
    if (measured) {
        int met = 1;
        w->measured++;
        if (slo->ttft_ns >= 0 && ttft > slo->ttft_ns)
            met = 0;
        if (slo->tpot_ns >= 0 && tpot > slo->tpot_ns)
            met = 0;
        if (slo->e2e_ns >= 0 && e2e > slo->e2e_ns)
            met = 0;
        w->slo_met += (uint64_t)met;
        if (w->nclasses > 0) {
            struct cl_class_rt *c = &w->classes[r->prio_class];
            c->measured++;
            c->slo_met += (uint64_t)met;
            c->ttft_sum_ns += (double)(ttft > 0 ? ttft : 0);
            sim_hist_add(&c->ttft, ttft > 0 ? ttft : 0);
            sim_hist_add(&c->e2e, e2e > 0 ? e2e : 0);
        }
    }
    cl__req_record(w, r, CL_OUTCOME_OK);
    cl__client_ended(w, r);
    cl__req_free(w, r);
    if (w->opts->progress != NULL && w->completed % w->progress_every == 0)
        w->opts->progress(w->opts->progress_ctx, sim_ns_to_s(now), w->completed,
                          w->expected);
}

static void close_interval(struct cl_world *w, int64_t end_ns, int last)
{
    struct cl_results *res = w->res;
    struct cl_series_row *row;
    double len_s = sim_ns_to_s(end_ns - w->interval_start_ns);

    if (end_ns <= w->interval_start_ns || res->nseries >= CL_SERIES_MAX) {
        if (last)
            cl__rseries_flush(w, w->interval_start_ns);
        return;
    }
    if (res->nseries == w->series_cap) {
        w->series_cap = w->series_cap ? 2 * w->series_cap : 64;
        res->series = xrealloc(res->series, w->series_cap, sizeof(*row));
        res->pool_gpus_mean =
            xrealloc(res->pool_gpus_mean, w->series_cap * (size_t)w->npools,
                     sizeof(double));
        res->pool_cost_usd =
            xrealloc(res->pool_cost_usd, w->series_cap * (size_t)w->npools,
                     sizeof(double));
    }
    for (int p = 0; p < w->npools; p++) {
        struct cl_pool_rt *pool = &w->pools[p];
        size_t k = res->nseries * (size_t)w->npools + (size_t)p;
        double g = sim_tavg_mean(&pool->iv_gpus, end_ns);
        res->pool_gpus_mean[k] = g;
        res->pool_cost_usd[k] = (pool->reserved ? (double)pool->gpus : g) *
                                len_s / 3600.0 * pool->price;
        sim_tavg_restart(&pool->iv_gpus, end_ns);
    }
    row = &res->series[res->nseries++];
    row->t_start_ns = w->interval_start_ns;
    row->t_end_ns = end_ns;
    row->arrivals = w->iv_arrivals;
    row->completions = w->iv_completions;
    row->output_tokens = w->iv_output_tokens;
    row->throughput_tokens_per_s = (double)w->iv_output_tokens / len_s;
    row->queue_len_mean = sim_tavg_mean(&w->iv_waiting, end_ns);
    row->running_mean = sim_tavg_mean(&w->iv_running, end_ns);
    row->replicas_mean = sim_tavg_mean(&w->iv_replicas, end_ns);
    row->gpus_mean = sim_tavg_mean(&w->iv_gpus, end_ns);
    row->desired_replicas = w->elastic ? w->desired : w->n_serving;
    row->ttft_p50_ms = interval_q(&w->ttft, 0.5);
    row->ttft_p99_ms = interval_q(&w->ttft, 0.99);
    row->tpot_p50_ms = interval_q(&w->tpot, 0.5);
    row->tpot_p99_ms = interval_q(&w->tpot, 0.99);
    row->e2e_p50_ms = interval_q(&w->e2e, 0.5);
    row->e2e_p99_ms = interval_q(&w->e2e, 0.99);
    cl__rseries_close(w, end_ns, last);

    w->interval_start_ns = end_ns;
    w->iv_arrivals = w->iv_completions = w->iv_output_tokens = 0;
    sim_tavg_restart(&w->iv_waiting, end_ns);
    sim_tavg_restart(&w->iv_running, end_ns);
    sim_tavg_restart(&w->iv_replicas, end_ns);
    sim_tavg_restart(&w->iv_gpus, end_ns);
    metric_close(&w->ttft);
    metric_close(&w->tpot);
    metric_close(&w->e2e);
    metric_close(&w->queue_ms);
}

static void on_interval(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;
    /* Once everything is done the run has ended at the last event, before
     * this tick: the final row is closed there, not here. */
    if (w->source_done && w->live == 0)
        return;
    if (w->res->nseries >= CL_SERIES_MAX) {
        if (w->diag != NULL)
            sim_diag_error(w->diag, w->scn->file, 0, 0,
                           "metrics.interval: the run passes %u intervals; "
                           "give a longer interval",
                           CL_SERIES_MAX);
        w->failed = SIM_ERANGE;
        sim_loop_stop(loop);
        return;
    }
    close_interval(w, sim_loop_now(loop), 0);
    /* Keep ticking only while something can still happen. */
    if (!w->source_done || w->live > 0)
        sim_loop_after(loop, ev, w->scn->metrics.interval_ns);
}

/* Reads the next request ahead and schedules its arrival when the client
 * says (it may hold it and send it itself). */
static void read_next(struct cl_world *w)
{
    int64_t at;
    int rc = wl_source_next(w->src, &w->next_req, w->diag);
    if (rc == SIM_EEOF) {
        w->source_done = 1;
        return;
    }
    if (rc < 0) {
        w->source_done = 1;
        w->failed = rc;
        sim_loop_stop(w->loop);
        return;
    }
    /* At least now (a trace's rows out of order), or -1: the client
     * sends it itself. */
    at = cl__client_due(w, &w->next_req);
    if (at >= 0)
        sim_loop_schedule(w->loop, &w->arrival_ev, at);
}

static void on_frontend_done(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_req *r = ev->arg;

    (void)loop;
    struct cl_world *w = r->frontend_world;
    r->frontend_world = NULL;
    w->engine->ops->arrive(w, r);
}

int cl__frontend_cancel(struct cl_world *w, struct cl_req *r)
{
    if (r->frontend_world == NULL)
        return 0;
    sim_loop_cancel(w->loop, &r->ev);
    r->frontend_world = NULL;
    return 1;
}

/* Hands r to the engine after the API front end (struct cl_frontend):
 * HTTP handling and tokenisation before the engine queue. The request's
 * own event carries the delay; the engine takes it over at arrive(). */
static void frontend_admit(struct cl_world *w, struct cl_req *r)
{
    int64_t t = w->frontend.request_ns +
                w->frontend.per_prompt_token_ns * r->prompt_tokens;

    if (t <= 0) {
        w->engine->ops->arrive(w, r);
        return;
    }
    r->frontend_world = w;
    sim_event_init(&r->ev, on_frontend_done, r);
    sim_loop_after(w->loop, &r->ev, t);
}

void cl__send_next(struct cl_world *w, int user)
{
    struct cl_req *r = cl__req_new(w);
    int keep;

    r->id = w->arrived++;
    r->arrival_ns = sim_loop_now(w->loop);
    r->user = user;
    r->prompt_tokens = w->next_req.prompt_tokens;
    r->output_tokens = w->next_req.output_tokens;
    r->stage = w->next_req.stage;
    cl__stage_arrive(w, r);
    /* Before read_next(), which reuses the source's block hashes. */
    keep = w->engine->ops->accept(w, r, &w->next_req);
    class_pick(w, r);
    w->iv_arrivals++;
    w->cl_ctr.arrivals++;
    w->cl_ctr.arrival_prompt_tokens += (uint64_t)r->prompt_tokens;
    w->cl_ctr.arrival_output_tokens += (uint64_t)r->output_tokens;
    w->last_event_ns = r->arrival_ns;
    /* In flight before the next is read: a new stage waits for it. */
    cl__client_sent(w, r, keep);
    read_next(w);
    if (!keep) {
        /* No replica could ever serve it (it would never fit a KV cache):
         * dropped, not queued forever. */
        w->dropped++;
        cl__req_record(w, r, CL_OUTCOME_DROPPED);
        cl__client_ended(w, r);
        cl__req_free(w, r);
        return;
    }
    cl__orch_arrive(w);
    frontend_admit(w, r);
}

/* The read-ahead request is due: sent now, unless the client holds it
 * (max_concurrency in flight). */
static void on_arrival(struct sim_loop *loop, struct sim_event *ev)
{
    struct cl_world *w = ev->arg;

    (void)loop;
    if (cl__client_gate(w))
        cl__send_next(w, -1);
}

void cl__arrivals_quiet(struct cl_world *w)
{
    if (sim_loop_hook_quiet(w->loop, on_arrival) != 0 ||
        sim_loop_hook_quiet(w->loop, on_frontend_done) != 0)
        sim_fatal("cl__arrivals_quiet: the loop's quiet set is full");
}

/* The GPU kind of pool i (its own, or hardware.gpu). */
static const char *pool_gpu(const struct cl_scenario *s, int i)
{
    return s->npools > 0 && s->pools[i].gpu != NULL ? s->pools[i].gpu
                                                    : s->hardware.gpu;
}

void *cl__policy_params(const struct pol_entry *e, const struct cl_scenario *s,
                        struct sim_diag *d)
{
    void *params = xcalloc(1, e->params_size ? e->params_size : 1);
    char err[SIM_PARAM_ERRLEN];
    int bad = 0;

    if (pol_params_default(e, params, err, sizeof(err)) != 0)
        sim_fatal("policy %s: bad default: %s", e->name, err);
    for (int i = 0; i < s->policy.nparams; i++) {
        const struct cl_policy_param *pp = &s->policy.params[i];
        const struct sim_param *row = sim_param_find(e->params, pp->key);
        if (row == NULL) {
            char why[600];
            pol_param_unknown(e, pp->key, why, sizeof(why));
            sim_diag_error(d, s->file, pp->pos.line, pp->pos.col,
                           "policy.params.%s: %s", pp->key, why);
            bad = 1;
        } else if (sim_param_parse(row, pp->value, params, err, sizeof(err)) !=
                   0) {
            sim_diag_error(d, s->file, pp->pos.line, pp->pos.col,
                           "policy.params.%s: %s", pp->key, err);
            bad = 1;
        }
    }
    if (bad) {
        free(params);
        return NULL;
    }
    return params;
}

/* Whether the cluster keys make the scenario elastic (as check_plan()
 * sets plan->elastic). */
static int is_elastic(const struct cl_cluster *c)
{
    return c->min_gpus >= 0 && c->max_gpus >= 1 && c->replicas < 1;
}

static int check_policy(const struct cl_scenario *s, struct cl_plan *plan,
                        struct sim_diag *d)
{
    const struct pol_entry *e;
    void *params;

    if (!plan->elastic) {
        if (s->policy.name != NULL)
            sim_diag_error(d, s->file, s->pos.policy_name.line,
                           s->pos.policy_name.col,
                           "policy.name: a scaling policy needs an elastic "
                           "cluster (cluster.min_gpus and max_gpus)");
        return s->policy.name != NULL ? SIM_EINVAL : 0;
    }
    plan->policy = s->policy.name != NULL ? s->policy.name : "target-latency";
    e = s->policy.entry != NULL ? s->policy.entry : pol_find(plan->policy);
    if (e == NULL) {
        char *names = pol_names();
        sim_diag_error(
            d, s->file, s->pos.policy_name.line, s->pos.policy_name.col,
            "policy.name: unknown policy '%s'; valid: %s", plan->policy, names);
        free(names);
        return SIM_EINVAL;
    }
    plan->policy = e->name; /* the catalog's spelling, whatever the case */
    params = cl__policy_params(e, s, d);
    free(params);
    return params != NULL ? 0 : SIM_EINVAL;
}

static int check_plan(const struct cl_scenario *s, struct cl_plan *plan,
                      struct sim_diag *d)
{
    const struct cl_cluster *c = &s->cluster;
    const struct cl_engine *e = cl__engine_for(s->server.kind);
    int rc;

    memset(plan, 0, sizeof(*plan));
    if (e == NULL) {
        char *names = cl__engine_names();
        sim_diag_error(d, s->file, 0, 0,
                       "server.kind: unknown kind %d; valid: %s",
                       s->server.kind, names);
        free(names);
        return SIM_EINVAL;
    }
    rc = e->ops->plan(s, plan, d);
    if (rc != 0)
        return rc;
    plan->elastic = is_elastic(c);
    if (plan->elastic && plan->disaggregated && c->min_gpus == 0) {
        /* Each group keeps a replica (its min_replicas, default 1): one
         * activator for two groups is not modelled. */
        sim_diag_error(d, s->file, s->pos.cluster_min_gpus.line,
                       s->pos.cluster_min_gpus.col,
                       "cluster.min_gpus: 0 (scale to zero) is not "
                       "simulated with deploy.disaggregation; give 1 or "
                       "more");
        return SIM_EINVAL;
    }
    if (plan->disaggregated) {
        /* Each group within its bounds (static: its replicas); the
         * cluster's max_gpus caps the groups' defaults. */
        plan->min_replicas = plan->max_replicas = plan->initial_replicas = 0;
        for (int k = 0; k < CL_PD_GROUPS; k++) {
            struct cl_plan_group *gr = &plan->groups[k];
            const struct cl_pd_layout *l =
                k == CL_PD_PREFILL ? &s->deploy.disaggregation.prefill
                                   : &s->deploy.disaggregation.decode;
            gr->min_replicas = gr->max_replicas = gr->replicas;
            if (plan->elastic) {
                gr->min_replicas = l->min_replicas > 0 ? l->min_replicas : 1;
                gr->max_replicas = l->max_replicas > 0
                                       ? l->max_replicas
                                       : c->max_gpus / gr->gpus_per_replica;
                if (gr->max_replicas < gr->min_replicas ||
                    gr->replicas > gr->max_replicas) {
                    sim_diag_error(d, s->file, s->pos.cluster_min_gpus.line,
                                   s->pos.cluster_min_gpus.col,
                                   "deploy.disaggregation: the %s group's %d "
                                   "replica(s) of %d gpus do not fit "
                                   "cluster.max_gpus %d",
                                   cl_pd_group_name(k),
                                   gr->replicas > gr->min_replicas
                                       ? gr->replicas
                                       : gr->min_replicas,
                                   gr->gpus_per_replica, c->max_gpus);
                    return SIM_EINFEASIBLE;
                }
            }
            plan->min_replicas += gr->min_replicas;
            plan->max_replicas += gr->max_replicas;
            plan->initial_replicas += gr->replicas;
        }
        plan->replicas = plan->initial_replicas;
    } else if (plan->elastic) {
        int tp = plan->gpus_per_replica;
        /* A mixed cluster counts GPUs across pools of different replica
         * sizes: its bounds need not be whole replicas of the first. */
        if (!plan->mixed &&
            ((c->min_gpus > 0 && c->min_gpus < tp) || c->min_gpus % tp != 0)) {
            sim_diag_error(d, s->file, s->pos.cluster_min_gpus.line,
                           s->pos.cluster_min_gpus.col,
                           "cluster.min_gpus: %d is not a whole number of "
                           "replicas of %d gpus (tp=%d)",
                           c->min_gpus, tp, plan->tp);
            return SIM_EINFEASIBLE;
        }
        plan->min_replicas = c->min_gpus / tp;
        plan->max_replicas = c->max_gpus / tp;
        plan->initial_replicas =
            c->initial_gpus >= 0 ? c->initial_gpus / tp : plan->min_replicas;
        if (plan->initial_replicas < plan->min_replicas)
            plan->initial_replicas = plan->min_replicas;
        if (plan->initial_replicas > plan->max_replicas)
            plan->initial_replicas = plan->max_replicas;
        plan->replicas = plan->initial_replicas;
    } else {
        plan->replicas = c->replicas >= 1 ? c->replicas : 1;
        plan->min_replicas = plan->max_replicas = plan->replicas;
        plan->initial_replicas = plan->replicas;
    }
    if (c->drain == CL_DRAIN_MIGRATE && s->server.kind != CL_SRV_LLM) {
        sim_diag_error(d, s->file, 0, 0,
                       "cluster.drain: migrate moves requests with their KV "
                       "cache and needs an llm server; use finish");
        return SIM_EINVAL;
    }
    return 0;
}

/* The plan, then the policy: the policy's name and parameters are checked
 * even when the plan failed, so that their errors come in the same round
 * as the model's, the GPUs' and the layout's. */
static int check_all(const struct cl_scenario *s, struct cl_plan *plan,
                     struct sim_diag *d)
{
    int rc = check_plan(s, plan, d), prc;

    plan->elastic = is_elastic(&s->cluster);
    prc = check_policy(s, plan, d);
    return rc != 0 ? rc : prc;
}

void cl_scenario_check_names(const struct cl_scenario *s, int policy,
                             struct sim_diag *d)
{
    struct cl_plan plan = {0};

    if (s->server.kind == CL_SRV_LLM)
        cl__llm_check_names(s, d);
    plan.elastic = is_elastic(&s->cluster);
    if (policy)
        (void)check_policy(s, &plan, d);
}

int cl_scenario_check(const struct cl_scenario *s, struct cl_plan *plan,
                      struct sim_diag *d)
{
    struct cl_plan p;
    int rc = check_all(s, &p, d);
    if (rc == 0 && plan != NULL)
        *plan = p;
    return rc;
}

/* Counts the requests of a trace ahead of the run: it sets the warm-up
 * boundary and the progress total, and validates every row before the
 * simulation starts. Streams the file; no memory grows. */
static int count_trace(const struct cl_scenario *s, const char *base_dir,
                       uint64_t *n, struct sim_diag *d)
{
    struct sim_loop *tmp = sim_loop_new(s->seed);
    struct wl_source *src = wl_source_new(&s->workload, base_dir, tmp, d);
    struct wl_request rq;
    int rc = SIM_EIO;

    *n = 0;
    if (src != NULL) {
        while ((rc = wl_source_next(src, &rq, d)) == 0)
            (*n)++;
        if (rc == SIM_EEOF)
            rc = 0;
    }
    wl_source_free(src);
    sim_loop_free(tmp);
    return rc;
}

/* Builds the pools: the scenario's list, or one implicit pool "default"
 * of hardware.gpu holding the whole cluster (max_gpus, or the static
 * replicas) with a fixed 120 s provisioning delay (the BLIS demo's node
 * provisioning mean, docs/sources.md §8.1). */
static int pools_init(struct cl_world *w, const struct cl_plan *plan,
                      struct sim_diag *d)
{
    const struct cl_scenario *s = w->scn;
    int n = s->npools > 0 ? s->npools : 1;

    w->pools = xcalloc((size_t)n, sizeof(*w->pools));
    w->npools = n;
    for (int i = 0; i < n; i++) {
        struct cl_pool_rt *p = &w->pools[i];
        struct cl_dist prov = {CL_DIST_FIXED, NAN, NAN, NAN, 120.0, NAN, NAN};
        int64_t cap;

        if (s->npools > 0) {
            const struct cl_pool *cp = &s->pools[i];
            p->name = cp->name;
            p->gpus = cp->capacity_gpus;
            p->borrowable = cp->borrowable;
            p->preemptible = cp->preemptible;
            p->reserved = cp->reserved;
            p->priority = cp->priority;
            p->grace_ns = cp->grace_ns;
            prov = cp->provision;
        } else if (plan->disaggregated && plan->elastic) {
            p->name = "default";
            p->gpus = s->cluster.max_gpus;
        } else if (plan->disaggregated) {
            p->name = "default";
            for (int k = 0; k < CL_PD_GROUPS; k++)
                p->gpus +=
                    plan->groups[k].replicas * plan->groups[k].gpus_per_replica;
        } else {
            p->name = "default";
            p->gpus = plan->max_replicas * plan->gpus_per_replica;
        }
        p->gpu = pool_gpu(s, i);
        p->gpr = plan->gpus_per_replica;
        p->speed = 1.0;
        sim_tavg_init(&p->iv_gpus, 0, 0.0);
        if (wl_dist_init(&p->provision, &prov, "pools.provision", d) != 0)
            return SIM_EINVAL;
        p->provision_mean_s = isnan(prov.mean) ? prov.value : prov.mean;
        /* The plan's price and no KV cache, unless the engine builds a
         * replica model for the pool; the pool's own price wins. */
        p->price = plan->price_usd_per_gpu_hour;
        for (int k = 0; k < CL_ROLE_COUNT; k++)
            p->lay[k].kv_tokens = NAN;
        if (w->engine->ops->pool_init != NULL) {
            int rc = w->engine->ops->pool_init(w, i, plan, d);
            if (rc != 0)
                return rc;
        }
        /* A request must fit the replicas of every role it passes. */
        cap = p->lay[CL_ROLE_BOTH].kv_cap_tokens;
        if (w->pd) {
            cap = p->lay[CL_ROLE_PREFILL].kv_cap_tokens;
            if (p->lay[CL_ROLE_DECODE].kv_cap_tokens < cap)
                cap = p->lay[CL_ROLE_DECODE].kv_cap_tokens;
        }
        if (cap > w->kv_cap_max)
            w->kv_cap_max = cap;
        if (i == 0 || cap < w->kv_cap_min)
            w->kv_cap_min = cap;
        if (s->npools > 0 && !isnan(s->pools[i].price_usd_per_gpu_hour))
            p->price = s->pools[i].price_usd_per_gpu_hour;
        else if (s->npools > 0 && s->pools[i].preemptible)
            p->price *= 1.0 - s->pools[i].spot_discount;
    }
    /* A mixed cluster: each pool's replica against the first pool's. */
    for (int i = 0; w->mixed && i < n; i++)
        if (w->pools[0].speed_tokps > 0 && w->pools[i].speed_tokps > 0)
            w->pools[i].speed =
                w->pools[i].speed_tokps / w->pools[0].speed_tokps;
    return 0;
}

/* GPUs held by replicas serving or starting (not draining). */
static int live_gpus(const struct cl_world *w)
{
    int n = 0;
    for (int i = 0; i < w->nreps; i++) {
        const struct cl_replica *rep = w->reps[i];
        if (rep->state == CL_R_SERVING || rep->state == CL_R_PROVISIONING ||
            rep->state == CL_R_LOADING)
            n += rep->gpus;
    }
    return n;
}

/* A mixed cluster's warm replicas at t = 0: n replicas of the first
 * pool's worth of capacity (within half of one), each from the preferred
 * pool with room for its own replica and within cluster.max_gpus. */
static void initial_mixed(struct cl_world *w, int n)
{
    double cap = 0;
    int max_gpus = w->scn->cluster.max_gpus;

    while (cap + 0.5 < (double)n) {
        int best = -1;
        for (int p = 0; p < w->npools; p++) {
            const struct cl_pool_rt *rt = &w->pools[p];
            if (rt->gpus - rt->gpus_live < rt->gpr ||
                (max_gpus > 0 && live_gpus(w) + rt->gpr > max_gpus))
                continue;
            if (best < 0 || rt->borrowable < w->pools[best].borrowable ||
                (rt->borrowable == w->pools[best].borrowable &&
                 (rt->priority < w->pools[best].priority ||
                  (rt->priority == w->pools[best].priority &&
                   rt->price < w->pools[best].price))))
                best = p;
        }
        if (best < 0)
            break;
        cl__replica_request(w, best, 1, -1);
        cap += w->pools[best].speed;
    }
}

/* Places the replicas that are warm at t = 0, preferring owned pools. */
static void initial_replicas(struct cl_world *w, int n)
{
    if (w->mixed) {
        initial_mixed(w, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        int best = -1;
        for (int p = 0; p < w->npools; p++) {
            const struct cl_pool_rt *rt = &w->pools[p];
            if (rt->gpus - rt->gpus_live <
                w->role_gpus[cl__replica_next_role(w)])
                continue;
            if (best < 0 || rt->borrowable < w->pools[best].borrowable ||
                (rt->borrowable == w->pools[best].borrowable &&
                 (rt->priority < w->pools[best].priority ||
                  (rt->priority == w->pools[best].priority &&
                   rt->price < w->pools[best].price))))
                best = p;
        }
        if (best < 0)
            break;
        cl__replica_request(w, best, 1, -1);
    }
}

static void add_notes(const struct cl_world *w, const struct cl_plan *p,
                      struct cl_results *res)
{
    const struct cl_scenario *s = w->scn;
    const struct cl_cluster *c = &s->cluster;
    char *n;

    if (p->elastic && s->policy.name == NULL) {
        n = xasprintf("policy: %s (the default for a min_gpus/max_gpus "
                      "cluster); %d to %d replicas of %d gpus",
                      p->policy, p->min_replicas, p->max_replicas,
                      p->gpus_per_replica);
        cl_results_note(res, n);
        free(n);
    }
    if (w->engine->ops->notes != NULL)
        w->engine->ops->notes(s, res);
    if (c->rdma_interface != NULL) {
        n = xasprintf("rdma_interface %s is used by calibration and ignored "
                      "by the simulator",
                      c->rdma_interface);
        cl_results_note(res, n);
        free(n);
    }
    if (p->tp_chosen) {
        n = xasprintf("deploy.tp not set: using tp=%d", p->tp);
        cl_results_note(res, n);
        free(n);
    }
    for (int k = 0; p->disaggregated && k < CL_PD_GROUPS; k++) {
        if (!p->groups[k].tp_chosen)
            continue;
        n = xasprintf("deploy.disaggregation.%s.tp not set: using tp=%d",
                      cl_pd_group_name(k), p->groups[k].tp);
        cl_results_note(res, n);
        free(n);
    }
}

/* Under deploy.disaggregation: one row per group, its planned replicas
 * and layout and the GPU-hours its replicas held. */
static void fill_groups(const struct cl_world *w, struct cl_results *out)
{
    if (!w->pd)
        return;
    out->groups = xcalloc(CL_PD_GROUPS, sizeof(*out->groups));
    out->ngroups = CL_PD_GROUPS;
    for (int k = 0; k < CL_PD_GROUPS; k++) {
        const struct perf_replica *pf =
            &cl__layout_of(w, 0, CL_ROLE_PREFILL + k)->perf;
        struct cl_group_result *g = &out->groups[k];
        g->name = xstrdup(cl_pd_group_name(k));
        g->replicas = w->role_replicas[CL_ROLE_PREFILL + k];
        g->replicas_min = g->replicas_max = g->replicas;
        if (w->elastic && w->role_seen_max[CL_ROLE_PREFILL + k] > 0) {
            g->replicas_min = w->role_seen_min[CL_ROLE_PREFILL + k];
            g->replicas_max = w->role_seen_max[CL_ROLE_PREFILL + k];
        }
        g->gpus_per_replica = w->role_gpus[CL_ROLE_PREFILL + k];
        g->gpus = g->replicas * g->gpus_per_replica;
        g->tp = pf->tp;
        g->ep = pf->ep;
        g->dp = pf->dp;
        g->gpu_hours = w->role_gpu_s[CL_ROLE_PREFILL + k] / 3600.0;
    }
}

/* What taking GPUs back cost (reclaim.c, replica.c). */
static void revoke_results(const struct cl_world *w, struct cl_results *out)
{
    const struct cl_revoke_cost *c = &w->revoke[CL_REVOKE_RECLAIM];
    const struct cl_revoke_cost *i = &w->revoke[CL_REVOKE_INTERRUPTION];

    out->reclaims = c->events;
    out->reclaim_replicas = c->replicas;
    out->reclaim_gpus = c->gpus;
    out->reclaim_handed_back = c->handed_back;
    out->reclaim_requests_restarted = c->restarted;
    out->reclaim_kv_tokens_lost = c->kv_tokens_lost;
    out->reclaim_late_gpus = c->late_gpus;
    out->interruptions = i->events;
    out->interruption_gpus = i->gpus;
    out->interruption_handed_back = i->handed_back;
    out->interruption_requests_restarted = i->restarted;
    out->interruption_kv_tokens_lost = i->kv_tokens_lost;
    out->interruption_late_gpus = i->late_gpus;
}

static void fill_pools(struct cl_world *w, struct cl_results *out, double end_s)
{
    out->pools = xcalloc((size_t)w->npools, sizeof(*out->pools));
    out->npools = w->npools;
    for (int i = 0; i < w->npools; i++) {
        const struct cl_pool_rt *p = &w->pools[i];
        struct cl_pool_result *pr = &out->pools[i];
        pr->name = xstrdup(p->name);
        pr->gpu = xstrdup(p->gpu != NULL ? p->gpu : "");
        pr->capacity_gpus = p->gpus;
        pr->borrowable = p->borrowable;
        pr->reserved = p->reserved;
        pr->price_usd_per_gpu_hour = p->price;
        pr->replicas_started = p->started;
        for (int st = 0; st < CL_GS_COUNT; st++) {
            pr->gpu_hours_by_state[st] = p->gpu_s[st] / 3600.0;
            pr->gpu_hours_used += pr->gpu_hours_by_state[st];
            out->gpu_hours_by_state[st] += pr->gpu_hours_by_state[st];
        }
        pr->gpu_hours_paid =
            p->reserved ? (double)p->gpus * end_s / 3600.0 : pr->gpu_hours_used;
        pr->cost_usd = pr->gpu_hours_paid * p->price;
        out->gpu_hours += pr->gpu_hours_paid;
        out->cost_usd += pr->cost_usd;
        if (p->borrowable)
            out->borrowed_gpu_hours += pr->gpu_hours_used;
    }
}

int cl__world_open(struct cl_world *w, const struct cl_scenario *s,
                   const struct cl_run_opts *opts, struct cl_results *out,
                   struct sim_diag *d)
{
    struct cl_plan plan;
    const struct cl_workload *wl = &s->workload;
    int rc;

    rc = check_all(s, &plan, d);
    if (rc == 0 && w->external && !plan.elastic) {
        sim_diag_error(d, s->file, s->pos.cluster_min_gpus.line,
                       s->pos.cluster_min_gpus.col,
                       "cluster: an externally scaled run needs an elastic "
                       "cluster (cluster.min_gpus and max_gpus)");
        rc = SIM_EINVAL;
    }
    w->scn = s;
    if (rc == 0) {
        w->engine = cl__engine_for(s->server.kind);
        rc = w->engine->ops->world_init(w, d);
    }
    if (rc != 0)
        return rc;
    out->scenario_name = xstrdup(s->name ? s->name : "");
    out->seed = s->seed;

    if (wl->kind != CL_WL_SYNTHETIC ||
        (wl->synthetic.sessions.enabled && wl->synthetic.requests <= 0)) {
        /* Traces and the benchmark clients (inference_perf, vllm_bench)
         * are counted by reading them; sessions over a duration too: how
         * many turns fit is known only by generating them (same seed, same
         * streams). */
        rc = count_trace(s, opts->base_dir, &w->expected, d);
        if (rc != 0)
            return rc;
    } else if (wl->synthetic.requests > 0) {
        w->expected = (uint64_t)wl->synthetic.requests;
    } else {
        w->expected = (uint64_t)llround(wl->synthetic.arrival.rate_per_s *
                                        sim_ns_to_s(wl->synthetic.duration_ns));
    }
    w->warmup =
        (uint64_t)floor((double)w->expected * s->metrics.warmup_fraction);

    w->opts = opts;
    w->diag = d;
    w->res = out;
    w->gpus_per_replica = plan.gpus_per_replica;
    w->mixed = plan.mixed;
    w->role_gpus[CL_ROLE_BOTH] = plan.gpus_per_replica;
    w->pd = plan.disaggregated;
    w->force_role = -1;
    for (int k = 0; w->pd && k < CL_PD_GROUPS; k++) {
        w->role_replicas[CL_ROLE_PREFILL + k] = plan.groups[k].replicas;
        w->role_gpus[CL_ROLE_PREFILL + k] = plan.groups[k].gpus_per_replica;
        w->role_min[CL_ROLE_PREFILL + k] = plan.groups[k].min_replicas;
        w->role_max[CL_ROLE_PREFILL + k] = plan.groups[k].max_replicas;
        w->role_seen_min[CL_ROLE_PREFILL + k] = INT32_MAX;
    }
    w->elastic = plan.elastic;
    w->min_replicas = plan.min_replicas;
    w->max_replicas = plan.max_replicas;
    w->replicas_min_seen = INT32_MAX;
    if (plan.elastic)
        w->policy =
            s->policy.entry != NULL ? s->policy.entry : pol_find(plan.policy);
    rc = pools_init(w, &plan, d);
    if (rc != 0)
        return rc;
    if (w->mixed && w->elastic) {
        /* The most capacity max_gpus buys, in the first pool's replicas:
         * all of it in the pool fastest per GPU (an upper bound; the
         * orchestrator keeps to max_gpus itself). */
        double best = 0;
        for (int i = 0; i < w->npools; i++)
            if (w->pools[i].speed / w->pools[i].gpr > best)
                best = w->pools[i].speed / w->pools[i].gpr;
        w->max_replicas = (int)ceil(best * s->cluster.max_gpus - 1e-9);
        if (w->max_replicas < w->min_replicas)
            w->max_replicas = w->min_replicas;
    }
    resolve_frontend(w);
    w->loop = sim_loop_new(s->seed);
    w->src = wl_source_new(wl, opts->base_dir, w->loop, d);
    if (w->src == NULL)
        return SIM_EIO;
    w->progress_every = w->expected > 100 ? w->expected / 100 : 1;
    metric_init(&w->ttft, s->metrics.batches);
    metric_init(&w->tpot, s->metrics.batches);
    metric_init(&w->e2e, s->metrics.batches);
    metric_init(&w->queue_ms, s->metrics.batches);
    sim_hist_init(&w->itl);
    classes_init(w);
    sim_tavg_init(&w->waiting, 0, 0.0);
    sim_tavg_init(&w->running, 0, 0.0);
    sim_tavg_init(&w->replicas_up, 0, 0.0);
    sim_tavg_init(&w->iv_waiting, 0, 0.0);
    sim_tavg_init(&w->iv_running, 0, 0.0);
    sim_tavg_init(&w->iv_replicas, 0, 0.0);
    sim_tavg_init(&w->iv_gpus, 0, 0.0);
    rc = cl__orch_init(w, d);
    if (rc != 0)
        return rc;
    add_notes(w, &plan, out);

    initial_replicas(w, plan.initial_replicas);
    /* Sizes seen count from the cluster as it stands at t = 0. */
    w->replicas_min_seen = w->replicas_max_seen = w->n_serving;
    sim_event_init(&w->arrival_ev, on_arrival, w);
    sim_event_init(&w->interval_ev, on_interval, w);
    cl__client_open(w);
    read_next(w);
    sim_loop_after(w->loop, &w->interval_ev, s->metrics.interval_ns);
    cl__orch_start(w);
    return 0;
}

int cl__world_close(struct cl_world *w, struct cl_results *out)
{
    const struct cl_scenario *s = w->scn;
    int64_t end_ns;
    int rc = w->failed;

    /* The run ends with the last request; the clock may have ticked on to
     * the next interval boundary, which is not part of it. */
    end_ns = w->last_event_ns;
    close_interval(w, end_ns, 1);
    cl__replicas_close(w, end_ns);

    out->requests_arrived = w->arrived;
    out->requests_completed = w->completed;
    out->requests_dropped = w->dropped;
    out->requests_timed_out = w->timed_out;
    out->requests_retried = w->retried;
    classes_results(w, out);
    out->input_tokens = w->input_tokens;
    out->output_tokens = w->output_tokens;
    out->sim_time_s = sim_ns_to_s(end_ns);
    if (end_ns > 0) {
        out->throughput_tokens_per_s =
            (double)w->output_tokens / out->sim_time_s;
        out->requests_per_s = (double)w->completed / out->sim_time_s;
        out->arrival_rate_per_s = (double)w->arrived / out->sim_time_s;
    }
    metric_result(&w->ttft, &out->ttft_ms);
    metric_result(&w->tpot, &out->tpot_ms);
    metric_result(&w->e2e, &out->e2e_ms);
    metric_result(&w->queue_ms, &out->queue_ms);
    itl_result(w, &out->itl_ms);
    cl__stages_results(w, out);
    out->gpus_per_replica = w->gpus_per_replica;
    out->price_usd_per_gpu_hour = w->pools[0].price;
    out->replicas_min =
        w->replicas_min_seen == INT32_MAX ? 0 : w->replicas_min_seen;
    out->replicas_max = w->replicas_max_seen;
    out->replicas_mean =
        end_ns > 0 ? sim_tavg_mean(&w->replicas_up, end_ns) : w->n_serving;
    fill_pools(w, out, out->sim_time_s);
    fill_groups(w, out);
    out->slo_attainment = NAN;
    if ((s->slo.ttft_ns >= 0 || s->slo.tpot_ns >= 0 || s->slo.e2e_ns >= 0) &&
        w->measured > 0)
        out->slo_attainment = (double)w->slo_met / (double)w->measured;
    out->queue_len_mean = end_ns > 0 ? sim_tavg_mean(&w->waiting, end_ns) : 0;
    /* Ratios only one engine has read NAN (not measured) unless it fills
     * them; its counters stay 0. */
    out->utilization = NAN;
    out->prefix_hit_rate = NAN;
    out->pd_transfer_ms_mean = NAN;
    w->engine->ops->results(w, end_ns, out);
    out->scale_events = w->scale_events;
    out->cold_starts = w->cold_starts;
    out->failures = w->failures;
    revoke_results(w, out);
    out->recovery_s_mean =
        w->recoveries ? w->recovery_s_sum / (double)w->recoveries : NAN;
    out->cold_start_waits = w->cold_waits;
    out->cold_start_wait_s_mean =
        w->cold_waits > w->cold_pending
            ? w->cold_wait_s_sum / (double)(w->cold_waits - w->cold_pending)
            : NAN;
    out->calibration = xstrdup(w->scn->calib != NULL && w->scn->calib->file
                                   ? w->scn->calib->file
                                   : "built-in defaults");
    out->calibration_sha256 = w->scn->calib != NULL && w->scn->calib->sha256[0]
                                  ? xstrdup(w->scn->calib->sha256)
                                  : NULL;
    out->policy = !w->elastic   ? NULL
                  : w->external ? xstrdup("external")
                                : xstrdup(w->policy->name);
    out->sim_events = sim_loop_events(w->loop) - w->ticks;
    if (w->policy_holds > 0) {
        char *n = xasprintf("the policy was held %llu times: its metrics "
                            "window was empty",
                            (unsigned long long)w->policy_holds);
        cl_results_note(out, n);
        free(n);
    }
    if (out->replica_series_dropped > 0) {
        char *n = xasprintf("%llu per-replica series rows past the cap of "
                            "%zu dropped; use a longer metrics.interval",
                            (unsigned long long)out->replica_series_dropped,
                            CL_REPLICA_SERIES_MAX);
        cl_results_note(out, n);
        free(n);
    }
    if (out->requests_rows_dropped > 0) {
        char *n = xasprintf("%llu per-request rows past the cap of %zu "
                            "dropped from the requests table; dsec run "
                            "--requests streams every row",
                            (unsigned long long)out->requests_rows_dropped,
                            CL_REQUESTS_MAX);
        cl_results_note(out, n);
        free(n);
    }
    if (w->dropped_too_long > 0) {
        char *n = xasprintf("%llu requests dropped: prompt plus output "
                            "exceeds server.max_model_len %lld (vLLM "
                            "returns an error)",
                            (unsigned long long)w->dropped_too_long,
                            (long long)w->max_model_len);
        cl_results_note(out, n);
        free(n);
    }
    if (w->dropped > w->dropped_too_long) {
        char *n =
            xasprintf("%llu requests dropped: prompt plus output "
                      "exceeds one replica's kv cache",
                      (unsigned long long)(w->dropped - w->dropped_too_long));
        cl_results_note(out, n);
        free(n);
    }
    return rc;
}

void cl__world_free(struct cl_world *w)
{
    cl__orch_fini(w);
    cl__route_fini(w);
    cl__rseries_fini(w);
    cl__client_fini(w);
    cl__replicas_free(w);
    if (w->engine != NULL)
        w->engine->ops->world_fini(w);
    free(w->classes);
    for (int i = 0; i < w->nstages; i++)
        free(w->stages[i]);
    free(w->stages);
    while (w->queue.head != NULL)
        cl__req_free(w, cl__fifo_pop(&w->queue));
    /* Every request ever allocated, free or not: a session closed before
     * the run ended still has requests in its replicas. */
    for (size_t i = 0; i < w->nreqs_all; i++) {
        free(w->reqs_all[i]->hashes); /* NULL once freed to the list */
        free(w->reqs_all[i]);
    }
    free(w->reqs_all);
    free(w->pools);
    wl_source_free(w->src);
    sim_loop_free(w->loop);
    free(w);
}
