# Barrier latency (median, p99) vs nodes (LOCO Fig. 1b's program): LOCO's SST
# barrier over RDMA with each fence (read: LOCO's global fence, a zero-length
# READ per peer; ack: the pair-only fence, waiting for the previous pushes'
# completions), and MPI_Barrier. --fence does not apply to mpi: a sweep over
# both fences runs the same MPI_Barrier point twice, and the figure draws the
# first of them.
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
tab(y, sel) = "< " . netmem . " table " . in . " --x nodes --y " . y . " " . sel . " 2>/dev/null"
sst(y, f) = tab(y, "--where impl=sst --where fence=" . f)
mpi(y) = tab(y, "--where impl=mpi --series fence")
fences = "read ack"
plot for [i=1:2] sst("lat.p50", word(fences, i)) using ($1 == 0 ? nr : $1):2 with linespoints lw 2 lc i \
         title "sst, fence " . word(fences, i) . " p50", \
     for [i=1:2] sst("lat.p99", word(fences, i)) using ($1 == 0 ? nr : $1):2 with lines dt 2 lc i \
         title "sst, fence " . word(fences, i) . " p99", \
     mpi("lat.p50") index 0 using ($1 == 0 ? nr : $1):2 with linespoints lw 2 lc 3 title "mpi p50", \
     mpi("lat.p99") index 0 using ($1 == 0 ? nr : $1):2 with lines dt 2 lc 3 title "mpi p99"
