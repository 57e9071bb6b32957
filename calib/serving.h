/*
 * dsec-calib fit --serving: the step-time parameters that are uncertain,
 * fitted to imported serving benchmark runs (tables serving_runs and
 * serving_stages, dsec-calib import) by running the simulator in the loop
 * (docs/calibration.md "Fitting to serving runs"). Each evaluation runs
 * every run's scenario, with its own seed (common random numbers across
 * evaluations), on a pool of threads; GSL's trust-region least squares
 * (Levenberg-Marquardt) moves the parameters on the logarithm of their
 * ratio to the start, with central-difference derivatives of 2 % steps
 * (the simulator is piecewise smooth: smaller steps see its event jumps).
 * Residuals are relative errors of the per-stage means divided by the
 * tolerance of each metric: TTFT 0.15, TPOT (the per-token time) 0.05,
 * E2E 0.05, the accuracy a calibrated model should reach, so one unit of
 * residual is "as wrong as allowed" in every metric.
 */
#ifndef CAL_SERVING_H
#define CAL_SERVING_H

#include <sqlite3.h>
#include <stdio.h>

#include "base/diag.h"

/* Most parameters fitted at once, and most runs read. */
#define CAL_SRV_MAXP 8
#define CAL_SRV_MAX_RUNS 512

/* The parameters fitted when --params is not given. */
#define CAL_SRV_DEFAULT_PARAMS                                                 \
    "gemm.hbm_efficiency,attention.hbm_efficiency,gemm.efficiency_max,"        \
    "iteration_overhead,frontend.request"

/* A parameter whose relative standard error exceeds this is not
 * identifiable from the runs (the data barely constrain it). */
#define CAL_SRV_MAX_REL_SE 0.5

/* Tolerances that scale the relative errors (serving.h comment). */
#define CAL_SRV_TOL_TTFT 0.15
#define CAL_SRV_TOL_TPOT 0.05
#define CAL_SRV_TOL_E2E 0.05

/* A stage counts as overloaded, and is left out, when more than this
 * fraction of its requests failed (its survivors' latencies are cut off at
 * the client's time-out). */
#define CAL_SRV_MAX_FAILED 0.10

/* A stage is overloaded too when it served fewer requests per second than
 * this fraction of its offered rate: the queue grew through the stage and
 * its latencies measure the backlog, not the engine. */
#define CAL_SRV_MIN_SERVED 0.95

struct cal_srv_opts {
    const char *gpu;      /* GPU kind (required when several) */
    const char *out_yaml; /* profile to write, or NULL */
    const char *base;     /* starting profile, or NULL: built-in */
    const char *params;   /* comma-separated keys, or NULL: default */
    const char *holdout;  /* runs whose source contains it: predicted */
    const char *date;     /* provenance date, or NULL */
    int threads;          /* -j, >= 1 */
    int loo;              /* leave-one-run-out cross-validation */
    FILE *report;         /* the fit report */
    FILE *progress;       /* progress lines, or NULL */
};

/* Fits, reports, stores the fits (kind 'serving') and writes and verifies
 * the profile. Returns 0; SIM_ENOTFOUND (no runs); SIM_EINVAL (bad
 * option, a run that does not load, no convergence, a parameter not
 * identifiable: the message names it); SIM_EDB; SIM_EIO. */
int cal_srv_fit(sqlite3 *db, const struct cal_srv_opts *o, struct sim_diag *d);

#endif /* CAL_SERVING_H */
