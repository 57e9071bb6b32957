/* Snapshot building shared by dsec and dsec-scaler; see snapshot.h. The
 * formulas are those of PromQL: rate = increase / span, a window mean is
 * increase(_sum) / increase(_count), and quantiles are
 * histogram_quantile() over the window's buckets (promhist.c). */
#include "models/policy/snapshot.h"

#include <math.h>
#include <string.h>

void pol_window_init(struct pol_window *w)
{
    memset(w, 0, sizeof(*w));
    pol_ph_init(&w->ttft, POL_PH_TTFT);
    pol_ph_init(&w->itl, POL_PH_ITL);
}

void pol_window_add(struct pol_window *out, const struct pol_window *a)
{
    out->arrivals += a->arrivals;
    out->arrival_prompt_tokens += a->arrival_prompt_tokens;
    out->arrival_output_tokens += a->arrival_output_tokens;
    out->completed += a->completed;
    out->prompt_tokens += a->prompt_tokens;
    out->output_tokens += a->output_tokens;
    pol_ph_merge(&out->ttft, &a->ttft);
    pol_ph_merge(&out->itl, &a->itl);
}

static double rate(double n, double span_s)
{
    return span_s > 0 ? n / span_s : NAN;
}

static double ph_mean(const struct pol_ph *h)
{
    return h->count ? h->sum / (double)h->count : NAN;
}

void pol_snapshot_fill_window(struct pol_snapshot *s,
                              const struct pol_window *d)
{
    s->arrival_rate_per_s = rate(d->arrivals, d->span_s);
    s->mean_prompt_tokens =
        d->arrivals > 0 ? d->arrival_prompt_tokens / d->arrivals : NAN;
    s->mean_output_tokens =
        d->arrivals > 0 ? d->arrival_output_tokens / d->arrivals : NAN;
    s->output_tokens_per_s = rate(d->output_tokens, d->span_s);
    s->ttft_p50_s = pol_ph_quantile(&d->ttft, 0.5);
    s->ttft_p99_s = pol_ph_quantile(&d->ttft, 0.99);
    s->itl_p50_s = pol_ph_quantile(&d->itl, 0.5);
    s->itl_p99_s = pol_ph_quantile(&d->itl, 0.99);
    s->ttft_mean_s = ph_mean(&d->ttft);
    s->itl_mean_s = ph_mean(&d->itl);
}

void pol_replica_fill_window(struct pol_replica *r, const struct pol_window *d)
{
    r->ttft_p50_s = pol_ph_quantile(&d->ttft, 0.5);
    r->ttft_p99_s = pol_ph_quantile(&d->ttft, 0.99);
    r->itl_p50_s = pol_ph_quantile(&d->itl, 0.5);
    r->itl_p99_s = pol_ph_quantile(&d->itl, 0.99);
    r->ttft_mean_s = ph_mean(&d->ttft);
    r->itl_mean_s = ph_mean(&d->itl);
    r->prompt_tokens_per_s = rate(d->prompt_tokens, d->span_s);
    r->output_tokens_per_s = rate(d->output_tokens, d->span_s);
    r->requests_per_s = rate(d->completed, d->span_s);
}

void pol_snapshot_sum_gauges(struct pol_snapshot *s, int kv_divisor)
{
    double kv = 0;

    s->num_running = 0;
    s->num_waiting = 0;
    for (int i = 0; i < s->nreplicas; i++) {
        const struct pol_replica *r = &s->replicas[i];
        if (r->state != POL_RS_READY)
            continue;
        s->num_running += r->num_running;
        s->num_waiting += r->num_waiting;
        if (!isnan(r->kv_usage))
            kv += r->kv_usage;
    }
    s->kv_usage_mean = kv_divisor > 0 ? kv / kv_divisor : NAN;
}
