# CoRM Fig. 13: failed DirectReads per second (reads whose copy was found
# locked or torn by a concurrent RPC write, counted once per read as the
# authors, who do not retry), YCSB 50:50, vs
# the Zipf skew; one line per number of clients (client threads of every
# client host). hosts, optional: the documents of the same points on more
# client hosts (the paper scale's corm-fig13-h2 and -h4).
#   gnuplot -e "in='results/quick/corm-fig13.json'; out='results/quick/corm-fig13.png'" plots/corm_fig13.gp
if (exists("hosts")) { in = in . " " . hosts }
load "plots/common.gp"
set title "CoRM Fig. 13: failed DirectReads, YCSB 50:50\n{/*0.8 " . hw . "}"
set xlabel "Zipf skew (theta)"
set ylabel "failed DirectReads/s (all clients)"
set yrange [0:*]
set key autotitle columnheader
plot for [i=0:*] "< " . netmem . " table " . in . " --x theta --y direct_reads_failed_per_sec --series clients" index i \
  using 1:2 with linespoints lw 2 title columnheader(2) . " clients"
