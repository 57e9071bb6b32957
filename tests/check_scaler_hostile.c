/* Check suite for dsec-scaler against hostile inputs: a fake Prometheus,
 * fake scrape targets and a fake Kubernetes scale API (one
 * libmicrohttpd server on loopback, started in the test) answer with
 * huge, negative, NaN and non-integer replica counts, sample times in the
 * future or long past, targets down, counter resets and 3000 series.
 * Each round runs scl_evaluate(), main()'s own evaluation, and checks the
 * safety properties: every PATCH lies in [min, max]; a step from a size
 * inside the bounds is within the guard's step limits; stale, missing,
 * impossible or partial metrics and an unusable scale hold without
 * acting. The rounds are drawn from a fixed seed (SEED), so a failure
 * replays. */
#include <check.h>
#include <curl/curl.h>
#include <math.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/step.h"
#include "base/diag.h"
#include "base/errors.h"
#include "base/xalloc.h"

#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

#define SEED 0x5ca1ab1edeadbeefULL
#define ROUNDS 400
#define SCALE_PATH "/apis/apps/v1/namespaces/ns/deployments/llm/scale"
#define MIN_R 2
#define MAX_R 10
#define STEP_UP 3
#define STEP_DOWN 2
#define NTARGETS 4
#define WALL0 1.7e9

/* What the fake serves this round, and what it was sent. */
struct fake {
    pthread_mutex_t mu;
    struct MHD_Daemon *d;
    int port;
    char scale[256]; /* the body of GET .../scale */
    char ts[64];     /* scrape_time's value */
    int nseries;     /* replicas in each Prometheus answer */
    char value[64];  /* running of each series (and counters) */
    char kv[64];     /* kv usage of each series */
    int up_zero;     /* targets_up: this many at 0 */
    char act[64];    /* the activation query's value, "" = no series */
    char page[NTARGETS][512];
    int down[NTARGETS]; /* target answers 500 */
    long patch[64];     /* replicas of each PATCH */
    int npatch;
};

static struct fake fk;

struct upload {
    char buf[256];
    size_t n;
};

static mhd_result reply(struct MHD_Connection *c, unsigned code,
                        const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    mhd_result ret = MHD_queue_response(c, code, r);

    MHD_destroy_response(r);
    return ret;
}

/* An instant vector of n series replica=r<i>, each of value v. */
static char *vector(int n, const char *v)
{
    size_t cap = 128 + (size_t)n * 96;
    char *o = xmalloc(cap);
    size_t len = (size_t)snprintf(o, cap,
                                  "{\"status\":\"success\",\"data\":{"
                                  "\"resultType\":\"vector\","
                                  "\"result\":[");

    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(o + len, cap - len,
                                "%s{\"metric\":{\"replica\":\"r%d\"},"
                                "\"value\":[1,\"%s\"]}",
                                i ? "," : "", i, v);
    snprintf(o + len, cap - len, "]}}");
    return o;
}

static mhd_result on_req(void *cls, struct MHD_Connection *c, const char *url,
                         const char *method, const char *version,
                         const char *data, size_t *size, void **ctx)
{
    struct upload *u = *ctx;
    mhd_result ret;
    int t;

    (void)cls;
    (void)version;
    if (u == NULL) {
        *ctx = xcalloc(1, sizeof(struct upload));
        return MHD_YES;
    }
    if (*size > 0) {
        size_t k = *size < sizeof(u->buf) - 1 - u->n
                       ? *size
                       : sizeof(u->buf) - 1 - u->n;
        memcpy(u->buf + u->n, data, k);
        u->n += k;
        *size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&fk.mu);
    if (strcmp(url, SCALE_PATH) == 0 && strcmp(method, "GET") == 0) {
        ret = reply(c, 200, fk.scale);
    } else if (strcmp(url, SCALE_PATH) == 0 && strcmp(method, "PATCH") == 0) {
        long n = -1;
        u->buf[u->n] = '\0';
        ck_assert_int_eq(sscanf(u->buf, "{\"spec\":{\"replicas\":%ld}}", &n),
                         1);
        if (fk.npatch < 64)
            fk.patch[fk.npatch++] = n;
        ret = reply(c, 200, "{}");
    } else if (strcmp(url, "/api/v1/query") == 0) {
        const char *q =
            MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "query");
        char *body;
        if (q != NULL && strcmp(q, "gateway_queue_length") == 0) {
            body = vector(fk.act[0] ? 1 : 0, fk.act);
        } else if (q != NULL && strstr(q, "timestamp(") != NULL) {
            body = vector(1, fk.ts);
        } else if (q != NULL && strncmp(q, "up", 2) == 0) {
            body = vector(NTARGETS, "1");
            for (int i = 0; i < fk.up_zero; i++) {
                /* Turns the first up_zero values into 0. */
                char *p = strstr(body, "\"1\"]");
                if (p != NULL)
                    p[1] = '0';
            }
        } else if (q != NULL && strstr(q, "kv_cache") != NULL) {
            body = vector(fk.nseries, fk.kv);
        } else {
            body = vector(fk.nseries, fk.value);
        }
        ret = reply(c, 200, body);
        free(body);
    } else if (sscanf(url, "/metrics/%d", &t) == 1 && t >= 0 && t < NTARGETS) {
        ret = fk.down[t] ? reply(c, 500, "down") : reply(c, 200, fk.page[t]);
    } else {
        ret = reply(c, 404, "not found");
    }
    pthread_mutex_unlock(&fk.mu);
    return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **ctx,
                    enum MHD_RequestTerminationCode tc)
{
    (void)cls;
    (void)c;
    (void)tc;
    free(*ctx);
    *ctx = NULL;
}

static void fake_start(void)
{
    const union MHD_DaemonInfo *di;

    memset(&fk, 0, sizeof(fk));
    pthread_mutex_init(&fk.mu, NULL);
    fk.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                            on_req, NULL, MHD_OPTION_NOTIFY_COMPLETED, on_done,
                            NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(fk.d);
    di = MHD_get_daemon_info(fk.d, MHD_DAEMON_INFO_BIND_PORT);
    fk.port = di->port;
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void fake_stop(void)
{
    MHD_stop_daemon(fk.d);
    pthread_mutex_destroy(&fk.mu);
    curl_global_cleanup();
}

/* xorshift64*: the test's own generator, seeded with SEED. */
static uint64_t rng = SEED;

static unsigned draw(unsigned n)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (unsigned)(((rng * 0x2545f4914f6cdd1dULL) >> 33) % n);
}

static struct scl_config cfg;
static struct scl_loop lp;

/* The configuration (source prometheus or scrape) with min_replicas min,
 * extra_metrics added to the metrics block and extra to the root, and the
 * loop of main(), logging to /dev/null. */
static void loop_start_with(const char *source, int min,
                            const char *extra_metrics, const char *extra)
{
    struct sim_diag d;
    char text[2048];

    snprintf(text, sizeof(text),
             "interval_s: 15\nwindow_s: 30\nstale_after_s: 45\n"
             "min_replicas: %d\nmax_replicas: %d\n"
             "policy: {name: hpa, params: {metric: concurrency, target: 10, "
             "scale_down_stabilization: 0s}, cooldown_up_s: 0, "
             "cooldown_down_s: 0, max_step_up: %d, max_step_down: %d}\n"
             "metrics: {source: %s, prometheus_url: 'http://127.0.0.1:%d', "
             "targets: [http://127.0.0.1:%d/metrics/0, "
             "http://127.0.0.1:%d/metrics/1, http://127.0.0.1:%d/metrics/2, "
             "http://127.0.0.1:%d/metrics/3], timeout_s: 2%s}\n"
             "actuator: {kind: kubernetes, api_server: "
             "'http://127.0.0.1:%d', namespace: ns, deployment: llm, "
             "max_attempts: 1}\nlisten: ''\n%s",
             min, MAX_R, STEP_UP, STEP_DOWN, source, fk.port, fk.port, fk.port,
             fk.port, fk.port, extra_metrics, fk.port, extra);
    sim_diag_init(&d);
    if (scl_config_parse("t.yaml", text, strlen(text), &cfg, &d) != 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(sim_diag_errors(&d), 0);
    sim_diag_fini(&d);
    memset(&lp, 0, sizeof(lp));
    lp.c = &cfg;
    lp.log.fp = fopen("/dev/null", "w");
    lp.log.format = SCL_LOG_TEXT;
    scl_stats_init(&lp.stats, cfg.interval_s);
    ck_assert_int_eq(scl_decider_init(&lp.dec, &cfg), 0);
    lp.src = scl_source_new(&cfg);
    lp.act = scl_actuator_new(&cfg, 0, NULL);
}

static void loop_start(const char *source)
{
    loop_start_with(source, MIN_R, "", "");
}

static void loop_stop(void)
{
    scl_actuator_free(lp.act);
    scl_source_free(lp.src);
    scl_decider_fini(&lp.dec);
    scl_stats_fini(&lp.stats);
    fclose(lp.log.fp);
    scl_config_fini(&cfg);
}

/* One evaluation; returns the PATCHes it sent (n) in out. */
static int round_run(int i, long *out)
{
    int n;

    pthread_mutex_lock(&fk.mu);
    fk.npatch = 0;
    pthread_mutex_unlock(&fk.mu);
    scl_evaluate(&lp, 15.0 * i, WALL0 + 15.0 * i);
    pthread_mutex_lock(&fk.mu);
    n = fk.npatch;
    memcpy(out, fk.patch, sizeof(long) * (size_t)n);
    pthread_mutex_unlock(&fk.mu);
    return n;
}

/* The safety properties of one round. spec is the size the fake reported
 * (-1 when the answer was unusable), held whether the round had to hold. */
static void check_round(int i, int spec, int held, const long *p, int np)
{
    for (int k = 0; k < np; k++) {
        ck_assert_msg(p[k] >= MIN_R && p[k] <= MAX_R,
                      "round %d: PATCH %ld outside [%d, %d]", i, p[k], MIN_R,
                      MAX_R);
        if (spec >= MIN_R && spec <= MAX_R)
            ck_assert_msg(p[k] - spec <= STEP_UP && spec - p[k] <= STEP_DOWN,
                          "round %d: PATCH %ld from %d exceeds the steps", i,
                          p[k], spec);
    }
    if (held)
        ck_assert_msg(np == 0, "round %d: acted (%ld) on a hold", i,
                      np ? p[0] : -1L);
    ck_assert_msg(np <= 1, "round %d: %d PATCHes", i, np);
}

/* Scale answers: a usable size (in or out of the bounds), or hostile. */
static int draw_scale(char *body, size_t n)
{
    static const char *const bad[] = {
        "99999999999", "2147483648", "-3", "3.5",  "\"4\"",  "null",
        "1e3",         "[]",         "{}", "true", "100001",
    };
    unsigned k = draw(4);
    int spec;

    if (k == 0) {
        const char *b = bad[draw(sizeof(bad) / sizeof(bad[0]))];
        snprintf(body, n, "{\"spec\":{\"replicas\":%s}}", b);
        return -1;
    }
    if (k == 1 && draw(2)) {
        snprintf(body, n, draw(2) ? "not json" : "{\"kind\":\"Scale\"}");
        return -1;
    }
    spec = k == 1 ? (int)draw(3 * MAX_R) : MIN_R + (int)draw(MAX_R - MIN_R + 1);
    if (draw(5) == 0) { /* an impossible status: unusable too */
        snprintf(body, n,
                 "{\"spec\":{\"replicas\":%d},\"status\":{\"replicas\":-1}}",
                 spec);
        return -1;
    }
    snprintf(body, n, "{\"spec\":{\"replicas\":%d}}", spec);
    return spec;
}

START_TEST(test_hostile_prometheus_rounds)
{
    long p[64];
    int held_rounds = 0, acted_rounds = 0;

    fake_start();
    loop_start("prometheus");
    for (int i = 0; i < ROUNDS; i++) {
        double wall = WALL0 + 15.0 * i;
        int held = 0, spec, np;
        unsigned m = draw(12);

        pthread_mutex_lock(&fk.mu);
        spec = draw_scale(fk.scale, sizeof(fk.scale));
        held |= spec < 0;
        fk.nseries = 1 + (int)draw(MAX_R);
        snprintf(fk.value, sizeof(fk.value), "%u", draw(80));
        snprintf(fk.kv, sizeof(fk.kv), "0.%u", draw(10));
        snprintf(fk.ts, sizeof(fk.ts), "%.3f", wall - draw(10));
        fk.up_zero = 0;
        switch (m) {
        case 0: /* a gauge or counter that cannot be */
        case 1: {
            static const char *const v[] = {"NaN", "+Inf",  "-Inf",
                                            "-1",  "1e308", "1e7"};
            snprintf(fk.value, sizeof(fk.value), "%s", v[draw(6)]);
            held = 1;
            break;
        }
        case 2: /* KV use beyond 1 */
            snprintf(fk.kv, sizeof(fk.kv), "%s", draw(2) ? "1.5" : "NaN");
            held = 1;
            break;
        case 3: /* a sample time ahead of this clock */
            snprintf(fk.ts, sizeof(fk.ts), "%s",
                     draw(2)   ? "+Inf"
                     : draw(2) ? "NaN"
                               : "9e18");
            if (draw(2))
                snprintf(fk.ts, sizeof(fk.ts), "%.3f", wall + 60 + draw(1000));
            held = 1;
            break;
        case 4: /* stale */
            snprintf(fk.ts, sizeof(fk.ts), "%.3f", wall - 46 - draw(10000));
            held = 1;
            break;
        case 5: /* a target down */
            fk.up_zero = 1 + (int)draw(NTARGETS);
            held = 1;
            break;
        case 6: /* 3000 series */
            fk.nseries = 3000;
            held = 1;
            break;
        default:
            break;
        }
        pthread_mutex_unlock(&fk.mu);
        np = round_run(i, p);
        check_round(i, spec, held, p, np);
        if (held)
            ck_assert_msg(lp.stats.metrics_valid == 0 || spec < 0,
                          "round %d (case %u): metrics taken as valid", i, m);
        held_rounds += held;
        acted_rounds += np > 0;
    }
    /* The draw exercised both sides. */
    ck_assert_int_gt(held_rounds, ROUNDS / 3);
    ck_assert_int_gt(acted_rounds, ROUNDS / 20);
    loop_stop();
    fake_stop();
}
END_TEST

/* One target's page: running and the generated-tokens counter. */
static void page(int t, const char *running, double tokens)
{
    snprintf(fk.page[t], sizeof(fk.page[t]),
             "vllm:num_requests_running %s\n"
             "vllm:num_requests_waiting 0\n"
             "vllm:generation_tokens_total %.17g\n",
             running, tokens);
}

START_TEST(test_hostile_scrape_rounds)
{
    long p[64];
    double tokens[NTARGETS] = {0};
    int held_rounds = 0, acted_rounds = 0;

    fake_start();
    loop_start("scrape");
    for (int i = 0; i < ROUNDS; i++) {
        int held = i == 0, spec, np;
        unsigned m = draw(10);

        pthread_mutex_lock(&fk.mu);
        spec = draw_scale(fk.scale, sizeof(fk.scale));
        held |= spec < 0;
        for (int t = 0; t < NTARGETS; t++) {
            char run[16];
            fk.down[t] = 0;
            tokens[t] += draw(5000);
            snprintf(run, sizeof(run), "%u", draw(60));
            page(t, run, tokens[t]);
        }
        switch (m) {
        case 0: /* a target down: partial */
            fk.down[draw(NTARGETS)] = 1;
            held = 1;
            break;
        case 1: { /* an impossible gauge */
            static const char *const v[] = {"NaN", "+Inf", "-2", "1e308"};
            page((int)draw(NTARGETS), v[draw(4)], 0);
            held = 1;
            break;
        }
        case 2: /* a negative counter */
            page((int)draw(NTARGETS), "3", -1e6);
            held = 1;
            break;
        case 3: { /* a restart: the counter starts again */
            int t = (int)draw(NTARGETS);
            tokens[t] = draw(100);
            page(t, "3", tokens[t]);
            break;
        }
        default:
            break;
        }
        pthread_mutex_unlock(&fk.mu);
        np = round_run(i, p);
        check_round(i, spec, held, p, np);
        /* No negative rate, whatever was reset. */
        ck_assert_msg(!(lp.stats.output_tokens_per_s < 0),
                      "round %d: output rate %g", i,
                      lp.stats.output_tokens_per_s);
        if (held && spec >= 0)
            ck_assert_msg(lp.stats.metrics_valid == 0,
                          "round %d (case %u): metrics taken as valid", i, m);
        held_rounds += held;
        acted_rounds += np > 0;
    }
    ck_assert_int_gt(held_rounds, ROUNDS / 4);
    ck_assert_int_gt(acted_rounds, ROUNDS / 20);
    loop_stop();
    fake_stop();
}
END_TEST

/* Issue #22 item 1: spec.replicas 99999999999 and 10 replicas reporting
 * with spec.replicas 3: no PATCH outside [min, max], the size is the
 * scale's. */
START_TEST(test_size_is_the_scale)
{
    long p[64];
    struct pol_snapshot s;
    struct scl_view v;

    fake_start();
    loop_start("prometheus");
    snprintf(fk.scale, sizeof(fk.scale),
             "{\"spec\":{\"replicas\":99999999999}}");
    fk.nseries = 3;
    snprintf(fk.value, sizeof(fk.value), "50");
    snprintf(fk.kv, sizeof(fk.kv), "0.5");
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0);
    ck_assert_int_eq(round_run(0, p), 0);
    ck_assert_int_eq(lp.stats.holds[SCL_HOLDX_ACTUATOR_INVALID], 1);
    /* 10 report, the Deployment has 3: ready 3, not 10. */
    fk.nseries = 10;
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":3}}");
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 15);
    ck_assert_int_eq(round_run(1, p), 1);
    ck_assert_int_eq(p[0], 3 + STEP_UP);
    scl_source_snapshot(lp.src, 3, &s, &v);
    ck_assert_int_eq(s.ready, 3);
    ck_assert_int_eq(s.pending, 0);
    loop_stop();
    fake_stop();
}
END_TEST

/* Issue #22 item 2: a sample time in the future is a hold of its own
 * round and is never remembered: a later stale round still holds. */
START_TEST(test_future_time_does_not_latch)
{
    long p[64];

    fake_start();
    loop_start("prometheus");
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":4}}");
    fk.nseries = 4;
    snprintf(fk.value, sizeof(fk.value), "50");
    snprintf(fk.kv, sizeof(fk.kv), "0.5");
    snprintf(fk.ts, sizeof(fk.ts), "+Inf");
    ck_assert_int_eq(round_run(0, p), 0);
    ck_assert_int_eq(lp.stats.holds[SCL_HOLD_BAD_TIME], 1);
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 15 + 3600);
    ck_assert_int_eq(round_run(1, p), 0);
    ck_assert_int_eq(lp.stats.holds[SCL_HOLD_BAD_TIME], 2);
    /* Two minutes old now: stale, although a "newer" time was seen. */
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 30 - 120);
    ck_assert_int_eq(round_run(2, p), 0);
    ck_assert_int_eq(lp.stats.holds[SCL_HOLD_STALE], 1);
    /* Fresh again (within the skew bound ahead): it acts. */
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 45 + 2);
    ck_assert_int_eq(round_run(3, p), 1);
    loop_stop();
    fake_stop();
}
END_TEST

/* Issue #22 item 3: half of the scrape targets down is a hold, not a
 * decision on half the data; a restart skips its interval. */
START_TEST(test_scrape_partial_and_reset)
{
    long p[64];
    struct pol_snapshot s;
    struct scl_view v;

    fake_start();
    loop_start("scrape");
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":4}}");
    for (int t = 0; t < NTARGETS; t++)
        page(t, "5", 1000);
    round_run(0, p);
    for (int t = 0; t < NTARGETS; t++)
        page(t, "5", 4000);
    round_run(1, p);
    fk.down[2] = fk.down[3] = 1;
    ck_assert_int_eq(round_run(2, p), 0);
    ck_assert_int_eq(lp.stats.holds[SCL_HOLD_PARTIAL], 1);
    fk.down[2] = fk.down[3] = 0;
    page(0, "5", 10); /* target 0 restarted */
    for (int t = 1; t < NTARGETS; t++)
        page(t, "5", 7000);
    round_run(3, p);
    scl_source_snapshot(lp.src, 4, &s, &v);
    ck_assert_msg(v.valid, "held: %s", v.msg);
    /* Target 0's window is empty (its reset interval is skipped); the
     * others counted 6000 tokens each over the 45 s the ring spans, the
     * round they were down skipped over. */
    ck_assert(!(s.replicas[0].output_tokens_per_s > 0));
    ck_assert_double_eq_tol(s.output_tokens_per_s, 3 * 6000 / 45.0, 1e-9);
    loop_stop();
    fake_stop();
}
END_TEST

/* Scale to zero: from 0 replicas the activation query alone decides (3
 * waiting: PATCH 1, past the cooldowns; 0 or no series: no PATCH and no
 * hold; NaN, negative or huge: a hold); from 1, an idle cluster keeps its
 * replica for scale_to_zero_grace_s, then goes to 0. */
START_TEST(test_scale_to_zero)
{
    static const char *const bad[] = {"NaN", "-1", "1e300", "+Inf"};
    unsigned long holds;
    long p[64];
    int i = 0;

    fake_start();
    loop_start_with("prometheus", 0, ", activation_query: gateway_queue_length",
                    "scale_to_zero_grace_s: 30\n");
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":0}}");
    fk.nseries = 0;
    snprintf(fk.kv, sizeof(fk.kv), "0");
    snprintf(fk.value, sizeof(fk.value), "0");
    /* 0 waiting, then no series at all: stay at 0, no hold. */
    snprintf(fk.act, sizeof(fk.act), "0");
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 15.0 * i);
    ck_assert_int_eq(round_run(i++, p), 0);
    fk.act[0] = '\0';
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 15.0 * i);
    ck_assert_int_eq(round_run(i++, p), 0);
    holds = 0;
    for (int h = 0; h < SCL_HOLDX_N; h++)
        holds += lp.stats.holds[h];
    ck_assert_uint_eq(holds, 0);
    /* Impossible values: a hold each, never a PATCH. */
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        snprintf(fk.act, sizeof(fk.act), "%s", bad[k]);
        ck_assert_int_eq(round_run(i++, p), 0);
        ck_assert_uint_eq(lp.stats.holds[SCL_HOLD_INVALID], k + 1);
    }
    /* 3 waiting with none serving: one replica. */
    snprintf(fk.act, sizeof(fk.act), "3");
    ck_assert_int_eq(round_run(i++, p), 1);
    ck_assert_int_eq(p[0], 1);
    /* One idle replica: kept for the grace (30 s), then 0. */
    snprintf(fk.act, sizeof(fk.act), "0");
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":1}}");
    fk.nseries = 1;
    {
        /* running per round: idle, busy (the idle time starts again),
         * then idle at 0, 15 and 30 s: PATCH 0 only at 30 s. */
        static const char *const run[] = {"0", "1", "0", "0", "0"};
        for (int k = 0; k < 5; k++) {
            snprintf(fk.value, sizeof(fk.value), "%s", run[k]);
            snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 15.0 * i);
            ck_assert_int_eq(round_run(i++, p), k == 4);
            ck_assert_int_eq(lp.stats.desired, k == 4 ? 0 : 1);
        }
        ck_assert_int_eq(p[0], 0);
    }
    loop_stop();
    fake_stop();
}
END_TEST

/* Without min_replicas 0, 0 replicas and a waiting request change
 * nothing: the round holds as before (no replica reports), and an idle
 * replica never goes below min_replicas. */
START_TEST(test_no_zero_without_min_zero)
{
    long p[64];

    fake_start();
    loop_start_with("prometheus", 1, "", "");
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":0}}");
    fk.nseries = 0;
    snprintf(fk.act, sizeof(fk.act), "3");
    snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0);
    ck_assert_int_eq(round_run(0, p), 0);
    /* No replica reports, with a sample time: the hold is "stale". */
    ck_assert_uint_eq(lp.stats.holds[SCL_HOLD_STALE], 1);
    snprintf(fk.scale, sizeof(fk.scale), "{\"spec\":{\"replicas\":1}}");
    fk.nseries = 1;
    snprintf(fk.value, sizeof(fk.value), "0");
    snprintf(fk.kv, sizeof(fk.kv), "0");
    for (int i = 1; i < 6; i++) {
        snprintf(fk.ts, sizeof(fk.ts), "%.3f", WALL0 + 15.0 * i);
        ck_assert_int_eq(round_run(i, p), 0);
    }
    loop_stop();
    fake_stop();
}
END_TEST

static Suite *scaler_hostile_suite(void)
{
    Suite *s = suite_create("scaler_hostile");
    TCase *tc = tcase_create("evaluate");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_size_is_the_scale);
    tcase_add_test(tc, test_future_time_does_not_latch);
    tcase_add_test(tc, test_scrape_partial_and_reset);
    tcase_add_test(tc, test_scale_to_zero);
    tcase_add_test(tc, test_no_zero_without_min_zero);
    tcase_add_test(tc, test_hostile_prometheus_rounds);
    tcase_add_test(tc, test_hostile_scrape_rounds);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scaler_hostile_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
