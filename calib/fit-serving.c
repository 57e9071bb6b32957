/* dsec-calib fit --serving (calib/serving.h, docs/calibration.md "Fitting
 * to serving runs"). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "config.h"

#include "calib/serving.h"
#include "models/cluster/cluster.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/xalloc.h"

enum { M_TTFT, M_TPOT, M_E2E, NMETRIC };

static const char *const metric_name[NMETRIC] = {"TTFT", "TPOT", "E2E"};
static const double metric_tol[NMETRIC] = {CAL_SRV_TOL_TTFT, CAL_SRV_TOL_TPOT,
                                           CAL_SRV_TOL_E2E};

/* Finite-difference step on log(p / p0). */
#define FD_STEP 0.02

/* One measured stage. */
struct stage {
    int stage;
    int requests, failures;
    double meas[NMETRIC]; /* ms; NAN when not measured */
    int overloaded;       /* failures, or served well below the rate */
    int used;             /* not overloaded */
};

struct run {
    long long id;
    char *source;
    char *dir; /* temporary folder with scenario.yaml and config.json */
    struct cl_scenario scn;
    int loaded;
    struct stage *st;
    int nst;
    int holdout; /* predicted, not fitted */
    int fit_in;  /* in the current fit */
    /* The last evaluation: simulated means per stage (ms), rc. */
    double (*sim)[NMETRIC];
    int rc;
    char err[256];
};

struct param {
    char key[48];
    struct perf_calib_key k;
    double p0; /* start, plain unit */
};

struct ctx {
    const struct cal_srv_opts *o;
    sqlite3 *db;
    sqlite3_stmt *err_ins; /* INSERT INTO serving_errors, or NULL */
    struct sim_diag *d;
    FILE *rep;
    const struct gpu_spec *g;
    struct perf_calib base; /* starting profile (a copy), with g's entry */
    int gidx;               /* index of g's entry in base.gpus */
    struct run *runs;
    int nruns;
    struct param p[CAL_SRV_MAXP];
    int np;
    char tmp[64];
    /* The evaluation in progress. */
    struct perf_calib cand;
    int next;
    pthread_mutex_t mu;
    long evals;
    int iter;
};

/* ---- database ---- */

static int db_fail(struct ctx *c, sqlite3 *db)
{
    sim_diag_error(c->d, NULL, 0, 0, "database: %s", sqlite3_errmsg(db));
    return SIM_EDB;
}

static double col_real(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL
               ? NAN
               : sqlite3_column_double(s, i);
}

static int write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    size_t len = strlen(text);
    int bad;

    if (fp == NULL)
        return -1;
    bad = fwrite(text, 1, len, fp) != len;
    bad |= fclose(fp) != 0;
    return bad ? -1 : 0;
}

/* Reads the runs of c->g's kind and their stages, and loads each scenario
 * from a folder of its own (model.hf_config names config.json there). */
static int read_runs(struct ctx *c, sqlite3 *db)
{
    sqlite3_stmt *s = NULL;
    int rc = 0;

    if (sqlite3_prepare_v2(db,
                           "SELECT id, source, scenario, model_config FROM"
                           " serving_runs WHERE lower(gpu) = lower(?1)"
                           " ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(c, db);
    sqlite3_bind_text(s, 1, c->g->name, -1, SQLITE_STATIC);
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        struct run *r;
        const char *scn = (const char *)sqlite3_column_text(s, 2);
        const char *mc = (const char *)sqlite3_column_text(s, 3);
        char *path;

        if (c->nruns >= CAL_SRV_MAX_RUNS) {
            sim_diag_error(c->d, NULL, 0, 0, "more than %d serving runs",
                           CAL_SRV_MAX_RUNS);
            rc = SIM_EINVAL;
            break;
        }
        c->runs = xrealloc(c->runs, (size_t)(c->nruns + 1), sizeof(*r));
        r = &c->runs[c->nruns++];
        memset(r, 0, sizeof(*r));
        r->id = sqlite3_column_int64(s, 0);
        r->source = xstrdup((const char *)sqlite3_column_text(s, 1));
        r->dir = xasprintf("%s/run-%lld", c->tmp, r->id);
        if (mkdir(r->dir, 0700) != 0) {
            sim_diag_error(c->d, r->dir, 0, 0, "cannot create: %s",
                           strerror(errno));
            rc = SIM_EIO;
            break;
        }
        if (mc != NULL) {
            path = xasprintf("%s/config.json", r->dir);
            if (write_file(path, mc) != 0) {
                sim_diag_error(c->d, path, 0, 0, "cannot write");
                rc = SIM_EIO;
            }
            free(path);
        }
        path = xasprintf("%s/scenario.yaml", r->dir);
        if (rc == 0 &&
            scn_string_load(path, scn, strlen(scn), &r->scn, c->d) != 0) {
            sim_diag_error(c->d, NULL, 0, 0,
                           "serving run %lld (%s): its scenario does not "
                           "load (above); import it again",
                           r->id, r->source);
            rc = SIM_EINVAL;
        } else if (rc == 0) {
            r->loaded = 1;
            if (r->scn.calib != NULL) {
                sim_diag_error(c->d, NULL, 0, 0,
                               "serving run %lld (%s): its scenario names "
                               "hardware.calibration; the fit sets the "
                               "calibration itself",
                               r->id, r->source);
                rc = SIM_EINVAL;
            }
        }
        free(path);
        r->holdout =
            c->o->holdout != NULL && strstr(r->source, c->o->holdout) != NULL;
    }
    sqlite3_finalize(s);
    if (rc != 0)
        return rc;
    if (sqlite3_prepare_v2(db,
                           "SELECT stage, requests, failures, ttft_mean_ms,"
                           " tpot_mean_ms, e2e_mean_ms, rate, requests_per_s"
                           " FROM serving_stages"
                           " WHERE run = ?1 ORDER BY stage",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(c, db);
    for (int i = 0; i < c->nruns; i++) {
        struct run *r = &c->runs[i];

        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, r->id);
        while (sqlite3_step(s) == SQLITE_ROW) {
            struct stage *t;
            r->st = xrealloc(r->st, (size_t)(r->nst + 1), sizeof(*t));
            t = &r->st[r->nst++];
            t->stage = sqlite3_column_int(s, 0);
            t->requests = sqlite3_column_type(s, 1) == SQLITE_NULL
                              ? -1
                              : sqlite3_column_int(s, 1);
            t->failures = sqlite3_column_type(s, 2) == SQLITE_NULL
                              ? 0
                              : sqlite3_column_int(s, 2);
            for (int m = 0; m < NMETRIC; m++) {
                t->meas[m] = col_real(s, 3 + m);
                if (!(t->meas[m] > 0))
                    t->meas[m] = NAN;
            }
            {
                double rate = col_real(s, 6), done = col_real(s, 7);
                t->overloaded =
                    (t->requests > 0 &&
                     t->failures > CAL_SRV_MAX_FAILED * t->requests) ||
                    (rate > 0 && isfinite(rate) && done > 0 &&
                     done < CAL_SRV_MIN_SERVED * rate);
            }
            t->used = !t->overloaded;
        }
        r->sim = xcalloc((size_t)(r->nst > 0 ? r->nst : 1), sizeof(*r->sim));
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- evaluation ---- */

/* The candidate profile for log-ratios x: the base with the fitted keys of
 * g's entry set to p0 * exp(x), held inside their rows' ranges. */
static void set_candidate(struct ctx *c, const double *x)
{
    for (int i = 0; i < c->np; i++) {
        const struct sim_param *row = c->p[i].k.row;
        double v = c->p[i].p0 * exp(x[i]);

        if (isfinite(row->max) && v > row->max)
            v = row->max;
        if (v < row->min) /* an efficiency's floor, 0.001 */
            v = row->min;
        perf_calib_key_set(&c->p[i].k, &c->cand.gpus[c->gidx], v);
    }
}

static void run_one(struct ctx *c, struct run *r)
{
    struct cl_results res;
    struct cl_run_opts ro = {.base_dir = r->dir};
    struct sim_diag d;

    sim_diag_init(&d);
    memset(&res, 0, sizeof(res));
    r->scn.calib = &c->cand;
    r->rc = cl_run(&r->scn, &ro, &res, &d);
    r->scn.calib = NULL;
    r->err[0] = '\0';
    if (r->rc != 0) {
        snprintf(r->err, sizeof(r->err), "%s",
                 d.n > 0 ? d.v[0].msg : "the run failed");
    } else {
        for (int i = 0; i < r->nst; i++) {
            const struct cl_stage_row *row = NULL;
            for (size_t j = 0; j < res.nstages; j++)
                if (res.stages[j].stage == r->st[i].stage)
                    row = &res.stages[j];
            r->sim[i][M_TTFT] = row ? row->ttft_mean_ms : NAN;
            r->sim[i][M_TPOT] = row ? row->tpot_mean_ms : NAN;
            r->sim[i][M_E2E] = row ? row->e2e_mean_ms : NAN;
        }
        cl_results_fini(&res);
    }
    sim_diag_fini(&d);
}

static void *worker(void *arg)
{
    struct ctx *c = arg;

    for (;;) {
        int i;
        pthread_mutex_lock(&c->mu);
        while (c->next < c->nruns && !c->runs[c->next].fit_in)
            c->next++;
        i = c->next < c->nruns ? c->next++ : -1;
        pthread_mutex_unlock(&c->mu);
        if (i < 0)
            return NULL;
        run_one(c, &c->runs[i]);
    }
}

/* Runs every run with fit_in set at x, on o->threads threads. */
static void evaluate(struct ctx *c, const double *x)
{
    pthread_t th[64];
    int n = c->o->threads < 64 ? c->o->threads : 64, started = 0;

    set_candidate(c, x);
    c->next = 0;
    c->evals++;
    for (int i = 1; i < n; i++)
        if (pthread_create(&th[started], NULL, worker, c) == 0)
            started++;
    worker(c);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

/* The residual of a simulated mean against a measured one. */
static double resid(double sim, double meas, int m)
{
    if (!(sim > 0) || !isfinite(sim))
        return 1.0 / metric_tol[m]; /* as wrong as 100 % */
    return (sim / meas - 1.0) / metric_tol[m];
}

/* Number of residuals of the runs with fit_in. */
static int count_resid(const struct ctx *c)
{
    int n = 0;

    for (int i = 0; i < c->nruns; i++) {
        const struct run *r = &c->runs[i];
        if (!r->fit_in)
            continue;
        for (int s = 0; s < r->nst; s++)
            for (int m = 0; m < NMETRIC && r->st[s].used; m++)
                n += !isnan(r->st[s].meas[m]);
    }
    return n;
}

static void gather(const struct ctx *c, double *f)
{
    int n = 0;

    for (int i = 0; i < c->nruns; i++) {
        const struct run *r = &c->runs[i];
        if (!r->fit_in)
            continue;
        for (int s = 0; s < r->nst; s++)
            for (int m = 0; m < NMETRIC && r->st[s].used; m++)
                if (!isnan(r->st[s].meas[m]))
                    f[n++] = r->rc != 0
                                 ? 1.0 / metric_tol[m]
                                 : resid(r->sim[s][m], r->st[s].meas[m], m);
    }
}

static int gsl_f(const gsl_vector *xv, void *arg, gsl_vector *f)
{
    struct ctx *c = arg;
    double x[CAL_SRV_MAXP];

    for (int i = 0; i < c->np; i++)
        x[i] = gsl_vector_get(xv, (size_t)i);
    evaluate(c, x);
    gather(c, f->data);
    return GSL_SUCCESS;
}

/* Central differences of FD_STEP on every log-ratio. */
static int gsl_df(const gsl_vector *xv, void *arg, gsl_matrix *J)
{
    struct ctx *c = arg;
    size_t n = J->size1;
    double x[CAL_SRV_MAXP];
    double *fp = xmalloc(n * sizeof(*fp)), *fm = xmalloc(n * sizeof(*fm));

    for (int i = 0; i < c->np; i++)
        x[i] = gsl_vector_get(xv, (size_t)i);
    for (int j = 0; j < c->np; j++) {
        double xj = x[j];
        x[j] = xj + FD_STEP;
        evaluate(c, x);
        gather(c, fp);
        x[j] = xj - FD_STEP;
        evaluate(c, x);
        gather(c, fm);
        x[j] = xj;
        for (size_t i = 0; i < n; i++)
            gsl_matrix_set(J, i, (size_t)j, (fp[i] - fm[i]) / (2 * FD_STEP));
    }
    free(fp);
    free(fm);
    return GSL_SUCCESS;
}

static void on_iter(const size_t iter, void *arg,
                    const gsl_multifit_nlinear_workspace *w)
{
    struct ctx *c = arg;
    double chisq;

    gsl_blas_ddot(w->f, w->f, &chisq);
    c->iter = (int)iter;
    if (c->o->progress != NULL)
        fprintf(c->o->progress,
                "fit: iteration %zu, cost %.4g (%ld "
                "evaluations of every run)\n",
                iter, chisq, c->evals);
}

/* One fit's outcome. */
struct fit {
    double x[CAL_SRV_MAXP];
    double cov[CAL_SRV_MAXP][CAL_SRV_MAXP]; /* of x, scaled by s^2 */
    double colnorm[CAL_SRV_MAXP];
    int rank_drop[CAL_SRV_MAXP]; /* covariance row dropped as dependent */
    double chisq;
    int n, status, iters;
};

/* Fits the runs with fit_in from x0. Returns 0, or SIM_EINVAL with a
 * message when there are too few residuals or the solver fails. */
static int solve(struct ctx *c, const double *x0, struct fit *out, int quiet)
{
    gsl_multifit_nlinear_fdf fdf;
    gsl_multifit_nlinear_parameters fp =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w;
    gsl_matrix *cov;
    gsl_vector_view xv;
    double xs[CAL_SRV_MAXP];
    int n = count_resid(c), info = 0, st;

    memset(out, 0, sizeof(*out));
    out->n = n;
    if (n <= c->np) {
        sim_diag_error(c->d, NULL, 0, 0,
                       "%d measured means for %d parameters: too few to fit "
                       "(import more runs, or fit fewer --params)",
                       n, c->np);
        return SIM_EINVAL;
    }
    memset(&fdf, 0, sizeof(fdf));
    fdf.f = gsl_f;
    fdf.df = gsl_df;
    fdf.n = (size_t)n;
    fdf.p = (size_t)c->np;
    fdf.params = c;
    fp.trs = gsl_multifit_nlinear_trs_lm;
    fp.scale = gsl_multifit_nlinear_scale_more;
    memcpy(xs, x0, sizeof(xs));
    xv = gsl_vector_view_array(xs, (size_t)c->np);
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, (size_t)n,
                                   (size_t)c->np);
    st = gsl_multifit_nlinear_init(&xv.vector, &fdf, w);
    if (st == GSL_SUCCESS)
        st = gsl_multifit_nlinear_driver(40, 1e-4, 1e-6, 1e-6,
                                         quiet ? NULL : on_iter, c, &info, w);
    out->status = st;
    out->iters = (int)gsl_multifit_nlinear_niter(w);
    for (int i = 0; i < c->np; i++)
        out->x[i] = gsl_vector_get(gsl_multifit_nlinear_position(w), (size_t)i);
    {
        gsl_vector *f = gsl_multifit_nlinear_residual(w);
        gsl_blas_ddot(f, f, &out->chisq);
    }
    cov = gsl_matrix_alloc((size_t)c->np, (size_t)c->np);
    {
        gsl_matrix *J = gsl_multifit_nlinear_jac(w);
        double s2 = out->chisq / (double)(n - c->np);
        gsl_multifit_nlinear_covar(J, 1e-8, cov);
        for (int j = 0; j < c->np; j++) {
            gsl_vector_view col = gsl_matrix_column(J, (size_t)j);
            out->colnorm[j] = gsl_blas_dnrm2(&col.vector);
            out->rank_drop[j] = gsl_matrix_get(cov, (size_t)j, (size_t)j) == 0;
            for (int k = 0; k < c->np; k++)
                out->cov[j][k] = s2 * gsl_matrix_get(cov, (size_t)j, (size_t)k);
        }
    }
    gsl_matrix_free(cov);
    gsl_multifit_nlinear_free(w);
    /* Driver limits: 40 iterations. A stall at the limit in a noisy
     * objective is reported; the caller decides. */
    return 0;
}

/* The fitted value of parameter i for log-ratio x. */
static double value_of(const struct ctx *c, int i, double x)
{
    const struct sim_param *row = c->p[i].k.row;
    double v = c->p[i].p0 * exp(x);

    if (v < row->min) /* an efficiency's floor, 0.001 */
        v = row->min;
    return isfinite(row->max) && v > row->max ? row->max : v;
}

/* A value in its unit for the report. */
static void fmt_value(char *buf, size_t len, const struct param *p, double v)
{
    if (p->k.row->type == SIM_PT_DURATION) {
        if (v >= 1e-3)
            snprintf(buf, len, "%.4g ms", v * 1e3);
        else
            snprintf(buf, len, "%.4g us", v * 1e6);
    } else {
        snprintf(buf, len, "%.4g", v);
    }
}

/* Identifiability: a parameter whose derivative column is (near) zero,
 * or that the covariance drops as dependent, or that correlates with
 * another by more than 0.99. Returns the index of the parameter that is
 * the problem (the later of a pair), or -1, with why filled. */
static int unidentifiable(const struct ctx *c, const struct fit *f, char *why,
                          size_t len)
{
    double maxn = 0;

    for (int j = 0; j < c->np; j++)
        if (f->colnorm[j] > maxn)
            maxn = f->colnorm[j];
    for (int j = 0; j < c->np; j++)
        if (f->colnorm[j] <= 1e-3 * maxn || f->rank_drop[j]) {
            snprintf(why, len,
                     "%s is not identifiable from these runs: changing it "
                     "by %g %% moves no measured mean",
                     c->p[j].key, FD_STEP * 100);
            return j;
        }
    for (int j = 0; j < c->np; j++)
        if (sqrt(f->cov[j][j]) > CAL_SRV_MAX_REL_SE) {
            snprintf(why, len,
                     "%s is not identifiable from these runs: its standard "
                     "error is %.0f %% of its value",
                     c->p[j].key, 100 * sqrt(f->cov[j][j]));
            return j;
        }
    for (int j = 0; j < c->np; j++)
        for (int k = j + 1; k < c->np; k++) {
            double r = f->cov[j][k] / sqrt(f->cov[j][j] * f->cov[k][k]);
            if (fabs(r) > 0.99) {
                snprintf(why, len,
                         "%s and %s are not identifiable apart from these "
                         "runs (correlation %.3f)",
                         c->p[j].key, c->p[k].key, r);
                return k;
            }
        }
    return -1;
}

/* ---- report ---- */

/* Signed relative errors of run r's used stages into the report. */
static void print_errors(struct ctx *c, const struct run *r, const char *tag,
                         double sum_abs[NMETRIC], int cnt[NMETRIC],
                         double sum_sq[NMETRIC])
{
    size_t len = strlen(r->source);
    /* The end of a long path names the run. */
    const char *name = len > 44 ? r->source + len - 44 : r->source;
    const char *kind = strcmp(tag, "cv ") == 0   ? "cv"
                       : strcmp(tag, "ho ") == 0 ? "holdout"
                       : strcmp(tag, "st ") == 0 ? "start"
                                                 : "fit";

    for (int s = 0; s < r->nst; s++) {
        const struct stage *t = &r->st[s];
        fprintf(c->rep, "  %-44.44s %2d %s", name, t->stage, tag);
        if (c->err_ins != NULL && t->used && r->rc == 0) {
            sqlite3_reset(c->err_ins);
            sqlite3_bind_int64(c->err_ins, 1, r->id);
            sqlite3_bind_int(c->err_ins, 2, t->stage);
            sqlite3_bind_text(c->err_ins, 3, kind, -1, SQLITE_STATIC);
            for (int m = 0; m < NMETRIC; m++) {
                double e = r->sim[s][m] / t->meas[m] - 1.0;
                if (isfinite(e))
                    sqlite3_bind_double(c->err_ins, 4 + m, e);
                else
                    sqlite3_bind_null(c->err_ins, 4 + m);
            }
            sqlite3_step(c->err_ins);
        }
        if (!t->used) {
            fprintf(c->rep,
                    "  overloaded (%d of %d failed, or served < %.0f %% of "
                    "the rate): left out\n",
                    t->failures, t->requests, 100 * CAL_SRV_MIN_SERVED);
            continue;
        }
        if (r->rc != 0) {
            fprintf(c->rep, "  did not run: %s\n", r->err);
            continue;
        }
        for (int m = 0; m < NMETRIC; m++) {
            double e = r->sim[s][m] / t->meas[m] - 1.0;
            if (isnan(t->meas[m])) {
                fprintf(c->rep, " %8s", "-");
                continue;
            }
            fprintf(c->rep, " %+7.1f%%", 100 * e);
            if (sum_abs != NULL && isfinite(e)) {
                sum_abs[m] += fabs(e);
                sum_sq[m] += e * e;
                cnt[m]++;
            }
        }
        fputc('\n', c->rep);
    }
}

static void print_header(struct ctx *c, const char *title)
{
    fprintf(c->rep, "%s\n  %-44s %2s %s %8s %8s %8s\n", title, "run", "st",
            "   ", metric_name[M_TTFT], metric_name[M_TPOT],
            metric_name[M_E2E]);
}

static void print_mae(struct ctx *c, const char *what,
                      const double sum_abs[NMETRIC], const int cnt[NMETRIC])
{
    fprintf(c->rep, "  %s mean |error|:", what);
    for (int m = 0; m < NMETRIC; m++)
        fprintf(c->rep, " %s %.1f %%%s", metric_name[m],
                cnt[m] ? 100 * sum_abs[m] / cnt[m] : NAN,
                m + 1 < NMETRIC ? "," : "");
    fputc('\n', c->rep);
}

/* ---- profile ---- */

static int write_profile(struct ctx *c, const struct fit *f,
                         const double structural[NMETRIC], int nfit)
{
    struct perf_calib out;
    struct perf_calib_gpu *e;
    struct perf_calib_unc *u;
    FILE *fp;
    int rc;

    perf_calib_copy(&c->base, &out);
    e = &out.gpus[c->gidx];
    for (int i = 0; i < c->np; i++)
        perf_calib_key_set(&c->p[i].k, e, value_of(c, i, f->x[i]));
    u = &e->unc;
    /* The fitted keys' errors replace any the base gave for them. */
    for (int i = 0; i < c->np; i++) {
        struct perf_calib_se *se = NULL;
        double v = value_of(c, i, f->x[i]);
        for (int j = 0; j < u->nstd_errors; j++)
            if (strcmp(u->std_errors[j].key, c->p[i].key) == 0)
                se = &u->std_errors[j];
        if (se == NULL) {
            u->std_errors =
                xrealloc(u->std_errors, (size_t)(u->nstd_errors + 1),
                         sizeof(*u->std_errors));
            se = &u->std_errors[u->nstd_errors++];
            memset(se, 0, sizeof(*se));
            se->key = xstrdup(c->p[i].key);
        }
        free(se->text);
        se->text = NULL;
        se->se = v * sqrt(f->cov[i][i]); /* delta method on log(p) */
    }
    /* Drop correlations that name a fitted key; add the fit's own. */
    {
        int k = 0;
        for (int j = 0; j < u->ncorrelation; j++) {
            int named = 0;
            for (int i = 0; i < c->np; i++)
                named |= strcmp(u->correlation[j].a, c->p[i].key) == 0 ||
                         strcmp(u->correlation[j].b, c->p[i].key) == 0;
            if (named) {
                free(u->correlation[j].a);
                free(u->correlation[j].b);
            } else {
                u->correlation[k++] = u->correlation[j];
            }
        }
        u->ncorrelation = k;
    }
    for (int i = 0; i < c->np; i++)
        for (int j = i + 1; j < c->np; j++) {
            struct perf_calib_corr *r;
            double den = sqrt(f->cov[i][i] * f->cov[j][j]);
            u->correlation = xrealloc(
                u->correlation, (size_t)(u->ncorrelation + 1), sizeof(*r));
            r = &u->correlation[u->ncorrelation++];
            r->a = xstrdup(c->p[i].key);
            r->b = xstrdup(c->p[j].key);
            r->r = den > 0 ? f->cov[i][j] / den : 0.0;
            if (r->r > 1)
                r->r = 1;
            if (r->r < -1)
                r->r = -1;
        }
    u->structural.ttft = structural[M_TTFT];
    u->structural.tpot = structural[M_TPOT];
    u->structural.e2e = structural[M_E2E];
    free(u->fit);
    u->fit = xasprintf("dsec-calib %s fit --serving: %d runs, %d means "
                       "(TTFT, TPOT, E2E)",
                       PACKAGE_VERSION, nfit, f->n);
    free(out.tool);
    out.tool = xasprintf("dsec-calib %s fit --serving", PACKAGE_VERSION);
    free(out.date);
    out.date = xstrdup(c->o->date != NULL ? c->o->date : "unknown");
    free(out.raw_log);
    {
        size_t len = 1;
        char *list;
        for (int i = 0; i < c->nruns; i++)
            if (!c->runs[i].holdout)
                len += strlen(c->runs[i].source) + 2;
        list = xcalloc(len, 1);
        for (int i = 0; i < c->nruns; i++)
            if (!c->runs[i].holdout) {
                if (list[0])
                    strcat(list, ", ");
                strcat(list, c->runs[i].source);
            }
        out.raw_log = list;
    }
    fp = fopen(c->o->out_yaml, "w");
    if (fp == NULL) {
        sim_diag_error(c->d, c->o->out_yaml, 0, 0, "cannot write: %s",
                       strerror(errno));
        perf_calib_fini(&out);
        return SIM_EIO;
    }
    fprintf(fp, "# dsec calibration profile fitted by dsec-calib fit --serving"
                " (docs/calibration.md):\n"
                "# the simulator in the loop over serving benchmark runs; "
                "standard errors,\n# correlations and the structural error "
                "are under each entry's uncertainty.\n");
    rc = perf_calib_write(fp, &out);
    if (fclose(fp) != 0 || rc != 0) {
        sim_diag_error(c->d, c->o->out_yaml, 0, 0, "cannot write");
        perf_calib_fini(&out);
        return SIM_EIO;
    }
    /* Load it back with dsec's loader and compare the fitted keys. */
    {
        struct perf_calib back;
        int bad = 0;
        if (perf_calib_load(c->o->out_yaml, &back, c->d) != 0) {
            sim_diag_error(c->d, c->o->out_yaml, 0, 0,
                           "the written profile does not load (a bug in "
                           "dsec-calib: please report it)");
            perf_calib_fini(&out);
            return SIM_EINVAL;
        }
        for (int i = 0; i < c->np; i++) {
            double want = value_of(c, i, f->x[i]);
            double got = perf_calib_key_resolved(&back, c->g->name, &c->p[i].k);
            bad |= !(fabs(got - want) <= 1e-5 * fabs(want) + 1e-9);
        }
        fprintf(c->rep, "profile %s: loaded back with perf_calib_load: %s\n",
                c->o->out_yaml, bad ? "MISMATCH" : "ok");
        perf_calib_fini(&back);
        if (bad) {
            sim_diag_error(c->d, c->o->out_yaml, 0, 0,
                           "the profile does not load back to the fitted "
                           "values");
            rc = SIM_EINVAL;
        }
    }
    perf_calib_fini(&out);
    return rc;
}

static int store_fits(struct ctx *c, sqlite3 *db, const struct fit *f)
{
    sqlite3_stmt *s = NULL;
    int rc = 0;

    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(c, db);
    if (sqlite3_prepare_v2(db,
                           "DELETE FROM fits WHERE gpu = ?1 AND kind = "
                           "'serving'",
                           -1, &s, NULL) != SQLITE_OK) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return db_fail(c, db);
    }
    sqlite3_bind_text(s, 1, c->g->name, -1, SQLITE_STATIC);
    sqlite3_step(s);
    sqlite3_finalize(s);
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO fits (gpu, kind, subject, param, value,"
                           " stderr, unit, r2, npoints) VALUES (?1, 'serving',"
                           " 'step time', ?2, ?3, ?4, ?5, NULL, ?6)",
                           -1, &s, NULL) != SQLITE_OK) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return db_fail(c, db);
    }
    for (int i = 0; i < c->np && rc == 0; i++) {
        double v = value_of(c, i, f->x[i]);
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, c->g->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, c->p[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_double(s, 3, v);
        sqlite3_bind_double(s, 4, v * sqrt(f->cov[i][i]));
        sqlite3_bind_text(
            s, 5, c->p[i].k.row->type == SIM_PT_DURATION ? "s" : "fraction", -1,
            SQLITE_STATIC);
        sqlite3_bind_int(s, 6, f->n);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = db_fail(c, db);
    }
    sqlite3_finalize(s);
    sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* ---- the whole fit ---- */

static int setup(struct ctx *c, sqlite3 *db)
{
    const char *list = c->o->params ? c->o->params : CAL_SRV_DEFAULT_PARAMS;
    char *dup = xstrdup(list), *save = NULL;
    int rc = 0;

    /* The GPU kind: given, or the only one the runs have. */
    if (c->o->gpu != NULL) {
        c->g = gpu_find(c->o->gpu);
    } else {
        sqlite3_stmt *s = NULL;
        int n = 0;
        char name[64] = "";
        if (sqlite3_prepare_v2(db,
                               "SELECT DISTINCT lower(gpu) FROM serving_runs",
                               -1, &s, NULL) != SQLITE_OK) {
            free(dup);
            return db_fail(c, db);
        }
        while (sqlite3_step(s) == SQLITE_ROW)
            if (n++ == 0)
                snprintf(name, sizeof(name), "%s", sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        if (n != 1) {
            sim_diag_error(c->d, NULL, 0, 0,
                           n == 0 ? "no serving runs in the database (import "
                                    "benchmark results with dsec-calib import "
                                    "--gpu KIND first)"
                                  : "--gpu: the serving runs are of several "
                                    "GPU kinds; name the one to fit");
            free(dup);
            return n == 0 ? SIM_ENOTFOUND : SIM_EINVAL;
        }
        c->g = gpu_find(name);
    }
    if (c->g == NULL) {
        sim_diag_error(c->d, NULL, 0, 0, "--gpu: unknown GPU kind");
        free(dup);
        return SIM_EINVAL;
    }
    /* The starting profile. */
    if (c->o->base != NULL) {
        struct perf_calib b;
        if (perf_calib_load(c->o->base, &b, c->d) != 0) {
            free(dup);
            return SIM_EINVAL;
        }
        perf_calib_copy(&b, &c->base);
        perf_calib_fini(&b);
    } else {
        c->base.format = PERF_CALIB_FORMAT;
    }
    c->gidx = -1;
    for (int i = 0; i < c->base.ngpus; i++)
        if (strcasecmp(c->base.gpus[i].name, c->g->name) == 0)
            c->gidx = i;
    if (c->gidx < 0) {
        /* A new entry with nothing set: the parameter rows' defaults are
         * "unset" (NAN, -1). */
        struct perf_calib_gpu *e;
        char err[SIM_PARAM_ERRLEN];
        c->base.gpus =
            xrealloc(c->base.gpus, (size_t)(c->base.ngpus + 1), sizeof(*e));
        e = &c->base.gpus[c->base.ngpus];
        memset(e, 0, sizeof(*e));
        if (sim_param_defaults(perf_calib_gpu_rows, e, err, sizeof(err)) != 0)
            sim_fatal("calibration rows: %s", err);
        e->name = xstrdup(c->g->name);
        c->gidx = c->base.ngpus++;
    }
    /* The parameters and their starts. */
    for (char *k = strtok_r(dup, ", ", &save); k != NULL && rc == 0;
         k = strtok_r(NULL, ", ", &save)) {
        struct param *p;
        if (c->np >= CAL_SRV_MAXP) {
            sim_diag_error(c->d, NULL, 0, 0, "--params: at most %d keys",
                           CAL_SRV_MAXP);
            rc = SIM_EINVAL;
            break;
        }
        p = &c->p[c->np];
        snprintf(p->key, sizeof(p->key), "%s", k);
        for (int i = 0; i < c->np; i++)
            if (strcmp(c->p[i].key, k) == 0) {
                sim_diag_error(c->d, NULL, 0, 0, "--params: %s twice", k);
                rc = SIM_EINVAL;
            }
        if (rc == 0 && perf_calib_key_find(k, 0, &p->k) != 0) {
            sim_diag_error(c->d, NULL, 0, 0,
                           "--params: '%s' is not a numeric key of a GPU "
                           "entry of the calibration profile "
                           "(docs/step-time.md \"Calibration profile\")",
                           k);
            rc = SIM_EINVAL;
        }
        if (rc == 0) {
            p->p0 = perf_calib_key_resolved(&c->base, c->g->name, &p->k);
            if (!(p->p0 > 0)) {
                sim_diag_error(c->d, NULL, 0, 0,
                               "--params: %s starts at %g; the fit moves "
                               "positive values (give a start with "
                               "--calibration)",
                               k, p->p0);
                rc = SIM_EINVAL;
            }
        }
        c->np++;
    }
    free(dup);
    if (rc == 0 && c->np == 0) {
        sim_diag_error(c->d, NULL, 0, 0, "--params: no keys given");
        rc = SIM_EINVAL;
    }
    return rc;
}

/* Structural error per metric from the cross-validated errors e (relative,
 * per used mean) less the parameters' share: sqrt(max(0, mean e^2 - mean
 * var_param)); var_param of each prediction is g^T C g from the full fit's
 * derivatives g. */
struct cv_acc {
    double sq[NMETRIC];
    double var[NMETRIC];
    int n[NMETRIC];
};

int cal_srv_fit(sqlite3 *db, const struct cal_srv_opts *o, struct sim_diag *d)
{
    struct ctx c;
    struct fit full;
    double x0[CAL_SRV_MAXP] = {0};
    double structural[NMETRIC] = {NAN, NAN, NAN};
    double sabs[NMETRIC] = {0}, ssq[NMETRIC] = {0};
    int cnt[NMETRIC] = {0}, nfit = 0, rc;

    memset(&c, 0, sizeof(c));
    c.o = o;
    c.d = d;
    c.rep = o->report;
    pthread_mutex_init(&c.mu, NULL);
    snprintf(c.tmp, sizeof(c.tmp), "%s", "/tmp/dsec-calib-XXXXXX");
    {
        const char *t = NULL;
        /* TMPDIR is the command line tool's environment, not the model's. */
        t = getenv("TMPDIR");
        if (t != NULL && *t && strlen(t) < sizeof(c.tmp) - 20)
            snprintf(c.tmp, sizeof(c.tmp), "%s/dsec-calib-XXXXXX", t);
    }
    if (mkdtemp(c.tmp) == NULL) {
        sim_diag_error(d, c.tmp, 0, 0, "cannot create a temporary folder: %s",
                       strerror(errno));
        return SIM_EIO;
    }
    rc = setup(&c, db);
    if (rc == 0)
        rc = read_runs(&c, db);
    /* The signed errors of this fit, for scripts (docs/calibration.md):
     * the table holds the latest fit's. */
    c.db = db;
    if (rc == 0 &&
        (sqlite3_exec(db,
                      "CREATE TABLE IF NOT EXISTS serving_errors (run INTEGER"
                      " NOT NULL, stage INTEGER NOT NULL, kind TEXT NOT NULL,"
                      " ttft REAL, tpot REAL, e2e REAL);"
                      "DELETE FROM serving_errors;",
                      NULL, NULL, NULL) != SQLITE_OK ||
         sqlite3_prepare_v2(db,
                            "INSERT INTO serving_errors VALUES (?1, ?2, ?3, "
                            "?4, ?5, ?6)",
                            -1, &c.err_ins, NULL) != SQLITE_OK))
        rc = db_fail(&c, db);
    if (rc == 0 && c.nruns == 0) {
        sim_diag_error(d, NULL, 0, 0,
                       "no serving runs for GPU kind '%s' (import benchmark "
                       "results with dsec-calib import --gpu %s first)",
                       c.g->name, c.g->name);
        rc = SIM_ENOTFOUND;
    }
    if (rc != 0)
        goto out;
    perf_calib_copy(&c.base, &c.cand);
    for (int i = 0; i < c.nruns; i++) {
        c.runs[i].fit_in = !c.runs[i].holdout;
        nfit += c.runs[i].fit_in;
    }
    {
        int used = 0, all = 0;
        for (int i = 0; i < c.nruns; i++)
            for (int s = 0; s < c.runs[i].nst; s++) {
                all++;
                used += c.runs[i].st[s].used;
            }
        fprintf(c.rep,
                "dsec-calib fit --serving: %s, %d runs (%d fitted, %d held "
                "out), %d stages (%d overloaded, left out), %d parameters\n"
                "residuals: relative errors of the stage means over their "
                "tolerance: TTFT / %.2f, TPOT / %.2f, E2E / %.2f; %d threads\n",
                c.g->name, c.nruns, nfit, c.nruns - nfit, all, all - used, c.np,
                CAL_SRV_TOL_TTFT, CAL_SRV_TOL_TPOT, CAL_SRV_TOL_E2E,
                o->threads);
    }
    if (nfit == 0) {
        sim_diag_error(d, NULL, 0, 0, "--holdout: every run is held out");
        rc = SIM_EINVAL;
        goto out;
    }
    /* The start, for the report. */
    evaluate(&c, x0);
    for (int i = 0; i < c.nruns; i++)
        if (c.runs[i].fit_in && c.runs[i].rc != 0) {
            sim_diag_error(d, NULL, 0, 0,
                           "serving run %s does not run at the start: %s",
                           c.runs[i].source, c.runs[i].err);
            rc = SIM_EINVAL;
        }
    if (rc != 0)
        goto out;
    print_header(&c, "start (signed errors, simulated / measured - 1):");
    for (int i = 0; i < c.nruns; i++)
        if (c.runs[i].fit_in)
            print_errors(&c, &c.runs[i], "st ", sabs, cnt, ssq);
    print_mae(&c, "start", sabs, cnt);
refit:
    rc = solve(&c, x0, &full, 0);
    if (rc != 0)
        goto out;
    if (full.status != GSL_SUCCESS && full.status != GSL_EMAXITER) {
        sim_diag_error(d, NULL, 0, 0,
                       "the fit did not converge: %s after %d iterations "
                       "(cost %.4g)",
                       gsl_strerror(full.status), full.iters, full.chisq);
        rc = SIM_EINVAL;
        goto out;
    }
    fprintf(c.rep,
            "fit: %s after %d iterations, %ld evaluations, "
            "cost %.4g over %d means\n",
            full.status == GSL_SUCCESS ? "converged"
                                       : "stopped at the iteration limit",
            full.iters, c.evals, full.chisq, full.n);
    {
        char why[256];
        int j = unidentifiable(&c, &full, why, sizeof(why));
        if (j >= 0 && o->params != NULL) {
            sim_diag_error(d, NULL, 0, 0,
                           "--params: %s; fit fewer keys, or add runs that "
                           "tell them apart (other models, batch sizes, "
                           "prompt lengths, cache hit rates)",
                           why);
            rc = SIM_EINVAL;
            goto out;
        }
        if (j >= 0) {
            char v[32];
            fmt_value(v, sizeof(v), &c.p[j], c.p[j].p0);
            fprintf(c.rep,
                    "note: %s; %s is held at its start, %s, and the "
                    "rest refitted\n",
                    why, c.p[j].key, v);
            /* The held key's value in the candidate: the base's again
             * (both kinds of key are 8 bytes). */
            memcpy((char *)&c.cand.gpus[c.gidx] + c.p[j].k.offset,
                   (const char *)&c.base.gpus[c.gidx] + c.p[j].k.offset, 8);
            for (int i = j; i + 1 < c.np; i++)
                c.p[i] = c.p[i + 1];
            c.np--;
            if (c.np == 0) {
                sim_diag_error(d, NULL, 0, 0,
                               "no parameter is identifiable from these "
                               "runs");
                rc = SIM_EINVAL;
                goto out;
            }
            goto refit;
        }
    }
    fprintf(c.rep, "parameters (value +- standard error; start):\n");
    for (int i = 0; i < c.np; i++) {
        char v[32], se[32], st[32];
        double val = value_of(&c, i, full.x[i]);
        fmt_value(v, sizeof(v), &c.p[i], val);
        fmt_value(se, sizeof(se), &c.p[i], val * sqrt(full.cov[i][i]));
        fmt_value(st, sizeof(st), &c.p[i], c.p[i].p0);
        fprintf(c.rep, "  %-28s %12s +- %-10s (start %s)%s\n", c.p[i].key, v,
                se, st,
                isfinite(c.p[i].k.row->max) && val >= c.p[i].k.row->max
                    ? "  at its upper bound"
                    : "");
    }
    fprintf(c.rep, "correlations:\n");
    for (int i = 0; i < c.np; i++) {
        fprintf(c.rep, "  %-28s", c.p[i].key);
        for (int j = 0; j <= i; j++)
            fprintf(c.rep, " %+6.2f",
                    full.cov[i][j] / sqrt(full.cov[i][i] * full.cov[j][j]));
        fputc('\n', c.rep);
    }
    /* Residuals at the fit, and the held-out runs' predictions. */
    for (int i = 0; i < c.nruns; i++)
        c.runs[i].fit_in = 1;
    evaluate(&c, full.x);
    memset(sabs, 0, sizeof(sabs));
    memset(ssq, 0, sizeof(ssq));
    memset(cnt, 0, sizeof(cnt));
    print_header(&c, "fit (signed errors):");
    for (int i = 0; i < c.nruns; i++)
        if (!c.runs[i].holdout)
            print_errors(&c, &c.runs[i], "   ", sabs, cnt, ssq);
    print_mae(&c, "fit", sabs, cnt);
    if (nfit < c.nruns) {
        double habs[NMETRIC] = {0}, hsq[NMETRIC] = {0};
        int hcnt[NMETRIC] = {0};
        print_header(&c, "held out (predicted with the fit):");
        for (int i = 0; i < c.nruns; i++)
            if (c.runs[i].holdout)
                print_errors(&c, &c.runs[i], "ho ", habs, hcnt, hsq);
        print_mae(&c, "held out", habs, hcnt);
    }
    /* Leave one run out: refit without it, predict it. */
    if (o->loo && nfit >= 2) {
        struct cv_acc acc;
        double cabs[NMETRIC] = {0}, csq[NMETRIC] = {0};
        int ccnt[NMETRIC] = {0}, k = 0;

        memset(&acc, 0, sizeof(acc));
        print_header(&c, "leave one run out (each run predicted by a fit "
                         "without it; the honest figure):");
        for (int i = 0; i < c.nruns; i++) {
            struct fit lf;
            struct run *r = &c.runs[i];
            if (r->holdout)
                continue;
            k++;
            if (o->progress != NULL)
                fprintf(o->progress, "leave-one-out: run %d of %d (%s)\n", k,
                        nfit, r->source);
            for (int j = 0; j < c.nruns; j++)
                c.runs[j].fit_in = !c.runs[j].holdout && j != i;
            if (solve(&c, full.x, &lf, 1) != 0) {
                fprintf(c.rep, "  %-44.44s    too few means without it\n",
                        r->source);
                /* solve() said why; the run is reported instead. */
                sim_diag_fini(d);
                sim_diag_init(d);
                continue;
            }
            for (int j = 0; j < c.nruns; j++)
                c.runs[j].fit_in = j == i;
            evaluate(&c, lf.x);
            print_errors(&c, r, "cv ", cabs, ccnt, csq);
            /* The parameters' share of each prediction's variance:
             * g^T C g with g the derivative of log(sim) by x at the full
             * fit, from two more evaluations per parameter. */
            {
                double gsim[CAL_SRV_MAXP][64][NMETRIC];
                int ns = r->nst < 64 ? r->nst : 64;
                double base_sim[64][NMETRIC];
                double xx[CAL_SRV_MAXP];
                memcpy(xx, full.x, sizeof(xx));
                for (int s = 0; s < ns; s++)
                    for (int m = 0; m < NMETRIC; m++)
                        base_sim[s][m] = r->sim[s][m];
                for (int j = 0; j < c.np; j++) {
                    double hi[64][NMETRIC];
                    xx[j] = full.x[j] + FD_STEP;
                    evaluate(&c, xx);
                    for (int s = 0; s < ns; s++)
                        for (int m = 0; m < NMETRIC; m++)
                            hi[s][m] = r->sim[s][m];
                    xx[j] = full.x[j] - FD_STEP;
                    evaluate(&c, xx);
                    for (int s = 0; s < ns; s++)
                        for (int m = 0; m < NMETRIC; m++)
                            gsim[j][s][m] =
                                (log(hi[s][m]) - log(r->sim[s][m])) /
                                (2 * FD_STEP);
                    xx[j] = full.x[j];
                }
                for (int s = 0; s < ns; s++) {
                    const struct stage *t = &r->st[s];
                    if (!t->used || r->rc != 0)
                        continue;
                    for (int m = 0; m < NMETRIC; m++) {
                        double e = base_sim[s][m] / t->meas[m] - 1.0, v = 0;
                        if (isnan(t->meas[m]) || !isfinite(e))
                            continue;
                        for (int a = 0; a < c.np; a++)
                            for (int b = 0; b < c.np; b++)
                                v += gsim[a][s][m] * full.cov[a][b] *
                                     gsim[b][s][m];
                        acc.sq[m] += log1p(e) * log1p(e);
                        acc.var[m] += isfinite(v) ? v : 0;
                        acc.n[m]++;
                    }
                }
            }
        }
        print_mae(&c, "cross-validated", cabs, ccnt);
        for (int m = 0; m < NMETRIC; m++)
            if (acc.n[m] > 0) {
                double v = (acc.sq[m] - acc.var[m]) / acc.n[m];
                structural[m] = v > 0 ? sqrt(v) : 0.0;
            }
        fprintf(c.rep,
                "structural error (the model's own, from the cross-validated "
                "errors less the parameters' share; relative sd): TTFT %.3f, "
                "TPOT %.3f, E2E %.3f\n",
                structural[M_TTFT], structural[M_TPOT], structural[M_E2E]);
    } else {
        /* No cross-validation: the fit's own residuals, corrected for the
         * degrees of freedom the parameters used. */
        for (int m = 0; m < NMETRIC; m++)
            if (cnt[m] > 0) {
                double dof = (double)full.n / (double)(full.n - c.np);
                structural[m] = sqrt(ssq[m] / cnt[m] * dof);
            }
        fprintf(c.rep,
                "structural error (from the fit's residuals, no "
                "cross-validation; relative sd): TTFT %.3f, TPOT %.3f, E2E "
                "%.3f\n",
                structural[M_TTFT], structural[M_TPOT], structural[M_E2E]);
    }
    rc = store_fits(&c, db, &full);
    if (rc == 0 && o->out_yaml != NULL)
        rc = write_profile(&c, &full, structural, nfit);
out:
    for (int i = 0; i < c.nruns; i++) {
        struct run *r = &c.runs[i];
        char *p;
        if (r->loaded)
            cl_scenario_fini(&r->scn);
        p = xasprintf("%s/config.json", r->dir);
        unlink(p);
        free(p);
        p = xasprintf("%s/scenario.yaml", r->dir);
        unlink(p);
        free(p);
        rmdir(r->dir);
        free(r->dir);
        free(r->source);
        free(r->st);
        free(r->sim);
    }
    free(c.runs);
    sqlite3_finalize(c.err_ins);
    rmdir(c.tmp);
    perf_calib_fini(&c.base);
    perf_calib_fini(&c.cand);
    pthread_mutex_destroy(&c.mu);
    return rc;
}
