/* engine.h - the analysis pipeline for one stream of packets: decode -> flows -> TCP. */
#ifndef TCPSIFT_ENGINE_H
#define TCPSIFT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/decode.h"
#include "analyze/detect/detect.h"
#include "analyze/engine/flow.h"
#include "analyze/engine/summary.h"
#include "analyze/engine/tcp.h"
#include "common/pkt.h"

/*
 * The engine owns the flow table and per-packet counters. Packets go in
 * one at a time (any source: file, merged files, live ring); connection
 * summaries and events come out through the struct sum_sink given at
 * creation, as connections end and as events are found.
 */

struct eng_config {
	struct flow_config flow;
	struct tcp_params tcp;
	struct det_params det;
	bool detectors; /* run the detectors (detect.h); off only to measure their cost */
	/* --max-memory: bytes of engine memory (flow table, pools, per-connection
	 * tables) above which the least recently used connections are evicted
	 * down to ENG_MEM_LOW_PCT of it, and nothing is taken beyond it; 0: no
	 * cap but max_flows. */
	uint64_t max_memory;
	/* --shard K/N: keep only shard_k's connections (analyze/engine/shard.h);
	 * shard_n <= 1 keeps everything. */
	uint32_t shard_k, shard_n;
	/* Record when each connection entered and left the table (sum_conn
	 * live_from, live_until: packets of the stream): a shard's report
	 * carries them so that merge finds the one-pass peak of live
	 * connections exactly (cli/cmd_merge.c). */
	bool live_spans;
};

struct engine;

struct engine *eng_new(const struct eng_config *cfg, const struct sum_sink *sink, char *errbuf,
		       size_t errlen);

/*
 * pkt.ts_ns may be any int64: a negative time (before 1970: no reader makes
 * one, a test or a fuzzer may) is taken as 0 with PKT_HAVE_TS_CLAMPED, as a
 * reader saturates (common/clock.h), so that every difference of two times
 * the engine takes fits in an int64. This makes that copy in *tmp.
 */
static inline const struct pkt *eng_ts_clamp(const struct pkt *p, struct pkt *tmp)
{
	*tmp = *p;
	tmp->ts_ns = 0;
	tmp->have |= PKT_HAVE_TS_CLAMPED;
	return tmp;
}

/*
 * Account one packet; p and its bytes are only borrowed for the call.
 * Under --shard K/N a packet of another shard only moves the clock (capture
 * time, idle expiry: connections end as in a one-pass run) and counts in
 * other_shards; packets of no connection and the stream's own counts
 * (timestamps going backwards) are shard 1's.
 */
void eng_packet(struct engine *e, const struct pkt *p);
/* The same with p already decoded (dec_packet()'s status st and d) and
 * its eng_prefetch_slot() hash (0: none): for a caller that decodes a few
 * packets ahead and loads their connections early. */
void eng_packet_decoded(struct engine *e, const struct pkt *p, int st, const struct dec_packet *d,
			uint32_t hash);

/* End of input: every live connection is summarized and delivered, in id
 * order. */
void eng_finish(struct engine *e);

/*
 * The stream's clock: when idle expiry sweeps (at most once a second of
 * capture time, on a decoded packet), and the counters' first_ts, last_ts
 * and ts_backwards (counted only when own_stream: shard 1's). One per
 * stream, kept by whoever sees every packet.
 */
struct eng_clock {
	uint64_t seen;
	int64_t last_sweep;
};

#define ENG_SWEEP_NS 1000000000ll

/* Account p (dec_packet() gave status); true: sweep now (eng_sweep). */
bool eng_clock_step(struct eng_clock *k, struct eng_counters *n, const struct pkt *p, int status,
		    bool own_stream);
/* eng_clock_step() for a caller that decodes only when it must: account p
 * and say whether a sweep is due if p decodes (status >= 0); if it does,
 * the caller sets k->last_sweep = p->ts_ns and sweeps. */
bool eng_clock_tick(struct eng_clock *k, struct eng_counters *n, const struct pkt *p,
		    bool own_stream);

/*
 * eng_packet() in pieces, for a caller that decodes packets and routes each
 * connection's packets to one of several engines itself (workers.c): it
 * keeps the stream's clock, has every engine sweep when the clock says so
 * (eng_sweep), and hands a packet to its own engine only (eng_own, with
 * dec_packet()'s status and result; d's payload bytes are never read: they
 * may be gone). Such an engine's counters have no clock fields.
 */
void eng_sweep(struct engine *e, int64_t now);
/* With live_spans: the ordinal (1-based, every packet of the stream) of
 * the packet the next eng_sweep()/eng_own() call is at. */
void eng_at_packet(struct engine *e, uint64_t ordinal);
/* Hints for packets a few ahead of eng_own() (flow.h: flow_hash, then
 * flow_prefetch with what it returned); ends: the packet's
 * flow_ends_hash(), when the caller has it (have_ends), saves hashing it
 * again. What it returns is eng_own()'s hash (0 when none). */
uint32_t eng_prefetch_slot(const struct engine *e, const struct pkt *p, int status,
			   const struct dec_packet *d, bool have_ends, uint64_t ends);
void eng_prefetch_conn(const struct engine *e, int status, uint32_t hash);
/* ... and, a packet or two before its turn, the blocks the connection
 * points to (tcp_prefetch(), det_prefetch()). */
void eng_prefetch_state(const struct engine *e, int status, uint32_t hash);
/* Do the last two pay (flow_config.prefetch_live connections live or
 * more)? They do nothing otherwise, but cost a call. */
bool eng_prefetch_pays(const struct engine *e);
void eng_own(struct engine *e, const struct pkt *p, int status, const struct dec_packet *d,
	     uint32_t hash);

/* eng_finish() one connection at a time, to interleave several engines by
 * id: eng_drain_start() once, then eng_drain_peek() is the id of the
 * connection eng_drain_next() ends (0: none left). No packet may come in
 * between. eng_drain_start() returns 0 or ERR_NOMEM (then they end in
 * least-recently-used order, still all of them). */
int eng_drain_start(struct engine *e);
uint64_t eng_drain_peek(const struct engine *e);
void eng_drain_next(struct engine *e);

/*
 * Summaries of the connections still live, as they stand now (a live view's
 * snapshot; they end later through the sink as usual). Detector results
 * that are only final at the end (SACK holes, reordering, MTU) are those
 * of sum_conn.det so far; the events delivered so far say the rest.
 */
void eng_foreach_live(const struct engine *e, void (*fn)(void *ctx, const struct sum_conn *c),
		      void *ctx);

const struct eng_counters *eng_counters(const struct engine *e);

/* Connections in the flow table now (for progress lines). */
uint32_t eng_live_connections(const struct engine *e);
const struct flow_counters *eng_flow_counters(const struct engine *e);

void eng_free(struct engine *e); /* NULL is a no-op */

/* Defaults, documented in tcpsift-analyze(1). */
#define ENG_DEFAULT_MAX_FLOWS 262144u
/* Longer than Linux keeps retransmitting before giving up (tcp_retries2 = 15:
 * 924.6 s), so an RTO backoff never splits a connection. */
#define ENG_DEFAULT_IDLE_TIMEOUT_NS (930ll * 1000000000ll)
/* Closed connections (FIN both ways, or RST) linger 5 s of capture time:
 * long enough for a few RTO backoffs of a lost last ACK or FIN (Linux
 * TCP_RTO_MIN 200 ms), short enough that memory follows live connections at
 * thousands of connections per second. A new SYN starts a new instance
 * whether or not the old one is still in the table. */
#define ENG_DEFAULT_CLOSED_LINGER_NS (5ll * 1000000000ll)
/* Open connections idle 10 s of capture time are parked (flow.h,
 * flow_expire()): longer than a request/response connection's think time
 * and any RTO but the backoffs, so the connections that park are those that
 * sit idle (keep-alive pools, long polls), where memory goes at 100 000s of
 * live connections. */
#define ENG_DEFAULT_PARK_AFTER_NS (10ll * 1000000000ll)
/* Connections are loaded ahead of their packets from 32 768 live on:
 * with their detectors' blocks, about 100 MiB, more than a last-level
 * cache keeps (measured here: no gain at 20 000 live, a tenth of --threads
 * 1's run at 200 000). */
#define ENG_DEFAULT_PREFETCH_LIVE     32768u
#define ENG_DEFAULT_RTO_MIN_NS	      (200ll * 1000000ll)
#define ENG_DEFAULT_REORDER_WINDOW_NS (3ll * 1000000ll)

/* Under --max-memory, evictions start when what is in use passes HIGH of
 * it and go down to LOW: a few hundred connections at a time, not one a
 * packet; not more, because each evicted connection's summary is held
 * until the report takes it (the reading threads' results buffers: part
 * of the process's cap). The gap below the cap is room for the freed
 * blocks of one size class to serve the next connections (engine.c). */
#define ENG_MEM_HIGH_PCT 92
#define ENG_MEM_LOW_PCT	 91

/* What --max-memory SIZE leaves the evicted-key memory (flow_config.remember):
 * an eighth of it. */
uint32_t eng_remember_for(uint64_t max_memory, uint32_t max_flows);

/* Every field of cfg: the defaults, 0 where none. */
void eng_config_defaults(struct eng_config *cfg);

#endif
