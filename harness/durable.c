/* Durable files: atomic replacement and the append-only journal (durable.h). */
#include "durable.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

int nm_mkdirs(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	char *p = strdup(dir);
	if (!p)
		return -1;
	/* Component by component; EEXIST covers a parent that exists or that a
	 * concurrent writer just created. */
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == 0) {
			char c = *s;
			*s = 0;
			if (mkdir(p, 0777) && errno != EEXIST) {
				int saved = errno;
				free(p);
				errno = saved;
				return -1;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static int fsync_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0; /* nothing we can make durable from here */
	int rc = 0;
	if (fsync(dfd) && errno != EINVAL && errno != EROFS)
		rc = -1;
	int saved = errno;
	close(dfd);
	errno = saved;
	return rc;
}

int nm_fsync_parent(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	int rc = fsync_dir(dirname(copy));
	int saved = errno;
	free(copy);
	errno = saved;
	return rc;
}

/* Parent directories of path, created. */
static int make_parent(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	int rc = nm_mkdirs(dirname(copy));
	int saved = errno;
	free(copy);
	errno = saved;
	return rc;
}

/* ---- atomic replacement ---- */

/* A name nobody can guess in advance: planting a symlink there would fail
 * the open anyway (O_EXCL), but need not even be tried. */
static void tmp_name(char *out, size_t len, const char *path)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Atomic uint64_t calls;
	unsigned char r[10];
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		/* no entropy yet (early boot): unique still, O_EXCL does the rest */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid() << 32 ^ ++calls;
		for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005u + 1442695040888963407u)
			r[i] = (unsigned char)(x >> 56);
	}
	char s[sizeof r + 1];
	for (size_t i = 0; i < sizeof r; i++)
		s[i] = digits[r[i] % (sizeof digits - 1)];
	s[sizeof r] = 0;
	snprintf(out, len, "%s.tmp.%s", path, s);
}

/* The stream's writes go straight to the fd, and the first failure's errno
 * is kept: stdio reports only that some write failed, and a later call may
 * have changed errno by the time the caller checks. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	nm_atomic *a = cookie;
	if (a->err) {
		errno = a->err;
		return -1;
	}
	if (write_all(a->fd, buf, n) != 0) {
		a->err = errno;
		return -1;
	}
	return (ssize_t)n;
}

static int cookie_close(void *cookie)
{
	(void)cookie;
	return 0; /* the fd is closed by its owner, after fsync */
}

static void atomic_free(nm_atomic *a)
{
	if (a->f)
		fclose(a->f);
	if (a->fd >= 0)
		close(a->fd);
	free(a->path);
	free(a->tmp);
	*a = (nm_atomic){.fd = -1};
}

int nm_atomic_open(nm_atomic *a, const char *path)
{
	*a = (nm_atomic){.fd = -1};
	size_t n = strlen(path) + 32;
	a->path = strdup(path);
	a->tmp = malloc(n);
	if (!a->path || !a->tmp)
		goto err;
	for (int tries = 0; a->fd < 0; tries++) {
		tmp_name(a->tmp, n, path);
		a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (a->fd < 0 && (errno != EEXIST || tries == 100))
			goto err;
	}
	static const cookie_io_functions_t io = {.write = cookie_write, .close = cookie_close};
	a->f = fopencookie(a, "w", io);
	if (!a->f) {
		int saved = errno;
		unlink(a->tmp);
		errno = saved;
		goto err;
	}
	return 0;
err:;
	int saved = errno;
	atomic_free(a);
	errno = saved;
	return -1;
}

/* The temp file written whole, on disk and closed. */
static int atomic_finish(nm_atomic *a)
{
	int rc = fflush(a->f) != 0 || ferror(a->f) ? -1 : 0;
	if (fclose(a->f) != 0)
		rc = -1;
	a->f = NULL;
	if (rc == 0 && fsync(a->fd) != 0)
		a->err = errno;
	if (close(a->fd) != 0 && !a->err)
		a->err = errno;
	a->fd = -1;
	if (rc || a->err) {
		errno = a->err ? a->err : EIO;
		return -1;
	}
	return 0;
}

int nm_atomic_commit_all(nm_atomic *const *a, size_t n)
{
	int rc = 0, saved = 0;
	for (size_t i = 0; i < n; i++)
		if (atomic_finish(a[i]) != 0 && !rc) {
			rc = -1;
			saved = errno;
		}
	/* Renamed only once all are whole; a failed rename stops the rest, so
	 * at most the files before it are new. */
	bool renaming = rc == 0;
	for (size_t i = 0; i < n; i++) {
		if (renaming && rename(a[i]->tmp, a[i]->path) != 0) {
			renaming = false;
			rc = -1;
			saved = errno;
		}
		if (!renaming)
			unlink(a[i]->tmp);
		else if (nm_fsync_parent(a[i]->path) != 0 && !rc) {
			/* in place, but its directory entry maybe not yet on disk */
			rc = -1;
			saved = errno;
		}
	}
	for (size_t i = 0; i < n; i++)
		atomic_free(a[i]);
	errno = saved;
	return rc;
}

int nm_atomic_commit(nm_atomic *a) { return nm_atomic_commit_all(&a, 1); }

void nm_atomic_abort(nm_atomic *a)
{
	int saved = errno;
	if (a->tmp && (a->f || a->fd >= 0))
		unlink(a->tmp);
	atomic_free(a);
	errno = saved;
}

int nm_write_atomic(const char *path, const char *text)
{
	nm_atomic a;
	if (make_parent(path) || nm_atomic_open(&a, path))
		return -1;
	fputs(text, a.f);
	return nm_atomic_commit(&a);
}

int nm_write_json_atomic(const char *path, const json_t *v, size_t flags)
{
	nm_atomic a;
	if (nm_atomic_open(&a, path))
		return -1;
	if (json_dumpf(v, a.f, flags) != 0 || fputc('\n', a.f) == EOF) {
		/* a write error, or text jansson would not encode */
		int e = a.err ? a.err : EINVAL;
		nm_atomic_abort(&a);
		errno = e;
		return -1;
	}
	return nm_atomic_commit(&a);
}

/* ---- appending ---- */

/* Opens path for appending: an existing file without following a symlink, a
 * missing one created exclusively (*created: its directory entry is new). */
static int open_append(const char *path, bool *created)
{
	for (;;) {
		int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT) {
			*created = false;
			return fd;
		}
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST) {
			*created = fd >= 0;
			return fd;
		}
		/* created by someone else in between: open theirs */
	}
}

/* One write and a data sync; on failure the file is cut back to where it
 * ended, so no partial line stays for a reader (or a replay) to trip on. */
static int append_fd(int fd, const char *buf, size_t len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return -1;
	if (write_all(fd, buf, len) == 0 && fdatasync(fd) == 0)
		return 0;
	int saved = errno;
	if (ftruncate(fd, end) == 0)
		fdatasync(fd);
	errno = saved;
	return -1;
}

int nm_append_durable(const char *path, const char *text)
{
	bool created;
	if (make_parent(path))
		return -1;
	int fd = open_append(path, &created);
	if (fd < 0)
		return -1;
	int rc = append_fd(fd, text, strlen(text));
	int saved = errno;
	if (close(fd) != 0 && !rc) {
		rc = -1;
		saved = errno;
	}
	if (rc && created)
		unlink(path);
	else if (!rc && created && nm_fsync_parent(path) != 0) {
		rc = -1;
		saved = errno;
	}
	errno = saved;
	return rc;
}

/* ---- journal ---- */

int nm_journal_init(nm_journal *j, const char *path)
{
	j->fd = -1;
	j->path = strdup(path);
	return j->path ? 0 : -1;
}

bool nm_journal_exists(const nm_journal *j) { return j->path && access(j->path, F_OK) == 0; }

/* Opens for appending; a file created here gets its directory entry made
 * durable at once, so later records never sit in an unreachable file. */
static int journal_open(nm_journal *j)
{
	if (j->fd >= 0)
		return 0;
	bool created;
	if (make_parent(j->path))
		return -1;
	j->fd = open_append(j->path, &created);
	if (j->fd < 0)
		return -1;
	return created ? nm_fsync_parent(j->path) : 0;
}

char *nm_json_text_line(const json_t *v, size_t flags, size_t *len)
{
	char *text = json_dumps(v, flags);
	size_t n = text ? strlen(text) : 0;
	char *line = text ? realloc(text, n + 2) : NULL;
	if (!line) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = 0;
	*len = n + 1;
	return line;
}

int nm_journal_append(nm_journal *j, const json_t *rec)
{
	size_t len;
	char *line = nm_json_text_line(rec, JSON_COMPACT | JSON_ENCODE_ANY, &len);
	if (!line)
		return -1;
	/* One write per record: with O_APPEND a record is never interleaved
	 * with another, and a kill tears at most the last line; a failed write
	 * (a full disk) is cut back, so the journal stays whole. */
	int rc = journal_open(j) || append_fd(j->fd, line, len) ? -1 : 0;
	int saved = errno;
	free(line);
	errno = saved;
	return rc;
}

int nm_journal_remove(nm_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (unlink(j->path) != 0)
		return errno == ENOENT ? 0 : -1;
	return nm_fsync_parent(j->path);
}

void nm_journal_close(nm_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->path);
	j->path = NULL;
}

static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errno != ENOENT)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

long nm_journal_replay(const char *path, int (*fn)(json_t *rec, void *arg), void *arg, size_t *torn,
		       char *err, size_t errlen)
{
	size_t len = 0, at = 0;
	long count = 0, line = 0;
	if (torn)
		*torn = 0;
	err[0] = 0;
	char *buf = slurp(path, &len, err, errlen);
	if (!buf)
		return err[0] ? -1 : 0;
	while (at < len) {
		char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
		json_error_t je;
		json_t *rec = json_loadb(buf + at, n, 0, &je);
		line++;
		if (!rec || !nl) {
			json_decref(rec);
			/* The last line alone may be torn by a kill. */
			if (at + n + (nl ? 1 : 0) >= len) {
				if (torn)
					*torn = n;
				break;
			}
			snprintf(err, errlen, "%s: line %ld is damaged (%s); it is not the last line, so it is "
				 "not an interrupted write", path, line, je.text);
			count = -1;
			break;
		}
		if (fn(rec, arg) != 0) {
			snprintf(err, errlen, "%s: line %ld is not a record of this document", path, line);
			count = -1;
			break;
		}
		count++;
		at += n + 1;
	}
	free(buf);
	return count;
}
