/* NIC counters around a point (nic_counters.h). */
#include "nic_counters.h"
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nm_nic_counters_dir(const char *dev, int port, char *out, size_t len)
{
	snprintf(out, len, "/sys/class/infiniband/%s/ports/%d/hw_counters", dev, port);
}

void nm_nic_counters_read_dir(const char *dir, nm_nic_counters *c)
{
	c->n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *ent;
	while ((ent = readdir(d)) && c->n < NM_NIC_MAX_COUNTERS) {
		if (ent->d_name[0] == '.' || strlen(ent->d_name) >= sizeof c->name[0])
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		uint64_t v;
		if (fscanf(f, "%" SCNu64, &v) == 1) {
			memcpy(c->name[c->n], ent->d_name, strlen(ent->d_name) + 1); /* length checked above */
			c->val[c->n++] = v;
		}
		fclose(f);
	}
	closedir(d);
}

json_t *nm_nic_counters_delta(const nm_nic_counters *before, const nm_nic_counters *after)
{
	json_t *o = json_object();
	for (int i = 0; i < after->n; i++)
		for (int k = 0; k < before->n; k++)
			if (!strcmp(after->name[i], before->name[k])) {
				if (after->val[i] > before->val[k])
					json_object_set_new(o, after->name[i],
							    json_integer((json_int_t)(after->val[i] - before->val[k])));
				break;
			}
	return o;
}

void nm_nic_counters_merge(json_t *sum, const json_t *add)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)add, k, v) {
		if (!json_is_integer(v))
			continue;
		json_t *s = json_object_get(sum, k);
		json_int_t base = s ? json_integer_value(s) : 0;
		json_object_set_new(sum, k, json_integer(base + json_integer_value(v)));
	}
}

bool nm_nic_counter_is_retry(const char *name)
{
	/* mlx5: out_of_sequence, packet_seq_err, local_ack_timeout_err,
	 * implied_nak_seq_err, duplicate_request, rnr_nak_retry_err;
	 * rxe: duplicate_request, out_of_seq_request, rcvd_seq_err,
	 * completer_retry_err, retry_exceeded_err, retry_rnr_exceeded_err */
	static const char *keys[] = {"duplicate", "seq", "retry", "ack_timeout"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (strstr(name, keys[i]))
			return true;
	return false;
}
