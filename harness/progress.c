#include "progress.h"
#include "clock.h"
#include <stdio.h>
#include <unistd.h>

static double now_s(void) { return (double)nm_now_ns() / 1e9; }

void nm_progress_init(nm_progress *p, int total, bool enabled)
{
	*p = (nm_progress){.total = total, .started_s = now_s(), .enabled = enabled,
			   .tty = isatty(STDERR_FILENO)};
}

void nm_progress_skip(nm_progress *p) { p->skipped++; }

static void fmt_dur(double s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "?");
	else if (s < 90)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 5400)
		snprintf(buf, len, "%.0fm%02.0fs", s / 60 - 0.5, s - 60 * (long)(s / 60));
	else
		snprintf(buf, len, "%.1fh", s / 3600);
}

void nm_progress_start(nm_progress *p, const char *label)
{
	if (!p->enabled)
		return;
	int index = p->done + p->skipped + 1, remaining = p->total - index + 1;
	char eta[32] = "?";
	if (p->done > 0)
		fmt_dur(p->work_s / p->done * remaining, eta, sizeof eta);
	if (p->tty)
		fprintf(stderr, "\r\033[K[%d/%d] %s (%d left, ~%s)", index, p->total, label,
			remaining, eta);
	else
		fprintf(stderr, "netmem: point %d/%d: %s (%d left, about %s to go)\n", index,
			p->total, label, remaining, eta);
	fflush(stderr);
}

void nm_progress_done(nm_progress *p, double point_seconds)
{
	p->done++;
	p->work_s += point_seconds;
}

void nm_progress_finish(nm_progress *p)
{
	if (!p->enabled)
		return;
	char took[32];
	fmt_dur(now_s() - p->started_s, took, sizeof took);
	if (p->tty)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "netmem: %d point(s) run, %d resumed from earlier, in %s\n", p->done,
		p->skipped, took);
}
