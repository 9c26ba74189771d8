/* Durable files: a whole file replaced atomically (temp file, fsync, rename,
 * fsync of the directory), and an append-only journal of JSON records, one
 * compact line each, fsync'd record by record.
 *
 * Why both: rewriting a document after every record costs the document's
 * size each time, so a long sweep does quadratic work; appending one line
 * costs the record's size. A result document (harness/result.h) keeps its
 * finished points in a journal beside it and folds them into the document
 * (one atomic rewrite) when the job starts and ends.
 *
 * A record is durable once nm_journal_append returns: its line and the
 * journal's directory entry are on disk. A job killed in the middle of an
 * append leaves at most one torn last line (no newline, or text that does
 * not parse): nm_journal_replay ignores it and reports its size; that
 * record's append never returned, so its point was not finished. A damaged
 * line anywhere else is an error, never skipped silently. */
#ifndef NM_DURABLE_H
#define NM_DURABLE_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Every file the suite writes is replaced atomically, so a reader, a crash or
 * a full disk leaves the old file or the new one, never a part: the new text
 * goes to a temp file in the target's directory (same file system, so the
 * rename is atomic), is fsync'd, then renamed over the target, and the
 * directory is fsync'd. Any error removes the temp file and leaves the target
 * as it was.
 *
 * The suite runs as root on shared hosts, often in world-writable
 * directories: the temp file gets a random name and is created with
 * O_CREAT | O_EXCL | O_NOFOLLOW, so a file or symlink planted in advance is
 * never followed, truncated or reused (a taken name is skipped for another).
 * A symlink at the target itself is replaced, not followed.
 *
 *   nm_atomic a;
 *   if (nm_atomic_open(&a, path)) -> error, errno
 *   fprintf(a.f, ...);                      // write errors are remembered
 *   if (nm_atomic_commit(&a)) -> error, errno (the first write error's) */
typedef struct nm_atomic {
	char *path;      /* the target */
	char *tmp;       /* the temp file, until renamed or removed */
	FILE *f;         /* where the new text goes */
	int fd;
	int err;         /* the first write error (errno), 0: none */
} nm_atomic;

/* Creates the temp file beside path (path's directory must exist). 0, or -1
 * with errno and nothing created. The stream refers to *a: it stays where it
 * is until committed or aborted. */
int nm_atomic_open(nm_atomic *a, const char *path);
/* Makes the text durable and renames it over the target; on any error
 * (including an earlier write through a->f) removes the temp file and leaves
 * the target untouched. Releases a either way. 0 / -1 with errno. */
int nm_atomic_commit(nm_atomic *a);
/* Files that belong together (a report and its HTML twin): every temp file
 * written whole and fsync'd before the first rename, so a failed write
 * replaces none of them. Releases every a[i]. 0 / -1 with errno. */
int nm_atomic_commit_all(nm_atomic *const *a, size_t n);
/* Drops the temp file; the target is untouched. Releases a. */
void nm_atomic_abort(nm_atomic *a);

/* Writes text to path atomically (nm_atomic above). Creates missing parent
 * directories. 0 / -1 with errno. */
int nm_write_atomic(const char *path, const char *text);
/* v as JSON text (jansson's flags) and a newline, written as
 * nm_write_atomic does, into an existing directory. 0 / -1 with errno. */
int nm_write_json_atomic(const char *path, const json_t *v, size_t flags);
/* Appends text to path and makes it durable; on any error the file is cut
 * back to its old length, so a failed append leaves no partial line. A file
 * created here is created with O_EXCL; an existing one is opened with
 * O_NOFOLLOW (a symlink at path is refused, ELOOP). 0 / -1 with errno. */
int nm_append_durable(const char *path, const char *text);
/* Creates dir and its missing parents. 0 / -1 with errno. */
int nm_mkdirs(const char *dir);
/* fsync of the directory holding path, so a created, renamed or removed
 * entry is durable. File systems that cannot (EINVAL, EROFS) count as done. */
int nm_fsync_parent(const char *path);
/* v as JSON text (jansson's flags) ending in a newline, to free(); NULL
 * with errno ENOMEM. A file of such text is a proper text file for tools,
 * and a journal line is one of them. */
char *nm_json_text_line(const json_t *v, size_t flags, size_t *len);

typedef struct nm_journal {
	char *path;
	int fd;          /* -1 until the first append */
} nm_journal;

/* Names the journal; touches no file. 0 / -1 (ENOMEM). */
int nm_journal_init(nm_journal *j, const char *path);
/* Appends rec as one line and makes it durable (the file is created on the
 * first append, with its parents). 0 / -1 with errno. */
int nm_journal_append(nm_journal *j, const json_t *rec);
/* Closes and removes the file (absent is fine), durably. 0 / -1 with errno. */
int nm_journal_remove(nm_journal *j);
/* Closes the file and frees the name; the file stays. */
void nm_journal_close(nm_journal *j);
bool nm_journal_exists(const nm_journal *j);

/* Calls fn(record, arg) for every complete record of the journal at path, in
 * order; fn takes the reference. A missing file has no records. *torn (may be
 * NULL) receives the size of an ignored torn last line (0: none). Returns the
 * number of records, or -1 with one line in err (unreadable file, a damaged
 * line before the last, fn failed). */
long nm_journal_replay(const char *path, int (*fn)(json_t *rec, void *arg), void *arg, size_t *torn,
		       char *err, size_t errlen);
#endif
