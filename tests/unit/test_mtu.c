/* test_mtu.c - unit tests of the MTU / alignment detector (analyze/detect/mtu/mtu.c). */
#include <string.h>

#include "analyze/detect/mtu/mtu.h"
#include "analyze/engine/tcp.h"
#include "tests/unit/convo.h"
#include "tests/unit/unit.h"

/*
 * A conversation client 10.0.0.1:40000 <-> server 10.0.0.2:80 (or the IPv6
 * equivalent) driven through the TCP engine and then the MTU detector only,
 * so the other detectors' state does not matter here.
 */
struct mconv {
	struct tcp_conn c;
	struct sum_det res; /* the detectors' results, from finish() */
	struct tcp_params prm;
	struct det_params dprm;
	struct sum_sink sink;
	struct det_env env;
	struct sum_event ev[32];
	unsigned nev;
	uint64_t frame;
	bool started;
	int family;
	bool ts;       /* every segment carries timestamps */
	bool presumed; /* the next segments have IP length 0 (TSO, BIG TCP) */
};

enum { S = DEC_TH_SYN, A = DEC_TH_ACK, F = DEC_TH_FIN, P = DEC_TH_PSH };

#define C2S SUM_C2S
#define S2C SUM_S2C
#define ISS 1000u
#define IRS 5000u

static void on_event(void *ctx, const struct sum_event *e)
{
	struct mconv *v = ctx;
	if (v->nev < 32)
		v->ev[v->nev++] = *e;
}

static void mc_init(struct mconv *v, int family, bool ts)
{
	memset(v, 0, sizeof(*v));
	convo_params(&v->prm, &v->dprm, &v->env, &v->sink, on_event, v);
	v->family = family;
	v->ts = ts;
}

/* One segment of len payload bytes; mss > 0 puts an MSS option in a SYN. */
static void seg(struct mconv *v, int dir, uint8_t flags, uint32_t seq, uint32_t ack, uint32_t len,
		int64_t t_us, int mss)
{
	struct dec_packet d;
	struct pkt p;
	uint32_t iph = v->family == 6 ? 40 : 20;

	convo_packet(v->family, dir, t_us, &v->frame, &d, &p);
	d.l4proto = 6;
	d.tcp.seq = seq;
	d.tcp.ack = ack;
	d.tcp.flags = flags;
	d.tcp.window = 65535;
	d.tcp.payload_len = d.tcp.payload_cap = len;
	d.tcp.hdr_len = (uint16_t)(20 + (v->ts ? 12 : 0) + (mss ? 4 : 0));
	d.l3_len = iph + d.tcp.hdr_len + len;
	d.ip_len_presumed = v->presumed;
	if (v->ts) {
		d.tcp.opt.has_ts = 1;
		d.tcp.opt.tsval = (uint32_t)(t_us / 1000 + 1);
	}
	if (mss) {
		d.tcp.opt.has_mss = 1;
		d.tcp.opt.mss = (uint16_t)mss;
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_ONE_DETECTOR,
		      mtu_segment, &d, &p);
}

static void handshake(struct mconv *v, int mss_c, int mss_s)
{
	seg(v, C2S, S, ISS, 0, 0, 0, mss_c);
	seg(v, S2C, S | A, IRS, ISS + 1, 0, 50, mss_s);
	seg(v, C2S, A, ISS + 1, IRS + 1, 0, 100, 0);
}

/* The server sends n segments of len bytes, dt_us apart, each ACKed ack_us later. */
static void bulk(struct mconv *v, unsigned n, uint32_t len, int64_t t0_us, int64_t dt_us,
		 int64_t ack_us)
{
	for (unsigned k = 0; k < n; k++) {
		uint32_t seq = IRS + 1 + k * len;
		int64_t t = t0_us + (int64_t)k * dt_us;
		seg(v, S2C, A, seq, ISS + 1, len, t, 0);
		seg(v, C2S, A, ISS + 1, seq + len, 0, t + ack_us, 0);
	}
}

static void finish(struct mconv *v)
{
	tcp_finish(&v->c, &v->sink);
	mtu_ops.finish(&v->c, &v->env, &v->res);
}

static unsigned count_ev(const struct mconv *v, enum sum_event_type t)
{
	unsigned n = 0;
	for (unsigned k = 0; k < v->nev; k++)
		n += v->ev[k].type == t;
	return n;
}

static const struct sum_event *find_ev(const struct mconv *v, enum sum_event_type t)
{
	for (unsigned k = 0; k < v->nev; k++)
		if (v->ev[k].type == t)
			return &v->ev[k];
	return NULL;
}

/* The rule itself: MTU n*4096 + H is healthy above 4096, nothing else is. */
static void test_arithmetic(void)
{
	uint32_t lo, hi, mod;

	/* The seed: 63540 = 61492 + 2048 with timestamps over IPv4. */
	CHECK(mtu_misaligned(63540 - 52, 52, &lo, &hi, &mod));
	CHECK_EQ_U(mod, 2048);
	CHECK_EQ_U(lo, 61492);
	CHECK_EQ_U(hi, 65588);
	CHECK_EQ_U(61492, 15 * 4096 + 52);
	CHECK_EQ_U(65588, 16 * 4096 + 52);
	/* 61492 = 15 pages + 52: aligned, its own nearest healthy MTU. */
	CHECK(!mtu_misaligned(61492 - 52, 52, &lo, &hi, &mod));
	CHECK_EQ_U(mod, 0);
	CHECK_EQ_U(lo, 61492);
	/* 20532 = 5*4096 + 52: aligned with timestamps (Linux's default: the
	 * MSS is 20492, the payload 20492 - 12 = 20480 = 5 pages) ... */
	CHECK(!mtu_misaligned(20532 - 52, 52, &lo, &hi, &mod));
	/* ... but not without them: 20492 bytes = 5 pages + 12. */
	CHECK(mtu_misaligned(20532 - 40, 40, &lo, &hi, &mod));
	CHECK_EQ_U(mod, 12);
	CHECK_EQ_U(lo, 20520);
	CHECK_EQ_U(hi, 24616);
	/* 1500 and anything up to 4096 is never flagged. */
	CHECK(!mtu_misaligned(1448, 52, &lo, &hi, &mod));
	CHECK(!mtu_misaligned(1460, 40, &lo, &hi, &mod));
	CHECK(!mtu_misaligned(4096 - 52, 52, &lo, &hi, &mod));
	CHECK(mtu_misaligned(4097 - 52, 52, &lo, &hi, &mod));
	CHECK_EQ_U(lo, 0); /* under one page: no aligned MTU below */
	CHECK_EQ_U(hi, 4148);
	/* The loopback default: 65536 -> MSS 65495 -> 65483 bytes with TS. */
	CHECK(mtu_misaligned(65483, 52, &lo, &hi, &mod));
	CHECK_EQ_U(mod, 4043);
	/* IPv6 header: MTU 63540 with TS -> 63468 bytes, H = 72. */
	CHECK(mtu_misaligned(63540 - 72, 72, &lo, &hi, &mod));
	CHECK_EQ_U(lo, 61440 + 72);
}

/* A bulk transfer over MTU 63540 with timestamps: flagged once, s2c. */
static void test_misaligned_ipv4_ts(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, true);
	handshake(&v, 63500, 63500);
	bulk(&v, 6, 63488, 1000, 100, 50);
	/* Sizes are kept per direction, from its first data segment: the
	 * client sent none. */
	CHECK(v.c.det.mtu.dir[S2C] != NULL);
	CHECK(v.c.det.mtu.dir[C2S] == NULL);
	finish(&v);
	CHECK(m->misaligned);
	CHECK(m->misaligned_dir[S2C]);
	CHECK(!m->misaligned_dir[C2S]);
	CHECK(m->full_size[S2C]);
	CHECK_EQ_U(m->dir, S2C);
	CHECK_EQ_U(m->largest_payload[S2C], 63488);
	CHECK_EQ_U(m->implied_mtu[S2C], 63540);
	CHECK_EQ_U(m->header_bytes[S2C], 52);
	CHECK_EQ_U(m->payload_mod_4096, 2048);
	CHECK_EQ_U(m->aligned_below, 61492);
	CHECK_EQ_U(m->aligned_above, 65588);
	CHECK_EQ_U(m->mss[C2S], 63500);
	CHECK(!m->collapse); /* fast, no stalls */
	CHECK_EQ_U(count_ev(&v, SUM_EV_MTU_ALIGNMENT), 1);
	const struct sum_event *e = find_ev(&v, SUM_EV_MTU_ALIGNMENT);
	CHECK(e && e->dir == S2C && e->u.mtu.mtu == 63540 && e->u.mtu.aligned_below == 61492 &&
	      e->u.mtu.aligned_above == 65588 && e->u.mtu.payload_mod_4096 == 2048);
	CHECK(e && e->frame_first == 4 && e->segments == 6);
}

/* The healthy controls: 61492 and 20532 with timestamps, 1500. */
static void test_aligned_controls(void)
{
	static const uint32_t mtus[] = {61492, 20532, 1500};

	for (unsigned k = 0; k < 3; k++) {
		struct mconv v;
		uint32_t mss = mtus[k] - 40;

		mc_init(&v, 4, true);
		handshake(&v, (int)mss, (int)mss);
		bulk(&v, 4, mss - 12, 1000, 100, 50);
		finish(&v);
		CHECK(!v.res.mtu.misaligned);
		CHECK(v.res.mtu.full_size[S2C]);
		CHECK_EQ_U(v.res.mtu.implied_mtu[S2C], mtus[k]);
		CHECK_EQ_U(count_ev(&v, SUM_EV_MTU_ALIGNMENT), 0);
	}
	/* 1500: the alignment fields stay empty (the rule starts above 4096). */
	struct mconv v;
	mc_init(&v, 4, true);
	handshake(&v, 1460, 1460);
	bulk(&v, 4, 1448, 1000, 100, 50);
	finish(&v);
	CHECK_EQ_U(v.res.mtu.aligned_above, 0);
}

/* 20532 without timestamps: payload 20492, 12 bytes into a sixth page. */
static void test_20532_without_timestamps(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, false);
	handshake(&v, 20492, 20492);
	bulk(&v, 4, 20492, 1000, 100, 50);
	finish(&v);
	CHECK(m->misaligned);
	CHECK_EQ_U(m->implied_mtu[S2C], 20532);
	CHECK_EQ_U(m->header_bytes[S2C], 40);
	CHECK_EQ_U(m->payload_mod_4096, 12);
	CHECK_EQ_U(m->aligned_below, 20520);
}

/* IPv6: 40-byte IP header; with and without timestamps. */
static void test_ipv6(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 6, false);
	handshake(&v, 63480, 63480);
	bulk(&v, 4, 63480, 1000, 100, 50);
	finish(&v);
	CHECK(m->misaligned);
	CHECK_EQ_U(m->implied_mtu[S2C], 63540);
	CHECK_EQ_U(m->header_bytes[S2C], 60);
	CHECK_EQ_U(m->payload_mod_4096, 63480 - 61440);

	/* MTU 61512 = 15 pages + 72 (IPv6 + TCP with TS): aligned. */
	mc_init(&v, 6, true);
	handshake(&v, 61512 - 60, 61512 - 60);
	bulk(&v, 4, 61440, 1000, 100, 50);
	finish(&v);
	CHECK(!m->misaligned);
	CHECK(m->full_size[S2C]);
	CHECK_EQ_U(m->implied_mtu[S2C], 61512);
	CHECK_EQ_U(m->header_bytes[S2C], 72);
}

/* Writes smaller than the MSS say nothing about the MTU; nor one segment
 * of a capture without SYNs. Three equal ones there do. */
static void test_not_full_size(void)
{
	struct mconv v;

	mc_init(&v, 4, true);
	handshake(&v, 65495, 65495);
	bulk(&v, 6, 8216, 1000, 100, 50);
	finish(&v);
	CHECK(!v.res.mtu.full_size[S2C]);
	CHECK(!v.res.mtu.misaligned);
	CHECK_EQ_U(v.res.mtu.implied_mtu[S2C], 8268);

	mc_init(&v, 4, true);
	bulk(&v, 2, 63488, 1000, 100, 50);
	finish(&v);
	CHECK(!v.res.mtu.misaligned);

	mc_init(&v, 4, true);
	bulk(&v, 3, 63488, 1000, 100, 50);
	finish(&v);
	CHECK(v.res.mtu.misaligned);
	CHECK_EQ_U(v.res.mtu.aligned_below, 61492);

	/* The seed's 16 kB trace, no SYN: one 47460-byte super-frame among
	 * 16344-byte segments (MTU 16384 without timestamps). */
	mc_init(&v, 4, false);
	bulk(&v, 4, 16344, 1000, 100, 50);
	seg(&v, S2C, A, IRS + 1 + 4 * 16344, ISS + 1, 47460, 2000, 0);
	finish(&v);
	CHECK(v.res.mtu.full_size[S2C]);
	CHECK_EQ_U(v.res.mtu.largest_payload[S2C], 16344);
	CHECK_EQ_U(v.res.mtu.implied_mtu[S2C], 16384);
	CHECK(v.res.mtu.misaligned);
	CHECK_EQ_U(v.res.mtu.aligned_below, 12328);
	CHECK_EQ_U(v.res.mtu.aligned_above, 16424);

	/* A TSO capture without SYN: recurring 45 and 41 x 1448 frames are
	 * super-frames of one 1448-byte segment, not a 65212-byte MTU. */
	mc_init(&v, 4, true);
	uint32_t q = IRS + 1;
	for (unsigned k = 0; k < 3; k++) {
		seg(&v, S2C, A, q, ISS + 1, 65160, 1000 + 10 * k, 0);
		q += 65160;
		seg(&v, S2C, A, q, ISS + 1, 59368, 1005 + 10 * k, 0);
		q += 59368;
	}
	finish(&v);
	CHECK(!v.res.mtu.full_size[S2C]);
	CHECK(!v.res.mtu.misaligned);
}

/* Super-frames above the MSS: counted by tcp.c, left out of the MTU. */
static void test_oversize(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, true);
	handshake(&v, 1460, 1460);
	seg(&v, S2C, A, IRS + 1, ISS + 1, 2896, 1000, 0);
	seg(&v, S2C, A, IRS + 1 + 2896, ISS + 1, 1448, 1010, 0);
	seg(&v, C2S, A, ISS + 1, IRS + 1 + 4344, 0, 1100, 0);
	finish(&v);
	CHECK_EQ_U(m->oversize[S2C], 1);
	CHECK_EQ_U(m->oversize_segments, 1);
	CHECK_EQ_U(m->largest_payload[S2C], 1448);
	CHECK_EQ_U(m->implied_mtu[S2C], 1500);
	CHECK_EQ_U(count_ev(&v, SUM_EV_OVERSIZE), 1); /* tcp.c's, not doubled */
}

/* Without a SYN: frames no wire carries (IP length 0, IPv4 above 64 KiB). */
static void test_superframes(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, true);
	v.presumed = true;
	seg(&v, S2C, A | P, IRS + 1, ISS + 1, 80000, 1000, 0); /* BIG TCP */
	v.presumed = false;
	seg(&v, S2C, A, IRS + 80001, ISS + 1, 70000, 1100, 0); /* l3_len > 65535 */
	seg(&v, S2C, A, IRS + 150001, ISS + 1, 1448, 1200, 0);
	finish(&v);
	CHECK_EQ_U(m->superframes[S2C], 2);
	CHECK_EQ_U(m->largest_payload[S2C], 1448);
	CHECK(!m->full_size[S2C]);
	CHECK(!m->misaligned);
}

static void icmp(struct mconv *v, int family, uint8_t type, uint8_t code, uint32_t mtu,
		 int quoted_dir, uint32_t inner_seq, int64_t t_us)
{
	struct dec_packet d;
	struct pkt p;

	memset(&d, 0, sizeof(d));
	memset(&p, 0, sizeof(p));
	convo_addr(&d.src, family, 9); /* a router */
	convo_addr(&d.dst, family, quoted_dir == C2S ? 1 : 2);
	d.l4proto = family == 6 ? 58 : 1;
	d.icmp.type = type;
	d.icmp.code = code;
	d.icmp.mtu = mtu;
	d.icmp.has_inner_ip = d.icmp.has_inner = true;
	convo_addr(&d.icmp.inner_src, family, quoted_dir == C2S ? 1 : 2);
	convo_addr(&d.icmp.inner_dst, family, quoted_dir == C2S ? 2 : 1);
	d.icmp.inner_proto = 6;
	d.icmp.inner_sport = quoted_dir == C2S ? 40000 : 80;
	d.icmp.inner_dport = quoted_dir == C2S ? 80 : 40000;
	d.icmp.inner_seq = inner_seq;
	p.ts_ns = t_us * 1000;
	p.frame = ++v->frame;
	mtu_ops.icmp(&v->c, &d, &p, &v->env);
}

static void test_icmp_too_big(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, true);
	handshake(&v, 1460, 1460);
	seg(&v, S2C, A, IRS + 1, ISS + 1, 1448, 1000, 0);
	icmp(&v, 4, 3, 4, 1400, S2C, IRS + 1, 1100);
	icmp(&v, 4, 3, 1, 0, S2C, IRS + 1, 1200); /* host unreachable: not ours */
	seg(&v, S2C, A, IRS + 1, ISS + 1, 1348, 1300, 0);
	seg(&v, C2S, A, ISS + 1, IRS + 1 + 1348, 0, 1400, 0);
	finish(&v);
	CHECK_EQ_U(m->icmp_too_big, 1);
	CHECK_EQ_U(m->icmp_mtu, 1400);
	CHECK_EQ_U(count_ev(&v, SUM_EV_PMTU), 1);
	const struct sum_event *e = find_ev(&v, SUM_EV_PMTU);
	CHECK(e && e->dir == S2C && e->u.mtu.mtu == 1400 && e->u.mtu.kind == MTU_PMTU_ICMP);
	CHECK(e && e->rel_seq == 1 && e->frame_first == 5);

	/* ICMPv6 packet too big quoting the client's segment. */
	mc_init(&v, 6, false);
	handshake(&v, 1440, 1440);
	seg(&v, C2S, A, ISS + 1, IRS + 1, 1440, 1000, 0);
	icmp(&v, 6, 2, 0, 1280, C2S, ISS + 1, 1100);
	finish(&v);
	CHECK_EQ_U(m->icmp_too_big, 1);
	CHECK_EQ_U(m->icmp_mtu, 1280);
	e = find_ev(&v, SUM_EV_PMTU);
	CHECK(e && e->dir == C2S && e->u.mtu.mtu == 1280 && e->u.mtu.icmp_type == 2);
}

/* Full-size segment re-sent by RTO twice, then smaller: a black hole. */
static void test_blackhole(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, true);
	handshake(&v, 1460, 1460);
	bulk(&v, 2, 1448, 1000, 100, 50); /* two get through */
	uint32_t x = IRS + 1 + 2 * 1448;
	seg(&v, S2C, A, x, ISS + 1, 1448, 2000, 0);
	seg(&v, S2C, A, x, ISS + 1, 1448, 300000, 0);  /* RTO 1 */
	seg(&v, S2C, A, x, ISS + 1, 1448, 700000, 0);  /* RTO 2 */
	seg(&v, S2C, A, x, ISS + 1, 1448, 1500000, 0); /* RTO 3 */
	CHECK(v.c.det.mtu.dir[S2C]->cls == 0 && v.c.det.mtu.dir[S2C]->bh_rto == 3);
	/* The shrunk size is the second: the block moves up a class before
	 * the run (bh_rto, in it) is read. */
	seg(&v, S2C, A, x, ISS + 1, 1024, 3100000, 0); /* shrunk */
	CHECK(v.c.det.mtu.dir[S2C]->cls == 1 && v.c.det.mtu.dir[S2C]->bh_rto == 0);
	seg(&v, C2S, A, ISS + 1, x + 1024, 0, 3100100, 0);
	finish(&v);
	CHECK(m->pmtu_blackhole);
	CHECK_EQ_U(m->blackholes, 1);
	CHECK_EQ_U(m->blackhole_mtu, 1500);
	CHECK_EQ_U(m->blackhole_shrunk_mtu, 1076);
	CHECK_EQ_U(m->blackhole_resends, 3);
	const struct sum_event *e = find_ev(&v, SUM_EV_PMTU);
	CHECK(e && e->u.mtu.kind == MTU_PMTU_BLACKHOLE && e->u.mtu.retransmissions == 3 &&
	      e->u.mtu.big_mtu == 1500 && e->u.mtu.mtu == 1076 && e->u.mtu.reason);
	CHECK(e && e->duration_ns == (3100000 - 300000) * 1000ll);

	/* Control: the re-sent big segment is ACKed, then a short tail. */
	mc_init(&v, 4, true);
	handshake(&v, 1460, 1460);
	bulk(&v, 2, 1448, 1000, 100, 50);
	seg(&v, S2C, A, x, ISS + 1, 1448, 2000, 0);
	seg(&v, S2C, A, x, ISS + 1, 1448, 300000, 0);
	seg(&v, S2C, A, x, ISS + 1, 1448, 700000, 0);
	seg(&v, C2S, A, ISS + 1, x + 1448, 0, 700100, 0);
	seg(&v, S2C, A, x + 1448, ISS + 1, 100, 700200, 0);
	seg(&v, S2C, A, x + 1448, ISS + 1, 50, 1200000, 0); /* not the same sequence shrinking */
	finish(&v);
	CHECK(!m->pmtu_blackhole);
	CHECK_EQ_U(count_ev(&v, SUM_EV_PMTU), 0);

	/* One RTO then a smaller re-send (e.g. a tail probe) is not enough. */
	mc_init(&v, 4, true);
	handshake(&v, 1460, 1460);
	bulk(&v, 2, 1448, 1000, 100, 50);
	seg(&v, S2C, A, x, ISS + 1, 1448, 2000, 0);
	seg(&v, S2C, A, x, ISS + 1, 1448, 300000, 0);
	seg(&v, S2C, A, x, ISS + 1, 1000, 400000, 0);
	finish(&v);
	CHECK(!m->pmtu_blackhole);
}

/* The seed's pattern: misaligned plus stalls (the stall detector's result,
 * which runs before this one), or plus a throughput collapse. */
static void test_collapse(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;

	mc_init(&v, 4, true);
	handshake(&v, 63500, 63500);
	bulk(&v, 6, 63488, 1000, 100, 50);
	v.res.stall.count = 12;
	v.res.stall.time_ns = 2400000000ll;
	finish(&v);
	CHECK(m->misaligned && m->collapse);
	CHECK_EQ_U(m->collapse_by, MTU_COLLAPSE_STALLS);
	CHECK_EQ_U(m->stalls, 12);
	CHECK_EQ_U(m->stall_ns, 2400000000ll);

	/* Stalls on an aligned MTU are the stall detector's business only. */
	mc_init(&v, 4, true);
	handshake(&v, 61452, 61452);
	bulk(&v, 6, 61440, 1000, 100, 50);
	v.res.stall.count = 12;
	finish(&v);
	CHECK(!m->misaligned && !m->collapse);

	/* No stall verdict, but 10 full-size segments 200 ms apart, each
	 * ACKed at once: idle 9 x ~200 ms of the 1.8 s transfer. */
	mc_init(&v, 4, true);
	handshake(&v, 63500, 63500);
	bulk(&v, 10, 63488, 1000, 200000, 50);
	finish(&v);
	CHECK(m->collapse);
	CHECK_EQ_U(m->collapse_by, MTU_COLLAPSE_THROUGHPUT);
	CHECK_EQ_U(m->transfer_ns, 9 * 200000000ll);
	CHECK_EQ_U(m->idle_ns, 9 * (200000000ll - 50000));

	/* ... while back-to-back or paced segments (5 ms apart: no gap above
	 * the 10 ms stall floor) are no collapse. */
	mc_init(&v, 4, true);
	handshake(&v, 63500, 63500);
	bulk(&v, 10, 63488, 1000, 20, 50);
	finish(&v);
	CHECK(m->misaligned && !m->collapse);
	mc_init(&v, 4, true);
	handshake(&v, 63500, 63500);
	bulk(&v, 10, 63488, 1000, 5000, 50);
	finish(&v);
	CHECK(m->misaligned && !m->collapse);
	CHECK_EQ_U(m->idle_ns, 0);

	/* Request/response: the client's requests end every pause (think
	 * time), so those pauses are not the server's. */
	mc_init(&v, 4, true);
	handshake(&v, 63500, 63500);
	uint32_t cseq = ISS + 1, sseq = IRS + 1;
	for (unsigned k = 0; k < 10; k++) {
		int64_t t = 1000 + (int64_t)k * 300000;
		seg(&v, C2S, A | P, cseq, sseq, 100, t, 0);
		cseq += 100;
		seg(&v, S2C, A | P, sseq, cseq, 63488, t + 20, 0);
		sseq += 63488;
		seg(&v, C2S, A, cseq, sseq, 0, t + 70, 0);
	}
	finish(&v);
	CHECK(m->misaligned && !m->collapse);
	CHECK_EQ_U(m->idle_ns, 0);
}

/* s2c's block (NULL: none yet). */
static const struct mtu_dir *s2c_dir(const struct mconv *v)
{
	return v->c.det.mtu.dir[S2C];
}

/*
 * A direction's block starts with room for one size and moves up a class
 * (1 -> 2 -> 4 sizes) at each new size: every move keeps the sizes, their
 * counts and first segments, the super-frame count and a black hole run.
 */
static void test_size_classes(void)
{
	struct mconv v;
	const struct mtu_summary *m = &v.res.mtu;
	uint32_t q = IRS + 1;
	struct mtu_size first;

	_Static_assert(MTU_DIR_BYTES(0) == 48, "one size and the header: a 48-byte block");
	_Static_assert(MTU_DIR_BYTES(MTU_DIR_CLASSES - 1) == 156, "four: as before the classes");
	mc_init(&v, 4, true); /* no SYN: the full size is the one seen 3 times */
	seg(&v, S2C, A, q, ISS + 1, 63488, 1000, 0);
	q += 63488;
	CHECK(s2c_dir(&v) && s2c_dir(&v)->cls == 0 && s2c_dir(&v)->nsizes == 1);
	seg(&v, S2C, A, q, ISS + 1, 63488, 1100, 0);
	q += 63488;
	v.presumed = true;
	seg(&v, S2C, A, q, ISS + 1, 80000, 1200, 0); /* a super-frame: no size */
	q += 80000;
	v.presumed = false;
	const struct mtu_dir *d0 = s2c_dir(&v);
	CHECK(d0->cls == 0 && d0->nsizes == 1 && d0->superframes == 1);
	CHECK_EQ_U(d0->size[0].payload, 63488);
	CHECK_EQ_U(d0->size[0].count, 2);
	CHECK_EQ_U(d0->size[0].frame, 1);
	CHECK_EQ_U(d0->size[0].hdr, 52);
	CHECK_EQ_U(d0->size[0].opt, 12);
	first = d0->size[0];

	seg(&v, S2C, A, q, ISS + 1, 1000, 1300, 0); /* second size: class 1 */
	q += 1000;
	const struct mtu_dir *d1 = s2c_dir(&v);
	CHECK(d1->cls == 1 && d1->nsizes == 2 && d1->superframes == 1);
	CHECK(memcmp(&d1->size[0], &first, sizeof(first)) == 0);
	CHECK_EQ_U(d1->size[1].payload, 1000);
	CHECK_EQ_U(d1->size[1].count, 1);
	CHECK_EQ_U(d1->size[1].frame, 4);
	seg(&v, S2C, A, q, ISS + 1, 63488, 1400, 0); /* its third: counted in the moved block */
	q += 63488;
	first.count = 3;
	CHECK(s2c_dir(&v) == d1 && memcmp(&d1->size[0], &first, sizeof(first)) == 0);

	static const uint32_t more[] = {2000, 500, 3000, 3000};
	for (unsigned k = 0; k < 4; k++) {
		seg(&v, S2C, A, q, ISS + 1, more[k], 1500 + 100 * (int64_t)k, 0);
		q += more[k];
	}
	/* Four kept, the smallest (500) fallen off: 63488, 3000, 2000, 1000. */
	const struct mtu_dir *d2 = s2c_dir(&v);
	CHECK(d2->cls == 2 && d2->nsizes == MTU_SIZES && d2->superframes == 1);
	CHECK(memcmp(&d2->size[0], &first, sizeof(first)) == 0);
	static const uint32_t want[] = {63488, 3000, 2000, 1000}, cnt[] = {3, 2, 1, 1},
			      frm[] = {1, 8, 6, 4};
	for (unsigned k = 0; k < MTU_SIZES; k++) {
		CHECK_EQ_U(d2->size[k].payload, want[k]);
		CHECK_EQ_U(d2->size[k].count, cnt[k]);
		CHECK_EQ_U(d2->size[k].frame, frm[k]);
	}
	CHECK(v.c.det.mtu.dir[C2S] == NULL);
	finish(&v);
	CHECK(m->misaligned && m->full_size[S2C]);
	CHECK_EQ_U(m->largest_payload[S2C], 63488);
	CHECK_EQ_U(m->superframes[S2C], 1);
	const struct sum_event *e = find_ev(&v, SUM_EV_MTU_ALIGNMENT);
	CHECK(e && e->frame_first == 1 && e->segments == 3 && e->ts == 1000000);
	CHECK(e && e->rel_seq == first.rel_seq);
	mtu_ops.release(&v.c, &v.env);
	CHECK(s2c_dir(&v) == NULL);
}

/* No memory for the class above: the block stays, with the largest sizes
 * that fit, and the pool counts the failure (the run's alloc_failed). */
static void test_size_class_nomem(void)
{
	struct mconv v;
	struct det_pools pools;
	struct pool_budget b = {0, 0};

	CHECK(det_pools_init(&pools) == 0);
	det_pools_set_budget(&pools, &b);
	mc_init(&v, 4, true);
	v.env.pools = &pools;
	seg(&v, S2C, A, IRS + 1, ISS + 1, 1000, 1000, 0);
	CHECK(s2c_dir(&v) && s2c_dir(&v)->cls == 0);
	b.cap = b.used;					     /* no slab more */
	seg(&v, S2C, A, IRS + 1001, ISS + 1, 1448, 1100, 0); /* larger: replaces 1000 */
	seg(&v, S2C, A, IRS + 2449, ISS + 1, 500, 1200, 0);  /* smaller: not kept */
	seg(&v, S2C, A, IRS + 2949, ISS + 1, 1448, 1300, 0);
	const struct mtu_dir *d = s2c_dir(&v);
	CHECK(d->cls == 0 && d->nsizes == 1);
	CHECK_EQ_U(d->size[0].payload, 1448);
	CHECK_EQ_U(d->size[0].count, 2);
	CHECK_EQ_U(d->size[0].frame, 2);
	CHECK_EQ_U(det_pools_failed(&pools), 2);
	finish(&v);
	CHECK_EQ_U(v.res.mtu.largest_payload[S2C], 1448);
	mtu_ops.release(&v.c, &v.env);
	det_pools_free(&pools);
}

int main(void)
{
	test_arithmetic();
	test_misaligned_ipv4_ts();
	test_aligned_controls();
	test_20532_without_timestamps();
	test_ipv6();
	test_not_full_size();
	test_oversize();
	test_superframes();
	test_icmp_too_big();
	test_blackhole();
	test_collapse();
	test_size_classes();
	test_size_class_nomem();
	return unit_done("mtu");
}
