/*
 * queue_step: an example scaling-policy plug-in for dsec and dsec-scaler
 * (docs/policies.md). It adds `step` replicas when the requests waiting per
 * serving replica exceed up_waiting, removes one when nothing waits and
 * the mean KV-cache usage is below down_kv, and holds otherwise. dsec's
 * guard rails (cooldowns, step limits, [min, max]) apply after it.
 *
 * It uses only dsec's public headers and no dsec function, so it builds
 * against an installed dsec with
 *   cc -shared -fPIC $(pkg-config --cflags dsec) queue_step.c \
 *      -o libqueue_step.so
 * (contrib/policy-plugin/Makefile) and is named in a scenario or in
 * dsec-scaler's config as
 *   policy: {plugin: ./libqueue_step.so, params: {up_waiting: 4}}
 */
#include <stddef.h>
#include <stdlib.h>

#include <dsec/policy.h>

struct queue_step_params {
    double up_waiting; /* waiting requests per serving replica */
    double down_kv;    /* mean KV-cache usage, 0..1 */
    int step;          /* replicas added at once */
};

static const struct sim_param rows[] = {
    {"up_waiting", SIM_PT_DOUBLE, SIM_U_NONE, 0, 1e6, SIM_PF_MIN_EXCL, "4",
     "scale up when more requests than this wait per serving replica",
     offsetof(struct queue_step_params, up_waiting), NULL, NULL},
    {"down_kv", SIM_PT_DOUBLE, SIM_U_FRACTION, 0, 1, 0, "0.3",
     "scale down when nothing waits and mean KV-cache usage is below this",
     offsetof(struct queue_step_params, down_kv), NULL, NULL},
    {"step", SIM_PT_INT, SIM_U_NONE, 1, 1000, 0, "1",
     "replicas added by one scale-up", offsetof(struct queue_step_params, step),
     NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static void *create(const void *params)
{
    struct queue_step_params *p = malloc(sizeof(*p));

    if (p != NULL)
        *p = *(const struct queue_step_params *)params;
    return p;
}

static void destroy(void *state)
{
    free(state);
}

static int decide(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out)
{
    const struct queue_step_params *p = state;
    int current = s->ready + s->pending;
    double per = s->num_waiting / (s->ready > 0 ? s->ready : 1);

    if (per > p->up_waiting)
        out->desired = current + p->step;
    else if (s->num_waiting == 0 && s->kv_usage_mean < p->down_kv)
        out->desired = current - 1;
    else
        out->desired = current;
    return 0;
}

static const struct pol_ops ops = {
    .version = POL_API_VERSION,
    .create = create,
    .destroy = destroy,
    .decide = decide,
};

static const struct pol_entry entry = {
    .name = "queue-step",
    .summary = "add step replicas when more than up_waiting requests wait "
               "per replica; remove one when none waits and KV usage is "
               "below down_kv (example plug-in)",
    .params = rows,
    .params_size = sizeof(struct queue_step_params),
    .ops = &ops,
};

DSEC_POLICY_PLUGIN(entry);
