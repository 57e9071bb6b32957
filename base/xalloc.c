/* Allocation wrappers: exit on failure so that callers need not check. */
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void oom(size_t size)
{
    fprintf(stderr,
            "dsec: internal error: out of memory allocating %zu bytes\n", size);
    exit(3);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        oom(size);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p;
    if (n == 0 || size == 0)
        n = size = 1;
    p = calloc(n, size);
    if (p == NULL)
        oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
    void *q;
    if (size != 0 && n > SIZE_MAX / size)
        oom(SIZE_MAX);
    q = realloc(p, n * size != 0 ? n * size : 1);
    if (q == NULL)
        oom(n * size);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap, aq;
    int n;
    char *p;

    va_start(ap, fmt);
    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        sim_fatal("bad format string '%s'", fmt);
    p = xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return p;
}

void sim_fatal(const char *fmt, ...)
{
    va_list ap;
    fputs("dsec: internal error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(3);
}
