# LOCO Fig. 4b: transfer transactions per second (all workers together) vs
# workers per node (threads of one rank for verbs locks, ranks for MPI); one
# panel per node count, one line per lock. Set `nodes` with -e to choose panels.
#   gnuplot -e "in='results/quick/loco-fig4b.json'; out='results/quick/loco-fig4b.png'" plots/loco_fig4b.gp
load "plots/common.gp"
if (!exists("nodes")) nodes = system(netmem . " table " . in . " --values nodes")
set terminal @term size (words(nodes) < 2 ? 720 : 520*words(nodes)),480 font ",10"
set output out
# On one host (the Soft-RoCE VM) OpenMPI moves RMA through shared memory.
vm = strstrt(hw, "SOFT-ROCE") > 0 ? "\n{/*0.8 mpi here: OpenMPI over shared memory on one host, not RDMA}" : ""
set multiplot layout 1,words(nodes) title "Two-lock transfer transactions (LOCO Fig. 4b)\n{/*0.8 " . hw . "}" . vm
set xlabel "workers per node (threads; ranks for mpi)"
set ylabel "transactions/s"
set yrange [0:*]
set xtics ()   # only the measured worker counts (xticlabels below)
set key autotitle columnheader
do for [n in nodes] {
  set title sprintf("%s nodes", n)
  plot for [i=0:*] "< " . netmem . " table " . in . " --x threads --y txns_per_sec --series lock --where nodes=" . n \
    index i using 1:2:xticlabels(1) with linespoints lw 2 title columnheader(2)
}
unset multiplot
