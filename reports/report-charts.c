/* The report's charts, drawn by gnuplot in one job of reports/gnuplot.h,
 * from data files in its temporary directory: traffic and GPUs in use (two y
 * axes), cost per hour stacked by pool (pool_series), latency p50/p99 against
 * the targets, GPU-hours by state per pool (stacked bars), KV cache usage and
 * requests running per replica (replica_series). Times are plotted in minutes
 * at each interval's middle (times of day with the scenario's start); "?" marks
 * an undefined value. Each chart is an optional part of the report: one that
 * cannot be drawn is a note. */
#include <math.h>
#include <stdlib.h>

#include "reports/gnuplot.h"
#include "reports/report-int.h"
#include "base/xalloc.h"

static void put(FILE *fp, double v)
{
    if (isnan(v))
        fprintf(fp, " ?");
    else
        fprintf(fp, " %.6g", v);
}

/* The x value of an interval [t0, t1] (seconds of the run): its middle in
 * minutes, or with the scenario's start its time of day in seconds (the
 * clock axis of common()). */
static double xval(const struct rpt_report *rep, double t0, double t1)
{
    return rep->has_start ? rep->start_s + (t0 + t1) / 2 : (t0 + t1) / 2 / 60;
}

static double mid_x(const struct rpt_report *rep,
                    const struct rpt_series_row *s)
{
    return xval(rep, s->t_start_s, s->t_end_s);
}

static void common(FILE *fp, const struct rpt_report *rep, const char *title)
{
    fprintf(fp, "set grid\nset key outside right top\nset title ");
    rpt_gp_quote(fp, title);
    if (rep->has_start) {
        /* Seconds from the epoch's midnight: %H:%M is the time of day,
         * with the day counted from 1 when the run passes midnight. */
        double end = rep->run->nseries > 0
                         ? rep->run->series[rep->run->nseries - 1].t_end_s
                         : 0;
        int days = rep->start_s + end > 86400;
        fprintf(fp,
                "\nset xdata time\nset timefmt '%%s'\nset format x \"%s\"\n"
                "set xlabel 'time of day%s'\nset autoscale xfixmax\n",
                days ? "day %j\\n%H:%M" : "%H:%M",
                days ? " (day 1 is the run's first)" : "");
    } else
        fprintf(fp, "\nset xlabel 'time (min)'\nset autoscale xfixmax\n");
}

static void traffic(FILE *fp, const struct rpt_report *rep, const char *dat)
{
    const struct rpt_run *r = rep->run;
    FILE *df = fopen(dat, "w");

    if (df == NULL)
        return;
    for (size_t i = 0; i < r->nseries; i++) {
        const struct rpt_series_row *s = &r->series[i];
        double len = s->t_end_s - s->t_start_s;
        fprintf(df, "%.6f", mid_x(rep, s));
        put(df, len > 0 ? s->arrivals / len : NAN);
        put(df, s->gpus_mean);
        fputc('\n', df);
    }
    fclose(df);
    common(fp, rep, "traffic and GPUs in use");
    fprintf(fp, "set ylabel 'arrivals (requests/s)'\nset y2label 'GPUs held'\n"
                "set ytics nomirror\nset y2tics\nset yrange [0:*]\n"
                "set y2range [0:*]\nplot ");
    rpt_gp_quote(fp, dat);
    fprintf(fp, " using 1:2 with lines lw 2 title 'arrivals/s' axes x1y1, ");
    rpt_gp_quote(fp, dat);
    fprintf(fp, " using 1:3 with steps lw 2 title 'GPUs held' axes x1y2\n");
}

/* Cumulative columns, one per pool, drawn from the top down so each filled
 * band shows one pool. */
static int cost(FILE *fp, const struct rpt_report *rep, const char *dat)
{
    const struct rpt_run *r = rep->run;
    FILE *df;

    if (r->pool_cost_usd == NULL || r->npools == 0)
        return -1;
    df = fopen(dat, "w");
    if (df == NULL)
        return -1;
    for (size_t i = 0; i < r->nseries; i++) {
        const struct rpt_series_row *s = &r->series[i];
        double h = (s->t_end_s - s->t_start_s) / 3600, sum = 0;
        fprintf(df, "%.6f", mid_x(rep, s));
        for (int p = 0; p < r->npools; p++) {
            double c = r->pool_cost_usd[i * (size_t)r->npools + (size_t)p];
            if (!isnan(c) && h > 0)
                sum += c / h;
            fprintf(df, " %.6g", sum);
        }
        fputc('\n', df);
    }
    fclose(df);
    common(fp, rep, "cost per hour, stacked by pool");
    fprintf(fp, "set ylabel 'USD per hour'\nset yrange [0:*]\n"
                "set style fill solid 0.7 noborder\nplot ");
    for (int p = r->npools - 1; p >= 0; p--) {
        fprintf(fp, "%s", p < r->npools - 1 ? ", " : "");
        rpt_gp_quote(fp, dat);
        fprintf(fp, " using 1:%d with filledcurves x1 title ", p + 2);
        rpt_gp_quote(fp, r->pools[p].name);
    }
    fputc('\n', fp);
    return 0;
}

static void target_line(FILE *fp, double v, const char *title, int dt)
{
    if (!isnan(v)) {
        fprintf(fp, ", %.17g with lines dt %d lw 2 lc 'black' title ", v, dt);
        rpt_gp_quote(fp, title);
    }
}

static void latency(FILE *fp, const struct rpt_report *rep, const char *dat)
{
    const struct rpt_run *r = rep->run;
    FILE *df = fopen(dat, "w");
    int ttft = !isnan(rep->slo_ttft_ms);

    if (df == NULL)
        return;
    for (size_t i = 0; i < r->nseries; i++) {
        const struct rpt_series_row *s = &r->series[i];
        fprintf(df, "%.6f", mid_x(rep, s));
        put(df, s->tpot_p50_ms);
        put(df, s->tpot_p99_ms);
        put(df, s->ttft_p50_ms);
        put(df, s->ttft_p99_ms);
        fputc('\n', df);
    }
    fclose(df);
    if (ttft)
        fprintf(fp, "set multiplot layout 2,1\n");
    common(fp, rep, "time per output token (TPOT) per interval");
    fprintf(fp, "set ylabel 'ms'\nset yrange [0:*]\nplot ");
    rpt_gp_quote(fp, dat);
    fprintf(fp, " using 1:2 with lines lw 2 title 'p50', ");
    rpt_gp_quote(fp, dat);
    fprintf(fp, " using 1:3 with lines lw 2 title 'p99'");
    target_line(fp, rep->target_tpot_ms, "target latency", 2);
    target_line(fp, rep->slo_tpot_ms, "SLO", 3);
    fputc('\n', fp);
    if (ttft) {
        common(fp, rep, "time to first token (TTFT) per interval");
        fprintf(fp, "set logscale y\nset yrange [*:*]\nplot ");
        rpt_gp_quote(fp, dat);
        fprintf(fp, " using 1:4 with lines lw 2 title 'p50', ");
        rpt_gp_quote(fp, dat);
        fprintf(fp, " using 1:5 with lines lw 2 title 'p99'");
        target_line(fp, rep->slo_ttft_ms, "SLO", 3);
        fprintf(fp, "\nunset multiplot\n");
    }
}

static void states(FILE *fp, const struct rpt_run *r, const char *dat)
{
    FILE *df = fopen(dat, "w");

    if (df == NULL)
        return;
    for (int p = 0; p < r->npools; p++) {
        const struct rpt_pool_row *pl = &r->pools[p];
        double unused =
            pl->reserved ? pl->gpu_hours_paid - pl->gpu_hours_used : 0;
        /* The pool name is the first column: in a data file gnuplot takes
         * a double-quoted string, which cannot hold a double quote. */
        fputc('"', df);
        for (const char *c = pl->name; *c != '\0'; c++)
            fputc(*c == '"' ? '\'' : *c == '\n' ? ' ' : *c, df);
        fputc('"', df);
        for (int s = 0; s < CL_GS_COUNT; s++)
            put(df, isnan(pl->gpu_hours_by_state[s])
                        ? 0
                        : pl->gpu_hours_by_state[s]);
        put(df, unused > 0 ? unused : 0);
        fputc('\n', df);
    }
    fclose(df);
    fprintf(fp, "set grid ytics\nset key outside right top\n"
                "set title 'GPU-hours by state, per pool'\n"
                "set ylabel 'GPU-hours'\nset yrange [0:*]\n"
                "set style data histograms\n"
                "set style histogram rowstacked\n"
                "set style fill solid 0.8 border -1\nset boxwidth 0.6\n"
                "plot ");
    for (int s = 0; s <= CL_GS_COUNT; s++) {
        fprintf(fp, "%s", s ? ", " : "");
        rpt_gp_quote(fp, dat);
        fprintf(fp, " using %d%s title '%s'", s + 2, s == 0 ? ":xtic(1)" : "",
                s < CL_GS_COUNT ? cl_gpu_state_name(s) : "reserved, unused");
    }
    fputc('\n', fp);
}

static int by_replica(const void *a, const void *b)
{
    const struct rpt_replica_row *x = *(const struct rpt_replica_row *const *)a;
    const struct rpt_replica_row *y = *(const struct rpt_replica_row *const *)b;
    if (x->replica != y->replica)
        return x->replica < y->replica ? -1 : 1;
    return x->t_start_s < y->t_start_s ? -1 : x->t_start_s > y->t_start_s;
}

/* One line per replica (replica_series): KV cache usage above requests
 * running, or requests running alone when no replica has a KV cache
 * (abstract servers). Data blocks, one per replica, are plotted by index;
 * past 16 replicas the key is left out. Returns -1 without rows. */
static int has_kv(const struct rpt_run *r)
{
    for (size_t i = 0; i < r->nreplicas; i++)
        if (!isnan(r->replicas[i].kv_cache_usage_perc_mean))
            return 1;
    return 0;
}

static int replicas(FILE *fp, const struct rpt_report *rep, const char *dat)
{
    const struct rpt_run *r = rep->run;
    const struct rpt_replica_row **ix;
    FILE *df;
    int nblocks = 0, kv = has_kv(r);
    int64_t *serial;

    if (r->nreplicas == 0)
        return -1;
    df = fopen(dat, "w");
    if (df == NULL)
        return -1;
    ix = xcalloc(r->nreplicas, sizeof(*ix));
    serial = xcalloc(r->nreplicas, sizeof(*serial));
    for (size_t i = 0; i < r->nreplicas; i++)
        ix[i] = &r->replicas[i];
    qsort(ix, r->nreplicas, sizeof(*ix), by_replica);
    for (size_t i = 0; i < r->nreplicas; i++) {
        const struct rpt_replica_row *x = ix[i];
        if (i == 0 || x->replica != ix[i - 1]->replica) {
            if (i > 0)
                fprintf(df, "\n\n");
            serial[nblocks++] = x->replica;
        }
        fprintf(df, "%.6f", xval(rep, x->t_start_s, x->t_end_s));
        put(df, x->kv_cache_usage_perc_mean);
        put(df, x->num_requests_running_mean);
        fputc('\n', df);
    }
    fclose(df);
    free(ix);
    for (int panel = kv ? 0 : 1; panel < 2; panel++) {
        if (panel == 0)
            fprintf(fp, "set multiplot layout 2,1\n");
        common(fp, rep,
               panel == 0 ? "KV cache usage per replica "
                            "(kv_cache_usage_perc, interval mean)"
                          : "requests running per replica "
                            "(num_requests_running, interval mean)");
        fprintf(fp, "set ylabel '%s'\nset yrange [0:%s]\n%s\nplot ",
                panel == 0 ? "fraction of KV blocks" : "requests",
                panel == 0 ? "1" : "*",
                nblocks > 16 ? "set key off" : "set key outside right top");
        for (int k = 0; k < nblocks; k++) {
            fprintf(fp, "%s", k ? ", " : "");
            rpt_gp_quote(fp, dat);
            fprintf(fp,
                    " index %d using 1:%d with lines lw 2 title 'replica "
                    "%lld'",
                    k, panel == 0 ? 2 : 3, (long long)serial[k]);
        }
        fputc('\n', fp);
    }
    if (kv)
        fprintf(fp, "unset multiplot\n");
    free(serial);
    return 0;
}

static const char *const chart_files[RPT__NCHARTS] = {
    "traffic.png", "cost.png", "latency.png", "states.png", "replicas.png"};
static const char *const chart_titles[RPT__NCHARTS] = {
    "Traffic and GPUs in use", "Cost per hour, stacked by pool",
    "Latency against the target", "GPU-hours by state",
    "KV cache usage and requests running per replica"};

int rpt__charts_draw(const struct rpt_report *rep, const char *out_dir,
                     const char *gnuplot_path, struct rpt__chart *charts,
                     struct sim_diag *d)
{
    struct rpt_gp_job j;
    char *why = NULL;
    int ndrawn = 0;

    for (int c = 0; c < RPT__NCHARTS; c++) {
        charts[c].file = chart_files[c];
        charts[c].title = chart_titles[c];
        charts[c].path = NULL;
    }
    if (gnuplot_path == NULL)
        return 0;
    if (rpt_gp_job_init(&j, gnuplot_path, &why) != 0) {
        rpt_gp_fail(d, RPT_GP_OPTIONAL, out_dir, "no charts: %s", why);
        free(why);
        return 0;
    }
    for (int c = 0; c < RPT__NCHARTS; c++) {
        char *png = xasprintf("%s/%s", out_dir, chart_files[c]);
        const char *script = rpt_gp_job_file(&j, "c%d.gp", c);
        const char *dat = rpt_gp_job_file(&j, "c%d.dat", c);
        FILE *fp = fopen(script, "w");
        int ok = fp != NULL;

        if (ok) {
            int tall = (c == 2 && !isnan(rep->slo_ttft_ms)) ||
                       (c == 4 && has_kv(rep->run));
            rpt_gp_terminal(fp, png, 1000, tall ? 800 : 500);
            if (c == 0)
                traffic(fp, rep, dat);
            else if (c == 1)
                ok = cost(fp, rep, dat) == 0;
            else if (c == 2)
                latency(fp, rep, dat);
            else if (c == 3)
                states(fp, rep->run, dat);
            else
                ok = replicas(fp, rep, dat) == 0;
            fprintf(fp, "set output\n");
            if (fclose(fp) != 0)
                ok = 0;
        }
        if (!ok && c == 1) {
            rpt_gp_fail(d, RPT_GP_OPTIONAL, png,
                        "no cost chart: the run has no pool_series rows "
                        "(written by dsec 0.1 with schema 4 and later)");
        } else if (!ok && c == 4 && rep->run->nreplicas == 0) {
            rpt_gp_fail(d, RPT_GP_OPTIONAL, png,
                        "no per-replica chart: the run has no "
                        "replica_series rows (written with schema 7 and "
                        "later)");
        } else if (!ok) {
            rpt_gp_fail(d, RPT_GP_OPTIONAL, png,
                        "cannot draw chart: cannot write %s", script);
        } else if (rpt_gp_job_run(&j, script, &why) != 0) {
            rpt_gp_fail(d, RPT_GP_OPTIONAL, png, "cannot draw chart: %s", why);
            free(why);
            why = NULL;
        } else {
            charts[c].path = png;
            png = NULL;
            ndrawn++;
        }
        free(png);
    }
    rpt_gp_job_fini(&j);
    return ndrawn;
}

void rpt__charts_fini(struct rpt__chart *charts)
{
    for (int c = 0; c < RPT__NCHARTS; c++) {
        free(charts[c].path);
        charts[c].path = NULL;
    }
}
