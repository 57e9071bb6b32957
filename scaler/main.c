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
#include "scaler/step.h"
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
          "                         actuation failed, or the metrics source\n"
          "                         or the API server could not be reached)\n"
          "  -l, --log-format FMT   text (logfmt, the default) or json\n"
          "  -h, --help             this help\n"
          "  -V, --version          the version\n"
          "\n"
          "Exit status: 0 stopped by SIGTERM/SIGINT or after --once, 1 bad\n"
          "configuration, 2 usage error, 3 runtime error.\n",
          fp);
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
    struct scl_loop x;
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
        int erc = scl_evaluate(&x, clock_s(CLOCK_MONOTONIC) - t0,
                               clock_s(CLOCK_REALTIME));
        double now;
        if (once) {
            rc = erc != 0 ? 3 : 0; /* SCL_EVAL_UNREACHED too */
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
