/* dsec plan SCENARIO [--gpus LIST] [--dtypes LIST] [--policies LIST]
 * [--budget $/h] [--max-gpus N] [--attainment F] [--headroom F] [--beyond N]
 * [--replications R] [--duration D] [--calibration PROFILE]
 * [--uncertainty N [--uncertainty-configs K] [--robust]] [-j N] [--json]
 * [--chart FILE.png] [--save-scenario FILE] [--launch DIR] [--db FILE]
 * [--verbose] [--quiet]: search GPU kind x layout x size x policy for the
 * cheapest configuration that meets the scenario's SLO (plan/plan.h,
 * docs/plan.md), and print what was pruned, every configuration simulated, the
 * Pareto frontier of cost against latency, with --uncertainty the prediction
 * intervals of the cheapest that met it, and the chosen configuration (with
 * --robust, by the pessimistic end of its intervals) as the keys to set.
 * Standard output depends on the inputs alone; the wall time goes to
 * stderr. Parse (parse_args), run (search), print (print, then the chart,
 * the saved scenario and the launch). */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "plan/launch.h"
#include "plan/plan.h"
#include "reports/db.h"
#include "reports/fmt.h"
#include "reports/gnuplot.h"
#include "reports/summary.h"
#include "base/errors.h"
#include "base/param.h"
#include "base/xalloc.h"

/* Most names one list option may hold. */
#define MAX_LIST 64

struct list {
    char *v[MAX_LIST];
    int n;
};

/* Splits s at commas into l (empty names dropped). Returns 0, or -1 when
 * there are more than MAX_LIST names or none. */
static int split(const char *s, struct list *l)
{
    const char *p = s;

    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
    while (*p) {
        size_t k = strcspn(p, ",");
        if (k > 0) {
            if (l->n == MAX_LIST)
                return -1;
            l->v[l->n++] = xstrndup(p, k);
        }
        p += k + (p[k] == ',');
    }
    return l->n > 0 ? 0 : -1;
}

static void list_fini(struct list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

static int dtype_of(const char *name)
{
    static const int all[] = {CL_DTYPE_BF16, CL_DTYPE_FP8, CL_DTYPE_INT4};

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (strcmp(name, perf_dtype_name(all[i])) == 0)
            return all[i];
    return -1;
}

static const char *usage_text =
    "options:\n"
    "  --set KEY=VALUE      override a scenario key (repeatable), as a "
    "sweep's set:;\n"
    "                       every configuration searched keeps it\n"
    "  --gpus LIST          GPU kinds to search, e.g. h100,h200 (default: "
    "every\n"
    "                       catalog GPU and the scenario's inline ones)\n"
    "  --dtypes LIST        weight dtypes, of bf16,fp8,int4 (default: the\n"
    "                       scenario's deploy.weight_dtype)\n"
    "  --policies LIST      scaling policies of an elastic scenario "
    "(default: its\n"
    "                       own)\n"
    "  --budget PRICE       most dollars per hour at the largest size, "
    "e.g. $200/h\n"
    "  --max-gpus N         most GPUs at the largest size\n"
    "  --attainment F       SLO attainment to meet, e.g. 0.99 or 99% "
    "(default 0.99)\n"
    "  --headroom F         sizes up to F x the peak estimate (default 2)\n"
    "  --beyond N           sizes run past the first that meets the SLO, "
    "for the\n"
    "                       frontier (default 1)\n"
    "  --replications R     seeds seed..seed+R-1 per configuration "
    "(default 1)\n"
    "  --duration D         set the workload's duration to D (e.g. 30min) "
    "in every run\n"
    "  --calibration PROFILE\n"
    "                       price every candidate with this calibration "
    "profile;\n"
    "                       without --gpus, search the GPU kinds it "
    "calibrates\n"
    "  --uncertainty N      run the cheapest configurations that meet the "
    "SLO through\n"
    "                       N draws of the calibration's uncertainty (2 to "
    "10000; 20\n"
    "                       or more for a 95 % interval): intervals of "
    "cost, SLO\n"
    "                       attainment and p99 latencies\n"
    "  --uncertainty-configs K\n"
    "                       how many of the cheapest (default 5)\n"
    "  --robust             choose by the pessimistic end: the lowest upper "
    "end of\n"
    "                       the cost interval among those whose SLO "
    "attainment\n"
    "                       interval stays at or above the target (needs\n"
    "                       --uncertainty)\n"
    "  -j, --jobs N         worker threads (default: online CPUs)\n"
    "  --json               print one JSON object instead of the tables\n"
    "  --chart FILE.png     draw the frontier with gnuplot\n"
    "  --save-scenario FILE write the chosen configuration's scenario (over "
    "the\n"
    "                       scenario's own duration, not --duration's)\n"
    "  --launch DIR         write the chosen configuration as a launch into "
    "DIR:\n"
    "                       serve.sh (vllm serve lines), deployment.yaml\n"
    "                       (Kubernetes), scaler.yaml or an HPA when "
    "elastic,\n"
    "                       README.md\n"
    "  --db FILE            record every run in a results database, as a "
    "sweep\n"
    "  --verbose            list every layout, with why it was left out\n"
    "  --quiet              no progress or timing on stderr\n";

/* ---- Text output ------------------------------------------------------ */

static void gpus_col(const struct plan *p, const struct plan_config *c,
                     char *buf, size_t len)
{
    int g = p->layouts[c->layout].gpus;

    if (p->mixed) {
        int most = plan_config_gpus(p->layouts, c);
        int least = p->scn.cluster.min_gpus;
        snprintf(buf, len, "%d-%d", least < most ? least : most, most);
    } else if (p->elastic)
        snprintf(buf, len, "%d-%d", c->min_replicas * g, c->replicas * g);
    else
        snprintf(buf, len, "%d", plan_config_gpus(p->layouts, c));
}

/* A mix's pools with their replicas, "h100-tp4 x3 + h200-tp2 x2" (the
 * pools it leaves out omitted); with gpus, their GPU kinds instead,
 * "h100+h200". */
static void mix_col(const struct plan *p, const struct plan_config *c, int gpus,
                    char *buf, size_t len)
{
    size_t k = 0;

    buf[0] = '\0';
    for (int i = 0; i < p->mixed && k < len; i++) {
        const struct plan_layout *l = &p->layouts[i];
        int dup = 0;
        if (c->mix[i] == 0)
            continue;
        for (int j = 0; gpus && j < i; j++)
            dup |= c->mix[j] > 0 && p->layouts[j].gpu == l->gpu;
        if (dup)
            continue;
        if (gpus)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "+" : "",
                                  l->gpu->name);
        else
            k += (size_t)snprintf(buf + k, len - k, "%s%s x%d", k ? " + " : "",
                                  l->pool_name, c->mix[i]);
    }
}

static const char *policy_col(const struct plan_config *c)
{
    if (c->policy_run != NULL)
        return c->policy_run;
    return c->policy != NULL ? c->policy : "-";
}

/* A metric with its CI when there is one; scale multiplies both. */
static void stat_col(char *buf, size_t len, const struct plan_stat *s,
                     double scale, int prec)
{
    if (isnan(s->mean))
        snprintf(buf, len, "n/a");
    else if (isnan(s->ci95))
        snprintf(buf, len, "%.*f", prec, s->mean * scale);
    else
        snprintf(buf, len, "%.*f ± %.*f", prec, s->mean * scale, prec,
                 s->ci95 * scale);
}

/* Width of s on a terminal: UTF-8 continuation bytes take no column. */
static int cols(const char *s)
{
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Prints s right-aligned in w columns. */
static void rpad(const char *s, int w)
{
    printf("%*s%s", w - cols(s) > 0 ? w - cols(s) : 0, "", s);
}

static void lpad(const char *s, int w)
{
    printf("%s%*s", s, w - cols(s) > 0 ? w - cols(s) : 0, "");
}

/* --uncertainty-configs, or its default. */
static int pi_configs(const struct plan *p)
{
    return p->opts.pi_configs > 0 ? p->opts.pi_configs : PLAN_PI_CONFIGS;
}

static void print_header(const struct plan *p)
{
    const struct cl_slo *slo = &p->scn.slo;
    const struct plan_workload *w = &p->wl;
    const char *sep = "";

    printf("plan %s: %s; slo", p->scn.name, p->arch->name);
    if (slo->ttft_ns >= 0) {
        printf(" ttft <= %g ms", (double)slo->ttft_ns * 1e-6);
        sep = ",";
    }
    if (slo->tpot_ns >= 0) {
        printf("%s tpot <= %g ms", sep, (double)slo->tpot_ns * 1e-6);
        sep = ",";
    }
    if (slo->e2e_ns >= 0)
        printf("%s e2e <= %g ms", sep, (double)slo->e2e_ns * 1e-6);
    printf(" for at least %g%% of requests\n", 100 * p->attainment);
    printf("workload: %llu requests%s over %.0f s: %.2f req/s mean, %.2f at "
           "the peak (%.0f s windows); prompt %.1f, output %.1f tokens mean\n",
           (unsigned long long)w->requests, w->truncated ? " (cap)" : "",
           w->span_s, w->rate_mean_per_s, w->rate_peak_per_s, w->window_s,
           w->prompt_mean_tokens, w->output_mean_tokens);
    printf("search: gpus");
    for (int i = 0; i < p->ngpus; i++)
        printf("%s %s", i ? "," : "", p->gpus[i]->name);
    printf("; weight dtypes");
    if (p->opts.dtypes == NULL)
        printf(" %s", perf_dtype_name(p->scn.deploy.weight_dtype));
    for (int i = 0; p->opts.dtypes && i < p->opts.ndtypes; i++)
        printf("%s %s", i ? "," : "", perf_dtype_name(p->opts.dtypes[i]));
    if (p->elastic) {
        printf("; elastic cluster sized by cluster.max_gpus; policies");
        if (p->opts.policies == NULL)
            printf(" the scenario's");
        for (int i = 0; p->opts.policies && i < p->opts.npolicies; i++)
            printf("%s %s", i ? "," : "", p->opts.policies[i]);
    } else {
        printf("; static cluster sized by cluster.replicas");
    }
    if (p->mixed)
        printf("; a mix of %d pools, each pool's capacity in replicas of "
               "its own layout from 0 to its capacity_gpus in up to %d "
               "steps",
               p->mixed, PLAN_MIX_STEPS);
    if (!isnan(p->opts.budget_usd_per_hour))
        printf("; budget $%.2f/h", p->opts.budget_usd_per_hour);
    if (p->opts.max_gpus > 0)
        printf("; at most %d gpu%s", p->opts.max_gpus,
               p->opts.max_gpus == 1 ? "" : "s");
    printf("; %d replication%s from seed %llu", p->opts.replications,
           p->opts.replications == 1 ? "" : "s",
           (unsigned long long)p->scn.seed);
    if (p->duration_key != NULL)
        printf("; %s %s", p->duration_key, p->opts.duration);
    if (p->scn.calib != NULL && p->scn.calib->file != NULL)
        printf("; calibration %s", p->scn.calib->file);
    if (p->opts.draws > 0)
        printf("; uncertainty: %d draws for each of the %d cheapest that "
               "meet the slo%s",
               p->opts.draws, pi_configs(p),
               p->opts.robust ? ", chosen by the pessimistic end (robust)"
                              : "");
    printf("\n\n");
}

static const char *verdict_name(int v)
{
    switch (v) {
    case PLAN_V_FITS:
        return "searched";
    case PLAN_V_MEMORY:
        return "does not fit";
    case PLAN_V_SLOW:
        return "too slow";
    case PLAN_V_LIMIT:
        return "over a limit";
    }
    return "?";
}

/* Columns of the layout table; the first three are text. */
static const char *const layout_heads[] = {
    "gpu",        "layout",     "dtype",        "gpus",
    "batch",      "step ms",    "decode tok/s", "prefill tok/s",
    "bound mean", "bound peak", "est. peak",    "sizes",
};
#define NL (int)(sizeof(layout_heads) / sizeof(layout_heads[0]))

static void layout_cells(const struct plan_layout *l, char cell[][64])
{
    const struct plan_bound *b = &l->bound;

    snprintf(cell[0], 64, "%s", l->gpu->name);
    plan_layout_name(l, cell[1], 64);
    snprintf(cell[2], 64, "%s", perf_dtype_name(l->weight_dtype));
    snprintf(cell[3], 64, "%d", l->gpus);
    for (int k = 4; k < NL; k++)
        snprintf(cell[k], 64, "-");
    if (b->batch_seqs == 0)
        return;
    snprintf(cell[4], 64, "%lld", (long long)b->batch_seqs);
    snprintf(cell[5], 64, "%.2f", (double)b->step_ns * 1e-6);
    snprintf(cell[6], 64, "%.0f", b->decode_tokens_per_s);
    snprintf(cell[7], 64, "%.0f", b->prefill_tokens_per_s);
    snprintf(cell[8], 64, "%.2f", b->replicas_mean);
    snprintf(cell[9], 64, "%.2f", b->replicas_peak);
    snprintf(cell[10], 64, "%.2f", b->replicas_peak_sum);
    snprintf(cell[11], 64, "%d..%d", b->min_replicas, b->cap_replicas);
    if (l->pd) {
        /* The groups: prefill's rate and sizes beside decode's. */
        const struct plan_bound *pb = &l->pd_prefill;
        snprintf(cell[3], 64, "%d+%d", l->pd_gpus[0], l->pd_gpus[1]);
        snprintf(cell[7], 64, "%.0f", pb->prefill_tokens_per_s);
        snprintf(cell[8], 64, "%.2f+%.2f", pb->replicas_mean, b->replicas_mean);
        snprintf(cell[9], 64, "%.2f+%.2f", pb->replicas_peak, b->replicas_peak);
        snprintf(cell[10], 64, "%.2f+%.2f", pb->replicas_peak_sum,
                 b->replicas_peak_sum);
        snprintf(cell[11], 64, "%d..%d+%d..%d", pb->min_replicas,
                 pb->cap_replicas, b->min_replicas, b->cap_replicas);
    }
}

static void print_row(char cell[][64], const int *w, int n, int nleft)
{
    for (int k = 0; k < n; k++) {
        printf("  ");
        if (k < nleft)
            lpad(cell[k], w[k]);
        else
            rpad(cell[k], w[k]);
    }
}

static void print_layouts(const struct plan *p, int verbose)
{
    const struct plan_counts *n = &p->counts;
    int w[NL];
    int64_t ctx = 0;
    char cell[NL][64];

    printf("layouts: %zu enumerated; %zu do not fit in memory, %zu cannot "
           "meet the slo even alone, %zu exceed --max-gpus or --budget; "
           "%zu searched\n",
           n->layouts, n->memory, n->slow, n->limit,
           n->layouts - n->memory - n->slow - n->limit);
    for (size_t i = 0; i < p->nlayouts; i++)
        if (p->layouts[i].bound.context_tokens > 0)
            ctx = p->layouts[i].bound.context_tokens;
    printf("bound at a decode context of %lld tokens (mean prompt + half the "
           "mean output)",
           (long long)ctx);
    if (p->target.tpot_ns > 0)
        printf(", batch within tpot %g ms", (double)p->target.tpot_ns * 1e-6);
    printf(":\n");
    for (int k = 0; k < NL; k++)
        w[k] = cols(layout_heads[k]);
    for (size_t i = 0; i < p->nlayouts; i++) {
        if (!verbose && p->layouts[i].verdict != PLAN_V_FITS)
            continue;
        layout_cells(&p->layouts[i], cell);
        for (int k = 0; k < NL; k++)
            if (cols(cell[k]) > w[k])
                w[k] = cols(cell[k]);
    }
    for (int k = 0; k < NL; k++)
        snprintf(cell[k], 64, "%s", layout_heads[k]);
    print_row(cell, w, NL, 3);
    printf("%s\n", verbose ? "  status" : "");
    for (size_t i = 0; i < p->nlayouts; i++) {
        const struct plan_layout *l = &p->layouts[i];

        if (!verbose && l->verdict != PLAN_V_FITS)
            continue;
        layout_cells(l, cell);
        print_row(cell, w, NL, 3);
        if (verbose)
            printf("  %s%s%s", verdict_name(l->verdict), l->why ? ": " : "",
                   l->why ? l->why : "");
        printf("\n");
    }
    printf("\n");
}

static void print_counts(const struct plan *p)
{
    const struct plan_counts *n = &p->counts;

    printf("pruned before simulating: %zu sizes below the throughput bound",
           n->below_bound);
    if (n->over_limit > 0)
        printf(", %zu over --max-gpus or --budget", n->over_limit);
    if (n->sampled_out > 0)
        printf(", %zu between sampled sizes", n->sampled_out);
    if (n->too_many > 0)
        printf(", %zu past the limit of %d configurations", n->too_many,
               PLAN_MAX_CONFIGS);
    if (p->mixed)
        printf(", %zu mixes below cluster.min_gpus or carrying less than the "
               "mean load at the bound",
               n->mix_short);
    printf("; sizes above %g x the peak estimate are taken as dominated on "
           "cost and not considered\n",
           p->opts.headroom);
    printf("simulated: %zu of %zu configurations (%zu run%s)", n->simulated,
           n->candidates, n->runs, n->runs == 1 ? "" : "s");
    if (n->dominated > 0)
        printf("; %zu not run: a smaller size of the same layout and policy "
               "met the slo",
               n->dominated);
    if (n->failed > 0)
        printf("; %zu failed", n->failed);
    printf("\n");
    if (n->capped_unmet > 0 && p->mixed)
        printf("%zu of %zu mixes of the pools but the last (and policies) "
               "met the slo at no capacity of the last pool\n",
               n->capped_unmet, n->chains);
    else if (n->capped_unmet > 0)
        printf("%zu of %zu layouts and policies met the slo at no size tried "
               "(largest tried: their cap or a limit; --headroom raises the "
               "cap)\n",
               n->capped_unmet, n->chains);
    printf("\n");
}

/* A row of the table: a simulated configuration and its cost. */
struct by_cost {
    double cost;
    size_t i;
};

/* Order of the table: by cost (NAN last), then enumeration order. */
static int cmp_cost(const void *a, const void *b)
{
    const struct by_cost *x = a, *y = b;

    if (isnan(x->cost) != isnan(y->cost))
        return isnan(x->cost) ? 1 : -1;
    if (x->cost != y->cost && !isnan(x->cost))
        return x->cost < y->cost ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Indexes of the simulated configurations, by cost. */
static size_t sorted_done(const struct plan *p, size_t *idx)
{
    struct by_cost *v = xcalloc(p->nconfigs + 1, sizeof(*v));
    size_t n = 0;

    for (size_t i = 0; i < p->nconfigs; i++)
        if (p->configs[i].state == PLAN_C_DONE) {
            v[n].cost = p->configs[i].m[PLAN_M_COST].mean;
            v[n].i = i;
            n++;
        }
    qsort(v, n, sizeof(*v), cmp_cost);
    for (size_t k = 0; k < n; k++)
        idx[k] = v[k].i;
    free(v);
    return n;
}

/* Columns of the configuration table; the policy only when elastic. The
 * first NLEFT are text, left-aligned. */
enum {
    K_GPU,
    K_LAYOUT,
    K_DTYPE,
    K_REPLICAS,
    K_GPUS,
    K_POLICY,
    K_COST,
    K_GPU_H,
    K_TTFT,
    K_TPOT,
    K_E2E,
    K_SLO,
    K_MEETS,
    NK,
    NLEFT = K_COST,
};

static const char *const config_heads[NK] = {
    "gpu",        "layout", "dtype", "replicas",    "gpus",
    "policy",     "cost $", "GPU-h", "TTFT p99 ms", "TPOT p99 ms",
    "E2E p99 ms", "SLO %",  "meets",
};

static void config_cells(const struct plan *p, const struct plan_config *c,
                         char cell[NK][80])
{
    const struct plan_layout *l = &p->layouts[c->layout];

    snprintf(cell[K_GPU], 80, "%s", l->gpu->name);
    plan_layout_name(l, cell[K_LAYOUT], 80);
    snprintf(cell[K_DTYPE], 80, "%s", perf_dtype_name(l->weight_dtype));
    plan_config_replicas(p->elastic, c, cell[K_REPLICAS], 80);
    if (p->mixed) {
        mix_col(p, c, 1, cell[K_GPU], 80);
        mix_col(p, c, 0, cell[K_LAYOUT], 80);
        snprintf(cell[K_REPLICAS], 80, "<=%d", c->replicas);
    }
    gpus_col(p, c, cell[K_GPUS], 80);
    snprintf(cell[K_POLICY], 80, "%s", policy_col(c));
    stat_col(cell[K_COST], 80, &c->m[PLAN_M_COST], 1, 2);
    stat_col(cell[K_GPU_H], 80, &c->m[PLAN_M_GPU_HOURS], 1, 2);
    stat_col(cell[K_TTFT], 80, &c->m[PLAN_M_TTFT_P99], 1, 2);
    stat_col(cell[K_TPOT], 80, &c->m[PLAN_M_TPOT_P99], 1, 2);
    stat_col(cell[K_E2E], 80, &c->m[PLAN_M_E2E_P99], 1, 0);
    stat_col(cell[K_SLO], 80, &c->m[PLAN_M_ATTAINMENT], 100, 2);
    snprintf(cell[K_MEETS], 80, "%s", c->meets ? "yes" : "no");
}

static void print_cell(const char *s, int k, int w)
{
    printf("  ");
    if (k < NLEFT)
        lpad(s, w);
    else
        rpad(s, w);
}

static void print_configs(const struct plan *p, const size_t *idx, size_t n)
{
    int w[NK];
    char cell[NK][80];

    printf("configurations simulated, by cost (* on the Pareto frontier of "
           "cost vs p99 %s):\n",
           plan_latency_name(p->latency));
    for (int k = 0; k < NK; k++)
        w[k] = cols(config_heads[k]);
    for (size_t r = 0; r < n; r++) {
        config_cells(p, &p->configs[idx[r]], cell);
        for (int k = 0; k < NK; k++)
            if (cols(cell[k]) > w[k])
                w[k] = cols(cell[k]);
    }
    printf(" ");
    for (int k = 0; k < NK; k++)
        if (k != K_POLICY || p->elastic)
            print_cell(config_heads[k], k, w[k]);
    printf("\n");
    for (size_t r = 0; r < n; r++) {
        const struct plan_config *c = &p->configs[idx[r]];

        config_cells(p, c, cell);
        printf("%s", c->frontier ? "*" : " ");
        for (int k = 0; k < NK; k++)
            if (k != K_POLICY || p->elastic)
                print_cell(cell[k], k, w[k]);
        printf("\n");
    }
    printf("\n");
}

static void describe(const struct plan *p, const struct plan_config *c,
                     char *buf, size_t len)
{
    const struct plan_layout *l = &p->layouts[c->layout];
    char name[64], gpus[32];

    plan_layout_name(l, name, sizeof(name));
    gpus_col(p, c, gpus, sizeof(gpus));
    if (p->mixed) {
        char mix[160];
        mix_col(p, c, 0, mix, sizeof(mix));
        snprintf(buf, len, "mix %s, %s %s gpus, %s", mix,
                 perf_dtype_name(l->weight_dtype), gpus, policy_col(c));
    } else if (p->elastic)
        snprintf(buf, len, "%s %s %s, %s gpus, %s", l->gpu->name, name,
                 perf_dtype_name(l->weight_dtype), gpus, policy_col(c));
    else if (l->pd)
        snprintf(buf, len,
                 "%s %s %s, %d prefill replica%s of %d gpus + %d decode "
                 "replica%s of %d gpus",
                 l->gpu->name, name, perf_dtype_name(l->weight_dtype),
                 c->replicas, c->replicas == 1 ? "" : "s", l->pd_gpus[0],
                 c->pd_decode, c->pd_decode == 1 ? "" : "s", l->pd_gpus[1]);
    else
        snprintf(buf, len, "%s %s %s, %d replica%s of %d gpu%s", l->gpu->name,
                 name, perf_dtype_name(l->weight_dtype), c->replicas,
                 c->replicas == 1 ? "" : "s", l->gpus, l->gpus == 1 ? "" : "s");
}

static void print_frontier(const struct plan *p, const size_t *idx, size_t n)
{
    static const int lat_metric[] = {
        [PLAN_LAT_TPOT] = PLAN_M_TPOT_P99,
        [PLAN_LAT_TTFT] = PLAN_M_TTFT_P99,
        [PLAN_LAT_E2E] = PLAN_M_E2E_P99,
    };
    size_t nf = 0;
    char buf[256];

    for (size_t r = 0; r < n; r++)
        nf += (size_t)p->configs[idx[r]].frontier;
    printf("Pareto frontier of cost vs p99 %s: %zu configurations\n",
           plan_latency_name(p->latency), nf);
    for (size_t r = 0; r < n; r++) {
        const struct plan_config *c = &p->configs[idx[r]];
        if (!c->frontier)
            continue;
        describe(p, c, buf, sizeof(buf));
        printf("  $%.2f  %.2f ms  %s%s%s\n", c->m[PLAN_M_COST].mean,
               c->m[lat_metric[p->latency]].mean, buf,
               c->meets ? "  meets the slo" : "",
               (long)idx[r] == p->chosen ? "  <- chosen" : "");
    }
    printf("\n");
}

/* Columns of the interval table; the first PI_NLEFT are text. */
enum {
    PI_RANK,
    PI_GPU,
    PI_LAYOUT,
    PI_DTYPE,
    PI_REPLICAS,
    PI_GPUS,
    PI_POLICY,
    PI_COST,
    PI_SLO,
    PI_TTFT,
    PI_TPOT,
    PI_E2E,
    PI_HOLDS,
    PI_NK,
    PI_NLEFT = PI_COST,
};

static const char *const pi_heads[PI_NK] = {
    "rank",        "gpu",        "layout", "dtype", "replicas",
    "gpus",        "policy",     "cost $", "SLO %", "TTFT p99 ms",
    "TPOT p99 ms", "E2E p99 ms", "holds",
};

/* "[lo, hi]" of metric m times scale, or "n/a". */
static void pi_col(char *buf, size_t len, const struct cl_pi *pi, int m,
                   double scale, int prec)
{
    if (isnan(pi->lo[m]))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "[%.*f, %.*f]", prec, pi->lo[m] * scale, prec,
                 pi->hi[m] * scale);
}

static void pi_cells(const struct plan *p, size_t row, char cell[PI_NK][80])
{
    const struct plan_config *c = &p->configs[p->pi_order[row]];
    const struct plan_layout *l = &p->layouts[c->layout];

    if (p->opts.robust && !c->holds)
        snprintf(cell[PI_RANK], 80, "-");
    else
        snprintf(cell[PI_RANK], 80, "%zu", row + 1);
    snprintf(cell[PI_GPU], 80, "%s", l->gpu->name);
    plan_layout_name(l, cell[PI_LAYOUT], 80);
    snprintf(cell[PI_DTYPE], 80, "%s", perf_dtype_name(l->weight_dtype));
    plan_config_replicas(p->elastic, c, cell[PI_REPLICAS], 80);
    gpus_col(p, c, cell[PI_GPUS], 80);
    snprintf(cell[PI_POLICY], 80, "%s", policy_col(c));
    pi_col(cell[PI_COST], 80, c->pi, CL_PI_COST, 1, 2);
    pi_col(cell[PI_SLO], 80, c->pi, CL_PI_SLO, 100, 2);
    pi_col(cell[PI_TTFT], 80, c->pi, CL_PI_TTFT_P99, 1, 2);
    pi_col(cell[PI_TPOT], 80, c->pi, CL_PI_TPOT_P99, 1, 2);
    pi_col(cell[PI_E2E], 80, c->pi, CL_PI_E2E_P99, 1, 0);
    snprintf(cell[PI_HOLDS], 80, "%s", c->holds ? "yes" : "no");
}

static void print_pi_cell(const char *s, int k, int w)
{
    printf("  ");
    if (k < PI_NLEFT)
        lpad(s, w);
    else
        rpad(s, w);
}

/* --uncertainty: the configurations with intervals, in p->pi_order. */
static void print_intervals(const struct plan *p)
{
    int w[PI_NK];
    char cell[PI_NK][80];

    if (p->opts.draws <= 0)
        return;
    printf("prediction intervals (95 %%) of the %zu cheapest configurations "
           "that met the slo: %d draws each of the calibration's uncertain "
           "parameters (and its structural error where the profile gives "
           "one), on the seed of the first replication; they are the "
           "calibration's uncertainty, while the ± of the table above is "
           "seed noise (replications)",
           p->npi, p->opts.draws);
    if (p->opts.robust)
        printf("; ranked by the upper end of the cost interval among those "
               "whose slo attainment interval holds >= %g%% (robust)",
               100 * p->attainment);
    printf(":\n");
    if (p->npi == 0) {
        printf("  none: no configuration met the slo\n\n");
        return;
    }
    for (int k = 0; k < PI_NK; k++)
        w[k] = cols(pi_heads[k]);
    for (size_t r = 0; r < p->npi; r++) {
        pi_cells(p, r, cell);
        for (int k = 0; k < PI_NK; k++)
            if (cols(cell[k]) > w[k])
                w[k] = cols(cell[k]);
    }
    for (int k = 0; k < PI_NK; k++)
        if (k != PI_POLICY || p->elastic)
            print_pi_cell(pi_heads[k], k, w[k]);
    printf("\n");
    for (size_t r = 0; r < p->npi; r++) {
        pi_cells(p, r, cell);
        for (int k = 0; k < PI_NK; k++)
            if (k != PI_POLICY || p->elastic)
                print_pi_cell(cell[k], k, w[k]);
        printf("\n");
    }
    printf("(holds: the lower end of the slo attainment interval is at least "
           "the target)\n\n");
}

static void print_chosen(const struct plan *p)
{
    const struct plan_config *c;
    char buf[256], *ov;

    const char *how = p->opts.robust ? "chosen (robust)" : "chosen";

    if (p->chosen < 0 && p->opts.robust && p->cheapest >= 0) {
        describe(p, &p->configs[p->cheapest], buf, sizeof(buf));
        printf("%s: none; the slo attainment interval of none of the %zu "
               "cheapest that met the slo holds >= %g%% (the cheapest on "
               "the plan's own values: %s)\n",
               how, p->npi, 100 * p->attainment, buf);
        return;
    }
    if (p->chosen < 0) {
        printf("%s: none; no configuration simulated met the slo\n", how);
        return;
    }
    c = &p->configs[p->chosen];
    describe(p, c, buf, sizeof(buf));
    printf("%s: %s: $%.2f (%.2f GPU-hours), p99 TTFT %.2f ms, p99 TPOT "
           "%.2f ms, slo attainment %.2f%% >= %g%%\n",
           how, buf, c->m[PLAN_M_COST].mean, c->m[PLAN_M_GPU_HOURS].mean,
           c->m[PLAN_M_TTFT_P99].mean, c->m[PLAN_M_TPOT_P99].mean,
           100 * c->m[PLAN_M_ATTAINMENT].mean, 100 * p->attainment);
    if (c->pi != NULL)
        printf("  within the calibration's uncertainty (95 %%): cost "
               "$%.2f to $%.2f, slo attainment %.2f%% to %.2f%%%s\n",
               c->pi->lo[CL_PI_COST], c->pi->hi[CL_PI_COST],
               100 * c->pi->lo[CL_PI_SLO], 100 * c->pi->hi[CL_PI_SLO],
               p->opts.robust ? "; ranked by the upper end of cost" : "");
    if (p->opts.robust && p->cheapest >= 0 && p->cheapest != p->chosen) {
        const struct plan_config *k = &p->configs[p->cheapest];
        describe(p, k, buf, sizeof(buf));
        if (k->pi != NULL && !k->holds)
            printf("  the cheapest on the plan's own values, %s ($%.2f), "
                   "is not robust: its slo attainment interval falls to "
                   "%.2f%%\n",
                   buf, k->m[PLAN_M_COST].mean, 100 * k->pi->lo[CL_PI_SLO]);
        else if (k->pi != NULL)
            printf("  the cheapest on the plan's own values, %s ($%.2f), "
                   "costs up to $%.2f\n",
                   buf, k->m[PLAN_M_COST].mean, k->pi->hi[CL_PI_COST]);
    }
    for (int i = 0; i < p->mixed; i++) {
        const struct plan_layout *l = &p->layouts[i];
        char name[64];
        plan_layout_name(l, name, sizeof(name));
        printf("  pool %s (%s %s): %d replica%s of %d gpus (capacity_gpus "
               "%d), used %.2f GPU-hours, $%.2f\n",
               l->pool_name, l->gpu->name, name, c->mix[i],
               c->mix[i] == 1 ? "" : "s", l->gpus, c->mix[i] * l->gpus,
               c->mix_gpu_hours[i], c->mix_cost[i]);
    }
    ov = plan_config_overrides(p, (size_t)p->chosen, "  ");
    printf("keys to set in %s (a sweep's set: takes them as they are):\n%s",
           p->scenario_file, ov);
    free(ov);
    if (p->opts.calibration != NULL)
        printf("priced with the calibration profile %s (dsec run "
               "--calibration %s prices the scenario with these keys the "
               "same way)\n",
               p->opts.calibration, p->opts.calibration);
}

/* ---- JSON ------------------------------------------------------------- */

static struct json_object *jms(int64_t ns)
{
    return ns >= 0 ? rpt_json_double((double)ns * 1e-6, RPT_JSON_SHORTEST)
                   : NULL;
}

static struct json_object *jsize(size_t v)
{
    return json_object_new_int64((int64_t)v);
}

static struct json_object *json_layout(const struct plan_layout *l)
{
    struct json_object *o = json_object_new_object();
    const struct plan_bound *b = &l->bound;
    int bounded = b->batch_seqs > 0;

    json_object_object_add(o, "gpu", json_object_new_string(l->gpu->name));
    json_object_object_add(o, "tp", json_object_new_int(l->tp));
    json_object_object_add(o, "pp", json_object_new_int(l->pp));
    json_object_object_add(o, "ep", json_object_new_int(l->ep));
    json_object_object_add(
        o, "weight_dtype",
        json_object_new_string(perf_dtype_name(l->weight_dtype)));
    json_object_object_add(o, "gpus", json_object_new_int(l->gpus));
    json_object_object_add(
        o, "price_usd_per_gpu_hour",
        rpt_json_double(l->price_usd_per_gpu_hour, RPT_JSON_SHORTEST));
    json_object_object_add(o, "verdict",
                           json_object_new_string(verdict_name(l->verdict)));
    json_object_object_add(o, "reason",
                           l->why ? json_object_new_string(l->why) : NULL);
    json_object_object_add(
        o, "batch_seqs", bounded ? json_object_new_int64(b->batch_seqs) : NULL);
    json_object_object_add(
        o, "step_ms",
        bounded ? rpt_json_double((double)b->step_ns * 1e-6, RPT_JSON_SHORTEST)
                : NULL);
    json_object_object_add(
        o, "decode_tokens_per_s",
        bounded ? rpt_json_double(b->decode_tokens_per_s, RPT_JSON_SHORTEST)
                : NULL);
    json_object_object_add(
        o, "prefill_tokens_per_s",
        bounded ? rpt_json_double(b->prefill_tokens_per_s, RPT_JSON_SHORTEST)
                : NULL);
    json_object_object_add(
        o, "replicas_mean",
        bounded ? rpt_json_double(b->replicas_mean, RPT_JSON_SHORTEST) : NULL);
    json_object_object_add(
        o, "replicas_peak",
        bounded ? rpt_json_double(b->replicas_peak, RPT_JSON_SHORTEST) : NULL);
    json_object_object_add(
        o, "replicas_peak_sum",
        bounded ? rpt_json_double(b->replicas_peak_sum, RPT_JSON_SHORTEST)
                : NULL);
    json_object_object_add(o, "min_replicas",
                           bounded ? json_object_new_int(b->min_replicas)
                                   : NULL);
    json_object_object_add(o, "cap_replicas",
                           bounded ? json_object_new_int(b->cap_replicas)
                                   : NULL);
    return o;
}

static struct json_object *json_overrides(const struct plan *p, size_t i)
{
    struct json_object *o = json_object_new_object();
    const char *path = NULL, *value = NULL;
    int n = plan_config_value(p, i, -1, &path, &value);

    for (int c = 0; c < n; c++) {
        plan_config_value(p, i, c, &path, &value);
        if (value != NULL && strcmp(path, "seed") != 0)
            json_object_object_add(o, path, json_object_new_string(value));
    }
    return o;
}

static struct json_object *json_config(const struct plan *p, size_t i)
{
    static const char *const names[PLAN_M_COUNT] = {
        [PLAN_M_COST] = "cost_usd",
        [PLAN_M_GPU_HOURS] = "gpu_hours",
        [PLAN_M_TTFT_P99] = "ttft_ms_p99",
        [PLAN_M_TPOT_P99] = "tpot_ms_p99",
        [PLAN_M_E2E_P99] = "e2e_ms_p99",
        [PLAN_M_ATTAINMENT] = "slo_attainment",
    };
    const struct plan_config *c = &p->configs[i];
    const struct plan_layout *l = &p->layouts[c->layout];
    struct json_object *o = json_object_new_object();
    char name[64];

    plan_layout_name(l, name, sizeof(name));
    json_object_object_add(o, "gpu", json_object_new_string(l->gpu->name));
    json_object_object_add(o, "layout", json_object_new_string(name));
    json_object_object_add(
        o, "weight_dtype",
        json_object_new_string(perf_dtype_name(l->weight_dtype)));
    json_object_object_add(o, "gpus_per_replica", json_object_new_int(l->gpus));
    json_object_object_add(o, "replicas", json_object_new_int(c->replicas));
    json_object_object_add(o, "min_replicas",
                           json_object_new_int(c->min_replicas));
    json_object_object_add(
        o, "gpus", json_object_new_int(plan_config_gpus(p->layouts, c)));
    if (p->mixed) {
        struct json_object *arr = json_object_new_array();
        for (int k = 0; k < p->mixed; k++) {
            const struct plan_layout *pl = &p->layouts[k];
            struct json_object *m = json_object_new_object();
            char lname[64];
            plan_layout_name(pl, lname, sizeof(lname));
            json_object_object_add(m, "pool",
                                   json_object_new_string(pl->pool_name));
            json_object_object_add(m, "gpu",
                                   json_object_new_string(pl->gpu->name));
            json_object_object_add(m, "layout", json_object_new_string(lname));
            json_object_object_add(m, "replicas",
                                   json_object_new_int(c->mix[k]));
            json_object_object_add(m, "capacity_gpus",
                                   json_object_new_int(c->mix[k] * pl->gpus));
            json_object_object_add(
                m, "gpu_hours",
                rpt_json_double(c->mix_gpu_hours[k], RPT_JSON_SHORTEST));
            json_object_object_add(
                m, "cost_usd",
                rpt_json_double(c->mix_cost[k], RPT_JSON_SHORTEST));
            json_object_array_add(arr, m);
        }
        json_object_object_add(o, "mix", arr);
    }
    if (l->pd) {
        json_object_object_add(o, "prefill_replicas",
                               json_object_new_int(c->replicas));
        json_object_object_add(o, "decode_replicas",
                               json_object_new_int(c->pd_decode));
        json_object_object_add(o, "prefill_gpus_per_replica",
                               json_object_new_int(l->pd_gpus[0]));
    }
    json_object_object_add(o, "policy",
                           c->policy_run ? json_object_new_string(c->policy_run)
                           : c->policy   ? json_object_new_string(c->policy)
                                         : NULL);
    for (int k = 0; k < PLAN_M_COUNT; k++) {
        char *ci = xasprintf("%s_ci95", names[k]);
        json_object_object_add(
            o, names[k], rpt_json_double(c->m[k].mean, RPT_JSON_SHORTEST));
        json_object_object_add(
            o, ci, rpt_json_double(c->m[k].ci95, RPT_JSON_SHORTEST));
        free(ci);
    }
    json_object_object_add(o, "meets", json_object_new_boolean(c->meets));
    json_object_object_add(o, "frontier", json_object_new_boolean(c->frontier));
    if (p->opts.draws > 0) {
        json_object_object_add(o, "prediction_interval",
                               c->pi ? rpt_pi_json(c->pi) : NULL);
        json_object_object_add(
            o, "holds", c->pi ? json_object_new_boolean(c->holds) : NULL);
    }
    json_object_object_add(o, "overrides", json_overrides(p, i));
    return o;
}

static void print_json(const struct plan *p, const size_t *idx, size_t n)
{
    struct json_object *o = json_object_new_object();
    struct json_object *x, *arr;
    const struct plan_counts *k = &p->counts;
    long chosen_row = -1, cheapest_row = -1;

    json_object_object_add(o, "scenario", json_object_new_string(p->scn.name));
    json_object_object_add(o, "scenario_file",
                           json_object_new_string(p->scenario_file));
    json_object_object_add(o, "model", json_object_new_string(p->arch->name));
    x = json_object_new_object();
    json_object_object_add(x, "ttft_ms", jms(p->scn.slo.ttft_ns));
    json_object_object_add(x, "tpot_ms", jms(p->scn.slo.tpot_ns));
    json_object_object_add(x, "e2e_ms", jms(p->scn.slo.e2e_ns));
    json_object_object_add(x, "attainment",
                           rpt_json_double(p->attainment, RPT_JSON_SHORTEST));
    json_object_object_add(o, "slo", x);
    json_object_object_add(
        o, "latency", json_object_new_string(plan_latency_name(p->latency)));
    x = json_object_new_object();
    json_object_object_add(x, "requests",
                           json_object_new_int64((int64_t)p->wl.requests));
    json_object_object_add(x, "span_s",
                           rpt_json_double(p->wl.span_s, RPT_JSON_SHORTEST));
    json_object_object_add(
        x, "rate_mean_per_s",
        rpt_json_double(p->wl.rate_mean_per_s, RPT_JSON_SHORTEST));
    json_object_object_add(
        x, "rate_peak_per_s",
        rpt_json_double(p->wl.rate_peak_per_s, RPT_JSON_SHORTEST));
    json_object_object_add(x, "window_s",
                           rpt_json_double(p->wl.window_s, RPT_JSON_SHORTEST));
    json_object_object_add(
        x, "prompt_mean_tokens",
        rpt_json_double(p->wl.prompt_mean_tokens, RPT_JSON_SHORTEST));
    json_object_object_add(
        x, "output_mean_tokens",
        rpt_json_double(p->wl.output_mean_tokens, RPT_JSON_SHORTEST));
    json_object_object_add(o, "workload", x);
    x = json_object_new_object();
    arr = json_object_new_array();
    for (int i = 0; i < p->ngpus; i++)
        json_object_array_add(arr, json_object_new_string(p->gpus[i]->name));
    json_object_object_add(x, "gpus", arr);
    arr = json_object_new_array();
    if (p->opts.dtypes == NULL)
        json_object_array_add(arr, json_object_new_string(perf_dtype_name(
                                       p->scn.deploy.weight_dtype)));
    for (int i = 0; p->opts.dtypes && i < p->opts.ndtypes; i++)
        json_object_array_add(
            arr, json_object_new_string(perf_dtype_name(p->opts.dtypes[i])));
    json_object_object_add(x, "weight_dtypes", arr);
    arr = NULL;
    if (p->opts.policies != NULL) {
        arr = json_object_new_array();
        for (int i = 0; i < p->opts.npolicies; i++)
            json_object_array_add(arr,
                                  json_object_new_string(p->opts.policies[i]));
    }
    json_object_object_add(x, "policies", arr);
    json_object_object_add(x, "elastic", json_object_new_boolean(p->elastic));
    json_object_object_add(
        x, "budget_usd_per_hour",
        rpt_json_double(p->opts.budget_usd_per_hour, RPT_JSON_SHORTEST));
    json_object_object_add(
        x, "max_gpus",
        p->opts.max_gpus > 0 ? json_object_new_int(p->opts.max_gpus) : NULL);
    json_object_object_add(
        x, "headroom", rpt_json_double(p->opts.headroom, RPT_JSON_SHORTEST));
    json_object_object_add(x, "beyond", json_object_new_int(p->opts.beyond));
    json_object_object_add(x, "replications",
                           json_object_new_int(p->opts.replications));
    json_object_object_add(x, "seed",
                           json_object_new_int64((int64_t)p->scn.seed));
    json_object_object_add(
        x, "duration",
        p->opts.duration ? json_object_new_string(p->opts.duration) : NULL);
    /* Only when used: the plans pinned by tests/pin-results.sh print
     * what they printed before these options. */
    if (p->scn.calib != NULL && p->scn.calib->file != NULL)
        json_object_object_add(x, "calibration",
                               json_object_new_string(p->scn.calib->file));
    if (p->opts.draws > 0) {
        json_object_object_add(x, "uncertainty",
                               json_object_new_int(p->opts.draws));
        json_object_object_add(x, "uncertainty_configs",
                               json_object_new_int(pi_configs(p)));
        json_object_object_add(x, "robust",
                               json_object_new_boolean(p->opts.robust));
    }
    json_object_object_add(o, "search", x);
    arr = json_object_new_array();
    for (size_t i = 0; i < p->nlayouts; i++)
        json_object_array_add(arr, json_layout(&p->layouts[i]));
    json_object_object_add(o, "layouts", arr);
    x = json_object_new_object();
    json_object_object_add(x, "layouts", jsize(k->layouts));
    json_object_object_add(x, "layouts_memory", jsize(k->memory));
    json_object_object_add(x, "layouts_slow", jsize(k->slow));
    json_object_object_add(x, "layouts_limit", jsize(k->limit));
    json_object_object_add(x, "sizes_below_bound", jsize(k->below_bound));
    json_object_object_add(x, "sizes_over_limit", jsize(k->over_limit));
    json_object_object_add(x, "sizes_sampled_out", jsize(k->sampled_out));
    json_object_object_add(x, "candidates", jsize(k->candidates));
    json_object_object_add(x, "simulated", jsize(k->simulated));
    json_object_object_add(x, "dominated", jsize(k->dominated));
    json_object_object_add(x, "failed", jsize(k->failed));
    json_object_object_add(x, "runs", jsize(k->runs));
    json_object_object_add(o, "counts", x);
    arr = json_object_new_array();
    for (size_t r = 0; r < n; r++) {
        json_object_array_add(arr, json_config(p, idx[r]));
        if ((long)idx[r] == p->chosen)
            chosen_row = (long)r;
        if ((long)idx[r] == p->cheapest)
            cheapest_row = (long)r;
    }
    json_object_object_add(o, "configurations", arr);
    if (p->opts.draws > 0) {
        x = json_object_new_object();
        json_object_object_add(x, "draws", json_object_new_int(p->opts.draws));
        json_object_object_add(
            x, "level", rpt_json_double(PLAN_PI_LEVEL, RPT_JSON_SHORTEST));
        json_object_object_add(x, "ranked_by",
                               json_object_new_string(p->opts.robust
                                                          ? "cost_usd_hi"
                                                          : "cost_usd"));
        arr = json_object_new_array();
        for (size_t q = 0; q < p->npi; q++)
            for (size_t r = 0; r < n; r++)
                if (idx[r] == p->pi_order[q])
                    json_object_array_add(arr,
                                          json_object_new_int64((int64_t)r));
        json_object_object_add(x, "order", arr);
        json_object_object_add(o, "uncertainty", x);
    }
    arr = json_object_new_array();
    for (size_t r = 0; r < n; r++)
        if (p->configs[idx[r]].frontier)
            json_object_array_add(arr, json_object_new_int64((int64_t)r));
    json_object_object_add(o, "frontier", arr);
    json_object_object_add(o, "chosen",
                           chosen_row >= 0 ? json_object_new_int64(chosen_row)
                                           : NULL);
    if (p->opts.draws > 0) {
        json_object_object_add(
            o, "chosen_by",
            json_object_new_string(p->opts.robust ? "robust" : "cost"));
        json_object_object_add(
            o, "cheapest",
            cheapest_row >= 0 ? json_object_new_int64(cheapest_row) : NULL);
    }
    rpt_json_print(stdout, o);
    json_object_put(o);
}

/* ---- Files ------------------------------------------------------------ */

/* Writes the chosen configuration's scenario to path, over the
 * scenario's own duration when --duration shortened the runs. Returns 0
 * or -1 (a message on stderr). */
static int save_scenario(const struct plan *p, const char *path)
{
    struct sim_diag d;
    char *text;
    FILE *fp;
    int rc = 0;

    if (p->chosen < 0) {
        fprintf(stderr,
                "dsec plan: --save-scenario: nothing chosen; %s not "
                "written\n",
                path);
        return -1;
    }
    sim_diag_init(&d);
    text = plan_config_scenario(p, (size_t)p->chosen, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    if (text == NULL)
        return -1;
    fp = fopen(path, "w");
    if (fp == NULL) {
        perror(path);
        free(text);
        return -1;
    }
    fprintf(fp,
            p->opts.robust
                ? "# Written by dsec plan --robust %s: of the configurations "
                  "that met the slo, the one\n# with the lowest upper end of "
                  "the cost interval whose slo attainment interval held.\n"
                : "# Written by dsec plan %s: the cheapest configuration "
                  "that met the slo.\n",
            p->scenario_file);
    if (p->duration_key != NULL)
        fprintf(fp,
                "# The runs were shortened to %s (--duration); this is the "
                "scenario's own duration.\n",
                p->opts.duration);
    fputs(text, fp);
    free(text);
    if (ferror(fp))
        rc = -1;
    if (fclose(fp) != 0)
        rc = -1;
    if (rc != 0)
        perror(path);
    return rc;
}

/* Writes the launch that --launch asked for (plan/launch.h). Returns 0 or
 * -1 (diagnostics on stderr). */
static int launch(const struct plan *p, const char *dir)
{
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = plan_launch_write(p, dir, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    return rc == 0 ? 0 : -1;
}

/* Draws the frontier chart that --chart asked for; a chart that cannot be
 * drawn (no gnuplot, or gnuplot fails) is an error. Returns 0 or -1. */
static int chart(const struct plan *p, const char *png)
{
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = plan_chart(p, rpt_gp_find(), png, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    return rc;
}

/* ---- The command ------------------------------------------------------ */

struct args {
    struct list gpus, dtypes, policies;
    struct cli_sets sets; /* --set KEY=VALUE */
    int dtype_values[MAX_LIST];
    struct plan_opts o;
    long jobs;
    int json, verbose, quiet;
    const char *chart, *save, *launch, *db;
};

static int parse_number(const char *opt, const char *s, double lo, double hi,
                        double *out)
{
    char *end;
    double v = strtod(s, &end);

    if (*s == '\0' || *end != '\0' || !(v >= lo && v <= hi)) {
        char *why = xasprintf("%s: expected a number in [%g, %g], got '%s'",
                              opt, lo, hi, s);
        cli_usage_error(&cli_cmd_plan, why);
        free(why);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
    enum {
        O_GPUS = 256,
        O_SET,
        O_DTYPES,
        O_POLICIES,
        O_BUDGET,
        O_MAX_GPUS,
        O_ATTAIN,
        O_HEADROOM,
        O_BEYOND,
        O_REPS,
        O_DURATION,
        O_JSON,
        O_CHART,
        O_SAVE,
        O_LAUNCH,
        O_DB,
        O_VERBOSE,
        O_QUIET,
        O_CALIB,
        O_UNCERT,
        O_UNCERT_K,
        O_ROBUST,
    };
    static const struct option longopts[] = {
        {"gpus", required_argument, NULL, O_GPUS},
        {"set", required_argument, NULL, O_SET},
        {"dtypes", required_argument, NULL, O_DTYPES},
        {"policies", required_argument, NULL, O_POLICIES},
        {"budget", required_argument, NULL, O_BUDGET},
        {"max-gpus", required_argument, NULL, O_MAX_GPUS},
        {"attainment", required_argument, NULL, O_ATTAIN},
        {"headroom", required_argument, NULL, O_HEADROOM},
        {"beyond", required_argument, NULL, O_BEYOND},
        {"replications", required_argument, NULL, O_REPS},
        {"duration", required_argument, NULL, O_DURATION},
        {"calibration", required_argument, NULL, O_CALIB},
        {"uncertainty", required_argument, NULL, O_UNCERT},
        {"uncertainty-configs", required_argument, NULL, O_UNCERT_K},
        {"robust", no_argument, NULL, O_ROBUST},
        {"jobs", required_argument, NULL, 'j'},
        {"json", no_argument, NULL, O_JSON},
        {"chart", required_argument, NULL, O_CHART},
        {"save-scenario", required_argument, NULL, O_SAVE},
        {"launch", required_argument, NULL, O_LAUNCH},
        {"db", required_argument, NULL, O_DB},
        {"verbose", no_argument, NULL, O_VERBOSE},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char err[SIM_PARAM_ERRLEN];
    double v;
    int opt;

    a->o.budget_usd_per_hour = NAN;
    a->o.attainment = 0.99;
    a->o.headroom = 2;
    a->o.beyond = 1;
    a->o.replications = 1;
    a->jobs = -1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
        switch (opt) {
        case O_SET:
            if (cli_set_add(&a->sets, optarg) != 0)
                return cli_usage_error(&cli_cmd_plan, CLI_SET_USAGE);
            a->o.sets = a->sets.v;
            a->o.nsets = a->sets.n;
            break;
        case O_GPUS:
            if (split(optarg, &a->gpus) != 0)
                return cli_usage_error(&cli_cmd_plan,
                                       "--gpus: expected a list of gpu names, "
                                       "e.g. h100,h200");
            a->o.gpus = (const char *const *)a->gpus.v;
            a->o.ngpus = a->gpus.n;
            break;
        case O_DTYPES:
            if (split(optarg, &a->dtypes) != 0)
                return cli_usage_error(&cli_cmd_plan,
                                       "--dtypes: expected a list of bf16, "
                                       "fp8, int4");
            for (int i = 0; i < a->dtypes.n; i++) {
                a->dtype_values[i] = dtype_of(a->dtypes.v[i]);
                if (a->dtype_values[i] < 0) {
                    char *why = xasprintf("--dtypes: unknown weight dtype "
                                          "'%s'; valid: bf16, fp8, int4",
                                          a->dtypes.v[i]);
                    cli_usage_error(&cli_cmd_plan, why);
                    free(why);
                    return CLI_EXIT_USAGE;
                }
            }
            a->o.dtypes = a->dtype_values;
            a->o.ndtypes = a->dtypes.n;
            break;
        case O_POLICIES:
            if (split(optarg, &a->policies) != 0)
                return cli_usage_error(&cli_cmd_plan,
                                       "--policies: expected a list of "
                                       "policy names");
            a->o.policies = (const char *const *)a->policies.v;
            a->o.npolicies = a->policies.n;
            break;
        case O_BUDGET:
            if (sim_unit_parse(SIM_U_USD_PER_HOUR, optarg, &v, err,
                               sizeof(err)) != 0 ||
                !(v > 0)) {
                char *why = xasprintf("--budget: %s",
                                      v > 0 ? err
                                            : "expected a positive price per "
                                              "hour, e.g. $200/h");
                cli_usage_error(&cli_cmd_plan, why);
                free(why);
                return CLI_EXIT_USAGE;
            }
            a->o.budget_usd_per_hour = v;
            break;
        case O_MAX_GPUS:
            if (parse_number("--max-gpus", optarg, 1, 1e6, &v) != 0 ||
                v != floor(v))
                return cli_usage_error(&cli_cmd_plan,
                                       "--max-gpus: expected a whole number "
                                       "of gpus");
            a->o.max_gpus = (int)v;
            break;
        case O_ATTAIN:
            if (sim_unit_parse(SIM_U_FRACTION, optarg, &v, err, sizeof(err)) !=
                    0 ||
                !(v > 0 && v <= 1))
                return cli_usage_error(&cli_cmd_plan,
                                       "--attainment: expected a fraction in "
                                       "(0, 1], e.g. 0.99 or 99%");
            a->o.attainment = v;
            break;
        case O_HEADROOM:
            if (parse_number("--headroom", optarg, 1, 100, &v) != 0)
                return CLI_EXIT_USAGE;
            a->o.headroom = v;
            break;
        case O_BEYOND:
            if (parse_number("--beyond", optarg, 0, 100, &v) != 0 ||
                v != floor(v))
                return cli_usage_error(&cli_cmd_plan,
                                       "--beyond: expected a whole number");
            a->o.beyond = (int)v;
            break;
        case O_REPS:
            if (parse_number("--replications", optarg, 1, 1000, &v) != 0 ||
                v != floor(v))
                return cli_usage_error(&cli_cmd_plan,
                                       "--replications: expected a whole "
                                       "number");
            a->o.replications = (int)v;
            break;
        case O_DURATION:
            a->o.duration = optarg;
            break;
        case O_CALIB:
            if (optarg[0] == '\0')
                return cli_usage_error(&cli_cmd_plan,
                                       "--calibration: expected a profile "
                                       "file");
            a->o.calibration = optarg;
            break;
        case O_UNCERT:
            if (parse_number("--uncertainty", optarg, 2, CL_PI_MAX_DRAWS, &v) !=
                0)
                return CLI_EXIT_USAGE;
            if (v != floor(v))
                return cli_usage_error(&cli_cmd_plan,
                                       "--uncertainty: expected a number of "
                                       "draws, 2 to 10000 (20 or more for a "
                                       "95 % interval)");
            a->o.draws = (int)v;
            break;
        case O_UNCERT_K:
            if (parse_number("--uncertainty-configs", optarg, 1, 1000, &v) != 0)
                return CLI_EXIT_USAGE;
            if (v != floor(v))
                return cli_usage_error(&cli_cmd_plan,
                                       "--uncertainty-configs: expected a "
                                       "whole number of configurations");
            a->o.pi_configs = (int)v;
            break;
        case O_ROBUST:
            a->o.robust = 1;
            break;
        case 'j':
            if (parse_number("-j", optarg, 1, 4096, &v) != 0 || v != floor(v))
                return cli_usage_error(&cli_cmd_plan,
                                       "-j: expected a number of threads");
            a->jobs = (long)v;
            break;
        case O_JSON:
            a->json = 1;
            break;
        case O_CHART:
            a->chart = optarg;
            break;
        case O_SAVE:
            a->save = optarg;
            break;
        case O_LAUNCH:
            if (optarg[0] == '\0')
                return cli_usage_error(&cli_cmd_plan,
                                       "--launch: expected a directory");
            a->launch = optarg;
            break;
        case O_DB:
            a->db = optarg;
            break;
        case O_VERBOSE:
            a->verbose = 1;
            break;
        case O_QUIET:
            a->quiet = 1;
            break;
        case 'h':
            printf("usage: dsec plan %s\n\n%s.\n\n%s", cli_cmd_plan.usage,
                   cli_cmd_plan.summary, usage_text);
            return -1;
        default:
            return cli_usage_error(&cli_cmd_plan, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_plan, "expected one scenario file");
    if (a->o.robust && a->o.draws == 0)
        return cli_usage_error(&cli_cmd_plan,
                               "--robust ranks by the pessimistic end of the "
                               "prediction intervals; it needs --uncertainty "
                               "N");
    if (a->o.pi_configs > 0 && a->o.draws == 0)
        return cli_usage_error(&cli_cmd_plan,
                               "--uncertainty-configs needs --uncertainty N");
    if (a->jobs < 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        a->jobs = cpus < 1 ? 1 : cpus;
    }
    return 0;
}

/* Reads the scenario and the search space into *p and runs the search on
 * a.jobs threads, recording the runs when --db is given. Prints
 * diagnostics to stderr. Returns an exit status. */
static int search(const char *file, const struct args *a, struct plan **p)
{
    struct plan_run_opts ro = {0};
    struct sim_diag d;
    int rc, err = 0;

    sim_diag_init(&d);
    *p = plan_new(file, &a->o, &d, &err);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    if (*p == NULL)
        return err == PLAN_E_INTERNAL ? CLI_EXIT_INTERNAL : CLI_EXIT_INPUT;

    sim_diag_init(&d);
    if (a->db != NULL) {
        ro.db = rpt_db_open(a->db, &d);
        if (ro.db == NULL) {
            sim_diag_print(&d, stderr);
            sim_diag_fini(&d);
            return CLI_EXIT_INPUT;
        }
    }
    ro.jobs = (int)a->jobs;
    ro.log = a->quiet || a->json ? NULL : stderr;
    ro.bar = isatty(STDERR_FILENO);
    ro.program_version = PACKAGE_VERSION;
    rc = plan_run(*p, &ro, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    rpt_db_close(ro.db);
    if (rc != 0)
        return CLI_EXIT_INPUT;
    if (a->o.draws == 0)
        return CLI_EXIT_OK;
    /* The draws are not recorded in --db: they are not sweep points. */
    sim_diag_init(&d);
    rc = plan_predict(*p, ro.jobs, ro.log, ro.bar, &d);
    sim_diag_print(&d, stderr);
    sim_diag_fini(&d);
    return rc != 0 ? cli_exit_status(rc) : CLI_EXIT_OK;
}

/* Prints the plan (text or JSON) and the wall time on stderr, then says
 * when nothing was chosen. Returns an exit status. */
static int print(const struct plan *p, const struct args *a)
{
    size_t *idx = xcalloc(p->nconfigs + 1, sizeof(*idx));
    size_t n = sorted_done(p, idx);
    int status = CLI_EXIT_OK;

    if (a->json) {
        print_json(p, idx, n);
    } else {
        print_header(p);
        print_layouts(p, a->verbose);
        print_counts(p);
        print_configs(p, idx, n);
        print_frontier(p, idx, n);
        print_intervals(p);
        print_chosen(p);
    }
    free(idx);
    fflush(stdout);
    if (!a->quiet && !a->json)
        fprintf(stderr,
                "dsec plan: %zu simulations in %.1f s of wall time on %ld "
                "threads%s",
                p->counts.runs, p->wall_s, a->jobs, p->npi > 0 ? "" : "\n");
    if (!a->quiet && !a->json && p->npi > 0)
        fprintf(stderr, ", then %zu draws for --uncertainty\n",
                p->npi * (size_t)p->opts.draws);
    if (p->counts.failed > 0)
        status = CLI_EXIT_INPUT;
    if (p->chosen < 0 && p->cheapest >= 0) {
        fprintf(stderr,
                "dsec plan: no configuration's slo attainment interval holds "
                ">= %g%% (--robust); try a larger --uncertainty-configs or "
                "--beyond, or a looser slo\n",
                100 * p->attainment);
        status = CLI_EXIT_INPUT;
    } else if (p->chosen < 0 && p->mixed) {
        fprintf(stderr,
                "dsec plan: no mix met the slo (attainment >= %g%%); try "
                "larger pools (capacity_gpus), other pools, or a looser "
                "slo\n",
                100 * p->attainment);
        status = CLI_EXIT_INPUT;
    } else if (p->chosen < 0) {
        fprintf(stderr,
                "dsec plan: no configuration met the slo (attainment >= "
                "%g%%); try more --gpus or --dtypes, a larger --headroom, "
                "or a looser slo\n",
                100 * p->attainment);
        status = CLI_EXIT_INPUT;
    }
    return status;
}

static int exec_plan(int argc, char **argv)
{
    struct args a;
    struct plan *p = NULL;
    int status;

    memset(&a, 0, sizeof(a));
    status = parse_args(argc, argv, &a);
    if (status == 0)
        status = search(argv[optind], &a, &p);
    if (status == 0) {
        status = print(p, &a);
        if (a.chart != NULL && chart(p, a.chart) != 0)
            status = CLI_EXIT_INPUT;
        if (a.save != NULL && save_scenario(p, a.save) != 0)
            status = CLI_EXIT_INPUT;
        if (a.launch != NULL && launch(p, a.launch) != 0)
            status = CLI_EXIT_INPUT;
    }
    plan_free(p);
    list_fini(&a.gpus);
    list_fini(&a.dtypes);
    list_fini(&a.policies);
    return status < 0 ? CLI_EXIT_OK : status;
}

const struct cli_entry cli_cmd_plan = {
    .name = "plan",
    .usage =
        "SCENARIO [--gpus LIST] [--dtypes LIST] [--policies LIST] "
        "[--budget PRICE] [--max-gpus N] [--attainment F] "
        "[--headroom F] [--beyond N] [--replications R] [--duration D] "
        "[--calibration PROFILE] [--uncertainty N "
        "[--uncertainty-configs K] [--robust]] "
        "[-j N] [--json] [--chart FILE.png] [--save-scenario FILE] "
        "[--launch DIR] [--db FILE] [--verbose] [--quiet] [--set KEY=VALUE]...",
    .summary = "find the cheapest configuration that meets the slo; the "
               "cost-latency frontier",
    .exec = exec_plan,
};
