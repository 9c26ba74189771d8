# Joins two series of `netmem table ... --series buf_node` output by x and
# prints "x 100*(1 - NUM/DEN)": the paper's "% improvement" / "speedup".
#   Fig. 3b (latency, lower is better):   -v num=nic   -v den=other
#   Fig. 5  (throughput, higher is better): -v num=other -v den=nic
# Optional -v xmax=16 keeps x <= 16. Rows with only one side are left out.
NF == 2 && $1 !~ /^[-+0-9.eE]+$/ { series = $2; next }
NF == 2 { v[series, $1] = $2; xs[$1] = 1 }
END {
	n = 0
	for (x in xs) list[++n] = x + 0
	for (i = 2; i <= n; i++)            # insertion sort: x ascending
		for (k = i; k > 1 && list[k] < list[k - 1]; k--) { t = list[k]; list[k] = list[k - 1]; list[k - 1] = t }
	for (i = 1; i <= n; i++) {
		x = list[i]
		if (xmax != "" && x > xmax + 0) continue
		if (((num, x) in v) && ((den, x) in v) && v[den, x] != 0)
			printf "%s %.6g\n", x, 100 * (1 - v[num, x] / v[den, x])
	}
}
