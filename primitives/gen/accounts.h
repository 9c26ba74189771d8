/* The bank of LOCO's transactional locking benchmark (LOCO paper, section
 * 7.1): n accounts striped over the homes (account i lives on home i mod H,
 * at index i / H there), each home's accounts split into `locks_per_home`
 * blocks of consecutive indexes, one lock per block. Lock keys follow the
 * lock table's contiguous ranges (primitives/locks/lock.h): block s of home
 * h is key h * P + s, homed with its accounts.
 *
 * A balance is a signed 48-bit integer stored with a 16-bit tag computed
 * from the account number and the balance, so a word that was torn, written
 * to the wrong account, or never written is caught when read (with
 * probability 1 - 2^-16 per bad word). */
#ifndef NM_ACCOUNTS_H
#define NM_ACCOUNTS_H
#include <stdbool.h>
#include <stdint.h>

#define NM_ACCT_MAX_BALANCE ((int64_t)1 << 46)  /* |balance| stays far below 2^47 */

typedef struct nm_accounts {
	uint64_t n;          /* accounts */
	int homes;           /* H */
	int locks_per_home;  /* P */
	uint64_t per_home;   /* most accounts on one home: ceil(n / H) */
	uint64_t per_lock;   /* B: consecutive indexes under one lock, ceil(per_home / P) */
} nm_accounts;

void nm_accounts_init(nm_accounts *a, uint64_t n, int homes, int locks_per_home);

static inline int nm_acct_home(const nm_accounts *a, uint64_t i) { return (int)(i % (uint64_t)a->homes); }
static inline uint64_t nm_acct_index(const nm_accounts *a, uint64_t i) { return i / (uint64_t)a->homes; }
/* Accounts held by home h. */
static inline uint64_t nm_acct_count(const nm_accounts *a, int h)
{
	return a->n / (uint64_t)a->homes + ((uint64_t)h < a->n % (uint64_t)a->homes);
}
/* Account number of index j on home h. */
static inline uint64_t nm_acct_number(const nm_accounts *a, int h, uint64_t j)
{
	return j * (uint64_t)a->homes + (uint64_t)h;
}
static inline int nm_acct_slot(const nm_accounts *a, uint64_t i)
{
	return (int)(nm_acct_index(a, i) / a->per_lock);
}
static inline int nm_acct_key(const nm_accounts *a, uint64_t i)
{
	return nm_acct_home(a, i) * a->locks_per_home + nm_acct_slot(a, i);
}
/* Bytes every home reserves: P blocks of B words (the last ones may be
 * partly unused), so block s starts at s * B * 8. */
static inline uint64_t nm_acct_bytes(const nm_accounts *a)
{
	return (uint64_t)a->locks_per_home * a->per_lock * 8;
}

uint64_t nm_acct_encode(uint64_t account, int64_t balance);
/* True and *balance set when the word carries a valid tag for the account. */
bool nm_acct_decode(uint64_t account, uint64_t word, int64_t *balance);
/* Odd pseudo-random weight of an account, for the weighted-sum check: the
 * sum of weight(i) * balance(i) over the bank moves by exactly
 * amount * (weight(to) - weight(from)) per transfer (mod 2^64), so a
 * transfer applied to the wrong accounts, or half applied, shows even when
 * the plain sum is conserved. */
uint64_t nm_acct_weight(uint64_t account);
#endif
