#!/bin/sh
# The kv folder's files call one another in one direction only (host, no
# RDMA): the entry (the subcommands) uses the stores, the stores the window
# engine, the engine the shared core, and never back. Built from the object
# files: `nm` says which kv object defines each symbol another kv object
# uses; a cycle among them, or an arrow up the layers, fails, named.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Top to bottom; an object may use its own layer and the ones below.
# A new kv file must be placed here (a check below fails until it is).
cat >"$tmp/layers" <<'EOF'
entry kv kv_check
stores kv_loco kv_loco_ops kv_loco_slots kv_sherman kv_scythe kv_scythe_srv kv_scythe_obj kv_redis kv_redis_memtier kv_redis_cluster
engine kv_window kv_inject kv_win_post kv_size
core kv_core kv_lin kv_history
EOF

# The objects of the folder's sources (not whatever build/ holds: a renamed
# file leaves its old object behind), and of every other source of netmem
# (the Makefile's folders).
kv_objs=$(for c in workloads/kv/*.c; do echo "build/${c%.c}.o"; done)
out_objs=$(for c in harness/*.c harness/*/*.c numa/*.c primitives/*.c primitives/*/*.c workloads/*/*.c; do
	case $c in workloads/kv/* | *'*'*) ;; *) echo "build/${c%.c}.o" ;; esac
done)
# shellcheck disable=SC2086
if ! make --no-print-directory -s $kv_objs $out_objs >"$tmp/make.log" 2>&1; then
	notok "netmem's objects build"; sed 's/^/# /' "$tmp/make.log"; t_summary; exit 1
fi
ok "netmem's objects build"

# One nm per list of objects (a process per object took minutes on a loaded
# host). An object's name is its file's without .o (build/workloads/kv/kv_core.o:
# kv_core), from nm -A's "FILE:ADDRESS TYPE SYMBOL" or "FILE: U SYMBOL".
# defs FILE OBJ...: "name symbol" per global symbol each object defines
defs() {
	f=$1; shift
	nm -A -g --defined-only "$@" | awk '{ n = $1; sub(/:.*/, "", n); sub(/.*\//, "", n); sub(/\.o$/, "", n)
		if (NF == 3) print n, $3 }' | sort -u >"$f"
}
# uses FILE OBJ...: "name symbol" per symbol each object uses and does not define
uses() {
	f=$1; shift
	nm -A -u "$@" | awk '{ n = $1; sub(/:.*/, "", n); sub(/.*\//, "", n); sub(/\.o$/, "", n); print n, $NF }' |
		sort -u >"$f"
}
# shellcheck disable=SC2086
defs "$tmp/defs" $kv_objs
# shellcheck disable=SC2086
uses "$tmp/uses" $kv_objs
# edges: "user definer symbol", one per kv symbol another kv object uses
awk 'NR == FNR { by[$2] = $1; next } ($2 in by) && by[$2] != $1 { print $1, by[$2], $2 }' \
	"$tmp/defs" "$tmp/uses" | sort >"$tmp/edges"

# cycle EDGES: the first of the cycles tsort finds, as "a -> b (sym) -> a (sym)"; empty when none
cycle() {
	awk '{ print $1, $2 }' "$1" | sort -u | tsort 2>&1 >/dev/null |
		awk '/input contains a loop/ { n++; next } n == 1 { sub(/^tsort: /, ""); print }' >"$tmp/loop"
	[ -s "$tmp/loop" ] || return 0
	# the loop's members in order, back to the first
	awk 'NR == FNR { s[$1 " " $2] = s[$1 " " $2] ? s[$1 " " $2] "," $3 : $3; next }
	     FNR == 1 { line = first = prev = $1; next }
	     { line = line " -> " $1 " (" s[prev " " $1] ")"; prev = $1 }
	     END { print line " -> " first " (" s[prev " " first] ")" }' "$1" "$tmp/loop"
}
# upward EDGES FROM TO: the edges from a layer FROM into a layer above it up
# to TO (layer names, top first), as "user -> definer (symbol)"
upward() {
	awk -v from="$2" -v to="$3" 'NR == FNR { for (i = 2; i <= NF; i++) layer[$i] = FNR; idx[$1] = FNR; next }
		layer[$1] == idx[from] && layer[$2] >= idx[to] && layer[$2] < idx[from] { print $1 " -> " $2 " (" $3 ")" }' \
		"$tmp/layers" "$1"
}
# verdict WHAT LINES: ok when LINES is empty, else not ok naming them
verdict() {
	if [ -z "$2" ]; then ok "$1"; else notok "$1: $(echo "$2" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"; fi
}

# the checker can fail: a cycle and an arrow up the layers, made up
printf 'kv kv_core kv_key\nkv_core kv kv_run_point\nkv_loco kv_core kv_key\n' >"$tmp/bad"
c=$(cycle "$tmp/bad")
case $c in
"kv -> kv_core (kv_key) -> kv (kv_run_point)" | "kv_core -> kv (kv_run_point) -> kv_core (kv_key)")
	ok "a made-up cycle is named" ;;
*) notok "a made-up cycle is named: got '$c'" ;;
esac
u=$(upward "$tmp/bad" core entry)
if [ "$u" = "kv_core -> kv (kv_run_point)" ]; then ok "a made-up arrow from the core to the entry is named"
else notok "a made-up arrow from the core to the entry is named: got '$u'"; fi

# the graph is the folder's, not empty: the entry uses the core
check "nm finds the entry's use of the core (kv -> kv_core)" grep -q '^kv kv_core ' "$tmp/edges"

# every kv file is in one layer, every layer's file exists
placed=$(cut -d' ' -f2- "$tmp/layers" | tr ' ' '\n' | sort)
have=$(for o in $kv_objs; do basename "$o" .o; done | sort)
verdict "every kv file has a layer" "$(echo "$have" | grep -vxF "$placed")"
verdict "every file of a layer exists" "$(echo "$placed" | grep -vxF "$have")"
verdict "no kv file is in two layers" "$(echo "$placed" | uniq -d)"

verdict "the kv objects call one another in no cycle" "$(cycle "$tmp/edges")"
verdict "the core uses nothing of the engine, the stores or the entry" "$(upward "$tmp/edges" core entry)"
verdict "the engine uses nothing of the stores or the entry" "$(upward "$tmp/edges" engine entry)"
verdict "the stores use nothing of the entry" "$(upward "$tmp/edges" stores entry)"

# other families (netmem clover) run on the core and the engine, never on a
# store or the entry
if [ -n "$out_objs" ]; then
	# shellcheck disable=SC2086
	uses "$tmp/out_uses" $out_objs
	bad=$(awk 'NR == FNR { if ($1 == "entry" || $1 == "stores") for (i = 2; i <= NF; i++) top[$i] = 1; next }
		   FILENAME ~ /defs$/ { by[$2] = $1; next }
		   ($2 in by) && (by[$2] in top) { print $1 " -> " by[$2] " (" $2 ")" }' \
		"$tmp/layers" "$tmp/defs" "$tmp/out_uses")
	verdict "files outside workloads/kv use kv's core and engine only ($(echo "$out_objs" | wc -l) objects)" "$bad"
fi

echo "# kv arrows: $(awk '{ print $1 "->" $2 }' "$tmp/edges" | sort -u | tr '\n' ' ')"
t_summary
