/* json.c - JSON (schema 2) and NDJSON reporters: every object written once, streamed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/dirjson.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/parjson.h"
#include "analyze/report/report.h"

/*
 * The contract is tcpsift-json(5) (schema 2), checked by
 * man/tcpsift-report.schema.json. Keys are sorted and connections come in
 * first-packet order so the same capture always gives the same bytes
 * (golden tests rely on it). Times are seconds written exactly from
 * integer nanoseconds. Schema 2 (against 1): times carry every digit the
 * source had (1 rounded them to microseconds through a double).
 */

#define REP_JSON_SCHEMA 2

JO_KEYED void w_rtt(struct jo_writer *w, const char *key, const struct sum_rtt *r)
{
	jo_w_key(w, key);
	if (!r->n) {
		jo_w_null(w);
		return;
	}
	jo_w_obj(w);
	jo_ksec(w, "avg_s", r->sum_ns / (int64_t)r->n);
	jo_ksec(w, "max_s", r->max_ns);
	jo_ksec(w, "min_s", r->min_ns);
	jo_kint(w, "samples", (int64_t)r->n);
	jo_w_obj_end(w);
}

JO_KEYED void w_rate(struct jo_writer *w, const char *key, uint64_t bytes, int64_t dur_ns)
{
	if (dur_ns <= 0)
		jo_knull(w, key);
	else
		jo_kreal(w, key, (double)bytes * 8.0 / ((double)dur_ns / 1e9));
}

/* "ip:port" as a string value. */
static void w_endpoint(struct jo_writer *w, const struct dec_addr *a, uint16_t port)
{
	char buf[64];
	rep_format_endpoint(a, port, buf, sizeof(buf));
	jo_w_str(w, buf);
}

/* Counts by enum sum_reorder_by, one key per rule (summary.c names them). */
JO_KEYED void w_by(struct jo_writer *w, const char *key, const uint64_t by[SUM_BY_COUNT])
{
	const char *names[SUM_BY_COUNT];

	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		names[k] = sum_reorder_by_name((enum sum_reorder_by)k);
	jo_w_key(w, key);
	jo_w_named_counts(w, names, by, SUM_BY_COUNT);
}

/* One direction's statistics as an object value; peer is the other
 * direction (for the ACK ratio). The members come from dirjson.h, which
 * the reader (jsonin.c) reads back from. */
#define DJ_U64_W(key, m) jo_kint(w, key, (int64_t)d->m);
#define DJ_BY_W(key, m)	 w_by(w, key, d->m);
#define DJ_RTT_W(key, m) w_rtt(w, key, &d->m);
#define DJ_TS_W(key, m)                                                                            \
	if (d->packets)                                                                            \
		jo_ksec(w, key, d->m);                                                             \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_U64_PKT_W(key, m)                                                                       \
	if (d->packets)                                                                            \
		jo_kint(w, key, (int64_t)d->m);                                                    \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_U32_DATA_W(key, m)                                                                      \
	if (d->data_packets)                                                                       \
		jo_kint(w, key, d->m);                                                             \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_U32_NZ_W(key, m)                                                                        \
	if (d->m)                                                                                  \
		jo_kint(w, key, d->m);                                                             \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_ISN_W(key, m)                                                                           \
	if (d->isn_known)                                                                          \
		jo_kint(w, key, d->m);                                                             \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_WSCALE_W(key, m)                                                                        \
	if (d->m >= 0)                                                                             \
		jo_kint(w, key, d->m);                                                             \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_AVG_PAYLOAD_W(key, m)                                                                   \
	if (d->data_packets)                                                                       \
		jo_kreal(w, key, (double)d->payload_bytes / (double)d->data_packets);              \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_GOODPUT_W(key, m)	w_rate(w, key, d->unique_bytes, dur_ns);
#define DJ_THROUGHPUT_W(key, m) w_rate(w, key, d->payload_bytes, dur_ns);
#define DJ_SEG_PER_ACK_W(key, m)                                                                   \
	if (peer->new_acks)                                                                        \
		jo_kreal(w, key, (double)d->data_packets / (double)peer->new_acks);                \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_LOSS_RATE_W(key, m)                                                                     \
	if (sum_loss_rate(d) >= 0)                                                                 \
		jo_kreal(w, key, sum_loss_rate(d));                                                \
	else                                                                                       \
		jo_knull(w, key);
#define DJ_VANTAGE_W(key, m) jo_kstr(w, key, sum_vantage_name(sum_vantage_side(&c->path, dir)));
#define DJ_W(key, kind, m)                                                                         \
	dir_det_upto(&dw, key);                                                                    \
	kind##_W(key, m)

/* strcmp() of two keys, most of which differ in their first byte: that
 * compare inline (the merges below ask before each of ~200 keys a
 * connection). */
static inline int key_cmp(const char *a, const char *b)
{
	if (*a != *b)
		return (unsigned char)*a - (unsigned char)*b;
	return strcmp(a, b);
}

/* The detectors' members of a direction (their views' dir_key), merged in
 * key order with its own (dirjson.h). */
struct dir_writer {
	struct jo_writer *w;
	const struct sum_conn *c;
	unsigned dir, ndet, next;
	const struct det_view *det[DET_VIEW_COUNT]; /* by dir_key */
};

static void dir_writer_init(struct dir_writer *dw, struct jo_writer *w, const struct sum_conn *c,
			    unsigned dir)
{
	dw->w = w;
	dw->c = c;
	dw->dir = dir;
	dw->ndet = dw->next = 0;
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
		unsigned j = dw->ndet;
		if (!det_views[k]->dir_key)
			continue;
		dw->ndet++;
		for (; j > 0 && key_cmp(dw->det[j - 1]->dir_key, det_views[k]->dir_key) > 0; j--)
			dw->det[j] = dw->det[j - 1];
		dw->det[j] = det_views[k];
	}
}

/* Every detector member sorting before key (NULL: all that are left). */
static void dir_det_write(struct dir_writer *dw, const char *key)
{
	while (dw->next < dw->ndet && (!key || key_cmp(dw->det[dw->next]->dir_key, key) < 0)) {
		const struct det_view *v = dw->det[dw->next++];
		jo_w_key(dw->w, v->dir_key);
		v->json_dir(dw->w, dw->c, dw->dir);
	}
}

/* The same, its first test inline: asked before each of a direction's ~50
 * keys, it writes something before 3 of them (a call each: 2 % of --json's
 * instructions at 20 000 connections). */
static inline __attribute__((always_inline)) void dir_det_upto(struct dir_writer *dw,
							       const char *key)
{
	if (dw->next < dw->ndet && (!key || key_cmp(dw->det[dw->next]->dir_key, key) < 0))
		dir_det_write(dw, key);
}

static void w_dir(struct jo_writer *w, const struct sum_conn *c, unsigned dir, int64_t dur_ns)
{
	const struct sum_dir *d = &c->dir[dir], *peer = &c->dir[!dir];
	struct dir_writer dw;

	dir_writer_init(&dw, w, c, dir);
	jo_w_obj(w);
	SUM_DIR_JSON(DJ_W)
	dir_det_upto(&dw, NULL);
	jo_w_obj_end(w);
}

/* ns as seconds, null when negative (unknown). */
JO_KEYED void w_sec_or_null(struct jo_writer *w, const char *key, int64_t ns)
{
	if (ns >= 0)
		jo_ksec(w, key, ns);
	else
		jo_knull(w, key);
}

JO_KEYED void w_mss_or_null(struct jo_writer *w, const char *key, uint32_t mss)
{
	if (mss)
		jo_kint(w, key, mss);
	else
		jo_knull(w, key);
}

/*
 * A connection's members come in sorted order from two places: its own
 * (below) and one per detector (its view's conn_key). Before each of its
 * own keys, conn_key() writes the detectors' members that sort before it.
 */
struct conn_writer {
	struct jo_writer *w;
	const struct sum_conn *c;
	const struct det_view *det[DET_VIEW_COUNT]; /* by conn_key, those that have one */
	unsigned ndet, next;
};

static void conn_writer_init(struct conn_writer *cw, struct jo_writer *w, const struct sum_conn *c)
{
	cw->w = w;
	cw->c = c;
	cw->next = 0;
	cw->ndet = 0;
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
		unsigned j = cw->ndet++;
		if (!det_views[k]->conn_key) { /* its members are in the directions' */
			cw->ndet--;
			continue;
		}
		for (; j > 0 && key_cmp(cw->det[j - 1]->conn_key, det_views[k]->conn_key) > 0; j--)
			cw->det[j] = cw->det[j - 1];
		cw->det[j] = det_views[k];
	}
}

/* Every detector member sorting before key (NULL: all that are left). */
static void conn_det_write(struct conn_writer *cw, const char *key)
{
	while (cw->next < cw->ndet && (!key || key_cmp(cw->det[cw->next]->conn_key, key) < 0)) {
		const struct det_view *v = cw->det[cw->next++];
		jo_w_key(cw->w, v->conn_key);
		v->json_conn(cw->w, cw->c);
	}
}

/* The same, its first test inline (as dir_det_upto()). */
static inline __attribute__((always_inline)) void conn_det_upto(struct conn_writer *cw,
								const char *key)
{
	if (cw->next < cw->ndet && (!key || key_cmp(cw->det[cw->next]->conn_key, key) < 0))
		conn_det_write(cw, key);
}

/* The detectors' members that sort before key, then key itself: the
 * writer, ready for key's value. */
JO_KEYED struct jo_writer *conn_key(struct conn_writer *cw, const char *key)
{
	conn_det_upto(cw, key);
	jo_w_key(cw->w, key);
	return cw->w;
}

static void jw_conn(struct jo_writer *w, const struct sum_conn *c, const char *kind,
		    const struct rep_extra *x)
{
	int64_t dur = c->last_ts - c->first_ts;
	struct conn_writer cw;

	conn_writer_init(&cw, w, c);
	jo_w_obj(w);
	if (x && x->conn_json) {
		conn_det_upto(&cw, "c2s");
		x->conn_json(x->ctx, w, c);
	}
	w_dir(conn_key(&cw, "c2s"), c, SUM_C2S, dur);
	w_endpoint(conn_key(&cw, "client"), &c->client, c->client_port);
	jo_w_sec(conn_key(&cw, "duration_s"), dur);
	jo_w_bool(conn_key(&cw, "evicted"), c->evicted);
	jo_w_bool(conn_key(&cw, "evicted_and_resumed"), c->evicted_and_resumed);
	jo_w_sec(conn_key(&cw, "first_ts"), c->first_ts);
	jo_w_int(conn_key(&cw, "first_ts_ns"), c->first_ts);
	jo_w_arr(conn_key(&cw, "frames"));
	jo_w_int(w, (int64_t)c->first_frame);
	jo_w_int(w, (int64_t)c->last_frame);
	jo_w_arr_end(w);
	conn_key(&cw, "handshake_rtt_s");
	if (c->handshake_rtt_ns >= 0)
		jo_w_sec(w, c->handshake_rtt_ns);
	else
		jo_w_null(w);
	jo_w_int(conn_key(&cw, "id"), (int64_t)c->id);
	jo_w_int(conn_key(&cw, "input"), c->first_input);
	if (kind)
		jo_w_str(conn_key(&cw, "kind"), kind);
	jo_w_int(conn_key(&cw, "last_input"), c->last_input);
	jo_w_sec(conn_key(&cw, "last_ts"), c->last_ts);
	if (c->live_from) { /* a shard's: [entered, left before] (null: at the end) */
		jo_w_arr(conn_key(&cw, "live"));
		jo_w_int(w, (int64_t)c->live_from);
		if (c->live_until == UINT64_MAX || c->live_until > INT64_MAX)
			jo_w_null(w);
		else
			jo_w_int(w, (int64_t)c->live_until);
		jo_w_arr_end(w);
	}
	jo_w_obj(conn_key(&cw, "loop_rtt_s"));
	w_sec_or_null(w, "client", c->path.loop_ns[SUM_C2S]);
	w_sec_or_null(w, "server", c->path.loop_ns[SUM_S2C]);
	jo_w_obj_end(w);
	jo_w_obj(conn_key(&cw, "mss"));
	w_mss_or_null(w, "client", c->dir[SUM_C2S].mss);
	w_mss_or_null(w, "server", c->dir[SUM_S2C].mss);
	jo_w_obj_end(w);
	conn_key(&cw, "path_rtt_s");
	if (c->path.rtt_ns >= 0)
		jo_w_sec(w, c->path.rtt_ns);
	else
		jo_w_null(w);
	jo_w_arr(conn_key(&cw, "queues"));
	for (unsigned q = 0; q < 64; q++)
		if (c->queue_mask & (1ull << q))
			jo_w_int(w, q);
	jo_w_arr_end(w);
	jo_w_bool(conn_key(&cw, "roles_from_syn"), c->roles_from_syn);
	w_dir(conn_key(&cw, "s2c"), c, SUM_S2C, dur);
	jo_w_bool(conn_key(&cw, "sack_permitted"), c->sack_permitted);
	w_endpoint(conn_key(&cw, "server"), &c->server, c->server_port);
	jo_w_str(conn_key(&cw, "state"), sum_state_name(c->state));
	jo_w_bool(conn_key(&cw, "timestamps"), c->timestamps);
	jo_w_int(conn_key(&cw, "vantage"), c->vantage);
	jo_w_bool(conn_key(&cw, "window_scale_known"), c->wscale_known);
	conn_key(&cw, "wscale");
	if (c->wscale_known) {
		jo_w_obj(w);
		jo_kint(w, "client", c->dir[SUM_C2S].wscale);
		jo_kint(w, "server", c->dir[SUM_S2C].wscale);
		jo_w_obj_end(w);
	} else {
		jo_w_null(w);
	}
	conn_det_upto(&cw, NULL);
	jo_w_obj_end(w);
}

void rep_jw_conn(struct jo_writer *w, const struct sum_conn *c, const char *kind)
{
	jw_conn(w, c, kind, NULL);
}

/* Events gather their members in a list: a detector's view adds its own. */
void rep_event_fields(struct jo_fields *fl, const struct sum_event *e)
{
	/* The common members in key order: jo_w_fields() then sorts in only
	 * the few of the type and its detector. */
	jo_f_reset(fl);
	jo_f_int(fl, "bytes", (int64_t)e->bytes);
	jo_f_int(fl, "conn", (int64_t)e->conn);
	jo_f_str(fl, "dir", sum_dir_name(e->dir));
	if (e->duration_ns >= 0)
		jo_f_sec(fl, "duration_s", e->duration_ns);
	else
		jo_f_null(fl, "duration_s");
	if (sum_event_is_frame(e->type))
		jo_f_int(fl, "frame", (int64_t)e->frame_first);
	jo_f_int_pair(fl, "frames", (int64_t)e->frame_first, (int64_t)e->frame_last);
	jo_f_int(fl, "input", e->input);
	jo_f_int(fl, "rel_seq", e->rel_seq);
	jo_f_sec(fl, "ts", e->ts);
	jo_f_str(fl, "type", sum_event_name(e->type));
	const struct det_view *v = det_view_of_event(e->type);
	if (v)
		v->json_event(fl, e);
	switch (e->type) {
	case SUM_EV_CAPTURE_LOSS:
		jo_f_int(fl, "segments", e->segments);
		break;
	case SUM_EV_RETRANS:
		jo_f_bool(fl, "filled_gap", e->u.frame.filled_gap);
		jo_f_str(fl, "retrans_kind",
			 sum_retrans_kind_name((enum sum_retrans_kind)e->u.frame.kind));
		jo_f_bool(fl, "spurious", e->u.frame.spurious);
		jo_f_bool(fl, "spurious_by_dsack", e->u.frame.dsack);
		break;
	case SUM_EV_DUP_ACK:
		jo_f_int(fl, "dup_count", e->u.frame.dup_count);
		break;
	case SUM_EV_OUT_OF_ORDER:
		jo_f_str(fl, "decided_by", sum_reorder_by_name((enum sum_reorder_by)e->by));
		jo_f_int(fl, "extent", e->extent);
		break;
	case SUM_EV_FILL_UNDECIDED:
		jo_f_int(fl, "extent", e->extent);
		break;
	default:
		break;
	}
}

void rep_jw_event(struct jo_writer *w, const struct sum_event *e, const char *kind)
{
	struct jo_fields f;

	rep_event_fields(&f, e);
	if (kind)
		jo_f_set_str(&f, "kind", kind);
	jo_w_fields(w, &f);
}

static void w_error(void *ctx, const struct rep_error *e)
{
	struct jo_writer *w = ctx;

	jo_w_obj(w);
	if (e->input >= 0)
		jo_kint(w, "input", e->input);
	else
		jo_knull(w, "input");
	jo_kstr(w, "message", e->message);
	if (e->path)
		jo_kstr(w, "path", e->path);
	else
		jo_knull(w, "path");
	jo_kstr(w, "reason", err_reason_name(e->code));
	jo_w_obj_end(w);
}

/* What kept the report from covering all of its input ([] when nothing did). */
static void w_errors(struct jo_writer *w, const struct rep_run *run)
{
	jo_w_arr(w);
	rep_each_error(run, w_error, w);
	jo_w_arr_end(w);
}

/* One input file: what was read, its interfaces and drop counters. */
static void w_input(struct jo_writer *w, const struct src_input *in, const char *kind)
{
	jo_w_obj(w);
	jo_kint(w, "bytes", (int64_t)in->wire_bytes);
	if (in->drops_known)
		jo_kint(w, "capture_drops", (int64_t)in->drops);
	else
		jo_knull(w, "capture_drops");
	jo_kbool(w, "compressed", in->compressed);
	if (in->error) {
		jo_kstr(w, "error", in->errmsg);
		jo_kstr(w, "error_reason", err_reason_name(in->error));
	} else {
		jo_knull(w, "error");
		jo_knull(w, "error_reason");
	}
	if (in->packets)
		jo_ksec(w, "first_ts", in->first_ts);
	else
		jo_knull(w, "first_ts");
	jo_kstr(w, "format", in->format);
	jo_w_key(w, "interfaces");
	jo_w_arr(w);
	for (unsigned k = 0; k < in->nifaces; k++) {
		const struct src_iface *f = &in->ifaces[k];
		jo_w_obj(w);
		if (f->have_epb_drops)
			jo_kint(w, "epb_dropcount", (int64_t)f->epb_drops);
		else
			jo_knull(w, "epb_dropcount");
		jo_kint(w, "id", k);
		if (f->have_ifdrop)
			jo_kint(w, "isb_ifdrop", (int64_t)f->ifdrop);
		else
			jo_knull(w, "isb_ifdrop");
		if (f->have_ifrecv)
			jo_kint(w, "isb_ifrecv", (int64_t)f->ifrecv);
		else
			jo_knull(w, "isb_ifrecv");
		if (f->have_osdrop)
			jo_kint(w, "isb_osdrop", (int64_t)f->osdrop);
		else
			jo_knull(w, "isb_osdrop");
		jo_kstr(w, "link_type", src_linktype_name(f->linktype));
		jo_kstr(w, "name", f->name);
		jo_w_obj_end(w);
	}
	jo_w_arr_end(w);
	if (kind)
		jo_kstr(w, "kind", kind);
	if (in->packets)
		jo_ksec(w, "last_ts", in->last_ts);
	else
		jo_knull(w, "last_ts");
	jo_kstr(w, "link_type", src_linktype_name(in->linktype));
	jo_kint(w, "link_type_value", in->linktype);
	jo_kint(w, "packets", (int64_t)in->packets);
	jo_kstr(w, "path", in->path);
	jo_w_obj_end(w);
}

/* Counts of what was decoded, by enum dec_status (dec_status_name()). */
static void w_decoded(struct jo_writer *w, const struct eng_counters *e)
{
	const char *names[DEC_STATUS_COUNT];

	for (int k = 0; k < DEC_STATUS_COUNT; k++)
		names[k] = dec_status_name(k);
	jo_w_key(w, "decoded");
	jo_w_named_counts(w, names, e->status, DEC_STATUS_COUNT);
}

/* Rejected packets by reason: malformed[k] counts status -k (1 <= k). */
static void w_malformed(struct jo_writer *w, const struct eng_counters *e)
{
	const char *names[DEC_ERR_COUNT - 1];

	for (int k = 1; k < DEC_ERR_COUNT; k++)
		names[k - 1] = dec_status_name(-k);
	jo_w_key(w, "malformed_by_reason");
	jo_w_named_counts(w, names, e->malformed + 1, DEC_ERR_COUNT - 1);
}

static void w_counts(struct jo_writer *w, const struct rep_totals *t)
{
	jo_w_key(w, "counts");
	jo_w_obj(w);
	jo_kint(w, "acked_unseen", (int64_t)t->acked_unseen);
	jo_kint(w, "dup_acks", (int64_t)t->dup_acks);
	jo_kint(w, "fast_retransmissions", (int64_t)t->fast);
	jo_kint(w, "keepalives", (int64_t)t->keepalives);
	jo_kint(w, "lost_segments", (int64_t)t->lost_segments);
	jo_kint(w, "lost_upstream", (int64_t)t->lost_upstream);
	jo_kint(w, "rto_retransmissions", (int64_t)t->rto);
	jo_kint(w, "spurious_retransmissions", (int64_t)t->spurious);
	jo_kint(w, "unseen_bytes", (int64_t)t->unseen_bytes);
	jo_kint(w, "window_full", (int64_t)t->window_full);
	jo_kint(w, "zero_window_episodes", (int64_t)t->zw_episodes);
	jo_ksec(w, "zero_window_time_s", t->zw_time_ns);
	jo_kint(w, "zero_windows", (int64_t)t->zero_windows);
	jo_w_obj_end(w);
}

/* The run's findings: the engine's, then each detector's (null with
 * --no-detectors: unknown, not zero), written in sorted order. */
static void w_findings(struct jo_writer *w, const struct rep_totals *t, bool det)
{
	struct jo_fields f;

	jo_f_reset(&f);
	jo_f_int(&f, "capture_loss_segments", (int64_t)t->capture_loss_segments);
	jo_f_int(&f, "dsack", (int64_t)t->dsack);
	jo_f_int(&f, "fills_undecided", (int64_t)t->fills_undecided);
	jo_f_int(&f, "out_of_order", (int64_t)t->ooo);
	jo_f_int(&f, "oversize_segments", (int64_t)t->oversize);
	jo_f_int(&f, "retransmissions", (int64_t)t->retrans);
	jo_f_int(&f, "tail_loss_probes", (int64_t)(t->tlp + t->tlp_new_data));
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++)
		det_views[k]->json_findings(&f, &t->det, det);
	jo_w_key(w, "findings");
	jo_w_fields(w, &f);
}

static void w_flows(struct jo_writer *w, const struct flow_counters *f,
		    const struct eng_counters *e)
{
	jo_w_key(w, "flows");
	jo_w_obj(w);
	jo_kint(w, "at_end", (int64_t)f->ended[FLOW_END_DONE]);
	jo_kint(w, "ended_closed", (int64_t)f->ended[FLOW_END_CLOSED]);
	jo_kint(w, "ended_idle", (int64_t)f->ended[FLOW_END_IDLE]);
	jo_kint(w, "evicted", (int64_t)f->ended[FLOW_END_EVICTED]);
	jo_kint(w, "evicted_by_memory", (int64_t)e->mem_evictions);
	jo_kint(w, "evicted_forgotten", (int64_t)f->forgotten);
	jo_kint(w, "evicted_not_remembered", (int64_t)f->remember_failed);
	jo_kint(w, "evicted_packets_dropped", (int64_t)f->evicted_packets);
	jo_kint(w, "max_live", (int64_t)f->max_live);
	jo_kint(w, "memory_peak", (int64_t)e->mem_peak);
	jo_kint(w, "port_reused", (int64_t)f->ended[FLOW_END_REUSED]);
	jo_kint(w, "resumed", (int64_t)f->resumed);
	jo_w_obj_end(w);
}

/* Allocations that failed, by what went without (0 in a healthy run). */
static void w_alloc_failed(struct jo_writer *w, const struct eng_counters *e)
{
	jo_w_key(w, "alloc_failed");
	jo_w_obj(w);
	jo_kint(w, "connections", (int64_t)e->no_memory);
	jo_kint(w, "detector_state", (int64_t)e->nomem_detectors);
	jo_kint(w, "rtt_rings", (int64_t)e->nomem_rtt_rings);
	jo_kint(w, "tcp_tables", (int64_t)e->nomem_tables);
	jo_w_obj_end(w);
}

static void w_tool(struct jo_writer *w, const struct rep_run *run)
{
	jo_w_obj(w);
	jo_kint(w, "schema", REP_JSON_SCHEMA);
	jo_kstr(w, "version", run->version);
	jo_w_obj_end(w);
}

/* Observation points, indexed by a connection's "vantage". */
static void w_vantages(struct jo_writer *w, const struct rep_run *run)
{
	jo_w_arr(w);
	for (unsigned v = 0; v < run->nvantages; v++)
		jo_w_str(w, run->vantage_names[v]);
	jo_w_arr_end(w);
}

/* The run's summary; NDJSON's summary line also carries "errors", "kind",
 * "tcpsift" and "vantages" (ndjson true). */
static void w_summary(struct jo_writer *w, const struct rep_data *d, const struct rep_run *run,
		      bool ndjson)
{
	const struct rep_totals *t = &d->tot;
	const struct eng_counters *e = &run->eng;

	jo_w_obj(w);
	w_alloc_failed(w, e);
	jo_kint(w, "bad_tcp_options", (int64_t)e->bad_tcp_options);
	jo_kint(w, "connections", (int64_t)run->flows.created);
	w_counts(w, t);
	w_decoded(w, e);
	if (ndjson) {
		jo_w_key(w, "errors");
		w_errors(w, run);
	}
	jo_kint(w, "events_dropped", (int64_t)d->events_dropped);
	jo_kint(w, "filtered_out", (int64_t)run->filtered_out);
	w_findings(w, t, run->detectors);
	if (e->packets || e->other_shards) /* a shard's stream clock runs on every packet */
		jo_ksec(w, "first_ts", e->first_ts);
	else
		jo_knull(w, "first_ts");
	w_flows(w, &run->flows, e);
	if (ndjson)
		jo_kstr(w, "kind", "summary");
	if (e->packets || e->other_shards)
		jo_ksec(w, "last_ts", e->last_ts);
	else
		jo_knull(w, "last_ts");
	jo_kint(w, "malformed", (int64_t)e->malformed_total);
	w_malformed(w, e);
	jo_kint(w, "no_memory", (int64_t)e->no_memory);
	jo_kint(w, "other_shards", (int64_t)e->other_shards);
	jo_kint(w, "packets", (int64_t)e->packets);
	if (run->shard_n) { /* which shard of --shard K/N (merge checks it has all) */
		jo_w_key(w, "shard");
		jo_w_obj(w);
		jo_kint(w, "k", run->shard_k);
		jo_kint(w, "n", run->shard_n);
		jo_w_obj_end(w);
	}
	jo_kint(w, "snaplen_cut", (int64_t)e->snaplen_cut);
	jo_kint(w, "tcp_packets", (int64_t)e->status[DEC_TCP]);
	if (ndjson) {
		jo_w_key(w, "tcpsift");
		w_tool(w, run);
	}
	jo_kint(w, "timestamps_backwards", (int64_t)e->ts_backwards);
	jo_kint(w, "timestamps_clamped", (int64_t)e->ts_clamped);
	if (ndjson) {
		jo_w_key(w, "vantages");
		w_vantages(w, run);
	}
	jo_w_obj_end(w);
}

/* A top-level key of the document; elements of arrays one after another. */
static void put_key(struct jo_writer *w, const char *key, bool first)
{
	jo_w_raw(w, first ? "{\n \"" : ",\n \"");
	jo_w_raw(w, key);
	jo_w_raw(w, "\": ");
}

/* The document's connections and events, for pj_write(). */
struct doc_items {
	const struct rep_data *d;
	const struct rep_extra *extra;
};

static const void *conn_item(void *ctx, size_t k)
{
	return rep_conn_at(((struct doc_items *)ctx)->d, k);
}

static void conn_render(void *ctx, struct jo_writer *w, const void *item)
{
	jw_conn(w, item, NULL, ((struct doc_items *)ctx)->extra);
}

static const void *event_item(void *ctx, size_t k)
{
	return &((struct doc_items *)ctx)->d->events[k];
}

static void event_render(void *ctx, struct jo_writer *w, const void *item)
{
	(void)ctx;
	rep_jw_event(w, item, NULL);
}

/*
 * The document is written piece by piece, keys in sorted order, into one
 * buffer written out in REP_JSON_CHUNK pieces: memory stays that of the
 * buffer however many connections there are. Connections and events are
 * written at depth 0, one after another: the layout the report always had.
 */
enum { REP_JSON_CHUNK = 32 * 1024 };

int rep_write_json(FILE *out, const struct rep_data *d, const struct rep_run *run, char *errbuf,
		   size_t errlen)
{
	struct jo_writer w;
	int rc;

	struct doc_items x = {.d = d, .extra = run->extra};
	/* A caller's members of a connection may not be safe on other threads. */
	unsigned threads = run->extra && run->extra->conn_json ? 1 : run->threads;

	jo_w_init(&w, out, REP_JSON_CHUNK, 1);
	put_key(&w, "connections", true);
	jo_w_raw(&w, "[");
	pj_write(&w, d->nconns, threads, ",\n", conn_item, conn_render, &x);
	jo_w_raw(&w, "]");
	put_key(&w, "errors", false);
	w_errors(&w, run);
	put_key(&w, "events", false);
	jo_w_raw(&w, "[");
	pj_write(&w, d->nevents, threads, ",\n", event_item, event_render, &x);
	jo_w_raw(&w, "]");
	if (run->filter) {
		put_key(&w, "filter", false);
		jo_w_str(&w, run->filter);
	}
	put_key(&w, "inputs", false);
	jo_w_arr(&w);
	for (unsigned k = 0; k < run->ninputs; k++)
		w_input(&w, run->inputs[k], NULL);
	jo_w_arr_end(&w);
	put_key(&w, "summary", false);
	w_summary(&w, d, run, false);
	put_key(&w, "tcpsift", false);
	w_tool(&w, run);
	if (run->extra && run->extra->doc_json && run->extra->doc_key) {
		put_key(&w, run->extra->doc_key, false);
		run->extra->doc_json(run->extra->ctx, &w);
	}
	put_key(&w, "vantages", false);
	w_vantages(&w, run);
	jo_w_raw(&w, "\n}\n");
	rc = jo_w_flush(&w);
	rep_write_error(rc, w.sys_errno, errbuf, errlen);
	jo_w_free(&w);
	return rc;
}

/* One NDJSON line, handed to the FILE at once: lines reach a reader of
 * the stream as soon as stdio would let them. */
static int end_line(struct jo_writer *w)
{
	jo_w_raw(w, "\n");
	return jo_w_flush(w);
}

int rep_ndjson_conn(struct jo_writer *w, const struct sum_conn *c)
{
	rep_jw_conn(w, c, "connection");
	return end_line(w);
}

int rep_ndjson_event(struct jo_writer *w, const struct sum_event *e)
{
	rep_jw_event(w, e, "event");
	return end_line(w);
}

int rep_ndjson_tail(struct jo_writer *w, const struct rep_data *d, const struct rep_run *run)
{
	int rc = 0;

	if (run->extra && run->extra->ndjson)
		rc = run->extra->ndjson(run->extra->ctx, w);
	for (unsigned k = 0; k < run->ninputs && rc == 0; k++) {
		w_input(w, run->inputs[k], "input");
		rc = end_line(w);
	}
	if (rc == 0) {
		w_summary(w, d, run, true);
		rc = end_line(w);
	}
	return rc;
}
