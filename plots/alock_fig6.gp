# ALock Fig. 6: latency CDF of lock+unlock, one panel per (locality, locks).
load "plots/common.gp"
if (!exists("locks")) locks = system(netmem . " table " . in . " --values locks")
if (!exists("locality")) {
  asc = system(netmem . " table " . in . " --values p_local")
  locality = ""
  do for [i = words(asc):1:-1] { locality = locality . word(asc, i) . " " }
}
set terminal @term size (words(locks) < 2 ? 840 : 420*words(locks)),300*words(locality) font ",9"
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
