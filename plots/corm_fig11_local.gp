# CoRM Fig. 11 (local): reads per second of one server thread reading its
# own memory in place vs object size: CoRM's check ("direct": object ID and
# line versions), FaRM's ("farm": versions only) and a plain memcpy ("raw").
#   gnuplot -e "in='results/quick/corm-fig11-local.json'; out='results/quick/corm-fig11-local.png'" plots/corm_fig11_local.gp
load "plots/common.gp"
set title "CoRM Fig. 11 (local): reads of the server's own memory, one thread\n{/*0.8 " . hw . "}"
set xlabel "object size (bytes)"
set ylabel "reads/s"
set logscale x 2
set yrange [0:*]
set key autotitle columnheader
plot for [i=0:*] "< " . netmem . " table " . in . " --x size --y ops_per_sec --series read" index i \
  using 1:2 with linespoints lw 2 title columnheader(2)
