/* detect.c - the table of detectors and the calls that fan out to them. */
#include "analyze/detect/detect.h"

#include <string.h>

#include "common/err.h"

/* Every detector's hooks, declared from the table. */
#define DETECTOR(name, prefix)                                                                     \
	extern const struct det_ops prefix##_ops;                                                  \
	void prefix##_segment(struct tcp_conn *c, const struct det_env *env);
#define DET_BEFORE(prefix)                                                                         \
	void prefix##_before(struct tcp_conn *c, int64_t ts, const struct det_env *env);
#include "analyze/detect/detectors.h"

static const struct det_ops *const det_table[] = {
#define DETECTOR(name, prefix) &prefix##_ops,
#include "analyze/detect/detectors.h"
};

#define DET_COUNT (sizeof(det_table) / sizeof(det_table[0]))

void det_params_defaults(struct det_params *prm)
{
	prm->stall_min_ns = DET_DEFAULT_STALL_MIN_NS;
	prm->stall_rtt_factor = DET_DEFAULT_STALL_RTT_FACTOR;
}

/*
 * Every TCP packet comes here, so the segment hooks are called directly, in
 * the table's order: the loop of indirect calls cost as many instructions as
 * some detectors' common case.
 */
void det_segment(struct tcp_conn *c, const struct det_env *env)
{
#define DETECTOR(name, prefix) prefix##_segment(c, env);
#include "analyze/detect/detectors.h"
}

void det_before(struct tcp_conn *c, int64_t ts, const struct det_env *env)
{
	const char *hot = (const char *)&c->dhot;

	/* det_segment() reads c->dhot after tcp_segment(): ask for its cache
	 * lines (64 bytes) now, they arrive while the TCP engine works. */
	for (size_t k = 0; k < sizeof(c->dhot); k += 64)
		__builtin_prefetch(hot + k, 1);
	__builtin_prefetch(hot + sizeof(c->dhot) - 1, 1);
#define DET_BEFORE(prefix) prefix##_before(c, ts, env);
#include "analyze/detect/detectors.h"
}

void det_icmp(struct tcp_conn *c, const struct dec_packet *d, const struct pkt *p,
	      const struct det_env *env)
{
	for (size_t k = 0; k < DET_COUNT; k++)
		if (det_table[k]->icmp)
			det_table[k]->icmp(c, d, p, env);
}

void det_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < DET_COUNT; k++)
		if (det_table[k]->finish)
			det_table[k]->finish(c, env, out);
}

void det_prefetch(const struct tcp_conn *c)
{
#define DET_COLD(name, prefix) __builtin_prefetch(c->det.name);
#include "analyze/detect/detectors.h"
}

void det_live(const struct tcp_conn *c, struct sum_det *out)
{
	memset(out, 0, sizeof(*out));
	if (c->det.stall)
		out->stall = c->det.stall->sum;
}

int det_pools_init(struct det_pools *dp)
{
	memset(dp, 0, sizeof(*dp));
#define DET_COLD(name, prefix)                                                                     \
	if (!(dp->name = pool_new(sizeof(struct prefix##_state), 0)))                              \
		goto nomem;
#define DET_POOLS(name, n, bytes)                                                                  \
	for (unsigned k = 0; k < (n); k++)                                                         \
		if (!(dp->name[k] = pool_new(bytes(k), 0)))                                        \
			goto nomem;
#include "analyze/detect/detectors.h"
	return 0;
nomem:
	det_pools_free(dp);
	return ERR_NOMEM;
}

void det_pools_set_budget(struct det_pools *dp, struct pool_budget *b)
{
#define DET_COLD(name, prefix) pool_set_budget(dp->name, b);
#define DET_POOLS(name, n, bytes)                                                                  \
	for (unsigned k = 0; k < (n); k++)                                                         \
		pool_set_budget(dp->name[k], b);
#include "analyze/detect/detectors.h"
}

void det_pools_free(struct det_pools *dp)
{
#define DET_COLD(name, prefix)                                                                     \
	pool_free(dp->name);                                                                       \
	dp->name = NULL;
#define DET_POOLS(name, n, bytes)                                                                  \
	for (unsigned k = 0; k < (n); k++) {                                                       \
		pool_free(dp->name[k]);                                                            \
		dp->name[k] = NULL;                                                                \
	}
#include "analyze/detect/detectors.h"
}

size_t det_pools_bytes(const struct det_pools *dp)
{
	size_t n = 0;
#define DET_COLD(name, prefix)                                                                     \
	n += dp->name ? pool_stats(dp->name)->in_use * pool_stats(dp->name)->block_size : 0;
#define DET_POOLS(name, n_, bytes)                                                                 \
	for (unsigned k = 0; k < (n_); k++)                                                        \
		n += dp->name[k]                                                                   \
			 ? pool_stats(dp->name[k])->in_use * pool_stats(dp->name[k])->block_size   \
			 : 0;
#include "analyze/detect/detectors.h"
	return n;
}

uint64_t det_pools_failed(const struct det_pools *dp)
{
	uint64_t n = 0;
#define DET_COLD(name, prefix) n += dp->name ? pool_stats(dp->name)->failed : 0;
#define DET_POOLS(name, n_, bytes)                                                                 \
	for (unsigned k = 0; k < (n_); k++)                                                        \
		n += dp->name[k] ? pool_stats(dp->name[k])->failed : 0;
#include "analyze/detect/detectors.h"
	return n;
}

void det_release(struct tcp_conn *c, const struct det_env *env)
{
	for (size_t k = 0; k < DET_COUNT; k++)
		if (det_table[k]->release)
			det_table[k]->release(c, env);
#define DET_COLD(name, prefix)                                                                     \
	if (c->det.name) {                                                                         \
		pool_put(env->pools->name, c->det.name);                                           \
		c->det.name = NULL;                                                                \
	}
#include "analyze/detect/detectors.h"
}

void det_event_init(struct sum_event *e, enum sum_event_type type, const struct tcp_conn *c,
		    enum sum_dir_id dir, int64_t ts, uint64_t frame, uint32_t input)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->conn = c->info.id;
	e->dir = (uint8_t)dir;
	e->ts = ts;
	e->duration_ns = -1;
	e->input = input;
	e->frame_first = e->frame_last = frame;
	e->queue_switch = -1;
}

void det_emit(const struct det_env *env, const struct sum_event *e)
{
	sum_emit(env->sink, e);
}
