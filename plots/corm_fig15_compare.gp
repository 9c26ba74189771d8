# CoRM Fig. 15's left panel over several runs (Sec. 4.3.1: the block
# collection of an Intel Xeon cluster against an AMD EPYC one): the
# collection against the server's workers, one line per host CPU (rank 0's
# cpu_model, the server's), the mean over the remap strategies (the
# collection remaps nothing), with each run's smallest block size. netmem
# compare draws it when the runs all hold corm-fig15; it sets in (the runs'
# documents, shell words), out, netmem (its binary, a shell word) and
# termgp (plots/term.gp, wherever the suite is).
# drawn from: netmem compare
load termgp
set terminal @term size 760,520 font ",11"
set output out
set title "CoRM Fig. 15 (left): block collection per host CPU"
small = system(netmem . " table " . in . " --values block_size | awk '{print $1}'")
set grid
set key top left
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
set ylabel "latency (us)"
set xlabel "worker threads"
xvals = system(netmem . " table " . in . " --values threads")
set xtics ()
do for [xv in xvals] { set xtics add (xv xv + 0) }
set mxtics 1
plot for [i=0:*] "< " . netmem . " table " . in . " --x threads --y collect_us --series cpu_model --mean-over strategy --where block_size=" . small \
  index i using 1:2 with linespoints lw 2 title columnheader(2) noenhanced
