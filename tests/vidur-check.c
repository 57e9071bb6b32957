/*
 * Compares the step-time model's operator costs with the per-operator GPU
 * timings Vidur measured on A100 (microsoft/vidur @ 7d47513, MIT licence,
 * kept outside the project in shared/reference/vidur; see its README for
 * the columns). Prints TAP: one test per operator and per model class,
 * each passing when the mean absolute percentage error (MAPE) of the
 * built-in "a100" calibration stays under a bound, and a table of the
 * errors as comments. Skips (1..0 # SKIP) when the data is absent, so that
 * CI without it stays green.
 *
 *   vidur-check           the TAP comparison
 *   vidur-check --fit     also the grid searches behind the defaults of
 *                         models/perf/calib.c (slower)
 *
 * The data directory is $DSEC_VIDUR_DIR, else
 * $top_srcdir/../shared/reference/vidur, else
 * $top_srcdir/shared/reference/vidur.
 *
 * Operators are priced with the model's own primitives (perf_gemm_eff(),
 * perf_op_ns()) for Vidur's operator shapes, and the model classes
 * (attn_proj = QKV + O, mlp = up + down, elementwise, attention) with
 * perf_iteration_breakdown() on a one-layer replica of each model built
 * here from the CSV's shape columns.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/arch/arch.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/perf/roofline.h"
#include "base/xalloc.h"

/* Bounds on the MAPE (fractions) each test asserts: a regression guard
 * around the errors docs/step-time.md reports. */
#define BOUND_GEMM 0.10
#define BOUND_ELEM 0.25
#define BOUND_ELEM_CLASS 0.30
#define BOUND_ATTN_PREFILL 0.25
#define BOUND_ATTN_DECODE 0.15

#define MAX_COLS 64
#define MAX_LINE 4096

/* One parsed CSV file: a header and rows of doubles ("True" = 1, empty =
 * NAN). */
struct csv {
    char *name[MAX_COLS];
    int ncols;
    double *v; /* nrows * ncols */
    int nrows;
};

static int csv_col(const struct csv *c, const char *name)
{
    for (int i = 0; i < c->ncols; i++)
        if (strcmp(c->name[i], name) == 0)
            return i;
    return -1;
}

static double csv_get(const struct csv *c, int row, int col)
{
    return col < 0 ? NAN : c->v[(size_t)row * c->ncols + col];
}

/* Splits line at commas in place into at most MAX_COLS fields. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;

    line[strcspn(line, "\r\n")] = '\0';
    while (n < MAX_COLS) {
        f[n++] = p;
        p = strchr(p, ',');
        if (p == NULL)
            break;
        *p++ = '\0';
    }
    return n;
}

static int csv_read(const char *path, struct csv *c)
{
    FILE *fp = fopen(path, "r");
    char line[MAX_LINE], *f[MAX_COLS];
    int cap = 0;

    memset(c, 0, sizeof(*c));
    if (fp == NULL)
        return -1;
    if (fgets(line, sizeof(line), fp) == NULL) {
        fclose(fp);
        return -1;
    }
    c->ncols = split(line, f);
    for (int i = 0; i < c->ncols; i++)
        c->name[i] = xstrdup(f[i]);
    while (fgets(line, sizeof(line), fp) != NULL) {
        int n = split(line, f);
        if (c->nrows == cap) {
            cap = cap ? 2 * cap : 1024;
            c->v = xrealloc(c->v, (size_t)cap * c->ncols, sizeof(double));
        }
        for (int i = 0; i < c->ncols; i++) {
            double *x = &c->v[(size_t)c->nrows * c->ncols + i];
            if (i >= n || f[i][0] == '\0')
                *x = NAN;
            else if (strcmp(f[i], "True") == 0)
                *x = 1.0;
            else if (strcmp(f[i], "False") == 0)
                *x = 0.0;
            else
                *x = strtod(f[i], NULL);
        }
        c->nrows++;
    }
    fclose(fp);
    return 0;
}

static void csv_free(struct csv *c)
{
    for (int i = 0; i < c->ncols; i++)
        free(c->name[i]);
    free(c->v);
}

/* A running MAPE, and the mean signed error (prediction / measurement
 * - 1) beside it, which says in which direction the model errs. */
struct err {
    double sum;
    double signed_sum;
    long n;
};

static void err_add(struct err *e, double pred, double meas)
{
    if (!(meas > 0.0) || isnan(pred))
        return;
    e->sum += fabs(pred - meas) / meas;
    e->signed_sum += (pred - meas) / meas;
    e->n++;
}

static double err_mape(const struct err *e)
{
    return e->n > 0 ? e->sum / e->n : NAN;
}

static double err_mean(const struct err *e)
{
    return e->n > 0 ? e->signed_sum / e->n : NAN;
}

/* ---- the data set ---- */

enum {
    OP_PRE,
    OP_POST,
    OP_UP,
    OP_DOWN,
    OP_NORM,
    OP_ACT,
    OP_ROPE,
    OP_ADD,
    NOPS
};

static const char *const op_label[NOPS] = {
    "attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj",
    "norms",         "mlp_act",        "attn_rope",   "add",
};

/* One measured operator: its shape and median time (ns). */
struct sample {
    int op;
    int model;      /* index into models[] */
    double m, k, n; /* GEMM rows and shape; elementwise: bytes in k */
    int tp;
    double ns;
};

/* One measured layer: the sums the model classes are compared with. */
struct layer {
    int model, tp;
    double m;
    double proj_ns, mlp_ns, elem_ns;
};

struct model {
    char name[64];
    struct arch_spec arch;
    int gated;
};

struct data {
    struct sample *s;
    int ns, caps;
    struct layer *l;
    int nl, capl;
    struct model **models; /* owned, each xcalloc'd */
    int nmodels;
};

static void add_sample(struct data *d, struct sample s)
{
    if (d->ns == d->caps) {
        d->caps = d->caps ? 2 * d->caps : 4096;
        d->s = xrealloc(d->s, (size_t)d->caps, sizeof(*d->s));
    }
    d->s[d->ns++] = s;
}

static void add_layer(struct data *d, struct layer l)
{
    if (d->nl == d->capl) {
        d->capl = d->capl ? 2 * d->capl : 1024;
        d->l = xrealloc(d->l, (size_t)d->capl, sizeof(*d->l));
    }
    d->l[d->nl++] = l;
}

static double med(const struct csv *c, int row, const char *op)
{
    char col[96];

    snprintf(col, sizeof(col), "time_stats.%s.median", op);
    return csv_get(c, row, csv_col(c, col)) * 1e6; /* ms -> ns */
}

static void load_mlp(struct data *d, const char *path, const char *name)
{
    struct csv c;
    struct model *md;
    int mi;

    if (csv_read(path, &c) != 0)
        return;
    d->models = xrealloc(d->models, (size_t)d->nmodels + 1, sizeof(*d->models));
    mi = d->nmodels++;
    md = d->models[mi] = xcalloc(1, sizeof(*md));
    {
        size_t len = strlen(name);
        if (len >= sizeof(md->name))
            len = sizeof(md->name) - 1;
        memcpy(md->name, name, len); /* zeroed by xcalloc */
    }
    for (int r = 0; r < c.nrows; r++) {
        double h = csv_get(&c, r, csv_col(&c, "n_embd"));
        double nh = csv_get(&c, r, csv_col(&c, "n_head"));
        double nkv = csv_get(&c, r, csv_col(&c, "n_kv_head"));
        double f = csv_get(&c, r, csv_col(&c, "n_expanded_embd"));
        double m = csv_get(&c, r, csv_col(&c, "num_tokens"));
        int tp =
            (int)csv_get(&c, r, csv_col(&c, "num_tensor_parallel_workers"));
        int gated = csv_get(&c, r, csv_col(&c, "use_gated_mlp")) == 1.0;
        double dh = h / nh, kvg = nkv >= tp ? nkv / tp : 1.0;
        double norm2 = med(&c, r, "post_attention_layernorm");
        struct layer ly = {.model = mi, .tp = tp, .m = m};

        if (r == 0) {
            struct arch_spec *a = &md->arch;
            a->name = md->name;
            a->layers = 1;
            a->hidden = (int)h;
            a->heads = (int)nh;
            a->kv_heads = (int)nkv;
            a->head_dim = (int)dh;
            a->ffn = (int)f;
            a->vocab = (int)csv_get(&c, r, csv_col(&c, "vocab_size"));
            a->attn = ARCH_ATTN_GQA;
            a->weight_dtype = CL_DTYPE_BF16;
            md->gated = gated;
        }
        add_sample(d,
                   (struct sample){OP_PRE, mi, m, h, (nh / tp + 2.0 * kvg) * dh,
                                   tp, med(&c, r, "attn_pre_proj")});
        add_sample(d, (struct sample){OP_POST, mi, m, nh / tp * dh, h, tp,
                                      med(&c, r, "attn_post_proj")});
        add_sample(d, (struct sample){OP_UP, mi, m, h,
                                      (gated ? 2.0 : 1.0) * f / tp, tp,
                                      med(&c, r, "mlp_up_proj")});
        add_sample(d, (struct sample){OP_DOWN, mi, m, f / tp, h, tp,
                                      med(&c, r, "mlp_down_proj")});
        /* Elementwise bytes: RMSNorm reads and writes h; SiLU-and-mul reads
         * 2f and writes f (GELU: f and f); rotary reads and writes q and
         * k; add reads two and writes one. */
        add_sample(d, (struct sample){OP_NORM, mi, m, 2.0 * m * 2.0 * h, 0, tp,
                                      med(&c, r, "input_layernorm")});
        if (norm2 > 0.0)
            add_sample(d, (struct sample){OP_NORM, mi, m, 2.0 * m * 2.0 * h, 0,
                                          tp, norm2});
        add_sample(d, (struct sample){OP_ACT, mi, m,
                                      2.0 * m * (gated ? 3.0 : 2.0) * f / tp, 0,
                                      tp, med(&c, r, "mlp_act")});
        add_sample(d, (struct sample){OP_ROPE, mi, m,
                                      2.0 * m * 2.0 * (nh / tp + kvg) * dh, 0,
                                      tp, med(&c, r, "attn_rope")});
        add_sample(d, (struct sample){OP_ADD, mi, m, 2.0 * m * 3.0 * h, 0, tp,
                                      med(&c, r, "add")});
        if (gated) {
            ly.proj_ns =
                med(&c, r, "attn_pre_proj") + med(&c, r, "attn_post_proj");
            ly.mlp_ns = med(&c, r, "mlp_up_proj") + med(&c, r, "mlp_down_proj");
            ly.elem_ns = med(&c, r, "input_layernorm") +
                         (norm2 > 0.0 ? norm2 : 0.0) + med(&c, r, "mlp_act") +
                         med(&c, r, "attn_rope") + med(&c, r, "add");
            add_layer(d, ly);
        }
    }
    csv_free(&c);
}

/* Reads every <org>/<model>/mlp.csv under dir. */
static void load_all(struct data *d, const char *dir)
{
    DIR *orgs = opendir(dir);
    struct dirent *o;

    if (orgs == NULL)
        return;
    while ((o = readdir(orgs)) != NULL) {
        char p[1024];
        DIR *ms;
        struct dirent *m;

        if (o->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, o->d_name);
        ms = opendir(p);
        if (ms == NULL)
            continue;
        while ((m = readdir(ms)) != NULL) {
            char f[1536];
            if (m->d_name[0] == '.')
                continue;
            snprintf(f, sizeof(f), "%s/%s/mlp.csv", p, m->d_name);
            load_mlp(d, f, m->d_name);
        }
        closedir(ms);
    }
    closedir(orgs);
}

/* ---- predictions ----
 *
 * Vidur profiles every operator alone and eagerly, so its fixed times
 * hold one eager launch per kernel: predictions add launch_eager_ns to the
 * GPU-side kernel times and run the replicas without CUDA graphs
 * (cudagraph_max_tokens 0). */

static double gemm_ns(const struct perf_gpu_calib *c, const struct gpu_spec *g,
                      const struct sample *s)
{
    return perf_op_ns(
        2.0 * s->m * s->k * s->n, g->flops_bf16, perf_gemm_eff(c, s->m),
        2.0 * (s->k * s->n + s->m * s->k + s->m * s->n), g->hbm_bytes_per_s,
        c->gemm_eff_memory, 1.0, c->gemm_kernel_ns + c->launch_eager_ns, NULL);
}

static double elem_pred_ns(const struct perf_gpu_calib *c,
                           const struct gpu_spec *g, const struct sample *s)
{
    return perf_op_ns(0.0, 1.0, 1.0, s->k, g->hbm_bytes_per_s,
                      c->elem_eff_memory, 1.0,
                      c->elem_kernel_ns + c->launch_eager_ns, NULL);
}

static void gemm_errors(const struct data *d, const struct perf_gpu_calib *c,
                        const struct gpu_spec *g, struct err *per_op,
                        struct err *all)
{
    for (int i = 0; i < d->ns; i++) {
        const struct sample *s = &d->s[i];
        double p;
        if (s->op > OP_DOWN)
            continue;
        p = gemm_ns(c, g, s);
        err_add(&per_op[s->op], p, s->ns);
        err_add(all, p, s->ns);
    }
}

static void elem_errors(const struct data *d, const struct perf_gpu_calib *c,
                        const struct gpu_spec *g, struct err *per_op,
                        struct err *all, int with_add)
{
    for (int i = 0; i < d->ns; i++) {
        const struct sample *s = &d->s[i];
        double p;
        if (s->op < OP_NORM || (!with_add && s->op == OP_ADD))
            continue;
        p = elem_pred_ns(c, g, s);
        err_add(&per_op[s->op], p, s->ns);
        err_add(all, p, s->ns);
    }
}

/* GEMM errors by rows (tokens) and by TP degree, for the documentation. */
static void gemm_bands(const struct data *d, const struct perf_gpu_calib *c,
                       const struct gpu_spec *g)
{
    static const double lo[] = {1, 65, 513, 4097}, hi[] = {64, 512, 4096, 1e9};
    struct err band[4], tp[4];

    memset(band, 0, sizeof(band));
    memset(tp, 0, sizeof(tp));
    for (int i = 0; i < d->ns; i++) {
        const struct sample *s = &d->s[i];
        double p;
        if (s->op > OP_DOWN)
            continue;
        p = gemm_ns(c, g, s);
        for (int j = 0; j < 4; j++)
            if (s->m >= lo[j] && s->m <= hi[j])
                err_add(&band[j], p, s->ns);
        for (int j = 0; j < 4; j++)
            if (s->tp == 1 << j)
                err_add(&tp[j], p, s->ns);
    }
    for (int j = 0; j < 4; j++)
        printf("#   GEMMs, %5.0f-%-5.0f tokens  %8ld %7.1f%% %+8.1f%%\n", lo[j],
               hi[j] > 1e8 ? 32768.0 : hi[j], band[j].n,
               100.0 * err_mape(&band[j]), 100.0 * err_mean(&band[j]));
    for (int j = 0; j < 4; j++)
        printf("#   GEMMs, tp %d               %8ld %7.1f%% %+8.1f%%\n", 1 << j,
               tp[j].n, 100.0 * err_mape(&tp[j]), 100.0 * err_mean(&tp[j]));
}

/* The model classes on one-layer replicas of each model. */
static void class_errors(const struct data *d, const struct perf_gpu_calib *c,
                         const struct gpu_spec *g, struct err *proj,
                         struct err *mlp, struct err *elem)
{
    for (int i = 0; i < d->nl; i++) {
        const struct layer *ly = &d->l[i];
        struct perf_layout lay = {.tp = ly->tp,
                                  .pp = 1,
                                  .ep = 1,
                                  .gpus_per_node = 8,
                                  .nics_per_node = 0};
        struct perf_replica r;
        struct perf_batch b = {0};
        struct perf_breakdown bd;
        double once;

        if (perf_replica_init(&r, &d->models[ly->model]->arch, g, &lay,
                              CL_DTYPE_BF16, CL_DTYPE_BF16, 0.9, c, NULL,
                              0) != 0)
            continue;
        r.cudagraph_max_tokens = 0;
        b.prefill_tokens = (int64_t)ly->m;
        perf_iteration_breakdown(&r, &b, &bd);
        err_add(proj, bd.op[PERF_OP_ATTN_PROJ].ns, ly->proj_ns);
        err_add(mlp, bd.op[PERF_OP_MLP].ns, ly->mlp_ns);
        /* The class without the once-per-iteration embedding lookup and
         * final norm, which Vidur times elsewhere. */
        once = perf_op_ns(0.0, 1.0, 1.0, ly->m * r.elem_once * 2.0,
                          g->hbm_bytes_per_s, c->elem_eff_memory,
                          r.elem_once_kernels,
                          c->elem_kernel_ns + c->launch_eager_ns, NULL);
        err_add(elem, bd.op[PERF_OP_ELEMENTWISE].ns - once, ly->elem_ns);
    }
}

/* ---- attention (legacy CodeLlama-34B TP 2 profile) ---- */

struct attn_row {
    int prefill;
    double batch, chunk, kv, ns;
};

static int load_attention(const char *path, struct attn_row **out)
{
    struct csv c;
    int n = 0;

    *out = NULL;
    if (csv_read(path, &c) != 0)
        return -1;
    *out = xcalloc((size_t)c.nrows + 1, sizeof(**out));
    for (int r = 0; r < c.nrows; r++) {
        struct attn_row *a = &(*out)[n];
        a->prefill = csv_get(&c, r, csv_col(&c, "is_prefill")) == 1.0;
        a->batch = csv_get(&c, r, csv_col(&c, "batch_size"));
        a->chunk = csv_get(&c, r, csv_col(&c, "prefill_chunk_size"));
        a->kv = csv_get(&c, r, csv_col(&c, "kv_cache_size"));
        a->ns =
            1e6 *
            csv_get(&c, r,
                    csv_col(&c, a->prefill ? "time_stats.attn_prefill.median"
                                           : "time_stats.attn_decode.median"));
        if (a->ns > 0.0)
            n++;
    }
    csv_free(&c);
    return n;
}

/* CodeLlama-34B's attention shape (the profile's n_embd, n_q_head,
 * n_kv_head columns), one layer. */
static const struct arch_spec codellama_attn = {
    .name = "codellama-34b-attention",
    .summary = "test shape",
    .source = "vidur attention.csv",
    .layers = 1,
    .hidden = 8192,
    .heads = 64,
    .kv_heads = 8,
    .head_dim = 128,
    .ffn = 22016,
    .vocab = 32000,
    .attn = ARCH_ATTN_GQA,
    .weight_dtype = CL_DTYPE_BF16,
};

static void attn_errors(const struct attn_row *rows, int n,
                        const struct perf_gpu_calib *c,
                        const struct gpu_spec *g, struct err *pf,
                        struct err *dec)
{
    struct perf_layout lay = {
        .tp = 2, .pp = 1, .ep = 1, .gpus_per_node = 8, .nics_per_node = 0};
    struct perf_replica r;

    if (perf_replica_init(&r, &codellama_attn, g, &lay, CL_DTYPE_BF16,
                          CL_DTYPE_BF16, 0.9, c, NULL, 0) != 0)
        return;
    r.cudagraph_max_tokens = 0;
    for (int i = 0; i < n; i++) {
        const struct attn_row *a = &rows[i];
        struct perf_batch b = {0};
        struct perf_breakdown bd;

        if (a->prefill) {
            b.prefill_tokens = (int64_t)a->chunk;
            b.prefill_ctx_tokens = (int64_t)a->kv;
            b.prefill_attn_pairs = a->chunk * (a->kv + a->chunk / 2.0);
        } else {
            b.decode_seqs = (int64_t)a->batch;
            b.decode_ctx_tokens = (int64_t)(a->batch * a->kv);
        }
        perf_iteration_breakdown(&r, &b, &bd);
        err_add(a->prefill ? pf : dec, bd.op[PERF_OP_ATTENTION].ns, a->ns);
    }
}

/* ---- fits (--fit) ---- */

static void fit_gemm(const struct data *d, const struct gpu_spec *g,
                     struct perf_gpu_calib base)
{
    static const double emax[] = {0.70, 0.72, 0.74, 0.76, 0.78, 0.80};
    static const double half[] = {0, 16, 32, 48, 64, 80, 96, 128};
    static const double emem[] = {0.74, 0.76, 0.78, 0.80, 0.82, 0.84};
    static const double kern[] = {0, 2000, 4000, 5000, 6000, 7000, 8000};
    double best = INFINITY;
    struct perf_gpu_calib c = base, bc = base;

    for (size_t a = 0; a < sizeof(emax) / sizeof(emax[0]); a++)
        for (size_t b = 0; b < sizeof(half) / sizeof(half[0]); b++)
            for (size_t m = 0; m < sizeof(emem) / sizeof(emem[0]); m++)
                for (size_t k = 0; k < sizeof(kern) / sizeof(kern[0]); k++) {
                    struct err per[NOPS], all = {0};
                    memset(per, 0, sizeof(per));
                    c.gemm_eff_max = emax[a];
                    c.gemm_half_tokens = half[b];
                    c.gemm_eff_memory = emem[m];
                    c.gemm_kernel_ns = kern[k];
                    gemm_errors(d, &c, g, per, &all);
                    if (err_mape(&all) < best) {
                        best = err_mape(&all);
                        bc = c;
                    }
                }
    printf("# fit gemm: efficiency_max %.2f, half_tokens %.0f, "
           "hbm_efficiency %.2f, kernel_time %.0f ns: MAPE %.2f%%\n",
           bc.gemm_eff_max, bc.gemm_half_tokens, bc.gemm_eff_memory,
           bc.gemm_kernel_ns, 100.0 * best);
}

static void fit_elem(const struct data *d, const struct gpu_spec *g,
                     struct perf_gpu_calib base)
{
    double best = INFINITY;
    struct perf_gpu_calib c = base, bc = base;

    for (int e = 20; e <= 100; e += 2)
        for (int k = 0; k <= 8000; k += 500) {
            struct err per[NOPS], all = {0};
            memset(per, 0, sizeof(per));
            c.elem_eff_memory = e / 100.0;
            c.elem_kernel_ns = k;
            elem_errors(d, &c, g, per, &all, 0);
            if (err_mape(&all) < best) {
                best = err_mape(&all);
                bc = c;
            }
        }
    printf("# fit elementwise (norms, act, rope): hbm_efficiency %.2f, "
           "kernel_time %.0f ns: MAPE %.2f%%\n",
           bc.elem_eff_memory, bc.elem_kernel_ns, 100.0 * best);
}

static void fit_attn(const struct attn_row *rows, int n,
                     const struct gpu_spec *g, struct perf_gpu_calib base)
{
    double best = INFINITY;
    struct perf_gpu_calib c = base, bc = base;

    for (int ec = 20; ec <= 40; ec += 2)
        for (int em = 60; em <= 100; em += 2)
            for (int k = 0; k <= 30000; k += 1000) {
                struct err pf = {0}, dec = {0};
                double m;
                c.attn_eff_compute = ec / 100.0;
                c.attn_eff_memory = em / 100.0;
                c.attn_kernel_ns = k;
                attn_errors(rows, n, &c, g, &pf, &dec);
                m = (pf.sum + dec.sum) / (double)(pf.n + dec.n);
                if (m < best) {
                    best = m;
                    bc = c;
                }
            }
    printf("# fit attention: compute_efficiency %.2f, hbm_efficiency %.2f, "
           "kernel_time %.0f ns: MAPE %.2f%%\n",
           bc.attn_eff_compute, bc.attn_eff_memory, bc.attn_kernel_ns,
           100.0 * best);
}

/* ---- main ---- */

static int n_test;
static int n_fail;

static void check(const char *what, double mape, double bound)
{
    int ok = !isnan(mape) && mape <= bound;

    n_test++;
    if (!ok)
        n_fail++;
    printf("%sok %d - %s: MAPE %.1f%% <= %.0f%%\n", ok ? "" : "not ", n_test,
           what, 100.0 * mape, 100.0 * bound);
}

/* The first existing data directory, or NULL. */
static char *find_data(void)
{
    const char *env = getenv("DSEC_VIDUR_DIR");
    const char *src = getenv("top_srcdir");
    char *cand[3] = {NULL, NULL, NULL};
    char *found = NULL;

    if (env != NULL && env[0] != '\0')
        cand[0] = xstrdup(env);
    if (src == NULL || src[0] == '\0')
        src = ".";
    cand[1] = xasprintf("%s/../shared/reference/vidur", src);
    cand[2] = xasprintf("%s/shared/reference/vidur", src);
    for (int i = 0; i < 3; i++) {
        char *probe;
        FILE *fp;
        if (cand[i] == NULL || found != NULL)
            continue;
        probe = xasprintf("%s/README.md", cand[i]);
        fp = fopen(probe, "r");
        free(probe);
        if (fp != NULL) {
            fclose(fp);
            found = cand[i];
            cand[i] = NULL;
        }
    }
    for (int i = 0; i < 3; i++)
        free(cand[i]);
    return found;
}

int main(int argc, char **argv)
{
    const struct gpu_spec *g = gpu_find("a100");
    struct perf_gpu_calib c;
    struct data d;
    struct err per[NOPS], gemm = {0}, elem = {0}, proj = {0}, mlp = {0},
                          ecls = {0}, pf = {0}, dec = {0};
    struct attn_row *attn = NULL;
    char *dir, *p;
    int nattn, fit = argc > 1 && strcmp(argv[1], "--fit") == 0;

    dir = find_data();
    if (dir == NULL) {
        printf("1..0 # SKIP Vidur reference data not found (set "
               "DSEC_VIDUR_DIR, or put it at $top_srcdir/../shared/"
               "reference/vidur)\n");
        return 0;
    }
    if (g == NULL) {
        printf("1..0 # SKIP no a100 in the GPU catalog\n");
        free(dir);
        return 0;
    }
    memset(&d, 0, sizeof(d));
    memset(per, 0, sizeof(per));
    p = xasprintf("%s/data/profiling/compute/a100", dir);
    load_all(&d, p);
    free(p);
    p = xasprintf("%s/legacy/acb95f6/data/profiling/a100/attention.csv", dir);
    nattn = load_attention(p, &attn);
    free(p);
    if (d.ns == 0 || nattn <= 0) {
        printf("1..0 # SKIP Vidur A100 profiles not readable under %s\n", dir);
        free(dir);
        free(attn);
        return 0;
    }

    perf_calib_resolve(NULL, g, &c);
    gemm_errors(&d, &c, g, per, &gemm);
    elem_errors(&d, &c, g, per, &elem, 1);
    class_errors(&d, &c, g, &proj, &mlp, &ecls);
    attn_errors(attn, nattn, &c, g, &pf, &dec);

    printf("1..%d\n", (OP_DOWN + 1) + (OP_ADD - OP_NORM) + 6);
    printf("# Vidur A100 medians (%s), %d models, built-in a100 "
           "calibration\n",
           dir, d.nmodels);
    printf("# %-26s %8s %8s %9s\n", "operator or class", "rows", "MAPE",
           "signed");
    for (int i = 0; i < NOPS; i++)
        printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", op_label[i], per[i].n,
               100.0 * err_mape(&per[i]), 100.0 * err_mean(&per[i]));
    printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", "all GEMMs", gemm.n,
           100.0 * err_mape(&gemm), 100.0 * err_mean(&gemm));
    gemm_bands(&d, &c, g);
    printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", "class attn_proj", proj.n,
           100.0 * err_mape(&proj), 100.0 * err_mean(&proj));
    printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", "class mlp", mlp.n,
           100.0 * err_mape(&mlp), 100.0 * err_mean(&mlp));
    printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", "class elementwise", ecls.n,
           100.0 * err_mape(&ecls), 100.0 * err_mean(&ecls));
    printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", "attention prefill", pf.n,
           100.0 * err_mape(&pf), 100.0 * err_mean(&pf));
    printf("# %-26s %8ld %7.1f%% %+8.1f%%\n", "attention decode", dec.n,
           100.0 * err_mape(&dec), 100.0 * err_mean(&dec));

    for (int i = 0; i <= OP_DOWN; i++)
        check(op_label[i], err_mape(&per[i]), BOUND_GEMM);
    for (int i = OP_NORM; i < OP_ADD; i++)
        check(op_label[i], err_mape(&per[i]), BOUND_ELEM);
    /* vLLM fuses the residual add into the norm, so the model has no add
     * kernel; the unfused add streams at 90 % of HBM, twice the others,
     * and is only reported, not bounded. */
    check("class attn_proj (QKV + O)", err_mape(&proj), BOUND_GEMM);
    check("class mlp (up + down)", err_mape(&mlp), BOUND_GEMM);
    check("class elementwise", err_mape(&ecls), BOUND_ELEM_CLASS);
    check("attention prefill", err_mape(&pf), BOUND_ATTN_PREFILL);
    check("attention decode", err_mape(&dec), BOUND_ATTN_DECODE);
    check("all GEMMs", err_mape(&gemm), BOUND_GEMM);
    printf("# add (unbounded, see source) %.1f%%\n",
           100.0 * err_mape(&per[OP_ADD]));

    if (fit) {
        fit_gemm(&d, g, c);
        fit_elem(&d, g, c);
        fit_attn(attn, nattn, g, c);
    }
    free(d.s);
    free(d.l);
    for (int i = 0; i < d.nmodels; i++)
        free(d.models[i]);
    free(d.models);
    free(attn);
    free(dir);
    return n_fail == 0 ? 0 : 1;
}
