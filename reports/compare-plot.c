/* The comparison chart, drawn by gnuplot in a job of reports/gnuplot.h
 * (which says how gnuplot is run and why): one data file per policy and
 * one script. The user asked for it (--plot), so a chart that cannot be
 * drawn is an error. */
#include "reports/compare.h"
#include "reports/gnuplot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

/* Writes one policy's time series: minute at the interval's middle,
 * replicas serving (time-weighted), p99 TPOT in ms; "?" where undefined. */
static int write_data(const char *path, const struct cl_results *r)
{
    FILE *fp = fopen(path, "w");
    int rc;

    if (fp == NULL)
        return -1;
    fprintf(fp, "# minute replicas tpot_p99_ms\n");
    for (size_t i = 0; i < r->nseries; i++) {
        const struct cl_series_row *s = &r->series[i];
        double mid_min =
            ((double)s->t_start_ns + (double)s->t_end_ns) / 2 / 60e9;
        fprintf(fp, "%.6f ", mid_min);
        if (isnan(s->replicas_mean))
            fprintf(fp, "? ");
        else
            fprintf(fp, "%.6g ", s->replicas_mean);
        if (isnan(s->tpot_p99_ms))
            fprintf(fp, "?\n");
        else
            fprintf(fp, "%.6g\n", s->tpot_p99_ms);
    }
    rc = ferror(fp) ? -1 : 0;
    if (fclose(fp) != 0)
        rc = -1;
    return rc;
}

static void plot_lines(FILE *fp, struct rpt_gp_job *j,
                       const struct rpt_cmp_line *lines, int nlines, int col)
{
    fprintf(fp, "plot ");
    for (int i = 0; i < nlines; i++) {
        fprintf(fp, "%s", i ? ", \\\n     " : "");
        rpt_gp_quote(fp, rpt_gp_job_file(j, "p%d.dat", i));
        fprintf(fp, " using 1:%d with lines lw 2 title ", col);
        rpt_gp_quote(fp, lines[i].label);
    }
}

static int write_script(const char *path, struct rpt_gp_job *j, const char *png,
                        const struct rpt_cmp_line *lines, int nlines,
                        double target_ms, double slo_ms)
{
    FILE *fp = fopen(path, "w");
    int rc;

    if (fp == NULL)
        return -1;
    rpt_gp_terminal(fp, png, 1000, 800);
    fprintf(fp, "set multiplot layout 2,1\n"
                "set grid\n"
                "set key outside right top\n"
                "set title 'replicas serving (replication 0)'\n"
                "set xlabel 'time (min)'\n"
                "set ylabel 'replicas'\n"
                "set yrange [0:*]\n"
                "set autoscale xfixmax\n"
                "set offsets 0, 0, graph 0.08, 0\n");
    plot_lines(fp, j, lines, nlines, 2);
    fprintf(fp, "\nset title 'p99 TPOT per interval (replication 0)'\n"
                "set ylabel 'p99 TPOT (ms)'\n");
    /* Targets as horizontal lines: a function of x, drawn dashed. */
    plot_lines(fp, j, lines, nlines, 3);
    if (!isnan(target_ms))
        fprintf(fp,
                ", \\\n     %.17g with lines dt 2 lc 'black' "
                "title 'target_latency_ms'",
                target_ms);
    if (!isnan(slo_ms))
        fprintf(fp,
                ", \\\n     %.17g with lines dt 3 lc 'red' "
                "title 'slo.tpot_ms'",
                slo_ms);
    fprintf(fp, "\nunset multiplot\nset output\n");
    rc = ferror(fp) ? -1 : 0;
    if (fclose(fp) != 0)
        rc = -1;
    return rc;
}

int rpt_cmp_plot(const char *gnuplot_path, const char *png_path,
                 const struct rpt_cmp_line *lines, int nlines, double target_ms,
                 double slo_ms, struct sim_diag *d)
{
    struct rpt_gp_job j;
    char *why = NULL;
    int rc = 0;

    if (rpt_gp_job_init(&j, gnuplot_path, &why) == 0) {
        const char *script;

        for (int i = 0; i < nlines && why == NULL; i++) {
            const char *path = rpt_gp_job_file(&j, "p%d.dat", i);

            if (write_data(path, lines[i].res) != 0)
                why = xasprintf("cannot write %s: %s", path, strerror(errno));
        }
        script = rpt_gp_job_file(&j, "plot.gp");
        if (why == NULL && write_script(script, &j, png_path, lines, nlines,
                                        target_ms, slo_ms) != 0)
            why = xasprintf("cannot write %s: %s", script, strerror(errno));
        if (why == NULL)
            rpt_gp_job_run(&j, script, &why);
    }
    if (why != NULL)
        rc = rpt_gp_fail(d, RPT_GP_ASKED, png_path, "cannot draw chart: %s",
                         why);
    free(why);
    rpt_gp_job_fini(&j);
    return rc;
}
