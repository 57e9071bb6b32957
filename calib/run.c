/* dsec-calib run: parses the options, checks that a device and the
 * libraries are there (exit 3 with the reason otherwise), runs the chosen
 * microbenchmarks, writes their raw logs under --out and imports them into
 * --db so that `dsec-calib fit` works the same on measured and imported
 * data. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "calib/cal.h"
#include "calib/run.h"
#include "models/gpu/gpu.h"
#ifdef HAVE_CUDA
#include "calib/cuda/bench.h"
#ifdef HAVE_NCCL
#include "calib/nccl/coll.h"
#endif
#endif
#ifdef HAVE_MPI
#include "calib/mpi/mpi.h"
#ifdef HAVE_VERBS
#include "calib/verbs/rdma.h"
#endif
#endif

enum {
    P_GEMM = 1,
    P_HBM = 2,
    P_PCIE = 4,
    P_P2P = 8,
    P_NCCL = 16,
    P_VERBS = 32,
};

static const struct {
    const char *name;
    int bit;
} parts[] = {{"gemm", P_GEMM}, {"hbm", P_HBM},   {"pcie", P_PCIE},
             {"p2p", P_P2P},   {"nccl", P_NCCL}, {"verbs", P_VERBS}};

static const char run_help[] =
    "usage: dsec-calib run [--only LIST] [--out DIR] [--db FILE] [--quick]\n"
    "                      [--gpu KIND] [--device N] [--reps N]\n"
    "                      [--rdma-device DEV] [--mpi]\n"
    "Run the microbenchmarks on this node, write their raw logs under DIR\n"
    "and import them into the database (then run dsec-calib fit).\n"
    "  --only LIST        comma-separated parts (default all that apply):\n"
    "                     gemm   cuBLASLt GEMM sweep, bf16, and fp8 on sm_89+\n"
    "                     hbm    device-to-device copy and a streaming read\n"
    "                     pcie   pinned host<->device copies, both ways\n"
    "                     p2p    GPU->GPU peer copies (needs 2+ GPUs)\n"
    "                     nccl   NCCL collectives over all local GPUs, or one\n"
    "                            rank per GPU under mpirun\n"
    "                     verbs  ibverbs RDMA write bw and latency between\n"
    "                            two MPI ranks (mpirun -np 2)\n"
    "  --out DIR          raw logs (default calib-out; created)\n"
    "  --db FILE          database the logs are imported into (default\n"
    "                     DIR/calib.db)\n"
    "  --quick            smaller sweeps and "
    "fewer repetitions\n"
    "  --gpu KIND         label for the points (default: from the device\n"
    "                     name, e.g. 'NVIDIA H200' -> h200)\n"
    "  --device N         CUDA device of this process (default 0; under\n"
    "                     MPI the local rank)\n"
    "  --reps N           timed repetitions per point (default 30, quick "
    "10)\n"
    "  --rdma-device DEV  RDMA device for verbs (default mlx5_0)\n"
    "  --mpi              use MPI (automatic under mpirun)\n"
    "  -h, --help         this text\n"
    "exit status: 0 ok, 1 a benchmark failed, 2 usage, 3 no device or the\n"
    "part's library (CUDA, NCCL, ibverbs, MPI) not compiled in\n";

void cal_stats(double *v, int n, double *median, double *min, double *max)
{
    /* Insertion sort: n is a few dozen repetitions. */
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;

        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    *min = v[0];
    *max = v[n - 1];
    *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int usage_error(const char *why)
{
    fprintf(stderr, "dsec-calib run: %s\n(try 'dsec-calib run --help')\n", why);
    return CAL_EXIT_USAGE;
}

static int parse_only(const char *s, int *mask)
{
    char *c = xstrdup(s), *save = NULL;

    *mask = 0;
    for (char *t = strtok_r(c, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;

        for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
            if (strcmp(parts[i].name, t) == 0) {
                *mask |= parts[i].bit;
                found = 1;
            }
        if (!found) {
            fprintf(stderr,
                    "dsec-calib run: --only: unknown part '%s'; valid: "
                    "gemm, hbm, pcie, p2p, nccl, verbs\n",
                    t);
            free(c);
            return -1;
        }
    }
    free(c);
    return *mask ? 0 : -1;
}

/* Exit 3 with the reason: a part cannot run in this build or here. */
static int no_device(const char *what)
{
    fprintf(stderr, "dsec-calib run: %s\n", what);
    return CAL_EXIT_DEVICE;
}

#ifdef HAVE_CUDA
/* "NVIDIA H200" -> "h200" when the catalog has it. */
static void gpu_kind(const char *devname, char *out, size_t len)
{
    const char *kinds[] = {"h200", "h100", "h800",   "b200",
                           "a100", "l40s", "mi300x", NULL};
    char low[256];
    size_t i;

    for (i = 0; devname[i] && i + 1 < sizeof(low); i++)
        low[i] =
            (char)((devname[i] >= 'A' && devname[i] <= 'Z') ? devname[i] + 32
                                                            : devname[i]);
    low[i] = '\0';
    out[0] = '\0';
    for (int k = 0; kinds[k]; k++)
        if (strstr(low, kinds[k]) && gpu_find(kinds[k])) {
            snprintf(out, len, "%s", kinds[k]);
            return;
        }
}
#endif

struct runctx {
    const char *out_dir, *db_path, *gpu;
    struct cal_bench b;
    sqlite3 *db;
    int failed;
};

#ifdef HAVE_CUDA
/* Opens DIR/NAME for a raw log. */
static FILE *open_log(struct runctx *r, const char *name, char **path)
{
    FILE *fp;

    *path = xasprintf("%s/%s", r->out_dir, name);
    fp = fopen(*path, "w");
    if (!fp)
        fprintf(stderr, "%s: error: cannot write: %s\n", *path,
                strerror(errno));
    return fp;
}

#endif

#if defined(HAVE_CUDA) || (defined(HAVE_MPI) && defined(HAVE_VERBS))
/* Imports a finished raw log into the database. */
static void import_log(struct runctx *r, const char *path)
{
    struct sim_diag d;
    int n = 0;

    if (!r->db)
        return;
    sim_diag_init(&d);
    if (cal_import_file(r->db, path, r->gpu, r->b.host, &n, NULL, &d) != 0) {
        sim_diag_print(&d, stderr);
        r->failed = 1;
    } else {
        printf("%s: %d points imported\n", path, n);
    }
    sim_diag_fini(&d);
}
#endif

#ifdef HAVE_CUDA
typedef int (*cuda_bench_fn)(FILE *log, const struct cal_bench *b, char *why,
                             size_t whylen);

static void run_cuda(struct runctx *r, const char *name, cuda_bench_fn f)
{
    char why[256] = "", *path = NULL;
    FILE *fp = open_log(r, name, &path);

    if (!fp) {
        r->failed = 1;
        free(path);
        return;
    }
    printf("running %s ...\n", name);
    fflush(stdout);
    if (f(fp, &r->b, why, sizeof(why)) != 0) {
        fprintf(stderr, "dsec-calib run: %s: %s\n", name, why);
        r->failed = 1;
        fclose(fp);
    } else if (fclose(fp) != 0) {
        r->failed = 1;
    } else {
        import_log(r, path);
    }
    free(path);
}
#endif

int cal_run_main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"only", required_argument, NULL, 'o'},
        {"out", required_argument, NULL, 'O'},
        {"db", required_argument, NULL, 'd'},
        {"quick", no_argument, NULL, 'q'},
        {"gpu", required_argument, NULL, 'g'},
        {"device", required_argument, NULL, 'D'},
        {"reps", required_argument, NULL, 'r'},
        {"rdma-device", required_argument, NULL, 'R'},
        {"mpi", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    struct runctx r;
    int c, mask = P_GEMM | P_HBM | P_PCIE | P_P2P | P_NCCL | P_VERBS;
    int explicit_only = 0, use_mpi = 0, reps = 0;
    const char *rdma_dev = "mlx5_0";
    char *db_default = NULL, datebuf[32], host[256] = "";

    memset(&r, 0, sizeof(r));
    r.out_dir = "calib-out";
    r.b.device = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        char *end;
        long v;

        switch (c) {
        case 'o':
            if (parse_only(optarg, &mask) != 0)
                return usage_error("--only: expected a comma-separated "
                                   "list of gemm, hbm, pcie, p2p, nccl, "
                                   "verbs");
            explicit_only = 1;
            break;
        case 'O':
            r.out_dir = optarg;
            break;
        case 'd':
            r.db_path = optarg;
            break;
        case 'q':
            r.b.quick = 1;
            break;
        case 'g':
            if (!gpu_find(optarg))
                return usage_error("--gpu: unknown GPU kind (dsec help "
                                   "gpus lists them)");
            r.gpu = optarg;
            break;
        case 'D':
        case 'r':
            errno = 0;
            v = strtol(optarg, &end, 10);
            if (*end || errno || v < (c == 'D' ? 0 : 1) || v > 100000)
                return usage_error(c == 'D'
                                       ? "--device: expected an integer >= 0"
                                       : "--reps: expected an integer in "
                                         "[1, 100000]");
            if (c == 'D')
                r.b.device = (int)v;
            else
                reps = (int)v;
            break;
        case 'R':
            rdma_dev = optarg;
            break;
        case 'm':
            use_mpi = 1;
            break;
        case 'h':
            fputs(run_help, stdout);
            return 0;
        default:
            return usage_error("unknown option");
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument");
    r.b.reps = reps ? reps : r.b.quick ? CAL_RUN_REPS_QUICK : CAL_RUN_REPS;
    /* Under mpirun the launcher says so in the environment. */
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
        getenv("PMIX_RANK"))
        use_mpi = 1;
    (void)rdma_dev;
    (void)explicit_only;

#ifndef HAVE_CUDA
    if (mask & ~P_VERBS)
        return no_device("this dsec-calib was built without CUDA "
                         "(configure found no cuda_runtime.h and libcudart; "
                         "install the CUDA Toolkit or pass --with-cuda=DIR): "
                         "gemm, hbm, pcie, p2p and nccl cannot run");
#endif
#if !defined(HAVE_VERBS) || !defined(HAVE_MPI)
    if (mask == P_VERBS)
        return no_device("this dsec-calib was built without ibverbs and MPI "
                         "(configure --with-verbs --with-mpi): verbs cannot "
                         "run");
    mask &= ~P_VERBS;
#endif
#ifndef HAVE_NCCL
    if (mask == P_NCCL)
        return no_device("this dsec-calib was built without NCCL "
                         "(configure --with-nccl): nccl cannot run");
    mask &= ~P_NCCL;
#endif

#ifdef HAVE_MPI
    if (use_mpi) {
        if (cal_mpi_init(&r.b) != 0)
            return no_device("MPI_Init failed");
    }
#else
    if (use_mpi)
        return no_device("this dsec-calib was built without MPI "
                         "(configure --with-mpi): cannot run under mpirun");
#endif
    if (r.b.size == 0) {
        r.b.rank = 0;
        r.b.size = 1;
    }

#ifdef HAVE_CUDA
    {
        char why[256] = "", devname[256] = "", kind[32] = "";
        int ngpus = 0;

#ifdef HAVE_MPI
        if (use_mpi && r.b.device == 0)
            r.b.device = cal_mpi_local_rank();
#endif
        if (cal_cuda_probe(r.b.device, devname, sizeof(devname), &ngpus, why,
                           sizeof(why)) != 0) {
#ifdef HAVE_MPI
            if (use_mpi)
                cal_mpi_fini();
#endif
            return no_device(why);
        }
        gpu_kind(devname, kind, sizeof(kind));
        if (!r.gpu && kind[0])
            r.gpu = gpu_find(kind)->name;
        printf("device %d of %d: %s (dsec kind %s)\n", r.b.device, ngpus,
               devname, r.gpu ? r.gpu : "unknown: pass --gpu");
        if (ngpus < 2 && r.b.size < 2) {
            if (explicit_only && mask == P_P2P)
                return no_device("p2p needs 2 or more GPUs; 1 found");
            if (explicit_only && mask == P_NCCL)
                return no_device("nccl needs 2 or more GPUs (or ranks "
                                 "under mpirun); 1 found");
            mask &= ~(P_P2P | P_NCCL);
        }
        if (r.b.size > 1)
            mask &= P_NCCL | P_VERBS; /* the per-GPU parts run alone */
    }
#endif
    {
        /* The log header's date: this is a measurement, so the clock is
         * the right source; fit copies it into the profile. */
        time_t now = time(NULL);
        struct tm tm;

        gmtime_r(&now, &tm);
        strftime(datebuf, sizeof(datebuf), "%Y-%m-%d", &tm);
        r.b.date = datebuf;
        if (gethostname(host, sizeof(host) - 1) != 0)
            snprintf(host, sizeof(host), "unknown");
        r.b.host = host;
    }
    if (mkdir(r.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: error: cannot create: %s\n", r.out_dir,
                strerror(errno));
        return CAL_EXIT_INPUT;
    }
    if (r.b.rank == 0) {
        struct sim_diag d;

        if (!r.db_path)
            r.db_path = db_default = xasprintf("%s/calib.db", r.out_dir);
        sim_diag_init(&d);
        if (cal_db_open(r.db_path, &r.db, &d) != 0) {
            sim_diag_print(&d, stderr);
            r.failed = 1;
        }
        sim_diag_fini(&d);
    }
#ifdef HAVE_CUDA
    if (!r.failed && (mask & P_GEMM))
        run_cuda(&r, "gemm.log", cal_cuda_gemm);
    if (!r.failed && (mask & P_HBM))
        run_cuda(&r, "hbm.log", cal_cuda_hbm);
    if (!r.failed && (mask & P_PCIE))
        run_cuda(&r, "pcie.log", cal_cuda_pcie);
    if (!r.failed && (mask & P_P2P))
        run_cuda(&r, "p2p.log", cal_cuda_p2p);
#ifdef HAVE_NCCL
    if (!r.failed && (mask & P_NCCL)) {
        char why[256] = "";
        char **files = NULL;
        int nfiles = 0;

        printf("running nccl ...\n");
        fflush(stdout);
        if (cal_nccl_run(r.out_dir, &r.b, &files, &nfiles, why, sizeof(why)) !=
            0) {
            fprintf(stderr, "dsec-calib run: nccl: %s\n", why);
            r.failed = 1;
        }
        for (int i = 0; i < nfiles; i++) {
            if (r.b.rank == 0 && !r.failed)
                import_log(&r, files[i]);
            free(files[i]);
        }
        free(files);
    }
#endif
#endif
#if defined(HAVE_MPI) && defined(HAVE_VERBS)
    if (!r.failed && (mask & P_VERBS)) {
        char *bw = NULL, *lat = NULL;

        if (r.b.size != 2) {
            if (explicit_only)
                fprintf(stderr, "dsec-calib run: verbs needs exactly 2 MPI "
                                "ranks (mpirun -np 2 ...)\n");
            r.failed = explicit_only;
        } else {
            char why[256] = "";

            bw = xasprintf("%s/ib_write_bw.log", r.out_dir);
            lat = xasprintf("%s/ib_write_lat.log", r.out_dir);
            printf("running verbs on %s ...\n", rdma_dev);
            if (cal_verbs_run(bw, lat, rdma_dev, &r.b, why, sizeof(why)) != 0) {
                fprintf(stderr, "dsec-calib run: verbs: %s\n", why);
                r.failed = 1;
            } else if (r.b.rank == 0) {
                import_log(&r, bw);
                import_log(&r, lat);
            }
            free(bw);
            free(lat);
        }
    }
#endif
    if (r.db)
        sqlite3_close(r.db);
    if (r.b.rank == 0)
        printf("%s: raw logs in %s, points in %s; next: dsec-calib fit --db "
               "%s%s%s --out profile.yaml\n",
               r.failed ? "failed" : "done", r.out_dir,
               r.db_path ? r.db_path : "-", r.db_path ? r.db_path : "-",
               r.gpu ? " --gpu " : "", r.gpu ? r.gpu : "");
    free(db_default);
#ifdef HAVE_MPI
    if (use_mpi)
        cal_mpi_fini();
#endif
    return r.failed ? CAL_EXIT_INPUT : 0;
}
