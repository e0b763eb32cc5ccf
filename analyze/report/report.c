/* report.c - the collecting end of the engine's sink, and shared reporter helpers. */
#include "analyze/report/report.h"
#include "analyze/report/connstore.h"
#include "analyze/report/jsonout.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/decode.h"
#include "common/grow.h"

/* Events kept in memory, up to a cap; those beyond it are counted. */
struct ev_list {
	struct sum_event *ev;
	size_t n, cap;
	uint64_t dropped;
};

struct report {
	struct rep_config cfg;
	struct cs_store *conns; /* text and JSON: every connection, by id */
	struct ev_list events;
	struct rep_totals tot;
	uint64_t selected;	 /* connections taken (all, or --conn's that exist) */
	int write_error;	 /* 0, or the first failure: enum err_code */
	int write_errno;	 /* ... with ERR_SYSTEM: its errno */
	struct jo_writer ndjson; /* NDJSON: one buffer for every line */
	struct rep_frame_list frames[SUM_EV_TYPE_COUNT];
	/* The text's long form lists every per-frame verdict of its
	 * connections: kept here, apart from the events (up to max_events). */
	bool keep_verdicts;
	struct ev_list verdicts;
};

static void keep_event(struct report *r, const struct sum_event *e);

/* Append a copy of e to l, growing it up to max entries. */
static void ev_keep(struct ev_list *l, const struct sum_event *e, uint32_t max)
{
	if (l->n >= max) {
		l->dropped++;
		return;
	}
	if (GROW_MAX(l->ev, l->cap, l->n + 1, 256, max) < 0) {
		l->dropped++;
		return;
	}
	l->ev[l->n++] = *e;
}

/* The first failure is the one reported. */
static void note_write_error(struct report *r, int code, int sys_errno)
{
	if (!r->write_error) {
		r->write_error = code < 0 ? code : ERR_SYSTEM;
		r->write_errno = sys_errno;
	}
}

void rep_write_error(int code, int sys_errno, char *errbuf, size_t errlen)
{
	if (code == ERR_NOMEM)
		snprintf(errbuf, errlen, "out of memory");
	else if (code == ERR_SYSTEM)
		snprintf(errbuf, errlen, "cannot write the report: %s",
			 strerror(sys_errno ? sys_errno : EIO));
	else if (code < 0)
		snprintf(errbuf, errlen, "cannot write the report (%s error)",
			 err_class_name(code));
}

/* Does the input have at least one interface of a link type we decode? */
static bool input_decodable(const struct src_input *in)
{
	if (in->nifaces == 0)
		return dec_linktype_supported(in->linktype);
	for (unsigned k = 0; k < in->nifaces; k++)
		if (dec_linktype_supported(in->ifaces[k].linktype))
			return true;
	return false;
}

unsigned rep_each_error(const struct rep_run *run, rep_error_fn *fn, void *ctx)
{
	struct rep_error e;
	unsigned n = 0;

	for (unsigned k = 0; k < run->ninputs; k++) {
		const struct src_input *in = run->inputs[k];
		e = (struct rep_error){.input = (int)k, .path = in->path};
		if (in->error) {
			e.code = in->error;
			snprintf(e.message, sizeof(e.message), "%s", in->errmsg);
		} else if (in->packets && !input_decodable(in)) {
			/* Nothing in it can be analysed: an error, not an empty report. */
			e.code = ERR_INPUT_FORMAT;
			snprintf(e.message, sizeof(e.message),
				 "link type %u (%s) is not one tcpsift decodes (Ethernet, Linux "
				 "SLL/SLL2, BSD loopback, raw IP)",
				 in->linktype, src_linktype_name(in->linktype));
		} else {
			continue;
		}
		n++;
		if (fn)
			fn(ctx, &e);
	}
	if (run->stopped_by) {
		int sig = run->stopped_by;
		e = (struct rep_error){.input = -1, .code = ERR_INTERRUPTED};
		snprintf(e.message, sizeof(e.message),
			 "interrupted by %s: the report covers the packets read before it",
			 sig == SIGINT	  ? "SIGINT"
			 : sig == SIGTERM ? "SIGTERM"
					  : "a signal");
		n++;
		if (fn)
			fn(ctx, &e);
	}
	return n;
}

/* An IPv4 address as inet_ntop() writes it ("%u.%u.%u.%u"); its length.
 * glibc's inet_ntop() formats IPv4 with sprintf(): some 2 000 instructions
 * an address, and the text table writes two a row. */
static size_t fmt_ipv4(char *s, const uint8_t *a)
{
	size_t n = 0;

	for (int k = 0; k < 4; k++) {
		unsigned b = a[k];
		if (k)
			s[n++] = '.';
		if (b >= 100)
			s[n++] = (char)('0' + b / 100);
		if (b >= 10)
			s[n++] = (char)('0' + b / 10 % 10);
		s[n++] = (char)('0' + b % 10);
	}
	return n;
}

/*
 * An IPv6 address as glibc's inet_ntop() writes it (RFC 5952 but for its
 * IPv4 forms): the first longest run of two or more zero words as "::",
 * words in lowercase hex without leading zeros, and "::a.b.c.d" or
 * "::ffff:a.b.c.d" when the run is the first six words, or the first five
 * and then ffff. Its length (at most 45).
 */
static size_t fmt_ipv6(char *s, const uint8_t *a)
{
	static const char hex[] = "0123456789abcdef";
	unsigned w[8];
	int best = -1, best_len = 0, run = -1;
	size_t n = 0;

	for (int k = 0; k < 8; k++) {
		w[k] = (unsigned)a[2 * k] << 8 | a[2 * k + 1];
		if (w[k] == 0 && run < 0)
			run = k;
		if (run >= 0 && (w[k] != 0 || k == 7)) {
			int len = (w[k] == 0 ? k + 1 : k) - run;
			if (len > best_len) {
				best = run;
				best_len = len;
			}
			run = -1;
		}
	}
	if (best_len < 2)
		best = -1;
	for (int k = 0; k < 8; k++) {
		if (k == best) {
			s[n++] = ':';
			k += best_len - 1;
			if (k == 7)
				s[n++] = ':';
			continue;
		}
		if (k)
			s[n++] = ':';
		if (k == 6 && best == 0 && (best_len == 6 || (best_len == 5 && w[5] == 0xffff)))
			return n + fmt_ipv4(s + n, a + 12);
		for (int sh = 12; sh >= 0; sh -= 4)
			if (w[k] >> sh || !sh)
				s[n++] = hex[w[k] >> sh & 15];
	}
	return n;
}

/* "[%s]:%u" (IPv6) or "%s:%u", as snprintf would cut it to len, put
 * together without printf: two of these a row of the text table. */
void rep_format_endpoint(const struct dec_addr *a, uint16_t port, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN + 16];
	size_t n = 0;

	if (a->family == 6) {
		s[n++] = '[';
		n += fmt_ipv6(s + n, a->a);
		s[n++] = ']';
	} else {
		n = fmt_ipv4(s, a->a);
	}
	s[n++] = ':';
	n += jo_fmt_int(s + n, port);
	rep_copy_cut(buf, len, s, n);
}

void rep_copy_cut(char *buf, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* "ip.src==10.0.2.1" or "ipv6.src==fd00::1": an address as tshark's field. */
static void tshark_addr(char *b, size_t len, const char *which, const struct dec_addr *a)
{
	char ip[INET6_ADDRSTRLEN];
	size_t n = a->family == 6 ? fmt_ipv6(ip, a->a) : fmt_ipv4(ip, a->a);

	ip[n] = '\0';
	snprintf(b, len, "%s.%s==%s", a->family == 6 ? "ipv6" : "ip", which, ip);
}

void rep_tshark_filter(char *buf, size_t len, const struct sum_conn_ident *c, const char *iface)
{
	char cs[80], cd[80], ss[80], sd[80];
	const char *icmp = c->client.family == 6 ? "icmpv6" : "icmp";

	tshark_addr(cs, sizeof(cs), "src", &c->client);
	tshark_addr(cd, sizeof(cd), "dst", &c->client);
	tshark_addr(ss, sizeof(ss), "src", &c->server);
	tshark_addr(sd, sizeof(sd), "dst", &c->server);
	int n = snprintf(buf, len,
			 "!%s && ((%s && tcp.srcport==%u && %s && tcp.dstport==%u) || (%s && "
			 "tcp.srcport==%u && %s && tcp.dstport==%u))",
			 icmp, cs, c->client_port, sd, c->server_port, ss, c->server_port, cd,
			 c->client_port);
	if (n > 0 && (size_t)n < len && c->first_input == c->last_input)
		n += snprintf(buf + n, len - (size_t)n,
			      " && frame.number>=%" PRIu64 " && frame.number<=%" PRIu64,
			      c->first_frame, c->last_frame);
	/* A name tshark's string syntax cannot hold as it is, or a made-up
	 * one ("#2": the input had none), is left out. */
	if (n > 0 && (size_t)n < len && iface && iface[0] && iface[0] != '#' &&
	    !strpbrk(iface, "'\"\\"))
		snprintf(buf + n, len - (size_t)n, " && frame.interface_name==\"%s\"", iface);
}

void rep_totals_add_conn(struct rep_totals *t, const struct sum_conn *c)
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
		for (unsigned b = 0; b < SUM_BY_COUNT; b++) {
			t->ooo_by[b] += d->ooo_by[b];
			t->lost_upstream_by[b] += d->lost_upstream_by[b];
		}
		t->tlp += d->tlp_retrans;
		t->tlp_new_data += d->tlp_new_data;
		t->spurious_dsack += d->spurious_dsack;
		t->fills_undecided += d->fills_undecided;
	}
	t->retrans += retr;
	t->ooo += ooo;
	t->unseen_bytes += loss;
	t->conns_with_retrans += retr != 0;
	t->conns_with_ooo += ooo != 0;
	t->conns_with_loss += loss != 0;
	t->conns_evicted += c->evicted;
	t->conns_resumed += c->evicted_and_resumed;

	det_totals_add_conn(&t->det, c);
}

void rep_totals_add_event(struct rep_totals *t, const struct sum_event *e)
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

/* Is connection id outside --conn? */
static bool not_selected(const struct report *r, uint64_t id)
{
	return r->cfg.only && !idset_has(r->cfg.only, id);
}

static void on_conn(void *ctx, const struct sum_conn *c)
{
	struct report *r = ctx;

	if (not_selected(r, c->id))
		return;
	r->selected++;
	rep_totals_add_conn(&r->tot, c);
	if (r->cfg.format == REP_NDJSON) {
		if (rep_ndjson_conn(&r->ndjson, c) < 0)
			note_write_error(r, r->ndjson.err, r->ndjson.sys_errno);
		return;
	}
	int rc = cs_put(r->conns, c);
	if (rc < 0)
		note_write_error(r, rc, errno);
}

static void on_event(void *ctx, const struct sum_event *e)
{
	struct report *r = ctx;

	if (not_selected(r, e->conn))
		return;
	rep_totals_add_event(&r->tot, e);
	keep_event(r, e);
}

/* Written at once (NDJSON) or kept for the end, up to max_events. */
static void keep_event(struct report *r, const struct sum_event *e)
{
	if (r->cfg.format == REP_NDJSON) {
		if (rep_ndjson_event(&r->ndjson, e) < 0)
			note_write_error(r, r->ndjson.err, r->ndjson.sys_errno);
		return;
	}
	ev_keep(&r->events, e, r->cfg.max_events);
}

/* "1796033364.947948123": exact seconds from integer nanoseconds. */
static void csv_ts(FILE *f, int64_t ns)
{
	int64_t s = ns / 1000000000, r = ns % 1000000000;

	if (r < 0) {
		r += 1000000000;
		s--;
	}
	fprintf(f, "%" PRId64 ".%09" PRId64, s, r);
}

/* A field that may hold a comma or quote, quoted as RFC 4180 says. */
static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char rep_csv_header[] =
    "frame,file,conn,dir,ts,type,retrans_kind,spurious,filled_gap,decided_by,extent,"
    "rel_seq,bytes\n";

static void csv_row(const struct report *r, const struct sum_event *e)
{
	FILE *f = r->cfg.frames_csv;
	const struct sum_frame_event *x = &e->u.frame;
	bool rtx = e->type == SUM_EV_RETRANS, ooo = e->type == SUM_EV_OUT_OF_ORDER;

	fprintf(f, "%" PRIu64 ",", e->frame_first);
	csv_str(f, e->input < r->cfg.ninput_names ? r->cfg.input_names[e->input] : "");
	fprintf(f, ",%" PRIu64 ",%s,", e->conn, sum_dir_name(e->dir));
	csv_ts(f, e->ts);
	fprintf(f, ",%s,%s,%s,%s,%s,", sum_event_name(e->type),
		rtx ? sum_retrans_kind_name((enum sum_retrans_kind)x->kind) : "",
		rtx ? (x->spurious ? "1" : "0") : "", rtx ? (x->filled_gap ? "1" : "0") : "",
		ooo ? sum_reorder_by_name((enum sum_reorder_by)e->by) : "");
	if (ooo || e->type == SUM_EV_FILL_UNDECIDED)
		fprintf(f, "%" PRIu32, e->extent);
	fprintf(f, ",%" PRIu32 ",%" PRIu64 "\n", e->rel_seq, e->bytes);
}

/* Keep e among the REP_FRAME_EXAMPLES earliest of l (by time, input,
 * frame), in that order. */
static void frame_example(struct rep_frame_list *l, const struct sum_event *e)
{
	unsigned k = l->n;

	while (k > 0 && (l->ex[k - 1].ts > e->ts ||
			 (l->ex[k - 1].ts == e->ts && (l->ex[k - 1].input > e->input ||
						       (l->ex[k - 1].input == e->input &&
							l->ex[k - 1].frame > e->frame_first)))))
		k--;
	if (k >= REP_FRAME_EXAMPLES)
		return;
	unsigned last = l->n < REP_FRAME_EXAMPLES ? l->n : REP_FRAME_EXAMPLES - 1;
	memmove(&l->ex[k + 1], &l->ex[k], (last - k) * sizeof(l->ex[0]));
	l->ex[k].ts = e->ts;
	l->ex[k].frame = e->frame_first;
	l->ex[k].conn = e->conn;
	l->ex[k].input = e->input;
	if (l->n < REP_FRAME_EXAMPLES)
		l->n++;
}

/* A per-frame verdict: counted, the first few kept for the text, and with
 * --frames / --frames-csv written as it comes. */
static void on_frame(void *ctx, const struct sum_event *e)
{
	struct report *r = ctx;
	struct rep_frame_list *l = &r->frames[e->type < SUM_EV_TYPE_COUNT ? e->type : 0];

	if (not_selected(r, e->conn))
		return;
	l->count++;
	frame_example(l, e);
	if (r->cfg.frames_csv)
		csv_row(r, e);
	if (r->cfg.frames)
		keep_event(r, e);
	if (r->keep_verdicts) /* the long form's, apart from the events */
		ev_keep(&r->verdicts, e, r->cfg.max_events);
}

struct report *rep_new(const struct rep_config *cfg, char *errbuf, size_t errlen)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	r->cfg = *cfg;
	r->keep_verdicts = cfg->format == REP_TEXT && (cfg->text.long_form || cfg->only);
	r->conns = cs_new(cfg->conn_mem ? cfg->conn_mem : REP_CONN_MEM_DEFAULT, errbuf, errlen);
	if (!r->conns) {
		free(r);
		return NULL;
	}
	jo_w_init(&r->ndjson, cfg->out, 0, 0);
	if (cfg->frames_csv)
		fputs(rep_csv_header, cfg->frames_csv);
	return r;
}

struct sum_sink rep_sink(struct report *r)
{
	struct sum_sink s = {.conn = on_conn, .event = on_event, .frame = on_frame, .ctx = r};
	return s;
}

#define CMP(x, y)                                                                                  \
	if ((x) != (y))                                                                            \
		return (x) < (y) ? -1 : 1;

int rep_event_cmp(const struct sum_event *a, const struct sum_event *b)
{
	CMP(a->ts, b->ts);
	CMP(a->conn, b->conn);
	CMP(a->type, b->type);
	CMP(a->dir, b->dir);
	CMP(a->input, b->input);
	CMP(a->frame_first, b->frame_first);
	CMP(a->frame_last, b->frame_last);
	return 0;
}

/* Stable: events equal by rep_event_cmp keep the order found. */
static void sort_events(struct sum_event *a, struct sum_event *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_events(a, tmp, h);
	sort_events(a + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = rep_event_cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	memcpy(a, tmp, k * sizeof(*a)); /* a[j..n) is in place */
}

/* Sort events[n] by rep_event_cmp(), stably. 0 or ERR_NOMEM. */
static int rep_sort_events(struct sum_event *events, size_t n)
{
	struct sum_event *tmp;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return ERR_NOMEM;
	sort_events(events, tmp, n);
	free(tmp);
	return 0;
}

int rep_finish(struct report *r, const struct rep_run *run, char *errbuf, size_t errlen)
{
	struct rep_data d = {0};
	int rc, sys_errno = 0;

	if (r->write_error) {
		rep_write_error(r->write_error, r->write_errno, errbuf, errlen);
		return r->write_error;
	}
	/* Connections end in any order (idle, evicted, drained): the store
	 * hands them back in the order of their first packet (by id). */
	rc = cs_finish(r->conns, &d.conns, &d.nconns);
	if (rc < 0) {
		rep_write_error(rc, errno, errbuf, errlen);
		return rc;
	}
	d.store = r->conns;
	if (rep_sort_events(r->events.ev, r->events.n) < 0) {
		rep_write_error(ERR_NOMEM, 0, errbuf, errlen);
		return ERR_NOMEM;
	}
	if (rep_sort_events(r->verdicts.ev, r->verdicts.n) < 0) {
		rep_write_error(ERR_NOMEM, 0, errbuf, errlen);
		return ERR_NOMEM;
	}
	d.verdicts = r->verdicts.ev;
	d.nverdicts = r->verdicts.n;
	d.verdicts_dropped = r->verdicts.dropped;
	d.events = r->events.ev;
	d.nevents = r->events.n;
	d.events_dropped = r->events.dropped + run->events_dropped;
	d.tot = r->tot;
	d.frames = r->frames;
	d.text = &r->cfg.text;
	switch (r->cfg.format) {
	case REP_JSON:
		return rep_write_json(r->cfg.out, &d, run, errbuf, errlen);
	case REP_NDJSON:
		rc = rep_ndjson_tail(&r->ndjson, &d, run);
		sys_errno = r->ndjson.sys_errno;
		break;
	case REP_HTML:
		rc = rep_write_html(r->cfg.out, &d, run, r->cfg.html_dir);
		sys_errno = errno;
		if (rc == 0 && r->cfg.json_out) {
			rc = rep_write_json(r->cfg.json_out, &d, run, errbuf, errlen);
			if (rc < 0)
				return rc;
		}
		break;
	default:
		rc = rep_write_text(r->cfg.out, &d, run);
		sys_errno = errno;
		break;
	}
	if (rc == 0 && fflush(r->cfg.out) != 0) {
		rc = ERR_SYSTEM;
		sys_errno = errno;
	}
	if (rc == 0 && r->cfg.frames_csv &&
	    (fflush(r->cfg.frames_csv) != 0 || ferror(r->cfg.frames_csv))) {
		rc = ERR_SYSTEM;
		sys_errno = errno;
	}
	rep_write_error(rc, sys_errno, errbuf, errlen);
	return rc;
}

const struct rep_totals *rep_get_totals(const struct report *r)
{
	return &r->tot;
}

uint64_t rep_selected(const struct report *r)
{
	return r->selected;
}

void rep_free(struct report *r)
{
	if (!r)
		return;
	cs_free(r->conns);
	free(r->events.ev);
	free(r->verdicts.ev);
	jo_w_free(&r->ndjson);
	free(r);
}

const char *rep_frame_file(const struct rep_run *run, uint32_t input, uint64_t frame,
			   uint64_t *local)
{
	if (local)
		*local = frame;
	if (!run->written || !run->nwritten || input != 0)
		return input < run->ninputs ? run->inputs[input]->path : NULL;
	/* The last file that began at or before frame (first_frame ascends). */
	size_t lo = 0, hi = run->nwritten;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (run->written[mid].first_frame <= frame)
			lo = mid;
		else
			hi = mid;
	}
	const struct rep_written *f = &run->written[lo];
	if (local && frame >= f->first_frame)
		*local = frame - f->first_frame + 1;
	return f->path;
}

void rep_text_frames(FILE *out, const struct rep_frame_list *l, const struct rep_run *run)
{
	const char *file[REP_FRAME_EXAMPLES];
	uint64_t local[REP_FRAME_EXAMPLES];

	if (!l->n)
		return;
	for (unsigned k = 0; k < l->n; k++)
		file[k] = rep_frame_file(run, l->ex[k].input, l->ex[k].frame, &local[k]);
	fputs("      frames", out);
	for (unsigned k = 0; k < l->n; k++) {
		char f[PATH_MAX + 32];
		bool several = run->ninputs > 1 || run->nwritten > 1;
		/* The file once, where the examples change file: "a.pcap:#8, #9". */
		if (k && l->ex[k].input == l->ex[k - 1].input && file[k] == file[k - 1])
			snprintf(f, sizeof(f), "%s%" PRIu64, several ? "#" : "", local[k]);
		else
			rep_fmt_frame(f, sizeof(f), run, l->ex[k].input, l->ex[k].frame);
		fprintf(out, "%s %s", k ? "," : "", f);
	}
	fprintf(out, "%s\n", l->count > l->n ? " ..." : "");
	/* A line to paste per file the examples are in (frame numbers count
	 * within their file): in input order, a live capture's files in the
	 * order written. None for a capture written to no file (-w -). */
	for (unsigned in = 0; in < run->ninputs; in++)
		for (unsigned k = 0; k < l->n; k++) {
			bool seen = l->ex[k].input != in || !file[k];
			for (unsigned j = 0; j < k && !seen; j++)
				seen = l->ex[j].input == in && file[j] == file[k];
			if (seen)
				continue;
			fprintf(out, "      tshark -r '%s' -Y 'frame.number in {", file[k]);
			for (unsigned j = k, any = 0; j < l->n; j++)
				if (l->ex[j].input == in && file[j] == file[k])
					fprintf(out, "%s%" PRIu64, any++ ? "," : "", local[j]);
			fputs("}'\n", out);
		}
}

void rep_fmt_frame(char *buf, size_t len, const struct rep_run *run, uint32_t input, uint64_t frame)
{
	uint64_t local;

	if (run && run->nwritten > 1 && input == 0) {
		const char *file = rep_frame_file(run, input, frame, &local);
		snprintf(buf, len, "%s:#%" PRIu64, file ? file : "-", local);
	} else if (run && run->ninputs > 1 && input < run->ninputs) {
		snprintf(buf, len, "%s:#%" PRIu64, run->inputs[input]->path, frame);
	} else {
		snprintf(buf, len, "%" PRIu64, frame);
	}
}

void rep_fmt_dur(char *buf, size_t len, int64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%" PRId64 " us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

void rep_fmt_dur_known(char *buf, size_t len, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, len, "unknown");
	else
		rep_fmt_dur(buf, len, ns);
}

void rep_fmt_fixed(char *buf, size_t len, double v, int prec, const char *suffix)
{
	char num[32];
	size_t n = jo_fmt_fixed(num, v, prec), sl = strlen(suffix);

	if (!n || n + sl >= len) { /* printf's: a number it keeps, or a cut */
		snprintf(buf, len, "%.*f%s", prec, v, suffix);
		return;
	}
	memcpy(buf, num, n);
	memcpy(buf + n, suffix, sl + 1);
}

/* "2.4": a loss rate in percent, "-" without data (sum_loss_rate()). */
void rep_fmt_loss(char *buf, size_t len, double rate)
{
	double pct = rate * 100;

	if (rate < 0)
		snprintf(buf, len, "-");
	else if (rate == 0)
		snprintf(buf, len, "0");
	else if (pct < 0.1)
		snprintf(buf, len, "<0.1"); /* not "0.0": some were lost */
	else
		rep_fmt_fixed(buf, len, pct, pct < 10 ? 1 : 0, "");
}

const struct sum_conn *rep_conn_at(const struct rep_data *d, size_t k)
{
	if (d->store && (k & 1023) == 0 && k >= 2048)
		cs_release(d->store, k - 2048, k - 1024);
	return &d->conns[k];
}

static int conn_events_cmp(const void *a, const void *b, void *events)
{
	const struct sum_event *ev = events;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t cx = ev[x].conn, cy = ev[y].conn;

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

int rep_group_events(struct rep_conn_events *g, const struct sum_event *ev, size_t n,
		     enum rep_ev_pick pick)
{
	*g = (struct rep_conn_events){.ev = ev};
	if (!n)
		return 0;
	g->idx = malloc(n * sizeof(*g->idx));
	if (!g->idx)
		return ERR_NOMEM;
	for (size_t k = 0; k < n; k++)
		if (pick == REP_EV_ALL ||
		    sum_event_is_frame(ev[k].type) == (pick == REP_EV_VERDICTS))
			g->idx[g->n++] = (uint32_t)k;
	if (g->n > 1)
		qsort_r(g->idx, g->n, sizeof(*g->idx), conn_events_cmp, (void *)ev);
	return 0;
}

size_t rep_events_of(struct rep_conn_events *g, uint64_t id, size_t *first)
{
	while (g->at < g->n && g->ev[g->idx[g->at]].conn < id)
		g->at++;
	*first = g->at;
	while (g->at < g->n && g->ev[g->idx[g->at]].conn == id)
		g->at++;
	return g->at;
}

void rep_conn_events_free(struct rep_conn_events *g)
{
	free(g->idx);
	g->idx = NULL;
}
