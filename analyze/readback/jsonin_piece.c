/* jsonin_piece.c - the report reader's pieces: a connection, an event, an input, the summary. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/readback/jsonin_int.h"
#include "analyze/report/det_view.h"
#include "analyze/report/dirjson.h"
#include "analyze/report/jsonout.h"
#include "common/err.h"

/* ---- connections ---- */

/* A shard's "live": [entered, left before or null] (json.c), optional;
 * absent: live_from 0. */
static void read_live(struct ji_ctx *x, const json_t *o, struct sum_conn *c)
{
	const json_t *l = json_object_get(o, "live");
	const json_t *a = json_array_get(l, 0), *b = json_array_get(l, 1);

	if (!l || x->err)
		return;
	if (!json_is_array(l) || json_array_size(l) != 2 || !json_is_integer(a) ||
	    json_integer_value(a) < 1 || (!json_is_null(b) && !json_is_integer(b)) ||
	    (json_is_integer(b) && json_integer_value(b) < json_integer_value(a))) {
		ji_fail(x, "\"live\" is not [first packet, packet after or null]");
		return;
	}
	c->live_from = (uint64_t)json_integer_value(a);
	c->live_until = json_is_null(b) ? UINT64_MAX : (uint64_t)json_integer_value(b);
}

static void read_by(struct ji_ctx *x, const json_t *o, const char *key, uint64_t *v)
{
	const char *names[SUM_BY_COUNT];

	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		names[k] = sum_reorder_by_name((enum sum_reorder_by)k);
	ji_named_counts(x, o, key, names, v, SUM_BY_COUNT);
}

static void read_rtt(struct ji_ctx *x, const json_t *o, const char *key, struct sum_rtt *r)
{
	json_t *v = ji_get(x, o, key);

	memset(r, 0, sizeof(*r));
	if (!v || json_is_null(v))
		return;
	int64_t n = ji_int(x, v, "samples");
	if (n <= 0) {
		ji_fail(x, "\"%s\": samples is not positive", key);
		return;
	}
	r->n = (uint64_t)n;
	/* The average the writer divides back. */
	r->sum_ns = ji_avg_sum(x, ji_sec(x, v, "avg_s"), n, key);
	r->max_ns = ji_sec(x, v, "max_s");
	r->min_ns = ji_sec(x, v, "min_s");
}

/* The reading side of dirjson.h, member by member. */
#define DJ_U64_R(key, m)      d->m = (uint64_t)ji_int(x, o, key);
#define DJ_BY_R(key, m)	      read_by(x, o, key, d->m);
#define DJ_RTT_R(key, m)      read_rtt(x, o, key, &d->m);
#define DJ_TS_R(key, m)	      d->m = ji_sec_or(x, o, key, 0);
#define DJ_U64_PKT_R(key, m)  d->m = (uint64_t)ji_int_or(x, o, key, 0);
#define DJ_U32_DATA_R(key, m) d->m = (uint32_t)ji_int_or(x, o, key, 0);
#define DJ_U32_NZ_R(key, m)   d->m = (uint32_t)ji_int_or(x, o, key, 0);
#define DJ_ISN_R(key, m)                                                                           \
	d->m = (uint32_t)ji_int_or(x, o, key, -1);                                                 \
	d->isn_known = !json_is_null(json_object_get(o, key));
#define DJ_WSCALE_R(key, m)	 d->m = (int8_t)ji_int_or(x, o, key, -1);
#define DJ_AVG_PAYLOAD_R(key, m) /* derived */
#define DJ_GOODPUT_R(key, m)
#define DJ_THROUGHPUT_R(key, m)
#define DJ_SEG_PER_ACK_R(key, m)
#define DJ_LOSS_RATE_R(key, m)
#define DJ_VANTAGE_R(key, m) /* from the connection's loops */
#define DJ_R(key, kind, m)   kind##_R(key, m)

static void read_dir(struct ji_ctx *x, const json_t *c, const char *key, struct sum_conn *sc,
		     unsigned dir)
{
	json_t *o = ji_get(x, c, key);
	struct sum_dir *d = &sc->dir[dir];

	memset(d, 0, sizeof(*d));
	if (!o)
		return;
	SUM_DIR_JSON(DJ_R)
	/* The detectors' members of the direction (their views' dir_key). */
	for (unsigned k = 0; k < DET_VIEW_COUNT && !x->err; k++) {
		json_t *v = det_views[k]->dir_key ? ji_get(x, o, det_views[k]->dir_key) : NULL;
		if (v)
			det_views[k]->json_read_dir(x, v, sc, dir);
	}
}

/* "1.2.3.4:80" or "[2001:db8::1]:443". */
static void read_endpoint(struct ji_ctx *x, const json_t *o, const char *key, struct dec_addr *a,
			  uint16_t *port)
{
	json_t *v = ji_get(x, o, key);
	char buf[64];
	const char *s, *colon;
	char *end;

	memset(a, 0, sizeof(*a));
	*port = 0;
	if (!v)
		return;
	s = json_string_value(v);
	colon = s ? strrchr(s, ':') : NULL;
	if (!colon || (size_t)(colon - s) >= sizeof(buf))
		goto bad;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = 0;
	errno = 0;
	unsigned long p = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || p > 65535 || errno)
		goto bad;
	*port = (uint16_t)p;
	size_t len = strlen(buf);
	if (len > 2 && buf[0] == '[' && buf[len - 1] == ']') {
		buf[len - 1] = 0;
		a->family = 6;
		if (inet_pton(AF_INET6, buf + 1, a->a) == 1)
			return;
	} else {
		a->family = 4;
		if (inet_pton(AF_INET, buf, a->a) == 1)
			return;
	}
bad:
	ji_fail(x, "\"%s\" is not an address:port", key);
}

/* Seconds, -1 when null or absent (reports before these members). */
static int64_t sec_or_absent(struct ji_ctx *x, const json_t *o, const char *key)
{
	return json_object_get(o, key) ? ji_sec_or(x, o, key, -1) : -1;
}

/* The path's round trips: optional, so older reports still read. */
static void read_path(struct ji_ctx *x, const json_t *o, struct sum_path *p)
{
	json_t *loops = json_object_get(o, "loop_rtt_s");

	sum_path_unknown(p);
	p->rtt_ns = sec_or_absent(x, o, "path_rtt_s");
	if (!loops || json_is_null(loops))
		return;
	if (!json_is_object(loops)) {
		ji_fail(x, "\"loop_rtt_s\" is not an object");
		return;
	}
	p->loop_ns[SUM_C2S] = sec_or_absent(x, loops, "client");
	p->loop_ns[SUM_S2C] = sec_or_absent(x, loops, "server");
	if (!x->err && (p->rtt_ns < -1 || p->loop_ns[0] < -1 || p->loop_ns[1] < -1))
		ji_fail(x, "a negative round trip");
}

int ji_conn(struct ji_ctx *x, const json_t *o, struct sum_conn *c)
{
	const char *states[SUM_STATE_COUNT];
	int64_t frames[2];
	json_t *q;

	for (unsigned k = 0; k < SUM_STATE_COUNT; k++)
		states[k] = sum_state_name((enum sum_state)k);
	memset(c, 0, sizeof(*c));
	if (!json_is_object(o))
		ji_fail(x, "a connection is not an object");
	read_dir(x, o, "c2s", c, SUM_C2S);
	read_dir(x, o, "s2c", c, SUM_S2C);
	read_endpoint(x, o, "client", &c->client, &c->client_port);
	read_endpoint(x, o, "server", &c->server, &c->server_port);
	c->evicted = ji_bool(x, o, "evicted");
	c->evicted_and_resumed = ji_bool(x, o, "evicted_and_resumed");
	c->first_ts = ji_int(x, o, "first_ts_ns");
	ji_ints(x, o, "frames", frames, 2);
	c->first_frame = (uint64_t)frames[0];
	c->last_frame = (uint64_t)frames[1];
	c->handshake_rtt_ns = ji_sec_or(x, o, "handshake_rtt_s", -1);
	c->id = (uint64_t)ji_int(x, o, "id");
	c->first_input = (uint32_t)ji_int(x, o, "input");
	c->last_input = (uint32_t)ji_int(x, o, "last_input");
	c->last_ts = ji_sec(x, o, "last_ts");
	read_live(x, o, c);
	read_path(x, o, &c->path);
	q = ji_get(x, o, "queues");
	if (q && !json_is_array(q))
		ji_fail(x, "\"queues\" is not an array");
	for (size_t k = 0; q && k < json_array_size(q); k++) {
		json_t *e = json_array_get(q, k);
		if (!json_is_integer(e) || json_integer_value(e) < 0 ||
		    json_integer_value(e) > 63) {
			ji_fail(x, "\"queues\" holds something else than a queue 0..63");
			break;
		}
		c->queue_mask |= 1ull << json_integer_value(e);
	}
	c->queues_known = c->queue_mask != 0;
	c->roles_from_syn = ji_bool(x, o, "roles_from_syn");
	c->sack_permitted = ji_bool(x, o, "sack_permitted");
	c->state = (enum sum_state)ji_enum(x, o, "state", states, SUM_STATE_COUNT);
	c->timestamps = ji_bool(x, o, "timestamps");
	int64_t vantage = ji_int(x, o, "vantage");
	if (vantage < 0 || vantage > UINT16_MAX) /* sum_conn keeps 16 bits */
		ji_fail(x, "\"vantage\" is not an id 0..65535");
	c->vantage = (uint16_t)vantage;
	c->wscale_known = ji_bool(x, o, "window_scale_known");
	for (unsigned k = 0; k < DET_VIEW_COUNT && !x->err; k++) {
		json_t *v = det_views[k]->conn_key ? ji_get(x, o, det_views[k]->conn_key) : NULL;
		if (v)
			det_views[k]->json_read_conn(x, v, c);
	}
	if (!x->err && c->id == 0)
		ji_fail(x, "connection id 0");
	/* Capture times are not negative (pcap's are unsigned): so the
	 * reporters' differences of them cannot overflow. */
	if (!x->err && (c->first_ts < 0 || c->last_ts < 0 || c->dir[0].first_ts < 0 ||
			c->dir[0].last_ts < 0 || c->dir[1].first_ts < 0 || c->dir[1].last_ts < 0))
		ji_fail(x, "a negative time");
	return x->err;
}

/* ---- events ---- */

int ji_event(struct ji_ctx *x, const json_t *o, struct sum_event *e)
{
	const char *types[SUM_EV_TYPE_COUNT], *dirs[SUM_DIR_COUNT], *kinds[SUM_RTX_KIND_COUNT];
	const char *bys[SUM_BY_COUNT];
	int64_t frames[2];

	for (unsigned k = 0; k < SUM_EV_TYPE_COUNT; k++)
		types[k] = sum_event_name((enum sum_event_type)k);
	for (unsigned k = 0; k < SUM_DIR_COUNT; k++)
		dirs[k] = sum_dir_name(k);
	for (unsigned k = 0; k < SUM_RTX_KIND_COUNT; k++)
		kinds[k] = sum_retrans_kind_name((enum sum_retrans_kind)k);
	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		bys[k] = sum_reorder_by_name((enum sum_reorder_by)k);

	memset(e, 0, sizeof(*e));
	if (!json_is_object(o))
		ji_fail(x, "an event is not an object");
	e->type = (enum sum_event_type)ji_enum(x, o, "type", types, SUM_EV_TYPE_COUNT);
	e->conn = (uint64_t)ji_int(x, o, "conn");
	e->dir = (uint8_t)ji_enum(x, o, "dir", dirs, SUM_DIR_COUNT);
	e->duration_ns = ji_sec_or(x, o, "duration_s", -1);
	e->input = (uint32_t)ji_int(x, o, "input");
	e->ts = ji_sec(x, o, "ts");
	ji_ints(x, o, "frames", frames, 2);
	e->frame_first = (uint64_t)frames[0];
	e->frame_last = (uint64_t)frames[1];
	e->bytes = (uint64_t)ji_int(x, o, "bytes");
	e->rel_seq = (uint32_t)ji_int(x, o, "rel_seq");
	e->queue_switch = -1;
	if (!x->err && (e->ts < 0 || e->duration_ns < -1))
		ji_fail(x, "a negative time");
	if (x->err)
		return x->err;
	const struct det_view *v = det_view_of_event(e->type);
	if (v)
		v->json_read_event(x, o, e);
	switch (e->type) {
	case SUM_EV_CAPTURE_LOSS:
		e->segments = (uint32_t)ji_int(x, o, "segments");
		break;
	case SUM_EV_RETRANS:
		e->u.frame.filled_gap = ji_bool(x, o, "filled_gap");
		e->u.frame.kind = (uint8_t)ji_enum(x, o, "retrans_kind", kinds, SUM_RTX_KIND_COUNT);
		e->u.frame.spurious = ji_bool(x, o, "spurious");
		e->u.frame.dsack = ji_bool(x, o, "spurious_by_dsack");
		break;
	case SUM_EV_DUP_ACK:
		e->u.frame.dup_count = (uint32_t)ji_int(x, o, "dup_count");
		break;
	case SUM_EV_OUT_OF_ORDER:
		e->by = (uint8_t)ji_enum(x, o, "decided_by", bys, SUM_BY_COUNT);
		e->extent = (uint32_t)ji_int(x, o, "extent");
		break;
	case SUM_EV_FILL_UNDECIDED:
		e->extent = (uint32_t)ji_int(x, o, "extent");
		break;
	default:
		break;
	}
	return x->err;
}

/* ---- inputs and the summary ---- */

/* A link type's value from the name the writer wrote (any value that
 * src_linktype_name() names alike: what the reporters print is the name). */
static uint32_t linktype_of(const char *name)
{
	for (uint32_t lt = 0; lt < 512; lt++)
		if (strcmp(src_linktype_name(lt), name) == 0)
			return lt;
	return 0xffff;
}

/* A count the writer writes as null when the file carries none. */
static uint64_t opt_count(struct ji_ctx *x, const json_t *o, const char *key, bool *known)
{
	json_t *t = ji_get(x, o, key);

	*known = t && !json_is_null(t);
	return (uint64_t)ji_int_or(x, o, key, 0);
}

static struct src_iface *read_ifaces(struct ji_ctx *x, const json_t *a, unsigned *n)
{
	struct src_iface *v;

	*n = 0;
	if (!json_is_array(a)) {
		ji_fail(x, "\"interfaces\" is not an array");
		return NULL;
	}
	if (json_array_size(a) > 65536) {
		ji_fail(x, "too many interfaces");
		return NULL;
	}
	v = calloc(json_array_size(a) + 1, sizeof(*v));
	if (!v) {
		ji_fail(x, "out of memory");
		return NULL;
	}
	for (size_t k = 0; k < json_array_size(a) && !x->err; k++) {
		const json_t *o = json_array_get(a, k);
		struct src_iface *f = &v[k];
		const char *name = ji_str(x, o, "name", false);
		const char *lt = ji_str(x, o, "link_type", false);
		if (name)
			snprintf(f->name, sizeof(f->name), "%s", name);
		if (lt)
			f->linktype = linktype_of(lt);
		f->epb_drops = opt_count(x, o, "epb_dropcount", &f->have_epb_drops);
		f->ifdrop = opt_count(x, o, "isb_ifdrop", &f->have_ifdrop);
		f->ifrecv = opt_count(x, o, "isb_ifrecv", &f->have_ifrecv);
		f->osdrop = opt_count(x, o, "isb_osdrop", &f->have_osdrop);
	}
	*n = (unsigned)json_array_size(a);
	return v;
}

int ji_input(struct ji_ctx *x, const json_t *o, struct src_input *in)
{
	json_t *t;
	const char *err;

	memset(in, 0, sizeof(*in));
	in->wire_bytes = (uint64_t)ji_int(x, o, "bytes");
	in->drops = opt_count(x, o, "capture_drops", &in->drops_known);
	in->compressed = ji_bool(x, o, "compressed");
	err = ji_str(x, o, "error", true);
	if (err) {
		/* The reason names the code: a merge lists the errors as the shards did. */
		const char *why =
		    json_object_get(o, "error_reason") ? ji_str(x, o, "error_reason", true) : NULL;
		in->error = why ? err_of_reason_name(why) : ERR_INPUT;
		snprintf(in->errmsg, sizeof(in->errmsg), "%s", err);
	}
	in->first_ts = ji_sec_or(x, o, "first_ts", 0);
	in->format = ji_str(x, o, "format", false);
	in->last_ts = ji_sec_or(x, o, "last_ts", 0);
	in->linktype = (uint32_t)ji_int(x, o, "link_type_value");
	in->packets = (uint64_t)ji_int(x, o, "packets");
	in->path = ji_str(x, o, "path", false);
	/* Interfaces last: the caller owns them once this returns, error or not. */
	t = ji_get(x, o, "interfaces");
	if (t)
		in->ifaces = read_ifaces(x, t, &in->nifaces);
	return x->err;
}

int ji_summary(struct ji_ctx *x, const json_t *s, const json_t *tool, const json_t *vantages,
	       struct ji_summary *out)
{
	const char *names[DEC_STATUS_COUNT > DEC_ERR_COUNT ? DEC_STATUS_COUNT : DEC_ERR_COUNT];
	struct eng_counters *e = &out->eng;
	json_t *t;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(s))
		ji_fail(x, "the summary is not an object");
	e->bad_tcp_options = (uint64_t)ji_int(x, s, "bad_tcp_options");
	out->flows.created = (uint64_t)ji_int(x, s, "connections");
	for (int k = 0; k < DEC_STATUS_COUNT; k++)
		names[k] = dec_status_name(k);
	ji_named_counts(x, s, "decoded", names, e->status, DEC_STATUS_COUNT);
	out->events_dropped = (uint64_t)ji_int(x, s, "events_dropped");
	out->filtered_out = (uint64_t)ji_int(x, s, "filtered_out");
	/* The detectors ran unless their findings are null: the first member
	 * a view writes for unknown findings tells. */
	t = ji_get(x, s, "findings");
	if (t && DET_VIEW_COUNT > 0) {
		struct jo_fields f;
		struct det_totals zero = {0};
		jo_f_reset(&f);
		det_views[0]->json_findings(&f, &zero, false);
		out->detectors = f.n && !json_is_null(ji_get(x, t, f.f[0].key));
	}
	e->first_ts = ji_sec_or(x, s, "first_ts", 0);
	e->last_ts = ji_sec_or(x, s, "last_ts", 0);
	t = ji_get(x, s, "flows");
	out->flows.ended[FLOW_END_DONE] = (uint64_t)ji_int(x, t, "at_end");
	out->flows.ended[FLOW_END_CLOSED] = (uint64_t)ji_int(x, t, "ended_closed");
	out->flows.ended[FLOW_END_IDLE] = (uint64_t)ji_int(x, t, "ended_idle");
	out->flows.ended[FLOW_END_EVICTED] = (uint64_t)ji_int(x, t, "evicted");
	e->mem_evictions = (uint64_t)ji_int(x, t, "evicted_by_memory");
	out->flows.forgotten = (uint64_t)ji_int(x, t, "evicted_forgotten");
	out->flows.remember_failed = (uint64_t)ji_int(x, t, "evicted_not_remembered");
	out->flows.evicted_packets = (uint64_t)ji_int(x, t, "evicted_packets_dropped");
	out->flows.max_live = (uint32_t)ji_int(x, t, "max_live");
	e->mem_peak = (uint64_t)ji_int(x, t, "memory_peak");
	out->flows.ended[FLOW_END_REUSED] = (uint64_t)ji_int(x, t, "port_reused");
	out->flows.resumed = (uint64_t)ji_int(x, t, "resumed");
	t = ji_get(x, s, "alloc_failed");
	e->nomem_detectors = (uint64_t)ji_int(x, t, "detector_state");
	e->nomem_rtt_rings = (uint64_t)ji_int(x, t, "rtt_rings");
	e->nomem_tables = (uint64_t)ji_int(x, t, "tcp_tables");
	e->malformed_total = (uint64_t)ji_int(x, s, "malformed");
	for (int k = 1; k < DEC_ERR_COUNT; k++)
		names[k - 1] = dec_status_name(-k);
	ji_named_counts(x, s, "malformed_by_reason", names, e->malformed + 1, DEC_ERR_COUNT - 1);
	e->no_memory = (uint64_t)ji_int(x, s, "no_memory");
	e->other_shards = (uint64_t)ji_int(x, s, "other_shards");
	e->packets = (uint64_t)ji_int(x, s, "packets");
	t = json_object_get(s, "shard");
	if (t) {
		int64_t k = ji_int(x, t, "k"), n = ji_int(x, t, "n");
		if (!x->err && (n < 1 || k < 1 || k > n || n > 65536))
			ji_fail(x, "summary.shard is not K/N with 1 <= K <= N <= 65536");
		out->shard_k = (uint32_t)k;
		out->shard_n = (uint32_t)n;
	}
	e->snaplen_cut = (uint64_t)ji_int(x, s, "snaplen_cut");
	e->ts_backwards = (uint64_t)ji_int(x, s, "timestamps_backwards");
	/* Added after schema 2 began: absent from older reports. */
	if (json_object_get(s, "timestamps_clamped"))
		e->ts_clamped = (uint64_t)ji_int(x, s, "timestamps_clamped");
	out->schema = (int)ji_int(x, tool, "schema");
	out->version = ji_str(x, tool, "version", false);
	if (vantages && !json_is_array(vantages))
		ji_fail(x, "\"vantages\" is not an array");
	if (!x->err && json_array_size(vantages) > SRC_MAX_VANTAGES)
		ji_fail(x, "more than %d vantages", SRC_MAX_VANTAGES);
	if (!x->err && json_array_size(vantages)) {
		out->vantages = calloc(json_array_size(vantages), sizeof(*out->vantages));
		if (!out->vantages)
			ji_fail(x, "out of memory");
	}
	for (size_t k = 0; out->vantages && k < json_array_size(vantages) && !x->err; k++) {
		json_t *v = json_array_get(vantages, k);
		const char *name =
		    json_is_string(v) ? ji_pool_intern(x->pool, json_string_value(v)) : NULL;
		if (!name)
			ji_fail(x, "vantage %zu is not a string", k);
		out->vantages[out->nvantages++] = name;
	}
	return x->err;
}
