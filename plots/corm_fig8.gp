# CoRM Fig. 8: what restoring one-sided access after a block remap costs, per
# strategy, vs block size: left the remap (mmap MAP_FIXED + the strategy's
# NIC step: rereg, nothing under ODP, prefetch, or dereg + reg with new keys),
# right the first READ after it minus a steady READ (ODP: the NIC faults the
# new page in; the paper: +63 us on ConnectX-5). Strategies the device lacks
# were skipped points and have no line.
#   gnuplot -e "in='results/quick/corm-fig8.json'; out='results/quick/corm-fig8.png'" plots/corm_fig8.gp
load "plots/common.gp"
set terminal @term size 1200,520 font ",11"
set output out
set multiplot layout 1,2 title "CoRM Fig. 8: remapping a block while keeping RDMA access\n{/*0.8 " . hw . "}"
set logscale x 2
eval int_xtics("block_size")
set xlabel "block size (bytes)"
set key autotitle columnheader
set title "remap: mmap + NIC step (median)"
set logscale y
set ylabel "latency (us)"
plot for [i=0:*] "< " . netmem . " table " . in . " --x block_size --y remap_us --series strategy" index i \
  using 1:2 with linespoints lw 2 title columnheader(2)
set title "first READ after the remap minus a steady READ (medians)"
unset logscale y
set yrange [*:*]
set ylabel "penalty (us)"
plot for [i=0:*] "< " . netmem . " table " . in . " --x block_size --y first_read_penalty_us --series strategy" index i \
  using 1:2 with linespoints lw 2 title columnheader(2)
unset multiplot
