/*
 * The simulation loop: simulated clock (int64 ns), event queue, and the
 * random streams of one simulation. There is no global state: everything
 * hangs off a struct sim_loop, so two simulations can run in one process
 * (and, later, one per thread). Time never decreases; scheduling in the past
 * is an error; an event scheduled by a handler for the current time runs
 * after every event already queued for that time. Single-threaded.
 */
#ifndef SIM_LOOP_H
#define SIM_LOOP_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/event.h"

struct sim_loop;

/* Creates a loop at time 0 whose random streams derive from seed. Caller
 * frees with sim_loop_free(). */
struct sim_loop *sim_loop_new(uint64_t seed);

/* Frees the loop and its streams. Events still scheduled are forgotten; their
 * owners remain responsible for them. NULL is a no-op. */
void sim_loop_free(struct sim_loop *loop);

/* Current simulated time in ns. */
int64_t sim_loop_now(const struct sim_loop *loop);

/* Schedules ev to fire at at_ns. Returns 0, SIM_EPAST if at_ns is before now
 * (nothing changes), or SIM_EBUSY if ev is already scheduled. */
int sim_loop_schedule(struct sim_loop *loop, struct sim_event *ev,
                      int64_t at_ns);

/* Schedules ev to fire delay_ns from now; delay_ns < 0 is SIM_EPAST. A
 * time past SIM_TIME_MAX saturates there: "never" (see sim_loop_run()). */
int sim_loop_after(struct sim_loop *loop, struct sim_event *ev,
                   int64_t delay_ns);

/* Moves ev, scheduled or not, to fire at at_ns; it then runs after events
 * already queued for that time. Returns 0 or SIM_EPAST (nothing changes). */
int sim_loop_reschedule(struct sim_loop *loop, struct sim_event *ev,
                        int64_t at_ns);

/* Unschedules ev if it is scheduled; otherwise does nothing. O(log n). */
void sim_loop_cancel(struct sim_loop *loop, struct sim_event *ev);

/* Runs events in (time, seq) order until the queue is empty, the next event
 * is later than until_ns (the clock then stays at the last event fired), or
 * a handler calls sim_loop_stop(). An event at or past SIM_HORIZON_NS
 * (sim/time.h) means "never": the loop stops before it, as if the queue
 * were empty. Returns the number
 * of events fired by this call. */
uint64_t sim_loop_run(struct sim_loop *loop, int64_t until_ns);

/* A function sim_loop_run() calls before a handler, the clock already at
 * the event's time; arg is the one given to sim_loop_set_hook(). */
typedef void (*sim_hook_fn)(struct sim_loop *loop, void *arg);

/* Makes sim_loop_run() call fn(loop, arg) before every handler other than
 * quiet (NULL: before every handler); fn NULL removes the hook. A model
 * that lets its state run ahead of the events (llm.c's fast-forward) brings
 * it up to date there, before anything else can look at it. The hook may
 * reschedule events at or after the clock, not fire or cancel the one
 * about to run. One hook per loop. */
void sim_loop_set_hook(struct sim_loop *loop, sim_hook_fn fn, void *arg,
                       sim_handler_fn quiet);

/* Adds handler fn to those that run without the hook (the hook's own
 * quiet is the first; sim_loop_set_hook() empties the set): a handler
 * that reads nothing the hook brings up to date. At most
 * SIM_HOOK_QUIET_MAX; SIM_EINVAL beyond, or for NULL. */
#define SIM_HOOK_QUIET_MAX 4
int sim_loop_hook_quiet(struct sim_loop *loop, sim_handler_fn fn);

/* Makes sim_loop_run() return after the current handler. */
void sim_loop_stop(struct sim_loop *loop);

/* Number of events fired since the loop was created. */
uint64_t sim_loop_events(const struct sim_loop *loop);

/* Number of events now scheduled. */
size_t sim_loop_pending(const struct sim_loop *loop);

/* Returns the random stream called name, creating it on first use. Each
 * stream is an independent gsl_rng (MT19937: sim_rng_mt19937, GSL's
 * gsl_rng_mt19937 stream read inline, sim/rng.h) seeded from a hash of the loop
 * seed and the name only, so adding, removing or reordering other streams
 * never changes it: this gives common random numbers across variants of a
 * scenario (changing the policy does not change the arrivals). The stream is
 * owned by the loop and borrowed until sim_loop_free(). */
gsl_rng *sim_loop_stream(struct sim_loop *loop, const char *name);

/* The 64-bit seed that sim_loop_stream() uses for name under seed. Exposed
 * for tests and so that results can record it. */
uint64_t sim_stream_seed(uint64_t seed, const char *name);

#endif /* SIM_LOOP_H */
