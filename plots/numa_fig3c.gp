# NUMA Fig. 3, per connection (the paper's text: "the first seven QPs created
# have lower average latency than the remainder" beyond 8 QPs): each
# connection's own mean latency, in the order the connections were created,
# at the largest connection count (threads x --qp) of the document, one line
# per (op, buffer placement). Rank 0 is the client. With several QPs per
# thread the connections are metrics.per_qp (created by target, thread, QP);
# with --qp 1 and one target a connection is a thread: metrics.per_thread.
#   gnuplot -e "in='results/paper/numa-fig3.json'; out='results/paper/numa-fig3c.png'" plots/numa_fig3c.gp
load "plots/numa_common.gp"
nconn_jq = "(.params.threads * (.params.qp // 1))"
nmax = int(system("jq '[.points[] | select(.skipped | not) | " . nconn_jq . "] | max // 1' " . in))
set title "Mean latency per connection at " . nmax . " connections, 64 B (NUMA Fig. 3)\n" . numa_sub
set xlabel "connection (creation order)"
set ylabel "mean latency (us)"
set key top left
set xrange [-0.5:nmax - 0.5]
# connections are whole numbers: ticks on integers only, at most ~16 of them
set xtics 0, (nmax <= 16 ? 1 : int(ceil(nmax / 16.0)))
set mxtics 1
conn(op, buf) = "< jq -r '[.points[] | select(" . nconn_jq . " == " . nmax . " and .params.op == \"" . op . "\" and .params.buf_node == \"" . buf . "\" and (.skipped | not))] | .[0].metrics | (.per_qp // .per_thread // []) | map(select(.rank == 0)) | sort_by([.target // 0, .thread, .qp // 0]) | to_entries[] | \"\\(.key) \\(.value.lat_mean_us)\"' " . in
# one line per (op, buffer placement) the document has at nmax connections
pairs = system("jq -r '[.points[] | select((.skipped | not) and " . nconn_jq . " == " . nmax . ") | \"\\(.params.op):\\(.params.buf_node)\"] | unique | join(\" \")' " . in)
op_of(p) = p[1:strstrt(p, ":") - 1]
buf_of(p) = p[strstrt(p, ":") + 1:]
place(b) = b eq "nic" ? "RDMA-local" : b eq "other" ? "RDMA-remote" : "buffer on node " . b
label(p) = (op_of(p) eq "read" ? "READ" : op_of(p) eq "write" ? "WRITE" : op_of(p)) . ", " . place(buf_of(p))
pt_of(p) = (op_of(p) eq "read" ? 7 : 5) - (buf_of(p) eq "nic" ? 0 : 1)
dt_of(p) = buf_of(p) eq "nic" ? 1 : 2
plot for [i = 1:words(pairs)] conn(op_of(word(pairs, i)), buf_of(word(pairs, i))) using 1:2 with linespoints \
     lw 2 pt pt_of(word(pairs, i)) dt dt_of(word(pairs, i)) title label(word(pairs, i))
