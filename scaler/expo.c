/* Prometheus text exposition parser; see expo.h. Hand-written because no
 * Debian C library parses the text format; the grammar is small (one
 * sample per line) and the parser is fuzz-friendly: no recursion, every
 * read bounded by len. */
#include "scaler/expo.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

void scl_expo_init(struct scl_expo *e)
{
    memset(e, 0, sizeof(*e));
}

static void sample_free(struct scl_sample *s)
{
    for (int j = 0; j < s->nlabels; j++) {
        free(s->labels[j].name);
        free(s->labels[j].value);
    }
    free(s->labels);
    free(s->name);
}

/* Removes the half-parsed sample of a bad line. */
static void drop_last(struct scl_expo *e)
{
    sample_free(&e->v[--e->n]);
}

void scl_expo_fini(struct scl_expo *e)
{
    for (int i = 0; i < e->n; i++)
        sample_free(&e->v[i]);
    free(e->v);
    memset(e, 0, sizeof(*e));
}

struct scl_sample *scl_expo_append(struct scl_expo *e, const char *name,
                                   double value)
{
    struct scl_sample *s;

    if (e->n >= SCL_EXPO_MAX_SAMPLES)
        return NULL;
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 64;
        e->v = xrealloc(e->v, (size_t)e->cap, sizeof(*e->v));
    }
    s = &e->v[e->n++];
    memset(s, 0, sizeof(*s));
    s->name = xstrdup(name);
    s->value = value;
    return s;
}

void scl_sample_add_label(struct scl_sample *s, const char *name,
                          const char *value)
{
    s->labels = xrealloc(s->labels, (size_t)s->nlabels + 1, sizeof(*s->labels));
    s->labels[s->nlabels].name = xstrdup(name);
    s->labels[s->nlabels].value = xstrdup(value);
    s->nlabels++;
}

const char *scl_sample_label(const struct scl_sample *s, const char *name)
{
    for (int i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return NULL;
}

static int name_start(int c)
{
    return isalpha(c) || c == '_' || c == ':';
}

static int name_char(int c)
{
    return isalnum(c) || c == '_' || c == ':';
}

/* Parses a float as the format writes it: Go's ParseFloat forms, with
 * NaN, +Inf, -Inf. */
static int parse_value(const char *s, size_t n, double *out)
{
    char buf[64];
    char *end;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (strcmp(buf, "NaN") == 0) {
        *out = NAN;
        return 0;
    }
    if (strcmp(buf, "+Inf") == 0 || strcmp(buf, "Inf") == 0) {
        *out = INFINITY;
        return 0;
    }
    if (strcmp(buf, "-Inf") == 0) {
        *out = -INFINITY;
        return 0;
    }
    *out = strtod(buf, &end);
    return *end == '\0' ? 0 : -1;
}

/* One sample line [p, end). Returns NULL or a static message. */
static const char *parse_line(const char *p, const char *end,
                              struct scl_expo *e)
{
    const char *n0 = p;
    char *name;
    struct scl_sample *s;
    const char *v0;
    double value;

    if (!name_start((unsigned char)*p))
        return "expected a metric name";
    while (p < end && name_char((unsigned char)*p))
        p++;
    name = xstrndup(n0, (size_t)(p - n0));
    s = scl_expo_append(e, name, 0);
    free(name);
    if (s == NULL)
        return "too many samples";
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && *p == '{') {
        p++;
        for (;;) {
            const char *l0;
            char *lname;
            char vbuf[4096];
            size_t vn = 0;

            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p < end && *p == '}') {
                p++;
                break;
            }
            if (p >= end || !name_start((unsigned char)*p))
                return "expected a label name";
            l0 = p;
            while (p < end && name_char((unsigned char)*p))
                p++;
            lname = xstrndup(l0, (size_t)(p - l0));
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p + 1 >= end || *p != '=' || p[1] != '"') {
                free(lname);
                return "expected =\" after a label name";
            }
            p += 2;
            while (p < end && *p != '"') {
                char c = *p++;
                if (c == '\\') {
                    if (p >= end)
                        break;
                    c = *p++;
                    if (c == 'n')
                        c = '\n';
                    else if (c != '\\' && c != '"') {
                        free(lname);
                        return "unknown escape in a label value";
                    }
                }
                if (vn + 1 >= sizeof(vbuf)) {
                    free(lname);
                    return "label value longer than 4095 bytes";
                }
                vbuf[vn++] = c;
            }
            if (p >= end) {
                free(lname);
                return "unterminated label value";
            }
            p++; /* the closing quote */
            vbuf[vn] = '\0';
            if (s->nlabels >= SCL_EXPO_MAX_LABELS) {
                free(lname);
                return "more than 64 labels";
            }
            scl_sample_add_label(s, lname, vbuf);
            free(lname);
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                break;
            }
            return "expected , or } after a label";
        }
    }
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    v0 = p;
    while (p < end && *p != ' ' && *p != '\t')
        p++;
    if (parse_value(v0, (size_t)(p - v0), &value) != 0)
        return "expected a number (or NaN, +Inf, -Inf) as the value";
    s->value = value;
    /* An optional integer timestamp in ms, then nothing. */
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end) {
        if (*p == '-')
            p++;
        if (p >= end || !isdigit((unsigned char)*p))
            return "expected a timestamp or the end of the line";
        while (p < end && isdigit((unsigned char)*p))
            p++;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end)
            return "unexpected text after the timestamp";
    }
    return NULL;
}

int scl_expo_parse(const char *text, size_t len, struct scl_expo *e, char *err,
                   size_t errlen)
{
    const char *p = text, *stop = text + len;
    int line = 0;

    while (p < stop) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        const char *end = eol ? eol : stop;

        line++;
        if (end > p && end[-1] == '\r')
            end--;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p != '#') {
            int before = e->n;
            const char *why = parse_line(p, end, e);
            if (why != NULL) {
                snprintf(err, errlen, "line %d: %s", line, why);
                while (e->n > before)
                    drop_last(e);
                return SIM_EPARSE;
            }
        }
        p = eol ? eol + 1 : stop;
    }
    return 0;
}
