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

/* Where a pool's price per GPU-hour comes from: a row of the report's
 * "Prices" table. The texts are static or point into basis; plain text
 * for the writers to escape. */
struct rpt__price {
    const char *provider; /* or "set in the scenario" */
    const char *region;   /* as the catalog gives it, or "n/a" */
    const char *date;     /* or "n/a" */
    const char *source;   /* docs/sources.md section, or "set in ..." */
    int catalog;          /* 1: the GPU catalog's dated default */
    char basis[320];      /* a borrowed pool's says it is billed so */
};

/* Fills *out for pool p: the GPU catalog's provenance (models/gpu/gpu.h
 * price_src) when p's price equals its GPU kind's catalog price, else "set
 * in the scenario" (pools[].price_per_gpu_hour, hardware.price_per_gpu_hour
 * or a spot discount). A borrowable pool's basis says that it is billed at
 * its own price, the internal transfer price. */
void rpt__price_of(const struct rpt_pool_row *p, struct rpt__price *out);

/* The prices table's text columns of pr, in order: provider, region,
 * basis, date, source (borrowed from pr). */
#define RPT__PRICE_COLS 5
void rpt__price_cells(const struct rpt__price *pr,
                      const char *cells[RPT__PRICE_COLS]);

/* The sentence on borrowed pools: billed at their own price per GPU-hour
 * (the internal transfer price), each with its price, the GPU-hours held
 * in it and their cost, and the total borrowed. Plain text; empty when r
 * has no borrowable pool. */
void rpt__borrow_note(const struct rpt_run *r, char *buf, size_t len);

/* The sentence on what the savings compare: the static baseline (its run
 * id and replicas), or the run as its own baseline. Plain text; empty
 * when the report has no baseline. */
void rpt__savings_note(const struct rpt_report *rep, char *buf, size_t len);

/* The sentence under the "Prices" table: catalog prices are dated
 * defaults, not quotes. Static. */
extern const char rpt__price_caveat[];

/* The title of the last section, which holds what is not for finance:
 * the run's stored notes, the calibration, the intervals, the charts. */
#define RPT__ENG_TITLE "Engineering notes"
/* The title of the finance notes (how per day, per month and per 1M
 * tokens are counted, and the savings). */
#define RPT__FIN_TITLE "What the figures mean"

/* One row of the "By state" table: GPU-hours and cost, then the
 * reserved-but-unused row and "of which borrowed" (cost NAN). */
struct rpt__state_row {
    const char *name;
    double hours;
    double cost;
};
#define RPT__NSTATE_ROWS (CL_GS_COUNT + 2)

/* Fills out[RPT__NSTATE_ROWS]; returns the count. */
int rpt__state_rows(const struct rpt_run *r, struct rpt__state_row *out);

/* Most GPU kinds in the "By GPU kind" table. */
#define RPT__MAX_KINDS 64

/* GPU kinds in first-seen pool order (name borrowed from r), with the
 * GPU-hours paid and the cost summed over their pools; returns the
 * count, at most RPT__MAX_KINDS. */
int rpt__kinds(const struct rpt_run *r, const char **name, double *hours,
               double *cost);

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
/* A PDF being drawn (report-pdf.c, cairo): A4 pages, portrait or
 * landscape, text in DejaVu Sans (its glyphs cover the reports' §, ±, ×,
 * – and ≥), tables whose numbers are right-aligned and whose text cells
 * wrap. Every text is UTF-8, invalid bytes printed as '?'. Without cairo
 * rpt__pdf_open() returns NULL after adding an error to d and the others
 * do nothing. */
struct rpt__pdf;

/* Starts a PDF at path; NULL after adding an error to d. */
struct rpt__pdf *rpt__pdf_open(const char *path, int landscape,
                               struct sim_diag *d);

/* A title (level 1), section heading (2) or sub-heading (3). */
void rpt__pdf_heading(struct rpt__pdf *p, const char *s, int level);

/* A paragraph broken into lines at spaces, at size points; bold when set. */
void rpt__pdf_para(struct rpt__pdf *p, const char *s, double size, int bold);

/* A bulleted paragraph (one item of a list), at size points. */
void rpt__pdf_item(struct rpt__pdf *p, const char *s, double size);

/* A table of ncols columns: head[ncols] in bold, then nrows rows of
 * cells[row * ncols + col] (NULL prints nothing). Columns with num[col]
 * set are right-aligned and never wrap; the other columns share what is
 * left of the width and wrap at spaces. The head repeats on a new page. */
void rpt__pdf_table(struct rpt__pdf *p, int ncols, const char *const *head,
                    const int *num, int nrows, const char *const *cells);

/* A PNG chart at the text width under its title; nothing when the file
 * cannot be read. */
void rpt__pdf_image(struct rpt__pdf *p, const char *png, const char *title);

/* Finishes and frees p. Returns 0, or SIM_EIO after adding an error to
 * d. */
int rpt__pdf_close(struct rpt__pdf *p, const char *path, struct sim_diag *d);

int rpt__write_pdf(const struct rpt_report *rep, const char *path,
                   const struct rpt__chart *charts, const char *chart_note,
                   struct sim_diag *d);

#endif /* RPT_REPORT_INT_H */
