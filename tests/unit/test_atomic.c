/* The one way the suite writes a file (harness/durable.h): a write that
 * fails half-way (a file-size limit, RLIMIT_FSIZE with SIGXFSZ ignored, so
 * write() fails with EFBIG as on a full disk) leaves the old file whole and
 * no temp file; a pair of files is replaced both or neither; a symlink
 * planted at the target or at the temp file's name is not followed; an
 * append that fails is cut back. Everything happens in a fresh mkdtemp
 * directory. */
#include "durable.h"
#include "tap.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char dir[256];

/* The temp file's name comes from getrandom: this one, in the executable,
 * takes the place of libc's, so a test can know the name in advance and
 * plant something there, as an attacker who guessed it would. */
static int forced = -1; /* >= 0: every byte of the next draws, counting up */
ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	if (forced < 0)
		return syscall(SYS_getrandom, buf, len, flags);
	memset(buf, forced++, len);
	return (ssize_t)len;
}

static int temp_files(void)
{
	DIR *dp = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (dp && (de = readdir(dp)))
		n += strstr(de->d_name, ".tmp.") != NULL;
	if (dp)
		closedir(dp);
	return dp ? n : -1;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static long size_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Files may grow to `bytes` at most from here until unlimit(). */
static struct rlimit saved_limit;
static void limit(long bytes)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_FSIZE, &saved_limit) != 0)
		exit(1);
	r = saved_limit;
	r.rlim_cur = (rlim_t)bytes;
	if (setrlimit(RLIMIT_FSIZE, &r) != 0) {
		perror("setrlimit");
		exit(1);
	}
}
static void unlimit(void)
{
	if (setrlimit(RLIMIT_FSIZE, &saved_limit) != 0)
		exit(1);
}

static char *big_text(size_t n)
{
	char *t = malloc(n + 1);
	if (!t)
		exit(1);
	for (size_t i = 0; i < n; i++)
		t[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	t[n] = 0;
	return t;
}

static void test_replace(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/doc.json", dir);
	put(path, "old\n");
	CHECK(nm_write_atomic(path, "new\n") == 0 && tap_file_holds(path, "new\n") && temp_files() == 0,
	      "a write replaces the file and leaves no temp file");

	char *big = big_text(64 << 10);
	limit(4096);
	errno = 0;
	int rc = nm_write_atomic(path, big);
	int err = errno;
	unlimit();
	CHECK(rc == -1 && err == EFBIG, "a write past the file-size limit fails with EFBIG (%s)", strerror(err));
	CHECK(tap_file_holds(path, "new\n"), "the failed write left the old file whole");
	CHECK(temp_files() == 0, "the failed write left no temp file");

	/* A stream written piece by piece, as the report and the CSV are: the
	 * failure is seen at the commit, with the write's errno. */
	nm_atomic a;
	CHECK(nm_atomic_open(&a, path) == 0 && temp_files() == 1, "a stream's temp file is beside the target");
	limit(4096);
	for (int i = 0; i < 1000; i++)
		fprintf(a.f, "line %d of a long table\n", i);
	errno = 0;
	rc = nm_atomic_commit(&a);
	err = errno;
	unlimit();
	CHECK(rc == -1 && err == EFBIG, "a stream's failed write fails its commit with EFBIG (%s)", strerror(err));
	CHECK(tap_file_holds(path, "new\n") && temp_files() == 0, "and leaves the old file whole and no temp file");

	CHECK(nm_atomic_open(&a, path) == 0 && fputs("dropped\n", a.f) >= 0, "a stream opened");
	nm_atomic_abort(&a);
	CHECK(tap_file_holds(path, "new\n") && temp_files() == 0, "an aborted stream leaves the old file and no temp file");
	free(big);
}

/* report.md and index.html: both or neither. */
static void test_pair(void)
{
	char md[512], html[512];
	snprintf(md, sizeof md, "%s/report.md", dir);
	snprintf(html, sizeof html, "%s/index.html", dir);
	put(md, "old md\n");
	put(html, "old html\n");
	nm_atomic a, b;
	nm_atomic *both[] = {&a, &b};
	CHECK(nm_atomic_open(&a, md) == 0 && nm_atomic_open(&b, html) == 0, "two streams opened");
	fputs("new md\n", a.f);
	limit(4096);
	for (int i = 0; i < 1000; i++)
		fprintf(b.f, "<p>row %d</p>\n", i);
	errno = 0;
	int rc = nm_atomic_commit_all(both, 2);
	int err = errno;
	unlimit();
	CHECK(rc == -1 && err == EFBIG, "the second file's failed write fails the pair (%s)", strerror(err));
	CHECK(tap_file_holds(md, "old md\n") && tap_file_holds(html, "old html\n") && temp_files() == 0,
	      "neither file replaced (the first was written whole), no temp file");

	CHECK(nm_atomic_open(&a, md) == 0 && nm_atomic_open(&b, html) == 0, "two streams opened again");
	fputs("new md\n", a.f);
	fputs("new html\n", b.f);
	CHECK(nm_atomic_commit_all(both, 2) == 0 && tap_file_holds(md, "new md\n") && tap_file_holds(html, "new html\n") &&
	      temp_files() == 0, "both replaced when both are written");
}

static void test_symlinks(void)
{
	char path[512], victim[512], link[600], ghost[512];
	snprintf(path, sizeof path, "%s/out.csv", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	snprintf(ghost, sizeof ghost, "%s/ghost", dir);
	put(victim, "root's file\n");

	/* at the target: the link is replaced, its target untouched */
	CHECK(symlink(victim, path) == 0, "a symlink planted at the target");
	struct stat st;
	CHECK(nm_write_atomic(path, "table\n") == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	      tap_file_holds(path, "table\n") && tap_file_holds(victim, "root's file\n"),
	      "a symlink at the target is replaced by the file, not followed");
	unlink(path);

	/* at the temp file's name: the name is skipped for another */
	forced = 0; /* the first draw names "out.csv.tmp.aaaaaaaaaa" */
	snprintf(link, sizeof link, "%s.tmp.aaaaaaaaaa", path);
	CHECK(symlink(victim, link) == 0, "a symlink planted at the temp file's name");
	int rc = nm_write_atomic(path, "table\n");
	CHECK(forced == 2, "the planted name was the first drawn, and another was drawn (%d draws)", forced);
	CHECK(rc == 0 && tap_file_holds(path, "table\n") && tap_file_holds(victim, "root's file\n"),
	      "a symlink at the temp name is not followed: the victim is untouched, the file written");
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the planted link is left as it was");
	unlink(link);

	/* a dangling link there must not create its target (O_CREAT alone would) */
	forced = 0;
	CHECK(symlink(ghost, link) == 0, "a dangling symlink planted at the temp file's name");
	CHECK(nm_write_atomic(path, "again\n") == 0 && tap_file_holds(path, "again\n") && access(ghost, F_OK) != 0,
	      "a dangling link at the temp name creates nothing through it");
	unlink(link);
	forced = -1;
}

static int drop(json_t *rec, void *arg)
{
	(void)arg;
	json_decref(rec);
	return 0;
}

static void test_append(void)
{
	char path[512], victim[512];
	snprintf(path, sizeof path, "%s/history.jsonl", dir);
	snprintf(victim, sizeof victim, "%s/victim2", dir);
	CHECK(nm_append_durable(path, "{\"a\":1}\n") == 0 && nm_append_durable(path, "{\"a\":2}\n") == 0 &&
	      tap_file_holds(path, "{\"a\":1}\n{\"a\":2}\n"), "appends follow each other");
	char *big = big_text(64 << 10);
	limit(size_of(path) + 100);
	errno = 0;
	int rc = nm_append_durable(path, big);
	int err = errno;
	unlimit();
	CHECK(rc == -1 && err == EFBIG && tap_file_holds(path, "{\"a\":1}\n{\"a\":2}\n"),
	      "a failed append is cut back: the file is as before (%s)", strerror(err));

	put(victim, "root's file\n");
	unlink(path);
	CHECK(symlink(victim, path) == 0, "a symlink planted at the appended file");
	errno = 0;
	rc = nm_append_durable(path, "x\n");
	CHECK(rc == -1 && errno == ELOOP && tap_file_holds(victim, "root's file\n"),
	      "an append to a symlink is refused (ELOOP) and its target untouched");
	unlink(path);

	/* the result journal appends the same way */
	char jpath[512];
	snprintf(jpath, sizeof jpath, "%s/doc.json.journal", dir);
	nm_journal j;
	json_t *small = json_pack("{s:i}", "n", 1), *large = json_pack("{s:s}", "text", big);
	CHECK(nm_journal_init(&j, jpath) == 0 && nm_journal_append(&j, small) == 0 && nm_journal_append(&j, small) == 0,
	      "two journal records");
	long before = size_of(jpath);
	limit(before + 100);
	rc = nm_journal_append(&j, large);
	unlimit();
	char why[256];
	size_t torn = 1;
	long n = nm_journal_replay(jpath, drop, NULL, &torn, why, sizeof why);
	CHECK(rc == -1 && size_of(jpath) == before && n == 2 && torn == 0,
	      "a failed journal append is cut back: two records, no torn line (%ld, %zu)", n, torn);
	nm_journal_close(&j);
	unlink(jpath);
	CHECK(symlink(victim, jpath) == 0 && nm_journal_init(&j, jpath) == 0, "a symlink planted at the journal");
	CHECK(nm_journal_append(&j, small) == -1 && tap_file_holds(victim, "root's file\n"),
	      "a journal append does not follow it");
	nm_journal_close(&j);
	json_decref(small);
	json_decref(large);
	free(big);
}

int main(void)
{
	/* as netmem's main does: a file-size limit fails the write instead of
	 * killing the process */
	signal(SIGXFSZ, SIG_IGN);
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/nm-atomic-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	test_replace();
	test_pair();
	test_symlinks();
	test_append();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
