# NUMA Fig. 2: memory latency (ns) between every pair of NUMA nodes, as a
# heat map with the values written in: rows the node of the CPU, columns the
# node of the memory; the diagonal is NUMA-local. The last valid point of
# the document (with repetitions: their geometric mean per pair).
#   gnuplot -e "in='results/paper/numa-matrix.json'; out='results/paper/numa-matrix.png'" plots/numa_matrix.gp
load "plots/common.gp"
set terminal @term size 760,640 font ",11"
set output out
n = int(system("jq '[.points[] | select(.valid)] | last | .metrics.nodes | length' " . in))
set title "Memory latency between NUMA nodes, ns (NUMA Fig. 2)\n{/*0.8 " . hw . "}"
# "col row ns" per pair; the mean over valid repetitions from the summary's geomean
cells = "< jq -r '([.points[] | select(.valid)] | last | .metrics.nodes) as $n | (.summary | map(select(.valid)) | last | .geomean) as $g | range(0; $n | length) as $i | range(0; $n | length) as $j | \"\\($j) \\($i) \\($g[\"latency_ns.\\($n[$i]).\\($n[$j])\"] // \"NaN\")\"' " . in
set xlabel "memory node"
set ylabel "CPU node"
set xrange [-0.5:n - 0.5]
set yrange [n - 0.5:-0.5]
set xtics 1
set ytics 1
set cblabel "ns"
set palette defined (0 "#ffffcc", 1 "#fd8d3c", 2 "#800026")
unset key
set view map
plot cells using 1:2:3 with image, cells using 1:2:(sprintf("%.1f", $3)) with labels font ",12"
