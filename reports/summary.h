/*
 * A run's results for people and for programs: a fixed-width summary table,
 * and one JSON object (the output of "dsec run --json", members listed in
 * docs/results.md). Latencies are in ms, times in s, money in USD, as the
 * member names say. NAN means "not defined" and prints as "n/a" in the
 * table and null in JSON. Both are pure functions of the results, so equal
 * results give identical bytes. Single-threaded; no state.
 */
#ifndef RPT_SUMMARY_H
#define RPT_SUMMARY_H

#include <stdio.h>

#include "models/cluster/results.h"

/* Prints r as a table to fp: requests; latency (TTFT, TPOT, E2E, queue; mean
 * +- ci95, p50, p90, p99, max in ms); throughput; replicas; GPU-hours and
 * cost; SLO attainment; simulated time, events, wall time, events/s; then
 * one "note: ..." line per note. r is borrowed. Write errors are left in
 * fp's error indicator for the caller to check. */
void rpt_summary_print(FILE *fp, const struct cl_results *r);

/* Returns r as one JSON object, indented when pretty is non-zero, else on
 * one line, without a trailing newline. Doubles print as the shortest of
 * %.15g, %.16g and %.17g that reads back exactly; NAN and infinities are
 * null. r is borrowed; the caller frees the string with free(). */
char *rpt_summary_json(const struct cl_results *r, int pretty);

/* As rpt_summary_json(), with one more member, "replica_series": an array
 * with one object per cl_replica_row of r (members named as the columns of
 * the replica_series table, docs/results.md), for "dsec run --json
 * --series-replicas". The other members are those of rpt_summary_json(),
 * made by the same code. The caller frees the string with free(). */
char *rpt_summary_json_replicas(const struct cl_results *r, int pretty);

struct cl_pi;

/* The prediction intervals of dsec run --uncertainty under the summary of
 * r (the run at the profile's values): one row per metric with the run's
 * value, the draws' median and the interval, and a line that says what
 * the interval holds and that the ci95 above is seed noise. */
void rpt_pi_print(FILE *fp, const struct cl_pi *pi, const struct cl_results *r);

/* The "prediction_interval" object: level, n, params, structural, and
 * per metric [lo, hi] (null where undefined). The caller owns it. */
struct json_object *rpt_pi_json(const struct cl_pi *pi);

#endif /* RPT_SUMMARY_H */
