/*
 * dsec-calib scenario: one benchmark result turned into the dsec scenario
 * that reproduces it (issue #16, docs/calibration.md "Benchmark runs as
 * scenarios"). Two inputs are read: an inference-perf run (its
 * results/config.yaml, what inference-perf ran, with the vLLM server's
 * settings in exp-config.yaml beside results/) and a `vllm bench serve`
 * result JSON (--save-result, with or without --save-detailed). The
 * scenario is YAML whose comments say where each value came from and what
 * was assumed. Nothing is written unless the whole input converts. No
 * state; single-threaded. dsec-calib import uses the same conversions,
 * and one for GuideLLM reports, through calib/scenario-int.h.
 */
#ifndef CAL_SCENARIO_H
#define CAL_SCENARIO_H

#include <stdio.h>

#include "base/diag.h"

/* Largest vllm bench JSON read, in bytes (--save-detailed keeps every
 * generated text: about 4 KiB per request). */
#define CAL_SCN_MAX_JSON_BYTES (256 << 20)

/* Largest YAML file read (inference-perf's configs are a few KiB). */
#define CAL_SCN_MAX_YAML_BYTES (1 << 20)

/* Most load stages converted (the scenario language's list cap). */
#define CAL_SCN_MAX_STAGES 256

/* The command line's settings. Every member is borrowed and may be NULL. */
struct cal_scn_opts {
    const char *model_config; /* --model-config: a config.json or its dir */
    const char *gpu;          /* --gpu: a GPU catalog name, already checked */
    const char *timeout;      /* --timeout: a duration as given, checked */
    const char *model_config_name; /* written as model.hf_config instead of
                                      model_config's absolute path (dsec-calib
                                      import: "config.json"), or NULL */
};

/*
 * Converts the benchmark result at run and writes the scenario to out.
 *   run: an inference-perf experiment folder (exp-config.yaml and
 *     results/config.yaml), its results/ folder, or a vllm bench serve
 *     result JSON file (borrowed).
 *   o: the options (borrowed); o->gpu is required by the caller.
 *   out: receives the whole scenario on success, nothing on failure.
 *   d: receives "FILE:LINE:COL: error: key.path: message" for bad or
 *     unsupported input (line 0 where JSON gives no position), and notes
 *     for input settings that do not change the run (keys inference-perf
 *     ignored, settings with no counterpart in dsec).
 * Returns 0; SIM_EIO (missing or unreadable input); SIM_EPARSE (a YAML or
 * JSON syntax error); SIM_EINVAL (a bad or unsupported value).
 */
int cal_scenario_convert(const char *run, const struct cal_scn_opts *o,
                         FILE *out, struct sim_diag *d);

#endif /* CAL_SCENARIO_H */
