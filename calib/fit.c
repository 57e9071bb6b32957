/* dsec-calib fit: groups the raw points of one GPU kind, fits each group
 * (calib/nls.c), stores the fits, prints the report, draws the charts and
 * writes the calibration profile that dsec loads (docs/step-time.md
 * "Calibration profile"), which it then loads back with perf_calib_load().
 *
 * What goes where (docs/calibration.md "From fits to the profile"):
 * - nccl-tests: t = alpha + S * f / B with f the bus-bandwidth factor of
 *   the collective over its ranks (docs/sources.md §3.3), so B is the bus
 *   bandwidth, comparable to the bottleneck link; within one host it is the
 *   GPU's intra-node link, across hosts the inter-node link with one NIC
 *   per GPU (B / GPUs-per-host per NIC, docs/sources.md §2.3 derived bound).
 * The per-step alpha of net.h is (alpha - NCCL's 14 us base latency) over the
 *   ring's steps (2(p-1) for all-reduce, p-1 otherwise; docs/sources.md §2.2,
 *   §3.2).
 * - perftest: ib_write_lat gives the inter-node alpha (one-way, docs/sources.md
 *   §10.2), ib_write_bw its bandwidth; they win over multi-host NCCL.
 * - bandwidthTest, nvbandwidth and dsec-calib copies: PCIe (H2D, D2H) and
 *   peer copies; nvbandwidth prints one size only, so only a bandwidth.
 * - dsec-calib hbm: the streaming-copy bandwidth over the datasheet HBM
 *   peak is the elementwise HBM fraction, its alpha the kernel time.
 * - dsec-calib gemm (bf16): eta_max, M_half, the memory-bound HBM fraction
 *   and the kernel time of dsec's GEMM cost (cal_fit_gemm()).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "calib/cal.h"
#include "models/gpu/gpu.h"
#include "models/net/net.h"
#include "models/perf/calib.h"
#include "base/errors.h"

/* Link priorities for the intra-node entry: all-reduce first (what TP
 * layers run), then the others. */
static const char *const coll_order[] = {
    "all_reduce_perf", "reduce_scatter_perf", "all_gather_perf",
    "alltoall_perf",   "sendrecv_perf",       NULL};

struct series {
    double *x, *t, *m, *n, *k;
    int len, cap;
};

static void series_add(struct series *s, double x, double t, double m, double n,
                       double k)
{
    if (s->len == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->x = xrealloc(s->x, (size_t)s->cap, sizeof(double));
        s->t = xrealloc(s->t, (size_t)s->cap, sizeof(double));
        s->m = xrealloc(s->m, (size_t)s->cap, sizeof(double));
        s->n = xrealloc(s->n, (size_t)s->cap, sizeof(double));
        s->k = xrealloc(s->k, (size_t)s->cap, sizeof(double));
    }
    s->x[s->len] = x;
    s->t[s->len] = t;
    s->m[s->len] = m;
    s->n[s->len] = n;
    s->k[s->len] = k;
    s->len++;
}

static void series_free(struct series *s)
{
    free(s->x);
    free(s->t);
    free(s->m);
    free(s->n);
    free(s->k);
    memset(s, 0, sizeof(*s));
}

/* A link figure proposed for the profile, with the errors of the fit it
 * came from (NAN when not measured or not fitted). */
struct link_prop {
    int set;
    int rank;            /* lower wins */
    double alpha_us;     /* per step, clamped at 0; NAN when not measured */
    double alpha_fit_us; /* per step before the clamp */
    double se_alpha_us;
    double gbps; /* achieved, per direction; NAN when not measured */
    double se_gbps;
    double r; /* correlation of alpha and gbps (one fit), else 0 */
    char from[160];
    char fit[240]; /* the source for uncertainty.fit: group, points */
};

/* The standard errors and correlations of one profile entry as written:
 * keys of the entry, errors in plain units (fractions, tokens, seconds,
 * B/s), correlations rounded as written. */
#define UNC_MAXK 8
enum unc_unit { UNC_PLAIN, UNC_US, UNC_GBPS };
struct unc_out {
    int n;
    const char *key[UNC_MAXK]; /* static */
    double se[UNC_MAXK];
    enum unc_unit unit[UNC_MAXK];
    double r[UNC_MAXK][UNC_MAXK]; /* 0: independent */
    char fit[640];
};

/* A link entry as written; name NULL when it is not. */
struct link_out {
    const char *name; /* catalog class, static */
    int has_alpha, has_b, over;
    double alpha_us, gbps, efficiency;
    char comment[400];
    struct unc_out unc;
};

struct ctx {
    sqlite3 *db;
    const struct cal_fit_opts *o;
    const struct gpu_spec *g;
    struct sim_diag *d;
    int nfits;
    struct link_prop intra, inter, inter_alpha, pcie;
    int have_gemm, gemm_mem_free, have_hbm, hbm_rank;
    struct cal_fit gemm, hbm;
    double hbm_frac, hbm_kernel_us;
    char hbm_from[160], gemm_fit[240], hbm_fit[240];
    FILE *rep;
    /* What write_profile() wrote, for verify_profile(). */
    struct unc_out gpu_unc;
    struct link_out links[3];
    int nlinks;
};

static int store(struct ctx *c, const char *kind, const char *subject,
                 const char *param, double v, double se, const char *unit,
                 double r2, int npoints)
{
    static const char sql[] =
        "INSERT INTO fits (gpu, kind, subject, param, value, stderr, unit,"
        " r2, npoints) VALUES (?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *s = NULL;
    int rc;

    if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK) {
        sim_diag_error(c->d, NULL, 0, 0, "database: %s", sqlite3_errmsg(c->db));
        return SIM_EDB;
    }
    sqlite3_bind_text(s, 1, c->g->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, subject, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, param, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 5, v);
    if (isfinite(se))
        sqlite3_bind_double(s, 6, se);
    else
        sqlite3_bind_null(s, 6);
    sqlite3_bind_text(s, 7, unit, -1, SQLITE_STATIC);
    if (isfinite(r2))
        sqlite3_bind_double(s, 8, r2);
    else
        sqlite3_bind_null(s, 8);
    sqlite3_bind_int(s, 9, npoints);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        sim_diag_error(c->d, NULL, 0, 0, "database: %s", sqlite3_errmsg(c->db));
        return SIM_EDB;
    }
    c->nfits++;
    return 0;
}

/* Appends to the string buf of size bytes, truncating. */
__attribute__((format(printf, 3, 4))) static void
appendf(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;

    if (len + 1 >= size)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

/* "all_reduce_perf out-of-place 8r 1h" -> "all_reduce_perf-out-of-place-8r-1h"
 * for file names. */
static void slug(char *dst, size_t len, const char *subject)
{
    size_t i = 0;

    for (; subject[i] && i + 1 < len; i++) {
        unsigned char ch = (unsigned char)subject[i];
        dst[i] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                         (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'
                     ? (char)ch
                     : '-';
    }
    dst[i] = '\0';
}

/* Writes DIR/SLUG.dat (x, measured, fitted) and DIR/SLUG.gp and runs
 * gnuplot on it, log-log axes. Failures are warnings: charts are extras. */
static void chart(struct ctx *c, const char *subject, const char *xlabel,
                  const char *ylabel, const double *x, const double *y,
                  const double *fy, int n)
{
    char base[200], *dat, *gp, *png;
    FILE *fp;

    if (!c->o->chart_dir)
        return;
    slug(base, sizeof(base), subject);
    dat = xasprintf("%s/%s.dat", c->o->chart_dir, base);
    gp = xasprintf("%s/%s.gp", c->o->chart_dir, base);
    png = xasprintf("%s/%s.png", c->o->chart_dir, base);
    fp = fopen(dat, "w");
    if (fp) {
        fprintf(fp, "# %s: %s, measured, fitted\n", subject, xlabel);
        for (int i = 0; i < n; i++)
            fprintf(fp, "%.9g %.9g %.9g\n", x[i], y[i], fy[i]);
        fclose(fp);
    }
    fp = fopen(gp, "w");
    if (fp) {
        fprintf(fp,
                "set terminal pngcairo size 800,500\n"
                "set output '%s'\n"
                "set title '%s: measured vs fitted'\n"
                "set logscale xy\nset grid\nset key left top\n"
                "set xlabel '%s'\nset ylabel '%s'\n"
                "plot '%s' using 1:2 with points pt 7 title 'measured', \\\n"
                "     '%s' using 1:3 with lines lw 2 title 'fitted'\n",
                png, subject, xlabel, ylabel, dat, dat);
        fclose(fp);
        if (c->o->gnuplot) {
            char *cmd = xasprintf("'%s' '%s' 2>/dev/null", c->o->gnuplot, gp);
            if (system(cmd) != 0)
                fprintf(c->rep, "  (gnuplot failed on %s)\n", gp);
            free(cmd);
        }
    } else {
        fprintf(c->rep, "  (cannot write %s)\n", gp);
    }
    free(dat);
    free(gp);
    free(png);
}

/* Fits one alpha-beta series, reports, stores and charts it. Returns 0, 1
 * when the series could not be fitted (reported), or SIM_EDB. */
static int fit_ab(struct ctx *c, const char *kind, const char *subject,
                  struct series *s, struct cal_fit *f)
{
    double *fy;
    int rc;

    if (s->len < 3 || cal_fit_alpha_beta(s->x, s->t, s->len, f) != 0) {
        fprintf(c->rep,
                "%-5s %s: %d points, no alpha-beta fit (needs 3 "
                "or more distinct sizes)\n",
                kind, subject, s->len);
        return 1;
    }
    /* A fit that explains nothing (R^2 undefined: the times do not vary)
     * or gives an impossible link is reported and not stored, so no
     * profile uses it. */
    if (!isfinite(f->r2) || !isfinite(f->p[0]) || !isfinite(f->p[1]) ||
        f->p[1] <= 0) {
        fprintf(c->rep,
                "%-5s %s: %d points, no usable alpha-beta fit (alpha %g us, "
                "B %g GB/s, R^2 %g)\n",
                kind, subject, s->len, f->p[0], f->p[1], f->r2);
        return 1;
    }
    fprintf(c->rep,
            "%-5s %s: %d points\n      alpha %.3f us (se %.3f)  B %.2f GB/s "
            "(se %.2f)  R^2 %.5f\n",
            kind, subject, f->npoints, f->p[0], f->se[0], f->p[1], f->se[1],
            f->r2);
    rc = store(c, kind, subject, "alpha", f->p[0], f->se[0], "us", f->r2,
               f->npoints);
    if (rc == 0)
        rc = store(c, kind, subject, "bandwidth", f->p[1], f->se[1], "GB/s",
                   f->r2, f->npoints);
    fy = xcalloc((size_t)s->len, sizeof(double));
    for (int i = 0; i < s->len; i++)
        fy[i] = f->p[0] + s->x[i] / (f->p[1] * 1e3);
    chart(c, subject, "bytes over the link", "time (us)", s->x, s->t, fy,
          s->len);
    free(fy);
    return rc;
}

/* An empty proposal: nothing measured. */
static void prop_clear(struct link_prop *l)
{
    memset(l, 0, sizeof(*l));
    l->alpha_us = l->alpha_fit_us = l->se_alpha_us = NAN;
    l->gbps = l->se_gbps = NAN;
}

/* The link figure of alpha-beta fit f of group from: when use_alpha, the
 * alpha (f's alpha - off_us) / div, clamped at 0; when use_b, the
 * bandwidth f's B / bdiv; their errors scaled alike (a shift and positive
 * scales keep the correlation). fit names the group and its points. */
static void prop_from_fit(struct link_prop *l, const struct cal_fit *f,
                          const char *from, const char *fit, int use_alpha,
                          double off_us, double div, int use_b, double bdiv)
{
    prop_clear(l);
    snprintf(l->from, sizeof(l->from), "%s", from);
    snprintf(l->fit, sizeof(l->fit), "%s", fit);
    if (use_alpha) {
        l->alpha_fit_us = (f->p[0] - off_us) / div;
        l->alpha_us = l->alpha_fit_us > 0 ? l->alpha_fit_us : 0;
        l->se_alpha_us = f->se[0] / div;
    }
    if (use_b) {
        l->gbps = f->p[1] / bdiv;
        l->se_gbps = f->se[1] / bdiv;
    }
    l->r = use_alpha && use_b ? cal_fit_corr(f, 0, 1) : 0;
}

static void propose(struct link_prop *l, int rank, const struct link_prop *cand)
{
    if (l->set && l->rank <= rank)
        return;
    *l = *cand;
    l->set = 1;
    l->rank = rank;
}

static enum net_coll coll_of(const char *bench, int *steps_mul, int *ok)
{
    *ok = 1;
    *steps_mul = 1;
    if (strcmp(bench, "all_reduce_perf") == 0) {
        *steps_mul = 2;
        return NET_ALLREDUCE;
    }
    if (strcmp(bench, "all_gather_perf") == 0)
        return NET_ALLGATHER;
    if (strcmp(bench, "reduce_scatter_perf") == 0)
        return NET_REDUCESCATTER;
    if (strcmp(bench, "alltoall_perf") == 0)
        return NET_ALLTOALL;
    if (strcmp(bench, "sendrecv_perf") == 0) {
        *steps_mul = 0;
        return NET_SENDRECV;
    }
    if (strcmp(bench, "broadcast_perf") == 0)
        return NET_BROADCAST;
    *ok = 0;
    return NET_SENDRECV;
}

static int prepare(struct ctx *c, const char *sql, sqlite3_stmt **s)
{
    if (sqlite3_prepare_v2(c->db, sql, -1, s, NULL) != SQLITE_OK) {
        sim_diag_error(c->d, NULL, 0, 0, "database: %s", sqlite3_errmsg(c->db));
        return SIM_EDB;
    }
    sqlite3_bind_text(*s, 1, c->g->name, -1, SQLITE_STATIC);
    return 0;
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *v = sqlite3_column_text(s, i);
    return v ? (const char *)v : "";
}

#define GPU_WHERE " (gpu = ?1 COLLATE NOCASE OR gpu IS NULL) "

/* nccl-tests groups. */
static int fit_nccl(struct ctx *c)
{
    static const char sql[] =
        "SELECT benchmark, op, coalesce(ranks, -1), coalesce(hosts, 1),"
        " size_bytes, time_us, algbw_gbps, busbw_gbps FROM points WHERE"
        " tool = 'nccl-tests' AND" GPU_WHERE "AND size_bytes > 0"
        " ORDER BY benchmark, op, 3, 4, size_bytes";
    sqlite3_stmt *s = NULL;
    struct series ser = {0};
    char key[160] = "", bench[64] = "", op[32] = "";
    int ranks = -1, hosts = 1, rc, done = 0;
    double ratio = NAN;

    if ((rc = prepare(c, sql, &s)) != 0)
        return rc;
    while (!done) {
        char k2[160] = "";
        int step = sqlite3_step(s);

        if (step == SQLITE_ROW)
            snprintf(k2, sizeof(k2), "%s %s %d ranks %d host%s", col_text(s, 0),
                     col_text(s, 1), sqlite3_column_int(s, 2),
                     sqlite3_column_int(s, 3),
                     sqlite3_column_int(s, 3) == 1 ? "" : "s");
        else
            done = 1;
        if (key[0] && strcmp(k2, key) != 0) {
            int mul, ok, p = ranks;
            enum net_coll coll = coll_of(bench, &mul, &ok);
            double f = ok && p >= 2 ? net_busbw_factor(coll, p) : ratio;
            struct cal_fit fit;

            /* Rescale the sizes to bytes over the bottleneck link. */
            for (int i = 0; i < ser.len; i++)
                ser.x[i] *= isfinite(f) && f > 0 ? f : 1;
            rc = fit_ab(c, "link", key, &ser, &fit);
            if (rc < 0)
                break;
            if (rc == 0 && strcmp(op, "out-of-place") == 0 && p >= 2) {
                int prio = 10;
                int steps = mul * (p - 1);
                double base_us = NET_NCCL_BASE_NS / 1e3;
                struct link_prop cand;
                char note[240];

                for (int j = 0; coll_order[j]; j++)
                    if (strcmp(coll_order[j], bench) == 0)
                        prio = j;
                snprintf(note, sizeof(note),
                         "nccl-tests %s, %d points; per-step alpha = (alpha "
                         "- %g us)",
                         key, fit.npoints, base_us);
                if (steps > 0)
                    appendf(note, sizeof(note), " / %d", steps);
                if (hosts > 1)
                    appendf(note, sizeof(note), "; bandwidth per NIC = B / %g",
                            (double)p / hosts);
                prop_from_fit(&cand, &fit, key, note, 1, base_us,
                              steps > 0 ? steps : 1, 1,
                              hosts <= 1 ? 1 : (double)p / hosts);
                if (hosts <= 1)
                    propose(&c->intra, prio * 100 - p, &cand);
                else
                    propose(&c->inter, 1000 + prio * 100 - p, &cand);
            }
            rc = 0;
            ser.len = 0;
            ratio = NAN;
        }
        if (done)
            break;
        snprintf(key, sizeof(key), "%s", k2);
        snprintf(bench, sizeof(bench), "%s", col_text(s, 0));
        snprintf(op, sizeof(op), "%s", col_text(s, 1));
        ranks = sqlite3_column_int(s, 2);
        hosts = sqlite3_column_int(s, 3);
        if (sqlite3_column_double(s, 6) > 0)
            ratio = sqlite3_column_double(s, 7) / sqlite3_column_double(s, 6);
        series_add(&ser, sqlite3_column_double(s, 4),
                   sqlite3_column_double(s, 5), NAN, NAN, NAN);
    }
    sqlite3_finalize(s);
    series_free(&ser);
    return rc < 0 ? rc : 0;
}

/* Alpha-beta groups of the other tools: perftest, bandwidthTest, the
 * dsec-calib copy and hbm logs. */
static int fit_simple(struct ctx *c)
{
    static const char sql[] =
        "SELECT tool, benchmark, op, CASE WHEN tool = 'bandwidthTest' AND"
        " op = 'd2d' THEN 2 * size_bytes ELSE size_bytes END, time_us FROM"
        " points WHERE"
        " tool IN ('perftest', 'bandwidthTest', 'dsec-calib') AND"
        " benchmark IN ('ib_write_bw', 'ib_write_lat', 'ib_read_bw',"
        " 'ib_read_lat', 'ib_send_bw', 'ib_send_lat', 'bandwidthTest',"
        " 'copy', 'hbm') AND" GPU_WHERE "AND size_bytes > 0 AND time_us > 0"
        " ORDER BY tool, benchmark, op, size_bytes";
    sqlite3_stmt *s = NULL;
    struct series ser = {0};
    char key[160] = "", tool[32] = "", bench[32] = "", op[64] = "";
    int rc, done = 0;

    if ((rc = prepare(c, sql, &s)) != 0)
        return rc;
    while (!done) {
        char k2[160] = "";

        if (sqlite3_step(s) == SQLITE_ROW)
            snprintf(k2, sizeof(k2), "%s %s %s", col_text(s, 0), col_text(s, 1),
                     col_text(s, 2));
        else
            done = 1;
        if (key[0] && strcmp(k2, key) != 0) {
            struct cal_fit fit;
            /* bandwidthTest's D2D copy reads and writes HBM: x counts
             * both (docs/sources.md §10.4). */
            int hbm = strcmp(bench, "hbm") == 0 || strcmp(op, "d2d") == 0;
            int hrank = strcmp(op, "copy") == 0   ? 0
                        : strcmp(op, "read") == 0 ? 1
                                                  : 2;

            rc = fit_ab(c, hbm ? "hbm" : "link", key, &ser, &fit);
            if (rc < 0)
                break;
            if (rc == 0) {
                struct link_prop cand;
                char note[240];

                snprintf(note, sizeof(note), "%s, %d points", key, fit.npoints);
                if (strcmp(bench, "ib_write_lat") == 0 ||
                    strcmp(bench, "ib_send_lat") == 0) {
                    prop_from_fit(&cand, &fit, key, note, 1, 0, 1, 0, 1);
                    propose(&c->inter_alpha, 0, &cand);
                } else if (strncmp(bench, "ib_", 3) == 0 &&
                           strstr(bench, "_bw")) {
                    prop_from_fit(&cand, &fit, key, note, 0, 0, 1, 1, 1);
                    propose(&c->inter, 0, &cand);
                } else if (strcmp(op, "h2d") == 0 || strcmp(op, "d2h") == 0) {
                    /* A negative alpha stays negative here: such an
                     * alpha is not written (write_link()). */
                    prop_from_fit(&cand, &fit, key, note, 1, 0, 1, 1, 1);
                    cand.alpha_us = cand.alpha_fit_us;
                    propose(&c->pcie, strcmp(op, "h2d") == 0 ? 0 : 1, &cand);
                } else if (strcmp(op, "p2p") == 0) {
                    prop_from_fit(&cand, &fit, key, note, 0, 0, 1, 1, 1);
                    propose(&c->intra, 5000, &cand);
                }
                if (hbm) {
                    double frac = fit.p[1] * 1e9 / c->g->hbm_bytes_per_s;

                    fprintf(c->rep,
                            "      = %.1f %% of the %.0f GB/s HBM peak\n",
                            100 * frac, c->g->hbm_bytes_per_s / 1e9);
                    if (!c->have_hbm || hrank < c->hbm_rank) {
                        c->have_hbm = 1;
                        c->hbm_rank = hrank;
                        c->hbm_frac = frac;
                        c->hbm_kernel_us = fit.p[0] > 0 ? fit.p[0] : 0;
                        c->hbm = fit;
                        snprintf(c->hbm_from, sizeof(c->hbm_from), "%s", key);
                        snprintf(c->hbm_fit, sizeof(c->hbm_fit), "%s", note);
                    }
                }
            }
            rc = 0;
            ser.len = 0;
        }
        if (done)
            break;
        snprintf(key, sizeof(key), "%s", k2);
        snprintf(tool, sizeof(tool), "%s", col_text(s, 0));
        snprintf(bench, sizeof(bench), "%s", col_text(s, 1));
        snprintf(op, sizeof(op), "%s", col_text(s, 2));
        series_add(&ser, sqlite3_column_double(s, 3),
                   sqlite3_column_double(s, 4), NAN, NAN, NAN);
    }
    sqlite3_finalize(s);
    series_free(&ser);
    return rc < 0 ? rc : 0;
}

/* nvbandwidth: one size, so bandwidth only (median cell). */
static int fit_nvbandwidth(struct ctx *c)
{
    static const char sql[] =
        "SELECT benchmark, op, avg(coalesce(algbw_gbps, time_us)),"
        " min(coalesce(algbw_gbps, time_us)),"
        " max(coalesce(algbw_gbps, time_us)), count(*) FROM points WHERE"
        " tool = 'nvbandwidth' AND" GPU_WHERE "GROUP BY benchmark, op"
        " ORDER BY benchmark, op";
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = prepare(c, sql, &s)) != 0)
        return rc;
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        const char *bench = col_text(s, 0);
        int lat = strcmp(col_text(s, 1), "latency") == 0;
        double mean = sqlite3_column_double(s, 2);
        int n = sqlite3_column_int(s, 5);
        char key[160];
        struct link_prop cand;

        snprintf(key, sizeof(key), "nvbandwidth %s", bench);
        fprintf(c->rep,
                "%-5s %s: %d cells, mean %.2f %s (min %.2f, max %.2f)\n",
                "link", key, n, lat ? mean * 1e3 : mean, lat ? "ns" : "GB/s",
                lat ? sqlite3_column_double(s, 3) * 1e3
                    : sqlite3_column_double(s, 3),
                lat ? sqlite3_column_double(s, 4) * 1e3
                    : sqlite3_column_double(s, 4));
        rc = store(c, "link", key, lat ? "latency" : "bandwidth", mean, NAN,
                   lat ? "us" : "GB/s", NAN, n);
        if (lat)
            continue;
        /* One size, so no fit and no standard error. */
        prop_clear(&cand);
        cand.gbps = mean;
        snprintf(cand.from, sizeof(cand.from), "%s", key);
        snprintf(cand.fit, sizeof(cand.fit), "%s, %d cells", key, n);
        if (strstr(bench, "host_to_device_memcpy_ce"))
            propose(&c->pcie, 10, &cand);
        else if (strstr(bench, "device_to_host_memcpy_ce"))
            propose(&c->pcie, 11, &cand);
        else if (strncmp(bench, "device_to_device_memcpy_", 24) == 0 &&
                 !strstr(bench, "bidirectional"))
            propose(&c->intra, 4000, &cand);
    }
    sqlite3_finalize(s);
    return rc;
}

static int fit_gemms(struct ctx *c)
{
    static const char sql[] =
        "SELECT coalesce(dtype, 'bf16'), m, n, k, time_us FROM points WHERE"
        " tool = 'dsec-calib' AND benchmark = 'gemm' AND" GPU_WHERE
        "AND m > 0 AND n > 0 AND k > 0 AND time_us > 0"
        " ORDER BY 1, m, n, k";
    sqlite3_stmt *s = NULL;
    struct series ser = {0};
    char dtype[16] = "";
    int rc, done = 0;

    if ((rc = prepare(c, sql, &s)) != 0)
        return rc;
    while (!done) {
        int row = sqlite3_step(s) == SQLITE_ROW;

        done = !row;
        if (ser.len && (done || strcmp(col_text(s, 0), dtype) != 0)) {
            int fp8 = strcmp(dtype, "fp8") == 0;
            double peak = fp8 ? c->g->flops_fp8 : c->g->flops_bf16;
            /* The held HBM fraction: the streaming copy's when measured,
             * else dsec's built-in 0.80 (docs/step-time.md). */
            double eb = fp8 ? 1 : 2,
                   e_mem0 = c->have_hbm && c->hbm_frac > 0 && c->hbm_frac <= 1
                                ? c->hbm_frac
                                : 0.80;
            int nmem = 0;
            struct cal_fit f;
            const double p0[4] = {0.74, 80, e_mem0, 0};
            char subject[64];

            /* e_mem is identifiable only if some points are memory-bound
             * under the starting curve. */
            for (int i = 0; i < ser.len; i++) {
                double fl = 2 * ser.m[i] * ser.n[i] * ser.k[i];
                double by = eb * (ser.m[i] * ser.k[i] + ser.k[i] * ser.n[i] +
                                  ser.m[i] * ser.n[i]);
                double tc = fl * (ser.m[i] + p0[1]) / (p0[0] * ser.m[i] * peak);
                nmem += by / (p0[2] * c->g->hbm_bytes_per_s) > tc;
            }
            snprintf(subject, sizeof(subject), "gemm %s", dtype);
            int frc = peak > 0
                          ? cal_fit_gemm(ser.m, ser.n, ser.k, ser.t, ser.len,
                                         eb, peak, c->g->hbm_bytes_per_s,
                                         nmem < 2, e_mem0, &f)
                          : SIM_EINVAL;
            if (frc == SIM_ERANGE) {
                fprintf(c->rep,
                        "gemm  %s: %d points, fit out of range (eta_max "
                        "%.3g, M_half %.3g, HBM %.3g, kernel %.3g us): not "
                        "used; measure more shapes (decode and prefill)\n",
                        subject, ser.len, f.p[0], f.p[1], f.p[2], f.p[3]);
            } else if (frc != 0) {
                fprintf(c->rep,
                        "gemm  %s: %d points, no fit (needs 5 or more shapes "
                        "and a %s peak for %s)\n",
                        subject, ser.len, dtype, c->g->name);
            } else {
                static const char *const names[] = {
                    "efficiency_max", "half_tokens", "hbm_efficiency",
                    "kernel_time"};
                static const char *const units[] = {"", "tokens", "", "us"};
                double *fy = xcalloc((size_t)ser.len, sizeof(double));
                double *ach = xcalloc((size_t)ser.len, sizeof(double));
                double *fach = xcalloc((size_t)ser.len, sizeof(double));

                fprintf(c->rep, "gemm  %s: %d shapes (peak %.1f TFLOP/s)\n",
                        subject, f.npoints, peak / 1e12);
                for (int j = 0; j < 4 && rc == 0; j++) {
                    if (f.fixed[j])
                        fprintf(c->rep, "      %-15s %.4g (held)\n", names[j],
                                f.p[j]);
                    else
                        fprintf(c->rep, "      %-15s %.4g %s (se %.3g)\n",
                                names[j], f.p[j], units[j], f.se[j]);
                    rc = store(c, "gemm", subject, names[j], f.p[j],
                               f.fixed[j] ? NAN : f.se[j], units[j], f.r2,
                               f.npoints);
                }
                fprintf(c->rep, "      R^2 %.5f\n", f.r2);
                /* Chart achieved TFLOP/s against M, measured and fitted. */
                for (int i = 0; i < ser.len; i++) {
                    double fl = 2 * ser.m[i] * ser.n[i] * ser.k[i];

                    fy[i] = cal_gemm_model_us(f.p, ser.m[i], ser.n[i], ser.k[i],
                                              eb, peak, c->g->hbm_bytes_per_s);
                    ach[i] = fl / (ser.t[i] * 1e6);
                    fach[i] = fl / (fy[i] * 1e6);
                }
                chart(c, subject, "M (tokens)", "TFLOP/s", ser.m, ach, fach,
                      ser.len);
                free(fy);
                free(ach);
                free(fach);
                if (!fp8 || !c->have_gemm) {
                    c->have_gemm = 1;
                    c->gemm = f;
                    /* Written when fitted, or held at the measured HBM
                     * stream fraction; not when held at the default. */
                    c->gemm_mem_free =
                        !f.fixed[2] ||
                        (c->have_hbm && c->hbm_frac > 0 && c->hbm_frac <= 1);
                    snprintf(c->gemm_fit, sizeof(c->gemm_fit), "%s, %d shapes",
                             subject, f.npoints);
                }
            }
            ser.len = 0;
        }
        if (done || rc != 0)
            break;
        snprintf(dtype, sizeof(dtype), "%s", col_text(s, 0));
        series_add(&ser, NAN, sqlite3_column_double(s, 4),
                   sqlite3_column_double(s, 1), sqlite3_column_double(s, 2),
                   sqlite3_column_double(s, 3));
    }
    sqlite3_finalize(s);
    series_free(&ser);
    return rc;
}

/* A string query's first column, or "" (caller frees). */
static char *query1(struct ctx *c, const char *sql)
{
    sqlite3_stmt *s = NULL;
    char *v = NULL;

    if (prepare(c, sql, &s) != 0)
        return xstrdup("");
    if (sqlite3_step(s) == SQLITE_ROW)
        v = xstrdup(col_text(s, 0));
    sqlite3_finalize(s);
    return v ? v : xstrdup("");
}

static void yaml_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, fp);
    }
    fputc('"', fp);
}

/* An efficiency as the profile takes it: at most 1, and a positive one at
 * least 0.001, the profile rows' floor (models/perf/calib.c EFF_MIN). */
static double clamp01(double v)
{
    return v > 1 ? 1 : (v > 0 && v < 1e-3 ? 1e-3 : v);
}

/* ---- uncertainty ---------------------------------------------------- */

/* Adds key with its standard error (plain unit) to u. Returns its index,
 * or -1 when there is no error to give (NAN). */
static int unc_add(struct unc_out *u, const char *key, double se,
                   enum unc_unit unit)
{
    if (!(isfinite(se) && se >= 0) || !SIM_ALWAYS(u->n < UNC_MAXK))
        return -1;
    u->key[u->n] = key;
    u->se[u->n] = se;
    u->unit[u->n] = unit;
    return u->n++;
}

/* Sets the correlation of keys i and j (indices of unc_add(), -1 ignored),
 * rounded to the 6 decimals written. */
static void unc_corr(struct unc_out *u, int i, int j, double r)
{
    if (i < 0 || j < 0 || i == j)
        return;
    r = round(r * 1e6) / 1e6;
    u->r[i][j] = u->r[j][i] = r > 1 ? 1 : r < -1 ? -1 : r;
}

/* The standard error of key i of u as the loader reads it back
 * (durations to the nanosecond). */
static double unc_se_loaded(const struct unc_out *u, int i)
{
    return u->unit[i] == UNC_US ? round(u->se[i] * 1e9) / 1e9 : u->se[i];
}

/* What is written must load: the loader checks that each entry's
 * covariance, as it reads it, is positive semidefinite
 * (perf_cholesky_psd()). Two things can fail that check, and each is
 * repaired and reported:
 * - rounding: each correlation moves by up to 5e-7 as written, which
 *   matters only for a nearly singular fit; the correlations are then
 *   shrunk towards 0 by the smallest of a few factors that passes;
 * - scale: the check's zero-pivot tolerance is relative to the largest
 *   variance of the entry, so a key whose variance is below 1e-10 of it
 *   (a kernel time of 0.1 us, 1e-14 s^2, beside half_tokens, 20 tokens^2)
 *   reads as exactly known, and any correlation it has as an error;
 *   TODO(#17): such a key's correlations are left out (smallest variance
 *   first) until the check is made scale-free (on the correlation
 *   matrix). */
static void unc_psd(struct ctx *c, const char *entry, struct unc_out *u)
{
    static const double shrink[] = {1 - 1e-6, 1 - 1e-5, 1 - 1e-4, 1 - 1e-3,
                                    0.99,     0.9,      0};
    double a[UNC_MAXK * UNC_MAXK], l[UNC_MAXK * UNC_MAXK];
    double r0[UNC_MAXK][UNC_MAXK];
    int n = u->n, ns = 0;

    memcpy(r0, u->r, sizeof(r0));
    for (;;) {
        int drop = -1;

        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                a[i * n + j] = i == j ? 1 : u->r[i][j];
        if (perf_cholesky_psd(a, n, l) != 0 &&
            ns < (int)(sizeof(shrink) / sizeof(shrink[0]))) {
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++)
                    unc_corr(u, i, j, r0[i][j] * shrink[ns]);
            fprintf(c->rep,
                    "profile: %s: the fit is nearly singular; its "
                    "correlations are shrunk by %g to stay positive "
                    "semidefinite as written\n",
                    entry, shrink[ns]);
            ns++;
            continue;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                a[i * n + j] = (i == j ? 1 : u->r[i][j]) * unc_se_loaded(u, i) *
                               unc_se_loaded(u, j);
        if (perf_cholesky_psd(a, n, l) == 0)
            return;
        for (int i = 0; i < n; i++) {
            int corr = 0;
            for (int j = 0; j < n; j++)
                corr |= i != j && u->r[i][j] != 0;
            if (corr && (drop < 0 || a[i * n + i] < a[drop * n + drop]))
                drop = i;
        }
        if (!SIM_ALWAYS(drop >= 0))
            return;
        {
            double rmax = 0;
            for (int j = 0; j < n; j++)
                if (fabs(u->r[drop][j]) > fabs(rmax))
                    rmax = u->r[drop][j];
            fprintf(c->rep,
                    "profile: %s: the correlations of %s (largest %.3f) are "
                    "left out: its variance, %.3g%s, is below what the "
                    "profile loader's check resolves beside the others'\n",
                    entry, u->key[drop], rmax, a[drop * n + drop],
                    u->unit[drop] == UNC_US     ? " s^2"
                    : u->unit[drop] == UNC_GBPS ? " (B/s)^2"
                                                : "");
        }
        for (int j = 0; j < n; j++)
            u->r[drop][j] = u->r[j][drop] = r0[drop][j] = r0[j][drop] = 0;
    }
}

static void unc_write(FILE *fp, const struct unc_out *u, int indent)
{
    int first = 1;

    if (u->n == 0)
        return;
    fprintf(fp, "%*suncertainty:\n%*sfit: ", indent, "", indent + 2, "");
    yaml_str(fp, u->fit);
    fprintf(fp, "\n%*sstd_errors:\n", indent + 2, "");
    for (int i = 0; i < u->n; i++) {
        fprintf(fp, "%*s%s: ", indent + 4, "", u->key[i]);
        /* Durations to the nanosecond, the profile's resolution; others
         * to 8 digits, so that they load back within 1e-7. */
        if (u->unit[i] == UNC_US)
            fprintf(fp, "%.3fus\n", u->se[i] * 1e6);
        else if (u->unit[i] == UNC_GBPS)
            fprintf(fp, "%.8gGB/s\n", u->se[i] / 1e9);
        else
            fprintf(fp, "%.8g\n", u->se[i]);
    }
    for (int i = 0; i < u->n; i++)
        for (int j = i + 1; j < u->n; j++) {
            if (u->r[i][j] == 0)
                continue;
            if (first)
                fprintf(fp, "%*scorrelation:\n", indent + 2, "");
            first = 0;
            fprintf(fp, "%*s- {a: %s, b: %s, r: %.6f}\n", indent + 4, "",
                    u->key[i], u->key[j], u->r[i][j]);
        }
}

/* Reports a value that the profile gives clamped to the model's range,
 * keeping the fit's standard error (the scale of the estimate's doubt
 * around the bound it reached). */
static void report_clamp(struct ctx *c, const char *key, double fit,
                         double written, const char *unit)
{
    if (fit == written)
        return;
    fprintf(c->rep,
            "profile: %s: fitted %.4g%s, written clamped to %g%s; its "
            "standard error is the fit's\n",
            key, fit, unit, written, unit);
}

/* The uncertainty of the GPU entry: the GEMM fit's free parameters with
 * their correlations; the elementwise HBM fraction B / H and kernel time
 * alpha of the HBM fit, correlated as B and alpha; a GEMM HBM fraction held
 * at the stream fraction is that same value (its error, correlation 1). */
static void plan_gpu(struct ctx *c, struct unc_out *u)
{
    static const char *const keys[] = {
        "gemm.efficiency_max", "gemm.half_tokens", "gemm.hbm_efficiency",
        "gemm.kernel_time"};
    const struct cal_fit *f = &c->gemm, *h = &c->hbm;
    int have_elem = c->have_hbm && c->hbm_frac > 0;
    int gi[4] = {-1, -1, -1, -1};
    double se_frac = h->se[1] * 1e9 / c->g->hbm_bytes_per_s;

    memset(u, 0, sizeof(*u));
    if (c->have_gemm) {
        report_clamp(c, "gemm.efficiency_max", f->p[0], clamp01(f->p[0]), "");
        report_clamp(c, "gemm.half_tokens", f->p[1], f->p[1] > 0 ? f->p[1] : 0,
                     " tokens");
        if (c->gemm_mem_free && !f->fixed[2])
            report_clamp(c, "gemm.hbm_efficiency", f->p[2], clamp01(f->p[2]),
                         "");
        report_clamp(c, "gemm.kernel_time", f->p[3], f->p[3] > 0 ? f->p[3] : 0,
                     " us");
        for (int j = 0; j < 4; j++) {
            if (f->fixed[j])
                continue;
            gi[j] = unc_add(u, keys[j], j == 3 ? f->se[j] * 1e-6 : f->se[j],
                            j == 3 ? UNC_US : UNC_PLAIN);
        }
        if (f->fixed[2] && c->gemm_mem_free && have_elem)
            gi[2] = unc_add(u, keys[2], se_frac, UNC_PLAIN);
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
                unc_corr(u, gi[i], gi[j], cal_fit_corr(f, i, j));
    }
    if (have_elem) {
        int eh = unc_add(u, "elementwise.hbm_efficiency", se_frac, UNC_PLAIN);
        int ek = unc_add(u, "elementwise.kernel_time", h->se[0] * 1e-6, UNC_US);

        report_clamp(c, "elementwise.hbm_efficiency", c->hbm_frac,
                     clamp01(c->hbm_frac), "");
        report_clamp(c, "elementwise.kernel_time", h->p[0], c->hbm_kernel_us,
                     " us");
        unc_corr(u, eh, ek, cal_fit_corr(h, 0, 1));
        if (c->have_gemm && c->gemm.fixed[2] && c->gemm_mem_free) {
            unc_corr(u, gi[2], eh, 1);
            unc_corr(u, gi[2], ek, cal_fit_corr(h, 0, 1));
        }
    }
    snprintf(u->fit, sizeof(u->fit), "dsec-calib %s fit:", PACKAGE_VERSION);
    if (c->have_gemm)
        appendf(u->fit, sizeof(u->fit), " %s (gemm)", c->gemm_fit);
    if (have_elem)
        appendf(u->fit, sizeof(u->fit), "%s %s (elementwise%s)",
                c->have_gemm ? ";" : "", c->hbm_fit,
                gi[2] >= 0 && c->gemm.fixed[2]
                    ? "; gemm.hbm_efficiency is held at it"
                    : "");
    unc_psd(c, c->g->name, u);
}

/* What the profile gives for link class cls (nominal bandwidth B/s) from
 * proposal l, its alpha from proposal alpha when set: the per-step alpha,
 * the bandwidth as the nominal rate times an efficiency (or, measured above
 * the nominal rate, the measured rate with efficiency 1), their errors in
 * those units (se(B) / nominal for the efficiency) and their correlation
 * when they come from one fit. */
static void plan_link(struct ctx *c, struct link_out *o, const char *cls,
                      const struct link_prop *l, const struct link_prop *alpha,
                      double nominal)
{
    const struct link_prop *ap = alpha && alpha->set ? alpha : l;
    int ia = -1, ib = -1;

    memset(o, 0, sizeof(*o));
    o->alpha_us = ap->alpha_us;
    o->has_alpha = isfinite(o->alpha_us) && o->alpha_us >= 0;
    o->has_b = l->set && isfinite(l->gbps) && l->gbps > 0;
    if (!o->has_b && !o->has_alpha)
        return;
    o->name = cls;
    if (o->has_alpha) {
        char key[64];
        snprintf(key, sizeof(key), "links.%s.alpha", cls);
        report_clamp(c, key, ap->alpha_fit_us, o->alpha_us, " us");
        ia = unc_add(&o->unc, "alpha", ap->se_alpha_us * 1e-6, UNC_US);
    } else if (ap->set && isfinite(ap->alpha_us)) {
        fprintf(c->rep,
                "profile: links.%s.alpha: fitted %.4g us is negative: not "
                "written\n",
                cls, ap->alpha_us);
    }
    if (o->has_b) {
        o->efficiency = l->gbps * 1e9 / nominal;
        /* NVLS and in-network reduction can beat the wire rate (docs/sources.md
         * §2.3, §3.3): then the measured figure is the bandwidth. */
        o->over = o->efficiency > 1;
        o->gbps = o->over ? l->gbps : nominal / 1e9;
        if (o->over) {
            fprintf(c->rep,
                    "profile: links.%s: measured %.2f GB/s is above the "
                    "nominal %.2f GB/s: written as the bandwidth with "
                    "efficiency 1, the standard error on the bandwidth\n",
                    cls, l->gbps, nominal / 1e9);
            o->efficiency = 1;
            ib = unc_add(&o->unc, "bandwidth", l->se_gbps * 1e9, UNC_GBPS);
        } else {
            ib = unc_add(&o->unc, "efficiency", l->se_gbps * 1e9 / nominal,
                         UNC_PLAIN);
        }
    }
    if (ap == l)
        unc_corr(&o->unc, ia, ib, l->r);
    snprintf(o->comment, sizeof(o->comment), "from %s",
             l->set ? l->from : ap->from);
    if (alpha && alpha->set && l->set)
        appendf(o->comment, sizeof(o->comment), "; alpha from %s", alpha->from);
    if (ap != l && o->has_alpha && o->has_b)
        snprintf(o->unc.fit, sizeof(o->unc.fit),
                 "dsec-calib %s fit: %s (bandwidth); %s (alpha)",
                 PACKAGE_VERSION, l->fit, ap->fit);
    else
        snprintf(o->unc.fit, sizeof(o->unc.fit), "dsec-calib %s fit: %s",
                 PACKAGE_VERSION, o->has_b ? l->fit : ap->fit);
    {
        char entry[64];
        snprintf(entry, sizeof(entry), "links.%s", cls);
        unc_psd(c, entry, &o->unc);
    }
}

static void write_link(FILE *fp, const struct link_out *o)
{
    fprintf(fp, "  %s:  # %s\n", o->name, o->comment);
    if (o->has_alpha)
        fprintf(fp, "    alpha: %.4fus\n", o->alpha_us);
    if (o->has_b) {
        fprintf(fp, "    bandwidth: %.3fGB/s\n", o->gbps);
        if (o->over)
            fputs("    efficiency: 1\n", fp);
        else
            fprintf(fp, "    efficiency: %.4f\n", o->efficiency);
    }
    unc_write(fp, &o->unc, 4);
}

/* Fills c->gpu_unc and c->links with what the profile gives. */
static void plan_profile(struct ctx *c)
{
    const struct net_link *inter = net_link_find(PERF_CALIB_INTER_LINK);
    char pcie_name[16];
    const struct net_link *pcie;
    struct net_link intra;

    gpu_intra_link(c->g, &intra);
    snprintf(pcie_name, sizeof(pcie_name), "pcie%d", c->g->pcie_gen);
    pcie = net_link_find(pcie_name);
    plan_gpu(c, &c->gpu_unc);
    c->nlinks = 0;
    if (c->intra.set && intra.name)
        plan_link(c, &c->links[c->nlinks++], intra.name, &c->intra, NULL,
                  intra.bytes_per_s);
    if ((c->inter.set || c->inter_alpha.set) && inter)
        plan_link(c, &c->links[c->nlinks++], inter->name, &c->inter,
                  &c->inter_alpha, inter->bytes_per_s);
    if (c->pcie.set && pcie &&
        (!intra.name || strcmp(pcie->name, intra.name) != 0))
        plan_link(c, &c->links[c->nlinks++], pcie->name, &c->pcie, NULL,
                  pcie->bytes_per_s);
}

static int write_profile(struct ctx *c, const char *path)
{
    FILE *fp = fopen(path, "w");
    char *date, *host, *files, *tools;
    int any_link = 0;

    if (!fp) {
        sim_diag_error(c->d, path, 0, 0, "cannot write profile");
        return SIM_EIO;
    }
    plan_profile(c);
    date = c->o->date
               ? xstrdup(c->o->date)
               : query1(c, "SELECT max(date) FROM points WHERE" GPU_WHERE);
    host = query1(c, "SELECT CASE WHEN count(DISTINCT node) = 1 THEN"
                     " max(node) ELSE '' END FROM points WHERE" GPU_WHERE);
    files = query1(c, "SELECT group_concat(file, ', ') FROM (SELECT DISTINCT"
                      " file FROM points WHERE" GPU_WHERE "ORDER BY file)");
    tools = query1(c, "SELECT group_concat(tool, ', ') FROM (SELECT DISTINCT"
                      " tool FROM points WHERE" GPU_WHERE "ORDER BY tool)");
    fprintf(fp,
            "# dsec calibration profile fitted by dsec-calib fit "
            "(docs/calibration.md).\n"
            "# Least squares (GSL gsl_multifit_nlinear) on the raw points of "
            "the files below;\n# standard errors and correlations are under "
            "each entry's uncertainty, R^2 in\n# the fit report and the "
            "database's fits table.\n"
            "format: 1\nprovenance:\n  tool: dsec-calib %s\n  date: ",
            PACKAGE_VERSION);
    yaml_str(fp, date[0] ? date : "unknown");
    if (host[0]) {
        fputs("\n  host: ", fp);
        yaml_str(fp, host);
    }
    fputs("\n  raw_log: ", fp);
    yaml_str(fp, files);
    fputs("\n  note: ", fp);
    {
        char *note = xasprintf("%s measured with %s", c->g->name, tools);
        yaml_str(fp, note);
        free(note);
    }
    fprintf(fp, "\ngpus:\n  %s:\n", c->g->name);
    if (c->have_gemm) {
        const struct cal_fit *f = &c->gemm;

        fprintf(fp, "    gemm:  # from %s\n      efficiency_max: %.4f\n",
                c->gemm_fit, clamp01(f->p[0]));
        fprintf(fp, "      half_tokens: %.2f\n", f->p[1] > 0 ? f->p[1] : 0);
        if (c->gemm_mem_free)
            fprintf(fp, "      hbm_efficiency: %.4f\n", clamp01(f->p[2]));
        fprintf(fp, "      kernel_time: %.3fus\n", f->p[3] > 0 ? f->p[3] : 0);
    }
    if (c->have_hbm && c->hbm_frac > 0) {
        fprintf(fp,
                "    elementwise:  # from %s\n      hbm_efficiency: %.4f\n"
                "      kernel_time: %.3fus\n",
                c->hbm_from, clamp01(c->hbm_frac), c->hbm_kernel_us);
    }
    if (!c->have_gemm && !(c->have_hbm && c->hbm_frac > 0))
        fputs("    {}\n", fp);
    unc_write(fp, &c->gpu_unc, 4);
    for (int i = 0; i < c->nlinks; i++) {
        if (!c->links[i].name)
            continue;
        if (!any_link)
            fputs("links:\n", fp);
        any_link = 1;
        write_link(fp, &c->links[i]);
    }
    free(date);
    free(host);
    free(files);
    free(tools);
    if (fclose(fp) != 0) {
        sim_diag_error(c->d, path, 0, 0, "cannot write profile");
        return SIM_EIO;
    }
    return 0;
}

/* Compares the uncertainty the loader read for entry (u, NULL when the
 * entry is missing) with what was written (w): the same keys, standard
 * errors equal (durations to the nanosecond the profile holds, others to
 * 1e-6 relative) and the same correlations. Prints each difference and
 * returns their number. */
static int unc_check(struct ctx *c, const char *entry, const struct unc_out *w,
                     const struct perf_calib_unc *u)
{
    int bad = 0, npairs = 0;

    if (w->n == 0)
        return 0;
    if (!u || u->nstd_errors != w->n) {
        fprintf(c->rep, "profile: %s: %d standard errors loaded, %d written\n",
                entry, u ? u->nstd_errors : 0, w->n);
        return 1;
    }
    for (int i = 0; i < w->n; i++) {
        const struct perf_calib_se *e = NULL;
        double tol = w->unit[i] == UNC_US ? 0.5e-9 + 1e-12 : 1e-6 * w->se[i];

        for (int k = 0; k < u->nstd_errors; k++)
            if (strcmp(u->std_errors[k].key, w->key[i]) == 0)
                e = &u->std_errors[k];
        if (!e || !(fabs(e->se - w->se[i]) <= tol)) {
            fprintf(c->rep,
                    "profile: %s.uncertainty.std_errors.%s: loaded %.9g, "
                    "fitted %.9g\n",
                    entry, w->key[i], e ? e->se : NAN, w->se[i]);
            bad++;
        }
    }
    for (int i = 0; i < w->n; i++)
        for (int j = i + 1; j < w->n; j++) {
            double got = 0;

            for (int k = 0; k < u->ncorrelation; k++) {
                const struct perf_calib_corr *r = &u->correlation[k];
                if ((strcmp(r->a, w->key[i]) == 0 &&
                     strcmp(r->b, w->key[j]) == 0) ||
                    (strcmp(r->a, w->key[j]) == 0 &&
                     strcmp(r->b, w->key[i]) == 0))
                    got = r->r;
            }
            npairs += w->r[i][j] != 0;
            if (!(fabs(got - w->r[i][j]) <= 1e-9)) {
                fprintf(c->rep,
                        "profile: %s: correlation of %s and %s loaded %g, "
                        "written %g\n",
                        entry, w->key[i], w->key[j], got, w->r[i][j]);
                bad++;
            }
        }
    if (npairs != u->ncorrelation) {
        fprintf(c->rep, "profile: %s: %d correlations loaded, %d written\n",
                entry, u->ncorrelation, npairs);
        bad++;
    }
    return bad;
}

/* Loads the written profile with dsec's own loader and compares what it
 * resolves for the GPU, and each entry's standard errors and correlations,
 * with the fit. */
static int verify_profile(struct ctx *c, const char *path)
{
    struct perf_calib prof;
    struct perf_gpu_calib r;
    const struct perf_calib_gpu *ge;
    int rc = perf_calib_load(path, &prof, c->d), bad = 0, nse, ncorr;
    char entry[64];

    if (rc != 0) {
        sim_diag_error(c->d, path, 0, 0,
                       "the written profile does not load (a bug in "
                       "dsec-calib: please report it)");
        return SIM_EINVAL;
    }
    perf_calib_resolve(&prof, c->g, &r);
    if (c->have_gemm) {
        bad |= fabs(r.gemm_eff_max - clamp01(c->gemm.p[0])) > 1e-4;
        bad |= fabs(r.gemm_half_tokens -
                    (c->gemm.p[1] > 0 ? c->gemm.p[1] : 0)) > 0.01;
    }
    if (c->have_hbm && c->hbm_frac > 0)
        bad |= fabs(r.elem_eff_memory - clamp01(c->hbm_frac)) > 1e-4;
    if (c->intra.set && isfinite(c->intra.gbps))
        bad |= fabs(r.intra.efficiency * r.intra.bytes_per_s / 1e9 -
                    c->intra.gbps) > 1e-3 * c->intra.gbps;
    ge = perf_calib_find_gpu(&prof, c->g->name);
    snprintf(entry, sizeof(entry), "gpus.%s", c->g->name);
    bad |= unc_check(c, entry, &c->gpu_unc, ge ? &ge->unc : NULL) != 0;
    nse = c->gpu_unc.n;
    ncorr = ge ? ge->unc.ncorrelation : 0;
    for (int i = 0; i < c->nlinks; i++) {
        const struct link_out *o = &c->links[i];
        const struct perf_calib_link *le = NULL;

        if (!o->name)
            continue;
        for (int k = 0; k < prof.nlinks; k++)
            if (strcmp(prof.links[k].name, o->name) == 0)
                le = &prof.links[k];
        snprintf(entry, sizeof(entry), "links.%s", o->name);
        bad |= unc_check(c, entry, &o->unc, le ? &le->unc : NULL) != 0;
        nse += o->unc.n;
        ncorr += le ? le->unc.ncorrelation : 0;
    }
    fprintf(c->rep,
            "profile %s: loaded back with perf_calib_load: %s\n"
            "  %s: gemm eta_max %.4f, M_half %.1f, HBM %.4f, kernel %.2f us;"
            " elementwise HBM %.4f;\n  intra %s %.1f GB/s x %.3f, alpha %.3f"
            " us; inter %s %.1f GB/s x %.3f, alpha %.3f us;\n"
            "  uncertainty: %d standard errors, %d correlations\n",
            path, bad ? "MISMATCH" : "ok", c->g->name, r.gemm_eff_max,
            r.gemm_half_tokens, r.gemm_eff_memory, r.gemm_kernel_ns / 1e3,
            r.elem_eff_memory, r.intra.name ? r.intra.name : "-",
            r.intra.bytes_per_s / 1e9, r.intra.efficiency,
            r.intra.alpha_ns / 1e3, r.inter.name ? r.inter.name : "-",
            r.inter.bytes_per_s / 1e9, r.inter.efficiency,
            r.inter.alpha_ns / 1e3, nse, ncorr);
    perf_calib_fini(&prof);
    if (bad) {
        sim_diag_error(c->d, path, 0, 0,
                       "the profile does not load back to the fitted values");
        return SIM_EINVAL;
    }
    return 0;
}

int cal_fit_run(sqlite3 *db, const struct cal_fit_opts *opts,
                struct sim_diag *d)
{
    struct ctx c;
    char *gname = NULL;
    int rc = 0;

    memset(&c, 0, sizeof(c));
    c.db = db;
    c.o = opts;
    c.d = d;
    c.rep = opts->report;
    prop_clear(&c.intra);
    prop_clear(&c.inter);
    prop_clear(&c.inter_alpha);
    prop_clear(&c.pcie);
    if (opts->gpu) {
        gname = xstrdup(opts->gpu);
    } else {
        sqlite3_stmt *s = NULL;
        int n = 0;

        if (sqlite3_prepare_v2(db,
                               "SELECT DISTINCT gpu FROM points WHERE gpu IS"
                               " NOT NULL",
                               -1, &s, NULL) != SQLITE_OK) {
            sim_diag_error(d, NULL, 0, 0, "database: %s", sqlite3_errmsg(db));
            return SIM_EDB;
        }
        while (sqlite3_step(s) == SQLITE_ROW) {
            if (n++ == 0)
                gname = xstrdup(col_text(s, 0));
        }
        sqlite3_finalize(s);
        if (n != 1) {
            sim_diag_error(d, NULL, 0, 0, "--gpu: %s; name the GPU kind to fit",
                           n ? "the database holds several GPU kinds"
                             : "the points carry no GPU label");
            free(gname);
            return SIM_EINVAL;
        }
    }
    c.g = gpu_find(gname);
    if (!c.g) {
        char *names = gpu_names();
        sim_diag_error(d, NULL, 0, 0, "--gpu: unknown GPU kind '%s'; valid: %s",
                       gname, names);
        free(names);
        free(gname);
        return SIM_EINVAL;
    }
    free(gname);
    {
        char *cnt = query1(&c, "SELECT count(*) FROM points WHERE" GPU_WHERE);
        int n = atoi(cnt);

        free(cnt);
        if (n == 0) {
            sim_diag_error(d, NULL, 0, 0,
                           "no points for GPU kind '%s' (import logs with "
                           "--gpu %s first)",
                           c.g->name, c.g->name);
            return SIM_ENOTFOUND;
        }
        fprintf(c.rep,
                "dsec-calib fit: %s, %d points (peaks: %.1f TFLOP/s bf16, "
                "%.0f GB/s HBM; docs/sources.md §1.1)\n",
                c.g->name, n, c.g->flops_bf16 / 1e12,
                c.g->hbm_bytes_per_s / 1e9);
    }
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        sim_diag_error(d, NULL, 0, 0, "database: %s", sqlite3_errmsg(db));
        return SIM_EDB;
    }
    {
        sqlite3_stmt *s = NULL;
        if ((rc = prepare(&c, "DELETE FROM fits WHERE gpu = ?1", &s)) == 0) {
            sqlite3_step(s);
            sqlite3_finalize(s);
        }
    }
    if (rc == 0)
        rc = fit_nccl(&c);
    if (rc == 0)
        rc = fit_simple(&c);
    if (rc == 0)
        rc = fit_nvbandwidth(&c);
    if (rc == 0)
        rc = fit_gemms(&c);
    if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) !=
            SQLITE_OK &&
        rc == 0) {
        sim_diag_error(d, NULL, 0, 0, "database: %s", sqlite3_errmsg(db));
        rc = SIM_EDB;
    }
    if (rc == 0 && c.nfits == 0) {
        sim_diag_error(d, NULL, 0, 0,
                       "nothing to fit for '%s': every group has fewer than "
                       "3 sizes",
                       c.g->name);
        rc = SIM_ENOTFOUND;
    }
    if (rc == 0 && opts->out_yaml) {
        rc = write_profile(&c, opts->out_yaml);
        if (rc == 0)
            rc = verify_profile(&c, opts->out_yaml);
    }
    return rc;
}
