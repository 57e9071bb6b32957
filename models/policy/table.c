/* The scaling-policy registry: one entry per file, name-sorted. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/policy/policy.h"
#include "base/xalloc.h"

extern const struct pol_entry pol_apa;
extern const struct pol_entry pol_dynamo_load;
extern const struct pol_entry pol_dynamo_throughput;
extern const struct pol_entry pol_hpa;
extern const struct pol_entry pol_keda;
extern const struct pol_entry pol_kpa;
extern const struct pol_entry pol_llmd_saturation;
extern const struct pol_entry pol_predictive;
extern const struct pol_entry pol_ray_serve;
extern const struct pol_entry pol_static;
extern const struct pol_entry pol_target_latency;

const struct pol_entry *const pol_table[] = {
    &pol_apa,       &pol_dynamo_load, &pol_dynamo_throughput, &pol_hpa,
    &pol_keda,      &pol_kpa,         &pol_llmd_saturation,   &pol_predictive,
    &pol_ray_serve, &pol_static,      &pol_target_latency,    NULL,
};

const struct pol_entry *pol_find(const char *name)
{
    /* Case does not matter, as for model and GPU names. */
    for (int i = 0; pol_table[i] != NULL; i++)
        if (strcasecmp(pol_table[i]->name, name) == 0)
            return pol_table[i];
    return NULL;
}

char *pol_names(void)
{
    size_t len = 1;
    char *s;

    for (int i = 0; pol_table[i] != NULL; i++)
        len += strlen(pol_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (int i = 0; pol_table[i] != NULL; i++) {
        if (i > 0)
            strcat(s, ", ");
        strcat(s, pol_table[i]->name);
    }
    return s;
}

int pol_params_default(const struct pol_entry *e, void *block, char *err,
                       size_t errlen)
{
    for (const struct sim_param *p = e->params; p != NULL && p->key != NULL;
         p++) {
        int rc = sim_param_default(p, block, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void pol_param_unknown(const struct pol_entry *e, const char *key, char *buf,
                       size_t len)
{
    const char *best = NULL;
    int best_d = 3;
    size_t n;

    for (const struct sim_param *q = e->params; q != NULL && q->key != NULL;
         q++) {
        int dist = sim_param_edit_distance(key, q->key, 2);
        if (dist < best_d) {
            best_d = dist;
            best = q->key;
        }
    }
    if (best != NULL) {
        snprintf(buf, len, "unknown parameter of policy %s; did you mean '%s'?",
                 e->name, best);
        return;
    }
    n = (size_t)snprintf(buf, len,
                         "unknown parameter of policy %s; valid: ", e->name);
    if (e->params == NULL || e->params[0].key == NULL) {
        strncat(buf, "(none)", len > n ? len - n - 1 : 0);
        return;
    }
    for (const struct sim_param *q = e->params; q->key != NULL; q++) {
        if (q != e->params)
            strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, q->key, len - strlen(buf) - 1);
    }
}
