/* mtu_types.h - types of the MTU / alignment detector. */
#ifndef TCPSIFT_MTU_TYPES_H
#define TCPSIFT_MTU_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What one full-size segment looks like on the wire, and the page-alignment
 * rule the detector applies to it (DESIGN.md "MTU / alignment"):
 *
 *   |<------------------------- MTU (implied) -------------------------->|
 *   | IP header | TCP header + options |            payload              |
 *   |  20 / 40  |   20 (+12 with TS)   | n*4096 when healthy (pages)     |
 *   |<------- header bytes H --------->|
 *
 * Above 4096 the healthy form is MTU = n*4096 + H (H = 52 for IPv4 + TCP
 * with timestamps, 40 without, 72/60 for IPv6): full-size payloads then
 * fill whole pages. Anything else leaves every full-size segment straddling
 * pages (the 2013 splice/loopback regression, ../seeds/).
 */

#define MTU_PAGE	 4096u
#define MTU_FULL_REPEAT	 3u /* same largest payload this often: a size cap, not a write size */
#define MTU_BH_MIN_RTO	 2u /* RTO retransmissions of a full-size segment before it shrank */
#define MTU_COLLAPSE_MIN 8u /* full-size segments needed before judging throughput */

#define MTU_SIZES 4u /* largest distinct payload sizes remembered per direction */

/* The first segment of one of a direction's payload sizes (the size and
 * its count: struct mtu_dir_hot, same index). 28 bytes, not 32: four per
 * direction that sent data. */
struct __attribute__((packed, aligned(4))) mtu_size {
	int64_t ts;
	uint64_t frame;
	uint32_t input, rel_seq;
	uint16_t hdr; /* IP + TCP header bytes of the first one */
	uint16_t opt; /* TCP option bytes of the first one */
};

/* Per-direction state of every data segment: the largest segments that fit
 * the MSS, and whether a black hole run is open (struct mtu_state). */
struct mtu_dir_hot {
	uint32_t payload[MTU_SIZES]; /* largest first */
	uint32_t count[MTU_SIZES];   /* segments of exactly that payload */
	uint32_t bh_rto;	     /* RTO re-sends of the black hole candidate, 0: none */
	uint8_t nsizes;
};

/* Per-connection state read or written for every segment (inside struct
 * tcp_conn's det_hot, next to the segment record: see tcp.h). */
struct mtu_hot {
	/* Idle gaps of the connection, for the throughput-collapse test: the
	 * latest packet, and the silences since, not bracketed by the peer's
	 * data, per data dir. */
	int64_t last_ts;
	int64_t idle_ns[2];
	uint8_t last_dir;
	bool have_last, last_data;
};

/* One direction's payload sizes (DET_COLD, one block per direction:
 * mtu_c2s, mtu_s2c): from its first data segment on; a direction that never
 * sends data has none (an idle connection's server, most often). */
struct mtu_state {
	struct mtu_dir_hot hot;
	struct mtu_size sizes[MTU_SIZES]; /* as hot.payload */
	uint32_t superframes;		  /* IP length 0 or > 65535: never a wire frame */
};

/* Per-direction PMTU state: black holes and ICMP too-big. */
struct mtu_pmtu_dir {
	/* PMTU black hole (RFC 4821): a full-size segment re-sent by RTO. */
	uint32_t bh_seq, bh_len;
	uint16_t bh_hdr;
	int64_t bh_first_ts;
	uint64_t bh_first_frame;
	uint32_t blackholes;
	uint32_t bh_big_mtu, bh_small_mtu, bh_resends; /* last episode */
	uint32_t icmp_too_big;
	uint32_t icmp_mtu;
};

/* Cold (DET_COLD) too, apart from struct mtu_state: only a connection with
 * a timer re-send of a full-size segment or an ICMP too-big needs it. */
struct mtu_pmtu_state {
	struct mtu_pmtu_dir dir[2]; /* by enum sum_dir_id */
	uint32_t icmp_ptb;	    /* ICMP too-big quoting the connection (both ways) */
	uint32_t icmp_mtu;	    /* the MTU the last one carried */
};

/* Why a misaligned connection was also called a collapse (mtu_summary.collapse). */
enum mtu_collapse_by {
	MTU_COLLAPSE_NONE = 0,
	MTU_COLLAPSE_STALLS,	 /* the stall detector found stalls in it */
	MTU_COLLAPSE_THROUGHPUT, /* idle most of its transfer time, without the peer's turn */
	MTU_COLLAPSE_BY_COUNT,
};

struct mtu_summary {
	uint32_t implied_mtu[2];     /* per direction, from the largest payload */
	uint32_t largest_payload[2]; /* largest payload not above the peer's MSS */
	uint32_t header_bytes[2];    /* IP + TCP header of that segment */
	uint32_t mss[2];	     /* MSS announced in the SYN of the sender (0: unknown) */
	bool full_size[2];	     /* that payload is MSS-limited, so the MTU is real */
	bool misaligned_dir[2];
	uint8_t dir;	 /* direction the single-value fields below describe */
	bool misaligned; /* an MTU above 4096 not of the form n*4096 + 52 */
	uint32_t aligned_below, aligned_above; /* nearest healthy MTUs */
	uint32_t payload_mod_4096;
	uint32_t oversize_segments; /* both ways; tcp.c counts and emits them */
	uint32_t oversize[2];
	uint32_t superframes[2]; /* IP length 0 / IPv4 above 65535 (TSO, BIG TCP) */
	uint32_t icmp_too_big;	 /* ICMP frag-needed / ICMPv6 PTB tied to it */
	uint32_t icmp_mtu;	 /* the MTU they carried (last) */
	bool pmtu_blackhole;
	uint32_t blackholes;						 /* episodes, both ways */
	uint32_t blackhole_mtu, blackhole_shrunk_mtu, blackhole_resends; /* last episode */
	bool collapse;	     /* misaligned together with stalls / throughput collapse */
	uint8_t collapse_by; /* enum mtu_collapse_by */
	uint32_t stalls;     /* the stall detector's count when collapse was judged */
	int64_t stall_ns;
	int64_t idle_ns, transfer_ns; /* of dir, when judged (transfer_ns 0: not) */
};

/* What a "pmtu" event reports. */
enum mtu_pmtu_kind {
	MTU_PMTU_NONE = 0,  /* an mtu_alignment event */
	MTU_PMTU_ICMP,	    /* ICMP frag-needed / ICMPv6 packet too big */
	MTU_PMTU_BLACKHOLE, /* full-size segments re-sent by RTO until they shrank */
	MTU_PMTU_KIND_COUNT,
};

/* Detail of an "mtu_alignment" / "pmtu" event. */
struct mtu_event {
	uint32_t mtu; /* alignment: the implied MTU; ICMP: the MTU it carried;
			 black hole: the MTU of the shrunk segment */
	uint32_t aligned_below, aligned_above;
	uint32_t payload;	   /* alignment: the full-size payload; black hole: the big one */
	uint32_t payload_mod_4096; /* alignment */
	uint32_t big_mtu;	   /* black hole: the MTU of the segments that vanished */
	uint32_t retransmissions;  /* black hole: RTO re-sends of the big segment */
	uint8_t kind;		   /* enum mtu_pmtu_kind */
	uint8_t icmp_type, icmp_code;
	const char *reason; /* static string */
};

/* Totals over a run (analyze/report/det_view.h). */
struct mtu_totals {
	uint64_t misaligned, collapse, blackholes, icmp_too_big, events;
};

#endif
