/* Prometheus instant queries; see promapi.h. */
#include "scaler/promapi.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;

    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* [ts, "value"] -> value. */
static int pair_value(json_object *pair, double *out)
{
    json_object *v;
    const char *s;
    char *end;

    if (!json_object_is_type(pair, json_type_array) ||
        json_object_array_length(pair) != 2)
        return -1;
    v = json_object_array_get_idx(pair, 1);
    if (!json_object_is_type(v, json_type_string))
        return -1;
    s = json_object_get_string(v);
    if (strcmp(s, "NaN") == 0) {
        *out = NAN;
        return 0;
    }
    if (strcmp(s, "+Inf") == 0) {
        *out = INFINITY;
        return 0;
    }
    if (strcmp(s, "-Inf") == 0) {
        *out = -INFINITY;
        return 0;
    }
    *out = strtod(s, &end);
    return *end == '\0' && end != s ? 0 : -1;
}

int scl_prom_parse(const char *json, size_t len, struct scl_expo *out,
                   char *err, size_t errlen)
{
    json_tokener *tok = json_tokener_new();
    json_object *root, *data, *result;
    const char *status, *rtype;
    int rc = SIM_EPARSE;

    root = json_tokener_parse_ex(tok, json, (int)len);
    if (root == NULL) {
        snprintf(err, errlen, "not JSON: %s",
                 json_tokener_error_desc(json_tokener_get_error(tok)));
        json_tokener_free(tok);
        return SIM_EPARSE;
    }
    json_tokener_free(tok);
    status = json_object_is_type(root, json_type_object) ? jstr(root, "status")
                                                         : NULL;
    if (status == NULL) {
        snprintf(err, errlen, "no \"status\" in the answer");
        goto out;
    }
    if (strcmp(status, "success") != 0) {
        const char *et = jstr(root, "errorType");
        const char *e = jstr(root, "error");
        snprintf(err, errlen, "prometheus: %s: %s", et ? et : "error",
                 e ? e : "(no message)");
        rc = SIM_EIO;
        goto out;
    }
    if (!json_object_object_get_ex(root, "data", &data) ||
        (rtype = jstr(data, "resultType")) == NULL ||
        !json_object_object_get_ex(data, "result", &result)) {
        snprintf(err, errlen, "no data.resultType or data.result");
        goto out;
    }
    if (strcmp(rtype, "scalar") == 0) {
        double v;
        if (pair_value(result, &v) != 0) {
            snprintf(err, errlen, "bad scalar result");
            goto out;
        }
        if (scl_expo_append(out, "", v) == NULL) {
            snprintf(err, errlen, "too many samples");
            goto out;
        }
        rc = 0;
        goto out;
    }
    if (strcmp(rtype, "vector") != 0 ||
        !json_object_is_type(result, json_type_array)) {
        snprintf(err, errlen,
                 "result type %s; expected vector or scalar (an instant "
                 "query)",
                 rtype);
        goto out;
    }
    for (size_t i = 0; i < json_object_array_length(result); i++) {
        json_object *el = json_object_array_get_idx(result, i);
        json_object *metric, *value;
        struct scl_sample *s;
        double v;
        const char *name;

        if (!json_object_object_get_ex(el, "metric", &metric) ||
            !json_object_is_type(metric, json_type_object) ||
            !json_object_object_get_ex(el, "value", &value) ||
            pair_value(value, &v) != 0) {
            snprintf(err, errlen, "result[%zu]: expected metric and value", i);
            goto out;
        }
        name = jstr(metric, "__name__");
        s = scl_expo_append(out, name ? name : "", v);
        if (s == NULL) {
            snprintf(err, errlen, "too many samples");
            goto out;
        }
        json_object_object_foreach(metric, k, lv)
        {
            if (strcmp(k, "__name__") != 0 &&
                json_object_is_type(lv, json_type_string))
                scl_sample_add_label(s, k, json_object_get_string(lv));
        }
    }
    rc = 0;
out:
    json_object_put(root);
    return rc;
}

int scl_prom_query(struct scl_http *h, const char *base_url, const char *promql,
                   struct scl_expo *out, char *err, size_t errlen)
{
    char *q = scl_http_escape(h, promql);
    size_t blen = strlen(base_url);
    char *url = xasprintf(
        "%.*s/api/v1/query?query=%s",
        (int)(blen > 0 && base_url[blen - 1] == '/' ? blen - 1 : blen),
        base_url, q);
    char *body;
    size_t len;
    long status;
    int rc;

    free(q);
    rc = scl_http_request(h, "GET", url, NULL, NULL, &body, &len, &status, err,
                          errlen);
    free(url);
    if (rc != 0)
        return rc;
    rc = scl_prom_parse(body, len, out, err, errlen);
    /* Prometheus answers 400/422/503 with the error JSON; keep its
     * message, but name the status when the body was not the API's. */
    if (rc == SIM_EPARSE && status != 200) {
        snprintf(err, errlen, "prometheus answered HTTP %ld", status);
        rc = SIM_EIO;
    }
    free(body);
    return rc;
}
