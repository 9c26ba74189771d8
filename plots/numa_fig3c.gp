# NUMA Fig. 3, per connection (the paper's text: "the first seven QPs created
# have lower average latency than the remainder" beyond 8 QPs): each
# connection's own mean latency, in the order the connections were created,
# at the largest connection count of the document, one line per (op, buffer
# placement). A connection is one client thread with one QP (--qp 1, one
# target): metrics.per_thread of rank 0, the client.
#   gnuplot -e "in='results/paper/numa-fig3.json'; out='results/paper/numa-fig3c.png'" plots/numa_fig3c.gp
load "plots/numa_common.gp"
nmax = system("jq '[.points[] | select(.skipped | not) | .params.threads] | max // 1' " . in)
set title "Mean latency per connection at " . nmax . " connections, 64 B (NUMA Fig. 3)\n" . numa_sub
set xlabel "connection (creation order)"
set ylabel "mean latency (us)"
set key top left
set xrange [-0.5:nmax - 0.5]
conn(op, buf) = "< jq -r '[.points[] | select(.params.threads == " . nmax . " and .params.op == \"" . op . "\" and .params.buf_node == \"" . buf . "\" and (.skipped | not))] | .[0].metrics.per_thread // [] | .[] | select(.rank == 0) | \"\\(.thread) \\(.lat_mean_us) \\(.lat_stdev_us)\"' " . in
plot conn("read", "nic") using 1:2 with linespoints lw 2 pt 7 title "READ, RDMA-local", \
     conn("read", "other") using 1:2 with linespoints lw 2 pt 6 dt 2 title "READ, RDMA-remote", \
     conn("write", "nic") using 1:2 with linespoints lw 2 pt 5 title "WRITE, RDMA-local", \
     conn("write", "other") using 1:2 with linespoints lw 2 pt 4 dt 2 title "WRITE, RDMA-remote"
