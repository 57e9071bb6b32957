/*
 * Internals shared by the files of sweep/: a growable byte buffer, and
 * writers and readers of the portable encoding used between MPI ranks
 * (integers and the bit patterns of doubles as 8 little-endian bytes,
 * strings as a length and their bytes). The buffer owns its bytes, keeps
 * them NUL-terminated and is capped at SWP__BUF_MAX bytes (a sweep point's
 * scenario text or a packed result is far smaller); growing past the cap is
 * an internal error (sim_fatal). Single-threaded per buffer and reader.
 */
#ifndef SWP_SWEEP_INT_H
#define SWP_SWEEP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/xalloc.h"

/* Largest buffer, in bytes. */
#define SWP__BUF_MAX ((size_t)1 << 30)

struct swp__buf {
    char *p;    /* NUL-terminated; NULL until something is added */
    size_t len; /* bytes, not counting the NUL */
    size_t cap;
};

/* Appends len bytes of p. */
void swp__buf_add(struct swp__buf *b, const void *p, size_t len);

/* Appends a NUL-terminated string. */
void swp__buf_adds(struct swp__buf *b, const char *s);

/* Appends formatted text. */
void swp__buf_addf(struct swp__buf *b, const char *fmt, ...) SIM_PRINTF(2, 3);

/* Returns the bytes (never NULL: "" when empty) and leaves b empty; the
 * caller frees them with free(). */
char *swp__buf_take(struct swp__buf *b);

/* Frees the bytes; b is empty and reusable. */
void swp__buf_fini(struct swp__buf *b);

/* Appends v as 8 little-endian bytes; i64 as its two's complement, f64 as
 * its IEEE-754 bit pattern. */
void swp__put_u64(struct swp__buf *b, uint64_t v);
void swp__put_i64(struct swp__buf *b, int64_t v);
void swp__put_f64(struct swp__buf *b, double v);

/* Appends a string as its length and bytes; NULL as the length
 * UINT64_MAX. */
void swp__put_str(struct swp__buf *b, const char *s);

/* Reads what the writers above wrote. A read past the end, or a value that
 * does not fit, sets bad and returns 0 (NULL for strings); later reads
 * return 0 too, so a caller checks bad once at the end. */
struct swp__rd {
    const unsigned char *p;
    size_t left;
    int bad;
};

uint64_t swp__get_u64(struct swp__rd *r);
int64_t swp__get_i64(struct swp__rd *r);
double swp__get_f64(struct swp__rd *r);

/* An int written with swp__put_i64(); bad unless it fits in 32 bits. */
int swp__get_int(struct swp__rd *r);

/* A string the caller frees with free(); NULL for a NULL string. */
char *swp__get_str(struct swp__rd *r);

/* A count of elements of at least min_bytes each: bad when more than max
 * or more than the bytes left can hold, so a count read from bad input
 * never makes the caller allocate much more than the input's size. */
size_t swp__get_count(struct swp__rd *r, size_t min_bytes, size_t max);

#endif /* SWP_SWEEP_INT_H */
