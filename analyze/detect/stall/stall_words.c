/* stall_words.c - stall detector: the words of its verdicts, a reason, its evidence, the advice. */
#include "analyze/detect/stall/stall_int.h"

/* One definition each: the report keeps a verdict's words by pointer (equal
 * words, equal pointers), so they live here once, not in every file that
 * judges. */

/* What happened (reason), what on the wire decided it (evidence), and the
 * advice that follows from that evidence, if any. */
const char stall_r_nagle[] = "Nagle: a small segment held until the ACK the receiver delayed";
const char stall_e_nagle[] =
    "in flight was below the receiver's window; the gap ended with the receiver's ACK and the "
    "sender at once sent a segment smaller than the MSS";
const char stall_a_nagle[] = "sender: TCP_NODELAY, or one write per message (writev)";
const char stall_r_dack[] = "the sender waited for an ACK the receiver delayed";
const char stall_e_dack[] =
    "in flight was below the receiver's window; the gap ended with the receiver's ACK and the "
    "sender at once sent full segments";
const char stall_a_dack[] =
    "receiver: quick ACKs (TCP_QUICKACK, or `ip route ... quickack 1`); TCP_NODELAY on the sender "
    "would not help";
const char stall_r_rwnd[] =
    "the receiver's window was full: the sender waited for the receiving application to read";
const char stall_e_rwnd[] =
    "in flight filled the receiver's advertised window; the gap ended with the receiver's ACK "
    "and the sender at once sent more";
const char stall_a_rwnd[] =
    "receiver: read sooner, or a larger SO_RCVBUF / tcp_rmem; TCP_NODELAY would not help";
const char stall_r_slow_ack[] =
    "the receiver held its ACK longer than any delayed-ACK timer (RFC 1122: 500 ms)";
const char stall_e_slow_ack[] =
    "in flight was below the receiver's window; the receiver's ACK came after more than 500 ms "
    "and the sender at once sent more";
const char stall_r_late_ack[] =
    "the receiver's ACK came late with two or more full segments unacknowledged: no delayed-ACK "
    "timer waits while it holds a second full segment (RFC 1122 4.2.3.2), so the data or its "
    "ACK was held on the path or in the receiver's host (a busy CPU)";
const char stall_e_late_ack[] =
    "two or more full segments were in flight below the receiver's window; the ACK that ended "
    "the gap covered less than two of them and the sender at once sent more";
const char stall_a_late_ack[] =
    "a capture at the receiver decides where: data arriving late is the path's, an ACK leaving "
    "late is the receiver host's; TCP_NODELAY or quick ACKs would not help";
const char stall_r_early_ack[] =
    "the receiver's ACK came later than the path explains but sooner than any delayed-ACK timer "
    "(Linux: 40 ms), and nothing shows the sender waited for it: the receiver's host (a reader "
    "or a CPU that ran late) held the ACK while the sender's application sent nothing";
const char stall_e_early_ack[] =
    "one segment was in flight below the receiver's window, the receiver having ACKed all "
    "before it; its ACK came after less than 30 ms and the sender then sent full segments";
const char stall_a_early_ack_here[] =
    "this capture is beside the receiver: the data arrived and its ACK left late, so the "
    "receiver's host held it (its application reading late, or its CPU); see the receiver's "
    "CPU and run queue at that time; TCP_NODELAY or quick ACKs would not help";
const char stall_r_dack_noread[] =
    "the receiving application was not reading: a receiver holds the ACK of a second full "
    "segment while the window it could offer is smaller than the last (Linux: "
    "__tcp_ack_snd_check()), until its delayed-ACK timer";
const char stall_e_dack_noread[] =
    "two or more full segments were in flight below the receiver's window; the late ACK that "
    "ended the gap offered a smaller window than the ACK before it (its buffer filled) and the "
    "sender at once sent more";
const char stall_a_dack_noread[] =
    "receiver: read sooner or in larger reads, or a larger SO_RCVBUF / tcp_rmem; TCP_QUICKACK "
    "would end each wait; TCP_NODELAY on the sender would not help";
const char stall_r_held[] =
    "the sender held part of a write (no PSH on its last segment), then sent the rest";
const char stall_e_held[] =
    "the last segment before the gap had no PSH and the window was open; the next segment "
    "continued the same write";
const char stall_a_held[] = "check TCP_CORK / MSG_MORE / SPLICE_F_MORE left set on the "
			    "write (the 2009/2013 splice threads)";
const char stall_r_remainder[] =
    "the sender held the remainder of a write, shorter than a segment, then sent it";
const char stall_e_remainder[] =
    "all ACKed, the last segment full-size; the rest, shorter than a segment, followed with no "
    "data from the receiver: what TCP_CORK / MSG_MORE hold (Nagle sends it with the ACK)";
const char stall_r_timer_turn[] = "timer-like pause at a turn boundary";
const char stall_r_timer_oneway[] = "timer-like pause inside a one-way transfer";
const char stall_e_timer[] =
    "everything sent was pushed and ACKed; the pause matches the ~200 ms kernel timer (TCP_CORK "
    "ceiling / probe / RTO minimum) within a few ms";
const char stall_a_timer[] =
    "ambiguous on the wire: TCP_CORK / MSG_MORE, or an application timer; the sender's writes "
    "(strace -e trace=write,sendmsg,setsockopt) would decide";
const char stall_r_zw[] = "the receiver's window was closed until its window update";
const char stall_r_zw_end[] = "the receiver's window was still closed when the connection ended";
const char stall_e_zw[] = "the receiver advertised a window below one segment";
const char stall_e_zw_probe[] =
    "the receiver advertised a window below one segment with everything ACKed; the sender then "
    "sent exactly what that window allowed, a window probe carrying data (RFC 1122 4.2.2.17, "
    "its sender-side silly-window avoidance 4.2.3.4: the persist timer, not the application, "
    "ended the silence)";
const char stall_e_zw_wait[] =
    "the receiver advertised a window below one segment; its window update ended the gap and "
    "the sender's data followed at once (it had been waiting for the window)";
const char stall_a_zw[] = "receiver: the application did not read; read sooner or raise SO_RCVBUF";
const char stall_r_rto[] =
    "retransmission timeout: the gap ended with a retransmission after an RTO-length silence";
const char stall_e_rto[] =
    "data in flight and no ACK for it; the silence reached the estimated RTO (>= 200 ms)";
const char stall_r_tlp[] =
    "tail-loss probe: the sender re-sent its last segment after ~2 RTT without an ACK (RFC 8985)";
const char stall_e_tlp[] =
    "data in flight, no duplicate ACK or SACK from the receiver; the highest segment was re-sent";
const char stall_a_loss[] =
    "the segment or its ACK was lost: see the retransmissions and SACK holes";
const char stall_a_tlp[] =
    "the last segments or their ACKs were lost, or the receiver held its ACK beyond 2 RTT: a "
    "D-SACK of the probe (spurious) says the latter";
const char stall_r_tlp_new[] =
    "tail-loss probe with new data: no ACK for ~2 RTT, the sender probed with its next segment "
    "(RFC 8985)";
const char stall_e_tlp_new[] =
    "two or more full segments in flight and no ACK from the receiver for the whole gap; the "
    "sender then sent new data without an ACK";
const char stall_r_rwnd_probe[] =
    "the receiver's window was full and it withheld its ACKs until the sender's loss probe";
const char stall_e_rwnd_probe[] =
    "in flight filled the receiver's window; no ACK for the gap until the sender probed";
const char stall_r_tlp_upstream[] =
    "tail-loss probe: the sender's last segments were lost before this capture point, and its "
    "probe timer re-sent them after ~2 RTT (RFC 8985)";
const char stall_r_rto_upstream[] =
    "retransmission timeout: the sender's last segments were lost before this capture point, "
    "and its RTO re-sent them";
const char stall_e_upstream[] =
    "the sender numbers its IPv4 packets with a per-connection counter (IP ID), and the ID of the "
    "segment that ended the gap skipped where packets of the sender went missing; its data went "
    "on from where the capture had it, so the missing packets were re-sent after the silence";
const char stall_a_upstream[] =
    "loss between the sender and this capture point (or the capture dropped it): a capture at "
    "the sender decides which";
const char stall_r_timer_think[] =
    "recurring pause just above the connection's RTO: a held write released by the kernel's "
    "timer after the application's own short delay";
const char stall_e_timer_think[] =
    "everything sent was pushed and ACKed; the pause is the sender's RTO (which also releases "
    "corked data: the probe timer) plus up to 50 ms, and repeats a recent pause within 2 %";
const char stall_r_recovery[] =
    "loss recovery: the gap ended with a retransmission the receiver's duplicate ACKs / SACKs "
    "asked for";
const char stall_e_recovery[] =
    "data in flight; the receiver had reported missing data; a retransmission ended the gap";
