# Atomic latency: median and p99 per op, as bars.
load "plots/common.gp"
set title "RDMA atomic latency (median, p99)\n{/*0.8 " . hw . "}"
set ylabel "latency (us)"
set style data histograms
set style fill solid 0.6 border -1
set yrange [0:*]
set xtics ("p50" 0, "p99" 1)
tab(m) = "< " . netmem . " table " . in . " --x size --y " . m . " --series op"
plot for [i=0:1] tab("lat.p50") index i using (i):2 with boxes title columnheader(2) . " p50", \
     for [i=0:1] tab("lat.p99") index i using (i+2.5):2 with boxes title columnheader(2) . " p99"
