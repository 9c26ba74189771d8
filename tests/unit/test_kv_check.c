/* The read check of netmem kv (kv_check_value_at): a reader whose reads
 * complete in issue order compares each read with the key's last; an
 * overlapping reader (memtier-style clients, a connection each) only with
 * reads that completed before it began, so two overlapping reads may
 * return a writer's versions in either order, and a later read may not. */
#include "kv_core.h"
#include "tap.h"

static uint64_t val(uint64_t key, uint32_t writer, uint32_t version)
{
	return kv_word(key, writer, version);
}

static kv_verdict rd(kv_checker *c, uint64_t key, uint32_t writer, uint32_t version, uint64_t t0, uint64_t t1)
{
	uint64_t v[2] = {val(key, writer, version), val(key, writer, version)};
	return kv_check_value_at(c, key, v, 2, t0, t1);
}

static void in_order(void)
{
	kv_checker c;
	kv_checker_init(&c, 64, false);
	CHECK(rd(&c, 7, 1, 5, 10, 20) == KV_READ_OK, "in order: a first read is fine");
	/* began before the first completed, but a reader in issue order must not see older */
	CHECK(rd(&c, 7, 1, 4, 15, 30) == KV_READ_REGRESSED, "in order: an older version of the writer is a regression");
	kv_checker_free(&c);
	kv_checker_init(&c, 64, false);
	CHECK(rd(&c, 7, 1, 5, 0, 0) == KV_READ_OK && rd(&c, 7, 2, 3, 0, 0) == KV_READ_OK,
	      "per-writer versions: another writer's lower version is no regression");
	kv_checker_free(&c);
}

static void overlapping(void)
{
	kv_checker c;
	kv_checker_init(&c, 64, false);
	c.overlapping = true;
	CHECK(rd(&c, 7, 1, 5, 10, 20) == KV_READ_OK, "overlapping: version 5, read 10..20");
	CHECK(rd(&c, 7, 1, 4, 15, 30) == KV_READ_OK, "overlapping: version 4 by a read begun at 15, before 20: fine");
	CHECK(rd(&c, 7, 1, 4, 25, 35) == KV_READ_REGRESSED,
	      "overlapping: version 4 by a read begun at 25, after version 5 was read: a regression");
	CHECK(c.first[0] != 0, "overlapping: the failure is described (%s)", c.first);
	kv_checker_free(&c);

	/* the newer of two overlapping reads is what later reads are held to */
	kv_checker_init(&c, 64, false);
	c.overlapping = true;
	CHECK(rd(&c, 9, 3, 4, 10, 20) == KV_READ_OK && rd(&c, 9, 3, 5, 15, 30) == KV_READ_OK,
	      "overlapping: versions 4 (10..20) then 5 (15..30)");
	CHECK(rd(&c, 9, 3, 4, 25, 40) == KV_READ_OK, "overlapping: version 4 begun at 25, before 5's read completed: fine");
	CHECK(rd(&c, 9, 3, 4, 31, 45) == KV_READ_REGRESSED,
	      "overlapping: version 4 begun at 31, after 5's read completed at 30: a regression");
	kv_checker_free(&c);

	/* torn and foreign values fail whatever the times */
	kv_checker_init(&c, 64, false);
	c.overlapping = true;
	uint64_t torn[2] = {val(11, 1, 1), val(11, 1, 2)}, foreign[1] = {val(12, 1, 1)};
	CHECK(kv_check_value_at(&c, 11, torn, 2, 0, 1) == KV_READ_TORN, "overlapping: a torn value is torn");
	CHECK(kv_check_value_at(&c, 13, foreign, 1, 0, 1) == KV_READ_FOREIGN || kv_key_tag(12) == kv_key_tag(13),
	      "overlapping: another key's value is foreign");
	kv_checker_free(&c);
}

int main(void)
{
	in_order();
	overlapping();
	return tap_done();
}
