/* The search half of the planner: from the scenario and the options to the
 * list of configurations (chains of sizes per layout and policy), their
 * sweep spec, and the simulations on the sweep's worker pool. A chain runs
 * one size at a time, smallest first, so that it can stop once a size meets
 * the SLO; the chains run side by side, which keeps every thread busy while
 * the decisions of each chain depend on its own results alone. */
/* realpath() is XSI; -D_POSIX_C_SOURCE alone hides it. */
#define _XOPEN_SOURCE 700

#include "config.h"

#include "plan/plan.h"

#include <gsl/gsl_cdf.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "models/cluster/cluster.h"
#include "models/perf/calib.h"
#include "models/policy/policy.h"
#include "reports/db.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/fmt.h"
#include "base/param.h"
#include "base/progress.h"
#include "base/xalloc.h"
#include "sweep/pool.h"
#include "sweep/spec.h"

#define LOOP_WAIT_MS 100
#define BAR_REDRAW_S 0.2
#define LINE_EVERY_S 10.0
#define BAR_WIDTH 24

/* Copies the entries of from into to. */
static void diag_move(struct sim_diag *to, const struct sim_diag *from)
{
    for (int i = 0; i < from->n; i++) {
        const struct sim_diag_entry *e = &from->v[i];
        sim_diag_add(to, e->sev, e->file, e->line, e->col, "%s", e->msg);
    }
}

static const struct arch_spec *model_of(const struct cl_scenario *s)
{
    if (s->model_arch != NULL)
        return s->model_arch;
    if (s->model != NULL)
        return arch_find(s->model);
    return s->deploy.model_path ? arch_find_path(s->deploy.model_path) : NULL;
}

/* Writes s as a single-quoted YAML scalar. */
static void yaml_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', fp);
        fputc(*s, fp);
    }
    fputc('\'', fp);
}

/* Does c calibrate the GPU kind name (its own entry or a default one)? */
static int calib_covers(const struct perf_calib *c, const char *name)
{
    return perf_calib_find_gpu(c, name) != NULL ||
           perf_calib_find_gpu(c, PERF_CALIB_DEFAULT_GPU) != NULL;
}

/* The GPU kinds c has entries for, ", "-separated; caller frees. */
static char *calib_kinds(const struct perf_calib *c)
{
    size_t len = 1;
    char *kinds;

    for (int i = 0; i < c->ngpus; i++)
        len += strlen(c->gpus[i].name) + 2;
    kinds = xcalloc(len, 1);
    for (int i = 0; i < c->ngpus; i++) {
        if (i > 0)
            strcat(kinds, ", ");
        strcat(kinds, c->gpus[i].name);
    }
    return kinds;
}

/* --calibration: loads the profile into the scenario in place of its own
 * (the bound prices layouts with it) and keeps its absolute path for the
 * points' hardware.calibration, since a relative one would be read from
 * the scenario's directory. */
static int apply_calibration(struct plan *p, struct sim_diag *d)
{
    const char *path = p->opts.calibration;
    struct perf_calib *c;

    if (path == NULL)
        return 0;
    c = xcalloc(1, sizeof(*c));
    if (perf_calib_load(path, c, d) != 0) {
        free(c);
        sim_diag_error(d, "dsec plan", 0, 0,
                       "--calibration: cannot use profile '%s'", path);
        return -1;
    }
    p->calib_path = realpath(path, NULL);
    if (p->calib_path == NULL) {
        perf_calib_fini(c);
        free(c);
        sim_diag_error(d, path, 0, 0, "cannot resolve the profile's path");
        return -1;
    }
    perf_calib_fini(p->scn.calib);
    free(p->scn.calib);
    p->scn.calib = c;
    return 0;
}

/* With --calibration: keeps the searched kinds the profile calibrates when
 * --gpus did not name them; a named one it does not calibrate is an
 * error, as dsec run refuses a profile of another GPU kind. */
static int check_calibrated(struct plan *p, struct sim_diag *d)
{
    const struct perf_calib *c = p->scn.calib;
    char *kinds;
    int n = 0;

    if (p->opts.calibration == NULL)
        return 0;
    for (int i = 0; i < p->ngpus; i++) {
        if (calib_covers(c, p->gpus[i]->name)) {
            p->gpus[n++] = p->gpus[i];
            continue;
        }
        if (p->opts.gpus == NULL)
            continue;
        kinds = calib_kinds(c);
        sim_diag_error(d, p->opts.calibration, 0, 0,
                       "the profile calibrates %s, not %s, which --gpus "
                       "searches (a profile measured on another GPU kind "
                       "does not apply)",
                       c->ngpus > 0 ? kinds : "no GPU kind", p->gpus[i]->name);
        free(kinds);
        return -1;
    }
    p->ngpus = n;
    if (n > 0)
        return 0;
    kinds = calib_kinds(c);
    sim_diag_error(d, p->opts.calibration, 0, 0,
                   "the profile calibrates %s, none of them a GPU kind of "
                   "the catalog or the scenario; nothing to search",
                   c->ngpus > 0 ? kinds : "no GPU kind");
    free(kinds);
    return -1;
}

/* With --uncertainty: every searched kind needs uncertainty in the profile
 * in force, or cl_predict() would refuse it after the whole search. */
static int check_uncertain(const struct plan *p, struct sim_diag *d)
{
    const struct perf_calib *c = p->scn.calib;
    struct perf_calib_dist *dist;
    int rc = 0;

    if (p->opts.draws <= 0)
        return 0;
    if (c == NULL) {
        sim_diag_error(d, p->scenario_file, 0, 0,
                       "--uncertainty: the scenario uses the built-in "
                       "calibration, which carries no uncertainty; give a "
                       "profile fitted by dsec-calib (--calibration or "
                       "hardware.calibration)");
        return -1;
    }
    dist = xmalloc(sizeof(*dist));
    for (int i = 0; i < p->ngpus && rc == 0; i++) {
        const struct perf_calib_structural *st = &dist->structural;
        perf_calib_dist_init(c, p->gpus[i]->name, dist);
        if (dist->n > 0 || st->ttft > 0 || st->tpot > 0 || st->e2e > 0)
            continue;
        sim_diag_error(d, c->file ? c->file : p->scenario_file, 0, 0,
                       "--uncertainty: the profile carries no uncertainty "
                       "for GPU kind '%s', which the plan searches (no "
                       "uncertainty.std_errors or structural error in its "
                       "entry, its default entry or its links); leave it "
                       "out of --gpus, or fit it with dsec-calib fit or fit "
                       "--serving",
                       p->gpus[i]->name);
        rc = -1;
    }
    free(dist);
    return rc;
}

static int pick_gpus(struct plan *p, struct sim_diag *d)
{
    const struct cl_scenario *s = &p->scn;
    const struct plan_opts *o = &p->opts;
    int cap = o->gpus ? o->ngpus : s->hardware.ngpus;

    for (int i = 0; gpu_table[i] != NULL; i++)
        cap++;
    p->gpus = xcalloc((size_t)cap + s->npools + 1, sizeof(*p->gpus));
    if (cl_pools_mixed(s)) {
        /* The pools' kinds, once each. */
        for (int i = 0; i < s->npools; i++) {
            const struct gpu_spec *g = cl_gpu_find(
                s, s->pools[i].gpu ? s->pools[i].gpu : s->hardware.gpu);
            int dup = g == NULL;
            for (int k = 0; k < p->ngpus; k++)
                dup |= p->gpus[k] == g;
            if (!dup)
                p->gpus[p->ngpus++] = g;
        }
        return 0;
    }
    if (o->gpus != NULL) {
        for (int i = 0; i < o->ngpus; i++) {
            const struct gpu_spec *g = cl_gpu_find(s, o->gpus[i]);
            int dup = 0;
            if (g == NULL) {
                char *names = cl_gpu_names(s);
                sim_diag_error(d, "dsec plan", 0, 0,
                               "--gpus: unknown gpu '%s'; valid: %s",
                               o->gpus[i], names);
                free(names);
                return -1;
            }
            for (int k = 0; k < p->ngpus; k++)
                dup |= p->gpus[k] == g;
            if (!dup)
                p->gpus[p->ngpus++] = g;
        }
        return 0;
    }
    /* Inline GPUs first, then the catalog's that they do not shadow. */
    for (int i = 0; i < s->hardware.ngpus; i++)
        p->gpus[p->ngpus++] = cl_gpu_find(s, s->hardware.gpus[i].name);
    for (int i = 0; gpu_table[i] != NULL; i++)
        if (cl_gpu_find(s, gpu_table[i]->name) == gpu_table[i])
            p->gpus[p->ngpus++] = gpu_table[i];
    return 0;
}

static int check_policies(struct plan *p, struct sim_diag *d)
{
    const struct plan_opts *o = &p->opts;

    if (o->policies == NULL)
        return 0;
    if (!p->elastic) {
        sim_diag_error(d, "dsec plan", 0, 0,
                       "--policies: %s has a static cluster; policies need "
                       "an elastic one (cluster.min_gpus and max_gpus)",
                       p->scenario_file);
        return -1;
    }
    for (int i = 0; i < o->npolicies; i++)
        if (pol_find(o->policies[i]) == NULL) {
            char *names = pol_names();
            sim_diag_error(d, "dsec plan", 0, 0,
                           "--policies: unknown policy '%s'; valid: %s",
                           o->policies[i], names);
            free(names);
            return -1;
        }
    return 0;
}

/* Applies --duration to the loaded scenario (for the measurement) and
 * remembers the key path that the points set. */
static int apply_duration(struct plan *p, struct sim_diag *d)
{
    struct cl_workload *w = &p->scn.workload;
    char err[SIM_PARAM_ERRLEN];
    int64_t ns;

    if (p->opts.duration == NULL)
        return 0;
    if (sim_duration_parse(p->opts.duration, SIM_U_SECONDS, &ns, err,
                           sizeof(err)) != 0 ||
        ns <= 0) {
        sim_diag_error(d, "dsec plan", 0, 0, "--duration: %s",
                       ns <= 0 ? "expected a positive duration" : err);
        return -1;
    }
    if (w->kind == CL_WL_INFERENCE_PERF || w->kind == CL_WL_VLLM_BENCH) {
        sim_diag_error(d, p->scenario_file, 0, 0,
                       "--duration: the workload's length is set by %s; "
                       "change that instead",
                       w->kind == CL_WL_VLLM_BENCH
                           ? "workload.vllm_bench.num_prompts"
                           : "workload.inference_perf.load.stages");
        return -1;
    }
    if (w->kind == CL_WL_TRACE) {
        w->trace.duration_ns = ns;
        p->duration_key = xstrdup("workload.trace.duration");
    } else if (w->synthetic.requests >= 1) {
        sim_diag_error(d, p->scenario_file, 0, 0,
                       "--duration: the workload ends after "
                       "workload.synthetic.requests; change that instead");
        return -1;
    } else {
        w->synthetic.duration_ns = ns;
        p->duration_key = xstrdup("workload.synthetic.duration");
    }
    return 0;
}

/* A disaggregated scenario: one layout per GPU kind searched, the
 * scenario's two group layouts on it (cl_pd_group_perf_init()); a group
 * that does not fit makes it PLAN_V_MEMORY with the group's reason. */
static void pd_layouts(struct plan *p)
{
    const struct cl_scenario *s = &p->scn;

    p->layouts = xcalloc((size_t)p->ngpus, sizeof(*p->layouts));
    p->nlayouts = (size_t)p->ngpus;
    for (int i = 0; i < p->ngpus; i++) {
        struct plan_layout *l = &p->layouts[i];

        l->gpu = p->gpus[i];
        l->pd = 1;
        l->pp = s->deploy.pp > 1 ? s->deploy.pp : 1;
        l->weight_dtype = s->deploy.weight_dtype;
        l->price_usd_per_gpu_hour =
            !isnan(s->hardware.price_usd_per_gpu_hour) &&
                    cl_gpu_find(s, s->hardware.gpu) == l->gpu
                ? s->hardware.price_usd_per_gpu_hour
                : l->gpu->price_usd_per_hour;
        l->verdict = PLAN_V_FITS;
        for (int k = 0; k < CL_PD_GROUPS; k++) {
            struct perf_replica r;
            char why[512];

            if (cl_pd_group_perf_init(s, p->arch, l->gpu, k, &r, why,
                                      sizeof(why)) != 0) {
                l->verdict = PLAN_V_MEMORY;
                l->why = xasprintf("%s group: %s", cl_pd_group_name(k), why);
                break;
            }
            l->pd_tp[k] = r.tp;
            l->pd_ep[k] = r.ep;
            l->pd_gpus[k] = r.gpus;
        }
        l->tp = l->pd_tp[CL_PD_DECODE];
        l->ep = l->pd_ep[CL_PD_DECODE];
        l->gpus = l->pd_gpus[CL_PD_DECODE];
    }
}

/* The bound of disaggregated layout l: the decode group's from its
 * replica with the TPOT target alone and its own batch caps (its decode
 * share), the prefill group's from its replica with the TTFT target alone
 * (its prefill share). 0, or SIM_EINFEASIBLE with why. */
static int pd_bound(const struct plan *p, struct plan_layout *l, char *why,
                    size_t whylen)
{
    const struct cl_scenario *s = &p->scn;
    const struct plan_workload *w = &p->wl;

    for (int k = 0; k < CL_PD_GROUPS; k++) {
        struct cl_pd_layout gl = cl_pd_layout_resolve(s, k);
        struct plan_target t = p->target;
        struct plan_bound *b = k == CL_PD_PREFILL ? &l->pd_prefill : &l->bound;
        struct perf_replica r;
        double x, need_mean, need_peak;
        char w2[400];

        if (k == CL_PD_PREFILL)
            t.tpot_ns = -1;
        else
            t.ttft_ns = -1;
        t.max_num_seqs = gl.max_num_seqs;
        t.max_num_batched_tokens = gl.max_num_batched_tokens;
        cl_pd_group_perf_init(s, p->arch, l->gpu, k, &r, NULL, 0);
        if (plan_bound_compute(&r, &t, w, b, w2, sizeof(w2)) != 0) {
            snprintf(why, whylen, "%s group: %s", cl_pd_group_name(k), w2);
            return SIM_EINFEASIBLE;
        }
        /* Each group carries its own share only. */
        x = k == CL_PD_PREFILL ? b->prefill_tokens_per_s
                               : b->decode_tokens_per_s;
        need_mean = (k == CL_PD_PREFILL ? w->prompt_mean_tokens
                                        : w->output_mean_tokens) *
                    w->rate_mean_per_s / x;
        need_peak = (k == CL_PD_PREFILL ? w->prompt_mean_tokens
                                        : w->output_mean_tokens) *
                    w->rate_peak_per_s / x;
        b->replicas_mean = need_mean;
        b->replicas_peak = b->replicas_peak_sum = need_peak;
        b->min_replicas = (int)ceil(need_mean - 1e-9);
        if (b->min_replicas < 1)
            b->min_replicas = 1;
        b->peak_replicas = (int)ceil(need_peak - 1e-9);
        if (b->peak_replicas < 1)
            b->peak_replicas = 1;
        b->cap_replicas = (int)ceil(t.headroom * need_peak - 1e-9);
        if (b->cap_replicas < b->min_replicas)
            b->cap_replicas = b->min_replicas;
    }
    return 0;
}

/* The limit on a chain's sizes from --max-gpus and --budget. */
static int size_limit(const struct plan *p, const struct plan_layout *l)
{
    double lim = 1e6;

    if (p->opts.max_gpus > 0)
        lim = floor((double)p->opts.max_gpus / l->gpus);
    if (!isnan(p->opts.budget_usd_per_hour) && l->price_usd_per_gpu_hour > 0) {
        double b = floor(p->opts.budget_usd_per_hour /
                             (l->gpus * l->price_usd_per_gpu_hour) +
                         1e-9);
        lim = b < lim ? b : lim;
    }
    return (int)lim;
}

static void bound_layouts(struct plan *p)
{
    for (size_t i = 0; i < p->nlayouts; i++) {
        struct plan_layout *l = &p->layouts[i];
        struct perf_replica r;
        char why[512];

        if (l->verdict != PLAN_V_FITS)
            continue;
        if (l->pd) {
            if (pd_bound(p, l, why, sizeof(why)) != 0) {
                l->verdict = PLAN_V_SLOW;
                l->why = xstrdup(why);
            }
            continue;
        }
        cl_replica_perf_init(&p->scn, p->arch, l->gpu, l->tp, l->pp, l->ep,
                             l->weight_dtype, &r, NULL, 0);
        if (plan_bound_compute(&r, &p->target, &p->wl, &l->bound, why,
                               sizeof(why)) != 0) {
            l->verdict = PLAN_V_SLOW;
            l->why = xstrdup(why);
        } else if (size_limit(p, l) < 1) {
            l->verdict = PLAN_V_LIMIT;
            l->why =
                xasprintf("one replica (%d gpus, $%.2f/h) exceeds %s", l->gpus,
                          l->gpus * l->price_usd_per_gpu_hour,
                          p->opts.max_gpus > 0 && l->gpus > p->opts.max_gpus
                              ? "--max-gpus"
                              : "--budget");
        }
    }
}

static struct plan_config *add_config(struct plan *p, size_t *cap)
{
    struct plan_config *c;

    if (p->nconfigs == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        p->configs = xrealloc(p->configs, *cap, sizeof(*p->configs));
    }
    c = &p->configs[p->nconfigs++];
    memset(c, 0, sizeof(*c));
    return c;
}

/* The sizes lo..hi, all of them or PLAN_MAX_SIZES spread geometrically
 * (always lo and hi). Returns how many were written to out. */
static int pick_sizes(int lo, int hi, int *out)
{
    int n = 0;

    if (hi - lo + 1 <= PLAN_MAX_SIZES) {
        for (int k = lo; k <= hi; k++)
            out[n++] = k;
        return n;
    }
    for (int i = 0; i < PLAN_MAX_SIZES; i++) {
        int k = (int)lround(
            lo * pow((double)hi / lo, (double)i / (PLAN_MAX_SIZES - 1)));
        if (n == 0 || k > out[n - 1])
            out[n++] = k;
    }
    return n;
}

/* Whether a disaggregated configuration of P prefill and D decode
 * replicas of l stays within --max-gpus and --budget. */
static int pd_within(const struct plan *p, const struct plan_layout *l, int np,
                     int nd)
{
    int g = np * l->pd_gpus[CL_PD_PREFILL] + nd * l->pd_gpus[CL_PD_DECODE];

    if (p->opts.max_gpus > 0 && g > p->opts.max_gpus)
        return 0;
    return isnan(p->opts.budget_usd_per_hour) ||
           g * l->price_usd_per_gpu_hour <= p->opts.budget_usd_per_hour + 1e-9;
}

/* A disaggregated layout's chains: one per decode size, each over the
 * prefill sizes from the smallest up (the search stops a chain at its
 * first size that meets the SLO, as it does a colocated layout's). */
static void pd_chains(struct plan *p, size_t li, size_t *ccap, size_t *chcap)
{
    struct plan_layout *l = &p->layouts[li];
    int ps[PLAN_MAX_SIZES], ds[PLAN_MAX_SIZES];
    int np =
        pick_sizes(l->pd_prefill.min_replicas, l->pd_prefill.cap_replicas, ps);
    int nd = pick_sizes(l->bound.min_replicas, l->bound.cap_replicas, ds);
    size_t before = p->nchains;

    for (int j = 0; j < nd; j++) {
        struct plan_chain *ch;
        int n = 0;

        for (int i = 0; i < np; i++)
            n += pd_within(p, l, ps[i], ds[j]);
        p->counts.over_limit += (size_t)(np - n);
        if (n == 0)
            continue;
        if (p->nconfigs + (size_t)n > PLAN_MAX_CONFIGS) {
            p->counts.too_many += (size_t)n;
            continue;
        }
        if (p->nchains == *chcap) {
            *chcap = *chcap ? 2 * *chcap : 32;
            p->chains = xrealloc(p->chains, *chcap, sizeof(*p->chains));
        }
        ch = &p->chains[p->nchains];
        memset(ch, 0, sizeof(*ch));
        ch->first = p->nconfigs;
        ch->n = (size_t)n;
        ch->met = -1;
        for (int i = 0; i < np; i++) {
            struct plan_config *c;
            if (!pd_within(p, l, ps[i], ds[j]))
                continue;
            c = add_config(p, ccap);
            c->layout = li;
            c->chain = p->nchains;
            c->replicas = c->min_replicas = ps[i];
            c->pd_decode = ds[j];
        }
        p->nchains++;
    }
    if (p->nchains == before) {
        l->verdict = PLAN_V_LIMIT;
        l->why =
            xasprintf("the smallest split (%d prefill + %d decode "
                      "replicas, %d gpus) exceeds %s",
                      l->pd_prefill.min_replicas, l->bound.min_replicas,
                      l->pd_prefill.min_replicas * l->pd_gpus[CL_PD_PREFILL] +
                          l->bound.min_replicas * l->pd_gpus[CL_PD_DECODE],
                      p->opts.max_gpus > 0 ? "--max-gpus" : "--budget");
    }
}

static void build_chains(struct plan *p)
{
    const struct cl_cluster *cl = &p->scn.cluster;
    int npol = p->opts.policies ? p->opts.npolicies : 1;
    size_t ccap = 0, chcap = 0;
    int sizes[PLAN_MAX_SIZES];

    for (size_t li = 0; li < p->nlayouts; li++) {
        struct plan_layout *l = &p->layouts[li];
        const struct plan_bound *b = &l->bound;
        int lo, hi, lim, n;

        if (l->verdict != PLAN_V_FITS)
            continue;
        if (l->pd) {
            pd_chains(p, li, &ccap, &chcap);
            continue;
        }
        lo = b->min_replicas;
        hi = b->cap_replicas;
        lim = size_limit(p, l);
        if (lim < lo) {
            p->counts.below_bound += (size_t)(lo - 1) * (size_t)npol;
            p->counts.over_limit += (size_t)(hi - lo + 1) * (size_t)npol;
            l->verdict = PLAN_V_LIMIT;
            l->why = xasprintf(
                "needs at least %d replicas (%d gpus, "
                "$%.2f/h), over %s",
                lo, lo * l->gpus, lo * l->gpus * l->price_usd_per_gpu_hour,
                p->opts.max_gpus > 0 && lo * l->gpus > p->opts.max_gpus
                    ? "--max-gpus"
                    : "--budget");
            continue;
        }
        n = pick_sizes(lo, hi < lim ? hi : lim, sizes);
        for (int pi = 0; pi < npol; pi++) {
            struct plan_chain *ch;

            if (p->nconfigs + (size_t)n > PLAN_MAX_CONFIGS) {
                p->counts.too_many += (size_t)n;
                continue;
            }
            p->counts.below_bound += (size_t)(lo - 1);
            if (hi > lim)
                p->counts.over_limit += (size_t)(hi - lim);
            p->counts.sampled_out +=
                (size_t)((hi < lim ? hi : lim) - lo + 1 - n);
            if (p->nchains == chcap) {
                chcap = chcap ? 2 * chcap : 32;
                p->chains = xrealloc(p->chains, chcap, sizeof(*p->chains));
            }
            ch = &p->chains[p->nchains];
            memset(ch, 0, sizeof(*ch));
            ch->first = p->nconfigs;
            ch->n = (size_t)n;
            ch->met = -1;
            for (int k = 0; k < n; k++) {
                struct plan_config *c = add_config(p, &ccap);
                c->layout = li;
                c->chain = p->nchains;
                c->policy = p->opts.policies ? p->opts.policies[pi] : NULL;
                c->replicas = sizes[k];
                c->min_replicas = sizes[k];
                if (p->elastic) {
                    int g = l->gpus;
                    int mn = (cl->min_gpus + g - 1) / g;
                    mn = mn < 1 ? 1 : mn;
                    c->min_replicas = mn < sizes[k] ? mn : sizes[k];
                    if (cl->initial_gpus >= 1) {
                        int in = (cl->initial_gpus + g / 2) / g;
                        in = in < c->min_replicas ? c->min_replicas : in;
                        c->initial_replicas = in > sizes[k] ? sizes[k] : in;
                    }
                }
            }
            p->nchains++;
        }
    }
}

/* ---- Mixes of pools with their own layout ------------------------------ */

/* Writes node id of doc as flow YAML: a scalar plain when it is made of
 * [A-Za-z0-9_.] alone (a number, a name, true), else double-quoted; a
 * sequence as [a, b], a mapping as {k: v}; at depth 0 the mapping's
 * members alone, without braces, and without the key skip. Returns -1 for
 * a node it cannot write (an alias loop would be cut by the depth). */
static int flow_write(FILE *fp, yaml_document_t *doc, int id, const char *skip,
                      int depth)
{
    yaml_node_t *n = yaml_document_get_node(doc, id);
    const char *sep = "";

    if (n == NULL || depth > 16)
        return -1;
    switch (n->type) {
    case YAML_SCALAR_NODE: {
        const unsigned char *v = n->data.scalar.value;
        size_t len = n->data.scalar.length;
        int plain = len > 0;

        for (size_t i = 0; i < len && plain; i++)
            plain = (v[i] >= 'a' && v[i] <= 'z') ||
                    (v[i] >= 'A' && v[i] <= 'Z') ||
                    (v[i] >= '0' && v[i] <= '9') || v[i] == '_' || v[i] == '.';
        if (plain) {
            fwrite(v, 1, len, fp);
            return 0;
        }
        fputc('"', fp);
        for (size_t i = 0; i < len; i++) {
            if (v[i] == '"' || v[i] == '\\')
                fprintf(fp, "\\%c", v[i]);
            else if (v[i] < 0x20)
                fprintf(fp, "\\x%02x", v[i]);
            else
                fputc(v[i], fp);
        }
        fputc('"', fp);
        return 0;
    }
    case YAML_SEQUENCE_NODE:
        fputc('[', fp);
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            fputs(sep, fp);
            sep = ", ";
            if (flow_write(fp, doc, *it, NULL, depth + 1) != 0)
                return -1;
        }
        fputc(']', fp);
        return 0;
    case YAML_MAPPING_NODE:
        if (depth > 0)
            fputc('{', fp);
        for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
             pr < n->data.mapping.pairs.top; pr++) {
            yaml_node_t *k = yaml_document_get_node(doc, pr->key);
            if (skip != NULL && k != NULL && k->type == YAML_SCALAR_NODE &&
                strcmp((const char *)k->data.scalar.value, skip) == 0)
                continue;
            fputs(sep, fp);
            sep = ", ";
            if (flow_write(fp, doc, pr->key, NULL, depth + 1) != 0)
                return -1;
            fputs(": ", fp);
            if (flow_write(fp, doc, pr->value, NULL, depth + 1) != 0)
                return -1;
        }
        if (depth > 0)
            fputc('}', fp);
        return 0;
    default:
        return -1;
    }
}

/* Fills p->pool_flow from the scenario's text: each pools[i] as flow
 * members without capacity_gpus, which each point sets. */
static int pool_flows(struct plan *p, struct sim_diag *d)
{
    const struct cl_scenario *s = &p->scn;
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root, *pools = NULL;
    int rc = -1;

    if (!yaml_parser_initialize(&parser))
        sim_fatal("yaml_parser_initialize failed");
    yaml_parser_set_input_string(&parser, (const unsigned char *)s->text,
                                 strlen(s->text));
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_parser_delete(&parser);
        sim_diag_error(d, p->scenario_file, 0, 0,
                       "plan: cannot read the scenario's pools again");
        return -1;
    }
    root = yaml_document_get_root_node(&doc);
    if (root != NULL && root->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
             pr < root->data.mapping.pairs.top; pr++) {
            yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
            if (k != NULL && k->type == YAML_SCALAR_NODE &&
                strcmp((const char *)k->data.scalar.value, "pools") == 0)
                pools = yaml_document_get_node(&doc, pr->value);
        }
    if (pools != NULL && pools->type == YAML_SEQUENCE_NODE &&
        pools->data.sequence.items.top - pools->data.sequence.items.start ==
            s->npools) {
        rc = 0;
        for (int i = 0; i < s->npools && rc == 0; i++) {
            char *text = NULL;
            size_t len = 0;
            FILE *fp = open_memstream(&text, &len);

            if (fp == NULL) {
                sim_fatal("open_memstream failed");
                break;
            }
            rc = flow_write(fp, &doc, pools->data.sequence.items.start[i],
                            "capacity_gpus", 0);
            if (fclose(fp) != 0)
                sim_fatal("cannot write a pool's text");
            p->pool_flow[i] = text;
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc != 0)
        sim_diag_error(d, p->scenario_file, s->pos.pools.line, s->pos.pools.col,
                       "pools: dsec plan cannot write this list back as "
                       "flow YAML to search its mixes");
    return rc;
}

/* The layouts of a mix: pools[i]'s replica (its GPU kind, its own deploy,
 * each key left out the top-level one) is layouts[i], bounded as a
 * colocated layout is, with the pool's batch caps; a pool whose replica
 * cannot meet a target alone is PLAN_V_SLOW and left out of every mix. */
static int mix_layouts(struct plan *p, struct sim_diag *d)
{
    const struct cl_scenario *s = &p->scn;

    if (s->npools > PLAN_MIX_MAX_POOLS) {
        sim_diag_error(d, p->scenario_file, s->pos.pools.line, s->pos.pools.col,
                       "pools: dsec plan searches mixes of at most %d pools, "
                       "not %d",
                       PLAN_MIX_MAX_POOLS, s->npools);
        return -1;
    }
    p->mixed = s->npools;
    p->layouts = xcalloc((size_t)s->npools, sizeof(*p->layouts));
    p->nlayouts = (size_t)s->npools;
    for (int i = 0; i < s->npools; i++) {
        const struct cl_pool *cp = &s->pools[i];
        struct cl_pd_layout o = cl_pool_layout_resolve(s, i);
        struct plan_layout *l = &p->layouts[i];
        struct plan_target t = p->target;
        struct perf_replica r;
        char why[512];

        l->pool = i;
        l->pool_name = cp->name;
        l->gpu = cl_gpu_find(s, cp->gpu != NULL ? cp->gpu : s->hardware.gpu);
        if (SIM_NEVER(l->gpu == NULL))
            return -1;
        l->weight_dtype = s->deploy.weight_dtype;
        l->pp = o.pp > 1 ? o.pp : 1;
        l->ep = o.ep > 1 ? o.ep : 1;
        l->tp = o.tp;
        /* No tp anywhere: the smallest power of two that fits, as the
         * simulation derives it. */
        for (int tp = 1; l->tp < 1 && tp <= s->hardware.gpus_per_node; tp *= 2)
            if (cl_replica_perf_init(s, p->arch, l->gpu, tp, l->pp, l->ep,
                                     l->weight_dtype, &r, NULL, 0) == 0)
                l->tp = tp;
        if (l->tp < 1)
            l->tp = s->hardware.gpus_per_node;
        if (!isnan(cp->price_usd_per_gpu_hour))
            l->price_usd_per_gpu_hour = cp->price_usd_per_gpu_hour;
        else if (!isnan(s->hardware.price_usd_per_gpu_hour) &&
                 cl_gpu_find(s, s->hardware.gpu) == l->gpu)
            l->price_usd_per_gpu_hour = s->hardware.price_usd_per_gpu_hour;
        else
            l->price_usd_per_gpu_hour = l->gpu->price_usd_per_hour;
        if (isnan(cp->price_usd_per_gpu_hour) && cp->preemptible)
            l->price_usd_per_gpu_hour *= 1.0 - cp->spot_discount;
        if (cl_replica_perf_init(s, p->arch, l->gpu, l->tp, l->pp, l->ep,
                                 l->weight_dtype, &r, why, sizeof(why)) != 0) {
            l->verdict = PLAN_V_MEMORY;
            l->why = xstrdup(why);
            continue;
        }
        l->gpus = r.gpus;
        t.max_num_seqs = o.max_num_seqs;
        t.max_num_batched_tokens = o.max_num_batched_tokens;
        if (plan_bound_compute(&r, &t, &p->wl, &l->bound, why, sizeof(why)) !=
            0) {
            l->verdict = PLAN_V_SLOW;
            l->why = xstrdup(why);
        }
        /* The sizes a pool is searched over: none to its capacity. */
        l->bound.min_replicas = 0;
        l->bound.cap_replicas = cp->capacity_gpus / l->gpus;
    }
    return 0;
}

/* The capacities, in replicas, tried for pool i of a mix into out; their
 * count. Only 0 for a pool whose layout does not fit or is too slow. */
static int mix_steps(const struct plan *p, int i, int *out)
{
    const struct plan_layout *l = &p->layouts[i];
    int most, n = 0;

    out[n++] = 0;
    if (l->verdict != PLAN_V_FITS || l->gpus < 1)
        return n;
    most = p->scn.pools[i].capacity_gpus / l->gpus;
    for (int k = 1; k < PLAN_MIX_STEPS && most > 0; k++) {
        int v = most + 1 <= PLAN_MIX_STEPS
                    ? k
                    : (int)lround((double)most * k / (PLAN_MIX_STEPS - 1));
        if (v > out[n - 1] && v <= most)
            out[n++] = v;
    }
    return n;
}

/* Whether mix m can be searched: GPUs at least min_gpus, within
 * --max-gpus and --budget, and (the bound) its replicas' decode and
 * prefill rates within the targets carrying the mean load. */
static int mix_ok(struct plan *p, const int *m)
{
    const struct plan_workload *w = &p->wl;
    double xd = 0, xp = 0, usd = 0;
    int g = 0;

    for (int i = 0; i < p->mixed; i++) {
        const struct plan_layout *l = &p->layouts[i];
        g += m[i] * l->gpus;
        usd += m[i] * l->gpus * l->price_usd_per_gpu_hour;
        xd += m[i] * l->bound.decode_tokens_per_s;
        xp += m[i] * l->bound.prefill_tokens_per_s;
    }
    if (g == 0)
        return 0;
    if ((p->opts.max_gpus > 0 && g > p->opts.max_gpus) ||
        (!isnan(p->opts.budget_usd_per_hour) &&
         usd > p->opts.budget_usd_per_hour + 1e-9)) {
        p->counts.over_limit++;
        return 0;
    }
    if (g < p->scn.cluster.min_gpus ||
        xd < w->rate_mean_per_s * w->output_mean_tokens ||
        xp < w->rate_mean_per_s * w->prompt_mean_tokens) {
        p->counts.mix_short++;
        return 0;
    }
    return 1;
}

/* A mix's chains: one per capacity vector of the pools but the last (and
 * policy), each over the last pool's capacities from the smallest up, so
 * that a chain stops at its first that meets the SLO as a size chain
 * does. */
static void mix_chains(struct plan *p)
{
    int steps[PLAN_MIX_MAX_POOLS][PLAN_MIX_STEPS], ns[PLAN_MIX_MAX_POOLS] = {0};
    int idx[PLAN_MIX_MAX_POOLS] = {0}, m[PLAN_MIX_MAX_POOLS] = {0};
    int npol = p->opts.policies ? p->opts.npolicies : 1;
    int last = p->mixed - 1;
    size_t ccap = 0, chcap = 0;

    if (SIM_NEVER(p->mixed < 1))
        return;
    for (int i = 0; i < p->mixed; i++)
        ns[i] = mix_steps(p, i, steps[i]);
    for (;;) {
        int ok[PLAN_MIX_STEPS], n = 0;

        for (int i = 0; i < last; i++)
            m[i] = steps[i][idx[i]];
        for (int k = 0; k < ns[last]; k++) {
            m[last] = steps[last][k];
            ok[k] = mix_ok(p, m);
            n += ok[k];
        }
        for (int pi = 0; pi < npol && n > 0; pi++) {
            struct plan_chain *ch;

            if (p->nconfigs + (size_t)n > PLAN_MAX_CONFIGS) {
                p->counts.too_many += (size_t)n;
                continue;
            }
            if (p->nchains == chcap) {
                chcap = chcap ? 2 * chcap : 32;
                p->chains = xrealloc(p->chains, chcap, sizeof(*p->chains));
            }
            ch = &p->chains[p->nchains];
            memset(ch, 0, sizeof(*ch));
            ch->first = p->nconfigs;
            ch->n = (size_t)n;
            ch->met = -1;
            for (int k = 0; k < ns[last]; k++) {
                struct plan_config *c;
                int first = -1;
                if (!ok[k])
                    continue;
                m[last] = steps[last][k];
                c = add_config(p, &ccap);
                c->chain = p->nchains;
                c->policy = p->opts.policies ? p->opts.policies[pi] : NULL;
                for (int i = 0; i < p->mixed; i++) {
                    c->mix[i] = m[i];
                    c->mix_gpu_hours[i] = c->mix_cost[i] = 0;
                    c->replicas += m[i];
                    if (first < 0 && m[i] > 0)
                        first = i;
                }
                c->layout = (size_t)first;
                c->min_replicas = c->replicas;
            }
            p->nchains++;
        }
        /* The next vector of the pools but the last, odometer-wise. */
        int i = 0;
        while (i < last && ++idx[i] == ns[i])
            idx[i++] = 0;
        if (i >= last)
            break;
    }
}

/* The GPUs of mix c: each pool's capacity in whole replicas. */
static int mix_gpus(const struct plan *p, const struct plan_config *c)
{
    int g = 0;

    for (int i = 0; i < p->mixed; i++)
        g += c->mix[i] * p->layouts[i].gpus;
    return g;
}

/* One point of a mix: the pools it keeps with their capacities, and the
 * cluster's bounds over them. */
static void write_mix_point(FILE *fp, const struct plan *p,
                            const struct plan_config *c)
{
    const struct cl_cluster *cl = &p->scn.cluster;
    const char *sep = "";
    int g = mix_gpus(p, c);
    int mn = cl->min_gpus < g ? cl->min_gpus : g;

    fprintf(fp, "  - {pools: [");
    for (int i = 0; i < p->mixed; i++) {
        if (c->mix[i] == 0)
            continue;
        fprintf(fp, "%s{capacity_gpus: %d, %s}", sep,
                c->mix[i] * p->layouts[i].gpus, p->pool_flow[i]);
        sep = ", ";
    }
    fprintf(fp, "], cluster.min_gpus: %d, cluster.max_gpus: %d", mn, g);
    if (cl->initial_gpus >= 1) {
        int in = cl->initial_gpus < mn ? mn : cl->initial_gpus;
        fprintf(fp, ", cluster.initial_gpus: %d", in > g ? g : in);
    }
    if (c->policy != NULL) {
        const struct cl_scenario *s = &p->scn;
        fprintf(fp, ", policy.name: ");
        yaml_quote(fp, c->policy);
        if (s->policy.nparams > 0 &&
            (s->policy.name == NULL || strcmp(s->policy.name, c->policy) != 0))
            fprintf(fp, ", policy.params: {}");
    }
    fprintf(fp, "}\n");
}

/* One point of the spec: the keys that make configuration c. */
static void write_point(FILE *fp, const struct plan *p,
                        const struct plan_config *c)
{
    const struct cl_scenario *s = &p->scn;
    const struct plan_layout *l = &p->layouts[c->layout];
    int g = l->gpus;

    if (p->mixed) {
        write_mix_point(fp, p, c);
        return;
    }
    fprintf(fp, "  - {hardware.gpu: ");
    yaml_quote(fp, l->gpu->name);
    if (l->pd) {
        /* The groups' layouts are the scenario's; the split is searched. */
        if (!isnan(s->hardware.price_usd_per_gpu_hour) &&
            cl_gpu_find(s, s->hardware.gpu) != l->gpu)
            fprintf(fp, ", hardware.price_per_gpu_hour: %.10g",
                    l->price_usd_per_gpu_hour);
        fprintf(fp,
                ", deploy.disaggregation.prefill_replicas: %d"
                ", deploy.disaggregation.decode_replicas: %d}\n",
                c->replicas, c->pd_decode);
        return;
    }
    if (!isnan(s->hardware.price_usd_per_gpu_hour) &&
        cl_gpu_find(s, s->hardware.gpu) != l->gpu)
        fprintf(fp, ", hardware.price_per_gpu_hour: %.10g",
                l->price_usd_per_gpu_hour);
    fprintf(fp, ", deploy.tp: %d", l->tp);
    if (p->arch->moe.n_routed_experts > 0 || l->ep != s->deploy.ep)
        fprintf(fp, ", deploy.ep: %d", l->ep);
    if (l->pp != (s->deploy.pp > 1 ? s->deploy.pp : 1))
        fprintf(fp, ", deploy.pp: %d", l->pp);
    fprintf(fp, ", deploy.weight_dtype: %s", perf_dtype_name(l->weight_dtype));
    if (!p->elastic) {
        fprintf(fp, ", cluster.replicas: %d", c->replicas);
    } else {
        fprintf(fp, ", cluster.min_gpus: %d, cluster.max_gpus: %d",
                c->min_replicas * g, c->replicas * g);
        if (c->initial_replicas > 0)
            fprintf(fp, ", cluster.initial_gpus: %d", c->initial_replicas * g);
    }
    if (c->policy != NULL) {
        fprintf(fp, ", policy.name: ");
        yaml_quote(fp, c->policy);
        /* Parameters written for another policy would not load. */
        if (s->policy.nparams > 0 &&
            (s->policy.name == NULL || strcmp(s->policy.name, c->policy) != 0))
            fprintf(fp, ", policy.params: {}");
    }
    fprintf(fp, "}\n");
}

/* The head of the plan's sweep text: its name, the scenario as its base,
 * and the set: of every point (--set, --duration when with_duration,
 * --calibration). */
static void spec_head(FILE *fp, const struct plan *p, int with_duration)
{
    const char *base = strrchr(p->scenario_file, '/')
                           ? strrchr(p->scenario_file, '/') + 1
                           : p->scenario_file;
    int duration = with_duration && p->duration_key != NULL;

    fprintf(fp, "# dsec plan of %s\nname: ", base);
    {
        char *name = xasprintf("plan-%s", p->scn.name);
        yaml_quote(fp, name);
        free(name);
    }
    fprintf(fp, "\nbase: ");
    yaml_quote(fp, base);
    fprintf(fp, "\n");
    if (duration || p->calib_path != NULL || p->opts.nsets > 0) {
        fprintf(fp, "set:\n");
        /* The command line's --set first, as the scenario was loaded. */
        for (int i = 0; i < p->opts.nsets; i++) {
            const char *eq = strchr(p->opts.sets[i], '=');
            fprintf(fp, "  %.*s: %s\n", (int)(eq - p->opts.sets[i]),
                    p->opts.sets[i], eq + 1);
        }
        if (duration) {
            fprintf(fp, "  %s: ", p->duration_key);
            yaml_quote(fp, p->opts.duration);
            fputc('\n', fp);
        }
        if (p->calib_path != NULL) {
            fprintf(fp, "  hardware.calibration: ");
            yaml_quote(fp, p->calib_path);
            fputc('\n', fp);
        }
    }
}

static int build_spec(struct plan *p, struct sim_diag *d)
{
    char *text = NULL, *file;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);

    if (fp == NULL) {
        sim_fatal("open_memstream failed");
        return -1;
    }
    spec_head(fp, p, 1);
    fprintf(fp, "points:\n");
    for (size_t i = 0; i < p->nconfigs; i++)
        write_point(fp, p, &p->configs[i]);
    fprintf(fp, "replications: %d\n", p->opts.replications);
    if (fclose(fp) != 0)
        sim_fatal("cannot build the plan's sweep text");
    /* Named beside the scenario, so that `base` is read from there. */
    file = xasprintf("%s.plan", p->scenario_file);
    p->spec = swp_spec_load_string(file, text, len, d);
    free(file);
    free(text);
    if (p->spec == NULL)
        return -1;
    if (SIM_NEVER(p->spec->npoints !=
                  p->nconfigs * (size_t)p->opts.replications)) {
        sim_diag_error(d, p->scenario_file, 0, 0,
                       "plan: %zu points for %zu configurations",
                       p->spec->npoints, p->nconfigs);
        return -1;
    }
    for (size_t i = 0; i < p->nconfigs; i++) {
        struct plan_config *c = &p->configs[i];
        c->point = i * (size_t)p->opts.replications;
        c->values = xcalloc((size_t)p->opts.replications * PLAN_M_COUNT,
                            sizeof(*c->values));
        for (int k = 0; k < PLAN_M_COUNT; k++)
            c->m[k].mean = c->m[k].ci95 = NAN;
        if (p->spec->points[c->point].infeasible) {
            c->state = PLAN_C_FAILED;
            c->message = xstrdup(p->spec->points[c->point].message);
        }
    }
    return 0;
}

/* The layout of gpu that got furthest (fits > over a limit > too slow >
 * memory), or NULL. Of equals, the smallest over a limit (it needs the
 * least), else the last (the largest, the closest to fitting). */
static const struct plan_layout *furthest(const struct plan *p,
                                          const struct gpu_spec *g)
{
    static const int rank[] = {
        [PLAN_V_FITS] = 3,
        [PLAN_V_LIMIT] = 2,
        [PLAN_V_SLOW] = 1,
        [PLAN_V_MEMORY] = 0,
    };
    const struct plan_layout *best = NULL;

    for (size_t i = 0; i < p->nlayouts; i++)
        if (p->layouts[i].gpu == g &&
            (best == NULL ||
             rank[p->layouts[i].verdict] > rank[best->verdict] ||
             (rank[p->layouts[i].verdict] == rank[best->verdict] &&
              best->verdict != PLAN_V_LIMIT)))
            best = &p->layouts[i];
    return best;
}

static void nothing_feasible(const struct plan *p, struct sim_diag *d)
{
    sim_diag_error(d, p->scenario_file, 0, 0,
                   "nothing to simulate: no layout of the %d gpu kind%s "
                   "searched fits and can meet the slo within the limits",
                   p->ngpus, p->ngpus == 1 ? "" : "s");
    for (int i = 0; i < p->ngpus; i++) {
        const struct plan_layout *l = furthest(p, p->gpus[i]);
        char name[64];

        if (l == NULL)
            continue;
        plan_layout_name(l, name, sizeof(name));
        sim_diag_add(d, SIM_SEV_NOTE, p->scenario_file, 0, 0,
                     "%s (%s, %s weights): %s", l->gpu->name, name,
                     perf_dtype_name(l->weight_dtype),
                     l->why ? l->why : "fits");
    }
}

struct plan *plan_new(const char *path, const struct plan_opts *o,
                      struct sim_diag *d, int *err)
{
    struct plan *p = xcalloc(1, sizeof(*p));
    const struct cl_scenario *s = &p->scn;
    struct scn_open_opts open_opts = {.keep_infeasible = 1};
    struct sim_diag tmp;
    char *dir_copy;
    int rc;

    *err = PLAN_E_INPUT;
    p->scenario_file = xstrdup(path);
    p->opts = *o;
    p->chosen = -1;
    p->cheapest = -1;
    /* Load and catalog errors stop the plan; an infeasible layout does
     * not (its reasons are dropped), the search looks for others. */
    sim_diag_init(&tmp);
    if (o->nsets > 0) {
        char *text = swp_scenario_with_sets(path, o->sets, o->nsets, &tmp);
        if (text == NULL) {
            diag_move(d, &tmp);
            sim_diag_fini(&tmp);
            goto fail;
        }
        open_opts.text = text;
        open_opts.len = strlen(text);
        rc = scn_scenario_open(path, &open_opts, &p->scn, &tmp);
        free(text);
    } else {
        rc = scn_scenario_open(path, &open_opts, &p->scn, &tmp);
    }
    if (rc != SIM_EINFEASIBLE)
        diag_move(d, &tmp);
    sim_diag_fini(&tmp);
    if (rc != 0 && rc != SIM_EINFEASIBLE)
        goto fail;
    if (s->server.kind != CL_SRV_LLM) {
        sim_diag_error(d, path, 0, 0,
                       "server.kind: dsec plan needs an llm server (set model "
                       "or deploy.model_path)");
        goto fail;
    }
    p->arch = model_of(s);
    if (SIM_NEVER(p->arch == NULL)) {
        sim_diag_error(d, path, 0, 0, "model: not found");
        goto fail;
    }
    if (cl_pools_mixed(s) && (o->gpus != NULL || o->dtypes != NULL)) {
        sim_diag_error(d, "dsec plan", 0, 0,
                       "%s: the pools of %s fix their GPU kinds and "
                       "layouts (pools[].deploy); dsec plan searches their "
                       "mix, not other kinds or dtypes",
                       o->gpus != NULL ? "--gpus" : "--dtypes", path);
        goto fail;
    }
    if (s->npools > 0 && !cl_pools_mixed(s)) {
        sim_diag_error(d, path, s->pos.pools.line, s->pos.pools.col,
                       "pools: dsec plan sizes the one implicit pool of "
                       "hardware.gpu; remove pools to plan this scenario");
        goto fail;
    }
    if (s->deploy.disaggregation.enabled && s->cluster.min_gpus >= 1 &&
        s->cluster.replicas < 1) {
        /* Each group's sizes are its policy's; the search sizes static
         * groups. */
        sim_diag_error(d, path, s->pos.pd_layout[CL_PD_PREFILL].line,
                       s->pos.pd_layout[CL_PD_PREFILL].col,
                       "deploy.disaggregation: dsec plan searches the split "
                       "of a static disaggregated cluster, not an elastic "
                       "one; plan the static scenario (cluster.replicas) "
                       "and give its groups' sizes as their bounds");
        goto fail;
    }
    if (s->slo.ttft_ns < 0 && s->slo.tpot_ns < 0 && s->slo.e2e_ns < 0) {
        sim_diag_error(d, path, 0, 0,
                       "slo: dsec plan needs a service-level objective; set "
                       "slo.tpot_ms (or cluster.target_latency_ms), "
                       "slo.ttft_ms or slo.e2e_ms");
        goto fail;
    }
    p->elastic = s->cluster.min_gpus >= 1 && s->cluster.replicas < 1;
    if (check_policies(p, d) != 0 || apply_calibration(p, d) != 0 ||
        pick_gpus(p, d) != 0 || check_calibrated(p, d) != 0 ||
        check_uncertain(p, d) != 0 || apply_duration(p, d) != 0)
        goto fail;
    p->attainment = o->attainment;
    p->latency = s->slo.tpot_ns >= 0   ? PLAN_LAT_TPOT
                 : s->slo.ttft_ns >= 0 ? PLAN_LAT_TTFT
                                       : PLAN_LAT_E2E;
    p->target.tpot_ns = s->slo.tpot_ns;
    p->target.ttft_ns = s->slo.ttft_ns;
    p->target.max_num_seqs = s->server.max_num_seqs;
    p->target.max_num_batched_tokens = s->server.max_num_batched_tokens;
    p->target.headroom = o->headroom;

    dir_copy = xstrdup(path);
    rc = plan_workload_measure(s, dirname(dir_copy), &p->wl, d);
    free(dir_copy);
    if (rc != 0)
        goto fail;

    if (cl_pools_mixed(s)) {
        if (mix_layouts(p, d) != 0 || pool_flows(p, d) != 0)
            goto fail;
    } else if (s->deploy.disaggregation.enabled) {
        pd_layouts(p);
    } else {
        int dt = s->deploy.weight_dtype;
        plan_layouts_enumerate(
            s, p->arch, p->gpus, p->ngpus, o->dtypes ? o->dtypes : &dt,
            o->dtypes ? o->ndtypes : 1, &p->layouts, &p->nlayouts);
    }
    if (p->mixed) {
        mix_chains(p);
    } else {
        bound_layouts(p);
        build_chains(p);
    }
    p->counts.layouts = p->nlayouts;
    for (size_t i = 0; i < p->nlayouts; i++) {
        p->counts.memory += p->layouts[i].verdict == PLAN_V_MEMORY;
        p->counts.slow += p->layouts[i].verdict == PLAN_V_SLOW;
        p->counts.limit += p->layouts[i].verdict == PLAN_V_LIMIT;
    }
    p->counts.chains = p->nchains;
    p->counts.candidates = p->nconfigs;
    if (p->nconfigs == 0) {
        nothing_feasible(p, d);
        goto fail;
    }
    if (build_spec(p, d) != 0) {
        *err = PLAN_E_INTERNAL;
        goto fail;
    }
    return p;

fail:
    plan_free(p);
    return NULL;
}

/* ---- Running ---------------------------------------------------------- */

struct run {
    struct plan *p;
    const struct plan_run_opts *o;
    struct swp_pool *pool;
    int64_t sweep_id;
    size_t finished;         /* configurations done, failed or dominated */
    struct sim_progress bar; /* the progress line, and the wall clock */
};

/* The bar counts configurations; its ETA assumes every one still waiting
 * runs, so it is an upper bound when chains stop early. */
static void progress(struct run *x, int force)
{
    double wall, rate, eta;
    size_t total = x->p->nconfigs, done = x->finished;
    char eta_s[32] = "?";

    if (x->bar.fp == NULL || total == 0)
        return;
    if (!force && !sim_progress_due(&x->bar))
        return;
    wall = sim_progress_wall_s(&x->bar);
    rate = wall > 0 ? (double)done / wall : 0;
    eta = rate > 0 ? (double)(total - done) / rate : NAN;
    if (!isnan(eta))
        sim_fmt_duration(eta_s, sizeof(eta_s), eta * 1e9, SIM_DUR_CLOCK);
    if (x->o->bar) {
        char bar[BAR_WIDTH + 1];

        sim_progress_draw(
            &x->bar, "  [%s] %zu/%zu configurations %5.1f%%  %.2f/s  eta %-9s",
            sim_progress_bar(bar, BAR_WIDTH, done, total), done, total,
            100.0 * (double)done / (double)total, rate, eta_s);
    } else {
        sim_progress_draw(&x->bar,
                          "dsec plan: %s: %zu/%zu configurations, %.2f/s, "
                          "eta %s",
                          x->p->scn.name, done, total, rate, eta_s);
    }
}

static void utc_stamp(char *buf, size_t len, int64_t unix_s)
{
    time_t t = (time_t)unix_s;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int record(struct run *x, size_t pt_index, const struct swp_done *done,
                  struct sim_diag *d)
{
    const struct swp_spec *s = x->p->spec;
    const struct swp_point *pt = &s->points[pt_index];
    const char **paths = xcalloc((size_t)s->ncolumns + 1, sizeof(*paths));
    const char **values = xcalloc((size_t)s->ncolumns + 1, sizeof(*values));
    struct rpt_sweep_point sp = {0};
    struct rpt_run_info info = {0};
    char stamp[32];
    int rc, n = 0;

    for (int c = 0; c < s->ncolumns; c++)
        if (pt->values[c] != NULL) {
            paths[n] = s->columns[c];
            values[n] = pt->values[c];
            n++;
        }
    sp.sweep_id = x->sweep_id;
    sp.key = pt->key;
    sp.seq = (int64_t)pt->seq;
    sp.status = RPT_SWEEP_OK;
    sp.paths = paths;
    sp.values = values;
    sp.nvalues = n;
    utc_stamp(stamp, sizeof(stamp), done->started_unix);
    info.started_at = stamp;
    info.scenario_file = s->scenario_file;
    info.scenario_text = pt->text;
    info.program_version = x->o->program_version;
    info.seed = pt->seed;
    rc = rpt_db_write_sweep_point(x->o->db, &sp, &info, &done->res, NULL, d);
    free(paths);
    free(values);
    return rc == SIM_EBUSY ? 0 : rc;
}

static void aggregate(struct plan *p, struct plan_config *c)
{
    int n = p->opts.replications;

    for (int k = 0; k < PLAN_M_COUNT; k++) {
        double sum = 0, ss = 0, mean;
        int bad = 0;

        for (int r = 0; r < n; r++) {
            double v = c->values[r * PLAN_M_COUNT + k];
            bad |= isnan(v);
            sum += v;
        }
        mean = sum / n;
        c->m[k].mean = bad ? NAN : mean;
        c->m[k].ci95 = NAN;
        if (bad || n < 2)
            continue;
        for (int r = 0; r < n; r++) {
            double e = c->values[r * PLAN_M_COUNT + k] - mean;
            ss += e * e;
        }
        c->m[k].ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) *
                       sqrt(ss / (n - 1)) / sqrt((double)n);
    }
    c->meets = c->m[PLAN_M_ATTAINMENT].mean >= p->attainment;
}

/* A configuration has finished (done or failed): the chain decides
 * whether its next size runs. */
static void chain_step(struct run *x, struct plan_config *c)
{
    struct plan *p = x->p;
    struct plan_chain *ch = &p->chains[c->chain];

    ch->running = 0;
    x->finished++;
    if (c->state == PLAN_C_DONE && c->meets && ch->met < 0) {
        ch->met = (long)(c - p->configs);
        ch->left = p->opts.beyond;
    } else if (ch->met >= 0) {
        ch->left--;
    }
    if (ch->met >= 0 && ch->left <= 0) {
        for (size_t k = ch->next; k < ch->n; k++) {
            p->configs[ch->first + k].state = PLAN_C_DOMINATED;
            x->finished++;
        }
        ch->next = ch->n;
    }
}

static void submit(struct run *x, struct plan_config *c)
{
    const struct swp_spec *s = x->p->spec;

    c->state = PLAN_C_RUNNING;
    for (int r = 0; r < x->p->opts.replications; r++)
        swp_pool_submit(x->pool, (long)(c->point + (size_t)r), s->scenario_file,
                        s->points[c->point + (size_t)r].text, s->base_dir);
}

/* Starts the next size of every idle chain; configurations the spec found
 * infeasible finish at once. Returns the number of chains running. */
static size_t dispatch(struct run *x)
{
    struct plan *p = x->p;
    size_t running = 0;

    for (size_t i = 0; i < p->nchains; i++) {
        struct plan_chain *ch = &p->chains[i];

        while (!ch->running && ch->next < ch->n) {
            struct plan_config *c = &p->configs[ch->first + ch->next++];
            if (c->state == PLAN_C_FAILED) {
                chain_step(x, c);
                continue;
            }
            submit(x, c);
            ch->running = 1;
        }
        running += (size_t)ch->running;
    }
    return running;
}

/* A mix's run: each pool's GPU-hours and cost, matched by name (a pool
 * left out of the mix has none), added to the means over the
 * replications. */
static void mix_take(const struct plan *p, struct plan_config *c,
                     const struct cl_results *res)
{
    for (int i = 0; i < p->mixed; i++) {
        double h = 0, usd = 0;

        for (int k = 0; k < res->npools; k++)
            if (strcmp(res->pools[k].name, p->layouts[i].pool_name) == 0) {
                h = res->pools[k].gpu_hours_used;
                usd = res->pools[k].cost_usd;
            }
        c->mix_gpu_hours[i] += h / p->opts.replications;
        c->mix_cost[i] += usd / p->opts.replications;
    }
}

static int take(struct run *x, struct swp_done *done, struct sim_diag *d)
{
    struct plan *p = x->p;
    size_t pt = (size_t)done->id, reps = (size_t)p->opts.replications;
    struct plan_config *c;
    int r;

    if (SIM_NEVER(done->id < 0 || pt >= p->spec->npoints))
        return 0;
    c = &p->configs[pt / reps];
    r = (int)(pt % reps);
    p->counts.runs++;
    if (done->rc == 0) {
        double *v = &c->values[r * PLAN_M_COUNT];
        v[PLAN_M_COST] = done->res.cost_usd;
        v[PLAN_M_GPU_HOURS] = done->res.gpu_hours;
        v[PLAN_M_TTFT_P99] = done->res.ttft_ms.p99;
        v[PLAN_M_TPOT_P99] = done->res.tpot_ms.p99;
        v[PLAN_M_E2E_P99] = done->res.e2e_ms.p99;
        v[PLAN_M_ATTAINMENT] = done->res.slo_attainment;
        mix_take(p, c, &done->res);
        if (r == 0 && done->res.policy != NULL)
            c->policy_run = xstrdup(done->res.policy);
        if (x->o->db != NULL && record(x, pt, done, d) != 0)
            return SIM_EDB;
    } else if (c->message == NULL) {
        c->message = xstrdup(done->message ? done->message : "unknown error");
        c->state = PLAN_C_FAILED;
    }
    if (++c->reps_done == p->opts.replications) {
        if (c->state != PLAN_C_FAILED) {
            c->state = PLAN_C_DONE;
            aggregate(p, c);
        } else {
            sim_progress_clear(&x->bar);
            sim_diag_error(d, p->scenario_file, 0, 0,
                           "configuration %s failed: %s",
                           p->spec->points[c->point].key, c->message);
        }
        chain_step(x, c);
    }
    return 0;
}

static double latency_of(const struct plan *p, const struct plan_config *c)
{
    static const int metric[] = {
        [PLAN_LAT_TPOT] = PLAN_M_TPOT_P99,
        [PLAN_LAT_TTFT] = PLAN_M_TTFT_P99,
        [PLAN_LAT_E2E] = PLAN_M_E2E_P99,
    };
    return c->m[metric[p->latency]].mean;
}

static void finish(struct plan *p)
{
    double *cost = xcalloc(p->nconfigs + 1, sizeof(*cost));
    double *lat = xcalloc(p->nconfigs + 1, sizeof(*lat));
    int *on = xcalloc(p->nconfigs + 1, sizeof(*on));

    for (size_t i = 0; i < p->nconfigs; i++) {
        const struct plan_config *c = &p->configs[i];
        int done = c->state == PLAN_C_DONE;
        cost[i] = done ? c->m[PLAN_M_COST].mean : NAN;
        lat[i] = done ? latency_of(p, c) : NAN;
        p->counts.simulated += (size_t)done;
        p->counts.failed += c->state == PLAN_C_FAILED;
        p->counts.dominated += c->state == PLAN_C_DOMINATED;
    }
    plan_pareto(cost, lat, p->nconfigs, on);
    p->chosen = -1;
    for (size_t i = 0; i < p->nconfigs; i++) {
        struct plan_config *c = &p->configs[i];
        c->frontier = on[i];
        if (c->state != PLAN_C_DONE || !c->meets || isnan(cost[i]))
            continue;
        if (p->chosen < 0 || cost[i] < cost[p->chosen] ||
            (cost[i] == cost[p->chosen] && lat[i] < lat[p->chosen]))
            p->chosen = (long)i;
    }
    p->cheapest = p->chosen;
    for (size_t i = 0; i < p->nchains; i++)
        p->counts.capped_unmet += p->chains[i].met < 0;
    free(cost);
    free(lat);
    free(on);
}

int plan_run(struct plan *p, const struct plan_run_opts *o, struct sim_diag *d)
{
    struct run x;
    struct swp_done done;
    int rc = 0;

    memset(&x, 0, sizeof(x));
    x.p = p;
    x.o = o;
    sim_progress_start(&x.bar, o->log, o->bar,
                       o->bar ? BAR_REDRAW_S : LINE_EVERY_S);
    if (o->db != NULL) {
        struct rpt_sweep_info info = {0};
        char stamp[32];

        utc_stamp(stamp, sizeof(stamp), (int64_t)time(NULL));
        info.name = p->spec->name;
        info.sweep_file = p->spec->file;
        info.sweep_text = p->spec->text;
        info.hash = p->spec->hash;
        info.created_at = stamp;
        info.points = (int64_t)p->spec->npoints;
        if (rpt_db_sweep_find_or_add(o->db, &info, &x.sweep_id, NULL, d) != 0)
            return SIM_EDB;
    }
    x.pool =
        swp_pool_new(o->jobs < (int)p->nchains ? o->jobs : (int)p->nchains);
    while (rc == 0 && dispatch(&x) > 0) {
        int first = 1;
        while (rc == 0 &&
               swp_pool_take(x.pool, first ? LOOP_WAIT_MS : 0, &done)) {
            first = 0;
            rc = take(&x, &done, d);
            swp_done_fini(&done);
        }
        progress(&x, 0);
    }
    if (rc == 0)
        progress(&x, 1);
    sim_progress_clear(&x.bar);
    swp_pool_free(x.pool);
    p->wall_s = sim_progress_wall_s(&x.bar);
    finish(p);
    return rc;
}

/* ---- Reading the result ----------------------------------------------- */

const char *plan_config_text(const struct plan *p, size_t i)
{
    return p->spec->points[p->configs[i].point].text;
}

char *plan_config_scenario(const struct plan *p, size_t i, struct sim_diag *d)
{
    struct swp_spec *one;
    char *text = NULL, *file, *out = NULL;
    size_t len = 0;
    FILE *fp;

    if (p->duration_key == NULL)
        return xstrdup(plan_config_text(p, i));
    /* The configuration's point again, in a sweep of its own without
     * --duration: the same keys, loaded and checked the same way. */
    fp = open_memstream(&text, &len);
    if (fp == NULL) {
        sim_fatal("open_memstream failed");
        return NULL;
    }
    spec_head(fp, p, 0);
    fprintf(fp, "points:\n");
    write_point(fp, p, &p->configs[i]);
    if (fclose(fp) != 0)
        sim_fatal("cannot build the configuration's sweep text");
    file = xasprintf("%s.plan", p->scenario_file);
    one = swp_spec_load_string(file, text, len, d);
    if (one != NULL && SIM_ALWAYS(one->npoints == 1))
        out = xstrdup(one->points[0].text);
    swp_spec_free(one);
    free(file);
    free(text);
    return out;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *plan_config_overrides(const struct plan *p, size_t i, const char *indent)
{
    const struct swp_spec *s = p->spec;
    const struct swp_point *pt = &s->points[p->configs[i].point];
    char **lines = xcalloc((size_t)s->ncolumns + 1, sizeof(*lines));
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    int n = 0;

    if (fp == NULL)
        sim_fatal("open_memstream failed");
    for (int c = 0; c < s->ncolumns; c++)
        if (pt->values[c] != NULL && strcmp(s->columns[c], "seed") != 0)
            lines[n++] =
                xasprintf("%s%s: %s\n", indent, s->columns[c], pt->values[c]);
    qsort(lines, (size_t)n, sizeof(*lines), cmp_str);
    for (int k = 0; k < n; k++) {
        fputs(lines[k], fp);
        free(lines[k]);
    }
    free(lines);
    if (fclose(fp) != 0)
        sim_fatal("cannot format overrides");
    return out;
}

int plan_config_value(const struct plan *p, size_t i, int c, const char **path,
                      const char **value)
{
    const struct swp_spec *s = p->spec;

    if (c < 0 || c >= s->ncolumns)
        return s->ncolumns;
    *path = s->columns[c];
    *value = s->points[p->configs[i].point].values[c];
    return s->ncolumns;
}

double plan_latency_target_ms(const struct plan *p)
{
    int64_t ns = p->latency == PLAN_LAT_TPOT   ? p->scn.slo.tpot_ns
                 : p->latency == PLAN_LAT_TTFT ? p->scn.slo.ttft_ns
                                               : p->scn.slo.e2e_ns;
    return ns >= 0 ? (double)ns * 1e-6 : NAN;
}

const char *plan_latency_name(int latency)
{
    switch (latency) {
    case PLAN_LAT_TPOT:
        return "tpot";
    case PLAN_LAT_TTFT:
        return "ttft";
    case PLAN_LAT_E2E:
        return "e2e";
    }
    return "?";
}

void plan_free(struct plan *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nconfigs; i++) {
        free(p->configs[i].policy_run);
        free(p->configs[i].message);
        free(p->configs[i].values);
        free(p->configs[i].pi);
    }
    free(p->pi_order);
    free(p->calib_path);
    for (int i = 0; i < PLAN_MIX_MAX_POOLS; i++)
        free(p->pool_flow[i]);
    free(p->configs);
    free(p->chains);
    plan_layouts_free(p->layouts, p->nlayouts);
    free(p->gpus);
    swp_spec_free(p->spec);
    free(p->duration_key);
    free(p->scenario_file);
    cl_scenario_fini(&p->scn);
    free(p);
}
