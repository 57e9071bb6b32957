/*
 * Calibration profiles: the built-in defaults, the YAML loader and the
 * resolution of one GPU kind's constants.
 *
 * The built-in values and where each comes from (docs/step-time.md has the
 * fit and its error table):
 *
 * - GEMMs, "default" entry: eta(M) = 0.74 * M / (M + 80), HBM fraction
 *   0.80, 6 us per kernel. Fitted (grid search, least mean absolute
 *   percentage error) on the Vidur A100 per-operator medians of the four
 *   GEMMs of eight models at TP 1-8 and 1-32,768 tokens
 *   (shared/reference/vidur, microsoft/vidur @ 7d47513, 36,516 rows),
 *   tests/vidur-check. The asymptote sits inside the kernel authors'
 *   anchors of FACTS.md §1.3 (FlashMLA BF16 67 %, DeepGEMM FP8 78 %) and
 *   the HBM fraction below FlashMLA's 90 %.
 * - Elementwise kernels: HBM fraction 0.46 and 2.5 us per kernel, fitted
 *   on the same files' norms, rotary embedding and activation.
 * - Attention, "default" entry: FlashMLA's compute-bound 67 % of BF16 peak
 *   and memory-bound 90 % of HBM on H800 (FACTS.md §1.3), the Hopper kernel
 *   authors' figures; 15 us per kernel from the A100 fit below
 *   (assumption for other GPUs).
 * - Attention, "a100" entry: 28 % of peak, 78 % of HBM, 15 us per kernel,
 *   fitted on Vidur's FlashAttention profile of CodeLlama-34B at TP 2 on
 *   A100 (legacy/acb95f6 attention.csv, 14,658 rows).
 * - Host overhead, "default": 126 us per iteration and 4 us per sequence,
 *   BLIS's H100 fit (inference-sim @ f90a1e3 via FACTS.md §5.4).
 * - Host overhead, "a100": 870 us per iteration and 42 us per sequence,
 *   the line through Vidur's A100 CPU overheads of Llama-2-7B at TP 1
 *   (1.2 ms at batch 8, 6.2 ms at 128, FACTS.md §5.4; derived).
 *
 * The loader walks libyaml's document tree (as scenarios/load.c does) and
 * stores scalars through the sim_param rows below, so units, ranges and
 * messages are those of the scenario language.
 */
#include "models/perf/calib.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "base/errors.h"
#include "base/xalloc.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define GT SIM_PF_MIN_EXCL
#define REQ SIM_PF_REQUIRED

/* ---- built-in profile ---- */

static const struct perf_calib_gpu builtin_gpus[] = {
    {
        .name = (char *)PERF_CALIB_DEFAULT_GPU,
        /* Vidur A100 GEMM fit (file comment); inside FACTS.md §1.3. */
        .gemm = {.eff_max = 0.74,
                 .half_tokens = 80.0,
                 .eff_memory = 0.80,
                 .kernel_ns = 6000},
        /* FlashMLA on H800, FACTS.md §1.3; kernel time: A100 fit. */
        .attn = {.eff_compute = 0.67, .eff_memory = 0.90, .kernel_ns = 15000},
        /* Vidur A100 norm/rope/activation fit (file comment). */
        .elem = {.eff_memory = 0.46, .kernel_ns = 2500},
        /* BLIS H100 fit, FACTS.md §5.4: beta7 126 us, beta6 4 us. */
        .iteration_overhead_ns = 126000,
        .seq_overhead_ns = 4000,
    },
    {
        .name = (char *)"a100",
        .gemm = {.eff_max = NAN,
                 .half_tokens = NAN,
                 .eff_memory = NAN,
                 .kernel_ns = -1},
        /* Vidur A100 FlashAttention fit (file comment). */
        .attn = {.eff_compute = 0.28, .eff_memory = 0.78, .kernel_ns = 15000},
        .elem = {.eff_memory = NAN, .kernel_ns = -1},
        /* Vidur A100 CPU overheads, FACTS.md §5.4 (derived line). */
        .iteration_overhead_ns = 870000,
        .seq_overhead_ns = 42000,
    },
};

const struct perf_calib perf_calib_builtin = {
    .file = (char *)"built-in defaults",
    .format = PERF_CALIB_FORMAT,
    .tool = (char *)"dsec built-in defaults",
    .date = (char *)"2026-11-30",
    .host = NULL,
    .raw_log = NULL,
    .note = (char *)"docs/step-time.md",
    .gpus = (struct perf_calib_gpu *)builtin_gpus,
    .ngpus = (int)(sizeof(builtin_gpus) / sizeof(builtin_gpus[0])),
    .links = NULL,
    .nlinks = 0,
};

/* ---- parameter rows ---- */

#define GEMM(f) offsetof(struct perf_calib_gemm, f)
#define ATTN(f) offsetof(struct perf_calib_attn, f)
#define ELEM(f) offsetof(struct perf_calib_elem, f)
#define GPU(f) offsetof(struct perf_calib_gpu, f)
#define LINK(f) offsetof(struct perf_calib_link, f)
#define CAL(f) offsetof(struct perf_calib, f)

static const struct sim_param gemm_rows[] = {
    {"efficiency_max", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT, NULL,
     "achieved fraction of peak FLOP/s of a GEMM with many rows", GEMM(eff_max),
     NULL, NULL},
    {"half_tokens", SIM_PT_DOUBLE, SIM_U_TOKENS, 0, 1e6, 0, NULL,
     "rows (tokens) at which a GEMM reaches half of efficiency_max",
     GEMM(half_tokens), NULL, NULL},
    {"hbm_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT, NULL,
     "achieved fraction of peak HBM bandwidth of a memory-bound GEMM",
     GEMM(eff_memory), NULL, NULL},
    {"kernel_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed GPU time of one GEMM kernel", GEMM(kernel_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param attn_rows[] = {
    {"compute_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT, NULL,
     "achieved fraction of peak bf16 FLOP/s of attention kernels",
     ATTN(eff_compute), NULL, NULL},
    {"hbm_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT, NULL,
     "achieved fraction of peak HBM bandwidth reading the KV cache",
     ATTN(eff_memory), NULL, NULL},
    {"kernel_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed GPU time of one attention kernel", ATTN(kernel_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param elem_rows[] = {
    {"hbm_efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT, NULL,
     "achieved fraction of peak HBM bandwidth of norms and activations",
     ELEM(eff_memory), NULL, NULL},
    {"kernel_time", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "fixed GPU time of one elementwise kernel", ELEM(kernel_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param perf_calib_gpu_rows[] = {
    {"gemm", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "GEMM efficiency curve", GPU(gemm), NULL, gemm_rows},
    {"attention", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "attention kernels", GPU(attn), NULL, attn_rows},
    {"elementwise", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "norms, rotary embedding, activation, residual add", GPU(elem), NULL,
     elem_rows},
    {"iteration_overhead", SIM_PT_DURATION, SIM_U_SECONDS, 0, 10, 0, NULL,
     "host time per engine iteration", GPU(iteration_overhead_ns), NULL, NULL},
    {"sequence_overhead", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL,
     "host time per sequence in the batch", GPU(seq_overhead_ns), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

const struct sim_param perf_calib_link_rows[] = {
    {"alpha", SIM_PT_DURATION, SIM_U_SECONDS, 0, 1, 0, NULL, "per-step latency",
     LINK(alpha_ns), NULL, NULL},
    {"bandwidth", SIM_PT_DOUBLE, SIM_U_BYTES_PER_S, 0, NOMAX, GT, NULL,
     "nominal bandwidth per direction", LINK(bytes_per_s), NULL, NULL},
    {"efficiency", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, GT, NULL,
     "achieved fraction of the bandwidth", LINK(efficiency), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const struct sim_param provenance_rows[] = {
    {"tool", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "tool and version that wrote the profile", CAL(tool), NULL, NULL},
    {"date", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "date of the measurement, ISO 8601", CAL(date), NULL, NULL},
    {"host", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "host or node measured", CAL(host), NULL, NULL},
    {"raw_log", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "raw log file of the measurement", CAL(raw_log), NULL, NULL},
    {"note", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL, "free text",
     CAL(note), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* The root keys. gpus and links are mappings keyed by name, walked by
 * hand; their rows only name them. */
static const struct sim_param root_rows[] = {
    {"format", SIM_PT_INT, SIM_U_NONE, 1, 1e6, REQ, NULL, "profile format, 1",
     CAL(format), NULL, NULL},
    {"provenance", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "who measured what, when", 0, NULL, provenance_rows},
    {"gpus", SIM_PT_MAP, SIM_U_NONE, 0, PERF_CALIB_MAX_GPUS, 0, NULL,
     "GPU kind -> constants", CAL(gpus), NULL, NULL},
    {"links", SIM_PT_MAP, SIM_U_NONE, 0, PERF_CALIB_MAX_LINKS, 0, NULL,
     "link class -> constants", CAL(links), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* ---- loader ---- */

struct ctx {
    const char *file;
    yaml_document_t *doc;
    struct sim_diag *d;
    int errors;
};

static void error_at(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void error_at(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_diag_vadd(c->d, SIM_SEV_ERROR, c->file,
                  n ? (int)n->start_mark.line + 1 : 0,
                  n ? (int)n->start_mark.column + 1 : 0, fmt, ap);
    va_end(ap);
    c->errors++;
}

static int is_null(const yaml_node_t *n)
{
    const char *v;

    if (n->type != YAML_SCALAR_NODE ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    v = (const char *)n->data.scalar.value;
    return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0;
}

static const char *node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    default:
        return "a scalar";
    }
}

static char *join(const char *parent, const char *key)
{
    return parent[0] ? xasprintf("%s.%s", parent, key) : xstrdup(key);
}

/* The text of a scalar key without embedded NULs, or NULL. */
static const char *key_text(const yaml_node_t *k)
{
    if (k->type != YAML_SCALAR_NODE ||
        strlen((const char *)k->data.scalar.value) != k->data.scalar.length)
        return NULL;
    return (const char *)k->data.scalar.value;
}

/* Is v a mapping? Reports "PATH: expected a mapping, got ..." if not. */
static int want_mapping(struct ctx *c, const yaml_node_t *v, const char *path)
{
    if (v->type == YAML_MAPPING_NODE)
        return 1;
    if (is_null(v))
        error_at(c, v, "%s: missing value; expected a mapping", path);
    else if (v->type == YAML_SCALAR_NODE)
        error_at(c, v, "%s: expected a mapping, got '%s'", path,
                 (const char *)v->data.scalar.value);
    else
        error_at(c, v, "%s: expected a mapping, got %s", path, node_kind(v));
    return 0;
}

static void unknown_key(struct ctx *c, const yaml_node_t *k,
                        const struct sim_param *rows, const char *path)
{
    char list[256];
    size_t used = 0;

    list[0] = '\0';
    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s%s",
                         p == rows ? "" : ", ", p->key);
        if (w < 0 || (size_t)w >= sizeof(list) - used)
            break;
        used += (size_t)w;
    }
    error_at(c, k, "%s: unknown key; valid: %s", path, list);
}

static void walk_named(struct ctx *c, const struct sim_param *row,
                       yaml_node_t *v, struct perf_calib *out,
                       const char *path);

/* Fills base from mapping node v through rows; path names v. Sections
 * recurse; gpus and links (map rows) go to walk_named(). Missing required
 * keys are reported at v. */
static void walk(struct ctx *c, const struct sim_param *rows, yaml_node_t *v,
                 void *base, struct perf_calib *root, const char *path)
{
    unsigned seen = 0;
    char err[SIM_PARAM_ERRLEN];
    int i;

    for (yaml_node_pair_t *pr = v->data.mapping.pairs.start;
         pr < v->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *val = yaml_document_get_node(c->doc, pr->value);
        const char *key = key_text(k);
        const struct sim_param *p;
        char *child;

        if (key == NULL) {
            error_at(c, k, "%s: expected a key name, got %s",
                     path[0] ? path : "profile", node_kind(k));
            continue;
        }
        child = join(path, key);
        p = sim_param_find(rows, key);
        if (p == NULL) {
            unknown_key(c, k, rows, child);
            free(child);
            continue;
        }
        i = (int)(p - rows);
        if (seen & (1u << i)) {
            error_at(c, k, "%s: duplicate key", child);
            free(child);
            continue;
        }
        seen |= 1u << i;
        if (p->type == SIM_PT_SECTION) {
            if (want_mapping(c, val, child))
                walk(c, p->sub, val, (char *)base + p->offset, root, child);
        } else if (p->type == SIM_PT_MAP) {
            if (want_mapping(c, val, child))
                walk_named(c, p, val, root, child);
        } else if (val->type != YAML_SCALAR_NODE) {
            error_at(c, val, "%s: expected a scalar, got %s", child,
                     node_kind(val));
        } else if (is_null(val)) {
            error_at(c, k, "%s: missing value", child);
        } else if (sim_param_parse(p, (const char *)val->data.scalar.value,
                                   base, err, sizeof(err)) != 0) {
            error_at(c, val, "%s: %s", child, err);
        }
        free(child);
    }
    for (i = 0; rows[i].key != NULL; i++)
        if ((rows[i].flags & SIM_PF_REQUIRED) && !(seen & (1u << i)))
            error_at(c, v, "%s%smissing key '%s'", path, path[0] ? ": " : "",
                     rows[i].key);
}

/* Fills the gpus or links array of out from mapping v (name -> entry). */
static void walk_named(struct ctx *c, const struct sim_param *row,
                       yaml_node_t *v, struct perf_calib *out, const char *path)
{
    int is_gpus = row->offset == CAL(gpus);
    const struct sim_param *rows =
        is_gpus ? perf_calib_gpu_rows : perf_calib_link_rows;
    char err[SIM_PARAM_ERRLEN];

    for (yaml_node_pair_t *pr = v->data.mapping.pairs.start;
         pr < v->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *val = yaml_document_get_node(c->doc, pr->value);
        const char *name = key_text(k);
        char *child;
        void *entry;
        char **slot;

        if (name == NULL || name[0] == '\0') {
            error_at(c, k, "%s: expected a %s name", path,
                     is_gpus ? "gpu" : "link class");
            continue;
        }
        child = join(path, name);
        if (is_gpus ? perf_calib_find_gpu(out, name) != NULL : 0) {
            error_at(c, k, "%s: duplicate entry", child);
            goto next;
        }
        if (!is_gpus) {
            int dup = 0;
            for (int i = 0; i < out->nlinks; i++)
                dup |= strcasecmp(out->links[i].name, name) == 0;
            if (dup) {
                error_at(c, k, "%s: duplicate entry", child);
                goto next;
            }
            if (net_link_find(name) == NULL) {
                char *names = net_link_names();
                error_at(c, k, "%s: unknown link class '%s'; valid: %s", path,
                         name, names);
                free(names);
                goto next;
            }
        }
        if ((is_gpus ? out->ngpus : out->nlinks) >= (int)row->max) {
            error_at(c, k, "%s: more than %g entries", path, row->max);
            goto next;
        }
        if (is_gpus) {
            out->gpus =
                xrealloc(out->gpus, (size_t)out->ngpus + 1, sizeof(*out->gpus));
            entry = &out->gpus[out->ngpus++];
            memset(entry, 0, sizeof(out->gpus[0]));
            slot = &out->gpus[out->ngpus - 1].name;
        } else {
            out->links = xrealloc(out->links, (size_t)out->nlinks + 1,
                                  sizeof(*out->links));
            entry = &out->links[out->nlinks++];
            memset(entry, 0, sizeof(out->links[0]));
            slot = &out->links[out->nlinks - 1].name;
        }
        for (const struct sim_param *p = rows; p->key != NULL; p++)
            if (sim_param_default(p, entry, err, sizeof(err)) != 0)
                sim_fatal("calibration table default of %s: %s", p->key, err);
        *slot = xstrdup(name);
        if (want_mapping(c, val, child))
            walk(c, rows, val, entry, out, child);
    next:
        free(child);
    }
}

static void syntax_error(struct ctx *c, const yaml_parser_t *parser)
{
    sim_diag_error(c->d, c->file, (int)parser->problem_mark.line + 1,
                   (int)parser->problem_mark.column + 1, "%s",
                   parser->problem ? parser->problem : "invalid YAML");
    c->errors++;
}

int perf_calib_load_string(const char *name, const char *text, size_t len,
                           struct perf_calib *out, struct sim_diag *d)
{
    struct perf_calib cal;
    struct ctx c = {.file = name, .d = d, .errors = 0};
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root;
    char err[SIM_PARAM_ERRLEN];
    int rc = 0;

    memset(out, 0, sizeof(*out));
    memset(&cal, 0, sizeof(cal));
    if (len > PERF_CALIB_MAX_BYTES) {
        sim_diag_error(d, name, 0, 0, "larger than %u bytes",
                       PERF_CALIB_MAX_BYTES);
        return SIM_EIO;
    }
    if (!yaml_parser_initialize(&parser))
        sim_fatal("yaml_parser_initialize failed");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        syntax_error(&c, &parser);
        yaml_parser_delete(&parser);
        return SIM_EPARSE;
    }
    c.doc = &doc;
    for (const struct sim_param *p = provenance_rows; p->key != NULL; p++)
        if (sim_param_default(p, &cal, err, sizeof(err)) != 0)
            sim_fatal("calibration table default of %s: %s", p->key, err);
    cal.format = 0;
    root = yaml_document_get_root_node(&doc);
    if (root == NULL) {
        sim_diag_error(d, name, 1, 1,
                       "expected a mapping of profile keys, got an empty "
                       "document");
        c.errors++;
    } else if (root->type != YAML_MAPPING_NODE) {
        error_at(&c, root, "expected a mapping of profile keys, got %s",
                 node_kind(root));
    } else {
        walk(&c, root_rows, root, &cal, &cal, "");
        if (c.errors == 0 && cal.format != PERF_CALIB_FORMAT) {
            yaml_node_t *at = root;
            for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
                 pr < root->data.mapping.pairs.top; pr++) {
                yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
                if (key_text(k) && strcmp(key_text(k), "format") == 0)
                    at = yaml_document_get_node(&doc, pr->value);
            }
            error_at(&c, at, "format: %d is not supported; valid: %d",
                     cal.format, PERF_CALIB_FORMAT);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (c.errors > 0) {
        perf_calib_fini(&cal);
        rc = SIM_EINVAL;
    } else {
        cal.file = xstrdup(name);
        *out = cal;
    }
    return rc;
}

int perf_calib_load(const char *path, struct perf_calib *out,
                    struct sim_diag *d)
{
    FILE *fp;
    char *text;
    size_t n;
    int rc;

    memset(out, 0, sizeof(*out));
    fp = fopen(path, "rb");
    if (fp == NULL) {
        sim_diag_error(d, path, 0, 0, "cannot read calibration profile: %s",
                       strerror(errno));
        return SIM_EIO;
    }
    text = xmalloc(PERF_CALIB_MAX_BYTES + 1);
    n = fread(text, 1, PERF_CALIB_MAX_BYTES + 1, fp);
    if (ferror(fp)) {
        sim_diag_error(d, path, 0, 0, "cannot read calibration profile: %s",
                       strerror(errno));
        fclose(fp);
        free(text);
        return SIM_EIO;
    }
    fclose(fp);
    rc = perf_calib_load_string(path, text, n, out, d);
    free(text);
    return rc;
}

void perf_calib_fini(struct perf_calib *c)
{
    if (c == NULL)
        return;
    free(c->file);
    free(c->tool);
    free(c->date);
    free(c->host);
    free(c->raw_log);
    free(c->note);
    for (int i = 0; i < c->ngpus; i++)
        free(c->gpus[i].name);
    free(c->gpus);
    for (int i = 0; i < c->nlinks; i++)
        free(c->links[i].name);
    free(c->links);
    memset(c, 0, sizeof(*c));
}

const struct perf_calib_gpu *perf_calib_find_gpu(const struct perf_calib *c,
                                                 const char *name)
{
    if (c == NULL || name == NULL)
        return NULL;
    for (int i = 0; i < c->ngpus; i++)
        if (strcasecmp(c->gpus[i].name, name) == 0)
            return &c->gpus[i];
    return NULL;
}

/* ---- resolution ---- */

static void set_d(double *dst, double v)
{
    if (!isnan(v))
        *dst = v;
}

static void set_ns(double *dst, int64_t v)
{
    if (v >= 0)
        *dst = (double)v;
}

static void apply_gpu(const struct perf_calib_gpu *e, struct perf_gpu_calib *o)
{
    if (e == NULL)
        return;
    set_d(&o->gemm_eff_max, e->gemm.eff_max);
    set_d(&o->gemm_half_tokens, e->gemm.half_tokens);
    set_d(&o->gemm_eff_memory, e->gemm.eff_memory);
    set_ns(&o->gemm_kernel_ns, e->gemm.kernel_ns);
    set_d(&o->attn_eff_compute, e->attn.eff_compute);
    set_d(&o->attn_eff_memory, e->attn.eff_memory);
    set_ns(&o->attn_kernel_ns, e->attn.kernel_ns);
    set_d(&o->elem_eff_memory, e->elem.eff_memory);
    set_ns(&o->elem_kernel_ns, e->elem.kernel_ns);
    set_ns(&o->iteration_overhead_ns, e->iteration_overhead_ns);
    set_ns(&o->seq_overhead_ns, e->seq_overhead_ns);
}

static void apply_link(const struct perf_calib *c, struct net_link *l)
{
    if (c == NULL || l->name == NULL)
        return;
    for (int i = 0; i < c->nlinks; i++) {
        const struct perf_calib_link *e = &c->links[i];
        if (strcasecmp(e->name, l->name) != 0)
            continue;
        if (e->alpha_ns >= 0)
            l->alpha_ns = (double)e->alpha_ns;
        set_d(&l->bytes_per_s, e->bytes_per_s);
        set_d(&l->efficiency, e->efficiency);
    }
}

void perf_calib_resolve(const struct perf_calib *c, const struct gpu_spec *g,
                        struct perf_gpu_calib *out)
{
    const struct net_link *inter = net_link_find(PERF_CALIB_INTER_LINK);

    memset(out, 0, sizeof(*out));
    apply_gpu(perf_calib_find_gpu(&perf_calib_builtin, PERF_CALIB_DEFAULT_GPU),
              out);
    apply_gpu(perf_calib_find_gpu(&perf_calib_builtin, g->name), out);
    apply_gpu(perf_calib_find_gpu(c, PERF_CALIB_DEFAULT_GPU), out);
    apply_gpu(perf_calib_find_gpu(c, g->name), out);
    gpu_intra_link(g, &out->intra);
    if (inter != NULL)
        out->inter = *inter;
    apply_link(c, &out->intra);
    apply_link(c, &out->inter);
    out->source = c == NULL         ? "built-in defaults"
                  : c->file != NULL ? c->file
                                    : "calibration profile";
}

/* ---- cost primitives ---- */

double perf_gemm_eff(const struct perf_gpu_calib *c, double m_tokens)
{
    if (!(m_tokens > 0.0))
        return 0.0;
    return c->gemm_eff_max * m_tokens / (m_tokens + c->gemm_half_tokens);
}

double perf_op_ns(double flops, double peak_flops, double eff_compute,
                  double bytes, double hbm_bytes_per_s, double eff_memory,
                  double kernels, double kernel_ns, int *bound)
{
    double tc = flops > 0.0 ? flops / (eff_compute * peak_flops) : 0.0;
    double tm = bytes > 0.0 ? bytes / (eff_memory * hbm_bytes_per_s) : 0.0;

    if (bound != NULL)
        *bound = tc == 0.0 && tm == 0.0 ? PERF_BOUND_NONE
                 : tc >= tm             ? PERF_BOUND_COMPUTE
                                        : PERF_BOUND_MEMORY;
    return 1e9 * (tc > tm ? tc : tm) + kernels * kernel_ns;
}
