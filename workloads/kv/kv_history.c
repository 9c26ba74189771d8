/* netmem kv's history file (kv_history.h). */
#include "kv_history.h"
#include "durable.h"

int kv_history_put(const char *path, const char *text, bool resumed, bool *started)
{
	bool append = *started || resumed;
	*started = true;
	return append ? nm_append_durable(path, text) : nm_write_atomic(path, text);
}
