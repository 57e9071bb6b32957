/*
 * dsec/param.h: parameter rows, part of dsec's public interface (dsec.h,
 * docs/library.md). A policy plug-in declares its settable parameters with
 * these rows: key, type, unit a plain number is read in, accepted range,
 * default as YAML text, help line and the offset of the field each fills
 * in the plug-in's parameter block. Rows are plain data: the plug-in links
 * nothing of dsec's to declare them. Tables end with a row whose key is
 * NULL. The functions that read rows stay inside dsec.
 */
#ifndef DSEC_PARAM_H
#define DSEC_PARAM_H

#include <stddef.h>
#include <stdint.h>

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

#endif /* DSEC_PARAM_H */
