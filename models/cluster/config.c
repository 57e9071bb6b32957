/* Scenario structs: only their destructor lives here; the loader that fills
 * them is scenarios/load.c. The strings and arrays are listed by hand
 * because models/ must not depend on the scenario tables. */
#include "models/cluster/config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/gpu/gpu.h"
#include "models/perf/calib.h"
#include "models/train/config.h"
#include "base/xalloc.h"

void cl_scenario_fini(struct cl_scenario *s)
{
    if (s == NULL)
        return;
    free(s->file);
    free(s->name);
    free(s->model);
    free(s->workload.synthetic.arrival.profile.steps);
    free(s->workload.trace.path);
    free(s->workload.trace.model);
    free(s->workload.trace.clients);
    for (int i = 0; s->workload.priority_classes != NULL &&
                    i < s->workload.npriority_classes;
         i++)
        free(s->workload.priority_classes[i].name);
    free(s->workload.priority_classes);
    free(s->hardware.gpu);
    free(s->hardware.calibration);
    for (int i = 0; s->hardware.gpus != NULL && i < s->hardware.ngpus; i++) {
        free(s->hardware.gpus[i].name);
        free(s->hardware.gpus[i].base);
    }
    free(s->hardware.gpus);
    free(s->gpu_specs);
    free(s->model_src.hf_config);
    arch_hf_free(s->model_arch);
    perf_calib_fini(s->calib);
    free(s->calib);
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
    train_config_fini(&s->training);
    memset(s, 0, sizeof(*s));
}

const struct gpu_spec *cl_gpu_find(const struct cl_scenario *s,
                                   const char *name)
{
    if (name == NULL)
        return NULL;
    for (int i = 0; s != NULL && s->gpu_specs != NULL && i < s->hardware.ngpus;
         i++) {
        if (strcasecmp(s->gpu_specs[i].name, name) == 0)
            return &s->gpu_specs[i];
    }
    return gpu_find(name);
}

char *cl_gpu_names(const struct cl_scenario *s)
{
    char *cat = gpu_names(), *out;
    size_t len = strlen(cat) + 1;
    int n = s != NULL && s->gpu_specs != NULL ? s->hardware.ngpus : 0;

    for (int i = 0; i < n; i++)
        len += strlen(s->gpu_specs[i].name) + 2;
    out = xmalloc(len);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strcat(out, s->gpu_specs[i].name);
        strcat(out, ", ");
    }
    strcat(out, cat);
    free(cat);
    return out;
}
