#include "place.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nm_place_parse(const char *s, nm_place *p, const char *what, char *err, size_t errlen)
{
	p->node = -1;
	if (!strcmp(s, "any")) {
		p->kind = NM_PLACE_ANY;
		return 0;
	}
	if (!strcmp(s, "nic")) {
		p->kind = NM_PLACE_NIC;
		return 0;
	}
	if (!strcmp(s, "other")) {
		p->kind = NM_PLACE_OTHER;
		return 0;
	}
	char *end;
	long n = strtol(s, &end, 10);
	if (*s >= '0' && *s <= '9' && !*end && n >= 0 && n <= NM_NUMA_MAX_ID) {
		p->kind = NM_PLACE_NODE;
		p->node = (int)n;
		return 0;
	}
	snprintf(err, errlen, "option %s: '%s' is not nic, other, any or a NUMA node number (0..%d)",
		 what, s, NM_NUMA_MAX_ID);
	return -1;
}

const char *nm_place_str(const nm_place *p, char *buf, size_t len)
{
	switch (p->kind) {
	case NM_PLACE_ANY: snprintf(buf, len, "any"); break;
	case NM_PLACE_NIC: snprintf(buf, len, "nic"); break;
	case NM_PLACE_OTHER: snprintf(buf, len, "other"); break;
	case NM_PLACE_NODE: snprintf(buf, len, "%d", p->node); break;
	}
	return buf;
}

int nm_view_index(const nm_numa_view *v, int id)
{
	for (int i = 0; i < v->nnodes; i++)
		if (v->node[i].id == id)
			return i;
	return -1;
}

int nm_view_nic_node(const nm_numa_view *v, bool *assumed)
{
	if (v->nic_node >= 0 && nm_view_index(v, v->nic_node) >= 0) {
		*assumed = false;
		return v->nic_node;
	}
	*assumed = true;
	return v->node[0].id;
}

static bool fits(const nm_numa_node *n, nm_place_need need)
{
	return need == NM_NEED_MEMORY ? n->has_memory : n->ncpus > 0;
}

static const char *need_word(nm_place_need need) { return need == NM_NEED_MEMORY ? "memory" : "CPUs"; }

static void node_list(const nm_numa_view *v, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < v->nnodes && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "", v->node[i].id);
}

int nm_place_resolve(const nm_place *p, const nm_numa_view *v, nm_place_need need, int *node,
		     const char *what, char *why, size_t whylen)
{
	char nodes[256];
	const char *host = v->hostname[0] ? v->hostname : "this host";
	bool assumed;
	node_list(v, nodes, sizeof nodes);
	*node = -1;
	switch (p->kind) {
	case NM_PLACE_ANY:
		return 0;
	case NM_PLACE_NODE: {
		int i = nm_view_index(v, p->node);
		if (i < 0) {
			snprintf(why, whylen, "%s %d: NUMA node %d does not exist on %s (it has %d node%s: %s)",
				 what, p->node, p->node, host, v->nnodes, v->nnodes == 1 ? "" : "s", nodes);
			return -1;
		}
		if (!fits(&v->node[i], need)) {
			snprintf(why, whylen, "%s %d: NUMA node %d on %s has no %s", what, p->node, p->node,
				 host, need_word(need));
			return -1;
		}
		*node = p->node;
		return 0;
	}
	case NM_PLACE_NIC: {
		int id = nm_view_nic_node(v, &assumed);
		if (!fits(&v->node[nm_view_index(v, id)], need)) {
			snprintf(why, whylen, "%s nic: the NIC's NUMA node %d on %s has no %s", what, id, host,
				 need_word(need));
			return -1;
		}
		*node = id;
		return 0;
	}
	case NM_PLACE_OTHER: {
		int nic = nm_view_nic_node(v, &assumed), ni = nm_view_index(v, nic);
		if (v->nnodes < 2) {
			snprintf(why, whylen, "%s other: %s has one NUMA node (%d), so there is no node other "
				 "than the NIC's", what, host, nic);
			return -1;
		}
		int best = -1, best_d = 0;
		for (int i = 0; i < v->nnodes; i++) {
			if (i == ni || !fits(&v->node[i], need))
				continue;
			int d = v->dist[ni][i] > 0 ? v->dist[ni][i] : 1000;
			if (best < 0 || d < best_d) {
				best = i;
				best_d = d;
			}
		}
		if (best < 0) {
			snprintf(why, whylen, "%s other: no NUMA node on %s other than the NIC's (%d) has %s",
				 what, host, nic, need_word(need));
			return -1;
		}
		*node = v->node[best].id;
		return 0;
	}
	}
	snprintf(why, whylen, "%s: unknown placement", what);
	return -1;
}
