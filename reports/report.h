/*
 * The cost report ("dsec report", docs/reports.md): reads one run and its
 * static baseline back from the results database, does the accounting
 * (GPU-hours and cost by pool, GPU kind and state, reserved capacity paid
 * whether used or not, cost per 1M tokens, per day and per 30-day month,
 * savings against the baseline) and writes it as HTML (one self-contained
 * file, charts embedded), PDF (cairo), CSV (one file per table) or Markdown.
 * A run of dsec run --uncertainty shows each headline figure's prediction
 * interval (table prediction_intervals) beside it; a run with a calibration
 * profile names it and its SHA-256.
 * Charts are PNG files drawn by gnuplot at run time; without gnuplot the
 * report is written without them and says so. Money is USD, time seconds
 * or hours as the names say, NAN means "not defined" and prints as "n/a".
 * The report owns the runs it holds. Single-threaded.
 */
#ifndef RPT_REPORT_H
#define RPT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/cluster/results.h"
#include "reports/compare.h"
#include "base/diag.h"

struct cl_pi;

/* Days in the projected month. */
#define RPT_DAYS_PER_MONTH 30

enum rpt_format {
    RPT_FMT_HTML,
    RPT_FMT_PDF,
    RPT_FMT_CSV,
    RPT_FMT_MD,
};

/* The member a stored column of each field kind reads back into: numbers
 * as double (NAN for NULL) but for ints, flags and serials, text as an
 * owned string. Used by the row structs below. */
#define RPT_STORED_U64(m) double m;
#define RPT_STORED_I64(m) double m;
#define RPT_STORED_F64(m) double m;
#define RPT_STORED_NS(m) double m;
#define RPT_STORED_SERIAL(m) int64_t m;
#define RPT_STORED_INT(m) int m;
#define RPT_STORED_BOOL(m) int m;
#define RPT_STORED_STR(m) char *m;
#define RPT_STORED_POOL(m) char *m;
#define RPT_STORED_RSTATE(m) char *m;
#define RPT_STORED_STATES(m) double m[CL_GS_COUNT];
#define RPT_STORED_BY_NAME(name, type, col, unit, help) RPT_STORED_##type(name)
#define RPT_STORED_BY_COL(name, type, col, unit, help) RPT_STORED_##type(col)

/* One row of the pools table, as stored (CL_POOL_FIELDS, members by field
 * name); gpu may be NULL. */
struct rpt_pool_row {
    CL_POOL_FIELDS(RPT_STORED_BY_NAME)
};

/* One metrics interval, as stored (CL_SERIES_FIELDS, members by column). */
struct rpt_series_row {
    CL_SERIES_FIELDS(RPT_STORED_BY_COL)
};

/* One replica_series row (schema 7), as stored (CL_REPLICA_FIELDS, members
 * by column). */
struct rpt_replica_row {
    CL_REPLICA_FIELDS(RPT_STORED_BY_COL)
};

/* One run read back from the database. Owns every string and array. */
struct rpt_run {
    int64_t id;
    char *started_at;
    char *scenario_name;
    char *scenario_file;
    char *scenario_text;
    char *program_version;
    char *policy; /* NULL: a static cluster */
    uint64_t seed;
    char **metric_names; /* summary, in name order */
    double *metric_values;
    int nmetrics;
    struct rpt_pool_row *pools; /* in insertion order */
    int npools;
    struct rpt_series_row *series;
    size_t nseries;
    /* From pool_series, [row * npools + pool]; NAN where no row was
     * stored. NULL when the run has no pool_series rows at all. */
    double *pool_cost_usd;
    /* From replica_series, by interval then replica; none before schema
     * 7. */
    struct rpt_replica_row *replicas;
    size_t nreplicas;
    char **notes;
    int nnotes;
    /* runs.calibration: the calibration profile's path as given, or
     * "built-in defaults"; NULL in a database from before the column. */
    char *calibration;
    char *calibration_sha256; /* NULL for the built-in defaults */
    /* The prediction intervals of dsec run --uncertainty (table
     * prediction_intervals, by enum cl_pi_metric of
     * models/cluster/predict.h; NAN for a metric without a row or with
     * NULL bounds). NULL when the run has no rows. */
    struct cl_pi *pi;
};

/* The figures of one run (rpt_acct_compute). */
struct rpt_acct {
    double cost_usd;       /* summary cost_usd */
    double gpu_hours;      /* summary gpu_hours (held, any state) */
    double gpu_hours_paid; /* sum of pools' paid hours */
    double gpu_hours_by_state[CL_GS_COUNT];
    double cost_by_state_usd[CL_GS_COUNT]; /* hours x each pool's price */
    double borrowed_gpu_hours;             /* held in borrowable pools */
    double reserved_unused_gpu_hours;      /* paid, not held */
    double reserved_unused_cost_usd;
    double input_tokens;
    double output_tokens;
    /* prefill_gpu_hours / (prefill + decode): the input tokens' share of
     * the cost; NAN when the run has neither (abstract servers, older
     * databases), and then the two per-1M figures below are NAN too. */
    double prefill_share;
    double cost_per_m_tokens_usd; /* cost / (input + output) x 1e6 */
    double cost_per_m_input_usd;  /* cost x prefill_share / input x 1e6 */
    double cost_per_m_output_usd; /* cost x (1 - share) / output x 1e6 */
    double sim_time_s;
    double cost_per_day_usd; /* cost / sim_time_s x 86400 */
    double cost_per_month_usd;
    double slo_attainment; /* 0..1; NAN without an SLO */
};

/* A report: the run, its baseline and the targets its charts draw. */
struct rpt_report {
    struct rpt_run *run;      /* owned */
    struct rpt_run *baseline; /* owned; NULL when self_baseline */
    int self_baseline;        /* the run is static: its own baseline */
    double target_tpot_ms;    /* cluster.target_latency_ms; NAN */
    double slo_tpot_ms;       /* NAN when unset */
    double slo_ttft_ms;       /* NAN when unset */
    /* The scenario's start: has_start 1 and the time of day at t = 0 in
     * seconds; the charts' time axes are then clock times. */
    int has_start;
    double start_s;
    /* A synthetic diurnal cycle's period in seconds, 0 without one: a
     * period other than a day is a compressed day, which the notes say. */
    double day_period_s;
};

/* Loads run run_id from the database at db_path (opened read-only).
 * Returns the run (caller frees with rpt_run_free()), or NULL after adding
 * "DB: error: ..." to d (no such run, not a database, SQL error). */
struct rpt_run *rpt_run_load(const char *db_path, int64_t run_id,
                             struct sim_diag *d);

/* Frees run and everything it owns. NULL is a no-op. */
void rpt_run_free(struct rpt_run *run);

/* The summary value of metric name, or NAN when absent or NULL. */
double rpt_run_metric(const struct rpt_run *run, const char *name);

/* Stores in *id the newest run that is not some run's baseline. Returns 0,
 * 1 when the database holds no such run, or SIM_EDB with a diagnostic. */
int rpt_run_latest(const char *db_path, int64_t *id, struct sim_diag *d);

/* Looks up the baseline linked to run_id (table baselines). Returns 0 with
 * *baseline_id set, 1 when none is linked (*baseline_id unchanged), or
 * SIM_EDB with a diagnostic. */
int rpt_baseline_find(const char *db_path, int64_t run_id, int64_t *baseline_id,
                      struct sim_diag *d);

/* Links baseline_id as run_id's baseline (replacing an older link).
 * Returns 0, or SIM_EDB with a diagnostic. */
int rpt_baseline_link(const char *db_path, int64_t run_id, int64_t baseline_id,
                      struct sim_diag *d);

/* Fills *a from run. Pure: equal runs give equal figures. */
void rpt_acct_compute(const struct rpt_run *run, struct rpt_acct *a);

/* Savings of the elastic run against the static baseline: *usd =
 * static - elastic, *pct = 100 x usd / static (NAN when static is 0 or
 * either cost is NAN). */
void rpt_savings(double elastic_cost_usd, double static_cost_usd, double *usd,
                 double *pct);

/* Frees what rep owns (not rep) and zeroes it. */
void rpt_report_fini(struct rpt_report *rep);

/* Parses "html", "pdf", "csv" or "md". Returns 0, or -1 (fmt unchanged). */
int rpt_format_parse(const char *s, enum rpt_format *fmt);

/* Whether this build can write fmt (PDF needs cairo at build time). */
int rpt_format_available(enum rpt_format fmt);

/* Writes rep in format fmt into the directory out_dir (created if missing):
 * report.html, report.pdf, report.md, or headline.csv, pools.csv,
 * states.csv and timeseries.csv; charts as *.png beside them (HTML embeds
 * them too). gnuplot_path NULL, or a gnuplot that fails, means no charts:
 * the report says so and a warning is added to d. If *written is not NULL it
 * receives the main file's path (caller frees). Returns 0, or SIM_EIO
 * (cannot create or write a file) / SIM_EINVAL (format not built) after
 * adding an error to d; files already written are left. */
int rpt_report_write(const struct rpt_report *rep, enum rpt_format fmt,
                     const char *out_dir, const char *gnuplot_path,
                     char **written, struct sim_diag *d);

/* Writes s to fp with &, <, >, " and ' as HTML character references, so
 * that it is text in an element or in a quoted attribute. NULL writes
 * nothing. */
void rpt_html_escape(FILE *fp, const char *s);

/* Writes s to fp as one RFC 4180 field: as is, or in double quotes (with
 * inner quotes doubled) when it holds a comma, quote, CR or LF, or starts
 * or ends with a space. NULL writes an empty field. */
void rpt_csv_field(FILE *fp, const char *s);

/* The figures of the comparison report, per policy and replication: the
 * RPT_CMP_* metrics of "dsec compare" in their order, then the cost per 1M
 * output tokens (USD). */
#define RPT_CREP_COST_PER_M_OUTPUT RPT_CMP_NMETRICS
#define RPT_CREP_NMETRICS (RPT_CMP_NMETRICS + 1)

/* A comparison read back from the database (tables comparisons,
 * comparison_runs and the runs they link). Owns every string and run. */
struct rpt_cmp_report {
    int64_t id;
    char *started_at;
    char *scenario_name; /* may be NULL */
    uint64_t seed;
    int npolicies;
    int nreps;
    char **labels;         /* [npolicies], as given to dsec compare */
    struct rpt_run **runs; /* [p * nreps + r] */
    double target_tpot_ms; /* NAN unless the caller sets it */
    double slo_tpot_ms;    /* NAN unless the caller sets it */
    /* The static cluster sized for the peak: per replication r, the run of
     * the scenario with seed seed + r and cluster.replicas =
     * baseline_replicas, the most replicas any policy held. Set by the
     * caller (owned, freed by rpt_cmp_report_fini()); NULL for none. */
    struct rpt_run **baselines; /* [nreps] */
    int baseline_replicas;
};

/* Stores in *id the newest comparison. Returns 0, 1 when the database holds
 * none, or SIM_EDB with a diagnostic. */
int rpt_cmp_latest(const char *db_path, int64_t *id, struct sim_diag *d);

/* Loads comparison id and every run it links from the database at db_path
 * (read-only) into *c, which is zeroed first; the targets are set to NAN.
 * Returns 0 (caller frees with rpt_cmp_report_fini()), or SIM_EDB after
 * adding an error to d (no such comparison, a run missing, SQL error); then
 * *c holds nothing. */
int rpt_cmp_report_load(const char *db_path, int64_t id,
                        struct rpt_cmp_report *c, struct sim_diag *d);

/* Frees what c owns (not c) and zeroes it. */
void rpt_cmp_report_fini(struct rpt_cmp_report *c);

/* The label of figure m (0..RPT_CREP_NMETRICS-1), or NULL. Static. */
const char *rpt_crep_label(int m);

/* The CSV name of figure m ("cost_usd", ...), or NULL. Static. */
const char *rpt_crep_name(int m);

/* Figure m of policy p in replication r, from the run's summary (SLO
 * attainment in percent); NAN when undefined or out of range. */
double rpt_crep_value(const struct rpt_cmp_report *c, int p, int r, int m);

/* Mean and 95% half-width of figure m of policy p over the replications
 * (rpt_cmp_mean_ci()); NAN when out of range. */
struct rpt_cmp_stat rpt_crep_stat(const struct rpt_cmp_report *c, int p, int m);

/* Paired difference of figure m, policy p minus policy 0
 * (rpt_cmp_paired()); NAN when out of range. */
struct rpt_cmp_stat rpt_crep_diff(const struct rpt_cmp_report *c, int p, int m);

/* The most replicas any run of c held (summary replicas.max), at least
 * 1. */
int rpt_cmp_peak_replicas(const struct rpt_cmp_report *c);

/* The note that names the baseline of replication r of comparison id on
 * replicas replicas, stored with it so that a later report finds it
 * (rpt_cmp_baseline_find()). Caller frees. */
char *rpt_cmp_baseline_note(int64_t id, int r, int replicas);

/* Looks up the stored baseline run whose note is note. Returns 0 with *run_id
 * set, 1 when there is none, or SIM_EDB with a diagnostic. */
int rpt_cmp_baseline_find(const char *db_path, const char *note,
                          int64_t *run_id, struct sim_diag *d);

/* Savings of policy p against the static baseline, replication by
 * replication (baseline cost - policy cost): mean and 95% half-width in
 * USD, or in % of the baseline's cost when pct is set; NAN without
 * baselines. */
struct rpt_cmp_stat rpt_crep_savings(const struct rpt_cmp_report *c, int p,
                                     int pct);

/* Writes the comparison report into out_dir (created if missing):
 * comparison.html (self-contained) or comparison.md with a table of one row
 * per policy, the paired differences and the runs; or policies.csv,
 * differences.csv and runs.csv. Charts (HTML and Markdown): replicas and
 * p99 TPOT over time in replication 0, one line per policy, and the mean
 * cost per policy as bars; gnuplot_path NULL means none, said in the report
 * and as a warning in d. If *written is not NULL it receives the main
 * file's path (caller frees). comparison.pdf (cairo) holds the same
 * tables and charts. With baselines, every format has the savings of each
 * policy against the static cluster sized for the peak (savings.csv).
 * Returns 0, SIM_EINVAL (PDF without cairo) or SIM_EIO after adding an
 * error to d. */
int rpt_cmp_report_write(const struct rpt_cmp_report *c, enum rpt_format fmt,
                         const char *out_dir, const char *gnuplot_path,
                         char **written, struct sim_diag *d);

#endif /* RPT_REPORT_H */
