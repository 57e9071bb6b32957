/*
 * Actuators of dsec-scaler: the Kubernetes scale subresource of a
 * Deployment (docs/sources.md §7.1: GET then PATCH with
 * application/merge-patch+json {"spec":{"replicas":N}}, only when N
 * differs), a command run with the count substituted for {replicas} (no
 * shell), or nothing but a log line (dry run). Failed attempts are retried
 * with exponential backoff and jitter from a seeded generator, one request
 * in flight at most; tokens are never logged. Single-threaded.
 */
#ifndef SCL_ACTUATOR_H
#define SCL_ACTUATOR_H

#include <signal.h>
#include <stddef.h>

#include "scaler/conf.h"

struct scl_actuator;

/* What one apply did. */
struct scl_act_result {
    int attempts;     /* requests or commands tried */
    int patched;      /* a change was sent (PATCH, command run) */
    int errors;       /* failed attempts */
    long last_status; /* last HTTP status (kubernetes), exit status (exec) */
};

/* A new actuator for c (borrowed). dry_run turns kubernetes into
 * read-only (GET, never PATCH) and exec into log only. stop (may be NULL)
 * is polled while waiting, so a signal cuts a backoff short. Caller frees
 * with scl_actuator_free(). */
struct scl_actuator *scl_actuator_new(const struct scl_config *c, int dry_run,
                                      const volatile sig_atomic_t *stop);

/* Frees a; NULL is a no-op. */
void scl_actuator_free(struct scl_actuator *a);

/* Reads the current size: spec.replicas and status.replicas of the scale
 * subresource (kubernetes; one attempt; status -1 when absent), or the
 * last size applied, -1 before any (exec, log). Returns 0; SIM_EIO with
 * err when no answer came (transport, HTTP status); SIM_EINVAL with err
 * when the answer is not a usable Scale: not JSON, or a replicas field
 * that is not a JSON integer in [0, SCL_REPLICAS_LIMIT]. */
int scl_actuator_read(struct scl_actuator *a, int *spec, int *status, char *err,
                      size_t errlen);

/* Parses a Scale answer (NUL-terminated JSON) as scl_actuator_read()
 * does: *spec from spec.replicas, *status from status.replicas (-1 when
 * absent). Returns 0, or SIM_EINVAL with why (whylen bytes) saying what is
 * wrong. */
int scl_scale_parse(const char *body, int *spec, int *status, char *why,
                    size_t whylen);

/* Sets the size to n: kubernetes reads the scale and patches only when
 * spec.replicas differs; exec runs the command in its own process group,
 * the whole group killed on time-out. Retries failures (transport errors,
 * HTTP 5xx and 429, non-zero exits) up to c->max_attempts with backoff.
 * Returns 0, SIM_EINVAL without acting when n lies outside
 * [c->min_replicas, c->max_replicas] or the scale read is not usable, or
 * SIM_EIO with err (the last failure); r (may be NULL) says what
 * happened. */
int scl_actuator_apply(struct scl_actuator *a, int n, struct scl_act_result *r,
                       char *err, size_t errlen);

/* "kubernetes", "exec", "log" or "dry-run:kubernetes" ... (static). */
const char *scl_actuator_name(const struct scl_actuator *a);

/* Waits seconds, returning early (1) when *stop is set; 0 otherwise. */
int scl_sleep(double seconds, const volatile sig_atomic_t *stop);

#endif /* SCL_ACTUATOR_H */
