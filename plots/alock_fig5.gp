# ALock Fig. 5: throughput vs threads per node (log scale); one panel per
# (nodes, locks), lines per lock type, dash per locality. Set `nodes` and `locks` lists with -e
# to match the config, e.g. -e "nodes='5 10 20'; locks='20 100 1000'".
load "plots/common.gp"
if (!exists("nodes")) nodes = system(netmem . " table " . in . " --values nodes")
if (!exists("locks")) locks = system(netmem . " table " . in . " --values locks")
if (!exists("locality")) locality = system(netmem . " table " . in . " --values p_local")
set terminal @term size (words(locks) < 2 ? 840 : 420*words(locks)),340*words(nodes) font ",9"
set output out
set multiplot layout words(nodes),words(locks) title "Lock-table throughput (ALock Fig. 5)\n{/*0.8 " . hw . "}"
set xlabel "threads per node"
set ylabel "ops/s (log scale)"
# The locks differ by orders of magnitude (ALock's hand-offs against a
# spinlock's retries): a linear axis shows ALock's line and flattens the rest.
set logscale y
set format y "10^{%L}"
# Threads per node are integers: ticks at the measured counts only.
eval int_xtics("threads")
set key autotitle columnheader font ",7"
dash(l) = (l eq "100") ? 1 : ((l eq "95" || l eq "50") ? 2 : 3)
do for [n in nodes] {
  do for [k in locks] {
    set title sprintf("%s nodes, %s locks", n, k)
    plot for [l in locality] for [i=0:2] \
      "< " . netmem . " table " . in . " --x threads --y ops_per_sec --series lock --where nodes=" . n . " --where locks=" . k . " --where p_local=" . l \
      index i using 1:2 with linespoints lw 2 dashtype dash(l) title columnheader(2) . " " . l . "%"
  }
}
unset multiplot
