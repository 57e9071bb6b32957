/*
 * Structured log lines of dsec-scaler on one stream: logfmt text
 * (`ts=2026-11-30T09:20:00.123Z level=info msg="..." key=value`) or one
 * JSON object per line. Values are passed as strings; text values with
 * spaces, quotes or '=' are quoted and escaped. Not thread-safe: only the
 * main loop logs.
 */
#ifndef SCL_LOG_H
#define SCL_LOG_H

#include <stdio.h>

#include "base/xalloc.h"

enum scl_log_format {
    SCL_LOG_TEXT,
    SCL_LOG_JSON,
};

struct scl_log {
    int format; /* enum scl_log_format */
    FILE *fp;   /* borrowed */
};

/* Writes one line at level ("info", "warn", "error") with msg and the
 * key/value string pairs that follow, ended by NULL. A NULL value is
 * skipped. */
void scl_log(const struct scl_log *l, const char *level, const char *msg, ...);

/* As scl_log() with msg formatted; no key/value pairs. */
void scl_logf(const struct scl_log *l, const char *level, const char *fmt, ...)
    SIM_PRINTF(3, 4);

#endif /* SCL_LOG_H */
