/* sackboard_tab.c - the SACK scoreboard's tables: remembered SACKed ranges and holes, their memory.
 */
#include <string.h>

#include "analyze/detect/sack/sackboard_int.h"

_Static_assert((SACKB_TAB_MIN << (SACKB_TAB_CLASSES - 1)) == SACKB_MAX_HOLES, "table classes");
_Static_assert(SACKB_MAX_HOLES <= UINT16_MAX / 2, "struct sackb_dir counts in uint16_t");
_Static_assert(sizeof(struct sackb_hole) % 8 == 0, "the blocks follow the holes, aligned");

static unsigned tab_cls(unsigned cap)
{
	return (unsigned)__builtin_ctz(cap) - (unsigned)__builtin_ctz(SACKB_TAB_MIN);
}

/* The cap: SACKB_MAX_HOLES, or a smaller power of two a test asked for. */
static unsigned tab_max(const struct det_env *env)
{
	unsigned m = env->prm ? env->prm->sack_max_holes : 0, cap = SACKB_TAB_MIN;

	if (!m || m > SACKB_MAX_HOLES)
		return SACKB_MAX_HOLES;
	while (2 * cap <= m)
		cap *= 2;
	return cap;
}

/* Double sd's table (or take the first): holes, then blocks, in one block
 * of the size class. Rare: a handful of times per direction at most. */
static bool tab_grow(struct sackb_dir *sd, const struct det_env *env)
{
	unsigned cap = sd->cap, want = cap ? 2 * cap : SACKB_TAB_MIN;

	if (want > tab_max(env))
		return false;
	struct sackb_hole *p = pool_get_raw(env->pools->sack_tab[tab_cls(want)]);
	if (!p)
		return false; /* counted by the pool: det_pools_failed() */
	struct sackb_block *b = (struct sackb_block *)(p + want);
	if (sd->holes) {
		memcpy(p, sd->holes, sd->nholes * sizeof(*p));
		memcpy(b, sd->blocks, sd->nblocks * sizeof(*b));
		pool_put(env->pools->sack_tab[tab_cls(cap)], sd->holes);
	}
	sd->holes = p;
	sd->blocks = b;
	sd->cap = (uint16_t)want;
	return true;
}

bool sackb_room(struct sackb_dir *sd, const struct det_env *env, uint16_t n)
{
	return n < sd->cap || tab_grow(sd, env);
}

void sackb_tab_put(struct sackb_dir *sd, const struct det_env *env)
{
	if (sd->holes)
		pool_put(env->pools->sack_tab[tab_cls(sd->cap)], sd->holes);
	sd->holes = NULL;
	sd->blocks = NULL;
	sd->cap = sd->nholes = sd->nblocks = 0;
}

/*
 * R SACKed [l, r) and the table has no room for it: forget it. Gaps at or
 * above it can no longer be told from the ranges R SACKed and stops
 * reporting (it reports its 3-4 most recent, RFC 2018 sec. 4), so they are
 * counted, not tracked: one more hole if it starts above every gap seen.
 */
static void block_forget(struct sackb_dir *sd, struct sackb_summary *sum, uint32_t l, uint32_t r)
{
	if (!sd->capped || seq_lt(l, sd->horizon))
		sd->horizon = l;
	sd->capped = true;
	/* sack_ack() set gap_high (at least snd_una) before any block. */
	if (seq_gt(l, sd->gap_high))
		sum->overflow++;
	if (seq_gt(r, sd->gap_high)) {
		sum->block_overflow++; /* once per range, not per ACK repeating it */
		sd->gap_high = r;
	}
}

uint32_t sackb_block_after(const struct sackb_dir *sd, uint32_t seq)
{
	uint32_t lo = 0, hi = sd->nblocks;

	/* The blocks are sorted and all within 2^30 of snd_una: binary search. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (seq_le(sd->blocks[mid].right, seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merge [l, r) into the sorted, disjoint, non-adjacent blocks. */
bool sackb_blocks_insert(struct sackb_dir *sd, const struct det_env *env, struct sackb_summary *sum,
			 uint32_t l, uint32_t r)
{
	if (sd->capped && seq_ge(l, sd->horizon)) {
		block_forget(sd, sum, l, r);
		return false;
	}
	uint32_t n = sd->nblocks, i = 0, j;
	struct sackb_block *b = sd->blocks;

	while (i < n && seq_lt(b[i].right, l))
		i++;
	for (j = i; j < n && seq_le(b[j].left, r); j++) {
		l = seq_min(l, b[j].left);
		r = seq_max(r, b[j].right);
	}
	if (j > i) {
		bool same = j == i + 1 && b[i].left == l && b[i].right == r;
		b[i].left = l;
		b[i].right = r;
		memmove(&b[i + 1], &b[j], (n - j) * sizeof(b[0]));
		sd->nblocks = (uint16_t)(n - (j - i - 1));
		return !same;
	}
	if (!sackb_room(sd, env, (uint16_t)n)) {
		if (i == n) {
			block_forget(sd, sum, l, r);
			return false;
		}
		/* A range below the highest: it may split a tracked hole, so
		 * it is kept and the highest range forgotten instead. */
		n--;
		block_forget(sd, sum, b[n].left, b[n].right);
	}
	b = sd->blocks; /* the table may have moved */
	memmove(&b[i + 1], &b[i], (n - i) * sizeof(b[0]));
	b[i].left = l;
	b[i].right = r;
	sd->nblocks = (uint16_t)(n + 1);
	return true;
}

bool sackb_blocks_prune(struct sackb_dir *sd, uint32_t una)
{
	uint32_t k = 0;
	bool changed = false;

	while (k < sd->nblocks && seq_le(sd->blocks[k].right, una))
		k++;
	if (k) {
		memmove(&sd->blocks[0], &sd->blocks[k], (sd->nblocks - k) * sizeof(sd->blocks[0]));
		sd->nblocks = (uint16_t)(sd->nblocks - k);
		changed = true;
	}
	if (sd->nblocks && seq_lt(sd->blocks[0].left, una)) {
		sd->blocks[0].left = una;
		changed = true;
	}
	if (sd->capped && seq_ge(una, sd->horizon))
		sd->capped = false; /* everything below the horizon is settled */
	return changed;
}

bool sackb_covered(const struct sackb_dir *sd, uint32_t una, uint32_t start, uint32_t end)
{
	uint32_t pos = seq_max(start, una);

	for (uint32_t k = sackb_block_after(sd, pos); k < sd->nblocks && seq_lt(pos, end); k++) {
		const struct sackb_block *b = &sd->blocks[k];
		if (seq_gt(b->left, pos))
			return false;
		if (seq_gt(b->right, pos))
			pos = b->right;
	}
	return seq_ge(pos, end);
}

void sackb_hole_remove(struct sackb_dir *sd, uint32_t k)
{
	memmove(&sd->holes[k], &sd->holes[k + 1], (sd->nholes - k - 1) * sizeof(sd->holes[0]));
	sd->nholes--;
}
