/* One evaluation of dsec-scaler; see step.h. */
#include "scaler/step.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_metrics_error(void *arg, const char *msg)
{
    struct scl_loop *x = arg;

    scl_log(&x->log, "warn", "metrics request failed", "error", msg,
            (const char *)NULL);
    pthread_mutex_lock(&x->stats.mu);
    x->stats.errors[SCL_ERR_METRICS]++;
    pthread_mutex_unlock(&x->stats.mu);
}

static void fmt_num(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "NaN");
    else
        snprintf(buf, n, "%.6g", v);
}

/* Largest plausible activation value (requests waiting with no replica),
 * as for the engines' request gauges. */
#define ACTIVATION_MAX 1e6

/* Scale to zero (min_replicas 0; docs/scaler.md "Scale to zero"), after
 * the decision d on s. From 0 replicas with an activation query, its value
 * alone decides: > 0 asks for one replica, 0 stays at 0 without a hold,
 * an impossible value or a failed query is a hold (v). From 1 or more,
 * an answer below 1 stands only when the replicas have been idle (no
 * running, no waiting request) for scale_to_zero_grace_s. Returns the
 * reason when it set d ("activation", "scale_to_zero_grace"), else NULL;
 * *why is then the guard's reason to keep. */
static const char *scale_zero(struct scl_loop *x, int spec, double now_s,
                              const struct pol_snapshot *s, struct scl_view *v,
                              struct pol_decision *d,
                              enum pol_guard_reason *why)
{
    const struct scl_config *c = x->c;
    int idle;

    if (spec == 0) {
        double a;
        char err[256];

        x->idle_seen = 0;
        if (c->activation_query == NULL)
            return NULL; /* nothing can wake it: as without scale to zero */
        d->desired = 0;
        *why = POL_GUARD_NONE;
        v->valid = 0;
        if (scl_source_activation(x->src, &a, err, sizeof(err)) != 0) {
            on_metrics_error(x, err);
            v->hold = SCL_HOLD_SOURCE_ERROR;
            snprintf(v->msg, sizeof(v->msg), "activation query failed");
        } else if (!isfinite(a) || a < 0 || a > ACTIVATION_MAX) {
            v->hold = SCL_HOLD_INVALID;
            snprintf(v->msg, sizeof(v->msg), "impossible activation value %g",
                     a);
        } else {
            v->valid = 1;
            v->hold = SCL_HOLD_NONE;
            v->msg[0] = '\0';
            if (a > 0) {
                d->desired = 1;
                if (d->desired < c->min_replicas)
                    d->desired = c->min_replicas;
                if (d->desired > c->max_replicas)
                    d->desired = c->max_replicas;
            }
        }
        return "activation";
    }
    idle = v->valid && s->num_running == 0 && s->num_waiting == 0;
    if (!idle) {
        x->idle_seen = 0;
    } else if (!x->idle_seen) {
        x->idle_seen = 1;
        x->idle_since_s = now_s;
    }
    if (d->desired < 1 &&
        (!idle || now_s - x->idle_since_s < c->scale_to_zero_grace_s)) {
        d->desired = 1;
        return "scale_to_zero_grace";
    }
    return NULL;
}

int scl_evaluate(struct scl_loop *x, double now_s, double wall_s)
{
    const struct scl_config *c = x->c;
    struct pol_snapshot s;
    struct pol_decision d;
    struct scl_view v;
    enum pol_guard_reason why;
    int spec = -1, status = -1, cur, rc = 0, prc = 0, action, hold = 0, arc;
    char err[512];
    char b_ready[16], b_pend[16], b_cur[16], b_des[16], b_pol[16];
    char b_arr[32], b_itl[32], b_itlm[32], b_ttft[32], b_run[32], b_wait[32];
    char b_kv[32];
    const char *zr = NULL;

    scl_source_collect(x->src, now_s, wall_s, on_metrics_error, x);
    arc = scl_actuator_read(x->act, &spec, &status, err, sizeof(err));
    if (arc != 0) {
        /* No size, or one that cannot be true: never act on it. */
        scl_log(&x->log, "error",
                arc == SIM_EINVAL ? "holding: the current size is unusable"
                                  : "holding: cannot read the current size",
                "reason",
                arc == SIM_EINVAL ? "actuator_invalid" : "actuator_unreachable",
                "error", err, (const char *)NULL);
        pthread_mutex_lock(&x->stats.mu);
        x->stats.errors[SCL_ERR_ACTUATOR]++;
        pthread_mutex_unlock(&x->stats.mu);
        hold =
            arc == SIM_EINVAL ? SCL_HOLDX_ACTUATOR_INVALID : SCL_HOLDX_ACTUATOR;
        spec = -1;
    }
    scl_source_snapshot(x->src, spec, &s, &v);
    why = scl_decide(&x->dec, &s, &d, &prc);
    cur = s.ready + s.pending;
    if (hold != 0)
        x->idle_seen = 0;
    else if (c->min_replicas == 0)
        zr = scale_zero(x, spec, now_s, &s, &v, &d, &why);
    if (hold != 0)
        d.desired = cur; /* the size is unknown: never act blind */
    action = d.desired > cur   ? SCL_ACTION_UP
             : d.desired < cur ? SCL_ACTION_DOWN
                               : SCL_ACTION_HOLD;
    if (hold == 0 && !v.valid)
        hold = v.hold;
    else if (hold == 0 && why == POL_GUARD_POLICY_HOLD)
        hold = SCL_HOLDX_POLICY;
    else if (hold == 0 && why == POL_GUARD_COOLDOWN)
        hold = SCL_HOLDX_COOLDOWN;

    snprintf(b_ready, sizeof(b_ready), "%d", s.ready);
    snprintf(b_pend, sizeof(b_pend), "%d", s.pending);
    snprintf(b_cur, sizeof(b_cur), "%d", spec);
    snprintf(b_des, sizeof(b_des), "%d", d.desired);
    snprintf(b_pol, sizeof(b_pol), "%d", prc);
    fmt_num(b_arr, sizeof(b_arr), s.arrival_rate_per_s);
    fmt_num(b_itl, sizeof(b_itl), s.itl_p99_s);
    fmt_num(b_itlm, sizeof(b_itlm), s.itl_mean_s);
    fmt_num(b_ttft, sizeof(b_ttft), s.ttft_p99_s);
    fmt_num(b_run, sizeof(b_run), s.num_running);
    fmt_num(b_wait, sizeof(b_wait), s.num_waiting);
    fmt_num(b_kv, sizeof(b_kv), s.kv_usage_mean);
    if (zr != NULL && (action != SCL_ACTION_HOLD || v.valid == 0))
        scl_log(&x->log, "info", "scale to zero", "reason", zr, "desired",
                b_des, "current", b_cur, (const char *)NULL);
    if (!v.valid) {
        char msg[300];
        snprintf(msg, sizeof(msg), "holding: %s", v.msg);
        scl_log(&x->log, "warn", msg, "reason", scl_hold_name(v.hold), "ready",
                b_ready, "current", b_cur, (const char *)NULL);
    }
    scl_log(&x->log, "info", "decision", "policy", c->policy->name, "action",
            action == SCL_ACTION_UP     ? "up"
            : action == SCL_ACTION_DOWN ? "down"
                                        : "hold",
            "desired", b_des, "current", b_cur, "ready", b_ready, "pending",
            b_pend, "guard", pol_guard_reason_name(why), "valid",
            v.valid ? "1" : "0", "arrival_rate", b_arr, "itl_p99_s", b_itl,
            "itl_mean_s", b_itlm, "ttft_p99_s", b_ttft, "num_running", b_run,
            "num_waiting", b_wait, "kv_usage", b_kv, (const char *)NULL);

    if (action != SCL_ACTION_HOLD) {
        struct scl_act_result r;
        if (x->dry_run || c->actuator == SCL_ACT_LOG) {
            scl_log(&x->log, "info", "dry run: not scaling", "actuator",
                    scl_actuator_name(x->act), "replicas", b_des,
                    (const char *)NULL);
        }
        rc = scl_actuator_apply(x->act, d.desired, &r, err, sizeof(err));
        pthread_mutex_lock(&x->stats.mu);
        x->stats.errors[SCL_ERR_ACTUATOR] += (unsigned long)r.errors;
        pthread_mutex_unlock(&x->stats.mu);
        if (rc != 0) {
            char att[16];
            snprintf(att, sizeof(att), "%d", r.attempts);
            scl_log(&x->log, "error", "scaling failed", "replicas", b_des,
                    "attempts", att, "error", err, (const char *)NULL);
        } else if (r.patched) {
            scl_log(&x->log, "info", "scaled", "actuator",
                    scl_actuator_name(x->act), "replicas", b_des,
                    (const char *)NULL);
        }
    }

    pthread_mutex_lock(&x->stats.mu);
    x->stats.desired = d.desired;
    x->stats.current = spec;
    x->stats.ready = s.ready;
    x->stats.pending = s.pending;
    x->stats.decisions[action]++;
    if (hold != 0)
        x->stats.holds[hold]++;
    if (rc == 0 && arc == 0)
        x->stats.last_success_s = wall_s;
    x->stats.last_eval_mono_s = mono_s();
    x->stats.metrics_valid = v.valid;
    x->stats.metrics_age_s = v.age_s;
    x->stats.arrival_rate_per_s = s.arrival_rate_per_s;
    x->stats.num_running = s.num_running;
    x->stats.num_waiting = s.num_waiting;
    x->stats.kv_usage_mean = s.kv_usage_mean;
    x->stats.ttft_p99_s = s.ttft_p99_s;
    x->stats.itl_p99_s = s.itl_p99_s;
    x->stats.itl_mean_s = s.itl_mean_s;
    x->stats.output_tokens_per_s = s.output_tokens_per_s;
    pthread_mutex_unlock(&x->stats.mu);
    if (rc == 0 && (arc != 0 || v.hold == SCL_HOLD_SOURCE_ERROR))
        rc = SCL_EVAL_UNREACHED;
    return rc;
}
