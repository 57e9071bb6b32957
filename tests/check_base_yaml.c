/* Check suite for the YAML-over-rows walker (base/yaml-rows.c) on a small
 * table of every layout it reads: scalars with units, a nested section, a
 * list of sections, lists of scalars, a map of scalars and a map of named
 * sections. Each diagnostic is compared as the exact "file:line:col:
 * error: ..." string. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define END                                                                    \
    {                                                                          \
        NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL                         \
    }

struct inner {
    double rate_per_s;
    int64_t wait_ns;
};

struct item {
    char *name;
    int count;
};

struct named {
    char *name; /* the key */
    double share;
};

struct pair {
    char *key;
    char *value;
    int line, col;
};

struct doc {
    int count;
    int flag;
    int kind;
    char *label;
    struct inner inner;
    struct item *items;
    int nitems;
    char **tags;
    int ntags;
    uint64_t *seeds;
    int nseeds;
    struct named *classes;
    int nclasses;
    struct pair *params;
    int nparams;
};

static const struct sim_param_choice kinds[] = {
    {"alpha", 0}, {"beta", 1}, {NULL, 0}};

static const struct sim_param inner_rows[] = {
    {"rate", SIM_PT_DOUBLE, SIM_U_PER_S, 0, 1e6, SIM_PF_MIN_EXCL, "1/s",
     "a rate", offsetof(struct inner, rate_per_s), NULL, NULL},
    {"wait", SIM_PT_DURATION, SIM_U_SECONDS, 0, NOMAX, SIM_PF_REQUIRED, NULL,
     "a wait", offsetof(struct inner, wait_ns), NULL, NULL},
    END,
};

static const struct sim_param item_rows[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, SIM_PF_REQUIRED, NULL,
     "a name", offsetof(struct item, name), NULL, NULL},
    {"count", SIM_PT_INT, SIM_U_NONE, 0, 100, 0, "1", "a count",
     offsetof(struct item, count), NULL, NULL},
    SIM_PARAM_END_LIST(struct item),
};

static const struct sim_param tag_rows[] = {
    {"", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL, "a tag", 0, NULL,
     NULL},
    SIM_PARAM_END_LIST(char *),
};

static const struct sim_param seed_rows[] = {
    {"", SIM_PT_UINT64, SIM_U_NONE, 0, NOMAX, 0, NULL, "a seed", 0, NULL, NULL},
    SIM_PARAM_END_LIST(uint64_t),
};

static const struct sim_param class_rows[] = {
    {"share", SIM_PT_DOUBLE, SIM_U_NONE, 0, NOMAX, 0, "1", "a share",
     offsetof(struct named, share), NULL, NULL},
    SIM_PARAM_END_LIST(struct named),
};

static const struct sim_param rows[] = {
    {"classes", SIM_PT_MAP, SIM_U_NONE, NOMIN, 2, 0, NULL, "named sections",
     offsetof(struct doc, classes), NULL, class_rows},
    {"count", SIM_PT_INT, SIM_U_NONE, 1, 10, SIM_PF_REQUIRED, NULL, "a count",
     offsetof(struct doc, count), NULL, NULL},
    {"flag", SIM_PT_BOOL, SIM_U_NONE, NOMIN, NOMAX, 0, "false", "a flag",
     offsetof(struct doc, flag), NULL, NULL},
    {"inner", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL, "a section",
     offsetof(struct doc, inner), NULL, inner_rows},
    {"items", SIM_PT_LIST, SIM_U_NONE, NOMIN, 2, 0, NULL, "sections",
     offsetof(struct doc, items), NULL, item_rows},
    {"kind", SIM_PT_ENUM, SIM_U_NONE, NOMIN, NOMAX, 0, "alpha", "a kind",
     offsetof(struct doc, kind), kinds, NULL},
    {"label", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, "none", "a label",
     offsetof(struct doc, label), NULL, NULL},
    {"params", SIM_PT_MAP, SIM_U_NONE, NOMIN, 3, 0, NULL, "free pairs",
     offsetof(struct doc, params), NULL, NULL},
    {"seeds", SIM_PT_LIST, SIM_U_NONE, NOMIN, 3, 0, NULL, "integers",
     offsetof(struct doc, seeds), NULL, seed_rows},
    {"tags", SIM_PT_LIST, SIM_U_NONE, NOMIN, 4, 0, NULL, "strings",
     offsetof(struct doc, tags), NULL, tag_rows},
    END,
};

static void fill_pair(void *elem, const char *key, const char *value,
                      const struct sim_yaml_seen *at)
{
    struct pair *p = elem;

    p->key = xstrdup(key);
    p->value = xstrdup(value);
    p->line = at->vline;
    p->col = at->vcol;
}

/* The take hook of the tests: "label: {from: x}" is taken and reported. */
static int take_label(struct sim_yaml *y, const struct sim_param *p,
                      yaml_node_t *key, yaml_node_t *val, void *base,
                      const char *path)
{
    (void)base;
    if (strcmp(p->key, "label") != 0 || val->type != YAML_MAPPING_NODE)
        return 0;
    (*(int *)y->ctx)++;
    sim_yaml_error(y, sim_yaml_line(key), sim_yaml_col(key), "%s: taken", path);
    return 1;
}

static int taken;
static const struct sim_yaml_ops ops = {
    .take = take_label,
    .map_fill = fill_pair,
    .map_size = sizeof(struct pair),
};

static struct doc doc;
static struct sim_diag diag;
static struct sim_yaml walker;

static void setup(void)
{
    memset(&doc, 0, sizeof(doc));
    sim_diag_init(&diag);
    taken = 0;
}

static void teardown(void)
{
    for (int i = 0; i < doc.nclasses; i++)
        free(doc.classes[i].name);
    for (int i = 0; i < doc.nparams; i++) {
        free(doc.params[i].key);
        free(doc.params[i].value);
    }
    for (const struct sim_param *p = rows; p->key != NULL; p++)
        if (p->type == SIM_PT_LIST || p->type == SIM_PT_MAP)
            sim_param_list_clear(p, &doc);
    free(doc.label);
    sim_yaml_fini(&walker);
    sim_diag_fini(&diag);
}

/* Parses and walks text as t.yaml; returns the walker's error count, or
 * the parse's code when it failed. */
static int walk(const char *text)
{
    int rc;

    sim_yaml_init(&walker, "t.yaml", &diag, &ops);
    walker.ctx = &taken;
    rc = sim_yaml_parse(&walker, text, strlen(text), 1u << 20);
    if (rc != 0)
        return rc;
    sim_yaml_defaults(rows, &doc, "test");
    sim_yaml_walk(&walker, rows, &doc, "a mapping of test keys");
    return walker.errors;
}

/* Compares the diagnostics with want (NULL-terminated); on a difference
 * prints every diagnostic before failing. */
static void want_diags(const char *const *want)
{
    int n = 0, same;

    while (want[n] != NULL)
        n++;
    same = diag.n == n;
    for (int i = 0; i < diag.n && i < n && same; i++) {
        char *got = sim_diag_format(&diag, i);
        same = strcmp(got, want[i]) == 0;
        free(got);
    }
    if (!same) {
        sim_diag_print(&diag, stderr);
        ck_abort_msg("%d diagnostics, expected %d (printed above)", diag.n, n);
    }
}

START_TEST(test_sim_yaml_walk_values)
{
    ck_assert_int_eq(walk("count: 3\n"
                          "flag: yes\n"
                          "kind: beta\n"
                          "inner: {rate: 10/min, wait: 500ms}\n"
                          "items:\n"
                          "  - {name: a}\n"
                          "  - {name: b, count: 7}\n"
                          "tags: [x, 'y z']\n"
                          "seeds: [1, 9223372036854775807]\n"
                          "classes: {gold: {share: 2}, bronze: }\n"
                          "params: {p: 1, q: two}\n"),
                     0);
    ck_assert_int_eq(doc.count, 3);
    ck_assert_int_eq(doc.flag, 1);
    ck_assert_int_eq(doc.kind, 1);
    ck_assert_str_eq(doc.label, "none");
    ck_assert_double_eq_tol(doc.inner.rate_per_s, 10.0 / 60, 1e-12);
    ck_assert_int_eq(doc.inner.wait_ns, 500000000);
    ck_assert_int_eq(doc.nitems, 2);
    ck_assert_str_eq(doc.items[0].name, "a");
    ck_assert_int_eq(doc.items[0].count, 1); /* the element's default */
    ck_assert_int_eq(doc.items[1].count, 7);
    ck_assert_int_eq(doc.ntags, 2);
    ck_assert_str_eq(doc.tags[1], "y z");
    ck_assert_int_eq(doc.nseeds, 2);
    ck_assert(doc.seeds[1] == (uint64_t)INT64_MAX);
    ck_assert_int_eq(doc.nclasses, 2);
    ck_assert_str_eq(doc.classes[0].name, "gold");
    ck_assert_double_eq(doc.classes[0].share, 2);
    ck_assert_str_eq(doc.classes[1].name, "bronze");
    ck_assert_double_eq(doc.classes[1].share, 1); /* null: an empty entry */
    ck_assert_int_eq(doc.nparams, 2);
    ck_assert_str_eq(doc.params[1].key, "q");
    ck_assert_str_eq(doc.params[1].value, "two");
    ck_assert_int_eq(doc.params[1].line, 11);
    ck_assert_int_eq(doc.params[1].col, 19);
}
END_TEST

START_TEST(test_sim_yaml_walk_nulls)
{
    /* Every plain spelling of null is a missing value; quoted, it is
     * text. */
    static const char *const want[] = {
        "t.yaml:2:1: error: label: missing value; expected a string",
        "t.yaml:3:1: error: flag: missing value; expected true or false",
        "t.yaml:4:1: error: kind: missing value; expected one of alpha, beta",
        "t.yaml:6:3: error: inner.rate: missing value; expected a rate "
        "(e.g. 10/s, 600/min; plain number = per second)",
        "t.yaml:7:3: error: inner.wait: missing value; expected a duration "
        "(e.g. 90s, 500ms, 2h; plain number = seconds)",
        "t.yaml:8:1: error: items: missing value; expected a sequence of "
        "mappings",
        "t.yaml:9:8: error: tags[0]: missing value; expected a string",
        "t.yaml:10:10: error: params.p: missing value; expected a scalar",
        NULL,
    };

    ck_assert_int_eq(walk("count: 1\n"
                          "label:\n"
                          "flag: ~\n"
                          "kind: null\n"
                          "inner:\n  rate: Null\n  wait: NULL\n"
                          "items:\n"
                          "tags: [~, 'null', \"~\"]\n"
                          "params: {p: null, q: 'Null'}\n"),
                     8);
    want_diags(want);
    ck_assert_int_eq(doc.ntags, 2); /* the null is left out */
    ck_assert_str_eq(doc.tags[0], "null");
    ck_assert_str_eq(doc.tags[1], "~");
    ck_assert_int_eq(doc.nparams, 1);
    ck_assert_str_eq(doc.params[0].value, "Null");
}
END_TEST

START_TEST(test_sim_yaml_walk_null_section_and_required)
{
    /* A null section is an empty mapping: its required keys are missing,
     * reported at its key; the root's at the root. */
    static const char *const want[] = {
        "t.yaml:2:1: error: inner: missing key 'wait'",
        "t.yaml:3:9: error: items[0]: missing key 'name'",
        "t.yaml:1:1: error: missing key 'count'",
        NULL,
    };

    ck_assert_int_eq(walk("label: x\n"
                          "inner: ~\n"
                          "items: [{count: 2}]\n"),
                     3);
    want_diags(want);
}
END_TEST

START_TEST(test_sim_yaml_walk_nested_errors)
{
    static const char *const want[] = {
        "t.yaml:1:8: error: count: expected an integer, got a sequence",
        "t.yaml:2:15: error: inner.rate: 2e6/s out of range (0, 1e+06]",
        "t.yaml:2:28: error: inner.wait: expected a duration (e.g. 90s, "
        "500ms, 2h; plain number = seconds), got 'soon'",
        "t.yaml:3:9: error: items[0]: expected a mapping, got a sequence",
        "t.yaml:3:31: error: items[1].count: 101 out of range [0, 100]",
        "t.yaml:4:7: error: kind: unknown kind 'gamma'; valid: alpha, beta",
        "t.yaml:5:7: error: tags: expected a sequence, got a mapping",
        "t.yaml:6:12: error: seeds[1]: -1 out of range [0, inf)",
        "t.yaml:7:13: error: params.n: expected a scalar, got a sequence",
        "t.yaml:8:22: error: classes.x.share: expected a number, got a "
        "mapping",
        "t.yaml:8:30: error: classes.y: expected a mapping, got '5'",
        NULL,
    };

    ck_assert_int_eq(walk("count: [1]\n"
                          "inner: {rate: 2e6/s, wait: soon}\n"
                          "items: [[1], {name: a, count: 101}]\n"
                          "kind: gamma\n"
                          "tags: {a: 1}\n"
                          "seeds: [1, -1]\n"
                          "params: {n: [1]}\n"
                          "classes: {x: {share: {}}, y: 5}\n"),
                     11);
    want_diags(want);
    ck_assert_int_eq(doc.nseeds, 1); /* the bad seed is left out */
    ck_assert(doc.seeds[0] == 1);
}
END_TEST

START_TEST(test_sim_yaml_walk_caps)
{
    static const char *const want[] = {
        "t.yaml:2:31: error: items: more than 2 entries",
        "t.yaml:3:18: error: seeds: more than 3 entries",
        "t.yaml:4:28: error: params: more than 3 entries",
        "t.yaml:5:25: error: classes: more than 2 entries",
        NULL,
    };

    ck_assert_int_gt(walk("count: 1\n"
                          "items: [{name: a}, {name: b}, {name: c}]\n"
                          "seeds: [1, 2, 3, 4, 5]\n"
                          "params: {a: 1, b: 2, c: 3, d: 4, e: 5}\n"
                          "classes: {a: {}, b: {}, c: {}}\n"),
                     0);
    want_diags(want);
    /* What fits is kept; the rest is dropped, not overflowed. */
    ck_assert_int_eq(doc.nitems, 2);
    ck_assert_int_eq(doc.nseeds, 3);
    ck_assert_int_eq(doc.nparams, 3);
    ck_assert_int_eq(doc.nclasses, 2);
}
END_TEST

START_TEST(test_sim_yaml_walk_unknown_keys)
{
    static const char *const want[] = {
        "t.yaml:1:1: error: cont: unknown key; did you mean 'count'?",
        "t.yaml:2:1: error: labl: unknown key; did you mean 'label'?",
        "t.yaml:3:1: error: zzzzzz: unknown key; valid: classes, count, flag, "
        "inner, items, kind, label, params, seeds, tags",
        "t.yaml:4:9: error: inner.rat: unknown key; did you mean 'rate'?",
        "t.yaml:5:1: error: expected a key name, got a sequence",
        "t.yaml:6:10: error: items[0].nme: unknown key; did you mean 'name'?",
        NULL,
    };

    ck_assert_int_eq(walk("cont: 1\n"
                          "labl: x\n"
                          "zzzzzz: 1\n"
                          "inner: {rat: 1, wait: 1}\n"
                          "[a]: 1\n"
                          "items: [{nme: a, name: b}]\n"
                          "count: 2\n"),
                     6);
    want_diags(want);
    ck_assert_int_eq(doc.count, 2);
}
END_TEST

START_TEST(test_sim_yaml_walk_duplicates)
{
    static const char *const want[] = {
        "t.yaml:3:1: error: count: duplicate key",
        "t.yaml:4:16: error: params.a: duplicate key",
        "t.yaml:5:18: error: classes.g: duplicate key",
        "t.yaml:6:19: error: items[0].name: duplicate key",
        NULL,
    };

    ck_assert_int_eq(walk("count: 1\n"
                          "flag: true\n"
                          "count: 2\n"
                          "params: {a: 1, a: 2}\n"
                          "classes: {g: {}, g: {}}\n"
                          "items: [{name: a, name: b}]\n"),
                     4);
    want_diags(want);
    ck_assert_int_eq(doc.count, 1); /* the first stands */
    ck_assert_str_eq(doc.params[0].value, "1");
}
END_TEST

START_TEST(test_sim_yaml_walk_seen_positions)
{
    const struct sim_yaml_seen *s;

    ck_assert_int_eq(walk("# a comment\n"
                          "count:   4\n"
                          "inner:\n"
                          "    wait: 2s\n"
                          "items:\n"
                          "  - name: a\n"
                          "  -   name: b\n"
                          "classes: {c: {share: 3}}\n"),
                     0);
    s = sim_yaml_seen(&walker, "count");
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->kline, 2);
    ck_assert_int_eq(s->kcol, 1);
    ck_assert_int_eq(s->vline, 2);
    ck_assert_int_eq(s->vcol, 10);
    s = sim_yaml_seen(&walker, "inner.wait");
    ck_assert_int_eq(s->kline, 4);
    ck_assert_int_eq(s->kcol, 5);
    s = sim_yaml_seenf(&walker, "items[%d].name", 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->kline, 7);
    ck_assert_int_eq(s->kcol, 7);
    s = sim_yaml_seen(&walker, "classes.c.share");
    ck_assert_int_eq(s->vcol, 22);
    ck_assert_ptr_null(sim_yaml_seen(&walker, "flag"));
    ck_assert_int_eq(walker.root_line, 2);
}
END_TEST

/* The helpers of the callers' cross-field checks, at the positions the
 * walk recorded. */
START_TEST(test_sim_yaml_check_helpers)
{
    static const char *const keys[] = {"rate", "wait", "x", NULL};
    static const char *const want[] = {
        "t.yaml:4:3: error: inner.rate: not used by kind beta",
        "t.yaml:5:3: error: inner.wait: give exactly one of 'rate' or 'wait'",
        "t.yaml:3:1: error: inner: missing key 'x' or 'z'",
        "t.yaml:2:1: error: items: missing key 'a' or 'b'",
        "t.yaml:5:3: error: inner.wait: not used by kind beta",
        "t.yaml:3:1: error: inner: missing key 'x' (required by kind beta)",
        NULL,
    };
    int line, col;

    ck_assert_int_eq(walk("# checks\n"
                          "count: 1\n"
                          "inner:\n"
                          "  rate: 2\n"
                          "  wait: 1s\n"),
                     0);
    sim_yaml_section_pos(&walker, "inner", &line, &col);
    ck_assert_int_eq(line, 3);
    ck_assert_int_eq(col, 1);
    sim_yaml_section_pos(&walker, "items", &line, &col); /* the root */
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 1);
    sim_yaml_not_used(&walker, "inner", "rate", "kind beta");
    sim_yaml_not_used(&walker, "inner", "x", "kind beta"); /* not given */
    sim_yaml_exactly_one(&walker, "inner", "rate", "wait");
    sim_yaml_exactly_one(&walker, "inner", "x", "z");
    sim_yaml_exactly_one(&walker, "items", "a", "b");
    /* In the keys' order: rate optional, wait not used, x needed. */
    sim_yaml_check_keys(&walker, "inner", keys, 1u << 2, 1u << 0, "kind beta");
    want_diags(want);
    ck_assert_int_eq(walker.errors, 6);
    ck_assert_str_eq(sim_yaml_choice_name(rows, "kind", 1), "beta");
    ck_assert_str_eq(sim_yaml_choice_name(rows, "kind", 7), "?");
    ck_assert_str_eq(sim_yaml_choice_name(rows, "nokey", 0), "?");
}
END_TEST

START_TEST(test_sim_yaml_walk_error_cap)
{
    struct sim_diag_entry *last;
    char *text = xstrdup("count: 1\n");

    /* 25 unknown keys: all counted, the first 20 kept. */
    for (int i = 0; i < 25; i++) {
        char *t = xasprintf("%szz%02d: 1\n", text, i);
        free(text);
        text = t;
    }
    ck_assert_int_eq(walk(text), 25);
    ck_assert_int_eq(sim_diag_errors(&diag), 25);
    ck_assert_int_eq(diag.n, SIM_DIAG_MAX_ERRORS);
    last = &diag.v[diag.n - 1];
    ck_assert_int_eq(last->line, 21);
    free(text);
}
END_TEST

START_TEST(test_sim_yaml_parse_syntax_stops)
{
    static const char *const want[] = {
        "t.yaml:3:6: error: did not find expected ',' or ']'", NULL};
    static const char *const utf8[] = {
        "t.yaml:2:8: error: invalid leading UTF-8 octet", NULL};

    ck_assert_int_eq(walk("count: 1\nseeds: [1, 2\nlabel: x\n"), SIM_EPARSE);
    want_diags(want);
    ck_assert_int_eq(doc.count, 0); /* nothing was walked */
    teardown();
    setup();
    ck_assert_int_eq(walk("count: 1\nlabel: \xff\n"), SIM_EPARSE);
    want_diags(utf8);
}
END_TEST

START_TEST(test_sim_yaml_parse_documents)
{
    static const char *const two[] = {
        "t.yaml:3:1: error: expected one YAML document, got a second", NULL};
    static const char *const empty[] = {
        "t.yaml:1:1: error: expected a mapping of test keys, got an empty "
        "document",
        NULL};
    static const char *const seq[] = {
        "t.yaml:1:1: error: expected a mapping of test keys, got a sequence",
        NULL};

    ck_assert_int_eq(walk("count: 1\n---\ncount: 2\n"), 1);
    want_diags(two);
    ck_assert_int_eq(doc.count, 1);
    teardown();
    setup();
    ck_assert_int_eq(walk("# nothing\n"), 1);
    want_diags(empty);
    teardown();
    setup();
    ck_assert_int_eq(walk("- 1\n"), 1);
    want_diags(seq);
    teardown();
    setup();
    sim_yaml_init(&walker, "t.yaml", &diag, NULL);
    ck_assert_int_eq(sim_yaml_parse(&walker, "a: 1\n", 5, 4), SIM_EIO);
    ck_assert_str_eq(diag.v[0].msg, "larger than 4 bytes");
}
END_TEST

START_TEST(test_sim_yaml_walk_take_hook)
{
    static const char *const want[] = {"t.yaml:2:1: error: label: taken", NULL};

    ck_assert_int_eq(walk("count: 1\nlabel: {from: x}\n"), 1);
    want_diags(want);
    ck_assert_int_eq(taken, 1);
    /* A key the hook took is still seen. */
    ck_assert_ptr_nonnull(sim_yaml_seen(&walker, "label"));
    ck_assert_str_eq(doc.label, "none");
}
END_TEST

START_TEST(test_sim_yaml_read_file_errors)
{
    const char *top = getenv("top_srcdir");
    char *path = xasprintf("%s/base/yaml-rows.h", top ? top : ".");
    size_t len = 0;
    char *text;

    ck_assert_ptr_null(
        sim_yaml_read_file("/nonexistent/t.yaml", 1 << 20, &len, &diag));
    ck_assert_str_eq(diag.v[0].msg, "cannot open: No such file or directory");
    ck_assert_ptr_null(sim_yaml_read_file(path, 100, &len, &diag));
    ck_assert_str_eq(diag.v[1].msg, "larger than 100 bytes");
    text = sim_yaml_read_file(path, 1 << 20, &len, &diag);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(strlen(text), len);
    free(text);
    free(path);
}
END_TEST

static Suite *yaml_suite(void)
{
    Suite *s = suite_create("yaml-rows");
    TCase *tc = tcase_create("walk");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_yaml_walk_values);
    tcase_add_test(tc, test_sim_yaml_walk_nulls);
    tcase_add_test(tc, test_sim_yaml_walk_null_section_and_required);
    tcase_add_test(tc, test_sim_yaml_walk_nested_errors);
    tcase_add_test(tc, test_sim_yaml_walk_caps);
    tcase_add_test(tc, test_sim_yaml_walk_unknown_keys);
    tcase_add_test(tc, test_sim_yaml_walk_duplicates);
    tcase_add_test(tc, test_sim_yaml_walk_seen_positions);
    tcase_add_test(tc, test_sim_yaml_check_helpers);
    tcase_add_test(tc, test_sim_yaml_walk_error_cap);
    tcase_add_test(tc, test_sim_yaml_walk_take_hook);
    suite_add_tcase(s, tc);
    tc = tcase_create("parse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sim_yaml_parse_syntax_stops);
    tcase_add_test(tc, test_sim_yaml_parse_documents);
    tcase_add_test(tc, test_sim_yaml_read_file_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(yaml_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
