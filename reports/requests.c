/* Per-request files. Both formats walk cl_request_fields, so a column
 * added to CL_REQUEST_FIELDS appears in them without code here. A row is
 * formatted into the FILE's own buffer, O(columns) per row. */
#include "reports/requests.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

struct rpt_reqfile {
    FILE *fp;
    char *path;
    int format; /* enum rpt_req_format */
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

int rpt_reqfile_format(const char *path)
{
    if (ends_with(path, ".csv"))
        return RPT_REQ_CSV;
    if (ends_with(path, ".jsonl") || ends_with(path, ".ndjson"))
        return RPT_REQ_JSONL;
    return -1;
}

struct rpt_reqfile *rpt_reqfile_open(const char *path, struct sim_diag *d)
{
    struct rpt_reqfile *f;
    int format = rpt_reqfile_format(path);

    if (format < 0) {
        sim_diag_error(d, path, 0, 0,
                       "cannot write requests: expected a name ending in "
                       ".csv, .jsonl or .ndjson");
        return NULL;
    }
    f = xcalloc(1, sizeof(*f));
    f->format = format;
    f->path = xstrdup(path);
    f->fp = fopen(path, "w");
    if (f->fp == NULL) {
        sim_diag_error(d, path, 0, 0, "cannot write requests: %s",
                       strerror(errno));
        free(f->path);
        free(f);
        return NULL;
    }
    if (format == RPT_REQ_CSV) {
        for (int i = 0; i < CL_REQUEST_NFIELDS; i++)
            fprintf(f->fp, "%s%s", i ? "," : "", cl_request_fields[i].db);
        fputc('\n', f->fp);
    }
    return f;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v. */
static void put_double(FILE *fp, double v)
{
    char buf[40];

    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, fp);
}

/* Value of field fl of row; strings are plain words (ok, timeout,
 * dropped), so neither format needs escapes. */
static void put_value(const struct rpt_reqfile *f, const struct cl_rfield *fl,
                      const struct cl_request_row *row)
{
    const void *p = cl_rfield_cptr(row, fl);

    switch (fl->type) {
    case CL_RT_U64:
        fprintf(f->fp, "%" PRIu64, *(const uint64_t *)p);
        break;
    case CL_RT_I64:
        fprintf(f->fp, "%" PRId64, *(const int64_t *)p);
        break;
    case CL_RT_INT:
        fprintf(f->fp, "%d", *(const int *)p);
        break;
    case CL_RT_F64: {
        double v = *(const double *)p;
        if (!isnan(v) && !isinf(v))
            put_double(f->fp, v);
        else if (f->format == RPT_REQ_JSONL)
            fputs("null", f->fp);
        break;
    }
    case CL_RT_STR: {
        const char *s = *(char *const *)p;
        if (s == NULL)
            fputs(f->format == RPT_REQ_JSONL ? "null" : "", f->fp);
        else if (f->format == RPT_REQ_JSONL)
            fprintf(f->fp, "\"%s\"", s);
        else
            fputs(s, f->fp);
        break;
    }
    default: /* no other kind in CL_REQUEST_FIELDS */
        break;
    }
}

void rpt_reqfile_write(void *ctx, const struct cl_request_row *row)
{
    struct rpt_reqfile *f = ctx;

    if (f->format == RPT_REQ_JSONL)
        fputc('{', f->fp);
    for (int i = 0; i < CL_REQUEST_NFIELDS; i++) {
        const struct cl_rfield *fl = &cl_request_fields[i];
        if (f->format == RPT_REQ_JSONL)
            fprintf(f->fp, "%s\"%s\":", i ? "," : "", fl->json);
        else if (i > 0)
            fputc(',', f->fp);
        put_value(f, fl, row);
    }
    fputs(f->format == RPT_REQ_JSONL ? "}\n" : "\n", f->fp);
}

int rpt_reqfile_close(struct rpt_reqfile *f, struct sim_diag *d)
{
    int bad;

    if (f == NULL)
        return 0;
    bad = ferror(f->fp) != 0;
    if (fclose(f->fp) != 0)
        bad = 1;
    if (bad)
        sim_diag_error(d, f->path, 0, 0, "cannot write requests: %s",
                       strerror(errno));
    free(f->path);
    free(f);
    return bad ? SIM_EIO : 0;
}
