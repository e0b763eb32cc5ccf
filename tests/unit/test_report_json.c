/* test_report_json.c - every connection and event the reporters write is valid JSON, keys sorted.
 */
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "tests/unit/unit.h"

/*
 * Reports write connections and events with rep_jw_conn() / rep_jw_event()
 * (analyze/report/json.c and the detectors' <name>_report.c). Every summary
 * and event below, picked at random and at the edges, goes through both
 * layouts the reports use (pretty at depth 0 for --json, compact with a
 * "kind" for --ndjson) and is read back with Jansson, the right tool for
 * reading JSON: it must parse, hold one value, keep its keys in strcmp
 * order at every level (Jansson iterates objects in insertion order), and
 * carry the identity the writer was given.
 */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Zero, one, the maximum, small, mid-sized or any 64-bit pattern. */
static uint64_t pick(void)
{
	switch (next() % 8) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return UINT64_MAX;
	case 3:
		return next() % 100;
	case 4:
		return next() % 100000;
	case 5:
		return next() >> (next() % 64);
	default:
		return next();
	}
}

static uint32_t pick32(void)
{
	switch (next() % 6) {
	case 0:
		return 0;
	case 1:
		return UINT32_MAX;
	case 2:
		return (uint32_t)INT32_MAX + 1; /* negative once read back as an int */
	default:
		return (uint32_t)pick();
	}
}

/* Nanoseconds: capture times, durations, 1 ns, -1 sentinels, extremes. */
static int64_t pick_ns(void)
{
	switch (next() % 9) {
	case 0:
		return 0;
	case 1:
		return -1;
	case 2:
		return 1;
	case 3:
		return INT64_MAX;
	case 4:
		return INT64_MIN + 1;
	case 5:
		return 1704067200000000000ll + (int64_t)(next() % 100000000000000ull);
	case 6:
		return (int64_t)(next() % 5000000000ull);
	case 7:
		return -(int64_t)(next() % 5000000000ull);
	default:
		return (int64_t)(next() >> (next() % 64));
	}
}

static bool coin(void)
{
	return next() & 1;
}

static void pick_addr(struct dec_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = coin() ? 4 : 6;
	unsigned n = a->family == 4 ? 4 : 16;
	for (unsigned k = 0; k < n; k++)
		a->a[k] = next() % 4 ? (uint8_t)next() : 0; /* runs of zeros: "::" */
}

static void pick_rtt(struct sum_rtt *r)
{
	r->n = coin() ? 0 : pick();
	r->min_ns = pick_ns();
	r->max_ns = pick_ns();
	/* INT64_MIN / -1 (n = UINT64_MAX) would trap in both writers alike. */
	r->sum_ns = pick_ns();
}

static void pick_dir(struct sum_dir *d, bool zero)
{
	memset(d, 0, sizeof(*d));
	d->wscale = -1;
	if (zero)
		return;
	d->packets = pick();
	d->ip_bytes = pick();
	d->data_packets = pick();
	d->payload_bytes = pick();
	d->unique_bytes = pick();
	d->pure_acks = pick();
	d->retrans = pick();
	d->retrans_bytes = pick();
	d->fast_retrans = pick();
	d->rto_retrans = pick();
	d->tlp_retrans = pick();
	d->tlp_new_data = pick();
	d->spurious_retrans = pick();
	d->spurious_dsack = pick();
	d->lost_upstream = pick();
	d->out_of_order = pick();
	d->fills_undecided = pick();
	for (unsigned k = 0; k < SUM_BY_COUNT; k++) {
		d->ooo_by[k] = pick();
		d->lost_upstream_by[k] = pick();
	}
	d->lost_segments = pick();
	d->dup_acks = pick();
	d->ack_reordering = pick();
	d->zero_windows = pick();
	d->window_full = pick();
	d->keepalives = pick();
	d->acked_unseen = pick();
	d->unseen_bytes = pick();
	d->sack_acks = pick();
	d->dsack_blocks = pick();
	d->oversize = pick();
	d->new_acks = pick();
	d->syn = pick();
	d->fin = pick();
	d->rst = pick();
	d->max_in_flight = pick();
	d->mss = pick32();
	d->wscale = (int8_t)(coin() ? -1 : (int)(next() % 256) - 128);
	d->min_payload = pick32();
	d->max_payload = pick32();
	d->min_window = pick();
	d->max_window = pick();
	pick_rtt(&d->rtt);
	pick_rtt(&d->rtt_ts);
	d->first_ts = pick_ns();
	d->last_ts = pick_ns();
	d->isn = pick32();
	d->isn_known = coin();
}

static void pick_stall(struct stall_summary *s)
{
	s->count = pick32();
	s->time_ns = pick_ns();
	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		s->by_class[k] = pick32();
	for (unsigned k = 0; k < STALL_HIST_BUCKETS; k++)
		s->hist[k] = pick32();
	s->max_ns = pick_ns();
	s->ack_delay_n = coin() ? 0 : pick32();
	s->ack_delay_min_ns = pick_ns();
	s->ack_delay_max_ns = pick_ns();
	s->ack_delay_sum_ns = pick_ns();
	s->timer_like = pick32();
	s->timer_like_ns = pick_ns();
	s->recurring = pick32();
	s->capture_gaps = pick32();
	s->think_time = pick32();
	s->think_time_ns = pick_ns();
}

static void pick_sack(struct sackb_summary *s)
{
	s->holes = pick32();
	s->hole_bytes = pick();
	s->max_hole_bytes_outstanding = pick();
	for (unsigned k = 0; k < SACKB_CLOSED_COUNT; k++)
		s->by_closed[k] = pick32();
	s->reordered_downstream = pick32();
	s->lost_downstream = pick32();
	s->lost_upstream = pick32();
	s->dsack = pick32();
	s->reneging = pick32();
	s->reneged_bytes = pick();
	s->recoveries = pick32();
	s->recovery_time_ns = pick_ns();
	s->recovery_max_ns = pick_ns();
	s->overflow = pick32();
	s->block_overflow = pick32();
	s->invalid_blocks = pick32();
	s->open_at_end_dirs = pick32();
}

static void pick_reorder(struct reorder_summary *s)
{
	s->events = pick32();
	s->max_extent = pick32();
	s->queues_used = pick32();
	s->queue_switches = pick32();
	s->reorder_on_queue_switch = pick32();
	s->ack_reordering = pick32();
	s->queues_known = coin();
	s->queue_min = coin() ? -1 : (int32_t)(next() % 64);
	s->queue_max = coin() ? -1 : (int32_t)(next() % 64);
	s->switch_unknown = pick32();
}

static void pick_mtu(struct mtu_summary *s)
{
	for (int k = 0; k < 2; k++) {
		s->implied_mtu[k] = coin() ? 0 : pick32();
		s->largest_payload[k] = coin() ? 0 : pick32();
		s->header_bytes[k] = coin() ? 0 : pick32();
		s->mss[k] = coin() ? 0 : pick32();
		s->full_size[k] = coin();
		s->misaligned_dir[k] = coin();
		s->oversize[k] = pick32();
		s->superframes[k] = pick32();
	}
	s->dir = (uint8_t)next();
	s->misaligned = coin();
	s->aligned_below = coin() ? 0 : pick32();
	s->aligned_above = coin() ? 0 : pick32();
	s->payload_mod_4096 = pick32();
	s->oversize_segments = pick32();
	s->icmp_too_big = pick32();
	s->icmp_mtu = coin() ? 0 : pick32();
	s->pmtu_blackhole = coin();
	s->blackholes = pick32();
	s->blackhole_mtu = coin() ? 0 : pick32();
	s->blackhole_shrunk_mtu = coin() ? 0 : pick32();
	s->blackhole_resends = pick32();
	s->collapse = coin();
	s->collapse_by = (uint8_t)(next() % MTU_COLLAPSE_BY_COUNT);
	s->stalls = pick32();
	s->stall_ns = pick_ns();
	s->idle_ns = pick_ns();
	s->transfer_ns = coin() ? 0 : pick_ns();
}

/* zero: every counter 0 and every optional unknown (nulls everywhere). */
static void pick_conn(struct sum_conn *c, bool zero)
{
	memset(c, 0, sizeof(*c));
	c->handshake_rtt_ns = -1;
	c->client.family = 4;
	c->server.family = 4;
	for (int k = 0; k < SUM_DIR_COUNT; k++)
		pick_dir(&c->dir[k], zero);
	if (zero)
		return;
	c->id = pick();
	pick_addr(&c->client);
	pick_addr(&c->server);
	c->client_port = (uint16_t)next();
	c->server_port = coin() ? 443 : (uint16_t)next();
	c->roles_from_syn = coin();
	c->first_ts = pick_ns();
	c->last_ts = pick_ns();
	int64_t dur;
	if (__builtin_sub_overflow(c->last_ts, c->first_ts, &dur))
		c->last_ts = c->first_ts; /* the engine's times are ordered: no overflow */
	c->first_input = pick32();
	c->last_input = pick32();
	c->vantage = pick32();
	c->first_frame = pick();
	c->last_frame = pick();
	c->state = (enum sum_state)(next() % (SUM_STATE_COUNT + 1)); /* + an unknown one */
	c->wscale_known = coin();
	c->sack_permitted = coin();
	c->timestamps = coin();
	c->handshake_rtt_ns = pick_ns();
	c->queue_mask = coin() ? 0 : pick();
	c->queues_known = coin();
	c->queues_overflow = coin();
	c->evicted = coin();
	c->evicted_and_resumed = coin();
	pick_stall(&c->det.stall);
	pick_sack(&c->det.sack);
	pick_reorder(&c->det.reorder);
	pick_mtu(&c->det.mtu);
}

static const char *const reasons[] = {
    NULL,
    "",
    "the receiver held the ACK for the next segment (delayed ACK)",
    "quote \" backslash \\ tab \t newline \n bell \x07 UTF-8 caf\xc3\xa9",
};

static void pick_event(struct sum_event *e, enum sum_event_type type)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->conn = pick();
	e->dir = (uint8_t)(next() % 3);
	e->ts = pick_ns();
	e->duration_ns = coin() ? -1 : pick_ns();
	e->input = pick32();
	e->frame_first = pick();
	e->frame_last = pick();
	e->bytes = pick();
	e->segments = pick32();
	e->extent = pick32();
	e->rel_seq = pick32();
	e->by = (uint8_t)(next() % (SUM_BY_COUNT + 1));
	e->queue_switch = (int8_t)(next() % 4) - 1; /* -1 unknown, 0, 1, 2 */
	switch (type) {
	case SUM_EV_STALL:
		e->u.stall.cls = (uint8_t)(next() % (STALL_CLASS_COUNT + 2));
		e->u.stall.reason = reasons[next() % 4];
		e->u.stall.evidence = reasons[next() % 4];
		e->u.stall.advice = reasons[next() % 4];
		e->u.stall.in_flight = pick32();
		e->u.stall.rwnd = pick();
		e->u.stall.ack_delay_ns = coin() ? -1 : pick_ns();
		e->u.stall.timer_like = coin();
		e->u.stall.recurring = coin();
		break;
	case SUM_EV_SACK_HOLE:
		e->u.hole.segments = pick32();
		e->u.hole.closed_by = (uint8_t)(next() % (SACKB_CLOSED_COUNT + 2));
		e->u.hole.passed_capture = (uint8_t)(next() % 3);
		e->u.hole.downstream = coin();
		e->u.hole.reason = reasons[next() % 4];
		break;
	case SUM_EV_ACK_PATTERN:
		e->u.ackpat.cls = (uint8_t)(next() % (ACKPAT_CLASS_COUNT + 1));
		e->u.ackpat.acks = pick32();
		e->u.ackpat.phase_acks = pick32();
		e->u.ackpat.seg_size = pick32();
		e->u.ackpat.push_acks = pick32();
		e->u.ackpat.oversize = pick();
		e->u.ackpat.advice = reasons[next() % 4];
		break;
	case SUM_EV_RETRANS:
	case SUM_EV_DUP_ACK:
	case SUM_EV_OUT_OF_ORDER:
	case SUM_EV_FILL_UNDECIDED:
	case SUM_EV_CAPTURE_GAP:
		e->u.frame.kind = (uint8_t)(next() % (SUM_RTX_KIND_COUNT + 2));
		e->u.frame.spurious = coin();
		e->u.frame.dsack = coin();
		e->u.frame.filled_gap = coin();
		e->u.frame.dup_count = pick32();
		break;
	case SUM_EV_MTU_ALIGNMENT:
	case SUM_EV_PMTU:
		e->u.mtu.mtu = coin() ? 0 : pick32();
		e->u.mtu.aligned_below = coin() ? 0 : pick32();
		e->u.mtu.aligned_above = coin() ? 0 : pick32();
		e->u.mtu.payload = pick32();
		e->u.mtu.payload_mod_4096 = pick32();
		e->u.mtu.big_mtu = coin() ? 0 : pick32();
		e->u.mtu.retransmissions = pick32();
		e->u.mtu.kind = (uint8_t)(next() % (MTU_PMTU_KIND_COUNT + 1));
		e->u.mtu.icmp_type = (uint8_t)next();
		e->u.mtu.icmp_code = (uint8_t)next();
		e->u.mtu.reason = reasons[next() % 4];
		break;
	default:
		break;
	}
}

/* Keys in strcmp order in every object of v. */
static bool keys_sorted(const json_t *v)
{
	const char *key, *prev = NULL;
	json_t *m;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, m) if (!keys_sorted(m)) return false;
		return true;
	}
	if (!json_is_object(v))
		return true;
	json_object_foreach((json_t *)v, key, m)
	{
		if (prev && strcmp(prev, key) >= 0) {
			fprintf(stderr, "key \"%s\" after \"%s\"\n", key, prev);
			return false;
		}
		prev = key;
		if (!keys_sorted(m))
			return false;
	}
	return true;
}

/* What w holds parses as one JSON value with sorted keys; the value (the
 * caller's to json_decref), or NULL. */
static json_t *read_back(const struct jo_writer *w, const char *what)
{
	json_error_t jerr;
	json_t *v = w->err ? NULL : json_loadb(w->b.p, w->b.len, 0, &jerr);

	if (!v) {
		fprintf(stderr, "%s: writer error %d, or not JSON (%s): '%.*s'\n", what, w->err,
			w->err ? "" : jerr.text, (int)w->b.len, w->b.p ? w->b.p : "");
		return NULL;
	}
	if (!keys_sorted(v)) {
		fprintf(stderr, "%s: keys out of order: '%.*s'\n", what, (int)w->b.len, w->b.p);
		json_decref(v);
		return NULL;
	}
	return v;
}

static unsigned nconns, nevents;

static void check_conn(const struct sum_conn *c)
{
	for (int indent = 0; indent < 2; indent++) {
		for (int kind = 0; kind < 2; kind++) {
			struct jo_writer w;
			const char *k = kind ? "connection" : NULL;
			jo_w_init(&w, NULL, 0, indent);
			rep_jw_conn(&w, c, k);
			json_t *v = read_back(&w, "connection");
			CHECK(v != NULL);
			if (v) {
				CHECK(json_integer_value(json_object_get(v, "id")) ==
				      (json_int_t)c->id);
				CHECK(json_is_object(json_object_get(v, "c2s")));
				CHECK(!kind || strcmp(json_string_value(json_object_get(v, "kind")),
						      "connection") == 0);
				json_decref(v);
			}
			jo_w_free(&w);
		}
	}
	nconns++;
}

static void check_event(const struct sum_event *e)
{
	for (int indent = 0; indent < 2; indent++) {
		for (int kind = 0; kind < 2; kind++) {
			struct jo_writer w;
			const char *k = kind ? "event" : NULL;
			jo_w_init(&w, NULL, 0, indent);
			rep_jw_event(&w, e, k);
			json_t *v = read_back(&w, sum_event_name(e->type));
			CHECK(v != NULL);
			if (v) {
				CHECK(strcmp(json_string_value(json_object_get(v, "type")),
					     sum_event_name(e->type)) == 0);
				CHECK(json_integer_value(json_object_get(v, "conn")) ==
				      (json_int_t)e->conn);
				json_decref(v);
			}
			jo_w_free(&w);
		}
	}
	nevents++;
}

/* Fixed cases first: all zero, all maximum, the sentinels one by one. */
static void test_conn_edges(void)
{
	struct sum_conn c;

	pick_conn(&c, true);
	check_conn(&c);

	/* Every counter at its maximum, every optional known. */
	memset(&c, 0xff, sizeof(c));
	c.client.family = 4;
	c.server.family = 6;
	c.roles_from_syn = c.wscale_known = c.sack_permitted = c.timestamps = true;
	c.queues_known = c.queues_overflow = c.evicted = c.evicted_and_resumed = true;
	c.state = SUM_STATE_RESET;
	c.first_ts = INT64_MAX;
	c.last_ts = 0;
	c.handshake_rtt_ns = INT64_MAX;
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct sum_dir *d = &c.dir[k];
		d->wscale = 14;
		d->isn_known = true;
		d->rtt.sum_ns = d->rtt_ts.sum_ns = INT64_MAX; /* n = UINT64_MAX: / -1 */
		d->rtt.min_ns = d->rtt.max_ns = d->rtt_ts.min_ns = d->rtt_ts.max_ns = 1;
		d->first_ts = d->last_ts = d->first_data_ts = d->last_data_ts = INT64_MAX;
	}
	struct mtu_summary *m = &c.det.mtu;
	m->full_size[0] = m->full_size[1] = m->misaligned_dir[0] = m->misaligned_dir[1] = true;
	m->misaligned = m->pmtu_blackhole = m->collapse = true;
	m->collapse_by = MTU_COLLAPSE_THROUGHPUT;
	m->stall_ns = m->idle_ns = m->transfer_ns = INT64_MAX;
	c.det.reorder.queues_known = true;
	c.det.reorder.queue_min = c.det.reorder.queue_max = INT32_MAX;
	struct stall_summary *s = &c.det.stall;
	s->time_ns = s->max_ns = s->ack_delay_min_ns = s->ack_delay_max_ns = INT64_MAX;
	s->ack_delay_sum_ns = INT64_MAX;
	c.det.sack.recovery_time_ns = c.det.sack.recovery_max_ns = INT64_MAX;
	check_conn(&c);

	/* Negative times: duration < 0 gives null rates, negative seconds. */
	pick_conn(&c, true);
	c.first_ts = 5000000000;
	c.last_ts = 1;
	c.dir[0].packets = c.dir[0].data_packets = 3;
	c.dir[0].payload_bytes = 4000;
	c.dir[1].new_acks = 7;
	check_conn(&c);

	/* IPv6 endpoints, every queue, an unknown state. */
	pick_conn(&c, false);
	c.client.family = c.server.family = 6;
	memset(c.client.a, 0, 16);
	c.client.a[15] = 1;
	c.queue_mask = UINT64_MAX;
	c.state = SUM_STATE_COUNT;
	check_conn(&c);
}

static void test_event_edges(void)
{
	struct sum_event e;

	for (int t = 0; t <= SUM_EV_TYPE_COUNT; t++) {
		memset(&e, 0, sizeof(e));
		e.type = (enum sum_event_type)t;
		e.duration_ns = -1;
		e.queue_switch = -1;
		if (t == SUM_EV_STALL) /* the union's other members overlap it */
			e.u.stall.ack_delay_ns = -1;
		check_event(&e); /* zeros, nulls */
		memset(&e, 0xff, sizeof(e));
		e.type = (enum sum_event_type)t;
		if (t == SUM_EV_STALL) {
			e.u.stall.reason = e.u.stall.evidence = e.u.stall.advice = NULL;
			e.u.stall.timer_like = e.u.stall.recurring = true;
		} else if (t == SUM_EV_MTU_ALIGNMENT || t == SUM_EV_PMTU) {
			e.u.mtu.reason = NULL;
		} else if (t == SUM_EV_ACK_PATTERN) {
			e.u.ackpat.advice = NULL;
		} else if (t == SUM_EV_SACK_HOLE) {
			e.u.hole.reason = NULL;
			e.u.hole.downstream = true;
		} else if (sum_event_is_frame((enum sum_event_type)t)) {
			e.u.frame.spurious = e.u.frame.dsack = e.u.frame.filled_gap = true;
		}
		e.ts = INT64_MAX;
		e.duration_ns = INT64_MAX;
		check_event(&e); /* maxima */
	}
	/* Every pmtu kind (its key is pmtu_kind, apart from NDJSON's "kind"). */
	for (uint8_t k = 0; k <= MTU_PMTU_KIND_COUNT; k++) {
		pick_event(&e, SUM_EV_PMTU);
		e.u.mtu.kind = k;
		check_event(&e);
	}
}

int main(void)
{
	test_conn_edges();
	test_event_edges();
	for (int k = 0; k < 3000; k++) {
		struct sum_conn c;
		pick_conn(&c, false);
		check_conn(&c);
	}
	for (int k = 0; k < 20000; k++) {
		struct sum_event e;
		pick_event(&e, (enum sum_event_type)(k % (SUM_EV_TYPE_COUNT + 1)));
		check_event(&e);
	}
	CHECK(nconns > 3000 && nevents > 20000);
	return unit_done("report_json");
}
