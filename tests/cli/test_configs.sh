#!/bin/sh
# Every config under configs/ passes netmem run --check (it parses, has only
# the keys netmem run accepts, and its "plots" name plot scripts that exist
# and inputs that are configs of that scale); its figures are unique within
# its scale; every plot script that writes a figure is named by a config of
# each scale; the check scale has every quick config. Then the same checks on broken
# configs, which must fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# problems CFG: one line per problem of this config (none: it is fine), as
# netmem run --check reports them (the schema lives in harness/config.c)
problems() {
	bin/netmem run --check "$1" 2>&1
}
# figures DIR: the figure names of a scale, one a line
figures() {
	for f in "$1"/*.json; do
		jq -r --arg self "$(basename "$f" .json)" '.plots // [] | .[]? | .figure // $self' "$f" 2>/dev/null
	done
}
# check_dir DIR: the configs of one scale
check_dir() {
	for f in "$1"/*.json; do
		p=$(problems "$f")
		if [ -z "$p" ]; then ok "$f"; else notok "$f: $(echo "$p" | tr '\n' ';')"; fi
	done
	d=$(figures "$1" | sort | uniq -d | tr '\n' ' ')
	if [ -z "$d" ]; then ok "$1: figure names are unique"; else notok "$1: figures drawn twice: $d"; fi
}

for scale in configs/quick configs/paper configs/check; do
	check_dir "$scale"
	used=$(for f in "$scale"/*.json; do jq -r '.plots // [] | .[].script' "$f"; done | sort -u)
	for gp in plots/*.gp; do
		grep -q "^load \"$gp\"" plots/*.gp && continue # common.gp, ...: loaded by the others
		# Figures of tool commands (netmem corm-sim), which no config can run: their own
		# command-line test draws them.
		grep -q '^# drawn from: netmem [a-z-]*$' "$gp" && continue
		s=$(basename "$gp" .gp)
		if echo "$used" | grep -qx "$s"; then ok "$scale: some config draws $gp"; else notok "$scale: no config draws $gp"; fi
	done
done

# The check scale (make check's run_all.sh run) mirrors the quick one: the
# same configs, each of the same experiment and class, drawing the same figures.
for cfg in configs/quick/*.json; do
	n=$(basename "$cfg" .json)
	kind='[.experiment, (.numa // false), (.odp // false), ([.plots // [] | .[] | .figure // $self] | sort)]'
	q=$(jq -c --arg self "$n" "$kind" "$cfg")
	c=$(jq -c --arg self "$n" "$kind" "configs/check/$n.json" 2>/dev/null)
	if [ "$q" = "$c" ]; then ok "configs/check/$n.json: as quick's (experiment, class, figures)"; else
		notok "configs/check/$n.json: ${c:-missing} where configs/quick has $q"
	fi
done
extra=$(for cfg in configs/check/*.json; do [ -e "configs/quick/${cfg##*/}" ] || echo "${cfg##*/}"; done)
if [ -z "$extra" ]; then ok "configs/check has no config that quick lacks"; else notok "configs/check only: $extra"; fi

# The checks must catch broken configs.
bad() { # bad "what" JSON: a config holding JSON must have a problem
	mkdir -p "$tmp/c"; rm -f "$tmp/c"/*.json
	echo '{"experiment": "ops", "params": {}}' >"$tmp/c/other.json"
	printf '%s' "$2" >"$tmp/c/x.json"
	if [ -n "$(problems "$tmp/c/x.json")" ]; then ok "caught: $1"; else notok "not caught: $1"; fi
}
bad "a missing plot script" '{"experiment": "ops", "plots": [{"script": "no_such_plot"}], "params": {}}'
bad "an input naming no config" '{"experiment": "ops", "plots": [{"script": "numa_vc", "inputs": {"base": "nope"}}], "params": {}}'
bad "an input pattern matching no config" '{"experiment": "ops", "plots": [{"script": "numa_fig4_mtu", "inputs": {"in": ["x", "nope-*"]}}], "params": {}}'
bad "a plot without a script" '{"experiment": "ops", "plots": [{"figure": "x"}], "params": {}}'
bad "\"plots\" not a list" '{"experiment": "ops", "plots": {"script": "ops_latency"}, "params": {}}'
bad "\"numa\" not a boolean" '{"experiment": "ops", "numa": "yes", "params": {}}'
bad "\"odp\" not a boolean" '{"experiment": "ops", "odp": 1, "params": {}}'
bad "an unknown top-level key" '{"experiment": "ops", "parms": {}}'
bad "an unknown plot key" '{"experiment": "ops", "plots": [{"script": "ops_latency", "out": "x"}], "params": {}}'
bad "malformed JSON" '{"experiment": "ops",}'
bad "an unknown experiment" '{"experiment": "opz", "params": {}}'
bad "a tool, not an experiment" '{"experiment": "ycsb", "params": {}}'
bad "\"ranks\" not a positive integer" '{"experiment": "ops", "ranks": 0, "params": {}}'
bad "\"ranks\" a list with a count twice" '{"experiment": "ops", "ranks": [2, 3, 2], "params": {}}'
bad "\"ranks\" a list with a zero" '{"experiment": "ops", "ranks": [0, 2], "params": {}}'
bad "\"ranks\" an empty list" '{"experiment": "ops", "ranks": [], "params": {}}'
bad "an input that is no gnuplot name" '{"experiment": "ops", "plots": [{"script": "numa_vc", "inputs": {"1x": "other"}}], "params": {}}'
bad "an invalid figure name" '{"experiment": "ops", "plots": [{"script": "ops_latency", "figure": "a b"}], "params": {}}'
ok_cfg='{"experiment": "ops", "numa": true, "plots": [{"script": "numa_fig4_mtu", "figure": "f", "inputs": {"in": ["x", "oth*"], "base": "other"}}], "params": {}}'
printf '%s' "$ok_cfg" >"$tmp/c/x.json"
if [ -z "$(problems "$tmp/c/x.json")" ]; then ok "a good config passes"; else notok "a good config fails: $(problems "$tmp/c/x.json")"; fi
printf '%s' '{"experiment": "ops", "ranks": [2, 3], "params": {}}' >"$tmp/c/x.json"
if [ -z "$(problems "$tmp/c/x.json")" ]; then ok "a list of rank counts passes"; else notok "a list of rank counts fails: $(problems "$tmp/c/x.json")"; fi
printf '%s' '{"experiment": "ops", "plots": [{"script": "ops_latency", "figure": "other"}, {"script": "ops_latency"}], "params": {}}' >"$tmp/c/x.json"
echo '{"experiment": "ops", "plots": [{"script": "ops_latency"}], "params": {}}' >"$tmp/c/other.json"
if [ -n "$(figures "$tmp/c" | sort | uniq -d)" ]; then ok "caught: two configs drawing one figure"; else notok "not caught: two configs drawing one figure"; fi
t_summary
