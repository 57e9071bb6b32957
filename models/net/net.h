/*
 * Links and collectives: the alpha-beta (Hockney) cost of moving bytes over
 * one link class, and of NCCL-style collectives over a group of GPUs that
 * may span nodes. A link class is a latency (alpha, per step) and a
 * per-direction bandwidth; a topology says which class joins two GPUs of one
 * node and which joins two nodes. Every figure cites docs/sources.md §2 and the
 * formulas docs/sources.md §3.2-3.4; see docs/hardware.md.
 *
 * All quantities are SI (bytes, bytes/s) with times in ns as doubles;
 * callers round. Entries are immutable and static; lookups return borrowed
 * pointers. Pure functions, no state, thread-safe.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stddef.h>

/* NCCL's hardware-latency class of a link (NVIDIA/nccl @ 5067397c
 * src/graph/tuning.cc hwLat[], docs/sources.md §2.2): it selects the per-step
 * latency of each protocol. */
enum net_hw {
    NET_HW_NVLINK, /* NVLink, xGMI */
    NET_HW_PCIE,   /* PCIe, host memory */
    NET_HW_NET,    /* InfiniBand, RoCE */
};

/* One link class: latency per step and bandwidth per direction. */
struct net_link {
    const char *name;    /* catalog key, e.g. "nvlink4", "ib-ndr" */
    const char *summary; /* one line with its source */
    double alpha_ns;     /* per-step latency (NCCL hardware latency) */
    double bytes_per_s;  /* per direction, nominal data rate */
    double efficiency;   /* achieved fraction of bytes_per_s, (0, 1] */
    /* Added for meshes: 0 when each GPU reaches the others through one
     * port of bytes_per_s (a switch, a bus, a NIC); k > 0 when the GPUs of
     * a node form a full mesh with one link of bytes_per_s per peer pair
     * and k links per GPU (MI300X xGMI, docs/sources.md §1.1). Collectives over
     * a group of g GPUs of a mesh use min(g - 1, k) links per GPU at once. */
    int mesh_peers;
    /* enum net_hw: which row of NCCL's per-protocol hardware latencies
     * applies; alpha_ns is its LL128 Ring entry, and the other protocols'
     * per-step latencies are scaled by alpha_ns over that entry, so a
     * calibrated alpha moves all three. */
    int hw;
    /* Added for vLLM's custom all-reduce (net_car_cost()): the time of one
     * of its flag barriers over this link, ns; 0 (the catalog's value) =
     * the class's LL per-step latency scaled by alpha (net_car_sync_ns()).
     * A calibration profile may set it (custom_allreduce_latency). */
    double car_sync_ns;
};

/* NULL-terminated, sorted by name. Borrowed, static. */
extern const struct net_link *const net_link_table[];

/* The entry named name (ASCII case ignored), or NULL. */
const struct net_link *net_link_find(const char *name);

/* Catalog names joined by ", ". Caller frees with free(). */
char *net_link_names(void);

/* Time of one point-to-point transfer of bytes over l:
 * alpha + bytes / (efficiency * bytes_per_s) (docs/sources.md §3.1).
 * Returns -1.0 when l is NULL or has no bandwidth, or bytes < 0. */
double net_p2p_ns(const struct net_link *l, double bytes);

/* The achieved bandwidth one GPU of a group of group_gpus GPUs within one
 * node has into l for a collective, bytes/s per direction: efficiency *
 * bytes_per_s, times min(group_gpus - 1, mesh_peers) for a mesh. Returns 0
 * for a NULL link or a mesh group of fewer than 2 GPUs. */
double net_link_gpu_bytes_per_s(const struct net_link *l, int group_gpus);

/* NCCL's base latency of one collective call with the LL128 protocol, in
 * ns (NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §2.2: 14.0
 * us for Ring and Tree). net_coll_cost() adds the base latency of the
 * protocol it picks (LL 6.6, LL128 14.0, Simple 8.4 us for Ring; 6.8,
 * 14.0, 8.4 for Tree) once per call. */
#define NET_NCCL_BASE_NS 14000.0

enum net_coll {
    NET_ALLREDUCE,
    NET_ALLGATHER,
    NET_REDUCESCATTER,
    NET_ALLTOALL,
    NET_BROADCAST,
    NET_SENDRECV,
};

enum net_algo {
    NET_ALGO_AUTO, /* the faster of ring and tree, as NCCL's tuner does */
    NET_ALGO_RING,
    NET_ALGO_TREE,
};

/* NCCL's protocols. net_coll_cost() evaluates each for the algorithm (or
 * both algorithms, AUTO) and keeps the fastest, as NCCL's tuner does
 * (docs/sources.md §3.4): LL at half the bandwidth with the lowest latency,
 * LL128 at 0.92 of it, Simple at all of it with the highest per-step latency.
 */
enum net_proto {
    NET_PROTO_LL,
    NET_PROTO_LL128,
    NET_PROTO_SIMPLE,
    NET_PROTO_COUNT,
};

/* Static name of protocol p ("LL", "LL128", "Simple"), "?" if none. */
const char *net_proto_name(int p);

/* Where a group of ranks sits: ranks_per_node consecutive ranks share a
 * node joined by intra; nodes are joined by inter with nics_per_node rails.
 * A group within one node ignores inter. */
struct net_topo {
    const struct net_link *intra; /* borrowed */
    const struct net_link *inter; /* borrowed; may be NULL for one node */
    int ranks_per_node;           /* >= 1 */
    int nics_per_node;            /* >= 1 */
};

/* The cost of one collective and its terms. */
struct net_cost {
    double total_ns;
    double latency_ns;   /* the base latency and the alpha terms */
    double base_ns;      /* of which NCCL's base latency of the call */
    double bandwidth_ns; /* the bytes terms */
    int algo;            /* enum net_algo actually used (ring or tree) */
    int proto;           /* enum net_proto used */
    int hierarchical;    /* 1 when intra-node then inter-node */
    const struct net_link *bottleneck; /* the slowest link crossed */
};

/* NCCL's bus-bandwidth factor for c over n ranks (nccl-tests
 * doc/PERFORMANCE.md via docs/sources.md §3.3): all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast and send/recv 1. */
double net_busbw_factor(enum net_coll c, int n);

/* Fills out with the time of collective c of bytes (the nccl-tests size S:
 * the full array for all-reduce, reduce-scatter and all-gather, the bytes
 * each rank sends in total for all-to-all, the message for broadcast and
 * send/recv) over ranks ranks placed by t, with algorithm a and the
 * fastest protocol for it: NCCL's base latency of the protocol, plus its
 * per-step latencies, plus the bytes at its share of the bandwidth
 * (docs/sources.md §2.2, §3.4). A group that spans nodes is hierarchical
 * (intra-node then inter-node, docs/sources.md §3.2).
 * Returns 0, or SIM_EINVAL for ranks < 1, bytes < 0, or a topology missing
 * the link it needs (out zeroed). One rank or zero bytes cost 0. */
int net_coll_cost(const struct net_topo *t, enum net_coll c, enum net_algo a,
                  int ranks, double bytes, struct net_cost *out);

/* The total_ns of net_coll_cost(), or -1.0 on invalid input. */
double net_coll_ns(const struct net_topo *t, enum net_coll c, enum net_algo a,
                   int ranks, double bytes);

/*
 * vLLM's custom all-reduce (vllm-project/vllm
 * vllm/distributed/device_communicators/custom_all_reduce.py and
 * csrc/custom_all_reduce.cuh, from recall, unverified; docs/hardware.md
 * "vLLM custom all-reduce"): tensor-parallel all-reduces of fewer than
 * NET_CAR_MAX_BYTES over 2, 4, 6 or 8 GPUs fully connected by NVLink run a
 * peer-memory kernel instead of NCCL. One-shot: every rank reads its p - 1
 * peers' whole buffers over NVLink and reduces; two-shot: a reduce-scatter
 * then an all-gather through peer memory. With B the achieved per-GPU
 * bandwidth (net_link_gpu_bytes_per_s()) and s a barrier
 * (net_car_sync_ns()):
 *   one-shot  kernel + s + (p - 1) n / B
 *   two-shot  kernel + 2 s + 2 (p - 1) / p n / B
 * kernel is the caller's fixed time of one kernel with its launch. The
 * reduction's own HBM traffic (p n read, n written) streams with the peer
 * reads at several times their rate and is not added.
 */

/* vLLM's default max_size of the custom all-reduce buffer: 8 MiB
 * (custom_all_reduce.py, from recall, unverified). */
#define NET_CAR_MAX_BYTES (8.0 * 1024.0 * 1024.0)

/* The kernel kinds (csrc/custom_all_reduce.cuh, from recall, unverified):
 * one-shot for 2 GPUs always, for up to 4 GPUs below 512 KiB, for up to 8
 * below 256 KiB; two-shot otherwise. */
enum net_car_shot {
    NET_CAR_NONE,    /* not eligible: NCCL runs the all-reduce */
    NET_CAR_ONESHOT, /* cross_device_reduce_1stage */
    NET_CAR_TWOSHOT, /* cross_device_reduce_2stage */
};

/* Static name of shot ("nccl", "one-shot", "two-shot"), "?" if none. */
const char *net_car_name(int shot);

/* Which kernel vLLM's custom all-reduce runs for bytes over ranks GPUs of
 * one node joined by l, or NET_CAR_NONE where it falls back to NCCL: l
 * not of the NVLink class (PCIe and the network; vLLM's two-GPU PCIe
 * peer-to-peer case is not modelled), ranks not 2, 4, 6 or 8, bytes not in
 * (0, NET_CAR_MAX_BYTES), or l NULL. */
int net_car_shot(const struct net_link *l, int ranks, double bytes);

/* One barrier of the custom all-reduce over l, ns: l->car_sync_ns when
 * set (> 0), else NCCL's Ring LL per-step hardware latency of l's class
 * scaled by l->alpha_ns over its LL128 entry (NVLink 0.6 us, docs/sources.md
 * §2.2): a flag write and poll across the link, the least a one-way
 * signal costs there. -1.0 for NULL. */
double net_car_sync_ns(const struct net_link *l);

/* The cost of the custom all-reduce and its terms. */
struct net_car_cost {
    double total_ns;
    double kernel_ns;    /* the caller's fixed kernel time */
    double sync_ns;      /* the barriers */
    double bandwidth_ns; /* the peer reads */
    int shot;            /* enum net_car_shot */
};

/* Fills out with the time of one custom all-reduce of bytes over ranks
 * GPUs joined by l (the formulas above), kernel_ns the fixed time of one
 * kernel. Returns 0; SIM_EINVAL (out zeroed) when net_car_shot() is
 * NET_CAR_NONE, kernel_ns < 0, or l has no bandwidth. */
int net_car_cost(const struct net_link *l, int ranks, double bytes,
                 double kernel_ns, struct net_car_cost *out);

#endif /* NET_NET_H */
