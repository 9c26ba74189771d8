# CoRM Fig. 10: median latency with indirect pointers (the right block, a
# wrong offset) vs object size: the RPC read that corrects the pointer, the
# ScanRead a failed DirectRead falls back to (the whole block), ReleasePtr
# on an indirect pointer (the server's search for the object included, as
# Sec. 4.2.1 times it), with the direct RPC read and the raw RPC for reference.
#   gnuplot -e "in='results/quick/corm-fig9.json'; out='results/quick/corm-fig10.png'" plots/corm_fig10.gp
load "plots/common.gp"
set title "CoRM Fig. 10: latency with indirect pointers (median)\n{/*0.8 " . hw . "}"
set xlabel "object size (bytes)"
set ylabel "latency (us)"
set logscale x 2
set yrange [0:*]
ops = "indirect_read_rpc scan_read release_ptr read_rpc raw_rpc"
plot for [o in ops] "< " . netmem . " table " . in . " --x size --y lat_by_op." . o . ".p50" \
  using 1:2 with linespoints lw 2 title o
