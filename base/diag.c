/* Diagnostic list: growth is bounded by SIM_DIAG_MAX_ERRORS errors plus the
 * warnings and notes, which callers emit a handful of at most. */
#include "base/diag.h"

#include <stdlib.h>
#include <string.h>

void sim_diag_init(struct sim_diag *d)
{
    memset(d, 0, sizeof(*d));
}

void sim_diag_fini(struct sim_diag *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->v[i].file);
        free(d->v[i].msg);
    }
    free(d->v);
    memset(d, 0, sizeof(*d));
}

void sim_diag_vadd(struct sim_diag *d, enum sim_severity sev, const char *file,
                   int line, int col, const char *fmt, va_list ap)
{
    struct sim_diag_entry *e;
    va_list aq;
    int len;

    if (sev == SIM_SEV_ERROR && d->nerrors++ >= SIM_DIAG_MAX_ERRORS)
        return;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 8;
        d->v = xrealloc(d->v, (size_t)d->cap, sizeof(*d->v));
    }
    e = &d->v[d->n++];
    e->file = file ? xstrdup(file) : NULL;
    e->line = line;
    e->col = col;
    e->sev = sev;
    va_copy(aq, ap);
    len = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    e->msg = xmalloc((size_t)(len < 0 ? 0 : len) + 1);
    vsnprintf(e->msg, (size_t)(len < 0 ? 0 : len) + 1, fmt, ap);
}

void sim_diag_add(struct sim_diag *d, enum sim_severity sev, const char *file,
                  int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_diag_vadd(d, sev, file, line, col, fmt, ap);
    va_end(ap);
}

void sim_diag_error(struct sim_diag *d, const char *file, int line, int col,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_diag_vadd(d, SIM_SEV_ERROR, file, line, col, fmt, ap);
    va_end(ap);
}

int sim_diag_errors(const struct sim_diag *d)
{
    return d->nerrors;
}

char *sim_diag_format(const struct sim_diag *d, int i)
{
    static const char *const sev_names[] = {"error", "warning", "note"};
    const struct sim_diag_entry *e = &d->v[i];
    const char *sev = sev_names[e->sev];

    if (e->file == NULL)
        return xasprintf("%s: %s", sev, e->msg);
    if (e->line <= 0)
        return xasprintf("%s: %s: %s", e->file, sev, e->msg);
    if (e->col <= 0)
        return xasprintf("%s:%d: %s: %s", e->file, e->line, sev, e->msg);
    return xasprintf("%s:%d:%d: %s: %s", e->file, e->line, e->col, sev, e->msg);
}

void sim_diag_print(const struct sim_diag *d, FILE *fp)
{
    for (int i = 0; i < d->n; i++) {
        char *s = sim_diag_format(d, i);
        fprintf(fp, "%s\n", s);
        free(s);
    }
    if (d->nerrors > SIM_DIAG_MAX_ERRORS)
        fprintf(fp, "%d more errors not shown\n",
                d->nerrors - SIM_DIAG_MAX_ERRORS);
}
