# NUMA figures: shared settings on top of common.gp. Callers set in, out.
# numa_note is a second title line when the document's placements are not
# NUMA-real (Soft-RoCE, one node, a NIC without a node): the placement was
# verified, the timings are not NUMA effects.
load "plots/common.gp"
numa_note = system("jq -r '[.points[].placement.numa_real | select(. != null)] | if length > 0 and (all | not) then \"NUMA NOT REAL (emulated NIC or one node): placement verified, timings are not NUMA effects\" else \"\" end' " . in . " 2>/dev/null | head -1")
numa_sub = "{/*0.8 " . hw . "}" . (strlen(numa_note) > 0 ? "\n{/*0.8 " . numa_note . "}" : "")
# numa_where: more `--where K=V` filters for tab() and ratio(), set by a
# script before these are used (numa_fig4.gp keeps MTU 256 of an MTU sweep)
if (!exists("numa_where")) numa_where = ""
# netmem table for one (op, buf_node) series of the document(s) in `in`
tab(x, y, op, buf) = "< " . netmem . " table " . in . " --x " . x . " --y " . y . " --where op=" . op . " --where buf_node=" . buf . " " . numa_where . " 2>/dev/null"
ratio(x, y, op, num, den, xmax) = "< " . netmem . " table " . in . " --x " . x . " --y " . y . " --series buf_node --where op=" . op . " " . numa_where . " 2>/dev/null | awk -f plots/numa_ratio.awk -v num=" . num . " -v den=" . den . " -v xmax=" . xmax
