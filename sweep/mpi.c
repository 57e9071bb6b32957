/* MPI transport of a sweep. Every send is non-blocking (MPI_Isend, its
 * buffer kept until the send completes): a scenario text or a result can
 * exceed the eager limit, and two blocking sends of such messages between
 * rank 0 and a worker, one each way, would wait for each other forever.
 * Receives are polled with MPI_Iprobe, so the thread that calls MPI also
 * serves the worker pool. Messages:
 *
 *   REQUEST  worker -> 0   empty: one idle thread
 *   WORK     0 -> worker   u64 id, str file, str text, str base_dir
 *   STOP     0 -> worker   empty: no more points
 *   RESULT   worker -> 0   u64 id, i64 rc, f64 wall_s, i64 started_unix,
 *                          str message, str packed results (or NULL)
 *   DONE     worker -> 0   empty: the worker has stopped
 */
#include "config.h"

#include "sweep/mpi.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"
#include "sweep/sweep-int.h"
#include "sweep/wire.h"

enum { TAG_REQUEST = 1, TAG_WORK, TAG_STOP, TAG_RESULT, TAG_DONE };

/* Sends in flight, at most a few per rank. */
struct outbox {
    MPI_Request *req;
    char **buf;
    int n, cap;
};

struct swp_mpi {
    int rank, size;
    struct outbox out;
};

/* Frees the buffers of completed sends. */
static void out_reap(struct outbox *o)
{
    int i = 0;

    while (i < o->n) {
        int done = 0;
        MPI_Test(&o->req[i], &done, MPI_STATUS_IGNORE);
        if (!done) {
            i++;
            continue;
        }
        free(o->buf[i]);
        o->req[i] = o->req[o->n - 1];
        o->buf[i] = o->buf[o->n - 1];
        o->n--;
    }
}

/* Sends len bytes (p owned by the outbox from now on) with tag to dest. */
static void out_send(struct swp_mpi *m, int dest, int tag, char *p, size_t len)
{
    struct outbox *o = &m->out;

    out_reap(o);
    if (len > (size_t)INT32_MAX)
        sim_fatal("MPI message of %zu bytes", len);
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 16;
        o->req = xrealloc(o->req, (size_t)o->cap, sizeof(*o->req));
        o->buf = xrealloc(o->buf, (size_t)o->cap, sizeof(*o->buf));
    }
    o->buf[o->n] = p;
    MPI_Isend(p, (int)len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &o->req[o->n]);
    o->n++;
}

static void out_wait_all(struct outbox *o)
{
    if (o->n > 0)
        MPI_Waitall(o->n, o->req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < o->n; i++)
        free(o->buf[i]);
    o->n = 0;
}

/* Receives the message that MPI_Iprobe/MPI_Probe found; returns its bytes
 * (the caller frees them) and their number in *len. */
static char *recv_found(const MPI_Status *st, size_t *len)
{
    int n = 0;
    char *p;

    MPI_Get_count(st, MPI_BYTE, &n);
    p = xmalloc((size_t)n + 1);
    MPI_Recv(p, n, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    *len = (size_t)n;
    return p;
}

struct swp_mpi *swp_mpi_init(int *argc, char ***argv, struct sim_diag *d)
{
    struct swp_mpi *m;
    int provided = 0;

    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) !=
        MPI_SUCCESS) {
        sim_diag_error(d, NULL, 0, 0, "cannot start MPI");
        return NULL;
    }
    if (provided < MPI_THREAD_FUNNELED) {
        sim_diag_error(d, NULL, 0, 0,
                       "this MPI library gives no thread support "
                       "(MPI_THREAD_FUNNELED)");
        MPI_Finalize();
        return NULL;
    }
    m = xcalloc(1, sizeof(*m));
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    return m;
}

int swp_mpi_rank(const struct swp_mpi *m)
{
    return m->rank;
}

int swp_mpi_size(const struct swp_mpi *m)
{
    return m->size;
}

void swp_mpi_finalize(struct swp_mpi *m)
{
    if (m == NULL)
        return;
    out_wait_all(&m->out);
    free(m->out.req);
    free(m->out.buf);
    free(m);
    MPI_Finalize();
}

_Noreturn void swp_mpi_abort(struct swp_mpi *m, int status)
{
    (void)m;
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status); /* MPI_Abort does not return; the compiler cannot know */
}

/* ---- Worker ranks ---- */

/* A point held by a worker: its strings live until its result is sent. */
struct held {
    long id;
    char *file, *text, *dir;
};

static void send_result(struct swp_mpi *m, const struct swp_done *d)
{
    struct swp__buf b = {0};

    swp__put_u64(&b, (uint64_t)d->id);
    swp__put_i64(&b, d->rc);
    swp__put_f64(&b, d->wall_s);
    swp__put_i64(&b, d->started_unix);
    swp__put_str(&b, d->message);
    if (d->rc == 0) {
        size_t n = 0;
        unsigned char *packed = swp_results_pack(&d->res, &n);
        swp__put_u64(&b, n);
        swp__buf_add(&b, packed, n);
        free(packed);
    } else {
        swp__put_u64(&b, UINT64_MAX);
    }
    {
        size_t len = b.len;
        out_send(m, 0, TAG_RESULT, swp__buf_take(&b), len);
    }
}

static void finish(struct swp_mpi *m, struct held *held, int nheld,
                   struct swp_done *d)
{
    send_result(m, d);
    for (int i = 0; i < nheld; i++)
        if (held[i].text != NULL && held[i].id == d->id) {
            free(held[i].file);
            free(held[i].text);
            free(held[i].dir);
            memset(&held[i], 0, sizeof(held[i]));
            break;
        }
    swp_done_fini(d);
}

int swp_mpi_worker(struct swp_mpi *m, int jobs,
                   const volatile sig_atomic_t *interrupts)
{
    struct swp_pool *pool;
    struct held *held;
    int outstanding = 0, stopped = 0, rc = 0;
    struct swp_done d;

    if (jobs < 1)
        jobs = 1;
    pool = swp_pool_new(jobs);
    held = xcalloc((size_t)jobs, sizeof(*held));
    for (;;) {
        MPI_Status st;
        int flag = 0;

        if (interrupts != NULL && *interrupts > 0)
            stopped = 1;
        while (!stopped && (int)swp_pool_pending(pool) + outstanding < jobs) {
            out_send(m, 0, TAG_REQUEST, NULL, 0);
            outstanding++;
        }
        while (MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) ==
                   MPI_SUCCESS &&
               flag) {
            size_t len;
            char *p = recv_found(&st, &len);

            if (st.MPI_TAG == TAG_WORK) {
                struct swp__rd r = {(const unsigned char *)p, len, 0};
                struct held h;
                int slot = -1;

                h.id = (long)swp__get_u64(&r);
                h.file = swp__get_str(&r);
                h.text = swp__get_str(&r);
                h.dir = swp__get_str(&r);
                for (int i = 0; i < jobs && slot < 0; i++)
                    if (held[i].text == NULL)
                        slot = i;
                if (r.bad || r.left != 0 || h.text == NULL || slot < 0) {
                    free(h.file);
                    free(h.text);
                    free(h.dir);
                    rc = SIM_EIO;
                    stopped = 1;
                } else {
                    held[slot] = h;
                    swp_pool_submit(pool, h.id, h.file, h.text, h.dir);
                }
                outstanding--;
            } else if (st.MPI_TAG == TAG_STOP) {
                outstanding--;
                stopped = 1;
            }
            free(p);
        }
        while (swp_pool_take(pool, 0, &d))
            finish(m, held, jobs, &d);
        out_reap(&m->out);
        if (stopped && outstanding == 0 && swp_pool_pending(pool) == 0)
            break;
        if (swp_pool_take(pool, 1, &d))
            finish(m, held, jobs, &d);
    }
    out_send(m, 0, TAG_DONE, NULL, 0);
    out_wait_all(&m->out);
    swp_pool_free(pool);
    free(held);
    return rc;
}

/* ---- Rank 0 ---- */

int swp_mpi_poll(struct swp_mpi *m, struct swp_mpi_msg *msg)
{
    MPI_Status st;
    int flag = 0;
    size_t len;
    char *p;

    out_reap(&m->out);
    memset(msg, 0, sizeof(*msg));
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) !=
            MPI_SUCCESS ||
        !flag)
        return 0;
    p = recv_found(&st, &len);
    msg->source = st.MPI_SOURCE;
    switch (st.MPI_TAG) {
    case TAG_REQUEST:
        msg->kind = SWP_MPI_REQUEST;
        break;
    case TAG_DONE:
        msg->kind = SWP_MPI_DONE;
        break;
    case TAG_RESULT: {
        struct swp__rd r = {(const unsigned char *)p, len, 0};
        struct swp_done *d = &msg->done;
        uint64_t n;

        msg->kind = SWP_MPI_RESULT;
        d->id = (long)swp__get_u64(&r);
        d->rc = (int)swp__get_i64(&r);
        d->wall_s = swp__get_f64(&r);
        d->started_unix = swp__get_i64(&r);
        d->message = swp__get_str(&r);
        n = swp__get_u64(&r);
        if (!r.bad && n != UINT64_MAX) {
            if (n != r.left || swp_results_unpack(r.p, (size_t)n, &d->res) != 0)
                r.bad = 1;
            r.left = 0;
        }
        if (r.bad || r.left != 0) {
            swp_done_fini(d);
            free(p);
            return SIM_EIO;
        }
        break;
    }
    default:
        free(p);
        return SIM_EIO;
    }
    free(p);
    return 1;
}

void swp_mpi_send_work(struct swp_mpi *m, int dest, long id, const char *file,
                       const char *text, const char *base_dir)
{
    struct swp__buf b = {0};
    size_t len;

    swp__put_u64(&b, (uint64_t)id);
    swp__put_str(&b, file);
    swp__put_str(&b, text);
    swp__put_str(&b, base_dir);
    len = b.len;
    out_send(m, dest, TAG_WORK, swp__buf_take(&b), len);
}

void swp_mpi_send_stop(struct swp_mpi *m, int dest)
{
    out_send(m, dest, TAG_STOP, NULL, 0);
}

void swp_mpi_drain(struct swp_mpi *m)
{
    int done = 0;

    while (done < m->size - 1) {
        MPI_Status st;
        size_t len;

        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        free(recv_found(&st, &len));
        if (st.MPI_TAG == TAG_REQUEST)
            swp_mpi_send_stop(m, st.MPI_SOURCE);
        else if (st.MPI_TAG == TAG_DONE)
            done++;
        out_reap(&m->out);
    }
}
