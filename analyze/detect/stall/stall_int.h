/* stall_int.h - internal to the stall detector: what stall.c, stall_classify.c and stall_words.c
 * share. */
#ifndef TCPSIFT_STALL_INT_H
#define TCPSIFT_STALL_INT_H

/*
 * Internal: only analyze/detect/stall/stall*.c (not stall_report.c)
 * include this. The detector is one module (stall.h) in three files:
 *
 *   stall.c           the rules; per packet, finding a gap and keeping
 *                     what the connection looked like at its start
 *   stall_classify.c  what a gap was (its class), the evidence and advice
 *                     it is reported with, and the stall summary
 *   stall_words.c     the words of each verdict: reason, evidence, advice
 *
 * stall_segment() (stall.c) runs for every packet; it calls into
 * stall_classify.c only when a gap ended or a zero-window stall closes,
 * calls that were out of line before the split too.
 */

#include <stdbool.h>
#include <stdint.h>

#include "analyze/detect/stall/stall.h"

/* Stalls from this length on (~200 ms, the shortest timer less a margin)
 * are compared for recurrence. */
#define STALL_TIMER_MIN_NS 180000000ll

/* ---- a sender's rhythms (stall_rhythm.c) ---- */

/* Does a timer-length stall of dur repeat (within 2 %, or 2 ms) one of the
 * last STALL_TIMER_RING such lengths of st? Remembers it either way: timers
 * repeat, people do not. */
bool stall_recurs(struct stall_state *st, int64_t dur);
/*
 * S's pace: its last pause, from one transmission to the next, between two
 * full segments and judged its own (think time or pacing, not a stall).
 * stall_note_pace() remembers seg's pause when it is one (d: S's state
 * before seg). Linux paces each skb len / rate after the one before
 * (tcp_update_skb_after_send()), a write's last one too: a shorter segment
 * after a pause within 10 % (or 1 ms) of the pace (stall_repeats_pace(),
 * cold NULL: no pace yet) is that rate, not a remainder TCP_CORK or
 * MSG_MORE held (a kept lab capture: 142 pauses of 13.8 ms at 2 MB/s, then
 * the write's tail 13.8 ms after its last full segment).
 */
void stall_note_pace(struct stall_state *cold, const struct stall_dir_state *d,
		     const struct tcp_seg *seg, enum sum_dir_id dir);
bool stall_repeats_pace(const struct stall_state *cold, enum sum_dir_id dir, int64_t pause);

/* The packet c->tp->seg ended a gap of the connection: classify it. */
void stall_gap(struct tcp_conn *c, const struct det_env *env);
/* The gap threshold for a silence from a packet of last's sender to one of
 * dir's (stall.c). */
int64_t stall_threshold(const struct tcp_conn *c, const struct det_params *prm,
			enum sum_dir_id last, enum sum_dir_id dir);
/* The loop from the capture point to side's host and back, 0 unknown. */
int64_t stall_answer_time(const struct tcp_conn *c, enum sum_dir_id side);
/* A packet after the ACK that ended a gap: did S wait for that ACK? */
void stall_dack_resolve(struct tcp_conn *c, const struct det_env *env);
/* The packet after a loss-probe-like gap end: burst (S's new data again)
 * makes it think time, else the probe's stall is emitted. */
void stall_probe_resolve(struct tcp_conn *c, const struct det_env *env, bool burst);
/* A packet after R's window update ended a closed-window gap (stall_zw_update()): S's new data
 * confirms it. */
void stall_zw_wait_resolve(struct tcp_conn *c, const struct det_env *env);
/* c's struct stall_rare (and its stall state), taken on first need; NULL
 * when memory ran out (the pools count it). */
struct stall_rare *stall_rare_get(struct tcp_conn *c, const struct det_env *env);

/* dir's open zero-window stall ends at end (frame): R's window update, or
 * (conn_end) the end of the connection. */
void stall_zw_close(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir, int64_t end,
		    uint64_t frame, bool conn_end);

/* stall_words.c: what happened (reason), what on the wire decided it
 * (evidence), and the advice that follows from that evidence, if any. */
extern const char stall_r_nagle[];
extern const char stall_e_nagle[];
extern const char stall_a_nagle[];
extern const char stall_r_dack[];
extern const char stall_e_dack[];
extern const char stall_a_dack[];
extern const char stall_r_rwnd[];
extern const char stall_e_rwnd[];
extern const char stall_a_rwnd[];
extern const char stall_r_slow_ack[];
extern const char stall_e_slow_ack[];
extern const char stall_r_late_ack[];
extern const char stall_e_late_ack[];
extern const char stall_a_late_ack[];
extern const char stall_r_early_ack[];
extern const char stall_e_early_ack[];
extern const char stall_a_early_ack_here[];
extern const char stall_r_dack_noread[];
extern const char stall_e_dack_noread[];
extern const char stall_a_dack_noread[];
extern const char stall_r_held[];
extern const char stall_e_held[];
extern const char stall_a_held[];
extern const char stall_r_remainder[];
extern const char stall_e_remainder[];
extern const char stall_r_timer_turn[];
extern const char stall_r_timer_oneway[];
extern const char stall_e_timer[];
extern const char stall_a_timer[];
extern const char stall_r_zw[];
extern const char stall_r_zw_end[];
extern const char stall_e_zw[];
extern const char stall_e_zw_probe[];
extern const char stall_e_zw_wait[];
extern const char stall_a_zw[];
extern const char stall_r_rto[];
extern const char stall_e_rto[];
extern const char stall_r_tlp[];
extern const char stall_e_tlp[];
extern const char stall_a_loss[];
extern const char stall_a_tlp[];
extern const char stall_r_tlp_new[];
extern const char stall_e_tlp_new[];
extern const char stall_r_rwnd_probe[];
extern const char stall_e_rwnd_probe[];
extern const char stall_r_tlp_upstream[];
extern const char stall_r_rto_upstream[];
extern const char stall_e_upstream[];
extern const char stall_a_upstream[];
extern const char stall_r_timer_think[];
extern const char stall_e_timer_think[];
extern const char stall_r_recovery[];
extern const char stall_e_recovery[];

#endif
