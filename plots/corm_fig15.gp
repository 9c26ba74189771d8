# CoRM Fig. 15 (Sec. 4.3.1): one object per server worker, then one
# compaction. Left: the block collection (a request to every worker, each
# answering with its one block) against the workers, one line per host CPU
# (the server's, rank 0's cpu_model: the paper's panel sets an Intel Xeon
# cluster against an AMD EPYC one; a run draws its own, `netmem compare` of
# two runs draws them together with plots/corm_fig15_compare.gp), the mean
# over the remap strategies, which the collection does not depend on (it
# remaps nothing); center: the block compaction (workers - 1 merges)
# against the blocks, one per worker, a line per remap strategy; both with
# the smallest block size (4 KiB). Right: the compaction of one block (the
# fewest workers: 2 in the paper's config) against the block size, a line
# per strategy. Medians of the point's compactions.
#   gnuplot -e "in='results/quick/corm-fig15.json'; out='results/quick/corm-fig15.png'" plots/corm_fig15.gp
load "plots/common.gp"
set terminal @term size 1500,520 font ",11"
set output out
set multiplot layout 1,3 title "CoRM Fig. 15: collection and compaction latency\n{/*0.8 " . hw . "}"
small = system(netmem . " table " . in . " --values block_size | awk '{print $1}'")
few = system(netmem . " table " . in . " --values threads | awk '{print $1}'")
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
set key autotitle columnheader
set ylabel "latency (us)"
set xlabel "worker threads"
eval int_xtics("threads")
set title "block collection (" . small . " B blocks), per host CPU"
plot for [i=0:*] "< " . netmem . " table " . in . " --x threads --y collect_us --series cpu_model --mean-over strategy --where block_size=" . small \
  index i using 1:2 with linespoints lw 2 title columnheader(2) noenhanced
set xlabel "blocks compacted (one per worker)"
set title "block compaction (" . small . " B blocks)"
plot for [i=0:*] "< " . netmem . " table " . in . " --x threads --y compact_us --series strategy --where block_size=" . small \
  index i using 1:2 with linespoints lw 2 title columnheader(2)
set logscale x 2
eval int_xtics("block_size")
set xlabel "block size (bytes)"
set title "one compaction of " . few . " workers' blocks (" . (few - 1) . " merged)"
plot for [i=0:*] "< " . netmem . " table " . in . " --x block_size --y compact_us --series strategy --where threads=" . few \
  index i using 1:2 with linespoints lw 2 title columnheader(2)
unset multiplot
