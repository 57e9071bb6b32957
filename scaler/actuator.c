/* Actuators; see actuator.h. */
#include "scaler/actuator.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scaler/http.h"
#include "base/errors.h"
#include "base/xalloc.h"

struct scl_actuator {
    const struct scl_config *c;
    int dry_run;
    const volatile sig_atomic_t *stop;
    struct scl_http *http;
    char *url;    /* the scale subresource */
    int last;     /* last size applied (exec, log), -1 before any */
    uint64_t rng; /* xorshift64* state for the jitter */
};

/* Fixed seed: the jitter only spreads retries; reproducible runs help
 * tests and post-mortems more than unpredictability would. */
#define SCL_JITTER_SEED 0x9e3779b97f4a7c15ULL

static double uniform(struct scl_actuator *a)
{
    /* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
     * xorshift generators, scrambled", 2016). */
    a->rng ^= a->rng >> 12;
    a->rng ^= a->rng << 25;
    a->rng ^= a->rng >> 27;
    return (double)((a->rng * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

int scl_sleep(double seconds, const volatile sig_atomic_t *stop)
{
    struct timespec t0, now;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        double left;
        struct timespec ts;

        if (stop != NULL && *stop)
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        left = seconds - ((double)(now.tv_sec - t0.tv_sec) +
                          (double)(now.tv_nsec - t0.tv_nsec) * 1e-9);
        if (left <= 0)
            return 0;
        if (left > 0.1)
            left = 0.1;
        ts.tv_sec = (time_t)left;
        ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
    }
}

/* Appends s to url percent-escaped as one path segment (RFC 3986:
 * unreserved bytes stay, every other byte is %XX). The configuration
 * already refuses names that are not DNS-1123; this keeps the path one
 * segment whatever reaches it. Caller frees the result. */
static char *path_segment(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *o = xmalloc(3 * n + 1), *p = o;

    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
            (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '~' ||
            (*c == '.' && strcmp(s, ".") != 0 && strcmp(s, "..") != 0)) {
            *p++ = (char)*c;
        } else {
            *p++ = '%';
            *p++ = hex[*c >> 4];
            *p++ = hex[*c & 15];
        }
    }
    *p = '\0';
    return o;
}

struct scl_actuator *scl_actuator_new(const struct scl_config *c, int dry_run,
                                      const volatile sig_atomic_t *stop)
{
    struct scl_actuator *a = xcalloc(1, sizeof(*a));

    a->c = c;
    a->dry_run = dry_run;
    a->stop = stop;
    a->last = -1;
    a->rng = SCL_JITTER_SEED;
    if (c->actuator == SCL_ACT_KUBERNETES) {
        struct scl_http_opts o = {c->http_timeout_s, c->ca_file,
                                  c->insecure_skip_tls_verify, NULL};
        size_t n = strlen(c->api_server);
        char *ns = path_segment(c->k8s_namespace);
        char *dep = path_segment(c->deployment);
        a->http = scl_http_new(&o);
        a->url =
            xasprintf("%.*s/apis/apps/v1/namespaces/%s/deployments/%s/scale",
                      (int)(n > 0 && c->api_server[n - 1] == '/' ? n - 1 : n),
                      c->api_server, ns, dep);
        free(ns);
        free(dep);
    }
    return a;
}

void scl_actuator_free(struct scl_actuator *a)
{
    if (a == NULL)
        return;
    scl_http_free(a->http);
    free(a->url);
    free(a);
}

const char *scl_actuator_name(const struct scl_actuator *a)
{
    switch (a->c->actuator) {
    case SCL_ACT_KUBERNETES:
        return a->dry_run ? "dry-run:kubernetes" : "kubernetes";
    case SCL_ACT_EXEC:
        return a->dry_run ? "dry-run:exec" : "exec";
    default:
        return "log";
    }
}

/* Reads the token file again before each request: projected
 * service-account tokens rotate. */
static int load_token(struct scl_actuator *a, char *err, size_t errlen)
{
    FILE *fp;
    char buf[16384];
    size_t n;

    if (a->c->token_file == NULL)
        return 0;
    fp = fopen(a->c->token_file, "rb");
    if (fp == NULL) {
        snprintf(err, errlen, "token_file %s: %s", a->c->token_file,
                 strerror(errno));
        return SIM_EIO;
    }
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    while (n > 0 &&
           (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    scl_http_set_bearer(a->http, buf);
    memset(buf, 0, sizeof(buf));
    return 0;
}

/* o.a.b as a replica count: a JSON integer in [0, SCL_REPLICAS_LIMIT],
 * 0 when b is omitted (Kubernetes omits zero values). Returns 0, or -1
 * when o.a is missing or o.a.b is not such an integer (a double, a
 * string, negative, huge: json-c saturates beyond int64, and the limit
 * refuses that too), with what was found in why. */
static int get_replicas_at(json_object *o, const char *a, const char *b,
                           int *out, char *why, size_t whylen)
{
    json_object *x, *y;
    int64_t v;

    if (!json_object_object_get_ex(o, a, &x) ||
        !json_object_is_type(x, json_type_object)) {
        snprintf(why, whylen, "no %s", a);
        return -1;
    }
    if (!json_object_object_get_ex(x, b, &y)) {
        *out = 0; /* omitted zero values */
        return 0;
    }
    if (!json_object_is_type(y, json_type_int)) {
        snprintf(why, whylen, "%s.%s is not an integer: %.40s", a, b,
                 json_object_to_json_string_ext(y, JSON_C_TO_STRING_PLAIN));
        return -1;
    }
    v = json_object_get_int64(y);
    if (v < 0 || v > SCL_REPLICAS_LIMIT) {
        snprintf(why, whylen, "%s.%s %.40s out of range [0, %d]", a, b,
                 json_object_to_json_string_ext(y, JSON_C_TO_STRING_PLAIN),
                 SCL_REPLICAS_LIMIT);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int scl_scale_parse(const char *body, int *spec, int *status, char *why,
                    size_t whylen)
{
    json_object *root = json_tokener_parse(body);
    int rc = 0;

    *status = -1;
    if (root == NULL) {
        snprintf(why, whylen, "not JSON");
        return SIM_EINVAL;
    }
    if (get_replicas_at(root, "spec", "replicas", spec, why, whylen) != 0)
        rc = SIM_EINVAL;
    /* status is the controller's and may lag or be absent; an impossible
     * one says the answer cannot be trusted either. */
    else if (json_object_object_get_ex(root, "status", NULL) &&
             get_replicas_at(root, "status", "replicas", status, why, whylen) !=
                 0)
        rc = SIM_EINVAL;
    json_object_put(root);
    return rc;
}

/* A short, single-line excerpt of an error body for the log. */
static void excerpt(const char *body, char *out, size_t n)
{
    size_t j = 0;

    for (size_t i = 0; body[i] != '\0' && j + 1 < n && i < 200; i++)
        out[j++] = body[i] == '\n' || body[i] == '\r' ? ' ' : body[i];
    out[j] = '\0';
}

static int k8s_get(struct scl_actuator *a, int *spec, int *status,
                   long *http_status, char *err, size_t errlen)
{
    char *body, why[128];
    size_t len;
    int rc;

    if (load_token(a, err, errlen) != 0)
        return SIM_EIO;
    rc = scl_http_request(a->http, "GET", a->url, NULL, NULL, &body, &len,
                          http_status, err, errlen);
    if (rc != 0)
        return rc;
    if (*http_status != 200) {
        char ex[256];
        excerpt(body, ex, sizeof(ex));
        snprintf(err, errlen, "GET %s: HTTP %ld: %s", a->url, *http_status, ex);
        free(body);
        return SIM_EIO;
    }
    rc = scl_scale_parse(body, spec, status, why, sizeof(why));
    free(body);
    if (rc != 0) {
        snprintf(err, errlen, "GET %s: not a usable Scale object: %s", a->url,
                 why);
        return SIM_EINVAL;
    }
    return 0;
}

int scl_actuator_read(struct scl_actuator *a, int *spec, int *status, char *err,
                      size_t errlen)
{
    long hs;

    if (a->c->actuator == SCL_ACT_KUBERNETES)
        return k8s_get(a, spec, status, &hs, err, errlen);
    *spec = a->last;
    *status = -1;
    return 0;
}

/* 5xx, 429 and transport errors (status 0) are worth retrying; other
 * client errors (401, 403, 404, 422) will not heal by themselves. */
static int retryable(long status)
{
    return status == 0 || status == 429 || status >= 500;
}

static int k8s_once(struct scl_actuator *a, int n, struct scl_act_result *r,
                    char *err, size_t errlen)
{
    int spec, status, rc;
    long hs = 0;
    char body[64], *resp;
    size_t len;

    r->attempts++;
    rc = k8s_get(a, &spec, &status, &hs, err, errlen);
    r->last_status = rc == SIM_EINVAL ? 422 : hs; /* an answer: no retry */
    if (rc != 0)
        return rc;
    if (spec == n)
        return 0; /* idempotent: already there */
    if (a->dry_run)
        return 0;
    snprintf(body, sizeof(body), "{\"spec\":{\"replicas\":%d}}", n);
    rc = scl_http_request(a->http, "PATCH", a->url,
                          "application/merge-patch+json", body, &resp, &len,
                          &hs, err, errlen);
    r->last_status = hs;
    if (rc != 0)
        return rc;
    if (hs < 200 || hs >= 300) {
        char ex[256];
        excerpt(resp, ex, sizeof(ex));
        snprintf(err, errlen, "PATCH %s: HTTP %ld: %s", a->url, hs, ex);
        free(resp);
        return SIM_EIO;
    }
    free(resp);
    r->patched = 1;
    return 0;
}

static int exec_once(struct scl_actuator *a, int n, struct scl_act_result *r,
                     char *err, size_t errlen)
{
    const struct scl_config *c = a->c;
    char num[32];
    char **argv;
    pid_t pid;
    int st = 0;
    double waited = 0;

    r->attempts++;
    snprintf(num, sizeof(num), "%d", n);
    argv = xcalloc((size_t)c->ncommand + 1, sizeof(char *));
    for (int i = 0; i < c->ncommand; i++) {
        /* Substitute every {replicas} in the argument. */
        const char *s = c->command[i];
        size_t cap = strlen(s) + 1, len = 0;
        char *o = xmalloc(cap);
        while (*s) {
            if (strncmp(s, "{replicas}", 10) == 0) {
                size_t k = strlen(num);
                cap += k;
                o = xrealloc(o, cap, 1);
                memcpy(o + len, num, k);
                len += k;
                s += 10;
            } else {
                o[len++] = *s++;
            }
        }
        o[len] = '\0';
        argv[i] = o;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        for (int i = 0; i < c->ncommand; i++)
            free(argv[i]);
        free(argv);
        return SIM_EIO;
    }
    if (pid == 0) {
        /* Its own process group, so that a time-out ends everything it
         * started, not only itself. */
        setpgid(0, 0);
        execvp(argv[0], argv);
        fprintf(stderr, "dsec-scaler: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first, no race */
    for (int i = 0; i < c->ncommand; i++)
        free(argv[i]);
    free(argv);
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            return SIM_EIO;
        }
        if (waited >= c->exec_timeout_s) {
            /* The whole group: a shell's children outlive a shell killed
             * alone. SIGKILL follows 1 s later for any that remain, even
             * when the leader itself has exited. */
            kill(-pid, SIGTERM);
            scl_sleep(1, NULL);
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            snprintf(err, errlen, "command %s timed out after %g s",
                     c->command[0], c->exec_timeout_s);
            r->last_status = -1;
            return SIM_EIO;
        }
        scl_sleep(0.01, NULL);
        waited += 0.01;
    }
    if (WIFEXITED(st)) {
        r->last_status = WEXITSTATUS(st);
        if (WEXITSTATUS(st) != 0) {
            snprintf(err, errlen, "command %s exited with status %d",
                     c->command[0], WEXITSTATUS(st));
            return SIM_EIO;
        }
    } else {
        r->last_status = -1;
        snprintf(err, errlen, "command %s killed by signal %d", c->command[0],
                 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        return SIM_EIO;
    }
    r->patched = 1;
    return 0;
}

int scl_actuator_apply(struct scl_actuator *a, int n, struct scl_act_result *r,
                       char *err, size_t errlen)
{
    struct scl_act_result local;
    double delay = a->c->backoff_initial_s;

    if (r == NULL)
        r = &local;
    memset(r, 0, sizeof(*r));
    /* The last line of defence: whatever the inputs said, no size outside
     * the configured bounds is ever sent. */
    if (n < a->c->min_replicas || n > a->c->max_replicas) {
        snprintf(err, errlen,
                 "refusing to set %d replicas: outside [min_replicas %d, "
                 "max_replicas %d]",
                 n, a->c->min_replicas, a->c->max_replicas);
        r->errors = 1;
        return SIM_EINVAL;
    }
    if (a->c->actuator == SCL_ACT_LOG ||
        (a->dry_run && a->c->actuator == SCL_ACT_EXEC)) {
        a->last = n;
        return 0;
    }
    for (;;) {
        int rc = a->c->actuator == SCL_ACT_KUBERNETES
                     ? k8s_once(a, n, r, err, errlen)
                     : exec_once(a, n, r, err, errlen);
        double wait;
        if (rc == 0) {
            a->last = n;
            return 0;
        }
        r->errors++;
        if (r->attempts >= a->c->max_attempts ||
            (a->c->actuator == SCL_ACT_KUBERNETES &&
             !retryable(r->last_status)))
            return SIM_EIO;
        /* Exponential backoff with +-20 % jitter, capped. */
        wait = fmin(delay, a->c->backoff_max_s) * (0.8 + 0.4 * uniform(a));
        if (scl_sleep(wait, a->stop))
            return SIM_EIO;
        delay *= 2;
    }
}
