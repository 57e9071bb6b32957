/* Policy plug-ins: shared objects loaded with dlopen, by dsec (a scenario's
 * policy.plugin) and by dsec-scaler (its config's policy.plugin) alike. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/policy/policy.h"
#include "base/xalloc.h"

const struct pol_entry *pol_plugin_load(const char *path, const char *dir,
                                        char *why, size_t len)
{
    const struct dsec_policy_plugin *pl;
    const struct pol_entry *e;
    char *full;
    void *h;

    if (path == NULL || path[0] == '\0') {
        snprintf(why, len, "expected the path of a shared object");
        return NULL;
    }
    /* A relative path is a file under dir, never a search of the library
     * path (which dlopen makes of a name without '/'). */
    if (path[0] == '/')
        full = xstrdup(path);
    else
        full = xasprintf("%s/%s", dir != NULL ? dir : ".", path);
    h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *msg = dlerror();
        snprintf(why, len, "cannot load plug-in '%s': %s", full,
                 msg != NULL ? msg : "unknown error");
        free(full);
        return NULL;
    }
    pl = dlsym(h, DSEC_POLICY_PLUGIN_SYMBOL);
    if (pl == NULL) {
        snprintf(why, len,
                 "'%s' is no dsec policy plug-in: it exports no %s "
                 "(docs/policies.md)",
                 full, DSEC_POLICY_PLUGIN_SYMBOL);
        dlclose(h);
        free(full);
        return NULL;
    }
    if (pl->api_version != POL_API_VERSION) {
        snprintf(why, len,
                 "plug-in '%s' was built for policy API version %d; this "
                 "dsec has version %d: rebuild it against this dsec's "
                 "headers",
                 full, pl->api_version, POL_API_VERSION);
        dlclose(h);
        free(full);
        return NULL;
    }
    e = pl->entry;
    if (e == NULL || e->name == NULL || e->name[0] == '\0' || e->ops == NULL ||
        e->ops->decide == NULL || e->ops->create == NULL ||
        e->ops->destroy == NULL || e->ops->version != POL_API_VERSION) {
        snprintf(why, len,
                 "plug-in '%s': its entry needs a name and ops (create, "
                 "destroy, decide) of version %d",
                 full, POL_API_VERSION);
        dlclose(h);
        free(full);
        return NULL;
    }
    /* The handle stays open: the entry is used as long as runs are. */
    free(full);
    return e;
}
