/* flow.h - the connection table: bidirectional 5-tuple -> struct tcp_conn. */
#ifndef TCPSIFT_FLOW_H
#define TCPSIFT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/decode.h"
#include "analyze/engine/tcp.h"

/*
 * The table owns every live struct tcp_conn. Memory grows with live
 * connections, in chunks, up to max_flows; the index is sized for max_flows
 * at creation. Connections are kept in least-recently-used order:
 *
 *   lru head (idle longest) <-> ... <-> tail (packet just seen)
 *
 * so idle expiry and eviction under --max-flows take from the head;
 * closed connections sit on a second such list and go first. A
 * connection leaves the table through the caller's end callback, which
 * gets it one last time (to summarize) before its slot is reused.
 */

struct flow_config {
	uint32_t max_flows;	  /* live connection cap (>= 1) */
	int64_t idle_timeout_ns;  /* open connections: <= 0 never expire */
	int64_t closed_linger_ns; /* closed connections: <= 0 never expire */
};

typedef void flow_end_fn(void *ctx, struct tcp_conn *c, enum flow_end why);

struct flow_table;

/* NULL on failure with the reason in errbuf. */
struct flow_table *flow_new(const struct flow_config *cfg, flow_end_fn *end, void *ctx,
			    char *errbuf, size_t errlen);

/*
 * The connection a decoded TCP packet seen at a vantage point (see
 * analyze/engine/source.h) belongs to, created (and *created set)
 * when new; a full table first evicts its least recently used connection.
 * Returns NULL only when memory runs out. The pointer is valid until the
 * next flow_* call that may end connections.
 */
struct tcp_conn *flow_lookup(struct flow_table *t, const struct dec_packet *d, uint32_t vantage,
			     bool *created);

/*
 * Hints for a caller that knows the packets coming (a batch): flow_hash()
 * returns the key's hash and starts loading its index slot; some packets
 * later flow_prefetch() starts loading the entry the slot names, so that
 * flow_lookup() finds both in cache. They change nothing.
 */
uint32_t flow_hash(const struct flow_table *t, const struct dec_packet *d, uint32_t vantage);
void flow_prefetch(const struct flow_table *t, uint32_t hash);

/* The live connection of a 4-tuple at a vantage point, or NULL; no creation. */
struct tcp_conn *flow_find(struct flow_table *t, const struct dec_packet *d, uint32_t vantage);

/* End c now (why is passed to the callback) and forget it. */
void flow_end(struct flow_table *t, struct tcp_conn *c, enum flow_end why);

/* c has closed (FIN both ways or RST): it now expires after closed_linger. */
void flow_set_closed(struct flow_table *t, struct tcp_conn *c);

/* End connections idle since before now - idle_timeout (closed_linger), in
 * id order. */
void flow_expire(struct flow_table *t, int64_t now);

/* End every live connection in first-packet order (end of input). */
void flow_drain(struct flow_table *t);

/* The same one connection at a time (workers.c interleaves N tables by id):
 * flow_drain_start() once (0, or ERR_NOMEM: then LRU order), then
 * flow_drain_peek() is the connection flow_drain_next() ends, NULL when
 * none is left. Nothing else may change the table in between. */
int flow_drain_start(struct flow_table *t);
const struct tcp_conn *flow_drain_peek(const struct flow_table *t);
void flow_drain_next(struct flow_table *t);

/* Call fn for every live connection, LRU order (open ones first); fn must not
 * change the table. */
void flow_foreach(const struct flow_table *t, void (*fn)(void *ctx, const struct tcp_conn *c),
		  void *ctx);

/* The same, for fn that changes the connections but not the table (to
 * release what they hold before flow_free()). */
void flow_foreach_mut(struct flow_table *t, void (*fn)(void *ctx, struct tcp_conn *c), void *ctx);

const struct flow_counters *flow_counters(const struct flow_table *t);

void flow_free(struct flow_table *t); /* NULL is a no-op; does not call end */

#endif
