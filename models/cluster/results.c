/* The results record's descriptors and owned memory. The descriptor tables
 * are expanded from the lists of results-fields.h, so they cannot disagree
 * with the structs; the destructor walks them, so a new string or array
 * field is freed without further code. Notes are capped at
 * RESULTS_MAX_NOTES so that a model noting something per event cannot grow
 * the list without bound; past the cap one marker note says that later
 * ones were dropped. */
#include "models/cluster/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define RESULTS_MAX_NOTES 64

/* One descriptor of a field n of struct s; the sub-lists' col is their
 * JSON member, table column or both, as results.h says. */
#define FIELD(s, n, t, j, d, x, u, h)                                          \
    {.name = #n,                                                               \
     .type = CL_RT_##t,                                                        \
     .offset = offsetof(struct s, n),                                          \
     .json = j,                                                                \
     .db = d,                                                                  \
     .text = x,                                                                \
     .unit = u,                                                                \
     .help = h},
#define LATENCY_FIELD(n, t, c, u, h) FIELD(cl_latency, n, t, #c, #c, NULL, u, h)
#define SERIES_FIELD(n, t, c, u, h)                                            \
    FIELD(cl_series_row, n, t, NULL, #c, NULL, u, h)
#define REPLICA_FIELD(n, t, c, u, h)                                           \
    FIELD(cl_replica_row, n, t, #c, #c, NULL, u, h)
#define CLASS_FIELD(n, t, c, u, h)                                             \
    FIELD(cl_class_result, n, t, #c, NULL, NULL, u, h)
#define GROUP_FIELD(n, t, c, u, h)                                             \
    FIELD(cl_group_result, n, t, #c, NULL, NULL, u, h)
#define POOL_FIELD(n, t, c, u, h)                                              \
    FIELD(cl_pool_result, n, t, #n, #c, NULL, u, h)
#define STAGE_FIELD(n, t, c, u, h) FIELD(cl_stage_row, n, t, #c, #c, NULL, u, h)
#define REQUEST_FIELD(n, t, c, u, h)                                           \
    FIELD(cl_request_row, n, t, #c, #c, NULL, u, h)
#define RESULTS_FIELD(n, t, j, d, x, u, h)                                     \
    FIELD(cl_results, n, t, j, d, x, u, h)

const struct cl_rfield cl_latency_fields[CL_LATENCY_NFIELDS] = {
    CL_LATENCY_FIELDS(LATENCY_FIELD)};
const struct cl_rfield cl_series_fields[CL_SERIES_NFIELDS] = {
    CL_SERIES_FIELDS(SERIES_FIELD)};
const struct cl_rfield cl_replica_fields[CL_REPLICA_NFIELDS] = {
    CL_REPLICA_FIELDS(REPLICA_FIELD)};
const struct cl_rfield cl_class_fields[CL_CLASS_NFIELDS] = {
    CL_CLASS_FIELDS(CLASS_FIELD)};
const struct cl_rfield cl_group_fields[CL_GROUP_NFIELDS] = {
    CL_GROUP_FIELDS(GROUP_FIELD)};
const struct cl_rfield cl_pool_fields[CL_POOL_NFIELDS] = {
    CL_POOL_FIELDS(POOL_FIELD)};
const struct cl_rfield cl_stage_fields[CL_STAGE_NFIELDS] = {
    CL_STAGE_FIELDS(STAGE_FIELD)};
const struct cl_rfield cl_request_fields[CL_REQUEST_NFIELDS] = {
    CL_REQUEST_FIELDS(REQUEST_FIELD)};
const struct cl_rfield cl_results_fields[CL_RESULTS_NFIELDS] = {
    CL_RESULTS_FIELDS(RESULTS_FIELD)};

const struct cl_rfield *cl_results_field_at(size_t offset)
{
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++)
        if (cl_results_fields[i].offset == offset)
            return &cl_results_fields[i];
    return NULL;
}

/* The groups of CL_RESULTS_OMIT_ZERO: each field with its group's count. */
#define OMIT(field, first)                                                     \
    {offsetof(struct cl_results, field), offsetof(struct cl_results, first)},
static const struct {
    size_t field, first;
} omit_zero[] = {CL_RESULTS_OMIT_ZERO(OMIT)};

int cl_rfield_omitted(const struct cl_rfield *f, const struct cl_results *r)
{
    for (size_t i = 0; i < sizeof(omit_zero) / sizeof(omit_zero[0]); i++)
        if (omit_zero[i].field == f->offset)
            return *(const uint64_t *)(const void *)((const char *)r +
                                                     omit_zero[i].first) == 0;
    return 0;
}

int cl_rfield_nsub(const struct cl_rfield *f)
{
    if (f->type == CL_RT_LATENCY)
        return CL_LATENCY_NFIELDS;
    if (f->type == CL_RT_STATES)
        return CL_GS_COUNT;
    return 1;
}

const char *cl_rfield_sub_name(const struct cl_rfield *f, int sub)
{
    if (f->type == CL_RT_LATENCY && sub >= 0 && sub < CL_LATENCY_NFIELDS)
        return cl_latency_fields[sub].db;
    if (f->type == CL_RT_STATES)
        return cl_gpu_state_name(sub);
    return NULL;
}

char *cl_rfield_metric(const struct cl_rfield *f, int sub, char *buf,
                       size_t size)
{
    const char *s = cl_rfield_sub_name(f, sub);

    if (f->db == NULL)
        return NULL;
    if (s == NULL)
        snprintf(buf, size, "%s", f->db);
    else
        snprintf(buf, size, "%s.%s", f->db, s);
    return buf;
}

char *cl_rfield_columns(const struct cl_rfield *fields, int n, int *ncols)
{
    char *s = xstrdup("");

    *ncols = 0;
    for (int i = 0; i < n; i++) {
        const struct cl_rfield *f = &fields[i];
        for (int sub = 0; f->db != NULL && sub < cl_rfield_nsub(f); sub++) {
            const char *state = cl_rfield_sub_name(f, sub);
            char *t = xasprintf("%s%s%s%s%s", s, *ncols > 0 ? ", " : "", f->db,
                                state ? "_" : "", state ? state : "");
            free(s);
            s = t;
            (*ncols)++;
        }
    }
    return s;
}

double cl_rfield_get(const struct cl_rfield *f, const void *rec, int sub)
{
    const void *p = cl_rfield_cptr(rec, f);

    switch (f->type) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        return (double)*(const uint64_t *)p;
    case CL_RT_I64:
        return (double)*(const int64_t *)p;
    case CL_RT_NS:
        return (double)*(const int64_t *)p / 1e9;
    case CL_RT_INT:
    case CL_RT_BOOL:
    case CL_RT_POOL:
    case CL_RT_RSTATE:
        return *(const int *)p;
    case CL_RT_F64:
        return *(const double *)p;
    case CL_RT_LATENCY:
        if (sub < 0 || sub >= CL_LATENCY_NFIELDS)
            return NAN;
        return cl_rfield_get(&cl_latency_fields[sub], p, 0);
    case CL_RT_STATES:
        return sub >= 0 && sub < CL_GS_COUNT ? ((const double *)p)[sub] : NAN;
    default:
        return NAN;
    }
}

const struct cl_relem *cl_rfield_elem(const struct cl_rfield *f)
{
    static const struct cl_relem classes = {cl_class_fields, CL_CLASS_NFIELDS,
                                            sizeof(struct cl_class_result)};
    static const struct cl_relem groups = {cl_group_fields, CL_GROUP_NFIELDS,
                                           sizeof(struct cl_group_result)};
    static const struct cl_relem pools = {cl_pool_fields, CL_POOL_NFIELDS,
                                          sizeof(struct cl_pool_result)};
    static const struct cl_relem series = {cl_series_fields, CL_SERIES_NFIELDS,
                                           sizeof(struct cl_series_row)};
    static const struct cl_relem replicas = {
        cl_replica_fields, CL_REPLICA_NFIELDS, sizeof(struct cl_replica_row)};
    static const struct cl_relem stages = {cl_stage_fields, CL_STAGE_NFIELDS,
                                           sizeof(struct cl_stage_row)};
    static const struct cl_relem requests = {
        cl_request_fields, CL_REQUEST_NFIELDS, sizeof(struct cl_request_row)};
    static const struct cl_relem notes = {NULL, 0, sizeof(char *)};
    static const struct cl_relem cells = {NULL, 0, sizeof(double)};

    switch (f->type) {
    case CL_RT_CLASSES:
        return &classes;
    case CL_RT_GROUPS:
        return &groups;
    case CL_RT_POOLS:
        return &pools;
    case CL_RT_SERIES:
        return &series;
    case CL_RT_REPLICAS:
        return &replicas;
    case CL_RT_STAGES:
        return &stages;
    case CL_RT_REQUESTS:
        return &requests;
    case CL_RT_NOTES:
        return &notes;
    case CL_RT_CELLS:
        return &cells;
    default:
        return NULL;
    }
}

/* The offset of each array's count, n<name>, in struct cl_results (0 for
 * the other fields; cells have none). */
#define COUNT_OFF_NONE(f) 0
#define COUNT_OFF_U64 COUNT_OFF_NONE
#define COUNT_OFF_I64 COUNT_OFF_NONE
#define COUNT_OFF_INT COUNT_OFF_NONE
#define COUNT_OFF_BOOL COUNT_OFF_NONE
#define COUNT_OFF_F64 COUNT_OFF_NONE
#define COUNT_OFF_NS COUNT_OFF_NONE
#define COUNT_OFF_SERIAL COUNT_OFF_NONE
#define COUNT_OFF_STR COUNT_OFF_NONE
#define COUNT_OFF_POOL COUNT_OFF_NONE
#define COUNT_OFF_RSTATE COUNT_OFF_NONE
#define COUNT_OFF_LATENCY COUNT_OFF_NONE
#define COUNT_OFF_STATES COUNT_OFF_NONE
#define COUNT_OFF_CELLS COUNT_OFF_NONE
#define COUNT_OFF_ARRAY(f) offsetof(struct cl_results, n##f)
#define COUNT_OFF_CLASSES COUNT_OFF_ARRAY
#define COUNT_OFF_GROUPS COUNT_OFF_ARRAY
#define COUNT_OFF_POOLS COUNT_OFF_ARRAY
#define COUNT_OFF_NOTES COUNT_OFF_ARRAY
#define COUNT_OFF_SERIES COUNT_OFF_ARRAY
#define COUNT_OFF_REPLICAS COUNT_OFF_ARRAY
#define COUNT_OFF_STAGES COUNT_OFF_ARRAY
#define COUNT_OFF_REQUESTS COUNT_OFF_ARRAY
#define COUNT_OFF(name, type, json, db, text, unit, help)                      \
    COUNT_OFF_##type(name),

static const size_t count_offset[CL_RESULTS_NFIELDS] = {
    CL_RESULTS_FIELDS(COUNT_OFF)};

/* The offset of the count of array field f of struct cl_results. */
static size_t count_off(const struct cl_rfield *f)
{
    return count_offset[f - cl_results_fields];
}

/* An array member is a pointer to its element type; it is read and written
 * through memcpy as a void *, which has the same representation on every
 * platform POSIX supports. */
const void *cl_rfield_array(const struct cl_rfield *f,
                            const struct cl_results *r)
{
    const void *a = NULL;

    if (cl_rfield_elem(f) != NULL)
        memcpy(&a, cl_rfield_cptr(r, f), sizeof(a));
    return a;
}

size_t cl_rfield_count(const struct cl_rfield *f, const struct cl_results *r)
{
    switch (f->type) {
    case CL_RT_CLASSES:
    case CL_RT_GROUPS:
    case CL_RT_POOLS:
    case CL_RT_NOTES: {
        int n = *(const int *)(const void *)((const char *)r + count_off(f));
        return n > 0 ? (size_t)n : 0;
    }
    case CL_RT_SERIES:
    case CL_RT_REPLICAS:
    case CL_RT_STAGES:
    case CL_RT_REQUESTS:
        return *(const size_t *)(const void *)((const char *)r + count_off(f));
    case CL_RT_CELLS:
        return r->npools > 0 ? r->nseries * (size_t)r->npools : 0;
    default:
        return 0;
    }
}

void cl_rfield_set_array(const struct cl_rfield *f, struct cl_results *r,
                         void *a, size_t n)
{
    if (cl_rfield_elem(f) == NULL)
        return;
    memcpy(cl_rfield_ptr(r, f), &a, sizeof(a));
    switch (f->type) {
    case CL_RT_CLASSES:
    case CL_RT_GROUPS:
    case CL_RT_POOLS:
    case CL_RT_NOTES:
        *(int *)(void *)((char *)r + count_off(f)) = (int)n;
        break;
    case CL_RT_SERIES:
    case CL_RT_REPLICAS:
    case CL_RT_STAGES:
    case CL_RT_REQUESTS:
        *(size_t *)(void *)((char *)r + count_off(f)) = n;
        break;
    default:
        break;
    }
}

void cl_results_note(struct cl_results *r, const char *note)
{
    if (r->nnotes > RESULTS_MAX_NOTES)
        return;
    if (r->nnotes == RESULTS_MAX_NOTES)
        note = "further notes dropped";
    r->notes = xrealloc(r->notes, (size_t)r->nnotes + 1, sizeof(*r->notes));
    r->notes[r->nnotes++] = xstrdup(note);
}

/* Frees the strings among the fields of one record. */
static void free_strings(const struct cl_rfield *fields, int n, void *rec)
{
    for (int i = 0; i < n; i++)
        if (fields[i].type == CL_RT_STR)
            free(*(char **)cl_rfield_ptr(rec, &fields[i]));
}

void cl_results_fini(struct cl_results *r)
{
    if (r == NULL)
        return;
    free_strings(cl_results_fields, CL_RESULTS_NFIELDS, r);
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const struct cl_relem *e = cl_rfield_elem(f);
        char *a = (char *)cl_rfield_array(f, r);
        size_t n = cl_rfield_count(f, r);

        if (e == NULL)
            continue;
        for (size_t k = 0; a != NULL && k < n; k++) {
            if (f->type == CL_RT_NOTES)
                free(((char **)(void *)a)[k]);
            else if (e->fields != NULL)
                free_strings(e->fields, e->nfields, a + k * e->size);
        }
        free(a);
    }
    memset(r, 0, sizeof(*r));
}

const char *cl_gpu_state_name(int state)
{
    static const char *const names[CL_GS_COUNT] = {
        "provisioning", "loading", "serving", "idle", "draining"};
    return state >= 0 && state < CL_GS_COUNT ? names[state] : "?";
}

const char *cl_replica_state_name(int state)
{
    /* The order of enum cl_rstate (models/cluster/cluster-int.h). */
    static const char *const names[] = {"provisioning", "loading", "serving",
                                        "draining", "gone"};
    return state >= 0 && state < 5 ? names[state] : "?";
}
