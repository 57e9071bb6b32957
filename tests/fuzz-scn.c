/*
 * libFuzzer target for the scenario loader and the catalog checks
 * (--enable-fuzzing with CC=clang; docs/build.md says how to run it). An
 * input must load, or fail with at least one diagnostic; anything else,
 * and any sanitizer report, is a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cl_scenario scn;
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = scn_scenario_open(
        "fuzz.yaml",
        &(struct scn_open_opts){.text = (const char *)data, .len = size}, &scn,
        &d);
    if (rc != 0 && sim_diag_errors(&d) == 0)
        abort(); /* a failure that says nothing */
    cl_scenario_fini(&scn);
    sim_diag_fini(&d);
    return 0;
}
