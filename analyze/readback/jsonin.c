/* jsonin.c - the report reader: a --json document or --ndjson stream back into summaries. */
#include "analyze/readback/jsonin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/report/dirjson.h"
#include "analyze/report/jsonout.h"
#include "common/err.h"

/* ---- interned strings ---- */

/* Distinct strings a file may hold (reasons, paths, names): bounded so a
 * hostile file cannot grow it without end. */
enum { JI_POOL_MAX = 4096, JI_LINE_MAX = 64 << 20 };

struct ji_pool {
	char **s;
	unsigned n, cap;
};

static const char *pool_intern(struct ji_pool *p, const char *s)
{
	for (unsigned k = 0; k < p->n; k++)
		if (strcmp(p->s[k], s) == 0)
			return p->s[k];
	if (p->n == JI_POOL_MAX)
		return NULL;
	if (p->n == p->cap) {
		unsigned cap = p->cap ? p->cap * 2 : 64;
		char **n = realloc(p->s, cap * sizeof(*n));
		if (!n)
			return NULL;
		p->s = n;
		p->cap = cap;
	}
	char *c = strdup(s);
	if (!c)
		return NULL;
	p->s[p->n++] = c;
	return c;
}

struct ji_pool *ji_pool_new(void)
{
	return calloc(1, sizeof(struct ji_pool));
}

void ji_pool_free(struct ji_pool *p)
{
	if (!p)
		return;
	for (unsigned k = 0; k < p->n; k++)
		free(p->s[k]);
	free(p->s);
	free(p);
}

/* ---- members ---- */

void ji_fail(struct ji_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->err)
		return;
	x->err = ERR_INPUT;
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
}

json_t *ji_get(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v;

	if (x->err)
		return NULL;
	if (!json_is_object(o)) {
		ji_fail(x, "not an object where \"%s\" was expected", key);
		return NULL;
	}
	v = json_object_get(o, key);
	if (!v)
		ji_fail(x, "no member \"%s\"", key);
	return v;
}

int64_t ji_int(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v = ji_get(x, o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v)) {
		ji_fail(x, "\"%s\" is not an integer", key);
		return 0;
	}
	return json_integer_value(v);
}

int64_t ji_int_or(struct ji_ctx *x, const json_t *o, const char *key, int64_t dflt)
{
	json_t *v = ji_get(x, o, key);

	return v && json_is_null(v) ? dflt : ji_int(x, o, key);
}

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

/* "-12.345" (as jo_fmt_sec writes it; ji_quote_reals made it a string) or
 * an integer: nanoseconds. */
static int parse_sec(const char *s, int64_t *ns)
{
	bool neg = *s == '-';
	uint64_t whole = 0, frac = 0;
	int digits = 0;

	s += neg;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (whole > (uint64_t)INT64_MAX / 10000000000ull)
			return -1; /* beyond what int64 nanoseconds hold */
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (digits == 9)
				return -1; /* finer than a nanosecond: not ours */
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (!digits)
			return -1;
	}
	if (*s)
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	uint64_t u = whole * 1000000000ull + frac;
	if (u > (uint64_t)INT64_MAX + neg)
		return -1;
	*ns = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

int64_t ji_sec(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v = ji_get(x, o, key);
	int64_t ns = 0;

	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) <= INT64_MAX / 1000000000 &&
	    json_integer_value(v) >= INT64_MIN / 1000000000)
		return json_integer_value(v) * 1000000000;
	if (!json_is_string(v) || parse_sec(json_string_value(v), &ns) < 0)
		ji_fail(x, "\"%s\" is not a time in seconds", key);
	return ns;
}

int64_t ji_sec_or(struct ji_ctx *x, const json_t *o, const char *key, int64_t dflt)
{
	json_t *v = ji_get(x, o, key);

	return v && json_is_null(v) ? dflt : ji_sec(x, o, key);
}

int64_t ji_avg_sum(struct ji_ctx *x, int64_t avg, int64_t n, const char *key)
{
	int64_t sum;

	if (__builtin_mul_overflow(avg, n, &sum)) {
		ji_fail(x, "\"%s\": its average times its count is out of range", key);
		return 0;
	}
	return sum;
}

bool ji_bool(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v = ji_get(x, o, key);

	if (v && !json_is_boolean(v))
		ji_fail(x, "\"%s\" is not true or false", key);
	return v && json_is_true(v);
}

const char *ji_str(struct ji_ctx *x, const json_t *o, const char *key, bool nullable)
{
	json_t *v = ji_get(x, o, key);
	const char *s;

	if (!v || (nullable && json_is_null(v)))
		return NULL;
	if (!json_is_string(v)) {
		ji_fail(x, "\"%s\" is not a string", key);
		return NULL;
	}
	s = pool_intern(x->pool, json_string_value(v));
	if (!s)
		ji_fail(x, "too many distinct strings (or out of memory) at \"%s\"", key);
	return s;
}

unsigned ji_enum(struct ji_ctx *x, const json_t *o, const char *key, const char *const *names,
		 unsigned n)
{
	json_t *v = ji_get(x, o, key);

	if (!v)
		return 0;
	if (json_is_string(v))
		for (unsigned k = 0; k < n; k++)
			if (strcmp(names[k], json_string_value(v)) == 0)
				return k;
	ji_fail(x, "\"%s\" is not one of its names", key);
	return 0;
}

void ji_named_counts(struct ji_ctx *x, const json_t *o, const char *key, const char *const *names,
		     uint64_t *v, unsigned n)
{
	json_t *obj = ji_get(x, o, key);

	for (unsigned k = 0; k < n; k++)
		v[k] = (uint64_t)ji_int(x, obj, names[k]);
}

void ji_ints(struct ji_ctx *x, const json_t *o, const char *key, int64_t *v, unsigned n)
{
	json_t *a = ji_get(x, o, key);

	memset(v, 0, n * sizeof(*v));
	if (!a)
		return;
	if (!json_is_array(a) || json_array_size(a) != n) {
		ji_fail(x, "\"%s\" is not an array of %u integers", key, n);
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		json_t *e = json_array_get(a, k);
		if (!json_is_integer(e)) {
			ji_fail(x, "\"%s\" is not an array of %u integers", key, n);
			return;
		}
		v[k] = json_integer_value(e);
	}
}

/* ---- connections ---- */

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
	c->vantage = (uint32_t)ji_int(x, o, "vantage");
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

/* A file's inputs keep their interfaces here (owned by the file). */
struct ji_ifaces {
	struct src_iface *v;
	struct ji_ifaces *next;
};

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
		    json_is_string(v) ? pool_intern(x->pool, json_string_value(v)) : NULL;
		if (!name)
			ji_fail(x, "vantage %zu is not a string", k);
		out->vantages[out->nvantages++] = name;
	}
	return x->err;
}

/* ---- the text pre-pass ---- */

/* A character of a JSON number after its first. */
static bool num_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

char *ji_quote_reals(const char *in, size_t n, size_t *outn)
{
	size_t reals = 0;

	/* First count the reals (two quotes each), then copy. */
	for (int pass = 0; pass < 2; pass++) {
		char *out = NULL;
		size_t k = 0, o = 0;
		bool str = false;
		if (pass == 1 && !(out = malloc(n + 2 * reals + 1)))
			return NULL;
		while (k < n) {
			char c = in[k];
			if (str) {
				if (c == '\\' && k + 1 < n) {
					if (out) {
						out[o] = c;
						out[o + 1] = in[k + 1];
					}
					o += 2;
					k += 2;
					continue;
				}
				str = c != '"';
			} else if (c == '"') {
				str = true;
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				size_t end = k + 1;
				bool real = false;
				while (end < n && num_char(in[end])) {
					real |= in[end] == '.' || in[end] == 'e' || in[end] == 'E';
					end++;
				}
				if (real) {
					if (out) {
						out[o] = '"';
						memcpy(out + o + 1, in + k, end - k);
						out[o + 1 + end - k] = '"';
					} else {
						reals++;
					}
					o += end - k + 2;
				} else {
					if (out)
						memcpy(out + o, in + k, end - k);
					o += end - k;
				}
				k = end;
				continue;
			}
			if (out)
				out[o] = c;
			o++;
			k++;
		}
		if (out) {
			out[o] = 0;
			*outn = o;
			return out;
		}
	}
	return NULL;
}

/* ---- files ---- */

struct ji_file {
	const char *path;
	FILE *f;
	bool ndjson;
	struct ji_pool *pool;
	bool own_pool;
	struct ji_ifaces *ifaces; /* every input's interfaces handed out */
	const char **vantages[2]; /* handed out with summaries */
	/* NDJSON */
	char *line;
	size_t line_cap;
	uint64_t lineno;
	bool done; /* the summary line was read */
	/* JSON: the whole document and where the walk is */
	json_t *doc;
	size_t nconn, nevent, ninput;
	int stage; /* 0 connections, 1 events, 2 inputs, 3 summary, 4 end */
};

static json_t *parse(const char *text, size_t n, char *err, size_t errlen)
{
	json_error_t je;
	size_t qn;
	char *q = ji_quote_reals(text, n, &qn);
	json_t *v;

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	v = json_loadb(q, qn, JSON_REJECT_DUPLICATES, &je);
	free(q);
	if (!v)
		snprintf(err, errlen, "not JSON: %s (column %d)", je.text, je.column);
	return v;
}

/* One line into f->line (without its newline): its length, 0 at the end
 * of the file, or -1 (a read error, or a line beyond JI_LINE_MAX). */
static ssize_t read_line(struct ji_file *f)
{
	ssize_t n = getline(&f->line, &f->line_cap, f->f);

	if (n < 0)
		return ferror(f->f) ? -1 : 0;
	if (n > JI_LINE_MAX)
		return -1;
	f->lineno++;
	if (n && f->line[n - 1] == '\n')
		f->line[--n] = 0;
	return n ? n : 1; /* an empty line is a (bad) line */
}

struct ji_file *ji_open(const char *path, struct ji_pool *pool, char *errbuf, size_t errlen)
{
	struct ji_file *f = calloc(1, sizeof(*f));
	json_t *first;
	char err[200];
	ssize_t n;

	if (f) {
		f->own_pool = !pool;
		f->pool = pool ? pool : ji_pool_new();
	}
	if (!f || !f->pool) {
		free(f);
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	f->path = path;
	f->f = fopen(path, "r");
	if (!f->f) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		free(f);
		return NULL;
	}
	/* NDJSON's first line is a whole object with a "kind"; a document's is
	 * "{" and its first key. */
	n = read_line(f);
	if (n <= 0) {
		snprintf(errbuf, errlen, "%s: %s", path, n < 0 ? "cannot read it" : "empty");
		ji_close(f);
		return NULL;
	}
	first = parse(f->line, (size_t)n, err, sizeof(err));
	f->ndjson = first && json_is_string(json_object_get(first, "kind"));
	json_decref(first);
	if (f->ndjson) {
		rewind(f->f);
		f->lineno = 0;
		return f;
	}
	/* A document: read whole (tcpsift-merge(1)). */
	rewind(f->f);
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (len + 65536 > cap) {
			char *t = realloc(text, cap = (cap ? cap * 2 : 1 << 20));
			if (!t) {
				free(text);
				snprintf(errbuf, errlen, "%s: out of memory", path);
				ji_close(f);
				return NULL;
			}
			text = t;
		}
		got = fread(text + len, 1, cap - len, f->f);
		len += got;
	} while (got);
	if (ferror(f->f)) {
		free(text);
		snprintf(errbuf, errlen, "%s: cannot read it", path);
		ji_close(f);
		return NULL;
	}
	f->doc = parse(text, len, err, sizeof(err));
	free(text);
	if (!f->doc || !json_is_object(f->doc) ||
	    !json_is_array(json_object_get(f->doc, "connections")) ||
	    !json_is_object(json_object_get(f->doc, "summary"))) {
		snprintf(errbuf, errlen, "%s: not a tcpsift --json or --ndjson report%s%s", path,
			 f->doc ? "" : ": ", f->doc ? "" : err);
		ji_close(f);
		return NULL;
	}
	return f;
}

bool ji_is_ndjson(const struct ji_file *f)
{
	return f->ndjson;
}

/* A summary's vantage list is freed with the file (the last two kept). */
static void keep_vantages(struct ji_file *f, const char **v)
{
	free(f->vantages[0]);
	f->vantages[0] = f->vantages[1];
	f->vantages[1] = v;
}

static int piece(struct ji_file *f, struct ji_ctx *x, const json_t *o, struct ji_item *it,
		 const char *kind)
{
	if (strcmp(kind, "connection") == 0) {
		it->kind = JI_CONN;
		ji_conn(x, o, &it->conn);
	} else if (strcmp(kind, "event") == 0) {
		it->kind = JI_EVENT;
		ji_event(x, o, &it->event);
	} else if (strcmp(kind, "input") == 0) {
		it->kind = JI_INPUT;
		ji_input(x, o, &it->input);
		if (it->input.ifaces) {
			struct ji_ifaces *l = malloc(sizeof(*l));
			if (!l) {
				free(it->input.ifaces);
				it->input.ifaces = NULL;
				ji_fail(x, "out of memory");
			} else {
				l->v = it->input.ifaces;
				l->next = f->ifaces;
				f->ifaces = l;
			}
		}
	} else if (strcmp(kind, "summary") == 0) {
		it->kind = JI_SUMMARY;
		const json_t *tool =
		    f->ndjson ? ji_get(x, o, "tcpsift") : json_object_get(f->doc, "tcpsift");
		const json_t *van =
		    f->ndjson ? ji_get(x, o, "vantages") : json_object_get(f->doc, "vantages");
		if (!f->ndjson && (!tool || !van))
			ji_fail(x, "no \"tcpsift\" or \"vantages\"");
		ji_summary(x, o, tool, van, &it->summary);
		keep_vantages(f, it->summary.vantages);
		if (!x->err && !f->ndjson) {
			json_t *flt = json_object_get(f->doc, "filter");
			if (flt)
				it->summary.filter = ji_str(x, f->doc, "filter", false);
		}
		if (!x->err && it->summary.schema != 2)
			ji_fail(x, "schema %d, this tcpsift reads schema 2", it->summary.schema);
	} else {
		ji_fail(x, "unknown kind \"%s\"", kind);
	}
	return x->err;
}

int ji_next(struct ji_file *f, struct ji_item *it, char *errbuf, size_t errlen)
{
	struct ji_ctx x = {.pool = f->pool};
	char err[200];

	memset(it, 0, sizeof(*it));
	if (f->ndjson) {
		if (f->done)
			return JI_END;
		ssize_t n = read_line(f);
		if (n < 0) {
			snprintf(errbuf, errlen,
				 "%s: line %" PRIu64 ": cannot read it (or too long)", f->path,
				 f->lineno + 1);
			return ERR_INPUT;
		}
		if (n == 0) {
			snprintf(errbuf, errlen,
				 "%s: truncated: the stream ends without its summary line",
				 f->path);
			return ERR_INPUT;
		}
		json_t *o = parse(f->line, (size_t)n, err, sizeof(err));
		if (!o) {
			snprintf(errbuf, errlen, "%s: line %" PRIu64 ": %s", f->path, f->lineno,
				 err);
			return ERR_INPUT;
		}
		const char *kind = json_string_value(json_object_get(o, "kind"));
		if (!kind)
			ji_fail(&x, "no \"kind\"");
		else
			piece(f, &x, o, it, kind);
		json_decref(o);
		if (x.err) {
			snprintf(errbuf, errlen, "%s: line %" PRIu64 ": %s", f->path, f->lineno,
				 x.msg);
			return x.err;
		}
		f->done = it->kind == JI_SUMMARY;
		return (int)it->kind;
	}
	static const char *const stages[] = {"connections", "events", "inputs"};
	static const char *const kinds[] = {"connection", "event", "input"};
	for (; f->stage < 3; f->stage++) {
		json_t *a = json_object_get(f->doc, stages[f->stage]);
		size_t *at = f->stage == 0 ? &f->nconn : f->stage == 1 ? &f->nevent : &f->ninput;
		if (!json_is_array(a)) {
			snprintf(errbuf, errlen, "%s: no \"%s\" array", f->path, stages[f->stage]);
			return ERR_INPUT;
		}
		if (*at < json_array_size(a)) {
			size_t k = (*at)++;
			if (piece(f, &x, json_array_get(a, k), it, kinds[f->stage]) < 0) {
				snprintf(errbuf, errlen, "%s: %s %zu: %s", f->path, kinds[f->stage],
					 k + 1, x.msg);
				return x.err;
			}
			return (int)it->kind;
		}
	}
	if (f->stage == 3) {
		f->stage = 4;
		if (piece(f, &x, json_object_get(f->doc, "summary"), it, "summary") < 0) {
			snprintf(errbuf, errlen, "%s: summary: %s", f->path, x.msg);
			return x.err;
		}
		return JI_SUMMARY;
	}
	return JI_END;
}

void ji_close(struct ji_file *f)
{
	if (!f)
		return;
	if (f->f)
		fclose(f->f);
	json_decref(f->doc);
	free(f->line);
	while (f->ifaces) {
		struct ji_ifaces *n = f->ifaces->next;
		free(f->ifaces->v);
		free(f->ifaces);
		f->ifaces = n;
	}
	free(f->vantages[0]);
	free(f->vantages[1]);
	if (f->own_pool)
		ji_pool_free(f->pool);
	free(f);
}
