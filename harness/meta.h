/* Metadata every result document carries: which host, which NIC and port,
 * which software. All builders return new references and never fail the run:
 * a value that cannot be read is JSON null (or "unknown" for version strings),
 * because a result without one field is still worth keeping. */
#ifndef NM_META_H
#define NM_META_H
#include <infiniband/verbs.h>
#include <jansson.h>
#include <stddef.h>

#ifndef NM_VERSION
#define NM_VERSION "unknown"
#endif
#ifndef NM_GIT
#define NM_GIT "unknown"
#endif
/* A hash of the sources this binary was built from (build/build_id.c, made
 * by the Makefile): what the ranks of a job compare at start-up. */
extern const char nm_build_id[];

/* {"hostname", "kernel", "cpu_vendor", "cpu_model", the memory settings of
 * nm_meta_memory, "cpus", "numa": nm_topo_json(), "nic": nm_meta_nic(ctx,
 * port, gid_index) or null when ctx is NULL}. */
json_t *nm_meta_host(struct ibv_context *ctx, int port, int gid_index);
/* Adds to host the memory settings the NUMA study depends on
 * (harness/meta_mem.c): "transparent_hugepages" {"enabled", "defrag"},
 * "numa_balancing" and "ddio" {"state", "source"?, ...}; vendor is the
 * CPU's (cpu_vendor), or NULL. */
void nm_meta_memory(json_t *host, const char *vendor);
/* The first line of a small file, trimmed. 0 / -1. */
int nm_meta_read_line(const char *path, char *buf, size_t len);

/* nm_meta_nic_device() + nm_meta_nic_port() + {"gid_index", "gid"}; gid is
 * null when gid_index < 0 or the entry cannot be read. */
json_t *nm_meta_nic(struct ibv_context *ctx, int port, int gid_index);

/* Device-wide fields: {"device", "vendor_id", "vendor_part_id", "hw_ver",
 * "fw_ver", "node_guid", "numa_node", "emulated", "driver", "max_qp_rd_atom",
 * "max_qp_init_rd_atom", "atomic_cap", "max_mr_size", "max_qp_wr",
 * "max_cqe"}. max_mr_size becomes a real when it exceeds INT64_MAX (rxe
 * reports UINT64_MAX). driver is "rxe"/"siw" for software devices. */
json_t *nm_meta_nic_device(struct ibv_context *ctx);

/* Port fields: {"port", "state" (ibv_port_state_str: "active", "down", ...),
 * "link_layer", "active_mtu", "active_speed_gbps" (per lane), "active_width"
 * (lanes), "link_gbps"}; everything but "port" is null if the port cannot be
 * queried. */
json_t *nm_meta_nic_port(struct ibv_context *ctx, int port);

/* {"suite", "version", "git_commit", "rdma_core", "mpi", "compiler",
 *  "clock": {"source", "hz", "ticks_per_ns", "reference", "calibrations",
 *  "spread", "tolerance", "requested", "tsc_invariant_flags", "read_ns",
 *  "why"}}. Does not need MPI_Init. */
json_t *nm_meta_software(void);

/* Current UTC time as "2026-11-21T20:15:03Z"; malloc'd, NULL on failure. */
char *nm_iso8601_now(void);
/* 0 when new_run (a run's metadata) has the hosts and, rank by rank, the NIC
 * device, part and firmware of old_run; else -1 and why. One document holds
 * one NIC: --resume elsewhere is refused. */
int nm_meta_same_nics(const json_t *old_run, const json_t *new_run, char *why, size_t len);

/* A GID of the form ::ffff:a.b.c.d (RoCE over IPv4). */
int nm_gid_is_ipv4_mapped(const union ibv_gid *g);
/* IPv6 text form of the GID ("fe80::...", "::ffff:10.0.0.1"); an empty
 * string if len is too small (46 bytes always suffice). */
void nm_gid_to_str(const union ibv_gid *g, char *buf, size_t len);
#endif
