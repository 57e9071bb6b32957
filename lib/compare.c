/* dsec_compare_json(): `dsec compare` as a library call. Each policy runs
 * the same replications (seed, seed + 1, ...: common random numbers) on
 * jobs threads; each thread opens its own copy of the scenario, so the
 * result does not depend on the number of threads. The statistics and the
 * JSON are reports/compare.h's, as the command's are. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "dsec.h"
#include "lib/lib-int.h"
#include "models/cluster/cluster.h"
#include "models/policy/policy.h"
#include "reports/compare.h"
#include "base/errors.h"
#include "base/xalloc.h"

/* One policy to compare. */
struct cpol {
    char *label; /* as given, or the scenario's own policy's name */
    char *name;  /* NULL: the scenario's own policy */
    struct cl_policy_param *params;
    int nparams;
};

struct cjob {
    int pol, rep, rc;
    struct sim_diag diag;
};

struct cwork {
    dsec_scenario *sc;
    const struct cpol *pols;
    int nreps;
    uint64_t seed;
    struct cl_results *res; /* [pol][rep] */
    struct cjob *jobs;
    int njobs, next, stop;
    pthread_mutex_t mu;
};

/* Points s's policy at p (borrowed until the caller restores it). The
 * scenario's plug-in or library policy stays only under its own name. */
static void use_policy(struct cl_scenario *s, const struct cpol *p)
{
    if (p->name == NULL)
        return;
    if (s->policy.entry != NULL && strcasecmp(s->policy.entry->name, p->name))
        s->policy.entry = NULL;
    s->policy.name = p->name;
    s->policy.params = p->params;
    s->policy.nparams = p->nparams;
}

static void *worker(void *arg)
{
    struct cwork *w = arg;
    struct cl_scenario scn;
    struct sim_diag d;
    int loaded;

    sim_diag_init(&d);
    /* Not dsec__open_scenario(): the threads share w->sc, whose display
     * name that replaces (a double free when two did at once); the caller
     * opened it once before starting them. */
    loaded = dsec__scenario_open(w->sc, &scn, &d) == 0;
    for (;;) {
        struct cjob *j;
        struct cl_run_opts ro = {0};

        pthread_mutex_lock(&w->mu);
        j = w->stop || w->next >= w->njobs ? NULL : &w->jobs[w->next++];
        pthread_mutex_unlock(&w->mu);
        if (j == NULL)
            break;
        if (!loaded) {
            for (int i = 0; i < d.n; i++)
                sim_diag_add(&j->diag, d.v[i].sev, d.v[i].file, d.v[i].line,
                             d.v[i].col, "%s", d.v[i].msg);
            j->rc = SIM_EINVAL;
        } else {
            struct cl_policy own = scn.policy;

            use_policy(&scn, &w->pols[j->pol]);
            scn.seed = w->seed + (uint64_t)j->rep;
            ro.base_dir = dsec__scenario_dir(w->sc);
            j->rc = cl_run(
                &scn, &ro,
                &w->res[(size_t)j->pol * (size_t)w->nreps + (size_t)j->rep],
                &j->diag);
            scn.policy = own;
        }
        if (j->rc != 0) {
            pthread_mutex_lock(&w->mu);
            w->stop = 1;
            pthread_mutex_unlock(&w->mu);
        }
    }
    if (loaded)
        cl_scenario_fini(&scn);
    sim_diag_fini(&d);
    return NULL;
}

/* Parses the policies into pols and checks each on scn. Returns 0, or
 * SIM_EINVAL with every problem in d. */
static int prepare(struct cl_scenario *scn, const char *const *policies, int n,
                   struct cpol *pols, struct sim_diag *d)
{
    int bad = 0;

    for (int i = 0; i < n; i++) {
        const char *a = policies[i];
        struct cpol *p = &pols[i];
        struct cl_policy own = scn->policy;
        const char *why;

        if (a == NULL || a[0] == '\0') {
            p->label = xstrdup(scn->policy.name != NULL ? scn->policy.name
                                                        : "target-latency");
            continue;
        }
        p->label = xstrdup(a);
        why = rpt_cmp_policy_parse(a, &p->name, &p->params, &p->nparams);
        if (why != NULL) {
            sim_diag_add(d, SIM_SEV_ERROR, NULL, 0, 0, "policy '%s': %s", a,
                         why);
            bad = 1;
            continue;
        }
        use_policy(scn, p);
        {
            struct sim_diag pd;
            sim_diag_init(&pd);
            if (cl_scenario_check(scn, NULL, &pd) != 0) {
                for (int k = 0; k < pd.n; k++)
                    if (pd.v[k].sev == SIM_SEV_ERROR)
                        sim_diag_add(d, SIM_SEV_ERROR, NULL, 0, 0,
                                     "policy '%s': %s", a, pd.v[k].msg);
                bad = 1;
            }
            sim_diag_fini(&pd);
        }
        scn->policy = own;
    }
    return bad ? SIM_EINVAL : 0;
}

int dsec_compare_json(dsec_scenario *sc, const char *const *policies,
                      int npolicies, int replications, uint64_t seed, int jobs,
                      char **json_out, char **err)
{
    struct cwork w = {0};
    struct cl_scenario scn;
    struct sim_diag d;
    struct cpol *pols;
    struct rpt_cmp *cmp;
    char *json = NULL;
    int rc, nt;

    *json_out = NULL;
    if (err != NULL)
        *err = NULL;
    if (npolicies < 1 || npolicies > RPT_CMP_MAX_POLICIES || replications < 1 ||
        replications > RPT_CMP_MAX_REPLICATIONS) {
        if (err != NULL)
            *err = xasprintf("error: a comparison takes 1 to %d policies and "
                             "1 to %d replications",
                             RPT_CMP_MAX_POLICIES, RPT_CMP_MAX_REPLICATIONS);
        return SIM_EINVAL;
    }
    sim_diag_init(&d);
    rc = dsec__open_scenario(sc, &scn, &d);
    if (rc == 0 && !(scn.cluster.min_gpus >= 0 && scn.cluster.max_gpus >= 1 &&
                     scn.cluster.replicas < 1)) {
        sim_diag_add(&d, SIM_SEV_ERROR, scn.file, 0, 0,
                     "a comparison of policies needs an elastic cluster: "
                     "cluster.min_gpus and cluster.max_gpus");
        rc = SIM_EINVAL;
    }
    pols = xcalloc((size_t)npolicies, sizeof(*pols));
    if (rc == 0)
        rc = prepare(&scn, policies, npolicies, pols, &d);
    if (rc != 0)
        goto out;
    w.sc = sc;
    w.pols = pols;
    w.nreps = replications;
    w.seed = seed;
    w.njobs = npolicies * replications;
    w.res = xcalloc((size_t)w.njobs, sizeof(*w.res));
    w.jobs = xcalloc((size_t)w.njobs, sizeof(*w.jobs));
    for (int i = 0; i < w.njobs; i++) {
        w.jobs[i].pol = i / replications;
        w.jobs[i].rep = i % replications;
        sim_diag_init(&w.jobs[i].diag);
    }
    pthread_mutex_init(&w.mu, NULL);
    nt = jobs > 0 ? jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1)
        nt = 1;
    if (nt > w.njobs)
        nt = w.njobs;
    if (nt == 1) {
        worker(&w);
    } else {
        pthread_t *t = xcalloc((size_t)nt, sizeof(*t));
        for (int i = 0; i < nt; i++)
            if (pthread_create(&t[i], NULL, worker, &w) != 0)
                sim_fatal("dsec_compare_json: cannot start a thread");
        for (int i = 0; i < nt; i++)
            pthread_join(t[i], NULL);
        free(t);
    }
    pthread_mutex_destroy(&w.mu);
    for (int i = 0; i < w.njobs; i++) {
        struct cjob *j = &w.jobs[i];
        if (j->rc != 0) {
            rc = j->rc;
            for (int k = 0; k < j->diag.n; k++)
                sim_diag_add(&d, j->diag.v[k].sev, j->diag.v[k].file,
                             j->diag.v[k].line, j->diag.v[k].col, "%s",
                             j->diag.v[k].msg);
        }
    }
    if (rc == 0) {
        cmp = rpt_cmp_new(scn.name, seed, replications);
        for (int p = 0; p < npolicies; p++)
            rpt_cmp_add_policy(cmp, pols[p].label,
                               pols[p].name != NULL ? pols[p].name
                                                    : pols[p].label,
                               pols[p].params, pols[p].nparams);
        for (int i = 0; i < w.njobs; i++)
            rpt_cmp_record(cmp, w.jobs[i].pol, w.jobs[i].rep, &w.res[i]);
        json = rpt_cmp_json(cmp, 1);
        rpt_cmp_free(cmp);
    }
    for (int i = 0; i < w.njobs; i++) {
        cl_results_fini(&w.res[i]);
        sim_diag_fini(&w.jobs[i].diag);
    }
    free(w.res);
    free(w.jobs);
out:
    if (rc != 0)
        dsec__fail(err, rc, &d);
    for (int i = 0; i < npolicies; i++) {
        free(pols[i].label);
        rpt_cmp_policy_fini(pols[i].name, pols[i].params, pols[i].nparams);
    }
    free(pols);
    cl_scenario_fini(&scn); /* zeroed when it did not open */
    sim_diag_fini(&d);
    *json_out = json;
    return rc;
}
