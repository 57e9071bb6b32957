/* dsec-scaler --config FILE [--dry-run] [--once] [--log-format text|json]:
 * the live scaler. Every interval_s it reads the serving metrics
 * (source.h), builds the policy snapshot with the simulator's code, lets
 * the configured policy and the common guard rails decide
 * (decide.h), and sets the size through the actuator (actuator.h).
 * SIGTERM and SIGINT stop it cleanly between steps. docs/scaler.md. */
#include "config.h"

#include <curl/curl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scaler/actuator.h"
#include "scaler/conf.h"
#include "scaler/decide.h"
#include "scaler/log.h"
#include "scaler/serve.h"
#include "scaler/source.h"
#include "base/diag.h"
#include "base/errors.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *fp)
{
    fputs("usage: dsec-scaler --config FILE [--dry-run] [--once]\n"
          "                   [--log-format text|json]\n"
          "\n"
          "The live scaler: runs a dsec scaling policy (the simulator's code)\n"
          "against a real cluster's metrics and sets its size.\n"
          "\n"
          "  -c, --config FILE      the YAML configuration (docs/scaler.md)\n"
          "  -n, --dry-run          decide and log, never change the cluster\n"
          "                         (kubernetes: reads the scale, no PATCH;\n"
          "                         exec: the command is not run)\n"
          "  -1, --once             one evaluation, then exit (exit 3 if the\n"
          "                         actuation failed)\n"
          "  -l, --log-format FMT   text (logfmt, the default) or json\n"
          "  -h, --help             this help\n"
          "  -V, --version          the version\n"
          "\n"
          "Exit status: 0 stopped by SIGTERM/SIGINT or after --once, 1 bad\n"
          "configuration, 2 usage error, 3 runtime error.\n",
          fp);
}

struct ctx {
    const struct scl_config *c;
    struct scl_log log;
    struct scl_stats stats;
    struct scl_source *src;
    struct scl_actuator *act;
    struct scl_decider dec;
    int dry_run;
};

static void on_metrics_error(void *arg, const char *msg)
{
    struct ctx *x = arg;

    scl_log(&x->log, "warn", "metrics request failed", "error", msg,
            (const char *)NULL);
    pthread_mutex_lock(&x->stats.mu);
    x->stats.errors[SCL_ERR_METRICS]++;
    pthread_mutex_unlock(&x->stats.mu);
}

static void fmt_num(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "NaN");
    else
        snprintf(buf, n, "%.6g", v);
}

/* One evaluation. Returns 0, or SIM_EIO when the actuation failed. */
static int evaluate(struct ctx *x, double t0)
{
    const struct scl_config *c = x->c;
    struct pol_snapshot s;
    struct pol_decision d;
    struct scl_view v;
    enum pol_guard_reason why;
    int spec = -1, status = -1, cur, rc = 0, prc = 0, action, hold = 0;
    char err[512];
    char b_ready[16], b_pend[16], b_cur[16], b_des[16], b_pol[16];
    char b_arr[32], b_itl[32], b_itlm[32], b_ttft[32], b_run[32], b_wait[32];
    char b_kv[32];

    scl_source_collect(x->src, clock_s(CLOCK_MONOTONIC) - t0,
                       clock_s(CLOCK_REALTIME), on_metrics_error, x);
    if (scl_actuator_read(x->act, &spec, &status, err, sizeof(err)) != 0) {
        scl_log(&x->log, "error", "cannot read the current size", "error", err,
                (const char *)NULL);
        pthread_mutex_lock(&x->stats.mu);
        x->stats.errors[SCL_ERR_ACTUATOR]++;
        pthread_mutex_unlock(&x->stats.mu);
        hold = SCL_HOLDX_ACTUATOR;
    }
    scl_source_snapshot(x->src, spec, &s, &v);
    why = scl_decide(&x->dec, &s, &d, &prc);
    cur = s.ready + s.pending;
    if (hold != 0)
        d.desired = cur; /* the size is unknown: never act blind */
    action = d.desired > cur   ? SCL_ACTION_UP
             : d.desired < cur ? SCL_ACTION_DOWN
                               : SCL_ACTION_HOLD;
    if (hold == 0 && !v.valid)
        hold = v.hold;
    else if (hold == 0 && why == POL_GUARD_POLICY_HOLD)
        hold = SCL_HOLDX_POLICY;
    else if (hold == 0 && why == POL_GUARD_COOLDOWN)
        hold = SCL_HOLDX_COOLDOWN;

    snprintf(b_ready, sizeof(b_ready), "%d", s.ready);
    snprintf(b_pend, sizeof(b_pend), "%d", s.pending);
    snprintf(b_cur, sizeof(b_cur), "%d", spec);
    snprintf(b_des, sizeof(b_des), "%d", d.desired);
    snprintf(b_pol, sizeof(b_pol), "%d", prc);
    fmt_num(b_arr, sizeof(b_arr), s.arrival_rate_per_s);
    fmt_num(b_itl, sizeof(b_itl), s.itl_p99_s);
    fmt_num(b_itlm, sizeof(b_itlm), s.itl_mean_s);
    fmt_num(b_ttft, sizeof(b_ttft), s.ttft_p99_s);
    fmt_num(b_run, sizeof(b_run), s.num_running);
    fmt_num(b_wait, sizeof(b_wait), s.num_waiting);
    fmt_num(b_kv, sizeof(b_kv), s.kv_usage_mean);
    if (!v.valid) {
        char msg[300];
        snprintf(msg, sizeof(msg), "holding: %s", v.msg);
        scl_log(&x->log, "warn", msg, "reason", scl_hold_name(v.hold), "ready",
                b_ready, "current", b_cur, (const char *)NULL);
    }
    scl_log(&x->log, "info", "decision", "policy", c->policy->name, "action",
            action == SCL_ACTION_UP     ? "up"
            : action == SCL_ACTION_DOWN ? "down"
                                        : "hold",
            "desired", b_des, "current", b_cur, "ready", b_ready, "pending",
            b_pend, "guard", pol_guard_reason_name(why), "valid",
            v.valid ? "1" : "0", "arrival_rate", b_arr, "itl_p99_s", b_itl,
            "itl_mean_s", b_itlm, "ttft_p99_s", b_ttft, "num_running", b_run,
            "num_waiting", b_wait, "kv_usage", b_kv, (const char *)NULL);

    if (action != SCL_ACTION_HOLD) {
        struct scl_act_result r;
        if (x->dry_run || c->actuator == SCL_ACT_LOG) {
            scl_log(&x->log, "info", "dry run: not scaling", "actuator",
                    scl_actuator_name(x->act), "replicas", b_des,
                    (const char *)NULL);
        }
        rc = scl_actuator_apply(x->act, d.desired, &r, err, sizeof(err));
        pthread_mutex_lock(&x->stats.mu);
        x->stats.errors[SCL_ERR_ACTUATOR] += (unsigned long)r.errors;
        pthread_mutex_unlock(&x->stats.mu);
        if (rc != 0) {
            char att[16];
            snprintf(att, sizeof(att), "%d", r.attempts);
            scl_log(&x->log, "error", "scaling failed", "replicas", b_des,
                    "attempts", att, "error", err, (const char *)NULL);
        } else if (r.patched) {
            scl_log(&x->log, "info", "scaled", "actuator",
                    scl_actuator_name(x->act), "replicas", b_des,
                    (const char *)NULL);
        }
    }

    pthread_mutex_lock(&x->stats.mu);
    x->stats.desired = d.desired;
    x->stats.current = spec;
    x->stats.ready = s.ready;
    x->stats.pending = s.pending;
    x->stats.decisions[action]++;
    if (hold != 0)
        x->stats.holds[hold]++;
    if (rc == 0 && hold != SCL_HOLDX_ACTUATOR)
        x->stats.last_success_s = clock_s(CLOCK_REALTIME);
    x->stats.last_eval_mono_s = clock_s(CLOCK_MONOTONIC);
    x->stats.metrics_valid = v.valid;
    x->stats.metrics_age_s = v.age_s;
    x->stats.arrival_rate_per_s = s.arrival_rate_per_s;
    x->stats.num_running = s.num_running;
    x->stats.num_waiting = s.num_waiting;
    x->stats.kv_usage_mean = s.kv_usage_mean;
    x->stats.ttft_p99_s = s.ttft_p99_s;
    x->stats.itl_p99_s = s.itl_p99_s;
    x->stats.itl_mean_s = s.itl_mean_s;
    x->stats.output_tokens_per_s = s.output_tokens_per_s;
    pthread_mutex_unlock(&x->stats.mu);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},
        {"dry-run", no_argument, NULL, 'n'},
        {"once", no_argument, NULL, '1'},
        {"log-format", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL;
    int once = 0, opt, rc = 0;
    struct scl_config cfg;
    struct sim_diag diag;
    struct ctx x;
    struct scl_server *srv = NULL;
    struct sigaction sa;
    double t0, next;
    char err[512];

    memset(&x, 0, sizeof(x));
    x.log.fp = stderr;
    x.log.format = SCL_LOG_TEXT;
    while ((opt = getopt_long(argc, argv, "c:n1l:hV", opts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            path = optarg;
            break;
        case 'n':
            x.dry_run = 1;
            break;
        case '1':
            once = 1;
            break;
        case 'l':
            if (strcmp(optarg, "text") == 0) {
                x.log.format = SCL_LOG_TEXT;
            } else if (strcmp(optarg, "json") == 0) {
                x.log.format = SCL_LOG_JSON;
            } else {
                fprintf(stderr,
                        "dsec-scaler: --log-format: expected text or json, "
                        "got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("dsec-scaler %s (policy API %d)\n", PACKAGE_VERSION,
                   POL_API_VERSION);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dsec-scaler: unexpected argument '%s'\n",
                argv[optind]);
        usage(stderr);
        return 2;
    }
    if (path == NULL) {
        fprintf(stderr, "dsec-scaler: --config FILE is required\n");
        usage(stderr);
        return 2;
    }
    sim_diag_init(&diag);
    if (scl_config_load(path, &cfg, &diag) != 0) {
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        return 1;
    }
    sim_diag_fini(&diag);
    x.c = &cfg;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "dsec-scaler: curl_global_init failed\n");
        scl_config_fini(&cfg);
        return 3;
    }
    scl_stats_init(&x.stats, cfg.interval_s);
    if (scl_decider_init(&x.dec, &cfg) != 0) {
        fprintf(stderr, "dsec-scaler: cannot create policy %s\n",
                cfg.policy->name);
        rc = 3;
        goto out;
    }
    x.src = scl_source_new(&cfg);
    x.act = scl_actuator_new(&cfg, x.dry_run, &stop_flag);
    if (cfg.listen[0] != '\0') {
        srv = scl_server_start(cfg.listen, &x.stats, err, sizeof(err));
        if (srv == NULL) {
            fprintf(stderr, "%s: error: %s\n", cfg.file, err);
            rc = 1;
            goto out;
        }
    }
    {
        char iv[32], win[32], mn[16], mx[16];
        snprintf(iv, sizeof(iv), "%g", cfg.interval_s);
        snprintf(win, sizeof(win), "%g", cfg.window_s);
        snprintf(mn, sizeof(mn), "%d", cfg.min_replicas);
        snprintf(mx, sizeof(mx), "%d", cfg.max_replicas);
        scl_log(&x.log, "info", "starting", "version", PACKAGE_VERSION,
                "policy", cfg.policy->name, "source",
                cfg.source == SCL_SRC_PROMETHEUS ? cfg.prometheus_url
                                                 : "scrape",
                "actuator", scl_actuator_name(x.act), "interval_s", iv,
                "window_s", win, "min", mn, "max", mx, "listen",
                cfg.listen[0] ? cfg.listen : "off", (const char *)NULL);
    }
    if (cfg.actuator == SCL_ACT_KUBERNETES &&
        strncmp(cfg.api_server, "http://", 7) == 0)
        scl_log(&x.log, "warn",
                "api_server uses plain http: no TLS, the token travels in "
                "clear text (use only for local tests)",
                (const char *)NULL);
    if (cfg.insecure_skip_tls_verify)
        scl_log(&x.log, "warn", "TLS verification is off", (const char *)NULL);

    t0 = clock_s(CLOCK_MONOTONIC);
    next = 0;
    while (!stop_flag) {
        int erc = evaluate(&x, t0);
        double now;
        if (once) {
            rc = erc != 0 ? 3 : 0;
            break;
        }
        next += cfg.interval_s;
        now = clock_s(CLOCK_MONOTONIC) - t0;
        if (next < now) {
            scl_logf(&x.log, "warn",
                     "evaluation overran the interval by %.1f s; skipping "
                     "to the next tick",
                     now - next);
            next = now + cfg.interval_s - fmod(now - next, cfg.interval_s);
        }
        scl_sleep(next - now, &stop_flag);
    }
    if (stop_flag)
        scl_log(&x.log, "info", "stopping on signal", (const char *)NULL);
out:
    scl_server_stop(srv);
    scl_actuator_free(x.act);
    scl_source_free(x.src);
    scl_decider_fini(&x.dec);
    scl_stats_fini(&x.stats);
    curl_global_cleanup();
    scl_config_fini(&cfg);
    return rc;
}
