/*
 * The GPU registry: every entry, sorted by name. To add a GPU, write
 * models/gpu/NAME.c with a const struct gpu_spec gpu_NAME citing its
 * sources, declare it below and insert it in order; the physics test checks
 * that the table stays sorted and unique.
 */
#include "models/gpu/gpu.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "sim/xalloc.h"

extern const struct gpu_spec gpu_b200;
extern const struct gpu_spec gpu_h100;
extern const struct gpu_spec gpu_h200;

const struct gpu_spec *const gpu_table[] = {
    &gpu_b200,
    &gpu_h100,
    &gpu_h200,
    NULL,
};

const struct gpu_spec *gpu_find(const char *name)
{
    size_t i;

    if (name == NULL)
        return NULL;
    /* Linear: the table has a handful of entries. */
    for (i = 0; gpu_table[i] != NULL; i++) {
        if (strcasecmp(gpu_table[i]->name, name) == 0)
            return gpu_table[i];
    }
    return NULL;
}

char *gpu_names(void)
{
    size_t i, len = 1;
    char *s;

    for (i = 0; gpu_table[i] != NULL; i++)
        len += strlen(gpu_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (i = 0; gpu_table[i] != NULL; i++) {
        if (i > 0)
            strcat(s, ", ");
        strcat(s, gpu_table[i]->name);
    }
    return s;
}
