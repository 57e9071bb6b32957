/*
 * Guard rails common to every scaling policy, applied after its decide():
 * no decision on invalid metrics (hold, and say so), cooldowns after a
 * scale-up or scale-down, maximum step sizes, and clamping to
 * [min_replicas, max_replicas]. Linked unchanged into dsec and dsec-scaler,
 * so, like the policies, it depends on plain C only. Single-threaded.
 */
#ifndef POL_GUARD_H
#define POL_GUARD_H

#include "models/policy/policy.h"

/* Settable under `policy:` in a scenario (rows in pol_guard_params_rows). */
struct pol_guard_params {
    double interval_s;            /* evaluation period */
    double scale_up_cooldown_s;   /* no scale-up sooner after a scale-up */
    double scale_down_cooldown_s; /* no scale-down sooner after any change */
    int max_step_up;              /* replicas added per decision */
    int max_step_down;            /* replicas removed per decision */
};

extern const struct sim_param pol_guard_params_rows[];

struct pol_guard {
    struct pol_guard_params p;
    double last_up_s; /* -INFINITY before the first */
    double last_down_s;
    unsigned long holds; /* decisions held for invalid metrics */
};

/* Why a decision was changed, for logs. */
enum pol_guard_reason {
    POL_GUARD_NONE = 0,
    POL_GUARD_INVALID_METRICS,
    POL_GUARD_POLICY_HOLD,
    POL_GUARD_COOLDOWN,
    POL_GUARD_STEP_LIMIT,
    POL_GUARD_CLAMP,
};

/* Initialises g with a copy of p. */
void pol_guard_init(struct pol_guard *g, const struct pol_guard_params *p);

/* Turns the policy's answer into the one to act on. current = s->ready +
 * s->pending (the size the cluster is heading to). decide_rc is what
 * decide() returned; on a negative rc or invalid metrics the result is
 * current (hold) with borrow 0 and drain POL_DRAIN_DEFAULT; a drain outside
 * enum pol_drain becomes POL_DRAIN_DEFAULT (a clamp). Updates the cooldown
 * clocks when the result differs from
 * current. Returns the reason of the last change made (POL_GUARD_NONE when
 * the policy's answer stands). d is read and rewritten. */
enum pol_guard_reason pol_guard_apply(struct pol_guard *g,
                                      const struct pol_snapshot *s,
                                      int decide_rc, struct pol_decision *d);

/* Static name of a reason ("cooldown", ...). */
const char *pol_guard_reason_name(enum pol_guard_reason r);

#endif /* POL_GUARD_H */
