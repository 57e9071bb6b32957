/* The YAML-over-rows walker. libyaml's document API (yaml_parser_load)
 * builds the node graph first, so every node keeps its start mark and the
 * walk is driven by the tables rather than by the order of events. An
 * alias is just another reference to a node, so alias "bombs" cost
 * nothing: the walk only follows table rows, whose depth is fixed, and
 * lists and maps are capped by their rows. Defaults are the caller's to
 * apply first (sim_yaml_defaults()); given values overwrite them. This was
 * the scenario loader's walker; the sweep file, the calibration profile
 * and the scaler configuration read through it too, so the messages below
 * are the scenario language's (tests/check_scn_load.c pins them). */
#include "base/yaml-rows.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

void sim_yaml_init(struct sim_yaml *y, const char *file, struct sim_diag *d,
                   const struct sim_yaml_ops *ops)
{
    memset(y, 0, sizeof(*y));
    y->file = file;
    y->d = d;
    y->ops = ops;
    y->root_line = y->root_col = 1;
}

void sim_yaml_fini(struct sim_yaml *y)
{
    for (int i = 0; i < y->nseen; i++)
        free(y->seen[i].path);
    free(y->seen);
    y->seen = NULL;
    y->nseen = y->capseen = 0;
    if (y->loaded)
        yaml_document_delete(&y->doc);
    y->loaded = 0;
}

void sim_yaml_verror(struct sim_yaml *y, int line, int col, const char *fmt,
                     va_list ap)
{
    sim_diag_vadd(y->d, SIM_SEV_ERROR, y->file, line, col, fmt, ap);
    y->errors++;
}

void sim_yaml_error(struct sim_yaml *y, int line, int col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_yaml_verror(y, line, col, fmt, ap);
    va_end(ap);
}

int sim_yaml_line(const yaml_node_t *n)
{
    return (int)n->start_mark.line + 1;
}

int sim_yaml_col(const yaml_node_t *n)
{
    return (int)n->start_mark.column + 1;
}

int sim_yaml_is_null(const yaml_node_t *n)
{
    const char *v;

    if (n->type != YAML_SCALAR_NODE ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    v = (const char *)n->data.scalar.value;
    return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

const char *sim_yaml_node_kind(const yaml_node_t *n)
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

/* ---- reading and parsing ---- */

char *sim_yaml_read_file(const char *path, size_t max_bytes, size_t *len,
                         struct sim_diag *d)
{
    FILE *fp = fopen(path, "rb");
    size_t n = 0, cap = 4096;
    char *buf;

    if (fp == NULL) {
        sim_diag_error(d, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    buf = xmalloc(cap + 1);
    for (;;) {
        size_t got;
        if (n == cap) {
            if (cap > max_bytes) {
                sim_diag_error(d, path, 0, 0, "larger than %zu bytes",
                               max_bytes);
                free(buf);
                fclose(fp);
                return NULL;
            }
            cap *= 2;
            buf = xrealloc(buf, cap + 1, 1);
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        sim_diag_error(d, path, 0, 0, "cannot read: %s", strerror(errno));
        free(buf);
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    if (n > max_bytes) {
        sim_diag_error(d, path, 0, 0, "larger than %zu bytes", max_bytes);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Line and column (1-based) of byte offset off in text. */
static void offset_pos(const char *text, size_t len, size_t off, int *line,
                       int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static void syntax_error(struct sim_yaml *y, const yaml_parser_t *parser,
                         const char *text, size_t len)
{
    int line, col;

    if (parser->error == YAML_READER_ERROR) {
        offset_pos(text, len, parser->problem_offset, &line, &col);
    } else {
        line = (int)parser->problem_mark.line + 1;
        col = (int)parser->problem_mark.column + 1;
    }
    sim_diag_error(y->d, y->file, line, col, "%s",
                   parser->problem ? parser->problem : "invalid YAML");
}

int sim_yaml_parse(struct sim_yaml *y, const char *text, size_t len,
                   size_t max_bytes)
{
    yaml_parser_t parser;
    yaml_document_t extra;
    yaml_node_t *root;
    int rc = 0;

    if (len > max_bytes) {
        sim_diag_error(y->d, y->file, 0, 0, "larger than %zu bytes", max_bytes);
        return SIM_EIO;
    }
    if (!yaml_parser_initialize(&parser))
        sim_fatal("yaml_parser_initialize failed");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &y->doc)) {
        syntax_error(y, &parser, text, len);
        yaml_parser_delete(&parser);
        return SIM_EPARSE;
    }
    y->loaded = 1;
    root = yaml_document_get_root_node(&y->doc);
    if (root != NULL) {
        if (!yaml_parser_load(&parser, &extra)) {
            syntax_error(y, &parser, text, len);
            rc = SIM_EPARSE;
        } else {
            yaml_node_t *r2 = yaml_document_get_root_node(&extra);
            if (r2 != NULL)
                sim_yaml_error(y, sim_yaml_line(r2), sim_yaml_col(r2),
                               "expected one YAML document, got a second");
            yaml_document_delete(&extra);
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

void sim_yaml_defaults(const struct sim_param *rows, void *base,
                       const char *what)
{
    char err[SIM_PARAM_ERRLEN + 64];

    if (sim_param_defaults(rows, base, err, sizeof(err)) != 0)
        sim_fatal("%s table default of %s", what, err);
}

/* ---- the seen list ---- */

const struct sim_yaml_seen *sim_yaml_seen(const struct sim_yaml *y,
                                          const char *path)
{
    for (int i = 0; i < y->nseen; i++)
        if (strcmp(y->seen[i].path, path) == 0)
            return &y->seen[i];
    return NULL;
}

const struct sim_yaml_seen *sim_yaml_seenf(const struct sim_yaml *y,
                                           const char *fmt, ...)
{
    char path[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    return sim_yaml_seen(y, path);
}

/* ---- helpers of the callers' checks ---- */

void sim_yaml_section_pos(const struct sim_yaml *y, const char *path, int *line,
                          int *col)
{
    const struct sim_yaml_seen *s = sim_yaml_seen(y, path);

    *line = s ? s->kline : y->root_line;
    *col = s ? s->kcol : y->root_col;
}

void sim_yaml_not_used(struct sim_yaml *y, const char *path, const char *key,
                       const char *what)
{
    const struct sim_yaml_seen *s = sim_yaml_seenf(y, "%s.%s", path, key);

    if (s != NULL)
        sim_yaml_error(y, s->kline, s->kcol, "%s.%s: not used by %s", path, key,
                       what);
}

void sim_yaml_exactly_one(struct sim_yaml *y, const char *path, const char *a,
                          const char *b)
{
    const struct sim_yaml_seen *sa = sim_yaml_seenf(y, "%s.%s", path, a);
    const struct sim_yaml_seen *sb = sim_yaml_seenf(y, "%s.%s", path, b);
    int line, col;

    if (sa != NULL && sb != NULL) {
        const struct sim_yaml_seen *later =
            (sb->kline > sa->kline ||
             (sb->kline == sa->kline && sb->kcol > sa->kcol))
                ? sb
                : sa;
        sim_yaml_error(y, later->kline, later->kcol,
                       "%s: give exactly one of '%s' or '%s'", later->path, a,
                       b);
    } else if (sa == NULL && sb == NULL) {
        sim_yaml_section_pos(y, path, &line, &col);
        sim_yaml_error(y, line, col, "%s: missing key '%s' or '%s'", path, a,
                       b);
    }
}

void sim_yaml_check_keys(struct sim_yaml *y, const char *path,
                         const char *const *keys, unsigned used,
                         unsigned optional, const char *what)
{
    int line, col;

    sim_yaml_section_pos(y, path, &line, &col);
    for (int i = 0; keys[i] != NULL; i++) {
        if (used & (1u << i)) {
            if (sim_yaml_seenf(y, "%s.%s", path, keys[i]) == NULL)
                sim_yaml_error(y, line, col,
                               "%s: missing key '%s' (required by %s)", path,
                               keys[i], what);
        } else if (!(optional & (1u << i))) {
            sim_yaml_not_used(y, path, keys[i], what);
        }
    }
}

const char *sim_yaml_choice_name(const struct sim_param *rows, const char *key,
                                 int value)
{
    const struct sim_param *p = sim_param_find(rows, key);
    const struct sim_param_choice *ch =
        p ? sim_param_choice_by_value(p, value) : NULL;

    return ch ? ch->name : "?";
}

static const struct sim_yaml_seen *add_seen(struct sim_yaml *y,
                                            const char *path,
                                            const yaml_node_t *key,
                                            const yaml_node_t *val)
{
    struct sim_yaml_seen *s;

    if (y->nseen == y->capseen) {
        y->capseen = y->capseen ? 2 * y->capseen : 32;
        y->seen = xrealloc(y->seen, (size_t)y->capseen, sizeof(*y->seen));
    }
    s = &y->seen[y->nseen++];
    s->path = xstrdup(path);
    s->kline = sim_yaml_line(key);
    s->kcol = sim_yaml_col(key);
    s->vline = sim_yaml_line(val);
    s->vcol = sim_yaml_col(val);
    return s;
}

/* ---- the walk ---- */

/* Is p a list of scalars (one element row with the empty key)? */
static int scalar_list(const struct sim_param *p)
{
    return p->sub != NULL && p->sub[0].key != NULL && p->sub[0].key[0] == '\0';
}

/* What a value of row p looks like, for "expected ..." messages. */
static void describe_row(const struct sim_param *p, char *buf, size_t len)
{
    char valid[200];

    switch (p->type) {
    case SIM_PT_INT:
    case SIM_PT_INT64:
    case SIM_PT_UINT64:
        snprintf(buf, len, "an integer");
        return;
    case SIM_PT_DOUBLE:
        snprintf(buf, len, "%s",
                 p->unit == SIM_U_NONE || p->unit == SIM_U_TOKENS
                     ? "a number"
                     : sim_unit_describe(p->unit));
        return;
    case SIM_PT_DURATION:
        snprintf(buf, len, "%s", sim_unit_describe(p->unit));
        return;
    case SIM_PT_BOOL:
        snprintf(buf, len, "true or false");
        return;
    case SIM_PT_STRING:
        snprintf(buf, len, "a string");
        return;
    case SIM_PT_ENUM:
        sim_param_choices_format(p, valid, sizeof(valid));
        snprintf(buf, len, "one of %s", valid);
        return;
    case SIM_PT_SECTION:
    case SIM_PT_MAP:
        snprintf(buf, len, "a mapping");
        return;
    case SIM_PT_LIST:
        snprintf(buf, len, "%s",
                 scalar_list(p) ? "a sequence" : "a sequence of mappings");
        return;
    }
    buf[0] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reports an unknown key with the closest valid key (edit distance <= 2,
 * or one being a prefix of the other), else the sorted list of keys. */
static void unknown_key(struct sim_yaml *y, const struct sim_param *rows,
                        const char *path, const char *key, int line, int col)
{
    const char *best = NULL, *names[64] = {NULL};
    int best_d = 3;
    size_t n = 0, klen = strlen(key), used = 0;
    char list[512];

    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        int dist = sim_param_edit_distance(key, p->key, 2);
        size_t plen = strlen(p->key);
        if (dist < best_d && dist < (int)klen) {
            best_d = dist;
            best = p->key;
        }
        if (best == NULL && klen >= 2 &&
            strncmp(key, p->key, klen < plen ? klen : plen) == 0)
            best = p->key;
        if (n < 64)
            names[n++] = p->key;
    }
    if (best != NULL) {
        sim_yaml_error(y, line, col, "%s: unknown key; did you mean '%s'?",
                       path, best);
        return;
    }
    qsort(names, n, sizeof(names[0]), cmp_str);
    list[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof(list); i++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s%s",
                         i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    sim_yaml_error(y, line, col, "%s: unknown key; valid: %s", path, list);
}

static char *join_path(const char *parent, const char *key)
{
    return parent[0] ? xasprintf("%s.%s", parent, key) : xstrdup(key);
}

/* Does the scalar hold a NUL byte (which the C strings would cut)? */
static int has_nul(const yaml_node_t *n)
{
    return strlen((const char *)n->data.scalar.value) != n->data.scalar.length;
}

/* Reports that v, given for path, is not what (a kind of collection). */
static void not_a(struct sim_yaml *y, const yaml_node_t *v, const char *path,
                  const char *what)
{
    if (v->type == YAML_SCALAR_NODE)
        sim_yaml_error(y, sim_yaml_line(v), sim_yaml_col(v),
                       "%s: expected %s, got '%s'", path, what,
                       (const char *)v->data.scalar.value);
    else
        sim_yaml_error(y, sim_yaml_line(v), sim_yaml_col(v),
                       "%s: expected %s, got %s", path, what,
                       sim_yaml_node_kind(v));
}

/* Parses the scalar node v for row p into base. Errors name path; a null
 * is reported at (kl, kc), the key. */
static void walk_scalar(struct sim_yaml *y, const struct sim_param *p,
                        const yaml_node_t *v, void *base, const char *path,
                        int kl, int kc)
{
    char err[SIM_PARAM_ERRLEN], what[256];
    int vl = sim_yaml_line(v), vc = sim_yaml_col(v);

    describe_row(p, what, sizeof(what));
    if (v->type != YAML_SCALAR_NODE)
        sim_yaml_error(y, vl, vc, "%s: expected %s, got %s", path, what,
                       sim_yaml_node_kind(v));
    else if (sim_yaml_is_null(v))
        sim_yaml_error(y, kl, kc, "%s: missing value; expected %s", path, what);
    else if (has_nul(v))
        sim_yaml_error(y, vl, vc, "%s: expected %s, got a NUL byte", path,
                       what);
    else if (sim_param_parse(p, (const char *)v->data.scalar.value, base, err,
                             sizeof(err)) != 0)
        sim_yaml_error(y, vl, vc, "%s: %s", path, err);
}

/* Fills list row p at base from the sequence node v: each element of a
 * list of sections gets the defaults of p->sub, then the keys given, with
 * the path "path[i]" and its missing keys reported at the element's node;
 * each element of a list of scalars is one value of p->sub[0]. (kl, kc) is
 * the list's key. */
static void walk_list(struct sim_yaml *y, const struct sim_param *p,
                      yaml_node_t *v, void *base, const char *path, int kl,
                      int kc)
{
    int i = 0, scalars = scalar_list(p);
    char what[64];

    describe_row(p, what, sizeof(what));
    if (sim_yaml_is_null(v)) {
        sim_yaml_error(y, kl, kc, "%s: missing value; expected %s", path, what);
        return;
    }
    if (v->type != YAML_SEQUENCE_NODE) {
        not_a(y, v, path, what);
        return;
    }
    for (yaml_node_item_t *it = v->data.sequence.items.start;
         it < v->data.sequence.items.top; it++, i++) {
        yaml_node_t *e = yaml_document_get_node(&y->doc, *it);
        int el = sim_yaml_line(e), ec = sim_yaml_col(e);
        void *elem =
            sim_param_list_append(p, base, sim_param_list_elem_size(p));
        char *child;

        if (elem == NULL) {
            sim_yaml_error(y, el, ec, "%s: more than %g entries", path, p->max);
            return;
        }
        child = xasprintf("%s[%d]", path, i);
        if (scalars) {
            int before = y->errors;
            walk_scalar(y, &p->sub[0], e, elem, child, el, ec);
            if (y->errors > before) /* left out; it holds nothing */
                (*(int *)(void *)((char *)base + p->offset + sizeof(void *)))--;
        } else {
            sim_yaml_defaults(p->sub, elem, "element");
            sim_yaml_walk_section(y, p->sub, e, elem, child, el, ec);
        }
        free(child);
    }
}

/* Is a key name: a scalar without NUL bytes. Reports it if not. */
static int key_name(struct sim_yaml *y, const yaml_node_t *k, const char *path)
{
    if (k->type == YAML_SCALAR_NODE && !has_nul(k))
        return 1;
    sim_yaml_error(y, sim_yaml_line(k), sim_yaml_col(k),
                   "%s: expected a key name, got %s", path,
                   sim_yaml_node_kind(k));
    return 0;
}

/* Fills map row p at base from the mapping node v, in document order:
 * pairs of scalars through ops->map_fill, or named sections (p->sub)
 * whose first member receives the name; nested values in a map of scalars
 * are errors. A duplicate is a key already stored from this node (the map
 * was emptied by its default). */
static void walk_map(struct sim_yaml *y, const struct sim_param *p,
                     yaml_node_t *v, void *base, const char *path)
{
    size_t npairs, elem_size;
    const char **stored;
    size_t nstored = 0;
    /* A map of named sections has element rows that are document keys;
     * a map of scalars may still describe its element for the
     * destructor (SIM_PF_SCALARS), and then its sub is not walked. */
    const struct sim_param *sections =
        (p->flags & SIM_PF_SCALARS) ? NULL : p->sub;

    if (sim_yaml_is_null(v))
        return; /* an empty mapping */
    if (v->type != YAML_MAPPING_NODE) {
        not_a(y, v, path, "a mapping");
        return;
    }
    if (sections == NULL &&
        (y->ops == NULL || y->ops->map_fill == NULL || y->ops->map_size == 0))
        sim_fatal("%s: a map of scalars needs the map_fill hook", path);
    elem_size =
        sections != NULL ? sim_param_list_elem_size(p) : y->ops->map_size;
    npairs = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
    stored = xcalloc(npairs + 1, sizeof(*stored));
    for (yaml_node_pair_t *pair = v->data.mapping.pairs.start;
         pair < v->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);
        yaml_node_t *val = yaml_document_get_node(&y->doc, pair->value);
        int kl = sim_yaml_line(k), kc = sim_yaml_col(k);
        int vl = sim_yaml_line(val), vc = sim_yaml_col(val);
        const struct sim_yaml_seen *at;
        const char *key;
        char *child;
        void *elem;
        int dup = 0;

        if (!key_name(y, k, path))
            continue;
        key = (const char *)k->data.scalar.value;
        child = join_path(path, key);
        for (size_t i = 0; i < nstored && !dup; i++)
            dup = strcmp(stored[i], key) == 0;
        if (dup) {
            sim_yaml_error(y, kl, kc, "%s: duplicate key", child);
        } else if (sections != NULL && key[0] == '\0') {
            sim_yaml_error(y, kl, kc, "%s: expected a key name, got ''", path);
        } else if (sections == NULL && val->type != YAML_SCALAR_NODE) {
            sim_yaml_error(y, vl, vc, "%s: expected a scalar, got %s", child,
                           sim_yaml_node_kind(val));
        } else if (sections == NULL && sim_yaml_is_null(val)) {
            sim_yaml_error(y, kl, kc, "%s: missing value; expected a scalar",
                           child);
        } else if (sections == NULL && has_nul(val)) {
            sim_yaml_error(y, vl, vc, "%s: expected a scalar, got a NUL byte",
                           child);
        } else if ((elem = sim_param_list_append(p, base, elem_size)) == NULL) {
            sim_yaml_error(y, kl, kc, "%s: more than %g entries", path, p->max);
            free(child);
            break;
        } else {
            stored[nstored++] = key;
            at = add_seen(y, child, k, val);
            if (sections == NULL) {
                y->ops->map_fill(elem, key,
                                 (const char *)val->data.scalar.value, at);
            } else {
                sim_yaml_defaults(sections, elem, "element");
                *(char **)elem = xstrdup(key);
                sim_yaml_walk_section(y, sections, val, elem, child, kl, kc);
            }
        }
        free(child);
    }
    free(stored);
}

void sim_yaml_walk_section(struct sim_yaml *y, const struct sim_param *rows,
                           yaml_node_t *node, void *base, const char *path,
                           int line, int col)
{
    unsigned char given[64] = {0};

    if (sim_yaml_is_null(node))
        goto required;
    if (node->type != YAML_MAPPING_NODE) {
        not_a(y, node, path, "a mapping");
        return;
    }
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(&y->doc, pair->value);
        int kl = sim_yaml_line(k), kc = sim_yaml_col(k);
        const struct sim_param *p;
        const char *key;
        char *child;
        size_t idx;

        if (k->type != YAML_SCALAR_NODE) {
            sim_yaml_error(y, kl, kc, "%s%sexpected a key name, got %s", path,
                           path[0] ? ": " : "", sim_yaml_node_kind(k));
            continue;
        }
        key = (const char *)k->data.scalar.value;
        child = join_path(path, key);
        p = sim_param_find(rows, key);
        if (p == NULL || has_nul(k)) {
            unknown_key(y, rows, child, key, kl, kc);
            free(child);
            continue;
        }
        idx = (size_t)(p - rows);
        if (idx < sizeof(given) && given[idx]) {
            sim_yaml_error(y, kl, kc, "%s: duplicate key", child);
            free(child);
            continue;
        }
        if (idx < sizeof(given))
            given[idx] = 1;
        add_seen(y, child, k, v);
        if (y->ops != NULL && y->ops->take != NULL &&
            y->ops->take(y, p, k, v, base, child)) {
            free(child);
            continue;
        }
        switch (p->type) {
        case SIM_PT_SECTION:
            sim_yaml_walk_section(y, p->sub, v, (char *)base + p->offset, child,
                                  kl, kc);
            break;
        case SIM_PT_LIST:
            walk_list(y, p, v, base, child, kl, kc);
            break;
        case SIM_PT_MAP:
            walk_map(y, p, v, base, child);
            break;
        default:
            walk_scalar(y, p, v, base, child, kl, kc);
            break;
        }
        free(child);
    }
required:
    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        size_t idx = (size_t)(p - rows);
        if ((p->flags & SIM_PF_REQUIRED) && idx < sizeof(given) && !given[idx])
            sim_yaml_error(y, line, col, "%s%smissing key '%s'", path,
                           path[0] ? ": " : "", p->key);
    }
}

yaml_node_t *sim_yaml_root_mapping(struct sim_yaml *y, const char *what)
{
    yaml_node_t *root = y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;

    if (root == NULL) {
        sim_yaml_error(y, 1, 1, "expected %s, got an empty document", what);
        return NULL;
    }
    if (root->type != YAML_MAPPING_NODE) {
        sim_yaml_error(y, sim_yaml_line(root), sim_yaml_col(root),
                       "expected %s, got %s", what, sim_yaml_node_kind(root));
        return NULL;
    }
    y->root_line = sim_yaml_line(root);
    y->root_col = sim_yaml_col(root);
    return root;
}

int sim_yaml_walk(struct sim_yaml *y, const struct sim_param *rows, void *base,
                  const char *what)
{
    yaml_node_t *root = sim_yaml_root_mapping(y, what);

    if (root == NULL)
        return SIM_EINVAL;
    sim_yaml_walk_section(y, rows, root, base, "", y->root_line, y->root_col);
    return 0;
}
