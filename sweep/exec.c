/* The sweep's dispatch and write loop. The pool's queue is kept at no more
 * than two jobs per thread beyond the running ones, so that an interrupt
 * drops queued work instead of waiting for it, and so that MPI ranks asking
 * for points are not starved by a long local queue. The loop wakes at least
 * every LOOP_WAIT_MS (1 ms under MPI, to answer ranks promptly) to check
 * interrupts and redraw progress. */
#include "config.h"

#include "sweep/exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "base/fmt.h"
#include "base/progress.h"
#include "base/xalloc.h"
#include "sweep/pool.h"
#ifdef HAVE_MPI
#include "sweep/mpi.h"
#endif

#define LOOP_WAIT_MS 100
#define BAR_REDRAW_S 0.2
#define BAR_WIDTH 24

struct ex {
    const struct swp_spec *s;
    struct rpt_db *db;
    const struct swp_exec_opts *o;
    struct swp_exec_stats *st;
    struct sim_diag *d;
    unsigned char *recorded; /* [npoints] */
    size_t *todo;            /* points to simulate, in grid order */
    size_t ntodo, next;
    size_t finished; /* of todo: recorded, failed or recorded elsewhere */
    struct sim_progress bar; /* the progress line, and the wall clock */
};

static int mark_recorded(void *ctx, const char *key, int64_t seq,
                         const char *status, const char *message,
                         int64_t run_id, const double *values)
{
    struct ex *x = ctx;
    long i = swp_spec_find(x->s, key);

    (void)seq;
    (void)status;
    (void)message;
    (void)run_id;
    (void)values;
    if (i >= 0 && !x->recorded[i]) {
        x->recorded[i] = 1;
        x->st->before++;
    }
    return 0;
}

static void progress(struct ex *x, int force)
{
    const struct swp_exec_opts *o = x->o;
    double wall, rate, eta;
    size_t done = x->finished, total = x->ntodo;
    char eta_s[32] = "?";

    if (x->bar.fp == NULL || total == 0)
        return;
    if (!force && !sim_progress_due(&x->bar))
        return;
    wall = sim_progress_wall_s(&x->bar);
    rate = wall > 0 ? (double)done / wall : 0;
    eta = rate > 0 ? (double)(total - done) / rate : NAN;
    if (!isnan(eta))
        sim_fmt_duration(eta_s, sizeof(eta_s), eta * 1e9, SIM_DUR_CLOCK);
    if (o->progress == SWP_PROGRESS_BAR) {
        char bar[BAR_WIDTH + 1];

        sim_progress_draw(
            &x->bar, "  [%s] %zu/%zu points %5.1f%%  %.2f/s  eta %-9s",
            sim_progress_bar(bar, BAR_WIDTH, done, total), done, total,
            100.0 * (double)done / (double)total, rate, eta_s);
    } else {
        sim_progress_draw(&x->bar,
                          "dsec sweep: %s: %zu/%zu points, %.2f/s, eta %s",
                          x->s->name, done, total, rate, eta_s);
    }
}

static void utc_stamp(char *buf, size_t len, int64_t unix_s)
{
    time_t t = (time_t)unix_s;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Writes one point: with its run, or infeasible (r NULL). Returns 0, or
 * SIM_EDB. */
static int record(struct ex *x, size_t i, const struct cl_results *r,
                  const struct cl_pi *pi, int64_t started_unix,
                  const char *message)
{
    const struct swp_spec *s = x->s;
    const struct swp_point *p = &s->points[i];
    const char **paths = xcalloc((size_t)s->ncolumns + 1, sizeof(*paths));
    const char **values = xcalloc((size_t)s->ncolumns + 1, sizeof(*values));
    struct rpt_sweep_point pt = {0};
    struct rpt_run_info info = {0};
    char stamp[32];
    int rc, n = 0;

    for (int c = 0; c < s->ncolumns; c++)
        if (p->values[c] != NULL) {
            paths[n] = s->columns[c];
            values[n] = p->values[c];
            n++;
        }
    pt.sweep_id = x->st->sweep_id;
    pt.key = p->key;
    pt.seq = (int64_t)p->seq;
    pt.status = r != NULL ? RPT_SWEEP_OK : RPT_SWEEP_INFEASIBLE;
    pt.message = r != NULL ? NULL : message;
    pt.paths = paths;
    pt.values = values;
    pt.nvalues = n;
    utc_stamp(stamp, sizeof(stamp), started_unix);
    info.started_at = stamp;
    info.scenario_file = s->scenario_file;
    info.scenario_text = p->text;
    info.program_version = x->o->program_version;
    info.seed = p->seed;
    info.pi = pi;
    rc = rpt_db_write_sweep_point(x->db, &pt, r ? &info : NULL, r, NULL, x->d);
    free(paths);
    free(values);
    if (rc == SIM_EBUSY) {
        x->st->elsewhere++;
        x->recorded[i] = 1;
        return 0;
    }
    if (rc != 0)
        return SIM_EDB;
    x->recorded[i] = 1;
    if (r != NULL)
        x->st->ran++;
    else
        x->st->infeasible++;
    return 0;
}

/* Handles one finished point. Returns 0 or SIM_EDB. */
static int take(struct ex *x, struct swp_done *done)
{
    size_t i = (size_t)done->id;
    int rc = 0;

    if (SIM_NEVER(done->id < 0 || i >= x->s->npoints))
        return 0;
    x->finished++;
    if (done->rc == 0) {
        rc = record(x, i, &done->res, done->has_pi ? &done->pi : NULL,
                    done->started_unix, NULL);
    } else if (done->rc == SIM_EINFEASIBLE) {
        rc = record(x, i, NULL, NULL, done->started_unix, done->message);
    } else {
        sim_progress_clear(&x->bar);
        sim_diag_error(x->d, x->s->file, 0, 0, "point %s failed: %s",
                       x->s->points[i].key[0] ? x->s->points[i].key : "(base)",
                       done->message ? done->message : "unknown error");
        x->st->failed++;
    }
    return rc;
}

int swp_exec(const struct swp_spec *s, struct rpt_db *db,
             const struct swp_exec_opts *o, struct swp_exec_stats *st,
             struct sim_diag *d)
{
    struct ex x;
    struct rpt_sweep_info info = {0};
    struct swp_pool *pool = NULL;
    struct swp_done done;
    char stamp[32];
    size_t backlog, recorded = 0;
    int rc = 0, stopping = 0, wait_ms = LOOP_WAIT_MS, jobs;
    /* Without MPI no point is out at another rank. */
#ifdef HAVE_MPI
    size_t remote = 0; /* points out at other ranks */
    int ranks_left = 0;
#define REMOTE remote
#define OTHERS_BUSY (remote > 0 || ranks_left > 0)
#else
#define REMOTE ((size_t)0)
#define OTHERS_BUSY 0
#endif

    memset(st, 0, sizeof(*st));
    memset(&x, 0, sizeof(x));
    x.s = s;
    x.db = db;
    x.o = o;
    x.st = st;
    x.d = d;
    sim_progress_start(&x.bar, o->progress == SWP_PROGRESS_NONE ? NULL : o->log,
                       o->progress == SWP_PROGRESS_BAR,
                       o->progress == SWP_PROGRESS_BAR ? BAR_REDRAW_S
                                                       : SWP_PROGRESS_LINE_S);
    st->points = s->npoints;

    utc_stamp(stamp, sizeof(stamp), (int64_t)time(NULL));
    info.name = s->name;
    info.sweep_file = s->file;
    info.sweep_text = s->text;
    info.hash = s->hash;
    info.created_at = stamp;
    info.points = (int64_t)s->npoints;
    rc = rpt_db_sweep_find_or_add(db, &info, &st->sweep_id, NULL, d);
    x.recorded = xcalloc(s->npoints + 1, 1);
    x.todo = xcalloc(s->npoints + 1, sizeof(*x.todo));
    if (rc == 0)
        rc = rpt_db_sweep_points(db, st->sweep_id, NULL, 0, mark_recorded, &x,
                                 d);
    /* Infeasible points are recorded at once; the rest is the work. */
    for (size_t i = 0; i < s->npoints && rc == 0; i++) {
        if (x.recorded[i])
            continue;
        if (s->points[i].infeasible)
            rc = record(&x, i, NULL, NULL, (int64_t)time(NULL),
                        s->points[i].message);
        else
            x.todo[x.ntodo++] = i;
    }
    if (rc != 0)
        goto out;

#ifdef HAVE_MPI
    if (o->mpi != NULL) {
        ranks_left = swp_mpi_size(o->mpi) - 1;
        wait_ms = 1;
    }
#endif
    /* Without MPI nobody else runs points: at least one thread. */
    jobs = o->jobs < 1 && o->mpi == NULL ? 1 : o->jobs;
    if (jobs > 0 && x.ntodo > 0)
        pool = swp_pool_new(jobs < (int)x.ntodo ? jobs : (int)x.ntodo);
    backlog = jobs > 0 ? 3 * (size_t)jobs : 0;

    for (;;) {
        int interrupts = o->interrupts != NULL ? (int)*o->interrupts : 0;

        if (interrupts >= 2) {
            st->interrupted = 2;
            st->abandoned = REMOTE + (pool ? swp_pool_running(pool) : 0);
            sim_progress_clear(&x.bar);
            /* The pool is left to the process's exit: its threads are
             * simulating and cannot be stopped. */
            pool = NULL;
            break;
        }
        if (interrupts == 1 && !stopping) {
            stopping = 1;
            st->interrupted = 1;
            if (pool != NULL)
                swp_pool_cancel(pool, NULL);
            sim_progress_clear(&x.bar);
            if (o->log != NULL) {
                fprintf(o->log,
                        "dsec sweep: interrupted; finishing %zu running "
                        "points (interrupt again to abandon them)\n",
                        REMOTE + (pool ? swp_pool_running(pool) : 0));
                fflush(o->log);
            }
        }
        while (pool != NULL && !stopping && x.next < x.ntodo &&
               swp_pool_pending(pool) < backlog) {
            size_t i = x.todo[x.next++];
            swp_pool_submit_draws(pool, (long)i, s->scenario_file,
                                  s->points[i].text, s->base_dir,
                                  s->uncertainty);
        }
#ifdef HAVE_MPI
        if (o->mpi != NULL) {
            struct swp_mpi_msg msg;
            int got;

            while (rc == 0 && (got = swp_mpi_poll(o->mpi, &msg)) != 0) {
                if (got < 0) {
                    sim_diag_error(d, s->file, 0, 0,
                                   "cannot read a result from an MPI rank");
                    rc = SIM_EIO;
                    break;
                }
                if (msg.kind == SWP_MPI_REQUEST) {
                    if (!stopping && x.next < x.ntodo) {
                        size_t i = x.todo[x.next++];
                        swp_mpi_send_work(o->mpi, msg.source, (long)i,
                                          s->scenario_file, s->points[i].text,
                                          s->base_dir);
                        remote++;
                    } else {
                        swp_mpi_send_stop(o->mpi, msg.source);
                    }
                } else if (msg.kind == SWP_MPI_RESULT) {
                    remote--;
                    rc = take(&x, &msg.done);
                    swp_done_fini(&msg.done);
                } else {
                    ranks_left--;
                }
            }
            if (rc != 0)
                break;
        }
#endif
        if (pool != NULL) {
            int first = 1;
            while (rc == 0 && swp_pool_take(pool, first ? wait_ms : 0, &done)) {
                first = 0;
                rc = take(&x, &done);
                swp_done_fini(&done);
            }
            if (rc != 0)
                break;
        } else if (OTHERS_BUSY) {
            struct timespec nap = {0, 1000000L};
            nanosleep(&nap, NULL);
        }
        progress(&x, 0);
        if ((stopping || x.next == x.ntodo) &&
            (pool == NULL || swp_pool_pending(pool) == 0) && !OTHERS_BUSY)
            break;
    }
    if (rc == 0 && st->interrupted < 2)
        progress(&x, 1);
    sim_progress_clear(&x.bar);
    swp_pool_free(pool);

out:
    for (size_t i = 0; i < s->npoints; i++)
        recorded += x.recorded[i];
    st->remaining = s->npoints - recorded;
    st->wall_s = sim_progress_wall_s(&x.bar);
    free(x.recorded);
    free(x.todo);
    return rc;
}
#undef REMOTE
#undef OTHERS_BUSY
