# CoRM Fig. 11 (remote): read throughput of one client with one request
# outstanding vs object size: CoRM's DirectRead, FaRM's read (no object ID),
# a raw READ (the ideal Mesh-style system) and RPC reads.
#   gnuplot -e "in='results/quick/corm-fig11.json'; out='results/quick/corm-fig11.png'" plots/corm_fig11.gp
load "plots/common.gp"
set title "CoRM Fig. 11 (remote): read throughput, one client\n{/*0.8 " . hw . "}"
set xlabel "object size (bytes)"
set ylabel "reads/s"
set logscale x 2
set yrange [0:*]
set key autotitle columnheader
plot for [i=0:*] "< " . netmem . " table " . in . " --x size --y ops_per_sec --series read" index i \
  using 1:2 with linespoints lw 2 title columnheader(2)
