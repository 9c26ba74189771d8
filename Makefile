# netmem-bench build. `make` builds bin/netmem; `make check` runs the unit tests
# (host, ASan+UBSan), the command-line tests (host) and the integration tests
# (Soft-RoCE, in a VM unless the host has an RDMA device).
VERSION := 0.1.0
GIT     := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

CC      ?= cc
MPICC   ?= mpicc
CSTD    := -std=c17 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers
OPT     ?= -O2 -g
# Sources one folder deep: an experiment family per folder under workloads/,
# primitives by kind under primitives/, harness/analysis/ beside the harness.
SRC_GLOBS := harness/* harness/*/* numa/* primitives/* primitives/*/* workloads/*/*
SRCS    := $(wildcard $(SRC_GLOBS:%=%.c))
HDRS    := $(wildcard $(SRC_GLOBS:%=%.h))
OBJS    := $(SRCS:%.c=build/%.o) build/build_id.o
# One -I per folder that holds a source or header, so #include "x.h" finds x.h
# wherever its family keeps it.
SRC_DIRS := $(patsubst %/,%,$(sort $(dir $(SRCS) $(HDRS))))

CPPFLAGS+= $(addprefix -I,$(SRC_DIRS)) \
           -DNM_VERSION='"$(VERSION)"' -DNM_GIT='"$(GIT)"'
CFLAGS  += $(CSTD) $(WARN) $(OPT) -pthread
LDLIBS  := -libverbs -lnuma -lhwloc -ljansson -lhiredis -levent_core -lxxhash -lnetfilter_queue -lnfnetlink -lz -lm -ldl -pthread

# Modules the unit tests link without MPI or an RDMA device.
UNIT_MODS := harness/stats.c harness/needs.c harness/opt.c harness/harness_opts.c harness/result.c harness/durable.c harness/points.c \
             harness/clock.c harness/log.c harness/hosts.c harness/nic_counters.c harness/stall.c \
             primitives/gen/ycsb.c primitives/gen/ycsb_stats.c primitives/gen/ycsb_trace.c primitives/gen/accounts.c harness/measure.c harness/alloc.c \
             primitives/corm/corm_model.c primitives/corm/corm_redis.c primitives/packet/roce_pkt.c primitives/packet/clover_resolve.c \
             primitives/corm/corm_slot.c primitives/corm/corm_heap.c primitives/corm/corm_pair.c primitives/corm/corm_mbox.c workloads/corm/corm_latsum.c workloads/ops/conn_split.c \
             workloads/control/control_model.c workloads/kv/kv_core.c workloads/kv/kv_scythe_obj.c workloads/kv/kv_lin.c workloads/kv/kv_size.c workloads/kv/kv_history.c workloads/clover/clover_pool.c workloads/clover/clover_route.c workloads/clover/clover_path_files.c \
             harness/workers.c harness/topo.c numa/loadproc.c primitives/loco/owned_var_local.c primitives/locks/hocl.c primitives/rpc/wring.c harness/path.c harness/qp_av.c \
             tests/unit/boot_single.c
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/%)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all check unit deps deps-run clean
all: bin/netmem

bin/netmem: $(OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(MPICC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(MPICC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The build identifier the ranks of a job compare at start-up (harness/boot.c): a hash of
# every source and header and of this file, so two hosts running different code (or the same
# commit with different edits, which git describe calls alike) are told apart. Rewritten only
# when it changes, so an unchanged tree relinks nothing.
build/build_id.c: $(SRCS) $(HDRS) Makefile
	@mkdir -p $(@D)
	@id=$$(cat $(sort $^) | sha256sum | cut -c1-16); \
	 printf 'const char nm_build_id[] = "%s";\n' "$$id" >$@.tmp; \
	 if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
build/build_id.o: build/build_id.c
	@$(MPICC) $(CFLAGS) -c -o $@ $<

# The same objects with another build identifier: a stand-in for a host that runs a different
# build (tests/integration/cluster: the job must refuse to start).
build/tests/netmem-otherbuild: $(filter-out build/build_id.o,$(OBJS))
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@printf 'const char nm_build_id[] = "other-build";\n' >build/tests/otherbuild_id.c
	@$(MPICC) $(CFLAGS) -o $@ $^ build/tests/otherbuild_id.c $(LDLIBS)

# The modules under test are compiled with the sanitizers once, not once per test.
UNIT_OBJS := $(UNIT_MODS:%.c=build/san/%.o)
.SECONDARY: $(UNIT_OBJS)
build/san/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	@echo "  CC+SAN  $<"
	@$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(SAN) -pthread -Itests/unit -c -o $@ $<
build/tests/%: tests/unit/%.c tests/unit/tap.h $(UNIT_OBJS) $(filter harness/% primitives/% numa/%,$(HDRS))
	@mkdir -p $(@D)
	@echo "  CC+SAN  $<"
	@$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(SAN) -pthread -Itests/unit -o $@ $< $(UNIT_OBJS) -ljansson -lhwloc -lxxhash -lz -lm

# ALock's Fig. 2 trace on real verbs, run by tests/integration/test_alock_trace.sh:
# alock_trace.c against the harness, primitives and NUMA objects (no netmem main,
# nor the preflight command, which decodes points with main's harness options).
TRACE_OBJS := $(filter-out build/harness/main.o build/harness/preflight%.o,$(filter build/harness/% build/primitives/% build/numa/% build/build_id.o,$(OBJS)))
build/tests/alock_trace: tests/integration/alock_trace.c $(TRACE_OBJS) $(filter harness/% numa/% primitives/%,$(HDRS))
	@mkdir -p $(@D)
	@echo "  CC+LD   $@"
	@$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(TRACE_OBJS) $(LDLIBS)

# The NIC personalities' interposer (tests/nic/README.md), preloaded by the
# personality lane: a ConnectX generation's limits over Soft-RoCE.
build/tests/libnicprof.so: tests/nic/nicprof.c harness/mtu.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) $(CSTD) $(WARN) -Iharness -O2 -g -fPIC -shared -pthread -o $@ $< -ldl

# ns per draw of the YCSB generator (-O2, no sanitizers); not a test.
.PHONY: bench-ycsb
bench-ycsb: tests/bench/ycsb-bench.c primitives/gen/ycsb.c primitives/gen/ycsb_stats.c primitives/gen/ycsb.h harness/log.c harness/stall.c
	@mkdir -p build/bench
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O2 -g -pthread -o build/bench/ycsb-bench tests/bench/ycsb-bench.c primitives/gen/ycsb.c primitives/gen/ycsb_stats.c harness/log.c harness/stall.c -lm
	build/bench/ycsb-bench

# ns per nm_hist_add, the timed loops' per-operation cost (-O2, no
# sanitizers); not a test.
.PHONY: bench-hist
bench-hist: tests/bench/hist-bench.c harness/stats.c harness/stats.h
	@mkdir -p build/bench
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O2 -g -o build/bench/hist-bench tests/bench/hist-bench.c harness/stats.c -ljansson -lm
	build/bench/hist-bench $(HIST_N)

# Per-point cost of the result journal (-O2, no sanitizers); not a test:
# tests/bench/journal-overhead.sh runs it.
JOURNAL_MODS := harness/result.c harness/durable.c harness/points.c harness/stats.c
build/bench/journal-bench: tests/bench/journal-bench.c $(JOURNAL_MODS) harness/result.h harness/durable.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O2 -g -o $@ tests/bench/journal-bench.c $(JOURNAL_MODS) -ljansson -lm

# Time per merged block of CoRM's compaction at growing heaps (-O2, no
# sanitizers); not a test: tests/bench/corm-compact.sh runs it.
CORM_MODS := primitives/corm/corm_heap.c primitives/corm/corm_mbox.c primitives/corm/corm_pair.c primitives/corm/corm_model.c primitives/corm/corm_slot.c \
             primitives/gen/ycsb.c harness/log.c harness/stall.c
build/bench/corm-compact: tests/bench/corm-compact.c $(CORM_MODS) $(filter primitives/corm/%,$(HDRS))
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O2 -g -pthread -o $@ tests/bench/corm-compact.c $(CORM_MODS) -lm

# netmem ops's loops on a fake verbs provider, for instruction counts
# (tests/bench/ops-hotpath.sh); not a test.
HOTPATH_MODS := harness/measure.c harness/stats.c harness/clock.c harness/log.c harness/stall.c harness/alloc.c \
                harness/rdma.c tests/unit/boot_single.c
build/bench/ops-hotpath: tests/bench/ops-hotpath.c workloads/ops/ops_loop.c workloads/ops/ops.h \
                         $(HOTPATH_MODS) $(filter harness/%,$(HDRS))
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) $(OPT) $(shell $(MPICC) --showme:compile) -pthread -o $@ $< \
		$(HOTPATH_MODS) -libverbs -ljansson -lm

# tests/bench/tear-probe.c: whether the device copies an aligned 8-byte word
# whole (tests/vm/README.md); a diagnostic, not a test.
build/bench/tear-probe: tests/bench/tear-probe.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread -o $@ $< -libverbs

unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

# The sanitizer builds of the unit tests take minutes one at a time: build
# them in parallel even under a plain `make check` (CI's command), unless a
# -j was given already.
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))
check: all
	@$(MAKE) --no-print-directory $(CHECK_J) $(UNIT_BINS) build/tests/netmem-otherbuild build/tests/libnicprof.so build/bench/tear-probe
	@tests/check.sh $(UNIT_BINS)

# deps-run: what a cluster node needs to build and run; deps: and the tests'
deps:
	@tests/deps.sh all

deps-run:
	@tests/deps.sh run

clean:
	rm -rf build bin
