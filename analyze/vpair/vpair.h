/* vpair.h - two captures of the same traffic joined: what happened between the capture points. */
#ifndef TCPSIFT_VPAIR_H
#define TCPSIFT_VPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/engine/summary.h"
#include "analyze/report/report.h"

/*
 * analyze --vantage-pair A B: input 0 and input 1 are two capture points
 * on the path of the same connections (each its own vantage point, so the
 * engine keeps a connection seen at both as two connections). This module
 * takes the engine's per-segment stream (struct sum_seg) and
 *
 *   - joins the two connections of each pair on TCP fields alone, so NAT
 *     of addresses and ports does not matter: the first segment seen at
 *     both points with the same sequence, length, IP ID, TSval and flags
 *     (a SYN's ISN is such a segment);
 *   - matches each segment at one point with its copy at the other by byte
 *     range and the sender's clocks (TSval, IPv4 IP ID): one frame, or a
 *     TSO/GSO super-frame at one point against the MSS-sized pieces GSO or
 *     a router cut it into at the other, or GRO's merge of several;
 *   - estimates the clock offset between the captures from the minimum
 *     one-way delays (assumption: the shortest delay between the points is
 *     the same both ways, offset = (min D_ab + max D_ba) / 2 with D the
 *     timestamp at B minus the one at A), and from it which point each
 *     direction passes first (its upstream);
 *   - counts, per direction: segments lost between the points, reordered
 *     (order at the downstream point against the upstream one, with
 *     extent), duplicated, changed in flight, the one-way delay, and the
 *     segments a capture itself missed (ACKed by the receiver but never
 *     captured at that point while seen at the other).
 *
 * Memory is bounded by live connections: per connection, direction and
 * point a window of at most vp_config.window recent segments (grown as
 * needed); a segment waits at most vp_config.max_offset_ns (of the other
 * capture's clock) for its copy. What overflows either is counted and
 * reported. A joined pair's result (counters and a bounded list of
 * examples) is kept until the report is written.
 */

#define VP_MAX_OFFSET_DEFAULT_NS 2000000000LL /* --vantage-max-offset: 2 s */
#define VP_WINDOW_DEFAULT	 16384	      /* segments per connection, direction, point */
#define VP_LOST_EXAMPLES	 1000	      /* lost segments listed per direction */
#define VP_EXAMPLES		 8	      /* of the other kinds */

struct vp_config {
	const char *names[2];  /* the inputs' paths (borrowed), input 0 and 1 */
	int64_t max_offset_ns; /* 0: VP_MAX_OFFSET_DEFAULT_NS */
	uint32_t window;       /* 0: VP_WINDOW_DEFAULT */
};

struct vpair;

/* NULL with a line in errbuf when out of memory. */
struct vpair *vp_new(const struct vp_config *cfg, char *errbuf, size_t errlen);

/* The sink to tee beside the report's (segments and connection ends);
 * valid while v lives. */
struct sum_sink vp_sink(struct vpair *v);

/* Every connection has ended (after the engine's finish): conclude the
 * pairs still open, estimate the offset, compute the results. */
void vp_finish(struct vpair *v);

/* The report's hooks (JSON "between_points" per joined connection, the
 * document's "vantage_pair", NDJSON "between_points" lines); after
 * vp_finish(). The returned struct points into v. */
struct rep_extra vp_extra(struct vpair *v);

/* The text section: a paragraph per joined connection. 0 or ERR_SYSTEM. */
int vp_write_text(const struct vpair *v, FILE *out);

void vp_free(struct vpair *v); /* NULL is a no-op */

/* ---- results (after vp_finish), for the writers and tests ---- */

enum vp_ex_kind {
	VP_EX_LOST = 0,	    /* seen upstream, never downstream */
	VP_EX_CAPTURE_LOSS, /* missed by one capture (ACKed unseen there) */
	VP_EX_REORDERED,    /* overtaken between the points */
	VP_EX_DUPLICATED,   /* a second copy downstream */
	VP_EX_CHANGED,	    /* TTL, DSCP or MSS changed, or split/merged */
	VP_EX_KIND_COUNT,
};

enum vp_change {
	VP_CH_TTL = 0, /* TTL / hop limit fell by other than the usual hops */
	VP_CH_DSCP,
	VP_CH_MSS, /* a SYN's MSS option changed (clamped) */
	VP_CH_SPLIT,
	VP_CH_MERGED,
	VP_CH_COUNT,
};

struct vp_example {
	int64_t ts; /* at the point it was seen */
	uint64_t frame;
	uint32_t seq, len; /* absolute sequence, payload */
	uint32_t a, b;	   /* reordered: extent, queue switch (1/0, 2 unknown);
			      changed: value upstream, downstream */
	uint16_t ip_id;
	uint8_t point;	/* the input it was seen at (0/1) */
	uint8_t flags;	/* VP_EXF_* */
	uint8_t change; /* changed: enum vp_change */
};

#define VP_EXF_IPID	1u /* ip_id is valid */
#define VP_EXF_PURE_ACK 2u /* no payload, no SYN/FIN */

/* One direction of a joined pair, oriented by its data's travel. */
struct vp_dir_result {
	uint8_t upstream;     /* input the direction passes first (0/1) */
	bool upstream_known;  /* from delays; false: no segment matched */
	bool delays_absolute; /* the offset is known (else delays are relative) */
	uint64_t segments[2]; /* seen at input 0, 1 (after the join) */
	uint64_t matched;     /* downstream segments with their upstream copy */
	uint64_t lost, lost_pure_acks;
	uint64_t reordered, queue_switch_reorders;
	uint32_t max_extent;
	uint64_t duplicated;
	uint64_t changed[VP_CH_COUNT];
	uint64_t capture_loss_up, capture_loss_down;
	uint64_t outside; /* unmatched but outside the other capture's span */
	uint64_t window_overflow, waited_out;
	bool have_owd;
	int64_t owd_min_ns, owd_median_ns, owd_p99_ns;
	int64_t owd_growth_ns; /* median of the last quarter minus the first's */
	uint32_t nex[VP_EX_KIND_COUNT];
	uint64_t ex_left_out[VP_EX_KIND_COUNT];
	struct vp_example *ex[VP_EX_KIND_COUNT]; /* owned by the vpair */
};

struct vp_result {
	uint64_t conn[2]; /* connection ids at input 0 and 1 */
	bool flip;	  /* input 1's c2s is input 0's s2c (roles differ) */
	/* By input 0's direction ids (SUM_C2S/SUM_S2C). */
	struct vp_dir_result dir[SUM_DIR_COUNT];
	char ep[2][2][64]; /* [input][client/server] "ip:port" */
};

/* The result joined to connection id (either point), or NULL; *dir0 gets
 * the direction of input 0 that is that connection's c2s. */
const struct vp_result *vp_result_of(const struct vpair *v, uint64_t conn_id, unsigned *c2s_dir);

/* Totals of the run. */
struct vp_totals {
	uint64_t joined, not_joined[2];
	bool offset_known;
	int64_t offset_ns;	  /* B's clock minus A's */
	bool max_offset_exceeded; /* offset + delay beyond --vantage-max-offset */
	uint64_t join_table_evicted;
};
const struct vp_totals *vp_get_totals(const struct vpair *v);

#endif
