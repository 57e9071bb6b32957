/* Sweep files. The base scenario is parsed again for every point (a
 * scenario is a few kilobytes: tens of microseconds) rather than deep-copied,
 * because libyaml has no copy and its emitter destroys the document it
 * dumps. Every node of the edited tree carries an origin (which file, line
 * and column it came from); walking the tree before it is emitted and the
 * re-parsed text after, in the same order, pairs each position in the
 * emitted text with an origin, which is how a diagnostic about a point moves
 * back to the sweep file or the base scenario. That second parse happens
 * only for points with diagnostics. */
#include "sweep/spec.h"

#include "models/cluster/predict.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/yaml-rows.h"
#include "sweep/sweep-int.h"

/* Deepest node nesting followed, and most nodes visited or copied for one
 * point: bounds the cost of alias "bombs" in either file. */
#define MAX_DEPTH 64
#define MAX_NODES 200000

/* Points with errors checked before the load gives up: most errors are in
 * the base or in one axis value, and repeat in every later point. */
#define MAX_FAILED_POINTS 8

/* Files a node can come from. */
enum { F_BASE, F_SWEEP };

struct org {
    int file; /* F_BASE, F_SWEEP */
    int line, col;
};

/* An override: set path to the node `node` of the sweep document, or, when
 * node is 0, to the plain scalar `canon` (a replication's seed). */
struct ov {
    const char *path;
    int node;
    const char *canon;
    int kline, kcol; /* the key path's position in the sweep file */
};

struct axis {
    struct ov key; /* node and canon unused */
    int *nodes;
    char **canon;
    int n;
};

/* An entry of `points:`. */
struct xpoint {
    struct ov *ovs;
    int n;
    char *key; /* canonical, for the duplicate check */
    int line, col;
};

struct ld {
    const char *file; /* the sweep file */
    char *dir;
    struct sim_yaml y; /* the sweep file's document and its walk */
    struct sim_diag *d;

    char *base_file; /* NULL for an inline scenario */
    char *base_text;
    size_t base_len;
    /* The base's text when the caller has it (swp_text_with_sets()): base:
     * then only names it. NULL: base: is a file to read. */
    const char *given_text;
    size_t given_len;
    int inline_node;
    const char *files[2]; /* by F_* */

    char *name;
    int replications; /* as given; 0 when not */
    int uncertainty;  /* as given; 0 when not */
    struct axis axes[SWP_MAX_AXES];
    int naxes;
    struct xpoint *xp;
    int nxp;
    struct xpoint set; /* `set:`, applied to every point first */
    int seed_mode;     /* 0 none, 1 replications, 2 seeds list */
    uint64_t *seeds;
    int nseeds; /* replications: the count; seeds: the list's length */
    int seed_line, seed_col;
    const yaml_node_t *seeds_node; /* the seeds list given */

    /* Messages added to d so far, formatted, to add each once. */
    char **said;
    int nsaid;
    int failed; /* points with errors */
};

/* A base document being edited for one point, with its nodes' origins. */
struct gen {
    yaml_document_t doc;
    struct org *org; /* [node id]; 0 unused */
    size_t caporg;
    size_t copied;
};

static const char *scalar(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                       : NULL;
}

/* Canonical text of a value: a scalar as written when every byte is one of
 * [A-Za-z0-9_.+/:@%-] (and it is not empty), else double-quoted with JSON
 * escapes; a sequence as "[a, b]", a mapping as "{k: v, ...}" in document
 * order. The style it was written in does not matter, so 8 and "8" are one
 * value. Returns -1 when the value is nested too deeply. */
static int canon(const yaml_document_t *doc, int id, struct swp__buf *b,
                 int depth)
{
    yaml_node_t *n = yaml_document_get_node((yaml_document_t *)doc, id);
    int first = 1;

    if (n == NULL || depth > MAX_DEPTH)
        return -1;
    switch (n->type) {
    case YAML_SCALAR_NODE: {
        const unsigned char *v = n->data.scalar.value;
        size_t len = n->data.scalar.length;
        int plain = len > 0;

        for (size_t i = 0; i < len && plain; i++)
            plain = (v[i] >= 'a' && v[i] <= 'z') ||
                    (v[i] >= 'A' && v[i] <= 'Z') ||
                    (v[i] >= '0' && v[i] <= '9') ||
                    strchr("_.+/:@%-", v[i]) != NULL;
        if (plain) {
            swp__buf_add(b, v, len);
            return 0;
        }
        swp__buf_adds(b, "\"");
        for (size_t i = 0; i < len; i++) {
            if (v[i] == '"' || v[i] == '\\')
                swp__buf_addf(b, "\\%c", v[i]);
            else if (v[i] < 0x20)
                swp__buf_addf(b, "\\u%04x", v[i]);
            else
                swp__buf_add(b, &v[i], 1);
        }
        swp__buf_adds(b, "\"");
        return 0;
    }
    case YAML_SEQUENCE_NODE:
        swp__buf_adds(b, "[");
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            swp__buf_adds(b, first ? "" : ", ");
            first = 0;
            if (canon(doc, *it, b, depth + 1) != 0)
                return -1;
        }
        swp__buf_adds(b, "]");
        return 0;
    case YAML_MAPPING_NODE:
        swp__buf_adds(b, "{");
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top; p++) {
            swp__buf_adds(b, first ? "" : ", ");
            first = 0;
            if (canon(doc, p->key, b, depth + 1) != 0)
                return -1;
            swp__buf_adds(b, ": ");
            if (canon(doc, p->value, b, depth + 1) != 0)
                return -1;
        }
        swp__buf_adds(b, "}");
        return 0;
    default:
        return -1;
    }
}

static char *canon_text(struct ld *l, const yaml_node_t *n)
{
    struct swp__buf b = {0};
    int id = (int)(n - l->y.doc.nodes.start) + 1;

    if (canon(&l->y.doc, id, &b, 0) != 0) {
        sim_diag_error(l->d, l->file, sim_yaml_line(n), sim_yaml_col(n),
                       "value nested more than %d levels deep", MAX_DEPTH);
        swp__buf_fini(&b);
        return NULL;
    }
    return swp__buf_take(&b);
}

/* A key path is segments NAME or NAME[INDEX] joined by '.', NAME being
 * letters, digits, '_' and '-'. */
static int path_ok(const char *p)
{
    for (;;) {
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
        if (n == 0)
            return 0;
        p += n;
        if (*p == '[') {
            size_t k = strspn(p + 1, "0123456789");
            if (k == 0 || k > 6 || p[1 + k] != ']')
                return 0;
            p += k + 2;
        }
        if (*p == '\0')
            return 1;
        if (*p != '.')
            return 0;
        p++;
    }
}

/* ---- Reading the sweep file ---- */

static int key_path_of(struct ld *l, const yaml_node_t *k, const char *where,
                       struct ov *out)
{
    const char *p = scalar(k);

    if (p == NULL || strlen(p) != k->data.scalar.length || !path_ok(p)) {
        sim_diag_error(l->d, l->file, sim_yaml_line(k), sim_yaml_col(k),
                       "%s: expected a dotted scenario key path such as "
                       "hardware.gpu or pools[0].capacity_gpus, got %s%s%s",
                       where, p ? "'" : "", p ? p : sim_yaml_node_kind(k),
                       p ? "'" : "");
        return -1;
    }
    out->path = p;
    out->kline = sim_yaml_line(k);
    out->kcol = sim_yaml_col(k);
    return 0;
}

struct canon_idx {
    const char *canon;
    int i;
};

static int cmp_canon_idx(const void *pa, const void *pb)
{
    const struct canon_idx *a = pa, *b = pb;
    int c = strcmp(a->canon, b->canon);
    return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

/* Reports every value of a equal to an earlier one, in list order, as the
 * pairwise scan this replaced did, but in O(n log n): sorted by (text,
 * index), a duplicate follows its equal. */
static void report_duplicates(struct ld *l, struct axis *a)
{
    struct canon_idx *v = xcalloc((size_t)a->n + 1, sizeof(*v));
    unsigned char *dup = xcalloc((size_t)a->n + 1, 1);
    size_t m = 0;

    for (int i = 0; i < a->n; i++)
        if (a->canon[i] != NULL) {
            v[m].canon = a->canon[i];
            v[m++].i = i;
        }
    qsort(v, m, sizeof(*v), cmp_canon_idx);
    for (size_t k = 1; k < m; k++)
        if (strcmp(v[k - 1].canon, v[k].canon) == 0)
            dup[v[k].i] = 1;
    for (int i = 0; i < a->n; i++)
        if (dup[i]) {
            yaml_node_t *e = yaml_document_get_node(&l->y.doc, a->nodes[i]);
            sim_diag_error(l->d, l->file, sim_yaml_line(e), sim_yaml_col(e),
                           "axes.%s[%d]: duplicate value %s", a->key.path, i,
                           a->canon[i]);
        }
    free(dup);
    free(v);
}

static int read_axes(struct ld *l, yaml_node_t *n)
{
    if (n->type != YAML_MAPPING_NODE) {
        sim_diag_error(l->d, l->file, sim_yaml_line(n), sim_yaml_col(n),
                       "axes: expected a mapping from key paths to lists of "
                       "values, got %s",
                       sim_yaml_node_kind(n));
        return -1;
    }
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&l->y.doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l->y.doc, p->value);
        struct axis *a;
        int i = 0;

        if (l->naxes == SWP_MAX_AXES) {
            sim_diag_error(l->d, l->file, sim_yaml_line(k), sim_yaml_col(k),
                           "axes: more than %d axes", SWP_MAX_AXES);
            return -1;
        }
        a = &l->axes[l->naxes];
        memset(a, 0, sizeof(*a));
        if (key_path_of(l, k, "axes", &a->key) != 0)
            continue;
        for (int j = 0; j < l->naxes; j++)
            if (strcmp(l->axes[j].key.path, a->key.path) == 0) {
                sim_diag_error(l->d, l->file, a->key.kline, a->key.kcol,
                               "axes.%s: duplicate axis", a->key.path);
                goto next;
            }
        if (v->type != YAML_SEQUENCE_NODE ||
            v->data.sequence.items.top == v->data.sequence.items.start) {
            sim_diag_error(l->d, l->file, sim_yaml_line(v), sim_yaml_col(v),
                           "axes.%s: expected a non-empty list of values, "
                           "got %s",
                           a->key.path,
                           v->type == YAML_SEQUENCE_NODE
                               ? "an empty list"
                               : sim_yaml_node_kind(v));
            goto next;
        }
        if (v->data.sequence.items.top - v->data.sequence.items.start >
            SWP_MAX_POINTS) {
            /* Checked before any work on the values: the grid could not
             * hold them anyway. */
            sim_diag_error(l->d, l->file, sim_yaml_line(v), sim_yaml_col(v),
                           "axes.%s: more than %d values", a->key.path,
                           SWP_MAX_POINTS);
            goto next;
        }
        a->n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
        a->nodes = xcalloc((size_t)a->n, sizeof(*a->nodes));
        a->canon = xcalloc((size_t)a->n, sizeof(*a->canon));
        l->naxes++;
        for (yaml_node_item_t *it = v->data.sequence.items.start;
             it < v->data.sequence.items.top; it++, i++) {
            yaml_node_t *e = yaml_document_get_node(&l->y.doc, *it);
            a->nodes[i] = *it;
            a->canon[i] = canon_text(l, e);
        }
        report_duplicates(l, a);
    next:;
    }
    return 0;
}

static int cmp_ov(const void *a, const void *b)
{
    return strcmp(((const struct ov *)a)->path, ((const struct ov *)b)->path);
}

/* The key of a set of overrides: "path=value, ..." sorted by path. */
static char *key_of(const struct ov *ovs, int n)
{
    struct swp__buf b = {0};
    struct ov *v = xcalloc((size_t)n + 1, sizeof(*v));

    memcpy(v, ovs, (size_t)n * sizeof(*v));
    qsort(v, (size_t)n, sizeof(*v), cmp_ov);
    for (int i = 0; i < n; i++)
        swp__buf_addf(&b, "%s%s=%s", i ? ", " : "", v[i].path, v[i].canon);
    free(v);
    return swp__buf_take(&b);
}

/* Reads a mapping from key paths to values into x; where names it in
 * messages ("points[3]", "set"). Returns 0, or -1 after adding errors. */
static int read_overrides(struct ld *l, yaml_node_t *e, const char *where,
                          struct xpoint *x)
{
    int bad = 0;

    x->line = sim_yaml_line(e);
    x->col = sim_yaml_col(e);
    if (e->type != YAML_MAPPING_NODE) {
        sim_diag_error(l->d, l->file, x->line, x->col,
                       "%s: expected a mapping from key paths to values, got "
                       "%s",
                       where, sim_yaml_node_kind(e));
        return -1;
    }
    x->ovs = xcalloc(
        (size_t)(e->data.mapping.pairs.top - e->data.mapping.pairs.start) + 1,
        sizeof(*x->ovs));
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start;
         p < e->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&l->y.doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l->y.doc, p->value);
        struct ov *o = &x->ovs[x->n];

        if (key_path_of(l, k, where, o) != 0) {
            bad = 1;
            continue;
        }
        for (int j = 0; j < x->n; j++)
            if (strcmp(x->ovs[j].path, o->path) == 0) {
                sim_diag_error(l->d, l->file, o->kline, o->kcol,
                               "%s.%s: duplicate key", where, o->path);
                bad = 1;
            }
        o->node = p->value;
        o->canon = canon_text(l, v);
        if (o->canon == NULL)
            bad = 1;
        x->n++;
    }
    if (bad)
        return -1;
    x->key = key_of(x->ovs, x->n);
    return 0;
}

static int read_points(struct ld *l, yaml_node_t *n)
{
    if (n->type != YAML_SEQUENCE_NODE) {
        sim_diag_error(l->d, l->file, sim_yaml_line(n), sim_yaml_col(n),
                       "points: expected a list of mappings from key paths "
                       "to values, got %s",
                       sim_yaml_node_kind(n));
        return -1;
    }
    l->nxp = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (l->nxp > SWP_MAX_POINTS) {
        sim_diag_error(l->d, l->file, sim_yaml_line(n), sim_yaml_col(n),
                       "points: more than %d points", SWP_MAX_POINTS);
        l->nxp = 0;
        return -1;
    }
    l->xp = xcalloc((size_t)l->nxp + 1, sizeof(*l->xp));
    for (int i = 0; i < l->nxp; i++) {
        yaml_node_t *e =
            yaml_document_get_node(&l->y.doc, n->data.sequence.items.start[i]);
        struct xpoint *x = &l->xp[i];
        char where[32];

        snprintf(where, sizeof(where), "points[%d]", i);
        if (read_overrides(l, e, where, x) != 0)
            continue;
        for (int j = 0; j < i; j++)
            if (l->xp[j].key != NULL && strcmp(l->xp[j].key, x->key) == 0) {
                sim_diag_error(l->d, l->file, x->line, x->col,
                               "points[%d]: same overrides as points[%d]", i,
                               j);
                break;
            }
    }
    return 0;
}

static void read_base(struct ld *l, yaml_node_t *v)
{
    const char *p = scalar(v);
    struct sim_yaml b;

    if (p == NULL || p[0] == '\0' || sim_yaml_is_null(v)) {
        sim_diag_error(l->d, l->file, sim_yaml_line(v), sim_yaml_col(v),
                       "base: expected the path of a scenario file");
        return;
    }
    l->base_file = p[0] == '/' || strcmp(l->dir, ".") == 0
                       ? xstrdup(p)
                       : xasprintf("%s/%s", l->dir, p);
    if (l->given_text != NULL) {
        free(l->base_file);
        l->base_file = xstrdup(p);
        l->base_text = xstrndup(l->given_text, l->given_len);
        l->base_len = l->given_len;
    } else {
        l->base_text = sim_yaml_read_file(l->base_file, SCN_MAX_TEXT_BYTES,
                                          &l->base_len, l->d);
    }
    if (l->base_text == NULL)
        return;
    /* A syntax error in the base is reported once, here, at its place. */
    sim_yaml_init(&b, l->base_file, l->d, NULL);
    if (sim_yaml_parse(&b, l->base_text, l->base_len, SCN_MAX_TEXT_BYTES) == 0)
        sim_yaml_root_mapping(&b, "a mapping of scenario keys");
    sim_yaml_fini(&b);
}

static const struct sim_param seed_rows[] = {
    {"", SIM_PT_UINT64, SIM_U_NONE, 0, INFINITY, 0, NULL, "a seed", 0, NULL,
     NULL},
    SIM_PARAM_END_LIST(uint64_t),
};

_Static_assert(offsetof(struct ld, nseeds) ==
                   offsetof(struct ld, seeds) + sizeof(void *),
               "nseeds must follow seeds");

/* The sweep file's keys, walked over struct ld. name, replications and
 * seeds are plain rows; the others hold key paths of the scenario or a
 * scenario, so take_key() reads them (the walker never fills or defaults
 * those rows: their offset is unused). */
const struct sim_param swp_spec_rows[] = {
    {"axes", SIM_PT_MAP, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL,
     "key path -> list of values, one point per combination", 0, NULL, NULL},
    {"base", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL,
     "the base scenario file, relative to the sweep file", 0, NULL, NULL},
    {"name", SIM_PT_STRING, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL,
     "the sweep's name (default: the file name)", offsetof(struct ld, name),
     NULL, NULL},
    {"points", SIM_PT_LIST, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL,
     "explicit points: mappings from key paths to values", 0, NULL, NULL},
    {"replications", SIM_PT_INT, SIM_U_NONE, 1, SWP_MAX_POINTS, 0, NULL,
     "runs of each point, seeds seed, seed + 1, ...",
     offsetof(struct ld, replications), NULL, NULL},
    {"scenario", SIM_PT_SECTION, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL,
     "the base scenario, inline", 0, NULL, NULL},
    {"seeds", SIM_PT_LIST, SIM_U_NONE, -INFINITY, SWP_MAX_POINTS, 0, NULL,
     "runs of each point, one per seed", offsetof(struct ld, seeds), NULL,
     seed_rows},
    {"set", SIM_PT_MAP, SIM_U_NONE, -INFINITY, INFINITY, 0, NULL,
     "key path -> value, applied to every point", 0, NULL, NULL},
    {"uncertainty", SIM_PT_INT, SIM_U_NONE, 2, CL_PI_MAX_DRAWS, 0, NULL,
     "draws of the calibration's uncertainty per point: 95 % prediction "
     "intervals in the prediction_intervals table (docs/sweep.md)",
     offsetof(struct ld, uncertainty), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* The walker's hook: reads the keys that are the sweep's own, and lets it
 * fill name, replications and seeds (at most one of the last two). */
static int take_key(struct sim_yaml *y, const struct sim_param *p,
                    yaml_node_t *k, yaml_node_t *v, void *base,
                    const char *path)
{
    struct ld *l = base;

    (void)path;
    if (strcmp(p->key, "name") == 0 || strcmp(p->key, "uncertainty") == 0)
        return 0;
    if (strcmp(p->key, "replications") == 0 || strcmp(p->key, "seeds") == 0) {
        if (l->seed_mode != 0) {
            sim_diag_error(l->d, l->file, sim_yaml_line(k), sim_yaml_col(k),
                           "%s: give either replications or seeds, not both",
                           p->key);
            return 1;
        }
        l->seed_mode = p->key[0] == 'r' ? 1 : 2;
        l->seed_line = sim_yaml_line(k);
        l->seed_col = sim_yaml_col(k);
        if (l->seed_mode == 2 && v->type == YAML_SEQUENCE_NODE &&
            v->data.sequence.items.top == v->data.sequence.items.start) {
            sim_diag_error(l->d, l->file, sim_yaml_line(v), sim_yaml_col(v),
                           "seeds: expected a non-empty list of at most %d "
                           "non-negative integers",
                           SWP_MAX_POINTS);
            return 1;
        }
        if (l->seed_mode == 2)
            l->seeds_node = v;
        return 0;
    }
    if (strcmp(p->key, "base") == 0) {
        if (sim_yaml_seen(y, "scenario") == NULL)
            read_base(l, v);
    } else if (strcmp(p->key, "scenario") == 0) {
        if (v->type != YAML_MAPPING_NODE)
            sim_diag_error(l->d, l->file, sim_yaml_line(v), sim_yaml_col(v),
                           "scenario: expected a mapping of scenario "
                           "keys, got %s",
                           sim_yaml_node_kind(v));
        else
            l->inline_node = (int)(v - l->y.doc.nodes.start) + 1;
    } else if (strcmp(p->key, "axes") == 0) {
        read_axes(l, v);
    } else if (strcmp(p->key, "points") == 0) {
        read_points(l, v);
    } else {
        read_overrides(l, v, "set", &l->set);
    }
    return 1;
}

static const struct sim_yaml_ops sweep_ops = {.take = take_key};

/* replications gives the number of seeds; a seeds list may not repeat
 * one (checked when every seed parsed, so that seeds[i] is item i). */
static void check_seeds(struct ld *l)
{
    const yaml_node_t *v = l->seeds_node;

    if (l->seed_mode == 1 && l->replications < 1)
        l->seed_mode = 0; /* reported */
    else if (l->seed_mode == 1)
        l->nseeds = l->replications;
    if (l->seed_mode != 2 || v == NULL ||
        v->data.sequence.items.top - v->data.sequence.items.start != l->nseeds)
        return;
    for (int i = 0; i < l->nseeds; i++)
        for (int j = 0; j < i; j++)
            if (l->seeds[j] == l->seeds[i]) {
                yaml_node_t *e = yaml_document_get_node(
                    &l->y.doc, v->data.sequence.items.start[i]);
                sim_diag_error(l->d, l->file, sim_yaml_line(e), sim_yaml_col(e),
                               "seeds[%d]: duplicate seed %llu", i,
                               (unsigned long long)l->seeds[i]);
                break;
            }
}

/* Reads the sweep file's own keys. Returns 0, or -1 with errors in l->d. */
static int read_sweep(struct ld *l)
{
    const struct sim_yaml_seen *bk, *sk;
    int errors = sim_diag_errors(l->d);

    l->y.ctx = l;
    if (sim_yaml_walk(&l->y, swp_spec_rows, l,
                      "a mapping with base or scenario, and axes, points or "
                      "replications") != 0)
        return -1;
    check_seeds(l);
    bk = sim_yaml_seen(&l->y, "base");
    sk = sim_yaml_seen(&l->y, "scenario");
    if (bk != NULL && sk != NULL) {
        const struct sim_yaml_seen *later =
            bk->kline > sk->kline ||
                    (bk->kline == sk->kline && bk->kcol > sk->kcol)
                ? bk
                : sk;
        sim_diag_error(l->d, l->file, later->kline, later->kcol,
                       "give either base or scenario, not both");
    } else if (bk == NULL && sk == NULL) {
        sim_diag_error(l->d, l->file, l->y.root_line, l->y.root_col,
                       "missing key base (a scenario file) or scenario (an "
                       "inline scenario)");
    }

    /* A key path set twice for one point, or a seed set two ways. */
    for (int a = 0; a < l->naxes; a++) {
        const struct ov *k = &l->axes[a].key;
        for (int i = 0; i < l->nxp; i++)
            for (int j = 0; j < l->xp[i].n; j++)
                if (strcmp(l->xp[i].ovs[j].path, k->path) == 0) {
                    sim_diag_error(l->d, l->file, k->kline, k->kcol,
                                   "axes.%s: also set by points[%d]", k->path,
                                   i);
                    i = l->nxp;
                    break;
                }
        if (l->seed_mode != 0 && strcmp(k->path, "seed") == 0)
            sim_diag_error(l->d, l->file, k->kline, k->kcol,
                           "axes.seed: the seed is already set by %s",
                           l->seed_mode == 1 ? "replications" : "seeds");
    }
    for (int j = 0; j < l->set.n; j++) {
        const struct ov *o = &l->set.ovs[j];
        int clash = strcmp(o->path, "seed") == 0 && l->seed_mode != 0;
        for (int a = 0; a < l->naxes && !clash; a++)
            clash = strcmp(l->axes[a].key.path, o->path) == 0;
        for (int i = 0; i < l->nxp && !clash; i++)
            for (int k = 0; k < l->xp[i].n && !clash; k++)
                clash = strcmp(l->xp[i].ovs[k].path, o->path) == 0;
        if (clash)
            sim_diag_error(l->d, l->file, o->kline, o->kcol,
                           "set.%s: also varied by the sweep", o->path);
    }
    for (int i = 0; i < l->nxp && l->seed_mode != 0; i++)
        for (int j = 0; j < l->xp[i].n; j++)
            if (strcmp(l->xp[i].ovs[j].path, "seed") == 0)
                sim_diag_error(l->d, l->file, l->xp[i].ovs[j].kline,
                               l->xp[i].ovs[j].kcol,
                               "points[%d].seed: the seed is already set by "
                               "%s",
                               i, l->seed_mode == 1 ? "replications" : "seeds");
    return sim_diag_errors(l->d) > errors ? -1 : 0;
}

/* ---- Editing the base document ---- */

static void set_org(struct gen *g, int id, int file, int line, int col)
{
    if ((size_t)id >= g->caporg) {
        size_t cap = g->caporg ? g->caporg : 64;
        while (cap <= (size_t)id)
            cap *= 2;
        g->org = xrealloc(g->org, cap, sizeof(*g->org));
        memset(g->org + g->caporg, 0, (cap - g->caporg) * sizeof(*g->org));
        g->caporg = cap;
    }
    g->org[id].file = file;
    g->org[id].line = line;
    g->org[id].col = col;
}

static int check_added(int id)
{
    if (id == 0)
        sim_fatal("libyaml could not add a node");
    return id;
}

/* Copies node sid of the sweep document into g's document, keeping its
 * position as origin. Returns the new node's id, or 0 when the value is too
 * large or deep. */
static int copy_node(struct gen *g, const struct ld *l, int sid, int depth)
{
    yaml_node_t *n = yaml_document_get_node((yaml_document_t *)&l->y.doc, sid);
    int id;

    if (n == NULL || depth > MAX_DEPTH || ++g->copied > MAX_NODES)
        return 0;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        id = check_added(yaml_document_add_scalar(
            &g->doc, n->tag, n->data.scalar.value, (int)n->data.scalar.length,
            n->data.scalar.style));
        break;
    case YAML_SEQUENCE_NODE:
        id = check_added(yaml_document_add_sequence(&g->doc, n->tag,
                                                    n->data.sequence.style));
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            int c = copy_node(g, l, *it, depth + 1);
            if (c == 0)
                return 0;
            if (!yaml_document_append_sequence_item(&g->doc, id, c))
                sim_fatal("libyaml could not append an item");
        }
        break;
    case YAML_MAPPING_NODE:
        id = check_added(
            yaml_document_add_mapping(&g->doc, n->tag, n->data.mapping.style));
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top; p++) {
            int k = copy_node(g, l, p->key, depth + 1);
            int v = k ? copy_node(g, l, p->value, depth + 1) : 0;
            if (v == 0)
                return 0;
            if (!yaml_document_append_mapping_pair(&g->doc, id, k, v))
                sim_fatal("libyaml could not append a pair");
        }
        break;
    default:
        return 0;
    }
    yaml_document_get_node(&g->doc, id)->start_mark = n->start_mark;
    set_org(g, id, F_SWEEP, sim_yaml_line(n), sim_yaml_col(n));
    return id;
}

/* The node an override sets, new in g's document. */
static int value_node(struct gen *g, const struct ld *l, const struct ov *o)
{
    int id;

    if (o->node != 0)
        return copy_node(g, l, o->node, 0);
    id = check_added(yaml_document_add_scalar(
        &g->doc, NULL, (yaml_char_t *)o->canon, -1, YAML_PLAIN_SCALAR_STYLE));
    set_org(g, id, F_SWEEP, o->kline, o->kcol);
    return id;
}

static int new_mapping(struct gen *g, const struct ov *o)
{
    int id = check_added(
        yaml_document_add_mapping(&g->doc, NULL, YAML_BLOCK_MAPPING_STYLE));
    set_org(g, id, F_SWEEP, o->kline, o->kcol);
    return id;
}

/* Sets o->path in g's document to o's value. Returns 0, or -1 after adding
 * an error at the key path's position in the sweep file. */
static int apply(struct gen *g, const struct ld *l, const struct ov *o,
                 struct sim_diag *d)
{
    const char *p = o->path;
    int cur = 1, slot_node = 0, slot_idx = -1;
    yaml_node_t *n = yaml_document_get_root_node(&g->doc);

    if (n == NULL || n->type != YAML_MAPPING_NODE) {
        sim_diag_error(d, l->file, o->kline, o->kcol,
                       "%s: the base scenario is not a mapping", o->path);
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, ".[");
        const char *rest = p + len;
        long idx = -1;
        int last, pi = -1, np;

        if (*rest == '[') {
            idx = strtol(rest + 1, NULL, 10);
            rest = strchr(rest, ']') + 1;
        }
        last = *rest == '\0';
        n = yaml_document_get_node(&g->doc, cur);
        if (sim_yaml_is_null(n) && slot_node != 0) {
            /* An empty value in the base becomes the mapping we need. */
            int m = new_mapping(g, o);
            yaml_node_t *s = yaml_document_get_node(&g->doc, slot_node);
            if (s->type == YAML_MAPPING_NODE)
                s->data.mapping.pairs.start[slot_idx].value = m;
            else
                s->data.sequence.items.start[slot_idx] = m;
            cur = m;
            n = yaml_document_get_node(&g->doc, cur);
        }
        if (n->type != YAML_MAPPING_NODE) {
            sim_diag_error(d, l->file, o->kline, o->kcol,
                           "%s: %.*s is %s in the base scenario, not a "
                           "mapping",
                           o->path, (int)(p - o->path - 1), o->path,
                           sim_yaml_node_kind(n));
            return -1;
        }
        np = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
        for (int i = 0; i < np; i++) {
            yaml_node_t *k = yaml_document_get_node(
                &g->doc, n->data.mapping.pairs.start[i].key);
            if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == len &&
                memcmp(k->data.scalar.value, p, len) == 0) {
                pi = i;
                break;
            }
        }
        if (pi < 0) {
            int k, v;
            if (idx >= 0) {
                sim_diag_error(d, l->file, o->kline, o->kcol,
                               "%s: %.*s is not in the base scenario; an "
                               "index needs an existing list",
                               o->path, (int)(p - o->path + len), o->path);
                return -1;
            }
            k = check_added(yaml_document_add_scalar(&g->doc, NULL,
                                                     (yaml_char_t *)p, (int)len,
                                                     YAML_PLAIN_SCALAR_STYLE));
            set_org(g, k, F_SWEEP, o->kline, o->kcol);
            v = last ? value_node(g, l, o) : new_mapping(g, o);
            if (v == 0)
                goto too_large;
            if (!yaml_document_append_mapping_pair(&g->doc, cur, k, v))
                sim_fatal("libyaml could not append a pair");
            if (last)
                return 0;
            slot_node = cur;
            slot_idx = np;
            cur = v;
        } else if (idx < 0) {
            if (last) {
                int v = value_node(g, l, o);
                if (v == 0)
                    goto too_large;
                n = yaml_document_get_node(&g->doc, cur);
                n->data.mapping.pairs.start[pi].value = v;
                return 0;
            }
            slot_node = cur;
            slot_idx = pi;
            cur = n->data.mapping.pairs.start[pi].value;
        } else {
            int seq = n->data.mapping.pairs.start[pi].value;
            yaml_node_t *s = yaml_document_get_node(&g->doc, seq);
            long ni;
            if (s->type != YAML_SEQUENCE_NODE) {
                sim_diag_error(d, l->file, o->kline, o->kcol,
                               "%s: %.*s is %s in the base scenario, not a "
                               "list",
                               o->path, (int)len, p, sim_yaml_node_kind(s));
                return -1;
            }
            ni = s->data.sequence.items.top - s->data.sequence.items.start;
            if (idx >= ni) {
                sim_diag_error(d, l->file, o->kline, o->kcol,
                               "%s: index %ld out of range; %.*s has %ld "
                               "entries in the base scenario",
                               o->path, idx, (int)len, p, ni);
                return -1;
            }
            if (last) {
                int v = value_node(g, l, o);
                if (v == 0)
                    goto too_large;
                s = yaml_document_get_node(&g->doc, seq);
                s->data.sequence.items.start[idx] = v;
                return 0;
            }
            slot_node = seq;
            slot_idx = (int)idx;
            cur = s->data.sequence.items.start[idx];
        }
        p = rest + 1;
    }

too_large:
    sim_diag_error(d, l->file, o->kline, o->kcol,
                   "%s: value larger than %d nodes or deeper than %d levels",
                   o->path, MAX_NODES, MAX_DEPTH);
    return -1;
}

/* Starts g with a fresh copy of the base scenario. */
static void gen_init(struct gen *g, const struct ld *l)
{
    memset(g, 0, sizeof(*g));
    if (l->base_file == NULL) {
        if (!yaml_document_initialize(&g->doc, NULL, NULL, NULL, 1, 1))
            sim_fatal("yaml_document_initialize failed");
        /* Checked by read_sweep: the inline scenario is small enough. */
        copy_node(g, l, l->inline_node, 0);
        return;
    }
    {
        yaml_parser_t parser;
        int n;

        if (!yaml_parser_initialize(&parser))
            sim_fatal("yaml_parser_initialize failed");
        yaml_parser_set_input_string(
            &parser, (const unsigned char *)l->base_text, l->base_len);
        /* Parsed without error by read_base(). */
        if (!yaml_parser_load(&parser, &g->doc))
            sim_fatal("the base scenario no longer parses");
        yaml_parser_delete(&parser);
        n = (int)(g->doc.nodes.top - g->doc.nodes.start);
        for (int id = 1; id <= n; id++) {
            yaml_node_t *x = yaml_document_get_node(&g->doc, id);
            set_org(g, id, F_BASE, sim_yaml_line(x), sim_yaml_col(x));
        }
    }
}

/* Visits node id and everything under it, depth first, keys before values,
 * in the order the emitter writes them; at most MAX_NODES visits. */
typedef void (*visit_fn)(void *ctx, int id, const yaml_node_t *n);

static void walk(yaml_document_t *doc, int id, int depth, size_t *budget,
                 visit_fn fn, void *ctx)
{
    yaml_node_t *n = yaml_document_get_node(doc, id);

    if (n == NULL || depth > MAX_DEPTH || *budget == 0)
        return;
    (*budget)--;
    fn(ctx, id, n);
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++)
            walk(doc, *it, depth + 1, budget, fn, ctx);
    } else if (n->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top; p++) {
            walk(doc, p->key, depth + 1, budget, fn, ctx);
            walk(doc, p->value, depth + 1, budget, fn, ctx);
        }
    }
}

struct orglist {
    struct org *v;
    size_t n, cap;
    const struct gen *g; /* NULL: record the node's own position */
};

static void record(void *ctx, int id, const yaml_node_t *n)
{
    struct orglist *o = ctx;

    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->v = xrealloc(o->v, o->cap, sizeof(*o->v));
    }
    if (o->g != NULL && (size_t)id < o->g->caporg) {
        o->v[o->n++] = o->g->org[id];
    } else {
        o->v[o->n].file = F_BASE;
        o->v[o->n].line = sim_yaml_line(n);
        o->v[o->n].col = sim_yaml_col(n);
        o->n++;
    }
}

static int write_out(void *data, unsigned char *buf, size_t size)
{
    swp__buf_add(data, buf, size);
    return 1;
}

/* Records the origins of g's nodes in emitter order into *origins, emits
 * the document (which destroys it) and returns the text; the caller frees
 * it with free(). */
static char *gen_emit(struct gen *g, struct orglist *origins)
{
    yaml_emitter_t em;
    struct swp__buf out = {0};
    size_t budget = MAX_NODES;

    origins->g = g;
    walk(&g->doc, 1, 0, &budget, record, origins);
    if (!yaml_emitter_initialize(&em))
        sim_fatal("yaml_emitter_initialize failed");
    yaml_emitter_set_output(&em, write_out, &out);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    if (!yaml_emitter_open(&em) || !yaml_emitter_dump(&em, &g->doc) ||
        !yaml_emitter_close(&em))
        sim_fatal("cannot emit a sweep point: %s",
                  em.problem ? em.problem : "libyaml error");
    yaml_emitter_delete(&em);
    free(g->org);
    g->org = NULL;
    g->caporg = 0;
    return swp__buf_take(&out);
}

/* ---- Checking a point and moving its diagnostics ---- */

/* Adds the formatted message to the list of what was said; returns 1 if it
 * is new. */
static int first_time(struct ld *l, const char *msg)
{
    for (int i = 0; i < l->nsaid; i++)
        if (strcmp(l->said[i], msg) == 0)
            return 0;
    l->said = xrealloc(l->said, (size_t)l->nsaid + 1, sizeof(*l->said));
    l->said[l->nsaid++] = xstrdup(msg);
    return 1;
}

/* Moves the entries of tmp that point into the emitted text to their
 * origins: the node starting at the entry's position, else the last node
 * starting before it. */
static void move_diags(const struct ld *l, const char *text,
                       const struct orglist *origins, struct sim_diag *tmp)
{
    struct orglist here = {0};
    yaml_parser_t parser;
    yaml_document_t doc;

    if (!yaml_parser_initialize(&parser))
        sim_fatal("yaml_parser_initialize failed");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text,
                                 strlen(text));
    if (yaml_parser_load(&parser, &doc)) {
        size_t budget = MAX_NODES;
        walk(&doc, 1, 0, &budget, record, &here);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);

    for (int i = 0; i < tmp->n && here.n == origins->n; i++) {
        struct sim_diag_entry *e = &tmp->v[i];
        long best = -1;

        if (e->file == NULL || strcmp(e->file, l->files[F_BASE]) != 0 ||
            e->line <= 0)
            continue;
        for (size_t j = 0; j < here.n; j++) {
            const struct org *h = &here.v[j];
            if (h->line == e->line && h->col == e->col) {
                best = (long)j;
                break;
            }
            if ((h->line < e->line ||
                 (h->line == e->line && h->col < e->col)) &&
                (best < 0 || h->line > here.v[best].line ||
                 (h->line == here.v[best].line && h->col > here.v[best].col)))
                best = (long)j;
        }
        if (best >= 0) {
            const struct org *o = &origins->v[best];
            free(e->file);
            e->file = xstrdup(l->files[o->file]);
            e->line = o->line;
            e->col = e->col > 0 ? o->col : 0;
        }
    }
    free(here.v);
}

/* Adds the entries of tmp to l->d, each message once per load; errors only
 * when errors is non-zero. Returns the number of errors added. */
static int publish(struct ld *l, const struct sim_diag *tmp, int errors)
{
    int added = 0;

    for (int i = 0; i < tmp->n; i++) {
        const struct sim_diag_entry *e = &tmp->v[i];
        char *msg;

        if (e->sev == SIM_SEV_ERROR && !errors)
            continue;
        msg = sim_diag_format(tmp, i);
        if (first_time(l, msg)) {
            sim_diag_add(l->d, e->sev, e->file, e->line, e->col, "%s", e->msg);
            if (e->sev == SIM_SEV_ERROR)
                added++;
        }
        free(msg);
    }
    return added;
}

/* Builds the text of one point from its overrides. Returns it (the caller
 * frees it) with the origins of its nodes in *origins, or NULL after adding
 * an error to l->d (once per distinct message). */
static char *build(struct ld *l, const struct ov *ovs, int n,
                   struct orglist *origins)
{
    struct gen g;
    struct sim_diag tmp;

    gen_init(&g, l);
    sim_diag_init(&tmp);
    for (int i = 0; i < l->set.n + n; i++)
        if (apply(&g, l, i < l->set.n ? &l->set.ovs[i] : &ovs[i - l->set.n],
                  &tmp) != 0) {
            publish(l, &tmp, 1);
            sim_diag_fini(&tmp);
            yaml_document_delete(&g.doc);
            free(g.org);
            return NULL;
        }
    sim_diag_fini(&tmp);
    return gen_emit(&g, origins);
}

/* Loads and checks a point's text as `dsec run` does. Returns 0 (with
 * *seed set), 1 when it is infeasible (*message set to the diagnostic), or
 * -1 after adding its errors to l->d. Warnings and notes go to l->d too. */
static int check_point(struct ld *l, const char *text,
                       const struct orglist *origins, const char *key,
                       uint64_t *seed, char **message)
{
    const struct scn_open_opts opts = {
        .text = text, .len = strlen(text), .keep_infeasible = 1};
    struct sim_diag tmp;
    struct cl_scenario scn;
    int rc, out = 0;

    sim_diag_init(&tmp);
    rc = scn_scenario_open(l->files[F_BASE], &opts, &scn, &tmp);
    if (rc == 0 || rc == SIM_EINFEASIBLE)
        *seed = scn.seed;
    if (tmp.n > 0)
        move_diags(l, text, origins, &tmp);
    if (rc == SIM_EINFEASIBLE) {
        for (int i = 0; i < tmp.n && *message == NULL; i++)
            if (tmp.v[i].sev == SIM_SEV_ERROR)
                *message = sim_diag_format(&tmp, i);
        if (*message == NULL)
            *message = xstrdup("infeasible");
        publish(l, &tmp, 0);
        out = 1;
    } else if (rc != 0) {
        if (publish(l, &tmp, 1) > 0 && key[0] != '\0')
            sim_diag_add(l->d, SIM_SEV_NOTE, l->file, 0, 0, "in point %s", key);
        out = -1;
    } else {
        publish(l, &tmp, 0);
    }
    cl_scenario_fini(&scn);
    sim_diag_fini(&tmp);
    return out;
}

/* ---- Expanding the grid ---- */

struct expand {
    struct swp_spec *s;
    size_t cap;
};

static void add_point(struct expand *x, const struct ov *ovs, int n, char *text,
                      uint64_t seed, const char *message)
{
    struct swp_spec *s = x->s;
    struct swp_point *pt;

    if (s->npoints == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        s->points = xrealloc(s->points, x->cap, sizeof(*s->points));
    }
    pt = &s->points[s->npoints];
    memset(pt, 0, sizeof(*pt));
    pt->seq = s->npoints++;
    pt->text = text;
    pt->seed = seed;
    pt->values = xcalloc((size_t)s->ncolumns + 1, sizeof(*pt->values));
    for (int i = 0; i < n; i++)
        for (int c = 0; c < s->ncolumns; c++)
            if (strcmp(s->columns[c], ovs[i].path) == 0)
                pt->values[c] = xstrdup(ovs[i].canon);
    pt->key = key_of(ovs, n);
    if (message != NULL) {
        pt->infeasible = 1;
        pt->message = xstrdup(message);
    }
}

static void add_column(struct swp_spec *s, const char *path)
{
    for (int c = 0; c < s->ncolumns; c++)
        if (strcmp(s->columns[c], path) == 0)
            return;
    s->columns =
        xrealloc(s->columns, (size_t)s->ncolumns + 1, sizeof(*s->columns));
    s->columns[s->ncolumns++] = xstrdup(path);
}

/* Expands one set of overrides (an explicit point and one value per axis)
 * into its replications. Returns -1 when errors should stop the load. */
static int expand_one(struct ld *l, struct expand *x, struct ov *ovs, int n)
{
    struct orglist origins = {0};
    char *text, *message = NULL, *key;
    uint64_t seed = 0;
    int rc;

    text = build(l, ovs, n, &origins);
    if (text == NULL) {
        free(origins.v);
        return ++l->failed >= MAX_FAILED_POINTS ? -1 : 0;
    }
    key = key_of(ovs, n);
    rc = check_point(l, text, &origins, key, &seed, &message);
    free(key);
    free(origins.v);
    memset(&origins, 0, sizeof(origins));
    if (rc < 0)
        l->failed++;
    if (rc < 0 || sim_diag_errors(l->d) > 0) {
        free(text);
        free(message);
        return l->failed >= MAX_FAILED_POINTS ||
                       sim_diag_errors(l->d) >= SIM_DIAG_MAX_ERRORS
                   ? -1
                   : 0;
    }
    if (l->seed_mode == 0) {
        add_point(x, ovs, n, text, seed, message);
        free(message);
        return 0;
    }
    free(text);
    if (l->seed_mode == 1 && seed > UINT64_MAX - (uint64_t)(l->nseeds - 1)) {
        sim_diag_error(l->d, l->file, l->seed_line, l->seed_col,
                       "replications: seed %llu + %d passes 2^64 - 1",
                       (unsigned long long)seed, l->nseeds - 1);
        free(message);
        return -1;
    }
    for (int r = 0; r < l->nseeds; r++) {
        uint64_t sr = l->seed_mode == 1 ? seed + (uint64_t)r : l->seeds[r];
        char num[24];

        snprintf(num, sizeof(num), "%llu", (unsigned long long)sr);
        ovs[n].path = "seed";
        ovs[n].node = 0;
        ovs[n].canon = num;
        ovs[n].kline = l->seed_line;
        ovs[n].kcol = l->seed_col;
        text = build(l, ovs, n + 1, &origins);
        free(origins.v);
        memset(&origins, 0, sizeof(origins));
        if (SIM_NEVER(text == NULL)) {
            free(message);
            return -1;
        }
        add_point(x, ovs, n + 1, text, sr, message);
    }
    free(message);
    return 0;
}

static int cmp_by_key(const void *a, const void *b, void *ctx);

/* Sorts the indexes by key with a small merge sort (qsort has no context
 * argument in C11). */
static void sort_by_key(struct swp_spec *s)
{
    size_t n = s->npoints;
    size_t *tmp = xcalloc(n + 1, sizeof(*tmp));

    s->by_key = xcalloc(n + 1, sizeof(*s->by_key));
    for (size_t i = 0; i < n; i++)
        s->by_key[i] = i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp_by_key(&s->by_key[i], &s->by_key[j], s) <= 0
                               ? s->by_key[i++]
                               : s->by_key[j++];
            while (i < mid)
                tmp[k++] = s->by_key[i++];
            while (j < hi)
                tmp[k++] = s->by_key[j++];
        }
        memcpy(s->by_key, tmp, n * sizeof(*tmp));
    }
    free(tmp);
}

static int cmp_by_key(const void *a, const void *b, void *ctx)
{
    const struct swp_spec *s = ctx;
    return strcmp(s->points[*(const size_t *)a].key,
                  s->points[*(const size_t *)b].key);
}

static int expand(struct ld *l, struct swp_spec *s)
{
    struct expand x = {s, 0};
    int nx = l->nxp > 0 ? l->nxp : 1;
    size_t total = (size_t)nx * (size_t)(l->seed_mode ? l->nseeds : 1);
    int idx[SWP_MAX_AXES] = {0};
    struct ov ovs[SWP_MAX_AXES + 64 + 1];
    int maxov = SWP_MAX_AXES + 64;

    /* Reported at the key whose factor passes the limit: the seeds
     * (replications or seeds), else an axis; explicit points alone were
     * checked when read. */
    int line = l->seed_line, col = l->seed_col;

    for (int a = 0; a < l->naxes; a++) {
        if (total > SWP_MAX_POINTS)
            break;
        total *= (size_t)l->axes[a].n;
        line = l->axes[a].key.kline;
        col = l->axes[a].key.kcol;
    }
    if (total > SWP_MAX_POINTS) {
        if (line <= 0) {
            line = l->y.root_line;
            col = l->y.root_col;
        }
        sim_diag_error(l->d, l->file, line, col,
                       "the sweep has more than %d points", SWP_MAX_POINTS);
        return -1;
    }
    for (int i = 0; i < l->nxp; i++)
        for (int j = 0; j < l->xp[i].n; j++)
            add_column(s, l->xp[i].ovs[j].path);
    for (int a = 0; a < l->naxes; a++)
        add_column(s, l->axes[a].key.path);
    if (l->seed_mode != 0)
        add_column(s, "seed");

    for (int p = 0; p < nx; p++) {
        const struct xpoint *xp = l->nxp > 0 ? &l->xp[p] : NULL;
        int base_n = xp ? xp->n : 0;

        if (base_n + l->naxes > maxov) {
            sim_diag_error(l->d, l->file, xp->line, xp->col,
                           "points[%d]: more than %d keys", p,
                           maxov - l->naxes);
            return -1;
        }
        memset(idx, 0, sizeof(idx));
        for (;;) {
            int n = 0, a;

            for (int j = 0; j < base_n; j++)
                ovs[n++] = xp->ovs[j];
            for (a = 0; a < l->naxes; a++) {
                ovs[n] = l->axes[a].key;
                ovs[n].node = l->axes[a].nodes[idx[a]];
                ovs[n].canon = l->axes[a].canon[idx[a]];
                n++;
            }
            if (expand_one(l, &x, ovs, n) != 0)
                return -1;
            /* The last axis varies fastest, as nested loops in file order. */
            for (a = l->naxes - 1; a >= 0; a--) {
                if (++idx[a] < l->axes[a].n)
                    break;
                idx[a] = 0;
            }
            if (a < 0)
                break;
        }
    }
    if (sim_diag_errors(l->d) > 0)
        return -1;
    sort_by_key(s);
    for (size_t i = 1; i < s->npoints; i++)
        if (SIM_NEVER(strcmp(s->points[s->by_key[i - 1]].key,
                             s->points[s->by_key[i]].key) == 0)) {
            sim_diag_error(l->d, l->file, 0, 0, "two points have the key %s",
                           s->points[s->by_key[i]].key);
            return -1;
        }
    return 0;
}

/* FNV-1a 64 of the texts, each followed by a NUL. */
static uint64_t fnv1a(uint64_t h, const char *p, size_t len)
{
    for (size_t i = 0; i <= len; i++) {
        h ^= i < len ? (unsigned char)p[i] : 0u;
        h *= 0x100000001b3ull;
    }
    return h;
}

static char *default_name(const char *file)
{
    const char *b = strrchr(file, '/');
    size_t n;

    b = b ? b + 1 : file;
    n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(b + n - 4, ".yml") == 0)
        n -= 4;
    return xstrndup(b, n);
}

static void ld_fini(struct ld *l)
{
    for (int a = 0; a < l->naxes; a++) {
        for (int i = 0; i < l->axes[a].n; i++)
            free(l->axes[a].canon[i]);
        free(l->axes[a].canon);
        free(l->axes[a].nodes);
    }
    for (int i = 0; i < l->nxp; i++) {
        for (int j = 0; j < l->xp[i].n; j++)
            free((char *)l->xp[i].ovs[j].canon);
        free(l->xp[i].ovs);
        free(l->xp[i].key);
    }
    free(l->xp);
    for (int j = 0; j < l->set.n; j++)
        free((char *)l->set.ovs[j].canon);
    free(l->set.ovs);
    free(l->set.key);
    free(l->seeds);
    for (int i = 0; i < l->nsaid; i++)
        free(l->said[i]);
    free(l->said);
    free(l->base_file);
    free(l->base_text);
    free(l->name);
    free(l->dir);
    sim_yaml_fini(&l->y);
}

/* swp_spec_load_string(), with the base's text given (or NULL). */
static struct swp_spec *load_string(const char *file, const char *text,
                                    size_t len, const char *given_text,
                                    size_t given_len, struct sim_diag *d)
{
    struct ld l;
    struct swp_spec *s = NULL;
    char *dir_copy;
    uint64_t h;

    memset(&l, 0, sizeof(l));
    l.given_text = given_text;
    l.given_len = given_len;
    l.file = file;
    l.d = d;
    dir_copy = xstrdup(file);
    l.dir = xstrdup(dirname(dir_copy));
    free(dir_copy);
    sim_yaml_init(&l.y, file, d, &sweep_ops);
    if (sim_yaml_parse(&l.y, text, len, SCN_MAX_TEXT_BYTES) != 0 ||
        read_sweep(&l) != 0 || l.y.errors > 0)
        goto out;
    l.files[F_BASE] = l.base_file ? l.base_file : l.file;
    l.files[F_SWEEP] = l.file;

    s = xcalloc(1, sizeof(*s));
    s->file = xstrdup(file);
    s->name = l.name ? xstrdup(l.name) : default_name(file);
    s->uncertainty = l.uncertainty > 0 ? l.uncertainty : 0;
    s->text = xstrndup(text, len);
    h = fnv1a(0xcbf29ce484222325ull, "dsec sweep 1", 12);
    h = fnv1a(h, text, len);
    if (l.base_text != NULL)
        h = fnv1a(h, l.base_text, l.base_len);
    s->hash = xasprintf("%016llx", (unsigned long long)h);
    s->scenario_file = xstrdup(l.files[F_BASE]);
    dir_copy = xstrdup(l.files[F_BASE]);
    s->base_dir = xstrdup(dirname(dir_copy));
    free(dir_copy);
    if (expand(&l, s) != 0) {
        swp_spec_free(s);
        s = NULL;
    }
out:
    ld_fini(&l);
    return s;
}

struct swp_spec *swp_spec_load_string(const char *file, const char *text,
                                      size_t len, struct sim_diag *d)
{
    return load_string(file, text, len, NULL, 0, d);
}

struct swp_spec *swp_spec_load(const char *path, struct sim_diag *d)
{
    size_t len = 0;
    char *text = sim_yaml_read_file(path, SCN_MAX_TEXT_BYTES, &len, d);
    struct swp_spec *s;

    if (text == NULL)
        return NULL;
    s = swp_spec_load_string(path, text, len, d);
    free(text);
    return s;
}

long swp_spec_find(const struct swp_spec *s, const char *key)
{
    size_t lo = 0, hi = s->npoints;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->points[s->by_key[mid]].key, key);
        if (c == 0)
            return (long)s->by_key[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void swp_spec_free(struct swp_spec *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->npoints; i++) {
        struct swp_point *p = &s->points[i];
        for (int c = 0; c < s->ncolumns; c++)
            free(p->values[c]);
        free(p->values);
        free(p->key);
        free(p->text);
        free(p->message);
    }
    for (int c = 0; c < s->ncolumns; c++)
        free(s->columns[c]);
    free(s->columns);
    free(s->points);
    free(s->by_key);
    free(s->file);
    free(s->name);
    free(s->text);
    free(s->hash);
    free(s->scenario_file);
    free(s->base_dir);
    free(s);
}

/* ---- --set on the command line ---- */

/* Writes s single-quoted for YAML. */
static void set_squote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            fputc('\'', fp);
        fputc(*s, fp);
    }
    fputc('\'', fp);
}

/* The scenario at path (its text given, or NULL to read it) with sets. */
static char *with_sets(const char *path, const char *given, size_t given_len,
                       const char *const *sets, int nsets, const char *label,
                       struct sim_diag *d)
{
    struct sim_diag tmp;
    struct swp_spec *spec;
    char *text = NULL, *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    if (fp == NULL) {
        sim_fatal("out of memory");
        return NULL; /* not reached */
    }
    /* The overrides go through a sweep of one point whose set: they are:
     * the same key paths, units, checks and YAML values as a sweep's. */
    fputs("base: ", fp);
    set_squote(fp, path);
    fputs("\nset:\n", fp);
    for (int i = 0; i < nsets; i++) {
        const char *eq = strchr(sets[i], '=');
        fprintf(fp, "  %.*s: %s\n", (int)(eq - sets[i]), sets[i], eq + 1);
    }
    fclose(fp);
    sim_diag_init(&tmp);
    spec = load_string("--set", buf, len, given, given_len, &tmp);
    /* A diagnostic at the sweep text's line 3 + i is about --set i. */
    for (int i = 0; i < tmp.n; i++) {
        const struct sim_diag_entry *e = &tmp.v[i];
        if (e->file != NULL && strcmp(e->file, "--set") == 0 && e->line >= 3 &&
            e->line - 3 < nsets)
            sim_diag_add(d, e->sev, NULL, 0, 0, "%s %s: %s", label,
                         sets[e->line - 3], e->msg);
        else if (e->file != NULL && strcmp(e->file, "--set") == 0)
            sim_diag_add(d, e->sev, NULL, 0, 0, "%s: %s", label, e->msg);
        else
            sim_diag_add(d, e->sev, e->file, e->line, e->col, "%s", e->msg);
    }
    if (spec != NULL && spec->npoints == 1)
        text = xstrdup(spec->points[0].text);
    else if (spec != NULL && sim_diag_errors(d) == 0)
        sim_diag_add(d, SIM_SEV_ERROR, NULL, 0, 0,
                     "%s: expected one scenario, got %zu", label,
                     spec->npoints);
    swp_spec_free(spec);
    sim_diag_fini(&tmp);
    free(buf);
    return text;
}

char *swp_scenario_with_sets(const char *path, const char *const *sets,
                             int nsets, struct sim_diag *d)
{
    return with_sets(path, NULL, 0, sets, nsets, "--set", d);
}

char *swp_text_with_sets(const char *name, const char *text, size_t len,
                         const char *const *sets, int nsets, const char *label,
                         struct sim_diag *d)
{
    return with_sets(name, text, len, sets, nsets, label, d);
}
