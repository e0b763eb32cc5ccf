/* report_json.c - JSON (schema 1) and NDJSON reporters: connections and events streamed. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

/*
 * The contract is DESIGN.md "JSON contract (schema 1)" and tcpsift(1),
 * JSON OUTPUT. Keys are sorted and connections come in first-packet order
 * so the same capture always gives the same bytes (golden tests rely on it).
 * Times are seconds as JSON numbers; *_ns twins carry exact nanoseconds.
 */

#define REP_JSON_SCHEMA 1

static json_t *jsec(int64_t ns)
{
	return json_real((double)ns / 1e9);
}

static json_t *jrtt(const struct sum_rtt *r)
{
	if (!r->n)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o}", "samples", (json_int_t)r->n, "min_s",
			 jsec(r->min_ns), "avg_s", jsec(r->sum_ns / (int64_t)r->n), "max_s",
			 jsec(r->max_ns));
}

static json_t *jendpoint(const struct dec_addr *a, uint16_t port)
{
	char buf[64];
	rep_format_endpoint(a, port, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *jrate(uint64_t bytes, int64_t dur_ns)
{
	if (dur_ns <= 0)
		return json_null();
	return json_real((double)bytes * 8.0 / ((double)dur_ns / 1e9));
}

/* Counts by enum sum_reorder_by, one key per rule (summary.c names them). */
static json_t *jby(const uint64_t by[SUM_BY_COUNT])
{
	json_t *o = json_object();

	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		json_object_set_new(o, sum_reorder_by_name((enum sum_reorder_by)k),
				    json_integer((json_int_t)by[k]));
	return o;
}

/* One direction's statistics; peer is the other direction (for ACK ratio). */
static json_t *jdir(const struct sum_dir *d, const struct sum_dir *peer, int64_t dur_ns)
{
	json_t *o = json_object();

	json_object_set_new_nocheck(o, "ack_reordering",
				    json_integer((json_int_t)d->ack_reordering));
	json_object_set_new_nocheck(o, "acked_unseen", json_integer((json_int_t)d->acked_unseen));
	json_object_set_new_nocheck(
	    o, "avg_payload",
	    d->data_packets ? json_real((double)d->payload_bytes / (double)d->data_packets)
			    : json_null());
	json_object_set_new_nocheck(o, "data_packets", json_integer((json_int_t)d->data_packets));
	json_object_set_new_nocheck(o, "dsack_blocks", json_integer((json_int_t)d->dsack_blocks));
	json_object_set_new_nocheck(o, "dup_acks", json_integer((json_int_t)d->dup_acks));
	json_object_set_new_nocheck(o, "fast_retransmissions",
				    json_integer((json_int_t)d->fast_retrans));
	json_object_set_new_nocheck(o, "fills_undecided",
				    json_integer((json_int_t)d->fills_undecided));
	json_object_set_new_nocheck(o, "fin", json_integer((json_int_t)d->fin));
	json_object_set_new_nocheck(o, "goodput_bps", jrate(d->unique_bytes, dur_ns));
	json_object_set_new_nocheck(o, "ip_bytes", json_integer((json_int_t)d->ip_bytes));
	json_object_set_new_nocheck(o, "keepalives", json_integer((json_int_t)d->keepalives));
	json_object_set_new_nocheck(o, "lost_segments", json_integer((json_int_t)d->lost_segments));
	json_object_set_new_nocheck(o, "lost_upstream", json_integer((json_int_t)d->lost_upstream));
	json_object_set_new_nocheck(o, "lost_upstream_by", jby(d->lost_upstream_by));
	json_object_set_new_nocheck(o, "max_in_flight", json_integer((json_int_t)d->max_in_flight));
	json_object_set_new_nocheck(o, "max_payload",
				    d->data_packets ? json_integer(d->max_payload) : json_null());
	json_object_set_new_nocheck(
	    o, "max_window", d->packets ? json_integer((json_int_t)d->max_window) : json_null());
	json_object_set_new_nocheck(o, "min_payload",
				    d->data_packets ? json_integer(d->min_payload) : json_null());
	json_object_set_new_nocheck(
	    o, "min_window", d->packets ? json_integer((json_int_t)d->min_window) : json_null());
	json_object_set_new_nocheck(o, "mss", d->mss ? json_integer(d->mss) : json_null());
	json_object_set_new_nocheck(o, "new_acks", json_integer((json_int_t)d->new_acks));
	json_object_set_new_nocheck(o, "out_of_order", json_integer((json_int_t)d->out_of_order));
	json_object_set_new_nocheck(o, "out_of_order_by", jby(d->ooo_by));
	json_object_set_new_nocheck(o, "oversize_segments", json_integer((json_int_t)d->oversize));
	json_object_set_new_nocheck(o, "packets", json_integer((json_int_t)d->packets));
	json_object_set_new_nocheck(o, "payload_bytes", json_integer((json_int_t)d->payload_bytes));
	json_object_set_new_nocheck(o, "pure_acks", json_integer((json_int_t)d->pure_acks));
	json_object_set_new_nocheck(o, "retrans_bytes", json_integer((json_int_t)d->retrans_bytes));
	json_object_set_new_nocheck(o, "retransmissions", json_integer((json_int_t)d->retrans));
	json_object_set_new_nocheck(o, "rst", json_integer((json_int_t)d->rst));
	json_object_set_new_nocheck(o, "rto_retransmissions",
				    json_integer((json_int_t)d->rto_retrans));
	json_object_set_new_nocheck(o, "rtt", jrtt(&d->rtt));
	json_object_set_new_nocheck(o, "rtt_ts", jrtt(&d->rtt_ts));
	json_object_set_new_nocheck(o, "sack_acks", json_integer((json_int_t)d->sack_acks));
	json_object_set_new_nocheck(o, "spurious_by_dsack",
				    json_integer((json_int_t)d->spurious_dsack));
	json_object_set_new_nocheck(o, "spurious_retransmissions",
				    json_integer((json_int_t)d->spurious_retrans));
	json_object_set_new_nocheck(o, "syn", json_integer((json_int_t)d->syn));
	json_object_set_new_nocheck(o, "throughput_bps", jrate(d->payload_bytes, dur_ns));
	json_object_set_new_nocheck(o, "tlp_new_data", json_integer((json_int_t)d->tlp_new_data));
	json_object_set_new_nocheck(o, "tlp_retransmissions",
				    json_integer((json_int_t)d->tlp_retrans));
	json_object_set_new_nocheck(o, "unique_bytes", json_integer((json_int_t)d->unique_bytes));
	json_object_set_new_nocheck(o, "unseen_bytes", json_integer((json_int_t)d->unseen_bytes));
	json_object_set_new_nocheck(o, "window_full", json_integer((json_int_t)d->window_full));
	json_object_set_new_nocheck(o, "wscale",
				    d->wscale >= 0 ? json_integer(d->wscale) : json_null());
	json_object_set_new_nocheck(o, "zero_windows", json_integer((json_int_t)d->zero_windows));
	/* Segments per ACK: above 2 means stretch ACKs (GRO/LRO at the receiver). */
	json_object_set_new_nocheck(o, "first_ts", d->packets ? jsec(d->first_ts) : json_null());
	json_object_set_new_nocheck(o, "isn", d->isn_known ? json_integer(d->isn) : json_null());
	json_object_set_new_nocheck(o, "last_ts", d->packets ? jsec(d->last_ts) : json_null());
	json_object_set_new_nocheck(
	    o, "segments_per_ack",
	    peer->new_acks ? json_real((double)d->data_packets / (double)peer->new_acks)
			   : json_null());
	return o;
}

json_t *rep_jansson_conn(const struct sum_conn *c, const char *kind)
{
	json_t *o = json_object();
	int64_t dur = c->last_ts - c->first_ts;
	json_t *queues = json_array();

	for (unsigned q = 0; q < 64; q++)
		if (c->queue_mask & (1ull << q))
			json_array_append_new(queues, json_integer(q));

	json_object_set_new_nocheck(o, "client", jendpoint(&c->client, c->client_port));
	json_object_set_new_nocheck(o, "duration_s", jsec(dur));
	json_object_set_new_nocheck(o, "first_ts", jsec(c->first_ts));
	json_object_set_new_nocheck(o, "first_ts_ns", json_integer(c->first_ts));
	json_object_set_new_nocheck(o, "id", json_integer((json_int_t)c->id));
	json_object_set_new_nocheck(o, "input", json_integer(c->first_input));
	json_object_set_new_nocheck(o, "last_input", json_integer(c->last_input));
	json_object_set_new_nocheck(o, "last_ts", jsec(c->last_ts));
	json_object_set_new_nocheck(o, "roles_from_syn", json_boolean(c->roles_from_syn));
	json_object_set_new_nocheck(o, "server", jendpoint(&c->server, c->server_port));
	json_object_set_new_nocheck(o, "vantage", json_integer(c->vantage));
	json_object_set_new(
	    o, "frames",
	    json_pack("[I, I]", (json_int_t)c->first_frame, (json_int_t)c->last_frame));
	json_object_set_new_nocheck(o, "evicted", json_boolean(c->evicted));
	json_object_set_new_nocheck(o, "state", json_string(sum_state_name(c->state)));
	json_object_set_new(
	    o, "mss",
	    json_pack("{s:o, s:o}", "client",
		      c->dir[SUM_C2S].mss ? json_integer(c->dir[SUM_C2S].mss) : json_null(),
		      "server",
		      c->dir[SUM_S2C].mss ? json_integer(c->dir[SUM_S2C].mss) : json_null()));
	if (c->wscale_known)
		json_object_set_new_nocheck(o, "wscale",
					    json_pack("{s:i, s:i}", "client",
						      c->dir[SUM_C2S].wscale, "server",
						      c->dir[SUM_S2C].wscale));
	else
		json_object_set_new_nocheck(o, "wscale", json_null());
	json_object_set_new_nocheck(o, "c2s", jdir(&c->dir[SUM_C2S], &c->dir[SUM_S2C], dur));
	json_object_set_new_nocheck(o, "handshake_rtt_s",
				    c->handshake_rtt_ns >= 0 ? jsec(c->handshake_rtt_ns)
							     : json_null());
	json_object_set_new_nocheck(o, "mtu_findings", rep_json_mtu(&c->det.mtu));
	json_object_set_new_nocheck(o, "queues", queues);
	json_object_set_new_nocheck(o, "reordering", rep_json_reorder(&c->det.reorder));
	json_object_set_new_nocheck(o, "s2c", jdir(&c->dir[SUM_S2C], &c->dir[SUM_C2S], dur));
	json_object_set_new_nocheck(o, "sack", rep_json_sack(&c->det.sack));
	json_object_set_new_nocheck(o, "sack_permitted", json_boolean(c->sack_permitted));
	json_object_set_new_nocheck(o, "stalls", rep_json_stall(&c->det.stall));
	json_object_set_new_nocheck(o, "timestamps", json_boolean(c->timestamps));
	json_object_set_new_nocheck(o, "window_scale_known", json_boolean(c->wscale_known));
	if (kind)
		json_object_set_new_nocheck(o, "kind", json_string(kind));
	return o;
}

static const char *dir_name(uint8_t dir)
{
	return dir == SUM_C2S ? "c2s" : "s2c";
}

json_t *rep_jansson_event(const struct sum_event *e, const char *kind)
{
	json_t *o = json_object();

	json_object_set_new_nocheck(o, "conn", json_integer((json_int_t)e->conn));
	json_object_set_new_nocheck(o, "dir", json_string(dir_name(e->dir)));
	json_object_set_new_nocheck(o, "duration_s",
				    e->duration_ns >= 0 ? jsec(e->duration_ns) : json_null());
	json_object_set_new_nocheck(o, "input", json_integer(e->input));
	json_object_set_new_nocheck(o, "ts", jsec(e->ts));
	json_object_set_new_nocheck(o, "type", json_string(sum_event_name(e->type)));
	json_object_set_new(
	    o, "frames",
	    json_pack("[I, I]", (json_int_t)e->frame_first, (json_int_t)e->frame_last));
	json_object_set_new_nocheck(o, "bytes", json_integer((json_int_t)e->bytes));
	json_object_set_new_nocheck(o, "rel_seq", json_integer(e->rel_seq));
	switch (e->type) {
	case SUM_EV_REORDER:
		json_object_set_new_nocheck(
		    o, "decided_by", json_string(sum_reorder_by_name((enum sum_reorder_by)e->by)));
		json_object_set_new_nocheck(o, "extent", json_integer(e->extent));
		json_object_set_new_nocheck(o, "queue_switch",
					    e->queue_switch < 0 ? json_null()
								: json_boolean(e->queue_switch));
		break;
	case SUM_EV_STALL:
		rep_json_stall_event(o, e);
		break;
	case SUM_EV_SACK_HOLE:
		rep_json_sack_event(o, e);
		break;
	case SUM_EV_MTU_ALIGNMENT:
	case SUM_EV_PMTU:
		rep_json_mtu_event(o, e);
		break;
	case SUM_EV_CAPTURE_LOSS:
		json_object_set_new_nocheck(o, "segments", json_integer(e->segments));
		break;
	case SUM_EV_RETRANS:
		json_object_set_new_nocheck(o, "filled_gap", json_boolean(e->u.frame.filled_gap));
		json_object_set_new_nocheck(
		    o, "retrans_kind",
		    json_string(sum_retrans_kind_name((enum sum_retrans_kind)e->u.frame.kind)));
		json_object_set_new_nocheck(o, "spurious", json_boolean(e->u.frame.spurious));
		json_object_set_new_nocheck(o, "spurious_by_dsack", json_boolean(e->u.frame.dsack));
		break;
	case SUM_EV_DUP_ACK:
		json_object_set_new_nocheck(o, "dup_count", json_integer(e->u.frame.dup_count));
		break;
	case SUM_EV_OUT_OF_ORDER:
		json_object_set_new_nocheck(
		    o, "decided_by", json_string(sum_reorder_by_name((enum sum_reorder_by)e->by)));
		json_object_set_new_nocheck(o, "extent", json_integer(e->extent));
		break;
	case SUM_EV_FILL_UNDECIDED:
		json_object_set_new_nocheck(o, "extent", json_integer(e->extent));
		break;
	default:
		break;
	}
	if (sum_event_is_frame(e->type))
		json_object_set_new_nocheck(o, "frame", json_integer((json_int_t)e->frame_first));
	/* Replaces a pmtu event's own "kind" in NDJSON: set, not added. */
	if (kind)
		json_object_set_new_nocheck(o, "kind", json_string(kind));
	return o;
}

/* ---- connections and events written directly (the bulk of a report) ----
 *
 * The same bytes as jo_dump() of rep_jansson_conn() / rep_jansson_event()
 * (test_report_json.c compares them), without a json_t per value: keys are
 * written in sorted order by hand, numbers converted exactly as the Jansson
 * builders convert them (json_int_t casts included).
 */

static double sec(int64_t ns)
{
	return (double)ns / 1e9;
}

static void w_rtt(struct jo_writer *w, const char *key, const struct sum_rtt *r)
{
	jo_w_key(w, key);
	if (!r->n) {
		jo_w_null(w);
		return;
	}
	jo_w_obj(w);
	jo_kreal(w, "avg_s", sec(r->sum_ns / (int64_t)r->n));
	jo_kreal(w, "max_s", sec(r->max_ns));
	jo_kreal(w, "min_s", sec(r->min_ns));
	jo_kint(w, "samples", (json_int_t)r->n);
	jo_w_obj_end(w);
}

static void w_rate(struct jo_writer *w, const char *key, uint64_t bytes, int64_t dur_ns)
{
	if (dur_ns <= 0)
		jo_knull(w, key);
	else
		jo_kreal(w, key, (double)bytes * 8.0 / ((double)dur_ns / 1e9));
}

static void w_endpoint(struct jo_writer *w, const char *key, const struct dec_addr *a,
		       uint16_t port)
{
	char buf[64];
	rep_format_endpoint(a, port, buf, sizeof(buf));
	jo_kstr(w, key, buf);
}

/* enum sum_reorder_by values in strcmp order of their names (jby()). */
static const uint8_t by_sorted[SUM_BY_COUNT] = {
    SUM_BY_ACK,	   SUM_BY_CAUSALITY, SUM_BY_IPID,  SUM_BY_SECOND_COPY,
    SUM_BY_TIMING, SUM_BY_TSECR,     SUM_BY_TSVAL,
};

static void w_by(struct jo_writer *w, const char *key, const uint64_t by[SUM_BY_COUNT])
{
	jo_w_key(w, key);
	jo_w_obj(w);
	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		jo_kint(w, sum_reorder_by_name((enum sum_reorder_by)by_sorted[k]),
			(json_int_t)by[by_sorted[k]]);
	jo_w_obj_end(w);
}

/* jdir(), keys sorted. */
static void w_dir(struct jo_writer *w, const char *key, const struct sum_dir *d,
		  const struct sum_dir *peer, int64_t dur_ns)
{
	jo_w_key(w, key);
	jo_w_obj(w);
	jo_kint(w, "ack_reordering", (json_int_t)d->ack_reordering);
	jo_kint(w, "acked_unseen", (json_int_t)d->acked_unseen);
	if (d->data_packets)
		jo_kreal(w, "avg_payload", (double)d->payload_bytes / (double)d->data_packets);
	else
		jo_knull(w, "avg_payload");
	jo_kint(w, "data_packets", (json_int_t)d->data_packets);
	jo_kint(w, "dsack_blocks", (json_int_t)d->dsack_blocks);
	jo_kint(w, "dup_acks", (json_int_t)d->dup_acks);
	jo_kint(w, "fast_retransmissions", (json_int_t)d->fast_retrans);
	jo_kint(w, "fills_undecided", (json_int_t)d->fills_undecided);
	jo_kint(w, "fin", (json_int_t)d->fin);
	if (d->packets)
		jo_kreal(w, "first_ts", sec(d->first_ts));
	else
		jo_knull(w, "first_ts");
	w_rate(w, "goodput_bps", d->unique_bytes, dur_ns);
	jo_kint(w, "ip_bytes", (json_int_t)d->ip_bytes);
	if (d->isn_known)
		jo_kint(w, "isn", d->isn);
	else
		jo_knull(w, "isn");
	jo_kint(w, "keepalives", (json_int_t)d->keepalives);
	if (d->packets)
		jo_kreal(w, "last_ts", sec(d->last_ts));
	else
		jo_knull(w, "last_ts");
	jo_kint(w, "lost_segments", (json_int_t)d->lost_segments);
	jo_kint(w, "lost_upstream", (json_int_t)d->lost_upstream);
	w_by(w, "lost_upstream_by", d->lost_upstream_by);
	jo_kint(w, "max_in_flight", (json_int_t)d->max_in_flight);
	if (d->data_packets)
		jo_kint(w, "max_payload", d->max_payload);
	else
		jo_knull(w, "max_payload");
	if (d->packets)
		jo_kint(w, "max_window", (json_int_t)d->max_window);
	else
		jo_knull(w, "max_window");
	if (d->data_packets)
		jo_kint(w, "min_payload", d->min_payload);
	else
		jo_knull(w, "min_payload");
	if (d->packets)
		jo_kint(w, "min_window", (json_int_t)d->min_window);
	else
		jo_knull(w, "min_window");
	if (d->mss)
		jo_kint(w, "mss", d->mss);
	else
		jo_knull(w, "mss");
	jo_kint(w, "new_acks", (json_int_t)d->new_acks);
	jo_kint(w, "out_of_order", (json_int_t)d->out_of_order);
	w_by(w, "out_of_order_by", d->ooo_by);
	jo_kint(w, "oversize_segments", (json_int_t)d->oversize);
	jo_kint(w, "packets", (json_int_t)d->packets);
	jo_kint(w, "payload_bytes", (json_int_t)d->payload_bytes);
	jo_kint(w, "pure_acks", (json_int_t)d->pure_acks);
	jo_kint(w, "retrans_bytes", (json_int_t)d->retrans_bytes);
	jo_kint(w, "retransmissions", (json_int_t)d->retrans);
	jo_kint(w, "rst", (json_int_t)d->rst);
	jo_kint(w, "rto_retransmissions", (json_int_t)d->rto_retrans);
	w_rtt(w, "rtt", &d->rtt);
	w_rtt(w, "rtt_ts", &d->rtt_ts);
	jo_kint(w, "sack_acks", (json_int_t)d->sack_acks);
	if (peer->new_acks)
		jo_kreal(w, "segments_per_ack", (double)d->data_packets / (double)peer->new_acks);
	else
		jo_knull(w, "segments_per_ack");
	jo_kint(w, "spurious_by_dsack", (json_int_t)d->spurious_dsack);
	jo_kint(w, "spurious_retransmissions", (json_int_t)d->spurious_retrans);
	jo_kint(w, "syn", (json_int_t)d->syn);
	w_rate(w, "throughput_bps", d->payload_bytes, dur_ns);
	jo_kint(w, "tlp_new_data", (json_int_t)d->tlp_new_data);
	jo_kint(w, "tlp_retransmissions", (json_int_t)d->tlp_retrans);
	jo_kint(w, "unique_bytes", (json_int_t)d->unique_bytes);
	jo_kint(w, "unseen_bytes", (json_int_t)d->unseen_bytes);
	jo_kint(w, "window_full", (json_int_t)d->window_full);
	if (d->wscale >= 0)
		jo_kint(w, "wscale", d->wscale);
	else
		jo_knull(w, "wscale");
	jo_kint(w, "zero_windows", (json_int_t)d->zero_windows);
	jo_w_obj_end(w);
}

static void w_mss_or_null(struct jo_writer *w, const char *key, uint32_t mss)
{
	if (mss)
		jo_kint(w, key, mss);
	else
		jo_knull(w, key);
}

void rep_jw_conn(struct jo_writer *w, const struct sum_conn *c, const char *kind)
{
	int64_t dur = c->last_ts - c->first_ts;

	jo_w_obj(w);
	w_dir(w, "c2s", &c->dir[SUM_C2S], &c->dir[SUM_S2C], dur);
	w_endpoint(w, "client", &c->client, c->client_port);
	jo_kreal(w, "duration_s", sec(dur));
	jo_kbool(w, "evicted", c->evicted);
	jo_kreal(w, "first_ts", sec(c->first_ts));
	jo_kint(w, "first_ts_ns", c->first_ts);
	jo_w_key(w, "frames");
	jo_w_arr(w);
	jo_w_int(w, (json_int_t)c->first_frame);
	jo_w_int(w, (json_int_t)c->last_frame);
	jo_w_arr_end(w);
	if (c->handshake_rtt_ns >= 0)
		jo_kreal(w, "handshake_rtt_s", sec(c->handshake_rtt_ns));
	else
		jo_knull(w, "handshake_rtt_s");
	jo_kint(w, "id", (json_int_t)c->id);
	jo_kint(w, "input", c->first_input);
	if (kind)
		jo_kstr(w, "kind", kind);
	jo_kint(w, "last_input", c->last_input);
	jo_kreal(w, "last_ts", sec(c->last_ts));
	jo_w_key(w, "mss");
	jo_w_obj(w);
	w_mss_or_null(w, "client", c->dir[SUM_C2S].mss);
	w_mss_or_null(w, "server", c->dir[SUM_S2C].mss);
	jo_w_obj_end(w);
	jo_w_key(w, "mtu_findings");
	rep_jw_mtu(w, &c->det.mtu);
	jo_w_key(w, "queues");
	jo_w_arr(w);
	for (unsigned q = 0; q < 64; q++)
		if (c->queue_mask & (1ull << q))
			jo_w_int(w, q);
	jo_w_arr_end(w);
	jo_w_key(w, "reordering");
	rep_jw_reorder(w, &c->det.reorder);
	jo_kbool(w, "roles_from_syn", c->roles_from_syn);
	w_dir(w, "s2c", &c->dir[SUM_S2C], &c->dir[SUM_C2S], dur);
	jo_w_key(w, "sack");
	rep_jw_sack(w, &c->det.sack);
	jo_kbool(w, "sack_permitted", c->sack_permitted);
	w_endpoint(w, "server", &c->server, c->server_port);
	jo_w_key(w, "stalls");
	rep_jw_stall(w, &c->det.stall);
	jo_kstr(w, "state", sum_state_name(c->state));
	jo_kbool(w, "timestamps", c->timestamps);
	jo_kint(w, "vantage", c->vantage);
	jo_kbool(w, "window_scale_known", c->wscale_known);
	jo_w_key(w, "wscale");
	if (c->wscale_known) {
		/* json_pack "i": the int the int8_t promotes to. */
		jo_w_obj(w);
		jo_kint(w, "client", c->dir[SUM_C2S].wscale);
		jo_kint(w, "server", c->dir[SUM_S2C].wscale);
		jo_w_obj_end(w);
	} else {
		jo_w_null(w);
	}
	jo_w_obj_end(w);
}

/* Events gather their members in a list: each detector adds its own. */
void rep_jw_event(struct jo_writer *w, const struct sum_event *e, const char *kind)
{
	struct jo_fields f;

	jo_f_reset(&f);
	jo_f_int(&f, "conn", (json_int_t)e->conn);
	jo_f_str(&f, "dir", dir_name(e->dir));
	if (e->duration_ns >= 0)
		jo_f_real(&f, "duration_s", sec(e->duration_ns));
	else
		jo_f_null(&f, "duration_s");
	jo_f_int(&f, "input", e->input);
	jo_f_real(&f, "ts", sec(e->ts));
	jo_f_str(&f, "type", sum_event_name(e->type));
	jo_f_int_pair(&f, "frames", (json_int_t)e->frame_first, (json_int_t)e->frame_last);
	jo_f_int(&f, "bytes", (json_int_t)e->bytes);
	jo_f_int(&f, "rel_seq", e->rel_seq);
	switch (e->type) {
	case SUM_EV_REORDER:
		jo_f_str(&f, "decided_by", sum_reorder_by_name((enum sum_reorder_by)e->by));
		jo_f_int(&f, "extent", e->extent);
		if (e->queue_switch < 0)
			jo_f_null(&f, "queue_switch");
		else
			jo_f_bool(&f, "queue_switch", e->queue_switch);
		break;
	case SUM_EV_STALL:
		rep_jw_stall_event(&f, e);
		break;
	case SUM_EV_SACK_HOLE:
		rep_jw_sack_event(&f, e);
		break;
	case SUM_EV_MTU_ALIGNMENT:
	case SUM_EV_PMTU:
		rep_jw_mtu_event(&f, e);
		break;
	case SUM_EV_CAPTURE_LOSS:
		jo_f_int(&f, "segments", e->segments);
		break;
	case SUM_EV_RETRANS:
		jo_f_bool(&f, "filled_gap", e->u.frame.filled_gap);
		jo_f_str(&f, "retrans_kind",
			 sum_retrans_kind_name((enum sum_retrans_kind)e->u.frame.kind));
		jo_f_bool(&f, "spurious", e->u.frame.spurious);
		jo_f_bool(&f, "spurious_by_dsack", e->u.frame.dsack);
		break;
	case SUM_EV_DUP_ACK:
		jo_f_int(&f, "dup_count", e->u.frame.dup_count);
		break;
	case SUM_EV_OUT_OF_ORDER:
		jo_f_str(&f, "decided_by", sum_reorder_by_name((enum sum_reorder_by)e->by));
		jo_f_int(&f, "extent", e->extent);
		break;
	case SUM_EV_FILL_UNDECIDED:
		jo_f_int(&f, "extent", e->extent);
		break;
	default:
		break;
	}
	if (sum_event_is_frame(e->type))
		jo_f_int(&f, "frame", (json_int_t)e->frame_first);
	if (kind)
		jo_f_set_str(&f, "kind", kind);
	jo_w_fields(w, &f);
}

static json_t *jinput(const struct src_input *in)
{
	json_t *o = json_object();
	json_t *ifs = json_array();

	json_object_set_new_nocheck(o, "bytes", json_integer((json_int_t)in->wire_bytes));
	json_object_set_new_nocheck(o, "capture_drops",
				    in->drops_known ? json_integer((json_int_t)in->drops)
						    : json_null());
	json_object_set_new_nocheck(o, "compressed", json_boolean(in->compressed));
	json_object_set_new_nocheck(o, "error", in->error ? json_string(in->errmsg) : json_null());
	json_object_set_new_nocheck(o, "first_ts", in->packets ? jsec(in->first_ts) : json_null());
	json_object_set_new_nocheck(o, "format", json_string(in->format));
	json_object_set_new_nocheck(o, "last_ts", in->packets ? jsec(in->last_ts) : json_null());
	json_object_set_new_nocheck(o, "link_type", json_string(src_linktype_name(in->linktype)));
	json_object_set_new_nocheck(o, "link_type_value", json_integer(in->linktype));
	json_object_set_new_nocheck(o, "packets", json_integer((json_int_t)in->packets));
	json_object_set_new_nocheck(o, "path", json_string(in->path));
	for (unsigned k = 0; k < in->nifaces; k++) {
		const struct src_iface *f = &in->ifaces[k];
		json_array_append_new(
		    ifs,
		    json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:o}", "id", (int)k, "name", f->name,
			      "link_type", src_linktype_name(f->linktype), "isb_ifrecv",
			      f->have_ifrecv ? json_integer((json_int_t)f->ifrecv) : json_null(),
			      "isb_ifdrop",
			      f->have_ifdrop ? json_integer((json_int_t)f->ifdrop) : json_null(),
			      "isb_osdrop",
			      f->have_osdrop ? json_integer((json_int_t)f->osdrop) : json_null(),
			      "epb_dropcount",
			      f->have_epb_drops ? json_integer((json_int_t)f->epb_drops)
						: json_null()));
	}
	json_object_set_new_nocheck(o, "interfaces", ifs);
	return o;
}

static json_t *jsummary(const struct rep_data *d, const struct rep_run *run)
{
	const struct rep_totals *t = &d->tot;
	const struct eng_counters *e = &run->eng;
	json_t *decoded = json_object(), *malformed = json_object();

	for (int k = 0; k < DEC_STATUS_COUNT; k++)
		json_object_set_new(decoded, dec_status_name(k),
				    json_integer((json_int_t)e->status[k]));
	for (int k = 1; k < DEC_ERR_COUNT; k++)
		json_object_set_new(malformed, dec_status_name(-k),
				    json_integer((json_int_t)e->malformed[k]));

	/* With --no-detectors their findings are unknown, not zero: null. */
	bool det = run->detectors;
	json_t *findings =
	    json_pack("{s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:I, s:I, s:o}", "stalls",
		      det ? json_integer((json_int_t)t->stalls) : json_null(), "stall_time_s",
		      det ? jsec(t->stall_ns) : json_null(), "sack_holes",
		      det ? json_integer((json_int_t)t->sack_holes) : json_null(), "dsack",
		      (json_int_t)t->dsack, "out_of_order", (json_int_t)t->ooo, "retransmissions",
		      (json_int_t)t->retrans, "mtu_misaligned",
		      det ? json_integer((json_int_t)t->mtu_misaligned) : json_null(),
		      "oversize_segments", (json_int_t)t->oversize, "capture_loss_segments",
		      (json_int_t)t->capture_loss_segments, "reorder_across_queues",
		      det ? json_integer((json_int_t)t->queue_reorders) : json_null());

	/* Added later than the json_pack above could say, unknown included. */
	json_object_set_new_nocheck(findings, "fills_undecided",
				    json_integer((json_int_t)t->fills_undecided));
	json_object_set_new_nocheck(findings, "timer_like_pauses",
				    det ? json_integer((json_int_t)t->stall_timer_like)
					: json_null());
	json_object_set_new_nocheck(findings, "tail_loss_probes",
				    json_integer((json_int_t)(t->tlp + t->tlp_new_data)));

	json_t *o = json_object();
	json_object_set_new_nocheck(o, "bad_tcp_options",
				    json_integer((json_int_t)e->bad_tcp_options));
	json_object_set_new_nocheck(o, "connections", json_integer((json_int_t)run->flows.created));
	json_object_set_new_nocheck(o, "decoded", decoded);
	json_object_set_new_nocheck(o, "events_dropped",
				    json_integer((json_int_t)d->events_dropped));
	json_object_set_new_nocheck(o, "filtered_out", json_integer((json_int_t)run->filtered_out));
	json_object_set_new_nocheck(o, "first_ts", e->packets ? jsec(e->first_ts) : json_null());
	json_object_set_new_nocheck(
	    o, "flows",
	    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "max_live", (json_int_t)run->flows.max_live,
		      "ended_idle", (json_int_t)run->flows.ended[FLOW_END_IDLE], "ended_closed",
		      (json_int_t)run->flows.ended[FLOW_END_CLOSED], "evicted",
		      (json_int_t)run->flows.ended[FLOW_END_EVICTED], "port_reused",
		      (json_int_t)run->flows.ended[FLOW_END_REUSED], "at_end",
		      (json_int_t)run->flows.ended[FLOW_END_DONE]));
	json_object_set_new_nocheck(o, "last_ts", e->packets ? jsec(e->last_ts) : json_null());
	json_object_set_new_nocheck(o, "malformed", json_integer((json_int_t)e->malformed_total));
	json_object_set_new_nocheck(o, "malformed_by_reason", malformed);
	json_object_set_new_nocheck(o, "no_memory", json_integer((json_int_t)e->no_memory));
	json_object_set_new_nocheck(o, "packets", json_integer((json_int_t)e->packets));
	json_object_set_new_nocheck(o, "snaplen_cut", json_integer((json_int_t)e->snaplen_cut));
	json_object_set_new_nocheck(o, "tcp_packets", json_integer((json_int_t)e->status[DEC_TCP]));
	json_object_set_new_nocheck(o, "timestamps_backwards",
				    json_integer((json_int_t)e->ts_backwards));
	json_object_set_new(
	    o, "counts",
	    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I}",
		      "fast_retransmissions", (json_int_t)t->fast, "rto_retransmissions",
		      (json_int_t)t->rto, "spurious_retransmissions", (json_int_t)t->spurious,
		      "dup_acks", (json_int_t)t->dup_acks, "zero_windows",
		      (json_int_t)t->zero_windows, "window_full", (json_int_t)t->window_full,
		      "keepalives", (json_int_t)t->keepalives, "acked_unseen",
		      (json_int_t)t->acked_unseen, "unseen_bytes", (json_int_t)t->unseen_bytes,
		      "lost_segments", (json_int_t)t->lost_segments, "lost_upstream",
		      (json_int_t)t->lost_upstream, "zero_window_time_s", jsec(t->zw_time_ns),
		      "zero_window_episodes", (json_int_t)t->zw_episodes));
	json_object_set_new_nocheck(o, "findings", findings);
	return o;
}

/* Observation points, indexed by a connection's "vantage". */
static json_t *jvantages(const struct rep_run *run)
{
	json_t *a = json_array();
	for (unsigned v = 0; v < run->nvantages; v++)
		json_array_append_new(a, json_string(run->vantage_names[v]));
	return a;
}

static json_t *jtool(const struct rep_run *run)
{
	return json_pack("{s:s, s:i}", "version", run->version, "schema", REP_JSON_SCHEMA);
}

/* Write v (stolen; NULL: a constructor failed) as the next value. */
static void put_json(struct jo_writer *w, json_t *v)
{
	jo_w_json(w, v);
	json_decref(v);
}

/* A top-level key of the document; elements of arrays one after another. */
static void put_key(struct jo_writer *w, const char *key, bool first)
{
	jo_w_raw(w, first ? "{\n \"" : ",\n \"");
	jo_w_raw(w, key);
	jo_w_raw(w, "\": ");
}

/*
 * The document is written piece by piece, keys in sorted order, into one
 * buffer written out in REP_JSON_CHUNK pieces: memory stays that of the
 * buffer however many connections there are. Connections and events are
 * written at depth 0, one after another: the layout the report always had.
 */
enum { REP_JSON_CHUNK = 32 * 1024 };

int rep_write_json(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	struct jo_writer w;
	int rc;

	jo_w_init(&w, out, REP_JSON_CHUNK, 1);
	put_key(&w, "connections", true);
	jo_w_raw(&w, "[");
	for (size_t k = 0; k < d->nconns && !w.err; k++) {
		rep_jw_conn(&w, &d->conns[k], NULL);
		if (k + 1 < d->nconns)
			jo_w_raw(&w, ",\n");
		jo_w_commit(&w);
	}
	jo_w_raw(&w, "]");
	put_key(&w, "events", false);
	jo_w_raw(&w, "[");
	for (size_t k = 0; k < d->nevents && !w.err; k++) {
		rep_jw_event(&w, &d->events[k], NULL);
		if (k + 1 < d->nevents)
			jo_w_raw(&w, ",\n");
		jo_w_commit(&w);
	}
	jo_w_raw(&w, "]");
	if (run->filter) {
		put_key(&w, "filter", false);
		put_json(&w, json_string(run->filter));
	}
	json_t *inputs = json_array();
	for (unsigned k = 0; k < run->ninputs; k++)
		json_array_append_new(inputs, jinput(run->inputs[k]));
	put_key(&w, "inputs", false);
	put_json(&w, inputs);
	put_key(&w, "summary", false);
	put_json(&w, jsummary(d, run));
	put_key(&w, "tcpsift", false);
	put_json(&w, jtool(run));
	put_key(&w, "vantages", false);
	put_json(&w, jvantages(run));
	jo_w_raw(&w, "\n}\n");
	rc = jo_w_flush(&w);
	jo_w_free(&w);
	return rc;
}

static json_t *with_kind(json_t *o, const char *kind)
{
	json_object_set_new_nocheck(o, "kind", json_string(kind));
	return o;
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

	for (unsigned k = 0; k < run->ninputs && rc == 0; k++) {
		put_json(w, with_kind(jinput(run->inputs[k]), "input"));
		rc = end_line(w);
	}
	if (rc == 0) {
		json_t *s = with_kind(jsummary(d, run), "summary");
		json_object_set_new_nocheck(s, "tcpsift", jtool(run));
		json_object_set_new_nocheck(s, "vantages", jvantages(run));
		put_json(w, s);
		rc = end_line(w);
	}
	return rc;
}
