/* Packing results. The layout is the field lists of
 * models/cluster/results-fields.h, walked in order: a scalar as one
 * 8-byte word, a string as its length and bytes, a latency or the states
 * as their values, an array as its length and its elements (cells: whether
 * present, then nseries x npools values). A field added to a list is sent
 * without code here, and pack and unpack cannot disagree. Counts are
 * checked against the bytes left before anything is allocated, so bad
 * input cannot make unpack allocate more than a few times its length. */
#include "sweep/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "sweep/sweep-int.h"

/* Raised whenever the layout changes, so that ranks of different builds
 * refuse each other's bytes. */
#define MAGIC "dsec-res-4"

static void put_record(struct swp__buf *b, const struct cl_rfield *fields,
                       int n, const void *rec);

static void put_value(struct swp__buf *b, const struct cl_rfield *f,
                      const void *rec)
{
    const void *p = cl_rfield_cptr(rec, f);

    switch (f->type) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        swp__put_u64(b, *(const uint64_t *)p);
        break;
    case CL_RT_I64:
    case CL_RT_NS:
        swp__put_i64(b, *(const int64_t *)p);
        break;
    case CL_RT_INT:
    case CL_RT_BOOL:
    case CL_RT_POOL:
    case CL_RT_RSTATE:
        swp__put_i64(b, *(const int *)p);
        break;
    case CL_RT_F64:
        swp__put_f64(b, *(const double *)p);
        break;
    case CL_RT_STR:
        swp__put_str(b, *(char *const *)p);
        break;
    case CL_RT_LATENCY:
        put_record(b, cl_latency_fields, CL_LATENCY_NFIELDS, p);
        break;
    case CL_RT_STATES:
        for (int s = 0; s < CL_GS_COUNT; s++)
            swp__put_f64(b, ((const double *)p)[s]);
        break;
    default: /* arrays: put_array() */
        break;
    }
}

static void put_record(struct swp__buf *b, const struct cl_rfield *fields,
                       int n, const void *rec)
{
    for (int i = 0; i < n; i++)
        put_value(b, &fields[i], rec);
}

static void put_array(struct swp__buf *b, const struct cl_rfield *f,
                      const struct cl_results *r)
{
    const struct cl_relem *e = cl_rfield_elem(f);
    const char *a = cl_rfield_array(f, r);
    size_t n = cl_rfield_count(f, r);

    if (f->type == CL_RT_CELLS) {
        swp__put_u64(b, a != NULL && n > 0);
        for (size_t k = 0; a != NULL && k < n; k++)
            swp__put_f64(b, ((const double *)(const void *)a)[k]);
        return;
    }
    swp__put_u64(b, n);
    for (size_t k = 0; k < n; k++) {
        if (f->type == CL_RT_NOTES)
            swp__put_str(b, ((char *const *)(const void *)a)[k]);
        else
            put_record(b, e->fields, e->nfields, a + k * e->size);
    }
}

unsigned char *swp_results_pack(const struct cl_results *r, size_t *len)
{
    struct swp__buf b = {0};

    swp__buf_adds(&b, MAGIC);
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        if (cl_rfield_elem(f) != NULL)
            put_array(&b, f, r);
        else
            put_value(&b, f, r);
    }
    *len = b.len;
    return (unsigned char *)swp__buf_take(&b);
}

/* The fewest bytes one record of fields takes. */
static size_t record_min_bytes(const struct cl_rfield *fields, int n)
{
    size_t bytes = 0;

    for (int i = 0; i < n; i++)
        bytes += 8 * (size_t)cl_rfield_nsub(&fields[i]);
    return bytes;
}

static void get_record(struct swp__rd *r, const struct cl_rfield *fields, int n,
                       void *rec);

static void get_value(struct swp__rd *r, const struct cl_rfield *f, void *rec)
{
    void *p = cl_rfield_ptr(rec, f);

    switch (f->type) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        *(uint64_t *)p = swp__get_u64(r);
        break;
    case CL_RT_I64:
    case CL_RT_NS:
        *(int64_t *)p = swp__get_i64(r);
        break;
    case CL_RT_INT:
    case CL_RT_BOOL:
    case CL_RT_POOL:
    case CL_RT_RSTATE:
        *(int *)p = swp__get_int(r);
        break;
    case CL_RT_F64:
        *(double *)p = swp__get_f64(r);
        break;
    case CL_RT_STR:
        *(char **)p = swp__get_str(r);
        break;
    case CL_RT_LATENCY:
        get_record(r, cl_latency_fields, CL_LATENCY_NFIELDS, p);
        break;
    case CL_RT_STATES: {
        double *hours = p;
        for (int s = 0; s < CL_GS_COUNT; s++)
            hours[s] = swp__get_f64(r);
        break;
    }
    default: /* arrays: get_array() */
        break;
    }
}

static void get_record(struct swp__rd *r, const struct cl_rfield *fields, int n,
                       void *rec)
{
    for (int i = 0; i < n; i++)
        get_value(r, &fields[i], rec);
}

/* Reads array field f into x. The array is stored in x before its
 * elements are read, so that cl_results_fini() frees a partial one. */
static void get_array(struct swp__rd *r, const struct cl_rfield *f,
                      struct cl_results *x)
{
    const struct cl_relem *e = cl_rfield_elem(f);
    size_t n, max = INT32_MAX, min = 8;
    char *a;

    if (f->type == CL_RT_CELLS) {
        double *cells;
        /* The series and the pools come first in the list. */
        n = cl_rfield_count(f, x);
        if (swp__get_u64(r) == 0 || r->bad)
            return;
        if (n == 0 || n > r->left / 8) {
            r->bad = 1;
            return;
        }
        cells = xcalloc(n, sizeof(*cells));
        cl_rfield_set_array(f, x, cells, n);
        for (size_t k = 0; k < n; k++)
            cells[k] = swp__get_f64(r);
        return;
    }
    if (f->type == CL_RT_SERIES)
        max = SIZE_MAX;
    else if (f->type == CL_RT_REPLICAS)
        max = CL_REPLICA_SERIES_MAX;
    else if (f->type == CL_RT_STAGES)
        max = CL_STAGES_MAX;
    else if (f->type == CL_RT_REQUESTS)
        max = CL_REQUESTS_MAX;
    if (e->fields != NULL)
        min = record_min_bytes(e->fields, e->nfields);
    n = swp__get_count(r, min, max);
    a = n > 0 ? xcalloc(n, e->size) : NULL;
    cl_rfield_set_array(f, x, a, n);
    for (size_t k = 0; k < n && !r->bad; k++) {
        if (f->type == CL_RT_NOTES) {
            char *s = swp__get_str(r);
            ((char **)(void *)a)[k] = s;
            if (s == NULL)
                r->bad = 1;
        } else {
            get_record(r, e->fields, e->nfields, a + k * e->size);
        }
    }
}

int swp_results_unpack(const unsigned char *p, size_t len,
                       struct cl_results *out)
{
    struct swp__rd r = {p, len, 0};

    memset(out, 0, sizeof(*out));
    if (len < strlen(MAGIC) || memcmp(p, MAGIC, strlen(MAGIC)) != 0)
        return SIM_EPARSE;
    r.p += strlen(MAGIC);
    r.left -= strlen(MAGIC);
    for (int i = 0; i < CL_RESULTS_NFIELDS && !r.bad; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        if (cl_rfield_elem(f) != NULL)
            get_array(&r, f, out);
        else
            get_value(&r, f, out);
    }
    if (r.bad || r.left != 0) {
        cl_results_fini(out);
        return SIM_EPARSE;
    }
    return 0;
}
