/*
 * A scheduled event. Owners embed a struct sim_event in their own structs
 * (a replica embeds its iteration event, a request its completion event) and
 * recover themselves from ev->arg in the handler. The loop's queue holds a
 * pointer to the event while it is scheduled; the owner must not free it
 * before it fires or is cancelled.
 */
#ifndef SIM_EVENT_H
#define SIM_EVENT_H

#include <stddef.h>
#include <stdint.h>

struct sim_loop;
struct sim_event;

/* An event handler. loop and ev are borrowed for the call; the event is no
 * longer scheduled when the handler runs and may be scheduled again. */
typedef void (*sim_handler_fn)(struct sim_loop *loop, struct sim_event *ev);

struct sim_event {
    int64_t time_ns;   /* when it fires; valid while scheduled */
    size_t heap_index; /* slot in the queue, SIM_HEAP_NONE if not queued */
    sim_handler_fn fn; /* handler */
    void *arg;         /* borrowed owner pointer for the handler */
};

/* Initialises an unscheduled event with its handler and owner. */
void sim_event_init(struct sim_event *ev, sim_handler_fn fn, void *arg);

/* Returns 1 if ev is scheduled, 0 otherwise. */
int sim_event_pending(const struct sim_event *ev);

#endif /* SIM_EVENT_H */
