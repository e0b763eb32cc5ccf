/* plot_int.h - internal to the graphs (analyze/report/plot*.c): a connection's bounded series. */
#ifndef TCPSIFT_PLOT_INT_H
#define TCPSIFT_PLOT_INT_H

/*
 * One module (plot.h) in three files: plot.c collects (the sink, the
 * per-connection series, the files), plot_svg.c draws SVG, plot_xpl.c
 * writes tcptrace's xplot text. Both writers read a finished struct pl_conn.
 *
 * A connection is kept in one of two forms, per connection:
 *
 *   raw   every packet (struct pl_rec), up to PL_RAW_MAX of them: drawn one
 *         by one, as tcptrace draws them;
 *   cols  beyond that: per data direction PL_COLS columns (struct pl_col),
 *         each a time slice holding minima, maxima and sums of what its
 *         packets said. The slices start 1 us wide and double (two merge
 *         into one) whenever a packet falls beyond the last, as the TUI's
 *         timeline does: a connection of any length and packet count ends
 *         with between PL_COLS / 2 and PL_COLS slices of one width.
 *
 * Anomaly marks (struct pl_mark: retransmissions, late originals, zero
 * windows, capture gaps and losses, SACK holes, stalls) are kept one by
 * one up to PL_MARKS_MAX per connection, in either form; beyond it the
 * connection goes to cols form and further marks are binned per slice,
 * kind and direction (struct pl_bin in pl_conn.over, allocated at the
 * first such mark): counted, never dropped, with the times, bytes and
 * first frame they span. So a connection costs at most PL_RAW_MAX packets
 * and their SACK blocks, PL_MARKS_MAX marks and 2 * PL_COLS slices (some
 * 750 KB, for a moment while it folds; 400 KB in cols form) and, past
 * the marks' cap, 2 * PL_COLS * PL_MK_COUNT bins (650 KB), whatever its
 * length, and only while it is being collected.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/engine/summary.h"
#include "analyze/report/plot.h"

#define PL_RAW_MAX   4096u /* packets drawn one by one per connection */
#define PL_COLS	     1024u /* time slices per direction beyond that */
#define PL_MARKS_MAX 4096u /* anomaly marks kept one by one per connection */
#define PL_COL_NS0   1000  /* a slice's first width (ns), doubled as needed */

/* Per-packet flags of struct pl_rec (sum_seg's, narrowed to what is drawn). */
enum pl_rec_flag {
	PL_R_DATA = 1u << 0,
	PL_R_RETRANS = 1u << 1,
	PL_R_OOO = 1u << 2,
	PL_R_ACK = 1u << 3, /* ack, win and its SACK blocks valid */
	PL_R_ZWIN = 1u << 4,
	PL_R_GAP = 1u << 5,
	PL_R_RTT = 1u << 6,
	PL_R_NEW = 1u << 7, /* new bytes: goodput */
	PL_R_SYN = 1u << 8,
	PL_R_FIN = 1u << 9,
	PL_R_RST = 1u << 10,
};

/* One packet of a raw connection. Times are ns from the connection's first
 * packet; sequences relative (sum_seg). */
struct pl_rec {
	int64_t t;
	int64_t rtt_ns; /* PL_R_RTT: its ACK's sample of the other direction's data */
	uint64_t frame;
	uint32_t seq, len; /* its own direction's */
	uint32_t ack;	   /* PL_R_ACK: the other direction's */
	uint32_t win;	   /* PL_R_ACK: the window it advertises (saturated) */
	uint32_t inflight; /* PL_R_DATA: its direction's snd_nxt - snd_una after it */
	uint32_t sack;	   /* its first block in pl_conn.sacks */
	uint16_t flags;	   /* enum pl_rec_flag */
	int16_t queue;	   /* RX queue, -1 unknown */
	uint8_t dir, nsack;
};

enum pl_mark_kind {
	PL_MK_RETRANS = 0, /* a retransmission (segment) */
	PL_MK_OOO,	   /* an original that arrived late (segment) */
	PL_MK_ZWIN,	   /* an ACK advertising a zero window (point at the ACK) */
	PL_MK_GAP,	   /* a segment that began beyond snd_nxt: bytes never captured */
	PL_MK_LOSS,	   /* capture_loss: bytes ACKed that the capture never saw */
	PL_MK_HOLE,	   /* a SACK hole: its bytes over its lifetime */
	PL_MK_ZWIN_SPAN,   /* zero_window: the window closed that long */
	PL_MK_STALL,	   /* a stall, shaded over its time */
	PL_MK_COUNT,
};

/* The SVG class and legend name of each kind (plot.c). */
extern const char *const pl_mark_class[PL_MK_COUNT];

struct pl_mark {
	int64_t t, dur; /* ns from the first packet; dur -1: a point */
	uint64_t frame;
	uint32_t seq, len; /* the bytes concerned, relative */
	uint8_t kind;	   /* enum pl_mark_kind */
	uint8_t dir;	   /* the data direction */
	uint8_t cls;	   /* PL_MK_STALL: enum stall_class */
	bool timer_like;   /* PL_MK_STALL: a timer-like pause, not a proven stall */
	int16_t queue;
};

/* One time slice of one data direction (cols form). lo > hi: none. */
struct pl_col {
	uint32_t seq_lo, seq_hi; /* data segments: lowest first byte, highest end */
	uint32_t ack_lo, ack_hi; /* the receiver's cumulative ACKs */
	uint32_t win_lo, win_hi; /* ack + window */
	uint32_t sack_hi;	 /* highest SACKed byte (0: none) */
	uint32_t infl_lo, infl_hi;
	uint32_t rwnd_lo, rwnd_hi;
	uint32_t rtt_n;
	int64_t rtt_lo, rtt_hi, rtt_sum;
	uint64_t bytes, good; /* payload sent; new bytes of it */
	int16_t queue;	      /* last data segment's queue, -1 unknown */
	uint8_t have;	      /* enum pl_col_have */
};

/* Marks of one kind taken as one: those beyond PL_MARKS_MAX in a slice,
 * or those a graph draws binned (plot_svg_tseq.c). n 0: empty. */
struct pl_bin {
	uint32_t n;
	uint32_t seq_lo, seq_hi; /* the bytes they cover, relative */
	int64_t t_lo, t_hi;	 /* the first and last mark's time (ns from t0) */
	int64_t t_end;		 /* the latest end (time + duration) */
	uint64_t frame;		 /* the first mark's frame */
};

/* Add mark m to bin b; join bin a into b. */
void pl_bin_add(struct pl_bin *b, const struct pl_mark *m);
void pl_bin_join(struct pl_bin *b, const struct pl_bin *a);

enum pl_col_have {
	PL_C_SEQ = 1u << 0,
	PL_C_ACK = 1u << 1,
	PL_C_INFL = 1u << 2,
	PL_C_RWND = 1u << 3,
	PL_C_RTT = 1u << 4,
};

/* Where a direction stands (both forms keep it, packet by packet). */
struct pl_dirstate {
	uint32_t snd_nxt, snd_una;
	bool have_nxt, have_una;
	uint64_t data_packets, bytes;
	uint32_t seq_max;     /* highest end of its data (the y range) */
	uint64_t win_max;     /* highest ack + window its receiver advertised */
	int64_t t_last;	      /* its last data */
	uint64_t queues_seen; /* bit q: a data segment on RX queue q < 64 */
};

struct pl_conn {
	uint64_t id;
	int64_t t0; /* the first packet's capture time (ns) */
	bool have_t0;
	bool ended;  /* a summary came (ident valid) */
	bool raw;    /* raw form, else cols */
	bool counts; /* it carried data: it counts against --plot-max */
	struct sum_conn_ident ident;
	struct sum_path path; /* the path's RTT: the RTT graph's reference line */
	int64_t t_end;	      /* latest packet, ns from t0 */

	struct pl_rec *recs;
	uint32_t nrecs, cap_recs;
	uint32_t (*sacks)[2];
	uint32_t nsacks, cap_sacks;

	struct pl_mark *marks;
	uint32_t nmarks, cap_marks;
	uint64_t marks_over; /* beyond PL_MARKS_MAX: binned in over */
	/* Marks beyond PL_MARKS_MAX (cols form): per direction, PL_COLS
	 * slices of PL_MK_COUNT bins, [slice * PL_MK_COUNT + kind]; NULL until
	 * the first. */
	struct pl_bin *over[SUM_DIR_COUNT];

	/* cols form: each direction's slices, all col_width ns wide (both
	 * directions double together: an ACK's slice is its data's). */
	struct pl_col *col[SUM_DIR_COUNT]; /* PL_COLS each */
	int64_t col_width;
	uint32_t col_used; /* 1 + the last slice written */
	struct pl_dirstate d[SUM_DIR_COUNT];
	/* What limited each direction, by time slice (the limit detector's
	 * result, from the summary): shaded behind the data. */
	struct limit_dir limit[SUM_DIR_COUNT];
};

/* The files of one connection, one writer each (plot_svg.c, plot_xpl.c):
 * write every graph of c to dir; 0 or ERR_SYSTEM with errbuf set (the
 * first file that failed). */
int pl_svg_write(const struct pl_conn *c, const char *dir, char *errbuf, size_t errlen);
int pl_xpl_write(const struct pl_conn *c, const char *dir, char *errbuf, size_t errlen);

/* Did dir carry data (so its graphs are written)? */
static inline bool pl_has_data(const struct pl_conn *c, unsigned dir)
{
	return c->d[dir].data_packets > 0;
}

/* Open dir/conn-<id>-<c2s|s2c>-<graph>.<ext> for writing; NULL with errbuf set. */
FILE *pl_open(const struct pl_conn *c, const char *dir, unsigned data_dir, const char *graph,
	      const char *ext, char *errbuf, size_t errlen);
/* Close f; ERR_SYSTEM (errbuf set, naming the file) when a write failed. */
int pl_close(FILE *f, const struct pl_conn *c, const char *dir, unsigned data_dir,
	     const char *graph, const char *ext, char *errbuf, size_t errlen);

/* "10.0.0.1:40800 -> 10.0.0.2:8000" in data direction dir's sender order. */
void pl_endpoints(const struct pl_conn *c, unsigned dir, char *buf, size_t len);

#endif
