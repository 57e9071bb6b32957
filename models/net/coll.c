/*
 * Collective costs: alpha-beta formulas for ring and tree algorithms over
 * one link class (Thakur, Rabenseifner & Gropp, IJHPCA 2005, and
 * Patarasuk & Yuan 2009, via docs/sources.md §3.2), the tree forms NCCL's tuner
 * uses (NVIDIA/nccl @ 5067397c src/graph/tuning.cc via docs/sources.md §3.4),
 * and their two-level (hierarchical) decomposition for groups spanning nodes.
 *
 * With p ranks, n bytes, alpha the link's per-step latency and B the
 * achieved per-GPU bandwidth (net_link_gpu_bytes_per_s()), one level costs:
 *
 *   all-reduce      ring 2(p-1)a + 2(p-1)/p n/B
 *                   tree 2 lg(p) a + 2 n/B  (NCCL double binary tree: the
 *                        reduce and broadcast halves each push n through
 *                        every GPU; NCCL's algBw = busBw / 2, docs/sources.md
 * §3.4) all-gather,     ring (p-1)a + (p-1)/p n/B reduce-scatter  tree lg(p) a
 * + (p-1)/p n/(0.75 B)  (recursive doubling or halving, Thakur et al.; 0.75 is
 * NCCL's PAT bandwidth factor, docs/sources.md §3.4) all-to-all      (p-1)a +
 * (p-1)/p n/B  (pairwise, the only algorithm) broadcast       ring (p-1)a + n/B
 * (pipelined chain, as NCCL's ring) tree lg(p) (a + n/B)  (binomial) send/recv
 * a + n/B  (every rank to its neighbour at once)
 *
 * lg(p) is ceil(log2 p). A group of N nodes x k ranks (k = the ranks of the
 * group per node) is hierarchical: all-reduce is an intra-node
 * reduce-scatter, an all-reduce of n/k per GPU among the N nodes (ring or
 * tree as asked), and an intra-node all-gather (docs/sources.md §3.2);
 * all-gather is an inter-node all-gather of n/k followed by an intra-node one;
 * reduce-scatter the mirror; all-to-all sends (k-1)/p of n inside the node
 * and (p-k)/p over the network; broadcast runs along the node leaders then
 * inside each node. The phases are chunk-pipelined, as NCCL's are, so the
 * bandwidth term is that of the most loaded link and the latency terms add
 * (the binomial broadcast is not pipelined: its terms add). The
 * inter-node bandwidth of a GPU is one NIC's when nics_per_node >= k,
 * else nics_per_node / k of one (rails shared); a GPU never drives more
 * than one NIC ("Alltoall cannot aggregate the bandwidth of multiple
 * NICs", docs/sources.md §2.3).
 *
 * Protocols (NCCL's tuner, NVIDIA/nccl @ 5067397c src/graph/tuning.cc via
 * docs/sources.md §2.2 and §3.4): every call pays NCCL's base latency of its
 * algorithm and protocol once (Ring LL 6.6, LL128 14.0, Simple 8.4 us;
 * Tree 6.8, 14.0, 8.4), each step the protocol's hardware latency of the
 * link's class (Ring NVLink 0.6 / 1.9 / 3.4, PCIe 1.0 / 2.5 / 5.7, network
 * 2.7 / 4.0 / 14.0 us; Tree NVLink 0.6 / 1.25 / 4.0, PCIe 1.0 / 1.9 / 4.0,
 * network 5.0 / 8.5 / 14 us), and moves the bytes at the protocol's share
 * of B: Ring LL 0.5, LL128 0.92, Simple 1; Tree LL 1/3.8, LL128 7/9 in one
 * node and 120/128 across nodes, Simple 1. B, the link's achieved
 * bandwidth, is what nccl-tests measures for large messages, i.e. Simple's.
 * The link's alpha is its class's Ring LL128 entry; a calibrated alpha
 * scales all of its class's entries by the same ratio. The algorithm
 * (AUTO) and the protocol giving the least time are kept, as NCCL's tuner
 * picks by the same time model. Not modelled: NCCL's per-channel caps
 * (llMaxBw, perChMaxRingLL128Bw), the multi-node Ring/Simple latency
 * factor 1.4, NVLS. NCCL sends all-to-all and send/recv as grouped
 * point-to-point operations; they are priced here as a Ring call.
 */
#include "models/net/net.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "base/errors.h"
#include "sim/time.h"

/* NCCL's PAT bandwidth factor (docs/sources.md §3.4). */
#define PAT_BW_FACTOR 0.75

/* NCCL's per-step hardware latency in us, [tree][enum net_hw][enum
 * net_proto], and base latency per call in us, [tree][enum net_proto]
 * (NVIDIA/nccl @ 5067397c src/graph/tuning.cc, docs/sources.md §2.2). */
static const double hw_lat_us[2][3][NET_PROTO_COUNT] = {
    {{0.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}},
    {{0.6, 1.25, 4.0}, {1.0, 1.9, 4.0}, {5.0, 8.5, 14.0}},
};
static const double base_lat_us[2][NET_PROTO_COUNT] = {
    {6.6, 14.0, 8.4},
    {6.8, 14.0, 8.4},
};

/* The share of the link's (Simple) bandwidth each protocol reaches,
 * [tree][proto] (docs/sources.md §3.4); Tree LL128 across nodes is 120/128. */
static const double proto_bw[2][NET_PROTO_COUNT] = {
    {0.5, 0.92, 1.0},
    {1.0 / 3.8, 7.0 / 9.0, 1.0},
};
#define TREE_LL128_BW_MULTINODE (120.0 / 128.0)

const char *net_proto_name(int p)
{
    switch (p) {
    case NET_PROTO_LL:
        return "LL";
    case NET_PROTO_LL128:
        return "LL128";
    case NET_PROTO_SIMPLE:
        return "Simple";
    }
    return "?";
}

/* l as protocol proto of algorithm tree sees it: the per-step latency of
 * its class scaled by its alpha over the class's Ring LL128 entry, and its
 * efficiency times the protocol's share of the bandwidth. */
static struct net_link proto_link(const struct net_link *l, int tree, int proto,
                                  int nodes)
{
    struct net_link o = *l;
    int hw =
        l->hw >= NET_HW_NVLINK && l->hw <= NET_HW_NET ? l->hw : NET_HW_NVLINK;
    double share = proto_bw[tree][proto];

    if (tree && proto == NET_PROTO_LL128 && nodes > 1)
        share = TREE_LL128_BW_MULTINODE;
    o.alpha_ns = l->alpha_ns * hw_lat_us[tree][hw][proto] /
                 hw_lat_us[0][hw][NET_PROTO_LL128];
    o.efficiency = l->efficiency * share;
    return o;
}

/* One evaluated algorithm: its latency and the bandwidth time each link
 * level needs; combined by finish(). */
struct terms {
    double lat_ns;
    double intra_ns; /* bytes over the intra-node link / its bandwidth */
    double inter_ns; /* bytes over the inter-node link / its bandwidth */
    int serial;      /* 1: the levels add (not pipelined) */
};

static int ceil_log2(int p)
{
    int d = 0;

    while ((1L << d) < (long)p)
        d++;
    return d;
}

static int link_ok(const struct net_link *l)
{
    return l != NULL && l->bytes_per_s > 0.0 && l->efficiency > 0.0 &&
           l->efficiency <= 1.0 && l->alpha_ns >= 0.0;
}

/* The per-GPU inter-node bandwidth when k GPUs of a node use the rails at
 * once. */
static double inter_gpu_bw(const struct net_topo *t, int k)
{
    double share = (double)t->nics_per_node / (double)k;

    if (share > 1.0)
        share = 1.0;
    return t->inter->efficiency * t->inter->bytes_per_s * share;
}

/* One level of p ranks over a link of per-GPU bandwidth bw: the formulas of
 * the file comment. Sets *lat and returns the bandwidth time. */
static double level(enum net_coll c, int tree, int p, double n, double alpha,
                    double bw, double *lat)
{
    double f = (double)(p - 1) / (double)p;
    int lg = ceil_log2(p);

    if (p <= 1) {
        *lat = 0.0;
        return 0.0;
    }
    switch (c) {
    case NET_ALLREDUCE:
        *lat = tree ? 2.0 * lg * alpha : 2.0 * (p - 1) * alpha;
        return tree ? 2.0 * n / bw : 2.0 * f * n / bw;
    case NET_ALLGATHER:
    case NET_REDUCESCATTER:
        *lat = tree ? lg * alpha : (p - 1) * alpha;
        return tree ? f * n / (PAT_BW_FACTOR * bw) : f * n / bw;
    case NET_ALLTOALL:
        *lat = (p - 1) * alpha;
        return f * n / bw;
    case NET_BROADCAST:
        *lat = tree ? lg * alpha : (p - 1) * alpha;
        return tree ? lg * n / bw : n / bw;
    case NET_SENDRECV:
        *lat = alpha;
        return n / bw;
    }
    *lat = 0.0;
    return 0.0;
}

/* The cost of c with algorithm tree (0 ring, 1 tree) over N nodes of k
 * ranks; N == 1 is a single level over the intra link. */
static struct terms eval(const struct net_topo *t, enum net_coll c, int tree,
                         int p, int k, int nodes, double n)
{
    struct terms r = {0.0, 0.0, 0.0, 0};
    const struct net_link *li = t->intra, *le = t->inter;
    double lat, bwi, bwe, bwe1;

    if (nodes == 1) {
        bwi = c == NET_SENDRECV ? li->efficiency * li->bytes_per_s
                                : net_link_gpu_bytes_per_s(li, p);
        r.intra_ns =
            level(c, tree, p, n, li->alpha_ns, bwi, &lat) * SIM_NS_PER_S_F;
        r.lat_ns = lat;
        return r;
    }
    bwi = k > 1 ? net_link_gpu_bytes_per_s(li, k) : 0.0;
    bwe = inter_gpu_bw(t, k);
    /* One GPU per node crossing: a whole NIC. */
    bwe1 = le->efficiency * le->bytes_per_s;
    switch (c) {
    case NET_ALLREDUCE:
        /* Intra reduce-scatter and all-gather: 2(k-1) steps, 2(k-1)/k n. */
        if (k > 1) {
            r.intra_ns =
                level(c, 0, k, n, li->alpha_ns, bwi, &lat) * SIM_NS_PER_S_F;
            r.lat_ns += lat;
        }
        r.inter_ns = level(c, tree, nodes, n / k, le->alpha_ns, bwe, &lat) *
                     SIM_NS_PER_S_F;
        r.lat_ns += lat;
        break;
    case NET_ALLGATHER:
    case NET_REDUCESCATTER:
        if (k > 1) {
            r.intra_ns =
                level(c, tree, k, n, li->alpha_ns, bwi, &lat) * SIM_NS_PER_S_F;
            r.lat_ns += lat;
        }
        r.inter_ns = level(c, tree, nodes, n / k, le->alpha_ns, bwe, &lat) *
                     SIM_NS_PER_S_F;
        r.lat_ns += lat;
        break;
    case NET_ALLTOALL:
        /* Direct sends: k-1 peers inside the node, p-k outside, each n/p. */
        if (k > 1) {
            r.intra_ns = (double)(k - 1) / p * n / bwi * SIM_NS_PER_S_F;
            r.lat_ns = (k - 1) * li->alpha_ns;
        }
        r.inter_ns = (double)(p - k) / p * n / bwe * SIM_NS_PER_S_F;
        r.lat_ns += (p - k) * le->alpha_ns;
        break;
    case NET_BROADCAST:
        if (k > 1) {
            r.intra_ns =
                level(c, tree, k, n, li->alpha_ns, bwi, &lat) * SIM_NS_PER_S_F;
            r.lat_ns += lat;
        }
        r.inter_ns =
            level(c, tree, nodes, n, le->alpha_ns, bwe1, &lat) * SIM_NS_PER_S_F;
        r.lat_ns += lat;
        r.serial = tree;
        break;
    case NET_SENDRECV:
        /* Neighbours inside a node and across a node boundary send at
         * once; the slower pair sets the time. */
        if (k > 1 && li->alpha_ns + n / (li->efficiency * li->bytes_per_s) *
                                        SIM_NS_PER_S_F >
                         le->alpha_ns + n / bwe1 * SIM_NS_PER_S_F) {
            r.intra_ns =
                n / (li->efficiency * li->bytes_per_s) * SIM_NS_PER_S_F;
            r.lat_ns = li->alpha_ns;
        } else {
            r.inter_ns = n / bwe1 * SIM_NS_PER_S_F;
            r.lat_ns = le->alpha_ns;
        }
        break;
    }
    return r;
}

static void finish(const struct net_topo *t, const struct terms *r, int algo,
                   int proto, int hier, struct net_cost *out)
{
    memset(out, 0, sizeof(*out));
    out->base_ns =
        base_lat_us[algo == NET_ALGO_TREE][proto] * (double)SIM_NS_PER_US;
    out->latency_ns = out->base_ns + r->lat_ns;
    out->proto = proto;
    if (r->serial)
        out->bandwidth_ns = r->intra_ns + r->inter_ns;
    else
        out->bandwidth_ns =
            r->intra_ns > r->inter_ns ? r->intra_ns : r->inter_ns;
    out->total_ns = out->latency_ns + out->bandwidth_ns;
    out->algo = algo;
    out->hierarchical = hier;
    /* The link whose bandwidth term is the larger; on a tie (or no bytes
     * term) the link with the lower per-direction rate. */
    if (!hier)
        out->bottleneck = t->intra;
    else if (t->intra == NULL || r->inter_ns > r->intra_ns)
        out->bottleneck = t->inter;
    else if (r->intra_ns > r->inter_ns)
        out->bottleneck = t->intra;
    else
        out->bottleneck =
            t->intra->bytes_per_s < t->inter->bytes_per_s ? t->intra : t->inter;
}

static int one_algo(enum net_coll c)
{
    return c == NET_ALLTOALL || c == NET_SENDRECV;
}

/* The fastest protocol for algorithm tree: fills out. */
static void best_proto(const struct net_topo *t, enum net_coll c, int tree,
                       int ranks, int k, int nodes, double bytes,
                       struct net_cost *out)
{
    for (int p = 0; p < NET_PROTO_COUNT; p++) {
        struct net_link li, le;
        struct net_topo tp = *t;
        struct net_cost cost;
        struct terms r;

        if (t->intra != NULL) {
            li = proto_link(t->intra, tree, p, nodes);
            tp.intra = &li;
        }
        if (t->inter != NULL) {
            le = proto_link(t->inter, tree, p, nodes);
            tp.inter = &le;
        }
        r = eval(&tp, c, tree, ranks, k, nodes, bytes);
        finish(t, &r, tree ? NET_ALGO_TREE : NET_ALGO_RING, p, nodes > 1,
               &cost);
        /* A tie keeps the earlier protocol. */
        if (p == 0 || cost.total_ns < out->total_ns)
            *out = cost;
    }
}

int net_coll_cost(const struct net_topo *t, enum net_coll c, enum net_algo a,
                  int ranks, double bytes, struct net_cost *out)
{
    struct net_cost ring, tree;
    int k, nodes;

    if (out == NULL)
        return SIM_EINVAL;
    memset(out, 0, sizeof(*out));
    if (t == NULL || t->ranks_per_node < 1 || t->nics_per_node < 1 ||
        ranks < 1 || !(bytes >= 0.0) || isinf(bytes) ||
        (int)c < NET_ALLREDUCE || (int)c > NET_SENDRECV ||
        (int)a < NET_ALGO_AUTO || (int)a > NET_ALGO_TREE)
        return SIM_EINVAL;
    k = ranks < t->ranks_per_node ? ranks : t->ranks_per_node;
    /* A partial last node is costed as a full one (an upper bound). */
    nodes = (ranks + k - 1) / k;
    if ((k > 1 && !link_ok(t->intra)) || (nodes > 1 && !link_ok(t->inter)))
        return SIM_EINVAL;
    if (ranks == 1 || bytes == 0.0) {
        out->algo =
            a == NET_ALGO_TREE && !one_algo(c) ? NET_ALGO_TREE : NET_ALGO_RING;
        return 0;
    }
    if (one_algo(c))
        a = NET_ALGO_RING;
    best_proto(t, c, 0, ranks, k, nodes, bytes, &ring);
    if (a == NET_ALGO_RING) {
        *out = ring;
        return 0;
    }
    best_proto(t, c, 1, ranks, k, nodes, bytes, &tree);
    /* AUTO keeps ring on a tie, as the bandwidth-optimal choice. */
    *out = a == NET_ALGO_TREE || tree.total_ns < ring.total_ns ? tree : ring;
    return 0;
}

double net_coll_ns(const struct net_topo *t, enum net_coll c, enum net_algo a,
                   int ranks, double bytes)
{
    struct net_cost cost;

    if (net_coll_cost(t, c, a, ranks, bytes, &cost) != 0)
        return -1.0;
    return cost.total_ns;
}

double net_busbw_factor(enum net_coll c, int n)
{
    if (n < 1)
        return 0.0;
    switch (c) {
    case NET_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case NET_ALLGATHER:
    case NET_REDUCESCATTER:
    case NET_ALLTOALL:
        return (double)(n - 1) / n;
    case NET_BROADCAST:
    case NET_SENDRECV:
        return 1.0;
    }
    return 0.0;
}

/* ---- vLLM's custom all-reduce (net.h) ---- */

/* The one-shot limits of cross_device_reduce_1stage by group size
 * (csrc/custom_all_reduce.cuh, from recall, unverified). */
#define CAR_ONESHOT_MAX_4 (512.0 * 1024.0)
#define CAR_ONESHOT_MAX_8 (256.0 * 1024.0)

const char *net_car_name(int shot)
{
    switch (shot) {
    case NET_CAR_NONE:
        return "nccl";
    case NET_CAR_ONESHOT:
        return "one-shot";
    case NET_CAR_TWOSHOT:
        return "two-shot";
    }
    return "?";
}

int net_car_shot(const struct net_link *l, int ranks, double bytes)
{
    if (l == NULL || l->hw != NET_HW_NVLINK ||
        !(ranks == 2 || ranks == 4 || ranks == 6 || ranks == 8) ||
        !(bytes > 0.0 && bytes < NET_CAR_MAX_BYTES))
        return NET_CAR_NONE;
    if (ranks == 2 || (ranks <= 4 && bytes < CAR_ONESHOT_MAX_4) ||
        bytes < CAR_ONESHOT_MAX_8)
        return NET_CAR_ONESHOT;
    return NET_CAR_TWOSHOT;
}

double net_car_sync_ns(const struct net_link *l)
{
    int hw;

    if (l == NULL)
        return -1.0;
    if (l->car_sync_ns > 0.0)
        return l->car_sync_ns;
    hw = l->hw >= NET_HW_NVLINK && l->hw <= NET_HW_NET ? l->hw : NET_HW_NVLINK;
    return l->alpha_ns * hw_lat_us[0][hw][NET_PROTO_LL] /
           hw_lat_us[0][hw][NET_PROTO_LL128];
}

int net_car_cost(const struct net_link *l, int ranks, double bytes,
                 double kernel_ns, struct net_car_cost *out)
{
    int shot = net_car_shot(l, ranks, bytes);
    double bw, p = ranks;

    if (out == NULL)
        return SIM_EINVAL;
    memset(out, 0, sizeof(*out));
    if (shot == NET_CAR_NONE || !(kernel_ns >= 0.0) || !link_ok(l))
        return SIM_EINVAL;
    bw = net_link_gpu_bytes_per_s(l, ranks);
    if (!(bw > 0.0))
        return SIM_EINVAL;
    out->shot = shot;
    out->kernel_ns = kernel_ns;
    if (shot == NET_CAR_ONESHOT) {
        out->sync_ns = net_car_sync_ns(l);
        out->bandwidth_ns = (p - 1.0) * bytes / bw * SIM_NS_PER_S_F;
    } else {
        out->sync_ns = 2.0 * net_car_sync_ns(l);
        out->bandwidth_ns = 2.0 * (p - 1.0) / p * bytes / bw * SIM_NS_PER_S_F;
    }
    out->total_ns = out->kernel_ns + out->sync_ns + out->bandwidth_ns;
    return 0;
}
