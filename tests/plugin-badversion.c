/* A policy plug-in built for a policy API version dsec does not have
 * (tests/check_lib.c and e2e-plugin.sh check that it is refused with both
 * versions named). */
#include <stddef.h>

#include <dsec/policy.h>

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    (void)state;
    (void)s;
    (void)out;
    return 0;
}

static void *create(const void *params)
{
    (void)params;
    return NULL;
}

static void destroy(void *state)
{
    (void)state;
}

static const struct pol_ops ops = {POL_API_VERSION + 98, create, destroy,
                                   decide};

static const struct pol_entry entry = {"from-the-future", "", NULL, 0, &ops};

const struct dsec_policy_plugin dsec_policy_plugin = {POL_API_VERSION + 98,
                                                      &entry};
