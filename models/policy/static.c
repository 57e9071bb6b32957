/* The static policy: a fixed size. desired = replicas when set, else the
 * current size (ready + pending), i.e. hold. The baseline every elastic
 * policy is compared against: the cost of provisioning for the peak. No
 * source beyond common practice (a fixed Deployment replica count). */
#include <stddef.h>
#include <stdlib.h>

#include "models/policy/policy.h"
#include "models/policy/pol-util.h"
#include "base/xalloc.h"

struct static_params {
    int replicas; /* -1: hold the current size */
};

static const struct sim_param rows[] = {
    {"replicas", SIM_PT_INT, SIM_U_NONE, 1, 100000, 0, NULL,
     "fixed number of replicas (unset: hold the current size)",
     offsetof(struct static_params, replicas), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static void *create(const void *params)
{
    struct static_params *st = xmalloc(sizeof(*st));

    *st = *(const struct static_params *)params;
    return st;
}

static void destroy(void *state)
{
    free(state);
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    const struct static_params *p = state;

    out->desired = p->replicas > 0 ? p->replicas : pol_util_current(s);
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

const struct pol_entry pol_static = {
    .name = "static",
    .summary = "fixed size: desired = replicas, or hold the current size "
               "when unset (baseline)",
    .params = rows,
    .params_size = sizeof(struct static_params),
    .ops = &ops,
};
