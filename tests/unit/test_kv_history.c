/* netmem kv --history's file across jobs (workloads/kv/kv_history.h): a
 * fresh job's first point starts it anew, later points append; a job that
 * resumes a document appends from its first point on, so the points folded
 * in from the earlier job keep their history. In a fresh mkdtemp directory. */
#include "kv_history.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H(n) "{\"history\":\"netmem kv\",\"point\":" #n "}\n{\"op\":\"get\"}\n"

int main(void)
{
	char dir[256], path[512];
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/nm-kvhist-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/h.jsonl", dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs("an older job's history\n", f) < 0 || fclose(f) != 0)
		return 1;

	bool started = false;
	CHECK(kv_history_put(path, H(1), false, &started) == 0 && tap_file_holds(path, H(1)),
	      "a fresh job's first point starts the file anew");
	CHECK(kv_history_put(path, H(2), false, &started) == 0 && tap_file_holds(path, H(1) H(2)), "its next point appends");

	started = false; /* a second job, resuming the document of the first */
	CHECK(kv_history_put(path, H(3), true, &started) == 0 && tap_file_holds(path, H(1) H(2) H(3)),
	      "a resumed job's first point appends: the earlier points keep their history");
	CHECK(kv_history_put(path, H(4), true, &started) == 0 && tap_file_holds(path, H(1) H(2) H(3) H(4)),
	      "and so does its next");

	started = false; /* a third, fresh job */
	CHECK(kv_history_put(path, H(5), false, &started) == 0 && tap_file_holds(path, H(5)), "a fresh job starts anew again");

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
