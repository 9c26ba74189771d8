# NUMA section VII (text only): throughput with the server buffer's cache
# warm or flushed before the clients start, vs access size; one panel per
# operation, one line per (buffer placement, cache state): every --buf-node
# value of the document (nic: RDMA-local, other: RDMA-remote, a node number
# as given). The paper: READs of a flushed buffer are about 3% slower (RDMA
# READs do not allocate in the cache).
#   gnuplot -e "in='results/paper/numa-cache.json'; out='results/paper/numa-cache.png'" plots/numa_cache.gp
load "plots/numa_common.gp"
set terminal @term size 960,900 font ",11"
set output out
bufs = system(netmem . " table " . in . " --values buf_node")
ops = system(netmem . " table " . in . " --values op")
place(b) = b eq "nic" ? "RDMA-local" : b eq "other" ? "RDMA-remote" : "buffer on node " . b
set multiplot layout words(ops),1 title "Throughput, buffer cache warm or flushed (NUMA section VII)\n" . numa_sub
set xlabel "access size (bytes)"
set logscale x 2
# Mops/s as the paper, or Kops/s when every point is below 0.1 Mops/s
# (Soft-RoCE under emulation), so the tick labels stay readable
peak = real(system("jq '[.points[].metrics.mops // empty] | max // 1' " . in))
scale = peak < 0.1 ? 1000 : 1
set ylabel "throughput (" . (scale == 1 ? "M" : "K") . "ops/s)"
set yrange [0:*]
set key outside right top
set lmargin 10   # both panels' axes aligned
ct(op, buf, c) = "< " . netmem . " table " . in . " --x size --y mops --where op=" . op . " --where buf_node=" . buf . " --where cache=" . c . " 2>/dev/null"
do for [op in ops] {
  set title (op eq "read" ? "READ" : op eq "write" ? "WRITE" : op)
  plot for [i = 1:words(bufs)] ct(op, word(bufs, i), "warm") using 1:($2 * scale) with linespoints lw 2 pt 7 lc i title place(word(bufs, i)) . ", warm", \
       for [i = 1:words(bufs)] ct(op, word(bufs, i), "flush") using 1:($2 * scale) with linespoints lw 2 pt 6 lc i dt 2 title place(word(bufs, i)) . ", flushed"
}
unset multiplot
