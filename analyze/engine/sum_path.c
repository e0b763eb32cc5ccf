/* sum_path.c - what a summary says about the path: the capture point's place on it, the loss rate.
 */
#include "analyze/engine/summary.h"

void sum_path_unknown(struct sum_path *p)
{
	p->rtt_ns = -1;
	for (unsigned k = 0; k < SUM_DIR_COUNT; k++)
		p->loop_ns[k] = -1;
}

/*
 * A tenth: a receiver-side capture on a 20 ms path sees 1-227 us to the
 * receiver (under 2 %); the lab's capture between a 5 ms and a 45 ms leg
 * sees exactly a tenth to the near end, and is in the middle. An end
 * closer than that is where the capture point's own host or LAN is.
 */
#define SUM_VANTAGE_NEAR_DIV 10

enum sum_vantage_side sum_vantage_side(const struct sum_path *p, unsigned dir)
{
	int64_t s = p->loop_ns[dir & 1], r = p->loop_ns[!(dir & 1)];

	if (s < 0 || r < 0)
		return SUM_VANTAGE_UNKNOWN;
	/* (s + r) / 10 without the overflow: the loops are ns of a capture. */
	int64_t path = s / SUM_VANTAGE_NEAR_DIV + r / SUM_VANTAGE_NEAR_DIV;
	if (s < path)
		return SUM_VANTAGE_SENDER;
	if (r < path)
		return SUM_VANTAGE_RECEIVER;
	return SUM_VANTAGE_MIDDLE;
}

const char *sum_vantage_name(enum sum_vantage_side v)
{
	static const char *const names[SUM_VANTAGE_COUNT] = {
	    [SUM_VANTAGE_UNKNOWN] = "unknown",
	    [SUM_VANTAGE_SENDER] = "sender-side",
	    [SUM_VANTAGE_RECEIVER] = "receiver-side",
	    [SUM_VANTAGE_MIDDLE] = "middle",
	};
	return (unsigned)v < SUM_VANTAGE_COUNT ? names[v] : "unknown";
}

uint64_t sum_lost_segments(const struct sum_dir *d)
{
	return d->retrans > d->spurious_retrans ? d->retrans - d->spurious_retrans : 0;
}

uint64_t sum_sent_segments(const struct sum_dir *d)
{
	return d->data_packets + d->lost_upstream;
}

double sum_loss_rate(const struct sum_dir *d)
{
	uint64_t sent = sum_sent_segments(d);

	if (!d->data_packets || !sent)
		return -1;
	uint64_t lost = sum_lost_segments(d);
	return lost >= sent ? 1 : (double)lost / (double)sent;
}

double sum_conn_loss_rate(const struct sum_conn *c)
{
	uint64_t lost = 0, sent = 0, data = 0;

	for (unsigned k = 0; k < SUM_DIR_COUNT; k++) {
		lost += sum_lost_segments(&c->dir[k]);
		sent += sum_sent_segments(&c->dir[k]);
		data += c->dir[k].data_packets;
	}
	if (!data || !sent)
		return -1;
	return lost >= sent ? 1 : (double)lost / (double)sent;
}
