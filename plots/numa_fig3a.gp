# NUMA Fig. 3a: closed-loop latency (mean, as the paper) of 64 B READ and
# WRITE vs connections, server buffer RDMA-local (nic) vs RDMA-remote (other).
#   gnuplot -e "in='results/paper/numa-fig3.json'; out='results/paper/numa-fig3a.png'" plots/numa_fig3a.gp
load "plots/numa_common.gp"
set title "Latency vs connections, 64 B (NUMA Fig. 3a)\n" . numa_sub
set xlabel "connections (one QP and thread each)"
set ylabel "mean latency (us)"
set logscale x 2
set key top left
plot tab("threads", "lat.mean", "read", "nic") using 1:2 with linespoints lw 2 pt 7 title "READ, RDMA-local", \
     tab("threads", "lat.mean", "read", "other") using 1:2 with linespoints lw 2 pt 6 dt 2 title "READ, RDMA-remote", \
     tab("threads", "lat.mean", "write", "nic") using 1:2 with linespoints lw 2 pt 5 title "WRITE, RDMA-local", \
     tab("threads", "lat.mean", "write", "other") using 1:2 with linespoints lw 2 pt 4 dt 2 title "WRITE, RDMA-remote"
