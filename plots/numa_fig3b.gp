# NUMA Fig. 3b: latency speedup of RDMA-local over RDMA-remote,
# 100 * (1 - lat_local / lat_remote) as the authors' plot scripts, up to 16
# connections; from the same document as Fig. 3a.
#   gnuplot -e "in='results/paper/numa-fig3.json'; out='results/paper/numa-fig3b.png'" plots/numa_fig3b.gp
load "plots/numa_common.gp"
set title "Latency speedup of RDMA-local over RDMA-remote (NUMA Fig. 3b)\n" . numa_sub
set xlabel "connections (one QP and thread each)"
set ylabel "speedup: 1 - local/remote (%)"
set logscale x 2
# up to 16 connections as the paper, or the document's largest count when smaller
xmax = int(system("jq '[.points[] | select(.skipped | not) | .params.threads] | max // 16 | [., 16] | min' " . in))
set xrange [*:xmax]
set style data linespoints
plot ratio("threads", "lat.mean", "read", "nic", "other", xmax) using 1:2 lw 2 pt 7 title "READ", \
     ratio("threads", "lat.mean", "write", "nic", "other", xmax) using 1:2 lw 2 pt 5 title "WRITE", \
     0 with lines lc "black" notitle
