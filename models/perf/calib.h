/*
 * Calibration of the step-time model: the achieved fractions of peak, the
 * fixed time of a GPU kernel and the host overheads that turn datasheet
 * peaks into predicted times, for one GPU kind (struct perf_gpu_calib), and
 * the YAML profile that carries them per GPU kind and per link class with
 * its provenance (struct perf_calib, docs/step-time.md "Calibration
 * profile"). Built-in defaults stand in for a profile; their values and
 * sources are in calib.c and in models/perf/calibration-default.yaml, which
 * holds exactly them. Efficiencies are fractions in (0, 1], times are ns
 * (doubles in the resolved struct). A loaded profile owns its strings and
 * arrays; resolved constants borrow nothing from it except the source
 * string. Single-threaded, no global state.
 */
#ifndef PERF_CALIB_H
#define PERF_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/gpu/gpu.h"
#include "models/net/net.h"
#include "base/diag.h"
#include "base/param.h"

/* The profile format this code reads (the root key "format"). */
#define PERF_CALIB_FORMAT 1

/* The most GPU entries and link entries one profile may hold. */
#define PERF_CALIB_MAX_GPUS 64
#define PERF_CALIB_MAX_LINKS 32

/* Largest profile file read, in bytes. */
#define PERF_CALIB_MAX_BYTES (1u << 20)

/* The GPU entry that applies to every GPU kind without its own. */
#define PERF_CALIB_DEFAULT_GPU "default"

/* The inter-node link class assumed between nodes (EP and PP groups that
 * span nodes): InfiniBand NDR, one NIC per GPU as on DGX H100 (docs/sources.md
 * §2.1, §2.3). An assumption; a profile may recalibrate the class. */
#define PERF_CALIB_INTER_LINK "ib-ndr"

/* The calibrated constants of one GPU kind, as the model uses them. */
struct perf_gpu_calib {
    /* GEMMs: achieved compute fraction eta(M) = gemm_eff_max * M / (M +
     * gemm_half_tokens) for M rows (tokens), HBM fraction when
     * memory-bound, and a fixed time per GEMM kernel. */
    double gemm_eff_max;
    double gemm_half_tokens;
    double gemm_eff_memory;
    double gemm_kernel_ns;
    /* Attention kernels (FlashAttention, FlashMLA): compute and HBM
     * fractions and a fixed time per kernel. */
    double attn_eff_compute;
    double attn_eff_memory;
    double attn_kernel_ns;
    /* Norms, rotary embedding, activation, residual add, routing: HBM
     * fraction and fixed time per kernel. */
    double elem_eff_memory;
    double elem_kernel_ns;
    /* Host time per iteration and per sequence in the batch. */
    double iteration_overhead_ns;
    double seq_overhead_ns;
    /* Launch cost added to every kernel's fixed time: outside a CUDA graph
     * (eager: the gap a host launch leaves on an idle stream) and inside
     * one (graph replay). The class kernel times above are GPU-side. */
    double launch_eager_ns;
    double launch_graph_ns;
    /* The API front end, outside the step (docs/serving.md "Front end"):
     * per request and per prompt token before the engine queue, per
     * output token after the engine. A scenario's server.frontend keys,
     * when given, replace them. */
    double frontend_request_ns;
    double frontend_prompt_token_ns;
    double frontend_output_token_ns;
    /* Expert-parallel all-to-all by DeepEP kernel class (docs/step-time.md
     * "Expert parallelism"): achieved bandwidth per GPU as a ratio to the
     * nominal per-direction bandwidth of the link it crosses (intra: the
     * intra link; inter: the inter link's share per GPU), and a fixed time
     * per dispatch or combine. normal: batches with a prefill; low_latency
     * (ll): decode-only batches. */
    double a2a_normal_intra;
    double a2a_normal_inter;
    double a2a_normal_base_ns;
    double a2a_ll_intra;
    double a2a_ll_inter;
    double a2a_ll_base_ns;
    /* Link classes, copies (their name and summary strings are static):
     * the GPU's intra-node link (gpu_intra_link()) and the inter-node one
     * (PERF_CALIB_INTER_LINK), each recalibrated by the profile's entry
     * for its class name. */
    struct net_link intra;
    struct net_link inter;
    /* "built-in defaults" or the profile's file name; borrowed from the
     * profile (valid while it lives) or static. */
    const char *source;
};

/* One GPU entry of a profile: the values it gives. Unset doubles are NAN,
 * unset durations -1; sections follow the YAML keys. */
struct perf_calib_gemm {
    double eff_max;
    double half_tokens;
    double eff_memory;
    int64_t kernel_ns;
};

struct perf_calib_attn {
    double eff_compute;
    double eff_memory;
    int64_t kernel_ns;
};

struct perf_calib_elem {
    double eff_memory;
    int64_t kernel_ns;
};

struct perf_calib_launch {
    int64_t eager_ns;
    int64_t graph_ns;
};

struct perf_calib_frontend {
    int64_t request_ns;
    int64_t per_prompt_token_ns;
    int64_t per_output_token_ns;
};

/* The alltoall section: bandwidth ratios (NAN unset) and fixed times (-1
 * unset) of DeepEP's normal and low-latency kernels. */
struct perf_calib_alltoall {
    double normal_intranode;
    double normal_internode;
    int64_t normal_base_ns;
    double low_latency_intranode;
    double low_latency_internode;
    int64_t low_latency_base_ns;
};

/* The uncertainty of an entry's values (docs/calibration.md "Uncertainty"):
 * the standard error of each fitted key, the correlations among keys fitted
 * together (the covariance of a group is r * se_a * se_b; keys of different
 * groups are independent), and, from a serving fit, the model's structural
 * error left in its residuals. */
#define PERF_CALIB_MAX_UNC 64

/* One uncertainty.std_errors pair: the key (a key of the entry, dotted:
 * "gemm.hbm_efficiency", "iteration_overhead", "alpha") and its standard
 * error in the key's plain unit (a fraction, tokens, seconds, B/s). */
struct perf_calib_se {
    char *key;  /* owned */
    char *text; /* as written; owned */
    int line, col;
    double se;
};

/* One uncertainty.correlation element: keys a and b correlate by r. */
struct perf_calib_corr {
    char *a, *b; /* owned */
    double r;
};

/* Relative standard deviation of the model's own error per metric (a
 * fraction; NAN when not given), estimated from a serving fit's
 * cross-validated residuals: prediction intervals widen by it. */
struct perf_calib_structural {
    double ttft, tpot, e2e;
};

struct perf_calib_unc {
    struct perf_calib_se *std_errors; /* owned */
    int nstd_errors;
    struct perf_calib_corr *correlation; /* owned */
    int ncorrelation;
    struct perf_calib_structural structural;
    char *fit; /* free text: what was fitted to what; owned, or NULL */
};

struct perf_calib_gpu {
    char *name; /* GPU kind, or PERF_CALIB_DEFAULT_GPU; owned */
    struct perf_calib_gemm gemm;
    struct perf_calib_attn attn;
    struct perf_calib_elem elem;
    struct perf_calib_launch launch;
    struct perf_calib_frontend frontend;
    struct perf_calib_alltoall alltoall;
    int64_t iteration_overhead_ns;
    int64_t seq_overhead_ns;
    struct perf_calib_unc unc; /* all zero: none */
};

/* One link entry: replaces the given figures of the catalog class name. */
struct perf_calib_link {
    char *name; /* net_link catalog name; owned */
    int64_t alpha_ns;
    double bytes_per_s;
    double efficiency;
    int64_t car_sync_ns; /* custom_allreduce_latency: net_link.car_sync_ns */
    struct perf_calib_unc unc; /* all zero: none */
};

/* A loaded profile. Fill with perf_calib_load(), free with
 * perf_calib_fini(). */
struct perf_calib {
    char *file; /* the path it was read from; owned */
    /* SHA-256 of the text it was loaded from, 64 hex digits ("" for the
     * built-in profile and for profiles made in memory). */
    char sha256[65];
    int format;
    /* Provenance: the tool and version that wrote it, the date (ISO 8601),
     * the host measured, its raw log file and a free note; tool and date
     * are required, the others NULL when absent. Owned. */
    char *tool;
    char *date;
    char *host;
    char *raw_log;
    char *note;
    struct perf_calib_gpu *gpus; /* owned, ngpus entries */
    int ngpus;
    struct perf_calib_link *links; /* owned, nlinks entries */
    int nlinks;
};

/* The built-in profile (the documented defaults), static: a "default"
 * entry and one entry per catalog GPU, by generation (docs/step-time.md);
 * no link entries. */
extern const struct perf_calib perf_calib_builtin;

/* Parameter rows of one GPU entry and of one link entry (their YAML keys,
 * units, ranges and help), for the loader and for help text. */
extern const struct sim_param perf_calib_gpu_rows[];
extern const struct sim_param perf_calib_link_rows[];

/* The profile's root rows (format, provenance, the gpus map of
 * perf_calib_gpu_rows entries, the links map of perf_calib_link_rows
 * entries), read-only: what perf_calib_load() walks, for tests and help
 * that go through every key. */
extern const struct sim_param perf_calib_rows[];

/* Reads the profile at path into out. Every problem is added to d as
 * "path:line:col: error: KEY.PATH: what was expected": YAML syntax (stops
 * the load), unknown keys (with the valid ones), wrong types, values out
 * of range, duplicate entries, an unknown link class, a missing format,
 * provenance.tool or provenance.date, a format other than
 * PERF_CALIB_FORMAT. Returns 0; SIM_EIO when the file cannot be read or is
 * larger than PERF_CALIB_MAX_BYTES; SIM_EPARSE for a syntax error;
 * SIM_EINVAL for any other error. On failure out is zeroed and owns
 * nothing. */
int perf_calib_load(const char *path, struct perf_calib *out,
                    struct sim_diag *d);

/* As perf_calib_load() from len bytes of text, reporting positions under
 * the file name name. */
int perf_calib_load_string(const char *name, const char *text, size_t len,
                           struct perf_calib *out, struct sim_diag *d);

/* Writes c as a profile that perf_calib_load() reads back to the same
 * values (doubles to 6 significant digits, durations to the nanosecond):
 * format, provenance, every GPU and link entry with the keys it gives and
 * its uncertainty. Returns 0, or SIM_EIO when writing fails. */
int perf_calib_write(FILE *fp, const struct perf_calib *c);

/* Frees what c owns and zeroes it. NULL is a no-op. */
void perf_calib_fini(struct perf_calib *c);

/* Returns the entry of c for the GPU kind name (ASCII case ignored), or
 * NULL. Borrowed from c. */
const struct perf_calib_gpu *perf_calib_find_gpu(const struct perf_calib *c,
                                                 const char *name);

/* Fills out with the constants for GPU g: the built-in profile's "default"
 * entry, then its entry for g->name, then the same two entries of c (when
 * c is not NULL), each given value replacing the one before; the intra
 * link is gpu_intra_link(g) and the inter link PERF_CALIB_INTER_LINK, each
 * then replaced field by field by c's link entry of the same class name.
 * out->source borrows c->file (or a static string). */
void perf_calib_resolve(const struct perf_calib *c, const struct gpu_spec *g,
                        struct perf_gpu_calib *out);

/* ---- calibrated keys and their distribution ---- */

/* A key of a GPU entry ("gemm.hbm_efficiency") or of a link entry
 * ("alpha"): its row (unit, range) and its offset in struct perf_calib_gpu
 * or struct perf_calib_link. Values are read and written in the row's
 * plain unit (durations in seconds). */
struct perf_calib_key {
    const struct sim_param *row; /* a SIM_PT_DOUBLE or SIM_PT_DURATION row */
    size_t offset;
};

/* Finds key in the GPU rows (link 0) or the link rows (link 1). Returns 0,
 * or SIM_ENOTFOUND for an unknown or non-numeric key. */
int perf_calib_key_find(const char *key, int link, struct perf_calib_key *out);

/* The value of k in entry (a struct perf_calib_gpu or perf_calib_link), in
 * the plain unit, or NAN when the entry does not give it. */
double perf_calib_key_get(const struct perf_calib_key *k, const void *entry);

/* Stores v (plain unit; a duration is rounded to the nanosecond) as k's
 * value in entry. */
void perf_calib_key_set(const struct perf_calib_key *k, void *entry, double v);

/* The value of the GPU key k that perf_calib_resolve() would use for the
 * GPU kind gpu: c's entry for gpu, else c's default entry, else the
 * built-in ones (c may be NULL). */
double perf_calib_key_resolved(const struct perf_calib *c, const char *gpu,
                               const struct perf_calib_key *k);

/* The joint normal distribution of a profile's uncertain values for one GPU
 * kind: every key with a standard error in c's entry for the kind or in its
 * default entry (a default key that the kind's entry sets is not used, so
 * its error is dropped), and in every link entry. */
struct perf_calib_dist_param {
    int link;  /* -1: a GPU entry; else the index into c->links */
    int entry; /* index into c->gpus (link -1) */
    char key[48];
    struct perf_calib_key k;
    double mean, se;
};

struct perf_calib_dist {
    int n;
    struct perf_calib_dist_param p[PERF_CALIB_MAX_UNC];
    /* Lower-triangular Cholesky factor of the relative covariance
     * (cov_ij / (mean_i mean_j) for positive means), row-major n x n: a
     * draw is mean * exp((L z)_i) for z standard normal, log-normal with
     * the stated relative errors (mean + (L z)_i for a mean of 0). */
    double chol[PERF_CALIB_MAX_UNC * PERF_CALIB_MAX_UNC];
    /* The GPU entry's structural error (the kind's, else the default's). */
    struct perf_calib_structural structural;
};

/* Fills out for c and the GPU kind gpu. Returns out->n (0: c carries no
 * uncertainty for it). c must have been loaded (its matrices checked). */
int perf_calib_dist_init(const struct perf_calib *c, const char *gpu,
                         struct perf_calib_dist *out);

/* As perf_calib_dist_init() for the ngpus GPU kinds of a scenario's pools:
 * every kind's own entry once, and the default entry's keys that at least
 * one kind uses; the structural error is the first kind's (else the
 * default entry's). */
int perf_calib_dist_init_kinds(const struct perf_calib *c,
                               const char *const *gpus, int ngpus,
                               struct perf_calib_dist *out);

/* Writes the draw mean * exp(L z) (z: dist->n standard normal values) into dst,
 * a copy of the profile dist was made from (perf_calib_copy()), each value
 * kept inside its row's range. */
void perf_calib_dist_draw(const struct perf_calib_dist *dist, const double *z,
                          struct perf_calib *dst);

/* Deep copy of src into dst (free with perf_calib_fini()). */
void perf_calib_copy(const struct perf_calib *src, struct perf_calib *dst);

/* Cholesky factor L (row-major, lower) of the n x n symmetric matrix a,
 * allowing positive semidefinite matrices (a pivot within a relative 1e-10
 * of zero gives a zero column). Returns 0, or -1 when a is not positive
 * semidefinite. */
int perf_cholesky_psd(const double *a, int n, double *l);

/* The GEMM compute efficiency for m_tokens rows: gemm_eff_max * m / (m +
 * gemm_half_tokens), 0 for m <= 0. */
double perf_gemm_eff(const struct perf_gpu_calib *c, double m_tokens);

/* How an operator's time is bound (perf_op_ns() sets it). */
enum perf_bound {
    PERF_BOUND_NONE,    /* no work */
    PERF_BOUND_COMPUTE, /* FLOPs / (eff * peak) is the larger */
    PERF_BOUND_MEMORY,  /* bytes / (eff * HBM) is the larger */
    PERF_BOUND_COMM,    /* a collective or transfer */
    PERF_BOUND_HOST,    /* host (CPU) time */
};

/* The time of one operator class in ns, a roofline plus fixed kernel time:
 * max(flops / (eff_compute * peak_flops), bytes / (eff_memory *
 * hbm_bytes_per_s)) * 1e9 + kernels * kernel_ns. flops and bytes >= 0;
 * peak_flops > 0 unless flops is 0; eff_* in (0, 1]. *bound (may be NULL)
 * receives the larger side, PERF_BOUND_NONE when flops and bytes are 0
 * (the time is then kernels * kernel_ns). */
double perf_op_ns(double flops, double peak_flops, double eff_compute,
                  double bytes, double hbm_bytes_per_s, double eff_memory,
                  double kernels, double kernel_ns, int *bound);

#endif /* PERF_CALIB_H */
