/* stall.c - detector: delayed-ACK, cork and zero-window stalls inside transfers. */
#include "analyze/stall.h"

/* Not written yet: the ops are wired so the engine and reporters run. */
static void stall_segment(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

static void stall_finish(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

const struct det_ops stall_ops = {
    .name = "stall",
    .segment = stall_segment,
    .finish = stall_finish,
};
