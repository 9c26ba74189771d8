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
CPPFLAGS+= -Iharness -Inuma -Iprimitives -Iworkloads \
           -DNM_VERSION='"$(VERSION)"' -DNM_GIT='"$(GIT)"'
CFLAGS  += $(CSTD) $(WARN) $(OPT) -pthread
LDLIBS  := -libverbs -lnuma -lhwloc -ljansson -lm -pthread

SRCS    := $(wildcard harness/*.c numa/*.c primitives/*.c workloads/*.c)
OBJS    := $(SRCS:%.c=build/%.o)

# Modules the unit tests link without MPI or an RDMA device.
UNIT_MODS := harness/stats.c harness/opt.c harness/result.c harness/points.c \
             harness/clock.c harness/log.c harness/hosts.c harness/nic_counters.c harness/stall.c \
             primitives/ycsb.c primitives/accounts.c harness/measure.c harness/alloc.c \
             tests/unit/boot_single.c
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/%)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all check unit deps clean
all: bin/netmem

bin/netmem: $(OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(MPICC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: %.c $(wildcard harness/*.h numa/*.h primitives/*.h workloads/*.h)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(MPICC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/tests/%: tests/unit/%.c tests/unit/tap.h $(UNIT_MODS) $(wildcard harness/*.h primitives/*.h)
	@mkdir -p $(@D)
	@echo "  CC+SAN  $<"
	@$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O1 -g $(SAN) -pthread -Itests/unit -o $@ $< $(UNIT_MODS) -ljansson -lm

# ALock's Fig. 2 trace on real verbs, run by tests/integration/test_alock_trace.sh:
# alock_trace.c against the harness, primitives and NUMA objects (no netmem main).
TRACE_OBJS := $(filter-out build/harness/main.o,$(filter build/harness/% build/primitives/% build/numa/%,$(OBJS)))
build/tests/alock_trace: tests/integration/alock_trace.c $(TRACE_OBJS) $(wildcard harness/*.h numa/*.h primitives/*.h)
	@mkdir -p $(@D)
	@echo "  CC+LD   $@"
	@$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(TRACE_OBJS) $(LDLIBS)

# ns per draw of the YCSB generator (-O2, no sanitizers); not a test.
.PHONY: bench-ycsb
bench-ycsb: tests/bench/ycsb-bench.c primitives/ycsb.c primitives/ycsb.h
	@mkdir -p build/bench
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O2 -g -o build/bench/ycsb-bench tests/bench/ycsb-bench.c primitives/ycsb.c -lm
	build/bench/ycsb-bench

# netmem ops's loops on a fake verbs provider, for instruction counts
# (tests/bench/ops-hotpath.sh); not a test.
HOTPATH_MODS := harness/measure.c harness/stats.c harness/clock.c harness/log.c harness/alloc.c \
                harness/rdma.c tests/unit/boot_single.c
build/bench/ops-hotpath: tests/bench/ops-hotpath.c workloads/ops_loop.c workloads/ops.h $(HOTPATH_MODS) \
                         $(wildcard harness/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) $(OPT) $(shell $(MPICC) --showme:compile) -pthread -o $@ $< \
		$(HOTPATH_MODS) -libverbs -ljansson -lm

unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

check: all $(UNIT_BINS)
	@tests/check.sh $(UNIT_BINS)

deps:
	@tests/deps.sh

clean:
	rm -rf build bin
