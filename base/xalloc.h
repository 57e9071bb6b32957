/*
 * Allocation wrappers that never return NULL: on failure they print a message
 * to stderr and exit with status 3 (internal error), as tmux's do, so callers
 * never check their results. Also sim_fatal() for states the program cannot
 * continue from, and the SIM_ALWAYS/SIM_NEVER guards (SQLite's ALWAYS/NEVER):
 * they assert in debug builds and are plain tests in release builds.
 */
#ifndef BASE_XALLOC_H
#define BASE_XALLOC_H

#include <assert.h>
#include <stddef.h>

#define SIM_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* malloc(size); size 0 allocates one byte. Caller frees with free(). */
void *xmalloc(size_t size);

/* calloc(n, size) with an overflow check. Caller frees with free(). */
void *xcalloc(size_t n, size_t size);

/* realloc(p, n * size) with an overflow check. On failure exits; p is then
 * not freed (the process ends). Caller frees the result with free(). */
void *xrealloc(void *p, size_t n, size_t size);

/* strdup(s). Caller frees with free(). */
char *xstrdup(const char *s);

/* strndup(s, n). Caller frees with free(). */
char *xstrndup(const char *s, size_t n);

/* asprintf into a new string. Caller frees with free(). */
char *xasprintf(const char *fmt, ...) SIM_PRINTF(1, 2);

/* Prints "dsec: internal error: MESSAGE" and exits with status 3. */
_Noreturn void sim_fatal(const char *fmt, ...) SIM_PRINTF(1, 2);

#ifdef NDEBUG
#define SIM_ALWAYS(x) (x)
#define SIM_NEVER(x) (x)
#else
#define SIM_ALWAYS(x) ((x) ? 1 : (assert(0 && #x), 0))
#define SIM_NEVER(x) ((x) ? (assert(0 && #x), 1) : 0)
#endif

#endif /* BASE_XALLOC_H */
