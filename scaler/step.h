/*
 * One evaluation of dsec-scaler, the body of its loop: collect the
 * metrics (source.h), read the current size (actuator.h), build the
 * snapshot, decide (decide.h), act when the decision changes the size,
 * log and update the stats (serve.h). Tests drive it as main() does. The
 * loop's parts are owned by whoever fills struct scl_loop (main()).
 * Single-threaded; the stats are shared with the HTTP server's thread
 * under their mutex.
 */
#ifndef SCL_STEP_H
#define SCL_STEP_H

#include "scaler/actuator.h"
#include "scaler/conf.h"
#include "scaler/decide.h"
#include "scaler/log.h"
#include "scaler/serve.h"
#include "scaler/source.h"

struct scl_loop {
    const struct scl_config *c; /* borrowed */
    struct scl_log log;
    struct scl_stats stats;
    struct scl_source *src;
    struct scl_actuator *act;
    struct scl_decider dec;
    int dry_run;
    /* Scale to zero: the replicas have reported no running and no waiting
     * request since idle_since_s (when idle_seen). */
    int idle_seen;
    double idle_since_s;
};

/* What scl_evaluate() returns when it held because the metrics source
 * (every target, or Prometheus) or the API server could not be reached or
 * answered nonsense: dsec-scaler --once then exits 3. */
#define SCL_EVAL_UNREACHED 1

/* One evaluation at now_s (monotonic seconds since the start) and wall_s
 * (Unix time, for the staleness of Prometheus samples). Holds, without
 * acting, when the metrics are not valid (source.h) or the current size
 * cannot be read or is unusable (actuator.h). Returns 0; SIM_EIO or
 * SIM_EINVAL when the actuation failed; SCL_EVAL_UNREACHED when it held
 * for want of its metrics source or of the current size. */
int scl_evaluate(struct scl_loop *x, double now_s, double wall_s);

#endif /* SCL_STEP_H */
