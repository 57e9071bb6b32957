/*
 * Test helper for the model suites (tests/check_models_*.c): runs a
 * scenario given as YAML text to its results, failing the test (and
 * printing the diagnostics) when it does not load or run. Static inline so
 * that a suite includes it without linking anything more.
 */
#ifndef RUN_FIXTURE_H
#define RUN_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "base/diag.h"

/* Loads text as "inline.yaml" and runs it into *res (caller frees with
 * cl_results_fini()); relative trace paths are taken from base_dir. */
static inline void run_fixture_text(const char *text, const char *base_dir,
                                    struct cl_results *res)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = base_dir};
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = scn_string_load("inline.yaml", text, strlen(text), &scn, &d);
    if (rc == 0)
        rc = cl_run(&scn, &opts, res, &d);
    if (rc != 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(rc, 0);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}

#endif /* RUN_FIXTURE_H */
