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

/* Does v hold a byte that a terminal or a log reader would act on? */
static int has_control(const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* A logfmt value: quoted when it holds a space, quote, '=', backslash or
 * control byte; inside quotes '"' and '\\' are escaped, \n \r \t keep
 * their names and every other control byte (ESC, NUL is impossible) is
 * written \xNN, so that text from outside (an API error body) can
 * neither forge a line nor drive a terminal. */
static void put_text(FILE *fp, const char *v)
{
    int quote = v[0] == '\0' || strpbrk(v, " \"=\\") != NULL || has_control(v);

    if (!quote) {
        fputs(v, fp);
        return;
    }
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", fp);
        else if (*p == '\r')
            fputs("\\r", fp);
        else if (*p == '\t')
            fputs("\\t", fp);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(fp, "\\x%02x", *p);
        else
            fputc(*p, fp);
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
