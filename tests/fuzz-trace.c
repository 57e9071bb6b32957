/*
 * libFuzzer target for the trace readers (--enable-fuzzing with CC=clang;
 * `make fuzz`, docs/build.md): the first byte picks the format (Azure,
 * BurstGPT, Mooncake), the rest is the trace file, written to a temporary
 * file and read to its end. Each call of wl_source_next() must give a
 * request whose arrival does not go back in time and whose lengths are in
 * range, or end, or fail with a diagnostic; anything else, and any
 * sanitizer report, is a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/workload/config.h"
#include "models/workload/source.h"
#include "base/diag.h"
#include "base/errors.h"
#include "tests/fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_REQUESTS 100000

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int formats[] = {CL_TRACE_AZURE, CL_TRACE_BURSTGPT,
                                  CL_TRACE_MOONCAKE};
    struct cl_workload w;
    struct wl_source *s;
    struct wl_request r;
    struct sim_diag d;
    int64_t last = INT64_MIN;

    if (size == 0)
        return 0;
    fuzz_file_write(path, "/tmp/dsec-fuzz-trace-XXXXXX", data + 1, size - 1);

    memset(&w, 0, sizeof(w));
    w.kind = CL_WL_TRACE;
    w.trace.format = formats[data[0] % 3];
    w.trace.path = path;
    w.trace.time_scale = 1;
    w.trace.rate_scale = 1;
    w.trace.requests = -1;
    w.trace.duration_ns = -1;
    sim_diag_init(&d);
    s = wl_source_new(&w, "/", NULL, &d);
    if (s == NULL) {
        if (sim_diag_errors(&d) == 0)
            abort(); /* a refusal that says nothing */
        sim_diag_fini(&d);
        return 0;
    }
    for (int i = 0; i < MAX_REQUESTS; i++) {
        int rc = wl_source_next(s, &r, &d);
        if (rc == SIM_EEOF)
            break;
        if (rc != 0) {
            if (sim_diag_errors(&d) == 0)
                abort();
            break;
        }
        if (r.arrival_ns < last || r.arrival_ns < 0 || r.prompt_tokens < 1 ||
            r.output_tokens < 1 || r.prompt_tokens > WL_TOKENS_MAX ||
            r.output_tokens > WL_TOKENS_MAX)
            abort(); /* a request the simulator cannot take */
        last = r.arrival_ns;
    }
    wl_source_free(s);
    sim_diag_fini(&d);
    return 0;
}
