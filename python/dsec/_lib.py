"""The cffi binding of libdsec (ABI mode: ``ffi.dlopen``, nothing compiled).

The declarations below are hand-written copies of include/dsec.h,
include/dsec/policy.h and include/dsec/param.h. At import the sizes of the
policy ABI's structs are checked against ``dsec_type_size()`` of the loaded
library, so that a library built from other headers is refused with the
struct named instead of corrupting memory.

The library is looked up in this order:

1. the environment variable ``DSEC_LIBRARY`` (a path to libdsec.so.1);
2. ``dsec._config.LIBDIR`` (written when the package is built and
   installed with dsec: the installed libdir), if that module exists;
3. ``libdsec.so.1`` three folders above an installed package (the libdir
   it was installed under, when the installed tree was moved);
4. ``ctypes.util.find_library("dsec")``.
"""

from __future__ import annotations

import ctypes.util
import os
from typing import List, Optional, Tuple

try:
    import cffi
except ImportError as e:  # pragma: no cover - depends on the system
    raise ImportError(
        "the dsec package needs cffi (Debian: python3-cffi; pip: cffi)"
    ) from e

CDEF = r"""
/* include/dsec/param.h */
enum sim_param_type {
    SIM_PT_INT, SIM_PT_INT64, SIM_PT_UINT64, SIM_PT_DOUBLE, SIM_PT_BOOL,
    SIM_PT_STRING, SIM_PT_ENUM, SIM_PT_DURATION, SIM_PT_SECTION,
    SIM_PT_LIST, SIM_PT_MAP
};
enum sim_unit {
    SIM_U_NONE, SIM_U_SECONDS, SIM_U_MILLISECONDS, SIM_U_BYTES,
    SIM_U_BYTES_PER_S, SIM_U_USD_PER_HOUR, SIM_U_PER_S, SIM_U_TOKENS,
    SIM_U_FRACTION
};
struct sim_param_choice {
    const char *name;
    int value;
};
struct sim_param {
    const char *key;
    enum sim_param_type type;
    enum sim_unit unit;
    double min;
    double max;
    unsigned flags;
    const char *def;
    const char *help;
    size_t offset;
    const struct sim_param_choice *choices;
    const struct sim_param *sub;
};

/* include/dsec/policy.h */
enum pol_replica_state { POL_RS_PENDING = 0, POL_RS_READY = 1,
                         POL_RS_DRAINING = 2 };
enum pol_role { POL_ROLE_ALL = 0, POL_ROLE_PREFILL = 1, POL_ROLE_DECODE = 2 };
enum pol_drain { POL_DRAIN_DEFAULT = 0, POL_DRAIN_FINISH = 1,
                 POL_DRAIN_MIGRATE = 2 };

struct pol_replica {
    int pool;
    int state;
    double age_s;
    double num_running;
    double num_waiting;
    double kv_usage;
    double kv_capacity_tokens;
    double ttft_p50_s;
    double ttft_p99_s;
    double itl_p50_s;
    double itl_p99_s;
    double prompt_tokens_per_s;
    double output_tokens_per_s;
    double requests_per_s;
    double ttft_mean_s;
    double itl_mean_s;
};

struct pol_pool {
    const char *name;
    int capacity_replicas;
    int ready;
    int pending;
    int draining;
    double price_usd_per_replica_hour;
    double provision_s_mean;
    int preemptible;
    int borrowable;
    int priority;
    int gpus_per_replica;
    double decode_tokens_per_s;
    double speed;
};

struct pol_snapshot {
    int api_version;
    double now_s;
    double interval_s;
    double window_s;
    int metrics_valid;
    int ready;
    int pending;
    int draining;
    int min_replicas;
    int max_replicas;
    int gpus_per_replica;
    double target_ttft_s;
    double target_itl_s;
    double arrival_rate_per_s;
    double mean_prompt_tokens;
    double mean_output_tokens;
    double output_tokens_per_s;
    double ttft_p50_s;
    double ttft_p99_s;
    double itl_p50_s;
    double itl_p99_s;
    double num_running;
    double num_waiting;
    double kv_usage_mean;
    double ttft_mean_s;
    double itl_mean_s;
    const struct pol_replica *replicas;
    int nreplicas;
    const struct pol_pool *pools;
    int npools;
    int role;
};

struct pol_decision {
    int desired;
    int borrow;
    int drain;
};

struct pol_ops {
    int version;
    void *(*create)(const void *params);
    void (*destroy)(void *state);
    int (*decide)(void *state, const struct pol_snapshot *s,
                  struct pol_decision *out);
};

struct pol_entry {
    const char *name;
    const char *summary;
    const struct sim_param *params;
    size_t params_size;
    const struct pol_ops *ops;
};

struct dsec_policy_plugin {
    int api_version;
    const struct pol_entry *entry;
};

/* include/dsec.h */
const char *dsec_version(void);
int dsec_policy_api_version(void);
const char *dsec_strerror(int code);
void dsec_free(void *p);
size_t dsec_type_size(const char *name);

typedef struct dsec_scenario dsec_scenario;
int dsec_scenario_load_file(const char *path, dsec_scenario **out,
                            char **err);
int dsec_scenario_load_string(const char *name, const char *text, size_t len,
                              const char *dir, dsec_scenario **out,
                              char **err);
void dsec_scenario_free(dsec_scenario *sc);
int dsec_scenario_set(dsec_scenario *sc, const char *assignment, char **err);
void dsec_scenario_clear_sets(dsec_scenario *sc);
void dsec_scenario_set_seed(dsec_scenario *sc, uint64_t seed);
int dsec_scenario_set_policy(dsec_scenario *sc, const struct pol_entry *e,
                             char **err);
int dsec_scenario_validate(dsec_scenario *sc, char **notes, char **err);
char *dsec_scenario_text(dsec_scenario *sc, char **err);
const char *dsec_scenario_name(const dsec_scenario *sc);

typedef struct dsec_results dsec_results;
int dsec_run(dsec_scenario *sc, dsec_results **out, char **err);
void dsec_results_free(dsec_results *res);
char *dsec_results_json(const dsec_results *res, int pretty);
int dsec_results_get(const dsec_results *res, const char *name, double *out);
int dsec_results_nfields(void);
const char *dsec_results_field_name(int i);

typedef struct dsec_session dsec_session;
int dsec_session_open(dsec_scenario *sc, int flags, dsec_session **out,
                      char **err);
int dsec_session_advance(dsec_session *ss, double t_s, char **err);
double dsec_session_now(const dsec_session *ss);
int dsec_session_set_desired(dsec_session *ss, int desired);
char *dsec_session_state_json(const dsec_session *ss);
int dsec_session_close(dsec_session *ss, dsec_results **out, char **err);

int dsec_compare_json(dsec_scenario *sc, const char *const *policies,
                      int npolicies, int replications, uint64_t seed, int jobs,
                      char **json, char **err);
"""

#: POL_API_VERSION of the headers copied above.
POL_API_VERSION = 1
#: enum dsec_session_flags
DSEC_SESSION_EXTERNAL = 1

#: The structs whose sizes are checked against the library at import.
CHECKED_STRUCTS = (
    "pol_snapshot",
    "pol_replica",
    "pol_pool",
    "pol_decision",
    "pol_ops",
    "pol_entry",
    "sim_param",
    "dsec_policy_plugin",
)

ffi = cffi.FFI()
ffi.cdef(CDEF)


def _candidates() -> List[Tuple[str, Optional[str]]]:
    """(where, path or None when that step has nothing) for each place to
    look, in order."""
    out: List[Tuple[str, Optional[str]]] = []
    out.append(("DSEC_LIBRARY", os.environ.get("DSEC_LIBRARY") or None))
    libdir = None
    try:
        from . import _config  # written at build time; absent in the source tree

        libdir = getattr(_config, "LIBDIR", None)
    except ImportError:
        pass
    out.append(("dsec._config.LIBDIR",
                os.path.join(libdir, "libdsec.so.1") if libdir else None))
    # An installed package sits at LIBDIR/pythonX.Y/{site,dist}-packages/dsec:
    # the library three folders up, even when the tree was moved after
    # installing (or installed with another prefix than configure's).
    here = os.path.dirname(os.path.abspath(__file__))
    beside = os.path.normpath(os.path.join(here, "..", "..", "..", "libdsec.so.1"))
    out.append(("the folder the package is installed under",
                beside if libdir and os.path.exists(beside) else None))
    out.append(('ctypes.util.find_library("dsec")', ctypes.util.find_library("dsec")))
    return out


def _open():
    tried: List[str] = []
    for where, path in _candidates():
        if path is None:
            tried.append(f"{where}: " + ("not set" if where == "DSEC_LIBRARY" else
                                         "no installed package" if "_config" in where
                                         or "installed under" in where else
                                         "nothing found"))
            continue
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            tried.append(f"{where}: {path} ({str(e).split('.  Additionally')[0]})")
    raise ImportError(
        "cannot load libdsec; tried:\n  "
        + "\n  ".join(tried)
        + "\nset DSEC_LIBRARY to the path of libdsec.so.1 (a build tree's "
        "lib/.libs/libdsec.so.1) or install dsec"
    )


lib, LIBRARY_PATH = _open()


def check_layout(library=None, where: str = "") -> None:
    """Raises ImportError naming the first struct whose size differs between
    the declarations above and the library (the loaded one by default)."""
    library = lib if library is None else library
    where = where or LIBRARY_PATH
    if library.dsec_policy_api_version() != POL_API_VERSION:
        raise ImportError(
            f"libdsec at {where} has policy API version "
            f"{library.dsec_policy_api_version()}, this package {POL_API_VERSION}"
        )
    for name in CHECKED_STRUCTS:
        ours = ffi.sizeof("struct " + name)
        theirs = library.dsec_type_size(name.encode())
        if ours != theirs:
            raise ImportError(
                f"struct {name}: {ours} bytes in the dsec package but "
                f"{theirs} in {where}; the package and the library "
                "come from different versions"
            )


check_layout()


def take_string(p) -> str:
    """Decodes a char * the library returned and frees it (NULL: "")."""
    if p == ffi.NULL:
        return ""
    try:
        return ffi.string(p).decode("utf-8", "replace")
    finally:
        lib.dsec_free(p)


def borrowed_string(p) -> str:
    """Decodes a borrowed const char * (NULL: "")."""
    if p == ffi.NULL:
        return ""
    return ffi.string(p).decode("utf-8", "replace")
