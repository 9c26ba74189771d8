# Clover Fig. 2 (Grant and Snoeren): throughput vs client threads, YCSB-A at
# Zipf 0.75, native Clover through the packet path with rewriting off, with
# contention resolution on, and without the path (its own cost).
#   gnuplot -e "in='RESULT.json'; out='fig.png'" plots/clover_fig2.gp
# drawn from: netmem clover
load "plots/common.gp"
tbl(r) = "< " . netmem . " table " . in . " --x threads --y ops_per_sec --series resolve --where resolve=" . r . " 2>/dev/null"
set title "Clover: throughput vs client threads, YCSB-A, Zipf 0.75 (Grant and Snoeren Fig. 2)\n{/*0.8 " . hw . "}"
set xlabel "threads per client rank (2 client ranks)"
set ylabel "operations/s (all clients)"
set xtics 1
set yrange [0:*]
set key top left
plot tbl("off") index 0 using 1:2 with linespoints lw 2 title "native Clover (path, rewriting off)", \
     tbl("on") index 0 using 1:2 with linespoints lw 2 title "contention resolution on", \
     tbl("none") index 0 using 1:2 with linespoints lw 1 dt 2 title "no path"
