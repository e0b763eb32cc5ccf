/* report_json.c - JSON (schema 1) and NDJSON reporters built with Jansson. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "analyze/jsonout.h"
#include "analyze/report.h"

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
	json_object_set_new_nocheck(o, "fin", json_integer((json_int_t)d->fin));
	json_object_set_new_nocheck(o, "goodput_bps", jrate(d->unique_bytes, dur_ns));
	json_object_set_new_nocheck(o, "ip_bytes", json_integer((json_int_t)d->ip_bytes));
	json_object_set_new_nocheck(o, "keepalives", json_integer((json_int_t)d->keepalives));
	json_object_set_new_nocheck(o, "lost_segments", json_integer((json_int_t)d->lost_segments));
	json_object_set_new_nocheck(o, "lost_upstream", json_integer((json_int_t)d->lost_upstream));
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
	json_object_set_new_nocheck(o, "out_of_order_by",
				    json_pack("{s:I, s:I, s:I}", "ip_id",
					      (json_int_t)d->ooo_by[SUM_BY_IPID], "timing",
					      (json_int_t)d->ooo_by[SUM_BY_TIMING], "tsval",
					      (json_int_t)d->ooo_by[SUM_BY_TSVAL]));
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
	json_object_set_new_nocheck(o, "spurious_retransmissions",
				    json_integer((json_int_t)d->spurious_retrans));
	json_object_set_new_nocheck(o, "syn", json_integer((json_int_t)d->syn));
	json_object_set_new_nocheck(o, "throughput_bps", jrate(d->payload_bytes, dur_ns));
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

static json_t *jconn(const struct sum_conn *c)
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
	return o;
}

static const char *dir_name(uint8_t dir)
{
	return dir == SUM_C2S ? "c2s" : "s2c";
}

static json_t *jevent(const struct sum_event *e)
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
	default:
		break;
	}
	return o;
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

/*
 * Serialize v (stealing the reference) with jsonout (Jansson's format, a
 * fraction of json_dumpb()'s time) and write it with one fwrite.
 */
static int dump_value(FILE *out, struct jo_buf *buf, json_t *v, int indent, const char *after)
{
	int rc;

	jo_reset(buf);
	rc = v ? jo_dump(buf, v, indent) : -ENOMEM;
	json_decref(v);
	if (rc == 0 && (fwrite(buf->p, 1, buf->len, out) != buf->len || fputs(after, out) == EOF))
		rc = -(errno ? errno : EIO);
	return rc;
}

static int dump_line(FILE *out, json_t *o)
{
	struct jo_buf buf = {0};
	int rc = dump_value(out, &buf, o, 0, "\n");
	jo_free(&buf);
	return rc;
}

/* A top-level key of the document; elements of arrays one after another. */
static int put_key(FILE *out, const char *key, bool first)
{
	return fprintf(out, "%s\n \"%s\": ", first ? "{" : ",", key) < 0 ? -EIO : 0;
}

/*
 * The document is written piece by piece, keys in sorted order, so memory
 * stays that of one connection's objects however many there are.
 */
int rep_write_json(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	struct jo_buf buf = {0};
	const int flags = 1; /* indent */
	int rc = put_key(out, "connections", true);

	if (rc == 0 && fputs("[", out) == EOF)
		rc = -EIO;
	for (size_t k = 0; k < d->nconns && rc == 0; k++)
		rc = dump_value(out, &buf, jconn(&d->conns[k]), flags,
				k + 1 < d->nconns ? ",\n" : "");
	if (rc == 0 && fputs("]", out) == EOF)
		rc = -EIO;
	if (rc == 0)
		rc = put_key(out, "events", false);
	if (rc == 0 && fputs("[", out) == EOF)
		rc = -EIO;
	for (size_t k = 0; k < d->nevents && rc == 0; k++)
		rc = dump_value(out, &buf, jevent(&d->events[k]), flags,
				k + 1 < d->nevents ? ",\n" : "");
	if (rc == 0 && fputs("]", out) == EOF)
		rc = -EIO;
	if (rc == 0 && run->filter) {
		rc = put_key(out, "filter", false);
		if (rc == 0)
			rc = dump_value(out, &buf, json_string(run->filter), flags, "");
	}
	if (rc == 0) {
		json_t *inputs = json_array();
		for (unsigned k = 0; k < run->ninputs; k++)
			json_array_append_new(inputs, jinput(run->inputs[k]));
		rc = put_key(out, "inputs", false);
		if (rc == 0)
			rc = dump_value(out, &buf, inputs, flags, "");
		else
			json_decref(inputs);
	}
	if (rc == 0)
		rc = put_key(out, "summary", false);
	if (rc == 0)
		rc = dump_value(out, &buf, jsummary(d, run), flags, "");
	if (rc == 0)
		rc = put_key(out, "tcpsift", false);
	if (rc == 0)
		rc = dump_value(out, &buf, jtool(run), flags, "");
	if (rc == 0)
		rc = put_key(out, "vantages", false);
	if (rc == 0)
		rc = dump_value(out, &buf, jvantages(run), flags, "\n}\n");
	jo_free(&buf);
	return rc;
}

static json_t *with_kind(json_t *o, const char *kind)
{
	json_object_set_new_nocheck(o, "kind", json_string(kind));
	return o;
}

int rep_ndjson_conn(FILE *out, const struct sum_conn *c)
{
	return dump_line(out, with_kind(jconn(c), "connection"));
}

int rep_ndjson_event(FILE *out, const struct sum_event *e)
{
	return dump_line(out, with_kind(jevent(e), "event"));
}

int rep_ndjson_tail(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	int rc = 0;

	for (unsigned k = 0; k < run->ninputs && rc == 0; k++)
		rc = dump_line(out, with_kind(jinput(run->inputs[k]), "input"));
	if (rc == 0) {
		json_t *s = with_kind(jsummary(d, run), "summary");
		json_object_set_new_nocheck(s, "tcpsift", jtool(run));
		json_object_set_new_nocheck(s, "vantages", jvantages(run));
		rc = dump_line(out, s);
	}
	return rc;
}
