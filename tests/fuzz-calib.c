/*
 * libFuzzer target for dsec-calib's importers (--enable-fuzzing with
 * CC=clang; `make fuzz`, docs/build.md): the first byte picks the importer,
 * the rest is the file, written to a temporary file and imported into an
 * in-memory calibration database.
 *   even: a microbenchmark log (nccl-tests, nvbandwidth, ib_write_bw, ...;
 *         the tool is detected from the text, cal_import_file)
 *   odd:  a serving benchmark result (vllm bench serve or GuideLLM JSON,
 *         cal_import_serving)
 * An import must succeed or fail with a diagnostic; a log that imports
 * must not have stored a point with a negative or non-finite size or time.
 * Anything else, and any sanitizer report, is a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "calib/cal.h"
#include "base/diag.h"
#include "tests/fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

/* Points with an impossible value: negative or non-finite numbers. */
static int bad_points(sqlite3 *db)
{
    sqlite3_stmt *st;
    int n = 0;

    if (sqlite3_prepare_v2(
            db,
            "SELECT count(*) FROM points WHERE size_bytes < 0 OR "
            "time_us < 0 OR time_us > 1e12 OR size_bytes > 1e18 OR "
            "nwrong > 0",
            -1, &st, NULL) != SQLITE_OK)
        return 0; /* the schema names differ: nothing to check */
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_diag d;
    sqlite3 *db;
    int rc, n = 0;

    if (size == 0)
        return 0;
    fuzz_file_write(path, "/tmp/dsec-fuzz-calib-XXXXXX", data + 1, size - 1);

    sim_diag_init(&d);
    if (cal_db_open(":memory:", &db, &d) != 0)
        abort();
    if (data[0] % 2 == 0) {
        const char *tool = NULL;
        rc = cal_import_file(db, path, "h100", NULL, &n, &tool, &d);
        if (rc == 0 && bad_points(db) > 0)
            abort(); /* an impossible point stored */
    } else {
        FILE *out = fopen("/dev/null", "w");
        struct cal_serving_opts o;
        memset(&o, 0, sizeof(o));
        rc = cal_import_serving(db, path, &o, out, &n, &d);
        if (out != NULL)
            fclose(out);
    }
    if (rc != 0 && sim_diag_errors(&d) == 0)
        abort(); /* a refusal that says nothing */
    sqlite3_close(db);
    sim_diag_fini(&d);
    return 0;
}
