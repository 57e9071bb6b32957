/*
 * libFuzzer target for what dsec-scaler reads from the network and from
 * its configuration (--enable-fuzzing with CC=clang; `make fuzz`,
 * docs/build.md): the first byte picks the parser, the rest is its input.
 *   0: Prometheus exposition text (a /metrics scrape, scl_expo_parse)
 *   1: a Prometheus HTTP API query answer (JSON, scl_prom_parse)
 *   2: a Kubernetes Scale answer (JSON, scl_scale_parse)
 *   3: the scaler's YAML configuration (scl_config_parse)
 * A parser must accept the input or say why; a Scale it accepts must lie in
 * [0, SCL_REPLICAS_LIMIT]; anything else, and any sanitizer report, is a
 * finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/actuator.h"
#include "scaler/conf.h"
#include "scaler/expo.h"
#include "scaler/promapi.h"
#include "base/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256] = "";
    char *text;
    size_t len;
    int rc = 0;

    if (size == 0)
        return 0;
    len = size - 1;
    text = malloc(len + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, len);
    text[len] = '\0';
    switch (data[0] % 4) {
    case 0: {
        struct scl_expo e;
        scl_expo_init(&e);
        rc = scl_expo_parse(text, len, &e, err, sizeof(err));
        scl_expo_fini(&e);
        break;
    }
    case 1: {
        struct scl_expo e;
        scl_expo_init(&e);
        rc = scl_prom_parse(text, len, &e, err, sizeof(err));
        scl_expo_fini(&e);
        break;
    }
    case 2: {
        int spec = -2, status = -2;
        rc = scl_scale_parse(text, &spec, &status, err, sizeof(err));
        if (rc == 0 && (spec < 0 || spec > SCL_REPLICAS_LIMIT || status < -1 ||
                        status > SCL_REPLICAS_LIMIT))
            abort(); /* an impossible size accepted */
        break;
    }
    default: {
        struct scl_config c;
        struct sim_diag d;
        sim_diag_init(&d);
        rc = scl_config_parse("fuzz.yaml", text, len, &c, &d);
        if (rc != 0 && sim_diag_errors(&d) == 0)
            abort(); /* a refusal that says nothing */
        if (rc == 0)
            scl_config_fini(&c);
        sim_diag_fini(&d);
        rc = 0;
        break;
    }
    }
    if (rc != 0 && err[0] == '\0')
        abort(); /* a refusal that says nothing */
    free(text);
    return 0;
}
