/* mtu.c - detector: MTU and page-alignment anomalies, oversize segments, PMTU. */
#include "analyze/mtu.h"

/* Not written yet: the ops are wired so the engine and reporters run. */
static void mtu_segment(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

static void mtu_finish(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

const struct det_ops mtu_ops = {
    .name = "mtu",
    .segment = mtu_segment,
    .finish = mtu_finish,
};
