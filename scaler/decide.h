/*
 * One decision of dsec-scaler, made exactly as the simulator's
 * orchestrator makes it (models/cluster/orchestrator.c, on_policy()):
 * preset the answer to ready + pending, call the policy's decide(), then
 * pol_guard_apply(). The policy object and guard are the simulator's,
 * linked unchanged. Single-threaded.
 */
#ifndef SCL_DECIDE_H
#define SCL_DECIDE_H

#include "models/policy/guard.h"
#include "models/policy/policy.h"
#include "scaler/conf.h"

struct scl_decider {
    const struct pol_entry *policy; /* borrowed */
    void *state;                    /* owned policy state */
    struct pol_guard guard;
};

/* Creates the policy state from c's policy and parameter block (copied by
 * the policy), and the guard from c->guard. Returns 0, or SIM_ENOMEM. */
int scl_decider_init(struct scl_decider *d, const struct scl_config *c);

/* Destroys the policy state. */
void scl_decider_fini(struct scl_decider *d);

/* Decides on s. *out is the answer to act on; *policy_rc what decide()
 * returned. Returns the guard's reason (POL_GUARD_NONE when the policy's
 * answer stands). Safety net of the live scaler, which acts on a real
 * cluster: an answer that changes the size (differs from ready + pending)
 * is clamped into [s->min_replicas, s->max_replicas] after the guard, whose
 * step limits count from ready + pending and so could leave the bounds
 * when more replicas report than the bounds allow (POL_GUARD_CLAMP then);
 * an answer equal to ready + pending changes nothing and is kept. */
enum pol_guard_reason scl_decide(struct scl_decider *d,
                                 const struct pol_snapshot *s,
                                 struct pol_decision *out, int *policy_rc);

#endif /* SCL_DECIDE_H */
