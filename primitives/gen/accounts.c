/* Account layout and balance words (accounts.h). */
#include "accounts.h"
#include "rng.h"

void nm_accounts_init(nm_accounts *a, uint64_t n, int homes, int locks_per_home)
{
	a->n = n;
	a->homes = homes;
	a->locks_per_home = locks_per_home;
	a->per_home = (n + (uint64_t)homes - 1) / (uint64_t)homes;
	a->per_lock = (a->per_home + (uint64_t)locks_per_home - 1) / (uint64_t)locks_per_home;
	if (a->per_lock == 0)
		a->per_lock = 1;
}

#define LOW48 ((1ull << 48) - 1)

static uint64_t tag(uint64_t account, uint64_t low)
{
	return nm_mix64(account * 0xd6e8feb86659fd93ull ^ low) >> 48;
}

uint64_t nm_acct_encode(uint64_t account, int64_t balance)
{
	uint64_t low = (uint64_t)balance & LOW48;
	return low | tag(account, low) << 48;
}

bool nm_acct_decode(uint64_t account, uint64_t word, int64_t *balance)
{
	uint64_t low = word & LOW48;
	if (word >> 48 != tag(account, low))
		return false;
	/* sign-extend 48 bits */
	*balance = (int64_t)(low << 16) >> 16;
	return true;
}

uint64_t nm_acct_weight(uint64_t account)
{
	return nm_mix64(account ^ 0x5851f42d4c957f2dull) | 1;
}
