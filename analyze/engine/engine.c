/* engine.c - per-packet pipeline: decode, find the connection, run the TCP engine. */
#include "analyze/engine/engine.h"
#include "analyze/engine/evtab.h"
#include "analyze/engine/shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct engine {
	struct eng_config cfg;
	struct sum_sink sink;
	struct det_env env;
	struct det_pools pools;	 /* the detectors' cold state (env.pools) */
	struct tcp_pools tpools; /* the connections' RTT rings */
	struct flow_table *flows;
	struct eng_counters cnt;
	uint64_t grow_failed; /* tcp_conn_grow_failed() of the ended ones */
	uint64_t next_id;
	struct eng_clock clock;
	/* live_spans: the packet being processed (eng_at_packet), and where a
	 * connection ending now left the table: before this packet, or after
	 * it for the --max-memory evictions that follow its processing. */
	uint64_t at_packet, end_before;
	/* --max-memory where memory is taken: flow chunks and pool slabs
	 * (pool.h), within the cap less the table's fixed parts (mem_fixed:
	 * index slots, evicted-key memory). */
	struct pool_budget budget;
	size_t mem_fixed;
	uint64_t mem_failed;	/* the pools' failed gets at the last check */
	uint64_t mem_evictions; /* eng_mem_check()'s; the table adds its own */
};

void eng_config_defaults(struct eng_config *cfg)
{
	/* Every field a default, also those added later: a caller's stack
	 * struct must not carry garbage into --shard or --max-memory. */
	memset(cfg, 0, sizeof(*cfg));
	cfg->flow.max_flows = ENG_DEFAULT_MAX_FLOWS;
	cfg->flow.idle_timeout_ns = ENG_DEFAULT_IDLE_TIMEOUT_NS;
	cfg->flow.closed_linger_ns = ENG_DEFAULT_CLOSED_LINGER_NS;
	cfg->flow.park_after_ns = ENG_DEFAULT_PARK_AFTER_NS;
	cfg->flow.prefetch_live = ENG_DEFAULT_PREFETCH_LIVE;
	cfg->tcp.rto_min_ns = ENG_DEFAULT_RTO_MIN_NS;
	cfg->tcp.reorder_window_ns = ENG_DEFAULT_REORDER_WINDOW_NS;
	det_params_defaults(&cfg->det);
	cfg->detectors = true;
}

static void conn_ended(void *ctx, struct tcp_conn *c, enum flow_end why)
{
	struct engine *e = ctx;
	struct sum_conn s;

	e->grow_failed += tcp_conn_grow_failed(c);
	tcp_finish(c, &e->sink);
	if (e->cfg.detectors)
		det_finish(c, &e->env, &s.det);
	else
		memset(&s.det, 0, sizeof(s.det));
	tcp_summarize(c, &s);
	tcp_conn_release(c, &e->tpools);
	det_release(c, &e->env);
	s.evicted = why == FLOW_END_EVICTED;
	s.evicted_and_resumed = c->info.evicted_and_resumed;
	s.live_until = !e->cfg.live_spans ? 0 : why == FLOW_END_DONE ? UINT64_MAX : e->end_before;
	if (e->sink.conn)
		e->sink.conn(e->sink.ctx, &s);
}

static void id_forgotten(void *ctx, uint64_t id)
{
	struct engine *e = ctx;

	e->sink.forget(e->sink.ctx, id);
}

static void release_conn(void *ctx, struct tcp_conn *c)
{
	struct engine *e = ctx;

	tcp_conn_release(c, &e->tpools);
	det_release(c, &e->env);
}

uint32_t eng_remember_for(uint64_t max_memory, uint32_t max_flows)
{
	uint64_t n = max_flows > FLOW_REMEMBER_MIN / 2 ? 2ull * max_flows : FLOW_REMEMBER_MIN;
	uint64_t fit = max_memory / 8 / sizeof(struct evt_rec);

	if (max_memory && fit < n) {
		/* A power of two, as evt_new() rounds up to one. */
		for (n = 1024; 2 * n <= fit; n *= 2)
			;
	}
	return (uint32_t)n;
}

struct engine *eng_new(const struct eng_config *cfg, const struct sum_sink *sink, char *errbuf,
		       size_t errlen)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	e->cfg = *cfg;
	if (sink)
		e->sink = *sink;
	e->env.prm = &e->cfg.det;
	e->env.sink = &e->sink;
	e->env.pools = &e->pools;
	if (det_pools_init(&e->pools) < 0 || tcp_pools_init(&e->tpools) < 0) {
		snprintf(errbuf, errlen, "out of memory");
		det_pools_free(&e->pools);
		free(e);
		return NULL;
	}
	struct flow_config fc = cfg->flow;
	if (cfg->max_memory) {
		/* No more entries than the cap holds: the index's slots (two a
		 * connection it may hold) follow the cap, not the default. */
		uint64_t fit = cfg->max_memory / flow_entry_bytes();
		if (fit < 1024)
			fit = 1024;
		if (fit < fc.max_flows)
			fc.max_flows = (uint32_t)fit;
	}
	if (!fc.remember)
		fc.remember = eng_remember_for(cfg->max_memory, fc.max_flows);
	e->flows = flow_new(&fc, conn_ended, e, errbuf, errlen);
	if (!e->flows) {
		tcp_pools_free(&e->tpools);
		det_pools_free(&e->pools);
		free(e);
		return NULL;
	}
	if (e->sink.forget)
		flow_on_forget(e->flows, id_forgotten);
	if (cfg->max_memory) {
		e->mem_fixed = flow_mem_bytes(e->flows); /* nothing live yet */
		/* At least a chunk of entries and some slabs, whatever the cap:
		 * without them nothing is analysed. */
		size_t least = flow_chunk_bytes() + (256u << 10);
		e->budget.cap =
		    cfg->max_memory > e->mem_fixed + least ? cfg->max_memory - e->mem_fixed : least;
		flow_set_budget(e->flows, &e->budget);
		tcp_pools_set_budget(&e->tpools, &e->budget);
		det_pools_set_budget(&e->pools, &e->budget);
	}
	return e;
}

void eng_free(struct engine *e)
{
	if (!e)
		return;
	if (e->flows)
		flow_foreach_mut(e->flows, release_conn, e); /* ended without eng_finish() */
	flow_free(e->flows);
	tcp_pools_free(&e->tpools);
	det_pools_free(&e->pools);
	free(e);
}

/* An ICMP error quoting a TCP segment goes to that segment's connection. */
static void icmp_to_conn(struct engine *e, const struct dec_packet *d, const struct pkt *p)
{
	const struct dec_icmp *ic = &d->icmp;
	struct dec_packet q;

	if (!e->cfg.detectors || !ic->has_inner || ic->inner_proto != 6)
		return;
	memset(&q, 0, sizeof(q));
	q.src = ic->inner_src;
	q.dst = ic->inner_dst;
	q.tcp.sport = ic->inner_sport;
	q.tcp.dport = ic->inner_dport;
	struct tcp_conn *c = flow_find(e->flows, &q, p->vantage);
	if (c)
		det_icmp(c, d, p, &e->env);
}

static void deliver_segment(const struct engine *e, const struct tcp_conn *c, const struct pkt *p,
			    const struct dec_packet *d)
{
	const struct tcp_seg *g = &c->tp->seg;
	const struct tcp_half *peer = &c->half[!g->dir];
	struct sum_seg s = {
	    .conn = c->info.id,
	    .ts = g->ts,
	    .len = g->len,
	    .rel_seq = g->rel_seq,
	    .wirelen = p->wirelen,
	    .queue = g->queue,
	    .dir = (uint8_t)g->dir,
	    .window = g->window,
	    .rtt_ns = g->rtt_ns,
	    .frame = g->frame,
	    .input = g->input,
	    .seq = d->tcp.seq,
	    .seq_ack = d->tcp.ack,
	    .tsval = d->tcp.opt.tsval,
	    .ip_id = d->ip_id,
	    .mss_opt = d->tcp.opt.has_mss ? d->tcp.opt.mss : 0,
	    .ttl = d->ip_ttl,
	    .tos = d->ip_tos,
	};
	static const struct {
		uint32_t kind;
		uint16_t flag;
	} map[] = {
	    {TCP_SEG_DATA, SUM_SEG_DATA}, {TCP_SEG_RETRANS, SUM_SEG_RETRANS},
	    {TCP_SEG_OOO, SUM_SEG_OOO},	  {TCP_SEG_ZERO_WINDOW, SUM_SEG_ZERO_WINDOW},
	    {TCP_SEG_SYN, SUM_SEG_SYN},	  {TCP_SEG_FIN, SUM_SEG_FIN},
	    {TCP_SEG_RST, SUM_SEG_RST},	  {TCP_SEG_OPENED_GAP, SUM_SEG_GAP},
	    {TCP_SEG_RTT, SUM_SEG_RTT},	  {TCP_SEG_NEW_DATA, SUM_SEG_NEW_DATA},
	};
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (g->kind & map[k].kind)
			s.flags |= map[k].flag;
	if (d->tcp.flags & DEC_TH_ACK)
		s.flags |= SUM_SEG_TH_ACK;
	if (d->tcp.opt.has_ts)
		s.flags |= SUM_SEG_TSVAL;
	if (d->src.family == 4)
		s.flags |= SUM_SEG_IPV4;
	/* The ACK in the other direction's relative sequence, once that side
	 * has been seen (its base is known). */
	if ((d->tcp.flags & DEC_TH_ACK) && peer->have_nxt) {
		s.flags |= SUM_SEG_ACK;
		s.rel_ack = g->ack - peer->base;
		for (unsigned k = 0; k < d->tcp.opt.nsack && k < SUM_SEG_SACK_MAX; k++) {
			s.sack[k][0] = d->tcp.opt.sack[k].left - peer->base;
			s.sack[k][1] = d->tcp.opt.sack[k].right - peer->base;
			s.nsack++;
		}
	}
	e->sink.segment(e->sink.ctx, &s);
}

struct live_walk {
	void (*fn)(void *ctx, const struct sum_conn *c);
	void *ctx;
};

static void summarize_live(void *ctx, const struct tcp_conn *c)
{
	const struct live_walk *w = ctx;
	struct sum_conn s;

	det_live(c, &s.det);
	tcp_summarize(c, &s);
	w->fn(w->ctx, &s);
}

void eng_foreach_live(const struct engine *e, void (*fn)(void *ctx, const struct sum_conn *c),
		      void *ctx)
{
	struct live_walk w = {fn, ctx};

	flow_foreach(e->flows, summarize_live, &w);
}

/* The allocation failures the pools and tables counted, into the counters. */
static void eng_sync_counters(struct engine *e)
{
	e->cnt.nomem_rtt_rings = tcp_pools_failed(&e->tpools);
	e->cnt.nomem_detectors = det_pools_failed(&e->pools);
	e->cnt.nomem_tables = e->grow_failed;
	e->cnt.mem_evictions = e->mem_evictions + flow_budget_evictions(e->flows);
}

/* Blocks and entries in use (the table's fixed parts too): less than
 * what the engine holds (mem_fixed + budget.used), which --max-memory caps. */
static size_t eng_mem_bytes(const struct engine *e)
{
	return flow_mem_bytes(e->flows) + tcp_pools_bytes(&e->tpools) + det_pools_bytes(&e->pools);
}

/*
 * --max-memory: nothing is taken beyond the cap (the budget), and this
 * keeps room inside it for the connections that stay. When what is in use
 * passes ENG_MEM_HIGH_PCT of the cap, or a pool found no slab to take since
 * the last check (its size class had no free block, the budget no room:
 * counted, that table degrades), the least recently used connections
 * (never the one of the packet just seen) end until ENG_MEM_LOW_PCT or a
 * hundredth of the cap less is in use; their blocks wait in the pools.
 * Resumes count the table as full until then.
 */
static void eng_mem_check(struct engine *e)
{
	size_t used = eng_mem_bytes(e), held = e->mem_fixed + e->budget.used;
	uint64_t cap = e->cfg.max_memory, low = cap / 100 * ENG_MEM_LOW_PCT;
	uint64_t failed = tcp_pools_failed(&e->tpools) + det_pools_failed(&e->pools);

	if (held > e->cnt.mem_peak)
		e->cnt.mem_peak = held;
	bool high = used > cap / 100 * ENG_MEM_HIGH_PCT;
	if (high || failed > e->mem_failed) {
		uint64_t to = high ? low : used > cap / 100 ? used - cap / 100 : 0;
		e->end_before = e->at_packet + 1;
		while (used > to && flow_counters(e->flows)->live > 1 &&
		       flow_evict_oldest(e->flows) == 0) {
			e->mem_evictions++;
			used = eng_mem_bytes(e);
		}
		e->end_before = e->at_packet;
	}
	e->mem_failed = failed;
	e->cnt.mem_evictions = e->mem_evictions + flow_budget_evictions(e->flows);
	flow_set_pressure(e->flows, used > low);
}

bool eng_clock_tick(struct eng_clock *k, struct eng_counters *n, const struct pkt *p,
		    bool own_stream)
{
	n->ts_clamped += own_stream && (p->have & PKT_HAVE_TS_CLAMPED);
	if (k->seen++ == 0) {
		n->first_ts = n->last_ts = p->ts_ns;
		k->last_sweep = p->ts_ns;
	} else if (p->ts_ns < n->last_ts) {
		n->ts_backwards += own_stream;
	} else {
		n->last_ts = p->ts_ns;
	}
	if (p->ts_ns < n->first_ts)
		n->first_ts = p->ts_ns;
	return p->ts_ns - k->last_sweep >= ENG_SWEEP_NS;
}

bool eng_clock_step(struct eng_clock *k, struct eng_counters *n, const struct pkt *p, int status,
		    bool own_stream)
{
	/* Every decoded packet of the stream, this shard's or not, may sweep, so
	 * that connections end idle when they would in a one-pass run. */
	if (!eng_clock_tick(k, n, p, own_stream) || status < 0)
		return false;
	k->last_sweep = p->ts_ns;
	return true;
}

uint32_t eng_prefetch_slot(const struct engine *e, const struct pkt *p, int status,
			   const struct dec_packet *d, bool have_ends, uint64_t ends)
{
	if (status != DEC_TCP)
		return 0;
	return have_ends ? flow_hash_ends(e->flows, ends, d->src.family, p->vantage)
			 : flow_hash(e->flows, d, p->vantage);
}

void eng_prefetch_conn(const struct engine *e, int status, uint32_t hash)
{
	if (status == DEC_TCP)
		flow_prefetch(e->flows, hash);
}

void eng_prefetch_state(const struct engine *e, int status, uint32_t hash)
{
	const struct tcp_conn *c = status == DEC_TCP ? flow_peek(e->flows, hash) : NULL;

	if (!c)
		return;
	tcp_prefetch(c);
	if (e->cfg.detectors)
		det_prefetch(c);
}

bool eng_prefetch_pays(const struct engine *e)
{
	return flow_prefetch_pays(e->flows);
}

void eng_at_packet(struct engine *e, uint64_t ordinal)
{
	e->at_packet = e->end_before = ordinal;
}

void eng_sweep(struct engine *e, int64_t now)
{
	flow_expire(e->flows, now);
	eng_sync_counters(e);
}

void eng_own(struct engine *e, const struct pkt *p, int st, const struct dec_packet *dp,
	     uint32_t hash)
{
	struct eng_counters *n = &e->cnt;
	const struct dec_packet *d = dp;

	n->packets++;
	n->wire_bytes += p->wirelen;
	if (st < 0) {
		n->malformed[-st]++;
		n->malformed_total++;
		return;
	}
	n->status[st]++;

	if (st == DEC_ICMP) {
		icmp_to_conn(e, d, p);
		return;
	}
	if (st != DEC_TCP)
		return;
	if (d->tcp.payload_cap < d->tcp.payload_len)
		n->snaplen_cut++;
	if (d->tcp.opt.malformed)
		n->bad_tcp_options++;

	enum flow_got got;
	struct flow_resume rs;
	struct tcp_conn *c = flow_lookup(e->flows, d, p->vantage, hash, &got, &rs);
	if (c && got == FLOW_HIT && tcp_is_new_instance(c, d)) {
		flow_end(e->flows, c, FLOW_END_REUSED);
		c = flow_lookup(e->flows, d, p->vantage, hash, &got, &rs);
	}
	if (!c) {
		/* FLOW_DROPPED: counted by the table (evicted_packets). */
		n->no_memory += got == FLOW_NOMEM;
		return;
	}
	if (got == FLOW_NEW) {
		tcp_conn_init(c, ++e->next_id, d, p);
		c->info.live_from = e->cfg.live_spans ? e->at_packet : 0;
		if (e->sink.begin)
			e->sink.begin(e->sink.ctx, e->next_id);
	} else if (got == FLOW_RESUMED) {
		tcp_conn_resume(c, rs.id, d, p, rs.src_is_client);
		c->info.live_from = e->cfg.live_spans ? e->at_packet : 0;
		if (e->sink.begin)
			e->sink.begin(e->sink.ctx, rs.id);
	} else if (e->cfg.detectors) {
		det_before(c, p->ts_ns, &e->env);
	}
	tcp_segment(c, &e->cfg.tcp, &e->tpools, d, p, &e->sink);
	if (e->cfg.detectors)
		det_segment(c, &e->env);
	if (e->sink.segment)
		deliver_segment(e, c, p, d);
	/* Only a FIN or a RST closes (tcp_segment() sets fin_seen and rst_seen
	 * from this segment's flags alone); a closed connection's later
	 * packets find it closed already. */
	if ((e->tpools.seg.kind & (TCP_SEG_FIN | TCP_SEG_RST)) && tcp_is_closed(c))
		flow_set_closed(e->flows, c);
	if (e->cfg.max_memory)
		eng_mem_check(e);
}

/* eng_packet() from the decode on (inlined in both: a packet's call less). */
static inline __attribute__((always_inline)) void packet_decoded(struct engine *e,
								 const struct pkt *p, int st,
								 const struct dec_packet *d,
								 uint32_t hash)
{
	struct pkt sane;
	uint32_t nshards = e->cfg.shard_n;

	if (p->ts_ns < 0) /* a caller that did not saturate (engine.h) */
		p = eng_ts_clamp(p, &sane);

	bool sweep = eng_clock_step(&e->clock, &e->cnt, p, st, nshards <= 1 || e->cfg.shard_k == 1);
	eng_at_packet(e, e->clock.seen);
	if (sweep)
		eng_sweep(e, p->ts_ns);
	if (nshards > 1 && shard_of_packet(st, d, nshards) != e->cfg.shard_k) {
		e->cnt.other_shards++;
		return;
	}
	eng_own(e, p, st, d, hash);
}

void eng_packet(struct engine *e, const struct pkt *p)
{
	struct dec_packet d;
	int st = dec_packet(p->data, p->caplen, p->wirelen, p->linktype, &d);

	packet_decoded(e, p, st, &d, 0);
}

void eng_packet_decoded(struct engine *e, const struct pkt *p, int st, const struct dec_packet *d,
			uint32_t hash)
{
	packet_decoded(e, p, st, d, hash);
}

void eng_finish(struct engine *e)
{
	flow_drain(e->flows);
	eng_sync_counters(e);
}

int eng_drain_start(struct engine *e)
{
	return flow_drain_start(e->flows);
}

uint64_t eng_drain_peek(const struct engine *e)
{
	return flow_drain_peek(e->flows);
}

void eng_drain_next(struct engine *e)
{
	flow_drain_next(e->flows);
	eng_sync_counters(e);
}

const struct eng_counters *eng_counters(const struct engine *e)
{
	return &e->cnt;
}

uint32_t eng_live_connections(const struct engine *e)
{
	return flow_counters(e->flows)->live;
}

const struct flow_counters *eng_flow_counters(const struct engine *e)
{
	return flow_counters(e->flows);
}
