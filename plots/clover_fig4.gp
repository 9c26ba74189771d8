# Clover Fig. 4 (Grant and Snoeren): throughput vs the number of hottest keys
# the packet path tracks (top-N of 1024 keys), YCSB-A at Zipf 0.75.
#   gnuplot -e "in='RESULT.json'; out='fig.png'" plots/clover_fig4.gp
# drawn from: netmem clover
load "plots/common.gp"
tbl(r) = "< " . netmem . " table " . in . " --x track --y ops_per_sec --where resolve=" . r . " 2>/dev/null"
set title "Clover: throughput vs keys tracked in the path (Grant and Snoeren Fig. 4)\n{/*0.8 " . hw . "}"
set xlabel "hottest keys tracked (of 1024)"
set ylabel "operations/s (all clients)"
set logscale x 2
set format x "%.0f"
set yrange [0:*]
set key bottom right
plot tbl("on") index 0 using 1:2 with linespoints lw 2 title "contention resolution on, top N", \
     tbl("off") index 0 using 1:2 with linespoints lw 1 dt 2 title "rewriting off (reference)"
