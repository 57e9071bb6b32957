/*
 * Parameter rows and unit parsing: the generic half of every parameter table
 * (the scenario schema, model parameters). A row names a key, its type, the
 * unit a plain number is read in, the accepted range, a default written as
 * YAML text, a help line and the offset of the field it fills in a section
 * struct. Tables are NULL-terminated arrays of rows (key == NULL ends them);
 * a SIM_PT_SECTION row points to the rows of a nested struct, and a
 * SIM_PT_LIST row to the rows of each element of an owned array. Nothing here
 * knows about YAML: callers hand in scalar text and get the value stored or a
 * message (lower case, no key path, no trailing period) saying what was
 * expected. Durations are stored as int64 nanoseconds; double fields are
 * stored in the plain-number unit of their row (seconds, bytes, bytes/s,
 * USD per hour, per second, tokens). Single-threaded; no global state.
 */
#ifndef BASE_PARAM_H
#define BASE_PARAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dsec/param.h"

/* Physical bounds that every row of a unit obeys on top of its own range
 * (docs/scenario.md "Ranges"). The horizon bounds every time (durations and
 * seconds, so a rate's mean gap too): 366 days, the longest a scenario
 * simulates, far below the 292 years int64 nanoseconds hold, so that sums
 * of a few such times cannot overflow either. Sizes stop at an exabyte
 * (1e18 bytes, below INT64_MAX bytes). Bandwidths lie between 1 MB/s and
 * 1 PB/s: slower than that, weights or KV of any real model take longer
 * than the horizon to move; faster, no link or memory built comes near. */
#define SIM_PARAM_HORIZON_DAYS 366
#define SIM_PARAM_HORIZON_S (SIM_PARAM_HORIZON_DAYS * 86400.0)
/* The cap on a time given as a number of seconds (a mean, not a duration):
 * 1e12 s, some 31,700 years, above any MTBF measured. */
#define SIM_PARAM_MEAN_TIME_MAX_S 1e12
#define SIM_PARAM_BYTES_MAX 1e18
#define SIM_PARAM_BANDWIDTH_MIN 1e6
#define SIM_PARAM_BANDWIDTH_MAX 1e15

/* Size of the message buffers the functions below fill. */
#define SIM_PARAM_ERRLEN 256

/* Parses text as a quantity of dimension unit and stores it in *out, in the
 * unit's plain-number unit (seconds for SIM_U_SECONDS, milliseconds for
 * SIM_U_MILLISECONDS, bytes, bytes/s, USD/h, 1/s, tokens, fraction). Accepts
 * a plain number or a number followed by a suffix of that dimension (see
 * docs/scenario.md). Returns 0, or SIM_EINVAL with err (errlen bytes) saying
 * what was expected; *out is unchanged on failure. */
int sim_unit_parse(enum sim_unit unit, const char *text, double *out, char *err,
                   size_t errlen);

/* Parses text as a duration and stores it in *out_ns (nanoseconds, rounded
 * to the nearest). A plain number is read in plain (SIM_U_SECONDS or
 * SIM_U_MILLISECONDS). Returns 0, or SIM_EINVAL (not a duration) or
 * SIM_ERANGE (beyond int64 nanoseconds) with err filled; *out_ns is unchanged
 * on failure. */
int sim_duration_parse(const char *text, enum sim_unit plain, int64_t *out_ns,
                       char *err, size_t errlen);

/* Parses text for row p (any type but SIM_PT_SECTION), checks its range or
 * choices and stores it at (char *)base + p->offset. A string replaces (and
 * frees) the previous string there. Returns 0, or SIM_EINVAL (wrong form or
 * unknown choice) or SIM_ERANGE (out of range) with err filled ("-1 out of
 * range (0, 1e+06]", "unknown process 'x'; valid: a, b"); the field is
 * unchanged on failure. */
int sim_param_parse(const struct sim_param *p, const char *text, void *base,
                    char *err, size_t errlen);

/* Stores the default of row p at base (parsing p->def), or the "unset" value
 * when p->def is NULL. For a section, applies the defaults of every row of
 * p->sub to the nested struct. For a list or map, frees what the field holds
 * (sim_param_list_clear()) and leaves it empty. Returns 0, or the code of
 * sim_param_parse() when a default in a table is invalid (a bug, which the
 * table test catches), with err filled. */
int sim_param_default(const struct sim_param *p, void *base, char *err,
                      size_t errlen);

/* Applies sim_param_default() to every row of rows (NULL-terminated) at
 * base, so that a zeroed struct holds the table's defaults. Returns 0, or
 * the first failing row's code with err filled ("key: why"; a bug in the
 * table). */
int sim_param_defaults(const struct sim_param *rows, void *base, char *err,
                       size_t errlen);

/* Frees what the fields of rows (NULL-terminated) own in the struct at
 * base: every SIM_PT_STRING (set to NULL), recursively through
 * SIM_PT_SECTION rows, and every SIM_PT_LIST and SIM_PT_MAP
 * (sim_param_list_clear()). Other fields keep their values. This is the
 * destructor of any struct a table fills: a new string row needs no new
 * free(). Fields that no row names are the caller's to free. */
void sim_param_fini(const struct sim_param *rows, void *base);

/* Frees the elements of list or map row p at base (with sim_param_fini()
 * over p->sub, so the strings their rows own, recursively) and the array,
 * and sets the pointer to NULL and the count to 0. A map row without sub
 * rows frees only the array: its elements' strings are then the caller's. */
void sim_param_list_clear(const struct sim_param *p, void *base);

/* Appends a zeroed element of elem_size bytes to list or map row p at base
 * and returns it (borrowed, valid until the next append or clear), or NULL
 * when the list already holds p->max elements (nothing changes then). The
 * array grows by doubling. */
void *sim_param_list_append(const struct sim_param *p, void *base,
                            size_t elem_size);

/* Size of one element of list row p (from the terminator of p->sub). */
size_t sim_param_list_elem_size(const struct sim_param *p);

/* Number of elements of list or map row p at base. */
int sim_param_list_count(const struct sim_param *p, const void *base);

/* Returns the row of rows whose key is key, or NULL. */
const struct sim_param *sim_param_find(const struct sim_param *rows,
                                       const char *key);

/* Returns the choice of enum row p whose value is value, or NULL. */
const struct sim_param_choice *
sim_param_choice_by_value(const struct sim_param *p, int value);

/* Writes the valid choice names of p, sorted, separated by ", ", into buf
 * (len bytes, truncated if needed). */
void sim_param_choices_format(const struct sim_param *p, char *buf, size_t len);

/* Writes p's range in interval notation, such as "(0, 1e+06]" or
 * "[1, inf)", followed by " or inf" for a SIM_PF_INF row, into buf (len
 * bytes). Writes "" when p has no bounds. */
void sim_param_range_format(const struct sim_param *p, char *buf, size_t len);

/* Static, lower-case names for help text: "integer", "duration", ... */
const char *sim_param_type_name(enum sim_param_type type);

/* Static description of what a value of unit looks like, such as
 * "a duration (e.g. 90s, 500ms, 2h)"; "" for SIM_U_NONE. */
const char *sim_unit_describe(enum sim_unit unit);

/* Static name of the plain-number unit of unit, such as "seconds" or
 * "milliseconds"; "" for SIM_U_NONE. */
const char *sim_unit_plain_name(enum sim_unit unit);

/* Returns the Levenshtein distance between a and b, capped at cap + 1 (the
 * work stops early once every path exceeds cap). Used for "did you mean". */
int sim_param_edit_distance(const char *a, const char *b, int cap);

#endif /* BASE_PARAM_H */
