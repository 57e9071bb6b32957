/*
 * Internals shared by the report writers (report*.c): the headline rows
 * every format prints, the charts, number formatting. Not for callers
 * outside reports/.
 */
#ifndef RPT_REPORT_INT_H
#define RPT_REPORT_INT_H

#include <stdio.h>

#include "reports/report.h"

/* Most headline rows. */
#define RPT__MAX_LINES 24

/* One headline figure: key for CSV, label for people, value and its text
 * ("n/a" when NAN). */
struct rpt__line {
    const char *key;
    const char *label;
    const char *unit;
    double value;
    char text[64];
};

/* Fills out (RPT__MAX_LINES rows) with the headline; returns the count. */
int rpt__headline(const struct rpt_report *rep, struct rpt__line *out);

/* A chart drawn into the output directory. */
struct rpt__chart {
    const char *file;  /* e.g. "traffic.png", static */
    const char *title; /* static */
    char *path;        /* out_dir/file; NULL when not drawn */
};

/* Number of charts. */
#define RPT__NCHARTS 4

/* Draws the charts into out_dir with gnuplot_path (NULL: none). Fills
 * charts[RPT__NCHARTS]; a chart that could not be drawn has path NULL and
 * a warning in d. Returns the number drawn. */
int rpt__charts_draw(const struct rpt_report *rep, const char *out_dir,
                     const char *gnuplot_path, struct rpt__chart *charts,
                     struct sim_diag *d);

/* Frees the paths in charts. */
void rpt__charts_fini(struct rpt__chart *charts);

/* "1,234.56"-style fixed text of v with prec decimals, or "n/a". */
void rpt__fmt(char *buf, size_t len, double v, int prec);

/* The price's source: the GPU catalog's dated default, or the scenario. */
const char *rpt__price_source(const struct rpt_pool_row *p);

/* Why charts are missing ("gnuplot not found ..."), or NULL when drawn. */
const char *rpt__no_chart_reason(int ndrawn, const char *gnuplot_path);

int rpt__write_html(const struct rpt_report *rep, FILE *fp,
                    const struct rpt__chart *charts, const char *chart_note);
int rpt__write_md(const struct rpt_report *rep, FILE *fp,
                  const struct rpt__chart *charts, const char *chart_note);
int rpt__write_csv(const struct rpt_report *rep, const char *out_dir,
                   struct sim_diag *d);
int rpt__write_pdf(const struct rpt_report *rep, const char *path,
                   const struct rpt__chart *charts, const char *chart_note,
                   struct sim_diag *d);

#endif /* RPT_REPORT_INT_H */
