/* Parameter rows: unit suffixes, value parsing, range checks and defaults.
 * Numbers are scanned by hand (strict decimal form) before strtod, so that
 * "inf", "nan" and hex floats, which strtod would take, are rejected. */
#include "base/param.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

/* A suffix and the factor that converts one of it to the plain unit. */
struct suffix {
    const char *name;
    double factor;
};

static const struct suffix time_suffixes[] = {
    {"ns", 1e-9},   {"us", 1e-6},  {"\xc2\xb5s", 1e-6}, {"ms", 1e-3},
    {"s", 1.0},     {"min", 60.0}, {"m", 60.0},         {"h", 3600.0},
    {"d", 86400.0}, {NULL, 0},
};

static const struct suffix byte_suffixes[] = {
    {"B", 1.0},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {NULL, 0},
};

/* Bits per second are divided by 8: 400Gbps is 5e10 bytes per second. */
static const struct suffix bandwidth_suffixes[] = {
    {"B/s", 1.0},
    {"kB/s", 1e3},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"KiB/s", 1024.0},
    {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0},
    {"bps", 1.0 / 8},
    {"b/s", 1.0 / 8},
    {"kbps", 1e3 / 8},
    {"Kbps", 1e3 / 8},
    {"kb/s", 1e3 / 8},
    {"Mbps", 1e6 / 8},
    {"Mb/s", 1e6 / 8},
    {"Gbps", 1e9 / 8},
    {"Gb/s", 1e9 / 8},
    {"Tbps", 1e12 / 8},
    {"Tb/s", 1e12 / 8},
    {NULL, 0},
};

static const struct suffix price_suffixes[] = {
    {"/h", 1.0},
    {"/hr", 1.0},
    {"/hour", 1.0},
    {NULL, 0},
};

static const struct suffix rate_suffixes[] = {
    {"/s", 1.0},
    {"/min", 1.0 / 60},
    {"/h", 1.0 / 3600},
    {NULL, 0},
};

static const struct suffix fraction_suffixes[] = {
    {"%", 0.01},
    {NULL, 0},
};

static const struct suffix no_suffixes[] = {
    {NULL, 0},
};

static const struct suffix *unit_suffixes(enum sim_unit unit)
{
    switch (unit) {
    case SIM_U_SECONDS:
    case SIM_U_MILLISECONDS:
        return time_suffixes;
    case SIM_U_BYTES:
        return byte_suffixes;
    case SIM_U_BYTES_PER_S:
        return bandwidth_suffixes;
    case SIM_U_USD_PER_HOUR:
        return price_suffixes;
    case SIM_U_PER_S:
        return rate_suffixes;
    case SIM_U_FRACTION:
        return fraction_suffixes;
    case SIM_U_NONE:
    case SIM_U_TOKENS:
        break;
    }
    return no_suffixes;
}

const char *sim_unit_describe(enum sim_unit unit)
{
    switch (unit) {
    case SIM_U_NONE:
        return "";
    case SIM_U_SECONDS:
        return "a duration (e.g. 90s, 500ms, 2h; plain number = seconds)";
    case SIM_U_MILLISECONDS:
        return "a duration (e.g. 45ms, 1.5s; plain number = milliseconds)";
    case SIM_U_BYTES:
        return "a size (e.g. 80GiB, 512MB; plain number = bytes)";
    case SIM_U_BYTES_PER_S:
        return "a bandwidth (e.g. 900GB/s, 400Gbps; plain number = bytes/s)";
    case SIM_U_USD_PER_HOUR:
        return "a price (e.g. $2.10/h; plain number = USD per hour)";
    case SIM_U_PER_S:
        return "a rate (e.g. 10/s, 600/min; plain number = per second)";
    case SIM_U_TOKENS:
        return "a number of tokens";
    case SIM_U_FRACTION:
        return "a fraction (e.g. 0.9 or 90%)";
    }
    return "";
}

const char *sim_unit_plain_name(enum sim_unit unit)
{
    switch (unit) {
    case SIM_U_NONE:
        return "";
    case SIM_U_SECONDS:
        return "seconds";
    case SIM_U_MILLISECONDS:
        return "milliseconds";
    case SIM_U_BYTES:
        return "bytes";
    case SIM_U_BYTES_PER_S:
        return "bytes/s";
    case SIM_U_USD_PER_HOUR:
        return "USD/h";
    case SIM_U_PER_S:
        return "per second";
    case SIM_U_TOKENS:
        return "tokens";
    case SIM_U_FRACTION:
        return "fraction";
    }
    return "";
}

const char *sim_param_type_name(enum sim_param_type type)
{
    switch (type) {
    case SIM_PT_INT:
    case SIM_PT_INT64:
    case SIM_PT_UINT64:
        return "integer";
    case SIM_PT_DOUBLE:
        return "number";
    case SIM_PT_BOOL:
        return "bool";
    case SIM_PT_STRING:
        return "string";
    case SIM_PT_ENUM:
        return "enum";
    case SIM_PT_DURATION:
        return "duration";
    case SIM_PT_SECTION:
        return "section";
    case SIM_PT_LIST:
        return "list";
    case SIM_PT_MAP:
        return "mapping";
    }
    return "?";
}

/* Returns the length of the decimal number at s, or 0 if there is none. */
static size_t scan_number(const char *s)
{
    size_t i = 0, digits = 0;

    if (s[i] == '+' || s[i] == '-')
        i++;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

/* Finds suffix (after optional spaces) in table; returns its factor or a
 * negative number when it is not there. An empty suffix has factor 1. */
static double find_suffix(const struct suffix *table, const char *suffix)
{
    while (*suffix == ' ')
        suffix++;
    if (*suffix == '\0')
        return 1.0;
    for (; table->name != NULL; table++)
        if (strcmp(table->name, suffix) == 0)
            return table->factor;
    return -1.0;
}

/* Names the dimension of a suffix that belongs to another unit, so that
 * "80GiB" given for a duration says it is a size. NULL if unknown. */
static const char *suffix_dimension(const char *suffix)
{
    static const struct {
        const struct suffix *table;
        const char *what;
    } dims[] = {
        {time_suffixes, "a duration"},       {byte_suffixes, "a size"},
        {bandwidth_suffixes, "a bandwidth"}, {rate_suffixes, "a rate"},
        {fraction_suffixes, "a percentage"},
    };

    while (*suffix == ' ')
        suffix++;
    if (*suffix == '\0')
        return NULL;
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++)
        if (find_suffix(dims[i].table, suffix) > 0)
            return dims[i].what;
    return NULL;
}

static void expected(enum sim_unit unit, const char *what, const char *text,
                     const char *suffix, char *err, size_t errlen)
{
    const char *dim = suffix ? suffix_dimension(suffix) : NULL;

    if (unit != SIM_U_NONE && unit != SIM_U_TOKENS)
        what = sim_unit_describe(unit);
    if (dim != NULL)
        snprintf(err, errlen, "expected %s, got %s '%s'", what, dim, text);
    else
        snprintf(err, errlen, "expected %s, got '%s'", what, text);
}

/* Parses text as a number with a suffix of unit; on success stores the value
 * in the plain unit. what names the expected kind of number for messages. */
static int parse_quantity(enum sim_unit unit, const char *text,
                          const char *what, double *out, char *err,
                          size_t errlen)
{
    const char *s = text;
    char buf[64];
    size_t n;
    double v, factor;

    while (*s == ' ')
        s++;
    if (unit == SIM_U_USD_PER_HOUR && *s == '$')
        s++;
    n = scan_number(s);
    if (n == 0 || n >= sizeof(buf)) {
        expected(unit, what, text, NULL, err, errlen);
        return SIM_EINVAL;
    }
    factor = find_suffix(unit_suffixes(unit), s + n);
    if (factor < 0) {
        expected(unit, what, text, s + n, err, errlen);
        return SIM_EINVAL;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    v = strtod(buf, NULL);
    if (errno == ERANGE || !isfinite(v) || !isfinite(v * factor)) {
        /* strtod sets ERANGE for underflow (1e-320) as well as overflow. */
        snprintf(err, errlen, "'%s' is too %s", text,
                 fabs(v) < 1.0 && isfinite(v) ? "small" : "large");
        return SIM_ERANGE;
    }
    v *= factor;
    /* Time suffix factors are in seconds; a plain number is already in the
     * plain unit, which for SIM_U_MILLISECONDS is milliseconds. */
    if (unit == SIM_U_MILLISECONDS && strspn(s + n, " ") != strlen(s + n))
        v *= 1e3;
    *out = v;
    return 0;
}

int sim_unit_parse(enum sim_unit unit, const char *text, double *out, char *err,
                   size_t errlen)
{
    return parse_quantity(unit, text, "a number", out, err, errlen);
}

int sim_duration_parse(const char *text, enum sim_unit plain, int64_t *out_ns,
                       char *err, size_t errlen)
{
    double v, ns;
    int rc;

    if (plain != SIM_U_MILLISECONDS)
        plain = SIM_U_SECONDS;
    rc = parse_quantity(plain, text, "a duration", &v, err, errlen);
    if (rc != 0)
        return rc;
    ns = v * (plain == SIM_U_MILLISECONDS ? 1e6 : 1e9);
    if (!(fabs(ns) < 9.2e18)) {
        snprintf(err, errlen, "'%s' is too long a duration", text);
        return SIM_ERANGE;
    }
    *out_ns = llround(ns);
    return 0;
}

void sim_param_range_format(const struct sim_param *p, char *buf, size_t len)
{
    int has_min = isfinite(p->min), has_max = isfinite(p->max);
    char lo[32] = "-inf", hi[32] = "inf";

    if (!has_min && !has_max) {
        snprintf(buf, len, "%s", "");
        return;
    }
    if (has_min)
        snprintf(lo, sizeof(lo), "%g", p->min);
    if (has_max)
        snprintf(hi, sizeof(hi), "%g", p->max);
    snprintf(buf, len, "%c%s, %s%c%s",
             !has_min || (p->flags & SIM_PF_MIN_EXCL) ? '(' : '[', lo, hi,
             !has_max || (p->flags & SIM_PF_MAX_EXCL) ? ')' : ']',
             (p->flags & SIM_PF_INF) ? " or inf" : "");
}

/* The physical bounds every row of a dimension obeys, whatever its own
 * range says (docs/scenario.md "Ranges"): the row's range is narrowed to
 * them, so a table that forgets a bound still cannot feed the simulator a
 * value whose times or sizes overflow 64-bit nanoseconds or bytes. */
static struct sim_param physical_range(const struct sim_param *p, double v)
{
    struct sim_param q = *p;
    double lo = -INFINITY, hi = INFINITY;

    switch (p->unit) {
    case SIM_U_SECONDS:
    case SIM_U_MILLISECONDS:
        /* No duration beyond the simulation horizon. A mean time between
         * events of one part (a GPU's MTBF of 50000h) may exceed it: its
         * cap is SIM_PARAM_MEAN_TIME_MAX_S, and a drawn time past the
         * horizon is "never" (sim/time.h). The unit is the row's. */
        hi = (p->type == SIM_PT_DURATION ? SIM_PARAM_HORIZON_S
                                         : SIM_PARAM_MEAN_TIME_MAX_S) *
             (p->unit == SIM_U_MILLISECONDS ? 1e3 : 1);
        break;
    case SIM_U_BYTES:
        hi = SIM_PARAM_BYTES_MAX;
        break;
    case SIM_U_BYTES_PER_S:
        /* A positive bandwidth below this would make any real transfer
         * outlast the horizon. A row that takes 0 (for "none") still
         * does: only positive values are bounded below. */
        if (p->min >= 0 && v > p->min && v < SIM_PARAM_BANDWIDTH_MIN)
            lo = SIM_PARAM_BANDWIDTH_MIN;
        hi = SIM_PARAM_BANDWIDTH_MAX;
        break;
    case SIM_U_PER_S:
        /* A positive rate's mean gap must fit in the horizon. */
        if (p->min >= 0 && v > p->min && v < 1.0 / SIM_PARAM_HORIZON_S)
            lo = 1.0 / SIM_PARAM_HORIZON_S;
        break;
    default:
        break;
    }
    if (lo > q.min) {
        q.min = lo;
        q.flags &= ~SIM_PF_MIN_EXCL;
    }
    if (hi < q.max) {
        q.max = hi;
        q.flags &= ~SIM_PF_MAX_EXCL;
    }
    return q;
}

/* Checks v (in the row's plain unit) against the row's bounds, narrowed to
 * the physical bounds of its unit. */
static int check_range(const struct sim_param *row, double v, const char *text,
                       char *err, size_t errlen)
{
    struct sim_param q = physical_range(row, v);
    const struct sim_param *p = &q;
    int low = isfinite(p->min) &&
              ((p->flags & SIM_PF_MIN_EXCL) ? v <= p->min : v < p->min);
    int high = isfinite(p->max) &&
               ((p->flags & SIM_PF_MAX_EXCL) ? v >= p->max : v > p->max);
    char range[128];

    if (!low && !high)
        return 0;
    sim_param_range_format(p, range, sizeof(range));
    snprintf(err, errlen, "%s out of range %s", text, range);
    return SIM_ERANGE;
}

/* Parses an integer exactly: plain digits through strtoll/strtoull, anything
 * else (1e6, 8k tokens) through doubles, which are exact up to 2^53. */
static int parse_integer(const struct sim_param *p, const char *text,
                         double *dv, int64_t *iv, uint64_t *uv, char *err,
                         size_t errlen)
{
    const char *s = text;
    char *end;
    size_t i = 0;
    int rc;

    if (s[i] == '-' || s[i] == '+')
        i++;
    while (isdigit((unsigned char)s[i]))
        i++;
    if (i > 0 && s[i] == '\0' && isdigit((unsigned char)s[i - 1])) {
        errno = 0;
        if (p->type == SIM_PT_UINT64 && s[0] != '-') {
            *uv = strtoull(s, &end, 10);
            /* Results keep a seed in SQLite, whose integers are signed
             * 64-bit: a larger one would read back negative. */
            if (errno == 0 && *uv > (uint64_t)INT64_MAX) {
                snprintf(err, errlen,
                         "%s out of range [0, 9223372036854775807] (2^63 - 1, "
                         "the largest a results database stores)",
                         text);
                return SIM_ERANGE;
            }
            *iv = (int64_t)*uv;
        } else {
            *iv = strtoll(s, &end, 10);
            *uv = (uint64_t)*iv;
        }
        if (errno == ERANGE) {
            snprintf(err, errlen, "%s out of range for an integer", text);
            return SIM_ERANGE;
        }
        *dv = (double)*iv;
        return 0;
    }
    rc = parse_quantity(p->unit, text, "an integer", dv, err, errlen);
    if (rc != 0)
        return rc;
    if (*dv != floor(*dv) || fabs(*dv) > 9007199254740992.0) {
        snprintf(err, errlen, "expected an integer, got '%s'", text);
        return SIM_EINVAL;
    }
    *iv = (int64_t)*dv;
    *uv = (uint64_t)*iv;
    return 0;
}

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES",  "on",   "On",   "ON",  NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no",  "No",
                                     "NO",    "off",   "Off",   "OFF", NULL};

    for (int i = 0; yes[i] != NULL; i++)
        if (strcmp(text, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
    for (int i = 0; no[i] != NULL; i++)
        if (strcmp(text, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    return SIM_EINVAL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void sim_param_choices_format(const struct sim_param *p, char *buf, size_t len)
{
    const char *names[32] = {NULL};
    size_t n = 0, used = 0;

    buf[0] = '\0';
    if (p->choices == NULL)
        return;
    for (; n < 32 && p->choices[n].name != NULL; n++)
        names[n] = p->choices[n].name;
    qsort(names, n, sizeof(names[0]), cmp_str);
    for (size_t i = 0; i < n && used < len; i++) {
        int w =
            snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

const struct sim_param_choice *
sim_param_choice_by_value(const struct sim_param *p, int value)
{
    if (p->choices == NULL)
        return NULL;
    for (const struct sim_param_choice *c = p->choices; c->name != NULL; c++)
        if (c->value == value)
            return c;
    return NULL;
}

int sim_param_parse(const struct sim_param *p, const char *text, void *base,
                    char *err, size_t errlen)
{
    char *field = (char *)base + p->offset;
    double dv;
    int64_t iv;
    uint64_t uv;
    int rc, b;

    switch (p->type) {
    case SIM_PT_INT:
    case SIM_PT_INT64:
    case SIM_PT_UINT64:
        rc = parse_integer(p, text, &dv, &iv, &uv, err, errlen);
        if (rc != 0)
            return rc;
        if (text[0] == '-' && p->type == SIM_PT_UINT64)
            dv = -1.0; /* any negative value fails the range check */
        if ((rc = check_range(p, dv, text, err, errlen)) != 0)
            return rc;
        if (p->type == SIM_PT_INT) {
            if (iv > INT_MAX || iv < INT_MIN) {
                snprintf(err, errlen, "%s out of range for an integer", text);
                return SIM_ERANGE;
            }
            *(int *)(void *)field = (int)iv;
        } else if (p->type == SIM_PT_INT64) {
            *(int64_t *)(void *)field = iv;
        } else {
            *(uint64_t *)(void *)field = uv;
        }
        return 0;
    case SIM_PT_DOUBLE:
        if ((p->flags & SIM_PF_INF) && strcmp(text, "inf") == 0) {
            *(double *)(void *)field = INFINITY;
            return 0;
        }
        rc = parse_quantity(p->unit, text, "a number", &dv, err, errlen);
        if (rc == SIM_EINVAL && (p->flags & SIM_PF_INF) &&
            strncmp(err, "expected ", 9) == 0) {
            char rest[SIM_PARAM_ERRLEN];
            snprintf(rest, sizeof(rest), "%s", err + 9);
            snprintf(err, errlen, "expected inf or %s", rest);
        }
        if (rc != 0)
            return rc;
        if ((rc = check_range(p, dv, text, err, errlen)) != 0)
            return rc;
        *(double *)(void *)field = dv;
        return 0;
    case SIM_PT_DURATION:
        rc = sim_duration_parse(text, p->unit, &iv, err, errlen);
        if (rc != 0)
            return rc;
        dv = (double)iv / (p->unit == SIM_U_MILLISECONDS ? 1e6 : 1e9);
        if ((rc = check_range(p, dv, text, err, errlen)) != 0)
            return rc;
        *(int64_t *)(void *)field = iv;
        return 0;
    case SIM_PT_BOOL:
        if (parse_bool(text, &b) != 0) {
            snprintf(err, errlen, "expected true or false, got '%s'", text);
            return SIM_EINVAL;
        }
        *(int *)(void *)field = b;
        return 0;
    case SIM_PT_STRING:
        free(*(char **)(void *)field);
        *(char **)(void *)field = xstrdup(text);
        return 0;
    case SIM_PT_ENUM:
        for (const struct sim_param_choice *c = p->choices;
             c != NULL && c->name != NULL; c++)
            if (strcmp(c->name, text) == 0) {
                *(int *)(void *)field = c->value;
                return 0;
            }
        {
            char valid[200];
            sim_param_choices_format(p, valid, sizeof(valid));
            snprintf(err, errlen, "unknown %s '%s'; valid: %s", p->key, text,
                     valid);
        }
        return SIM_EINVAL;
    case SIM_PT_LIST:
        snprintf(err, errlen, "expected a sequence");
        return SIM_EINVAL;
    case SIM_PT_SECTION:
    case SIM_PT_MAP:
        break;
    }
    snprintf(err, errlen, "expected a mapping");
    return SIM_EINVAL;
}

static int *list_count(const struct sim_param *p, void *base)
{
    return (int *)(void *)((char *)base + p->offset + sizeof(void *));
}

static void **list_items(const struct sim_param *p, void *base)
{
    return (void **)(void *)((char *)base + p->offset);
}

int sim_param_list_count(const struct sim_param *p, const void *base)
{
    return *list_count(p, (void *)(uintptr_t)base);
}

size_t sim_param_list_elem_size(const struct sim_param *p)
{
    const struct sim_param *q = p->sub;

    while (q != NULL && q->key != NULL)
        q++;
    return q != NULL ? q->offset : 0;
}

void sim_param_fini(const struct sim_param *rows, void *base)
{
    for (const struct sim_param *q = rows; q != NULL && q->key != NULL; q++) {
        char *field = (char *)base + q->offset;
        if (q->type == SIM_PT_STRING) {
            free(*(char **)(void *)field);
            *(char **)(void *)field = NULL;
        } else if (q->type == SIM_PT_SECTION) {
            sim_param_fini(q->sub, field);
        } else if (q->type == SIM_PT_LIST || q->type == SIM_PT_MAP) {
            sim_param_list_clear(q, base);
        }
    }
}

void sim_param_list_clear(const struct sim_param *p, void *base)
{
    void **items = list_items(p, base);
    int *n = list_count(p, base);

    if (p->sub != NULL && *items != NULL) {
        size_t size = sim_param_list_elem_size(p);
        for (int i = 0; i < *n; i++)
            sim_param_fini(p->sub, (char *)*items + (size_t)i * size);
    }
    free(*items);
    *items = NULL;
    *n = 0;
}

void *sim_param_list_append(const struct sim_param *p, void *base,
                            size_t elem_size)
{
    void **items = list_items(p, base);
    int *n = list_count(p, base);
    char *elem;

    if (!(*n < p->max))
        return NULL;
    /* Room for a power of two: grow when the count reaches one. */
    if (*n == 0 || (*n & (*n - 1)) == 0)
        *items = xrealloc(*items, (size_t)(*n == 0 ? 1 : 2 * *n), elem_size);
    elem = (char *)*items + (size_t)*n * elem_size;
    memset(elem, 0, elem_size);
    (*n)++;
    return elem;
}

int sim_param_default(const struct sim_param *p, void *base, char *err,
                      size_t errlen)
{
    char *field = (char *)base + p->offset;

    if (p->type == SIM_PT_LIST || p->type == SIM_PT_MAP) {
        sim_param_list_clear(p, base);
        return 0;
    }
    if (p->type == SIM_PT_SECTION)
        return sim_param_defaults(p->sub, field, err, errlen);
    if (p->def != NULL)
        return sim_param_parse(p, p->def, base, err, errlen);
    switch (p->type) {
    case SIM_PT_INT:
    case SIM_PT_ENUM:
        *(int *)(void *)field = -1;
        break;
    case SIM_PT_BOOL:
        *(int *)(void *)field = 0;
        break;
    case SIM_PT_INT64:
    case SIM_PT_DURATION:
        *(int64_t *)(void *)field = -1;
        break;
    case SIM_PT_UINT64:
        *(uint64_t *)(void *)field = 0;
        break;
    case SIM_PT_DOUBLE:
        *(double *)(void *)field = NAN;
        break;
    case SIM_PT_STRING:
        free(*(char **)(void *)field);
        *(char **)(void *)field = NULL;
        break;
    case SIM_PT_SECTION:
    case SIM_PT_LIST:
    case SIM_PT_MAP:
        break;
    }
    return 0;
}

int sim_param_defaults(const struct sim_param *rows, void *base, char *err,
                       size_t errlen)
{
    for (const struct sim_param *p = rows; p != NULL && p->key != NULL; p++) {
        char why[SIM_PARAM_ERRLEN];
        int rc = sim_param_default(p, base, why, sizeof(why));
        if (rc != 0) {
            snprintf(err, errlen, "%s: %s", p->key, why);
            return rc;
        }
    }
    return 0;
}

const struct sim_param *sim_param_find(const struct sim_param *rows,
                                       const char *key)
{
    for (; rows != NULL && rows->key != NULL; rows++)
        if (strcmp(rows->key, key) == 0)
            return rows;
    return NULL;
}

int sim_param_edit_distance(const char *a, const char *b, int cap)
{
    int prev[65], cur[65];
    size_t la = strlen(a), lb = strlen(b);

    if (la > 64 || lb > 64)
        return cap + 1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int best;
        cur[0] = (int)i;
        best = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] =
                sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (cur[j] < best)
                best = cur[j];
        }
        if (best > cap)
            return cap + 1;
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb] > cap ? cap + 1 : prev[lb];
}
