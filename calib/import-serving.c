/* dsec-calib import of serving benchmark results (calib/cal.h,
 * cal_import_serving; docs/calibration.md "Serving benchmark results").
 *
 * An input is read whole first: the scenario of each run through
 * calib/scenario.c's conversions (the same text dsec-calib scenario prints,
 * with model.hf_config "config.json", the name under which the model
 * config is stored beside it), then the measured figures of each stage.
 * Only when all of it reads are the rows inserted, in one transaction.
 * Rejected alternative: inserting while reading and rolling back on an
 * error, which works too but mixes the two error paths.
 *
 * Where the figures come from:
 * - inference-perf writes results/stage_N_lifecycle_metrics.json per load
 *   stage with latencies in seconds. Its time_per_output_token and
 *   inter_token_latency are per streamed chunk (about two tokens), so the
 *   per-token time is (E2E mean - TTFT mean) / (output tokens - 1), and
 *   its output_len is a re-tokenisation of the text that undercounts: the
 *   configured length is used whenever ignore_eos fixes it (the README of
 *   the H100 runs of inference-sim/training @ ed5c1d26).
 * - vllm bench serve (--save-result) writes mean_ttft_ms, p99_ttft_ms,
 *   mean_tpot_ms, mean_itl_ms, mean_e2el_ms (e2el only when
 *   --percentile-metrics names it), completed, failed, request_throughput
 *   and total_output_tokens (vllm benchmarks/serve.py).
 * - GuideLLM v0.3 (guidellm benchmark --output-path report.json) writes
 *   per benchmark metrics.NAME.successful.{mean, percentiles.p99} with
 *   milliseconds in the _ms names and seconds in request_latency. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calib/cal.h"
#include "calib/scenario-int.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

/* Largest model config read (Hugging Face's are a few KiB). */
#define MAX_MODEL_CONFIG_BYTES (1 << 20)

/* Most benchmarks imported from one GuideLLM report. */
#define MAX_BENCHMARKS 1024

/* What model.hf_config names in a stored scenario: the model config is
 * written beside it under this name (calib/cal.h, serving_runs). */
#define MODEL_CONFIG_NAME "config.json"

enum { N_REQ = CAL__N_REQ, N_INT = CAL__N_INT, N_NONNEG = CAL__N_NONNEG };

/* One run read from an input, ready to insert. */
struct run {
    char *source; /* owned */
    const char *format;
    char *scenario; /* owned */
    char *model;    /* owned, or NULL */
    int nstages;
    struct cal_serving_stage *st; /* owned, nstages */
};

static void run_free(struct run *r)
{
    free(r->source);
    free(r->scenario);
    free(r->model);
    free(r->st);
    memset(r, 0, sizeof(*r));
}

static void stage_clear(struct cal_serving_stage *s, int stage)
{
    s->stage = stage;
    s->requests = s->failures = -1;
    s->rate_per_s = s->output_tokens = NAN;
    s->ttft_mean_ms = s->ttft_p99_ms = s->tpot_mean_ms = s->itl_mean_ms = NAN;
    s->e2e_mean_ms = s->e2e_p99_ms = s->requests_per_s = NAN;
}

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int cal_serving_detect(const char *path)
{
    FILE *fp;
    int c;

    if (is_dir(path))
        return 1;
    fp = fopen(path, "r");
    if (fp == NULL)
        return 0;
    while ((c = getc(fp)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        ;
    fclose(fp);
    return c == '{';
}

/* A memory stream that receives a converted scenario. */
struct scn_out {
    char *buf;
    size_t len;
    FILE *mem;
};

static void scn_open(struct scn_out *s)
{
    s->buf = NULL;
    s->len = 0;
    s->mem = open_memstream(&s->buf, &s->len);
    if (s->mem == NULL)
        sim_fatal("open_memstream: %s", strerror(errno));
}

/* Closes the stream and returns the text (caller frees). */
static char *scn_close(struct scn_out *s)
{
    fclose(s->mem);
    return s->buf;
}

/* A latency in seconds at key, as milliseconds into *ms. */
static int seconds_ms(json_object *root, const char *key, const char *path,
                      int flags, double *ms, struct sim_diag *d)
{
    double s;
    int rc = cal__jnum(root, key, path, flags | N_NONNEG, 0, &s, d);

    if (rc == CAL__GIVEN)
        *ms = s * 1e3;
    return rc;
}

/* Checks that the mean E2E is not below the mean TTFT, from which the
 * per-token time is derived. */
static void e2e_check(const struct cal_serving_stage *s, const char *path,
                      const char *key, struct sim_diag *d)
{
    if (s->e2e_mean_ms < s->ttft_mean_ms)
        sim_diag_error(d, path, 0, 0,
                       "%s: mean %g ms below the mean time to first token "
                       "%g ms",
                       key, s->e2e_mean_ms, s->ttft_mean_ms);
}

/* ---- inference-perf ---- */

/* Reads stage i of an inference-perf run from its stage file. */
static int ip_stage(const char *path, int i, const struct cal__scn_info *info,
                    struct cal_serving_stage *s, struct sim_diag *d)
{
    json_object *root = cal__json_read(path, d);
    double req = NAN, ok = NAN, fail = NAN;
    int errs = sim_diag_errors(d);

    if (root == NULL)
        return SIM_EPARSE;
    stage_clear(s, i);
    s->rate_per_s = info->rate_per_s[i];
    cal__jnum(root, "load_summary.count", path, N_REQ | N_INT | N_NONNEG, 0,
              &req, d);
    cal__jnum(root, "successes.count", path, N_REQ | N_INT | N_NONNEG, 0, &ok,
              d);
    cal__jnum(root, "failures.count", path, N_REQ | N_INT | N_NONNEG, 0, &fail,
              d);
    s->requests = isnan(req) ? -1 : (int64_t)req;
    s->failures = isnan(fail) ? -1 : (int64_t)fail;
    s->output_tokens = info->output_tokens;
    /* A stage in which nothing succeeded has no latencies: NULL. */
    if (ok > 0) {
        seconds_ms(root, "successes.latency.time_to_first_token.mean", path,
                   N_REQ, &s->ttft_mean_ms, d);
        seconds_ms(root, "successes.latency.time_to_first_token.p99", path,
                   N_REQ, &s->ttft_p99_ms, d);
        seconds_ms(root, "successes.latency.request_latency.mean", path, N_REQ,
                   &s->e2e_mean_ms, d);
        seconds_ms(root, "successes.latency.request_latency.p99", path, N_REQ,
                   &s->e2e_p99_ms, d);
        seconds_ms(root, "successes.latency.inter_token_latency.mean", path, 0,
                   &s->itl_mean_ms, d);
        cal__jnum(root, "successes.throughput.requests_per_sec", path,
                  N_REQ | N_NONNEG, 0, &s->requests_per_s, d);
        if (isnan(s->output_tokens))
            cal__jnum(root, "successes.output_len.mean", path, N_REQ | N_NONNEG,
                      0, &s->output_tokens, d);
        if (sim_diag_errors(d) == errs)
            e2e_check(s, path, "successes.latency.request_latency", d);
        if (sim_diag_errors(d) == errs && s->output_tokens > 1)
            s->tpot_mean_ms =
                (s->e2e_mean_ms - s->ttft_mean_ms) / (s->output_tokens - 1);
    } else if (ok == 0) {
        s->requests_per_s = 0;
    }
    json_object_put(root);
    return sim_diag_errors(d) > errs ? SIM_EINVAL : 0;
}

/* The folder holding the stage files of the inference-perf run at path:
 * path/results when that has config.yaml, else path. Caller frees. */
static char *ip_results(const char *path)
{
    char *dir = xstrdup(path), *p;
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    p = xasprintf("%s/results/config.yaml", dir);
    if (is_file(p)) {
        free(p);
        p = xasprintf("%s/results", dir);
        free(dir);
        return p;
    }
    free(p);
    return dir;
}

static int ip_import(const char *path, const struct cal_scn_opts *so,
                     struct run *r, struct sim_diag *d)
{
    struct cal__scn_info info;
    struct scn_out so_out;
    char *res, *p;
    int rc;

    scn_open(&so_out);
    rc = cal__scenario_convert(path, NULL, so, so_out.mem, &info, d);
    r->scenario = scn_close(&so_out);
    if (rc != 0) {
        cal__scn_info_fini(&info);
        return rc;
    }
    r->source = xstrdup(path);
    r->format = "inference-perf";
    r->model = info.model;
    info.model = NULL;
    r->nstages = info.nstages;
    r->st = xcalloc((size_t)info.nstages, sizeof(*r->st));
    res = ip_results(path);
    for (int i = 0; i < info.nstages; i++) {
        p = xasprintf("%s/stage_%d_lifecycle_metrics.json", res, i);
        if (!is_file(p)) {
            sim_diag_error(d, p, 0, 0,
                           "missing: load.stages of results/config.yaml has "
                           "%d stage%s, and inference-perf writes "
                           "stage_N_lifecycle_metrics.json for each",
                           info.nstages, info.nstages == 1 ? "" : "s");
            rc = SIM_EIO;
        } else if (ip_stage(p, i, &info, &r->st[i], d) != 0) {
            rc = SIM_EINVAL;
        }
        free(p);
    }
    p = xasprintf("%s/stage_%d_lifecycle_metrics.json", res, info.nstages);
    if (is_file(p)) {
        sim_diag_error(d, p, 0, 0,
                       "a stage that results/config.yaml does not have: "
                       "its load.stages has %d stage%s",
                       info.nstages, info.nstages == 1 ? "" : "s");
        rc = SIM_EINVAL;
    }
    free(p);
    free(res);
    cal__scn_info_fini(&info);
    return rc;
}

/* ---- vllm bench serve ---- */

static int vb_import(const char *path, json_object *root,
                     const struct cal_scn_opts *so, struct run *r,
                     struct sim_diag *d)
{
    struct cal__scn_info info;
    struct scn_out so_out;
    struct cal_serving_stage *s;
    double np = NAN, done = NAN, failed = NAN, total;
    int rc, errs;

    scn_open(&so_out);
    rc = cal__scenario_convert(path, root, so, so_out.mem, &info, d);
    r->scenario = scn_close(&so_out);
    if (rc != 0) {
        cal__scn_info_fini(&info);
        return rc;
    }
    errs = sim_diag_errors(d);
    r->source = xstrdup(path);
    r->format = "vllm-bench";
    r->model = info.model;
    info.model = NULL;
    r->nstages = 1;
    r->st = s = xcalloc(1, sizeof(*s));
    stage_clear(s, 0);
    s->rate_per_s = info.rate_per_s[0];
    cal__jnum(root, "num_prompts", path, N_REQ | N_INT, 0, &np, d);
    if (cal__jnum(root, "completed", path, N_REQ | N_INT | N_NONNEG, 0, &done,
                  d) == CAL__GIVEN &&
        done == 0)
        sim_diag_error(d, path, 0, 0,
                       "completed: 0: no request succeeded, so the run has "
                       "no latencies");
    if (done > np)
        sim_diag_error(d, path, 0, 0, "completed: %g more than num_prompts %g",
                       done, np);
    if (cal__jnum(root, "failed", path, N_INT | N_NONNEG, 0, &failed, d) ==
        CAL__ABSENT)
        failed = np - done;
    s->requests = isnan(np) ? -1 : (int64_t)np;
    s->failures = isnan(failed) ? -1 : (int64_t)failed;
    cal__jnum(root, "mean_ttft_ms", path, N_REQ | N_NONNEG, 0, &s->ttft_mean_ms,
              d);
    cal__jnum(root, "p99_ttft_ms", path, N_NONNEG, 0, &s->ttft_p99_ms, d);
    cal__jnum(root, "mean_tpot_ms", path, N_REQ | N_NONNEG, 0, &s->tpot_mean_ms,
              d);
    cal__jnum(root, "mean_itl_ms", path, N_NONNEG, 0, &s->itl_mean_ms, d);
    cal__jnum(root, "mean_e2el_ms", path, N_NONNEG, 0, &s->e2e_mean_ms, d);
    cal__jnum(root, "p99_e2el_ms", path, N_NONNEG, 0, &s->e2e_p99_ms, d);
    cal__jnum(root, "request_throughput", path, N_REQ | N_NONNEG, 0,
              &s->requests_per_s, d);
    s->output_tokens = info.output_tokens;
    if (isnan(s->output_tokens) &&
        cal__jnum(root, "total_output_tokens", path, N_REQ | N_INT | N_NONNEG,
                  0, &total, d) == CAL__GIVEN &&
        done > 0)
        s->output_tokens = total / done;
    if (sim_diag_errors(d) == errs && !isnan(s->e2e_mean_ms))
        e2e_check(s, path, "mean_e2el_ms", d);
    cal__scn_info_fini(&info);
    return sim_diag_errors(d) > errs ? SIM_EINVAL : 0;
}

/* ---- GuideLLM ---- */

/* metrics.NAME.successful.STAT of benchmark index into *out (times a
 * scale: 1e3 for the seconds of request_latency). */
static int gl_metric(json_object *root, int index, const char *name,
                     const char *stat, int flags, double scale,
                     const char *path, double *out, struct sim_diag *d)
{
    char key[256];
    double v;
    int rc;

    snprintf(key, sizeof(key), "benchmarks[%d].metrics.%s.successful.%s", index,
             name, stat);
    rc = cal__jnum(root, key, path, flags | N_NONNEG, 0, &v, d);
    if (rc == CAL__GIVEN)
        *out = v * scale;
    return rc;
}

static int gl_import_one(const char *path, json_object *root, int index,
                         const struct cal_scn_opts *so, struct run *r,
                         struct sim_diag *d)
{
    struct cal__scn_info info;
    struct scn_out so_out;
    struct cal_serving_stage *s;
    double ok = NAN, err = NAN, inc = NAN;
    char key[256];
    int rc, errs;

    scn_open(&so_out);
    rc = cal__scenario_guidellm(path, root, index, so, so_out.mem, &info, d);
    r->scenario = scn_close(&so_out);
    if (rc != 0) {
        cal__scn_info_fini(&info);
        return rc;
    }
    errs = sim_diag_errors(d);
    r->source = xasprintf("%s#%d", path, index);
    r->format = "guidellm";
    r->model = info.model;
    info.model = NULL;
    r->nstages = 1;
    r->st = s = xcalloc(1, sizeof(*s));
    stage_clear(s, 0);
    s->rate_per_s = info.rate_per_s[0];
    if (cal__guidellm_counts(root, index, path, &ok, &err, &inc, d) == 0) {
        s->requests = (int64_t)(ok + err + inc);
        s->failures = (int64_t)(err + inc);
        if (ok == 0)
            sim_diag_error(d, path, 0, 0,
                           "benchmarks[%d].request_totals.successful: 0: no "
                           "request succeeded, so the benchmark has no "
                           "latencies",
                           index);
    }
    snprintf(key, sizeof(key), "benchmarks[%d].metrics", index);
    if (!json_object_is_type(cal__jget(root, key), json_type_object)) {
        sim_diag_error(d, path, 0, 0,
                       "%s: missing; expected GuideLLM's metrics "
                       "(time_to_first_token_ms, ...)",
                       key);
    } else {
        gl_metric(root, index, "time_to_first_token_ms", "mean", N_REQ, 1, path,
                  &s->ttft_mean_ms, d);
        gl_metric(root, index, "time_to_first_token_ms", "percentiles.p99",
                  N_REQ, 1, path, &s->ttft_p99_ms, d);
        gl_metric(root, index, "time_per_output_token_ms", "mean", N_REQ, 1,
                  path, &s->tpot_mean_ms, d);
        gl_metric(root, index, "inter_token_latency_ms", "mean", 0, 1, path,
                  &s->itl_mean_ms, d);
        gl_metric(root, index, "request_latency", "mean", N_REQ, 1e3, path,
                  &s->e2e_mean_ms, d);
        gl_metric(root, index, "request_latency", "percentiles.p99", N_REQ, 1e3,
                  path, &s->e2e_p99_ms, d);
        gl_metric(root, index, "requests_per_second", "mean", N_REQ, 1, path,
                  &s->requests_per_s, d);
        s->output_tokens = info.output_tokens;
        if (isnan(s->output_tokens))
            gl_metric(root, index, "output_token_count", "mean", N_REQ, 1, path,
                      &s->output_tokens, d);
        if (sim_diag_errors(d) == errs) {
            snprintf(key, sizeof(key), "benchmarks[%d].metrics.request_latency",
                     index);
            e2e_check(s, path, key, d);
        }
    }
    cal__scn_info_fini(&info);
    return sim_diag_errors(d) > errs ? SIM_EINVAL : 0;
}

/* Reads every benchmark of the GuideLLM report; *runs receives them
 * (caller frees each with run_free() and the array). */
static int gl_import(const char *path, json_object *root,
                     const struct cal_scn_opts *so, struct run **runs,
                     int *nruns, struct sim_diag *d)
{
    json_object *b = cal__jget(root, "benchmarks");
    size_t n;
    int rc = 0;

    if (b == NULL || !json_object_is_type(b, json_type_array) ||
        (n = json_object_array_length(b)) == 0) {
        sim_diag_error(d, path, 0, 0,
                       "benchmarks: expected a non-empty list of GuideLLM "
                       "benchmarks");
        return SIM_EINVAL;
    }
    if (n > MAX_BENCHMARKS) {
        sim_diag_error(d, path, 0, 0, "benchmarks: more than %d benchmarks",
                       MAX_BENCHMARKS);
        return SIM_EINVAL;
    }
    *runs = xcalloc(n, sizeof(**runs));
    *nruns = (int)n;
    for (int i = 0; i < (int)n; i++)
        if (gl_import_one(path, root, i, so, &(*runs)[i], d) != 0)
            rc = SIM_EINVAL;
    return rc;
}

/* ---- the dispatcher ---- */

/* The text of the model config mc (a config.json or its folder), or NULL
 * with the error in d. Caller frees. */
static char *model_config_text(const char *mc, struct sim_diag *d)
{
    char *p = is_dir(mc) ? xasprintf("%s/config.json", mc) : xstrdup(mc);
    size_t len;
    char *text = sim_yaml_read_file(p, MAX_MODEL_CONFIG_BYTES, &len, d);

    free(p);
    return text;
}

/* Reads the runs of path into *runs (*nruns of them). */
static int read_runs(const char *path, const struct cal_scn_opts *so,
                     struct run **runs, int *nruns, struct sim_diag *d)
{
    static const char *const vb_keys[] = {
        "num_prompts", "request_rate", "mean_ttft_ms", "completed", "backend"};
    json_object *root;
    int rc = SIM_EINVAL, vb = 0;

    if (is_dir(path)) {
        *runs = xcalloc(1, sizeof(**runs));
        *nruns = 1;
        return ip_import(path, so, *runs, d);
    }
    root = cal__json_read(path, d);
    if (root == NULL)
        return SIM_EPARSE;
    for (size_t i = 0; i < sizeof(vb_keys) / sizeof(vb_keys[0]); i++)
        vb |= cal__jget(root, vb_keys[i]) != NULL;
    if (json_object_object_get_ex(root, "benchmarks", NULL)) {
        rc = gl_import(path, root, so, runs, nruns, d);
    } else if (vb) {
        *runs = xcalloc(1, sizeof(**runs));
        *nruns = 1;
        rc = vb_import(path, root, so, *runs, d);
    } else {
        sim_diag_error(d, path, 0, 0,
                       "unrecognised JSON; expected a vllm bench serve result "
                       "(num_prompts, request_rate, mean_ttft_ms, ...) or a "
                       "GuideLLM report (benchmarks)");
    }
    json_object_put(root);
    return rc;
}

/* Inserts the runs in one transaction. */
static int insert_runs(sqlite3 *db, const char *path, const struct run *runs,
                       int n, const char *gpu, const char *mc_text,
                       struct sim_diag *d)
{
    int rc = 0;

    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "database: %s", sqlite3_errmsg(db));
        return SIM_EDB;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        struct cal_serving_run row = {
            runs[i].source, runs[i].format,   gpu,
            runs[i].model,  runs[i].scenario, mc_text};
        int64_t id = 0;

        rc = cal_db_insert_run(db, &row, &id, d);
        for (int j = 0; j < runs[i].nstages && rc == 0; j++)
            rc = cal_db_insert_stage(db, id, &runs[i].st[j], path, d);
    }
    if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "database: %s", sqlite3_errmsg(db));
        rc = SIM_EDB;
    }
    if (rc != 0)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int cal_import_serving(sqlite3 *db, const char *path,
                       const struct cal_serving_opts *o, FILE *out, int *nruns,
                       struct sim_diag *d)
{
    struct cal_scn_opts so = {o->model_config, o->gpu, o->timeout,
                              o->model_config ? MODEL_CONFIG_NAME : NULL};
    struct run *runs = NULL;
    char *mc_text = NULL;
    int n = 0, rc;

    *nruns = 0;
    if (o->gpu == NULL) {
        sim_diag_error(d, path, 0, 0,
                       "--gpu: required for serving benchmark results; "
                       "inference-perf, vllm bench and GuideLLM do not record "
                       "the GPU");
        return SIM_EINVAL;
    }
    if (!is_dir(path) && !is_file(path)) {
        sim_diag_error(d, path, 0, 0, "cannot open: %s", strerror(errno));
        return SIM_EIO;
    }
    if (o->model_config != NULL &&
        (mc_text = model_config_text(o->model_config, d)) == NULL)
        return SIM_EIO;
    rc = read_runs(path, &so, &runs, &n, d);
    if (rc == 0)
        rc = insert_runs(db, path, runs, n, o->gpu, mc_text, d);
    for (int i = 0; i < n; i++) {
        if (rc == 0)
            fprintf(out, "%s: %s, %d stage%s, gpu %s\n", runs[i].source,
                    runs[i].format, runs[i].nstages,
                    runs[i].nstages == 1 ? "" : "s", o->gpu);
        run_free(&runs[i]);
    }
    free(runs);
    free(mc_text);
    if (rc == 0)
        *nruns = n;
    return rc;
}
