/*
 * Routing of arriving requests across LLM replicas (cluster.routing,
 * docs/routing.md). The candidates are the replicas that are serving and
 * whose KV cache can hold the request at its peak, in slot order; each is
 * described by its gauges (outstanding = waiting + running, KV usage =
 * blocks used / blocks) and, for prefix-affinity only, the tokens of the
 * request's prompt it holds in its prefix cache. The rules:
 *
 * - least-outstanding: fewest outstanding requests, ties to the lowest
 *   slot. This is the join-shortest-queue rule the cluster always used
 *   (waiting + admitted), so it is the default and leaves every earlier
 *   result unchanged; Vidur calls it `lor` (docs/sources.md §5.3). In a mixed
 *   cluster (pools[].deploy) the count is weighed by the replica's pool
 *   speed: fewest (outstanding + 1) / speed, as a heterogeneity-aware
 *   router weighs its backends; speeds are all 1 otherwise.
 * - least-kv: lowest KV usage, ties by outstanding, then slot.
 * - prefix-affinity: among the candidates whose outstanding requests exceed
 *   the least loaded candidate's by at most cluster.routing_max_imbalance,
 *   the one holding the longest cached prefix, ties by outstanding, then
 *   slot. With no prefix cached anywhere it is least-outstanding. The
 *   load bound is our rule, in the spirit of the cache-aware routers of
 *   SGLang and llm-d (which also fall back to load balancing when replicas
 *   drift apart); their thresholds are not in docs/sources.md, so the default
 * (8 requests) is an assumption.
 * - random: uniform over the candidates, from the stream "routing" of the
 *   run's seed, so it perturbs no other stream (docs/sources.md §5.3: Vidur's
 *   `random`).
 * - round-robin: the first candidate at or after the slot following the
 *   last pick, wrapping around (Vidur's default `round_robin`, docs/sources.md
 *   §5.3). Over a fixed set of n candidates every n picks visit each once.
 *
 * Cost per arrival: O(replicas), plus O(prompt blocks) per replica for
 * prefix-affinity (cl__llm_prefix_cached_tokens). least-outstanding, the
 * default, reads only the outstanding counts, in one pass without the
 * candidate array (the same comparisons in the same order, so the same
 * choice as cl__route_choose()); in a cluster that is not mixed, a pass of
 * integer comparisons (cl__llm_least_outstanding()). Deterministic: no
 * hashing of pointers, ties always to the lowest slot.
 */
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "models/cluster/cluster-int.h"
#include "base/xalloc.h"

struct cl_router {
    struct cl_route_cand *cands; /* scratch, cap entries */
    int cap;
    int rr_next; /* round-robin: first slot to try next */
};

/* Orders a before b when it has fewer outstanding requests for its speed:
 * (outstanding + 1) / speed, the queue the new request would join over how
 * fast the replica drains it, so that under equal outstanding the faster
 * replica wins (the slot order of the array breaks the remaining ties).
 * Cross-multiplied, so that with equal speeds (1 in a cluster that is not
 * mixed) the order is exactly the outstanding counts'. */
static int fewer(const struct cl_route_cand *a, const struct cl_route_cand *b)
{
    double sa = a->speed > 0 ? a->speed : 1.0;
    double sb = b->speed > 0 ? b->speed : 1.0;

    if (sa == sb)
        return a->outstanding < b->outstanding;
    return (double)(a->outstanding + 1) * sb <
           (double)(b->outstanding + 1) * sa;
}

int cl__route_choose(int routing, const struct cl_route_cand *c, int n,
                     int max_imbalance, int *rr_next, gsl_rng *rng)
{
    int best = 0;
    int64_t least;

    if (n <= 0)
        return -1;
    switch (routing) {
    case CL_ROUTE_ROUND_ROBIN:
        best = 0; /* wrap around when no slot follows the last pick */
        for (int i = 0; i < n; i++) {
            if (c[i].slot >= *rr_next) {
                best = i;
                break;
            }
        }
        *rr_next = c[best].slot + 1;
        return best;
    case CL_ROUTE_RANDOM:
        return (int)gsl_rng_uniform_int(rng, (unsigned long)n);
    case CL_ROUTE_LEAST_KV:
        for (int i = 1; i < n; i++)
            if (c[i].kv_usage < c[best].kv_usage ||
                (c[i].kv_usage == c[best].kv_usage && fewer(&c[i], &c[best])))
                best = i;
        return best;
    case CL_ROUTE_PREFIX_AFFINITY:
        least = c[0].outstanding;
        for (int i = 1; i < n; i++)
            if (c[i].outstanding < least)
                least = c[i].outstanding;
        best = -1;
        for (int i = 0; i < n; i++) {
            if (c[i].outstanding - least > (int64_t)max_imbalance)
                continue;
            if (best < 0 || c[i].cached_tokens > c[best].cached_tokens ||
                (c[i].cached_tokens == c[best].cached_tokens &&
                 fewer(&c[i], &c[best])))
                best = i;
        }
        return best; /* the least loaded always passes the bound */
    default:         /* CL_ROUTE_LEAST_OUTSTANDING */
        for (int i = 1; i < n; i++)
            if (fewer(&c[i], &c[best]))
                best = i;
        return best;
    }
}

struct cl_replica *cl__route(struct cl_world *w, const struct cl_req *r)
{
    int routing = w->scn->cluster.routing;
    int64_t need = cl__llm_kv_peak_tokens(r);
    struct cl_router *rt = w->router;
    int n = 0, k;

    if (routing == CL_ROUTE_LEAST_OUTSTANDING && !w->mixed)
        return cl__llm_least_outstanding(w, need);
    if (routing == CL_ROUTE_LEAST_OUTSTANDING) {
        struct cl_route_cand best = {0}, c = {0};
        struct cl_replica *pick = NULL;

        for (int s = 0; s < w->nreps; s++) {
            struct cl_replica *rep = w->reps[s];

            if (rep->state != CL_R_SERVING ||
                need > cl__rep_layout(w, rep)->kv_cap_tokens)
                continue;
            c.outstanding = cl__llm_outstanding(rep);
            c.speed = w->pools[rep->pool].speed;
            if (pick == NULL || fewer(&c, &best)) {
                best = c;
                pick = rep;
            }
        }
        return pick;
    }
    if (rt == NULL)
        rt = w->router = xcalloc(1, sizeof(*rt));
    if (rt->cap < w->nreps) {
        rt->cap = w->nreps;
        rt->cands = xrealloc(rt->cands, (size_t)rt->cap, sizeof(*rt->cands));
    }
    for (int s = 0; s < w->nreps; s++) {
        struct cl_replica *rep = w->reps[s];
        struct cl_route_cand *c;
        struct cl_gauges g;

        if (rep->state != CL_R_SERVING ||
            need > cl__rep_layout(w, rep)->kv_cap_tokens)
            continue;
        cl__llm_gauges(w, rep, &g);
        c = &rt->cands[n++];
        c->slot = s;
        c->outstanding = (int64_t)g.running + (int64_t)g.waiting;
        c->kv_usage = g.kv_usage;
        c->speed = w->pools[rep->pool].speed;
        c->cached_tokens = routing == CL_ROUTE_PREFIX_AFFINITY
                               ? cl__llm_prefix_cached_tokens(rep, r)
                               : 0;
    }
    if (n == 0)
        return NULL;
    k = cl__route_choose(routing, rt->cands, n,
                         w->scn->cluster.routing_max_imbalance, &rt->rr_next,
                         routing == CL_ROUTE_RANDOM
                             ? sim_loop_stream(w->loop, "routing")
                             : NULL);
    return w->reps[rt->cands[k].slot];
}

void cl__route_fini(struct cl_world *w)
{
    if (w->router == NULL)
        return;
    free(w->router->cands);
    free(w->router);
    w->router = NULL;
}
