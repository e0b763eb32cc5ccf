/* stall_rhythm.c - stall detector: a sender's rhythms, the timer lengths that recur and its pace.
 */
#include "analyze/detect/stall/stall_int.h"

enum {
	STALL_RECUR_PCT = 2,	      /* near-identical: within 2 % ... */
	STALL_RECUR_MIN_NS = 2000000, /* ... or 2 ms */
	STALL_PACE_PCT = 10,	      /* a pause like S's pace: within 10 % ... */
	STALL_PACE_MIN_NS = 1000000,  /* ... or 1 ms */
};

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* (stall_int.h) */
bool stall_recurs(struct stall_state *st, int64_t dur)
{
	bool hit = false;

	if (dur < STALL_TIMER_MIN_NS)
		return false;
	for (unsigned k = 0; k < st->timer_n; k++) {
		int64_t prev = st->timer_len[k], tol = prev * STALL_RECUR_PCT / 100;
		if (tol < STALL_RECUR_MIN_NS)
			tol = STALL_RECUR_MIN_NS;
		if (abs64(dur - prev) <= tol)
			hit = true;
	}
	st->timer_len[st->timer_head] = dur;
	st->timer_head = (uint8_t)((st->timer_head + 1) % STALL_TIMER_RING);
	if (st->timer_n < STALL_TIMER_RING)
		st->timer_n++;
	return hit;
}

void stall_note_pace(struct stall_state *cold, const struct stall_dir_state *d,
		     const struct tcp_seg *seg, enum sum_dir_id dir)
{
	if (d->mss && d->last_len >= d->mss && seg->len >= d->mss)
		cold->pace_ns[dir] = seg->ts - d->last_tx_ts;
}

bool stall_repeats_pace(const struct stall_state *cold, enum sum_dir_id dir, int64_t pause)
{
	int64_t pace = cold ? cold->pace_ns[dir] : 0, tol = pace * STALL_PACE_PCT / 100;

	if (tol < STALL_PACE_MIN_NS)
		tol = STALL_PACE_MIN_NS;
	return pace > 0 && abs64(pause - pace) <= tol;
}
