/* Structured logging; see log.h. */
#include "scaler/log.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static void timestamp(char *buf, size_t n)
{
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             ts.tv_nsec / 1000000);
}

static void put_text(FILE *fp, const char *v)
{
    int quote = v[0] == '\0' || strpbrk(v, " \"=\t\n\\") != NULL;

    if (!quote) {
        fputs(v, fp);
        return;
    }
    fputc('"', fp);
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            fputc('\\', fp);
        if (*v == '\n') {
            fputs("\\n", fp);
            continue;
        }
        fputc(*v, fp);
    }
    fputc('"', fp);
}

static void vlog(const struct scl_log *l, const char *level, const char *msg,
                 va_list ap)
{
    char ts[96];
    const char *k;

    timestamp(ts, sizeof(ts));
    if (l->format == SCL_LOG_JSON) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "ts", json_object_new_string(ts));
        json_object_object_add(o, "level", json_object_new_string(level));
        json_object_object_add(o, "msg", json_object_new_string(msg));
        while ((k = va_arg(ap, const char *)) != NULL) {
            const char *v = va_arg(ap, const char *);
            if (v != NULL)
                json_object_object_add(o, k, json_object_new_string(v));
        }
        fprintf(l->fp, "%s\n",
                json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    } else {
        fprintf(l->fp, "ts=%s level=%s msg=", ts, level);
        put_text(l->fp, msg);
        while ((k = va_arg(ap, const char *)) != NULL) {
            const char *v = va_arg(ap, const char *);
            if (v == NULL)
                continue;
            fprintf(l->fp, " %s=", k);
            put_text(l->fp, v);
        }
        fputc('\n', l->fp);
    }
    fflush(l->fp);
}

void scl_log(const struct scl_log *l, const char *level, const char *msg, ...)
{
    va_list ap;

    va_start(ap, msg);
    vlog(l, level, msg, ap);
    va_end(ap);
}

static void log_end(const struct scl_log *l, const char *level, const char *msg,
                    ...)
{
    va_list ap;

    va_start(ap, msg);
    vlog(l, level, msg, ap);
    va_end(ap);
}

void scl_logf(const struct scl_log *l, const char *level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    log_end(l, level, buf, (const char *)NULL);
}
