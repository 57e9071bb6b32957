/*
 * workload.vllm_bench: the requests of `vllm bench serve` (vllm-project/
 * vllm benchmarks/serve.py and benchmarks/datasets.py), from its options
 * without dashes (docs/workloads.md).
 *
 * Arrivals, as serve.py's get_request: N = num_prompts requests; with
 * request_rate inf all at t = 0, else gaps g_1..g_N drawn from
 * Gamma(shape = burstiness, scale = 1/(rate x burstiness)) (mean 1/rate,
 * CV 1/sqrt(burstiness); stream "arrivals"), accumulated and rescaled so
 * that the last request is sent at N / rate, as get_request does
 * (normalize_factor = target_total_delay_s / delay_ts[-1]): request i at
 * (g_1 + ... + g_i) / (g_1 + ... + g_N) x N / rate. The sum is taken at
 * open on a copy of the stream (gsl_rng_clone), which then draws the same
 * values again: O(N) extra draws, no memory.
 *
 * Lengths. dataset random, as RandomDataset: input length uniform over the
 * integers [floor(L_in (1 - r)), ceil(L_in (1 + r))], output over
 * [max(1, floor(L_out (1 - r))), ceil(L_out (1 + r))] (gsl_rng_uniform_int,
 * streams "prompt_tokens", "output_tokens"); prompt = random_prefix_len +
 * input length (at least 1). vLLM first subtracts the tokenizer's special
 * tokens from L_in; dsec has no tokenizer and does not. Block hashes when
 * random_prefix_len > 0: a block wholly inside the prefix hashes (shared,
 * 0, i), every other block (request n, i) through wl__bench_hash(). dataset
 * lengths: the prompt_tokens and output_tokens distributions (dist.h),
 * rounded, no hashes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/workload/dist.h"
#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sim/time.h"

struct wl__vllm_bench {
    int64_t num;     /* N */
    int64_t emitted; /* requests sent */
    int inf_rate;    /* request_rate inf: every arrival at 0 */
    double shape, scale_s;
    double sum, cum; /* sum of the N gaps, running sum */
    int64_t span_ns; /* N / rate */
    int64_t now_ns;
    int dataset; /* enum cl_vb_dataset */
    int64_t in_lo, in_hi, out_lo, out_hi, prefix;
    struct wl_dist prompt, output;           /* dataset lengths */
    gsl_rng *arrivals, *r_prompt, *r_output; /* borrowed */
    uint64_t *hashes;                        /* owned */
    int maxblocks;
};

static void vb_close(void *state)
{
    struct wl__vllm_bench *s = state;

    if (s == NULL)
        return;
    free(s->hashes);
    free(s);
}

static void *vb_open(const struct cl_workload *cfg, const char *path,
                     struct sim_loop *loop, struct sim_diag *d)
{
    const struct cl_vllm_bench *c = &cfg->vllm_bench;
    struct wl__vllm_bench s = {0}, *p;

    (void)path;
    if (c->num_prompts < 1 || c->num_prompts > INT64_C(1000000000000) ||
        !(c->request_rate > 0) || !(c->burstiness > 0) ||
        !isfinite(c->burstiness)) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.vllm_bench: expected num_prompts in [1, "
                       "1e12], request_rate > 0 (or inf) and burstiness > "
                       "0, got %lld, %g and %g",
                       (long long)c->num_prompts, c->request_rate,
                       c->burstiness);
        return NULL;
    }
    s.num = c->num_prompts;
    s.inf_rate = isinf(c->request_rate);
    if (!s.inf_rate) {
        double span = (double)s.num / c->request_rate * 1e9;
        if (!(span < 9.2e18)) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.vllm_bench: num_prompts / request_rate "
                           "= %g s is too long",
                           span * 1e-9);
            return NULL;
        }
        s.span_ns = (int64_t)llround(span);
        s.shape = c->burstiness;
        s.scale_s = 1.0 / (c->request_rate * c->burstiness);
    }
    s.dataset = c->dataset;
    switch (c->dataset) {
    case CL_VB_RANDOM: {
        double r = c->random_range_ratio;
        if (!(r >= 0 && r < 1) || c->random_input_len < 1 ||
            c->random_input_len > 1000000000 || c->random_output_len < 1 ||
            c->random_output_len > 1000000000 || c->random_prefix_len < 0 ||
            c->random_prefix_len > 1000000000) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.vllm_bench: expected random_range_ratio "
                           "in [0, 1), random_input_len and random_output_len "
                           "in [1, 1e9], random_prefix_len in [0, 1e9]");
            return NULL;
        }
        /* The same double arithmetic as datasets.py's math.floor and
         * math.ceil of len * (1 -/+ ratio). */
        s.in_lo = (int64_t)floor((double)c->random_input_len * (1.0 - r));
        s.in_hi = (int64_t)ceil((double)c->random_input_len * (1.0 + r));
        s.out_lo = (int64_t)floor((double)c->random_output_len * (1.0 - r));
        s.out_hi = (int64_t)ceil((double)c->random_output_len * (1.0 + r));
        if (s.out_lo < 1)
            s.out_lo = 1;
        s.prefix = c->random_prefix_len;
        if (s.prefix > 0) {
            int64_t nb = (s.prefix + s.in_hi + WL_BENCH_BLOCK_TOKENS - 1) /
                         WL_BENCH_BLOCK_TOKENS;
            s.maxblocks = nb > WL_BLOCKS_MAX ? WL_BLOCKS_MAX : (int)nb;
        }
        break;
    }
    case CL_VB_LENGTHS:
        if (wl_dist_init(&s.prompt, &c->prompt_tokens,
                         "workload.vllm_bench.prompt_tokens", d) != 0 ||
            wl_dist_init(&s.output, &c->output_tokens,
                         "workload.vllm_bench.output_tokens", d) != 0)
            return NULL;
        break;
    default:
        sim_diag_error(d, NULL, 0, 0,
                       "workload.vllm_bench.dataset: unknown dataset %d; "
                       "valid: lengths, random",
                       c->dataset);
        return NULL;
    }
    s.arrivals = sim_loop_stream(loop, "arrivals");
    s.r_prompt = sim_loop_stream(loop, "prompt_tokens");
    s.r_output = sim_loop_stream(loop, "output_tokens");
    if (!s.inf_rate) {
        gsl_rng *copy = gsl_rng_clone(s.arrivals);
        for (int64_t i = 0; i < s.num; i++)
            s.sum += gsl_ran_gamma(copy, s.shape, s.scale_s);
        gsl_rng_free(copy);
    }
    if (s.maxblocks > 0)
        s.hashes = xmalloc((size_t)s.maxblocks * sizeof(*s.hashes));
    p = xmalloc(sizeof(*p));
    *p = s;
    return p;
}

/* A uniform integer in [lo, hi]. */
static int64_t uniform_int(gsl_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)gsl_rng_uniform_int(r, (unsigned long)(hi - lo + 1));
}

static int vb_next(void *state, struct wl_request *out, struct sim_diag *d)
{
    struct wl__vllm_bench *s = state;
    int64_t t = 0;

    (void)d;
    if (s->emitted >= s->num)
        return SIM_EEOF;
    if (!s->inf_rate) {
        s->cum += gsl_ran_gamma(s->arrivals, s->shape, s->scale_s);
        if (s->emitted + 1 == s->num || !(s->sum > 0))
            t = s->span_ns;
        else
            t = llround((double)s->span_ns * (s->cum / s->sum));
        if (t > s->span_ns)
            t = s->span_ns;
        if (t < s->now_ns)
            t = s->now_ns;
    }
    s->now_ns = t;
    out->arrival_ns = t;
    if (s->dataset == CL_VB_LENGTHS) {
        out->prompt_tokens =
            wl__tokens_round(wl_dist_draw(&s->prompt, s->r_prompt));
        out->output_tokens =
            wl__tokens_round(wl_dist_draw(&s->output, s->r_output));
    } else {
        int64_t in = uniform_int(s->r_prompt, s->in_lo, s->in_hi);
        out->prompt_tokens = s->prefix + in >= 1 ? s->prefix + in : 1;
        out->output_tokens = uniform_int(s->r_output, s->out_lo, s->out_hi);
    }
    if (s->maxblocks > 0) {
        int64_t nb = (out->prompt_tokens + WL_BENCH_BLOCK_TOKENS - 1) /
                     WL_BENCH_BLOCK_TOKENS;
        int n = nb > s->maxblocks ? s->maxblocks : (int)nb;
        for (int i = 0; i < n; i++) {
            int shared = (int64_t)(i + 1) * WL_BENCH_BLOCK_TOKENS <= s->prefix;
            s->hashes[i] =
                wl__bench_hash(shared, shared ? 0 : (uint64_t)s->emitted, i);
        }
        out->block_hashes = s->hashes;
        out->nblocks = n;
        out->block_tokens = WL_BENCH_BLOCK_TOKENS;
    }
    s->emitted++;
    return 0;
}

static int vb_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_VLLM_BENCH;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = vb_match,
    .open = vb_open,
    .next = vb_next,
    .close = vb_close,
};

const struct wl__format wl__format_vllm_bench = {
    .name = "vllm_bench",
    .summary = "the requests of vllm bench serve (vllm-project/vllm "
               "benchmarks/serve.py get_request: gamma gaps of shape "
               "burstiness; datasets.py RandomDataset lengths)",
    .flags = WL_FMT_LOOP,
    .ops = &ops,
};
