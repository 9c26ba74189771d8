/* How every job decodes a point before it runs (netmem run, run --check,
 * preflight; experiment.h): the harness's options, then the experiment's.
 * Apart from main.c so that what links the harness without netmem's main
 * (tests/integration/alock_trace.c) decodes configs the same way. */
#include "boot.h"
#include "config.h"
#include "experiment.h"
#include "log.h"
#include "measure.h"
#include "verbs.h"

void nm_base_decode(const json_t *pt, const json_t *run, int nranks, nm_base *b)
{
	*b = (nm_base){
		.nranks = nranks,
		.hosts = nm_boot_hosts(),
		.threads = (int)nm_cfg_int(pt, "threads"),
		.seed = (uint64_t)nm_cfg_int(pt, "seed"),
		.timeout = nm_cfg_double(run, "timeout"),
		.mem_node = (int)nm_cfg_int(pt, "mem_node"),
		.hugepages = nm_cfg_bool(pt, "hugepages"),
		.qp = {.mtu = (int)nm_cfg_int(pt, "mtu"),
		       .max_rd_atomic = (int)nm_cfg_int(pt, "max_rd_atomic"),
		       .timeout = (int)nm_cfg_int(pt, "qp_timeout"),
		       .retry_cnt = (int)nm_cfg_int(pt, "retry_cnt"),
		       .rnr_retry = (int)nm_cfg_int(pt, "rnr_retry"),
		       .max_inline = (int)nm_cfg_int(pt, "inline_size"),
		       .sq_depth = 128},
	};
	b->inline_default = b->qp.max_inline < 0;
	if (b->inline_default)
		b->qp.max_inline = NM_INLINE_LAT;
	/* The measurement options exist where the experiment declares them. */
	nm_measure_cfg *m = &b->measure;
	if (json_object_get(pt, "iters"))
		m->iters = (uint64_t)nm_cfg_int(pt, "iters");
	if (json_object_get(pt, "duration"))
		m->duration = nm_cfg_double(pt, "duration");
	m->warmup = nm_warmup_default(json_object_get(pt, "warmup") ? nm_cfg_int(pt, "warmup") : -1,
				      m->iters, m->duration);
}

int nm_point_decode(const nm_experiment *e, const json_t *pt, const json_t *run, int nranks, const uint64_t *hosts,
		    nm_base *b, void *point, char *err, size_t errlen)
{
	nm_base_decode(pt, run, nranks, b);
	if (hosts)
		b->hosts = hosts;
	if (b->qp.mtu && !nm_mtu_from_bytes(b->qp.mtu))
		return nm_errf(err, errlen, "option --mtu: %d is not one of 256, 512, 1024, 2048, 4096", b->qp.mtu);
	if (errlen)
		err[0] = 0;
	if (e->decode && e->decode(pt, b, point, err, errlen) != 0) {
		if (errlen && !err[0])
			nm_errf(err, errlen, "the point does not decode");
		return -1;
	}
	return 0;
}
