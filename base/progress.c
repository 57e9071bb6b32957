/* The progress line. Rejected: a thread that redraws on a timer (the
 * callers already wake often, and a second writer to stderr would
 * interleave with their messages). */
#include "base/progress.h"

#include <stdarg.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void sim_progress_start(struct sim_progress *p, FILE *fp, int in_place,
                        double every_s)
{
    p->fp = fp;
    p->in_place = in_place;
    p->every_s = every_s;
    p->t0_s = now_s();
    p->last_s = 0;
    p->drawn = 0;
}

void sim_progress_restart(struct sim_progress *p)
{
    p->t0_s = now_s();
    p->last_s = 0;
}

double sim_progress_wall_s(const struct sim_progress *p)
{
    return now_s() - p->t0_s;
}

int sim_progress_due(const struct sim_progress *p)
{
    return p->fp != NULL && sim_progress_wall_s(p) - p->last_s >= p->every_s;
}

void sim_progress_draw(struct sim_progress *p, const char *fmt, ...)
{
    va_list ap;

    if (p->fp == NULL)
        return;
    p->last_s = sim_progress_wall_s(p);
    if (p->in_place)
        fputc('\r', p->fp);
    va_start(ap, fmt);
    vfprintf(p->fp, fmt, ap);
    va_end(ap);
    if (p->in_place)
        p->drawn = 1;
    else
        fputc('\n', p->fp);
    fflush(p->fp);
}

void sim_progress_clear(struct sim_progress *p)
{
    if (p->fp == NULL || !p->drawn)
        return;
    fprintf(p->fp, "\r%*s\r", SIM_PROGRESS_COLS, "");
    fflush(p->fp);
    p->drawn = 0;
}

char *sim_progress_bar(char *buf, size_t width, size_t done, size_t total)
{
    size_t fill = total > 0 ? done * width / total : 0;

    for (size_t i = 0; i < width; i++)
        buf[i] = i < fill ? '#' : '.';
    buf[width] = '\0';
    return buf;
}
