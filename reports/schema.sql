-- dsec results database, schema version 9.
--
-- One row in runs per simulation run; its scalar metrics in summary (long
-- format: one row per metric, names as in docs/results.md), its time series
-- in timeseries (one row per metrics interval) and its notes in notes.
-- Times are seconds, latencies milliseconds, as the column names say. A NULL
-- value means "not defined" (NAN in the simulator: no samples, no SLO set).
-- The writer turns on foreign keys on every connection it opens.
--
-- Changing this file means raising the version in both places below and
-- RPT_SCHEMA_VERSION in reports/schema.h.

PRAGMA user_version = 9;

CREATE TABLE meta (
    schema_version INTEGER NOT NULL
);
INSERT INTO meta (schema_version) VALUES (9);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,       -- ISO-8601 UTC, from the caller
    scenario_name TEXT,
    scenario_file TEXT,
    scenario_text TEXT,             -- the scenario as read, for re-running
    seed INTEGER NOT NULL,          -- uint64 stored as its int64 bit pattern
    program_version TEXT,
    wall_s REAL,
    sim_time_s REAL,
    status TEXT NOT NULL,           -- 'ok': written whole, in one transaction
    policy TEXT,                    -- scaling policy; NULL for a static cluster
    calibration TEXT,               -- the calibration profile's path, or 'built-in defaults'
    calibration_sha256 TEXT         -- SHA-256 of the profile's text; NULL for the built-in
);

CREATE TABLE summary (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    value REAL,
    PRIMARY KEY (run_id, metric)
);

CREATE TABLE timeseries (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    t_start_s REAL NOT NULL,
    t_end_s REAL NOT NULL,
    arrivals INTEGER NOT NULL,
    completions INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    throughput_tokens_per_s REAL,
    queue_len_mean REAL,
    running_mean REAL,
    replicas_mean REAL,
    ttft_p50_ms REAL,
    ttft_p99_ms REAL,
    tpot_p50_ms REAL,
    tpot_p99_ms REAL,
    e2e_p50_ms REAL,
    e2e_p99_ms REAL,
    gpus_mean REAL,                 -- GPUs held in any state
    desired_replicas INTEGER        -- the orchestrator's target at the end
);
CREATE INDEX timeseries_run_id ON timeseries (run_id, t_start_s);

-- GPU pools: GPU-hours by state (provisioning, loading, serving, idle,
-- draining), what was paid (a reserved pool's whole capacity) and the cost.
CREATE TABLE pools (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    gpu TEXT,
    capacity_gpus INTEGER,
    borrowable INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    price_usd_per_gpu_hour REAL,
    gpu_hours_provisioning REAL,
    gpu_hours_loading REAL,
    gpu_hours_serving REAL,
    gpu_hours_idle REAL,
    gpu_hours_draining REAL,
    gpu_hours_used REAL,
    gpu_hours_paid REAL,
    cost_usd REAL,
    replicas_started INTEGER,
    PRIMARY KEY (run_id, name)
);

-- Per pool and metrics interval: GPUs held (time-weighted) and what the
-- interval cost (a reserved pool: its whole capacity).
CREATE TABLE pool_series (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    t_start_s REAL NOT NULL,
    t_end_s REAL NOT NULL,
    pool TEXT NOT NULL,
    gpus_mean REAL,
    cost_usd REAL
);
CREATE INDEX pool_series_run_id ON pool_series (run_id, t_start_s);

-- Per replica and metrics interval (schema 7), under vLLM's metric names
-- (docs/results.md): every replica that existed in the interval, by its
-- serial (start order). *_mean columns are time-weighted over the whole
-- interval, the others the value at its end; prefix_cache_hit_rate is
-- cumulative (NULL before any lookup); tokens and request_success are the
-- interval's.
CREATE TABLE replica_series (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    t_start_s REAL NOT NULL,
    t_end_s REAL NOT NULL,
    replica INTEGER NOT NULL,       -- serial, 0-based start order
    pool TEXT NOT NULL,
    state TEXT NOT NULL,            -- at the end: provisioning, loading,
                                    -- serving, draining, gone
    num_requests_running_mean REAL,
    num_requests_waiting_mean REAL,
    num_requests_running INTEGER,
    num_requests_waiting INTEGER,
    kv_cache_usage_perc_mean REAL,  -- fraction 0..1; NULL: abstract server
    kv_cache_usage_perc REAL,
    prefix_cache_hit_rate REAL,
    prompt_tokens INTEGER NOT NULL,
    generation_tokens INTEGER NOT NULL,
    request_success INTEGER NOT NULL,
    PRIMARY KEY (run_id, t_start_s, replica)
);

-- One row per load stage (schema 8): every request of the stage, warm-up
-- included; latencies in ms over its completed requests (NULL without
-- one), ITL over its streamed token gaps; the span from its first arrival
-- to its last end.
CREATE TABLE stages (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    stage INTEGER NOT NULL,         -- 0-based
    requests INTEGER NOT NULL,
    completed INTEGER NOT NULL,
    timeouts INTEGER NOT NULL,
    dropped INTEGER NOT NULL,
    span_start_s REAL,
    span_end_s REAL,
    input_tokens_per_s REAL,
    output_tokens_per_s REAL,
    requests_per_s REAL,
    ttft_mean_ms REAL,
    ttft_p50_ms REAL,
    ttft_p90_ms REAL,
    ttft_p99_ms REAL,
    tpot_mean_ms REAL,
    tpot_p50_ms REAL,
    tpot_p90_ms REAL,
    tpot_p99_ms REAL,
    itl_mean_ms REAL,
    itl_p50_ms REAL,
    itl_p90_ms REAL,
    itl_p99_ms REAL,
    e2e_mean_ms REAL,
    e2e_p50_ms REAL,
    e2e_p90_ms REAL,
    e2e_p99_ms REAL,
    PRIMARY KEY (run_id, stage)
);

-- One row per request with metrics.requests (schema 8), in the order they
-- ended; times in s of simulated time, first_token_s NULL before one.
CREATE TABLE requests (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    id INTEGER NOT NULL,            -- arrival index, 0-based
    stage INTEGER NOT NULL,
    arrival_s REAL,
    first_token_s REAL,
    finish_s REAL,
    prompt_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL, -- prefix-cache hit at first admission
    replica INTEGER NOT NULL,       -- serial of the last replica; -1 none
    preemptions INTEGER NOT NULL,
    outcome TEXT NOT NULL,          -- 'ok', 'timeout' or 'dropped'
    PRIMARY KEY (run_id, id)
);

CREATE TABLE notes (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,           -- 0-based, in the order noted
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- Policy comparisons (dsec compare, docs/compare.md): one row per
-- comparison, and one row in comparison_runs per run it made. Replication r
-- of every policy ran with seed comparisons.seed + r.
CREATE TABLE comparisons (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,       -- ISO-8601 UTC, from the caller
    scenario_name TEXT,
    policies TEXT NOT NULL,         -- JSON array of the --policy arguments
    replications INTEGER NOT NULL,
    seed INTEGER NOT NULL           -- of replication 0; bit pattern as runs
);

CREATE TABLE comparison_runs (
    comparison_id INTEGER NOT NULL
        REFERENCES comparisons (id) ON DELETE CASCADE,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    policy TEXT NOT NULL,           -- the --policy argument, with parameters
    replication INTEGER NOT NULL,   -- 0-based
    PRIMARY KEY (comparison_id, run_id)
);
CREATE INDEX comparison_runs_run_id ON comparison_runs (run_id);

-- Cost reports (dsec report, docs/reports.md): the static baseline of an
-- elastic run, the same scenario and seed on a static cluster of the run's
-- peak replicas, itself a run (policy NULL).
CREATE TABLE baselines (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    baseline_run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE
);

-- Sweeps (dsec sweep, docs/sweep.md): one row per sweep, identified by a
-- hash of the sweep file's text and of its base scenario's text, so that
-- running the same sweep again finds its row and runs only the points that
-- have none in sweep_points. A point's row is written in the transaction
-- that writes its run, so a point is either recorded with its whole run or
-- not at all.
CREATE TABLE sweeps (
    id INTEGER PRIMARY KEY,
    name TEXT,
    sweep_file TEXT,
    sweep_hash TEXT NOT NULL UNIQUE, -- 16 hex digits, FNV-1a 64 of the texts
    sweep_text TEXT,                 -- the sweep file as read
    points INTEGER NOT NULL,         -- the number of points of the grid
    created_at TEXT NOT NULL         -- ISO-8601 UTC, from the caller
);

CREATE TABLE sweep_points (
    sweep_id INTEGER NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
    point_key TEXT NOT NULL,        -- canonical overrides: "path=value, ..."
    seq INTEGER NOT NULL,           -- 0-based position in the grid
    run_id INTEGER REFERENCES runs (id) ON DELETE CASCADE, -- NULL unless ok
    status TEXT NOT NULL,           -- 'ok', or 'infeasible' (not simulated)
    message TEXT,                   -- why a point is infeasible
    PRIMARY KEY (sweep_id, point_key)
);
CREATE INDEX sweep_points_run_id ON sweep_points (run_id);

-- The overrides of each point, one row per key path, for queries by axis.
CREATE TABLE sweep_values (
    sweep_id INTEGER NOT NULL,
    point_key TEXT NOT NULL,
    path TEXT NOT NULL,             -- dotted scenario key path, or "seed"
    value TEXT NOT NULL,            -- canonical text of the value
    PRIMARY KEY (sweep_id, point_key, path),
    FOREIGN KEY (sweep_id, point_key)
        REFERENCES sweep_points (sweep_id, point_key) ON DELETE CASCADE
);

-- dsec run --uncertainty N: the prediction interval of each metric from N
-- draws of the calibration's uncertain parameters (docs/calibration.md).
CREATE TABLE prediction_intervals (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    metric TEXT NOT NULL,           -- e2e_ms_mean, ttft_ms_p99, cost_usd, ...
    level REAL NOT NULL,            -- 0.95
    draws INTEGER NOT NULL,
    params INTEGER NOT NULL,        -- uncertain parameters drawn
    structural INTEGER NOT NULL,    -- 1: the profile's structural error added
    lo REAL, hi REAL, median REAL,  -- NULL where the metric is undefined
    PRIMARY KEY (run_id, metric)
);
