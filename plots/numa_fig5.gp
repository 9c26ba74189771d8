# NUMA Fig. 5: throughput of 8 connections doing 8 B READ or WRITE while
# server workers on the buffer's node hammer the same cache line (90% stores);
# top: throughput, bottom: the paper's "% improvement" of RDMA-local over
# RDMA-remote, 100 * (1 - T_remote/T_local): negative = RDMA-remote is faster.
#   gnuplot -e "in='results/paper/numa-fig5.json'; out='results/paper/numa-fig5.png'" plots/numa_fig5.gp
load "plots/numa_common.gp"
set terminal @term size 960,900 font ",11"
set output out
set multiplot layout 2,1 title "Throughput under server workers on the buffer (NUMA Fig. 5)\n" . numa_sub
set xlabel "server worker threads (on the buffer's node)"
set ylabel "client throughput (Mops/s)"
set key outside right
plot tab("server_workers", "mops", "read", "nic") using 1:2 with linespoints lw 2 pt 7 title "READ, RDMA-local", \
     tab("server_workers", "mops", "read", "other") using 1:2 with linespoints lw 2 pt 6 dt 2 title "READ, RDMA-remote", \
     tab("server_workers", "mops", "write", "nic") using 1:2 with linespoints lw 2 pt 5 title "WRITE, RDMA-local", \
     tab("server_workers", "mops", "write", "other") using 1:2 with linespoints lw 2 pt 4 dt 2 title "WRITE, RDMA-remote"
set ylabel "% improvement over RDMA-remote"
plot ratio("server_workers", "mops", "read", "other", "nic", "") using 1:2 with linespoints lw 2 pt 7 title "RDMA reads", \
     ratio("server_workers", "mops", "write", "other", "nic", "") using 1:2 with linespoints lw 2 pt 5 title "RDMA writes", \
     0 with lines lc "black" notitle
unset multiplot
