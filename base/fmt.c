/* Durations and byte counts for people. The thresholds compare the value in
 * nanoseconds before dividing, as the callers' own copies did, so that a
 * value on a unit boundary lands in the same unit whichever command prints
 * it. */
#include "base/fmt.h"

#include <stdio.h>

char *sim_fmt_duration(char *buf, size_t len, double ns,
                       enum sim_dur_style style)
{
    if (style == SIM_DUR_CLOCK) {
        long t = (long)(ns / 1e9 + 0.5);

        if (t >= 3600)
            snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60,
                     t % 60);
        else if (t >= 60)
            snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
        else
            snprintf(buf, len, "%ld s", t);
    } else if (style == SIM_DUR_SIG3) {
        if (ns >= 1e9)
            snprintf(buf, len, "%.3g s", ns / 1e9);
        else if (ns >= 1e6)
            snprintf(buf, len, "%.3g ms", ns / 1e6);
        else
            snprintf(buf, len, "%.3g us", ns / 1e3);
    } else {
        if (ns >= 1e9)
            snprintf(buf, len, "%.3f s", ns / 1e9);
        else if (ns >= 1e6)
            snprintf(buf, len, "%.1f ms", ns / 1e6);
        else
            snprintf(buf, len, "%.1f us", ns / 1e3);
    }
    return buf;
}

char *sim_fmt_bytes(char *buf, size_t len, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;

    while (bytes >= 999.5 && u < 5) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, len, bytes < 9.995 && u > 0 ? "%.2f %s" : "%.3g %s", bytes,
             units[u]);
    return buf;
}
