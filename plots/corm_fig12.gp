# CoRM Fig. 12: aggregate throughput vs the number of clients (client
# threads of every client host), one line per read path (DirectRead, RPC
# reads; writes always by RPC) and read:write ratio, one panel per key
# distribution (uniform, Zipf). hosts, optional: the documents of the same
# points on more client hosts (the paper scale's corm-fig12-h2 and -h4),
# drawn on the same lines.
#   gnuplot -e "in='results/quick/corm-fig12.json'; out='results/quick/corm-fig12.png'" plots/corm_fig12.gp
if (exists("hosts")) { in = in . " " . hosts }
load "plots/common.gp"
dists = system(netmem . " table " . in . " --values dist")
ratios = system(netmem . " table " . in . " --values write_ratio")
set terminal @term size (words(dists) < 2 ? 720 : 560*words(dists)),500 font ",11"
set output out
set multiplot layout 1,words(dists) title "CoRM Fig. 12: throughput vs clients under read:write mixes\n{/*0.8 " . hw . "}"
set xlabel "clients (client threads, all client hosts)"
set ylabel "operations/s (all clients)"
set yrange [0:*]
# Clients are integers: ticks at the measured counts only.
eval int_xtics("clients")
set key autotitle columnheader font ",9"
# read:write as the paper writes it, from the share of writes
mix(w) = sprintf("%g:%g", 100 - 100*(w+0), 100*(w+0))
do for [d in dists] {
  set title d . " keys"
  plot for [w in ratios] for [i=0:1] \
    "< " . netmem . " table " . in . " --x clients --y ops_per_sec --series read --where dist=" . d . " --where write_ratio=" . w \
    index i using 1:2 with linespoints lw 2 dashtype i+1 title columnheader(2) . " " . mix(w)
}
unset multiplot
