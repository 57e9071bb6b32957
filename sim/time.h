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

/* The same factors as doubles, for durations and rates computed in double
 * (ns per FLOP, stage times): x_s * SIM_NS_PER_S_F is x in nanoseconds,
 * and (double)x_ns / SIM_NS_PER_S_F the correctly rounded seconds. */
#define SIM_NS_PER_S_F 1e9
#define SIM_NS_PER_MS_F 1e6

/* Converts seconds to nanoseconds, rounding to nearest and saturating at
 * SIM_TIME_MAX; negative or NaN input gives 0. */
static inline int64_t sim_s_to_ns(double s)
{
    double ns = s * 1e9;
    if (!(ns > 0.0))
        return 0;
    if (ns >= 9.2e18)
        return SIM_TIME_MAX;
    return (int64_t)llround(ns);
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
