/* The scenario loader: base/yaml-rows.c walks the document over the
 * tables of scenarios/schema.h (defaults first, then the given values);
 * this file adds what is the scenario's own: `model:` given as a mapping
 * (a config.json instead of a catalog name), the map layout of
 * policy.params, and the pipeline after the walk: the cross-field checks
 * of each section, which live with the section's owner (cl_server_check(),
 * wl_workload_check(), cl_cluster_check(), cl_pools_check(),
 * train_config_check()) and read where each key was given from the
 * walker's seen list, called in order; then the files and definitions the
 * scenario names (the model's config.json, the inline GPUs, the
 * calibration profile, the spot pools' interruption traces), resolved
 * here. */
#include "scenarios/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/arch/hf.h"
#include "models/cluster/cluster.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/policy/policy.h"
#include "scenarios/schema.h"
#include "base/errors.h"
#include "base/fmt.h"
#include "base/param.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"

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
static void resolve_hf_config(struct sim_yaml *y, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = sim_yaml_seen(y, "model.hf_config");
    char why[512], *path;

    if (s->model_src.hf_config == NULL || at == NULL)
        return;
    path = scenario_relative(y->file, s->model_src.hf_config);
    if (arch_hf_load(path, &s->model_arch, why, sizeof(why)) != 0) {
        /* why is "FILE[:LINE:COL]: error: WHAT": keep the place, drop the
         * second "error:" so the line reads as one diagnostic. */
        char *e = strstr(why, ": error: ");
        if (e != NULL)
            memmove(e + 2, e + 9, strlen(e + 9) + 1);
        sim_yaml_error(y, at->vline, at->vcol, "model.hf_config: %s", why);
    }
    free(path);
}

/* policy.plugin: load the shared object; its entry is the policy. A
 * policy.name given too must be the plug-in's. */
static void resolve_plugin(struct sim_yaml *y, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = sim_yaml_seen(y, "policy.plugin");
    const struct pol_entry *e;
    char why[512], *dir, *slash;

    if (s->policy.plugin == NULL || at == NULL)
        return;
    dir = xstrdup(y->file);
    slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    e = pol_plugin_load(s->policy.plugin, slash != NULL ? dir : NULL, why,
                        sizeof(why));
    free(dir);
    if (e == NULL) {
        sim_yaml_error(y, at->vline, at->vcol, "policy.plugin: %s", why);
        return;
    }
    if (s->policy.name != NULL && strcasecmp(s->policy.name, e->name) != 0) {
        const struct sim_yaml_seen *nm = sim_yaml_seen(y, "policy.name");
        sim_yaml_error(y, nm != NULL ? nm->vline : at->vline,
                       nm != NULL ? nm->vcol : at->vcol,
                       "policy.name: '%s', but the plug-in's policy is "
                       "'%s'; give one of them",
                       s->policy.name, e->name);
        return;
    }
    free(s->policy.name);
    s->policy.name = xstrdup(e->name);
    s->policy.entry = e;
}

/* hardware.calibration: read the profile into s->calib; its own errors
 * name the profile's lines. */
static void resolve_calibration(struct sim_yaml *y, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = sim_yaml_seen(y, "hardware.calibration");
    char *path;

    if (s->hardware.calibration == NULL || at == NULL)
        return;
    path = scenario_relative(y->file, s->hardware.calibration);
    s->calib = xcalloc(1, sizeof(*s->calib));
    if (perf_calib_load(path, s->calib, y->d) != 0) {
        sim_yaml_error(y, at->vline, at->vcol,
                       "hardware.calibration: cannot use profile '%s'", path);
        free(s->calib);
        s->calib = NULL;
    }
    free(path);
}

/* pools[].interruptions.trace: read each pool's trace file; its own errors
 * name the trace's lines. */
static void resolve_interruption_traces(struct sim_yaml *y,
                                        struct cl_scenario *s)
{
    for (int i = 0; i < s->npools; i++) {
        struct cl_pool *pl = &s->pools[i];
        const struct sim_yaml_seen *at =
            sim_yaml_seenf(y, "pools[%d].interruptions.trace", i);
        char *path;

        if (pl->interruptions.trace == NULL || at == NULL)
            continue;
        path = scenario_relative(y->file, pl->interruptions.trace);
        if (cl_interruption_trace_load(path, pl->capacity_gpus,
                                       &pl->interruptions, y->d) != 0)
            sim_yaml_error(y, at->vline, at->vcol,
                           "pools[%d].interruptions.trace: cannot use trace "
                           "'%s'",
                           i, path);
        free(path);
    }
}

/* start: the time of day at t = 0, and the phase of a diurnal cycle it
 * sets: a day's clock scaled to the period (09:00 is 3/8 of any cycle). */
static void resolve_start(struct sim_yaml *y, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = sim_yaml_seen(y, "start");
    struct cl_rate_profile *pr = &s->workload.synthetic.arrival.profile;
    long long ns;

    if (s->start == NULL || at == NULL)
        return;
    if (sim_clock_parse(s->start, &ns) != 0) {
        sim_yaml_error(y, at->vline, at->vcol,
                       "start: expected a time of day \"HH:MM\" or "
                       "\"HH:MM:SS\" (24-hour, e.g. \"09:00\"), got '%s'",
                       s->start);
        return;
    }
    s->start_ns = ns;
    if (pr->kind == CL_PROF_DIURNAL && pr->period_ns > 0)
        pr->phase_ns =
            (int64_t)llround((double)ns / 86400e9 * (double)pr->period_ns);
}

/* hardware.gpus: build each definition on its base (or from scratch) and
 * check it like a catalog entry. */
static void resolve_gpus(struct sim_yaml *y, struct cl_scenario *s)
{
    const struct sim_yaml_seen *at = sim_yaml_seen(y, "hardware.gpus");
    char why[256];

    if (s->hardware.ngpus == 0 || at == NULL)
        return;
    s->gpu_specs = xcalloc((size_t)s->hardware.ngpus, sizeof(*s->gpu_specs));
    for (int i = 0; i < s->hardware.ngpus; i++) {
        const struct cl_gpu_def *d = &s->hardware.gpus[i];
        struct gpu_spec *g = &s->gpu_specs[i];
        const struct sim_yaml_seen *nm =
            sim_yaml_seenf(y, "hardware.gpus[%d].name", i);
        const struct sim_yaml_seen *bs =
            sim_yaml_seenf(y, "hardware.gpus[%d].base", i);

        if (nm != NULL)
            at = nm;

        for (int j = 0; j < i; j++)
            if (strcasecmp(s->hardware.gpus[j].name, d->name) == 0)
                sim_yaml_error(y, at->kline, at->kcol,
                               "hardware.gpus[%d]: name '%s' defined twice", i,
                               d->name);
        if (d->base != NULL) {
            const struct gpu_spec *b = gpu_find(d->base);
            if (b == NULL) {
                char *names = gpu_names();
                sim_yaml_error(
                    y, bs != NULL ? bs->vline : at->kline,
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
            /* The base's provenance is not this price's. */
            memset(&g->price_src, 0, sizeof(g->price_src));
        }
        if (gpu_spec_check(g, why, sizeof(why)) != 0)
            sim_yaml_error(y, at->kline, at->kcol,
                           "hardware.gpus[%d] (%s): %s%s", i, d->name, why,
                           d->base == NULL ? " (give it, or a catalog base)"
                                           : "");
    }
}

static struct cl_pos pos_of(const struct sim_yaml *y, const char *path)
{
    const struct sim_yaml_seen *s = sim_yaml_seen(y, path);
    struct cl_pos p = {0, 0};

    if (s != NULL) {
        p.line = s->vline;
        p.col = s->vcol;
    }
    return p;
}

/* Where a layout error of P/D group name is reported (struct
 * cl_scenario_pos): the group's ep or tp value, its section key, the
 * top-level ep or tp value, the disaggregation key. */
static struct cl_pos pd_layout_pos(const struct sim_yaml *y, const char *name)
{
    char path[64];
    const struct sim_yaml_seen *k;
    struct cl_pos p;

    snprintf(path, sizeof(path), "deploy.disaggregation.%s.ep", name);
    if ((p = pos_of(y, path)).line > 0)
        return p;
    snprintf(path, sizeof(path), "deploy.disaggregation.%s.tp", name);
    if ((p = pos_of(y, path)).line > 0)
        return p;
    snprintf(path, sizeof(path), "deploy.disaggregation.%s", name);
    k = sim_yaml_seen(y, path);
    if (k == NULL && (p = pos_of(y, "deploy.ep")).line > 0)
        return p;
    if (k == NULL && (p = pos_of(y, "deploy.tp")).line > 0)
        return p;
    if (k == NULL)
        k = sim_yaml_seen(y, "deploy.disaggregation");
    p.line = k != NULL ? k->kline : 0;
    p.col = k != NULL ? k->kcol : 0;
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

/* Where the keys that later checks name were given. */
static void fill_pos(struct sim_yaml *y, struct cl_scenario *sp)
{
    sp->pos.model = pos_of(y, "model");
    sp->pos.deploy_model_path = pos_of(y, "deploy.model_path");
    sp->pos.deploy_tp = pos_of(y, "deploy.tp");
    sp->pos.deploy_weight_dtype = pos_of(y, "deploy.weight_dtype");
    sp->pos.hardware_gpu = pos_of(y, "hardware.gpu");
    sp->pos.cluster_min_gpus = pos_of(y, "cluster.min_gpus");
    sp->pos.workload_trace_path = pos_of(y, "workload.trace.path");
    sp->pos.policy_name = pos_of(y, "policy.name");
    sp->pos.model_hf_config = pos_of(y, "model.hf_config");
    sp->pos.hardware_calibration = pos_of(y, "hardware.calibration");
    sp->pos.server_max_model_len = pos_of(y, "server.max_model_len");
    sp->pos.server_spec_method = pos_of(y, "server.speculative.method");
    for (int g = 0; g < CL_PD_GROUPS; g++)
        sp->pos.pd_layout[g] = pd_layout_pos(y, cl_pd_group_name(g));
    if (sim_yaml_seen(y, "hardware.gpus") != NULL) {
        sp->pos.hardware_gpus.line = sim_yaml_seen(y, "hardware.gpus")->kline;
        sp->pos.hardware_gpus.col = sim_yaml_seen(y, "hardware.gpus")->kcol;
    }
    if (sim_yaml_seen(y, "pools") != NULL) {
        sp->pos.pools.line = sim_yaml_seen(y, "pools")->kline;
        sp->pos.pools.col = sim_yaml_seen(y, "pools")->kcol;
    }
}

int scn_string_load(const char *name, const char *text, size_t len,
                    struct cl_scenario *out, struct sim_diag *d)
{
    struct cl_scenario s;
    struct sim_yaml y;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    sim_yaml_init(&y, name, d, &scn_yaml_ops);
    rc = sim_yaml_parse(&y, text, len, SCN_MAX_TEXT_BYTES);
    if (rc != 0)
        goto out_doc;
    s.rows = scn_schema;
    sim_yaml_defaults(scn_schema, &s, "scenario");
    if (sim_yaml_walk(&y, scn_schema, &s, "a mapping of scenario keys") == 0) {
        cl_server_check(&y, &s);
        wl_workload_check(&y, &s.workload, s.server.kind == CL_SRV_LLM);
        cl_cluster_check(&y, &s);
        cl_pools_check(&y, &s);
        resolve_start(&y, &s);
        if (y.errors == 0) {
            struct train_config_scope ts = cl_train_scope(&s);

            resolve_hf_config(&y, &s);
            resolve_plugin(&y, &s);
            resolve_gpus(&y, &s);
            resolve_calibration(&y, &s);
            resolve_interruption_traces(&y, &s);
            train_config_check(&y, &s.training, &ts);
        }
    }

    if (y.errors > 0) {
        /* The catalogs' names and the policy too, in this round (the
         * policy only when its own keys and the cluster's, which say
         * whether it is elastic, loaded). */
        int policy_ok = 1;
        for (int i = 0; i < d->n; i++)
            policy_ok &= strncmp(d->v[i].msg, "policy", 6) != 0 &&
                         strncmp(d->v[i].msg, "cluster", 7) != 0;
        s.file = xstrdup(name);
        fill_pos(&y, &s);
        cl_scenario_check_names(&s, policy_ok, d);
        rc = SIM_EINVAL;
        goto out_doc;
    }
    if (s.name == NULL)
        s.name = default_name(name);
    s.file = xstrdup(name);
    s.text = xstrndup(text, len);
    fill_pos(&y, &s);
    *out = s;
    memset(&s, 0, sizeof(s));

out_doc:
    cl_scenario_fini(&s);
    sim_yaml_fini(&y);
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
    if (opts->policy != NULL) {
        free(out->policy.name);
        out->policy.name = xstrdup(opts->policy->name);
        out->policy.entry = opts->policy;
    }
    rc = cl_scenario_check(out, opts->plan, d);
    if (rc != 0 && !(rc == SIM_EINFEASIBLE && opts->keep_infeasible))
        cl_scenario_fini(out);
    return rc;
}
