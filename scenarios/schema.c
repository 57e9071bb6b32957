/* The composition table: the top-level keys of a scenario, each section
 * pointing at the rows of the model folder that owns it. Rows are listed in
 * the order `dsec help scenario` prints them. */
#include "scenarios/schema.h"

#include <math.h>
#include <stddef.h>

#include "models/cluster/config.h"

#define NOMIN (-INFINITY)
#define NOMAX INFINITY
#define REQ SIM_PF_REQUIRED

SIM_PARAM_COUNT_AFTER(struct cl_scenario, pools, npools);

const struct sim_param scn_schema[] = {
    {"name", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "scenario name (default: the file name without .yaml)",
     offsetof(struct cl_scenario, name), NULL, NULL},
    {"seed", SIM_PT_UINT64, SIM_U_NONE, 0, NOMAX, 0, "1",
     "seed of every random stream", offsetof(struct cl_scenario, seed), NULL,
     NULL},
    {"start", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "time of day at which the run starts, \"HH:MM\" or \"HH:MM:SS\" "
     "(24-hour; unset: midnight): the phase of a diurnal cycle and the "
     "clock on the reports' time axes",
     offsetof(struct cl_scenario, start), NULL, NULL},
    {"model", SIM_PT_STRING, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "model catalog name (default: from deploy.model_path), or a "
     "mapping {hf_config: PATH} naming a Hugging Face config.json",
     offsetof(struct cl_scenario, model), NULL, NULL},
    {"workload", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, REQ, NULL,
     "the traffic", offsetof(struct cl_scenario, workload), NULL,
     cl_workload_rows},
    {"server", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "what one replica is", offsetof(struct cl_scenario, server), NULL,
     cl_server_rows},
    {"hardware", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL, "the GPUs",
     offsetof(struct cl_scenario, hardware), NULL, cl_hardware_rows},
    {"deploy", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "how the model is laid out on the GPUs",
     offsetof(struct cl_scenario, deploy), NULL, cl_deploy_rows},
    {"cluster", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "how many replicas, static or elastic",
     offsetof(struct cl_scenario, cluster), NULL, cl_cluster_rows},
    {"slo", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "service-level objective; a request meets it when every target set "
     "holds",
     offsetof(struct cl_scenario, slo), NULL, cl_slo_rows},
    {"metrics", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "what the statistics cover", offsetof(struct cl_scenario, metrics), NULL,
     cl_metrics_rows},
    {.key = "pools",
     .type = SIM_PT_LIST,
     .unit = SIM_U_NONE,
     .min = NOMIN,
     .max = SIM_PARAM_LIST_MAX,
     .help = "GPU pools an elastic cluster grows into (needs "
             "cluster.min_gpus and max_gpus); their capacity must cover "
             "min_gpus",
     .offset = offsetof(struct cl_scenario, pools),
     .sub = cl_pool_rows},
    {"faults", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "GPU and node failures, random and scripted",
     offsetof(struct cl_scenario, faults), NULL, cl_faults_rows},
    {"policy", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "the scaling policy of an elastic cluster and its guard rails",
     offsetof(struct cl_scenario, policy), NULL, cl_policy_rows},
    {"training", SIM_PT_SECTION, SIM_U_NONE, NOMIN, NOMAX, 0, NULL,
     "a training job run after the serving part (docs/training.md)",
     offsetof(struct cl_scenario, training), NULL, train_config_rows},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};
