/*
 * Test helpers for scaling policies (tests/check_pol_*.c): a policy built
 * from its entry with default parameters plus key/value overrides (parsed
 * by sim_param_parse, so they are checked like YAML), and a snapshot of N
 * ready and M pending replicas with given per-replica metrics, its
 * aggregates recomputed from the replicas. Failures abort the test through
 * Check. Functions are static inline so that a test may use any subset.
 */
#ifndef POL_FIXTURE_H
#define POL_FIXTURE_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/policy/policy.h"
#include "base/param.h"
#include "base/xalloc.h"

#define POL_FIX_MAX_REPLICAS 256

struct pol_fix {
    const struct pol_entry *e;
    void *params; /* e->params_size bytes */
    void *state;
    struct pol_snapshot s;
    struct pol_replica reps[POL_FIX_MAX_REPLICAS];
    struct pol_pool pool;
};

/* Fills *block (e->params_size bytes, zeroed first) from e's defaults and
 * then from kv, a NULL-terminated list of "key", "value" pairs. */
static inline void pol_fix_params(const struct pol_entry *e, void *block,
                                  const char *const *kv)
{
    char err[SIM_PARAM_ERRLEN];

    memset(block, 0, e->params_size);
    for (const struct sim_param *p = e->params; p && p->key; p++)
        ck_assert_msg(sim_param_default(p, block, err, sizeof(err)) == 0,
                      "%s.%s default: %s", e->name, p->key, err);
    for (int i = 0; kv != NULL && kv[i] != NULL; i += 2) {
        const struct sim_param *p = sim_param_find(e->params, kv[i]);
        ck_assert_msg(p != NULL, "%s: no key %s", e->name, kv[i]);
        ck_assert_msg(kv[i + 1] != NULL, "%s: no value", kv[i]);
        ck_assert_msg(sim_param_parse(p, kv[i + 1], block, err, sizeof(err)) ==
                          0,
                      "%s.%s: %s", e->name, kv[i], err);
    }
}

/* Frees the strings a parameter block owns (SIM_PT_STRING fields). */
static inline void pol_fix_params_fini(const struct pol_entry *e, void *block)
{
    for (const struct sim_param *p = e->params; p && p->key; p++)
        if (p->type == SIM_PT_STRING) {
            char **f = (char **)(void *)((char *)block + p->offset);
            free(*f);
            *f = NULL;
        }
}

/* Recomputes the snapshot's sizes and aggregates from f->reps[0..n). */
static inline void pol_fix_sync(struct pol_fix *f, int n)
{
    struct pol_snapshot *s = &f->s;
    double kv = 0;

    s->nreplicas = n;
    s->ready = s->pending = s->draining = 0;
    s->num_running = s->num_waiting = 0;
    for (int i = 0; i < n; i++) {
        const struct pol_replica *r = &f->reps[i];
        if (r->state == POL_RS_READY) {
            s->ready++;
            if (!isnan(r->num_running))
                s->num_running += r->num_running;
            if (!isnan(r->num_waiting))
                s->num_waiting += r->num_waiting;
            if (!isnan(r->kv_usage))
                kv += r->kv_usage;
        } else if (r->state == POL_RS_PENDING) {
            s->pending++;
        } else {
            s->draining++;
        }
    }
    s->kv_usage_mean = s->ready > 0 ? kv / s->ready : NAN;
    f->pool.ready = s->ready;
    f->pool.pending = s->pending;
    f->pool.draining = s->draining;
}

/* Sets the snapshot at now_s to n_ready ready replicas, replica i with
 * running[i] running and waiting[i] waiting requests (waiting may be NULL:
 * zeros), then n_pending pending replicas. Other metrics: kv_usage 0,
 * quantiles and rates NAN. */
static inline void pol_fix_set_each(struct pol_fix *f, double now_s,
                                    int n_ready, int n_pending,
                                    const double *running,
                                    const double *waiting)
{
    ck_assert_int_le(n_ready + n_pending, POL_FIX_MAX_REPLICAS);
    for (int i = 0; i < n_ready + n_pending; i++) {
        struct pol_replica *r = &f->reps[i];
        int ready = i < n_ready;
        memset(r, 0, sizeof(*r));
        r->pool = 0;
        r->state = ready ? POL_RS_READY : POL_RS_PENDING;
        r->age_s = ready ? 3600 : 0;
        r->num_running = ready ? running[i] : NAN;
        r->num_waiting = ready ? (waiting ? waiting[i] : 0) : NAN;
        r->kv_usage = ready ? 0 : NAN;
        r->kv_capacity_tokens = 1e6;
        r->ttft_p50_s = r->ttft_p99_s = NAN;
        r->itl_p50_s = r->itl_p99_s = NAN;
        r->prompt_tokens_per_s = r->output_tokens_per_s = NAN;
        r->requests_per_s = NAN;
    }
    f->s.now_s = now_s;
    pol_fix_sync(f, n_ready + n_pending);
}

/* As pol_fix_set_each, every ready replica running `running` requests and
 * with `waiting` waiting. */
static inline void pol_fix_set(struct pol_fix *f, double now_s, int n_ready,
                               int n_pending, double running, double waiting)
{
    double run[POL_FIX_MAX_REPLICAS], wait[POL_FIX_MAX_REPLICAS];

    for (int i = 0; i < POL_FIX_MAX_REPLICAS; i++) {
        run[i] = running;
        wait[i] = waiting;
    }
    pol_fix_set_each(f, now_s, n_ready, n_pending, run, wait);
}

/* Creates the policy of entry e with its defaults plus kv (see
 * pol_fix_params) and a snapshot of one ready idle replica at time 0,
 * interval 15 s, window 15 s, replicas in [1, 1000], one pool of 1000.
 * Free with pol_fix_free(). */
static inline struct pol_fix *pol_fix_new(const struct pol_entry *e,
                                          const char *const *kv)
{
    struct pol_fix *f = xcalloc(1, sizeof(*f));

    ck_assert_int_eq(e->ops->version, POL_API_VERSION);
    f->e = e;
    f->params = xcalloc(1, e->params_size ? e->params_size : 1);
    pol_fix_params(e, f->params, kv);
    f->state = e->ops->create(f->params);
    ck_assert_ptr_nonnull(f->state);

    f->pool.name = "test";
    f->pool.capacity_replicas = 1000;
    f->pool.price_usd_per_replica_hour = 2.0;
    f->pool.provision_s_mean = 120;
    f->s.api_version = POL_API_VERSION;
    f->s.interval_s = 15;
    f->s.window_s = 15;
    f->s.metrics_valid = 1;
    f->s.min_replicas = 1;
    f->s.max_replicas = 1000;
    f->s.gpus_per_replica = 1;
    f->s.target_ttft_s = NAN;
    f->s.target_itl_s = NAN;
    f->s.arrival_rate_per_s = NAN;
    f->s.mean_prompt_tokens = NAN;
    f->s.mean_output_tokens = NAN;
    f->s.output_tokens_per_s = NAN;
    f->s.ttft_p50_s = f->s.ttft_p99_s = NAN;
    f->s.itl_p50_s = f->s.itl_p99_s = NAN;
    f->s.replicas = f->reps;
    f->s.pools = &f->pool;
    f->s.npools = 1;
    pol_fix_set(f, 0, 1, 0, 0, 0);
    return f;
}

/* Destroys the policy and frees f; NULL is a no-op. */
static inline void pol_fix_free(struct pol_fix *f)
{
    if (f == NULL)
        return;
    f->e->ops->destroy(f->state);
    pol_fix_params_fini(f->e, f->params);
    free(f->params);
    free(f);
}

/* Calls decide() on the current snapshot with out preset as the interface
 * says; stores the return code in *rc (may be NULL) and returns desired. */
static inline int pol_fix_decide(struct pol_fix *f, int *rc)
{
    struct pol_decision d = {f->s.ready + f->s.pending, 0, POL_DRAIN_DEFAULT};
    int r = f->e->ops->decide(f->state, &f->s, &d);

    if (rc != NULL)
        *rc = r;
    return d.desired;
}

#endif /* POL_FIXTURE_H */
