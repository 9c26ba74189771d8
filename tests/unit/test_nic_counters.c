/* NIC counters around a point (harness/nic_counters.h): reading a sysfs-like
 * directory, deltas, merging over hosts, and which names mean retries. */
#include "nic_counters.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[] = "/tmp/nm-nic-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0, "temporary directory");
		return tap_done();
	}
	put(dir, "duplicate_request", "5\n");
	put(dir, "sent_pkts", "1000\n");
	put(dir, "rcvd_seq_err", "0\n");
	put(dir, "garbage", "not a number\n");
	nm_nic_counters a, b;
	nm_nic_counters_read_dir(dir, &a);
	CHECK(a.n == 3, "three numeric counters read, the unparsable file skipped (%d)", a.n);
	put(dir, "duplicate_request", "7\n");
	put(dir, "sent_pkts", "1500\n");
	nm_nic_counters_read_dir(dir, &b);
	json_t *d = nm_nic_counters_delta(&a, &b);
	CHECK(json_object_size(d) == 2, "two counters moved");
	CHECK(json_integer_value(json_object_get(d, "duplicate_request")) == 2 &&
	      json_integer_value(json_object_get(d, "sent_pkts")) == 500, "deltas are after - before");
	CHECK(!json_object_get(d, "rcvd_seq_err"), "unchanged counters are left out");
	put(dir, "sent_pkts", "10\n");
	nm_nic_counters c;
	nm_nic_counters_read_dir(dir, &c);
	json_t *d2 = nm_nic_counters_delta(&b, &c);
	CHECK(!json_object_get(d2, "sent_pkts"), "a counter that went back (reset) is left out");
	json_t *sum = json_object();
	nm_nic_counters_merge(sum, d);
	nm_nic_counters_merge(sum, d);
	CHECK(json_integer_value(json_object_get(sum, "sent_pkts")) == 1000, "merging two hosts sums by name");
	nm_nic_counters none;
	nm_nic_counters_read_dir("/nonexistent/hw_counters", &none);
	CHECK(none.n == 0, "a missing directory gives no counters");
	CHECK(nm_nic_counter_is_retry("duplicate_request") && nm_nic_counter_is_retry("out_of_sequence") &&
	      nm_nic_counter_is_retry("local_ack_timeout_err") && nm_nic_counter_is_retry("completer_retry_err") &&
	      nm_nic_counter_is_retry("packet_seq_err"), "retry counters of mlx5 and rxe are recognised");
	CHECK(!nm_nic_counter_is_retry("sent_pkts") && !nm_nic_counter_is_retry("rx_atomic_requests") &&
	      !nm_nic_counter_is_retry("rdma_sends"), "traffic counters are not retries");
	char path[256];
	nm_nic_counters_dir("rxe0", 1, path, sizeof path);
	CHECK(!strcmp(path, "/sys/class/infiniband/rxe0/ports/1/hw_counters"), "sysfs path of a port");
	json_decref(d);
	json_decref(d2);
	json_decref(sum);
	const char *names[] = {"duplicate_request", "sent_pkts", "rcvd_seq_err", "garbage"};
	for (size_t i = 0; i < 4; i++) {
		char p[512];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return tap_done();
}
