/*
 * The scenario language's parameter tables: one NULL-terminated array of
 * sim_param rows per section of struct cl_scenario (models/cluster/config.h),
 * reached from scn_schema through SIM_PT_SECTION rows. These rows are the
 * single source of truth for key names, types, units, ranges, defaults and
 * help: the loader, `dsec validate` and `dsec help scenario` all read them.
 * Rules that span several keys (exactly one of, keys a kind uses) live in
 * the loader. Read-only, so safe to share.
 */
#ifndef SCN_SCHEMA_H
#define SCN_SCHEMA_H

#include "base/param.h"

/* Rows of the top-level keys, filling struct cl_scenario. */
extern const struct sim_param scn_schema[];

/* Rows of `model:` when it is a mapping rather than a catalog name,
 * filling struct cl_model_src. */
extern const struct sim_param scn_model_rows[];

#endif /* SCN_SCHEMA_H */
