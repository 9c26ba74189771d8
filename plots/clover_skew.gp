# Clover under skew: throughput vs the Zipf exponent, YCSB-A, with the packet
# path's contention resolution off and on.
#   gnuplot -e "in='RESULT.json'; out='fig.png'" plots/clover_skew.gp
load "plots/common.gp"
tbl(r) = "< " . netmem . " table " . in . " --x theta --y ops_per_sec --where resolve=" . r . " 2>/dev/null"
set title "Clover: throughput vs key skew, YCSB-A\n{/*0.8 " . hw . "}"
set xlabel "Zipf exponent"
set ylabel "operations/s (all clients)"
set yrange [0:*]
# Each line is there when the document has its points (one host: "none" only).
plot tbl("none") index 0 using 1:2 with linespoints lw 2 title "no packet path", \
     tbl("off") index 0 using 1:2 with linespoints lw 2 title "path, rewriting off", \
     tbl("on") index 0 using 1:2 with linespoints lw 2 title "contention resolution on"
