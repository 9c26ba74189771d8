#!/bin/sh
# netmem corm's bad input on the host (decoded before any device is opened):
# one line from rank 0, exit 2. Its runs on verbs are in the VM tests.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="mpirun --oversubscribe --bind-to none -np 2 bin/netmem corm --progress=false"
check "netmem corm --help documents the benches and strategies" sh -c \
	"bin/netmem corm --help | grep -q 'odp-prefetch' && bin/netmem corm --help | grep -q 'compaction'"
expect_usage "block size not a power of two" $M --block-size 5000
expect_usage "block size below 4 KiB" $M --block-size 2k
expect_usage "an object larger than a block" $M --size 5000
expect_usage "an unknown bench" $M --bench nosuch
expect_usage "throughput without --duration" $M --bench throughput
expect_usage "one rank only" bin/netmem corm
expect_usage "--keys shared with the latency bench" $M --bench latency --keys shared
expect_usage "--keys with an unknown value" $M --bench throughput -D 1 --keys some
expect_usage "--live-objects not a multiple of the client threads" $M --bench throughput -D 1 -T 3 --live-objects 1000
expect_usage "--live-objects with everything freed" $M --bench throughput -D 1 --live-objects 1000 --free-ratio 1
expect_usage "--live-objects beyond 2^26 per client thread" $M --bench throughput -D 1 --live-objects 100000000 --free-ratio 0.5
expect_usage "--server-threads negative" $M --bench throughput -D 1 --server-threads -1
t_summary
