# Barrier latency (median, p99) vs nodes, one line per impl: LOCO's SST
# barrier over RDMA and MPI_Barrier (LOCO Fig. 1b's program).
#   gnuplot -e "in='results/quick/barrier.json'; out='results/quick/barrier.png'" plots/barrier.gp
load "plots/common.gp"
# --nodes 0 means every launched rank: plot it at the job's rank count.
nr = system(netmem . " table " . in . " --describe | grep -o '[0-9]* rank(s)' | cut -d' ' -f1") + 0
set title "Barrier latency vs nodes (median, p99)\n{/*0.8 " . hw . "}"
set xlabel "nodes (ranks taking part, one per node)"
set ylabel "latency (us)"
set logscale y
set xtics 1
set mxtics 1
set key autotitle columnheader
med = "< " . netmem . " table " . in . " --x nodes --y lat.p50 --series impl"
p99 = "< " . netmem . " table " . in . " --x nodes --y lat.p99 --series impl"
plot for [i=0:*] med index i using ($1 == 0 ? nr : $1):2 with linespoints lw 2 title columnheader(2) . " p50", \
     for [i=0:*] p99 index i using ($1 == 0 ? nr : $1):2 with lines dt 2 title columnheader(2) . " p99"
