/* `dsec help scenario`: the key reference, generated from the tables so that
 * it cannot drift from what the loader accepts. */
#include "scenarios/load.h"

#include <math.h>
#include <string.h>

#include "scenarios/schema.h"
#include "base/param.h"

/* Prints text wrapped at about 76 columns, each line indented by 6. */
static void print_wrapped(FILE *fp, const char *text)
{
    const char *s = text;

    while (*s != '\0') {
        size_t n = strlen(s), cut = n;
        if (n > 70) {
            cut = 70;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = n;
        }
        fprintf(fp, "      %.*s\n", (int)cut, s);
        s += cut;
        while (*s == ' ')
            s++;
    }
}

static void print_rows(FILE *fp, const struct sim_param *rows,
                       const char *prefix)
{
    for (const struct sim_param *p = rows; p->key != NULL; p++) {
        char path[128], range[128];

        snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] ? "." : "",
                 p->key);
        if (p->type == SIM_PT_SECTION) {
            fprintf(fp, "\n  %s:%s\n", path,
                    (p->flags & SIM_PF_REQUIRED) ? " (required)" : "");
            print_wrapped(fp, p->help);
            if (p->sub != NULL)
                print_rows(fp, p->sub, path);
            continue;
        }
        if (p->type == SIM_PT_LIST && p->sub == NULL) {
            /* Read by its owner's own code (a sweep's points). */
            fprintf(fp, "  %s: list\n", path);
            print_wrapped(fp, p->help);
            continue;
        }
        if (p->type == SIM_PT_LIST && p->sub[0].key != NULL &&
            p->sub[0].key[0] == '\0') {
            /* A list of scalars: its one row says what each element is. */
            fprintf(fp, "  %s: list of %ss", path,
                    sim_param_type_name(p->sub[0].type));
            if (p->sub[0].unit != SIM_U_NONE)
                fprintf(fp, " (%s)", sim_unit_plain_name(p->sub[0].unit));
            fprintf(fp, ", at most %g entries\n", p->max);
            print_wrapped(fp, p->help);
            continue;
        }
        if (p->type == SIM_PT_LIST) {
            /* Element keys print as path[].key. */
            fprintf(fp, "\n  %s: list of mappings, at most %g entries\n", path,
                    p->max);
            print_wrapped(fp, p->help);
            snprintf(path, sizeof(path), "%s%s%s[]", prefix,
                     prefix[0] ? "." : "", p->key);
            print_rows(fp, p->sub, path);
            continue;
        }
        if (p->type == SIM_PT_MAP) {
            fprintf(fp, "  %s: mapping of key: scalar", path);
            if (isfinite(p->max))
                fprintf(fp, ", at most %g entries", p->max);
            fputc('\n', fp);
            print_wrapped(fp, p->help);
            continue;
        }
        fprintf(fp, "  %s: %s", path, sim_param_type_name(p->type));
        if (p->type == SIM_PT_ENUM) {
            char valid[200];
            sim_param_choices_format(p, valid, sizeof(valid));
            fprintf(fp, " {%s}", valid);
        }
        if (p->unit != SIM_U_NONE)
            fprintf(fp, ", %s", sim_unit_plain_name(p->unit));
        if (p->type == SIM_PT_DURATION)
            fprintf(fp, " for a plain number");
        sim_param_range_format(p, range, sizeof(range));
        if (range[0] != '\0')
            fprintf(fp, ", range %s", range);
        if (p->flags & SIM_PF_REQUIRED)
            fprintf(fp, ", required");
        else if (p->def != NULL)
            fprintf(fp, ", default %s", p->def);
        else
            fprintf(fp, ", optional");
        fputc('\n', fp);
        print_wrapped(fp, p->help);
    }
}

void scn_help_print(FILE *fp)
{
    fputs("Scenario keys (YAML). Values take units: durations 90s, 500ms, "
          "2h, 1.5us;\n"
          "sizes 80GiB, 512MB; bandwidths 900GB/s, 400Gbps (bits); prices "
          "$2.10/h;\n"
          "rates 10/s; fractions 0.9 or 90%. A plain number is in the unit "
          "shown.\n"
          "See docs/scenario.md for the rules that span several keys.\n",
          fp);
    print_rows(fp, scn_schema, "");
}

void scn_help_print_rows(FILE *fp, const struct sim_param *rows)
{
    print_rows(fp, rows, "");
}
