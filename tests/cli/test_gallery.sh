#!/bin/sh
# plots/gallery.sh (host only): from a finished run it copies the figures
# the claims file names into results/gallery/ and rewrites plots/README.md
# between the gallery markers (its images found from plots/), labelled
# Soft-RoCE when the run was; an unfinished run is refused (exit 2). It
# works on a copy of the tree.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree run=$tmp/run
mkdir -p "$tree/plots" "$run"
cp plots/gallery.sh plots/claims.json "$tree/plots/"
ln -s "$(pwd)/bin" "$tree/bin"
printf 'intro\n<!-- gallery:begin old -->\nold gallery\n<!-- gallery:end -->\nafter\n' >"$tree/plots/README.md"
jq -n '{schema: "netmem-result/1", experiment: "lock", spec: {}, points: [], summary: [],
	meta: {runs: [{emulated: true, nranks: 3, hosts: ["vm"], command_line: "netmem run x",
		ranks: [{cpu_model: "QEMU", nic: {device: "rxe0", fw_ver: "0.0.0", link_layer: "Ethernet", link_gbps: 2}}]}]}}' \
	>"$run/alock-fig5.json"
svg='<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"></svg>\n'
printf "$svg" >"$run/alock-fig5.svg"
printf "$svg" >"$run/not-a-paper-figure.svg"

sh "$tree/plots/gallery.sh" "$run" >/dev/null 2>"$tmp/err"; rc=$?
check "a run without .finished: exit 2, one line saying so" sh -c \
	"[ $rc = 2 ] && [ \$(wc -l <'$tmp/err') = 1 ] && grep -q 'not a finished run' '$tmp/err' && [ ! -e '$tree/results/gallery' ]"
touch "$run/.finished"
check "a finished run: exit 0" sh -c "sh '$tree/plots/gallery.sh' '$run' >/dev/null"
check "the paper's figure copied, a figure no claims entry names left out" \
	sh -c "[ -s '$tree/results/gallery/alock-fig5.svg' ] && [ ! -e '$tree/results/gallery/not-a-paper-figure.svg' ]"
check "the README's gallery replaced, the rest kept" sh -c \
	"grep -q 'src=\"../results/gallery/alock-fig5.svg\"' '$tree/plots/README.md' && ! grep -q 'old gallery' '$tree/plots/README.md' &&
	 head -1 '$tree/plots/README.md' | grep -qx intro && tail -1 '$tree/plots/README.md' | grep -qx after"
check "labelled Soft-RoCE, the device named, no rank count" sh -c \
	"grep -q '^Hardware: rxe0.*SOFT-ROCE (EMULATED)' '$tree/plots/README.md' && ! grep -q 'rank(s)' '$tree/plots/README.md'"
t_summary
