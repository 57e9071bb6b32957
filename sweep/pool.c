/* The worker pool. One mutex guards both queues and the counters; two
 * condition variables (on the monotonic clock, so that a change of the
 * wall clock cannot stretch a timed wait) wake workers when a job arrives
 * and the owner when one finishes. A job is a few kilobytes of text and a
 * simulation that runs for milliseconds to minutes, so one lock is nowhere
 * near contended. */
#include "sweep/pool.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sweep/sweep-int.h"

struct job {
    struct job *next;
    long id;
    int draws;
    const char *file;
    const char *text;
    const char *base_dir;
};

struct fin {
    struct fin *next;
    struct swp_done done;
};

struct swp_pool {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a job was queued, or the pool stops */
    pthread_cond_t fin;  /* a job finished */
    struct job *head, *tail;
    struct fin *fhead, *ftail;
    size_t queued, running, finished;
    int stop;
    int nthreads;
    pthread_t *threads;
};

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Every diagnostic of d, one per line. */
static char *diag_text(const struct sim_diag *d, const char *fallback)
{
    struct swp__buf b = {0};

    for (int i = 0; i < d->n; i++) {
        char *m = sim_diag_format(d, i);
        swp__buf_addf(&b, "%s%s", i ? "\n" : "", m);
        free(m);
    }
    if (b.len == 0)
        swp__buf_adds(&b, fallback);
    return swp__buf_take(&b);
}

void swp_run_text(long id, const char *file, const char *text,
                  const char *base_dir, struct swp_done *out)
{
    swp_run_text_draws(id, file, text, base_dir, 0, out);
}

void swp_run_text_draws(long id, const char *file, const char *text,
                        const char *base_dir, int draws, struct swp_done *out)
{
    struct cl_scenario scn;
    struct cl_run_opts opts = {0};
    struct sim_diag d;
    double t0 = now_s();
    int rc;

    memset(out, 0, sizeof(*out));
    out->id = id;
    out->started_unix = (int64_t)time(NULL);
    sim_diag_init(&d);
    rc = scn_scenario_open(
        file, &(struct scn_open_opts){.text = text, .len = strlen(text)}, &scn,
        &d);
    if (rc == 0) {
        opts.base_dir = base_dir;
        rc = cl_run(&scn, &opts, &out->res, &d);
        if (rc == 0 && draws > 0) {
            rc = cl_predict(&scn, &opts, draws, 0.95, NULL, NULL, &out->pi, &d);
            out->has_pi = rc == 0;
            if (rc != 0)
                cl_results_fini(&out->res);
        }
    }
    out->wall_s = now_s() - t0;
    out->rc = rc;
    if (rc == 0) {
        out->res.wall_s = out->wall_s;
        out->res.events_per_s =
            out->wall_s > 0 ? (double)out->res.sim_events / out->wall_s : 0;
    } else {
        out->message = diag_text(&d, sim_strerror(rc));
        cl_results_fini(&out->res);
    }
    cl_scenario_fini(&scn);
    sim_diag_fini(&d);
}

void swp_done_fini(struct swp_done *d)
{
    if (d == NULL)
        return;
    free(d->message);
    cl_results_fini(&d->res);
    memset(d, 0, sizeof(*d));
}

static void *worker(void *arg)
{
    struct swp_pool *p = arg;

    pthread_mutex_lock(&p->mu);
    for (;;) {
        struct job *j;
        struct fin *f;

        while (p->head == NULL && !p->stop)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->head == NULL)
            break;
        j = p->head;
        p->head = j->next;
        if (p->head == NULL)
            p->tail = NULL;
        p->queued--;
        p->running++;
        pthread_mutex_unlock(&p->mu);

        f = xcalloc(1, sizeof(*f));
        swp_run_text_draws(j->id, j->file, j->text, j->base_dir, j->draws,
                           &f->done);
        free(j);

        pthread_mutex_lock(&p->mu);
        p->running--;
        p->finished++;
        if (p->ftail != NULL)
            p->ftail->next = f;
        else
            p->fhead = f;
        p->ftail = f;
        pthread_cond_signal(&p->fin);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

struct swp_pool *swp_pool_new(int nthreads)
{
    struct swp_pool *p = xcalloc(1, sizeof(*p));
    pthread_condattr_t ca;
    sigset_t all, old;

    if (nthreads < 1)
        nthreads = 1;
    p->nthreads = nthreads;
    p->threads = xcalloc((size_t)nthreads, sizeof(*p->threads));
    if (pthread_mutex_init(&p->mu, NULL) != 0 ||
        pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&p->work, &ca) != 0 ||
        pthread_cond_init(&p->fin, &ca) != 0)
        sim_fatal("cannot set up the sweep's worker pool");
    pthread_condattr_destroy(&ca);

    /* The threads inherit a mask with every signal blocked. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 0; i < nthreads; i++) {
        int rc = pthread_create(&p->threads[i], NULL, worker, p);
        if (rc != 0)
            sim_fatal("cannot start a sweep worker thread: %s", strerror(rc));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return p;
}

void swp_pool_submit(struct swp_pool *p, long id, const char *file,
                     const char *text, const char *base_dir)
{
    swp_pool_submit_draws(p, id, file, text, base_dir, 0);
}

void swp_pool_submit_draws(struct swp_pool *p, long id, const char *file,
                           const char *text, const char *base_dir, int draws)
{
    struct job *j = xcalloc(1, sizeof(*j));

    j->id = id;
    j->draws = draws;
    j->file = file;
    j->text = text;
    j->base_dir = base_dir;
    pthread_mutex_lock(&p->mu);
    if (p->tail != NULL)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->queued++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

int swp_pool_take(struct swp_pool *p, int timeout_ms, struct swp_done *out)
{
    struct fin *f = NULL;

    pthread_mutex_lock(&p->mu);
    if (p->fhead == NULL && timeout_ms > 0) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (p->fhead == NULL &&
               pthread_cond_timedwait(&p->fin, &p->mu, &until) != ETIMEDOUT)
            ;
    }
    if (p->fhead != NULL) {
        f = p->fhead;
        p->fhead = f->next;
        if (p->fhead == NULL)
            p->ftail = NULL;
        p->finished--;
    }
    pthread_mutex_unlock(&p->mu);
    if (f == NULL)
        return 0;
    *out = f->done;
    free(f);
    return 1;
}

size_t swp_pool_pending(struct swp_pool *p)
{
    size_t n;

    pthread_mutex_lock(&p->mu);
    n = p->queued + p->running + p->finished;
    pthread_mutex_unlock(&p->mu);
    return n;
}

size_t swp_pool_running(struct swp_pool *p)
{
    size_t n;

    pthread_mutex_lock(&p->mu);
    n = p->running;
    pthread_mutex_unlock(&p->mu);
    return n;
}

size_t swp_pool_cancel(struct swp_pool *p, long *ids)
{
    struct job *j;
    size_t n = 0;

    pthread_mutex_lock(&p->mu);
    j = p->head;
    p->head = p->tail = NULL;
    p->queued = 0;
    pthread_mutex_unlock(&p->mu);
    while (j != NULL) {
        struct job *next = j->next;
        if (ids != NULL)
            ids[n] = j->id;
        n++;
        free(j);
        j = next;
    }
    return n;
}

void swp_pool_free(struct swp_pool *p)
{
    struct fin *f;

    if (p == NULL)
        return;
    swp_pool_cancel(p, NULL);
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    while ((f = p->fhead) != NULL) {
        p->fhead = f->next;
        swp_done_fini(&f->done);
        free(f);
    }
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->fin);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
}
