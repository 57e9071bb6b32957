/* The growable buffer and the byte encoding of sweep-int.h. Doubling
 * growth: appends cost O(1) amortised. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep-int.h"

static void reserve(struct swp__buf *b, size_t more)
{
    size_t need;

    if (more > SWP__BUF_MAX || b->len > SWP__BUF_MAX - more - 1)
        sim_fatal("sweep buffer larger than %zu bytes", SWP__BUF_MAX);
    need = b->len + more + 1;
    if (need <= b->cap)
        return;
    if (b->cap == 0)
        b->cap = 256;
    while (b->cap < need)
        b->cap *= 2;
    b->p = xrealloc(b->p, b->cap, 1);
}

void swp__buf_add(struct swp__buf *b, const void *p, size_t len)
{
    reserve(b, len);
    if (len > 0)
        memcpy(b->p + b->len, p, len);
    b->len += len;
    b->p[b->len] = '\0';
}

void swp__buf_adds(struct swp__buf *b, const char *s)
{
    swp__buf_add(b, s, strlen(s));
}

void swp__buf_addf(struct swp__buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        sim_fatal("sweep buffer: bad format");
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *swp__buf_take(struct swp__buf *b)
{
    char *p = b->p ? b->p : xstrdup("");

    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

void swp__buf_fini(struct swp__buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

#define NO_STRING UINT64_MAX

void swp__put_u64(struct swp__buf *b, uint64_t v)
{
    unsigned char x[8];

    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    swp__buf_add(b, x, 8);
}

void swp__put_i64(struct swp__buf *b, int64_t v)
{
    swp__put_u64(b, (uint64_t)v);
}

void swp__put_f64(struct swp__buf *b, double v)
{
    uint64_t u;

    memcpy(&u, &v, sizeof(u));
    swp__put_u64(b, u);
}

void swp__put_str(struct swp__buf *b, const char *s)
{
    if (s == NULL) {
        swp__put_u64(b, NO_STRING);
        return;
    }
    swp__put_u64(b, strlen(s));
    swp__buf_adds(b, s);
}

uint64_t swp__get_u64(struct swp__rd *r)
{
    uint64_t v = 0;

    if (r->bad || r->left < 8) {
        r->bad = 1;
        r->left = 0;
        return 0;
    }
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    r->left -= 8;
    return v;
}

int64_t swp__get_i64(struct swp__rd *r)
{
    return (int64_t)swp__get_u64(r);
}

int swp__get_int(struct swp__rd *r)
{
    int64_t v = swp__get_i64(r);

    if (v < INT32_MIN || v > INT32_MAX) {
        r->bad = 1;
        return 0;
    }
    return (int)v;
}

double swp__get_f64(struct swp__rd *r)
{
    uint64_t u = swp__get_u64(r);
    double v;

    memcpy(&v, &u, sizeof(v));
    return v;
}

char *swp__get_str(struct swp__rd *r)
{
    uint64_t n = swp__get_u64(r);
    char *s;

    if (n == NO_STRING || r->bad)
        return NULL;
    if (n > r->left) {
        r->bad = 1;
        return NULL;
    }
    s = xstrndup((const char *)r->p, (size_t)n);
    r->p += n;
    r->left -= n;
    return s;
}

size_t swp__get_count(struct swp__rd *r, size_t min_bytes, size_t max)
{
    uint64_t n = swp__get_u64(r);

    if (r->bad || n > max || n > r->left / min_bytes) {
        r->bad = 1;
        return 0;
    }
    return (size_t)n;
}
