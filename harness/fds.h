/* Closing every descriptor from `first` up, in a child between fork and
 * exec (async-signal-safe: one system call, or close() in a loop where
 * close_range is missing: kernels before 5.9, headers before Debian 12). */
#ifndef NM_FDS_H
#define NM_FDS_H
#include <sys/syscall.h>
#include <unistd.h>

static inline void nm_close_fds_from(int first, int last_guess)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0)
		return;
#endif
	for (int fd = first; fd < last_guess; fd++)
		close(fd);
}
#endif
