# CoRM Fig. 15: compaction's two phases vs block size, one line per remap
# strategy: collecting the sparse blocks of a class (left) and compacting,
# per merged block (copy, mmap, NIC step; right).
#   gnuplot -e "in='results/quick/corm-fig15.json'; out='results/quick/corm-fig15.png'" plots/corm_fig15.gp
load "plots/common.gp"
set terminal @term size 1200,520 font ",11"
set output out
set multiplot layout 1,2 title "CoRM Fig. 15: collection and compaction latency\n{/*0.8 " . hw . "}"
set logscale x 2
eval int_xtics("block_size")
set xlabel "block size (bytes)"
set yrange [0:*]
set key autotitle columnheader
set title "block collection"
set ylabel "latency (us)"
plot for [i=0:*] "< " . netmem . " table " . in . " --x block_size --y compaction.collect_us --series strategy" index i \
  using 1:2 with linespoints lw 2 title columnheader(2)
set title "compaction, per merged block"
plot for [i=0:*] "< " . netmem . " table " . in . " --x block_size --y compaction.compact_us_per_merge --series strategy" index i \
  using 1:2 with linespoints lw 2 title columnheader(2)
unset multiplot
