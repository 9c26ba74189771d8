# ALock Fig. 6: latency CDF of lock+unlock, one panel per (locality, locks).
load "plots/common.gp"
if (!exists("locks")) locks = system(netmem . " table " . in . " --x locks --y ops_per_sec 2>/dev/null | awk 'NF==2 && $1+0==$1 {print $1}' | sort -nu | tr '\\n' ' '")
if (!exists("locality")) locality = system(netmem . " table " . in . " --x p_local --y ops_per_sec 2>/dev/null | awk 'NF==2 && $1+0==$1 {print $1}' | sort -rnu | tr '\\n' ' '")
set terminal pngcairo size (words(locks) < 2 ? 840 : 420*words(locks)),300*words(locality) font ",9"
set output out
set multiplot layout words(locality),words(locks) title "Lock+unlock latency CDF (ALock Fig. 6)\n{/*0.8 " . hw . "}"
set xlabel "latency (us)"
set ylabel "cumulative fraction"
set logscale x
set yrange [0:1]
set key bottom right autotitle columnheader font ",7"
do for [l in locality] {
  do for [k in locks] {
    set title sprintf("%s%% local, %s locks", l, k)
    plot for [i=0:2] "< " . netmem . " table " . in . " --cdf lat_cdf --series lock --where locks=" . k . " --where p_local=" . l \
      index i using 1:2 with lines lw 2 title columnheader(2)
  }
}
unset multiplot
