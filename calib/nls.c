/* Least-squares fits of the calibration models with GSL's trust-region
 * nonlinear solver (gsl_multifit_nlinear, Levenberg-Marquardt steps).
 * Residuals are relative, (model - t) / t: the sweeps span five orders of
 * magnitude of time, and absolute residuals would let the largest sizes
 * decide alone. Standard errors are the square roots of the diagonal of
 * (J^T J)^-1 scaled by chi^2 / (n - p), the usual estimate when the
 * measurement error is unknown (GSL manual, "Nonlinear Least-Squares
 * Fitting", covariance of the best fit parameters); the whole scaled
 * covariance is kept, so that the profile can carry the correlations of
 * parameters fitted together. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "calib/cal.h"
#include "base/errors.h"

/* A model: prediction at point i and its gradient over all np parameters
 * (g has np entries). */
typedef double (*model_fn)(const double *p, int i, const void *data, double *g);

struct problem {
    model_fn f;
    const void *data;
    const double *t;
    int n;
    int np;                 /* all parameters */
    double p[CAL_FIT_MAXP]; /* current full vector */
    const int *fixed;
    int map[CAL_FIT_MAXP]; /* free index -> full index */
    int nfree;
};

static void unpack(struct problem *pb, const gsl_vector *x)
{
    for (int j = 0; j < pb->nfree; j++)
        pb->p[pb->map[j]] = gsl_vector_get(x, (size_t)j);
}

static int resid_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    struct problem *pb = params;
    double g[CAL_FIT_MAXP];

    unpack(pb, x);
    for (int i = 0; i < pb->n; i++)
        gsl_vector_set(f, (size_t)i,
                       (pb->f(pb->p, i, pb->data, g) - pb->t[i]) / pb->t[i]);
    return GSL_SUCCESS;
}

static int resid_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
    struct problem *pb = params;
    double g[CAL_FIT_MAXP];

    unpack(pb, x);
    for (int i = 0; i < pb->n; i++) {
        pb->f(pb->p, i, pb->data, g);
        for (int j = 0; j < pb->nfree; j++)
            gsl_matrix_set(J, (size_t)i, (size_t)j, g[pb->map[j]] / pb->t[i]);
    }
    return GSL_SUCCESS;
}

/* Fits the free parameters of p0 (np in all). Returns 0 or SIM_EINVAL. */
static int solve(model_fn f, const void *data, const double *t, int n, int np,
                 const double *p0, const int *fixed, struct cal_fit *out)
{
    struct problem pb;
    gsl_multifit_nlinear_fdf fdf;
    gsl_multifit_nlinear_parameters fp =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w;
    gsl_vector_view xv;
    double x0[CAL_FIT_MAXP], g[CAL_FIT_MAXP], chisq, mean = 0, sst = 0, ssr = 0;
    int info = 0, rc;

    memset(&pb, 0, sizeof(pb));
    pb.f = f;
    pb.data = data;
    pb.t = t;
    pb.n = n;
    pb.np = np;
    pb.fixed = fixed;
    for (int j = 0; j < np; j++) {
        pb.p[j] = p0[j];
        if (!fixed[j]) {
            x0[pb.nfree] = p0[j];
            pb.map[pb.nfree++] = j;
        }
    }
    if (n <= pb.nfree || pb.nfree == 0)
        return SIM_EINVAL;
    for (int i = 0; i < n; i++)
        if (!(t[i] > 0) || !isfinite(t[i]))
            return SIM_EINVAL;
    fdf.f = resid_f;
    fdf.df = resid_df;
    fdf.fvv = NULL;
    fdf.n = (size_t)n;
    fdf.p = (size_t)pb.nfree;
    fdf.params = &pb;
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, (size_t)n,
                                   (size_t)pb.nfree);
    xv = gsl_vector_view_array(x0, (size_t)pb.nfree);
    rc = gsl_multifit_nlinear_init(&xv.vector, &fdf, w);
    if (rc == GSL_SUCCESS)
        rc = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 0.0, NULL, NULL,
                                         &info, w);
    if (rc != GSL_SUCCESS) {
        gsl_multifit_nlinear_free(w);
        return SIM_EINVAL;
    }
    gsl_matrix *covar = gsl_matrix_alloc((size_t)pb.nfree, (size_t)pb.nfree);
    gsl_vector *res = gsl_multifit_nlinear_residual(w);
    gsl_blas_ddot(res, res, &chisq);
    gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, covar);
    unpack(&pb, gsl_multifit_nlinear_position(w));
    memset(out, 0, sizeof(*out));
    out->np = np;
    out->npoints = n;
    out->chisq = chisq;
    for (int j = 0; j < np; j++) {
        out->p[j] = pb.p[j];
        out->fixed[j] = fixed[j];
    }
    for (int i = 0; i < pb.nfree; i++)
        for (int j = 0; j < pb.nfree; j++)
            out->cov[pb.map[i]][pb.map[j]] =
                chisq / (n - pb.nfree) *
                gsl_matrix_get(covar, (size_t)i, (size_t)j);
    for (int j = 0; j < pb.nfree; j++)
        out->se[pb.map[j]] = sqrt(out->cov[pb.map[j]][pb.map[j]]);
    gsl_matrix_free(covar);
    gsl_multifit_nlinear_free(w);
    /* R^2 of the times themselves (not of the relative residuals), so it
     * reads as usual: the share of the variance in t the model explains. */
    for (int i = 0; i < n; i++)
        mean += t[i] / n;
    for (int i = 0; i < n; i++) {
        double e = f(out->p, i, data, g) - t[i];

        ssr += e * e;
        sst += (t[i] - mean) * (t[i] - mean);
    }
    out->r2 = sst > 0 ? 1 - ssr / sst : 1;
    for (int j = 0; j < np; j++)
        if (!isfinite(out->p[j]) || !isfinite(out->se[j]))
            return SIM_EINVAL;
    return 0;
}

double cal_fit_corr(const struct cal_fit *f, int i, int j)
{
    double den = f->se[i] * f->se[j], r;

    if (f->fixed[i] || f->fixed[j] || !(den > 0))
        return 0;
    if (i == j)
        return 1;
    r = f->cov[i][j] / den;
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

/* ---- alpha-beta ---------------------------------------------------- */

struct ab_data {
    const double *x;
};

/* p[0] alpha (us), p[1] G = us per MB (10^6 bytes) = 1000 / B(GB/s); a
 * model linear in its parameters, so the solver converges in a step. */
static double ab_model(const double *p, int i, const void *data, double *g)
{
    const struct ab_data *d = data;
    double mb = d->x[i] / 1e6;

    g[0] = 1;
    g[1] = mb;
    return p[0] + mb * p[1];
}

int cal_fit_alpha_beta(const double *x_bytes, const double *t_us, int n,
                       struct cal_fit *out)
{
    struct ab_data d = {x_bytes};
    double p0[2], lo = 0, hi = 0;
    int fixed[2] = {0, 0}, ilo = 0, ihi = 0, rc;

    if (n < 3)
        return SIM_EINVAL;
    for (int i = 0; i < n; i++) {
        if (!(x_bytes[i] >= 0) || !(t_us[i] > 0))
            return SIM_EINVAL;
        if (x_bytes[i] < x_bytes[ilo])
            ilo = i;
        if (x_bytes[i] > x_bytes[ihi])
            ihi = i;
    }
    lo = x_bytes[ilo];
    hi = x_bytes[ihi];
    if (hi <= lo)
        return SIM_EINVAL;
    /* Start: the line through the smallest and largest points. */
    p0[1] = (t_us[ihi] - t_us[ilo]) / ((hi - lo) / 1e6);
    p0[0] = t_us[ilo] - lo / 1e6 * p0[1];
    if (!(p0[1] > 0))
        p0[1] = 1;
    rc = solve(ab_model, &d, t_us, n, 2, p0, fixed, out);
    if (rc != 0)
        return rc;
    if (!(out->p[1] > 0))
        return SIM_EINVAL;
    /* Report B in GB/s: B = 1000 / G, its error and covariance by the
     * delta method (dB/dG = -1000 / G^2, so alpha and B correlate with
     * the opposite sign of alpha and G). */
    double G = out->p[1], dB = -1e3 / (G * G);
    out->p[1] = 1e3 / G;
    out->se[1] = fabs(dB) * out->se[1];
    out->cov[0][1] = out->cov[1][0] = dB * out->cov[0][1];
    out->cov[1][1] = dB * dB * out->cov[1][1];
    return 0;
}

/* ---- GEMM ---------------------------------------------------------- */

struct gemm_data {
    const double *m, *n, *k;
    double eb, peak, hbm;
};

double cal_gemm_model_us(const double *p, double m, double n, double k,
                         double elem_bytes, double peak_flops,
                         double hbm_bytes_per_s)
{
    double flops = 2 * m * n * k;
    double bytes = elem_bytes * (m * k + k * n + m * n);
    double tc = flops * (m + p[1]) / (p[0] * m * peak_flops) * 1e6;
    double tm = bytes / (p[2] * hbm_bytes_per_s) * 1e6;

    return (tc > tm ? tc : tm) + p[3];
}

static double gemm_model(const double *p, int i, const void *data, double *g)
{
    const struct gemm_data *d = data;
    double m = d->m[i], n = d->n[i], k = d->k[i];
    double flops = 2 * m * n * k;
    double bytes = d->eb * (m * k + k * n + m * n);
    double tc = flops * (m + p[1]) / (p[0] * m * d->peak) * 1e6;
    double tm = bytes / (p[2] * d->hbm) * 1e6;

    g[3] = 1;
    if (tc >= tm) {
        g[0] = -tc / p[0];
        g[1] = flops / (p[0] * m * d->peak) * 1e6;
        g[2] = 0;
        return tc + p[3];
    }
    g[0] = g[1] = 0;
    g[2] = -tm / p[2];
    return tm + p[3];
}

/* Efficiencies in (0, 1], M_half >= 0, kernel time not significantly
 * negative (it is clamped to 0 in the profile). */
static int gemm_in_range(const struct cal_fit *f)
{
    return f->p[0] > 0 && f->p[0] <= 1 && f->p[1] >= 0 && f->p[2] > 0 &&
           f->p[2] <= 1 && f->p[3] > -3 * f->se[3];
}

int cal_fit_gemm(const double *m, const double *n, const double *k,
                 const double *t_us, int npts, double elem_bytes,
                 double peak_flops, double hbm_bytes_per_s, int fix_mem,
                 double e_mem0, struct cal_fit *out)
{
    struct gemm_data d = {m, n, k, elem_bytes, peak_flops, hbm_bytes_per_s};
    /* Start from dsec's built-in curve (docs/step-time.md): 0.74, 80
     * tokens, and a few microseconds per kernel. */
    double p0[4] = {0.74, 80, e_mem0, 5};
    int fixed[4] = {0, 0, fix_mem, 0}, rc;

    if (npts < 5 || !(peak_flops > 0) || !(hbm_bytes_per_s > 0))
        return SIM_EINVAL;
    for (int i = 0; i < npts; i++)
        if (!(m[i] >= 1) || !(n[i] >= 1) || !(k[i] >= 1))
            return SIM_EINVAL;
    rc = solve(gemm_model, &d, t_us, npts, 4, p0, fixed, out);
    /* With few shapes the two sides of the max() can trade off (a large
     * M_half mimics the memory side): a free fit may then leave the
     * physical range. Refit with the HBM fraction held, then give up. */
    if (rc == 0 && !gemm_in_range(out) && !fix_mem) {
        fixed[2] = 1;
        rc = solve(gemm_model, &d, t_us, npts, 4, p0, fixed, out);
    }
    if (rc == 0 && !gemm_in_range(out))
        rc = SIM_ERANGE;
    return rc;
}
