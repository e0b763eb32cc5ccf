/* stall_int.h - internal to the stall detector: what stall.c and stall_classify.c share. */
#ifndef TCPSIFT_STALL_INT_H
#define TCPSIFT_STALL_INT_H

/*
 * Internal: only analyze/detect/stall/stall*.c (not stall_report.c)
 * include this. The detector is one module (stall.h) in two files:
 *
 *   stall.c           the rules; per packet, finding a gap and keeping
 *                     what the connection looked like at its start
 *   stall_classify.c  what a gap was (its class), the evidence and advice
 *                     it is reported with, and the stall summary
 *
 * stall_segment() (stall.c) runs for every packet; it calls into
 * stall_classify.c only when a gap ended or a zero-window stall closes,
 * calls that were out of line before the split too.
 */

#include <stdbool.h>
#include <stdint.h>

#include "analyze/detect/stall/stall.h"

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
/* dir's open zero-window stall ends at end (frame): R's window update, or
 * (conn_end) the end of the connection. */
void stall_zw_close(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir, int64_t end,
		    uint64_t frame, bool conn_end);

#endif
