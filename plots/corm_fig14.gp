# CoRM Fig. 14: DirectRead throughput, YCSB 100:0, vs Zipf skew, on an
# unfragmented heap (free_ratio 0) and a fragmented one (objects freed at
# random after the load, no compaction).
#   gnuplot -e "in='results/quick/corm-fig14.json'; out='results/quick/corm-fig14.png'" plots/corm_fig14.gp
load "plots/common.gp"
set title "CoRM Fig. 14: DirectRead throughput under fragmentation\n{/*0.8 " . hw . "}"
set xlabel "Zipf skew (theta)"
set ylabel "reads/s (all clients)"
set yrange [0:*]
set key autotitle columnheader
plot for [i=0:*] "< " . netmem . " table " . in . " --x theta --y ops_per_sec --series free_ratio" index i \
  using 1:2 with linespoints lw 2 title "freed " . columnheader(2)
