/*
 * Synthetic multi-turn conversations (workload.synthetic.sessions), the
 * workload that shows prefix reuse without a downloaded trace.
 *
 * Sessions start by the synthetic arrival process (synthetic.arrival, its
 * streams and profile, through an inner synthetic source); a session has
 * T turns, T drawn from sessions.turns (stream "session_turns"). Turn k
 * (1-based) of a session has n_k new prompt tokens and o_k output tokens:
 * the first turn takes the inner source's draws of prompt_tokens and
 * output_tokens, later turns draw the same distributions from the streams
 * "turn_prompt_tokens" and "turn_output_tokens". Its prompt is the whole
 * conversation so far,
 *     prompt_k = S + sum_{i<k} (n_i + o_i) + n_k,
 * S the system prompt shared by every session. Turn k+1 arrives a think
 * time after turn k arrives, exponential with mean sessions.think_time
 * (stream "think_time"): open loop, it does not wait for the answer, so a
 * turn can arrive while the previous one is still being served (as when a
 * user sends before the answer ends); with a think time much longer than
 * the service time this is the closed-loop conversation.
 *
 * Block hashes (struct wl_request.block_hashes) describe the prompt in
 * blocks of sessions.block_tokens tokens, ceil(prompt / block) of them, as
 * Mooncake's hash_ids do: a block wholly inside the system prompt hashes
 * (0, i), any other block (session id + 1, i), so equal hashes mean equal
 * prefixes: all sessions share the system prompt's blocks, and a turn
 * shares every block of its earlier turns' prompts and answers (the
 * conversation only grows at its end). Whether the answer's blocks are
 * still cached when the next turn comes is up to the engine.
 *
 * Pending sessions wait in a binary heap keyed by their next arrival
 * (ties by session id), so memory is O(sessions in progress) and each
 * request costs O(log sessions + blocks of its prompt). Limits:
 * synthetic.requests counts requests (turns); synthetic.duration stops
 * every arrival after it.
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

struct session {
    uint64_t id;
    int64_t next_ns; /* arrival of its next turn */
    int64_t ctx;     /* tokens before its next turn's new ones */
    int64_t turns;   /* turns left, including the next */
    int64_t new_tok; /* next turn's new tokens */
    int64_t out_tok; /* next turn's output tokens */
};

struct wl__sessions {
    void *starts; /* synthetic: session starts and first-turn lengths */
    int start_done;
    struct wl_request pending; /* the next session start, read ahead */
    int have_pending;
    struct session **heap; /* by (next_ns, id) */
    size_t n, cap;
    uint64_t next_id;
    int64_t requests; /* -1 = no limit */
    int64_t duration_ns;
    int64_t emitted;
    int64_t system_tokens;
    int block_tokens;
    double think_mean_s;
    struct wl_dist turns, prompt, output;
    gsl_rng *r_turns, *r_prompt, *r_output, *r_think;
    uint64_t *hashes; /* WL_BLOCKS_MAX */
};

static int before(const struct session *a, const struct session *b)
{
    return a->next_ns < b->next_ns ||
           (a->next_ns == b->next_ns && a->id < b->id);
}

static void heap_push(struct wl__sessions *g, struct session *s)
{
    size_t i;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->heap = xrealloc(g->heap, g->cap, sizeof(*g->heap));
    }
    i = g->n++;
    while (i > 0 && before(s, g->heap[(i - 1) / 2])) {
        g->heap[i] = g->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    g->heap[i] = s;
}

static struct session *heap_pop(struct wl__sessions *g)
{
    struct session *top = g->heap[0], *last = g->heap[--g->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= g->n)
            break;
        if (c + 1 < g->n && before(g->heap[c + 1], g->heap[c]))
            c++;
        if (!before(g->heap[c], last))
            break;
        g->heap[i] = g->heap[c];
        i = c;
    }
    if (g->n > 0)
        g->heap[i] = last;
    return top;
}

static uint64_t mix64(uint64_t z)
{
    /* SplitMix64 finaliser (Steele, Lea and Flood, OOPSLA 2014). */
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void read_start(struct wl__sessions *g)
{
    g->have_pending = !g->start_done && wl__format_synthetic.ops->next(
                                            g->starts, &g->pending, NULL) == 0;
    if (!g->have_pending)
        g->start_done = 1;
}

static void sessions_close(void *state);

static void *sessions_open(const struct cl_workload *cfg, const char *path,
                           struct sim_loop *loop, struct sim_diag *d)
{
    const struct cl_sessions *sc = &cfg->synthetic.sessions;
    struct wl__sessions *g;
    void *starts;

    (void)path;
    if (sc->block_tokens < 1 || sc->system_prompt_tokens < 0 ||
        sc->think_time_ns < 0) {
        sim_diag_error(d, NULL, 0, 0,
                       "workload.synthetic.sessions: block_tokens must be >= "
                       "1, system_prompt_tokens and think_time >= 0");
        return NULL;
    }
    starts = wl__format_synthetic.ops->open(cfg, NULL, loop, d);
    if (starts == NULL)
        return NULL;
    g = xcalloc(1, sizeof(*g));
    g->starts = starts;
    if (wl_dist_init(&g->turns, &sc->turns, "workload.synthetic.sessions.turns",
                     d) != 0 ||
        wl_dist_init(&g->prompt, &cfg->synthetic.prompt_tokens,
                     "workload.synthetic.prompt_tokens", d) != 0 ||
        wl_dist_init(&g->output, &cfg->synthetic.output_tokens,
                     "workload.synthetic.output_tokens", d) != 0) {
        sessions_close(g);
        return NULL;
    }
    g->requests = cfg->synthetic.requests;
    g->duration_ns = cfg->synthetic.duration_ns;
    g->system_tokens = sc->system_prompt_tokens;
    g->block_tokens = sc->block_tokens;
    g->think_mean_s = (double)sc->think_time_ns * 1e-9;
    g->r_turns = sim_loop_stream(loop, "session_turns");
    g->r_prompt = sim_loop_stream(loop, "turn_prompt_tokens");
    g->r_output = sim_loop_stream(loop, "turn_output_tokens");
    g->r_think = sim_loop_stream(loop, "think_time");
    g->hashes = xmalloc(WL_BLOCKS_MAX * sizeof(*g->hashes));
    read_start(g);
    return g;
}

/* Fills g->hashes for a prompt of `tokens` tokens of session id. */
static int fill_hashes(struct wl__sessions *g, uint64_t id, int64_t tokens)
{
    int64_t n = (tokens + g->block_tokens - 1) / g->block_tokens;
    if (n > WL_BLOCKS_MAX)
        n = WL_BLOCKS_MAX;
    for (int64_t i = 0; i < n; i++) {
        int in_system = (i + 1) * (int64_t)g->block_tokens <= g->system_tokens;
        uint64_t owner = in_system ? 0 : id + 1;
        g->hashes[i] = mix64(mix64(owner) ^ (uint64_t)i);
    }
    return (int)n;
}

static int sessions_next(void *state, struct wl_request *out,
                         struct sim_diag *d)
{
    struct wl__sessions *g = state;
    struct session *s;
    int64_t think_ns;

    (void)d;
    if (g->requests >= 0 && g->emitted >= g->requests)
        return SIM_EEOF;
    for (;;) {
        /* A new session when its start comes first (ties: the new one, so
         * that the order does not depend on the heap). */
        if (g->have_pending &&
            (g->n == 0 || g->pending.arrival_ns <= g->heap[0]->next_ns)) {
            s = xcalloc(1, sizeof(*s));
            s->id = g->next_id++;
            s->next_ns = g->pending.arrival_ns;
            s->ctx = g->system_tokens;
            s->turns = wl__tokens_round(wl_dist_draw(&g->turns, g->r_turns));
            s->new_tok = g->pending.prompt_tokens;
            s->out_tok = g->pending.output_tokens;
            read_start(g);
        } else if (g->n > 0) {
            s = heap_pop(g);
        } else {
            return SIM_EEOF;
        }
        if (g->duration_ns < 0 || s->next_ns <= g->duration_ns)
            break;
        free(s); /* its later turns come later still */
    }
    out->arrival_ns = s->next_ns;
    out->prompt_tokens = s->ctx + s->new_tok;
    if (out->prompt_tokens > WL_TOKENS_MAX)
        out->prompt_tokens = WL_TOKENS_MAX;
    out->output_tokens = s->out_tok;
    out->block_tokens = g->block_tokens;
    out->nblocks = fill_hashes(g, s->id, out->prompt_tokens);
    out->block_hashes = g->hashes;
    g->emitted++;

    s->ctx = out->prompt_tokens + out->output_tokens;
    if (--s->turns <= 0) {
        free(s);
        return 0;
    }
    think_ns = g->think_mean_s > 0
                   ? (int64_t)llround(
                         gsl_ran_exponential(g->r_think, g->think_mean_s) * 1e9)
                   : 0;
    s->next_ns = out->arrival_ns + think_ns;
    s->new_tok = wl__tokens_round(wl_dist_draw(&g->prompt, g->r_prompt));
    s->out_tok = wl__tokens_round(wl_dist_draw(&g->output, g->r_output));
    heap_push(g, s);
    return 0;
}

static void sessions_close(void *state)
{
    struct wl__sessions *g = state;

    if (g == NULL)
        return;
    wl__format_synthetic.ops->close(g->starts);
    for (size_t i = 0; i < g->n; i++)
        free(g->heap[i]);
    free(g->heap);
    free(g->hashes);
    free(g);
}

static int sessions_match(const struct cl_workload *cfg)
{
    return cfg->kind == CL_WL_SYNTHETIC && cfg->synthetic.sessions.enabled;
}

static const struct wl__format_ops ops = {
    .version = WL_FORMAT_API_VERSION,
    .match = sessions_match,
    .open = sessions_open,
    .next = sessions_next,
    .close = sessions_close,
};

const struct wl__format wl__format_sessions = {
    .name = "sessions",
    .summary = "synthetic multi-turn conversations: each prompt is the "
               "conversation so far, with prefix block hashes as Mooncake's "
               "hash_ids (our model, docs/workloads.md)",
    .flags = WL_FMT_LOOP,
    .ops = &ops,
};
