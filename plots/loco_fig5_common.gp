# LOCO Fig. 5's layout, for plots/loco_fig5.gp (extra = 0: the paper's
# series) and plots/loco_fig5_extra.gp (extra = 1: the others): key-value
# store throughput (all nodes' operations per second) across node counts
# and threads per node. The paper sweeps both (Sec. 7.2) but does not say how
# its figure lays them out; here one panel per mix x key distribution, x
# grouped by node count (one group per document, a job of that many ranks)
# and within a group the threads per node, one line per system and window
# in each group, a colour per system and a dash per window, the same in
# every group and in both figures. So a line's slope is thread scaling and
# the step from one group to the next is node scaling, for the same panel.
# Log scale on y: Redis over TCP and the RDMA stores differ by orders of
# magnitude in the VM. Panels, groups and lines are the values the documents
# hold (the check scale runs fewer mixes and systems).
load "plots/common.gp"
values(p) = system(netmem . " table " . in . " --values " . p)
nodes = values("ranks")
threads = values("threads")
mixes = values("workload")
dists = values("dist")
systems = values("system")
windows = values("window")
nt = words(threads)
nw = words(windows)
# The paper's series, system:window (Sec. 7.2).
paper = "loco:3 loco:128 sherman:3 scythe:3 redis:128"
inpaper(p) = strstrt(" " . paper . " ", " " . p . " ") > 0
# This figure's series, of those the documents hold.
pairs = ""
do for [s in systems] {
  sw = system(netmem . " table " . in . " --values window --where system=" . s)
  do for [w in sw] {
    p = s . ":" . w
    if (inpaper(p) == !extra) { pairs = pairs . (strlen(pairs) ? " " : "") . p }
  }
}
np = words(pairs)
psys(k) = word(pairs, k)[1:strstrt(word(pairs, k), ":") - 1]
pwin(k) = word(pairs, k)[strstrt(word(pairs, k), ":") + 1:]
sidx(s) = sum [k = 1:words(systems)] (word(systems, k) eq s ? k : 0)
widx(w) = sum [k = 1:nw] (word(windows, k) eq w ? k : 0)
# x of the i-th thread count in node group g; a gap of one between groups
xpos(g, i) = (g - 1) * (nt + 1) + i
# the j-th line of a panel: node group jg(j), series jk(j)
jg(j) = int((j - 1) / np) + 1
jk(j) = (j - 1) % np + 1
tidx(t) = sum [k = 1:nt] (word(threads, k) + 0 == t ? k : 0)
name = extra ? "Key-value stores under YCSB: the series LOCO Fig. 5 does not show" : "Key-value stores under YCSB (LOCO Fig. 5)"
if (np == 0) {
  eval "set terminal " . term . " size 640,240 font ',10'"
  set output out
  set title name . "\n{/*0.8 " . hw . "}"
  unset key; unset border; unset tics; unset grid
  set label 1 (extra ? "none: every series of these documents is one the paper draws" : "none of the paper's series in these documents") at graph 0.5, 0.5 center
  plot [0:1] [0:1] 2 notitle
} else {
eval sprintf("set terminal %s size %d,%d font ',10'", term, 500 * words(mixes), 420 * words(dists))
set output out
tbl(m, d, s, w, n) = "< " . netmem . " table " . in . " --x threads --y ops_per_sec --series system" . \
    " --where workload=" . m . " --where dist=" . d . " --where system=" . s . " --where window=" . w . \
    " --where ranks=" . n . " 2>/dev/null"
set multiplot layout words(dists),words(mixes) title name . "\n{/*0.8 " . hw . "}"
set xlabel "threads per node, grouped by nodes" offset 0,-1
set ylabel "operations/s (all nodes)"
set logscale y
set format y "10^{%L}"
set bmargin 5
set xrange [0.5:xpos(words(nodes), nt) + 0.5]
set xtics () nomirror
do for [g = 1:words(nodes)] {
  do for [i = 1:nt] { set xtics add (word(threads, i) xpos(g, i)) }
  set label g sprintf("%s nodes", word(nodes, g)) at first (xpos(g, 1) + xpos(g, nt)) / 2.0, graph -0.13 center
  if (g > 1) { set arrow g from first xpos(g, 1) - 1, graph 0 to first xpos(g, 1) - 1, graph 1 nohead dt 3 }
}
# The key above the lines (headroom on y), not over the first group's.
set key top center horizontal maxrows 2 font ",8"
set offsets 0, 0, graph 0.25, 0
do for [d in dists] {
  do for [m in mixes] {
    set title sprintf("%s, %s keys", m, d)
    # one loop over (group, series): gnuplot 5.4.1 (Debian 11) gives every
    # key entry of a nested "for [g] for [k]" the same title
    plot for [j = 1:words(nodes) * np] \
      tbl(m, d, psys(jk(j)), pwin(jk(j)), word(nodes, jg(j))) index 0 using (xpos(jg(j), tidx($1))):2 \
      with linespoints lw 2 lc sidx(psys(jk(j))) dt widx(pwin(jk(j))) pt (sidx(psys(jk(j))) - 1) * nw + widx(pwin(jk(j))) \
      title (jg(j) == 1 ? sprintf("%s W=%s", psys(jk(j)), pwin(jk(j))) : "")
  }
}
unset multiplot
}
