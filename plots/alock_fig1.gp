# ALock Fig. 1: spinlock through loopback on one node, throughput vs threads.
load "plots/common.gp"
set title "RDMA spinlock through loopback, 1000 locks on 1 node (ALock Fig. 1)\n{/*0.8 " . hw . "}"
set xlabel "threads"
set ylabel "throughput (ops/s)"
set key autotitle columnheader
eval int_xtics("threads")
tab = "< " . netmem . " table " . in . " --x threads --y ops_per_sec --series lock"
plot for [i=0:*] tab index i using 1:2 with linespoints lw 2 title columnheader(2)
