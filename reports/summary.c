/* Summary table and JSON. The JSON object walks the field lists of
 * models/cluster/results-fields.h, so a field added there is printed without
 * code here; the table is laid out by hand for people, but for its latency
 * rows, one per listed latency. The JSON is built with json-c, never by
 * hand, and doubles are given their text by rpt_json_double (reports/fmt.h)
 * instead of through json-c's process-wide format setting, which would be
 * global state; the shortest exact form keeps 0.1 as "0.1" rather than
 * %.17g's "0.10000000000000001" and is still a pure function of the
 * value. */
#include "reports/summary.h"

#include "models/cluster/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/xalloc.h"
#include "reports/fmt.h"

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

/* One row per load stage: every request of the stage, warm-up included. */
static void print_stages(FILE *fp, const struct cl_results *r)
{
    char b[9][32];

    fprintf(fp, "\n%-6s%9s%9s%6s%6s%10s%10s%9s%9s%9s%9s%9s\n", "stage",
            "requests", "done", "t/o", "drop", "span s", "out tok/s",
            "TTFT p50", "TTFT p99", "TPOT", "ITL p99", "E2E p99");
    for (size_t i = 0; i < r->nstages; i++) {
        const struct cl_stage_row *st = &r->stages[i];
        fprintf(fp, "  %-4d%9llu%9llu%6llu%6llu%10s%10s%9s%9s%9s%9s%9s\n",
                st->stage, (unsigned long long)st->requests,
                (unsigned long long)st->completed,
                (unsigned long long)st->timeouts,
                (unsigned long long)st->dropped,
                num(b[0], sizeof(b[0]), 1,
                    (double)(st->span_end_ns - st->span_start_ns) * 1e-9),
                num(b[1], sizeof(b[1]), 1, st->output_tokens_per_s),
                num(b[2], sizeof(b[2]), 1, st->ttft_p50_ms),
                num(b[3], sizeof(b[3]), 1, st->ttft_p99_ms),
                num(b[4], sizeof(b[4]), 2, st->tpot_mean_ms),
                num(b[5], sizeof(b[5]), 2, st->itl_p99_ms),
                num(b[6], sizeof(b[6]), 1, st->e2e_p99_ms));
    }
    fprintf(fp,
            "%-6s(ms; every request of a stage, warm-up included; TPOT is "
            "the mean)\n",
            "");
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
    if (r->requests_timed_out > 0) /* workload.client.timeout */
        fprintf(fp, ", %llu timed out",
                (unsigned long long)r->requests_timed_out);
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
    if (r->kv_seq_host_bytes > 0 || r->kv_seq_remote_bytes > 0 ||
        r->kv_recompute_chosen > 0)
        fprintf(
            fp,
            "%-16s%llu preempted requests paused in host or remote "
            "memory, %llu recomputed (cheaper), %llu recomputed (tiers "
            "full); %s GB host, %s GB remote (both ways), %s s stalled "
            "on prefetch\n",
            "tiered kv", (unsigned long long)r->swaps_out,
            (unsigned long long)r->kv_recompute_chosen,
            (unsigned long long)r->swap_fallbacks,
            num(b[0], sizeof(b[0]), 2, (double)r->kv_seq_host_bytes * 1e-9),
            num(b[1], sizeof(b[1]), 2, (double)r->kv_seq_remote_bytes * 1e-9),
            num(b[2], sizeof(b[2]), 3, r->kv_stall_s));
    else if (r->swaps_out > 0 || r->swap_fallbacks > 0)
        fprintf(fp,
                "%-16s%llu out, %llu in, %s GB, %llu recomputed (swap "
                "space full)\n",
                "swaps", (unsigned long long)r->swaps_out,
                (unsigned long long)r->swaps_in,
                num(b[0], sizeof(b[0]), 2, (double)r->swap_bytes * 1e-9),
                (unsigned long long)r->swap_fallbacks);
    if (r->migrate_on)
        fprintf(fp,
                "%-16s%llu requests moved with their KV, %s GB, mean "
                "downtime %s ms, %llu drains with nowhere to move\n",
                "migration", (unsigned long long)r->migrations,
                num(b[0], sizeof(b[0]), 2, (double)r->migration_bytes * 1e-9),
                num(b[1], sizeof(b[1]), 3, r->migration_downtime_ms_mean),
                (unsigned long long)r->migration_fallbacks);
    if (r->migration_bytes_nvlink > 0 || r->migration_defrag > 0)
        fprintf(fp,
                "%-16s%s GB of them over NVLink inside a node, %llu moves to "
                "admit a waiting prompt (defrag)\n",
                "",
                num(b[0], sizeof(b[0]), 2,
                    (double)r->migration_bytes_nvlink * 1e-9),
                (unsigned long long)r->migration_defrag);
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
    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const struct cl_latency *l = cl_rfield_cptr(r, f);
        /* ITL exists only for an engine that streams tokens. */
        if (f->offset == offsetof(struct cl_results, itl_ms) && l->n == 0)
            continue;
        if (f->type == CL_RT_LATENCY && f->text != NULL)
            print_latency(fp, f->text, l);
    }
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
    if (r->nstages >= 2)
        print_stages(fp, r);
    fprintf(fp, "\n");
    fprintf(fp, "%-16s%s tokens/s, %s requests/s\n", "throughput",
            num(b[0], sizeof(b[0]), 2, r->throughput_tokens_per_s),
            num(b[1], sizeof(b[1]), 2, r->requests_per_s));
    fprintf(fp, "%-16smin %d, mean %s, max %d; %llu scale events", "replicas",
            r->replicas_min, num(b[0], sizeof(b[0]), 2, r->replicas_mean),
            r->replicas_max, (unsigned long long)r->scale_events);
    /* Under disaggregation each group has its own count, on the lines
     * below. */
    if (r->ngroups == 0)
        fprintf(fp, ", %d GPUs each", r->gpus_per_replica);
    fprintf(fp, "\n");
    for (int i = 0; i < r->ngroups; i++) {
        const struct cl_group_result *g = &r->groups[i];
        char span[64] = "";
        if (g->replicas_min != g->replicas || g->replicas_max != g->replicas)
            snprintf(span, sizeof(span), " (%d to %d)", g->replicas_min,
                     g->replicas_max);
        fprintf(fp,
                "  %-14s%d replica%s%s x %d GPUs (tp %d, ep %d, dp %d), %s "
                "GPU-hours\n",
                g->name, g->replicas, g->replicas == 1 ? "" : "s", span,
                g->gpus_per_replica, g->tp, g->ep, g->dp,
                num(b[0], sizeof(b[0]), 2, g->gpu_hours));
    }
    if (r->calibration != NULL)
        fprintf(fp, "%-16s%s%s%s%s\n", "calibration", r->calibration,
                r->calibration_sha256 ? " (sha256 " : "",
                r->calibration_sha256 ? r->calibration_sha256 : "",
                r->calibration_sha256 ? ")" : "");
    if (r->policy != NULL || r->failures > 0)
        fprintf(fp,
                "%-16spolicy %s; %llu cold starts, %llu failures, "
                "%llu requests retried, recovery %s s\n",
                "scaling", r->policy ? r->policy : "none (static)",
                (unsigned long long)r->cold_starts,
                (unsigned long long)r->failures,
                (unsigned long long)r->requests_retried,
                num(b[0], sizeof(b[0]), 1, r->recovery_s_mean));
    if (r->cold_start_waits > 0)
        fprintf(fp,
                "%-16s%llu requests arrived with no replica serving, "
                "waiting %s s on average for one\n",
                "cold waits", (unsigned long long)r->cold_start_waits,
                num(b[0], sizeof(b[0]), 1, r->cold_start_wait_s_mean));
    if (r->reclaims > 0)
        fprintf(fp,
                "%-16s%llu claims: %llu replicas (%llu GPUs) given notice, "
                "%llu handed back busy, %llu requests restarted, %s KV "
                "tokens lost%s\n",
                "reclaims", (unsigned long long)r->reclaims,
                (unsigned long long)r->reclaim_replicas,
                (unsigned long long)r->reclaim_gpus,
                (unsigned long long)r->reclaim_handed_back,
                (unsigned long long)r->reclaim_requests_restarted,
                num(b[0], sizeof(b[0]), 0, r->reclaim_kv_tokens_lost),
                r->reclaim_late_gpus > 0 ? "; GPUs kept past notice!" : "");
    if (r->interruptions > 0)
        fprintf(fp,
                "%-16s%llu (%llu GPUs), %llu handed back busy, %llu requests "
                "restarted, %s KV tokens lost%s\n",
                "interruptions", (unsigned long long)r->interruptions,
                (unsigned long long)r->interruption_gpus,
                (unsigned long long)r->interruption_handed_back,
                (unsigned long long)r->interruption_requests_restarted,
                num(b[0], sizeof(b[0]), 0, r->interruption_kv_tokens_lost),
                r->interruption_late_gpus > 0 ? "; GPUs kept past notice!"
                                              : "");
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

static struct json_object *jrecord(const struct cl_rfield *fields, int n,
                                   const void *rec, const struct cl_results *r);

/* The elements of array field f of r as a JSON array. */
static struct json_object *jarray(const struct cl_rfield *f,
                                  const struct cl_results *r)
{
    struct json_object *a = json_object_new_array();
    const struct cl_relem *e = cl_rfield_elem(f);
    const char *v = cl_rfield_array(f, r);
    size_t n = cl_rfield_count(f, r);

    for (size_t k = 0; k < n; k++) {
        if (f->type == CL_RT_NOTES)
            json_object_array_add(
                a, json_object_new_string(((char *const *)(const void *)v)[k]));
        else if (e->fields != NULL)
            json_object_array_add(
                a, jrecord(e->fields, e->nfields, v + k * e->size, r));
    }
    return a;
}

/* The JSON value of field f of the record rec, a part of r (which names
 * the pools). */
static struct json_object *jvalue(const struct cl_rfield *f, const void *rec,
                                  const struct cl_results *r)
{
    const void *p = cl_rfield_cptr(rec, f);

    switch (f->type) {
    case CL_RT_U64:
    case CL_RT_SERIAL:
        return json_object_new_uint64(*(const uint64_t *)p);
    case CL_RT_I64:
        return json_object_new_int64(*(const int64_t *)p);
    case CL_RT_INT:
        return json_object_new_int(*(const int *)p);
    case CL_RT_BOOL:
        return json_object_new_boolean(*(const int *)p);
    case CL_RT_F64:
    case CL_RT_NS:
        return rpt_json_double(cl_rfield_get(f, rec, 0), RPT_JSON_SHORTEST);
    case CL_RT_STR: {
        const char *s = *(char *const *)p;
        return s != NULL ? json_object_new_string(s) : NULL;
    }
    case CL_RT_POOL: {
        int i = *(const int *)p;
        return json_object_new_string(i >= 0 && i < r->npools ? r->pools[i].name
                                                              : "?");
    }
    case CL_RT_RSTATE:
        return json_object_new_string(cl_replica_state_name(*(const int *)p));
    case CL_RT_LATENCY:
        return jrecord(cl_latency_fields, CL_LATENCY_NFIELDS, p, r);
    case CL_RT_STATES: {
        struct json_object *o = json_object_new_object();
        for (int st = 0; st < CL_GS_COUNT; st++)
            json_object_object_add(
                o, cl_gpu_state_name(st),
                rpt_json_double(((const double *)p)[st], RPT_JSON_SHORTEST));
        return o;
    }
    default:
        return jarray(f, r);
    }
}

/* The fields of rec that have a JSON member, as one object. */
static struct json_object *jrecord(const struct cl_rfield *fields, int n,
                                   const void *rec, const struct cl_results *r)
{
    struct json_object *o = json_object_new_object();

    for (int i = 0; i < n; i++)
        if (fields[i].json != NULL)
            json_object_object_add(o, fields[i].json,
                                   jvalue(&fields[i], rec, r));
    return o;
}

/* The summary object, with the per-replica series when replicas is set.
 * json-c keeps members in insertion order, so the list's order is the
 * order printed; a member "a.b" goes into the object a, created where its
 * first member is listed. */
static struct json_object *jsummary(const struct cl_results *r, int replicas)
{
    struct json_object *o = json_object_new_object();

    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        struct json_object *parent = o;
        const char *key = f->json, *dot;

        if (key == NULL || (f->type == CL_RT_CLASSES && r->nclasses == 0) ||
            (f->type == CL_RT_GROUPS && r->ngroups == 0) ||
            (f->type == CL_RT_REPLICAS && !replicas) || cl_rfield_omitted(f, r))
            continue;
        dot = strchr(key, '.');
        if (dot != NULL) {
            char group[64];
            snprintf(group, sizeof(group), "%.*s", (int)(dot - key), key);
            if (!json_object_object_get_ex(o, group, &parent)) {
                parent = json_object_new_object();
                json_object_object_add(o, group, parent);
            }
            key = dot + 1;
        }
        json_object_object_add(parent, key, jvalue(f, r, r));
    }
    return o;
}

static char *jstring(struct json_object *o, int pretty)
{
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                        : JSON_C_TO_STRING_PLAIN);
    char *s = xstrdup(json_object_to_json_string_ext(o, flags));

    json_object_put(o);
    return s;
}

char *rpt_summary_json(const struct cl_results *r, int pretty)
{
    return jstring(jsummary(r, 0), pretty);
}

char *rpt_summary_json_replicas(const struct cl_results *r, int pretty)
{
    return jstring(jsummary(r, 1), pretty);
}

void rpt_pi_print(FILE *fp, const struct cl_pi *pi, const struct cl_results *r)
{
    char b[4][32];

    fprintf(fp,
            "\nprediction intervals (%.0f %%, %d draws of %d calibrated "
            "parameters%s,\non the run's seed; the ci95 above is seed noise "
            "only, these are the calibration's uncertainty):\n",
            100 * pi->level, pi->n, pi->nparams,
            pi->structural ? " and the profile's structural error" : "");
    fprintf(fp, "  %-16s %12s %12s %27s\n", "", "this run", "median",
            "interval");
    for (int m = 0; m < CL_PI_N; m++) {
        double v = cl_pi_value(r, (enum cl_pi_metric)m);
        int d = m == CL_PI_SLO ? 4 : 2;
        if (isnan(pi->lo[m]) && isnan(v))
            continue;
        fprintf(fp, "  %-16s %12s %12s   [%s, %s] %s\n", cl_pi_text[m],
                num(b[0], sizeof(b[0]), d, v),
                num(b[1], sizeof(b[1]), d, pi->median[m]),
                num(b[2], sizeof(b[2]), d, pi->lo[m]),
                num(b[3], sizeof(b[3]), d, pi->hi[m]), cl_pi_unit[m]);
    }
}

struct json_object *rpt_pi_json(const struct cl_pi *pi)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "level", json_object_new_double(pi->level));
    json_object_object_add(o, "n", json_object_new_int(pi->n));
    json_object_object_add(o, "params", json_object_new_int(pi->nparams));
    json_object_object_add(o, "structural",
                           json_object_new_boolean(pi->structural));
    for (int m = 0; m < CL_PI_N; m++) {
        struct json_object *a;
        if (isnan(pi->lo[m])) {
            json_object_object_add(o, cl_pi_json[m], NULL);
            continue;
        }
        a = json_object_new_array();
        json_object_array_add(a, rpt_json_double(pi->lo[m], RPT_JSON_SHORTEST));
        json_object_array_add(a, rpt_json_double(pi->hi[m], RPT_JSON_SHORTEST));
        json_object_object_add(o, cl_pi_json[m], a);
    }
    return o;
}
