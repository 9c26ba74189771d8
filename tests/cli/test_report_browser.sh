#!/bin/sh
# The report page in a real browser (Debian's chromium, headless): a
# screenshot of index.html, and every image decoded (naturalWidth > 0),
# checked by a script added to a copy of the page (the report itself has none).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ] || ! command -v gnuplot >/dev/null 2>&1; then
	skip "index.html in headless Chromium" "chromium or gnuplot not installed (make deps installs them)"
	t_summary; exit 0
fi
run=$tmp/run; mkdir -p "$run"
$N corm-sim --mode synthetic -n 2000 --sizes 64,256 --free 0.5,0.9 -o "$run/corm-fig17.json" >/dev/null 2>&1
$N corm-sim --mode prob --sizes 128,256 --mc 500 -o "$run/corm-fig7.json" >/dev/null 2>&1
gnuplot -e "in='$run/corm-fig17.json'; out='$run/corm-fig17.svg'" plots/corm_fig17.gp
gnuplot -e "in='$run/corm-fig7.json'; out='$run/corm-fig7.png'" plots/corm_fig7.gp
check "netmem report writes the page" sh -c "$N report $run > $tmp/out"
# Chromium under root needs --no-sandbox; a profile of its own keeps runs apart.
chrome() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
		--user-data-dir="$tmp/profile" "$@" 2>>"$tmp/chrome.err"
}
chrome --window-size=1300,2400 --screenshot="$tmp/shot.png" "file://$run/index.html" >/dev/null
check "a screenshot of index.html" sh -c ". tests/lib.sh; nm_figure_ok $tmp/shot.png && [ \$(stat -c %s $tmp/shot.png) -gt 20000 ]"
# The check: after load, the body gets a line naming how many images there
# are and which ones failed to decode.
sed 's|</body>|<script>addEventListener("load", function () { var im = document.images, bad = []; for (var i = 0; i < im.length; i++) if (!im[i].complete \|\| im[i].naturalWidth === 0) bad.push(im[i].alt); document.body.insertAdjacentHTML("beforeend", "<p id=imgcheck>images " + im.length + " broken [" + bad.join(",") + "]</p>"); });</script></body>|' \
	"$run/index.html" >"$run/check.html"
chrome --virtual-time-budget=5000 --dump-dom "file://$run/check.html" >"$tmp/dom.html"
check "every image of the page loads in Chromium (2 figures, none broken)" grep -q 'images 2 broken \[\]' "$tmp/dom.html"
# The check itself can fail: a figure whose bytes are damaged is named.
sed '0,/base64,/s//base64,AAAA/' "$run/check.html" >"$run/broken.html"
chrome --virtual-time-budget=5000 --dump-dom "file://$run/broken.html" >"$tmp/dom2.html"
check "a damaged figure is caught (images 2 broken [its name])" grep -q 'images 2 broken \[corm-fig' "$tmp/dom2.html"
if [ -n "${NETMEM_SCREENSHOT:-}" ]; then cp "$tmp/shot.png" "$NETMEM_SCREENSHOT"; fi
t_summary
