#!/bin/bash
# Regenerates the suite's figures.
#
#   ./run_all.sh                         quick scale on Soft-RoCE (host rxe, else a VM)
#   ./run_all.sh --hostfile HOSTS        paper scale on a cluster, one rank per host
#
# Options: --scale quick|paper (default: quick without a hostfile, paper with),
#          --np N (ranks for configs without a "ranks" key; default 2), --out DIR (default results/<scale>),
#          --only NAME (one config, e.g. ops-lat), --mpirun-args "..." (extra
#          mpirun flags, e.g. "-x NETMEM_DEV" or "--mca btl self,tcp").
# Every config resumes: rerunning continues where an interrupted run stopped.
set -u
cd "$(dirname "$0")" || exit 1

hostfile="" scale="" np=2 out="" only="" extra=""
while [ $# -gt 0 ]; do
	case "$1" in
	--hostfile) hostfile=$2; shift 2 ;;
	--scale) scale=$2; shift 2 ;;
	--np) np=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--mpirun-args) extra=$2; shift 2 ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run_all.sh: unknown option '$1' (see ./run_all.sh --help)" >&2; exit 2 ;;
	esac
done
[ -n "$scale" ] || { [ -n "$hostfile" ] && scale=paper || scale=quick; }
case "$scale" in quick|paper) ;; *) echo "run_all.sh: --scale must be quick or paper" >&2; exit 2 ;; esac
[ -z "$hostfile" ] || [ -r "$hostfile" ] || { echo "run_all.sh: cannot read hostfile '$hostfile'" >&2; exit 2; }
out=${out:-results/$scale}
mkdir -p "$out"
[ -x bin/netmem ] || make -j"$(nproc)" >/dev/null || { echo "run_all.sh: build failed (run make)" >&2; exit 1; }

# config name -> plot script
declare -A plot=([ops-lat]=ops_latency [ops-atomic-lat]=ops_atomic_latency [ops-bw]=ops_throughput
	[barrier]=barrier [loco-fig4a]=loco_fig4a [alock-fig1]=alock_fig1 [alock-fig4]=alock_fig4
	[alock-fig5]=alock_fig5 [alock-fig6]=alock_fig6 [loco-fig4b]=loco_fig4b [txn-locks]=loco_fig4b)

# Ranks for a config: its top-level "ranks" if it has one, else --np.
ranks_for() {
	r=$(sed -n 's/.*"ranks"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$1" | head -1)
	echo "${r:-$np}"
}

# Placement on a cluster: configs naming "ranks_per_node" (nodes are groups of
# consecutive ranks) get that many ranks per host, the others one.
map_for() {
	p=$(sed -n 's/.*"ranks_per_node"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$1" | head -1)
	if [ -n "$p" ]; then echo "--map-by ppr:$p:node"; else echo "--map-by node"; fi
}

jobs=""
for cfg in configs/"$scale"/*.json; do
	name=$(basename "$cfg" .json)
	[ -z "$only" ] || [ "$only" = "$name" ] || continue
	jobs="$jobs $name"
done
[ -n "$jobs" ] || { echo "run_all.sh: no config matches" >&2; exit 2; }

mpi="mpirun --bind-to none"
[ "$(id -u)" = 0 ] && mpi="$mpi --allow-run-as-root"
# script FILE NAMES...: the mpirun lines for these configs
script() {
	f=$1; shift
	{
		echo "set -u; status=0"
		for name in "$@"; do
			cfg=configs/$scale/$name.json
			if [ -n "$hostfile" ]; then
				echo "$mpi --hostfile '$hostfile' $(map_for "$cfg") -np $(ranks_for "$cfg") $extra bin/netmem run $cfg --output '$out/$name.json' --resume || status=1"
			else
				echo "$mpi --oversubscribe -np $(ranks_for "$cfg") $extra bin/netmem run $cfg --output '$out/$name.json' --resume || status=1"
			fi
		done
		echo 'exit $status'
	} >"$f"
}
plain="" numa=""
for name in $jobs; do
	case "$name" in numa-*) numa="$numa $name" ;; *) plain="$plain $name" ;; esac
done
s1=$(mktemp); s2=$(mktemp); trap 'rm -f "$s1" "$s2"' EXIT
# shellcheck disable=SC2086
script "$s1" $plain
# shellcheck disable=SC2086
script "$s2" $numa

status=0
if [ -n "$hostfile" ]; then
	bash "$s1" || status=1
	[ -z "$numa" ] || bash "$s2" || status=1
else
	echo "run_all.sh: no hostfile: running the $scale configs on Soft-RoCE (emulated; timings are not hardware numbers)" >&2
	[ -z "$plain" ] || tests/vm/softroce-run -- bash "$s1" || status=1
	# NUMA placement needs two nodes: an emulated two-node guest when the host has one node
	[ -z "$numa" ] || tests/vm/softroce-run --numa -- bash "$s2" || status=1
fi

# NUMA figures read several documents.
np_plot() { gnuplot -e "$3; out='$out/$2.png'" "plots/$1.gp" 2>"$out/$2.gnuplot.log" &&
	echo "run_all.sh: figure $out/$2.png" || { echo "run_all.sh: plotting $2 failed (see $out/$2.gnuplot.log)" >&2; status=1; }; }
[ -s "$out/numa-fig3.json" ] && { np_plot numa_fig3a numa-fig3a "in='$out/numa-fig3.json'"; np_plot numa_fig3b numa-fig3b "in='$out/numa-fig3.json'"; }
[ -s "$out/numa-fig4.json" ] && np_plot numa_fig4 numa-fig4 "in='$out/numa-fig4.json'"
m=$(ls "$out"/numa-fig4.json "$out"/numa-fig4-mtu*.json 2>/dev/null | tr '\n' ' ')
[ -n "$m" ] && np_plot numa_fig4_mtu numa-fig4-mtu "in='$m'"
[ -s "$out/numa-fig5.json" ] && np_plot numa_fig5 numa-fig5 "in='$out/numa-fig5.json'"
[ -s "$out/numa-vc.json" ] && np_plot numa_vc numa-vc "in='$out/numa-vc.json'; base='$out/numa-fig4.json'"
[ -s "$out/numa-fig6.json" ] && np_plot numa_fig6 numa-fig6 "in='$out/numa-fig6.json'$( [ -s "$out/numa-fig6-load.json" ] && echo "; load='$out/numa-fig6-load.json'")"

for name in $jobs; do
	gp=${plot[$name]:-}
	if [ -n "$gp" ] && [ -s "$out/$name.json" ]; then
		gnuplot -e "in='$out/$name.json'; out='$out/$name.png'" "plots/$gp.gp" 2>"$out/$name.gnuplot.log" &&
			echo "run_all.sh: figure $out/$name.png" || { echo "run_all.sh: plotting $name failed (see $out/$name.gnuplot.log)" >&2; status=1; }
	fi
done
exit $status
