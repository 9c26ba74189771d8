# CoRM Fig. 12: aggregate throughput vs the share of writes (RPC), DirectRead
# vs RPC reads; one panel per key distribution (uniform, Zipfian).
#   gnuplot -e "in='results/quick/corm-fig12.json'; out='results/quick/corm-fig12.png'" plots/corm_fig12.gp
load "plots/common.gp"
dists = system(netmem . " table " . in . " --values dist")
set terminal @term size (words(dists) < 2 ? 720 : 560*words(dists)),500 font ",11"
set output out
set multiplot layout 1,words(dists) title "CoRM Fig. 12: throughput under read:write mixes\n{/*0.8 " . hw . "}"
set xlabel "share of writes"
set ylabel "operations/s (all clients)"
set yrange [0:*]
set key autotitle columnheader
do for [d in dists] {
  set title d . " keys"
  plot for [i=0:*] "< " . netmem . " table " . in . " --x write_ratio --y ops_per_sec --series read --where dist=" . d \
    index i using 1:2 with linespoints lw 2 title columnheader(2)
}
unset multiplot
