# Shared settings. Callers set: in (result document), out (PNG path),
# netmem (path of the binary; default bin/netmem).
if (!exists("netmem")) netmem = "bin/netmem"
load "plots/term.gp"
set terminal @term size 960,600 font ",11"
set output out
set grid
set key top left
hw = system(netmem . " table " . in . " --describe")
# eval int_xtics("PARAM"): an integer x axis ticked at the measured values of
# PARAM only (never 1.5 threads).
int_xtics(p) = "xvals = system(netmem . ' table ' . in . ' --values " . p . "'); set xtics (); do for [xv in xvals] { set xtics add (xv xv+0) }; set mxtics 1"
