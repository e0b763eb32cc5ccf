/* plot_xpl.c - a connection's graphs as tcptrace's xplot files (.xpl), for xplot users. */
#include "analyze/report/plot_int.h"
#include "common/err.h"

#include <string.h>

/*
 * The format tcptrace writes (tcptrace -S -zxy, plotter.c) and xplot
 * reads: a header of "dtime signed" (relative times as seconds), title,
 * xlabel and ylabel, each followed by its text on the next line; then
 * one command a line: a colour name (white, green, yellow, red, pink,
 * purple, orange, blue ...) sets the colour of what follows; "line X1 Y1
 * X2 Y2", "dot X Y", "darrow X Y" / "uarrow X Y" (a segment's ends),
 * "htick X Y", "atext X Y" with its text on the next line; "go" ends the
 * file. As tcptrace: segments white between arrows, the ACK line green, the
 * window line yellow, SACK blocks purple, retransmissions red with an "R",
 * late originals pink with an "O". tcpsift adds its own findings in the
 * same commands: stalls and zero windows orange, SACK holes and capture
 * gaps red, each with an atext label.
 */

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

static void header(FILE *f, const struct pl_conn *c, unsigned dir, const char *what,
		   const char *ylabel)
{
	char ep[160];

	pl_endpoints(c, dir, ep, sizeof(ep));
	/* tcptrace's title: the endpoints joined by "_==>_". */
	char *arrow = strstr(ep, " -> ");
	if (arrow) {
		memmove(arrow + 5, arrow + 4, strlen(arrow + 4) + 1);
		memcpy(arrow, "_==>_", 5);
	}
	fprintf(f, "dtime signed\ntitle\n%s (%s)\nxlabel\nrelative time\nylabel\n%s\n", ep, what,
		ylabel);
}

static void tseq_marks(FILE *f, const struct pl_conn *c, unsigned dir)
{
	for (uint32_t k = 0; k < c->nmarks; k++) {
		const struct pl_mark *m = &c->marks[k];
		double t = secs(m->t), te = secs(m->t + (m->dur > 0 ? m->dur : 0));
		if (m->dir != dir)
			continue;
		switch (m->kind) {
		case PL_MK_RETRANS:
			fprintf(f, "red\natext %.6f %u\nR\n", t, m->seq + m->len);
			break;
		case PL_MK_OOO:
			fprintf(f, "pink\natext %.6f %u\nO\n", t, m->seq);
			break;
		case PL_MK_ZWIN:
			fprintf(f, "orange\natext %.6f %u\nZ\n", t, m->seq);
			break;
		case PL_MK_GAP:
			fprintf(f, "red\nline %.6f %u %.6f %u\natext %.6f %u\ngap\n", t, m->seq, t,
				m->seq + m->len, t, m->seq);
			break;
		case PL_MK_HOLE:
		case PL_MK_LOSS:
			fprintf(
			    f,
			    "red\nline %.6f %u %.6f %u\nline %.6f %u %.6f %u\nline %.6f %u %.6f "
			    "%u\nline %.6f %u %.6f %u\natext %.6f %u\n%s\n",
			    t, m->seq, te, m->seq, te, m->seq, te, m->seq + m->len, te,
			    m->seq + m->len, t, m->seq + m->len, t, m->seq + m->len, t, m->seq, t,
			    m->seq, m->kind == PL_MK_HOLE ? "hole" : "capture loss");
			break;
		case PL_MK_STALL:
		case PL_MK_ZWIN_SPAN:
			fprintf(f, "orange\nline %.6f %u %.6f %u\natext %.6f %u\n%s %.1fms\n", t,
				m->seq, te, m->seq, t, m->seq,
				m->kind == PL_MK_ZWIN_SPAN ? "zero window"
				: m->timer_like		   ? "timer-like pause"
						: stall_class_name((enum stall_class)m->cls),
				(double)m->dur / 1e6);
			break;
		}
	}
}

static void tseq_raw(FILE *f, const struct pl_conn *c, unsigned dir)
{
	bool have_ack = false;
	double t_prev = 0;
	uint32_t ack_prev = 0, win_prev = 0;

	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		double t = secs(r->t);
		if (r->dir == dir && (r->flags & PL_R_DATA)) {
			const char *colour = r->flags & PL_R_RETRANS ? "red"
					     : r->flags & PL_R_OOO   ? "pink"
								     : "white";
			fprintf(f, "%s\ndarrow %.6f %u\nuarrow %.6f %u\nline %.6f %u %.6f %u\n",
				colour, t, r->seq, t, r->seq + r->len, t, r->seq, t,
				r->seq + r->len);
		}
		/* As tcptrace: a SYN a diamond and an arrow up to its one byte of
		 * sequence, a FIN (without data) a segment of that byte. */
		if (r->dir == dir && (r->flags & PL_R_SYN))
			fprintf(f,
				"orange\ndiamond %.6f %u\natext %.6f %u\nSYN\nuarrow %.6f %u\nline "
				"%.6f %u "
				"%.6f %u\n",
				t, r->seq, t, r->seq + 1, t, r->seq + 1, t, r->seq, t, r->seq + 1);
		else if (r->dir == dir && (r->flags & PL_R_FIN) && !(r->flags & PL_R_DATA))
			fprintf(
			    f,
			    "white\ndarrow %.6f %u\nuarrow %.6f %u\nline %.6f %u %.6f %u\norange\n"
			    "atext %.6f %u\nFIN\n",
			    t, r->seq, t, r->seq + 1, t, r->seq, t, r->seq + 1, t, r->seq + 1);
		if (r->dir == dir || !(r->flags & PL_R_ACK))
			continue;
		uint32_t win = r->ack + r->win;
		if (have_ack) {
			fprintf(f, "green\nline %.6f %u %.6f %u\nline %.6f %u %.6f %u\n", t_prev,
				ack_prev, t, ack_prev, t, ack_prev, t, r->ack);
			fprintf(f, "yellow\nline %.6f %u %.6f %u\nline %.6f %u %.6f %u\n", t_prev,
				win_prev, t, win_prev, t, win_prev, t, win);
		}
		for (unsigned b = 0; b < r->nsack; b++) {
			const uint32_t *s = c->sacks[r->sack + b];
			fprintf(f, "purple\nline %.6f %u %.6f %u\nhtick %.6f %u\nhtick %.6f %u\n",
				t, s[0], t, s[1], t, s[0], t, s[1]);
		}
		have_ack = true;
		t_prev = t;
		ack_prev = r->ack;
		win_prev = win;
	}
}

static void tseq_cols(FILE *f, const struct pl_conn *c, unsigned dir)
{
	double w = secs(c->col_width);

	for (uint32_t k = 0; k < c->col_used; k++) {
		const struct pl_col *col = &c->col[dir][k];
		double t = (k + 0.5) * w;
		if (col->have & PL_C_SEQ)
			fprintf(f, "white\nline %.6f %u %.6f %u\n", t, col->seq_lo, t, col->seq_hi);
		if (col->have & PL_C_ACK) {
			fprintf(f, "green\nline %.6f %u %.6f %u\n", k * w, col->ack_lo, (k + 1) * w,
				col->ack_hi);
			fprintf(f, "yellow\nline %.6f %u %.6f %u\n", k * w, col->win_lo,
				(k + 1) * w, col->win_hi);
			if (col->sack_hi > col->ack_hi)
				fprintf(f, "purple\nline %.6f %u %.6f %u\n", t, col->ack_hi, t,
					col->sack_hi);
		}
		/* Marks beyond the cap: a count per kind, over the bytes they cover. */
		for (unsigned m = 0; c->over[dir] && m < PL_MK_COUNT; m++) {
			const struct pl_bin *b = &c->over[dir][k * PL_MK_COUNT + m];
			if (b->n)
				fprintf(f, "red\natext %.6f %u\n%u %s\n", t, b->seq_hi, b->n,
					pl_mark_class[m]);
		}
	}
}

static void write_tseq(FILE *f, const struct pl_conn *c, unsigned dir)
{
	header(f, c, dir, "time sequence graph", "sequence offset");
	if (c->raw)
		tseq_raw(f, c, dir);
	else
		tseq_cols(f, c, dir);
	tseq_marks(f, c, dir);
}

static void write_rtt(FILE *f, const struct pl_conn *c, unsigned dir)
{
	header(f, c, dir, "rtt samples", "rtt (ms)");
	if (c->raw) {
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir != dir && (r->flags & PL_R_RTT))
				fprintf(f, "red\ndot %.6f %.3f\n", secs(r->t),
					(double)r->rtt_ns / 1e6);
		}
		return;
	}
	double w = secs(c->col_width);
	for (uint32_t k = 0; k < c->col_used; k++) {
		const struct pl_col *col = &c->col[dir][k];
		if (col->have & PL_C_RTT)
			fprintf(f, "red\nline %.6f %.3f %.6f %.3f\ndot %.6f %.3f\n", (k + 0.5) * w,
				(double)col->rtt_lo / 1e6, (k + 0.5) * w, (double)col->rtt_hi / 1e6,
				(k + 0.5) * w, (double)col->rtt_sum / col->rtt_n / 1e6);
	}
}

#define XPL_TPUT_BINS 100u

static void write_tput(FILE *f, const struct pl_conn *c, unsigned dir)
{
	uint64_t bytes[XPL_TPUT_BINS] = {0};
	double span = secs(c->t_end) > 0 ? secs(c->t_end) : 1e-3, binw;
	unsigned nbins = XPL_TPUT_BINS;

	header(f, c, dir, "throughput", "thruput (bytes/sec)");
	if (c->raw) {
		binw = span / nbins;
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir == dir && (r->flags & PL_R_DATA)) {
				unsigned b = (unsigned)(secs(r->t) / binw);
				bytes[b < nbins ? b : nbins - 1] += r->len;
			}
		}
	} else {
		uint32_t per = (c->col_used + XPL_TPUT_BINS - 1) / XPL_TPUT_BINS;
		per = per ? per : 1;
		nbins = (c->col_used + per - 1) / per;
		binw = secs(c->col_width) * per;
		for (uint32_t k = 0; k < c->col_used; k++)
			bytes[k / per] += c->col[dir][k].bytes;
	}
	for (unsigned b = 0; b < nbins; b++) {
		/* The last bin: over the part of it the connection lasted. */
		double end = (b + 1) * binw < span ? (b + 1) * binw : span;
		double v = end > b * binw ? (double)bytes[b] / (end - b * binw) : 0;
		fprintf(f, "blue\nline %.6f %.0f %.6f %.0f\ndot %.6f %.0f\n", b * binw, v, end, v,
			(b * binw + end) / 2, v);
	}
}

/* tcptrace's "outstanding data" graph: in flight red, the receiver's window yellow. */
static void write_inflight(FILE *f, const struct pl_conn *c, unsigned dir)
{
	header(f, c, dir, "outstanding data", "Outstanding Data (bytes)");
	if (c->raw) {
		bool have[2] = {false, false};
		double tp[2] = {0, 0};
		uint32_t vp[2] = {0, 0};
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			unsigned which;
			uint32_t v;
			if (r->dir == dir && (r->flags & PL_R_DATA)) {
				which = 0;
				v = r->inflight;
			} else if (r->dir != dir && (r->flags & PL_R_ACK)) {
				which = 1;
				v = r->win;
			} else {
				continue;
			}
			double t = secs(r->t);
			fprintf(f, "%s\ndot %.6f %u\n", which ? "yellow" : "red", t, v);
			if (have[which])
				fprintf(f, "line %.6f %u %.6f %u\n", t, v, tp[which], vp[which]);
			have[which] = true;
			tp[which] = t;
			vp[which] = v;
		}
		return;
	}
	double w = secs(c->col_width);
	for (uint32_t k = 0; k < c->col_used; k++) {
		const struct pl_col *col = &c->col[dir][k];
		if (col->have & PL_C_INFL)
			fprintf(f, "red\nline %.6f %u %.6f %u\n", (k + 0.5) * w, col->infl_lo,
				(k + 0.5) * w, col->infl_hi);
		if (col->have & PL_C_RWND)
			fprintf(f, "yellow\nline %.6f %u %.6f %u\n", k * w, col->rwnd_lo,
				(k + 1) * w, col->rwnd_hi);
	}
}

int pl_xpl_write(const struct pl_conn *c, const char *dir, char *errbuf, size_t errlen)
{
	static const struct {
		const char *name;
		void (*fn)(FILE *f, const struct pl_conn *c, unsigned dir);
	} graphs[] = {
	    {"tseq", write_tseq},
	    {"tput", write_tput},
	    {"rtt", write_rtt},
	    {"inflight", write_inflight},
	};

	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		if (!pl_has_data(c, d))
			continue;
		for (size_t k = 0; k < sizeof(graphs) / sizeof(graphs[0]); k++) {
			FILE *f = pl_open(c, dir, d, graphs[k].name, "xpl", errbuf, errlen);
			if (!f)
				return ERR_SYSTEM;
			graphs[k].fn(f, c, d);
			fputs("go\n", f);
			int rc = pl_close(f, c, dir, d, graphs[k].name, "xpl", errbuf, errlen);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}
