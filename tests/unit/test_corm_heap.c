/* CoRM's server memory (primitives/corm/corm_heap.h, corm_slot.h) on the host:
 * the slot layout and reader check, allocation with unique IDs, pointer
 * correction, and compaction: every live object stays readable through its
 * old pointer, both by the server and by a one-sided read of the old
 * address (what an ODP memory region gives a client), in both remap modes;
 * bad input is refused and an empty heap compacts to nothing. */
#include "corm_heap.h"
#include <pthread.h>
#include <unistd.h>
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static void test_slot(void)
{
	CHECK(corm_slot_capacity(16) == 8 && corm_slot_capacity(32) == 24, "capacity of line-tiling slots");
	CHECK(corm_slot_capacity(72) == 62 && corm_slot_capacity(2040) == 2000, "capacity as the authors' table");
	_Alignas(64) uint8_t blk[512] = {0};
	uint8_t in[256], out[256];
	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)(i * 7 + 1);
	uint8_t *s = blk + 40; /* straddles lines at 64, 128, 192, 256 */
	uint32_t ss = 216;
	uint64_t addr = (uint64_t)(uintptr_t)s;
	corm_slot_write(s, addr, ss, 5, in, corm_slot_capacity(ss));
	uint64_t h = corm_h_make(5, 77, 123, CORM_H_ALLOC);
	memcpy(s, &h, 8);
	uint8_t v = 0;
	corm_slot_state st = corm_slot_check(s, addr, ss, 77, out, corm_slot_capacity(ss), &v);
	CHECK(st == CORM_SLOT_OK && v == 5 && !memcmp(in, out, corm_slot_capacity(ss)), "write then check: %s",
	      corm_slot_state_names[st]);
	CHECK(corm_slot_check(s, addr, ss, 78, NULL, 0, NULL) == CORM_SLOT_NOT_FOUND, "another ID: not found");
	CHECK(corm_slot_check_farm(s, addr, ss, NULL, 0, NULL) == CORM_SLOT_OK, "FaRM's check takes any ID");
	blk[128] = 6;
	CHECK(corm_slot_check(s, addr, ss, 77, NULL, 0, NULL) == CORM_SLOT_TORN, "a line of another version: torn");
	CHECK(corm_slot_check_farm(s, addr, ss, NULL, 0, NULL) == CORM_SLOT_TORN, "FaRM's check: torn too");
	blk[128] = 5;
	h |= CORM_H_LOCK;
	memcpy(s, &h, 8);
	CHECK(corm_slot_check(s, addr, ss, 77, NULL, 0, NULL) == CORM_SLOT_LOCKED, "locked header: locked");
	h = corm_h_make(5, 0, 0, 0);
	memcpy(s, &h, 8);
	CHECK(corm_slot_check_farm(s, addr, ss, NULL, 0, NULL) == CORM_SLOT_NOT_FOUND, "a free slot: FaRM finds nothing");
	uint8_t pay[48];
	corm_payload_fill(pay, sizeof pay, 9, 3);
	CHECK(corm_payload_check(pay, sizeof pay, 9) == CORM_PAY_OK, "payload checks itself");
	CHECK(corm_payload_check(pay, sizeof pay, 10) == CORM_PAY_FOREIGN, "another key's payload: foreign");
	pay[30] ^= 1;
	CHECK(corm_payload_check(pay, sizeof pay, 9) == CORM_PAY_CORRUPT, "a flipped byte: corrupt");
}

static int init(cmem_heap *h, uint32_t bs, cmem_remap_mode mode, int threads)
{
	char err[256];
	cmem_heap_cfg c = {.block_size = bs, .va_blocks = 4096, .threads = threads, .seed = 3, .mode = mode};
	int rc = cmem_init(h, &c, err, sizeof err);
	if (rc)
		printf("# %s\n", err);
	return rc;
}

/* What a client's DirectRead of the old pointer would see if the NIC
 * follows the CPU mapping (ODP): the slot at the pointer's address. */
static corm_slot_state direct(cmem_heap *h, const corm_ptr *p, uint8_t *out, size_t n)
{
	uint32_t ss = h->cls.size[p->cls];
	return corm_slot_check((const uint8_t *)(uintptr_t)p->addr, p->addr, ss, p->id, out, n, NULL);
}

static void test_alloc_ids(void)
{
	cmem_heap h;
	CHECK(init(&h, 4096, CORM_REMAP, 1) == 0, "heap of 4 KiB blocks");
	int c = cmem_class(&h, 24);
	uint32_t slots = h.cls.slots[c];
	corm_ptr p[400];
	uint8_t pay[24];
	int ok = 1, idsok = 1;
	for (int i = 0; i < 400; i++) {
		corm_payload_fill(pay, 24, (uint32_t)i, 0);
		ok &= cmem_alloc(&h, 0, 24, pay, 24, &p[i]) == CORM_OK;
	}
	for (int i = 0; i < 400; i++)
		for (int j = i + 1; j < 400; j++)
			if (corm_ptr_base(&p[i], 4096) == corm_ptr_base(&p[j], 4096) &&
			    (p[i].id == p[j].id || p[i].addr == p[j].addr))
				idsok = 0;
	CHECK(ok, "400 allocations of 24 bytes");
	CHECK(idsok, "IDs and slots unique per block");
	CHECK(h.active_blocks == (400 + slots - 1) / slots, "blocks filled before new ones: %llu",
	      (unsigned long long)h.active_blocks);
	uint8_t out[24];
	CHECK(direct(&h, &p[17], out, 24) == CORM_SLOT_OK && corm_payload_check(out, 24, 17) == CORM_PAY_OK,
	      "a one-sided read of a pointer");
	corm_ptr wrong = p[17];
	wrong.addr = corm_ptr_base(&wrong, 4096); /* the paper's indirect pointer: offset 0 */
	if (wrong.addr == p[17].addr)
		wrong.addr += h.cls.size[c];
	CHECK(cmem_read(&h, &wrong, out, 24, NULL) == CORM_OK && wrong.addr == p[17].addr &&
	      corm_payload_check(out, 24, 17) == CORM_PAY_OK, "an RPC read corrects the offset hint");
	corm_payload_fill(pay, 24, 17, 1);
	uint8_t v0 = p[17].version, v1;
	CHECK(cmem_write(&h, &p[17], pay, 24, &v1) == CORM_OK && v1 == (uint8_t)(v0 + 1), "write bumps the version");
	CHECK(direct(&h, &p[17], out, 24) == CORM_SLOT_OK && !memcmp(out, pay, 24), "and a reader sees it");
	corm_ptr f = p[17];
	CHECK(cmem_free(&h, &f) == CORM_OK, "free");
	CHECK(direct(&h, &p[17], out, 24) == CORM_SLOT_NOT_FOUND, "a freed object is not found one-sided");
	CHECK(cmem_read(&h, &p[17], out, 24, NULL) == CORM_E_NOTFOUND, "nor by RPC");
	CHECK(cmem_alloc(&h, 0, 5000, pay, 24, &f) == CORM_E_TOOBIG, "an object larger than a block: refused");
	cmem_destroy(&h);
}

/* Allocate, free most, compact, check every survivor by its old pointer. */
static void run_compaction(uint32_t bs, cmem_remap_mode mode, int threads, uint32_t size, int n)
{
	const char *mname = mode == CORM_REMAP ? "remap" : "defer";
	cmem_heap h;
	if (init(&h, bs, mode, threads)) {
		CHECK(0, "heap");
		return;
	}
	corm_ptr *p = calloc((size_t)n, sizeof *p);
	uint8_t *pay = malloc(size), *out = malloc(size);
	for (int i = 0; i < n; i++) {
		corm_payload_fill(pay, size, (uint32_t)i, 0);
		if (cmem_alloc(&h, i % threads, size, pay, size, &p[i]) != CORM_OK)
			break;
	}
	srand(5);
	int live = 0;
	for (int i = 0; i < n; i++) {
		if (rand() % 100 < 80) {
			corm_ptr f = p[i];
			cmem_free(&h, &f);
			p[i].cls = 0xff; /* gone */
		} else {
			live++;
		}
	}
	uint64_t before = cmem_active_bytes(&h);
	cmem_compact_stats st;
	char err[256] = "";
	int rc = cmem_compact(&h, -1, 0.9, 0, &st, err, sizeof err);
	uint64_t after = cmem_active_bytes(&h);
	CHECK(rc == 0, "%s %u B blocks, %u B objects: compaction ran %s", mname, bs, size, err);
	CHECK(st.merges > 0 && (mode == CORM_DEFER ? after == before : after < before), "%s: %llu merges, active %llu -> %llu KiB (%.1fx)", mname,
	      (unsigned long long)st.merges, (unsigned long long)before >> 10, (unsigned long long)after >> 10,
	      (double)before / (double)(after ? after : 1));
	int direct_ok = 0, clean_fail = 0, bad = 0, rpc_ok = 0;
	for (int i = 0; i < n; i++) {
		if (p[i].cls == 0xff)
			continue;
		corm_ptr q = p[i];
		corm_slot_state s = direct(&h, &q, out, size);
		if (s == CORM_SLOT_OK)
			bad += corm_payload_check(out, size, (uint32_t)i) != CORM_PAY_OK, direct_ok++;
		else if (s == CORM_SLOT_NOT_FOUND)
			clean_fail++;
		else
			bad++;
		if (cmem_read(&h, &q, out, size, NULL) == CORM_OK &&
		    corm_payload_check(out, size, (uint32_t)i) == CORM_PAY_OK)
			rpc_ok++;
		/* after correction the pointer reads one-sided */
		if (direct(&h, &q, out, size) != CORM_SLOT_OK || corm_payload_check(out, size, (uint32_t)i))
			bad++;
		p[i] = q;
	}
	CHECK(bad == 0 && rpc_ok == live, "%s: %d survivors by RPC, %d direct, %d clean misses, %d bad", mname, rpc_ok,
	      direct_ok, clean_fail, bad);
	int released = 0;
	for (int i = 0; mode == CORM_DEFER && i < n; i++)
		if (p[i].cls != 0xff)
			released += cmem_release(&h, &p[i]) == CORM_OK;
	if (mode == CORM_DEFER)
		CHECK(released == live && direct_ok + clean_fail == live && h.retired_blocks == 0 && cmem_active_bytes(&h) < before,
		      "defer: old VAs and retired blocks released once every pointer is released: %llu KiB",
		      (unsigned long long)cmem_active_bytes(&h) >> 10);
	/* free everything: the heap returns to nothing */
	int freed = 0;
	for (int i = 0; i < n; i++)
		if (p[i].cls != 0xff)
			freed += cmem_free(&h, &p[i]) == CORM_OK;
	CHECK(freed == live && h.active_blocks == 0 && h.live_objects == 0, "%s: all freed, %llu blocks left", mname,
	      (unsigned long long)h.active_blocks);
	CHECK(cmem_compact(&h, -1, 0.9, 0, &st, err, sizeof err) == 0 && st.merges == 0,
	      "%s: compacting an empty heap is a no-op", mname);
	free(p);
	free(pay);
	free(out);
	cmem_destroy(&h);
}

static void test_bad_input(void)
{
	cmem_heap h;
	char err[256] = "";
	cmem_heap_cfg c = {.block_size = 5000, .va_blocks = 16, .threads = 1};
	CHECK(cmem_init(&h, &c, err, sizeof err) == -1 && strstr(err, "power of two"),
	      "block size not a power of two: %s", err);
}

/* ---- reads without the block's mutex ---- */

typedef struct hot_reader {
	cmem_heap *h;
	corm_ptr p;
	uint32_t key;
	int reads, bad;
	int *done;
} hot_reader;

static void *hot_read(void *arg)
{
	hot_reader *r = arg;
	uint8_t out[24];
	for (int i = 0; i < r->reads; i++) {
		corm_ptr p = r->p;
		if (cmem_read(r->h, &p, out, sizeof out, NULL) != CORM_OK ||
		    corm_payload_check(out, sizeof out, r->key) != CORM_PAY_OK)
			r->bad++;
	}
	__atomic_add_fetch(r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Two threads read one hot object while the test holds its block's mutex:
 * they finish only if a read takes no lock (a read of a hot object used to
 * queue every server worker behind one mutex). */
static void test_hot_read_unlocked(void)
{
	cmem_heap h;
	CHECK(init(&h, 4096, CORM_REMAP, 1) == 0, "heap");
	uint8_t pay[24];
	corm_payload_fill(pay, sizeof pay, 42, 1);
	corm_ptr p;
	CHECK(cmem_alloc(&h, 0, 24, pay, sizeof pay, &p) == CORM_OK, "the hot object");
	cmem_block *b = cmem_va(&h, p.addr)->blk;
	int done = 0;
	hot_reader r[2] = {{&h, p, 42, 5000, 0, &done}, {&h, p, 42, 5000, 0, &done}};
	pthread_t t[2];
	pthread_mutex_lock(&b->mu);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hot_read, &r[i]);
	for (int ms = 0; ms < 10000 && __atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2; ms++)
		usleep(1000);
	int finished = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&b->mu);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(finished == 2, "two threads read a hot object 5000 times each while its block's mutex is held (%d of 2 "
	      "finished within 10 s)", finished);
	CHECK(r[0].bad == 0 && r[1].bad == 0 && h.reads_locked == 0, "every read found the object, none took the lock "
	      "(%d, %d bad; %llu locked)", r[0].bad, r[1].bad, (unsigned long long)h.reads_locked);
	cmem_destroy(&h);
}

typedef struct churn {
	cmem_heap *h;
	pthread_mutex_t mu;  /* the test's: guards cur, not the heap */
	corm_ptr cur;
	uint32_t key;
	int stop, reads, ok, notfound, bad;
} churn;

static void *churn_read(void *arg)
{
	churn *c = arg;
	uint8_t out[3000];
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&c->mu);
		corm_ptr p = c->cur;
		uint32_t key = c->key;
		pthread_mutex_unlock(&c->mu);
		corm_status st = cmem_read(c->h, &p, out, sizeof out, NULL);
		__atomic_add_fetch(&c->reads, 1, __ATOMIC_RELAXED);
		if (st == CORM_OK && corm_payload_check(out, sizeof out, key) == CORM_PAY_OK)
			__atomic_add_fetch(&c->ok, 1, __ATOMIC_RELAXED);
		else if (st == CORM_E_NOTFOUND)
			__atomic_add_fetch(&c->notfound, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&c->bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Readers copy while objects are rewritten, freed and their one-slot
 * blocks released (the VA made PROT_NONE): every read is the object whole
 * or "not found", never torn, never a fault (ASan and the SIGSEGV of a
 * PROT_NONE page would end the test). */
static void test_read_races_release(void)
{
	cmem_heap h;
	CHECK(init(&h, 4096, CORM_REMAP, 1) == 0, "heap");
	churn c = {.h = &h, .mu = PTHREAD_MUTEX_INITIALIZER};
	uint8_t pay[3000];
	corm_payload_fill(pay, sizeof pay, 1, 0);
	CHECK(cmem_alloc(&h, 0, sizeof pay, pay, sizeof pay, &c.cur) == CORM_OK, "a one-slot block");
	c.key = 1;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churn_read, &c);
	int fails = 0;
	for (uint32_t k = 2; k < 1500; k++) {
		corm_ptr old, p;
		corm_payload_fill(pay, sizeof pay, k - 1, k);
		pthread_mutex_lock(&c.mu);
		old = c.cur;
		pthread_mutex_unlock(&c.mu);
		fails += cmem_write(&h, &old, pay, sizeof pay, NULL) != CORM_OK;  /* same key, new stamp */
		corm_payload_fill(pay, sizeof pay, k, 0);
		fails += cmem_alloc(&h, 0, sizeof pay, pay, sizeof pay, &p) != CORM_OK;
		pthread_mutex_lock(&c.mu);
		c.cur = p;
		c.key = k;
		pthread_mutex_unlock(&c.mu);
		fails += cmem_free(&h, &old) != CORM_OK;  /* its block empties: released */
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(fails == 0 && c.bad == 0 && c.ok > 0, "%d reads racing 1498 writes, frees and block releases: %d whole, %d "
	      "not found, %d torn or wrong (%d heap calls failed)", c.reads, c.ok, c.notfound, c.bad, fails);
	cmem_destroy(&h);
}

/* ---- a NIC that hands back a new rkey on every remap ---- */

/* The key the fake NIC honours for each VA block now: a one-sided read
 * with any other key is refused, as a NIC refuses a stale rkey. */
typedef struct fake_nic {
	uint8_t *region;
	int bshift;
	uint32_t next;
	uint64_t reg_bytes;   /* registered over the heap's life */
	uint32_t valid[4096];
} fake_nic;

static uint32_t *valid_key(fake_nic *f, const void *va)
{
	return &f->valid[((const uint8_t *)va - f->region) >> f->bshift];
}
static int fake_reg(void *arg, void *va, size_t len, void **mr, uint32_t *rkey, char *err, size_t errlen)
{
	fake_nic *f = arg;
	*mr = va;
	f->reg_bytes += len;
	*rkey = *valid_key(f, va) = ++f->next;
	return 0;
}
static void fake_dereg(void *arg, void *mr) {}
static int fake_remap(void *arg, void **mr, void *va, size_t len, uint32_t *rkey, char *err, size_t errlen)
{
	fake_nic *f = arg;
	*rkey = *valid_key(f, va) = ++f->next;
	return 0;
}

/* A one-sided read through the fake NIC: refused unless the key is the
 * VA's key now. */
static int keyed_read(fake_nic *f, cmem_heap *h, const corm_ptr *p, uint8_t *out, size_t n)
{
	if (*valid_key(f, (const void *)(uintptr_t)corm_ptr_base(p, h->cfg.block_size)) != p->rkey)
		return -1;
	return direct(h, p, out, n) == CORM_SLOT_OK ? 1 : 0;
}

/* ibv_rereg_mr may hand back a new rkey (ConnectX does): the heap must
 * take it, and every pointer it corrects must carry it, or the clients'
 * reads are refused for good. */
static void test_new_rkey(void)
{
	enum { N = 3000, SIZE = 24 };
	static fake_nic f;
	cmem_heap h;
	char err[256] = "";
	cmem_heap_cfg c = {.block_size = 4096, .va_blocks = 4096, .threads = 1, .seed = 3, .mode = CORM_REMAP,
			   .nic = {.arg = &f, .reg = fake_reg, .dereg = fake_dereg, .remap = fake_remap}};
	CHECK(cmem_init(&h, &c, err, sizeof err) == 0, "heap with a NIC that re-keys on remap %s", err);
	f.region = h.region;
	f.bshift = h.bshift;
	static corm_ptr p[N];
	uint8_t pay[SIZE], out[SIZE];
	int live = 0;
	for (int i = 0; i < N; i++) {
		corm_payload_fill(pay, SIZE, (uint32_t)i, 0);
		cmem_alloc(&h, 0, SIZE, pay, SIZE, &p[i]);
	}
	CHECK(f.reg_bytes == cmem_reg_bytes(&h, SIZE, N) && f.reg_bytes > 4096,
	      "the bytes a load registers are what cmem_reg_bytes says (the RLIMIT_MEMLOCK check): %llu, %llu",
	      (unsigned long long)f.reg_bytes, (unsigned long long)cmem_reg_bytes(&h, SIZE, N));
	for (int i = 0; i < N; i++) {
		if (i % 5) {
			cmem_free(&h, &p[i]);
			p[i].cls = 0xff;
		} else {
			live++;
		}
	}
	cmem_compact_stats st;
	CHECK(cmem_compact(&h, -1, 0.9, 0, &st, err, sizeof err) == 0 && st.remaps > 0 && st.keys_changed == st.remaps,
	      "compaction ran, every remap brought a new key (%llu of %llu)", (unsigned long long)st.keys_changed,
	      (unsigned long long)st.remaps);
	int refused_before = 0, new_key = 0, ok_after = 0;
	for (int i = 0; i < N; i++) {
		if (p[i].cls == 0xff)
			continue;
		uint32_t old = p[i].rkey;
		refused_before += keyed_read(&f, &h, &p[i], out, SIZE) < 0;
		if (cmem_read(&h, &p[i], out, SIZE, NULL) != CORM_OK || corm_payload_check(out, SIZE, (uint32_t)i))
			continue;
		new_key += p[i].rkey != old;
		ok_after += keyed_read(&f, &h, &p[i], out, SIZE) == 1 && corm_payload_check(out, SIZE, (uint32_t)i) == 0;
	}
	CHECK(refused_before > 0 && new_key == refused_before, "old keys refused for %d survivors; the RPC read "
	      "brought %d of them the new key", refused_before, new_key);
	CHECK(ok_after == live, "after the correction every survivor reads one-sided with its VA's key (%d of %d)", ok_after,
	      live);
	cmem_destroy(&h);
}

int main(void)
{
	test_slot();
	test_alloc_ids();
	run_compaction(4096, CORM_REMAP, 2, 24, 4000);
	run_compaction(4096, CORM_REMAP, 3, 200, 2000);
	run_compaction(4096, CORM_DEFER, 2, 24, 4000);
	run_compaction(1 << 20, CORM_REMAP, 2, 1000, 6000);
	test_bad_input();
	test_hot_read_unlocked();
	test_read_races_release();
	test_new_rkey();
	return tap_done();
}
