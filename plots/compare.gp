# netmem compare: one experiment's matched points from several runs, a line
# per run (its NIC in the legend). Callers set in (the data file netmem
# compare writes: a block per run, rows "index value label"), out, ttl, ylab,
# and termgp (plots/term.gp, wherever the suite is: netmem compare passes its
# path, so the figure is drawn from any working directory).
# drawn from: netmem compare
if (!exists("netmem")) netmem = "bin/netmem"
if (!exists("termgp")) termgp = "plots/term.gp"
load termgp
set terminal @term size 1100,620 font ",10"
set output out
set title ttl
set ylabel ylab
set logscale y
set grid
set key top left autotitle columnheader
set xtics rotate by 35 right font ",8"
set bmargin 10
plot for [i=0:*] in index i using 1:2:xticlabels(3) with linespoints lw 2 title columnheader(2)
