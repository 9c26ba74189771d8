# LOCO Fig. 7: the DC/DC converter system's output voltage (the sum of the
# converters' latest voltages as the controller saw them) over time, one
# line per controller period T. Top: the whole run, each line the minimum
# and maximum of the output per bucket, so an oscillation faster than a
# bucket shows as its envelope; bottom: the first 20 ms at the controller's
# own resolution (the start-up transients the paper says are too brief to
# see on the full axis). The dashed line is the reference.
#   gnuplot -e "in='results/quick/loco-fig7.json'; out='results/quick/loco-fig7.png'" plots/loco_fig7.gp
load "plots/common.gp"
vref = system("jq '[.points[].effective.vref_total] | first // 0' " . in) + 0
tab(m) = "< " . netmem . " table " . in . " --cdf " . m . " --series period_us 2>/dev/null"
set multiplot layout 2,1 title "LOCO Fig. 7: output voltage vs time per controller period T\n{/*0.8 " . hw . "}"
set key outside right top title "T (us)" autotitle columnheader
set rmargin at screen 0.87
set ylabel "output voltage (V)"
set xlabel "time (s)"
if (vref > 0) set arrow 1 from graph 0, first vref to graph 1, first vref nohead dt 2 lc "black"
plot for [i=0:*] tab("trace_max") index i using 1:2 with lines lw 1.5 lc i+1 title columnheader(2), \
     for [i=0:*] tab("trace_min") index i using 1:2 with lines lw 1.5 lc i+1 notitle
set xlabel "time (ms), start-up"
set key off
plot for [i=0:*] tab("trace_start") index i using ($1*1e3):2 with lines lw 1.5 lc i+1 notitle
unset multiplot
