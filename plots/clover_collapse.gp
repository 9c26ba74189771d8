# Clover's write-contention collapse (Grant and Snoeren Section 2, Clover
# Fig. 7): throughput vs client threads at 0%, 5% and 50% writes, Zipf 0.75,
# Clover as it is (no packet path).
#   gnuplot -e "in='RESULT.json'; out='fig.png'" plots/clover_collapse.gp
load "plots/common.gp"
tbl(w) = "< " . netmem . " table " . in . " --x threads --y ops_per_sec --where write_ratio=" . w . " --where resolve=none 2>/dev/null"
set title "Clover: throughput vs client threads by write share, Zipf 0.75\n{/*0.8 " . hw . "}"
set xlabel "threads per client rank"
set ylabel "operations/s (all clients)"
set xtics 1
set yrange [0:*]
plot for [w in "0 0.05 0.5"] tbl(w) index 0 using 1:2 with linespoints lw 2 title sprintf("%g%% writes", w * 100)
