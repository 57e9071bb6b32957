/*
 * The calibration suite's CPU half (dsec-calib import, fit, show): raw
 * measurement points read from the logs of the standard tools (nccl-tests,
 * perftest, nvbandwidth, cuda-samples bandwidthTest) and of dsec-calib run,
 * serving benchmark results (inference-perf, vllm bench serve, GuideLLM)
 * with the scenarios that reproduce them, kept in an SQLite database, and
 * the least-squares fits that turn them into a calibration profile
 * (docs/calibration.md, docs/step-time.md).
 * Units: sizes in bytes, times in microseconds, bandwidths in GB/s (10^9
 * B/s) as the tools print them. Single-threaded; every function that can
 * fail returns 0 or a negative SIM_E* code and reports to a struct
 * sim_diag.
 */
#ifndef CAL_CAL_H
#define CAL_CAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"

/* Exit codes of dsec-calib (docs/calibration.md). */
#define CAL_EXIT_OK 0
#define CAL_EXIT_INPUT 1  /* bad log, database or profile */
#define CAL_EXIT_USAGE 2  /* bad command line */
#define CAL_EXIT_DEVICE 3 /* run: no device or library compiled in */

/* Most lines read from one log, and longest line. */
#define CAL_MAX_LINES 1000000
#define CAL_MAX_LINE 4096

/* One raw point. Strings are borrowed for the duration of a call; numbers
 * that a tool does not print are NAN (doubles) or -1 (integers). */
struct cal_point {
    const char *tool;      /* "nccl-tests", "perftest", "nvbandwidth",
                              "bandwidthTest", "dsec-calib" */
    const char *file;      /* the log it came from */
    int line;              /* 1-based line in file */
    const char *benchmark; /* all_reduce_perf, ib_write_bw, gemm, ... */
    const char *op;        /* out-of-place, in-place, h2d, d2d, cell, ... */
    const char *dtype;     /* float, bf16, ... or NULL */
    const char *redop;     /* sum, none, ... or NULL */
    int root;
    int ranks; /* GPUs or ranks taking part, -1 unknown */
    int hosts; /* distinct hosts, -1 unknown */
    int src, dst;
    double size_bytes; /* the tool's size S (per message, per array) */
    double count;      /* elements */
    double m, n, k;    /* GEMM shape */
    double time_us;    /* median or average time of one operation */
    double time_min_us, time_max_us;
    double algbw_gbps, busbw_gbps; /* GB/s = 10^9 B/s */
    int nwrong;                    /* -1 when N/A */
    const char *gpu;               /* --gpu label or NULL */
    const char *node;              /* --node label or the log's host */
    const char *date;              /* from the log, or NULL */
};

/* Sets every field of p to "not given". */
void cal_point_clear(struct cal_point *p);

/* Opens (creating when absent) the database at path and its tables.
 * Returns 0 and *out (close with sqlite3_close()), or SIM_EDB with a
 * message in d. */
int cal_db_open(const char *path, sqlite3 **out, struct sim_diag *d);

/* Inserts one point. Returns 0 or SIM_EDB (message in d). */
int cal_db_insert(sqlite3 *db, const struct cal_point *p, struct sim_diag *d);

/* Reads the log at path, auto-detecting its tool, and inserts every point
 * into db in one transaction (nothing is inserted when the log has an
 * error). gpu and node label the points (may be NULL). *npoints receives
 * the number inserted and *tool (may be NULL) a static name of the tool.
 * Errors are "path:line: error: ..." naming the row and what was expected.
 * Returns 0, SIM_EIO, SIM_EPARSE or SIM_EDB. */
int cal_import_file(sqlite3 *db, const char *path, const char *gpu,
                    const char *node, int *npoints, const char **tool,
                    struct sim_diag *d);

/* One serving benchmark run, a row of table serving_runs. Strings are
 * borrowed for the duration of a call. */
struct cal_serving_run {
    const char *source;       /* the input as given; a GuideLLM benchmark:
                                 PATH#N, N its 0-based index */
    const char *format;       /* "inference-perf", "vllm-bench", "guidellm" */
    const char *gpu;          /* GPU catalog name, lower case */
    const char *model;        /* the served model as the run names it, or
                                 NULL */
    const char *scenario;     /* the dsec scenario (YAML) of the run */
    const char *model_config; /* the HF config.json text, or NULL */
};

/* One load stage of a serving run, a row of table serving_stages. Counts
 * of -1 and numbers that are NAN are unknown (NULL in the database). */
struct cal_serving_stage {
    int stage;            /* 0-based */
    int64_t requests;     /* sent */
    int64_t failures;     /* failed, timed out or errored */
    double rate_per_s;    /* offered rate; NAN unbounded or closed */
    double output_tokens; /* generated tokens per request */
    double ttft_mean_ms, ttft_p99_ms;
    double tpot_mean_ms; /* per-token time of a request */
    double itl_mean_ms;  /* the tool's inter-token latency */
    double e2e_mean_ms, e2e_p99_ms;
    double requests_per_s; /* successful requests per second */
};

/* Inserts run r; *id receives its serving_runs.id. Returns 0 or SIM_EDB
 * (message in d, against r->source). */
int cal_db_insert_run(sqlite3 *db, const struct cal_serving_run *r, int64_t *id,
                      struct sim_diag *d);

/* Inserts stage st of run (a serving_runs.id). file names the input in a
 * message. Returns 0 or SIM_EDB. */
int cal_db_insert_stage(sqlite3 *db, int64_t run,
                        const struct cal_serving_stage *st, const char *file,
                        struct sim_diag *d);

/* Options of cal_import_serving(); borrowed. */
struct cal_serving_opts {
    const char *gpu;          /* GPU catalog name (checked); NULL is an error
                                 for every input, the results not naming it */
    const char *model_config; /* HF config.json or its folder, or NULL */
    const char *timeout;      /* the client's time-out as given, or NULL */
};

/* Whether path is to be read as serving benchmark results rather than as
 * a microbenchmark log: a folder, or a file whose first byte other than
 * white space is '{' (JSON). */
int cal_serving_detect(const char *path);

/*
 * Imports the serving benchmark results at path: an inference-perf
 * experiment folder or its results/ folder, a vllm bench serve result JSON
 * or a GuideLLM report JSON, detected from the content (docs/calibration.md
 * "Serving benchmark results"). Each run becomes a row of serving_runs
 * (its scenario converted as dsec-calib scenario does, with model.hf_config
 * "config.json" when o->model_config is given, and that file's text) and
 * one row of serving_stages per load stage, all in one transaction: on any
 * error nothing of path is inserted. On success one line per run,
 * "SOURCE: FORMAT, N stages, gpu KIND", goes to out and *nruns receives
 * the number of runs (0 on failure). Errors are "path: error: KEY: ..."
 * (JSON has no positions beyond syntax errors' LINE:COL); notes of the
 * conversion are added to d as well. Returns 0, SIM_EIO, SIM_EPARSE,
 * SIM_EINVAL or SIM_EDB.
 */
int cal_import_serving(sqlite3 *db, const char *path,
                       const struct cal_serving_opts *o, FILE *out, int *nruns,
                       struct sim_diag *d);

/* Result of one least-squares fit: nparams values with standard errors
 * (square root of the covariance diagonal scaled by the residual
 * variance), their covariance scaled alike (cov[i][i] = se[i]^2; the rows
 * and columns of fixed parameters are 0), R^2 of the weighted fit, the
 * number of points. Units are those of p (cal_fit_alpha_beta() converts
 * its covariance to GB/s with the values). */
#define CAL_FIT_MAXP 4
struct cal_fit {
    int np;
    double p[CAL_FIT_MAXP];
    double se[CAL_FIT_MAXP];
    double cov[CAL_FIT_MAXP][CAL_FIT_MAXP];
    int fixed[CAL_FIT_MAXP]; /* 1: held at its start value */
    double r2;
    double chisq;
    int npoints;
};

/* The correlation of parameters i and j of f, cov[i][j] / (se[i] se[j]),
 * within [-1, 1]; 0 when either is fixed or has no error. */
double cal_fit_corr(const struct cal_fit *f, int i, int j);

/* Hockney fit t_us = alpha_us + x_bytes / (B_gbps * 1e3), minimising the
 * relative residuals (t_model - t) / t so that small and large messages
 * weigh alike. x are the bytes over the link, t the times (us), n >= 3.
 * p[0] = alpha (us), p[1] = B (GB/s). Returns 0 or SIM_EINVAL (too few
 * points, non-positive data, no convergence). */
int cal_fit_alpha_beta(const double *x_bytes, const double *t_us, int n,
                       struct cal_fit *out);

/* dsec's GEMM cost (models/perf/calib.h perf_op_ns with the efficiency
 * curve of perf_gemm_eff): t_us = max(F / (e_max * M/(M + m_half) * P),
 * Bytes / (e_mem * H)) * 1e6 + k_us, for GEMMs of m, n, k with 2-byte
 * operands (bytes = 2(mk + kn + mn)), peak P FLOP/s and HBM H B/s.
 * p = {e_max, m_half, e_mem, k_us}; fix_mem holds e_mem at e_mem0 (when no
 * point is memory-bound). Relative residuals. When the free fit leaves the
 * physical range (efficiencies in (0, 1], M_half >= 0, kernel time >= 0
 * within 3 standard errors) it is refitted with e_mem held at e_mem0.
 * Returns 0, SIM_EINVAL (too few points, no convergence) or SIM_ERANGE
 * (still out of range; *out holds that fit). */
int cal_fit_gemm(const double *m, const double *n, const double *k,
                 const double *t_us, int npts, double elem_bytes,
                 double peak_flops, double hbm_bytes_per_s, int fix_mem,
                 double e_mem0, struct cal_fit *out);

/* The model of cal_fit_gemm() at one shape, us. */
double cal_gemm_model_us(const double *p, double m, double n, double k,
                         double elem_bytes, double peak_flops,
                         double hbm_bytes_per_s);

/* Options of cal_fit_run(). */
struct cal_fit_opts {
    const char *gpu;       /* GPU kind to fit, catalog name */
    const char *out_yaml;  /* profile to write, or NULL */
    const char *chart_dir; /* charts (PNG via gnuplot), or NULL */
    const char *date;      /* --date, or NULL: from the logs or unknown */
    const char *gnuplot;   /* gnuplot path, or NULL for none */
    FILE *report;          /* the fit report */
};

/* Fits everything the database holds for opts->gpu, stores the fits in
 * table fits, prints the report, writes the profile and loads it back with
 * perf_calib_load() to check it. Returns 0, SIM_EDB, SIM_ENOTFOUND (no
 * points), SIM_EIO or SIM_EINVAL. */
int cal_fit_run(sqlite3 *db, const struct cal_fit_opts *opts,
                struct sim_diag *d);

/* Prints the points and fits of db, grouped, then the serving runs and
 * their stages, to fp. Returns 0 or SIM_EDB. */
int cal_show(sqlite3 *db, FILE *fp, struct sim_diag *d);

/* dsec-calib run: argc/argv after "run". Returns an exit code
 * (CAL_EXIT_DEVICE when nothing can run here). */
int cal_run_main(int argc, char **argv);

#endif /* CAL_CAL_H */
