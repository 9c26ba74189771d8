# LOCO Fig. 5: key-value store throughput (all nodes' operations per second)
# across node counts and threads per node. The paper sweeps both (Sec. 7.2)
# but does not say how its figure lays them out; here one panel per mix x key
# distribution, x grouped by node count (one group per document, a job of
# that many ranks) and within a group the threads per node, one line per
# system and window in each group (LOCO window 3 and 128, the Sherman-style
# variant, the Scythe-style variant (its writes are inserts), Redis), the
# same colour in every group. So a line's slope is thread scaling and the
# step from one group to the next is node scaling, for the same panel. Log
# scale on y: Redis over TCP and the RDMA stores differ by orders of
# magnitude in the VM. Panels, groups and lines are the values the documents
# hold (the check scale runs fewer mixes and systems).
#   gnuplot -e "in='results/quick/loco-fig5.n2.json results/quick/loco-fig5.n3.json'; out='loco-fig5.png'" plots/loco_fig5.gp
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
# x of the i-th thread count in node group g; a gap of one between groups
xpos(g, i) = (g - 1) * (nt + 1) + i
tidx(t) = sum [k = 1:nt] (word(threads, k) + 0 == t ? k : 0)
set terminal @term size 500*words(mixes),420*words(dists) font ",10"
set output out
tbl(m, d, s, w, n) = "< " . netmem . " table " . in . " --x threads --y ops_per_sec --series system" . \
    " --where workload=" . m . " --where dist=" . d . " --where system=" . s . " --where window=" . w . \
    " --where ranks=" . n . " 2>/dev/null"
set multiplot layout words(dists),words(mixes) title "Key-value stores under YCSB (LOCO Fig. 5)\n{/*0.8 " . hw . "}"
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
    plot for [g = 1:words(nodes)] for [si = 1:words(systems)] for [wi = 1:nw] \
      tbl(m, d, word(systems, si), word(windows, wi), word(nodes, g)) index 0 using (xpos(g, tidx($1))):2 \
      with linespoints lw 2 lc (si - 1) * nw + wi pt (si - 1) * nw + wi \
      title (g == 1 ? sprintf("%s W=%s", word(systems, si), word(windows, wi)) : "")
  }
}
unset multiplot
