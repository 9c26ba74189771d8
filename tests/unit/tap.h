/* Minimal unit-test support: each CHECK is one test point, printed as a TAP
 * line ("ok N - what" / "not ok N - what"); tests/run-unit.sh counts them. */
#ifndef NM_TAP_H
#define NM_TAP_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
/* The whole of the file at path is exactly text (any size: read in chunks
 * and compared as it comes, then nothing more). */
static inline bool tap_file_holds(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t left = strlen(text);
	char buf[4096];
	bool same = true;
	for (size_t n; same && (n = fread(buf, 1, sizeof buf, f)) > 0; text += n, left -= n)
		same = n <= left && !memcmp(buf, text, n);
	same = same && left == 0;
	fclose(f);
	return same;
}
#endif
