/*
 * What one simulation run produces: summary metrics and a time series, in
 * the units their names say. Filled by the cluster model, read by the report
 * writers (reports/), the sweep wire format and the CLI. The structs are
 * expanded from the field lists of results-fields.h, as are the field
 * descriptors (struct cl_rfield) that the writers walk: a new result field
 * is one line there. The struct owns its strings and arrays; free them with
 * cl_results_fini(). The time series has one row per metrics interval, so
 * it grows with simulated time, not with requests. Descriptors are static
 * and read-only.
 */
#ifndef CL_RESULTS_H
#define CL_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "models/cluster/results-fields.h"

/* States a GPU is charged in, from request to release. Idle is serving
 * with no request on the replica. */
enum cl_gpu_state {
    CL_GS_PROVISIONING,
    CL_GS_LOADING,
    CL_GS_SERVING,
    CL_GS_IDLE,
    CL_GS_DRAINING,
    CL_GS_COUNT,
};

/* Static names: "provisioning", "loading", "serving", "idle", "draining". */
const char *cl_gpu_state_name(int state);

/* Static names of a replica's state in cl_replica_row.state:
 * "provisioning", "loading", "serving", "draining", "gone". */
const char *cl_replica_state_name(int state);

/* The kinds of field in the lists of results-fields.h (CL_RT_ and the
 * list's type column). */
enum cl_rtype {
    CL_RT_U64,
    CL_RT_I64,
    CL_RT_INT,
    CL_RT_BOOL,
    CL_RT_F64,
    CL_RT_NS,
    CL_RT_SERIAL,
    CL_RT_STR,
    CL_RT_POOL,
    CL_RT_RSTATE,
    CL_RT_LATENCY,
    CL_RT_STATES,
    CL_RT_CLASSES,
    CL_RT_GROUPS,
    CL_RT_POOLS,
    CL_RT_NOTES,
    CL_RT_SERIES,
    CL_RT_CELLS,
    CL_RT_REPLICAS,
    CL_RT_STAGES,
    CL_RT_REQUESTS,
};

/* The members a field of each kind declares; an array's count is n<name>.
 * Used by the struct definitions below. */
#define CL_RF_MEMBER_U64(f) uint64_t f;
#define CL_RF_MEMBER_I64(f) int64_t f;
#define CL_RF_MEMBER_INT(f) int f;
#define CL_RF_MEMBER_BOOL(f) int f;
#define CL_RF_MEMBER_F64(f) double f;
#define CL_RF_MEMBER_NS(f) int64_t f;
#define CL_RF_MEMBER_SERIAL(f) uint64_t f;
#define CL_RF_MEMBER_STR(f) char *f;
#define CL_RF_MEMBER_POOL(f) int f;
#define CL_RF_MEMBER_RSTATE(f) int f;
#define CL_RF_MEMBER_LATENCY(f) struct cl_latency f;
#define CL_RF_MEMBER_STATES(f) double f[CL_GS_COUNT];
#define CL_RF_MEMBER_CLASSES(f)                                                \
    struct cl_class_result *f;                                                 \
    int n##f;
#define CL_RF_MEMBER_GROUPS(f)                                                 \
    struct cl_group_result *f;                                                 \
    int n##f;
#define CL_RF_MEMBER_POOLS(f)                                                  \
    struct cl_pool_result *f;                                                  \
    int n##f;
#define CL_RF_MEMBER_NOTES(f)                                                  \
    char **f;                                                                  \
    int n##f;
#define CL_RF_MEMBER_SERIES(f)                                                 \
    struct cl_series_row *f;                                                   \
    size_t n##f;
#define CL_RF_MEMBER_CELLS(f) double *f;
#define CL_RF_MEMBER_REPLICAS(f)                                               \
    struct cl_replica_row *f;                                                  \
    size_t n##f;
#define CL_RF_MEMBER_STAGES(f)                                                 \
    struct cl_stage_row *f;                                                    \
    size_t n##f;
#define CL_RF_MEMBER_REQUESTS(f)                                               \
    struct cl_request_row *f;                                                  \
    size_t n##f;
#define CL_RF_MEMBER(name, type, col, unit, help) CL_RF_MEMBER_##type(name)
#define CL_RF_MEMBER_TOP(name, type, json, db, text, unit, help)               \
    CL_RF_MEMBER_##type(name)

/* A latency metric (CL_LATENCY_FIELDS). n = 0 means no samples, and then
 * every other field is NAN. */
struct cl_latency {
    CL_LATENCY_FIELDS(CL_RF_MEMBER)
};

/* One interval of the time series (CL_SERIES_FIELDS). */
struct cl_series_row {
    CL_SERIES_FIELDS(CL_RF_MEMBER)
};

/* One replica over one interval of the time series (CL_REPLICA_FIELDS).
 * Every replica that existed during the interval has a row, including one
 * that went away in it (its last row has state "gone"). */
struct cl_replica_row {
    CL_REPLICA_FIELDS(CL_RF_MEMBER)
};

/* One load stage (CL_STAGE_FIELDS). */
struct cl_stage_row {
    CL_STAGE_FIELDS(CL_RF_MEMBER)
};

/* One request (CL_REQUEST_FIELDS). outcome is owned in struct cl_results'
 * array; a row passed to struct cl_run_opts' request callback is borrowed
 * for the call, outcome a static string. */
struct cl_request_row {
    CL_REQUEST_FIELDS(CL_RF_MEMBER)
};

/* One priority class (CL_CLASS_FIELDS). */
struct cl_class_result {
    CL_CLASS_FIELDS(CL_RF_MEMBER)
};

/* One P/D group (CL_GROUP_FIELDS). */
struct cl_group_result {
    CL_GROUP_FIELDS(CL_RF_MEMBER)
};

/* Per pool accounting (CL_POOL_FIELDS). */
struct cl_pool_result {
    CL_POOL_FIELDS(CL_RF_MEMBER)
};

/* The results of one run (CL_RESULTS_FIELDS). */
struct cl_results {
    CL_RESULTS_FIELDS(CL_RF_MEMBER_TOP)
};

/* One field of a list: its member's name, kind and offset in its struct,
 * and how the outputs name it (results-fields.h): json is the JSON member
 * (NULL: not in JSON), db the summary metric, table column or table (NULL:
 * not stored), text the text summary's label (NULL: none). Static. */
struct cl_rfield {
    const char *name;
    enum cl_rtype type;
    size_t offset;
    const char *json;
    const char *db;
    const char *text;
    const char *unit;
    const char *help;
};

/* The number of fields of each list. */
#define CL_RF_ONE(...) +1
enum {
    CL_LATENCY_NFIELDS = 0 CL_LATENCY_FIELDS(CL_RF_ONE),
    CL_SERIES_NFIELDS = 0 CL_SERIES_FIELDS(CL_RF_ONE),
    CL_REPLICA_NFIELDS = 0 CL_REPLICA_FIELDS(CL_RF_ONE),
    CL_CLASS_NFIELDS = 0 CL_CLASS_FIELDS(CL_RF_ONE),
    CL_GROUP_NFIELDS = 0 CL_GROUP_FIELDS(CL_RF_ONE),
    CL_POOL_NFIELDS = 0 CL_POOL_FIELDS(CL_RF_ONE),
    CL_STAGE_NFIELDS = 0 CL_STAGE_FIELDS(CL_RF_ONE),
    CL_REQUEST_NFIELDS = 0 CL_REQUEST_FIELDS(CL_RF_ONE),
    CL_RESULTS_NFIELDS = 0 CL_RESULTS_FIELDS(CL_RF_ONE),
};

/* The fields of each struct above, in list order. For the sub-lists json
 * and db are set as their list comments say: a latency's col is both, a
 * series row has no JSON, a replica row's col is both, a class and a
 * group have no database column, a pool's JSON member is its name. */
extern const struct cl_rfield cl_latency_fields[CL_LATENCY_NFIELDS];
extern const struct cl_rfield cl_series_fields[CL_SERIES_NFIELDS];
extern const struct cl_rfield cl_replica_fields[CL_REPLICA_NFIELDS];
extern const struct cl_rfield cl_class_fields[CL_CLASS_NFIELDS];
extern const struct cl_rfield cl_group_fields[CL_GROUP_NFIELDS];
extern const struct cl_rfield cl_pool_fields[CL_POOL_NFIELDS];
extern const struct cl_rfield cl_stage_fields[CL_STAGE_NFIELDS];
extern const struct cl_rfield cl_request_fields[CL_REQUEST_NFIELDS];
extern const struct cl_rfield cl_results_fields[CL_RESULTS_NFIELDS];

/* The field of struct cl_results at offset, or NULL. */
const struct cl_rfield *cl_results_field_at(size_t offset);

/* The descriptor of member m of struct cl_results, checked at compile
 * time: CL_RESULTS_FIELD(cost_usd)->db is "cost_usd". */
#define CL_RESULTS_FIELD(m) cl_results_field_at(offsetof(struct cl_results, m))

/* The address of field f in the record rec (a struct of f's list). */
static inline const void *cl_rfield_cptr(const void *rec,
                                         const struct cl_rfield *f)
{
    return (const char *)rec + f->offset;
}

/* As cl_rfield_cptr(), writable. */
static inline void *cl_rfield_ptr(void *rec, const struct cl_rfield *f)
{
    return (char *)rec + f->offset;
}

/* 1 when field f of struct cl_results is left out of r's JSON and
 * summary table: a field of CL_RESULTS_OMIT_ZERO whose group's count
 * (a U64) is 0 in r; else 0. O(fields of that list). */
int cl_rfield_omitted(const struct cl_rfield *f, const struct cl_results *r);

/* The number of values of field f: CL_LATENCY_NFIELDS for a latency,
 * CL_GS_COUNT for states, else 1. */
int cl_rfield_nsub(const struct cl_rfield *f);

/* The static name of value sub of a latency ("mean", ..., "n") or of
 * states (cl_gpu_state_name()); NULL for another kind. */
const char *cl_rfield_sub_name(const struct cl_rfield *f, int sub);

/* Writes the summary metric of value sub of f into buf: db, or
 * "<db>.<sub name>" for a latency or states. Returns buf, or NULL when f
 * has no summary metric. */
char *cl_rfield_metric(const struct cl_rfield *f, int sub, char *buf,
                       size_t size);

/* The table columns of a record of fields, joined by ", ": a field's db
 * name, or "<db>_<state>" for each state of a states field. Stores their
 * number in *ncols. The caller frees the string with free(). */
char *cl_rfield_columns(const struct cl_rfield *fields, int n, int *ncols);

/* Value sub of the number field f of rec as a double: NS as seconds, POOL
 * and RSTATE as their index; NAN for a string or an array. */
double cl_rfield_get(const struct cl_rfield *f, const void *rec, int sub);

/* The elements of an array field: their fields (NULL for notes and
 * cells, whose elements are a string and a double) and size. */
struct cl_relem {
    const struct cl_rfield *fields;
    int nfields;
    size_t size;
};

/* The element description of array field f of struct cl_results, or NULL
 * when f is not an array. Static. */
const struct cl_relem *cl_rfield_elem(const struct cl_rfield *f);

/* The array of field f of r, borrowed; NULL for a field that is not an
 * array. */
const void *cl_rfield_array(const struct cl_rfield *f,
                            const struct cl_results *r);

/* The length of array field f of r (cells: nseries x npools); 0 for a
 * field that is not an array. */
size_t cl_rfield_count(const struct cl_rfield *f, const struct cl_results *r);

/* Sets the array of field f of r to a, of n elements (owned by r from
 * now); cells take their length from the series and pools. */
void cl_rfield_set_array(const struct cl_rfield *f, struct cl_results *r,
                         void *a, size_t n);

/* Most per-replica series rows one run keeps: 2^19 rows of about 120
 * bytes, 60 MiB (a day at 60 s intervals for 364 replicas). */
#define CL_REPLICA_SERIES_MAX ((size_t)1 << 19)
/* metrics.replica_rows's default: rows the per-replica series keeps
 * before it merges them two by two (replica-series.c). */
#define CL_REPLICA_ROWS_DEFAULT ((size_t)50000)

/* Most load stages one run reports: a request of a later stage is counted
 * in the last one (a note says so). 64 stages hold 4 histograms of about
 * 57 KiB each, 15 MiB. */
#define CL_STAGES_MAX 64

/* Most per-request rows one run keeps (metrics.requests): 2^20 rows of
 * about 90 bytes, 90 MiB; dsec run --requests streams any number. */
#define CL_REQUESTS_MAX ((size_t)1 << 20)

/* Appends a copy of note. */
void cl_results_note(struct cl_results *r, const char *note);

/* Frees everything r owns and zeroes it. NULL is a no-op. */
void cl_results_fini(struct cl_results *r);

#endif /* CL_RESULTS_H */
