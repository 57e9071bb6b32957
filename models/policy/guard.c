/* Guard rails applied after every policy's decide(). The order is fixed
 * and documented in docs/policies.md: hold on invalid metrics or a policy
 * hold; clamp to [min_replicas, max_replicas]; limit the step relative to
 * the current size; cooldowns; clamp the borrow and the drain mode;
 * record the change. The
 * step limit comes after the clamp, so a cluster that starts outside
 * [min, max] walks back at max_step_* per decision rather than jumping.
 * Durations are double seconds (SIM_PT_DOUBLE rows in SIM_U_SECONDS store
 * seconds, unlike SIM_PT_DURATION, which stores int64 ns). */
#include "models/policy/guard.h"

#include <math.h>
#include <stddef.h>

#define G(f) offsetof(struct pol_guard_params, f)

const struct sim_param pol_guard_params_rows[] = {
    {"interval", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, SIM_PF_MIN_EXCL, "15s",
     "time between policy evaluations (Kubernetes HPA sync period, 15 s)",
     G(interval_s), NULL, NULL},
    {"scale_up_cooldown", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "0s",
     "no scale-up sooner than this after a scale-up", G(scale_up_cooldown_s),
     NULL, NULL},
    {"scale_down_cooldown", SIM_PT_DOUBLE, SIM_U_SECONDS, 0, 86400, 0, "300s",
     "no scale-down sooner than this after any change (HPA's 300 s "
     "scale-down stabilisation)",
     G(scale_down_cooldown_s), NULL, NULL},
    {"max_step_up", SIM_PT_INT, SIM_U_NONE, 1, 100000, 0, "8",
     "most replicas added by one decision", G(max_step_up), NULL, NULL},
    {"max_step_down", SIM_PT_INT, SIM_U_NONE, 1, 100000, 0, "1",
     "most replicas removed by one decision", G(max_step_down), NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

void pol_guard_init(struct pol_guard *g, const struct pol_guard_params *p)
{
    g->p = *p;
    g->last_up_s = -INFINITY;
    g->last_down_s = -INFINITY;
    g->holds = 0;
}

enum pol_guard_reason pol_guard_apply(struct pol_guard *g,
                                      const struct pol_snapshot *s,
                                      int decide_rc, struct pol_decision *d)
{
    enum pol_guard_reason why = POL_GUARD_NONE;
    int cur = s->ready + s->pending;
    int want = d->desired;
    int room;

    if (!s->metrics_valid || decide_rc < 0) {
        d->desired = cur;
        d->borrow = 0;
        d->drain = POL_DRAIN_DEFAULT;
        if (!s->metrics_valid) {
            g->holds++;
            return POL_GUARD_INVALID_METRICS;
        }
        return POL_GUARD_POLICY_HOLD;
    }

    /* max first, then min: if a snapshot had min > max, min wins, since
     * dropping below the floor is the worse error. */
    if (want > s->max_replicas)
        want = s->max_replicas;
    if (want < s->min_replicas)
        want = s->min_replicas;
    if (want != d->desired)
        why = POL_GUARD_CLAMP;

    /* Compare in long long: cur + max_step_up may exceed INT_MAX. */
    if ((long long)want > (long long)cur + g->p.max_step_up) {
        want = cur + g->p.max_step_up;
        why = POL_GUARD_STEP_LIMIT;
    } else if ((long long)want < (long long)cur - g->p.max_step_down) {
        want = cur - g->p.max_step_down;
        why = POL_GUARD_STEP_LIMIT;
    }

    if (want > cur && s->now_s - g->last_up_s < g->p.scale_up_cooldown_s) {
        want = cur;
        why = POL_GUARD_COOLDOWN;
    } else if (want < cur) {
        double last = fmax(g->last_up_s, g->last_down_s);
        if (s->now_s - last < g->p.scale_down_cooldown_s) {
            want = cur;
            why = POL_GUARD_COOLDOWN;
        }
    }

    room = want > cur ? want - cur : 0;
    if (d->borrow < 0 || d->borrow > room) {
        d->borrow = d->borrow < 0 ? 0 : room;
        why = POL_GUARD_CLAMP;
    }
    /* A mode outside the enum is a policy's bug: the deployment's then. */
    if (d->drain != POL_DRAIN_DEFAULT && d->drain != POL_DRAIN_FINISH &&
        d->drain != POL_DRAIN_MIGRATE) {
        d->drain = POL_DRAIN_DEFAULT;
        why = POL_GUARD_CLAMP;
    }
    d->desired = want;

    if (want > cur)
        g->last_up_s = s->now_s;
    else if (want < cur)
        g->last_down_s = s->now_s;
    return why;
}

const char *pol_guard_reason_name(enum pol_guard_reason r)
{
    switch (r) {
    case POL_GUARD_NONE:
        return "none";
    case POL_GUARD_INVALID_METRICS:
        return "invalid_metrics";
    case POL_GUARD_POLICY_HOLD:
        return "policy_hold";
    case POL_GUARD_COOLDOWN:
        return "cooldown";
    case POL_GUARD_STEP_LIMIT:
        return "step_limit";
    case POL_GUARD_CLAMP:
        return "clamp";
    }
    return "?";
}
