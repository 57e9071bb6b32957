/* What lib/'s files share beside dsec.h. */
#ifndef DSEC_LIB_INT_H
#define DSEC_LIB_INT_H

#include "dsec.h"
#include "models/cluster/config.h"
#include "base/diag.h"

/* Opens sc into *scn: its overrides, its policy, the checks, its seed.
 * Returns 0 or a code with diagnostics in d; *scn is zeroed then. Reads
 * sc only, so that threads may open one scenario at once (the workers of
 * dsec_compare_json()). */
int dsec__scenario_open(const dsec_scenario *sc, struct cl_scenario *scn,
                        struct sim_diag *d);

/* dsec__scenario_open(), then sc's display name from the opened
 * scenario's name. Not thread-safe: it replaces sc->display. */
int dsec__open_scenario(dsec_scenario *sc, struct cl_scenario *scn,
                        struct sim_diag *d);

/* The directory relative paths of sc start from (borrowed). */
const char *dsec__scenario_dir(const dsec_scenario *sc);

/* Stores the errors of d (or, without any, the code's text) in *err when
 * err is not NULL; returns rc. */
int dsec__fail(char **err, int rc, const struct sim_diag *d);

#endif /* DSEC_LIB_INT_H */
