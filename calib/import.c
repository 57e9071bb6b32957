/* dsec-calib import: parsers for the text output of nccl-tests, perftest,
 * nvbandwidth, cuda-samples bandwidthTest and dsec-calib run. Formats as
 * docs/sources.md §10 describes them (nccl-tests @ a0b82b22 src/util.cu,
 * perftest
 * @ 00b55b66 src/perftest_parameters.c, nvbandwidth @ 66746a3b,
 * cuda-samples @ 306af8d2 bandwidthTest.cu). Each parser walks the lines
 * once; a row that does not parse is an error naming the row and what was
 * expected, and the whole file is then rolled back. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/cal.h"
#include "base/errors.h"

/* nvbandwidth's default buffer, -b 512 (MiB), docs/sources.md §10.3; its text
 * output does not print the size, so cells are stored at this size. */
#define NVB_DEFAULT_BYTES (512.0 * 1048576.0)

#define MAX_TOK 64
/* The largest GPU index accepted in nvbandwidth matrices. */
#define GPU_INDEX_MAX 65535.0

struct log {
    const char *path;
    char **lines; /* owned, without the newline */
    int n;
    sqlite3 *db;
    const char *gpu, *node;
    struct sim_diag *d;
    int npoints;
    char date[64];
    char host[256];
};

static int read_lines(struct log *L)
{
    FILE *fp = fopen(L->path, "r");
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int ncap = 0;

    if (!fp) {
        sim_diag_error(L->d, L->path, 0, 0, "cannot open: %s", strerror(errno));
        return SIM_EIO;
    }
    while ((len = getline(&buf, &cap, fp)) >= 0) {
        if (L->n >= CAL_MAX_LINES || len > CAL_MAX_LINE) {
            sim_diag_error(L->d, L->path, L->n + 1, 0,
                           "line longer than %d bytes or more than %d lines",
                           CAL_MAX_LINE, CAL_MAX_LINES);
            free(buf);
            fclose(fp);
            return SIM_EPARSE;
        }
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (L->n == ncap) {
            ncap = ncap ? 2 * ncap : 256;
            L->lines = xrealloc(L->lines, (size_t)ncap, sizeof(char *));
        }
        L->lines[L->n++] = xstrdup(buf);
    }
    free(buf);
    fclose(fp);
    return 0;
}

/* Splits a copy of s at whitespace into tok (at most MAX_TOK). The copy is
 * returned and must be freed. */
static char *split(const char *s, char **tok, int *ntok)
{
    char *c = xstrdup(s), *save = NULL, *t;

    *ntok = 0;
    for (t = strtok_r(c, " \t", &save); t && *ntok < MAX_TOK;
         t = strtok_r(NULL, " \t", &save))
        tok[(*ntok)++] = t;
    return c;
}

static int num(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0 && isfinite(*out) ? 0 : -1;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The largest time (µs) and size (bytes) a point may have: about eleven
 * days, and an exabyte. Past them a log is corrupt, not slow. */
#define TIME_US_MAX 1e12
#define SIZE_MAX_BYTES 1e18

/* Whether v (NAN: not given) lies in [0, max]. */
static int in_range(double v, double max)
{
    return isnan(v) || (v >= 0 && v <= max);
}

/* Inserts p, read at line: an error when one of its numbers is impossible
 * (negative, or past TIME_US_MAX or SIZE_MAX_BYTES); skipped, with a
 * warning, when the benchmark counted wrong results (nccl-tests #wrong >
 * 0: the collective was broken, so its time says nothing about the link). */
static int insert(struct log *L, struct cal_point *p, int line)
{
    if (!in_range(p->time_us, TIME_US_MAX) ||
        !in_range(p->time_min_us, TIME_US_MAX) ||
        !in_range(p->time_max_us, TIME_US_MAX) ||
        !in_range(p->size_bytes, SIZE_MAX_BYTES) ||
        !in_range(p->count, SIZE_MAX_BYTES)) {
        sim_diag_error(L->d, L->path, line, 0,
                       "%s: a time of %g us or a size of %g bytes; times "
                       "lie in [0, %g] us and sizes in [0, %g] bytes",
                       p->tool, p->time_us, p->size_bytes, TIME_US_MAX,
                       SIZE_MAX_BYTES);
        return SIM_EPARSE;
    }
    if (p->nwrong > 0) {
        sim_diag_add(L->d, SIM_SEV_WARNING, L->path, line, 0,
                     "%s: row skipped: #wrong %d (the benchmark counted "
                     "wrong results, so its time is not used)",
                     p->tool, p->nwrong);
        return 0;
    }
    p->file = L->path;
    p->line = line;
    p->gpu = L->gpu;
    p->node = L->node ? L->node : (L->host[0] ? L->host : NULL);
    p->date = L->date[0] ? L->date : NULL;
    if (cal_db_insert(L->db, p, L->d) != 0)
        return SIM_EDB;
    L->npoints++;
    return 0;
}

/* ---- nccl-tests ---------------------------------------------------- */

static const char *const nccl_names[] = {"all_reduce_perf",
                                         "all_gather_perf",
                                         "reduce_scatter_perf",
                                         "alltoall_perf",
                                         "sendrecv_perf",
                                         "broadcast_perf",
                                         "reduce_perf",
                                         "scatter_perf",
                                         "gather_perf",
                                         "hypercube_perf",
                                         NULL};

/* The binary named in s (with or without "_perf"), or NULL. */
static const char *nccl_name_in(const char *s)
{
    for (int i = 0; nccl_names[i]; i++) {
        size_t n = strlen(nccl_names[i]) - strlen("_perf");

        if (strstr(s, nccl_names[i]))
            return nccl_names[i];
        for (const char *q = s; *q; q++)
            if (strncmp(q, nccl_names[i], n) == 0 &&
                !isalnum((unsigned char)q[n]) &&
                (q == s || !isalnum((unsigned char)q[-1])))
                return nccl_names[i];
    }
    return NULL;
}

struct nccl_half {
    int time, algbw, busbw, wrong;
};

static int parse_nccl(struct log *L)
{
    const char *bench = NULL;
    char *tok[MAX_TOK], *hdr[MAX_TOK], *hcopy = NULL;
    int nh = 0, ranks = 0, hosts = 0, rc = 0, hline = 0;
    char hostv[16][64];
    struct nccl_half half[2];

    /* The collective: the trailer names it, else the file name. */
    for (int i = 0; i < L->n && !bench; i++)
        if (strstr(L->lines[i], "Collective test concluded:"))
            bench = nccl_name_in(strchr(L->lines[i], ':') + 1);
    if (!bench) {
        const char *base = strrchr(L->path, '/');
        bench = nccl_name_in(base ? base + 1 : L->path);
    }
    if (!bench) {
        sim_diag_error(L->d, L->path, 1, 0,
                       "nccl-tests log: cannot tell the collective; expected "
                       "a '# Collective test concluded: NAME' line or the "
                       "binary's name (all_reduce_perf, ...) in the file "
                       "name");
        return SIM_EPARSE;
    }
    for (int i = 0; i < L->n; i++) {
        const char *s = L->lines[i];
        char *c;
        int nt;

        /* "#  Rank  0 Group  0 Pid 1234 on node-a device  0 [..] NAME" */
        if (starts(s, "#") && strstr(s, " Rank ") && strstr(s, " on ")) {
            char h[64] = "";

            ranks++;
            if (sscanf(strstr(s, " on ") + 4, "%63s", h) == 1) {
                int known = 0;

                for (int j = 0; j < hosts && j < 16; j++)
                    known |= strcmp(hostv[j], h) == 0;
                if (!known && hosts < 16) {
                    strcpy(hostv[hosts], h);
                    hosts++;
                }
                if (!L->host[0])
                    snprintf(L->host, sizeof(L->host), "%s", h);
            }
            continue;
        }
        if (starts(s, "#") && strstr(s, "size") && strstr(s, "busbw")) {
            free(hcopy);
            hcopy = split(s + 1, hdr, &nh);
            hline = i + 1;
            if (nh >= MAX_TOK - 1)
                nh = MAX_TOK - 1;
            int found = 0;
            memset(half, -1, sizeof(half));
            for (int j = 5; j < nh; j++) {
                int h = -1;

                if (strcmp(hdr[j], "time") == 0 ||
                    strcmp(hdr[j], "cputime") == 0) {
                    found++;
                    h = found - 1;
                    if (h < 2)
                        half[h].time = j;
                    continue;
                }
                h = found - 1;
                if (h < 0 || h > 1)
                    continue;
                if (strcmp(hdr[j], "algbw") == 0)
                    half[h].algbw = j;
                else if (strcmp(hdr[j], "busbw") == 0)
                    half[h].busbw = j;
                else if (strcmp(hdr[j], "#wrong") == 0 ||
                         strcmp(hdr[j], "error") == 0)
                    half[h].wrong = j;
            }
            if (nh < 9 || strcmp(hdr[0], "size") != 0 || found != 2 ||
                half[0].algbw < 0 || half[0].busbw < 0 || half[1].algbw < 0 ||
                half[1].busbw < 0) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "nccl-tests header: expected columns size "
                               "count type redop root, then time algbw "
                               "busbw #wrong for out-of-place and in-place");
                rc = SIM_EPARSE;
                break;
            }
            if (strcmp(hdr[nh - 1], "timestamp") == 0)
                nh--;
            continue;
        }
        s = skip_ws(s);
        if (!isdigit((unsigned char)*s))
            continue; /* NCCL INFO lines, warnings, blank lines */
        if (!hcopy) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "nccl-tests row before the column header "
                           "'#  size  count  type ...'");
            rc = SIM_EPARSE;
            break;
        }
        c = split(s, tok, &nt);
        if (nt < nh) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "nccl-tests row: expected %d columns as in the "
                           "header of line %d (size count type redop root, "
                           "then time algbw busbw #wrong out-of-place and "
                           "in-place), got %d",
                           nh, hline, nt);
            free(c);
            rc = SIM_EPARSE;
            break;
        }
        double size, count, root;
        /* The root column: a rank, or -1 or "none" for collectives
         * without one. A number must be a whole rank an int can hold
         * (the fuzzer's -4e74 was converted out of range). */
        int root_num = num(tok[4], &root) == 0;
        if (num(tok[0], &size) != 0 || size < 0 || num(tok[1], &count) != 0 ||
            count < 0 ||
            (root_num &&
             (root < -1 || root > INT_MAX || root != floor(root)))) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "nccl-tests row: size '%s' and count '%s' must "
                           "be non-negative numbers and root '%s' a rank, "
                           "-1 or none",
                           tok[0], tok[1], tok[4]);
            free(c);
            rc = SIM_EPARSE;
            break;
        }
        if (!root_num)
            root = -1;
        for (int h = 0; h < 2 && rc == 0; h++) {
            struct cal_point p;
            double t, a, b, w = -1;

            cal_point_clear(&p);
            if (num(tok[half[h].time], &t) != 0 || t <= 0 ||
                num(tok[half[h].algbw], &a) != 0 || a < 0 ||
                num(tok[half[h].busbw], &b) != 0 || b < 0) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "nccl-tests row of size %s, %s: expected "
                               "time (us) > 0, algbw and busbw (GB/s) >= 0, "
                               "got '%s' '%s' '%s'",
                               tok[0], h ? "in-place" : "out-of-place",
                               tok[half[h].time], tok[half[h].algbw],
                               tok[half[h].busbw]);
                rc = SIM_EPARSE;
                break;
            }
            if (half[h].wrong >= 0 && strcmp(tok[half[h].wrong], "N/A") &&
                num(tok[half[h].wrong], &w) != 0) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "nccl-tests row of size %s: #wrong '%s' is "
                               "neither a number nor N/A",
                               tok[0], tok[half[h].wrong]);
                rc = SIM_EPARSE;
                break;
            }
            p.tool = "nccl-tests";
            p.benchmark = bench;
            p.op = h ? "in-place" : "out-of-place";
            p.dtype = tok[2];
            p.redop = tok[3];
            p.root = (int)root;
            p.ranks = ranks > 0 ? ranks : -1;
            p.hosts = hosts > 0 ? hosts : -1;
            p.size_bytes = size;
            p.count = count;
            p.time_us = t;
            p.algbw_gbps = a;
            p.busbw_gbps = b;
            p.nwrong = w < 0 ? -1 : w > INT_MAX ? INT_MAX : (int)w;
            rc = insert(L, &p, i + 1);
        }
        free(c);
        if (rc != 0)
            break;
    }
    if (rc == 0 && L->npoints == 0) {
        sim_diag_error(L->d, L->path, L->n, 0,
                       "nccl-tests log has no result rows");
        rc = SIM_EPARSE;
    }
    free(hcopy);
    return rc;
}

/* ---- perftest ------------------------------------------------------ */

static int parse_perftest(struct log *L)
{
    char bench[32] = "", dev[64] = "";
    double unit = 0; /* bytes/s per printed unit of BW */
    int mode = 0;    /* 1 bw, 2 latency, 3 latency duration mode */
    int rc = 0;

    for (int i = 0; i < L->n && rc == 0; i++) {
        const char *s = L->lines[i], *q;
        char *tok[MAX_TOK], *c;
        int nt;

        if (!bench[0] && strstr(s, " Test") &&
            (strstr(s, "BW") || strstr(s, "Latency"))) {
            const char *verb = strstr(s, "RDMA_Write")  ? "write"
                               : strstr(s, "RDMA_Read") ? "read"
                               : strstr(s, "Atomic")    ? "atomic"
                               : strstr(s, "Send")      ? "send"
                                                        : NULL;
            if (verb)
                snprintf(bench, sizeof(bench), "ib_%s_%s", verb,
                         strstr(s, "BW") ? "bw" : "lat");
        }
        if ((q = strstr(s, "Device ")) && (q = strchr(q, ':')) && !dev[0])
            sscanf(q + 1, "%63s", dev);
        if (strstr(s, "#bytes")) {
            if (strstr(s, "BW average")) {
                mode = 1;
                unit = strstr(s, "[Gb/sec]")    ? 125000000.0
                       : strstr(s, "[MiB/sec]") ? 1048576.0
                       : strstr(s, "[MB/sec]")  ? 1048576.0
                                                : 0;
                if (unit == 0) {
                    sim_diag_error(L->d, L->path, i + 1, 0,
                                   "perftest header: expected BW units "
                                   "[MiB/sec], [MB/sec] or [Gb/sec]");
                    rc = SIM_EPARSE;
                }
            } else if (strstr(s, "t_typical"))
                mode = 2;
            else if (strstr(s, "t_avg"))
                mode = 3;
            else {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "perftest header: expected a bandwidth "
                               "(BW peak, BW average) or latency (t_min ... "
                               "t_typical) table");
                rc = SIM_EPARSE;
            }
            continue;
        }
        s = skip_ws(s);
        if (!mode || !isdigit((unsigned char)*s))
            continue;
        c = split(s, tok, &nt);
        double v[10] = {0};
        int need = mode == 1 ? 5 : mode == 2 ? 9 : 4, bad = nt < need;
        for (int j = 0; j < need && j < nt && !bad; j++)
            bad = num(tok[j], &v[j]) != 0 || v[j] < 0;
        if (bad || v[0] <= 0) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "perftest row: expected %d numbers (%s), got '%s'",
                           need,
                           mode == 1   ? "#bytes #iterations BW peak, BW "
                                         "average, MsgRate"
                           : mode == 2 ? "#bytes #iterations t_min t_max "
                                         "t_typical t_avg t_stdev 99% 99.9%"
                                       : "#bytes #iterations t_avg tps",
                           s);
            free(c);
            rc = SIM_EPARSE;
            break;
        }
        struct cal_point p;
        cal_point_clear(&p);
        p.tool = "perftest";
        p.benchmark = bench[0]    ? bench
                      : mode == 1 ? "ib_write_bw"
                                  : "ib_write_lat";
        p.op = dev[0] ? dev : "rdma";
        p.size_bytes = v[0];
        if (mode == 1) {
            double bps = v[3] * unit;

            if (bps <= 0) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "perftest row of %s bytes: BW average must "
                               "be > 0",
                               tok[0]);
                free(c);
                rc = SIM_EPARSE;
                break;
            }
            /* Per-message time at the average rate (pipelined). */
            p.time_us = v[0] / bps * 1e6;
            p.algbw_gbps = bps / 1e9;
            p.busbw_gbps = bps / 1e9;
        } else if (mode == 2) {
            p.time_us = v[4]; /* t_typical, the median */
            p.time_min_us = v[2];
            p.time_max_us = v[3];
            p.algbw_gbps = v[0] / (v[4] * 1e3);
        } else {
            p.time_us = v[2];
            p.algbw_gbps = v[0] / (v[2] * 1e3);
        }
        free(c);
        rc = insert(L, &p, i + 1);
    }
    if (rc == 0 && L->npoints == 0) {
        sim_diag_error(L->d, L->path, L->n, 0,
                       "perftest log has no result rows under a '#bytes' "
                       "header");
        rc = SIM_EPARSE;
    }
    return rc;
}

/* ---- nvbandwidth --------------------------------------------------- */

static int parse_nvbandwidth(struct log *L)
{
    char test[128] = "";
    int in_matrix = 0, latency = 0, rc = 0, ncols = 0;
    int colv[MAX_TOK];

    for (int i = 0; i < L->n && rc == 0; i++) {
        const char *s = L->lines[i];
        char *tok[MAX_TOK], *c;
        int nt;

        if (starts(s, "Running ")) {
            snprintf(test, sizeof(test), "%s", s + 8);
            size_t n = strlen(test);
            if (n && test[n - 1] == '.')
                test[n - 1] = '\0';
            in_matrix = 0;
            continue;
        }
        if (test[0] && (strstr(s, "(GB/s)") || strstr(s, "(ns)"))) {
            latency = strstr(s, "(ns)") != NULL;
            in_matrix = 1;
            ncols = 0;
            continue;
        }
        if (starts(s, "SUM ")) {
            in_matrix = 0;
            continue;
        }
        if (!in_matrix)
            continue;
        c = split(s, tok, &nt);
        if (nt == 0) {
            free(c);
            in_matrix = 0;
            continue;
        }
        if (ncols == 0) { /* the column header: GPU indices */
            for (int j = 0; j < nt; j++) {
                double v;

                /* A GPU index: whole, and small enough for an int (the
                 * fuzzer's 1e60 was converted out of range). */
                if (num(tok[j], &v) != 0 || v < 0 || v > GPU_INDEX_MAX ||
                    v != floor(v)) {
                    sim_diag_error(L->d, L->path, i + 1, 0,
                                   "nvbandwidth %s: expected the column "
                                   "header of GPU indices, got '%s'",
                                   test, tok[j]);
                    rc = SIM_EPARSE;
                    break;
                }
                colv[j] = (int)v;
            }
            ncols = nt;
            free(c);
            continue;
        }
        double row;
        if (nt != ncols + 1 || num(tok[0], &row) != 0 || row < 0 ||
            row > GPU_INDEX_MAX || row != floor(row)) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "nvbandwidth %s: expected a row index (a GPU "
                           "index) and %d values, got %d fields",
                           test, ncols, nt);
            free(c);
            rc = SIM_EPARSE;
            break;
        }
        for (int j = 1; j < nt && rc == 0; j++) {
            struct cal_point p;
            double v;

            if (strcmp(tok[j], "N/A") == 0)
                continue;
            if (num(tok[j], &v) != 0 || v < 0) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "nvbandwidth %s row %s column %d: expected "
                               "a number or N/A, got '%s'",
                               test, tok[0], colv[j - 1], tok[j]);
                rc = SIM_EPARSE;
                break;
            }
            if (v == 0)
                continue; /* the diagonal of device-to-device tests */
            cal_point_clear(&p);
            p.tool = "nvbandwidth";
            p.benchmark = test;
            p.op = latency ? "latency" : "bandwidth";
            p.src = (int)row;
            p.dst = colv[j - 1];
            if (latency) {
                p.time_us = v / 1e3;
            } else {
                p.size_bytes = NVB_DEFAULT_BYTES;
                p.algbw_gbps = v;
                p.time_us = NVB_DEFAULT_BYTES / (v * 1e3);
            }
            rc = insert(L, &p, i + 1);
        }
        free(c);
    }
    if (rc == 0 && L->npoints == 0) {
        sim_diag_error(L->d, L->path, L->n, 0,
                       "nvbandwidth log has no matrix values");
        rc = SIM_EPARSE;
    }
    return rc;
}

/* ---- cuda-samples bandwidthTest ------------------------------------ */

static const char *bwt_op(const char *s)
{
    if (strstr(s, "H2D") || strstr(s, "Host to Device"))
        return "h2d";
    if (strstr(s, "D2H") || strstr(s, "Device to Host"))
        return "d2h";
    if (strstr(s, "D2D") || strstr(s, "Device to Device"))
        return "d2d";
    return NULL;
}

static int bwt_point(struct log *L, int line, const char *op, const char *mem,
                     double size, double gbps)
{
    struct cal_point p;
    /* D2D counts read + write, 2 x size (docs/sources.md §10.4). */
    double moved = strcmp(op, "d2d") == 0 ? 2 * size : size;

    cal_point_clear(&p);
    p.tool = "bandwidthTest";
    p.benchmark = "bandwidthTest";
    p.op = op;
    p.dtype = mem;
    p.size_bytes = size;
    p.algbw_gbps = gbps;
    p.time_us = moved / (gbps * 1e3);
    return insert(L, &p, line);
}

static int parse_bandwidthtest(struct log *L)
{
    const char *op = NULL, *mem = "pinned";
    int table = 0, rc = 0;

    for (int i = 0; i < L->n && rc == 0; i++) {
        const char *s = L->lines[i];
        double size, gbps;

        if (starts(s, "bandwidthTest-")) {
            const char *o = bwt_op(s);
            const char *q = strstr(s, "Size = ");
            const char *b = strstr(s, "Bandwidth = ");
            if (!o || !q || !b || sscanf(q + 7, "%lf", &size) != 1 ||
                sscanf(b + 12, "%lf", &gbps) != 1 || size <= 0 || gbps <= 0) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "bandwidthTest CSV line: expected "
                               "'bandwidthTest-<H2D|D2H|D2D>..., Bandwidth "
                               "= X GB/s, Time = T s, Size = N bytes, ...'");
                rc = SIM_EPARSE;
                break;
            }
            rc = bwt_point(L, i + 1, o,
                           strstr(s, "Paged") ? "pageable" : "pinned", size,
                           gbps);
            continue;
        }
        if (strstr(s, " Bandwidth, ") && (op = bwt_op(s)) != NULL) {
            table = 0;
            continue;
        }
        if (strstr(s, "PAGEABLE Memory"))
            mem = "pageable";
        else if (strstr(s, "PINNED Memory"))
            mem = "pinned";
        if (strstr(s, "Transfer Size (Bytes)")) {
            if (!op) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "bandwidthTest table without a '<Host to "
                               "Device|Device to Host|Device to Device> "
                               "Bandwidth' title");
                rc = SIM_EPARSE;
                break;
            }
            table = 1;
            continue;
        }
        if (!table)
            continue;
        s = skip_ws(s);
        if (!*s) {
            table = 0;
            continue;
        }
        char *tok[MAX_TOK], *c;
        int nt;

        c = split(s, tok, &nt);
        if (nt != 2 || num(tok[0], &size) != 0 || size <= 0 ||
            num(tok[1], &gbps) != 0 || gbps <= 0) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "bandwidthTest %s row: expected 'transfer size "
                           "(bytes) > 0' and 'bandwidth (GB/s) > 0', got "
                           "'%s'",
                           op, s);
            free(c);
            rc = SIM_EPARSE;
            break;
        }
        free(c);
        rc = bwt_point(L, i + 1, op, mem, size, gbps);
    }
    if (rc == 0 && L->npoints == 0) {
        sim_diag_error(L->d, L->path, L->n, 0,
                       "bandwidthTest log has no result rows");
        rc = SIM_EPARSE;
    }
    return rc;
}

/* ---- dsec-calib run ------------------------------------------------ */

/* "# dsec-calib KIND 1", "# date: D", "# device: NAME", "# columns: a b c",
 * then rows of those columns (docs/calibration.md "Raw logs"). Known
 * columns: op dtype src dst m n k bytes reps median_us min_us max_us gbps
 * tflops; others are ignored. */
static int parse_dsec(struct log *L)
{
    char kind[32] = "", *cols[MAX_TOK], *ccopy = NULL;
    int ncols = 0, rc = 0, cline = 0;

    for (int i = 0; i < L->n && rc == 0; i++) {
        const char *s = L->lines[i];
        char *tok[MAX_TOK], *c;
        int nt;

        if (starts(s, "# dsec-calib ")) {
            sscanf(s + 13, "%31s", kind);
            continue;
        }
        if (starts(s, "# date: ")) {
            snprintf(L->date, sizeof(L->date), "%s", skip_ws(s + 8));
            continue;
        }
        if (starts(s, "# host: ")) {
            snprintf(L->host, sizeof(L->host), "%s", skip_ws(s + 8));
            continue;
        }
        if (starts(s, "# columns: ")) {
            free(ccopy);
            ccopy = split(s + 11, cols, &ncols);
            cline = i + 1;
            continue;
        }
        s = skip_ws(s);
        if (!*s || *s == '#')
            continue;
        if (!ccopy) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "dsec-calib log: row before the '# columns: ...' "
                           "line");
            rc = SIM_EPARSE;
            break;
        }
        c = split(s, tok, &nt);
        if (nt != ncols) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "dsec-calib %s row: expected %d fields as named "
                           "on line %d, got %d",
                           kind, ncols, cline, nt);
            free(c);
            rc = SIM_EPARSE;
            break;
        }
        struct cal_point p;
        cal_point_clear(&p);
        p.tool = "dsec-calib";
        p.benchmark = kind;
        p.op = kind;
        for (int j = 0; j < nt; j++) {
            double v = NAN;
            const char *name = cols[j];
            int is_text = strcmp(name, "op") == 0 || strcmp(name, "dtype") == 0;

            if (is_text) {
                if (strcmp(name, "op") == 0)
                    p.op = tok[j];
                else
                    p.dtype = tok[j];
                continue;
            }
            /* src, dst and ranks are ints: whole and in range. */
            int is_index = strcmp(name, "src") == 0 ||
                           strcmp(name, "dst") == 0 ||
                           strcmp(name, "ranks") == 0;
            if (num(tok[j], &v) != 0 || v < 0 ||
                (is_index && (v > INT_MAX || v != floor(v)))) {
                sim_diag_error(L->d, L->path, i + 1, 0,
                               "dsec-calib %s row: column %s: expected a "
                               "non-negative %s, got '%s'",
                               kind, name,
                               is_index ? "whole number an int can hold"
                                        : "number",
                               tok[j]);
                rc = SIM_EPARSE;
                break;
            }
            if (strcmp(name, "src") == 0)
                p.src = (int)v;
            else if (strcmp(name, "dst") == 0)
                p.dst = (int)v;
            else if (strcmp(name, "ranks") == 0)
                p.ranks = (int)v;
            else if (strcmp(name, "m") == 0)
                p.m = v;
            else if (strcmp(name, "n") == 0)
                p.n = v;
            else if (strcmp(name, "k") == 0)
                p.k = v;
            else if (strcmp(name, "bytes") == 0)
                p.size_bytes = v;
            else if (strcmp(name, "median_us") == 0)
                p.time_us = v;
            else if (strcmp(name, "min_us") == 0)
                p.time_min_us = v;
            else if (strcmp(name, "max_us") == 0)
                p.time_max_us = v;
            else if (strcmp(name, "gbps") == 0)
                p.algbw_gbps = v;
        }
        if (rc == 0 && !(p.time_us > 0)) {
            sim_diag_error(L->d, L->path, i + 1, 0,
                           "dsec-calib %s row: median_us must be > 0", kind);
            rc = SIM_EPARSE;
        }
        if (rc == 0)
            rc = insert(L, &p, i + 1);
        free(c);
    }
    if (rc == 0 && L->npoints == 0) {
        sim_diag_error(L->d, L->path, L->n, 0, "dsec-calib log has no rows");
        rc = SIM_EPARSE;
    }
    free(ccopy);
    return rc;
}

/* ---- detection ----------------------------------------------------- */

enum fmt { F_NONE, F_NCCL, F_PERFTEST, F_NVB, F_BWT, F_DSEC };

static enum fmt detect(const struct log *L)
{
    for (int i = 0; i < L->n && i < 400; i++) {
        const char *s = L->lines[i];

        if (starts(s, "# dsec-calib "))
            return F_DSEC;
        if (starts(s, "# nThread ") ||
            (starts(s, "#") && strstr(s, "size") && strstr(s, "busbw")))
            return F_NCCL;
        if (strstr(s, "#bytes") &&
            (strstr(s, "BW peak") || strstr(s, "t_min") || strstr(s, "t_avg")))
            return F_PERFTEST;
        if (starts(s, "nvbandwidth Version"))
            return F_NVB;
        if (strstr(s, "[CUDA Bandwidth Test]") || starts(s, "bandwidthTest-") ||
            strstr(s, "Transfer Size (Bytes)"))
            return F_BWT;
    }
    return F_NONE;
}

int cal_import_file(sqlite3 *db, const char *path, const char *gpu,
                    const char *node, int *npoints, const char **tool,
                    struct sim_diag *d)
{
    static const char *const names[] = {
        "",          "nccl-tests", "perftest", "nvbandwidth", "bandwidthTest",
        "dsec-calib"};
    struct log L;
    enum fmt f;
    int rc;

    memset(&L, 0, sizeof(L));
    L.path = path;
    L.db = db;
    L.gpu = gpu;
    L.node = node;
    L.d = d;
    *npoints = 0;
    rc = read_lines(&L);
    if (rc == 0) {
        f = detect(&L);
        if (tool)
            *tool = names[f];
        if (f == F_NONE) {
            sim_diag_error(d, path, 1, 0,
                           "unrecognised log; expected the output of "
                           "nccl-tests, perftest (ib_write_bw, ib_write_lat), "
                           "nvbandwidth, cuda-samples bandwidthTest or "
                           "dsec-calib run");
            rc = SIM_EPARSE;
        }
    }
    if (rc == 0 && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        sim_diag_error(d, path, 0, 0, "database: %s", sqlite3_errmsg(db));
        rc = SIM_EDB;
    } else if (rc == 0) {
        switch (f) {
        case F_NCCL:
            rc = parse_nccl(&L);
            break;
        case F_PERFTEST:
            rc = parse_perftest(&L);
            break;
        case F_NVB:
            rc = parse_nvbandwidth(&L);
            break;
        case F_BWT:
            rc = parse_bandwidthtest(&L);
            break;
        default:
            rc = parse_dsec(&L);
            break;
        }
        if (rc == 0 &&
            sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            sim_diag_error(d, path, 0, 0, "database: %s", sqlite3_errmsg(db));
            rc = SIM_EDB;
        }
        if (rc != 0) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            L.npoints = 0;
        }
    }
    *npoints = L.npoints;
    for (int i = 0; i < L.n; i++)
        free(L.lines[i]);
    free(L.lines);
    return rc;
}
