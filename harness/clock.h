/* Time source for measured loops: the TSC scaled by a calibrated rate where it
 * is invariant (x86), else CLOCK_MONOTONIC_RAW. nm_clock_init() must run once
 * before worker threads start. */
#ifndef NM_CLOCK_H
#define NM_CLOCK_H
#include <stdint.h>

void nm_clock_init(void);
/* Raw ticks: cheap, monotonic per core. */
uint64_t nm_ticks(void);
/* Convert a tick difference to nanoseconds. */
uint64_t nm_ticks_to_ns(uint64_t ticks);
uint64_t nm_ns_to_ticks(uint64_t ns);
/* Wall-clock-free monotonic nanoseconds (clock_gettime), for deadlines. */
uint64_t nm_now_ns(void);
/* "tsc" or "clock_gettime", and the tick rate in Hz, for the metadata. */
const char *nm_clock_source(void);
double nm_clock_hz(void);

/* The CPU's spin-wait hint, for loops that poll memory another thread or the
 * NIC will change. */
static inline void nm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}
#endif
