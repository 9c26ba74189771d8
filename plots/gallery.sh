#!/bin/sh
# The gallery of plots/README.md from a finished run: copies the run's figures
# (SVG) into results/gallery/ and rewrites that README between the gallery
# markers, paper by paper in plots/claims.json's order, each figure with the
# paper figure it regenerates and its caption, under one line naming the
# hardware (netmem table --describe; a Soft-RoCE run says so).
#
#   plots/gallery.sh results/latest
set -eu
cd "$(dirname "$0")/.."
run=${1:?usage: plots/gallery.sh RUN_DIR}
[ -f "$run/.finished" ] || { echo "plots/gallery.sh: $run is not a finished run (no .finished)" >&2; exit 2; }
dest=results/gallery
rm -rf "$dest"
mkdir -p "$dest"
doc=$(ls "$run"/*.json | head -1)
# the device and host line, without the first document's experiment and rank count
hw=$(bin/netmem table "$doc" --describe | sed 's/^[a-z0-9-]*: //; s/, [0-9]* rank(s)//')
section=$(mktemp)
trap 'rm -f "$section"' EXIT
{
	echo "<!-- gallery:begin (plots/gallery.sh writes this part) -->"
	echo "Figures of a quick run ($(date -u -r "$run/.finished" +%Y-%m-%d)), copied to \`results/gallery/\`."
	echo "Hardware: $hw."
	echo "Soft-RoCE is emulated: these figures show the suite working and the orderings"
	echo "and ratios it measured side by side, not hardware numbers. The run's claims"
	echo "table is in its \`report.md\`."
	jq -r '.papers[] | .title as $t | .figures[] | [$t, .figure, .paper_figure, .caption] | @tsv' plots/claims.json |
		while IFS="$(printf '\t')" read -r title fig pfig cap; do
			[ -s "$run/$fig.svg" ] || continue
			cp "$run/$fig.svg" "$dest/"
			[ "$title" = "${last:-}" ] || { echo; echo "**$title**"; echo; last=$title; }
			echo "- $pfig: $cap<br><img src=\"../results/gallery/$fig.svg\" width=\"640\" alt=\"$fig\">"
		done
	echo "<!-- gallery:end -->"
} >"$section"
awk -v f="$section" '
	/<!-- gallery:begin/ { while ((getline l < f) > 0) print l; skip = 1; next }
	/<!-- gallery:end -->/ { skip = 0; next }
	!skip' plots/README.md >plots/README.md.new
mv plots/README.md.new plots/README.md
echo "plots/gallery.sh: $(ls "$dest" | wc -l) figures in $dest, plots/README.md updated"
