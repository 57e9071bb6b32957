/*
 * Mutation tests of the input parsers, run by `make check`: deterministic
 * random mutations (bit flips, byte insertions and deletions, line
 * splices, truncations) of every scenario fixture and bundled scenario go
 * through the scenario loader and the catalog checks, and mutated trace
 * rows through the Azure reader. Each input must either load or fail with
 * at least one diagnostic; a crash, a hang or a sanitizer report fails the
 * test. A coverage-guided fuzzer (tests/fuzz-scn.c, --enable-fuzzing)
 * explores further; this keeps a fixed sample in every build.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "models/cluster/cluster.h"
#include "models/workload/source.h"
#include "scenarios/load.h"
#include "base/errors.h"
#include "base/xalloc.h"

#define MUTANTS_PER_FILE 400

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    long n;

    if (fp == NULL)
        return NULL;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = xmalloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, fp);
    buf[*len] = '\0';
    fclose(fp);
    return buf;
}

/* One mutation of src (len bytes) into a new buffer; *out_len set. */
static char *mutate(gsl_rng *r, const char *src, size_t len, size_t *out_len)
{
    static const char pool[] = "{}[]:,-#&*!|>'\"\n\t 0123456789.eE%$/hms";
    char *dst = xmalloc(len + 64);
    size_t n = len, pos = len ? gsl_rng_uniform_int(r, len) : 0;
    int kind = (int)gsl_rng_uniform_int(r, 5);

    memcpy(dst, src, len);
    switch (kind) {
    case 0: /* flip a bit */
        if (n > 0)
            dst[pos] ^= (char)(1u << gsl_rng_uniform_int(r, 8));
        break;
    case 1: /* insert a syntax-laden byte */
        memmove(dst + pos + 1, dst + pos, n - pos);
        dst[pos] = pool[gsl_rng_uniform_int(r, sizeof(pool) - 1)];
        n++;
        break;
    case 2: /* delete a run of bytes */
        if (n > 0) {
            size_t k = 1 + gsl_rng_uniform_int(r, 8);
            if (k > n - pos)
                k = n - pos;
            memmove(dst + pos, dst + pos + k, n - pos - k);
            n -= k;
        }
        break;
    case 3: /* truncate */
        n = pos;
        break;
    default: { /* duplicate a chunk elsewhere */
        size_t k = 1 + gsl_rng_uniform_int(r, 40);
        size_t from = len ? gsl_rng_uniform_int(r, len) : 0;
        if (k > len - from)
            k = len - from;
        if (k > 60)
            k = 60;
        memmove(dst + pos + k, dst + pos, n - pos);
        memcpy(dst + pos, src + from, k);
        n += k;
        break;
    }
    }
    *out_len = n;
    return dst;
}

static void fuzz_scenario_file(gsl_rng *r, const char *path)
{
    size_t len;
    char *src = slurp(path, &len);

    ck_assert_msg(src != NULL, "cannot read %s", path);
    for (int i = 0; i < MUTANTS_PER_FILE; i++) {
        struct cl_scenario scn;
        struct sim_diag d;
        size_t n;
        char *m = mutate(r, src, len, &n);
        int rc;

        sim_diag_init(&d);
        rc = scn_scenario_open("fuzz.yaml",
                               &(struct scn_open_opts){.text = m, .len = n},
                               &scn, &d);
        /* A failure always says why. */
        if (rc != 0)
            ck_assert_msg(sim_diag_errors(&d) > 0,
                          "%s mutant %d: rc %d and "
                          "no diagnostic",
                          path, i, rc);
        cl_scenario_fini(&scn);
        sim_diag_fini(&d);
        free(m);
    }
    free(src);
}

static void fuzz_dir(gsl_rng *r, const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    int files = 0;

    ck_assert_msg(dp != NULL, "cannot open %s", dir);
    while ((de = readdir(dp)) != NULL) {
        size_t l = strlen(de->d_name);
        char *path;
        if (l < 6 || strcmp(de->d_name + l - 5, ".yaml") != 0)
            continue;
        path = xasprintf("%s/%s", dir, de->d_name);
        fuzz_scenario_file(r, path);
        free(path);
        files++;
    }
    closedir(dp);
    ck_assert_int_gt(files, 0);
}

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : ".";
}

START_TEST(test_scn_string_load_mutants)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char *d1 = xasprintf("%s/tests/data/scn", srcdir());
    char *d2 = xasprintf("%s/scenarios", srcdir());

    gsl_rng_set(r, 20261130);
    fuzz_dir(r, d1);
    fuzz_dir(r, d2);
    free(d1);
    free(d2);
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_wl_source_next_azure_mutants)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char *path = xasprintf("%s/tests/data/trace/three.csv", srcdir());
    char tmpl[] = "/tmp/dsec-fuzz-XXXXXX";
    size_t len;
    char *src = slurp(path, &len);
    int fd = mkstemp(tmpl);

    ck_assert(src != NULL && fd >= 0);
    gsl_rng_set(r, 7);
    for (int i = 0; i < 2000; i++) {
        struct cl_workload wl;
        struct sim_diag d;
        struct wl_request rq;
        struct wl_source *s;
        size_t n;
        char *m = mutate(r, src, len, &n);
        FILE *fp = fopen(tmpl, "wb");
        int rc;

        fwrite(m, 1, n, fp);
        fclose(fp);
        memset(&wl, 0, sizeof(wl));
        wl.kind = CL_WL_TRACE;
        wl.trace.format = CL_TRACE_AZURE;
        wl.trace.path = tmpl;
        wl.trace.time_scale = 1;
        wl.trace.rate_scale = 1;
        wl.trace.requests = -1;
        wl.trace.duration_ns = -1;
        sim_diag_init(&d);
        s = wl_source_new(&wl, NULL, NULL, &d);
        if (s == NULL) {
            ck_assert_int_gt(sim_diag_errors(&d), 0);
        } else {
            while ((rc = wl_source_next(s, &rq, &d)) == 0)
                ck_assert(rq.prompt_tokens >= 1 && rq.output_tokens >= 1);
            if (rc != SIM_EEOF)
                ck_assert_int_gt(sim_diag_errors(&d), 0);
        }
        wl_source_free(s);
        sim_diag_fini(&d);
        free(m);
    }
    close(fd);
    unlink(tmpl);
    free(src);
    free(path);
    gsl_rng_free(r);
}
END_TEST

static Suite *fuzz_suite(void)
{
    Suite *s = suite_create("scn_fuzz");
    TCase *tc = tcase_create("mutants");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_scn_string_load_mutants);
    tcase_add_test(tc, test_wl_source_next_azure_mutants);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fuzz_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
