# Clover Fig. 3 (Grant and Snoeren): the packet path's state vs the number of
# keys it tracks, from the rewrite module's real tables (netmem clover-path
# --state-table: its hash tables' slots times the sizes of its structures,
# 64 client connections), against the paper's 16 bytes per key.
#   gnuplot -e "out='fig.png'" plots/clover_fig3.gp
# drawn from: netmem clover-path
if (!exists("netmem")) netmem = "bin/netmem"
load "plots/term.gp"
set terminal @term size 960,600 font ",11"
set output out
set grid
set title "In-path state vs keys tracked (Grant and Snoeren Fig. 3)\n{/*0.8 computed from netmem clover-path's tables, no NIC involved}"
set xlabel "keys tracked"
set ylabel "bytes"
set logscale xy
set format x "%.0f"
set key top left
plot "< " . netmem . " clover-path --state-table 8..1M --conns 64" using 1:2 with linespoints lw 2 title "netmem clover-path (64 connections)", \
     "< " . netmem . " clover-path --state-table 8..1M --conns 64" using 1:($1 * 16) with lines dt 2 title "paper: 16 B per key"
