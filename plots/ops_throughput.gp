# Throughput (Mops) vs window, one line per op.
load "plots/common.gp"
set title "One-sided throughput vs outstanding operations per thread\n{/*0.8 " . hw . "}"
set xlabel "window (outstanding ops per thread)"
set ylabel "throughput (Mops/s)"
set logscale x 2
set key autotitle columnheader
tab = "< " . netmem . " table " . in . " --x tx_depth --y mops --series op"
plot for [i=0:*] tab index i using 1:2 with linespoints lw 2 title columnheader(2)
