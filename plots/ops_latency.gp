# Latency (median and p99) vs message size, one line per op.
#   gnuplot -e "in='results/quick/ops-lat.json'; out='results/quick/ops-lat.png'" plots/ops_latency.gp
load "plots/common.gp"
set title "One-sided latency vs message size (median, p99)\n{/*0.8 " . hw . "}"
set xlabel "message size (bytes)"
set ylabel "latency (us)"
set logscale x 2
set logscale y
set key autotitle columnheader
med = "< " . netmem . " table " . in . " --x size --y lat.p50 --series op"
p99 = "< " . netmem . " table " . in . " --x size --y lat.p99 --series op"
plot for [i=0:*] med index i using 1:2 with linespoints lw 2 title columnheader(2) . " p50", \
     for [i=0:*] p99 index i using 1:2 with lines dt 2 title columnheader(2) . " p99"
