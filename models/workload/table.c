/* The workload-format registry: one entry per file, name-sorted. */
#include <stdlib.h>
#include <string.h>

#include "models/workload/workload-int.h"
#include "base/xalloc.h"

extern const struct wl__format wl__format_azure;
extern const struct wl__format wl__format_burstgpt;
extern const struct wl__format wl__format_inference_perf;
extern const struct wl__format wl__format_mooncake;
extern const struct wl__format wl__format_servegen;
extern const struct wl__format wl__format_sessions;
extern const struct wl__format wl__format_synthetic;
extern const struct wl__format wl__format_vllm_bench;

const struct wl__format *const wl__format_table[] = {
    &wl__format_azure,     &wl__format_burstgpt,   &wl__format_inference_perf,
    &wl__format_mooncake,  &wl__format_servegen,   &wl__format_sessions,
    &wl__format_synthetic, &wl__format_vllm_bench, NULL,
};

const struct wl__format *wl__format_for(const struct cl_workload *cfg)
{
    /* The entries' matches are disjoint; O(entries). */
    for (int i = 0; wl__format_table[i] != NULL; i++)
        if (wl__format_table[i]->ops->match(cfg))
            return wl__format_table[i];
    return NULL;
}

char *wl__format_names(unsigned flags)
{
    size_t len = 1;
    char *s;

    for (int i = 0; wl__format_table[i] != NULL; i++)
        if ((wl__format_table[i]->flags & flags) == flags)
            len += strlen(wl__format_table[i]->name) + 2;
    s = xmalloc(len);
    s[0] = '\0';
    for (int i = 0; wl__format_table[i] != NULL; i++) {
        if ((wl__format_table[i]->flags & flags) != flags)
            continue;
        if (s[0] != '\0')
            strcat(s, ", ");
        strcat(s, wl__format_table[i]->name);
    }
    return s;
}
