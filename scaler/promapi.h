/*
 * The Prometheus HTTP API's instant query (GET /api/v1/query?query=...),
 * docs/sources.md §7.1: a JSON answer {"status":"success","data":{"resultType":
 * "vector","result":[{"metric":{...},"value":[ts,"v"]}]}} parsed with
 * json-c into the sample structure of expo.h (the name is the __name__
 * label or ""). "scalar" results give one sample; "status":"error" and
 * malformed answers are errors. Single-threaded.
 */
#ifndef SCL_PROMAPI_H
#define SCL_PROMAPI_H

#include <stddef.h>

#include "scaler/expo.h"
#include "scaler/http.h"

/* Parses a query answer (len bytes) and appends its samples to out.
 * Returns 0, or SIM_EPARSE (not the API's JSON) or SIM_EIO (the API
 * answered status error) with err saying why ("bad_data: parse error at
 * char 5: ..."). */
int scl_prom_parse(const char *json, size_t len, struct scl_expo *out,
                   char *err, size_t errlen);

/* Runs promql against base_url (e.g. http://127.0.0.1:9090) and appends
 * the result to out. Returns 0, or SIM_EIO / SIM_EPARSE with err. */
int scl_prom_query(struct scl_http *h, const char *base_url, const char *promql,
                   struct scl_expo *out, char *err, size_t errlen);

#endif /* SCL_PROMAPI_H */
