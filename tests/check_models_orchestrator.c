/*
 * Check suite for the elastic cluster (models/cluster/replica.c,
 * orchestrator.c): the replica life cycle and what it is charged, scale-up
 * and drain, borrowing from a test pool and giving it back first, a
 * scripted failure with both recovery modes, clamping to [min, max], a
 * reserved pool paid whether used or not, reclaims of a borrowable pool
 * (by hand, handing back, the owner's jobs), spot interruptions and scale
 * to zero (the activator's exact wait, every policy). Abstract
 * servers keep the arithmetic exact: a replica's load time is only
 * deploy.engine_init.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "models/policy/policy.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/xalloc.h"

static void run_text(const char *text, struct cl_results *res)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {.base_dir = "."};
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = scn_string_load("inline.yaml", text, strlen(text), &scn, &d);
    if (rc == 0)
        rc = cl_run(&scn, &opts, res, &d);
    if (rc != 0 || d.n > 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(rc, 0);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}

/* A light abstract workload over `duration`, an elastic cluster of 1..max
 * one-GPU replicas whose replicas cost $1/h, and a static policy asking for
 * `want` replicas. Provisioning 100 s, engine init 50 s, policy every 10 s. */
static char *elastic_text(int max, int want, const char *cluster_extra,
                          const char *extra)
{
    return xasprintf("seed: 1\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: deterministic, rate_per_s: 0.5}\n"
                     "    duration: 1000s\n"
                     "server:\n"
                     "  kind: abstract\n"
                     "  service: {dist: deterministic, mean_s: 1.0}\n"
                     "  price: $1/h\n"
                     "deploy: {engine_init: 50s}\n"
                     "cluster: {min_gpus: 1, max_gpus: %d%s}\n"
                     "policy:\n"
                     "  name: static\n"
                     "  interval: 10s\n"
                     "  max_step_up: 8\n"
                     "  max_step_down: 8\n"
                     "  scale_down_cooldown: 0s\n"
                     "  params: {replicas: %d}\n"
                     "%s",
                     max, cluster_extra, want, extra);
}

static const char *const pools_100s =
    "pools:\n"
    "  - {name: main, capacity_gpus: 8, price_per_gpu_hour: $1/h,\n"
    "     provision: {dist: fixed, mean_s: 100}}\n";

START_TEST(test_cl_run_replica_lifecycle_charging)
{
    struct cl_results r;
    char *t = elastic_text(4, 3, "", pools_100s);
    double end;

    run_text(t, &r);
    /* At t = 10 s the policy asks for 3: two more replicas, provisioning
     * 100 s then loading 50 s, serving from t = 160 s to the end. */
    end = r.sim_time_s;
    ck_assert_uint_eq(r.cold_starts, 2);
    ck_assert_uint_eq(r.scale_events, 1);
    ck_assert_int_eq(r.replicas_min, 1);
    ck_assert_int_eq(r.replicas_max, 3);
    ck_assert_double_eq_tol(r.gpu_hours_by_state[CL_GS_PROVISIONING],
                            2 * 100.0 / 3600, 1e-9);
    ck_assert_double_eq_tol(r.gpu_hours_by_state[CL_GS_LOADING],
                            2 * 50.0 / 3600, 1e-9);
    /* Everything held is charged: 1 replica the whole run, 2 from 10 s. */
    ck_assert_double_eq_tol(r.gpu_hours, (end + 2 * (end - 10)) / 3600, 1e-9);
    ck_assert_double_eq_tol(r.cost_usd, r.gpu_hours * 1.0, 1e-9);
    /* Serving splits into busy and idle; it sums with the rest. */
    ck_assert_double_eq_tol(r.gpu_hours_by_state[CL_GS_SERVING] +
                                r.gpu_hours_by_state[CL_GS_IDLE],
                            (end + 2 * (end - 160)) / 3600, 1e-9);
    ck_assert(r.gpu_hours_by_state[CL_GS_IDLE] > 0);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_clamp_to_max)
{
    struct cl_results r;
    char *t = elastic_text(3, 10, "", pools_100s);

    run_text(t, &r);
    /* The policy asks for 10; the guard clamps to max_gpus = 3. */
    ck_assert_int_eq(r.replicas_max, 3);
    ck_assert_uint_eq(r.cold_starts, 2);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_borrow_and_give_back)
{
    struct cl_results r;
    /* The owned pool holds 2 GPUs; the policy wants 4, so 2 come from the
     * test pool after its 30 s grace period, with no provisioning. */
    char *t = elastic_text(
        4, 4, "",
        "pools:\n"
        "  - {name: main, capacity_gpus: 2, price_per_gpu_hour: $2/h,\n"
        "     provision: {dist: fixed, mean_s: 100}}\n"
        "  - {name: test, capacity_gpus: 4, price_per_gpu_hour: $1/h,\n"
        "     borrowable: true, grace: 30s}\n");
    int test = -1;

    run_text(t, &r);
    ck_assert_int_eq(r.npools, 2);
    for (int i = 0; i < r.npools; i++)
        if (r.pools[i].borrowable)
            test = i;
    ck_assert_int_ge(test, 0);
    ck_assert_uint_eq(r.pools[test].replicas_started, 2);
    ck_assert_double_eq_tol(
        r.pools[test].gpu_hours_by_state[CL_GS_PROVISIONING], 2 * 30.0 / 3600,
        1e-9);
    ck_assert_double_eq_tol(r.borrowed_gpu_hours, r.pools[test].gpu_hours_used,
                            1e-12);
    /* The per-interval pool costs add up to each pool's cost. */
    for (int p = 0; p < r.npools; p++) {
        double sum = 0;
        for (size_t i = 0; i < r.nseries; i++)
            sum += r.pool_cost_usd[i * (size_t)r.npools + (size_t)p];
        ck_assert_double_eq_tol(sum, r.pools[p].cost_usd, 1e-9);
    }
    ck_assert(r.borrowed_gpu_hours > 0);
    ck_assert_int_eq(r.replicas_max, 4);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_borrowed_returned_first)
{
    struct cl_results r;
    /* Start with 4 (2 owned, 2 borrowed), then the policy wants 2: the
     * borrowed replicas drain, the owned ones stay. */
    char *t = elastic_text(
        4, 2, ", initial_gpus: 4",
        "pools:\n"
        "  - {name: main, capacity_gpus: 2, price_per_gpu_hour: $2/h}\n"
        "  - {name: test, capacity_gpus: 4, price_per_gpu_hour: $1/h,\n"
        "     borrowable: true, grace: 30s}\n");
    double main_h = 0, test_h = 0;

    run_text(t, &r);
    for (int i = 0; i < r.npools; i++) {
        if (r.pools[i].borrowable)
            test_h = r.pools[i].gpu_hours_used;
        else
            main_h = r.pools[i].gpu_hours_used;
    }
    /* Owned: 2 GPUs the whole run; borrowed: 2 GPUs until about t = 10. */
    ck_assert_double_eq_tol(main_h, 2 * r.sim_time_s / 3600, 1e-9);
    ck_assert(test_h < 2 * 12.0 / 3600);
    ck_assert_int_eq(r.replicas_min, 2);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_reserved_pool_paid_whole)
{
    struct cl_results r;
    char *t =
        elastic_text(4, 1, "",
                     "pools:\n"
                     "  - {name: main, capacity_gpus: 4, reserved: true,\n"
                     "     price_per_gpu_hour: $1/h}\n");

    run_text(t, &r);
    /* One replica used; four GPUs paid. */
    ck_assert_double_eq_tol(r.pools[0].gpu_hours_used, r.sim_time_s / 3600,
                            1e-9);
    ck_assert_double_eq_tol(r.pools[0].gpu_hours_paid, 4 * r.sim_time_s / 3600,
                            1e-9);
    ck_assert_double_eq_tol(r.cost_usd, 4 * r.sim_time_s / 3600, 1e-9);
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* Llama-3.1-70B, TP4, 3 static replicas (an elastic 12..12 cluster so
 * that failures get replaced), one scripted GPU failure at 300 s. */
static char *failure_text(const char *recovery)
{
    return xasprintf(
        "seed: 3\n"
        "model: llama-3.1-70b\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: poisson, rate_per_s: 6}\n"
        "    duration: 900s\n"
        "    prompt_tokens: {dist: lognormal, mean: 1000, sd: 500}\n"
        "    output_tokens: {dist: lognormal, mean: 200, sd: 100, max: 1000}\n"
        "hardware: {gpu: h100}\n"
        "deploy: {model_path: s3://models/llama-3.1-70b, tp: 4, "
        "engine_init: 30s}\n"
        "cluster: {min_gpus: 12, max_gpus: 12}\n"
        "policy: {name: static}\n"
        "pools:\n"
        "  - {name: main, capacity_gpus: 16,\n"
        "     provision: {dist: fixed, mean_s: 60}}\n"
        "faults:\n"
        "  recovery: %s\n"
        "  detect: 10s\n"
        "  scripted:\n"
        "    - {at: 300s, kind: gpu}\n"
        "slo: {ttft_ms: 2000, tpot_ms: 100}\n",
        recovery);
}

START_TEST(test_cl_run_failure_recovery_modes)
{
    struct cl_results mem, sto;
    char *tm = failure_text("memory"), *ts = failure_text("storage");
    double weights = 141.1e9; /* Llama-3.1-70B bf16, about 2 x 70.55e9 */

    run_text(tm, &mem);
    run_text(ts, &sto);
    ck_assert_uint_eq(mem.failures, 1);
    ck_assert_uint_eq(sto.failures, 1);
    ck_assert(mem.requests_retried > 0);
    /* Detection 10 s + provisioning 60 s + weights + init 30 s; weights
     * over RDMA from peer hosts (4 x 46 GB/s) or from object storage
     * (5 GB/s). */
    printf("# recovery: memory %.1f s, storage %.1f s\n", mem.recovery_s_mean,
           sto.recovery_s_mean);
    fflush(stdout);
    ck_assert_double_eq_tol(mem.recovery_s_mean, 100 + weights / (4 * 46e9),
                            0.5);
    ck_assert_double_eq_tol(sto.recovery_s_mean, 100 + weights / 5e9, 0.5);
    ck_assert(sto.slo_attainment <= mem.slo_attainment);
    cl_results_fini(&mem);
    cl_results_fini(&sto);
    free(tm);
    free(ts);
}
END_TEST

/* Llama-3.1-70B, TP4 on H100, a static cluster; links: a YAML list. */
static char *link_text(int tp, const char *links)
{
    return xasprintf("seed: 4\n"
                     "model: llama-3.1-%s\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 4}\n"
                     "    duration: 600s\n"
                     "    prompt_tokens: {dist: fixed, value: 1000}\n"
                     "    output_tokens: {dist: fixed, value: 200}\n"
                     "hardware: {gpu: h100}\n"
                     "deploy: {tp: %d}\n"
                     "cluster: {replicas: 2}\n"
                     "faults:\n"
                     "  links: %s\n",
                     tp == 1 ? "8b" : "70b", tp, links);
}

START_TEST(test_cl_run_link_degradation)
{
    struct cl_results base, slow, late, one, one_slow;
    char *t0 = link_text(4, "[]");
    char *t1 = link_text(4, "[{at: 0s, duration: 2h, factor: 0.25}]");
    char *t2 = link_text(4, "[{at: 2h, duration: 1h, factor: 0.25}]");
    char *t3 = link_text(1, "[]");
    char *t4 = link_text(1, "[{at: 0s, duration: 2h, factor: 0.25}]");

    run_text(t0, &base);
    run_text(t1, &slow);
    run_text(t2, &late);
    run_text(t3, &one);
    run_text(t4, &one_slow);
    /* A quarter of the TP bandwidth: the all-reduce takes 4x as long, so
     * every token is slower. */
    ck_assert(slow.tpot_ms.mean > base.tpot_ms.mean * 1.05);
    /* A degradation after the traffic, or on a replica with no TP
     * all-reduce, changes nothing. */
    ck_assert_double_eq(late.tpot_ms.mean, base.tpot_ms.mean);
    ck_assert_double_eq(one_slow.tpot_ms.mean, one.tpot_ms.mean);
    cl_results_fini(&base);
    cl_results_fini(&slow);
    cl_results_fini(&late);
    cl_results_fini(&one);
    cl_results_fini(&one_slow);
    free(t0);
    free(t1);
    free(t2);
    free(t3);
    free(t4);
}
END_TEST

/* The pools of the reclaim tests: 2 owned GPUs and a test pool of 4, and
 * the policy wants 4 one-GPU replicas, so 2 are borrowed (serving from t =
 * 10 + 30 + 50 = 90 s). extra: more keys of the test pool. */
static char *reclaim_text(const char *service, const char *arrival,
                          const char *extra)
{
    return xasprintf(
        "seed: 1\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: %s\n"
        "    duration: 1000s\n"
        "server:\n"
        "  kind: abstract\n"
        "  service: %s\n"
        "  concurrency: 4\n"
        "  price: $1/h\n"
        "deploy: {engine_init: 50s}\n"
        "cluster: {min_gpus: 1, max_gpus: 4}\n"
        "policy:\n"
        "  name: static\n"
        "  interval: 10s\n"
        "  max_step_up: 8\n"
        "  max_step_down: 8\n"
        "  scale_down_cooldown: 0s\n"
        "  params: {replicas: 4}\n"
        "pools:\n"
        "  - {name: main, capacity_gpus: 2, price_per_gpu_hour: $2/h,\n"
        "     provision: {dist: fixed, mean_s: 100}}\n"
        "  - {name: test, capacity_gpus: 4, price_per_gpu_hour: $1/h,\n"
        "     borrowable: true, grace: 30s%s}\n",
        arrival, service, extra);
}

/* Every request that arrived has ended: completed, dropped or timed out
 * (none is in flight once the run is over). */
static void assert_conserved(const struct cl_results *r)
{
    ck_assert_uint_eq(r->requests_arrived, r->requests_completed +
                                               r->requests_dropped +
                                               r->requests_timed_out);
}

START_TEST(test_cl_run_reclaim_by_hand)
{
    struct cl_results r;
    /* At 500 s the owner takes all 4 test GPUs back for 200 s after the
     * 30 s notice: the 2 borrowed replicas drain (1 s requests: empty at
     * once), nothing replaces them (main is full, the test pool is the
     * owner's), and at 730 s the policy borrows again, serving at 810 s. */
    char *t = reclaim_text("{dist: deterministic, mean_s: 1.0}",
                           "{process: deterministic, rate_per_s: 0.5}",
                           ",\n     reclaim: [{at: 500s, gpus: 4, "
                           "duration: 200s}]");
    int test = -1;

    run_text(t, &r);
    for (int i = 0; i < r.npools; i++)
        if (r.pools[i].borrowable)
            test = i;
    ck_assert_uint_eq(r.reclaims, 1);
    ck_assert_uint_eq(r.reclaim_replicas, 2);
    ck_assert_uint_eq(r.reclaim_gpus, 2);
    ck_assert_uint_eq(r.reclaim_handed_back, 0);
    ck_assert_uint_eq(r.reclaim_requests_restarted, 0);
    ck_assert_uint_eq(r.reclaim_late_gpus, 0);
    ck_assert_uint_eq(r.interruptions, 0);
    /* Borrowed: 2 GPUs over [10, 500] and [730, end] (the 1 s requests,
     * 2 s apart, are done by 500 s: the drain is instant). */
    ck_assert_double_eq_tol(
        r.pools[test].gpu_hours_used,
        (2 * (500.0 - 10) + 2 * (r.sim_time_s - 730)) / 3600, 1e-9);
    ck_assert_uint_eq(r.pools[test].replicas_started, 4);
    assert_conserved(&r);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_reclaim_hands_back)
{
    struct cl_results r;
    /* 300 s requests every 20 s: the borrowed replicas still run some when
     * the 30 s notice ends; those restart elsewhere, their work lost, and
     * no GPU is kept past the notice (the owner takes the 2 idle GPUs
     * first, then our 2). */
    char *t = reclaim_text("{dist: deterministic, mean_s: 300}",
                           "{process: deterministic, rate_per_s: 0.05}",
                           ",\n     reclaim: [{at: 500s, gpus: 4}]");

    run_text(t, &r);
    ck_assert_uint_eq(r.reclaims, 1);
    ck_assert_uint_eq(r.reclaim_gpus, 2);
    ck_assert_uint_ge(r.reclaim_handed_back, 1);
    ck_assert_uint_ge(r.reclaim_requests_restarted, 1);
    ck_assert_uint_eq(r.reclaim_late_gpus, 0);
    ck_assert_uint_ge(r.requests_retried, r.reclaim_requests_restarted);
    /* The abstract engine has no KV cache. */
    ck_assert(r.reclaim_kv_tokens_lost == 0);
    assert_conserved(&r);
    cl_results_fini(&r);
    free(t);
}
END_TEST

START_TEST(test_cl_run_owner_demand)
{
    struct cl_results r, again;
    /* The owner's jobs, 20 an hour of 2 GPUs for 60 s each, against long
     * requests: every claim is met within its notice, requests are
     * conserved, and the same seed gives the same run. */
    char *t = reclaim_text("{dist: deterministic, mean_s: 60}",
                           "{process: poisson, rate_per_s: 0.1}",
                           ",\n     owner_demand: {rate_per_h: 20, gpus: 2, "
                           "duration: 60s}");

    run_text(t, &r);
    run_text(t, &again);
    ck_assert_uint_ge(r.reclaims, 2);
    ck_assert_uint_ge(r.reclaim_gpus, 1);
    ck_assert_uint_eq(r.reclaim_late_gpus, 0);
    assert_conserved(&r);
    ck_assert_uint_eq(again.reclaims, r.reclaims);
    ck_assert_uint_eq(again.reclaim_requests_restarted,
                      r.reclaim_requests_restarted);
    ck_assert(again.cost_usd == r.cost_usd);
    ck_assert(again.e2e_ms.mean == r.e2e_ms.mean);
    cl_results_fini(&r);
    cl_results_fini(&again);
    free(t);
}
END_TEST

/* A spot pool of 4 (the plan's $1/h, less the discount) before an
 * on-demand one of 4 at $1/h, long requests, and spot: the spot pool's
 * further keys. */
static char *spot_text(const char *spot)
{
    return xasprintf("seed: 3\n"
                     "workload:\n"
                     "  synthetic:\n"
                     "    arrival: {process: poisson, rate_per_s: 0.05}\n"
                     "    duration: 2000s\n"
                     "server:\n"
                     "  kind: abstract\n"
                     "  service: {dist: deterministic, mean_s: 200}\n"
                     "  concurrency: 4\n"
                     "  price: $1/h\n"
                     "deploy: {engine_init: 50s}\n"
                     "cluster: {min_gpus: 1, max_gpus: 4, initial_gpus: 3}\n"
                     "policy:\n"
                     "  name: static\n"
                     "  interval: 10s\n"
                     "  params: {replicas: 3}\n"
                     "pools:\n"
                     "  - {name: spot, capacity_gpus: 4, priority: 0%s}\n"
                     "  - {name: od, capacity_gpus: 4, priority: 1,\n"
                     "     provision: {dist: fixed, mean_s: 100}}\n",
                     spot);
}

START_TEST(test_cl_run_spot_direction)
{
    struct cl_results on, off, od;
    char *t_on = spot_text(", preemptible: true,\n"
                           "     interruptions: {rate_per_h: 6, at: [300s],"
                           " notice: 30s}");
    char *t_off = spot_text(", preemptible: true");
    char *t_od = spot_text("");

    run_text(t_on, &on);
    run_text(t_off, &off);
    run_text(t_od, &od);
    /* The discount: 60 % off the plan's $1/h. */
    ck_assert_double_eq_tol(off.pools[0].price_usd_per_gpu_hour, 0.4, 1e-12);
    ck_assert_double_eq_tol(od.pools[0].price_usd_per_gpu_hour, 1.0, 1e-12);
    ck_assert(off.cost_usd < od.cost_usd);
    /* Without interruptions a spot pool only changes the price. */
    ck_assert_uint_eq(off.interruptions, 0);
    ck_assert_uint_eq(off.requests_retried, od.requests_retried);
    ck_assert(off.e2e_ms.mean == od.e2e_ms.mean);
    /* With them: interruptions, restarts, cold starts, none late, and
     * still cheaper than on-demand. */
    ck_assert_uint_ge(on.interruptions, 2);
    ck_assert_uint_eq(on.interruption_gpus, on.interruptions);
    ck_assert_uint_ge(on.interruption_requests_restarted, 1);
    ck_assert_uint_gt(on.requests_retried, off.requests_retried);
    ck_assert_uint_gt(on.cold_starts, off.cold_starts);
    ck_assert_uint_eq(on.interruption_late_gpus, 0);
    ck_assert(on.cost_usd < od.cost_usd);
    assert_conserved(&on);
    cl_results_fini(&on);
    cl_results_fini(&off);
    cl_results_fini(&od);
    free(t_on);
    free(t_off);
    free(t_od);
}
END_TEST

/* Scale to zero: one request at t = 2 s into a cluster of 0..2 replicas
 * that starts empty; the activator asks for a replica at once, which
 * serves after 100 s of provisioning and 50 s of engine init. */
START_TEST(test_cl_run_scale_zero_activator_wait)
{
    struct cl_results r;
    const char *t =
        "seed: 1\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival: {process: deterministic, rate_per_s: 0.5}\n"
        "    duration: 3s\n"
        "server:\n"
        "  kind: abstract\n"
        "  service: {dist: deterministic, mean_s: 1.0}\n"
        "  price: $1/h\n"
        "deploy: {engine_init: 50s}\n"
        "cluster: {min_gpus: 0, max_gpus: 2}\n"
        "pools:\n"
        "  - {name: main, capacity_gpus: 2, price_per_gpu_hour: $1/h,\n"
        "     provision: {dist: fixed, mean_s: 100}}\n"
        "policy: {name: static, interval: 10s}\n";

    run_text(t, &r);
    ck_assert_uint_eq(r.requests_completed, r.requests_arrived);
    ck_assert_uint_eq(r.cold_start_waits, r.requests_arrived);
    ck_assert_uint_eq(r.cold_starts, 1);
    ck_assert_double_eq_tol(r.cold_start_wait_s_mean, 150.0, 1e-9);
    ck_assert_int_eq(r.replicas_min, 0);
    /* Nothing is held before the first request. */
    ck_assert_double_eq_tol(r.gpu_hours, (r.sim_time_s - 2.0) / 3600, 1e-9);
    cl_results_fini(&r);
}
END_TEST

/* The policies that reach 0 here. Static holds its size. dynamo-load and
 * llmd-saturation step down only while another replica would remain
 * (Dynamo's planner keeps min_endpoint, WVA keeps one); dynamo-throughput
 * and predictive size from a capacity they learn from ITL, which the
 * abstract engine does not report, so they hold; target-latency removes
 * a replica only while another remains. */
static int can_zero(const char *name)
{
    static const char *const yes[] = {"apa", "hpa",       "keda",
                                      "kpa", "ray-serve", NULL};
    for (int i = 0; yes[i] != NULL; i++)
        if (strcmp(yes[i], name) == 0)
            return 1;
    return 0;
}

/* Every policy with min_gpus 0: 200 s of traffic, a quiet quarter of an
 * hour (one request in 20000 s), then a burst at four times the rate.
 * Every request completes; each policy that can reaches 0 replicas in
 * the quiet period and comes back for the burst (static holds its size:
 * it never asks for 0). */
START_TEST(test_cl_run_scale_zero_policy)
{
    const struct pol_entry *e = pol_table[_i];
    struct cl_results r;
    char *t;

    if (e == NULL)
        return;
    t = xasprintf(
        "seed: 3\n"
        "workload:\n"
        "  synthetic:\n"
        "    arrival:\n"
        "      process: deterministic\n"
        "      rate_per_s: 0.5\n"
        "      steps:\n"
        "        - {at: 200s, multiplier: 0.0001}\n"
        "        - {at: 1400s, multiplier: 4}\n"
        "    duration: 1700s\n"
        "server:\n"
        "  kind: abstract\n"
        "  service: {dist: deterministic, mean_s: 1.0}\n"
        "  price: $1/h\n"
        "deploy: {engine_init: 20s}\n"
        "cluster: {min_gpus: 0, max_gpus: 4, initial_gpus: 1,\n"
        "          target_latency_ms: 50}\n"
        "pools:\n"
        "  - {name: main, capacity_gpus: 4, price_per_gpu_hour: $1/h,\n"
        "     provision: {dist: fixed, mean_s: 30}}\n"
        "policy:\n"
        "  name: %s\n"
        "  interval: 10s\n"
        "  scale_down_cooldown: 60s\n"
        "slo: {ttft_ms: 2000}\n",
        e->name);
    run_text(t, &r);
    printf("# %s: replicas min %d max %d, cold waits %llu (%.1f s), "
           "cold starts %llu\n",
           e->name, r.replicas_min, r.replicas_max,
           (unsigned long long)r.cold_start_waits, r.cold_start_wait_s_mean,
           (unsigned long long)r.cold_starts);
    ck_assert_uint_eq(r.requests_completed, r.requests_arrived);
    ck_assert_uint_eq(r.requests_dropped, 0);
    ck_assert_int_ge(r.replicas_max, 1);
    if (can_zero(e->name)) {
        ck_assert_int_eq(r.replicas_min, 0);
        ck_assert_uint_gt(r.cold_start_waits, 0);
        ck_assert(isfinite(r.cold_start_wait_s_mean));
        ck_assert(r.cold_start_wait_s_mean > 0);
        ck_assert_uint_ge(r.cold_starts, 1);
    }
    cl_results_fini(&r);
    free(t);
}
END_TEST

/* The grace key belongs to min_gpus 0; scale to zero is refused with
 * disaggregated groups. */
START_TEST(test_cl_run_scale_zero_refusals)
{
    struct cl_scenario scn;
    struct sim_diag d;
    const char *t = "workload:\n"
                    "  synthetic: {arrival: {rate_per_s: 1}, duration: 1s}\n"
                    "server:\n"
                    "  kind: abstract\n"
                    "  service: {dist: deterministic, mean_s: 1.0}\n"
                    "cluster: {min_gpus: 1, max_gpus: 2,\n"
                    "          scale_to_zero_grace: 10s}\n";
    char buf[512];
    FILE *fp;

    sim_diag_init(&d);
    ck_assert_int_ne(scn_string_load("z.yaml", t, strlen(t), &scn, &d), 0);
    fp = fmemopen(buf, sizeof(buf), "w");
    sim_diag_print(&d, fp);
    fclose(fp);
    ck_assert_str_eq(buf, "z.yaml:7:11: error: cluster.scale_to_zero_grace: "
                          "only used with cluster.min_gpus 0\n");
    sim_diag_fini(&d);
}
END_TEST

/* A mixed cluster (pools[].deploy) of Llama-3.1-70B: 4 H100s at TP4 then
 * 4 H200s at TP2, a static policy holding 2 replicas of the first pool's
 * worth. At t = 0 the H100 replica (4 GPUs) comes first; an H200 TP2
 * replica counts its speed (> 0.5 of it), so one of it (2 GPUs) completes
 * the 2: every GPU-hour and dollar per pool is held x time x price. */
static const char *const mixed_text =
    "seed: 1\n"
    "model: llama-3.1-70b\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: {process: deterministic, rate_per_s: 1}\n"
    "    duration: 60s\n"
    "    prompt_tokens: {dist: fixed, value: 100}\n"
    "    output_tokens: {dist: fixed, value: 10}\n"
    "hardware: {gpu: h100, gpus_per_node: 8}\n"
    "deploy: {tp: 4, weight_dtype: bf16}\n"
    "cluster: {min_gpus: 4, max_gpus: 8, initial_gpus: 8}\n"
    "pools:\n"
    "  - {name: a, gpu: h100, capacity_gpus: 4, price_per_gpu_hour: $2/h,\n"
    "     deploy: {tp: 4}}\n"
    "  - {name: b, gpu: h200, capacity_gpus: 4, price_per_gpu_hour: $3/h,\n"
    "     deploy: {tp: 2}}\n"
    "policy: {name: static, interval: 10s, params: {replicas: 2}}\n";

START_TEST(test_cl_run_mixed_pools_accounting)
{
    struct cl_results r;
    double h;

    run_text(mixed_text, &r);
    h = r.sim_time_s / 3600;
    ck_assert_int_eq(r.npools, 2);
    ck_assert_uint_eq(r.pools[0].replicas_started, 1);
    ck_assert_uint_eq(r.pools[1].replicas_started, 1);
    ck_assert_double_eq_tol(r.pools[0].gpu_hours_used, 4 * h, 1e-9);
    ck_assert_double_eq_tol(r.pools[1].gpu_hours_used, 2 * h, 1e-9);
    ck_assert_double_eq_tol(r.pools[0].cost_usd, 4 * h * 2.0, 1e-9);
    ck_assert_double_eq_tol(r.pools[1].cost_usd, 2 * h * 3.0, 1e-9);
    ck_assert_double_eq_tol(r.gpu_hours, 6 * h, 1e-9);
    ck_assert_double_eq_tol(r.cost_usd, 14 * h, 1e-9);
    ck_assert_uint_eq(r.requests_completed, 60);
    cl_results_fini(&r);
}
END_TEST

/* A pool's layout that does not fit its GPU is reported at its deploy key,
 * naming the pool; so is a pool layout without an llm server. */
START_TEST(test_cl_check_mixed_pools_infeasible)
{
    struct cl_scenario scn;
    struct cl_plan plan;
    struct sim_diag d;
    char *t = xstrdup(mixed_text);
    char *tp2 = strstr(t, "deploy: {tp: 2}");

    tp2[13] = '1'; /* the H200 pool at TP1: 140 GB of weights on 141 GB */
    sim_diag_init(&d);
    ck_assert_int_eq(scn_string_load("inline.yaml", t, strlen(t), &scn, &d), 0);
    ck_assert_int_eq(cl_scenario_check(&scn, &plan, &d), SIM_EINFEASIBLE);
    ck_assert_int_ge(d.n, 1);
    ck_assert_int_eq(d.v[0].line, 16);
    ck_assert_int_eq(d.v[0].col, 6);
    ck_assert_msg(strncmp(d.v[0].msg, "pools[1].deploy: ", 17) == 0, "%s",
                  d.v[0].msg);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
    free(t);
}
END_TEST

static Suite *orch_suite(void)
{
    Suite *s = suite_create("orchestrator");
    TCase *tc = tcase_create("replica");
    int npol = 0;
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cl_run_replica_lifecycle_charging);
    tcase_add_test(tc, test_cl_run_clamp_to_max);
    tcase_add_test(tc, test_cl_run_reserved_pool_paid_whole);
    suite_add_tcase(s, tc);
    tc = tcase_create("borrowing");
    tcase_add_test(tc, test_cl_run_borrow_and_give_back);
    tcase_add_test(tc, test_cl_run_borrowed_returned_first);
    suite_add_tcase(s, tc);
    tc = tcase_create("reclaim");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cl_run_reclaim_by_hand);
    tcase_add_test(tc, test_cl_run_reclaim_hands_back);
    tcase_add_test(tc, test_cl_run_owner_demand);
    tcase_add_test(tc, test_cl_run_spot_direction);
    suite_add_tcase(s, tc);
    tc = tcase_create("scale_zero");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cl_run_scale_zero_activator_wait);
    while (pol_table[npol] != NULL)
        npol++;
    tcase_add_loop_test(tc, test_cl_run_scale_zero_policy, 0, npol);
    tcase_add_test(tc, test_cl_run_scale_zero_refusals);
    suite_add_tcase(s, tc);
    tc = tcase_create("faults");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cl_run_failure_recovery_modes);
    tcase_add_test(tc, test_cl_run_link_degradation);
    tcase_add_test(tc, test_cl_run_mixed_pools_accounting);
    tcase_add_test(tc, test_cl_check_mixed_pools_infeasible);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(orch_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
