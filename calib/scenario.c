/* dsec-calib scenario (calib/scenario.h): benchmark results to scenarios.
 *
 * The inputs are read whole first (YAML through libyaml's document API,
 * so every value keeps its position; JSON through json-c), checked, and
 * only then written, into a memory stream that reaches the caller's FILE
 * when nothing failed. Rejected alternative: writing while reading, which
 * leaves half a scenario on stdout after an error.
 *
 * Sources of the settings (the comments of the output repeat them):
 * - inference-perf's results/config.yaml is the full configuration the
 *   tool ran (every key, null when unset), so a key that profile.yaml
 *   gives and config.yaml lacks was unknown to that inference-perf and
 *   ignored: a note, never a setting.
 * - exp-config.yaml is the vLLM server's command line; what it does not
 *   set is vLLM's default (docs/sources.md §5.1: block_size 16, prefix caching
 * on in the V1 engine, gpu_memory_utilization 0.9 in the releases of the runs)
 *   or, for the batch limits, dsec's own default, which follows vLLM's rule.
 * - inference-perf's client is aiohttp; with load.request_timeout null it
 *   keeps aiohttp's default total timeout of 300 s (aiohttp
 *   client.py DEFAULT_TIMEOUT, ClientTimeout(total=5 * 60)).
 * - vllm bench serve (vllm benchmarks/serve.py, --save-result) records
 *   num_prompts, request_rate ("inf" for an unbounded rate), burstiness and
 *   max_concurrency, and with --save-detailed the per-request input_lens
 *   and output_lens; the dataset options are recorded only when given as
 *   --metadata KEY=VALUE (strings). Its requests time out after the
 *   6 h of AIOHTTP_TIMEOUT (vllm benchmarks/lib/endpoint_request_func.py).
 * - GuideLLM v0.3 reports (guidellm benchmark --output-path, for dsec-calib
 *   import only) record per benchmark its scheduling strategy
 *   (args.strategy: type_, rate, streams, max_concurrency), the --data it
 *   was given (request_loader.data: synthetic prompt_tokens, output_tokens,
 *   their _stdev, _min, _max, prefix_tokens), the served model
 *   (worker.backend_model) and the request counts (request_totals). When
 *   it is given output_tokens its OpenAI backend sends max_tokens with
 *   ignore_eos, so the lengths are exact; its default request timeout is
 *   5 min (settings.request_timeout), which the report does not record.
 *   Written from GuideLLM's format as known, not checked against a report
 *   of a real run. */
/* realpath() is XSI; -D_POSIX_C_SOURCE alone hides it. */
#define _XOPEN_SOURCE 700

#include "calib/scenario.h"
#include "calib/scenario-int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <yaml.h>

#include "base/errors.h"
#include "base/xalloc.h"
#include "base/yaml-rows.h"
#include "models/arch/hf.h"

/* Column where the comments of the output start. */
#define COMMENT_COL 36

/* The stage gap of inference-perf: a stage starts about 2 s after the
 * previous one drained (seen in the H100 runs of inference-sim/training
 * @ ed5c1d26, the data docs/calibration.md names). */
#define IP_STAGE_GAP "2s"

/* Defaults of the clients (file comment). */
#define IP_TIMEOUT "300s"
#define VB_TIMEOUT "6h"

/* ---- small helpers ---- */

/* A value read from a file: not given (0), given (1), or in error (-1). */
enum { ABSENT = CAL__ABSENT, GIVEN = CAL__GIVEN, BAD = CAL__BAD };

/* Flags of the number readers. */
enum {
    N_REQ = CAL__N_REQ,      /* missing is an error */
    N_INT = CAL__N_INT,      /* an integer */
    N_POS = CAL__N_POS,      /* > 0 */
    N_NONNEG = CAL__N_NONNEG /* >= 0 */
};

static int file_kind(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return 0;
    return S_ISDIR(st.st_mode) ? 'd' : 'f';
}

/* The last component of path after resolving it (realpath); NULL when it
 * cannot be resolved. Caller frees. */
static char *real_basename(const char *path)
{
    char *r = realpath(path, NULL), *b, *out;

    if (r == NULL)
        return NULL;
    b = strrchr(r, '/');
    out = xstrdup(b != NULL && b[1] != '\0' ? b + 1 : r);
    free(r);
    return out;
}

/* v written for YAML: integers without a decimal point, others with the
 * fewest digits that read back the same. Returns buf (40 bytes). */
static const char *fnum(char *buf, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, 40, "%.0f", v);
        return buf;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, 40, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* Whether s can be written as a plain YAML scalar that reads back as the
 * same string (not a number, boolean or null). */
static int plain_ok(const char *s)
{
    static const char *const special[] = {
        "true",  "false", "yes", "no", "on",  "off",  "null", "True",
        "False", "Yes",   "No",  "On", "Off", "Null", "NULL", "~",
    };
    char *end;

    if (s[0] == '\0' || s[0] == '-' || s[0] == '.')
        return 0;
    for (const char *p = s; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
              ('0' <= *p && *p <= '9') || strchr("._/-+@", *p)))
            return 0;
    for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
        if (strcmp(s, special[i]) == 0)
            return 0;
    (void)strtod(s, &end);
    return *end != '\0';
}

/* s as a YAML scalar: plain when that reads back, else double-quoted with
 * escapes. Caller frees. */
static char *yq(const char *s)
{
    size_t n = strlen(s), j = 0;
    char *o;

    if (plain_ok(s))
        return xstrdup(s);
    o = xmalloc(4 * n + 3);
    o[j++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            o[j++] = '\\';
            o[j++] = (char)*p;
        } else if (*p < 0x20) {
            j += (size_t)sprintf(o + j, "\\x%02x", *p);
        } else {
            o[j++] = (char)*p;
        }
    }
    o[j++] = '"';
    o[j] = '\0';
    return o;
}

/* s for a comment: control characters (a newline would end the comment)
 * become '?'. Caller frees. */
static char *cq(const char *s)
{
    char *o = xstrdup(s);

    for (char *p = o; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = '?';
    return o;
}

/* Writes one line: text (printf format), then "# comment" at
 * COMMENT_COL (at least two spaces after the text) when comment is not
 * NULL. */
static void emit(FILE *out, const char *comment, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void emit(FILE *out, const char *comment, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vfprintf(out, fmt, ap);
    va_end(ap);
    if (comment != NULL) {
        char *c = cq(comment);

        fprintf(out, "%*s# %s", n < COMMENT_COL - 2 ? COMMENT_COL - n : 2, "",
                c);
        free(c);
    }
    fputc('\n', out);
}

/* ---- YAML input ---- */

struct yfile {
    struct sim_yaml y;
    char *path; /* owned */
    char *text; /* owned */
    yaml_node_t *root;
};

/* Opens and parses path (owned by f from here on) as a YAML mapping.
 * Returns 0, or an error code with the message in d. */
static int yfile_open(struct yfile *f, char *path, struct sim_diag *d)
{
    size_t len;
    int rc;

    memset(f, 0, sizeof(*f));
    f->path = path;
    sim_yaml_init(&f->y, f->path, d, NULL);
    f->text = sim_yaml_read_file(f->path, CAL_SCN_MAX_YAML_BYTES, &len, d);
    if (f->text == NULL)
        return SIM_EIO;
    rc = sim_yaml_parse(&f->y, f->text, len, CAL_SCN_MAX_YAML_BYTES);
    if (rc != 0)
        return rc;
    f->root = sim_yaml_root_mapping(&f->y, "a mapping");
    if (f->root == NULL || f->y.errors > 0)
        return SIM_EPARSE;
    return 0;
}

static void yfile_close(struct yfile *f)
{
    sim_yaml_fini(&f->y);
    free(f->text);
    free(f->path);
    memset(f, 0, sizeof(*f));
}

static yaml_node_t *ynode(struct yfile *f, int id)
{
    return yaml_document_get_node(&f->y.doc, id);
}

/* Error or note at node n (the file's start when n is NULL). */
static void yerr(struct yfile *f, const yaml_node_t *n, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void yerr(struct yfile *f, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_yaml_verror(&f->y, n ? sim_yaml_line(n) : 0, n ? sim_yaml_col(n) : 0,
                    fmt, ap);
    va_end(ap);
}

static void ynote(struct yfile *f, const yaml_node_t *n, const char *fmt, ...)
    SIM_PRINTF(3, 4);

static void ynote(struct yfile *f, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_diag_vadd(f->y.d, SIM_SEV_NOTE, f->path, n ? sim_yaml_line(n) : 0,
                  n ? sim_yaml_col(n) : 0, fmt, ap);
    va_end(ap);
}

/* The value of key in mapping map, or NULL (also when map is not one). */
static yaml_node_t *yget(struct yfile *f, yaml_node_t *map, const char *key)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = ynode(f, p->key);

        if (k != NULL && k->type == YAML_SCALAR_NODE &&
            strcmp((const char *)k->data.scalar.value, key) == 0)
            return ynode(f, p->value);
    }
    return NULL;
}

/* Whether n says nothing: absent, null, or an empty list or mapping. */
static int yempty(const yaml_node_t *n)
{
    if (n == NULL || sim_yaml_is_null(n))
        return 1;
    if (n->type == YAML_SEQUENCE_NODE)
        return n->data.sequence.items.start == n->data.sequence.items.top;
    if (n->type == YAML_MAPPING_NODE)
        return n->data.mapping.pairs.start == n->data.mapping.pairs.top;
    return 0;
}

/* "path.key", or "key" at the top. Caller frees. */
static char *subpath(const char *path, const char *key)
{
    return path[0] ? xasprintf("%s.%s", path, key) : xstrdup(key);
}

/* Checks that mapping map (at path) has no key outside known (NULL-ended)
 * that says something: such a setting would change the run, and dsec-calib
 * does not know how. Keys given as null or empty are what inference-perf
 * writes for unset options and pass. */
static void ykeys(struct yfile *f, yaml_node_t *map, const char *path,
                  const char *const *known)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = ynode(f, p->key), *v = ynode(f, p->value);
        const char *name;
        int found = 0;

        if (k == NULL || k->type != YAML_SCALAR_NODE)
            continue;
        name = (const char *)k->data.scalar.value;
        for (int i = 0; known[i] != NULL; i++)
            found |= strcmp(known[i], name) == 0;
        if (!found && !yempty(v)) {
            char *full = subpath(path, name), list[512] = "";

            for (int i = 0; known[i] != NULL; i++) {
                if (i > 0)
                    strncat(list, ", ", sizeof(list) - strlen(list) - 1);
                strncat(list, known[i], sizeof(list) - strlen(list) - 1);
            }
            yerr(f, k, "%s: unsupported setting; known: %s", full, list);
            free(full);
        }
    }
}

/* The mapping at key of map (path names it), NULL when absent or null, an
 * error when it is something else. */
static yaml_node_t *ymap(struct yfile *f, yaml_node_t *map, const char *key,
                         const char *path)
{
    yaml_node_t *n = yget(f, map, key);

    if (n == NULL || sim_yaml_is_null(n))
        return NULL;
    if (n->type != YAML_MAPPING_NODE) {
        char *full = subpath(path, key);

        yerr(f, n, "%s: expected a mapping", full);
        free(full);
        return NULL;
    }
    return n;
}

/* Reads the number at key of map into *out under the N_* flags. */
static int ynum(struct yfile *f, yaml_node_t *map, const char *key,
                const char *path, int flags, double *out)
{
    yaml_node_t *n = yget(f, map, key);
    char *full = subpath(path, key), *end;
    const char *s;
    double v;
    int rc = BAD;

    if (n == NULL || sim_yaml_is_null(n)) {
        if (flags & N_REQ)
            yerr(f, n ? n : map, "%s: missing; expected %s", full,
                 flags & N_INT ? "an integer" : "a number");
        rc = ABSENT;
        goto out;
    }
    if (n->type != YAML_SCALAR_NODE) {
        yerr(f, n, "%s: expected a number", full);
        goto out;
    }
    s = (const char *)n->data.scalar.value;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(v)) {
        yerr(f, n, "%s: expected a number, got '%s'", full, s);
        goto out;
    }
    if ((flags & N_INT) && (v != floor(v) || fabs(v) > 1e15)) {
        yerr(f, n, "%s: expected an integer, got '%s'", full, s);
        goto out;
    }
    if ((flags & N_POS) && !(v > 0)) {
        yerr(f, n, "%s: %s out of range (0, inf)", full, s);
        goto out;
    }
    if ((flags & N_NONNEG) && v < 0) {
        yerr(f, n, "%s: %s out of range [0, inf)", full, s);
        goto out;
    }
    *out = v;
    rc = GIVEN;
out:
    free(full);
    return rc;
}

/* Reads the boolean at key of map into *out (1 or 0). */
static int ybool(struct yfile *f, yaml_node_t *map, const char *key,
                 const char *path, int *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "on"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "off"};
    yaml_node_t *n = yget(f, map, key);
    char *full;

    if (n == NULL || sim_yaml_is_null(n))
        return ABSENT;
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;

        for (int i = 0; i < 5; i++) {
            if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
                *out = strcmp(s, yes[i]) == 0;
                return GIVEN;
            }
        }
    }
    full = subpath(path, key);
    yerr(f, n, "%s: expected true or false", full);
    free(full);
    return BAD;
}

/* The string at key of map (borrowed from the document), or NULL. */
static const char *ystr(struct yfile *f, yaml_node_t *map, const char *key,
                        const char *path)
{
    yaml_node_t *n = yget(f, map, key);

    if (n == NULL || sim_yaml_is_null(n))
        return NULL;
    if (n->type != YAML_SCALAR_NODE) {
        char *full = subpath(path, key);

        yerr(f, n, "%s: expected a string", full);
        free(full);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

/* Notes every key of profile mapping pm (at path) that config mapping cm
 * lacks: inference-perf dumps its whole configuration, so such a key was
 * unknown to it and did not change the run. */
static void profile_notes(struct yfile *pf, yaml_node_t *pm, struct yfile *cf,
                          yaml_node_t *cm, const char *path)
{
    if (pm == NULL || pm->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *p = pm->data.mapping.pairs.start;
         p < pm->data.mapping.pairs.top; p++) {
        yaml_node_t *k = ynode(pf, p->key), *v = ynode(pf, p->value), *c;
        const char *name;
        char *full;

        if (k == NULL || k->type != YAML_SCALAR_NODE)
            continue;
        name = (const char *)k->data.scalar.value;
        full = subpath(path, name);
        c = yget(cf, cm, name);
        if (c == NULL)
            ynote(pf, k,
                  "%s: not in results/config.yaml, so the inference-perf "
                  "of the run did not know it and ignored it; not converted",
                  full);
        else if (v != NULL && v->type == YAML_MAPPING_NODE)
            profile_notes(pf, v, cf, c, full);
        free(full);
    }
}

/* ---- inference-perf ---- */

enum ip_data { IP_SHARED_PREFIX, IP_RANDOM, IP_SYNTHETIC };
static const char *const ip_data_names[] = {"shared_prefix", "random",
                                            "synthetic", NULL};

/* A length distribution of inference-perf (min, max, mean, std). */
struct ip_dist {
    double v[4];
};
static const char *const ip_dist_keys[] = {"min", "max",         "mean",
                                           "std", "total_count", NULL};

/* Shared-prefix keys, in the order written. */
static const char *const ip_sp_keys[] = {"num_groups",
                                         "num_prompts_per_group",
                                         "system_prompt_len",
                                         "question_len",
                                         "output_len",
                                         "enable_multi_turn_chat",
                                         NULL};

/* What the run was, as read. Strings are borrowed from the documents. */
struct ip_run {
    char *name; /* owned */
    /* exp-config.yaml; -1 or NAN unset */
    const char *model;
    const char *model_from; /* where model came from */
    double tp, pp, max_model_len, mnbt, mns, block, gmu;
    int prefix;
    /* results/config.yaml */
    int data;
    double sp[5];
    struct ip_dist in, outd;
    int poisson;
    int nstages;
    double rate[CAL_SCN_MAX_STAGES], dur[CAL_SCN_MAX_STAGES];
    double timeout_s;
    int ignore_eos;
};

static void ip_exp_read(struct yfile *f, struct ip_run *r)
{
    static const char *const known[] = {"app",
                                        "block_size",
                                        "enable_prefix_caching",
                                        "gpu_memory_utilization",
                                        "max_model_len",
                                        "max_num_batched_tokens",
                                        "max_num_seqs",
                                        "model",
                                        "pipeline_parallelism",
                                        "tensor_parallelism",
                                        NULL};
    yaml_node_t *m = f->root;
    const char *app;
    double v;

    ykeys(f, m, "", known);
    r->model = ystr(f, m, "model", "");
    if (r->model != NULL)
        r->model_from = "exp-config.yaml model";
    app = ystr(f, m, "app", "");
    if (app != NULL && strcmp(app, "inference-perf") != 0)
        ynote(f, yget(f, m, "app"),
              "app: '%s' is not inference-perf; converting results/ as "
              "inference-perf's",
              app);
    ynum(f, m, "tensor_parallelism", "", N_INT | N_POS, &r->tp);
    ynum(f, m, "pipeline_parallelism", "", N_INT | N_POS, &r->pp);
    ynum(f, m, "max_model_len", "", N_INT | N_POS, &r->max_model_len);
    ynum(f, m, "max_num_batched_tokens", "", N_INT | N_POS, &r->mnbt);
    ynum(f, m, "max_num_seqs", "", N_INT | N_POS, &r->mns);
    ynum(f, m, "block_size", "", N_INT | N_POS, &r->block);
    if (ynum(f, m, "gpu_memory_utilization", "", N_POS, &v) == GIVEN) {
        if (v > 1)
            yerr(f, yget(f, m, "gpu_memory_utilization"),
                 "gpu_memory_utilization: %g out of range (0, 1]", v);
        else
            r->gmu = v;
    }
    ybool(f, m, "enable_prefix_caching", "", &r->prefix);
}

static void ip_dist_read(struct yfile *f, yaml_node_t *data, const char *key,
                         struct ip_dist *out)
{
    char *path = subpath("data", key);
    yaml_node_t *m = ymap(f, data, key, "data");

    if (m == NULL) {
        if (yget(f, data, key) == NULL || sim_yaml_is_null(yget(f, data, key)))
            yerr(f, yget(f, data, "type"),
                 "%s: missing; random and synthetic data need min, max, "
                 "mean and std",
                 path);
        free(path);
        return;
    }
    ykeys(f, m, path, ip_dist_keys);
    for (int i = 0; i < 4; i++)
        ynum(f, m, ip_dist_keys[i], path, N_REQ | N_NONNEG, &out->v[i]);
    if (out->v[0] > out->v[2] || out->v[2] > out->v[1])
        yerr(f, m, "%s: expected min <= mean <= max", path);
    else if (out->v[1] < 1)
        yerr(f, m, "%s.max: expected at least 1 token", path);
    free(path);
}

static void ip_data_read(struct yfile *f, yaml_node_t *root, struct ip_run *r)
{
    static const char *const known[] = {
        "type",          "path", "input_distribution", "output_distribution",
        "shared_prefix", NULL};
    yaml_node_t *data = ymap(f, root, "data", ""), *sp, *tn;
    const char *type;
    int multi = 0;

    if (data == NULL) {
        yerr(f, f->root,
             "data: missing; expected inference-perf's data "
             "section");
        return;
    }
    ykeys(f, data, "data", known);
    type = ystr(f, data, "type", "data");
    tn = yget(f, data, "type");
    r->data = -1;
    for (int i = 0; type != NULL && ip_data_names[i] != NULL; i++)
        if (strcmp(type, ip_data_names[i]) == 0)
            r->data = i;
    if (type == NULL) {
        yerr(f, data,
             "data.type: missing; valid: random, shared_prefix, "
             "synthetic");
        return;
    }
    if (r->data < 0) {
        yerr(f, tn ? tn : data,
             "data.type: '%s' unsupported; valid: random, shared_prefix, "
             "synthetic",
             type);
        return;
    }
    if (ystr(f, data, "path", "data") != NULL)
        ynote(f, yget(f, data, "path"),
              "data.path: %s data is generated; the path is not read", type);
    if (r->data != IP_SHARED_PREFIX) {
        ip_dist_read(f, data, "input_distribution", &r->in);
        ip_dist_read(f, data, "output_distribution", &r->outd);
        if (!yempty(yget(f, data, "shared_prefix")))
            ynote(f, yget(f, data, "shared_prefix"),
                  "data.shared_prefix: not read for data.type %s", type);
        return;
    }
    sp = ymap(f, data, "shared_prefix", "data");
    if (sp == NULL) {
        yerr(f, tn,
             "data.shared_prefix: missing; shared_prefix data needs "
             "num_groups, num_prompts_per_group, system_prompt_len, "
             "question_len and output_len");
        return;
    }
    ykeys(f, sp, "data.shared_prefix", ip_sp_keys);
    for (int i = 0; i < 5; i++)
        ynum(f, sp, ip_sp_keys[i], "data.shared_prefix",
             N_REQ | N_INT | (i == 2 ? N_NONNEG : N_POS), &r->sp[i]);
    if (ybool(f, sp, "enable_multi_turn_chat", "data.shared_prefix", &multi) ==
            GIVEN &&
        multi)
        yerr(f, yget(f, sp, "enable_multi_turn_chat"),
             "data.shared_prefix.enable_multi_turn_chat: multi-turn chat is "
             "unsupported; dsec's inference_perf workload is single turn");
    if (!yempty(yget(f, data, "input_distribution")) ||
        !yempty(yget(f, data, "output_distribution")))
        ynote(f, data,
              "data: input_distribution and output_distribution are not read "
              "for shared_prefix data");
}

static void ip_load_read(struct yfile *f, yaml_node_t *root, struct ip_run *r)
{
    static const char *const known[] = {"type",
                                        "interval",
                                        "stages",
                                        "sweep",
                                        "num_workers",
                                        "worker_max_concurrency",
                                        "worker_max_tcp_connections",
                                        "circuit_breakers",
                                        "request_timeout",
                                        NULL};
    static const char *const stage_keys[] = {"rate", "duration", NULL};
    yaml_node_t *load = ymap(f, root, "load", ""), *st, *n;
    const char *type;

    if (load == NULL) {
        yerr(f, f->root,
             "load: missing; expected inference-perf's load "
             "section");
        return;
    }
    ykeys(f, load, "load", known);
    type = ystr(f, load, "type", "load");
    n = yget(f, load, "type");
    if (type == NULL || strcmp(type, "constant") == 0)
        r->poisson = 0;
    else if (strcmp(type, "poisson") == 0)
        r->poisson = 1;
    else
        yerr(f, n, "load.type: '%s' unsupported; valid: constant, poisson",
             type);
    if (!yempty(n = yget(f, load, "sweep")))
        yerr(f, n,
             "load.sweep: sweep load is unsupported; the stages it "
             "would choose are known only after the run");
    if (!yempty(n = yget(f, load, "circuit_breakers")))
        yerr(f, n,
             "load.circuit_breakers: unsupported; a breaker ends the "
             "run on conditions dsec does not model");
    ynum(f, load, "request_timeout", "load", N_POS, &r->timeout_s);
    st = yget(f, load, "stages");
    if (st == NULL || sim_yaml_is_null(st) || st->type != YAML_SEQUENCE_NODE ||
        st->data.sequence.items.start == st->data.sequence.items.top) {
        yerr(f, st ? st : load,
             "load.stages: expected a list of {rate, duration}");
        return;
    }
    for (yaml_node_item_t *it = st->data.sequence.items.start;
         it < st->data.sequence.items.top; it++) {
        yaml_node_t *e = ynode(f, *it);
        char path[64];
        int i = r->nstages;

        snprintf(path, sizeof(path), "load.stages[%d]", i);
        if (i >= CAL_SCN_MAX_STAGES) {
            yerr(f, e, "load.stages: more than %d stages", CAL_SCN_MAX_STAGES);
            return;
        }
        if (e == NULL || e->type != YAML_MAPPING_NODE) {
            yerr(f, e, "%s: expected a mapping {rate, duration}", path);
            continue;
        }
        ykeys(f, e, path, stage_keys);
        ynum(f, e, "rate", path, N_REQ | N_POS, &r->rate[i]);
        ynum(f, e, "duration", path, N_REQ | N_POS, &r->dur[i]);
        r->nstages++;
    }
}

static void ip_config_read(struct yfile *f, struct ip_run *r)
{
    static const char *const known[] = {
        "api",     "data",   "load",      "metrics",          "report",
        "storage", "server", "tokenizer", "circuit_breakers", NULL};
    static const char *const api_keys[] = {"type", "streaming", "headers",
                                           NULL};
    static const char *const server_keys[] = {
        "type", "model_name", "base_url", "ignore_eos", "api_key", NULL};
    yaml_node_t *root = f->root, *api, *server, *n;
    const char *s;
    int streaming;

    ykeys(f, root, "", known);
    if (!yempty(n = yget(f, root, "circuit_breakers")))
        yerr(f, n,
             "circuit_breakers: unsupported; a breaker ends the run on "
             "conditions dsec does not model");
    api = ymap(f, root, "api", "");
    ykeys(f, api, "api", api_keys);
    s = ystr(f, api, "type", "api");
    if (s != NULL && strcmp(s, "completion") != 0 && strcmp(s, "chat") != 0)
        yerr(f, yget(f, api, "type"),
             "api.type: '%s' unsupported; valid: chat, completion", s);
    else if (s != NULL && strcmp(s, "chat") == 0)
        ynote(f, yget(f, api, "type"),
              "api.type: chat adds the chat template's tokens to each "
              "prompt, which the scenario does not count");
    if (ybool(f, api, "streaming", "api", &streaming) == GIVEN && !streaming)
        ynote(f, yget(f, api, "streaming"),
              "api.streaming: false: the run's time to first token is its "
              "end-to-end latency; dsec's is the first token's");
    ip_data_read(f, root, r);
    ip_load_read(f, root, r);
    server = ymap(f, root, "server", "");
    ykeys(f, server, "server", server_keys);
    s = ystr(f, server, "type", "server");
    if (s != NULL && strcmp(s, "vllm") != 0)
        ynote(f, yget(f, server, "type"),
              "server.type: '%s': dsec's engine is modelled on vLLM's", s);
    if (r->model == NULL &&
        (r->model = ystr(f, server, "model_name", "server")) != NULL)
        r->model_from = "results/config.yaml server.model_name";
    ybool(f, server, "ignore_eos", "server", &r->ignore_eos);
}

static void ip_write(FILE *o, const struct ip_run *r,
                     const struct cal_scn_opts *opt, const char *hf,
                     int have_exp)
{
    char a[40], b[40], c[40], e[40];
    char *name = yq(r->name), *model = r->model ? yq(r->model) : NULL;
    char *cmt, *dep;
    const char *exp = have_exp ? "exp-config.yaml" : NULL;

    fprintf(o,
            "# Converted by dsec-calib scenario from the inference-perf "
            "run %s.\n",
            name);
    fprintf(o,
            "# results/config.yaml is what inference-perf ran%s.\n"
            "# The comments say where each value came from.\n",
            have_exp ? ", exp-config.yaml\n# the vLLM server's settings" : "");
    emit(o, NULL, "name: %s", name);
    emit(o, NULL, "seed: 1");
    if (hf != NULL) {
        char *q = yq(hf);

        cmt = r->model ? xasprintf("--model-config; the run served %s (%s)",
                                   r->model, r->model_from)
                       : xstrdup("--model-config");
        emit(o, cmt, "model: {hf_config: %s}", q);
        free(cmt);
        free(q);
    }
    emit(o, "--gpu (inference-perf does not record the GPU)",
         "hardware: {gpu: %s}", opt->gpu);
    dep = xasprintf("%s%s%s%s%s%s%s", hf == NULL && model ? "model_path: " : "",
                    hf == NULL && model ? model : "",
                    hf == NULL && model && r->tp > 0 ? ", " : "",
                    r->tp > 0 ? "tp: " : "", r->tp > 0 ? fnum(a, r->tp) : "",
                    r->pp > 0 ? ", pp: " : "", r->pp > 0 ? fnum(b, r->pp) : "");
    cmt = xasprintf("%s%s%s", hf == NULL && model ? r->model_from : "",
                    hf == NULL && model ? "; " : "",
                    r->tp > 0 ? "exp-config.yaml tensor_parallelism"
                              : "tensor parallelism not recorded: dsec "
                                "derives it");
    if (dep[0] != '\0')
        emit(o, cmt, "deploy: {%s}", dep);
    else
        emit(o, NULL, "# deploy: %s", cmt);
    free(cmt);
    free(dep);
    emit(o, "one vLLM server", "cluster: {replicas: 1}");
    fprintf(o, "server:\n");
    if (r->mns > 0)
        emit(o, exp, "  max_num_seqs: %s", fnum(a, r->mns));
    else
        emit(o, NULL,
             "  # max_num_seqs not recorded: dsec's default (vLLM's "
             "rule)");
    if (r->mnbt > 0)
        emit(o, exp, "  max_num_batched_tokens: %s", fnum(a, r->mnbt));
    else
        emit(o, NULL,
             "  # max_num_batched_tokens not recorded: dsec's "
             "default (vLLM's)");
    if (r->max_model_len > 0)
        emit(o, exp, "  max_model_len: %s", fnum(a, r->max_model_len));
    else
        emit(o, NULL, "  # max_model_len not recorded: the model's context");
    emit(o,
         r->prefix >= 0 ? "exp-config.yaml enable_prefix_caching"
                        : "vLLM's default (V1 engine)",
         "  prefix_caching: %s", r->prefix == 0 ? "false" : "true");
    emit(o, r->block > 0 ? "exp-config.yaml block_size" : "vLLM's default",
         "  block_tokens: %s", r->block > 0 ? fnum(a, r->block) : "16");
    emit(o, r->gmu > 0 ? "exp-config.yaml" : "vLLM's default",
         "  gpu_memory_utilization: %s", r->gmu > 0 ? fnum(a, r->gmu) : "0.9");
    emit(o, "benchmarks report every request", "metrics: {warmup_fraction: 0}");
    fprintf(o, "workload:\n  inference_perf:\n    data:\n");
    emit(o, "results/config.yaml", "      type: %s", ip_data_names[r->data]);
    if (r->data == IP_SHARED_PREFIX) {
        char g[40];

        emit(o, NULL,
             "      shared_prefix: {num_groups: %s, num_prompts_per_group: "
             "%s, system_prompt_len: %s, question_len: %s, output_len: %s}",
             fnum(a, r->sp[0]), fnum(b, r->sp[1]), fnum(c, r->sp[2]),
             fnum(e, r->sp[3]), fnum(g, r->sp[4]));
    } else {
        const struct ip_dist *ds[2] = {&r->in, &r->outd};
        const char *dn[2] = {"input_distribution", "output_distribution"};

        for (int i = 0; i < 2; i++)
            emit(o, NULL, "      %s: {min: %s, max: %s, mean: %s, std: %s}",
                 dn[i], fnum(a, ds[i]->v[0]), fnum(b, ds[i]->v[1]),
                 fnum(c, ds[i]->v[2]), fnum(e, ds[i]->v[3]));
    }
    fprintf(o, "    load:\n");
    emit(o, NULL, "      type: %s", r->poisson ? "poisson" : "constant");
    fprintf(o, "      stages: [");
    for (int i = 0; i < r->nstages; i++)
        fprintf(o, "%s{rate: %s, duration: %s}", i ? ", " : "",
                fnum(a, r->rate[i]), fnum(b, r->dur[i]));
    fprintf(o, "]\n");
    emit(o,
         "assumed: inference-perf starts a stage about 2 s after the "
         "previous one drained",
         "      stage_gap: %s", IP_STAGE_GAP);
    emit(o,
         r->ignore_eos >= 0 ? "results/config.yaml server.ignore_eos"
                            : "server.ignore_eos not recorded: "
                              "inference-perf's default",
         "    ignore_eos: %s", r->ignore_eos == 1 ? "true" : "false");
    fprintf(o, "  client:\n");
    if (opt->timeout != NULL)
        emit(o, "--timeout", "    timeout: %s", opt->timeout);
    else if (r->timeout_s > 0)
        emit(o, "results/config.yaml load.request_timeout", "    timeout: %ss",
             fnum(a, r->timeout_s));
    else
        emit(o,
             "load.request_timeout is null: aiohttp's default total "
             "timeout (300 s)",
             "    timeout: %s", IP_TIMEOUT);
    free(name);
    free(model);
}

/* Converts the inference-perf run whose results/config.yaml is cfg_path
 * (owned), with exp-config.yaml at exp_path and profile.yaml at
 * profile_path (owned, NULL or absent files allowed). */
static int ip_convert(char *name, char *cfg_path, char *exp_path,
                      char *profile_path, const struct cal_scn_opts *opt,
                      const char *hf, FILE *out, struct cal__scn_info *info,
                      struct sim_diag *d)
{
    struct yfile cf, ef, pf;
    struct ip_run *r = xcalloc(1, sizeof(*r));
    int rc, have_exp = 0, have_profile = 0;

    r->name = name;
    r->tp = r->pp = r->max_model_len = r->mnbt = r->mns = r->block = -1;
    r->gmu = r->timeout_s = NAN;
    r->prefix = r->ignore_eos = -1;
    memset(&ef, 0, sizeof(ef));
    memset(&pf, 0, sizeof(pf));
    rc = yfile_open(&cf, cfg_path, d);
    if (rc == 0 && exp_path != NULL && file_kind(exp_path) == 'f') {
        have_exp = 1;
        rc = yfile_open(&ef, exp_path, d);
        exp_path = NULL;
        if (rc == 0)
            ip_exp_read(&ef, r);
    } else if (rc == 0) {
        sim_diag_add(d, SIM_SEV_NOTE, cfg_path, 0, 0,
                     "no exp-config.yaml beside results/: the vLLM server's "
                     "settings are dsec's defaults");
    }
    if (rc == 0)
        ip_config_read(&cf, r);
    if (rc == 0 && profile_path != NULL && file_kind(profile_path) == 'f') {
        have_profile = 1;
        if (yfile_open(&pf, profile_path, d) == 0)
            profile_notes(&pf, pf.root, &cf, cf.root, "");
        else
            rc = SIM_EPARSE;
        profile_path = NULL;
    }
    if (rc == 0 && sim_diag_errors(d) > 0)
        rc = SIM_EINVAL;
    if (rc == 0 && hf == NULL && r->model == NULL) {
        sim_diag_error(d, cfg_path, 0, 0,
                       "server.model_name: missing, and no --model-config: "
                       "the run names no model");
        rc = SIM_EINVAL;
    }
    if (rc == 0) {
        if (hf == NULL)
            sim_diag_add(d, SIM_SEV_NOTE, cfg_path, 0, 0,
                         "no --model-config: the scenario names the model by "
                         "deploy.model_path '%s', which dsec must know",
                         r->model);
        ip_write(out, r, opt, hf, have_exp);
        info->model = r->model ? xstrdup(r->model) : NULL;
        info->nstages = r->nstages;
        memcpy(info->rate_per_s, r->rate, sizeof(r->rate));
        /* With ignore_eos the server generates what was asked: the output
         * length, or the output distribution's mean. */
        if (r->ignore_eos == 1)
            info->output_tokens =
                r->data == IP_SHARED_PREFIX ? r->sp[4] : r->outd.v[2];
    }
    if (have_exp)
        yfile_close(&ef);
    if (have_profile)
        yfile_close(&pf);
    yfile_close(&cf);
    free(exp_path);
    free(profile_path);
    free(r->name);
    free(r);
    return rc;
}

/* ---- vllm bench serve ---- */

/* Writes "FILE:LINE:COL: error: json: MESSAGE" for byte offset off. */
static void json_syntax(struct sim_diag *d, const char *path, const char *buf,
                        size_t off, const char *msg)
{
    int line = 1, col = 1;

    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    sim_diag_error(d, path, line, col, "json: %s", msg);
}

json_object *cal__json_read(const char *path, struct sim_diag *d)
{
    struct json_tokener *tok;
    enum json_tokener_error err;
    json_object *root;
    size_t len, end;
    char *buf;

    /* sim_yaml_read_file() only reads: any text file will do. */
    buf = sim_yaml_read_file(path, CAL_SCN_MAX_JSON_BYTES, &len, d);
    if (buf == NULL)
        return NULL;
    if (len > INT_MAX) {
        sim_diag_error(d, path, 0, 0, "larger than %d bytes", INT_MAX);
        free(buf);
        return NULL;
    }
    tok = json_tokener_new();
    if (tok == NULL)
        sim_fatal("out of memory for the JSON tokener");
    /* Not strict: Python's json writes NaN for the statistics of a run in
     * which no request succeeded. */
    root = json_tokener_parse_ex(tok, buf, (int)len);
    err = json_tokener_get_error(tok);
    end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (root == NULL) {
        json_syntax(d, path, buf, end,
                    err == json_tokener_continue || err == json_tokener_success
                        ? "unexpected end of file"
                        : json_tokener_error_desc(err));
    } else {
        size_t i = end;

        while (i < len && strchr(" \t\r\n", buf[i]))
            i++;
        if (i < len) {
            json_syntax(d, path, buf, i, "unexpected text after the value");
            json_object_put(root);
            root = NULL;
        } else if (!json_object_is_type(root, json_type_object)) {
            json_syntax(d, path, buf, 0, "expected an object at the top");
            json_object_put(root);
            root = NULL;
        }
    }
    free(buf);
    return root;
}

json_object *cal__jget(json_object *obj, const char *key)
{
    const char *p = key;

    while (obj != NULL && *p != '\0') {
        size_t n = strcspn(p, ".[");

        if (n > 0) {
            json_object *v = NULL;
            char name[128];

            if (n >= sizeof(name) ||
                !json_object_is_type(obj, json_type_object))
                return NULL;
            memcpy(name, p, n);
            name[n] = '\0';
            if (!json_object_object_get_ex(obj, name, &v))
                return NULL;
            obj = v;
            p += n;
        } else if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);

            if (*end != ']' || i < 0 ||
                !json_object_is_type(obj, json_type_array) ||
                (size_t)i >= json_object_array_length(obj))
                return NULL;
            obj = json_object_array_get_idx(obj, (size_t)i);
            p = end + 1;
        } else {
            p++; /* the '.' between two steps */
        }
    }
    return obj;
}

/* cal__jnum() of the value v (NULL: absent), named key in messages. */
static int jnum_at(json_object *v, const char *key, const char *path, int flags,
                   int inf_ok, double *out, struct sim_diag *d)
{
    double x;

    if (v == NULL) {
        if (flags & N_REQ)
            sim_diag_error(d, path, 0, 0, "%s: missing; expected %s", key,
                           flags & N_INT ? "an integer" : "a number");
        return ABSENT;
    }
    if (json_object_is_type(v, json_type_int) ||
        json_object_is_type(v, json_type_double)) {
        x = json_object_get_double(v);
    } else if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        char *end;

        errno = 0;
        x = strtod(s, &end);
        if (end == s || *end != '\0' || errno != 0 || (isinf(x) && !inf_ok) ||
            isnan(x)) {
            sim_diag_error(d, path, 0, 0, "%s: expected a number, got '%s'",
                           key, s);
            return BAD;
        }
    } else {
        sim_diag_error(d, path, 0, 0, "%s: expected a number, got %s", key,
                       json_type_to_name(json_object_get_type(v)));
        return BAD;
    }
    if (isnan(x) || (isinf(x) && !(inf_ok && x > 0))) {
        sim_diag_error(d, path, 0, 0, "%s: expected a finite number", key);
        return BAD;
    }
    if ((flags & N_INT) && !isinf(x) && (x != floor(x) || fabs(x) > 1e15)) {
        sim_diag_error(d, path, 0, 0, "%s: expected an integer, got %g", key,
                       x);
        return BAD;
    }
    if (((flags & N_POS) && !(x > 0)) || ((flags & N_NONNEG) && x < 0)) {
        sim_diag_error(d, path, 0, 0, "%s: %g out of range %s", key, x,
                       flags & N_POS ? "(0, inf)" : "[0, inf)");
        return BAD;
    }
    *out = x;
    return GIVEN;
}

int cal__jnum(json_object *root, const char *key, const char *path, int flags,
              int inf_ok, double *out, struct sim_diag *d)
{
    return jnum_at(cal__jget(root, key), key, path, flags, inf_ok, out, d);
}

/* Mean, min and max of the token counts of array key. vllm bench records
 * 0 as the output length of a failed request: with skip_zero, zeros are
 * left out (a note counts them). */
static int jlens(json_object *root, const char *key, const char *path,
                 int skip_zero, double *mean, double *min, double *max,
                 struct sim_diag *d)
{
    json_object *a;
    size_t n, used = 0;
    double sum = 0;

    if (!json_object_object_get_ex(root, key, &a) || a == NULL)
        return ABSENT;
    if (!json_object_is_type(a, json_type_array) ||
        (n = json_object_array_length(a)) == 0) {
        sim_diag_error(d, path, 0, 0,
                       "%s: expected a non-empty list of token counts", key);
        return BAD;
    }
    *min = INFINITY;
    *max = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        double x;

        if (!json_object_is_type(e, json_type_int) ||
            (x = (double)json_object_get_int64(e)) < 0) {
            sim_diag_error(d, path, 0, 0,
                           "%s[%zu]: expected a token count (an integer >= "
                           "0)",
                           key, i);
            return BAD;
        }
        if (x == 0 && skip_zero)
            continue;
        used++;
        sum += x;
        *min = fmin(*min, x);
        *max = fmax(*max, x);
    }
    if (used == 0) {
        sim_diag_error(d, path, 0, 0,
                       "%s: every length is 0 (no request succeeded)", key);
        return BAD;
    }
    if (used < n)
        sim_diag_add(d, SIM_SEV_NOTE, path, 0, 0,
                     "%s: %zu of %zu lengths are 0 (failed requests) and are "
                     "left out",
                     key, n - used, n);
    *mean = sum / (double)used;
    return GIVEN;
}

/* The random_range_ratio r, rounded up to 1e-4, for which vLLM's random
 * dataset (lengths uniform in [L(1 - r), L(1 + r)]) covers min..max around
 * len. */
static double cover_ratio(double len, double min, double max)
{
    double r = fmax(len - min, max - len) / len;

    return ceil(r * 1e4 - 1e-9) / 1e4;
}

/* Writes the cluster, server and metrics lines of a run that does not
 * record the server's settings (vllm bench, GuideLLM). */
static void unrecorded_server(FILE *o)
{
    emit(o, "one vLLM server", "cluster: {replicas: 1}");
    fprintf(o, "server:\n");
    emit(o, NULL,
         "  # max_num_seqs, max_num_batched_tokens, max_model_len "
         "not recorded: dsec's defaults");
    emit(o, "vLLM's default (V1 engine)", "  prefix_caching: true");
    emit(o, "vLLM's default", "  block_tokens: 16");
    emit(o, "vLLM's default", "  gpu_memory_utilization: 0.9");
    emit(o, "benchmarks report every request", "metrics: {warmup_fraction: 0}");
}

/* Converts the vllm bench result at path; given, when not NULL, is its
 * parsed JSON (borrowed), else the file is read here. */
static int vb_convert(const char *path, json_object *given, char *name,
                      const struct cal_scn_opts *opt, const char *hf, FILE *o,
                      struct cal__scn_info *info, struct sim_diag *d)
{
    json_object *root = given ? given : cal__json_read(path, d), *v;
    double np = NAN, rate = NAN, burst = NAN, conc = NAN, inl = NAN, outl = NAN,
           ratio = NAN, x;
    double imean = NAN, imin = NAN, imax = NAN, omean = NAN, omin = NAN,
           omax = NAN;
    int have_ilens = 0, have_olens = 0, have_ratio, in_meta, out_meta;
    int rc = 0;
    const char *model = NULL, *dataset = NULL;
    char a[40], *qn, *qm;

    if (root == NULL) {
        free(name);
        return SIM_EPARSE;
    }
    cal__jnum(root, "num_prompts", path, N_REQ | N_INT | N_POS, 0, &np, d);
    if (!json_object_object_get_ex(root, "request_rate", &v) || v == NULL)
        sim_diag_error(d, path, 0, 0,
                       "request_rate: missing; expected a rate or \"inf\" "
                       "(is this a vllm bench serve --save-result file?)");
    else
        cal__jnum(root, "request_rate", path, N_POS, 1, &rate, d);
    if (cal__jnum(root, "burstiness", path, N_POS, 0, &burst, d) == ABSENT)
        burst = 1;
    cal__jnum(root, "max_concurrency", path, N_INT | N_POS, 0, &conc, d);
    if (json_object_object_get_ex(root, "model_id", &v) &&
        json_object_is_type(v, json_type_string))
        model = json_object_get_string(v);
    if (json_object_object_get_ex(root, "dataset_name", &v) &&
        json_object_is_type(v, json_type_string)) {
        dataset = json_object_get_string(v);
        if (strcmp(dataset, "random") != 0)
            sim_diag_error(d, path, 0, 0,
                           "dataset_name: '%s' unsupported; valid: random",
                           dataset);
    }
    if (json_object_object_get_ex(root, "ramp_up_strategy", &v) && v != NULL)
        sim_diag_error(d, path, 0, 0,
                       "ramp_up_strategy: a ramped request rate is "
                       "unsupported; dsec's vllm_bench workload has one rate");
    if (cal__jnum(root, "random_prefix_len", path, N_INT | N_NONNEG, 0, &x,
                  d) == GIVEN &&
        x > 0)
        sim_diag_error(d, path, 0, 0,
                       "random_prefix_len: a shared random prefix is "
                       "unsupported");
    in_meta = cal__jnum(root, "random_input_len", path, N_INT | N_POS, 0, &inl,
                        d) == GIVEN;
    out_meta = cal__jnum(root, "random_output_len", path, N_INT | N_POS, 0,
                         &outl, d) == GIVEN;
    have_ratio = cal__jnum(root, "random_range_ratio", path, N_NONNEG, 0,
                           &ratio, d) == GIVEN;
    if (have_ratio && ratio >= 1)
        sim_diag_error(d, path, 0, 0,
                       "random_range_ratio: %g out of range [0, 1)", ratio);
    have_ilens =
        jlens(root, "input_lens", path, 0, &imean, &imin, &imax, d) == GIVEN;
    have_olens =
        jlens(root, "output_lens", path, 1, &omean, &omin, &omax, d) == GIVEN;
    if (isnan(inl) && !have_ilens)
        sim_diag_error(d, path, 0, 0,
                       "input_lens: missing; without random_input_len "
                       "(--metadata) the lengths come from input_lens "
                       "(--save-detailed)");
    if (isnan(outl) && !have_olens)
        sim_diag_error(d, path, 0, 0,
                       "output_lens: missing; without random_output_len "
                       "(--metadata) the lengths come from output_lens "
                       "(--save-detailed)");
    if (sim_diag_errors(d) > 0) {
        rc = SIM_EINVAL;
        goto out;
    }
    if (isnan(inl))
        inl = fmax(1, round(imean));
    if (isnan(outl))
        outl = fmax(1, round(omean));
    if (!have_ratio) {
        ratio = 0;
        if (have_ilens)
            ratio = fmax(ratio, cover_ratio(inl, imin, imax));
        if (have_olens)
            ratio = fmax(ratio, cover_ratio(outl, omin, omax));
        if (ratio >= 1) {
            sim_diag_error(d, path, 0, 0,
                           "input_lens, output_lens: no random_range_ratio "
                           "below 1 covers lengths %g..%g and %g..%g around "
                           "their means",
                           imin, imax, omin, omax);
            rc = SIM_EINVAL;
            goto out;
        }
    }
    if (hf == NULL && model == NULL) {
        sim_diag_error(d, path, 0, 0,
                       "model_id: missing, and no --model-config: the run "
                       "names no model");
        rc = SIM_EINVAL;
        goto out;
    }
    if (hf == NULL)
        sim_diag_add(d, SIM_SEV_NOTE, path, 0, 0,
                     "no --model-config: the scenario names the model by "
                     "deploy.model_path '%s', which dsec must know",
                     model);
    qn = yq(name);
    qm = model ? yq(model) : NULL;
    fprintf(o,
            "# Converted by dsec-calib scenario from the vllm bench serve "
            "result %s.\n",
            qn);
    fprintf(o, "# The JSON records the load, not the server's settings: "
               "those are vLLM's\n# or dsec's defaults. The comments say "
               "where each value came from.\n");
    emit(o, NULL, "name: %s", qn);
    emit(o, NULL, "seed: 1");
    if (hf != NULL) {
        char *q = yq(hf), *c;

        c = model ? xasprintf("--model-config; the run served %s (model_id)",
                              model)
                  : xstrdup("--model-config");
        emit(o, c, "model: {hf_config: %s}", q);
        free(c);
        free(q);
    }
    emit(o, "--gpu (vllm bench does not record the GPU)", "hardware: {gpu: %s}",
         opt->gpu);
    if (hf == NULL && qm != NULL)
        emit(o, "model_id; tensor parallelism not recorded: dsec derives it",
             "deploy: {model_path: %s}", qm);
    else
        emit(o, NULL,
             "# deploy: tensor parallelism not recorded: dsec "
             "derives it");
    unrecorded_server(o);
    fprintf(o, "workload:\n  vllm_bench:\n");
    emit(o, NULL, "    num_prompts: %s", fnum(a, np));
    emit(o, NULL, "    request_rate: %s", isinf(rate) ? "inf" : fnum(a, rate));
    emit(o,
         json_object_object_get_ex(root, "burstiness", &v)
             ? NULL
             : "not recorded: vllm bench's default (Poisson arrivals)",
         "    burstiness: %s", fnum(a, burst));
    if (conc > 0)
        emit(o, NULL, "    max_concurrency: %s", fnum(a, conc));
    else
        emit(o, NULL, "    # max_concurrency: null (unbounded)");
    emit(o,
         dataset ? "dataset_name"
                 : "assumed: lengths as vLLM's random "
                   "dataset draws them",
         "    dataset: random");
    emit(o, in_meta ? "random_input_len (--metadata)" : "mean of input_lens",
         "    random_input_len: %s", fnum(a, inl));
    emit(o, out_meta ? "random_output_len (--metadata)" : "mean of output_lens",
         "    random_output_len: %s", fnum(a, outl));
    emit(o,
         have_ratio ? "random_range_ratio (--metadata)"
                    : "covers the min..max of the recorded lengths",
         "    random_range_ratio: %s", fnum(a, ratio));
    emit(o, "assumed: the JSON does not record --ignore-eos",
         "    ignore_eos: true");
    fprintf(o, "  client:\n");
    if (opt->timeout != NULL)
        emit(o, "--timeout", "    timeout: %s", opt->timeout);
    else
        emit(o, "vllm bench's aiohttp total timeout (6 h)", "    timeout: %s",
             VB_TIMEOUT);
    free(qn);
    free(qm);
    info->model = model ? xstrdup(model) : NULL;
    info->nstages = 1;
    info->rate_per_s[0] = isinf(rate) ? NAN : rate;
    /* Fixed only when --metadata says so: random_range_ratio 0. */
    info->output_tokens = out_meta && have_ratio && ratio == 0 ? outl : NAN;
out:
    if (given == NULL)
        json_object_put(root);
    free(name);
    return rc;
}

/* name with a trailing ".json" removed. Caller frees. */
static char *strip_json(char *name)
{
    size_t n = strlen(name);

    if (n > 5 && strcmp(name + n - 5, ".json") == 0)
        name[n - 5] = '\0';
    return name;
}

/* ---- GuideLLM ---- */

/* GuideLLM's request timeout when GUIDELLM__REQUEST_TIMEOUT is not set
 * (its settings.request_timeout, 5 min); the report does not record it. */
#define GL_TIMEOUT "300s"

/* GuideLLM's constant rate sends at even gaps. workload.vllm_bench's most
 * regular gaps are those of its largest burstiness (the parameter row's
 * bound): gamma gaps with a CV of 1/sqrt(1e6) = 0.001. */
#define GL_CONSTANT_BURSTINESS "1000000"

/* The scheduling strategies (args.strategy.type_) of GuideLLM v0.3. */
enum gl_kind { GL_SYNC, GL_CONCURRENT, GL_THROUGHPUT, GL_CONSTANT, GL_POISSON };
static const char *const gl_kinds[] = {
    "synchronous", "concurrent", "throughput", "constant", "poisson", NULL};

/* The keys of GuideLLM's synthetic data config (SyntheticDatasetConfig). */
static const char *const gl_data_keys[] = {"prefix_tokens",
                                           "prompt_tokens",
                                           "prompt_tokens_stdev",
                                           "prompt_tokens_min",
                                           "prompt_tokens_max",
                                           "output_tokens",
                                           "output_tokens_stdev",
                                           "output_tokens_min",
                                           "output_tokens_max",
                                           "samples",
                                           "source",
                                           NULL};

/* "benchmarks[index].rest" into key (256 bytes). */
static const char *gl_key(char *key, int index, const char *rest)
{
    snprintf(key, 256, "benchmarks[%d].%s", index, rest);
    return key;
}

int cal__guidellm_counts(json_object *report, int index, const char *path,
                         double *ok, double *errored, double *incomplete,
                         struct sim_diag *d)
{
    static const char *const where[] = {"request_totals",
                                        "run_stats.requests_made"};
    double *out[3] = {ok, errored, incomplete};
    static const char *const names[3] = {"successful", "errored", "incomplete"};
    char key[256], k2[300];
    int bad = 0;

    for (int w = 0; w < 2; w++) {
        gl_key(key, index, where[w]);
        if (!json_object_is_type(cal__jget(report, key), json_type_object))
            continue;
        for (int i = 0; i < 3; i++) {
            snprintf(k2, sizeof(k2), "%s.%s", key, names[i]);
            bad |= cal__jnum(report, k2, path, N_REQ | N_INT | N_NONNEG, 0,
                             out[i], d) != GIVEN;
        }
        return bad ? SIM_EINVAL : 0;
    }
    sim_diag_error(d, path, 0, 0,
                   "%s: missing; expected the counts of successful, errored "
                   "and incomplete requests (or run_stats.requests_made)",
                   gl_key(key, index, "request_totals"));
    return SIM_EINVAL;
}

/* The synthetic data config of benchmark index: request_loader.data as an
 * object, or as the string --data took: JSON text, or KEY=VALUE pairs
 * separated by commas. Returns a new object (caller puts) or NULL with
 * the error in d. */
static json_object *gl_data(json_object *report, int index, const char *path,
                            struct sim_diag *d)
{
    char key[256];
    json_object *v =
        cal__jget(report, gl_key(key, index, "request_loader.data"));
    json_object *o;
    const char *s;
    char *copy, *save = NULL;

    if (v == NULL) {
        sim_diag_error(d, path, 0, 0,
                       "%s: missing; expected GuideLLM's synthetic data "
                       "config (prompt_tokens=N,output_tokens=N)",
                       key);
        return NULL;
    }
    if (json_object_is_type(v, json_type_object))
        return json_object_get(v);
    if (!json_object_is_type(v, json_type_string)) {
        sim_diag_error(d, path, 0, 0,
                       "%s: expected synthetic data as a string or object, "
                       "got %s",
                       key, json_type_to_name(json_object_get_type(v)));
        return NULL;
    }
    s = json_object_get_string(v);
    while (*s == ' ')
        s++;
    if (*s == '{') {
        o = json_tokener_parse(s);
        if (o == NULL || !json_object_is_type(o, json_type_object)) {
            json_object_put(o);
            sim_diag_error(d, path, 0, 0, "%s: not a JSON object: '%s'", key,
                           s);
            return NULL;
        }
        return o;
    }
    o = json_object_new_object();
    copy = xstrdup(s);
    for (char *t = strtok_r(copy, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '='), *end;
        double x;

        if (eq == NULL || eq == t) {
            sim_diag_error(d, path, 0, 0,
                           "%s: '%s' is not synthetic data (KEY=VALUE pairs "
                           "such as prompt_tokens=256,output_tokens=128); "
                           "the lengths of a dataset file or hub dataset are "
                           "not known",
                           key, s);
            json_object_put(o);
            o = NULL;
            break;
        }
        *eq = '\0';
        errno = 0;
        x = strtod(eq + 1, &end);
        if (end != eq + 1 && *end == '\0' && errno == 0)
            json_object_object_add(o, t, json_object_new_double(x));
        else
            json_object_object_add(o, t, json_object_new_string(eq + 1));
    }
    free(copy);
    return o;
}

/* A length of the data config: NAME_tokens (mean or value), its stdev,
 * min and max (NAN when not given). */
struct gl_len {
    double tokens, sd, min, max;
};

/* Reads the NAME_tokens keys of data (named where) into l. */
static void gl_len_read(json_object *data, const char *where, const char *name,
                        const char *path, struct gl_len *l, struct sim_diag *d)
{
    static const char *const sfx[4] = {"", "_stdev", "_min", "_max"};
    static const int flags[4] = {N_REQ | N_INT | N_POS, N_NONNEG, N_INT | N_POS,
                                 N_INT | N_POS};
    double *out[4] = {&l->tokens, &l->sd, &l->min, &l->max};

    l->tokens = l->sd = l->min = l->max = NAN;
    for (int i = 0; i < 4; i++) {
        char k[64], full[320];

        snprintf(k, sizeof(k), "%s_tokens%s", name, sfx[i]);
        snprintf(full, sizeof(full), "%s.%s", where, k);
        jnum_at(cal__jget(data, k), full, path, flags[i], 0, out[i], d);
    }
    if (!isnan(l->min) && !isnan(l->max) && l->min > l->max)
        sim_diag_error(d, path, 0, 0,
                       "%s.%s_tokens_min: %g more than %s_max %g", where, name,
                       l->min, name, l->max);
}

/* Whether l is one length: no spread. */
static int gl_fixed(const struct gl_len *l)
{
    return isnan(l->sd) || l->sd == 0;
}

/* Writes "    KEY: {dist: ...}" for dataset lengths. */
static void gl_len_write(FILE *o, const char *key, const char *src,
                         const struct gl_len *l)
{
    char a[40], b[40], c[40];

    if (gl_fixed(l)) {
        emit(o, src, "    %s: {dist: fixed, value: %s}", key,
             fnum(a, l->tokens));
    } else if (!isnan(l->max)) {
        emit(o, "approximation: GuideLLM draws a normal clipped to [min, max]",
             "    %s: {dist: lognormal, mean: %s, sd: %s, max: %s}", key,
             fnum(a, l->tokens), fnum(b, l->sd), fnum(c, l->max));
    } else {
        emit(o, "approximation: GuideLLM draws a normal of this mean and sd",
             "    %s: {dist: lognormal, mean: %s, sd: %s}", key,
             fnum(a, l->tokens), fnum(b, l->sd));
    }
}

static int gl_convert(const char *path, json_object *report, int index,
                      char *name, const struct cal_scn_opts *opt,
                      const char *hf, FILE *o, struct cal__scn_info *info,
                      struct sim_diag *d)
{
    char key[320], a[40], b[40], where[256];
    json_object *data = NULL, *v;
    const char *type = NULL, *model = NULL;
    double ok = NAN, err = NAN, inc = NAN, rate = NAN, conc = NAN, n,
           prefix = 0;
    struct gl_len in, out;
    int kind = -1, burst = 0, rc = 0;
    char *qn = NULL, *qm = NULL, *label = NULL;

    gl_key(key, index, "args.strategy");
    if (!json_object_is_type(cal__jget(report, key), json_type_object)) {
        sim_diag_error(d, path, 0, 0,
                       "%s: missing; expected the benchmark's scheduling "
                       "strategy (a GuideLLM v0.3 report)",
                       key);
        rc = SIM_EINVAL;
        goto out;
    }
    v = cal__jget(report, gl_key(key, index, "args.strategy.type_"));
    if (v == NULL || !json_object_is_type(v, json_type_string)) {
        sim_diag_error(d, path, 0, 0,
                       "%s: missing; expected synchronous, concurrent, "
                       "throughput, constant or poisson",
                       key);
    } else {
        type = json_object_get_string(v);
        for (int i = 0; gl_kinds[i] != NULL; i++)
            if (strcmp(type, gl_kinds[i]) == 0)
                kind = i;
        if (kind < 0)
            sim_diag_error(d, path, 0, 0,
                           "%s: '%s' unsupported; valid: synchronous, "
                           "concurrent, throughput, constant, poisson",
                           key, type);
    }
    if (kind == GL_CONCURRENT)
        cal__jnum(report, gl_key(key, index, "args.strategy.streams"), path,
                  N_REQ | N_INT | N_POS, 0, &conc, d);
    if (kind == GL_CONSTANT || kind == GL_POISSON) {
        cal__jnum(report, gl_key(key, index, "args.strategy.rate"), path,
                  N_REQ | N_POS, 0, &rate, d);
        v = cal__jget(report,
                      gl_key(key, index, "args.strategy.initial_burst"));
        burst = v != NULL && json_object_is_type(v, json_type_boolean) &&
                json_object_get_boolean(v);
    }
    if (kind == GL_THROUGHPUT || kind == GL_CONSTANT || kind == GL_POISSON)
        cal__jnum(report, gl_key(key, index, "args.strategy.max_concurrency"),
                  path, N_INT | N_POS, 0, &conc, d);
    if (kind == GL_SYNC)
        conc = 1;
    if (cal__guidellm_counts(report, index, path, &ok, &err, &inc, d) == 0 &&
        ok + err + inc < 1)
        sim_diag_error(d, path, 0, 0, "%s: no request was sent",
                       gl_key(key, index, "request_totals"));
    data = gl_data(report, index, path, d);
    gl_key(where, index, "request_loader.data");
    in.tokens = out.tokens = NAN;
    if (data != NULL) {
        json_object_object_foreach(data, k, val)
        {
            int known = 0;

            (void)val;
            for (int i = 0; gl_data_keys[i] != NULL; i++)
                known |= strcmp(k, gl_data_keys[i]) == 0;
            if (!known)
                sim_diag_error(d, path, 0, 0,
                               "%s.%s: unsupported setting; known: "
                               "prefix_tokens, prompt_tokens, "
                               "prompt_tokens_stdev, prompt_tokens_min, "
                               "prompt_tokens_max, output_tokens, "
                               "output_tokens_stdev, output_tokens_min, "
                               "output_tokens_max, samples, source",
                               where, k);
        }
        gl_len_read(data, where, "prompt", path, &in, d);
        gl_len_read(data, where, "output", path, &out, d);
        snprintf(key, sizeof(key), "%s.prefix_tokens", where);
        jnum_at(cal__jget(data, "prefix_tokens"), key, path, N_INT | N_NONNEG,
                0, &prefix, d);
        if (prefix > 0 && (!gl_fixed(&in) || !gl_fixed(&out)))
            sim_diag_error(d, path, 0, 0,
                           "%s: a shared prefix with spread lengths is "
                           "unsupported; dsec's vllm_bench has a prefix only "
                           "with its random dataset (fixed lengths here)",
                           key);
    }
    v = cal__jget(report, gl_key(key, index, "worker.backend_model"));
    if (v != NULL && json_object_is_type(v, json_type_string))
        model = json_object_get_string(v);
    if (sim_diag_errors(d) > 0) {
        rc = SIM_EINVAL;
        goto out;
    }
    if (hf == NULL && model == NULL) {
        sim_diag_error(d, path, 0, 0,
                       "%s: missing, and no --model-config: the run names no "
                       "model",
                       gl_key(key, index, "worker.backend_model"));
        rc = SIM_EINVAL;
        goto out;
    }
    if (hf == NULL)
        sim_diag_add(d, SIM_SEV_NOTE, path, 0, 0,
                     "no --model-config: the scenario names the model by "
                     "deploy.model_path '%s', which dsec must know",
                     model);
    if (burst)
        sim_diag_add(d, SIM_SEV_NOTE, path, 0, 0,
                     "%s: GuideLLM's initial burst is not modelled; the "
                     "scenario's arrivals keep the rate from the start",
                     gl_key(key, index, "args.strategy.initial_burst"));
    if (!gl_fixed(&in) || !gl_fixed(&out))
        sim_diag_add(d, SIM_SEV_NOTE, path, 0, 0,
                     "%s: GuideLLM draws the lengths from a normal clipped "
                     "to [min, max]; the scenario has lognormals of the same "
                     "mean and sd (capped at max)",
                     where);
    qm = xstrdup(name);
    label = xasprintf("%s-%d", strip_json(qm), index);
    free(qm);
    qn = yq(label);
    qm = model ? yq(model) : NULL;
    fprintf(o,
            "# Converted by dsec-calib import from benchmark %d (%s) of the\n"
            "# GuideLLM report %s. The report records the load, not the\n"
            "# server's settings: those are vLLM's or dsec's defaults.\n"
            "# The comments say where each value came from.\n",
            index, type, name);
    emit(o, NULL, "name: %s", qn);
    emit(o, NULL, "seed: 1");
    if (hf != NULL) {
        char *q = yq(hf), *c;

        c = model ? xasprintf("--model-config; the run served %s "
                              "(worker.backend_model)",
                              model)
                  : xstrdup("--model-config");
        emit(o, c, "model: {hf_config: %s}", q);
        free(c);
        free(q);
    }
    emit(o, "--gpu (GuideLLM does not record the GPU)", "hardware: {gpu: %s}",
         opt->gpu);
    if (hf == NULL)
        emit(o,
             "worker.backend_model; tensor parallelism not recorded: dsec "
             "derives it",
             "deploy: {model_path: %s}", qm);
    else
        emit(o, NULL,
             "# deploy: tensor parallelism not recorded: dsec "
             "derives it");
    unrecorded_server(o);
    fprintf(o, "workload:\n  vllm_bench:\n");
    n = ok + err + inc;
    emit(o, "request_totals: successful + errored + incomplete",
         "    num_prompts: %s", fnum(a, n));
    switch (kind) {
    case GL_SYNC:
        emit(o,
             "synchronous: one request at a time, each sent when the "
             "last ended",
             "    request_rate: inf");
        emit(o, NULL, "    max_concurrency: 1");
        break;
    case GL_CONCURRENT:
        emit(o,
             "concurrent: a fixed number of streams, each sending its "
             "next request when the last ended",
             "    request_rate: inf");
        emit(o, "args.strategy.streams", "    max_concurrency: %s",
             fnum(a, conc));
        break;
    case GL_THROUGHPUT:
        emit(o, "throughput: every request at once", "    request_rate: inf");
        if (conc > 0)
            emit(o, "args.strategy.max_concurrency", "    max_concurrency: %s",
                 fnum(a, conc));
        break;
    default:
        emit(o, "args.strategy.rate", "    request_rate: %s", fnum(a, rate));
        if (kind == GL_CONSTANT)
            emit(o,
                 "constant: even gaps; dsec's most regular gamma gaps "
                 "(CV 0.001)",
                 "    burstiness: %s", GL_CONSTANT_BURSTINESS);
        else
            emit(o, "poisson: exponential gaps", "    burstiness: 1");
        if (conc > 0)
            emit(o, "args.strategy.max_concurrency", "    max_concurrency: %s",
                 fnum(a, conc));
        break;
    }
    if (gl_fixed(&in) && gl_fixed(&out)) {
        emit(o, "request_loader.data: fixed lengths", "    dataset: random");
        emit(o, "request_loader.data prompt_tokens", "    random_input_len: %s",
             fnum(a, in.tokens));
        emit(o, "request_loader.data output_tokens",
             "    random_output_len: %s", fnum(b, out.tokens));
        emit(o, "no stdev: every request alike", "    random_range_ratio: 0");
        if (prefix > 0)
            emit(o, "request_loader.data prefix_tokens",
                 "    random_prefix_len: %s", fnum(a, prefix));
    } else {
        emit(o, "request_loader.data: lengths with a spread",
             "    dataset: lengths");
        gl_len_write(o, "prompt_tokens", "request_loader.data prompt_tokens",
                     &in);
        gl_len_write(o, "output_tokens", "request_loader.data output_tokens",
                     &out);
    }
    emit(o,
         "GuideLLM asks for exactly output_tokens (max_tokens with "
         "ignore_eos)",
         "    ignore_eos: true");
    fprintf(o, "  client:\n");
    if (opt->timeout != NULL)
        emit(o, "--timeout", "    timeout: %s", opt->timeout);
    else
        emit(o,
             "assumed: GuideLLM's default request timeout (300 s); the "
             "report does not record it",
             "    timeout: %s", GL_TIMEOUT);
    info->model = model ? xstrdup(model) : NULL;
    info->nstages = 1;
    info->rate_per_s[0] =
        kind == GL_CONSTANT || kind == GL_POISSON ? rate : NAN;
    info->output_tokens = gl_fixed(&out) ? out.tokens : NAN;
out:
    json_object_put(data);
    free(qn);
    free(qm);
    free(label);
    free(name);
    return rc;
}

/* ---- the dispatcher ---- */

/* Converts the inference-perf folder run: an experiment folder (holding
 * results/config.yaml) or its results/ folder (holding config.yaml, with
 * exp-config.yaml and profile.yaml one level up). */
static int folder_convert(const char *run, const struct cal_scn_opts *o,
                          const char *hf, FILE *mem, struct cal__scn_info *info,
                          struct sim_diag *d)
{
    char *dir = xstrdup(run), *p, *up, *name, *slash;
    size_t n = strlen(dir);
    int rc;

    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    p = xasprintf("%s/results/config.yaml", dir);
    if (file_kind(p) == 'f') {
        name = real_basename(dir);
        rc = ip_convert(name ? name : xstrdup(dir), p,
                        xasprintf("%s/exp-config.yaml", dir),
                        xasprintf("%s/profile.yaml", dir), o, hf, mem, info, d);
        free(dir);
        return rc;
    }
    free(p);
    p = xasprintf("%s/config.yaml", dir);
    if (file_kind(p) != 'f') {
        free(p);
        sim_diag_error(d, dir, 0, 0,
                       "expected an inference-perf experiment folder "
                       "(exp-config.yaml, results/config.yaml), its results/ "
                       "folder (config.yaml), or a vllm bench serve result "
                       "JSON");
        free(dir);
        return SIM_EIO;
    }
    /* The parent: lexically when the folder is named results, as it
     * always is, else through "..". */
    slash = strrchr(dir, '/');
    if (strcmp(slash ? slash + 1 : dir, "results") == 0)
        up = slash == NULL  ? xstrdup(".")
             : slash == dir ? xstrdup("/")
                            : xstrndup(dir, (size_t)(slash - dir));
    else
        up = xasprintf("%s/..", dir);
    name = real_basename(up);
    rc = ip_convert(name ? name : xstrdup(up), p,
                    xasprintf("%s/exp-config.yaml", up),
                    xasprintf("%s/profile.yaml", up), o, hf, mem, info, d);
    free(up);
    free(dir);
    return rc;
}

/* Checks the --model-config of o and sets *hf to the text written as
 * model.hf_config (caller frees; NULL without one). Returns 0 or
 * SIM_EINVAL. */
static int model_hf(const struct cal_scn_opts *o, char **hf, struct sim_diag *d)
{
    struct arch_spec *a = NULL;
    char why[512];

    *hf = NULL;
    if (o->model_config == NULL)
        return 0;
    if (arch_hf_load(o->model_config, &a, why, sizeof(why)) != 0) {
        /* why is "FILE[:LINE:COL]: error: WHAT". */
        char *e = strstr(why, ": error: ");

        if (e != NULL) {
            *e = '\0';
            sim_diag_error(d, why, 0, 0, "--model-config: %s", e + 9);
        } else {
            sim_diag_error(d, o->model_config, 0, 0, "--model-config: %s", why);
        }
        return SIM_EINVAL;
    }
    arch_hf_free(a);
    if (o->model_config_name != NULL) {
        *hf = xstrdup(o->model_config_name);
        return 0;
    }
    /* Absolute, so the scenario works wherever it is saved (the loader
     * reads hf_config relative to the scenario file). */
    *hf = realpath(o->model_config, NULL);
    if (*hf == NULL)
        *hf = xstrdup(o->model_config);
    return 0;
}

/* One input to convert: an inference-perf folder ('d'), a vllm bench
 * result file ('f', root its JSON or NULL) or benchmark index of a
 * GuideLLM report ('g', root the report). */
struct conv {
    int kind;
    const char *run;
    json_object *root;
    int index;
};

/* Converts c into a memory stream and copies it to out when the whole
 * input converted. info is cleared first. */
static int convert(const struct conv *c, const struct cal_scn_opts *o,
                   FILE *out, struct cal__scn_info *info, struct sim_diag *d)
{
    char *buf = NULL, *hf = NULL, *name;
    size_t len = 0;
    FILE *mem;
    int rc;

    memset(info, 0, sizeof(*info));
    info->output_tokens = NAN;
    rc = model_hf(o, &hf, d);
    if (rc != 0)
        return rc;
    mem = open_memstream(&buf, &len);
    if (mem == NULL)
        sim_fatal("open_memstream: %s", strerror(errno));
    switch (c->kind) {
    case 'f':
        name = real_basename(c->run);
        rc = vb_convert(c->run, c->root,
                        strip_json(name ? name : xstrdup(c->run)), o, hf, mem,
                        info, d);
        break;
    case 'g':
        name = real_basename(c->run);
        rc = gl_convert(c->run, c->root, c->index,
                        name ? name : xstrdup(c->run), o, hf, mem, info, d);
        break;
    default:
        rc = folder_convert(c->run, o, hf, mem, info, d);
        break;
    }
    fclose(mem);
    if (rc == 0)
        fwrite(buf, 1, len, out);
    free(buf);
    free(hf);
    return rc;
}

void cal__scn_info_fini(struct cal__scn_info *info)
{
    free(info->model);
    memset(info, 0, sizeof(*info));
}

int cal__scenario_convert(const char *run, json_object *root,
                          const struct cal_scn_opts *o, FILE *out,
                          struct cal__scn_info *info, struct sim_diag *d)
{
    struct conv c = {file_kind(run), run, root, 0};

    memset(info, 0, sizeof(*info));
    if (c.kind == 0) {
        sim_diag_error(d, run, 0, 0, "cannot open: %s", strerror(errno));
        return SIM_EIO;
    }
    return convert(&c, o, out, info, d);
}

int cal__scenario_guidellm(const char *path, json_object *report, int index,
                           const struct cal_scn_opts *o, FILE *out,
                           struct cal__scn_info *info, struct sim_diag *d)
{
    struct conv c = {'g', path, report, index};

    return convert(&c, o, out, info, d);
}

int cal_scenario_convert(const char *run, const struct cal_scn_opts *o,
                         FILE *out, struct sim_diag *d)
{
    struct cal__scn_info info;
    int rc = cal__scenario_convert(run, NULL, o, out, &info, d);

    cal__scn_info_fini(&info);
    return rc;
}
