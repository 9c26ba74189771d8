# LOCO Fig. 4a: single contended lock, throughput (critical sections per
# second, all ranks together) vs nodes, one line per lock (ticket, mpi).
#   gnuplot -e "in='results/quick/loco-fig4a.json'; out='results/quick/loco-fig4a.png'" plots/loco_fig4a.gp
load "plots/common.gp"
# On one host (the Soft-RoCE VM) OpenMPI moves RMA through shared memory.
vm = strstrt(hw, "SOFT-ROCE") > 0 ? "\n{/*0.8 mpi here: OpenMPI over shared memory on one host, not RDMA}" : ""
set title "Single contended lock: throughput vs nodes (LOCO Fig. 4a)\n{/*0.8 " . hw . "}" . vm
set xlabel "nodes (ranks, one thread each)"
set ylabel "throughput (lock-protected RMWs/s)"
set xtics ()   # only the measured node counts (xticlabels below)
set yrange [0:*]
set key autotitle columnheader
tab = "< " . netmem . " table " . in . " --x nodes --y ops_per_sec --series lock"
plot for [i=0:*] tab index i using 1:2:xticlabels(1) with linespoints lw 2 title columnheader(2)
