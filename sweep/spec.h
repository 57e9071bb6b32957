/*
 * Sweep files (docs/sweep.md): a base scenario plus the overrides that turn
 * it into a list of points. swp_spec_load() reads the sweep file with
 * libyaml, expands its grid (explicit points x axes x replications), applies
 * the overrides common to all (`set:`) and then each point's own to the
 * libyaml document tree of the base scenario (replacing the node at a
 * dotted key path, creating missing mappings), emits the tree as YAML
 * text and loads and checks that text exactly as
 * `dsec run` loads a file (scn_scenario_open()). Diagnostics
 * about a point are moved back to where their node came from: the sweep
 * file (an axis key or value) or the base scenario. A point whose
 * configuration does not fit (SIM_EINFEASIBLE) is kept, marked infeasible,
 * so that a grid may reach past what the hardware holds. Each point has a
 * stable key, the canonical text of its overrides sorted by key path, which
 * stays the same when other values are added to an axis. The spec owns
 * everything it points to and is never changed after loading, so worker
 * threads may read it at the same time.
 */
#ifndef SWP_SPEC_H
#define SWP_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/param.h"

/* Most points a sweep may have, and most axes. */
#define SWP_MAX_POINTS 100000
#define SWP_MAX_AXES 32

/* One point: a full scenario and what distinguishes it. values[c] is the
 * canonical text of the value of spec column c, or NULL when this point
 * does not set that key path (explicit points may set different keys). */
struct swp_point {
    char *key;  /* "path=value, path=value" sorted by path; "" for none */
    size_t seq; /* 0-based position in the grid */
    char *text; /* the scenario as YAML, NUL-terminated */
    uint64_t seed;
    char **values;  /* [spec->ncolumns] */
    int infeasible; /* cl_scenario_check() said SIM_EINFEASIBLE */
    char *message;  /* why it is infeasible, a formatted diagnostic */
};

struct swp_spec {
    char *file; /* the sweep file as given */
    char *name; /* `name:`, else the file name without directory and .yaml */
    char *text; /* the sweep file as read */
    char *hash; /* 16 hex digits: FNV-1a 64 of the sweep and base texts */
    char *scenario_file; /* name every point is loaded under: the base file,
                            or the sweep file for an inline scenario */
    char *base_dir;      /* directory of scenario_file, for trace paths */
    char **columns;      /* override key paths in the order of the file:
                            explicit points' keys, axes, then "seed" */
    int ncolumns;
    struct swp_point *points;
    size_t npoints;
    size_t *by_key;  /* indexes of points sorted by key */
    int uncertainty; /* `uncertainty: N`: draws per point, 0 for none */
};

/* The sweep file's own rows, read-only (name, replications, seeds,
 * uncertainty and the keys that hold scenario paths: axes, base, points,
 * scenario, set), for tests and help that go through every key. */
extern const struct sim_param swp_spec_rows[];

/* Reads the sweep file at path, expands and checks every point. Returns a
 * spec that the caller frees with swp_spec_free(), or NULL after adding
 * diagnostics to d ("file:line:col: error: ..."; at most SIM_DIAG_MAX_ERRORS,
 * identical ones once): a YAML syntax error stops at once; the sweep file's
 * own keys are checked before any point is built; then every point is
 * loaded and its errors collected (a bad key path points at its axis in
 * the sweep file). Warnings and notes of the points are added once each,
 * also on success. */
struct swp_spec *swp_spec_load(const char *path, struct sim_diag *d);

/* As swp_spec_load(), from the len bytes of text (need not be
 * NUL-terminated) named file; a relative `base:` is read relative to the
 * directory of file. */
struct swp_spec *swp_spec_load_string(const char *file, const char *text,
                                      size_t len, struct sim_diag *d);

/* The text of the scenario file at path with the overrides sets[0..nsets)
 * ("key.path=value", the key paths and YAML values of a sweep's set:)
 * applied, as a sweep of one point applies its set: (the command line's
 * --set, docs/scenario.md). Returns the text (the caller frees it), or
 * NULL after adding diagnostics to d; one about an override is named by
 * it ("--set KEY=VALUE: ..."), one about the file keeps its position. */
char *swp_scenario_with_sets(const char *path, const char *const *sets,
                             int nsets, struct sim_diag *d);

/* As swp_scenario_with_sets(), for a scenario whose text (len bytes) the
 * caller holds; name labels it in messages, and label the overrides
 * ("--set" on the command line, "override" in the library). */
char *swp_text_with_sets(const char *name, const char *text, size_t len,
                         const char *const *sets, int nsets, const char *label,
                         struct sim_diag *d);

/* Returns the index of the point whose key is key, or -1. O(log n). */
long swp_spec_find(const struct swp_spec *s, const char *key);

/* Frees s and everything it owns. NULL is a no-op. */
void swp_spec_free(struct swp_spec *s);

#endif /* SWP_SPEC_H */
