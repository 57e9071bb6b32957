/*
 * Sweeps across MPI ranks (built only when configure found MPI; the only
 * file of dsec outside calib/ that includes mpi.h is sweep/mpi.c). Rank 0
 * owns the sweep and its database and hands out points one at a time as
 * ranks ask (a dynamic work queue, so fast and slow points balance
 * themselves); every other rank runs swp_mpi_worker(): it asks for a point
 * whenever one of its threads is idle, simulates it, and sends the packed
 * results (sweep/wire.h) back for rank 0 to write. A message carries the
 * whole scenario text, so other ranks need no file of the sweep. Only the
 * thread that called swp_mpi_init() calls MPI (MPI_THREAD_FUNNELED).
 */
#ifndef SWP_MPI_H
#define SWP_MPI_H

#include <signal.h>

#include "base/diag.h"
#include "sweep/pool.h"

struct swp_mpi;

/* Initialises MPI and returns the handle of MPI_COMM_WORLD, which the
 * caller releases with swp_mpi_finalize(); NULL after adding an error to d
 * when MPI cannot start or lacks thread support. */
struct swp_mpi *swp_mpi_init(int *argc, char ***argv, struct sim_diag *d);

int swp_mpi_rank(const struct swp_mpi *m);
int swp_mpi_size(const struct swp_mpi *m);

/* Finalizes MPI and frees m. NULL is a no-op. */
void swp_mpi_finalize(struct swp_mpi *m);

/* Ends every rank of the job at once with exit status status. */
_Noreturn void swp_mpi_abort(struct swp_mpi *m, int status);

/* A rank other than 0: runs points on jobs (>= 1) threads until rank 0
 * answers a request with "stop", then sends every result and "done".
 * *interrupts counts SIGINTs (may be NULL): after the first, the rank asks
 * for nothing more, finishes what it holds and says done. Returns 0, or
 * SIM_EIO when a message from rank 0 cannot be read. */
int swp_mpi_worker(struct swp_mpi *m, int jobs,
                   const volatile sig_atomic_t *interrupts);

/* What rank 0 hears. */
enum swp_mpi_kind {
    SWP_MPI_REQUEST = 1, /* rank `source` has an idle thread */
    SWP_MPI_RESULT,      /* rank `source` sends a finished point */
    SWP_MPI_DONE,        /* rank `source` has stopped */
};

struct swp_mpi_msg {
    enum swp_mpi_kind kind;
    int source;
    struct swp_done done; /* SWP_MPI_RESULT; the caller frees it with
                             swp_done_fini() */
};

/* Rank 0: receives one message if one has arrived, without waiting.
 * Returns 1 with *msg filled, 0 when there is none, or SIM_EIO when a
 * result cannot be unpacked (its rank is then counted as done). */
int swp_mpi_poll(struct swp_mpi *m, struct swp_mpi_msg *msg);

/* Rank 0: answers a request with point id, to be loaded under the name
 * file from text, with relative paths taken from base_dir. */
void swp_mpi_send_work(struct swp_mpi *m, int dest, long id, const char *file,
                       const char *text, const char *base_dir);

/* Rank 0: answers a request with "stop": no more points. */
void swp_mpi_send_stop(struct swp_mpi *m, int dest);

/* Rank 0 when it has no sweep to serve (it failed to load one): answers
 * every request with "stop" until every other rank is done. */
void swp_mpi_drain(struct swp_mpi *m);

#endif /* SWP_MPI_H */
