# CoRM Fig. 19: Fig. 18's drawing of a hybrid run (classes with more slots
# than 2^n IDs compacted by offsets, not left alone; Sec. 4.4.3).
#   bin/netmem corm-sim --mode sweep --redis t1,t2,t3 -b 1M --hybrid -o results/quick/corm-fig19.json
#   gnuplot -e "in='results/quick/corm-fig19.json'; out='results/quick/corm-fig19.png'" plots/corm_fig19.gp
# drawn from: netmem corm-sim
fig = "Fig. 19"
load "plots/corm_fig18.gp"
