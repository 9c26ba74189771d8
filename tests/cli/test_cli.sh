#!/bin/sh
# Command-line behaviour that needs no RDMA device: help, bad input (one
# line, exit 2, rank 0 only), config files, the table command. The checks
# hold whether or not the host has a device: those that must reach the device
# check name one that does not exist (-d nosuchdev0); the one that needs no
# device at all is skipped where there is one.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
NODEV=nosuchdev0

check "netmem --help exits 0" $N --help
# The help and the parser agree: the help lists -t as --tx-depth's short
# form with its bounds' minimum 0, and the parser, given -t, refuses a value
# below it naming --tx-depth (a grep of the help alone would only read the
# option table's text back).
check "netmem ops: -t is --tx-depth in the help and in the parser" sh -c \
	"$N ops --help | grep -q -- '-t, --tx-depth=N' && $N ops -t -1 2>&1 | grep -q 'option --tx-depth: -1 is below the minimum 0'"
check "netmem run --help exits 0" $N run --help
check "netmem --version names the suite" sh -c "$N --version | grep -q '^netmem '"
check "netmem info prints valid JSON" sh -c "$N info | jq -e '.software.suite == \"netmem-bench\"'"
check "netmem cleanup --help names the state file it undoes" sh -c "$N cleanup --help | grep -q /run/netmem/forward.state"
expect_usage "netmem cleanup with an argument it does not take" $N cleanup now

expect_usage "no command" $N
expect_usage "unknown command" $N frobnicate
expect_usage "unknown flag" $N ops --szie 8
expect_usage "flag without value" $N ops --size
expect_usage "negative size" $N ops -s -5
expect_usage "zero iterations" $N ops -n 0
expect_usage "size beyond the limit" $N ops -s 4G
expect_usage "bad enum" $N ops --op raed
expect_usage "kv --system redis without its server binary (decode, before the device)" $N kv --system redis --redis-server /nonexistent -n 10
expect_usage "list on a scalar option" $N ops -n 10,20
expect_usage "bad range" $N ops -s 3..64
expect_usage "positional argument" $N ops extra
expect_usage "bad MTU" $N ops -m 1000 --targets self
expect_usage "atomic with a size" $N ops --op cas -s 64 --targets self
expect_usage "lat mode with a window" $N ops --mode lat -t 8 --targets self
expect_usage "size beyond --mr-size" $N ops -s 64k --mr-size 4k --targets self
expect_usage "target rank that does not exist" $N ops --targets 3
expect_usage "fewer ranks than needed" $N ops
expect_usage "txn: mpi with more than 341 locks per thread" $N txn --lock mpi --locks-per-thread 342
expect_usage "txn: more ranks per node than ranks" $N txn --ranks-per-node 2
expect_usage "txn: bank too large for 64-bit sums" $N txn -A 10000000000 --balance 1000000000000
expect_usage "barrier: --validate 0 with --check-every 0 (nothing would check)" $N barrier --validate 0 -n 10
expect_usage "kv: unknown workload letter" $N kv -w z
expect_usage "kv: proportions that do not sum to 1" $N kv --mix read=0.5,update=0.4
expect_usage "kv: theta out of range" $N kv --dist zipfian --theta 0
expect_usage "kv: key space smaller than the prefill" $N kv --keys 100 --prefill 200
expect_usage "kv: value larger than a slot" $N kv --value-size 64 --slot-bytes 32
expect_usage "kv: window 0" $N kv -W 0
expect_usage "kv: a workload with scans" $N kv -w e
expect_usage "kv: a fault injected into redis" $N kv --system redis --inject early-release
# a path longer than the point holds is refused, not cut to another file's name
long=/tmp/$(printf '%0292d' 0)
expect_usage_re "kv: a --history path too long to hold" 'history: a path of 303 bytes \(at most 255\)' $N kv --history "$long.jsonl"
expect_usage_re "kv: a --redis-server path too long to hold" 'redis-server: a path of 297 bytes' $N kv --system redis --redis-server "$long"
expect_usage "barrier: bad fence" $N barrier --fence global
expect_usage "control: one rank (a controller needs a converter)" $N control
expect_usage "info on a missing device" $N info -d $NODEV
expect_usage "ops on a missing device" $N ops --targets self -d $NODEV
check "ops on a missing device: the line says so" sh -c "$N ops --targets self -d $NODEV 2>$tmp/e; [ \$? -eq 2 ] && grep -q 'no RDMA device' $tmp/e"
if dev=$(nm_rdma_device); then
	skip "no RDMA device at all" "the host has one ($dev)"
else
	expect_usage "no RDMA device at all" $N ops --targets self
fi
expect_usage "table without --y" $N table x.json --x size

printf '{"experiment": "ops", "params": {"size": 8,}}' > "$tmp/bad.json"
expect_usage "malformed config JSON" $N run "$tmp/bad.json"
check "malformed config names line and column" sh -c "$N run $tmp/bad.json 2>&1 | grep -q 'line 1 column'"
printf '{"experiment": "ops", "params": {"szie": 8}}' > "$tmp/typo.json"
expect_usage "unknown config key" $N run "$tmp/typo.json"
check "unknown config key suggests the right one" sh -c "$N run $tmp/typo.json 2>&1 | grep -q \"did you mean 'size'\""
printf '{"experiment": "nope", "params": {}}' > "$tmp/exp.json"
expect_usage "unknown experiment in config" $N run "$tmp/exp.json"
printf '{"experiment": "ycsb", "params": {}}' > "$tmp/tool.json"
expect_usage "a tool command in a config" $N run "$tmp/tool.json"
printf '{"experiment": "ops", "parms": {}}' > "$tmp/top.json"
expect_usage "unknown top-level config key" $N run "$tmp/top.json"
check "unknown top-level config key lists the accepted ones" sh -c \
	"$N run $tmp/top.json 2>&1 | grep -q 'expected experiment, params, description, ranks, hosts, numa, odp, plots'"
printf '{"experiment": "ops", "numa": "yes", "params": {}}' > "$tmp/numa.json"
expect_usage "config \"numa\" not a boolean" $N run "$tmp/numa.json"
printf '{"experiment": "ops", "odp": 1, "params": {}}' > "$tmp/odp.json"
expect_usage "config \"odp\" not a boolean" $N run "$tmp/odp.json"
printf '{"experiment": "ops", "plots": "ops_latency", "params": {}}' > "$tmp/plots.json"
expect_usage "config \"plots\" not a list" $N run "$tmp/plots.json"
printf '{"experiment": "ops", "plots": [{"figure": "x"}], "params": {}}' > "$tmp/plots2.json"
expect_usage "config plot without a script" $N run "$tmp/plots2.json"
expect_usage "missing config file" $N run "$tmp/none.json"
printf '{"experiment": "ops", "numa": false, "plots": [{"script": "ops_latency", "inputs": {"base": ["a", "b*"]}}],
 "params": {"op": ["read", "write"], "size": "4k", "targets": "self"}}' > "$tmp/ok.json"
expect_usage "valid config reaches the device check" $N run "$tmp/ok.json" -d $NODEV
check "valid config fails only for want of a device" sh -c "$N run $tmp/ok.json -d $NODEV 2>&1 | grep -q 'no RDMA device'"

# Under mpirun every rank sees the bad input; only rank 0 may say so.
if command -v mpirun >/dev/null; then
	expect_usage "bad input under mpirun -np 3 is reported once" mpirun --oversubscribe -np 3 $N ops --szie 8
	expect_usage "missing device under mpirun -np 2 is reported once" mpirun --oversubscribe -np 2 $N ops -d $NODEV
	expect_usage "txn: mpi with more workers than ranks per node" mpirun --oversubscribe -np 4 $N txn --lock mpi -T 3 --ranks-per-node 2
	check "txn: ... and the line says so" sh -c "mpirun --oversubscribe -np 4 $N txn --lock mpi -T 3 --ranks-per-node 2 2>&1 | grep -q 'needs --ranks-per-node >= 3'"
	expect_usage "txn: more nodes than the job has" mpirun --oversubscribe -np 4 $N txn --nodes 3 --ranks-per-node 2
	check "txn: ... and the line says so" sh -c "mpirun --oversubscribe -np 4 $N txn --nodes 3 --ranks-per-node 2 2>&1 | grep -q 'needs 6 ranks'"
fi

# table: columns from a hand-made result document
cat > "$tmp/r.json" <<'JSON'
{"schema": "netmem-result/1", "experiment": "ops", "points": [],
 "summary": [
  {"params": {"op": "read", "size": 64}, "reps": 1, "valid": true, "geomean": {"lat.p50": 2.5}},
  {"params": {"op": "read", "size": 8}, "reps": 1, "valid": true, "geomean": {"lat.p50": 2.0}},
  {"params": {"op": "write", "size": 8}, "reps": 1, "valid": false, "geomean": {"lat.p50": 9.0}}]}
JSON
out=$($N table "$tmp/r.json" --x size --y lat.p50 --series op 2>/dev/null)
if [ "$(printf '%s\n' "$out" | grep -v '^$' | tr '\n' ';')" = "size read;8 2;64 2.5;" ]; then
	ok "table sorts by x and leaves out invalid points"
else
	notok "table output: $out"
fi

# preflight where no device opens (-d names none; a forwarding host's rank
# opens none): the host said once, each config refused there naming it, exit 2
if command -v mpirun >/dev/null; then
	mpirun -np 2 $N preflight -d $NODEV configs/check/clover-skew.json >"$tmp/pf.out" 2>"$tmp/pf.err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(grep -c 'has no RDMA device' "$tmp/pf.err")" -eq 1 ] &&
		grep -q '^host .*: no RDMA device' "$tmp/pf.out" &&
		grep -q 'clover-skew.json: DOES NOT FIT.*no RDMA device could be opened there' "$tmp/pf.out"; then
		ok "preflight on a host without a device: said once, the config refused for it, exit 2"
	else
		notok "preflight without a device: exit $rc: $(cat "$tmp/pf.err" "$tmp/pf.out" | head -c 600 | tr '\n' '|')"
	fi
fi

# table: a speedup over a baseline, averaged over a parameter (ALock Fig. 4)
cat > "$tmp/f4.json" <<'JSON'
{"schema": "netmem-result/1", "experiment": "lock", "points": [],
 "summary": [
  {"params": {"remote_budget": 5, "p_local": 95, "lock": "alock"}, "valid": true, "geomean": {"ops_per_sec": 100}},
  {"params": {"remote_budget": 20, "p_local": 95, "lock": "alock"}, "valid": true, "geomean": {"ops_per_sec": 150}},
  {"params": {"remote_budget": 5, "p_local": 85, "lock": "alock"}, "valid": true, "geomean": {"ops_per_sec": 50}},
  {"params": {"remote_budget": 20, "p_local": 85, "lock": "alock"}, "valid": true, "geomean": {"ops_per_sec": 125}},
  {"params": {"remote_budget": 10, "p_local": 90, "lock": "alock"}, "valid": true, "geomean": {"ops_per_sec": 70}}]}
JSON
out=$($N table "$tmp/f4.json" --x remote_budget --y ops_per_sec --relative-to remote_budget=5 --mean-over p_local 2>"$tmp/f4.err")
# budget 5: 1 and 1; budget 20: 1.5 and 2.5 -> 2; budget 10 at 90% has no baseline: left out, said so
if [ "$(printf '%s\n' "$out" | grep -v '^$' | tr '\n' ';')" = "remote_budget all;5 1;20 2;" ] &&
	grep -q "without a remote_budget=5 baseline" "$tmp/f4.err"; then
	ok "table --relative-to --mean-over: speedup over the baseline, averaged, baseline-less rows named"
else
	notok "table --relative-to --mean-over output: $out / $(cat "$tmp/f4.err")"
fi
expect_usage "table --mean-over over rows that differ in another parameter" $N table "$tmp/f4.json" --x p_local --y ops_per_sec --mean-over lock
t_summary
