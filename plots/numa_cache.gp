# NUMA section VII (text only): throughput with the server buffer's cache
# warm or flushed before the clients start, vs access size; one panel per
# operation, one line per (buffer placement, cache state). The paper: READs
# of a flushed buffer are about 3% slower (RDMA READs do not allocate in
# the cache).
#   gnuplot -e "in='results/paper/numa-cache.json'; out='results/paper/numa-cache.png'" plots/numa_cache.gp
load "plots/numa_common.gp"
set terminal pngcairo size 960,900 font ",11"
set output out
set multiplot layout 2,1 title "Throughput, buffer cache warm or flushed (NUMA section VII)\n" . numa_sub
set xlabel "access size (bytes)"
set logscale x 2
set ylabel "throughput (Mops/s)"
set key bottom left
ct(op, buf, c) = "< " . netmem . " table " . in . " --x size --y mops --where op=" . op . " --where buf_node=" . buf . " --where cache=" . c . " 2>/dev/null"
do for [op in "read write"] {
  set title (op eq "read" ? "READ" : "WRITE")
  plot ct(op, "nic", "warm") using 1:2 with linespoints lw 2 pt 7 lc 1 title "RDMA-local, warm", \
       ct(op, "nic", "flush") using 1:2 with linespoints lw 2 pt 6 lc 1 dt 2 title "RDMA-local, flushed", \
       ct(op, "other", "warm") using 1:2 with linespoints lw 2 pt 5 lc 2 title "RDMA-remote, warm", \
       ct(op, "other", "flush") using 1:2 with linespoints lw 2 pt 4 lc 2 dt 2 title "RDMA-remote, flushed"
}
unset multiplot
