/* The results record's owned strings. Notes are capped at RESULTS_MAX_NOTES
 * so that a model noting something per event cannot grow the list without
 * bound; past the cap one marker note says that later ones were dropped. */
#include "models/cluster/results.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define RESULTS_MAX_NOTES 64

void cl_results_note(struct cl_results *r, const char *note)
{
    if (r->nnotes > RESULTS_MAX_NOTES)
        return;
    if (r->nnotes == RESULTS_MAX_NOTES)
        note = "further notes dropped";
    r->notes = xrealloc(r->notes, (size_t)r->nnotes + 1, sizeof(*r->notes));
    r->notes[r->nnotes++] = xstrdup(note);
}

void cl_results_fini(struct cl_results *r)
{
    if (r == NULL)
        return;
    free(r->scenario_name);
    for (int i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->series);
    free(r->pool_gpus_mean);
    free(r->pool_cost_usd);
    free(r->replica_series);
    free(r->policy);
    for (int i = 0; i < r->npools; i++) {
        free(r->pools[i].name);
        free(r->pools[i].gpu);
    }
    free(r->pools);
    for (int i = 0; i < r->nclasses; i++)
        free(r->classes[i].name);
    free(r->classes);
    memset(r, 0, sizeof(*r));
}

const char *cl_gpu_state_name(int state)
{
    static const char *const names[CL_GS_COUNT] = {
        "provisioning", "loading", "serving", "idle", "draining"};
    return state >= 0 && state < CL_GS_COUNT ? names[state] : "?";
}

const char *cl_replica_state_name(int state)
{
    /* The order of enum cl_rstate (models/cluster/cluster-int.h). */
    static const char *const names[] = {"provisioning", "loading", "serving",
                                        "draining", "gone"};
    return state >= 0 && state < 5 ? names[state] : "?";
}
