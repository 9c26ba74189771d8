# CoRM Fig. 17: active memory after compaction under synthetic traces
# (allocate N objects of one size, free a random fraction), vs the fraction
# freed; one panel per object size, one line per strategy (none, ideal, Mesh,
# CoRM-n; CoRM-n includes its ID and address bits per object).
#   bin/netmem corm-sim --mode synthetic -o results/quick/corm-fig17.json
#   gnuplot -e "in='results/quick/corm-fig17.json'; out='results/quick/corm-fig17.png'" plots/corm_fig17.gp
# drawn from: netmem corm-sim
if (!exists("netmem")) netmem = "bin/netmem"
load "plots/term.gp"
sizes = system(netmem . " table " . in . " --values size")
strategies = system(netmem . " table " . in . " --values strategy")
bs = system("jq -r '.params.block_size' " . in)
set terminal @term size 1200,900 font ",11"
set output out
set grid
set key top right
set xlabel "objects freed (%)"
set ylabel "active memory (MiB)"
set yrange [0:*]
tb(size, s) = "< " . netmem . " table " . in . " --x free_pct --y active_mib --where size=" . size . " --where strategy=" . s . " 2>/dev/null"
n = words(sizes)
set multiplot layout (n + 1) / 2, 2 title sprintf("CoRM Fig. 17: active memory under synthetic traces (%s-byte blocks; simulated)", bs)
do for [z in sizes] {
  set title sprintf("%s-byte objects", z)
  plot for [i = 1:words(strategies)] tb(z, word(strategies, i)) using 1:2 with linespoints lw 2 lc i title word(strategies, i)
}
unset multiplot
