/* Summary table and JSON. The JSON is built with json-c, never by hand, and
 * doubles are given their text here (json_object_new_double_s) instead of
 * through json-c's process-wide format setting, which would be global state;
 * the shortest exact form keeps 0.1 as "0.1" rather than %.17g's
 * "0.10000000000000001" and is still a pure function of the value. */
#include "reports/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/xalloc.h"

/* Formats v with prec decimals into buf, or "n/a" when v is NAN. Returns
 * buf. */
static const char *num(char *buf, size_t size, int prec, double v)
{
    if (isnan(v))
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, "%.*f", prec, v);
    return buf;
}

static void print_latency(FILE *fp, const char *label,
                          const struct cl_latency *l)
{
    char b[6][32];

    fprintf(
        fp, "  %-6s%11s \xc2\xb1 %-8s%11s%11s%11s%11s%9llu\n", label,
        num(b[0], sizeof(b[0]), 2, l->mean),
        num(b[1], sizeof(b[1]), 2, l->ci95), num(b[2], sizeof(b[2]), 2, l->p50),
        num(b[3], sizeof(b[3]), 2, l->p90), num(b[4], sizeof(b[4]), 2, l->p99),
        num(b[5], sizeof(b[5]), 2, l->max), (unsigned long long)l->n);
}

void rpt_summary_print(FILE *fp, const struct cl_results *r)
{
    char b[4][32];

    fprintf(fp, "scenario %s, seed %llu\n",
            r->scenario_name ? r->scenario_name : "(unnamed)",
            (unsigned long long)r->seed);
    fprintf(fp, "\n");
    fprintf(fp, "%-16s%llu arrived, %llu completed, %llu dropped", "requests",
            (unsigned long long)r->requests_arrived,
            (unsigned long long)r->requests_completed,
            (unsigned long long)r->requests_dropped);
    if (r->preemptions > 0) /* the paged KV cache ran out */
        fprintf(fp, ", %llu preemptions", (unsigned long long)r->preemptions);
    fprintf(fp, "\n");
    if (r->prefix_lookup_blocks > 0) /* prefix caching on */
        fprintf(fp,
                "%-16s%s%% hit rate (%llu of %llu blocks: %llu hbm, %llu "
                "host, %llu remote)\n",
                "prefix cache",
                num(b[0], sizeof(b[0]), 2, 100.0 * r->prefix_hit_rate),
                (unsigned long long)(r->prefix_hits_gpu + r->prefix_hits_host +
                                     r->prefix_hits_remote),
                (unsigned long long)r->prefix_lookup_blocks,
                (unsigned long long)r->prefix_hits_gpu,
                (unsigned long long)r->prefix_hits_host,
                (unsigned long long)r->prefix_hits_remote);
    if (r->kv_offload_bytes > 0 || r->kv_fetch_bytes > 0 ||
        r->kv_fetch_remote_bytes > 0)
        fprintf(fp,
                "%-16s%s GB offloaded, %s GB fetched from host, %s GB from "
                "remote\n",
                "kv offload",
                num(b[0], sizeof(b[0]), 2, (double)r->kv_offload_bytes * 1e-9),
                num(b[1], sizeof(b[1]), 2, (double)r->kv_fetch_bytes * 1e-9),
                num(b[2], sizeof(b[2]), 2,
                    (double)r->kv_fetch_remote_bytes * 1e-9));
    if (r->swaps_out > 0 || r->swap_fallbacks > 0)
        fprintf(fp,
                "%-16s%llu out, %llu in, %s GB, %llu recomputed (swap "
                "space full)\n",
                "swaps", (unsigned long long)r->swaps_out,
                (unsigned long long)r->swaps_in,
                num(b[0], sizeof(b[0]), 2, (double)r->swap_bytes * 1e-9),
                (unsigned long long)r->swap_fallbacks);
    if (r->pd_transfers > 0)
        fprintf(fp,
                "%-16s%llu prefill->decode kv transfers, %s GB, mean %s ms\n",
                "disaggregation", (unsigned long long)r->pd_transfers,
                num(b[0], sizeof(b[0]), 2, (double)r->pd_bytes * 1e-9),
                num(b[1], sizeof(b[1]), 3, r->pd_transfer_ms_mean));
    if (r->kv_transfer_s > 0)
        fprintf(fp, "%-16s%s s of iterations waiting for kv transfers\n",
                "kv transfers", num(b[0], sizeof(b[0]), 3, r->kv_transfer_s));
    fprintf(fp, "%-16s%llu input, %llu output (completed requests)\n", "tokens",
            (unsigned long long)r->input_tokens,
            (unsigned long long)r->output_tokens);
    fprintf(fp, "\n");
    fprintf(fp, "%-8s%11s \xc2\xb1 %-8s%11s%11s%11s%11s%9s\n", "latency",
            "mean", "ci95", "p50", "p90", "p99", "max", "n");
    print_latency(fp, "TTFT", &r->ttft_ms);
    print_latency(fp, "TPOT", &r->tpot_ms);
    print_latency(fp, "E2E", &r->e2e_ms);
    print_latency(fp, "queue", &r->queue_ms);
    fprintf(fp,
            "%-8s(ms; ci95 is the half-width of the 95%% confidence "
            "interval of the mean)\n",
            "");
    for (int i = 0; i < r->nclasses; i++) {
        const struct cl_class_result *c = &r->classes[i];
        char b5[4][32];
        fprintf(fp,
                "  class %s (priority %d): TTFT mean %s, p50 %s, p99 %s ms; "
                "E2E p99 %s ms; SLO %s%%; n %llu\n",
                c->name, c->priority,
                num(b5[0], sizeof(b5[0]), 2, c->ttft_mean_ms),
                num(b5[1], sizeof(b5[1]), 2, c->ttft_p50_ms),
                num(b5[2], sizeof(b5[2]), 2, c->ttft_p99_ms),
                num(b5[3], sizeof(b5[3]), 2, c->e2e_p99_ms),
                num(b[0], sizeof(b[0]), 2, 100.0 * c->slo_attainment),
                (unsigned long long)c->completed);
    }
    fprintf(fp, "\n");
    fprintf(fp, "%-16s%s tokens/s, %s requests/s\n", "throughput",
            num(b[0], sizeof(b[0]), 2, r->throughput_tokens_per_s),
            num(b[1], sizeof(b[1]), 2, r->requests_per_s));
    fprintf(fp,
            "%-16smin %d, mean %s, max %d; %llu scale events, "
            "%d GPUs each\n",
            "replicas", r->replicas_min,
            num(b[0], sizeof(b[0]), 2, r->replicas_mean), r->replicas_max,
            (unsigned long long)r->scale_events, r->gpus_per_replica);
    if (r->policy != NULL || r->failures > 0)
        fprintf(fp,
                "%-16spolicy %s; %llu cold starts, %llu failures, "
                "%llu requests retried, recovery %s s\n",
                "scaling", r->policy ? r->policy : "none (static)",
                (unsigned long long)r->cold_starts,
                (unsigned long long)r->failures,
                (unsigned long long)r->requests_retried,
                num(b[0], sizeof(b[0]), 1, r->recovery_s_mean));
    fprintf(fp, "%-16s%s\n", "GPU-hours",
            num(b[0], sizeof(b[0]), 2, r->gpu_hours));
    if (r->npools > 1 || r->borrowed_gpu_hours > 0 ||
        r->gpu_hours_by_state[CL_GS_PROVISIONING] > 0) {
        fprintf(fp, "%-16s", "  by state");
        for (int st = 0; st < CL_GS_COUNT; st++)
            fprintf(fp, "%s%s %s", st ? ", " : "", cl_gpu_state_name(st),
                    num(b[0], sizeof(b[0]), 2, r->gpu_hours_by_state[st]));
        fprintf(fp, "\n");
        for (int i = 0; i < r->npools; i++) {
            const struct cl_pool_result *p = &r->pools[i];
            fprintf(fp, "  pool %-10s%s GPU-hours%s, $%s at $%s/GPU-h%s\n",
                    p->name, num(b[0], sizeof(b[0]), 2, p->gpu_hours_paid),
                    p->reserved ? " (reserved)" : "",
                    num(b[1], sizeof(b[1]), 2, p->cost_usd),
                    num(b[2], sizeof(b[2]), 2, p->price_usd_per_gpu_hour),
                    p->borrowable ? ", borrowed" : "");
        }
    }
    if (r->npools > 1)
        fprintf(fp, "%-16s$%s\n", "cost",
                num(b[0], sizeof(b[0]), 2, r->cost_usd));
    else
        fprintf(fp, "%-16s$%s at $%s per GPU-hour\n", "cost",
                num(b[0], sizeof(b[0]), 2, r->cost_usd),
                num(b[1], sizeof(b[1]), 2, r->price_usd_per_gpu_hour));
    if (isnan(r->slo_attainment))
        fprintf(fp, "%-16sn/a (no SLO set)\n", "SLO attainment");
    else
        fprintf(fp, "%-16s%.2f%%\n", "SLO attainment",
                100.0 * r->slo_attainment);
    fprintf(fp, "%-16smean length %s, arrivals %s/s, utilization %s\n", "queue",
            num(b[0], sizeof(b[0]), 2, r->queue_len_mean),
            num(b[1], sizeof(b[1]), 2, r->arrival_rate_per_s),
            num(b[2], sizeof(b[2]), 2, r->utilization));
    fprintf(fp, "\n");
    fprintf(fp, "%-16s%s s, %llu events\n", "simulated time",
            num(b[0], sizeof(b[0]), 2, r->sim_time_s),
            (unsigned long long)r->sim_events);
    fprintf(fp, "%-16s%s s, %s events/s\n", "wall time",
            num(b[0], sizeof(b[0]), 2, r->wall_s),
            num(b[1], sizeof(b[1]), 0, r->events_per_s));
    for (int i = 0; i < r->nnotes; i++)
        fprintf(fp, "note: %s\n", r->notes[i]);
}

/* A JSON number with the shortest of 15 to 17 significant digits that reads
 * back as v, or null for NAN and infinities, which JSON cannot hold. */
static struct json_object *jdouble(double v);

/* Prefix cache, offload and swap counters (docs/serving.md). */
static struct json_object *jkv(const struct cl_results *r)
{
    struct json_object *o = json_object_new_object();
    const struct {
        const char *key;
        uint64_t v;
    } u[] = {
        {"prefix_lookup_blocks", r->prefix_lookup_blocks},
        {"prefix_hits_hbm", r->prefix_hits_gpu},
        {"prefix_hits_host", r->prefix_hits_host},
        {"prefix_hits_remote", r->prefix_hits_remote},
        {"offload_bytes", r->kv_offload_bytes},
        {"offload_remote_bytes", r->kv_offload_remote_bytes},
        {"fetch_bytes", r->kv_fetch_bytes},
        {"fetch_remote_bytes", r->kv_fetch_remote_bytes},
        {"swaps_out", r->swaps_out},
        {"swaps_in", r->swaps_in},
        {"swap_bytes", r->swap_bytes},
        {"swap_fallbacks", r->swap_fallbacks},
    };
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        json_object_object_add(o, u[i].key, json_object_new_uint64(u[i].v));
    json_object_object_add(o, "transfer_s", jdouble(r->kv_transfer_s));
    json_object_object_add(o, "pd_transfers",
                           json_object_new_uint64(r->pd_transfers));
    json_object_object_add(o, "pd_bytes", json_object_new_uint64(r->pd_bytes));
    json_object_object_add(o, "pd_transfer_ms_mean",
                           jdouble(r->pd_transfer_ms_mean));
    return o;
}

/* Per priority class TTFT, E2E and SLO (workload.priority_classes). */
static struct json_object *jclasses(const struct cl_results *r)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; i < r->nclasses; i++) {
        const struct cl_class_result *c = &r->classes[i];
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(c->name));
        json_object_object_add(o, "priority", json_object_new_int(c->priority));
        json_object_object_add(o, "completed",
                               json_object_new_uint64(c->completed));
        json_object_object_add(o, "ttft_mean_ms", jdouble(c->ttft_mean_ms));
        json_object_object_add(o, "ttft_p50_ms", jdouble(c->ttft_p50_ms));
        json_object_object_add(o, "ttft_p99_ms", jdouble(c->ttft_p99_ms));
        json_object_object_add(o, "e2e_p99_ms", jdouble(c->e2e_p99_ms));
        json_object_object_add(o, "slo_attainment", jdouble(c->slo_attainment));
        json_object_array_add(a, o);
    }
    return a;
}

static struct json_object *jdouble(double v)
{
    char buf[40];

    if (!isfinite(v))
        return NULL;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return json_object_new_double_s(v, buf);
}

static struct json_object *jlatency(const struct cl_latency *l)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "mean", jdouble(l->mean));
    json_object_object_add(o, "ci95", jdouble(l->ci95));
    json_object_object_add(o, "p50", jdouble(l->p50));
    json_object_object_add(o, "p90", jdouble(l->p90));
    json_object_object_add(o, "p99", jdouble(l->p99));
    json_object_object_add(o, "max", jdouble(l->max));
    json_object_object_add(o, "n", json_object_new_uint64(l->n));
    return o;
}

static struct json_object *jstates(const double *hours)
{
    struct json_object *o = json_object_new_object();
    for (int st = 0; st < CL_GS_COUNT; st++)
        json_object_object_add(o, cl_gpu_state_name(st), jdouble(hours[st]));
    return o;
}

static struct json_object *jpools(const struct cl_results *r)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; i < r->npools; i++) {
        const struct cl_pool_result *p = &r->pools[i];
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(p->name));
        json_object_object_add(o, "gpu", json_object_new_string(p->gpu));
        json_object_object_add(o, "capacity_gpus",
                               json_object_new_int(p->capacity_gpus));
        json_object_object_add(o, "borrowable",
                               json_object_new_boolean(p->borrowable));
        json_object_object_add(o, "reserved",
                               json_object_new_boolean(p->reserved));
        json_object_object_add(o, "price_usd_per_gpu_hour",
                               jdouble(p->price_usd_per_gpu_hour));
        json_object_object_add(o, "gpu_hours_by_state",
                               jstates(p->gpu_hours_by_state));
        json_object_object_add(o, "gpu_hours_used", jdouble(p->gpu_hours_used));
        json_object_object_add(o, "gpu_hours_paid", jdouble(p->gpu_hours_paid));
        json_object_object_add(o, "cost_usd", jdouble(p->cost_usd));
        json_object_object_add(o, "replicas_started",
                               json_object_new_uint64(p->replicas_started));
        json_object_array_add(a, o);
    }
    return a;
}

char *rpt_summary_json(const struct cl_results *r, int pretty)
{
    struct json_object *o = json_object_new_object();
    struct json_object *rep = json_object_new_object();
    struct json_object *notes = json_object_new_array();
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                        : JSON_C_TO_STRING_PLAIN);
    char *s;

    /* json-c keeps members in insertion order, so the order here is the
     * order printed. */
    json_object_object_add(
        o, "scenario",
        r->scenario_name ? json_object_new_string(r->scenario_name) : NULL);
    json_object_object_add(o, "seed", json_object_new_uint64(r->seed));
    json_object_object_add(o, "ttft_ms", jlatency(&r->ttft_ms));
    json_object_object_add(o, "tpot_ms", jlatency(&r->tpot_ms));
    json_object_object_add(o, "e2e_ms", jlatency(&r->e2e_ms));
    json_object_object_add(o, "queue_ms", jlatency(&r->queue_ms));
    json_object_object_add(o, "requests_arrived",
                           json_object_new_uint64(r->requests_arrived));
    json_object_object_add(o, "requests_completed",
                           json_object_new_uint64(r->requests_completed));
    json_object_object_add(o, "requests_dropped",
                           json_object_new_uint64(r->requests_dropped));
    json_object_object_add(o, "input_tokens",
                           json_object_new_uint64(r->input_tokens));
    json_object_object_add(o, "output_tokens",
                           json_object_new_uint64(r->output_tokens));
    json_object_object_add(o, "throughput_tokens_per_s",
                           jdouble(r->throughput_tokens_per_s));
    json_object_object_add(o, "requests_per_s", jdouble(r->requests_per_s));
    json_object_object_add(o, "gpu_hours", jdouble(r->gpu_hours));
    json_object_object_add(o, "cost_usd", jdouble(r->cost_usd));
    json_object_object_add(o, "price_usd_per_gpu_hour",
                           jdouble(r->price_usd_per_gpu_hour));
    json_object_object_add(o, "gpus_per_replica",
                           json_object_new_int(r->gpus_per_replica));
    json_object_object_add(o, "slo_attainment", jdouble(r->slo_attainment));
    json_object_object_add(rep, "min", json_object_new_int(r->replicas_min));
    json_object_object_add(rep, "max", json_object_new_int(r->replicas_max));
    json_object_object_add(rep, "mean", jdouble(r->replicas_mean));
    json_object_object_add(o, "replicas", rep);
    json_object_object_add(o, "scale_events",
                           json_object_new_uint64(r->scale_events));
    json_object_object_add(
        o, "policy", r->policy ? json_object_new_string(r->policy) : NULL);
    json_object_object_add(o, "cold_starts",
                           json_object_new_uint64(r->cold_starts));
    json_object_object_add(o, "failures", json_object_new_uint64(r->failures));
    json_object_object_add(o, "requests_retried",
                           json_object_new_uint64(r->requests_retried));
    json_object_object_add(o, "preemptions",
                           json_object_new_uint64(r->preemptions));
    json_object_object_add(o, "prefix_hit_rate", jdouble(r->prefix_hit_rate));
    json_object_object_add(o, "kv", jkv(r));
    if (r->nclasses > 0)
        json_object_object_add(o, "priority_classes", jclasses(r));
    json_object_object_add(o, "recovery_s_mean", jdouble(r->recovery_s_mean));
    json_object_object_add(o, "borrowed_gpu_hours",
                           jdouble(r->borrowed_gpu_hours));
    json_object_object_add(o, "gpu_hours_by_state",
                           jstates(r->gpu_hours_by_state));
    json_object_object_add(o, "pools", jpools(r));
    json_object_object_add(o, "queue_len_mean", jdouble(r->queue_len_mean));
    json_object_object_add(o, "arrival_rate_per_s",
                           jdouble(r->arrival_rate_per_s));
    json_object_object_add(o, "utilization", jdouble(r->utilization));
    json_object_object_add(o, "sim_events",
                           json_object_new_uint64(r->sim_events));
    json_object_object_add(o, "sim_time_s", jdouble(r->sim_time_s));
    json_object_object_add(o, "wall_s", jdouble(r->wall_s));
    json_object_object_add(o, "events_per_s", jdouble(r->events_per_s));
    for (int i = 0; i < r->nnotes; i++)
        json_object_array_add(notes, json_object_new_string(r->notes[i]));
    json_object_object_add(o, "notes", notes);

    s = xstrdup(json_object_to_json_string_ext(o, flags));
    json_object_put(o);
    return s;
}

static struct json_object *jreplica(const struct cl_results *r,
                                    const struct cl_replica_row *x)
{
    struct json_object *o = json_object_new_object();
    const char *pool =
        x->pool >= 0 && x->pool < r->npools ? r->pools[x->pool].name : "?";

    json_object_object_add(o, "t_start_s",
                           jdouble((double)x->t_start_ns / 1e9));
    json_object_object_add(o, "t_end_s", jdouble((double)x->t_end_ns / 1e9));
    json_object_object_add(o, "replica", json_object_new_uint64(x->replica));
    json_object_object_add(o, "pool", json_object_new_string(pool));
    json_object_object_add(
        o, "state", json_object_new_string(cl_replica_state_name(x->state)));
    json_object_object_add(o, "num_requests_running_mean",
                           jdouble(x->num_requests_running));
    json_object_object_add(o, "num_requests_waiting_mean",
                           jdouble(x->num_requests_waiting));
    json_object_object_add(o, "num_requests_running",
                           json_object_new_int64(x->num_requests_running_end));
    json_object_object_add(o, "num_requests_waiting",
                           json_object_new_int64(x->num_requests_waiting_end));
    json_object_object_add(o, "kv_cache_usage_perc_mean",
                           jdouble(x->kv_cache_usage_perc));
    json_object_object_add(o, "kv_cache_usage_perc",
                           jdouble(x->kv_cache_usage_perc_end));
    json_object_object_add(o, "prefix_cache_hit_rate",
                           jdouble(x->prefix_cache_hit_rate));
    json_object_object_add(o, "prompt_tokens",
                           json_object_new_uint64(x->prompt_tokens));
    json_object_object_add(o, "generation_tokens",
                           json_object_new_uint64(x->generation_tokens));
    json_object_object_add(o, "request_success",
                           json_object_new_uint64(x->request_success));
    return o;
}

char *rpt_summary_json_replicas(const struct cl_results *r, int pretty)
{
    /* The summary object is parsed back rather than rebuilt, so that the
     * two outputs cannot drift apart; the cost is one parse per run. */
    char *base = rpt_summary_json(r, 0);
    struct json_object *o = json_tokener_parse(base);
    struct json_object *a = json_object_new_array();
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                        : JSON_C_TO_STRING_PLAIN);
    char *s;

    free(base);
    if (o == NULL)
        sim_fatal("rpt_summary_json_replicas: cannot parse the summary");
    for (size_t i = 0; i < r->nreplica_series; i++)
        json_object_array_add(a, jreplica(r, &r->replica_series[i]));
    json_object_object_add(o, "replica_series", a);
    s = xstrdup(json_object_to_json_string_ext(o, flags));
    json_object_put(o);
    return s;
}
