/*
 * JSON output shared by the commands and the reports (json-c): numbers
 * written so that they read back as the double they came from, with NAN
 * and infinities as null (JSON has no such numbers), and the one layout
 * every command prints an object in. The json_object values returned are
 * new references the caller hands to a container or releases with
 * json_object_put(). Single-threaded.
 */
#ifndef RPT_FMT_H
#define RPT_FMT_H

#include <stdio.h>

struct json_object;

/* How many significant digits rpt_json_double() writes. */
enum rpt_json_digits {
    /* The fewest of 15, 16 or 17 that read back as the same double
     * ("0.9", not "0.90000000000000002"): results, plans, sweeps. */
    RPT_JSON_SHORTEST,
    /* Always 17, json-c's own text ("0.90000000000000002", "2.0"): the
     * layout tables of dsec strategies and dsec train. */
    RPT_JSON_FULL,
};

/* A JSON number holding v, written with the given digits, or NULL (which
 * json-c writes as null) when v is NAN or infinite. */
struct json_object *rpt_json_double(double v, enum rpt_json_digits digits);

/* Prints o to fp as the commands do: pretty, spaced, '/' not escaped, and
 * a newline. o is borrowed. */
void rpt_json_print(FILE *fp, struct json_object *o);

#endif /* RPT_FMT_H */
