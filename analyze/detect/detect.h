/* detect.h - the detector interface: per-connection findings fed by the TCP engine. */
#ifndef TCPSIFT_DETECT_H
#define TCPSIFT_DETECT_H

#include <stdint.h>

#include "analyze/engine/decode.h"
#include "analyze/engine/pool.h"
#include "analyze/engine/summary.h"
#include "analyze/engine/tcp.h"
#include "common/pkt.h"

/*
 * A detector is one folder, analyze/detect/<name>/, and one line in the
 * table (analyze/detect/detectors.h): its engine side (<name>.c) exports
 * prefix_segment() and a const struct det_ops prefix_ops; its state lives
 * in struct det_hot (what every segment touches) and struct det_states
 * (tcp.h), its result in sum_conn.det (summary.h), its event detail in
 * sum_event.u, all laid out from the table. What it shows (JSON, text,
 * totals, --fail-on, the dashboard) is its view (<name>_report.c,
 * analyze/report/det_view.h). For every TCP
 * segment the engine first runs the TCP reconstruction (tcp.c), which
 * records what it decided in c->tp->seg, then calls every detector's segment():
 * detectors read the connection (through tcp.h's views), never change the
 * TCP state, and emit struct sum_event through env->sink. Just before the
 * reconstruction, det_before() lets a detector see the connection as the
 * previous packet left it (the stall detector, at a gap).
 *
 *   packet -> det_before() -> tcp_segment() -> c->tp->seg -> det_segment()
 *                                                  -> each segment()
 *   ICMP error quoting c's segment ---> det_icmp()     -> each ops->icmp()
 *   connection ends ---------------> det_finish()     -> each ops->finish()
 */

/* Thresholds, from the command line (tcpsift-analyze(1), FINDINGS). */
struct det_params {
	int64_t stall_min_ns;	   /* a gap shorter than this is never a stall (10 ms) */
	uint32_t stall_rtt_factor; /* ... plus this many loops to the answering host (1) */
	uint32_t sack_max_holes;   /* SACK holes tracked per direction: 0 is the cap,
				      SACKB_MAX_HOLES; smaller only in tests */
};

#define DET_DEFAULT_STALL_MIN_NS     (10ll * 1000000ll)
#define DET_DEFAULT_STALL_RTT_FACTOR 1u

/*
 * Where the cold state of the detectors that declare it (DET_COLD in their
 * .def) comes from: one pool of fixed-size blocks each, owned by whoever
 * runs the detectors (the engine), so memory follows the live connections
 * that needed the state, not the packets.
 */
struct det_pools {
#define DET_COLD(name, prefix)	  struct pool *name;
#define DET_POOLS(name, n, bytes) struct pool *name[n];
#include "analyze/detect/detectors.h"
};

struct det_env {
	const struct det_params *prm;
	const struct sum_sink *sink; /* may be NULL */
	struct det_pools *pools;     /* the cold states' pools */
};

/*
 * c's cold state of detector name (DET_COLD), allocated zeroed on the first
 * call: NULL only when memory ran out (the detector then skips the work;
 * the pool counts it, det_pools_failed()). det_release() returns it.
 */
#define DET_COLD_GET(c, env, name)                                                                 \
	((c)->det.name ? (c)->det.name : ((c)->det.name = pool_get((env)->pools->name)))

/* Create the pools (0), or ERR_NOMEM (nothing left allocated). */
int det_pools_init(struct det_pools *dp);
/* Every pool of dp counts its slabs in b (pool.h) from now on. */
struct pool_budget;
void det_pools_set_budget(struct det_pools *dp, struct pool_budget *b);
/* Free the pools and every block in them; a zeroed struct is a no-op. */
void det_pools_free(struct det_pools *dp);
/* Cold states not allocated because memory ran out. */
uint64_t det_pools_failed(const struct det_pools *dp);
/* Bytes of the blocks handed out (what --max-memory counts of the pools). */
size_t det_pools_bytes(const struct det_pools *dp);

/*
 * What a detector does besides prefix_segment(c, env), which det_segment()
 * calls directly for every segment (c->tp->seg describes it): an indirect call
 * per segment and detector cost as much as some detectors' common case.
 */
struct det_ops {
	const char *name;
	/* An ICMP/ICMPv6 error (d->icmp) quoting one of c's segments. */
	void (*icmp)(struct tcp_conn *c, const struct dec_packet *d, const struct pkt *p,
		     const struct det_env *env);
	/* The connection ends: emit what is pending, fill its result in out
	 * (zeroed by the caller; detectors earlier in the table filled theirs). */
	void (*finish)(struct tcp_conn *c, const struct det_env *env, struct sum_det *out);
	/* Give back what the cold state took from its DET_POOLS (det_release(),
	 * before the cold state itself goes back). */
	void (*release)(struct tcp_conn *c, const struct det_env *env);
};

/*
 * Before tcp_segment() processes a packet at ts of c (a connection that
 * already had packets: not the one tcp_conn_init() just set up). A stall is
 * judged by the packet ending a gap against the connection as it stood at
 * the gap's start, which the packet is about to change.
 */
void det_before(struct tcp_conn *c, int64_t ts, const struct det_env *env);
void det_segment(struct tcp_conn *c, const struct det_env *env);
/* Start loading c's cold states (a hint, some packets before c's). */
void det_prefetch(const struct tcp_conn *c);
void det_icmp(struct tcp_conn *c, const struct dec_packet *d, const struct pkt *p,
	      const struct det_env *env);
/* The detectors' results of c, which ends: into out (zeroed here). A live
 * connection keeps none (448 bytes each): they are made now from its state. */
void det_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out);
/* What c's detectors have counted so far, for a live view (out zeroed here):
 * the stall counts; the other results are made at the end. */
void det_live(const struct tcp_conn *c, struct sum_det *out);
/* Return c's cold states to env's pools (after det_finish(), or instead of
 * it when the connection is dropped); c may be reused after tcp_conn_init(). */
void det_release(struct tcp_conn *c, const struct det_env *env);

/* Fill a new event of c, as tcp.c does for its own. */
void det_event_init(struct sum_event *e, enum sum_event_type type, const struct tcp_conn *c,
		    enum sum_dir_id dir, int64_t ts, uint64_t frame, uint32_t input);
void det_emit(const struct det_env *env, const struct sum_event *e);

void det_params_defaults(struct det_params *prm);

#endif
