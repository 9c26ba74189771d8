# CoRM Fig. 16: read throughput of one client over time, before, during and
# after a compaction (the dashed line: when it was triggered); one line per
# read path (DirectRead falling back to ScanRead and RPC; RPC reads).
#   gnuplot -e "in='results/quick/corm-fig16.json'; out='results/quick/corm-fig16.png'" plots/corm_fig16.gp
load "plots/common.gp"
set title "CoRM Fig. 16: read throughput around a compaction\n{/*0.8 " . hw . "}"
set xlabel "time (s)"
set ylabel "reads/s"
set yrange [0:*]
at = system(netmem . " table " . in . " --values compact_at")
set arrow from first at+0, graph 0 to first at+0, graph 1 nohead dt 2
set key autotitle columnheader
plot for [i=0:*] "< " . netmem . " table " . in . " --cdf series --series read" index i \
  using 1:2 with lines lw 2 title columnheader(2)
