/* summary.c - the names of the summary's enums, and joining an evicted connection's parts. */
#include "analyze/engine/summary.h"

#include <string.h>

#include "common/clock.h"

/* Each state's JSON name and a short form for narrow table cells. */
static const struct {
	const char *name, *short_name;
} sum_state_names[SUM_STATE_COUNT] = {
    [SUM_STATE_HANDSHAKE] = {"handshake", "syn"},
    [SUM_STATE_OPEN] = {"open", "open"},
    [SUM_STATE_HALF_CLOSED] = {"half_closed", "half"},
    [SUM_STATE_CLOSED] = {"closed", "fin"},
    [SUM_STATE_RESET] = {"reset", "rst"},
};

const char *sum_state_name(enum sum_state s)
{
	return (unsigned)s < SUM_STATE_COUNT ? sum_state_names[s].name : "unknown";
}

const char *sum_state_label(enum sum_state s, size_t width)
{
	if ((unsigned)s >= SUM_STATE_COUNT)
		return "?";
	return strlen(sum_state_names[s].name) <= width ? sum_state_names[s].name
							: sum_state_names[s].short_name;
}

const char *sum_dir_name(unsigned dir)
{
	return dir == SUM_C2S ? "c2s" : "s2c";
}

const char *sum_event_name(enum sum_event_type t)
{
	static const char *const names[SUM_EV_TYPE_COUNT] = {
	    [SUM_EV_ZERO_WINDOW] = "zero_window",
	    [SUM_EV_CAPTURE_LOSS] = "capture_loss",
	    [SUM_EV_DSACK] = "dsack",
	    [SUM_EV_OVERSIZE] = "oversize_segment",
	    [SUM_EV_RETRANS] = "retransmission",
	    [SUM_EV_DUP_ACK] = "dup_ack",
	    [SUM_EV_OUT_OF_ORDER] = "out_of_order",
	    [SUM_EV_FILL_UNDECIDED] = "fill_undecided",
	    [SUM_EV_CAPTURE_GAP] = "capture_gap",
	    [SUM_EV_TLP_NEW_DATA] = "tlp_new_data",
/* A designated initializer cannot be parenthesised. */
#define DET_EVENT(enum_value, json_name, detector)                                                 \
	[enum_value] = json_name, /* NOLINT(bugprone-macro-parentheses) */
#include "analyze/detect/detectors.h"
	};
	return (unsigned)t < SUM_EV_TYPE_COUNT ? names[t] : "unknown";
}

const char *sum_reorder_by_name(enum sum_reorder_by b)
{
	static const char *const names[SUM_BY_COUNT] = {
	    [SUM_BY_TSVAL] = "tsval",
	    [SUM_BY_IPID] = "ip_id",
	    [SUM_BY_TIMING] = "timing",
	    [SUM_BY_TSECR] = "tsecr",
	    [SUM_BY_ACK] = "ack",
	    [SUM_BY_CAUSALITY] = "causality",
	    [SUM_BY_SECOND_COPY] = "second_copy",
	};
	return (unsigned)b < SUM_BY_COUNT ? names[b] : "unknown";
}

const char *sum_retrans_kind_name(enum sum_retrans_kind k)
{
	static const char *const names[SUM_RTX_KIND_COUNT] = {
	    [SUM_RTX_FAST] = "fast",
	    [SUM_RTX_RTO] = "rto",
	    [SUM_RTX_TLP] = "tlp",
	    [SUM_RTX_OTHER] = "other",
	};
	return (unsigned)k < SUM_RTX_KIND_COUNT ? names[k] : "other";
}

static void rtt_merge(struct sum_rtt *a, const struct sum_rtt *b)
{
	if (!b->n)
		return;
	if (!a->n || b->min_ns < a->min_ns)
		a->min_ns = b->min_ns;
	if (!a->n || b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
	a->n += b->n;
	a->sum_ns = clock_sat_add(a->sum_ns, b->sum_ns);
}

/* The earliest of two times, 0 meaning none. */
static int64_t ts_min(int64_t a, int64_t b)
{
	return !a || (b && b < a) ? b : a;
}

static int64_t ts_max(int64_t a, int64_t b)
{
	return b > a ? b : a;
}

static void dir_merge(struct sum_dir *a, const struct sum_dir *b)
{
	/* Minima only of the parts that saw what they are minima of. */
	if (b->data_packets && (!a->data_packets || b->min_payload < a->min_payload))
		a->min_payload = b->min_payload;
	if (b->packets && (!a->packets || b->min_window < a->min_window))
		a->min_window = b->min_window;
#define SUM_ADD(f) a->f += b->f;
	SUM_ADD(packets) SUM_ADD(ip_bytes) SUM_ADD(data_packets) SUM_ADD(payload_bytes);
	SUM_ADD(unique_bytes) SUM_ADD(pure_acks) SUM_ADD(retrans) SUM_ADD(retrans_bytes);
	SUM_ADD(fast_retrans) SUM_ADD(rto_retrans) SUM_ADD(tlp_retrans) SUM_ADD(tlp_new_data);
	SUM_ADD(spurious_retrans) SUM_ADD(spurious_dsack) SUM_ADD(lost_upstream);
	SUM_ADD(out_of_order) SUM_ADD(fills_undecided) SUM_ADD(lost_segments) SUM_ADD(dup_acks);
	SUM_ADD(ack_reordering) SUM_ADD(zero_windows) SUM_ADD(window_full) SUM_ADD(keepalives);
	SUM_ADD(acked_unseen) SUM_ADD(unseen_bytes) SUM_ADD(sack_acks) SUM_ADD(dsack_blocks);
	SUM_ADD(oversize) SUM_ADD(new_acks) SUM_ADD(syn) SUM_ADD(fin) SUM_ADD(rst);
#undef SUM_ADD
	for (unsigned k = 0; k < SUM_BY_COUNT; k++) {
		a->ooo_by[k] += b->ooo_by[k];
		a->lost_upstream_by[k] += b->lost_upstream_by[k];
	}
	if (b->max_in_flight > a->max_in_flight)
		a->max_in_flight = b->max_in_flight;
	if (b->max_payload > a->max_payload)
		a->max_payload = b->max_payload;
	if (b->max_window > a->max_window)
		a->max_window = b->max_window;
	/* What the SYNs said comes from the part that saw them. */
	if (!a->mss)
		a->mss = b->mss;
	if (a->wscale < 0)
		a->wscale = b->wscale;
	if (!a->isn_known) {
		a->isn = b->isn;
		a->isn_known = b->isn_known;
	}
	rtt_merge(&a->rtt, &b->rtt);
	rtt_merge(&a->rtt_ts, &b->rtt_ts);
	a->first_ts = ts_min(a->first_ts, b->first_ts);
	a->last_ts = ts_max(a->last_ts, b->last_ts);
	a->first_data_ts = ts_min(a->first_data_ts, b->first_data_ts);
	a->last_data_ts = ts_max(a->last_data_ts, b->last_data_ts);
}

/* The smaller of two times, -1 meaning unknown. */
static int64_t known_min(int64_t a, int64_t b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

void sum_conn_merge(struct sum_conn *a, const struct sum_conn *b)
{
	a->roles_from_syn |= b->roles_from_syn;
	a->last_ts = b->last_ts;
	a->last_input = b->last_input;
	a->last_frame = b->last_frame;
	a->state = b->state;
	a->wscale_known |= b->wscale_known;
	a->sack_permitted |= b->sack_permitted;
	a->timestamps |= b->timestamps;
	if (a->handshake_rtt_ns < 0)
		a->handshake_rtt_ns = b->handshake_rtt_ns;
	a->queue_mask |= b->queue_mask;
	a->queues_known |= b->queues_known;
	a->queues_overflow |= b->queues_overflow;
	a->evicted = b->evicted;
	a->evicted_and_resumed = true;
	a->det = b->det;
	/* The smallest sample of either part is the best bound of the path. */
	a->path.rtt_ns = known_min(a->path.rtt_ns, b->path.rtt_ns);
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		a->path.loop_ns[k] = known_min(a->path.loop_ns[k], b->path.loop_ns[k]);
		dir_merge(&a->dir[k], &b->dir[k]);
	}
}

/* ---- two sinks as one ---- */

static void tee_begin(void *ctx, uint64_t id)
{
	const struct sum_tee *t = ctx;
	if (t->a.begin)
		t->a.begin(t->a.ctx, id);
	if (t->b.begin)
		t->b.begin(t->b.ctx, id);
}

static void tee_conn(void *ctx, const struct sum_conn *c)
{
	const struct sum_tee *t = ctx;
	if (t->a.conn)
		t->a.conn(t->a.ctx, c);
	if (t->b.conn)
		t->b.conn(t->b.ctx, c);
}

static void tee_event(void *ctx, const struct sum_event *e)
{
	const struct sum_tee *t = ctx;
	if (t->a.event)
		t->a.event(t->a.ctx, e);
	if (t->b.event)
		t->b.event(t->b.ctx, e);
}

static void tee_frame(void *ctx, const struct sum_event *e)
{
	const struct sum_tee *t = ctx;
	if (t->a.frame)
		t->a.frame(t->a.ctx, e);
	if (t->b.frame)
		t->b.frame(t->b.ctx, e);
}

static void tee_segment(void *ctx, const struct sum_seg *s)
{
	const struct sum_tee *t = ctx;
	if (t->a.segment)
		t->a.segment(t->a.ctx, s);
	if (t->b.segment)
		t->b.segment(t->b.ctx, s);
}

static void tee_forget(void *ctx, uint64_t id)
{
	const struct sum_tee *t = ctx;
	if (t->a.forget)
		t->a.forget(t->a.ctx, id);
	if (t->b.forget)
		t->b.forget(t->b.ctx, id);
}

struct sum_sink sum_tee_sink(const struct sum_tee *t)
{
	const struct sum_sink *a = &t->a, *b = &t->b;
	/* The callbacks' contexts are the tee's, never modified through ctx. */
	return (struct sum_sink){
	    .begin = a->begin || b->begin ? tee_begin : NULL,
	    .conn = a->conn || b->conn ? tee_conn : NULL,
	    .event = a->event || b->event ? tee_event : NULL,
	    .frame = a->frame || b->frame ? tee_frame : NULL,
	    .segment = a->segment || b->segment ? tee_segment : NULL,
	    .forget = a->forget || b->forget ? tee_forget : NULL,
	    .ctx = (void *)(uintptr_t)t,
	};
}
