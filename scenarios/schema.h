/*
 * The scenario language's composition table: the rows of the top-level keys
 * of struct cl_scenario (models/cluster/config.h), whose SIM_PT_SECTION and
 * SIM_PT_LIST rows point at the rows each model folder owns beside its
 * section's struct (models/workload/config.h, models/train/config.h,
 * models/cluster/config.h). Those rows are the single source of truth for
 * key names, types, units, ranges, defaults and help: the loader, `dsec
 * validate`, `dsec help scenario` and cl_scenario_fini() all read them.
 * Rules that span several keys (exactly one of, keys a kind uses) live in
 * the loader. Read-only, so safe to share.
 */
#ifndef SCN_SCHEMA_H
#define SCN_SCHEMA_H

#include "base/param.h"

/* Rows of the top-level keys, filling struct cl_scenario. */
extern const struct sim_param scn_schema[];

#endif /* SCN_SCHEMA_H */
