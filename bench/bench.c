/*
 * dsec-bench: the numbers `make bench` prints.
 *
 *   dsec-bench engine PENDING EVENTS   bare event loop: EVENTS handler calls
 *                                      with PENDING events always queued
 *   dsec-bench run SCENARIO [REQUESTS] one simulation (synthetic workloads:
 *                                      REQUESTS overrides the count)
 *
 * Prints one line of key=value pairs: events/s, simulated requests/s,
 * simulated-to-wall time ratio, peak resident memory (getrusage). Timing
 * lives here and in the CLI only; nothing under sim/ or models/ reads a
 * clock, and no unit test asserts a time.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "sim/loop.h"
#include "sim/time.h"
#include "sim/xalloc.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

struct bench_ev {
    struct sim_event ev;
    uint64_t *left;
    uint64_t x; /* xorshift state: pseudo-random delays, no GSL call */
};

/* Each firing reschedules its own event a pseudo-random delay ahead, so the
 * queue stays at PENDING events: one pop and one push per event, the
 * pattern of a simulation in steady state. */
static void tick(struct sim_loop *loop, struct sim_event *ev)
{
    struct bench_ev *b = (struct bench_ev *)ev;
    if (*b->left == 0)
        return;
    (*b->left)--;
    b->x ^= b->x << 13;
    b->x ^= b->x >> 7;
    b->x ^= b->x << 17;
    sim_loop_after(loop, ev, (int64_t)(b->x >> 44) + 1); /* < 2^20 ns */
}

static int bench_engine(long pending, long events)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct bench_ev *v = xcalloc((size_t)pending, sizeof(*v));
    uint64_t left = (uint64_t)events;
    double t0, wall;
    uint64_t fired;

    for (long i = 0; i < pending; i++) {
        sim_event_init(&v[i].ev, tick, NULL);
        v[i].left = &left;
        v[i].x = (uint64_t)i * 2654435761u + 1;
        sim_loop_schedule(loop, &v[i].ev, (int64_t)(v[i].x % 1000000));
    }
    t0 = now_s();
    fired = sim_loop_run(loop, SIM_TIME_MAX);
    wall = now_s() - t0;
    printf("engine pending=%ld events=%llu wall_s=%.3f events_per_s=%.3g "
           "peak_rss_mib=%.1f\n",
           pending, (unsigned long long)fired, wall, (double)fired / wall,
           (double)peak_rss_kib() / 1024.0);
    free(v);
    sim_loop_free(loop);
    return 0;
}

static int bench_run(const char *path, long requests)
{
    struct cl_scenario scn;
    struct cl_results res;
    struct cl_run_opts opts = {0};
    struct sim_diag d;
    char *dir = xstrdup(path);
    double t0, wall;
    int rc;

    sim_diag_init(&d);
    if (scn_file_load(path, &scn, &d) != 0) {
        sim_diag_print(&d, stderr);
        return 1;
    }
    if (requests > 0 && scn.workload.kind == CL_WL_SYNTHETIC) {
        scn.workload.synthetic.requests = requests;
        scn.workload.synthetic.duration_ns = -1;
    }
    opts.base_dir = dirname(dir);
    t0 = now_s();
    rc = cl_run(&scn, &opts, &res, &d);
    wall = now_s() - t0;
    if (rc != 0) {
        sim_diag_print(&d, stderr);
        return 1;
    }
    printf("run %s requests=%llu events=%llu wall_s=%.3f events_per_s=%.3g "
           "requests_per_s=%.3g sim_to_wall=%.3g peak_rss_mib=%.1f\n",
           scn.name, (unsigned long long)res.requests_completed,
           (unsigned long long)res.sim_events, wall,
           (double)res.sim_events / wall, (double)res.requests_completed / wall,
           res.sim_time_s / wall, (double)peak_rss_kib() / 1024.0);
    cl_results_fini(&res);
    cl_scenario_fini(&scn);
    sim_diag_fini(&d);
    free(dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "engine") == 0)
        return bench_engine(atol(argv[2]), atol(argv[3]));
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "run") == 0)
        return bench_run(argv[2], argc == 4 ? atol(argv[3]) : 0);
    fprintf(stderr, "usage: dsec-bench engine PENDING EVENTS\n"
                    "       dsec-bench run SCENARIO [REQUESTS]\n");
    return 2;
}
