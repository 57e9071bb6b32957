/* The scenario loader: base/yaml-rows.c walks the document over the
 * tables of scenarios/schema.h (defaults first, then the given values);
 * this file adds what is the scenario's own: `model:` given as a mapping
 * (a config.json instead of a catalog name), the map layout of
 * policy.params, and, after the walk, the cross-field checks, which read
 * where each key was given from the walker's seen list. */
#include "scenarios/load.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/cluster/cluster.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/train/train.h"
#include "scenarios/schema.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

struct ctx {
    struct sim_yaml y;
};

/* Short names for the walker's error and seen list, used by every check
 * below. */
static void error_at(struct ctx *c, int line, int col, const char *fmt, ...)
    SIM_PRINTF(4, 5);

static void error_at(struct ctx *c, int line, int col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_yaml_verror(&c->y, line, col, fmt, ap);
    va_end(ap);
}

static const struct sim_yaml_seen *find_seen(const struct ctx *c,
                                             const char *path)
{
    return sim_yaml_seen(&c->y, path);
}

/* Is path (a printf format) given? */
static const struct sim_yaml_seen *seenf(const struct ctx *c, const char *fmt,
                                         ...) SIM_PRINTF(2, 3);

static const struct sim_yaml_seen *seenf(const struct ctx *c, const char *fmt,
                                         ...)
{
    char path[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    return find_seen(c, path);
}

/* model: {hf_config: PATH} instead of a catalog name: the mapping fills
 * s->model_src through its own rows. */
static int take_model(struct sim_yaml *y, const struct sim_param *p,
                      yaml_node_t *key, yaml_node_t *val, void *base,
                      const char *path)
{
    if (p != sim_param_find(scn_schema, "model") ||
        val->type != YAML_MAPPING_NODE)
        return 0;
    sim_yaml_walk_section(y, cl_model_src_rows, val,
                          (char *)base +
                              offsetof(struct cl_scenario, model_src),
                          path, sim_yaml_line(key), sim_yaml_col(key));
    return 1;
}

/* policy.params, the only map of scalars a scenario has: kept as text
 * with the value's position for the policy's own rows. */
static void fill_policy_param(void *elem, const char *key, const char *value,
                              const struct sim_yaml_seen *at)
{
    struct cl_policy_param *pp = elem;

    pp->key = xstrdup(key);
    pp->value = xstrdup(value);
    pp->pos.line = at->vline;
    pp->pos.col = at->vcol;
}

static const struct sim_yaml_ops scn_yaml_ops = {
    .take = take_model,
    .map_fill = fill_policy_param,
    .map_size = sizeof(struct cl_policy_param),
};

/* Where a section's key is, or the root when the section was not given. */
static void section_pos(const struct ctx *c, const char *path, int *line,
                        int *col)
{
    const struct sim_yaml_seen *s = find_seen(c, path);

    *line = s ? s->kline : c->y.root_line;
    *col = s ? s->kcol : c->y.root_col;
}

/* Reports path.key as "not used by <what>" when it was given. */
static void not_used(struct ctx *c, const char *path, const char *key,
                     const char *what)
{
    const struct sim_yaml_seen *s = seenf(c, "%s.%s", path, key);

    if (s != NULL)
        error_at(c, s->kline, s->kcol, "%s.%s: not used by %s", path, key,
                 what);
}

static const char *choice_name(const struct sim_param *rows, const char *key,
                               int value)
{
    const struct sim_param *p = sim_param_find(rows, key);
    const struct sim_param_choice *ch =
        p ? sim_param_choice_by_value(p, value) : NULL;

    return ch ? ch->name : "?";
}

/* Checks that a distribution section holds exactly the keys its kind uses.
 * keys lists the optional keys of the section; used is a bit mask over it
 * of the keys the kind needs, optional a mask of those it may have. */
static void check_dist_keys(struct ctx *c, const char *path,
                            const char *const *keys, unsigned used,
                            unsigned optional, const char *what)
{
    int line, col;

    section_pos(c, path, &line, &col);
    for (int i = 0; keys[i] != NULL; i++) {
        if (used & (1u << i)) {
            if (seenf(c, "%s.%s", path, keys[i]) == NULL)
                error_at(c, line, col, "%s: missing key '%s' (required by %s)",
                         path, keys[i], what);
        } else if (!(optional & (1u << i))) {
            not_used(c, path, keys[i], what);
        }
    }
}

static void check_length_dist(struct ctx *c, const char *path,
                              struct cl_dist *dist,
                              const struct sim_param *rows)
{
    static const char *const keys[] = {"value", "min", "max",
                                       "mean",  "sd",  NULL};
    char what[64];
    unsigned used, optional = 0;

    dist->cv = NAN;
    if (seenf(c, "%s.dist", path) == NULL || dist->kind < 0)
        return; /* already reported */
    switch (dist->kind) {
    case CL_DIST_FIXED:
        used = 1u << 0;
        break;
    case CL_DIST_UNIFORM:
        used = 1u << 1 | 1u << 2;
        break;
    default:
        used = 1u << 3 | 1u << 4;
        optional = 1u << 2; /* max: a cap, as an API's max_tokens */
        break;
    }
    snprintf(what, sizeof(what), "dist %s",
             choice_name(rows, "dist", dist->kind));
    check_dist_keys(c, path, keys, used, optional, what);
    if (dist->kind == CL_DIST_UNIFORM && dist->min > dist->max) {
        const struct sim_yaml_seen *s = seenf(c, "%s.min", path);
        error_at(c, s->vline, s->vcol, "%s.min: %g greater than max %g", path,
                 dist->min, dist->max);
    }
}

/* Finds the rows of a section by its dotted path from the root. */
static const struct sim_param *rows_of(const char *path)
{
    const struct sim_param *rows = scn_schema;
    char buf[128], *save = NULL, *tok;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, ".", &save); tok != NULL && rows != NULL;
         tok = strtok_r(NULL, ".", &save)) {
        const struct sim_param *p = sim_param_find(rows, tok);
        rows = p ? p->sub : NULL;
    }
    return rows;
}

/* Exactly one of path.a and path.b. */
static void exactly_one(struct ctx *c, const char *path, const char *a,
                        const char *b)
{
    const struct sim_yaml_seen *sa = seenf(c, "%s.%s", path, a);
    const struct sim_yaml_seen *sb = seenf(c, "%s.%s", path, b);
    int line, col;

    if (sa != NULL && sb != NULL) {
        const struct sim_yaml_seen *later =
            (sb->kline > sa->kline ||
             (sb->kline == sa->kline && sb->kcol > sa->kcol))
                ? sb
                : sa;
        error_at(c, later->kline, later->kcol,
                 "%s: give exactly one of '%s' or '%s'", later->path, a, b);
    } else if (sa == NULL && sb == NULL) {
        section_pos(c, path, &line, &col);
        error_at(c, line, col, "%s: missing key '%s' or '%s'", path, a, b);
    }
}

/* At most one of diurnal and steps; steps strictly sorted by at. Sets the
 * profile's kind from what was given. */
static void check_profile(struct ctx *c, struct cl_rate_profile *pr)
{
    static const char arr[] = "workload.synthetic.arrival";
    const struct sim_yaml_seen *di = seenf(c, "%s.diurnal", arr);
    const struct sim_yaml_seen *st = seenf(c, "%s.steps", arr);

    pr->kind = CL_PROF_NONE;
    if (di != NULL && st != NULL) {
        const struct sim_yaml_seen *later =
            (st->kline > di->kline ||
             (st->kline == di->kline && st->kcol > di->kcol))
                ? st
                : di;
        error_at(c, later->kline, later->kcol,
                 "%s: give at most one of 'diurnal' or 'steps'", later->path);
        return;
    }
    if (di != NULL)
        pr->kind = CL_PROF_DIURNAL;
    if (st == NULL)
        return;
    pr->kind = CL_PROF_STEPS;
    for (int i = 1; i < pr->nsteps; i++) {
        const struct sim_yaml_seen *at = seenf(c, "%s.steps[%d].at", arr, i);
        const struct sim_yaml_seen *prev =
            seenf(c, "%s.steps[%d].at", arr, i - 1);
        if (at == NULL || prev == NULL)
            continue; /* a missing at, already reported */
        if (pr->steps[i].at_ns <= pr->steps[i - 1].at_ns)
            error_at(c, at->vline, at->vcol,
                     "%s.steps[%d].at: %gs not after steps[%d].at %gs; "
                     "steps must be sorted by at",
                     arr, i, (double)pr->steps[i].at_ns * 1e-9, i - 1,
                     (double)pr->steps[i - 1].at_ns * 1e-9);
    }
}

static void check_workload(struct ctx *c, struct cl_scenario *s)
{
    struct cl_workload *w = &s->workload;
    const struct sim_yaml_seen *syn, *trc;
    int line, col;

    if (find_seen(c, "workload") == NULL)
        return; /* reported as a missing key */
    syn = find_seen(c, "workload.synthetic");
    trc = find_seen(c, "workload.trace");
    exactly_one(c, "workload", "synthetic", "trace");
    w->kind = trc != NULL && syn == NULL ? CL_WL_TRACE : CL_WL_SYNTHETIC;
    w->synthetic.prompt_tokens.cv = NAN;
    w->synthetic.output_tokens.cv = NAN;
    if (syn == NULL)
        return;

    exactly_one(c, "workload.synthetic", "requests", "duration");
    if (find_seen(c, "workload.synthetic.arrival") != NULL) {
        struct cl_arrival *a = &w->synthetic.arrival;
        const char *proc = choice_name(rows_of("workload.synthetic.arrival"),
                                       "process", a->process);
        char what[64];
        snprintf(what, sizeof(what), "process %s", proc);
        if (a->process == CL_ARR_GAMMA) {
            if (find_seen(c, "workload.synthetic.arrival.cv") == NULL) {
                section_pos(c, "workload.synthetic.arrival", &line, &col);
                error_at(c, line, col,
                         "workload.synthetic.arrival: missing key 'cv' "
                         "(required by process gamma)");
            }
        } else {
            not_used(c, "workload.synthetic.arrival", "cv", what);
            a->cv = NAN;
        }
    }

    check_profile(c, &w->synthetic.arrival.profile);

    static const char *const lens[] = {"prompt_tokens", "output_tokens"};
    struct cl_dist *dists[] = {&w->synthetic.prompt_tokens,
                               &w->synthetic.output_tokens};
    const struct sim_param *rows = rows_of("workload.synthetic.prompt_tokens");
    for (int i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof(path), "workload.synthetic.%s", lens[i]);
        if (find_seen(c, path) != NULL) {
            check_length_dist(c, path, dists[i], rows);
        } else if (s->server.kind == CL_SRV_LLM) {
            error_at(c, syn->kline, syn->kcol,
                     "workload.synthetic: missing key '%s' (required by "
                     "server kind llm)",
                     lens[i]);
        } else {
            dists[i]->kind = CL_DIST_FIXED;
            dists[i]->value = 1;
        }
    }
    if (find_seen(c, "workload.synthetic.sessions") != NULL) {
        struct cl_sessions *ss = &w->synthetic.sessions;
        ss->enabled = 1;
        if (find_seen(c, "workload.synthetic.sessions.turns") != NULL) {
            check_length_dist(c, "workload.synthetic.sessions.turns",
                              &ss->turns, rows);
        } else {
            ss->turns.kind = CL_DIST_FIXED;
            ss->turns.value = 4;
        }
    }
}

static void check_server(struct ctx *c, struct cl_scenario *s)
{
    static const char *const service_keys[] = {"sd_s", "cv", NULL};
    struct cl_server *sv = &s->server;
    int line, col;

    if (find_seen(c, "server.kind") == NULL)
        sv->kind = s->model != NULL || s->model_src.hf_config != NULL ||
                           s->deploy.model_path != NULL
                       ? CL_SRV_LLM
                       : CL_SRV_ABSTRACT;
    sv->service.value = sv->service.min = sv->service.max = NAN;
    if (sv->kind < 0)
        return; /* an unknown kind, already reported */
    if (sv->kind == CL_SRV_LLM) {
        const struct sim_yaml_seen *hr =
            find_seen(c, "workload.prefix_hit_rate");
        for (const struct sim_param *p = cl_server_rows; p->key != NULL; p++)
            if (p->flags & CL_PF_ABSTRACT)
                not_used(c, "server", p->key, "kind llm");
        if (hr != NULL && !sv->prefix_caching)
            error_at(c, hr->kline, hr->kcol,
                     "workload.prefix_hit_rate: needs "
                     "server.prefix_caching: true");
        return;
    }
    for (const struct sim_param *p = cl_server_rows; p->key != NULL; p++)
        if (p->flags & CL_PF_LLM)
            not_used(c, "server", p->key, "kind abstract");
    if (find_seen(c, "server.service") == NULL) {
        section_pos(c, "server", &line, &col);
        error_at(c, line, col,
                 "server: missing key 'service' (required by kind abstract)");
        return;
    }
    if (find_seen(c, "server.service.dist") != NULL && sv->service.kind >= 0) {
        unsigned used = 0;
        char what[64];
        if (sv->service.kind == CL_DIST_LOGNORMAL)
            used = 1u << 0;
        else if (sv->service.kind == CL_DIST_GAMMA)
            used = 1u << 1;
        snprintf(
            what, sizeof(what), "dist %s",
            choice_name(rows_of("server.service"), "dist", sv->service.kind));
        check_dist_keys(c, "server.service", service_keys, used, 0, what);
    }
}

static void check_cluster(struct ctx *c, struct cl_scenario *s)
{
    struct cl_cluster *cl = &s->cluster;
    const struct sim_yaml_seen *r = find_seen(c, "cluster.replicas");
    const struct sim_yaml_seen *mn = find_seen(c, "cluster.min_gpus");
    const struct sim_yaml_seen *mx = find_seen(c, "cluster.max_gpus");
    int line, col;

    if (r != NULL && (mn != NULL || mx != NULL)) {
        error_at(c, r->kline, r->kcol,
                 "cluster.replicas: give either replicas or min_gpus and "
                 "max_gpus, not both");
    } else if ((mn == NULL) != (mx == NULL)) {
        section_pos(c, "cluster", &line, &col);
        error_at(c, line, col,
                 "cluster: missing key '%s' (min_gpus and max_gpus go "
                 "together)",
                 mn == NULL ? "min_gpus" : "max_gpus");
    } else if (mn != NULL && cl->min_gpus > 0 && cl->max_gpus > 0 &&
               cl->min_gpus > cl->max_gpus) {
        error_at(c, mn->vline, mn->vcol,
                 "cluster.min_gpus: %d greater than max_gpus %d", cl->min_gpus,
                 cl->max_gpus);
    } else if (r == NULL && mn == NULL) {
        cl->replicas = 1;
    }
    if (s->slo.tpot_ns < 0 && cl->target_latency_ns > 0)
        s->slo.tpot_ns = cl->target_latency_ns;

    const struct sim_yaml_seen *dg = find_seen(c, "deploy.disaggregation");
    if (dg != NULL) {
        struct cl_disagg *g = &s->deploy.disaggregation;
        int sum = g->prefill_replicas + g->decode_replicas;
        g->enabled = 1;
        if (mn != NULL || mx != NULL)
            error_at(c, dg->kline, dg->kcol,
                     "deploy.disaggregation: needs a static cluster "
                     "(cluster.replicas), not min_gpus/max_gpus");
        else if (s->server.kind != CL_SRV_LLM)
            error_at(c, dg->kline, dg->kcol,
                     "deploy.disaggregation: needs server kind llm");
        else if (r != NULL && g->prefill_replicas > 0 &&
                 g->decode_replicas > 0 && cl->replicas != sum)
            error_at(c, r->vline, r->vcol,
                     "cluster.replicas: %d differs from "
                     "deploy.disaggregation prefill_replicas + "
                     "decode_replicas = %d",
                     cl->replicas, sum);
        else if (g->prefill_replicas > 0 && g->decode_replicas > 0)
            cl->replicas = sum;
    }

    const struct sim_yaml_seen *ig = find_seen(c, "cluster.initial_gpus");
    if (ig != NULL && mn == NULL && mx == NULL) {
        error_at(c, ig->kline, ig->kcol,
                 "cluster.initial_gpus: not used by a static cluster (give "
                 "min_gpus and max_gpus)");
    } else if (ig != NULL && cl->initial_gpus > 0 && cl->min_gpus > 0 &&
               cl->max_gpus > 0 &&
               (cl->initial_gpus < cl->min_gpus ||
                cl->initial_gpus > cl->max_gpus)) {
        error_at(c, ig->vline, ig->vcol,
                 "cluster.initial_gpus: %d outside [min_gpus, max_gpus] = "
                 "[%d, %d]",
                 cl->initial_gpus, cl->min_gpus, cl->max_gpus);
    }
}

/* Pools: only for elastic clusters; names unique; provisioning keys fit the
 * distribution; grace only for borrowable pools; total capacity covers
 * min_gpus. */
static void check_pools(struct ctx *c, struct cl_scenario *s)
{
    static const char *const prov_keys[] = {"sd_s", "cv", NULL};
    const struct sim_yaml_seen *pk = find_seen(c, "pools");
    long total = 0;

    if (pk == NULL)
        return;
    if (find_seen(c, "cluster.min_gpus") == NULL ||
        find_seen(c, "cluster.max_gpus") == NULL) {
        error_at(c, pk->kline, pk->kcol,
                 "pools: needs an elastic cluster (cluster.min_gpus and "
                 "max_gpus)");
        return;
    }
    for (int i = 0; i < s->npools; i++) {
        struct cl_pool *pl = &s->pools[i];
        char path[64];

        total += pl->capacity_gpus > 0 ? pl->capacity_gpus : 0;
        for (int j = 0; j < i && pl->name != NULL; j++)
            if (s->pools[j].name != NULL &&
                strcmp(s->pools[j].name, pl->name) == 0) {
                const struct sim_yaml_seen *n = seenf(c, "pools[%d].name", i);
                error_at(c, n->vline, n->vcol,
                         "pools[%d].name: duplicate pool name '%s' (also "
                         "pools[%d])",
                         i, pl->name, j);
                break;
            }
        if (!pl->borrowable) {
            snprintf(path, sizeof(path), "pools[%d]", i);
            not_used(c, path, "grace", "a pool that is not borrowable");
        }
        snprintf(path, sizeof(path), "pools[%d].provision", i);
        if (find_seen(c, path) != NULL && pl->provision.kind >= 0) {
            unsigned used = 0;
            char what[64];
            if (pl->provision.kind == CL_DIST_LOGNORMAL)
                used = 1u << 0;
            else if (pl->provision.kind == CL_DIST_GAMMA)
                used = 1u << 1;
            snprintf(what, sizeof(what), "dist %s",
                     choice_name(rows_of("pools.provision"), "dist",
                                 pl->provision.kind));
            check_dist_keys(c, path, prov_keys, used, 0, what);
        }
        pl->provision.value =
            pl->provision.kind == CL_DIST_FIXED ? pl->provision.mean : NAN;
        pl->provision.min = pl->provision.max = NAN;
    }
    if (s->cluster.min_gpus > 0 && total < s->cluster.min_gpus)
        error_at(c, pk->kline, pk->kcol,
                 "pools: total capacity_gpus %ld less than cluster.min_gpus "
                 "%d",
                 total, s->cluster.min_gpus);
}

/* training: a catalog model, a known pool and GPU, a layout string that
 * parses for its gpus, and at most one of checkpoint.every_steps and
 * interval. Runs after the GPUs are resolved. */
static void check_training(struct ctx *c, struct cl_scenario *s)
{
    struct train_config *t = &s->training;
    const struct sim_yaml_seen *k;

    if (find_seen(c, "training") == NULL)
        return;
    if (t->model != NULL && arch_find(t->model) == NULL &&
        (k = find_seen(c, "training.model")) != NULL) {
        char *names = arch_names();
        error_at(c, k->vline, k->vcol,
                 "training.model: unknown model '%s'; valid: %s", t->model,
                 names);
        free(names);
    }
    if (t->pool != NULL && (k = find_seen(c, "training.pool")) != NULL) {
        int found = 0;
        for (int i = 0; i < s->npools; i++)
            found |= s->pools[i].name != NULL &&
                     strcmp(s->pools[i].name, t->pool) == 0;
        if (!found) {
            char names[512] = "";
            size_t used = 0;
            for (int i = 0; i < s->npools && used < sizeof(names); i++) {
                int n = snprintf(names + used, sizeof(names) - used, "%s%s",
                                 i ? ", " : "", s->pools[i].name);
                if (n < 0)
                    break;
                used += (size_t)n;
            }
            error_at(c, k->vline, k->vcol,
                     "training.pool: unknown pool '%s'; valid: %s", t->pool,
                     s->npools > 0 ? names : "(no pools given)");
        }
    }
    if (t->gpu != NULL && cl_gpu_find(s, t->gpu) == NULL &&
        (k = find_seen(c, "training.gpu")) != NULL) {
        char *names = cl_gpu_names(s);
        error_at(c, k->vline, k->vcol,
                 "training.gpu: unknown gpu '%s'; valid: %s", t->gpu, names);
        free(names);
    }
    if (t->layout != NULL && t->gpus > 0 &&
        (k = find_seen(c, "training.layout")) != NULL) {
        struct layout l = {.ep = 1};
        char err[160];

        if (train_layout_parse(t->layout, t->gpus, &l, err, sizeof(err)) != 0)
            error_at(c, k->vline, k->vcol, "training.layout: %s", err);
    }
    if (find_seen(c, "training.checkpoint.every_steps") != NULL &&
        find_seen(c, "training.checkpoint.interval") != NULL)
        exactly_one(c, "training.checkpoint", "every_steps", "interval");
}

/* path resolved against the directory of the scenario file name (as
 * workload.trace.path is): absolute paths and names without a directory
 * part stay as they are. Caller frees. */
static char *scenario_relative(const char *name, const char *path)
{
    const char *slash = strrchr(name, '/');
    size_t dir;
    char *out;

    if (path[0] == '/' || slash == NULL)
        return xstrdup(path);
    dir = (size_t)(slash - name) + 1;
    out = xmalloc(dir + strlen(path) + 1);
    memcpy(out, name, dir);
    strcpy(out + dir, path);
    return out;
}

/* model.hf_config: read the config.json into s->model_arch. */
static void resolve_hf_config(struct ctx *c, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = find_seen(c, "model.hf_config");
    char why[512], *path;

    if (s->model_src.hf_config == NULL || at == NULL)
        return;
    path = scenario_relative(c->y.file, s->model_src.hf_config);
    if (arch_hf_load(path, &s->model_arch, why, sizeof(why)) != 0) {
        /* why is "FILE[:LINE:COL]: error: WHAT": keep the place, drop the
         * second "error:" so the line reads as one diagnostic. */
        char *e = strstr(why, ": error: ");
        if (e != NULL)
            memmove(e + 2, e + 9, strlen(e + 9) + 1);
        error_at(c, at->vline, at->vcol, "model.hf_config: %s", why);
    }
    free(path);
}

/* hardware.calibration: read the profile into s->calib; its own errors
 * name the profile's lines. */
static void resolve_calibration(struct ctx *c, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = find_seen(c, "hardware.calibration");
    char *path;

    if (s->hardware.calibration == NULL || at == NULL)
        return;
    path = scenario_relative(c->y.file, s->hardware.calibration);
    s->calib = xcalloc(1, sizeof(*s->calib));
    if (perf_calib_load(path, s->calib, c->y.d) != 0) {
        error_at(c, at->vline, at->vcol,
                 "hardware.calibration: cannot use profile '%s'", path);
        free(s->calib);
        s->calib = NULL;
    }
    free(path);
}

/* hardware.gpus: build each definition on its base (or from scratch) and
 * check it like a catalog entry. */
static void resolve_gpus(struct ctx *c, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = find_seen(c, "hardware.gpus");
    char why[256];

    if (s->hardware.ngpus == 0 || at == NULL)
        return;
    s->gpu_specs = xcalloc((size_t)s->hardware.ngpus, sizeof(*s->gpu_specs));
    for (int i = 0; i < s->hardware.ngpus; i++) {
        const struct cl_gpu_def *d = &s->hardware.gpus[i];
        struct gpu_spec *g = &s->gpu_specs[i];
        const struct sim_yaml_seen *nm = seenf(c, "hardware.gpus[%d].name", i);
        const struct sim_yaml_seen *bs = seenf(c, "hardware.gpus[%d].base", i);

        if (nm != NULL)
            at = nm;

        for (int j = 0; j < i; j++)
            if (strcasecmp(s->hardware.gpus[j].name, d->name) == 0)
                error_at(c, at->kline, at->kcol,
                         "hardware.gpus[%d]: name '%s' defined twice", i,
                         d->name);
        if (d->base != NULL) {
            const struct gpu_spec *b = gpu_find(d->base);
            if (b == NULL) {
                char *names = gpu_names();
                error_at(c, bs != NULL ? bs->vline : at->kline,
                         bs != NULL ? bs->vcol : at->kcol,
                         "hardware.gpus[%d].base: unknown gpu '%s'; valid: "
                         "%s",
                         i, d->base, names);
                free(names);
                continue;
            }
            *g = *b;
        } else {
            memset(g, 0, sizeof(*g));
        }
        g->name = d->name;
        g->summary = "defined inline in the scenario (hardware.gpus)";
        g->source = d->base != NULL ? "scenario hardware.gpus on a catalog base"
                                    : "scenario hardware.gpus";
        if (!isnan(d->flops_bf16))
            g->flops_bf16 = d->flops_bf16;
        if (!isnan(d->flops_fp8))
            g->flops_fp8 = d->flops_fp8;
        if (!isnan(d->flops_int8))
            g->flops_int8 = d->flops_int8;
        if (!isnan(d->hbm_bytes))
            g->hbm_bytes = (int64_t)d->hbm_bytes;
        if (!isnan(d->hbm_bytes_per_s))
            g->hbm_bytes_per_s = d->hbm_bytes_per_s;
        if (!isnan(d->nvlink_bytes_per_s))
            g->nvlink_bytes_per_s = d->nvlink_bytes_per_s;
        if (d->nvlink_latency_ns >= 0)
            g->nvlink_latency_ns = d->nvlink_latency_ns;
        if (!isnan(d->pcie_bytes_per_s))
            g->pcie_bytes_per_s = d->pcie_bytes_per_s;
        if (!isnan(d->price_usd_per_gpu_hour)) {
            g->price_usd_per_hour = d->price_usd_per_gpu_hour;
            g->price_source = "scenario hardware.gpus";
        }
        if (gpu_spec_check(g, why, sizeof(why)) != 0)
            error_at(c, at->kline, at->kcol, "hardware.gpus[%d] (%s): %s%s", i,
                     d->name, why,
                     d->base == NULL ? " (give it, or a catalog base)" : "");
    }
}

static struct cl_pos pos_of(const struct ctx *c, const char *path)
{
    const struct sim_yaml_seen *s = find_seen(c, path);
    struct cl_pos p = {0, 0};

    if (s != NULL) {
        p.line = s->vline;
        p.col = s->vcol;
    }
    return p;
}

static char *default_name(const char *file)
{
    const char *b = strrchr(file, '/');
    size_t n;

    b = b ? b + 1 : file;
    n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(b + n - 4, ".yml") == 0)
        n -= 4;
    return xstrndup(b, n);
}

int scn_string_load(const char *name, const char *text, size_t len,
                    struct cl_scenario *out, struct sim_diag *d)
{
    struct cl_scenario s;
    struct ctx c;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    sim_yaml_init(&c.y, name, d, &scn_yaml_ops);
    rc = sim_yaml_parse(&c.y, text, len, SCN_MAX_TEXT_BYTES);
    if (rc != 0)
        goto out_doc;
    s.rows = scn_schema;
    sim_yaml_defaults(scn_schema, &s, "scenario");
    if (sim_yaml_walk(&c.y, scn_schema, &s, "a mapping of scenario keys") ==
        0) {
        check_server(&c, &s);
        check_workload(&c, &s);
        check_cluster(&c, &s);
        check_pools(&c, &s);
        if (c.y.errors == 0) {
            resolve_hf_config(&c, &s);
            resolve_gpus(&c, &s);
            resolve_calibration(&c, &s);
            check_training(&c, &s);
        }
    }

    if (c.y.errors > 0) {
        rc = SIM_EINVAL;
        goto out_doc;
    }
    if (s.name == NULL)
        s.name = default_name(name);
    s.file = xstrdup(name);
    s.text = xstrndup(text, len);
    s.pos.model = pos_of(&c, "model");
    s.pos.deploy_model_path = pos_of(&c, "deploy.model_path");
    s.pos.deploy_tp = pos_of(&c, "deploy.tp");
    s.pos.deploy_weight_dtype = pos_of(&c, "deploy.weight_dtype");
    s.pos.hardware_gpu = pos_of(&c, "hardware.gpu");
    s.pos.cluster_min_gpus = pos_of(&c, "cluster.min_gpus");
    s.pos.workload_trace_path = pos_of(&c, "workload.trace.path");
    s.pos.policy_name = pos_of(&c, "policy.name");
    s.pos.model_hf_config = pos_of(&c, "model.hf_config");
    s.pos.hardware_calibration = pos_of(&c, "hardware.calibration");
    if (find_seen(&c, "hardware.gpus") != NULL) {
        s.pos.hardware_gpus.line = find_seen(&c, "hardware.gpus")->kline;
        s.pos.hardware_gpus.col = find_seen(&c, "hardware.gpus")->kcol;
    }
    if (find_seen(&c, "pools") != NULL) {
        s.pos.pools.line = find_seen(&c, "pools")->kline;
        s.pos.pools.col = find_seen(&c, "pools")->kcol;
    }
    *out = s;
    memset(&s, 0, sizeof(s));

out_doc:
    cl_scenario_fini(&s);
    sim_yaml_fini(&c.y);
    return rc;
}

int scn_file_load(const char *path, struct cl_scenario *out, struct sim_diag *d)
{
    size_t len = 0;
    char *buf;
    int rc;

    memset(out, 0, sizeof(*out));
    buf = sim_yaml_read_file(path, SCN_MAX_TEXT_BYTES, &len, d);
    if (buf == NULL)
        return SIM_EIO;
    rc = scn_string_load(path, buf, len, out, d);
    free(buf);
    return rc;
}

int scn_scenario_open(const char *path, const struct scn_open_opts *opts,
                      struct cl_scenario *out, struct sim_diag *d)
{
    static const struct scn_open_opts none;
    int rc;

    if (opts == NULL)
        opts = &none;
    if (opts->text != NULL)
        rc = scn_string_load(path, opts->text, opts->len, out, d);
    else
        rc = scn_file_load(path, out, d);
    if (rc != 0)
        return rc;
    rc = cl_scenario_check(out, opts->plan, d);
    if (rc != 0 && !(rc == SIM_EINFEASIBLE && opts->keep_infeasible))
        cl_scenario_fini(out);
    return rc;
}
