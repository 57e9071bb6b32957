/*
 * The fields of a run's results, declared once. Every list below is an
 * X-macro: results.h expands it into the structs and into the field
 * descriptors (struct cl_rfield) that the database writer and the report
 * loaders (reports/db.c, report.c), the JSON and text summaries
 * (reports/summary.c) and the sweep wire format (sweep/wire.c) walk, so a
 * field added to a list is stored, printed, sent and read back without
 * further code. The order of a list is the order of its output: the JSON
 * members, the summary rows of the database and the wire layout. Where
 * the outputs disagree with each other the list says so explicitly: a
 * NULL json or db column (the field is not in that output) and
 * CL_RESULTS_DB_MOVED (the database orders the field differently).
 *
 * Types (the second column):
 *   U64      uint64_t count: a JSON integer, REAL in the summary table (exact
 *            to 2^53), INTEGER in the other tables
 *   I64      int64_t
 *   INT      int
 *   BOOL     int, 0 or 1: JSON true or false, INTEGER in tables
 *   F64      double; NAN is NULL in the database and null in JSON
 *   NS       int64_t nanoseconds of simulated time: seconds (double) in JSON
 *            and in the database
 *   SERIAL   uint64_t serial number (read back as int64_t by reports)
 *   STR      char *, owned; NULL is NULL and null
 *   POOL     int index into cl_results.pools: the pool's name in the
 *            database and JSON ("?" out of range)
 *   RSTATE   int replica state: cl_replica_state_name() in the database and
 *            JSON
 *   LATENCY  struct cl_latency: the CL_LATENCY_FIELDS sub-values, summary
 *            metrics "<db>.<sub>" and a JSON object
 *   STATES   double[CL_GS_COUNT] by enum cl_gpu_state: summary metrics
 *            "<db>.<state>", table columns "<db>_<state>", a JSON object by
 *            state name
 *   CLASSES  struct cl_class_result *name and int n<name>
 *   GROUPS   struct cl_group_result *name and int n<name>
 *   POOLS    struct cl_pool_result *name and int n<name>
 *   NOTES    char **name and int n<name>
 *   SERIES   struct cl_series_row *name and size_t n<name>
 *   CELLS    double *name: n<series> x n<pools> values, [row * npools +
 *            pool]; listed after the series and pools
 *   REPLICAS struct cl_replica_row *name and size_t n<name>
 *   STAGES   struct cl_stage_row *name and size_t n<name>
 *   REQUESTS struct cl_request_row *name and size_t n<name>
 * Arrays are written to their own tables (the db column names the table)
 * and to JSON arrays.
 */
#ifndef CL_RESULTS_FIELDS_H
#define CL_RESULTS_FIELDS_H

/* The latency sub-values, in milliseconds over the requests after warm-up.
 * X(name, type, col, unit, help): col is the summary metric's suffix and
 * the JSON member. */
#define CL_LATENCY_FIELDS(X)                                                   \
    X(mean, F64, mean, "ms", "mean")                                           \
    X(ci95, F64, ci95, "ms",                                                   \
      "half-width of the 95% batch-means confidence interval of the mean; "    \
      "NAN when too few batches")                                              \
    X(p50, F64, p50, "ms", "median")                                           \
    X(p90, F64, p90, "ms", "90th percentile")                                  \
    X(p99, F64, p99, "ms", "99th percentile")                                  \
    X(max, F64, max, "ms", "largest sample")                                   \
    X(n, U64, n, "requests", "samples; 0 means every other value is NAN")

/* One interval of the time series, a row of the timeseries table.
 * X(name, type, col, unit, help): col is the table's column and the
 * member of struct rpt_series_row. Not in JSON. */
#define CL_SERIES_FIELDS(X)                                                    \
    X(t_start_ns, NS, t_start_s, "s", "interval start")                        \
    X(t_end_ns, NS, t_end_s, "s", "interval end")                              \
    X(arrivals, U64, arrivals, "requests", "arrived in the interval")          \
    X(completions, U64, completions, "requests", "finished in the interval")   \
    X(output_tokens, U64, output_tokens, "tokens",                             \
      "of the requests finished in the interval")                              \
    X(throughput_tokens_per_s, F64, throughput_tokens_per_s, "tokens/s",       \
      "output tokens / interval length")                                       \
    X(queue_len_mean, F64, queue_len_mean, "requests",                         \
      "time-weighted waiting requests")                                        \
    X(running_mean, F64, running_mean, "requests",                             \
      "time-weighted requests in service")                                     \
    X(replicas_mean, F64, replicas_mean, "replicas",                           \
      "time-weighted replicas serving")                                        \
    X(ttft_p50_ms, F64, ttft_p50_ms, "ms",                                     \
      "of the requests finished in the interval; NAN without one")             \
    X(ttft_p99_ms, F64, ttft_p99_ms, "ms", "as ttft_p50_ms")                   \
    X(tpot_p50_ms, F64, tpot_p50_ms, "ms", "as ttft_p50_ms")                   \
    X(tpot_p99_ms, F64, tpot_p99_ms, "ms", "as ttft_p50_ms")                   \
    X(e2e_p50_ms, F64, e2e_p50_ms, "ms", "as ttft_p50_ms")                     \
    X(e2e_p99_ms, F64, e2e_p99_ms, "ms", "as ttft_p50_ms")                     \
    X(gpus_mean, F64, gpus_mean, "GPUs", "time-weighted GPUs held, any state") \
    X(desired_replicas, INT, desired_replicas, "replicas",                     \
      "the orchestrator's target at the interval's end")

/* One replica over one interval, a row of the replica_series table, under
 * the names vLLM gives its Prometheus metrics (docs/sources.md §6.1). Means are
 * time-weighted over the whole interval (zero while the replica did not
 * exist), *_end fields are the gauges at the interval's end, tokens and
 * successes the interval's. X(name, type, col, unit, help): col is the
 * table's column, the JSON member (--series-replicas) and the member of
 * struct rpt_replica_row. */
#define CL_REPLICA_FIELDS(X)                                                   \
    X(t_start_ns, NS, t_start_s, "s", "interval start")                        \
    X(t_end_ns, NS, t_end_s, "s", "interval end")                              \
    X(replica, SERIAL, replica, "", "the replica's start order, 0-based")      \
    X(pool, POOL, pool, "", "its pool")                                        \
    X(state, RSTATE, state, "", "its state at the interval's end")             \
    X(num_requests_running, F64, num_requests_running_mean, "requests",        \
      "mean: admitted, not finished")                                          \
    X(num_requests_waiting, F64, num_requests_waiting_mean, "requests",        \
      "mean: routed here, not admitted")                                       \
    X(num_requests_running_end, I64, num_requests_running, "requests",         \
      "at the interval's end")                                                 \
    X(num_requests_waiting_end, I64, num_requests_waiting, "requests",         \
      "at the interval's end")                                                 \
    X(kv_cache_usage_perc, F64, kv_cache_usage_perc_mean, "fraction",          \
      "mean KV blocks used / blocks, 0..1; NAN for an abstract server")        \
    X(kv_cache_usage_perc_end, F64, kv_cache_usage_perc, "fraction",           \
      "at the interval's end; NAN for an abstract server")                     \
    X(prefix_cache_hit_rate, F64, prefix_cache_hit_rate, "fraction",           \
      "cumulative blocks hit / looked up at the end; NAN before any lookup")   \
    X(prompt_tokens, U64, prompt_tokens, "tokens", "prefilled")                \
    X(generation_tokens, U64, generation_tokens, "tokens", "generated")        \
    X(request_success, U64, request_success, "requests", "finished")

/* One priority class (workload.priority_classes) over the requests after
 * warm-up. X(name, type, col, unit, help): col is the JSON member. Not in
 * the database. */
#define CL_CLASS_FIELDS(X)                                                     \
    X(name, STR, name, "", "the class's name")                                 \
    X(priority, INT, priority, "", "0 is served first")                        \
    X(completed, U64, completed, "requests", "finished after warm-up")         \
    X(ttft_mean_ms, F64, ttft_mean_ms, "ms", "NAN without completions")        \
    X(ttft_p50_ms, F64, ttft_p50_ms, "ms", "NAN without completions")          \
    X(ttft_p99_ms, F64, ttft_p99_ms, "ms", "NAN without completions")          \
    X(e2e_p99_ms, F64, e2e_p99_ms, "ms", "NAN without completions")            \
    X(slo_attainment, F64, slo_attainment, "fraction",                         \
      "0..1; NAN when no SLO is set")

/* One replica group under deploy.disaggregation (prefill, decode), as
 * planned, with the GPU time its replicas held. X(name, type, col, unit,
 * help): col is the JSON member. Not in the database. */
#define CL_GROUP_FIELDS(X)                                                     \
    X(name, STR, name, "", "prefill or decode")                                \
    X(replicas, INT, replicas, "replicas",                                     \
      "planned; elastic: desired at the end")                                  \
    X(replicas_min, INT, replicas_min, "replicas",                             \
      "fewest serving or pending after a scaling decision (static: planned)")  \
    X(replicas_max, INT, replicas_max, "replicas",                             \
      "most serving or pending after a scaling decision (static: planned)")    \
    X(gpus_per_replica, INT, gpus_per_replica, "GPUs", "tp x dp x pp")         \
    X(gpus, INT, gpus, "GPUs", "replicas x gpus_per_replica")                  \
    X(tp, INT, tp, "", "tensor-parallel degree")                               \
    X(ep, INT, ep, "", "expert-parallel degree")                               \
    X(dp, INT, dp, "", "data-parallel attention groups")                       \
    X(gpu_hours, F64, gpu_hours, "GPU-h", "held by the group's replicas")

/* One load stage (struct wl_request.stage; a source without stages has
 * one, stage 0), a row of the stages table and an element of the JSON
 * stages array. Every request of the stage counts, warm-up included (a
 * benchmark reports all of them); latencies are over its completed
 * requests, ITL over the token gaps of its decoding requests. The span is
 * from its first arrival to the last end of one of its requests.
 * X(name, type, col, unit, help): col is the table's column and the JSON
 * member. */
#define CL_STAGE_FIELDS(X)                                                     \
    X(stage, INT, stage, "", "0-based load stage")                             \
    X(requests, U64, requests, "requests", "arrived")                          \
    X(completed, U64, completed, "requests", "finished")                       \
    X(timeouts, U64, timeouts, "requests", "abandoned by the client")          \
    X(dropped, U64, dropped, "requests", "refused at arrival")                 \
    X(span_start_ns, NS, span_start_s, "s", "first arrival")                   \
    X(span_end_ns, NS, span_end_s, "s", "last end (finish, time-out, drop)")   \
    X(input_tokens_per_s, F64, input_tokens_per_s, "tokens/s",                 \
      "prompt tokens of completed requests / span; NAN for an empty span")     \
    X(output_tokens_per_s, F64, output_tokens_per_s, "tokens/s",               \
      "output tokens of completed requests / span")                            \
    X(requests_per_s, F64, requests_per_s, "1/s", "completed / span")          \
    X(ttft_mean_ms, F64, ttft_mean_ms, "ms", "NAN without completions")        \
    X(ttft_p50_ms, F64, ttft_p50_ms, "ms", "")                                 \
    X(ttft_p90_ms, F64, ttft_p90_ms, "ms", "")                                 \
    X(ttft_p99_ms, F64, ttft_p99_ms, "ms", "")                                 \
    X(tpot_mean_ms, F64, tpot_mean_ms, "ms",                                   \
      "NAN without a completion of 2 or more streamed tokens")                 \
    X(tpot_p50_ms, F64, tpot_p50_ms, "ms", "")                                 \
    X(tpot_p90_ms, F64, tpot_p90_ms, "ms", "")                                 \
    X(tpot_p99_ms, F64, tpot_p99_ms, "ms", "")                                 \
    X(itl_mean_ms, F64, itl_mean_ms, "ms", "llm: NAN without a token gap")     \
    X(itl_p50_ms, F64, itl_p50_ms, "ms", "")                                   \
    X(itl_p90_ms, F64, itl_p90_ms, "ms", "")                                   \
    X(itl_p99_ms, F64, itl_p99_ms, "ms", "")                                   \
    X(e2e_mean_ms, F64, e2e_mean_ms, "ms", "NAN without completions")          \
    X(e2e_p50_ms, F64, e2e_p50_ms, "ms", "")                                   \
    X(e2e_p90_ms, F64, e2e_p90_ms, "ms", "")                                   \
    X(e2e_p99_ms, F64, e2e_p99_ms, "ms", "")

/* One request, a row of the requests table (metrics.requests) and of
 * dsec run --requests (CSV or JSON Lines). Times are seconds of simulated
 * time. X(name, type, col, unit, help): col is the table's column and the
 * JSON member. */
#define CL_REQUEST_FIELDS(X)                                                   \
    X(id, U64, id, "", "arrival index, 0-based")                               \
    X(stage, INT, stage, "", "load stage")                                     \
    X(arrival_s, F64, arrival_s, "s", "")                                      \
    X(first_token_s, F64, first_token_s, "s", "NAN (NULL) before one")         \
    X(finish_s, F64, finish_s, "s", "its end: finish, time-out or drop")       \
    X(prompt_tokens, I64, prompt_tokens, "tokens", "")                         \
    X(output_tokens, I64, output_tokens, "tokens",                             \
      "its output length (made in full when ok)")                              \
    X(cached_tokens, I64, cached_tokens, "tokens",                             \
      "llm: prompt tokens found in the prefix cache at its first admission")   \
    X(replica, I64, replica, "",                                               \
      "the serial of the replica that served it last; -1 if none")             \
    X(preemptions, INT, preemptions, "", "llm: times it was preempted")        \
    X(outcome, STR, outcome, "", "ok, timeout or dropped")

/* One GPU pool, a row of the pools table. GPU-hours of a reserved pool are
 * its whole capacity over the run (paid whether used or not). X(name, type,
 * col, unit, help): col is the table's column (a prefix for STATES); the
 * JSON member and the member of struct rpt_pool_row are the name. */
#define CL_POOL_FIELDS(X)                                                      \
    X(name, STR, name, "", "the pool's name")                                  \
    X(gpu, STR, gpu, "", "its GPU kind")                                       \
    X(capacity_gpus, INT, capacity_gpus, "GPUs", "its size")                   \
    X(borrowable, BOOL, borrowable, "", "a test pool serving may borrow from") \
    X(reserved, BOOL, reserved, "", "paid whether used or not")                \
    X(price_usd_per_gpu_hour, F64, price_usd_per_gpu_hour, "USD/GPU-h", "")    \
    X(gpu_hours_by_state, STATES, gpu_hours, "GPU-h", "held, by state")        \
    X(gpu_hours_used, F64, gpu_hours_used, "GPU-h", "sum over the states")     \
    X(gpu_hours_paid, F64, gpu_hours_paid, "GPU-h",                            \
      "used, or capacity x time when reserved")                                \
    X(cost_usd, F64, cost_usd, "USD", "")                                      \
    X(replicas_started, U64, replicas_started, "replicas", "")

/* The results of one run, in the order of the JSON object.
 * X(name, type, json, db, text, unit, help):
 *   json  the JSON member; "a.b" is member b of the object a, which is
 *         placed where its first member is listed. NULL: not in JSON.
 *   db    the summary table's metric (scalars), or the table an array is
 *         stored in. NULL: not in the summary table (the runs table holds
 *         the scenario's name, the seed and the policy).
 *   text  the row's label where the text summary prints the list (the
 *         latency table); NULL where it is laid out by hand or absent.
 * Blocks are engine blocks of server.block_tokens, bytes whole-replica KV
 * (docs/serving.md); "llm:" marks the paged-KV engine's counters. */
#define CL_RESULTS_FIELDS(X)                                                   \
    X(scenario_name, STR, "scenario", NULL, NULL, "", "the scenario's name")   \
    X(seed, U64, "seed", NULL, NULL, "", "the seed of the run")                \
    X(ttft_ms, LATENCY, "ttft_ms", "ttft_ms", "TTFT", "ms",                    \
      "time to first token")                                                   \
    X(tpot_ms, LATENCY, "tpot_ms", "tpot_ms", "TPOT", "ms",                    \
      "time per output token after the first")                                 \
    X(e2e_ms, LATENCY, "e2e_ms", "e2e_ms", "E2E", "ms",                        \
      "arrival to last token")                                                 \
    X(itl_ms, LATENCY, "itl_ms", "itl_ms", "ITL", "ms",                        \
      "llm: inter-token latency, every streamed token gap pooled; ci95 NAN, "  \
      "n in token gaps")                                                       \
    X(queue_ms, LATENCY, "queue_ms", "queue_ms", "queue", "ms",                \
      "arrival to start of service")                                           \
    X(requests_arrived, U64, "requests_arrived", "requests_arrived", NULL,     \
      "requests", "")                                                          \
    X(requests_completed, U64, "requests_completed", "requests_completed",     \
      NULL, "requests", "")                                                    \
    X(requests_dropped, U64, "requests_dropped", "requests_dropped", NULL,     \
      "requests", "rejected: could never be served")                           \
    X(requests_timed_out, U64, "requests_timed_out", "requests_timed_out",     \
      NULL, "requests",                                                        \
      "abandoned by the client: unfinished at workload.client.timeout")        \
    X(input_tokens, U64, "input_tokens", "input_tokens", NULL, "tokens",       \
      "of completed requests")                                                 \
    X(output_tokens, U64, "output_tokens", "output_tokens", NULL, "tokens",    \
      "of completed requests")                                                 \
    X(throughput_tokens_per_s, F64, "throughput_tokens_per_s",                 \
      "throughput_tokens_per_s", NULL, "tokens/s",                             \
      "output tokens / simulated time")                                        \
    X(requests_per_s, F64, "requests_per_s", "requests_per_s", NULL, "1/s",    \
      "completions / simulated time")                                          \
    X(gpu_hours, F64, "gpu_hours", "gpu_hours", NULL, "GPU-h",                 \
      "GPU time paid for")                                                     \
    X(cost_usd, F64, "cost_usd", "cost_usd", NULL, "USD", "")                  \
    X(price_usd_per_gpu_hour, F64, "price_usd_per_gpu_hour",                   \
      "price_usd_per_gpu_hour", NULL, "USD/GPU-h", "")                         \
    X(gpus_per_replica, INT, "gpus_per_replica", "gpus_per_replica", NULL,     \
      "GPUs",                                                                  \
      "under deploy.disaggregation: the groups' count, 0 if they differ")      \
    X(groups, GROUPS, "disaggregation", NULL, NULL, "",                        \
      "per deploy.disaggregation group, or NULL; in JSON only with one")       \
    X(slo_attainment, F64, "slo_attainment", "slo_attainment", NULL,           \
      "fraction", "0..1; NAN when no SLO is set")                              \
    X(replicas_min, INT, "replicas.min", "replicas.min", NULL, "replicas", "") \
    X(replicas_max, INT, "replicas.max", "replicas.max", NULL, "replicas", "") \
    X(replicas_mean, F64, "replicas.mean", "replicas.mean", NULL, "replicas",  \
      "time-weighted, serving")                                                \
    X(scale_events, U64, "scale_events", "scale_events", NULL, "",             \
      "orchestrator decisions that changed the size")                          \
    X(policy, STR, "policy", NULL, NULL, "",                                   \
      "the scaling policy; NULL for a static cluster")                         \
    X(calibration, STR, "calibration", "calibration", NULL, "",                \
      "the calibration profile's path, or \"built-in defaults\"")              \
    X(calibration_sha256, STR, "calibration_sha256", "calibration_sha256",     \
      NULL, "", "SHA-256 of the profile's text; NULL for the built-in")        \
    X(cold_starts, U64, "cold_starts", "cold_starts", NULL, "replicas",        \
      "started after t = 0")                                                   \
    X(failures, U64, "failures", "failures", NULL, "replicas",                 \
      "lost to GPU or node failures")                                          \
    X(requests_retried, U64, "requests_retried", "requests_retried", NULL,     \
      "requests", "in flight on a failed replica")                             \
    X(preemptions, U64, "preemptions", "preemptions", NULL, "requests",        \
      "llm: running requests whose KV was dropped for lack of blocks")         \
    X(kv_blocks_end, I64, NULL, NULL, NULL, "blocks",                          \
      "llm: KV blocks still held when the run ended; 0 unless requests were "  \
      "cut off")                                                               \
    X(kv_blocks_peak, I64, NULL, NULL, NULL, "blocks",                         \
      "llm: most KV blocks one replica held at once")                          \
    X(kv_paused_blocks_end, I64, NULL, NULL, NULL, "blocks",                   \
      "llm, tiered KV: host and remote blocks paused requests still held "     \
      "when the run ended; 0 unless requests were cut off")                    \
    X(prefix_hit_rate, F64, "prefix_hit_rate", "prefix_hit_rate", NULL,        \
      "fraction",                                                              \
      "hit / looked-up prompt blocks; NAN when none was looked up")            \
    X(prefix_lookup_blocks, U64, "kv.prefix_lookup_blocks",                    \
      "kv.prefix_lookup_blocks", NULL, "blocks",                               \
      "hashed prompt blocks looked up")                                        \
    X(prefix_hits_gpu, U64, "kv.prefix_hits_hbm", "kv.prefix_hits_hbm", NULL,  \
      "blocks", "found in HBM")                                                \
    X(prefix_hits_host, U64, "kv.prefix_hits_host", "kv.prefix_hits_host",     \
      NULL, "blocks", "found in host memory (offload)")                        \
    X(prefix_hits_remote, U64, "kv.prefix_hits_remote",                        \
      "kv.prefix_hits_remote", NULL, "blocks", "found in the remote tier")     \
    X(kv_offload_bytes, U64, "kv.offload_bytes", "kv.offload_bytes", NULL,     \
      "bytes", "HBM -> host, evicted cached blocks")                           \
    X(kv_offload_remote_bytes, U64, "kv.offload_remote_bytes",                 \
      "kv.offload_remote_bytes", NULL, "bytes", "host -> remote")              \
    X(kv_fetch_bytes, U64, "kv.fetch_bytes", "kv.fetch_bytes", NULL, "bytes",  \
      "host -> HBM, hits")                                                     \
    X(kv_fetch_remote_bytes, U64, "kv.fetch_remote_bytes",                     \
      "kv.fetch_remote_bytes", NULL, "bytes", "remote -> HBM, hits")           \
    X(swaps_out, U64, "kv.swaps_out", "kv.swaps_out", NULL, "requests",        \
      "swap preemptions")                                                      \
    X(swaps_in, U64, "kv.swaps_in", "kv.swaps_in", NULL, "requests",           \
      "swapped requests resumed")                                              \
    X(swap_bytes, U64, "kv.swap_bytes", "kv.swap_bytes", NULL, "bytes",        \
      "both directions")                                                       \
    X(swap_fallbacks, U64, "kv.swap_fallbacks", "kv.swap_fallbacks", NULL,     \
      "requests", "swap space full: recomputed")                               \
    X(kv_tiered, U64, NULL, NULL, NULL, "",                                    \
      "1 when tiered KV was on (the kv.seq_* members are left out otherwise)") \
    X(kv_seq_host_bytes, U64, "kv.seq_host_bytes", "kv.seq_host_bytes", NULL,  \
      "bytes", "tiered KV: preempted requests' KV to and from host memory")    \
    X(kv_seq_remote_bytes, U64, "kv.seq_remote_bytes", "kv.seq_remote_bytes",  \
      NULL, "bytes",                                                           \
      "tiered KV: preempted requests' KV to and from the remote tier")         \
    X(kv_recompute_chosen, U64, "kv.recompute_chosen", "kv.recompute_chosen",  \
      NULL, "requests",                                                        \
      "tiered KV: preemptions recomputed because that was cheaper")            \
    X(kv_stall_s, F64, "kv.stall_s", "kv.stall_s", NULL, "s",                  \
      "tiered KV: iteration time waiting for prefetched KV beyond compute")    \
    X(kv_transfer_s, F64, "kv.transfer_s", "kv.transfer_s", NULL, "s",         \
      "iteration time spent waiting for fetches and swaps")                    \
    X(pd_transfers, U64, "kv.pd_transfers", "kv.pd_transfers", NULL, "",       \
      "P/D: KV transfers")                                                     \
    X(pd_bytes, U64, "kv.pd_bytes", "kv.pd_bytes", NULL, "bytes",              \
      "P/D: bytes transferred")                                                \
    X(pd_transfer_ms_mean, F64, "kv.pd_transfer_ms_mean",                      \
      "kv.pd_transfer_ms_mean", NULL, "ms",                                    \
      "P/D: mean transfer time; NAN without transfers")                        \
    X(migrate_on, U64, NULL, NULL, NULL, "",                                   \
      "1 under cluster.drain: migrate, rebalance or defrag, or once a "        \
      "policy's decision drained a replica with the mode migrate (the "        \
      "migration members are left out otherwise)")                             \
    X(migrations, U64, "migration.requests", "migration.requests", NULL,       \
      "requests", "drain: migrate: requests moved with their KV")              \
    X(migration_bytes, U64, "migration.bytes", "migration.bytes", NULL,        \
      "bytes", "drain: migrate: KV bytes copied (pre-copy and stop-and-copy)") \
    X(migration_downtime_ms_mean, F64, "migration.downtime_ms_mean",           \
      "migration.downtime_ms_mean", NULL, "ms",                                \
      "drain: migrate: mean stop-and-copy time per moved request; NAN "        \
      "without migrations")                                                    \
    X(migration_fallbacks, U64, "migration.fallbacks", "migration.fallbacks",  \
      NULL, "drains",                                                          \
      "drain: migrate: drains with no replica to move to (finished in "        \
      "place)")                                                                \
    X(migration_bytes_nvlink, U64, "migration.bytes_nvlink",                   \
      "migration.bytes_nvlink", NULL, "bytes",                                 \
      "of migration.bytes, those that crossed NVLink (source and target on "   \
      "one node); left out when 0")                                            \
    X(migration_defrag, U64, "migration.defrag", "migration.defrag", NULL,     \
      "requests",                                                              \
      "cluster.defrag: of migration.requests, those moved to make room for a " \
      "waiting prompt; left out when 0")                                       \
    X(classes, CLASSES, "priority_classes", NULL, NULL, "",                    \
      "per priority class, or NULL; in JSON only when there are any")          \
    X(recovery_s_mean, F64, "recovery_s_mean", "recovery_s_mean", NULL, "s",   \
      "failure -> replacement serving; NAN without failures")                  \
    X(borrowed_gpu_hours, F64, "borrowed_gpu_hours", "borrowed_gpu_hours",     \
      NULL, "GPU-h", "taken from borrowable (test) pools")                     \
    X(prefill_gpu_hours, F64, "prefill_gpu_hours", "prefill_gpu_hours", NULL,  \
      "GPU-h",                                                                 \
      "GPU time of LLM engine steps spent prefilling: steps of prompts only, " \
      "and of a mixed step the time beyond a decode-only step of its "         \
      "decoders; omitted when 0 (abstract servers)")                           \
    X(decode_gpu_hours, F64, "decode_gpu_hours", "decode_gpu_hours", NULL,     \
      "GPU-h",                                                                 \
      "GPU time of LLM engine steps spent decoding (the rest of each step); "  \
      "omitted with prefill_gpu_hours")                                        \
    X(cold_start_waits, U64, "cold_start_waits", "cold_start_waits", NULL,     \
      "requests",                                                              \
      "min_gpus 0: arrived with no replica serving; omitted when 0")           \
    X(cold_start_wait_s_mean, F64, "cold_start_wait_s_mean",                   \
      "cold_start_wait_s_mean", NULL, "s",                                     \
      "their mean wait from arrival until a replica served")                   \
    X(reclaims, U64, "reclaim.claims", "reclaim.claims", NULL, "claims",       \
      "owners' claims on borrowable pools; omitted when 0")                    \
    X(reclaim_replicas, U64, "reclaim.replicas", "reclaim.replicas", NULL,     \
      "replicas", "given notice by a claim (pending ones cancelled)")          \
    X(reclaim_gpus, U64, "reclaim.gpus", "reclaim.gpus", NULL, "GPUs",         \
      "theirs, handed back to the owners")                                     \
    X(reclaim_handed_back, U64, "reclaim.handed_back", "reclaim.handed_back",  \
      NULL, "replicas", "still busy when their notice ended")                  \
    X(reclaim_requests_restarted, U64, "reclaim.requests_restarted",           \
      "reclaim.requests_restarted", NULL, "requests",                          \
      "restarted elsewhere at a notice's end")                                 \
    X(reclaim_kv_tokens_lost, F64, "reclaim.kv_tokens_lost",                   \
      "reclaim.kv_tokens_lost", NULL, "tokens",                                \
      "KV those replicas held then, recomputed elsewhere")                     \
    X(reclaim_late_gpus, U64, "reclaim.late_gpus", "reclaim.late_gpus", NULL,  \
      "GPUs",                                                                  \
      "still ours at a notice's end beyond what the owner left (a check: 0)")  \
    X(interruptions, U64, "interruption.events", "interruption.events", NULL,  \
      "interruptions",                                                         \
      "spot interruptions that hit a replica; omitted when 0")                 \
    X(interruption_gpus, U64, "interruption.gpus", "interruption.gpus", NULL,  \
      "GPUs", "of the replicas interrupted")                                   \
    X(interruption_handed_back, U64, "interruption.handed_back",               \
      "interruption.handed_back", NULL, "replicas",                            \
      "still busy when their notice ended")                                    \
    X(interruption_requests_restarted, U64, "interruption.requests_restarted", \
      "interruption.requests_restarted", NULL, "requests",                     \
      "restarted elsewhere at a notice's end")                                 \
    X(interruption_kv_tokens_lost, F64, "interruption.kv_tokens_lost",         \
      "interruption.kv_tokens_lost", NULL, "tokens",                           \
      "KV those replicas held then, recomputed elsewhere")                     \
    X(interruption_late_gpus, U64, "interruption.late_gpus",                   \
      "interruption.late_gpus", NULL, "GPUs",                                  \
      "held past a notice's end (a check: 0)")                                 \
    X(gpu_hours_by_state, STATES, "gpu_hours_by_state", "gpu_hours", NULL,     \
      "GPU-h", "GPU time by replica state")                                    \
    X(pools, POOLS, "pools", "pools", NULL, "", "per pool accounting")         \
    X(queue_len_mean, F64, "queue_len_mean", "queue_len_mean", NULL,           \
      "requests", "time-weighted waiting, whole run")                          \
    X(arrival_rate_per_s, F64, "arrival_rate_per_s", "arrival_rate_per_s",     \
      NULL, "1/s", "after warm-up (Little's law check)")                       \
    X(utilization, F64, "utilization", "utilization", NULL, "fraction",        \
      "busy slots / slots, time-weighted")                                     \
    X(sim_events, U64, "sim_events", "sim_events", NULL, "events", "")         \
    X(sim_time_s, F64, "sim_time_s", "sim_time_s", NULL, "s",                  \
      "simulated time from 0 to the last event")                               \
    X(wall_s, F64, "wall_s", "wall_s", NULL, "s",                              \
      "wall-clock time of the simulation")                                     \
    X(events_per_s, F64, "events_per_s", "events_per_s", NULL, "1/s",          \
      "sim_events / wall_s")                                                   \
    X(notes, NOTES, "notes", "notes", NULL, "",                                \
      "human-readable notes (e.g. \"elastic scaling not simulated yet\")")     \
    X(series, SERIES, NULL, "timeseries", NULL, "",                            \
      "one row per metrics interval")                                          \
    X(pool_gpus_mean, CELLS, NULL, "pool_series", NULL, "GPUs",                \
      "per pool and interval: time-weighted GPUs held")                        \
    X(pool_cost_usd, CELLS, NULL, "pool_series", NULL, "USD",                  \
      "per pool and interval: the interval's cost (a reserved pool: its "      \
      "whole capacity)")                                                       \
    X(replica_series, REPLICAS, "replica_series", "replica_series", NULL, "",  \
      "per replica and interval, by interval then start order; in JSON only "  \
      "on request (rpt_summary_json_replicas)")                                \
    X(replica_series_dropped, U64, NULL, NULL, NULL, "rows",                   \
      "replica series rows past CL_REPLICA_SERIES_MAX (a note says so)")       \
    X(stages, STAGES, "stages", "stages", NULL, "",                            \
      "per load stage, every request counted (one for an unstaged source)")    \
    X(requests, REQUESTS, NULL, "requests", NULL, "",                          \
      "per request, with metrics.requests; not in JSON")                       \
    X(requests_rows_dropped, U64, NULL, NULL, NULL, "rows",                    \
      "request rows past CL_REQUESTS_MAX (a note says so)")

/* Fields of mechanisms most scenarios do not use, left out of the JSON
 * and the summary table while every value of the group is 0, so that the
 * outputs of the other scenarios stay as they were: X(field, first) omits
 * field when first, the group's count, is 0. */
#define CL_RESULTS_OMIT_ZERO(X)                                                \
    X(cold_start_waits, cold_start_waits)                                      \
    X(cold_start_wait_s_mean, cold_start_waits)                                \
    X(reclaims, reclaims)                                                      \
    X(reclaim_replicas, reclaims)                                              \
    X(reclaim_gpus, reclaims)                                                  \
    X(reclaim_handed_back, reclaims)                                           \
    X(reclaim_requests_restarted, reclaims)                                    \
    X(reclaim_kv_tokens_lost, reclaims)                                        \
    X(reclaim_late_gpus, reclaims)                                             \
    X(interruptions, interruptions)                                            \
    X(interruption_gpus, interruptions)                                        \
    X(interruption_handed_back, interruptions)                                 \
    X(interruption_requests_restarted, interruptions)                          \
    X(interruption_kv_tokens_lost, interruptions)                              \
    X(interruption_late_gpus, interruptions)                                   \
    X(kv_seq_host_bytes, kv_tiered)                                            \
    X(kv_seq_remote_bytes, kv_tiered)                                          \
    X(kv_recompute_chosen, kv_tiered)                                          \
    X(kv_stall_s, kv_tiered)                                                   \
    X(migrations, migrate_on)                                                  \
    X(migration_bytes, migrate_on)                                             \
    X(migration_downtime_ms_mean, migrate_on)                                  \
    X(migration_fallbacks, migrate_on)                                         \
    X(migration_bytes_nvlink, migration_bytes_nvlink)                          \
    X(migration_defrag, migration_defrag)                                      \
    X(prefill_gpu_hours, prefill_gpu_hours)                                    \
    X(decode_gpu_hours, prefill_gpu_hours)

/* Summary-table rows the database writes in another place than the list
 * (and the JSON) has them, kept so that databases stay byte-identical:
 * X(field, after) writes field's rows right after those of after. */
#define CL_RESULTS_DB_MOVED(X)                                                 \
    X(sim_time_s, requests_per_s)                                              \
    X(swap_bytes, swap_fallbacks)

#endif /* CL_RESULTS_FIELDS_H */
