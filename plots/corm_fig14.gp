# CoRM Fig. 14: DirectRead throughput, YCSB 100:0, vs the Zipf skew, on an
# unfragmented heap (N live objects loaded, free_ratio 0) and a fragmented
# one (N / (1 - free_ratio) loaded, the excess freed at random, no
# compaction): the same live objects over more, sparser blocks.
#   gnuplot -e "in='results/quick/corm-fig14.json'; out='results/quick/corm-fig14.png'" plots/corm_fig14.gp
load "plots/common.gp"
set title "CoRM Fig. 14: DirectRead throughput under fragmentation\n{/*0.8 " . hw . "}"
set xlabel "Zipf skew (theta)"
set ylabel "reads/s (all clients)"
set yrange [0:*]
frees = system(netmem . " table " . in . " --values free_ratio")
arm(f) = (f+0 == 0) ? "unfragmented" : sprintf("fragmented (%gx loaded, %g%% freed)", 1/(1-(f+0)), 100*(f+0))
plot for [f in frees] "< " . netmem . " table " . in . " --x theta --y ops_per_sec --where free_ratio=" . f \
  index 0 using 1:2 with linespoints lw 2 title arm(f)
