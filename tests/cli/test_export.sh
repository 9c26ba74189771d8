#!/bin/sh
# netmem export (host only): crafted run directories, one of two documents of
# different experiments and parameters (a ConnectX-5 ops document and a lock
# document on rxe), one of documents without a NIC record or flagged
# emulated; the table's header, rows, quoting and columns, read back with an
# RFC 4180 parser; the entries recomputed from the points; and the refusals
# (exit 2, one line), among them documents that contradict themselves.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# cells CSV: one line per data cell, "ROW<TAB>COLUMN<TAB>VALUE" (rows from 1,
# an LF inside a quoted field shown as \n), and per row "ROW<TAB>#fields<TAB>N"
# and "0<TAB>#fields<TAB>N" for the header.
cells() {
	awk '
	function emit() {
		if (r == 0) name[f] = val; else print r "\t" name[f] "\t" val
		f++; val = ""
	}
	BEGIN { r = 0; f = 1; inq = 0; val = "" }
	{
		line = $0; n = length(line)
		if (inq) val = val "\\n"
		for (i = 1; i <= n; i++) {
			c = substr(line, i, 1)
			if (inq) {
				if (c != "\"") val = val c
				else if (substr(line, i + 1, 1) == "\"") { val = val "\""; i++ }
				else inq = 0
			} else if (c == "\"") inq = 1
			else if (c == ",") emit()
			else val = val c
		}
		if (!inq) { emit(); print r "\t#fields\t" (f - 1); r++; f = 1 }
	}' "$1"
}
# cell ROW COLUMN: the value of a cell of $tmp/cells
cell() { awk -F '\t' -v r="$1" -v c="$2" '$1 == r && $2 == c { print $3; f = 1 } END { exit !f }' "$tmp/cells"; }
# rows_of DOCUMENT: the rows that document fills
rows_of() { awk -F '\t' -v d="$1" '$2 == "document" && $3 == d { print $1 }' "$tmp/cells"; }

# points_of: a document's points from its summary entries, so that they give
# exactly that summary (each entry's reps, each metric its geometric mean
# nested by its dotted path; a null mean is a metric the first repetition
# lacks). The values are ones whose geometric mean over equal repetitions is
# the value itself to the last bit, so a cell reads as written.
pts='def points_of: [.summary[] as $e | range($e.reps) as $r | {params: $e.params, rep: $r, valid: $e.valid,
	metrics: (reduce ($e.geomean | to_entries[] | select(.value != null or $r > 0)) as $m ({};
		setpath($m.key | split("."); $m.value // 1)))}];'
run=$tmp/run; mkdir -p "$run"
jq -n "$pts"'{schema: "netmem-result/1", experiment: "ops", spec: {},
	meta: {runs: [{emulated: false, nranks: 4, hosts: ["node1", "node2"],
		ranks: [{nic: {device: "mlx5_0", vendor_part_id: 4119, fw_ver: "16.35.2000", driver: "mlx5_core",
			emulated: false}}]}]},
	summary: [
		{params: {op: "read", size: 8, ib_dev: "mlx5_0"}, reps: 3, valid: true,
			geomean: {"lat.p50": 1.5, mops: 0.75, seconds: 12}},
		{params: {op: "read", size: 64, ib_dev: "mlx5_0", label: "two\nlines"}, reps: 3, valid: true,
			geomean: {"lat.p50": 1.75, mops: null, seconds: 12}},
		{params: {op: "write", size: 64, ib_dev: "mlx5_0", label: "read, \"hot\"\nsecond line"}, reps: 3,
			valid: true, geomean: {"lat.p50": 2, mops: 3.25, seconds: 12}}]} | .points = points_of' >"$run/ops-lat.json"
jq -n "$pts"'{schema: "netmem-result/1", experiment: "lock", spec: {},
	meta: {runs: [{nranks: 1, hosts: ["vm"], ranks: [{nic: {device: "rxe0", vendor_part_id: 0, fw_ver: "0.0.0",
		driver: "rxe"}}]}]},
	summary: [
		{params: {locks: 16, nodes: 2, seconds: 5}, reps: 1, valid: true,
			geomean: {txns_per_sec: 2048, "fairness.jain_index": 0.98}},
		{params: {locks: 32, nodes: 2, seconds: 5}, reps: 1, valid: false,
			geomean: {txns_per_sec: 1024, "fairness.jain_index": 0.5}}]} | .points = points_of' >"$run/locks.json"
echo '{"note": "not a result document"}' >"$run/notes.json"

header='document,experiment,valid,reps,emulated,nic_device,nic_part_id,nic_firmware,host_count,ib_dev,label,locks,nodes,op,seconds,size,fairness.jain_index,lat.p50,mops,metric.seconds,txns_per_sec'
check "export a run directory to stdout" sh -c "$N export $run >$tmp/out.csv 2>$tmp/err && [ ! -s $tmp/err ]"
cells "$tmp/out.csv" >"$tmp/cells"
check "the header: fixed columns, then parameters sorted, then metrics sorted" \
	sh -c "[ \"\$(head -n 1 $tmp/out.csv)\" = '$header' ]"
check "one row per summary entry (3 + 2), the other JSON file passed over" \
	sh -c "[ \$(awk -F '\t' '\$2 == \"#fields\" && \$1 > 0' $tmp/cells | wc -l) -eq 5 ] && ! grep -q notes $tmp/out.csv"
check "every row has as many fields as the header (21)" \
	sh -c "[ \"\$(awk -F '\t' '\$2 == \"#fields\" { print \$3 }' $tmp/cells | sort -u)\" = 21 ]"
check "documents in name order, entries in document order" \
	sh -c "[ \"\$(awk -F '\t' '\$2 == \"document\" { printf \"%s \", \$3 }' $tmp/cells)\" = 'locks locks ops-lat ops-lat ops-lat ' ]"
check "fields with a comma, quotes or a newline are quoted, their quotes doubled" \
	sh -c "tr '\n' '|' <$tmp/out.csv | grep -qF ',\"read, \"\"hot\"\"|second line\",' &&
	       tr '\n' '|' <$tmp/out.csv | grep -qF ',\"two|lines\",'"
check "the quoted fields read back as written" \
	sh -c "[ \"\$(awk -F '\t' '\$2 == \"label\" && \$3 != \"\" { print \$3 }' $tmp/cells | tr '\n' '|')\" = 'two\\nlines|read, \"hot\"\\nsecond line|' ]"
ops=$(rows_of ops-lat | head -n 1); lock=$(rows_of locks | head -n 1)
check "emulated: true for the rxe document (driver rxe, no emulated flag), false for the ConnectX-5 one" \
	sh -c "[ \"$(rows_of locks | while read -r r; do cell "$r" emulated; done | sort -u)\" = true ] &&
	       [ \"$(rows_of ops-lat | while read -r r; do cell "$r" emulated; done | sort -u)\" = false ]"
check "the NIC columns: device, part id, firmware and host count of the run's metadata" \
	sh -c "[ '$(cell "$ops" nic_device) $(cell "$ops" nic_part_id) $(cell "$ops" nic_firmware) $(cell "$ops" host_count)' = 'mlx5_0 4119 16.35.2000 2' ] &&
	       [ '$(cell "$lock" nic_device) $(cell "$lock" host_count)' = 'rxe0 1' ]"
check "union columns are empty where a document lacks them" \
	sh -c "[ '$(cell "$ops" locks)|$(cell "$ops" nodes)|$(cell "$ops" txns_per_sec)|$(cell "$ops" fairness.jain_index)' = '|||' ] &&
	       [ '$(cell "$lock" op)|$(cell "$lock" size)|$(cell "$lock" lat.p50)|$(cell "$lock" label)' = '|||' ]"
check "parameters and geometric means in their columns; a null mean is an empty cell" \
	sh -c "[ '$(cell "$ops" op) $(cell "$ops" size) $(cell "$ops" lat.p50) $(cell "$ops" mops)' = 'read 8 1.5 0.75' ] &&
	       [ '$(cell $((ops + 1)) mops)' = '' ] && [ '$(cell $((ops + 1)) lat.p50)' = 1.75 ] &&
	       [ '$(cell "$lock" txns_per_sec) $(cell "$lock" fairness.jain_index) $(cell "$lock" reps)' = '2048 0.98 1' ]"
check "valid per entry: false for the lock entry with a failed repetition" \
	sh -c "[ '$(cell "$lock" valid) $(cell $((lock + 1)) valid) $(cell "$ops" valid)' = 'true false true' ]"
check "a metric named like a parameter is metric.NAME: the ops document's seconds, not the lock's" \
	sh -c "[ '$(cell "$ops" metric.seconds)|$(cell "$ops" seconds)|$(cell "$lock" seconds)|$(cell "$lock" metric.seconds)' = '12||5|' ]"
check "--csv FILE writes the same table and says so on stderr" \
	sh -c "$N export $run --csv $tmp/file.csv >$tmp/o2 2>$tmp/e2 && cmp -s $tmp/out.csv $tmp/file.csv && [ ! -s $tmp/o2 ] &&
	       grep -q '^netmem: export: 5 row(s) from 2 document(s) written to $tmp/file.csv' $tmp/e2"
check "--help names --csv and the columns" sh -c "$N export --help | grep -q -- '--csv FILE' && $N export --help | grep -q nic_firmware"

# Documents without a NIC record (the CoRM simulator's: no meta, no schema),
# with a run flagged emulated on a hardware-named device, and with a NIC
# record flagged emulated (an rxe device renamed by `rdma link add`).
sim=$tmp/sim; mkdir -p "$sim"
jq -n '{experiment: "corm-sim", mode: "prob", summary: [{params: {size: 64}, valid: true, geomean: {probability: 0.25}}]}' \
	>"$sim/corm-fig7.json"
jq -n "$pts"'{schema: "netmem-result/1", experiment: "ops", spec: {},
	meta: {runs: [{emulated: true, hosts: ["h"], ranks: [{nic: {device: "mlx5_0", driver: "mlx5_core"}}]}]},
	summary: [{params: {size: 8}, reps: 1, valid: true, geomean: {mops: 1}}]} | .points = points_of' >"$sim/flagged.json"
jq -n "$pts"'{schema: "netmem-result/1", experiment: "ops", spec: {},
	meta: {runs: [{hosts: ["h"], ranks: [{nic: {device: "roce0", driver: null, emulated: true}}]}]},
	summary: [{params: {size: 8}, reps: 1, valid: true, geomean: {mops: 1}}]} | .points = points_of' >"$sim/renamed.json"
check "export documents without a NIC record or flagged emulated" sh -c "$N export $sim >$tmp/sim.csv 2>$tmp/e3"
cells "$tmp/sim.csv" >"$tmp/cells"
check "emulated: true without a NIC record (simulator), for a run or a NIC record flagged emulated; NIC cells empty without a record" \
	sh -c "[ '$(cell 1 document) $(cell 1 emulated) $(cell 1 nic_device)| $(cell 1 reps)|' = 'corm-fig7 true | |' ] &&
	       [ '$(cell 2 document) $(cell 2 emulated) $(cell 2 nic_device)' = 'flagged true mlx5_0' ] &&
	       [ '$(cell 3 document) $(cell 3 emulated) $(cell 3 nic_device)' = 'renamed true roce0' ]"

expect_usage "no such run directory" $N export "$tmp/nosuch"
mkdir -p "$tmp/empty"; cp "$run/notes.json" "$tmp/empty/"
expect_usage "a directory without a result document" $N export "$tmp/empty"
mkdir -p "$tmp/broken"; cp "$run/locks.json" "$tmp/broken/"; echo '{"experiment": "ops", "summary": [' >"$tmp/broken/ops.json"
expect_usage "a document that does not parse" $N export "$tmp/broken"
mkdir -p "$tmp/future"; jq '.schema = "netmem-result/9"' "$run/locks.json" >"$tmp/future/locks.json"
check "an unknown schema version: one line naming the document and its schema, exit 2" sh -c \
	"$N export $tmp/future >$tmp/o4 2>$tmp/e4; [ \$? = 2 ] && [ ! -s $tmp/o4 ] && [ \$(wc -l <$tmp/e4) = 1 ] &&
	 grep -q \"^netmem: export: $tmp/future/locks.json: schema .netmem-result/9. is not one this netmem reads\" $tmp/e4"

# The entries written are the summary recomputed from the points (as the
# report reads it), never the stored one as it stands: a stored mean off by
# less than the report's tolerance (1e-9 of it) is written as the points give
# it. A document the report calls inconsistent is refused, one line naming
# it and why: a stored entry its points do not give, a stored value its
# points contradict, a command line of another config.
mkdir -p "$tmp/near"; cp "$run/locks.json" "$tmp/near/"
jq '.summary[0].geomean."lat.p50" = 1.5000000001' "$run/ops-lat.json" >"$tmp/near/ops-lat.json"
check "a stored mean within the tolerance: the cell is the points' mean (1.5), not the stored one" sh -c \
	"$N export $tmp/near >$tmp/near.csv 2>$tmp/e5 && [ ! -s $tmp/e5 ] && grep -q '^ops-lat,ops,true,3,.*,read,,8,,1.5,0.75,12,\$' $tmp/near.csv &&
	 ! grep -q 1.5000000001 $tmp/near.csv"
# refused DIR WHAT PATTERN: exit 2, nothing on stdout, one line on stderr
# naming DIR/ops-lat.json as an inconsistent document and why (PATTERN)
# refused NAME JQ WHAT PATTERN: a run directory holding locks.json and
# ops-lat.json passed through JQ, which export must refuse with PATTERN
refused() {
	mkdir -p "$tmp/$1"; cp "$run/locks.json" "$tmp/$1/"
	jq "$2" "$run/ops-lat.json" >"$tmp/$1/ops-lat.json"
	check "$3: refused, one line naming the document and why, exit 2" sh -c \
		"$N export $tmp/$1 --csv $tmp/refused.csv >$tmp/o6 2>$tmp/e6; [ \$? = 2 ] && [ ! -s $tmp/o6 ] && [ ! -e $tmp/refused.csv ] &&
		 [ \$(wc -l <$tmp/e6) = 1 ] && grep -q \"^netmem: export: $tmp/$1/ops-lat.json: inconsistent document: $4\" $tmp/e6"
}
refused nopoints '.points |= map(select(.params.op != "write"))' "a stored summary entry no point gives" \
	'summary entry {.*.op.:.write.*} has no points'
refused differs '.summary[2].geomean.mops = 99' "a stored mean its points contradict" \
	'summary entry {.*.op.:.write.*} says mops = 99, its points give 3.25'
refused nosummary '.summary |= .[:2]' "points without a stored summary entry" \
	'points {.*.op.:.write.*} have no summary entry'
refused other '.meta.runs[0].command_line = "netmem run configs/quick/ops-bw.json"' "a command line of another config" \
	'ops-lat is named after config ops-lat, but its command line ran config ops-bw'
expect_usage "an unknown option" $N export "$run" --tsv
expect_usage "no run directory" $N export
expect_usage "two run directories" $N export "$run" "$sim"
expect_usage "--csv without a file" $N export "$run" --csv
expect_usage "--csv into a directory that does not exist" $N export "$run" --csv "$tmp/nosuch/out.csv"
t_summary
