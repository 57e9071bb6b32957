# bench/: `make bench` prints engine events per CPU-second beside a bare
# 4-ary heap's, simulated requests per CPU-second, the simulated-to-CPU
# ratio and peak memory for fixed scenarios, and the fleet-day
# (docs/performance.md keeps the table).
noinst_PROGRAMS += bench/dsec-bench
bench_dsec_bench_SOURCES = bench/bench.c
bench_dsec_bench_LDADD = $(SWEEP_LIBS)
bench_dsec_bench_LDFLAGS = $(AM_LDFLAGS) $(DSEC_LTO_LDFLAGS)
EXTRA_DIST += bench/mm4.yaml bench/llama8b.yaml bench/sweep.yaml \
	bench/kv-heavy.yaml bench/prefix-offload.yaml bench/fleet-day.yaml

bench: bench/dsec-bench
	@echo "== bare engine (one pop + one push per event), beside a bare 4-ary heap"
	@bench/dsec-bench engine 64 20000000
	@bench/dsec-bench engine 1000 20000000
	@bench/dsec-bench engine 100000 10000000
	@echo "== end to end: M/M/4 abstract servers at rho 0.8"
	@bench/dsec-bench run $(srcdir)/bench/mm4.yaml 200000
	@bench/dsec-bench run $(srcdir)/bench/mm4.yaml 2000000
	@echo "== end to end: 8 x Llama-3.1-8B on H100, continuous batching"
	@bench/dsec-bench run $(srcdir)/bench/llama8b.yaml 100000
	@bench/dsec-bench run $(srcdir)/bench/llama8b.yaml 1000000
	@echo "== end to end: KV-heavy, Llama-3.1-8B on a 22 GB H100, recompute preemption"
	@bench/dsec-bench run $(srcdir)/bench/kv-heavy.yaml 20000
	@bench/dsec-bench run $(srcdir)/bench/kv-heavy.yaml 200000
	@echo "== end to end: prefix caching + KV offload, multi-turn sessions on 22 GB H100s"
	@bench/dsec-bench run $(srcdir)/bench/prefix-offload.yaml 20000
	@bench/dsec-bench run $(srcdir)/bench/prefix-offload.yaml 200000
	@echo "(requests are recycled, statistics are fixed-size: peak_rss_mib stays flat as requests grow tenfold,"
	@echo " except one ~120-byte time-series row per metrics interval of simulated time, and one"
	@echo " ~120-byte per-replica row per replica and interval: the replica_series table)"
	@echo "== dsec sweep: 48 configurations, each simulated and written in its own transaction"
	@bench/dsec-bench sweep $(srcdir)/bench/sweep.yaml 1
	@bench/dsec-bench sweep $(srcdir)/bench/sweep.yaml 2
	@echo "== the fleet-day: DeepSeek-V3 int4 on 32 x 4 H200, Poisson 100 req/s for 24 h"
	@bench/dsec-bench run $(srcdir)/bench/fleet-day.yaml
.PHONY: bench
