/*
 * The "net" suite: the link catalog, point-to-point and collective costs
 * (models/net/), and the GPU catalog's scale-up figures (models/gpu/).
 * Expected values are worked by hand in the comments from docs/sources.md
 * §1-§3, so that a change to a formula or a figure shows up here.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/gpu/gpu.h"
#include "models/net/net.h"
#include "base/errors.h"

#define GIB 1073741824.0

/* Relative closeness, for values computed in a different order. */
#define ck_assert_rel(x, want, rel)                                            \
    ck_assert_msg(fabs((x) - (want)) <= (rel)*fabs(want),                      \
                  "%s = %.9g, want %.9g", #x, (double)(x), (double)(want))

static const struct net_link *must_link(const char *name)
{
    const struct net_link *l = net_link_find(name);

    ck_assert_msg(l != NULL, "no link %s", name);
    return l;
}

static const struct gpu_spec *must_gpu(const char *name)
{
    const struct gpu_spec *g = gpu_find(name);

    ck_assert_msg(g != NULL, "no gpu %s", name);
    return g;
}

/* One HGX node of eight GPUs with the given intra-node link. */
static struct net_topo node8(const char *intra)
{
    struct net_topo t = {must_link(intra), NULL, 8, 1};

    return t;
}

/* Nodes of eight H100 (NVLink4) joined by nics rails of NDR. */
static struct net_topo h100_ndr(int nics)
{
    struct net_topo t = {must_link("nvlink4"), must_link("ib-ndr"), 8, nics};

    return t;
}

/* ---- link catalog ---- */

START_TEST(test_net_link_table_sorted_unique_sane)
{
    size_t i;

    ck_assert_ptr_nonnull(net_link_table[0]);
    for (i = 0; net_link_table[i] != NULL; i++) {
        const struct net_link *l = net_link_table[i];
        ck_assert_msg(l->summary != NULL &&
                          strstr(l->summary, "docs/sources.md"),
                      "%s summary must cite docs/sources.md", l->name);
        ck_assert_msg(l->alpha_ns > 0 && l->bytes_per_s > 0, "%s", l->name);
        ck_assert_msg(l->efficiency > 0 && l->efficiency <= 1.0, "%s", l->name);
        ck_assert(l->mesh_peers >= 0);
        if (net_link_table[i + 1] != NULL)
            ck_assert_msg(strcmp(l->name, net_link_table[i + 1]->name) < 0,
                          "%s before %s", l->name, net_link_table[i + 1]->name);
    }
    ck_assert_uint_eq(i, 17);
}
END_TEST

START_TEST(test_net_link_find_figures)
{
    /* docs/sources.md §2.1 nominal rates per direction. */
    ck_assert_double_eq(must_link("nvlink3")->bytes_per_s, 300e9);
    ck_assert_double_eq(must_link("NVLink4")->bytes_per_s, 450e9);
    ck_assert_double_eq(must_link("nvlink-h800")->bytes_per_s, 200e9);
    ck_assert_double_eq(must_link("nvlink5")->bytes_per_s, 900e9);
    ck_assert_double_eq(must_link("xgmi")->bytes_per_s, 64e9);
    ck_assert_int_eq(must_link("xgmi")->mesh_peers, 7);
    ck_assert_double_eq(must_link("pcie4")->bytes_per_s, 31.5e9);
    ck_assert_double_eq(must_link("pcie5")->bytes_per_s, 63.0e9);
    ck_assert_double_eq(must_link("ib-ndr")->bytes_per_s, 50e9);
    ck_assert_double_eq(must_link("roce-800")->bytes_per_s, 100e9);
    /* docs/sources.md §2.3: 370 of 450 GB/s NVLink; 48 of 50 GB/s per NDR NIC.
     */
    ck_assert_rel(must_link("nvlink4")->efficiency * 450e9, 370e9, 1e-12);
    ck_assert_rel(must_link("ib-ndr")->efficiency * 50e9, 48e9, 1e-12);
    /* docs/sources.md §2.2: NCCL LL128 Ring NVLink 1.9 us, PCIe 2.5,
     * network 4.0. */
    ck_assert_double_eq(must_link("nvlink4")->alpha_ns, 1900.0);
    ck_assert_double_eq(must_link("pcie4")->alpha_ns, 2500.0);
    ck_assert_double_eq(must_link("ib-hdr")->alpha_ns, 4000.0);
    ck_assert_ptr_null(net_link_find("nvlink"));
    ck_assert_ptr_null(net_link_find(NULL));
}
END_TEST

START_TEST(test_net_link_names_list)
{
    char *s = net_link_names();

    ck_assert_str_eq(s, "host-dram, ib-edr, ib-hdr, ib-ndr, ib-xdr, "
                        "nvlink-h800, nvlink3, nvlink4, nvlink5, pcie4, "
                        "pcie5, pcie6, roce-100, roce-200, roce-400, "
                        "roce-800, xgmi");
    free(s);
}
END_TEST

/* ---- point to point ---- */

START_TEST(test_net_p2p_ns_hockney)
{
    /* 1 MB over NDR: 4,000 ns + 1e6 B / 48e9 B/s = 4,000 + 20,833.33 ns. */
    ck_assert_rel(net_p2p_ns(must_link("ib-ndr"), 1e6), 24833.3333333, 1e-9);
    /* Zero bytes cost the latency alone. */
    ck_assert_double_eq(net_p2p_ns(must_link("nvlink4"), 0.0), 1900.0);
    /* One xGMI pair is one 64 GB/s link: 1 GiB / (0.8222 * 64e9) + 1.9 us =
     * 1,073,741,824 / 52.622e9 s = 20,404,695 ns + 1,900 ns. */
    ck_assert_rel(net_p2p_ns(must_link("xgmi"), GIB),
                  1900.0 + GIB / (370.0 / 450.0 * 64e9) * 1e9, 1e-12);
    ck_assert_double_eq(net_p2p_ns(NULL, 1.0), -1.0);
    ck_assert_double_eq(net_p2p_ns(must_link("pcie5"), -1.0), -1.0);
    ck_assert_double_eq(net_p2p_ns(must_link("pcie5"), NAN), -1.0);
}
END_TEST

START_TEST(test_net_link_gpu_bytes_per_s_mesh)
{
    const struct net_link *x = must_link("xgmi");
    double eff = x->efficiency;

    /* A switched port: one rate whatever the group. */
    ck_assert_rel(net_link_gpu_bytes_per_s(must_link("nvlink4"), 4), 370e9,
                  1e-12);
    /* Mesh: 8 GPUs use 7 links x 64 GB/s = 448 GB/s; 4 GPUs use 3. */
    ck_assert_rel(net_link_gpu_bytes_per_s(x, 8), eff * 448e9, 1e-12);
    ck_assert_rel(net_link_gpu_bytes_per_s(x, 4), eff * 192e9, 1e-12);
    ck_assert_rel(net_link_gpu_bytes_per_s(x, 16), eff * 448e9, 1e-12);
    ck_assert_double_eq(net_link_gpu_bytes_per_s(x, 1), 0.0);
    ck_assert_double_eq(net_link_gpu_bytes_per_s(NULL, 8), 0.0);
}
END_TEST

/* ---- bus bandwidth factors ---- */

START_TEST(test_net_busbw_factor_nccl_tests)
{
    /* nccl-tests doc/PERFORMANCE.md via docs/sources.md §3.3. */
    ck_assert_double_eq(net_busbw_factor(NET_ALLREDUCE, 8), 1.75);
    ck_assert_double_eq(net_busbw_factor(NET_ALLREDUCE, 16), 1.875);
    ck_assert_double_eq(net_busbw_factor(NET_ALLGATHER, 8), 0.875);
    ck_assert_double_eq(net_busbw_factor(NET_REDUCESCATTER, 4), 0.75);
    ck_assert_double_eq(net_busbw_factor(NET_ALLTOALL, 2), 0.5);
    ck_assert_double_eq(net_busbw_factor(NET_BROADCAST, 8), 1.0);
    ck_assert_double_eq(net_busbw_factor(NET_SENDRECV, 2), 1.0);
    ck_assert_double_eq(net_busbw_factor(NET_ALLREDUCE, 1), 0.0);
    ck_assert_double_eq(net_busbw_factor(NET_ALLREDUCE, 0), 0.0);
}
END_TEST

/* ---- single-node collectives ---- */

START_TEST(test_net_coll_cost_ring_allreduce_8xh100)
{
    struct net_topo t = node8("nvlink4");
    struct net_cost c;

    /* Ring all-reduce of 1 GiB on 8 GPUs over NVLink4 (docs/sources.md §3.2),
     * NCCL's Simple protocol (docs/sources.md §2.2): base 8,400 ns + 2(p-1) x
     * 3,400 = 47,600 ns; 2 (p-1)/p n / B = 1.75 x 1,073,741,824 B /
     * (370/450 x 450e9 = 370e9 B/s) = 5,078,508.6 ns; total 5,134,508.6
     * ns. LL128 would cost 14,000 + 14 x 1,900 + 5,078,508.6 / 0.92. */
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_RING, 8, GIB, &c), 0);
    ck_assert_rel(c.latency_ns, 56000.0, 1e-12);
    ck_assert_rel(c.base_ns, 8400.0, 1e-12);
    ck_assert_rel(c.bandwidth_ns, 1.75 * GIB / 370e9 * 1e9, 1e-12);
    ck_assert_rel(c.total_ns, 5134508.627027, 1e-9);
    ck_assert_int_eq(c.proto, NET_PROTO_SIMPLE);
    ck_assert_int_eq(c.algo, NET_ALGO_RING);
    ck_assert_int_eq(c.hierarchical, 0);
    ck_assert_ptr_eq(c.bottleneck, must_link("nvlink4"));
    /* Its busbw is the achieved link rate less the latency share: 1 GiB x
     * 1.75 / 5.135 ms = 366.0 GB/s, inside docs/sources.md §2.3's 370 GB/s
     * ring. */
    ck_assert_rel(GIB * 1.75 / (c.total_ns * 1e-9), 365.96e9, 1e-3);
}
END_TEST

START_TEST(test_net_coll_cost_tree_allreduce_terms)
{
    struct net_topo t = node8("nvlink4");
    struct net_cost c;

    /* Double binary tree (docs/sources.md §3.2, §3.4) of 1 MiB, LL128: base
     * 14,000 ns + 2 lg(8) x 1,250 (Tree NVLink LL128) = 21,500 ns; 2 n /
     * (7/9 B) = 2 x 1 MiB / (7/9 x 370e9) = 7,287.4 ns; 28,787.4 ns in
     * all, against LL's 6,800 + 6 x 600 + 3.8 x 5,668.0 = 31,938.4 and
     * Simple's 8,400 + 6 x 4,000 + 5,668.0 = 38,068.0. */
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_TREE, 8, 1048576.0, &c), 0);
    ck_assert_rel(c.latency_ns, 21500.0, 1e-12);
    ck_assert_rel(c.bandwidth_ns, 2.0 * 1048576.0 / (7.0 / 9.0 * 370e9) * 1e9,
                  1e-12);
    ck_assert_int_eq(c.proto, NET_PROTO_LL128);
    ck_assert_int_eq(c.algo, NET_ALGO_TREE);
}
END_TEST

START_TEST(test_net_coll_cost_other_collectives_8xh100)
{
    struct net_topo t = node8("nvlink4");
    double n = 256.0 * 1048576.0;

    /* Ring all-gather, Simple: 8,400 + 7 x 3,400 + 7/8 x 268,435,456 /
     * 370e9 s = 32,200 + 634,813.6 ns. */
    ck_assert_rel(net_coll_ns(&t, NET_ALLGATHER, NET_ALGO_RING, 8, n),
                  32200.0 + 0.875 * n / 370e9 * 1e9, 1e-12);
    /* Reduce-scatter costs the same as all-gather on a ring. */
    ck_assert_rel(net_coll_ns(&t, NET_REDUCESCATTER, NET_ALGO_RING, 8, n),
                  net_coll_ns(&t, NET_ALLGATHER, NET_ALGO_RING, 8, n), 1e-15);
    /* PAT-like tree, Simple: 8,400 + 3 x 4,000 (Tree NVLink Simple) + 7/8
     * n / (0.75 x 370e9). */
    ck_assert_rel(net_coll_ns(&t, NET_ALLGATHER, NET_ALGO_TREE, 8, n),
                  20400.0 + 0.875 * n / (0.75 * 370e9) * 1e9, 1e-12);
    /* Pairwise all-to-all: base + 7 alpha + 7/8 n / B, whatever algo is
     * asked. */
    ck_assert_rel(net_coll_ns(&t, NET_ALLTOALL, NET_ALGO_TREE, 8, n),
                  32200.0 + 0.875 * n / 370e9 * 1e9, 1e-12);
    /* Broadcast: pipelined chain base + 7 alpha + n / B; binomial base + 3
     * (alpha + n/B). */
    ck_assert_rel(net_coll_ns(&t, NET_BROADCAST, NET_ALGO_RING, 8, n),
                  32200.0 + n / 370e9 * 1e9, 1e-12);
    ck_assert_rel(net_coll_ns(&t, NET_BROADCAST, NET_ALGO_TREE, 8, n),
                  8400.0 + 3.0 * (4000.0 + n / 370e9 * 1e9), 1e-12);
    /* Send/recv is one point-to-point transfer plus NCCL's base latency:
     * 8,400 + 3,400 + n / B. */
    ck_assert_rel(net_coll_ns(&t, NET_SENDRECV, NET_ALGO_AUTO, 2, n),
                  11800.0 + n / 370e9 * 1e9, 1e-12);
}
END_TEST

START_TEST(test_net_coll_cost_protocols)
{
    struct net_topo t2 = {must_link("nvlink4"), NULL, 2, 1};
    struct net_topo t8 = node8("nvlink4");
    struct net_cost c;

    /* 8 KiB all-reduce on 2 H100 over NVLink, NCCL's LL (docs/sources.md §2.2,
     * §3.4): base 6,600 + 2(p-1) x 600 = 7,800 ns; 2 (p-1)/p n / (0.5 B) =
     * 8,192 / 185e9 s = 44.28 ns; 7,844.28 ns. LL128: 14,000 + 2 x 1,900 +
     * 8,192 / (0.92 x 370e9) = 17,824 ns; Simple 8,400 + 6,800 + 22 ns;
     * the tree's LL 6,800 + 2 x 600 + 2 n / (B / 3.8) = 8,168 ns. */
    ck_assert_int_eq(
        net_coll_cost(&t2, NET_ALLREDUCE, NET_ALGO_AUTO, 2, 8192.0, &c), 0);
    ck_assert_int_eq(c.proto, NET_PROTO_LL);
    ck_assert_int_eq(c.algo, NET_ALGO_RING);
    ck_assert_rel(c.base_ns, 6600.0, 1e-12);
    ck_assert_rel(c.total_ns, 7800.0 + 8192.0 / 185e9 * 1e9, 1e-12);
    /* 8 GPUs: 256 KiB runs the tree with LL, 6,800 + 2 lg(8) x 600 + 2 n
     * / (370e9 / 3.8) = 15,784.58 ns (ring LL 17,479.74); 4 MiB the tree
     * with LL128, 14,000 + 6 x 1,250 + 2 n / (7/9 x 370e9) = 50,649.60
     * ns (ring LL 54,675.85); 1 GiB the ring with Simple (above). */
    ck_assert_int_eq(
        net_coll_cost(&t8, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 262144.0, &c), 0);
    ck_assert_int_eq(c.proto, NET_PROTO_LL);
    ck_assert_int_eq(c.algo, NET_ALGO_TREE);
    ck_assert_rel(c.total_ns, 15784.579459, 1e-9);
    ck_assert_int_eq(
        net_coll_cost(&t8, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 4194304.0, &c), 0);
    ck_assert_int_eq(c.proto, NET_PROTO_LL128);
    ck_assert_int_eq(c.algo, NET_ALGO_TREE);
    ck_assert_rel(c.total_ns, 50649.603089, 1e-9);
    ck_assert_int_eq(
        net_coll_cost(&t8, NET_ALLREDUCE, NET_ALGO_AUTO, 8, GIB, &c), 0);
    ck_assert_int_eq(c.proto, NET_PROTO_SIMPLE);
    ck_assert_int_eq(c.algo, NET_ALGO_RING);
    ck_assert_str_eq(net_proto_name(NET_PROTO_LL128), "LL128");
    ck_assert_str_eq(net_proto_name(7), "?");
}
END_TEST

START_TEST(test_net_coll_cost_one_rank_zero_bytes_free)
{
    struct net_topo t = node8("nvlink4");
    struct net_topo bare = {NULL, NULL, 8, 1};
    struct net_cost c;

    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 1, GIB, &c), 0);
    ck_assert_double_eq(c.total_ns, 0.0);
    ck_assert_double_eq(c.latency_ns, 0.0);
    ck_assert_ptr_null(c.bottleneck);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLGATHER, NET_ALGO_RING, 8, 0.0, &c), 0);
    ck_assert_double_eq(c.total_ns, 0.0);
    ck_assert_int_eq(c.algo, NET_ALGO_RING);
    /* One rank needs no link at all. */
    ck_assert_double_eq(
        net_coll_ns(&bare, NET_ALLREDUCE, NET_ALGO_AUTO, 1, GIB), 0.0);
}
END_TEST

START_TEST(test_net_coll_cost_invalid)
{
    struct net_topo t = node8("nvlink4");
    struct net_topo no_intra = {NULL, NULL, 8, 1};
    struct net_topo bad_rpn = {must_link("nvlink4"), NULL, 0, 1};
    struct net_topo bad_nics = h100_ndr(0);
    struct net_cost c;

    c.total_ns = 42.0;
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 0, GIB, &c),
        SIM_EINVAL);
    ck_assert_double_eq(c.total_ns, 0.0);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, -1.0, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, NAN, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, INFINITY, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(NULL, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 1.0, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 1.0, NULL),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&t, (enum net_coll)99, NET_ALGO_AUTO, 8, 1.0, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, (enum net_algo)7, 8, 1.0, &c),
        SIM_EINVAL);
    /* Missing links: intra for 8 ranks of a node, inter across nodes. */
    ck_assert_int_eq(
        net_coll_cost(&no_intra, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 1.0, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 16, 1.0, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&bad_rpn, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 1.0, &c),
        SIM_EINVAL);
    ck_assert_int_eq(
        net_coll_cost(&bad_nics, NET_ALLREDUCE, NET_ALGO_AUTO, 16, 1.0, &c),
        SIM_EINVAL);
    ck_assert_double_eq(net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 16, 1.0),
                        -1.0);
}
END_TEST

START_TEST(test_net_coll_cost_tree_small_ring_large)
{
    struct net_topo t = node8("nvlink4");
    struct net_topo x = h100_ndr(8);
    struct net_cost c;

    /* 8 B: tree 6 alpha (11.4 us) beats ring 14 alpha (26.6 us). */
    ck_assert_double_lt(net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_TREE, 8, 8.0),
                        net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_RING, 8, 8.0));
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 8.0, &c), 0);
    ck_assert_int_eq(c.algo, NET_ALGO_TREE);
    /* 4 GiB: ring moves 2(p-1)/p n, the tree 2n: ring wins. */
    ck_assert_double_le(
        net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_RING, 8, 4 * GIB),
        net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_TREE, 8, 4 * GIB));
    ck_assert_int_eq(
        net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 8, 4 * GIB, &c), 0);
    ck_assert_int_eq(c.algo, NET_ALGO_RING);
    /* Same across 32 nodes: the inter-node tree has lg(32) = 5 steps
     * against the ring's 2 x 31. At 4 GiB the ring's 62 network steps of
     * Simple (14 us each) still cost more than the tree's extra 1/32 of
     * bytes; at 64 GiB the bytes win. */
    ck_assert_double_lt(
        net_coll_ns(&x, NET_ALLREDUCE, NET_ALGO_TREE, 256, 1024.0),
        net_coll_ns(&x, NET_ALLREDUCE, NET_ALGO_RING, 256, 1024.0));
    ck_assert_double_le(
        net_coll_ns(&x, NET_ALLREDUCE, NET_ALGO_RING, 256, 64 * GIB),
        net_coll_ns(&x, NET_ALLREDUCE, NET_ALGO_TREE, 256, 64 * GIB));
}
END_TEST

START_TEST(test_net_coll_cost_auto_is_min)
{
    struct net_topo t = h100_ndr(8);
    double n;
    int c, p;

    for (c = NET_ALLREDUCE; c <= NET_SENDRECV; c++)
        for (p = 2; p <= 64; p *= 2)
            for (n = 1.0; n < 1e11; n *= 37.0) {
                double r = net_coll_ns(&t, c, NET_ALGO_RING, p, n);
                double tr = net_coll_ns(&t, c, NET_ALGO_TREE, p, n);
                double a = net_coll_ns(&t, c, NET_ALGO_AUTO, p, n);
                ck_assert(r > 0 && tr > 0);
                ck_assert_double_eq(a, r < tr ? r : tr);
            }
}
END_TEST

START_TEST(test_net_coll_cost_monotone_in_bytes)
{
    struct net_topo t[3] = {node8("nvlink4"), h100_ndr(8), node8("xgmi")};
    int i, c, a;

    for (i = 0; i < 3; i++)
        for (c = NET_ALLREDUCE; c <= NET_SENDRECV; c++)
            for (a = NET_ALGO_AUTO; a <= NET_ALGO_TREE; a++) {
                int p = i == 1 ? 32 : 8;
                double prev = 0.0, n;
                for (n = 1.0; n <= 64 * GIB; n *= 2.0) {
                    double v = net_coll_ns(&t[i], c, a, p, n);
                    ck_assert_msg(v >= prev, "topo %d coll %d algo %d", i, c,
                                  a);
                    prev = v;
                }
            }
}
END_TEST

START_TEST(test_net_coll_cost_mesh_xgmi)
{
    struct net_topo t = node8("xgmi");
    double eff = must_link("xgmi")->efficiency;
    double n = GIB;

    /* 8 MI300X: 7 links x 64 GB/s per GPU (docs/hardware.md); ring
     * all-reduce, Simple, 8.4 + 14 x 3.4 us + 1.75 n / (eff x 448e9). */
    ck_assert_rel(net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_RING, 8, n),
                  56000.0 + 1.75 * n / (eff * 448e9) * 1e9, 1e-12);
    /* 4 of them: 3 links; 2(3)/4 n / (eff x 192e9). */
    ck_assert_rel(net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_RING, 4, n),
                  8400.0 + 6 * 3400.0 + 1.5 * n / (eff * 192e9) * 1e9, 1e-12);
    /* Send/recv between two of them: one 64 GB/s link. */
    ck_assert_rel(net_coll_ns(&t, NET_SENDRECV, NET_ALGO_AUTO, 2, n),
                  8400.0 + 3400.0 + n / (eff * 64e9) * 1e9, 1e-12);
}
END_TEST

/* ---- hierarchical collectives ---- */

START_TEST(test_net_coll_cost_2x8_ndr_busbw)
{
    struct net_topo t = h100_ndr(8);
    struct net_cost c;
    double n = 8 * GIB, busbw;

    /* 2 nodes x 8 H100, 8 NDR rails. Intra reduce-scatter + all-gather push
     * 2 x 7/8 n through each NVLink port at 370 GB/s; the inter-node
     * all-reduce of n/8 over 2 nodes pushes 2 x 1/2 x n/8 through each
     * GPU's own NIC at 48 GB/s: per byte 4.730e-12 s vs 2.604e-12 s, so
     * NVLink is the bottleneck and busbw = 1.875 / 4.730e-12 = 396.4 GB/s.
     * docs/sources.md §2.3 derives ~384 GB/s (8 x 48) for NCCL's flat ring,
     * which crosses the network with twice the bytes; the measured 46-48 GB/s
     * per NIC puts that ring at 368-384. The model must land within 5 % of
     * 384 GB/s (364.8-403.2), which holds both. */
    ck_assert_int_eq(net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 16, n, &c),
                     0);
    ck_assert_int_eq(c.hierarchical, 1);
    ck_assert_ptr_eq(c.bottleneck, must_link("nvlink4"));
    busbw = n * net_busbw_factor(NET_ALLREDUCE, 16) / (c.total_ns * 1e-9);
    ck_assert_msg(busbw > 0.95 * 384e9 && busbw < 1.05 * 384e9,
                  "busbw %.1f GB/s", busbw / 1e9);
    ck_assert_rel(busbw, 396.4e9, 2e-3);
    /* Latency, Simple: base 8.4 us + ring 2 x 7 x 3.4 us inside + 2 x 1 x
     * 14.0 us across. */
    ck_assert_int_eq(net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_RING, 16, n, &c),
                     0);
    ck_assert_rel(c.latency_ns, 8400.0 + 14 * 3400.0 + 2 * 14000.0, 1e-12);
}
END_TEST

START_TEST(test_net_coll_cost_rails_shared)
{
    struct net_topo t = h100_ndr(4);
    struct net_cost c;
    double n = 8 * GIB, busbw;

    /* 4 rails for 8 GPUs: each GPU gets half an NDR NIC, 24 GB/s; the
     * network term 0.125 n / 24e9 = 5.208e-12 s/B exceeds NVLink's 4.730,
     * so busbw = 1.875 / 5.208e-12 = 360 GB/s less the 84 us latency
     * (Simple: 8.4 + 14 x 3.4 + 2 x 14.0 us) of 44.82 ms, 359.33 GB/s, and
     * the NIC is the bottleneck. */
    ck_assert_int_eq(net_coll_cost(&t, NET_ALLREDUCE, NET_ALGO_RING, 16, n, &c),
                     0);
    ck_assert_ptr_eq(c.bottleneck, must_link("ib-ndr"));
    busbw = n * 1.875 / (c.total_ns * 1e-9);
    ck_assert_rel(busbw, 359.33e9, 1e-4);
}
END_TEST

START_TEST(test_net_coll_cost_hier_alltoall_and_p2p)
{
    struct net_topo t = h100_ndr(8);
    struct net_cost c;
    double n = GIB;

    /* All-to-all over 2 x 8: each GPU sends 7/16 n over NVLink and 8/16 n
     * over its NIC; the NIC term 0.5 n / 48e9 = 11.18 ms dominates.
     * Latency, Simple: 8.4 + 7 x 3.4 + 8 x 14.0 = 144.2 us. */
    ck_assert_int_eq(net_coll_cost(&t, NET_ALLTOALL, NET_ALGO_AUTO, 16, n, &c),
                     0);
    ck_assert_ptr_eq(c.bottleneck, must_link("ib-ndr"));
    ck_assert_rel(c.latency_ns, 8400.0 + 7 * 3400.0 + 8 * 14000.0, 1e-12);
    ck_assert_rel(c.bandwidth_ns, 0.5 * n / 48e9 * 1e9, 1e-12);
    /* A 2-rank send/recv across nodes (one GPU per node, pipeline stage
     * boundary) is one NIC transfer: 8.4 + 14.0 us (Simple) + n / 48e9. */
    t.ranks_per_node = 1;
    ck_assert_rel(net_coll_ns(&t, NET_SENDRECV, NET_ALGO_AUTO, 2, n),
                  22400.0 + n / 48e9 * 1e9, 1e-12);
    /* One GPU per node needs no intra link. */
    t.intra = NULL;
    ck_assert_double_gt(net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_AUTO, 4, n),
                        0.0);
}
END_TEST

START_TEST(test_net_coll_cost_hier_allgather_terms)
{
    struct net_topo t = h100_ndr(8);
    struct net_cost c;
    double n = GIB;

    /* All-gather of n over 4 nodes x 8 (ring): inter all-gather of n/8
     * among 4 nodes, 3/4 x n/8 / 48e9, then intra 7/8 n / 370e9 (the
     * larger, 2.539 ms); latency, Simple, 8.4 + 3 x 14.0 + 7 x 3.4 us. */
    ck_assert_int_eq(net_coll_cost(&t, NET_ALLGATHER, NET_ALGO_RING, 32, n, &c),
                     0);
    ck_assert_rel(c.latency_ns, 8400.0 + 3 * 14000.0 + 7 * 3400.0, 1e-12);
    ck_assert_rel(c.bandwidth_ns, 0.875 * n / 370e9 * 1e9, 1e-12);
    ck_assert_ptr_eq(c.bottleneck, must_link("nvlink4"));
}
END_TEST

/* ---- GPU catalog: scale-up and checks ---- */

START_TEST(test_gpu_table_sorted_complete)
{
    size_t i;

    for (i = 0; gpu_table[i] != NULL; i++) {
        const struct gpu_spec *g = gpu_table[i];
        char why[128] = "";

        ck_assert_msg(g->summary != NULL && g->summary[0] != '\0', "%s",
                      g->name);
        ck_assert_msg(g->source != NULL && strstr(g->source, "docs/sources.md"),
                      "%s", g->name);
        ck_assert_msg(g->price_source != NULL &&
                          strstr(g->price_source, "default") != NULL,
                      "%s", g->name);
        ck_assert_msg(gpu_spec_check(g, why, sizeof(why)) == 0, "%s: %s",
                      g->name, why);
        ck_assert_msg(net_link_find(g->scale_up) != NULL, "%s: %s", g->name,
                      g->scale_up);
        ck_assert(g->pcie_gen >= 4 && g->pcie_lanes == 16);
        ck_assert(g->tdp_watts >= 350 && g->tdp_watts <= 1000);
        if (gpu_table[i + 1] != NULL)
            ck_assert_msg(strcmp(g->name, gpu_table[i + 1]->name) < 0,
                          "%s before %s", g->name, gpu_table[i + 1]->name);
    }
    ck_assert_uint_eq(i, 7);
}
END_TEST

START_TEST(test_gpu_ridge_points_facts)
{
    /* docs/sources.md §1.2: BF16 ridge = peak FLOP/s / memory B/s, rounded. */
    static const struct {
        const char *name;
        double bf16, fp8;
    } want[] = {
        {"h100", 295, 591},   {"h800", 295, 591}, {"h200", 206, 412},
        {"a100", 153, 0},     {"b200", 281, 563}, {"l40s", 419, 848},
        {"mi300x", 247, 493},
    };
    size_t i;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct gpu_spec *g = must_gpu(want[i].name);
        double r = g->flops_bf16 / g->hbm_bytes_per_s;
        double r8 = g->flops_fp8 / g->hbm_bytes_per_s;
        ck_assert_msg(fabs(r - want[i].bf16) <= 0.5, "%s bf16 ridge %.1f",
                      g->name, r);
        ck_assert_msg(fabs(r8 - want[i].fp8) <= 0.5, "%s fp8 ridge %.1f",
                      g->name, r8);
    }
}
END_TEST

START_TEST(test_gpu_new_entries_figures)
{
    const struct gpu_spec *a = must_gpu("a100");
    const struct gpu_spec *l = must_gpu("l40s");
    const struct gpu_spec *m = must_gpu("mi300x");
    const struct gpu_spec *h8 = must_gpu("h800");

    /* docs/sources.md §1.1. */
    ck_assert_double_eq(a->flops_fp8, 0.0);
    ck_assert_double_eq(a->flops_int4, 1248e12);
    ck_assert_str_eq(a->scale_up, "nvlink3");
    ck_assert_int_eq(a->scale_up_switched, 1);
    ck_assert_str_eq(l->scale_up, "pcie4");
    ck_assert_int_eq(l->scale_up_switched, 0);
    ck_assert_double_eq(l->nvlink_bytes_per_s, 31.5e9);
    ck_assert_int_eq(m->hbm_bytes, INT64_C(192000000000));
    ck_assert_str_eq(m->scale_up, "xgmi");
    ck_assert_double_eq(m->nvlink_bytes_per_s, 448e9);
    ck_assert_double_eq(h8->nvlink_bytes_per_s, 200e9);
    ck_assert_double_eq(must_gpu("b200")->flops_fp4, 9000e12);
}
END_TEST

START_TEST(test_gpu_spec_check_rejects)
{
    struct gpu_spec g;
    char why[128];

    memset(&g, 0, sizeof(g));
    g.name = "zero";
    why[0] = '\0';
    ck_assert_int_eq(gpu_spec_check(&g, why, sizeof(why)), SIM_EINVAL);
    ck_assert_str_eq(why, "flops_bf16: must be > 0, got 0");
    g = *must_gpu("h100");
    g.hbm_bytes_per_s = -1.0;
    ck_assert_int_eq(gpu_spec_check(&g, why, sizeof(why)), SIM_EINVAL);
    ck_assert_str_eq(why, "hbm_bytes_per_s: must be > 0, got -1");
    g = *must_gpu("h100");
    g.flops_fp8 = 0.0; /* a GPU without FP8 is valid */
    ck_assert_int_eq(gpu_spec_check(&g, why, sizeof(why)), 0);
    g.nvlink_latency_ns = 0;
    ck_assert_int_eq(gpu_spec_check(&g, why, sizeof(why)), SIM_EINVAL);
    ck_assert_str_eq(why, "nvlink_latency_ns: must be > 0, got 0");
    g = *must_gpu("h100");
    g.scale_up = "nvlink9";
    ck_assert_int_eq(gpu_spec_check(&g, why, sizeof(why)), SIM_EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "scale_up: unknown link 'nvlink9'"));
    g = *must_gpu("h100");
    g.flops_int8 = NAN;
    ck_assert_int_eq(gpu_spec_check(&g, why, sizeof(why)), SIM_EINVAL);
    ck_assert_int_eq(gpu_spec_check(NULL, why, sizeof(why)), SIM_EINVAL);
    /* An inline GPU with no scale-up class or host-link details is fine. */
    g = *must_gpu("h100");
    g.scale_up = NULL;
    g.pcie_gen = 0;
    g.tdp_watts = 0;
    ck_assert_int_eq(gpu_spec_check(&g, NULL, 0), 0);
}
END_TEST

START_TEST(test_gpu_intra_link_from_own_figures)
{
    struct gpu_spec g = *must_gpu("h100");
    struct net_link l;
    struct net_topo t = {&l, NULL, 8, 1};

    /* A catalog GPU gets its catalog link's figures back. */
    gpu_intra_link(&g, &l);
    ck_assert_str_eq(l.name, "nvlink4");
    ck_assert_double_eq(l.bytes_per_s, 450e9);
    ck_assert_double_eq(l.alpha_ns, 1900.0);
    ck_assert_double_eq(l.efficiency, must_link("nvlink4")->efficiency);
    ck_assert_double_eq(
        net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_RING, 8, GIB),
        net_coll_ns(&(struct net_topo){must_link("nvlink4"), NULL, 8, 1},
                    NET_ALLREDUCE, NET_ALGO_RING, 8, GIB));
    /* A calibrated H100 with 400 GB/s and 2.5 us (LL128) uses its own
     * figures; Simple's per-step 3.4 us scales by 2.5 / 1.9. */
    g.nvlink_bytes_per_s = 400e9;
    g.nvlink_latency_ns = 2500;
    gpu_intra_link(&g, &l);
    ck_assert_int_eq(l.hw, NET_HW_NVLINK);
    ck_assert_rel(net_coll_ns(&t, NET_ALLREDUCE, NET_ALGO_RING, 8, GIB),
                  8400.0 + 14 * 3400.0 * 2500.0 / 1900.0 +
                      1.75 * GIB / (370.0 / 450.0 * 400e9) * 1e9,
                  1e-12);
    /* MI300X: 448 GB/s aggregate becomes 7 mesh links of 64 GB/s. */
    gpu_intra_link(must_gpu("mi300x"), &l);
    ck_assert_double_eq(l.bytes_per_s, 64e9);
    ck_assert_int_eq(l.mesh_peers, 7);
    /* L40S: its intra-node link is PCIe Gen4. */
    gpu_intra_link(must_gpu("l40s"), &l);
    ck_assert_str_eq(l.name, "pcie4");
    ck_assert_double_eq(l.bytes_per_s, 31.5e9);
    ck_assert_double_eq(l.alpha_ns, 2500.0);
    /* An inline GPU without a class: switched, NVLink4's efficiency. */
    g.scale_up = NULL;
    gpu_intra_link(&g, &l);
    ck_assert_int_eq(l.mesh_peers, 0);
    ck_assert_double_eq(l.efficiency, must_link("nvlink4")->efficiency);
}
END_TEST

/* ---- vLLM custom all-reduce ---- */

START_TEST(test_net_car_shot_rules)
{
    const struct net_link *nv = must_link("nvlink4");

    /* 2 GPUs: one-shot at any size under 8 MiB. */
    ck_assert_int_eq(net_car_shot(nv, 2, 8.0 * 1048576 - 16), NET_CAR_ONESHOT);
    /* 4 GPUs: one-shot below 512 KiB, 6 and 8 below 256 KiB. */
    ck_assert_int_eq(net_car_shot(nv, 4, 524272.0), NET_CAR_ONESHOT);
    ck_assert_int_eq(net_car_shot(nv, 4, 524288.0), NET_CAR_TWOSHOT);
    ck_assert_int_eq(net_car_shot(nv, 6, 262128.0), NET_CAR_ONESHOT);
    ck_assert_int_eq(net_car_shot(nv, 8, 262144.0), NET_CAR_TWOSHOT);
    /* NCCL: 8 MiB and above, other group sizes, PCIe, the network, no
     * bytes. */
    ck_assert_int_eq(net_car_shot(nv, 2, 8.0 * 1048576), NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(nv, 3, 4096.0), NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(nv, 16, 4096.0), NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(nv, 1, 4096.0), NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(must_link("pcie4"), 2, 4096.0), NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(must_link("ib-ndr"), 2, 4096.0),
                     NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(nv, 2, 0.0), NET_CAR_NONE);
    ck_assert_int_eq(net_car_shot(NULL, 2, 4096.0), NET_CAR_NONE);
    ck_assert_str_eq(net_car_name(NET_CAR_NONE), "nccl");
    ck_assert_str_eq(net_car_name(NET_CAR_TWOSHOT), "two-shot");
    ck_assert_str_eq(net_car_name(9), "?");
}
END_TEST

START_TEST(test_net_car_cost_hand_computed)
{
    struct net_link nv = *must_link("nvlink4");
    struct net_car_cost c;

    /* The barrier: NVLink's LL per-step latency, 1,900 x 0.6 / 1.9. */
    ck_assert_rel(net_car_sync_ns(&nv), 600.0, 1e-12);
    /* One-shot, 2 x H100, 512 KiB (CodeLlama-34B, 32 tokens x 8192 x 2 B):
     * 1,500 + 600 + 1 x 524,288 B / 370e9 B/s = 1,500 + 600 + 1,416.9946
     * = 3,516.9946 ns. */
    ck_assert_int_eq(net_car_cost(&nv, 2, 524288.0, 1500.0, &c), 0);
    ck_assert_int_eq(c.shot, NET_CAR_ONESHOT);
    ck_assert_rel(c.sync_ns, 600.0, 1e-12);
    ck_assert_rel(c.bandwidth_ns, 1416.994595, 1e-9);
    ck_assert_rel(c.total_ns, 3516.994595, 1e-9);
    /* One-shot, 4 GPUs, 256 KiB: 3 x 262,144 / 370e9 = 2,125.4919 ns. */
    ck_assert_int_eq(net_car_cost(&nv, 4, 262144.0, 0.0, &c), 0);
    ck_assert_rel(c.total_ns, 600.0 + 2125.491892, 1e-9);
    /* Two-shot, 8 GPUs, 1 MiB: 1,500 + 2 x 600 + 2 x 7/8 x 1,048,576 /
     * 370e9 = 1,500 + 1,200 + 4,959.4811 = 7,659.4811 ns. */
    ck_assert_int_eq(net_car_cost(&nv, 8, 1048576.0, 1500.0, &c), 0);
    ck_assert_int_eq(c.shot, NET_CAR_TWOSHOT);
    ck_assert_rel(c.sync_ns, 1200.0, 1e-12);
    ck_assert_rel(c.bandwidth_ns, 4959.481081, 1e-9);
    ck_assert_rel(c.total_ns, 7659.481081, 1e-9);
    /* A calibrated alpha scales the barrier; custom_allreduce_latency
     * replaces it. */
    nv.alpha_ns = 3800.0;
    ck_assert_rel(net_car_sync_ns(&nv), 1200.0, 1e-12);
    nv.car_sync_ns = 2500.0;
    ck_assert_rel(net_car_sync_ns(&nv), 2500.0, 1e-12);
    ck_assert_int_eq(net_car_cost(&nv, 8, 1048576.0, 0.0, &c), 0);
    ck_assert_rel(c.sync_ns, 5000.0, 1e-12);
    /* Not eligible, or bad input: SIM_EINVAL and zeroed. */
    ck_assert_int_eq(net_car_cost(&nv, 2, 16.0 * 1048576, 0.0, &c), SIM_EINVAL);
    ck_assert_double_eq(c.total_ns, 0.0);
    ck_assert_int_eq(c.shot, NET_CAR_NONE);
    ck_assert_int_eq(net_car_cost(&nv, 2, 4096.0, -1.0, &c), SIM_EINVAL);
    ck_assert_int_eq(net_car_cost(&nv, 2, 4096.0, 0.0, NULL), SIM_EINVAL);
    ck_assert_double_eq(net_car_sync_ns(NULL), -1.0);
}
END_TEST

START_TEST(test_net_car_cost_mesh_reads_all_peers_at_once)
{
    /* MI300X xGMI: one 64 GB/s-per-direction link per peer pair; a
     * one-shot on 4 GPUs reads its 3 peers over 3 links at once, so the
     * bytes term is 3 n / (3 B_link) = n / B_link. */
    const struct net_link *x = must_link("xgmi");
    struct net_car_cost c;
    double b = x->efficiency * x->bytes_per_s;

    ck_assert_int_eq(net_car_cost(x, 4, 131072.0, 0.0, &c), 0);
    ck_assert_rel(c.bandwidth_ns, 131072.0 / b * 1e9, 1e-12);
}
END_TEST

static Suite *net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc;

    tc = tcase_create("net_link");
    tcase_add_test(tc, test_net_link_table_sorted_unique_sane);
    tcase_add_test(tc, test_net_link_find_figures);
    tcase_add_test(tc, test_net_link_names_list);
    tcase_add_test(tc, test_net_p2p_ns_hockney);
    tcase_add_test(tc, test_net_link_gpu_bytes_per_s_mesh);
    tcase_add_test(tc, test_net_busbw_factor_nccl_tests);
    suite_add_tcase(s, tc);

    tc = tcase_create("net_coll_cost");
    tcase_add_test(tc, test_net_coll_cost_ring_allreduce_8xh100);
    tcase_add_test(tc, test_net_coll_cost_tree_allreduce_terms);
    tcase_add_test(tc, test_net_coll_cost_other_collectives_8xh100);
    tcase_add_test(tc, test_net_coll_cost_protocols);
    tcase_add_test(tc, test_net_coll_cost_one_rank_zero_bytes_free);
    tcase_add_test(tc, test_net_coll_cost_invalid);
    tcase_add_test(tc, test_net_coll_cost_tree_small_ring_large);
    tcase_add_test(tc, test_net_coll_cost_auto_is_min);
    tcase_add_test(tc, test_net_coll_cost_monotone_in_bytes);
    tcase_add_test(tc, test_net_coll_cost_mesh_xgmi);
    tcase_add_test(tc, test_net_coll_cost_2x8_ndr_busbw);
    tcase_add_test(tc, test_net_coll_cost_rails_shared);
    tcase_add_test(tc, test_net_coll_cost_hier_alltoall_and_p2p);
    tcase_add_test(tc, test_net_coll_cost_hier_allgather_terms);
    tcase_add_test(tc, test_net_car_shot_rules);
    tcase_add_test(tc, test_net_car_cost_hand_computed);
    tcase_add_test(tc, test_net_car_cost_mesh_reads_all_peers_at_once);
    suite_add_tcase(s, tc);

    tc = tcase_create("gpu_catalog");
    tcase_add_test(tc, test_gpu_table_sorted_complete);
    tcase_add_test(tc, test_gpu_ridge_points_facts);
    tcase_add_test(tc, test_gpu_new_entries_figures);
    tcase_add_test(tc, test_gpu_spec_check_rejects);
    tcase_add_test(tc, test_gpu_intra_link_from_own_figures);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(net_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
