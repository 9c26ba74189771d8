/* Progress of a sweep on stderr (rank 0): which point runs, how many remain,
 * and the time left estimated from the points done so far. One updating line
 * on a terminal, plain lines otherwise (logs, CI). */
#ifndef NM_PROGRESS_H
#define NM_PROGRESS_H
#include <stdbool.h>

typedef struct nm_progress {
	int total, done, skipped;
	double started_s, work_s;  /* work_s: time spent on points actually run */
	bool tty, enabled;
} nm_progress;

void nm_progress_init(nm_progress *p, int total, bool enabled);
void nm_progress_skip(nm_progress *p);
void nm_progress_start(nm_progress *p, const char *label);
void nm_progress_done(nm_progress *p, double point_seconds);
void nm_progress_finish(nm_progress *p);
#endif
