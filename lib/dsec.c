/* libdsec: the public interface of include/dsec.h over the scenario
 * pipeline (scenarios/load.h), the cluster model (models/cluster/) and the
 * summaries (reports/). A dsec_scenario keeps its text and overrides and
 * opens a fresh struct cl_scenario for each run, so runs never share
 * state. */
#include "dsec.h"

#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/lib-int.h"
#include "models/cluster/cluster.h"
#include "models/cluster/training.h"
#include "models/policy/policy.h"
#include "reports/summary.h"
#include "reports/train-report.h"
#include "scenarios/load.h"
#include "sweep/spec.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

_Static_assert((int)DSEC_EINVAL == SIM_EINVAL && (int)DSEC_EIO == SIM_EIO &&
                   (int)DSEC_EPARSE == SIM_EPARSE &&
                   (int)DSEC_EINFEASIBLE == SIM_EINFEASIBLE &&
                   (int)DSEC_ENOTFOUND == SIM_ENOTFOUND,
               "dsec.h's codes are base/errors.h's");

struct dsec_scenario {
    char *name; /* the file name in messages */
    char *dir;  /* relative paths inside it start here */
    char *text;
    size_t len;
    char **sets; /* "KEY=VALUE", in order */
    int nsets;
    uint64_t seed;
    int seed_set;
    const struct pol_entry *policy; /* dsec_scenario_set_policy() */
    char *display;                  /* the scenario's name, once opened */
};

struct dsec_results {
    struct cl_results res;
    struct cl_training_report trep;
    int training;
};

struct dsec_session {
    struct cl_scenario scn;
    struct cl_run_opts ropts;
    struct cl_session *ss;
    struct sim_diag diag;
    dsec_results *out;
    char *dir; /* ropts.base_dir, the session's own copy */
    int external;
};

const char *dsec_version(void)
{
    return PACKAGE_VERSION;
}

int dsec_policy_api_version(void)
{
    return POL_API_VERSION;
}

const char *dsec_strerror(int code)
{
    return sim_strerror(code);
}

void dsec_free(void *p)
{
    free(p);
}

size_t dsec_type_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } t[] = {
        {"pol_snapshot", sizeof(struct pol_snapshot)},
        {"pol_replica", sizeof(struct pol_replica)},
        {"pol_pool", sizeof(struct pol_pool)},
        {"pol_decision", sizeof(struct pol_decision)},
        {"pol_ops", sizeof(struct pol_ops)},
        {"pol_entry", sizeof(struct pol_entry)},
        {"sim_param", sizeof(struct sim_param)},
        {"dsec_policy_plugin", sizeof(struct dsec_policy_plugin)},
    };

    for (size_t i = 0; name != NULL && i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(t[i].name, name) == 0)
            return t[i].size;
    return 0;
}

/* ---- Messages ---- */

/* Every diagnostic of d of at least severity min, one a line; NULL when
 * there are none. */
static char *diag_text(const struct sim_diag *d, enum sim_severity min)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp;
    int any = 0;

    fp = open_memstream(&buf, &len);
    if (fp == NULL)
        sim_fatal("out of memory");
    for (int i = 0; i < d->n; i++) {
        char *line;

        if (d->v[i].sev < min)
            continue;
        line = sim_diag_format(d, i);
        fprintf(fp, "%s%s", any ? "\n" : "", line);
        free(line);
        any = 1;
    }
    fclose(fp);
    if (!any) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Stores the errors of d (or, when it has none, the code's text) in *err;
 * returns rc. */
int dsec__fail(char **err, int rc, const struct sim_diag *d)
{
    if (err != NULL) {
        *err = d != NULL ? diag_text(d, SIM_SEV_ERROR) : NULL;
        if (*err == NULL)
            *err = xasprintf("error: %s", sim_strerror(rc));
    }
    return rc;
}

static int fail_msg(char **err, int rc, const char *msg)
{
    if (err != NULL)
        *err = xasprintf("%s", msg);
    return rc;
}

static void ok(char **err)
{
    if (err != NULL)
        *err = NULL;
}

/* ---- Scenarios ---- */

/* The file name without its directory and .yaml/.yml suffix (the name a
 * scenario without name: gets). Caller frees. */
static char *stem(const char *name)
{
    const char *base = strrchr(name, '/');
    size_t n;

    base = base != NULL ? base + 1 : name;
    n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
        n -= 4;
    return xstrndup(base, n);
}

static int load(const char *name, char *text, size_t len, const char *dir,
                dsec_scenario **out, char **err)
{
    struct sim_diag d;
    struct sim_yaml y;
    dsec_scenario *sc;
    int rc;

    *out = NULL;
    /* The syntax now; the keys when it is validated or run. */
    sim_diag_init(&d);
    sim_yaml_init(&y, name, &d, NULL);
    rc = sim_yaml_parse(&y, text, len, SCN_MAX_TEXT_BYTES);
    sim_yaml_fini(&y);
    if (rc != 0) {
        dsec__fail(err, SIM_EPARSE, &d);
        sim_diag_fini(&d);
        free(text);
        return SIM_EPARSE;
    }
    sim_diag_fini(&d);
    sc = xcalloc(1, sizeof(*sc));
    sc->name = xstrdup(name);
    sc->dir = xstrdup(dir != NULL ? dir : ".");
    sc->text = text;
    sc->len = len;
    sc->display = stem(name);
    *out = sc;
    ok(err);
    return 0;
}

int dsec_scenario_load_file(const char *path, dsec_scenario **out, char **err)
{
    struct sim_diag d;
    size_t len = 0;
    char *text, *dir;
    const char *slash = strrchr(path, '/');
    int rc;

    *out = NULL;
    sim_diag_init(&d);
    text = sim_yaml_read_file(path, SCN_MAX_TEXT_BYTES, &len, &d);
    if (text == NULL) {
        dsec__fail(err, SIM_EIO, &d);
        sim_diag_fini(&d);
        return SIM_EIO;
    }
    sim_diag_fini(&d);
    dir = slash == NULL   ? xstrdup(".")
          : slash == path ? xstrdup("/")
                          : xstrndup(path, (size_t)(slash - path));
    rc = load(path, text, len, dir, out, err);
    free(dir);
    return rc;
}

int dsec_scenario_load_string(const char *name, const char *text, size_t len,
                              const char *dir, dsec_scenario **out, char **err)
{
    *out = NULL;
    if (len == 0)
        len = strlen(text);
    if (len > SCN_MAX_TEXT_BYTES)
        return fail_msg(err, SIM_EIO,
                        "error: the scenario text is larger than 4 MiB");
    return load(name != NULL && name[0] != '\0' ? name : "<string>",
                xstrndup(text, len), len, dir, out, err);
}

void dsec_scenario_free(dsec_scenario *sc)
{
    if (sc == NULL)
        return;
    dsec_scenario_clear_sets(sc);
    free(sc->name);
    free(sc->dir);
    free(sc->text);
    free(sc->display);
    free(sc);
}

int dsec_scenario_set(dsec_scenario *sc, const char *assignment, char **err)
{
    const char *eq = strchr(assignment, '=');

    if (eq == NULL || eq == assignment)
        return fail_msg(err, SIM_EINVAL,
                        "error: an override is KEY=VALUE, such as "
                        "cluster.max_gpus=16");
    sc->sets = xrealloc(sc->sets, (size_t)sc->nsets + 1, sizeof(*sc->sets));
    sc->sets[sc->nsets++] = xstrdup(assignment);
    ok(err);
    return 0;
}

void dsec_scenario_clear_sets(dsec_scenario *sc)
{
    for (int i = 0; i < sc->nsets; i++)
        free(sc->sets[i]);
    free(sc->sets);
    sc->sets = NULL;
    sc->nsets = 0;
}

void dsec_scenario_set_seed(dsec_scenario *sc, uint64_t seed)
{
    sc->seed = seed;
    sc->seed_set = 1;
}

int dsec_scenario_set_policy(dsec_scenario *sc, const struct pol_entry *e,
                             char **err)
{
    if (e != NULL &&
        (e->name == NULL || e->name[0] == '\0' || e->ops == NULL ||
         e->ops->create == NULL || e->ops->destroy == NULL ||
         e->ops->decide == NULL || e->ops->version != POL_API_VERSION)) {
        char msg[256];
        snprintf(msg, sizeof(msg),
                 "error: a policy entry needs a name and ops (create, "
                 "destroy, decide) of policy API version %d",
                 POL_API_VERSION);
        return fail_msg(err, SIM_EINVAL, msg);
    }
    sc->policy = e;
    ok(err);
    return 0;
}

/* The text with the overrides applied (a copy); NULL with diagnostics. */
static char *applied_text(const dsec_scenario *sc, size_t *len,
                          struct sim_diag *d)
{
    char *t;

    if (sc->nsets == 0) {
        *len = sc->len;
        return xstrndup(sc->text, sc->len);
    }
    t = swp_text_with_sets(sc->name, sc->text, sc->len,
                           (const char *const *)sc->sets, sc->nsets, "override",
                           d);
    *len = t != NULL ? strlen(t) : 0;
    return t;
}

int dsec__scenario_open(const dsec_scenario *sc, struct cl_scenario *scn,
                        struct sim_diag *d)
{
    struct scn_open_opts o = {0};
    char *text;
    int rc;

    memset(scn, 0, sizeof(*scn));
    text = applied_text(sc, &o.len, d);
    if (text == NULL)
        return SIM_EINVAL;
    o.text = text;
    o.policy = sc->policy;
    rc = scn_scenario_open(sc->name, &o, scn, d);
    free(text);
    if (rc != 0)
        return rc;
    if (sc->seed_set)
        scn->seed = sc->seed;
    return 0;
}

int dsec__open_scenario(dsec_scenario *sc, struct cl_scenario *scn,
                        struct sim_diag *d)
{
    int rc = dsec__scenario_open(sc, scn, d);

    if (rc != 0)
        return rc;
    free(sc->display);
    sc->display = xstrdup(scn->name != NULL ? scn->name : sc->name);
    return 0;
}

int dsec_scenario_validate(dsec_scenario *sc, char **notes, char **err)
{
    struct cl_scenario scn;
    struct sim_diag d;
    int rc;

    if (notes != NULL)
        *notes = NULL;
    sim_diag_init(&d);
    rc = dsec__open_scenario(sc, &scn, &d);
    if (rc != 0) {
        dsec__fail(err, rc, &d);
    } else {
        ok(err);
        if (notes != NULL)
            *notes = diag_text(&d, SIM_SEV_NOTE);
        cl_scenario_fini(&scn);
    }
    sim_diag_fini(&d);
    return rc;
}

char *dsec_scenario_text(dsec_scenario *sc, char **err)
{
    struct sim_diag d;
    size_t len;
    char *t;

    sim_diag_init(&d);
    t = applied_text(sc, &len, &d);
    if (t == NULL)
        dsec__fail(err, SIM_EINVAL, &d);
    else
        ok(err);
    sim_diag_fini(&d);
    return t;
}

const char *dsec__scenario_dir(const dsec_scenario *sc)
{
    return sc->dir;
}

const char *dsec_scenario_name(const dsec_scenario *sc)
{
    return sc->display;
}

/* ---- Runs ---- */

/* Runs the opened scenario scn (serving, then training) into r. */
static int run_opened(const struct cl_scenario *scn, const char *dir,
                      dsec_results *r, struct sim_diag *d)
{
    struct cl_run_opts ro = {0};
    int rc;

    ro.base_dir = dir;
    rc = cl_run(scn, &ro, &r->res, d);
    if (rc == 0 && scn->training.gpus > 0) {
        rc = cl_training_run(scn, &ro, &r->res, &r->trep, d);
        r->training = rc == 0;
    }
    return rc;
}

int dsec_run(dsec_scenario *sc, dsec_results **out, char **err)
{
    struct cl_scenario scn;
    struct sim_diag d;
    dsec_results *r;
    int rc;

    *out = NULL;
    sim_diag_init(&d);
    rc = dsec__open_scenario(sc, &scn, &d);
    if (rc != 0) {
        dsec__fail(err, rc, &d);
        sim_diag_fini(&d);
        return rc;
    }
    r = xcalloc(1, sizeof(*r));
    rc = run_opened(&scn, sc->dir, r, &d);
    cl_scenario_fini(&scn);
    if (rc != 0) {
        dsec__fail(err, rc, &d);
        dsec_results_free(r);
    } else {
        ok(err);
        *out = r;
    }
    sim_diag_fini(&d);
    return rc;
}

void dsec_results_free(dsec_results *res)
{
    if (res == NULL)
        return;
    if (res->training)
        cl_training_report_fini(&res->trep);
    cl_results_fini(&res->res);
    free(res);
}

char *dsec_results_json(const dsec_results *res, int pretty)
{
    json_object *obj;
    char *s = rpt_summary_json(&res->res, pretty);
    const char *t;

    if (!res->training)
        return s;
    obj = json_tokener_parse(s);
    free(s);
    if (obj == NULL)
        sim_fatal("results: the summary's JSON does not parse");
    json_object_object_add(obj, "training", rpt_train_report_json(&res->trep));
    t = json_object_to_json_string_ext(obj, pretty ? JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_SPACED
                                                   : JSON_C_TO_STRING_PLAIN);
    s = xstrdup(t);
    json_object_put(obj);
    return s;
}

/* A numeric value of type t at p, as a double; -1 for a type that is not
 * numeric. */
static int number_at(enum cl_rtype t, const void *p, double *out)
{
    switch (t) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        *out = (double)*(const uint64_t *)p;
        return 0;
    case CL_RT_I64:
        *out = (double)*(const int64_t *)p;
        return 0;
    case CL_RT_INT:
    case CL_RT_BOOL:
        *out = *(const int *)p;
        return 0;
    case CL_RT_F64:
        *out = *(const double *)p;
        return 0;
    case CL_RT_NS:
        *out = (double)*(const int64_t *)p / 1e9;
        return 0;
    default:
        return -1;
    }
}

/* The numeric fields' names, built once: a scalar's JSON name, then
 * "NAME.SUB" for each value of a latency or states field. */
static char **field_names;
static int nfield_names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_build(void)
{
    double v;
    int n = 0;

    field_names =
        xcalloc((size_t)CL_RESULTS_NFIELDS * (CL_LATENCY_NFIELDS + CL_GS_COUNT),
                sizeof(*field_names));
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        uint64_t zero[4] = {0};

        if (f->json == NULL)
            continue;
        if (f->type == CL_RT_LATENCY || f->type == CL_RT_STATES) {
            for (int k = 0; k < cl_rfield_nsub(f); k++)
                field_names[n++] =
                    xasprintf("%s.%s", f->json, cl_rfield_sub_name(f, k));
        } else if (number_at(f->type, zero, &v) == 0) {
            field_names[n++] = xstrdup(f->json);
        }
    }
    nfield_names = n;
}

int dsec_results_nfields(void)
{
    pthread_once(&names_once, names_build);
    return nfield_names;
}

const char *dsec_results_field_name(int i)
{
    pthread_once(&names_once, names_build);
    return i >= 0 && i < nfield_names ? field_names[i] : NULL;
}

int dsec_results_get(const dsec_results *res, const char *name, double *out)
{
    const char *dot = strrchr(name, '.');
    size_t head = dot != NULL ? (size_t)(dot - name) : strlen(name);

    /* A scalar by its whole JSON name ("completed", "replicas.min"). */
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        if (f->json != NULL && strcmp(f->json, name) == 0)
            return number_at(f->type, cl_rfield_cptr(&res->res, f), out) == 0
                       ? 0
                       : SIM_ENOTFOUND;
    }
    if (dot == NULL)
        return SIM_ENOTFOUND;
    /* A value of a latency or states field: "ttft_ms.p99". */
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const char *p = cl_rfield_cptr(&res->res, f);

        if (f->json == NULL || strlen(f->json) != head ||
            strncmp(f->json, name, head) != 0)
            continue;
        if (f->type == CL_RT_LATENCY) {
            for (int k = 0; k < CL_LATENCY_NFIELDS; k++) {
                const struct cl_rfield *s = &cl_latency_fields[k];
                if (strcmp(cl_rfield_sub_name(f, k), dot + 1) == 0)
                    return number_at(s->type, p + s->offset, out) == 0
                               ? 0
                               : SIM_ENOTFOUND;
            }
        } else if (f->type == CL_RT_STATES) {
            for (int k = 0; k < CL_GS_COUNT; k++)
                if (strcmp(cl_gpu_state_name(k), dot + 1) == 0) {
                    memcpy(out, p + (size_t)k * sizeof(double), sizeof(double));
                    return 0;
                }
        }
        return SIM_ENOTFOUND;
    }
    return SIM_ENOTFOUND;
}

/* ---- Sessions ---- */

int dsec_session_open(dsec_scenario *sc, int flags, dsec_session **out,
                      char **err)
{
    dsec_session *s = xcalloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    sim_diag_init(&s->diag);
    rc = dsec__open_scenario(sc, &s->scn, &s->diag);
    if (rc != 0) {
        dsec__fail(err, rc, &s->diag);
        sim_diag_fini(&s->diag);
        free(s);
        return rc;
    }
    s->dir = xstrdup(sc->dir);
    s->ropts.base_dir = s->dir;
    s->out = xcalloc(1, sizeof(*s->out));
    s->external = (flags & DSEC_SESSION_EXTERNAL) != 0;
    rc = cl_session_open(&s->scn, &s->ropts,
                         s->external ? CL_SESSION_EXTERNAL : 0, &s->out->res,
                         &s->ss, &s->diag);
    if (rc != 0) {
        dsec__fail(err, rc, &s->diag);
        dsec_results_free(s->out);
        cl_scenario_fini(&s->scn);
        sim_diag_fini(&s->diag);
        free(s->dir);
        free(s);
        return rc;
    }
    *out = s;
    ok(err);
    return 0;
}

int dsec_session_advance(dsec_session *ss, double t_s, char **err)
{
    int64_t t;
    int rc;

    if (isnan(t_s))
        return fail_msg(err, SIM_EINVAL, "error: the time is not a number");
    t = t_s >= 9.2e9 ? INT64_MAX : t_s <= 0 ? 0 : (int64_t)llround(t_s * 1e9);
    rc = cl_session_advance(ss->ss, t);
    if (rc != 0)
        return dsec__fail(err, rc, &ss->diag);
    ok(err);
    return 0;
}

double dsec_session_now(const dsec_session *ss)
{
    return (double)cl_session_now(ss->ss) / 1e9;
}

int dsec_session_set_desired(dsec_session *ss, int desired)
{
    int n = cl_session_set_desired(ss->ss, desired);
    return n < 0 ? SIM_EINVAL : n;
}

static const char *rstate_name(int s)
{
    switch (s) {
    case CL_SS_PROVISIONING:
        return "provisioning";
    case CL_SS_LOADING:
        return "loading";
    case CL_SS_SERVING:
        return "serving";
    default:
        return "draining";
    }
}

static json_object *number(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

char *dsec_session_state_json(const dsec_session *ss)
{
    struct cl_session_cluster c;
    json_object *o = json_object_new_object(), *reps = json_object_new_array();
    char *s;

    cl_session_cluster(ss->ss, &c);
    json_object_object_add(o, "now_s", json_object_new_double(c.now_s));
    json_object_object_add(o, "desired", json_object_new_int(c.desired));
    json_object_object_add(o, "min_replicas",
                           json_object_new_int(c.min_replicas));
    json_object_object_add(o, "max_replicas",
                           json_object_new_int(c.max_replicas));
    json_object_object_add(o, "gpus_per_replica",
                           json_object_new_int(c.gpus_per_replica));
    json_object_object_add(o, "serving", json_object_new_int(c.serving));
    json_object_object_add(o, "pending", json_object_new_int(c.pending));
    json_object_object_add(o, "draining", json_object_new_int(c.draining));
    json_object_object_add(o, "workload_done",
                           json_object_new_boolean(c.workload_done));
    json_object_object_add(o, "arrived",
                           json_object_new_int64((int64_t)c.arrived));
    json_object_object_add(o, "completed",
                           json_object_new_int64((int64_t)c.completed));
    json_object_object_add(o, "dropped",
                           json_object_new_int64((int64_t)c.dropped));
    json_object_object_add(o, "scale_events",
                           json_object_new_int64((int64_t)c.scale_events));
    json_object_object_add(o, "cold_starts",
                           json_object_new_int64((int64_t)c.cold_starts));
    for (int i = 0; i < cl_session_nreplicas(ss->ss); i++) {
        struct cl_session_replica r;
        json_object *x;

        if (cl_session_replica(ss->ss, i, &r) != 0)
            continue;
        x = json_object_new_object();
        json_object_object_add(x, "serial",
                               json_object_new_int64((int64_t)r.serial));
        json_object_object_add(x, "pool", json_object_new_string(r.pool_name));
        json_object_object_add(x, "state",
                               json_object_new_string(rstate_name(r.state)));
        json_object_object_add(x, "ready_s", number(r.ready_s));
        json_object_object_add(x, "num_running", number(r.num_running));
        json_object_object_add(x, "num_waiting", number(r.num_waiting));
        json_object_object_add(x, "kv_usage", number(r.kv_usage));
        json_object_object_add(x, "kv_capacity_tokens",
                               json_object_new_int64(r.kv_capacity_tokens));
        json_object_object_add(x, "prompt_tokens",
                               json_object_new_int64((int64_t)r.prompt_tokens));
        json_object_object_add(
            x, "generation_tokens",
            json_object_new_int64((int64_t)r.generation_tokens));
        json_object_object_add(
            x, "request_success",
            json_object_new_int64((int64_t)r.request_success));
        json_object_array_add(reps, x);
    }
    json_object_object_add(o, "replicas", reps);
    s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

int dsec_session_close(dsec_session *ss, dsec_results **out, char **err)
{
    int rc;

    if (out != NULL)
        *out = NULL;
    if (ss == NULL) {
        ok(err);
        return 0;
    }
    rc = cl_session_close(ss->ss);
    if (rc != 0)
        dsec__fail(err, rc, &ss->diag);
    else
        ok(err);
    if (out != NULL)
        *out = ss->out;
    else
        dsec_results_free(ss->out);
    cl_scenario_fini(&ss->scn);
    sim_diag_fini(&ss->diag);
    free(ss->dir);
    free(ss);
    return rc;
}
