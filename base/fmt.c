/* Durations and byte counts for people. The thresholds compare the value in
 * nanoseconds before dividing, as the callers' own copies did, so that a
 * value on a unit boundary lands in the same unit whichever command prints
 * it. */
#include "base/fmt.h"

#include <stdio.h>
#include <string.h>

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

/* Two decimal digits at p, at most max: their value, or -1. */
static int two_digits(const char *p, int max)
{
    int v;

    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
        return -1;
    v = (p[0] - '0') * 10 + (p[1] - '0');
    return v <= max ? v : -1;
}

int sim_clock_parse(const char *text, long long *ns)
{
    int h, m, sec = 0;
    size_t n = text != NULL ? strlen(text) : 0;

    if ((n != 5 && n != 8) || text[2] != ':' || (n == 8 && text[5] != ':'))
        return -1;
    h = two_digits(text, 23);
    m = two_digits(text + 3, 59);
    if (n == 8)
        sec = two_digits(text + 6, 59);
    if (h < 0 || m < 0 || sec < 0)
        return -1;
    *ns = ((long long)h * 3600 + m * 60 + sec) * 1000000000LL;
    return 0;
}

char *sim_fmt_clock(char *buf, size_t len, long long ns)
{
    const long long day = 86400LL * 1000000000LL;
    long long s = ((ns % day + day) % day) / 1000000000LL;

    if (s % 60 != 0)
        snprintf(buf, len, "%02lld:%02lld:%02lld", s / 3600, s / 60 % 60,
                 s % 60);
    else
        snprintf(buf, len, "%02lld:%02lld", s / 3600, s / 60 % 60);
    return buf;
}
