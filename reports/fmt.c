/* JSON numbers and printing. A number is stored with its text
 * (json_object_new_double_s) so that json-c writes exactly the digits
 * chosen here, whatever its global double format. */
#include "reports/fmt.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

struct json_object *rpt_json_double(double v, enum rpt_json_digits digits)
{
    char buf[40];

    if (!isfinite(v))
        return NULL;
    if (digits == RPT_JSON_FULL)
        return json_object_new_double(v);
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return json_object_new_double_s(v, buf);
}

void rpt_json_print(FILE *fp, struct json_object *o)
{
    fprintf(fp, "%s\n",
            json_object_to_json_string_ext(
                o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                       JSON_C_TO_STRING_NOSLASHESCAPE));
}
