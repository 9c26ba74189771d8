# NUMA section V-C: client throughput while an independent load process runs
# on the server, vs the load's buffer size; one panel per (op, size), one line
# per (buffer placement, load placement); dotted lines: the no-load baseline
# from `base` (the numa-fig4 document: same settings), when given.
#   gnuplot -e "in='results/paper/numa-vc.json'; base='results/paper/numa-fig4.json'; out='results/paper/numa-vc.png'" plots/numa_vc.gp
load "plots/numa_common.gp"
if (!exists("base")) base = ""
set terminal @term size 1200,900 font ",10"
set output out
sizes = system(netmem . " table " . in . " --values size")
ops = "read write"
set multiplot layout words(sizes),2 title "Throughput under an independent load (NUMA section V-C)\n" . numa_sub
set xlabel "load buffer (bytes)"
set logscale x 10
set ylabel "client throughput (Mops/s)"
set key bottom left font ",8"
lt(o, s, b, l) = "< " . netmem . " table " . in . " --x load_buf --y mops --where op=" . o . " --where size=" . s . " --where buf_node=" . b . " --where load_node=" . l . " 2>/dev/null"
# the baseline at this document's MTU (numa-fig4 sweeps MTUs)
vc_mtu = system("jq -r '[.spec.mtu] | flatten | .[0]' " . in)
basecmd(o, s, b) = (base eq "") ? "true" : netmem . " table " . base . " --x size --y mops --where op=" . o . " --where buf_node=" . b . " --where mtu=" . vc_mtu . " 2>/dev/null | awk '$1 == " . s . " {print $2}' | head -1"
num(v) = strlen(v) > 0 ? real(v) : NaN
do for [s in sizes] {
  do for [o in ops] {
    set title sprintf("%s, %s B", o, s)
    bl = num(system(basecmd(o, s, "nic"))); br = num(system(basecmd(o, s, "other")))
    plot lt(o, s, "nic", "any") using 1:2 with linespoints lw 2 pt 7 lc 1 title "local buf, agnostic load", \
         lt(o, s, "other", "any") using 1:2 with linespoints lw 2 pt 6 lc 2 dt 2 title "remote buf, agnostic load", \
         lt(o, s, "nic", "nic") using 1:2 with linespoints lw 1 pt 5 lc 3 title "local buf, load on NIC node", \
         lt(o, s, "other", "nic") using 1:2 with linespoints lw 1 pt 4 lc 4 dt 2 title "remote buf, load on NIC node", \
         lt(o, s, "nic", "other") using 1:2 with linespoints lw 1 pt 9 lc 5 title "local buf, load on other node", \
         lt(o, s, "other", "other") using 1:2 with linespoints lw 1 pt 8 lc 6 dt 2 title "remote buf, load on other node", \
         bl with lines lc 1 dt 3 title "no load, local buf", \
         br with lines lc 2 dt 3 title "no load, remote buf"
  }
}
unset multiplot
