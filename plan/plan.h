/*
 * The capacity planner behind `dsec plan` (docs/plan.md): searches GPU kind
 * x replica layout x weight dtype x cluster size x policy for the cheapest
 * configuration of a scenario that meets its SLO (or, for pools with their
 * own layout, the mix of their capacities). Every layout is first
 * priced by the analytic model (models/perf/): one that does not fit in
 * memory, or misses the latency targets even when alone, is dropped, and a
 * throughput bound (the offered tokens per second against one replica's
 * decode rate within the TPOT target and its prefill rate) gives the fewest
 * replicas worth simulating and a cap above which sizes are not considered.
 * The survivors become the points of a sweep spec (sweep/spec.h) built on
 * the scenario file, and run as full simulations on the sweep's worker
 * threads (sweep/pool.h): per layout and policy from the smallest size up,
 * until one meets the SLO (and `beyond` sizes more). Results are means over
 * replications with seeds seed, seed + 1, ...; which runs are made and
 * what they give depend on the inputs alone, never on the number of threads
 * or the order in which runs finish. With --uncertainty, plan_predict()
 * then runs the cheapest configurations that met the SLO through
 * cl_predict() (models/cluster/predict.h) for prediction intervals of the
 * calibration's uncertainty, and --robust chooses by their pessimistic
 * end. A struct plan owns everything it points to (GPU specs are borrowed
 * from the catalog or its scenario) and is used by one thread (the worker
 * threads of plan_run() and plan_predict() only read it). Costs are US
 * dollars, latencies milliseconds, as in struct cl_results. The wall clock
 * is read for progress only.
 */
#ifndef PLAN_PLAN_H
#define PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/arch/arch.h"
#include "models/cluster/config.h"
#include "models/cluster/predict.h"
#include "models/gpu/gpu.h"
#include "models/perf/roofline.h"
#include "base/diag.h"

struct rpt_db;
struct swp_spec;

/* Most requests of the workload read to measure it; the rest is ignored. */
#define PLAN_WL_MAX_REQUESTS 10000000

/* Width of the windows in which the peak arrival rate is counted, in
 * seconds, unless the workload is shorter than four of them (then a
 * quarter of its span). */
#define PLAN_PEAK_WINDOW_S 300.0

/* Most cluster sizes simulated per layout and policy; a longer range is
 * sampled geometrically. */
#define PLAN_MAX_SIZES 32

/* Most configurations (before replications) one plan may hold. */
#define PLAN_MAX_CONFIGS 20000

/* How many of the cheapest configurations that meet the SLO are run
 * through cl_predict() by --uncertainty unless --uncertainty-configs says
 * otherwise: each costs N more simulations, so the number is bounded. */
#define PLAN_PI_CONFIGS 5

/* Level of the prediction intervals of --uncertainty. */
#define PLAN_PI_LEVEL 0.95

/* Most pools a mix may have (pools[].deploy): the grid is the product of
 * their steps. */
#define PLAN_MIX_MAX_POOLS 8

/* Capacities tried per pool of a mix: 0 and the pool's whole capacity in
 * replicas, and between them equal fractions (0, 1/4, 1/2, 3/4, 1 of it
 * with 5), all of them when the pool holds fewer replicas. */
#define PLAN_MIX_STEPS 5

/* The workload figures the bound needs, read from the scenario's own
 * request stream (models/workload/source.h: the same requests, from the
 * same seed, that the simulator sees). */
struct plan_workload {
    uint64_t requests;         /* read */
    int truncated;             /* 1 if reading stopped at the cap */
    double span_s;             /* synthetic duration, else the last
                                  arrival; at least 1 s */
    double rate_mean_per_s;    /* requests / span_s */
    double window_s;           /* width of the peak windows */
    double rate_peak_per_s;    /* most arrivals in one window / window_s */
    double prompt_mean_tokens; /* over the requests read */
    double output_mean_tokens;
};

/* Reads the workload of s (with relative trace paths taken from base_dir)
 * through a workload source on a loop seeded with s->seed, at most
 * PLAN_WL_MAX_REQUESTS requests, and fills *out. Windows for the peak are
 * consecutive, from t = 0; a last partial window counts only when it is
 * the only one. Returns 0, or the source's error (SIM_EIO, SIM_EPARSE,
 * SIM_EINVAL) with diagnostics in d and *out zeroed; SIM_EINVAL also when
 * the workload holds no request. */
int plan_workload_measure(const struct cl_scenario *s, const char *base_dir,
                          struct plan_workload *out, struct sim_diag *d);

/* What the bound prices a layout against. */
struct plan_target {
    int64_t tpot_ns;      /* slo.tpot_ms, -1 for none */
    int64_t ttft_ns;      /* slo.ttft_ms, -1 for none */
    int64_t max_num_seqs; /* server.max_num_seqs, or -1 for vLLM's rule
                             for the layout's GPU */
    int64_t max_num_batched_tokens; /* server.max_num_batched_tokens, or -1
                                       for vLLM's rule for the layout's GPU */
    double headroom; /* sizes up to headroom x the peak estimate, >= 1 */
};

/* The analytic bound of one layout (docs/plan.md derives it). */
struct plan_bound {
    int64_t context_tokens;      /* c = round(mean prompt + mean output / 2) */
    int64_t kv_limit_seqs;       /* floor(KV capacity / c) */
    int64_t batch_seqs;          /* B: the largest decode batch whose cycle is
                                    within the TPOT target (without one: the
                                    saturated batch) */
    int64_t step1_ns;            /* decode cycle of one sequence at c */
    int64_t step_ns;             /* decode cycle of B sequences at c */
    double decode_tokens_per_s;  /* X_d = B / step */
    int64_t prefill_ns;          /* one mean prompt alone, all its chunks */
    double prefill_tokens_per_s; /* X_p: a token budget of mean prompts */
    double replicas_mean;        /* max(lambda O / X_d, lambda P / X_p)
                                    at the mean rate: a lower bound */
    double replicas_peak;        /* the same at the peak rate */
    double replicas_peak_sum;    /* lambda O / X_d + lambda P / X_p at the
                                    peak rate: no overlap of the two */
    int min_replicas;            /* ceil(replicas_mean), >= 1 */
    int peak_replicas;           /* ceil(replicas_peak), >= 1 */
    int cap_replicas; /* max(min, ceil(headroom x replicas_peak_sum)) */
};

/* Computes the bound of replica r for workload w and target t into *out.
 * Returns 0; SIM_EINFEASIBLE when the KV cache cannot hold one sequence of
 * the mean context, or when r cannot meet a target even alone (a decode
 * step of one sequence above tpot, a mean prompt's prefill above ttft),
 * with a one-line reason in why (whylen bytes, may be 0); SIM_EINVAL for a
 * bad argument. *out holds what was computed before the verdict. */
int plan_bound_compute(const struct perf_replica *r,
                       const struct plan_target *t,
                       const struct plan_workload *w, struct plan_bound *out,
                       char *why, size_t whylen);

/* Why a layout is or is not searched. */
enum plan_verdict {
    PLAN_V_FITS,   /* searched */
    PLAN_V_MEMORY, /* weights and one sequence's KV cache do not fit */
    PLAN_V_SLOW,   /* misses a latency target even alone */
    PLAN_V_LIMIT,  /* one replica exceeds --max-gpus or --budget */
};

/* One replica layout on one GPU kind. */
struct plan_layout {
    const struct gpu_spec *gpu; /* borrowed: catalog or scenario */
    int tp, pp, ep;
    int weight_dtype;              /* enum cl_dtype */
    int gpus;                      /* per replica: max(tp, ep) x pp */
    double price_usd_per_gpu_hour; /* the scenario's for its own GPU when
                                      set, else the catalog's */
    int verdict;                   /* enum plan_verdict */
    char *why;                     /* owned; NULL when it fits */
    struct plan_bound bound;       /* PLAN_V_FITS, PLAN_V_SLOW */
    /* A disaggregated scenario (deploy.disaggregation): 1, each group's
     * tp, ep and GPUs per replica (enum cl_pd_group), and the prefill
     * group's bound; tp, ep and gpus above, and bound, are then the
     * decode group's, whose min/cap_replicas size the decode group and
     * pd_prefill's the prefill group. */
    int pd;
    int pd_tp[2], pd_ep[2], pd_gpus[2];
    struct plan_bound pd_prefill;
    /* A mix (plan->mixed, else unset): the pool whose replica this is
     * (layouts[i] is pools[i]'s), its name borrowed from the plan's
     * scenario. */
    int pool;
    const char *pool_name;
};

/*
 * Lists the layouts of the search for scenario s with model a: for each
 * GPU of gpus[0..ngpus-1] (borrowed) and each weight dtype of
 * dtypes[0..ndtypes-1], tensor-parallel degrees 1, 2, 4, ... up to
 * s->hardware.gpus_per_node with s->deploy.pp stages; for a MoE model also
 * expert parallelism ep = k x tp (k = 1, 2, 4, ..., ep >= 2 dividing the
 * routed experts, within one node). When no such layout of a GPU and
 * dtype fits, whole-node layouts with 2, 4, 8 pipeline stages follow until
 * one fits. Each layout's verdict is PLAN_V_FITS or PLAN_V_MEMORY (with
 * perf_replica_init()'s reason); bounds are left zero. Stores a new array
 * the caller frees with plan_layouts_free() in *out and its length in *n.
 */
void plan_layouts_enumerate(const struct cl_scenario *s,
                            const struct arch_spec *a,
                            const struct gpu_spec *const *gpus, int ngpus,
                            const int *dtypes, int ndtypes,
                            struct plan_layout **out, size_t *n);

/* Frees the n layouts of v and v. NULL is a no-op. */
void plan_layouts_free(struct plan_layout *v, size_t n);

/* Writes l's layout as "tp4", "tp1 ep8" or "tp8 pp2" into buf; a
 * disaggregated one as "P tp1 ep8 / D tp1 ep16". */
void plan_layout_name(const struct plan_layout *l, char *buf, size_t len);

struct plan_config;

/* The GPUs of configuration c of a plan whose layouts are ls: replicas x
 * GPUs per replica (elastic: at most), or prefill x its GPUs + decode x
 * its GPUs when disaggregated, or a mix's pools' capacities. */
int plan_config_gpus(const struct plan_layout *ls, const struct plan_config *c);

/* Writes c's replicas into buf: "4", "2-8" (elastic: fewest-most) or
 * "2+1" (disaggregated: prefill + decode). */
void plan_config_replicas(int elastic, const struct plan_config *c, char *buf,
                          size_t len);

/* Marks in on[i] (1 or 0) the points of the Pareto frontier of cost[i]
 * (lower is better) against lat[i] (lower is better) for i < n: those no
 * other point matches or beats on both with one strictly better. Points
 * with a NAN coordinate are never on it; of equal points the first is.
 * Returns how many are on it. O(n^2). */
size_t plan_pareto(const double *cost, const double *lat, size_t n, int *on);

/* A metric over replications: the mean and the half-width of its 95 %
 * confidence interval (Student's t; NAN with one replication). NAN mean
 * when a replication had no value. */
struct plan_stat {
    double mean;
    double ci95;
};

/* The metrics kept per configuration, in this order. */
enum plan_metric {
    PLAN_M_COST,       /* cost_usd */
    PLAN_M_GPU_HOURS,  /* gpu_hours */
    PLAN_M_TTFT_P99,   /* ms */
    PLAN_M_TPOT_P99,   /* ms */
    PLAN_M_E2E_P99,    /* ms */
    PLAN_M_ATTAINMENT, /* fraction */
    PLAN_M_COUNT,
};

/* Where a configuration stands. */
enum plan_state {
    PLAN_C_WAITING,   /* not run (yet) */
    PLAN_C_RUNNING,   /* replications out on the pool */
    PLAN_C_DONE,      /* every replication simulated */
    PLAN_C_FAILED,    /* a replication failed: message says why */
    PLAN_C_DOMINATED, /* not run: a smaller size of its chain met the SLO */
};

/* One configuration: a layout, a cluster size and (elastic) a policy. */
struct plan_config {
    size_t layout;        /* index into plan->layouts */
    const char *policy;   /* a --policies name (borrowed from the plan), or
                             NULL for the scenario's own */
    int replicas;         /* static: the count; elastic: the most */
    int min_replicas;     /* elastic: the fewest; static: replicas */
    int initial_replicas; /* elastic with cluster.initial_gpus; else 0 */
    int pd_decode; /* disaggregated: the decode replicas (replicas is then
                      the prefill group's); 0 otherwise */
    size_t chain;  /* index into plan->chains */
    size_t point;  /* spec point of replication 0 */
    int state;     /* enum plan_state */
    int reps_done;
    char *policy_run; /* the policy the runs report, or NULL (static) */
    char *message;    /* PLAN_C_FAILED: why; owned */
    double *values;   /* [replications][PLAN_M_COUNT], NAN = none */
    struct plan_stat m[PLAN_M_COUNT];
    int meets;    /* mean attainment >= the target */
    int frontier; /* on the Pareto frontier of cost vs plan->latency */
    /* --uncertainty: the 95 % prediction intervals of the first
     * replication's seed under the calibration's uncertainty (owned), or
     * NULL when the configuration was not among those run through
     * cl_predict(). */
    struct cl_pi *pi;
    int holds; /* pi: its lower end of SLO attainment >= the target */
    /* A mix (plan->mixed): the replicas each pool may hold (its
     * capacity_gpus over its replica's GPUs; 0 leaves the pool out), and
     * each pool's GPU-hours and cost in the runs, means over the
     * replications (0 until its runs are in). */
    int mix[PLAN_MIX_MAX_POOLS];
    double mix_gpu_hours[PLAN_MIX_MAX_POOLS];
    double mix_cost[PLAN_MIX_MAX_POOLS];
};

/* The sizes of one layout and policy, smallest first. */
struct plan_chain {
    size_t first; /* index of its first configuration */
    size_t n;
    size_t next; /* next to submit */
    long met;    /* first configuration that met the SLO, or -1 */
    int left;    /* sizes still to run after met */
    int running; /* a configuration is out */
};

/* Counts for the report of what was pruned and why. */
struct plan_counts {
    size_t layouts;      /* enumerated */
    size_t memory;       /* PLAN_V_MEMORY */
    size_t slow;         /* PLAN_V_SLOW */
    size_t limit;        /* PLAN_V_LIMIT */
    size_t chains;       /* fitting layouts x policies */
    size_t below_bound;  /* sizes 1 .. min - 1 of every chain */
    size_t over_limit;   /* sizes min .. cap cut by --max-gpus/--budget */
    size_t sampled_out;  /* sizes min .. cap left out by the sampling */
    size_t candidates;   /* configurations of the spec */
    size_t simulated;    /* PLAN_C_DONE */
    size_t failed;       /* PLAN_C_FAILED */
    size_t dominated;    /* PLAN_C_DOMINATED */
    size_t runs;         /* simulations, replications included */
    size_t capped_unmet; /* chains whose largest size missed the SLO */
    size_t too_many;     /* sizes left out past PLAN_MAX_CONFIGS */
    size_t mix_short;    /* mixes whose capacity is below min_gpus or,
                            at the bound, below the mean load */
};

/* What to search. Borrowed by plan_new() for the plan's life. */
struct plan_opts {
    const char *const *sets; /* --set "key.path=value" overrides applied to
                                the scenario and to every configuration */
    int nsets;
    const char *const *gpus; /* GPU names, or NULL for every catalog GPU
                                (and the scenario's inline ones) */
    int ngpus;
    const int *dtypes; /* weight dtypes, or NULL for the scenario's */
    int ndtypes;
    const char *const *policies; /* elastic only; NULL: the scenario's */
    int npolicies;
    double budget_usd_per_hour; /* most GPU dollars per hour at the largest
                                   size; NAN for none */
    int max_gpus;               /* most GPUs at the largest size; 0 none */
    double attainment;          /* target when the scenario has none */
    double headroom;            /* see struct plan_target */
    int beyond;                 /* sizes run after the first that meets */
    int replications;           /* >= 1 */
    const char *duration;       /* workload duration override, or NULL */
    const char *calibration;    /* --calibration profile, or NULL for the
                                   scenario's own (hardware.calibration or
                                   the built-in) */
    int draws;      /* --uncertainty: draws per configuration, 0 for none,
                       else 2 to CL_PI_MAX_DRAWS */
    int pi_configs; /* --uncertainty-configs: how many, >= 1 (0 means
                       PLAN_PI_CONFIGS) */
    int robust;     /* 1: choose by the pessimistic end (needs draws) */
};

/* Latency metrics a frontier may be drawn against. */
enum plan_latency {
    PLAN_LAT_TPOT,
    PLAN_LAT_TTFT,
    PLAN_LAT_E2E,
};

/* A plan: the scenario, what is searched, the layouts with their bounds,
 * the configurations in chains and their sweep spec, and after
 * plan_run() the results, the frontier marks and the chosen one. Public
 * so that callers can print it; changed only by plan_new() and
 * plan_run(). */
struct plan {
    char *scenario_file; /* as given */
    struct cl_scenario scn;
    const struct arch_spec *arch; /* borrowed from the catalog or scn */
    int elastic;                  /* cluster.min_gpus/max_gpus */
    struct plan_opts opts;
    char *duration_key; /* the key path --duration sets, or NULL */
    double attainment;  /* the target in force */
    int latency;        /* enum plan_latency: the SLO's first target among
                           tpot, ttft, e2e */
    struct plan_workload wl;
    struct plan_target target;
    /* pools with their own layout (cl_pools_mixed()): their count, the
     * layouts being theirs, one each, and each configuration a mix of
     * their capacities; 0 otherwise. pool_flow[i] is pools[i] as flow
     * YAML mapping members without capacity_gpus (owned), from which each
     * point writes its pools list. */
    int mixed;
    char *pool_flow[PLAN_MIX_MAX_POOLS];
    const struct gpu_spec **gpus; /* searched, borrowed */
    int ngpus;
    struct plan_layout *layouts;
    size_t nlayouts;
    struct plan_config *configs;
    size_t nconfigs;
    struct plan_chain *chains;
    size_t nchains;
    struct swp_spec *spec; /* configs x replications, in that order */
    struct plan_counts counts;
    char *calib_path; /* --calibration as an absolute path (what every
                         point's hardware.calibration is set to), or NULL */
    long chosen;      /* the recommendation: without robust, cheapest; with
                         it, the robust pick (plan_predict()); or -1 */
    long cheapest;    /* cheapest configuration that meets the SLO on the
                         plan's own values (means over replications), or -1 */
    size_t *pi_order; /* --uncertainty: the configurations with an
                         interval, in the order of their table (robust:
                         those that hold by the upper end of cost, then the
                         others the same way; else by cost); owned */
    size_t npi;
    double wall_s;
};

/* Why plan_new() failed, for the exit status. */
enum plan_error {
    PLAN_E_INPUT = 1,    /* the scenario, an option value, nothing fits */
    PLAN_E_INTERNAL = 3, /* a generated point did not load */
};

/*
 * Loads the scenario file at path, measures its workload, enumerates and
 * bounds the layouts of o, lists the configurations to simulate and builds
 * their sweep spec. Returns the plan (free with plan_free()), or NULL with
 * diagnostics in d and *err set (enum plan_error): scenario errors; an
 * unknown GPU or policy ("--gpus: unknown gpu 'x'; valid: ..."); a
 * scenario without an LLM server, without an SLO (naming the keys to set),
 * with pools none of which has its own deploy, or whose workload cannot be
 * shortened by o->duration; --gpus or --dtypes on a mix; or
 * nothing left to simulate (every layout's reason summarised by GPU).
 * With o->calibration, the profile replaces the scenario's for the bound
 * and, as hardware.calibration (made absolute) in the spec's set:, for
 * every point; without o->gpus the GPU kinds searched are those the
 * profile calibrates (its own entries known to the scenario or the
 * catalog; every kind when it has a default entry). Errors: a profile
 * that does not load (its own diagnostics), a --gpus kind it does not
 * calibrate ("PROFILE: error: the profile calibrates h100, not a100, which
 * --gpus searches ..."), or none it calibrates that is known. With
 * o->draws, the profile in force must carry uncertainty for every GPU
 * kind searched (else an error naming the kind, or saying that the
 * built-in calibration carries none). o is copied, its arrays borrowed.
 */
struct plan *plan_new(const char *path, const struct plan_opts *o,
                      struct sim_diag *d, int *err);

/* How plan_run() reports progress and where it records runs. */
struct plan_run_opts {
    int jobs;                    /* worker threads, >= 1 */
    FILE *log;                   /* progress, or NULL for none */
    int bar;                     /* 1: a bar redrawn in place (a terminal);
                                    0: a line every 10 s */
    struct rpt_db *db;           /* NULL: nothing recorded */
    const char *program_version; /* stored with each run */
};

/* Simulates the configurations chain by chain on o->jobs threads, then
 * marks the frontier and the chosen configuration. With o->db, records the
 * plan as a sweep (named "plan-" and the scenario's name) and every run as
 * one of its points (rpt_db_write_sweep_point(); a point an identical plan
 * recorded before is kept). Returns 0 (configurations that failed are
 * PLAN_C_FAILED, their errors in d), or SIM_EDB when the database cannot
 * be written (diagnostic in d; the runs so far stay recorded). */
int plan_run(struct plan *p, const struct plan_run_opts *o, struct sim_diag *d);

/*
 * --uncertainty, after plan_run(): runs the cheapest p->opts.pi_configs
 * (or PLAN_PI_CONFIGS) configurations that met the SLO, in the order of
 * p->cheapest's rule, each through cl_predict() with p->opts.draws draws
 * of the calibration's uncertain parameters on the seed of its first
 * replication, and fills their pi and holds, and p->pi_order and npi.
 * With p->opts.robust, p->chosen becomes the robust pick: the lowest upper
 * end of the cost interval among those that hold (ties: the lower upper
 * end of the frontier's latency metric, then the earlier in the search),
 * or -1 when none holds. Up to jobs threads run one configuration's
 * cl_predict() each at a time (a job's draws are serial); progress goes
 * to log (NULL for none) as a bar when bar is 1, else a line every 10 s.
 * What comes out depends on the inputs alone. Returns 0 (also when
 * nothing met the SLO: npi is 0); SIM_EINVAL without draws; or the first
 * failure of a load or a run (in d), the intervals then unset.
 */
int plan_predict(struct plan *p, int jobs, FILE *log, int bar,
                 struct sim_diag *d);

/* The scenario text of configuration i's first replication, borrowed from
 * the plan. */
const char *plan_config_text(const struct plan *p, size_t i);

/* The whole scenario of configuration i over the scenario's own workload
 * duration: as plan_config_text(), but without --duration's change
 * (--set, the configuration's keys and --calibration applied). Returns the
 * text (caller frees with free()), or NULL with diagnostics in d when it
 * does not load (it loaded shortened, so it should). */
char *plan_config_scenario(const struct plan *p, size_t i, struct sim_diag *d);

/* The keys that turn the scenario into configuration i, as
 * "path: value" lines of the spec's canonical values, sorted by key path,
 * each preceded by indent. Caller frees with free(). */
char *plan_config_overrides(const struct plan *p, size_t i, const char *indent);

/* The key path of spec column c of configuration i's point and its value
 * (NULL when the point does not set it); for JSON output. Returns the
 * number of columns when c is out of range and sets nothing. */
int plan_config_value(const struct plan *p, size_t i, int c, const char **path,
                      const char **value);

/* The target of the frontier's latency metric in ms, or NAN. */
double plan_latency_target_ms(const struct plan *p);

/* Static names of the frontier's latency metric: "tpot", "ttft", "e2e". */
const char *plan_latency_name(int latency);

/* Draws the frontier chart into png with the gnuplot at gnuplot_path: every
 * simulated configuration as a point of cost against the latency metric,
 * those that meet the SLO filled, the frontier as a line, the chosen one
 * ringed, the latency target as a dashed line. Returns 0, or SIM_EIO with
 * "PNG: error: cannot draw chart: ..." in d, also when gnuplot_path is NULL
 * (no gnuplot). */
int plan_chart(const struct plan *p, const char *gnuplot_path, const char *png,
               struct sim_diag *d);

/* Frees p and everything it owns. NULL is a no-op. */
void plan_free(struct plan *p);

#endif /* PLAN_PLAN_H */
