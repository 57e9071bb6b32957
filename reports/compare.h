/*
 * Comparing scaling policies over replications ("dsec compare"): the
 * per-replication metrics of each policy, their means with 95% Student-t
 * confidence intervals, and paired differences against the first policy.
 * Replication r of every policy runs with the same seed, so the policies see
 * the same arrivals and failures (common random numbers) and a paired
 * difference cancels the noise they share. Latencies are in ms, SLO
 * attainment in percent (0..100), money in USD, as the metric names say.
 * NAN means "not defined" (no SLO set, fewer than two replications) and
 * prints as "n/a" in tables and null in JSON. The comparison owns every
 * string and array it holds; output functions are pure, so equal inputs
 * give identical bytes. Single-threaded.
 */
#ifndef RPT_COMPARE_H
#define RPT_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "models/cluster/config.h"
#include "models/cluster/results.h"
#include "base/diag.h"

/* Most replications a comparison holds (a bound on its arrays). */
#define RPT_CMP_MAX_REPLICATIONS 1000

/* Most policies a comparison holds. */
#define RPT_CMP_MAX_POLICIES 64

/* The metrics compared, in table and JSON order. */
enum rpt_cmp_metric {
    RPT_CMP_SLO_ATTAINMENT, /* percent of requests meeting the SLO */
    RPT_CMP_TTFT_P99,       /* ms */
    RPT_CMP_TPOT_P99,       /* ms */
    RPT_CMP_GPU_HOURS,
    RPT_CMP_COST,         /* USD */
    RPT_CMP_SCALE_EVENTS, /* count */
    RPT_CMP_COLD_STARTS,  /* count */
    RPT_CMP_NMETRICS,
};

/* A mean over replications and the half-width of its 95% confidence
 * interval (NAN when fewer than two values or any value is NAN). */
struct rpt_cmp_stat {
    double mean;
    double ci95;
};

struct rpt_cmp;

/* The JSON and database name of metric m ("slo_attainment", "ttft_p99_ms",
 * "tpot_p99_ms", "gpu_hours", "cost_usd", "scale_events", "cold_starts"),
 * or NULL when m is out of range. Static storage. */
const char *rpt_cmp_metric_name(int m);

/* The table label of metric m ("SLO attainment (%)", "p99 TTFT (ms)", ...),
 * or NULL when m is out of range. Static storage. */
const char *rpt_cmp_metric_label(int m);

/* Mean and 95% confidence half-width t_{0.975,n-1} s / sqrt(n) of
 * x[0..n-1], s the sample standard deviation (Student t quantile from
 * gsl_cdf_tdist_Pinv). The mean is NAN when n is 0 or a value is NAN; the
 * half-width is NAN too when n < 2. x is borrowed. */
struct rpt_cmp_stat rpt_cmp_mean_ci(const double *x, int n);

/* Paired differences: the mean and 95% half-width of x[i] - base[i] over
 * i < n, as rpt_cmp_mean_ci() computes them on the differences. Both
 * arrays are borrowed. */
struct rpt_cmp_stat rpt_cmp_paired(const double *x, const double *base, int n);

/* Non-zero when the 95% interval mean +- ci95 excludes 0 (a significant
 * difference): both finite and |mean| > ci95. 0 otherwise, also for NAN. */
int rpt_cmp_significant(struct rpt_cmp_stat s);

/* Creates an empty comparison of scenario (copied; may be NULL) over
 * replications (1..RPT_CMP_MAX_REPLICATIONS) seeded seed + r. Returns
 * NULL when replications is out of range. Caller frees with
 * rpt_cmp_free(). */
struct rpt_cmp *rpt_cmp_new(const char *scenario, uint64_t seed,
                            int replications);

/* Frees c and everything it owns. NULL is a no-op. */
void rpt_cmp_free(struct rpt_cmp *c);

/* Adds a policy: label is the argument as given ("static:replicas=4"),
 * name the registry name, params its nparams parameters (keys and values
 * copied; positions ignored). Every metric starts as NAN. Returns the new
 * policy's index (0 for the first, the baseline of the differences), or
 * -1 when c already holds RPT_CMP_MAX_POLICIES. Borrowed arguments. */
int rpt_cmp_add_policy(struct rpt_cmp *c, const char *label, const char *name,
                       const struct cl_policy_param *params, int nparams);

/* Sets metric m of policy p in replication rep to v. Out-of-range indices
 * are ignored (and assert in debug builds). */
void rpt_cmp_set(struct rpt_cmp *c, int p, int rep, int m, double v);

/* Records the compared metrics of a run's results r (borrowed) as
 * replication rep of policy p: SLO attainment x 100, p99 TTFT and TPOT,
 * GPU-hours, cost, scale events, cold starts. */
void rpt_cmp_record(struct rpt_cmp *c, int p, int rep,
                    const struct cl_results *r);

/* The value set for metric m of policy p in replication rep; NAN if unset
 * or out of range. */
double rpt_cmp_get(const struct rpt_cmp *c, int p, int rep, int m);

/* Number of policies; number of replications. */
int rpt_cmp_npolicies(const struct rpt_cmp *c);
int rpt_cmp_replications(const struct rpt_cmp *c);

/* Mean and 95% half-width of metric m of policy p over the replications;
 * both NAN when p or m is out of range. */
struct rpt_cmp_stat rpt_cmp_summary(const struct rpt_cmp *c, int p, int m);

/* Paired difference of metric m, policy p minus policy 0, over the
 * replications; both NAN when p or m is out of range. */
struct rpt_cmp_stat rpt_cmp_diff(const struct rpt_cmp *c, int p, int m);

/* Prints the comparison to fp in at most 100 columns when labels are
 * short: a heading, one block of rows per metric (one row per policy, mean
 * +- ci95), then the paired differences against the first policy with "*"
 * where the interval excludes 0. Write errors are left in fp's error
 * indicator. */
void rpt_cmp_print(FILE *fp, const struct rpt_cmp *c);

/* Returns the comparison as one JSON object, indented when pretty is
 * non-zero, without a trailing newline: {scenario, replications, seed,
 * policies: [{name, label, params: {key: value}, metrics: {METRIC: {mean,
 * ci95, values: [...]}}, diff_vs_first: {METRIC: {mean, ci95,
 * significant}} or null for the first}]}. Doubles print as the shortest of
 * %.15g, %.16g, %.17g that reads back exactly; NAN is null. Caller frees
 * with free(). */
char *rpt_cmp_json(const struct rpt_cmp *c, int pretty);

/* Records the comparison in the results database at path, which must hold
 * schema RPT_SCHEMA_VERSION already (rpt_db_open() creates it): one row in
 * comparisons (started_at, ISO-8601 UTC from the caller; scenario name;
 * the labels as a JSON array; replications; seed) and one row in
 * comparison_runs per run, run_ids[p * replications + r] being the runs.id
 * of policy p in replication r. One IMMEDIATE transaction on a connection
 * of its own (foreign keys on, busy timeout RPT_DB_BUSY_TIMEOUT_MS).
 * Returns 0 and stores the comparisons.id in *id_out (may be NULL), or
 * SIM_EDB after adding "PATH: error: cannot write comparison: ..." to d;
 * then nothing of the comparison is stored. Borrowed arguments. */
int rpt_cmp_db_write(const char *path, const struct rpt_cmp *c,
                     const char *started_at, const int64_t *run_ids,
                     int64_t *id_out, struct sim_diag *d);

/* One line of the chart: a policy's label and its replication-0 results
 * (borrowed; the time series is read). */
struct rpt_cmp_line {
    const char *label;
    const struct cl_results *res;
};

/* Draws the chart into png_path with gnuplot at gnuplot_path: replicas
 * serving over time (top panel) and p99 TPOT per metrics interval (bottom
 * panel), one line per policy, with horizontal lines at target_ms (the
 * scaler's cluster.target_latency_ms) and slo_ms (slo.tpot_ms) when they
 * are not NAN. Draws in a job of reports/gnuplot.h (a temporary directory,
 * gnuplot run without a shell, its exit status checked). The chart is one
 * the user asked for: returns 0, or SIM_EIO after adding "PNG: error:
 * cannot draw chart: ..." to d, also when gnuplot_path is NULL (no
 * gnuplot). */
int rpt_cmp_plot(const char *gnuplot_path, const char *png_path,
                 const struct rpt_cmp_line *lines, int nlines, double target_ms,
                 double slo_ms, struct sim_diag *d);

/* Splits a policy argument, "NAME" or "NAME:key=value,key=value" (dsec
 * compare --policy, dsec_compare_json()), into *name and *params (*nparams
 * of them, positions 0:0). Returns NULL, or a message (static storage)
 * saying what is wrong. Either way the caller frees what was filled with
 * rpt_cmp_policy_fini(). */
const char *rpt_cmp_policy_parse(const char *arg, char **name,
                                 struct cl_policy_param **params, int *nparams);

/* Frees what rpt_cmp_policy_parse() filled. */
void rpt_cmp_policy_fini(char *name, struct cl_policy_param *params,
                         int nparams);

#endif /* RPT_COMPARE_H */
