/* Temporary: systems not written yet. */
#include "kv.h"
#include "log.h"
static json_t *todo(kv_run *r) { (void)r; nm_fatal("kv: this system is not built yet"); }
const kv_system kv_loco = {"loco", "LOCO kvstore", true, todo};
const kv_system kv_sherman = {"sherman", "Sherman-style", true, todo};
