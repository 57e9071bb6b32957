/*
 * What the two extremes tests share (tests/check_extremes.c for the
 * scenario schema, tests/check_extremes_configs.c for calibration
 * profiles, sweep files and the scaler's configuration): the checks of a
 * refusal and of a run's results, and the budgeted child. Static, for
 * tests only.
 */
#ifndef TESTS_EXTREMES_H
#define TESTS_EXTREMES_H

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "models/cluster/results.h"
#include "base/diag.h"

/* The values every numeric key is driven through besides its range's
 * ends: 0, negatives, tiny, huge, NaN, +-Inf, past int64 and uint64. */
static const char *const extremes_fixed[] = {
    "0",
    "-1",
    "1e-300",
    "5e-324",
    "1e300",
    "1e308",
    "-1e300",
    ".nan",
    ".inf",
    "-.inf",
    "9223372036854775808",
    "18446744073709551616",
};
#define EXTREMES_NFIXED (sizeof(extremes_fixed) / sizeof(extremes_fixed[0]))

/* Appends v to vals (64-byte strings) when it is finite. */
static inline void extremes_add_value(char (*vals)[64], int *n, double v)
{
    if (!isfinite(v))
        return;
    snprintf(vals[(*n)++], 64, "%.17g", v);
}

/* Whether d holds an error at a line and column; prints it otherwise. */
static inline int extremes_positioned(const struct sim_diag *d,
                                      const char *label)
{
    for (int i = 0; i < d->n; i++)
        if (d->v[i].sev == SIM_SEV_ERROR && d->v[i].line > 0 && d->v[i].col > 0)
            return 1;
    fprintf(stderr, "%s: refused without a positioned error\n", label);
    sim_diag_print(d, stderr);
    return 0;
}

/* Why a run's results are absurd, or NULL: latencies negative or
 * infinite, times and counts negative, rates infinite; for an llm server
 * (llm != 0) also a TTFT or TPOT of 0 or less over served requests (an
 * abstract server's service time may be 1 ns, below the latency
 * summaries' resolution).
 * NaN means "no sample" and passes. */
static inline const char *extremes_absurd(const struct cl_results *r, int llm)
{
    static char why[200];

    for (int i = 0; i < CL_RESULTS_NFIELDS; i++) {
        const struct cl_rfield *f = &cl_results_fields[i];
        const char *p = (const char *)r + f->offset;
        if (f->type == CL_RT_LATENCY) {
            const struct cl_latency *l = (const struct cl_latency *)p;
            for (int k = 0; k < CL_LATENCY_NFIELDS; k++) {
                const struct cl_rfield *g = &cl_latency_fields[k];
                double v;
                if (g->type != CL_RT_F64)
                    continue;
                v = *(const double *)((const char *)l + g->offset);
                if (isinf(v) || v < 0) {
                    snprintf(why, sizeof(why), "%s.%s = %g", f->name, g->name,
                             v);
                    return why;
                }
            }
        } else if (f->type == CL_RT_F64) {
            double v = *(const double *)p;
            if (isinf(v)) {
                snprintf(why, sizeof(why), "%s = %g", f->name, v);
                return why;
            }
        } else if (f->type == CL_RT_NS || f->type == CL_RT_I64) {
            int64_t v = *(const int64_t *)p;
            if (v < 0) {
                snprintf(why, sizeof(why), "%s = %lld", f->name, (long long)v);
                return why;
            }
        }
    }
    if (!llm)
        return NULL;
    if (r->ttft_ms.n > 0 && !(r->ttft_ms.mean > 0 && r->ttft_ms.p50 > 0)) {
        snprintf(why, sizeof(why), "ttft mean %g ms, p50 %g ms",
                 r->ttft_ms.mean, r->ttft_ms.p50);
        return why;
    }
    if (r->tpot_ms.n > 0 && !(r->tpot_ms.mean > 0)) {
        snprintf(why, sizeof(why), "tpot mean %g ms", r->tpot_ms.mean);
        return why;
    }
    return NULL;
}

/* How much slower and bigger a run is in this build: AddressSanitizer
 * runs the simulator about 3 times slower (a million-prompt vllm_bench
 * run: 3.0 s plain, 9.6 s under ASan) and keeps shadow memory, so the
 * budgets, guards against hangs and leaks, grow with it. */
#if defined(__SANITIZE_ADDRESS__)
#define EXTREMES_SLOWDOWN 4
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXTREMES_SLOWDOWN 4
#endif
#endif
#ifndef EXTREMES_SLOWDOWN
#define EXTREMES_SLOWDOWN 1
#endif

/* In the child: at most cpu_s CPU seconds (times EXTREMES_SLOWDOWN), and
 * an alarm for a hang that does not spin. */
static inline void extremes_child_budget(int cpu_s)
{
    struct rlimit cpu;

    cpu_s *= EXTREMES_SLOWDOWN;
    cpu.rlim_cur = (rlim_t)cpu_s;
    cpu.rlim_max = (rlim_t)cpu_s + 1;
    setrlimit(RLIMIT_CPU, &cpu);
    alarm((unsigned)(3 * cpu_s));
}

/* Waits for the child pid; 0 when it exited 0 within rss_mb resident
 * (times EXTREMES_SLOWDOWN), -1 (with why on stderr) when it crashed, ran
 * over its budget or failed. */
static inline int extremes_wait(pid_t pid, const char *label, long rss_mb)
{
    struct rusage ru;
    int status;

    rss_mb *= EXTREMES_SLOWDOWN;
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    if (ru.ru_maxrss / 1024 > rss_mb) {
        fprintf(stderr, "%s: %ld MB resident, more than %ld\n", label,
                ru.ru_maxrss / 1024, rss_mb);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: killed by signal %d (%s)\n", label,
                WTERMSIG(status),
                WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGALRM
                    ? "over the time budget"
                    : "a crash");
        return -1;
    }
    if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: exit %d\n", label, WEXITSTATUS(status));
        return -1;
    }
    return 0;
}

#endif /* TESTS_EXTREMES_H */
