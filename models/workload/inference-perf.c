/*
 * workload.inference_perf: the requests a kubernetes-sigs/inference-perf
 * run sends, from the same configuration keys (docs/workloads.md).
 *
 * Load. Stage k occupies the nominal interval [D_k, D_k + d_k), D_k the sum
 * of the earlier stages' durations; every request carries stage = k, and
 * the cluster's client holds stage k + 1 until stage k has drained and
 * shifts it (models/cluster/client.c), so arrivals here are nominal.
 *   constant  exactly n_k = round(r_k d_k) requests: n_k exponential draws
 *             e_1..e_n (stream "arrivals") rescaled to sum to d_k, request
 *             j at D_k + d_k (e_1 + ... + e_j) / (e_1 + ... + e_n), so the
 *             last one arrives at the stage's end. The sum is needed before
 *             the first arrival: it is taken on a copy of the stream's
 *             state (gsl_rng_memcpy), which then draws the same values
 *             again, so each stage costs O(n_k) extra draws and no memory.
 *   poisson   exponential gaps of mean 1/r_k from D_k while the arrival is
 *             before D_k + d_k: a Poisson process on the stage (count
 *             random); the draw that passes the end is dropped.
 * Data.
 *   shared_prefix  G = num_groups system prompts of S tokens, each with
 *             P = num_prompts_per_group questions of Q tokens; request n of
 *             a stage (n from 0 in each stage) sends prompt q = n mod GP,
 *             group g = q / P: S + Q prompt tokens, exactly output_len
 *             output tokens. Block hashes of 16 tokens: a block wholly
 *             inside the system prompt hashes (shared, g, i), any other
 *             (prompt q, i), through wl__bench_hash(), which cannot
 *             collide; the buffer is allocated once at open.
 *   random, synthetic  lengths normal(mean, std) (gsl_ran_gaussian,
 *             streams "prompt_tokens" and "output_tokens"), clipped to
 *             [min, max] and rounded to the nearest integer (at least 1),
 *             as inference-perf's generate_distribution; no block hashes
 *             (random token ids share no prefix).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/workload/workload-int.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sim/time.h"

/* An inference-perf length distribution and its stream. */
struct ip_len {
    double min, max, mean, std;
    gsl_rng *rng; /* borrowed from the loop */
};

struct wl__inference_perf {
    int data; /* enum cl_ip_data */
    int load; /* enum cl_ip_load */
    /* shared_prefix */
    int64_t prompts;   /* G x P */
    int64_t per_group; /* P */
    int64_t system_tokens, question_tokens, output_tokens;
    uint64_t *hashes; /* nblocks of them, owned */
    int nblocks;
    /* random, synthetic */
    struct ip_len in, out;
    /* load */
    struct cl_ip_stage *stages; /* owned copy */
    int nstages;
    int stage;         /* the current stage */
    int started;       /* the current stage's state is set */
    int64_t start_ns;  /* D_k */
    int64_t end_ns;    /* D_k + d_k */
    int64_t n;         /* requests sent in this stage */
    int64_t count;     /* constant: n_k */
    double sum, cum;   /* constant: sum of the stage's draws, running sum */
    int64_t now_ns;    /* the last arrival */
    gsl_rng *arrivals; /* borrowed */
    gsl_rng *scratch;  /* owned: a copy of arrivals for the sums */
};

static int64_t ip_draw(const struct ip_len *l)
{
    double x = l->mean + gsl_ran_gaussian(l->rng, l->std);

    if (x < l->min)
        x = l->min;
    if (x > l->max)
        x = l->max;
    return wl__tokens_round(x);
}

static void ip_close(void *state)
{
    struct wl__inference_perf *s = state;

    if (s == NULL)
        return;
    free(s->hashes);
    free(s->stages);
    if (s->scratch != NULL)
        gsl_rng_free(s->scratch);
    free(s);
}

/* Checks an inference-perf distribution given directly (the loader checks
 * it with positions first). Returns 0 or -1 with an error in d. */
static int ip_len_init(struct ip_len *l, const struct cl_ip_distribution *di,
                       const char *key, struct sim_diag *d)
{
    if (!(isfinite(di->min) && isfinite(di->max) && isfinite(di->mean) &&
          isfinite(di->std) && di->min >= 0 && di->min <= di->max &&
          di->std >= 0)) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.inference_perf.data.%s: expected 0 <= min "
                       "<= max, a mean and std >= 0, got min %g, max %g, "
                       "mean %g, std %g",
                       key, di->min, di->max, di->mean, di->std);
        return -1;
    }
    l->min = di->min;
    l->max = di->max;
    l->mean = di->mean;
    l->std = di->std;
    return 0;
}

static void *ip_open(const struct cl_workload *cfg, const char *path,
                     struct sim_loop *loop, struct sim_diag *d)
{
    const struct cl_inference_perf *c = &cfg->inference_perf;
    struct wl__inference_perf s = {0}, *p;
    int64_t total_ns = 0;

    (void)path;
    if (c->load.nstages < 1 || c->load.stages == NULL) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.inference_perf.load.stages: expected at "
                       "least one stage {rate, duration}");
        return NULL;
    }
    for (int i = 0; i < c->load.nstages; i++) {
        const struct cl_ip_stage *st = &c->load.stages[i];
        if (!(isfinite(st->rate_per_s) && st->rate_per_s > 0) ||
            st->duration_ns <= 0 || st->duration_ns > SIM_TIME_MAX - total_ns) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.inference_perf.load.stages[%d]: "
                           "expected rate > 0 and duration > 0 (the stages "
                           "within %lld ns), got %g and %lld ns",
                           i, (long long)SIM_TIME_MAX, st->rate_per_s,
                           (long long)st->duration_ns);
            return NULL;
        }
        total_ns += st->duration_ns;
    }
    if (c->load.type != CL_IP_LOAD_CONSTANT &&
        c->load.type != CL_IP_LOAD_POISSON) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.inference_perf.load.type: unknown type %d; "
                       "valid: constant, poisson",
                       c->load.type);
        return NULL;
    }
    s.data = c->data.type;
    s.load = c->load.type;
    switch (c->data.type) {
    case CL_IP_DATA_SHARED_PREFIX: {
        int64_t groups = c->data.shared_prefix.num_groups;
        int64_t per = c->data.shared_prefix.num_prompts_per_group;
        int64_t sys = c->data.shared_prefix.system_prompt_len;
        int64_t question = c->data.shared_prefix.question_len;
        int64_t output = c->data.shared_prefix.output_len;
        int64_t tokens, nb;
        /* The bounds of the rows; G x P <= 1e12 < 2^46 keeps the owners of
         * wl__bench_hash() in range. */
        if (groups < 1 || groups > 1000000 || per < 1 || per > 1000000 ||
            sys < 0 || sys > 1000000000 || question < 1 ||
            question > 1000000000 || output < 1 || output > 1000000000) {
            sim_diag_error(d, NULL, 0, 0,
                           "workload.inference_perf.data.shared_prefix: "
                           "expected num_groups and num_prompts_per_group in "
                           "[1, 1e6], system_prompt_len in [0, 1e9], "
                           "question_len and output_len in [1, 1e9]");
            return NULL;
        }
        s.per_group = per;
        s.prompts = groups * per;
        s.system_tokens = sys;
        s.question_tokens = question;
        s.output_tokens = output;
        tokens = s.system_tokens + s.question_tokens;
        nb = (tokens + WL_BENCH_BLOCK_TOKENS - 1) / WL_BENCH_BLOCK_TOKENS;
        s.nblocks = nb > WL_BLOCKS_MAX ? WL_BLOCKS_MAX : (int)nb;
        break;
    }
    case CL_IP_DATA_RANDOM:
    case CL_IP_DATA_SYNTHETIC:
        if (ip_len_init(&s.in, &c->data.input_distribution,
                        "input_distribution", d) != 0 ||
            ip_len_init(&s.out, &c->data.output_distribution,
                        "output_distribution", d) != 0)
            return NULL;
        s.in.rng = sim_loop_stream(loop, "prompt_tokens");
        s.out.rng = sim_loop_stream(loop, "output_tokens");
        break;
    default:
        sim_diag_error(d, NULL, 0, 0,
                       "workload.inference_perf.data.type: unknown type %d; "
                       "valid: random, shared_prefix, synthetic",
                       c->data.type);
        return NULL;
    }
    s.arrivals = sim_loop_stream(loop, "arrivals");
    s.nstages = c->load.nstages;
    s.stages = xmalloc((size_t)s.nstages * sizeof(*s.stages));
    memcpy(s.stages, c->load.stages, (size_t)s.nstages * sizeof(*s.stages));
    if (s.load == CL_IP_LOAD_CONSTANT)
        s.scratch = gsl_rng_clone(s.arrivals);
    if (s.nblocks > 0)
        s.hashes = xmalloc((size_t)s.nblocks * sizeof(*s.hashes));
    p = xmalloc(sizeof(*p));
    *p = s;
    return p;
}

/* Sets up the current stage: its interval and, for constant, its count and
 * the sum of its draws (on the scratch copy of the stream). */
static void stage_begin(struct wl__inference_perf *s)
{
    const struct cl_ip_stage *st = &s->stages[s->stage];
    double want;

    s->start_ns = s->stage == 0 ? 0 : s->end_ns;
    s->end_ns = s->start_ns + st->duration_ns;
    s->now_ns = s->start_ns;
    s->n = 0;
    s->started = 1;
    if (s->load != CL_IP_LOAD_CONSTANT)
        return;
    want = st->rate_per_s * sim_ns_to_s(st->duration_ns);
    s->count = want < 9.2e18 ? (int64_t)llround(want) : INT64_MAX;
    s->sum = 0;
    s->cum = 0;
    gsl_rng_memcpy(s->scratch, s->arrivals);
    for (int64_t j = 0; j < s->count; j++)
        s->sum += gsl_ran_exponential(s->scratch, 1.0);
}

/* The next arrival of the current stage into *t_ns: 0, or 1 when the
 * stage has ended. */
static int stage_next(struct wl__inference_perf *s, int64_t *t_ns)
{
    const struct cl_ip_stage *st = &s->stages[s->stage];

    if (s->load == CL_IP_LOAD_CONSTANT) {
        int64_t t;
        if (s->n >= s->count)
            return 1;
        s->cum += gsl_ran_exponential(s->arrivals, 1.0);
        if (s->n + 1 == s->count || !(s->sum > 0))
            t = s->end_ns;
        else
            t = s->start_ns +
                llround((double)st->duration_ns * (s->cum / s->sum));
        /* Rounding keeps the order; the clamps are for the last ulp. */
        if (t > s->end_ns)
            t = s->end_ns;
        if (t < s->now_ns)
            t = s->now_ns;
        *t_ns = t;
        return 0;
    }
    int64_t gap =
        sim_s_to_ns(gsl_ran_exponential(s->arrivals, 1.0 / st->rate_per_s));
    if (gap >= s->end_ns - s->now_ns)
        return 1;
    *t_ns = s->now_ns + gap;
    return 0;
}

static int ip_next(void *state, struct wl_request *out, struct sim_diag *d)
{
    struct wl__inference_perf *s = state;
    int64_t t;

    (void)d;
    for (;;) {
        if (s->stage >= s->nstages)
            return SIM_EEOF;
        if (!s->started)
            stage_begin(s);
        if (stage_next(s, &t) == 0)
            break;
        s->stage++;
        s->started = 0;
    }
    s->now_ns = t;
    out->arrival_ns = t;
    out->stage = s->stage;
    if (s->data == CL_IP_DATA_SHARED_PREFIX) {
        int64_t q = s->n % s->prompts, g = q / s->per_group;
        out->prompt_tokens = s->system_tokens + s->question_tokens;
        out->output_tokens = s->output_tokens;
        for (int i = 0; i < s->nblocks; i++) {
            int shared =
                (int64_t)(i + 1) * WL_BENCH_BLOCK_TOKENS <= s->system_tokens;
            s->hashes[i] =
                wl__bench_hash(shared, (uint64_t)(shared ? g : q), i);
        }
        out->block_hashes = s->hashes;
        out->nblocks = s->nblocks;
        out->block_tokens = WL_BENCH_BLOCK_TOKENS;
    } else {
        out->prompt_tokens = ip_draw(&s->in);
        out->output_tokens = ip_draw(&s->out);
    }
    s->n++;
    return 0;
}

static int ip_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_INFERENCE_PERF;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = ip_match,
    .open = ip_open,
    .next = ip_next,
    .close = ip_close,
};

const struct wl__format wl__format_inference_perf = {
    .name = "inference_perf",
    .summary = "the staged load of a kubernetes-sigs/inference-perf run "
               "(constant or poisson stages; shared_prefix prompts with "
               "prefix block hashes, or normal random lengths)",
    .flags = WL_FMT_LOOP,
    .ops = &ops,
};
