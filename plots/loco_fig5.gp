# LOCO Fig. 5: key-value store throughput (all nodes' operations per second) vs
# application threads per node; one panel per mix x key distribution, one line
# per system and window (LOCO window 3 and 128, the Sherman-style variant,
# the Scythe-style variant (its writes are inserts), Redis). Log scale on y: Redis over TCP and the RDMA stores differ by
# orders of magnitude in the VM.
#   gnuplot -e "in='results/quick/loco-fig5.json'; out='results/quick/loco-fig5.png'" plots/loco_fig5.gp
load "plots/common.gp"
set terminal @term size 1500,900 font ",10"
set output out
tbl(m, d, s, w) = "< " . netmem . " table " . in . " --x threads --y ops_per_sec --series system" . \
    " --where workload=" . m . " --where dist=" . d . " --where system=" . s . " --where window=" . w . " 2>/dev/null"
systems = "loco sherman scythe redis"
windows = "3 128"
set multiplot layout 2,3 title "Key-value stores under YCSB (LOCO Fig. 5)\n{/*0.8 " . hw . "}"
set xlabel "application threads per node"
set ylabel "operations/s (all nodes)"
set logscale y
set xtics 1
set key top left font ",8"
do for [d in "uniform zipfian"] {
  do for [m in "read-only mixed write-only"] {
    set title sprintf("%s, %s keys", m, d)
    plot for [s in systems] for [w in windows] tbl(m, d, s, w) index 0 using 1:2 \
      with linespoints lw 2 title sprintf("%s W=%s", s, w)
  }
}
unset multiplot
