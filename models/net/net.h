/*
 * Links and collectives: the alpha-beta (Hockney) cost of moving bytes over
 * one link class, and of NCCL-style collectives over a group of GPUs that
 * may span nodes. A link class is a latency (alpha, per step) and a
 * per-direction bandwidth; a topology says which class joins two GPUs of one
 * node and which joins two nodes. Every figure cites FACTS.md §2 and the
 * formulas FACTS.md §3.2-3.4; see docs/hardware.md.
 *
 * All quantities are SI (bytes, bytes/s) with times in ns as doubles;
 * callers round. Entries are immutable and static; lookups return borrowed
 * pointers. Pure functions, no state, thread-safe.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stddef.h>

/* NCCL's hardware-latency class of a link (NVIDIA/nccl @ 5067397c
 * src/graph/tuning.cc hwLat[], FACTS.md §2.2): it selects the per-step
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
     * and k links per GPU (MI300X xGMI, FACTS.md §1.1). Collectives over a
     * group of g GPUs of a mesh use min(g - 1, k) links per GPU at once. */
    int mesh_peers;
    /* enum net_hw: which row of NCCL's per-protocol hardware latencies
     * applies; alpha_ns is its LL128 Ring entry, and the other protocols'
     * per-step latencies are scaled by alpha_ns over that entry, so a
     * calibrated alpha moves all three. */
    int hw;
};

/* NULL-terminated, sorted by name. Borrowed, static. */
extern const struct net_link *const net_link_table[];

/* The entry named name (ASCII case ignored), or NULL. */
const struct net_link *net_link_find(const char *name);

/* Catalog names joined by ", ". Caller frees with free(). */
char *net_link_names(void);

/* Time of one point-to-point transfer of bytes over l:
 * alpha + bytes / (efficiency * bytes_per_s) (FACTS.md §3.1).
 * Returns -1.0 when l is NULL or has no bandwidth, or bytes < 0. */
double net_p2p_ns(const struct net_link *l, double bytes);

/* The achieved bandwidth one GPU of a group of group_gpus GPUs within one
 * node has into l for a collective, bytes/s per direction: efficiency *
 * bytes_per_s, times min(group_gpus - 1, mesh_peers) for a mesh. Returns 0
 * for a NULL link or a mesh group of fewer than 2 GPUs. */
double net_link_gpu_bytes_per_s(const struct net_link *l, int group_gpus);

/* NCCL's base latency of one collective call with the LL128 protocol, in
 * ns (NVIDIA/nccl @ 5067397c src/graph/tuning.cc via FACTS.md §2.2: 14.0
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
 * (FACTS.md §3.4): LL at half the bandwidth with the lowest latency, LL128
 * at 0.92 of it, Simple at all of it with the highest per-step latency. */
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
 * doc/PERFORMANCE.md via FACTS.md §3.3): all-reduce 2(n-1)/n; all-gather,
 * reduce-scatter, all-to-all (n-1)/n; broadcast and send/recv 1. */
double net_busbw_factor(enum net_coll c, int n);

/* Fills out with the time of collective c of bytes (the nccl-tests size S:
 * the full array for all-reduce, reduce-scatter and all-gather, the bytes
 * each rank sends in total for all-to-all, the message for broadcast and
 * send/recv) over ranks ranks placed by t, with algorithm a and the
 * fastest protocol for it: NCCL's base latency of the protocol, plus its
 * per-step latencies, plus the bytes at its share of the bandwidth
 * (FACTS.md §2.2, §3.4). A group that spans nodes is hierarchical
 * (intra-node then inter-node, FACTS.md §3.2).
 * Returns 0, or SIM_EINVAL for ranks < 1, bytes < 0, or a topology missing
 * the link it needs (out zeroed). One rank or zero bytes cost 0. */
int net_coll_cost(const struct net_topo *t, enum net_coll c, enum net_algo a,
                  int ranks, double bytes, struct net_cost *out);

/* The total_ns of net_coll_cost(), or -1.0 on invalid input. */
double net_coll_ns(const struct net_topo *t, enum net_coll c, enum net_algo a,
                   int ranks, double bytes);

#endif /* NET_NET_H */
