/* dsec sweep SWEEP.yaml [-j N] [--db FILE] [--json] [--quiet] [--list]
 * [--no-mpi]: expand a sweep file into points, run the points the database
 * does not hold yet on N worker threads (and, started by mpirun or srun in
 * a build with MPI, on every rank), record each with its run, then print
 * every point of the sweep with its main metrics (docs/sweep.md). Exit
 * status 130 after an interrupt (128 + SIGINT, as a shell reports it).
 * Parse (parse_args), run (join_mpi, load, simulate), print (list_points,
 * print_report). */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config.h"
#include "reports/db.h"
#include "reports/fmt.h"
#include "base/errors.h"
#include "base/xalloc.h"
#include "sweep/exec.h"
#include "scenarios/load.h"
#include "sweep/spec.h"
#ifdef HAVE_MPI
#include "sweep/mpi.h"
#endif

#define CLI_EXIT_INTERRUPTED 130

/* The metrics of the table, as named in the summary table of results. */
static const char *const metrics[] = {
    "slo_attainment", "ttft_ms.p99", "tpot_ms.p99", "gpu_hours", "cost_usd",
};
#define NMETRICS (int)(sizeof(metrics) / sizeof(metrics[0]))
static const char *const metric_heads[NMETRICS] = {
    "SLO %", "TTFT p99 ms", "TPOT p99 ms", "GPU-h", "cost $",
};
static const char *const metric_json[NMETRICS] = {
    "slo_attainment", "ttft_ms_p99", "tpot_ms_p99", "gpu_hours", "cost_usd",
};

/* SIGINTs so far; the only state a signal handler may touch. */
static volatile sig_atomic_t interrupts;

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupts < 2)
        interrupts++;
}

/* Was this process started by an MPI launcher (mpirun, mpiexec, srun with
 * PMI or PMIx)? Each launcher leaves its variables in the environment; the
 * simulator itself never reads the environment. */
static int under_mpi_launcher(void)
{
    static const char *const vars[] = {
        "OMPI_COMM_WORLD_SIZE", /* Open MPI's mpirun */
        "PMIX_RANK",            /* PMIx: Open MPI, srun --mpi=pmix */
        "PMI_SIZE",             /* PMI-1/2: MPICH's hydra, srun --mpi=pmi2 */
        "MPI_LOCALNRANKS",      /* MPICH's hydra */
    };

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i]) != NULL)
            return 1;
    return 0;
}

#ifndef HAVE_MPI
/* The size of the job the launcher says it started, or 0 if it says none. */
static long launcher_size(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");

    if (v == NULL)
        v = getenv("PMI_SIZE");
    if (v == NULL)
        v = getenv("SLURM_NTASKS");
    return v ? strtol(v, NULL, 10) : 0;
}
#endif

struct row {
    const struct swp_point *p;
    int ncolumns;
    size_t point;
    char *status;
    char *message;
    int64_t run_id;
    double v[NMETRICS];
};

struct table {
    const struct swp_spec *s;
    struct row *rows;
    size_t n;
    size_t ok, infeasible; /* recorded in the database, by status */
};

static int collect(void *ctx, const char *key, int64_t seq, const char *status,
                   const char *message, int64_t run_id, const double *values)
{
    struct table *t = ctx;
    long i = swp_spec_find(t->s, key);
    struct row *r;

    (void)seq;
    if (i < 0)
        return 0;
    r = &t->rows[t->n++];
    r->point = (size_t)i;
    r->p = &t->s->points[i];
    r->ncolumns = t->s->ncolumns;
    r->status = xstrdup(status);
    r->message = message ? xstrdup(message) : NULL;
    r->run_id = run_id;
    memcpy(r->v, values, sizeof(r->v));
    if (strcmp(status, RPT_SWEEP_OK) == 0)
        t->ok++;
    else if (strcmp(status, RPT_SWEEP_INFEASIBLE) == 0)
        t->infeasible++;
    return 0;
}

/* A canonical value that reads wholly as a finite number. */
static int as_number(const char *s, double *out)
{
    char *end;

    if (s == NULL || *s == '\0')
        return 0;
    *out = strtod(s, &end);
    return *end == '\0' && isfinite(*out);
}

/* Order of the table: by each column's value, numbers by value, then by
 * position in the grid. */
static int cmp_rows(const void *a, const void *b)
{
    const struct swp_point *p = ((const struct row *)a)->p;
    const struct swp_point *q = ((const struct row *)b)->p;
    int ncolumns = ((const struct row *)a)->ncolumns;

    for (int c = 0; c < ncolumns; c++) {
        const char *x = p->values[c], *y = q->values[c];
        double dx, dy;

        if (x == NULL || y == NULL) {
            if (x != y)
                return x == NULL ? -1 : 1;
            continue;
        }
        if (as_number(x, &dx) && as_number(y, &dy)) {
            if (dx != dy)
                return dx < dy ? -1 : 1;
            continue;
        }
        if (strcmp(x, y) != 0)
            return strcmp(x, y);
    }
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* The short form of a key path: its last two segments
 * ("arrival.rate_per_s" for workload.synthetic.arrival.rate_per_s). */
static const char *short_path(const char *path)
{
    const char *last = strrchr(path, '.'), *prev;

    if (last == NULL)
        return path;
    for (prev = last; prev > path && prev[-1] != '.'; prev--)
        ;
    return prev;
}

/* The header of column c: the short form of its key path, or the whole
 * path when another column's short form is the same. */
static const char *column_head(const struct swp_spec *s, int c)
{
    const char *mine = short_path(s->columns[c]);

    for (int k = 0; k < s->ncolumns; k++)
        if (k != c && strcmp(short_path(s->columns[k]), mine) == 0)
            return s->columns[c];
    return mine;
}

/* A metric as the table shows it; "-" for a point without a run. */
static void fmt_metric(char *buf, size_t len, const struct row *row, int m)
{
    double v = row->v[m];

    if (row->run_id <= 0)
        snprintf(buf, len, "-");
    else if (isnan(v))
        snprintf(buf, len, "n/a");
    else if (m == 0)
        snprintf(buf, len, "%.2f", 100 * v);
    else if (m == 3)
        snprintf(buf, len, "%.3f", v);
    else
        snprintf(buf, len, "%.2f", v);
}

static void print_table(const struct table *t)
{
    const struct swp_spec *s = t->s;
    int ncols = s->ncolumns + NMETRICS + 1;
    size_t *w = xcalloc((size_t)ncols, sizeof(*w));
    char buf[64];
    int any_bad = 0;

    for (size_t r = 0; r < t->n; r++)
        any_bad |= strcmp(t->rows[r].status, RPT_SWEEP_OK) != 0;
    for (int c = 0; c < s->ncolumns; c++)
        w[c] = strlen(column_head(s, c));
    for (int m = 0; m < NMETRICS; m++)
        w[s->ncolumns + m] = strlen(metric_heads[m]);
    w[ncols - 1] = any_bad ? strlen("status") : 0;
    for (size_t r = 0; r < t->n; r++) {
        const struct row *row = &t->rows[r];
        const struct swp_point *p = &s->points[row->point];
        for (int c = 0; c < s->ncolumns; c++) {
            size_t l = p->values[c] ? strlen(p->values[c]) : 1;
            if (l > w[c])
                w[c] = l;
        }
        for (int m = 0; m < NMETRICS; m++) {
            fmt_metric(buf, sizeof(buf), row, m);
            if (strlen(buf) > w[s->ncolumns + m])
                w[s->ncolumns + m] = strlen(buf);
        }
        if (any_bad && strlen(row->status) > w[ncols - 1])
            w[ncols - 1] = strlen(row->status);
    }
    for (int c = 0; c < s->ncolumns; c++)
        printf("%s%*s", c ? "  " : "", (int)w[c], column_head(s, c));
    for (int m = 0; m < NMETRICS; m++)
        printf("%s%*s", s->ncolumns + m > 0 ? "  " : "",
               (int)w[s->ncolumns + m], metric_heads[m]);
    if (any_bad)
        printf("  %s", "status");
    printf("\n");
    for (size_t r = 0; r < t->n; r++) {
        const struct row *row = &t->rows[r];
        const struct swp_point *p = &s->points[row->point];
        for (int c = 0; c < s->ncolumns; c++)
            printf("%s%*s", c ? "  " : "", (int)w[c],
                   p->values[c] ? p->values[c] : "-");
        for (int m = 0; m < NMETRICS; m++) {
            fmt_metric(buf, sizeof(buf), row, m);
            printf("%s%*s", s->ncolumns + m > 0 ? "  " : "",
                   (int)w[s->ncolumns + m], buf);
        }
        if (any_bad)
            printf("  %s", row->status);
        printf("\n");
    }
    free(w);
}

/* An axis value: a JSON number when its text is one, else a string. */
static struct json_object *jvalue(const char *s)
{
    double v;
    const char *p = s;

    if (s == NULL)
        return NULL;
    if (*p == '-')
        p++;
    if (*p >= '0' && *p <= '9' &&
        !(p[0] == '0' && p[1] >= '0' && p[1] <= '9') &&
        strspn(p, "0123456789.eE+-") == strlen(p) && as_number(s, &v))
        return json_object_new_double_s(v, s);
    return json_object_new_string(s);
}

static void print_json(const struct table *t, const char *db_path,
                       const struct swp_exec_stats *st)
{
    const struct swp_spec *s = t->s;
    struct json_object *o = json_object_new_object();
    struct json_object *cols = json_object_new_array();
    struct json_object *rows = json_object_new_array();

    json_object_object_add(o, "sweep", json_object_new_string(s->name));
    json_object_object_add(o, "sweep_id", json_object_new_int64(st->sweep_id));
    json_object_object_add(o, "database", json_object_new_string(db_path));
    json_object_object_add(o, "points",
                           json_object_new_int64((int64_t)st->points));
    /* What this invocation did... */
    json_object_object_add(o, "ran", json_object_new_int64((int64_t)st->ran));
    json_object_object_add(o, "infeasible_now",
                           json_object_new_int64((int64_t)st->infeasible));
    json_object_object_add(o, "failed",
                           json_object_new_int64((int64_t)st->failed));
    json_object_object_add(o, "recorded_before",
                           json_object_new_int64((int64_t)st->before));
    json_object_object_add(o, "recorded_elsewhere",
                           json_object_new_int64((int64_t)st->elsewhere));
    /* ...and what the database holds for the sweep now, counted from the
     * rows read back (sweep_points), whichever invocation wrote them. */
    json_object_object_add(o, "recorded", json_object_new_int64((int64_t)t->n));
    json_object_object_add(o, "ok", json_object_new_int64((int64_t)t->ok));
    json_object_object_add(o, "infeasible",
                           json_object_new_int64((int64_t)t->infeasible));
    json_object_object_add(o, "remaining",
                           json_object_new_int64((int64_t)st->remaining));
    for (int c = 0; c < s->ncolumns; c++)
        json_object_array_add(cols, json_object_new_string(s->columns[c]));
    json_object_object_add(o, "columns", cols);
    for (size_t r = 0; r < t->n; r++) {
        const struct row *row = &t->rows[r];
        const struct swp_point *p = &s->points[row->point];
        struct json_object *jr = json_object_new_object();
        struct json_object *vals = json_object_new_object();

        json_object_object_add(jr, "key", json_object_new_string(p->key));
        for (int c = 0; c < s->ncolumns; c++)
            if (p->values[c] != NULL)
                json_object_object_add(vals, s->columns[c],
                                       jvalue(p->values[c]));
        json_object_object_add(jr, "values", vals);
        json_object_object_add(jr, "status",
                               json_object_new_string(row->status));
        json_object_object_add(
            jr, "run_id",
            row->run_id > 0 ? json_object_new_int64(row->run_id) : NULL);
        for (int m = 0; m < NMETRICS; m++)
            json_object_object_add(
                jr, metric_json[m],
                rpt_json_double(row->v[m], RPT_JSON_SHORTEST));
        json_object_object_add(
            jr, "message",
            row->message ? json_object_new_string(row->message) : NULL);
        json_object_array_add(rows, jr);
    }
    json_object_object_add(o, "rows", rows);
    rpt_json_print(stdout, o);
    json_object_put(o);
}

/* Reads every recorded point of the sweep back and prints them. */
static int print_report(const struct swp_spec *s, struct rpt_db *db,
                        const char *db_path, const struct swp_exec_stats *st,
                        int json)
{
    struct table t = {s, NULL, 0, 0, 0};
    struct sim_diag d;
    int rc;

    t.rows = xcalloc(s->npoints + 1, sizeof(*t.rows));
    sim_diag_init(&d);
    rc = rpt_db_sweep_points(db, st->sweep_id, metrics, NMETRICS, collect, &t,
                             &d);
    if (rc != 0) {
        sim_diag_print(&d, stderr);
    } else {
        qsort(t.rows, t.n, sizeof(*t.rows), cmp_rows);
        if (json) {
            print_json(&t, db_path, st);
        } else {
            printf("sweep %s: %zu points, %zu run now, %zu recorded before",
                   s->name, st->points, st->ran, st->before);
            if (st->elsewhere > 0)
                printf(", %zu recorded meanwhile by another process",
                       st->elsewhere);
            /* All the sweep's infeasible points, not only this call's:
             * the table below shows them all. */
            if (t.infeasible > 0)
                printf(", %zu infeasible", t.infeasible);
            if (st->failed > 0)
                printf(", %zu failed", st->failed);
            printf("; %s, sweep %lld\n\n", db_path, (long long)st->sweep_id);
            print_table(&t);
        }
    }
    for (size_t i = 0; i < t.n; i++) {
        free(t.rows[i].status);
        free(t.rows[i].message);
    }
    free(t.rows);
    sim_diag_fini(&d);
    return rc;
}

static void print_help(void)
{
    printf("usage: dsec sweep %s\n\n%s\n", cli_cmd_sweep.usage,
           cli_cmd_sweep.summary);
    printf("\nSWEEP.yaml names a base scenario and the axes, points and "
           "seeds that vary it\n(docs/sweep.md). Points the database holds "
           "already are not run again.\n\noptions:\n"
           "  -j, --jobs N     worker threads (default: the online CPUs, or "
           "1 per rank\n"
           "                   under MPI; at most 4096)\n"
           "  -d, --db FILE    results database (default dsec.db)\n"
           "  --json           print one JSON object instead of the table, "
           "and no progress\n"
           "  -q, --quiet      print no progress, no log and no table (with "
           "--json the\n"
           "                   object is still printed)\n"
           "  --list           print the points (position, key, infeasible) "
           "without running\n"
           "                   anything or opening the database\n"
           "  --no-mpi         ignore the variables an MPI launcher sets; "
           "run as one process\n"
           "\nExit status: 0; 1 for a sweep, scenario or database error or "
           "failed points;\n2 for a usage error; 3 for an internal error; "
           "130 after an interrupt.\n"
           "\nSweep file keys (key paths are the scenario's, 'dsec help "
           "scenario'):\n");
    scn_help_print_rows(stdout, swp_spec_rows);
}

static void list_points(const struct swp_spec *s)
{
    for (size_t i = 0; i < s->npoints; i++)
        printf("%zu\t%s%s\n", s->points[i].seq, s->points[i].key,
               s->points[i].infeasible ? "\tinfeasible" : "");
}

/* ---- parse ---- */

/* The options. */
struct opts {
    const char *file, *db_path;
    int json, quiet, list, no_mpi;
    long jobs; /* -1: the default */
};

/* Returns 0, -1 after --help, or a usage error's exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'J'},
        {"quiet", no_argument, NULL, 'q'},
        {"list", no_argument, NULL, 'l'},
        {"no-mpi", no_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    uint64_t v;

    o->db_path = "dsec.db";
    o->jobs = -1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "j:d:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'j':
            if (cli_parse_u64(optarg, &v) != 0 || v < 1 || v > 4096)
                return cli_usage_error(&cli_cmd_sweep,
                                       "-j: expected a number of threads in "
                                       "[1, 4096]");
            o->jobs = (long)v;
            break;
        case 'd':
            o->db_path = optarg;
            break;
        case 'J':
            o->json = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'l':
            o->list = 1;
            break;
        case 'M':
            o->no_mpi = 1;
            break;
        case 'h':
            print_help();
            return -1;
        default:
            return cli_usage_error(&cli_cmd_sweep, NULL);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_sweep, "expected one sweep file");
    o->file = argv[optind];
    return 0;
}

/* ---- run ---- */

/* What the command holds while it runs; run_fini() releases it. */
struct run {
    struct swp_mpi *mpi; /* the MPI job, or NULL for one process */
    struct swp_spec *spec;
    struct rpt_db *db;
    struct swp_exec_stats st;
    int served; /* swp_exec() ran: the other ranks were answered */
    struct sigaction old_sa;
};

/* Joins the MPI job when an MPI launcher started this process (unless
 * --no-mpi) and sets the default number of threads. Returns an exit
 * status. */
static int join_mpi(struct opts *o, struct run *x)
{
    struct sim_diag diag;

    sim_diag_init(&diag);
    if (!o->no_mpi && under_mpi_launcher()) {
#ifdef HAVE_MPI
        x->mpi = swp_mpi_init(NULL, NULL, &diag);
        if (x->mpi == NULL) {
            sim_diag_print(&diag, stderr);
            sim_diag_fini(&diag);
            return CLI_EXIT_INTERNAL;
        }
        if (swp_mpi_size(x->mpi) == 1) {
            swp_mpi_finalize(x->mpi);
            x->mpi = NULL;
        }
#else
        if (launcher_size() > 1) {
            fprintf(stderr,
                    "dsec sweep: started by an MPI launcher (%ld processes) "
                    "but this dsec was built without MPI; rebuild with "
                    "--with-mpi, or run one process with -j N\n",
                    launcher_size());
            sim_diag_fini(&diag);
            return CLI_EXIT_USAGE;
        }
#endif
    }
    sim_diag_fini(&diag);
    if (o->jobs < 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        /* Under MPI a rank per core is the usual layout. */
        o->jobs = x->mpi != NULL || n < 1 ? 1 : n;
    }
    return CLI_EXIT_OK;
}

/* Counts SIGINTs from here on (interrupts); run_fini() restores the
 * handler before. */
static void catch_sigint(struct run *x)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &x->old_sa);
}

#ifdef HAVE_MPI
/* A rank other than 0: simulates the points rank 0 hands out until it says
 * the sweep is over. Returns an exit status. */
static int serve_rank(const struct opts *o, struct run *x)
{
    int rc = swp_mpi_worker(x->mpi, (int)o->jobs, &interrupts);

    swp_mpi_finalize(x->mpi);
    sigaction(SIGINT, &x->old_sa, NULL);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}
#endif

/* Loads the sweep file. Returns an exit status. */
static int load(const struct opts *o, struct run *x)
{
    struct sim_diag diag;

    sim_diag_init(&diag);
    x->spec = swp_spec_load(o->file, &diag);
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);
    return x->spec == NULL ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}

/* Opens the database and runs the points it does not hold yet. After an
 * interrupt that abandoned running points the process ends here. Returns
 * an exit status. */
static int simulate(const struct opts *o, struct run *x)
{
    struct swp_exec_opts eo = {0};
    struct sim_diag diag;
    int rc, status;

    sim_diag_init(&diag);
    x->db = rpt_db_open(o->db_path, &diag);
    if (x->db == NULL) {
        sim_diag_print(&diag, stderr);
        sim_diag_fini(&diag);
        return CLI_EXIT_INPUT;
    }
    eo.jobs = (int)o->jobs;
    eo.log = o->quiet ? NULL : stderr;
    eo.progress = o->quiet || o->json     ? SWP_PROGRESS_NONE
                  : isatty(STDERR_FILENO) ? SWP_PROGRESS_BAR
                                          : SWP_PROGRESS_LINES;
    eo.interrupts = &interrupts;
    eo.program_version = PACKAGE_VERSION;
    eo.mpi = x->mpi;
    if (x->mpi != NULL && x->spec->uncertainty > 0) {
        sim_diag_fini(&diag);
        fprintf(stderr,
                "%s: error: uncertainty: the draws are not run on "
                "other MPI ranks yet; run the sweep without MPI "
                "(--no-mpi)\n",
                x->spec->file);
        return CLI_EXIT_INPUT;
    }
    rc = swp_exec(x->spec, x->db, &eo, &x->st, &diag);
    x->served = 1;
    sim_diag_print(&diag, stderr);
    sim_diag_fini(&diag);

    if (x->st.interrupted) {
        fprintf(stderr,
                "dsec sweep: interrupted; %zu of %zu points remain%s; run the "
                "same command again to resume\n",
                x->st.remaining, x->st.points,
                x->st.abandoned > 0 ? " (running points abandoned)" : "");
        if (x->st.abandoned > 0) {
            /* Worker threads are still simulating: end the process now.
             * Every point written is whole; nothing else is open. */
            rpt_db_close(x->db);
#ifdef HAVE_MPI
            if (x->mpi != NULL)
                swp_mpi_abort(x->mpi, CLI_EXIT_INTERRUPTED);
#endif
            fflush(stdout);
            _exit(CLI_EXIT_INTERRUPTED);
        }
        return CLI_EXIT_INTERRUPTED;
    }
    if (rc != 0) {
        status = rc == SIM_EDB ? CLI_EXIT_INPUT : CLI_EXIT_INTERNAL;
#ifdef HAVE_MPI
        if (x->mpi != NULL) {
            rpt_db_close(x->db);
            swp_mpi_abort(x->mpi, status);
        }
#endif
        return status;
    }
    return CLI_EXIT_OK;
}

static void run_fini(struct run *x)
{
    rpt_db_close(x->db);
    swp_spec_free(x->spec);
#ifdef HAVE_MPI
    if (x->mpi != NULL) {
        /* Ranks that were never served wait for an answer. */
        if (!x->served)
            swp_mpi_drain(x->mpi);
        swp_mpi_finalize(x->mpi);
    }
#endif
    sigaction(SIGINT, &x->old_sa, NULL);
}

/* ---- print ---- */

/* Prints the sweep's points as the database holds them now (unless --quiet
 * without --json), then says on stderr how many points failed. Returns an
 * exit status. */
static int print(const struct opts *o, const struct run *x)
{
    int status = CLI_EXIT_OK;

    if ((!o->quiet || o->json) &&
        print_report(x->spec, x->db, o->db_path, &x->st, o->json) != 0)
        status = CLI_EXIT_INPUT;
    if (x->st.failed > 0) {
        fprintf(stderr,
                "dsec sweep: %zu points failed and were not recorded; run "
                "the same command again to retry them\n",
                x->st.failed);
        status = CLI_EXIT_INPUT;
    }
    return status;
}

static int exec_sweep(int argc, char **argv)
{
    struct opts o = {0};
    struct run x = {0};
    int status = parse_args(argc, argv, &o);

    if (status != 0)
        return status < 0 ? CLI_EXIT_OK : status;
    status = join_mpi(&o, &x);
    if (status != CLI_EXIT_OK)
        return status;
    catch_sigint(&x);
#ifdef HAVE_MPI
    if (x.mpi != NULL && swp_mpi_rank(x.mpi) > 0)
        return serve_rank(&o, &x);
#endif
    status = load(&o, &x);
    if (status == CLI_EXIT_OK && o.list) {
        list_points(x.spec);
    } else if (status == CLI_EXIT_OK) {
        status = simulate(&o, &x);
        if (status == CLI_EXIT_OK)
            status = print(&o, &x);
    }
    run_fini(&x);
    return status;
}

const struct cli_entry cli_cmd_sweep = {
    .name = "sweep",
    .usage = "SWEEP.yaml [-j N] [--db FILE] [--json] [--quiet] [--list] "
             "[--no-mpi]",
    .summary = "run a grid of scenario variants on all cores or MPI ranks, "
               "resumably",
    .exec = exec_sweep,
};
