#!/bin/sh
# The paper-scale configs carry the papers' parameters: a table taken from
# the papers (CoRM Sec. 4.1-4.3 for its measured figures, LOCO Sec. 7.2 for
# Fig. 5), one row per (config, parameter), compared with the config's
# params by one jq per config file. A row is
#   CONFIG | JQ FILTER | VALUE (compact JSON) | WHERE IN THE PAPER | NOTE
# with NOTE empty when VALUE is the paper's own; "decision: ..." when the
# config deliberately differs or the paper is silent (VALUE is then the
# documented value, and the reason is in the note); "todo: ..." when the
# config does not carry the paper's value yet (VALUE is the paper's, in
# words where no config value can say it: the row is reported as skipped,
# not checked, until the config does). A CONFIG with no config file is one
# of run_all.sh's host tools (CoRM's simulator): its rows are checked on
# the document run_all.sh's paper-scale arguments make, over 1% of the
# Redis traces' keys at one thread count (the rows name no count).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dir=${NETMEM_PAPER_CONFIGS:-configs/paper}
N=${NETMEM_BIN:-bin/netmem}

cat >"$tmp/table" <<'EOT'
corm-fig8  | .params.strategy | ["rereg","odp","odp-prefetch","defer"] | Sec. 3.5, Fig. 8: three strategies (ibv_rereg_mr, ODP, ODP with prefetch) | decision: deferred reclamation added as a fourth, for devices with neither (workloads/corm/README.md)
corm-fig8  | .params.block_size | [4096,65536,1048576] | Sec. 4: 4 KiB blocks unless stated; Sec. 4.3.1: up to 1 MiB (256 pages) | decision: the paper names no sizes for Fig. 8; 4 KiB, 64 KiB and 1 MiB span Fig. 15's range
corm-fig9  | .params.objects | 10000 | Sec. 4.1: 10,000 objects of each size class |
corm-fig9  | .params.block_size // 4096 | 4096 | Sec. 4: blocks of 4 KiB unless stated | decision: unset, netmem corm's default (4 KiB)
corm-fig9  | .params.threads | 1 | Sec. 4.1: latency observed by one client, one operation at a time |
corm-fig11 | .params.read | ["direct","farm","raw","rpc"] | Sec. 4.2: CoRM, FaRM (emulated) and raw RDMA | decision: RPC reads added as a fourth line (the path Figs. 12 and 16 compare with)
corm-fig11 | .params.dist | "uniform" | Sec. 4.2.1: objects accessed uniformly |
corm-fig11 | .params.threads | 1 | Sec. 4.2.1: at most one outstanding request per client |
corm-fig11 | .params.class_bytes | 8589934592 | Sec. 4.2.1: 8 GiB of data for each size class | decision: counted in slot bytes, 536,870,912 objects of 8 bytes to 4,210,752 of 2000 (workloads/corm/README.md)
corm-fig11-local | .params.objects | 2000000 | Sec. 4.2.1: 8 GiB per size class, read from DRAM | decision: 2,000,000 per size (64 MB to 4 GB), far beyond the last-level cache as the paper's DRAM reads need (the config's description)
corm-fig11-local | .params.read | ["direct","farm","raw"] | Sec. 4.2.1: CoRM, FaRM and memcpy for local reads |
corm-fig12 | .params.live_objects | 8000000 | Sec. 4.2.2: 8,000,000 objects |
corm-fig12 | .params.size | 24 | Sec. 4.2.2: objects of 32 bytes | decision: 24-byte payloads fill the 32-byte size class (an 8-byte slot header; workloads/corm/README.md)
corm-fig12 | .params.dist | ["uniform","zipfian"] | Sec. 4.2.2: Zipf and uniform |
corm-fig12 | .params.theta | 0.99 | Sec. 4.2.2: Zipf theta 0.99 |
corm-fig12 | .params.read | ["direct","rpc"] | Sec. 4.2.2: RDMA lines DirectRead, RPC lines RPC reads |
corm-fig12 | .params.write_ratio | [0,0.05,0.5] | Sec. 4.2.2: 50:50 and read-dominant ratios | decision: read-dominant as 95:5 and 100:0 (the paper names only 50:50)
corm-fig12 | .params.threads | [1,2,4,8] | Sec. 4.2.2-4.2.3: clients from 1 to past 4, up to 32 | decision: powers of two (the paper's axis values are not in the text); up to 8 on one client host
corm-fig12 | .plots[0].inputs.hosts | "corm-fig12-h*" | Sec. 4: 5 nodes; the authors' scripts: 8 client threads per client machine | decision: 16 and 32 clients in configs of their own, drawn in this figure
corm-fig12-h2 | [.ranks, .params.threads] | [3,8] | the authors' scripts: 8 client threads per client machine | decision: 16 clients on 2 client hosts
corm-fig12-h4 | [.ranks, .params.threads] | [5,8] | Sec. 4: 5 nodes, 32 clients; 8 client threads per client machine |
corm-fig12-h4 | [.params.read, .params.write_ratio, .params.dist, .params.live_objects, .params.server_threads, .params.duration] | [["direct","rpc"],[0,0.05,0.5],["uniform","zipfian"],8000000,8,60] | Sec. 4.2.2: the setting of the 1-host points |
corm-fig12 | .params.server_threads | 8 | Sec. 4: 8 worker threads unless stated |
corm-fig12 | .params.duration | 60 | Sec. 4.2.2: averaged over one minute |
corm-fig13 | .params.write_ratio | 0.5 | Sec. 4.2.3: YCSB 50:50 |
corm-fig13 | .params.threads | [1,2,4,8] | Sec. 4.2.3: up to 32 clients | decision: up to 8 on one client host, 16 and 32 on 2 and 4 (corm-fig13-h2, -h4)
corm-fig13-h4 | [.ranks, .params.threads] | [5,8] | Sec. 4.2.3: 32 clients; 8 client threads per client machine |
corm-fig13-h2 | [.ranks, .params.threads, .params.theta] | [3,8,[0.5,0.7,0.9,0.99]] | the authors' scripts: 8 client threads per client machine | decision: 16 clients on 2 client hosts
corm-fig13 | .params.theta[-1] | 0.99 | Sec. 4.2.3: skew up to theta 0.99 |
corm-fig13 | .params.live_objects | 8000000 | Sec. 4.2.3: the setting of Sec. 4.2.2 |
corm-fig13 | .params.server_threads | 8 | Sec. 4: 8 worker threads |
corm-fig13 | .params.duration | 60 | Sec. 4.2.3: over a period of one minute |
corm-fig14 | .params.write_ratio | 0 | Sec. 4.2.4: YCSB 100:0 (Fig. 14's caption) |
corm-fig14 | .params.threads | 8 | Sec. 4.2.4: the load of 8 clients |
corm-fig14 | .params.free_ratio | [0,0.5] | Sec. 4.2.4: unfragmented, and 16,000,000 loaded then 50% freed at random |
corm-fig14 | .params.live_objects | 8000000 | Sec. 4.2.4: 8,000,000 live either way |
corm-fig14 | .params.theta[-1] | 0.99 | Sec. 4.2.4: skew up to theta 0.99 |
corm-fig14 | .params.read | "direct" | Sec. 4.2.4: throughput of DirectReads |
corm-fig15 | .params.bench | "collection" | Sec. 4.3.1: "allocating a single object of 32 bytes on each thread and then triggering the compaction process" |
corm-fig15 | .params.block_size | [4096,16384,65536,262144,1048576] | Sec. 4.3.1: 1 page to 1 MiB (256 pages) | decision: five sizes of the paper's range, 4 KiB for the left and center panels
corm-fig15 | .params.size | 24 | Sec. 4.3.1: objects of 32 bytes | decision: the 32-byte size class, as Fig. 12
corm-fig15 | .params.threads | [2,4,8,16] | Sec. 4.3.1: collection from 2 to 16 threads, each with its one block |
corm-fig15 | .params.strategy | ["rereg","odp-prefetch","defer"] | Sec. 4.3.1: ibv_rereg_mr (ConnectX-3 and -5) and ODP with prefetching (ConnectX-5) | decision: deferred reclamation added, for a device with neither (workloads/corm/README.md)
corm-fig15 | .params.iters | 50 | Sec. 4.3.1 gives no count | decision: 50 compactions per point, as the authors' scripts repeat each run
corm-fig16 | .params.objects * .params.threads | 8000000 | Sec. 4.3.2: 8,000,000 objects | decision: 4,000,000 per client, the RPC one and the DirectRead one
corm-fig16 | .params.server_threads | 8 | Sec. 4: 8 worker threads unless stated; Sec. 3.4: the compaction leader is one of them | decision: worker 0 compacts from its serving loop (compaction.compactor), its own connections waiting meanwhile
corm-fig16 | .params.keys | "shared" | Sec. 4.3.2: the workload "repeatedly and sequentially reads all objects" | decision: each client reads every survivor, the other client's through its pointers
corm-fig16-scan | .params.server_threads | 8 | Sec. 4: 8 worker threads unless stated | decision: as corm-fig16
corm-fig16-scan | .params.keys | "shared" | Sec. 4.3.2: every object read, sequentially | decision: as corm-fig16
corm-fig16 | .params.free_ratio | 0.75 | Sec. 4.3.2: 75% deallocated at random |
corm-fig16 | .params.compact_at | 2 | Sec. 4.3.2: compaction invoked after two seconds |
corm-fig16 | .params.read | "both" | Sec. 4.3.2: "one using RPC reads, and the other using DirectReads (RDMA)", side by side |
corm-fig16 | .params.find | "msg" | Sec. 4.3.2 (top): "CoRM is configured to use thread messaging" |
corm-fig16 | .params.fallback | "scan" | Sec. 4.3.2 (top): "the client issues a ScanRead to back up a failed DirectRead" |
corm-fig16 | .params.max_merges | 5794 | Sec. 4.3.2: "During the compaction, CoRM compacts 5,794 blocks" | decision: the paper's count as a cap (the authors' code stops after 6,000 merges; an uncapped compaction of this heap merges far more)
corm-fig16 | .params.size | 24 | Sec. 4.3.2: objects of 32 bytes | decision: the 32-byte size class, as Fig. 12
corm-fig16-scan | .params.find | "scan" | Sec. 4.3.2 (bottom): "CoRM's worker threads opt for scanning the whole block" |
corm-fig16-scan | .params.fallback | "rpc" | Sec. 4.3.2 (bottom): "The RDMA client in this experiment uses RPC to correct pointers, instead of ScanRead" |
corm-fig16-scan | .params.objects * .params.threads | 8000000 | Sec. 4.3.2: 8,000,000 objects | decision: 4,000,000 per client, as corm-fig16
corm-fig16-scan | .params.max_merges | 5794 | Sec. 4.3.2: 5,794 blocks compacted | decision: as corm-fig16
clover-fig2 | [.hosts, .params.roles, .params.path] | [[2,1,1,1],"memory-first","forward"] | Sec. 4: a single server plays both the memory server and the metadata server, two client machines, a fourth hosting the switch |
clover-fig4 | [.hosts, .params.roles, .params.path] | [[2,1,1,1],"memory-first","forward"] | Sec. 4: the testbed of Fig. 2 |
loco-fig5  | .ranks | [2,4,8,16] | Sec. 7.2: across different node counts (none named) | decision: 2 to 16 nodes, the cluster of Fig. 4b (workloads/kv/README.md)
loco-fig5  | .params.threads | [1,2,4,8,14] | Sec. 7.2: per-node thread counts (none named) | decision: up to 14 of a 16-core node, two cores left to LOCO's polling and tracker threads
loco-fig5  | .params.system | ["loco","sherman","scythe","redis","redis-pipelined"] | Sec. 7.2: LOCO, Sherman, Scythe's MicroDB, Redis Cluster driven by memtier | decision: redis-pipelined (the same servers, commands pipelined per thread) added as an extra series, drawn apart (loco-fig5-extra)
loco-fig5  | .params.redis_threads // 4 | 4 | Sec. 7.2: each Redis server instance uses 4 threads, ceil(num_threads/4) instances | decision: unset, netmem kv's default (4 I/O threads per instance, and ceil(T/4) instances)
loco-fig5  | .params.lock_table // 32768 | 32768 | Sec. 7.2 names no Sherman setting: Sherman as published | decision: unset, netmem kv's default, Sherman's lock table (kNumOfLock: 32768 words, 256 KiB of NIC memory; include/Common.h of its public code)
loco-fig5  | .params.hand_over // 8 | 8 | Sec. 7.2 names no Sherman setting: Sherman as published | decision: unset, netmem kv's default, Sherman's bound on local hand-overs (kMaxHandOverTime; include/Common.h)
loco-fig5  | .params.lock_memory // "auto" | "auto" | Sec. 7.2 names no Sherman setting: Sherman keeps its locks in NIC memory | decision: unset, netmem kv's default: the NIC's memory where it has some (ConnectX-5 and later; the table cut to the words it holds), host memory otherwise, recorded in effective.lock_memory
loco-fig5  | .params.window | [3,128] | Sec. 7.2: window 3, and 128 for LOCO's large window |
loco-fig5  | .params.scythe_write // "insert" | "insert" | Sec. 7.2: for Scythe, the performance of insertion operations as an upper bound on write performance | decision: unset, netmem kv's default (--scythe-write update runs Scythe's takeout-lock updates)
loco-fig5  | .params.workload | ["read-only","mixed","write-only"] | Sec. 7.2: read-only, mixed, write-only |
loco-fig5  | .params.dist | ["uniform","zipfian"] | Sec. 7.2: uniform and Zipfian keys |
loco-fig5  | .params.theta // 0.99 | 0.99 | Sec. 7.2: Zipfian theta 0.99 | decision: unset, netmem kv's default (0.99)
loco-fig5  | .params.keys | 10485760 | Sec. 7.2: a 10MB keyspace | decision: read as 10 x 2^20 keys (workloads/kv/README.md)
loco-fig5  | .params.fill | 0.8 | Sec. 7.2: filled to 80% capacity |
loco-fig5  | .params.value_size | 8 | Sec. 7.2: 64-bit keys and values |
loco-fig5  | .params.duration | 20 | Sec. 7.2: 20 second runs |
loco-fig5  | .params.reps | 5 | Sec. 7.2: geometric mean of 5 runs |
corm-fig18 | .params.block_size | 1048576 | Sec. 4.4.3: "CoRM is configured with 1 MiB blocks" (Fig. 18's caption) |
corm-fig18 | [.traces[].redis.version] | ["5.0.7","5.0.7","5.0.7"] | Sec. 4.4.3: traces of the memefficiency test of Redis v5.0.7 | decision: the allocations Redis 5.0.7 makes for the described keys (workloads/corm/README.md)
corm-fig18 | .traces.t2.redis.maxmemory_policy | "allkeys-lru" | Sec. 4.4.3: "Redis is configured as an LRU cache with a capacity of 100 MiB" |
corm-fig18 | .traces.t2.redis.maxmemory_samples | 5 | Sec. 4.4.3 names no LRU setting | decision: Redis 5's default maxmemory-samples, its approximated LRU with an eviction pool
corm-fig18 | .traces.t2.redis.eviction_pool | 16 | Sec. 4.4.3 names no LRU setting | decision: Redis 5's eviction pool (EVPOOL_SIZE)
corm-fig18 | .traces.t3.redis.structure_bytes | 163840 | Sec. 4.4.3: "5 keys containing data structures of 160 KiB each" | decision: items added to each until its allocations reach 160 KiB (Redis's test adds 10,000)
corm-fig18 | .traces.t3.redis.structures | ["hash","list","zset","set","stream"] | Sec. 4.4.3 names no structure | decision: the five big keys of Redis's memefficiency test
corm-fig18 | .traces.t3.redis.list_max_ziplist_size | 5 | Sec. 4.4.3 names no setting | decision: as Redis's test sets it for its big keys
corm-fig18 | .traces.t3.redis.stream_node_max_entries | 5 | Sec. 4.4.3 names no setting | decision: as Redis's test sets it for its big keys
corm-fig19 | .params.hybrid | true | Sec. 4.4.3: Fig. 19, "hybrid mode" |
corm-fig19 | .params.block_size | 1048576 | Sec. 4.4.3: "1 MiB blocks and in hybrid mode" (Fig. 19's caption) |
EOT

# trim S: S without leading and trailing blanks
trim() { printf '%s' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }

for cfg in $(cut -d'|' -f1 "$tmp/table" | tr -d ' ' | awk '!seen[$0]++'); do
	rows=$(grep "^$cfg *|" "$tmp/table")
	# One jq for the config: every row's filter, each value as compact JSON
	# on its own line (an error or a missing key gives "error" or null).
	prog=$(printf '%s\n' "$rows" | awk -F'|' '{ f = $2; gsub(/^ +| +$/, "", f); printf "%s((%s) | tojson)", (NR > 1 ? ", " : ""), f }')
	file=$dir/$cfg.json
	args=$(sed -n "s/^[[:space:]]*tool_args\[$cfg\]=\"\(.*\)\"\$/\1/p" run_all.sh | head -n 1)
	if [ ! -f "$file" ] && [ -n "$args" ]; then
		cmd=$(sed -n "s/^[[:space:]]*tool_cmd\[$cfg\]=\(.*\)\$/\1/p" run_all.sh)
		file=$tmp/$cfg.json
		# shellcheck disable=SC2046 # the arguments as run_all.sh passes them
		if ! $N "${cmd:-corm-sim}" $(printf '%s' "$args" | sed 's/--redis /--redis-scale 0.01 --redis /; s/--thread-counts [0-9,]*/--thread-counts 1/') \
			-o "$file" >"$tmp/err" 2>&1; then
			notok "$cfg: netmem ${cmd:-corm-sim} $args failed: $(tail -n 1 "$tmp/err")"
			continue
		fi
	fi
	if ! got=$(jq -r "$prog" "$file" 2>"$tmp/err"); then
		notok "$cfg: jq could not read $file: $(head -1 "$tmp/err")"
		continue
	fi
	i=0
	printf '%s\n' "$rows" >"$tmp/rows"
	while IFS='|' read -r _ filter want where note; do
		i=$((i + 1))
		have=$(printf '%s\n' "$got" | sed -n "${i}p")
		filter=$(trim "$filter"); want=$(trim "$want"); where=$(trim "$where"); note=$(trim "$note")
		what="$cfg $filter = $want ($where${note:+; $note})"
		case $note in
		todo:*)
			if [ "$have" = "$want" ]; then notok "$what: the config now has the paper's value: make the row a plain one"
			else skip "$what" "the config has $have"; fi ;;
		*)
			if [ "$have" = "$want" ]; then ok "$what"; else notok "$what: the config has $have"; fi ;;
		esac
	done <"$tmp/rows"
done
t_summary
