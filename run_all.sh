#!/bin/bash
# Regenerates the suite's figures.
#
#   ./run_all.sh                         quick scale on Soft-RoCE (host rxe, else a VM)
#   ./run_all.sh --hostfile HOSTS        paper scale on a cluster, one rank per host
#
# Options: --scale quick|paper|check (default: quick without a hostfile, paper
#          with; check: the smallest run that draws every figure, for make check),
#          --np N (ranks for configs without a "ranks" key; default 2),
#          --out DIR (default: results/<scale>-<UTC stamp>, linked as results/latest),
#          --new (a fresh run directory even when the last one was interrupted),
#          --only NAME[,NAME...] (these configs only, e.g. ops-lat or numa-fig4,numa-vc),
#          --mpirun-args "..." (extra mpirun flags, split at blanks, e.g. "-x NETMEM_DEV" or
#            "--mca btl self,tcp"),
#          --class CLASS[,CLASS...] (these kinds of jobs only: plain, numa, odp and
#            cluster configs, sim for the documents computed on the host:
#            CoRM's simulator, Clover's path state; default all; cluster:
#            configs with "hosts", two guests without a hostfile, three when
#            a config needs a third host to forward between the others),
#          --here (run the configs where this runs, which has verbs already, e.g.
#            inside tests/vm/softroce-run, not through softroce-run; no build),
#          --no-report (run the jobs only: no figures, no report, the run stays
#            unfinished; a later run_all.sh into the same --out finishes it),
#          --preflight / --no-preflight (before each lane's jobs, one `netmem
#            preflight` job on the same hosts: a config that cannot fit them is
#            skipped with the reason, in the log and the report, instead of
#            failing when it starts; default on at paper scale, off otherwise).
# Builds first (make), so an edited tree never runs a stale binary. An
# interrupted run resumes: rerunning continues in results/latest (when of the
# same scale and unfinished) where it stopped. Shows progress over configs and
# points, runs CoRM's simulator and Clover's state table (no NIC), draws
# every figure as PNG and SVG, and ends with the run's report (index.html,
# report.md: netmem report).
set -u
cd "$(dirname "$0")" || exit 1

# q WORD...: the words quoted for bash (printf %q), blank-separated: how a
# path or value enters a generated script or a message, whatever it holds
# (a quote, a blank, a newline, a $(...))
q() { [ $# = 0 ] || { local s; s=$(printf '%q ' "$@"); printf '%s' "${s% }"; }; }
# value OPTION ARGS...: the option has its value, else one line and exit 2
value() { [ $# -ge 2 ] || { echo "run_all.sh: $1 needs a value (see ./run_all.sh --help)" >&2; exit 2; }; }

hostfile="" scale="" np=2 out="" only="" extra="" new=0 classes="plain,numa,odp,cluster,sim" here=0 report=1 preflight=""
while [ $# -gt 0 ]; do
	case "$1" in
	--hostfile) value "$@"; hostfile=$2; shift 2 ;;
	--scale) value "$@"; scale=$2; shift 2 ;;
	--np) value "$@"; np=$2; shift 2 ;;
	--out) value "$@"; out=$2; shift 2 ;;
	--only) value "$@"; only=$2; shift 2 ;;
	--new) new=1; shift ;;
	--mpirun-args) value "$@"; extra=$2; shift 2 ;;
	--class) value "$@"; classes=$2; shift 2 ;;
	--here) here=1; shift ;;
	--no-report) report=0; shift ;;
	--preflight) preflight=1; shift ;;
	--no-preflight) preflight=0; shift ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run_all.sh: unknown option $(q "$1") (see ./run_all.sh --help)" >&2; exit 2 ;;
	esac
done
[ -n "$scale" ] || { [ -n "$hostfile" ] && scale=paper || scale=quick; }
# --np goes on every mpirun line: a number, never a word of shell
[[ $np =~ ^[1-9][0-9]{0,5}$ ]] ||
	{ echo "run_all.sh: --np takes a positive integer (the ranks of a config without \"ranks\"), not $(q "$np")" >&2; exit 2; }
case "$scale" in quick|paper|check) ;; *) echo "run_all.sh: --scale must be quick, paper or check" >&2; exit 2 ;; esac
# A paper-scale run takes hours on a reservation: find a config that cannot
# fit before it starts, not when it does.
[ -n "$preflight" ] || { [ "$scale" = paper ] && preflight=1 || preflight=0; }
for c in ${classes//,/ }; do
	case "$c" in plain|numa|odp|cluster|sim) ;; *) echo "run_all.sh: --class takes plain, numa, odp, cluster or sim, not $(q "$c")" >&2; exit 2 ;; esac
done
# has_class CLASS: the run includes this kind of job
has_class() { case ",$classes," in *",$1,"*) true ;; *) false ;; esac; }
[ "$here" = 0 ] || [ -z "$hostfile" ] || { echo "run_all.sh: --here and --hostfile exclude each other" >&2; exit 2; }
[ -z "$hostfile" ] || [ -r "$hostfile" ] || { echo "run_all.sh: cannot read hostfile $(q "$hostfile")" >&2; exit 2; }
# The CoRM simulator's documents: tool commands, run on this host (no NIC,
# no config: `netmem run` runs measured jobs only). NAME SCRIPT ARGS.
declare -A tool_args
tool_args[corm-fig7]="--mode prob --mc 20000"
if [ "$scale" = paper ]; then
	tool_args[corm-fig17]="--mode synthetic -b 1M -n 8000000 --sizes 256,2048,4096,16384 --free 0.5,0.75,0.9"
else
	tool_args[corm-fig17]="--mode synthetic -n 100000 --sizes 64,256,1024,2000"
fi
# Figs. 18-19: the three Redis traces (synthesized from the paper's
# description, Sec. 4.4.3) in full, 1 to 32 allocator threads (about 20 s
# each on the host); the check scale replays 5% of their keys at 1 and 32.
if [ "$scale" != check ]; then
	tool_args[corm-fig18]="--mode sweep --redis t1,t2,t3 -b 1M --thread-counts 1,2,4,8,16,32"
	tool_args[corm-fig19]="--mode sweep --redis t1,t2,t3 -b 1M --thread-counts 1,2,4,8,16,32 --hybrid"
else
	tool_args[corm-fig18]="--mode sweep --redis t1,t2,t3 -b 1M --thread-counts 1,32 --redis-scale 0.05"
	tool_args[corm-fig19]="--mode sweep --redis t1,t2,t3 -b 1M --thread-counts 1,32 --redis-scale 0.05 --hybrid"
fi
# Grant and Snoeren Fig. 3: the packet path's state per tracked-key count,
# computed from the rewrite module's tables (no NIC), at the paper's 10K and
# 100K keys too (Sec. 3.1).
declare -A tool_cmd
tool_cmd[clover-fig3]=clover-path
tool_args[clover-fig3]="--state-table 8..1M,10000,100000 --conns 64"
tools=""
for name in corm-fig7 corm-fig17 corm-fig18 corm-fig19 clover-fig3; do
	has_class sim || break
	[ -z "$only" ] || case ",$only," in *",$name,"*) ;; *) continue ;; esac
	tools="$tools $name"
done

for name in ${only//,/ }; do
	[ -n "${tool_args[$name]:-}" ] || [ -r "configs/$scale/$name.json" ] ||
		{ echo "run_all.sh: no config $(q "$name") in configs/$scale" >&2; exit 2; }
done

# What run_all.sh reads from a config (configs/README.md):
# "ranks" (else --np; a list: one job per count, each into NAME.nR.json, e.g.
# a node sweep), params.ranks_per_node (placement on a cluster), "hosts"
# (the ranks of each host, in rank order: a cluster config, on two guests
# without a hostfile), "numa" (needs two NUMA nodes), "odp" (needs
# on-demand paging: on Soft-RoCE a VM with a newer kernel) and "plots" (its
# figures).
declare -A ranks rpn npoints swept placed
jobs="" plain="" numa="" odp="" cluster=""
# One jq over every config (a jq start costs about a second in an emulated
# guest): NAME RANKS RANKS_PER_NODE HOSTS NUMA ODP POINTS, where RANKS is a
# number or a list ([2,3]), HOSTS the "hosts" list joined by commas and
# POINTS is the product of its sweep axes times its repetitions, per job
# (for the progress line).
info=$(jq -r '[(input_filename | sub(".*/"; "") | sub("\\.json$"; "")), .ranks // "-", .params.ranks_per_node // "-",
	(.hosts // "-" | if type == "array" then map(tostring) | join(",") else . end), .numa // false, .odp // false,
	(((.params.reps // 1) | if type == "number" then . else 1 end) as $r | [.params[] | arrays | length] | reduce .[] as $n ($r; . * $n))]
	| map(tostring) | join(" ")' configs/"$scale"/*.json) ||
	{ echo "run_all.sh: cannot read configs/$scale (see jq's message above)" >&2; exit 2; }
total_points=0 total_configs=0
while read -r name r p hl n o pts; do
	[ -z "$only" ] || case ",$only," in *",$name,"*) ;; *) continue ;; esac
	if [ "$hl" != - ]; then class=cluster; elif [ "$n" = true ]; then class=numa; elif [ "$o" = true ]; then class=odp; else class=plain; fi
	has_class "$class" || continue
	ranks[$name]=$([ "$r" = - ] && echo "$np" || echo "$r" | tr -d '[]' | tr , ' ')
	placed[$name]=$hl
	[ "$hl" = - ] || ranks[$name]=$(($(tr , + <<<"$hl")))
	case $r in "["*) swept[$name]=1 ;; *) swept[$name]=0 ;; esac
	rpn[$name]=$p
	npoints[$name]=$pts
	read -ra counts <<<"${ranks[$name]}"
	total_points=$((total_points + pts * ${#counts[@]})); total_configs=$((total_configs + 1))
	jobs="$jobs $name"
	case $class in numa) numa="$numa $name" ;; odp) odp="$odp $name" ;; cluster) cluster="$cluster $name" ;;
	*) plain="$plain $name" ;; esac
done <<<"$info"
[ -n "$jobs$tools" ] || { echo "run_all.sh: no config matches" >&2; exit 2; }

# On a cluster, a config with params.ranks_per_node P puts P ranks on each of
# ranks/P hosts: say so before anything starts, rather than leave it to
# mpirun's message about slots (or to a job that groups ranks wrongly).
check_hostfile() {
	local name p r need hosts h slots
	hosts=$(awk '{ sub(/#.*/, "") } NF { s = "-"; for (i = 2; i <= NF; i++) if ($i ~ /^slots=/) s = substr($i, 7); print $1, s }' "$hostfile")
	[ -n "$hosts" ] || { echo "run_all.sh: hostfile '$hostfile' names no host" >&2; exit 2; }
	for name in $jobs; do
		p=${rpn[$name]}; r=$(tr ' ' '\n' <<<"${ranks[$name]}" | sort -n | tail -1)
		need=$(tr , '\n' <<<"${placed[$name]}" | grep -c .)
		[ "${placed[$name]}" = - ] || [ "$(wc -l <<<"$hosts")" -ge "$need" ] || {
			echo "run_all.sh: configs/$scale/$name.json places its ranks on $need hosts (\"hosts\": [${placed[$name]}]) but '$hostfile' lists $(wc -l <<<"$hosts"): add hosts to it, or leave this config out (--only)" >&2
			exit 2
		}
		# one rank a host: more ranks than hosts share hosts (mpirun maps by
		# node round the list), which the document records; say so first
		if [ "$p" = - ]; then
			[ "${placed[$name]}" != - ] || [ "$(wc -l <<<"$hosts")" -ge "$r" ] ||
				echo "run_all.sh: warning: configs/$scale/$name.json runs $r ranks, one a host, but '$hostfile' lists $(wc -l <<<"$hosts"): ranks will share hosts (each document's meta.runs[].hosts says which), so its nodes are not hosts; add hosts, or leave it out (--only)" >&2
			continue
		fi
		while read -r h slots; do
			[ "$slots" = - ] || [ "$slots" -ge "$p" ] || {
				echo "run_all.sh: configs/$scale/$name.json places $p ranks per node (params.ranks_per_node) but '$hostfile' gives $h $slots slot(s): write '$h slots=$p' (or more) for every host" >&2
				exit 2
			}
		done <<<"$hosts"
		need=$(((r + p - 1) / p))
		[ "$(wc -l <<<"$hosts")" -ge "$need" ] || {
			echo "run_all.sh: configs/$scale/$name.json needs $need hosts ($r ranks, $p per node) but '$hostfile' lists $(wc -l <<<"$hosts"): add hosts to it, or leave this config out (--only)" >&2
			exit 2
		}
	done
}
[ -z "$hostfile" ] || check_hostfile
# One line per figure of the scale: SCRIPT FIGURE VAR=NAME[,NAME...]... ("figure"
# defaults to the config's name, "in" to its own document).
figs=$(jq -r '(input_filename | sub(".*/"; "") | sub("\\.json$"; "")) as $self | (.plots // [])[] |
	[.script, .figure // $self, ({in: $self} + (.inputs // {}) | to_entries[] |
	 "\(.key)=\(.value | if type == "array" then join(",") else . end)")] | join(" ")' configs/"$scale"/*.json) ||
	{ echo "run_all.sh: cannot read the plots of configs/$scale (see jq's message above)" >&2; exit 2; }

# The run directory: results/<scale>-<UTC stamp>, linked as results/latest;
# an unfinished run of the same scale there is continued (its documents
# resume), unless --new. A run is finished once its report is written.
if [ -z "$out" ]; then
	last=$(readlink results/latest 2>/dev/null)
	if [ "$new" = 0 ] && [ -n "$last" ] && [ -d "results/$last" ] && [ ! -e "results/$last/.finished" ] &&
		case $last in "$scale"-*) true ;; *) false ;; esac; then
		out=results/$last
		echo "run_all.sh: resuming the interrupted run $out (--new starts another)" >&2
	else
		out=results/$scale-$(date -u +%Y%m%dT%H%M%SZ)
		mkdir -p "$out" && ln -sfn "${out#results/}" results/latest
	fi
fi
# --here runs inside the environment that has verbs (a VM over the host's
# file system, say): the caller built the tree, and a build there would
# compete with it for the binary.
[ "$here" = 1 ] || make -j"$(nproc)" >/dev/null ||
	{ echo "run_all.sh: build failed (see make's messages above)" >&2; exit 1; }
mkdir -p "$out"

mpi=(mpirun --bind-to none)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
# --mpirun-args: words split at blanks, each passed to mpirun as it is
read -ra extra_args <<<"$extra"
# script FILE NAMES...: the mpirun lines for these configs, each followed by
# the progress line (configs and points done over the whole run, time left
# at the rate so far; the counts are carried from one script to the next in
# $out/.progress). On a cluster,
# configs with params.ranks_per_node (nodes are groups of consecutive ranks)
# get that many ranks per host, the others one.
script() {
	f=$1; lane=$2; shift 2
	{
		echo "set -u; status=0; start=\$SECONDS"
		# the cluster lane's hosts: the hostfile, else the cluster of guests it runs in
		[ "$lane" != cluster ] || echo "hf=$(q "$hostfile"); [ -n \"\$hf\" ] || hf=\${NETMEM_HOSTFILE:-}"
		[ "$lane" != cluster ] || placed_lines
		[ "$preflight" = 0 ] || [ $# = 0 ] || preflight_lines "$lane" "$@"
		echo "read -r cdone pdone elapsed 2>/dev/null < $(q "$out/.progress") || { cdone=0; pdone=0; elapsed=0; }"
		echo "progress() { cdone=\$((cdone + \${2:-1})); pdone=\$((pdone + \$1)); now=\$((elapsed + SECONDS - start))"
		echo "  left=\$(( pdone > 0 ? now * ($total_points - pdone) / pdone : 0 ))"
		echo "  echo \"run_all.sh: \$cdone/$total_configs configs, \$pdone/$total_points points done, about \$((left / 60)) min \$((left % 60)) s left\" >&2"
		echo "  echo \"\$cdone \$pdone \$now\" > $(q "$out/.progress"); }"
		for name in "$@"; do
			cfg=configs/$scale/$name.json
			read -ra counts <<<"${ranks[$name]}"
			# refused by preflight: its reason instead of a job that would fail
			[ "$preflight" = 0 ] || echo "if refused $(q "$cfg"); then progress $((${npoints[$name]} * ${#counts[@]})); else"
			for r in "${counts[@]}"; do
				doc=$name
				[ "${swept[$name]}" = 0 ] || doc=$name.n$r
				run=(-np "$r" "${extra_args[@]}" bin/netmem run "$cfg" --output "$out/$doc.json" --resume)
				if [ "${placed[$name]}" != - ]; then
					echo "placed $(q "$name" "${placed[$name]}") && $(q "${mpi[@]}" --hostfile "$out/.hosts-$name" --map-by slot "${run[@]}") || status=1"
				elif [ -n "$hostfile" ]; then
					map=(--map-by node)
					[ "${rpn[$name]}" = - ] || map=(--map-by "ppr:${rpn[$name]}:node")
					echo "$(q "${mpi[@]}" --hostfile "$hostfile" "${map[@]}" "${run[@]}") || status=1"
				else
					echo "$(q "${mpi[@]}" --oversubscribe "${run[@]}") || status=1"
				fi
				# a config is done with its last count's job
				echo "progress ${npoints[$name]} $([ "$r" = "${counts[-1]}" ] && echo 1 || echo 0)"
			done
			[ "$preflight" = 0 ] || echo "fi"
		done
		echo 'exit $status'
	} >"$f"
}
# placed_lines: `placed NAME COUNTS`, which writes $out/.hosts-NAME from the
# lane's hostfile ($hf): its first hosts in order, each with the slots of
# its count in the config's "hosts", so that mpirun's by-slot mapping puts
# each rank where the config says (Clover's memory node alone on its host).
placed_lines() {
	echo "placed() { [ -n \"\$hf\" ] || { echo \"run_all.sh: \$1 places its ranks on hosts (\\\"hosts\\\": [\$2]): give --hostfile, or run it in the cluster of guests (tests/vm/netmem-cluster)\" >&2; return 1; }"
	echo "  awk -v c=\"\$2\" 'BEGIN { n = split(c, k, \",\") } { sub(/#.*/, \"\") } NF && i < n { print \$1, \"slots=\" k[++i] } END { exit i < n }' \"\$hf\" >$(q "$out/.hosts-")\"\$1\" ||"
	echo "  { echo \"run_all.sh: \$1 places its ranks on \$(echo \"\$2\" | tr , '\\n' | grep -c .) hosts but \$hf lists fewer\" >&2; return 1; }; }"
}
# preflight_lines LANE NAMES...: one `netmem preflight` job over the lane's
# configs, on the hosts its jobs will use (one rank per host on a cluster),
# into $out/preflight-LANE.json (the report lists what it refused), and
# `refused CFG`, true for a config it found cannot fit (printing why). A
# preflight that could not run at all refuses nothing: the jobs then fail
# as they would have.
preflight_lines() {
	local lane=$1 name pf="$out/preflight-$1.json" launch cfgs=()
	shift
	for name in "$@"; do cfgs+=("configs/$scale/$name.json"); done
	if [ "$lane" = cluster ]; then
		launch="$(q "${mpi[@]}") --hostfile \"\$hf\" --map-by node -np \$(awk '{ sub(/#.*/, \"\") } NF' \"\$hf\" | wc -l)"
	elif [ -n "$hostfile" ]; then
		launch=$(q "${mpi[@]}" --hostfile "$hostfile" --map-by node -np "$(($(awk '{ sub(/#.*/, "") } NF' "$hostfile" | wc -l)))")
	else
		launch=$(q "${mpi[@]}" --oversubscribe -np 2)
	fi
	echo "rm -f $(q "$pf")"
	echo "$launch $(q "${extra_args[@]}" bin/netmem preflight --np "$np" --results "$out" --json "$pf" "${cfgs[@]}") | tee $(q "$out/preflight-$lane.txt") >&2"
	echo "refused() { why=\$(jq -r --arg c \"\$1\" '.configs[] | select(.config == \$c and .verdict == \"does_not_fit\") | .reason' $(q "$pf") 2>/dev/null)"
	echo "  [ -n \"\$why\" ] || return 1; echo \"run_all.sh: skipping \$1 (preflight: \$why)\" >&2; }"
}
s1=$(mktemp); s2=$(mktemp); s3=$(mktemp); s4=$(mktemp); trap 'rm -f "$s1" "$s2" "$s3" "$s4"' EXIT
# shellcheck disable=SC2086
script "$s1" plain $plain
# shellcheck disable=SC2086
script "$s2" numa $numa
# shellcheck disable=SC2086
script "$s3" odp $odp
# shellcheck disable=SC2086
script "$s4" cluster $cluster

status=0
rm -f "$out/.progress"
for name in $tools; do
	# shellcheck disable=SC2086
	bin/netmem "${tool_cmd[$name]:-corm-sim}" ${tool_args[$name]} -o "$out/$name.json" >"$out/$name.log" 2>&1 &&
		echo "run_all.sh: $out/$name.json (${tool_cmd[$name]:-corm-sim} on this host, no NIC)" >&2 ||
		{ echo "run_all.sh: netmem ${tool_cmd[$name]:-corm-sim} for $name failed (see $out/$name.log)" >&2; status=1; }
done
if [ -z "$jobs" ]; then
	:
elif [ -n "$hostfile" ] || [ "$here" = 1 ]; then
	[ "$here" = 0 ] || echo "run_all.sh: running the $scale configs here (${NETMEM_SOFTROCE:+Soft-RoCE: }${NETMEM_SOFTROCE:-verbs as found})" >&2
	[ -z "$plain" ] || bash "$s1" || status=1
	[ -z "$numa" ] || bash "$s2" || status=1
	[ -z "$odp" ] || bash "$s3" || status=1
	[ -z "$cluster" ] || bash "$s4" || status=1
else
	echo "run_all.sh: no hostfile: running the $scale configs on Soft-RoCE (emulated; timings are not hardware numbers)" >&2
	# measured from a fresh clone, the build included (README.md)
	[ "$scale" != quick ] || [ -n "$only" ] || [ "$classes" != plain,numa,odp,cluster,sim ] ||
		echo "run_all.sh: the whole quick scale takes about 14 minutes on a 2-core machine" >&2
	# softroce-run's default limit (20 min) is for tests: the whole quick scale
	# under emulation on a small, busy host takes longer, and a lane cut short
	# loses its remaining configs (they resume on the next run).
	vmt=${NETMEM_VM_TIMEOUT:-7200}
	[ -z "$plain" ] || tests/vm/softroce-run --timeout "$vmt" -- bash "$s1" || status=1
	# NUMA placement needs two nodes: an emulated two-node guest when the host has one node
	[ -z "$numa" ] || tests/vm/softroce-run --timeout "$vmt" --numa -- bash "$s2" || status=1
	# ODP (CoRM's remap): Debian 12's rxe has none, a newer Debian kernel's has
	# (fetched into the VM cache on first use; tests/vm/README.md)
	[ -z "$odp" ] || tests/vm/softroce-run --timeout "$vmt" --kernel trixie-backports -- bash "$s3" || status=1
	# "hosts": two guests joined by a link, each its own Soft-RoCE host; a
	# config on three hosts (Clover's paper scale: the third forwards between
	# the others) gets the third guest between them, last in the hostfile
	fwdr=""
	for name in $cluster; do
		[ "$(tr , '\n' <<<"${placed[$name]}" | grep -c .)" -lt 3 ] || fwdr=--forwarder
	done
	[ -z "$cluster" ] || tests/vm/netmem-cluster $fwdr --timeout "$vmt" -- bash "$s4" || status=1
fi

# --no-report: the jobs were one part of a run split over environments (make
# check runs each class in the VM it boots anyway); the last part draws.
[ "$report" = 1 ] || exit $status

# Draw every figure whose "in" has a document in the run directory, as PNG and
# as SVG (plots/term.gp picks the terminal from the name); with --only, those
# that read a document of the configs named.
figs="$figs
corm_fig7 corm-fig7 in=corm-fig7
corm_fig17 corm-fig17 in=corm-fig17
corm_fig18 corm-fig18 in=corm-fig18
corm_fig19 corm-fig19 in=corm-fig19
clover_fig3 clover-fig3 in=clover-fig3"
# A variable names the documents that exist (NAME.json, or a rank sweep's
# NAME.nR.json; NAME may end in *), space-separated; one with none is left unset.
# gnuplot reads them, and the plot scripts hand them to a shell, through a
# link of a plain name to the run directory, whatever characters its path has.
plotdir=$(mktemp -d); trap 'rm -f "$s1" "$s2" "$s3" "$s4"; rm -rf "$plotdir"' EXIT
ln -s "$(cd "$out" && pwd)" "$plotdir/run"
while read -r gp fig vars; do
	[ -n "$gp" ] || continue
	ran=0 sets="" has_in=0
	for v in $vars; do
		docs=""
		IFS=, read -ra names <<<"${v#*=}"
		for n in "${names[@]}"; do
			for j in $jobs $tools; do
				# shellcheck disable=SC2053
				[[ $j == $n ]] && ran=1
			done
			sweep="$plotdir/run/$n.n[0-9]*.json"
			[[ $n != *'*' ]] || sweep=""
			for f in "$plotdir/run"/$n.json $sweep; do
				[ -s "$f" ] && docs="$docs${docs:+ }$f"
			done
		done
		[ -n "$docs" ] || continue
		sets="$sets${v%%=*}='$docs'; "
		[ "${v%%=*}" = in ] && has_in=1
	done
	[ "$ran" = 1 ] || [ -z "$only" ] || continue
	[ "$has_in" = 1 ] || continue
	for ext in png svg; do
		gnuplot -e "${sets}out='$plotdir/run/$fig.$ext'" "plots/$gp.gp" 2>"$out/$fig.gnuplot.log" && [ -s "$out/$fig.$ext" ] &&
			echo "run_all.sh: figure $out/$fig.$ext" ||
			{ echo "run_all.sh: plotting $fig.$ext failed (see $out/$fig.gnuplot.log)" >&2; status=1; }
	done
done <<<"$figs"

bin/netmem report "$out" >"$out/report.log" 2>&1 &&
	echo "run_all.sh: report $out/index.html ($out/report.md)" >&2 ||
	{ echo "run_all.sh: netmem report failed (see $out/report.log)" >&2; status=1; }
touch "$out/.finished"
exit $status
