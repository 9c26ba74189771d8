/* Minimal unit-test support: each CHECK is one test point, printed as a TAP
 * line ("ok N - what" / "not ok N - what"); tests/run-unit.sh counts them. */
#ifndef NM_TAP_H
#define NM_TAP_H
#include <stdio.h>

static int tap_n, tap_failed;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		int ok_ = !!(cond);                                             \
		tap_n++;                                                        \
		printf("%s %d - ", ok_ ? "ok" : "not ok", tap_n);              \
		printf(__VA_ARGS__);                                            \
		if (!ok_) {                                                     \
			tap_failed++;                                           \
			printf("  [%s:%d: %s]", __FILE__, __LINE__, #cond);     \
		}                                                               \
		putchar('\n');                                                  \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
