/*
 * dsec-bench: the numbers `make bench` prints.
 *
 *   dsec-bench engine PENDING EVENTS   bare event loop: EVENTS handler calls
 *                                      with PENDING events always queued,
 *                                      beside a bare 4-ary heap doing the
 *                                      same pops and pushes
 *   dsec-bench run SCENARIO [REQUESTS] one simulation (synthetic workloads:
 *                                      REQUESTS overrides the count)
 *   dsec-bench sweep SWEEP THREADS     every point of a sweep on THREADS
 *                                      worker threads into a new database
 *
 * Prints one line of key=value pairs: events per CPU-second (user and
 * system time of the process: the machines are shared, so wall time
 * lies), simulated requests per CPU-second, simulated-to-CPU time ratio,
 * peak resident memory (getrusage); the engine's line adds the bare heap's
 * rate measured in the same process and dsec's rate over it; for a
 * sweep, configurations (points simulated and written) per second of wall
 * time and per second of CPU time (on a shared machine the first depends on
 * the other load, the second much less). Timing lives here and in the CLI
 * only; nothing under sim/ or models/ reads a clock, and no unit test
 * asserts a time.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "models/cluster/cluster.h"
#include "reports/db.h"
#include "scenarios/load.h"
#include "sim/loop.h"
#include "sim/time.h"
#include "base/xalloc.h"
#include "sweep/exec.h"
#include "sweep/spec.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* User and system CPU time of the process so far, in seconds. */
static double cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
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

/* The bare reference: a 4-ary min-heap of (time, sequence, index) with
 * the keys inline and nothing else, driven by the same pseudo-random
 * delays as tick(): pop the least, push it again later. What an event
 * queue costs at the least; dsec's engine adds the event structs, their
 * handlers and the loop's bookkeeping. */
struct ref_slot {
    int64_t t;
    uint64_t seq;
    uint64_t x; /* the event's xorshift state, as bench_ev keeps it */
};

static int ref_less(const struct ref_slot *a, const struct ref_slot *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ref_sift_down(struct ref_slot *v, size_t n, size_t i)
{
    struct ref_slot x = v[i];

    for (;;) {
        size_t c = 4 * i + 1, best = c, end = c + 4 < n ? c + 4 : n;
        if (c >= n)
            break;
        for (size_t k = c + 1; k < end; k++)
            if (ref_less(&v[k], &v[best]))
                best = k;
        if (!ref_less(&v[best], &x))
            break;
        v[i] = v[best];
        i = best;
    }
    v[i] = x;
}

static void ref_sift_up(struct ref_slot *v, size_t i)
{
    struct ref_slot x = v[i];

    while (i > 0 && ref_less(&x, &v[(i - 1) / 4])) {
        v[i] = v[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    v[i] = x;
}

/* Runs events pops and pushes on a heap of pending slots; returns the
 * last time reached (so that the work is not optimised away). */
static int64_t heap_ref(long pending, long events)
{
    struct ref_slot *v = xcalloc((size_t)pending, sizeof(*v));
    size_t n = 0;
    uint64_t seq = 0;
    int64_t now = 0;

    for (long i = 0; i < pending; i++) {
        v[n].x = (uint64_t)i * 2654435761u + 1;
        v[n].t = (int64_t)(v[n].x % 1000000);
        v[n].seq = seq++;
        ref_sift_up(v, n++);
    }
    for (long e = 0; e < events; e++) {
        struct ref_slot s = v[0];
        now = s.t;
        v[0] = v[--n];
        ref_sift_down(v, n, 0);
        s.x ^= s.x << 13;
        s.x ^= s.x >> 7;
        s.x ^= s.x << 17;
        s.t = now + (int64_t)(s.x >> 44) + 1;
        s.seq = seq++;
        v[n] = s;
        ref_sift_up(v, n++);
    }
    free(v);
    return now;
}

static int bench_engine(long pending, long events)
{
    struct sim_loop *loop = sim_loop_new(1);
    struct bench_ev *v = xcalloc((size_t)pending, sizeof(*v));
    uint64_t left = (uint64_t)events;
    double c0, cpu, ref_cpu, rate, ref_rate;
    uint64_t fired;
    int64_t last;

    for (long i = 0; i < pending; i++) {
        sim_event_init(&v[i].ev, tick, NULL);
        v[i].left = &left;
        v[i].x = (uint64_t)i * 2654435761u + 1;
        sim_loop_schedule(loop, &v[i].ev, (int64_t)(v[i].x % 1000000));
    }
    c0 = cpu_s();
    fired = sim_loop_run(loop, SIM_TIME_MAX);
    cpu = cpu_s() - c0;
    c0 = cpu_s();
    last = heap_ref(pending, (long)fired);
    ref_cpu = cpu_s() - c0;
    rate = (double)fired / cpu;
    ref_rate = (double)fired / ref_cpu;
    printf("engine pending=%ld events=%llu cpu_s=%.3f events_per_cpu_s=%.3g "
           "heap_events_per_cpu_s=%.3g ratio=%.2f peak_rss_mib=%.1f%s\n",
           pending, (unsigned long long)fired, cpu, rate, ref_rate,
           rate / ref_rate, (double)peak_rss_kib() / 1024.0,
           last < 0 ? " (clock wrapped)" : "");
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
    double t0, c0, wall, cpu;
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
    c0 = cpu_s();
    rc = cl_run(&scn, &opts, &res, &d);
    cpu = cpu_s() - c0;
    wall = now_s() - t0;
    if (rc != 0) {
        sim_diag_print(&d, stderr);
        return 1;
    }
    printf("run %s requests=%llu events=%llu cpu_s=%.3f wall_s=%.3f "
           "events_per_cpu_s=%.3g requests_per_cpu_s=%.3g sim_to_cpu=%.3g "
           "events_per_request=%.2f peak_rss_mib=%.1f preemptions=%llu\n",
           scn.name, (unsigned long long)res.requests_completed,
           (unsigned long long)res.sim_events, cpu, wall,
           (double)res.sim_events / cpu, (double)res.requests_completed / cpu,
           res.sim_time_s / cpu,
           res.requests_completed > 0
               ? (double)res.sim_events / (double)res.requests_completed
               : 0.0,
           (double)peak_rss_kib() / 1024.0,
           (unsigned long long)res.preemptions);
    cl_results_fini(&res);
    cl_scenario_fini(&scn);
    sim_diag_fini(&d);
    free(dir);
    return 0;
}

/* Runs every point of a sweep into a fresh database file (WAL, one
 * transaction per point, as dsec sweep does), timing the run alone: the
 * sweep file's expansion and checks are left out. */
static int bench_sweep(const char *path, int threads)
{
    struct sim_diag d;
    struct swp_spec *spec;
    struct swp_exec_opts o = {0};
    struct swp_exec_stats st;
    struct rpt_db *db;
    const char *tmpdir = getenv("TMPDIR");
    char *db_path, *side;
    double t0, c0, wall, cpu;
    int fd, rc;

    sim_diag_init(&d);
    spec = swp_spec_load(path, &d);
    if (spec == NULL) {
        sim_diag_print(&d, stderr);
        return 1;
    }
    db_path = xasprintf("%s/dsec-bench-XXXXXX", tmpdir ? tmpdir : "/tmp");
    fd = mkstemp(db_path);
    if (fd < 0) {
        perror(db_path);
        return 1;
    }
    close(fd);
    db = rpt_db_open(db_path, &d);
    if (db == NULL) {
        sim_diag_print(&d, stderr);
        return 1;
    }
    o.jobs = threads;
    o.program_version = "bench";
    t0 = now_s();
    c0 = cpu_s();
    rc = swp_exec(spec, db, &o, &st, &d);
    wall = now_s() - t0;
    cpu = cpu_s() - c0;
    rpt_db_close(db);
    if (rc != 0 || st.ran + st.infeasible != spec->npoints) {
        sim_diag_print(&d, stderr);
        rc = 1;
    } else {
        printf("sweep %s threads=%d points=%zu wall_s=%.3f cpu_s=%.3f "
               "configs_per_s=%.3g configs_per_cpu_s=%.3g "
               "peak_rss_mib=%.1f\n",
               spec->name, threads, st.ran, wall, cpu, (double)st.ran / wall,
               (double)st.ran / cpu, (double)peak_rss_kib() / 1024.0);
    }
    remove(db_path);
    side = xasprintf("%s-wal", db_path);
    remove(side);
    free(side);
    side = xasprintf("%s-shm", db_path);
    remove(side);
    free(side);
    free(db_path);
    swp_spec_free(spec);
    sim_diag_fini(&d);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "engine") == 0)
        return bench_engine(atol(argv[2]), atol(argv[3]));
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "run") == 0)
        return bench_run(argv[2], argc == 4 ? atol(argv[3]) : 0);
    if (argc == 4 && strcmp(argv[1], "sweep") == 0 && atoi(argv[3]) >= 1)
        return bench_sweep(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: dsec-bench engine PENDING EVENTS\n"
                    "       dsec-bench run SCENARIO [REQUESTS]\n"
                    "       dsec-bench sweep SWEEP THREADS\n");
    return 2;
}
