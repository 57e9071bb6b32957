/*
 * Simulated time: int64_t nanoseconds since the start of the simulation,
 * never double. 2^63 ns is about 292 years, far past any scenario. Helpers
 * here convert to and from seconds for reporting and for sampling
 * distributions, which GSL does in double.
 */
#ifndef SIM_TIME_H
#define SIM_TIME_H

#include <math.h>
#include <stdint.h>

#define SIM_NS_PER_US INT64_C(1000)
#define SIM_NS_PER_MS INT64_C(1000000)
#define SIM_NS_PER_S INT64_C(1000000000)
#define SIM_TIME_MAX INT64_MAX

/* The simulation horizon: 366 days. No input time may exceed it (the
 * scenario schema refuses one, base/param.h SIM_PARAM_HORIZON_S), and an
 * event scheduled at or past it is "never": sim_loop_run() does not fire
 * it. A drawn gap that lands there (a failure rate so low the next failure
 * is centuries away) thus simply does not happen, and sums of a few times
 * below it cannot overflow int64. */
#define SIM_HORIZON_NS (INT64_C(366) * 86400 * INT64_C(1000000000))

/* The same factors as doubles, for durations and rates computed in double
 * (ns per FLOP, stage times): x_s * SIM_NS_PER_S_F is x in nanoseconds,
 * and (double)x_ns / SIM_NS_PER_S_F the correctly rounded seconds. */
#define SIM_NS_PER_S_F 1e9
#define SIM_NS_PER_MS_F 1e6

/* llround(x) for 0 <= x < 9.2e18, the same value without the libm call
 * (the fleet-day draws three a request): the integer part by truncation,
 * then one more when the fraction is at least a half. The fraction is
 * exact: x - t below 2^52, and 0 above, where every double is whole. */
static inline int64_t sim_llround_nonneg(double x)
{
    int64_t t = (int64_t)x;
    return t + (x - (double)t >= 0.5);
}

/* Converts seconds to nanoseconds, rounding to nearest and saturating at
 * SIM_TIME_MAX; negative or NaN input gives 0. */
static inline int64_t sim_s_to_ns(double s)
{
    double ns = s * 1e9;
    if (!(ns > 0.0))
        return 0;
    if (ns >= 9.2e18)
        return SIM_TIME_MAX;
    return sim_llround_nonneg(ns);
}

/* Converts a duration computed from inputs (bytes over a bandwidth, a
 * drawn gap) from seconds to nanoseconds, checked: stores the rounded value
 * in *out_ns and returns 0, or returns -1 and leaves *out_ns unchanged when
 * s is NaN, negative or not below limit_ns nanoseconds (pass SIM_TIME_MAX
 * for "fits in int64"). Callers report -1 as an error: a time that
 * overflows is never silently saturated or wrapped. */
static inline int sim_s_to_ns_checked(double s, int64_t limit_ns,
                                      int64_t *out_ns)
{
    double ns = s * 1e9;
    if (!(ns >= 0.0) || !(ns < (double)limit_ns) || !(ns < 9.2e18))
        return -1;
    *out_ns = sim_llround_nonneg(ns);
    return 0;
}

/* Adds two non-negative times, saturating at SIM_TIME_MAX instead of
 * wrapping (a time at SIM_TIME_MAX is "never"). */
static inline int64_t sim_time_add(int64_t a_ns, int64_t b_ns)
{
    if (b_ns > 0 && a_ns > SIM_TIME_MAX - b_ns)
        return SIM_TIME_MAX;
    return a_ns + b_ns;
}

/* Converts nanoseconds to seconds. */
static inline double sim_ns_to_s(int64_t ns)
{
    return (double)ns * 1e-9;
}

/* Converts nanoseconds to milliseconds. */
static inline double sim_ns_to_ms(int64_t ns)
{
    return (double)ns * 1e-6;
}

#endif /* SIM_TIME_H */
