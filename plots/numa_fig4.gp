# NUMA Fig. 4: throughput of 8 connections vs access size at MTU 256, READ and
# WRITE, buffer RDMA-local vs RDMA-remote (top), and the gap 1 - T_remote/T_local
# (bottom).
#   gnuplot -e "in='results/paper/numa-fig4.json'; out='results/paper/numa-fig4.png'" plots/numa_fig4.gp
load "plots/numa_common.gp"
# the figure is at MTU 256; the document may sweep MTUs (numa_fig4_mtu.gp)
numa_where = "--where mtu=256"
set terminal @term size 960,900 font ",11"
set output out
set multiplot layout 2,1 title "Throughput vs access size (NUMA Fig. 4)\n" . numa_sub
set xlabel "access size (bytes)"
set logscale x 2
set ylabel "throughput (Mops/s)"
set key top right
plot tab("size", "mops", "read", "nic") using 1:2 with linespoints lw 2 pt 7 title "READ, RDMA-local", \
     tab("size", "mops", "read", "other") using 1:2 with linespoints lw 2 pt 6 dt 2 title "READ, RDMA-remote", \
     tab("size", "mops", "write", "nic") using 1:2 with linespoints lw 2 pt 5 title "WRITE, RDMA-local", \
     tab("size", "mops", "write", "other") using 1:2 with linespoints lw 2 pt 4 dt 2 title "WRITE, RDMA-remote"
set ylabel "local over remote: 1 - T_{remote}/T_{local} (%)"
plot ratio("size", "mops", "read", "other", "nic", "") using 1:2 with linespoints lw 2 pt 7 title "READ", \
     ratio("size", "mops", "write", "other", "nic", "") using 1:2 with linespoints lw 2 pt 5 title "WRITE", \
     0 with lines lc "black" notitle
unset multiplot
