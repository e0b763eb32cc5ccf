/* sackboard.c - detector: SACK scoreboard: holes, D-SACK, reneging, recovery episodes. */
#include "analyze/sackboard.h"

/* Not written yet: the ops are wired so the engine and reporters run. */
static void sackb_segment(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

static void sackb_finish(struct tcp_conn *c, const struct det_env *env)
{
	(void)c;
	(void)env;
}

const struct det_ops sackb_ops = {
    .name = "sackboard",
    .segment = sackb_segment,
    .finish = sackb_finish,
};
