/*
 * Generates requests from ServeGen per-client statistics (Xiang et al.,
 * "ServeGen: Workload Characterization of Large Language Model Serving in
 * Production", arXiv:2505.09999; dataset alibaba/ServeGen, data/, and its
 * generator servegen/clientpool.py).
 *
 * Input, per client <id> (a folder holds many; all are read, or those of
 * workload.trace.clients):
 *   chunk-<id>-trace.csv    no header; one row per window:
 *       window_start_s,rate_req_per_s,cv,pattern,shape,scale
 *     pattern Gamma or Weibull names the inter-arrival distribution with
 *     its shape and scale (scipy's gamma(a=shape, scale=scale) and
 *     weibull_min(c=shape, scale=scale)); an empty pattern with rate 0 is an
 *     idle window. A window lasts until the next row's start (the last one
 *     600 s, ServeGen's window). cv is read and checked but not used: it is
 *     the CV of the distribution, which shape already fixes.
 *   chunk-<id>-dataset.json keys are block starts in seconds ("0",
 *     "21600", ...); each value is an object whose input_tokens and
 *     output_tokens are strings holding a Python dict literal
 *     "{45: 0.0096, 46: 0.0117, ...}", a PMF from token count to
 *     probability. reason_ratio (the reasoning share of the output) is
 *     ignored: a request here has only a total output length. The literals
 *     are not JSON (their keys are bare numbers), and every published file
 *     holds only digits, '.', 'e', '-', ',', ':', spaces and braces, so they
 *     are read by a small parser of exactly that grammar, {NUMBER: NUMBER,
 *     ...} with an optional trailing comma, not by rewriting them into
 *     JSON. Probabilities are normalised by their sum (the files' sums are
 *     1 +- 1e-15).
 *
 * Arrivals of one client: a renewal process in "operational time" mapped
 * to real time by the piecewise-constant rate, the time rescaling of
 * synthetic.c. Each gap is X / E[X], X drawn from the distribution of the
 * window in force when the gap starts (gsl_ran_gamma(shape, scale), or
 * gsl_ran_weibull(scale, shape) with E[X] = scale * Gamma(1 + 1/shape)), so
 * gaps have mean 1 and the window's CV; the gap is then spent at rate r_w
 * per second through the windows it crosses (idle windows take no
 * operational time). Within a window this is ServeGen's "sample the
 * inter-arrivals, then rescale them to the window's rate"; across windows
 * the process continues instead of restarting, so the expected count over
 * a day is sum(rate_w * length_w) plus O(cv^2) once, not once per window.
 * Arrival times are seconds from the start of the day (window start 0), in
 * double, rounded to the nearest ns.
 *
 * Lengths: input and output tokens are drawn independently from the PMFs
 * of the block holding the arrival (the block with the largest start <= t)
 * with gsl_ran_discrete (Walker's alias method, O(1) per draw). A block
 * whose PMF is empty while one of its windows has a positive rate is an
 * error at load time (never true of the published files).
 *
 * Streams: client <id> draws from "servegen.<id>.arrivals",
 * "servegen.<id>.input_tokens" and "servegen.<id>.output_tokens", so
 * selecting other clients does not change a client's requests. The clients
 * are merged by earliest next arrival (ties to the client listed first,
 * ids ascending): O(clients) per request, which is fine for the 73 of the
 * DeepSeek-R1 set; a heap would make it O(log clients).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <json-c/json.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "sim/time.h"
#include "base/xalloc.h"

/* Bounds on the inputs (growth is bounded). */
#define SG_CLIENTS_MAX 4096
#define SG_WINDOWS_MAX 1048576
#define SG_PMF_MAX 1048576
#define SG_BLOCKS_MAX 4096
#define SG_LAST_WINDOW_S 600.0

enum { PAT_NONE, PAT_GAMMA, PAT_WEIBULL };

struct window {
    double start_s, end_s;
    double rate; /* requests per second, >= 0 */
    int pattern;
    double shape, scale, mean; /* mean = E[X] of the raw distribution */
};

struct pmf {
    gsl_ran_discrete_t *table; /* NULL when empty */
    int64_t *tokens;           /* n values */
    size_t n;
};

struct block {
    double start_s;
    struct pmf in, out;
};

struct client {
    int id;
    struct window *w;
    int nw;
    struct block *b;
    int nb;
    gsl_rng *arr, *in_rng, *out_rng; /* borrowed from the loop */
    int cur;                         /* window of t_s */
    int cur_b;  /* block of the window of the last arrival */
    double t_s; /* last arrival (or start) */
    int done;   /* no more arrivals */
    int64_t next_ns;
};

struct wl__servegen {
    struct client *c;
    int nc;
};

static void pmf_fini(struct pmf *p)
{
    if (p->table != NULL)
        gsl_ran_discrete_free(p->table);
    free(p->tokens);
    memset(p, 0, sizeof(*p));
}

static void client_fini(struct client *c)
{
    for (int i = 0; i < c->nb; i++) {
        pmf_fini(&c->b[i].in);
        pmf_fini(&c->b[i].out);
    }
    free(c->b);
    free(c->w);
}

/* ---- chunk-<id>-trace.csv ---- */

/* Parses p[0..n) as a finite number into *x. Returns 0 or -1. */
static int number(const char *p, size_t n, double *x)
{
    char tmp[64];
    char *end;

    if (n == 0 || n >= sizeof(tmp))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789+-.eE", p[i]))
            return -1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    *x = strtod(tmp, &end);
    return *end == '\0' && isfinite(*x) ? 0 : -1;
}

/* Where the public files are published, for a missing trace file. */
static const char hint[] =
    "the ServeGen client statistics are in the alibaba/ServeGen repository "
    "on GitHub, e.g. data/reason/deepseek-r1/ (chunk-<id>-trace.csv and "
    "chunk-<id>-dataset.json); download a folder and set "
    "workload.trace.path or pass dsec run --trace DIR";

static int read_windows(struct client *c, const char *path, struct sim_diag *d)
{
    static const char *const names[6] = {"window_start_s", "rate",  "cv",
                                         "pattern",        "shape", "scale"};
    struct wl__lines in;
    int rc, cap = 0;

    if (wl__lines_open(&in, path, WL_LINE_MAX, hint, d) != 0)
        return SIM_EIO;
    while ((rc = wl__lines_read(&in)) == WL_LINE_OK || rc == WL_LINE_LONG) {
        const char *s = in.buf;
        size_t off[7], len[6];
        double v[6] = {0};
        char q[WL_QUOTE_MAX + 4];
        int nf = 1;

        if (rc == WL_LINE_LONG) {
            sim_diag_error(d, in.path, in.line, 1, "line longer than %d bytes",
                           WL_LINE_MAX);
            goto fail;
        }
        if (in.len == 0)
            continue;
        for (size_t i = 0; i < in.len; i++)
            nf += s[i] == ',';
        if (nf != 6) {
            sim_diag_error(d, in.path, in.line, 1,
                           "expected 6 fields (window_start_s, rate, cv, "
                           "pattern, shape, scale), got %d",
                           nf);
            goto fail;
        }
        off[0] = 0;
        for (int f = 0; f < 6; f++) {
            const char *e = memchr(s + off[f], ',', in.len - off[f]);
            size_t end = e ? (size_t)(e - s) : in.len;
            len[f] = end - off[f];
            off[f + 1] = end + 1;
        }
        int pat;
        if (len[3] == 0)
            pat = PAT_NONE;
        else if (len[3] == 5 && memcmp(s + off[3], "Gamma", 5) == 0)
            pat = PAT_GAMMA;
        else if (len[3] == 7 && memcmp(s + off[3], "Weibull", 7) == 0)
            pat = PAT_WEIBULL;
        else {
            wl__quote(q, s + off[3], len[3]);
            sim_diag_error(d, in.path, in.line, (int)off[3] + 1,
                           "pattern: unknown distribution '%s'; valid: Gamma, "
                           "Weibull, or empty (idle)",
                           q);
            goto fail;
        }
        for (int f = 0; f < 6; f++) {
            if (f == 3)
                continue;
            if (number(s + off[f], len[f], &v[f]) != 0 || v[f] < 0) {
                wl__quote(q, s + off[f], len[f]);
                sim_diag_error(d, in.path, in.line, (int)off[f] + 1,
                               "%s: expected a number >= 0, got '%s'", names[f],
                               q);
                goto fail;
            }
        }
        if (c->nw > 0 && !(v[0] > c->w[c->nw - 1].start_s)) {
            sim_diag_error(d, in.path, in.line, 1,
                           "window_start_s: %g is not after the previous "
                           "window's %g",
                           v[0], c->w[c->nw - 1].start_s);
            goto fail;
        }
        double mean = 0;
        if (v[1] > 0) {
            if (pat == PAT_NONE) {
                sim_diag_error(d, in.path, in.line, (int)off[3] + 1,
                               "pattern: empty, but rate is %g; expected "
                               "Gamma or Weibull",
                               v[1]);
                goto fail;
            }
            if (!(v[4] > 0) || !(v[5] > 0)) {
                sim_diag_error(d, in.path, in.line, (int)off[4] + 1,
                               "shape and scale: expected numbers > 0, got "
                               "%g and %g",
                               v[4], v[5]);
                goto fail;
            }
            /* Gamma(1 + 1/shape) overflows a double (and GSL's default
             * handler aborts) for shapes below 1/170; ServeGen's fitted
             * shapes lie near 0.5 to 1. */
            if (pat == PAT_WEIBULL && v[4] < 0.01) {
                sim_diag_error(d, in.path, in.line, (int)off[4] + 1,
                               "shape: %g below 0.01; a Weibull that skewed "
                               "has a mean, scale x Gamma(1 + 1/shape), "
                               "past any number",
                               v[4]);
                goto fail;
            }
            mean = pat == PAT_GAMMA ? v[4] * v[5]
                                    : v[5] * gsl_sf_gamma(1.0 + 1.0 / v[4]);
            if (!(mean > 0) || !isfinite(mean)) {
                sim_diag_error(d, in.path, in.line, (int)off[4] + 1,
                               "shape and scale: the distribution's mean %g "
                               "is not a positive number",
                               mean);
                goto fail;
            }
        }
        if (c->nw == SG_WINDOWS_MAX) {
            sim_diag_error(d, in.path, in.line, 1, "more than %d windows",
                           SG_WINDOWS_MAX);
            goto fail;
        }
        if (c->nw == cap) {
            cap = cap ? 2 * cap : 256;
            c->w = xrealloc(c->w, (size_t)cap, sizeof(*c->w));
        }
        struct window *w = &c->w[c->nw++];
        w->start_s = v[0];
        w->end_s = v[0] + SG_LAST_WINDOW_S;
        if (c->nw > 1)
            c->w[c->nw - 2].end_s = v[0];
        w->rate = v[1];
        w->pattern = v[1] > 0 ? pat : PAT_NONE;
        w->shape = v[4];
        w->scale = v[5];
        w->mean = mean;
    }
    if (rc == WL_LINE_IOERR) {
        wl__lines_ioerr(&in, d);
        goto fail;
    }
    if (c->nw == 0) {
        sim_diag_error(d, in.path, 1, 1,
                       "no windows; expected rows "
                       "window_start_s,rate,cv,pattern,"
                       "shape,scale");
        goto fail;
    }
    wl__lines_close(&in);
    return 0;
fail:
    wl__lines_close(&in);
    return SIM_EPARSE;
}

/* ---- chunk-<id>-dataset.json ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Reads a number token at *p (advancing it). Returns 0 or -1. */
static int dict_number(const char **p, double *x)
{
    size_t n = strspn(*p, "0123456789+-.eE");

    if (number(*p, n, x) != 0)
        return -1;
    *p += n;
    return 0;
}

/* Parses a dict literal {NUMBER: NUMBER, ...} into a PMF. Returns 0, or -1
 * with *why and *at (byte offset in s) set. */
static int parse_pmf(const char *s, struct pmf *out, const char **why,
                     size_t *at)
{
    const char *p = skip_ws(s);
    size_t cap = 0, n = 0;
    int64_t *tok = NULL;
    double *prob = NULL, sum = 0;

    if (*p != '{') {
        *why = "expected '{'";
        goto fail;
    }
    p = skip_ws(p + 1);
    while (*p != '}') {
        double k, v;
        if (dict_number(&p, &k) != 0) {
            *why = "expected a token count";
            goto fail;
        }
        if (k < 0 || k > (double)WL_TOKENS_MAX || k != floor(k)) {
            *why = "a token count must be an integer in [0, 2147483647]";
            goto fail;
        }
        p = skip_ws(p);
        if (*p != ':') {
            *why = "expected ':' after a token count";
            goto fail;
        }
        p = skip_ws(p + 1);
        if (dict_number(&p, &v) != 0 || v < 0) {
            *why = "expected a probability (a number >= 0)";
            goto fail;
        }
        if (n == SG_PMF_MAX) {
            *why = "more than 1048576 entries";
            goto fail;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            tok = xrealloc(tok, cap, sizeof(*tok));
            prob = xrealloc(prob, cap, sizeof(*prob));
        }
        tok[n] = (int64_t)k;
        prob[n++] = v;
        sum += v;
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != '}') {
            *why = "expected ',' or '}'";
            goto fail;
        }
    }
    p = skip_ws(p + 1);
    if (*p != '\0') {
        *why = "text after '}'";
        goto fail;
    }
    if (n > 0 && !(sum > 0)) {
        p = s;
        *why = "the probabilities sum to 0";
        goto fail;
    }
    out->n = n;
    out->tokens = tok;
    out->table = n > 0 ? gsl_ran_discrete_preproc(n, prob) : NULL;
    free(prob);
    return 0;
fail:
    *at = (size_t)(p - s);
    free(tok);
    free(prob);
    return -1;
}

static int cmp_block(const void *a, const void *b)
{
    double x = ((const struct block *)a)->start_s;
    double y = ((const struct block *)b)->start_s;
    return (x > y) - (x < y);
}

static int read_pmf(const char *path, const char *bkey, json_object *blk,
                    const char *name, struct pmf *out, struct sim_diag *d)
{
    json_object *v;
    const char *why = NULL;
    size_t at = 0;

    if (!json_object_object_get_ex(blk, name, &v) || v == NULL) {
        sim_diag_error(d, path, 0, 0, "\"%s\": missing key '%s'", bkey, name);
        return SIM_EPARSE;
    }
    if (!json_object_is_type(v, json_type_string)) {
        sim_diag_error(d, path, 0, 0,
                       "\"%s\".%s: expected a string holding a dict "
                       "literal {tokens: probability, ...}, got %s",
                       bkey, name, json_type_to_name(json_object_get_type(v)));
        return SIM_EPARSE;
    }
    if (parse_pmf(json_object_get_string(v), out, &why, &at) != 0) {
        sim_diag_error(d, path, 0, 0, "\"%s\".%s: at offset %zu: %s", bkey,
                       name, at, why);
        return SIM_EPARSE;
    }
    return 0;
}

static int read_blocks(struct client *c, const char *path, struct sim_diag *d)
{
    json_object *root = json_object_from_file(path);
    int rc = 0;

    if (root == NULL) {
        struct stat st;
        if (stat(path, &st) != 0)
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s",
                           strerror(errno));
        else
            sim_diag_error(d, path, 0, 0, "invalid JSON: %s",
                           json_util_get_last_err() ? json_util_get_last_err()
                                                    : "unknown error");
        return SIM_EPARSE;
    }
    if (!json_object_is_type(root, json_type_object)) {
        sim_diag_error(d, path, 0, 0,
                       "expected an object keyed by block start (\"0\", "
                       "\"21600\", ...)");
        json_object_put(root);
        return SIM_EPARSE;
    }
    int n = json_object_object_length(root);
    if (n == 0 || n > SG_BLOCKS_MAX) {
        sim_diag_error(d, path, 0, 0, "expected 1 to %d blocks, got %d",
                       SG_BLOCKS_MAX, n);
        json_object_put(root);
        return SIM_EPARSE;
    }
    c->b = xcalloc((size_t)n, sizeof(*c->b));
    json_object_object_foreach(root, key, val)
    {
        struct block *b = &c->b[c->nb];
        double t;
        if (number(key, strlen(key), &t) != 0 || t < 0) {
            sim_diag_error(d, path, 0, 0,
                           "\"%s\": expected a block start in seconds >= 0",
                           key);
            rc = SIM_EPARSE;
            break;
        }
        if (!json_object_is_type(val, json_type_object)) {
            sim_diag_error(d, path, 0, 0,
                           "\"%s\": expected an object with input_tokens and "
                           "output_tokens",
                           key);
            rc = SIM_EPARSE;
            break;
        }
        b->start_s = t;
        c->nb++;
        if ((rc = read_pmf(path, key, val, "input_tokens", &b->in, d)) != 0 ||
            (rc = read_pmf(path, key, val, "output_tokens", &b->out, d)) != 0)
            break;
    }
    json_object_put(root);
    if (rc != 0)
        return rc;
    qsort(c->b, (size_t)c->nb, sizeof(*c->b), cmp_block);
    for (int i = 1; i < c->nb; i++)
        if (c->b[i].start_s == c->b[i - 1].start_s) {
            sim_diag_error(d, path, 0, 0, "two blocks start at %g s",
                           c->b[i].start_s);
            return SIM_EPARSE;
        }
    /* Every active window needs non-empty PMFs in its block. */
    for (int i = 0, k = 0; i < c->nw; i++) {
        const struct window *w = &c->w[i];
        if (w->rate <= 0)
            continue;
        while (k + 1 < c->nb && c->b[k + 1].start_s <= w->start_s)
            k++;
        if (c->b[k].start_s > w->start_s) {
            sim_diag_error(d, path, 0, 0,
                           "no block covers the window at %g s (the first "
                           "block starts at %g s)",
                           w->start_s, c->b[0].start_s);
            return SIM_EPARSE;
        }
        if (c->b[k].in.n == 0 || c->b[k].out.n == 0) {
            sim_diag_error(d, path, 0, 0,
                           "block \"%g\": empty input_tokens or "
                           "output_tokens, but the window at %g s has rate "
                           "%g",
                           c->b[k].start_s, w->start_s, w->rate);
            return SIM_EPARSE;
        }
    }
    return 0;
}

/* ---- arrivals ---- */

/* Moves c to its next arrival; sets done at the end of its windows. */
static void advance(struct client *c)
{
    while (c->cur < c->nw && c->w[c->cur].rate <= 0) {
        c->cur++;
        if (c->cur < c->nw)
            c->t_s = c->w[c->cur].start_s;
    }
    if (c->cur >= c->nw) {
        c->done = 1;
        return;
    }
    const struct window *w = &c->w[c->cur];
    if (c->t_s < w->start_s)
        c->t_s = w->start_s;
    double x = w->pattern == PAT_GAMMA
                   ? gsl_ran_gamma(c->arr, w->shape, w->scale)
                   : gsl_ran_weibull(c->arr, w->scale, w->shape);
    x /= w->mean; /* operational time: mean 1 */
    for (;;) {
        w = &c->w[c->cur];
        double room = (w->end_s - c->t_s) * w->rate;
        if (w->rate > 0 && x <= room) {
            c->t_s += x / w->rate;
            if (c->t_s > w->end_s)
                c->t_s = w->end_s;
            break;
        }
        if (w->rate > 0)
            x -= room;
        if (++c->cur >= c->nw) {
            c->done = 1;
            return;
        }
        c->t_s = c->w[c->cur].start_s;
    }
    double ns = c->t_s * 1e9;
    c->next_ns = ns >= 9.2e18 ? SIM_TIME_MAX : (int64_t)llround(ns);
}

static int64_t draw_tokens(const struct pmf *p, gsl_rng *r)
{
    size_t i = gsl_ran_discrete(r, p->table);
    return p->tokens[i] > 0 ? p->tokens[i] : 1;
}

/* ---- client selection ---- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Parses "chunk-<id>-trace.csv" (a base name) into *id. */
static int chunk_id(const char *name, int *id)
{
    long v;
    char *end;

    if (strncmp(name, "chunk-", 6) != 0)
        return -1;
    v = strtol(name + 6, &end, 10);
    if (end == name + 6 || v < 0 || v > 1000000000 || name[6] == '-' ||
        name[6] == '+')
        return -1;
    if (strcmp(end, "-trace.csv") != 0)
        return -1;
    *id = (int)v;
    return 0;
}

/* Lists the client ids of dir, ascending. */
static int list_dir(const char *dir, int **ids, int *n, struct sim_diag *d)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    int cap = 0;

    if (dp == NULL) {
        sim_diag_error(d, dir, 0, 0, "cannot open trace: %s", strerror(errno));
        return SIM_EIO;
    }
    while ((e = readdir(dp)) != NULL) {
        int id;
        if (chunk_id(e->d_name, &id) != 0)
            continue;
        if (*n == SG_CLIENTS_MAX) {
            sim_diag_error(d, dir, 0, 0, "more than %d clients",
                           SG_CLIENTS_MAX);
            closedir(dp);
            return SIM_EPARSE;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *ids = xrealloc(*ids, (size_t)cap, sizeof(**ids));
        }
        (*ids)[(*n)++] = id;
    }
    closedir(dp);
    /* readdir's order depends on the file system: sort for determinism. */
    qsort(*ids, (size_t)*n, sizeof(**ids), cmp_int);
    if (*n == 0) {
        sim_diag_error(d, dir, 0, 0,
                       "no chunk-<id>-trace.csv files in this folder");
        return SIM_EPARSE;
    }
    return 0;
}

/* Parses workload.trace.clients: ids separated by commas or spaces. */
static int parse_clients(const char *text, int **ids, int *n,
                         struct sim_diag *d)
{
    const char *p = text;

    while (*p != '\0') {
        char *end;
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '\0')
            break;
        long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
        if (v < 0 || v > 1000000000 ||
            (*end != '\0' && *end != ' ' && *end != ',')) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.clients: expected 'all' or client "
                           "ids separated by commas, got '%s'",
                           text);
            return SIM_EINVAL;
        }
        for (int i = 0; i < *n; i++)
            if ((*ids)[i] == (int)v) {
                sim_diag_error(d, NULL, 0, 0,
                               "workload.trace.clients: client %ld listed "
                               "twice",
                               v);
                return SIM_EINVAL;
            }
        if (*n == SG_CLIENTS_MAX) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.clients: more than %d clients",
                           SG_CLIENTS_MAX);
            return SIM_EINVAL;
        }
        *ids = xrealloc(*ids, (size_t)*n + 1, sizeof(**ids));
        (*ids)[(*n)++] = (int)v;
        p = end;
    }
    if (*n == 0) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.trace.clients: expected 'all' or client ids "
                       "separated by commas, got '%s'",
                       text);
        return SIM_EINVAL;
    }
    return 0;
}

static void servegen_close(void *state);

static void *servegen_open(const struct cl_workload *cfg, const char *path,
                           struct sim_loop *loop, struct sim_diag *d)
{
    const char *sel = cfg->trace.clients;
    int all = sel == NULL || strcmp(sel, "all") == 0;
    struct stat st;
    int *ids = NULL, n = 0, rc;
    char *dir;

    if (stat(path, &st) != 0) {
        int e = errno;
        if (e == ENOENT)
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s; %s",
                           strerror(e), hint);
        else
            sim_diag_error(d, path, 0, 0, "cannot open trace: %s", strerror(e));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        dir = xstrdup(path);
        rc = all ? list_dir(dir, &ids, &n, d) : parse_clients(sel, &ids, &n, d);
    } else {
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        int id;
        dir =
            slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup(".");
        if (chunk_id(base, &id) != 0) {
            sim_diag_error(d, path, 0, 0,
                           "expected a folder or a file named "
                           "chunk-<id>-trace.csv");
            rc = SIM_EINVAL;
        } else if (!all) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.trace.clients: give a folder as "
                           "workload.trace.path to select clients; '%s' is "
                           "one client's file",
                           path);
            rc = SIM_EINVAL;
        } else {
            ids = xmalloc(sizeof(*ids));
            ids[n++] = id;
            rc = 0;
        }
    }
    if (rc != 0) {
        free(ids);
        free(dir);
        return NULL;
    }

    struct wl__servegen *g = xcalloc(1, sizeof(*g));
    g->c = xcalloc((size_t)n, sizeof(*g->c));
    for (int i = 0; i < n && rc == 0; i++) {
        struct client *c = &g->c[g->nc++];
        char *csv = xasprintf("%s/chunk-%d-trace.csv", dir, ids[i]);
        char *json = xasprintf("%s/chunk-%d-dataset.json", dir, ids[i]);
        c->id = ids[i];
        rc = read_windows(c, csv, d);
        if (rc == 0)
            rc = read_blocks(c, json, d);
        free(csv);
        free(json);
    }
    free(ids);
    free(dir);
    if (rc != 0) {
        servegen_close(g);
        return NULL;
    }
    for (int i = 0; i < g->nc; i++) {
        struct client *c = &g->c[i];
        char name[64];
        snprintf(name, sizeof(name), "servegen.%d.arrivals", c->id);
        c->arr = sim_loop_stream(loop, name);
        snprintf(name, sizeof(name), "servegen.%d.input_tokens", c->id);
        c->in_rng = sim_loop_stream(loop, name);
        snprintf(name, sizeof(name), "servegen.%d.output_tokens", c->id);
        c->out_rng = sim_loop_stream(loop, name);
        c->t_s = c->w[0].start_s;
        advance(c);
    }
    return g;
}

static int servegen_next(void *state, struct wl_request *out,
                         struct sim_diag *d)
{
    struct wl__servegen *g = state;
    struct client *best = NULL;

    (void)d;
    for (int i = 0; i < g->nc; i++) {
        struct client *c = &g->c[i];
        if (!c->done && (best == NULL || c->next_ns < best->next_ns))
            best = c;
    }
    if (best == NULL)
        return SIM_EEOF;
    /* The block of the window the arrival falls in (not of t itself: an
     * arrival exactly at a window's end belongs to that window). */
    double ws = best->w[best->cur].start_s;
    while (best->cur_b + 1 < best->nb && best->b[best->cur_b + 1].start_s <= ws)
        best->cur_b++;
    const struct block *use = &best->b[best->cur_b];
    out->arrival_ns = best->next_ns;
    out->block_hashes = NULL;
    out->nblocks = 0;
    out->block_tokens = 0;
    /* read_blocks() checked that active windows have non-empty PMFs. */
    if (SIM_NEVER(use->in.n == 0 || use->out.n == 0)) {
        best->done = 1;
        return servegen_next(g, out, d);
    }
    out->prompt_tokens = draw_tokens(&use->in, best->in_rng);
    out->output_tokens = draw_tokens(&use->out, best->out_rng);
    advance(best);
    return 0;
}

static void servegen_close(void *state)
{
    struct wl__servegen *g = state;

    if (g == NULL)
        return;
    for (int i = 0; i < g->nc; i++)
        client_fini(&g->c[i]);
    free(g->c);
    free(g);
}

static int servegen_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_TRACE && cfg->trace.format == CL_TRACE_SERVEGEN;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = servegen_match,
    .open = servegen_open,
    .next = servegen_next,
    .close = servegen_close,
};

const struct wl__format wl__format_servegen = {
    .name = "servegen",
    .summary = "arrivals and lengths generated from ServeGen per-client "
               "statistics (Xiang et al., ServeGen, arXiv:2505.09999)",
    .flags = WL_FMT_TRACE | WL_FMT_LOOP | WL_FMT_CLIENTS,
    .ops = &ops,
};
