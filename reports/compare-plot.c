/* The comparison chart, drawn by gnuplot through reports/gnuplot.h (which
 * says how gnuplot is run and why). */
#include "reports/compare.h"
#include "reports/gnuplot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void plot_lines(FILE *fp, const char *dir,
                       const struct rpt_cmp_line *lines, int nlines, int col)
{
    fprintf(fp, "plot ");
    for (int i = 0; i < nlines; i++) {
        char *path = xasprintf("%s/p%d.dat", dir, i);
        fprintf(fp, "%s", i ? ", \\\n     " : "");
        rpt_gp_quote(fp, path);
        fprintf(fp, " using 1:%d with lines lw 2 title ", col);
        rpt_gp_quote(fp, lines[i].label);
        free(path);
    }
}

static int write_script(const char *path, const char *dir, const char *png,
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
    plot_lines(fp, dir, lines, nlines, 2);
    fprintf(fp, "\nset title 'p99 TPOT per interval (replication 0)'\n"
                "set ylabel 'p99 TPOT (ms)'\n");
    /* Targets as horizontal lines: a function of x, drawn dashed. */
    plot_lines(fp, dir, lines, nlines, 3);
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
    const char *tmp = getenv("TMPDIR");
    char *dir, *script, *errpath, *why = NULL;
    int rc = 0;

    dir = xasprintf("%s/dsec-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        sim_diag_error(d, png_path, 0, 0,
                       "cannot draw chart: temporary directory %s: %s", dir,
                       strerror(errno));
        free(dir);
        return SIM_EIO;
    }
    script = xasprintf("%s/plot.gp", dir);
    errpath = xasprintf("%s/gnuplot.out", dir);
    for (int i = 0; i < nlines && rc == 0; i++) {
        char *path = xasprintf("%s/p%d.dat", dir, i);
        if (write_data(path, lines[i].res) != 0) {
            why = xasprintf("cannot write %s: %s", path, strerror(errno));
            rc = SIM_EIO;
        }
        free(path);
    }
    if (rc == 0 && write_script(script, dir, png_path, lines, nlines, target_ms,
                                slo_ms) != 0) {
        why = xasprintf("cannot write %s: %s", script, strerror(errno));
        rc = SIM_EIO;
    }
    if (rc == 0) {
        int st = rpt_gp_run(gnuplot_path, script, errpath);
        if (st != 0) {
            char *line = rpt_gp_first_line(errpath);
            why = xasprintf("%s exited with status %d%s%s", gnuplot_path, st,
                            line ? ": " : "", line ? line : "");
            free(line);
            rc = SIM_EIO;
        }
    }
    if (rc != 0)
        sim_diag_error(d, png_path, 0, 0, "cannot draw chart: %s", why);
    for (int i = 0; i < nlines; i++) {
        char *path = xasprintf("%s/p%d.dat", dir, i);
        unlink(path);
        free(path);
    }
    unlink(script);
    unlink(errpath);
    rmdir(dir);
    free(why);
    free(errpath);
    free(script);
    free(dir);
    return rc;
}
