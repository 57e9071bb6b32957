/* Packing results. The layout follows struct cl_results field by field; a
 * field added there must be added to both functions here, and the Check
 * suite sweep compares a real run's results with their round trip through
 * the JSON summary, which names every summary field. Counts are checked
 * against the bytes left before anything is allocated, so bad input cannot
 * make unpack allocate more than a few times its length. */
#include "sweep/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "sweep/sweep-int.h"

#define MAGIC "dsec-res-2"

static void put_latency(struct swp__buf *b, const struct cl_latency *l)
{
    swp__put_u64(b, l->n);
    swp__put_f64(b, l->mean);
    swp__put_f64(b, l->ci95);
    swp__put_f64(b, l->p50);
    swp__put_f64(b, l->p90);
    swp__put_f64(b, l->p99);
    swp__put_f64(b, l->max);
}

unsigned char *swp_results_pack(const struct cl_results *r, size_t *len)
{
    struct swp__buf b = {0};
    size_t ncells = r->nseries * (size_t)(r->npools > 0 ? r->npools : 0);

    swp__buf_adds(&b, MAGIC);
    swp__put_str(&b, r->scenario_name);
    swp__put_u64(&b, r->seed);
    put_latency(&b, &r->ttft_ms);
    put_latency(&b, &r->tpot_ms);
    put_latency(&b, &r->e2e_ms);
    put_latency(&b, &r->queue_ms);
    swp__put_u64(&b, r->requests_arrived);
    swp__put_u64(&b, r->requests_completed);
    swp__put_u64(&b, r->requests_dropped);
    swp__put_u64(&b, r->input_tokens);
    swp__put_u64(&b, r->output_tokens);
    swp__put_f64(&b, r->throughput_tokens_per_s);
    swp__put_f64(&b, r->requests_per_s);
    swp__put_f64(&b, r->sim_time_s);
    swp__put_f64(&b, r->gpu_hours);
    swp__put_f64(&b, r->cost_usd);
    swp__put_f64(&b, r->price_usd_per_gpu_hour);
    swp__put_i64(&b, r->gpus_per_replica);
    swp__put_f64(&b, r->slo_attainment);
    swp__put_i64(&b, r->replicas_min);
    swp__put_i64(&b, r->replicas_max);
    swp__put_f64(&b, r->replicas_mean);
    swp__put_u64(&b, r->scale_events);
    swp__put_u64(&b, r->cold_starts);
    swp__put_u64(&b, r->failures);
    swp__put_u64(&b, r->requests_retried);
    swp__put_u64(&b, r->preemptions);
    swp__put_i64(&b, r->kv_blocks_end);
    swp__put_i64(&b, r->kv_blocks_peak);
    swp__put_f64(&b, r->prefix_hit_rate);
    swp__put_u64(&b, r->prefix_lookup_blocks);
    swp__put_u64(&b, r->prefix_hits_gpu);
    swp__put_u64(&b, r->prefix_hits_host);
    swp__put_u64(&b, r->prefix_hits_remote);
    swp__put_u64(&b, r->kv_offload_bytes);
    swp__put_u64(&b, r->kv_offload_remote_bytes);
    swp__put_u64(&b, r->kv_fetch_bytes);
    swp__put_u64(&b, r->kv_fetch_remote_bytes);
    swp__put_f64(&b, r->kv_transfer_s);
    swp__put_u64(&b, r->swaps_out);
    swp__put_u64(&b, r->swaps_in);
    swp__put_u64(&b, r->swap_bytes);
    swp__put_u64(&b, r->swap_fallbacks);
    swp__put_u64(&b, r->pd_transfers);
    swp__put_u64(&b, r->pd_bytes);
    swp__put_f64(&b, r->pd_transfer_ms_mean);
    swp__put_u64(&b, (uint64_t)(r->nclasses > 0 ? r->nclasses : 0));
    for (int i = 0; i < r->nclasses; i++) {
        const struct cl_class_result *c = &r->classes[i];
        swp__put_str(&b, c->name);
        swp__put_i64(&b, c->priority);
        swp__put_u64(&b, c->completed);
        swp__put_f64(&b, c->ttft_mean_ms);
        swp__put_f64(&b, c->ttft_p50_ms);
        swp__put_f64(&b, c->ttft_p99_ms);
        swp__put_f64(&b, c->e2e_p99_ms);
        swp__put_f64(&b, c->slo_attainment);
    }
    swp__put_f64(&b, r->recovery_s_mean);
    for (int s = 0; s < CL_GS_COUNT; s++)
        swp__put_f64(&b, r->gpu_hours_by_state[s]);
    swp__put_f64(&b, r->borrowed_gpu_hours);
    swp__put_str(&b, r->policy);

    swp__put_u64(&b, (uint64_t)(r->npools > 0 ? r->npools : 0));
    for (int i = 0; i < r->npools; i++) {
        const struct cl_pool_result *p = &r->pools[i];
        swp__put_str(&b, p->name);
        swp__put_str(&b, p->gpu);
        swp__put_i64(&b, p->capacity_gpus);
        swp__put_i64(&b, p->borrowable);
        swp__put_i64(&b, p->reserved);
        swp__put_f64(&b, p->price_usd_per_gpu_hour);
        for (int s = 0; s < CL_GS_COUNT; s++)
            swp__put_f64(&b, p->gpu_hours_by_state[s]);
        swp__put_f64(&b, p->gpu_hours_used);
        swp__put_f64(&b, p->gpu_hours_paid);
        swp__put_f64(&b, p->cost_usd);
        swp__put_u64(&b, p->replicas_started);
    }

    swp__put_f64(&b, r->queue_len_mean);
    swp__put_f64(&b, r->arrival_rate_per_s);
    swp__put_f64(&b, r->utilization);
    swp__put_u64(&b, r->sim_events);
    swp__put_f64(&b, r->wall_s);
    swp__put_f64(&b, r->events_per_s);

    swp__put_u64(&b, (uint64_t)(r->nnotes > 0 ? r->nnotes : 0));
    for (int i = 0; i < r->nnotes; i++)
        swp__put_str(&b, r->notes[i]);

    swp__put_u64(&b, r->nseries);
    for (size_t i = 0; i < r->nseries; i++) {
        const struct cl_series_row *s = &r->series[i];
        swp__put_i64(&b, s->t_start_ns);
        swp__put_i64(&b, s->t_end_ns);
        swp__put_u64(&b, s->arrivals);
        swp__put_u64(&b, s->completions);
        swp__put_u64(&b, s->output_tokens);
        swp__put_f64(&b, s->throughput_tokens_per_s);
        swp__put_f64(&b, s->queue_len_mean);
        swp__put_f64(&b, s->running_mean);
        swp__put_f64(&b, s->replicas_mean);
        swp__put_f64(&b, s->gpus_mean);
        swp__put_i64(&b, s->desired_replicas);
        swp__put_f64(&b, s->ttft_p50_ms);
        swp__put_f64(&b, s->ttft_p99_ms);
        swp__put_f64(&b, s->tpot_p50_ms);
        swp__put_f64(&b, s->tpot_p99_ms);
        swp__put_f64(&b, s->e2e_p50_ms);
        swp__put_f64(&b, s->e2e_p99_ms);
    }
    swp__put_u64(&b, r->pool_gpus_mean != NULL && ncells > 0);
    for (size_t i = 0; r->pool_gpus_mean != NULL && i < ncells; i++) {
        swp__put_f64(&b, r->pool_gpus_mean[i]);
        swp__put_f64(&b, r->pool_cost_usd[i]);
    }
    swp__put_u64(&b, r->nreplica_series);
    for (size_t i = 0; i < r->nreplica_series; i++) {
        const struct cl_replica_row *q = &r->replica_series[i];
        swp__put_i64(&b, q->t_start_ns);
        swp__put_i64(&b, q->t_end_ns);
        swp__put_u64(&b, q->replica);
        swp__put_i64(&b, q->pool);
        swp__put_i64(&b, q->state);
        swp__put_f64(&b, q->num_requests_running);
        swp__put_f64(&b, q->num_requests_waiting);
        swp__put_i64(&b, q->num_requests_running_end);
        swp__put_i64(&b, q->num_requests_waiting_end);
        swp__put_f64(&b, q->kv_cache_usage_perc);
        swp__put_f64(&b, q->kv_cache_usage_perc_end);
        swp__put_f64(&b, q->prefix_cache_hit_rate);
        swp__put_u64(&b, q->prompt_tokens);
        swp__put_u64(&b, q->generation_tokens);
        swp__put_u64(&b, q->request_success);
    }
    swp__put_u64(&b, r->replica_series_dropped);
    *len = b.len;
    return (unsigned char *)swp__buf_take(&b);
}

static void get_latency(struct swp__rd *r, struct cl_latency *l)
{
    l->n = swp__get_u64(r);
    l->mean = swp__get_f64(r);
    l->ci95 = swp__get_f64(r);
    l->p50 = swp__get_f64(r);
    l->p90 = swp__get_f64(r);
    l->p99 = swp__get_f64(r);
    l->max = swp__get_f64(r);
}

int swp_results_unpack(const unsigned char *p, size_t len,
                       struct cl_results *out)
{
    struct swp__rd r = {p, len, 0};
    struct cl_results *x = out;
    size_t n, ncells;

    memset(out, 0, sizeof(*out));
    if (len < strlen(MAGIC) || memcmp(p, MAGIC, strlen(MAGIC)) != 0)
        return SIM_EPARSE;
    r.p += strlen(MAGIC);
    r.left -= strlen(MAGIC);

    x->scenario_name = swp__get_str(&r);
    x->seed = swp__get_u64(&r);
    get_latency(&r, &x->ttft_ms);
    get_latency(&r, &x->tpot_ms);
    get_latency(&r, &x->e2e_ms);
    get_latency(&r, &x->queue_ms);
    x->requests_arrived = swp__get_u64(&r);
    x->requests_completed = swp__get_u64(&r);
    x->requests_dropped = swp__get_u64(&r);
    x->input_tokens = swp__get_u64(&r);
    x->output_tokens = swp__get_u64(&r);
    x->throughput_tokens_per_s = swp__get_f64(&r);
    x->requests_per_s = swp__get_f64(&r);
    x->sim_time_s = swp__get_f64(&r);
    x->gpu_hours = swp__get_f64(&r);
    x->cost_usd = swp__get_f64(&r);
    x->price_usd_per_gpu_hour = swp__get_f64(&r);
    x->gpus_per_replica = swp__get_int(&r);
    x->slo_attainment = swp__get_f64(&r);
    x->replicas_min = swp__get_int(&r);
    x->replicas_max = swp__get_int(&r);
    x->replicas_mean = swp__get_f64(&r);
    x->scale_events = swp__get_u64(&r);
    x->cold_starts = swp__get_u64(&r);
    x->failures = swp__get_u64(&r);
    x->requests_retried = swp__get_u64(&r);
    x->preemptions = swp__get_u64(&r);
    x->kv_blocks_end = swp__get_i64(&r);
    x->kv_blocks_peak = swp__get_i64(&r);
    x->prefix_hit_rate = swp__get_f64(&r);
    x->prefix_lookup_blocks = swp__get_u64(&r);
    x->prefix_hits_gpu = swp__get_u64(&r);
    x->prefix_hits_host = swp__get_u64(&r);
    x->prefix_hits_remote = swp__get_u64(&r);
    x->kv_offload_bytes = swp__get_u64(&r);
    x->kv_offload_remote_bytes = swp__get_u64(&r);
    x->kv_fetch_bytes = swp__get_u64(&r);
    x->kv_fetch_remote_bytes = swp__get_u64(&r);
    x->kv_transfer_s = swp__get_f64(&r);
    x->swaps_out = swp__get_u64(&r);
    x->swaps_in = swp__get_u64(&r);
    x->swap_bytes = swp__get_u64(&r);
    x->swap_fallbacks = swp__get_u64(&r);
    x->pd_transfers = swp__get_u64(&r);
    x->pd_bytes = swp__get_u64(&r);
    x->pd_transfer_ms_mean = swp__get_f64(&r);
    n = swp__get_count(&r, 8 * 8, INT32_MAX);
    if (n > 0)
        x->classes = xcalloc(n, sizeof(*x->classes));
    x->nclasses = (int)n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cl_class_result *c = &x->classes[i];
        c->name = swp__get_str(&r);
        c->priority = swp__get_int(&r);
        c->completed = swp__get_u64(&r);
        c->ttft_mean_ms = swp__get_f64(&r);
        c->ttft_p50_ms = swp__get_f64(&r);
        c->ttft_p99_ms = swp__get_f64(&r);
        c->e2e_p99_ms = swp__get_f64(&r);
        c->slo_attainment = swp__get_f64(&r);
    }
    x->recovery_s_mean = swp__get_f64(&r);
    for (int s = 0; s < CL_GS_COUNT; s++)
        x->gpu_hours_by_state[s] = swp__get_f64(&r);
    x->borrowed_gpu_hours = swp__get_f64(&r);
    x->policy = swp__get_str(&r);

    n = swp__get_count(&r, 8, INT32_MAX);
    if (n > 0)
        x->pools = xcalloc(n, sizeof(*x->pools));
    x->npools = (int)n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cl_pool_result *q = &x->pools[i];
        q->name = swp__get_str(&r);
        q->gpu = swp__get_str(&r);
        q->capacity_gpus = swp__get_int(&r);
        q->borrowable = swp__get_int(&r);
        q->reserved = swp__get_int(&r);
        q->price_usd_per_gpu_hour = swp__get_f64(&r);
        for (int s = 0; s < CL_GS_COUNT; s++)
            q->gpu_hours_by_state[s] = swp__get_f64(&r);
        q->gpu_hours_used = swp__get_f64(&r);
        q->gpu_hours_paid = swp__get_f64(&r);
        q->cost_usd = swp__get_f64(&r);
        q->replicas_started = swp__get_u64(&r);
    }

    x->queue_len_mean = swp__get_f64(&r);
    x->arrival_rate_per_s = swp__get_f64(&r);
    x->utilization = swp__get_f64(&r);
    x->sim_events = swp__get_u64(&r);
    x->wall_s = swp__get_f64(&r);
    x->events_per_s = swp__get_f64(&r);

    n = swp__get_count(&r, 8, INT32_MAX);
    if (n > 0)
        x->notes = xcalloc(n, sizeof(*x->notes));
    x->nnotes = (int)n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        x->notes[i] = swp__get_str(&r);
        if (x->notes[i] == NULL)
            r.bad = 1;
    }

    n = swp__get_count(&r, 17 * 8, SIZE_MAX);
    if (n > 0)
        x->series = xcalloc(n, sizeof(*x->series));
    x->nseries = n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cl_series_row *s = &x->series[i];
        s->t_start_ns = swp__get_i64(&r);
        s->t_end_ns = swp__get_i64(&r);
        s->arrivals = swp__get_u64(&r);
        s->completions = swp__get_u64(&r);
        s->output_tokens = swp__get_u64(&r);
        s->throughput_tokens_per_s = swp__get_f64(&r);
        s->queue_len_mean = swp__get_f64(&r);
        s->running_mean = swp__get_f64(&r);
        s->replicas_mean = swp__get_f64(&r);
        s->gpus_mean = swp__get_f64(&r);
        s->desired_replicas = swp__get_int(&r);
        s->ttft_p50_ms = swp__get_f64(&r);
        s->ttft_p99_ms = swp__get_f64(&r);
        s->tpot_p50_ms = swp__get_f64(&r);
        s->tpot_p99_ms = swp__get_f64(&r);
        s->e2e_p50_ms = swp__get_f64(&r);
        s->e2e_p99_ms = swp__get_f64(&r);
    }
    ncells = x->nseries * (size_t)x->npools;
    if (swp__get_u64(&r) != 0 && !r.bad) {
        if (ncells == 0 || ncells > r.left / 16) {
            r.bad = 1;
        } else {
            x->pool_gpus_mean = xcalloc(ncells, sizeof(double));
            x->pool_cost_usd = xcalloc(ncells, sizeof(double));
            for (size_t i = 0; i < ncells; i++) {
                x->pool_gpus_mean[i] = swp__get_f64(&r);
                x->pool_cost_usd[i] = swp__get_f64(&r);
            }
        }
    }
    n = swp__get_count(&r, 15 * 8, CL_REPLICA_SERIES_MAX);
    if (n > 0)
        x->replica_series = xcalloc(n, sizeof(*x->replica_series));
    x->nreplica_series = n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cl_replica_row *q = &x->replica_series[i];
        q->t_start_ns = swp__get_i64(&r);
        q->t_end_ns = swp__get_i64(&r);
        q->replica = swp__get_u64(&r);
        q->pool = swp__get_int(&r);
        q->state = swp__get_int(&r);
        q->num_requests_running = swp__get_f64(&r);
        q->num_requests_waiting = swp__get_f64(&r);
        q->num_requests_running_end = swp__get_i64(&r);
        q->num_requests_waiting_end = swp__get_i64(&r);
        q->kv_cache_usage_perc = swp__get_f64(&r);
        q->kv_cache_usage_perc_end = swp__get_f64(&r);
        q->prefix_cache_hit_rate = swp__get_f64(&r);
        q->prompt_tokens = swp__get_u64(&r);
        q->generation_tokens = swp__get_u64(&r);
        q->request_success = swp__get_u64(&r);
    }
    x->replica_series_dropped = swp__get_u64(&r);
    if (r.bad || r.left != 0) {
        cl_results_fini(out);
        memset(out, 0, sizeof(*out));
        return SIM_EPARSE;
    }
    return 0;
}
