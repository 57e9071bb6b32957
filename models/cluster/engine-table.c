/* The server-engine registry: one entry per file, name-sorted. */
#include <stdlib.h>
#include <string.h>

#include "models/cluster/engine.h"
#include "base/xalloc.h"

extern const struct cl_engine cl__engine_abstract;
extern const struct cl_engine cl__engine_llm;

const struct cl_engine *const cl__engine_table[] = {
    &cl__engine_abstract,
    &cl__engine_llm,
    NULL,
};

const struct cl_engine *cl__engine_for(int kind)
{
    for (int i = 0; cl__engine_table[i] != NULL; i++)
        if (cl__engine_table[i]->kind == kind)
            return cl__engine_table[i];
    return NULL;
}

char *cl__engine_names(void)
{
    size_t len = 1;
    char *s;

    for (int i = 0; cl__engine_table[i] != NULL; i++)
        len += strlen(cl__engine_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (int i = 0; cl__engine_table[i] != NULL; i++) {
        if (i > 0)
            strcat(s, ", ");
        strcat(s, cl__engine_table[i]->name);
    }
    return s;
}
