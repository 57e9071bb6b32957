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

/* The C type of the field a row fills. */
enum sim_param_type {
    SIM_PT_INT,      /* int */
    SIM_PT_INT64,    /* int64_t */
    SIM_PT_UINT64,   /* uint64_t */
    SIM_PT_DOUBLE,   /* double */
    SIM_PT_BOOL,     /* int, 0 or 1 */
    SIM_PT_STRING,   /* char *, owned by the struct (xstrdup) */
    SIM_PT_ENUM,     /* int, the value of the matching choice */
    SIM_PT_DURATION, /* int64_t nanoseconds */
    SIM_PT_SECTION,  /* a nested struct described by sub */
    SIM_PT_LIST,     /* an owned array of structs described by sub */
    SIM_PT_MAP,      /* free-form scalar pairs; layout in sub (optional) */
};

/* The dimension of a value and the unit a plain number is read in. */
enum sim_unit {
    SIM_U_NONE,         /* a plain number */
    SIM_U_SECONDS,      /* 90s, 500ms, 2h; plain number = seconds */
    SIM_U_MILLISECONDS, /* as seconds, but a plain number = milliseconds */
    SIM_U_BYTES,        /* 80GiB, 512MB; plain number = bytes */
    SIM_U_BYTES_PER_S,  /* 900GB/s, 400Gbps (bits); plain = bytes per s */
    SIM_U_USD_PER_HOUR, /* $2.10/h, 2.10/h; plain = US dollars per hour */
    SIM_U_PER_S,        /* 10/s, 600/min; plain = events per second */
    SIM_U_TOKENS,       /* a plain number of tokens */
    SIM_U_FRACTION,     /* 0.9 or 90% */
};

/* Row flags. */
#define SIM_PF_REQUIRED 0x1u /* the key must be given */
#define SIM_PF_MIN_EXCL 0x2u /* the value must be > min (else >= min) */
#define SIM_PF_MAX_EXCL 0x4u /* the value must be < max (else <= max) */
/* A SIM_PT_MAP of free-form scalars whose sub rows only describe the
 * element's owned members (for sim_param_fini()); they are not document
 * keys, and base/yaml-rows.c stores the pairs through its map_fill hook. */
#define SIM_PF_SCALARS 0x8u
/* A SIM_PT_DOUBLE row that also takes the word "inf", stored as INFINITY
 * without a range check (vllm bench's request_rate inf: no gaps). */
#define SIM_PF_INF 0x10u
/* This bit and those above mean what the table's owner defines them to
 * (for example, which server kind uses a key); this module ignores them. */
#define SIM_PF_OWNER 0x100u

/* One name of an enum row and the value stored for it. */
struct sim_param_choice {
    const char *name;
    int value;
};

/* Lists and maps. The field of a SIM_PT_LIST or SIM_PT_MAP row at offset is
 * an owned element pointer (xmalloc'd, NULL when empty) and the int right
 * after it (offset + sizeof(void *)) is the element count; max is the most
 * elements accepted (growth is bounded). A list's sub rows fill each
 * element, and the terminating row of sub (key NULL) gives the size of one
 * element in its offset: end element tables with SIM_PARAM_END_LIST(type).
 * A map keeps free-form scalar pairs; the code that reads the table fills
 * its elements (the scenario loader stores struct cl_policy_param) and
 * passes their size to sim_param_list_append() as elem_size. A map row may
 * describe that element layout in sub, as a list does (its rows name the
 * fields the element owns, such as the key and value strings, and end with
 * SIM_PARAM_END_LIST(type)), so that sim_param_fini() can free the
 * elements; sub rows of a map are not keys of the document. These
 * conventions reuse the row's fields so that tables written with
 * positional initialisers stay valid. */
#define SIM_PARAM_END_LIST(type)                                               \
    {                                                                          \
        NULL, SIM_PT_LIST, SIM_U_NONE, 0, 0, 0, NULL, NULL, sizeof(type),      \
            NULL, NULL                                                         \
    }

/* The text of a numeric constant, for a row's default: SIM_PARAM_DEF(X)
 * with #define X 0.9 gives "0.9", so that a default a model also uses in
 * code is written once. X must expand to a plain literal (no parentheses,
 * no expression), since the row parses the text like user input. */
#define SIM_PARAM_DEF(x) SIM_PARAM_DEF_(x)
#define SIM_PARAM_DEF_(x) #x

/* Asserts at compile time that the count field of a list or map follows its
 * element pointer in type, as the rows above require. */
#define SIM_PARAM_COUNT_AFTER(type, ptr, count)                                \
    _Static_assert(offsetof(type, count) ==                                    \
                       offsetof(type, ptr) + sizeof(void *),                   \
                   #count " must follow " #ptr)

/* Default cap on the length of a list, in elements. */
#define SIM_PARAM_LIST_MAX 256

/* One key of a section. min and max bound the value in the row's plain unit
 * (-INFINITY/INFINITY for none); they apply to every numeric type. def is
 * the default as YAML text, parsed like user input; NULL means "unset", which
 * stores NAN (double), -1 (integers, durations), NULL (strings) or -1
 * (enums), an empty array (lists, maps). choices (enums only) ends with a
 * NULL name; sub (sections and lists) is the nested table, and offset is
 * then the offset of the nested struct or of the element pointer. */
struct sim_param {
    const char *key;
    enum sim_param_type type;
    enum sim_unit unit;
    double min;
    double max;
    unsigned flags; /* SIM_PF_* */
    const char *def;
    const char *help;
    size_t offset;
    const struct sim_param_choice *choices;
    const struct sim_param *sub;
};

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
