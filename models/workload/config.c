/* The rows of the scenario's `workload:` section (see config.h), in the
 * order `dsec help scenario` prints them; enum choices are alphabetical,
 * the order messages list them in. After the walk, wl_workload_check()
 * checks the rules that span several keys (exactly one of synthetic and
 * trace, the keys a distribution uses, the order of the rate steps). */
#include "models/workload/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "base/yaml-rows.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define GT SIM_PF_MIN_EXCL
#define REQ SIM_PF_REQUIRED

/* Offsets inside the unnamed structs of struct cl_workload. */
#define SYN(f)                                                                 \
    (offsetof(struct cl_workload, synthetic.f) -                               \
     offsetof(struct cl_workload, synthetic))
#define TRC(f)                                                                 \
    (offsetof(struct cl_workload, trace.f) -                                   \
     offsetof(struct cl_workload, trace))

static const struct sim_param_choice length_dists[] = {
    {"fixed", CL_DIST_FIXED},
    {"lognormal", CL_DIST_LOGNORMAL},
    {"uniform", CL_DIST_UNIFORM},
    {NULL, 0},
};

static const struct sim_param_choice processes[] = {
    {"deterministic", CL_ARR_DETERMINISTIC},
    {"gamma", CL_ARR_GAMMA},
    {"poisson", CL_ARR_POISSON},
    {NULL, 0},
};

static const struct sim_param_choice trace_formats[] = {
    {"azure", CL_TRACE_AZURE},
    {"burstgpt", CL_TRACE_BURSTGPT},
    {"mooncake", CL_TRACE_MOONCAKE},
    {"servegen", CL_TRACE_SERVEGEN},
    {NULL, 0},
};

static const struct sim_param length_dist_rows[] = {
    {"dist", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "length distribution: fixed (value), uniform (min, max), lognormal "
     "(mean, sd)",
     offsetof(struct cl_dist, kind), length_dists, NULL},
    {"value", SIM_PT_DOUBLE, SIM_U_TOKENS, 1, NOMAX, 0, NULL,
     "fixed: every request has this many tokens",
     offsetof(struct cl_dist, value), NULL, NULL},
    {"min", SIM_PT_DOUBLE, SIM_U_TOKENS, 1, NOMAX, 0, NULL,
     "uniform: smallest length (integers in [min, max])",
     offsetof(struct cl_dist, min), NULL, NULL},
    {"max", SIM_PT_DOUBLE, SIM_U_TOKENS, 1, NOMAX, 0, NULL,
     "uniform: largest length, >= min; lognormal: optional cap, longer "
     "draws are cut to it (as an API's max_tokens)",
     offsetof(struct cl_dist, max), NULL, NULL},
    {"mean", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, NOMAX, GT, NULL,
     "lognormal: mean of the length itself (not of its logarithm)",
     offsetof(struct cl_dist, mean), NULL, NULL},
    {"sd", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, NOMAX, GT, NULL,
     "lognormal: standard deviation of the length itself",
     offsetof(struct cl_dist, sd), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define SES(f) offsetof(struct cl_sessions, f)

static const struct sim_param sessions_rows[] = {
    {"turns", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "turns per session, a length distribution (default fixed 4)", SES(turns),
     NULL, length_dist_rows},
    {"think_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "30s",
     "mean of the exponential time from one turn's arrival to the next's "
     "(open loop: it does not wait for the answer)",
     SES(think_time_ns), NULL, NULL},
    {"system_prompt_tokens", SIM_PT_INT64, SIM_U_TOKENS, 0, NOMAX, 0, "0",
     "tokens of a system prompt every session starts with (shared by all)",
     SES(system_prompt_tokens), NULL, NULL},
    {"block_tokens", SIM_PT_INT, SIM_U_TOKENS, 1, NOMAX, 0, "16",
     "tokens per emitted prefix-block hash (Mooncake uses 512)",
     SES(block_tokens), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

#define PROF(f) offsetof(struct cl_rate_profile, f)

SIM_PARAM_COUNT_AFTER(struct cl_rate_profile, steps, nsteps);
SIM_PARAM_COUNT_AFTER(struct cl_workload, priority_classes, npriority_classes);

static const struct sim_param prio_class_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "class name, as the summary reports it",
     offsetof(struct cl_prio_class, name), NULL, NULL},
    {"share", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT | REQ, NULL,
     "relative share of the arrivals (shares are normalised to sum 1)",
     offsetof(struct cl_prio_class, share), NULL, NULL},
    {"priority", SIM_PT_INT, SIM_U_NONE, NOMIN, NOMAX, 0, "0",
     "lower is served first by server.scheduling: priority (vLLM)",
     offsetof(struct cl_prio_class, priority), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_prio_class),
};

static const struct sim_param diurnal_rows[] = {
    {"period", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, "24h",
     "length of one cycle (a compressed day, e.g. 2h, replays a daily "
     "pattern faster)",
     PROF(period_ns), NULL, NULL},
    {"amplitude", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, SIM_PF_MAX_EXCL | REQ,
     NULL,
     "relative swing a: the rate multiplier is 1 + a cos(2 pi (t - "
     "peak_at) / period), so the peak is (1 + a) and the trough (1 - a) "
     "times rate_per_s",
     PROF(amplitude), NULL, NULL},
    {"peak_at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "14h",
     "time of the peak within the cycle, from the start of the run",
     PROF(peak_at_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param step_rows[] = {
    {"at", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, REQ, NULL,
     "when the change starts; steps must be sorted by at, strictly",
     offsetof(struct cl_rate_step, at_ns), NULL, NULL},
    {"multiplier", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1e6, GT | REQ, NULL,
     "rate multiplier reached (the rate becomes multiplier x rate_per_s)",
     offsetof(struct cl_rate_step, multiplier), NULL, NULL},
    {"ramp", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "time over which the multiplier moves linearly from its current value "
     "to the new one; 0 is a jump",
     offsetof(struct cl_rate_step, ramp_ns), NULL, NULL},
    SIM_PARAM_END_LIST(struct cl_rate_step),
};

static const struct sim_param arrival_rows[] = {
    {"process", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "poisson",
     "inter-arrival process: poisson (exponential gaps), deterministic "
     "(equal gaps), gamma (gaps with coefficient of variation cv)",
     offsetof(struct cl_arrival, process), processes, NULL},
    {"rate_per_s", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e6, GT | REQ, NULL,
     "mean arrival rate", offsetof(struct cl_arrival, rate_per_s), NULL, NULL},
    {"cv", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT, NULL,
     "gamma only (and required there): coefficient of variation of the gaps; "
     "1 is poisson, > 1 bursty",
     offsetof(struct cl_arrival, cv), NULL, NULL},
    {"diurnal", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "a daily cycle of the rate (at most one of diurnal, steps); any process "
     "is time-rescaled to follow it",
     offsetof(struct cl_arrival, profile), NULL, diurnal_rows},
    {.key = "steps",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "changes of the rate multiplier over time, e.g. a flash crowd "
             "(at most one of diurnal, steps); the multiplier starts at 1",
     .offset = offsetof(struct cl_arrival, profile.steps),
     .sub = step_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param synthetic_rows[] = {
    {"arrival", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "when requests arrive", SYN(arrival), NULL, arrival_rows},
    {"requests", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "stop after this many requests (give exactly one of requests, duration)",
     SYN(requests), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "stop arrivals after this much simulated time (exactly one of requests, "
     "duration)",
     SYN(duration_ns), NULL, NULL},
    {"prompt_tokens", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "prompt length distribution; required by server kind llm, fixed 1 "
     "otherwise",
     SYN(prompt_tokens), NULL, length_dist_rows},
    {"output_tokens", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "output length distribution; required by server kind llm, fixed 1 "
     "otherwise",
     SYN(output_tokens), NULL, length_dist_rows},
    {"sessions", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "multi-turn conversations: arrival is the session rate, "
     "prompt_tokens the new tokens of each turn, output_tokens each "
     "turn's answer; a turn's prompt repeats the whole conversation so "
     "far, so prefixes are reused (docs/workloads.md)",
     SYN(sessions), NULL, sessions_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param trace_rows[] = {
    {"format", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "azure",
     "trace format; azure: CSV TIMESTAMP,ContextTokens,GeneratedTokens; "
     "mooncake: JSONL timestamp (ms), input_length, output_length, hash_ids; "
     "burstgpt: CSV Timestamp,Model,Request tokens,Response tokens,...; "
     "servegen: per-client rate statistics (arrivals generated)",
     TRC(format), trace_formats, NULL},
    {"path", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "trace file (servegen: a folder of chunk-<id>-trace.csv and "
     "chunk-<id>-dataset.json, or one chunk-<id>-trace.csv); a relative path "
     "is relative to the scenario file; dsec run --trace overrides it",
     TRC(path), NULL, NULL},
    {"model", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "burstgpt only: replay only rows whose Model equals this (ChatGPT, "
     "GPT-4; default: all)",
     TRC(model), NULL, NULL},
    {"clients", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "servegen only: client ids separated by commas (\"3, 17\"), or all "
     "(default)",
     TRC(clients), NULL, NULL},
    {"time_scale", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT, "1",
     "multiplies the gaps between arrivals", TRC(time_scale), NULL, NULL},
    {"rate_scale", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, GT, "1",
     "multiplies the arrival rate (divides the gaps)", TRC(rate_scale), NULL,
     NULL},
    {"requests", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "stop after this many rows (default: all)", TRC(requests), NULL, NULL},
    {"duration", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "stop after this much (scaled) trace time (default: all)",
     TRC(duration_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* Most closed-loop users: each is one event and one record. */
#define WL_CLIENT_USERS_MAX 1e6

static const struct sim_param client_rows[] = {
    {"timeout", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, GT, NULL,
     "abandon a request not finished this long after its send (a client "
     "disconnect: the engine aborts it and frees its KV); it counts in "
     "requests_timed_out, not in the latencies (default: none)",
     offsetof(struct cl_client, timeout_ns), NULL, NULL},
    {"max_concurrency", SIM_PT_INT64, SIM_U_NONE, 1, NOMAX, 0, NULL,
     "at most this many requests in flight; a later one waits in the "
     "client, first due first sent, and its arrival (TTFT, E2E) is its "
     "send, as vllm bench serve --max-concurrency (default: unbounded)",
     offsetof(struct cl_client, max_concurrency), NULL, NULL},
    {"users", SIM_PT_INT64, SIM_U_NONE, 1, WL_CLIENT_USERS_MAX, 0, NULL,
     "closed loop: this many users, all sending at t = 0, each sending its "
     "next request when its last has ended and it has thought; the "
     "source gives lengths and prefixes, its arrival times are ignored "
     "(default: open loop)",
     offsetof(struct cl_client, users), NULL, NULL},
    {"think_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, 0, "0s",
     "closed loop (needs users): mean of the exponential time a user "
     "waits between the end of its request and its next send (stream "
     "\"client_think_time\")",
     offsetof(struct cl_client, think_time_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param cl_workload_rows[] = {
    {"synthetic", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "generated traffic (give exactly one of synthetic, trace)",
     offsetof(struct cl_workload, synthetic), NULL, synthetic_rows},
    {"trace", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "replayed traffic (give exactly one of synthetic, trace)",
     offsetof(struct cl_workload, trace), NULL, trace_rows},
    {"client", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "how a benchmark client sends the requests: time-out, concurrency "
     "cap, closed loop (docs/workloads.md, \"The client\")",
     offsetof(struct cl_workload, client), NULL, client_rows},
    {"prefix_hit_rate", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, NULL,
     "fraction of each prompt (whole blocks, rounded down) found in the "
     "prefix cache when the source has no block hashes; needs "
     "server.prefix_caching",
     offsetof(struct cl_workload, prefix_hit_rate), NULL, NULL},
    {.key = "priority_classes",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = 64,
     .help = "request classes {name, share, priority}: each arrival joins "
             "one at random in proportion to the shares (stream "
             "\"priority_class\"); TTFT and SLO are reported per class",
     .offset = offsetof(struct cl_workload, priority_classes),
     .sub = prio_class_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- the section's cross-field checks ---- */

/* The length distribution at path: the keys its kind uses and min <= max
 * for uniform. Leaves cv NAN (no length kind has one). */
static void check_length_dist(struct sim_yaml *y, const char *path,
                              struct cl_dist *dist)
{
    static const char *const keys[] = {"value", "min", "max",
                                       "mean",  "sd",  NULL};
    char what[64];
    unsigned used, optional = 0;

    dist->cv = NAN;
    if (sim_yaml_seenf(y, "%s.dist", path) == NULL || dist->kind < 0)
        return; /* already reported */
    switch (dist->kind) {
    case CL_DIST_FIXED:
        used = 1u << 0;
        break;
    case CL_DIST_UNIFORM:
        used = 1u << 1 | 1u << 2;
        break;
    default:
        used = 1u << 3 | 1u << 4;
        optional = 1u << 2; /* max: a cap, as an API's max_tokens */
        break;
    }
    snprintf(what, sizeof(what), "dist %s",
             sim_yaml_choice_name(length_dist_rows, "dist", dist->kind));
    sim_yaml_check_keys(y, path, keys, used, optional, what);
    if (dist->kind == CL_DIST_UNIFORM && dist->min > dist->max) {
        const struct sim_yaml_seen *s = sim_yaml_seenf(y, "%s.min", path);
        sim_yaml_error(y, s->vline, s->vcol, "%s.min: %g greater than max %g",
                       path, dist->min, dist->max);
    }
}

/* At most one of diurnal and steps; steps strictly sorted by at. Sets the
 * profile's kind from what was given. */
static void check_profile(struct sim_yaml *y, struct cl_rate_profile *pr)
{
    static const char arr[] = "workload.synthetic.arrival";
    const struct sim_yaml_seen *di = sim_yaml_seenf(y, "%s.diurnal", arr);
    const struct sim_yaml_seen *st = sim_yaml_seenf(y, "%s.steps", arr);

    pr->kind = CL_PROF_NONE;
    if (di != NULL && st != NULL) {
        const struct sim_yaml_seen *later =
            (st->kline > di->kline ||
             (st->kline == di->kline && st->kcol > di->kcol))
                ? st
                : di;
        sim_yaml_error(y, later->kline, later->kcol,
                       "%s: give at most one of 'diurnal' or 'steps'",
                       later->path);
        return;
    }
    if (di != NULL)
        pr->kind = CL_PROF_DIURNAL;
    if (st == NULL)
        return;
    pr->kind = CL_PROF_STEPS;
    for (int i = 1; i < pr->nsteps; i++) {
        const struct sim_yaml_seen *at =
            sim_yaml_seenf(y, "%s.steps[%d].at", arr, i);
        const struct sim_yaml_seen *prev =
            sim_yaml_seenf(y, "%s.steps[%d].at", arr, i - 1);
        if (at == NULL || prev == NULL)
            continue; /* a missing at, already reported */
        if (pr->steps[i].at_ns <= pr->steps[i - 1].at_ns)
            sim_yaml_error(y, at->vline, at->vcol,
                           "%s.steps[%d].at: %gs not after steps[%d].at %gs; "
                           "steps must be sorted by at",
                           arr, i, (double)pr->steps[i].at_ns * 1e-9, i - 1,
                           (double)pr->steps[i - 1].at_ns * 1e-9);
    }
}

/* think_time needs users; users and max_concurrency exclude each other. */
static void check_client(struct sim_yaml *y)
{
    const struct sim_yaml_seen *users, *think, *conc;

    users = sim_yaml_seen(y, "workload.client.users");
    think = sim_yaml_seen(y, "workload.client.think_time");
    conc = sim_yaml_seen(y, "workload.client.max_concurrency");
    if (think != NULL && users == NULL)
        sim_yaml_error(y, think->kline, think->kcol,
                       "workload.client.think_time: needs users (a think "
                       "time is a closed loop's; an open loop sends at the "
                       "source's arrival times)");
    if (users != NULL && conc != NULL)
        sim_yaml_error(y, users->kline, users->kcol,
                       "workload.client.users: not with max_concurrency (a "
                       "closed loop of N users already has at most N "
                       "requests in flight)");
}

void wl_workload_check(struct sim_yaml *y, struct cl_workload *w, int llm)
{
    const struct sim_yaml_seen *syn, *trc;
    int line, col;

    if (sim_yaml_seen(y, "workload") == NULL)
        return; /* reported as a missing key */
    check_client(y);
    syn = sim_yaml_seen(y, "workload.synthetic");
    trc = sim_yaml_seen(y, "workload.trace");
    sim_yaml_exactly_one(y, "workload", "synthetic", "trace");
    w->kind = trc != NULL && syn == NULL ? CL_WL_TRACE : CL_WL_SYNTHETIC;
    w->synthetic.prompt_tokens.cv = NAN;
    w->synthetic.output_tokens.cv = NAN;
    if (syn == NULL)
        return;

    sim_yaml_exactly_one(y, "workload.synthetic", "requests", "duration");
    if (sim_yaml_seen(y, "workload.synthetic.arrival") != NULL) {
        struct cl_arrival *a = &w->synthetic.arrival;
        const char *proc =
            sim_yaml_choice_name(arrival_rows, "process", a->process);
        char what[64];
        snprintf(what, sizeof(what), "process %s", proc);
        if (a->process == CL_ARR_GAMMA) {
            if (sim_yaml_seen(y, "workload.synthetic.arrival.cv") == NULL) {
                sim_yaml_section_pos(y, "workload.synthetic.arrival", &line,
                                     &col);
                sim_yaml_error(y, line, col,
                               "workload.synthetic.arrival: missing key 'cv' "
                               "(required by process gamma)");
            }
        } else {
            sim_yaml_not_used(y, "workload.synthetic.arrival", "cv", what);
            a->cv = NAN;
        }
    }

    check_profile(y, &w->synthetic.arrival.profile);

    static const char *const lens[] = {"prompt_tokens", "output_tokens"};
    struct cl_dist *dists[] = {&w->synthetic.prompt_tokens,
                               &w->synthetic.output_tokens};
    for (int i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof(path), "workload.synthetic.%s", lens[i]);
        if (sim_yaml_seen(y, path) != NULL) {
            check_length_dist(y, path, dists[i]);
        } else if (llm) {
            sim_yaml_error(y, syn->kline, syn->kcol,
                           "workload.synthetic: missing key '%s' (required "
                           "by server kind llm)",
                           lens[i]);
        } else {
            dists[i]->kind = CL_DIST_FIXED;
            dists[i]->value = 1;
        }
    }
    if (sim_yaml_seen(y, "workload.synthetic.sessions") != NULL) {
        struct cl_sessions *ss = &w->synthetic.sessions;
        ss->enabled = 1;
        if (sim_yaml_seen(y, "workload.synthetic.sessions.turns") != NULL) {
            check_length_dist(y, "workload.synthetic.sessions.turns",
                              &ss->turns);
        } else {
            ss->turns.kind = CL_DIST_FIXED;
            ss->turns.value = 4;
        }
    }
}
