#!/bin/sh
# netmem corm's bad input on the host (decoded before any device is opened):
# one line from rank 0, exit 2; the object counts --class-bytes derives. Its
# runs on verbs are in the VM tests.
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
expect_usage "--inject new-rkey under defer, which remaps nothing" $M --bench compaction -D 1 --strategy defer \
	--inject new-rkey
# On a host without a device every run exits 2 anyway: these also check
# the line names the option's own reason.
says() { pat=$1; shift; "$@" 2>&1 >/dev/null | grep -q -- "$pat"; }
for c in "not a multiple of the 3 client threads|-T 3 --live-objects 1000" \
	"nothing would stay live|--live-objects 1000 --free-ratio 1" \
	"2000000000 objects per client thread|--live-objects 1000000000 --free-ratio 0.5"; do
	why=${c%%|*}; args=${c#*|}
	expect_usage "--live-objects: $why" $M --bench throughput -D 1 $args
	check "--live-objects: the line says $why" says "$why" $M --bench throughput -D 1 $args
done
# A load the keys (32 bits) or the heap's VA region cannot hold stops at
# decode, naming what to change (100,000 objects of 24 bytes: 788 blocks of
# 127 slots; 2^30 of 2000 bytes, two to a block: 2^29 blocks, over 2^24).
expect_usage "-K over its maximum (2^30)" $M --bench throughput -D 1 -K 1073741825
for c in "keys are 32 bits|-K 1G -T 8" \
	"the load takes 788 blocks (100000 objects of 24 bytes per thread, 127 to a 4096-byte block); raise --va-blocks|-K 100000 --va-blocks 16" \
	"more than --va-blocks' maximum|-K 1G -s 2000"; do
	why=${c%%|*}; args=${c#*|}
	expect_usage "a load too large: ${why%%;*}" $M --bench throughput -D 1 $args
	check "a load too large: the line says ${why%%;*}" says "$why" $M --bench throughput -D 1 $args
done
# --class-bytes: the objects per thread are the bytes over the size's slot
# and the loading threads. Decoded on the host, the count shows in the line
# of a VA region too small for it: the paper's 8 GiB at its smallest and
# largest size (16- and 2040-byte slots), and 64 MiB over two threads.
for c in "536870912 objects of 8 bytes|-s 8 --class-bytes 8G" "4210752 objects of 2000 bytes|-s 2000 --class-bytes 8G" \
	"1048576 objects of 24 bytes|-s 24 --class-bytes 64M -T 2"; do
	why="${c%%|*} per thread"; args=${c#*|}
	expect_usage "--class-bytes: $why" $M --bench throughput -D 1 --va-blocks 16 $args
	check "--class-bytes: the line says $why" says "$why" $M --bench throughput -D 1 --va-blocks 16 $args
done
for c in "-K 5000 both set the object count|--class-bytes 64M -K 5000" \
	"--live-objects both set the object count|--class-bytes 64M --live-objects 1000" \
	"less than one 32-byte slot|--class-bytes 16" \
	"4294967296 objects of 8 bytes (16-byte slots) per thread, over the 2^30|--class-bytes 64G -s 8"; do
	why=${c%%|*}; args=${c#*|}
	expect_usage "--class-bytes: $why" $M --bench throughput -D 1 $args
	check "--class-bytes: the line says $why" says "$why" $M --bench throughput -D 1 $args
done
# The paper's Fig. 11 config: every size's load fits its va_blocks (the
# blocks each takes, from the line of a VA region of 16).
cfg=configs/paper/corm-fig11.json
va=$(jq '.params.va_blocks' $cfg); cb=$(jq '.params.class_bytes' $cfg); T=$(jq '.params.threads' $cfg)
for s in $(jq -r '.params.size[]' $cfg); do
	need=$($M --bench throughput -D 1 --va-blocks 16 --class-bytes "$cb" -T "$T" -s "$s" 2>&1 >/dev/null |
		sed -n 's/.*the load takes \([0-9]*\) blocks.*/\1/p')
	if [ -n "$need" ] && [ "$need" -le "$va" ]; then ok "$cfg: $s-byte objects take $need of its $va blocks"
	else notok "$cfg: $s-byte objects take ${need:-an unknown number of} blocks, over its $va"; fi
done
expect_usage "--server-threads negative" $M --bench throughput -D 1 --server-threads -1
# Figs. 15 and 16
expect_usage "--read both outside the compaction bench" $M --bench throughput -D 1 -T 2 --read both
expect_usage "--read both with one client thread" $M --bench compaction -D 1 -T 1 --read both
expect_usage "--bench collection: a worker without a client thread's connection" $M --bench collection -T 2 \
	--server-threads 3
expect_usage "--find with an unknown value" $M --bench compaction -D 1 --find ask
expect_usage "--fallback with an unknown value" $M --bench compaction -D 1 --fallback none
# the collection bench loads one object per worker, whatever -K says: no load
# to refuse at decode (here the job goes on to find no device)
check "--bench collection: -K does not count as a load" sh -c \
	"! $M --bench collection -T 2 -K 1073741824 --va-blocks 16 2>&1 | grep -q 'the load takes'"
t_summary
