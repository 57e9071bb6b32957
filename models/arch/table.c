/*
 * The architecture registry: every entry, sorted by name, with exact and
 * path lookups. To add a model, write models/arch/NAME.c with a const
 * struct arch_spec citing its config, declare it below and insert it in
 * order; the physics test checks sortedness, uniqueness and summaries.
 */
#include "models/arch/arch.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

extern const struct arch_spec arch_deepseek_v3;
extern const struct arch_spec arch_deepseek_v3_2;
extern const struct arch_spec arch_llama_2_70b;
extern const struct arch_spec arch_llama_3_1_405b;
extern const struct arch_spec arch_llama_3_1_70b;
extern const struct arch_spec arch_llama_3_1_8b;
extern const struct arch_spec arch_qwen2_5_72b;
extern const struct arch_spec arch_qwen3_235b_a22b;
extern const struct arch_spec arch_qwen3_32b;

const struct arch_spec *const arch_table[] = {
    &arch_deepseek_v3,   &arch_deepseek_v3_2,
    &arch_llama_2_70b,   &arch_llama_3_1_405b,
    &arch_llama_3_1_70b, &arch_llama_3_1_8b,
    &arch_qwen2_5_72b,   &arch_qwen3_235b_a22b,
    &arch_qwen3_32b,     NULL,
};

/* Publisher words that Hugging Face repository names put before the model
 * name ("Meta-Llama-3.1-8B"), normalised. */
static const char *const vendor_prefixes[] = {"meta", NULL};

const struct arch_spec *arch_find(const char *name)
{
    size_t i;

    if (name == NULL)
        return NULL;
    for (i = 0; arch_table[i] != NULL; i++) {
        if (strcasecmp(arch_table[i]->name, name) == 0)
            return arch_table[i];
    }
    return NULL;
}

/* Writes the lower-cased letters and digits of s[0..n) to a new string.
 * Caller frees with free(). */
static char *normalise(const char *s, size_t n)
{
    char *out = xmalloc(n + 1);
    size_t i, j = 0;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c))
            out[j++] = (char)tolower(c);
    }
    out[j] = '\0';
    return out;
}

/* Whether key is a prefix of base, or of base less a vendor prefix. */
static int matches(const char *base, const char *key)
{
    size_t n = strlen(key), i;

    if (strncmp(base, key, n) == 0)
        return 1;
    for (i = 0; vendor_prefixes[i] != NULL; i++) {
        size_t v = strlen(vendor_prefixes[i]);

        if (strncmp(base, vendor_prefixes[i], v) == 0 &&
            strncmp(base + v, key, n) == 0)
            return 1;
    }
    return 0;
}

const struct arch_spec *arch_find_path(const char *path)
{
    const struct arch_spec *best = NULL;
    size_t best_len = 0, end, start, i;
    char *base;

    if (path == NULL)
        return NULL;
    /* The last non-empty component: skip trailing slashes first. */
    end = strlen(path);
    while (end > 0 && path[end - 1] == '/')
        end--;
    start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    base = normalise(path + start, end - start);
    if (base[0] == '\0') {
        free(base);
        return NULL;
    }
    for (i = 0; arch_table[i] != NULL; i++) {
        const char *name = arch_table[i]->name;
        char *key = normalise(name, strlen(name));
        size_t n = strlen(key);

        if (n > best_len && matches(base, key)) {
            best = arch_table[i];
            best_len = n;
        }
        free(key);
    }
    free(base);
    return best;
}

char *arch_names(void)
{
    size_t i, len = 1;
    char *s;

    for (i = 0; arch_table[i] != NULL; i++)
        len += strlen(arch_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (i = 0; arch_table[i] != NULL; i++) {
        if (i > 0)
            strcat(s, ", ");
        strcat(s, arch_table[i]->name);
    }
    return s;
}
