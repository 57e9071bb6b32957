/*
 * The LLM engine's sizing (the plan and pool_init ops of llm.c's entry):
 * resolves the model (model, model.hf_config or deploy.model_path) and the
 * GPU kinds against the catalogs, picks the tensor-parallel degree when
 * deploy.tp is unset (the smallest cluster's, or the smallest power of two
 * on one node that fits), checks that a replica fits every pool's GPU kind,
 * and builds each pool's replica model: its step-time constants
 * (perf_replica, docs/step-time.md) and KV capacity; under
 * deploy.disaggregation one per group, each from its own layout
 * (cl_pd_layout_resolve()). Nothing here runs during the simulation.
 */
#include <math.h>
#include <stdlib.h>

#include "models/arch/arch.h"
#include "models/cluster/cluster-int.h"
#include "models/gpu/gpu.h"
#include "base/errors.h"

/* The model's architecture: model.hf_config's (read by the loader), the
 * catalog's entry for model, or the one deploy.model_path names; NULL with
 * a diagnostic when none is found. */
static const struct arch_spec *resolve_arch(const struct cl_scenario *s,
                                            struct sim_diag *d)
{
    const struct arch_spec *a;
    char *names;

    if (s->model_arch != NULL)
        return s->model_arch; /* model.hf_config, read by the loader */
    if (s->model != NULL) {
        a = arch_find(s->model);
        if (a != NULL)
            return a;
        names = arch_names();
        sim_diag_error(d, s->file, s->pos.model.line, s->pos.model.col,
                       "model: unknown model '%s'; valid: %s", s->model, names);
        free(names);
        return NULL;
    }
    if (s->deploy.model_path == NULL) {
        sim_diag_error(d, s->file, 0, 0,
                       "model: an llm server needs 'model' or "
                       "'deploy.model_path'");
        return NULL;
    }
    a = arch_find_path(s->deploy.model_path);
    if (a != NULL)
        return a;
    names = arch_names();
    sim_diag_error(d, s->file, s->pos.deploy_model_path.line,
                   s->pos.deploy_model_path.col,
                   "deploy.model_path: no catalog model matches '%s'; set "
                   "'model' to one of: %s",
                   s->deploy.model_path, names);
    free(names);
    return NULL;
}

/* The replica's constants on g: the calibration profile
 * (hardware.calibration) or the built-in defaults for g, then the server
 * keys that are set (not NAN / -1): efficiency_compute replaces the GEMM
 * asymptote and the attention compute fraction, efficiency_memory both HBM
 * fractions, iteration_overhead the fixed host time, and
 * max_cudagraph_capture_size the CUDA-graph limit; custom_all_reduce
 * picks vLLM's custom TP all-reduce or NCCL; the layout's micro_batches
 * and, with ep > 1, its redundant_experts and expert_imbalance go to the
 * layout (docs/step-time.md): the scenario's top-level ones here, a P/D
 * group's through cl__replica_perf_layout(). */
int cl_replica_perf_init(const struct cl_scenario *s, const struct arch_spec *a,
                         const struct gpu_spec *g, int tp, int pp, int ep,
                         int weight_dtype, struct perf_replica *r, char *why,
                         size_t whylen)
{
    struct cl_pd_layout o = {.tp = tp,
                             .ep = ep,
                             .redundant_experts = s->deploy.redundant_experts,
                             .expert_imbalance = s->deploy.expert_imbalance,
                             .micro_batches = s->server.micro_batches,
                             .max_num_seqs = s->server.max_num_seqs,
                             .max_num_batched_tokens =
                                 s->server.max_num_batched_tokens};

    return cl__replica_perf_layout(s, a, g, &o, pp, weight_dtype, r, why,
                                   whylen);
}

int cl__replica_perf_layout(const struct cl_scenario *s,
                            const struct arch_spec *a, const struct gpu_spec *g,
                            const struct cl_pd_layout *o, int pp,
                            int weight_dtype, struct perf_replica *r, char *why,
                            size_t whylen)
{
    const struct cl_server *sv = &s->server;
    struct perf_layout l = {
        .tp = o->tp,
        .pp = pp < 1 ? 1 : pp,
        .ep = o->ep < 1 ? 1 : o->ep,
        .gpus_per_node = s->hardware.gpus_per_node,
        .nics_per_node = 0,
        .micro_batches = o->micro_batches,
        .spec_method = sv->speculative.method,
        .spec_tokens = sv->speculative.method != PERF_SPEC_NONE
                           ? sv->speculative.tokens
                           : 0,
        .spec_acceptance = sv->speculative.method != PERF_SPEC_NONE
                               ? sv->speculative.acceptance
                               : 0.0};
    struct perf_gpu_calib c;

    perf_calib_resolve(s->calib, g, &c);
    if (!isnan(sv->efficiency_compute)) {
        c.gemm_eff_max = sv->efficiency_compute;
        c.attn_eff_compute = sv->efficiency_compute;
    }
    if (!isnan(sv->efficiency_memory)) {
        c.gemm_eff_memory = sv->efficiency_memory;
        c.attn_eff_memory = sv->efficiency_memory;
    }
    if (sv->iteration_overhead_ns >= 0)
        c.iteration_overhead_ns = (double)sv->iteration_overhead_ns;
    int rc;

    /* The placement keys apply to expert-parallel layouts only, so that a
     * search over layouts (plan, strategies) may try ep 1 too. */
    if (l.ep > 1) {
        l.redundant_experts = o->redundant_experts;
        l.expert_imbalance =
            isnan(o->expert_imbalance) ? 0.0 : o->expert_imbalance;
    }

    rc = perf_replica_init(r, a, g, &l, weight_dtype, s->deploy.kv_dtype,
                           sv->gpu_memory_utilization, &c, why, whylen);
    /* CUDA graphs: vLLM's capture limit unless the server sets one. */
    if (rc == 0) {
        r->cudagraph_max_tokens =
            sv->max_cudagraph_capture_size >= 0
                ? sv->max_cudagraph_capture_size
                : perf_default_cudagraph_capture_size(
                      o->max_num_seqs > 0 ? o->max_num_seqs
                                          : perf_default_max_num_seqs(g));
        r->custom_allreduce = sv->custom_all_reduce;
    }
    return rc;
}

/* The scenario's own layout (deploy.pp, deploy.ep, deploy.weight_dtype)
 * at tensor-parallel degree tp. */
static int init_perf(const struct cl_scenario *s, const struct arch_spec *a,
                     const struct gpu_spec *g, int tp, struct perf_replica *p,
                     char *why, size_t whylen)
{
    return cl_replica_perf_init(s, a, g, tp, s->deploy.pp, s->deploy.ep,
                                s->deploy.weight_dtype, p, why, whylen);
}

/* The GPU kind name (at key, position at), or NULL with a diagnostic
 * listing the valid kinds. */
static const struct gpu_spec *find_gpu(const struct cl_scenario *s,
                                       const char *name, struct cl_pos at,
                                       const char *key, struct sim_diag *d)
{
    const struct gpu_spec *g = cl_gpu_find(s, name);
    if (g == NULL) {
        char *names = cl_gpu_names(s);
        sim_diag_error(d, s->file, at.line, at.col,
                       "%s: unknown gpu '%s'; valid: %s", key, name, names);
        free(names);
    }
    return g;
}

int64_t cl__llm_max_model_len(const struct cl_scenario *s,
                              const struct arch_spec *a)
{
    if (s->server.max_model_len > 0)
        return s->server.max_model_len;
    return a != NULL && a->max_positions > 0 ? a->max_positions : 0;
}

/* vLLM refuses to start when one request of max_model_len tokens cannot
 * fit the KV cache ("the model's max seq len is larger than the maximum
 * number of tokens that can be stored in KV cache", vllm/v1/core
 * kv_cache_utils.py); so does dsec, for the replica perf on g. */
static int check_max_model_len(const struct cl_scenario *s,
                               const struct arch_spec *a,
                               const struct gpu_spec *g,
                               const struct perf_replica *perf,
                               const char *group, struct sim_diag *d)
{
    int64_t len = cl__llm_max_model_len(s, a);
    int64_t b = s->server.block_tokens > 0 ? s->server.block_tokens : 16;
    int64_t cap = perf_kv_capacity_tokens(perf) / b * b;
    struct cl_pos at = s->pos.server_max_model_len.line
                           ? s->pos.server_max_model_len
                       : s->pos.model_hf_config.line ? s->pos.model_hf_config
                       : s->pos.model.line           ? s->pos.model
                                                     : s->pos.deploy_model_path;

    if (len <= cap)
        return 0;
    sim_diag_error(d, s->file, at.line, at.col,
                   "server.max_model_len: %lld tokens%s do not fit the KV "
                   "cache of one %s%sreplica on %s, %lld tokens; vLLM refuses "
                   "to start (\"the model's max seq len is larger than the "
                   "maximum number of tokens that can be stored in KV "
                   "cache\"): set server.max_model_len to at most %lld, or "
                   "give the replica more memory",
                   (long long)len,
                   s->server.max_model_len > 0
                       ? ""
                       : " (the model's max_position_embeddings)",
                   group != NULL ? group : "", group != NULL ? " " : "",
                   g->name, (long long)cap, (long long)cap);
    return SIM_EINFEASIBLE;
}

/* The smallest power-of-two tensor-parallel degree on one node at which
 * layout o (its tp ignored) fits g; gpus_per_node when none does. */
static int derive_tp(const struct cl_scenario *s, const struct arch_spec *a,
                     const struct gpu_spec *g, struct cl_pd_layout o)
{
    struct perf_replica perf;

    for (o.tp = 1; o.tp <= s->hardware.gpus_per_node; o.tp *= 2)
        if (cl__replica_perf_layout(s, a, g, &o, s->deploy.pp,
                                    s->deploy.weight_dtype, &perf, NULL,
                                    0) == 0)
            return o.tp;
    return s->hardware.gpus_per_node;
}

int cl_pd_group_perf_init(const struct cl_scenario *s,
                          const struct arch_spec *a, const struct gpu_spec *g,
                          int group, struct perf_replica *r, char *why,
                          size_t whylen)
{
    struct cl_pd_layout l = cl_pd_layout_resolve(s, group);

    if (l.tp < 1)
        l.tp = derive_tp(s, a, g, l);
    return cl__replica_perf_layout(s, a, g, &l, s->deploy.pp,
                                   s->deploy.weight_dtype, r, why, whylen);
}

/* deploy.disaggregation: each group's layout (cl_pd_layout_resolve()) on
 * hardware.gpu, since a static cluster has no pools; a group's unset tp is
 * derived as the scenario's is. A layout that does not fit is reported at
 * its group's key (struct cl_scenario_pos pd_layout), each group once. */
static int plan_pd(const struct cl_scenario *s, const struct arch_spec *a,
                   const struct gpu_spec *g, struct cl_plan *plan,
                   struct sim_diag *d)
{
    const struct cl_disagg *dg = &s->deploy.disaggregation;
    struct perf_replica perf;
    char why[512];
    int rc = 0;

    for (int k = 0; k < CL_PD_GROUPS; k++) {
        struct cl_pd_layout l = cl_pd_layout_resolve(s, k);
        struct cl_plan_group *pg = &plan->groups[k];
        struct cl_pos at = s->pos.pd_layout[k];
        const char *name = cl_pd_group_name(k);

        pg->tp_chosen = l.tp < 1;
        if (l.tp < 1)
            l.tp = derive_tp(s, a, g, l);
        if (cl__replica_perf_layout(s, a, g, &l, s->deploy.pp,
                                    s->deploy.weight_dtype, &perf, why,
                                    sizeof(why)) != 0) {
            sim_diag_error(d, s->file, at.line, at.col,
                           "deploy.disaggregation.%s: %s", name, why);
            rc = SIM_EINFEASIBLE;
            continue;
        }
        if (check_max_model_len(s, a, g, &perf, name, d) != 0) {
            rc = SIM_EINFEASIBLE;
            continue;
        }
        pg->replicas =
            k == CL_PD_PREFILL ? dg->prefill_replicas : dg->decode_replicas;
        pg->gpus_per_replica = perf.gpus;
        pg->tp = l.tp;
        pg->ep = perf.ep;
    }
    if (rc != 0)
        return rc;
    plan->disaggregated = 1;
    plan->tp = plan->groups[CL_PD_PREFILL].tp;
    plan->tp_chosen = 0; /* each group notes its own */
    plan->gpus_per_replica = plan->groups[CL_PD_PREFILL].gpus_per_replica ==
                                     plan->groups[CL_PD_DECODE].gpus_per_replica
                                 ? plan->groups[CL_PD_PREFILL].gpus_per_replica
                                 : 0;
    plan->price_usd_per_gpu_hour = isnan(s->hardware.price_usd_per_gpu_hour)
                                       ? g->price_usd_per_hour
                                       : s->hardware.price_usd_per_gpu_hour;
    return 0;
}

void cl__llm_check_names(const struct cl_scenario *s, struct sim_diag *d)
{
    /* model: {hf_config} and hardware.gpus are resolved only when the
     * rest loaded: their names are not known here. */
    if (s->model_arch == NULL && s->model_src.hf_config == NULL &&
        (s->model != NULL || s->deploy.model_path != NULL))
        (void)resolve_arch(s, d);
    if (s->hardware.ngpus > 0)
        return;
    if (s->hardware.gpu != NULL)
        (void)find_gpu(s, s->hardware.gpu, s->pos.hardware_gpu, "hardware.gpu",
                       d);
    for (int i = 0; i < s->npools; i++)
        if (s->pools[i].gpu != NULL)
            (void)find_gpu(s, s->pools[i].gpu, s->pos.pools, "pools.gpu", d);
}

int cl__llm_plan(const struct cl_scenario *s, struct cl_plan *plan,
                 struct sim_diag *d)
{
    const struct cl_cluster *c = &s->cluster;
    const struct arch_spec *a = resolve_arch(s, d);
    const struct gpu_spec *g =
        find_gpu(s, s->hardware.gpu, s->pos.hardware_gpu, "hardware.gpu", d);
    struct perf_replica perf;
    char why[512];
    int tp = s->deploy.tp, rc;

    if (a == NULL || g == NULL)
        return SIM_EINVAL;
    if (s->server.speculative.method == PERF_SPEC_MTP && a->mtp_layers < 1) {
        sim_diag_error(d, s->file, s->pos.server_spec_method.line,
                       s->pos.server_spec_method.col,
                       "server.speculative.method: mtp needs a model with a "
                       "multi-token-prediction module "
                       "(num_nextn_predict_layers >= 1, as DeepSeek-V3); %s "
                       "has none, use ngram",
                       a->name);
        return SIM_EINFEASIBLE;
    }
    if (s->deploy.disaggregation.enabled)
        return plan_pd(s, a, g, plan, d);
    if (tp < 1 && s->deploy.pp <= 1 && s->deploy.ep <= 1 && c->min_gpus >= 1 &&
        c->min_gpus <= s->hardware.gpus_per_node)
        tp = c->min_gpus; /* the smallest cluster is one replica */
    if (tp < 1) {
        /* The smallest power-of-two degree on one node that fits. */
        for (tp = 1; tp <= s->hardware.gpus_per_node; tp *= 2)
            if (init_perf(s, a, g, tp, &perf, why, sizeof(why)) == 0)
                break;
        if (tp > s->hardware.gpus_per_node)
            tp = s->hardware.gpus_per_node;
    }
    if (!cl_pools_mixed(s) &&
        init_perf(s, a, g, tp, &perf, why, sizeof(why)) != 0) {
        struct cl_pos at = s->pos.deploy_weight_dtype.line
                               ? s->pos.deploy_weight_dtype
                           : s->pos.deploy_tp.line ? s->pos.deploy_tp
                                                   : s->pos.hardware_gpu;
        sim_diag_error(d, s->file, at.line, at.col, "deploy: %s", why);
        return SIM_EINFEASIBLE;
    }
    /* Every pool's GPU kind must hold the replica too, in the pool's own
     * layout where it has one (pools[].deploy), reported at that key. */
    int mixed = cl_pools_mixed(s), ref_gpus = 0;
    for (int i = 0; i < s->npools; i++) {
        const struct cl_pool *cp = &s->pools[i];
        const struct gpu_spec *pg = g;
        struct cl_pd_layout o = cl_pool_layout_resolve(s, i);
        struct cl_pos at = cp->has_deploy ? cp->deploy_pos : s->pos.pools;

        if (cp->gpu == NULL && !mixed)
            continue;
        if (cp->gpu != NULL) {
            pg = find_gpu(s, cp->gpu, s->pos.pools, "pools.gpu", d);
            if (pg == NULL)
                return SIM_EINVAL;
        }
        if (o.tp < 1)
            o.tp = tp;
        if (cl__replica_perf_layout(s, a, pg, &o, o.pp, s->deploy.weight_dtype,
                                    &perf, why, sizeof(why)) != 0) {
            sim_diag_error(d, s->file, at.line, at.col, "pools[%d]%s: %s", i,
                           cp->has_deploy ? ".deploy" : "", why);
            return SIM_EINFEASIBLE;
        }
        if ((rc = check_max_model_len(
                 s, a, pg, &perf, cp->has_deploy ? cp->name : NULL, d)) != 0)
            return rc;
        if (i == 0)
            ref_gpus = perf.gpus;
    }
    if (mixed) {
        /* Each pool was checked in its layout; hardware.gpu's replica in
         * the top-level one serves no pool that was not. */
        plan->tp = tp;
        plan->tp_chosen = s->deploy.tp < 1;
        plan->gpus_per_replica = ref_gpus;
        plan->mixed = 1;
        plan->price_usd_per_gpu_hour = isnan(s->hardware.price_usd_per_gpu_hour)
                                           ? g->price_usd_per_hour
                                           : s->hardware.price_usd_per_gpu_hour;
        return 0;
    }
    /* The hardware.gpu replica again: the loop reused perf. */
    if (init_perf(s, a, g, tp, &perf, why, sizeof(why)) != 0)
        return SIM_EINFEASIBLE;
    if ((rc = check_max_model_len(s, a, g, &perf, NULL, d)) != 0)
        return rc;
    plan->tp = tp;
    plan->tp_chosen = s->deploy.tp < 1;
    plan->gpus_per_replica = perf.gpus; /* tp x data-parallel attention x pp */
    plan->price_usd_per_gpu_hour = isnan(s->hardware.price_usd_per_gpu_hour)
                                       ? g->price_usd_per_hour
                                       : s->hardware.price_usd_per_gpu_hour;
    return 0;
}

/* KV capacity of one replica with perf, in tokens, rounded down to whole
 * blocks of server.block_tokens: a request fits iff its peak tokens are at
 * most this. */
static int64_t kv_cap_tokens(const struct cl_server *sv,
                             const struct perf_replica *perf)
{
    int64_t b = sv->block_tokens > 0 ? sv->block_tokens : 16;
    return perf_kv_capacity_tokens(perf) / b * b;
}

/* Builds lay, the layout o on g. Returns 0 or perf_replica_init()'s
 * code. */
static int layout_init(const struct cl_scenario *s, const struct arch_spec *a,
                       const struct gpu_spec *g, const struct cl_pd_layout *o,
                       struct cl_layout_rt *lay)
{
    char why[512];

    if (a == NULL ||
        cl__replica_perf_layout(s, a, g, o, o->pp >= 1 ? o->pp : s->deploy.pp,
                                s->deploy.weight_dtype, &lay->perf, why,
                                sizeof(why)) != 0)
        return SIM_EINFEASIBLE;
    lay->kv_tokens = (double)perf_kv_capacity_tokens(&lay->perf);
    lay->kv_cap_tokens = kv_cap_tokens(&s->server, &lay->perf);
    lay->max_num_seqs =
        o->max_num_seqs > 0 ? o->max_num_seqs : perf_default_max_num_seqs(g);
    lay->max_num_batched_tokens = o->max_num_batched_tokens > 0
                                      ? o->max_num_batched_tokens
                                      : perf_default_max_num_batched_tokens(g);
    return 0;
}

int cl__llm_pool_init(struct cl_world *w, int i, const struct cl_plan *plan,
                      struct sim_diag *d)
{
    const struct cl_scenario *s = w->scn;
    struct cl_pool_rt *p = &w->pools[i];
    const struct gpu_spec *g = cl_gpu_find(s, p->gpu);
    const struct arch_spec *a = resolve_arch(s, d);

    /* cl_scenario_check() has resolved the names and sized the replica on
     * every pool's GPU kind, so this fails only on a changed catalog. */
    if (g == NULL)
        return SIM_EINFEASIBLE;
    if (plan->disaggregated) {
        for (int k = 0; k < CL_PD_GROUPS; k++) {
            struct cl_pd_layout o = cl_pd_layout_resolve(s, k);
            o.tp = plan->groups[k].tp;
            if (layout_init(s, a, g, &o, &p->lay[CL_ROLE_PREFILL + k]) != 0)
                return SIM_EINFEASIBLE;
        }
    } else {
        /* The pool's own layout (pools[].deploy), else the top-level
         * one at the plan's tp. */
        struct cl_pd_layout o = cl_pool_layout_resolve(s, i);
        struct perf_saturation sat;
        if (o.tp < 1 || !plan->mixed)
            o.tp = plan->tp;
        if (layout_init(s, a, g, &o, &p->lay[CL_ROLE_BOTH]) != 0)
            return SIM_EINFEASIBLE;
        if (plan->mixed)
            p->gpr = p->lay[CL_ROLE_BOTH].perf.gpus;
        if (perf_saturate(&p->lay[CL_ROLE_BOTH].perf, CL_SPEED_REF_CONTEXT,
                          CL_SPEED_REF_SEQS, &sat) == 0)
            p->speed_tokps = sat.tokens_per_s;
    }
    p->kv_block_tokens = s->server.block_tokens;
    w->max_model_len = cl__llm_max_model_len(s, a);
    /* A pool of its own GPU kind pays that kind's price. */
    if (s->npools > 0 && s->pools[i].gpu != NULL)
        p->price = g->price_usd_per_hour;
    return 0;
}

void cl__llm_notes(const struct cl_scenario *s, struct cl_results *out)
{
    if (s->cluster.kv_cache_offload &&
        s->server.preemption != CL_PREEMPT_AUTO && !s->server.prefix_caching)
        cl_results_note(out, "kv_cache_offload: nothing is offloaded (server."
                             "preemption is not auto and prefix caching "
                             "is off)");
}
