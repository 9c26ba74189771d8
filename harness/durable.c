/* Durable files: atomic replacement and the append-only journal (durable.h). */
#include "durable.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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

int nm_write_atomic(const char *path, const char *text)
{
	int saved, fd = -1;
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (!tmp)
		return -1;
	if (make_parent(path))
		goto err;
	/* The pid keeps two writers (e.g. two jobs given the same --output) from
	 * writing into one temp file. */
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		goto err;
	if (write_all(fd, text, strlen(text)) || fsync(fd))
		goto err_unlink;
	int rc = close(fd);
	fd = -1;
	if (rc || rename(tmp, path))
		goto err_unlink;
	/* The rename is durable only once the directory entry is. */
	if (nm_fsync_parent(path))
		goto err;
	free(tmp);
	return 0;

err_unlink:
	saved = errno;
	if (fd >= 0)
		close(fd);
	fd = -1;
	unlink(tmp);
	errno = saved;
err:
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(tmp);
	errno = saved;
	return -1;
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
	bool existed = access(j->path, F_OK) == 0;
	if (!existed && make_parent(j->path))
		return -1;
	j->fd = open(j->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (j->fd < 0)
		return -1;
	return existed ? 0 : nm_fsync_parent(j->path);
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
	 * with another, and a kill tears at most the last line. */
	int rc = journal_open(j) || write_all(j->fd, line, len) || fdatasync(j->fd) ? -1 : 0;
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
