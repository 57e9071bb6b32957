/* Policy comparison: statistics, table, JSON and the database rows. The
 * metrics sit in one flat array, x[(p * replications + r) * NMETRICS + m],
 * so a policy's replications of one metric are gathered into a small
 * buffer before each statistic: O(replications) per cell, no faster layout
 * is worth its code at a few hundred values. The database rows go through a
 * second connection because struct rpt_db is opaque to this file; the runs
 * are committed first (one transaction each, by rpt_db_write_run()), then
 * the comparison and its links in one more. */
#include "reports/compare.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include "reports/db.h"
#include "reports/fmt.h"
#include "base/errors.h"
#include "base/xalloc.h"

struct cmp_param {
    char *key;
    char *value;
};

struct cmp_policy {
    char *label;
    char *name;
    struct cmp_param *params;
    int nparams;
};

struct rpt_cmp {
    char *scenario;
    uint64_t seed;
    int nreps;
    struct cmp_policy *pol;
    int npol;
    double *x; /* npol x nreps x RPT_CMP_NMETRICS */
};

static const struct {
    const char *name;
    const char *label;
    int prec; /* decimals in the table */
} metrics[RPT_CMP_NMETRICS] = {
    [RPT_CMP_SLO_ATTAINMENT] = {"slo_attainment", "SLO attainment (%)", 2},
    [RPT_CMP_TTFT_P99] = {"ttft_p99_ms", "p99 TTFT (ms)", 1},
    [RPT_CMP_TPOT_P99] = {"tpot_p99_ms", "p99 TPOT (ms)", 2},
    [RPT_CMP_GPU_HOURS] = {"gpu_hours", "GPU-hours", 3},
    [RPT_CMP_COST] = {"cost_usd", "cost (USD)", 2},
    [RPT_CMP_SCALE_EVENTS] = {"scale_events", "scale events", 1},
    [RPT_CMP_COLD_STARTS] = {"cold_starts", "cold starts", 1},
};

const char *rpt_cmp_metric_name(int m)
{
    return m >= 0 && m < RPT_CMP_NMETRICS ? metrics[m].name : NULL;
}

const char *rpt_cmp_metric_label(int m)
{
    return m >= 0 && m < RPT_CMP_NMETRICS ? metrics[m].label : NULL;
}

struct rpt_cmp_stat rpt_cmp_mean_ci(const double *x, int n)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double sum = 0, ss = 0;

    if (n < 1)
        return s;
    for (int i = 0; i < n; i++) {
        if (isnan(x[i]))
            return s;
        sum += x[i];
    }
    s.mean = sum / n;
    if (n < 2)
        return s;
    /* Two passes: the sum of squared deviations from the mean, not
     * sum(x^2) - n mean^2, which cancels badly for large, close values. */
    for (int i = 0; i < n; i++)
        ss += (x[i] - s.mean) * (x[i] - s.mean);
    s.ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * sqrt(ss / (n - 1)) /
             sqrt((double)n);
    return s;
}

struct rpt_cmp_stat rpt_cmp_paired(const double *x, const double *base, int n)
{
    struct rpt_cmp_stat s;
    double *d;

    if (n < 1)
        return rpt_cmp_mean_ci(x, 0);
    d = xmalloc((size_t)n * sizeof(*d));
    for (int i = 0; i < n; i++)
        d[i] = x[i] - base[i];
    s = rpt_cmp_mean_ci(d, n);
    free(d);
    return s;
}

int rpt_cmp_significant(struct rpt_cmp_stat s)
{
    return isfinite(s.mean) && isfinite(s.ci95) && fabs(s.mean) > s.ci95;
}

struct rpt_cmp *rpt_cmp_new(const char *scenario, uint64_t seed,
                            int replications)
{
    struct rpt_cmp *c;

    if (replications < 1 || replications > RPT_CMP_MAX_REPLICATIONS)
        return NULL;
    c = xcalloc(1, sizeof(*c));
    c->scenario = scenario ? xstrdup(scenario) : NULL;
    c->seed = seed;
    c->nreps = replications;
    return c;
}

void rpt_cmp_free(struct rpt_cmp *c)
{
    if (c == NULL)
        return;
    for (int p = 0; p < c->npol; p++) {
        for (int i = 0; i < c->pol[p].nparams; i++) {
            free(c->pol[p].params[i].key);
            free(c->pol[p].params[i].value);
        }
        free(c->pol[p].params);
        free(c->pol[p].label);
        free(c->pol[p].name);
    }
    free(c->pol);
    free(c->x);
    free(c->scenario);
    free(c);
}

int rpt_cmp_add_policy(struct rpt_cmp *c, const char *label, const char *name,
                       const struct cl_policy_param *params, int nparams)
{
    struct cmp_policy *p;
    size_t per = (size_t)c->nreps * RPT_CMP_NMETRICS;

    if (c->npol >= RPT_CMP_MAX_POLICIES)
        return -1;
    c->pol = xrealloc(c->pol, (size_t)c->npol + 1, sizeof(*c->pol));
    c->x = xrealloc(c->x, ((size_t)c->npol + 1) * per, sizeof(*c->x));
    for (size_t i = 0; i < per; i++)
        c->x[(size_t)c->npol * per + i] = NAN;
    p = &c->pol[c->npol];
    p->label = xstrdup(label);
    p->name = xstrdup(name);
    p->nparams = nparams;
    p->params =
        nparams > 0 ? xcalloc((size_t)nparams, sizeof(*p->params)) : NULL;
    for (int i = 0; i < nparams; i++) {
        p->params[i].key = xstrdup(params[i].key);
        p->params[i].value = xstrdup(params[i].value);
    }
    return c->npol++;
}

static int in_range(const struct rpt_cmp *c, int p, int rep, int m)
{
    return p >= 0 && p < c->npol && rep >= 0 && rep < c->nreps && m >= 0 &&
           m < RPT_CMP_NMETRICS;
}

static double *cell(const struct rpt_cmp *c, int p, int rep, int m)
{
    return &c->x[((size_t)p * (size_t)c->nreps + (size_t)rep) *
                     RPT_CMP_NMETRICS +
                 (size_t)m];
}

void rpt_cmp_set(struct rpt_cmp *c, int p, int rep, int m, double v)
{
    assert(in_range(c, p, rep, m));
    if (in_range(c, p, rep, m))
        *cell(c, p, rep, m) = v;
}

double rpt_cmp_get(const struct rpt_cmp *c, int p, int rep, int m)
{
    return in_range(c, p, rep, m) ? *cell(c, p, rep, m) : NAN;
}

void rpt_cmp_record(struct rpt_cmp *c, int p, int rep,
                    const struct cl_results *r)
{
    rpt_cmp_set(c, p, rep, RPT_CMP_SLO_ATTAINMENT, 100.0 * r->slo_attainment);
    rpt_cmp_set(c, p, rep, RPT_CMP_TTFT_P99, r->ttft_ms.p99);
    rpt_cmp_set(c, p, rep, RPT_CMP_TPOT_P99, r->tpot_ms.p99);
    rpt_cmp_set(c, p, rep, RPT_CMP_GPU_HOURS, r->gpu_hours);
    rpt_cmp_set(c, p, rep, RPT_CMP_COST, r->cost_usd);
    rpt_cmp_set(c, p, rep, RPT_CMP_SCALE_EVENTS, (double)r->scale_events);
    rpt_cmp_set(c, p, rep, RPT_CMP_COLD_STARTS, (double)r->cold_starts);
}

int rpt_cmp_npolicies(const struct rpt_cmp *c)
{
    return c->npol;
}

int rpt_cmp_replications(const struct rpt_cmp *c)
{
    return c->nreps;
}

/* Copies metric m of policy p over the replications into buf (nreps). */
static void gather(const struct rpt_cmp *c, int p, int m, double *buf)
{
    for (int r = 0; r < c->nreps; r++)
        buf[r] = *cell(c, p, r, m);
}

struct rpt_cmp_stat rpt_cmp_summary(const struct rpt_cmp *c, int p, int m)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double *buf;

    if (!in_range(c, p, 0, m))
        return s;
    buf = xmalloc((size_t)c->nreps * sizeof(*buf));
    gather(c, p, m, buf);
    s = rpt_cmp_mean_ci(buf, c->nreps);
    free(buf);
    return s;
}

struct rpt_cmp_stat rpt_cmp_diff(const struct rpt_cmp *c, int p, int m)
{
    struct rpt_cmp_stat s = {NAN, NAN};
    double *x, *base;

    if (!in_range(c, p, 0, m))
        return s;
    x = xmalloc((size_t)c->nreps * sizeof(*x));
    base = xmalloc((size_t)c->nreps * sizeof(*base));
    gather(c, p, m, x);
    gather(c, 0, m, base);
    s = rpt_cmp_paired(x, base, c->nreps);
    free(x);
    free(base);
    return s;
}

/* Formats v with prec decimals (with a sign when sign is set), or "n/a". */
static const char *num(char *buf, size_t size, int prec, int sign, double v)
{
    if (isnan(v))
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, sign ? "%+.*f" : "%.*f", prec, v);
    return buf;
}

static int label_width(const struct rpt_cmp *c)
{
    int w = 6; /* "policy" */
    for (int p = 0; p < c->npol; p++) {
        int len = (int)strlen(c->pol[p].label);
        if (len > w)
            w = len;
    }
    return w;
}

void rpt_cmp_print(FILE *fp, const struct rpt_cmp *c)
{
    int w = label_width(c);
    char a[32], b[32];

    fprintf(fp,
            "scenario %s, %d replication%s, seeds %llu..%llu "
            "(common random numbers)\n\n",
            c->scenario ? c->scenario : "(unnamed)", c->nreps,
            c->nreps == 1 ? "" : "s", (unsigned long long)c->seed,
            (unsigned long long)(c->seed + (uint64_t)c->nreps - 1));
    fprintf(fp, "%-20s  %-*s  %12s \xc2\xb1 %s\n", "metric", w, "policy",
            "mean", "ci95");
    for (int m = 0; m < RPT_CMP_NMETRICS; m++) {
        for (int p = 0; p < c->npol; p++) {
            struct rpt_cmp_stat s = rpt_cmp_summary(c, p, m);
            fprintf(fp, "%-20s  %-*s  %12s \xc2\xb1 %s\n",
                    p == 0 ? metrics[m].label : "", w, c->pol[p].label,
                    num(a, sizeof(a), metrics[m].prec, 0, s.mean),
                    num(b, sizeof(b), metrics[m].prec, 0, s.ci95));
        }
    }
    fprintf(fp,
            "%-20s  (ci95: half-width of the 95%% t interval over the "
            "replications)\n",
            "");
    if (c->npol < 2) {
        fprintf(fp, "\none policy: no paired differences\n");
        return;
    }
    fprintf(fp, "\npaired differences, policy minus %s, per replication\n\n",
            c->pol[0].label);
    fprintf(fp, "%-20s  %-*s  %12s \xc2\xb1 %s\n", "metric", w, "policy",
            "mean", "ci95");
    for (int m = 0; m < RPT_CMP_NMETRICS; m++) {
        for (int p = 1; p < c->npol; p++) {
            struct rpt_cmp_stat s = rpt_cmp_diff(c, p, m);
            int sig = rpt_cmp_significant(s);
            fprintf(fp, "%-20s  %-*s  %12s \xc2\xb1 %-*s%s\n",
                    p == 1 ? metrics[m].label : "", w, c->pol[p].label,
                    num(a, sizeof(a), metrics[m].prec, 1, s.mean), sig ? 10 : 0,
                    num(b, sizeof(b), metrics[m].prec, 0, s.ci95),
                    sig ? " *" : "");
        }
    }
    fprintf(fp,
            "%-20s  (*: the 95%% interval excludes 0, the difference is "
            "significant)\n",
            "");
}

static struct json_object *jmetrics(const struct rpt_cmp *c, int p)
{
    struct json_object *o = json_object_new_object();

    for (int m = 0; m < RPT_CMP_NMETRICS; m++) {
        struct rpt_cmp_stat s = rpt_cmp_summary(c, p, m);
        struct json_object *e = json_object_new_object();
        struct json_object *v = json_object_new_array();

        json_object_object_add(e, "mean",
                               rpt_json_double(s.mean, RPT_JSON_SHORTEST));
        json_object_object_add(e, "ci95",
                               rpt_json_double(s.ci95, RPT_JSON_SHORTEST));
        for (int r = 0; r < c->nreps; r++)
            json_object_array_add(
                v, rpt_json_double(*cell(c, p, r, m), RPT_JSON_SHORTEST));
        json_object_object_add(e, "values", v);
        json_object_object_add(o, metrics[m].name, e);
    }
    return o;
}

static struct json_object *jdiff(const struct rpt_cmp *c, int p)
{
    struct json_object *o = json_object_new_object();

    for (int m = 0; m < RPT_CMP_NMETRICS; m++) {
        struct rpt_cmp_stat s = rpt_cmp_diff(c, p, m);
        struct json_object *e = json_object_new_object();

        json_object_object_add(e, "mean",
                               rpt_json_double(s.mean, RPT_JSON_SHORTEST));
        json_object_object_add(e, "ci95",
                               rpt_json_double(s.ci95, RPT_JSON_SHORTEST));
        json_object_object_add(e, "significant",
                               json_object_new_boolean(rpt_cmp_significant(s)));
        json_object_object_add(o, metrics[m].name, e);
    }
    return o;
}

char *rpt_cmp_json(const struct rpt_cmp *c, int pretty)
{
    struct json_object *o = json_object_new_object();
    struct json_object *pols = json_object_new_array();
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                        : JSON_C_TO_STRING_PLAIN);
    char *s;

    /* json-c keeps members in insertion order: this is the printed order. */
    json_object_object_add(o, "scenario",
                           c->scenario ? json_object_new_string(c->scenario)
                                       : NULL);
    json_object_object_add(o, "replications", json_object_new_int(c->nreps));
    json_object_object_add(o, "seed", json_object_new_uint64(c->seed));
    for (int p = 0; p < c->npol; p++) {
        struct json_object *e = json_object_new_object();
        struct json_object *params = json_object_new_object();

        json_object_object_add(e, "name",
                               json_object_new_string(c->pol[p].name));
        json_object_object_add(e, "label",
                               json_object_new_string(c->pol[p].label));
        for (int i = 0; i < c->pol[p].nparams; i++)
            json_object_object_add(
                params, c->pol[p].params[i].key,
                json_object_new_string(c->pol[p].params[i].value));
        json_object_object_add(e, "params", params);
        json_object_object_add(e, "metrics", jmetrics(c, p));
        json_object_object_add(e, "diff_vs_first", p > 0 ? jdiff(c, p) : NULL);
        json_object_array_add(pols, e);
    }
    json_object_object_add(o, "policies", pols);
    s = xstrdup(json_object_to_json_string_ext(o, flags));
    json_object_put(o);
    return s;
}

/* The labels as a JSON array, for comparisons.policies. Caller frees. */
static char *labels_json(const struct rpt_cmp *c)
{
    struct json_object *a = json_object_new_array();
    char *s;

    for (int p = 0; p < c->npol; p++)
        json_object_array_add(a, json_object_new_string(c->pol[p].label));
    s = xstrdup(json_object_to_json_string_ext(
        a, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(a);
    return s;
}

static int write_links(sqlite3 *sql, const struct rpt_cmp *c, int64_t id,
                       const int64_t *run_ids)
{
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(sql,
                            "INSERT INTO comparison_runs (comparison_id, "
                            "run_id, policy, replication) "
                            "VALUES (?1, ?2, ?3, ?4)",
                            -1, &st, NULL);
    for (int p = 0; p < c->npol && rc == SQLITE_OK; p++) {
        for (int r = 0; r < c->nreps && rc == SQLITE_OK; r++) {
            sqlite3_reset(st);
            rc = sqlite3_bind_int64(st, 1, id);
            if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(
                    st, 2, run_ids[(size_t)p * (size_t)c->nreps + (size_t)r]);
            if (rc == SQLITE_OK)
                rc = sqlite3_bind_text(st, 3, c->pol[p].label, -1,
                                       SQLITE_STATIC);
            if (rc == SQLITE_OK)
                rc = sqlite3_bind_int(st, 4, r);
            if (rc == SQLITE_OK)
                rc = sqlite3_step(st);
            if (rc == SQLITE_DONE)
                rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int rpt_cmp_db_write(const char *path, const struct rpt_cmp *c,
                     const char *started_at, const int64_t *run_ids,
                     int64_t *id_out, struct sim_diag *d)
{
    sqlite3 *sql = NULL;
    sqlite3_stmt *st = NULL;
    char *labels = labels_json(c);
    int64_t id = 0;
    int rc;

    rc = sqlite3_open_v2(path, &sql, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(sql, RPT_DB_BUSY_TIMEOUT_MS);
        rc = sqlite3_exec(sql, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql,
                                "INSERT INTO comparisons (started_at, "
                                "scenario_name, policies, replications, seed) "
                                "VALUES (?1, ?2, ?3, ?4, ?5)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, started_at, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = c->scenario
                 ? sqlite3_bind_text(st, 2, c->scenario, -1, SQLITE_STATIC)
                 : sqlite3_bind_null(st, 2);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 3, labels, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 4, c->nreps);
    /* A seed above INT64_MAX is stored as its bit pattern, as runs.seed. */
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 5, (sqlite3_int64)c->seed);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        id = sqlite3_last_insert_rowid(sql);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = write_links(sql, c, id, run_ids);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(sql, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "cannot write comparison: %s",
                       sql ? sqlite3_errmsg(sql) : sqlite3_errstr(rc));
        if (sql != NULL && !sqlite3_get_autocommit(sql))
            sqlite3_exec(sql, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(sql);
    free(labels);
    if (rc != SQLITE_OK)
        return SIM_EDB;
    if (id_out != NULL)
        *id_out = id;
    return 0;
}

const char *rpt_cmp_policy_parse(const char *arg, char **name,
                                 struct cl_policy_param **params, int *nparams)
{
    const char *colon = strchr(arg, ':');
    const char *p;

    *params = NULL;
    *nparams = 0;
    *name = colon ? xstrndup(arg, (size_t)(colon - arg)) : xstrdup(arg);
    if ((*name)[0] == '\0')
        return "expected NAME or NAME:key=value,...";
    if (colon == NULL)
        return NULL;
    for (p = colon + 1;;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        struct cl_policy_param *pp;

        if (eq == NULL || eq == p)
            return "expected key=value after the colon, pairs separated "
                   "by commas";
        *params = xrealloc(*params, (size_t)*nparams + 1, sizeof(**params));
        pp = &(*params)[(*nparams)++];
        pp->key = xstrndup(p, (size_t)(eq - p));
        pp->value = xstrndup(eq + 1, len - (size_t)(eq - p) - 1);
        pp->pos.line = 0;
        pp->pos.col = 0;
        for (int i = 0; i + 1 < (*nparams); i++)
            if (strcmp((*params)[i].key, pp->key) == 0)
                return "a parameter is given twice";
        if (pp->value[0] == '\0')
            return "expected a value after '='";
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    return NULL;
}

void rpt_cmp_policy_fini(char *name, struct cl_policy_param *params,
                         int nparams)
{
    for (int i = 0; i < nparams; i++) {
        free(params[i].key);
        free(params[i].value);
    }
    free(params);
    free(name);
}
