/* The frontier chart of a plan, drawn by gnuplot in a job of
 * reports/gnuplot.h (which says how gnuplot is run and why): data files in
 * the job's temporary directory, one script, one PNG. The user asked for it
 * (--chart), so a chart that cannot be drawn is an error. */
#include "plan/plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/gnuplot.h"
#include "base/errors.h"
#include "base/xalloc.h"

/* Data files: every simulated configuration, those that meet the SLO, the
 * frontier in order of cost, the chosen one. */
enum { D_ALL, D_MEETS, D_FRONTIER, D_CHOSEN, D_COUNT };

static const char *const data_names[D_COUNT] = {
    "all.dat",
    "meets.dat",
    "frontier.dat",
    "chosen.dat",
};

static double latency(const struct plan *p, const struct plan_config *c)
{
    switch (p->latency) {
    case PLAN_LAT_TTFT:
        return c->m[PLAN_M_TTFT_P99].mean;
    case PLAN_LAT_E2E:
        return c->m[PLAN_M_E2E_P99].mean;
    }
    return c->m[PLAN_M_TPOT_P99].mean;
}

/* The label of a configuration: "h200 tp4 int4 x8". */
static void label(const struct plan *p, const struct plan_config *c, char *buf,
                  size_t len)
{
    const struct plan_layout *l = &p->layouts[c->layout];
    char name[64], reps[32];

    plan_layout_name(l, name, sizeof(name));
    plan_config_replicas(0, c, reps, sizeof(reps));
    snprintf(buf, len, "%s %s %s x%s", l->gpu->name, name,
             perf_dtype_name(l->weight_dtype), reps);
}

/* Indexes of the frontier, by cost. Returns how many. */
static size_t frontier_order(const struct plan *p, size_t *idx)
{
    size_t n = 0;

    for (size_t i = 0; i < p->nconfigs; i++)
        if (p->configs[i].frontier)
            idx[n++] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i;
             j > 0 && p->configs[idx[j]].m[PLAN_M_COST].mean <
                          p->configs[idx[j - 1]].m[PLAN_M_COST].mean;
             j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    return n;
}

static void write_row(FILE *fp, const struct plan *p, size_t i)
{
    const struct plan_config *c = &p->configs[i];
    char buf[160];

    label(p, c, buf, sizeof(buf));
    fprintf(fp, "%.10g %.10g ", c->m[PLAN_M_COST].mean, latency(p, c));
    /* A quoted string column; labels hold no double quote. */
    fprintf(fp, "\"%s\"\n", buf);
}

static int write_data(const struct plan *p, struct rpt_gp_job *job)
{
    size_t *idx = xcalloc(p->nconfigs + 1, sizeof(*idx));
    size_t nf = frontier_order(p, idx);
    int rc = 0;

    for (int k = 0; k < D_COUNT && rc == 0; k++) {
        FILE *fp = fopen(rpt_gp_job_file(job, "%s", data_names[k]), "w");

        if (fp == NULL) {
            rc = -1;
            break;
        }
        fprintf(fp, "# cost_usd latency_ms label\n");
        if (k == D_FRONTIER) {
            for (size_t j = 0; j < nf; j++)
                write_row(fp, p, idx[j]);
        } else if (k == D_CHOSEN) {
            if (p->chosen >= 0)
                write_row(fp, p, (size_t)p->chosen);
        } else {
            for (size_t i = 0; i < p->nconfigs; i++) {
                const struct plan_config *c = &p->configs[i];
                if (c->state != PLAN_C_DONE || isnan(latency(p, c)) ||
                    isnan(c->m[PLAN_M_COST].mean) ||
                    (k == D_MEETS && !c->meets))
                    continue;
                write_row(fp, p, i);
            }
        }
        if (ferror(fp))
            rc = -1;
        if (fclose(fp) != 0)
            rc = -1;
    }
    free(idx);
    return rc;
}

static void data_ref(FILE *fp, struct rpt_gp_job *j, int k)
{
    rpt_gp_quote(fp, rpt_gp_job_file(j, "%s", data_names[k]));
}

static int write_script(const struct plan *p, const char *path,
                        struct rpt_gp_job *j, const char *png)
{
    FILE *fp = fopen(path, "w");
    double target = plan_latency_target_ms(p);
    const char *lat = plan_latency_name(p->latency);
    char title[256];
    int rc;

    if (fp == NULL)
        return -1;
    rpt_gp_terminal(fp, png, 1000, 700);
    snprintf(title, sizeof(title),
             "dsec plan %s: cost vs p99 %s (%zu configurations simulated)",
             p->scn.name, lat, p->counts.simulated);
    fprintf(fp, "set title ");
    rpt_gp_quote(fp, title);
    fprintf(fp, "\nset grid\n"
                "set key outside right top\n"
                "set xlabel 'cost of the run ($)'\n");
    snprintf(title, sizeof(title), "p99 %s (ms)", lat);
    fprintf(fp, "set ylabel ");
    rpt_gp_quote(fp, title);
    fprintf(fp, "\nset yrange [0:*]\n"
                "set offsets graph 0.05, graph 0.2, graph 0.08, 0\n"
                "plot ");
    data_ref(fp, j, D_ALL);
    fprintf(fp, " using 1:2 with points pt 6 ps 1.2 lc rgb '#888888' "
                "title 'simulated', \\\n     ");
    data_ref(fp, j, D_MEETS);
    fprintf(fp, " using 1:2 with points pt 7 ps 1.2 lc rgb '#1b7837' "
                "title 'meets the slo', \\\n     ");
    data_ref(fp, j, D_FRONTIER);
    fprintf(fp, " using 1:2 with linespoints lw 2 pt 5 ps 0.8 lc rgb "
                "'#2166ac' title 'Pareto frontier', \\\n     ");
    data_ref(fp, j, D_CHOSEN);
    fprintf(fp, " using 1:2 with points pt 6 ps 3.5 lw 3 lc rgb '#b2182b' "
                "title 'chosen', \\\n     ");
    /* Only the chosen point is labelled: frontier points crowd. */
    data_ref(fp, j, D_CHOSEN);
    fprintf(fp, " using 1:2:3 with labels left offset 2,1 tc rgb '#b2182b' "
                "notitle");
    if (!isnan(target)) {
        snprintf(title, sizeof(title), "slo.%s_ms %g", lat, target);
        fprintf(fp, ", \\\n     %.17g with lines dt 2 lc 'black' title ",
                target);
        rpt_gp_quote(fp, title);
    }
    fprintf(fp, "\nset output\n");
    rc = ferror(fp) ? -1 : 0;
    if (fclose(fp) != 0)
        rc = -1;
    return rc;
}

int plan_chart(const struct plan *p, const char *gnuplot_path, const char *png,
               struct sim_diag *d)
{
    struct rpt_gp_job j;
    char *why = NULL;
    int rc = 0;

    if (rpt_gp_job_init(&j, gnuplot_path, &why) == 0) {
        const char *script = rpt_gp_job_file(&j, "plot.gp");

        if (write_data(p, &j) != 0)
            why = xasprintf("cannot write data in %s: %s", j.dir,
                            strerror(errno));
        else if (write_script(p, script, &j, png) != 0)
            why = xasprintf("cannot write %s: %s", script, strerror(errno));
        else
            rpt_gp_job_run(&j, script, &why);
    }
    if (why != NULL)
        rc = rpt_gp_fail(d, RPT_GP_ASKED, png, "cannot draw chart: %s", why);
    free(why);
    rpt_gp_job_fini(&j);
    return rc;
}
