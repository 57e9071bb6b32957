/*
 * Internals shared by the report writers (report*.c): the headline rows
 * every format prints, the charts, number formatting. Not for callers
 * outside reports/.
 */
#ifndef RPT_REPORT_INT_H
#define RPT_REPORT_INT_H

#include <stdio.h>

#include "models/cluster/predict.h"
#include "reports/report.h"

/* Most headline rows. */
#define RPT__MAX_LINES 32

/* One headline figure: key for CSV, label for people, value and its text
 * ("n/a" when NAN); and its prediction interval [lo, hi] (NAN when the
 * figure has none) with their texts (empty then). */
struct rpt__line {
    const char *key;
    const char *label;
    const char *unit;
    double value;
    char text[64];
    double lo, hi;
    char lo_text[64], hi_text[64];
};

/* Fills out (RPT__MAX_LINES rows) with the headline; returns the count.
 * A run with prediction intervals (rep->run->pi) gets the latency and
 * throughput figures too, and lo/hi on every figure that has an interval:
 * the run's own, or for the cost per day, per month and per 1M tokens the
 * cost's interval scaled as the cost is. */
int rpt__headline(const struct rpt_report *rep, struct rpt__line *out);

/* Room for rpt__pi_note() and rpt__calib_note(): two paths of 4096 bytes
 * and the sentences around them. */
#define RPT__NOTE_LEN (2 * 4096 + 512)

/* Writes into buf (len bytes) the sentence that says what the run's
 * prediction intervals are: how many draws of how many parameters, with
 * or without the structural error, against the seed noise (ci95) of the
 * latency means. Plain text, for the writers to escape. Empty when the run
 * has no intervals. */
void rpt__pi_note(const struct rpt_run *r, char *buf, size_t len);

/* Writes into buf the calibration provenance of the run ("Calibration:
 * PROFILE, SHA-256 HEX"), and a warning when the baseline was simulated
 * with another calibration; plain text. Empty when the run used no
 * profile (the built-in defaults, or a database from before the
 * column). */
void rpt__calib_note(const struct rpt_report *rep, char *buf, size_t len);

/* The notes on how the report's figures are derived, for the finance
 * part of every format: how the cost splits between input and output
 * tokens, when the run starts (with start), and a compressed day (a
 * diurnal period other than 24 h) with its factor and how per day and per
 * month project it. Fills up to RPT__TIME_NOTES buffers of
 * RPT__TIME_NOTE_LEN bytes; returns how many. */
#define RPT__TIME_NOTES 3
#define RPT__TIME_NOTE_LEN 512
int rpt__time_notes(const struct rpt_report *rep,
                    char notes[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN]);

/* The run's value of interval metric m, from its summary (the run at the
 * profile's values, in cl_pi_unit[m]); NAN when absent. */
double rpt__pi_value(const struct rpt_run *r, enum cl_pi_metric m);

/* Writes into buf the column title of r's intervals ("95 % interval").
 * Returns 1, or 0 (buf empty) when r has none. */
int rpt__pi_title(const struct rpt_run *r, char *buf, size_t len);

/* A chart drawn into the output directory. */
struct rpt__chart {
    const char *file;  /* e.g. "traffic.png", static */
    const char *title; /* static */
    char *path;        /* out_dir/file; NULL when not drawn */
};

/* Number of charts. */
#define RPT__NCHARTS 5

/* Draws the charts into out_dir with gnuplot_path (NULL: none). Fills
 * charts[RPT__NCHARTS]; a chart that could not be drawn has path NULL and
 * a note in d (rpt_gp_fail()). Returns the number drawn. */
int rpt__charts_draw(const struct rpt_report *rep, const char *out_dir,
                     const char *gnuplot_path, struct rpt__chart *charts,
                     struct sim_diag *d);

/* Frees the paths in charts. */
void rpt__charts_fini(struct rpt__chart *charts);

/* "1,234.56"-style fixed text of v with prec decimals, or "n/a". */
void rpt__fmt(char *buf, size_t len, double v, int prec);

/* The price's source: the GPU catalog's dated default, or the scenario. */
const char *rpt__price_source(const struct rpt_pool_row *p);

/* Why charts are missing ("gnuplot was not found ..."), or NULL when all
 * nwanted were drawn. */
const char *rpt__no_chart_reason(int ndrawn, int nwanted,
                                 const char *gnuplot_path);

/* Opens the database at path, read-write when write is set, else
 * read-only, with a busy timeout. Returns NULL after adding an error to
 * d. */
struct sqlite3;
struct sqlite3 *rpt__open_db(const char *path, int write, struct sim_diag *d);

/* Runs query q (binding a1 as ?1 when a1 >= 0) for one integer. Returns 0
 * with *out set, 1 for no row or NULL, or SIM_EDB with a diagnostic. */
int rpt__query_id(const char *db_path, const char *q, int64_t a1, int64_t *out,
                  struct sim_diag *d);

/* mkdir -p dir; returns 0 or -1 with errno set. */
int rpt__mkdir_p(const char *dir);

/* Writes the file at path to fp as base64 (nothing if it cannot be read). */
void rpt__base64(FILE *fp, const char *path);

/* Writes s to fp as text of a Markdown table cell (markup escaped). */
void rpt__md_text(FILE *fp, const char *s);

/* Writes v to fp as %.17g, or nothing for NAN (an empty CSV field). */
void rpt__csv_num(FILE *fp, double v);

int rpt__write_html(const struct rpt_report *rep, FILE *fp,
                    const struct rpt__chart *charts, const char *chart_note);
int rpt__write_md(const struct rpt_report *rep, FILE *fp,
                  const struct rpt__chart *charts, const char *chart_note);
/* Writes headline.csv (with lo and hi columns when the run has
 * intervals), pools.csv, states.csv, timeseries.csv, replicas.csv and, for
 * a run with intervals, prediction_intervals.csv into out_dir. */
int rpt__write_csv(const struct rpt_report *rep, const char *out_dir,
                   struct sim_diag *d);
int rpt__write_pdf(const struct rpt_report *rep, const char *path,
                   const struct rpt__chart *charts, const char *chart_note,
                   struct sim_diag *d);

#endif /* RPT_REPORT_INT_H */
