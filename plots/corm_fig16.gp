# CoRM Fig. 16 (Sec. 4.3.2): read throughput of an RPC client and a
# DirectRead client side by side, before, during and after a compaction
# (dashed: when it began; dotted: when it ended). Top: the server finds
# moved objects by thread messaging, DirectRead falls back to ScanRead (in);
# bottom: the server scans blocks, DirectRead falls back to RPC (scan).
#   gnuplot -e "in='results/quick/corm-fig16.json'; scan='results/quick/corm-fig16-scan.json'; out='results/quick/corm-fig16.png'" plots/corm_fig16.gp
load "plots/common.gp"
set terminal @term size 960,820 font ",11"
set output out
set multiplot layout 2,1 title "CoRM Fig. 16: read throughput around a compaction\n{/*0.8 " . hw . "}"
set xlabel "time (s)"
set ylabel "reads/s"
set yrange [0:*]
set key autotitle columnheader
# panel DOC TITLE: both clients' series, the compaction's start and end
panel(doc, t) = sprintf("set title '%s'; at = system(netmem . ' table %s --values compact_at'); " . \
  "end = system(netmem . ' table %s --x compact_at --y compaction.ended_at_s | awk \"NR==2{print \\$2}\"'); " . \
  "unset arrow; set arrow from first at+0, graph 0 to first at+0, graph 1 nohead dt 2; " . \
  "if (end ne '' && end+0 >= 0) { set arrow from first end+0, graph 0 to first end+0, graph 1 nohead dt 3 }", t, doc, doc)
eval panel(in, "thread messaging; DirectRead falls back to ScanRead")
plot "< " . netmem . " table " . in . " --cdf series_rpc" using 1:2 with lines lw 2 title "RPC client", \
     "< " . netmem . " table " . in . " --cdf series_direct" using 1:2 with lines lw 2 title "DirectRead client"
eval panel(scan, "block scan; DirectRead falls back to RPC")
plot "< " . netmem . " table " . scan . " --cdf series_rpc" using 1:2 with lines lw 2 title "RPC client", \
     "< " . netmem . " table " . scan . " --cdf series_direct" using 1:2 with lines lw 2 title "DirectRead client"
unset multiplot
