# Shared settings. Callers set: in (result document), out (PNG path),
# netmem (path of the binary; default bin/netmem).
if (!exists("netmem")) netmem = "bin/netmem"
set terminal pngcairo size 960,600 font ",11"
set output out
set grid
set key top left
hw = system(netmem . " table " . in . " --describe")
