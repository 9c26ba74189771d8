#!/bin/sh
# netmem ycsb (host only, no RDMA): traces, --stats, --replay, and bad input
# (one line, exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Checks on what netmem prints send it to a file with `&&` before reading it,
# never through a pipe: a pipe's status is grep's, so a crash or a non-zero
# exit would go unseen, and `! netmem | grep -v` holds on empty output. A
# check that looks for the absence of a line also counts the lines.

check "netmem ycsb --help exits 0" $N ycsb --help
check "netmem ycsb --help documents the trace format" sh -c "$N ycsb --help > $tmp/h && grep -q 'scan KEY LEN' $tmp/h"
check "netmem --help lists ycsb" sh -c "$N --help > $tmp/h && grep -q '^  ycsb ' $tmp/h"

# writing traces
check "workload a trace: 1000 lines of 'op key'" sh -c \
	"$N ycsb -w a -r 100 -n 1000 -o $tmp/a.trace && [ \$(wc -l < $tmp/a.trace) -eq 1000 ] &&
	 ! grep -Evq '^(read|update) [0-9]+\$' $tmp/a.trace"
check "the same seed writes the same trace" sh -c \
	"$N ycsb -w a -r 100 -n 1000 > $tmp/a2.trace && [ \$(wc -l < $tmp/a2.trace) -eq 1000 ] && cmp -s $tmp/a.trace $tmp/a2.trace"
check "another thread writes another trace" sh -c \
	"$N ycsb -w a -r 100 -n 1000 --thread 1 > $tmp/a3.trace && [ \$(wc -l < $tmp/a3.trace) -eq 1000 ] &&
	 ! cmp -s $tmp/a.trace $tmp/a3.trace"
check "workload e writes 'scan key len' lines" sh -c \
	"$N ycsb -w e -n 500 > $tmp/e.trace && grep -Eq '^scan [0-9]+ [0-9]+\$' $tmp/e.trace"
check "workload d inserts keys from --records on" sh -c \
	"$N ycsb -w d -r 100 -n 2000 > $tmp/d.trace && grep -m1 '^insert' $tmp/d.trace | grep -qx 'insert 100'"
check "clover format: 2000 lines, numeric ops only" sh -c \
	"$N ycsb -w b -r 1024 -n 2000 --format clover > $tmp/c.trace && [ \$(wc -l < $tmp/c.trace) -eq 2000 ] &&
	 ! grep -Evq '^[01] [0-9]+\$' $tmp/c.trace"
check "read-only trace: 500 lines, only reads" sh -c \
	"$N ycsb -w read-only -n 500 > $tmp/r.trace && [ \$(wc -l < $tmp/r.trace) -eq 500 ] &&
	 ! grep -Evq '^read [0-9]+\$' $tmp/r.trace"
check "mixed 0.3: 10000 lines, writes near 30%" sh -c \
	"$N ycsb -w mixed --write-ratio 0.3 -n 10000 -d uniform > $tmp/m.trace && [ \$(wc -l < $tmp/m.trace) -eq 10000 ] &&
	 w=\$(grep -c '^update' $tmp/m.trace); [ \$w -gt 2800 ] && [ \$w -lt 3200 ]"

# statistics against the exact probabilities
for d in uniform zipfian zipfian-ri scrambled latest hotspot; do
	check "--stats $d: consistent at p=0.001" sh -c \
		"$N ycsb -w c -d $d -r 1000 -n 200000 --stats > $tmp/st && grep -q ': consistent\$' $tmp/st"
done
check "--stats zipfian theta 1.2 (rejection-inversion): consistent" sh -c \
	"$N ycsb -w c -d zipfian --theta 1.2 -r 1000 -n 200000 --stats > $tmp/st && grep -q ': consistent\$' $tmp/st"
check "--stats shows Gray vs the Zipf pmf" sh -c \
	"$N ycsb -w c -d zipfian -r 1000 -n 10000 --stats > $tmp/st && grep -q 'gray/pmf-1' $tmp/st"
check "--stats with -o writes the trace too" sh -c \
	"$N ycsb -w a -n 300 --stats -o $tmp/s.trace > $tmp/st && grep -q '^read ' $tmp/st && [ \$(wc -l < $tmp/s.trace) -eq 300 ]"

# replay
check "--replay reads a trace back" sh -c "$N ycsb --replay $tmp/a.trace > $tmp/rp && grep -q '1000 requests' $tmp/rp"
check "--replay reads Clover's form" sh -c "$N ycsb --replay $tmp/c.trace > $tmp/rp && grep -q '^read ' $tmp/rp"
check "--replay - reads stdin" sh -c "$N ycsb --replay - < $tmp/a.trace > $tmp/rp && grep -q '1000 requests' $tmp/rp"

# bad input: one line, exit 2
expect_usage "unknown workload letter" $N ycsb -w g
expect_usage "unknown distribution" $N ycsb -d zipf
expect_usage "proportions that do not sum to 1" $N ycsb --mix read=0.5,update=0.4
expect_usage "unknown operation in --mix" $N ycsb --mix read=0.5,upd=0.5
expect_usage "--mix together with --workload" $N ycsb -w a --mix read=1
expect_usage "--write-ratio without mixed" $N ycsb -w a --write-ratio 0.1
expect_usage "write ratio above 1" $N ycsb -w mixed --write-ratio 1.5
expect_usage "theta 0" $N ycsb --theta 0
expect_usage "negative theta" $N ycsb -d zipfian --theta -0.5
expect_usage "zero records" $N ycsb -r 0
expect_usage "zero operations" $N ycsb -n 0
expect_usage "empty hotspot hot set" $N ycsb -d hotspot -r 4
expect_usage "stream beyond --streams" $N ycsb --streams 2 --stream 2
expect_usage "thread beyond the limit" $N ycsb --thread 70000
expect_usage "scans in Clover's format" $N ycsb -w e --format clover
expect_usage "unwritable output" $N ycsb -o "$tmp/no/such/dir/t"
expect_usage "unknown option" $N ycsb --recrods 5
expect_usage "positional argument" $N ycsb extra
expect_usage "missing trace file" $N ycsb --replay "$tmp/none.trace"
printf 'read 1\nupdate 2\nraed 3\n' > "$tmp/bad1"
expect_usage "trace with an unknown operation" $N ycsb --replay "$tmp/bad1"
check "malformed trace names the line" sh -c "$N ycsb --replay $tmp/bad1 2> $tmp/e; [ \$? -eq 2 ] && grep -q 'line 3' $tmp/e"
printf 'read 1\n# comment\n\nread x\n' > "$tmp/bad2"
expect_usage "trace with a bad key" $N ycsb --replay "$tmp/bad2"
check "bad key names line 4 (comments and blank lines count)" sh -c \
	"$N ycsb --replay $tmp/bad2 2> $tmp/e; [ \$? -eq 2 ] && grep -q 'line 4' $tmp/e"
printf 'read 1\nscan 5\n' > "$tmp/bad3"
expect_usage "scan without a length" $N ycsb --replay "$tmp/bad3"
printf 'read 1 2\n' > "$tmp/bad4"
expect_usage "extra field" $N ycsb --replay "$tmp/bad4"
printf '# nothing\n' > "$tmp/empty"
expect_usage "trace without requests" $N ycsb --replay "$tmp/empty"
t_summary
