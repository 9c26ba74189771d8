# CoRM Fig. 9: median latency of CoRM's operations with direct pointers vs
# object size: Alloc, Free, RPC Read and Write, DirectRead, and the raw RPC
# (SEND/RECV round trip) and raw READ baselines.
#   gnuplot -e "in='results/quick/corm-fig9.json'; out='results/quick/corm-fig9.png'" plots/corm_fig9.gp
load "plots/common.gp"
set title "CoRM Fig. 9: latency with direct pointers (median)\n{/*0.8 " . hw . "}"
set xlabel "object size (bytes)"
set ylabel "latency (us)"
set logscale x 2
set yrange [0:*]
ops = "alloc free read_rpc write_rpc direct_read raw_rpc raw_read"
plot for [o in ops] "< " . netmem . " table " . in . " --x size --y lat_by_op." . o . ".p50" \
  using 1:2 with linespoints lw 2 title o
