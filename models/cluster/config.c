/* Scenario structs: only their destructor lives here; the loader that fills
 * them is scenarios/load.c. The strings and arrays are listed by hand
 * because models/ must not depend on the scenario tables. */
#include "models/cluster/config.h"

#include <stdlib.h>
#include <string.h>

void cl_scenario_fini(struct cl_scenario *s)
{
    if (s == NULL)
        return;
    free(s->file);
    free(s->name);
    free(s->model);
    free(s->workload.synthetic.arrival.profile.steps);
    free(s->workload.trace.path);
    free(s->hardware.gpu);
    free(s->deploy.model_path);
    free(s->cluster.rdma_interface);
    for (int i = 0; s->pools != NULL && i < s->npools; i++) {
        free(s->pools[i].name);
        free(s->pools[i].gpu);
    }
    free(s->pools);
    free(s->faults.scripted);
    free(s->faults.links);
    free(s->policy.name);
    for (int i = 0; s->policy.params != NULL && i < s->policy.nparams; i++) {
        free(s->policy.params[i].key);
        free(s->policy.params[i].value);
    }
    free(s->policy.params);
    free(s->text);
    memset(s, 0, sizeof(*s));
}
