/* report.c - the collecting end of the engine's sink, and shared reporter helpers. */
#include "analyze/report.h"
#include "analyze/jsonout.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct report {
	struct rep_config cfg;
	struct sum_conn *conns;
	size_t nconns, conns_cap;
	struct sum_event *events;
	size_t nevents, events_cap;
	uint64_t events_dropped;
	struct rep_totals tot;
	int write_error;
	struct jo_writer ndjson; /* NDJSON: one buffer for every line */
};

void rep_format_endpoint(const struct dec_addr *a, uint16_t port, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (a->family == 6) {
		inet_ntop(AF_INET6, a->a, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, port);
	} else {
		inet_ntop(AF_INET, a->a, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, port);
	}
}

static void add_conn_totals(struct rep_totals *t, const struct sum_conn *c)
{
	uint64_t retr = 0, ooo = 0, loss = 0;

	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		const struct sum_dir *d = &c->dir[k];
		retr += d->retrans;
		ooo += d->out_of_order;
		loss += d->unseen_bytes;
		t->fast += d->fast_retrans;
		t->rto += d->rto_retrans;
		t->spurious += d->spurious_retrans;
		t->dup_acks += d->dup_acks;
		t->zero_windows += d->zero_windows;
		t->window_full += d->window_full;
		t->keepalives += d->keepalives;
		t->acked_unseen += d->acked_unseen;
		t->dsack += d->dsack_blocks;
		t->oversize += d->oversize;
		t->lost_segments += d->lost_segments;
		t->lost_upstream += d->lost_upstream;
		t->ack_reordering += d->ack_reordering;
		for (unsigned b = 0; b < SUM_BY_COUNT; b++)
			t->ooo_by[b] += d->ooo_by[b];
	}
	t->retrans += retr;
	t->ooo += ooo;
	t->unseen_bytes += loss;
	t->conns_with_retrans += retr != 0;
	t->conns_with_ooo += ooo != 0;
	t->conns_with_loss += loss != 0;
	t->conns_evicted += c->evicted;

	const struct stall_summary *st = &c->det.stall;
	t->stalls += st->count;
	t->stall_ns += st->time_ns;
	t->conns_with_stalls += st->count != 0;
	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		t->stall_by_class[k] += st->by_class[k];
	t->sack_holes += c->det.sack.holes;
	t->reneging += c->det.sack.reneging;
	t->conns_with_holes += c->det.sack.holes != 0;
	t->queue_reorders += c->det.reorder.reorder_on_queue_switch;
	t->mtu_misaligned += c->det.mtu.misaligned;
	t->mtu_collapse += c->det.mtu.collapse;
	t->pmtu_blackholes += c->det.mtu.pmtu_blackhole;
	t->icmp_too_big += c->det.mtu.icmp_too_big;
}

static void add_event_totals(struct rep_totals *t, const struct sum_event *e)
{
	switch (e->type) {
	case SUM_EV_ZERO_WINDOW:
		t->zw_episodes++;
		t->zw_time_ns += e->duration_ns > 0 ? e->duration_ns : 0;
		break;
	case SUM_EV_CAPTURE_LOSS:
		t->capture_loss_segments += e->segments;
		break;
	default:
		break;
	}
}

static void on_conn(void *ctx, const struct sum_conn *c)
{
	struct report *r = ctx;

	add_conn_totals(&r->tot, c);
	if (r->cfg.format == REP_NDJSON) {
		if (rep_ndjson_conn(&r->ndjson, c) < 0)
			r->write_error = errno ? errno : EIO;
		return;
	}
	if (r->nconns == r->conns_cap) {
		size_t cap = r->conns_cap ? r->conns_cap * 2 : 256;
		struct sum_conn *n = realloc(r->conns, cap * sizeof(*n));
		if (!n) {
			r->write_error = ENOMEM;
			return;
		}
		r->conns = n;
		r->conns_cap = cap;
	}
	r->conns[r->nconns++] = *c;
}

static void on_event(void *ctx, const struct sum_event *e)
{
	struct report *r = ctx;

	add_event_totals(&r->tot, e);
	if (r->cfg.format == REP_NDJSON) {
		if (rep_ndjson_event(&r->ndjson, e) < 0)
			r->write_error = errno ? errno : EIO;
		return;
	}
	if (r->nevents >= r->cfg.max_events) {
		r->events_dropped++;
		return;
	}
	if (r->nevents == r->events_cap) {
		size_t cap = r->events_cap ? r->events_cap * 2 : 256;
		if (cap > r->cfg.max_events)
			cap = r->cfg.max_events;
		struct sum_event *n = realloc(r->events, cap * sizeof(*n));
		if (!n) {
			r->events_dropped++;
			return;
		}
		r->events = n;
		r->events_cap = cap;
	}
	r->events[r->nevents++] = *e;
}

struct report *rep_new(const struct rep_config *cfg, char *errbuf, size_t errlen)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	r->cfg = *cfg;
	jo_w_init(&r->ndjson, cfg->out, 0, 0);
	return r;
}

struct sum_sink rep_sink(struct report *r)
{
	struct sum_sink s = {.conn = on_conn, .event = on_event, .ctx = r};
	return s;
}

static int by_conn_id(const void *a, const void *b)
{
	uint64_t x = ((const struct sum_conn *)a)->id, y = ((const struct sum_conn *)b)->id;
	return (x > y) - (x < y);
}

int rep_finish(struct report *r, const struct rep_run *run)
{
	struct rep_data d = {0};
	int rc;

	if (r->write_error)
		return -r->write_error;
	/* Connections end in any order (idle, evicted, drained): report them in
	 * the order of their first packet. */
	if (r->nconns)
		qsort(r->conns, r->nconns, sizeof(*r->conns), by_conn_id);
	d.conns = r->conns;
	d.nconns = r->nconns;
	d.events = r->events;
	d.nevents = r->nevents;
	d.events_dropped = r->events_dropped;
	d.tot = r->tot;
	switch (r->cfg.format) {
	case REP_JSON:
		rc = rep_write_json(r->cfg.out, &d, run);
		break;
	case REP_NDJSON:
		rc = rep_ndjson_tail(&r->ndjson, &d, run);
		break;
	default:
		rc = rep_write_text(r->cfg.out, &d, run);
		break;
	}
	if (rc == 0 && fflush(r->cfg.out) != 0)
		rc = -errno;
	return rc;
}

const struct rep_totals *rep_get_totals(const struct report *r)
{
	return &r->tot;
}

void rep_free(struct report *r)
{
	if (!r)
		return;
	free(r->conns);
	free(r->events);
	jo_w_free(&r->ndjson);
	free(r);
}
