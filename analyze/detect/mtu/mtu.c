/* mtu.c - detector: MTU and page-alignment anomalies, oversize segments, PMTU. */
#include "analyze/detect/mtu/mtu.h"

#include <string.h>

#include "analyze/engine/seq.h"
#include "common/clock.h"

/*
 * Rules (DESIGN.md "MTU / alignment"; tcpsift-analyze(1), FINDINGS):
 *
 *  - Full-size segment of a direction: its largest payload not above the
 *    MSS the receiver announced (larger ones are GSO/TSO/GRO super-frames,
 *    counted by tcp.c as `oversize`; their size says nothing about the
 *    wire; nor do frames with IP length 0 or IPv4 above 65535 bytes, TSO
 *    and BIG TCP frames, which need no MSS to be recognised). The MTU it
 *    implies is its IP length: IP header (20, or 40 plus extension
 *    headers) + TCP header with options (+12 with timestamps) + payload.
 *  - That MTU is only real when the payload was limited by the MSS, not by
 *    the application's write size: the payload plus the segment's option
 *    bytes reaches min(receiver's MSS, sender's own MSS) -- Linux sizes
 *    segments as mss_cache = min(peer MSS, own path MTU - 40) minus the
 *    options it puts in every segment (tcp_current_mss()) -- or an ICMP
 *    too-big announced exactly that MTU. When no SYN was captured, the
 *    full-size segment is the largest of the MTU_SIZES largest payload
 *    sizes that was seen MTU_FULL_REPEAT times (a cap hit again and again,
 *    as in a bulk transfer) and is no super-frame of another (see
 *    looks_super()); without one, nothing is judged.
 *  - Misaligned: implied MTU above 4096 and payload mod 4096 != 0, i.e.
 *    the MTU is not n*4096 + H with H its header bytes (52 for IPv4 + TCP
 *    with timestamps). Full-size payloads then straddle pages: the 2013
 *    splice()/loopback regression (netdev, "Major network performance
 *    regression in 3.7": 61492 ran at 61 Gbps, 61492 + 2048 = 63540 at
 *    50-100 Mbps). The nearest healthy MTUs are floor(payload / 4096) and
 *    one more pages, plus H.
 *  - Collapse: misaligned and the stall detector found stalls in the
 *    connection (it runs before this one in detect.c's table), or -- its
 *    verdict missing -- the misaligned direction was idle at least half of
 *    its transfer time (first to last data segment): silences of the whole
 *    connection longer than max(--stall-min, MTU_IDLE_RTT_FACTOR x min
 *    RTT) that the peer's data neither starts nor ends, so a request
 *    /response turn (think time) never counts and a paced sender (no gap
 *    that long) never does either. The seed's transfer spent ~95 % of its
 *    time in 40/200 ms pauses.
 *  - ICMP fragmentation needed (RFC 1191, type 3 code 4) / ICMPv6 packet
 *    too big (RFC 8201, type 2) quoting one of the connection's segments:
 *    a "pmtu" event with the MTU it carried.
 *  - PMTU black hole (RFC 4821; Linux tcp_mtu_probing, which lowers the MSS
 *    after tcp_retries1 RTO timeouts): a full-size segment re-sent by RTO
 *    at least MTU_BH_MIN_RTO times without being ACKed, then the same
 *    sequence re-sent smaller.
 */

/* Idle: a silence of this many min RTTs at least (track_idle()). */
enum { MTU_IDLE_RTT_FACTOR = 4 };

bool mtu_misaligned(uint32_t payload, uint32_t hdr, uint32_t *below, uint32_t *above, uint32_t *mod)
{
	uint32_t pages = payload / MTU_PAGE;

	*mod = payload % MTU_PAGE;
	*below = pages ? pages * MTU_PAGE + hdr : 0;
	*above = (pages + 1) * MTU_PAGE + hdr;
	if (*mod == 0) /* aligned: it is its own nearest healthy MTU */
		*below = *above = payload + hdr;
	return payload + hdr > MTU_PAGE && *mod != 0;
}

/* IP + TCP header bytes of the segment just processed. */
static uint16_t seg_header(const struct dec_packet *d, uint32_t len)
{
	uint32_t tcph =
	    d->tcp.hdr_len >= 20 ? d->tcp.hdr_len : 20u + (d->tcp.opt.has_ts ? 12u : 0u);
	uint32_t iph = d->src.family == 6 ? 40u : 20u;

	/* The IP length tells the real IP header (IPv4 options, IPv6
	 * extension headers) unless it had to be presumed from the frame. */
	if (!d->ip_len_presumed && d->l3_len >= iph + tcph + len)
		iph = d->l3_len - tcph - len;
	uint32_t h = iph + tcph;
	return (uint16_t)(h > 0xffffu ? 0xffffu : h);
}

/* dir's payload sizes, NULL before its first data segment. */
static inline struct mtu_dir *mtu_dir(const struct tcp_conn *c, enum sum_dir_id dir)
{
	return c->det.mtu.dir[dir];
}

/* ... taken at its first data segment, room for one size (NULL: no memory,
 * counted by the pool: det_pools_failed()). */
__attribute__((noinline)) static struct mtu_dir *
mtu_dir_get(struct tcp_conn *c, enum sum_dir_id dir, const struct det_env *env)
{
	return c->det.mtu.dir[dir] = pool_get(env->pools->mtu_dir[0]);
}

/* Move dir's block (full: nsizes == 1 << cls) to the class above. On no
 * memory (counted by the pool) it stays: the sizes kept are then the
 * largest that fit, as when MTU_SIZES are. */
static struct mtu_dir *dir_grow(struct tcp_conn *c, enum sum_dir_id dir, struct mtu_dir *ds,
				const struct det_env *env)
{
	unsigned cls = ds->cls + 1u;
	struct mtu_dir *nd = pool_get_raw(env->pools->mtu_dir[cls]);

	if (!nd)
		return ds;
	memcpy(nd, ds, MTU_DIR_BYTES(ds->cls));
	nd->cls = (uint8_t)cls;
	pool_put(env->pools->mtu_dir[ds->cls], ds);
	return c->det.mtu.dir[dir] = nd;
}

/* A payload size new to the MTU_SIZES largest of dir: insert it at k. Out of
 * line (as the other rare paths of mtu_segment()): inlined, their register
 * saves would cost every segment. */
__attribute__((noinline)) static void size_insert(struct tcp_conn *c, struct mtu_dir *ds,
						  unsigned k, const struct det_env *env)
{
	const struct tcp_seg *s = &c->tp->seg;
	const struct dec_packet *d = s->d;

	if (ds->nsizes == 1u << ds->cls && ds->cls + 1u < MTU_DIR_CLASSES)
		ds = dir_grow(c, s->dir, ds, env);
	if (k >= 1u << ds->cls)
		return; /* no memory to move to: smaller than every size kept */
	if (ds->nsizes < 1u << ds->cls)
		ds->nsizes++;
	/* At most MTU_SIZES - 1 moves: a loop, not a memmove() call (every
	 * new connection inserts its first sizes). */
	for (unsigned j = ds->nsizes - 1u; j > k; j--)
		ds->size[j] = ds->size[j - 1];
	struct mtu_size *z = &ds->size[k];
	uint32_t tcph =
	    d->tcp.hdr_len >= 20 ? d->tcp.hdr_len : 20u + (d->tcp.opt.has_ts ? 12u : 0u);
	z->payload = s->len;
	z->count = 1;
	z->hdr = seg_header(d, s->len);
	z->opt = (uint16_t)(tcph - 20);
	z->ts = s->ts;
	z->frame = s->frame;
	z->input = s->input;
	z->rel_seq = s->rel_seq;
}

/* Remember the segment's payload size among the MTU_SIZES largest of ds. */
static void track_size(struct tcp_conn *c, struct mtu_dir *ds, const struct det_env *env)
{
	const struct tcp_seg *s = &c->tp->seg;
	const struct dec_packet *d = s->d;
	uint32_t peer_mss = tcp_peer_mss(c, s->dir);
	unsigned k;

	if (peer_mss && s->len > peer_mss)
		return; /* a super-frame: tcp.c counted it as oversize */
	/* No wire carries an IP length of 0 or an IPv4 packet above 65535
	 * bytes: captures of TSO/GSO frames and BIG TCP (Linux >= 5.19)
	 * show them, with or without a SYN to learn the MSS from. */
	if (d->ip_len_presumed || (d->src.family == 4 && d->l3_len > 65535)) {
		ds->superframes++;
		return;
	}
	for (k = 0; k < ds->nsizes && ds->size[k].payload > s->len; k++)
		;
	if (k < ds->nsizes && ds->size[k].payload == s->len) {
		ds->size[k].count++;
		return;
	}
	if (k == MTU_SIZES)
		return; /* smaller than every size kept */
	size_insert(c, ds, k, env);
}

static void emit_blackhole(struct tcp_conn *c, const struct mtu_dir *md, struct mtu_pmtu_dir *ds,
			   const struct det_env *env)
{
	const struct tcp_seg *s = &c->tp->seg;
	struct sum_event e;

	det_event_init(&e, SUM_EV_PMTU, c, s->dir, ds->bh_first_ts, ds->bh_first_frame, s->input);
	e.frame_last = s->frame;
	e.duration_ns = s->ts - ds->bh_first_ts;
	e.bytes = ds->bh_len;
	e.segments = md->bh_rto;
	e.rel_seq = tcp_rel_seq(c, s->dir, ds->bh_seq);
	e.u.mtu.kind = MTU_PMTU_BLACKHOLE;
	e.u.mtu.payload = ds->bh_len;
	e.u.mtu.big_mtu = ds->bh_len + ds->bh_hdr;
	e.u.mtu.mtu = s->len + seg_header(s->d, s->len);
	e.u.mtu.retransmissions = md->bh_rto;
	ds->bh_big_mtu = e.u.mtu.big_mtu;
	ds->bh_small_mtu = e.u.mtu.mtu;
	ds->bh_resends = md->bh_rto;
	e.u.mtu.reason = "full-size segments re-sent by RTO until they shrank: PMTU black hole "
			 "(RFC 4821, Linux tcp_mtu_probing)";
	det_emit(env, &e);
}

/*
 * Black hole watch on dir's data: an RTO retransmission of a full-size
 * segment starts (or extends) a run at its sequence; the same sequence
 * re-sent smaller after MTU_BH_MIN_RTO such re-sends ends it as a black
 * hole. An ACK covering the big segment ends the run harmlessly. For
 * retransmissions only (out of line: see size_insert()).
 */
__attribute__((noinline)) static void watch_blackhole(struct tcp_conn *c, struct mtu_dir *md,
						      const struct det_env *env)
{
	const struct tcp_seg *s = &c->tp->seg;
	struct mtu_pmtu_dir *ds;

	if (!s->len)
		return;
	/* The first timer re-send is the loss probe (RFC 8985), the rest RTOs.
	 * bh_rto is 0 until the cold state is there to hold the run. */
	if ((s->kind & TCP_SEG_RETRANS) && (s->kind & (TCP_SEG_RTO | TCP_SEG_TLP)) && md->nsizes &&
	    s->len == md->size[0].payload) {
		struct mtu_pmtu_state *pm = DET_COLD_GET(c, env, mtu_pmtu);
		if (!pm)
			return; /* no memory: no black hole watch */
		ds = &pm->dir[s->dir];
		if (md->bh_rto && ds->bh_seq == s->seq && ds->bh_len == s->len) {
			md->bh_rto++;
		} else {
			ds->bh_seq = s->seq;
			ds->bh_len = s->len;
			md->bh_rto = 1;
			ds->bh_hdr = seg_header(s->d, s->len);
			ds->bh_first_ts = s->ts;
			ds->bh_first_frame = s->frame;
		}
		return;
	}
	if (md->bh_rto < MTU_BH_MIN_RTO)
		return;
	ds = &c->det.mtu_pmtu->dir[s->dir];
	if (s->seq == ds->bh_seq && s->len < ds->bh_len) {
		ds->blackholes++;
		emit_blackhole(c, md, ds, env);
		md->bh_rto = 0;
	}
}

/*
 * Silences of the connection longer than the stall threshold, charged to
 * each data direction unless the other side's data begins or ends them (a
 * turn of a request/response protocol, not time lost by this direction).
 */
static void track_idle(struct tcp_conn *c, const struct det_env *env)
{
	const struct tcp_seg *s = &c->tp->seg;
	struct mtu_hot *st = &c->dhot.mtu;
	bool data = (s->kind & TCP_SEG_DATA) && !(s->kind & TCP_SEG_KEEPALIVE);
	int64_t thr = env->prm ? env->prm->stall_min_ns : DET_DEFAULT_STALL_MIN_NS;

	/* The threshold is never below --stall-min: shorter gaps (most) need
	 * no RTT lookup. */
	if (st->have_last && s->ts > st->last_ts && s->ts - st->last_ts >= thr) {
		int64_t gap = s->ts - st->last_ts;
		int64_t rtt = tcp_min_rtt(c, s->dir);
		/* Idle is a silence of several round trips (a cwnd-limited
		 * flight leaves one RTT between its bursts), apart from the
		 * stall detector's per-gap gate. */
		int64_t k = MTU_IDLE_RTT_FACTOR;

		if (rtt > 0 && clock_sat_mul(rtt, k) > thr)
			thr = clock_sat_mul(rtt, k);
		for (int d = 0; gap >= thr && d < SUM_DIR_COUNT; d++) {
			bool peer_before = st->last_data && st->last_dir != d;
			bool peer_after = data && s->dir != (enum sum_dir_id)d;
			if (!peer_before && !peer_after)
				st->idle_ns[d] += gap;
		}
	}
	if (!st->have_last || s->ts >= st->last_ts) {
		st->last_ts = s->ts;
		st->last_dir = (uint8_t)s->dir;
		st->last_data = data;
		st->have_last = true;
	}
}

void mtu_segment(struct tcp_conn *c, const struct det_env *env)
{
	const struct tcp_seg *s = &c->tp->seg;
	struct mtu_dir *peer = mtu_dir(c, (enum sum_dir_id) !s->dir), *ds;

	track_idle(c, env);

	/* The peer's ACK covering the re-sent big segment: it got through. */
	if ((s->kind & TCP_SEG_ACK_ADVANCED) && peer && peer->bh_rto) {
		const struct mtu_pmtu_dir *pc = &c->det.mtu_pmtu->dir[!s->dir];
		if (seq_ge(s->ack, pc->bh_seq + pc->bh_len))
			peer->bh_rto = 0;
	}
	if (!(s->kind & TCP_SEG_DATA) || (s->kind & TCP_SEG_KEEPALIVE) || !s->d)
		return;
	if (!(ds = mtu_dir(c, s->dir)) && !(ds = mtu_dir_get(c, s->dir, env)))
		return; /* no memory: the size goes unseen */
	track_size(c, ds, env);
	if (s->kind & TCP_SEG_RETRANS) /* ds may have moved to a larger class */
		watch_blackhole(c, mtu_dir(c, s->dir), env);
}

static bool addr_eq(const struct dec_addr *a, const struct dec_addr *b)
{
	return a->family == b->family && memcmp(a->a, b->a, sizeof(a->a)) == 0;
}

/* ICMP frag-needed (RFC 1191) / ICMPv6 packet too big (RFC 8201) quoting c. */
static void mtu_icmp(struct tcp_conn *c, const struct dec_packet *d, const struct pkt *p,
		     const struct det_env *env)
{
	const struct dec_icmp *ic = &d->icmp;
	bool v6 = d->l4proto == 58;
	struct sum_event e;

	if (v6 ? ic->type != 2 : !(ic->type == 3 && ic->code == 4))
		return;
	/* The quoted segment was sent by the side whose address is its source. */
	enum sum_dir_id dir =
	    addr_eq(&ic->inner_src, &c->info.client) && ic->inner_sport == c->info.client_port
		? SUM_C2S
		: SUM_S2C;
	struct mtu_pmtu_state *pm = DET_COLD_GET(c, env, mtu_pmtu);

	if (!pm)
		return; /* no memory: not counted, no event */
	pm->dir[dir].icmp_too_big++;
	pm->dir[dir].icmp_mtu = ic->mtu;
	pm->icmp_ptb++;
	pm->icmp_mtu = ic->mtu;
	det_event_init(&e, SUM_EV_PMTU, c, dir, p->ts_ns, p->frame, p->input);
	e.rel_seq = ic->has_inner ? tcp_rel_seq(c, dir, ic->inner_seq) : 0;
	e.u.mtu.kind = MTU_PMTU_ICMP;
	e.u.mtu.mtu = ic->mtu;
	e.u.mtu.icmp_type = ic->type;
	e.u.mtu.icmp_code = ic->code;
	e.u.mtu.reason = v6 ? "ICMPv6 packet too big (RFC 8201) quoting a segment of it"
			    : "ICMP fragmentation needed and DF set (RFC 1191) quoting a segment "
			      "of it";
	det_emit(env, &e);
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Without a SYN: does size z look like a GSO/TSO super-frame, i.e. share
 * with another size kept a common divisor that is a plausible MSS (>= 536,
 * RFC 9293's default) yet smaller than both (Linux builds super-frames as
 * whole multiples of gso_size: 65160 and 59368 are 45 and 41 x 1448)?
 */
static bool looks_super(const struct mtu_dir *ds, unsigned z)
{
	for (unsigned k = 0; k < ds->nsizes; k++) {
		uint32_t a = ds->size[z].payload, b = ds->size[k].payload;
		uint32_t g = gcd32(a, b);
		if (k != z && g >= 536 && g < a && g < b)
			return true;
	}
	return false;
}

/*
 * Which size is dir's full-size segment, and is it limited by the MSS (so
 * its MTU is the path's)? Returns the index in ds->size (-1: no data);
 * icmp_mtu: the MTU dir's last ICMP too-big carried (0: none).
 */
static int full_size(const struct tcp_conn *c, enum sum_dir_id dir, const struct mtu_dir *ds,
		     uint32_t icmp_mtu, bool *full)
{
	uint32_t peer_mss = c->half[!dir].st.mss, own_mss = c->half[dir].st.mss;

	*full = false;
	if (!ds->nsizes)
		return -1;
	const struct mtu_size *z = &ds->size[0];
	if (icmp_mtu && z->payload + z->hdr == icmp_mtu) {
		*full = true;
		return 0;
	}
	if (peer_mss) {
		uint32_t eff = own_mss && own_mss < peer_mss ? own_mss : peer_mss;
		*full = z->payload + z->opt >= eff;
		return 0;
	}
	/* No SYN: the largest size that recurs (a cap hit again and again)
	 * and is no super-frame of another. */
	for (unsigned k = 0; k < ds->nsizes; k++) {
		if (ds->size[k].count >= MTU_FULL_REPEAT && !looks_super(ds, k)) {
			*full = true;
			return (int)k;
		}
	}
	return 0;
}

static void judge_collapse(const struct tcp_conn *c, const struct stall_summary *stall,
			   struct mtu_summary *sm, uint32_t nfull)
{
	const struct tcp_stats *st = &c->half[sm->dir].st;
	int64_t dur = st->last_data_ts - st->first_data_ts;

	sm->stalls = stall->count;
	sm->stall_ns = stall->time_ns;
	if (sm->stalls) {
		sm->collapse = true;
		sm->collapse_by = MTU_COLLAPSE_STALLS;
		return;
	}
	/* No stall detector verdict: was the transfer mostly waiting? */
	if (nfull < MTU_COLLAPSE_MIN || dur <= 0)
		return;
	sm->transfer_ns = dur;
	sm->idle_ns = c->dhot.mtu.idle_ns[sm->dir];
	if (sm->idle_ns > sm->transfer_ns)
		sm->idle_ns = sm->transfer_ns; /* silences before the data phase */
	if (2 * sm->idle_ns >= sm->transfer_ns) {
		sm->collapse = true;
		sm->collapse_by = MTU_COLLAPSE_THROUGHPUT;
	}
}

/* Size k of dir (mtu_dir.size[k]) straddles pages. */
static void emit_alignment(struct tcp_conn *c, enum sum_dir_id dir, int k,
			   const struct det_env *env)
{
	const struct mtu_dir *ds = mtu_dir(c, dir); /* there: dir has a size */
	const struct mtu_size *z = &ds->size[k];
	uint32_t payload = z->payload;
	struct sum_event e;
	uint32_t below, above, mod;

	mtu_misaligned(payload, z->hdr, &below, &above, &mod);
	det_event_init(&e, SUM_EV_MTU_ALIGNMENT, c, dir, z->ts, z->frame, z->input);
	e.bytes = payload;
	e.segments = z->count;
	e.rel_seq = z->rel_seq;
	e.u.mtu.mtu = payload + z->hdr;
	e.u.mtu.aligned_below = below;
	e.u.mtu.aligned_above = above;
	e.u.mtu.payload = payload;
	e.u.mtu.payload_mod_4096 = mod;
	e.u.mtu.reason = "full-size payloads are not a multiple of 4096: they straddle pages";
	det_emit(env, &e);
}

static void mtu_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	struct mtu_summary *sm = &out->mtu;
	const struct mtu_pmtu_state *pm = c->det.mtu_pmtu; /* NULL: nothing PMTU */
	int full[SUM_DIR_COUNT] = {-1, -1};		   /* index of the full-size payload */
	int best = -1;

	memset(sm, 0, sizeof(*sm));
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		const struct mtu_dir *ds = mtu_dir(c, (enum sum_dir_id)k); /* NULL: no data */
		const struct mtu_pmtu_dir *pd = pm ? &pm->dir[k] : NULL;
		uint32_t below, above, mod;
		bool is_full;

		sm->mss[k] = c->half[k].st.mss;
		sm->oversize[k] = (uint32_t)TCP_COUNT(&c->half[k], oversize);
		sm->oversize_segments += sm->oversize[k];
		sm->superframes[k] = ds ? ds->superframes : 0;
		if (pd && pd->blackholes) {
			sm->blackholes += pd->blackholes;
			sm->blackhole_mtu = pd->bh_big_mtu;
			sm->blackhole_shrunk_mtu = pd->bh_small_mtu;
			sm->blackhole_resends = pd->bh_resends;
		}
		int z =
		    ds ? full_size(c, (enum sum_dir_id)k, ds, pd ? pd->icmp_mtu : 0, &is_full) : -1;
		if (z < 0)
			continue;
		full[k] = z;
		sm->largest_payload[k] = ds->size[z].payload;
		sm->header_bytes[k] = ds->size[z].hdr;
		sm->implied_mtu[k] = ds->size[z].payload + ds->size[z].hdr;
		sm->full_size[k] = is_full;
		sm->misaligned_dir[k] =
		    is_full &&
		    mtu_misaligned(ds->size[z].payload, ds->size[z].hdr, &below, &above, &mod);
		/* The direction the single-value fields describe: misaligned
		 * first, then MSS-limited, then the largest MTU. */
		if (best < 0) {
			best = k;
		} else {
			int rank_k = sm->misaligned_dir[k] * 2 + sm->full_size[k];
			int rank_b = sm->misaligned_dir[best] * 2 + sm->full_size[best];
			if (rank_k > rank_b ||
			    (rank_k == rank_b && sm->implied_mtu[k] > sm->implied_mtu[best]))
				best = k;
		}
	}
	sm->icmp_too_big = pm ? pm->icmp_ptb : 0;
	sm->icmp_mtu = pm ? pm->icmp_mtu : 0;
	sm->pmtu_blackhole = sm->blackholes != 0;
	if (best < 0)
		return;
	sm->dir = (uint8_t)best;
	sm->misaligned = sm->misaligned_dir[best];
	mtu_misaligned(sm->largest_payload[best], sm->header_bytes[best], &sm->aligned_below,
		       &sm->aligned_above, &sm->payload_mod_4096);
	/* No MTU to judge (not MSS-limited), or one the rule leaves alone
	 * (4096 and below): leave the alignment fields empty. */
	if (!sm->full_size[best] || sm->implied_mtu[best] <= MTU_PAGE)
		sm->aligned_below = sm->aligned_above = sm->payload_mod_4096 = 0;
	for (int k = 0; k < SUM_DIR_COUNT; k++)
		if (sm->misaligned_dir[k])
			emit_alignment(c, (enum sum_dir_id)k, full[k], env);
	if (sm->misaligned)
		judge_collapse(c, &out->stall, sm,
			       mtu_dir(c, (enum sum_dir_id)best)->size[full[best]].count);
}

/* The directions' blocks go back to their classes (det_release()). */
static void mtu_release(struct tcp_conn *c, const struct det_env *env)
{
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct mtu_dir *ds = c->det.mtu.dir[k];
		if (ds)
			pool_put(env->pools->mtu_dir[ds->cls], ds);
		c->det.mtu.dir[k] = NULL;
	}
}

const struct det_ops mtu_ops = {
    .name = "mtu",
    .icmp = mtu_icmp,
    .finish = mtu_finish,
    .release = mtu_release,
};
