# CoRM Figs. 18-19 (trace-driven): active memory over an allocation trace,
# one line per strategy, each sample a compaction of the heap as it stands
# (the paper reports the sample of highest fragmentation; the document's
# "peak" names it). Hybrid CoRM (Fig. 19) when the run used --hybrid.
#   bin/netmem corm-sim --trace tests/data/corm-synthetic.trace -T 8 -o results/quick/corm-trace.json
#   gnuplot -e "in='results/quick/corm-trace.json'; out='results/quick/corm-trace.png'" plots/corm_fig18.gp
# drawn from: netmem corm-sim
if (!exists("netmem")) netmem = "bin/netmem"
load "plots/term.gp"
strategies = system(netmem . " table " . in . " --values strategy")
what = system("jq -r '\"\\(.params.trace), \\(.params.block_size)-byte blocks, \\(.params.threads) threads, peak at op \\(.peak.op)\"' " . in)
set terminal @term size 960,600 font ",11"
set output out
set grid
set key top left
set xlabel "trace operation"
set ylabel "active memory (MiB)"
set yrange [0:*]
set title "CoRM Figs. 18-19: active memory over an allocation trace (simulated)\n" . what
tb(s) = "< " . netmem . " table " . in . " --x op --y active_mib --where strategy=" . s . " 2>/dev/null"
plot for [i = 1:words(strategies)] tb(word(strategies, i)) using 1:2 with linespoints lw 2 lc i title word(strategies, i)
