/* Check suite for calib/import.c and calib/db.c: every fixture format of
 * tests/data/calib (nccl-tests, perftest, nvbandwidth, bandwidthTest,
 * dsec-calib) parses to the right points, and malformed logs give the
 * exact "file:line: error: ..." and add nothing to the database. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/cal.h"
#include "base/errors.h"

static sqlite3 *db;
static struct sim_diag diag;
static char tmpdir[64];

static void setup(void)
{
    struct sim_diag d;

    sim_diag_init(&d);
    ck_assert_int_eq(cal_db_open(":memory:", &db, &d), 0);
    sim_diag_fini(&d);
    sim_diag_init(&diag);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_calib_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char *cmd = xasprintf("rm -rf '%s'", tmpdir);

    sqlite3_close(db);
    sim_diag_fini(&diag);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
}

static char *fixture(const char *name)
{
    const char *top = getenv("top_srcdir");

    return xasprintf("%s/tests/data/calib/%s", top ? top : ".", name);
}

/* Imports fixture name, expecting success; returns the point count. */
static int import_ok(const char *name, const char *want_tool)
{
    char *path = fixture(name);
    const char *tool = NULL;
    int n = -1, rc = cal_import_file(db, path, "h200", NULL, &n, &tool, &diag);

    if (rc != 0)
        sim_diag_print(&diag, stderr);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(tool, want_tool);
    free(path);
    return n;
}

static double q1(const char *sql)
{
    sqlite3_stmt *s = NULL;
    double v = NAN;

    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    if (sqlite3_step(s) == SQLITE_ROW &&
        sqlite3_column_type(s, 0) != SQLITE_NULL)
        v = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Writes text to tmpdir/name and imports it; returns the error string
 * (caller frees) and checks that nothing was added. */
static char *import_bad(const char *name, const char *text)
{
    char *path = xasprintf("%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "w");
    double before = q1("SELECT count(*) FROM points");
    int n = -1, rc;
    char *msg;

    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    rc = cal_import_file(db, path, NULL, NULL, &n, NULL, &diag);
    ck_assert_int_ne(rc, 0);
    ck_assert_int_eq(n, 0);
    ck_assert_int_ge(diag.n, 1);
    ck_assert(q1("SELECT count(*) FROM points") == before);
    msg = sim_diag_format(&diag, 0);
    /* Strip the directory so the test can compare the rest exactly. */
    {
        char *rest = xstrdup(msg + strlen(tmpdir) + 1);
        free(msg);
        msg = rest;
    }
    free(path);
    return msg;
}

START_TEST(test_cal_import_file_nccl_tests)
{
    /* 28 sizes (8 B .. 1 GiB) x out-of-place and in-place. */
    ck_assert_int_eq(import_ok("all_reduce_perf.log", "nccl-tests"), 56);
    ck_assert(q1("SELECT count(DISTINCT benchmark) FROM points") == 1);
    ck_assert(q1("SELECT ranks FROM points LIMIT 1") == 8);
    ck_assert(q1("SELECT hosts FROM points LIMIT 1") == 1);
    /* The first row as printed: size 8, count 2, 23.88 us out of place. */
    ck_assert(q1("SELECT time_us FROM points WHERE size_bytes = 8 AND op ="
                 " 'out-of-place'") == 23.88);
    ck_assert(q1("SELECT count FROM points WHERE size_bytes = 8 LIMIT 1") == 2);
    ck_assert(q1("SELECT busbw_gbps FROM points WHERE size_bytes ="
                 " 1073741824 AND op = 'in-place'") == 361.42);
    ck_assert(q1("SELECT nwrong FROM points LIMIT 1") == 0);
    ck_assert(q1("SELECT count(*) FROM points WHERE redop = 'sum' AND"
                 " dtype = 'float' AND node = 'h200-node1'") == 56);
    ck_assert_int_eq(import_ok("all_gather_perf.log", "nccl-tests"), 52);
    ck_assert_int_eq(import_ok("reduce_scatter_perf.log", "nccl-tests"), 52);
    ck_assert_int_eq(import_ok("alltoall_perf.log", "nccl-tests"), 48);
    ck_assert_int_eq(import_ok("sendrecv_perf.log", "nccl-tests"), 52);
    ck_assert(q1("SELECT count(DISTINCT benchmark) FROM points") == 5);
}
END_TEST

START_TEST(test_cal_import_file_perftest)
{
    /* perftest -a: 2 .. 2^23 bytes, 23 sizes. */
    ck_assert_int_eq(import_ok("ib_write_bw.log", "perftest"), 23);
    ck_assert_int_eq(import_ok("ib_write_lat.log", "perftest"), 23);
    ck_assert(q1("SELECT count(*) FROM points WHERE benchmark ="
                 " 'ib_write_bw' AND op = 'mlx5_0'") == 23);
    /* Latency: t_typical (the median) is the time. */
    ck_assert(q1("SELECT time_us FROM points WHERE benchmark ="
                 " 'ib_write_lat' AND size_bytes = 2") == 1.02);
    ck_assert(q1("SELECT time_min_us FROM points WHERE benchmark ="
                 " 'ib_write_lat' AND size_bytes = 2") == 0.99);
    /* Bandwidth: BW average MiB/s -> GB/s (x 2^20 / 10^9). */
    double mib = q1("SELECT algbw_gbps FROM points WHERE benchmark ="
                    " 'ib_write_bw' AND size_bytes = 8388608") *
                 1e9 / 1048576.0;
    ck_assert(fabs(mib - 47511.40) < 0.01);
}
END_TEST

START_TEST(test_cal_import_file_nvbandwidth)
{
    /* 1 x 8 host-to-device cells and 8 x 7 device-to-device ones (the
     * diagonal is N/A). */
    ck_assert_int_eq(import_ok("nvbandwidth.log", "nvbandwidth"), 64);
    ck_assert(q1("SELECT count(*) FROM points WHERE benchmark ="
                 " 'device_to_device_memcpy_write_ce'") == 56);
    ck_assert(q1("SELECT count(*) FROM points WHERE src = dst AND benchmark"
                 " = 'device_to_device_memcpy_write_ce'") == 0);
    ck_assert(q1("SELECT algbw_gbps FROM points WHERE benchmark ="
                 " 'host_to_device_memcpy_ce' AND dst = 3") == 55.39);
    /* The default 512 MiB buffer (the text does not print it). */
    ck_assert(q1("SELECT max(size_bytes) FROM points") == 536870912.0);
}
END_TEST

START_TEST(test_cal_import_file_bandwidthtest)
{
    ck_assert_int_eq(import_ok("bandwidthTest-shmoo.log", "bandwidthTest"), 51);
    ck_assert(q1("SELECT count(*) FROM points WHERE op = 'h2d'") == 17);
    ck_assert_int_eq(import_ok("bandwidthTest-csv.log", "bandwidthTest"), 3);
    /* D2D counts 2 x size: the copy of 32 MB at 3786.2 GB/s took
     * 2 * 32e6 / 3786.2e9 s. */
    double t = q1("SELECT time_us FROM points WHERE op = 'd2d' AND"
                  " size_bytes = 32000000");
    ck_assert(fabs(t - 2 * 32e6 / 3786.2e9 * 1e6) < 1e-9);
    t = q1("SELECT time_us FROM points WHERE op = 'h2d' AND size_bytes ="
           " 32000000");
    ck_assert(fabs(t - 32e6 / 55.1e9 * 1e6) < 1e-9);
}
END_TEST

START_TEST(test_cal_import_file_dsec_calib)
{
    ck_assert_int_eq(import_ok("gemm.log", "dsec-calib"), 56);
    ck_assert_int_eq(import_ok("hbm.log", "dsec-calib"), 14);
    ck_assert(q1("SELECT count(*) FROM points WHERE benchmark = 'gemm' AND"
                 " dtype = 'bf16' AND m > 0 AND n > 0 AND k > 0") == 56);
    ck_assert(q1("SELECT count(DISTINCT date) FROM points") == 1);
    ck_assert(q1("SELECT count(*) FROM points WHERE op = 'read'") == 7);
}
END_TEST

START_TEST(test_cal_import_file_malformed)
{
    static const char hdr[] =
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor)\n"
        "#       size         count      type   redop    root     time   "
        "algbw   busbw #wrong     time   algbw   busbw #wrong\n";
    char *m, *text;

    /* A short row. */
    text = xasprintf("%s           8             2     float     sum      -1"
                     "    38.35    0.00    0.00      0\n",
                     hdr);
    m = import_bad("all_reduce_perf.log", text);
    ck_assert_str_eq(m, "all_reduce_perf.log:3: error: nccl-tests row: "
                        "expected 13 columns as in the header of line 2 "
                        "(size count type redop root, then time algbw busbw "
                        "#wrong out-of-place and in-place), got 9");
    free(m);
    free(text);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    /* A good row, then a bad time: the good one is rolled back. */
    text = xasprintf("%s           8             2     float     sum      -1"
                     "    38.35    0.00    0.00      0    37.8    0.00    "
                     "0.00      0\n          16             4     float     "
                     "sum      -1    fast    0.00    0.00      0    37.8    "
                     "0.00    0.00      0\n",
                     hdr);
    m = import_bad("all_reduce_perf.log", text);
    ck_assert_str_eq(m, "all_reduce_perf.log:4: error: nccl-tests row of "
                        "size 16, out-of-place: expected time (us) > 0, "
                        "algbw and busbw (GB/s) >= 0, got 'fast' '0.00' "
                        "'0.00'");
    free(m);
    free(text);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    /* No collective name anywhere. */
    m = import_bad("log.txt", hdr);
    ck_assert_str_eq(m, "log.txt:1: error: nccl-tests log: cannot tell the "
                        "collective; expected a '# Collective test "
                        "concluded: NAME' line or the binary's name "
                        "(all_reduce_perf, ...) in the file name");
    free(m);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    m = import_bad("lat.log",
                   " #bytes #iterations    t_min[usec]    t_max[usec]  "
                   "t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% "
                   "percentile[usec]   99.9% percentile[usec]\n"
                   " 2       1000          0.98           3.1\n");
    ck_assert_str_eq(m, "lat.log:2: error: perftest row: expected 9 numbers "
                        "(#bytes #iterations t_min t_max t_typical t_avg "
                        "t_stdev 99% 99.9%), got '2       1000          "
                        "0.98           3.1'");
    free(m);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    m = import_bad("nvb.log",
                   "nvbandwidth Version: v0.7\nRunning "
                   "host_to_device_memcpy_ce.\nmemcpy CE CPU(row) -> "
                   "GPU(column) bandwidth (GB/s)\n      0      1\n 0  55.1  "
                   "x\n");
    ck_assert_str_eq(m, "nvb.log:5: error: nvbandwidth "
                        "host_to_device_memcpy_ce row 0 column 1: expected "
                        "a number or N/A, got 'x'");
    free(m);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    m = import_bad("bwt.log", " Host to Device Bandwidth, 1 Device(s)\n "
                              "PINNED Memory Transfers\n   Transfer Size "
                              "(Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t-"
                              "\n");
    ck_assert_str_eq(m, "bwt.log:4: error: bandwidthTest h2d row: expected "
                        "'transfer size (bytes) > 0' and 'bandwidth (GB/s) "
                        "> 0', got '32000000\t\t\t-'");
    free(m);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    m = import_bad("g.log", "# dsec-calib gemm 1\n# columns: dtype m n k "
                            "median_us\nbf16 1 4096 4096\n");
    ck_assert_str_eq(m, "g.log:3: error: dsec-calib gemm row: expected 5 "
                        "fields as named on line 2, got 4");
    free(m);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    /* A root or an index out of an int's range (the fuzzers' -4e74 was
     * converted to one). */
    text = xasprintf("%s           8             2     float     sum  "
                     "-4.4e74    38.35    0.00    0.00      0    37.8    "
                     "0.00    0.00      0\n",
                     hdr);
    m = import_bad("all_reduce_perf.log", text);
    ck_assert_str_eq(m, "all_reduce_perf.log:3: error: nccl-tests row: size "
                        "'8' and count '2' must be non-negative numbers and "
                        "root '-4.4e74' a rank, -1 or none");
    free(m);
    free(text);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    m = import_bad("p.log", "# dsec-calib p2p 1\n# columns: src dst bytes "
                            "median_us\n0 1e60 1024 3.5\n");
    ck_assert_str_eq(m, "p.log:3: error: dsec-calib p2p row: column dst: "
                        "expected a non-negative whole number an int can "
                        "hold, got '1e60'");
    free(m);
    sim_diag_fini(&diag);
    sim_diag_init(&diag);
    m = import_bad("x.log", "hello\n");
    ck_assert_str_eq(m, "x.log:1: error: unrecognised log; expected the "
                        "output of nccl-tests, perftest (ib_write_bw, "
                        "ib_write_lat), nvbandwidth, cuda-samples "
                        "bandwidthTest or dsec-calib run");
    free(m);
}
END_TEST

START_TEST(test_cal_import_file_missing)
{
    int n = -1;

    ck_assert_int_eq(
        cal_import_file(db, "/nonexistent/x.log", NULL, NULL, &n, NULL, &diag),
        SIM_EIO);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(sim_diag_errors(&diag), 1);
}
END_TEST

static Suite *import_suite(void)
{
    Suite *s = suite_create("calib_import");
    TCase *tc = tcase_create("cal_import_file");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_cal_import_file_nccl_tests);
    tcase_add_test(tc, test_cal_import_file_perftest);
    tcase_add_test(tc, test_cal_import_file_nvbandwidth);
    tcase_add_test(tc, test_cal_import_file_bandwidthtest);
    tcase_add_test(tc, test_cal_import_file_dsec_calib);
    tcase_add_test(tc, test_cal_import_file_malformed);
    tcase_add_test(tc, test_cal_import_file_missing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(import_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
