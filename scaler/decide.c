/* Decisions; see decide.h. */
#include "scaler/decide.h"

#include <string.h>

#include "base/errors.h"

int scl_decider_init(struct scl_decider *d, const struct scl_config *c)
{
    memset(d, 0, sizeof(*d));
    d->policy = c->policy;
    d->state = c->policy->ops->create(c->policy_params);
    if (d->state == NULL)
        return SIM_ENOMEM;
    pol_guard_init(&d->guard, &c->guard);
    return 0;
}

void scl_decider_fini(struct scl_decider *d)
{
    if (d->policy != NULL && d->state != NULL)
        d->policy->ops->destroy(d->state);
    memset(d, 0, sizeof(*d));
}

enum pol_guard_reason scl_decide(struct scl_decider *d,
                                 const struct pol_snapshot *s,
                                 struct pol_decision *out, int *policy_rc)
{
    enum pol_guard_reason why;
    int cur = s->ready + s->pending, rc;

    out->desired = cur;
    out->borrow = 0;
    out->drain = POL_DRAIN_DEFAULT; /* the scaler sets a size only */

    rc = d->policy->ops->decide(d->state, s, out);
    if (policy_rc != NULL)
        *policy_rc = rc;
    why = pol_guard_apply(&d->guard, s, rc, out);
    if (out->desired != cur && out->desired > s->max_replicas) {
        out->desired = s->max_replicas;
        why = POL_GUARD_CLAMP;
    }
    if (out->desired != cur && out->desired < s->min_replicas) {
        out->desired = s->min_replicas;
        why = POL_GUARD_CLAMP;
    }
    return why;
}
