# ALock Fig. 4: speedup of ALock's throughput over a remote budget of 5, as
# the paper plots it: each point's ops/s over the point with remote budget 5
# and otherwise equal parameters, averaged over the localities run (the
# paper's 95/90/85%), one line per local budget.
load "plots/common.gp"
set title "ALock speedup over remote budget 5, mean over localities (ALock Fig. 4)\n{/*0.8 " . hw . "}"
set xlabel "remote budget"
set ylabel "speedup over remote budget 5"
set key autotitle columnheader
eval int_xtics("remote_budget")
tab = "< " . netmem . " table " . in . " --x remote_budget --y ops_per_sec --series local_budget" . \
      " --relative-to remote_budget=5 --mean-over p_local"
plot for [i=0:*] tab index i using 1:2 with linespoints lw 2 title "local budget " . columnheader(2)
