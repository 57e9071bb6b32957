/* Scenario structs: only their destructor lives here; the loader that fills
 * them is scenarios/load.c. The strings are listed by hand because models/
 * must not depend on the scenario tables. */
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
    free(s->workload.trace.path);
    free(s->hardware.gpu);
    free(s->deploy.model_path);
    free(s->cluster.rdma_interface);
    free(s->text);
    memset(s, 0, sizeof(*s));
}
