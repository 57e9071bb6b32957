/*
 * Internals of calib/scenario.c shared with calib/import-serving.c
 * (dsec-calib import of serving benchmark results): the conversions with
 * what they read besides the scenario, the GuideLLM benchmark conversion,
 * and the JSON readers. Same rules as scenario.h: nothing is written to
 * out unless the whole input converts; messages go to d. Single-threaded.
 */
#ifndef CAL_SCENARIO_INT_H
#define CAL_SCENARIO_INT_H

#include <stdio.h>

#include <json-c/json.h>

#include "base/diag.h"
#include "calib/scenario.h"

/* Results of the number readers. */
enum { CAL__ABSENT = 0, CAL__GIVEN = 1, CAL__BAD = -1 };

/* Flags of cal__jnum(). */
enum {
    CAL__N_REQ = 1,    /* missing (or null) is an error */
    CAL__N_INT = 2,    /* an integer */
    CAL__N_POS = 4,    /* > 0 */
    CAL__N_NONNEG = 8, /* >= 0 */
};

/* What a conversion read besides the scenario. */
struct cal__scn_info {
    char *model; /* the served model's name as the run records it, or
                    NULL; owned, freed by cal__scn_info_fini() */
    int nstages; /* load stages: inference-perf's load.stages, else 1 */
    double rate_per_s[CAL_SCN_MAX_STAGES]; /* offered rate per stage,
                                              NAN when unbounded */
    double output_tokens; /* the configured output length per request when
                             the run fixes it (ignore_eos), else NAN */
};

/* Frees what info owns and clears it. */
void cal__scn_info_fini(struct cal__scn_info *info);

/*
 * cal_scenario_convert() that also fills info (cleared first; the caller
 * calls cal__scn_info_fini() whatever the result) for an inference-perf
 * folder run or a vllm bench result JSON. root, when not NULL, is the
 * already parsed JSON of the file run (borrowed), so it is not read twice.
 * Returns as cal_scenario_convert().
 */
int cal__scenario_convert(const char *run, json_object *root,
                          const struct cal_scn_opts *o, FILE *out,
                          struct cal__scn_info *info, struct sim_diag *d);

/*
 * Converts benchmark index (0-based) of the GuideLLM report at path, whose
 * parsed JSON is report (borrowed), into a one-stage scenario of
 * workload.vllm_bench (docs/calibration.md "Serving benchmark results"),
 * written to out; fills info as cal__scenario_convert(). Errors name the
 * key as "benchmarks[N].args.strategy.type_". Returns 0 or SIM_EINVAL.
 */
int cal__scenario_guidellm(const char *path, json_object *report, int index,
                           const struct cal_scn_opts *o, FILE *out,
                           struct cal__scn_info *info, struct sim_diag *d);

/*
 * The request counts of benchmark index of a GuideLLM report: the
 * integers successful, errored and incomplete of its request_totals, else
 * of its run_stats.requests_made. Returns 0, or SIM_EINVAL with
 * "path: error: benchmarks[N].request_totals: ..." in d (outputs then
 * unspecified).
 */
int cal__guidellm_counts(json_object *report, int index, const char *path,
                         double *ok, double *errored, double *incomplete,
                         struct sim_diag *d);

/*
 * Reads the JSON file at path (at most CAL_SCN_MAX_JSON_BYTES; NaN is
 * accepted, as Python writes it) whose top is an object. Returns it
 * (caller frees with json_object_put()), or NULL with "FILE:LINE:COL:
 * error: json: ..." (or the open error) in d.
 */
json_object *cal__json_read(const char *path, struct sim_diag *d);

/*
 * The value at key under obj, where key is a path of object members and
 * array indices such as "benchmarks[1].metrics.request_latency"; NULL when
 * any step is absent, null or of the wrong type. Borrowed from obj.
 */
json_object *cal__jget(json_object *obj, const char *key);

/*
 * Reads the number at key (a path as for cal__jget()) into *out under the
 * CAL__N_* flags: a JSON number, or a string holding one (what vllm bench
 * --metadata records); "inf" only when inf_ok. Errors are "path: error:
 * KEY: ..." naming what was expected. Returns CAL__GIVEN, CAL__ABSENT
 * (*out unchanged) or CAL__BAD (error in d).
 */
int cal__jnum(json_object *obj, const char *key, const char *path, int flags,
              int inf_ok, double *out, struct sim_diag *d);

#endif /* CAL_SCENARIO_INT_H */
