/* tcp.h - per-connection TCP state: both directions, RFC 9293 names. */
#ifndef TCPSIFT_TCP_H
#define TCPSIFT_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/decode.h"
#include "analyze/summary.h"
#include "capture/pkt.h"

/*
 * One struct tcp_conn per connection instance, fixed size (no allocation
 * per segment). Each direction has a struct tcp_half describing the
 * sender of that direction (S) as seen through its own segments and the
 * ACKs of the other side (R):
 *
 *        snd_una            snd_nxt
 *   ------|====in flight=====|------>  sequence space of S
 *             [hole]  [hole]           ranges below snd_nxt never captured
 *
 * The table of holes tells a retransmission (bytes seen before) from a
 * segment that fills a gap (an out-of-order original or a retransmission of
 * bytes lost before the capture point); ACKs covering a hole mean the capture
 * lost those bytes.
 */

#define TCP_SENT_RING 32 /* outstanding segments remembered for RTT (Karn) */
#define TCP_TS_RING   16 /* TSvals remembered for TSecr RTT samples */
#define TCP_MAX_HOLES 16 /* unseen ranges tracked per direction */

struct tcp_params {
	int64_t rto_min_ns;	   /* floor of the RTO estimate (Linux TCP_RTO_MIN: 200 ms) */
	int64_t reorder_window_ns; /* timing fallback when min RTT is unknown (3 ms) */
};

struct tcp_hole {
	uint32_t start, end;	 /* [start, end) never seen */
	int64_t open_ts;	 /* when the gap appeared */
	uint64_t open_data_pkts; /* data segments of the direction at that time */
	uint64_t open_frame;
};

struct tcp_sent {
	uint32_t end; /* sequence just past the segment */
	bool retransmitted;
	int64_t ts;
};

struct tcp_tsrec {
	uint32_t tsval;
	bool echoed;
	int64_t ts;
};

struct tcp_half {
	struct sum_dir st; /* exported statistics */

	uint32_t base;	  /* relative sequence 0: ISN, else first sequence seen */
	uint32_t snd_una; /* highest cumulative ACK from the peer */
	uint32_t snd_nxt; /* highest sequence end sent */
	bool have_nxt, have_una;
	bool syn_seen, fin_seen, rst_seen;
	bool ws_opt, sack_opt, ts_opt; /* options in this side's SYN */

	/* The segment that last advanced snd_nxt: the reorder reference. */
	uint32_t high_tsval;
	bool high_has_ts, high_has_ipid;
	uint16_t high_ipid;
	int64_t high_ts;

	/* IPv4 IP ID behaviour, learned per flow (tstat, Zeek do the same). */
	uint16_t last_ipid;
	bool have_ipid;
	uint32_t ipid_up, ipid_other;

	/* ACKs this side sent, for duplicate-ACK detection (RFC 5681 sec. 2). */
	uint32_t last_ack;
	uint16_t last_win_raw;
	bool have_last_ack;
	uint32_t dupack_run; /* consecutive dup ACKs, reset by an advancing ACK */
	bool sacking;	     /* its last ACK carried SACK blocks above the ACK */

	int64_t last_ts;	    /* last segment from this side */
	int64_t srtt_ns, rttvar_ns; /* RFC 6298 estimator over rtt samples */

	bool in_zero_window;
	int64_t zw_start;
	uint64_t zw_frame;
	uint32_t zw_input;
	bool oversize_reported;
	bool keepalive_pending; /* its last segment was a keep-alive: the reply is no dup ACK */

	uint8_t sent_head, sent_len;
	struct tcp_sent sent[TCP_SENT_RING];
	uint8_t tsring_head;
	struct tcp_tsrec tsring[TCP_TS_RING];
	uint8_t nholes;
	uint32_t hole_overflow; /* gaps not tracked because the table was full */
	struct tcp_hole holes[TCP_MAX_HOLES];
};

struct tcp_conn {
	struct sum_conn info; /* identity, roles, flags; stats live in half[].st */
	struct tcp_half half[SUM_DIR_COUNT];
	int64_t syn_ts; /* last SYN from the client, for handshake RTT */
	bool syn_ts_valid;
	bool handshake_done;
};

/*
 * Set up a new connection whose first packet goes from (src, sport) to
 * (dst, dport). Roles: a SYN without ACK makes its sender the client, a
 * SYN/ACK its receiver; otherwise the port heuristic in tcp.c decides.
 */
void tcp_conn_init(struct tcp_conn *c, uint64_t id, const struct dec_packet *d,
		   const struct pkt *p);

/* Which direction a decoded packet of this connection travels. */
enum sum_dir_id tcp_conn_dir(const struct tcp_conn *c, const struct dec_packet *d);

/*
 * A SYN without ACK on an existing connection that is not a retransmission
 * of the client's SYN starts a new instance (port reuse, RFC 9293 3.10.7.4).
 */
bool tcp_is_new_instance(const struct tcp_conn *c, const struct dec_packet *d);

/* Account one segment. Events found go to sink (may be NULL). */
void tcp_segment(struct tcp_conn *c, const struct tcp_params *prm, const struct dec_packet *d,
		 const struct pkt *p, const struct sum_sink *sink);

/* Fill the summary of the connection as it stands (it may go on). */
void tcp_summarize(const struct tcp_conn *c, struct sum_conn *out);

/* FIN seen both ways, or a RST. */
bool tcp_is_closed(const struct tcp_conn *c);

/* Close open episodes (zero window) at the end of the connection. */
void tcp_finish(struct tcp_conn *c, const struct sum_sink *sink);

#endif
