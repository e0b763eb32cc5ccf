/* reorder.c - detector: reordering extent and reordering across NIC queues. */
#include "analyze/reorder.h"

/* Not written yet: the ops are wired so the engine and reporters run. */
static void reorder_segment(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

static void reorder_finish(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

const struct det_ops reorder_ops = {
    .name = "reorder",
    .segment = reorder_segment,
    .finish = reorder_finish,
};
