/* Tests for the server-engine registry (models/cluster/engine-table.c):
 * the table's order, summaries, versions and required ops, the lookup by
 * server.kind, and what the world asks of an engine through it: the plan
 * (an unknown kind named with the valid ones, tp chosen when unset). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster/cluster-int.h"
#include "scenarios/load.h"
#include "base/errors.h"

START_TEST(test_engine_table_sorted_complete)
{
    int i;

    for (i = 0; cl__engine_table[i] != NULL; i++) {
        const struct cl_engine *e = cl__engine_table[i];
        const struct cl_engine_ops *o = e->ops;
        ck_assert_msg(e->summary != NULL && e->summary[0] != '\0', "%s",
                      e->name);
        ck_assert_int_eq(o->version, CL_ENGINE_API_VERSION);
        /* pool_init and notes may be NULL; the others are required. */
        ck_assert(o->plan != NULL && o->world_init != NULL &&
                  o->accept != NULL && o->arrive != NULL && o->ready != NULL &&
                  o->drain != NULL && o->fail != NULL &&
                  o->replica_free != NULL && o->gauges != NULL &&
                  o->results != NULL && o->world_fini != NULL);
        ck_assert_ptr_eq(cl__engine_for(e->kind), e);
        if (cl__engine_table[i + 1] != NULL)
            ck_assert_msg(strcmp(e->name, cl__engine_table[i + 1]->name) < 0,
                          "%s before %s", e->name,
                          cl__engine_table[i + 1]->name);
    }
    ck_assert_int_eq(i, 2);
}
END_TEST

START_TEST(test_engine_for_kind)
{
    char *names = cl__engine_names();

    ck_assert_str_eq(cl__engine_for(CL_SRV_ABSTRACT)->name, "abstract");
    ck_assert_str_eq(cl__engine_for(CL_SRV_LLM)->name, "llm");
    ck_assert(cl__engine_for(CL_SRV_LLM)->streams_tokens);
    ck_assert(cl__engine_for(CL_SRV_ABSTRACT)->central_queue);
    ck_assert_ptr_null(cl__engine_for(42));
    ck_assert_str_eq(names, "abstract, llm");
    free(names);
}
END_TEST

static void load(const char *text, struct cl_scenario *scn)
{
    struct sim_diag d;
    int rc;

    sim_diag_init(&d);
    rc = scn_string_load("inline.yaml", text, strlen(text), scn, &d);
    if (rc != 0)
        sim_diag_print(&d, stderr);
    ck_assert_int_eq(rc, 0);
    sim_diag_fini(&d);
}

START_TEST(test_engine_plan_unknown_kind)
{
    struct cl_scenario scn;
    struct cl_plan plan;
    struct sim_diag d;
    char *msg;

    load("workload:\n"
         "  synthetic: {arrival: {process: poisson, rate_per_s: 1}, "
         "requests: 10}\n"
         "server: {kind: abstract, service: {dist: exponential, mean_s: 1}}\n",
         &scn);
    scn.server.kind = 42;
    sim_diag_init(&d);
    ck_assert_int_eq(cl_scenario_check(&scn, &plan, &d), SIM_EINVAL);
    ck_assert_int_eq(sim_diag_errors(&d), 1);
    msg = sim_diag_format(&d, 0);
    ck_assert_str_eq(msg, "inline.yaml: error: server.kind: unknown kind 42; "
                          "valid: abstract, llm");
    free(msg);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

START_TEST(test_engine_plan_tp_chosen)
{
    struct cl_scenario scn;
    struct cl_plan plan;
    struct sim_diag d;

    load("model: llama-3.1-8b\n"
         "workload:\n"
         "  synthetic: {arrival: {process: poisson, rate_per_s: 1}, "
         "requests: 10, prompt_tokens: {dist: fixed, value: 100}, "
         "output_tokens: {dist: fixed, value: 10}}\n"
         "hardware: {gpu: h100}\n",
         &scn);
    sim_diag_init(&d);
    ck_assert_int_eq(cl_scenario_check(&scn, &plan, &d), 0);
    ck_assert_int_eq(plan.tp, 1);
    ck_assert_int_eq(plan.tp_chosen, 1);
    scn.deploy.tp = 1;
    ck_assert_int_eq(cl_scenario_check(&scn, &plan, &d), 0);
    ck_assert_int_eq(plan.tp_chosen, 0);
    sim_diag_fini(&d);
    cl_scenario_fini(&scn);
}
END_TEST

static Suite *engines_suite(void)
{
    Suite *s = suite_create("models_engines");
    TCase *tc = tcase_create("table");

    tcase_add_test(tc, test_engine_table_sorted_complete);
    tcase_add_test(tc, test_engine_for_kind);
    tcase_add_test(tc, test_engine_plan_unknown_kind);
    tcase_add_test(tc, test_engine_plan_tp_chosen);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(engines_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
