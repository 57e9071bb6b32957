/*
 * Test helpers for the results record (tests/check_rpt_*.c,
 * check_sweep.c): a record with every field of every list of
 * models/cluster/results-fields.h set to a value of its own, filled by
 * walking the field descriptors, so that a field added to a list is
 * covered without editing the tests, and a field-by-field comparison of
 * two records. Every fifth double is NAN (NULL in the database, null in
 * JSON). Functions are static inline so that a test may use any subset.
 */
#ifndef RESULTS_FIXTURE_H
#define RESULTS_FIXTURE_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/results.h"
#include "base/xalloc.h"

/* Elements of each array of the filled record. */
#define RFIX_NCLASSES 2
#define RFIX_NGROUPS 2
#define RFIX_NPOOLS 3
#define RFIX_NNOTES 2
#define RFIX_NSERIES 4
#define RFIX_NREPLICAS 5
#define RFIX_NSTAGES 2
#define RFIX_NREQUESTS 3

/* Sets every field of rec (a record of fields) from the value number *k
 * on, counting up, so no two fields share a value; doubles are k + 0.25
 * (exact), every fifth NAN. */
static inline void rfix_fill_record(const struct cl_rfield *fields, int n,
                                    void *rec, int npools, unsigned *k)
{
    for (int i = 0; i < n; i++) {
        const struct cl_rfield *f = &fields[i];
        void *p = cl_rfield_ptr(rec, f);
        unsigned v = (*k)++;

        switch (f->type) {
        case CL_RT_U64:
        case CL_RT_SERIAL:
            *(uint64_t *)p = 1000003ULL * v;
            break;
        case CL_RT_I64:
        case CL_RT_NS:
            *(int64_t *)p = 1000003LL * v;
            break;
        case CL_RT_INT:
            *(int *)p = (int)v;
            break;
        case CL_RT_BOOL:
            *(int *)p = (int)(v & 1);
            break;
        case CL_RT_F64:
            *(double *)p = v % 5 == 0 ? NAN : v + 0.25;
            break;
        case CL_RT_STR:
            *(char **)p = xasprintf("s%u", v);
            break;
        case CL_RT_POOL:
            *(int *)p = (int)(v % (unsigned)npools);
            break;
        case CL_RT_RSTATE:
            *(int *)p = (int)(v % 5);
            break;
        case CL_RT_LATENCY:
            rfix_fill_record(cl_latency_fields, CL_LATENCY_NFIELDS, p, npools,
                             k);
            break;
        case CL_RT_STATES:
            for (int s = 0; s < CL_GS_COUNT; s++)
                ((double *)p)[s] = (*k)++ + 0.5;
            break;
        default: /* arrays: rfix_fill() */
            break;
        }
    }
}

/* Fills *r (zeroed first; free with cl_results_fini()) with every field
 * set, RFIX_N* elements per array. */
static inline void rfix_fill(struct cl_results *r)
{
    static const size_t counts[] = {
        [CL_RT_CLASSES] = RFIX_NCLASSES, [CL_RT_GROUPS] = RFIX_NGROUPS,
        [CL_RT_POOLS] = RFIX_NPOOLS,     [CL_RT_NOTES] = RFIX_NNOTES,
        [CL_RT_SERIES] = RFIX_NSERIES,   [CL_RT_REPLICAS] = RFIX_NREPLICAS,
        [CL_RT_STAGES] = RFIX_NSTAGES,   [CL_RT_REQUESTS] = RFIX_NREQUESTS};
    unsigned k = 1;

    memset(r, 0, sizeof(*r));
    rfix_fill_record(cl_results_fields, CL_RESULTS_NFIELDS, r, RFIX_NPOOLS, &k);
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const struct cl_relem *e = cl_rfield_elem(f);
        size_t n;
        char *a;

        if (e == NULL)
            continue;
        n = f->type == CL_RT_CELLS ? (size_t)RFIX_NSERIES * RFIX_NPOOLS
                                   : counts[f->type];
        a = xcalloc(n, e->size);
        for (size_t j = 0; j < n; j++) {
            if (f->type == CL_RT_NOTES)
                ((char **)(void *)a)[j] = xasprintf("note %u", k++);
            else if (f->type == CL_RT_CELLS)
                ((double *)(void *)a)[j] = k++ + 0.75;
            else
                rfix_fill_record(e->fields, e->nfields, a + j * e->size,
                                 RFIX_NPOOLS, &k);
        }
        cl_rfield_set_array(f, r, a, n);
    }
}

/* The number of summary metrics of run r: a row per value of every
 * number of CL_RESULTS_FIELDS with a db name (arrays name their table),
 * but for those r omits (CL_RESULTS_OMIT_ZERO). */
static inline int rfix_nmetrics(const struct cl_results *r)
{
    int n = 0;

    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        if (f->db != NULL && f->type != CL_RT_STR && !cl_rfield_elem(f) &&
            !cl_rfield_omitted(f, r))
            n += cl_rfield_nsub(f);
    }
    return n;
}

/* Whether two doubles are the same value (NAN equal to NAN). */
static inline int rfix_same_double(double x, double y)
{
    return (isnan(x) && isnan(y)) || x == y;
}

/* Asserts that the records a and b of fields (not arrays) hold the same
 * values, bit for bit for numbers; what names the record on failure. */
static inline void rfix_assert_same_record(const struct cl_rfield *fields,
                                           int n, const void *a, const void *b,
                                           const char *what)
{
    for (int i = 0; i < n; i++) {
        const struct cl_rfield *f = &fields[i];
        const void *x = cl_rfield_cptr(a, f), *y = cl_rfield_cptr(b, f);

        if (f->type == CL_RT_STR) {
            const char *s = *(char *const *)x, *t = *(char *const *)y;
            ck_assert_msg((s == NULL && t == NULL) ||
                              (s != NULL && t != NULL && strcmp(s, t) == 0),
                          "%s.%s: \"%s\" != \"%s\"", what, f->name,
                          s ? s : "(null)", t ? t : "(null)");
        } else if (f->type == CL_RT_LATENCY) {
            rfix_assert_same_record(cl_latency_fields, CL_LATENCY_NFIELDS, x, y,
                                    f->name);
        } else if (cl_rfield_elem(f) == NULL) {
            size_t size = f->type == CL_RT_STATES ? CL_GS_COUNT * sizeof(double)
                          : f->type == CL_RT_INT || f->type == CL_RT_BOOL ||
                                  f->type == CL_RT_POOL ||
                                  f->type == CL_RT_RSTATE
                              ? sizeof(int)
                              : 8;
            ck_assert_msg(memcmp(x, y, size) == 0, "%s.%s differs", what,
                          f->name);
        }
    }
}

/* Asserts that a and b hold the same values in every field, arrays
 * included. */
static inline void rfix_assert_same(const struct cl_results *a,
                                    const struct cl_results *b)
{
    rfix_assert_same_record(cl_results_fields, CL_RESULTS_NFIELDS, a, b,
                            "results");
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const struct cl_relem *e = cl_rfield_elem(f);
        const char *x = cl_rfield_array(f, a), *y = cl_rfield_array(f, b);
        size_t n = cl_rfield_count(f, a);

        if (e == NULL)
            continue;
        ck_assert_msg(cl_rfield_count(f, b) == n, "%s: %zu elements, not %zu",
                      f->name, cl_rfield_count(f, b), n);
        ck_assert_msg((x == NULL) == (y == NULL), "%s: NULL on one side",
                      f->name);
        for (size_t j = 0; x != NULL && j < n; j++) {
            if (f->type == CL_RT_NOTES)
                ck_assert_str_eq(((char *const *)(const void *)x)[j],
                                 ((char *const *)(const void *)y)[j]);
            else if (f->type == CL_RT_CELLS)
                ck_assert_msg(
                    memcmp(x + j * e->size, y + j * e->size, e->size) == 0,
                    "%s[%zu] differs", f->name, j);
            else
                rfix_assert_same_record(e->fields, e->nfields, x + j * e->size,
                                        y + j * e->size, f->name);
        }
    }
}

#endif /* RESULTS_FIXTURE_H */
