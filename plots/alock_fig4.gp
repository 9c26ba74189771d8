# ALock Fig. 4: throughput vs remote budget (local budget fixed), one line per locality.
load "plots/common.gp"
set title "ALock throughput vs remote budget (ALock Fig. 4)\n{/*0.8 " . hw . "}"
set xlabel "remote budget"
set ylabel "throughput (ops/s)"
set key autotitle columnheader
tab = "< " . netmem . " table " . in . " --x remote_budget --y ops_per_sec --series p_local"
plot for [i=0:*] tab index i using 1:2 with linespoints lw 2 title "p_local=" . columnheader(2)
