/* netmem clover-path's files (clover_path.h): the counters as JSON, and the
 * private directory the suite's side shares with the process. Kept apart from
 * the packet handling, which needs NFQUEUE, so the unit tests reach them. */
#include "clover_path.h"
#include "durable.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- counters as JSON, one named field each ------------------------------------- */

typedef struct ctr_field {
	const char *name;
	size_t off;
} ctr_field;

#define F(x) {#x, offsetof(nm_rw_counters, x)}
static const ctr_field ctr_fields[] = {
	F(packets), F(not_roce), F(passed), F(rewritten), F(writes), F(cas_seen), F(cas_tracked),
	F(conflicts), F(redirected), F(retransmits), F(cas_ok), F(cas_failed), F(stale_tail), F(naks),
	F(nak_resets), F(bad_icrc), F(conn_full),
};
#undef F

static int counters_from_json(const json_t *o, nm_rw_counters *c);
static uint64_t *field(nm_rw_counters *c, const ctr_field *f) { return (uint64_t *)((char *)c + f->off); }

static json_t *counters_json(const nm_rw_counters *c)
{
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof ctr_fields / sizeof ctr_fields[0]; i++)
		json_object_set_new(o, ctr_fields[i].name,
				    json_integer((json_int_t)*field((nm_rw_counters *)c, &ctr_fields[i])));
	return o;
}

json_t *cl_path_stats_json(const cl_path_stats *s)
{
	return json_pack("{s:o, s:I, s:I}", "rewrite", counters_json(&s->rw), "queue_overruns",
			 (json_int_t)s->queue_overruns, "verdict_errors", (json_int_t)s->verdict_errors);
}

int cl_path_stats_from_json(const json_t *o, cl_path_stats *s)
{
	const json_t *ov = json_object_get(o, "queue_overruns"), *ve = json_object_get(o, "verdict_errors");
	if (!json_is_integer(ov) || !json_is_integer(ve))
		return -1;
	s->queue_overruns = (uint64_t)json_integer_value(ov);
	s->verdict_errors = (uint64_t)json_integer_value(ve);
	return counters_from_json(json_object_get(o, "rewrite"), &s->rw);
}

static int counters_from_json(const json_t *o, nm_rw_counters *c)
{
	*c = (nm_rw_counters){0};
	for (size_t i = 0; i < sizeof ctr_fields / sizeof ctr_fields[0]; i++) {
		const json_t *v = json_object_get(o, ctr_fields[i].name);
		if (!json_is_integer(v))
			return -1;
		*field(c, &ctr_fields[i]) = (uint64_t)json_integer_value(v);
	}
	return 0;
}

/* ---- files ------------------------------------------------------------------------ */

int cl_path_write_counters(const char *path, const cl_path_stats *s)
{
	json_t *o = cl_path_stats_json(s);
	if (!o) {
		errno = ENOMEM;
		return -1;
	}
	int rc = nm_write_json_atomic(path, o, JSON_COMPACT);
	int saved = errno;
	json_decref(o);
	errno = saved;
	return rc;
}

int cl_path_files_make(cl_path *p)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(p->dir, sizeof p->dir, "%s/netmem-clover-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir)) {
		p->dir[0] = 0;
		return -1;
	}
	snprintf(p->track, sizeof p->track, "%s/track", p->dir);
	snprintf(p->counters, sizeof p->counters, "%s/counters", p->dir);
	return 0;
}

void cl_path_files_remove(cl_path *p)
{
	if (!p->dir[0])
		return;
	/* Only the two processes write here: whatever is left is theirs. */
	DIR *d = opendir(p->dir);
	struct dirent *de;
	char path[1400];
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", p->dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(p->dir);
	p->dir[0] = 0;
}
