/* Metrics source of dsec-scaler; see source.h. */
#include "scaler/source.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/policy/snapshot.h"
#include "scaler/http.h"
#include "scaler/promapi.h"
#include "base/errors.h"
#include "base/xalloc.h"

/* Most distinct bucket bounds kept per histogram and replica. */
#define MAX_LE 64
/* Largest plausible value per replica of a gauge of requests (running,
 * waiting): above it the value is taken as garbage, not load. */
#define GAUGE_MAX 1e6
/* Largest plausible counter or histogram count: 2^53, beyond which a
 * double no longer counts by one. */
#define COUNT_MAX 9007199254740992.0
/* Largest plausible KV capacity of one replica, in tokens. */
#define KV_TOKENS_MAX 1e12
/* More replicas reporting than this many times max(max_replicas, the
 * current size) is a hold: they cannot all be this Deployment's. */
#define TOO_MANY_FACTOR 2
/* Most replicas remembered (first-seen times); growth is bounded. */
#define SEEN_MAX 4096

struct lecum {
    double le;
    double cum;
};

struct hscratch {
    struct lecum v[MAX_LE];
    int n;
    double sum;   /* NAN when absent */
    double count; /* NAN when absent */
};

/* One replica in the round being collected. */
struct rep {
    char *key;
    double running, waiting; /* NAN when absent */
    double kv_sum;
    int kv_n;
    double kv_capacity;
    double requests, prompt, output;
    struct hscratch h[SCL_M_N]; /* used for the four histogram families */
    struct pol_window cum;      /* cumulative (scrape) or increments (PromQL) */
    struct pol_window win;      /* the replica's window */
};

struct ring_rep {
    char *key;
    struct pol_window cum;
};

struct ring_ent {
    double at_s;
    struct ring_rep *v;
    int n;
};

struct seen {
    char *key;
    double first_s;
};

struct scl_source {
    const struct scl_config *c;
    struct scl_http *http;
    struct ring_ent *ring; /* owned, slots entries */
    int head, nring, slots;
    struct rep *reps;
    int nreps, capreps;
    int *index;   /* open addressing over reps by key: -1 empty */
    int capindex; /* a power of two, at least twice nreps; 0 none */
    double now_s, wall_s;
    int failed, fed;
    double newest_wall_s;  /* PromQL scrape_time this round, checked */
    double last_ok_wall_s; /* newest good sample time (PromQL), messages */
    double last_ok_now_s;  /* monotonic time of the last good scrape */
    int nbad;              /* impossible values this round */
    char bad_msg[200];     /* the first of them */
    int time_bad;          /* a sample time was not finite or ahead */
    char time_msg[160];
    int up_n, up_ok; /* PromQL targets_up: series, and those at 1 */
    struct seen *seen;
    int nseen;
    struct pol_window cluster;
    struct pol_replica *preps;
    struct pol_pool pool;
};

static const char *const hold_names[SCL_HOLD_N] = {
    "none",          "source_error", "stale",
    "no_replicas",   "warming_up",   "invalid_value",
    "bad_timestamp", "partial",      "too_many_replicas"};

const char *scl_hold_name(int h)
{
    return h >= 0 && h < SCL_HOLD_N ? hold_names[h] : "?";
}

struct scl_source *scl_source_new(const struct scl_config *c)
{
    struct scl_source *src = xcalloc(1, sizeof(*src));
    struct scl_http_opts o = {c->http_timeout_s, NULL, 0, NULL};

    src->c = c;
    src->http = scl_http_new(&o);
    /* The simulator's rule (models/cluster/orchestrator.c). */
    src->slots = (int)fmin(c->window_s / c->interval_s + 1, SCL_RING_MAX);
    if (src->slots < 2)
        src->slots = 2;
    src->ring = xcalloc((size_t)src->slots, sizeof(*src->ring));
    src->last_ok_wall_s = NAN;
    src->last_ok_now_s = NAN;
    src->newest_wall_s = NAN;
    return src;
}

static void ring_ent_clear(struct ring_ent *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->v[i].key);
    free(e->v);
    e->v = NULL;
    e->n = 0;
}

/* Empties the key index (the reps are sorted or cleared). */
static void index_clear(struct scl_source *src)
{
    for (int i = 0; i < src->capindex; i++)
        src->index[i] = -1;
}

static void reps_clear(struct scl_source *src)
{
    for (int i = 0; i < src->nreps; i++)
        free(src->reps[i].key);
    src->nreps = 0;
    index_clear(src);
}

/* FNV-1a of key. */
static size_t key_hash(const char *key)
{
    uint64_t h = 1469598103934665603u;
    for (; *key != '\0'; key++)
        h = (h ^ (unsigned char)*key) * 1099511628211u;
    return (size_t)h;
}

/* The slot of key in the index: its rep's or the empty one to fill. */
static int *index_slot(const struct scl_source *src, const char *key)
{
    size_t mask = (size_t)src->capindex - 1, i = key_hash(key) & mask;
    while (src->index[i] >= 0 && strcmp(src->reps[src->index[i]].key, key))
        i = (i + 1) & mask;
    return &src->index[i];
}

/* Makes room for one more rep in the index (load at most 1/2), rebuilding
 * it from the reps when it grows. */
static void index_reserve(struct scl_source *src)
{
    if (2 * (src->nreps + 1) <= src->capindex)
        return;
    src->capindex = src->capindex ? 2 * src->capindex : 64;
    src->index =
        xrealloc(src->index, (size_t)src->capindex, sizeof(*src->index));
    index_clear(src);
    for (int i = 0; i < src->nreps; i++)
        *index_slot(src, src->reps[i].key) = i;
}

void scl_source_free(struct scl_source *src)
{
    if (src == NULL)
        return;
    for (int i = 0; i < src->slots; i++)
        ring_ent_clear(&src->ring[i]);
    free(src->ring);
    reps_clear(src);
    free(src->reps);
    free(src->index);
    for (int i = 0; i < src->nseen; i++)
        free(src->seen[i].key);
    free(src->seen);
    free(src->preps);
    scl_http_free(src->http);
    free(src);
}

void scl_source_begin(struct scl_source *src, double now_s, double wall_s)
{
    reps_clear(src);
    src->now_s = now_s;
    src->wall_s = wall_s;
    src->failed = 0;
    src->fed = 0;
    src->newest_wall_s = NAN;
    src->nbad = 0;
    src->bad_msg[0] = '\0';
    src->time_bad = 0;
    src->time_msg[0] = '\0';
    src->up_n = 0;
    src->up_ok = 0;
}

void scl_source_fail(struct scl_source *src)
{
    src->failed++;
}

/* "replica=a,pod=b,instance=c" of the labels present, after prefix. */
static char *rep_key(const char *prefix, const struct scl_sample *s)
{
    static const char *const lab[] = {"replica", "pod", "instance"};
    char *k = xstrdup(prefix ? prefix : "");

    for (int i = 0; i < 3; i++) {
        const char *v = scl_sample_label(s, lab[i]);
        char *n;
        if (v == NULL)
            continue;
        n = xasprintf("%s%s%s=%s", k, k[0] ? "," : "", lab[i], v);
        free(k);
        k = n;
    }
    return k;
}

/* The rep of key, new when absent; takes key. O(1) expected: a scrape of
 * many replicas is linear in its samples. */
static struct rep *rep_get(struct scl_source *src, char *key)
{
    struct rep *r;
    int *slot;

    index_reserve(src);
    slot = index_slot(src, key);
    if (*slot >= 0) {
        free(key);
        return &src->reps[*slot];
    }
    *slot = src->nreps;
    if (src->nreps == src->capreps) {
        src->capreps = src->capreps ? src->capreps * 2 : 16;
        src->reps =
            xrealloc(src->reps, (size_t)src->capreps, sizeof(*src->reps));
    }
    r = &src->reps[src->nreps++];
    memset(r, 0, sizeof(*r));
    r->key = key;
    r->running = NAN;
    r->waiting = NAN;
    r->kv_capacity = NAN;
    r->requests = NAN;
    r->prompt = NAN;
    r->output = NAN;
    for (int f = 0; f < SCL_M_N; f++) {
        r->h[f].sum = NAN;
        r->h[f].count = NAN;
    }
    return r;
}

static void acc(double *x, double v)
{
    *x = isnan(*x) ? v : *x + v;
}

static void add_bucket(struct hscratch *h, const char *le_text, double v)
{
    char *end;
    double le;

    if (le_text == NULL)
        return;
    if (strcmp(le_text, "+Inf") == 0 || strcmp(le_text, "Inf") == 0)
        le = INFINITY;
    else {
        le = strtod(le_text, &end);
        if (*end != '\0' || end == le_text)
            return;
    }
    for (int i = 0; i < h->n; i++)
        if (h->v[i].le == le) {
            h->v[i].cum += v;
            return;
        }
    if (h->n < MAX_LE) {
        h->v[h->n].le = le;
        h->v[h->n].cum = v;
        h->n++;
    }
}

enum part { P_VALUE, P_BUCKET, P_SUM, P_COUNT };

static int is_hist(int f)
{
    return f == SCL_M_REQ_PROMPT || f == SCL_M_REQ_OUTPUT || f == SCL_M_TTFT ||
           f == SCL_M_ITL;
}

static const char *const part_suffix[] = {"", "_bucket", "_sum", "_count"};

/* Is v inside [lo, hi]? NaN is not. Otherwise counts the value as
 * impossible and keeps the first such for the hold's message. */
static int plausible(struct scl_source *src, const struct rep *r, int f,
                     int part, double v, double lo, double hi)
{
    const char *name = src->c->names[f];

    if (v >= lo && v <= hi)
        return 1;
    if (src->nbad++ == 0)
        snprintf(src->bad_msg, sizeof(src->bad_msg),
                 "impossible value %g of %s%s (expected %g to %g) for "
                 "replica '%.60s'",
                 v, name ? name : "?", part_suffix[part], lo, hi, r->key);
    return 0;
}

static void add_value(struct scl_source *src, struct rep *r, int f, int part,
                      const struct scl_sample *s)
{
    double v = s->value;
    double hi = f == SCL_M_RUNNING || f == SCL_M_WAITING ? GAUGE_MAX
                : f == SCL_M_KV_USAGE                    ? 1
                : f == SCL_M_KV_CAPACITY                 ? KV_TOKENS_MAX
                                                         : COUNT_MAX;

    /* NaN, infinities, negative and absurd values are not load: the round
     * holds (docs/scaler.md, "What is a hold"). vLLM's cache_config_info
     * is an info gauge whose value is 1; its labels are checked below. */
    if (!plausible(src, r, f, part, v, 0, hi))
        return;
    if (is_hist(f)) {
        if (part == P_BUCKET)
            add_bucket(&r->h[f], scl_sample_label(s, "le"), v);
        else if (part == P_SUM)
            acc(&r->h[f].sum, v);
        else if (part == P_COUNT)
            acc(&r->h[f].count, v);
        return;
    }
    switch (f) {
    case SCL_M_RUNNING:
        acc(&r->running, v);
        break;
    case SCL_M_WAITING:
        acc(&r->waiting, v);
        break;
    case SCL_M_KV_USAGE:
        r->kv_sum += v;
        r->kv_n++;
        break;
    case SCL_M_KV_CAPACITY: {
        /* vLLM's cache_config_info carries the capacity in labels
         * (block_size x num_gpu_blocks, docs/sources.md §6.1); SGLang's
         * max_total_num_tokens is the value. */
        const char *bs = scl_sample_label(s, "block_size");
        const char *nb = scl_sample_label(s, "num_gpu_blocks");
        double cap = bs && nb ? strtod(bs, NULL) * strtod(nb, NULL) : v;
        if (!plausible(src, r, f, part, cap, 0, KV_TOKENS_MAX))
            break;
        if (isnan(r->kv_capacity) || cap > r->kv_capacity)
            r->kv_capacity = cap;
        break;
    }
    case SCL_M_REQUESTS:
        acc(&r->requests, v);
        break;
    case SCL_M_PROMPT_TOKENS:
        acc(&r->prompt, v);
        break;
    case SCL_M_OUTPUT_TOKENS:
        acc(&r->output, v);
        break;
    }
}

/* The family and part of a scraped sample name, or -1. */
static int classify(const struct scl_config *c, const char *name, int *part)
{
    for (int f = 0; f < SCL_M_N; f++) {
        const char *fam = c->names[f];
        size_t n;
        if (fam == NULL)
            continue;
        n = strlen(fam);
        if (strncmp(name, fam, n) != 0)
            continue;
        if (name[n] == '\0' && !is_hist(f)) {
            *part = P_VALUE;
            return f;
        }
        if (!is_hist(f))
            continue;
        if (strcmp(name + n, "_bucket") == 0) {
            *part = P_BUCKET;
            return f;
        }
        if (strcmp(name + n, "_sum") == 0) {
            *part = P_SUM;
            return f;
        }
        if (strcmp(name + n, "_count") == 0) {
            *part = P_COUNT;
            return f;
        }
    }
    return -1;
}

void scl_source_feed_scrape(struct scl_source *src, const char *target,
                            const struct scl_expo *e)
{
    src->fed++;
    for (int i = 0; i < e->n; i++) {
        int part;
        int f = classify(src->c, e->v[i].name, &part);
        if (f < 0)
            continue;
        add_value(src, rep_get(src, rep_key(target, &e->v[i])), f, part,
                  &e->v[i]);
    }
}

void scl_source_feed_query(struct scl_source *src, int q,
                           const struct scl_expo *e)
{
    static const struct {
        int f, part;
    } map[SCL_Q_N] = {
        [SCL_Q_RUNNING] = {SCL_M_RUNNING, P_VALUE},
        [SCL_Q_WAITING] = {SCL_M_WAITING, P_VALUE},
        [SCL_Q_KV_USAGE] = {SCL_M_KV_USAGE, P_VALUE},
        [SCL_Q_KV_CAPACITY] = {SCL_M_KV_CAPACITY, P_VALUE},
        [SCL_Q_REQUESTS] = {SCL_M_REQUESTS, P_VALUE},
        [SCL_Q_PROMPT_TOKENS] = {SCL_M_PROMPT_TOKENS, P_VALUE},
        [SCL_Q_OUTPUT_TOKENS] = {SCL_M_OUTPUT_TOKENS, P_VALUE},
        [SCL_Q_REQ_PROMPT_SUM] = {SCL_M_REQ_PROMPT, P_SUM},
        [SCL_Q_REQ_PROMPT_COUNT] = {SCL_M_REQ_PROMPT, P_COUNT},
        [SCL_Q_REQ_OUTPUT_SUM] = {SCL_M_REQ_OUTPUT, P_SUM},
        [SCL_Q_REQ_OUTPUT_COUNT] = {SCL_M_REQ_OUTPUT, P_COUNT},
        [SCL_Q_TTFT_BUCKETS] = {SCL_M_TTFT, P_BUCKET},
        [SCL_Q_TTFT_SUM] = {SCL_M_TTFT, P_SUM},
        [SCL_Q_ITL_BUCKETS] = {SCL_M_ITL, P_BUCKET},
        [SCL_Q_ITL_SUM] = {SCL_M_ITL, P_SUM},
        [SCL_Q_SCRAPE_TIME] = {-1, P_VALUE},
        [SCL_Q_TARGETS_UP] = {-1, P_VALUE},
    };

    if (q < 0 || q >= SCL_Q_N)
        return;
    src->fed++;
    for (int i = 0; i < e->n; i++) {
        double t = e->v[i].value;
        if (q == SCL_Q_SCRAPE_TIME) {
            /* Judged per round against this clock: a time that is not
             * finite, or ahead by more than the skew bound, is invalid
             * and never remembered (it would hide staleness later). */
            if (!isfinite(t) || t > src->wall_s + src->c->max_clock_skew_s) {
                if (!src->time_bad++)
                    snprintf(src->time_msg, sizeof(src->time_msg),
                             isfinite(t)
                                 ? "sample time %.0f s ahead of this clock "
                                   "(max_clock_skew_s %g)"
                                 : "sample time %g (max_clock_skew_s %g)",
                             isfinite(t) ? t - src->wall_s : t,
                             src->c->max_clock_skew_s);
            } else if (isnan(src->newest_wall_s) || t > src->newest_wall_s) {
                src->newest_wall_s = t;
            }
            continue;
        }
        if (q == SCL_Q_TARGETS_UP) {
            src->up_n++;
            if (t == 1)
                src->up_ok++;
            else if (t != 0 && src->nbad++ == 0)
                snprintf(src->bad_msg, sizeof(src->bad_msg),
                         "impossible value %g of up (expected 0 or 1)", t);
            continue;
        }
        add_value(src, rep_get(src, rep_key(NULL, &e->v[i])), map[q].f,
                  map[q].part, &e->v[i]);
    }
}

static int cmp_lecum(const void *a, const void *b)
{
    double x = ((const struct lecum *)a)->le;
    double y = ((const struct lecum *)b)->le;
    return (x > y) - (x < y);
}

static uint64_t count_of(double v)
{
    return v > 0 ? (uint64_t)llround(v) : 0;
}

/* Cumulative-by-le buckets onto the simulator's (vLLM's) bounds: the
 * count at bound b is the count at the largest scraped le <= b, exact
 * when the bounds agree and conservative (latencies rounded up to a
 * bound) when they do not (SGLang's buckets). */
static void ph_from(struct pol_ph *h, int kind, struct hscratch *sc)
{
    int nle, j = 0;
    const double *b = pol_ph_bounds(kind, &nle);
    double prev = 0, at = 0, total;

    pol_ph_init(h, kind);
    if (sc->n == 0)
        return;
    qsort(sc->v, (size_t)sc->n, sizeof(sc->v[0]), cmp_lecum);
    total = sc->v[sc->n - 1].le == INFINITY ? sc->v[sc->n - 1].cum
            : !isnan(sc->count)             ? sc->count
                                            : sc->v[sc->n - 1].cum;
    for (int i = 0; i < nle; i++) {
        while (j < sc->n && sc->v[j].le <= b[i] * (1 + 1e-9)) {
            at = sc->v[j].cum;
            j++;
        }
        h->bucket[i] = count_of(at - prev);
        if (at > prev)
            prev = at;
    }
    h->bucket[nle] = count_of(total - prev);
    for (int i = 0; i <= nle; i++)
        h->count += h->bucket[i];
    h->sum = isnan(sc->sum) ? 0 : sc->sum;
}

static double or0(double v)
{
    return isnan(v) ? 0 : v;
}

/* The counters of r as a window (cumulative or increments). Without the
 * per-request token histograms (SGLang), arrivals are finished requests
 * and their tokens the token counters. */
static void build_cum(struct rep *r)
{
    struct hscratch *rp = &r->h[SCL_M_REQ_PROMPT];
    struct hscratch *ro = &r->h[SCL_M_REQ_OUTPUT];
    struct pol_window *w = &r->cum;

    pol_window_init(w);
    w->completed = or0(r->requests);
    w->prompt_tokens = or0(r->prompt);
    w->output_tokens = or0(r->output);
    if (!isnan(rp->count)) {
        w->arrivals = rp->count;
        w->arrival_prompt_tokens = or0(rp->sum);
        w->arrival_output_tokens = or0(ro->sum);
    } else {
        w->arrivals = w->completed;
        w->arrival_prompt_tokens = w->prompt_tokens;
        w->arrival_output_tokens = w->output_tokens;
    }
    ph_from(&w->ttft, POL_PH_TTFT, &r->h[SCL_M_TTFT]);
    ph_from(&w->itl, POL_PH_ITL, &r->h[SCL_M_ITL]);
}

static int ph_reset(const struct pol_ph *a, const struct pol_ph *b)
{
    if (a->count < b->count)
        return 1;
    for (int i = 0; i <= a->nle; i++)
        if (a->bucket[i] < b->bucket[i])
            return 1;
    return 0;
}

/* Did a counter go down from b (older) to a (newer): a restart? */
static int win_reset(const struct pol_window *a, const struct pol_window *b)
{
    return a->arrivals < b->arrivals ||
           a->arrival_prompt_tokens < b->arrival_prompt_tokens ||
           a->arrival_output_tokens < b->arrival_output_tokens ||
           a->completed < b->completed || a->prompt_tokens < b->prompt_tokens ||
           a->output_tokens < b->output_tokens ||
           ph_reset(&a->ttft, &b->ttft) || ph_reset(&a->itl, &b->itl);
}

/* out = a - b, for b older than a with no reset between them (callers
 * check win_reset()), so every difference is >= 0. */
static void win_sub(struct pol_window *out, const struct pol_window *a,
                    const struct pol_window *b)
{
    double span = out->span_s;

    pol_window_init(out);
    out->span_s = span;
    out->arrivals = a->arrivals - b->arrivals;
    out->arrival_prompt_tokens =
        a->arrival_prompt_tokens - b->arrival_prompt_tokens;
    out->arrival_output_tokens =
        a->arrival_output_tokens - b->arrival_output_tokens;
    out->completed = a->completed - b->completed;
    out->prompt_tokens = a->prompt_tokens - b->prompt_tokens;
    out->output_tokens = a->output_tokens - b->output_tokens;
    pol_ph_delta(&out->ttft, &a->ttft, &b->ttft);
    pol_ph_delta(&out->itl, &a->itl, &b->itl);
}

/* The window of key in e, whose entries are sorted by key (copied from
 * the sorted reps); O(log n). */
static const struct pol_window *ring_find(const struct ring_ent *e,
                                          const char *key)
{
    int lo = 0, hi = e->n - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(e->v[mid].key, key);
        if (c == 0)
            return &e->v[mid].cum;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static double first_seen(struct scl_source *src, const char *key)
{
    for (int i = 0; i < src->nseen; i++)
        if (strcmp(src->seen[i].key, key) == 0)
            return src->seen[i].first_s;
    if (src->nseen >= SEEN_MAX)
        return src->now_s;
    src->seen = xrealloc(src->seen, (size_t)src->nseen + 1, sizeof(*src->seen));
    src->seen[src->nseen].key = xstrdup(key);
    src->seen[src->nseen].first_s = src->now_s;
    return src->seen[src->nseen++].first_s;
}

static int cmp_rep(const void *a, const void *b)
{
    return strcmp(((const struct rep *)a)->key, ((const struct rep *)b)->key);
}

/* Scrape: windows against the ring, then push this observation. A
 * replica's window reaches back to its oldest observation from which no
 * counter went down (rounds it is missing from are skipped over); a reset (a
 * restart) ends it there, so the interval holding the reset is skipped rather
 * than read as a negative or a from-zero increase (Prometheus' rate() assumes a
 * reset to zero; the scaler, which sees one value per interval, cannot tell how
 * far the counter went before it). */
static void end_scrape(struct scl_source *src)
{
    struct ring_ent *slot;
    const struct ring_ent *oldest = NULL;

    if (src->nring > 0)
        oldest = &src->ring[(src->head - src->nring + src->slots) % src->slots];
    pol_window_init(&src->cluster);
    src->cluster.span_s = oldest ? src->now_s - oldest->at_s : 0;
    for (int i = 0; i < src->nreps; i++) {
        struct rep *r = &src->reps[i];
        const struct pol_window *old = NULL, *newer = &r->cum;
        const struct ring_ent *from = NULL;
        double fs = first_seen(src, r->key);
        int reset = 0;

        pol_window_init(&r->win);
        for (int k = 1; k <= src->nring; k++) {
            const struct ring_ent *e =
                &src->ring[(src->head - k + src->slots) % src->slots];
            const struct pol_window *w = ring_find(e, r->key);
            if (w == NULL)
                continue; /* a round it was missing from: skipped over */
            if (win_reset(newer, w)) {
                reset = 1;
                break;
            }
            old = w;
            from = e;
            newer = w;
        }
        if (old == NULL)
            continue; /* no window yet: span 0, as a new replica's */
        r->win.span_s = src->now_s - from->at_s;
        win_sub(&r->win, &r->cum, old);
        /* The cluster counts a replica that started after the oldest
         * observation from zero, as the simulator's cluster counters do;
         * not one whose window a reset cut. */
        if (!reset && from != oldest && ring_find(oldest, r->key) == NULL &&
            fs > oldest->at_s)
            pol_window_add(&src->cluster, &r->cum);
        else
            pol_window_add(&src->cluster, &r->win);
    }
    /* First observation of a replica new since the oldest one. */
    for (int i = 0; i < src->nreps && oldest != NULL; i++) {
        struct rep *r = &src->reps[i];
        int anywhere = 0;
        for (int k = 1; k <= src->nring && !anywhere; k++)
            anywhere =
                ring_find(&src->ring[(src->head - k + src->slots) % src->slots],
                          r->key) != NULL;
        if (!anywhere && first_seen(src, r->key) > oldest->at_s)
            pol_window_add(&src->cluster, &r->cum);
    }
    if (src->fed == 0)
        return; /* nothing observed: keep the ring as it is */
    slot = &src->ring[src->head];
    ring_ent_clear(slot);
    slot->at_s = src->now_s;
    slot->v = xcalloc((size_t)src->nreps + 1, sizeof(*slot->v));
    for (int i = 0; i < src->nreps; i++) {
        slot->v[i].key = xstrdup(src->reps[i].key);
        slot->v[i].cum = src->reps[i].cum;
    }
    slot->n = src->nreps;
    src->head = (src->head + 1) % src->slots;
    if (src->nring < src->slots)
        src->nring++;
}

void scl_source_end(struct scl_source *src)
{
    if (src->nreps > 0) /* reps is NULL before the first replica */
        qsort(src->reps, (size_t)src->nreps, sizeof(*src->reps), cmp_rep);
    index_clear(src); /* sorted: the indexes moved; nothing is added now */
    for (int i = 0; i < src->nreps; i++)
        build_cum(&src->reps[i]);
    if (src->c->source == SCL_SRC_SCRAPE) {
        end_scrape(src);
        if (src->fed > 0)
            src->last_ok_now_s = src->now_s;
        return;
    }
    pol_window_init(&src->cluster);
    /* No rates from a round that saw nothing (NAN, not 0). */
    src->cluster.span_s = src->fed > 0 ? src->c->window_s : 0;
    for (int i = 0; i < src->nreps; i++) {
        struct rep *r = &src->reps[i];
        (void)first_seen(src, r->key);
        r->win = r->cum;
        r->win.span_s = src->c->window_s;
        pol_window_add(&src->cluster, &r->cum);
    }
    /* Only a checked time (finite, at most max_clock_skew_s ahead), and
     * never ahead of this clock: it serves the messages of later rounds
     * that fail, never this round's staleness. */
    if (!isnan(src->newest_wall_s))
        src->last_ok_wall_s = fmin(src->newest_wall_s, src->wall_s);
}

/* The hold of the round, if any, in order of precedence; docs/scaler.md
 * "What is a hold" lists them. n is the replicas reporting num_running. */
static void hold_of(struct scl_source *src, int current, int n,
                    struct scl_view *v)
{
    const struct scl_config *c = src->c;
    int prom = c->source == SCL_SRC_PROMETHEUS;
    /* Time since the last good round, for the messages of failed ones. */
    double since = prom ? src->wall_s - src->last_ok_wall_s
                        : src->now_s - src->last_ok_now_s;
    /* This round's own age: the newest checked sample (PromQL) or 0 for a
     * scrape that answered now. Never carried over from earlier rounds. */
    double age = prom           ? src->wall_s - src->newest_wall_s
                 : src->fed > 0 ? 0
                                : since;
    int expected = prom ? src->up_n : c->ntargets;
    int answered = prom ? src->up_ok : src->fed;
    int too_many = TOO_MANY_FACTOR *
                   (current > c->max_replicas ? current : c->max_replicas);

    v->age_s = isnan(age) ? since : age;
    if (expected < answered)
        expected = answered;
    if (prom && src->failed > 0) {
        if (!isnan(since) && since > c->stale_after_s) {
            v->hold = SCL_HOLD_STALE;
            snprintf(v->msg, sizeof(v->msg),
                     "metrics stale for %.0f s (prometheus query failed)",
                     since);
        } else {
            v->hold = SCL_HOLD_SOURCE_ERROR;
            snprintf(v->msg, sizeof(v->msg), "prometheus query failed");
        }
    } else if (src->fed == 0) {
        v->hold = isnan(since) ? SCL_HOLD_SOURCE_ERROR : SCL_HOLD_STALE;
        if (isnan(since))
            snprintf(v->msg, sizeof(v->msg), "no metrics: every target failed");
        else
            snprintf(v->msg, sizeof(v->msg),
                     "metrics stale for %.0f s (every target failed)", since);
    } else if (src->nbad > 0) {
        v->hold = SCL_HOLD_INVALID;
        if (src->nbad > 1)
            snprintf(v->msg, sizeof(v->msg), "%s, and %d more", src->bad_msg,
                     src->nbad - 1);
        else
            snprintf(v->msg, sizeof(v->msg), "%s", src->bad_msg);
    } else if (src->time_bad > 0) {
        v->hold = SCL_HOLD_BAD_TIME;
        snprintf(v->msg, sizeof(v->msg), "%s", src->time_msg);
    } else if (expected > 0 &&
               answered < c->min_reporting_share * expected - 1e-9) {
        v->hold = SCL_HOLD_PARTIAL;
        snprintf(v->msg, sizeof(v->msg),
                 "%d of %d %s answer (min_reporting_share %g)", answered,
                 expected, prom ? "Prometheus targets" : "scrape targets",
                 c->min_reporting_share);
    } else if (n == 0) {
        v->hold = isnan(since) ? SCL_HOLD_NO_REPLICAS : SCL_HOLD_STALE;
        if (isnan(since))
            snprintf(v->msg, sizeof(v->msg), "no replica reports metrics");
        else
            snprintf(v->msg, sizeof(v->msg),
                     "metrics stale for %.0f s (no replica reports)", since);
    } else if (!isnan(age) && age > c->stale_after_s) {
        v->hold = SCL_HOLD_STALE;
        snprintf(v->msg, sizeof(v->msg), "metrics stale for %.0f s", age);
    } else if (prom && isnan(age)) {
        v->hold = SCL_HOLD_NO_REPLICAS;
        snprintf(v->msg, sizeof(v->msg),
                 "no sample timestamp (scrape_time query empty)");
    } else if (n > too_many) {
        v->hold = SCL_HOLD_TOO_MANY;
        snprintf(v->msg, sizeof(v->msg),
                 "%d replicas report, more than %d x max(max_replicas %d, "
                 "current %d)",
                 n, TOO_MANY_FACTOR, c->max_replicas, current);
    } else if (!(src->cluster.span_s > 0)) {
        v->hold = SCL_HOLD_WARMING_UP;
        snprintf(v->msg, sizeof(v->msg),
                 "warming up: no window yet (first observation)");
    }
}

void scl_source_snapshot(struct scl_source *src, int current,
                         struct pol_snapshot *s, struct scl_view *v)
{
    const struct scl_config *c = src->c;
    struct scl_view view;
    int n = 0, nkv = 0;

    memset(&view, 0, sizeof(view));
    memset(s, 0, sizeof(*s));
    free(src->preps);
    src->preps = xcalloc((size_t)src->nreps + 1, sizeof(*src->preps));
    for (int i = 0; i < src->nreps; i++) {
        const struct rep *r = &src->reps[i];
        struct pol_replica *pr;
        if (isnan(r->running))
            continue; /* counts only: a replica gone within the window */
        pr = &src->preps[n++];
        pr->pool = 0;
        pr->state = POL_RS_READY;
        pr->age_s = src->now_s - first_seen(src, r->key);
        pr->num_running = r->running;
        pr->num_waiting = or0(r->waiting);
        pr->kv_usage = r->kv_n > 0 ? r->kv_sum / r->kv_n : NAN;
        pr->kv_capacity_tokens = r->kv_capacity;
        nkv += r->kv_n > 0;
        pol_replica_fill_window(pr, &r->win);
    }
    s->api_version = POL_API_VERSION;
    s->now_s = src->now_s;
    s->interval_s = c->interval_s;
    s->window_s = c->window_s;
    /* The size is the scale subresource's when known: more replicas
     * reporting (terminating, or series that are not replicas at all)
     * never make it larger. */
    s->ready = current >= 0 && n > current ? current : n;
    s->pending = current > s->ready ? current - s->ready : 0;
    s->draining = 0;
    s->min_replicas = c->min_replicas;
    s->max_replicas = c->max_replicas;
    s->gpus_per_replica = c->gpus_per_replica;
    s->target_ttft_s = c->target_ttft_s;
    s->target_itl_s = c->target_itl_s;
    pol_snapshot_fill_window(s, &src->cluster);
    s->replicas = src->preps;
    s->nreplicas = n;
    pol_snapshot_sum_gauges(s, nkv);

    memset(&src->pool, 0, sizeof(src->pool));
    src->pool.name = "default";
    src->pool.capacity_replicas = c->max_replicas;
    src->pool.ready = s->ready;
    src->pool.pending = s->pending;
    src->pool.price_usd_per_replica_hour = c->price_usd_per_replica_hour;
    src->pool.provision_s_mean = c->provision_s;
    s->pools = &src->pool;
    s->npools = 1;

    view.nready = n;
    view.sources_failed = src->failed;
    hold_of(src, current, n, &view);
    view.valid = view.hold == SCL_HOLD_NONE;
    s->metrics_valid = view.valid;
    if (v != NULL)
        *v = view;
}

static char *window_text(double s)
{
    double ms = s * 1e3;
    if (fabs(ms - 1e3 * llround(s)) < 1e-6)
        return xasprintf("%llds", (long long)llround(s));
    return xasprintf("%lldms", (long long)llround(ms));
}

#define BY "replica, pod, instance"

char *scl_query_text(const struct scl_config *c, int q)
{
    static const int fam[SCL_Q_N] = {
        [SCL_Q_RUNNING] = SCL_M_RUNNING,
        [SCL_Q_WAITING] = SCL_M_WAITING,
        [SCL_Q_KV_USAGE] = SCL_M_KV_USAGE,
        [SCL_Q_KV_CAPACITY] = SCL_M_KV_CAPACITY,
        [SCL_Q_REQUESTS] = SCL_M_REQUESTS,
        [SCL_Q_PROMPT_TOKENS] = SCL_M_PROMPT_TOKENS,
        [SCL_Q_OUTPUT_TOKENS] = SCL_M_OUTPUT_TOKENS,
        [SCL_Q_REQ_PROMPT_SUM] = SCL_M_REQ_PROMPT,
        [SCL_Q_REQ_PROMPT_COUNT] = SCL_M_REQ_PROMPT,
        [SCL_Q_REQ_OUTPUT_SUM] = SCL_M_REQ_OUTPUT,
        [SCL_Q_REQ_OUTPUT_COUNT] = SCL_M_REQ_OUTPUT,
        [SCL_Q_TTFT_BUCKETS] = SCL_M_TTFT,
        [SCL_Q_TTFT_SUM] = SCL_M_TTFT,
        [SCL_Q_ITL_BUCKETS] = SCL_M_ITL,
        [SCL_Q_ITL_SUM] = SCL_M_ITL,
        [SCL_Q_SCRAPE_TIME] = SCL_M_RUNNING,
        [SCL_Q_TARGETS_UP] = SCL_M_RUNNING,
    };
    const char *n, *sel = c->selector ? c->selector : "";
    char *w, *r;

    if (q < 0 || q >= SCL_Q_N)
        return NULL;
    if (c->queries[q] != NULL)
        return xstrdup(c->queries[q]);
    n = c->names[fam[q]];
    if (n == NULL)
        return NULL;
    w = window_text(c->window_s);
    switch (q) {
    case SCL_Q_RUNNING:
    case SCL_Q_WAITING:
        r = xasprintf("sum by (" BY ") (%s%s)", n, sel);
        break;
    case SCL_Q_KV_USAGE:
        r = xasprintf("avg by (" BY ") (%s%s)", n, sel);
        break;
    case SCL_Q_KV_CAPACITY:
        r = xasprintf("max by (" BY ", block_size, num_gpu_blocks) (%s%s)", n,
                      sel);
        break;
    case SCL_Q_REQUESTS:
    case SCL_Q_PROMPT_TOKENS:
    case SCL_Q_OUTPUT_TOKENS:
        r = xasprintf("sum by (" BY ") (increase(%s%s[%s]))", n, sel, w);
        break;
    case SCL_Q_REQ_PROMPT_SUM:
    case SCL_Q_REQ_OUTPUT_SUM:
    case SCL_Q_TTFT_SUM:
    case SCL_Q_ITL_SUM:
        r = xasprintf("sum by (" BY ") (increase(%s_sum%s[%s]))", n, sel, w);
        break;
    case SCL_Q_REQ_PROMPT_COUNT:
    case SCL_Q_REQ_OUTPUT_COUNT:
        r = xasprintf("sum by (" BY ") (increase(%s_count%s[%s]))", n, sel, w);
        break;
    case SCL_Q_TTFT_BUCKETS:
    case SCL_Q_ITL_BUCKETS:
        r = xasprintf("sum by (" BY ", le) (increase(%s_bucket%s[%s]))", n, sel,
                      w);
        break;
    case SCL_Q_TARGETS_UP:
        r = xasprintf("up%s", sel);
        break;
    default: /* SCL_Q_SCRAPE_TIME */
        r = xasprintf("max(timestamp(%s%s))", n, sel);
        break;
    }
    free(w);
    return r;
}

struct collect_err {
    void (*fn)(void *, const char *);
    void *arg;
};

static void report(const struct collect_err *ce, const char *msg)
{
    if (ce->fn != NULL)
        ce->fn(ce->arg, msg);
}

void scl_source_collect(struct scl_source *src, double now_s, double wall_s,
                        void (*on_error)(void *arg, const char *msg), void *arg)
{
    const struct scl_config *c = src->c;
    struct collect_err ce = {on_error, arg};
    char err[512];

    scl_source_begin(src, now_s, wall_s);
    if (c->source == SCL_SRC_PROMETHEUS) {
        for (int q = 0; q < SCL_Q_N; q++) {
            char *text = scl_query_text(c, q);
            struct scl_expo e;
            if (text == NULL)
                continue;
            scl_expo_init(&e);
            if (scl_prom_query(src->http, c->prometheus_url, text, &e, err,
                               sizeof(err)) != 0) {
                char *m = xasprintf("query %s: %s", scl_query_key(q), err);
                scl_source_fail(src);
                report(&ce, m);
                free(m);
                scl_expo_fini(&e);
                free(text);
                /* The round holds on any failed query: spare the others
                 * (and the log) when Prometheus is down. */
                break;
            } else {
                scl_source_feed_query(src, q, &e);
            }
            scl_expo_fini(&e);
            free(text);
        }
    } else {
        for (int t = 0; t < c->ntargets; t++) {
            char *body;
            size_t len;
            long status;
            struct scl_expo e;

            if (scl_http_request(src->http, "GET", c->targets[t], NULL, NULL,
                                 &body, &len, &status, err, sizeof(err)) != 0) {
                scl_source_fail(src);
                report(&ce, err);
                continue;
            }
            scl_expo_init(&e);
            if (status != 200) {
                char *m = xasprintf("GET %s: HTTP %ld", c->targets[t], status);
                scl_source_fail(src);
                report(&ce, m);
                free(m);
            } else if (scl_expo_parse(body, len, &e, err, sizeof(err)) != 0) {
                char *m = xasprintf("%s: %s", c->targets[t], err);
                scl_source_fail(src);
                report(&ce, m);
                free(m);
            } else {
                scl_source_feed_scrape(src, c->targets[t], &e);
            }
            scl_expo_fini(&e);
            free(body);
        }
    }
    scl_source_end(src);
}

int scl_source_activation(struct scl_source *src, double *value, char *err,
                          size_t errlen)
{
    const struct scl_config *c = src->c;
    struct scl_expo e;
    double sum = 0;

    *value = NAN;
    if (c->activation_query == NULL) {
        snprintf(err, errlen, "no activation_query");
        return SIM_EINVAL;
    }
    scl_expo_init(&e);
    if (scl_prom_query(src->http, c->prometheus_url, c->activation_query, &e,
                       err, errlen) != 0) {
        scl_expo_fini(&e);
        return SIM_EIO;
    }
    for (int i = 0; i < e.n; i++) {
        double v = e.v[i].value;
        if (!isfinite(v) || v < 0) {
            sum = v;
            break;
        }
        sum += v;
    }
    scl_expo_fini(&e);
    *value = sum;
    return 0;
}
