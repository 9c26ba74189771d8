# CoRM Fig. 7: probability that two random blocks of a size class can be
# compacted, vs object size; one panel per block occupancy, one line per
# strategy (Mesh: offsets; CoRM-n: n-bit IDs). Analytical (CoRM paper,
# Sec. 3.4: p = C(n-b1, b2) / C(n, b2) if b1 + b2 <= s, else 0); with
# `netmem corm-sim --mode prob --mc T` the Monte Carlo estimate is plotted
# as points beside each line. Occupancies: those the result records (default
# 0.1, 0.25, 0.5, 0.75; the paper does not list its four).
#   bin/netmem corm-sim --mode prob --mc 20000 -o results/quick/corm-fig7.json
#   gnuplot -e "in='results/quick/corm-fig7.json'; out='results/quick/corm-fig7.png'" plots/corm_fig7.gp
# drawn from: netmem corm-sim
if (!exists("netmem")) netmem = "bin/netmem"
load "plots/term.gp"
if (!exists("strategies")) strategies = "mesh corm-8 corm-12 corm-16"
occs = system(netmem . " table " . in . " --values occupancy_pct")
mc = system("jq -r 'if any(.summary[]; .geomean | has(\"probability_mc\")) then 1 else 0 end' " . in)
set terminal @term size 1200,900 font ",11"
set output out
set grid
set key bottom left
set logscale x 2
set xlabel "object size (bytes)"
set ylabel "compaction probability"
set yrange [0:1.05]
tb(occ, s, y) = "< " . netmem . " table " . in . " --x size --y " . y . " --where occupancy_pct=" . occ . " --where strategy=" . s . " 2>/dev/null"
n = words(occs)
set multiplot layout (n + 1) / 2, 2 title "CoRM Fig. 7: compaction probability of two random blocks (analytical" . (mc + 0 ? ", points: Monte Carlo)" : ")")
do for [o in occs] {
  set title sprintf("occupancy %s%%", o)
  if (mc + 0) {
    plot for [i = 1:words(strategies)] tb(o, word(strategies, i), "probability") using 1:2 with lines lw 2 lc i title word(strategies, i), \
         for [i = 1:words(strategies)] tb(o, word(strategies, i), "probability_mc") using 1:2 with points pt 6 lc i notitle
  } else {
    plot for [i = 1:words(strategies)] tb(o, word(strategies, i), "probability") using 1:2 with linespoints lw 2 lc i title word(strategies, i)
  }
}
unset multiplot
