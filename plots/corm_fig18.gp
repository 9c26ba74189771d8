# CoRM Fig. 18: active memory under the Redis traces (redis-mem-t1, t2, t3;
# synthesized from the paper's description, Sec. 4.4.3: the original traces
# are not public) vs allocator threads, at each run's moment of highest
# fragmentation; one panel per trace, one line per strategy (none, ideal,
# Mesh, CoRM-n; CoRM-n includes its ID and address bits per object).
# Fig. 19 (plots/corm_fig19.gp) is the same drawing of a --hybrid run.
#   bin/netmem corm-sim --mode sweep --redis t1,t2,t3 -b 1M -o results/quick/corm-fig18.json
#   gnuplot -e "in='results/quick/corm-fig18.json'; out='results/quick/corm-fig18.png'" plots/corm_fig18.gp
# drawn from: netmem corm-sim
if (!exists("netmem")) netmem = "bin/netmem"
if (!exists("fig")) fig = "Fig. 18"
load "plots/term.gp"
traces = system(netmem . " table " . in . " --values trace")
strategies = system(netmem . " table " . in . " --values strategy")
bs = system("jq -r '.params.block_size / 1024 | if . >= 1024 then \"\\(. / 1024) MiB\" else \"\\(.) KiB\" end' " . in)
mode = system("jq -r 'if .params.hybrid then \"hybrid CoRM\" else \"vanilla CoRM\" end' " . in)
set terminal @term size 1500,520 font ",11"
set output out
set grid
set key top left
set xlabel "allocator threads"
set ylabel "active memory (MiB)"
set logscale x 2
set yrange [0:*]
tb(t, s) = "< " . netmem . " table " . in . " --x threads --y active_mib --where trace=" . t . " --where strategy=" . s . " 2>/dev/null"
set multiplot layout 1, words(traces) title sprintf("CoRM %s: active memory under Redis traces at the highest fragmentation (%s, %s blocks; traces synthesized from the paper's description; simulated)", fig, mode, bs)
do for [t in traces] {
  set title sprintf("redis-mem-%s", t)
  plot for [i = 1:words(strategies)] tb(t, word(strategies, i)) using 1:2 with linespoints lw 2 lc i title word(strategies, i)
}
unset multiplot
