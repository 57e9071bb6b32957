/*
 * Workload sources: a pull iterator of requests (arrival time, prompt and
 * output lengths) built from the scenario's struct cl_workload, either
 * synthetic (an arrival process and two length distributions) or replayed
 * from a trace: the Azure LLM inference CSV, Mooncake JSONL (with prefix
 * block hashes), BurstGPT CSV, or arrivals generated from ServeGen
 * per-client statistics. Arrival times are int64
 * ns since the start of the simulation and never decrease; token counts are
 * integers >= 1. Synthetic sources draw from the loop's streams "arrivals",
 * "prompt_tokens" and "output_tokens", one each, so changing one part of a
 * workload never perturbs the others (common random numbers); a ServeGen
 * source draws from three streams per client. Trace sources
 * stream the file line by line through a fixed buffer, so memory stays flat
 * however long the file is. Formulas and formats: docs/workloads.md.
 * Single-threaded.
 */
#ifndef WL_SOURCE_H
#define WL_SOURCE_H

#include <stdint.h>

#include "models/workload/config.h"
#include "base/diag.h"
#include "sim/loop.h"

/* Longest trace line accepted, in bytes, without its line terminator. */
#define WL_LINE_MAX 4096

/* Largest token count accepted from a trace or produced by a distribution;
 * synthetic samples above it are clamped to it. */
#define WL_TOKENS_MAX INT64_C(2147483647)

/* Tokens per prefix block of a Mooncake trace (its hash_ids). */
#define WL_MOONCAKE_BLOCK_TOKENS 512

/* Tokens per prefix block of the benchmark clients' block hashes
 * (workload.inference_perf shared_prefix, workload.vllm_bench
 * random_prefix_len): vLLM's default block size. */
#define WL_BENCH_BLOCK_TOKENS 16

/* Most hash ids accepted in one Mooncake row (a 64 Mi-token prompt at 512
 * tokens per block): the bound on the source's hash buffer. */
#define WL_BLOCKS_MAX 131072

/* One request as the cluster sees it. block_hashes describes the prompt
 * as a chain of prefix blocks for prefix caching: block i covers prompt
 * tokens [i * block_tokens, (i + 1) * block_tokens), and two requests whose
 * block i hashes are equal share the KV of that block (Mooncake's hash_ids,
 * where equal ids mean a reusable prefix). The array is borrowed from the
 * source and valid until the next wl_source_next() or wl_source_free() on
 * it; copy it to keep it longer. Sources without hashes (synthetic, azure,
 * burstgpt, servegen) set block_hashes NULL and nblocks and block_tokens
 * 0; no source allocates per request. */
struct wl_request {
    int64_t arrival_ns;           /* since the start of the simulation */
    int64_t prompt_tokens;        /* >= 1 */
    int64_t output_tokens;        /* >= 1 */
    const uint64_t *block_hashes; /* nblocks of them, or NULL; borrowed */
    int nblocks;                  /* [0, WL_BLOCKS_MAX] */
    int block_tokens;             /* tokens per block, 0 without hashes */
    /* Load stage (0-based) of a staged source (inference-perf's
     * load.stages); 0 for every other source. Stage k's arrivals are
     * nominal: as if stage k started when stage k - 1's duration ended.
     * The cluster's client holds the first request of stage k + 1 until
     * every earlier request has finished (inference-perf waits for a stage
     * to drain) and shifts the stage's arrivals by the wait. */
    int stage;
};

struct wl_source;

/* Creates a source for cfg. cfg is read during the call only (nothing is
 * kept). base_dir is the directory that a relative cfg->trace.path is taken
 * from (the scenario file's directory); NULL or "" means the current
 * directory, and an absolute path ignores it. loop provides the random
 * streams of a synthetic or servegen source and is borrowed: it must
 * outlive the source; the other trace sources do not use it (it may be NULL
 * then). The trace header is
 * read and checked here. On failure returns NULL, adds an error to d (for
 * example "PATH: error: cannot open trace: No such file or directory" or
 * "workload.synthetic.arrival.rate_per_s: expected a positive number, got
 * 0"; a missing trace file's message ends with where the public files of
 * that format are published) and allocates nothing. Caller frees with
 * wl_source_free(). */
struct wl_source *wl_source_new(const struct cl_workload *cfg,
                                const char *base_dir, struct sim_loop *loop,
                                struct sim_diag *d);

/* Produces the next request into *out. Returns 0 with *out filled (its
 * arrival_ns is >= that of the previous request); SIM_EEOF when the source
 * is exhausted (request limit reached, next arrival later than the duration
 * limit, or end of trace); SIM_EPARSE after adding to d a diagnostic naming
 * the file, line, column and data row, such as "PATH:4:29: error: row 3:
 * GeneratedTokens: expected a non-negative integer, got 'abc'"; or SIM_EIO
 * if reading the file failed (with a diagnostic). On any non-zero return
 * *out is unchanged. The end and errors are sticky: later calls return the
 * same code again without adding diagnostics. A burstgpt source adds a note
 * counting the failed rows it skipped when it reaches the end. */
int wl_source_next(struct wl_source *s, struct wl_request *out,
                   struct sim_diag *d);

/* Number of requests produced so far by wl_source_next(). */
uint64_t wl_source_count(const struct wl_source *s);

/* Closes the trace file, if any, and frees s. NULL is a no-op. */
void wl_source_free(struct wl_source *s);

#endif /* WL_SOURCE_H */
