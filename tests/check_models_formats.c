/* Tests for the workload-format registry (models/workload/table.c): the
 * table's order, names, summaries and versions, the choice of one entry
 * per workload section, and the name lists that messages quote. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"

START_TEST(test_format_table_sorted_complete)
{
    int i;

    for (i = 0; wl__format_table[i] != NULL; i++) {
        const struct wl__format *f = wl__format_table[i];
        ck_assert_msg(f->summary != NULL && f->summary[0] != '\0', "%s",
                      f->name);
        ck_assert_int_eq(f->ops->version, WL_FORMAT_API_VERSION);
        ck_assert(f->ops->match != NULL && f->ops->open != NULL &&
                  f->ops->next != NULL && f->ops->close != NULL);
        if (wl__format_table[i + 1] != NULL)
            ck_assert_msg(strcmp(f->name, wl__format_table[i + 1]->name) < 0,
                          "%s before %s", f->name,
                          wl__format_table[i + 1]->name);
    }
    ck_assert_int_eq(i, 8);
}
END_TEST

/* Exactly one entry matches each section, and it is the expected one. */
static void assert_only(const struct cl_workload *w, const char *name)
{
    int n = 0;

    for (int i = 0; wl__format_table[i] != NULL; i++)
        n += wl__format_table[i]->ops->match(w);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(wl__format_for(w)->name, name);
}

START_TEST(test_format_for_each_section)
{
    static const struct {
        int format;
        const char *name;
    } traces[] = {
        {CL_TRACE_AZURE, "azure"},
        {CL_TRACE_MOONCAKE, "mooncake"},
        {CL_TRACE_BURSTGPT, "burstgpt"},
        {CL_TRACE_SERVEGEN, "servegen"},
    };
    struct cl_workload w;

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_SYNTHETIC;
    assert_only(&w, "synthetic");
    w.synthetic.sessions.enabled = 1;
    assert_only(&w, "sessions");
    w.kind = CL_WL_TRACE;
    for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
        w.trace.format = traces[i].format;
        assert_only(&w, traces[i].name);
        ck_assert(wl__format_for(&w)->flags & WL_FMT_TRACE);
    }
    w.trace.format = 99;
    ck_assert_ptr_null(wl__format_for(&w));
    w.kind = CL_WL_INFERENCE_PERF;
    assert_only(&w, "inference_perf");
    w.kind = CL_WL_VLLM_BENCH;
    assert_only(&w, "vllm_bench");
    w.kind = 7;
    ck_assert_ptr_null(wl__format_for(&w));
}
END_TEST

START_TEST(test_format_names_by_flag)
{
    char *s = wl__format_names(WL_FMT_TRACE);
    ck_assert_str_eq(s, "azure, burstgpt, mooncake, servegen");
    free(s);
    s = wl__format_names(WL_FMT_MODEL);
    ck_assert_str_eq(s, "burstgpt");
    free(s);
    s = wl__format_names(WL_FMT_TRACE | WL_FMT_LOOP);
    ck_assert_str_eq(s, "servegen");
    free(s);
    s = wl__format_names(0);
    ck_assert_str_eq(s, "azure, burstgpt, inference_perf, mooncake, "
                        "servegen, sessions, synthetic, vllm_bench");
    free(s);
}
END_TEST

static Suite *formats_suite(void)
{
    Suite *s = suite_create("models_formats");
    TCase *tc = tcase_create("table");

    tcase_add_test(tc, test_format_table_sorted_complete);
    tcase_add_test(tc, test_format_for_each_section);
    tcase_add_test(tc, test_format_names_by_flag);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(formats_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
