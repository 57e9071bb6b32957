/*
 * The launch of a plan (`dsec plan --launch DIR`, docs/plan.md "Launching
 * the chosen configuration"): the chosen configuration written as what one
 * deploys. DIR/serve.sh holds one `vllm serve` command line per role (a
 * replica; the prefill and decode groups of a disaggregated scenario; each
 * pool of a mix), DIR/deployment.yaml a Kubernetes Deployment and Service
 * per role and, when the chosen policy is hpa, an autoscaling/v2
 * HorizontalPodAutoscaler; other policies of an elastic configuration get
 * DIR/scaler.yaml, a dsec-scaler configuration (docs/scaler.md); a
 * fixed-size one (static, elastic with equal bounds, or a mix, whose
 * pools no one-Deployment autoscaler can scale) gets no autoscaler.
 * DIR/README.md gives the plan's figures. Only flags that vLLM has are written,
 * from the scenario's own values; what has no vLLM flag is said in a comment.
 * The files name the scenario by its file name, never by a path of the machine
 * that planned. Single-threaded; reads the plan only.
 */
#ifndef PLAN_LAUNCH_H
#define PLAN_LAUNCH_H

#include "base/diag.h"

struct plan;

/* Names of the files plan_launch_write() writes into its directory. */
#define PLAN_LAUNCH_SERVE "serve.sh"
#define PLAN_LAUNCH_DEPLOYMENT "deployment.yaml"
#define PLAN_LAUNCH_SCALER "scaler.yaml"
#define PLAN_LAUNCH_README "README.md"

/*
 * Writes the launch of p's chosen configuration (p->chosen, after
 * plan_run() and plan_predict()) into directory dir, creating dir (not its
 * parents) when it does not exist: PLAN_LAUNCH_SERVE (mode 0755),
 * PLAN_LAUNCH_DEPLOYMENT, PLAN_LAUNCH_README and, for a configuration
 * that scales under a policy other than hpa, PLAN_LAUNCH_SCALER; a
 * PLAN_LAUNCH_SCALER left there by an earlier launch is removed when the
 * configuration gets none. Returns 0; SIM_EINVAL when nothing was chosen
 * ("dsec plan: error: --launch DIR: nothing chosen; ..."); SIM_EIO when
 * dir exists and is not a directory, or cannot be created, or a file
 * cannot be written ("dsec plan: error: --launch DIR: ..." in d). Files
 * written before a failure stay.
 */
int plan_launch_write(const struct plan *p, const char *dir,
                      struct sim_diag *d);

#endif /* PLAN_LAUNCH_H */
