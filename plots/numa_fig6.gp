# NUMA Fig. 6: memcached-like service throughput vs client connections, one
# line per placement scenario; panel (a) from `in` (no load), and when `load`
# names the numa-fig6-load document, panels for the load NUMA-agnostic (b),
# on the NIC's node (c) and on the other node (not plotted in the paper).
#   gnuplot -e "in='results/paper/numa-fig6.json'; load='results/paper/numa-fig6-load.json'; out='results/paper/numa-fig6.png'" plots/numa_fig6.gp
load "plots/numa_common.gp"
if (!exists("load")) load = ""
set terminal @term size (load eq "" ? 960 : 1400),(load eq "" ? 600 : 1000) font ",10"
set output out
set xlabel "client connections"
set ylabel "throughput (ops/s)"
set yrange [0:*]
set key bottom right
scen = "both-local client-local both-remote"
label(s) = s eq "both-local" ? "both RDMA-local" : s eq "client-local" ? "client RDMA-local, server RDMA-remote" : "both RDMA-remote"
kv(doc, s, extra) = "< " . netmem . " table " . doc . " --x threads --y ops_per_sec --where scenario=" . s . extra . " 2>/dev/null"
if (load ne "") set multiplot layout 2,2 title "Memcached-like service throughput (NUMA Fig. 6)\n" . numa_sub
set title (load eq "" ? "Memcached-like service throughput (NUMA Fig. 6a)\n" . numa_sub : "(a) no load")
plot for [s in scen] kv(in, s, "") using 1:2 with linespoints lw 2 title label(s)
if (load ne "") {
  set title "(b) NUMA-agnostic load"
  plot for [s in scen] kv(load, s, " --where load_node=any") using 1:2 with linespoints lw 2 title label(s)
  set title "(c) load on the RDMA-local node"
  plot for [s in scen] kv(load, s, " --where load_node=nic") using 1:2 with linespoints lw 2 title label(s)
  set title "(d) load on the RDMA-remote node (not plotted in the paper)"
  plot for [s in scen] kv(load, s, " --where load_node=other") using 1:2 with linespoints lw 2 title label(s)
  unset multiplot
}
