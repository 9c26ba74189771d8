# NUMA Fig. 4, MTU sweep (paper section V-B and VII, text only): the gap
# 1 - T_remote/T_local vs access size, one line per (op, MTU). `in` is the
# numa-fig4 document, which sweeps the MTU (or several documents, one per MTU).
#   gnuplot -e "in='results/paper/numa-fig4.json'; out='results/paper/numa-fig4-mtu.png'" plots/numa_fig4_mtu.gp
load "plots/numa_common.gp"
set title "RDMA-local over RDMA-remote throughput vs access size, per MTU (NUMA Fig. 4 / VII)\n" . numa_sub
set xlabel "access size (bytes)"
set ylabel "1 - T_{remote}/T_{local} (%)"
set logscale x 2
set key outside right
mtus = system(netmem . " table " . in . " --values mtu")
r(op, m) = "< " . netmem . " table " . in . " --x size --y mops --series buf_node --where op=" . op . " --where mtu=" . m . " 2>/dev/null | awk -f plots/numa_ratio.awk -v num=other -v den=nic"
plot for [m in mtus] r("read", m) using 1:2 with linespoints lw 2 title "READ, MTU " . m, \
     for [m in mtus] r("write", m) using 1:2 with linespoints lw 2 dt 2 title "WRITE, MTU " . m, \
     0 with lines lc "black" notitle
