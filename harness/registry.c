#include "experiment.h"
#include <stdlib.h>
#include <string.h>

#define MAX_EXPERIMENTS 64
static const nm_experiment *table[MAX_EXPERIMENTS];
static size_t count;

/* Runs from constructors, before main: keep it trivial (no I/O, no MPI). */
void nm_experiment_register(const nm_experiment *e)
{
	if (count == MAX_EXPERIMENTS)
		abort();
	size_t i = count++;
	while (i > 0 && strcmp(table[i - 1]->name, e->name) > 0) {
		table[i] = table[i - 1];
		i--;
	}
	table[i] = e;
}

const nm_experiment *nm_experiment_find(const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

size_t nm_experiment_count(void) { return count; }
const nm_experiment *nm_experiment_at(size_t i) { return i < count ? table[i] : NULL; }
