/*
 * The YAML-over-rows walker: parses one YAML document with libyaml and
 * fills a struct described by parameter rows (base/param.h). Scalars go
 * through sim_param_parse(), so units, ranges and their messages are the
 * rows'; sections, lists (of sections or of scalars) and maps (of scalars
 * or of named sections) follow the row types. Unknown keys get the closest
 * valid key ("did you mean") or the sorted list of keys, duplicate keys and
 * missing required keys are errors, and every given key is remembered with
 * its positions (struct sim_yaml_seen) for the caller's cross-field checks,
 * which the helpers below serve (sim_yaml_not_used(), sim_yaml_exactly_one()
 * and others). Diagnostics go to a struct sim_diag as "file:line:col:
 * error: key.path: what was expected", 1-based; a syntax error stops the
 * load, semantic errors are all collected (the list keeps
 * SIM_DIAG_MAX_ERRORS). The
 * caller owns the walker (sim_yaml_init()/sim_yaml_fini()); the walker
 * owns its document and the seen list; the struct being filled owns what
 * its rows store. What is truly the caller's (a key that needs the
 * caller's catalog, a value walked with other rows) goes through the hooks
 * of struct sim_yaml_ops. Single-threaded.
 */
#ifndef BASE_YAML_ROWS_H
#define BASE_YAML_ROWS_H

#include <stdarg.h>
#include <stddef.h>
#include <yaml.h>

#include "base/diag.h"
#include "base/param.h"

/* Layouts the walker adds to base/param.h's, for rows it alone reads:
 * - A SIM_PT_LIST row whose sub holds one row with the empty key ""
 *   (then SIM_PARAM_END_LIST(type)) is a list of scalars: each element is
 *   one value of that row, stored at the element's offset 0 (a char *, a
 *   uint64_t, ...); an element that does not parse is reported and left
 *   out.
 * - A SIM_PT_MAP row with sub is a map of named sections: each key names
 *   an element (a struct described by sub, END_LIST-terminated like a
 *   list's), whose first member is a char * that receives the key
 *   (xstrdup'd, freed by the caller: sim_param_list_clear() frees only a
 *   map's array).
 * - A SIM_PT_MAP row without sub, or flagged SIM_PF_SCALARS, is a map of
 *   scalars, stored through
 *   struct sim_yaml_ops' map_fill hook. */

/* A key that was given: its full path ("pools[1].name", "policy.params.x")
 * and where its key and its value start (1-based). */
struct sim_yaml_seen {
    char *path; /* owned by the walker */
    int kline, kcol;
    int vline, vcol;
};

struct sim_yaml;

/* What a caller adds to the walk; any member may be NULL (0). */
struct sim_yaml_ops {
    /* Called for every given key that has a row, after the duplicate check
     * and after the key was recorded as seen, before the walker fills the
     * field. Returns 1 when the hook took the value itself (it may report
     * errors with sim_yaml_error() and walk the value with
     * sim_yaml_walk_section()), 0 to let the walker fill the field from
     * the row. key and val are nodes of y's document (borrowed), base the
     * struct the row's table describes, path the key's full path. */
    int (*take)(struct sim_yaml *y, const struct sim_param *p, yaml_node_t *key,
                yaml_node_t *val, void *base, const char *path);
    /* Fills elem, map_size zeroed bytes just appended to a map of scalars,
     * from one pair: key and value are the scalars' text and at the pair's
     * path and positions (all borrowed; copy what is kept). Needed by any
     * table with a map of scalars. */
    void (*map_fill)(void *elem, const char *key, const char *value,
                     const struct sim_yaml_seen *at);
    size_t map_size;
};

/* A walker. Caller-allocated: callers embed it in their loader context.
 * Fields are read by the caller's checks; only the walker writes them. */
struct sim_yaml {
    const char *file;               /* borrowed: the name in messages */
    struct sim_diag *d;             /* borrowed */
    const struct sim_yaml_ops *ops; /* borrowed; NULL for none */
    void *ctx;                      /* the caller's, for its hooks */
    yaml_document_t doc;            /* valid when loaded */
    int loaded;
    int errors;              /* errors this walker reported */
    int root_line, root_col; /* the root mapping (1, 1 before a walk) */
    /* Every given key, in document order. Bounded by the rows times the
     * list and map caps: unknown and duplicate keys are not recorded. */
    struct sim_yaml_seen *seen;
    int nseen, capseen;
};

/* Initialises y for the file named file (borrowed, used in messages),
 * reporting to d, with the hooks ops (borrowed, may be NULL); y->ctx is
 * NULL until the caller sets it. */
void sim_yaml_init(struct sim_yaml *y, const char *file, struct sim_diag *d,
                   const struct sim_yaml_ops *ops);

/* Frees y's document and seen list; y may be initialised again. */
void sim_yaml_fini(struct sim_yaml *y);

/* Reads the file at path. Returns its text, NUL-terminated with the length
 * in *len (the caller frees it), or NULL after adding "cannot open: WHY",
 * "cannot read: WHY" or "larger than MAX bytes" (more than max_bytes) to d
 * under the file's name. */
char *sim_yaml_read_file(const char *path, size_t max_bytes, size_t *len,
                         struct sim_diag *d);

/* Parses text (len bytes, need not be NUL-terminated) as one YAML document
 * into y. Returns 0; SIM_EIO when len exceeds max_bytes ("larger than MAX
 * bytes", line 0); SIM_EPARSE for a syntax error (one diagnostic at
 * libyaml's position, the byte offset's for a UTF-8 error). A second
 * document is a semantic error ("expected one YAML document, got a
 * second"): counted in y->errors, the first is kept and 0 returned. */
int sim_yaml_parse(struct sim_yaml *y, const char *text, size_t len,
                   size_t max_bytes);

/* Stores the default of every row of rows in base (sim_param_default(),
 * recursively). A default that does not parse is a bug in the table:
 * sim_fatal() naming what ("scenario", "calibration") and the key. */
void sim_yaml_defaults(const struct sim_param *rows, void *base,
                       const char *what);

/* The document's root when it is a mapping, with y->root_line/col set;
 * otherwise NULL after reporting "expected WHAT, got an empty document"
 * (at 1:1) or "expected WHAT, got a sequence" (at the root). what names
 * the mapping expected, such as "a mapping of scenario keys". */
yaml_node_t *sim_yaml_root_mapping(struct sim_yaml *y, const char *what);

/* Walks the document's root mapping (see sim_yaml_root_mapping()) over
 * rows into base, which should hold the rows' defaults. Returns 0 when the
 * root was walked (errors may have been reported: see y->errors), or
 * SIM_EINVAL when it is not a mapping. */
int sim_yaml_walk(struct sim_yaml *y, const struct sim_param *rows, void *base,
                  const char *what);

/* Fills the struct at base from the mapping node by rows; the hooks' way
 * to walk a value with other rows. path is the mapping's key path ("" at
 * the root); (line, col) is where its key is, for "missing key" messages.
 * A null node is an empty mapping; any other non-mapping is an error. */
void sim_yaml_walk_section(struct sim_yaml *y, const struct sim_param *rows,
                           yaml_node_t *node, void *base, const char *path,
                           int line, int col);

/* The given key with this full path, or NULL. Borrowed from y, valid until
 * the next walk or sim_yaml_fini(). O(keys given). */
const struct sim_yaml_seen *sim_yaml_seen(const struct sim_yaml *y,
                                          const char *path);

/* As sim_yaml_seen() with the path given as a printf format. */
const struct sim_yaml_seen *sim_yaml_seenf(const struct sim_yaml *y,
                                           const char *fmt, ...)
    SIM_PRINTF(2, 3);

/* ---- helpers of the callers' cross-field checks ----
 * Each section's owner checks the rules that span its keys after the walk
 * (models/workload/config.c, models/cluster/config.c, ...); these read the
 * seen list and report through sim_yaml_error(), with the messages every
 * owner shares. path is a section's full path ("server", "pools[1]"). */

/* Where the key of the section at path is, or the root mapping when the
 * section was not given: the place of a "missing key" message. */
void sim_yaml_section_pos(const struct sim_yaml *y, const char *path, int *line,
                          int *col);

/* Reports "PATH.KEY: not used by WHAT" at the key when path.key was
 * given. */
void sim_yaml_not_used(struct sim_yaml *y, const char *path, const char *key,
                       const char *what);

/* Exactly one of path.a and path.b: when both are given, "PATH.X: give
 * exactly one of 'A' or 'B'" at the later one; when neither is,
 * "PATH: missing key 'A' or 'B'" at the section. */
void sim_yaml_exactly_one(struct sim_yaml *y, const char *path, const char *a,
                          const char *b);

/* Checks that the section at path holds exactly the keys its kind uses.
 * keys is a NULL-terminated list of the section's optional keys; used is
 * a bit mask over it (bit i for keys[i]) of the keys the kind needs,
 * reported as "PATH: missing key 'K' (required by WHAT)" at the section;
 * optional a mask of those it may have; any other given key is "not used
 * by WHAT" (sim_yaml_not_used()). what names the kind ("dist gamma"). */
void sim_yaml_check_keys(struct sim_yaml *y, const char *path,
                         const char *const *keys, unsigned used,
                         unsigned optional, const char *what);

/* The name of value among the choices of the row key of rows, or "?":
 * how the checks' messages name a kind. Borrowed from the rows. */
const char *sim_yaml_choice_name(const struct sim_param *rows, const char *key,
                                 int value);

/* Adds an error at (line, col) of y's file and counts it in y->errors. */
void sim_yaml_error(struct sim_yaml *y, int line, int col, const char *fmt, ...)
    SIM_PRINTF(4, 5);

/* As sim_yaml_error() with a va_list. */
void sim_yaml_verror(struct sim_yaml *y, int line, int col, const char *fmt,
                     va_list ap) SIM_PRINTF(4, 0);

/* Is n a plain scalar that YAML reads as null ("", ~, null, Null, NULL)? */
int sim_yaml_is_null(const yaml_node_t *n);

/* "a mapping", "a sequence" or "a scalar", for messages. */
const char *sim_yaml_node_kind(const yaml_node_t *n);

/* 1-based line and column of the start of n. */
int sim_yaml_line(const yaml_node_t *n);
int sim_yaml_col(const yaml_node_t *n);

#endif /* BASE_YAML_ROWS_H */
