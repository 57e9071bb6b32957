/* Helpers shared by the commands: number parsing, timestamps (the CLI may
 * read the clock; the models never do), exit statuses, resolving a MODEL
 * argument. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <math.h>

#include "cli/cli.h"
#include "models/perf/roofline.h"
#include "models/perf/calib.h"
#include "models/arch/arch.h"
#include "models/arch/hf.h"
#include "models/cluster/cluster.h"
#include "models/layout/layout.h"
#include "models/net/net.h"
#include "scenarios/load.h"
#include "sweep/spec.h"
#include "base/errors.h"

int cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (*s == '-' || *s == '\0')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_seed(const char *s, uint64_t *out)
{
    uint64_t v;
    if (cli_parse_u64(s, &v) != 0 || v > (uint64_t)INT64_MAX)
        return -1;
    *out = v;
    return 0;
}

void cli_utc_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Edit distance between two short strings, ignoring ASCII case; strings
 * longer than 63 bytes count as far from everything. */
static int distance(const char *s, const char *t)
{
    int d[64][64];
    size_t n = strlen(s), m = strlen(t), i, j;

    if (n >= 64 || m >= 64)
        return 1 << 20;
    for (i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (i = 1; i <= n; i++) {
        for (j = 1; j <= m; j++) {
            int sub =
                d[i - 1][j - 1] + (strncasecmp(s + i - 1, t + j - 1, 1) != 0);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            int best = sub < del ? sub : del;

            d[i][j] = best < ins ? best : ins;
        }
    }
    return d[n][m];
}

/* The catalog entry name most likely meant: the path-style match
 * ("Llama-3.1-70B-Instruct"), else the nearest name within 3 edits. NULL
 * when none. Borrowed, static. A path-style match is only a guess, not
 * accepted: "my-llama-3.1-8b-finetune" is not the catalog model. */
static const char *did_you_mean(const char *name)
{
    const struct arch_spec *a = arch_find_path(name);
    int best = 4;

    if (a != NULL)
        return a->name;
    for (int i = 0; arch_table[i] != NULL; i++) {
        int d = distance(name, arch_table[i]->name);

        if (d < best) {
            best = d;
            a = arch_table[i];
        }
    }
    return a != NULL ? a->name : NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

const struct arch_spec *cli_resolve_model(const char *cmd, const char *name,
                                          struct arch_spec **loaded)
{
    const struct arch_spec *a = arch_find(name);
    struct stat st;
    const char *guess;
    char *names;

    *loaded = NULL;
    if (a != NULL)
        return a;
    if (stat(name, &st) == 0 || strchr(name, '/') != NULL ||
        ends_with(name, ".json")) {
        char why[1024];

        if (arch_hf_load(name, loaded, why, sizeof(why)) != 0) {
            fprintf(stderr, "%s\n", why);
            return NULL;
        }
        return *loaded;
    }
    names = arch_names();
    guess = did_you_mean(name);
    fprintf(stderr, "dsec %s: unknown model '%s'; valid: %s", cmd, name, names);
    if (guess != NULL)
        fprintf(stderr, "; did you mean '%s'?", guess);
    fprintf(stderr, " (or give the path of a config.json)\n");
    free(names);
    return NULL;
}

int cli_exit_status(int rc)
{
    return rc == SIM_EPARSE || rc == SIM_EIO || rc == SIM_EINVAL ||
                   rc == SIM_EINFEASIBLE
               ? CLI_EXIT_INPUT
               : CLI_EXIT_INTERNAL;
}

int cli_set_add(struct cli_sets *s, const char *arg)
{
    const char *eq = strchr(arg, '=');

    if (eq == NULL || eq == arg || strchr(arg, '\n') != NULL ||
        strchr(arg, '\r') != NULL)
        return -1;
    if (s->n == CLI_SETS_MAX)
        return -1;
    s->v[s->n++] = arg;
    return 0;
}

int cli_load_scenario_quiet(const char *path, const struct cli_sets *sets,
                            struct cl_scenario *scn, struct cl_plan *plan,
                            struct sim_diag *d)
{
    struct scn_open_opts opts = {.plan = plan};
    char *text = NULL;
    int bad = 0;

    if (sets != NULL && sets->n > 0) {
        text = swp_scenario_with_sets(path, sets->v, sets->n, d);
        bad = text == NULL;
        opts.text = text;
        opts.len = text ? strlen(text) : 0;
    }
    if (!bad)
        bad = scn_scenario_open(path, &opts, scn, d) != 0;
    free(text);
    return bad ? CLI_EXIT_INPUT : 0;
}

int cli_load_scenario(const char *path, const struct cli_sets *sets,
                      struct cl_scenario *scn, struct cl_plan *plan)
{
    struct sim_diag diag;
    int rc;

    sim_diag_init(&diag);
    rc = cli_load_scenario_quiet(path, sets, scn, plan, &diag);
    sim_diag_print(&diag, stderr); /* errors, warnings and notes */
    sim_diag_fini(&diag);
    return rc;
}

int cli_layout_nodes(const char *cmd, int gpus, int nodes, int nics,
                     const char *link, struct layout_setup *s)
{
    if (nodes > 0) {
        if (gpus % nodes != 0) {
            fprintf(stderr,
                    "dsec %s: %d gpus do not split evenly over %d nodes\n", cmd,
                    gpus, nodes);
            return CLI_EXIT_INPUT;
        }
        s->gpus_per_node = gpus / nodes;
    } else if (gpus > s->gpus_per_node && gpus % s->gpus_per_node != 0) {
        fprintf(stderr,
                "dsec %s: %d gpus do not fill nodes of %d; give --nodes\n", cmd,
                gpus, s->gpus_per_node);
        return CLI_EXIT_INPUT;
    }
    s->nics_per_node = nics > 0 ? nics : s->gpus_per_node;
    if (link != NULL) {
        const struct net_link *li = net_link_find(link);

        if (li == NULL) {
            char *names = net_link_names();

            fprintf(stderr, "dsec %s: unknown link '%s'; valid: %s\n", cmd,
                    link, names);
            free(names);
            return CLI_EXIT_INPUT;
        }
        /* The catalog class in place of the calibrated one (ib-ndr). */
        s->calib.inter = *li;
    }
    return 0;
}

/* Does c calibrate the GPU kind name (its own entry or a default one)? */
static int calib_covers(const struct perf_calib *c, const char *name)
{
    return name == NULL || perf_calib_find_gpu(c, name) != NULL ||
           perf_calib_find_gpu(c, PERF_CALIB_DEFAULT_GPU) != NULL;
}

int cli_apply_calibration(const char *cmd, struct cl_scenario *s,
                          const char *path)
{
    struct perf_calib *c = xcalloc(1, sizeof(*c));
    struct sim_diag d;
    const char *bad = NULL;

    sim_diag_init(&d);
    if (perf_calib_load(path, c, &d) != 0) {
        sim_diag_print(&d, stderr);
        sim_diag_fini(&d);
        free(c);
        fprintf(stderr, "dsec %s: --calibration: cannot use profile '%s'\n",
                cmd, path);
        return CLI_EXIT_INPUT;
    }
    sim_diag_fini(&d);
    if (!calib_covers(c, s->hardware.gpu))
        bad = s->hardware.gpu;
    for (int i = 0; i < s->npools && bad == NULL; i++)
        if (!calib_covers(c, s->pools[i].gpu))
            bad = s->pools[i].gpu;
    if (bad != NULL) {
        size_t len = 1;
        char *kinds;
        for (int i = 0; i < c->ngpus; i++)
            len += strlen(c->gpus[i].name) + 2;
        kinds = xcalloc(len, 1);
        for (int i = 0; i < c->ngpus; i++) {
            if (i > 0)
                strcat(kinds, ", ");
            strcat(kinds, c->gpus[i].name);
        }
        fprintf(stderr,
                "%s: error: the profile calibrates %s, not %s, which the "
                "scenario runs on (a profile measured on another GPU kind "
                "does not apply)\n",
                path, c->ngpus > 0 ? kinds : "no GPU kind", bad);
        free(kinds);
        perf_calib_fini(c);
        free(c);
        return CLI_EXIT_INPUT;
    }
    perf_calib_fini(s->calib);
    free(s->calib);
    s->calib = c;
    return 0;
}

int cli_spec_parse(const struct cli_entry *cmd, int opt, const char *arg,
                   struct cli_spec_opts *o)
{
    uint64_t v;
    char *end;

    switch (opt) {
    case 'S':
        if (strcmp(arg, "none") == 0)
            o->method = PERF_SPEC_NONE;
        else if (strcmp(arg, "mtp") == 0)
            o->method = PERF_SPEC_MTP;
        else if (strcmp(arg, "ngram") == 0)
            o->method = PERF_SPEC_NGRAM;
        else
            return cli_usage_error(cmd, "--speculative: expected none, mtp "
                                        "or ngram");
        return 0;
    case 'K':
        if (cli_parse_u64(arg, &v) != 0 || v < 1 || v > 8)
            return cli_usage_error(cmd, "--spec-tokens: expected an integer "
                                        "in [1, 8]");
        o->tokens = (int)v;
        return 0;
    default:
        errno = 0;
        o->acceptance = strtod(arg, &end);
        if (*arg == '\0' || *end != '\0' || errno != 0 ||
            !(o->acceptance >= 0.0 && o->acceptance <= 1.0))
            return cli_usage_error(cmd, "--acceptance: expected a number in "
                                        "[0, 1]");
        return 0;
    }
}

int cli_spec_finish(const struct cli_entry *cmd, struct cli_spec_opts *o)
{
    if (o->method <= PERF_SPEC_NONE && (o->tokens > 0 || !isnan(o->acceptance)))
        return cli_usage_error(cmd, "--spec-tokens and --acceptance go with "
                                    "--speculative mtp|ngram");
    if (o->method == PERF_SPEC_NGRAM && isnan(o->acceptance))
        return cli_usage_error(cmd, "--speculative ngram needs --acceptance "
                                    "A (it depends on the workload)");
    if (o->method > PERF_SPEC_NONE) {
        if (o->tokens < 1)
            o->tokens = 1;
        if (isnan(o->acceptance))
            o->acceptance = CL_SPEC_MTP_ACCEPTANCE;
    }
    return 0;
}
