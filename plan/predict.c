/* The planner's --uncertainty (plan.h, plan_predict()): after the search,
 * the cheapest configurations that met the SLO are run again through
 * cl_predict(), each on its first replication's scenario text, so that
 * their cost and SLO attainment get prediction intervals from the
 * calibration's uncertainty, and --robust can choose by the pessimistic
 * end. Each configuration's cl_predict() is one job; the jobs run on
 * their own threads, because cl_predict() runs its draws itself and the
 * sweep's pool only takes scenario texts (a draw is a profile in memory,
 * not a text). Results are written to per-job slots and read in job
 * order after every thread has joined, so what comes out does not depend
 * on the number of threads. */
#include "config.h"

#include "plan/plan.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/progress.h"
#include "base/xalloc.h"
#include "sweep/spec.h"

#define BAR_REDRAW_S 0.2
#define LINE_EVERY_S 10.0

/* One configuration's cl_predict(); the worker that takes it writes rc,
 * pi and d, nothing else. */
struct job {
    size_t config;
    int rc;
    struct cl_pi pi;
    struct sim_diag d;
};

struct predict {
    const struct plan *p;
    struct job *jobs;
    size_t njobs;
    pthread_mutex_t mu; /* guards next, draws and bar */
    size_t next;        /* next job to take */
    int draws;          /* done, over all jobs */
    int total;
    int in_place;
    struct sim_progress bar;
};

/* Order of the search's choice: cost, then latency, then index. */
struct key {
    double cost, lat;
    int holds;
    size_t i;
};

static int cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;

    if (x->holds != y->holds)
        return x->holds ? -1 : 1;
    if (isnan(x->cost) != isnan(y->cost))
        return isnan(x->cost) ? 1 : -1;
    if (x->cost != y->cost && !isnan(x->cost))
        return x->cost < y->cost ? -1 : 1;
    if (x->lat != y->lat && !isnan(x->lat) && !isnan(y->lat))
        return x->lat < y->lat ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int lat_metric(const struct plan *p, int interval)
{
    if (interval)
        return p->latency == PLAN_LAT_TPOT   ? CL_PI_TPOT_P99
               : p->latency == PLAN_LAT_TTFT ? CL_PI_TTFT_P99
                                             : CL_PI_E2E_P99;
    return p->latency == PLAN_LAT_TPOT   ? PLAN_M_TPOT_P99
           : p->latency == PLAN_LAT_TTFT ? PLAN_M_TTFT_P99
                                         : PLAN_M_E2E_P99;
}

/* Called by cl_predict() after each draw, on a worker thread. */
static void on_draw(void *ctx, int done, int n)
{
    struct predict *x = ctx;

    (void)done;
    (void)n;
    pthread_mutex_lock(&x->mu);
    x->draws++;
    if (x->bar.fp != NULL &&
        (sim_progress_due(&x->bar) || x->draws == x->total)) {
        if (x->in_place)
            sim_progress_draw(&x->bar,
                              "  uncertainty: draw %d of %d (%zu "
                              "configurations)   ",
                              x->draws, x->total, x->njobs);
        else
            sim_progress_draw(&x->bar,
                              "dsec plan: %s: uncertainty: %d of %d draws",
                              x->p->scn.name, x->draws, x->total);
    }
    pthread_mutex_unlock(&x->mu);
}

static void run_job(struct predict *x, struct job *j)
{
    const struct plan *p = x->p;
    const struct swp_spec *s = p->spec;
    const char *text = plan_config_text(p, j->config);
    struct cl_run_opts ro = {0};
    struct cl_scenario scn;

    j->rc = scn_scenario_open(
        s->scenario_file,
        &(struct scn_open_opts){.text = text, .len = strlen(text)}, &scn,
        &j->d);
    if (j->rc != 0)
        return;
    ro.base_dir = s->base_dir;
    j->rc = cl_predict(&scn, &ro, p->opts.draws, PLAN_PI_LEVEL, on_draw, x,
                       &j->pi, &j->d);
    cl_scenario_fini(&scn);
}

static void *worker(void *arg)
{
    struct predict *x = arg;

    for (;;) {
        struct job *j = NULL;

        pthread_mutex_lock(&x->mu);
        if (x->next < x->njobs)
            j = &x->jobs[x->next++];
        pthread_mutex_unlock(&x->mu);
        if (j == NULL)
            return NULL;
        run_job(x, j);
    }
}

/* The cheapest k configurations that met the SLO into keys (p->cheapest's
 * order); returns how many. */
static size_t candidates(const struct plan *p, size_t k, struct key *keys)
{
    size_t n = 0;

    for (size_t i = 0; i < p->nconfigs; i++) {
        const struct plan_config *c = &p->configs[i];
        if (c->state != PLAN_C_DONE || !c->meets ||
            isnan(c->m[PLAN_M_COST].mean))
            continue;
        keys[n].cost = c->m[PLAN_M_COST].mean;
        keys[n].lat = c->m[lat_metric(p, 0)].mean;
        keys[n].holds = 1;
        keys[n].i = i;
        n++;
    }
    qsort(keys, n, sizeof(*keys), cmp_key);
    return n < k ? n : k;
}

/* Runs the jobs on up to jobs threads (none of its own for one). */
static void run_jobs(struct predict *x, int jobs)
{
    size_t nt = (size_t)(jobs < 1 ? 1 : jobs);
    pthread_t *t;

    if (nt > x->njobs)
        nt = x->njobs;
    if (nt <= 1) {
        worker(x);
        return;
    }
    t = xcalloc(nt, sizeof(*t));
    for (size_t i = 0; i < nt; i++)
        if (pthread_create(&t[i], NULL, worker, x) != 0)
            sim_fatal("cannot start an uncertainty thread");
    for (size_t i = 0; i < nt; i++)
        pthread_join(t[i], NULL);
    free(t);
}

int plan_predict(struct plan *p, int jobs, FILE *log, int bar,
                 struct sim_diag *d)
{
    struct predict x;
    struct key *keys;
    size_t k =
        p->opts.pi_configs > 0 ? (size_t)p->opts.pi_configs : PLAN_PI_CONFIGS;
    int rc = 0;

    if (p->opts.draws < 2) {
        sim_diag_error(d, p->scenario_file, 0, 0,
                       "--uncertainty: no draws asked for");
        return SIM_EINVAL;
    }
    keys = xcalloc(p->nconfigs + 1, sizeof(*keys));
    memset(&x, 0, sizeof(x));
    x.p = p;
    x.njobs = candidates(p, k, keys);
    x.jobs = xcalloc(x.njobs + 1, sizeof(*x.jobs));
    for (size_t i = 0; i < x.njobs; i++) {
        x.jobs[i].config = keys[i].i;
        sim_diag_init(&x.jobs[i].d);
    }
    x.total = (int)x.njobs * p->opts.draws;
    x.in_place = bar;
    pthread_mutex_init(&x.mu, NULL);
    sim_progress_start(&x.bar, log, bar, bar ? BAR_REDRAW_S : LINE_EVERY_S);
    run_jobs(&x, jobs);
    sim_progress_clear(&x.bar);
    pthread_mutex_destroy(&x.mu);

    /* The first failure, in job order; the others' messages are alike. */
    for (size_t i = 0; i < x.njobs && rc == 0; i++)
        if (x.jobs[i].rc != 0) {
            struct sim_diag *jd = &x.jobs[i].d;
            rc = x.jobs[i].rc;
            for (int e = 0; e < jd->n; e++)
                sim_diag_add(d, jd->v[e].sev, jd->v[e].file, jd->v[e].line,
                             jd->v[e].col, "%s", jd->v[e].msg);
            sim_diag_error(
                d, p->scenario_file, 0, 0,
                "--uncertainty: configuration %s failed",
                p->spec->points[p->configs[x.jobs[i].config].point].key);
        }
    if (rc == 0) {
        free(p->pi_order);
        p->pi_order = xcalloc(x.njobs + 1, sizeof(*p->pi_order));
        p->npi = x.njobs;
        for (size_t i = 0; i < x.njobs; i++) {
            struct plan_config *c = &p->configs[x.jobs[i].config];
            free(c->pi);
            c->pi = xmalloc(sizeof(*c->pi));
            *c->pi = x.jobs[i].pi;
            c->holds = c->pi->lo[CL_PI_SLO] >= p->attainment;
            keys[i].holds = p->opts.robust ? c->holds : 1;
            if (p->opts.robust) {
                keys[i].cost = c->pi->hi[CL_PI_COST];
                keys[i].lat = c->pi->hi[lat_metric(p, 1)];
            }
        }
        /* Robust: those that hold first, by the upper ends; else the
         * search's order, which keys already have. */
        if (p->opts.robust)
            qsort(keys, x.njobs, sizeof(*keys), cmp_key);
        for (size_t i = 0; i < x.njobs; i++)
            p->pi_order[i] = keys[i].i;
        if (p->opts.robust)
            p->chosen = x.njobs > 0 && p->configs[keys[0].i].holds
                            ? (long)keys[0].i
                            : -1;
    }
    for (size_t i = 0; i < x.njobs; i++)
        sim_diag_fini(&x.jobs[i].d);
    free(x.jobs);
    free(keys);
    return rc;
}
