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

/*
 * A direction's payload sizes live in one block from a size class (mtu.def's
 * DET_POOLS): the first data segment takes a block for one size (48 bytes),
 * a second distinct size moves it to the class above, and so on up to
 * MTU_SIZES. Most directions never send a second size (an idle
 * connection's request), and a block for four would cost them 160 bytes.
 */
#define MTU_DIR_CLASSES 3u			      /* 1, 2, 4 sizes */
#define MTU_SIZES	(1u << (MTU_DIR_CLASSES - 1)) /* largest distinct payload sizes kept */

/* One of a direction's payload sizes: the size, the segments of exactly
 * it, and the first of them. 36 bytes, not 40. */
struct __attribute__((packed, aligned(4))) mtu_size {
	uint32_t payload;
	uint32_t count;
	int64_t ts;
	uint64_t frame;
	uint32_t input, rel_seq;
	uint16_t hdr; /* IP + TCP header bytes of the first one */
	uint16_t opt; /* TCP option bytes of the first one */
};

/* One direction's sizes, from its first data segment on; a direction that
 * never sends data has none (an idle connection's server, most often). */
struct mtu_dir {
	uint32_t bh_rto;      /* RTO re-sends of the black hole candidate, 0: none */
	uint32_t superframes; /* IP length 0 or > 65535: never a wire frame */
	uint8_t nsizes;
	uint8_t cls;		/* its size class: room for 1 << cls sizes */
	struct mtu_size size[]; /* largest first */
};

/* Bytes of a block of class k (mtu.def's DET_POOLS): 48, 84, 156 (the
 * pools' blocks 48, 96, 160). */
#define MTU_DIR_BYTES(k) (sizeof(struct mtu_dir) + ((size_t)1 << (k)) * sizeof(struct mtu_size))

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

/* In the connection (DET_STATE): each direction's block, NULL before its
 * first data segment (or when memory ran out). ops.release returns them. */
struct mtu_state {
	struct mtu_dir *dir[2]; /* by enum sum_dir_id */
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

/* Cold (DET_COLD): only a connection with a timer re-send of a full-size
 * segment or an ICMP too-big needs it. */
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
	uint32_t blackholes;	 /* episodes, both ways */
	uint32_t blackhole_mtu, blackhole_shrunk_mtu, blackhole_resends; /* last episode */
	uint32_t stalls; /* the stall detector's count when collapse was judged */
	/* (The bytes together: 128 bytes, not 136.) */
	bool pmtu_blackhole;
	bool collapse;	     /* misaligned together with stalls / throughput collapse */
	uint8_t collapse_by; /* enum mtu_collapse_by */
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
