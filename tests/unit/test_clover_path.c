/* The files netmem clover shares with clover-path, both running as root
 * (clover_path.h): they live in a private directory (mode 0700, ours), not
 * in $TMPDIR itself, and the counters are written atomically, so a symlink
 * planted at the old predictable temp name (COUNTERS.tmp) is not followed;
 * the counters read back as written; removing the files leaves nothing. */
#include "clover_path.h"
#include "tap.h"
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	char tmp[256];
	const char *t = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/nm-clpath-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp))
		return 1;
	/* the $TMPDIR the files would be made in, shared with every user */
	if (chmod(tmp, 01777) != 0 || setenv("TMPDIR", tmp, 1) != 0)
		return 1;

	cl_path p = {0};
	CHECK(cl_path_files_make(&p) == 0, "the private directory made (%s)", p.dir);
	struct stat st;
	char copy[1100];
	snprintf(copy, sizeof copy, "%s", p.counters);
	const char *parent = dirname(copy);
	CHECK(stat(parent, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 && st.st_uid == geteuid(),
	      "the counters' directory is private: mode 0700, ours (%s, %o)", parent, (unsigned)(st.st_mode & 07777));
	CHECK(strcmp(parent, tmp) != 0 && strncmp(p.track, parent, strlen(parent)) == 0,
	      "the counters and the track file are in it, not in $TMPDIR itself");

	/* what the process writes, with a symlink at the old temp name */
	char victim[512], planted[1200];
	snprintf(victim, sizeof victim, "%s/victim", tmp);
	FILE *f = fopen(victim, "w");
	if (!f || fputs("root's file\n", f) < 0 || fclose(f) != 0)
		return 1;
	snprintf(planted, sizeof planted, "%s.tmp", p.counters);
	CHECK(symlink(victim, planted) == 0, "a symlink planted at %s", planted);
	cl_path_stats s = {.queue_overruns = 3, .verdict_errors = 1}, back;
	s.rw.packets = 1000;
	s.rw.cas_seen = 77;
	s.rw.conn_full = 2;
	CHECK(cl_path_write_counters(p.counters, &s) == 0, "the counters written");
	CHECK(tap_file_holds(victim, "root's file\n"), "the planted symlink was not followed");
	json_error_t je;
	json_t *o = json_load_file(p.counters, 0, &je);
	CHECK(o && cl_path_stats_from_json(o, &back) == 0 && !memcmp(&back, &s, sizeof s),
	      "the counters read back as written");
	json_decref(o);

	cl_path_files_remove(&p);
	CHECK(access(parent, F_OK) != 0 && errno == ENOENT && !p.dir[0], "removing the files removes the directory");
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
