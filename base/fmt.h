/*
 * Numbers written for people: durations and byte counts as the commands'
 * tables and progress lines show them. Each function writes into a buffer
 * the caller owns and returns it, so a call can sit inside a printf()
 * argument list. Plain C and libc; no state. Single-threaded callers, but
 * nothing here is shared, so any thread may call it.
 */
#ifndef BASE_FMT_H
#define BASE_FMT_H

#include <stddef.h>

/* How sim_fmt_duration() writes a duration. */
enum sim_dur_style {
    /* Three decimals for seconds, one below: "11.600 s", "4.6 ms",
     * "85.0 us" (dsec train's tables). */
    SIM_DUR_FIXED,
    /* Three significant digits: "11.6 s", "4.63 ms", "85 us" (dsec
     * strategies' traffic column). */
    SIM_DUR_SIG3,
    /* Whole seconds, rounded, as a clock: "1:02:03", "2:03", "45 s"
     * (progress lines' estimates of the time left). */
    SIM_DUR_CLOCK,
};

/* Writes the duration ns (nanoseconds; a double, as models compute it)
 * into buf of len bytes in the given style, and returns buf. For the first
 * two styles the unit is seconds at 1e9 ns and above, milliseconds at 1e6
 * and above, else microseconds. Truncates to fit len. */
char *sim_fmt_duration(char *buf, size_t len, double ns,
                       enum sim_dur_style style);

/* Writes a byte count in SI units ("950 B", "1.25 GB", "312 GB": three
 * significant digits, two decimals below 10 of a unit above bytes) into
 * buf of len bytes and returns buf. */
char *sim_fmt_bytes(char *buf, size_t len, double bytes);

/* Parses a clock time of day, "HH:MM" or "HH:MM:SS" (24-hour, two digits
 * each, HH 00 to 23, MM and SS 00 to 59), into *ns, nanoseconds after
 * midnight. Returns 0, or -1 (*ns unchanged) for anything else. */
int sim_clock_parse(const char *text, long long *ns);

/* Writes a time of day (nanoseconds after midnight, taken modulo a day)
 * as "HH:MM", or "HH:MM:SS" when it has seconds, into buf and returns
 * it. */
char *sim_fmt_clock(char *buf, size_t len, long long ns);

#endif /* BASE_FMT_H */
