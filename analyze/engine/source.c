/* source.c - open inputs, merge them by timestamp, apply the BPF filter. */
#include "analyze/engine/source.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture/file/savefile.h"
#include "capture/file/tracefile.h"
#include "common/err.h"

enum { SRC_MAX_FILTERS = 16 }; /* distinct link types one run can filter */

struct src_reader {
	struct src_input info;
	struct sf_reader *sf;
	struct tf_reader *tf;
	struct pkt cur;
	bool has_cur;	/* cur holds the next packet of this input */
	bool need_read; /* cur was handed out: read the next one first */
	bool ended;
	char fmt[32];
	uint16_t *vantage_of; /* iface index -> vantage id; grows with interfaces */
	unsigned vantage_own; /* src_config.vantage_per_input: this input's vantage id */
	unsigned nmapped, unnamed;
};

struct src_filter {
	uint32_t linktype;
	bool ok;
	struct bpf_program prog;
};

struct source {
	struct src_config cfg;
	unsigned n;
	struct src_reader *in;
	unsigned nfilters;
	struct src_filter filters[SRC_MAX_FILTERS];
	uint64_t filtered_out;
	uint64_t keep_gen; /* src_keep(): every input's buffer refills */
	bool stopped;
	unsigned nvantages;
	char vantage[SRC_MAX_VANTAGES][64];
};

const char *src_linktype_name(uint32_t lt)
{
	switch (lt) {
	case PKT_LINKTYPE_NULL:
		return "NULL";
	case PKT_LINKTYPE_ETHERNET:
		return "EN10MB";
	case PKT_LINKTYPE_RAW:
	case PKT_LINKTYPE_DLT_RAW_OLD:
	case PKT_LINKTYPE_DLT_RAW_OLD2:
		return "RAW";
	case PKT_LINKTYPE_LOOP:
		return "LOOP";
	case PKT_LINKTYPE_LINUX_SLL:
		return "LINUX_SLL";
	case PKT_LINKTYPE_IPV4:
		return "IPV4";
	case PKT_LINKTYPE_IPV6:
		return "IPV6";
	case PKT_LINKTYPE_LINUX_SLL2:
		return "LINUX_SLL2";
	default:
		return "unknown";
	}
}

/* libpcap compiles for DLT_* values; only LINKTYPE_RAW differs among ours. */
static int linktype_to_dlt(uint32_t lt)
{
	return lt == PKT_LINKTYPE_RAW ? DLT_RAW : (int)lt;
}

static int compile_filter(struct src_filter *f, const char *expr, uint32_t lt, char *errbuf,
			  size_t errlen)
{
	pcap_t *dead = pcap_open_dead(linktype_to_dlt(lt), 262144);

	f->linktype = lt;
	f->ok = false;
	if (!dead) {
		snprintf(errbuf, errlen, "cannot set up libpcap to compile the filter");
		return ERR_SYSTEM;
	}
	if (pcap_compile(dead, &f->prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(errbuf, errlen, "bad filter '%s' for link type %s: %s", expr,
			 src_linktype_name(lt), pcap_geterr(dead));
		pcap_close(dead);
		return ERR_USAGE;
	}
	pcap_close(dead);
	f->ok = true;
	return 0;
}

/* The compiled filter for a link type, compiled on first use. */
static const struct src_filter *filter_for(struct source *s, uint32_t lt)
{
	char err[256];

	for (unsigned k = 0; k < s->nfilters; k++)
		if (s->filters[k].linktype == lt)
			return &s->filters[k];
	if (s->nfilters == SRC_MAX_FILTERS)
		return NULL;
	struct src_filter *f = &s->filters[s->nfilters++];
	/* A filter that does not apply to this link type (e.g. "ether host"
	 * on raw IP) matches nothing here, as in tcpdump. */
	compile_filter(f, s->cfg.filter, lt, err, sizeof(err));
	return f;
}

static bool passes_filter(struct source *s, const struct pkt *p)
{
	if (!s->cfg.filter)
		return true;
	const struct src_filter *f = filter_for(s, p->linktype);
	if (!f || !f->ok)
		return false;
	struct pcap_pkthdr h = {.caplen = p->caplen, .len = p->wirelen};
	return pcap_offline_filter(&f->prog, &h, p->data) != 0;
}

static void collect_ifaces(struct src_reader *r)
{
	unsigned n = r->sf ? sf_iface_count(r->sf) : 0;

	if (!n)
		return;
	free(r->info.ifaces);
	r->info.ifaces = calloc(n, sizeof(*r->info.ifaces));
	if (!r->info.ifaces)
		return;
	r->info.nifaces = n;
	bool isb = false, epb = false;
	uint64_t isb_drops = 0, epb_drops = 0;
	for (unsigned k = 0; k < n; k++) {
		const struct sf_iface *f = sf_iface(r->sf, k);
		struct src_iface *o = &r->info.ifaces[k];
		o->linktype = f->linktype;
		snprintf(o->name, sizeof(o->name), "%s", f->name);
		o->ifrecv = f->isb_ifrecv;
		o->ifdrop = f->isb_ifdrop;
		o->osdrop = f->isb_osdrop;
		o->epb_drops = f->epb_drops;
		o->have_ifrecv = f->have_ifrecv;
		o->have_ifdrop = f->have_ifdrop;
		o->have_osdrop = f->have_osdrop;
		o->have_epb_drops = f->have_epb_drops;
		if (f->have_ifdrop || f->have_osdrop) {
			isb = true;
			isb_drops += f->isb_ifdrop + f->isb_osdrop;
		}
		if (f->have_epb_drops) {
			epb = true;
			epb_drops += f->epb_drops;
		}
	}
	/* ISB totals are the capturer's final word; EPB counts are deltas. */
	r->info.drops_known = isb || epb;
	r->info.drops = isb ? isb_drops : epb_drops;
}

static void reader_end(struct source *s, struct src_reader *r, int rc)
{
	r->ended = true;
	r->has_cur = false;
	if (rc == ERR_INTERRUPTED) {
		s->stopped = true; /* the run's end, not this input's fault */
	} else if (rc < 0) {
		r->info.error = rc;
		snprintf(r->info.errmsg, sizeof(r->info.errmsg), "%s",
			 r->sf ? sf_error(r->sf) : tf_error(r->tf));
	}
	collect_ifaces(r);
}

static unsigned vantage_id(struct source *s, const char *name)
{
	for (unsigned v = 0; v < s->nvantages; v++)
		if (strcmp(s->vantage[v], name) == 0)
			return v;
	if (s->nvantages == SRC_MAX_VANTAGES)
		return SRC_MAX_VANTAGES - 1;
	snprintf(s->vantage[s->nvantages], sizeof(s->vantage[0]), "%s", name);
	return s->nvantages++;
}

/* Map interface iface of input r to its vantage id (lazily, per interface). */
static unsigned vantage_for(struct source *s, struct src_reader *r, uint32_t iface)
{
	if (iface < r->nmapped)
		return r->vantage_of[iface];
	if (!r->sf || iface >= sf_iface_count(r->sf))
		return 0;
	uint16_t *m = realloc(r->vantage_of, (iface + 1) * sizeof(*m));
	if (!m)
		return 0;
	r->vantage_of = m;
	for (unsigned k = r->nmapped; k <= iface; k++) {
		const struct sf_iface *f = sf_iface(r->sf, k);
		char name[64];
		if (f->name[0])
			snprintf(name, sizeof(name), "%s", f->name);
		else
			snprintf(name, sizeof(name), "#%u", r->unnamed++);
		m[k] = (uint16_t)vantage_id(s, name);
	}
	r->nmapped = iface + 1;
	return m[iface];
}

/* Read the next packet of one input into r->cur (inline in both of
 * src_next_ref()'s paths: called for every packet). */
static inline __attribute__((always_inline)) void reader_advance(struct source *s,
								 struct src_reader *r, unsigned idx)
{
	r->need_read = false;
	int rc = r->sf ? sf_next(r->sf, &r->cur) : tf_next(r->tf, &r->cur);
	if (rc <= 0) {
		reader_end(s, r, rc);
		return;
	}
	struct pkt *p = &r->cur;
	p->input = idx;
	if (s->cfg.vantage_per_input)
		p->vantage = r->vantage_own;
	else
		p->vantage = r->tf ? vantage_id(s, "#0") : vantage_for(s, r, p->iface);
	if (s->cfg.queue_per_file) {
		p->queue = idx;
		p->have |= PKT_HAVE_QUEUE;
	}
	if (r->info.packets++ == 0) {
		r->info.first_ts = r->info.last_ts = p->ts_ns;
		r->info.linktype = p->linktype;
	}
	if (p->ts_ns > r->info.last_ts)
		r->info.last_ts = p->ts_ns;
	if (p->ts_ns < r->info.first_ts)
		r->info.first_ts = p->ts_ns;
	r->info.wire_bytes += p->wirelen;
	r->has_cur = true;
}

/* What analyze refuses among libtrace URIs: live sources (they never end)
 * and a file part that is not a regular file (libtrace's reader thread
 * would wait on a pipe where no stop reaches it). */
static int check_trace_uri(const char *uri, char *errbuf, size_t errlen)
{
	struct stat st;
	const char *file = strchr(uri, ':') + 1;

	if (tf_uri_is_live(uri)) {
		snprintf(errbuf, errlen,
			 "%s: a live source: analyze reads capture files (to analyse live "
			 "traffic: tcpsift capture -i IFACE --analyze)",
			 uri);
		return ERR_USAGE;
	}
	if (strcmp(file, "-") == 0 || (stat(file, &st) == 0 && !S_ISREG(st.st_mode))) {
		snprintf(errbuf, errlen,
			 "%s: libtrace formats are read from regular files only (not a pipe, "
			 "FIFO or device): write it to a file first",
			 uri);
		return ERR_USAGE;
	}
	return 0;
}

int src_open(const char *const *paths, unsigned n, const struct src_config *cfg,
	     struct source **out, char *errbuf, size_t errlen)
{
	struct source *s = calloc(1, sizeof(*s));
	char err[256];
	int rc;

	*out = NULL;
	if (!s || !(s->in = calloc(n ? n : 1, sizeof(*s->in)))) {
		free(s);
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	s->cfg = *cfg;
	s->n = n;
	if (cfg->filter) {
		/* Validate the expression once up front, for Ethernet. */
		struct src_filter probe;
		rc = compile_filter(&probe, cfg->filter, PKT_LINKTYPE_ETHERNET, errbuf, errlen);
		if (rc < 0) {
			src_close(s);
			return rc;
		}
		pcap_freecode(&probe.prog);
	}
	for (unsigned k = 0; k < n; k++) {
		struct src_reader *r = &s->in[k];
		r->info.path = paths[k];
		r->info.format = r->fmt;
		r->need_read = true;
		snprintf(r->fmt, sizeof(r->fmt), "none");
		if (cfg->vantage_per_input) {
			/* Named by the path; one too long to tell apart by its
			 * name's first 63 bytes by its index instead. */
			unsigned before = s->nvantages;
			r->vantage_own = vantage_id(s, paths[k]);
			if (s->nvantages == before) {
				char name[32];
				snprintf(name, sizeof(name), "input %u", k);
				r->vantage_own = vantage_id(s, name);
			}
		}
	}
	for (unsigned k = 0; k < n; k++) {
		struct src_reader *r = &s->in[k];
		const char *path = paths[k];
		int code = ERR_INPUT;
		if (s->stopped || (cfg->stop && *cfg->stop)) {
			s->stopped = true; /* not opened: ended, not failed */
			r->ended = true;
			continue;
		}
		/* pcap and pcapng named as libtrace URIs still go to our reader:
		 * faster, and libtrace 3.0.22 lacks SLL2/NULL and caps caplen. */
		if (strncmp(path, "pcapfile:", 9) == 0 || strncmp(path, "pcapng:", 7) == 0)
			path = strchr(path, ':') + 1;
		if (path == paths[k] && tf_is_uri(path)) {
			rc = check_trace_uri(path, errbuf, errlen);
			if (rc < 0) {
				src_close(s);
				return rc;
			}
			r->tf = tf_open(paths[k], err, sizeof(err));
			const char *colon = strchr(paths[k], ':');
			snprintf(r->fmt, sizeof(r->fmt), "libtrace:%.*s",
				 (int)(colon ? colon - paths[k] : 0), paths[k]);
		} else {
			r->sf = sf_open_stop(path, cfg->stop, &code, err, sizeof(err));
			if (r->sf) {
				snprintf(r->fmt, sizeof(r->fmt), "%s",
					 sf_format_name(sf_format(r->sf)));
				r->info.compressed = sf_compressed(r->sf) != 0;
			}
		}
		if (r->sf || r->tf)
			continue;
		if (code == ERR_INTERRUPTED) {
			s->stopped = true;
			r->ended = true;
			continue;
		}
		if (!cfg->keep_going || code == ERR_NOMEM) {
			snprintf(errbuf, errlen, "%s: %s", paths[k], err);
			src_close(s);
			return code == ERR_NOMEM ? ERR_NOMEM : ERR_INPUT;
		}
		/* Named and counted in the report; the other inputs are read. */
		r->ended = true;
		r->info.error = code;
		snprintf(r->info.errmsg, sizeof(r->info.errmsg), "%s", err);
	}
	*out = s;
	return 0;
}

int src_next(struct source *s, struct pkt *p)
{
	const struct pkt *q;
	int rc = src_next_ref(s, &q);

	if (rc > 0)
		*p = *q;
	return rc;
}

/* src_next_ref() of one input without a filter: no merge by time,
 * nothing to drop. */
static int next_of_one(struct source *s, const struct pkt **p)
{
	struct src_reader *r = s->in;

	if (s->cfg.stop && *s->cfg.stop) {
		s->stopped = true;
		return 0;
	}
	if (r->ended)
		return 0;
	reader_advance(s, r, 0);
	if (!r->has_cur)
		return 0;
	r->has_cur = false;
	r->need_read = true;
	*p = &r->cur;
	return 1;
}

int src_next_ref(struct source *s, const struct pkt **p)
{
	if (s->n == 1 && !s->cfg.filter)
		return next_of_one(s, p);
	for (;;) {
		/* Here too: a filter that drops everything never returns to the caller. */
		if (s->cfg.stop && *s->cfg.stop) {
			s->stopped = true;
			return 0;
		}
		struct src_reader *best = NULL;
		for (unsigned k = 0; k < s->n; k++) {
			struct src_reader *r = &s->in[k];
			if (r->ended)
				continue;
			if (r->need_read)
				reader_advance(s, r, k);
			if (r->has_cur && (!best || r->cur.ts_ns < best->cur.ts_ns))
				best = r;
		}
		if (!best)
			return 0;
		best->need_read = true;
		best->has_cur = false;
		if (passes_filter(s, &best->cur)) {
			*p = &best->cur;
			return 1;
		}
		s->filtered_out++;
	}
}

const uint64_t *src_keep(struct source *s)
{
	for (unsigned k = 0; k < s->n; k++)
		if (!s->in[k].sf)
			return NULL;
	for (unsigned k = 0; k < s->n; k++)
		sf_keep(s->in[k].sf, &s->keep_gen);
	return &s->keep_gen;
}

void src_release(struct source *s, uint64_t gen)
{
	for (unsigned k = 0; k < s->n; k++)
		if (s->in[k].sf)
			sf_keep_release(s->in[k].sf, gen);
}

bool src_stopped(const struct source *s)
{
	return s->stopped;
}

unsigned src_count(const struct source *s)
{
	return s->n;
}

const struct src_input *src_input(const struct source *s, unsigned i)
{
	return i < s->n ? &s->in[i].info : NULL;
}

unsigned src_vantage_count(const struct source *s)
{
	return s->nvantages;
}

const char *src_vantage_name(const struct source *s, unsigned v)
{
	return v < s->nvantages ? s->vantage[v] : "";
}

uint64_t src_filtered_out(const struct source *s)
{
	return s->filtered_out;
}

int src_bytes(const struct source *s, uint64_t *done, uint64_t *total)
{
	bool known = true;

	*done = *total = 0;
	for (unsigned k = 0; k < s->n; k++) {
		const struct src_reader *r = &s->in[k];
		uint64_t size = r->sf ? sf_size(r->sf) : 0;
		if (!size)
			known = false;
		*total += size;
		*done += r->ended && size ? size : r->sf ? sf_offset(r->sf) : 0;
	}
	if (!known || !*total) {
		*total = 0;
		return -1;
	}
	return 0;
}

double src_progress(const struct source *s)
{
	uint64_t done, total;

	if (src_bytes(s, &done, &total) < 0)
		return -1;
	return (double)done / (double)total;
}

void src_close(struct source *s)
{
	if (!s)
		return;
	for (unsigned k = 0; k < s->n; k++) {
		sf_close(s->in[k].sf);
		if (s->in[k].tf)
			tf_close(s->in[k].tf);
		free(s->in[k].info.ifaces);
		free(s->in[k].vantage_of);
	}
	for (unsigned k = 0; k < s->nfilters; k++)
		if (s->filters[k].ok)
			pcap_freecode(&s->filters[k].prog);
	free(s->in);
	free(s);
}
